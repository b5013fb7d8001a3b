//! Foot lock: a stateful layer after the clip layers and before breath and look-at that holds each planted foot
//! where it landed, as the foot-IK of a game character does (ozz's foot-IK sample: the pelvis first, then each leg
//! by two-bone IK).
//!
//! Each step, per foot (its contact point is the toes joint when mapped, else the foot, as the skate meter's):
//! - it *lands* where its contact point is low (within `height_m` of the ground) and slides slower than
//!   `speed_m_s` in the world (the character's placement and an in-place clip's treadmill included); after a
//!   reset (a seek) a low foot is taken as already planted, at full weight;
//! - a landed foot is *locked* at the point where it is drawn at that moment, and stays locked while it stays
//!   low; the lock's weight rises over `blend_in_s` and, after the foot lifts, falls over `blend_out_s`;
//! - the locked point pulls the ankle by the contact point's offset from it (the foot keeps its model-space
//!   orientation, so the contact point lands on the lock); where a leg cannot reach, the pelvis (the hips) is
//!   lowered as far as `max_pelvis_drop_m`; a lock the leg cannot reach even then is *over-stretched* and
//!   released (it blends out, and the foot may land again where it is drawn);
//! - the legs are solved by [`crate::runtime::IkTwoBoneJob`] (hip, knee, ankle) with no softening, the knee
//!   turning about its hinge (measured from the rest pose: the side the knee bends to, else the character's
//!   right) towards the side it points to in the animated pose.
//!
//! The ground is the plane `ground_m` high in model space, by default the lower of the two contact points in the
//! rest pose.

use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::ParamError;
use crate::core::{Character, HumanBone, Skeleton, Transform};
use crate::runtime::{IkTwoBoneJob, LocalToModelJob};

/// Foot lock's parameters, as presets store them (`layers.foot_lock`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FootLockParams {
    /// Whether the layer runs.
    pub enabled: bool,
    /// A contact point within this height above the ground is low (metres).
    pub height_m: f32,
    /// A low foot sliding slower than this lands (m/s).
    pub speed_m_s: f32,
    /// Seconds a new lock takes to reach full weight (0: at once).
    pub blend_in_s: f32,
    /// Seconds a released lock takes to fade (0: at once).
    pub blend_out_s: f32,
    /// How far the pelvis may be lowered so that a leg reaches its lock (metres).
    pub max_pelvis_drop_m: f32,
    /// The share of a leg's length it may stretch to (below 1 keeps the knee from locking straight).
    pub max_reach: f32,
    /// The ground's height in model space (metres); None: the lower contact point of the rest pose.
    pub ground_m: Option<f32>,
}

impl Default for FootLockParams {
    fn default() -> Self {
        FootLockParams {
            enabled: false,
            height_m: 0.05,
            speed_m_s: 1.0,
            blend_in_s: 0.1,
            blend_out_s: 0.2,
            max_pelvis_drop_m: 0.15,
            max_reach: 0.999,
            ground_m: None,
        }
    }
}

impl FootLockParams {
    /// Checks every value; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        super::check("height_m", self.height_m, 0.0, 1.0)?;
        super::check("speed_m_s", self.speed_m_s, 0.0, 20.0)?;
        super::check("blend_in_s", self.blend_in_s, 0.0, 5.0)?;
        super::check("blend_out_s", self.blend_out_s, 0.0, 5.0)?;
        super::check("max_pelvis_drop_m", self.max_pelvis_drop_m, 0.0, 1.0)?;
        super::check("max_reach", self.max_reach, 0.5, 1.0)?;
        if let Some(g) = self.ground_m {
            super::check("ground_m", g, -100.0, 100.0)?;
        }
        Ok(())
    }
}

