//! The first stage of the offline pipeline for a clip: reference frames sampled through the Evaluator on a
//! grid (uniform at a rate, with or without the source's key times, or the key times alone), and the source's
//! poses at its keys and between them, where the bake's error is measured too.

use super::compact::ClipMeta;
use super::{BakeSettings, Grid};
use crate::core::humanoid::HumanoidMap;
use crate::core::{Clip, Interpolation, Keys, Pose, Skeleton};
use crate::eval::{ClockStep, EvalInput, Evaluator};

/// Reference poses on a grid of frame times.
#[derive(Clone, Debug)]
pub struct Frames {
    /// Time of each frame.
    pub times: Vec<f32>,
    /// Full local pose at each frame.
    pub poses: Vec<Pose>,
    /// Joints the source animates (a clip's tracks; every joint for a stream): what a raw size counts.
    pub source_joints: usize,
    /// Source poses off the grid (its key times and the midpoints between them) where the error is also
    /// measured; empty for a stream.
    pub checks: Vec<(f32, Pose)>,
    /// Expression weights by expression name (the clip's expression tracks, or a stream's weights in use); empty
    /// when nothing drives an expression.
    pub expressions: Vec<ExpressionKeys>,
    /// The clip's VRM Animation look-at track, as it is (a stream has none).
    pub look_at: Option<Keys<glam::Quat>>,
    /// Morph weights by node (a clip's morph tracks at its frames and keys, a stream's weights at its frames).
    pub morph: Vec<crate::clipfile::BakedMorph>,
}

/// One expression's weights at its own times (a clip's at its keys and the frames; a stream's at its frames).
#[derive(Clone, Debug, PartialEq)]
pub struct ExpressionKeys {
    /// The expression's name.
    pub name: String,
    /// Increasing times (seconds).
    pub times: Vec<f32>,
    /// The weight at each time, in [0, 1].
    pub weights: Vec<f32>,
}

