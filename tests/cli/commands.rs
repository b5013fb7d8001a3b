//! The `animtune` binary: JSON contracts and errors on bad input.

use crate::common;

use std::path::Path;

use serde_json::Value;

use crate::common::{animtune, assert_clean_failure, json_of};

#[test]
fn inspect_godette_lists_every_required_bone() {
    let path = common::asset("Godette_vrm_v4.vrm");
    let j = json_of(&animtune(&["inspect", path.to_str().unwrap(), "--json"]));
    assert_eq!(j["humanoid"]["source"], "vrm0");
    assert_eq!(
        j["humanoid"]["missing_required"].as_array().unwrap().len(),
        0
    );
    let bones = j["humanoid"]["bones"].as_object().unwrap();
    for b in animtune::core::HumanBone::required() {
        assert!(bones.contains_key(b.name()), "{} missing", b.name());
    }
    assert_eq!(bones["Hips"], "pelvis_Armature");
    let joints = j["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 68);
    assert_eq!(joints[0]["parent"], Value::Null);
    assert_eq!(joints[1]["parent"], 0);
    assert_eq!(joints[1]["path"], "Armature_rootJoint/pelvis_Armature");
    assert_eq!(joints[1]["human_bone"], "Hips");
    for key in ["file", "twist_joints", "clips", "meshes"] {
        assert!(j.get(key).is_some(), "{key}");
    }
    assert_eq!(j["meshes"][0]["skinned"], true);
}

#[test]
fn inspect_mannequin_reports_twist_joints_and_clips() {
    let j = json_of(&animtune(&["inspect", "mannequin", "--json"]));
    assert_eq!(j["humanoid"]["source"], "names");
    let twists = j["twist_joints"].as_array().unwrap();
    assert!(twists.iter().any(|t| t["parent"] == "LeftUpperArm"
        && t["child"] == "LeftLowerArm"
        && t["joints"][0] == "LeftUpperArmTwist"));
    assert_eq!(j["clips"][0]["name"], "Idle");
    assert!(j["clips"][0]["duration"].as_f64().unwrap() > 1.0);
}

#[test]
fn inspect_reports_each_clip_compiled_size_and_its_distance_from_its_keys() {
    let path = common::quaternius();
    let j = json_of(&animtune(&["inspect", path.to_str().unwrap(), "--json"]));
    let clips = j["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 46);
    for c in clips {
        let bytes = c["compiled_bytes"].as_u64().unwrap();
        assert!(bytes > 100, "{c}");
        match c["compact_error_cm"].as_f64() {
            // Packed within compile::COMPACT_TOLERANCE (0.008 cm).
            Some(e) => assert!(e > 0.0 && e <= 0.008, "{c}"),
            None => assert_eq!(
                c["moving_channels"], 0,
                "{c}: only a still clip stays exact here"
            ),
        }
    }
    // The rest pose (53 joints × 48 bytes) is shared by the clips and counted once in their total.
    let shared = j["shared_rest_bytes"].as_u64().unwrap();
    assert_eq!(shared, 53 * 48);
    let sum: u64 = clips
        .iter()
        .map(|c| c["compiled_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(j["compiled_total_bytes"].as_u64().unwrap(), sum + shared);
    // Issue 29: the walk compiles below ozz's 7,912 bytes.
    let walk = clips.iter().find(|c| c["name"] == "Walk_Loop").unwrap();
    assert!(walk["compiled_bytes"].as_u64().unwrap() < 7_912, "{walk}");
}

#[test]
fn humanoid_override_from_the_command_line() {
    let path = common::asset("CesiumMan.glb");
    let j = json_of(&animtune(&[
        "inspect",
        path.to_str().unwrap(),
        "--json",
        "--map",
        "Chest=Skeleton_torso_joint_2",
    ]));
    assert_eq!(j["humanoid"]["source"], "override");
    assert_eq!(j["humanoid"]["bones"]["Chest"], "Skeleton_torso_joint_2");
    let out = animtune(&[
        "inspect",
        path.to_str().unwrap(),
        "--map",
        "Chest=NoSuchJoint",
    ]);
    assert_clean_failure(&out, &["CesiumMan.glb", "NoSuchJoint"]);
    let out = animtune(&["inspect", path.to_str().unwrap(), "--map", "Tail=x"]);
    assert_clean_failure(&out, &["Tail"]);
}

#[test]
fn pose_picks_clips_by_name_or_index() {
    let q = common::quaternius();
    let by_name = json_of(&animtune(&[
        "pose",
        q.to_str().unwrap(),
        "--clip",
        "Walk_Loop",
        "--time",
        "0.25",
        "--json",
    ]));
    assert_eq!(by_name["clip"], "Walk_Loop");
    assert_eq!(by_name["joints"].as_array().unwrap().len(), 53);
    let index = json_of(&animtune(&["inspect", q.to_str().unwrap(), "--json"]))["clips"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["name"] == "Walk_Loop")
        .unwrap()
        .to_string();
    let by_index = json_of(&animtune(&[
        "pose",
        q.to_str().unwrap(),
        "--clip",
        &index,
        "--time",
        "0.25",
        "--json",
    ]));
    assert_eq!(by_name, by_index);
    let out = animtune(&["pose", q.to_str().unwrap(), "--clip", "NoSuchClip"]);
    assert_clean_failure(
        &out,
        &["NoSuchClip", "AnimationLibrary_Godot_Standard.gltf"],
    );
}

#[test]
fn pose_binds_a_vrma_to_a_humanoid_and_refuses_a_non_humanoid() {
    let vrma = common::asset("three-vrm_test.vrma");
    let ok = animtune(&[
        "pose",
        "mannequin",
        "--clip-file",
        vrma.to_str().unwrap(),
        "--time",
        "0.4",
        "--json",
    ]);
    let j = json_of(&ok);
    let arm = common::pose_joint(&j, "name", "RightUpperArm");
    assert_ne!(arm["local"]["rotation"][3], 1.0);
    let fox = common::asset("Fox.glb");
    let out = animtune(&[
        "pose",
        fox.to_str().unwrap(),
        "--clip-file",
        vrma.to_str().unwrap(),
    ]);
    assert_clean_failure(&out, &["Fox.glb", "not a humanoid"]);
}

/// A VRMA whose hips rest 1e38 m up is refused with its name and the joint, not played with the hips scaled to
/// nothing (they stood at y ≈ 7e-39 before).
#[test]
fn a_vrma_resting_its_hips_absurdly_far_away_is_refused() {
    let dir = common::temp_dir("far-vrma");
    let bad = dir.join("far_hips.vrma");
    common::edit_glb(&common::asset("three-vrm_test.vrma"), &bad, |json| {
        let hips =
            json["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"]["hips"]["node"]
                .as_u64()
                .unwrap() as usize;
        json["nodes"][hips]["translation"] = serde_json::json!([0.0, 1e38, 0.0]);
    });
    let out = animtune(&[
        "pose",
        "mannequin",
        "--clip-file",
        bad.to_str().unwrap(),
        "--time",
        "0.4",
    ]);
    assert_clean_failure(
        &out,
        &["far_hips.vrma", "'hips' rests 1.0e38 m from the origin"],
    );
}

/// A VRM with 23 broken references is refused in one line that counts them and names the first few, not a line
/// of all 23.
#[test]
fn a_vrm_with_many_invalid_references_reports_their_count_and_the_first_few() {
    let dir = common::temp_dir("many-invalid-vrm");
    let bad = dir.join("broken.vrm");
    common::edit_glb(&common::asset("Godette_vrm_v4.vrm"), &bad, |json| {
        for node in json["nodes"].as_array_mut().unwrap().iter_mut().take(23) {
            node["camera"] = serde_json::json!(9999);
        }
    });
    let out = animtune(&["inspect", bad.to_str().unwrap()]);
    assert_clean_failure(
        &out,
        &[
            "broken.vrm",
            "invalid glTF, 23 errors: nodes[0].camera: Index out of bounds",
            "nodes[4].camera",
            "and 18 more",
        ],
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("nodes[5].camera"));
}

#[test]
fn hips_placement_comes_from_the_flag_or_the_preset() {
    let clip = common::quaternius();
    let hips_at = |extra: &[&str]| {
        let mut args = vec![
            "pose",
            "mannequin",
            "--clip-file",
            clip.to_str().unwrap(),
            "--clip",
            "Roll_RM",
            "--time",
            "0.6",
            "--json",
        ];
        args.extend_from_slice(extra);
        let j = json_of(&animtune(&args));
        let hips = common::pose_joint(&j, "human_bone", "Hips")["model"]["translation"].clone();
        serde_json::from_value::<[f32; 3]>(hips).unwrap()
    };
    let default = hips_at(&[]);
    assert_eq!(default, hips_at(&["--hips", "clip-position"]));
    let rest_offset = hips_at(&["--hips", "rest-offset"]);
    let apart = glam::Vec3::from(default).distance(rest_offset.into());
    assert!(apart > 1e-3, "the two rules put the hips {apart} m apart");
    let dir = common::temp_dir("cli-hips");
    let preset = dir.join("hips.json");
    std::fs::write(
        &preset,
        r#"{"format":"animtune-preset","version":2,"hips_placement":"rest_offset"}"#,
    )
    .unwrap();
    assert_eq!(
        rest_offset,
        hips_at(&["--preset", preset.to_str().unwrap()])
    );
    // The flag wins over the preset.
    let both = [
        "--preset",
        preset.to_str().unwrap(),
        "--hips",
        "clip-position",
    ];
    assert_eq!(default, hips_at(&both));
}

#[test]
fn missing_and_non_gltf_files_fail_cleanly() {
    let out = animtune(&["inspect", "/no/such/model.glb"]);
    assert_clean_failure(&out, &["/no/such/model.glb", "cannot read"]);
    let dir = common::temp_dir("cli-bad");
    let text = dir.join("notes.glb");
    std::fs::write(&text, "this is not a model").unwrap();
    assert_clean_failure(
        &animtune(&["inspect", text.to_str().unwrap()]),
        &["notes.glb", "not a valid glTF"],
    );
}

#[test]
fn truncated_glb_fails_cleanly_at_many_offsets() {
    let bytes = std::fs::read(common::asset("CesiumMan.glb")).unwrap();
    let dir = common::temp_dir("cli-truncated");
    for cut in [4, 12, 20, 100, 3000, bytes.len() / 2, bytes.len() - 1] {
        let p = dir.join(format!("cut{cut}.glb"));
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let out = animtune(&["inspect", p.to_str().unwrap()]);
        assert_clean_failure(&out, &[&format!("cut{cut}.glb")]);
    }
}

fn write_gltf(dir: &Path, name: &str, uri: &str, skin: bool) -> String {
    // One triangle; the buffer is 36 bytes of positions.
    let mut doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"byteLength": 36, "uri": uri}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0,0,0], "max": [1,1,0]}]
    });
    if skin {
        doc["nodes"] = serde_json::json!([{"mesh": 0, "skin": 0}, {"name": "Bone"}]);
        doc["scenes"] = serde_json::json!([{"nodes": [0, 1]}]);
        doc["skins"] = serde_json::json!([{"joints": [1]}]);
    }
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(&doc).unwrap()).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn a_model_with_no_skin_and_no_animation_is_refused() {
    let dir = common::temp_dir("cli-noskin");
    let tri: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    std::fs::write(dir.join("tri.bin"), &tri).unwrap();
    let p = write_gltf(&dir, "static.gltf", "tri.bin", false);
    assert_clean_failure(&animtune(&["inspect", &p]), &["static.gltf", "no skin"]);
    // The same file with a skin loads, reading the external .bin beside it.
    let p = write_gltf(&dir, "skinned.gltf", "tri.bin", true);
    let out = animtune(&["inspect", &p, "--json"]);
    assert_eq!(json_of(&out)["meshes"][0]["vertices"], 3);
}

