//! Windows the editor opens over its panels.

pub mod browser;
pub mod export;
pub mod files;
