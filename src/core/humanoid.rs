//! Humanoid mapping: which joint of a rig plays which Unity humanoid bone, and where twist joints are.

use std::collections::{BTreeMap, HashMap};

use glam::Vec3;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use super::human_bone::{BodyPart, Finger, HumanBone, Side};
use super::naming::{self, NameGuess};
use super::pose::Pose;
use super::skeleton::Skeleton;

/// Where a humanoid mapping came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MappingSource {
    /// The VRM 1.0 `VRMC_vrm.humanoid` table (or a VRMA's `VRMC_vrm_animation.humanoid`).
    Vrm1,
    /// The VRM 0.x `VRM.humanoid` table.
    Vrm0,
    /// Joint name conventions.
    Names,
    /// The shape of the joint hierarchy.
    Hierarchy,
    /// A user override on top of one of the above.
    Override,
    /// Nothing found.
    None,
}

impl MappingSource {
    /// Lowercase name as the CLI prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            MappingSource::Vrm1 => "vrm1",
            MappingSource::Vrm0 => "vrm0",
            MappingSource::Names => "names",
            MappingSource::Hierarchy => "hierarchy",
            MappingSource::Override => "override",
            MappingSource::None => "none",
        }
    }
}

/// A problem with a user override of the humanoid mapping.
#[derive(Debug, Error, PartialEq)]
pub enum HumanoidError {
    /// The override names a joint the skeleton does not have.
    #[error("humanoid override maps {bone} to joint '{joint}', which the skeleton does not have")]
    UnknownJoint {
        /// The human bone.
        bone: String,
        /// The joint name given.
        joint: String,
    },
}

/// Human bone → joint for one skeleton, with what is missing and what looks wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanoidMap {
    /// Where the mapping came from.
    pub source: MappingSource,
    bones: BTreeMap<HumanBone, usize>,
    /// Required bones that no joint plays.
    pub missing_required: Vec<HumanBone>,
    /// Reasons the rig cannot be used as a humanoid, beyond missing bones.
    pub problems: Vec<String>,
    /// Things that look odd but do not stop the mapping from being used.
    pub warnings: Vec<String>,
}

/// Twist joints found between a humanoid parent bone and its child.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TwistChain {
    /// The upper bone of the pair.
    pub parent: HumanBone,
    /// The lower bone of the pair.
    pub child: HumanBone,
    /// Non-human joints between them, from the parent down.
    pub joints: Vec<usize>,
}

impl HumanoidMap {
    /// A mapping with no bones.
    pub fn empty() -> Self {
        let mut m = HumanoidMap {
            source: MappingSource::None,
            bones: BTreeMap::new(),
            missing_required: Vec::new(),
            problems: Vec::new(),
            warnings: Vec::new(),
        };
        m.missing_required = HumanBone::required().collect();
        m
    }

    /// A mapping read from a table (VRM); later entries for one bone are reported and ignored.
    pub fn from_table(
        source: MappingSource,
        entries: &[(HumanBone, usize)],
        skeleton: &Skeleton,
    ) -> Self {
        let mut map = HumanoidMap::empty();
        map.source = source;
        for &(bone, joint) in entries {
            if let Some(&first) = map.bones.get(&bone) {
                map.warnings.push(format!(
                    "{} is listed twice (joints '{}' and '{}'); the first is used",
                    bone.name(),
                    skeleton.name(first),
                    skeleton.name(joint)
                ));
                continue;
            }
            map.bones.insert(bone, joint);
        }
        map.finish(skeleton);
        map
    }

    /// Detects the mapping from names, else from the hierarchy; the more complete one wins.
    pub fn detect(skeleton: &Skeleton) -> Self {
        let by_names = HumanoidMap::from_names(skeleton);
        if by_names.missing_required.is_empty() {
            return by_names;
        }
        let by_shape = HumanoidMap::from_hierarchy(skeleton);
        if by_shape.missing_required.is_empty() || by_shape.bones.len() > by_names.bones.len() {
            by_shape
        } else {
            by_names
        }
    }

