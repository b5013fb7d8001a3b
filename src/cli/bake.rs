//! `animtune bake`: bake clips of a model, or the stream a preset plays, through the offline pipeline into
//! `.animclip` (native), the Unity layout or a `.glb`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use super::{BakeArgs, ClipFormat};
use crate::core::Clip;
use crate::import::ImportedModel;
use crate::io::fsutil::write_atomic;
use crate::offline::stream::file_stem;
use crate::offline::{
    BakeSettings, ClipMeta, Encoded, ExportFormat, Grid, StreamSource, StreamSpec, frames,
};
use crate::preset::Preset;

impl ClipFormat {
    fn export_format(self) -> ExportFormat {
        match self {
            ClipFormat::Native => ExportFormat::Native,
            ClipFormat::Unity => ExportFormat::Unity,
            ClipFormat::Gltf => ExportFormat::Gltf,
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
    #[serde(flatten)]
    encoded: Encoded,
}

fn parse_point2(text: &str) -> Result<[f64; 2]> {
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

fn stream_mode(args: &BakeArgs) -> bool {
    args.model.preset.is_some()
        || args.look_at.is_some()
        || args.blend_point.is_some()
        || args.blend_path.is_some()
        || args.duration.is_some()
        || args.per_node
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

/// Bakes one stream and writes it; returns what was written.
#[allow(clippy::too_many_arguments)]
fn bake_one(
    model: &ImportedModel,
    preset: &Preset,
    spec: &StreamSpec,
    name: &str,
    args: &BakeArgs,
    out: &std::path::Path,
    label: String,
    id: i32,
) -> Result<StreamWritten> {
    if !args.force && out.exists() {
        bail!(
            "{}: already exists (use --force to replace it)",
            out.display()
        );
    }
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
    let frames = crate::offline::bake_stream(
        &model.character,
        &model.clips,
        preset.blend.as_ref(),
        &preset.layers,
        spec,
        &mut |done, _| {
            bar.set_position(done as u64);
            true
        },
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", args.model.model))?;
    bar.finish_and_clear();
    let settings = BakeSettings {
        fps: spec.fps,
        grid: Grid::Uniform,
        ..settings_of(args, id)
    };
    let meta = ClipMeta::uniform(id, name, &frames, spec.fps);
    let encoded = crate::offline::encode(
        &model.character,
        &frames,
        &meta,
        args.format.export_format(),
        args.animation_only,
        &settings,
    );
    within_tolerance(&encoded, out, args)?;
    write_atomic(out, &encoded.bytes, args.force)?;
    Ok(StreamWritten {
        file: out.display().to_string(),
        source: label,
        duration: spec.duration,
        fps: spec.fps,
        encoded,
    })
}

/// `bake` with a preset or a blend source: the whole stream, then the layers.
fn run_stream(args: &BakeArgs, model: &ImportedModel) -> Result<()> {
    let file = args.model.model.as_str();
    let mut preset = super::model::preset(&args.model)?.unwrap_or_else(|| {
        // Without a preset: no blend space, and every layer off.
        let mut p = Preset::default();
        p.layers.breath.enabled = false;
        p.layers.twist.enabled = false;
        p.layers.look_at.enabled = false;
        p
    });
    if let Some(solver) = args.look_solver {
        preset.layers.look_at.solver = solver.solver();
    }
    if let Some(text) = &args.look_at {
        preset.layers.look_at.enabled = true;
        preset.layers.look_at.target = super::pose::parse_point3(text)?.to_array();
    }
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
    let cycle_at = |point: [f64; 2]| -> Result<f32> {
        let space = blend.ok_or_else(|| {
            anyhow::anyhow!("{file}: --blend-point needs a preset with a blend space")
        })?;
        let sampler = crate::blend::BlendSampler::bind(space, &model.clips, &model.character);
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
    let mut written = Vec::new();
    if args.per_node {
        let space =
            blend.ok_or_else(|| anyhow::anyhow!("--per-node needs a preset with a blend space"))?;
        std::fs::create_dir_all(&args.output)
            .map_err(|e| anyhow::anyhow!("{}: cannot create folder: {e}", args.output.display()))?;
        let specs = crate::offline::stream::per_node_specs(
            space,
            &model.clips,
            &model.character,
            args.fps.unwrap_or(DEFAULT_FPS),
            args.duration,
        );
        for (i, (clip, spec)) in specs.iter().enumerate() {
            let out = args.output.join(format!(
                "{}.{}",
                file_stem(clip, i),
                args.format.export_format().extension()
            ));
            written.push(bake_one(
                model,
                &preset,
                spec,
                clip,
                args,
                &out,
                format!("node {i} ({clip})"),
                i as i32,
            )?);
        }
        let preset_out = args.output.join("preset.json");
        write_atomic(&preset_out, preset.to_json().as_bytes(), args.force)?;
    } else {
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
        } else if args.clip.len() == 1 {
            let clip = super::pose::find_clip(&model.clips, &args.clip[0], file)?;
            let index = model
                .clips
                .iter()
                .position(|c| std::ptr::eq(c, clip))
                .unwrap_or(0);
            (
                StreamSource::Clip(index),
                args.duration.unwrap_or(clip.duration),
                format!("clip {}", clip.name),
            )
        } else if args.clip.len() > 1 {
            bail!("with a preset, bake one --clip at a time (or use --per-node)");
        } else if let Some(space) = blend {
            (
                StreamSource::BlendPoint(space.point),
                args.duration.map_or_else(|| cycle_at(space.point), Ok)?,
                "the preset's blend point".to_string(),
            )
        } else if model.clips.len() == 1 {
            (
                StreamSource::Clip(0),
                args.duration.unwrap_or(model.clips[0].duration),
                format!("clip {}", model.clips[0].name),
            )
        } else {
            bail!(
                "{file}: choose what to bake: --clip NAME, --blend-point X,Y or --blend-path FILE (the preset has no blend space)"
            );
        };
        let spec = StreamSpec {
            source,
            duration,
            fps: args.fps.unwrap_or(DEFAULT_FPS),
            clip_range: None,
        };
        written.push(bake_one(
            model,
            &preset,
            &spec,
            &name,
            args,
            &args.output,
            label,
            0,
        )?);
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&written)?);
    } else {
        for w in &written {
            outln!(
                "wrote {} ({}, {}, {:.3} s at {} fps, {} frames, {} bytes, max error {:.5} cm)",
                w.file,
                w.encoded.format.name(),
                w.source,
                w.duration,
                w.fps,
                w.encoded.report.frames,
                w.encoded.report.bytes,
                w.encoded.report.max_error_cm
            );
            for n in &w.encoded.notes {
                eprintln!("note: {n}");
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
}

fn select<'a>(clips: &'a [Clip], args: &BakeArgs, file: &str) -> Result<Vec<(usize, &'a Clip)>> {
    if args.all {
        return Ok(clips.iter().enumerate().collect());
    }
    if args.clip.is_empty() {
        return match clips.len() {
            0 => bail!("{file}: has no animation to bake"),
            1 => Ok(vec![(0, &clips[0])]),
            n => bail!(
                "{file}: has {n} clips: pick some with --clip NAME or bake them all with --all"
            ),
        };
    }
    args.clip
        .iter()
        .map(|w| {
            super::pose::find_clip(clips, w, file).map(|c| {
                (
                    clips.iter().position(|x| std::ptr::eq(x, c)).unwrap_or(0),
                    c,
                )
            })
        })
        .collect()
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
    if !(args.tolerance_cm.is_finite() && args.tolerance_cm > 0.0) {
        bail!(
            "--tolerance-cm {}: must be a positive number of centimetres",
            args.tolerance_cm
        );
    }
    let mut model = super::model::open(&args.model)?;
    // A --clip-file's clips come first, so `--clip NAME` and blend nodes find them before the model's own.
    let external = match &args.clip_file {
        Some(path) => {
            let clips = crate::import::load_clips(path)?;
            let n = clips.len();
            model.clips.splice(0..0, clips);
            n
        }
        None => 0,
    };
    // --crop, --cycle-offset and --loop-pose: on the clips --clip names (all with --all or none named).
    let settings = crate::core::ClipSettings {
        start: args.crop.map(|c| c[0]),
        end: args.crop.map(|c| c[1]),
        cycle_offset: args.cycle_offset.unwrap_or(0.0),
        loop_pose: args.loop_pose,
        mirror: args.mirror,
        ..Default::default()
    };
    if !settings.is_identity() {
        let named = |c: &crate::core::Clip, i: usize| {
            args.clip.is_empty()
                || args.all
                || args
                    .clip
                    .iter()
                    .any(|n| *n == c.name || *n == i.to_string())
        };
        // The clips --clip chooses from: a --clip-file's, else the model's.
        let candidates = if args.clip_file.is_some() {
            external
        } else {
            model.clips.len()
        };
        for (i, clip) in model.clips.iter_mut().enumerate().take(candidates) {
            if named(clip, i) {
                let (set, unpaired) =
                    crate::offline::mirror::apply_settings(&model.character, clip, &settings)
                        .map_err(|e| anyhow::anyhow!("clip '{}': {e}", clip.name))?;
                if !unpaired.is_empty() {
                    eprintln!(
                        "note: {}: mirrored; no partner for {} (they mirror their own motion)",
                        clip.name,
                        unpaired.join(", ")
                    );
                }
                *clip = set;
                if !args.json {
                    let gap = crate::offline::measure::loop_match(&model.character, clip);
                    outln!(
                        "loop match: {}: the end is {:.4} cm from the start (root travel aside)",
                        clip.name,
                        gap * 100.0
                    );
                }
            }
        }
    }
    if stream_mode(args) {
        return run_stream(args, &model);
    }
    let (clips, file) = match &args.clip_file {
        Some(path) => (
            &model.clips[..external],
            path.to_str().unwrap_or("--clip-file"),
        ),
        None => (&model.clips[..], args.model.model.as_str()),
    };
    let chosen = select(clips, args, file)?;
    let c = &model.character;
    let ext = args.format.export_format().extension();
    let several = chosen.len() > 1;
    let into_dir = several || args.output.is_dir();
    if into_dir {
        std::fs::create_dir_all(&args.output)
            .map_err(|e| anyhow::anyhow!("{}: cannot create folder: {e}", args.output.display()))?;
    }
    let bar = if several {
        let b = ProgressBar::new(chosen.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    // Every output path first: clips with the same name (also differing only in case, which is one file on
    // some file systems) get their index appended, and nothing is written when one would be refused.
    let mut taken = std::collections::HashSet::new();
    let outs: Vec<PathBuf> = chosen
        .iter()
        .map(|(index, clip)| {
            if !into_dir {
                return args.output.clone();
            }
            let mut stem = file_stem(&clip.name, *index);
            if !taken.insert(stem.to_lowercase()) {
                stem = format!("{stem}_{index}");
                taken.insert(stem.to_lowercase());
            }
            args.output.join(format!("{stem}.{ext}"))
        })
        .collect();
    if !args.force
        && let Some(existing) = outs.iter().find(|p| p.symlink_metadata().is_ok())
    {
        bail!(
            "{}: already exists (use --force to replace it); nothing was written",
            existing.display()
        );
    }
    let mut written = Vec::new();
    for (_, clip) in &chosen {
        let settings = settings_of(args, 0);
        let frames = crate::clipfile::uniform_frame_count(clip.duration, settings.fps)
            + frames::source_key_times(clip).len() as u64;
        crate::offline::check_sample_budget(
            frames,
            c.skeleton.len(),
            &format!("clip '{}'", clip.name),
        )?;
    }
    // Every clip is baked and checked against its tolerance before any file is written.
    let mut baked = Vec::with_capacity(chosen.len());
    for ((index, clip), out) in chosen.into_iter().zip(outs) {
        bar.set_message(clip.name.clone());
        let settings = settings_of(args, index as i32);
        let (frames, meta) = frames::prepare(&c.skeleton, Some(&c.humanoid), clip, &settings);
        let encoded = crate::offline::encode(
            c,
            &frames,
            &meta,
            args.format.export_format(),
            args.animation_only,
            &settings,
        );
        within_tolerance(&encoded, &out, args)?;
        baked.push((out, encoded));
        bar.inc(1);
    }
    bar.finish_and_clear();
    for (out, encoded) in baked {
        write_atomic(&out, &encoded.bytes, args.force)?;
        let r = &encoded.report;
        let ratio = r.raw_bytes as f64 / r.bytes.max(1) as f64;
        written.push(Written {
            file: out.display().to_string(),
            encoded,
            ratio,
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
        "max err: measured against the source at {checked} times (grid, source keys, midpoints between keys)"
    );
    for x in w {
        for n in &x.encoded.notes {
            eprintln!("note: {}: {n}", x.encoded.report.name);
        }
    }
}
