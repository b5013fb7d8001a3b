//! What a source samples at (the clock's times) and into (its output buffers).

use glam::{Quat, Vec3};

/// The clock's times a source samples at.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SourceTime {
    /// A clip's time (seconds).
    pub(crate) time: f64,
    /// A blend space's phase, in [0, 1].
    pub(crate) phase: f64,
    /// Seconds played since the last seek (a node on its own clock).
    pub(crate) elapsed: f64,
    /// Whole cycles looped through since the last seek.
    pub(crate) cycles: i64,
}

/// Where a source writes: the local pose, the meshes' morph weights (holding their defaults), the expression
/// weights (holding zeros), the look-at rotation of a VRM Animation track, and the model-space travel an in-place
/// clip took out of the pose.
pub(crate) struct SourceOut<'a> {
    pub(crate) pose: &'a mut [crate::core::Transform],
    pub(crate) morph: &'a mut [Vec<f32>],
    pub(crate) expressions: &'a mut [f32],
    pub(crate) look: &'a mut Option<Quat>,
    pub(crate) treadmill: &'a mut Vec3,
}
