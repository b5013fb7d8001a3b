//! The aim IK job, in the shape and with the semantics of ozz-animation's `IKAimJob`
//! (`include/ozz/animation/runtime/ik_aim_job.h`): the local-space rotation to multiply into one joint so that
//! its `forward` axis (offset by `offset`, both in the joint's local space) points at a target, with its `up` axis
//! rolled towards a model-space `pole_vector`, then twisted by `twist_angle` about the aim; `weight` lerps it from
//! identity. As ozz, a target closer than the offset's reach cannot be aimed at (identity, not reached).
//!
//! One quirk of ozz is kept: below full weight ozz lerps the correction before fixing its sign, so the result may
//! take the long way round; ours does the same, so that the two agree (`tests/headless/ozz_ik.rs`).

use glam::{Mat4, Quat, Vec3, Vec3A, Vec4};

use super::JobError;
use super::ik_math::{
    all_finite, first_not_finite, from_axis_cos_angle, from_vectors, inverse, is_normalized_est,
    positive_w, rsqrt,
};

/// An aim IK job: one borrowed model matrix in, one correction out. Its vectors are SIMD vectors (16 bytes, as
/// ozz's `SimdFloat4` members): a job is filled and run at once, and a vector stored whole is read back whole,
/// where a 12-byte one written in parts and read in other parts would stall the load until the stores land.
#[derive(Debug)]
pub struct IkAimJob<'a> {
    /// The point to aim at, model space.
    pub target: Vec3A,
    /// The joint's aiming axis in its local space, normalised.
    pub forward: Vec3A,
    /// Where the aim starts from, in the joint's local space (the eyes' offset from the head).
    pub offset: Vec3A,
    /// The joint's up axis in its local space.
    pub up: Vec3A,
    /// The direction `up` should lean to, model space.
    pub pole_vector: Vec3A,
    /// A turn about the aim (radians).
    pub twist_angle: f32,
    /// How much of the correction to apply, in [0, 1].
    pub weight: f32,
    /// Model matrix of the joint.
    pub joint: &'a Mat4,
    /// Output: the rotation to multiply into the joint's local rotation (`local.rotation * correction`).
    pub correction: &'a mut Quat,
    /// Output: whether the target could be aimed at (farther than the offset reaches).
    pub reached: &'a mut bool,
}

impl<'a> IkAimJob<'a> {
    /// A job on one joint's model matrix with ozz's defaults: target at the origin, forward +x, no offset, up and
    /// pole +y, no twist, full weight.
    pub fn new(joint: &'a Mat4, correction: &'a mut Quat, reached: &'a mut bool) -> Self {
        IkAimJob {
            target: Vec3A::ZERO,
            forward: Vec3A::X,
            offset: Vec3A::ZERO,
            up: Vec3A::Y,
            pole_vector: Vec3A::Y,
            twist_angle: 0.0,
            weight: 1.0,
            joint,
            correction,
            reached,
        }
    }

    /// Checks the inputs: finite numbers and a normalised `forward` (ozz's condition).
    pub fn validate(&self) -> Result<(), JobError> {
        let finite = all_finite(
            &[
                self.target,
                self.forward,
                self.offset,
                self.up,
                self.pole_vector,
            ],
            &[self.twist_angle, self.weight],
            &[self.joint],
        );
        if !finite {
            let vectors = [
                ("target", self.target),
                ("forward", self.forward),
                ("offset", self.offset),
                ("up", self.up),
                ("pole_vector", self.pole_vector),
            ];
            let scalars = [("twist_angle", self.twist_angle), ("weight", self.weight)];
            let name = first_not_finite(&vectors, &scalars, &[("joint", self.joint)]);
            return Err(JobError::NotFinite(name.unwrap_or("input")));
        }
        if !is_normalized_est(self.forward) {
            return Err(JobError::NotNormalized("forward"));
        }
        Ok(())
    }

    /// Computes the correction; allocates nothing.
    pub fn run(&mut self) -> Result<(), JobError> {
        self.validate()?;
        *self.correction = Quat::IDENTITY;
        *self.reached = false;
        let Some(inv_joint) = inverse(self.joint) else {
            return Ok(());
        };
        let to_target = inv_joint.point(self.target);
        let to_target_len2 = to_target.length_squared();
        let Some(offsetted_forward) = self.offsetted_forward(to_target_len2) else {
            return Ok(());
        };
        *self.reached = true;
        if to_target_len2 == 0.0 {
            return Ok(());
        }
        let to_target_rot = from_vectors(offsetted_forward, to_target);
        let corrected_up = to_target_rot.mul_vec3a(self.up);
        let pole = inv_joint.vector(self.pole_vector);
        let ref_normal = pole.cross(to_target);
        let joint_normal = corrected_up.cross(to_target);
        let ref_len2 = ref_normal.length_squared();
        let joint_len2 = joint_normal.length_squared();
        // The aim's unit axis by the refined estimate (its length is what it may be off by, 5e-7); the cosine
        // between the planes by an exact division, since its error turns into angle where the planes nearly agree.
        let axis = to_target * rsqrt(Vec4::splat(to_target_len2)).x;
        let rotate_plane = if joint_len2 != 0.0 && ref_len2 != 0.0 {
            let cos =
                (joint_normal.dot(ref_normal) / (joint_len2 * ref_len2).sqrt()).clamp(-1.0, 1.0);
            let flipped = if ref_normal.dot(corrected_up) < 0.0 {
                -axis
            } else {
                axis
            };
            from_axis_cos_angle(flipped, cos)
        } else {
            Quat::IDENTITY
        };
        let twisted = if self.twist_angle != 0.0 {
            Quat::from_axis_angle(Vec3::from(axis), self.twist_angle) * rotate_plane * to_target_rot
        } else {
            rotate_plane * to_target_rot
        };
        *self.correction = if self.weight < 1.0 {
            let t = self.weight.max(0.0);
            let v = Vec4::W + (Vec4::from(twisted) - Vec4::W) * t;
            Quat::from_vec4(v.normalize())
        } else {
            positive_w(twisted)
        };
        Ok(())
    }

