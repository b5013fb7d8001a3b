//! The two-bone IK job, in the shape and with the semantics of ozz-animation's `IKTwoBoneJob`
//! (`include/ozz/animation/runtime/ik_two_bone_job.h`): from the model matrices of a start, middle and end joint
//! (a hip, knee and ankle; a shoulder, elbow and wrist) it computes the local-space rotations to multiply into the
//! start and middle joints so that the end joint reaches a target.
//!
//! As ozz: the middle joint's angle comes from the law of cosines about `mid_axis` (in the middle joint's local
//! space; a positive turn opens the chain); the start joint then turns the chain's end onto the target and rolls
//! the chain's plane towards `pole_vector`, then by `twist_angle` about the start-to-target axis. `soften` makes
//! the chain fall behind a target beyond that share of its length, along 1 − 3⁴/(α + 3)⁴, instead of snapping
//! straight; `weight` lerps the corrections from identity. The results agree with ozz's own job within 1e-5
//! (`tests/headless/ozz_ik.rs`, which builds ozz's source from the anchor and runs both on the same inputs).

use glam::{Affine3A, Mat4, Quat, Vec3, Vec3A, Vec4};

use super::JobError;
use super::ik_math::{
    JointInverse, all_finite, first_not_finite, from_vectors, inverse, is_normalized_est,
    plane_roll, positive_w, rsqrt, weighted,
};

/// A two-bone IK job: borrowed model matrices in, two corrections out.
#[derive(Debug)]
pub struct IkTwoBoneJob<'a> {
    /// Where the end joint should go, model space.
    pub target: Vec3A,
    /// The middle joint's hinge axis in its local space, normalised: a positive turn about it opens the chain.
    pub mid_axis: Vec3A,
    /// The direction the middle joint should point to, model space.
    pub pole_vector: Vec3A,
    /// A turn of the chain about the start-to-target axis (radians).
    pub twist_angle: f32,
    /// The share of the chain's length from which it falls behind a far target, in [0, 1] (1: never).
    pub soften: f32,
    /// How much of the correction to apply, in [0, 1].
    pub weight: f32,
    /// Model matrix of the start joint.
    pub start_joint: &'a Mat4,
    /// Model matrix of the middle joint (a descendant of the start joint).
    pub mid_joint: &'a Mat4,
    /// Model matrix of the end joint (a descendant of the middle joint).
    pub end_joint: &'a Mat4,
    /// Output: the rotation to multiply into the start joint's local rotation (`local.rotation * correction`).
    pub start_correction: &'a mut Quat,
    /// Output: the rotation to multiply into the middle joint's local rotation.
    pub mid_correction: &'a mut Quat,
    /// Output: whether the target was reached (within the soft reach, at full weight).
    pub reached: &'a mut bool,
}

/// What the setup measures once: the start joint's inverse and the bones in start and middle joint spaces.
struct Setup {
    inv_start: JointInverse,
    start_mid_ms: Vec3A,
    mid_end_ms: Vec3A,
    start_mid_ss: Vec3A,
    start_mid_ss_len2: f32,
    mid_end_ss_len2: f32,
    start_end_ss_len2: f32,
}

impl<'a> IkTwoBoneJob<'a> {
    /// A job on three joints' model matrices with ozz's defaults: target at the origin, hinge about z, pole +y, no
    /// twist, no softening, full weight.
    pub fn new(
        start_joint: &'a Mat4,
        mid_joint: &'a Mat4,
        end_joint: &'a Mat4,
        start_correction: &'a mut Quat,
        mid_correction: &'a mut Quat,
        reached: &'a mut bool,
    ) -> Self {
        IkTwoBoneJob {
            target: Vec3A::ZERO,
            mid_axis: Vec3A::Z,
            pole_vector: Vec3A::Y,
            twist_angle: 0.0,
            soften: 1.0,
            weight: 1.0,
            start_joint,
            mid_joint,
            end_joint,
            start_correction,
            mid_correction,
            reached,
        }
    }

