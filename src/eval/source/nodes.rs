//! The one node sampler: a blend space bound to a character, and where each of its playing nodes sits (its clip
//! time under the space's sync mode, its foot-down marker time, or its own clock), its pose sampled with the
//! space's root motion applied, its face and look-at track added. Under marker sync it finds its clips'
//! foot-down markers itself when bound. A blend-space source and a state machine's
//! blend states both sample their nodes here, so a blend state plays as its space does.

use crate::blend::{BlendSampler, BlendSpace, RootMotion, TimeSync};
use crate::core::{Character, Clip, Skeleton, Transform};
use crate::runtime::JobError;

use super::compiled::{ClipCache, CompiledClip, keep_first, shift_root};
use super::face::{Face, LookMix};

/// A blend space bound to a character: its sampler and its nodes' compiled clips.
#[derive(Clone, Debug)]
pub(crate) struct BoundSpace {
    pub(crate) space: BlendSpace,
    pub(crate) sampler: BlendSampler,
    /// Per node, its compiled clip (None when the clip is missing).
    pub(crate) nodes: Vec<Option<CompiledClip>>,
    /// Under marker sync, the playing nodes' clip times (scratch).
    marker_times: Vec<f64>,
}

/// Where a space plays when its nodes are sampled.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpaceTime {
    /// The fraction of its cycle, in [0, 1].
    pub(crate) phase: f64,
    /// Seconds it has played: a node on its own clock has played this times its time scale.
    pub(crate) elapsed: f64,
    /// Whole cycles it has played (what kept root motion accumulates over under normalised or marker sync).
    pub(crate) cycles: i64,
}

/// How root motion plays: the joint it moves, and whether kept root motion accumulates over loops.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RootPlay {
    pub(crate) joint: Option<usize>,
    pub(crate) accumulate_loops: bool,
}

/// Where sampled nodes go: their poses (back to back, from slot `weights.len()` on) and blend weights, and the
/// face and look-at mixes (the face only when the blend has one to mix).
pub(crate) struct NodeOutput<'a> {
    pub(crate) poses: &'a mut Vec<Transform>,
    pub(crate) weights: &'a mut Vec<f32>,
    pub(crate) face: Option<FaceMix<'a>>,
    pub(crate) look: &'a mut LookMix,
    /// The weighted sum of the nodes' travel out of the pose (the treadmill under the character): in place, a
    /// node's root travel so far; a node authored in place, the walk its feet give so far.
    pub(crate) travel: &'a mut glam::Vec3,
}

/// A face being mixed: the sums, the meshes' default morph weights, and scratch of their shape.
pub(crate) struct FaceMix<'a> {
    pub(crate) face: &'a mut Face,
    pub(crate) defaults: &'a [Vec<f32>],
    pub(crate) scratch: &'a mut [Vec<f32>],
}

/// The range of pose `k` (of `n` transforms) in `poses`, which grows to hold it and is otherwise reused as it
/// is: every user overwrites its whole slot (sampling writes every joint), so nothing is cleared per frame.
pub(crate) fn next_slot(poses: &mut Vec<Transform>, k: usize, n: usize) -> std::ops::Range<usize> {
    let range = k * n..(k + 1) * n;
    if poses.len() < range.end {
        poses.resize(range.end, Transform::IDENTITY);
    }
    range
}

impl BoundSpace {
    /// Binds `space` to `character`, its node clips compiled through `cache`.
    pub(crate) fn bind(
        space: BlendSpace,
        character: &Character,
        clips: &[Clip],
        cache: &mut ClipCache,
    ) -> Self {
        let sampler = BlendSampler::bind(&space, clips, character);
        let nodes = sampler
            .node_clips()
            .into_iter()
            .map(|c| c.map(|i| cache.get(i)))
            .collect();
        let mut bound = BoundSpace {
            space,
            sampler,
            nodes,
            marker_times: Vec::new(),
        };
        bound.find_markers(character, clips);
        bound
    }

    /// Under marker sync, hands the sampler each node's foot-down markers, found once per compiled clip (and
    /// shared by every space and state playing it); under another sync, nothing.
    pub(crate) fn find_markers(&mut self, character: &Character, clips: &[Clip]) {
        if self.space.sync != TimeSync::Markers {
            return;
        }
        let markers = self
            .nodes
            .iter()
            .map(|node| {
                node.as_ref()
                    .and_then(|c| Some(c.feet(character, clips.get(c.index)?).markers.clone()))
                    .unwrap_or_default()
            })
            .collect();
        self.sampler.set_markers(markers);
    }