    /// The forward direction that, starting from `offset`, meets the sphere through the target around the joint
    /// (of squared radius `r2`, joint space); None when the offset lies outside that sphere.
    fn offsetted_forward(&self, r2: f32) -> Option<Vec3A> {
        let (forward, offset) = (self.forward, self.offset);
        let ao = forward.dot(offset);
        let ac2 = offset.length_squared() - ao * ao;
        if ac2 > r2 {
            return None;
        }
        let ai = (r2 - ac2).sqrt();
        Some(offset + forward * (ai - ao))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aim(joint: Mat4, target: Vec3, offset: Vec3, weight: f32) -> (Quat, bool) {
        let (mut q, mut reached) = (Quat::IDENTITY, false);
        let mut job = IkAimJob::new(&joint, &mut q, &mut reached);
        job.target = target.into();
        job.forward = Vec3::Z.into();
        job.up = Vec3::Y.into();
        job.offset = offset.into();
        job.pole_vector = Vec3::Y.into();
        job.weight = weight;
        job.run().unwrap();
        (q, reached)
    }

    #[test]
    fn the_forward_axis_points_at_the_target_with_up_towards_the_pole() {
        let head =
            Mat4::from_rotation_translation(Quat::from_rotation_y(0.4), Vec3::new(0.0, 1.6, 0.0));
        let target = Vec3::new(1.0, 2.0, 2.0);
        let (q, reached) = aim(head, target, Vec3::ZERO, 1.0);
        assert!(reached);
        let aimed = head * Mat4::from_quat(q);
        let forward = aimed.transform_vector3(Vec3::Z);
        let to_target = (target - aimed.w_axis.truncate()).normalize();
        assert!(
            (forward - to_target).length() < 1e-5,
            "{forward} {to_target}"
        );
        // Up stays in the plane of the aim and the pole (+y), on the pole's side.
        let up = aimed.transform_vector3(Vec3::Y);
        assert!(up.dot(forward.cross(Vec3::Y)).abs() < 1e-5);
        assert!(up.y > 0.0);
    }

    #[test]
    fn an_offset_aim_passes_through_the_target() {
        let joint = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
        let offset = Vec3::new(0.1, 0.05, 0.0);
        let target = Vec3::new(0.5, 1.5, 1.0);
        let (q, reached) = aim(joint, target, offset, 1.0);
        assert!(reached);
        let aimed = joint * Mat4::from_quat(q);
        let from = aimed.transform_point3(offset);
        let dir = aimed.transform_vector3(Vec3::Z);
        let to = target - from;
        assert!(to.cross(dir).length() < 1e-5 * to.length(), "{to} {dir}");
        assert!(to.dot(dir) > 0.0);
    }

    #[test]
    fn a_target_inside_the_offset_cannot_be_aimed_at() {
        let joint = Mat4::IDENTITY;
        let (q, reached) = aim(
            joint,
            Vec3::new(0.0, 0.0, 0.05),
            Vec3::new(0.2, 0.0, 0.0),
            1.0,
        );
        assert!(!reached);
        assert_eq!(q, Quat::IDENTITY);
        assert!(
            aim(joint, Vec3::Z, Vec3::ZERO, 0.0)
                .0
                .abs_diff_eq(Quat::IDENTITY, 1e-7)
        );
    }

    /// Every input that is not finite is named, whichever its kind (the one-pass check, then the culprit).
    #[test]
    fn validate_names_the_input_that_is_not_finite() {
        let joint = Mat4::IDENTITY;
        let (mut q, mut reached) = (Quat::IDENTITY, false);
        let mut job = IkAimJob::new(&joint, &mut q, &mut reached);
        assert_eq!(job.validate(), Ok(()));
        job.offset = Vec3::new(0.0, f32::NAN, 0.0).into();
        assert_eq!(job.validate(), Err(JobError::NotFinite("offset")));
        job.offset = Vec3::ZERO.into();
        job.weight = f32::INFINITY;
        assert_eq!(job.validate(), Err(JobError::NotFinite("weight")));
        job.weight = 1.0;
        job.pole_vector = Vec3::NEG_INFINITY.into();
        assert_eq!(job.validate(), Err(JobError::NotFinite("pole_vector")));
        job.pole_vector = Vec3::Y.into();
        // Huge but finite values are accepted (their products with zero are still zero).
        job.target = Vec3::splat(f32::MAX).into();
        assert_eq!(job.validate(), Ok(()));
        let bad = Mat4::from_cols_array(&[
            1.0,
            0.0,
            0.0,
            0.0,
            0.0,
            f32::NAN,
            0.0,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            0.0,
            0.0,
            1.0,
        ]);
        let (mut q2, mut reached2) = (Quat::IDENTITY, false);
        let job = IkAimJob::new(&bad, &mut q2, &mut reached2);
        assert_eq!(job.validate(), Err(JobError::NotFinite("joint")));
    }
}
