//! `animtune bake`: bake clips of a model, or the stream a preset plays, through the offline pipeline into
//! `.animclip` (native), the Unity layout, a `.glb` or a `.vrma`.
//!
//! A preset, a blend source or a layer flag (`--look-at`, `--look-solver`, `--springs`, `--foot-lock`) makes the
//! bake a stream bake, whose layers `layers::policy` turns on and checks against the rig (a layer the rig cannot
//! run is refused naming the model). A bake refused for any reason writes nothing: every output path is checked
//! (an existing one needs `--force`) and every file baked before the first is written, each atomically.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use super::{BakeArgs, ClipFormat};
use crate::core::ClipSettings;
use crate::core::clip_pass::{LoopFix, MAX_STRETCH_PCT, SkateFix};
use crate::import::ImportedModel;
use crate::io::fsutil::write_atomic;
use crate::offline::loop_seam::LoopFixReport;
use crate::offline::root_pass::{RootBasis, RootLock, RootPass, RootPassReport};
use crate::offline::skate_fix::SkateFixReport;
use crate::offline::stream::{file_stem, files_in};
use crate::offline::{
    BakeRequest, BakeSettings, BakeSource, Encoded, ExportFormat, Grid, StreamSource, StreamSpec,
    frames,
};
use crate::preset::Preset;

/// Clip settings by the loaded clip's name.
type SettingsMap = std::collections::BTreeMap<String, ClipSettings>;

impl ClipFormat {
    fn export_format(self) -> ExportFormat {
        match self {
            ClipFormat::Native => ExportFormat::Native,
            ClipFormat::Unity => ExportFormat::Unity,
            ClipFormat::Gltf => ExportFormat::Gltf,
            ClipFormat::Vrma => ExportFormat::Vrma,
        }
    }
}

/// The rate of a bake's uniform grid when `--fps` is not given.
const DEFAULT_FPS: f32 = 30.0;

/// The bake settings the flags give, for the clip with identifier `id`.
fn settings_of(args: &BakeArgs, id: i32) -> BakeSettings {
    BakeSettings {
        fps: args.fps.unwrap_or(DEFAULT_FPS),
        grid: match (args.fps, args.keep_source_keys) {
            (_, true) => Grid::SourceKeys,
            (Some(_), false) => Grid::Uniform,
            (None, false) => Grid::UniformWithSourceKeys,
        },
        tolerance_cm: args.tolerance_cm,
        quantize: !args.no_quantize,
        id,
        unity_axes: args.unity_axes.unity_axes(),
        sparse: args.sparse,
    }
}

/// One file written by a stream bake.
#[derive(Serialize)]
struct StreamWritten {
    file: String,
    source: String,
    duration: f32,
    fps: f32,
    /// With --script: the rate the state machine simulated at, Hz.
    #[serde(skip_serializing_if = "Option::is_none")]
    sim_rate_hz: Option<f64>,
    /// With --springs: how far (cm) the springs' tails at the last frame are from the first, about their joints.
    #[serde(skip_serializing_if = "Option::is_none")]
    spring_seam_cm: Option<f32>,
    #[serde(flatten)]
    encoded: Encoded,
}

pub(super) fn parse_point2(text: &str) -> Result<[f64; 2]> {
    let v: Vec<f64> = text
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("--blend-point '{text}': expected X,Y"))?;
    match v.as_slice() {
        [x, y] if x.is_finite() && y.is_finite() => Ok([*x, *y]),
        [x] if x.is_finite() => Ok([*x, 0.0]),
        _ => bail!("--blend-point '{text}': expected two finite numbers X,Y"),
    }
}

