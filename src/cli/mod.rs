//! The command line: `animtune inspect | pose | mannequin …`, each a thin wrapper over the core.

/// `println!` for command output: a closed pipe (`animtune … | head`) ends the program quietly instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::write_line(format_args!($($arg)*))
    };
}

/// A `note:` or `warning:` line about the inputs: kept until the command ends and printed (to stderr) only when
/// it succeeds, so that a failure is its error line alone, never after an unrelated warning.
macro_rules! noteln {
    ($($arg:tt)*) => {
        $crate::cli::defer_note(format!($($arg)*))
    };
}

mod bake;
mod blend;
mod clip;
mod inspect;
mod model;
mod pose;
mod preset;
mod render;
mod skate;

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
    about = "Humanoid animation preview and tuning: see a character move, tune it, bake the result",
    long_about = "Humanoid animation preview and tuning: see a character move, tune it, bake the result.\n\n\
        With no command, the editor window opens (on the model given, else the built-in mannequin). It reads \
        glTF 2.0, VRM 0.x/1.0, VRM Animation (.vrma) and FBX models and clips, plays clips, blend spaces and \
        state machines (Unity's transition rules) with procedural layers (foot lock, breath, look-at, twist, \
        VRM spring bones, expressions), and bakes to .animclip, Unity's AnimDataSequence layout, glTF and VRMA.\n\n\
        Every capability is also a command below; `animtune help <command>` explains its options.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do; with none, the editor window opens.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Model to open in the editor (default: the built-in mannequin).
    pub model: Option<PathBuf>,
    /// Files whose clips the character takes (models, .vrma, .animclip, Unity layout), bound by path, joint
    /// name, then humanoid bone.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub clips: Vec<PathBuf>,
    /// A preset to open in the editor after the model and its --clips: its blend space, layers and humanoid
    /// override.
    #[arg(long, value_name = "FILE.json")]
    pub preset: Option<PathBuf>,
    /// Save a screenshot of the editor window to this PNG after --frames frames, then exit.
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    /// Frames to run before the screenshot.
    #[arg(long, default_value_t = 10)]
    pub frames: u32,
    /// Soak test: cycle load model → play → blend → layers → export in the window for this many seconds,
    /// sampling resident memory, then exit (see scripts/soak.sh).
    #[arg(long, value_name = "SECONDS")]
    pub soak: Option<u64>,
    /// Where the soak test writes its memory samples (CSV).
    #[arg(long, value_name = "CSV", default_value = "soak.csv")]
    pub soak_out: PathBuf,
    /// Frame-time run: play in the window for this many seconds after a 2 s warm-up, print the frame times
    /// (last line `median frame ms: N`), then exit (see scripts/frame-times.sh).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub frame_times: Option<u32>,
    /// The editor window's size in logical pixels, e.g. 1280x800 (default: the size it last had).
    #[arg(long, value_name = "WxH", value_parser = parse_window_size)]
    pub window_size: Option<[f32; 2]>,
}

/// Parses `--crop START,END` (seconds).
fn parse_crop(text: &str) -> Result<[f32; 2], String> {
    let bad = || format!("`{text}` is not START,END in seconds with START < END (e.g. 0.1,0.8)");
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    let (a, b): (f32, f32) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a.is_finite() && b.is_finite() && 0.0 <= a && a < b {
        Ok([a, b])
    } else {
        Err(bad())
    }
}

/// Parses `--window-size`: `WIDTHxHEIGHT`, each 200 to 16384.
fn parse_window_size(text: &str) -> Result<[f32; 2], String> {
    let bad =
        || format!("`{text}` is not WIDTHxHEIGHT with each within 200..=16384 (e.g. 1280x800)");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let size = |v: &str| {
        v.trim()
            .parse::<u16>()
            .ok()
            .filter(|v| (200..=16384).contains(v))
            .map(f32::from)
            .ok_or_else(bad)
    };
    Ok([size(w)?, size(h)?])
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
    /// Render a pose of a model to a PNG, with no window (software Vulkan works).
    Render(RenderArgs),
    /// Bake clips — or, with --preset, the whole tuned stream (clip or blend space, then the layers) — into
    /// .animclip, the Unity AnimDataSequence layout, or .glb.
    Bake(BakeArgs),
    /// Inspect clip files.
    #[command(subcommand)]
    Clip(ClipCommand),
    /// Measure foot contacts and skating: per clip, the feet's contact intervals, how fast planted feet slide
    /// (cm/s) and the share of contact frames that skate.
    Skate(SkateArgs),
    /// Print the weight of every node of a blend space at a point.
    Weights(WeightsArgs),
    /// Draw a blend space's influence map (one node, or all nodes in their colours) to a PNG.
    Heatmap(HeatmapArgs),
    /// Write or check presets.
    #[command(subcommand)]
    Preset(PresetCommand),
}

