//! The desktop editor (eframe + egui + wgpu). Panels read the editor's state and send commands; nothing here
//! animates (the [`Evaluator`](crate::eval::Evaluator) does).

pub mod command;
pub mod dialogs;
pub mod editor;
pub mod export_job;
pub mod gpu;
pub mod panels;
pub mod soak;
pub mod state;
pub mod window;

use std::path::PathBuf;

pub use window::{AnimtuneApp, ScreenshotPlan};

/// Native window options: the wgpu renderer and a size that fits the panels.
pub fn native_options() -> eframe::NativeOptions {
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("animtune")
            .with_inner_size([1280.0, 800.0])
            .with_drag_and_drop(true),
        ..Default::default()
    }
}

/// Opens the editor window (blocks until it closes) on `model` with the clips of `clips` added; `soak` runs
/// the scripted soak test instead of waiting for a user.
pub fn run(
    model: Option<PathBuf>,
    clips: Vec<PathBuf>,
    preset: Option<PathBuf>,
    screenshot: Option<ScreenshotPlan>,
    soak: Option<soak::SoakPlan>,
) -> anyhow::Result<()> {
    let mut options = native_options();
    if screenshot.is_some() || soak.is_some() {
        // A screenshot run must not depend on (or change) a user's saved session.
        options.persistence_path = None;
        options.persist_window = false;
    }
    eframe::run_native(
        "animtune",
        options,
        Box::new(move |cc| {
            let app = AnimtuneApp::new(cc, model, screenshot)
                .with_clips(clips)
                .with_preset(preset);
            Ok(Box::new(match soak {
                Some(plan) => app.with_soak(plan),
                None => app,
            }))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the editor window: {e}"))
}