    /// Maps by joint-name conventions.
    pub fn from_names(skeleton: &Skeleton) -> Self {
        let positions = rest_positions(skeleton);
        let side_of = |j: usize| {
            if positions[j].x >= 0.0 {
                Side::Left
            } else {
                Side::Right
            }
        };
        let guesses: Vec<Option<NameGuess>> = (0..skeleton.len())
            .map(|j| {
                if !skeleton.deforms(j) {
                    return None;
                }
                naming::guess(skeleton.name(j)).map(|mut g| {
                    if g.part.is_sided() && g.side.is_none() {
                        g.side = Some(side_of(j));
                    }
                    g
                })
            })
            .collect();

        let mut bones = BTreeMap::new();
        // Simple parts: the candidate highest in the hierarchy wins (a second "upper_arm.L.001" is a twist segment).
        let mut simple: HashMap<HumanBone, Vec<usize>> = HashMap::new();
        for (j, g) in guesses.iter().enumerate() {
            if let Some(g) = g
                && let Some(bone) = g.part.bone(g.side)
            {
                simple.entry(bone).or_default().push(j);
            }
        }
        for (bone, mut joints) in simple {
            joints.sort_by_key(|&j| {
                let weak = guesses[j].is_some_and(|g| g.weak);
                let leads_to_middle = subtree_has_word(skeleton, j, &["middle", "mid"]);
                (weak, !leads_to_middle, skeleton.depth(j), j)
            });
            bones.insert(bone, joints[0]);
        }

        // Spine chain: joints between hips and neck, in depth order → Spine, Chest, UpperChest.
        let hips = bones.get(&HumanBone::Hips).copied();
        let mut spine: Vec<usize> = guesses
            .iter()
            .enumerate()
            .filter(|(j, g)| {
                g.is_some_and(|g| g.part == BodyPart::SpineChain)
                    && hips.is_none_or(|h| h != *j && skeleton.is_ancestor_or_self(h, *j))
            })
            .map(|(j, _)| j)
            .collect();
        spine.sort_by_key(|&j| (skeleton.depth(j), j));
        assign_chain(
            &mut bones,
            &spine,
            &[HumanBone::Spine, HumanBone::Chest, HumanBone::UpperChest],
        );

        // Fingers: per side and finger, in depth order → Proximal, Intermediate, Distal.
        for side in [Side::Left, Side::Right] {
            for finger in [
                Finger::Thumb,
                Finger::Index,
                Finger::Middle,
                Finger::Ring,
                Finger::Little,
            ] {
                let mut joints: Vec<usize> = guesses
                    .iter()
                    .enumerate()
                    .filter(|(j, g)| {
                        g.is_some_and(|g| {
                            g.part == BodyPart::Finger(finger) && g.side == Some(side)
                        }) && (finger == Finger::Thumb
                            || !naming::words(skeleton.name(*j))
                                .iter()
                                .any(|w| w == "metacarpal"))
                    })
                    .map(|(j, _)| j)
                    .collect();
                joints.sort_by_key(|&j| (skeleton.depth(j), j));
                assign_chain(&mut bones, &joints, &finger_bones(side, finger));
            }
        }

        let mut map = HumanoidMap::empty();
        map.source = if bones.is_empty() {
            MappingSource::None
        } else {
            MappingSource::Names
        };
        map.bones = bones;
        map.finish(skeleton);
        map
    }

    /// Maps by the shape of the hierarchy: hips branch into two legs and a spine, the chest into two arms and a neck.
    pub fn from_hierarchy(skeleton: &Skeleton) -> Self {
        let mut map = HumanoidMap::empty();
        let positions = rest_positions(skeleton);
        if let Some(bones) = hierarchy::map(skeleton, &positions) {
            map.source = MappingSource::Hierarchy;
            map.bones = bones;
        }
        map.finish(skeleton);
        map
    }

    /// Applies a user override (human bone → joint name) on top of this mapping.
    pub fn with_override(
        mut self,
        overrides: &BTreeMap<HumanBone, String>,
        skeleton: &Skeleton,
    ) -> Result<Self, HumanoidError> {
        if overrides.is_empty() {
            return Ok(self);
        }
        for (bone, joint_name) in overrides {
            let joint =
                skeleton
                    .find_by_name(joint_name)
                    .ok_or_else(|| HumanoidError::UnknownJoint {
                        bone: bone.name().to_string(),
                        joint: joint_name.clone(),
                    })?;
            self.bones.retain(|_, j| *j != joint);
            self.bones.insert(*bone, joint);
        }
        self.source = MappingSource::Override;
        self.problems.clear();
        self.warnings.clear();
        self.finish(skeleton);
        Ok(self)
    }

