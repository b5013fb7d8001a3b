//! glTF 2.0 / VRM 0.x / VRM 1.0 / VRMA import through the `gltf` crate.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use ::gltf as gl;
use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

use super::{ImportError, ImportedModel, uri};
use crate::core::clip::{Interpolation, Keys, Track, TrackTarget};
use crate::core::humanoid::{HumanBone, HumanoidMap, MappingSource};
use crate::core::mesh::{Material, Mesh, MeshPlacement, Primitive, Skin, Texture};
use crate::core::skeleton::{JointDef, Skeleton};
use crate::core::{Character, Clip, Pose, Transform};

/// Imports from bytes; `base` is the folder external files are read from (None: external files refused),
/// `path` names the source in errors.
pub fn load_bytes(
    bytes: &[u8],
    name: &str,
    base: Option<&Path>,
    path: &Path,
) -> Result<ImportedModel, ImportError> {
    load_bytes_with(bytes, name, base, path, &super::Limits::from_env())
}

/// Checks the GLB header's declared length before the glTF reader does arithmetic with it (a declared total
/// under the header size made it underflow).
fn check_glb_header(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(b"glTF") {
        return Ok(());
    }
    if bytes.len() < 12 {
        return Err(format!(
            "truncated GLB header ({} of 12 bytes)",
            bytes.len()
        ));
    }
    let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    if declared < 20 {
        return Err(format!(
            "the GLB header declares a total length of {declared} bytes, less than its own headers"
        ));
    }
    if declared > bytes.len() {
        return Err(format!(
            "truncated GLB: the header declares {declared} bytes, the file has {}",
            bytes.len()
        ));
    }
    Ok(())
}

/// Checks that every primitive attribute names an existing accessor, before the glTF reader's validation
/// (gltf-json 1.4.1 indexes the POSITION accessor unchecked and panics on a bad index).
fn check_attribute_indices(bytes: &[u8]) -> Result<(), String> {
    let json: &[u8] = if bytes.starts_with(b"glTF") {
        match gl::binary::Glb::from_slice(bytes) {
            Ok(glb) => return check_attribute_json(&glb.json),
            Err(_) => return Ok(()),
        }
    } else {
        bytes
    };
    check_attribute_json(json)
}

thread_local! {
    static IMAGE_DECODES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has decoded a file's images into pixels: how a test sees that a path (an export's
/// verification) decodes none.
pub fn image_decodes_on_this_thread() -> u64 {
    IMAGE_DECODES.with(std::cell::Cell::get)
}

fn check_attribute_json(json: &[u8]) -> Result<(), String> {
    // Lossy: the glTF reader skips unknown keys without checking their UTF-8, so invalid bytes must not hide
    // the document from this check.
    let text = String::from_utf8_lossy(json);
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(());
    };
    let accessors = doc["accessors"].as_array().map_or(0, Vec::len);
    for (m, mesh) in doc["meshes"].as_array().into_iter().flatten().enumerate() {
        for (p, prim) in mesh["primitives"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let Some(attributes) = prim["attributes"].as_object() else {
                continue;
            };
            for (name, index) in attributes {
                if index.as_u64().is_some_and(|i| i as usize >= accessors) {
                    return Err(format!(
                        "mesh {m} primitive {p}: attribute {name} refers to accessor {index}, which does not exist ({accessors} accessors)"
                    ));
                }
            }
        }
    }
    check_json_references(&doc)?;
    // Values the reader keeps as "invalid" and unwraps later (animation paths, interpolations).
    for (a, anim) in doc["animations"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (c, channel) in anim["channels"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let path = &channel["target"]["path"];
            if !path.is_null()
                && !["translation", "rotation", "scale", "weights"]
                    .iter()
                    .any(|p| path.as_str() == Some(p))
            {
                return Err(format!(
                    "animation {a} channel {c}: unknown target path {path}"
                ));
            }
        }
        for (k, sampler) in anim["samplers"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let i = &sampler["interpolation"];
            if !i.is_null()
                && !["LINEAR", "STEP", "CUBICSPLINE"]
                    .iter()
                    .any(|p| i.as_str() == Some(p))
            {
                return Err(format!(
                    "animation {a} sampler {k}: unknown interpolation {i}"
                ));
            }
        }
    }
    Ok(())
}

