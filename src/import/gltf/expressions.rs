//! VRM expressions: VRM 1.0's `VRMC_vrm.expressions` (presets and custom) or VRM 0.x's
//! `blendShapeMaster.blendShapeGroups`, read as three-vrm 3.5.5's `VRMExpressionLoaderPlugin` reads them:
//! - 1.0: a preset must have a preset name and a custom one must not; a morph-target bind names a node (its
//!   mesh) and a target index, weight 1 by default; `isBinary` and the three overrides are read;
//! - 0.x: the preset name maps to 1.0's (`a` → `aa`, `joy` → `happy`, `sorrow` → `sad`, `fun` → `relaxed`…),
//!   else the group's name; a repeated name is skipped; a bind names a mesh, which binds every node showing it,
//!   and its weight (0 to 100) is scaled to 0 to 1;
//! - a bind whose target index is past the mesh's targets is skipped (one note per expression names the first
//!   and counts the others).
//!
//! Material colour and texture-transform binds (and 0.x material values) are not applied: one warning names the
//! expressions that have them.
//!
//! Bounds: a file with more than [`MAX_EXPRESSIONS`] expressions (1.0's presets and custom ones together, or
//! 0.x's blend shape groups, counted as listed), or an expression with more than [`MAX_EXPRESSION_BINDS`]
//! morph-target binds (as listed, and for 0.x once each bind is spread over the nodes showing its mesh), is
//! refused, naming the count and the limit; both are checked before the list is read. Reading takes time linear
//! in the file's expressions and binds.

use std::collections::{HashMap, HashSet};

use ::gltf as gl;
use serde_json::Value;

use super::nodes::NodeGraph;
use crate::core::expression::{Expression, ExpressionOverride, MorphBind, VRM_PRESETS};
use crate::core::mesh::Mesh;
use crate::core::vrm_look_at::{LookAtKind, RangeMap, VrmLookAt};

/// The most expressions a model may have: real models have the 18 presets and up to a few hundred custom ones
/// (ARKit's 52 blend shapes and visemes among them).
pub const MAX_EXPRESSIONS: usize = 1_024;

/// The most morph-target binds one expression may have: real ones bind a few targets on a few meshes.
pub const MAX_EXPRESSION_BINDS: usize = 256;

/// Refuses an expression with `count` binds, over [`MAX_EXPRESSION_BINDS`].
fn check_binds(name: &str, count: usize) -> Result<(), String> {
    if count > MAX_EXPRESSION_BINDS {
        return Err(format!(
            "expression '{name}' has {count} morph-target binds, more than the {MAX_EXPRESSION_BINDS} an \
             expression may have"
        ));
    }
    Ok(())
}

/// Refuses `count` expressions, over [`MAX_EXPRESSIONS`]; `what` says where they are listed.
fn check_expressions(what: &str, count: usize) -> Result<(), String> {
    if count > MAX_EXPRESSIONS {
        return Err(format!(
            "{what}: {count} expressions, more than the {MAX_EXPRESSIONS} a model may have"
        ));
    }
    Ok(())
}

/// three-vrm's `v0v1PresetNameMap`.
fn vrm1_preset_of(v0: &str) -> Option<&'static str> {
    Some(match v0 {
        "a" => "aa",
        "e" => "ee",
        "i" => "ih",
        "o" => "oh",
        "u" => "ou",
        "blink" => "blink",
        "joy" => "happy",
        "angry" => "angry",
        "sorrow" => "sad",
        "fun" => "relaxed",
        "lookup" => "lookUp",
        "lookdown" => "lookDown",
        "lookleft" => "lookLeft",
        "lookright" => "lookRight",
        "blink_l" => "blinkLeft",
        "blink_r" => "blinkRight",
        "neutral" => "neutral",
        _ => return None,
    })
}

fn override_of(v: &Value, key: &str) -> ExpressionOverride {
    match v.get(key).and_then(Value::as_str) {
        Some("block") => ExpressionOverride::Block,
        Some("blend") => ExpressionOverride::Blend,
        _ => ExpressionOverride::None,
    }
}

/// The character's mesh index of each scene node with a mesh (meshes are read one per such node, in scene
/// order).
fn mesh_of_node(document: &gl::Document, graph: &NodeGraph) -> HashMap<usize, usize> {
    let has_mesh: Vec<bool> = document.nodes().map(|n| n.mesh().is_some()).collect();
    graph
        .in_scene
        .iter()
        .filter(|&&n| has_mesh[n])
        .enumerate()
        .map(|(mesh, &node)| (node, mesh))
        .collect()
}

/// What the reader needs about the character's meshes.
struct Targets<'a> {
    mesh_of_node: HashMap<usize, usize>,
    meshes: &'a [Mesh],
    /// Expressions with binds left unapplied (material colours, texture transforms).
    unapplied: Vec<String>,
    notes: Vec<String>,
    /// Binds of the expression being read skipped for a target past their mesh's (the first is noted).
    skipped: usize,
}