    /// The joint that plays a bone.
    pub fn joint(&self, bone: HumanBone) -> Option<usize> {
        self.bones.get(&bone).copied()
    }

    /// The bone a joint plays, if any.
    pub fn bone_of(&self, joint: usize) -> Option<HumanBone> {
        self.bones
            .iter()
            .find(|(_, j)| **j == joint)
            .map(|(b, _)| *b)
    }

    /// Mapped bones with their joints, in Unity's bone order.
    pub fn bones(&self) -> impl Iterator<Item = (HumanBone, usize)> + '_ {
        self.bones.iter().map(|(b, j)| (*b, *j))
    }

    /// Number of mapped bones.
    pub fn len(&self) -> usize {
        self.bones.len()
    }

    /// True when no bone is mapped.
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }

    /// True when every required bone is mapped and the rig stands like a biped.
    pub fn is_humanoid(&self) -> bool {
        self.missing_required.is_empty() && self.problems.is_empty()
    }

    /// Joint per bone as a lookup table by joint index.
    pub fn bone_per_joint(&self, joint_count: usize) -> Vec<Option<HumanBone>> {
        let mut out = vec![None; joint_count];
        for (b, j) in self.bones() {
            if j < joint_count {
                out[j] = Some(b);
            }
        }
        out
    }

    /// The nearest mapped bone above `bone` in the humanoid hierarchy.
    pub fn mapped_parent(&self, bone: HumanBone) -> Option<HumanBone> {
        let mut cur = bone.parent();
        while let Some(b) = cur {
            if self.bones.contains_key(&b) {
                return Some(b);
            }
            cur = b.parent();
        }
        None
    }

    /// Twist joints: for each mapped (parent, child) pair, the non-human joints between them,
    /// plus non-human children of the parent named as twist/roll joints.
    pub fn twist_chains(&self, skeleton: &Skeleton) -> Vec<TwistChain> {
        let human = self.bone_per_joint(skeleton.len());
        let positions = rest_positions(skeleton);
        let mut out = Vec::new();
        for (child, child_joint) in self.bones() {
            let Some(parent) = self.mapped_parent(child) else {
                continue;
            };
            let Some(parent_joint) = self.joint(parent) else {
                continue;
            };
            let mut joints: Vec<usize> = skeleton
                .joints_between(parent_joint, child_joint)
                .unwrap_or_default()
                .into_iter()
                .filter(|&j| human[j].is_none() && skeleton.deforms(j))
                .collect();
            let on_path = |j: usize| skeleton.is_ancestor_or_self(j, child_joint);
            for c in skeleton.children(parent_joint) {
                let subtree_has_human = (c..skeleton.len())
                    .any(|k| human[k].is_some() && skeleton.is_ancestor_or_self(c, k));
                if !on_path(c) && !subtree_has_human && naming::is_twist_name(skeleton.name(c)) {
                    let side_ok = match child.side() {
                        Some(s) => naming::guess_side(skeleton.name(c)).is_none_or(|cs| cs == s),
                        None => true,
                    };
                    // A twist helper belongs to the child bone it points toward.
                    if side_ok && twist_points_toward(&positions, parent_joint, c, child_joint) {
                        joints.push(c);
                    }
                }
            }
            if !joints.is_empty() {
                out.push(TwistChain {
                    parent,
                    child,
                    joints,
                });
            }
        }
        out
    }

    fn finish(&mut self, skeleton: &Skeleton) {
        self.missing_required = HumanBone::required()
            .filter(|b| !self.bones.contains_key(b))
            .collect();
        let mut seen: HashMap<usize, HumanBone> = HashMap::new();
        let mapped: Vec<(HumanBone, usize)> = self.bones().collect();
        for &(b, j) in &mapped {
            if j >= skeleton.len() {
                self.problems.push(format!(
                    "{} points at joint {j}, which does not exist",
                    b.name()
                ));
                continue;
            }
            if let Some(other) = seen.insert(j, b) {
                self.problems.push(format!(
                    "joint '{}' plays both {} and {}",
                    skeleton.name(j),
                    other.name(),
                    b.name()
                ));
            }
        }
        self.bones.retain(|_, j| *j < skeleton.len());
        let mapped: Vec<(HumanBone, usize)> = self.bones().collect();
        for (b, j) in mapped {
            if let Some(p) = self.mapped_parent(b)
                && let Some(pj) = self.joint(p)
                && !skeleton.is_ancestor_or_self(pj, j)
            {
                self.warnings.push(format!(
                    "{} ('{}') is not below {} ('{}') in the hierarchy",
                    b.name(),
                    skeleton.name(j),
                    p.name(),
                    skeleton.name(pj)
                ));
            }
        }
        if let (Some(h), Some(head)) = (self.joint(HumanBone::Hips), self.joint(HumanBone::Head)) {
            let p = rest_positions(skeleton);
            let up = (p[head] - p[h]).normalize_or_zero();
            let angle = up.dot(Vec3::Y).clamp(-1.0, 1.0).acos().to_degrees();
            if angle > 45.0 {
                self.problems.push(format!(
                    "not a biped: the line from hips to head is {angle:.0}° away from up (+Y) in the rest pose"
                ));
            }
        }
    }
}