    /// Checks the inputs: finite numbers and a normalised `mid_axis` (ozz's condition).
    pub fn validate(&self) -> Result<(), JobError> {
        let finite = all_finite(
            &[self.target, self.mid_axis, self.pole_vector],
            &[self.twist_angle, self.soften, self.weight],
            &[self.start_joint, self.mid_joint, self.end_joint],
        );
        if !finite {
            let vectors = [
                ("target", self.target),
                ("mid_axis", self.mid_axis),
                ("pole_vector", self.pole_vector),
            ];
            let scalars = [
                ("twist_angle", self.twist_angle),
                ("soften", self.soften),
                ("weight", self.weight),
            ];
            let matrices = [
                ("start_joint", self.start_joint),
                ("mid_joint", self.mid_joint),
                ("end_joint", self.end_joint),
            ];
            let name = first_not_finite(&vectors, &scalars, &matrices);
            return Err(JobError::NotFinite(name.unwrap_or("input")));
        }
        if !is_normalized_est(self.mid_axis) {
            return Err(JobError::NotNormalized("mid_axis"));
        }
        Ok(())
    }

    /// Computes the corrections; allocates nothing.
    pub fn run(&mut self) -> Result<(), JobError> {
        self.validate()?;
        *self.reached = false;
        *self.start_correction = Quat::IDENTITY;
        *self.mid_correction = Quat::IDENTITY;
        if self.weight <= 0.0 {
            return Ok(());
        }
        let (Some(inv_start), Some(inv_mid)) = (inverse(self.start_joint), inverse(self.mid_joint))
        else {
            return Ok(());
        };
        let setup = self.setup(inv_start, inv_mid);
        let (start_target_ss, start_target_ss_len2, reached, bones) = self.soften_target(&setup);
        *self.reached = reached && self.weight >= 1.0;
        let mid_rot_ms = self.mid_rotation(&setup, start_target_ss_len2, bones);
        let start_rot_ss =
            self.start_rotation(&setup, mid_rot_ms, start_target_ss, start_target_ss_len2);
        let (start, mid) = (positive_w(start_rot_ss), positive_w(mid_rot_ms));
        if self.weight < 1.0 {
            *self.start_correction = weighted(start, self.weight);
            *self.mid_correction = weighted(mid, self.weight);
        } else {
            *self.start_correction = start;
            *self.mid_correction = mid;
        }
        Ok(())
    }

    fn setup(&self, inv_start: JointInverse, inv_mid: JointInverse) -> Setup {
        let start = Vec3A::from_vec4(self.start_joint.w_axis);
        let mid = Vec3A::from_vec4(self.mid_joint.w_axis);
        let end = Vec3A::from_vec4(self.end_joint.w_axis);
        let start_ms = inv_mid.point(start);
        let end_ms = inv_mid.point(end);
        let mid_ss = inv_start.point(mid);
        let end_ss = inv_start.point(end);
        Setup {
            inv_start,
            start_mid_ms: -start_ms,
            mid_end_ms: end_ms,
            start_mid_ss: mid_ss,
            start_mid_ss_len2: mid_ss.length_squared(),
            mid_end_ss_len2: (end_ss - mid_ss).length_squared(),
            start_end_ss_len2: end_ss.length_squared(),
        }
    }

    /// The target in start joint space, pulled back when softening applies, its squared length, whether it lies
    /// within reach (closer than the soft reach, farther than the bones' difference), and the two bones' lengths.
    fn soften_target(&self, s: &Setup) -> (Vec3A, f32, bool, [f32; 2]) {
        let original = s.inv_start.point(self.target);
        let original_len2 = original.length_squared();
        // The three lengths in one SIMD square root, as ozz takes them.
        let lengths = Vec4::new(s.start_mid_ss_len2, s.mid_end_ss_len2, original_len2, 0.0).sqrt();
        let (start_mid_len, mid_end_len, original_len) = (lengths.x, lengths.y, lengths.z);
        let bone_len_diff_abs = (start_mid_len - mid_end_len).abs();
        let chain = start_mid_len + mid_end_len;
        let da = chain * self.soften.clamp(0.0, 1.0);
        let ds = chain - da;
        let beyond_soft = original_len > da;
        let beyond_diff = original_len > bone_len_diff_abs;
        let (target, len2) = if beyond_soft && original_len > 0.0 && ds > 0.0 {
            let alpha = (original_len - da) / ds;
            let op = alpha + 3.0;
            let op2 = op * op;
            let ratio = 81.0 / (op2 * op2);
            let len = da + ds - ds * ratio;
            (original * (len / original_len), len * len)
        } else {
            (original, original_len2)
        };
        (
            target,
            len2,
            !beyond_soft && beyond_diff,
            [start_mid_len, mid_end_len],
        )
    }

