//! Breath: inhale → exhale → rest, looping, as small rotations of the spine, chest, neck and head added on top of
//! the animated pose; a pure function of time, so scrubbing gives the same pose.
//!
//! Angles mean what they mean in the Unity original (Mebiustos BreathController): there each bone turns with
//! `Transform.Rotate` about its local axis nearest the character's right, by the angle times the sign of that
//! axis' alignment. Unity is left-handed, so a positive angle about the right pitches forward (Spine +2° on the
//! inhale bends the chest forward). In glTF's right-handed axes the same motion is a positive angle about the
//! character's left: the detected axis here is the local axis nearest the left ([`BREATH_AXIS_TOWARD`]).

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::easing::Easing;
use super::{ParamError, check, check_axis, chosen_axis, resolve_joint};
use crate::core::pose::world_rotation;
use crate::core::{Character, HumanBone, Pose, Skeleton, Transform};

/// One breathing bone and its angles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BreathBone {
    /// Humanoid bone name (`Chest`) or, for rigs without a humanoid map, a joint name.
    pub bone: String,
    /// Angle at the end of the inhale, degrees.
    pub inhale_deg: f32,
    /// Angle at the end of the exhale, degrees.
    pub exhale_deg: f32,
    /// Rotation axis in the bone's local frame (right-handed: a positive angle turns counter-clockwise looking
    /// down the axis); None: the local axis nearest the character's left, which gives the original's motion.
    pub axis: Option<[f32; 3]>,
}

impl Default for BreathBone {
    fn default() -> Self {
        BreathBone {
            bone: String::new(),
            inhale_deg: 0.0,
            exhale_deg: 0.0,
            axis: None,
        }
    }
}

/// Every breath parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BreathParams {
    /// Layer on.
    pub enabled: bool,
    /// Inhale duration, seconds.
    pub inhale_s: f32,
    /// Exhale duration, seconds.
    pub exhale_s: f32,
    /// Rest after the exhale, seconds.
    pub rest_s: f32,
    /// Scales all durations (2 = breathe half as fast).
    pub duration_rate: f32,
    /// Scales all angles (the layer's weight).
    pub effect_rate: f32,
    /// Easing of the inhale.
    pub inhale_easing: Easing,
    /// Easing of the exhale.
    pub exhale_easing: Easing,
    /// The breathing bones.
    pub bones: Vec<BreathBone>,
    /// Shoulders (upper arms when there are none) keep their world rotation, so the arms do not swing.
    pub keep_shoulders: bool,
    /// Joint held as the left shoulder when the humanoid has no LeftShoulder bone (the original's
    /// `genericLeftShoulder`); the upper arm is held when neither exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generic_left_shoulder: Option<String>,
    /// Joint held as the right shoulder when the humanoid has no RightShoulder bone (`genericRightShoulder`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generic_right_shoulder: Option<String>,
}

impl Default for BreathParams {
    fn default() -> Self {
        let bone = |b: &str, i: f32, e: f32| BreathBone {
            bone: b.into(),
            inhale_deg: i,
            exhale_deg: e,
            axis: None,
        };
        BreathParams {
            enabled: true,
            inhale_s: 1.2,
            exhale_s: 2.4,
            rest_s: 0.2,
            duration_rate: 1.0,
            effect_rate: 1.0,
            inhale_easing: Easing::EaseOutSine,
            exhale_easing: Easing::EaseInOutQuad,
            bones: vec![
                bone("Spine", 2.0, -2.0),
                bone("Chest", -3.0, 3.0),
                bone("Neck", 0.5, -0.5),
                bone("Head", 0.5, -0.5),
            ],
            keep_shoulders: true,
            generic_left_shoulder: None,
            generic_right_shoulder: None,
        }
    }
}

/// Where in the breathing cycle a time falls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreathPhase {
    /// Breathing in.
    Inhale,
    /// Breathing out.
    Exhale,
    /// Holding after the exhale.
    Rest,
}

