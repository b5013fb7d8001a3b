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
        assert_same_joints_but(&pose(q, "Roll_RM"), &pose(extracted, "0"), "root", 1e-4);
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
    // The mannequin's hips are its top joint: it has no root motion to move into the pose.
    assert_clean_failure(
        &animtune(&[
            "bake",
            "mannequin",
            "--clip",
            "WalkForward",
            "--root-into-pose",
            "xz",
            "-o",
            out,
        ]),
        &["WalkForward", "no joint above it"],
    );
    assert!(!std::path::Path::new(out).exists());
}

/// Every joint of `a` but `except` at the model-space position `b` (a `pose --json` of another file) gives the
/// joint of the same name, within `tolerance_m` per axis.
fn assert_same_joints_but(
    a: &serde_json::Value,
    b: &serde_json::Value,
    except: &str,
    tolerance_m: f64,
) {
    for joint in a["joints"].as_array().unwrap() {
        if joint["name"] == except {
            continue;
        }
        let other = common::pose_joint(b, "name", joint["name"].as_str().unwrap());
        for i in 0..3 {
            let d = joint["model"]["translation"][i].as_f64().unwrap()
                - other["model"]["translation"][i].as_f64().unwrap();
            assert!(d.abs() < tolerance_m, "{}: {d} m", joint["name"]);
        }
    }
}

#[test]
fn extracting_root_motion_on_a_rig_without_a_root_adds_one_above_the_hips() {
    let dir = common::temp_dir("root-pass-added");
    let out = dir.join("walk.glb");
    let out = out.to_str().unwrap();
    let json = json_of(&animtune(&[
        "bake",
        "mannequin",
        "--clip",
        "WalkForward",
        "--extract-root",
        "xz,yaw",
        "--format",
        "gltf",
        "-o",
        out,
        "--json",
    ]));
    let report = &json[0]["root_pass"];
    assert_eq!(report["added_root"], true, "{report}");
    assert_eq!(report["root_joint"], "Root");
    let joints = json_of(&animtune(&["inspect", out, "--json"]))["joints"].clone();
    let root = joints
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["name"] == "Root")
        .expect("the written file has the added root among its joints");
    let hips = joints
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["human_bone"] == "Hips")
        .unwrap();
    assert_eq!(hips["parent"], root["index"]);
    let clip = first_clip(out);
    assert!(horizontal_speed(&clip["root_joint_motion"]) > 0.5, "{clip}");
    for t in ["0.2", "0.6"] {
        let pose = |file: &str, clip: &str| {
            json_of(&animtune(&[
                "pose", file, "--clip", clip, "--time", t, "--json",
            ]))
        };
        assert_same_joints_but(
            &pose("mannequin", "WalkForward"),
            &pose(out, "0"),
            "Root",
            1e-4,
        );
    }
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn a_mixamo_fbx_take_gets_a_root_joint_carrying_its_travel_and_turn() {
    let dir = common::temp_dir("root-pass-mixamo");
    let fbx = common::extra_asset("fbx/mixamo.fbx");
    let fbx = fbx.to_str().unwrap();
    let out = dir.join("mixamo.glb");
    let out = out.to_str().unwrap();
    let json = json_of(&animtune(&[
        "bake",
        fbx,
        "--clip",
        "0",
        "--crop",
        "0,3",
        "--extract-root",
        "xz,yaw",
        "--format",
        "gltf",
        "-o",
        out,
        "--json",
    ]));
    let report = &json[0]["root_pass"];
    assert_eq!(report["added_root"], true, "{report}");
    assert!(report["error_cm"].as_f64().unwrap() <= 0.001, "{report}");
    for t in ["0.5", "1.7", "2.9"] {
        let a = json_of(&animtune(&[
            "pose", fbx, "--clip", "0", "--time", t, "--json",
        ]));
        let b = json_of(&animtune(&[
            "pose", out, "--clip", "0", "--time", t, "--json",
        ]));
        assert_same_joints_but(&a, &b, "Root", 1e-4);
    }
}