    /// The middle joint's turn about its hinge from its current angle to the law-of-cosines angle. As ozz, the
    /// angles are C = acos(corrected cosine) and I = ±acos(initial cosine) (negative where the chain bends against
    /// the hinge's opening side), and the turn is C − I; its half-angle sine and cosine come straight from the two
    /// cosines by the half-angle and difference formulas (the same rotation, with no acos, sin or cos call).
    fn mid_rotation(&self, s: &Setup, start_target_ss_len2: f32, bones: [f32; 2]) -> Quat {
        let sum = s.start_mid_ss_len2 + s.mid_end_ss_len2;
        let half_rlen = 0.5 / (bones[0] * bones[1]);
        let corrected_cos = ((sum - start_target_ss_len2) * half_rlen).clamp(-1.0, 1.0);
        let initial_cos = ((sum - s.start_end_ss_len2) * half_rlen).clamp(-1.0, 1.0);
        let bent_side_ref = s.start_mid_ms.cross(self.mid_axis);
        let backwards = bent_side_ref.dot(s.mid_end_ms) < 0.0;
        // cos(C/2), sin(C/2), cos(I/2), |sin(I/2)|: C and |I| lie in [0, π], so every half-angle term is ≥ 0.
        let half = (Vec4::new(
            1.0 + corrected_cos,
            1.0 - corrected_cos,
            1.0 + initial_cos,
            1.0 - initial_cos,
        ) * 0.5)
            .max(Vec4::ZERO)
            .sqrt();
        let (cc, sc, ci) = (half.x, half.y, half.z);
        let si = if backwards { -half.w } else { half.w };
        // sin((C − I)/2) and cos((C − I)/2).
        let sin_half = sc * ci - cc * si;
        let cos_half = cc * ci + sc * si;
        Quat::from_vec4(Vec4::from((self.mid_axis * sin_half, cos_half)))
    }