/// One leg bound to the skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct LegRig {
    /// The human bone of its foot (LeftFoot or RightFoot).
    pub foot_bone: HumanBone,
    /// Upper leg, lower leg and foot joints.
    pub hip: usize,
    /// The knee joint.
    pub knee: usize,
    /// The ankle joint.
    pub ankle: usize,
    /// The joint whose position is the contact point (toes, else the ankle).
    pub contact: usize,
    /// The knee's hinge axis in the knee's local space (a positive turn opens the leg).
    pub mid_axis: Vec3,
    /// The way the knee points at rest, in the upper leg's local space: it keeps the knee's side when the leg is
    /// nearly straight.
    pub pole: Vec3,
    /// Whether the middle joint bends to one side only (a knee; an elbow turns every way): a pose bent past
    /// straight is then read mirrored.
    pub one_sided: bool,
}

/// Foot lock bound to a character: both legs and the hips, or why it cannot run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FootLockRig {
    /// The legs, left then right (empty when the character lacks a leg bone).
    pub legs: Vec<LegRig>,
    /// The hips joint the pelvis drop moves.
    pub hips: Option<usize>,
    /// The ground height found in the rest pose (model space).
    pub rest_ground: f32,
    /// Why the layer cannot run on this character (empty when it can).
    pub problem: Option<String>,
}

/// One foot's lock between steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootLockFoot {
    /// Where the foot is held, world space (kept while the lock fades).
    pub lock: Option<Vec3>,
    /// Whether it is locked now (landed and not lifted or over-stretched).
    pub locked: bool,
    /// The lock's weight in [0, 1].
    pub weight: f32,
    /// Where the lock holds the foot in the model's space at the last step (for drawing it on the character).
    pub model_lock: Option<Vec3>,
    /// The contact point of the animated (unlocked) pose at the last step, world space.
    previous: Option<Vec3>,
}

/// Foot lock's state: one entry per leg, and the pelvis drop of the last step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FootLockState {
    /// Per leg, left then right.
    pub feet: Vec<FootLockFoot>,
    /// How far the pelvis was lowered in the last step (metres).
    pub pelvis_drop: f32,
}

impl FootLockState {
    /// Forgets every lock (a seek): the next step takes low feet as planted where they are.
    pub fn reset(&mut self) {
        self.feet.clear();
        self.pelvis_drop = 0.0;
    }
}

impl FootLockRig {
    /// Finds the legs on a character (mapped human bones) and measures the rest pose's ground and knee hinges.
    pub fn bind(character: &Character) -> Self {
        let map = &character.humanoid;
        let skeleton = &character.skeleton;
        let mut rest_model = vec![Mat4::IDENTITY; skeleton.len()];
        if LocalToModelJob::all(skeleton, skeleton.rest(), &mut rest_model)
            .run()
            .is_err()
        {
            return Self::unusable("the rest pose cannot be placed");
        }
        let sides = [
            (
                HumanBone::LeftUpperLeg,
                HumanBone::LeftLowerLeg,
                HumanBone::LeftFoot,
                HumanBone::LeftToes,
            ),
            (
                HumanBone::RightUpperLeg,
                HumanBone::RightLowerLeg,
                HumanBone::RightFoot,
                HumanBone::RightToes,
            ),
        ];
        let mut legs = Vec::new();
        for (upper, lower, foot, toes) in sides {
            let joints = [upper, lower, foot].map(|b| map.joint(b));
            let [Some(hip), Some(knee), Some(ankle)] = joints else {
                let missing = [upper, lower, foot]
                    .iter()
                    .zip(joints)
                    .find(|(_, j)| j.is_none())
                    .map_or("", |(b, _)| b.name());
                return Self::unusable(&format!("the character has no {missing} mapped"));
            };
            if !skeleton.is_ancestor_or_self(hip, knee)
                || !skeleton.is_ancestor_or_self(knee, ankle)
            {
                return Self::unusable(&format!(
                    "{} is not above {} and {}",
                    upper.name(),
                    lower.name(),
                    foot.name()
                ));
            }
            let contact = map
                .joint(toes)
                .filter(|&t| skeleton.is_ancestor_or_self(ankle, t))
                .unwrap_or(ankle);
            legs.push(LegRig {
                foot_bone: foot,
                hip,
                knee,
                ankle,
                contact,
                mid_axis: hinge_axis(&rest_model, hip, knee, ankle, Vec3::Z),
                pole: rest_pole(&rest_model, hip, Vec3::Z),
                one_sided: true,
            });
        }
        let hips = map.joint(HumanBone::Hips);
        let Some(hips_joint) =
            hips.filter(|&h| legs.iter().all(|l| skeleton.is_ancestor_or_self(h, l.hip)))
        else {
            return Self::unusable("the hips are not above both legs");
        };
        let rest_ground = legs
            .iter()
            .map(|l| rest_model[l.contact].w_axis.y)
            .fold(f32::INFINITY, f32::min);
        FootLockRig {
            legs,
            hips: Some(hips_joint),
            rest_ground,
            problem: None,
        }
    }

