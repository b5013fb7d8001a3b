//! FBX import (binary and ASCII, 6.x–7.x) through `ufbx`, producing the same [`Character`] and [`Clip`]s as the
//! glTF importer.
//!
//! ufbx resolves what FBX stores beyond a plain TRS hierarchy: pre/post rotations, rotation and scaling pivots
//! and offsets, Euler orders, and (compensated) scaling inheritance, into each node's local translation, rotation
//! and scale, the way it evaluates them. It also normalises the file's units (often centimetres) to metres and its
//! axes to +Y up, +Z front, +X right, changing geometry rather than adding a root transform; the normalisation is
//! recorded in the character's notes. Each animation stack becomes a clip sampled at its keys through ufbx's own
//! evaluation (`bake_anim`), and the clip's error against ufbx's evaluation between those keys is measured and
//! noted. Cameras, lights, blend shapes, constraints, NURBS and caches are not read.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use glam::{Mat4, Quat, Vec3};

use super::{ImportError, ImportedModel, Limits};
use crate::core::mesh::{
    Material, Mesh, MeshPlacement, MorphSet, MorphTarget, Primitive, Skin, Texture,
};
use crate::core::{
    Character, Clip, HumanoidMap, Interpolation, JointDef, Keys, Pose, Skeleton, Track, Transform,
    Wrap,
};

/// The most memory ufbx may take for the scene it returns, and again for its temporary data.
const MEMORY_LIMIT: usize = 1 << 30;
/// Deepest node hierarchy read.
const NODE_DEPTH_LIMIT: u32 = 1024;
/// Largest texture read, pixels (as for glTF).
const MAX_IMAGE_PIXELS: u64 = 4096 * 4096;
/// Most points in time at which a clip is checked against ufbx's evaluation.
const MAX_CHECK_SAMPLES: usize = 240;
/// Length of the virtual points' offsets from each joint when the error is measured, metres (3 cm).
pub const CHECK_POINT_OFFSET: f32 = 0.03;

/// True when the bytes start like an FBX file (binary "Kaydara FBX Binary" or an ASCII "; FBX" header).
pub fn looks_like_fbx(bytes: &[u8]) -> bool {
    bytes.starts_with(b"Kaydara FBX Binary") || {
        let head = &bytes[..bytes.len().min(256)];
        String::from_utf8_lossy(head)
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with("; FBX")
    }
}

fn vec3(v: ufbx::Vec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

fn quat(q: ufbx::Quat) -> Quat {
    Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32).normalize()
}

fn transform(t: &ufbx::Transform) -> Transform {
    Transform {
        translation: vec3(t.translation).into(),
        rotation: quat(t.rotation),
        scale: vec3(t.scale).into(),
    }
}

fn mat4(m: &ufbx::Matrix) -> Mat4 {
    Mat4::from_cols_array(&[
        m.m00 as f32,
        m.m10 as f32,
        m.m20 as f32,
        0.0,
        m.m01 as f32,
        m.m11 as f32,
        m.m21 as f32,
        0.0,
        m.m02 as f32,
        m.m12 as f32,
        m.m22 as f32,
        0.0,
        m.m03 as f32,
        m.m13 as f32,
        m.m23 as f32,
        1.0,
    ])
}

/// An allocator for ufbx that refuses to grow past [`MEMORY_LIMIT`].
fn bounded_allocator() -> ufbx::AllocatorOpts {
    ufbx::AllocatorOpts {
        memory_limit: MEMORY_LIMIT,
        ..Default::default()
    }
}

/// Where a binary FBX's top-level records say its data runs to, when that is past the end of `bytes` (the file
/// was cut short); None for a complete file or one that is not binary FBX. Each top-level record starts with the
/// offset of its end (32 bits before version 7500, 64 from it); a zero offset ends the list.
fn binary_fbx_cut_short(bytes: &[u8]) -> Option<u64> {
    const MAGIC: &[u8] = b"Kaydara FBX Binary  \0";
    if !bytes.starts_with(MAGIC) || bytes.len() < 27 {
        return None;
    }
    let version = u32::from_le_bytes(bytes[23..27].try_into().ok()?);
    let wide = version >= 7500;
    let mut at = 27usize;
    // A few hundred top-level records at most in real files; the loop ends at the list's end or the file's.
    for _ in 0..100_000 {
        let end = if wide {
            u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?)
        } else {
            u64::from(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        if end == 0 {
            return None;
        }
        if end > bytes.len() as u64 {
            return Some(end);
        }
        if end <= at as u64 {
            return None;
        }
        at = end as usize;
    }
    None
}

/// ufbx's options: metres, +Y up, +Z front; geometry changed rather than a root transform added; scaling
/// inheritance other than FBX's default compensated into the local transforms; memory bounded.
fn load_opts() -> ufbx::LoadOpts<'static> {
    ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes {
            right: ufbx::CoordinateAxis::PositiveX,
            up: ufbx::CoordinateAxis::PositiveY,
            front: ufbx::CoordinateAxis::PositiveZ,
        },
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        generate_missing_normals: true,
        load_external_files: false,
        node_depth_limit: NODE_DEPTH_LIMIT,
        result_allocator: bounded_allocator(),
        temp_allocator: bounded_allocator(),
        ..Default::default()
    }
}

