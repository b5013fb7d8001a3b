//! Shared helpers for integration tests: where the third-party assets live.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

mod assets;
#[allow(unused_imports)]
pub use assets::*;

/// A fresh temporary folder for one test.
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("animtune-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

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