    fn unusable(why: &str) -> Self {
        FootLockRig {
            problem: Some(format!("foot lock cannot run: {why}")),
            ..Self::default()
        }
    }

    /// Holds the planted feet of `local` (the pose after the clip layers) and steps `state` by `step` (a reset
    /// plants afresh). `placement` puts the model in the world (the character's placement
    /// times an in-place clip's treadmill). `model` is scratch for the model matrices. Allocates nothing once the
    /// state and scratch have their size.
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &self,
        params: &FootLockParams,
        skeleton: &Skeleton,
        placement: Mat4,
        step: super::Step,
        state: &mut FootLockState,
        local: &mut [Transform],
        model: &mut Vec<Mat4>,
    ) {
        let Some(hips) = self
            .hips
            .filter(|_| params.enabled && self.problem.is_none())
        else {
            state.reset();
            return;
        };
        model.resize(skeleton.len(), Mat4::IDENTITY);
        if LocalToModelJob::all(skeleton, local, model).run().is_err() {
            return;
        }
        if step == super::Step::Reset {
            state.reset();
        }
        let fresh = state.feet.len() != self.legs.len();
        if fresh {
            state.feet.clear();
            state.feet.resize(self.legs.len(), FootLockFoot::default());
        }
        let dt = step.seconds();
        let ground = params.ground_m.unwrap_or(self.rest_ground);
        let to_model = placement.inverse();
        // Each leg's ankle target (model space; None: no lock pulls it) and the pelvis drop it needs.
        let mut targets = [None; 2];
        let mut drop = 0.0f32;
        for (i, (leg, foot)) in self.legs.iter().zip(&mut state.feet).enumerate().take(2) {
            let contact = model[leg.contact].w_axis.truncate();
            let world = placement.transform_point3(contact);
            let slide = match foot.previous {
                Some(p) if dt > 0.0 => {
                    let d = world - p;
                    Vec3::new(d.x, 0.0, d.z).length() / dt
                }
                _ => 0.0,
            };
            foot.previous = Some(world);
            let low = contact.y - ground < params.height_m;
            if foot.locked && !low {
                foot.locked = false;
            }
            if !foot.locked && low && slide < params.speed_m_s {
                // Lands where it is drawn now (the old lock's pull included), so a fading lock does not jump.
                let shown = foot
                    .lock
                    .map_or(world, |l| world + (l - world) * foot.weight);
                foot.lock = Some(shown);
                foot.locked = true;
                if fresh {
                    foot.weight = 1.0;
                }
            }
            foot.weight = if foot.locked {
                ramp(foot.weight, dt, params.blend_in_s, 1.0)
            } else {
                ramp(foot.weight, dt, params.blend_out_s, -1.0)
            };
            let Some(lock) = foot.lock.filter(|_| foot.weight > 0.0) else {
                foot.lock = None;
                foot.model_lock = None;
                continue;
            };
            foot.model_lock = Some(to_model.transform_point3(lock));
            let pull = to_model.transform_vector3(lock - world) * foot.weight;
            let target = model[leg.ankle].w_axis.truncate() + pull;
            let hip = model[leg.hip].w_axis.truncate();
            let reach = params.max_reach * leg_length(model, leg);
            let need = drop_to_reach(hip, target, reach);
            if need > params.max_pelvis_drop_m && foot.locked {
                // Over-stretched: the lock is let go and fades from here.
                foot.locked = false;
            }
            drop = drop.max(need.min(params.max_pelvis_drop_m));
            targets[i] = Some(target);
        }
        state.pelvis_drop = drop;
        if drop > 0.0 {
            lower_hips(skeleton, hips, drop, local, model);
        }
        for (leg, target) in self.legs.iter().zip(targets) {
            if let Some(target) = target {
                solve_leg(skeleton, leg, target, local, model);
            }
        }
    }
}

