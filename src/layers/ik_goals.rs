//! Retargeting with IK goals, after Unreal's IK Retargeter: a clip copied by rotations onto a character of other
//! proportions, then each chain turned on (the feet, the hands) takes its end joints (ankles, wrists) to goals read
//! from the clip's source:
//! - a goal is the source's effector relative to the source's hips, turned to the target's facing, scaled by the
//!   ratio of the two rigs' chain lengths (upper plus lower bone at rest) and placed on the target's hips;
//! - `blend_to_source` pulls it towards the source's effector where the source has it;
//! - speed planting: while the source's contact point (the toes for a foot, else its end joint) slides slower than
//!   the plant speed across the ground in the source's world (its root motion included), the goal is pinned across
//!   the ground in the target's world where it was drawn when the plant began, its height following the source;
//!   after the plant it hands back to the moving goal over the release time (smoothstep);
//! - the hips drop as little as needed, at most a quarter of the leg, so that both ankles reach;
//! - each limb by two-bone IK (foot lock's solver), its end keeping its model-space rotation.
//!
//! The target's world is its model space plus the source's travel that none of its joints receive (the source's
//! animated joints above its hips that found no joint), turned and scaled as the hips are: a walk whose root
//! motion the target cannot carry plants its feet on a treadmill under it.
//!
//! Everything is a function of the clip's time: the plants are found when the rig binds, over the whole clip, so a
//! bake at any rate and `pose` agree and a seek needs no reset. The source is read from the clip's own tracks and
//! the rests they carry; a clip whose format carries none (Unity's layout) cannot be given goals.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

use super::foot_lock::{
    LegRig, drop_to_reach, hinge_axis, leg_length, lower_hips, rest_pole, solve_leg,
};
use crate::core::ik_goals::ChainGoal;
use crate::core::transform::compose;
use crate::core::{Character, Clip, HumanBone, IkGoals, Skeleton, Track, Transform};
use crate::runtime::LocalToModelJob;

/// Samples per second at which a source effector's speed is read to find its plants.
pub const PLANT_FPS: f32 = 120.0;
/// At most this many samples per chain (a longer clip is read more coarsely).
const MAX_PLANT_SAMPLES: usize = 100_000;
/// The farthest the hips drop, as a share of the leg's length.
pub const MAX_HIPS_DROP_SHARE: f32 = 0.25;
/// The share of its length a leg reaches to when the hips drop for it (a leg locked straight pops its knee).
const MAX_REACH: f32 = 0.999;

/// A chain of goals: both feet, or both hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Chain {
    /// Upper leg, lower leg, foot.
    Feet,
    /// Upper arm, lower arm, hand.
    Hands,
}

/// One plant of a source effector: its goal pinned from `start_s` to `end_s` (clip seconds; past the clip's end
/// when it carries on across a loop's seam).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Plant {
    /// When the effector slowed under the plant speed.
    pub start_s: f32,
    /// When it sped up again.
    pub end_s: f32,
    /// Where the goal is pinned, in the target's world at the clip's first cycle.
    #[serde(skip)]
    pin: Vec3,
}

/// One limb bound on both rigs.
#[derive(Clone, Debug)]
struct Limb {
    chain: Chain,
    /// The target's joints and knee or elbow hinge.
    rig: LegRig,
    /// The source's upper, lower and end joints and the end's contact point, indices into
    /// [`SourceBody::joints`].
    source: [usize; 4],
    /// Target chain length over the source's.
    ratio: f32,
    /// The target's rest offset of the contact point from the hips less the source's scaled one: added (turned
    /// with the hips' heading) so that the goals keep the target's own stance.
    stance: Vec3,
    plants: Vec<Plant>,
}

/// One source joint the goals read: its track, its nearest animated ancestor among the joints read, and the rest
/// transform from that ancestor's frame to its own parent's (identity when the ancestor is its parent; its
/// parent's model rest when it has none).
#[derive(Clone, Debug)]
struct SourceJoint {
    track: usize,
    parent: Option<usize>,
    frame: Mat4,
    /// An ancestor of the hips whose track found no joint on the target: its motion is travel the target lacks.
    lost: bool,
}

/// Which values the source's joints take.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SourceState {
    /// As the clip animates them.
    Animated,
    /// As animated, but the joints whose motion the target lacks at rest: the source as the target follows it.
    AsFollowed,
    /// At rest.
    Rest,
}

/// The joints of a clip's source that the goals read, with the tracks that move them (each ancestor first).
#[derive(Clone, Debug, Default)]
struct SourceBody {
    tracks: Vec<Track>,
    joints: Vec<SourceJoint>,
}

