//! The offline pipeline, one way for every bake and export: reference **frames** (a clip sampled on a grid,
//! or the editor's stream with its layers) → **compact** (keys reduced, with one error search that decodes
//! each candidate as the format will be read and measures it against the frames) → **encode** (native
//! `.animclip`, the Unity layout, or a `.glb`).

pub mod compact;
pub mod encode;
pub mod frames;
pub mod goal_keys;
pub mod loop_seam;
pub mod measure;
pub mod mirror;
pub mod request;
pub mod root_pass;
pub mod skate_fix;
pub mod stream;

use serde::{Deserialize, Serialize};

pub use compact::ClipMeta;
pub use frames::Frames;
pub use measure::{max_vertex_error, measure};
pub use request::{BakeOutcome, BakeRequest, BakeSource, apply_clip_settings};
pub use stream::{PathPoint, StreamSource, StreamSpec, bake_stream};

use crate::clipfile::BakedClip;
use crate::clipfile::unity::UnityAxes;
use crate::core::{Character, Clip};
use compact::RotationInterp;
use encode::{gltf, native, unity};

/// The frame times a clip is baked on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Grid {
    /// Uniform at the settings' rate only (`--fps N`): between the source's keys the bake may cut corners,
    /// and the error measured against the source says by how much.
    Uniform,
    /// Uniform at the settings' rate, plus every source key time that falls off it: the default, so a bake
    /// follows the source through its keys.
    #[default]
    UniformWithSourceKeys,
    /// The source's key times only (`--keep-source-keys`).
    SourceKeys,
}

/// How to bake.
#[derive(Clone, Debug)]
pub struct BakeSettings {
    /// Frames per second of the uniform part of the grid.
    pub fps: f32,
    /// Which times the grid holds.
    pub grid: Grid,
    /// Largest allowed virtual-vertex displacement, in centimetres.
    pub tolerance_cm: f32,
    /// Store keyed values as 16-bit fractions of each track's range (when the error bound still holds).
    pub quantize: bool,
    /// Identifier written into the clip.
    pub id: i32,
    /// Axes of the Unity layout's values (Unity's unless a pipeline converts by itself).
    pub unity_axes: UnityAxes,
    /// Write only the joints that move. By default the Unity layout has a curve for every mapped humanoid bone
    /// (every joint of a non-humanoid), as the original writer records them and its player needs: a joint
    /// without a curve stays wherever it was.
    pub sparse: bool,
}

impl Default for BakeSettings {
    fn default() -> Self {
        BakeSettings {
            fps: 30.0,
            grid: Grid::UniformWithSourceKeys,
            tolerance_cm: 0.01,
            quantize: true,
            id: 0,
            unity_axes: UnityAxes::Unity,
            sparse: false,
        }
    }
}

/// What a bake produced.
#[derive(Clone, Debug, Serialize)]
pub struct BakeReport {
    /// Clip name.
    pub name: String,
    /// Grid frames.
    pub frames: u64,
    /// What the grid is ("30 fps + 12 source key times").
    pub grid: String,
    /// Times the error was measured at: the grid, plus (for a clip) every source key time and the quarter, half
    /// and three-quarter points between consecutive source keys and between consecutive grid frames.
    pub checked_times: usize,
    /// Tracks stored (joints that move).
    pub tracks: usize,
    /// Values stored over all channels (a constant counts one).
    pub keys: usize,
    /// Encoded size in bytes.
    pub bytes: usize,
    /// Size of raw 32-bit TRS samples of the source's animated joints on a uniform grid at the bake's rate.
    pub raw_bytes: usize,
    /// Largest virtual-vertex error of the file, decoded again, against the source at every checked time, in
    /// centimetres: the worst of the file read as its readers read it (glTF and Unity layout: by slerp and by
    /// nlerp; native: slerp) and played by animtune's player (compiled to the runtime's packed form).
    pub max_error_cm: f32,
    /// Whether keyed values were quantized.
    pub quantized: bool,
}

/// Why an export did not produce a file.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The user cancelled.
    #[error("export cancelled")]
    Cancelled,
    /// A parameter cannot be used.
    #[error("{0}")]
    Invalid(String),
    /// A setting of the tuning (a preset's clip settings, blend space or clip layers) cannot apply to the model;
    /// callers name the preset file, not the model.
    #[error("{0}")]
    Tuning(String),
}

/// The frame rates a bake's grid may have, frames per second: from one a second (below that a grid cannot
/// follow any motion) to 1000.
pub const FPS_RANGE: std::ops::RangeInclusive<f32> = 1.0..=1000.0;

/// The most joint poses a bake may hold in memory (frames × joints, about 48 bytes each: 480 MB).
pub const MAX_BAKE_SAMPLES: u64 = 10_000_000;

