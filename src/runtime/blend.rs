//! The blending job, in the shape of ozz's `BlendingJob`: a weighted sum of sampled poses, rotations aligned to
//! the running sum's hemisphere, then normalised; the rest pose fills in where the total weight is below a
//! threshold. A pose may carry per-joint weights (a mask: an upper-body layer), and additive layers are applied
//! after the normalised blend.

use glam::{Mat4, Quat, Vec3A, Vec4};

use super::JobError;
use super::check::check_len;
use crate::core::Transform;

/// A pose added on top of the normalised blend (ozz's additive layer), usually a difference from a reference pose
/// ([`additive_delta`]). With weight `w` (scaled joint by joint by the mask): the rotation is turned by the
/// delta's rotation lerped from identity by `w` (`out = out · normalize(lerp(1, δ, w))`), the translation moves by
/// `w·δt` and the scale is multiplied by `1 − w + w·δs`. A negative weight takes the delta away again.
#[derive(Clone, Copy, Debug)]
pub struct AdditiveLayer<'a> {
    /// The delta pose, one transform per joint.
    pub pose: &'a [Transform],
    /// The layer's weight (0: no effect).
    pub weight: f32,
    /// Per-joint weights multiplying `weight`, or None for every joint at `weight`.
    pub mask: Option<&'a [f32]>,
}

impl AdditiveLayer<'_> {
    /// Applies the layer to `output` alone (what [`BlendingJob`] does after its blend); allocates nothing.
    pub fn apply(&self, output: &mut [Transform]) -> Result<(), JobError> {
        check_len("additive pose", self.pose.len(), output.len())?;
        if let Some(mask) = self.mask {
            check_len("additive mask", mask.len(), output.len())?;
        }
        if !self.weight.is_finite() {
            return Err(JobError::NotFinite("additive weight"));
        }
        add_layer(self, output);
        Ok(())
    }
}

/// The delta of `pose` from `reference`, joint by joint, that an [`AdditiveLayer`] of weight 1 applies to
/// `reference` to give back `pose` (ozz's additive animation builder: `ref⁻¹·q`, `t − ref.t`, `s / ref.s`).
pub fn additive_delta(pose: &Transform, reference: &Transform) -> Transform {
    let safe = |v: Vec3A| Vec3A::select(v.cmpeq(Vec3A::ZERO), Vec3A::ONE, v);
    Transform {
        translation: pose.translation - reference.translation,
        rotation: (reference.rotation.conjugate() * pose.rotation).normalize(),
        scale: pose.scale / safe(reference.scale),
    }
}

