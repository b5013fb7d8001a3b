//! Twist correction: each twist joint between a humanoid bone and its child takes a rotation between theirs,
//! slerp(parent world, child world, t), so skin near elbows, wrists and the spine does not collapse; the child
//! keeps its world rotation.

use glam::Quat;
use serde::{Deserialize, Serialize};

use super::{ParamError, check};
use crate::core::pose::{ancestor_path, set_world_rotation};
use crate::core::{Character, HumanBone, Skeleton, Transform};

/// One parent–child pair and its optional own intensity.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TwistPair {
    /// Upper humanoid bone.
    pub parent: String,
    /// Lower humanoid bone.
    pub child: String,
    /// Overrides the global intensity for this pair.
    pub intensity: Option<f32>,
}

/// Twist correction parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TwistParams {
    /// Layer on.
    pub enabled: bool,
    /// Where a single twist joint sits between its parent (0) and child (1) rotation.
    pub intensity: f32,
    /// The pairs to correct.
    pub pairs: Vec<TwistPair>,
}

impl Default for TwistParams {
    fn default() -> Self {
        let mut pairs: Vec<(String, String)> = vec![
            ("Hips".into(), "Spine".into()),
            ("Spine".into(), "Chest".into()),
            ("Chest".into(), "UpperChest".into()),
        ];
        for side in ["Left", "Right"] {
            for (a, b) in [
                ("Shoulder", "UpperArm"),
                ("UpperArm", "LowerArm"),
                ("LowerArm", "Hand"),
                ("UpperLeg", "LowerLeg"),
                ("LowerLeg", "Foot"),
                ("Foot", "Toes"),
            ] {
                pairs.push((format!("{side}{a}"), format!("{side}{b}")));
            }
        }
        TwistParams {
            enabled: true,
            intensity: 0.5,
            pairs: pairs
                .into_iter()
                .map(|(parent, child)| TwistPair {
                    parent,
                    child,
                    intensity: None,
                })
                .collect(),
        }
    }
}

impl TwistParams {
    /// Checks every value; the error names the field (relative to the twist section).
    pub fn validate(&self) -> Result<(), ParamError> {
        check("intensity", self.intensity, 0.0, 1.0)?;
        for (i, p) in self.pairs.iter().enumerate() {
            if let Some(v) = p.intensity {
                check(&format!("pairs[{i}].intensity"), v, 0.0, 1.0)?;
            }
        }
        Ok(())
    }
}

/// A pair as found on one character.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundTwistPair {
    /// Index into [`TwistParams::pairs`].
    pub index: usize,
    /// Parent joint (when mapped).
    pub parent: Option<usize>,
    /// Child joint (when mapped).
    pub child: Option<usize>,
    /// Twist joints on the path from parent to child, parent side first.
    pub in_chain: Vec<usize>,
    /// Twist helpers beside the chain (children of the parent, not ancestors of the child).
    pub helpers: Vec<usize>,
    /// Why the pair does nothing, when it does nothing.
    pub problem: Option<String>,
}

impl BoundTwistPair {
    /// True when the pair has twist joints to drive.
    pub fn is_valid(&self) -> bool {
        self.problem.is_none()
    }
}

/// Twist correction bound to one character.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TwistRig {
    /// Every pair of the parameters, valid or not.
    pub pairs: Vec<BoundTwistPair>,
    /// The joints of the valid pairs and all their ancestors, parent-first: the rotations twist reads.
    pub path: Vec<usize>,
}

/// Where twist joint `k` (1-based) of `n` sits: the intensity for a single joint, spread evenly (k/(n+1) at
/// the default 0.5) for several.
pub fn twist_fraction(intensity: f32, k: usize, n: usize) -> f32 {
    (2.0 * intensity * k as f32 / (n + 1) as f32).clamp(0.0, 1.0)
}

