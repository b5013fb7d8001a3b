//! Pose blending: the clips of a blend space bound to one character, sampled at a shared (or independent)
//! time and mixed by the space's weights into one pose.

use glam::{Mat4, Quat, Vec3};

use super::space::{BlendSpace, RootMotion, TimeSync};
use crate::core::{Character, Clip, ClipBinding, HumanBone, Pose, Skeleton, Wrap};

/// Weights at or below this are skipped (their clips are not sampled).
pub const WEIGHT_EPSILON: f64 = 1e-5;

/// One node's clip bound to the character.
#[derive(Clone, Debug)]
struct BoundNode {
    clip: usize,
    binding: ClipBinding,
    duration: f32,
    /// Average model-space horizontal velocity of the root-motion joint over the clip (m/s).
    root_velocity: Vec3,
}

/// The clips of a blend space resolved against a character's clip list and skeleton.
#[derive(Clone, Debug)]
pub struct BlendSampler {
    nodes: Vec<Option<BoundNode>>,
    missing: Vec<(usize, String)>,
    root: Option<usize>,
}

/// Model-space matrix of a joint's parent for a pose (walks up the chain only).
fn parent_model(skeleton: &Skeleton, pose: &Pose, joint: usize) -> Mat4 {
    let mut chain = Vec::new();
    let mut j = skeleton.parent(joint);
    while let Some(p) = j {
        chain.push(p);
        j = skeleton.parent(p);
    }
    let mut m = skeleton.root_transform();
    for &p in chain.iter().rev() {
        m *= pose.local[p].to_mat4();
    }
    m
}

fn model_position(skeleton: &Skeleton, pose: &Pose, joint: usize) -> Vec3 {
    parent_model(skeleton, pose, joint).transform_point3(pose.local[joint].translation)
}