/// Blends poses into one local pose.
pub struct BlendingJob<'a> {
    /// The poses to blend, back to back: pose `i` is `poses[i*joints..(i+1)*joints]`.
    pub poses: &'a [Transform],
    /// One weight per pose (≤ 0: ignored).
    pub weights: &'a [f32],
    /// Per-joint weights (a mask, each in [0, 1]) of each pose, multiplying its weight joint by joint (ozz's
    /// `joint_weights`): empty when no pose has one, else one entry per pose (None: every joint at the weight).
    pub masks: &'a [Option<&'a [f32]>],
    /// Applied in order after the normalised blend.
    pub additive: &'a [AdditiveLayer<'a>],
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
        if !self.masks.is_empty() {
            check_len("blend masks", self.masks.len(), self.weights.len())?;
        }
        for mask in self.masks.iter().flatten() {
            check_len("blend mask", mask.len(), n)?;
            if mask.iter().any(|w| !w.is_finite()) {
                return Err(JobError::NotFinite("blend mask weight"));
            }
        }
        for layer in self.additive {
            check_len("additive pose", layer.pose.len(), n)?;
            if let Some(mask) = layer.mask {
                check_len("additive mask", mask.len(), n)?;
                if mask.iter().any(|w| !w.is_finite()) {
                    return Err(JobError::NotFinite("additive mask weight"));
                }
            }
            if !layer.weight.is_finite() {
                return Err(JobError::NotFinite("additive weight"));
            }
        }
        Ok(())
    }

    /// Blends; allocates nothing. Joint by joint, every pose's contribution is summed in registers and the result
    /// normalised and stored once; then the additive layers.
    pub fn run(&mut self) -> Result<(), JobError> {
        self.validate()?;
        let n = self.rest.len();
        if n == 0 {
            return Ok(());
        }
        if self.masks.iter().any(Option::is_some) {
            self.blend_masked();
        } else {
            self.blend();
        }
        for layer in self.additive {
            add_layer(layer, self.output);
        }
        Ok(())
    }

    /// The blend when no pose has a mask: one total weight for every joint.
    fn blend(&mut self) {
        let n = self.rest.len();
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
            sum.store(out, rest, [inv; 4]);
        }
    }

    /// The blend with per-joint weights: each joint has its own total, and the rest pose fills in joint by joint.
    fn blend_masked(&mut self) {
        let n = self.rest.len();
        let (poses, weights, masks) = (self.poses, self.weights, self.masks);
        let threshold = Vec4::splat(self.threshold);
        // Pose `i`'s weight on the four joints of block `first` (`lanes` of them real).
        let lane_weights = |i: usize, first: usize, lanes: usize| -> Vec4 {
            let w = weights[i];
            match masks[i] {
                Some(mask) if lanes == 4 => {
                    Vec4::from_slice(&mask[first..first + 4]).max(Vec4::ZERO) * w
                }
                Some(mask) => Vec4::from_array(std::array::from_fn(|l| {
                    if l < lanes {
                        mask[first + l].max(0.0) * w
                    } else {
                        0.0
                    }
                })),
                None => Vec4::splat(w),
            }
        };
        for (c, (out, rest)) in self
            .output
            .chunks_mut(4)
            .zip(self.rest.chunks(4))
            .enumerate()
        {
            let first = c * 4;
            let lanes = out.len();
            // First the totals, and per lane how many poses weigh on it and the last one: a joint one pose alone
            // drives is that pose's transform exactly (a masked layer leaves the joints outside its mask untouched,
            // bit for bit), and a block of such joints (most, with masks of 0 and 1) is a copy.
            let mut total = Vec4::ZERO;
            let mut count = Vec4::ZERO;
            let mut only = Vec4::ZERO;
            for i in (0..weights.len()).filter(|&i| weights[i] > 0.0) {
                let w4 = lane_weights(i, first, lanes);
                total += w4;
                let weighs = w4.cmpgt(Vec4::ZERO);
                count += Vec4::select(weighs, Vec4::ONE, Vec4::ZERO);
                only = Vec4::select(weighs, Vec4::splat(i as f32), only);
            }
            let rest_weight = (threshold - total).max(Vec4::ZERO);
            let single = (count.cmpeq(Vec4::ONE) & rest_weight.cmpeq(Vec4::ZERO)).bitmask();
            let every = (1u32 << lanes) - 1;
            if single & every != every {
                let mut sum = Sums::default();
                let mut started = false;
                for i in (0..weights.len()).filter(|&i| weights[i] > 0.0) {
                    let w4 = lane_weights(i, first, lanes);
                    sum.add_lanes(&poses[i * n + first..i * n + first + lanes], w4, started);
                    started = true;
                }
                if rest_weight.cmpgt(Vec4::ZERO).any() {
                    sum.add_lanes(rest, rest_weight, started);
                }
                sum.store(out, rest, (total + rest_weight).recip().to_array());
            }
            if single != 0 {
                let only = only.to_array();
                for (l, o) in out.iter_mut().enumerate() {
                    if single & (1 << l) != 0 {
                        *o = poses[only[l] as usize * n + first + l];
                    }
                }
            }
        }
    }
}

