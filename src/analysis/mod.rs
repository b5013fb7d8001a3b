//! Headless measurements over evaluated poses: the root motion of a clip (the velocities Unity's Compute
//! Positions and `Motion.averageSpeed` read, and Compute Positions itself), foot contacts with the skate meter and
//! map, the foot-phase markers blend spaces sync on, and "New space from clips" (a space laid out from the clips'
//! names and measured speeds).

pub mod contacts;
pub mod foot_markers;
pub mod positions;
pub mod root_motion;
pub mod suggest;

pub use contacts::{ContactSettings, Ground, SkateReport, clip_skate};
pub use root_motion::{RootMotionStats, root_motion};

/// The error an analysis stops with when its progress callback asks it to (a newer request, or the document
/// changed under it).
pub const CANCELLED: &str = "cancelled";
