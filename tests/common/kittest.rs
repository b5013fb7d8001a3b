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