/// The weight after `dt` of a ramp lasting `seconds` in direction `sign` (+1 up, −1 down), within [0, 1].
fn ramp(weight: f32, dt: f32, seconds: f32, sign: f32) -> f32 {
    if seconds <= 0.0 {
        return sign.max(0.0);
    }
    (weight + sign * dt / seconds).clamp(0.0, 1.0)
}

/// The leg's length from hip to ankle through the knee, as posed.
pub(crate) fn leg_length(model: &[Mat4], leg: &LegRig) -> f32 {
    let at = |j: usize| model[j].w_axis.truncate();
    (at(leg.knee) - at(leg.hip)).length() + (at(leg.ankle) - at(leg.knee)).length()
}

/// Recomputes the model matrices of `joint` and everything below it.
pub(crate) fn refresh(skeleton: &Skeleton, local: &[Transform], model: &mut [Mat4], joint: usize) {
    let _ = LocalToModelJob {
        skeleton,
        input: local,
        from: Some(joint),
        to: usize::MAX,
        output: model,
    }
    .run();
}

/// A limb's middle hinge in the middle joint's local space from the rest pose: the axis about which a positive
/// turn opens the limb (start − middle × end − middle); for a limb straight at rest, the hinge it would have bent
/// a little towards `side` (model space: forward for a knee, backward for an elbow).
pub(crate) fn hinge_axis(rest: &[Mat4], hip: usize, knee: usize, ankle: usize, side: Vec3) -> Vec3 {
    let at = |j: usize| rest[j].w_axis.truncate();
    let (k, h, a) = (at(knee), at(hip), at(ankle));
    let bend = (h - k).cross(a - k);
    let model_axis =
        if bend.length_squared() > 1e-3 * (h - k).length_squared() * (a - k).length_squared() {
            bend
        } else {
            side.cross((h - k).normalize_or(Vec3::Y))
        };
    let (_, rotation, _) = rest[knee].to_scale_rotation_translation();
    (rotation.inverse() * model_axis).normalize()
}

/// `side` (a model-space direction the middle joint points to at rest) in the upper joint's local space.
pub(crate) fn rest_pole(rest: &[Mat4], upper: usize, side: Vec3) -> Vec3 {
    let (_, rotation, _) = rest[upper].to_scale_rotation_translation();
    (rotation.inverse() * side).normalize_or(Vec3::Z)
}

/// How far the hips must drop for a limb hanging from `hip` to reach `target` within `reach` (model space; 0 when
/// it reaches). A target further across than the limb reaches is brought closest by a drop to its height: the
/// drop grows without a jump as the target moves out of reach.
pub(crate) fn drop_to_reach(hip: Vec3, target: Vec3, reach: f32) -> f32 {
    let d = target - hip;
    let across = Vec3::new(d.x, 0.0, d.z).length();
    (-d.y - (reach * reach - across * across).max(0.0).sqrt()).max(0.0)
}