impl SourceBody {
    /// Adds the joint of `clip`'s track `index` (and its animated ancestors) and returns its entry.
    fn add(
        &mut self,
        clip: &Clip,
        by_path: &HashMap<&str, usize>,
        added: &mut HashMap<usize, usize>,
        index: usize,
    ) -> usize {
        if let Some(&j) = added.get(&index) {
            return j;
        }
        let target = &clip.tracks[index].target;
        let parent_path = target.path.rsplit_once('/').map(|(up, _)| up);
        let mut path = target.path.as_str();
        let mut ancestor = None;
        while let Some((up, _)) = path.rsplit_once('/') {
            if let Some(&a) = by_path.get(up) {
                ancestor = Some((a, Some(up) == parent_path));
                break;
            }
            path = up;
        }
        let (parent, frame) = match ancestor {
            // The parent's animated frame is the joint's parent frame.
            Some((a, true)) => (Some(self.add(clip, by_path, added, a)), Mat4::IDENTITY),
            // Unanimated joints between: their turn at rest is known (each track carries its parent's model rest
            // rotation), their offsets are not (formats keep a parent's rest origin for the hips only).
            Some((a, false)) => {
                let p = self.add(clip, by_path, added, a);
                let at = &clip.tracks[a].target;
                let ancestor_rest = at.parent_rest_rotation * at.rest.rotation;
                let turn = ancestor_rest.inverse() * target.parent_rest_rotation;
                (Some(p), Mat4::from_quat(turn.normalize()))
            }
            None => (
                None,
                Mat4::from_scale_rotation_translation(
                    Vec3::splat(target.parent_rest_scale),
                    target.parent_rest_rotation,
                    target.parent_rest_origin,
                ),
            ),
        };
        self.tracks.push(clip.tracks[index].clone());
        self.joints.push(SourceJoint {
            track: self.tracks.len() - 1,
            parent,
            frame,
            lost: false,
        });
        let j = self.joints.len() - 1;
        added.insert(index, j);
        j
    }

    /// The model matrices of every joint read, at `time`.
    fn pose(&self, time: f32, state: SourceState, out: &mut Vec<Mat4>) {
        out.clear();
        for joint in &self.joints {
            let track = &self.tracks[joint.track];
            let rest = track.target.rest;
            let still =
                state == SourceState::Rest || (state == SourceState::AsFollowed && joint.lost);
            let local = if still {
                rest
            } else {
                Transform {
                    translation: track
                        .translation
                        .as_ref()
                        .map_or(rest.translation, |k| k.sample(time).into()),
                    rotation: track
                        .rotation
                        .as_ref()
                        .map_or(rest.rotation, |k| k.sample(time)),
                    scale: track
                        .scale
                        .as_ref()
                        .map_or(rest.scale, |k| k.sample(time).into()),
                }
            };
            let parent = match joint.parent {
                Some(p) => out[p] * joint.frame,
                None => joint.frame,
            };
            out.push(compose(&parent, &local));
        }
    }
}

