//! The `animtune` binary: no subcommand opens the editor; subcommands run headless tools.

use std::process::ExitCode;

use clap::Parser;

use animtune::cli::{Cli, run};

fn report(e: anyhow::Error) -> ExitCode {
    let msg = format!("{e:#}").replace('\n', " ");
    eprintln!("error: {msg}");
    ExitCode::from(1)
}

/// Without a desktop session (no `XDG_RUNTIME_DIR`), Mesa's Vulkan device-select layer tries to reach a
/// Wayland compositor to pick the default GPU and prints an error line for every instance, although rendering
/// works. A headless subcommand has no display to match, so the layer is skipped (the adapter is still chosen
/// by power preference). The user's own setting wins.
fn quiet_headless_vulkan() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none()
        && std::env::var_os("NODEVICE_SELECT").is_none()
    {
        // SAFETY: called first thing in main, before any thread is started, so nothing reads the environment
        // concurrently.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(command) => {
            quiet_headless_vulkan();
            run(command)
        }
        // A word that is no file and looks like no file name is most likely a mistyped subcommand; a missing
        // model file opens the editor, which says so in its status bar.
        None if cli.model.as_ref().is_some_and(|m| {
            !m.is_file() && m.extension().is_none() && m.components().count() == 1
        }) =>
        {
            let m = cli.model.unwrap_or_default();
            Err(anyhow::anyhow!(
                "{}: cannot read: not a file (is it a typo of a subcommand? see --help)",
                m.display()
            ))
        }
        #[cfg(not(feature = "editor"))]
        None => Err(anyhow::anyhow!(
            "this build has no editor (built without the `editor` feature); use a subcommand, see --help"
        )),
        #[cfg(feature = "editor")]
        None => {
            let screenshot = cli.screenshot.map(|path| animtune::app::ScreenshotPlan {
                path,
                frames: cli.frames.max(1),
            });
            let soak = cli.soak.map(|seconds| animtune::app::soak::SoakPlan {
                seconds,
                out: cli.soak_out,
                model: cli.model.clone(),
            });
            let model = if soak.is_some() { None } else { cli.model };
            let window = animtune::app::WindowPlan {
                size: cli.window_size,
                screenshot,
                soak,
                frame_times: cli.frame_times,
            };
            animtune::app::run(model, cli.clips, cli.preset, window)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report(e),
    }
}
