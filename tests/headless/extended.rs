//! The extended tests (those needing fixtures outside the repository, `ANIMTUNE_EXTRA_ASSETS`): without their
//! fixtures they are reported as not run (ignored), never as passed, and asked to run without them they fail.
//! Checked by running this test binary itself on one extended test.

use std::process::{Command, Output};

/// An extended test of this binary that needs a fixture outside the repository.
const EXTENDED_TEST: &str = "import_assets::broken_vrm_reports_missing_required_bones";

/// This test binary, run on the one extended test with `args`, and `ANIMTUNE_EXTRA_ASSETS` set to `extra`.
fn run_extended_test(args: &[&str], extra: Option<&std::path::Path>) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([EXTENDED_TEST, "--exact", "--test-threads", "1"])
        .args(args)
        .env_remove("ANIMTUNE_EXTRA_ASSETS");
    if let Some(dir) = extra {
        cmd.env("ANIMTUNE_EXTRA_ASSETS", dir);
    }
    cmd.output().unwrap()
}

#[test]
fn an_extended_test_without_its_fixture_is_reported_as_not_run() {
    let out = run_extended_test(&[], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "test {EXTENDED_TEST} ... ignored, extended: needs ANIMTUNE_EXTRA_ASSETS"
        )),
        "{text}"
    );
    assert!(text.contains("0 passed; 0 failed; 1 ignored"), "{text}");
}

#[test]
fn an_extended_test_made_to_run_without_its_fixture_fails() {
    let empty = crate::common::temp_dir("no-extended-fixtures");
    for extra in [None, Some(empty.as_path())] {
        let out = run_extended_test(&["--include-ignored"], extra);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success(), "{extra:?}: {text}");
        assert!(
            text.contains("0 passed; 1 failed; 0 ignored"),
            "{extra:?}: {text}"
        );
    }
}
