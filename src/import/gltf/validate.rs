//! Checks that run before anything is read or allocated from a glTF file: the GLB header, the JSON's
//! references and attribute names, the limits on sizes, external URIs, and every accessor against its buffer
//! and the types the specification allows.

use std::path::Path;

use ::gltf as gl;

use crate::import::{ImportError, Limits, uri};

/// Checks the GLB header's declared length before the glTF reader does arithmetic with it (a declared total
/// under the header size made it underflow).
pub(super) fn check_glb_header(bytes: &[u8]) -> Result<(), String> {
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

/// Extensions a file may require that animtune reads itself (the gltf crate does not know them).
const READ_HERE: &[&str] = &[
    "VRM",
    "VRMC_vrm",
    "VRMC_vrm_animation",
    "VRMC_springBone",
    "VRMC_springBone_extended_collider",
];

/// Extensions a file may require that animtune can show the model without: accepted, with a note.
const SHOWN_WITHOUT: &[(&str, &str)] = &[
    (
        "VRMC_materials_mtoon",
        "MToon materials are drawn with their base colour and texture",
    ),
    ("VRMC_node_constraint", "node constraints are not applied"),
];

/// Parses the document and validates it with the gltf crate, after taking out of `extensionsRequired` the
/// extensions read here (VRM) or not needed to show the model (noted in `notes`); any other required extension
/// the crate does not support is refused by name.
pub(super) fn parse_document(
    bytes: &[u8],
    notes: &mut Vec<String>,
) -> Result<(gl::Document, Option<Vec<u8>>), String> {
    let gl::Gltf { document, blob } =
        gl::Gltf::from_slice_without_validation(bytes).map_err(|e| e.to_string())?;
    let mut root = document.into_json();
    let mut unknown = Vec::new();
    root.extensions_required.retain(|ext| {
        if gl::json::extensions::ENABLED_EXTENSIONS.contains(&ext.as_str()) {
            return true;
        }
        if READ_HERE.contains(&ext.as_str()) {
            return false;
        }
        if let Some((_, what)) = SHOWN_WITHOUT.iter().find(|(name, _)| name == ext) {
            notes.push(format!("requires {ext}: {what}"));
            return false;
        }
        unknown.push(ext.clone());
        true
    });
    if !unknown.is_empty() {
        return Err(format!(
            "requires the glTF extension(s) {}, which animtune cannot read",
            unknown.join(", ")
        ));
    }
    let document = gl::Document::from_json(root).map_err(|e| match e {
        gl::Error::Validation(errors) => validation_report(&errors),
        other => other.to_string(),
    })?;
    Ok((document, blob))
}

/// How many of the glTF reader's validation errors a report lists by name.
const ERRORS_LISTED: usize = 5;

/// The glTF reader's validation errors as one report: how many there are, then the first few by JSON path.
fn validation_report(errors: &[(gl::json::Path, gl::json::validation::Error)]) -> String {
    let listed: Vec<String> = errors
        .iter()
        .take(ERRORS_LISTED)
        .map(|(path, error)| format!("{path}: {error}"))
        .collect();
    let more = errors.len().saturating_sub(ERRORS_LISTED);
    let count = match errors.len() {
        1 => "1 error".to_string(),
        n => format!("{n} errors"),
    };
    let tail = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    format!("invalid glTF, {count}: {}{tail}", listed.join("; "))
}

/// Checks that every primitive attribute names an existing accessor, before the glTF reader's validation
/// (gltf-json 1.4.1 indexes the POSITION accessor unchecked and panics on a bad index).
pub(super) fn check_attribute_indices(bytes: &[u8]) -> Result<(), String> {
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
pub(super) fn check_limits(
    document: &gl::Document,
    path: &Path,
    limits: &Limits,
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
    let displacements: usize = document
        .meshes()
        .flat_map(|m| m.primitives())
        .filter_map(|p| {
            let n = p.get(&gl::Semantic::Positions)?.count();
            Some(n.saturating_mul(p.morph_targets().len()))
        })
        .fold(0usize, usize::saturating_add);
    if displacements > limits.max_vertices {
        return Err(over(format!(
            "{displacements} morph-target vertex displacements, over the limit of {} (set ANIMTUNE_MAX_VERTICES or \
             --max-vertices to allow more)",
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

pub(super) fn check_uris(
    document: &gl::Document,
    base: Option<&Path>,
    path: &Path,
    limits: &Limits,
) -> Result<(), ImportError> {
    // (URI, is an image): a missing image is not fatal (the model draws untextured, see `read_textures`).
    let mut uris: Vec<(&str, bool)> = Vec::new();
    for b in document.buffers() {
        if let gl::buffer::Source::Uri(u) = b.source() {
            uris.push((u, false));
        }
    }
    for i in document.images() {
        if let gl::image::Source::Uri { uri, .. } = i.source() {
            uris.push((uri, true));
        }
    }
    for (u, image) in uris {
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
        let file = uri::resolve(base, u).map_err(|error| ImportError::Uri {
            path: path.to_path_buf(),
            error,
        })?;
        if image && !file.exists() {
            continue;
        }
        // The glTF reader opens it next: a FIFO or a device must not get that far.
        crate::io::limits::check_regular_file(&file, limits.max_file_bytes)?;
    }
    Ok(())
}

/// Checks every accessor lies inside its buffer, so reading never goes out of bounds.
pub(super) fn check_accessors(
    document: &gl::Document,
    buffers: &[gl::buffer::Data],
) -> Result<(), String> {
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
    let mut implicit_bytes = 0u64;
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
        // Without a buffer view the accessor is materialised from zeros: its size comes from the count alone, so
        // a tiny file could declare gigabytes. Their total is bounded.
        let bytes = (a.count() as u64).saturating_mul(a.size() as u64);
        if a.view().is_none() {
            implicit_bytes = implicit_bytes.saturating_add(bytes);
            if implicit_bytes > MAX_IMPLICIT_ACCESSOR_BYTES {
                return Err(format!(
                    "{what}: {} elements with no buffer view would take {bytes} bytes, over the \
                     {MAX_IMPLICIT_ACCESSOR_BYTES}-byte limit for accessors made of zeros (all together)",
                    a.count()
                ));
            }
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

/// The most bytes all accessors without a buffer view (zeros plus sparse values) may take together: 64 MiB.
const MAX_IMPLICIT_ACCESSOR_BYTES: u64 = 64 << 20;

/// Checks that each animation sampler's output has as many elements as its input needs (one per key, three for
/// cubic splines) before either is read.
pub(super) fn check_sampler_counts(document: &gl::Document) -> Result<(), String> {
    for anim in document.animations() {
        for s in anim.samplers() {
            let times = s.input().count();
            let per_key = match s.interpolation() {
                gl::animation::Interpolation::CubicSpline => 3,
                _ => 1,
            };
            let values = s.output().count();
            // Morph-weight outputs hold one value per target per key.
            if values < times * per_key || values % (times * per_key) != 0 {
                return Err(format!(
                    "animation {} sampler {}: {times} key times but {values} output values",
                    anim.index(),
                    s.index()
                ));
            }
        }
    }
    Ok(())
}

/// Checks that every accessor the importer reads has the type its use requires (the glTF reader assumes it
/// and asserts otherwise).
pub(super) fn check_accessor_types(document: &gl::Document) -> Result<(), String> {
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
            for (t, target) in prim.morph_targets().enumerate() {
                let displacements = [
                    ("POSITION", target.positions()),
                    ("NORMAL", target.normals()),
                    ("TANGENT", target.tangents()),
                ];
                for (name, a) in displacements {
                    if let Some(a) = a {
                        want(
                            &a,
                            &[Dm::Vec3],
                            &[D::F32],
                            &format!("{what} morph target {t} {name}"),
                        )?;
                    }
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

/// Farthest a rest joint of a glTF/VRM/VRMA file may stand from the scene origin: 10 km, the bound the clip
/// settings' root offsets have. A humanoid resting farther away is a corrupt translation: its hips height would
/// scale retargeted motion to nothing (a VRMA hips at 1e38 m put a character's hips at y ≈ 7e-39).
pub(super) const MAX_REST_DISTANCE_M: f32 = 1.0e4;

/// Refuses a skeleton whose rest pose puts a joint farther than [`MAX_REST_DISTANCE_M`] from the origin, naming it.
pub(super) fn check_rest_extent(skeleton: &crate::core::Skeleton) -> Result<(), String> {
    let model = crate::core::Pose::rest(skeleton).model_matrices(skeleton);
    let far = model
        .iter()
        .enumerate()
        .map(|(j, m)| (j, m.w_axis.truncate().as_dvec3().length()))
        .find(|&(_, d)| d.is_nan() || d > f64::from(MAX_REST_DISTANCE_M));
    match far {
        Some((j, d)) => Err(format!(
            "joint '{}' rests {d:.1e} m from the origin, farther than the {MAX_REST_DISTANCE_M:e} m a character may \
             (a corrupt rest translation?)",
            skeleton.name(j)
        )),
        None => Ok(()),
    }
}
