//! The glTF encoder: a `.glb` holding the character (skeleton nodes, meshes, skin, materials, textures) or only
//! its skeleton, plus the baked animation as LINEAR samplers; and the decoder that verifies it, reading only
//! the animation back with the `gltf` crate (no importer, no images). Every file written holds one animation
//! with at least one channel, so it opens as a clip of the bake's length in animtune and elsewhere; a morph-weight
//! track that drives no mesh of the character is left out (the bake notes it).

use glam::{Mat4, Quat, Vec3, Vec3A};
use serde_json::{Value, json};

use crate::clipfile::{BakedClip, BakedMorph, Channel};
use crate::core::mesh::{Mesh, MeshPlacement, Primitive};
use crate::core::{Character, Clip, Interpolation, Keys, Skeleton, Track, Transform};
use crate::io::glb::{Component, GlbBuilder, Target};
use crate::offline::compact::track_targets;

/// Node index of joint `j` (node 0 is the character root holding the transform above the skeleton).
fn joint_node(j: usize) -> usize {
    j + 1
}

fn trs_json(t: &Transform) -> Value {
    let mut node = json!({});
    if t.translation != Vec3A::ZERO {
        node["translation"] = json!(t.translation.to_array());
    }
    if t.rotation != Quat::IDENTITY {
        node["rotation"] = json!(t.rotation.normalize().to_array());
    }
    if t.scale != Vec3A::ONE {
        node["scale"] = json!(t.scale.to_array());
    }
    node
}

fn matrix_json(m: &Mat4) -> Value {
    json!(m.to_cols_array())
}

fn skeleton_nodes(skeleton: &Skeleton) -> Vec<Value> {
    let mut nodes =
        vec![json!({"name": "AnimtuneRoot", "matrix": matrix_json(&skeleton.root_transform())})];
    let roots: Vec<usize> = (0..skeleton.len())
        .filter(|&j| skeleton.parent(j).is_none())
        .map(joint_node)
        .collect();
    nodes[0]["children"] = json!(roots);
    if skeleton.root_transform() == Mat4::IDENTITY {
        nodes[0].as_object_mut().map(|o| o.remove("matrix"));
    }
    for j in 0..skeleton.len() {
        let mut node = trs_json(&skeleton.rest()[j]);
        node["name"] = json!(skeleton.name(j));
        let children: Vec<usize> = skeleton.children(j).map(joint_node).collect();
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        nodes.push(node);
    }
    nodes
}

fn primitive_json(glb: &mut GlbBuilder, p: &Primitive) -> Value {
    let flat3 = |v: &[[f32; 3]]| v.iter().flatten().copied().collect::<Vec<f32>>();
    let mut attributes = json!({
        "POSITION": glb.floats(&flat3(&p.positions), "VEC3", 3, Some(Target::Vertices), true)
    });
    if p.normals.len() == p.positions.len() && !p.normals.is_empty() {
        let normals: Vec<[f32; 3]> = p
            .normals
            .iter()
            .map(|n| Vec3::from_array(*n).normalize_or(Vec3::Y).to_array())
            .collect();
        attributes["NORMAL"] =
            json!(glb.floats(&flat3(&normals), "VEC3", 3, Some(Target::Vertices), false));
    }
    if let Some(uvs) = p.uvs.as_ref().filter(|u| u.len() == p.positions.len()) {
        let flat: Vec<f32> = uvs.iter().flatten().copied().collect();
        attributes["TEXCOORD_0"] =
            json!(glb.floats(&flat, "VEC2", 2, Some(Target::Vertices), false));
    }
    if let (Some(joints), Some(weights)) = (&p.joints, &p.weights) {
        let j: Vec<u32> = joints.iter().flatten().map(|&v| u32::from(v)).collect();
        attributes["JOINTS_0"] =
            json!(glb.uints(&j, Component::U16, "VEC4", 4, Some(Target::Vertices)));
        let w: Vec<f32> = weights
            .iter()
            .flat_map(|w| {
                let sum: f32 = w.iter().sum();
                if sum > 0.0 {
                    w.map(|x| x / sum)
                } else {
                    [1.0, 0.0, 0.0, 0.0]
                }
            })
            .collect();
        attributes["WEIGHTS_0"] = json!(glb.floats(&w, "VEC4", 4, Some(Target::Vertices), false));
    }
    let mut prim = json!({"attributes": attributes, "mode": 4});
    if !p.targets.is_empty() {
        let targets: Vec<Value> = p
            .targets
            .iter()
            .map(|t| {
                let mut target = json!({
                    "POSITION": glb.floats(&flat3(&t.positions), "VEC3", 3, Some(Target::Vertices), true)
                });
                if let Some(n) = t.normals.as_ref().filter(|n| n.len() == t.positions.len()) {
                    target["NORMAL"] = json!(glb.floats(&flat3(n), "VEC3", 3, Some(Target::Vertices), false));
                }
                target
            })
            .collect();
        prim["targets"] = json!(targets);
    }
    if !p.indices.is_empty() {
        prim["indices"] = json!(glb.uints(
            &p.indices,
            Component::U32,
            "SCALAR",
            1,
            Some(Target::Indices)
        ));
    }
    if let Some(m) = p.material {
        prim["material"] = json!(m);
    }
    prim
}

