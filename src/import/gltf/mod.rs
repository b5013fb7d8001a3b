//! glTF 2.0 / VRM 0.x / VRM 1.0 / VRMA import through the `gltf` crate, one concern per file: validation,
//! nodes and the skeleton, VRM, skins, materials, meshes, animations.

mod animations;
mod expressions;
mod materials;
mod meshes;
mod nodes;
mod skins;
mod springs;
mod validate;
mod vrm;

use std::path::Path;

use ::gltf as gl;
use glam::Mat4;

use super::{ImportError, ImportedModel, Limits};
use crate::core::Character;
use crate::core::humanoid::MappingSource;

pub use expressions::{MAX_EXPRESSION_BINDS, MAX_EXPRESSIONS};
pub use materials::image_decodes_on_this_thread;
pub use meshes::generate_normals;
pub use springs::{MAX_SPRING_COLLIDERS, MAX_SPRING_JOINTS};

/// Imports from bytes; `base` is the folder external files are read from (None: external files refused),
/// `path` names the source in errors.
pub fn load_bytes(
    bytes: &[u8],
    name: &str,
    base: Option<&Path>,
    path: &Path,
) -> Result<ImportedModel, ImportError> {
    load_bytes_with(bytes, name, base, path, &Limits::from_env())
}

/// Imports glTF/GLB/VRM bytes within the given limits (see [`load_bytes`]): everything is validated before
/// it is read, then the skeleton, the humanoid map, skins, materials, meshes and clips are read in turn.
pub fn load_bytes_with(
    bytes: &[u8],
    name: &str,
    base: Option<&Path>,
    path: &Path,
    limits: &Limits,
) -> Result<ImportedModel, ImportError> {
    let format_err = |message: String| ImportError::Format {
        path: path.to_path_buf(),
        message,
    };
    let data_err = |message: String| ImportError::Data {
        path: path.to_path_buf(),
        message,
    };
    validate::check_glb_header(bytes)
        .and_then(|()| validate::check_attribute_indices(bytes))
        .map_err(format_err)?;
    let mut notes = Vec::new();
    let (document, blob) = validate::parse_document(bytes, &mut notes).map_err(format_err)?;
    validate::check_limits(&document, path, limits)?;
    validate::check_uris(&document, base, path, limits)?;
    let buffers =
        gl::import_buffers(&document, base, blob).map_err(|e| format_err(e.to_string()))?;
    validate::check_accessors(&document, &buffers).map_err(data_err)?;
    validate::check_accessor_types(&document).map_err(data_err)?;
    validate::check_sampler_counts(&document).map_err(data_err)?;

    let nodes = nodes::NodeGraph::new(&document).map_err(data_err)?;
    let vrm = vrm::VrmInfo::read(&document);
    // VRM 0.x models face -Z; everything is turned to face +Z like the other formats.
    let vrm0 = vrm.source == MappingSource::Vrm0;
    let facing_fix = if vrm0 {
        Mat4::from_rotation_y(std::f32::consts::PI)
    } else {
        Mat4::IDENTITY
    };
    let vrm_nodes: Vec<usize> = vrm.bones.iter().map(|(_, n)| *n).collect();
    let over_limit = |what: String| ImportError::OverLimit {
        path: path.to_path_buf(),
        what,
    };
    let spring_nodes = springs::SpringNodes::read(&document, &nodes).map_err(over_limit)?;
    // A node with a mesh is never made a joint for a spring (three-vrm would swing the mesh itself).
    let has_mesh: Vec<bool> = document.nodes().map(|n| n.mesh().is_some()).collect();
    let required: Vec<usize> = spring_nodes
        .nodes()
        .into_iter()
        .filter(|&n| !has_mesh[n])
        .collect();
    let nodes::SkeletonNodes {
        skeleton,
        node_to_joint,
    } = nodes::skeleton(&document, &nodes, &vrm_nodes, &required, facing_fix).map_err(data_err)?;
    validate::check_rest_extent(&skeleton).map_err(data_err)?;
    let humanoid = vrm::humanoid(&vrm, &node_to_joint, &skeleton, &mut notes);
    let springs = spring_nodes.into_joints(&node_to_joint, &nodes.names, &mut notes);
    let skins = skins::read_skins(&document, &buffers, &node_to_joint).map_err(data_err)?;
    let mut warnings = Vec::new();
    let (textures, image_of_texture) =
        materials::read_textures(&document, base, &buffers, &mut notes, &mut warnings);
    let materials = materials::read_materials(&document, &image_of_texture);
    let meshes = meshes::read_meshes(
        &document,
        &buffers,
        &nodes,
        &node_to_joint,
        facing_fix,
        &mut notes,
    )
    .map_err(data_err)?;
    let (mut clips, clip_warnings) = animations::read_clips(
        &document,
        &buffers,
        &skeleton,
        &humanoid,
        &node_to_joint,
        &nodes.names,
        &mut notes,
    )
    .map_err(data_err)?;
    warnings.extend(clip_warnings);
    // VRM and VRM Animation fix the character's axes (+Z forward, once VRM 0.x is turned): their clips are
    // retargeted as facing +Z, not by a guess from their rest pose.
    if vrm.source != MappingSource::None {
        for clip in &mut clips {
            clip.facing_yaw = Some(0.0);
        }
    }
    if vrm0 {
        notes.push("VRM 0.x model faces −Z: turned 180° about +Y to face +Z".to_string());
    }
    let mut character = Character {
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
        springs,
        facing_corrected: vrm0,
        notes,
        warnings,
    };
    character.vrm_look_at = expressions::look_at(&document);
    match expressions::read(
        &document,
        &nodes,
        &character.meshes,
        &mut character.notes,
        &mut character.warnings,
    )
    .map_err(over_limit)?
    {
        Some(file) => {
            character.expressions = file;
            character.vrm_expressions = true;
        }
        None => {
            character.expressions = crate::core::expression::from_target_names(&character);
        }
    }
    Ok(ImportedModel { character, clips })
}
