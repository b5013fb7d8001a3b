//! The first stage of the offline pipeline for a clip: reference frames sampled through the Evaluator on a
//! grid (uniform at a rate, with or without the source's key times, or the key times alone; for a file read by
//! nlerp, split where the source turns too far between frames), and the source's poses at its keys and between
//! them and between the frames, where the bake's error is measured too. A stream's frames, which have no source
//! between them, get the same splits and checks for a file read by nlerp, from their own slerp reading.

use super::compact::{ClipMeta, RotationInterp};
use super::{BakeSettings, Grid};
use crate::core::humanoid::HumanoidMap;
use crate::core::{Clip, Interpolation, Keys, Pose, Skeleton};
use crate::eval::{ClockStep, EvalInput, Evaluator};
use glam::Quat;

/// Reference poses on a grid of frame times.
#[derive(Clone, Debug)]
pub struct Frames {
    /// Time of each frame.
    pub times: Vec<f32>,
    /// Full local pose at each frame.
    pub poses: Vec<Pose>,
    /// Joints the source animates (a clip's tracks; every joint for a stream): what a raw size counts.
    pub source_joints: usize,
    /// Source poses off the grid, by increasing time, where the error is also measured: its key times, and a
    /// quarter, half and three quarters of the way between consecutive keys and between consecutive frames
    /// ([`CHECK_FRACTIONS`]). A stream has no source between its frames: empty, or for a file read by nlerp its
    /// frames as slerp reads them between them ([`split_stream_for_nlerp`]).
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
/// its keys equal up to the float noise the runtime folds away, `compile::HELD_EPSILON`).
fn straight<T: crate::core::clip::KeyValue>(keys: &Keys<T>) -> bool {
    match keys.interpolation() {
        Interpolation::Linear => true,
        Interpolation::Step => keys
            .values()
            .iter()
            .all(|&v| T::max_difference(v, keys.values()[0]) <= crate::compile::HELD_EPSILON),
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
pub(crate) fn merged(a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut out: Vec<f32> = a.to_vec();
    out.extend(b.iter().copied().filter(|&t| !on(a, t)));
    out.sort_by(f32::total_cmp);
    out
}

/// Where between two consecutive times a bake is checked against its source: nlerp parts from slerp most near
/// a quarter and three quarters of the way (and, by symmetry, not at all midway, where a slerp reader cuts a
/// source's corners most).
pub const CHECK_FRACTIONS: [f32; 3] = [0.25, 0.5, 0.75];

/// The [`CHECK_FRACTIONS`] of the way between consecutive `times`.
pub(crate) fn between(times: &[f32]) -> Vec<f32> {
    times
        .windows(2)
        .flat_map(|w| CHECK_FRACTIONS.map(|u| w[0] + u * (w[1] - w[0])))
        .collect()
}

/// Sorted, with times within 1e-6 s of the one before dropped.
pub(crate) fn distinct(mut times: Vec<f32>) -> Vec<f32> {
    times.sort_by(f32::total_cmp);
    times.dedup_by(|a, b| (*a - *b).abs() <= 1e-6);
    times
}

/// A clip like `template` (its name, length, loop, morph, expression and look-at tracks) whose joints are keyed
/// linearly at `times` with `poses` (one full local pose each): every joint of `character`, by path. What a pass
/// that rewrites whole poses (the loop seam, the skate fix) makes.
pub fn keyed_clip(
    character: &crate::core::Character,
    template: &Clip,
    times: &[f32],
    poses: &[Pose],
) -> Clip {
    let targets =
        crate::core::binding::track_targets(&character.skeleton, Some(&character.humanoid));
    let tracks = targets
        .into_iter()
        .enumerate()
        .map(|(j, target)| {
            let values: Vec<crate::core::Transform> = poses.iter().map(|p| p.local[j]).collect();
            keyed_track(target, times, &values)
        })
        .collect();
    let mut out = template.clone();
    out.tracks = tracks;
    out.facing_yaw = None;
    out
}

/// A track for `target` keyed linearly at `times` with one joint's local `values` (rotations kept on one
/// hemisphere from key to key, so each key turns the short way).
pub fn keyed_track(
    target: crate::core::TrackTarget,
    times: &[f32],
    values: &[crate::core::Transform],
) -> crate::core::Track {
    use glam::Vec3;
    let linear = Interpolation::Linear;
    let mut previous = Quat::IDENTITY;
    let rotations = values
        .iter()
        .map(|v| {
            let q = v.rotation.normalize();
            previous = if q.dot(previous) < 0.0 { -q } else { q };
            previous
        })
        .collect();
    let channel = |f: fn(&crate::core::Transform) -> Vec3| {
        Keys::new(times.to_vec(), values.iter().map(f).collect(), linear).ok()
    };
    crate::core::Track {
        target,
        translation: channel(|v| Vec3::from(v.translation)),
        rotation: Keys::new(times.to_vec(), rotations, linear).ok(),
        scale: channel(|v| Vec3::from(v.scale)),
    }
}

/// The grid a pass keys a whole clip on: the source's own keys when they lie on one uniform grid with a key
/// between the ends, else `fps` plus every source key time.
pub fn pass_grid(clip: &Clip, fps: f32) -> Vec<f32> {
    match source_rate(clip).map(|rate| uniform_times(clip.duration, rate)) {
        Some(own) if own.len() >= 3 => own,
        _ => distinct(merged(
            &uniform_times(clip.duration, fps),
            &source_key_times(clip),
        )),
    }
}

/// How [`refine_grid`] refines: how close a linear reading must come, how fine and how many times it may refine,
/// and what it keys (for the bake's sample budget: the joints and a name).
#[derive(Clone, Debug)]
pub struct Refinement {
    /// The error a linear reading may leave (cm, 3 cm virtual points).
    pub tolerance_cm: f32,
    /// The finest grid rate.
    pub max_fps: f32,
    /// How many grids are tried.
    pub rounds: usize,
    /// Joints keyed per frame.
    pub joints: usize,
    /// What is keyed ("root pass over clip 'Walk'"), for the budget's error.
    pub what: String,
}

/// Why [`refine_grid`] made nothing.
#[derive(Debug)]
pub enum Refined<T, E> {
    /// Keying on a grid failed.
    Failed(E),
    /// A grid would hold more joint poses than a bake may ([`super::check_sample_budget`]).
    Budget(String),
    /// The finest grid still missed by this much (cm): its result.
    Tolerance(T, f32),
}

/// A pass's result keyed on `grid`, refined where the measure misses: `key(grid, checks)` makes the result on a
/// grid and returns it with its errors (metres) at `checks` (between the grid's frames and at `clip`'s
/// [`source_check_times`]). An interval whose checks read e over the tolerance is split in about sqrt(e / budget)
/// pieces (a linear reading's error shrinks with the square of the step), down to the finest step, for the rounds
/// `how` allows. Returns the result and its largest error (cm).
pub fn refine_grid<T, E>(
    clip: &Clip,
    mut grid: Vec<f32>,
    how: &Refinement,
    mut key: impl FnMut(&[f32], &[f32]) -> Result<(T, Vec<f32>), E>,
) -> Result<(T, f32), Refined<T, E>> {
    let (tolerance_cm, rounds) = (how.tolerance_cm, how.rounds);
    let finest = 1.0 / how.max_fps;
    let budget = tolerance_cm / 100.0;
    let mut round = 0;
    loop {
        round += 1;
        super::check_sample_budget(grid.len() as u64 * 4, how.joints, &how.what)
            .map_err(|e| Refined::Budget(e.to_string()))?;
        let checks = distinct(merged(&between(&grid), &source_check_times(clip)));
        let (out, errors) = key(&grid, &checks).map_err(Refined::Failed)?;
        let error_cm = errors.iter().fold(0.0f32, |m, &e| m.max(e)) * 100.0;
        if error_cm <= tolerance_cm {
            return Ok((out, error_cm));
        }
        let mut worst = vec![0.0f32; grid.len().saturating_sub(1)];
        for (&t, &e) in checks.iter().zip(&errors) {
            let k = grid
                .partition_point(|&g| g <= t)
                .clamp(1, grid.len().max(2) - 1)
                - 1;
            if let Some(w) = worst.get_mut(k) {
                *w = w.max(e);
            }
        }
        let mut added = Vec::new();
        for (k, &e) in worst.iter().enumerate() {
            let (a, b) = (grid[k], grid[k + 1]);
            if e <= budget || b - a <= finest * 1.01 {
                continue;
            }
            let most = ((b - a) / finest).ceil().max(2.0);
            let pieces = ((e / budget).sqrt() * 1.25).ceil().clamp(2.0, most) as usize;
            added.extend((1..pieces).map(|i| a + (b - a) * i as f32 / pieces as f32));
        }
        if added.is_empty() || round >= rounds {
            return Err(Refined::Tolerance(out, error_cm));
        }
        grid = distinct(merged(&grid, &added));
    }
}

/// Every source key time and the [`CHECK_FRACTIONS`] of the way between consecutive ones: where a bake is
/// checked against its source (with the same fractions between its grid frames).
pub fn source_check_times(clip: &Clip) -> Vec<f32> {
    let keys = source_key_times(clip);
    distinct(merged(&keys, &between(&keys)))
}

/// Most pieces one grid interval is split into for a reading by nlerp.
const MAX_TURN_PIECES: usize = 16;

/// Times splitting, evenly, every interval between consecutive `frames` over which a joint's rotation turns
/// further than nlerp reads within its share of `tolerance` (metres) at the joint's reach
/// ([`super::compact::nlerp_turn_limit`] of [`super::compact::NLERP_SPLIT_SHARE`] of it, and never more than
/// [`super::compact::NLERP_MAX_TURN`]), in at most [`MAX_TURN_PIECES`] pieces.
fn turn_splits(skeleton: &Skeleton, frames: &Frames, tolerance: f32) -> Vec<f32> {
    use super::compact::{NLERP_SPLIT_SHARE, angle, nlerp_turn_limit};
    let limits: Vec<f32> = crate::core::metric::joint_scales(skeleton)
        .iter()
        .map(|s| nlerp_turn_limit(tolerance * NLERP_SPLIT_SHARE / s.reach))
        .collect();
    let mut out = Vec::new();
    for (t, p) in frames.times.windows(2).zip(frames.poses.windows(2)) {
        let pieces = p[0]
            .local
            .iter()
            .zip(&p[1].local)
            .zip(&limits)
            .map(|((a, b), &limit)| (angle(a.rotation, b.rotation) / limit).ceil())
            .fold(1.0, f32::max)
            .min(MAX_TURN_PIECES as f32) as usize;
        out.extend((1..pieces).map(|k| t[0] + (t[1] - t[0]) * k as f32 / pieces as f32));
    }
    out
}

/// A stream's pose at `t` as a glTF player reads its frames (at least two; rotations by slerp, translations and
/// scales by lerp, held past the ends): what a stream is between its frames, where nothing else defines it.
fn read_between_frames(frames: &Frames, t: f32) -> Pose {
    use crate::core::clip::KeyValue;
    let k = frames
        .times
        .partition_point(|&x| x <= t)
        .clamp(1, frames.times.len() - 1);
    let (t0, t1) = (frames.times[k - 1], frames.times[k]);
    let u = if t1 > t0 {
        ((t - t0) / (t1 - t0)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let local = frames.poses[k - 1]
        .local
        .iter()
        .zip(&frames.poses[k].local)
        .map(|(x, y)| crate::core::Transform {
            translation: x.translation.lerp(y.translation, u),
            rotation: Quat::interpolate(x.rotation, y.rotation, u),
            scale: x.scale.lerp(y.scale, u),
        })
        .collect();
    Pose { local }
}

/// Readies a stream's frames (no source between them) for a file read by nlerp: the [`turn_splits`] of
/// `tolerance` (metres) join the grid, and checks go at the [`CHECK_FRACTIONS`] between the frames, both read
/// from the stream's own frames as a glTF player (slerp) reads them, so that an nlerp reader plays what a slerp
/// reader plays within the budget. `meta` says so in its grid and keeps the times.
pub fn split_stream_for_nlerp(
    skeleton: &Skeleton,
    frames: &mut Frames,
    meta: &mut ClipMeta,
    tolerance: f32,
) {
    if frames.times.len() < 2 {
        return;
    }
    let splits = turn_splits(skeleton, frames, tolerance);
    let stream = frames.clone();
    if !splits.is_empty() {
        let times = merged(&stream.times, &splits);
        frames.poses = times
            .iter()
            .map(|&t| read_between_frames(&stream, t))
            .collect();
        frames.times = times;
        meta.explicit_times = true;
        meta.grid = format!(
            "{} + {} times splitting turns too wide for nlerp",
            meta.grid,
            splits.len()
        );
    }
    frames.checks = between(&frames.times)
        .into_iter()
        .filter(|&t| !on(&frames.times, t))
        .map(|t| (t, read_between_frames(&stream, t)))
        .collect();
}

/// The reference frames and clip identity a bake of `clip` works from, for a file read by slerp (see
/// [`prepare_for`]).
pub fn prepare(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    clip: &Clip,
    settings: &BakeSettings,
) -> (Frames, ClipMeta) {
    prepare_for(skeleton, humanoid, clip, settings, RotationInterp::Slerp)
}

/// The reference frames and clip identity a bake of `clip` works from, for a file whose rotation keys are read
/// by `reading`. Read by nlerp, the grid also holds the [`turn_splits`] of the settings' tolerance, sampled from
/// the source, so that neighbouring keys are close enough for nlerp to read them as the source turns. The checks
/// are the source at [`source_check_times`] and at the [`CHECK_FRACTIONS`] between grid frames, off the grid.
pub fn prepare_for(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    clip: &Clip,
    settings: &BakeSettings,
    reading: RotationInterp,
) -> (Frames, ClipMeta) {
    let own_rate = match settings.grid {
        Grid::UniformWithSourceKeys => source_rate(clip),
        _ => None,
    };
    let fps = own_rate.unwrap_or(settings.fps);
    let uniform = uniform_times(clip.duration, fps);
    let uniform_len = uniform.len();
    let keys = source_key_times(clip);
    let (times, mut grid) = match settings.grid {
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
    let frame_rate = if settings.grid == Grid::SourceKeys && clip.duration > 0.0 {
        (times.len().saturating_sub(1)) as f32 / clip.duration
    } else {
        fps
    };
    let mut explicit_times = times.len() != uniform_len || settings.grid == Grid::SourceKeys;
    let mut frames = sample_frames(clip, skeleton, humanoid, times);
    if reading.reads_nlerp() {
        let splits = turn_splits(skeleton, &frames, settings.tolerance_cm / 100.0);
        if !splits.is_empty() {
            grid = format!(
                "{grid} + {} times splitting turns too wide for nlerp",
                splits.len()
            );
            explicit_times = true;
            let times = merged(&frames.times, &splits);
            frames = sample_frames(clip, skeleton, humanoid, times);
        }
    }
    let mut checks = source_check_times(clip);
    checks.extend(between(&frames.times));
    let checks: Vec<f32> = distinct(checks)
        .into_iter()
        .filter(|&t| !on(&frames.times, t))
        .collect();
    let reference = sample_frames(clip, skeleton, humanoid, checks);
    frames.checks = reference.times.into_iter().zip(reference.poses).collect();
    let meta = ClipMeta {
        id: settings.id,
        name: clip.name.clone(),
        duration: clip.duration,
        frame_rate,
        explicit_times,
        grid,
    };
    (frames, meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Track, TrackTarget};
    use crate::offline::compact::{NLERP_SPLIT_SHARE, angle, nlerp_turn_limit};

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

    /// A leg: hip, knee 45 cm below, ankle 45 cm below that. The knee turns about x by the given angles (degrees)
    /// at keys 1/30 s apart.
    fn leg(degrees: &[f32]) -> (Skeleton, Clip) {
        use crate::core::skeleton::JointDef;
        let joint = |name: &str, parent: Option<usize>, y: f32| JointDef {
            name: name.into(),
            parent,
            rest: crate::core::Transform {
                translation: glam::Vec3::new(0.0, y, 0.0).into(),
                ..crate::core::Transform::IDENTITY
            },
            deforms: true,
        };
        let joints = vec![
            joint("hip", None, 1.0),
            joint("knee", Some(0), -0.45),
            joint("ankle", Some(1), -0.45),
        ];
        let skeleton = Skeleton::new(joints, glam::Mat4::IDENTITY).unwrap();
        let times: Vec<f32> = (0..degrees.len()).map(|k| k as f32 / 30.0).collect();
        let values = degrees
            .iter()
            .map(|d| Quat::from_rotation_x(d.to_radians()))
            .collect();
        let track = Track {
            target: TrackTarget {
                rest: skeleton.rest()[1],
                ..TrackTarget::at_identity("knee")
            },
            translation: None,
            rotation: Some(Keys::new(times, values, Interpolation::Linear).unwrap()),
            scale: None,
        };
        (skeleton, Clip::new("kick", vec![track]))
    }

    const KICK: [f32; 7] = [0.0, 60.0, 0.0, 30.0, 90.0, 30.0, 0.0];

    fn knee_turns(frames: &Frames) -> Vec<f32> {
        frames
            .poses
            .windows(2)
            .map(|p| angle(p[0].local[1].rotation, p[1].local[1].rotation))
            .collect()
    }

    #[test]
    fn source_keys_and_frames_are_checked_a_quarter_half_and_three_quarters_between() {
        let (skeleton, clip) = leg(&KICK);
        let (frames, meta) = prepare(&skeleton, None, &clip, &BakeSettings::default());
        // Read by slerp the grid is the source's own keys, and turns of 60° stay between two frames.
        assert_eq!(frames.times.len(), KICK.len());
        assert!(!meta.explicit_times);
        assert!(knee_turns(&frames)[0] > 59f32.to_radians());
        let checked: Vec<f32> = frames.checks.iter().map(|c| c.0).collect();
        assert_eq!(checked.len(), 3 * (KICK.len() - 1));
        for w in frames.times.windows(2) {
            for u in CHECK_FRACTIONS {
                assert!(on(&checked, w[0] + u * (w[1] - w[0])), "{w:?} {u}");
            }
        }
    }

    #[test]
    fn read_by_nlerp_a_wide_turn_is_split_on_the_source_and_its_pieces_are_checked() {
        let (skeleton, clip) = leg(&KICK);
        let settings = BakeSettings::default();
        let (frames, meta) = prepare_for(&skeleton, None, &clip, &settings, RotationInterp::Both);
        assert!(meta.explicit_times, "{}", meta.grid);
        assert!(meta.grid.contains("splitting turns"), "{}", meta.grid);
        // The knee's limit: nlerp within a quarter of the budget at its reach (48 cm), under 24°.
        let scales = crate::core::metric::joint_scales(&skeleton);
        let limit = nlerp_turn_limit(1e-4 * NLERP_SPLIT_SHARE / scales[1].reach);
        assert!(limit < 24f32.to_radians());
        for (k, turn) in knee_turns(&frames).into_iter().enumerate() {
            assert!(turn <= limit + 1e-5, "{k}: {}°", turn.to_degrees());
        }
        // The source's keys are all frames, and every frame is the source at its time.
        let source = sample_frames(&clip, &skeleton, None, frames.times.clone());
        assert_eq!(source.poses, frames.poses);
        for t in source_key_times(&clip) {
            assert!(on(&frames.times, t));
        }
        // Checks: a quarter, half and three quarters between the split frames too.
        let checked: Vec<f32> = frames.checks.iter().map(|c| c.0).collect();
        for w in frames.times.windows(2) {
            for u in CHECK_FRACTIONS {
                assert!(on(&checked, w[0] + u * (w[1] - w[0])), "{w:?} {u}");
            }
        }
    }

    #[test]
    fn a_stream_read_by_nlerp_is_split_and_checked_on_its_frames_read_by_slerp() {
        let (skeleton, clip) = leg(&KICK);
        let times: Vec<f32> = (0..KICK.len()).map(|k| k as f32 / 30.0).collect();
        let stream = sample_frames(&clip, &skeleton, None, times);
        let mut frames = stream.clone();
        let mut meta = ClipMeta::uniform(0, "kick", &frames, 30.0);
        split_stream_for_nlerp(&skeleton, &mut frames, &mut meta, 1e-4);
        assert!(meta.explicit_times && meta.grid.contains("splitting turns"));
        assert!(frames.times.len() > stream.times.len());
        assert!(knee_turns(&frames).iter().all(|&t| t <= 24f32.to_radians()));
        // Between the stream's frames, the file and its checks follow the frames read by slerp.
        let slerp = |t: f32| {
            let k = ((t * 30.0) as usize).min(KICK.len() - 2);
            let u = t * 30.0 - k as f32;
            let (a, b) = (
                stream.poses[k].local[1].rotation,
                stream.poses[k + 1].local[1].rotation,
            );
            <Quat as crate::core::clip::KeyValue>::interpolate(a, b, u)
        };
        let poses = frames.times.iter().zip(&frames.poses);
        for (&t, pose) in poses.chain(frames.checks.iter().map(|(t, p)| (t, p))) {
            let off = angle(pose.local[1].rotation, slerp(t));
            assert!(off < 1e-5, "{t}: {off}");
        }
        assert_eq!(frames.checks.len(), 3 * (frames.times.len() - 1));
    }
}
