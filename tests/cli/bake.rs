//! `animtune bake`, `clip info` and `pose --baked` from the command line.

use crate::common;

use crate::common::{animtune, assert_clean_failure, json_of, temp_dir};

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
    assert_clean_failure(&again, &["Walk_Loop.animclip", "--force"]);
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
    // Walk_Loop is keyed at 24 fps, every track linear: the default grid is the source's own keys.
    assert_eq!(info["frame_rate"], 24.0);
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
    common::assert_same_positions(&source, &baked, 1e-4);
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
    common::assert_success(&on_mannequin);
}

#[test]
fn unity_format_bakes_and_reads_back() {
    let dir = common::temp_dir("bake-unity");
    let file = dir.join("idle.bytes");
    let out = animtune(&[
        "bake",
        "mannequin",
        "--clip",
        "Idle",
        "--format",
        "unity",
        "-o",
        file.to_str().unwrap(),
    ]);
    common::assert_success(&out);
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
fn bad_bake_input_assert_clean_failure() {
    let dir = common::temp_dir("bake-bad");
    let out = dir.join("x.animclip");
    let o = out.to_str().unwrap();
    assert_clean_failure(
        &animtune(&["bake", "mannequin", "--fps", "0", "-o", o]),
        &["--fps"],
    );
    assert_clean_failure(
        &animtune(&["bake", "mannequin", "--tolerance-cm", "NaN", "-o", o]),
        &["--tolerance-cm"],
    );
    let q = common::quaternius();
    assert_clean_failure(
        &animtune(&["bake", q.to_str().unwrap(), "-o", o]),
        &["46 clips", "--all"],
    );
    let robot = common::asset("RobotExpressive.glb");
    assert_clean_failure(
        &animtune(&["bake", robot.to_str().unwrap(), "--clip", "Nope", "-o", o]),
        &["Nope"],
    );

    // Broken clip files given to `clip info` and `pose --baked`.
    assert!(
        animtune(&["bake", "mannequin", "--clip", "Idle", "-o", o])
            .status
            .success()
    );
    let bytes = std::fs::read(&out).unwrap();
    let cut = dir.join("cut.animclip");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert_clean_failure(
        &animtune(&["clip", "info", cut.to_str().unwrap()]),
        &["cut.animclip"],
    );
    assert_clean_failure(
        &animtune(&["pose", "mannequin", "--baked", cut.to_str().unwrap()]),
        &["cut.animclip"],
    );
    let mut newer = bytes.clone();
    newer[2 + "animtune-clip".len()] = 7;
    let newer_path = dir.join("newer.animclip");
    std::fs::write(&newer_path, &newer).unwrap();
    assert_clean_failure(
        &animtune(&["clip", "info", newer_path.to_str().unwrap()]),
        &["newer.animclip", "newer animtune", "version 7"],
    );
}

#[test]
fn the_default_grid_follows_the_source_and_a_fixed_rate_reports_its_honest_error() {
    let dir = common::temp_dir("bake-grid");
    let robot = common::asset("RobotExpressive.glb");
    let bake = |extra: &[&str], out: &str| {
        let out = dir.join(out);
        let mut args = vec![
            "bake",
            robot.to_str().unwrap(),
            "--clip",
            "Death",
            "--json",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        animtune(&args)
    };
    // RobotExpressive's Death has keys off a 30 fps grid: cutting those corners was 6.7 cm at the keys.
    let default = json_of(&bake(&[], "default.animclip"));
    let report = &default.as_array().unwrap()[0];
    assert!(report["max_error_cm"].as_f64().unwrap() <= 0.01, "{report}");
    // Its keys are one uniform 24 fps grid: the default grid is the source's own.
    assert_eq!(
        report["grid"], "24 fps: the source's own keys, all on one uniform grid",
        "{report}"
    );
    assert!(report["checked_times"].as_u64().unwrap() > report["frames"].as_u64().unwrap());
    // A fixed grid that misses the source is refused unless the user accepts the error it reports.
    let refused = bake(&["--fps", "30"], "fixed.animclip");
    assert_clean_failure(&refused, &["fixed.animclip", "over --tolerance-cm 0.01"]);
    let fixed = bake(&["--fps", "30", "--accept-error"], "fixed.animclip");
    let fixed_json = json_of(&fixed);
    let report = &fixed_json.as_array().unwrap()[0];
    assert!(report["max_error_cm"].as_f64().unwrap() > 1.0, "{report}");
    assert_eq!(report["grid"], "30 fps");
    assert!(
        report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("over the 0.01 cm tolerance")),
        "the user is told the fixed grid misses the source: {report}"
    );
}

#[test]
fn clips_sharing_a_name_get_distinct_files_and_a_refused_one_writes_nothing() {
    let dir = common::temp_dir("bake-names");
    let fox = common::asset("Fox.glb");
    let out = dir.join("out");
    let bake = |clips: &[&str], force: bool| {
        let mut args = vec!["bake", fox.to_str().unwrap(), "-o", out.to_str().unwrap()];
        for c in clips {
            args.extend(["--clip", c]);
        }
        if force {
            args.push("--force");
        }
        animtune(&args)
    };
    // The same name twice (here the same clip): two files, the second with its index.
    assert!(bake(&["Run", "Run"], false).status.success());
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["Run.animclip", "Run_2.animclip"]);
    // Run.animclip exists: without --force nothing at all is written, Walk included.
    let refused = bake(&["Walk", "Run"], false);
    assert_clean_failure(
        &refused,
        &["Run.animclip", "--force", "nothing was written"],
    );
    assert!(!out.join("Walk.animclip").exists());
    assert!(bake(&["Walk", "Run"], true).status.success());
    assert!(out.join("Walk.animclip").exists());
}

