//! Windows the editor opens over its panels.

pub mod export;
pub mod files;