/// Meshes, materials, textures and skins of the character, appended to `document` and `nodes`; returns the node
/// of each mesh.
fn add_character(
    glb: &mut GlbBuilder,
    character: &Character,
    nodes: &mut Vec<Value>,
    scene: &mut Vec<usize>,
    document: &mut Value,
) -> Vec<usize> {
    let mut images = Vec::new();
    for t in &character.textures {
        let mut png = Vec::new();
        let ok = image::RgbaImage::from_raw(t.width, t.height, t.rgba.clone())
            .map(|img| {
                img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                    .is_ok()
            })
            .unwrap_or(false);
        let view = glb.bytes(if ok { &png } else { &[] });
        images.push(json!({"bufferView": view, "mimeType": "image/png"}));
    }
    let materials: Vec<Value> = character
        .materials
        .iter()
        .map(|m| {
            let mut pbr = json!({"baseColorFactor": m.base_color, "metallicFactor": 0.0, "roughnessFactor": 0.7});
            if let Some(t) = m.base_color_texture.filter(|&t| t < images.len()) {
                pbr["baseColorTexture"] = json!({"index": t});
            }
            json!({"name": m.name, "pbrMetallicRoughness": pbr, "doubleSided": m.double_sided})
        })
        .collect();
    let skins: Vec<Value> = character
        .skins
        .iter()
        .map(|s| {
            let ibm: Vec<f32> = s
                .inverse_bind
                .iter()
                .flat_map(|m| m.to_cols_array())
                .collect();
            json!({
                "name": s.name,
                "joints": s.joints.iter().map(|&j| joint_node(j)).collect::<Vec<_>>(),
                "inverseBindMatrices": glb.floats(&ibm, "MAT4", 16, None, false),
            })
        })
        .collect();
    let meshes: Vec<Value> = character
        .meshes
        .iter()
        .map(|m: &Mesh| {
            let primitives: Vec<Value> = m
                .primitives
                .iter()
                .map(|p| primitive_json(glb, p))
                .collect();
            let mut mesh = json!({"name": m.name, "primitives": primitives});
            if let Some(set) = &m.morph {
                mesh["weights"] = json!(set.default_weights);
                mesh["extras"] = json!({"targetNames": set.target_names});
            }
            mesh
        })
        .collect();
    let mut mesh_nodes = Vec::with_capacity(character.meshes.len());
    for (i, m) in character.meshes.iter().enumerate() {
        let index = nodes.len();
        mesh_nodes.push(index);
        // A morphed mesh's node keeps the source node's name: clips' `weights` channels bind to it by that name.
        let name = m
            .morph
            .as_ref()
            .map_or(m.name.as_str(), |s| s.node.as_str());
        match &m.placement {
            MeshPlacement::Skinned { skin } => {
                nodes.push(json!({"name": name, "mesh": i, "skin": skin}));
                scene.push(index);
            }
            MeshPlacement::Joint { joint, offset } => {
                nodes.push(json!({"name": name, "mesh": i, "matrix": matrix_json(offset)}));
                let parent = &mut nodes[joint_node(*joint)];
                let mut children: Vec<Value> =
                    parent["children"].as_array().cloned().unwrap_or_default();
                children.push(json!(index));
                parent["children"] = json!(children);
            }
            MeshPlacement::Model { transform } => {
                nodes.push(json!({"name": name, "mesh": i, "matrix": matrix_json(transform)}));
                scene.push(index);
            }
        }
    }
    if !meshes.is_empty() {
        document["meshes"] = json!(meshes);
    }
    if !materials.is_empty() {
        document["materials"] = json!(materials);
    }
    if !skins.is_empty() {
        document["skins"] = json!(skins);
    }
    if !images.is_empty() {
        let textures: Vec<Value> = (0..images.len())
            .map(|i| json!({"source": i, "sampler": 0}))
            .collect();
        document["images"] = json!(images);
        document["textures"] = json!(textures);
        document["samplers"] = json!([{"magFilter": 9729, "minFilter": 9987}]);
    }
    mesh_nodes
}

