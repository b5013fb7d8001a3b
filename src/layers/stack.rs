//! The layer stack: every layer's parameters together (as presets store them), bound to one character, applied
//! in order breath → look-at → twist correction.

use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::look_at::LookBoneReport;
use super::{
    BreathParams, BreathRig, LookAtParams, LookAtRig, LookAtState, ParamError, TwistParams,
    TwistRig,
};
use crate::core::{Character, Skeleton, Transform};

/// Every layer's parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LayerParams {
    /// Breathing.
    pub breath: BreathParams,
    /// Look-at.
    pub look_at: LookAtParams,
    /// Twist correction.
    pub twist: TwistParams,
    /// Clip layers over the source, in order, below breath (see [`super::clip_layer`]).
    pub clips: Vec<super::ClipLayer>,
    /// Named avatar masks the clip layers may share (a layer's `mask` names one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub masks: Vec<super::clip_layer::AvatarMask>,
    /// Spring bones (see [`super::springs`]).
    pub springs: super::SpringParams,
    /// Foot lock, after the clip layers (see [`super::foot_lock`]).
    pub foot_lock: super::FootLockParams,
    /// Expression weights by expression name (see [`crate::core::expression`]), added over the clip's morph
    /// weights.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub expressions: std::collections::BTreeMap<String, f32>,
}

impl LayerParams {
    /// Every layer off: the source pose passes unchanged.
    pub fn off() -> Self {
        let mut p = LayerParams::default();
        p.breath.enabled = false;
        p.look_at.enabled = false;
        p.twist.enabled = false;
        p.springs.enabled = false;
        p.foot_lock.enabled = false;
        p.clips.clear();
        p
    }

    /// Checks every value; the error names the field (`breath.inhale_s`).
    pub fn validate(&self) -> Result<(), ParamError> {
        self.breath.validate().map_err(|e| e.under("breath"))?;
        self.look_at.validate().map_err(|e| e.under("look_at"))?;
        self.twist.validate().map_err(|e| e.under("twist"))?;
        self.springs.validate().map_err(|e| e.under("springs"))?;
        self.foot_lock
            .validate()
            .map_err(|e| e.under("foot_lock"))?;
        for (i, layer) in self.clips.iter().enumerate() {
            layer
                .validate()
                .map_err(|e| e.under(&format!("clips[{i}]")))?;
            if let Some(name) = &layer.mask
                && !self.masks.iter().any(|m| m.name == *name)
            {
                return Err(ParamError::new(
                    format!("clips[{i}].mask"),
                    format!("names mask '{name}', which is not among the masks"),
                ));
            }
        }
        for (name, w) in &self.expressions {
            super::check(&format!("expressions.{name}"), *w, 0.0, 1.0)?;
        }
        for (i, mask) in self.masks.iter().enumerate() {
            let field = format!("masks[{i}]");
            if mask.name.trim().is_empty() {
                return Err(ParamError::new(
                    format!("{field}.name"),
                    "a mask needs a name",
                ));
            }
            if self.masks[..i].iter().any(|m| m.name == mask.name) {
                return Err(ParamError::new(
                    format!("{field}.name"),
                    format!("'{}' names two masks", mask.name),
                ));
            }
            for (joint, w) in &mask.joint_weights {
                if !(w.is_finite() && (0.0..=1.0).contains(w)) {
                    return Err(ParamError::new(
                        format!("{field}.joint_weights.{joint}"),
                        "must be within [0, 1]",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The layers bound to one character.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerRig {
    /// Breath bones and held shoulders.
    pub breath: BreathRig,
    /// Look-at chain and eyes.
    pub look_at: LookAtRig,
    /// Twist pairs, valid or not.
    pub twist: TwistRig,
    /// Spring chains in the order they run.
    pub springs: super::SpringRig,
    /// Legs and hips for foot lock.
    pub foot_lock: super::FootLockRig,
}

impl LayerRig {
    /// Resolves every layer's bones on a character.
    pub fn bind(params: &LayerParams, character: &Character) -> Self {
        LayerRig {
            breath: BreathRig::bind(&params.breath, character),
            look_at: LookAtRig::bind(&params.look_at, character),
            twist: TwistRig::bind(&params.twist, character),
            springs: super::SpringRig::bind(&params.springs, character),
            foot_lock: super::FootLockRig::bind(character),
        }
    }

    /// Applies the stack after the clip layers to a local pose, in the default order: foot lock → breath →
    /// look-at → twist → springs. `input` says the layers' time, how look-at's filter and the simulated layers
    /// (foot lock, the springs) step, where the character stands and what look-at looks at; `report` gets what
    /// look-at did. Allocates nothing once `state`, `scratch` and `report` have room.
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &self,
        params: &LayerParams,
        skeleton: &Skeleton,
        input: &LayerInput,
        state: &mut LayerState,
        local: &mut [Transform],
        scratch: &mut LayerScratch,
        report: &mut Vec<LookBoneReport>,
    ) {
        self.foot_lock.apply(
            &params.foot_lock,
            skeleton,
            input.placement,
            input.simulation_step,
            &mut state.foot_lock,
            local,
            &mut scratch.foot_lock_model,
        );
        scratch.model.resize(skeleton.len(), Mat4::IDENTITY);
        scratch.world.resize(skeleton.len(), Quat::IDENTITY);
        self.breath
            .apply(&params.breath, skeleton, input.time, local);
        let target = input
            .look_target
            .unwrap_or(Vec3::from_array(params.look_at.target));
        self.look_at.apply(
            &params.look_at,
            skeleton,
            target,
            input.look_step,
            &mut state.look,
            local,
            &mut scratch.model,
            &mut scratch.world,
            report,
        );
        self.twist
            .apply(&params.twist, skeleton, local, &mut scratch.world);
        self.springs.apply(
            &params.springs,
            skeleton,
            input.placement,
            input.simulation_step,
            &mut state.springs,
            local,
        );
    }
}

/// What one application of the layer stack needs besides the pose.
#[derive(Clone, Copy, Debug)]
pub struct LayerInput {
    /// The layers' clock (breath), seconds.
    pub time: f32,
    /// How look-at's filter steps.
    pub look_step: super::Step,
    /// How the simulated layers step: foot lock and the springs.
    pub simulation_step: super::Step,
    /// Replaces the look-at target of the parameters (the camera, a command line point), model space.
    pub look_target: Option<Vec3>,
    /// Where the character stands in the world (the springs and foot lock work in world space).
    pub placement: Mat4,
}

/// What the stateful layers keep between evaluations: look-at's filter, foot lock's plants, the springs' tails.
#[derive(Clone, Debug, Default)]
pub struct LayerState {
    /// Look-at's filtered direction.
    pub look: LookAtState,
    /// Each foot's lock and the pelvis drop.
    pub foot_lock: super::FootLockState,
    /// The springs' tails.
    pub springs: super::SpringState,
}

impl LayerState {
    /// Every layer starts over: look-at snaps, foot lock plants afresh, the springs rest where the next pose
    /// puts them.
    pub fn reset(&mut self) {
        self.look.reset();
        self.foot_lock.reset();
        self.springs.reset();
    }
}

/// Buffers the layers reuse between frames: model matrices and rotations of the joints they read.
#[derive(Clone, Debug, Default)]
pub struct LayerScratch {
    model: Vec<Mat4>,
    world: Vec<Quat>,
    /// The model matrices foot lock places the pose with.
    foot_lock_model: Vec<Mat4>,
}
