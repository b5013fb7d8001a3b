//! What one evaluation takes and gives: the source to play, how the clock moves, the per-frame input, and the
//! output the Evaluator keeps between frames.

use glam::{Mat4, Vec3};

use crate::blend::BlendSpace;
use crate::core::Pose;
use crate::layers::look_at::LookBoneReport;
use crate::runtime::JobError;

/// Where the pose comes from before the layers.
#[derive(Clone, Debug, PartialEq)]
pub enum SourceSpec {
    /// The skeleton's rest pose.
    Rest,
    /// One clip, by index into the clip list.
    Clip(usize),
    /// A blend space over clips of the list (by name).
    Blend(BlendSpace),
    /// A state machine whose states play clips of the list or blend spaces over them (by name); it must validate.
    /// A state's `mirror` is not applied here: `offline::mirror::machine_clips` gives the clips and machine to
    /// pass for it.
    StateMachine(crate::graph::StateMachine),
}

/// How the clock moves before an evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ClockStep {
    /// Stay where it is (re-evaluate after an edit).
    #[default]
    Hold,
    /// Wall-clock seconds since the last frame (times the speed while playing).
    Advance(f32),
    /// Jump to a time: the look-at filter resets.
    Seek(f32),
    /// Continue to an absolute time since the start, as playing forward would (baking on a grid).
    Continue(f32),
}

/// What one evaluation needs besides the state the Evaluator keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EvalInput {
    /// How the clock moves first.
    pub clock: ClockStep,
    /// Moves the blend space's sample point first (the phase is kept).
    pub blend_point: Option<[f64; 2]>,
    /// Replaces the look-at target of the parameters (the camera, a command line point), model space.
    pub look_target: Option<Vec3>,
    /// Where the character stands in the world (the springs move in world space): None for the origin.
    pub placement: Option<Mat4>,
    /// Steps the simulated layers (foot lock, the springs) by this instead of the clock's step (a bake steps them
    /// on its grid).
    pub simulation_dt: Option<f32>,
}

/// The result of an evaluation, kept by the Evaluator between frames.
#[derive(Clone, Debug, Default)]
pub struct EvalOutput {
    /// Final local transforms.
    pub local: Pose,
    /// Model-space matrices of every joint.
    pub model: Vec<Mat4>,
    /// Skinning matrices (model × inverse bind), one list per skin of the character.
    pub skins: Vec<Vec<Mat4>>,
    /// What look-at did, per chain bone (empty when it is off).
    pub look: Vec<LookBoneReport>,
    /// Blend weight of every node of the space at the sample point (empty for a clip).
    pub weights: Vec<f64>,
    /// Morph-target weights, one list per mesh of the character (empty for a mesh without morph targets): the
    /// meshes' defaults where no clip animates them.
    pub morph_weights: Vec<Vec<f32>>,
    /// The first job that refused its buffers in this evaluation (a skin naming a joint outside the skeleton;
    /// the Evaluator sizes everything else itself). Its output is left as it was.
    pub error: Option<JobError>,
    /// How far the treadmill under an in-place clip has carried the character (model space, metres): the
    /// travel in-place mode took out of the pose, and the walk of a clip authored in place once its feet are
    /// known. Zero otherwise.
    pub treadmill: Vec3,
}

impl EvalOutput {
    /// `character` at rest: its rest pose, its meshes' default morph weights, buffers sized for it.
    pub(crate) fn at_rest(character: &crate::core::Character) -> Self {
        EvalOutput {
            morph_weights: crate::core::morph::default_weights(character),
            local: Pose::rest(&character.skeleton),
            model: vec![Mat4::IDENTITY; character.skeleton.len()],
            skins: (character.skins.iter())
                .map(|s| vec![Mat4::IDENTITY; s.joints.len()])
                .collect(),
            look: Vec::new(),
            weights: Vec::new(),
            error: None,
            treadmill: Vec3::ZERO,
        }
    }

    /// The pose, morph weights and look-at report, as the layers write them.
    pub(crate) fn layer_out(&mut self) -> super::layer_stage::LayerOut<'_> {
        super::layer_stage::LayerOut {
            pose: &mut self.local.local,
            morph: &mut self.morph_weights,
            look: &mut self.look,
        }
    }
}
