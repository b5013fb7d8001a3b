//! Blend spaces: node weights over one or two parameters, influence maps, pose blending, and driving the point
//! as a game does.

pub mod drive;
pub mod heatmap;
pub mod markers;
pub mod sampler;
pub mod space;
pub mod tree;
pub mod weights;

pub use drive::{Drive, DriveParams};
pub use heatmap::{Heatmap, HeatmapView};
pub use sampler::BlendSampler;
pub use space::{BlendAxis, BlendNode, BlendSpace, BlendSpaceError, RootMotion, TimeSync};
pub use weights::{BlendMode, LayoutIssue, compute_weights, layout_issues, weights};