impl Targets<'_> {
    /// Notes how many more of `expression`'s binds were skipped than the one noted, and starts the count again.
    fn end_expression(&mut self, expression: &str) {
        if self.skipped > 1 {
            self.notes.push(format!(
                "expression '{expression}': {} more binds past their mesh's morph targets skipped",
                self.skipped - 1
            ));
        }
        self.skipped = 0;
    }

    /// A bind of target `index` on the mesh node `node` shows, if the mesh has that target.
    fn bind(
        &mut self,
        expression: &str,
        node: usize,
        index: usize,
        weight: f32,
    ) -> Option<MorphBind> {
        let mesh = *self.mesh_of_node.get(&node)?;
        let targets = self.meshes[mesh]
            .morph
            .as_ref()
            .map_or(0, |m| m.target_names.len());
        if index >= targets {
            if self.skipped == 0 {
                self.notes.push(format!(
                    "expression '{expression}' binds morph target {index} of mesh '{}', which has {targets}; skipped",
                    self.meshes[mesh].name
                ));
            }
            self.skipped += 1;
            return None;
        }
        Some(MorphBind {
            mesh,
            target: index,
            weight: if weight.is_finite() { weight } else { 0.0 },
        })
    }
}

/// The VRM's look-at, read as three-vrm's `VRMLookAtLoaderPlugin` reads it: VRM 1.0 `lookAt` (`type`, range
/// maps with `inputMaxValue` 90 and `outputScale` 10 for bones, 1 for expressions by default) or VRM 0.x
/// `firstPerson` (`lookAtTypeName`, degree maps' `xRange` and `yRange`; their curves are not read, as three-vrm
/// does not). An input range below 0.01° is raised to it.
pub(super) fn look_at(document: &gl::Document) -> Option<VrmLookAt> {
    let range = |v: Option<&Value>, input: &str, output: &str, default_scale: f32| RangeMap {
        input_max_deg: v
            .and_then(|v| v.get(input))
            .and_then(Value::as_f64)
            .map_or(90.0, |x| x as f32)
            .max(0.01),
        output_scale: v
            .and_then(|v| v.get(output))
            .and_then(Value::as_f64)
            .map_or(default_scale, |x| x as f32),
    };
    let (l, kind, keys) = if let Some(l) = document
        .extension_value("VRMC_vrm")
        .and_then(|v| v.get("lookAt"))
    {
        let kind = if l.get("type").and_then(Value::as_str) == Some("expression") {
            LookAtKind::Expression
        } else {
            LookAtKind::Bone
        };
        let keys = [
            "rangeMapHorizontalInner",
            "rangeMapHorizontalOuter",
            "rangeMapVerticalDown",
            "rangeMapVerticalUp",
        ];
        (l, kind, (keys, "inputMaxValue", "outputScale"))
    } else {
        let l = document
            .extension_value("VRM")
            .and_then(|v| v.get("firstPerson"))?;
        let kind = if l.get("lookAtTypeName").and_then(Value::as_str) == Some("BlendShape") {
            LookAtKind::Expression
        } else {
            LookAtKind::Bone
        };
        let keys = [
            "lookAtHorizontalInner",
            "lookAtHorizontalOuter",
            "lookAtVerticalDown",
            "lookAtVerticalUp",
        ];
        (l, kind, (keys, "xRange", "yRange"))
    };
    let scale = match kind {
        LookAtKind::Bone => 10.0,
        LookAtKind::Expression => 1.0,
    };
    let (names, input, output) = keys;
    let [hi, ho, vd, vu] = names.map(|n| range(l.get(n), input, output, scale));
    Some(VrmLookAt {
        kind,
        horizontal_inner: hi,
        horizontal_outer: ho,
        vertical_down: vd,
        vertical_up: vu,
    })
}