fn at(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// Scratch the layer reuses between calls (model matrices of the target and of the source as read).
#[derive(Clone, Debug, Default)]
pub struct IkGoalsScratch {
    model: Vec<Mat4>,
    followed: Vec<Mat4>,
    animated: Vec<Mat4>,
}

/// The goals bound for one clip on one character.
#[derive(Clone, Debug)]
pub struct IkGoalsRig {
    settings: IkGoals,
    skeleton: Skeleton,
    body: SourceBody,
    source_hips: usize,
    hips: usize,
    /// From the source's facing to the target's.
    facing: Quat,
    /// Target rest hips height over the source's: how the retarget scales the hips' motion.
    hips_ratio: f32,
    /// The target hips' model rest rotation.
    hips_rest: Quat,
    limbs: Vec<Limb>,
    duration: f32,
    looping: bool,
    /// How far the target's world moves in one cycle of a looping clip.
    cycle_shift: Vec3,
    has_lost: bool,
}

/// The bones of each side of a chain: upper, middle and end, and the end's contact point when it has one (the
/// toes, as the skate meter's).
fn bones(chain: Chain) -> [([HumanBone; 3], Option<HumanBone>); 2] {
    use HumanBone::*;
    match chain {
        Chain::Feet => [
            ([LeftUpperLeg, LeftLowerLeg, LeftFoot], Some(LeftToes)),
            ([RightUpperLeg, RightLowerLeg, RightFoot], Some(RightToes)),
        ],
        Chain::Hands => [
            ([LeftUpperArm, LeftLowerArm, LeftHand], None),
            ([RightUpperArm, RightLowerArm, RightHand], None),
        ],
    }
}

/// A source offset from the hips (turned to the target's facing) at the target's size: across the ground by the
/// hips' ratio, as the retarget scales the hips' travel, so that a foot planted under the source stays planted
/// under the target; up by the limb's length ratio.
fn stride(offset: Vec3, hips_ratio: f32, limb_ratio: f32) -> Vec3 {
    Vec3::new(
        offset.x * hips_ratio,
        offset.y * limb_ratio,
        offset.z * hips_ratio,
    )
}

/// The turn about +Y of a hips' model rotation away from its rest rotation (read from its sideways axis, which
/// keeps a heading when the body pitches).
fn heading(rotation: Quat, rest: Quat) -> Quat {
    let right = (rotation * rest.inverse()) * Vec3::X;
    if right.x.abs() + right.z.abs() < 1e-6 {
        return Quat::IDENTITY;
    }
    Quat::from_rotation_y((-right.z).atan2(right.x))
}

impl IkGoalsRig {
    /// Binds the character's goals ([`crate::core::HumanoidMap::ik_goals`]) for `clip` (folded and bound as
    /// every player binds it: [`crate::core::fold::bind_folding`]). `sample_target` writes the clip's retargeted
    /// pose at a time into a local pose (it starts at rest): the plants' pins are placed from it. Errs naming what
    /// is missing: a bone on either rig, or the clip's rests.
    pub fn bind(
        character: &Character,
        clip: &Clip,
        mut sample_target: impl FnMut(f32, &mut [Transform]),
    ) -> Result<Self, String> {
        let settings = character.humanoid.ik_goals;
        let skeleton = &character.skeleton;
        let map = &character.humanoid;
        let (clip, binding) = crate::core::fold::bind_folding(clip, skeleton, Some(map));
        let clip: &Clip = &clip;
        let by_path: HashMap<&str, usize> = clip
            .tracks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.target.rest_known)
            .map(|(i, t)| (t.target.path.as_str(), i))
            .collect();
        let track_of = |bone: HumanBone| {
            clip.tracks
                .iter()
                .position(|t| t.target.human_bone == Some(bone) && t.target.rest_known)
                .ok_or_else(|| {
                    if clip.tracks.iter().any(|t| t.target.human_bone == Some(bone)) {
                        format!(
                            "clip '{}' carries no rest pose for its {} (its format does not keep one)",
                            clip.name,
                            bone.name()
                        )
                    } else {
                        format!("clip '{}' has no {} track", clip.name, bone.name())
                    }
                })
        };
        let joint_of = |bone: HumanBone| {
            map.joint(bone)
                .ok_or_else(|| format!("the character has no {} mapped", bone.name()))
        };
        let mut body = SourceBody::default();
        let mut added = HashMap::new();
        let hips_track = track_of(HumanBone::Hips)?;
        let source_hips = body.add(clip, &by_path, &mut added, hips_track);
        let hips = joint_of(HumanBone::Hips)?;
        // The hips' animated ancestors that bound to nothing carry travel the target does not get.
        let mut up = body.joints[source_hips].parent;
        while let Some(j) = up {
            let original = added.iter().find(|(_, v)| **v == j).map(|(k, _)| *k);
            if original.is_some_and(|o| binding.tracks.get(o).is_some_and(Option::is_none)) {
                body.joints[j].lost = true;
            }
            up = body.joints[j].parent;
        }
        let has_lost = body.joints.iter().any(|j| j.lost);

        let mut rest_model = vec![Mat4::IDENTITY; skeleton.len()];
        LocalToModelJob::all(skeleton, skeleton.rest(), &mut rest_model)
            .run()
            .map_err(|e| format!("the rest pose cannot be placed: {e}"))?;
        let facing = crate::core::binding::facing_alignment(clip, Some(map), &rest_model);
        let source_height = clip.tracks[hips_track].target.rest_height;
        let hips_ratio = if source_height.abs() > 1e-6 {
            at(&rest_model[hips]).y / source_height
        } else {
            1.0
        };

        let mut limbs = Vec::new();
        for (chain, goal) in [(Chain::Feet, settings.feet), (Chain::Hands, settings.hands)] {
            if !goal.enabled {
                continue;
            }
            for ([upper, lower, end], toes) in bones(chain) {
                let source = [upper, lower, end]
                    .map(track_of)
                    .into_iter()
                    .collect::<Result<Vec<_>, _>>()?
                    .into_iter()
                    .map(|t| body.add(clip, &by_path, &mut added, t))
                    .collect::<Vec<_>>();
                let [hip, knee, ankle] = [joint_of(upper)?, joint_of(lower)?, joint_of(end)?];
                if !skeleton.is_ancestor_or_self(hip, knee)
                    || !skeleton.is_ancestor_or_self(knee, ankle)
                    || !skeleton.is_ancestor_or_self(hips, hip)
                {
                    return Err(format!(
                        "the character's {} is not above its {} and {}, under the hips",
                        upper.name(),
                        lower.name(),
                        end.name()
                    ));
                }
                let side = match chain {
                    Chain::Feet => Vec3::Z,
                    Chain::Hands => Vec3::NEG_Z,
                };
                // The contact point is the toes when both rigs have them below the ankle.
                let contacts = toes.and_then(|b| {
                    let target = map
                        .joint(b)
                        .filter(|&j| skeleton.is_ancestor_or_self(ankle, j))?;
                    let source = track_of(b).ok()?;
                    Some((target, body.add(clip, &by_path, &mut added, source)))
                });
                let (contact, source_contact) = contacts.unwrap_or((ankle, source[2]));
                let rig = LegRig {
                    foot_bone: end,
                    hip,
                    knee,
                    ankle,
                    contact,
                    mid_axis: hinge_axis(&rest_model, hip, knee, ankle, side),
                    pole: rest_pole(&rest_model, hip, side),
                    one_sided: chain == Chain::Feet,
                };
                limbs.push(Limb {
                    chain,
                    rig,
                    source: [source[0], source[1], source[2], source_contact],
                    ratio: 1.0,
                    stance: Vec3::ZERO,
                    plants: Vec::new(),
                });
            }
        }
        let mut source_rest = Vec::new();
        body.pose(0.0, SourceState::Rest, &mut source_rest);
        for limb in &mut limbs {
            let [u, l, e, _] = limb.source.map(|j| at(&source_rest[j]));
            let source_length = (l - u).length() + (e - l).length();
            let target_length = leg_length(&rest_model, &limb.rig);
            if !(source_length > 1e-6 && target_length.is_finite()) {
                return Err(format!(
                    "clip '{}' has a {} of no length at rest",
                    clip.name,
                    limb.rig.foot_bone.name()
                ));
            }
            limb.ratio = target_length / source_length;
            let [sc, sh] = [limb.source[3], source_hips].map(|j| at(&source_rest[j]));
            let [tc, th] = [limb.rig.contact, hips].map(|j| at(&rest_model[j]));
            limb.stance = (tc - th) - stride(facing * (sc - sh), hips_ratio, limb.ratio);
        }
        let mut rig = IkGoalsRig {
            settings,
            skeleton: skeleton.clone(),
            body,
            source_hips,
            hips,
            facing,
            hips_ratio,
            hips_rest: rest_model[hips].to_scale_rotation_translation().1,
            limbs,
            duration: clip.duration.max(0.0),
            looping: clip.looping,
            cycle_shift: Vec3::ZERO,
            has_lost,
        };
        rig.find_plants(&mut sample_target);
        Ok(rig)
    }
}