/// Refuses a bake of `frames` frames of `joints` joints over [`MAX_BAKE_SAMPLES`], before anything is sampled;
/// `what` names what would be baked (a clip, `--duration` and `--fps`…).
pub fn check_sample_budget(frames: u64, joints: usize, what: &str) -> Result<(), ExportError> {
    let samples = frames.saturating_mul(joints as u64);
    if samples > MAX_BAKE_SAMPLES {
        return Err(ExportError::Invalid(format!(
            "{what}: {frames} frames x {joints} joints = {samples} joint poses, over the {MAX_BAKE_SAMPLES} a bake \
             may hold (lower --fps or --duration)"
        )));
    }
    Ok(())
}

/// Output layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// `.animclip`.
    Native,
    /// The Unity AnimDataSequence layout (`.bytes`).
    Unity,
    /// A `.glb` with the model and the animation (or the skeleton only).
    Gltf,
    /// A VRM Animation (`.vrma`): the human bones on a normalized rig, and the expressions.
    Vrma,
}

impl ExportFormat {
    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Native => "animclip",
            ExportFormat::Unity => "bytes",
            ExportFormat::Gltf => "glb",
            ExportFormat::Vrma => "vrma",
        }
    }

    /// The format a file extension names (any case), if it names one.
    pub fn from_extension(extension: &str) -> Option<ExportFormat> {
        [
            ExportFormat::Native,
            ExportFormat::Unity,
            ExportFormat::Gltf,
            ExportFormat::Vrma,
        ]
        .into_iter()
        .find(|f| f.extension().eq_ignore_ascii_case(extension))
    }

    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Native => "native",
            ExportFormat::Unity => "unity",
            ExportFormat::Gltf => "gltf",
            ExportFormat::Vrma => "vrma",
        }
    }

    /// How the format's players read rotation keys. glTF says slerp (three.js, animtune), but Blender's importer,
    /// ozz and ACL read rotation keys by nlerp, and Unity evaluates rotation curves per component and normalizes:
    /// exports keep keys close enough that both readings play within the tolerance. A native file is read by
    /// animtune alone (slerp).
    pub fn rotation_reading(self) -> RotationInterp {
        match self {
            ExportFormat::Unity | ExportFormat::Gltf | ExportFormat::Vrma => RotationInterp::Both,
            ExportFormat::Native => RotationInterp::Slerp,
        }
    }
}

/// An encoded file and what was measured of it.
#[derive(Clone, Debug, Serialize)]
pub struct Encoded {
    /// The file's bytes.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// Layout.
    pub format: ExportFormat,
    /// Sizes, counts and the error of the file, decoded again, against the frames.
    #[serde(flatten)]
    pub report: BakeReport,
    /// Things the layout could not carry.
    pub notes: Vec<String>,
    /// Tolerance candidates encoded and decoded during the error search.
    pub verifications: usize,
    /// The compacted clip the file holds (before any quantization of its values).
    #[serde(skip)]
    pub clip: BakedClip,
}

/// Encodes `bytes` of a compacted clip in `format` and decodes them the way a reader of that format would
/// (for glTF only the skeleton and animation are written here: the error search measures the animation).
fn encode_and_decode(
    character: &Character,
    clip: &BakedClip,
    format: ExportFormat,
    precision: native::KeyStorage,
    unity_axes: UnityAxes,
) -> (Vec<u8>, Result<Clip, String>) {
    let path = std::path::Path::new("<encoded>");
    match format {
        ExportFormat::Native => {
            let bytes = native::encode_with(clip, precision);
            let back = crate::clipfile::native::decode(&bytes, path).map(|c| c.to_clip());
            (bytes, back.map_err(|e| e.to_string()))
        }
        ExportFormat::Unity => {
            let bytes = unity::encode(&unity::from_baked(clip, unity_axes).0);
            let back = crate::clipfile::unity::decode(&bytes, path).map(|c| c.to_clip(unity_axes));
            (bytes, back.map_err(|e| e.to_string()))
        }
        ExportFormat::Gltf | ExportFormat::Vrma => {
            let bytes = gltf::glb_bytes(character, clip, true);
            let back = gltf::decode_animation(&bytes, &character.skeleton);
            (bytes, back)
        }
    }
}

