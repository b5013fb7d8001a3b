//! The state machine: its data as presets hold it ([`machine`]), its player under Unity's transition rules with
//! Godot's, inertialization and dead blending as selectable models ([`player`], [`crate::runtime::inertialize`]), and parameter
//! scripts ([`script`]), and the edits a graph view makes ([`edit`]). Headless: the Evaluator samples and blends the motions the player names.

pub mod edit;
pub mod machine;
pub mod player;
pub mod script;

pub use edit::MachineEdit;
pub use machine::{
    Condition, ConditionMode, InterruptionSource, MachineError, Parameter, ParameterKind,
    ParameterValue, State, StateMachine, Transition, TransitionModel,
};
pub use player::{ActiveTransition, MachineEvent, MachinePlayer, Motion, StateInfo, Term};
pub use script::{Script, ScriptCursor, ScriptEvent};