/// The file's expressions, or None when it has none (VRM 1.0 first, as three-vrm reads). Notes and the warning
/// about binds left unapplied go to `notes` and `warnings`. Err: the expressions are over a bound (see the module
/// docs), saying which.
pub(super) fn read(
    document: &gl::Document,
    graph: &NodeGraph,
    meshes: &[Mesh],
    notes: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<Expression>>, String> {
    let mut t = Targets {
        mesh_of_node: mesh_of_node(document, graph),
        meshes,
        unapplied: Vec::new(),
        notes: Vec::new(),
        skipped: 0,
    };
    let out = if let Some(e) = document
        .extension_value("VRMC_vrm")
        .and_then(|v| v.get("expressions"))
    {
        read_vrm1(e, &mut t).map_err(|e| format!("VRMC_vrm expressions: {e}"))?
    } else {
        let Some(groups) = document
            .extension_value("VRM")
            .and_then(|v| v.pointer("/blendShapeMaster/blendShapeGroups"))
            .and_then(Value::as_array)
        else {
            return Ok(None);
        };
        read_vrm0(document, groups, &mut t).map_err(|e| format!("VRM blendShapeMaster: {e}"))?
    };
    notes.append(&mut t.notes);
    if !t.unapplied.is_empty() {
        let (noun, verb) = if t.unapplied.len() == 1 {
            ("expression", "changes")
        } else {
            ("expressions", "change")
        };
        let warning = format!(
            "{noun} {} {verb} material colours or texture offsets, which animtune does not apply (their morph \
             targets move)",
            t.unapplied.join(", ")
        );
        notes.push(warning.clone());
        warnings.push(warning);
    }
    Ok(Some(out))
}

fn read_vrm1(expressions: &Value, t: &mut Targets) -> Result<Vec<Expression>, String> {
    let listed: usize = ["preset", "custom"]
        .iter()
        .filter_map(|kind| expressions.get(kind).and_then(Value::as_object))
        .map(serde_json::Map::len)
        .sum();
    check_expressions("preset and custom", listed)?;
    let mut out = Vec::with_capacity(listed);
    for (kind, preset) in [("preset", true), ("custom", false)] {
        let Some(map) = expressions.get(kind).and_then(Value::as_object) else {
            continue;
        };
        for (name, e) in map {
            if VRM_PRESETS.contains(&name.as_str()) != preset {
                t.notes.push(format!(
                    "expression '{name}': {} ignored",
                    if preset {
                        "not a VRM preset name,"
                    } else {
                        "a custom expression cannot take a preset name,"
                    }
                ));
                continue;
            }
            let mut x = Expression::new(name.clone(), Vec::new());
            x.is_binary = e.get("isBinary").and_then(Value::as_bool).unwrap_or(false);
            x.override_blink = override_of(e, "overrideBlink");
            x.override_look_at = override_of(e, "overrideLookAt");
            x.override_mouth = override_of(e, "overrideMouth");
            let binds = e
                .get("morphTargetBinds")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            check_binds(name, binds.len())?;
            for b in binds {
                let (Some(node), Some(index)) = (
                    b.get("node").and_then(Value::as_u64),
                    b.get("index").and_then(Value::as_u64),
                ) else {
                    continue;
                };
                let weight = b.get("weight").and_then(Value::as_f64).unwrap_or(1.0) as f32;
                x.binds
                    .extend(t.bind(name, node as usize, index as usize, weight));
            }
            t.end_expression(name);
            let has = |key: &str| {
                e.get(key)
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty())
            };
            if has("materialColorBinds") || has("textureTransformBinds") {
                t.unapplied.push(format!("'{name}'"));
            }
            out.push(x);
        }
    }
    Ok(out)
}

fn read_vrm0(
    document: &gl::Document,
    groups: &[Value],
    t: &mut Targets,
) -> Result<Vec<Expression>, String> {
    check_expressions("blendShapeGroups", groups.len())?;
    let mut out: Vec<Expression> = Vec::with_capacity(groups.len());
    let mut names: HashSet<String> = HashSet::with_capacity(groups.len());
    // The nodes showing each mesh, in node order.
    let mut nodes_of_mesh: HashMap<usize, Vec<usize>> = HashMap::new();
    for n in document.nodes() {
        if let Some(m) = n.mesh() {
            nodes_of_mesh.entry(m.index()).or_default().push(n.index());
        }
    }
    for g in groups {
        let preset = g
            .get("presetName")
            .and_then(Value::as_str)
            .and_then(vrm1_preset_of);
        let Some(name) = preset
            .map(str::to_string)
            .or_else(|| g.get("name").and_then(Value::as_str).map(str::to_string))
        else {
            t.notes
                .push("a blend shape group has no name; ignored".to_string());
            continue;
        };
        if !names.insert(name.clone()) {
            t.notes.push(format!(
                "expression '{name}' appears twice; the second is ignored"
            ));
            continue;
        }
        let mut x = Expression::new(name.clone(), Vec::new());
        x.is_binary = g.get("isBinary").and_then(Value::as_bool).unwrap_or(false);
        let binds = g
            .get("binds")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        check_binds(&name, binds.len())?;
        // Binds spread over the nodes showing their mesh, counted before they are made.
        let mut spread = 0usize;
        for b in binds {
            let (Some(mesh), Some(index)) = (
                b.get("mesh").and_then(Value::as_u64),
                b.get("index").and_then(Value::as_u64),
            ) else {
                continue;
            };
            let weight = 0.01 * b.get("weight").and_then(Value::as_f64).unwrap_or(100.0) as f32;
            let Some(nodes) = usize::try_from(mesh)
                .ok()
                .and_then(|m| nodes_of_mesh.get(&m))
            else {
                continue;
            };
            spread += nodes.len();
            if spread > MAX_EXPRESSION_BINDS {
                return Err(format!(
                    "expression '{name}' binds more than {MAX_EXPRESSION_BINDS} morph targets (the most an \
                     expression may have) once its binds are spread over the nodes showing their meshes"
                ));
            }
            for &node in nodes {
                x.binds.extend(t.bind(&name, node, index as usize, weight));
            }
        }
        t.end_expression(&name);
        if g.get("materialValues")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            t.unapplied.push(format!("'{name}'"));
        }
        out.push(x);
    }
    Ok(out)
}
