//! `animtune bake`: bake clips of a model to `.animclip` (native) or the Unity layout.

use std::path::PathBuf;

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use super::{BakeArgs, ClipFormat};
use crate::bake::{BakeReport, BakeSettings, bake_frames, prepare, to_unity};
use crate::core::Clip;
use crate::fsutil::write_atomic;

#[derive(Serialize)]
struct Written {
    file: String,
    format: &'static str,
    #[serde(flatten)]
    report: BakeReport,
    ratio: f64,
    unity_bytes: usize,
    unity_max_error_cm: f32,
    dropped_scale: Vec<String>,
}

fn file_stem(name: &str, index: usize) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        format!("clip{index}")
    } else {
        clean
    }
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
    if !(args.fps.is_finite() && args.fps > 0.0 && args.fps <= 1000.0) {
        bail!(
            "--fps {}: must be a number of frames per second in (0, 1000]",
            args.fps
        );
    }
    if !(args.tolerance_cm.is_finite() && args.tolerance_cm > 0.0) {
        bail!(
            "--tolerance-cm {}: must be a positive number of centimetres",
            args.tolerance_cm
        );
    }
    let model = super::model::open(&args.model)?;
    let file = args.model.model.as_str();
    let chosen = select(&model.clips, args, file)?;
    let c = &model.character;
    let ext = match args.format {
        ClipFormat::Native => "animclip",
        ClipFormat::Unity => "bytes",
    };
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
    let mut written = Vec::new();
    for (index, clip) in chosen {
        bar.set_message(clip.name.clone());
        let settings = BakeSettings {
            fps: args.fps,
            keep_source_keys: args.keep_source_keys,
            tolerance_cm: args.tolerance_cm,
            quantize: !args.no_quantize,
            id: index as i32,
        };
        let humanoid = Some(&c.humanoid);
        let (frames, meta) = prepare(&c.skeleton, humanoid, clip, &settings);
        let baked = bake_frames(
            &c.skeleton,
            humanoid,
            &frames,
            &meta,
            clip.tracks.len(),
            &settings,
        );
        let unity = to_unity(&c.skeleton, humanoid, &frames, &meta, &settings);
        let out: PathBuf = if into_dir {
            args.output
                .join(format!("{}.{ext}", file_stem(&clip.name, index)))
        } else {
            args.output.clone()
        };
        let bytes = match args.format {
            ClipFormat::Native => &baked.bytes,
            ClipFormat::Unity => &unity.bytes,
        };
        write_atomic(&out, bytes, args.force)?;
        let ratio = baked.report.raw_bytes as f64 / baked.report.bytes.max(1) as f64;
        written.push(Written {
            file: out.display().to_string(),
            format: match args.format {
                ClipFormat::Native => "native",
                ClipFormat::Unity => "unity",
            },
            report: baked.report,
            ratio,
            unity_bytes: unity.bytes.len(),
            unity_max_error_cm: unity.max_error_cm,
            dropped_scale: unity.dropped_scale,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&written)?);
    } else {
        print_table(&written);
    }
    Ok(())
}

fn print_table(w: &[Written]) {
    outln!(
        "{:<28} {:>6} {:>6} {:>7} {:>10} {:>10} {:>7} {:>10} {:>10}",
        "clip",
        "frames",
        "tracks",
        "keys",
        "bytes",
        "raw",
        "ratio",
        "max err cm",
        "unity"
    );
    for x in w {
        let r = &x.report;
        outln!(
            "{:<28} {:>6} {:>6} {:>7} {:>10} {:>10} {:>6.1}:1 {:>10.5} {:>10}",
            r.name,
            r.frames,
            r.tracks,
            r.keys,
            r.bytes,
            r.raw_bytes,
            x.ratio,
            r.max_error_cm,
            x.unity_bytes
        );
    }
    if w.len() > 1 {
        let bytes: usize = w.iter().map(|x| x.report.bytes).sum();
        let raw: usize = w.iter().map(|x| x.report.raw_bytes).sum();
        let unity: usize = w.iter().map(|x| x.unity_bytes).sum();
        let err = w.iter().map(|x| x.report.max_error_cm).fold(0.0, f32::max);
        outln!(
            "{:<28} {:>6} {:>6} {:>7} {:>10} {:>10} {:>6.1}:1 {:>10.5} {:>10}",
            format!("total ({} clips)", w.len()),
            "",
            "",
            w.iter().map(|x| x.report.keys).sum::<usize>(),
            bytes,
            raw,
            raw as f64 / bytes.max(1) as f64,
            err,
            unity
        );
    }
    for x in w.iter().filter(|x| !x.dropped_scale.is_empty()) {
        eprintln!(
            "note: {}: the Unity layout has no scale curves; scale animation of {} path(s) is not in a Unity export",
            x.report.name,
            x.dropped_scale.len()
        );
    }
}
