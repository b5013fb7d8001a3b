//! `bake --extract-root` and `--root-into-pose`: Quaternius's Roll_RM (root motion on its `root` joint) moved
//! into the pose and extracted again, checked from outside through `inspect` and `pose` of the written files,
//! and the flags' errors.

use crate::common::{self, animtune, assert_clean_failure, assert_success, json_of};

fn first_clip(file: &str) -> serde_json::Value {
    json_of(&animtune(&["inspect", file, "--json"]))["clips"][0].clone()
}

fn horizontal_speed(motion: &serde_json::Value) -> f64 {
    let v = &motion["velocity"];
    v[0].as_f64().unwrap().hypot(v[2].as_f64().unwrap())
}

#[test]
fn root_motion_moved_into_the_pose_then_extracted_again_returns_to_the_root_joint() {
    let dir = common::temp_dir("root-pass");
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    let in_pose = dir.join("in_pose.glb");
    let in_pose = in_pose.to_str().unwrap();
    let out = animtune(&[
        "bake",
        q,
        "--clip",
        "Roll_RM",
        "--root-into-pose",
        "xz,yaw,y",
        "--format",
        "gltf",
        "-o",
        in_pose,
    ]);
    assert_success(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("moved into the pose"), "{text}");

    let source = json_of(&animtune(&["inspect", q, "--json"]))["clips"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Roll_RM")
        .unwrap()
        .clone();
    let original = horizontal_speed(&source["root_joint_motion"]);
    assert!(original > 3.0, "Roll_RM's root travels: {source}");
    let held = first_clip(in_pose);
    assert!(
        horizontal_speed(&held["root_joint_motion"]) < 1e-4,
        "{held}"
    );
    // The body still travels as it did: the hips' motion is the source's.
    let hips = horizontal_speed(&held["root_motion"]);
    assert!(
        (hips - horizontal_speed(&source["root_motion"])).abs() < 1e-3,
        "{held}"
    );

    let extracted = dir.join("extracted.glb");
    let extracted = extracted.to_str().unwrap();
    let json = json_of(&animtune(&[
        "bake",
        in_pose,
        "--clip",
        "0",
        "--extract-root",
        "xz,yaw",
        "--root-from",
        "hips",
        "--format",
        "gltf",
        "-o",
        extracted,
        "--json",
    ]));
    let report = &json[0]["root_pass"];
    assert_eq!(report["pass"], "extract");
    assert_eq!(report["root_joint"], "root");
    assert!(
        report["hips_from_root_max_cm"].as_f64().unwrap() <= 35.0,
        "{report}"
    );
    let back = first_clip(extracted);
    let speed = horizontal_speed(&back["root_joint_motion"]);
    assert!(
        (speed - original).abs() <= 0.05 * original,
        "the extracted root travels at {speed} m/s, Roll_RM's at {original}"
    );
    // Every joint where Roll_RM puts it, through two passes and two bakes.
    for t in ["0.3", "0.9", "1.4"] {
        let pose = |file: &str, clip: &str| {
            json_of(&animtune(&[
                "pose", file, "--clip", clip, "--time", t, "--json",
            ]))
        };
        let a = pose(q, "Roll_RM");
        let b = pose(extracted, "0");
        for joint in a["joints"].as_array().unwrap() {
            if joint["name"] == "root" {
                continue;
            }
            let other = common::pose_joint(&b, "name", joint["name"].as_str().unwrap());
            for i in 0..3 {
                let d = joint["model"]["translation"][i].as_f64().unwrap()
                    - other["model"]["translation"][i].as_f64().unwrap();
                assert!(d.abs() < 1e-4, "{} at {t} s: {d} m", joint["name"]);
            }
        }
    }
}

#[test]
fn root_pass_flags_are_refused_by_name() {
    let dir = common::temp_dir("root-pass-flags");
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    let out = dir.join("x.animclip");
    let out = out.to_str().unwrap();
    // A malformed flag is a usage error (clap's exit 2), naming the flag and the word.
    let usage = animtune(&[
        "bake",
        q,
        "--clip",
        "Roll_RM",
        "--extract-root",
        "xz,pitch",
        "-o",
        out,
    ]);
    assert_eq!(usage.status.code(), Some(2));
    let err = String::from_utf8_lossy(&usage.stderr);
    assert!(
        err.contains("--extract-root") && err.contains("pitch"),
        "{err}"
    );
    assert_clean_failure(
        &animtune(&[
            "bake",
            q,
            "--clip",
            "Roll_RM",
            "--root-lock",
            "zero",
            "-o",
            out,
        ]),
        &["--root-lock", "--extract-root"],
    );
    assert_clean_failure(
        &animtune(&[
            "bake",
            q,
            "--clip",
            "Roll_RM",
            "--extract-root",
            "xz",
            "--foot-lock",
            "-o",
            out,
        ]),
        &["--extract-root", "--foot-lock"],
    );
    // The mannequin's hips are its top joint: nothing above them can carry root motion.
    assert_clean_failure(
        &animtune(&[
            "bake",
            "mannequin",
            "--clip",
            "WalkForward",
            "--extract-root",
            "xz",
            "-o",
            out,
        ]),
        &["WalkForward", "no joint above it"],
    );
    assert!(!std::path::Path::new(out).exists());
}