fn finger_bones(side: Side, finger: Finger) -> [HumanBone; 3] {
    let side = match side {
        Side::Left => "Left",
        Side::Right => "Right",
    };
    let finger = match finger {
        Finger::Thumb => "Thumb",
        Finger::Index => "Index",
        Finger::Middle => "Middle",
        Finger::Ring => "Ring",
        Finger::Little => "Little",
    };
    ["Proximal", "Intermediate", "Distal"].map(|seg| {
        HumanBone::from_name(&format!("{side}{finger}{seg}"))
            .expect("every finger segment is a HumanBone")
    })
}

/// Fills bones from a chain of joints: one joint → first bone, two → first two, three or more → first, second, last.
fn assign_chain(bones: &mut BTreeMap<HumanBone, usize>, chain: &[usize], slots: &[HumanBone; 3]) {
    let picks: Vec<usize> = match chain.len() {
        0 => vec![],
        1 => vec![chain[0]],
        2 => vec![chain[0], chain[1]],
        n => vec![chain[0], chain[1], chain[n - 1]],
    };
    for (slot, joint) in slots.iter().zip(picks) {
        bones.entry(*slot).or_insert(joint);
    }
}

fn subtree_has_word(skeleton: &Skeleton, joint: usize, words: &[&str]) -> bool {
    (joint..skeleton.len()).any(|k| {
        skeleton.is_ancestor_or_self(joint, k)
            && naming::words(skeleton.name(k))
                .iter()
                .any(|w| words.contains(&w.as_str()))
    })
}

fn twist_points_toward(p: &[Vec3], parent: usize, twist: usize, child: usize) -> bool {
    let to_twist = p[twist] - p[parent];
    let to_child = p[child] - p[parent];
    to_twist.length_squared() < 1e-12 || to_twist.dot(to_child) > 0.0
}

/// Model-space rest position of every joint.
pub fn rest_positions(skeleton: &Skeleton) -> Vec<Vec3> {
    Pose::rest(skeleton)
        .model_matrices(skeleton)
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect()
}

mod hierarchy {
    //! Humanoid mapping from the shape of the hierarchy alone.

    use super::*;

    struct Extent {
        low: f32,
        high: f32,
    }

    fn extent(skeleton: &Skeleton, p: &[Vec3], root: usize) -> Extent {
        let mut e = Extent {
            low: p[root].y,
            high: p[root].y,
        };
        for k in skeleton.subtree(root) {
            e.low = e.low.min(p[k].y);
            e.high = e.high.max(p[k].y);
        }
        e
    }

    fn is_end(skeleton: &Skeleton, j: usize) -> bool {
        !skeleton.deforms(j)
            || naming::words(skeleton.name(j))
                .iter()
                .any(|w| matches!(w.as_str(), "end" | "nub" | "tip" | "top"))
    }

    /// Follows single children down from `start` to the first joint that branches or ends.
    fn chain(skeleton: &Skeleton, start: usize) -> Vec<usize> {
        let mut out = vec![start];
        let mut cur = start;
        loop {
            let kids: Vec<usize> = skeleton
                .children(cur)
                .filter(|&c| !is_end(skeleton, c))
                .collect();
            if kids.len() != 1 {
                return out;
            }
            cur = kids[0];
            out.push(cur);
        }
    }

