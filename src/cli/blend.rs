//! `animtune weights` and `animtune heatmap`: a blend space's weights at a point, and its influence map.

use anyhow::{Context, Result, anyhow, bail};
use glam::DVec2;
use serde_json::json;

use super::{HeatmapArgs, WeightsArgs};
use crate::blend::{BlendSpace, HeatmapView, heatmap};
use crate::preset::load_blend_space;

fn parse_point(text: &str, space: &BlendSpace) -> Result<[f64; 2]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let number = |s: &str| -> Result<f64> {
        let v: f64 = s
            .parse()
            .with_context(|| format!("--point '{text}': '{s}' is not a number"))?;
        if !v.is_finite() {
            bail!("--point '{text}': '{s}' is not a finite number");
        }
        Ok(v)
    };
    match parts.as_slice() {
        [x] if !space.mode.is_2d() => Ok([number(x)?, 0.0]),
        [x, y] => Ok([number(x)?, number(y)?]),
        _ => Err(anyhow!(
            "--point '{text}': expected X,Y (e.g. --point 0.5,1.2)"
        )),
    }
}

pub fn weights(args: &WeightsArgs) -> Result<()> {
    let space = load_blend_space(&args.blend)?;
    let point = match &args.point {
        Some(text) => parse_point(text, &space)?,
        None => space.point,
    };
    let w = space.weights_at(DVec2::from_array(point));
    let issues: Vec<String> = space.issues().iter().map(ToString::to_string).collect();
    if args.json {
        let nodes: Vec<_> = space
            .nodes
            .iter()
            .zip(&w)
            .enumerate()
            .map(|(i, (n, w))| {
                json!({"node": i, "clip": n.clip, "position": n.position, "weight": w})
            })
            .collect();
        let out = json!({
            "mode": space.mode.as_str(),
            "point": point,
            "weights": nodes,
            "warnings": issues,
        });
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    outln!("{} at ({}, {})", space.mode.label(), point[0], point[1]);
    for (i, (n, w)) in space.nodes.iter().zip(&w).enumerate() {
        outln!(
            "  {i:>3}  {:<24} ({:>7.3}, {:>7.3})  {w:.6}",
            n.clip,
            n.position[0],
            n.position[1]
        );
    }
    for issue in issues {
        outln!("warning: {issue}");
    }
    Ok(())
}

pub fn heatmap(args: &HeatmapArgs) -> Result<()> {
    if !(1..=4096).contains(&args.size) {
        bail!("--size {}: must be between 1 and 4096", args.size);
    }
    if !args.force && args.output.exists() {
        bail!(
            "{}: already exists (use --force to replace it)",
            args.output.display()
        );
    }
    let space = load_blend_space(&args.blend)?;
    if space.nodes.is_empty() {
        bail!("{}: the blend space has no node", args.blend.display());
    }
    let view = match &args.node {
        None => HeatmapView::All,
        Some(key) => {
            let by_index = key.parse::<usize>().ok().filter(|&i| i < space.nodes.len());
            let index = by_index
                .or_else(|| space.nodes.iter().position(|n| &n.clip == key))
                .ok_or_else(|| {
                    anyhow!(
                        "--node '{key}': no such node in {} (give an index below {} or a clip name)",
                        args.blend.display(),
                        space.nodes.len()
                    )
                })?;
            HeatmapView::Node(index)
        }
    };
    let size = args.size as usize;
    if let Some(model) = &args.skate {
        return skate_map(args, &space, model);
    }
    if let Err(why) = heatmap::check_work(size, space.nodes.len()) {
        bail!("{}: --{why} (lower --size)", args.blend.display());
    }
    let [ax, ay] = &space.axes;
    let (min, max) = if space.mode.is_2d() {
        (DVec2::new(ax.min, ay.min), DVec2::new(ax.max, ay.max))
    } else {
        (DVec2::new(ax.min, -1.0), DVec2::new(ax.max, 1.0))
    };
    let map = heatmap::compute(space.mode, &space.positions(), min, max, size);
    let rgba = heatmap::to_rgba(&map, view, &heatmap::node_colors(&space));
    let image = image::RgbaImage::from_raw(args.size, args.size, rgba)
        .context("building the heatmap image")?;
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .context("encoding the PNG")?;
    crate::io::fsutil::write_atomic(&args.output, &png, args.force)?;
    let shown = match view {
        HeatmapView::All => "all nodes".to_string(),
        HeatmapView::Node(i) => format!("node {i} ({})", space.nodes[i].clip),
    };
    outln!(
        "wrote {} ({size}x{size}, {}, {shown}, x {}..{}, y {}..{})",
        args.output.display(),
        space.mode.as_str(),
        min.x,
        max.x,
        min.y,
        max.y
    );
    Ok(())
}

/// `heatmap --skate MODEL`: the skate map of the space played by MODEL, painted and optionally printed.
fn skate_map(args: &HeatmapArgs, space: &crate::blend::BlendSpace, model_path: &str) -> Result<()> {
    let grid = args.grid as usize;
    if grid == 0 || grid * grid > crate::analysis::contacts::MAX_SKATE_MAP_POINTS {
        bail!(
            "--grid {grid}: expected 1 to {} points per side",
            (crate::analysis::contacts::MAX_SKATE_MAP_POINTS as f64).sqrt() as usize
        );
    }
    if !(args.full_cm_s.is_finite() && args.full_cm_s > 0.0) {
        bail!("--full-cm-s {}: expected a positive number", args.full_cm_s);
    }
    // A preset's humanoid override and foot lock apply; a bare blend space file has neither.
    let preset = crate::preset::Preset::load(&args.blend).ok();
    let model = super::model::open(&super::ModelArgs {
        model: model_path.to_string(),
        map: Vec::new(),
        preset: preset.is_some().then(|| args.blend.clone()),
        max_file_mb: None,
        max_vertices: None,
        max_joints: None,
        hips: None,
        ik_goals: None,
        blend_to_source: None,
        plant_speed: None,
    })?;
    let foot_lock = args.foot_lock.then(|| {
        preset
            .as_ref()
            .map(|p| p.layers.foot_lock.clone())
            .unwrap_or_default()
    });
    let map = crate::analysis::contacts::skate_map(
        &model.character,
        &model.clips,
        space,
        grid,
        60.0,
        crate::analysis::ContactSettings::default(),
        foot_lock.as_ref(),
        |_, _| true,
    )
    .map_err(|e| anyhow!("{model_path}: {e}"))?
    .context("the skate map was cancelled")?;
    let rgba = map.to_rgba(args.size as usize, args.full_cm_s);
    let image = image::RgbaImage::from_raw(args.size, args.size, rgba)
        .context("building the skate map image")?;
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .context("encoding the PNG")?;
    crate::io::fsutil::write_atomic(&args.output, &png, args.force)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&map)?);
    } else {
        let (lo, hi) = map
            .planted_cm_s
            .iter()
            .fold((f32::INFINITY, 0.0f32), |(a, b), &v| (a.min(v), b.max(v)));
        outln!(
            "wrote {} (skate map of {model_path}: {grid}x{grid} points, planted slide {lo:.1} to {hi:.1} cm/s{})",
            args.output.display(),
            if foot_lock.is_some() {
                ", foot lock on"
            } else {
                ""
            }
        );
    }
    Ok(())
}
