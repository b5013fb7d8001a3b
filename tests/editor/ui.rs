//! The real editor panels driven through egui_kittest (clicks, drags, keys), rendered with wgpu.

use crate::common;

use animtune::app::AnimtuneApp;
use animtune::app::command::{Command, Transport};
use animtune::layers::LayerParams;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::kittest::{harness, settle_analyses};

/// Sends the current layers, edited, as a panel would.
fn edit_layers(h: &mut Harness<'static, AnimtuneApp>, edit: impl FnOnce(&mut LayerParams)) {
    let mut layers = h.state().editor().tuning().layers.clone();
    edit(&mut layers);
    h.state_mut().send(Command::SetLayers(Box::new(layers)));
}

#[test]
fn play_pause_buttons_and_space() {
    let mut h = harness();
    h.run_steps(2);
    assert!(
        h.state().editor().eval().clock().is_playing(),
        "the mannequin plays its locomotion blend at start"
    );
    h.get_by_label("Pause").click();
    h.run_steps(2);
    assert!(!h.state().editor().eval().clock().is_playing());
    h.get_by_label("Play").click();
    h.run_steps(2);
    assert!(h.state().editor().eval().clock().is_playing());
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    assert!(!h.state().editor().eval().clock().is_playing());
}

#[test]
fn arrow_keys_step_frames_and_home_end_jump() {
    let mut h = harness();
    h.run_steps(2);
    h.key_press(egui::Key::Home);
    h.run_steps(1);
    assert_eq!(h.state().editor().frame(), 0);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(1);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(1);
    assert_eq!(h.state().editor().frame(), 2);
    assert!(!h.state().editor().eval().clock().is_playing());
    h.key_press(egui::Key::End);
    h.run_steps(1);
    // The blend space loops: End lands on its last frame, not on the end that is frame 0 again.
    let e = h.state().editor();
    let rate = e.session().frame_rate;
    let last = ((e.eval().duration() * rate).ceil() - 1.0) / rate;
    assert!((e.eval().time() - last).abs() < 1e-4, "{}", e.eval().time());
}

#[test]
fn dragging_the_scrub_bar_shows_that_time() {
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::PlayClip(Some(0)));
    // The pose compared below is the bare clip: the procedural layers are switched off for this test.
    edit_layers(&mut h, |l| {
        l.breath.enabled = false;
        l.twist.enabled = false;
    });
    h.run_steps(1);
    h.get_by_label("Pause").click();
    h.run_steps(1);
    let bar = h.get_by_role_and_label(Role::Slider, "Time").rect();
    let y = bar.center().y;
    h.drag_at(egui::pos2(bar.left() + 2.0, y));
    h.run_steps(1);
    let to = egui::pos2(bar.left() + bar.width() * 0.75, y);
    h.hover_at(to);
    h.run_steps(1);
    h.drop_at(to);
    h.run_steps(2);
    let e = h.state().editor();
    let t = e.eval().time() / e.eval().duration();
    assert!((0.6..0.9).contains(&t), "scrubbed to {t} of the clip");
    // The pose shown is the clip sampled at exactly that time.
    let mut expected = animtune::core::Pose::rest(&e.doc().model.character.skeleton);
    let clip = &e.doc().clips[e.clip().unwrap()];
    clip.sample_into(
        &e.binding().unwrap().clone(),
        e.eval().time(),
        animtune::core::Wrap::Clamp,
        &mut expected,
    );
    for (a, b) in e.pose().local.iter().zip(&expected.local) {
        assert!(
            a.translation.abs_diff_eq(b.translation, 1e-5),
            "{a:?} vs {b:?}"
        );
        assert!(
            a.rotation.dot(b.rotation).abs() > 1.0 - 1e-6,
            "{a:?} vs {b:?}"
        );
    }
}

#[test]
fn opening_files_by_path_and_reporting_failures() {
    let mut h = harness();
    h.run_steps(1);
    let robot = common::asset("RobotExpressive.glb");
    h.state_mut().send(Command::Open(robot.clone()));
    h.run_steps(2);
    assert!(
        h.query_by_label("RobotExpressive.glb").is_some(),
        "scene panel shows the model"
    );
    assert!(
        h.query_by_label_contains("Wave").is_some(),
        "clip list shows its clips"
    );
    h.state_mut()
        .send(Command::Open("/no/such/model.glb".into()));
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("/no/such/model.glb: cannot read")
            .is_some(),
        "status bar names the file and the problem"
    );
    // The model that was open stays open.
    assert!(h.query_by_label("RobotExpressive.glb").is_some());
}

#[test]
fn the_viewport_shows_the_character() {
    let mut h = harness();
    h.run_steps(3);
    let image = h.render().expect("the wgpu test renderer");
    // The centre of the window is the viewport; the mannequin stands there in its skin colour.
    let (w, hgt) = image.dimensions();
    let skin = (hgt / 4..hgt * 3 / 4)
        .flat_map(|y| (w * 2 / 5..w * 3 / 5).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = image.get_pixel(x, y);
            p[0] > 150 && i32::from(p[0]) > i32::from(p[2]) + 20
        })
        .count();
    assert!(
        skin > 2000,
        "{skin} mannequin-coloured pixels in the viewport"
    );
}

fn canvas_point(h: &Harness<'static, AnimtuneApp>, p: [f64; 2]) -> egui::Pos2 {
    let rect = h
        .get_by_label(animtune::app::panels::inspector::blend::CANVAS_LABEL)
        .rect();
    animtune::app::panels::inspector::blend::space_to_screen(
        &h.state().editor().tuning().blend,
        animtune::app::panels::inspector::blend::space_rect(rect),
        p,
    )
}

/// One turn of the mouse wheel by `dy` points (positive: up, away from the user) wherever the pointer is.
pub(crate) fn wheel(h: &mut Harness<'static, AnimtuneApp>, dy: f32) {
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, dy),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
    });
}

/// A drag from `from` to `to` through their midpoint, a frame at each.
pub(crate) fn drag(h: &mut Harness<'static, AnimtuneApp>, from: egui::Pos2, to: egui::Pos2) {
    h.drag_at(from);
    h.run_steps(1);
    h.hover_at(from.lerp(to, 0.5));
    h.run_steps(1);
    h.hover_at(to);
    h.run_steps(1);
    h.drop_at(to);
    h.run_steps(2);
}

#[test]
fn dragging_the_sample_point_and_a_node_changes_weights_and_heatmap() {
    let mut h = harness();
    h.run_steps(3);
    assert!(h.state().editor().blending());
    let walk = h
        .state()
        .editor()
        .tuning()
        .blend
        .nodes
        .iter()
        .position(|n| n.clip == "WalkForward")
        .unwrap();
    let before = h.state().editor().blend_weights().to_vec();
    let map_before = h.state().blend_panel().heatmap_pixels().to_vec();
    assert!(
        !map_before.is_empty(),
        "the influence map is drawn at start"
    );

    // Drag the sample point from its place to the run node's position: the run takes the weight.
    let point = h.state().editor().tuning().blend.point;
    let from = canvas_point(&h, point);
    let to = canvas_point(&h, [0.0, 3.5]);
    drag(&mut h, from, to);
    let e = h.state().editor();
    let run = e
        .tuning()
        .blend
        .nodes
        .iter()
        .position(|n| n.clip == "RunForward")
        .unwrap();
    assert!(
        (e.tuning().blend.point[1] - 3.5).abs() < 0.05,
        "point {:?}",
        e.tuning().blend.point
    );
    assert!(e.blend_weights()[run] > 0.9, "{:?}", e.blend_weights());
    assert_ne!(e.blend_weights(), before);

    // Drag the walk node sideways with the point between walk and run: its position, the weights and the
    // influence map all change.
    h.state_mut().send(Command::SetBlendPoint([0.2, 1.8]));
    h.run_steps(1);
    let from = canvas_point(&h, h.state().editor().tuning().blend.nodes[walk].position);
    let to = from + egui::vec2(40.0, 0.0);
    let weights_before = h.state().editor().blend_weights().to_vec();
    drag(&mut h, from, to);
    let e = h.state().editor();
    assert!(
        e.tuning().blend.nodes[walk].position[0] > 0.2,
        "{:?}",
        e.tuning().blend.nodes[walk]
    );
    assert_ne!(e.blend_weights(), weights_before);
    assert_ne!(h.state().blend_panel().heatmap_pixels(), &map_before[..]);
    assert!(h.state().editor().can_undo());

    // One undo step puts the node back where it was.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(
        h.state().editor().tuning().blend.nodes[walk].position,
        [0.0, 1.4]
    );
}

#[test]
fn arrow_keys_move_the_sample_point_when_the_canvas_has_focus() {
    let mut h = harness();
    h.run_steps(2);
    // Click an empty spot of the canvas: the point jumps there and the canvas takes the keyboard.
    let at = canvas_point(&h, [1.5, -1.5]);
    h.drag_at(at);
    h.run_steps(1);
    h.drop_at(at);
    h.run_steps(2);
    let p = h.state().editor().tuning().blend.point;
    assert!(
        (p[0] - 1.5).abs() < 0.05 && (p[1] + 1.5).abs() < 0.05,
        "{p:?}"
    );
    let frame = h.state().editor().frame();
    h.key_press(egui::Key::ArrowLeft);
    h.run_steps(1);
    let q = h.state().editor().tuning().blend.point;
    assert!((q[0] - (p[0] - 0.04)).abs() < 1e-6, "{p:?} -> {q:?}");
    assert_eq!(q[1], p[1]);
    assert!(h.state().editor().frame() >= frame || h.state().editor().eval().clock().is_playing());
}

#[test]
fn moving_a_layer_slider_changes_the_pose() {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("Pause").click();
    h.run_steps(1);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    // Breathing at a time in the inhale, where the angle is not zero.
    h.state_mut()
        .send(Command::Transport(Transport::Scrub(0.9)));
    h.run_steps(1);
    let before = h.state().editor().pose().clone();
    let slider = h.get_by_role_and_label(Role::Slider, "effect rate").rect();
    let y = slider.center().y;
    h.drag_at(egui::pos2(slider.left() + slider.width() * 0.2, y));
    h.run_steps(1);
    let to = egui::pos2(slider.left() + slider.width() * 0.9, y);
    h.hover_at(to);
    h.run_steps(1);
    h.drop_at(to);
    h.run_steps(2);
    let e = h.state().editor();
    assert!(
        e.tuning().layers.breath.effect_rate > 2.0,
        "{}",
        e.tuning().layers.breath.effect_rate
    );
    assert_ne!(*e.pose(), before, "the breathing bones moved");
    // One drag, one undo step.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().editor().tuning().layers.breath.effect_rate, 1.0);
    assert_eq!(*h.state().editor().pose(), before);
}