/// Imports FBX bytes within the limits; `base` is the folder external textures are read from (None: not read),
/// `path` names the source in errors.
pub fn load_bytes_with(
    bytes: &[u8],
    name: &str,
    base: Option<&Path>,
    path: &Path,
    limits: &Limits,
) -> Result<ImportedModel, ImportError> {
    let data_err = |message: String| ImportError::Data {
        path: path.to_path_buf(),
        message,
    };
    let scene = ufbx::load_memory(bytes, load_opts()).map_err(|e| ImportError::Fbx {
        path: path.to_path_buf(),
        message: match binary_fbx_cut_short(bytes) {
            Some(needed) => format!(
                "the file is cut short: it ends at byte {}, but its data runs to byte {needed} (an incomplete \
                 download or copy?)",
                bytes.len()
            ),
            None => format!("not a valid FBX file: {}", e.description.as_ref() as &str),
        },
    })?;
    let over = |what: String| ImportError::OverLimit {
        path: path.to_path_buf(),
        what,
    };
    if scene.nodes.len() > limits.max_joints.saturating_mul(16) {
        return Err(over(format!(
            "{} nodes, over the limit of {} (ANIMTUNE_MAX_JOINTS x 16)",
            scene.nodes.len(),
            limits.max_joints.saturating_mul(16)
        )));
    }
    let corners: usize = scene.meshes.iter().map(|m| m.num_triangles * 3).sum();
    if corners > limits.max_vertices {
        return Err(over(format!(
            "{corners} triangle corners, over the limit of {} vertices (ANIMTUNE_MAX_VERTICES)",
            limits.max_vertices
        )));
    }
    let mut notes = vec![normalisation_note(&scene)];
    let (skeleton, joint_of) = read_skeleton(&scene).map_err(data_err)?;
    let humanoid = HumanoidMap::detect(&skeleton);
    let mut textures = Vec::new();
    let mut materials = Vec::new();
    let (skins, meshes) = read_meshes(
        &scene,
        &joint_of,
        base,
        &mut materials,
        &mut textures,
        &mut notes,
    )
    .map_err(data_err)?;
    let clips =
        read_clips(&scene, &skeleton, &humanoid, &joint_of, &mut notes).map_err(data_err)?;
    for kind in [
        (scene.cameras.len(), "camera"),
        (scene.lights.len(), "light"),
        (scene.blend_deformers.len(), "blend-shape deformer"),
        (scene.constraints.len(), "constraint"),
    ] {
        if kind.0 > 0 {
            notes.push(format!("{} {}(s) not read", kind.0, kind.1));
        }
    }
    let character = Character {
        name: name.to_string(),
        skeleton,
        humanoid,
        skins,
        meshes,
        materials,
        textures,
        expressions: Vec::new(),
        vrm_expressions: false,
        vrm_look_at: None,
        springs: Default::default(),
        facing_corrected: false,
        notes,
        warnings: Vec::new(),
    };
    Ok(ImportedModel { character, clips })
}

/// What the file's units and axes were, and that they were normalised.
fn normalisation_note(scene: &ufbx::Scene) -> String {
    let s = &scene.settings;
    let axis = |a: ufbx::CoordinateAxis| match a {
        ufbx::CoordinateAxis::PositiveX => "+X",
        ufbx::CoordinateAxis::NegativeX => "-X",
        ufbx::CoordinateAxis::PositiveY => "+Y",
        ufbx::CoordinateAxis::NegativeY => "-Y",
        ufbx::CoordinateAxis::PositiveZ => "+Z",
        ufbx::CoordinateAxis::NegativeZ => "-Z",
        ufbx::CoordinateAxis::Unknown => "?",
    };
    format!(
        "FBX {} ({}): units of {} m and axes right {}, up {}, front {} normalised to metres, +X right, +Y up, \
         +Z front by ufbx",
        scene.metadata.version,
        if scene.metadata.ascii {
            "ASCII"
        } else {
            "binary"
        },
        s.unit_meters,
        axis(s.axes.right),
        axis(s.axes.up),
        axis(s.axes.front),
    )
}

