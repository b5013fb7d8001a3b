//! `animtune bake`, `clip info` and `pose --baked` from the command line.

mod common;

use std::process::{Command, Output};

use serde_json::Value;

fn animtune(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(args)
        .output()
        .unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn fails_cleanly(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for n in needles {
        assert!(err.contains(n), "'{n}' not in {err}");
    }
}

#[test]
fn bake_all_quaternius_clips_into_a_folder() {
    let dir = common::temp_dir("bake-all");
    let out = dir.join("clips");
    let q = common::quaternius();
    let report = json_of(&animtune(&[
        "bake",
        q.to_str().unwrap(),
        "--all",
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]));
    let rows = report.as_array().unwrap();
    assert_eq!(rows.len(), 46);
    for r in rows {
        assert!(r["max_error_cm"].as_f64().unwrap() <= 0.01, "{r}");
        assert!(r["bytes"].as_u64().unwrap() < r["raw_bytes"].as_u64().unwrap());
        assert!(std::path::Path::new(r["file"].as_str().unwrap()).is_file());
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 46);
    // A second bake into the same folder refuses to replace files without --force.
    let again = animtune(&[
        "bake",
        q.to_str().unwrap(),
        "--clip",
        "Walk_Loop",
        "-o",
        out.to_str().unwrap(),
    ]);
    fails_cleanly(&again, &["Walk_Loop.animclip", "--force"]);
}

#[test]
fn baked_pose_matches_the_source_pose_at_a_frame() {
    let dir = common::temp_dir("bake-pose");
    let file = dir.join("walk.animclip");
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    assert!(
        animtune(&[
            "bake",
            q,
            "--clip",
            "Walk_Loop",
            "-o",
            file.to_str().unwrap()
        ])
        .status
        .success()
    );
    let info = json_of(&animtune(&[
        "clip",
        "info",
        file.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(info["format"], "native");
    assert_eq!(info["name"], "Walk_Loop");
    assert_eq!(info["frame_rate"], 30.0);
    assert!(
        info["tracks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["human_bone"] == "Hips")
    );

    let t = "0.5";
    let source = json_of(&animtune(&[
        "pose",
        q,
        "--clip",
        "Walk_Loop",
        "--time",
        t,
        "--json",
    ]));
    let baked = json_of(&animtune(&[
        "pose",
        q,
        "--baked",
        file.to_str().unwrap(),
        "--time",
        t,
        "--json",
    ]));
    for (a, b) in source["joints"]
        .as_array()
        .unwrap()
        .iter()
        .zip(baked["joints"].as_array().unwrap())
    {
        assert_eq!(a["name"], b["name"]);
        for i in 0..3 {
            let d = a["model"]["translation"][i].as_f64().unwrap()
                - b["model"]["translation"][i].as_f64().unwrap();
            assert!(d.abs() < 1e-4, "{}: {d}", a["name"]);
        }
    }
    // The same clip binds to the mannequin through human bones.
    let on_mannequin = animtune(&[
        "pose",
        "mannequin",
        "--baked",
        file.to_str().unwrap(),
        "--time",
        t,
        "--json",
    ]);
    assert!(
        on_mannequin.status.success(),
        "{}",
        String::from_utf8_lossy(&on_mannequin.stderr)
    );
}

#[test]
fn unity_format_bakes_and_reads_back() {
    let dir = common::temp_dir("bake-unity");
    let file = dir.join("idle.bytes");
    let out = animtune(&[
        "bake",
        "mannequin",
        "--format",
        "unity",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info = json_of(&animtune(&[
        "clip",
        "info",
        file.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(info["format"], "unity");
    assert_eq!(info["name"], "Idle");
    let pose = json_of(&animtune(&[
        "pose",
        "mannequin",
        "--baked",
        file.to_str().unwrap(),
        "--time",
        "1.0",
        "--json",
    ]));
    assert_eq!(pose["clip"], "Idle");
}

#[test]
fn bad_bake_input_fails_cleanly() {
    let dir = common::temp_dir("bake-bad");
    let out = dir.join("x.animclip");
    let o = out.to_str().unwrap();
    fails_cleanly(
        &animtune(&["bake", "mannequin", "--fps", "0", "-o", o]),
        &["--fps"],
    );
    fails_cleanly(
        &animtune(&["bake", "mannequin", "--tolerance-cm", "NaN", "-o", o]),
        &["--tolerance-cm"],
    );
    let q = common::quaternius();
    fails_cleanly(
        &animtune(&["bake", q.to_str().unwrap(), "-o", o]),
        &["46 clips", "--all"],
    );
    let robot = common::asset("RobotExpressive.glb");
    fails_cleanly(
        &animtune(&["bake", robot.to_str().unwrap(), "--clip", "Nope", "-o", o]),
        &["Nope"],
    );

    // Broken clip files given to `clip info` and `pose --baked`.
    assert!(animtune(&["bake", "mannequin", "-o", o]).status.success());
    let bytes = std::fs::read(&out).unwrap();
    let cut = dir.join("cut.animclip");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    fails_cleanly(
        &animtune(&["clip", "info", cut.to_str().unwrap()]),
        &["cut.animclip"],
    );
    fails_cleanly(
        &animtune(&["pose", "mannequin", "--baked", cut.to_str().unwrap()]),
        &["cut.animclip"],
    );
    let mut newer = bytes.clone();
    newer[2 + "animtune-clip".len()] = 7;
    let newer_path = dir.join("newer.animclip");
    std::fs::write(&newer_path, &newer).unwrap();
    fails_cleanly(
        &animtune(&["clip", "info", newer_path.to_str().unwrap()]),
        &["newer.animclip", "newer animtune", "version 7"],
    );
}