impl BreathPhase {
    /// Lowercase name for the UI.
    pub fn name(self) -> &'static str {
        match self {
            BreathPhase::Inhale => "inhale",
            BreathPhase::Exhale => "exhale",
            BreathPhase::Rest => "rest",
        }
    }
}

/// The breath at one time, for every bone: [`BreathParams::shape_at`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BreathShape {
    /// Inhale, exhale or rest.
    pub phase: BreathPhase,
    /// True during the first cycle, whose inhale rises from 0 rather than from the exhale angle.
    pub first_cycle: bool,
    /// The phase's eased fraction in [0, 1].
    pub eased: f32,
    /// The angles' scale.
    pub effect_rate: f32,
}

impl BreathShape {
    /// A bone's angle in degrees (effect rate applied), given its inhale and exhale angles.
    pub fn angle_deg(&self, inhale: f32, exhale: f32) -> f32 {
        let a = match self.phase {
            BreathPhase::Inhale => {
                let from = if self.first_cycle { 0.0 } else { exhale };
                from + (inhale - from) * self.eased
            }
            BreathPhase::Exhale => inhale + (exhale - inhale) * self.eased,
            BreathPhase::Rest => exhale,
        };
        a * self.effect_rate
    }
}

impl BreathParams {
    /// Length of one inhale + exhale + rest cycle, seconds.
    pub fn cycle_length(&self) -> f32 {
        (self.inhale_s + self.exhale_s + self.rest_s) * self.duration_rate
    }

    /// Phase at time `t`, the fraction of that phase elapsed, and the cycle number.
    pub fn phase_at(&self, t: f32) -> (BreathPhase, f32, u64) {
        let cycle = self.cycle_length();
        let t = if t.is_finite() { t.max(0.0) } else { 0.0 };
        if cycle <= 0.0 {
            return (BreathPhase::Rest, 1.0, 0);
        }
        let k = (t / cycle).floor();
        let local = t - k * cycle;
        let (i, e) = (
            self.inhale_s * self.duration_rate,
            self.exhale_s * self.duration_rate,
        );
        let fraction = |x: f32, d: f32| {
            if d > 0.0 {
                (x / d).clamp(0.0, 1.0)
            } else {
                1.0
            }
        };
        let phase = if local < i {
            (BreathPhase::Inhale, fraction(local, i))
        } else if local < i + e {
            (BreathPhase::Exhale, fraction(local - i, e))
        } else {
            (
                BreathPhase::Rest,
                fraction(local - i - e, self.rest_s * self.duration_rate),
            )
        };
        (phase.0, phase.1, k as u64)
    }

    /// A bone's angle in degrees at time `t` (effect rate applied): the first inhale rises from 0, later ones
    /// from the exhale angle.
    pub fn angle_deg(&self, inhale: f32, exhale: f32, t: f32) -> f32 {
        self.shape_at(t).angle_deg(inhale, exhale)
    }

    /// Where the breath is at time `t`, shared by every bone: its phase, cycle and eased fraction.
    pub fn shape_at(&self, t: f32) -> BreathShape {
        let (phase, f, cycle) = self.phase_at(t);
        let eased = match phase {
            BreathPhase::Inhale => self.inhale_easing.apply(f),
            BreathPhase::Exhale => self.exhale_easing.apply(f),
            BreathPhase::Rest => 1.0,
        };
        BreathShape {
            phase,
            first_cycle: cycle == 0,
            eased,
            effect_rate: self.effect_rate,
        }
    }

    /// Checks every value; the error names the field (relative to the breath section).
    pub fn validate(&self) -> Result<(), ParamError> {
        check("inhale_s", self.inhale_s, 1e-3, 60.0)?;
        check("exhale_s", self.exhale_s, 1e-3, 60.0)?;
        check("rest_s", self.rest_s, 0.0, 60.0)?;
        check("duration_rate", self.duration_rate, 1e-3, 100.0)?;
        check("effect_rate", self.effect_rate, 0.0, 10.0)?;
        for (i, b) in self.bones.iter().enumerate() {
            check(&format!("bones[{i}].inhale_deg"), b.inhale_deg, -90.0, 90.0)?;
            check(&format!("bones[{i}].exhale_deg"), b.exhale_deg, -90.0, 90.0)?;
            check_axis(&format!("bones[{i}].axis"), b.axis)?;
        }
        Ok(())
    }
}