/// The skeleton: every node under the scene root except mesh leaves, parents first (depth-first), and the
/// joint of each node by its typed id.
fn read_skeleton(scene: &ufbx::Scene) -> Result<(Skeleton, HashMap<u32, usize>), String> {
    let bones: std::collections::HashSet<u32> = scene
        .skin_clusters
        .iter()
        .filter_map(|c| c.bone_node.as_ref().map(|n| n.element.typed_id))
        .collect();
    let mut defs = Vec::new();
    let mut joint_of = HashMap::new();
    let mut stack: Vec<(&ufbx::Node, Option<usize>)> = scene
        .root_node
        .children
        .iter()
        .rev()
        .map(|n| (n.as_ref(), None))
        .collect();
    while let Some((node, parent)) = stack.pop() {
        let is_mesh_leaf = node.mesh.is_some() && node.children.is_empty();
        if is_mesh_leaf && !bones.contains(&node.element.typed_id) {
            continue;
        }
        let index = defs.len();
        joint_of.insert(node.element.typed_id, index);
        defs.push(JointDef {
            name: node.element.name.to_string(),
            parent,
            rest: transform(&node.local_transform),
            deforms: bones.contains(&node.element.typed_id),
        });
        for child in node.children.iter().rev() {
            stack.push((child.as_ref(), Some(index)));
        }
    }
    let root = mat4(&scene.root_node.node_to_world);
    let skeleton = Skeleton::new(defs, root).map_err(|e| e.to_string())?;
    Ok((skeleton, joint_of))
}

/// sRGB-encoded colour channel to linear.
fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Decodes an image within the pixel limit (measured from its header first); None when it cannot be read.
fn decode_image(bytes: &[u8]) -> Result<Texture, String> {
    use std::io::Cursor;
    let reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    let (w, h) = reader.into_dimensions().map_err(|e| e.to_string())?;
    if u64::from(w) * u64::from(h) > MAX_IMAGE_PIXELS {
        return Err(format!(
            "{w}x{h}, over the {MAX_IMAGE_PIXELS}-pixel limit (4096x4096)"
        ));
    }
    let img = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?
        .decode()
        .map_err(|e| e.to_string())?
        .to_rgba8();
    Ok(Texture {
        width: img.width(),
        height: img.height(),
        rgba: img.into_raw(),
    })
}

/// The texture of a base colour map: embedded content, else a file relative to the FBX's folder (the same
/// rules as glTF URIs: nothing outside the folder).
fn read_texture(
    texture: &ufbx::Texture,
    base: Option<&Path>,
    notes: &mut Vec<String>,
) -> Option<Texture> {
    let what = format!("texture '{}'", texture.element.name.as_ref() as &str);
    let bytes: Vec<u8> = if texture.content.size > 0 {
        texture.content.to_vec()
    } else {
        let relative = texture.relative_filename.to_string().replace('\\', "/");
        let dir = base?;
        let path = match crate::import::uri::resolve(dir, &relative) {
            Ok(p) => p,
            Err(e) => {
                notes.push(format!("{what}: file '{relative}' not read: {e}"));
                return None;
            }
        };
        match crate::io::limits::read_file(&path, 256 << 20) {
            Ok(b) => b,
            Err(e) => {
                notes.push(format!("{what}: {e}"));
                return None;
            }
        }
    };
    match decode_image(&bytes) {
        Ok(t) => Some(t),
        Err(e) => {
            notes.push(format!("{what}: not decoded: {e}"));
            None
        }
    }
}

/// Our material for an FBX material: the PBR base colour (FBX's diffuse colour × factor, sRGB) and its texture.
fn read_material(
    m: &ufbx::Material,
    base: Option<&Path>,
    textures: &mut Vec<Texture>,
    notes: &mut Vec<String>,
) -> Material {
    let map = &m.pbr.base_color;
    let c = map.value_vec4;
    let factor = if m.pbr.base_factor.has_value {
        m.pbr.base_factor.value_vec4.x as f32
    } else {
        1.0
    };
    let texture = map
        .texture
        .as_ref()
        .or(m.fbx.diffuse_color.texture.as_ref())
        .and_then(|t| read_texture(t, base, notes))
        .map(|t| {
            textures.push(t);
            textures.len() - 1
        });
    Material {
        name: m.element.name.to_string(),
        base_color: [
            srgb_to_linear(c.x as f32) * factor,
            srgb_to_linear(c.y as f32) * factor,
            srgb_to_linear(c.z as f32) * factor,
            (c.w as f32).clamp(0.0, 1.0),
        ],
        base_color_texture: texture,
        double_sided: false,
    }
}

