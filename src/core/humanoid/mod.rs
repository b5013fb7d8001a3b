//! Humanoid mapping: which joint of a rig plays which Unity humanoid bone, and where twist joints are. The
//! map and its checks live here; how it is found is split by source: a table (VRM, in the importer), the
//! joint names ([`names`]), the shape of the hierarchy ([`hierarchy`]); twist joints are in [`twist`].

mod hierarchy;
mod names;
mod twist;

use std::collections::{BTreeMap, HashMap};

use glam::Vec3;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use crate::core::human_bone::{BodyPart, Finger, HumanBone, Side};
use crate::core::pose::Pose;
use crate::core::skeleton::Skeleton;

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
    /// The Unity avatar in the model's `.meta` (the mapping the user configured in Unity).
    UnityAvatar,
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
            MappingSource::UnityAvatar => "unity avatar",
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
    /// Where clips retargeted onto this character put its hips.
    pub hips_placement: crate::core::binding::HipsPlacement,
    /// The IK goals clips retargeted onto this character reach for (none by default).
    pub ik_goals: crate::core::ik_goals::IkGoals,
    /// The character's T-pose where it is not its rest pose: joint → local rotation (a Unity avatar's
    /// configured T-pose). Clips retargeted by human bone go through it; empty: the rest pose is the T-pose.
    pub t_pose: BTreeMap<usize, glam::Quat>,
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
            hips_placement: Default::default(),
            ik_goals: Default::default(),
            t_pose: BTreeMap::new(),
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

    /// Applies a user override (human bone → joint name; an empty name leaves the bone unmapped) on top of
    /// this mapping.
    pub fn with_override(
        mut self,
        overrides: &BTreeMap<HumanBone, String>,
        skeleton: &Skeleton,
    ) -> Result<Self, HumanoidError> {
        if overrides.is_empty() {
            return Ok(self);
        }
        for (bone, joint_name) in overrides {
            if joint_name.is_empty() {
                self.bones.remove(bone);
                continue;
            }
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

    /// The same mapping on a skeleton whose joints moved: each joint `j` is now `new_index(j)`.
    pub fn with_joints_moved(&self, new_index: impl Fn(usize) -> usize) -> Self {
        let mut out = self.clone();
        for j in out.bones.values_mut() {
            *j = new_index(*j);
        }
        out.t_pose = self
            .t_pose
            .iter()
            .map(|(&j, &q)| (new_index(j), q))
            .collect();
        out
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

/// Model-space rest position of every joint.
pub fn rest_positions(skeleton: &Skeleton) -> Vec<Vec3> {
    Pose::rest(skeleton)
        .model_matrices(skeleton)
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect()
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
