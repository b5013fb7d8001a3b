//! The editor driven by commands, headless: undo grouping, presets, restarts, transport, picking.

use super::*;
use crate::layers::LayerParams;

/// Applies the commands as one frame (the interaction ends with it) and evaluates.
fn frame(s: &mut EditorState, commands: impl IntoIterator<Item = Command>) {
    for c in commands {
        s.apply(c);
    }
    s.update(0.0, false);
}

fn move_node(i: usize, p: [f64; 2]) -> Command {
    Command::EditBlend(BlendEdit::MoveNode(i, p))
}

fn layers(s: &EditorState, edit: impl FnOnce(&mut LayerParams)) -> Command {
    let mut l = s.tuning().layers.clone();
    edit(&mut l);
    Command::SetLayers(Box::new(l))
}

#[test]
fn starts_on_the_mannequin_playing_its_locomotion_blend() {
    let s = EditorState::new();
    assert!(s.blending());
    assert_eq!(s.clip(), None);
    assert_eq!(s.doc().clips[0].name, "Idle");
    assert!(s.eval().clock().is_playing());
    assert!(s.blend_sampler().missing().is_empty());
    assert!((s.blend_weights().iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert_eq!(s.matrices().len(), s.doc().model.character.skeleton.len());
}

#[test]
fn blend_edits_undo_and_redo() {
    let mut s = EditorState::new();
    let start = s.tuning().blend.clone();
    // One interaction over three frames (the pointer is held), then a separate removal.
    s.apply(move_node(1, [0.2, 1.6]));
    s.update(0.0, true);
    s.apply(move_node(1, [0.3, 1.7]));
    s.update(0.0, false);
    frame(&mut s, [Command::EditBlend(BlendEdit::RemoveNode(2))]);
    assert_eq!(s.tuning().blend.nodes.len(), start.nodes.len() - 1);
    frame(&mut s, [Command::Undo]);
    assert_eq!(s.tuning().blend.nodes[1].position, [0.3, 1.7]);
    frame(&mut s, [Command::Undo]);
    assert_eq!(s.tuning().blend, start);
    assert!(!s.can_undo());
    frame(&mut s, [Command::Redo]);
    assert_eq!(s.tuning().blend.nodes[1].position, [0.3, 1.7]);
    frame(&mut s, [Command::SetBlendPoint([0.0, 3.5])]);
    let run = s
        .tuning()
        .blend
        .nodes
        .iter()
        .position(|n| n.clip == "RunForward")
        .unwrap();
    assert!((s.blend_weights()[run] - 1.0).abs() < 1e-9);
    assert!((s.eval().duration() - 0.7).abs() < 1e-6);
}

#[test]
fn presets_save_and_reopen_the_blend_space() {
    let dir = crate::test_support::temp_dir("editor-preset");
    let path = dir.join("mine.json");
    let mut s = EditorState::new();
    frame(&mut s, [move_node(1, [0.1, 1.5])]);
    let rate = layers(&s, |l| l.breath.effect_rate = 2.0);
    frame(&mut s, [rate]);
    let save = Command::SavePreset {
        path: path.clone(),
        overwrite: false,
    };
    frame(&mut s, [save.clone()]);
    assert!(!s.status().is_error, "{}", s.status().text);
    frame(&mut s, [save]);
    let status = s.status();
    assert!(
        status.is_error && status.text.contains("exists"),
        "{}",
        status.text
    );
    let mut t = EditorState::new();
    frame(&mut t, [Command::Open(path)]);
    assert!(!t.status().is_error, "{}", t.status().text);
    assert_eq!(t.tuning(), s.tuning());
    assert!(t.blending());
    assert!(t.can_undo(), "opening a preset is one undo step");
    frame(&mut t, [Command::Undo]);
    assert_eq!(t.tuning(), EditorState::new().tuning());
}

/// A preset's state machine survives opening and saving the preset, and the status says it is there.
#[test]
fn a_presets_state_machine_is_kept_when_the_preset_is_saved_again() {
    let dir = crate::test_support::temp_dir("editor-preset-machine");
    let (original, saved) = (dir.join("machine.json"), dir.join("again.json"));
    std::fs::write(
        &original,
        r#"{"format": "animtune-preset", "version": 5, "state_machine": {
            "parameters": [{"name": "go", "type": "bool"}],
            "states": [{"name": "Idle", "clip": "Idle"}, {"name": "Walk", "clip": "WalkForward"}],
            "entry": "Idle",
            "transitions": [{"from": "Idle", "to": "Walk", "has_exit_time": false,
                             "conditions": [{"parameter": "go", "mode": "if"}]}]}}"#,
    )
    .unwrap();
    let mut s = EditorState::new();
    frame(&mut s, [Command::Open(original.clone())]);
    assert!(!s.status().is_error, "{}", s.status().text);
    assert!(
        s.status().text.contains("state machine of 2"),
        "{}",
        s.status().text
    );
    frame(
        &mut s,
        [Command::SavePreset {
            path: saved.clone(),
            overwrite: false,
        }],
    );
    assert!(!s.status().is_error, "{}", s.status().text);
    let want = crate::preset::Preset::load(&original)
        .unwrap()
        .state_machine;
    let got = crate::preset::Preset::load(&saved).unwrap().state_machine;
    assert!(want.is_some());
    assert_eq!(got, want);
}

