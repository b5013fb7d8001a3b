//! The blending job: a weighted sum of sampled poses, rotations aligned to the running sum's hemisphere, then
//! normalised; the rest pose fills in when the total weight is below a threshold (as ozz's BlendingJob).

use glam::{Quat, Vec3, Vec4};

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

    /// Blends; allocates nothing.
    pub fn run(&mut self) -> Result<(), JobError> {
        self.validate()?;
        let out = &mut *self.output;
        let mut total = 0.0f32;
        let n = self.rest.len().max(1);
        for (pose, &w) in self.poses.chunks(n).zip(self.weights) {
            if w > 0.0 {
                accumulate(out, pose, w, total == 0.0);
                total += w;
            }
        }
        if total < self.threshold {
            accumulate(out, self.rest, self.threshold - total, total == 0.0);
            total = self.threshold;
        }
        let inv = 1.0 / total;
        for (o, rest) in out.iter_mut().zip(self.rest) {
            o.translation *= inv;
            o.scale *= inv;
            let q = Vec4::from(o.rotation);
            let len2 = q.length_squared();
            o.rotation = if len2 > 1e-24 {
                Quat::from_vec4(q * len2.sqrt().recip())
            } else {
                rest.rotation
            };
        }
        Ok(())
    }
}

#[inline(always)]
fn accumulate(out: &mut [Transform], input: &[Transform], w: f32, first: bool) {
    if first {
        for (o, i) in out.iter_mut().zip(input) {
            o.translation = i.translation * w;
            o.rotation = Quat::from_vec4(Vec4::from(i.rotation) * w);
            o.scale = i.scale * w;
        }
        return;
    }
    for (o, i) in out.iter_mut().zip(input) {
        let acc = Vec4::from(o.rotation);
        let q = Vec4::from(i.rotation);
        let q = if acc.dot(q) < 0.0 { -q } else { q };
        o.rotation = Quat::from_vec4(acc + q * w);
        o.translation += i.translation * w;
        o.scale = Vec3::mul_add(i.scale, Vec3::splat(w), o.scale);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose(angle: f32, x: f32) -> Vec<Transform> {
        vec![Transform {
            translation: Vec3::new(x, 0.0, 0.0),
            rotation: Quat::from_rotation_y(angle),
            scale: Vec3::ONE,
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
                .abs_diff_eq(Vec3::new(1.0, 0.0, 0.0), 1e-6)
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
                .abs_diff_eq(Vec3::new(1.0, 0.0, 0.0), 1e-6)
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
        assert_eq!(out[0].translation, Vec3::ZERO);
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