/// The character's left in model space (it faces +Z with +Y up, so its right hand is on −X): breath turns each
/// bone by a positive angle about its local axis nearest this direction, which is the Unity original's positive
/// `Rotate` about the right in Unity's left-handed axes.
pub const BREATH_AXIS_TOWARD: Vec3 = Vec3::X;

impl BreathParams {
    /// Rewrites angles written by presets before version 2, when the detected axis pointed to the character's
    /// right: negating them keeps the motion those presets made. Bones with an explicit axis are unchanged.
    pub fn migrate_from_right_axis(&mut self) {
        for b in self.bones.iter_mut().filter(|b| b.axis.is_none()) {
            b.inhale_deg = -b.inhale_deg;
            b.exhale_deg = -b.exhale_deg;
        }
    }
}

/// The local axis of `joint` (±X, ±Y or ±Z) that points closest to `direction` (model space) at rest.
pub fn local_axis_toward(rest_world: &[Quat], joint: usize, direction: Vec3) -> Vec3 {
    let q = rest_world[joint];
    [
        Vec3::X,
        Vec3::NEG_X,
        Vec3::Y,
        Vec3::NEG_Y,
        Vec3::Z,
        Vec3::NEG_Z,
    ]
    .into_iter()
    .max_by(|a, b| (q * *a).dot(direction).total_cmp(&(q * *b).dot(direction)))
    .unwrap_or(Vec3::X)
}

/// One breathing bone resolved on a character.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundBreathBone {
    /// Index into [`BreathParams::bones`].
    pub index: usize,
    /// The joint.
    pub joint: usize,
    /// Rotation axis in the joint's local frame (the override, or the detected one).
    pub axis: Vec3,
    /// The detected axis (shown in the inspector even when overridden).
    pub detected_axis: Vec3,
}

/// Breath bound to one character: joints, axes, and the shoulders it holds still.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BreathRig {
    /// The bones found.
    pub bones: Vec<BoundBreathBone>,
    /// Joints whose world rotation is kept (shoulders, else upper arms).
    pub shoulders: Vec<usize>,
    /// Bones named in the parameters that this character does not have.
    pub missing: Vec<String>,
}

impl BreathRig {
    /// Resolves the parameters' bones on a character.
    pub fn bind(params: &BreathParams, character: &Character) -> Self {
        let skeleton = &character.skeleton;
        let rest_world = Pose::rest(skeleton).world_rotations(skeleton);
        let mut rig = BreathRig::default();
        for (index, b) in params.bones.iter().enumerate() {
            match resolve_joint(character, &b.bone) {
                Some(joint) => {
                    let detected_axis = local_axis_toward(&rest_world, joint, BREATH_AXIS_TOWARD);
                    let axis = chosen_axis(b.axis, detected_axis);
                    rig.bones.push(BoundBreathBone {
                        index,
                        joint,
                        axis,
                        detected_axis,
                    });
                }
                None => rig.missing.push(b.bone.clone()),
            }
        }
        let h = &character.humanoid;
        for (shoulder, generic, upper) in [
            (
                HumanBone::LeftShoulder,
                &params.generic_left_shoulder,
                HumanBone::LeftUpperArm,
            ),
            (
                HumanBone::RightShoulder,
                &params.generic_right_shoulder,
                HumanBone::RightUpperArm,
            ),
        ] {
            let generic = generic.as_deref().filter(|g| !g.trim().is_empty());
            let generic_joint = generic.and_then(|g| skeleton.find_by_name(g));
            if let Some(g) = generic
                && generic_joint.is_none()
                && h.joint(shoulder).is_none()
            {
                rig.missing.push(g.to_string());
            }
            if let Some(j) = h
                .joint(shoulder)
                .or(generic_joint)
                .or_else(|| h.joint(upper))
            {
                rig.shoulders.push(j);
            }
        }
        rig
    }

