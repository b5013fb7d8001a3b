//! What the Evaluator samples before the layers: the rest pose, one clip, a blend space or a state machine. Each
//! source samples into one output (pose, morph weights, expression weights, a look-at rotation, the treadmill)
//! at the times the clock gives; compiled clips are shared through one cache (`compiled.rs`), and blend nodes
//! are sampled by one node sampler (`nodes.rs`) whether a blend space or a machine's blend state plays them.

pub(crate) mod blend;
pub(crate) mod clip;
pub(crate) mod compiled;
pub(crate) mod face;
pub(crate) mod frame;
pub(crate) mod look;
pub(crate) mod machine;
pub(crate) mod nodes;
pub(crate) mod player;

pub use compiled::Precision;
pub(crate) use frame::{SourceOut, SourceTime};