/// Lowers `hips` by `drop` metres in model space and refreshes the model matrices below it.
pub(crate) fn lower_hips(
    skeleton: &Skeleton,
    hips: usize,
    drop: f32,
    local: &mut [Transform],
    model: &mut [Mat4],
) {
    let parent = skeleton
        .parent(hips)
        .map_or(skeleton.root_transform(), |p| model[p]);
    local[hips].translation +=
        glam::Vec3A::from(parent.inverse().transform_vector3(Vec3::NEG_Y * drop));
    refresh(skeleton, local, model, hips);
}

/// The middle joint's hinge in its local space for this pose: the axis it bends about now, so that a goal where
/// the limb already is leaves it as it is; leaning on the rest hinge as the limb straightens (a knee's read on the
/// rest hinge's side: it bends one way).
fn mid_axis(leg: &LegRig, model: &[Mat4], hip: Vec3, knee: Vec3, ankle: Vec3) -> Vec3 {
    let (_, rotation, _) = model[leg.knee].to_scale_rotation_translation();
    let (upper, lower) = (hip - knee, ankle - knee);
    let mut bend = rotation.inverse() * upper.cross(lower);
    if leg.one_sided && bend.dot(leg.mid_axis) < 0.0 {
        bend = -bend;
    }
    let rest = leg.mid_axis * (1e-3 * upper.length() * lower.length());
    (bend + rest).normalize_or(leg.mid_axis)
}

/// How much the knee's rest direction weighs in its side, as a share of the hip-to-ankle distance.
const POLE_SHARE: f32 = 0.01;

/// Takes one leg's ankle to `target` (model space): two-bone IK on hip and knee towards the knee's present side,
/// then the foot turned back to its model-space orientation.
pub(crate) fn solve_leg(
    skeleton: &Skeleton,
    leg: &LegRig,
    target: Vec3,
    local: &mut [Transform],
    model: &mut [Mat4],
) {
    let at = |m: &[Mat4], j: usize| m[j].w_axis.truncate();
    let (hip, knee, ankle) = (
        at(model, leg.hip),
        at(model, leg.knee),
        at(model, leg.ankle),
    );
    let (_, foot_rotation, _) = model[leg.ankle].to_scale_rotation_translation();
    let line = ankle - hip;
    let offset = knee - hip;
    let across = offset - line * (offset.dot(line) / line.length_squared().max(1e-12));
    // The knee's present side, leaning on the way it points at rest (turned with the thigh) as the leg
    // straightens: a side read from a nearly straight leg flips from frame to frame. A knee bent past straight
    // (its side against the rest one) is read mirrored, so the pole never passes through zero. An elbow keeps its
    // present side, the rest one only breaking the tie of a straight arm.
    let rest_side = (model[leg.hip].transform_vector3(leg.pole)).normalize_or(Vec3::Z);
    let pole = if leg.one_sided {
        let against = across.dot(rest_side).min(0.0);
        across - rest_side * (2.0 * against) + rest_side * (POLE_SHARE * line.length())
    } else {
        across + rest_side * (1e-3 * line.length())
    };
    let (mut start, mut mid, mut reached) = (Quat::IDENTITY, Quat::IDENTITY, false);
    let (start_m, mid_m, end_m) = (model[leg.hip], model[leg.knee], model[leg.ankle]);
    let mut job = IkTwoBoneJob::new(&start_m, &mid_m, &end_m, &mut start, &mut mid, &mut reached);
    job.target = target.into();
    job.mid_axis = mid_axis(leg, model, hip, knee, ankle).into();
    job.pole_vector = pole.into();
    if job.run().is_err() {
        return;
    }
    local[leg.hip].rotation = (local[leg.hip].rotation * start).normalize();
    local[leg.knee].rotation = (local[leg.knee].rotation * mid).normalize();
    refresh(skeleton, local, model, leg.hip);
    if let Some(parent) = skeleton.parent(leg.ankle) {
        let (_, parent_rotation, _) = model[parent].to_scale_rotation_translation();
        local[leg.ankle].rotation = (parent_rotation.inverse() * foot_rotation).normalize();
        refresh(skeleton, local, model, leg.ankle);
    }
}
