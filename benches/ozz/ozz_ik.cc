// ozz-animation's IK jobs (IKTwoBoneJob, IKAimJob) run on cases read from standard input: the reference side of
// tests/headless/ozz_ik.rs, which compiles this file with ozz's own ik_two_bone_job.cc and ik_aim_job.cc from
// ../shared/anchors/ozz and feeds animtune's jobs the same cases.
//
// One case a line, numbers separated by spaces; matrices are 16 floats, column by column (as glam and ozz hold
// them):
//   two_bone TARGET(3) MID_AXIS(3) POLE(3) TWIST SOFTEN WEIGHT START(16) MID(16) END(16)
//     -> START_CORRECTION(x y z w) MID_CORRECTION(x y z w) REACHED(0|1)
//   aim TARGET(3) FORWARD(3) OFFSET(3) UP(3) POLE(3) TWIST WEIGHT JOINT(16)
//     -> CORRECTION(x y z w) REACHED(0|1)
// A case ozz's Validate() refuses prints "invalid".

#include <cstdio>
#include <cstring>

#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"

using namespace ozz;

static bool Read(float* out, int n) {
  for (int i = 0; i < n; ++i) {
    if (std::scanf("%f", out + i) != 1) return false;
  }
  return true;
}

static math::SimdFloat4 Vec(const float* v) { return math::simd_float4::Load(v[0], v[1], v[2], 0.f); }

static math::Float4x4 Matrix(const float* m) {
  math::Float4x4 out;
  for (int c = 0; c < 4; ++c) out.cols[c] = math::simd_float4::LoadPtrU(m + 4 * c);
  return out;
}

static void Print(const math::SimdQuaternion& q) {
  float v[4];
  math::StorePtrU(q.xyzw, v);
  std::printf("%.9g %.9g %.9g %.9g ", v[0], v[1], v[2], v[3]);
}

int main() {
  char kind[16];
  while (std::scanf("%15s", kind) == 1) {
    if (std::strcmp(kind, "two_bone") == 0) {
      float v[12], m[48];
      if (!Read(v, 12) || !Read(m, 48)) return 1;
      const math::Float4x4 start = Matrix(m), mid = Matrix(m + 16), end = Matrix(m + 32);
      math::SimdQuaternion start_correction, mid_correction;
      bool reached = false;
      animation::IKTwoBoneJob job;
      job.target = Vec(v);
      job.mid_axis = Vec(v + 3);
      job.pole_vector = Vec(v + 6);
      job.twist_angle = v[9];
      job.soften = v[10];
      job.weight = v[11];
      job.start_joint = &start;
      job.mid_joint = &mid;
      job.end_joint = &end;
      job.start_joint_correction = &start_correction;
      job.mid_joint_correction = &mid_correction;
      job.reached = &reached;
      if (!job.Run()) {
        std::printf("invalid\n");
        continue;
      }
      Print(start_correction);
      Print(mid_correction);
      std::printf("%d\n", reached ? 1 : 0);
    } else if (std::strcmp(kind, "aim") == 0) {
      float v[17], m[16];
      if (!Read(v, 17) || !Read(m, 16)) return 1;
      const math::Float4x4 joint = Matrix(m);
      math::SimdQuaternion correction;
      bool reached = false;
      animation::IKAimJob job;
      job.target = Vec(v);
      job.forward = Vec(v + 3);
      job.offset = Vec(v + 6);
      job.up = Vec(v + 9);
      job.pole_vector = Vec(v + 12);
      job.twist_angle = v[15];
      job.weight = v[16];
      job.joint = &joint;
      job.joint_correction = &correction;
      job.reached = &reached;
      if (!job.Run()) {
        std::printf("invalid\n");
        continue;
      }
      Print(correction);
      std::printf("%d\n", reached ? 1 : 0);
    } else {
      std::fprintf(stderr, "unknown case '%s'\n", kind);
      return 1;
    }
  }
  return 0;
}