/// What the goals do on one limb, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LimbReport {
    /// The chain it belongs to.
    pub chain: Chain,
    /// Its end bone (LeftFoot, RightHand…).
    pub bone: HumanBone,
    /// Target chain length over the source's.
    pub length_ratio: f32,
    /// Its plants over the clip.
    pub plants: Vec<Plant>,
}

/// What the goals bound for a clip do, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IkGoalsReport {
    /// Each limb reaching for a goal.
    pub limbs: Vec<LimbReport>,
    /// Target rest hips height over the source's (how the hips' motion scales).
    pub hips_ratio: f32,
    /// Whether the source travels on joints the target lacks (its plants then stand on a treadmill).
    pub travel_on_treadmill: bool,
}

impl IkGoalsReport {
    /// One line: the limbs, their length ratios and how many plants each has.
    pub fn brief(&self) -> String {
        let limbs: Vec<String> = self
            .limbs
            .iter()
            .map(|l| {
                format!(
                    "{} ×{:.2}, {} plant{}",
                    l.bone.name(),
                    l.length_ratio,
                    l.plants.len(),
                    if l.plants.len() == 1 { "" } else { "s" }
                )
            })
            .collect();
        format!("IK goals: {}", limbs.join("; "))
    }
}

impl IkGoalsRig {
    fn goal_of(&self, chain: Chain) -> ChainGoal {
        match chain {
            Chain::Feet => self.settings.feet,
            Chain::Hands => self.settings.hands,
        }
    }

    /// What the goals do on this clip.
    pub fn report(&self) -> IkGoalsReport {
        IkGoalsReport {
            limbs: self
                .limbs
                .iter()
                .map(|l| LimbReport {
                    chain: l.chain,
                    bone: l.rig.foot_bone,
                    length_ratio: l.ratio,
                    plants: l.plants.clone(),
                })
                .collect(),
            hips_ratio: self.hips_ratio,
            travel_on_treadmill: self.has_lost,
        }
    }