/// What makes a bake a stream bake, if anything: the flag (or `--preset`) that asks for the layers or a blend
/// source, which play over a uniform grid at `--fps` as the editor plays them.
fn stream_reason(args: &BakeArgs) -> Option<&'static str> {
    [
        (args.model.preset.is_some(), "--preset"),
        (args.springs, "--springs"),
        (args.foot_lock, "--foot-lock"),
        (args.look_at.is_some(), "--look-at"),
        (args.look_solver.is_some(), "--look-solver"),
        (args.blend_point.is_some(), "--blend-point"),
        (args.blend_path.is_some(), "--blend-path"),
        (args.script.is_some(), "--script"),
        (args.duration.is_some(), "--duration"),
        (args.per_node, "--per-node"),
    ]
    .into_iter()
    .find_map(|(on, flag)| on.then_some(flag))
}

/// The root-motion pass the flags ask for, if any.
fn root_pass_of(args: &BakeArgs) -> Result<Option<RootPass>> {
    use super::{RootFromArg, RootLockArg};
    let lock = match args.root_lock.unwrap_or(RootLockArg::Ref) {
        RootLockArg::Ref => RootLock::Reference,
        RootLockArg::First => RootLock::FirstFrame,
        RootLockArg::Zero => RootLock::Zero,
    };
    let basis = match args.root_from.unwrap_or(RootFromArg::Hips) {
        RootFromArg::Hips => RootBasis::Hips,
        RootFromArg::Mass => RootBasis::CenterOfMass,
        RootFromArg::Feet => RootBasis::Feet,
    };
    Ok(match (args.extract_root, args.root_into_pose) {
        (Some(components), _) => Some(RootPass::Extract {
            components,
            basis,
            lock,
        }),
        (None, Some(components)) => Some(RootPass::IntoPose { components, lock }),
        (None, None) if args.root_lock.is_some() => {
            bail!(
                "--root-lock: says where the root stands for --extract-root or --root-into-pose; give one"
            )
        }
        (None, None) => None,
    })
}

/// The skate clean-up the flags ask for, if any.
fn skate_fix_of(args: &BakeArgs) -> Result<Option<SkateFix>> {
    if !args.fix_skate {
        return Ok(None);
    }
    let plant_blend_s = args.plant_blend.unwrap_or(SkateFix::DEFAULT_PLANT_BLEND_S);
    if !(plant_blend_s.is_finite() && (0.0..=10.0).contains(&plant_blend_s)) {
        bail!("--plant-blend {plant_blend_s}: must be 0 to 10 seconds");
    }
    let max_stretch_pct = args.max_stretch.unwrap_or(0.0);
    if !(max_stretch_pct.is_finite() && (0.0..=MAX_STRETCH_PCT).contains(&max_stretch_pct)) {
        bail!("--max-stretch {max_stretch_pct}: must be 0 to {MAX_STRETCH_PCT} percent");
    }
    Ok(Some(SkateFix {
        plant_blend_s,
        max_stretch_pct,
    }))
}

/// The loop-seam fix the flags ask for, if any.
fn loop_fix_of(args: &BakeArgs) -> Result<Option<LoopFix>> {
    if !args.fix_loop {
        return Ok(None);
    }
    let window_s = args.loop_window.unwrap_or(LoopFix::DEFAULT_WINDOW_S);
    if !(window_s.is_finite() && window_s > 0.0 && window_s <= crate::core::clip::MAX_KEY_TIME) {
        bail!("--loop-window {window_s}: must be a positive number of seconds");
    }
    Ok(Some(LoopFix { window_s }))
}

/// Refuses, before anything is written, a bake one of whose `outputs` exists (a link included) without
/// `--force`.
fn refuse_existing(outputs: &[PathBuf], force: bool) -> Result<()> {
    if !force && let Some(existing) = outputs.iter().find(|p| p.symlink_metadata().is_ok()) {
        bail!(
            "{}: already exists (use --force to replace it); nothing was written",
            existing.display()
        );
    }
    Ok(())
}

