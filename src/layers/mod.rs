//! Layers over the animated pose, in the order source → clip layers → foot lock → breath → look-at → twist
//! correction → springs. Each is a function of (time, parameters, input pose) except the stateful ones: foot lock,
//! look-at smoothing and the springs, which the Evaluator steps and resets.

pub mod breath;
pub mod clip_layer;
pub mod easing;
pub mod foot_lock;
pub mod ik_goals;
pub mod look_at;
pub mod policy;
pub mod springs;
pub mod stack;
pub mod step;
pub mod twist;

pub use breath::{BreathParams, BreathRig};
pub use clip_layer::{AvatarMask, BodyPart, ClipLayer, LayerMode};
pub use easing::Easing;
pub use foot_lock::{FootLockParams, FootLockRig, FootLockState};
pub use ik_goals::{IkGoalsRig, IkGoalsScratch};
pub use look_at::{LookAtParams, LookAtRig, LookAtState, LookLimit};
pub use policy::{LayerFlags, SimulationRun};
pub use springs::{SpringParams, SpringRig, SpringState, SpringStep};
pub use stack::{LayerInput, LayerParams, LayerRig, LayerScratch, LayerState};
pub use step::Step;
pub use twist::{TwistParams, TwistRig};

use crate::core::{Character, HumanBone};

/// A parameter that cannot be used, named by its field path.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct ParamError {
    /// Field path, as in the preset JSON.
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

impl ParamError {
    /// An error about one field.
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        ParamError {
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// The same error with its field placed under a section (`breath` + `inhale_s` → `breath.inhale_s`).
    pub fn under(mut self, section: &str) -> Self {
        self.field = format!("{section}.{}", self.field);
        self
    }
}

/// Checks that a value is a finite number within [min, max].
pub fn check(field: &str, value: f32, min: f32, max: f32) -> Result<(), ParamError> {
    if !value.is_finite() {
        return Err(ParamError::new(field, "not a finite number"));
    }
    if value < min || value > max {
        return Err(ParamError::new(
            field,
            format!("{value} is out of range ({min} to {max})"),
        ));
    }
    Ok(())
}

/// Checks an optional axis override: when given, a non-zero finite vector.
pub fn check_axis(field: &str, axis: Option<[f32; 3]>) -> Result<(), ParamError> {
    match axis.map(glam::Vec3::from_array) {
        Some(v) if !v.is_finite() || v.length() < 1e-6 => {
            Err(ParamError::new(field, "must be a non-zero finite vector"))
        }
        _ => Ok(()),
    }
}

/// The axis to use: the override when it is usable, else the detected one.
pub fn chosen_axis(axis: Option<[f32; 3]>, detected: glam::Vec3) -> glam::Vec3 {
    axis.map(glam::Vec3::from_array)
        .filter(|a| a.is_finite() && a.length() > 1e-6)
        .map_or(detected, glam::Vec3::normalize)
}

/// The joint a layer parameter names: a humanoid bone (`Chest`) when the rig maps it, else a joint name.
pub fn resolve_joint(character: &Character, name: &str) -> Option<usize> {
    HumanBone::from_name(name)
        .and_then(|b| character.humanoid.joint(b))
        .or_else(|| character.skeleton.find_by_name(name))
}
