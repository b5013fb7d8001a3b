//! `animtune clip info`: what a clip file holds.

use anyhow::Result;
use serde::Serialize;

use super::ClipInfoArgs;
use crate::clipfile::{Channel, ClipFile, load};

#[derive(Serialize)]
struct Info {
    file: String,
    format: &'static str,
    id: i32,
    name: String,
    duration: f32,
    frame_rate: f32,
    frames: Option<u64>,
    bytes: u64,
    keys: usize,
    tracks: Vec<TrackInfo>,
}

#[derive(Serialize)]
struct TrackInfo {
    path: String,
    name: String,
    human_bone: Option<&'static str>,
    translation: String,
    rotation: String,
    scale: String,
}

fn describe<T>(c: &Channel<T>) -> String {
    match c {
        Channel::Rest => "rest".into(),
        Channel::Constant(_) => "constant".into(),
        Channel::Keys { frames, .. } => format!("{} keys", frames.len()),
    }
}

pub fn run(args: &ClipInfoArgs) -> Result<()> {
    let file = load(&args.file)?;
    let bytes = std::fs::metadata(&args.file).map(|m| m.len()).unwrap_or(0);
    let info = match &file {
        ClipFile::Native(c) => Info {
            file: args.file.display().to_string(),
            format: file.format_name(),
            id: c.id,
            name: c.name.clone(),
            duration: c.duration,
            frame_rate: c.frame_rate,
            frames: Some(c.frame_count()),
            bytes,
            keys: c.key_count(),
            tracks: c
                .tracks
                .iter()
                .map(|t| TrackInfo {
                    path: t.target.path.clone(),
                    name: t.target.name.clone(),
                    human_bone: t.target.human_bone.map(|b| b.name()),
                    translation: describe(&t.translation),
                    rotation: describe(&t.rotation),
                    scale: describe(&t.scale),
                })
                .collect(),
        },
        ClipFile::Unity(u) => {
            let keys = |cs: &[crate::clipfile::unity::Curve]| {
                cs.iter().map(|c| c.0.len()).max().unwrap_or(0)
            };
            Info {
                file: args.file.display().to_string(),
                format: file.format_name(),
                id: u.0,
                name: u.3.clone(),
                duration: u.1,
                frame_rate: u.2,
                frames: None,
                bytes,
                keys: u
                    .4
                    .iter()
                    .flat_map(|p| p.1.iter().chain(&p.2))
                    .map(|c| c.0.len())
                    .sum(),
                tracks: u
                    .4
                    .iter()
                    .map(|p| TrackInfo {
                        path: p.0.clone(),
                        name: p.0.rsplit('/').next().unwrap_or_default().to_string(),
                        human_bone: None,
                        translation: format!("{} keys", keys(&p.1)),
                        rotation: format!("{} keys", keys(&p.2)),
                        scale: "none".into(),
                    })
                    .collect(),
            }
        }
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&info)?);
    } else {
        outln!(
            "{} ({} layout, {} bytes)",
            info.file,
            info.format,
            info.bytes
        );
        outln!(
            "  clip '{}' id {}: {:.3} s at {} fps, {} tracks, {} keys",
            info.name,
            info.id,
            info.duration,
            info.frame_rate,
            info.tracks.len(),
            info.keys
        );
        for t in &info.tracks {
            outln!(
                "    {:<48} {:<14} T {:<10} R {:<10} S {}",
                t.path,
                t.human_bone.unwrap_or("-"),
                t.translation,
                t.rotation,
                t.scale
            );
        }
    }
    Ok(())
}