/// `animtune preset …` subcommands.
#[derive(Debug, Subcommand)]
pub enum PresetCommand {
    /// Print the default preset (the mannequin's locomotion blend space) as JSON.
    Default,
    /// Check a preset file: format, version, every value; exits 1 naming the field when one is bad.
    Validate(PresetValidateArgs),
}

/// Arguments of `preset validate`.
#[derive(Debug, Args)]
pub struct PresetValidateArgs {
    /// The preset file.
    pub file: PathBuf,
}

/// Arguments of `weights`.
#[derive(Debug, Args)]
pub struct WeightsArgs {
    /// A preset or blend space JSON file.
    #[arg(long, value_name = "FILE.json")]
    pub blend: PathBuf,
    /// Sample point X,Y (default: the point saved in the file); X alone for 1D.
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
    pub point: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `heatmap`.
#[derive(Debug, Args)]
pub struct HeatmapArgs {
    /// A preset or blend space JSON file.
    #[arg(long, value_name = "FILE.json")]
    pub blend: PathBuf,
    /// The node to show: index or clip name.
    #[arg(long, conflicts_with = "all")]
    pub node: Option<String>,
    /// Show every node in its own colour, brightness = weight (the default without --node).
    #[arg(long)]
    pub all: bool,
    /// Pixels per side.
    #[arg(long, default_value_t = 256)]
    pub size: u32,
    /// Paint the skate map instead: the planted-foot slide (cm/s, `skate`'s mean) of MODEL playing the space, at
    /// --grid × --grid points over its axes.
    #[arg(long, value_name = "MODEL", conflicts_with_all = ["node", "all"])]
    pub skate: Option<String>,
    /// Points per side of the skate map.
    #[arg(long, default_value_t = 16, requires = "skate")]
    pub grid: u32,
    /// With --skate: the slide painted brightest (cm/s).
    #[arg(long, default_value_t = 50.0, requires = "skate")]
    pub full_cm_s: f32,
    /// With --skate: play under foot lock (the preset's settings, else the defaults).
    #[arg(long, requires = "skate")]
    pub foot_lock: bool,
    /// With --skate: print every point's figures as JSON.
    #[arg(long, requires = "skate")]
    pub json: bool,
    /// Output PNG.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// `animtune clip …` subcommands.
#[derive(Debug, Subcommand)]
pub enum ClipCommand {
    /// Show what a clip file (.animclip or Unity layout) holds.
    Info(ClipInfoArgs),
}

/// Arguments of `clip info`.
#[derive(Debug, Args)]
pub struct ClipInfoArgs {
    /// The clip file.
    pub file: PathBuf,
    /// Print JSON instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// Layout of a baked clip file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClipFormat {
    /// animtune's .animclip (MessagePack, compact, error-bounded).
    Native,
    /// The Unity-side runtime's AnimDataSequence (MessagePack-CSharp integer keys).
    Unity,
    /// A .glb with the model (or only its skeleton, with --animation-only) and the baked animation.
    Gltf,
    /// A VRM Animation (.vrma): the human bones (on a normalized rig, the spec's axes) and the expressions.
    Vrma,
}

/// How many items a one-line note names before it says how many more there are.
pub const NOTE_ITEMS: usize = 5;

/// The first [`NOTE_ITEMS`] of a list, comma-separated, and how many more there are: a stderr note stays one
/// short line however long the list.
pub fn first_few(items: &[String]) -> String {
    let shown = items[..items.len().min(NOTE_ITEMS)].join(", ");
    match items.len().saturating_sub(NOTE_ITEMS) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// A look-at solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LookSolverArg {
    /// Ours: bottom-up shares, per-bone limits, constant-speed smoothing.
    Shares,
    /// The Unity original's rules and parameters.
    UnityOriginal,
}

impl LookSolverArg {
    /// The solver this names.
    pub fn solver(self) -> crate::layers::look_at::LookSolver {
        match self {
            LookSolverArg::Shares => crate::layers::look_at::LookSolver::Shares,
            LookSolverArg::UnityOriginal => crate::layers::look_at::LookSolver::UnityOriginal,
        }
    }
}

/// Axes of a Unity-layout file's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AxesArg {
    /// Unity's: left-handed, X mirrored from glTF's.
    Unity,
    /// glTF's: right-handed, as animtune works inside.
    Gltf,
}

impl AxesArg {
    /// The layout option this names.
    pub fn unity_axes(self) -> crate::clipfile::unity::UnityAxes {
        match self {
            AxesArg::Unity => crate::clipfile::unity::UnityAxes::Unity,
            AxesArg::Gltf => crate::clipfile::unity::UnityAxes::Gltf,
        }
    }
}

/// Arguments of `bake`.
#[derive(Debug, Args)]
pub struct BakeArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Clip name or index to bake; repeatable.
    #[arg(long)]
    pub clip: Vec<String>,
    /// Bake every clip of the model (OUT is then a folder).
    #[arg(long)]
    pub all: bool,
    /// Crop the baked clips to START,END seconds of the source (Unity's clip Start/End), e.g. --crop 0.1,0.8.
    #[arg(long, value_name = "START,END", value_parser = parse_crop)]
    pub crop: Option<[f32; 2]>,
    /// Start the baked clips' loop this fraction of the way in, in [0, 1) (Unity's Cycle Offset).
    #[arg(long, value_name = "FRACTION")]
    pub cycle_offset: Option<f32>,
    /// Blend the baked clips' end into their start so the loop does not pop (Unity's Loop Pose).
    #[arg(long)]
    pub loop_pose: bool,
    /// Mirror the baked clips: left and right swapped, the motion reflected across the character's sagittal
    /// plane (Unity's Mirror).
    #[arg(long)]
    pub mirror: bool,
    /// Extract root motion onto the joint above the hips: the components (xz, yaw, y, comma-separated) follow the
    /// body (--root-from) and leave the pose; the others stay in the pose (Unity's Root Transform options with
    /// Bake Into Pose off). Every joint below the root stays where the clip puts it.
    #[arg(long, value_name = "COMPONENTS", value_parser = crate::offline::root_pass::RootComponents::parse, conflicts_with = "root_into_pose")]
    pub extract_root: Option<crate::offline::root_pass::RootComponents>,
    /// What the extracted root follows: the hips, the centre of mass, or the feet (their midpoint, the lower
    /// foot's height).
    #[arg(long, value_enum, value_name = "BASIS", requires = "extract_root")]
    pub root_from: Option<RootFromArg>,
    /// Where the root stands with its motion moved: its rest pose (ref), the clip's first frame (first), or the
    /// model's origin (zero). Default ref.
    #[arg(long, value_enum, value_name = "LOCK")]
    pub root_lock: Option<RootLockArg>,
    /// The inverse of --extract-root: move the root joint's motion (the components, comma-separated) into the
    /// joints below it, the root held where --root-lock puts it.
    #[arg(long, value_name = "COMPONENTS", value_parser = crate::offline::root_pass::RootComponents::parse)]
    pub root_into_pose: Option<crate::offline::root_pass::RootComponents>,
    /// Clean up foot skate before baking (Kovar 2002): each plant the skate meter finds held at one point, the legs
    /// reaching it by IK, the pelvis moved the least needed, corrections eased over --plant-blend seconds.
    #[arg(long)]
    pub fix_skate: bool,
    /// With --fix-skate: seconds each correction eases in before a plant and out after it (default 0.15).
    #[arg(long, value_name = "SECONDS", requires = "fix_skate")]
    pub plant_blend: Option<f32>,
    /// With --fix-skate: the most a leg may stretch, percent of its length (default 0, at most 5).
    #[arg(long, value_name = "PCT", requires = "fix_skate")]
    pub max_stretch: Option<f32>,
    /// Make the baked clips loop with no kick: the end's pose and velocity meet the start's, the difference spread
    /// over --loop-window seconds on each side of the seam (Loop Pose matches the pose only).
    #[arg(long)]
    pub fix_loop: bool,
    /// With --fix-loop: the seconds on each side of the seam the difference spreads over (default 0.3, at most
    /// half the clip).
    #[arg(long, value_name = "SECONDS", requires = "fix_loop")]
    pub loop_window: Option<f32>,
    /// Take the clips from this file instead of the model (a model, .vrma, .animclip, Unity layout or Unity
    /// .anim), bound to the model's character by path, joint name, then humanoid bone.
    #[arg(long, value_name = "FILE")]
    pub clip_file: Option<PathBuf>,
    /// A uniform grid at exactly this rate (the error against the source between its keys is then printed as
    /// measured). Default: the source's own keys when they lie on one uniform grid, or (for a quantized .animclip)
    /// when the clip runs straight between them; else 30 fps plus every source key time off that grid, so a bake
    /// follows its source.
    #[arg(long, conflicts_with = "keep_source_keys")]
    pub fps: Option<f32>,
    /// Use the source's own key times as the grid.
    #[arg(long)]
    pub keep_source_keys: bool,
    /// Largest allowed displacement of virtual vertices 3 cm from each joint, in centimetres: a bake further
    /// from its source is refused (nothing written, exit 1) unless --accept-error is given.
    #[arg(long, default_value_t = 0.01)]
    pub tolerance_cm: f32,
    /// Write a bake even when it is further from its source than --tolerance-cm (a note says how far).
    #[arg(long)]
    pub accept_error: bool,
    /// Store keyed values as full 32-bit floats.
    #[arg(long)]
    pub no_quantize: bool,
    /// File layout.
    #[arg(long, value_enum, default_value = "native")]
    pub format: ClipFormat,
    /// Axes of a Unity-layout file's values: Unity's (left-handed, X mirrored), or glTF's for pipelines that
    /// convert by themselves.
    #[arg(long, value_enum, default_value = "unity")]
    pub unity_axes: AxesArg,
    /// Unity layout: write curves only for joints that move (by default every mapped humanoid bone gets curves,
    /// as the original writer does; its player leaves a bone without curves wherever it was).
    #[arg(long)]
    pub sparse: bool,
    /// Bake the preset's blend space at this point X,Y (with the preset's layers).
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true, conflicts_with_all = ["blend_path", "all"])]
    pub blend_point: Option<String>,
    /// Bake the preset's blend space along a path: a JSON array of {"time": s, "point": [x, y]}.
    #[arg(long, value_name = "FILE.json", conflicts_with_all = ["all"])]
    pub blend_path: Option<PathBuf>,
    /// Bake the preset's state machine (or --controller's) driven by a parameter script (a JSON list of {"time",
    /// "set", "value"} and {"time", "trigger"}) for --duration seconds.
    #[arg(long, value_name = "FILE.json", requires = "duration", conflicts_with_all = ["all", "blend_point", "blend_path", "clip", "per_node"])]
    pub script: Option<PathBuf>,
    /// With --script: bake a Unity AnimatorController (.controller, or a project folder holding one) instead of a
    /// preset's machine: its base layer, its clips found through the project's .meta files.
    #[arg(long, value_name = "FILE.controller|FOLDER", requires = "script")]
    pub controller: Option<PathBuf>,
    /// With --script: the rate the state machine simulates at, Hz (10 to 1000): its transitions decide on ticks
    /// of 1/HZ s whatever --fps is, so a bake at any --fps samples the run `pose --script` shows.
    #[arg(long, value_name = "HZ", requires = "script")]
    pub sim_rate: Option<f64>,
    /// Length of the bake in seconds (default: the clip's length, the blend cycle, or the path's end).
    #[arg(long)]
    pub duration: Option<f32>,
    /// Turn look-at on toward this model-space point X,Y,Z (metres) for the bake.
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    pub look_at: Option<String>,
    /// The look-at solver (default: the preset's, else shares).
    #[arg(long, value_enum)]
    pub look_solver: Option<LookSolverArg>,
    /// glTF: write only the skeleton nodes and the animation, no meshes.
    #[arg(long)]
    pub animation_only: bool,
    /// Bake the spring bones' motion (the model's VRM springs and the preset's chains), stepped at --fps: frame k
    /// is the springs after k + 1 updates of 1/fps from their reset at the first pose, the clip at k/fps.
    #[arg(long)]
    pub springs: bool,
    /// Hold planted feet where they land (foot lock, the preset's settings else the defaults), stepped at --fps
    /// like the springs.
    #[arg(long)]
    pub foot_lock: bool,
    /// Seconds of spring updates with the first pose held before frame 0, to settle the springs.
    #[arg(long, value_name = "SECONDS", requires = "springs")]
    pub preroll: Option<f32>,
    /// With a blend space: bake one clip per node (its point, with the layers) into the OUT folder, plus the preset.
    #[arg(long, conflicts_with_all = ["blend_point", "blend_path", "all", "clip"])]
    pub per_node: bool,
    /// Output file (one clip) or folder (several clips).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace existing files.
    #[arg(long)]
    pub force: bool,
    /// Print the bake report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// How a model is opened: the file and an optional humanoid override.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// A .glb, .gltf, .vrm, .vrma or .fbx file, or "mannequin" for the built-in one.
    pub model: String,
    /// Override one humanoid bone: BONE=JOINT (e.g. --map Chest=Spine2); repeatable.
    #[arg(long = "map", value_name = "BONE=JOINT")]
    pub map: Vec<String>,
    /// A preset: its humanoid override, procedural layers and blend space apply.
    #[arg(long, value_name = "FILE.json")]
    pub preset: Option<PathBuf>,
    /// Refuse model files larger than this many MiB (default 1024, or ANIMTUNE_MAX_FILE_MB).
    #[arg(long, value_name = "MIB")]
    pub max_file_mb: Option<u64>,
    /// Refuse models with more mesh vertices than this (default 20 000 000, or ANIMTUNE_MAX_VERTICES).
    #[arg(long, value_name = "N")]
    pub max_vertices: Option<usize>,
    /// Refuse models with more skin joints than this (default 20 000, or ANIMTUNE_MAX_JOINTS).
    #[arg(long, value_name = "N")]
    pub max_joints: Option<usize>,
    /// Where clips retargeted from other characters put the hips (default: the preset's, else clip-position).
    #[arg(long, value_name = "RULE")]
    pub hips: Option<HipsArg>,
    /// Retarget IK goals: the chains (feet, hands, comma-separated) whose ends reach for the source's feet and
    /// hands, scaled to this character's limbs (default: the preset's, else none).
    #[arg(long, value_name = "CHAINS")]
    pub ik_goals: Option<String>,
    /// With --ik-goals: how far each goal is pulled to the source's own effector, 0 to 1 (default 0).
    #[arg(long, value_name = "F", requires = "ik_goals")]
    pub blend_to_source: Option<f32>,
    /// With --ik-goals: a source foot (or hand) sliding slower than this (cm/s) pins its goal; given, it plants
    /// the hands too (default: 15, the feet only; 0 pins none).
    #[arg(long, value_name = "CM_S", requires = "ik_goals")]
    pub plant_speed: Option<f32>,
}