    /// Picks (first, middle, last): middle is the joint nearest halfway between first and last.
    fn limb(chain: &[usize], p: &[Vec3]) -> (usize, usize, usize) {
        let (a, z) = (chain[0], chain[chain.len() - 1]);
        let half = p[a].distance(p[z]) * 0.5;
        let mid = chain[1..chain.len() - 1]
            .iter()
            .copied()
            .min_by(|&x, &y| {
                let dx = (p[a].distance(p[x]) - half).abs();
                let dy = (p[a].distance(p[y]) - half).abs();
                dx.total_cmp(&dy)
            })
            .unwrap_or(chain[1]);
        (a, mid, z)
    }

    pub(super) fn map(skeleton: &Skeleton, p: &[Vec3]) -> Option<BTreeMap<HumanBone, usize>> {
        use HumanBone as H;
        let n = skeleton.len();
        let (low, high) = p
            .iter()
            .fold((f32::MAX, f32::MIN), |(l, h), v| (l.min(v.y), h.max(v.y)));
        let height = high - low;
        if n < 10 || height <= 0.0 {
            return None;
        }
        let reach = 0.25 * height;
        let branches = |j: usize| -> (Vec<usize>, Vec<usize>) {
            let mut down = Vec::new();
            let mut up = Vec::new();
            for c in skeleton.children(j).filter(|&c| skeleton.deforms(c)) {
                let e = extent(skeleton, p, c);
                if p[j].y - e.low > reach {
                    down.push(c);
                } else if e.high - p[j].y > reach {
                    up.push(c);
                }
            }
            (down, up)
        };
        let hips = (0..n).filter(|&j| skeleton.deforms(j)).find(|&j| {
            let (down, up) = branches(j);
            down.len() >= 2 && !up.is_empty()
        })?;
        let (mut legs, up) = branches(hips);
        legs.sort_by(|&a, &b| {
            extent(skeleton, p, a)
                .low
                .total_cmp(&extent(skeleton, p, b).low)
        });
        legs.truncate(2);
        let mut bones = BTreeMap::new();
        bones.insert(H::Hips, hips);

        for leg in legs {
            let c = chain(skeleton, leg);
            if c.len() < 3 {
                return None;
            }
            let left = p[leg].x >= p[hips].x;
            let (u, l, f, t) = if left {
                (H::LeftUpperLeg, H::LeftLowerLeg, H::LeftFoot, H::LeftToes)
            } else {
                (
                    H::RightUpperLeg,
                    H::RightLowerLeg,
                    H::RightFoot,
                    H::RightToes,
                )
            };
            let (foot_chain, toes) = if c.len() >= 4 {
                (&c[..c.len() - 1], c.last().copied())
            } else {
                (&c[..], None)
            };
            let (a, m, z) = limb(foot_chain, p);
            bones.insert(u, a);
            bones.insert(l, m);
            bones.insert(f, z);
            if let Some(toe_joint) = toes {
                bones.insert(t, toe_joint);
            }
        }

        // Spine: up from the hips until a joint branches into arms and neck.
        let spine_start = *up.iter().max_by(|&&a, &&b| {
            extent(skeleton, p, a)
                .high
                .total_cmp(&extent(skeleton, p, b).high)
        })?;
        let spine = chain(skeleton, spine_start);
        let chest = *spine.last()?;
        let mut spine_slots = spine.clone();
        let top_children: Vec<usize> = skeleton
            .children(chest)
            .filter(|&c| skeleton.deforms(c) && !is_end(skeleton, c))
            .collect();
        if top_children.len() < 3 {
            return None;
        }
        // The neck is the branch that reaches highest; the arms are the two reaching furthest sideways.
        let neck_start = *top_children.iter().max_by(|&&a, &&b| {
            extent(skeleton, p, a)
                .high
                .total_cmp(&extent(skeleton, p, b).high)
        })?;
        let mut arms: Vec<usize> = top_children
            .iter()
            .copied()
            .filter(|&c| c != neck_start)
            .collect();
        let sideways = |c: usize| {
            skeleton
                .subtree(c)
                .map(|k| (p[k].x - p[chest].x).abs())
                .fold(0.0, f32::max)
        };
        arms.sort_by(|&a, &b| sideways(b).total_cmp(&sideways(a)));
        arms.truncate(2);
        if arms.len() < 2 {
            return None;
        }
        if spine_slots.len() > 3 {
            let last = spine_slots[spine_slots.len() - 1];
            spine_slots = vec![spine_slots[0], spine_slots[1], last];
        }
        for (slot, j) in [H::Spine, H::Chest, H::UpperChest].iter().zip(spine_slots) {
            bones.insert(*slot, j);
        }

        let neck = chain(skeleton, neck_start);
        let head = *neck.last()?;
        bones.insert(H::Head, head);
        if neck.len() >= 2 {
            bones.insert(H::Neck, neck[0]);
        }

        for arm in arms {
            let c = chain(skeleton, arm);
            if c.len() < 3 {
                return None;
            }
            let left = p[*c.last()?].x >= p[chest].x;
            let (s, u, l, h) = if left {
                (
                    H::LeftShoulder,
                    H::LeftUpperArm,
                    H::LeftLowerArm,
                    H::LeftHand,
                )
            } else {
                (
                    H::RightShoulder,
                    H::RightUpperArm,
                    H::RightLowerArm,
                    H::RightHand,
                )
            };
            let limb_chain = if c.len() >= 4 {
                bones.insert(s, c[0]);
                &c[1..]
            } else {
                &c[..]
            };
            let (a, m, z) = limb(limb_chain, p);
            bones.insert(u, a);
            bones.insert(l, m);
            bones.insert(h, z);
        }
        Some(bones)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::skeleton::JointDef;
    use crate::core::transform::Transform;
    use glam::Mat4;

    /// A small T-pose rig: names are given by `name` so the same shape can be named any way.
    fn rig(name: impl Fn(&str) -> String) -> Skeleton {
        let spec: &[(&str, Option<usize>, [f32; 3])] = &[
            ("Hips", None, [0.0, 1.0, 0.0]),
            ("Spine", Some(0), [0.0, 0.1, 0.0]),
            ("Chest", Some(1), [0.0, 0.2, 0.0]),
            ("Neck", Some(2), [0.0, 0.25, 0.0]),
            ("Head", Some(3), [0.0, 0.1, 0.0]),
            ("LeftShoulder", Some(2), [0.05, 0.2, 0.0]),
            ("LeftUpperArm", Some(5), [0.1, 0.0, 0.0]),
            ("LeftLowerArm", Some(6), [0.3, 0.0, 0.0]),
            ("LeftHand", Some(7), [0.25, 0.0, 0.0]),
            ("RightShoulder", Some(2), [-0.05, 0.2, 0.0]),
            ("RightUpperArm", Some(9), [-0.1, 0.0, 0.0]),
            ("RightLowerArm", Some(10), [-0.3, 0.0, 0.0]),
            ("RightHand", Some(11), [-0.25, 0.0, 0.0]),
            ("LeftUpperLeg", Some(0), [0.1, -0.05, 0.0]),
            ("LeftLowerLeg", Some(13), [0.0, -0.45, 0.0]),
            ("LeftFoot", Some(14), [0.0, -0.42, 0.0]),
            ("RightUpperLeg", Some(0), [-0.1, -0.05, 0.0]),
            ("RightLowerLeg", Some(16), [0.0, -0.45, 0.0]),
            ("RightFoot", Some(17), [0.0, -0.42, 0.0]),
        ];
        let joints = spec
            .iter()
            .map(|(n, parent, t)| JointDef {
                name: name(n),
                parent: *parent,
                rest: Transform {
                    translation: Vec3::from_array(*t).into(),
                    ..Transform::IDENTITY
                },
                deforms: true,
            })
            .collect();
        Skeleton::new(joints, Mat4::IDENTITY).unwrap()
    }

    fn check_complete(s: &Skeleton, map: &HumanoidMap) {
        assert!(
            map.is_humanoid(),
            "missing {:?} problems {:?}",
            map.missing_required,
            map.problems
        );
        for bone in HumanBone::required() {
            let j = map.joint(bone).unwrap();
            // The canonical test rig is built so the joint order names the bone.
            let expected = rig(|n| n.to_string());
            assert_eq!(
                expected.name(j),
                bone.name(),
                "{} → {}",
                bone.name(),
                s.name(j)
            );
        }
    }

    #[test]
    fn unity_names() {
        let s = rig(|n| n.to_string());
        let m = HumanoidMap::from_names(&s);
        assert_eq!(m.source, MappingSource::Names);
        check_complete(&s, &m);
        assert_eq!(m.joint(HumanBone::Chest), Some(2));
    }

    #[test]
    fn mixamo_names() {
        let mixamo = |n: &str| {
            let n = n
                .replace("UpperArm", "Arm")
                .replace("LowerArm", "ForeArm")
                .replace("UpperLeg", "UpLeg")
                .replace("LowerLeg", "Leg")
                .replace("Chest", "Spine1");
            format!("mixamorig:{n}")
        };
        let s = rig(mixamo);
        check_complete(&s, &HumanoidMap::from_names(&s));
    }

    #[test]
    fn blender_and_rigify_names() {
        let blender = |n: &str| {
            let (side, rest) = if let Some(r) = n.strip_prefix("Left") {
                (".L", r)
            } else if let Some(r) = n.strip_prefix("Right") {
                (".R", r)
            } else {
                ("", n)
            };
            let base = match rest {
                "UpperArm" => "upper_arm",
                "LowerArm" => "forearm",
                "UpperLeg" => "thigh",
                "LowerLeg" => "shin",
                "Hips" => "hips",
                "Spine" => "spine.001",
                "Chest" => "spine.002",
                other => return format!("DEF-{}{side}", other.to_lowercase()),
            };
            format!("DEF-{base}{side}")
        };
        let s = rig(blender);
        check_complete(&s, &HumanoidMap::from_names(&s));
    }

    #[test]
    fn biped_names() {
        let biped = |n: &str| {
            let (side, rest) = if let Some(r) = n.strip_prefix("Left") {
                ("L ", r)
            } else if let Some(r) = n.strip_prefix("Right") {
                ("R ", r)
            } else {
                ("", n)
            };
            let base = match rest {
                "Hips" => "Pelvis",
                "Shoulder" => "Clavicle",
                "LowerArm" => "Forearm",
                "UpperLeg" => "Thigh",
                "LowerLeg" => "Calf",
                "Chest" => "Spine1",
                other => other,
            };
            format!("Bip01 {side}{base}")
        };
        let s = rig(biped);
        check_complete(&s, &HumanoidMap::from_names(&s));
    }

    #[test]
    fn underscore_suffix_names() {
        let s = rig(|n| {
            if let Some(r) = n.strip_prefix("Left") {
                format!("{}_L", r.to_lowercase())
            } else if let Some(r) = n.strip_prefix("Right") {
                format!("{}_R", r.to_lowercase())
            } else {
                n.to_lowercase()
            }
        });
        check_complete(&s, &HumanoidMap::from_names(&s));
    }

    #[test]
    fn hierarchy_without_names() {
        let s = rig(|n| format!("joint_{}", n.len() * 7 + n.as_bytes()[0] as usize));
        let names = HumanoidMap::from_names(&s);
        assert!(!names.is_humanoid());
        let m = HumanoidMap::detect(&s);
        assert_eq!(m.source, MappingSource::Hierarchy);
        check_complete(&s, &m);
    }

    #[test]
    fn override_replaces_and_reports_unknown_joints() {
        let s = rig(|n| n.to_string());
        let m = HumanoidMap::from_names(&s);
        let mut o = BTreeMap::new();
        o.insert(HumanBone::Chest, "Spine".to_string());
        let m2 = m.clone().with_override(&o, &s).unwrap();
        assert_eq!(m2.source, MappingSource::Override);
        assert_eq!(m2.joint(HumanBone::Chest), Some(1));
        assert_eq!(m2.joint(HumanBone::Spine), None);
        o.insert(HumanBone::Jaw, "Nope".to_string());
        assert!(matches!(
            m.with_override(&o, &s),
            Err(HumanoidError::UnknownJoint { .. })
        ));
    }

    #[test]
    fn lying_rig_is_not_a_biped() {
        let s = rig(|n| n.to_string());
        let joints: Vec<JointDef> = (0..s.len())
            .map(|j| JointDef {
                name: s.name(j).to_string(),
                parent: s.parent(j),
                rest: s.rest()[j],
                deforms: true,
            })
            .collect();
        let lying =
            Skeleton::new(joints, Mat4::from_rotation_x(std::f32::consts::FRAC_PI_2)).unwrap();
        let m = HumanoidMap::from_names(&lying);
        assert!(m.missing_required.is_empty());
        assert!(!m.is_humanoid());
        assert!(m.problems[0].contains("not a biped"), "{:?}", m.problems);
    }
}