/// Applies one additive layer to `output` (see [`AdditiveLayer`]), four joints at a time: the delta's rotation
/// on the w ≥ 0 hemisphere lerped from identity by |w| (the short way) and normalised, multiplied onto the
/// output's on its right (ozz's add pass; its conjugate for a negative weight).
fn add_layer(layer: &AdditiveLayer<'_>, output: &mut [Transform]) {
    for (c, (out, delta)) in output.chunks_mut(4).zip(layer.pose.chunks(4)).enumerate() {
        let lanes = out.len();
        let w = Vec4::from_array(std::array::from_fn(|l| {
            let j = c * 4 + l.min(lanes - 1);
            if l < lanes {
                layer.weight * layer.mask.map_or(1.0, |m| m[j])
            } else {
                0.0
            }
        }));
        if w.cmpeq(Vec4::ZERO).all() {
            continue;
        }
        let a = w.abs();
        let q = transpose_rotations(delta);
        // w ≥ 0 hemisphere, then lerp from identity.
        let sign = Vec4::ONE.copysign(q[3]);
        let (x, y, z) = (q[0] * sign * a, q[1] * sign * a, q[2] * sign * a);
        let qw = (q[3] * sign - Vec4::ONE) * a + Vec4::ONE;
        let k = inverse_sqrt(x * x + y * y + z * z + qw * qw);
        // The conjugate where the weight is negative.
        let flip = Vec4::select(w.cmplt(Vec4::ZERO), -Vec4::ONE, Vec4::ONE);
        let (bx, by, bz, bw) = (x * k * flip, y * k * flip, z * k * flip, qw * k);
        let o = transpose_rotations(out);
        let [ax, ay, az, aw] = o;
        // a · b
        let rx = aw * bx + ax * bw + ay * bz - az * by;
        let ry = aw * by - ax * bz + ay * bw + az * bx;
        let rz = aw * bz + ax * by - ay * bx + az * bw;
        let rw = aw * bw - ax * bx - ay * by - az * bz;
        let r = Mat4::from_cols(rx, ry, rz, rw).transpose();
        let r = [r.x_axis, r.y_axis, r.z_axis, r.w_axis];
        let (wa, aa) = (w.to_array(), a.to_array());
        for (l, (o, d)) in out.iter_mut().zip(delta).enumerate() {
            if wa[l] == 0.0 {
                continue;
            }
            o.rotation = Quat::from_vec4(r[l]);
            let scale = Vec3A::splat(1.0 - aa[l]) + d.scale * aa[l];
            if wa[l] > 0.0 {
                o.translation += d.translation * aa[l];
                o.scale *= scale;
            } else {
                o.translation -= d.translation * aa[l];
                o.scale /= Vec3A::select(scale.cmpeq(Vec3A::ZERO), Vec3A::ONE, scale);
            }
        }
    }
}

/// The rotations of up to four joints as x, y, z, w lanes (the last joint repeated to fill).
#[inline(always)]
fn transpose_rotations(joints: &[Transform]) -> [Vec4; 4] {
    let lane = |l: usize| joints[l.min(joints.len() - 1)].rotation.into();
    let q = Mat4::from_cols(lane(0), lane(1), lane(2), lane(3)).transpose();
    [q.x_axis, q.y_axis, q.z_axis, q.w_axis]
}

