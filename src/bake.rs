//! Baking: sample a clip on a frame grid, compact it within an error bound, and encode it.

use serde::Serialize;

use crate::clipfile::reduce::{self, ClipMeta, Frames, RotationInterp};
use crate::clipfile::{BakedClip, native, unity};
use crate::core::humanoid::HumanoidMap;
use crate::core::{Clip, Skeleton};
use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use crate::layers::LayerParams;

/// How to bake.
#[derive(Clone, Debug)]
pub struct BakeSettings {
    /// Frames per second of the grid.
    pub fps: f32,
    /// Use the source clip's own key times as the grid instead of a uniform one.
    pub keep_source_keys: bool,
    /// Largest allowed virtual-vertex displacement, in centimetres.
    pub tolerance_cm: f32,
    /// Store keyed values as 16-bit fractions of each track's range (when the error bound still holds).
    pub quantize: bool,
    /// Identifier written into the clip.
    pub id: i32,
}

impl Default for BakeSettings {
    fn default() -> Self {
        BakeSettings {
            fps: 30.0,
            keep_source_keys: false,
            tolerance_cm: 0.01,
            quantize: true,
            id: 0,
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
    /// Tracks stored (joints that move).
    pub tracks: usize,
    /// Values stored over all channels (a constant counts one).
    pub keys: usize,
    /// Encoded size in bytes.
    pub bytes: usize,
    /// Size of raw 32-bit TRS samples of the source's animated joints at the same frame rate.
    pub raw_bytes: usize,
    /// Largest measured virtual-vertex error against the source, in centimetres.
    pub max_error_cm: f32,
    /// Whether keyed values were quantized.
    pub quantized: bool,
}

/// Grid times: uniform at `fps` over `duration`, first at 0 and last exactly at the end.
pub fn uniform_times(duration: f32, fps: f32) -> Vec<f32> {
    let n = crate::clipfile::uniform_frame_count(duration, fps);
    (0..n).map(|k| (k as f32 / fps).min(duration)).collect()
}

/// Every key time of a clip, merged, plus 0 and the end.
pub fn source_key_times(clip: &Clip) -> Vec<f32> {
    let mut t = vec![0.0, clip.duration];
    for tr in &clip.tracks {
        t.extend(tr.translation.iter().flat_map(|k| k.times()));
        t.extend(tr.rotation.iter().flat_map(|k| k.times()));
        t.extend(tr.scale.iter().flat_map(|k| k.times()));
    }
    t.sort_by(f32::total_cmp);
    t.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
    t
}

/// Samples a clip on a skeleton at the given (increasing) times, through the Evaluator with every layer off.
pub fn sample_frames(
    clip: &Clip,
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    times: Vec<f32>,
) -> Frames {
    let character = crate::core::Character::skeleton_only(skeleton, humanoid);
    let mut ev = Evaluator::new(
        &character,
        std::slice::from_ref(clip),
        SourceSpec::Clip(0),
        LayerParams::off(),
    );
    let poses = times
        .iter()
        .map(|&t| {
            let clock = ClockStep::Seek(t.clamp(0.0, clip.duration));
            ev.evaluate(&EvalInput {
                clock,
                ..EvalInput::default()
            })
            .local
            .clone()
        })
        .collect();
    Frames { times, poses }
}

/// An encoded bake: the clip as stored, the bytes, and the report.
#[derive(Clone, Debug)]
pub struct Baked {
    /// The clip exactly as it decodes from `bytes`.
    pub clip: BakedClip,
    /// The `.animclip` bytes.
    pub bytes: Vec<u8>,
    /// Sizes, counts and measured error.
    pub report: BakeReport,
}

/// Runs `attempt(factor, quantize)` with decreasing local tolerances (quantized first when allowed) until the
/// measured error (second value, metres) is within `tolerance`; the last attempt keeps every frame unquantized.
pub(crate) fn search<T>(
    tolerance: f32,
    quantize: bool,
    mut attempt: impl FnMut(f32, bool) -> (T, f32),
) -> (T, f32, bool) {
    let mut plan: Vec<(f32, bool)> = Vec::new();
    for factor in [1.0, 0.5, 0.25, 0.12, 0.05] {
        if quantize {
            plan.push((factor, true));
        }
        plan.push((factor, false));
    }
    plan.push((0.0, false));
    let last = plan.len() - 1;
    for (i, (factor, q)) in plan.into_iter().enumerate() {
        let (out, error) = attempt(factor, q);
        if error <= tolerance || i == last {
            return (out, error, q);
        }
    }
    unreachable!("the last attempt always returns")
}

/// Compacts reference frames into a native clip whose measured error stays within the tolerance.
pub fn bake_frames(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    frames: &Frames,
    meta: &ClipMeta,
    raw_joints: usize,
    settings: &BakeSettings,
) -> Baked {
    let tolerance = settings.tolerance_cm / 100.0;
    let path = std::path::Path::new("<bake>");
    let ((clip, bytes), error, quantized) =
        search(tolerance, settings.quantize, |factor, quantize| {
            let reduced = reduce::reduce(
                skeleton,
                humanoid,
                frames,
                meta,
                tolerance,
                factor,
                RotationInterp::Slerp,
            );
            let bytes = native::encode(&reduced, quantize);
            let clip = native::decode(&bytes, path).expect("a freshly encoded clip decodes");
            let error = reduce::measure(skeleton, frames, &clip.to_clip());
            ((clip, bytes), error)
        });
    let report = BakeReport {
        name: clip.name.clone(),
        frames: clip.frame_count(),
        tracks: clip.tracks.len(),
        keys: clip.key_count(),
        bytes: bytes.len(),
        raw_bytes: frames.times.len() * raw_joints * 10 * 4,
        max_error_cm: error * 100.0,
        quantized,
    };
    Baked {
        clip,
        bytes,
        report,
    }
}

/// The reference frames and clip identity a bake of `clip` works from.
pub fn prepare(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    clip: &Clip,
    settings: &BakeSettings,
) -> (Frames, ClipMeta) {
    let times = if settings.keep_source_keys {
        source_key_times(clip)
    } else {
        uniform_times(clip.duration, settings.fps)
    };
    let frames = sample_frames(clip, skeleton, humanoid, times);
    let meta = ClipMeta {
        id: settings.id,
        name: clip.name.clone(),
        duration: clip.duration,
        frame_rate: if settings.keep_source_keys && clip.duration > 0.0 {
            (frames.times.len().saturating_sub(1)) as f32 / clip.duration
        } else {
            settings.fps
        },
        explicit_times: settings.keep_source_keys,
    };
    (frames, meta)
}

/// Bakes one clip of a model at the settings' grid.
pub fn bake_clip(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    clip: &Clip,
    settings: &BakeSettings,
) -> Baked {
    let (frames, meta) = prepare(skeleton, humanoid, clip, settings);
    bake_frames(
        skeleton,
        humanoid,
        &frames,
        &meta,
        clip.tracks.len(),
        settings,
    )
}

/// The Unity-layout encoding of a bake, with its size, measured error and the paths whose scale it drops.
#[derive(Clone, Debug)]
pub struct UnityBake {
    /// The encoded bytes.
    pub bytes: Vec<u8>,
    /// Largest measured virtual-vertex error against the source, in centimetres.
    pub max_error_cm: f32,
    /// Paths whose scale animation the Unity layout cannot carry.
    pub dropped_scale: Vec<String>,
}

/// Encodes reference frames in the Unity layout, with keys chosen for Unity's per-component curve evaluation
/// (nlerp between rotation keys), within the settings' tolerance.
pub fn to_unity(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    frames: &Frames,
    meta: &ClipMeta,
    settings: &BakeSettings,
) -> UnityBake {
    let tolerance = settings.tolerance_cm / 100.0;
    let path = std::path::Path::new("<bake>");
    let ((bytes, dropped_scale), error, _) = search(tolerance, false, |factor, _| {
        let reduced = reduce::reduce(
            skeleton,
            humanoid,
            frames,
            meta,
            tolerance,
            factor,
            RotationInterp::Nlerp,
        );
        let (clip, dropped) = unity::from_baked(&reduced);
        let bytes = unity::encode(&clip);
        let decoded = unity::decode(&bytes, path).expect("a freshly encoded clip decodes");
        let error = reduce::measure(skeleton, frames, &decoded.to_clip());
        ((bytes, dropped), error)
    });
    UnityBake {
        bytes,
        max_error_cm: error * 100.0,
        dropped_scale,
    }
}