/// Compacts `frames` and encodes them in `format` within the settings' tolerance: the one error search of the
/// pipeline. Each candidate is encoded, decoded and measured against the frames; the file returned is the
/// first candidate within the bound (a glTF file gets the character's meshes only after the search, unless
/// `animation_only`).
pub fn encode(
    character: &Character,
    frames: &Frames,
    meta: &ClipMeta,
    format: ExportFormat,
    animation_only: bool,
    settings: &BakeSettings,
) -> Encoded {
    let skeleton = &character.skeleton;
    let humanoid = Some(&character.humanoid);
    let tolerance = settings.tolerance_cm / 100.0;
    let interp = format.rotation_reading();
    let within = |error: f32| compact::within_budget(error, settings.tolerance_cm);
    let quantize = format == ExportFormat::Native && settings.quantize;
    let mut verifications = 0;
    let mut run = |frames: &Frames, meta: &ClipMeta| {
        let reference = measure::Reference::new(skeleton, frames);
        compact::search(settings.tolerance_cm, quantize, |factor, q| {
            // Quantized, the key reduction takes a share of the budget and the rotations' bits the rest.
            let key_factor = if q {
                factor * compact::KEY_SHARE
            } else {
                factor
            };
            // A quantized native file is the runtime's packed form: every frame of a channel that moves, on grids
            // sized by the rest of the budget.
            let keys = if q {
                compact::KeyReduction::None
            } else {
                compact::KeyReduction::Tolerance
            };
            let how = compact::Reduction {
                tolerance,
                factor: key_factor,
                rotation_interp: interp,
                keys,
            };
            let mut clip = compact::reduce(skeleton, humanoid, frames, meta, &how);
            if format == ExportFormat::Unity && !settings.sparse {
                compact::add_rest_tracks(&mut clip, skeleton, humanoid);
            }
            let budgets = compact::packed_budgets(
                skeleton,
                &clip,
                tolerance * factor * (1.0 - compact::KEY_SHARE),
            );
            let precision = if q {
                native::KeyStorage::Packed(&budgets)
            } else {
                native::KeyStorage::Full
            };
            let (bytes, back) =
                encode_and_decode(character, &clip, format, precision, settings.unity_axes);
            verifications += 1;
            // Measured as the file is read (by each reading above) and as animtune's player plays it (compiled
            // to the runtime's packed form): the budget holds for both.
            let error = back.map_or(f32::INFINITY, |c| {
                reference.reading(&c, interp).max(reference.player(&c))
            });
            ((clip, bytes), error)
        })
    };
    let mut notes = Vec::new();
    let ((mut clip, mut bytes), mut error, mut quantized) = run(frames, meta);
    let mut meta = meta.clone();
    if format == ExportFormat::Unity && !within(error) && !frames.checks.is_empty() {
        // Unity interpolates quaternion components, not slerp: between grid frames a fast rotation drifts from
        // the source. Keys at the check times (where the error is measured) bring it back.
        let dense = frames.with_checks_on_grid();
        meta.explicit_times = true;
        meta.grid = format!(
            "{} + {} source key and check times (Unity interpolates quaternion components)",
            meta.grid,
            frames.checks.len()
        );
        ((clip, bytes), error, quantized) = run(&dense, &meta);
    }
    let meta = &meta;
    if interp == RotationInterp::Both
        && let (_, Ok(back)) = encode_and_decode(
            character,
            &clip,
            format,
            native::KeyStorage::Full,
            settings.unity_axes,
        )
    {
        let reference = measure::Reference::new(skeleton, frames);
        let slerp = reference.reading(&back, RotationInterp::Slerp);
        let nlerp = reference.reading(&back, RotationInterp::Nlerp);
        notes.push(format!(
            "rotation keys read by slerp (glTF, three.js): {:.5} cm; by nlerp (Blender, Unity, ozz, ACL): {:.5} cm \
             from the source",
            slerp * 100.0,
            nlerp * 100.0
        ));
    }
    if !within(error) {
        notes.push(format!(
            "{:.5} cm from the source, over the {} cm tolerance even with every grid frame kept: the grid misses \
             the source between its frames (the default grid adds the source's key times)",
            error * 100.0,
            settings.tolerance_cm
        ));
    }
    let bytes = match format {
        ExportFormat::Gltf => {
            notes.push(if animation_only {
                "animation only: skeleton nodes, no meshes".to_string()
            } else {
                "materials keep their base colour and texture only (metallic 0, roughness 0.7)"
                    .into()
            });
            if character.facing_corrected {
                notes.push(
                    "the model was turned to face +Z at import; the file keeps that facing".into(),
                );
            }
            let unbound = gltf::unbound_morph(character, &clip, animation_only);
            if !unbound.is_empty() {
                let why = if animation_only {
                    "the file has no meshes (animation only)".to_string()
                } else {
                    format!(
                        "they drive no mesh of '{}' (by node or mesh name, with as many targets)",
                        character.name
                    )
                };
                notes.push(format!(
                    "morph-weight tracks left out of the file: {}{}: {why}",
                    unbound[..unbound.len().min(5)].join(", "),
                    match unbound.len().saturating_sub(5) {
                        0 => String::new(),
                        more => format!(" and {more} more"),
                    }
                ));
            }
            if animation_only {
                bytes
            } else {
                gltf::glb_bytes(character, &clip, false)
            }
        }
        ExportFormat::Unity => {
            notes.push(format!(
                "values in {} axes; paths from the character root",
                match settings.unity_axes {
                    UnityAxes::Unity => "Unity's",
                    UnityAxes::Gltf => "glTF's",
                }
            ));
            let dropped = unity::from_baked(&clip, settings.unity_axes).1;
            if !dropped.is_empty() {
                notes.push(format!(
                    "the Unity layout has no scale curves: scale animation of {} path(s) is not in the file",
                    dropped.len()
                ));
            }
            bytes
        }
        ExportFormat::Native => bytes,
        ExportFormat::Vrma => {
            notes.push(format!(
                "VRM Animation: {} human bones on a normalized rig (T-pose rest, +Z forward); joints that play no \
                 human bone are not in it{}",
                skeleton.len(),
                if frames.expressions.is_empty() {
                    String::new()
                } else {
                    format!("; {} expression tracks", frames.expressions.len())
                }
            ));
            gltf::vrma_bytes(
                character,
                &clip,
                &frames.expressions,
                frames.look_at.as_ref(),
            )
        }
    };
    let report = BakeReport {
        name: meta.name.clone(),
        frames: clip.frame_count(),
        grid: meta.grid.clone(),
        checked_times: frames.times.len() + frames.checks.len(),
        tracks: clip.tracks.len(),
        keys: clip.key_count(),
        bytes: bytes.len(),
        raw_bytes: crate::clipfile::uniform_frame_count(meta.duration, meta.frame_rate) as usize
            * frames.source_joints
            * 10
            * 4,
        max_error_cm: error * 100.0,
        quantized,
    };
    Encoded {
        bytes,
        format,
        report,
        notes,
        verifications,
        clip,
    }
}