fn channel_json<T: Copy>(
    glb: &mut GlbBuilder,
    clip: &BakedClip,
    channel: &Channel<T>,
    flatten: impl Fn(T) -> Vec<f32>,
    kind: &str,
    width: usize,
) -> Option<(usize, usize)> {
    let (times, values): (Vec<f32>, Vec<T>) = match channel {
        Channel::Rest => return None,
        Channel::Constant(v) => (vec![0.0], vec![*v]),
        Channel::Keys { frames, values } => (
            frames.iter().map(|&f| clip.frame_time(f)).collect(),
            values.clone(),
        ),
    };
    let input = glb.floats(&times, "SCALAR", 1, None, true);
    let flat: Vec<f32> = values.into_iter().flat_map(flatten).collect();
    let output = glb.floats(&flat, kind, width, None, false);
    Some((input, output))
}

fn animation_json(glb: &mut GlbBuilder, skeleton: &Skeleton, clip: &BakedClip) -> Option<Value> {
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for track in &clip.tracks {
        let Some(j) = skeleton
            .find_by_path(&track.target.path)
            .or_else(|| skeleton.find_by_name(&track.target.name))
        else {
            continue;
        };
        let parts = [
            (
                "translation",
                channel_json(
                    glb,
                    clip,
                    &track.translation,
                    |v: Vec3| v.to_array().to_vec(),
                    "VEC3",
                    3,
                ),
            ),
            (
                "rotation",
                channel_json(
                    glb,
                    clip,
                    &track.rotation,
                    |q: Quat| q.normalize().to_array().to_vec(),
                    "VEC4",
                    4,
                ),
            ),
            (
                "scale",
                channel_json(
                    glb,
                    clip,
                    &track.scale,
                    |v: Vec3| v.to_array().to_vec(),
                    "VEC3",
                    3,
                ),
            ),
        ];
        for (path, found) in parts {
            if let Some((input, output)) = found {
                samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
                channels.push(json!({"sampler": samplers.len() - 1, "target": {"node": joint_node(j), "path": path}}));
            }
        }
    }
    (!channels.is_empty())
        .then(|| json!({"name": clip.name, "channels": channels, "samplers": samplers}))
}

/// Appends to an animation's JSON a sampler of the `input` and `output` accessors, and a channel driving `path` of
/// each of `nodes` with it.
fn add_sampler(
    animation: &mut Value,
    input: usize,
    output: usize,
    interpolation: &str,
    nodes: &[usize],
    path: &str,
) {
    let samplers = animation["samplers"].as_array_mut().expect("an array");
    samplers.push(json!({"input": input, "output": output, "interpolation": interpolation}));
    let sampler = samplers.len() - 1;
    let channels = animation["channels"].as_array_mut().expect("an array");
    for node in nodes {
        channels.push(json!({"sampler": sampler, "target": {"node": node, "path": path}}));
    }
}

/// The nodes (of `mesh_nodes`, each mesh's node) whose morph set the morph-weight track `m` drives: by node, then
/// mesh name, with as many targets as the track has weights.
fn morph_nodes(character: &Character, mesh_nodes: &[usize], m: &BakedMorph) -> Vec<usize> {
    character
        .meshes
        .iter()
        .zip(mesh_nodes)
        .filter(|(mesh, _)| {
            mesh.morph.as_ref().is_some_and(|s| {
                s.target_names.len() == m.width && (s.node == m.node || s.mesh == m.node)
            })
        })
        .map(|(_, &n)| n)
        .collect()
}

/// The morph-weight tracks of `clip` that drive no mesh of `character` (with `animation_only`, every one: the
/// file has no meshes), named with their width: a `.glb` leaves them out, and the bake notes them.
pub fn unbound_morph(character: &Character, clip: &BakedClip, animation_only: bool) -> Vec<String> {
    let mesh_nodes: Vec<usize> = if animation_only {
        Vec::new()
    } else {
        (0..character.meshes.len()).collect()
    };
    clip.morph
        .iter()
        .filter(|m| morph_nodes(character, &mesh_nodes, m).is_empty())
        .map(|m| format!("'{}' ({} weights)", m.node, m.width))
        .collect()
}

