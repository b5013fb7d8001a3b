//! Pure animation data and math: transforms, skeletons, poses, clips, humanoid mapping.

pub mod binding;
pub mod character;
pub mod clip;
pub mod clip_pass;
pub mod clip_settings;
pub mod contacts;
pub mod expression;
pub mod fold;
pub mod gpu_fit;
pub mod human_bone;
pub mod humanoid;
pub mod ik_goals;
pub mod mesh;
pub mod metric;
pub mod morph;
pub mod naming;
pub mod pose;
pub mod skeleton;
pub mod spring;
pub mod transform;
pub mod unity_axes;
pub mod vrm_look_at;

pub use binding::{ClipBinding, HipsPlacement};
pub use character::Character;
pub use clip::{Clip, Interpolation, Keys, Track, TrackTarget, Wrap};
pub use clip_settings::{ClipSettings, ClipSplit};
pub use human_bone::HumanBone;
pub use humanoid::{HumanoidMap, MappingSource, TwistChain};
pub use ik_goals::IkGoals;
pub use pose::Pose;
pub use skeleton::{JointDef, Skeleton};
pub use transform::Transform;
