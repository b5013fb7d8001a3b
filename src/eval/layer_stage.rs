//! The stages after the source: the clip layers over it, the layer rig (`layers::LayerRig::apply`: foot lock →
//! breath → look-at → twist → springs, stepped through one `LayerState`), and the expressions; bound to a
//! character under one set of layer parameters, with what they keep between evaluations.

use glam::{Mat4, Vec3};

use crate::core::{Character, Clip, Skeleton, Transform};
use crate::layers::clip_layer::ClipLayers;
use crate::layers::look_at::LookBoneReport;
use crate::layers::{
    FootLockState, LayerInput, LayerParams, LayerRig, LayerScratch, LayerState, Step,
};
use crate::runtime::JobError;

use super::expressions::Expressions;
use super::io::EvalInput;
use super::source::compiled::{ClipCache, CompiledClip, Precision};

/// The layers the Evaluator applies over its source (see the module documentation).
#[derive(Clone, Debug)]
pub struct LayerStage {
    params: LayerParams,
    rig: LayerRig,
    /// What the stateful layers keep between evaluations (look-at's filter, foot lock, the springs).
    pub(crate) state: LayerState,
    scratch: LayerScratch,
    pub(crate) clip_layers: ClipLayers<CompiledClip>,
    /// The character's expressions and their weights (the source's, the layers' sliders).
    pub(crate) expressions: Expressions,
}

/// Where the pose is, and where the look-at report goes, as the layers apply.
pub(crate) struct LayerOut<'a> {
    pub(crate) pose: &'a mut [Transform],
    pub(crate) morph: &'a mut [Vec<f32>],
    pub(crate) look: &'a mut Vec<LookBoneReport>,
}

/// The layers' input for one evaluation: their time `elapsed` seconds in, look-at stepped by `dt` and the
/// simulation by `input`'s step or `dt`, where `input` places the character. An in-place clip still travels in
/// the world: foot lock holds feet on that ground, and the springs feel the travel (a `treadmill` under the
/// character).
pub(crate) fn frame_input(input: &EvalInput, elapsed: f64, dt: f32, treadmill: Vec3) -> LayerInput {
    let placement = input.placement.unwrap_or(Mat4::IDENTITY) * Mat4::from_translation(treadmill);
    LayerInput {
        time: elapsed as f32,
        look_step: Step::Advance(dt),
        simulation_step: Step::Advance(input.simulation_dt.unwrap_or(dt)),
        look_target: input.look_target,
        placement,
    }
}

impl LayerStage {
    /// `params` bound to `character` (its clip layers are bound with the source).
    pub(crate) fn bind(character: &Character, params: LayerParams) -> Self {
        LayerStage {
            rig: LayerRig::bind(&params, character),
            expressions: Expressions::bind(character, &params),
            params,
            state: LayerState::default(),
            scratch: LayerScratch::default(),
            clip_layers: ClipLayers::new(character),
        }
    }

    /// Binds the clip layers' clips through `cache` (keeping the cursors of clips bound before when `keep`).
    pub(crate) fn bind_clip_layers(
        &mut self,
        character: &Character,
        cache: &mut ClipCache,
        keep: bool,
    ) {
        self.clip_layers.bind(&self.params, character, cache, keep);
    }

    /// Replaces the layer parameters (rebinding them to the character, and the clip layers to `clips` when
    /// their clips or masks changed).
    pub(crate) fn set_params(
        &mut self,
        character: &Character,
        clips: &[Clip],
        params: &LayerParams,
        precision: Precision,
    ) {
        if *params == self.params {
            return;
        }
        self.rig = LayerRig::bind(params, character);
        self.expressions.set_layers(character, params);
        let rebind = params.clips != self.params.clips || params.masks != self.params.masks;
        self.params = params.clone();
        if rebind {
            let mut cache = ClipCache::new(clips, character, precision);
            self.bind_clip_layers(character, &mut cache, true);
        }
    }

    /// Whether a layer feels where the character stands in the world (foot lock holds feet on the ground, the
    /// springs swing with the travel): the source then finds the ground an in-place clip walks on.
    pub(crate) fn feels_the_ground(&self) -> bool {
        self.params.foot_lock.enabled || self.params.springs.enabled
    }

    /// The layer parameters in use.
    pub fn params(&self) -> &LayerParams {
        &self.params
    }

    /// The layers bound to the character (detected axes, twist pairs, what is missing).
    pub fn rig(&self) -> &LayerRig {
        &self.rig
    }

    /// Clips the clip layers name (their own, or an additive reference) that the character does not have.
    pub fn missing_clips(&self) -> Vec<&str> {
        self.clip_layers.missing()
    }

    /// Foot lock's state after the last evaluation: each foot's lock, its weight, and the pelvis drop.
    pub fn foot_lock(&self) -> &FootLockState {
        &self.state.foot_lock
    }

    /// Updates the springs took in the last evaluation.
    pub fn spring_steps(&self) -> u32 {
        self.state.springs.steps()
    }

    /// Forgets the springs' motion: the next evaluation puts their tails where its pose puts them.
    pub fn reset_springs(&mut self) {
        self.state.springs.reset();
    }

    /// The weight of each of the character's expressions in the last evaluation: its clips' expression tracks
    /// plus the layer parameters' weight, at most 1.
    pub fn expression_weights(&self) -> &[f32] {
        self.expressions.applied()
    }

    /// Every stage on `out`: the clip layers over the source when it `sampled` (at its `phase`, their own
    /// clocks `elapsed` seconds in), the layer rig's whole order stepped as `input` says, and the expressions'
    /// weights. Returns the sampling's error, else the clip layers'.
    pub(crate) fn apply(
        &mut self,
        sampled: Result<(), JobError>,
        [phase, elapsed]: [f64; 2],
        root_joint: Option<usize>,
        skeleton: &Skeleton,
        input: &LayerInput,
        out: &mut LayerOut,
    ) -> Result<(), JobError> {
        let clip_layers = sampled.and_then(|()| {
            (self.clip_layers).apply(phase, elapsed, skeleton, root_joint, out.pose, out.morph)
        });
        self.apply_rig(skeleton, input, out);
        self.expressions.apply_to(out.morph);
        clip_layers
    }

    /// The layer rig's whole order on `out.pose`, stepped as `input` says.
    pub(crate) fn apply_rig(
        &mut self,
        skeleton: &Skeleton,
        input: &LayerInput,
        out: &mut LayerOut,
    ) {
        self.rig.apply(
            &self.params,
            skeleton,
            input,
            &mut self.state,
            out.pose,
            &mut self.scratch,
            out.look,
        );
    }
}
