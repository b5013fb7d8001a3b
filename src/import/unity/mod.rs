//! A Unity project's own animation assets in Unity's text serialization: controllers, override controllers,
//! avatar masks, blend trees and `.anim` clips. [`yaml`] reads the files, [`controller`], [`mask`] and [`anim`]
//! read the objects into Unity's model, [`curve`] evaluates AnimationCurves as Unity does. [`describe`] is what
//! `inspect` prints: what a file holds, and what the tool does not preview, one line each. `.anim` clips play
//! ([`anim_clip`], [`muscle_clip`], through [`load_clips`]); controllers and override controllers play as state
//! machines ([`to_machine`]); a model's avatar in its `.meta` maps its humanoid ([`avatar`]).

pub mod anim;
pub mod anim_clip;
pub mod avatar;
pub mod body_centre;
pub mod controller;
pub mod curve;
pub mod mask;
pub mod muscle_clip;
pub mod muscles;
pub mod project;
pub mod to_machine;
pub mod yaml;

use std::path::Path;

use controller::{Machine, Motion, ParameterValue};
pub use yaml::UnityError;

/// File extensions of Unity's text assets read here.
pub const EXTENSIONS: [&str; 5] = ["controller", "overridecontroller", "mask", "anim", "asset"];

/// Whether `path` names one of Unity's text assets read here (by extension).
pub fn is_unity_asset(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// What a Unity asset holds, for `inspect`.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Description {
    /// The kind of asset (`AnimatorController`, `AnimationClip`, ...).
    pub kind: String,
    /// Its name.
    pub name: String,
    /// What it holds, one line each.
    pub lines: Vec<String>,
    /// What it holds that the tool does not preview, one line each.
    pub unsupported: Vec<String>,
}

/// How an asset of `kind` plays, the last line of its description (clips say so in their own lines).
fn how_it_plays(kind: &str) -> Option<&'static str> {
    match kind {
        "AnimatorController" => Some(
            "plays as a state machine (pose/bake --controller, File > Open Unity controller): its base layer, \
             and each layer above with its states, blending and mask",
        ),
        "AnimatorOverrideController" => Some(
            "plays as its base controller with its clips swapped (pose/bake --controller, File > Open Unity \
             controller)",
        ),
        "AvatarMask" => Some("plays as the mask of the controller layers that name it"),
        "BlendTree" => Some("plays in the controller states that name it"),
        _ => None,
    }
}

/// The clips of a `.anim` file as the tool's clips (generic ones by path, humanoid ones by human bone: see
/// [`anim_clip::to_clip`]), and what they hold that does not play, one line each.
pub fn load_clips(
    path: &Path,
    max_bytes: u64,
) -> Result<(Vec<crate::core::Clip>, Vec<String>), UnityError> {
    let file = yaml::read(path, max_bytes)?;
    let unity = anim::clips(&file, path)?;
    if unity.is_empty() {
        return Err(UnityError::new(path, "holds no AnimationClip (class 74)"));
    }
    let mut notes = Vec::new();
    let mut clips = Vec::new();
    for u in &unity {
        clips.push(anim_clip::to_clip(u).map_err(|m| UnityError::new(path, m))?);
        notes.extend(
            u.unsupported
                .iter()
                .map(|n| format!("clip '{}': {n}", u.name)),
        );
    }
    Ok((clips, notes))
}

/// Reads the Unity asset at `path` (at most `max_bytes`) and says what it holds.
pub fn describe(path: &Path, max_bytes: u64) -> Result<Description, UnityError> {
    let mut d = describe_file(path, max_bytes)?;
    if let Some(plays) = how_it_plays(&d.kind) {
        d.lines.push(plays.to_string());
    }
    Ok(d)
}

