//! Pose blending: the clips of a blend space bound to one character, sampled at a shared (or independent)
//! time and mixed by the space's weights into one pose.

use glam::{Mat4, Vec3};

use super::space::BlendSpace;
use crate::core::{Character, Clip, ClipBinding, HumanBone, Pose, Skeleton, Transform, Wrap};

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
    /// Its foot-down markers (found only for a space synced on markers).
    markers: Vec<super::markers::FootMarker>,
    /// The node's time scale (its length in the cycle is `duration / time_scale`).
    time_scale: f32,
}

/// The clips of a blend space resolved against a character's clip list and skeleton.
#[derive(Clone, Debug)]
pub struct BlendSampler {
    nodes: Vec<Option<BoundNode>>,
    missing: Vec<(usize, String)>,
    root: Option<usize>,
}

/// Model-space matrix of a joint's parent for a pose (walks up the chain only; allocates nothing).
pub fn parent_model(skeleton: &Skeleton, local: &[Transform], joint: usize) -> Mat4 {
    let mut m = Mat4::IDENTITY;
    let mut j = skeleton.parent(joint);
    while let Some(p) = j {
        m = local[p].to_mat4() * m;
        j = skeleton.parent(p);
    }
    skeleton.root_transform() * m
}

fn model_position(skeleton: &Skeleton, pose: &Pose, joint: usize) -> Vec3 {
    parent_model(skeleton, &pose.local, joint)
        .transform_point3(pose.local[joint].translation.into())
}

/// The rate Unity samples a motion at for its average speeds (`Motion.averageSpeed`).
pub const AVERAGE_SPEED_RATE: f32 = 30.0;

/// The joint whose travel is root motion: the hips, else the first root joint.
pub fn root_motion_joint(character: &Character) -> Option<usize> {
    let skeleton = &character.skeleton;
    character
        .humanoid
        .joint(HumanBone::Hips)
        .or_else(|| (0..skeleton.len()).find(|&j| skeleton.parent(j).is_none()))
}

/// A clip's horizontal travel of `root` over one cycle, in model space (metres; zero for a clip without length).
pub fn root_travel(skeleton: &Skeleton, clip: &Clip, binding: &ClipBinding, root: usize) -> Vec3 {
    if clip.duration <= 0.0 || root >= skeleton.len() {
        return Vec3::ZERO;
    }
    let mut pose = Pose::rest(skeleton);
    clip.sample_into(binding, 0.0, Wrap::Clamp, &mut pose);
    let start = model_position(skeleton, &pose, root);
    pose.reset_to_rest(skeleton);
    clip.sample_into(binding, clip.duration, Wrap::Clamp, &mut pose);
    let d = model_position(skeleton, &pose, root) - start;
    if d.is_finite() {
        Vec3::new(d.x, 0.0, d.z)
    } else {
        Vec3::ZERO
    }
}