impl Frames {
    /// The same reference with the check poses moved onto the grid (a denser grid, nothing left to check
    /// between it).
    pub fn with_checks_on_grid(&self) -> Frames {
        let mut all: Vec<(f32, Pose)> = self
            .times
            .iter()
            .copied()
            .zip(self.poses.iter().cloned())
            .chain(self.checks.iter().cloned())
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (times, poses) = all.into_iter().unzip();
        Frames {
            times,
            poses,
            source_joints: self.source_joints,
            checks: Vec::new(),
            expressions: self.expressions.clone(),
            look_at: self.look_at.clone(),
            morph: self.morph.clone(),
        }
    }
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

/// True when `keys` run straight between their keys: linear, or holding one value (a constant exported as steps,
/// its keys equal up to the float noise the runtime folds away, `runtime::HELD_EPSILON`).
fn straight<T: crate::core::clip::KeyValue>(keys: &Keys<T>) -> bool {
    match keys.interpolation() {
        Interpolation::Linear => true,
        Interpolation::Step => keys.values().iter().all(|&v| {
            T::max_difference(v, keys.values()[0]) <= crate::runtime::animation::HELD_EPSILON
        }),
        Interpolation::CubicSpline => false,
    }
}

/// True when every channel of `clip` runs straight between its keys (linear, or constant): its key times hold
/// it exactly.
pub fn runs_straight(clip: &Clip) -> bool {
    clip.tracks.iter().all(|t| {
        t.translation.as_ref().is_none_or(straight)
            && t.rotation.as_ref().is_none_or(straight)
            && t.scale.as_ref().is_none_or(straight)
    })
}

/// The rate of a clip whose keys all lie on one uniform grid from 0 to its end (each within 1e-6 s), running
/// straight between them (linear, or constant) and at a rate a bake may have: a grid at that rate holds the
/// source exactly, since the source is a straight line (a slerp) between its keys. None otherwise.
pub fn source_rate(clip: &Clip) -> Option<f32> {
    let keys = source_key_times(clip);
    if !runs_straight(clip) || keys.len() < 2 || clip.duration <= 0.0 {
        return None;
    }
    let rate = (keys.len() - 1) as f32 / clip.duration;
    let grid = uniform_times(clip.duration, rate);
    let on_grid =
        grid.len() == keys.len() && grid.iter().zip(&keys).all(|(g, k)| (g - k).abs() <= 1e-6);
    (on_grid && super::FPS_RANGE.contains(&rate)).then_some(rate)
}

/// Samples a clip on a skeleton at the given (increasing) times, through the Evaluator with every layer off.
pub fn sample_frames(
    clip: &Clip,
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    times: Vec<f32>,
) -> Frames {
    let character = crate::core::Character::skeleton_only(skeleton, humanoid);
    let mut ev = Evaluator::for_clip_exact(&character, clip);
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
    // Each expression and morph track at the frames and its own keys, so that a linear reading plays it.
    let expressions = clip
        .expression_tracks
        .iter()
        .map(|track| {
            let at = key_times(track, &times, clip.duration);
            let weights = at
                .iter()
                .map(|&t| {
                    let mut v = [0.0];
                    track.sample_into(t, &mut v);
                    v[0].clamp(0.0, 1.0)
                })
                .collect();
            ExpressionKeys {
                name: track.node.clone(),
                times: at,
                weights,
            }
        })
        .collect();
    let morph = clip
        .morph_tracks
        .iter()
        .map(|track| {
            let at = key_times(track, &times, clip.duration);
            let width = track.width();
            let mut values = vec![0.0; at.len() * width];
            for (t, v) in at.iter().zip(values.chunks_exact_mut(width)) {
                track.sample_into(*t, v);
            }
            crate::clipfile::BakedMorph {
                node: track.node.clone(),
                width,
                times: at,
                values,
            }
        })
        .collect();
    Frames {
        times,
        poses,
        source_joints: clip.tracks.len(),
        checks: Vec::new(),
        expressions,
        look_at: clip.look_at.clone(),
        morph,
    }
}

/// Largest distance a linear reading of a written cubic-spline weight track may be from the curve, at the middle
/// of each written segment.
const CUBIC_TOLERANCE: f32 = 1e-6;

/// The times a weight track is written at so that a linear reading plays it: the frames and its own keys (a
/// step also just before each key), within the clip; a cubic spline's segments are halved until a linear reading
/// is within [`CUBIC_TOLERANCE`] of the curve at their middles (a bake keeps no tangents).
fn key_times(track: &crate::core::morph::MorphTrack, frames: &[f32], duration: f32) -> Vec<f32> {
    let keys = track.times();
    let mut at: Vec<f32> = frames.to_vec();
    at.extend_from_slice(keys);
    match track.interpolation() {
        Interpolation::Step => at.extend(keys.iter().map(|k| k - 1e-4)),
        Interpolation::CubicSpline => {
            let width = track.width();
            let sample = |t: f32| {
                let mut v = vec![0.0; width];
                track.sample_into(t, &mut v);
                v
            };
            let mut stack: Vec<(f32, f32, u32)> =
                keys.windows(2).map(|w| (w[0], w[1], 0)).collect();
            while let Some((a, b, depth)) = stack.pop() {
                let m = 0.5 * (a + b);
                let (va, vb, vm) = (sample(a), sample(b), sample(m));
                let off = va
                    .iter()
                    .zip(&vb)
                    .zip(&vm)
                    .map(|((x, y), z)| (0.5 * (x + y) - z).abs())
                    .fold(0.0, f32::max);
                if off > CUBIC_TOLERANCE && depth < 16 {
                    at.push(m);
                    stack.push((a, m, depth + 1));
                    stack.push((m, b, depth + 1));
                }
            }
        }
        Interpolation::Linear => {}
    }
    at.retain(|t| (0.0..=duration).contains(t));
    at.sort_by(f32::total_cmp);
    at.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
    at
}

/// True when `t` is within 1e-6 s of a time of the sorted `times`.
fn on(times: &[f32], t: f32) -> bool {
    let i = times.partition_point(|&x| x < t);
    let near = |k: usize| times.get(k).is_some_and(|x| (x - t).abs() <= 1e-6);
    near(i) || (i > 0 && near(i - 1))
}

/// `a` and the times of `b` that are not on it, sorted.
fn merged(a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut out: Vec<f32> = a.to_vec();
    out.extend(b.iter().copied().filter(|&t| !on(a, t)));
    out.sort_by(f32::total_cmp);
    out
}

/// Every source key time and the midpoint between consecutive ones: where a bake is checked against its source.
pub fn source_check_times(clip: &Clip) -> Vec<f32> {
    let keys = source_key_times(clip);
    let mids: Vec<f32> = keys.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
    merged(&keys, &mids)
}

/// The reference frames and clip identity a bake of `clip` works from.
pub fn prepare(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    clip: &Clip,
    settings: &BakeSettings,
) -> (Frames, ClipMeta) {
    let own_rate = match settings.grid {
        Grid::UniformWithSourceKeys => source_rate(clip),
        _ => None,
    };
    let fps = own_rate.unwrap_or(settings.fps);
    let uniform = uniform_times(clip.duration, fps);
    let uniform_len = uniform.len();
    let keys = source_key_times(clip);
    let (times, grid) = match settings.grid {
        Grid::Uniform => (uniform, format!("{} fps", settings.fps)),
        Grid::UniformWithSourceKeys if own_rate.is_some() => (
            uniform,
            format!("{fps} fps: the source's own keys, all on one uniform grid"),
        ),
        Grid::UniformWithSourceKeys => {
            let times = merged(&uniform, &keys);
            let added = times.len() - uniform.len();
            let grid = match added {
                0 => format!("{} fps (every source key is on it)", settings.fps),
                n => format!("{} fps + {n} source key times off it", settings.fps),
            };
            (times, grid)
        }
        Grid::SourceKeys => {
            let grid = format!("the source's {} key times", keys.len());
            (keys, grid)
        }
    };
    let explicit_times = times.len() != uniform_len || settings.grid == Grid::SourceKeys;
    let mut frames = sample_frames(clip, skeleton, humanoid, times);
    let checks: Vec<f32> = source_check_times(clip)
        .into_iter()
        .filter(|&t| !on(&frames.times, t))
        .collect();
    let reference = sample_frames(clip, skeleton, humanoid, checks);
    frames.checks = reference.times.into_iter().zip(reference.poses).collect();
    let meta = ClipMeta {
        id: settings.id,
        name: clip.name.clone(),
        duration: clip.duration,
        frame_rate: if settings.grid == Grid::SourceKeys && clip.duration > 0.0 {
            (frames.times.len().saturating_sub(1)) as f32 / clip.duration
        } else {
            fps
        },
        explicit_times,
        grid,
    };
    (frames, meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Track, TrackTarget};
    use glam::Quat;

    fn clip(times: &[f32], interpolation: Interpolation, moving: bool) -> Clip {
        let values = times
            .iter()
            .map(|&t| Quat::from_rotation_x(if moving { t } else { 0.3 }))
            .collect();
        let target = TrackTarget::at_identity("a");
        let track = Track {
            target,
            translation: None,
            rotation: Some(Keys::new(times.to_vec(), values, interpolation).unwrap()),
            scale: None,
        };
        Clip::new("c", vec![track])
    }

    #[test]
    fn a_source_keyed_on_one_uniform_grid_gives_its_rate() {
        let at_24: Vec<f32> = (0..=48).map(|k| k as f32 / 24.0).collect();
        let rate = source_rate(&clip(&at_24, Interpolation::Linear, true)).unwrap();
        assert!((rate - 24.0).abs() < 1e-4, "{rate}");
        // A constant exported as steps still runs straight.
        assert!(source_rate(&clip(&at_24, Interpolation::Step, false)).is_some());
        // Steps that move, splines, and keys off one grid do not.
        assert_eq!(source_rate(&clip(&at_24, Interpolation::Step, true)), None);
        let mut uneven = at_24.clone();
        uneven[5] += 0.01;
        assert_eq!(
            source_rate(&clip(&uneven, Interpolation::Linear, true)),
            None
        );
        // Slower than a frame a second is not a grid a bake may have.
        assert_eq!(
            source_rate(&clip(&[0.0, 2.0, 4.0], Interpolation::Linear, true)),
            None
        );
    }
}
