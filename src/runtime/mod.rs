//! The animation runtime, in ozz-animation's shape: jobs with borrowed inputs and `&mut` outputs, a `validate()`
//! that checks them and a `run()` that allocates nothing and keeps no hidden state.
//!
//! - [`animation`]: a clip compiled for one skeleton (keys laid out for forward streaming, four joints a block).
//! - [`packed`]: the packed key streams a compiled clip keeps its linear keys in.
//! - [`sample`]: the sampling job and its per-clip cursor context.
//! - [`blend`]: weighted blending of sampled poses with hemisphere alignment and a rest-pose threshold.
//! - [`local_to_model`]: local transforms to model-space matrices, for the whole skeleton or one subtree.
//! - [`skin`]: skinning matrices (model × inverse bind) for one skin.
//! - [`ik_two_bone`] and [`ik_aim`]: ozz's IKTwoBoneJob and IKAimJob, local corrections to multiply in.

pub mod animation;
pub mod blend;
mod check;
pub mod ik_aim;
mod ik_math;
pub mod ik_two_bone;
pub mod inertialize;
pub mod local_to_model;
pub mod packed;
pub mod sample;
pub mod skin;

pub use animation::Animation;
pub use blend::{AdditiveLayer, BlendingJob, additive_delta};
pub use ik_aim::IkAimJob;
pub use ik_two_bone::IkTwoBoneJob;
pub use inertialize::{
    BoneStart, DeadBlendingJob, InertialOffsetJob, InertializationJob, TransitionStartJob,
};
pub use local_to_model::LocalToModelJob;
pub use sample::{SamplingContext, SamplingJob, fast_slerp, polynomial_slerp};
pub use skin::SkinningJob;

/// Why a job refused to run: its inputs do not fit together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    /// A buffer has the wrong length.
    #[error("{what} holds {got} entries, {expected} expected")]
    Length {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length the job needs.
        expected: usize,
    },
    /// A joint index is outside the skeleton.
    #[error("{what} is joint {joint}, outside the skeleton's {joints} joints")]
    Joint {
        /// Which input.
        what: &'static str,
        /// The index given.
        joint: usize,
        /// Joints in the skeleton.
        joints: usize,
    },
    /// A number is NaN or infinite.
    #[error("{0} is not a finite number")]
    NotFinite(&'static str),
    /// A vector that must have unit length does not.
    #[error("{0} is not a unit vector")]
    NotNormalized(&'static str),
}