/// Refuses a bake further from its source than `--tolerance-cm` unless `--accept-error` was given.
fn within_tolerance(encoded: &Encoded, out: &std::path::Path, args: &BakeArgs) -> Result<()> {
    let r = &encoded.report;
    if r.max_error_cm <= args.tolerance_cm || args.accept_error {
        return Ok(());
    }
    bail!(
        "{}: '{}' would be {:.5} cm from its source, over --tolerance-cm {}; nothing was written (raise --fps, \
         leave --fps out so the grid keeps the source's keys, or pass --accept-error to write it anyway)",
        out.display(),
        r.name,
        r.max_error_cm,
        args.tolerance_cm
    )
}

/// What a stream bake reads: the model, its clip settings and the preset's blend space and layers.
struct StreamInputs<'a> {
    model: &'a ImportedModel,
    clip_settings: &'a SettingsMap,
    preset: &'a Preset,
}

/// Bakes one stream for `out` and checks it against the tolerance; the caller writes it once every stream of the
/// bake has baked.
fn bake_one(
    inputs: &StreamInputs,
    spec: &StreamSpec,
    name: &str,
    args: &BakeArgs,
    out: &Path,
    label: String,
    id: i32,
) -> Result<StreamWritten> {
    let frames_total = crate::clipfile::uniform_frame_count(spec.duration, spec.fps);
    let bar = if frames_total > 300 {
        let b = ProgressBar::new(frames_total);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} frames {msg}")
                .expect("valid template"),
        );
        b.set_message(label.clone());
        b
    } else {
        ProgressBar::hidden()
    };
    let request = BakeRequest {
        character: &inputs.model.character,
        clips: &inputs.model.clips,
        clip_settings: inputs.clip_settings,
        blend: inputs.preset.blend.as_ref(),
        layers: &inputs.preset.layers,
        source: BakeSource::Stream(spec.clone()),
        root_pass: None,
        loop_fix: None,
        skate_fix: None,
        name: name.to_string(),
        format: args.format.export_format(),
        animation_only: args.animation_only,
        settings: settings_of(args, id),
    };
    let outcome = request
        .run(&mut |done, _| {
            bar.set_position(done as u64);
            true
        })
        .map_err(|e| bake_error(args, e))?;
    let encoded = outcome.encoded;
    bar.finish_and_clear();
    within_tolerance(&encoded, out, args)?;
    Ok(StreamWritten {
        file: out.display().to_string(),
        source: label,
        duration: spec.duration,
        fps: spec.fps,
        sim_rate_hz: match &spec.source {
            StreamSource::Machine { sim_rate, .. } => Some(*sim_rate),
            _ => None,
        },
        spring_seam_cm: outcome.spring_seam.map(|m| m * 100.0),
        encoded,
    })
}

/// The message of a failed bake naming the file at fault: the preset (or, without one, the clip-settings flags)
/// when a setting of the tuning cannot apply, else the model.
fn bake_error(args: &BakeArgs, error: crate::offline::ExportError) -> anyhow::Error {
    match error {
        crate::offline::ExportError::Tuning(message) => match &args.model.preset {
            Some(preset) => anyhow::anyhow!("{}: {message}", preset.display()),
            None => anyhow::anyhow!("--crop/--cycle-offset/--loop-pose/--mirror: {message}"),
        },
        e => anyhow::anyhow!("{}: {e}", args.model.model),
    }
}