#[test]
fn export_window_writes_a_file_and_asks_before_replacing_it() {
    let dir = common::temp_dir("ui-export");
    let path = dir.join("walk.glb");
    let mut h = harness();
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    h.run_steps(2);
    assert!(h.state_mut().export_dialog().open);
    h.state_mut().export_dialog().path = path.display().to_string();
    h.state_mut().export_dialog().duration = 0.5;
    h.run_steps(1);
    h.get_by_role_and_label(Role::Button, "Export").click();
    for _ in 0..200 {
        h.run_steps(1);
        if !h.state_mut().export_dialog().is_running()
            && h.state().editor().status().text.starts_with("Exported")
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = h.state().editor().status();
    assert!(
        !status.is_error && status.text.contains("walk.glb"),
        "{}",
        status.text
    );
    let written = std::fs::read(&path).unwrap();
    assert_eq!(&written[..4], b"glTF");
    // Exporting again asks first; keeping the file changes nothing.
    h.get_by_role_and_label(Role::Button, "Export").click();
    h.run_steps(2);
    assert!(h.query_by_label_contains("exists. Replace it?").is_some());
    h.get_by_label("Keep it").click();
    h.run_steps(2);
    assert_eq!(std::fs::read(&path).unwrap(), written);
}

/// Runs frames until the export window's export has ended (at most about 40 s).
fn until_the_export_ends(h: &mut Harness<'static, AnimtuneApp>) {
    for _ in 0..2000 {
        h.run_steps(1);
        if !h.state_mut().export_dialog().is_running() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
}

/// The names in `dir`, sorted (none when it does not exist).
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The export window set to one clip per blend node into `folder`.
fn per_node_export_into(h: &mut Harness<'static, AnimtuneApp>, folder: &std::path::Path) {
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    h.run_steps(2);
    h.get_by_label("Blend space: one clip per node + preset")
        .click();
    h.run_steps(2);
    h.state_mut().export_dialog().path = folder.display().to_string();
    h.run_steps(1);
}

/// A per-node export writes all of its files or none: one node's clip already in the folder (and no preset) is
/// asked about before anything is baked, and keeping it leaves the folder as it was.
#[test]
fn a_per_node_export_asks_about_any_file_it_would_replace_and_writes_all_or_nothing() {
    let dir = common::temp_dir("ui-export-nodes");
    let folder = dir.join("nodes");
    std::fs::create_dir(&folder).unwrap();
    let mut h = harness();
    h.run_steps(2);
    let clips: Vec<String> = h
        .state()
        .editor()
        .tuning()
        .blend
        .nodes
        .iter()
        .map(|n| n.clip.clone())
        .collect();
    assert!(clips.len() > 2, "{clips:?}");
    // The last node's clip is there already: the nodes before it would be written first.
    let last = format!("{}.glb", clips.last().unwrap());
    std::fs::write(folder.join(&last), b"mine").unwrap();
    per_node_export_into(&mut h, &folder);
    h.get_by_role_and_label(Role::Button, "Export").click();
    h.run_steps(2);
    until_the_export_ends(&mut h);
    assert_eq!(
        names_in(&folder),
        [last.as_str()],
        "{}",
        h.state().editor().status().text
    );
    assert!(
        h.query_by_label_contains(&format!("{last} exists. Replace it?"))
            .is_some(),
        "no question about {last}"
    );
    h.get_by_label("Keep it").click();
    h.run_steps(2);
    assert_eq!(names_in(&folder), [last.as_str()]);
    assert_eq!(std::fs::read(folder.join(&last)).unwrap(), b"mine");
    // Replacing writes every node's clip and the preset, and the status line names them.
    h.get_by_role_and_label(Role::Button, "Export").click();
    h.run_steps(2);
    h.get_by_label("Replace").click();
    h.run_steps(2);
    until_the_export_ends(&mut h);
    let status = h.state().editor().status().text.clone();
    let mut expected: Vec<String> = clips.iter().map(|c| format!("{c}.glb")).collect();
    expected.push("preset.json".into());
    for name in &expected {
        assert!(status.contains(name.as_str()), "{name} not in: {status}");
    }
    expected.sort();
    assert_eq!(names_in(&folder), expected, "{status}");
    assert_ne!(std::fs::read(folder.join(&last)).unwrap(), b"mine");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Cancel while a per-node export bakes its nodes: nothing is written, not even the folder, and the status
/// line says so.
#[test]
fn cancelling_a_per_node_export_part_way_writes_nothing() {
    let dir = common::temp_dir("ui-export-cancel");
    let folder = dir.join("nodes");
    let mut h = harness();
    h.run_steps(2);
    let nodes = h.state().editor().tuning().blend.nodes.len();
    per_node_export_into(&mut h, &folder);
    // A finer grid makes each node's bake long enough to cancel between two of them.
    h.state_mut().export_dialog().fps = 240.0;
    h.run_steps(1);
    h.get_by_role_and_label(Role::Button, "Export").click();
    // Past the first node's share of the progress bar, that node is baked.
    let first_share = 100.0 / nodes as f64;
    loop {
        h.run_steps(1);
        assert!(
            h.state_mut().export_dialog().is_running(),
            "the export ended before it could be cancelled: {}",
            h.state().editor().status().text
        );
        let done = h
            .query_by_role(Role::ProgressIndicator)
            .and_then(|p| p.accesskit_node().numeric_value())
            .unwrap_or(0.0);
        if done > first_share + 1.0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    h.get_by_role_and_label(Role::Button, "Cancel").click();
    until_the_export_ends(&mut h);
    let status = h.state().editor().status();
    assert_eq!(status.text, "Export cancelled; nothing was written");
    assert!(
        !folder.exists(),
        "the cancelled export left {:?}",
        names_in(&folder)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file dropped on the window, as the platform layer reports it.
#[derive(Debug)]
struct Dropped(std::path::PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

fn drop_file(h: &mut Harness<'static, AnimtuneApp>, path: &std::path::Path) {
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(path.to_path_buf())));
}

#[test]
fn dropping_files_opens_them() {
    let dir = common::temp_dir("ui-drop");
    let preset = dir.join("mine.json");
    let out = common::animtune(&["preset", "default"]);
    std::fs::write(&preset, &out.stdout).unwrap();
    let mut h = harness();
    h.run_steps(2);
    let robot = common::asset("RobotExpressive.glb");
    drop_file(&mut h, &robot);
    h.run_steps(2);
    assert_eq!(h.state().editor().doc().name, "RobotExpressive.glb");
    assert_eq!(h.state().editor().session().recent.first(), Some(&robot));
    // A preset dropped next: its blend space clips are not in the robot, which the status bar says.
    drop_file(&mut h, &preset);
    h.run_steps(2);
    let status = h.state().editor().status();
    assert!(
        status.is_error && status.text.contains("mine.json") && status.text.contains("WalkForward"),
        "{}",
        status.text
    );
}

#[test]
fn the_stop_button_restarts_the_breath_clock_and_the_look_at_smoothing() {
    use animtune::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
    use animtune::offline::max_vertex_error;
    let mut h = harness();
    edit_layers(&mut h, |l| {
        l.breath.enabled = true;
        l.look_at.enabled = true;
        l.look_at.follow_camera = false;
        l.look_at.speed_deg_per_s = 30.0;
        l.look_at.target = [0.8, 1.6, 1.0];
    });
    h.run_steps(20);
    // The target jumps to the other side: at 30°/s the head lags behind it.
    edit_layers(&mut h, |l| {
        l.look_at.target = [-0.9, 1.4, 0.6];
    });
    h.run_steps(3);
    assert!(
        h.state().editor().layer_time() > 0.0,
        "the breath clock ran"
    );
    h.get_by_label("Stop").click();
    h.run_steps(2);
    let e = h.state().editor();
    assert!(!e.eval().clock().is_playing());
    assert_eq!(e.eval().time(), 0.0);
    assert_eq!(e.layer_time(), 0.0, "Stop restarts the breath clock");
    // After Stop the pose is a fresh start's: the look-at filter snapped to the target instead of lagging.
    let mut fresh = Evaluator::new(
        &e.doc().model.character,
        &e.doc().clips,
        SourceSpec::Blend(e.tuning().blend.clone()),
        e.tuning().layers.clone(),
    );
    let expected = fresh
        .evaluate(&EvalInput {
            clock: ClockStep::Seek(0.0),
            blend_point: None,
            look_target: Some(e.look_target()),
            ..Default::default()
        })
        .model
        .clone();
    let error = max_vertex_error(&expected, e.matrices());
    assert!(
        error < 1e-5,
        "the pose after Stop is {error} m from a fresh start"
    );
}

#[test]
fn an_edit_evaluates_the_pose_once_per_frame() {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    // (evaluations, frames): a kittest step runs one frame per queued input event, and a frame may lay out
    // in more than one pass.
    let counts = |h: &Harness<'static, AnimtuneApp>| {
        (
            h.state().editor().eval().evaluations(),
            h.ctx.cumulative_frame_nr(),
        )
    };
    // Drag the effect rate slider over several frames, then undo: every frame evaluates exactly once.
    let slider = h.get_by_role_and_label(Role::Slider, "effect rate").rect();
    let y = slider.center().y;
    let rate_before = h.state().editor().tuning().layers.breath.effect_rate;
    let mut frames = 0;
    let mut step = |h: &mut Harness<'static, AnimtuneApp>| {
        let before = counts(h);
        h.step();
        let after = counts(h);
        frames += after.1 - before.1;
        assert!(after.1 > before.1, "a step runs a frame");
        assert_eq!(after.0 - before.0, after.1 - before.1, "by frame {frames}");
    };
    h.drag_at(egui::pos2(slider.left() + slider.width() * 0.2, y));
    step(&mut h);
    for k in 3..=9 {
        h.hover_at(egui::pos2(
            slider.left() + slider.width() * k as f32 / 10.0,
            y,
        ));
        step(&mut h);
        step(&mut h);
    }
    h.drop_at(egui::pos2(slider.left() + slider.width() * 0.9, y));
    step(&mut h);
    step(&mut h);
    let rate = h.state().editor().tuning().layers.breath.effect_rate;
    assert!(
        rate > rate_before + 1.0,
        "the drag changed the rate: {rate}"
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    step(&mut h);
    step(&mut h);
    assert_eq!(
        h.state().editor().tuning().layers.breath.effect_rate,
        rate_before,
        "the whole drag is one undo step"
    );
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn a_character_takes_the_clips_of_another_file_into_its_clip_list() {
    let mut h = harness();
    h.run_steps(2);
    h.state_mut()
        .send(Command::Open(common::extra_asset("mixamo/Xbot.glb")));
    h.run_steps(2);
    let own = h.state().editor().doc().clips.len();
    h.state_mut()
        .send(Command::AddClips(common::extra_asset("mixamo/Soldier.glb")));
    h.run_steps(2);
    let doc = h.state().editor().doc();
    assert_eq!(
        doc.clips.len(),
        own + 4,
        "{}",
        h.state().editor().status().text
    );
    let source = &doc.clip_sources[0];
    assert_eq!(source.clips, ["Idle", "Run", "TPose", "Walk"]);
    assert!(source.by_name > 0 && source.unbound == 0, "{source:?}");
    // The file's report and its clips are in the clip list; clicking Soldier's Run plays it.
    h.get_by_label_contains("from Soldier.glb: 4 clip(s)");
    let run = doc.clips.iter().position(|c| c.name == "Run").unwrap();
    let label = format!("Run  ({:.2} s)", doc.clips[run].duration);
    h.get_by_label(&label).click();
    h.run_steps(3);
    let e = h.state().editor();
    assert_eq!(e.clip(), Some(run));
    assert!(e.eval().clock().is_playing());
    let t0 = e.eval().time();
    h.run_steps(3);
    assert!(
        h.state().editor().eval().time() != t0,
        "the added clip plays"
    );
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn a_preset_remembers_the_files_its_clips_came_from() {
    let dir = common::temp_dir("preset-clips");
    let preset = dir.join("xbot_with_soldier.json");
    let mut h = harness();
    h.run_steps(2);
    h.state_mut()
        .send(Command::Open(common::extra_asset("mixamo/Xbot.glb")));
    h.state_mut()
        .send(Command::AddClips(common::extra_asset("mixamo/Soldier.glb")));
    h.state_mut().send(Command::SavePreset {
        path: preset.clone(),
        overwrite: true,
    });
    h.run_steps(2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&preset).unwrap()).unwrap();
    let stored = json["clip_files"][0].as_str().unwrap();
    assert!(
        !std::path::Path::new(stored).is_absolute() && stored.ends_with("mixamo/Soldier.glb"),
        "{stored}"
    );
    // A fresh Xbot has only its own clips; opening the preset adds Soldier's again.
    h.state_mut()
        .send(Command::Open(common::extra_asset("mixamo/Xbot.glb")));
    h.run_steps(2);
    assert!(h.state().editor().doc().clip_sources.is_empty());
    h.state_mut().send(Command::Open(preset));
    h.run_steps(2);
    let doc = h.state().editor().doc();
    assert_eq!(
        doc.clip_sources.len(),
        1,
        "{}",
        h.state().editor().status().text
    );
    assert!(doc.clips.iter().any(|c| c.name == "Run"));
}

/// Index of the clip called `name` in the open document's clip list.
/// Saves the preset to `path`, then undoes the last step, which must take clip `name` away.
pub fn save_then_undo_removes(
    h: &mut Harness<'static, AnimtuneApp>,
    path: &std::path::Path,
    name: &str,
) {
    h.state_mut().send(Command::SavePreset {
        path: path.to_path_buf(),
        overwrite: true,
    });
    h.run_steps(2);
    undo_removes(h, name);
}

/// Undoes the last step, which must take clip `name` away.
pub fn undo_removes(h: &mut Harness<'static, AnimtuneApp>, name: &str) {
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert!(
        !h.state()
            .editor()
            .doc()
            .clips
            .iter()
            .any(|c| c.name == name),
        "undo removes clip {name}"
    );
}

/// Plays the clip named `name` and opens the Clip tab on it.
pub fn play_in_clip_tab(h: &mut Harness<'static, AnimtuneApp>, name: &str) {
    let index = clip_index(h, name);
    h.state_mut().send(Command::PlayClip(Some(index)));
    h.run_steps(2);
    h.get_by_label("Clip").click();
    h.run_steps(2);
}

pub fn clip_index(h: &Harness<'static, AnimtuneApp>, name: &str) -> usize {
    h.state()
        .editor()
        .doc()
        .clips
        .iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("no clip {name}"))
}

/// The viewport's rectangle (points).
fn viewport_rect(h: &Harness<'static, AnimtuneApp>) -> egui::Rect {
    h.get_by_label(animtune::app::panels::viewport::VIEWPORT_LABEL)
        .rect()
}

/// True for a pixel that is not the viewport's background (sRGB 56, 58, 64).
fn not_background(p: &image::Rgba<u8>) -> bool {
    let bg = [56i32, 58, 64];
    (0..3).map(|i| (i32::from(p[i]) - bg[i]).abs()).sum::<i32>() > 30
}

/// Is a viewport point under the corner HUD plate or the orientation gizmo (drawn over the 3D view)?
fn under_overlays(rect: egui::Rect, x: f32, y: f32) -> bool {
    (x < rect.left() + 320.0 && y < rect.top() + 60.0)
        || (x > rect.right() - 100.0 && y < rect.top() + 100.0)
}

/// Bounding box (points) of what is drawn in the viewport besides the background and the corner overlays.
fn silhouette(h: &mut Harness<'static, AnimtuneApp>) -> Option<egui::Rect> {
    let image = h.render().expect("the wgpu test renderer");
    let rect = viewport_rect(h);
    let scale = image.width() as f32 / 1280.0;
    let mut bounds: Option<egui::Rect> = None;
    for y in rect.top() as u32 + 1..rect.bottom() as u32 - 1 {
        for x in rect.left() as u32 + 1..rect.right() as u32 - 1 {
            let (px, py) = ((x as f32 * scale) as u32, (y as f32 * scale) as u32);
            if under_overlays(rect, x as f32, y as f32) || !not_background(image.get_pixel(px, py))
            {
                continue;
            }
            let p = egui::pos2(x as f32, y as f32);
            bounds = Some(bounds.map_or(egui::Rect::from_min_max(p, p), |b| {
                b.union(egui::Rect::from_min_max(p, p))
            }));
        }
    }
    bounds
}

/// Asserts that `shape` lies inside the viewport with a margin of `margin` points on every side.
fn assert_in_frame(h: &Harness<'static, AnimtuneApp>, shape: egui::Rect, margin: f32, what: &str) {
    let rect = viewport_rect(h);
    assert!(
        shape.left() >= rect.left() + margin
            && shape.right() <= rect.right() - margin
            && shape.top() >= rect.top() + margin
            && shape.bottom() <= rect.bottom() - margin,
        "{what}: silhouette {shape:?} not inside the viewport {rect:?} with a {margin}-point margin"
    );
}

#[test]
fn models_open_whole_in_the_front_view_and_f_frames_a_t_pose() {
    use animtune::app::command::CameraMove;
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::ShowGrid(false));
    for file in [
        "Fox.glb",
        "CesiumMan.glb",
        "quaternius_ual/AnimationLibrary_Godot_Standard.gltf",
    ] {
        // An orbit on the previous model must not carry over.
        h.state_mut()
            .send(Command::Camera(CameraMove::Orbit(1.2, 0.4)));
        h.run_steps(1);
        h.state_mut().send(Command::Open(common::asset(file)));
        h.run_steps(3);
        let camera = h.state().editor().session().camera;
        let front = animtune::render::OrbitCamera::default();
        assert!(
            camera.yaw == front.yaw && camera.pitch == front.pitch,
            "{file}: opened at yaw {} pitch {}",
            camera.yaw,
            camera.pitch
        );
        // The pose it was framed on (time 0), held still.
        h.state_mut()
            .send(Command::Transport(Transport::Scrub(0.0)));
        h.run_steps(2);
        let shape = silhouette(&mut h).unwrap_or_else(|| panic!("{file}: nothing drawn"));
        assert_in_frame(&h, shape, 4.0, file);
        let rect = viewport_rect(&h);
        assert!(
            shape.height() > 0.5 * rect.height() || shape.width() > 0.5 * rect.width(),
            "{file}: framed too loosely: {shape:?} in {rect:?}"
        );
    }
    // The T-pose (rest) of the last one, framed with F: arms and all.
    h.state_mut().send(Command::PlayClip(None));
    h.run_steps(1);
    h.key_press(egui::Key::F);
    h.run_steps(2);
    let shape = silhouette(&mut h).expect("the T-pose is drawn");
    assert_in_frame(&h, shape, 4.0, "T-pose");
    assert!(shape.width() > shape.height() * 0.8, "arms out: {shape:?}");
}

#[test]
fn a_run_with_root_motion_kept_stays_in_frame_as_the_camera_follows() {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_step_dt(1.0 / 15.0)
        .wgpu()
        .build_eframe(|cc| AnimtuneApp::new(cc, None, None));
    h.run_steps(2);
    let run = clip_index(&h, "RunForward");
    h.state_mut().send(Command::ShowGrid(false));
    h.state_mut().send(Command::PlayClip(Some(run)));
    h.run_steps(2);
    let start = h.state().editor().session().camera.target;
    let duration = h.state().editor().eval().duration();
    // Three loops, looked at every half loop.
    let steps = (duration * 15.0 * 0.5).ceil() as usize;
    for check in 0..6 {
        h.run_steps(steps);
        let shape =
            silhouette(&mut h).unwrap_or_else(|| panic!("check {check}: the runner left the view"));
        assert_in_frame(&h, shape, 2.0, &format!("check {check}"));
    }
    let e = h.state().editor();
    let travelled = e.session().camera.target.z - start.z;
    assert!(travelled > 5.0, "the camera followed {travelled} m");
    assert!(e.session().root_trail.len() > 20, "a trail is drawn");
}

#[test]
fn a_click_on_the_forehead_selects_the_head() {
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::PlayClip(None));
    h.run_steps(3);
    let rect = viewport_rect(&h);
    let e = h.state().editor();
    let vp = e.session().camera.view_proj(rect.width() / rect.height());
    let p = vp.project_point3(glam::Vec3::new(0.0, 1.73, 0.09));
    let at = egui::pos2(
        rect.left() + (p.x * 0.5 + 0.5) * rect.width(),
        rect.top() + (0.5 - p.y * 0.5) * rect.height(),
    );
    h.hover_at(at);
    h.run_steps(1);
    h.drag_at(at);
    h.run_steps(1);
    h.drop_at(at);
    h.run_steps(2);
    let e = h.state().editor();
    let selected = e.session().selected.expect("a joint is selected");
    assert_eq!(e.doc().model.character.skeleton.name(selected), "Head");
}

#[test]
fn the_ruler_shows_second_ticks_key_markers_and_the_in_out_range() {
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::PlayClip(Some(0)));
    h.run_steps(1);
    h.state_mut()
        .send(Command::Transport(Transport::Scrub(0.0)));
    h.state_mut().send(Command::SelectJoint(Some(1)));
    h.run_steps(2);
    let image = h.render().unwrap();
    let ruler = h.get_by_role_and_label(Role::Slider, "Time").rect();
    let scale = image.width() as f32 / 1280.0;
    let columns = |pred: &dyn Fn(&image::Rgba<u8>) -> bool, y0: f32, y1: f32| -> usize {
        (ruler.left() as u32..ruler.right() as u32)
            .filter(|&x| {
                (y0 as u32..y1 as u32).any(|y| {
                    pred(image.get_pixel((x as f32 * scale) as u32, (y as f32 * scale) as u32))
                })
            })
            .count()
    };
    // Grey second ticks along the top, yellow key diamonds of the selected joint along the bottom.
    let ticks = columns(
        &|p| p[0] > 120 && p[0].abs_diff(p[2]) < 20,
        ruler.top(),
        ruler.top() + 10.0,
    );
    assert!(ticks >= 2, "{ticks} tick columns");
    let keys = columns(
        &|p| p[0] > 200 && p[1] > 160 && p[2] < 120,
        ruler.bottom() - 14.0,
        ruler.bottom() - 3.0,
    );
    assert!(keys >= 4, "{keys} key-marker columns");
    // I and O set the in/out range at the playhead; playback then loops inside it.
    let d = h.state().editor().eval().duration();
    h.state_mut()
        .send(Command::Transport(Transport::Scrub(0.25 * d)));
    h.run_steps(1);
    h.key_press(egui::Key::I);
    h.run_steps(1);
    h.state_mut()
        .send(Command::Transport(Transport::Scrub(0.5 * d)));
    h.run_steps(1);
    h.key_press(egui::Key::O);
    h.run_steps(1);
    let range = h
        .state()
        .editor()
        .eval()
        .play_range()
        .expect("a range is set");
    assert!(
        (range[0] - 0.25 * d).abs() < 1e-4 && (range[1] - 0.5 * d).abs() < 1e-4,
        "{range:?}"
    );
    h.state_mut().send(Command::Transport(Transport::Play));
    for _ in 0..12 {
        h.run_steps(1);
        let t = h.state().editor().eval().time();
        assert!(
            t >= range[0] - 1e-4 && t <= range[1] + 1e-4,
            "{t} outside {range:?}"
        );
    }
}

#[test]
fn onion_skin_draws_ghosts_before_and_after() {
    use animtune::app::command::{CameraMove, OnionSkin};
    use animtune::render::camera::ViewPreset;
    let mut h = harness();
    h.run_steps(2);
    let run = clip_index(&h, "RunForward");
    h.state_mut().send(Command::ShowGrid(false));
    h.state_mut().send(Command::PlayClip(Some(run)));
    h.run_steps(1);
    h.state_mut()
        .send(Command::Transport(Transport::Scrub(0.35)));
    h.state_mut()
        .send(Command::Camera(CameraMove::View(ViewPreset::Right)));
    h.run_steps(1);
    h.state_mut().send(Command::Camera(CameraMove::Zoom(2.5)));
    h.run_steps(2);
    // Separate shapes across the chest-height band of the side view.
    let count = |h: &mut Harness<'static, AnimtuneApp>| {
        let image = h.render().unwrap();
        let rect = viewport_rect(h);
        let e = h.state().editor();
        let vp = e.session().camera.view_proj(rect.width() / rect.height());
        let row = |y: f32| {
            rect.top()
                + (0.5 - vp.project_point3(glam::Vec3::new(0.0, y, 0.0)).y * 0.5) * rect.height()
        };
        let (y0, y1) = (row(1.35), row(1.05));
        let scale = image.width() as f32 / 1280.0;
        let mut runs = 0;
        let mut inside = false;
        for x in rect.left() as u32 + 1..rect.right() as u32 - 1 {
            let hit = (y0 as u32..y1 as u32).any(|y| {
                not_background(
                    image.get_pixel((x as f32 * scale) as u32, (y as f32 * scale) as u32),
                )
            });
            if hit && !inside {
                runs += 1;
            }
            inside = hit;
        }
        runs
    };
    assert_eq!(count(&mut h), 1, "one character without onion skin");
    h.state_mut().send(Command::SetOnionSkin(OnionSkin {
        enabled: true,
        before: 1,
        after: 1,
        step_frames: 8,
    }));
    h.run_steps(2);
    assert_eq!(h.state().editor().ghosts().len(), 2);
    assert_eq!(count(&mut h), 3, "the character and two ghosts");
}