/// Where clips retargeted from other characters put the hips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HipsArg {
    /// The clip's hips position scaled by the ratio of the rest hips heights (three-vrm, Unity Mecanim).
    ClipPosition,
    /// The character's rest hips plus the clip's hips motion (scaled likewise), for clips authored off their
    /// origin.
    RestOffset,
}

impl HipsArg {
    /// The rule this names.
    pub fn placement(self) -> crate::core::HipsPlacement {
        match self {
            HipsArg::ClipPosition => crate::core::HipsPlacement::ClipPosition,
            HipsArg::RestOffset => crate::core::HipsPlacement::RestOffset,
        }
    }
}

/// What an extracted root follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RootFromArg {
    /// The hips joint.
    Hips,
    /// The humanoid's centre of mass (segments weighted by their rest length).
    Mass,
    /// The feet: their midpoint, the lower foot's height.
    Feet,
}

/// Where a root stands with its motion moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RootLockArg {
    /// Its rest (reference) pose.
    Ref,
    /// The clip's first frame.
    First,
    /// The model's origin.
    Zero,
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

/// Arguments of `skate`.
#[derive(Debug, Args)]
pub struct SkateArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Clip name or index to measure; repeatable (default: every clip).
    #[arg(long, conflicts_with = "blend_point")]
    pub clip: Vec<String>,
    /// Measure the preset's blend space at this point X,Y over one cycle instead of clips.
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
    pub blend_point: Option<String>,
    /// Sample rate (frames per second).
    #[arg(long, default_value_t = 60.0)]
    pub fps: f32,
    /// A contact point is low within this height above the ground (centimetres).
    #[arg(long, default_value_t = 5.0)]
    pub height_cm: f32,
    /// A low point slower than this is in contact (cm/s).
    #[arg(long, default_value_t = 100.0)]
    pub contact_speed_cm_s: f32,
    /// A contact frame faster than this skates (cm/s).
    #[arg(long, default_value_t = 50.0)]
    pub skate_speed_cm_s: f32,
    /// Play the clips under foot lock (the preset's settings, else the defaults), stepped from 0 at --fps.
    #[arg(long)]
    pub foot_lock: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `pose`.
