//! The desktop editor (eframe + egui + wgpu). Panels read the editor's state and send commands; nothing here
//! animates (the [`Evaluator`](crate::eval::Evaluator) does).

pub mod analyses;
pub mod command;
pub mod dialogs;
pub mod dock;
pub mod editor;
pub mod export_job;
pub mod feet;
pub mod frame_times;
pub mod gpu;
pub mod panels;
pub mod soak;
pub mod state;
pub mod widgets;
pub mod window;
mod worker;

use std::path::PathBuf;

pub use window::{AnimtuneApp, ScreenshotPlan};

/// The longest window side, in pixels, eframe asks every graphics device for (its 2D texture limit): a surface
/// any larger fails to configure.
pub const MAX_SURFACE_SIDE: u32 = 8192;

/// Native window options: the wgpu renderer and a size that fits the panels, never larger than a surface may be.
pub fn native_options() -> eframe::NativeOptions {
    let side = MAX_SURFACE_SIDE as f32;
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("animtune")
            .with_inner_size([1280.0, 800.0])
            .with_max_inner_size([side, side])
            .with_drag_and_drop(true),
        // The viewport's depth buffer: on a software rasteriser it draws into the window's pass.
        depth_buffer: 32,
        ..Default::default()
    }
}

/// The one line printed when no graphics adapter opens a window: which drivers wgpu tried and what to install.
pub const NO_ADAPTER_HINT: &str = "no graphics driver could open the window (tried Vulkan, then OpenGL): install one, e.g. `sudo apt-get install mesa-vulkan-drivers` (software Vulkan) or `sudo apt-get install libegl-mesa0 libgl1-mesa-dri` (OpenGL), or run scripts/run.sh, which installs them";

/// The message for a window that could not open: [`NO_ADAPTER_HINT`] when wgpu found no adapter or device.
fn window_error(error: eframe::Error) -> anyhow::Error {
    match error {
        eframe::Error::Wgpu(e) => anyhow::anyhow!("{NO_ADAPTER_HINT} ({e})"),
        e => anyhow::anyhow!("cannot open the editor window: {e}"),
    }
}

/// How the window runs: its size, and the scripted runs (screenshot, soak, frame times) that replace a user.
#[derive(Default)]
pub struct WindowPlan {
    /// Inner size in logical pixels (None: the size it last had, 1280×800 the first time).
    pub size: Option<[f32; 2]>,
    /// Save a screenshot after some frames, then close.
    pub screenshot: Option<ScreenshotPlan>,
    /// Run the scripted soak test.
    pub soak: Option<soak::SoakPlan>,
    /// Play for this many seconds, print the frame times, then close.
    pub frame_times: Option<u32>,
}

/// Opens the editor window (blocks until it closes) on `model` with the clips of `clips` and the `preset`
/// applied; `plan` sets its size and any scripted run.
pub fn run(
    model: Option<PathBuf>,
    clips: Vec<PathBuf>,
    preset: Option<PathBuf>,
    plan: WindowPlan,
) -> anyhow::Result<()> {
    let mut options = native_options();
    let window_depth =
        egui_wgpu::depth_format_from_bits(options.depth_buffer, options.stencil_buffer);
    let scripted = plan.screenshot.is_some() || plan.soak.is_some() || plan.frame_times.is_some();
    // A scripted run must not depend on (or change) a user's saved session: it keeps its own, in a folder
    // removed when the window closes (eframe's default path, which `None` means, is the user's).
    let scratch = if scripted {
        Some(tempfile::tempdir().map_err(|e| {
            anyhow::anyhow!("cannot create a temporary folder for the scripted run: {e}")
        })?)
    } else {
        None
    };
    if let Some(dir) = &scratch {
        options.persistence_path = Some(dir.path().join("app.ron"));
        options.persist_window = false;
    }
    let WindowPlan {
        size,
        screenshot,
        soak,
        frame_times,
    } = plan;
    eframe::run_native(
        "animtune",
        options,
        Box::new(move |cc| {
            let mut app = AnimtuneApp::new(cc, model, screenshot)
                .with_window_depth(window_depth)
                .with_clips(clips)
                .with_preset(preset);
            if let Some(plan) = soak {
                app = app.with_soak(plan);
            }
            if let Some(size) = size {
                app = app.with_window_size(size);
            }
            if let Some(seconds) = frame_times {
                app = app.with_frame_times(seconds as f32);
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(window_error)
}
