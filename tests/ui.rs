//! The real editor panels driven through egui_kittest (clicks, drags, keys), rendered with wgpu.

mod common;

use animtune::app::AnimtuneApp;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness() -> Harness<'static, AnimtuneApp> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .wgpu()
        .build_eframe(|cc| AnimtuneApp::new(cc, None, None))
}

#[test]
fn play_pause_buttons_and_space() {
    let mut h = harness();
    h.run_steps(2);
    assert!(
        h.state().editor.player.is_playing(),
        "the mannequin plays its idle clip at start"
    );
    h.get_by_label("Pause").click();
    h.run_steps(2);
    assert!(!h.state().editor.player.is_playing());
    h.get_by_label("Play").click();
    h.run_steps(2);
    assert!(h.state().editor.player.is_playing());
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    assert!(!h.state().editor.player.is_playing());
}

#[test]
fn arrow_keys_step_frames_and_home_end_jump() {
    let mut h = harness();
    h.run_steps(2);
    h.key_press(egui::Key::Home);
    h.run_steps(1);
    assert_eq!(h.state().editor.frame(), 0);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(1);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(1);
    assert_eq!(h.state().editor.frame(), 2);
    assert!(!h.state().editor.player.is_playing());
    h.key_press(egui::Key::End);
    h.run_steps(1);
    assert_eq!(
        h.state().editor.player.time(),
        h.state().editor.player.duration()
    );
}

#[test]
fn dragging_the_scrub_bar_shows_that_time() {
    let mut h = harness();
    h.run_steps(2);
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
    let e = &h.state().editor;
    let t = e.player.time() / e.player.duration();
    assert!((0.6..0.9).contains(&t), "scrubbed to {t} of the clip");
    // The pose shown is the clip sampled at exactly that time.
    let mut expected = animtune::core::Pose::rest(&e.model.character.skeleton);
    let clip = &e.clips[e.clip.unwrap()];
    clip.sample_into(
        &e.binding().unwrap().clone(),
        e.player.time(),
        animtune::core::Wrap::Clamp,
        &mut expected,
    );
    assert_eq!(e.pose, expected);
}

#[test]
fn opening_files_by_path_and_reporting_failures() {
    let mut h = harness();
    h.run_steps(1);
    let robot = common::asset("RobotExpressive.glb");
    h.state_mut().editor.open(&robot);
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
        .editor
        .open(std::path::Path::new("/no/such/model.glb"));
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
            p[0] > 150 && p[0] > p[2] + 20
        })
        .count();
    assert!(
        skin > 2000,
        "{skin} mannequin-coloured pixels in the viewport"
    );
}