fn describe_file(path: &Path, max_bytes: u64) -> Result<Description, UnityError> {
    let file = yaml::read(path, max_bytes)?;
    let classes = |id: u32| file.of_class(id).count();
    if classes(controller::class::CONTROLLER) > 0 {
        let c = controller::read(&file, path)?;
        let project = project::Project::around(path)?;
        return Ok(describe_controller(&c, &project));
    }
    if classes(controller::class::OVERRIDE_CONTROLLER) > 0 {
        let o = mask::read_override(&file, path)?;
        let project = project::Project::around(path)?;
        let mut unresolved = Vec::new();
        let mut name = |r: &yaml::ObjectRef| describe_ref(r, &project, &mut unresolved);
        let mut lines = vec![format!("base controller: {}", name(&o.base))];
        lines.extend(
            o.clips
                .iter()
                .map(|(from, to)| format!("clip {} -> {}", name(from), name(to))),
        );
        return Ok(Description {
            kind: "AnimatorOverrideController".into(),
            name: o.name.clone(),
            lines,
            unsupported: unresolved_line(&unresolved),
        });
    }
    if classes(controller::class::AVATAR_MASK) > 0 {
        let m = mask::read_mask(&file, path)?;
        let on: Vec<&str> = mask::BODY_PARTS
            .iter()
            .zip(m.body_parts)
            .filter(|(_, on)| *on)
            .map(|(p, _)| *p)
            .collect();
        let weighted = m.elements.iter().filter(|(_, w)| *w > 0.0).count();
        return Ok(Description {
            kind: "AvatarMask".into(),
            name: m.name.clone(),
            lines: vec![
                format!(
                    "body parts animated: {}",
                    if on.is_empty() {
                        "none".to_string()
                    } else {
                        on.join(", ")
                    }
                ),
                format!(
                    "{} transform path(s), {weighted} with weight",
                    m.elements.len()
                ),
            ],
            unsupported: Vec::new(),
        });
    }
    if classes(anim::CLASS_ANIMATION_CLIP) > 0 {
        let clips = anim::clips(&file, path)?;
        let mut d = Description {
            kind: "AnimationClip".into(),
            ..Description::default()
        };
        for c in &clips {
            d.name = c.name.clone();
            d.lines.push(format!(
                "'{}': {}, {} transform curve(s), {} float curve(s), {} keys, {:.3} s at {} fps",
                c.name,
                if c.humanoid {
                    "humanoid (muscle curves)"
                } else {
                    "generic"
                },
                c.transforms.len(),
                c.floats.len(),
                c.key_count(),
                c.duration(),
                c.sample_rate
            ));
            let s = &c.settings;
            d.lines.push(format!(
                "settings: {:.3} to {:.3} s, loop time {}, loop pose {}, cycle offset {}, mirror {}",
                s.start, s.stop, s.loop_time, s.loop_pose, s.cycle_offset, s.mirror
            ));
            d.unsupported.extend(c.unsupported.iter().cloned());
        }
        return Ok(d);
    }
    if classes(controller::class::BLEND_TREE) > 0 {
        let trees: Vec<&yaml::Document> = file.of_class(controller::class::BLEND_TREE).collect();
        return Ok(Description {
            kind: "BlendTree".into(),
            name: trees[0].fields.str("m_Name").unwrap_or("").to_string(),
            lines: trees
                .iter()
                .map(|t| {
                    format!(
                        "tree '{}': type {}, {} child(ren)",
                        t.fields.str("m_Name").unwrap_or(""),
                        t.fields.i64("m_BlendType").unwrap_or(0),
                        t.fields.get("m_Childs").map_or(0, |c| c.items().len())
                    )
                })
                .collect(),
            unsupported: Vec::new(),
        });
    }
    let found: Vec<String> = file
        .documents
        .iter()
        .take(5)
        .map(|d| format!("{} (class {})", d.class_name, d.class_id))
        .collect();
    Err(UnityError::new(
        path,
        format!(
            "holds no controller, override controller, mask, clip or blend tree (found: {})",
            if found.is_empty() {
                "nothing".to_string()
            } else {
                found.join(", ")
            }
        ),
    ))
}

/// A reference as the user knows it: the asset's path in the project (and the clip's name in a model), or
/// the GUID when the project does not hold it (noted in `unresolved`).
fn describe_ref(
    r: &yaml::ObjectRef,
    project: &project::Project,
    unresolved: &mut Vec<String>,
) -> String {
    let Some(guid) = &r.guid else {
        return format!("object {} in this file", r.file_id);
    };
    match project.resolve(r) {
        Some(found) => {
            let path = found
                .path
                .strip_prefix(&project.root)
                .unwrap_or(&found.path)
                .display()
                .to_string();
            match found.sub_asset {
                Some(clip) => format!("{path}: {clip}"),
                None => path,
            }
        }
        None => {
            if !unresolved.contains(guid) {
                unresolved.push(guid.clone());
            }
            format!("asset {guid} (not in the project folder)")
        }
    }
}

/// The line naming references the project folder does not hold (none when all resolved).
fn unresolved_line(unresolved: &[String]) -> Vec<String> {
    if unresolved.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "{} referenced asset(s) are not in the project folder: {}",
        unresolved.len(),
        unresolved
            .iter()
            .take(4)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    )]
}