#[derive(Debug, Args)]
pub struct PoseArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// The clip and time.
    #[command(flatten)]
    pub source: ClipSourceArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Spring bones.
    #[command(flatten)]
    pub springs: SpringArgs,
}

/// Spring-bone options of `pose`.
#[derive(Debug, Args, Default, Clone)]
pub struct SpringArgs {
    /// Simulate the spring bones from the clip's start to --time: update k steps them by 1/FPS with the clip at
    /// k/FPS (three-vrm's order: mixer, then `vrm.update`), so the pose at --time is after round(time × FPS) + 1
    /// updates.
    #[arg(long)]
    pub springs: bool,
    /// Hold planted feet where they land (foot lock, the preset's settings else the defaults): the stack is
    /// stepped from the clip's start at --fps, as with --springs.
    #[arg(long)]
    pub foot_lock: bool,
    /// Update rate of the stateful layers (springs, foot lock), frames per second.
    #[arg(long, default_value_t = 60.0)]
    pub fps: f32,
    /// Seconds of updates with the first pose held, before the clip starts, to settle the springs.
    #[arg(long, default_value_t = 0.0, requires = "springs")]
    pub preroll: f32,
    /// Move the character about while it plays: its root is offset by (X,Y,Z) × sin(2π × HZ × t) metres; X, Y
    /// and Z are each within ±10 m, HZ from 0 to 100.
    #[arg(
        long,
        value_name = "X,Y,Z,HZ",
        allow_hyphen_values = true,
        requires = "springs"
    )]
    pub sway: Option<String>,
    /// With --json, add every update's spring tails in world space ("springs.trace").
    #[arg(long, requires = "springs")]
    pub trace: bool,
}

