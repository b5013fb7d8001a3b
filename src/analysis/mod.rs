//! Headless measurements over evaluated poses: for now the root motion of a clip (the velocities Unity's Compute
//! Positions and `Motion.averageSpeed` read).

pub mod root_motion;

pub use root_motion::{RootMotionStats, root_motion};