/// `bake` with a preset, a layer flag or a blend source (`reason` names which): the whole stream, then the layers,
/// as the editor plays them. Every output path is checked and every stream baked before the first file is written,
/// so a refusal writes nothing.
fn run_stream(
    args: &BakeArgs,
    model: &ImportedModel,
    clip_settings: &SettingsMap,
    candidates: usize,
    reason: &str,
    controller: Option<(
        crate::graph::StateMachine,
        Vec<crate::layers::clip_layer::ClipLayer>,
    )>,
) -> Result<()> {
    let file = args.model.model.as_str();
    let mut preset = super::model::preset(&args.model)?.unwrap_or_else(|| Preset {
        // Without a preset: no blend space, and every layer off but those the flags turn on.
        layers: crate::layers::LayerParams::off(),
        ..Preset::default()
    });
    if let Some((machine, layers)) = controller {
        preset.state_machine = Some(machine);
        // The controller's upper layers play over its machine, as the preset's own clip layers do.
        preset.layers.clips.extend(layers);
    }
    let look_at = args
        .look_at
        .as_deref()
        .map(super::pose::parse_point3)
        .transpose()?;
    let flags = crate::layers::LayerFlags {
        look_at,
        look_solver: args.look_solver.map(|s| s.solver()),
        springs: args.springs,
        foot_lock: args.foot_lock,
        preroll_s: args.preroll,
    };
    preset.layers = flags
        .apply(preset.layers, &model.character, file)
        .map_err(|e| anyhow::anyhow!(e))?;
    let name = args
        .model
        .preset
        .as_ref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "Baked".into());
    if let Some(d) = args.duration
        && !(d.is_finite() && d > 0.0 && d <= 3600.0)
    {
        bail!("--duration {d}: must be a number of seconds in (0, 3600]");
    }
    let blend = preset.blend.as_ref();
    // The clips as their settings make them: their names and lengths choose what to bake and for how long.
    let (clips, _) =
        crate::offline::apply_clip_settings(&model.character, &model.clips, clip_settings);
    let inputs = StreamInputs {
        model,
        clip_settings,
        preset: &preset,
    };
    let cycle_at = |point: [f64; 2]| -> Result<f32> {
        let space = blend.ok_or_else(|| {
            anyhow::anyhow!("{file}: --blend-point needs a preset with a blend space")
        })?;
        let sampler = crate::blend::BlendSampler::bind(space, &clips, &model.character);
        let missing: Vec<String> = sampler.missing().iter().map(|(_, c)| c.clone()).collect();
        if !missing.is_empty() {
            let preset = args
                .model
                .preset
                .as_deref()
                .unwrap_or(std::path::Path::new("the preset"));
            bail!(
                "{}: blend nodes play clips {file} does not have: {}",
                preset.display(),
                super::first_few(&missing)
            );
        }
        Ok(sampler.cycle_length(&space.weights_at(glam::DVec2::from_array(point))))
    };
    let ext = args.format.export_format().extension();
    let mut written = Vec::new();
    if args.per_node {
        let space =
            blend.ok_or_else(|| anyhow::anyhow!("--per-node needs a preset with a blend space"))?;
        let specs = crate::offline::stream::per_node_specs(
            space,
            &clips,
            &model.character,
            args.fps.unwrap_or(DEFAULT_FPS),
            args.duration,
        );
        let stems: Vec<(usize, String)> = specs
            .iter()
            .enumerate()
            .map(|(i, (clip, _))| (i, file_stem(clip, i)))
            .collect();
        let outs = files_in(&args.output, &stems, ext);
        let preset_out = args.output.join("preset.json");
        refuse_existing(
            &outs
                .iter()
                .chain([&preset_out])
                .cloned()
                .collect::<Vec<_>>(),
            args.force,
        )?;
        for (i, ((clip, spec), out)) in specs.iter().zip(&outs).enumerate() {
            written.push(bake_one(
                &inputs,
                spec,
                clip,
                args,
                out,
                format!("node {i} ({clip})"),
                i as i32,
            )?);
        }
        std::fs::create_dir_all(&args.output)
            .map_err(|e| anyhow::anyhow!("{}: cannot create folder: {e}", args.output.display()))?;
        for (w, out) in written.iter().zip(&outs) {
            write_atomic(out, &w.encoded.bytes, args.force)?;
        }
        write_atomic(&preset_out, preset.to_json().as_bytes(), args.force)?;
    } else {
        refuse_existing(std::slice::from_ref(&args.output), args.force)?;
        let (source, duration, label) = if let Some(text) = &args.blend_point {
            let p = parse_point2(text)?;
            (
                StreamSource::BlendPoint(p),
                args.duration.map_or_else(|| cycle_at(p), Ok)?,
                format!("blend point {},{}", p[0], p[1]),
            )
        } else if let Some(path) = &args.blend_path {
            let text = crate::preset::read_text(path)?;
            let points = crate::offline::stream::parse_path(&text, &path.display().to_string())?;
            let end = points.last().map_or(0.0, |p| p.time);
            if args.duration.is_none() && !(end > 0.0 && end <= 3600.0) {
                bail!(
                    "{}: the path ends at {end} s; a bake lasts (0, 3600] s (or pass --duration)",
                    path.display()
                );
            }
            let duration = args.duration.unwrap_or(end);
            (
                StreamSource::BlendPath(points),
                duration,
                format!("blend path {}", path.display()),
            )
        } else if let Some(path) = &args.script {
            let Some(machine) = preset.state_machine.clone() else {
                let preset = args.model.preset.as_ref().map_or_else(
                    || "no --preset was given".to_string(),
                    |p| format!("{} holds none", p.display()),
                );
                bail!("--script bakes a preset's (or --controller's) state machine: {preset}");
            };
            let text = crate::preset::read_text(path)?;
            let script = crate::graph::Script::parse(&text, &path.display().to_string())
                .map_err(|e| anyhow::anyhow!(e))?;
            (
                StreamSource::Machine {
                    machine: Box::new(machine),
                    script,
                    sim_rate: super::pose::sim_rate(args.sim_rate)?,
                },
                args.duration.unwrap_or_default(),
                format!("state machine, script {}", path.display()),
            )
        } else if args.clip.len() == 1 {
            let clip = super::pose::find_clip(&clips, &args.clip[0], file)?;
            let index = clips
                .iter()
                .position(|c| std::ptr::eq(c, clip))
                .unwrap_or(0);
            (
                StreamSource::Clip(index),
                args.duration.unwrap_or(clip.duration),
                format!("clip {}", clip.name),
            )
        } else if args.clip.len() > 1 {
            bail!(
                "{reason} bakes one --clip at a time (bake each in turn, or use --per-node with a preset's \
                 blend space)"
            );
        } else if let Some(space) = blend {
            (
                StreamSource::BlendPoint(space.point),
                args.duration.map_or_else(|| cycle_at(space.point), Ok)?,
                "the preset's blend point".to_string(),
            )
        } else if candidates == 1 {
            // The one clip --clip would choose from: a --clip-file's (which come first), else the model's.
            (
                StreamSource::Clip(0),
                args.duration.unwrap_or(clips[0].duration),
                format!("clip {}", clips[0].name),
            )
        } else {
            bail!(
                "{file}: choose what to bake: --clip NAME, --blend-point X,Y or --blend-path FILE (no preset \
                 blend space to bake)"
            );
        };
        let spec = StreamSpec {
            source,
            duration,
            fps: args.fps.unwrap_or(DEFAULT_FPS),
            clip_range: None,
        };
        let w = bake_one(&inputs, &spec, &name, args, &args.output, label, 0)?;
        write_atomic(&args.output, &w.encoded.bytes, args.force)?;
        written.push(w);
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&written)?);
    } else {
        for w in &written {
            let simulated = w
                .sim_rate_hz
                .map_or(String::new(), |hz| format!(", simulated at {hz} Hz"));
            outln!(
                "wrote {} ({}, {}{simulated}, {:.3} s at {} fps, {} frames, {} bytes, max error {:.5} cm)",
                w.file,
                w.encoded.format.name(),
                w.source,
                w.duration,
                w.fps,
                w.encoded.report.frames,
                w.encoded.report.bytes,
                w.encoded.report.max_error_cm
            );
            if let Some(seam) = w.spring_seam_cm {
                outln!(
                    "springs: stepped at {} fps; where the bake loops, their tails are up to {seam:.3} cm from \
                     where they start (--preroll settles them first)",
                    w.fps
                );
            }
            for n in &w.encoded.notes {
                noteln!("note: {n}");
            }
        }
    }
    Ok(())
}

