//! The `animtune` binary: no subcommand opens the editor; subcommands run headless tools.

use std::process::ExitCode;

use clap::Parser;

use animtune::cli::{Cli, run};

fn report(e: anyhow::Error) -> ExitCode {
    let msg = format!("{e:#}").replace('\n', " ");
    eprintln!("error: {msg}");
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(command) => run(command),
        None if cli.model.as_ref().is_some_and(|m| !m.is_file()) => {
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
            animtune::app::run(model, cli.clips, screenshot, soak)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report(e),
    }
}
