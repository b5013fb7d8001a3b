//! The command line: `animtune inspect | pose | mannequin …`, each a thin wrapper over the core.

mod inspect;
mod model;
mod pose;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};

use crate::core::HumanBone;

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(
    name = "animtune",
    version,
    about = "Humanoid animation preview and tuning: glTF/VRM import, clip sampling, poses"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show what the tool understood of a model: joints, humanoid bones, twist joints, meshes, clips.
    Inspect(InspectArgs),
    /// Print every joint's local and model transform at a time of a clip.
    Pose(PoseArgs),
    /// Write the built-in mannequin as a .glb file.
    Mannequin(MannequinArgs),
}

/// How a model is opened: the file and an optional humanoid override.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// A .glb, .gltf, .vrm or .vrma file, or "mannequin" for the built-in one.
    pub model: String,
    /// Override one humanoid bone: BONE=JOINT (e.g. --map Chest=Spine2); repeatable.
    #[arg(long = "map", value_name = "BONE=JOINT")]
    pub map: Vec<String>,
}

/// Arguments of `inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print JSON instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `pose`.
#[derive(Debug, Args)]
pub struct PoseArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Clip name or index (default: the first clip; the rest pose when there is none).
    #[arg(long)]
    pub clip: Option<String>,
    /// Take the clip from another file (e.g. a .vrma), bound by path, name, then humanoid bone.
    #[arg(long, value_name = "FILE")]
    pub clip_file: Option<PathBuf>,
    /// Time in seconds.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub time: f32,
    /// Wrap time around the clip instead of holding the last pose.
    #[arg(long = "loop")]
    pub looping: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `mannequin`.
#[derive(Debug, Args)]
pub struct MannequinArgs {
    /// Output .glb path.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Parses `--map BONE=JOINT` entries.
pub fn parse_overrides(entries: &[String]) -> Result<BTreeMap<HumanBone, String>> {
    let mut out = BTreeMap::new();
    for e in entries {
        let Some((bone, joint)) = e.split_once('=') else {
            bail!("--map '{e}': expected BONE=JOINT, e.g. Chest=Spine2");
        };
        let bone = HumanBone::from_name(bone.trim()).with_context(|| {
            format!("--map '{e}': '{bone}' is not a humanoid bone (Unity HumanBodyBones name)")
        })?;
        out.insert(bone, joint.trim().to_string());
    }
    Ok(out)
}

/// Runs one subcommand, printing to stdout.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Inspect(a) => inspect::run(&a),
        Command::Pose(a) => pose::run(&a),
        Command::Mannequin(a) => {
            let bytes = crate::demo::mannequin::glb_bytes();
            crate::fsutil::write_atomic(&a.output, &bytes, a.force)?;
            println!("wrote {} ({} bytes)", a.output.display(), bytes.len());
            Ok(())
        }
    }
}
