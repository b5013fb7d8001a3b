//! A writer killed between writing its temp file and renaming it leaves the old file intact.

use crate::common;

use std::process::Command;

#[test]
fn killed_between_temp_file_and_rename_the_old_file_survives() {
    let dir = common::temp_dir("atomic-kill");
    let target = dir.join("mannequin.glb");
    std::fs::write(&target, b"the old file").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(["mannequin", "-o", target.to_str().unwrap(), "--force"])
        .env("ANIMTUNE_TEST_ABORT_BEFORE_RENAME", "1")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the writer was killed");
    assert_ne!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(&target).unwrap(), b"the old file");
    // The new bytes did reach the disk, in the temp file beside it, so the kill came after the write.
    let temps: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert_eq!(temps.len(), 1);
    assert_eq!(&std::fs::read(temps[0].path()).unwrap()[..4], b"glTF");
    // The same write, not killed, replaces the file.
    let ok = common::animtune(&["mannequin", "-o", target.to_str().unwrap(), "--force"]);
    assert!(ok.status.success());
    assert_eq!(&std::fs::read(&target).unwrap()[..4], b"glTF");
}

#[test]
fn model_limits_are_configurable_and_named_in_the_error() {
    let dir = common::temp_dir("limits");
    let glb = dir.join("m.glb");
    assert!(
        common::animtune(&["mannequin", "-o", glb.to_str().unwrap()])
            .status
            .success()
    );
    let g = glb.to_str().unwrap();
    common::assert_clean_failure(
        &common::animtune(&["inspect", g, "--max-vertices", "100"]),
        &["m.glb", "vertices", "limit of 100"],
    );
    common::assert_clean_failure(
        &common::animtune(&["inspect", g, "--max-joints", "10"]),
        &["m.glb", "skin joints", "limit of 10"],
    );
    common::assert_clean_failure(
        &common::animtune(&["inspect", g, "--max-file-mb", "0"]),
        &["m.glb", "over the 0-byte limit"],
    );
    let env = Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(["inspect", g])
        .env("ANIMTUNE_MAX_JOINTS", "5")
        .output()
        .unwrap();
    common::assert_clean_failure(&env, &["m.glb", "limit of 5", "ANIMTUNE_MAX_JOINTS"]);
    assert!(common::animtune(&["inspect", g]).status.success());
}
