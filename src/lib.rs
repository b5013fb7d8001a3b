//! animtune: load humanoid characters from glTF/VRM, evaluate their clips into poses, and tune them.
//!
//! The library is the headless core; the `animtune` binary wraps it in a command line (and an editor).
#![warn(missing_docs)]

pub mod analysis;
#[cfg(feature = "editor")]
pub mod app;
pub mod blend;
#[cfg(feature = "cli")]
pub mod cli;
pub mod clipfile;
pub mod compile;
pub mod core;
pub mod demo;
pub mod eval;
pub mod fuzzing;
pub mod graph;
pub mod import;
pub mod io;
pub mod layers;
pub mod offline;
pub mod preset;
pub mod render;
pub mod runtime;

#[cfg(test)]
#[path = "../tests/common/support.rs"]
mod test_support;
