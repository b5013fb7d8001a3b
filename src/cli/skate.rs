//! `animtune skate`: foot contacts and the skate meter of a model's clips (`analysis::contacts`).

use anyhow::{Result, bail};
use serde::Serialize;

use super::SkateArgs;
use crate::analysis::contacts::{ContactSettings, SkateReport, blend_skate, clip_skate};

#[derive(Serialize)]
struct ClipSkate {
    name: String,
    #[serde(flatten)]
    report: SkateReport,
}

#[derive(Serialize)]
struct Report {
    /// Whether the clips played under foot lock.
    foot_lock: bool,
    clips: Vec<ClipSkate>,
}

pub fn run(args: &SkateArgs) -> Result<()> {
    let model = super::model::open(&args.model)?;
    let file = args.model.model.as_str();
    for (flag, v) in [
        ("--height-cm", args.height_cm),
        ("--contact-speed-cm-s", args.contact_speed_cm_s),
        ("--skate-speed-cm-s", args.skate_speed_cm_s),
    ] {
        if !(v.is_finite() && v > 0.0 && v <= 10_000.0) {
            bail!("{flag} {v}: expected a positive number up to 10000");
        }
    }
    if !(args.fps.is_finite() && (1.0..=1000.0).contains(&args.fps)) {
        bail!("--fps {}: expected a rate from 1 to 1000", args.fps);
    }
    let settings = ContactSettings {
        height_m: args.height_cm / 100.0,
        speed_m_s: args.contact_speed_cm_s / 100.0,
        skate_m_s: args.skate_speed_cm_s / 100.0,
    };
    let preset = super::model::preset(&args.model)?;
    // --foot-lock: the preset's foot lock settings when it has them, else the defaults.
    let foot_lock = args.foot_lock.then(|| {
        preset
            .as_ref()
            .map(|p| p.layers.foot_lock.clone())
            .unwrap_or_default()
    });
    if let Some(text) = &args.blend_point {
        let point = super::bake::parse_point2(text)?;
        let Some(space) = preset.as_ref().and_then(|p| p.blend.as_ref()) else {
            bail!("--blend-point needs --preset with a blend space");
        };
        let report = blend_skate(
            &model.character,
            &model.clips,
            space,
            point,
            args.fps,
            &settings,
            foot_lock.as_ref(),
        )
        .map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        return print(
            args,
            Report {
                foot_lock: foot_lock.is_some(),
                clips: vec![ClipSkate {
                    name: format!("blend at {},{}", point[0], point[1]),
                    report,
                }],
            },
        );
    }
    let indices: Vec<usize> = if args.clip.is_empty() {
        (0..model.clips.len()).collect()
    } else {
        args.clip
            .iter()
            .map(|w| {
                let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
                super::pose::find_clip_index(&names, w, file)
            })
            .collect::<Result<_>>()?
    };
    if indices.is_empty() {
        bail!("{file}: has no clip to measure");
    }
    let mut clips = Vec::new();
    for i in indices {
        let clip = &model.clips[i];
        let report = clip_skate(
            &model.character,
            clip,
            args.fps,
            &settings,
            foot_lock.as_ref(),
        )
        .map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        clips.push(ClipSkate {
            name: clip.name.clone(),
            report,
        });
    }
    print(
        args,
        Report {
            foot_lock: foot_lock.is_some(),
            clips,
        },
    )
}

fn print(args: &SkateArgs, report: Report) -> Result<()> {
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!(
            "{:<28} {:>7} {:>11} {:>10}  ground",
            "clip",
            "skate",
            "mean cm/s",
            "max cm/s"
        );
        for c in &report.clips {
            let r = &c.report;
            let ground = match r.ground {
                crate::analysis::Ground::RootMotion => "root motion".to_string(),
                crate::analysis::Ground::Nominal(v) | crate::analysis::Ground::Treadmill(v) => {
                    format!("treadmill {:.2} m/s", glam::Vec3::from_array(v).length())
                }
            };
            outln!(
                "{:<28} {:>6.1}% {:>11.2} {:>10.2}  {ground}",
                c.name,
                100.0 * r.skate_ratio,
                r.planted_speed_cm_s.mean,
                r.planted_speed_cm_s.max
            );
        }
    }
    Ok(())
}