/// One file written by a clip bake.
#[derive(Serialize)]
struct Written {
    file: String,
    #[serde(flatten)]
    encoded: Encoded,
    /// Raw size over encoded size.
    ratio: f64,
    #[serde(flatten)]
    passes: PassReports,
}

/// What ran over a clip before its bake.
#[derive(Serialize)]
struct PassReports {
    /// What the retarget IK goals did (keyed into the clip first).
    #[serde(skip_serializing_if = "Option::is_none")]
    ik_goals: Option<crate::offline::goal_keys::GoalKeysReport>,
    /// What a root-motion pass did.
    #[serde(skip_serializing_if = "Option::is_none")]
    root_pass: Option<RootPassReport>,
    /// What a loop-seam fix did.
    #[serde(skip_serializing_if = "Option::is_none")]
    loop_fix: Option<LoopFixReport>,
    /// What a skate clean-up did.
    #[serde(skip_serializing_if = "Option::is_none")]
    skate_fix: Option<SkateFixReport>,
}

/// The clips to bake, as indices into `names` (the clips' names as their settings make them).
fn select(names: &[&str], args: &BakeArgs, file: &str) -> Result<Vec<usize>> {
    if args.all {
        return Ok((0..names.len()).collect());
    }
    if args.clip.is_empty() {
        return match names.len() {
            0 => bail!("{file}: has no animation to bake"),
            1 => Ok(vec![0]),
            n => bail!(
                "{file}: has {n} clips: pick some with --clip NAME or bake them all with --all"
            ),
        };
    }
    args.clip
        .iter()
        .map(|w| super::pose::find_clip_index(names, w, file))
        .collect()
}

