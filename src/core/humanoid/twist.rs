//! Twist joints: the non-human joints between a mapped parent bone and its child (and twist-named children of
//! the parent), which twist correction distributes a share of the child's twist over.

use glam::Vec3;

use super::{HumanoidMap, TwistChain, rest_positions};
use crate::core::naming;
use crate::core::skeleton::Skeleton;

impl HumanoidMap {
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
}

fn twist_points_toward(p: &[Vec3], parent: usize, twist: usize, child: usize) -> bool {
    let to_twist = p[twist] - p[parent];
    let to_child = p[child] - p[parent];
    to_twist.length_squared() < 1e-12 || to_twist.dot(to_child) > 0.0
}