#[test]
fn external_uris_outside_the_model_folder_are_refused() {
    let dir = common::temp_dir("cli-uri");
    let sub = dir.join("model");
    std::fs::create_dir_all(&sub).unwrap();
    let tri: Vec<u8> = [0f32; 9].iter().flat_map(|f| f.to_le_bytes()).collect();
    std::fs::write(dir.join("outside.bin"), &tri).unwrap();
    for (name, uri, needle) in [
        ("dotdot.gltf", "../outside.bin", "climbs out"),
        (
            "absolute.gltf",
            dir.join("outside.bin").to_str().unwrap(),
            "absolute path",
        ),
        ("http.gltf", "http://example.com/a.bin", "scheme"),
    ] {
        let p = write_gltf(&sub, name, uri, true);
        assert_clean_failure(&animtune(&["inspect", &p]), &[name, needle]);
    }
}

#[test]
fn usage_errors_exit_with_2_and_bad_time_with_1() {
    assert_eq!(animtune(&["inspect"]).status.code(), Some(2));
    assert_eq!(
        animtune(&["inspect", "--no-such-flag"]).status.code(),
        Some(2)
    );
    // An unknown word is taken as a model to open in the editor: it must fail at once, not open a window.
    assert_clean_failure(&animtune(&["frobnicate"]), &["frobnicate", "not a file"]);
    assert_clean_failure(
        &animtune(&["pose", "mannequin", "--time", "NaN"]),
        &["--time"],
    );
}

