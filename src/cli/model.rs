//! Opening a model for a subcommand: the file (or the built-in mannequin) plus the humanoid override.

use std::path::Path;

use anyhow::{Result, anyhow};

use super::{ModelArgs, parse_overrides};
use crate::import::{ImportedModel, load_file_with};
use crate::preset::Preset;

/// The preset named by `--preset`, if any.
pub fn preset(args: &ModelArgs) -> Result<Option<Preset>> {
    args.preset
        .as_deref()
        .map(Preset::load)
        .transpose()
        .map_err(Into::into)
}

/// Loads the model named on the command line, applies the humanoid overrides (the preset's, then `--map`) and
/// makes its clips with the preset's clip settings: what `pose` and `render` play.
pub fn open(args: &ModelArgs) -> Result<ImportedModel> {
    let (mut model, settings) = open_sources(args)?;
    let character = &model.character;
    for clip in &mut model.clips {
        let (set, note) = crate::offline::request::apply_one(character, clip, &settings)
            .map_err(|e| anyhow!("{}: clip_settings: {e}", settings_file(args)))?;
        if let Some(note) = note {
            noteln!("note: {note}");
        }
        *clip = set;
    }
    Ok(model)
}

fn settings_file(args: &ModelArgs) -> String {
    args.preset
        .as_ref()
        .map_or_else(|| "the preset".into(), |p| p.display().to_string())
}

/// The model as [`open`] loads it, with its clips as loaded, and the preset's clip settings (checked: each names
/// a clip the model has), for a bake request to apply.
pub fn open_sources(
    args: &ModelArgs,
) -> Result<(
    ImportedModel,
    std::collections::BTreeMap<String, crate::core::ClipSettings>,
)> {
    let mut limits = crate::import::Limits::from_env();
    if let Some(mb) = args.max_file_mb {
        limits.max_file_bytes = mb.saturating_mul(1 << 20);
    }
    if let Some(v) = args.max_vertices {
        limits.max_vertices = v;
    }
    if let Some(j) = args.max_joints {
        limits.max_joints = j;
    }
    let mut model = if args.model == "mannequin" {
        crate::demo::mannequin::load()
    } else {
        load_file_with(Path::new(&args.model), &limits)?
    };
    for w in &model.character.warnings {
        noteln!("warning: {}: {w}", args.model);
    }
    let preset = preset(args)?;
    let mut overrides = match &preset {
        Some(p) => p.humanoid_override(),
        None => Default::default(),
    };
    overrides.extend(parse_overrides(&args.map)?);
    if !overrides.is_empty() {
        let c = &mut model.character;
        c.humanoid = c
            .humanoid
            .clone()
            .with_override(&overrides, &c.skeleton)
            .map_err(|e| anyhow!("{}: {e}", args.model))?;
    }
    model.character.humanoid.hips_placement = match (args.hips, &preset) {
        (Some(h), _) => h.placement(),
        (None, Some(p)) => p.hips_placement,
        (None, None) => Default::default(),
    };
    model.character.humanoid.ik_goals = ik_goals(args, preset.as_ref())?;
    // The clips of the files the preset remembers, after the model's own.
    if let (Some(p), Some(path)) = (&preset, &args.preset) {
        for file in p.clip_paths(path) {
            let clips = crate::import::load_clips(&file).map_err(|e| {
                anyhow!(
                    "{} (a clip file of preset {}): {e}",
                    file.display(),
                    path.display()
                )
            })?;
            model.clips.extend(clips);
        }
    }
    if !model.is_animatable() {
        return Err(anyhow!(
            "{}: has no skin, no animation, no parts on joints and no humanoid: nothing to animate",
            args.model
        ));
    }
    // The root joint the preset adds above the hips (for root motion extracted in the editor), before the clips it
    // makes from takes.
    if preset.as_ref().is_some_and(|p| p.root_joint)
        && let Some(added) = crate::offline::root_pass::with_added_root(&model.character)
    {
        model.character = added.map_err(|e| anyhow!("{}: root_joint: {e}", settings_file(args)))?;
    }
    // Clips the preset makes from takes, before their settings apply.
    if let Some(p) = &preset {
        let made = crate::offline::request::with_splits(
            &model.character,
            &model.clips,
            &p.clip_splits,
            &p.clip_settings,
        )
        .map_err(|e| anyhow!("{}: clip_splits: {e}", settings_file(args)))?;
        model.clips = made.clips;
        for (name, report) in made.root_passes {
            noteln!("note: clip '{name}': root motion: {}", report.brief());
        }
        for (name, report) in made.skate_fixes {
            noteln!("note: clip '{name}': skate fixed: {}", report.brief());
        }
        for (name, report) in made.loop_fixes {
            noteln!("note: clip '{name}': loop fixed: {}", report.brief());
        }
    }
    let settings = preset.map(|p| p.clip_settings).unwrap_or_default();
    if let Some(name) = settings
        .keys()
        .find(|name| !model.clips.iter().any(|c| c.name == **name))
    {
        return Err(anyhow!(
            "{}: clip_settings names clip '{name}', which {} does not have",
            settings_file(args),
            args.model
        ));
    }
    // A new name must not be another clip's (as the editor refuses it): `--clip` and blend nodes would not know
    // which one they name.
    for (i, clip) in model.clips.iter().enumerate() {
        let Some(new) = settings.get(&clip.name).and_then(|s| s.name.as_ref()) else {
            continue;
        };
        if let Some(other) = model.clips.iter().enumerate().find(|(k, c)| {
            *k != i && crate::offline::request::settled_name(&c.name, &settings) == new
        }) {
            return Err(anyhow!(
                "{}: clip_settings renames clip '{}' to '{new}', which clip '{}' is already named",
                settings_file(args),
                clip.name,
                other.1.name
            ));
        }
    }
    Ok((model, settings))
}