/// Gives an animation without a channel one: the first joint held at its rest rotation from 0 to `duration`, so
/// that the file is a clip of that length which every reader (animtune's included) opens; the glTF schema wants
/// at least one channel. A skeleton without joints is left as it is.
fn hold_if_empty(glb: &mut GlbBuilder, animation: &mut Value, skeleton: &Skeleton, duration: f32) {
    let empty = animation["channels"].as_array().is_none_or(Vec::is_empty);
    if !empty || skeleton.is_empty() {
        return;
    }
    let times: Vec<f32> = if duration > 0.0 {
        vec![0.0, duration]
    } else {
        vec![0.0]
    };
    let rest = skeleton.rest()[0].rotation.normalize().to_array();
    let values: Vec<f32> = times.iter().flat_map(|_| rest).collect();
    let input = glb.floats(&times, "SCALAR", 1, None, true);
    let output = glb.floats(&values, "VEC4", 4, None, false);
    add_sampler(
        animation,
        input,
        output,
        "LINEAR",
        &[joint_node(0)],
        "rotation",
    );
}

/// The `.glb` of a baked clip on a character (`animation_only`: skeleton nodes and animation, no meshes).
pub fn glb_bytes(character: &Character, clip: &BakedClip, animation_only: bool) -> Vec<u8> {
    let skeleton = &character.skeleton;
    let mut glb = GlbBuilder::new();
    let mut nodes = skeleton_nodes(skeleton);
    let mut scene = vec![0];
    let mut document = json!({
        "asset": {"version": "2.0", "generator": concat!("animtune ", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
    });
    let mesh_nodes = if animation_only {
        Vec::new()
    } else {
        add_character(&mut glb, character, &mut nodes, &mut scene, &mut document)
    };
    let mut animation = animation_json(&mut glb, skeleton, clip)
        .unwrap_or_else(|| json!({"name": clip.name, "channels": [], "samplers": []}));
    // Morph weights drive the mesh nodes whose morph set the track names; a track that drives none is left out
    // (see [`unbound_morph`]).
    for m in &clip.morph {
        let targets = morph_nodes(character, &mesh_nodes, m);
        if targets.is_empty() {
            continue;
        }
        let input = glb.floats(&m.times, "SCALAR", 1, None, true);
        let output = glb.floats(&m.values, "SCALAR", 1, None, false);
        add_sampler(&mut animation, input, output, "LINEAR", &targets, "weights");
    }
    hold_if_empty(&mut glb, &mut animation, skeleton, clip.duration);
    document["animations"] = json!([animation]);
    document["nodes"] = Value::Array(nodes);
    document["scenes"] = json!([{"name": character.name, "nodes": scene}]);
    glb.finish(document)
}

/// The `.vrma` of a baked clip on a normalized humanoid rig (see [`super::vrma`]): its skeleton nodes and
/// animation, the `VRMC_vrm_animation` table of human bones, and for each expression a node whose translation x
/// is its weight at its times (LINEAR); with `look_at`, a look-at node whose rotation is those keys.
pub fn vrma_bytes(
    character: &Character,
    clip: &BakedClip,
    expressions: &[crate::offline::frames::ExpressionKeys],
    look_at: Option<&Keys<Quat>>,
) -> Vec<u8> {
    let skeleton = &character.skeleton;
    let mut glb = GlbBuilder::new();
    let mut nodes = skeleton_nodes(skeleton);
    let mut scene = vec![0];
    let mut animation = animation_json(&mut glb, skeleton, clip)
        .unwrap_or_else(|| json!({"name": clip.name, "channels": [], "samplers": []}));
    let bones: serde_json::Map<String, Value> = character
        .humanoid
        .bones()
        .map(|(bone, j)| (bone.vrm_name(true), json!({"node": joint_node(j)})))
        .collect();
    let mut preset = serde_json::Map::new();
    let mut custom = serde_json::Map::new();
    for crate::offline::frames::ExpressionKeys {
        name,
        times,
        weights,
    } in expressions
    {
        let node = nodes.len();
        nodes.push(json!({"name": name}));
        scene.push(node);
        let input = glb.floats(times, "SCALAR", 1, None, true);
        let values: Vec<f32> = weights.iter().flat_map(|&w| [w, 0.0, 0.0]).collect();
        let output = glb.floats(&values, "VEC3", 3, None, false);
        add_sampler(
            &mut animation,
            input,
            output,
            "LINEAR",
            &[node],
            "translation",
        );
        let table = if crate::core::expression::VRM_PRESETS.contains(&name.as_str()) {
            &mut preset
        } else {
            &mut custom
        };
        table.insert(name.clone(), json!({"node": node}));
    }
    let mut extension = json!({"specVersion": "1.0", "humanoid": {"humanBones": bones}});
    if let Some(keys) = look_at {
        let node = nodes.len();
        nodes.push(json!({"name": "lookAt"}));
        scene.push(node);
        let input = glb.floats(keys.times(), "SCALAR", 1, None, true);
        let values: Vec<f32> = (0..keys.times().len())
            .flat_map(|k| keys.key_value(k).normalize().to_array())
            .collect();
        let output = glb.floats(&values, "VEC4", 4, None, false);
        // A cubic spline's keys are written LINEAR (its tangents are not kept).
        let interpolation = match keys.interpolation() {
            Interpolation::Step => "STEP",
            _ => "LINEAR",
        };
        add_sampler(
            &mut animation,
            input,
            output,
            interpolation,
            &[node],
            "rotation",
        );
        extension["lookAt"] = json!({"node": node});
    }
    hold_if_empty(&mut glb, &mut animation, skeleton, clip.duration);
    if !preset.is_empty() || !custom.is_empty() {
        extension["expressions"] = json!({"preset": preset, "custom": custom});
    }
    let document = json!({
        "asset": {"version": "2.0", "generator": concat!("animtune ", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "nodes": nodes,
        "scenes": [{"name": character.name, "nodes": scene}],
        "animations": [animation],
        "extensionsUsed": ["VRMC_vrm_animation"],
        "extensions": {"VRMC_vrm_animation": extension},
    });
    glb.finish(document)
}

/// Decodes the animation of a `.glb` that [`glb_bytes`] wrote, with the `gltf` crate alone: node `j + 1` is
/// joint `j` of `skeleton`. Nothing but the JSON and the binary chunk is read (no images).
pub fn decode_animation(bytes: &[u8], skeleton: &Skeleton) -> Result<Clip, String> {
    let file = ::gltf::Gltf::from_slice(bytes).map_err(|e| e.to_string())?;
    let blob = file.blob.as_deref();
    let Some(animation) = file.document.animations().next() else {
        return Ok(Clip::new("", Vec::new()));
    };
    let targets = track_targets(skeleton, None);
    let mut tracks: Vec<Option<Track>> = vec![None; skeleton.len()];
    for channel in animation.channels() {
        let node = channel.target().node().index();
        let j = node
            .checked_sub(1)
            .filter(|&j| j < skeleton.len())
            .ok_or_else(|| format!("channel targets node {node}, which is not a joint"))?;
        let reader = channel.reader(|buffer| match buffer.source() {
            ::gltf::buffer::Source::Bin => blob,
            ::gltf::buffer::Source::Uri(_) => None,
        });
        let times: Vec<f32> = reader
            .read_inputs()
            .ok_or_else(|| format!("node {node}: no key times"))?
            .collect();
        let interpolation = match channel.sampler().interpolation() {
            ::gltf::animation::Interpolation::Linear => Interpolation::Linear,
            ::gltf::animation::Interpolation::Step => Interpolation::Step,
            ::gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
        };
        let track = tracks[j].get_or_insert_with(|| Track {
            target: targets[j].clone(),
            translation: None,
            rotation: None,
            scale: None,
        });
        let bad = |e| format!("node {node}: {e}");
        use ::gltf::animation::util::ReadOutputs;
        match reader
            .read_outputs()
            .ok_or_else(|| format!("node {node}: no values"))?
        {
            ReadOutputs::Translations(v) => {
                let values = v.map(Vec3::from_array).collect();
                track.translation = Some(Keys::new(times, values, interpolation).map_err(bad)?);
            }
            ReadOutputs::Rotations(r) => {
                let values = r.into_f32().map(Quat::from_array).collect();
                track.rotation = Some(Keys::new(times, values, interpolation).map_err(bad)?);
            }
            ReadOutputs::Scales(v) => {
                let values = v.map(Vec3::from_array).collect();
                track.scale = Some(Keys::new(times, values, interpolation).map_err(bad)?);
            }
            ReadOutputs::MorphTargetWeights(_) => {}
        }
    }
    let name = animation.name().unwrap_or_default();
    Ok(Clip::new(name, tracks.into_iter().flatten().collect()))
}