/// Arguments of `render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// The clip and time.
    #[command(flatten)]
    pub source: ClipSourceArgs,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720")]
    pub size: String,
    /// Camera: front, side, back, or YAW,PITCH in degrees; it is framed on the posed character.
    #[arg(long, default_value = "front")]
    pub camera: String,
    /// Draw the skeleton over the meshes.
    #[arg(long)]
    pub skeleton: bool,
    /// Leave out the ground grid.
    #[arg(long)]
    pub no_grid: bool,
    /// Output PNG.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Which clip to evaluate and when (with `--preset` and no clip option: the preset's blend space).
#[derive(Debug, Args)]
pub struct ClipSourceArgs {
    /// Clip name or index (default: the first clip; the rest pose when there is none).
    #[arg(long)]
    pub clip: Option<String>,
    /// Take the clip from another file (a model, a .vrma, a Unity .anim), bound by path, name, then humanoid
    /// bone.
    #[arg(long, value_name = "FILE", conflicts_with = "baked")]
    pub clip_file: Option<PathBuf>,
    /// Take the clip from a baked clip file (.animclip or Unity layout).
    #[arg(long, value_name = "FILE")]
    pub baked: Option<PathBuf>,
    /// Play a Unity AnimatorController (.controller, an .overrideController over one, or a project folder whose
    /// only controller it is): its base layer as a state machine, its clips found through the project's .meta
    /// files; --script drives its parameters.
    #[arg(long, value_name = "FILE.controller|FOLDER", conflicts_with_all = ["clip", "clip_file", "baked"])]
    pub controller: Option<PathBuf>,
    /// Axes a Unity-layout --baked file's values are in (Unity's unless it was written with glTF's).
    #[arg(long, value_enum, default_value = "unity")]
    pub unity_axes: AxesArg,
    /// Time in seconds.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub time: f32,
    /// Wrap time around the clip instead of holding the last pose.
    #[arg(long = "loop")]
    pub looping: bool,
    /// Turn the head toward this model-space point X,Y,Z (metres): enables look-at (with the preset's
    /// layers, or the default ones).
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    pub look_at: Option<String>,
    /// The look-at solver (default: the preset's, else shares).
    #[arg(long, value_enum)]
    pub look_solver: Option<LookSolverArg>,
    /// Compile the clips with every key as the file has it, as bakes do for their reference (by default the
    /// runtime's compact form plays them, within 0.008 cm of their keys).
    #[arg(long)]
    pub exact: bool,
    /// With a preset that holds a state machine, or --controller: a parameter script (a JSON list of {"time",
    /// "set", "value"} and {"time", "trigger"}) played from 0 to --time (`pose`: with the layers stepped at --fps).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// With a preset that holds a state machine, or --controller: the rate it simulates at, Hz (10 to 1000;
    /// default 60): its transitions decide on ticks of 1/HZ s whatever the frame rate.
    #[arg(long, value_name = "HZ")]
    pub sim_rate: Option<f64>,
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

/// Writes one line to stdout; exits quietly when the reader has gone away.
pub fn write_line(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out
        .write_fmt(args)
        .and_then(|_| out.write_all(b"\n"))
        .is_err()
    {
        std::process::exit(0);
    }
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
        let joint = joint.trim();
        if joint.is_empty() {
            bail!(
                "--map '{e}': names no joint (write BONE=JOINT; a preset's humanoid override can leave a bone \
                 unmapped with \"\")"
            );
        }
        out.insert(bone, joint.to_string());
    }
    Ok(out)
}