#[test]
fn dragging_the_look_target_to_the_edge_turns_the_head_45_degrees() {
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::PlayClip(None));
    edit_layers(&mut h, |l| {
        l.breath.enabled = false;
        l.look_at.enabled = true;
        l.look_at.follow_camera = false;
    });
    h.run_steps(3);
    let rect = viewport_rect(&h);
    let e = h.state().editor();
    let vp = e.session().camera.view_proj(rect.width() / rect.height());
    let t = vp.project_point3(e.look_target());
    let from = egui::pos2(
        rect.left() + (t.x * 0.5 + 0.5) * rect.width(),
        rect.top() + (0.5 - t.y * 0.5) * rect.height(),
    );
    let to = egui::pos2(rect.right() - 30.0, from.y);
    drag(&mut h, from, to);
    h.run_steps(10);
    let e = h.state().editor();
    let c = &e.doc().model.character;
    let head = c.humanoid.joint(animtune::core::HumanBone::Head).unwrap();
    let forward = e.matrices()[head].transform_vector3(glam::Vec3::Z);
    let yaw = forward.x.atan2(forward.z).to_degrees().abs();
    assert!(
        yaw >= 45.0,
        "head yaw {yaw}° after dragging the target to the edge"
    );
}

#[test]
fn numpad_views_and_the_gizmo_turn_the_camera() {
    use animtune::render::camera::ViewPreset;
    let mut h = harness();
    h.run_steps(2);
    for (key, ctrl, view) in [
        (egui::Key::Num3, false, ViewPreset::Right),
        (egui::Key::Num1, true, ViewPreset::Back),
        (egui::Key::Num7, false, ViewPreset::Top),
        (egui::Key::Num1, false, ViewPreset::Front),
    ] {
        if ctrl {
            h.key_press_modifiers(egui::Modifiers::COMMAND, key);
        } else {
            h.key_press(key);
        }
        h.run_steps(2);
        let c = h.state().editor().session().camera;
        let (yaw, pitch) = view.angles();
        assert!(
            (c.yaw - yaw).abs() < 1e-5 && (c.pitch - pitch).abs() < 1e-5,
            "{view:?}: yaw {} pitch {}",
            c.yaw,
            c.pitch
        );
    }
    // The gizmo's X end (on the right of the front view's gizmo) turns to the right view.
    let rect = viewport_rect(&h);
    let x_end = egui::pos2(rect.right() - 46.0 + 34.0, rect.top() + 46.0);
    h.hover_at(x_end);
    h.run_steps(1);
    h.drag_at(x_end);
    h.run_steps(1);
    h.drop_at(x_end);
    h.run_steps(2);
    let (yaw, _) = ViewPreset::Right.angles();
    assert!((h.state().editor().session().camera.yaw - yaw).abs() < 1e-5);
}