/// 1/√x per lane: the processor's estimate refined by one Newton–Raphson step (relative error below 3·10⁻⁷), where
/// the SIMD unit has one; a square root and a division elsewhere. The estimate's latency is a fraction of theirs,
/// and it is on every blended joint's path.
#[inline(always)]
pub(crate) fn inverse_sqrt(x: Vec4) -> Vec4 {
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
        let q = transpose_rotations(joints);
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

    /// Normalises the sums (times `inv`, the inverse total weight of each lane) into `out`; a rotation that sums
    /// to nothing takes the rest pose's.
    #[inline(always)]
    fn store(&self, out: &mut [Transform], rest: &[Transform], inv: [f32; 4]) {
        let [x, y, z, w] = self.rotation;
        let len2 = x * x + y * y + z * z + w * w;
        let k = inverse_sqrt(len2);
        let usable = len2.cmpgt(Vec4::splat(1e-24)).bitmask();
        let q = Mat4::from_cols(x * k, y * k, z * k, w * k).transpose();
        let q = [q.x_axis, q.y_axis, q.z_axis, q.w_axis];
        for (l, (o, r)) in out.iter_mut().zip(rest).enumerate() {
            *o = Transform {
                translation: self.translation[l] * inv[l],
                rotation: if usable & (1 << l) != 0 {
                    Quat::from_vec4(q[l])
                } else {
                    r.rotation
                },
                scale: self.scale[l] * inv[l],
            };
        }
    }

    /// As [`Sums::add`], with a weight per lane.
    #[inline(always)]
    fn add_lanes(&mut self, joints: &[Transform], w4: Vec4, started: bool) {
        let q = transpose_rotations(joints);
        let weight = if started {
            let [ax, ay, az, aw] = self.rotation;
            w4.copysign(ax * q[0] + ay * q[1] + az * q[2] + aw * q[3])
        } else {
            w4
        };
        for (a, c) in self.rotation.iter_mut().zip(q) {
            *a += c * weight;
        }
        let w = w4.to_array();
        for (l, t) in joints.iter().enumerate() {
            self.translation[l] += t.translation * w[l];
            self.scale[l] += t.scale * w[l];
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
            masks: &[],
            additive: &[],
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

    /// Three joints: a pose turned about y by `angle` per joint index, moved along x by `x`.
    fn three(angle: f32, x: f32) -> Vec<Transform> {
        (0..3)
            .map(|j| Transform {
                translation: Vec3::new(x + j as f32, 0.0, 0.0).into(),
                rotation: Quat::from_rotation_y(angle * (j + 1) as f32),
                scale: Vec3::splat(1.0 + 0.1 * j as f32).into(),
            })
            .collect()
    }

    fn blend(
        poses: &[Transform],
        weights: &[f32],
        masks: &[Option<&[f32]>],
        additive: &[AdditiveLayer<'_>],
    ) -> Vec<Transform> {
        let rest = three(0.0, 0.0);
        let mut out = vec![Transform::IDENTITY; 3];
        BlendingJob {
            poses,
            weights,
            masks,
            additive,
            rest: &rest,
            threshold: 0.1,
            output: &mut out,
        }
        .run()
        .unwrap();
        out
    }

    #[test]
    fn a_masked_override_leaves_the_joints_outside_its_mask_bit_identical() {
        let base = three(0.3, 1.0);
        let layer = three(-0.7, 5.0);
        // The layer overrides joint 2 fully and joint 1 by half; the base keeps what the layer leaves.
        let mask = [0.0, 0.5, 1.0];
        let rest_of_base = mask.map(|m| 1.0 - m);
        let poses: Vec<Transform> = base.iter().chain(&layer).copied().collect();
        let out = blend(
            &poses,
            &[1.0, 1.0],
            &[Some(&rest_of_base), Some(&mask)],
            &[],
        );
        assert_eq!(out[0], base[0], "outside the mask: the base, bit for bit");
        assert_eq!(out[2], layer[2], "fully inside: the layer, bit for bit");
        let half = Quat::from_rotation_y(0.6).slerp(Quat::from_rotation_y(-1.4), 0.5);
        assert!(
            out[1].rotation.angle_between(half) < 1e-3,
            "half way: {:?}",
            out[1]
        );
        assert!((out[1].translation.x - 4.0).abs() < 1e-5);
        // No mask at all: the same as before masks existed.
        let plain = blend(&poses, &[1.0, 1.0], &[], &[]);
        let unmasked = blend(&poses, &[1.0, 1.0], &[None, None], &[]);
        assert_eq!(plain, unmasked);
    }

    /// Equal rotations to 1e-5 per component, either sign (acos-based angles are ill-conditioned this close).
    fn same_rotation(a: Quat, b: Quat) -> bool {
        let (a, b) = (Vec4::from(a), Vec4::from(b));
        (a - b).length() < 1e-5 || (a + b).length() < 1e-5
    }

    #[test]
    fn additive_layers_are_identity_at_weight_0_and_reproduce_a_pose_from_its_reference() {
        let reference = three(0.2, 1.0);
        let target = three(-0.9, 3.0);
        let delta: Vec<Transform> = target
            .iter()
            .zip(&reference)
            .map(|(t, r)| additive_delta(t, r))
            .collect();
        let layer = |weight| AdditiveLayer {
            pose: &delta,
            weight,
            mask: None,
        };
        assert_eq!(
            blend(&reference, &[1.0], &[], &[layer(0.0)]),
            blend(&reference, &[1.0], &[], &[]),
            "weight 0 changes nothing"
        );
        let out = blend(&reference, &[1.0], &[], &[layer(1.0)]);
        for (o, t) in out.iter().zip(&target) {
            assert!(same_rotation(o.rotation, t.rotation), "{o:?} {t:?}");
            assert!(o.translation.abs_diff_eq(t.translation, 1e-5));
            assert!(o.scale.abs_diff_eq(t.scale, 1e-5));
        }
        // A negative weight takes it away again; a mask limits it to its joints.
        let undone = blend(&reference, &[1.0], &[], &[layer(0.6), layer(-0.6)]);
        for (o, r) in undone.iter().zip(&reference) {
            assert!(same_rotation(o.rotation, r.rotation));
            assert!(o.translation.abs_diff_eq(r.translation, 1e-5));
            assert!(o.scale.abs_diff_eq(r.scale, 1e-5));
        }
        let only_last = [0.0, 0.0, 1.0];
        let masked = AdditiveLayer {
            mask: Some(&only_last),
            ..layer(1.0)
        };
        let out = blend(&reference, &[1.0], &[], &[masked]);
        assert_eq!(out[0], blend(&reference, &[1.0], &[], &[])[0]);
        assert!(same_rotation(out[2].rotation, target[2].rotation));
    }

    #[test]
    fn masks_and_additive_layers_of_the_wrong_size_are_refused() {
        let a = three(0.0, 0.0);
        let rest = three(0.0, 0.0);
        let mut out = vec![Transform::IDENTITY; 3];
        let short = [1.0, 1.0];
        let job = BlendingJob {
            poses: &a,
            weights: &[1.0],
            masks: &[Some(&short)],
            additive: &[],
            rest: &rest,
            threshold: 0.1,
            output: &mut out,
        };
        assert!(matches!(job.validate(), Err(JobError::Length { .. })));
        let job = BlendingJob {
            poses: &a,
            weights: &[1.0],
            masks: &[],
            additive: &[AdditiveLayer {
                pose: &a[..2],
                weight: 1.0,
                mask: None,
            }],
            rest: &rest,
            threshold: 0.1,
            output: &mut out,
        };
        assert!(matches!(job.validate(), Err(JobError::Length { .. })));
    }

    #[test]
    fn the_rest_pose_fills_in_below_the_threshold() {
        let a = pose(0.0, 4.0);
        let rest = pose(0.0, 0.0);
        let mut out = vec![Transform::IDENTITY];
        BlendingJob {
            poses: &a,
            weights: &[0.25],
            masks: &[],
            additive: &[],
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
            masks: &[],
            additive: &[],
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
            masks: &[],
            additive: &[],
            rest: &rest,
            threshold: 0.1,
            output: &mut out,
        };
        assert!(matches!(job.validate(), Err(JobError::Length { .. })));
    }
}