    /// Adds the breath at time `t` to a local pose; allocates nothing.
    pub fn apply(
        &self,
        params: &BreathParams,
        skeleton: &Skeleton,
        t: f32,
        local: &mut [Transform],
    ) {
        if !params.enabled || self.bones.is_empty() {
            return;
        }
        // Each shoulder's parent's model rotation before the breath (shoulders usually share their parent, so it
        // is walked up once).
        let parent_rotation = |local: &[Transform], j: usize| {
            skeleton.parent(j).map_or(skeleton.root_rotation(), |p| {
                world_rotation(skeleton, local, p)
            })
        };
        let mut held = [None; 2];
        if params.keep_shoulders {
            let mut last: Option<(Option<usize>, Quat)> = None;
            for (slot, &j) in held.iter_mut().zip(&self.shoulders) {
                let parent = match last {
                    Some((p, q)) if p == skeleton.parent(j) => q,
                    _ => parent_rotation(local, j),
                };
                last = Some((skeleton.parent(j), parent));
                *slot = Some((j, parent * local[j].rotation));
            }
        }
        let shape = params.shape_at(t);
        for b in &self.bones {
            let spec = &params.bones[b.index];
            let angle = shape
                .angle_deg(spec.inhale_deg, spec.exhale_deg)
                .to_radians();
            let l = &mut local[b.joint];
            l.rotation = (l.rotation * Quat::from_axis_angle(b.axis, angle)).normalize();
        }
        let mut last: Option<(Option<usize>, Quat)> = None;
        for (j, q) in held.into_iter().flatten() {
            let parent = match last {
                Some((p, q)) if p == skeleton.parent(j) => q,
                _ => parent_rotation(local, j),
            };
            last = Some((skeleton.parent(j), parent));
            local[j].rotation = (parent.inverse() * q).normalize();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_follow_the_easing_and_later_cycles_start_from_the_exhale() {
        let p = BreathParams::default();
        // First inhale from 0: at 0.6 s of 1.2 s, EaseOutSine(0.5) of 2°.
        let want = 2.0 * Easing::EaseOutSine.apply(0.5);
        assert!((p.angle_deg(2.0, -2.0, 0.6) - want).abs() < 1e-5);
        // Exhale: at 1.2 + 1.2 s, halfway: EaseInOutQuad(0.5) = 0.5 → 0°.
        assert!(p.angle_deg(2.0, -2.0, 2.4).abs() < 1e-5);
        // Rest holds the exhale angle.
        assert!((p.angle_deg(2.0, -2.0, 3.7) + 2.0).abs() < 1e-5);
        // Second inhale starts from the exhale angle: at 3.8 + 0.6 s.
        let want = -2.0 + 4.0 * Easing::EaseOutSine.apply(0.5);
        assert!((p.angle_deg(2.0, -2.0, 4.4) - want).abs() < 1e-5);
        assert_eq!(p.phase_at(3.9).0, BreathPhase::Inhale);
        assert_eq!(p.phase_at(3.9).2, 1);
        let slow = BreathParams {
            duration_rate: 2.0,
            effect_rate: 0.5,
            ..p.clone()
        };
        assert!((slow.angle_deg(2.0, -2.0, 1.2) - 0.5 * p.angle_deg(2.0, -2.0, 0.6)).abs() < 1e-5);
    }

    #[test]
    fn bad_values_name_the_field() {
        let p = BreathParams {
            exhale_s: f32::NAN,
            ..BreathParams::default()
        };
        assert_eq!(p.validate().unwrap_err().field, "exhale_s");
        let mut p = BreathParams::default();
        p.bones[2].inhale_deg = 400.0;
        assert_eq!(p.validate().unwrap_err().field, "bones[2].inhale_deg");
    }
}
