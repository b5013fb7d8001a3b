//! Hostile input to `bake`: each gives a clear error naming the file or flag (exit 1), or a bounded result with a
//! note; never a panic, a silent wrong result, or half-written output. Every file a bake writes is read back.

use std::path::Path;

use crate::common::{self, animtune, assert_clean_failure, assert_success, json_of, temp_dir};

/// The clips animtune reads from `file` (as `--clip-file`), through `inspect --json`.
fn clips_read_back(file: &Path) -> Vec<serde_json::Value> {
    let report = json_of(&animtune(&["inspect", file.to_str().unwrap(), "--json"]));
    report["clips"].as_array().unwrap().clone()
}

/// A glTF bake of an `.animclip` whose morph-weight track drives no mesh of the model: the track is left out
/// with a note naming it, and the `.glb` (with no other motion left) still opens as a clip of the bake's length,
/// as a model and as a `--clip-file`.
#[test]
fn a_gltf_bake_of_an_unbound_morph_track_notes_it_and_reads_back() {
    let dir = temp_dir("hostile-morph");
    let morph = common::asset("morph_sampler.glb");
    let animclip = dir.join("linear.animclip");
    assert_success(&animtune(&[
        "bake",
        morph.to_str().unwrap(),
        "--clip",
        "Linear",
        "-o",
        animclip.to_str().unwrap(),
    ]));
    let q = common::quaternius();
    for (model, extra) in [
        (q.to_str().unwrap(), None),
        (morph.to_str().unwrap(), Some("--animation-only")),
    ] {
        let out = dir.join("out.glb");
        let mut args = vec![
            "bake",
            model,
            "--clip-file",
            animclip.to_str().unwrap(),
            "--format",
            "gltf",
            "-o",
            out.to_str().unwrap(),
            "--force",
        ];
        args.extend(extra);
        let bake = animtune(&args);
        assert_success(&bake);
        let err = String::from_utf8_lossy(&bake.stderr);
        assert!(
            err.contains("morph-weight tracks left out of the file: 'Quad' (3 weights)"),
            "{err}"
        );
        let clips = clips_read_back(&out);
        assert_eq!(clips.len(), 1, "{model}: {clips:?}");
        assert_eq!(clips[0]["duration"], 2.0, "{model}");
        assert_success(&animtune(&[
            "pose",
            model,
            "--clip-file",
            out.to_str().unwrap(),
            "--time",
            "1",
        ]));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bake MODEL --clip X --foot-lock` bakes the clip under foot lock: its frame at t is the pose `pose --foot-lock
/// --fps F` gives at t, not the plain clip's; a rig foot lock cannot run on is refused naming the model and the
/// flag, and nothing is written. The sibling flags refuse what they cannot do rather than bake without it.
#[test]
fn foot_lock_applies_to_a_clip_bake_and_a_rig_without_legs_is_refused() {
    let dir = temp_dir("hostile-foot-lock");
    let out = dir.join("walk.animclip");
    let o = out.to_str().unwrap();
    assert_success(&animtune(&[
        "bake",
        "mannequin",
        "--clip",
        "WalkForward",
        "--foot-lock",
        "--fps",
        "30",
        "--no-quantize",
        "-o",
        o,
    ]));
    let shin = |args: &[&str]| -> [f64; 3] {
        let pose = json_of(&animtune(args));
        let t = &common::pose_joint(&pose, "human_bone", "LeftLowerLeg")["model"]["translation"];
        [0, 1, 2].map(|i| t[i].as_f64().unwrap())
    };
    let baked = shin(&["pose", "mannequin", "--baked", o, "--time", "0.5", "--json"]);
    let locked = shin(&[
        "pose",
        "mannequin",
        "--clip",
        "WalkForward",
        "--foot-lock",
        "--fps",
        "30",
        "--time",
        "0.5",
        "--json",
    ]);
    let plain = shin(&[
        "pose",
        "mannequin",
        "--clip",
        "WalkForward",
        "--time",
        "0.5",
        "--json",
    ]);
    let far = |a: [f64; 3], b: [f64; 3]| (0..3).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max);
    assert!(far(baked, locked) < 2e-4, "{baked:?} vs {locked:?}");
    assert!(
        far(baked, plain) > 1e-3,
        "foot lock moved no leg: {baked:?}"
    );

    let fox = common::asset("Fox.glb");
    let fox_out = dir.join("fox.animclip");
    assert_clean_failure(
        &animtune(&[
            "bake",
            fox.to_str().unwrap(),
            "--clip",
            "Walk",
            "--foot-lock",
            "-o",
            fox_out.to_str().unwrap(),
        ]),
        &["Fox.glb", "--foot-lock"],
    );
    assert!(!fox_out.exists());
    assert_clean_failure(
        &animtune(&[
            "bake",
            "mannequin",
            "--clip",
            "WalkForward",
            "--look-solver",
            "unity-original",
            "-o",
            fox_out.to_str().unwrap(),
        ]),
        &["--look-solver", "--look-at"],
    );
    assert_clean_failure(
        &animtune(&[
            "bake",
            "mannequin",
            "--all",
            "--foot-lock",
            "-o",
            dir.join("all").to_str().unwrap(),
        ]),
        &["--all", "--foot-lock"],
    );
    assert!(!fox_out.exists() && !dir.join("all").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A copy of the three-vrm test VRMA whose look-at track reads `values` (`interpolation`, over the file's seven
/// key times), carried by a second, data-URI buffer.
fn vrma_with_look_at(out: &Path, values: &[[f32; 4]], interpolation: &str) {
    common::edit_glb(&common::asset("three-vrm_test.vrma"), out, |doc| {
        let bytes: Vec<u8> = values
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::encode(&bytes)
        );
        let buffers = doc["buffers"].as_array_mut().unwrap();
        buffers.push(serde_json::json!({"byteLength": bytes.len(), "uri": uri}));
        let buffer = buffers.len() - 1;
        let views = doc["bufferViews"].as_array_mut().unwrap();
        views.push(serde_json::json!({"buffer": buffer, "byteLength": bytes.len()}));
        let view = views.len() - 1;
        let accessors = doc["accessors"].as_array_mut().unwrap();
        accessors.push(
            serde_json::json!({"bufferView": view, "componentType": 5126,
            "count": values.len(), "type": "VEC4"}),
        );
        let accessor = accessors.len() - 1;
        let node = doc["extensions"]["VRMC_vrm_animation"]["lookAt"]["node"].clone();
        let animation = &mut doc["animations"][0];
        let channel = animation["channels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["target"]["node"] == node)
            .unwrap()
            .clone();
        let sampler = &mut animation["samplers"][channel["sampler"].as_u64().unwrap() as usize];
        sampler["output"] = serde_json::json!(accessor);
        sampler["interpolation"] = serde_json::json!(interpolation);
    });
}

/// A VRM Animation's look-at track: a zero quaternion key is refused naming the file, the key and the look-at;
/// non-unit keys with huge cubic-spline tangents are normalised and bounded with a warning, so the eyes turn only
/// as the keys do (sideways: no look up or down) and the VRMA bake of it reads back.
#[test]
fn a_vrma_look_at_track_with_zero_keys_or_huge_tangents_is_refused_or_bounded() {
    let dir = temp_dir("hostile-look-at");
    let godette = common::asset("Godette_vrm_v4.vrm");
    let godette = godette.to_str().unwrap();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let yaws = [
        [0.0, 0.0, 0.0, 1.0],
        [0.0, h, 0.0, h],
        [0.0, 0.5, 0.0, 0.5],
        [0.0, h, 0.0, h],
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 0.3, 0.0, 1.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let zero = dir.join("zero.vrma");
    let mut keys = yaws;
    keys[2] = [0.0; 4];
    vrma_with_look_at(&zero, &keys, "LINEAR");
    let (zero_s, zero_out) = (zero.to_str().unwrap(), dir.join("zero.out.vrma"));
    for args in [
        vec!["pose", godette, "--clip-file", zero_s],
        vec![
            "bake",
            godette,
            "--clip-file",
            zero_s,
            "--format",
            "vrma",
            "-o",
            zero_out.to_str().unwrap(),
        ],
    ] {
        assert_clean_failure(
            &animtune(&args),
            &["zero.vrma", "look-at", "rotation key 2", "zero quaternion"],
        );
    }
    assert!(!zero_out.exists());

    let spline = dir.join("spline.vrma");
    let huge: Vec<[f32; 4]> = yaws
        .iter()
        .enumerate()
        .flat_map(|(i, q)| {
            let t = if i % 2 == 0 { 1e30 } else { -1e30 };
            [[0.0, t, 0.0, 0.0], q.map(|c| 2.0 * c), [0.0, -t, 0.0, 0.0]]
        })
        .collect();
    vrma_with_look_at(&spline, &huge, "CUBICSPLINE");
    let looks = |clip_file: &Path, time: &str| -> serde_json::Value {
        let pose = json_of(&animtune(&[
            "pose",
            godette,
            "--clip-file",
            clip_file.to_str().unwrap(),
            "--time",
            time,
            "--json",
        ]));
        pose["expressions"].clone()
    };
    for time in ["0.2", "0.7", "1.2", "2.2"] {
        let e = looks(&spline, time);
        for name in ["lookUp", "lookDown"] {
            assert_eq!(e[name], 0.0, "{time}: {e}");
        }
    }
    let out = dir.join("spline.out.vrma");
    let bake = animtune(&[
        "bake",
        godette,
        "--clip-file",
        spline.to_str().unwrap(),
        "--format",
        "vrma",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_success(&bake);
    let err = String::from_utf8_lossy(&bake.stderr);
    assert!(
        err.contains("spline.vrma") && err.contains("tangent"),
        "{err}"
    );
    assert_eq!(clips_read_back(&out).len(), 1);
    // The VRMA keeps the keys (linear between them), normalised: at a key time the eyes look as there.
    let (at_key, baked) = (looks(&spline, "0.5"), looks(&out, "0.5"));
    for name in ["lookLeft", "lookRight", "lookUp", "lookDown"] {
        let (a, b) = (
            at_key[name].as_f64().unwrap(),
            baked[name].as_f64().unwrap(),
        );
        assert!((a - b).abs() < 1e-4, "{name}: {at_key} vs {baked}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bake --per-node` checks every output path before it writes: an existing `preset.json` (or node file) without
/// --force refuses the bake naming it and writes nothing; two nodes playing one clip get distinct files; with
/// --force everything is written and reads back.
#[test]
fn a_per_node_bake_refused_for_an_existing_file_writes_nothing() {
    let dir = temp_dir("hostile-per-node");
    let preset_out = animtune(&["preset", "default"]);
    assert_success(&preset_out);
    let mut preset: serde_json::Value = serde_json::from_slice(&preset_out.stdout).unwrap();
    let nodes = preset["blend"]["nodes"].as_array_mut().unwrap();
    let mut twin = nodes[0].clone();
    twin["position"] = serde_json::json!([0.4, 0.4]);
    nodes.push(twin);
    let count = nodes.len();
    let preset_file = dir.join("twins.json");
    std::fs::write(&preset_file, serde_json::to_vec(&preset).unwrap()).unwrap();
    let out = dir.join("nodes");
    std::fs::create_dir_all(&out).unwrap();
    let existing = out.join("preset.json");
    std::fs::write(&existing, "keep me").unwrap();
    let bake = |force: bool| {
        let mut args = vec![
            "bake",
            "mannequin",
            "--preset",
            preset_file.to_str().unwrap(),
            "--per-node",
            "--fps",
            "10",
            "-o",
            out.to_str().unwrap(),
        ];
        if force {
            args.push("--force");
        }
        animtune(&args)
    };
    assert_clean_failure(
        &bake(false),
        &["preset.json", "--force", "nothing was written"],
    );
    let listing = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(listing(), ["preset.json"]);
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");

    assert_success(&bake(true));
    let names = listing();
    assert_eq!(names.len(), count + 1, "{names:?}");
    assert!(
        names.contains(&format!("Idle_{}.animclip", count - 1)),
        "{names:?}"
    );
    assert_success(&animtune(&[
        "preset",
        "validate",
        existing.to_str().unwrap(),
    ]));
    for name in names.iter().filter(|n| n.ends_with(".animclip")) {
        assert_success(&animtune(&[
            "clip",
            "info",
            out.join(name).to_str().unwrap(),
        ]));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