/// The skins and meshes: each mesh node's material parts triangulated into primitives, corners that share
/// position, normal and UV merged; a skinned mesh follows its skin (inverse binds from the clusters'
/// geometry-to-bone matrices), another mesh the nearest joint above it.
fn read_meshes(
    scene: &ufbx::Scene,
    joint_of: &HashMap<u32, usize>,
    base: Option<&Path>,
    materials: &mut Vec<Material>,
    textures: &mut Vec<Texture>,
    notes: &mut Vec<String>,
) -> Result<(Vec<Skin>, Vec<Mesh>), String> {
    let mut material_index: HashMap<u32, usize> = HashMap::new();
    let mut skins = Vec::new();
    let mut meshes = Vec::new();
    let mut morph_budget = MAX_MORPH_DISPLACEMENTS;
    for node in scene.nodes.iter() {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let name = node.element.name.to_string();
        if mesh.num_triangles == 0 {
            continue;
        }
        if !mesh.vertex_position.exists {
            notes.push(format!("mesh '{name}': no vertex positions; skipped"));
            continue;
        }
        // Skin: clusters whose bone is a joint.
        let skin_deformer = mesh.skin_deformers.first();
        let mut cluster_slot: Vec<Option<u16>> = Vec::new();
        let placement = match skin_deformer {
            Some(sd) => {
                let mut joints = Vec::new();
                let mut inverse_bind = Vec::new();
                for cluster in sd.clusters.iter() {
                    let joint = cluster
                        .bone_node
                        .as_ref()
                        .and_then(|b| joint_of.get(&b.element.typed_id).copied());
                    match joint {
                        Some(j) if joints.len() < usize::from(u16::MAX) => {
                            cluster_slot.push(Some(joints.len() as u16));
                            joints.push(j);
                            inverse_bind.push(mat4(&cluster.geometry_to_bone));
                        }
                        _ => cluster_slot.push(None),
                    }
                }
                skins.push(Skin {
                    name: sd.element.name.to_string(),
                    joints,
                    inverse_bind,
                });
                MeshPlacement::Skinned {
                    skin: skins.len() - 1,
                }
            }
            None => {
                // The nearest joint above (or at) the node.
                let mut up: Option<&ufbx::Node> = Some(node.as_ref());
                let mut found = None;
                while let Some(n) = up {
                    if let Some(&j) = joint_of.get(&n.element.typed_id) {
                        found = Some((j, n));
                        break;
                    }
                    up = n.parent.as_ref().map(|p| p.as_ref());
                }
                let geometry_to_world = mat4(&node.geometry_to_world);
                match found {
                    Some((joint, at)) => MeshPlacement::Joint {
                        joint,
                        offset: mat4(&at.node_to_world).inverse() * geometry_to_world,
                    },
                    None => MeshPlacement::Model {
                        transform: geometry_to_world,
                    },
                }
            }
        };
        let mut part_material = Vec::new();
        for m in mesh.materials.iter() {
            let id = m.element.typed_id;
            let index = match material_index.get(&id) {
                Some(&i) => i,
                None => {
                    materials.push(read_material(m, base, textures, notes));
                    material_index.insert(id, materials.len() - 1);
                    materials.len() - 1
                }
            };
            part_material.push(index);
        }
        let mut primitives = Vec::new();
        let all_faces: Vec<u32> = (0..mesh.num_faces as u32).collect();
        let parts: Vec<(Option<usize>, &[u32])> = if mesh.material_parts.is_empty() {
            vec![(None, &all_faces[..])]
        } else {
            mesh.material_parts
                .iter()
                .map(|p| {
                    let faces: &[u32] = p.face_indices.as_ref();
                    (part_material.get(p.index as usize).copied(), faces)
                })
                .collect()
        };
        let mut sources = Vec::new();
        for (material, faces) in parts {
            let (primitive, source) = read_primitive(
                mesh,
                skin_deformer.map(|s| s.as_ref()),
                &cluster_slot,
                faces,
            )?;
            if !primitive.indices.is_empty() {
                primitives.push(Primitive {
                    material,
                    ..primitive
                });
                sources.push(source);
            }
        }
        let mesh_name = mesh.element.name.to_string();
        let mesh_name = if mesh_name.is_empty() {
            name.clone()
        } else {
            mesh_name
        };
        let morph = read_blend_shapes(
            mesh,
            &name,
            &mesh_name,
            &mut primitives,
            &sources,
            &mut morph_budget,
            notes,
        );
        meshes.push(Mesh {
            name,
            placement,
            primitives,
            morph,
        });
    }
    Ok((skins, meshes))
}

