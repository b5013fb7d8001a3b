// Timing harness for ozz-animation 0.16 on the Quaternius UAL rig: the reference side of a paired runtime benchmark.
// animtune's copy of ../shared/anchors/ozz/ozz_bench.cc (scripts/bench-vs-ozz.sh builds it against target/ozz),
// with three changes: time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID, so another process running does
// not count), Idle_Loop, Jog_Fwd_Loop and Sprint_Loop are sampled on their own too (they animate far more channels
// than Walk_Loop), and "MEMORY <clip> <bytes>" gives each clip's Animation::size().
//
//   ozz_bench DIR [batches] [iters_per_batch]
//
// DIR holds skeleton.ozz and Walk_Loop.ozz, Idle_Loop.ozz, Jog_Fwd_Loop.ozz, Sprint_Loop.ozz (gltf2ozz output).
// Each benchmark runs `batches` batches of `iters` calls; time advances 1/60 s per call (looping), so the
// sampling caches stay warm as in an editor playing one character. Prints per benchmark: median and min
// ns per call over the batches, as "BENCH name median_ns min_ns".
//
//   ozz_bench --dump DIR CLIP OUT.bin   (model matrices at the 30 fps grid, for the error comparison)

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/animation/runtime/skeleton_utils.h"
#include "ozz/base/containers/vector.h"
#include "ozz/base/io/archive.h"
#include "ozz/base/io/stream.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"

using namespace ozz;
// Nanoseconds of CPU time this thread has used.
static double ThreadCpuNs() {
  timespec t;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) std::abort();
  return t.tv_sec * 1e9 + t.tv_nsec;
}

template <typename T>
static bool Load(const std::string& path, T* out) {
  io::File file(path.c_str(), "rb");
  if (!file.opened()) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    return false;
  }
  io::IArchive archive(&file);
  if (!archive.TestTag<T>()) {
    std::fprintf(stderr, "%s: wrong object type\n", path.c_str());
    return false;
  }
  archive >> *out;
  return true;
}

static volatile float g_sink;

template <typename F>
static void Bench(const char* name, int batches, int iters, F&& f) {
  // BENCH_ONLY=name runs only the benchmark of that exact name (for profiling one operation).
  const char* only = std::getenv("BENCH_ONLY");
  if (only && std::strcmp(name, only) != 0) return;
  for (int i = 0; i < iters; ++i) f();  // warm-up batch
  std::vector<double> ns;
  for (int b = 0; b < batches; ++b) {
    const double t0 = ThreadCpuNs();
    for (int i = 0; i < iters; ++i) f();
    ns.push_back((ThreadCpuNs() - t0) / iters);
  }
  std::sort(ns.begin(), ns.end());
  std::printf("BENCH %-40s %10.1f %10.1f\n", name, ns[ns.size() / 2], ns[0]);
  std::fflush(stdout);
}

// A joint's model matrix from an axis (normalised here), an angle and a position: the IK rows' inputs, built by
// the same formula in examples/runtime_bench.rs.
static math::Float4x4 IkJoint(float ax, float ay, float az, float angle, float x, float y, float z) {
  const float len = std::sqrt(ax * ax + ay * ay + az * az);
  const math::SimdQuaternion q = math::SimdQuaternion::FromAxisAngle(
      math::simd_float4::Load(ax / len, ay / len, az / len, 0.f), math::simd_float4::Load1(angle));
  return math::Float4x4::FromAffine(math::simd_float4::Load(x, y, z, 1.f), q.xyzw, math::simd_float4::one());
}

// How many targets the IK rows cycle through (computed before timing, so that no sine is timed).
static const int kIkTargets = 1024;

