//! Repairs in the editor, as a new user meets them (egui_kittest): the Clip tab's root-motion rows make a new
//! clip from the one playing, which plays at once, names what it did in the status bar, goes with one undo and
//! comes back from a saved preset.

use animtune::app::command::Command;
use animtune::core::{HumanBone, Pose, Wrap};
use egui_kittest::kittest::Queryable;

use crate::kittest::harness_sized;
use crate::ui::{clip_index, play_in_clip_tab, save_then_undo_removes};

/// Where the clip named `name` puts joint `joint` (model space) at `t`, as the editor made it.
fn joint_at(
    h: &egui_kittest::Harness<'static, animtune::app::AnimtuneApp>,
    name: &str,
    joint: usize,
    t: f32,
) -> glam::Vec3 {
    let e = h.state().editor();
    let character = &e.doc().model.character;
    let clip = &e.doc().clips[clip_index(h, name)];
    let skeleton = &character.skeleton;
    let mut pose = Pose::rest(skeleton);
    clip.sample_into(
        &clip.bind(skeleton, Some(&character.humanoid)),
        t,
        Wrap::Clamp,
        &mut pose,
    );
    pose.model_matrices(skeleton)[joint].w_axis.truncate()
}

#[test]
fn the_clip_tab_moves_root_motion_into_the_pose_and_extracts_it_again_each_one_undo_step() {
    let dir = crate::common::temp_dir("editor-root-pass");
    let mut h = harness_sized(1280.0, 1100.0);
    h.run_steps(2);
    let rig = crate::common::asset("quaternius_ual/AnimationLibrary_Godot_Standard.gltf");
    h.state_mut().send(Command::Open(rig));
    h.run_steps(3);
    play_in_clip_tab(&mut h, "Roll_RM");
    // Into pose: all three components.
    h.get_by_label("Y").click();
    h.run_steps(1);
    h.get_by_label("Root motion into pose").click();
    h.run_steps(3);
    let in_pose = "Roll_RM (root in pose)";
    let e = h.state().editor();
    let made = clip_index(&h, in_pose);
    assert_eq!(
        e.clip(),
        Some(made),
        "the new clip plays: {}",
        e.status().text
    );
    assert!(
        e.status().text.contains("Made clip Roll_RM (root in pose)"),
        "{}",
        e.status().text
    );
    let character = &e.doc().model.character;
    let root = character.skeleton.find_by_name("root").unwrap();
    let hips = character.humanoid.joint(HumanBone::Hips).unwrap();
    let still = joint_at(&h, in_pose, root, 1.4) - joint_at(&h, in_pose, root, 0.0);
    assert!(still.length() < 1e-4, "the root stays: {still}");
    let source_hips = joint_at(&h, "Roll_RM", hips, 1.0);
    assert!(
        joint_at(&h, in_pose, hips, 1.0).distance(source_hips) < 1e-4,
        "the hips go where they went"
    );
    assert!(
        h.query_by_label_contains("with a root-motion pass: xz, yaw, y into the pose from")
            .is_some()
    );

    // Extracted again from the hips (travel and turn; the height stays in the pose), onto the root: the root
    // travels as Roll_RM's did.
    h.get_by_label("Y").click();
    h.run_steps(1);
    h.get_by_label("Extract root motion").click();
    h.run_steps(3);
    let extracted = "Roll_RM (root in pose) (root extracted)";
    let e = h.state().editor();
    assert_eq!(
        e.clip(),
        Some(clip_index(&h, extracted)),
        "{}",
        e.status().text
    );
    let travel = joint_at(&h, extracted, root, 1.4) - joint_at(&h, extracted, root, 0.0);
    let original = joint_at(&h, "Roll_RM", root, 1.4) - joint_at(&h, "Roll_RM", root, 0.0);
    assert!(
        travel.distance(original) < 0.05 * original.length(),
        "{travel} against {original}"
    );
    assert!(joint_at(&h, extracted, hips, 1.0).distance(source_hips) < 1e-4);

    let saved = dir.join("root.json");
    h.state_mut().send(Command::SavePreset {
        path: saved.clone(),
        overwrite: true,
    });
    h.run_steps(2);
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(
        text.contains("\"into_pose\"") && text.contains("\"extract\""),
        "{text}"
    );
    // One undo takes the last clip only.
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    let names: Vec<String> = h
        .state()
        .editor()
        .doc()
        .clips
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert!(
        names.iter().any(|n| n == in_pose) && !names.iter().any(|n| n == extracted),
        "{names:?}"
    );
    h.state_mut().send(Command::Open(saved));
    h.run_steps(3);
    let e = h.state().editor();
    assert!(
        e.doc().clips.iter().any(|c| c.name == extracted),
        "the preset makes it again: {}",
        e.status().text
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rig_without_a_root_joint_has_no_root_motion_to_move_into_the_pose() {
    let mut h = harness_sized(1280.0, 1100.0);
    h.run_steps(2);
    play_in_clip_tab(&mut h, "WalkForward");
    let clips = h.state().editor().doc().clips.len();
    h.get_by_label("Root motion into pose").click();
    h.run_steps(2);
    assert_eq!(
        h.state().editor().doc().clips.len(),
        clips,
        "nothing is made"
    );
    assert!(!h.state().editor().can_undo());
}

#[test]
fn fix_loop_seam_makes_a_cropped_walk_loop_and_a_preset_makes_it_again() {
    let dir = crate::common::temp_dir("editor-loop-fix");
    let mut h = harness_sized(1280.0, 1100.0);
    h.run_steps(2);
    let rig = crate::common::asset("quaternius_ual/AnimationLibrary_Godot_Standard.gltf");
    h.state_mut().send(Command::Open(rig));
    h.run_steps(3);
    h.state_mut().send(Command::SetClipSettings {
        clip: "Walk_Loop".into(),
        settings: animtune::core::ClipSettings {
            end: Some(1.0),
            ..Default::default()
        },
    });
    h.run_steps(2);
    play_in_clip_tab(&mut h, "Walk_Loop");
    let fixed = "Walk_Loop (loop fixed)";
    let index = click_and_check_made(
        &mut h,
        "Fix loop seam",
        fixed,
        "Made clip Walk_Loop (loop fixed): seam",
    );
    let e = h.state().editor();
    assert!(
        (e.doc().clips[index].duration - 1.0).abs() < 1e-4,
        "made from the cropped clip"
    );
    let skeleton = &e.doc().model.character.skeleton;
    for j in [0, skeleton.len() / 2, skeleton.len() - 1] {
        let gap = joint_at(&h, fixed, j, 0.0).distance(joint_at(&h, fixed, j, 1.0));
        assert!(
            gap < 1e-4,
            "{}: the end is {gap} m from the start",
            skeleton.name(j)
        );
    }
    let open = (0..skeleton.len())
        .map(|j| joint_at(&h, "Walk_Loop", j, 0.0).distance(joint_at(&h, "Walk_Loop", j, 1.0)))
        .fold(0.0, f32::max);
    assert!(open > 0.05, "the cropped walk does not loop ({open} m)");
    assert!(
        h.query_by_label_contains("with its loop seam fixed")
            .is_some()
    );
    let saved = dir.join("loop.json");
    save_then_undo_removes(&mut h, &saved, fixed);
    h.state_mut().send(Command::Open(saved));
    h.run_steps(3);
    let e = h.state().editor();
    assert!(
        e.doc().clips.iter().any(|c| c.name == fixed),
        "the preset makes it again: {}",
        e.status().text
    );
    let again = joint_at(&h, fixed, 0, 0.0).distance(joint_at(&h, fixed, 0, 1.0));
    assert!(again < 1e-4, "{again} m");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fix_foot_skate_makes_a_walk_whose_planted_feet_stand_still() {
    use animtune::analysis::contacts::{ContactSettings, clip_skate};
    let mut h = harness_sized(1280.0, 1100.0);
    h.run_steps(2);
    play_in_clip_tab(&mut h, "WalkForward");
    let fixed = "WalkForward (skate fixed)";
    let index = click_and_check_made(
        &mut h,
        "Fix foot skate",
        fixed,
        "Made clip WalkForward (skate fixed): planted feet slide",
    );
    let e = h.state().editor();
    let character = &e.doc().model.character;
    let settings = ContactSettings::default();
    let meter = |name: &str| {
        let clip = &e.doc().clips[clip_index(&h, name)];
        clip_skate(character, clip, 60.0, &settings, None).unwrap()
    };
    let (before, after) = (meter("WalkForward"), meter(fixed));
    assert!(before.planted_speed_cm_s.mean > 20.0, "{before:?}");
    assert!(after.planted_speed_cm_s.mean <= 1.0, "{after:?}");
    // The footfall across the loop's seam is held at one point: the clip still loops.
    let gap = animtune::offline::measure::loop_match(character, &e.doc().clips[index]);
    assert!(gap < 0.005, "the end is {} cm from the start", gap * 100.0);
    assert!(
        h.query_by_label_contains("with its foot skate cleaned up")
            .is_some()
    );
    let saved = crate::common::temp_dir("editor-skate-fix").join("skate.json");
    save_then_undo_removes(&mut h, &saved, fixed);
}

/// Clicks the Clip tab's button `button`, then checks that it made clip `made`, which plays, and that the status
/// bar says so, starting with `status`; returns the new clip's index.
fn click_and_check_made(
    h: &mut egui_kittest::Harness<'static, animtune::app::AnimtuneApp>,
    button: &str,
    made: &str,
    status: &str,
) -> usize {
    h.get_by_label(button).click();
    h.run_steps(3);
    let e = h.state().editor();
    let index = clip_index(h, made);
    assert_eq!(
        e.clip(),
        Some(index),
        "the new clip plays: {}",
        e.status().text
    );
    assert!(e.status().text.contains(status), "{}", e.status().text);
    index
}

#[test]
fn the_humanoid_tab_turns_on_foot_goals_for_a_retargeted_walk_in_one_undo_step() {
    let mut h = harness_sized(1280.0, 1100.0);
    h.run_steps(2);
    let rig = crate::common::asset("quaternius_ual/AnimationLibrary_Godot_Standard.gltf");
    h.state_mut().send(Command::AddClips(rig));
    h.run_steps(3);
    let walk = clip_index(&h, "Walk_Loop");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.state_mut().send(Command::Transport(
        animtune::app::command::Transport::Scrub(0.4),
    ));
    h.run_steps(2);
    let ankle = |h: &egui_kittest::Harness<'static, animtune::app::AnimtuneApp>| {
        let e = h.state().editor();
        let c = &e.doc().model.character;
        let j = c.humanoid.joint(HumanBone::LeftFoot).unwrap();
        e.pose().model_matrices(&c.skeleton)[j].w_axis.truncate()
    };
    let before = ankle(&h);
    h.get_by_label("Humanoid").click();
    h.run_steps(2);
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, "Feet")
        .click();
    h.run_steps(3);
    let e = h.state().editor();
    assert!(e.tuning().ik_goals.feet.enabled);
    assert_eq!(
        e.doc().model.character.humanoid.ik_goals,
        e.tuning().ik_goals,
        "the character retargets with the tab's goals"
    );
    assert!(
        e.status().text.contains("Walk_Loop: IK goals: LeftFoot"),
        "the status bar says what the goals do: {}",
        e.status().text
    );
    let reached = ankle(&h);
    assert!(
        reached.distance(before) > 0.002,
        "the goals move the foot: {before} → {reached}"
    );
    // A saved preset keeps them.
    let path = crate::common::temp_dir("editor-ik-goals").join("goals.json");
    h.state_mut().send(Command::SavePreset {
        path: path.clone(),
        overwrite: true,
    });
    h.run_steps(2);
    let saved = animtune::preset::Preset::load(&path).unwrap();
    assert!(saved.ik_goals.feet.enabled, "{saved:?}");
    h.state_mut().send(Command::Undo);
    h.run_steps(3);
    assert!(!h.state().editor().tuning().ik_goals.feet.enabled);
    assert!(
        ankle(&h).distance(before) < 1e-5,
        "one undo step restores the foot"
    );
}

/// Extracts root motion in the Clip tab from the playing clip of a rig whose hips are its top joint: a `Root` joint
/// is added above them in the same undo step, the new clip travels on it, a saved preset brings both back.
fn extract_root_on_a_rig_without_one(
    h: &mut egui_kittest::Harness<'static, animtune::app::AnimtuneApp>,
    clip: &str,
    tag: &str,
) {
    let joints = h.state().editor().doc().model.character.skeleton.len();
    play_in_clip_tab(h, clip);
    h.get_by_label(animtune::app::panels::inspector::clip::EXTRACT_ROOT_LABEL)
        .click();
    h.run_steps(3);
    let made = format!("{clip} (root extracted)");
    let e = h.state().editor();
    let skeleton = &e.doc().model.character.skeleton;
    assert_eq!(skeleton.len(), joints + 1, "{}", e.status().text);
    assert_eq!(skeleton.name(0), "Root");
    assert!(
        e.status()
            .text
            .contains("a joint Root was added above the hips"),
        "{}",
        e.status().text
    );
    assert_eq!(e.clip(), Some(clip_index(h, &made)), "the new clip plays");
    // The travel is on the root: it moves away from where it starts.
    let duration = e.doc().clips[clip_index(h, &made)].duration;
    let start = joint_at(h, &made, 0, 0.0);
    let farthest = (1..=20)
        .map(|k| joint_at(h, &made, 0, duration * k as f32 / 20.0).distance(start))
        .fold(0.0f32, f32::max);
    assert!(farthest > 0.1, "the root travels {farthest} m at most");
    let path = crate::common::temp_dir(tag).join("rooted.json");
    save_then_undo_removes(h, &path, &made);
    let e = h.state().editor();
    assert_eq!(
        e.doc().model.character.skeleton.len(),
        joints,
        "the same undo step takes the root away"
    );
    assert!(animtune::preset::Preset::load(&path).unwrap().root_joint);
    h.state_mut().send(Command::Open(path));
    h.run_steps(3);
    let e = h.state().editor();
    assert_eq!(e.doc().model.character.skeleton.name(0), "Root");
    clip_index(h, &made);
}

#[test]
fn extracting_root_motion_on_the_mannequin_adds_a_root_joint_in_the_same_undo_step() {
    let mut h = harness_sized(1280.0, 1100.0);
    h.run_steps(2);
    extract_root_on_a_rig_without_one(&mut h, "WalkForward", "editor-added-root");
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn extracting_root_motion_from_a_mixamo_fbx_take_adds_a_root_joint() {
    let mut h = harness_sized(1280.0, 1100.0);
    h.run_steps(2);
    h.state_mut()
        .send(Command::Open(crate::common::extra_asset("fbx/mixamo.fbx")));
    h.run_steps(3);
    let take = h.state().editor().doc().clips[0].name.clone();
    extract_root_on_a_rig_without_one(&mut h, &take, "editor-mixamo-root");
}
