//! Content the project generates itself: the built-in mannequin and its clips.

pub mod locomotion;
pub mod mannequin;