/// The clip settings the flags give (`--crop`, `--cycle-offset`, `--loop-pose`, `--mirror`), over `base`.
fn flag_settings(args: &BakeArgs, base: ClipSettings) -> ClipSettings {
    ClipSettings {
        start: args.crop.map(|c| c[0]).or(base.start),
        end: args.crop.map(|c| c[1]).or(base.end),
        cycle_offset: args.cycle_offset.unwrap_or(base.cycle_offset),
        loop_pose: args.loop_pose || base.loop_pose,
        mirror: args.mirror || base.mirror,
        ..base
    }
}

fn any_setting_flag(args: &BakeArgs) -> bool {
    args.crop.is_some() || args.cycle_offset.is_some() || args.loop_pose || args.mirror
}

pub fn run(args: &BakeArgs) -> Result<()> {
    let fps_range = crate::offline::FPS_RANGE;
    if let Some(fps) = args.fps
        && !fps_range.contains(&fps)
    {
        bail!(
            "--fps {fps}: must be a number of frames per second in [{}, {}]",
            fps_range.start(),
            fps_range.end()
        );
    }
    // Checked before any file is read, as --fps is.
    super::pose::sim_rate(args.sim_rate)?;
    if !(args.tolerance_cm.is_finite() && args.tolerance_cm > 0.0) {
        bail!(
            "--tolerance-cm {}: must be a positive number of centimetres",
            args.tolerance_cm
        );
    }
    let (mut model, mut clip_settings) = super::model::open_sources(&args.model)?;
    // A Unity controller's machine, its clips after the model's.
    let controller = match &args.controller {
        Some(path) => {
            let imported = super::model::open_controller(path)?;
            model.clips.extend(imported.clips);
            Some((imported.machine, imported.layers))
        }
        None => None,
    };
    // A --clip-file's clips come first, so `--clip NAME` and blend nodes find them before the model's own.
    let external = match &args.clip_file {
        Some(path) => {
            let (clips, warnings) = crate::import::load_clips_and_warnings(path)?;
            for w in &warnings {
                noteln!("warning: {}: {w}", path.display());
            }
            let n = clips.len();
            model.clips.splice(0..0, clips);
            n
        }
        None => 0,
    };
    // The clips --clip chooses from: a --clip-file's, else the model's; named as their settings make them.
    let candidates = if args.clip_file.is_some() {
        external
    } else {
        model.clips.len()
    };
    let names: Vec<String> = model.clips[..candidates]
        .iter()
        .map(|c| crate::offline::request::settled_name(&c.name, &clip_settings).to_string())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // --crop, --cycle-offset, --loop-pose and --mirror: over the settings of the clips --clip names (all with
    // --all or none named).
    if any_setting_flag(args) {
        for (i, name) in names.iter().enumerate() {
            let named = args.clip.is_empty()
                || args.all
                || args.clip.iter().any(|n| n == name || *n == i.to_string());
            if named {
                let source = model.clips[i].name.clone();
                let base = clip_settings.remove(&source).unwrap_or_default();
                clip_settings.insert(source, flag_settings(args, base));
            }
        }
    }
    let root_pass = root_pass_of(args)?;
    let loop_fix = loop_fix_of(args)?;
    let skate_fix = skate_fix_of(args)?;
    if let Some(reason) = stream_reason(args) {
        if root_pass.is_some() || loop_fix.is_some() || skate_fix.is_some() {
            let flag = if args.extract_root.is_some() {
                "--extract-root"
            } else if args.root_into_pose.is_some() {
                "--root-into-pose"
            } else if args.fix_skate {
                "--fix-skate"
            } else {
                "--fix-loop"
            };
            bail!(
                "{flag} makes a clip from one clip on its own keys; {reason} bakes a stream: leave one out"
            );
        }
        if args.all {
            bail!(
                "--all bakes each clip on its own keys, with no layers; {reason} bakes one stream: pick one --clip"
            );
        }
        if args.keep_source_keys {
            bail!(
                "--keep-source-keys: {reason} bakes on a uniform grid at --fps (the layers and blending are stepped \
                 on it)"
            );
        }
        return run_stream(args, &model, &clip_settings, candidates, reason, controller);
    }
    let file = match &args.clip_file {
        Some(path) => path.to_str().unwrap_or("--clip-file"),
        None => args.model.model.as_str(),
    };
    let chosen = select(&names, args, file)?;
    let c = &model.character;
    let ext = args.format.export_format().extension();
    let several = chosen.len() > 1;
    let into_dir = several || args.output.is_dir();
    let bar = if several {
        let b = ProgressBar::new(chosen.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    // Every output path first (clips with the same name get their index appended), and nothing is written when
    // one would be refused.
    let outs: Vec<PathBuf> = if into_dir {
        let stems: Vec<(usize, String)> = chosen
            .iter()
            .map(|&index| (index, file_stem(names[index], index)))
            .collect();
        files_in(&args.output, &stems, ext)
    } else {
        vec![args.output.clone()]
    };
    refuse_existing(&outs, args.force)?;
    let mut written = Vec::new();
    for &index in &chosen {
        let clip = &model.clips[index];
        let settings = settings_of(args, 0);
        let frames = crate::clipfile::uniform_frame_count(clip.duration, settings.fps)
            + frames::source_key_times(clip).len() as u64;
        crate::offline::check_sample_budget(
            frames,
            c.skeleton.len(),
            &format!("clip '{}'", names[index]),
        )?;
    }
    // Every clip is baked and checked against its tolerance before any file is written.
    let mut baked = Vec::with_capacity(chosen.len());
    for (index, out) in chosen.into_iter().zip(outs) {
        bar.set_message(names[index].to_string());
        let request = BakeRequest {
            character: c,
            clips: &model.clips,
            clip_settings: &clip_settings,
            blend: None,
            layers: &crate::layers::LayerParams::off(),
            source: BakeSource::Clip(index),
            root_pass,
            loop_fix,
            skate_fix,
            name: names[index].to_string(),
            format: args.format.export_format(),
            animation_only: args.animation_only,
            settings: settings_of(args, index as i32),
        };
        let outcome = request
            .run(&mut |_, _| true)
            .map_err(|e| bake_error(args, e))?;
        if let (Some(gap), false) = (outcome.loop_match, args.json) {
            outln!(
                "loop match: {}: the end is {:.4} cm from the start (root travel aside)",
                names[index],
                gap * 100.0
            );
        }
        if let (Some(report), false) = (&outcome.ik_goals, args.json) {
            outln!("{}: {}", names[index], report.brief());
        }
        if let (Some(report), false) = (&outcome.root_pass, args.json) {
            outln!("root motion: {}: {}", names[index], report.summary());
        }
        if let (Some(report), false) = (&outcome.skate_fix, args.json) {
            outln!("skate fixed: {}: {}", names[index], report.brief());
        }
        if let (Some(report), false) = (&outcome.loop_fix, args.json) {
            outln!("loop fixed: {}: {}", names[index], report.brief());
        }
        let encoded = outcome.encoded;
        within_tolerance(&encoded, &out, args)?;
        baked.push((
            out,
            encoded,
            PassReports {
                ik_goals: outcome.ik_goals,
                root_pass: outcome.root_pass,
                loop_fix: outcome.loop_fix,
                skate_fix: outcome.skate_fix,
            },
        ));
        bar.inc(1);
    }
    bar.finish_and_clear();
    if into_dir {
        std::fs::create_dir_all(&args.output)
            .map_err(|e| anyhow::anyhow!("{}: cannot create folder: {e}", args.output.display()))?;
    }
    for (out, encoded, passes) in baked {
        write_atomic(&out, &encoded.bytes, args.force)?;
        let r = &encoded.report;
        let ratio = r.raw_bytes as f64 / r.bytes.max(1) as f64;
        written.push(Written {
            file: out.display().to_string(),
            encoded,
            ratio,
            passes,
        });
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&written)?);
    } else {
        print_table(&written);
    }
    Ok(())
}

