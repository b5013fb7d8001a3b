//! Headless measurements over evaluated poses: the root motion of a clip (the velocities Unity's Compute
//! Positions and `Motion.averageSpeed` read, and Compute Positions itself), and foot contacts with the skate meter.

pub mod contacts;
pub mod positions;
pub mod root_motion;

pub use contacts::{ContactSettings, Ground, SkateReport, clip_skate};
pub use root_motion::{RootMotionStats, root_motion};