/// The model-space matrices of the pose a `pose` or `render` command evaluates (what it prints or draws), without
/// printing or drawing; an error for another subcommand.
pub fn evaluated_model(command: &Command) -> Result<Vec<glam::Mat4>> {
    match command {
        Command::Pose(a) => {
            let model = model::open(&a.model)?;
            Ok(pose::evaluate_stack(&model, &a.model, &a.source, Some(&a.springs))?.model)
        }
        Command::Render(a) => Ok(render::posed(a)?.1.model),
        _ => anyhow::bail!("only `pose` and `render` evaluate a pose"),
    }
}

/// The most note lines kept for one command; past it they are counted.
const MAX_NOTES: usize = 10_000;

/// The note lines of the running command, and how many past [`MAX_NOTES`] were left out.
static NOTES: std::sync::Mutex<(Vec<String>, usize)> = std::sync::Mutex::new((Vec::new(), 0));

/// Keeps a note line for the end of the command (see `noteln!`).
pub(crate) fn defer_note(line: String) {
    let mut notes = NOTES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if notes.0.len() < MAX_NOTES {
        notes.0.push(line);
    } else {
        notes.1 += 1;
    }
}

/// Runs one subcommand, printing to stdout; its notes and warnings go to stderr once it has succeeded.
pub fn run(command: Command) -> Result<()> {
    let result = run_command(command);
    let (notes, left_out) = std::mem::take(
        &mut *NOTES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    if result.is_ok() {
        for line in notes {
            eprintln!("{line}");
        }
        if left_out > 0 {
            eprintln!("note: and {left_out} more notes");
        }
    }
    result
}

fn run_command(command: Command) -> Result<()> {
    match command {
        Command::Inspect(a) => inspect::run(&a),
        Command::Pose(a) => pose::run(&a),
        Command::Bake(a) => bake::run(&a),
        Command::Render(a) => render::run(&a),
        Command::Clip(ClipCommand::Info(a)) => clip::run(&a),
        Command::Skate(a) => skate::run(&a),
        Command::Weights(a) => blend::weights(&a),
        Command::Heatmap(a) => blend::heatmap(&a),
        Command::Preset(PresetCommand::Default) => preset::default(),
        Command::Preset(PresetCommand::Validate(a)) => preset::validate(&a),
        Command::Mannequin(a) => {
            let bytes = crate::demo::mannequin::glb_bytes();
            crate::io::fsutil::write_atomic(&a.output, &bytes, a.force)?;
            outln!("wrote {} ({} bytes)", a.output.display(), bytes.len());
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_is_cut_to_a_few_and_a_count() {
        let items: Vec<String> = (0..300).map(|i| format!("Bone{i}")).collect();
        let line = first_few(&items);
        assert_eq!(line, "Bone0, Bone1, Bone2, Bone3, Bone4 and 295 more");
        assert_eq!(first_few(&items[..2]), "Bone0, Bone1");
    }
}
