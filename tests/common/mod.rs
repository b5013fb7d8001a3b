//! Shared helpers for integration tests: running the binary and checking its failures; the asset and
//! temporary-folder helpers come from support.rs (shared with the library's unit tests).
#![allow(dead_code)]

use std::process::{Command, Output};

mod support;
#[allow(unused_imports)]
pub use support::*;

/// Runs the built `animtune` binary.
pub fn animtune(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(args)
        .output()
        .unwrap()
}

/// The JSON a successful command printed.
pub fn json_of(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Bad input: exit code 1, one line on stderr containing every needle (the file and the problem), never a panic.
pub fn assert_clean_failure(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    for n in needles {
        assert!(err.contains(n), "'{n}' not in: {err}");
    }
}