/// One primitive from a list of faces: triangulated, corners with the same position, normal and UV merged,
/// the four largest skin weights per vertex (normalised); with, per vertex, the mesh's vertex it comes from
/// (what blend shapes displace).
fn read_primitive(
    mesh: &ufbx::Mesh,
    skin: Option<&ufbx::SkinDeformer>,
    cluster_slot: &[Option<u16>],
    faces: &[u32],
) -> Result<(Primitive, Vec<u32>), String> {
    let mut p = Primitive::default();
    let mut source = Vec::new();
    let has_uv = mesh.vertex_uv.exists;
    let has_normal = mesh.vertex_normal.exists;
    if has_uv {
        p.uvs = Some(Vec::new());
    }
    if skin.is_some() {
        p.joints = Some(Vec::new());
        p.weights = Some(Vec::new());
    }
    let mut merged: HashMap<(u32, u32, u32), u32> = HashMap::new();
    let mut corners = vec![0u32; mesh.max_face_triangles * 3];
    for &f in faces {
        let face = *mesh.faces.get(f as usize).ok_or_else(|| {
            format!(
                "mesh '{}': face {f} out of range",
                mesh.element.name.as_ref() as &str
            )
        })?;
        let count = mesh.triangulate_face(&mut corners, face) as usize;
        for &ix in &corners[..count * 3] {
            let ix = ix as usize;
            let key = (
                mesh.vertex_position.indices[ix],
                if has_normal {
                    mesh.vertex_normal.indices[ix]
                } else {
                    0
                },
                if has_uv {
                    mesh.vertex_uv.indices[ix]
                } else {
                    0
                },
            );
            let next = p.positions.len() as u32;
            let v = *merged.entry(key).or_insert(next);
            if v == next {
                p.positions.push(vec3(mesh.vertex_position[ix]).to_array());
                source.push(mesh.vertex_indices[ix]);
                let n = if has_normal {
                    vec3(mesh.vertex_normal[ix]).normalize_or(Vec3::Y)
                } else {
                    Vec3::Y
                };
                p.normals.push(n.to_array());
                if let Some(uvs) = &mut p.uvs {
                    let uv = mesh.vertex_uv[ix];
                    // FBX's V runs up from the bottom of the image; glTF's (and ours) down from the top.
                    uvs.push([uv.x as f32, 1.0 - uv.y as f32]);
                }
                if let (Some(sd), Some(joints), Some(weights)) =
                    (skin, &mut p.joints, &mut p.weights)
                {
                    let vertex = mesh.vertex_indices[ix] as usize;
                    let (j, w) = skin_weights(sd, cluster_slot, vertex);
                    joints.push(j);
                    weights.push(w);
                }
            }
            p.indices.push(v);
        }
    }
    if !has_normal && !p.indices.is_empty() {
        p.normals = super::gltf::generate_normals(&p.positions, &p.indices);
    }
    Ok((p, source))
}

/// Most blend-shape displacements (targets × vertices over a file's meshes) read: 64 M.
pub const MAX_MORPH_DISPLACEMENTS: usize = 1 << 26;

/// The mesh's blend shapes (every channel of its blend deformers, at its full-weight shape) as morph targets
/// of `primitives` (`sources`: per primitive, each vertex's mesh vertex), named by channel, their default
/// weights the channels' (Deform Percent / 100); None when it has none. `budget` is the displacements left to
/// read; a mesh over it keeps no targets, with a note.
fn read_blend_shapes(
    mesh: &ufbx::Mesh,
    node: &str,
    name: &str,
    primitives: &mut [Primitive],
    sources: &[Vec<u32>],
    budget: &mut usize,
    notes: &mut Vec<String>,
) -> Option<MorphSet> {
    let channels: Vec<&ufbx::BlendChannel> = mesh
        .blend_deformers
        .iter()
        .flat_map(|d| d.channels.iter().map(|c| c.as_ref()))
        .filter(|c| c.target_shape.is_some())
        .collect();
    if channels.is_empty() {
        return None;
    }
    let vertices: usize = sources.iter().map(Vec::len).sum();
    let wanted = vertices.saturating_mul(channels.len());
    if wanted > *budget {
        notes.push(format!(
            "mesh '{name}': {} blend shapes over {vertices} vertices, over the {MAX_MORPH_DISPLACEMENTS} \
             displacements read; they are left out",
            channels.len()
        ));
        return None;
    }
    *budget -= wanted;
    let mut offsets = vec![Vec3::ZERO; mesh.num_vertices];
    for channel in &channels {
        offsets.fill(Vec3::ZERO);
        if let Some(shape) = &channel.target_shape {
            for (&v, &d) in shape
                .offset_vertices
                .iter()
                .zip(shape.position_offsets.iter())
            {
                if let Some(slot) = offsets.get_mut(v as usize) {
                    *slot = vec3(d);
                }
            }
        }
        for (p, source) in primitives.iter_mut().zip(sources) {
            p.targets.push(MorphTarget {
                positions: source
                    .iter()
                    .map(|&v| {
                        offsets
                            .get(v as usize)
                            .copied()
                            .unwrap_or(Vec3::ZERO)
                            .to_array()
                    })
                    .collect(),
                normals: None,
            });
        }
    }
    Some(MorphSet {
        node: node.to_string(),
        mesh: name.to_string(),
        target_names: channels
            .iter()
            .map(|c| c.element.name.to_string())
            .collect(),
        default_weights: channels.iter().map(|c| c.weight as f32).collect(),
    })
}