/// What a state plays, in a few words.
fn describe_motion(
    motion: Option<&Motion>,
    project: &project::Project,
    unresolved: &mut Vec<String>,
) -> String {
    match motion {
        None => "nothing".into(),
        Some(Motion::Clip(r)) => describe_ref(r, project, unresolved),
        Some(Motion::Tree(t)) => {
            // Its children's clips count among the references, resolved or not.
            for child in &t.children {
                describe_motion(child.motion.as_ref(), project, unresolved);
            }
            format!(
                "blend tree '{}' ({:?}, {} children)",
                t.name,
                t.blend_type,
                t.children.len()
            )
        }
    }
}

fn describe_controller(c: &controller::Controller, project: &project::Project) -> Description {
    let mut lines = Vec::new();
    let mut unresolved = Vec::new();
    let params: Vec<String> = c
        .parameters
        .iter()
        .map(|p| {
            let kind = match p.value {
                ParameterValue::Float(v) => format!("float {v}"),
                ParameterValue::Int(v) => format!("int {v}"),
                ParameterValue::Bool(v) => format!("bool {v}"),
                ParameterValue::Trigger => "trigger".into(),
            };
            format!("{} ({kind})", p.name)
        })
        .collect();
    lines.push(format!(
        "parameters: {}",
        if params.is_empty() {
            "none".to_string()
        } else {
            params.join(", ")
        }
    ));
    for (i, l) in c.layers.iter().enumerate() {
        let mut what = format!(
            "layer {i} '{}': weight {}, {}",
            l.name,
            l.weight,
            match l.blending {
                controller::Blending::Override => "override",
                controller::Blending::Additive => "additive",
            }
        );
        if let Some(m) = &l.mask {
            what.push_str(&format!(
                ", mask {}",
                describe_ref(m, project, &mut unresolved)
            ));
        }
        if let Some(s) = l.synced_to {
            what.push_str(&format!(", synced to layer {s}"));
            if l.synced_timing {
                what.push_str(" with Timing");
            }
        }
        if let Some(m) = &l.machine {
            let (states, machines, transitions, trees) = tally(m);
            what.push_str(&format!(
                "; {states} state(s), {machines} sub-state machine(s), {transitions} transition(s), {trees} blend tree(s)"
            ));
        }
        lines.push(what);
        if let Some(m) = &l.machine {
            let plays: Vec<String> = machine_states(m)
                .into_iter()
                .map(|s| {
                    format!(
                        "{} ({})",
                        s.name,
                        describe_motion(s.motion.as_ref(), project, &mut unresolved)
                    )
                })
                .collect();
            const SHOWN: usize = 8;
            let more = plays.len().saturating_sub(SHOWN);
            let mut text = plays.into_iter().take(SHOWN).collect::<Vec<_>>().join(", ");
            if more > 0 {
                text.push_str(&format!(" and {more} more"));
            }
            lines.push(format!("  states: {text}"));
        }
    }
    let mut unsupported = c.unsupported.clone();
    unsupported.extend(unresolved_line(&unresolved));
    Description {
        kind: "AnimatorController".into(),
        name: c.name.clone(),
        lines,
        unsupported,
    }
}

/// Every state of a machine and its sub-machines.
fn machine_states(m: &Machine) -> Vec<&controller::State> {
    let mut out: Vec<&controller::State> = m.states.iter().collect();
    for c in &m.children {
        out.extend(machine_states(c));
    }
    out
}

/// States, sub-machines, transitions and blend trees under a machine.
fn tally(m: &Machine) -> (usize, usize, usize, usize) {
    fn trees(motion: &Motion) -> usize {
        match motion {
            Motion::Clip(_) => 0,
            Motion::Tree(t) => {
                1 + t
                    .children
                    .iter()
                    .filter_map(|c| c.motion.as_ref())
                    .map(trees)
                    .sum::<usize>()
            }
        }
    }
    let mut out = (
        m.states.len(),
        m.children.len(),
        m.any_state.len()
            + m.entry.len()
            + m.machine_transitions
                .iter()
                .map(|(_, t)| t.len())
                .sum::<usize>()
            + m.states.iter().map(|s| s.transitions.len()).sum::<usize>(),
        m.states
            .iter()
            .filter_map(|s| s.motion.as_ref())
            .map(trees)
            .sum(),
    );
    for c in &m.children {
        let t = tally(c);
        out = (out.0 + t.0, out.1 + t.1, out.2 + t.2, out.3 + t.3);
    }
    out
}