    /// Poses the source at `time` as the target follows it (into the scratch) and returns the travel the target
    /// lacks there, in the target's model space.
    fn source_at(&self, time: f32, scratch: &mut IkGoalsScratch) -> Vec3 {
        self.body
            .pose(time, SourceState::AsFollowed, &mut scratch.followed);
        if !self.has_lost {
            return Vec3::ZERO;
        }
        self.body
            .pose(time, SourceState::Animated, &mut scratch.animated);
        let h = self.source_hips;
        self.facing * (at(&scratch.animated[h]) - at(&scratch.followed[h])) * self.hips_ratio
    }

    /// The contact point's goal before planting: the source's contact point relative to its hips, turned and
    /// scaled, put on the target's hips (`hips`, model space) with the target's stance; pulled towards the source's
    /// own position by `blend_to_source`.
    fn moving_goal(&self, limb: &Limb, followed: &[Mat4], hips: &Mat4) -> Vec3 {
        let c = at(&followed[limb.source[3]]);
        let h = at(&followed[self.source_hips]);
        let (_, rotation, position) = hips.to_scale_rotation_translation();
        let stance = heading(rotation, self.hips_rest) * limb.stance;
        let scaled = position + stance + stride(self.facing * (c - h), self.hips_ratio, limb.ratio);
        scaled.lerp(self.facing * c, self.goal_of(limb.chain).blend_to_source)
    }

    /// The pin holding `limb` at clip time `t` and its weight (1 in a plant, easing to 0 over the release), in the
    /// target's world of the cycle `t` is in.
    fn plant_at(&self, limb: &Limb, t: f32) -> Option<(f32, Vec3)> {
        let release = self.settings.plant_release_s;
        let wraps = if self.looping && self.duration > 0.0 {
            2
        } else {
            1
        };
        let candidates = [(t, Vec3::ZERO), (t + self.duration, self.cycle_shift)];
        let mut best: Option<(f32, Vec3)> = None;
        for &(u, shift) in &candidates[..wraps] {
            for p in &limb.plants {
                if u < p.start_s || u > p.end_s + release {
                    continue;
                }
                let w = if u <= p.end_s {
                    1.0
                } else {
                    let x = 1.0 - (u - p.end_s) / release;
                    x * x * (3.0 - 2.0 * x)
                };
                if best.is_none_or(|(b, _)| w > b) {
                    best = Some((w, p.pin - shift));
                }
            }
        }
        best
    }

    /// The contact point's goal of `limb` at `t`, planting included (`lost`: the travel the target lacks at `t`).
    fn goal(&self, limb: &Limb, t: f32, followed: &[Mat4], hips: &Mat4, lost: Vec3) -> Vec3 {
        let moving = self.moving_goal(limb, followed, hips);
        match self.plant_at(limb, t) {
            // Pinned across the ground; its height follows the source (a heel landing, a toe rolling off).
            Some((w, pin)) => {
                let pinned = pin - lost;
                moving.lerp(Vec3::new(pinned.x, moving.y, pinned.z), w)
            }
            None => moving,
        }
    }