impl BlendSampler {
    /// Resolves each node's clip by name in `clips` and binds it to the character.
    pub fn bind(space: &BlendSpace, clips: &[Clip], character: &Character) -> Self {
        let skeleton = &character.skeleton;
        let root = character
            .humanoid
            .joint(HumanBone::Hips)
            .or_else(|| (0..skeleton.len()).find(|&j| skeleton.parent(j).is_none()));
        let mut missing = Vec::new();
        let nodes = space
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                let Some(c) = clips.iter().position(|c| c.name == node.clip) else {
                    missing.push((i, node.clip.clone()));
                    return None;
                };
                let clip = &clips[c];
                let binding = clip.bind(skeleton, Some(&character.humanoid));
                let root_velocity = match root {
                    Some(r) if clip.duration > 0.0 => {
                        let mut pose = Pose::rest(skeleton);
                        clip.sample_into(&binding, 0.0, Wrap::Clamp, &mut pose);
                        let start = model_position(skeleton, &pose, r);
                        pose.reset_to_rest(skeleton);
                        clip.sample_into(&binding, clip.duration, Wrap::Clamp, &mut pose);
                        let end = model_position(skeleton, &pose, r);
                        let v = (end - start) / clip.duration;
                        Vec3::new(v.x, 0.0, v.z)
                    }
                    _ => Vec3::ZERO,
                };
                Some(BoundNode {
                    clip: c,
                    binding,
                    duration: clip.duration,
                    root_velocity,
                })
            })
            .collect();
        BlendSampler {
            nodes,
            missing,
            root,
        }
    }

    /// Nodes whose clip name matched no clip: (node index, clip name).
    pub fn missing(&self) -> &[(usize, String)] {
        &self.missing
    }

    /// Index into the clip list of each node's clip (None when missing).
    pub fn node_clips(&self) -> Vec<Option<usize>> {
        self.nodes
            .iter()
            .map(|n| n.as_ref().map(|b| b.clip))
            .collect()
    }

    /// A node's clip binding (None when its clip is missing).
    pub fn binding(&self, node: usize) -> Option<&ClipBinding> {
        self.nodes.get(node)?.as_ref().map(|b| &b.binding)
    }

    /// Average horizontal root velocity of a node's clip, in model space (m/s).
    pub fn root_velocity(&self, node: usize) -> Option<Vec3> {
        self.nodes.get(node)?.as_ref().map(|b| b.root_velocity)
    }

    /// Weights restricted to nodes whose clip is bound, renormalized to sum 1, with tiny ones dropped.
    pub fn effective_weights(&self, weights: &[f64]) -> Vec<(usize, f32)> {
        let used: Vec<(usize, f64)> = weights
            .iter()
            .enumerate()
            .filter(|&(i, &w)| w > WEIGHT_EPSILON && self.nodes.get(i).is_some_and(|n| n.is_some()))
            .map(|(i, &w)| (i, w))
            .collect();
        let sum: f64 = used.iter().map(|(_, w)| w).sum();
        if sum <= 0.0 {
            return Vec::new();
        }
        used.into_iter()
            .map(|(i, w)| (i, (w / sum) as f32))
            .collect()
    }

    /// Length of one blend cycle: the weighted mean of the contributing clips' durations.
    pub fn cycle_length(&self, weights: &[f64]) -> f32 {
        self.effective_weights(weights)
            .iter()
            .filter_map(|&(i, w)| self.nodes[i].as_ref().map(|n| w * n.duration))
            .sum()
    }

    /// Time inside a node's clip for a blend time of `time` seconds in a cycle of `cycle` seconds.
    pub fn clip_time(&self, node: usize, sync: TimeSync, time: f32, cycle: f32) -> f32 {
        let Some(n) = self.nodes.get(node).and_then(|n| n.as_ref()) else {
            return 0.0;
        };
        if n.duration <= 0.0 || !time.is_finite() {
            return 0.0;
        }
        match sync {
            TimeSync::Normalized => {
                if cycle <= 0.0 {
                    return 0.0;
                }
                let phase = time / cycle;
                let phase = if (0.0..=1.0).contains(&phase) {
                    phase
                } else {
                    phase.rem_euclid(1.0)
                };
                phase * n.duration
            }
            TimeSync::Independent => {
                if (0.0..=n.duration).contains(&time) {
                    time
                } else {
                    time.rem_euclid(n.duration)
                }
            }
        }
    }

    /// Blends the clips into `pose` at `time` within a cycle of `cycle` seconds; `scratch` is reused storage.
    ///
    /// Rotations: weighted quaternion sum aligned to the first contributor's hemisphere, normalized.
    /// Translations and scales: weighted sums. With no contributing clip the pose is the rest pose.
    #[allow(clippy::too_many_arguments)]
    pub fn sample(
        &self,
        space: &BlendSpace,
        clips: &[Clip],
        skeleton: &Skeleton,
        weights: &[f64],
        time: f32,
        cycle: f32,
        pose: &mut Pose,
        scratch: &mut BlendScratch,
    ) {
        pose.reset_to_rest(skeleton);
        let contributors = self.effective_weights(weights);
        if contributors.is_empty() {
            return;
        }
        let mut first = true;
        for &(i, w) in &contributors {
            let Some(node) = self.nodes[i].as_ref() else {
                continue;
            };
            let t = self.clip_time(i, space.sync, time, cycle);
            let sampled = &mut scratch.pose;
            sampled.reset_to_rest(skeleton);
            clips[node.clip].sample_into(&node.binding, t, Wrap::Clamp, sampled);
            if let (RootMotion::InPlace, Some(r)) = (space.root_motion, self.root)
                && node.root_velocity != Vec3::ZERO
            {
                let travel = parent_model(skeleton, sampled, r)
                    .inverse()
                    .transform_vector3(node.root_velocity * t);
                sampled.local[r].translation -= travel;
            }
            if first {
                scratch.reference.clear();
                scratch
                    .reference
                    .extend(sampled.local.iter().map(|l| l.rotation));
            }
            for ((acc, local), reference) in pose
                .local
                .iter_mut()
                .zip(&sampled.local)
                .zip(&scratch.reference)
            {
                let q = if reference.dot(local.rotation) < 0.0 {
                    -local.rotation
                } else {
                    local.rotation
                };
                if first {
                    acc.rotation = q * w;
                    acc.translation = local.translation * w;
                    acc.scale = local.scale * w;
                } else {
                    acc.rotation += q * w;
                    acc.translation += local.translation * w;
                    acc.scale += local.scale * w;
                }
            }
            first = false;
        }
        for (acc, reference) in pose.local.iter_mut().zip(&scratch.reference) {
            let len = acc.rotation.length();
            acc.rotation = if len > 1e-12 {
                acc.rotation / len
            } else {
                *reference
            };
        }
    }
}

/// Storage [`BlendSampler::sample`] reuses between calls.
#[derive(Clone, Debug, Default)]
pub struct BlendScratch {
    pose: Pose,
    reference: Vec<Quat>,
}