#[test]
fn the_tuning_survives_a_restart() {
    let mut s = EditorState::new();
    let look = layers(&s, |l| l.look_at.enabled = true);
    frame(&mut s, [move_node(2, [0.2, -1.0]), look]);
    let saved = serde_json::to_string(&s.persisted()).unwrap();
    let mut t = EditorState::new();
    t.restore(serde_json::from_str(&saved).unwrap());
    assert_eq!(t.tuning(), s.tuning());
    assert!(t.blending() && t.eval().clock().is_playing());
    // An older session without tuning, or a broken one, leaves the defaults.
    let mut u = EditorState::new();
    u.restore(serde_json::from_str(r#"{"recent":[],"camera":null,"show_skeleton":true}"#).unwrap());
    assert_eq!(u.tuning().blend, EditorState::new().tuning().blend);
    let mut bad: Persisted = serde_json::from_str(&saved).unwrap();
    bad.layers.as_mut().unwrap().twist.intensity = 7.0;
    let mut v = EditorState::new();
    v.restore(bad);
    assert_eq!(v.tuning().layers, LayerParams::default());
}

/// The state machine built on a model comes back after a restart, and when that model opens again after
/// another; another model never opens with it.
#[test]
fn each_models_state_machine_survives_a_restart_and_a_change_of_model() {
    let mut s = EditorState::new();
    frame(&mut s, [Command::NewMachine]);
    let machine = s.tuning().state_machine.clone();
    assert!(machine.is_some(), "{}", s.status().text);
    let saved = serde_json::to_string(&s.persisted()).unwrap();
    let mut t = EditorState::new();
    t.restore(serde_json::from_str(&saved).unwrap());
    assert_eq!(t.tuning().state_machine, machine);
    frame(
        &mut t,
        [Command::Open(crate::test_support::asset("CesiumMan.glb"))],
    );
    assert!(!t.status().is_error, "{}", t.status().text);
    assert_eq!(t.tuning().state_machine, None, "another model's machine");
    frame(&mut t, [Command::LoadMannequin]);
    assert_eq!(t.tuning().state_machine, machine);
    // A machine edited by hand into an invalid one is left out.
    let mut bad: Persisted = serde_json::from_str(&saved).unwrap();
    for m in bad.machines.values_mut() {
        m.states.clear();
    }
    let mut u = EditorState::new();
    u.restore(bad);
    assert_eq!(u.tuning().state_machine, None);
}

#[test]
fn the_blend_cycle_follows_the_weights_without_jumping_phase() {
    let mut s = EditorState::new();
    frame(&mut s, [Command::SetBlendPoint([0.0, 1.4])]);
    frame(&mut s, [Command::Transport(Transport::Scrub(0.55))]);
    frame(&mut s, [Command::SetBlendPoint([0.0, 3.5])]);
    let t = s.eval().time();
    assert!((t - 0.35).abs() < 1e-5, "{t}");
}

/// A clip of blend shapes alone (a Unity `.anim` weighing RobotExpressive's heads) joins the clip list and
/// plays its weights: it binds no joint, but its morph tracks find the meshes.
#[test]
fn a_clip_of_face_tracks_alone_joins_the_clip_list() {
    let mut s = EditorState::new();
    frame(
        &mut s,
        [Command::Open(crate::test_support::asset(
            "RobotExpressive.glb",
        ))],
    );
    let face = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/unity/Assets/Anims/Face.anim");
    frame(&mut s, [Command::AddClips(face)]);
    assert!(!s.status().is_error, "{}", s.status().text);
    assert!(
        s.status().text.contains("face track(s)"),
        "{}",
        s.status().text
    );
    assert!(s.doc().clips.iter().any(|c| c.name == "Face"));
    // Nothing of a face on the mannequin: refused, named.
    let mut m = EditorState::new();
    let face = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/unity/Assets/Anims/Face.anim");
    frame(&mut m, [Command::AddClips(face)]);
    assert!(m.status().is_error);
    assert!(m.status().text.contains("Face.anim"), "{}", m.status().text);
}

#[test]
fn unreadable_files_go_to_the_status_bar() {
    let mut s = EditorState::new();
    frame(&mut s, [Command::Open("/no/such/file.glb".into())]);
    assert!(s.status().is_error);
    assert!(s.status().text.contains("/no/such/file.glb"));
    assert!(s.session().recent.is_empty());
    assert_eq!(s.doc().name, "Mannequin (built-in)");
}

#[test]
fn stepping_and_scrubbing_pause_and_move_by_frames() {
    let mut s = EditorState::new();
    frame(&mut s, [Command::Transport(Transport::Scrub(1.0))]);
    assert!(!s.eval().clock().is_playing());
    assert_eq!(s.frame(), 30);
    frame(&mut s, [Command::Transport(Transport::StepFrames(1))]);
    assert_eq!(s.frame(), 31);
    frame(&mut s, [Command::Transport(Transport::StepFrames(-40))]);
    assert_eq!(s.frame(), 0);
}

#[test]
fn a_frame_evaluates_once_whatever_it_applies() {
    let mut s = EditorState::new();
    let before = s.eval().evaluations();
    let rate = layers(&s, |l| l.breath.effect_rate = 1.5);
    frame(
        &mut s,
        [
            move_node(1, [0.1, 1.5]),
            Command::SetBlendPoint([0.3, 2.0]),
            rate,
            Command::Transport(Transport::Scrub(0.2)),
            Command::Undo,
        ],
    );
    assert_eq!(s.eval().evaluations(), before + 1);
}

#[test]
fn picking_finds_the_head() {
    let mut s = EditorState::new();
    frame(&mut s, [Command::PlayClip(None)]);
    let size = [800.0, 600.0];
    let head = s
        .doc()
        .model
        .character
        .humanoid
        .joint(crate::core::HumanBone::Head)
        .unwrap();
    let vp = s.session().camera.view_proj(size[0] / size[1]);
    let p = vp.project_point3(s.matrices()[head].w_axis.truncate());
    let px = [(p.x * 0.5 + 0.5) * size[0], (0.5 - p.y * 0.5) * size[1]];
    let pick = Command::PickJoint {
        cursor: px,
        size,
        radius: 10.0,
    };
    frame(&mut s, [pick]);
    assert_eq!(s.session().selected, Some(head));
}

#[test]
fn a_new_viewport_shape_reframes_until_the_user_moves_the_camera() {
    use crate::app::command::CameraMove;
    use crate::render::camera::{FRAME_FILL, posed_bounds};
    let mut s = EditorState::new();
    // The viewport turns out narrow (a small window): the framing follows it.
    frame(&mut s, [Command::Camera(CameraMove::SetAspect(0.55))]);
    let (min, max) = posed_bounds(&s.doc().model.character, s.matrices());
    let vp = s.session().camera.view_proj(0.55);
    for i in 0..8 {
        let corner = glam::Vec3::new(
            if i & 1 == 0 { min.x } else { max.x },
            if i & 2 == 0 { min.y } else { max.y },
            if i & 4 == 0 { min.z } else { max.z },
        );
        let p = vp.project_point3(corner);
        assert!(
            p.x.abs() <= FRAME_FILL + 1e-3 && p.y.abs() <= FRAME_FILL + 1e-3,
            "{p}"
        );
    }
    // Once the user has zoomed, a resize keeps their camera.
    frame(&mut s, [Command::Camera(CameraMove::Zoom(0.5))]);
    let zoomed = s.session().camera;
    frame(&mut s, [Command::Camera(CameraMove::SetAspect(1.6))]);
    assert_eq!(s.session().camera, zoomed);
}

/// Clips added from the command line (`--clips`) join the list and what plays keeps playing; clips the user adds
/// play their first at once.
#[test]
fn clips_from_the_command_line_leave_what_plays_and_added_clips_play() {
    let vrma = crate::test_support::asset("three-vrm_test.vrma");
    let mut s = EditorState::new();
    frame(&mut s, [Command::PlayClip(Some(1))]);
    assert_eq!(s.clip(), Some(1));
    let before = s.doc().clips.len();
    frame(&mut s, [Command::AddClipsKeepingSource(vrma.clone())]);
    assert!(s.doc().clips.len() > before, "{}", s.status().text);
    assert_eq!(s.clip(), Some(1), "the model's own clip keeps playing");
    frame(&mut s, [Command::PlayBlend]);
    frame(&mut s, [Command::AddClipsKeepingSource(vrma.clone())]);
    assert!(s.blending(), "the blend space keeps playing");
    let first_new = s.doc().clips.len();
    frame(&mut s, [Command::AddClips(vrma)]);
    assert_eq!(s.clip(), Some(first_new), "a clip the user adds plays");
}

/// Clips made for another skeleton (most of their tracks find no joint) are added with a warning in red, not a
/// plain note.
#[test]
fn clips_for_another_skeleton_come_with_a_warning() {
    let mut s = EditorState::new();
    frame(
        &mut s,
        [Command::Open(crate::test_support::asset(
            "RobotExpressive.glb",
        ))],
    );
    frame(
        &mut s,
        [Command::AddClips(crate::test_support::quaternius())],
    );
    let status = s.status();
    assert!(status.is_error, "{}", status.text);
    assert!(
        status.text.contains("tracks found no joint"),
        "{}",
        status.text
    );
}