#[test]
fn a_model_without_clips_is_not_playing() {
    let mut h = harness();
    h.run_steps(2);
    h.state_mut()
        .send(Command::Open(common::asset("Godette_vrm_v4.vrm")));
    h.run_steps(3);
    let e = h.state().editor();
    assert!(e.doc().clips.is_empty());
    assert!(
        !e.eval().clock().is_playing(),
        "nothing to play, so not playing"
    );
    assert!(
        h.query_by_label("Pause").is_none(),
        "the button offers Play"
    );
}

#[test]
fn geometry_over_the_device_limits_is_a_status_bar_error_not_a_crash() {
    let dir = common::temp_dir("ui-gpu-limits");
    let big = dir.join("big_mesh.gltf");
    std::fs::write(&big, common::sparse_mesh_gltf(5_000_000)).unwrap();
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::Open(big));
    h.run_steps(3);
    let status = h.state().editor().status().clone();
    assert!(
        status.is_error
            && status.text.contains("big_mesh.gltf")
            && status.text.contains("buffer limit"),
        "{status:?}"
    );
    // The editor goes on: the mannequin opens and draws again.
    h.state_mut().send(Command::LoadMannequin);
    h.run_steps(3);
    assert!(!h.state().editor().status().is_error);
}

/// A key press carrying its own modifiers, with no modifier held when the frame is drawn (no `ModifiersChanged`
/// event leaves them set): a quick chord on a slow frame, where Ctrl is already up by the frame's end.
fn quick_chord(h: &mut Harness<'static, AnimtuneApp>, modifiers: egui::Modifiers, key: egui::Key) {
    h.input_mut().events.push(egui::Event::Key {
        key,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers,
    });
    h.run_steps(1);
}

#[test]
fn a_quick_ctrl_chord_takes_its_modifiers_from_the_key_event() {
    use animtune::render::camera::ViewPreset;
    let mut h = crate::ui_panels::built_in_browser_harness();
    // Ctrl+1 is the back view, not the front one.
    quick_chord(&mut h, egui::Modifiers::COMMAND, egui::Key::Num1);
    h.run_steps(1);
    let (yaw, _) = ViewPreset::Back.angles();
    assert!((h.state().editor().session().camera.yaw - yaw).abs() < 1e-5);
    // Ctrl+O opens a model (here in the built-in browser) and leaves the play range alone.
    quick_chord(&mut h, egui::Modifiers::COMMAND, egui::Key::O);
    h.run_steps(2);
    assert!(h.state().file_dialog_open(), "Ctrl+O opened no file dialog");
    assert_eq!(
        h.state().editor().eval().play_range(),
        None,
        "O set the out point"
    );
}