// "two-bone IK" and "aim IK": one job a call on fixed joints (a leg; a head), the target the next of a table made
// before timing from the call's index k, exactly as examples/runtime_bench.rs's rows.
static void IkRows(int batches, int iters) {
  const math::Float4x4 hip = IkJoint(0.2f, 1.f, 0.1f, 0.4f, 0.1f, 0.95f, 0.02f);
  const math::Float4x4 knee = IkJoint(1.f, 0.1f, 0.f, 0.5f, 0.12f, 0.52f, 0.08f);
  const math::Float4x4 ankle = IkJoint(0.f, 1.f, 0.3f, -0.2f, 0.11f, 0.08f, 0.f);
  std::vector<math::SimdFloat4> legs, looks;
  for (int k = 0; k < kIkTargets; ++k) {
    const float t = static_cast<float>(k);
    legs.push_back(math::simd_float4::Load(0.1f + 0.2f * std::sin(0.013f * t), 0.2f + 0.15f * std::sin(0.021f * t),
                                           0.1f + 0.2f * std::cos(0.017f * t), 0.f));
    looks.push_back(math::simd_float4::Load(std::sin(0.01f * t), 1.6f + 0.3f * std::sin(0.03f * t),
                                            1.f + 0.5f * std::cos(0.01f * t), 0.f));
  }
  int k = 0;
  math::SimdQuaternion start, mid;
  bool reached = false;
  Bench("two-bone IK", batches, iters, [&] {
    k = (k + 1) % kIkTargets;
    animation::IKTwoBoneJob job;
    job.target = legs[k];
    job.mid_axis = math::simd_float4::x_axis();
    job.pole_vector = math::simd_float4::z_axis();
    job.soften = 0.97f;
    job.start_joint = &hip;
    job.mid_joint = &knee;
    job.end_joint = &ankle;
    job.start_joint_correction = &start;
    job.mid_joint_correction = &mid;
    job.reached = &reached;
    if (!job.Run()) std::abort();
    g_sink = math::GetX(start.xyzw) + math::GetX(mid.xyzw);
  });
  const math::Float4x4 head = IkJoint(0.1f, 1.f, 0.f, 0.3f, 0.f, 1.6f, 0.f);
  math::SimdQuaternion correction;
  Bench("aim IK", batches, iters, [&] {
    k = (k + 1) % kIkTargets;
    animation::IKAimJob job;
    job.target = looks[k];
    job.forward = math::simd_float4::z_axis();
    job.up = math::simd_float4::y_axis();
    job.offset = math::simd_float4::Load(0.05f, 0.07f, 0.1f, 0.f);
    job.pole_vector = math::simd_float4::y_axis();
    job.joint = &head;
    job.joint_correction = &correction;
    job.reached = &reached;
    if (!job.Run()) std::abort();
    g_sink = math::GetX(correction.xyzw);
  });
}

struct Layer {
  animation::Animation anim;
  vector<math::SoaTransform> locals;
  animation::SamplingJob::Context context;
};

