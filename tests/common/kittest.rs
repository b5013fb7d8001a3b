//! The editor under egui_kittest, for the editor tests (tests/editor includes this file; the other test crates
//! build without the editor).

use animtune::app::AnimtuneApp;
use egui_kittest::Harness;

/// The editor with the built-in mannequin in a window of `w`×`h` points at `scale` pixels per point (a UI scale),
/// drawn by wgpu.
pub fn harness_scaled(w: f32, h: f32, scale: f32) -> Harness<'static, AnimtuneApp> {
    Harness::builder()
        .with_size(egui::vec2(w, h))
        .with_pixels_per_point(scale)
        .wgpu()
        .build_eframe(|cc| AnimtuneApp::new(cc, None, None))
}

/// [`harness_scaled`] at one pixel per point.
pub fn harness_sized(w: f32, h: f32) -> Harness<'static, AnimtuneApp> {
    harness_scaled(w, h, 1.0)
}

/// The editor in a 1280×800 window.
pub fn harness() -> Harness<'static, AnimtuneApp> {
    harness_sized(1280.0, 800.0)
}

/// Runs frames until the panels' background analyses (actions, loop match, curves) are done, at most a minute:
/// until none has run for three frames in a row (a panel asks for a figure the frame after an edit, and the
/// editor starts it the frame after that).
pub fn settle_analyses(h: &mut Harness<'static, AnimtuneApp>) {
    let start = std::time::Instant::now();
    let mut idle = 0;
    while idle < 3 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "the panels' analyses did not finish"
        );
        h.run_steps(1);
        if h.state().editor().analyses().busy() {
            idle = 0;
            std::thread::sleep(std::time::Duration::from_millis(10));
        } else {
            idle += 1;
        }
    }
}