#[test]
fn playback_keeps_real_time_when_frames_take_half_a_second() {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_step_dt(0.5)
        .wgpu()
        .build_eframe(|cc| AnimtuneApp::new(cc, None, None));
    h.run_steps(3);
    assert!(h.state().editor().eval().clock().is_playing());
    let start = h.state().editor().eval().clock().layer_time();
    h.run_steps(8);
    let advanced = h.state().editor().eval().clock().layer_time() - start;
    assert!(
        (advanced - 4.0).abs() <= 0.05 * 4.0,
        "8 frames of 0.5 s advanced {advanced} s of animation"
    );
}

#[test]
fn the_export_window_keeps_its_buttons_in_place_across_formats_and_stays_below_the_menu_bar() {
    // B16: a click aimed at Export hit Close after the format changed, and the window covered the menu bar.
    let mut h = harness();
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    h.run_steps(3);
    let rect = |h: &Harness<'static, AnimtuneApp>, label: &str| {
        h.get_by_role_and_label(Role::Button, label).rect()
    };
    let (export, close) = (rect(&h, "Export"), rect(&h, "Close"));
    let menu_bottom = rect(&h, "File").bottom();
    for format in ["gltf", "unity", "native"] {
        h.get_by_label(format).click();
        h.run_steps(2);
        assert_eq!(h.state_mut().export_dialog().format.name(), format);
        assert_eq!(rect(&h, "Export"), export, "{format}");
        assert_eq!(rect(&h, "Close"), close, "{format}");
    }
    // The window's title and its Export button are both labelled Export: the highest is the title.
    let window_top = h
        .query_all_by_label("Export")
        .map(|n| n.rect().top())
        .fold(f32::MAX, f32::min);
    assert!(
        window_top > menu_bottom,
        "the window's title {window_top} over the menu bar {menu_bottom}"
    );
}

#[test]
fn dragging_the_sample_point_where_it_covers_a_node_moves_the_point() {
    // B8: a new space starts with the point on a node, and the first drag moved the node.
    let mut h = harness();
    h.run_steps(3);
    let nodes = h.state().editor().tuning().blend.nodes.clone();
    let walk = nodes.iter().position(|n| n.clip == "WalkForward").unwrap();
    h.state_mut()
        .send(Command::SetBlendPoint(nodes[walk].position));
    h.run_steps(2);
    let from = canvas_point(&h, nodes[walk].position);
    drag(&mut h, from, from + egui::vec2(30.0, 0.0));
    let e = h.state().editor();
    assert_eq!(
        e.tuning().blend.nodes[walk].position,
        nodes[walk].position,
        "the node stays"
    );
    assert!(
        e.tuning().blend.point[0] > nodes[walk].position[0] + 0.05,
        "the point moved: {:?}",
        e.tuning().blend.point
    );
}

#[test]
fn panel_widths_and_scroll_offsets_do_not_carry_to_the_next_session() {
    use eframe::App;
    // B12: panels squeezed at 900x600 and UI scale 2 stayed squeezed at 1280x800 after a restart, because egui's
    // memory (panel widths, scroll offsets) was saved with the session. Not saving it was not enough: eframe still
    // restored what an older version had saved (a zoom of 1.3 and a 900x600 window were found that way).
    struct Saved(std::collections::HashMap<String, String>);
    impl eframe::Storage for Saved {
        fn get_string(&self, key: &str) -> Option<String> {
            self.0.get(key).cloned()
        }
        fn set_string(&mut self, key: &str, value: String) {
            self.0.insert(key.to_string(), value);
        }
        fn remove_string(&mut self, key: &str) {
            self.0.remove(key);
        }
        fn flush(&mut self) {}
    }
    let mut h = harness();
    assert!(!h.state().persist_egui_memory());
    let mut old = egui::Memory::default();
    old.options.zoom_factor = 1.3;
    let mut saved = Saved(Default::default());
    eframe::set_value(&mut saved, animtune::app::window::EGUI_MEMORY_KEY, &old);
    assert!(eframe::get_value::<egui::Memory>(&saved, "egui").is_some());
    h.state_mut().save(&mut saved);
    assert!(
        eframe::get_value::<egui::Memory>(&saved, "egui").is_none(),
        "an older session's egui memory is left for eframe to restore"
    );
    assert!(
        saved.0.contains_key("animtune"),
        "the session itself is saved"
    );
}

#[test]
fn the_scene_panel_keeps_its_width_when_a_clip_group_appears() {
    // B12: the scene panel grew from 240 to 320 px when clips from another file added a group to its list.
    let mut h = harness();
    h.run_steps(3);
    // The scene panel's « (collapse) button sits at its right edge.
    let panel = |h: &Harness<'static, AnimtuneApp>| h.get_by_label("«").rect();
    let before = panel(&h);
    h.state_mut()
        .send(Command::AddClips(common::asset("three-vrm_test.vrma")));
    h.run_steps(4);
    let after = panel(&h);
    assert_eq!(
        before, after,
        "the scene panel's collapse button moved: the panel changed width"
    );
}

#[test]
fn the_curves_view_shows_what_look_at_adds_to_the_head_and_not_to_its_source() {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("Curves").click();
    settle_analyses(&mut h);
    assert!(
        h.state().editor().analyses().latest_curves().is_none(),
        "no joint selected: no curves"
    );
    h.query_by_label_contains("Select a joint")
        .expect("the view says how to get curves");
    let head = {
        let c = &h.state().editor().doc().model.character;
        c.humanoid.joint(animtune::core::HumanBone::Head).unwrap()
    };
    h.state_mut().send(Command::SelectJoint(Some(head)));
    edit_layers(&mut h, |l| l.look_at.enabled = false);
    settle_analyses(&mut h);
    let curves = |h: &Harness<'static, AnimtuneApp>| {
        let a = h.state().editor().analyses();
        a.latest_curves().expect("curves computed").clone()
    };
    let before = curves(&h);
    assert_eq!(before.joint, head);
    let stages = |c: &animtune::eval::curves::JointCurves| {
        c.stages.iter().map(|s| s.stage).collect::<Vec<_>>()
    };
    use animtune::eval::curves::Stage;
    assert_eq!(
        stages(&before),
        [Stage::Source, Stage::Breath, Stage::Twist],
        "the mannequin's default layers"
    );
    let computed = h.state().editor().analyses().curve_computations;
    h.run_steps(5);
    assert_eq!(
        h.state().editor().analyses().curve_computations,
        computed,
        "playing does not recompute the curves"
    );
    edit_layers(&mut h, |l| {
        l.look_at.enabled = true;
        l.look_at.follow_camera = false;
        l.look_at.target = [1.5, 1.6, 0.5];
    });
    settle_analyses(&mut h);
    let after = curves(&h);
    assert_eq!(
        stages(&after),
        [Stage::Source, Stage::Breath, Stage::LookAt, Stage::Twist]
    );
    assert_eq!(
        after.source(),
        before.source(),
        "the source curve is the same"
    );
    let moved = after
        .final_stage()
        .local
        .iter()
        .zip(&before.final_stage().local)
        .map(|(a, b)| a.rotation.angle_between(b.rotation).to_degrees())
        .fold(0.0f32, f32::max);
    assert!(moved > 5.0, "the head's final curve turns: {moved}°");
    // The plot is there, with the final and source lines in its key (above the plot).
    h.get_by_label("Frame all");
    h.get_by_label("final");
    h.get_by_label("source");
}

#[test]
fn quick_ui_scale_chords_each_count_and_follow_the_view_menus_steps() {
    // Three Ctrl+= in one slow frame: egui's own zoom took one of them, by 0.1.
    let mut h = harness();
    h.run_steps(2);
    for _ in 0..3 {
        h.input_mut().events.push(egui::Event::Key {
            key: egui::Key::Equals,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::COMMAND,
        });
    }
    h.run_steps(2);
    assert_eq!(h.ctx.zoom_factor(), 1.75);
    // (A new zoom takes effect on the next frame.)
    quick_chord(&mut h, egui::Modifiers::COMMAND, egui::Key::Minus);
    h.run_steps(1);
    assert_eq!(h.ctx.zoom_factor(), 1.5);
    quick_chord(&mut h, egui::Modifiers::COMMAND, egui::Key::Num0);
    h.run_steps(1);
    assert_eq!(h.ctx.zoom_factor(), 1.0);
    assert_eq!(
        animtune::app::window::step_ui_scale(2.0, 3),
        2.0,
        "stays within the list"
    );
    assert_eq!(animtune::app::window::step_ui_scale(1.1, -1), 1.0);
    // --window-size is in logical pixels: at UI scale 2 the window is asked for in half as many points, so it
    // opens at the size given, not twice it.
    assert_eq!(
        animtune::app::window::window_points([900.0, 600.0], 2.0),
        [450.0, 300.0]
    );
    assert_eq!(
        animtune::app::window::window_points([900.0, 600.0], f32::NAN),
        [900.0, 600.0]
    );
}

#[test]
fn a_clip_layer_is_added_masked_on_the_figure_and_undone_from_the_layers_tab() {
    use animtune::layers::{BodyPart, LayerMode};
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    h.get_by_label("Pause").click();
    h.run_steps(2);
    let before = h.state().editor().matrices().to_vec();
    h.get_by_label("Add clip layer").click();
    h.run_steps(2);
    let layers = || h.state().editor().tuning().layers.clips.clone();
    let added = layers();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].clip, h.state().editor().doc().clips[0].name);
    assert_eq!(added[0].parts.len(), 8, "every body part at first");
    // C6: like Unity's new layer it starts at weight 0, so the character does not snap into the layer's clip;
    // it has a name.
    assert_eq!(added[0].weight, 0.0);
    assert_eq!(added[0].name, "Layer 1");
    assert_eq!(
        h.state().editor().matrices(),
        &before[..],
        "a new layer changes nothing"
    );
    let mut weighted = h.state().editor().tuning().layers.clone();
    weighted.clips[0].weight = 1.0;
    h.state_mut().send(Command::SetLayers(Box::new(weighted)));
    h.run_steps(2);
    // A click on the figure's head turns the head off; the Left Leg box turns that part off too.
    let figure = h.get_by_label("mask figure 0").rect();
    let head = figure.min + egui::vec2(30.0, 6.0) * 1.2;
    h.hover_at(head);
    h.run_steps(1);
    h.drag_at(head);
    h.run_steps(1);
    h.drop_at(head);
    h.run_steps(2);
    h.get_by_label("Left Leg").click();
    h.run_steps(2);
    h.get_by_label("additive").click();
    h.run_steps(2);
    let edited = h.state().editor().tuning().layers.clips[0].clone();
    assert!(
        !edited.parts.contains(&BodyPart::Head),
        "{:?}",
        edited.parts
    );
    assert!(!edited.parts.contains(&BodyPart::LeftLeg));
    assert_eq!(edited.mode, LayerMode::Additive);
    // The pose changes with the layer (an additive of the blend's first clip over the blend).
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert!(
        h.state().editor().tuning().layers.clips.is_empty(),
        "undo takes the layer away again: {:?}",
        h.state().editor().tuning().layers.clips
    );
}