    /// Finds each planted limb's plants over the clip and pins them where their goals stand when they begin.
    fn find_plants(&mut self, sample_target: &mut impl FnMut(f32, &mut [Transform])) {
        let d = self.duration;
        let skeleton = &self.skeleton.clone();
        let mut local = skeleton.rest().to_vec();
        let mut model = vec![Mat4::IDENTITY; skeleton.len()];
        let mut scratch = IkGoalsScratch::default();
        // The target's hips (model space) and the travel it lacks, at a time; the source as followed is left in
        // the scratch.
        let mut target_at = |rig: &Self, t: f32, scratch: &mut IkGoalsScratch| {
            local.copy_from_slice(skeleton.rest());
            sample_target(t, &mut local);
            let hips = match LocalToModelJob::all(skeleton, &local, &mut model).run() {
                Ok(()) => model[rig.hips],
                Err(_) => Mat4::IDENTITY,
            };
            (hips, rig.source_at(t, scratch))
        };
        if self.looping && d > 0.0 {
            let (h0, l0) = target_at(self, 0.0, &mut scratch);
            let (h1, l1) = target_at(self, d, &mut scratch);
            self.cycle_shift = (at(&h1) + l1) - (at(&h0) + l0);
        }
        let planted: Vec<usize> = (0..self.limbs.len())
            .filter(|&l| self.goal_of(self.limbs[l].chain).plant)
            .collect();
        if planted.is_empty() || d <= 0.0 {
            return;
        }
        let n = ((d * PLANT_FPS).ceil() as usize + 1).clamp(3, MAX_PLANT_SAMPLES);
        let step = d / (n - 1) as f32;
        let mut positions = vec![Vec::with_capacity(n); planted.len()];
        for i in 0..n {
            self.body.pose(
                i as f32 * step,
                SourceState::Animated,
                &mut scratch.animated,
            );
            for (k, &l) in planted.iter().enumerate() {
                positions[k].push(at(&scratch.animated[self.limbs[l].source[3]]));
            }
        }
        let threshold = self.settings.plant_speed_m_s;
        for (k, &l) in planted.iter().enumerate() {
            let p = &positions[k];
            // Across the ground, as the skate meter reads a slide.
            let slow = |i: usize| {
                let (a, b) = (i.saturating_sub(1), (i + 1).min(n - 1));
                let d = p[b] - p[a];
                Vec3::new(d.x, 0.0, d.z).length() / ((b - a) as f32 * step) < threshold
            };
            let mut runs = Vec::new();
            let mut start = None;
            for i in 0..=n {
                match (start, i < n && slow(i)) {
                    (None, true) => start = Some(i),
                    (Some(s), false) => {
                        if i - s >= 2 {
                            runs.push((s, i - 1));
                        }
                        start = None;
                    }
                    _ => {}
                }
            }
            let mut plants: Vec<Plant> = runs
                .into_iter()
                .map(|(s, e)| Plant {
                    start_s: s as f32 * step,
                    end_s: e as f32 * step,
                    pin: Vec3::ZERO,
                })
                .collect();
            // A plant across a loop's seam is one plant: the one ending at the clip's end carries on.
            if self.looping && plants.len() >= 2 {
                let first = plants[0];
                let last = plants.len() - 1;
                if first.start_s <= 0.0 && plants[last].end_s >= d - step * 0.5 {
                    plants[last].end_s = d + first.end_s;
                    plants.remove(0);
                }
            }
            self.limbs[l].plants = plants;
            // Each plant pins its goal where it is drawn as it begins, the pull of the other pins still fading
            // included (a loop's seam plant fades into the clip's start), so that nothing jumps: twice over, as
            // the seam plant's pin is drawn after the plants its release reaches.
            for _ in 0..2 {
                for k in 0..self.limbs[l].plants.len() {
                    let start = self.limbs[l].plants[k].start_s;
                    self.limbs[l].plants[k].start_s = f32::INFINITY;
                    let (hips, lost) = target_at(self, start, &mut scratch);
                    let drawn = self.goal(&self.limbs[l], start, &scratch.followed, &hips, lost);
                    let plant = &mut self.limbs[l].plants[k];
                    plant.start_s = start;
                    plant.pin = drawn + lost;
                }
            }
        }
    }

    /// Takes each limb of `local` (the clip's retargeted pose at clip time `time`) to its goal. Allocates nothing
    /// once the scratch has its size.
    pub fn apply(&self, time: f32, local: &mut [Transform], scratch: &mut IkGoalsScratch) {
        let skeleton = &self.skeleton;
        if self.limbs.is_empty() || local.len() != skeleton.len() {
            return;
        }
        let t = time.clamp(0.0, self.duration);
        let mut model = std::mem::take(&mut scratch.model);
        model.resize(skeleton.len(), Mat4::IDENTITY);
        if LocalToModelJob::all(skeleton, local, &mut model)
            .run()
            .is_ok()
        {
            self.reach(t, skeleton, local, &mut model, scratch);
        }
        scratch.model = model;
    }