/// Bakes one clip of a character, as loaded, at the settings' grid into `format`: a [`BakeRequest`] of the clip
/// with no settings or layers.
pub fn bake_clip(
    character: &Character,
    clip: &Clip,
    format: ExportFormat,
    settings: &BakeSettings,
) -> Encoded {
    let request = BakeRequest {
        character,
        clips: std::slice::from_ref(clip),
        clip_settings: &std::collections::BTreeMap::new(),
        blend: None,
        layers: &crate::layers::LayerParams::off(),
        source: BakeSource::Clip(0),
        root_pass: None,
        loop_fix: None,
        skate_fix: None,
        name: clip.name.clone(),
        format,
        animation_only: false,
        settings: settings.clone(),
    };
    match request.run(&mut |_, _| true) {
        Ok(outcome) => outcome.encoded,
        Err(e) => unreachable!("a clip bake without settings cannot fail: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figure a bake reports is the measure its budget was checked against: the file decoded again and
    /// measured against the same reference (every reading and the player) gives it to the bit, and it is within
    /// the budget as the CLI compares it. Tight budgets make the search end at its edge.
    #[test]
    fn a_bakes_reported_error_is_the_figure_its_budget_was_checked_against() {
        let model = crate::demo::mannequin::load();
        let c = &model.character;
        for (format, tolerance_cm) in [
            (ExportFormat::Native, 0.01),
            (ExportFormat::Native, 0.027),
            (ExportFormat::Gltf, 0.01),
            (ExportFormat::Unity, 0.004),
        ] {
            let settings = BakeSettings {
                tolerance_cm,
                ..BakeSettings::default()
            };
            for clip in model.clips.iter().take(3) {
                let (frames, meta) = frames::prepare_for(
                    &c.skeleton,
                    Some(&c.humanoid),
                    clip,
                    &settings,
                    format.rotation_reading(),
                );
                let encoded = encode(c, &frames, &meta, format, true, &settings);
                let back = match format {
                    ExportFormat::Native => {
                        crate::clipfile::native::decode(&encoded.bytes, "x".as_ref())
                            .unwrap()
                            .to_clip()
                    }
                    ExportFormat::Unity => {
                        crate::clipfile::unity::decode(&encoded.bytes, "x".as_ref())
                            .unwrap()
                            .to_clip(settings.unity_axes)
                    }
                    _ => gltf::decode_animation(&encoded.bytes, &c.skeleton).unwrap(),
                };
                let reference = measure::Reference::new(&c.skeleton, &frames);
                let measured = reference
                    .reading(&back, format.rotation_reading())
                    .max(reference.player(&back));
                let reported = encoded.report.max_error_cm;
                assert_eq!(measured * 100.0, reported, "{format:?} {}", clip.name);
                assert!(
                    reported <= tolerance_cm,
                    "{format:?} {}: {reported} cm",
                    clip.name
                );
                assert_eq!(
                    encoded.report.checked_times,
                    frames.times.len() + frames.checks.len()
                );
            }
        }
    }
}