/// The four largest weights of a skinned vertex, normalised (a vertex without weights follows skin joint 0).
fn skin_weights(
    sd: &ufbx::SkinDeformer,
    cluster_slot: &[Option<u16>],
    vertex: usize,
) -> ([u16; 4], [f32; 4]) {
    let mut pairs: Vec<(u16, f32)> = Vec::new();
    if let Some(sv) = sd.vertices.get(vertex) {
        let begin = sv.weight_begin as usize;
        let end = (begin + sv.num_weights as usize).min(sd.weights.len());
        let all: &[ufbx::SkinWeight] = sd.weights.as_ref();
        for w in &all[begin.min(end)..end] {
            if let Some(Some(slot)) = cluster_slot.get(w.cluster_index as usize)
                && w.weight > 0.0
            {
                pairs.push((*slot, w.weight as f32));
            }
        }
    }
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1));
    pairs.truncate(4);
    let sum: f32 = pairs.iter().map(|p| p.1).sum();
    let mut joints = [0u16; 4];
    let mut weights = [0.0f32; 4];
    if sum <= 0.0 {
        weights[0] = 1.0;
        return (joints, weights);
    }
    for (k, (j, w)) in pairs.into_iter().enumerate() {
        joints[k] = j;
        weights[k] = w / sum;
    }
    (joints, weights)
}

/// A baked channel as linear keys, or None when it holds the rest value throughout (`at_rest`).
fn baked_channel<T: crate::core::clip::KeyValue>(
    keys: Vec<(f32, T)>,
    constant: bool,
    at_rest: impl Fn(&T) -> bool,
) -> Result<Option<Keys<T>>, crate::core::clip::ClipError> {
    if constant && keys.iter().all(|k| at_rest(&k.1)) {
        return Ok(None);
    }
    let (times, values) = keys.into_iter().unzip();
    Keys::new(times, values, Interpolation::Linear).map(Some)
}

/// Every animation stack that moves a joint, as a clip sampled at its keys by ufbx (`bake_anim`), with its
/// error against ufbx's evaluation between keys noted.
fn read_clips(
    scene: &ufbx::Scene,
    skeleton: &Skeleton,
    humanoid: &HumanoidMap,
    joint_of: &HashMap<u32, usize>,
    notes: &mut Vec<String>,
) -> Result<Vec<Clip>, String> {
    let targets = crate::core::binding::track_targets(skeleton, Some(humanoid));
    let node_of_typed: HashMap<u32, &ufbx::Node> = scene
        .nodes
        .iter()
        .map(|n| (n.element.typed_id, n.as_ref()))
        .collect();
    let mut clips = Vec::new();
    for stack in scene.anim_stacks.iter() {
        let name = stack.element.name.to_string();
        let opts = ufbx::BakeOpts {
            trim_start_time: true,
            result_allocator: bounded_allocator(),
            temp_allocator: bounded_allocator(),
            ..Default::default()
        };
        let baked = match ufbx::bake_anim(scene, &stack.anim, opts) {
            Ok(b) => b,
            Err(e) => {
                notes.push(format!("animation '{name}': not read: {}", e.description));
                continue;
            }
        };
        let mut tracks: BTreeMap<usize, Track> = BTreeMap::new();
        let mut moves = false;
        for bn in baked.nodes.iter() {
            let Some(&joint) = joint_of.get(&bn.typed_id) else {
                continue;
            };
            let rest = skeleton.rest()[joint];
            let what = |c: &str| format!("animation '{name}' joint '{}' {c}", skeleton.name(joint));
            let mut track = Track {
                target: targets[joint].clone(),
                translation: None,
                rotation: None,
                scale: None,
            };
            let t_keys: Vec<(f32, Vec3)> = bn
                .translation_keys
                .iter()
                .map(|k| (k.time as f32, vec3(k.value)))
                .collect();
            let r_keys: Vec<(f32, Quat)> = bn
                .rotation_keys
                .iter()
                .map(|k| (k.time as f32, quat(k.value)))
                .collect();
            let s_keys: Vec<(f32, Vec3)> = bn
                .scale_keys
                .iter()
                .map(|k| (k.time as f32, vec3(k.value)))
                .collect();
            let err = |c: &str, e: crate::core::clip::ClipError| what(&format!("{c}: {e}"));
            track.translation = baked_channel(t_keys, bn.constant_translation, |v| {
                v.abs_diff_eq(rest.translation.into(), 1e-6)
            })
            .map_err(|e| err("translation", e))?;
            track.rotation = baked_channel(r_keys, bn.constant_rotation, |q| {
                q.dot(rest.rotation).abs() > 1.0 - 1e-7
            })
            .map_err(|e| err("rotation", e))?;
            track.scale = baked_channel(s_keys, bn.constant_scale, |v| {
                v.abs_diff_eq(rest.scale.into(), 1e-6)
            })
            .map_err(|e| err("scale", e))?;
            moves |= !(bn.constant_translation && bn.constant_rotation && bn.constant_scale);
            if track.channel_count() > 0 {
                tracks.insert(joint, track);
            }
        }
        if !moves {
            notes.push(format!("animation '{name}': moves no joint; left out"));
            continue;
        }
        let clip = Clip::new(name.clone(), tracks.into_values().collect());
        let keys = baked
            .nodes
            .iter()
            .map(|n| n.rotation_keys.len())
            .max()
            .unwrap_or(0);
        let (at_keys, between) = error_against_ufbx(
            &clip,
            skeleton,
            &stack.anim,
            joint_of,
            &node_of_typed,
            baked.playback_time_begin,
        );
        notes.push(format!(
            "animation '{name}': {:.3} s, up to {keys} keys per joint; against ufbx's evaluation (joint points \
             {:.0} cm out): within {:.4} cm at the keys all its channels share, {:.4} cm midway between keys",
            clip.duration,
            CHECK_POINT_OFFSET * 100.0,
            at_keys * 100.0,
            between * 100.0
        ));
        clips.push(clip);
    }
    Ok(clips)
}

