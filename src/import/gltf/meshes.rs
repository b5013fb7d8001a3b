//! Meshes: triangle primitives (positions, normals, UVs, joints and weights, indices) and where each mesh
//! sits (skinned, under a joint, or fixed in the model).

use std::collections::HashMap;

use ::gltf as gl;
use glam::{Mat4, Vec3};

use super::nodes::NodeGraph;
use crate::core::mesh::{Mesh, MeshPlacement, MorphSet, MorphTarget, Primitive};

/// Every mesh of the scene's nodes; `facing_fix` turns meshes fixed in the model like the skeleton.
pub(super) fn read_meshes(
    document: &gl::Document,
    buffers: &[gl::buffer::Data],
    nodes: &NodeGraph,
    node_to_joint: &HashMap<usize, usize>,
    facing_fix: Mat4,
    notes: &mut Vec<String>,
) -> Result<Vec<Mesh>, String> {
    let get = |b: gl::Buffer| buffers.get(b.index()).map(|d| d.0.as_slice());
    let mut meshes = Vec::new();
    let all_nodes: Vec<gl::Node> = document.nodes().collect();
    for node in nodes.in_scene.iter().map(|&n| &all_nodes[n]) {
        let Some(mesh) = node.mesh() else { continue };
        let placement = match node.skin() {
            Some(skin) => MeshPlacement::Skinned { skin: skin.index() },
            None => match nodes.joint_ancestor(node.index(), node_to_joint) {
                Some((joint, offset)) => MeshPlacement::Joint { joint, offset },
                None => MeshPlacement::Model {
                    transform: facing_fix * nodes.world(node.index()),
                },
            },
        };
        let skin_joints = node.skin().map(|s| s.joints().count());
        let mut primitives = Vec::new();
        for prim in mesh.primitives() {
            let what = format!(
                "mesh '{}' primitive {}",
                mesh.name().unwrap_or_default(),
                prim.index()
            );
            if prim.mode() != gl::mesh::Mode::Triangles {
                notes.push(format!(
                    "{what}: {:?} primitives are not drawn",
                    prim.mode()
                ));
                continue;
            }
            match read_primitive(&prim, get, skin_joints).map_err(|m| format!("{what}: {m}"))? {
                Some(p) => primitives.push(p),
                None => notes.push(format!("{what}: no POSITION attribute, skipped")),
            }
        }
        let morph = morph_set(node, &mesh, &primitives)?;
        meshes.push(Mesh {
            name: mesh.name().or(node.name()).unwrap_or_default().to_string(),
            placement,
            primitives,
            morph,
        });
    }
    Ok(meshes)
}

/// The mesh's morph targets as a set: glTF requires every primitive to have the same number of targets, and
/// the node's `weights` (else the mesh's) to have one per target.
fn morph_set(
    node: &gl::Node,
    mesh: &gl::Mesh,
    primitives: &[Primitive],
) -> Result<Option<MorphSet>, String> {
    let what = format!("mesh '{}'", mesh.name().unwrap_or_default());
    let Some(count) = primitives.iter().map(|p| p.targets.len()).max() else {
        return Ok(None);
    };
    if count == 0 {
        return Ok(None);
    }
    if let Some(p) = primitives.iter().position(|p| p.targets.len() != count) {
        return Err(format!(
            "{what}: primitive {p} has {} morph targets where another has {count} (glTF requires the same number)",
            primitives[p].targets.len()
        ));
    }
    let default_weights = match node.weights().or(mesh.weights()) {
        Some(w) if w.len() == count => w
            .iter()
            .map(|&x| if x.is_finite() { x } else { 0.0 })
            .collect(),
        Some(w) => {
            return Err(format!(
                "{what}: {} default weights for {count} morph targets",
                w.len()
            ));
        }
        None => vec![0.0; count],
    };
    let mut target_names: Vec<String> = mesh
        .extras()
        .as_ref()
        .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
        .and_then(|v| {
            v.get("targetNames")?.as_array().map(|names| {
                names
                    .iter()
                    .map(|n| n.as_str().unwrap_or_default().to_string())
                    .collect()
            })
        })
        .unwrap_or_default();
    target_names.resize(count, String::new());
    for (i, name) in target_names.iter_mut().enumerate() {
        if name.is_empty() {
            *name = format!("target {i}");
        }
    }
    Ok(Some(MorphSet {
        node: node.name().or(mesh.name()).unwrap_or_default().to_string(),
        mesh: mesh.name().unwrap_or_default().to_string(),
        target_names,
        default_weights,
    }))
}