static int Dump(const std::string& dir, const std::string& clip, const std::string& out_path) {
  animation::Skeleton skeleton;
  animation::Animation anim;
  if (!Load(dir + "/skeleton.ozz", &skeleton) || !Load(dir + "/" + clip + ".ozz", &anim)) return 1;
  const int nj = skeleton.num_joints();
  vector<math::SoaTransform> locals(skeleton.num_soa_joints());
  vector<math::Float4x4> models(nj);
  animation::SamplingJob::Context ctx(anim.num_tracks());
  // Same grid as animtune's bake (clipfile::uniform_frame_count): n = ceil(d * 30 - 1e-4) + 1 frames,
  // t_k = min(k / 30, d).
  const float fps = 30.f;
  const float d = anim.duration();
  const int n = d > 0.f ? static_cast<int>(std::ceil(double(d) * fps - 1e-4)) + 1 : 1;
  FILE* f = std::fopen(out_path.c_str(), "wb");
  if (!f) return 1;
  std::fwrite(&nj, 4, 1, f);
  std::fwrite(&n, 4, 1, f);
  for (int j = 0; j < nj; ++j) {
    const char* name = skeleton.joint_names()[j];
    int len = static_cast<int>(std::strlen(name));
    std::fwrite(&len, 4, 1, f);
    std::fwrite(name, 1, len, f);
  }
  for (int k = 0; k < n; ++k) {
    float t = std::min(k / fps, d);
    animation::SamplingJob s;
    s.animation = &anim;
    s.context = &ctx;
    s.ratio = d > 0.f ? t / d : 0.f;
    s.output = make_span(locals);
    if (!s.Run()) return 2;
    animation::LocalToModelJob l;
    l.skeleton = &skeleton;
    l.input = make_span(locals);
    l.output = make_span(models);
    if (!l.Run()) return 3;
    std::fwrite(&t, 4, 1, f);
    for (int j = 0; j < nj; ++j) {
      float m[16];
      for (int c = 0; c < 4; ++c) math::StorePtrU(models[j].cols[c], m + 4 * c);
      std::fwrite(m, 4, 16, f);
    }
  }
  std::fclose(f);
  std::printf("dumped %s: %d joints, %d frames, duration %f, %zu bytes in memory\n", clip.c_str(), nj, n, d,
              anim.size());
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 5 && std::strcmp(argv[1], "--dump") == 0) return Dump(argv[2], argv[3], argv[4]);
  if (argc < 2) {
    std::fprintf(stderr, "usage: ozz_bench DIR [batches] [iters]\n");
    return 1;
  }
  const std::string dir = argv[1];
  const int batches = argc > 2 ? std::atoi(argv[2]) : 30;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 20000;

  animation::Skeleton skeleton;
  if (!Load(dir + "/skeleton.ozz", &skeleton)) return 1;
  const int nj = skeleton.num_joints();
  const int nsoa = skeleton.num_soa_joints();

  const char* names[4] = {"Walk_Loop", "Idle_Loop", "Jog_Fwd_Loop", "Sprint_Loop"};
  Layer layers[4];
  for (int i = 0; i < 4; ++i) {
    if (!Load(dir + "/" + names[i] + ".ozz", &layers[i].anim)) return 1;
    if (layers[i].anim.num_tracks() != nj) {
      std::fprintf(stderr, "%s has %d tracks, skeleton %d joints\n", names[i], layers[i].anim.num_tracks(), nj);
      return 1;
    }
    layers[i].locals.resize(nsoa);
    layers[i].context.Resize(nj);
  }
  std::printf("ozz: %d joints (%d SoA), Walk_Loop %.3f s, %zu bytes in memory\n", nj, nsoa,
              layers[0].anim.duration(), layers[0].anim.size());
  for (int i = 0; i < 4; ++i) std::printf("MEMORY %s %zu\n", names[i], layers[i].anim.size());

  vector<math::SoaTransform> blended(nsoa);
  vector<math::Float4x4> models(nj);
  const float dt = 1.f / 60.f;

  auto sample = [&](Layer& l, float ratio) {
    animation::SamplingJob job;
    job.animation = &l.anim;
    job.context = &l.context;
    job.ratio = ratio;
    job.output = make_span(l.locals);
    if (!job.Run()) std::abort();
  };
  auto l2m = [&](span<const math::SoaTransform> in) {
    animation::LocalToModelJob job;
    job.skeleton = &skeleton;
    job.input = in;
    job.output = make_span(models);
    if (!job.Run()) std::abort();
    g_sink = math::GetX(models[nj - 1].cols[3]);
  };
  // Normalized-time blend, as animtune's BlendSampler (TimeSync::Normalized): all layers at one phase.
  auto blend = [&](int n, float w) {
    animation::BlendingJob::Layer bl[4];
    for (int i = 0; i < n; ++i) {
      bl[i].weight = w;
      bl[i].transform = make_span(layers[i].locals);
    }
    animation::BlendingJob job;
    job.layers = span<const animation::BlendingJob::Layer>(bl, n);
    job.rest_pose = skeleton.joint_rest_poses();
    job.output = make_span(blended);
    if (!job.Run()) std::abort();
  };

  const float walk_d = layers[0].anim.duration();
  float t = 0.f;
  Bench("sample Walk_Loop", batches, iters, [&] {
    t += dt;
    sample(layers[0], std::fmod(t, walk_d) / walk_d);
    g_sink = math::GetX(layers[0].locals[0].translation.x);
  });
  for (int i = 1; i < 4; ++i) {
    const float d = layers[i].anim.duration();
    float ti = 0.f;
    const std::string name = std::string("sample ") + names[i];
    Bench(name.c_str(), batches, iters, [&] {
      ti += dt;
      sample(layers[i], std::fmod(ti, d) / d);
      g_sink = math::GetX(layers[i].locals[0].translation.x);
    });
  }
  Bench("local to model", batches, iters, [&] { l2m(make_span(layers[0].locals)); });
  Bench("sample Walk_Loop + local to model", batches, iters, [&] {
    t += dt;
    sample(layers[0], std::fmod(t, walk_d) / walk_d);
    l2m(make_span(layers[0].locals));
  });
  // Cycle length: weighted mean of durations (as animtune's cycle_length).
  for (int n : {3, 4}) {
    // Layers 1..n-1 then 0: n=3 -> Walk, Idle, Jog; n=4 adds Sprint.
    float cycle = 0.f;
    for (int i = 0; i < n; ++i) cycle += layers[i].anim.duration() / n;
    float bt = 0.f;
    char name[96];
    std::snprintf(name, sizeof name, "%d clips sampled + blend", n);
    Bench(name, batches, iters / n, [&] {
      bt = std::fmod(bt + dt, cycle);
      const float phase = bt / cycle;
      for (int i = 0; i < n; ++i) sample(layers[i], phase);
      blend(n, 1.f / n);
      g_sink = math::GetX(blended[0].translation.x);
    });
    std::snprintf(name, sizeof name, "%d clips sampled + blend + local to model", n);
    Bench(name, batches, iters / n, [&] {
      bt = std::fmod(bt + dt, cycle);
      const float phase = bt / cycle;
      for (int i = 0; i < n; ++i) sample(layers[i], phase);
      blend(n, 1.f / n);
      l2m(make_span(blended));
    });
  }
  // Partial blending (ozz's partial_blend sample): Walk on the lower body, Jog on the upper body (the subtree of
  // DEF-spine.002, the chest), by per-joint weights; then the same with Sprint as an additive layer at 0.3.
  int chest = -1;
  for (int j = 0; j < nj; ++j) {
    if (std::strcmp(skeleton.joint_names()[j], "DEF-spine.002") == 0) chest = j;
  }
  if (chest < 0) {
    std::fprintf(stderr, "no joint DEF-spine.002\n");
    return 1;
  }
  vector<float> upper(nj, 0.f);
  animation::IterateJointsDF(skeleton, [&](int j, int) { upper[j] = 1.f; }, chest);
  vector<math::SimdFloat4> upper_w(nsoa), lower_w(nsoa);
  for (int s = 0; s < nsoa; ++s) {
    float u[4], l[4];
    for (int k = 0; k < 4; ++k) {
      const int j = s * 4 + k;
      u[k] = j < nj ? upper[j] : 0.f;
      l[k] = 1.f - u[k];
    }
    upper_w[s] = math::simd_float4::LoadPtrU(u);
    lower_w[s] = math::simd_float4::LoadPtrU(l);
  }
  for (int additive : {0, 1}) {
    const int n = 2 + additive;
    const int order[3] = {0, 2, 3};  // Walk, Jog, Sprint
    float cycle = 0.f;
    for (int i = 0; i < 2; ++i) cycle += layers[order[i]].anim.duration() / 2;
    float bt = 0.f;
    const char* name = additive ? "2 clips masked + additive + local to model"
                                : "2 clips masked blend + local to model";
    Bench(name, batches, iters / n, [&] {
      bt = std::fmod(bt + dt, cycle);
      const float phase = bt / cycle;
      for (int i = 0; i < n; ++i) sample(layers[order[i]], phase);
      animation::BlendingJob::Layer bl[2], add[1];
      bl[0].weight = 1.f;
      bl[0].transform = make_span(layers[0].locals);
      bl[0].joint_weights = make_span(lower_w);
      bl[1].weight = 1.f;
      bl[1].transform = make_span(layers[2].locals);
      bl[1].joint_weights = make_span(upper_w);
      add[0].weight = 0.3f;
      add[0].transform = make_span(layers[3].locals);
      animation::BlendingJob job;
      job.layers = span<const animation::BlendingJob::Layer>(bl, 2);
      if (additive) job.additive_layers = span<const animation::BlendingJob::Layer>(add, 1);
      job.rest_pose = skeleton.joint_rest_poses();
      job.output = make_span(blended);
      if (!job.Run()) std::abort();
      l2m(make_span(blended));
    });
  }
  IkRows(batches, iters);
  return 0;
}
