//! Test support shared by the integration tests, the benches and the library's unit tests: where the assets
//! live (the repository's `assets/`, and the extended fixtures outside it), and fresh temporary folders.
#![allow(dead_code)]

use std::path::PathBuf;

/// The variable naming the folder of the extended fixtures: files the repository may not redistribute (Mixamo's).
pub const EXTRA_ASSETS_VAR: &str = "ANIMTUNE_EXTRA_ASSETS";

/// The repository's `assets/` folder.
pub fn assets_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// Path of one file in `assets/`. Panics (failing the test) when it is missing.
pub fn asset(name: &str) -> PathBuf {
    let path = assets_dir().join(name);
    assert!(path.is_file(), "asset {} not found", path.display());
    path
}

/// Path of one extended fixture, in the folder `ANIMTUNE_EXTRA_ASSETS` names. Panics (failing the test) when the
/// variable is unset or the file is missing: an extended test is either ignored or runs on its real input.
pub fn extra_asset(name: &str) -> PathBuf {
    let dir = std::env::var_os(EXTRA_ASSETS_VAR).unwrap_or_else(|| {
        panic!("{EXTRA_ASSETS_VAR} is not set: the extended fixture {name} cannot be found")
    });
    let path = PathBuf::from(dir).join(name);
    assert!(
        path.is_file(),
        "extended fixture {} not found ({EXTRA_ASSETS_VAR})",
        path.display()
    );
    path
}

/// The Quaternius Universal Animation Library rig (53 joints, 46 clips).
pub fn quaternius() -> PathBuf {
    asset("quaternius_ual/AnimationLibrary_Godot_Standard.gltf")
}

/// An example preset from `assets/presets/`.
pub fn preset(name: &str) -> PathBuf {
    asset(&format!("presets/{name}"))
}

/// A fresh temporary folder for one test.
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("animtune-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