#[test]
fn a_presets_clip_settings_apply_and_are_kept_when_the_editor_saves_it() {
    let dir = common::temp_dir("preset-clip-settings");
    let opened = dir.join("settings.json");
    std::fs::write(
        &opened,
        r#"{"format":"animtune-preset","version":3,"layers":{"clips":[{"clip":"Idle","parts":["head"]}]},
        "clip_settings":{"WalkForward":{"start":0.1,"end":0.8,"loop_pose":true}}}"#,
    )
    .unwrap();
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::Open(opened));
    h.run_steps(2);
    let status = h.state().editor().status().text.clone();
    assert!(
        status.contains("1 clip layer(s)") && status.contains("clip settings of 1 clip(s)"),
        "{status}"
    );
    let walk = clip_index(&h, "WalkForward");
    let cropped = h.state().editor().doc().clips[walk].duration;
    assert!((cropped - 0.7).abs() < 1e-4, "the crop applies: {cropped}");
    let saved = dir.join("saved.json");
    h.state_mut().send(Command::SavePreset {
        path: saved.clone(),
        overwrite: true,
    });
    h.run_steps(2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(json["clip_settings"]["WalkForward"]["end"], 0.8);
    assert_eq!(json["layers"]["clips"][0]["clip"], "Idle");
}

#[test]
fn clip_settings_crop_and_close_the_loop_of_the_playing_clip_from_the_clip_tab() {
    use animtune::core::ClipSettings;
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.run_steps(2);
    h.get_by_label("Clip").click();
    settle_analyses(&mut h);
    assert!(
        h.query_by_label_contains("loop match 0.00 cm").is_some(),
        "a whole walk loops"
    );
    h.state_mut().send(Command::SetClipSettings {
        clip: "WalkForward".into(),
        settings: ClipSettings {
            start: Some(0.1),
            end: Some(0.8),
            ..Default::default()
        },
    });
    settle_analyses(&mut h);
    assert!(
        (h.state().editor().eval().duration() - 0.7).abs() < 1e-4,
        "the cropped clip plays"
    );
    assert!(
        h.query_by_label_contains("loop match 0.00 cm").is_none()
            && h.query_by_label_contains("loop match measuring").is_none(),
        "a cropped walk does not loop"
    );
    h.get_by_label("Loop pose").click();
    settle_analyses(&mut h);
    let set = h.state().editor().tuning().clip_settings["WalkForward"].clone();
    assert!(set.loop_pose && set.start == Some(0.1));
    assert!(
        h.query_by_label_contains("loop match 0.00 cm").is_some(),
        "loop pose closes it"
    );
    // Undo, twice: the walk as loaded.
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert!(h.state().editor().tuning().clip_settings.is_empty());
    assert!((h.state().editor().eval().duration() - 1.1).abs() < 1e-4);
}

#[test]
fn a_clip_renamed_in_the_clip_tab_keeps_its_blend_nodes_and_loop_time_off_holds_its_end() {
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    let nodes_on = |h: &Harness<'static, AnimtuneApp>, name: &str| {
        let blend = &h.state().editor().tuning().blend;
        blend.nodes.iter().filter(|n| n.clip == name).count()
    };
    let nodes = nodes_on(&h, "WalkForward");
    assert!(nodes > 0, "the mannequin's blend space walks forward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.run_steps(2);
    h.get_by_label("Clip").click();
    h.run_steps(2);
    let name_field = |h: &Harness<'static, AnimtuneApp>, value: &str| {
        h.get_all_by_role(Role::TextInput)
            .any(|n| n.accesskit_node().value().as_deref() == Some(value))
    };
    assert!(
        name_field(&h, "WalkForward"),
        "the Name field shows the clip's name"
    );
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.accesskit_node().value().as_deref() == Some("WalkForward"))
        .unwrap()
        .focus();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.accesskit_node().value().as_deref() == Some("WalkForward"))
        .unwrap()
        .type_text("Walk_Fwd");
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    let e = h.state().editor();
    assert_eq!(e.doc().clips[walk].name, "Walk_Fwd", "{}", e.status().text);
    assert_eq!(e.doc().source_clips[walk].name, "WalkForward");
    assert_eq!(
        nodes_on(&h, "Walk_Fwd"),
        nodes,
        "the nodes follow the rename"
    );
    assert_eq!(nodes_on(&h, "WalkForward"), 0);
    assert!(name_field(&h, "Walk_Fwd"));
    // The settings fit the inspector at the default width: the last offset field ends inside the window.
    let image = h.render().expect("the wgpu test renderer");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-snapshots");
    std::fs::create_dir_all(&dir).unwrap();
    image.save(dir.join("clip-settings.png")).unwrap();
    let z_offset = h
        .get_all_by_role(Role::SpinButton)
        .map(|n| n.rect())
        .fold(0.0f32, |right, r| right.max(r.right()));
    assert!(z_offset <= 1280.0, "an offset field ends at x = {z_offset}");
    // Loop time off: the clip plays once and holds its end.
    assert!(h.state().editor().eval().loops());
    h.get_by_label("Loop time").click();
    h.run_steps(3);
    assert!(
        !h.state().editor().eval().loops(),
        "the clip no longer loops"
    );
    assert!(!h.state().editor().tuning().clip_settings["WalkForward"].loop_time);
    // Renaming onto another clip's name is refused and said.
    let mut taken = h.state().editor().tuning().clip_settings["WalkForward"].clone();
    taken.name = Some("Idle".into());
    h.state_mut().send(Command::SetClipSettings {
        clip: "WalkForward".into(),
        settings: taken,
    });
    h.run_steps(2);
    assert_eq!(h.state().editor().doc().clips[walk].name, "Walk_Fwd");
    assert!(
        h.state().editor().status().text.contains("another clip"),
        "{}",
        h.state().editor().status().text
    );
    // Two undos: the clip's own name, looping, and the nodes on it again.
    for _ in 0..2 {
        h.state_mut().send(Command::Undo);
        h.run_steps(2);
    }
    assert_eq!(h.state().editor().doc().clips[walk].name, "WalkForward");
    assert_eq!(nodes_on(&h, "WalkForward"), nodes);
    assert!(h.state().editor().tuning().clip_settings.is_empty());
}

#[test]
fn clip_layers_reorder_by_dragging_their_handle_and_take_joint_weights() {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    h.get_by_label("Add clip layer").click();
    h.run_steps(2);
    // Two more like it (the button is below the fold by now), told apart by weight: 0.1, 0.2, 0.3.
    edit_layers(&mut h, |l| {
        for k in 2..=3 {
            let mut layer = l.clips[0].clone();
            layer.name = format!("Layer {k}");
            l.clips.push(layer);
        }
        for (k, layer) in l.clips.iter_mut().enumerate() {
            layer.weight = 0.1 * (k + 1) as f32;
        }
    });
    h.run_steps(2);
    let weights = |h: &Harness<'static, AnimtuneApp>| -> Vec<f32> {
        let clips = &h.state().editor().tuning().layers.clips;
        clips
            .iter()
            .map(|c| (c.weight * 10.0).round() / 10.0)
            .collect()
    };
    assert_eq!(weights(&h), [0.1, 0.2, 0.3]);
    let handles: Vec<egui::Rect> = h.get_all_by_label("☰").map(|n| n.rect()).collect();
    assert_eq!(handles.len(), 3, "one drag handle per layer");
    // The second layer's handle (the third is below the fold), dropped just below the first layer's top edge:
    // it goes first.
    let from = handles[1].center();
    let to = egui::pos2(handles[0].center().x + 40.0, handles[0].top() + 2.0);
    h.hover_at(from);
    h.run_steps(1);
    h.drag_at(from);
    h.run_steps(1);
    for k in 1..=6 {
        h.hover_at(from + (to - from) * (k as f32 / 6.0));
        h.run_steps(1);
    }
    // C14: the dragged handle carries the layer's name and clip (egui paints it at the pointer; only a bare ☰
    // followed it before).
    assert!(
        h.query_by_label_contains("☰ Layer 2 · ").is_some(),
        "the dragged handle names its layer"
    );
    h.drop_at(to);
    h.run_steps(3);
    assert_eq!(weights(&h), [0.2, 0.1, 0.3], "dragged to the top");
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert_eq!(weights(&h), [0.1, 0.2, 0.3], "one undo puts it back");
    // A joint weight from the first layer's picker.
    h.get_all_by_label("Joint weights (0)")
        .next()
        .unwrap()
        .click();
    h.run_steps(2);
    h.run_steps(4);
    h.get_all_by_role(Role::ComboBox)
        .find(|n| n.accesskit_node().value().as_deref() == Some("Add a joint…"))
        .expect("the joint picker")
        .click();
    h.run_steps(2);
    // (The body part checkbox "Head" is there too.)
    h.get_all_by_label("Head")
        .find(|n| n.accesskit_node().role() != Role::CheckBox)
        .expect("Head in the joint picker")
        .click();
    h.run_steps(2);
    let first = h.state().editor().tuning().layers.clips[0].clone();
    // C6: a joint added to the mask plays fully until lowered (it started at 0, which removed the joint).
    assert_eq!(first.joint_weights.get("Head"), Some(&1.0), "{first:?}");
}

