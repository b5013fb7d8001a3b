//! Windows the editor opens over its panels.

pub mod browser;
pub mod controller_choice;
pub mod export;
pub mod files;
