//! The blending job: a weighted sum of sampled poses, rotations aligned to the running sum's hemisphere, then
//! normalised; the rest pose fills in when the total weight is below a threshold (as ozz's BlendingJob).

use glam::{Mat4, Quat, Vec3A, Vec4};

use super::{JobError, check_len};
use crate::core::Transform;

/// Blends poses into one local pose.
pub struct BlendingJob<'a> {
    /// The poses to blend, back to back: pose `i` is `poses[i*joints..(i+1)*joints]`.
    pub poses: &'a [Transform],
    /// One weight per pose (≤ 0: ignored).
    pub weights: &'a [f32],
    /// The rest pose, blended in with weight `threshold − total` when the total weight is below `threshold`.
    pub rest: &'a [Transform],
    /// Smallest total weight before the rest pose fills in (> 0).
    pub threshold: f32,
    /// The blended pose.
    pub output: &'a mut [Transform],
}

impl BlendingJob<'_> {
    /// Checks the inputs.
    pub fn validate(&self) -> Result<(), JobError> {
        let n = self.rest.len();
        check_len("output", self.output.len(), n)?;
        check_len("blend poses", self.poses.len(), self.weights.len() * n)?;
        if self.weights.iter().any(|w| !w.is_finite()) {
            return Err(JobError::NotFinite("blend weight"));
        }
        if !(self.threshold.is_finite() && self.threshold > 0.0) {
            return Err(JobError::NotFinite("threshold"));
        }
        Ok(())
    }

    /// Blends; allocates nothing. Joint by joint, every pose's contribution is summed in registers and the result
    /// normalised and stored once.
    pub fn run(&mut self) -> Result<(), JobError> {
        self.validate()?;
        let n = self.rest.len();
        if n == 0 {
            return Ok(());
        }
        let total: f32 = self.weights.iter().filter(|w| **w > 0.0).sum();
        let rest_weight = if total < self.threshold {
            self.threshold - total
        } else {
            0.0
        };
        let inv = 1.0 / (total + rest_weight);
        let (poses, weights) = (self.poses, self.weights);
        // Four joints at a time, rotations in structure-of-arrays form: the hemisphere test, the sums and the
        // normalisation are vertical SIMD operations on four joints, with no horizontal dot products.
        for (c, (out, rest)) in self
            .output
            .chunks_mut(4)
            .zip(self.rest.chunks(4))
            .enumerate()
        {
            let first = c * 4;
            let lanes = out.len();
            let mut sum = Sums::default();
            let mut started = false;
            for (i, &w) in weights.iter().enumerate() {
                if w > 0.0 {
                    sum.add(&poses[i * n + first..i * n + first + lanes], w, started);
                    started = true;
                }
            }
            if rest_weight > 0.0 {
                sum.add(rest, rest_weight, started);
            }
            let [x, y, z, w] = sum.rotation;
            let len2 = x * x + y * y + z * z + w * w;
            let k = inverse_sqrt(len2);
            let usable = len2.cmpgt(Vec4::splat(1e-24)).bitmask();
            let q = Mat4::from_cols(x * k, y * k, z * k, w * k).transpose();
            let q = [q.x_axis, q.y_axis, q.z_axis, q.w_axis];
            for (l, (o, r)) in out.iter_mut().zip(rest).enumerate() {
                *o = Transform {
                    translation: sum.translation[l] * inv,
                    rotation: if usable & (1 << l) != 0 {
                        Quat::from_vec4(q[l])
                    } else {
                        r.rotation
                    },
                    scale: sum.scale[l] * inv,
                };
            }
        }
        Ok(())
    }
}

/// 1/√x per lane: the processor's estimate refined by one Newton–Raphson step (relative error below 3·10⁻⁷), where
/// the SIMD unit has one; a square root and a division elsewhere. The estimate's latency is a fraction of theirs,
/// and it is on every blended joint's path.
#[inline(always)]
fn inverse_sqrt(x: Vec4) -> Vec4 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    {
        // SAFETY: the intrinsic needs SSE, which this build enables (the cfg above).
        let e = Vec4::from(unsafe { std::arch::x86_64::_mm_rsqrt_ps(x.into()) });
        e * (Vec4::splat(1.5) - Vec4::splat(0.5) * x * e * e)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    {
        Vec4::ONE / x.sqrt()
    }
}

/// The weighted sums of up to four joints: rotations as x, y, z, w lanes.
#[derive(Default)]
struct Sums {
    rotation: [Vec4; 4],
    translation: [Vec3A; 4],
    scale: [Vec3A; 4],
}

impl Sums {
    /// Adds the transforms of up to four joints with weight `w`, each rotation on its sum's hemisphere (the first
    /// pose as it is).
    #[inline(always)]
    fn add(&mut self, joints: &[Transform], w: f32, started: bool) {
        let lane = |l: usize| joints[l.min(joints.len() - 1)].rotation.into();
        let q = Mat4::from_cols(lane(0), lane(1), lane(2), lane(3)).transpose();
        let q = [q.x_axis, q.y_axis, q.z_axis, q.w_axis];
        let w4 = Vec4::splat(w);
        let weight = if started {
            let [ax, ay, az, aw] = self.rotation;
            w4.copysign(ax * q[0] + ay * q[1] + az * q[2] + aw * q[3])
        } else {
            w4
        };
        for (a, c) in self.rotation.iter_mut().zip(q) {
            *a += c * weight;
        }
        for (l, t) in joints.iter().enumerate() {
            self.translation[l] += t.translation * w;
            self.scale[l] += t.scale * w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn pose(angle: f32, x: f32) -> Vec<Transform> {
        vec![Transform {
            translation: Vec3::new(x, 0.0, 0.0).into(),
            rotation: Quat::from_rotation_y(angle),
            scale: Vec3::ONE.into(),
        }]
    }

    #[test]
    fn weights_sum_and_hemispheres_align() {
        let a = pose(0.0, 0.0);
        // The same rotation as 0.8 rad, stored on the other hemisphere.
        let mut b = pose(0.8, 2.0);
        b[0].rotation = -b[0].rotation;
        let rest = pose(0.0, 9.0);
        let mut out = vec![Transform::IDENTITY];
        let poses = [a[0], b[0]];
        BlendingJob {
            poses: &poses,
            weights: &[0.5, 0.5],
            rest: &rest,
            threshold: 0.1,
            output: &mut out,
        }
        .run()
        .unwrap();
        assert!(
            out[0]
                .translation
                .abs_diff_eq(Vec3A::new(1.0, 0.0, 0.0), 1e-6)
        );
        assert!(out[0].rotation.dot(Quat::from_rotation_y(0.4)).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn the_rest_pose_fills_in_below_the_threshold() {
        let a = pose(0.0, 4.0);
        let rest = pose(0.0, 0.0);
        let mut out = vec![Transform::IDENTITY];
        BlendingJob {
            poses: &a,
            weights: &[0.25],
            rest: &rest,
            threshold: 1.0,
            output: &mut out,
        }
        .run()
        .unwrap();
        assert!(
            out[0]
                .translation
                .abs_diff_eq(Vec3A::new(1.0, 0.0, 0.0), 1e-6)
        );
        BlendingJob {
            poses: &[],
            weights: &[],
            rest: &rest,
            threshold: 0.1,
            output: &mut out,
        }
        .run()
        .unwrap();
        assert_eq!(out[0].translation, Vec3A::ZERO);
        let job = BlendingJob {
            poses: &a,
            weights: &[1.0, 1.0],
            rest: &rest,
            threshold: 0.1,
            output: &mut out,
        };
        assert!(matches!(job.validate(), Err(JobError::Length { .. })));
    }
}
