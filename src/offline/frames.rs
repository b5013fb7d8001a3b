//! The first stage of the offline pipeline for a clip: reference frames sampled through the Evaluator on a
//! grid (uniform at a rate, or the source's own key times).

use super::BakeSettings;
use super::compact::ClipMeta;
use crate::core::humanoid::HumanoidMap;
use crate::core::{Clip, Pose, Skeleton};
use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use crate::layers::LayerParams;

/// Reference poses on a grid of frame times.
#[derive(Clone, Debug)]
pub struct Frames {
    /// Time of each frame.
    pub times: Vec<f32>,
    /// Full local pose at each frame.
    pub poses: Vec<Pose>,
    /// Joints the source animates (a clip's tracks; every joint for a stream): what a raw size counts.
    pub source_joints: usize,
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
    Frames {
        times,
        poses,
        source_joints: clip.tracks.len(),
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