    fn reach(
        &self,
        t: f32,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut [Mat4],
        scratch: &mut IkGoalsScratch,
    ) {
        let lost = self.source_at(t, scratch);
        // Each ankle's target: the contact point's goal less the contact's offset from the ankle (the foot keeps
        // its model rotation, so the contact point lands on its goal).
        let ankle_target = |limb: &Limb, goal: Vec3, model: &[Mat4]| {
            goal - (at(&model[limb.rig.contact]) - at(&model[limb.rig.ankle]))
        };
        let mut goals = [None; 4];
        let mut drop = 0.0f32;
        let hips = model[self.hips];
        for (i, limb) in self.limbs.iter().enumerate().take(4) {
            if limb.chain != Chain::Feet {
                continue;
            }
            let target = ankle_target(
                limb,
                self.goal(limb, t, &scratch.followed, &hips, lost),
                model,
            );
            if self.settings.adjust_hips {
                let length = leg_length(model, &limb.rig);
                let need = drop_to_reach(at(&model[limb.rig.hip]), target, MAX_REACH * length);
                drop = drop.max(need.min(MAX_HIPS_DROP_SHARE * length));
            }
            goals[i] = Some(target);
        }
        if drop > 0.0 {
            lower_hips(skeleton, self.hips, drop, local, model);
        }
        let hips = model[self.hips];
        for (i, limb) in self.limbs.iter().enumerate().take(4) {
            if limb.chain == Chain::Hands {
                let goal = self.goal(limb, t, &scratch.followed, &hips, lost);
                goals[i] = Some(ankle_target(limb, goal, model));
            }
        }
        for (limb, goal) in self.limbs.iter().zip(goals) {
            if let Some(goal) = goal.filter(|g| g.is_finite()) {
                solve_leg(skeleton, &limb.rig, goal, local, model);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::metric::max_vertex_error;
    use crate::offline::frames::sample_frames;

    fn quaternius() -> crate::import::ImportedModel {
        crate::import::load_file(&crate::test_support::quaternius()).unwrap()
    }

    fn clip<'a>(model: &'a crate::import::ImportedModel, name: &str) -> &'a Clip {
        model.clips.iter().find(|c| c.name == name).unwrap()
    }

    /// Model matrices of `clip` on `character` at `times`, as the Evaluator plays it.
    fn played(character: &Character, clip: &Clip, times: &[f32]) -> Vec<Vec<Mat4>> {
        sample_frames(
            clip,
            &character.skeleton,
            Some(&character.humanoid),
            times.to_vec(),
        )
        .poses
        .iter()
        .map(|p| p.model_matrices(&character.skeleton))
        .collect()
    }

    fn goals(chains: &str) -> IkGoals {
        IkGoals::parse_chains(chains).unwrap()
    }

    #[test]
    fn on_the_source_rig_the_goals_change_nothing() {
        // Ratios 1, no stance to keep, the goals where the clip's own feet and hands are: the legs and arms
        // solve back to their poses (planting off: a pin would hold what the clip lets slide), but for the tie a
        // nearly straight arm's side breaks (a tenth of a millimetre).
        let q = quaternius();
        let walk = clip(&q, "Walk_Loop");
        let mut with = q.character.clone();
        with.humanoid.ik_goals = goals("feet,hands");
        with.humanoid.ik_goals.feet.plant = false;
        let times: Vec<f32> = (0..12).map(|i| walk.duration * i as f32 / 12.0).collect();
        let plain = played(&q.character, walk, &times);
        let reached = played(&with, walk, &times);
        for (a, b) in plain.iter().zip(&reached) {
            let cm = max_vertex_error(a, b) * 100.0;

            assert!(cm < 0.02, "{cm} cm");
        }
    }

    #[test]
    fn the_contact_points_land_on_the_source_positions_with_blend_to_source() {
        // Blend to source 1: each foot's toes go where the source's toes are (turned to the target's facing),
        // wherever the mannequin's legs reach them.
        let q = quaternius();
        let walk = clip(&q, "Walk_Loop");
        let mut m = crate::demo::mannequin::load().character;
        let mut g = goals("feet");
        g.feet.blend_to_source = 1.0;
        g.feet.plant = false;
        m.humanoid.ik_goals = g;
        let rig = IkGoalsRig::bind(&m, walk, |_, _| {}).unwrap();
        let mut scratch = IkGoalsScratch::default();
        let times: Vec<f32> = (0..8).map(|i| walk.duration * i as f32 / 8.0).collect();
        let models = played(&m, walk, &times);
        let mut checked = 0;
        for (&t, model) in times.iter().zip(&models) {
            rig.source_at(t, &mut scratch);
            for limb in &rig.limbs {
                let goal = rig.moving_goal(limb, &scratch.followed, &model[rig.hips]);
                let hip = at(&model[limb.rig.hip]);
                let reach = leg_length(model, &limb.rig) * 0.99;
                let ankle_goal = goal - (at(&model[limb.rig.contact]) - at(&model[limb.rig.ankle]));
                if (ankle_goal - hip).length() > reach {
                    continue;
                }
                let off = (at(&model[limb.rig.contact]) - goal).length();
                assert!(off < 1e-3, "{:?} at {t}: {off} m", limb.rig.foot_bone);
                checked += 1;
            }
        }
        assert!(checked >= 8, "only {checked} reachable goals");
    }

    #[test]
    fn plants_begin_and_end_without_a_jump() {
        // The in-place walk's feet slide back at its pace: a plant speed above it plants every stance, so
        // pins begin and release; sampled every millisecond, no joint jumps.
        let q = quaternius();
        let walk = clip(&q, "Walk_Loop");
        let mut m = crate::demo::mannequin::load().character;
        let mut g = goals("feet");
        g.plant_speed_m_s = 2.0;
        m.humanoid.ik_goals = g;
        let report = crate::offline::goal_keys::goals_report(&m, walk).unwrap();
        let plants: usize = report.limbs.iter().map(|l| l.plants.len()).sum();
        assert!(plants >= 2, "{report:?}");
        let times: Vec<f32> = (0..=(walk.duration * 1000.0) as usize)
            .map(|i| i as f32 / 1000.0)
            .collect();
        let models = played(&m, walk, &times);
        for (k, pair) in models.windows(2).enumerate() {
            // 5 m/s at the 3 cm points is 0.5 cm in a millisecond: a limb's fastest swing, not a jump.
            let cm = max_vertex_error(&pair[0], &pair[1]) * 100.0;
            assert!(cm < 0.5, "{cm} cm between {} and {} ms", k, k + 1);
        }
    }

    #[test]
    fn goals_name_what_they_lack() {
        let q = quaternius();
        let walk = clip(&q, "Walk_Loop");
        let mut m = crate::demo::mannequin::load().character;
        m.humanoid.ik_goals = goals("feet");
        let mut bare = walk.clone();
        bare.tracks
            .retain(|t| t.target.human_bone != Some(HumanBone::LeftFoot));
        let e = IkGoalsRig::bind(&m, &bare, |_, _| {}).unwrap_err();
        assert!(e.contains("LeftFoot"), "{e}");
        let mut unity = walk.clone();
        for t in &mut unity.tracks {
            t.target.rest_known = false;
        }
        let e = IkGoalsRig::bind(&m, &unity, |_, _| {}).unwrap_err();
        assert!(e.contains("rest pose"), "{e}");
    }
}

#[cfg(test)]
mod hand_tests {
    use super::*;