    /// Whether any of the `live` nodes' clips moves the face.
    pub(crate) fn has_face(&self, live: &[(usize, f32)]) -> bool {
        live.iter().any(|&(node, _)| {
            self.nodes
                .get(node)
                .and_then(|c| c.as_ref())
                .is_some_and(|c| c.morph.has_face())
        })
    }

    /// Samples each of the `live` nodes (node, weight) at `at` into the next slots of `out`, weighing
    /// `weigh(node, weight)`; a node whose clip is missing is skipped.
    pub(crate) fn sample_nodes(
        &mut self,
        live: &[(usize, f32)],
        at: SpaceTime,
        weigh: impl Fn(usize, f32) -> f32,
        skeleton: &Skeleton,
        root: RootPlay,
        mut out: NodeOutput,
    ) -> Result<(), JobError> {
        let n = skeleton.len();
        let mut result = Ok(());
        let (space, sampler) = (&self.space, &self.sampler);
        if space.sync == TimeSync::Markers {
            sampler.marker_times(live, at.phase, &mut self.marker_times);
        }
        for (k, &(node, w)) in live.iter().enumerate() {
            let Some(c) = self.nodes.get_mut(node).and_then(|c| c.as_mut()) else {
                continue;
            };
            let duration = f64::from(c.animation.duration());
            // On its own clock, a clip has played the seconds the space has, at the node's time scale.
            let elapsed = || at.elapsed * f64::from(sampler.time_scale(node));
            let marker = || self.marker_times.get(k).copied();
            // A node's cycle offset moves where it stands in the space's normalized cycle.
            let offset = space.nodes.get(node).map_or(0.0, |n| n.cycle_offset);
            let phase = if offset != 0.0 && space.sync == TimeSync::Normalized {
                (at.phase + offset).fract()
            } else {
                at.phase
            };
            let t = c.node_time(space.sync, phase, marker, elapsed);
            let slot = next_slot(out.poses, out.weights.len(), n);
            let pose = &mut out.poses[slot];
            keep_first(&mut result, c.sample(t as f32, pose));
            // Whole cycles the node has played: what kept root motion accumulates, and the treadmill counts.
            let cycles = || match space.sync {
                TimeSync::Independent if duration > 0.0 && c.looping => {
                    ((elapsed() - t) / duration).round() as i64
                }
                TimeSync::Independent => 0,
                TimeSync::Normalized | TimeSync::Markers => at.cycles,
            };
            let velocity = sampler.root_velocity(node);
            if let (Some(r), Some(v)) = (root.joint, velocity) {
                let offset = match space.root_motion {
                    // In place: the node's average travel so far taken out.
                    RootMotion::InPlace => -v * t as f32,
                    RootMotion::Keep if root.accumulate_loops => {
                        v * (duration * cycles() as f64) as f32
                    }
                    RootMotion::Keep => glam::Vec3::ZERO,
                };
                shift_root(skeleton, pose, r, offset);
            }
            let weight = weigh(node, w);
            // Seconds of the clip played since the seek, continuous across its loops: on its own clock what it
            // has played; in step with the space its share of the space's cycles (a marker-synced node's time
            // wraps where its markers put it, but on average it keeps the space's pace).
            let played = match space.sync {
                TimeSync::Independent => t + duration * cycles() as f64,
                TimeSync::Normalized | TimeSync::Markers => {
                    (at.cycles as f64 + at.phase) * duration
                }
            } as f32;
            *out.travel += weight
                * match (c.walk(), space.root_motion, velocity) {
                    (Some(walk), _, _) => walk * played,
                    (None, RootMotion::InPlace, Some(v)) => v * played,
                    _ => glam::Vec3::ZERO,
                };
            out.weights.push(weight);
            if let Some(f) = out.face.as_mut() {
                // The face blends as the pose does: a weighted mean over the nodes that play.
                f.face.add_clip(weight, c, t as f32, f.defaults, f.scratch);
            }
            out.look.add_clip(weight, c, t as f32);
        }
        result
    }
}