#[test]
fn mannequin_is_written_atomically_and_not_overwritten_without_force() {
    let dir = common::temp_dir("cli-mannequin");
    let out_path = dir.join("mannequin.glb");
    let p = out_path.to_str().unwrap();
    assert!(animtune(&["mannequin", "-o", p]).status.success());
    let first = std::fs::read(&out_path).unwrap();
    assert_eq!(&first[..4], b"glTF");
    std::fs::write(&out_path, b"keep me").unwrap();
    assert_clean_failure(
        &animtune(&["mannequin", "-o", p]),
        &["mannequin.glb", "--force"],
    );
    assert_eq!(std::fs::read(&out_path).unwrap(), b"keep me");
    assert!(
        animtune(&["mannequin", "-o", p, "--force"])
            .status
            .success()
    );
    assert_eq!(std::fs::read(&out_path).unwrap(), first);
    let j = json_of(&animtune(&["inspect", p, "--json"]));
    assert_eq!(
        j["humanoid"]["missing_required"].as_array().unwrap().len(),
        0
    );
}

/// Model-space rotation of each joint of `pose --json` output, by joint name.
fn model_rotations(pose: &serde_json::Value) -> std::collections::HashMap<String, glam::Quat> {
    pose["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let q: Vec<f32> = j["model"]["rotation"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            (
                j["name"].as_str().unwrap().to_string(),
                glam::Quat::from_xyzw(q[0], q[1], q[2], q[3]),
            )
        })
        .collect()
}