/// The primitive's morph targets: POSITION displacements (zeros where a target has none) and NORMAL ones.
fn read_targets<'a, 's, F>(
    reader: &gl::mesh::Reader<'a, 's, F>,
    n: usize,
) -> Result<Vec<MorphTarget>, String>
where
    F: Clone + Fn(gl::Buffer<'a>) -> Option<&'s [u8]>,
{
    let mut targets = Vec::new();
    for (t, (positions, normals, _tangents)) in reader.read_morph_targets().enumerate() {
        let read = |it: Option<gl::accessor::Iter<'s, [f32; 3]>>, what: &str| {
            let Some(it) = it else {
                return Ok(None);
            };
            let v: Vec<[f32; 3]> = it.collect();
            if v.len() != n {
                return Err(format!(
                    "morph target {t} {what} has {} entries for {n} vertices",
                    v.len()
                ));
            }
            if v.iter().flatten().any(|x| !x.is_finite()) {
                return Err(format!("morph target {t} {what} holds NaN or infinity"));
            }
            Ok(Some(v))
        };
        let positions = read(positions, "POSITION")?.unwrap_or_else(|| vec![[0.0; 3]; n]);
        let normals = read(normals, "NORMAL")?;
        targets.push(MorphTarget { positions, normals });
    }
    Ok(targets)
}

fn read_primitive<'a, 's, F>(
    prim: &'a gl::Primitive<'a>,
    get: F,
    skin_joints: Option<usize>,
) -> Result<Option<Primitive>, String>
where
    F: Clone + Fn(gl::Buffer<'a>) -> Option<&'s [u8]>,
{
    let reader = prim.reader(get);
    let Some(positions) = reader.read_positions() else {
        return Ok(None);
    };
    let positions: Vec<[f32; 3]> = positions.collect();
    let n = positions.len();
    if positions.iter().flatten().any(|v| !v.is_finite()) {
        return Err("POSITION holds NaN or infinity".into());
    }
    let indices: Vec<u32> = match reader.read_indices() {
        Some(i) => i.into_u32().collect(),
        None => (0..n as u32).collect(),
    };
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= n) {
        return Err(format!("index {bad} is past the {n} vertices"));
    }
    let indices: Vec<u32> = indices.chunks_exact(3).flatten().copied().collect();
    let normals = match reader.read_normals() {
        Some(it) => {
            let v: Vec<[f32; 3]> = it.collect();
            if v.len() != n {
                return Err(format!("NORMAL has {} entries for {n} vertices", v.len()));
            }
            v.into_iter()
                .map(|x| Vec3::from(x).try_normalize().unwrap_or(Vec3::Y).to_array())
                .collect()
        }
        None => generate_normals(&positions, &indices),
    };
    let uvs = reader
        .read_tex_coords(0)
        .map(|t| t.into_f32().collect::<Vec<_>>());
    if uvs.as_ref().is_some_and(|u| u.len() != n) {
        return Err("TEXCOORD_0 count differs from POSITION".into());
    }
    let joints = reader
        .read_joints(0)
        .map(|j| j.into_u16().collect::<Vec<_>>());
    let weights = reader.read_weights(0).map(|w| {
        w.into_f32()
            .map(|w| {
                let w = w.map(|x| if x.is_finite() { x.max(0.0) } else { 0.0 });
                let s: f32 = w.iter().sum();
                if s > 0.0 {
                    w.map(|x| x / s)
                } else {
                    [1.0, 0.0, 0.0, 0.0]
                }
            })
            .collect::<Vec<_>>()
    });
    if let Some(j) = &joints {
        if j.len() != n || weights.as_ref().is_none_or(|w| w.len() != n) {
            return Err("JOINTS_0 / WEIGHTS_0 counts differ from POSITION".into());
        }
        if let Some(limit) = skin_joints
            && let Some((v, bad)) = j
                .iter()
                .enumerate()
                .find_map(|(v, js)| js.iter().find(|&&x| x as usize >= limit).map(|x| (v, *x)))
        {
            return Err(format!(
                "vertex {v} uses joint {bad}, past the skin's {limit} joints"
            ));
        }
    }
    let targets = read_targets(&reader, n)?;
    Ok(Some(Primitive {
        targets,
        positions,
        normals,
        uvs,
        joints,
        weights,
        indices,
        material: prim.material().index(),
    }))
}

/// Area-weighted vertex normals for meshes that have none.
pub fn generate_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut acc = vec![Vec3::ZERO; positions.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| Vec3::from(positions[i as usize]));
        let n = (b - a).cross(c - a);
        for &i in tri {
            acc[i as usize] += n;
        }
    }
    acc.into_iter()
        .map(|n| n.try_normalize().unwrap_or(Vec3::Y).to_array())
        .collect()
}