impl TwistRig {
    /// Finds each pair's twist joints on the character.
    pub fn bind(params: &TwistParams, character: &Character) -> Self {
        let skeleton = &character.skeleton;
        let h = &character.humanoid;
        let chains = h.twist_chains(skeleton);
        let pairs = params
            .pairs
            .iter()
            .enumerate()
            .map(|(index, p)| {
                let mut out = BoundTwistPair {
                    index,
                    parent: None,
                    child: None,
                    in_chain: Vec::new(),
                    helpers: Vec::new(),
                    problem: None,
                };
                let (Some(pb), Some(cb)) = (
                    HumanBone::from_name(&p.parent),
                    HumanBone::from_name(&p.child),
                ) else {
                    out.problem = Some(format!(
                        "{} or {} is not a humanoid bone name",
                        p.parent, p.child
                    ));
                    return out;
                };
                out.parent = h.joint(pb);
                out.child = h.joint(cb);
                let (Some(pj), Some(cj)) = (out.parent, out.child) else {
                    let unmapped: Vec<&str> = [(pb, out.parent), (cb, out.child)]
                        .iter()
                        .filter(|(_, j)| j.is_none())
                        .map(|(b, _)| b.name())
                        .collect();
                    out.problem =
                        Some(format!("{} not mapped on this rig", unmapped.join(" and ")));
                    return out;
                };
                if !skeleton.is_ancestor_or_self(pj, cj) {
                    out.problem = Some(format!("{} is not below {}", p.child, p.parent));
                    return out;
                }
                let joints: Vec<usize> = chains
                    .iter()
                    .filter(|c| c.parent == pb && c.child == cb)
                    .flat_map(|c| c.joints.iter().copied())
                    .collect();
                for j in joints {
                    if skeleton.is_ancestor_or_self(j, cj) {
                        out.in_chain.push(j);
                    } else {
                        out.helpers.push(j);
                    }
                }
                out.in_chain.sort_by_key(|&j| skeleton.depth(j));
                if out.in_chain.is_empty() && out.helpers.is_empty() {
                    out.problem = Some(format!(
                        "no twist joint between {} and {}",
                        p.parent, p.child
                    ));
                }
                out
            })
            .collect::<Vec<BoundTwistPair>>();
        let joints: Vec<usize> = pairs
            .iter()
            .filter(|p| p.is_valid())
            .flat_map(|p| {
                let ends = p.parent.into_iter().chain(p.child);
                ends.chain(p.in_chain.iter().copied())
                    .chain(p.helpers.iter().copied())
            })
            .collect();
        let path = ancestor_path(skeleton, joints);
        TwistRig { pairs, path }
    }

    /// Turns every twist joint of every valid pair; children keep their world rotation. `world` is scratch
    /// (one entry per joint; only [`TwistRig::path`] is computed). Allocates nothing.
    pub fn apply(
        &self,
        params: &TwistParams,
        skeleton: &Skeleton,
        local: &mut [Transform],
        world: &mut [Quat],
    ) {
        if !params.enabled || self.path.is_empty() {
            return;
        }
        let root = skeleton.root_rotation();
        for &j in &self.path {
            let parent = skeleton.parent(j).map_or(root, |p| world[p]);
            world[j] = (parent * local[j].rotation).normalize();
        }
        for pair in self.pairs.iter().filter(|p| p.is_valid()) {
            let (Some(pj), Some(cj)) = (pair.parent, pair.child) else {
                continue;
            };
            let intensity = params.pairs[pair.index]
                .intensity
                .unwrap_or(params.intensity);
            let (pw, cw) = (world[pj], world[cj]);
            let cw = if pw.dot(cw) < 0.0 { -cw } else { cw };
            let n = pair.in_chain.len();
            for (k, &j) in pair.in_chain.iter().enumerate() {
                let target = pw
                    .slerp(cw, twist_fraction(intensity, k + 1, n))
                    .normalize();
                set_world_rotation(skeleton, local, world, j, target);
            }
            if n > 0 {
                // Keep the child where the animation put it.
                set_world_rotation(skeleton, local, world, cj, cw);
            }
            let m = pair.helpers.len();
            for (k, &j) in pair.helpers.iter().enumerate() {
                let target = pw
                    .slerp(cw, twist_fraction(intensity, k + 1, m))
                    .normalize();
                set_world_rotation(skeleton, local, world, j, target);
            }
        }
    }
}

/// Quaternion distance in radians, precise for tiny angles (chord form; `acos` loses them in f32).
pub fn rotation_distance(a: Quat, b: Quat) -> f32 {
    let d = (a - b).length().min((a + b).length());
    4.0 * (d / 2.0).asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_joints_spread_evenly() {
        assert_eq!(twist_fraction(0.5, 1, 1), 0.5);
        assert!((twist_fraction(0.5, 1, 2) - 1.0 / 3.0).abs() < 1e-6);
        assert!((twist_fraction(0.5, 2, 2) - 2.0 / 3.0).abs() < 1e-6);
        assert_eq!(twist_fraction(0.8, 1, 1), 0.8);
    }

    #[test]
    fn default_pairs_cover_spine_arms_and_legs() {
        let p = TwistParams::default();
        assert_eq!(p.pairs.len(), 15);
        assert!(p.validate().is_ok());
    }
}