    /// The start joint's turn: the chain's end onto the target, then its plane rolled to the pole, then twisted.
    fn start_rotation(
        &self,
        s: &Setup,
        mid_rot_ms: Quat,
        target_ss: Vec3A,
        target_len2: f32,
    ) -> Quat {
        let pole_ss = s.inv_start.vector(self.pole_vector);
        let mid = Affine3A::from_mat4(*self.mid_joint);
        let mid_end_ss_final = s
            .inv_start
            .vector(mid.transform_vector3a(mid_rot_ms.mul_vec3a(s.mid_end_ms)));
        let start_end_ss_final = s.start_mid_ss + mid_end_ss_final;
        let end_to_target = from_vectors(start_end_ss_final, target_ss);
        if target_len2 <= 0.0 {
            return end_to_target;
        }
        let ref_normal = target_ss.cross(pole_ss);
        let ref_len2 = ref_normal.length_squared();
        let mid_axis_ss = s.inv_start.vector(mid.transform_vector3a(self.mid_axis));
        let joint_normal = end_to_target.mul_vec3a(mid_axis_ss);
        let joint_len2 = joint_normal.length_squared();
        if ref_len2 <= 0.0 || joint_len2 <= 0.0 {
            // The pole lies on the start-to-target line (ozz leaves that to the caller; its result is NaN).
            return end_to_target;
        }
        let axis = target_ss * rsqrt(Vec4::splat(target_len2)).x;
        let rotate_plane = plane_roll(
            joint_normal,
            ref_normal,
            axis,
            joint_normal.dot(pole_ss) < 0.0,
        );
        if self.twist_angle != 0.0 {
            Quat::from_axis_angle(Vec3::from(axis), self.twist_angle) * rotate_plane * end_to_target
        } else {
            rotate_plane * end_to_target
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leg along -y from the origin: hip at 1 m, knee at 0.5 m bent slightly forward (+z), ankle at 0; hinge
    /// about x. Its joints' model matrices.
    fn leg() -> [Mat4; 3] {
        let hip = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
        let knee = Mat4::from_translation(Vec3::new(0.0, 0.5, 0.05));
        let ankle = Mat4::from_translation(Vec3::new(0.0, 0.0, 0.0));
        [hip, knee, ankle]
    }

    /// Applies the corrections as a caller does (local rotation × correction) and returns the ankle's position.
    fn solve(target: Vec3, soften: f32, weight: f32) -> (Vec3, bool) {
        let [hip, knee, ankle] = leg();
        let (mut start, mut mid, mut reached) = (Quat::IDENTITY, Quat::IDENTITY, false);
        let mut job = IkTwoBoneJob::new(&hip, &knee, &ankle, &mut start, &mut mid, &mut reached);
        job.target = target.into();
        job.mid_axis = -Vec3A::X;
        job.pole_vector = Vec3::Z.into();
        job.soften = soften;
        job.weight = weight;
        job.run().unwrap();
        // Local transforms: the knee and ankle's offsets from their parents (identity rotations).
        let knee_local = Vec3::new(0.0, -0.5, 0.05);
        let ankle_local = Vec3::new(0.0, -0.5, -0.05);
        let hip_m = hip * Mat4::from_quat(start);
        let knee_m = hip_m * Mat4::from_translation(knee_local) * Mat4::from_quat(mid);
        (knee_m.transform_point3(ankle_local), reached)
    }

    #[test]
    fn a_target_within_reach_is_reached() {
        for target in [
            Vec3::new(0.0, 0.2, 0.1),
            Vec3::new(0.3, 0.3, -0.2),
            Vec3::new(-0.1, 0.1, 0.3),
        ] {
            let (ankle, reached) = solve(target, 1.0, 1.0);
            assert!(reached, "{target}");
            assert!((ankle - target).length() < 1e-5, "{target}: {ankle}");
        }
    }

    #[test]
    fn a_target_out_of_reach_stretches_the_chain_towards_it() {
        let target = Vec3::new(0.0, -1.0, 0.5);
        let (ankle, reached) = solve(target, 1.0, 1.0);
        assert!(!reached);
        let hip = Vec3::Y;
        let chain = 2.0 * (0.25f32 + 0.0025).sqrt();
        assert!(((ankle - hip).length() - chain).abs() < 1e-4);
        assert!((ankle - hip).normalize().dot((target - hip).normalize()) > 0.9999);
    }

    #[test]
    fn softening_holds_the_end_short_of_a_target_at_full_reach() {
        let chain = 2.0 * (0.25f32 + 0.0025).sqrt();
        let target = Vec3::new(0.0, 1.0 - chain, 0.0);
        let (ankle, reached) = solve(target, 0.9, 1.0);
        assert!(!reached);
        let reach = (ankle - Vec3::Y).length();
        // 1 − 3⁴/(α + 3)⁴ at α = 1 (the target at the end of the soft zone): 175/256 of the zone.
        let expected = 0.9 * chain + 0.1 * chain * (1.0 - 81.0 / 256.0);
        assert!(
            (reach - expected).abs() < 1e-4,
            "{reach} against {expected}"
        );
    }

    #[test]
    fn weight_zero_leaves_the_chain_and_half_weight_goes_part_way() {
        let target = Vec3::new(0.3, 0.3, -0.2);
        let (ankle, reached) = solve(target, 1.0, 0.0);
        assert!(!reached);
        assert!(ankle.length() < 1e-6);
        let (half, reached) = solve(target, 1.0, 0.5);
        assert!(!reached);
        assert!(half.length() > 0.05 && (half - target).length() > 0.05);
    }

    #[test]
    fn validate_refuses_an_unnormalised_hinge_and_nan() {
        let [hip, knee, ankle] = leg();
        let (mut a, mut b, mut r) = (Quat::IDENTITY, Quat::IDENTITY, false);
        let mut job = IkTwoBoneJob::new(&hip, &knee, &ankle, &mut a, &mut b, &mut r);
        job.mid_axis = Vec3::new(0.0, 0.0, 2.0).into();
        assert_eq!(job.run(), Err(JobError::NotNormalized("mid_axis")));
        job.mid_axis = Vec3::Z.into();
        job.target = Vec3::NAN.into();
        assert_eq!(job.validate(), Err(JobError::NotFinite("target")));
    }
}
