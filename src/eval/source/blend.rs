//! The blend-space source: the space's weights at its point (recomputed only when the point moves), its playing
//! nodes sampled by the node sampler at the source's phase, and their poses blended by the BlendingJob.

use crate::blend::BlendSpace;
use crate::core::{Character, Clip, Skeleton, Transform};
use crate::runtime::{BlendingJob, JobError};

use super::compiled::ClipCache;
use super::face::{Face, LookMix};
use super::frame::{SourceOut, SourceTime};
use super::nodes::{BoundSpace, FaceMix, NodeOutput, RootPlay, SpaceTime};

/// A blend space playing as the source.
#[derive(Clone, Debug)]
pub(crate) struct BlendSource {
    pub(crate) bound: BoundSpace,
    /// The node weights at the point, and the point they were computed at.
    pub(crate) weights: Vec<f64>,
    weights_at: Option<[f64; 2]>,
    /// The nodes that play, with their normalised weights.
    contributions: Vec<(usize, f32)>,
    poses: Vec<Transform>,
    blend_weights: Vec<f32>,
    face: Face,
    look: LookMix,
    /// The meshes' default morph weights, and scratch of their shape.
    morph_defaults: Vec<Vec<f32>>,
    morph_scratch: Vec<Vec<f32>>,
}

impl BlendSource {
    pub(crate) fn bind(
        space: BlendSpace,
        character: &Character,
        clips: &[Clip],
        cache: &mut ClipCache,
    ) -> Self {
        let morph_defaults = crate::core::morph::default_weights(character);
        BlendSource {
            bound: BoundSpace::bind(space, character, clips, cache),
            weights: Vec::new(),
            weights_at: None,
            contributions: Vec::new(),
            poses: Vec::new(),
            blend_weights: Vec::new(),
            face: Face::zero(&morph_defaults, character.expressions.len()),
            look: LookMix::default(),
            morph_scratch: morph_defaults.clone(),
            morph_defaults,
        }
    }

    /// Brings the weights to the space's point; whether they changed.
    pub(crate) fn refresh_weights(&mut self) -> bool {
        let point = self.bound.space.point;
        if self.weights_at == Some(point) {
            return false;
        }
        self.weights = self.bound.space.weights();
        self.bound
            .sampler
            .effective_weights_into(&self.weights, &mut self.contributions);
        self.weights_at = Some(point);
        true
    }

    /// Forgets the weights (an edit of the space): the next refresh computes them.
    pub(crate) fn invalidate_weights(&mut self) {
        self.weights_at = None;
    }

    /// The cycle length at the current weights.
    pub(crate) fn cycle_length(&self) -> f32 {
        self.bound.sampler.cycle_length(&self.weights)
    }

    /// Samples the playing nodes at `at.phase` and blends them into `out`.
    pub(crate) fn sample(
        &mut self,
        at: SourceTime,
        root: RootPlay,
        skeleton: &Skeleton,
        out: SourceOut,
    ) -> Result<(), JobError> {
        let n = skeleton.len();
        let faced = self.bound.has_face(&self.contributions);
        if faced {
            self.face.clear();
        }
        self.look.clear();
        self.blend_weights.clear();
        let mut travel = glam::Vec3::ZERO;
        let result = self.bound.sample_nodes(
            &self.contributions,
            SpaceTime {
                phase: at.phase,
                elapsed: at.elapsed,
                cycles: at.cycles,
            },
            |_, w| w,
            skeleton,
            root,
            NodeOutput {
                poses: &mut self.poses,
                weights: &mut self.blend_weights,
                face: faced.then_some(FaceMix {
                    face: &mut self.face,
                    defaults: &self.morph_defaults,
                    scratch: &mut self.morph_scratch,
                }),
                look: &mut self.look,
                travel: &mut travel,
            },
        );
        let total: f32 = self.blend_weights.iter().sum();
        if total > 0.0 && travel.is_finite() {
            *out.treadmill = travel / total;
        }
        if faced && self.face.total > 0.0 {
            self.face.normalize();
            self.face.write_to(out.morph, out.expressions);
        }
        *out.look = self.look.rotation();
        result.and(
            BlendingJob {
                poses: &self.poses[..self.blend_weights.len() * n],
                weights: &self.blend_weights,
                masks: &[],
                additive: &[],
                rest: skeleton.rest(),
                threshold: 0.1,
                output: out.pose,
            }
            .run(),
        )
    }
}