fn print_table(w: &[Written]) {
    outln!(
        "{:<28} {:>7} {:>6} {:>6} {:>7} {:>10} {:>10} {:>7} {:>10}",
        "clip",
        "format",
        "frames",
        "tracks",
        "keys",
        "bytes",
        "raw",
        "ratio",
        "max err cm"
    );
    for x in w {
        let r = &x.encoded.report;
        outln!(
            "{:<28} {:>7} {:>6} {:>6} {:>7} {:>10} {:>10} {:>6.1}:1 {:>10.5}",
            r.name,
            x.encoded.format.name(),
            r.frames,
            r.tracks,
            r.keys,
            r.bytes,
            r.raw_bytes,
            x.ratio,
            r.max_error_cm
        );
    }
    if w.len() > 1 {
        let reports = || w.iter().map(|x| &x.encoded.report);
        let bytes: usize = reports().map(|r| r.bytes).sum();
        let raw: usize = reports().map(|r| r.raw_bytes).sum();
        let err = reports().map(|r| r.max_error_cm).fold(0.0, f32::max);
        outln!(
            "{:<28} {:>7} {:>6} {:>6} {:>7} {:>10} {:>10} {:>6.1}:1 {:>10.5}",
            format!("total ({} clips)", w.len()),
            "",
            "",
            "",
            reports().map(|r| r.keys).sum::<usize>(),
            bytes,
            raw,
            raw as f64 / bytes.max(1) as f64,
            err
        );
    }
    let checked: usize = w.iter().map(|x| x.encoded.report.checked_times).sum();
    match w.first().map(|x| &x.encoded.report.grid) {
        Some(grid) if w.iter().all(|x| &x.encoded.report.grid == grid) => {
            outln!("grid: {grid}")
        }
        _ => outln!("grid: per clip in --json"),
    }
    outln!(
        "max err: measured against the source at {checked} times (grid, source keys, a quarter, half and three \
         quarters between keys and between frames)"
    );
    for x in w {
        for n in &x.encoded.notes {
            noteln!("note: {}: {n}", x.encoded.report.name);
        }
    }
}