/// Model-space positions of a joint frame's origin and its three virtual points `CHECK_POINT_OFFSET` along
/// its (unit) axes.
pub fn frame_points(m: &Mat4) -> [Vec3; 4] {
    let origin = m.w_axis.truncate();
    let axis = |c: glam::Vec4| c.truncate().normalize_or_zero() * CHECK_POINT_OFFSET;
    [
        origin,
        origin + axis(m.x_axis),
        origin + axis(m.y_axis),
        origin + axis(m.z_axis),
    ]
}

/// The largest distances (metres), over joints, between a joint's frame points as the clip poses them and as
/// ufbx evaluates the stack: at the clip's key times and midway between them (each at most
/// [`MAX_CHECK_SAMPLES`] times, evenly spread).
fn error_against_ufbx(
    clip: &Clip,
    skeleton: &Skeleton,
    anim: &ufbx::Anim,
    joint_of: &HashMap<u32, usize>,
    node_of_typed: &HashMap<u32, &ufbx::Node>,
    time_begin: f64,
) -> (f32, f32) {
    // Key times every animated channel has (ufbx adds keys around steps in some channels only), and the
    // times midway between keys of the densest channel.
    let channels: Vec<&[f32]> = clip
        .tracks
        .iter()
        .flat_map(|t| {
            [
                t.translation.as_ref().map(|k| k.times()),
                t.rotation.as_ref().map(|k| k.times()),
                t.scale.as_ref().map(|k| k.times()),
            ]
        })
        .flatten()
        .filter(|k| k.len() > 1)
        .collect();
    let densest: Vec<f32> = channels
        .iter()
        .max_by_key(|k| k.len())
        .map_or_else(Vec::new, |k| k.to_vec());
    let has = |k: &[f32], t: f32| {
        let i = k.partition_point(|&x| x < t - 1e-5);
        k.get(i).is_some_and(|&x| (x - t).abs() <= 1e-5)
    };
    let times: Vec<f32> = densest
        .iter()
        .copied()
        .filter(|&t| channels.iter().all(|k| has(k, t)))
        .collect();
    let mids: Vec<f32> = densest.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
    let binding = clip.bind(skeleton, None);
    let joints: Vec<(usize, &ufbx::Node)> = joint_of
        .iter()
        .filter_map(|(id, &j)| node_of_typed.get(id).map(|n| (j, *n)))
        .collect();
    let mut ours = Pose::rest(skeleton);
    let mut theirs = Pose::rest(skeleton);
    let mut worst_at = |samples: &[f32]| {
        let step = (samples.len() / MAX_CHECK_SAMPLES).max(1);
        let mut worst = 0.0f32;
        for &t in samples.iter().step_by(step) {
            ours.reset_to_rest(skeleton);
            clip.sample_into(&binding, t, Wrap::Clamp, &mut ours);
            for &(j, node) in &joints {
                let local = ufbx::evaluate_transform(anim, node, time_begin + f64::from(t));
                theirs.local[j] = transform(&local);
            }
            let a = ours.model_matrices(skeleton);
            let b = theirs.model_matrices(skeleton);
            for (ma, mb) in a.iter().zip(&b) {
                for (pa, pb) in frame_points(ma).iter().zip(frame_points(mb)) {
                    worst = worst.max(pa.distance(pb));
                }
            }
        }
        worst
    };
    (worst_at(&times), worst_at(&mids))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_binary_fbx_cut_short_is_told_apart() {
        let mut bytes = b"Kaydara FBX Binary  \0\x1a\x00".to_vec();
        bytes.extend(7400u32.to_le_bytes());
        // One top-level record claiming to end at byte 1000, then nothing.
        bytes.extend(1000u32.to_le_bytes());
        bytes.extend([0u8; 8]);
        bytes.extend(b"\x03FBX");
        assert_eq!(binary_fbx_cut_short(&bytes), Some(1000));
        let err = load_bytes_with(
            &bytes,
            "cut",
            None,
            Path::new("cut.fbx"),
            &Limits::default(),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("cut.fbx: the file is cut short: it ends at byte"),
            "{err}"
        );
        // A list that ends (a zero end offset) is whole, and text FBX is not looked at.
        let mut whole = bytes[..27].to_vec();
        whole.extend([0u8; 13]);
        assert_eq!(binary_fbx_cut_short(&whole), None);
        assert_eq!(binary_fbx_cut_short(b"; FBX 7.4.0 project file"), None);
    }
    use super::*;

    #[test]
    fn fbx_headers_are_recognised() {
        assert!(looks_like_fbx(b"Kaydara FBX Binary  \0\x1a\0"));
        assert!(looks_like_fbx(b"; FBX 7.4.0 project file\n"));
        assert!(!looks_like_fbx(b"glTF\x02\0\0\0"));
        assert!(!looks_like_fbx(b""));
    }

    /// A text FBX in centimetres (`tiny.fbx`'s skinned quad) with a blend deformer of two channels, written from
    /// the FBX layout: Smile lifts the top two vertices by 50 cm at full weight (Deform Percent 25), Blink moves
    /// the first vertex 20 cm along X (0). They become the mesh's morph targets by channel name, with the
    /// channels' weights as defaults, and each vertex's displacement is its shape offset in metres.
    #[test]
    fn blend_shapes_become_morph_targets_named_by_channel() {
        let text = include_str!("tiny.fbx")
            .replace(
                r#"P: "UnitScaleFactor", "double", "Number", "",100"#,
                r#"P: "UnitScaleFactor", "double", "Number", "",1"#,
            )
            .replace(
                "\tModel: 2000,",
                r#"	Geometry: 1100, "Geometry::Smile", "Shape" {
		Version: 100
		Indexes: *2 {
			a: 2,3
		}
		Vertices: *6 {
			a: 0,50,0,0,50,0
		}
	}
	Geometry: 1101, "Geometry::Blink", "Shape" {
		Version: 100
		Indexes: *1 {
			a: 0
		}
		Vertices: *3 {
			a: 20,0,0
		}
	}
	Deformer: 4100, "Deformer::Face", "BlendShape" {
		Version: 100
	}
	Deformer: 4101, "SubDeformer::Smile", "BlendShapeChannel" {
		Version: 100
		DeformPercent: 25
		FullWeights: *1 {
			a: 100
		}
	}
	Deformer: 4102, "SubDeformer::Blink", "BlendShapeChannel" {
		Version: 100
		DeformPercent: 0
		FullWeights: *1 {
			a: 100
		}
	}
	Model: 2000,"#,
            )
            .replace(
                "Connections:  {\n",
                "Connections:  {\n\tC: \"OO\",4100,1000\n\tC: \"OO\",4101,4100\n\tC: \"OO\",4102,4100\n\tC: \"OO\",1100,4101\n\tC: \"OO\",1101,4102\n",
            );
        assert!(text.contains("SubDeformer::Blink") && text.contains(r#""OO",1101,4102"#));
        let model = load_bytes_with(
            text.as_bytes(),
            "shapes",
            None,
            Path::new("shapes.fbx"),
            &Limits::default(),
        )
        .unwrap();
        let mesh = &model.character.meshes[0];
        let set = mesh.morph.as_ref().expect("its blend shapes");
        assert_eq!(set.target_names, ["Smile", "Blink"]);
        assert_eq!(set.default_weights, [0.25, 0.0]);
        // The file's vertices in metres, to find each imported vertex's own.
        let file = [[-0.1, 0.0], [0.1, 0.0], [-0.1, 1.0], [0.1, 1.0]]
            .map(|[x, y]| Vec3::new(x, y, 0.0) * 0.01);
        let mut seen = 0;
        for p in &mesh.primitives {
            assert_eq!(p.targets.len(), 2);
            for (v, position) in p.positions.iter().enumerate() {
                let at = file
                    .iter()
                    .position(|f| f.distance(Vec3::from(*position)) < 1e-6)
                    .expect("a vertex of the file");
                let smile = if at >= 2 {
                    Vec3::new(0.0, 0.5, 0.0)
                } else {
                    Vec3::ZERO
                };
                let blink = if at == 0 {
                    Vec3::new(0.2, 0.0, 0.0)
                } else {
                    Vec3::ZERO
                };
                for (target, want) in p.targets.iter().zip([smile, blink]) {
                    let got = Vec3::from(target.positions[v]);
                    assert!(got.distance(want) < 1e-6, "vertex {at}: {got} want {want}");
                }
                seen += 1;
            }
        }
        assert_eq!(seen, 4);
    }

    #[test]
    fn garbage_is_a_format_error_naming_the_file() {
        let bytes = b"Kaydara FBX Binary  \0\x1a\0\xff\xff\xff\xff garbage";
        let err = load_bytes_with(bytes, "x", None, Path::new("x.fbx"), &Limits::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("x.fbx: "), "{err}");
    }
}