#[test]
fn stream_bake_errors_name_the_preset_or_the_path_file() {
    let dir = common::temp_dir("bake-stream-errors");
    let out = dir.join("x.animclip");
    let fox = common::preset("fox_walk_run.json");
    let fox = fox.to_str().unwrap();
    let missing = animtune(&[
        "bake",
        "mannequin",
        "--preset",
        fox,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_clean_failure(&missing, &["fox_walk_run.json", "Walk, Run"]);
    let path = dir.join("far.json");
    std::fs::write(
        &path,
        r#"[{"time":0,"point":[0,0]},{"time":1e30,"point":[1,0]}]"#,
    )
    .unwrap();
    let q = common::preset("quaternius_locomotion.json");
    let q = q.to_str().unwrap();
    let far = animtune(&[
        "bake",
        "mannequin",
        "--preset",
        q,
        "--blend-path",
        path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_clean_failure(&far, &["far.json", "3600"]);
}

#[test]
fn a_stream_bake_carries_a_masked_clip_layer_into_the_glb() {
    // Idle with WalkForward on the left arm (procedural layers off), baked to glTF: the file replays what `pose`
    // evaluates with the same preset, within 0.01 cm at the joints.
    let dir = temp_dir("cli-bake-clip-layer");
    let preset = preset_without_procedural_layers(
        &dir.join("layered.json"),
        r#","clips":[{"clip":"WalkForward","parts":["left_arm","left_hand"]}]"#,
        "",
    );
    let glb = dir.join("layered.glb");
    common::assert_success(&animtune(&[
        "bake",
        "mannequin",
        "--preset",
        preset.to_str().unwrap(),
        "--clip",
        "Idle",
        "--duration",
        "1.0",
        "--fps",
        "30",
        "--format",
        "gltf",
        "-o",
        glb.to_str().unwrap(),
        "--force",
    ]));
    let model_positions = |j: &serde_json::Value| -> Vec<(String, [f64; 3])> {
        j["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let t = &x["model"]["translation"];
                (
                    x["name"].as_str().unwrap().to_string(),
                    [0, 1, 2].map(|c| t[c].as_f64().unwrap()),
                )
            })
            .collect()
    };
    for time in ["0.2", "0.5", "0.9"] {
        let live = json_of(&animtune(&[
            "pose",
            "mannequin",
            "--clip",
            "Idle",
            "--time",
            time,
            "--preset",
            preset.to_str().unwrap(),
            "--json",
        ]));
        let baked = json_of(&animtune(&[
            "pose",
            glb.to_str().unwrap(),
            "--time",
            time,
            "--json",
        ]));
        let baked: std::collections::HashMap<_, _> = model_positions(&baked).into_iter().collect();
        let mut worst = 0.0f64;
        for (name, p) in model_positions(&live) {
            let q = baked
                .get(&name)
                .unwrap_or_else(|| panic!("{name} not in the bake"));
            let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            worst = worst.max(d);
        }
        assert!(
            worst < 1e-4,
            "at {time} s the bake is {:.4} cm off",
            worst * 100.0
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn clip_settings_from_the_command_line_and_a_preset_make_the_clip_that_bakes() {
    let dir = temp_dir("cli-bake-clip-settings");
    let out = dir.join("walk.animclip");
    let bake = |extra: &[&str]| {
        let mut args = vec![
            "bake",
            "mannequin",
            "--clip",
            "WalkForward",
            "-o",
            out.to_str().unwrap(),
            "--force",
        ];
        args.extend_from_slice(extra);
        animtune(&args)
    };
    common::assert_success(&bake(&["--crop", "0.1,0.8", "--loop-pose"]));
    let info = json_of(&animtune(&[
        "clip",
        "info",
        out.to_str().unwrap(),
        "--json",
    ]));
    let duration = info["duration"].as_f64().unwrap();
    assert!((duration - 0.7).abs() < 1e-4, "{info}");
    // The cropped, looped clip ends where it starts.
    let pose = |time: &str| {
        json_of(&animtune(&[
            "pose",
            "mannequin",
            "--baked",
            out.to_str().unwrap(),
            "--time",
            time,
            "--json",
        ]))["joints"]
            .clone()
    };
    let (start, end) = (pose("0"), pose("0.7"));
    let rotation = |j: &serde_json::Value, name: &str| {
        j.as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap()["local"]["rotation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    for joint in ["LeftUpperLeg", "RightLowerArm"] {
        let (a, b) = (rotation(&start, joint), rotation(&end, joint));
        let d: f64 = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(d < 1e-3, "{joint}: {a:?} vs {b:?}");
    }
    assert_clean_failure(&bake(&["--crop", "0.5,9"]), &["WalkForward", "crop"]);
    let usage = bake(&["--crop", "0.5"]);
    assert_eq!(
        usage.status.code(),
        Some(2),
        "a malformed flag is a usage error"
    );
    assert!(String::from_utf8_lossy(&usage.stderr).contains("--crop"));
    // The same from a preset's clip_settings.
    let preset = dir.join("settings.json");
    std::fs::write(
        &preset,
        r#"{"format":"animtune-preset","version":3,"clip_settings":{"WalkForward":{"start":0.2,"end":0.9}}}"#,
    )
    .unwrap();
    common::assert_success(&bake(&["--preset", preset.to_str().unwrap()]));
    let info = json_of(&animtune(&[
        "clip",
        "info",
        out.to_str().unwrap(),
        "--json",
    ]));
    assert!(
        (info["duration"].as_f64().unwrap() - 0.7).abs() < 1e-4,
        "{info}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_mirrored_bake_is_the_clip_reflected_left_for_right() {
    let dir = temp_dir("cli-bake-mirror");
    let out = dir.join("mirrored.animclip");
    common::assert_success(&animtune(&[
        "bake",
        "mannequin",
        "--clip",
        "WalkForwardLeft",
        "--mirror",
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]));
    let model_position = |args: &[&str], joint: &str| -> [f64; 3] {
        let mut all = vec!["pose", "mannequin", "--time", "0.4", "--json"];
        all.extend_from_slice(args);
        let j = json_of(&animtune(&all));
        let t = common::pose_joint(&j, "name", joint)["model"]["translation"].clone();
        [0, 1, 2].map(|c| t[c].as_f64().unwrap())
    };
    let baked = ["--baked", out.to_str().unwrap()];
    let source = ["--clip", "WalkForwardLeft"];
    for (a, b) in [
        ("LeftHand", "RightHand"),
        ("RightFoot", "LeftFoot"),
        ("Head", "Head"),
    ] {
        let m = model_position(&baked, a);
        let o = model_position(&source, b);
        let reflected = [-o[0], o[1], o[2]];
        let d = (0..3)
            .map(|c| (m[c] - reflected[c]).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(d < 2e-4, "{a} is {:.4} cm from {b} reflected", d * 100.0);
    }
    // The same from a preset's clip settings, which `pose` applies.
    let preset = preset_without_procedural_layers(
        &dir.join("mirror.json"),
        "",
        r#","clip_settings":{"WalkForwardLeft":{"mirror":true}}"#,
    );
    let with_preset = [
        "--clip",
        "WalkForwardLeft",
        "--preset",
        preset.to_str().unwrap(),
    ];
    let m = model_position(&with_preset, "LeftHand");
    let o = model_position(&source, "RightHand");
    let d = ((m[0] + o[0]).powi(2) + (m[1] - o[1]).powi(2) + (m[2] - o[2]).powi(2)).sqrt();
    assert!(d < 2e-4, "the preset's mirror: {:.4} cm off", d * 100.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_preset_renames_a_clip_holds_it_without_loop_time_and_offsets_its_root_in_every_bake() {
    let dir = temp_dir("cli-bake-name-loop-offset");
    let preset = preset_without_procedural_layers(
        &dir.join("stride.json"),
        "",
        r#","clip_settings":{"WalkForward":{"name":"Stride","loop_time":false,"root_y_offset":0.1}}"#,
    );
    let out = dir.join("stride.animclip");
    common::assert_success(&animtune(&[
        "bake",
        "mannequin",
        "--preset",
        preset.to_str().unwrap(),
        "--clip",
        "Stride",
        "--duration",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]));
    let hips = |args: &[&str], time: &str| -> [f64; 3] {
        let mut all = vec!["pose", "mannequin", "--time", time, "--json"];
        all.extend_from_slice(args);
        let j = json_of(&animtune(&all));
        let t = common::pose_joint(&j, "name", "Hips")["model"]["translation"].clone();
        [0, 1, 2].map(|c| t[c].as_f64().unwrap())
    };
    let baked = ["--baked", out.to_str().unwrap()];
    let source = ["--clip", "WalkForward"];
    // Raised 0.1 m, in the bake and in `pose` with the preset.
    let (b, s) = (hips(&baked, "0.5"), hips(&source, "0.5"));
    assert!((b[1] - s[1] - 0.1).abs() < 2e-4, "{b:?} vs {s:?}");
    let named = ["--preset", preset.to_str().unwrap(), "--clip", "Stride"];
    let p = hips(&named, "0.5");
    assert!((p[1] - s[1] - 0.1).abs() < 1e-5, "{p:?} vs {s:?}");
    // The 1.1 s walk does not loop: after its end the 2 s bake holds its last pose.
    let (late, later) = (hips(&baked, "1.4"), hips(&baked, "1.9"));
    assert!(
        (0..3).all(|c| (late[c] - later[c]).abs() < 1e-5),
        "{late:?} vs {later:?}"
    );
    // The old name is gone once renamed.
    let old = animtune(&[
        "bake",
        "mannequin",
        "--preset",
        preset.to_str().unwrap(),
        "--clip",
        "WalkForward",
        "-o",
        dir.join("old.animclip").to_str().unwrap(),
    ]);
    assert_clean_failure(&old, &["no clip named 'WalkForward'", "Stride"]);
    // A new name another clip has is refused, naming both.
    let taken = preset_without_procedural_layers(
        &dir.join("taken.json"),
        "",
        r#","clip_settings":{"WalkForward":{"name":"Idle"}}"#,
    );
    let refused = animtune(&[
        "pose",
        "mannequin",
        "--preset",
        taken.to_str().unwrap(),
        "--time",
        "0.1",
    ]);
    assert_clean_failure(
        &refused,
        &["renames clip 'WalkForward' to 'Idle'", "already named"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes a preset at `path` with breath, look-at and twist off, `layers` added inside its layers and `rest` after
/// them (each starting with a comma, or empty); returns the path.
fn preset_without_procedural_layers(
    path: &std::path::Path,
    layers: &str,
    rest: &str,
) -> std::path::PathBuf {
    let off = r#""breath":{"enabled":false},"look_at":{"enabled":false},"twist":{"enabled":false}"#;
    let json =
        format!(r#"{{"format":"animtune-preset","version":4,"layers":{{{off}{layers}}}{rest}}}"#);
    std::fs::write(path, json).unwrap();
    path.to_path_buf()
}

/// A setting of the preset that cannot apply is blamed on the preset, by `bake` as by `pose` (bake named the
/// model: "mannequin: clip 'Idle': crop 0.8..0.2 s"); a clip layer on a clip the preset renamed says so.
#[test]
fn errors_in_a_presets_settings_name_the_preset() {
    let dir = temp_dir("preset-blame");
    let crop = preset_without_procedural_layers(
        &dir.join("bad_crop.json"),
        "",
        r#","clip_settings":{"Idle":{"start":0.8,"end":0.2}}"#,
    );
    let out = dir.join("idle.animclip");
    for args in [
        vec![
            "bake",
            "mannequin",
            "--clip",
            "Idle",
            "-o",
            out.to_str().unwrap(),
        ],
        vec!["pose", "mannequin", "--clip", "Idle", "--time", "0.1"],
    ] {
        let mut args = args;
        args.extend(["--preset", crop.to_str().unwrap()]);
        let failed = animtune(&args);
        assert_clean_failure(&failed, &["bad_crop.json", "Idle", "0.8"]);
        let err = String::from_utf8_lossy(&failed.stderr);
        assert!(!err.starts_with("error: mannequin"), "{err}");
    }
    let renamed = preset_without_procedural_layers(
        &dir.join("renamed.json"),
        r#","clips":[{"clip":"WalkForward","weight":0.5}]"#,
        r#","clip_settings":{"WalkForward":{"name":"Stride"}}"#,
    );
    for args in [
        vec![
            "bake",
            "mannequin",
            "--clip",
            "Idle",
            "--duration",
            "1",
            "-o",
            out.to_str().unwrap(),
        ],
        vec!["pose", "mannequin", "--clip", "Idle", "--time", "0.1"],
    ] {
        let mut args = args;
        args.extend(["--preset", renamed.to_str().unwrap()]);
        assert_clean_failure(
            &animtune(&args),
            &[
                "renamed.json",
                "clip layer 1 plays clip 'WalkForward'",
                "rename clip 'WalkForward' to 'Stride'",
            ],
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Named avatar masks (Unity's AvatarMask assets) that several clip layers share, saved in the preset: layers on a
/// shared mask pose exactly as layers carrying the same parts themselves; a layer naming a mask the preset lacks
/// is refused with the field.
#[test]
fn clip_layers_share_a_named_avatar_mask_from_the_preset() {
    let dir = temp_dir("avatar-masks");
    let layer = |extra: &str| {
        format!(
            r#"{{"clip":"WalkForward","weight":0.7{extra}}},{{"clip":"RunForward","weight":0.4,"mode":"additive"{extra}}}"#
        )
    };
    let own = preset_without_procedural_layers(
        &dir.join("own.json"),
        &format!(r#","clips":[{}]"#, layer(r#","parts":["left_arm","head"]"#)),
        "",
    );
    let shared = preset_without_procedural_layers(
        &dir.join("shared.json"),
        &format!(
            r#","clips":[{}],"masks":[{{"name":"Arm and head","parts":["left_arm","head"]}}]"#,
            layer(r#","parts":["right_leg"],"mask":"Arm and head""#)
        ),
        "",
    );
    let pose = |preset: &std::path::Path| {
        json_of(&animtune(&[
            "pose",
            "mannequin",
            "--preset",
            preset.to_str().unwrap(),
            "--clip",
            "Idle",
            "--time",
            "0.4",
            "--json",
        ]))["joints"]
            .clone()
    };
    assert_eq!(pose(&own), pose(&shared));
    let missing = preset_without_procedural_layers(
        &dir.join("missing.json"),
        r#","clips":[{"clip":"WalkForward","mask":"Nope"}]"#,
        "",
    );
    assert_clean_failure(
        &animtune(&["pose", "mannequin", "--preset", missing.to_str().unwrap()]),
        &["missing.json", "layers.clips[0].mask", "'Nope'"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Clips made from a take in a preset (`clip_splits`, each with its own settings) are clips like the others for
/// `pose` and `bake`; a split whose take the model lacks is refused, naming the preset.
#[test]
fn a_presets_clips_from_one_take_pose_and_bake() {
    let dir = temp_dir("preset-splits");
    let preset = preset_without_procedural_layers(
        &dir.join("splits.json"),
        "",
        r#","clip_splits":[{"take":"WalkForward","name":"Step"}],"clip_settings":{"Step":{"start":0.2,"end":0.6}}"#,
    );
    let p = preset.to_str().unwrap();
    let step = json_of(&animtune(&[
        "pose",
        "mannequin",
        "--preset",
        p,
        "--clip",
        "Step",
        "--time",
        "0.1",
        "--exact",
        "--json",
    ]));
    let walk = json_of(&animtune(&[
        "pose",
        "mannequin",
        "--clip",
        "WalkForward",
        "--time",
        "0.3",
        "--exact",
        "--json",
    ]));
    // Step at 0.1 s is the take at 0.3 s: every joint's local rotation (the hips' travel starts over).
    let rotations = |pose: &serde_json::Value| -> Vec<Vec<f64>> {
        pose["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                j["local"]["rotation"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect()
            })
            .collect()
    };
    for (a, b) in rotations(&step).iter().zip(rotations(&walk)) {
        let dot: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!(dot.abs() > 1.0 - 1e-6, "{a:?} against {b:?}");
    }
    let out = dir.join("step.animclip");
    common::assert_success(&animtune(&[
        "bake",
        "mannequin",
        "--preset",
        p,
        "--clip",
        "Step",
        "-o",
        out.to_str().unwrap(),
    ]));
    let info = json_of(&animtune(&[
        "clip",
        "info",
        out.to_str().unwrap(),
        "--json",
    ]));
    assert!(
        (info["duration"].as_f64().unwrap() - 0.4).abs() < 1e-3,
        "{info}"
    );
    let bad = preset_without_procedural_layers(
        &dir.join("bad_split.json"),
        "",
        r#","clip_splits":[{"take":"Nope","name":"Step"}]"#,
    );
    assert_clean_failure(
        &animtune(&["pose", "mannequin", "--preset", bad.to_str().unwrap()]),
        &["bad_split.json", "clip_splits", "take 'Nope'"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The springs' timing contract: frame k of a `bake --springs` at F fps is the pose `pose --springs --fps F`
/// gives at k/F (both step the springs k + 1 times by 1/F from their reset at the first pose), and the report
/// gives the loop seam the springs leave.
#[test]
fn a_spring_bake_frame_is_the_pose_springs_give_at_its_time() {
    let dir = temp_dir("bake-springs");
    let out = dir.join("godette.animclip");
    let model = common::asset("Godette_vrm_v4.vrm");
    let clip = common::asset("three-vrm_test.vrma");
    let (model, clip) = (model.to_str().unwrap(), clip.to_str().unwrap());
    let report = json_of(&animtune(&[
        "bake",
        model,
        "--clip-file",
        clip,
        "--clip",
        "0",
        "--springs",
        "--fps",
        "30",
        "--no-quantize",
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]));
    let seam = report[0]["spring_seam_cm"].as_f64().unwrap();
    assert!(
        seam > 0.01,
        "the springs leave a seam without a preroll: {seam} cm"
    );
    let tails = |args: &[&str]| -> Vec<(String, [f64; 3])> {
        let pose = json_of(&animtune(args));
        pose["joints"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["name"].as_str().unwrap().contains("Hair"))
            .map(|j| {
                let t = &j["model"]["translation"];
                (
                    j["name"].as_str().unwrap().to_string(),
                    [0, 1, 2].map(|i| t[i].as_f64().unwrap()),
                )
            })
            .collect()
    };
    let baked = tails(&[
        "pose",
        model,
        "--baked",
        out.to_str().unwrap(),
        "--time",
        "1",
        "--json",
    ]);
    let simulated = tails(&[
        "pose",
        model,
        "--clip-file",
        clip,
        "--springs",
        "--fps",
        "30",
        "--time",
        "1",
        "--json",
    ]);
    let still = tails(&["pose", model, "--clip-file", clip, "--time", "1", "--json"]);
    assert_eq!(baked.len(), 14);
    let far = |a: &[(String, [f64; 3])], b: &[(String, [f64; 3])]| {
        a.iter()
            .zip(b)
            .map(|((_, p), (_, q))| (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>().sqrt())
            .fold(0.0, f64::max)
    };
    assert!(far(&baked, &simulated) < 1e-4, "{baked:?}\n{simulated:?}");
    assert!(far(&baked, &still) > 1e-3, "the springs moved the hair");
}

/// `--springs` on a model without spring bones, and bad spring flags, fail naming the model or the flag.
#[test]
fn springs_without_spring_bones_or_with_bad_flags_fail_cleanly() {
    let cesium = common::asset("CesiumMan.glb");
    let cesium = cesium.to_str().unwrap();
    assert_clean_failure(
        &animtune(&["pose", cesium, "--springs", "--time", "1"]),
        &["CesiumMan.glb", "no spring bones"],
    );
    let out = temp_dir("bake-springs-none").join("x.animclip");
    assert_clean_failure(
        &animtune(&["bake", cesium, "--springs", "-o", out.to_str().unwrap()]),
        &["CesiumMan.glb", "no spring bones"],
    );
    let godette = common::asset("Godette_vrm_v4.vrm");
    let godette = godette.to_str().unwrap();
    assert_clean_failure(
        &animtune(&["pose", godette, "--springs", "--sway", "1,2", "--time", "1"]),
        &["--sway", "X,Y,Z,HZ"],
    );
    assert_clean_failure(
        &animtune(&["pose", godette, "--springs", "--fps", "0", "--time", "1"]),
        &["--fps"],
    );
    assert_clean_failure(
        &animtune(&["pose", godette, "--springs", "--time", "-1"]),
        &["--time", "cannot be negative"],
    );
}

/// `bake --format vrma`: a VRM Animation of the human bones on a normalized rig, which animtune reads back as a
/// VRMA (its humanoid table from `VRMC_vrm_animation`, its expression tracks) and plays on the character as the
/// source played; a character that is not a humanoid is refused naming it.
#[test]
fn a_vrma_export_plays_back_as_its_source_and_needs_a_humanoid() {
    let dir = temp_dir("bake-vrma");
    let out = dir.join("walk.vrma");
    let godette = common::asset("Godette_vrm_v4.vrm");
    let clip = common::asset("three-vrm_test.vrma");
    let (godette, clip) = (godette.to_str().unwrap(), clip.to_str().unwrap());
    let out_s = out.to_str().unwrap();
    common::assert_success(&animtune(&[
        "bake",
        godette,
        "--clip-file",
        clip,
        "--clip",
        "0",
        "--format",
        "vrma",
        "-o",
        out_s,
    ]));
    let inspect = json_of(&animtune(&["inspect", out_s, "--json"]));
    assert_eq!(inspect["humanoid"]["source"], "vrm1");
    assert_eq!(inspect["humanoid"]["bones"].as_object().unwrap().len(), 45);
    let heads = |clip_file: &str| {
        let pose = json_of(&animtune(&[
            "pose",
            godette,
            "--clip-file",
            clip_file,
            "--time",
            "1.5",
            "--json",
        ]));
        let head = common::pose_joint(&pose, "human_bone", "Head")["model"]["translation"].clone();
        (head, pose["expressions"]["happy"].as_f64().unwrap())
    };
    let (source_head, source_happy) = heads(clip);
    let (export_head, export_happy) = heads(out_s);
    for i in 0..3 {
        let d = source_head[i].as_f64().unwrap() - export_head[i].as_f64().unwrap();
        assert!(d.abs() < 1e-4, "{source_head} vs {export_head}");
    }
    assert_eq!((source_happy, export_happy), (1.0, 1.0));
    let fox = common::asset("Fox.glb");
    assert_clean_failure(
        &animtune(&[
            "bake",
            fox.to_str().unwrap(),
            "--clip",
            "Walk",
            "--format",
            "vrma",
            "-o",
            dir.join("fox.vrma").to_str().unwrap(),
        ]),
        &["VRM Animation needs a humanoid"],
    );
}

/// Bakes carry morph weights: RobotExpressive's Wave with a preset's expression, baked as a stream to glTF
/// (`weights` channels on the head meshes' nodes) and to `.animclip` (version 5's morph tracks), plays the same
/// weights as `pose` of the source.
#[test]
fn stream_bakes_carry_morph_weights_to_gltf_and_animclip() {
    let dir = temp_dir("bake-morph");
    let preset = common::surprised_preset(&dir);
    let robot = common::asset("RobotExpressive.glb");
    let (robot, preset) = (robot.to_str().unwrap(), preset.to_str().unwrap());
    let weights = common::morph_weights;
    let source = weights(&json_of(&animtune(&[
        "pose", robot, "--preset", preset, "--clip", "Wave", "--time", "0.5", "--json",
    ])));
    assert_eq!(source.len(), 3);
    let glb = dir.join("wave.glb");
    let animclip = dir.join("wave.animclip");
    for (out, format) in [(&glb, "gltf"), (&animclip, "native")] {
        common::assert_success(&animtune(&[
            "bake",
            robot,
            "--preset",
            preset,
            "--clip",
            "Wave",
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
        ]));
    }
    let from_glb = weights(&json_of(&animtune(&[
        "pose",
        glb.to_str().unwrap(),
        "--time",
        "0.5",
        "--json",
    ])));
    let from_animclip = weights(&json_of(&animtune(&[
        "pose",
        robot,
        "--baked",
        animclip.to_str().unwrap(),
        "--time",
        "0.5",
        "--json",
    ])));
    for baked in [&from_glb, &from_animclip] {
        assert_eq!(baked.len(), source.len(), "{baked:?}");
        for ((node, a), (other, b)) in source.iter().zip(baked) {
            assert_eq!(node, other);
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() < 1e-5, "{node}: {a:?} vs {b:?}");
            }
        }
    }
    assert!(source.iter().all(|(_, w)| w[1] == 0.5), "{source:?}");
}
