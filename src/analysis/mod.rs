//! Headless measurements over evaluated poses: the root motion of a clip (the velocities Unity's Compute
//! Positions and `Motion.averageSpeed` read, and Compute Positions itself), foot contacts with the skate meter and
//! map, and the foot-phase markers blend spaces sync on.

pub mod contacts;
pub mod markers;
pub mod positions;
pub mod root_motion;

pub use contacts::{ContactSettings, Ground, SkateReport, clip_skate};
pub use root_motion::{RootMotionStats, root_motion};