/// With Quaternius's 46 clips the scene panel's clip list scrolls in its own area: the skeleton header and its
/// first joints stay in the window (C3: everything after Punch_Enter and the whole tree were out of reach).
#[test]
fn the_scene_panel_keeps_the_skeleton_in_reach_with_many_clips() {
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::Open(common::quaternius()));
    h.run_steps(4);
    assert!(h.state().editor().doc().clips.len() >= 46);
    let skeleton = h.get_by_label("Skeleton").rect();
    assert!(
        skeleton.bottom() < 760.0,
        "the skeleton header is at y = {}",
        skeleton.bottom()
    );
    let root = h
        .state()
        .editor()
        .doc()
        .model
        .character
        .skeleton
        .name(0)
        .to_string();
    let first_joint = h
        .get_all_by_role(Role::Button)
        .find(|n| {
            n.accesskit_node()
                .label()
                .is_some_and(|l| l.trim_start().starts_with(&root))
        })
        .expect("the first joint's button")
        .rect();
    assert!(first_joint.bottom() < 790.0, "{first_joint:?}");
    // The clip list scrolls: its last clip is laid out below the list's visible part, and scrolling reaches it.
    let last = h.state().editor().doc().clips.last().unwrap().name.clone();
    let last_clip = h.get_by_label_contains(&last).rect();
    assert!(last_clip.top() > skeleton.top(), "{last_clip:?}");
}

/// C5: typing 90 into a number field (the clip's root rotation offset) applies once, on Enter: nothing turns while
/// the digits are typed (it turned the character to 9° after the first), and one undo takes it back.
#[test]
fn a_number_typed_into_a_field_applies_on_enter_as_one_undo_step() {
    let mut h = harness();
    h.run_steps(2);
    play_in_clip_tab(&mut h, "WalkForward");
    let offset = |h: &Harness<'static, AnimtuneApp>| {
        h.state()
            .editor()
            .tuning()
            .clip_settings
            .get("WalkForward")
            .map_or(0.0, |s| s.root_rotation_offset)
    };
    let field = |h: &Harness<'static, AnimtuneApp>| {
        h.get_all_by_role(Role::SpinButton)
            .find(|n| n.accesskit_node().value().as_deref() == Some("0.0°"))
            .unwrap_or_else(|| {
                panic!(
                    "the rotation offset field among {:?}",
                    h.get_all_by_role(Role::SpinButton)
                        .map(|n| (
                            n.accesskit_node().value(),
                            n.accesskit_node().numeric_value()
                        ))
                        .collect::<Vec<_>>()
                )
            })
            .rect()
    };
    let at = field(&h).center();
    h.hover_at(at);
    h.run_steps(1);
    h.drag_at(at);
    h.run_steps(1);
    h.drop_at(at);
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    for digit in ["9", "0"] {
        h.event(egui::Event::Text(digit.into()));
        h.run_steps(1);
        assert_eq!(offset(&h), 0.0, "nothing applies while typing");
    }
    h.key_press(egui::Key::Enter);
    h.run_steps(2);
    assert_eq!(offset(&h), 90.0);
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert_eq!(offset(&h), 0.0, "one undo step");
}

/// C14: End on a looping clip lands on its last frame, not on its end (which is frame 0's pose again); with
/// looping off it lands on the end.
#[test]
fn end_on_a_looping_clip_lands_on_its_last_frame() {
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.run_steps(2);
    let duration = h.state().editor().doc().clips[walk].duration;
    h.state_mut()
        .send(Command::Transport(Transport::ScrubToEnd));
    h.run_steps(2);
    let e = h.state().editor();
    let rate = e.session().frame_rate;
    let last = ((duration * rate).ceil() - 1.0) / rate;
    assert!(e.eval().loops());
    assert!(
        (e.eval().time() - last).abs() < 1e-4,
        "{} for {last}",
        e.eval().time()
    );
    assert!(e.eval().time() < duration);
    h.state_mut()
        .send(Command::Transport(Transport::SetLooping(false)));
    h.state_mut()
        .send(Command::Transport(Transport::ScrubToEnd));
    h.run_steps(2);
    assert_eq!(h.state().editor().eval().time(), duration);
}

/// C12: ticking "one clip per node + preset" (a longer line) does not move Export. C11: the window names the clip
/// settings it bakes, and warns when a layer on its own clock will leave a seam in the loop.
#[test]
fn the_export_window_names_clip_settings_and_warns_of_a_seam_without_moving_export() {
    use animtune::layers::ClipLayer;
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    let mirrored = animtune::core::ClipSettings {
        mirror: true,
        start: Some(0.1),
        ..Default::default()
    };
    h.state_mut().send(Command::SetClipSettings {
        clip: "WalkForward".into(),
        settings: mirrored,
    });
    h.run_steps(2);
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    h.run_steps(3);
    let shown: Vec<String> = h
        .query_all_by_label_contains("Clip settings:")
        .map(|n| format!("{:?}", n.accesskit_node()))
        .collect();
    assert!(
        h.query_by_label_contains("Clip settings: cropped 0.100 s to its end, mirrored")
            .is_some(),
        "{shown:?}"
    );
    assert!(h.query_by_label_contains("own clock").is_none());
    let export = h.get_by_role_and_label(Role::Button, "Export").rect();
    // A clip layer playing on its own clock: the window says the loop will have a seam.
    edit_layers(&mut h, |l| {
        l.clips.push(ClipLayer {
            name: "Arms".into(),
            clip: "Idle".into(),
            weight: 0.5,
            ..Default::default()
        })
    });
    h.run_steps(3);
    assert!(h.query_by_label_contains("Arms on its own clock").is_some());
    assert_eq!(
        h.get_by_role_and_label(Role::Button, "Export").rect(),
        export
    );
    h.get_by_label("Blend space: one clip per node + preset")
        .click();
    h.run_steps(3);
    assert_eq!(
        h.get_by_role_and_label(Role::Button, "Export").rect(),
        export,
        "ticking one clip per node moved Export"
    );
}