impl BlendSampler {
    /// Resolves each node's clip by name in `clips` and binds it to the character.
    pub fn bind(space: &BlendSpace, clips: &[Clip], character: &Character) -> Self {
        let skeleton = &character.skeleton;
        let root = root_motion_joint(character);
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
                let root_velocity = root.map_or(Vec3::ZERO, |r| {
                    root_travel(skeleton, clip, &binding, r) / clip.duration.max(f32::EPSILON)
                });
                Some(BoundNode {
                    clip: c,
                    binding,
                    duration: clip.duration,
                    root_velocity,
                    markers: Vec::new(),
                    time_scale: node.time_scale as f32,
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

    /// Hands each node its clip's foot-down markers (node order; the Evaluator's node sampler finds them when
    /// it binds a space synced on markers).
    pub fn set_markers(&mut self, markers: Vec<Vec<super::markers::FootMarker>>) {
        for (node, m) in self.nodes.iter_mut().zip(markers) {
            if let Some(n) = node {
                n.markers = m;
            }
        }
    }

    /// Whether any node has markers.
    pub fn has_markers(&self) -> bool {
        self.nodes.iter().flatten().any(|n| !n.markers.is_empty())
    }

    /// A node's foot-down markers (empty until they are handed over, or where its clip has none).
    pub fn markers(&self, node: usize) -> &[super::markers::FootMarker] {
        self.nodes
            .get(node)
            .and_then(|n| n.as_ref())
            .map_or(&[], |n| &n.markers)
    }

    /// Where each contributing node plays under marker sync: `(node, weight)` contributions, the leader's time at
    /// `phase`; a node whose markers do not match plays at the normalized time. Writes clip times into `out`
    /// (one per contribution).
    pub fn marker_times(&self, contributions: &[(usize, f32)], phase: f64, out: &mut Vec<f64>) {
        out.clear();
        let duration = |node: usize| {
            self.nodes
                .get(node)
                .and_then(|n| n.as_ref())
                .map_or(0.0, |n| n.duration)
        };
        let Some(&(leader, _)) = contributions.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
            return;
        };
        // Only feet every contributing clip has markers of count.
        let has = |left: bool| {
            contributions
                .iter()
                .all(|&(n, _)| self.markers(n).iter().any(|m| m.left == left))
        };
        let feet = [has(true), has(false)];
        let leader_duration = duration(leader);
        let leader_time = phase * f64::from(leader_duration);
        out.extend(contributions.iter().map(|&(node, _)| {
            let d = duration(node);
            if node == leader {
                return leader_time;
            }
            super::markers::synced_time(
                self.markers(leader),
                leader_duration,
                leader_time as f32,
                self.markers(node),
                d,
                feet,
            )
            .map_or(phase * f64::from(d), f64::from)
        }));
    }

    /// A node's time scale (1 for a node without a bound clip).
    pub fn time_scale(&self, node: usize) -> f32 {
        self.nodes
            .get(node)
            .and_then(|n| n.as_ref())
            .map_or(1.0, |n| n.time_scale)
    }

    /// Average horizontal root velocity of a node's clip, in model space (m/s).
    pub fn root_velocity(&self, node: usize) -> Option<Vec3> {
        self.nodes.get(node)?.as_ref().map(|b| b.root_velocity)
    }

    fn used<'w>(&'w self, weights: &'w [f64]) -> impl Iterator<Item = (usize, f64)> + 'w {
        weights
            .iter()
            .enumerate()
            .filter(|&(i, &w)| w > WEIGHT_EPSILON && self.nodes.get(i).is_some_and(|n| n.is_some()))
            .map(|(i, &w)| (i, w))
    }

    /// Weights restricted to nodes whose clip is bound, renormalized to sum 1, with tiny ones dropped.
    pub fn effective_weights(&self, weights: &[f64]) -> Vec<(usize, f32)> {
        let mut out = Vec::new();
        self.effective_weights_into(weights, &mut out);
        out
    }

    /// [`BlendSampler::effective_weights`] into a reused buffer.
    pub fn effective_weights_into(&self, weights: &[f64], out: &mut Vec<(usize, f32)>) {
        out.clear();
        let sum: f64 = self.used(weights).map(|(_, w)| w).sum();
        if sum > 0.0 {
            out.extend(self.used(weights).map(|(i, w)| (i, (w / sum) as f32)));
        }
    }

    /// The horizontal velocity the blend travels at (model space, m/s): each contributing clip's average root
    /// velocity, weighted, and scaled as its time is (by its duration over the cycle when the clips share one
    /// normalized time). What an in-place blend takes out of the pose, and what moves a driven character.
    pub fn travel_velocity(&self, weights: &[f64], sync: super::TimeSync) -> Vec3 {
        let sum: f64 = self.used(weights).map(|(_, w)| w).sum();
        let cycle = self.cycle_length(weights);
        if sum <= 0.0 {
            return Vec3::ZERO;
        }
        self.used(weights)
            .filter_map(|(i, w)| {
                let n = self.nodes[i].as_ref()?;
                let rate = match sync {
                    super::TimeSync::Normalized | super::TimeSync::Markers if cycle > 0.0 => {
                        n.duration / cycle
                    }
                    super::TimeSync::Normalized | super::TimeSync::Markers => 0.0,
                    super::TimeSync::Independent => n.time_scale,
                };
                Some(n.root_velocity * ((w / sum) as f32 * rate))
            })
            .sum()
    }

    /// Length of one blend cycle: the weighted mean of the contributing clips' durations.
    pub fn cycle_length(&self, weights: &[f64]) -> f32 {
        let sum: f64 = self.used(weights).map(|(_, w)| w).sum();
        if sum <= 0.0 {
            return 0.0;
        }
        self.used(weights)
            .filter_map(|(i, w)| {
                self.nodes[i]
                    .as_ref()
                    .map(|n| (w / sum) as f32 * n.duration / n.time_scale)
            })
            .sum()
    }

    /// The joint whose horizontal travel root motion removes (the hips, else the first root).
    pub fn root_joint(&self) -> Option<usize> {
        self.root
    }
}
