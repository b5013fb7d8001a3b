//! The `animtune` binary: subcommands run headless tools.

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use animtune::cli::{Cli, run};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let Some(command) = cli.command else {
        // The editor window comes with the app; until then, show what the command line offers.
        let _ = Cli::command().print_help();
        return ExitCode::SUCCESS;
    };
    match run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
    }
}