/// C10: a preset saved while a clip plays (a model without a blend space, with a layer) remembers the clip and
/// plays it again when reopened: before, it opened on an empty blend space with the transport off while its
/// layer animated the rest pose.
#[test]
fn a_preset_saved_on_a_clip_plays_that_clip_again() {
    use animtune::layers::ClipLayer;
    let dir = common::temp_dir("preset-plays");
    let mut h = harness();
    h.run_steps(2);
    h.state_mut().send(Command::Open(common::quaternius()));
    h.run_steps(3);
    let walk = clip_index(&h, "Walk_Loop");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.run_steps(2);
    edit_layers(&mut h, |l| {
        l.clips.push(ClipLayer {
            clip: "Idle_Loop".into(),
            weight: 0.5,
            ..Default::default()
        })
    });
    h.run_steps(2);
    let saved = dir.join("walk.json");
    h.state_mut().send(Command::SavePreset {
        path: saved.clone(),
        overwrite: true,
    });
    h.run_steps(2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(json["plays"], "Walk_Loop");
    // Another clip plays, then the preset opens again.
    h.state_mut().send(Command::PlayClip(Some(0)));
    h.run_steps(2);
    h.state_mut().send(Command::Open(saved));
    h.run_steps(3);
    let e = h.state().editor();
    assert_eq!(e.clip(), Some(walk), "{}", e.status().text);
    assert!(!e.blending());
    assert!(e.eval().clock().is_playing());
    assert!(
        !h.get_by_label("Pause").accesskit_node().is_disabled(),
        "the transport is on"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// C4: with the curves open the ruler's seconds sit under the plot's (a click on the ruler where the plot shows
/// 0.47 s scrubs to 0.47 s; it landed at x = 453 against the plot's 500), the wheel zooms the time about the
/// pointer without losing the curves, the key to the curves sits above the plot, and the viewport keeps most of
/// its height.
#[test]
fn the_curves_view_lines_up_with_the_ruler_and_zooms_its_time_with_the_wheel() {
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.state_mut()
        .send(Command::Transport(Transport::TogglePlay));
    let shoulder = {
        let c = &h.state().editor().doc().model.character;
        c.humanoid
            .joint(animtune::core::HumanBone::LeftUpperArm)
            .unwrap()
    };
    h.state_mut().send(Command::SelectJoint(Some(shoulder)));
    h.run_steps(2);
    let closed = viewport_rect(&h).height();
    h.get_by_label("Curves").click();
    settle_analyses(&mut h);
    assert!(
        viewport_rect(&h).height() >= 0.8 * closed,
        "the viewport went from {closed} to {} points high",
        viewport_rect(&h).height()
    );
    let mapping = h
        .state()
        .curves_panel()
        .time_mapping
        .expect("the plot's times");
    let x_at = |m: animtune::app::panels::timeline::TimeMapping, t: f32| {
        m.left + (t - m.start) / (m.end - m.start) * (m.right - m.left)
    };
    let ruler = h.get_by_role_and_label(Role::Slider, "Time").rect();
    let at = egui::pos2(x_at(mapping, 0.47), ruler.center().y);
    h.hover_at(at);
    h.run_steps(1);
    h.drag_at(at);
    h.run_steps(1);
    h.drop_at(at);
    h.run_steps(2);
    let t = h.state().editor().eval().time();
    assert!(
        (t - 0.47).abs() < 0.01,
        "the ruler scrubbed to {t} s where the plot shows 0.47 s"
    );
    // The key sits in the options row, above the plot, in the curves pane docked above the timeline.
    // (The plot, at least 80 points high, is between it and the ruler.)
    let key = h.get_by_label("final").rect();
    assert!(key.bottom() <= ruler.top() - 80.0, "{key:?} {ruler:?}");
    // The wheel over the plot zooms the time about the pointer; the values stay fitted.
    let span = mapping.end - mapping.start;
    let over = egui::pos2(x_at(mapping, 0.5), key.bottom() + 40.0);
    h.hover_at(over);
    h.run_steps(1);
    wheel(&mut h, 120.0);
    h.run_steps(4);
    let zoomed = h.state().curves_panel().time_mapping.unwrap();
    assert!(
        zoomed.end - zoomed.start < 0.9 * span,
        "the time span went from {span} to {}",
        zoomed.end - zoomed.start
    );
    assert!(zoomed.start <= 0.5 && zoomed.end >= 0.5);
}

/// Named avatar masks: "Save as mask" turns a layer's mask into a named one, another layer picks it, and a body
/// part turned off on one layer's figure is off for both (Unity layers share an AvatarMask asset).
#[test]
fn clip_layers_share_a_named_mask_made_from_the_layers_tab() {
    use animtune::layers::{BodyPart, ClipLayer};
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    edit_layers(&mut h, |l| {
        for clip in ["WalkForward", "RunForward"] {
            l.clips.push(ClipLayer {
                clip: clip.into(),
                weight: 0.5,
                ..Default::default()
            });
        }
    });
    h.run_steps(2);
    h.get_all_by_label("Save as mask").next().unwrap().click();
    h.run_steps(2);
    let layers = h.state().editor().tuning().layers.clone();
    assert_eq!(layers.masks.len(), 1);
    assert_eq!(layers.clips[0].mask.as_deref(), Some("Mask 1"));
    // The second layer picks the mask from its box.
    h.get_all_by_role(Role::ComboBox)
        .rfind(|n| n.accesskit_node().value().as_deref() == Some("(its own)"))
        .expect("the second layer's mask box")
        .click();
    h.run_steps(2);
    h.get_all_by_label("Mask 1").next_back().unwrap().click();
    h.run_steps(2);
    assert_eq!(
        h.state().editor().tuning().layers.clips[1].mask.as_deref(),
        Some("Mask 1")
    );
    // Left Leg off on the first layer's boxes: the shared mask, so the second layer loses it too.
    h.get_all_by_label("Left Leg").next().unwrap().click();
    h.run_steps(2);
    let layers = h.state().editor().tuning().layers.clone();
    assert!(!layers.masks[0].parts.contains(&BodyPart::LeftLeg));
    for l in &layers.clips {
        assert!(
            !l.with_mask(&layers.masks)
                .parts
                .contains(&BodyPart::LeftLeg)
        );
    }
    assert!(h.query_by_label_contains("2 layer(s)").is_some());
}

/// C14: after a drag on the blend canvas its tooltip stays hidden while the pointer rests there (it covered what
/// was just dragged); once the pointer has left and come back, it shows again.
#[test]
fn a_tooltip_does_not_cover_what_was_just_dragged() {
    let mut h = harness();
    h.run_steps(3);
    let canvas = h
        .get_by_label(animtune::app::panels::inspector::blend::CANVAS_LABEL)
        .rect();
    let tip = "Drag the cross (the sample point)";
    let (from, to) = (
        canvas.center() + egui::vec2(-30.0, 40.0),
        canvas.center() + egui::vec2(25.0, 55.0),
    );
    h.hover_at(from);
    h.run_steps(1);
    drag(&mut h, from, to);
    // The pointer rests near where the drag ended, as a hand does.
    h.hover_at(to + egui::vec2(3.0, 2.0));
    h.run_steps(60);
    assert!(
        h.query_by_label_contains(tip).is_none(),
        "the tooltip covers the canvas after the drag"
    );
    // Away and back: the tooltip comes back when the pointer rests.
    h.hover_at(egui::pos2(5.0, 400.0));
    h.run_steps(3);
    h.hover_at(to);
    h.run_steps(60);
    assert!(
        h.query_by_label_contains(tip).is_some(),
        "the tooltip is back"
    );
}

/// C14: after a slider drag its tooltip stays hidden while the pointer rests on it (it covered the row below,
/// the next control); once the pointer has left and come back, it shows again.
#[test]
fn a_sliders_tooltip_does_not_cover_the_next_row_after_a_drag() {
    let mut h = crate::kittest::harness_sized(1280.0, 1000.0);
    h.run_steps(2);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    let bar = h.get_by_role_and_label(Role::Slider, "inhale s").rect();
    let tip = "Seconds breathing in";
    // The tooltip, not the number field that carries the same text as its description.
    let shown = |h: &Harness<'static, AnimtuneApp>| {
        h.query_all_by_label_contains(tip)
            .filter(|n| !matches!(n.accesskit_node().role(), Role::SpinButton | Role::Slider))
            .count()
            > 0
    };
    let (from, to) = (bar.center(), bar.center() + egui::vec2(20.0, 0.0));
    h.hover_at(from);
    h.run_steps(1);
    drag(&mut h, from, to);
    h.hover_at(to + egui::vec2(1.0, 1.0));
    h.run_steps(60);
    assert!(!shown(&h), "the tooltip covers the next row after the drag");
    h.hover_at(egui::pos2(5.0, 400.0));
    h.run_steps(3);
    h.hover_at(to);
    h.run_steps(60);
    assert!(shown(&h), "the tooltip is back");
}

/// C13: the Clip tab shows the whole take with the crop between start and end handles, as Unity's clip inspector
/// does; dragging the end handle crops the clip, and the take stays whole on the bar.
#[test]
fn the_clip_tab_shows_the_whole_take_and_its_handles_crop_it() {
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.run_steps(2);
    h.get_by_label("Clip").click();
    h.run_steps(2);
    let take = h
        .get_by_label(animtune::app::panels::inspector::clip::TAKE_BAR_LABEL)
        .rect();
    let end = h.get_by_label("Take end handle").rect();
    let start = h.get_by_label("Take start handle").rect();
    assert!(
        (end.center().x - take.right()).abs() < 10.0,
        "{end:?} {take:?}"
    );
    let duration = h.state().editor().doc().source_clips[walk].duration;
    // Drag the end to 60 % of the take.
    let to = egui::pos2(
        start.center().x + 0.6 * (end.center().x - start.center().x),
        end.center().y,
    );
    h.hover_at(end.center());
    h.run_steps(1);
    h.drag_at(end.center());
    h.run_steps(1);
    for k in 1..=4 {
        h.hover_at(end.center() + (to - end.center()) * (k as f32 / 4.0));
        h.run_steps(1);
    }
    h.drop_at(to);
    h.run_steps(3);
    let s = h.state().editor().tuning().clip_settings["WalkForward"].clone();
    let cropped = s.end.expect("an end");
    assert!(
        (cropped - 0.6 * duration).abs() < 0.03 * duration,
        "end {cropped} of {duration}"
    );
    let clip = &h.state().editor().doc().clips[walk];
    assert!((clip.duration - cropped).abs() < 1e-3);
    // The bar still shows the whole take: the start handle has not moved, the end sits inside it.
    assert_eq!(h.get_by_label("Take start handle").rect(), start);
    assert!(h.get_by_label("Take end handle").rect().center().x < take.right() - 40.0);
    // The drag is one undo step: one undo gives the whole take back, and nothing is left to undo.
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert!(
        !h.state()
            .editor()
            .tuning()
            .clip_settings
            .contains_key("WalkForward"),
        "one undo takes the whole drag back"
    );
    assert!(!h.state().editor().can_undo(), "the drag made one step");
}

/// C13: several clips from one take. "New clip from this take" makes a copy of the take cropped to the in/out
/// range, which plays; the take stays whole; undo takes the new clip away; a saved preset makes it again.
#[test]
fn a_take_makes_several_clips_each_with_its_own_crop() {
    let dir = common::temp_dir("take-splits");
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    let whole = h.state().editor().doc().clips[walk].duration;
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.state_mut().send(Command::SetPlayRange(Some([0.2, 0.7])));
    h.run_steps(2);
    h.get_by_label("Clip").click();
    h.run_steps(2);
    h.get_by_label("New clip from this take").click();
    h.run_steps(3);
    let e = h.state().editor();
    let split = e
        .doc()
        .clips
        .iter()
        .position(|c| c.name == "WalkForward 2")
        .unwrap_or_else(|| panic!("no new clip: {}", e.status().text));
    assert!((e.doc().clips[split].duration - 0.5).abs() < 1e-3);
    assert_eq!(e.clip(), Some(split), "the new clip plays");
    assert!(
        (e.doc().clips[walk].duration - whole).abs() < 1e-6,
        "the take stays whole"
    );
    assert!(
        h.query_by_label_contains("Made from take WalkForward")
            .is_some()
    );
    // Saved and opened again after undo took it away.
    let saved = dir.join("splits.json");
    save_then_undo_removes(&mut h, &saved, "WalkForward 2");
    h.state_mut().send(Command::Open(saved));
    h.run_steps(3);
    let e = h.state().editor();
    let back = e
        .doc()
        .clips
        .iter()
        .find(|c| c.name == "WalkForward 2")
        .unwrap_or_else(|| panic!("the preset did not make it: {}", e.status().text));
    assert!((back.duration - 0.5).abs() < 1e-3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// C2: with the clip's Loop Time off and the transport's Loop on, the clip plays once and holds its end frame
/// after frame (not only `loops()` reading false).
#[test]
fn loop_time_off_holds_the_end_while_the_transport_loops() {
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.state_mut()
        .send(Command::Transport(Transport::SetLooping(true)));
    h.run_steps(2);
    h.get_by_label("Clip").click();
    h.run_steps(2);
    h.get_by_label("Loop time").click();
    h.run_steps(2);
    h.state_mut()
        .send(Command::Transport(Transport::Scrub(0.0)));
    h.state_mut().send(Command::Transport(Transport::Play));
    let duration = h.state().editor().doc().clips[walk].duration;
    let mut last = 0.0f32;
    for _ in 0..60 {
        h.step();
        let t = h.state().editor().eval().time();
        assert!(t >= last, "the clip started over: {last} then {t}");
        last = t;
    }
    assert_eq!(last, duration, "it holds its end");
    assert!(!h.state().editor().eval().clock().is_playing());
}

/// B6: with Loop off, Play at the out point starts over at the in point (and at the end of the clip, from 0).
#[test]
fn play_at_the_out_point_with_loop_off_starts_over() {
    let mut h = harness();
    h.run_steps(2);
    let walk = clip_index(&h, "WalkForward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    h.state_mut()
        .send(Command::Transport(Transport::SetLooping(false)));
    h.state_mut().send(Command::SetPlayRange(Some([0.2, 0.7])));
    h.run_steps(2);
    h.state_mut()
        .send(Command::Transport(Transport::ScrubToEnd));
    h.run_steps(2);
    assert_eq!(h.state().editor().eval().time(), 0.7);
    h.get_by_label("Play").click();
    h.run_steps(2);
    let e = h.state().editor();
    assert!(
        e.eval().clock().is_playing() || e.eval().time() < 0.7,
        "Play did nothing"
    );
    assert!(e.eval().time() >= 0.2);
}

/// An open menu closes on Escape, and on Ctrl+Z (the undo it offers was done by the key, not the menu).
#[test]
fn the_edit_menu_closes_on_escape_and_on_undo_by_key() {
    let mut h = harness();
    h.run_steps(2);
    for (modifiers, key) in [
        (egui::Modifiers::NONE, egui::Key::Escape),
        (egui::Modifiers::COMMAND, egui::Key::Z),
    ] {
        h.get_by_label("Edit").click();
        h.run_steps(2);
        assert!(h.query_by_label("Undo  Ctrl+Z").is_some(), "the menu opens");
        h.key_press_modifiers(modifiers, key);
        h.run_steps(3);
        assert!(
            h.query_by_label("Undo  Ctrl+Z").is_none(),
            "{key:?} closes the menu"
        );
    }
}
