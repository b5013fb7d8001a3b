//! Unity's own animation assets read by `inspect`: the real projects' controllers, override controllers, masks,
//! blend trees and clips of `../shared/assets/unity/` (extended), and hostile Unity files generated here, each
//! refused with one line naming the file.

use std::path::{Path, PathBuf};

use crate::common::{self, animtune};

/// Every Unity asset under `dir`, found by extension.
fn unity_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            unity_files(&path, out);
        } else if animtune::import::unity::is_unity_asset(&path) {
            out.push(path);
        }
    }
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn every_real_projects_unity_asset_reads_with_inspect() {
    let root = common::extra_asset("unity/MANIFEST.md")
        .parent()
        .unwrap()
        .join("files");
    let mut files = Vec::new();
    unity_files(&root, &mut files);
    // MANIFEST.md: 15 controllers, 3 override controllers, 5 masks, 54 clips, 1 blend tree asset.
    assert_eq!(files.len(), 78, "{files:?}");
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    let mut with_shapes = 0;
    for f in &files {
        let out = animtune(&["inspect", f.to_str().unwrap(), "--json"]);
        let report = common::json_of(&out);
        *kinds
            .entry(report["kind"].as_str().unwrap().to_string())
            .or_default() += 1;
        assert!(
            report["unsupported"].is_array(),
            "{}: says what is not previewed",
            f.display()
        );
        // Every clip plays, generic or humanoid: `pose --clip-file` reads it (binding to a model is another
        // matter), or names why not.
        if report["kind"] == "AnimationClip" {
            let clips = animtune::import::load_clips(f);
            assert!(
                clips.is_ok()
                    || clips.as_ref().is_err_and(|e| {
                        e.to_string().contains("no transform or blend-shape curves")
                    }),
                "{}: {:?}",
                f.display(),
                clips.err()
            );
            // A clip that weighs blend shapes (read from the text) plays them as morph tracks.
            let text = std::fs::read_to_string(f).unwrap();
            if text.contains("attribute: blendShape.") && text.contains("classID: 137") {
                let clips = clips.unwrap();
                assert!(
                    clips.iter().any(|c| !c.morph_tracks.is_empty()),
                    "{}: its blend shapes play",
                    f.display()
                );
                with_shapes += 1;
            }
        }
    }
    let want: std::collections::BTreeMap<String, usize> = [
        ("AnimatorController", 15),
        ("AnimatorOverrideController", 3),
        ("AvatarMask", 5),
        ("AnimationClip", 54),
        ("BlendTree", 1),
    ]
    .into_iter()
    .map(|(k, n)| (k.to_string(), n))
    .collect();
    assert_eq!(kinds, want);
    assert!(with_shapes >= 20, "{with_shapes} clips weigh blend shapes");
    // Counts MANIFEST.md gives for Netcode's cube controller: 4 layers, 14 states, 5 state machines, the
    // Pulse layer at weight 0.5 with its mask, 10 parameters; its 9 StateMachineBehaviours named as not run.
    let cube = root.join(
        "Unity-Technologies__com.unity.netcode.gameobjects/testproject/Assets/Tests/Manual/NetworkAnimatorTests/CubeAnimatorController.controller",
    );
    let text = String::from_utf8(animtune(&["inspect", cube.to_str().unwrap()]).stdout).unwrap();
    let states: usize = text
        .lines()
        .filter(|l| l.trim_start().starts_with("layer "))
        .filter_map(|l| l.split("; ").nth(1))
        .map(|l| l.split(' ').next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(states, 14, "{text}");
    // Its references found through the project's .meta files: the Pulse layer's mask by its path.
    assert!(
        text.contains("'Pulse Layer': weight 0.5, override, mask Assets/Tests/Manual/NetworkAnimatorTests/Pulse Layer.mask"),
        "{text}"
    );
    assert!(
        text.contains("Attack (trigger)") && text.contains("WeaponType (int 0)"),
        "{text}"
    );
    // A model's clip found by its internalID in the model's .meta (Kenney's humanoid controller).
    let kenney = root.join(
        "MirrorNetworking__Mirror/Assets/Mirror/Examples/_Common/Assets/(CC0) Kenney Animated Characters 3/Animations/characterMedium.controller",
    );
    let text = String::from_utf8(animtune(&["inspect", kenney.to_str().unwrap()]).stdout).unwrap();
    assert!(
        text.contains(
            "Idle (Assets/(CC0) Kenney Animated Characters 3/Animations/idle.fbx: Root|Idle)"
        ),
        "{text}"
    );
    // OpenKCC's controller: its 16 clips live in files not in this set (MANIFEST.md), each GUID named once.
    let kcc = root.join(
        "nicholas-maltbie__OpenKCC/Assets/Samples/ExampleFirstPersonKCC/Common/Animations/CharacterAnimationController.controller",
    );
    let text = String::from_utf8(animtune(&["inspect", kcc.to_str().unwrap()]).stdout).unwrap();
    assert!(
        text.contains("16 referenced asset(s) are not in the project folder"),
        "{text}"
    );
    // The YAML 1.1 traps: layers named 0 and 1, parameters named true and false stay names.
    let fx = root.join("anatawa12__AvatarOptimizer/Test~/AnimatorParser/Issue967/FX.controller");
    let text = String::from_utf8(animtune(&["inspect", fx.to_str().unwrap()]).stdout).unwrap();
    assert!(
        text.contains("layer 0 '0'") && text.contains("layer 1 '1'"),
        "{text}"
    );
}

/// A controller, written here, with the given body after its one layer's state machine.
fn controller(machine_fields: &str, extra: &str) -> String {
    format!(
        "%YAML 1.1
%TAG !u! tag:unity3d.com,2011:
--- !u!91 &9100000
AnimatorController:
  m_Name: hostile
  m_AnimatorParameters: []
  m_AnimatorLayers:
  - serializedVersion: 5
    m_Name: Base Layer
    m_StateMachine: {{fileID: 110700000}}
    m_Mask: {{fileID: 0}}
    m_DefaultWeight: 1
--- !u!1107 &110700000
AnimatorStateMachine:
  m_Name: Base Layer
{machine_fields}{extra}"
    )
}

#[test]
fn hostile_unity_files_are_refused_naming_the_file() {
    let dir = common::temp_dir("unity-hostile");
    let mut many_states = String::from("  m_ChildStates:\n");
    let mut states = String::new();
    for i in 0..10_001 {
        many_states.push_str(&format!("  - m_State: {{fileID: {}}}\n", 1_000_000 + i));
        states.push_str(&format!(
            "--- !u!1102 &{}\nAnimatorState:\n  m_Name: s{i}\n  m_Motion: {{fileID: 0}}\n",
            1_000_000 + i
        ));
    }
    let bomb = {
        let mut text = String::from(
            "--- !u!74 &7400000\nAnimationClip:\n  a0: &a0 [x, x, x, x, x, x, x, x]\n",
        );
        for i in 1..30 {
            text.push_str(&format!(
                "  a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}]\n",
                p = i - 1
            ));
        }
        text
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "cycle.controller",
            controller(
                "  m_ChildStates: []\n  m_ChildStateMachines:\n  - m_StateMachine: {fileID: 110700000}\n",
                "",
            )
            .into_bytes(),
            "nested in itself",
        ),
        (
            "missing.controller",
            controller("  m_ChildStates:\n  - m_State: {fileID: 42}\n", "").into_bytes(),
            "object 42, which is not in the file",
        ),
        (
            "huge.controller",
            controller(&many_states, &states).into_bytes(),
            "more than 10000",
        ),
        ("bomb.anim", bomb.into_bytes(), "alias"),
        (
            "latin1.mask",
            b"--- !u!319 &1\nAvatarMask:\n  m_Name: caf\xe9\n".to_vec(),
            "not UTF-8",
        ),
        (
            "nothing.controller",
            b"%YAML 1.1\n--- !u!1 &5\nGameObject:\n  m_Name: x\n".to_vec(),
            "holds no controller",
        ),
        (
            "override.overrideController",
            b"--- !u!221 &22100000\nAnimatorOverrideController:\n  m_Name: o\n  m_Controller: {fileID: 0}\n"
                .to_vec(),
            "no base controller",
        ),
    ];
    for (name, bytes, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = animtune(&["inspect", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(name) && stderr.contains(says),
            "{name} should say '{says}': {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
}

/// A generic `.anim` written in Unity's YAML plays with `pose --clip-file`: its Euler curve (a Hermite with flat
/// ends from 0° to 90° about Unity's Y) is 45° half-way, which in glTF's axes is −45° about Y; its Loop Time off
/// makes the clip hold its end.
#[test]
fn a_generic_anim_clip_poses_the_joint_its_path_names() {
    let dir = common::temp_dir("unity-anim-pose");
    let anim = dir.join("raise.anim");
    std::fs::write(
        &anim,
        "%YAML 1.1
%TAG !u! tag:unity3d.com,2011:
--- !u!74 &7400000
AnimationClip:
  m_Name: Raise
  serializedVersion: 7
  m_EulerCurves:
  - curve:
      serializedVersion: 2
      m_Curve:
      - serializedVersion: 3
        time: 0
        value: {x: 0, y: 0, z: 0}
        inSlope: {x: 0, y: 0, z: 0}
        outSlope: {x: 0, y: 0, z: 0}
        tangentMode: 0
        weightedMode: 0
        inWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
        outWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
      - serializedVersion: 3
        time: 0.5
        value: {x: 0, y: 90, z: 0}
        inSlope: {x: 0, y: 0, z: 0}
        outSlope: {x: 0, y: 0, z: 0}
        tangentMode: 0
        weightedMode: 0
        inWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
        outWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
      m_PreInfinity: 2
      m_PostInfinity: 2
      m_RotationOrder: 4
    path: Root/Hips/Spine/Chest/UpperChest/Neck/Head
  m_SampleRate: 60
  m_AnimationClipSettings:
    serializedVersion: 2
    m_StartTime: 0
    m_StopTime: 0.5
    m_LoopTime: 0
",
    )
    .unwrap();
    let rotation = |time: &str| {
        let pose = common::json_of(&animtune(&[
            "pose",
            "mannequin",
            "--clip-file",
            anim.to_str().unwrap(),
            "--time",
            time,
            "--json",
        ]));
        let r = &common::pose_joint(&pose, "name", "Head")["local"]["rotation"];
        glam::Quat::from_xyzw(
            r[0].as_f64().unwrap() as f32,
            r[1].as_f64().unwrap() as f32,
            r[2].as_f64().unwrap() as f32,
            r[3].as_f64().unwrap() as f32,
        )
    };
    let half = rotation("0.25");
    let want = glam::Quat::from_rotation_y(-45f32.to_radians());
    assert!(
        common::angle_deg(half, want) < 0.05,
        "{half} against {want}: {}°",
        common::angle_deg(half, want)
    );
    let end = rotation("0.9");
    let want = glam::Quat::from_rotation_y(-90f32.to_radians());
    assert!(
        common::angle_deg(end, want) < 0.05,
        "held at its end: {end}"
    );
}

/// The committed fixture project (`tests/fixtures/unity/`): a controller written in Unity's YAML with its `.meta`
/// files, whose base layer plays Idle, Walk and a 1D blend tree inside a sub-state machine.
/// Copies the fixture project's `Assets/<folder>` files that `keep` accepts (by file name) into a project at
/// `project`, `.meta` files included.
fn copy_fixture_folders(project: &Path, folders: &[&str], keep: impl Fn(&str) -> bool) {
    for folder in folders {
        let to = project.join("Assets").join(folder);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(fixture(folder)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap();
            if keep(name) {
                std::fs::copy(&path, to.join(name)).unwrap();
            }
        }
    }
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/unity/Assets")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A fixture `.anim` alone at `time` on the mannequin (looping), as the transition's composition reads it.
fn anim_at(name: &str, time: f64) -> Vec<glam::Quat> {
    let t = format!("{time}");
    let pose = common::json_of(&animtune(&[
        "pose",
        "mannequin",
        "--clip-file",
        &fixture(&format!("Anims/{name}")),
        "--time",
        &t,
        "--loop",
        "--exact",
        "--json",
    ]));
    crate::state_machine::rotations(&pose)
        .into_iter()
        .map(|(_, q)| q)
        .collect()
}

/// The joint names of a pose, in its order.
fn joint_names(pose: &serde_json::Value) -> Vec<String> {
    crate::state_machine::rotations(pose)
        .into_iter()
        .map(|(n, _)| n)
        .collect()
}

/// `below` with one joint overridden by `layer`'s at `weight` (Unity's Override blending, one joint of a mask).
fn override_joint(
    names: &[String],
    below: &[glam::Quat],
    layer: &[glam::Quat],
    weight: f64,
    joint: &str,
) -> Vec<glam::Quat> {
    let mut out = below.to_vec();
    let j = names.iter().position(|n| n == joint).unwrap();
    out[j] =
        crate::state_machine::blend(&[(&below[j..=j], 1.0 - weight), (&layer[j..=j], weight)])[0];
    out
}

/// The Layered fixture composed as Unity's Override layers compose it, from the clips posed alone: the base pose,
/// the arm layer's clip at its weight on the Head and LeftUpperArm (its mask; None while it rests in its empty
/// state), then the spine layer's clip at 0.5 on the Spine.
fn layered(
    names: &[String],
    base: &[glam::Quat],
    arm: Option<(&[glam::Quat], f64)>,
    spine: &[glam::Quat],
) -> Vec<glam::Quat> {
    let mut out = base.to_vec();
    if let Some((swing, weight)) = arm {
        for joint in ["Head", "LeftUpperArm"] {
            out = override_joint(names, &out, swing, weight, joint);
        }
    }
    override_joint(names, &out, spine, 0.5, "Spine")
}

/// A parameter script `text` written as `name` in a fresh temporary folder tagged `tag`.
fn script_file(tag: &str, name: &str, text: &str) -> PathBuf {
    let path = common::temp_dir(tag).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `pose mannequin --controller CONTROLLER --script SCRIPT --time TIME --exact --json`, parsed.
fn controller_pose(controller: &str, script: &Path, time: f64) -> serde_json::Value {
    common::json_of(&animtune(&[
        "pose",
        "mannequin",
        "--controller",
        controller,
        "--script",
        script.to_str().unwrap(),
        "--time",
        &format!("{time}"),
        "--exact",
        "--json",
    ]))
}

/// The controller's transitions play under Unity's rules as compositions of its clips: Entry → Walk when `go` is
/// set from the start; Idle → Walk on `go`
/// (0.25 s fixed, set at 0.5 s; at 0.6 s the walk has played 0.1 s at weight 0.4), and Walk → the sub-machine's
/// default state, the 1D tree at `speed` 1 (Walk and Run half and half) after `speed` passes 0.75 (0.1 s).
#[test]
fn a_controllers_transitions_play_as_compositions_of_its_clips() {
    let dir = common::temp_dir("unity-controller");
    let controller = fixture("Controllers/Locomotion.controller");
    let pose = |script: &str, time: f64| {
        let path = dir.join("script.json");
        std::fs::write(&path, script).unwrap();
        controller_pose(&controller, &path, time)
    };
    // Entry's transition on `go`: set from the start, the machine enters Walk itself (no blend from Idle).
    let got = pose(r#"[{"time": 0, "set": "go", "value": true}]"#, 0.3);
    assert_eq!(got["state_machine"]["state"], "Walk", "{got}");
    crate::state_machine::assert_matches("entered at Walk", &got, &anim_at("Walk.anim", 0.3));
    let got = pose(r#"[{"time": 0.5, "set": "go", "value": true}]"#, 0.6);
    assert_eq!(got["state_machine"]["transition"]["to"], "Walk", "{got}");
    let want = crate::state_machine::blend(&[
        (&anim_at("Idle.anim", 0.6), 0.6),
        (&anim_at("Walk.anim", 0.1), 0.4),
    ]);
    crate::state_machine::assert_matches("Idle -> Walk", &got, &want);
    // Walk from 0.5 s (its transition over by 0.75 s); speed 1 at 1.0 s: into the sub-machine's tree, over by 1.1 s.
    let got = pose(
        r#"[{"time": 0.5, "set": "go", "value": true}, {"time": 1.0, "set": "speed", "value": 1.0}]"#,
        1.3,
    );
    assert_eq!(got["state_machine"]["state"], "Move", "{got}");
    // The tree at 1 between thresholds 0.5 (Walk) and 1.5 (Run): half each, on one normalised cycle of 0.7 s
    // begun at 1.0 s: 0.3 s in, 3/7 of the cycle.
    let phase = 0.3 / 0.7;
    let want = crate::state_machine::blend(&[
        (&anim_at("Walk.anim", phase * 0.8), 0.5),
        (&anim_at("Run.anim", phase * 0.6), 0.5),
    ]);
    crate::state_machine::assert_matches("the sub-machine's blend tree", &got, &want);
}

/// A controller's layers play over its base layer through their avatar masks and their own states, joint by
/// joint. The fixture's Layered plays Idle on the base (at twice its speed: its Speed Multiplier parameter `pace`
/// is 2; a quarter of a cycle on: its Cycle Offset); "Spine" (weight 0.5, a mask of no body part and the transform path Root/Hips/Spine) plays Run; "Left arm"
/// (weight 0.75, a mask of the head's and the left arm's body parts) starts in Rest, a state with no motion, and
/// the trigger `swap` takes it to Swing (Run) in 0.2 s. So: the spine is Idle's and Run's half and half; the head
/// is Idle's while the arm layer rests (an empty state leaves the layers below, as in Unity), and the head and the
/// left upper arm fade toward Run's with the transition, up to 0.75 (Run's spine masked out of the arm layer).
#[test]
fn a_controllers_layers_play_through_their_masks_joint_by_joint() {
    let controller = fixture("Layered/Layered.controller");
    let script = script_file(
        "unity-layer-machine",
        "swap.json",
        r#"[{"time": 0.5, "trigger": "swap"}]"#,
    );
    let pose_at = |time: f64| controller_pose(&controller, &script, time);
    let got = pose_at(0.3);
    let names = joint_names(&got);
    // Before the trigger: the arm layer rests, so the head stays Idle's.
    let idle = anim_at("Idle.anim", 0.85);
    let want = layered(&names, &idle, None, &anim_at("Run.anim", 0.3));
    let head = names.iter().position(|n| n == "Head").unwrap();
    assert!(
        common::angle_deg(idle[head], glam::Quat::IDENTITY) > 1.0,
        "Idle moves the head"
    );
    crate::state_machine::assert_matches("the resting arm layer", &got, &want);
    // Halfway through the transition (0.1 s of 0.2): Swing 0.1 s in, at half the layer's weight.
    let idle = anim_at("Idle.anim", 1.45);
    let swing = anim_at("Run.anim", 0.1);
    let want = layered(
        &names,
        &idle,
        Some((&swing, 0.75 * 0.5)),
        &anim_at("Run.anim", 0.6),
    );
    crate::state_machine::assert_matches("the arm layer fading in", &pose_at(0.6), &want);
    // At 1.0 s: Swing 0.5 s in, at the layer's weight.
    let idle = anim_at("Idle.anim", 2.25);
    let swing = anim_at("Run.anim", 0.5);
    let want = layered(
        &names,
        &idle,
        Some((&swing, 0.75)),
        &anim_at("Run.anim", 1.0),
    );
    crate::state_machine::assert_matches(
        "the arm layer after its transition",
        &pose_at(1.0),
        &want,
    );
}

/// An upper layer's Entry transitions: with `raised` set from the start, the arm layer enters Swing instead of its
/// default Rest, at once and at the layer's full weight (an Entry transition has no blend).
#[test]
fn an_upper_layers_entry_transitions_choose_where_it_starts() {
    let controller = fixture("Layered/Layered.controller");
    let script = script_file(
        "unity-layer-entry",
        "raised.json",
        r#"[{"time": 0, "set": "raised", "value": true}]"#,
    );
    let got = controller_pose(&controller, &script, 0.3);
    let idle = anim_at("Idle.anim", 0.85);
    let swing = anim_at("Run.anim", 0.3);
    let want = layered(&joint_names(&got), &idle, Some((&swing, 0.75)), &swing);
    crate::state_machine::assert_matches("the arm layer entered at Swing", &got, &want);
}

/// A synced layer plays the states and transitions of the layer it follows with its own motions: the fixture's
/// Echo (weight 0.5, no mask) plays Run where the base plays Idle, and nothing where it plays Walk (an empty state
/// leaves the pose below). Before `go`: Idle and Run half and half on every joint, Run (0.6 s) stretched to
/// Idle's length (1 s) as Unity's synced layer without Timing plays it: at 0.7 s, Run at 0.42 s, not at 0.1 s as
/// on its own clock; after the 0.2 s transition to Walk, Walk alone.
#[test]
fn a_synced_layer_plays_its_source_layers_states_with_its_own_motions() {
    let controller = fixture("Synced/Synced.controller");
    let script = script_file(
        "unity-synced",
        "go.json",
        r#"[{"time": 0.5, "set": "go", "value": true}]"#,
    );
    let still = script_file("unity-synced-still", "still.json", "[]");
    for time in [0.3, 0.7] {
        let want = crate::state_machine::blend(&[
            (&anim_at("Idle.anim", time), 0.5),
            (&anim_at("Run.anim", time * 0.6), 0.5),
        ]);
        crate::state_machine::assert_matches(
            &format!("Idle under Echo's Run stretched, at {time} s"),
            &controller_pose(&controller, &still, time),
            &want,
        );
    }
    let after = controller_pose(&controller, &script, 1.0);
    assert_eq!(after["state_machine"]["state"], "Walk");
    crate::state_machine::assert_matches(
        "Walk under Echo's empty state",
        &after,
        &anim_at("Walk.anim", 0.5),
    );
}

/// With Unity's Timing on, a synced layer's state lasts between the two layers' motions' lengths by the layer's
/// weight, in both layers: Idle (1 s) under Echo's Run (0.6 s) at weight 0.5 lasts 0.8 s, so at 0.7 s both are
/// 0.875 of the way through their cycles (Idle at 0.875 s, Run at 0.525 s).
#[test]
fn a_synced_layer_with_timing_sets_both_layers_lengths_by_its_weight() {
    let project = common::temp_dir("unity-synced-timing").join("Game");
    copy_fixture_folders(&project, &["Anims", "Synced"], |_| true);
    let controller = project.join("Assets/Synced/Synced.controller");
    let text = std::fs::read_to_string(&controller).unwrap();
    let echo = "m_DefaultWeight: 0.5\n    m_IKPass: 0\n    m_SyncedLayerAffectsTiming: ";
    assert_eq!(text.matches(&format!("{echo}0")).count(), 1);
    std::fs::write(
        &controller,
        text.replace(&format!("{echo}0"), &format!("{echo}1")),
    )
    .unwrap();
    let still = script_file("unity-synced-timing-still", "still.json", "[]");
    let controller = controller.to_str().unwrap();
    let shown = String::from_utf8(animtune(&["inspect", controller]).stdout).unwrap();
    assert!(
        shown.contains("'Echo': weight 0.5, override, synced to layer 0 with Timing"),
        "{shown}"
    );
    // How it plays is said as such, not among what is not previewed, which is nothing here.
    assert!(
        shown.contains("\n  plays as a state machine") && shown.contains("not previewed: nothing"),
        "{shown}"
    );
    for time in [0.3, 0.7] {
        let phase = time / 0.8;
        let want = crate::state_machine::blend(&[
            (&anim_at("Idle.anim", phase), 0.5),
            (&anim_at("Run.anim", phase * 0.6), 0.5),
        ]);
        crate::state_machine::assert_matches(
            &format!("Idle and Echo's Run both lasting 0.8 s, at {time} s"),
            &controller_pose(controller, &still, time),
            &want,
        );
    }
}

/// An Additive layer with its own states plays as Unity's: the Trees fixture's Add layer rests in an empty state
/// and goes to Sway (Run) when `add` is set; Sway's motion relative to Run's first frame is added to the base
/// (Idle, Simple's origin node), joint by joint: below × first⁻¹ × now.
#[test]
fn an_additive_layers_states_add_their_motion_from_their_first_frame() {
    let controller = fixture("Trees/Trees.controller");
    let script = script_file(
        "unity-additive-layer",
        "add.json",
        r#"[{"time": 0, "set": "add", "value": true}]"#,
    );
    let still = script_file("unity-additive-still", "still.json", "[]");
    let time = 0.3;
    crate::state_machine::assert_matches(
        "the empty state adds nothing",
        &controller_pose(&controller, &still, time),
        &anim_at("Idle.anim", time),
    );
    let got = controller_pose(&controller, &script, time);
    let (idle, first, now) = (
        anim_at("Idle.anim", time),
        anim_at("Run.anim", 0.0),
        anim_at("Run.anim", time),
    );
    let want: Vec<glam::Quat> = idle
        .iter()
        .zip(first.iter().zip(&now))
        .map(|(below, (f, n))| (*below * (f.inverse() * *n)).normalize())
        .collect();
    let moved = want
        .iter()
        .zip(&idle)
        .map(|(a, b)| common::angle_deg(*a, *b))
        .fold(0.0, f64::max);
    assert!(moved > 5.0, "Sway adds a visible motion: {moved}°");
    crate::state_machine::assert_matches("Sway added over Idle", &got, &want);
}

/// The fixture's Trees holds one state per 2D blend-tree type (Simple Directional, Freeform Directional, Freeform
/// Cartesian), each with Idle at (0, 0), Walk at (0, 1) and Run at (1, 0), and Entry transitions on the int `which`
/// choosing among them. With the point on a child, every type gives that child alone (each of Unity's 2D types
/// weighs a child 1 at its own position), playing on its own cycle.
#[test]
fn every_2d_blend_tree_type_plays_its_child_at_the_childs_position() {
    let controller = fixture("Trees/Trees.controller");
    let dir = common::temp_dir("unity-trees");
    for (which, state) in [(0, "Simple"), (1, "Freeform"), (2, "Cartesian")] {
        for (x, y, clip, length) in [(0, 1, "Walk.anim", 0.8), (1, 0, "Run.anim", 0.6)] {
            let script = dir.join(format!("{state}_{clip}.json"));
            std::fs::write(
                &script,
                format!(
                    r#"[{{"time": 0, "set": "which", "value": {which}}},
                        {{"time": 0, "set": "x", "value": {x}}}, {{"time": 0, "set": "y", "value": {y}}}]"#
                ),
            )
            .unwrap();
            let got = controller_pose(&controller, &script, 0.3);
            assert_eq!(got["state_machine"]["state"], state, "{got}");
            let phase = (0.3_f64 / length).fract();
            crate::state_machine::assert_matches(
                &format!("{state} at {clip}'s position"),
                &got,
                &anim_at(clip, phase * length),
            );
        }
    }
}

/// Unity's Motion Time parameter: the fixture's Scrubbed state (entered on `which` = 3) samples Walk where its
/// float `scrub` says, 0.25 of its cycle by default, whatever the clock; set to 0.75, there.
#[test]
fn a_states_time_parameter_places_its_motion() {
    let controller = fixture("Trees/Trees.controller");
    let dir = common::temp_dir("unity-time-parameter");
    let script = dir.join("scrub.json");
    std::fs::write(
        &script,
        r#"[{"time": 0, "set": "which", "value": 3}, {"time": 1.0, "set": "scrub", "value": 0.75}]"#,
    )
    .unwrap();
    // Its Mirror parameter is the bool `flip` (off here; the machine's mirror parameter is tested in
    // state_machine.rs).
    let imported =
        animtune::import::unity::to_machine::import(Path::new(&controller), 1 << 30).unwrap();
    let scrubbed = imported
        .machine
        .states
        .iter()
        .find(|s| s.name == "Scrubbed")
        .unwrap();
    assert_eq!(scrubbed.mirror_parameter.as_deref(), Some("flip"));
    // Its Write Defaults (off), Foot IK and tag are named as not previewed.
    for what in ["Write Defaults off", "Foot IK on", "have tags"] {
        assert!(
            imported
                .notes
                .iter()
                .any(|n| n.contains(what) && n.contains("'Scrubbed'")),
            "{what}: {:?}",
            imported.notes
        );
    }
    let walk_length = 0.8;
    for (time, cycle) in [(0.3, 0.25), (0.9, 0.25), (1.3, 0.75)] {
        let got = controller_pose(&controller, &script, time);
        assert_eq!(got["state_machine"]["state"], "Scrubbed", "{got}");
        crate::state_machine::assert_matches(
            &format!("Scrubbed at {time} s"),
            &got,
            &anim_at("Walk.anim", cycle * walk_length),
        );
    }
}

/// Unity's Direct and nested blend trees, from the Trees fixture. Weights written here from Unity's rules: a
/// Direct tree weighs each child by its parameter (its total short of 1 left to the default pose, here the rest
/// pose); a nested tree multiplies the weights down the tree (a 1D tree linear between neighbouring thresholds).
/// The clips share one normalised time over the weighted mean of their lengths (Idle 1 s, Walk 0.8 s, Run 0.6 s),
/// a child's Cycle Offset moving it along that cycle.
#[test]
fn direct_and_nested_blend_trees_weigh_their_clips_by_their_parameters() {
    let controller = fixture("Trees/Trees.controller");
    let dir = common::temp_dir("unity-direct-nested");
    let lengths = [("Idle.anim", 1.0), ("Walk.anim", 0.8), ("Run.anim", 0.6)];
    let mannequin = animtune::demo::mannequin::load();
    let rest: Vec<glam::Quat> = mannequin
        .character
        .skeleton
        .rest()
        .iter()
        .map(|t| t.rotation)
        .collect();
    let time = 0.3;
    for (state, which, values, weights, rest_weight) in [
        // Direct: Walk by wWalk, Run by wRun.
        (
            "Direct",
            4,
            [("wWalk", 0.3), ("wRun", 0.7)],
            [0.0, 0.3, 0.7],
            0.0,
        ),
        (
            "Direct",
            4,
            [("wWalk", 0.25), ("wRun", 0.25)],
            [0.0, 0.25, 0.25],
            0.5,
        ),
        // Nested: 1D on x of Idle (0) and, at 1, a 1D on y of Walk (0) and Run (1).
        (
            "Nested",
            5,
            [("x", 0.5), ("y", 0.5)],
            [0.5, 0.25, 0.25],
            0.0,
        ),
        ("Nested", 5, [("x", 0.8), ("y", 0.25)], [0.2, 0.6, 0.2], 0.0),
    ] {
        let script = dir.join(format!("{state}_{}.json", values[0].1));
        std::fs::write(
            &script,
            format!(
                r#"[{{"time": 0, "set": "which", "value": {which}}},
                    {{"time": 0, "set": "{}", "value": {}}}, {{"time": 0, "set": "{}", "value": {}}}]"#,
                values[0].0, values[0].1, values[1].0, values[1].1
            ),
        )
        .unwrap();
        let got = controller_pose(&controller, &script, time);
        assert_eq!(got["state_machine"]["state"], state, "{got}");
        let total: f64 = weights.iter().sum();
        let cycle: f64 = weights
            .iter()
            .zip(lengths)
            .map(|(w, (_, length))| w / total * length)
            .sum();
        let phase = (time / cycle).fract();
        // The Direct tree's Walk child has a Cycle Offset of half its cycle.
        let offsets = if state == "Direct" {
            [0.0, 0.5, 0.0]
        } else {
            [0.0; 3]
        };
        let clips: Vec<Vec<glam::Quat>> = lengths
            .iter()
            .zip(offsets)
            .map(|((clip, length), offset)| anim_at(clip, (phase + offset).fract() * length))
            .collect();
        let mut terms: Vec<(&[glam::Quat], f64)> = clips
            .iter()
            .zip(weights)
            .filter(|(_, w)| *w > 0.0)
            .map(|(c, w)| (c.as_slice(), w))
            .collect();
        if rest_weight > 0.0 {
            terms.push((&rest, rest_weight));
        }
        crate::state_machine::assert_matches(
            &format!("{state} at {values:?}"),
            &got,
            &crate::state_machine::blend(&terms),
        );
    }
}

/// Leaving a sub-state machine through its Exit, as Unity does: Move (inside Fast) goes to Exit when `speed` drops
/// below 0.25; the base machine's transition out of Fast takes it to Idle on the trigger `again`, and where that
/// does not hold, the base machine's Entry takes it (Entry → Walk on `go`). Flattened, Move's way out is a
/// transition per end, each with the conditions of its way, in Unity's order.
#[test]
fn leaving_a_sub_machine_through_its_exit_follows_the_parents_transitions_then_its_entry() {
    let controller = fixture("Controllers/Locomotion.controller");
    let imported =
        animtune::import::unity::to_machine::import(Path::new(&controller), 1 << 30).unwrap();
    // The graph frames Fast's states: Move is in it, Idle is not.
    let group = |name: &str| {
        imported
            .machine
            .states
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .group
            .clone()
    };
    assert_eq!(
        (group("Move"), group("Idle")),
        (Some("Fast".to_string()), None)
    );
    let from_move: Vec<(String, Vec<String>)> = imported
        .machine
        .transitions
        .iter()
        .filter(|t| t.from == "Move")
        .map(|t| {
            (
                t.to.clone(),
                t.conditions.iter().map(|c| c.parameter.clone()).collect(),
            )
        })
        .collect();
    let way = |to: &str, conditions: &[&str]| {
        (
            to.to_string(),
            conditions.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        from_move,
        [
            way("Idle", &["ON"]),
            way("Idle", &["speed", "again"]),
            way(animtune::graph::machine::EXIT, &["speed"]),
        ]
    );
    let dir = common::temp_dir("unity-sub-exit");
    let script = dir.join("exit.json");
    std::fs::write(
        &script,
        r#"[{"time": 0.5, "set": "go", "value": true}, {"time": 1.0, "set": "speed", "value": 1.0},
            {"time": 1.5, "set": "speed", "value": 0.0}]"#,
    )
    .unwrap();
    let state = |time: f64| {
        controller_pose(&controller, &script, time)["state_machine"]["state"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(state(1.4), "Move");
    assert_eq!(state(1.8), "Walk", "out of Fast's Exit, through the Entry");
    let again = dir.join("again.json");
    std::fs::write(
        &again,
        r#"[{"time": 0.5, "set": "go", "value": true}, {"time": 1.0, "set": "speed", "value": 1.0},
            {"time": 1.5, "set": "speed", "value": 0.0}, {"time": 1.5, "trigger": "again"}]"#,
    )
    .unwrap();
    let after = controller_pose(&controller, &again, 1.55)["state_machine"].clone();
    assert_eq!(
        after["parameters"]["again"], 0.0,
        "the trigger is taken: {after}"
    );
}

/// `bake --controller --script` writes the run `pose --controller --script` shows: the baked glTF read back at
/// 1.3 s (inside the sub-machine's tree) is within 0.1° of the live pose, joint by joint.
#[test]
fn a_controller_bakes_what_it_plays() {
    let dir = common::temp_dir("unity-controller-bake");
    let controller = fixture("Controllers/Locomotion.controller");
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"[{"time": 0.5, "set": "go", "value": true}, {"time": 1.0, "set": "speed", "value": 1.0}]"#,
    )
    .unwrap();
    let out = dir.join("run.glb");
    let (script, out_s) = (script.to_str().unwrap(), out.to_str().unwrap());
    common::assert_success(&animtune(&[
        "bake",
        "mannequin",
        "--controller",
        &controller,
        "--script",
        script,
        "--duration",
        "2",
        "-o",
        out_s,
        "--format",
        "gltf",
    ]));
    let baked = common::json_of(&animtune(&["pose", out_s, "--time", "1.3", "--json"]));
    let live = common::json_of(&animtune(&[
        "pose",
        "mannequin",
        "--controller",
        &controller,
        "--script",
        script,
        "--time",
        "1.3",
        "--json",
    ]));
    let want: Vec<glam::Quat> = crate::state_machine::rotations(&live)
        .into_iter()
        .map(|(_, q)| q)
        .collect();
    let baked_rotations = crate::state_machine::rotations(&baked);
    let live_names: Vec<String> = crate::state_machine::rotations(&live)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let names: Vec<String> = baked_rotations.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names, live_names, "the same joints");
    let worst = baked_rotations
        .iter()
        .zip(&want)
        .map(|((_, a), b)| common::angle_deg(*a, *b))
        .fold(0.0, f64::max);
    assert!(worst < 0.1, "the bake is {worst}° from the live run");
}

/// `--controller` takes a project folder: a folder with one controller plays it (the same pose as the file), one
/// with several is refused naming them, one with none says so.
#[test]
fn a_controller_is_found_in_a_project_folder() {
    let project = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/unity");
    let at = |controller: &str| {
        common::json_of(&animtune(&[
            "pose",
            "mannequin",
            "--controller",
            controller,
            "--time",
            "0.4",
            "--json",
        ]))
    };
    // Assets/Anims holds no controller; the project root holds five.
    let empty = animtune(&[
        "pose",
        "mannequin",
        "--controller",
        &fixture("Anims"),
        "--time",
        "0.4",
    ]);
    common::assert_clean_failure(&empty, &["Anims", "holds no .controller"]);
    let both = animtune(&[
        "pose",
        "mannequin",
        "--controller",
        project.to_str().unwrap(),
        "--time",
        "0.4",
    ]);
    common::assert_clean_failure(
        &both,
        &[
            "holds 5 controllers",
            "Locomotion.controller",
            "Fast.overrideController",
            "Layered.controller",
            "Synced.controller",
            "Trees.controller",
        ],
    );
    // A copy of the project without the override controller: its folder plays Locomotion.
    let dir = common::temp_dir("unity-project-folder");
    let copy = dir.join("Game");
    copy_fixture_folders(&copy, &["Anims", "Controllers"], |name| {
        !name.starts_with("Fast.")
    });
    let from_folder = at(copy.to_str().unwrap());
    let from_file = at(&fixture("Controllers/Locomotion.controller"));
    assert_eq!(
        crate::state_machine::rotations(&from_folder),
        crate::state_machine::rotations(&from_file)
    );
}

/// An override controller plays its base controller with its clips swapped: the fixture's Fast swaps Walk for
/// Run (and leaves Idle, whose override is empty), so Idle → Walk now blends Idle with Run. Override controllers
/// that stand on one another in a cycle are refused by name.
#[test]
fn an_override_controller_plays_its_base_with_clips_swapped() {
    let script = script_file(
        "unity-override",
        "script.json",
        r#"[{"time": 0.5, "set": "go", "value": true}]"#,
    );
    let dir = script.parent().unwrap().to_path_buf();
    let got = common::json_of(&animtune(&[
        "pose",
        "mannequin",
        "--controller",
        &fixture("Controllers/Fast.overrideController"),
        "--script",
        script.to_str().unwrap(),
        "--time",
        "0.6",
        "--exact",
        "--json",
    ]));
    let want = crate::state_machine::blend(&[
        (&anim_at("Idle.anim", 0.6), 0.6),
        (&anim_at("Run.anim", 0.1), 0.4),
    ]);
    crate::state_machine::assert_matches("Idle -> Walk played as Run", &got, &want);

    let project = dir.join("Assets");
    std::fs::create_dir_all(&project).unwrap();
    for (name, guid, base) in [
        (
            "A",
            "b1000000000000000000000000000001",
            "b1000000000000000000000000000002",
        ),
        (
            "B",
            "b1000000000000000000000000000002",
            "b1000000000000000000000000000001",
        ),
    ] {
        std::fs::write(
            project.join(format!("{name}.overrideController")),
            format!(
                "--- !u!221 &22100000\nAnimatorOverrideController:\n  m_Name: {name}\n  m_Controller: {{fileID: 22100000, guid: {base}, type: 2}}\n  m_Clips: []\n"
            ),
        )
        .unwrap();
        std::fs::write(
            project.join(format!("{name}.overrideController.meta")),
            format!("fileFormatVersion: 2\nguid: {guid}\n"),
        )
        .unwrap();
    }
    let a = project.join("A.overrideController");
    let out = animtune(&["pose", "mannequin", "--controller", a.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("A.overrideController") && stderr.contains("cycle"),
        "{stderr}"
    );
}

/// Kenney's humanoid controller (from Mirror's examples) plays its FBX clips on its FBX character: RUNNING set
/// takes Any State to Run, and the clips move the character's joints.
#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn kenneys_controller_plays_its_clips_on_its_character() {
    let folder = common::extra_asset("unity/MANIFEST.md")
        .parent()
        .unwrap()
        .join("files/MirrorNetworking__Mirror/Assets/Mirror/Examples/_Common/Assets/(CC0) Kenney Animated Characters 3");
    let model = folder.join("Model/characterMedium.fbx");
    let controller = folder.join("Animations/characterMedium.controller");
    let dir = common::temp_dir("unity-kenney");
    let script = dir.join("run.json");
    std::fs::write(
        &script,
        r#"[{"time": 0.5, "set": "IDLE", "value": false}, {"time": 0.5, "set": "RUNNING", "value": true}]"#,
    )
    .unwrap();
    let pose = |time: &str| {
        common::json_of(&animtune(&[
            "pose",
            model.to_str().unwrap(),
            "--controller",
            controller.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "--time",
            time,
            "--json",
        ]))
    };
    let (a, b) = (pose("1.0"), pose("1.2"));
    assert_eq!(b["state_machine"]["state"], "Run", "{}", b["state_machine"]);
    let moved = crate::state_machine::rotations(&a)
        .into_iter()
        .zip(crate::state_machine::rotations(&b))
        .filter(|((_, p), (_, q))| common::angle_deg(*p, *q) > 1.0)
        .count();
    assert!(
        moved >= 10,
        "the run moves the character: {moved} joints turned over 0.2 s"
    );
}

#[test]
fn a_humanoid_anim_clip_plays_its_muscles_on_the_mannequin() {
    // Wave.anim holds Unity's T-pose muscle values, the right arm's Down-Up rising from its T-pose 0.39 to 1
    // at 0.5 s: 61° more, about the forward axis, toward up.
    let clip = fixture("Anims/Wave.anim");
    let pose = |time: &str| {
        common::json_of(&animtune(&[
            "pose",
            "mannequin",
            "--clip-file",
            &clip,
            "--time",
            time,
            "--json",
        ]))
    };
    let at = |p: &serde_json::Value, bone: &str| {
        let t = &common::pose_joint(p, "human_bone", bone)["model"]["translation"];
        glam::Vec3::new(
            t[0].as_f64().unwrap() as f32,
            t[1].as_f64().unwrap() as f32,
            t[2].as_f64().unwrap() as f32,
        )
    };
    let mannequin = animtune::demo::mannequin::load();
    let (skeleton, humanoid) = (&mannequin.character.skeleton, &mannequin.character.humanoid);
    let rest_model = animtune::core::Pose::rest(skeleton).model_matrices(skeleton);
    let rest_at = |bone: &str| {
        let b = animtune::core::HumanBone::from_name(bone).unwrap();
        rest_model[humanoid.joint(b).unwrap()].w_axis.truncate()
    };
    // At its T-pose values the mannequin stands in its T-pose (to 5 mm: the hips sit under the centre of mass).
    let start = pose("0");
    for bone in ["LeftHand", "RightHand", "Head", "LeftFoot", "RightToes"] {
        let d = at(&start, bone).distance(rest_at(bone));
        assert!(d < 0.005, "{bone} {d} m from its rest place");
    }
    let up = pose("0.5");
    let (shoulder, hand) = (at(&up, "RightUpperArm"), at(&up, "RightHand"));
    let arm = hand - shoulder;
    let elevation = arm.y.atan2(arm.x.hypot(arm.z)).to_degrees();
    assert!(
        (50.0..65.0).contains(&elevation) && arm.x < 0.0 && arm.z.abs() < 0.05,
        "the right arm rises to its side: {elevation}° ({arm})"
    );
    let left = at(&up, "LeftHand").distance(rest_at("LeftHand"));
    assert!(left < 0.03, "the left hand stays: {left} m");
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn kenneys_humanoid_crouch_clip_crouches_on_its_character_and_on_the_mannequin() {
    let folder = common::extra_asset("unity/MANIFEST.md")
        .parent()
        .unwrap()
        .join("files/MirrorNetworking__Mirror/Assets/Mirror/Examples/_Common/Assets/(CC0) Kenney Animated Characters 3");
    let clip = folder.join("Animations/Root_Idle_Crouch.anim");
    let character = folder.join("Model/characterMedium.fbx");
    for model in ["mannequin", character.to_str().unwrap()] {
        let pose = |clip_args: &[&str]| {
            let mut args = vec!["pose", model, "--time", "0.5", "--json"];
            args.extend_from_slice(clip_args);
            common::json_of(&animtune(&args))
        };
        let rest = pose(&[]);
        let crouch = pose(&["--clip-file", clip.to_str().unwrap()]);
        let at = |p: &serde_json::Value, bone: &str| {
            let j = p["joints"]
                .as_array()
                .unwrap()
                .iter()
                .find(|j| j["human_bone"] == bone)
                .unwrap_or_else(|| panic!("{model}: no {bone}"));
            let t = &j["model"]["translation"];
            glam::Vec3::new(
                t[0].as_f64().unwrap() as f32,
                t[1].as_f64().unwrap() as f32,
                t[2].as_f64().unwrap() as f32,
            )
        };
        let hips_rest = at(&rest, "Hips").y;
        // The clip's body stands at 0.74 of its T-pose height: the hips drop by about a quarter.
        let hips = at(&crouch, "Hips");
        assert!(
            (0.6..0.8).contains(&(hips.y / hips_rest)),
            "{model}: hips at {} of their rest height",
            hips.y / hips_rest
        );
        // Thighs forward (Upper Leg Front-Back −0.54 and −0.64 with the T-pose at +0.6): knees ahead of the
        // hips; the chest bent forward (Chest Front-Back −0.6): the head ahead of the hips.
        for side in ["Left", "Right"] {
            let knee = at(&crouch, &format!("{side}LowerLeg"));
            assert!(
                knee.z > hips.z + 0.2 * hips_rest,
                "{model}: {side} knee {knee}, hips {hips}"
            );
        }
        let head = at(&crouch, "Head");
        assert!(
            head.z > hips.z + 0.3 * hips_rest,
            "{model}: head {head}, hips {hips}"
        );
        // The body's centre of mass stands where the clip puts it, so a foot stays near the floor: the lower
        // ankle rises less than 12 % of the hips' rest height (the hips placed at the body's height instead of
        // under the posed centre of mass float Kenney's feet by 14 %; its proportions are not the reference's).
        let rise = ["Left", "Right"]
            .map(|side| {
                let foot = format!("{side}Foot");
                at(&crouch, &foot).y - at(&rest, &foot).y
            })
            .into_iter()
            .fold(f32::INFINITY, f32::min);
        assert!(
            rise < 0.12 * hips_rest,
            "{model}: the lower ankle rose {} of the hips' rest height",
            rise / hips_rest
        );
    }
}

/// Kenney's character carries its Unity avatar in `characterMedium.fbx.meta`: `inspect` says its bones are
/// mapped from it, and the committed `Wave.anim`, whose left arm holds the recorded T-pose's values, stands
/// Kenney's left upper arm (`LeftArm`) at the avatar's T-pose rotation, read here from the `.meta`'s text (Unity's
/// axes: x, −y, −z, w of the tool's), which Unity adjusted from the FBX's rest by about 0.2°.
#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn kenneys_avatar_maps_its_bones_and_its_t_pose_stands_a_t_pose_clip() {
    let character = common::extra_asset("unity/MANIFEST.md")
        .parent()
        .unwrap()
        .join("files/MirrorNetworking__Mirror/Assets/Mirror/Examples/_Common/Assets/(CC0) Kenney Animated Characters 3/Model/characterMedium.fbx");
    let model = character.to_str().unwrap();
    let shown = String::from_utf8(animtune(&["inspect", model]).stdout).unwrap();
    assert!(shown.contains("source: unity avatar"), "{shown}");
    // The avatar's T-pose for LeftArm, from the `.meta`'s skeleton list.
    let meta = std::fs::read_to_string(format!("{model}.meta")).unwrap();
    let entry = meta
        .split("    - name: ")
        .find(|e| e.starts_with("LeftArm\n"))
        .expect("LeftArm in the avatar's skeleton");
    let rotation = entry
        .lines()
        .find_map(|l| l.trim().strip_prefix("rotation: {"))
        .unwrap()
        .trim_end_matches('}');
    let value = |axis: &str| -> f32 {
        rotation
            .split(", ")
            .find_map(|p| p.strip_prefix(&format!("{axis}: ")))
            .unwrap()
            .parse()
            .unwrap()
    };
    let t_pose =
        glam::Quat::from_xyzw(value("x"), -value("y"), -value("z"), value("w")).normalize();
    let local = |pose: &serde_json::Value| {
        let r = &common::pose_joint(pose, "name", "LeftArm")["local"]["rotation"];
        let q = |i: usize| r[i].as_f64().unwrap() as f32;
        glam::Quat::from_xyzw(q(0), q(1), q(2), q(3))
    };
    let rest = local(&common::json_of(&animtune(&["pose", model, "--json"])));
    let waved = local(&common::json_of(&animtune(&[
        "pose",
        model,
        "--clip-file",
        &fixture("Anims/Wave.anim"),
        "--time",
        "0",
        "--json",
    ])));
    let adjusted = common::angle_deg(rest, t_pose);
    assert!(
        adjusted > 0.1,
        "the avatar's T-pose is not the rest: {adjusted}°"
    );
    let off = common::angle_deg(waved, t_pose);
    assert!(off < 0.05, "LeftArm is {off}° from the avatar's T-pose");
}

/// The committed `Face.anim` weighs RobotExpressive's head blend shapes (targets Angry, Surprised, Sad) as
/// Unity's curves do, its 0–100 weights read as glTF's 0–1: Surprised on `RobotArmature/Head_4` eases from 0 to
/// 100 over the second (a Hermite curve with flat tangents: 100 (3t² − 2t³)); Sad steps to 60 at 0.5 s (infinite
/// tangents); Angry, on the root's path (no mesh by that name), holds 50 on the first head with that shape; Wink,
/// which no head has, is left out, and the heads and shapes no curve names keep their defaults (0). Baked to
/// glTF, the file's `weights` channel (read with the gltf crate) holds the same values.
#[test]
fn blend_shape_curves_weigh_the_characters_morph_targets_by_name() {
    let robot = common::asset("RobotExpressive.glb");
    let robot = robot.to_str().unwrap();
    let face = fixture("Anims/Face.anim");
    let eased = |t: f64| 3.0 * t * t - 2.0 * t * t * t;
    let want = |t: f64| {
        let sad = if t < 0.5 { 0.0 } else { 0.6 };
        [
            ("Head_2", vec![0.5, 0.0, 0.0]),
            ("Head_3", vec![0.0, 0.0, 0.0]),
            ("Head_4", vec![0.0, eased(t), sad]),
        ]
    };
    let close = |what: &str, got: &[f64], want: &[f64]| {
        assert_eq!(got.len(), want.len(), "{what}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-4, "{what}: {got:?}, want {want:?}");
        }
    };
    for t in [0.3, 0.45, 0.7] {
        let pose = common::json_of(&animtune(&[
            "pose",
            robot,
            "--clip-file",
            &face,
            "--time",
            &format!("{t}"),
            "--json",
        ]));
        let got: std::collections::BTreeMap<_, _> =
            common::morph_weights(&pose).into_iter().collect();
        for (node, w) in want(t) {
            close(&format!("{node} at {t} s"), &got[node], &w);
        }
    }
    let out = common::temp_dir("unity-face-bake").join("face.glb");
    common::assert_success(&animtune(&[
        "bake",
        robot,
        "--clip-file",
        &face,
        "--format",
        "gltf",
        "-o",
        out.to_str().unwrap(),
    ]));
    let (doc, buffers, _) = gltf::import(&out).unwrap();
    let anim = doc.animations().next().expect("an animation");
    let mut heads = 0;
    for ch in anim.channels() {
        if ch.target().property() != gltf::animation::Property::MorphTargetWeights {
            continue;
        }
        let node = ch.target().node().name().unwrap_or_default().to_string();
        let reader = ch.reader(|b| Some(&buffers[b.index()].0));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        let Some(gltf::animation::util::ReadOutputs::MorphTargetWeights(w)) = reader.read_outputs()
        else {
            panic!("{node}: weights")
        };
        let weights: Vec<f32> = w.into_f32().collect();
        assert_eq!(
            ch.sampler().interpolation(),
            gltf::animation::Interpolation::Linear
        );
        for t in [0.3_f32, 0.45, 0.7] {
            let Some((_, w)) = want(f64::from(t)).into_iter().find(|(n, _)| *n == node) else {
                panic!("a channel on {node}, which no curve names")
            };
            let k = times.partition_point(|&x| x <= t).clamp(1, times.len() - 1);
            let u = (t - times[k - 1]) / (times[k] - times[k - 1]);
            let at: Vec<f64> = (0..3)
                .map(|i| {
                    let (a, b) = (weights[(k - 1) * 3 + i], weights[k * 3 + i]);
                    f64::from(a + (b - a) * u.clamp(0.0, 1.0))
                })
                .collect();
            close(&format!("{node} at {t} s in the glTF"), &at, &w);
        }
        heads += 1;
    }
    assert!(heads >= 2, "the animated heads have weights channels");
}
