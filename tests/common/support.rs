//! Test support shared by the integration tests and the library's unit tests: where the third-party assets
//! live, and fresh temporary folders.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared asset folder: `ANIMTUNE_TEST_ASSETS`, else `../shared/assets` beside the checkout.
/// Panics (failing the test) when it is missing: these tests must not pass silently without their inputs.
pub fn assets_dir() -> PathBuf {
    let dir = std::env::var_os("ANIMTUNE_TEST_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/assets"));
    assert!(
        dir.join("CesiumMan.glb").is_file(),
        "test assets not found in {} (set ANIMTUNE_TEST_ASSETS to the shared/assets folder)",
        dir.display()
    );
    dir
}

/// Path of one shared asset.
pub fn asset(name: &str) -> PathBuf {
    assets_dir().join(name)
}

/// The Quaternius Universal Animation Library rig (53 joints, 46 clips).
pub fn quaternius() -> PathBuf {
    asset("quaternius_ual/AnimationLibrary_Godot_Standard.gltf")
}

/// A fresh temporary folder for one test.
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("animtune-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