/// The retarget IK goals `--ik-goals` and its flags ask for, else the preset's.
fn ik_goals(args: &super::ModelArgs, preset: Option<&Preset>) -> Result<crate::core::IkGoals> {
    let Some(chains) = &args.ik_goals else {
        return Ok(preset.map(|p| p.ik_goals).unwrap_or_default());
    };
    let mut goals = crate::core::IkGoals::parse_chains(chains)
        .map_err(|e| anyhow!("--ik-goals {chains}: {e}"))?;
    if let Some(b) = args.blend_to_source {
        if !(b.is_finite() && (0.0..=1.0).contains(&b)) {
            return Err(anyhow!(
                "--blend-to-source {b}: expected a number from 0 to 1"
            ));
        }
        goals.feet.blend_to_source = b;
        goals.hands.blend_to_source = b;
    }
    if let Some(cm_s) = args.plant_speed {
        if !(cm_s.is_finite() && (0.0..=1000.0).contains(&cm_s)) {
            return Err(anyhow!(
                "--plant-speed {cm_s}: expected a speed from 0 to 1000 cm/s"
            ));
        }
        goals.plant_speed_m_s = cm_s / 100.0;
        goals.feet.plant = cm_s > 0.0;
        goals.hands.plant = cm_s > 0.0;
    }
    Ok(goals)
}

/// The Unity controller `--controller` names, imported within the file-size limit, with what does not play as in
/// Unity printed as `note:` lines naming it.
pub fn open_controller(
    path: &Path,
) -> Result<crate::import::unity::to_machine::ImportedController> {
    let limit = crate::import::Limits::from_env().max_file_bytes;
    let path = &crate::import::unity::to_machine::controller_in(path)?;
    let imported = crate::import::unity::to_machine::import(path, limit)?;
    for note in &imported.notes {
        noteln!("note: {}: {note}", path.display());
    }
    Ok(imported)
}
