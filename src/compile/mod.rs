//! Compiling clips into the runtime's form ([`crate::runtime::Animation`]), what ozz's offline builder and
//! optimizer do, here run when a clip is bound: [`exact`] maps each track onto its joint and groups the channels
//! with every key as the clip has it; [`search`] packs the linear groups on the coarsest grids whose measured
//! error stays within [`COMPACT_TOLERANCE`]; [`pack`] writes channels into the packed form (shared with the
//! `.animclip` encoder). The runtime only samples what these build.

pub mod exact;
pub(crate) mod pack;
pub mod search;

pub use exact::HELD_EPSILON;
pub use search::COMPACT_TOLERANCE;