/// Checks that the indices the importer follows point inside their arrays (gltf 1.4.1 validates some of them,
/// not animation targets, and unwraps the lookup).
/// The elements of a JSON array (none for anything else), borrowed.
fn json_array(v: &serde_json::Value) -> &[serde_json::Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

fn check_json_references(doc: &serde_json::Value) -> Result<(), String> {
    let len = |key: &str| doc[key].as_array().map_or(0, Vec::len);
    let (nodes, accessors, meshes, skins, views, buffers, samplers_top, images) = (
        len("nodes"),
        len("accessors"),
        len("meshes"),
        len("skins"),
        len("bufferViews"),
        len("buffers"),
        len("samplers"),
        len("images"),
    );
    // Borrowed, and the message is only formatted for a bad reference: a large file holds tens of thousands.
    let array = json_array;
    let check =
        |v: &serde_json::Value, n: usize, what: &dyn Fn() -> String| -> Result<(), String> {
            match v.as_u64() {
                Some(i) if i as usize >= n => Err(format!(
                    "{} refers to index {i}, past the {n} there are",
                    what()
                )),
                _ => Ok(()),
            }
        };
    for (a, anim) in array(&doc["animations"]).iter().enumerate() {
        let samplers = array(&anim["samplers"]);
        for (c, ch) in array(&anim["channels"]).iter().enumerate() {
            check(&ch["sampler"], samplers.len(), &|| {
                format!("animation {a} channel {c} sampler")
            })?;
            check(&ch["target"]["node"], nodes, &|| {
                format!("animation {a} channel {c} target node")
            })?;
        }
        for (k, sm) in samplers.iter().enumerate() {
            check(&sm["input"], accessors, &|| {
                format!("animation {a} sampler {k} input")
            })?;
            check(&sm["output"], accessors, &|| {
                format!("animation {a} sampler {k} output")
            })?;
        }
    }
    for (k, skin) in array(&doc["skins"]).iter().enumerate() {
        for j in array(&skin["joints"]) {
            check(j, nodes, &|| format!("skin {k} joint"))?;
        }
        check(&skin["skeleton"], nodes, &|| format!("skin {k} skeleton"))?;
        check(&skin["inverseBindMatrices"], accessors, &|| {
            format!("skin {k} inverse bind matrices")
        })?;
    }
    for (n, node) in array(&doc["nodes"]).iter().enumerate() {
        for c in array(&node["children"]) {
            check(c, nodes, &|| format!("node {n} child"))?;
        }
        check(&node["mesh"], meshes, &|| format!("node {n} mesh"))?;
        check(&node["skin"], skins, &|| format!("node {n} skin"))?;
    }
    for (k, scene) in array(&doc["scenes"]).iter().enumerate() {
        for n in array(&scene["nodes"]) {
            check(n, nodes, &|| format!("scene {k} node"))?;
        }
    }
    for (m, mesh) in array(&doc["meshes"]).iter().enumerate() {
        for (p, prim) in array(&mesh["primitives"]).iter().enumerate() {
            check(&prim["indices"], accessors, &|| {
                format!("mesh {m} primitive {p} indices")
            })?;
            for target in array(&prim["targets"]) {
                for (_, a) in target.as_object().into_iter().flatten() {
                    check(a, accessors, &|| {
                        format!("mesh {m} primitive {p} morph target")
                    })?;
                }
            }
        }
    }
    for (k, acc) in array(&doc["accessors"]).iter().enumerate() {
        check(&acc["bufferView"], views, &|| {
            format!("accessor {k} buffer view")
        })?;
        check(&acc["sparse"]["indices"]["bufferView"], views, &|| {
            format!("accessor {k} sparse indices")
        })?;
        check(&acc["sparse"]["values"]["bufferView"], views, &|| {
            format!("accessor {k} sparse values")
        })?;
    }
    for (k, view) in array(&doc["bufferViews"]).iter().enumerate() {
        check(&view["buffer"], buffers, &|| {
            format!("buffer view {k} buffer")
        })?;
    }
    for (k, image) in array(&doc["images"]).iter().enumerate() {
        // The reader unwraps these when asked for the image's source.
        check(&image["bufferView"], views, &|| {
            format!("image {k} buffer view")
        })?;
        match (image["uri"].is_string(), image["bufferView"].is_u64()) {
            (false, false) => return Err(format!("image {k} has neither a uri nor a buffer view")),
            (_, true) if !image["mimeType"].is_string() => {
                return Err(format!("image {k} is in a buffer view but has no mimeType"));
            }
            _ => {}
        }
    }
    for (k, tex) in array(&doc["textures"]).iter().enumerate() {
        check(&tex["source"], images, &|| format!("texture {k} source"))?;
        check(&tex["sampler"], samplers_top, &|| {
            format!("texture {k} sampler")
        })?;
    }
    Ok(())
}

/// Counts what a document asks for against the limits, before any large data is decoded.
fn check_limits(
    document: &gl::Document,
    path: &Path,
    limits: &super::Limits,
) -> Result<(), ImportError> {
    let over = |what: String| ImportError::OverLimit {
        path: path.to_path_buf(),
        what,
    };
    let vertices: usize = document
        .meshes()
        .flat_map(|m| m.primitives())
        .filter_map(|p| p.get(&gl::Semantic::Positions).map(|a| a.count()))
        .fold(0usize, usize::saturating_add);
    if vertices > limits.max_vertices {
        return Err(over(format!(
            "{vertices} vertices, over the limit of {} (set ANIMTUNE_MAX_VERTICES or --max-vertices to allow more)",
            limits.max_vertices
        )));
    }
    let joints: usize = document.skins().map(|s| s.joints().count()).sum();
    if joints > limits.max_joints {
        return Err(over(format!(
            "{joints} skin joints, over the limit of {} (set ANIMTUNE_MAX_JOINTS or --max-joints to allow more)",
            limits.max_joints
        )));
    }
    let nodes = document.nodes().count();
    if nodes > limits.max_joints.saturating_mul(16) {
        return Err(over(format!(
            "{nodes} nodes, over the limit of {} (16 × the joint limit; set ANIMTUNE_MAX_JOINTS or --max-joints)",
            limits.max_joints.saturating_mul(16)
        )));
    }
    Ok(())
}

/// Imports glTF/GLB/VRM bytes within the given limits (see [`load_bytes`]).
pub fn load_bytes_with(
    bytes: &[u8],
    name: &str,
    base: Option<&Path>,
    path: &Path,
    limits: &super::Limits,
) -> Result<ImportedModel, ImportError> {
    let data_err = |message: String| ImportError::Data {
        path: path.to_path_buf(),
        message,
    };
    check_glb_header(bytes)
        .and_then(|()| check_attribute_indices(bytes))
        .map_err(|message| ImportError::Format {
            path: path.to_path_buf(),
            message,
        })?;
    let gl::Gltf { document, blob } =
        gl::Gltf::from_slice(bytes).map_err(|e| ImportError::Format {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    check_limits(&document, path, limits)?;
    check_uris(&document, base, path)?;
    let buffers = gl::import_buffers(&document, base, blob).map_err(|e| ImportError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    check_accessors(&document, &buffers).map_err(data_err)?;
    check_accessor_types(&document).map_err(data_err)?;
    let mut notes = Vec::new();

    let nodes = NodeGraph::new(&document).map_err(data_err)?;
    let vrm = VrmInfo::read(&document);
    let facing_fix = if vrm.source == MappingSource::Vrm0 {
        Mat4::from_rotation_y(std::f32::consts::PI)
    } else {
        Mat4::IDENTITY
    };

    // Which nodes form the skeleton.
    let mut wanted: Vec<usize> = document
        .skins()
        .flat_map(|s| s.joints().map(|j| j.index()))
        .collect();
    let deforming: Vec<bool> = {
        let mut d = vec![false; nodes.len()];
        for &j in &wanted {
            d[j] = true;
        }
        d
    };
    let skinless = wanted.is_empty();
    if skinless {
        wanted.extend(vrm.bones.iter().map(|(_, n)| *n));
        for a in document.animations() {
            for c in a.channels() {
                wanted.push(c.target().node().index());
            }
        }
        if wanted.is_empty() {
            wanted.extend(
                document
                    .nodes()
                    .filter(|n| n.mesh().is_none())
                    .map(|n| n.index()),
            );
        }
    }
    wanted.sort_unstable();
    wanted.dedup();
    let (order, above) = nodes.skeleton_nodes(&wanted);
    let node_to_joint: HashMap<usize, usize> =
        order.iter().enumerate().map(|(j, &n)| (n, j)).collect();
    let joints: Vec<JointDef> = order
        .iter()
        .map(|&n| JointDef {
            name: nodes.names[n].clone(),
            parent: nodes.parent[n].and_then(|p| node_to_joint.get(&p).copied()),
            rest: nodes.local[n],
            deforms: skinless || deforming[n],
        })
        .collect();
    let root_transform = facing_fix * above;
    let skeleton = Skeleton::new(joints, root_transform).map_err(|e| data_err(e.to_string()))?;

    // Humanoid map: VRM table first, else names / hierarchy.
    let humanoid = if vrm.source != MappingSource::None {
        let mut entries = Vec::new();
        for (bone, node) in &vrm.bones {
            match node_to_joint.get(node) {
                Some(&j) => entries.push((*bone, j)),
                None => notes.push(format!(
                    "VRM maps {} to node {node}, which is not a skeleton joint",
                    bone.name()
                )),
            }
        }
        let mut map = HumanoidMap::from_table(vrm.source, &entries, &skeleton);
        map.warnings.extend(vrm.warnings.iter().cloned());
        map
    } else {
        HumanoidMap::detect(&skeleton)
    };

    let get = |b: gl::Buffer| buffers.get(b.index()).map(|d| d.0.as_slice());

    // Skins.
    let mut skins = Vec::new();
    for skin in document.skins() {
        let joints: Vec<usize> = skin.joints().map(|n| node_to_joint[&n.index()]).collect();
        let reader = skin.reader(get);
        let inverse_bind: Vec<Mat4> = match reader.read_inverse_bind_matrices() {
            Some(m) => m.map(|c| Mat4::from_cols_array_2d(&c)).collect(),
            None => vec![Mat4::IDENTITY; joints.len()],
        };
        if inverse_bind.len() < joints.len() {
            return Err(data_err(format!(
                "skin {} has {} joints but {} inverse bind matrices",
                skin.index(),
                joints.len(),
                inverse_bind.len()
            )));
        }
        if let Some(i) = inverse_bind.iter().position(|m| !m.is_finite()) {
            return Err(data_err(format!(
                "skin {}: inverse bind matrix {i} is not finite",
                skin.index()
            )));
        }
        skins.push(Skin {
            name: skin.name().unwrap_or_default().to_string(),
            joints,
            inverse_bind,
        });
    }

    // Materials and textures.
    let (textures, image_of_texture) = read_textures(&document, base, &buffers, &mut notes);
    let materials: Vec<Material> = document
        .materials()
        .map(|m| {
            let pbr = m.pbr_metallic_roughness();
            Material {
                name: m.name().unwrap_or_default().to_string(),
                base_color: pbr.base_color_factor(),
                base_color_texture: pbr.base_color_texture().and_then(|info| {
                    image_of_texture
                        .get(info.texture().index())
                        .copied()
                        .flatten()
                }),
                double_sided: m.double_sided(),
            }
        })
        .collect();

    // Meshes.
    let mut meshes = Vec::new();
    let all_nodes: Vec<gl::Node> = document.nodes().collect();
    for node in nodes.in_scene.iter().map(|&n| &all_nodes[n]) {
        let Some(mesh) = node.mesh() else { continue };
        let placement = match node.skin() {
            Some(skin) => MeshPlacement::Skinned { skin: skin.index() },
            None => match nodes.joint_ancestor(node.index(), &node_to_joint) {
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
            match read_primitive(&prim, get, skin_joints).map_err(|m| format!("{what}: {m}")) {
                Ok(Some(p)) => primitives.push(p),
                Ok(None) => notes.push(format!("{what}: no POSITION attribute, skipped")),
                Err(m) => return Err(data_err(m)),
            }
        }
        meshes.push(Mesh {
            name: mesh.name().or(node.name()).unwrap_or_default().to_string(),
            placement,
            primitives,
        });
    }

    // Clips.
    let bone_per_joint = humanoid.bone_per_joint(skeleton.len());
    let rest_model = Pose::rest(&skeleton).model_matrices(&skeleton);
    let root_rotation = rotation_of(&skeleton.root_transform());
    let target_of = |j: usize| TrackTarget {
        path: skeleton.path(j).to_string(),
        name: skeleton.name(j).to_string(),
        human_bone: bone_per_joint[j],
        rest: skeleton.rest()[j],
        parent_rest_rotation: skeleton
            .parent(j)
            .map_or(root_rotation, |p| rotation_of(&rest_model[p])),
        rest_height: rest_model[j].w_axis.y,
    };
    let mut clips = Vec::new();
    for anim in document.animations() {
        let anim_name = anim.name().unwrap_or_default().to_string();
        let mut tracks: BTreeMap<usize, Track> = BTreeMap::new();
        let mut morph_channels = 0;
        for channel in anim.channels() {
            let what = format!(
                "animation {} ('{anim_name}') channel {}",
                anim.index(),
                channel.index()
            );
            let node = channel.target().node().index();
            if channel.target().property() == gl::animation::Property::MorphTargetWeights {
                morph_channels += 1;
                continue;
            }
            let Some(&joint) = node_to_joint.get(&node) else {
                notes.push(format!(
                    "{what}: animates node '{}', which is not part of the skeleton; skipped",
                    nodes.names[node]
                ));
                continue;
            };
            let interpolation = match channel.sampler().interpolation() {
                gl::animation::Interpolation::Step => Interpolation::Step,
                gl::animation::Interpolation::Linear => Interpolation::Linear,
                gl::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let reader = channel.reader(get);
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or_else(|| data_err(format!("{what}: sampler input cannot be read")))?
                .collect();
            let track = tracks.entry(joint).or_insert_with(|| Track {
                target: target_of(joint),
                translation: None,
                rotation: None,
                scale: None,
            });
            let bad = |e: crate::core::clip::ClipError| data_err(format!("{what}: {e}"));
            use gl::animation::util::ReadOutputs;
            match reader.read_outputs() {
                Some(ReadOutputs::Translations(it)) => {
                    track.translation = Some(
                        Keys::new(times, it.map(Vec3::from).collect(), interpolation)
                            .map_err(bad)?,
                    );
                }
                Some(ReadOutputs::Scales(it)) => {
                    track.scale = Some(
                        Keys::new(times, it.map(Vec3::from).collect(), interpolation)
                            .map_err(bad)?,
                    );
                }
                Some(ReadOutputs::Rotations(it)) => {
                    let values: Vec<Quat> = it
                        .into_f32()
                        .map(|q| {
                            let q = Quat::from_array(q);
                            if interpolation == Interpolation::CubicSpline {
                                q
                            } else {
                                q.normalize()
                            }
                        })
                        .collect();
                    track.rotation = Some(Keys::new(times, values, interpolation).map_err(bad)?);
                }
                _ => return Err(data_err(format!("{what}: sampler output cannot be read"))),
            }
        }
        if morph_channels > 0 {
            notes.push(format!(
                "animation {} ('{anim_name}'): {morph_channels} morph-weight channel(s) skipped",
                anim.index()
            ));
        }
        clips.push(Clip::new(anim_name, tracks.into_values().collect()));
    }

    if vrm.source == MappingSource::Vrm0 {
        notes.push("VRM 0.x model faces −Z: turned 180° about +Y to face +Z".to_string());
    }
    let character = Character {
        name: name.to_string(),
        skeleton,
        humanoid,
        skins,
        meshes,
        materials,
        textures,
        facing_corrected: vrm.source == MappingSource::Vrm0,
        notes,
    };
    Ok(ImportedModel { character, clips })
}

fn rotation_of(m: &Mat4) -> Quat {
    m.to_scale_rotation_translation().1.normalize()
}

fn check_uris(
    document: &gl::Document,
    base: Option<&Path>,
    path: &Path,
) -> Result<(), ImportError> {
    let mut uris: Vec<&str> = Vec::new();
    for b in document.buffers() {
        if let gl::buffer::Source::Uri(u) = b.source() {
            uris.push(u);
        }
    }
    for i in document.images() {
        if let gl::image::Source::Uri { uri, .. } = i.source() {
            uris.push(uri);
        }
    }
    for u in uris {
        if uri::is_data_uri(u) {
            continue;
        }
        let Some(base) = base else {
            return Err(ImportError::Data {
                path: path.to_path_buf(),
                message: format!(
                    "external file '{u}' cannot be read: the model was not loaded from a folder"
                ),
            });
        };
        uri::resolve(base, u).map_err(|source| ImportError::Uri {
            path: path.to_path_buf(),
            source,
        })?;
    }
    Ok(())
}

/// Checks every accessor lies inside its buffer, so reading never goes out of bounds.
fn check_accessors(document: &gl::Document, buffers: &[gl::buffer::Data]) -> Result<(), String> {
    let view_ok = |view: &gl::buffer::View,
                   offset: usize,
                   count: usize,
                   elem: usize,
                   what: &str|
     -> Result<(), String> {
        let buf_len = buffers.get(view.buffer().index()).map_or(0, |b| b.0.len());
        let view_end = view.offset().checked_add(view.length());
        if view_end.is_none_or(|e| e > buf_len) {
            return Err(format!(
                "{what}: buffer view {} runs past the end of buffer {}",
                view.index(),
                view.buffer().index()
            ));
        }
        if count == 0 {
            return Ok(());
        }
        let stride = view.stride().unwrap_or(elem);
        let need = (count - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(elem))
            .and_then(|x| x.checked_add(offset));
        if need.is_none_or(|n| n > view.length()) {
            return Err(format!(
                "{what}: {count} elements do not fit in buffer view {}",
                view.index()
            ));
        }
        Ok(())
    };
    for a in document.accessors() {
        let what = format!("accessor {}", a.index());
        if a.count() == 0 {
            return Err(format!("{what}: count is 0 (glTF requires at least 1)"));
        }
        if let Some(view) = a.view()
            && view.stride().is_some_and(|s| s < a.size())
        {
            return Err(format!(
                "{what}: buffer view {} has a stride of {} bytes, less than its {}-byte elements",
                view.index(),
                view.stride().unwrap_or(0),
                a.size()
            ));
        }
        if let Some(view) = a.view() {
            view_ok(&view, a.offset(), a.count(), a.size(), &what)?;
        }
        if let Some(sparse) = a.sparse() {
            let n = sparse.count();
            if n == 0 {
                return Err(format!(
                    "{what}: sparse count is 0 (glTF requires at least 1)"
                ));
            }
            let idx = sparse.indices();
            view_ok(
                &idx.view(),
                idx.offset(),
                n,
                idx.index_type().size(),
                &format!("{what} sparse indices"),
            )?;
            let val = sparse.values();
            view_ok(
                &val.view(),
                val.offset(),
                n,
                a.size(),
                &format!("{what} sparse values"),
            )?;
        }
    }
    Ok(())
}

/// Checks that every accessor the importer reads has the type its use requires (the glTF reader assumes it
/// and asserts otherwise).
fn check_accessor_types(document: &gl::Document) -> Result<(), String> {
    use gl::accessor::{DataType as D, Dimensions as Dm};
    let want = |a: &gl::Accessor, dims: &[Dm], types: &[D], what: &str| -> Result<(), String> {
        if dims.contains(&a.dimensions()) && types.contains(&a.data_type()) {
            Ok(())
        } else {
            Err(format!(
                "{what} uses accessor {} of type {:?} {:?}, which that use does not allow",
                a.index(),
                a.dimensions(),
                a.data_type()
            ))
        }
    };
    for mesh in document.meshes() {
        for prim in mesh.primitives() {
            let what = format!("mesh {} primitive {}", mesh.index(), prim.index());
            for (semantic, a) in prim.attributes() {
                let what = format!("{what} {semantic:?}");
                match semantic {
                    gl::Semantic::Positions | gl::Semantic::Normals => {
                        want(&a, &[Dm::Vec3], &[D::F32], &what)?
                    }
                    gl::Semantic::Tangents => want(&a, &[Dm::Vec4], &[D::F32], &what)?,
                    gl::Semantic::TexCoords(_) => {
                        want(&a, &[Dm::Vec2], &[D::F32, D::U8, D::U16], &what)?
                    }
                    gl::Semantic::Colors(_) => {
                        want(&a, &[Dm::Vec3, Dm::Vec4], &[D::F32, D::U8, D::U16], &what)?
                    }
                    gl::Semantic::Joints(_) => want(&a, &[Dm::Vec4], &[D::U8, D::U16], &what)?,
                    gl::Semantic::Weights(_) => {
                        want(&a, &[Dm::Vec4], &[D::F32, D::U8, D::U16], &what)?
                    }
                    _ => {}
                }
            }
            if let Some(a) = prim.indices() {
                want(
                    &a,
                    &[Dm::Scalar],
                    &[D::U8, D::U16, D::U32],
                    &format!("{what} indices"),
                )?;
            }
        }
    }
    for skin in document.skins() {
        if let Some(a) = skin.inverse_bind_matrices() {
            want(
                &a,
                &[Dm::Mat4],
                &[D::F32],
                &format!("skin {} inverse bind matrices", skin.index()),
            )?;
        }
    }
    for anim in document.animations() {
        for channel in anim.channels() {
            let what = format!("animation {} channel {}", anim.index(), channel.index());
            let sampler = channel.sampler();
            want(
                &sampler.input(),
                &[Dm::Scalar],
                &[D::F32],
                &format!("{what} input"),
            )?;
            let ints = [D::F32, D::I8, D::U8, D::I16, D::U16];
            let (dims, types): (&[Dm], &[D]) = match channel.target().property() {
                gl::animation::Property::Translation | gl::animation::Property::Scale => {
                    (&[Dm::Vec3], &[D::F32])
                }
                gl::animation::Property::Rotation => (&[Dm::Vec4], &ints),
                gl::animation::Property::MorphTargetWeights => (&[Dm::Scalar], &ints),
            };
            want(&sampler.output(), dims, types, &format!("{what} output"))?;
        }
    }
    Ok(())
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
    Ok(Some(Primitive {
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

fn read_textures(
    document: &gl::Document,
    base: Option<&Path>,
    buffers: &[gl::buffer::Data],
    notes: &mut Vec<String>,
) -> (Vec<Texture>, Vec<Option<usize>>) {
    if document.images().len() == 0 {
        return (Vec::new(), Vec::new());
    }
    if document.images().len() > 0 {
        IMAGE_DECODES.with(|c| c.set(c.get() + 1));
    }
    let images = match gl::import_images(document, base, buffers) {
        Ok(i) => i,
        Err(e) => {
            notes.push(format!("textures not loaded: {e}"));
            return (Vec::new(), vec![None; document.textures().len()]);
        }
    };
    let mut textures = Vec::new();
    let mut image_slot = Vec::new();
    for (i, img) in images.into_iter().enumerate() {
        match to_rgba8(&img) {
            Some(rgba) => {
                image_slot.push(Some(textures.len()));
                textures.push(Texture {
                    width: img.width,
                    height: img.height,
                    rgba,
                });
            }
            None => {
                notes.push(format!(
                    "image {i}: pixel format {:?} not supported, drawn untextured",
                    img.format
                ));
                image_slot.push(None);
            }
        }
    }
    let per_texture = document
        .textures()
        .map(|t| image_slot.get(t.source().index()).copied().flatten())
        .collect();
    (textures, per_texture)
}

fn to_rgba8(img: &gl::image::Data) -> Option<Vec<u8>> {
    use gl::image::Format as F;
    let px = &img.pixels;
    let out: Vec<u8> = match img.format {
        F::R8 => px.iter().flat_map(|&r| [r, r, r, 255]).collect(),
        F::R8G8 => px
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        F::R8G8B8 => px
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        F::R8G8B8A8 => px.clone(),
        F::R16G16B16 => px
            .chunks_exact(6)
            .flat_map(|c| [c[1], c[3], c[5], 255])
            .collect(),
        F::R16G16B16A16 => px
            .chunks_exact(8)
            .flat_map(|c| [c[1], c[3], c[5], c[7]])
            .collect(),
        _ => return None,
    };
    (out.len() == img.width as usize * img.height as usize * 4).then_some(out)
}

/// The node tree of a document, with cycles and shared children refused.
struct NodeGraph {
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    local: Vec<Transform>,
    names: Vec<String>,
    in_scene: Vec<usize>,
}

impl NodeGraph {
    fn new(document: &gl::Document) -> Result<Self, String> {
        let n = document.nodes().len();
        let mut parent = vec![None; n];
        let mut children = vec![Vec::new(); n];
        let mut local = Vec::with_capacity(n);
        let mut names = Vec::with_capacity(n);
        for node in document.nodes() {
            for c in node.children() {
                if parent[c.index()].replace(node.index()).is_some() {
                    return Err(format!("node {} has more than one parent", c.index()));
                }
                children[node.index()].push(c.index());
            }
            let t = match node.transform() {
                gl::scene::Transform::Matrix { matrix } => {
                    Transform::from_mat4(&Mat4::from_cols_array_2d(&matrix))
                }
                gl::scene::Transform::Decomposed {
                    translation,
                    rotation,
                    scale,
                } => Transform {
                    translation: Vec3::from(translation).into(),
                    rotation: Quat::from_array(rotation).normalize(),
                    scale: Vec3::from(scale).into(),
                },
            };
            if !t.is_finite() {
                return Err(format!("node {} has a non-finite transform", node.index()));
            }
            local.push(t);
            names.push(
                node.name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("node{}", node.index())),
            );
        }
        // Every node must reach a root without looping.
        for start in 0..n {
            let mut j = start;
            let mut steps = 0;
            while let Some(p) = parent[j] {
                j = p;
                steps += 1;
                if steps > n {
                    return Err(format!(
                        "node {start} is part of a cycle in the node hierarchy"
                    ));
                }
            }
        }
        let roots: Vec<usize> = match document
            .default_scene()
            .or_else(|| document.scenes().next())
        {
            Some(scene) => scene.nodes().map(|n| n.index()).collect(),
            None => (0..n).filter(|&i| parent[i].is_none()).collect(),
        };
        let mut in_scene = Vec::new();
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            in_scene.push(i);
            stack.extend(children[i].iter().rev());
        }
        Ok(NodeGraph {
            parent,
            children,
            local,
            names,
            in_scene,
        })
    }

    fn len(&self) -> usize {
        self.parent.len()
    }

    fn world(&self, node: usize) -> Mat4 {
        let mut m = self.local[node].to_mat4();
        let mut j = node;
        while let Some(p) = self.parent[j] {
            m = self.local[p].to_mat4() * m;
            j = p;
        }
        m
    }

    fn ancestors_and_self(&self, node: usize) -> Vec<usize> {
        let mut out = vec![node];
        let mut j = node;
        while let Some(p) = self.parent[j] {
            out.push(p);
            j = p;
        }
        out
    }

    /// Skeleton nodes in parent-before-child order (the wanted nodes and everything between them and their
    /// common ancestor), and the world transform above the skeleton root(s).
    fn skeleton_nodes(&self, wanted: &[usize]) -> (Vec<usize>, Mat4) {
        let mut member = vec![false; self.len()];
        let chains: Vec<Vec<usize>> = wanted.iter().map(|&w| self.ancestors_and_self(w)).collect();
        // The lowest common ancestor: the deepest node on every chain.
        let lca = chains.first().and_then(|first| {
            first
                .iter()
                .copied()
                .find(|cand| chains.iter().all(|c| c.contains(cand)))
        });
        for chain in &chains {
            for &n in chain {
                member[n] = true;
                if Some(n) == lca {
                    break;
                }
            }
        }
        let (roots, above) = match lca {
            Some(r) => (
                vec![r],
                self.parent[r].map_or(Mat4::IDENTITY, |p| self.world(p)),
            ),
            None => (
                (0..self.len())
                    .filter(|&i| member[i] && self.parent[i].is_none())
                    .collect(),
                Mat4::IDENTITY,
            ),
        };
        let mut order = Vec::new();
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(self.children[i].iter().rev().filter(|&&c| member[c]));
        }
        (order, above)
    }

    /// Nearest skeleton joint above a node, and the node's transform relative to it.
    fn joint_ancestor(
        &self,
        node: usize,
        node_to_joint: &HashMap<usize, usize>,
    ) -> Option<(usize, Mat4)> {
        let mut offset = self.local[node].to_mat4();
        let mut j = node;
        while let Some(p) = self.parent[j] {
            if let Some(&joint) = node_to_joint.get(&p) {
                return Some((joint, offset));
            }
            offset = self.local[p].to_mat4() * offset;
            j = p;
        }
        None
    }
}

/// The humanoid table a VRM (or VRMA) file carries, if any.
struct VrmInfo {
    source: MappingSource,
    bones: Vec<(HumanBone, usize)>,
    warnings: Vec<String>,
}

impl VrmInfo {
    fn read(document: &gl::Document) -> Self {
        let mut info = VrmInfo {
            source: MappingSource::None,
            bones: Vec::new(),
            warnings: Vec::new(),
        };
        let vrm1 = document
            .extension_value("VRMC_vrm")
            .or_else(|| document.extension_value("VRMC_vrm_animation"));
        if let Some(table) = vrm1
            .and_then(|v| v.pointer("/humanoid/humanBones"))
            .and_then(Value::as_object)
        {
            info.source = MappingSource::Vrm1;
            for (name, entry) in table {
                info.push(name, entry.get("node"), true);
            }
        } else if let Some(list) = document
            .extension_value("VRM")
            .and_then(|v| v.pointer("/humanoid/humanBones"))
            .and_then(Value::as_array)
        {
            info.source = MappingSource::Vrm0;
            for entry in list {
                let name = entry
                    .get("bone")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                info.push(name, entry.get("node"), false);
            }
        }
        info
    }

    fn push(&mut self, name: &str, node: Option<&Value>, vrm1: bool) {
        let node = node.and_then(Value::as_u64).map(|n| n as usize);
        match (HumanBone::from_vrm_name(name, vrm1), node) {
            (Some(bone), Some(node)) => self.bones.push((bone, node)),
            (None, _) => self.warnings.push(format!(
                "VRM humanoid bone '{name}' is not a known bone; ignored"
            )),
            (_, None) => self
                .warnings
                .push(format!("VRM humanoid bone '{name}' has no node; ignored")),
        }
    }
}