    /// The mean speed (cm/s, 60 fps) of each planted hand's wrist inside its plants (their first and last 50 ms
    /// aside), as `character` plays `clip`.
    fn planted_hand_speeds(character: &Character, clip: &Clip, report: &IkGoalsReport) -> Vec<f32> {
        let n = (clip.duration * 60.0) as usize;
        let times: Vec<f32> = (0..=n).map(|i| i as f32 / 60.0).collect();
        let c = character;
        let frames = crate::offline::frames::sample_frames(
            clip,
            &c.skeleton,
            Some(&c.humanoid),
            times.clone(),
        );
        let models: Vec<Vec<Mat4>> = frames
            .poses
            .iter()
            .map(|p| p.model_matrices(&c.skeleton))
            .collect();
        report
            .limbs
            .iter()
            .map(|limb| {
                let j = c.humanoid.joint(limb.bone).unwrap();
                let (mut sum, mut count) = (0.0, 0);
                for p in &limb.plants {
                    for i in 1..models.len() {
                        if times[i] > p.start_s + 0.05
                            && times[i] < p.end_s.min(clip.duration) - 0.05
                        {
                            sum += at(&models[i][j]).distance(at(&models[i - 1][j])) * 6000.0;
                            count += 1;
                        }
                    }
                }
                assert!(count > 0, "{:?} has no planted frames", limb.bone);
                sum / count as f32
            })
            .collect()
    }

    #[test]
    fn hands_on_a_push_bar_and_a_wheel_stay_there_on_another_character() {
        // Quaternius's Push_Loop and Driving_Loop hold their hands on a bar and a wheel; copied by rotations onto
        // CesiumMan (arms 0.65 of theirs) the wrists wander; with planted hand goals they hold.
        let q = crate::import::load_file(&crate::test_support::quaternius()).unwrap();
        let cesium =
            crate::import::load_file(&crate::test_support::asset("CesiumMan.glb")).unwrap();
        for name in ["Push_Loop", "Driving_Loop"] {
            let clip = q.clips.iter().find(|c| c.name == name).unwrap();
            let mut with = cesium.character.clone();
            let mut g = IkGoals::parse_chains("hands").unwrap();
            g.hands.plant = true;
            with.humanoid.ik_goals = g;
            let report = crate::offline::goal_keys::goals_report(&with, clip).unwrap();
            let fk = planted_hand_speeds(&cesium.character, clip, &report);
            let goals = planted_hand_speeds(&with, clip, &report);
            for (f, g) in fk.iter().zip(&goals) {
                assert!(
                    *g <= 2.0 && *f > 1.0 && *f > 2.0 * g,
                    "{name}: FK {f} cm/s, goals {g} cm/s"
                );
            }
        }
    }
}