/// Per joint, the model-space turn from the model's rest pose (read with the library) to `pose`.
fn turns(pose: &serde_json::Value, model: &str) -> std::collections::HashMap<String, glam::Quat> {
    let m = animtune::import::load_file(Path::new(model)).unwrap();
    let s = &m.character.skeleton;
    let rest = animtune::core::Pose::rest(s).model_matrices(s);
    model_rotations(pose)
        .into_iter()
        .map(|(n, q)| {
            let r = rest[s.find_by_name(&n).unwrap()]
                .to_scale_rotation_translation()
                .1;
            (n, (q * r.inverse()).normalize())
        })
        .collect()
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn a_character_plays_another_files_clips_bound_by_name_and_by_human_bone() {
    let xbot = common::extra_asset("mixamo/Xbot.glb");
    let soldier = common::extra_asset("mixamo/Soldier.glb");
    let (xbot, soldier) = (xbot.to_str().unwrap(), soldier.to_str().unwrap());
    let pose = |args: &[&str]| json_of(&animtune(&[&["pose"], args, &["--json"]].concat()));
    // Xbot takes Soldier's Run and Walk by joint name (Mixamo names under different roots). Soldier rests in
    // another pose and faces -Z where Xbot faces +Z, so the values are carried between the rest poses: each
    // joint turns in model space as Soldier's does, seen from the front.
    // Each character's facing at rest: up x (right upper leg - left upper leg), in model space.
    let facing = |model: &str| {
        let m = animtune::import::load_file(Path::new(model)).unwrap();
        let s = &m.character.skeleton;
        let rest = animtune::core::Pose::rest(s).model_matrices(s);
        let at = |n: &str| rest[s.find_by_name(n).unwrap()].w_axis.truncate();
        let f = glam::Vec3::Y.cross(at("mixamorig:RightUpLeg") - at("mixamorig:LeftUpLeg"));
        f.x.atan2(f.z)
    };
    let half_turn = glam::Quat::from_rotation_y(facing(xbot) - facing(soldier));
    assert!(
        (facing(xbot) - facing(soldier)).abs().to_degrees() > 170.0,
        "the two face opposite ways"
    );
    for clip in ["Run", "Walk"] {
        let own = pose(&[soldier, "--clip", clip, "--time", "0.4"]);
        let taken = pose(&[
            xbot,
            "--clip-file",
            soldier,
            "--clip",
            clip,
            "--time",
            "0.4",
        ]);
        assert_eq!(
            taken["binding"]["unbound_tracks"].as_array().unwrap().len(),
            0
        );
        let (own, taken) = (turns(&own, soldier), turns(&taken, xbot));
        let mut compared = 0;
        for bone in [
            "Hips",
            "Spine",
            "Head",
            "LeftArm",
            "RightForeArm",
            "LeftUpLeg",
            "RightLeg",
            "LeftFoot",
        ] {
            let name = format!("mixamorig:{bone}");
            let want = half_turn * own[&name] * half_turn.inverse();
            let got = taken[&name];
            let angle = want.angle_between(got).to_degrees();
            assert!(
                angle < 0.1,
                "{clip} {name}: {angle} degrees from Soldier's own motion"
            );
            compared += 1;
        }
        assert_eq!(compared, 8);
    }
    // readyplayer.me has no clips and no Mixamo names: Xbot's walk binds by humanoid bone and moves it.
    let rpm = common::extra_asset("mixamo/readyplayer.me.glb");
    let rpm = rpm.to_str().unwrap();
    let walk = pose(&[rpm, "--clip-file", xbot, "--clip", "walk", "--time", "0.5"]);
    let moved = turns(&walk, rpm)
        .values()
        .filter(|q| q.angle_between(glam::Quat::IDENTITY) > 0.1)
        .count();
    assert!(moved >= 10, "{moved} joints turned by the walk");
}

#[test]
fn a_missing_texture_opens_the_model_untextured_with_one_warning_naming_the_image() {
    let dir = common::temp_dir("cli-missing-texture");
    let model = common::model_with_missing_texture(&dir);
    let png = dir.join("out.png");
    let out = animtune(&[
        "render",
        model.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains("skin_diffuse.png") && warnings[0].contains("untextured"),
        "{err}"
    );
    assert!(png.exists());
}

/// A failure is its error line alone: a warning about the model read before the failure (here its missing
/// texture) is not printed ahead of the error, while a run that succeeds still prints it.
#[test]
fn a_failure_after_a_warning_prints_the_error_alone() {
    let dir = common::temp_dir("cli-untextured-then-error");
    let model = common::model_with_missing_texture(&dir);
    let model = model.to_str().unwrap();
    let out = animtune(&["pose", model, "--clip", "NoSuchClip", "--time", "0"]);
    common::assert_clean_failure(&out, &["NoSuchClip"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("warning:"), "{err}");
    let out = animtune(&["pose", model, "--time", "0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning:") && err.contains("skin_diffuse.png"),
        "{err}"
    );
}

#[test]
fn an_os_error_is_printed_once() {
    let out = animtune(&["inspect", "/no/such/model.glb"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

#[test]
fn a_map_entry_without_a_joint_is_refused() {
    let out = animtune(&["inspect", "mannequin", "--map", "Hips="]);
    assert_clean_failure(&out, &["--map 'Hips='", "names no joint"]);
}

#[test]
fn a_frame_rate_outside_one_to_a_thousand_is_refused_and_a_bake_over_its_tolerance_writes_nothing()
{
    let dir = common::temp_dir("cli-bake-fps");
    let out_file = dir.join("idle.animclip");
    let out = out_file.to_str().unwrap();
    let bake_idle = |extra: &[&str]| {
        let mut args = vec!["bake", "mannequin", "--clip", "Idle", "-o", out];
        args.extend_from_slice(extra);
        animtune(&args)
    };
    for fps in ["1e-45", "0.5", "0", "-3", "1001", "NaN"] {
        let fps = format!("--fps={fps}");
        assert_clean_failure(&bake_idle(&[&fps]), &["--fps", "[1, 1000]"]);
    }
    // One frame a second misses the idle by about a centimetre: refused, nothing written, unless accepted.
    assert_clean_failure(
        &bake_idle(&["--fps", "1"]),
        &[
            "idle.animclip",
            "Idle",
            "over --tolerance-cm 0.01",
            "--accept-error",
        ],
    );
    assert!(!out_file.exists());
    common::assert_success(&bake_idle(&["--fps", "1", "--accept-error"]));
    assert!(out_file.exists());
}

#[test]
fn a_rigid_parts_character_exported_with_another_files_clip_reimports_whole_and_humanoid() {
    // B14: a skinless VRM 1.0 with a VRMA clip came back as 1 joint of 19, no longer a humanoid.
    let dir = common::temp_dir("cli-rigid-export");
    let out = dir.join("rigid.glb");
    let model = common::asset("vrm/mtoon_default.vrm");
    let vrma = common::asset("three-vrm_test.vrma");
    let r = animtune(&[
        "bake",
        model.to_str().unwrap(),
        "--clip-file",
        vrma.to_str().unwrap(),
        "--clip",
        "0",
        "--format",
        "gltf",
        "-o",
        out.to_str().unwrap(),
    ]);
    common::assert_success(&r);
    let source = json_of(&animtune(&["inspect", model.to_str().unwrap(), "--json"]));
    let back = json_of(&animtune(&["inspect", out.to_str().unwrap(), "--json"]));
    let joints = |j: &serde_json::Value| j["joints"].as_array().unwrap().len();
    assert!(
        joints(&back) >= joints(&source),
        "{} of {} joints",
        joints(&back),
        joints(&source)
    );
    assert_eq!(
        back["humanoid"]["is_humanoid"], true,
        "{}",
        back["humanoid"]
    );
}

#[test]
fn pose_applies_a_presets_masked_clip_layer_and_refuses_a_missing_clip() {
    // Walk_Loop on the upper body (the Quaternius rig's arms, by body part) over Idle_Loop: the arms take the
    // walk, the legs keep the idle.
    let q = common::quaternius();
    let dir = std::env::temp_dir().join(format!("animtune-clip-layer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, clips: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                r#"{{"format":"animtune-preset","version":3,"layers":{{"breath":{{"enabled":false}},
                "look_at":{{"enabled":false}},"twist":{{"enabled":false}},"clips":{clips}}}}}"#
            ),
        )
        .unwrap();
        path
    };
    let layered = write(
        "layered.json",
        r#"[{"clip":"Walk_Loop","parts":["left_arm","right_arm"]}]"#,
    );
    let plain = write("plain.json", "[]");
    let pose = |clip: &str, preset: &std::path::Path| {
        let j = json_of(&animtune(&[
            "pose",
            q.to_str().unwrap(),
            "--clip",
            clip,
            "--time",
            "0.3",
            "--preset",
            preset.to_str().unwrap(),
            "--json",
        ]));
        let local = |bone: &str| {
            j["joints"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["human_bone"] == bone)
                .unwrap_or_else(|| panic!("no {bone}"))["local"]["rotation"]
                .clone()
        };
        (
            local("LeftLowerArm"),
            local("LeftUpperLeg"),
            j["layers"]["clips"].clone(),
        )
    };
    let (arm, leg, clips) = pose("Idle_Loop", &layered);
    let (idle_arm, idle_leg, _) = pose("Idle_Loop", &plain);
    let (walk_arm, _, _) = pose("Walk_Loop", &plain);
    assert_eq!(clips, serde_json::json!(["Walk_Loop"]));
    assert_eq!(arm, walk_arm, "the arm takes the layer's clip");
    assert_eq!(leg, idle_leg, "the leg keeps the source");
    assert_ne!(arm, idle_arm);
    let missing = write("missing.json", r#"[{"clip":"NoSuchClip"}]"#);
    let out = animtune(&[
        "pose",
        q.to_str().unwrap(),
        "--preset",
        missing.to_str().unwrap(),
    ]);
    assert_clean_failure(&out, &["NoSuchClip", "clip layer"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A preset's expression weights reach the morph weights `pose --json` lists per morphed node, and `expressions`
/// lists every expression of the character; a weight outside [0, 1] is refused naming the field.
#[test]
fn pose_lists_morph_weights_and_the_expressions_a_preset_sets() {
    let dir = common::temp_dir("pose-expressions");
    let preset = common::surprised_preset(&dir);
    let model = common::asset("RobotExpressive.glb");
    let model = model.to_str().unwrap();
    let out = animtune(&[
        "pose",
        model,
        "--clip",
        "Idle",
        "--preset",
        preset.to_str().unwrap(),
        "--json",
    ]);
    let v = json_of(&out);
    let morph = v["morph_weights"].as_array().unwrap();
    let nodes: Vec<&str> = morph.iter().map(|m| m["node"].as_str().unwrap()).collect();
    assert_eq!(nodes, ["Head_2", "Head_3", "Head_4"]);
    for m in morph {
        assert_eq!(m["weights"], serde_json::json!([0.0, 0.5, 0.0]), "{m}");
    }
    assert_eq!(
        v["expressions"],
        serde_json::json!({"Angry": 0.0, "Surprised": 0.5, "Sad": 0.0})
    );
    std::fs::write(
        &preset,
        r#"{"format": "animtune-preset", "version": 4, "layers": {"expressions": {"Sad": 1.5}}}"#,
    )
    .unwrap();
    let out = animtune(&["pose", model, "--preset", preset.to_str().unwrap()]);
    assert_clean_failure(&out, &["face.json", "expressions.Sad"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `inspect --json` gives each clip its root motion: on Quaternius's Roll_RM (a root-motion clip) the velocity is
/// the hips' travel between its first and last pose (`pose --json`) over its length, within 2 %; an idle barely
/// moves.
#[test]
fn inspect_gives_a_clips_root_motion_as_the_hips_travel() {
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    let info = json_of(&animtune(&["inspect", q, "--json"]));
    let clip = |name: &str| {
        info["clips"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()
            .clone()
    };
    let roll = clip("Roll_RM");
    let duration = roll["duration"].as_f64().unwrap();
    let hips = |t: f64| -> Vec<f64> {
        let pose = json_of(&animtune(&[
            "pose",
            q,
            "--clip",
            "Roll_RM",
            "--time",
            &t.to_string(),
            "--exact",
            "--json",
        ]));
        common::pose_joint(&pose, "human_bone", "Hips")["model"]["translation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let (start, end) = (hips(0.0), hips(duration));
    let travel: Vec<f64> = (0..3).map(|i| (end[i] - start[i]) / duration).collect();
    let velocity: Vec<f64> = roll["root_motion"]["velocity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let length = travel.iter().map(|x| x * x).sum::<f64>().sqrt();
    let off = (0..3)
        .map(|i| (velocity[i] - travel[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(length > 1.0, "the roll travels: {travel:?}");
    assert!(off <= 0.02 * length, "{velocity:?} vs {travel:?}");
    let idle = clip("Idle_Loop");
    assert!(
        idle["root_motion"]["speed"].as_f64().unwrap() < 0.01,
        "{idle}"
    );
}

/// `skate --json` prints per clip the skate ratio, the planted speed, the ground and each foot's contacts; a bad
/// threshold or clip fails naming it.
#[test]
fn skate_reports_contacts_and_speeds_and_refuses_bad_flags() {
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    let v = json_of(&animtune(&[
        "skate",
        q,
        "--clip",
        "Idle_Loop",
        "--clip",
        "Roll_RM",
        "--json",
    ]));
    let clips = v["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 2);
    let idle = &clips[0];
    assert_eq!(idle["name"], "Idle_Loop");
    assert_eq!(idle["skate_ratio"], 0.0);
    assert!(
        idle["planted_speed_cm_s"]["mean"].as_f64().unwrap() < 0.5,
        "{idle}"
    );
    let feet = idle["feet"].as_array().unwrap();
    assert_eq!(feet.len(), 2);
    assert_eq!(feet[0]["human_bone"], "LeftFoot");
    assert!(!feet[0]["contacts"].as_array().unwrap().is_empty());
    assert_eq!(clips[1]["ground"], "root_motion");
    assert!(idle["ground"]["treadmill"].is_array(), "{idle}");
    common::assert_clean_failure(
        &animtune(&["skate", q, "--height-cm", "0"]),
        &["--height-cm"],
    );
    common::assert_clean_failure(&animtune(&["skate", q, "--clip", "Nope"]), &["Nope"]);
}

/// `skate --preset P --blend-point X,Y` measures the blend space at a point over one cycle; without a preset it
/// fails naming the flag.
#[test]
fn skate_measures_a_blend_point_of_a_preset() {
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    let preset = common::preset("quaternius_locomotion.json");
    let v = json_of(&animtune(&[
        "skate",
        q,
        "--preset",
        preset.to_str().unwrap(),
        "--blend-point",
        "1.5,0",
        "--json",
    ]));
    let clip = &v["clips"][0];
    assert_eq!(clip["name"], "blend at 1.5,0");
    assert!(clip["ground"]["treadmill"].is_array(), "{clip}");
    assert!(clip["contact_frames"].as_u64().unwrap() > 10, "{clip}");
    common::assert_clean_failure(
        &animtune(&["skate", q, "--blend-point", "1,0"]),
        &["--blend-point", "--preset"],
    );
}

/// Issue 40: `skate --foot-lock` plays the clip under foot lock (the mannequin's generated walk skates on three
/// quarters of its contact frames, and on none locked) and says so; `pose --foot-lock` moves the legs;
/// `bake --foot-lock` bakes it; a character without legs is refused naming the flag.
#[test]
fn foot_lock_on_the_command_line_drops_the_walks_skate() {
    let measure = |extra: &[&str]| {
        let mut args = vec!["skate", "mannequin", "--clip", "WalkForward", "--json"];
        args.extend_from_slice(extra);
        json_of(&animtune(&args))
    };
    let (free, locked) = (measure(&[]), measure(&["--foot-lock"]));
    assert_eq!(free["foot_lock"], false);
    assert_eq!(locked["foot_lock"], true);
    let ratio = |v: &serde_json::Value| v["clips"][0]["skate_ratio"].as_f64().unwrap();
    assert!(
        ratio(&free) > 0.5 && ratio(&locked) < 0.05,
        "{free} {locked}"
    );

    let pose = |extra: &[&str]| {
        let mut args = vec![
            "pose",
            "mannequin",
            "--clip",
            "WalkForward",
            "--time",
            "0.5",
            "--json",
        ];
        args.extend_from_slice(extra);
        json_of(&animtune(&args))
    };
    let (plain, held) = (pose(&[]), pose(&["--foot-lock"]));
    let shin = |v: &serde_json::Value| {
        common::pose_joint(v, "human_bone", "LeftLowerLeg")["model"].to_string()
    };
    assert_ne!(shin(&plain), shin(&held), "foot lock moved no leg");

    let dir = common::temp_dir("foot-lock-bake");
    let out = dir.join("walk.animclip");
    common::assert_success(&animtune(&[
        "bake",
        "mannequin",
        "--clip",
        "WalkForward",
        "--foot-lock",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert!(out.is_file());
    common::assert_clean_failure(
        &animtune(&[
            "pose",
            common::asset("Fox.glb").to_str().unwrap(),
            "--foot-lock",
        ]),
        &["--foot-lock"],
    );
}

/// Issue 40: `heatmap --skate MODEL` paints the skate map of a preset's space and prints its points with --json;
/// a grid of 0 is refused naming --grid.
#[test]
fn heatmap_skate_paints_the_skate_map() {
    let dir = common::temp_dir("skate-map");
    let preset = dir.join("default.json");
    let out = animtune(&["preset", "default"]);
    common::assert_success(&out);
    std::fs::write(&preset, &out.stdout).unwrap();
    let png = dir.join("skate.png");
    let v = json_of(&animtune(&[
        "heatmap",
        "--blend",
        preset.to_str().unwrap(),
        "--skate",
        "mannequin",
        "--grid",
        "4",
        "--size",
        "64",
        "--json",
        "-o",
        png.to_str().unwrap(),
    ]));
    assert_eq!(v["size"], 4);
    let values: Vec<f64> = v["planted_cm_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(values.len(), 16);
    assert!(values.iter().any(|&x| x > 10.0), "{values:?}");
    let image = image::open(&png).unwrap();
    assert_eq!((image.width(), image.height()), (64, 64));
    common::assert_clean_failure(
        &animtune(&[
            "heatmap",
            "--blend",
            preset.to_str().unwrap(),
            "--skate",
            "mannequin",
            "--grid",
            "0",
            "-o",
            dir.join("x.png").to_str().unwrap(),
        ]),
        &["--grid"],
    );
}

/// `--help` says what the tool is: the window it opens with no command, the formats it reads and writes, and what
/// it plays (a user's first question, answered before the command list).
#[test]
fn help_says_what_the_tool_reads_plays_and_writes() {
    let out = common::animtune(&["--help"]);
    common::assert_success(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "editor window opens",
        "FBX",
        "VRM 0.x/1.0",
        "blend spaces",
        "state machines",
        "spring bones",
        "glTF and VRMA",
    ] {
        assert!(text.contains(needle), "'{needle}' not in:\n{text}");
    }
}

/// A run past the million updates one `pose` takes is refused at once, naming the flags to lower (at the old
/// ten-million cap such runs took 15–31 s before they ended).
#[test]
fn pose_refuses_runs_past_a_million_updates_at_once() {
    let out = animtune(&[
        "pose",
        "mannequin",
        "--foot-lock",
        "--time",
        "20000",
        "--fps",
        "60",
    ]);
    assert_clean_failure(
        &out,
        &["--foot-lock", "1200000 updates", "lower --fps or --time"],
    );
}
