//! `animtune render`: a pose of a model as a PNG, rendered offscreen by the viewport's renderer.

use anyhow::{Context, Result, anyhow, bail};

use super::RenderArgs;
use super::pose::Evaluated;
use crate::import::ImportedModel;
use crate::render::FrameInput;
use crate::render::camera::{OrbitCamera, posed_bounds};
use crate::render::offscreen::{OffscreenRenderer, RenderError};

fn parse_size(text: &str) -> Result<(u32, u32)> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| anyhow!("--size '{text}': expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    let w: u32 = w
        .trim()
        .parse()
        .with_context(|| format!("--size '{text}': bad width"))?;
    let h: u32 = h
        .trim()
        .parse()
        .with_context(|| format!("--size '{text}': bad height"))?;
    let max_side = crate::render::offscreen::MAX_SIDE;
    let max_pixels = crate::render::offscreen::MAX_PIXELS;
    if !(1..=max_side).contains(&w)
        || !(1..=max_side).contains(&h)
        || u64::from(w) * u64::from(h) > max_pixels
    {
        bail!(
            "--size '{text}': each side 1 to {max_side}, and at most {max_pixels} pixels (4096x4096)"
        );
    }
    Ok((w, h))
}

/// Opens the model and evaluates the pose `render` draws.
pub(super) fn posed(args: &RenderArgs) -> Result<(ImportedModel, Evaluated)> {
    let model = super::model::open(&args.model)?;
    let evaluated = super::pose::evaluate_stack(&model, &args.model, &args.source, None)?;
    Ok((model, evaluated))
}

pub fn run(args: &RenderArgs) -> Result<()> {
    let (width, height) = parse_size(&args.size)?;
    let (yaw, pitch) = OrbitCamera::parse_view(&args.camera).ok_or_else(|| {
        anyhow!(
            "--camera '{}': expected front, side, back or YAW,PITCH in degrees",
            args.camera
        )
    })?;
    if !args.force && args.output.exists() {
        bail!(
            "{}: already exists (use --force to replace it)",
            args.output.display()
        );
    }
    let (model, evaluated) = posed(args)?;
    let c = &model.character;
    let matrices = evaluated.model;
    let aspect = width as f32 / height as f32;
    let mut camera = OrbitCamera {
        yaw,
        pitch,
        ..OrbitCamera::default()
    };
    let (min, max) = posed_bounds(c, &matrices);
    camera.frame(min, max, aspect);
    let renderer = OffscreenRenderer::new()?;
    let frame = FrameInput {
        model: &matrices,
        camera: &camera,
        aspect,
        show_skeleton: args.skeleton,
        show_grid: !args.no_grid,
        grid_follows: crate::render::camera::grid_anchor(c, &matrices),
        selected: None,
        hovered: None,
        trail: &[],
        ghosts: &[],
        look_target: None,
        morph_weights: &evaluated.morph_weights,
        companion: None,
    };
    let rendered = renderer
        .render(c, &frame, width, height)
        .map_err(|e| match e {
            RenderError::Limits(_) => anyhow!("{}: {e}", args.model.model),
            other => other.into(),
        })?;
    for n in &rendered.notes {
        noteln!("note: {}: {n}", args.model.model);
    }
    let image = rendered.image;
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .context("encoding the PNG")?;
    crate::io::fsutil::write_atomic(&args.output, &png, args.force)?;
    outln!(
        "wrote {} ({width}x{height}, {}, clip {}, {})",
        args.output.display(),
        args.model.model,
        evaluated.clip.as_deref().unwrap_or("rest pose"),
        renderer.adapter_info
    );
    Ok(())
}
