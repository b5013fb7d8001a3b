//! Compaction: reduce reference frames to the keys each channel needs, and the one error search that lowers
//! the local tolerance until the encoded file, decoded again, is within the bound (measured by
//! [`super::measure`]).
//!
//! Contracts: a channel keeps a key wherever interpolating from its kept neighbours, by every reading of
//! [`RotationInterp::readings`], would part from the reference frames or the source's check poses between them
//! ([`Frames::checks`]) by more than the local tolerance; where the frames allow it, rotation keys read by nlerp
//! are never further apart than [`nlerp_turn_limit`] of that tolerance (nor than [`NLERP_MAX_TURN`]), so that
//! nlerp's parting from slerp stays within it between the checks too. A bake is within its budget exactly when
//! [`within_budget`] says so, the same comparison its report's figure passes.

use glam::{Quat, Vec3};

use super::frames::Frames;
use crate::clipfile::{BakedClip, BakedTrack, Channel};
use crate::core::Skeleton;
use crate::core::clip::KeyValue;
use crate::core::humanoid::HumanoidMap;
use crate::core::metric::joint_scales;

/// Rotation angle between two unit quaternions, precise for tiny angles (where acos of the dot product is not).
pub fn angle(a: Quat, b: Quat) -> f32 {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let chord = (glam::Vec4::from(a) - glam::Vec4::from(b)).length();
    4.0 * (chord * 0.5).min(1.0).asin()
}

/// How the player of a reduced clip interpolates rotations between keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RotationInterp {
    /// Shortest-path slerp (animtune's own clips, glTF LINEAR).
    Slerp,
    /// Per-component lerp with continuous signs, then normalise (Unity curves with linear tangents).
    Nlerp,
    /// Both readings at once: keys close enough that a slerp reader (glTF's own, three.js) and an nlerp reader
    /// (Blender's glTF importer, Unity, ozz, ACL) play the same within the tolerance.
    Both,
}

impl RotationInterp {
    /// The interpolations a reduction must satisfy.
    fn readings(self) -> &'static [fn(Quat, Quat, f32) -> Quat] {
        match self {
            RotationInterp::Slerp => &[Quat::interpolate],
            RotationInterp::Nlerp => &[nlerp],
            RotationInterp::Both => &[Quat::interpolate, nlerp],
        }
    }

    /// True when a player reads rotation keys by nlerp (alone or as one of both readings).
    pub fn reads_nlerp(self) -> bool {
        self != RotationInterp::Slerp
    }
}

/// The widest turn between neighbouring rotation keys that a reduction read by nlerp keeps: 24°, where nlerp
/// parts from slerp by 0.017° at worst (0.01 cm at 34 cm from the joint). A bake read by nlerp splits the
/// source's wider turns between frames too ([`super::frames::prepare_for`]).
pub const NLERP_MAX_TURN: f32 = 24.0 * std::f32::consts::PI / 180.0;

/// The share of the error budget that nlerp's parting from slerp between two neighbouring keys may take on one
/// joint: the turns a bake read by nlerp splits are sized by it ([`nlerp_turn_limit`]), leaving the rest to the
/// reduction and to the joints above in the chain.
pub const NLERP_SPLIT_SHARE: f32 = 0.25;

/// The widest turn (radians, at most [`NLERP_MAX_TURN`]) between two rotation keys for which nlerp stays within
/// `tolerance` radians of slerp everywhere between them. Between keys θ apart (quaternions θ/2 apart), nlerp
/// parts from slerp by about √3/432 · θ³, at its worst near u = (3 ∓ √3)/6 ≈ 0.21 and 0.79 of the way (that
/// estimate is within 1 % up to 48°).
pub fn nlerp_turn_limit(tolerance: f32) -> f32 {
    (tolerance.max(0.0) * 432.0 / 3f32.sqrt())
        .cbrt()
        .min(NLERP_MAX_TURN)
}

/// Whether an error of `error` metres is within a budget of `tolerance_cm` centimetres: compared in centimetres,
/// as [`super::BakeReport::max_error_cm`] states it (`error * 100`), so that the search accepts no bake its own
/// report would put over the budget, nor refuses one it would put within.
pub fn within_budget(error: f32, tolerance_cm: f32) -> bool {
    error * 100.0 <= tolerance_cm
}

/// Unity's and Blender's reading of two rotation keys: per-component lerp on the shorter side, normalised.
pub fn nlerp(a: Quat, b: Quat, u: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    Quat::from_vec4(glam::Vec4::from(a).lerp(glam::Vec4::from(b), u)).normalize()
}

/// Frames to keep so that interpolation between kept frames, by every one of `interps`, stays within `tol` of
/// every sample and of every check between them (`checks`: the source's values off the frames, by increasing
/// time), and no two neighbouring kept values are more than `max_span` apart (by `dist`). Neighbouring frames are
/// kept whatever they hold: nothing between them can be kept instead.
fn keep_frames<T: Copy>(
    times: &[f32],
    values: &[T],
    checks: &[(f32, T)],
    tol: f32,
    max_span: f32,
    dist: impl Fn(T, T) -> f32,
    interps: &[fn(T, T, f32) -> T],
) -> Vec<u32> {
    let n = values.len();
    let mut kept = vec![0u32];
    let mut a = 0;
    while a < n - 1 {
        let mut b = a + 1;
        while b + 1 < n {
            let cand = b + 1;
            let (ta, span) = (times[a], times[cand] - times[a]);
            let within = |t: f32, v: T| {
                let u = (t - ta) / span;
                interps
                    .iter()
                    .all(|interp| dist(interp(values[a], values[cand], u), v) <= tol)
            };
            let first = checks.partition_point(|c| c.0 <= ta);
            let last = checks.partition_point(|c| c.0 < times[cand]);
            let ok = dist(values[a], values[cand]) <= max_span
                && (a + 1..cand).all(|i| within(times[i], values[i]))
                && checks[first..last.max(first)]
                    .iter()
                    .all(|&(t, v)| within(t, v));
            if !ok {
                break;
            }
            b = cand;
        }
        kept.push(b as u32);
        a = b;
    }
    kept
}

/// One channel of the reduction: at rest, constant, or the keys [`keep_frames`] keeps (every frame with
/// [`KeyReduction::None`]); the checks count as samples too.
#[allow(clippy::too_many_arguments)]
fn channel<T: Copy>(
    times: &[f32],
    values: Vec<T>,
    checks: &[(f32, T)],
    rest: T,
    tol: f32,
    max_span: f32,
    keys: KeyReduction,
    dist: impl Fn(T, T) -> f32 + Copy,
    interps: &[fn(T, T, f32) -> T],
) -> Channel<T> {
    let samples = || values.iter().copied().chain(checks.iter().map(|c| c.1));
    if samples().all(|v| dist(v, rest) <= tol) {
        return Channel::Rest;
    }
    if samples().all(|v| dist(v, values[0]) <= tol) {
        return Channel::Constant(values[0]);
    }
    if keys == KeyReduction::None {
        return Channel::Keys {
            frames: (0..values.len() as u32).collect(),
            values,
        };
    }
    let frames = keep_frames(times, &values, checks, tol, max_span, dist, interps);
    let values = frames.iter().map(|&f| values[f as usize]).collect();
    Channel::Keys { frames, values }
}

/// How [`reduce`] reduces: the tolerance (metres of vertex displacement) × `factor` scaled by each joint's
/// size, how the player interpolates rotations, and whether channels that move drop keys.
#[derive(Clone, Copy, Debug)]
pub struct Reduction {
    /// Metres of virtual-vertex displacement.
    pub tolerance: f32,
    /// The share of it this attempt uses.
    pub factor: f32,
    /// How the player interpolates rotations.
    pub rotation_interp: RotationInterp,
    /// Whether moving channels drop the keys interpolation can stand in for.
    pub keys: KeyReduction,
}

/// Whether a channel that moves keeps only the frames its tolerance needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyReduction {
    /// The frames linear interpolation between kept frames cannot stand in for.
    Tolerance,
    /// Every frame (the runtime's packed form, whose channels share their key frames).
    None,
}

/// The share of a quantized bake's error budget that folding channels into constants takes; the packed grids
/// take the rest ([`packed_budgets`]).
pub const KEY_SHARE: f32 = 0.5;

/// Per track of `clip`, the grid steps of the runtime's packed form ([`crate::runtime::packed`]) whose rounding
/// moves the virtual vertices by about `tolerance` (metres): translation, rotation (quaternion components) and
/// scale, as the runtime's compiler scales its own tolerance.
pub fn packed_budgets(skeleton: &Skeleton, clip: &BakedClip, tolerance: f32) -> Vec<[f32; 3]> {
    let scales = joint_scales(skeleton);
    clip.tracks
        .iter()
        .map(|t| {
            skeleton
                .find_by_path(&t.target.path)
                .map_or([1e-6; 3], |j| scales[j].grid_steps(tolerance))
        })
        .collect()
}

/// The identity of the clip being baked.
#[derive(Clone, Debug)]
pub struct ClipMeta {
    /// Identifier.
    pub id: i32,
    /// Name.
    pub name: String,
    /// Length in seconds.
    pub duration: f32,
    /// Grid frame rate.
    pub frame_rate: f32,
    /// True when the grid is not uniform (its times are stored).
    pub explicit_times: bool,
    /// What the grid is, for the report.
    pub grid: String,
}

impl ClipMeta {
    /// The identity of a clip baked on a uniform grid at `fps` over `frames`' times.
    pub fn uniform(id: i32, name: &str, frames: &Frames, fps: f32) -> Self {
        ClipMeta {
            id,
            name: name.to_string(),
            duration: frames.times.last().copied().unwrap_or(0.0),
            frame_rate: fps,
            explicit_times: false,
            grid: format!("{fps} fps"),
        }
    }
}

pub use crate::core::binding::track_targets;

/// Reduces reference frames to a baked clip. Each channel keeps the keys needed to stay within a local tolerance
/// derived from `tolerance` (metres of vertex displacement) × `factor` and the joint's size; callers measure the
/// true error and lower `factor` when hierarchy effects push it over.
pub fn reduce(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
    frames: &Frames,
    meta: &ClipMeta,
    how: &Reduction,
) -> BakedClip {
    let (rotation_interp, keys) = (how.rotation_interp, how.keys);
    let scales = joint_scales(skeleton);
    let targets = track_targets(skeleton, humanoid);
    let times = &frames.times;
    let tol = how.tolerance * how.factor;
    // The source between the frames, by time: a channel is checked against it as against the frames.
    let mut checks: Vec<&(f32, crate::core::Pose)> = frames.checks.iter().collect();
    checks.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut tracks = Vec::new();
    for (j, target) in targets.into_iter().enumerate() {
        let s = &scales[j];
        let rest = skeleton.rest()[j];
        let col = |f: fn(&crate::core::Transform) -> Vec3| {
            let on_grid: Vec<Vec3> = frames.poses.iter().map(|p| f(&p.local[j])).collect();
            let between: Vec<(f32, Vec3)> =
                checks.iter().map(|(t, p)| (*t, f(&p.local[j]))).collect();
            (on_grid, between)
        };
        let lerp: &[fn(Vec3, Vec3, f32) -> Vec3] = &[Vec3::lerp];
        let (values, between) = col(|t| t.translation.into());
        let translation = channel(
            times,
            values,
            &between,
            rest.translation.into(),
            tol / s.parent_scale,
            f32::INFINITY,
            keys,
            |a, b| a.distance(b),
            lerp,
        );
        let rotations: Vec<Quat> = frames.poses.iter().map(|p| p.local[j].rotation).collect();
        let between: Vec<(f32, Quat)> = checks
            .iter()
            .map(|(t, p)| (*t, p.local[j].rotation))
            .collect();
        // Read by nlerp, neighbouring keys stay close enough for nlerp's parting from slerp to be within the
        // channel's tolerance wherever it falls between the checks.
        let rotation_span = if rotation_interp.reads_nlerp() {
            nlerp_turn_limit(tol / s.reach)
        } else {
            f32::INFINITY
        };
        let rotation = channel(
            times,
            rotations,
            &between,
            rest.rotation,
            tol / s.reach,
            rotation_span,
            keys,
            angle,
            rotation_interp.readings(),
        );
        let (values, between) = col(|t| t.scale.into());
        let scale = channel(
            times,
            values,
            &between,
            rest.scale.into(),
            tol / s.reach,
            f32::INFINITY,
            keys,
            |a, b| (a - b).abs().max_element(),
            lerp,
        );
        if matches!(
            (&translation, &rotation, &scale),
            (Channel::Rest, Channel::Rest, Channel::Rest)
        ) {
            continue;
        }
        tracks.push(BakedTrack {
            target,
            translation,
            rotation,
            scale,
            grid_steps: [None; 3],
        });
    }
    BakedClip {
        id: meta.id,
        name: meta.name.clone(),
        duration: meta.duration,
        frame_rate: meta.frame_rate,
        times: meta.explicit_times.then(|| frames.times.clone()),
        tracks,
        morph: frames.morph.clone(),
    }
}

/// Gives every mapped humanoid bone (every joint when nothing is mapped) a track, at its rest value where the
/// clip leaves it: a player that sets only the joints it has curves for then still poses the whole body. Tracks
/// stay in joint order.
pub fn add_rest_tracks(clip: &mut BakedClip, skeleton: &Skeleton, humanoid: Option<&HumanoidMap>) {
    let mapped = humanoid.filter(|h| !h.is_empty());
    let required: Vec<bool> = match mapped {
        Some(h) => h
            .bone_per_joint(skeleton.len())
            .iter()
            .map(Option::is_some)
            .collect(),
        None => vec![true; skeleton.len()],
    };
    let mut moving: std::collections::HashMap<String, BakedTrack> =
        std::mem::take(&mut clip.tracks)
            .into_iter()
            .map(|t| (t.target.path.clone(), t))
            .collect();
    for (j, target) in track_targets(skeleton, humanoid).into_iter().enumerate() {
        match moving.remove(&target.path) {
            Some(track) => clip.tracks.push(track),
            None if required[j] => clip.tracks.push(BakedTrack {
                target,
                translation: Channel::Rest,
                rotation: Channel::Rest,
                scale: Channel::Rest,
                grid_steps: [None; 3],
            }),
            None => {}
        }
    }
    clip.tracks.extend(moving.into_values());
}

/// Runs `attempt(factor, quantize)` with decreasing local tolerances (every quantized one first when allowed:
/// a quantized file with more keys is still smaller than a float one) until the measured error (second value,
/// metres) is within `tolerance_cm` by [`within_budget`]; the last attempt keeps every frame unquantized.
pub fn search<T>(
    tolerance_cm: f32,
    quantize: bool,
    mut attempt: impl FnMut(f32, bool) -> (T, f32),
) -> (T, f32, bool) {
    const FACTORS: [f32; 5] = [1.0, 0.5, 0.25, 0.12, 0.05];
    // Packed grids round each value by at most half a step, and errors of a chain's joints seldom line up: a
    // quantized bake first tries coarser grids than the per-joint budget.
    const QUANTIZED: [f32; 12] = [
        2.0, 1.6, 1.3, 1.1, 0.9, 0.75, 0.62, 0.5, 0.35, 0.25, 0.12, 0.05,
    ];
    let mut plan: Vec<(f32, bool)> = Vec::new();
    if quantize {
        plan.extend(QUANTIZED.map(|f| (f, true)));
    }
    plan.extend(FACTORS.map(|f| (f, false)));
    plan.push((0.0, false));
    let last = plan.len() - 1;
    for (i, (factor, q)) in plan.into_iter().enumerate() {
        let (out, error) = attempt(factor, q);
        if within_budget(error, tolerance_cm) || i == last {
            return (out, error, q);
        }
    }
    unreachable!("the last attempt always returns")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frames a linearly read vector channel keeps at a 1e-5 tolerance.
    fn kept_by_lerp(times: &[f32], values: &[Vec3]) -> Vec<u32> {
        keep_frames(
            times,
            values,
            &[],
            1e-5,
            f32::INFINITY,
            |a, b| a.distance(b),
            &[Vec3::lerp],
        )
    }

    #[test]
    fn straight_lines_keep_only_their_ends() {
        let times: Vec<f32> = (0..10).map(|i| i as f32).collect();
        let values: Vec<Vec3> = times
            .iter()
            .map(|&t| Vec3::new(t * 2.0, 1.0, 0.0))
            .collect();
        assert_eq!(kept_by_lerp(&times, &values), vec![0, 9]);
    }

    #[test]
    fn a_corner_is_kept() {
        let times: Vec<f32> = (0..5).map(|i| i as f32).collect();
        let v = |x: f32| Vec3::new(x, 0.0, 0.0);
        let values = vec![v(0.0), v(1.0), v(2.0), v(1.0), v(0.0)];
        assert_eq!(kept_by_lerp(&times, &values), vec![0, 2, 4]);
    }

    #[test]
    fn reduced_keys_stay_within_tolerance() {
        let times: Vec<f32> = (0..60).map(|i| i as f32 / 30.0).collect();
        let values: Vec<Vec3> = times
            .iter()
            .map(|&t| Vec3::new((t * 3.0).sin(), (t * 7.0).cos() * 0.2, t))
            .collect();
        let tol = 1e-2;
        let kept = keep_frames(
            &times,
            &values,
            &[],
            tol,
            f32::INFINITY,
            |a, b| a.distance(b),
            &[Vec3::lerp],
        );
        assert!(kept.len() < values.len());
        for i in 0..values.len() {
            let k = kept.partition_point(|&f| f as usize <= i) - 1;
            if kept[k] as usize == i {
                continue;
            }
            let (a, b) = (kept[k] as usize, kept[k + 1] as usize);
            let u = (times[i] - times[a]) / (times[b] - times[a]);
            assert!(values[a].lerp(values[b], u).distance(values[i]) <= tol);
        }
    }

    #[test]
    fn tiny_angles_are_measured() {
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_x(1e-5);
        assert!((angle(a, b) - 1e-5).abs() < 1e-7, "{}", angle(a, b));
        assert!((angle(a, -Quat::from_rotation_y(0.5)) - 0.5).abs() < 1e-5);
    }

    /// Keys at 0°, 30° and 60° about one axis, one second apart, and the source between them (a slerp) a
    /// quarter, half and three quarters of the way: the middle key is where nlerp and slerp agree by symmetry.
    fn sixty_degrees_in_two_steps() -> (Vec<f32>, Vec<Quat>, Vec<(f32, Quat)>) {
        let at = |t: f32| Quat::from_rotation_x(t * 30f32.to_radians());
        let times = vec![0.0, 1.0, 2.0];
        let values = times.iter().map(|&t| at(t)).collect();
        let checks = [0.25, 0.5, 0.75, 1.25, 1.5, 1.75]
            .iter()
            .map(|&t| (t, at(t)))
            .collect();
        (times, values, checks)
    }

    #[test]
    fn nlerp_is_checked_against_the_source_a_quarter_of_the_way_between_keys() {
        let (times, values, checks) = sixty_degrees_in_two_steps();
        // 60° between the outer keys: nlerp parts from slerp by 0.27° near a quarter of the way.
        let tol = 0.1f32.to_radians();
        let keep = |checks: &[(f32, Quat)], interps: &[fn(Quat, Quat, f32) -> Quat]| {
            keep_frames(&times, &values, checks, tol, f32::INFINITY, angle, interps)
        };
        let both = RotationInterp::Both.readings();
        // Checked at the keys alone, the middle key (where nlerp and slerp agree) lets nlerp span 60°.
        assert_eq!(keep(&[], both), vec![0, 2]);
        // The source a quarter of the way between the keys shows nlerp's parting: the middle key stays.
        assert_eq!(keep(&checks, both), vec![0, 1, 2]);
        // Read by slerp alone, the turn is one straight slerp.
        assert_eq!(keep(&checks, RotationInterp::Slerp.readings()), vec![0, 2]);
        let quarter = nlerp(values[0], values[2], 0.25);
        assert!(angle(quarter, checks[0].1) > 0.25f32.to_radians());
    }

    #[test]
    fn rotation_keys_read_by_nlerp_are_never_further_apart_than_the_cap() {
        let at = |t: f32| Quat::from_rotation_y(t * 20f32.to_radians());
        let times: Vec<f32> = (0..4).map(|k| k as f32).collect();
        let values: Vec<Quat> = times.iter().map(|&t| at(t)).collect();
        let keep = |span: f32| {
            keep_frames(
                &times,
                &values,
                &[],
                1.0,
                span,
                angle,
                RotationInterp::Slerp.readings(),
            )
        };
        assert_eq!(keep(f32::INFINITY), vec![0, 3]);
        // 20° steps: two make 40°, over the 24° cap.
        assert_eq!(keep(NLERP_MAX_TURN), vec![0, 1, 2, 3]);
    }

    /// The largest angle (radians) by which nlerp parts from slerp between keys `turn` apart, sampled finely.
    fn nlerp_parting(turn: f32) -> f32 {
        let (a, b) = (Quat::IDENTITY, Quat::from_rotation_z(turn));
        (1..1000)
            .map(|i| {
                let u = i as f32 / 1000.0;
                angle(nlerp(a, b, u), a.slerp(b, u))
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn the_turn_limit_keeps_nlerp_within_its_tolerance_and_under_the_cap() {
        for tolerance in [1e-5f32, 1e-4, 3e-4, 1e-3] {
            let limit = nlerp_turn_limit(tolerance);
            assert!(limit <= NLERP_MAX_TURN);
            let parting = nlerp_parting(limit);
            assert!(
                parting <= tolerance * 1.01,
                "{tolerance}: {parting} at {}°",
                limit.to_degrees()
            );
        }
        // A joint with a 3 cm reach and the default budget: the cap decides (24°, 0.017° of parting).
        assert_eq!(nlerp_turn_limit(1e-4 / 0.03), NLERP_MAX_TURN);
        let parting = nlerp_parting(NLERP_MAX_TURN).to_degrees();
        assert!((parting - 0.0169).abs() < 0.0005, "{parting}°");
        // The Knight's lower leg turned 60° between two keys: 0.27° of parting.
        let parting = nlerp_parting(60f32.to_radians()).to_degrees();
        assert!((parting - 0.267).abs() < 0.002, "{parting}°");
    }

    /// The budget is checked as the report states the error (`max_error_cm = error * 100`): the search accepts an
    /// attempt exactly when that figure is within the tolerance, f32 rounding included.
    #[test]
    fn the_search_accepts_a_bake_exactly_when_its_reported_error_is_within_the_budget() {
        let step = |x: f32, ulps: i32| f32::from_bits((x.to_bits() as i32 + ulps) as u32);
        let mut differed = 0;
        for k in 1..=3000 {
            let tolerance_cm = k as f32 / 1000.0;
            for ulps in -2..=2 {
                let error = step(tolerance_cm / 100.0, ulps);
                let reported_cm = error * 100.0;
                let (chosen, _, _) = search(tolerance_cm, false, |factor, _| {
                    (factor, if factor == 1.0 { error } else { 0.0 })
                });
                assert_eq!(
                    chosen == 1.0,
                    reported_cm <= tolerance_cm,
                    "{tolerance_cm} cm: error {error} m reported as {reported_cm} cm"
                );
                differed +=
                    usize::from((error <= tolerance_cm / 100.0) != (reported_cm <= tolerance_cm));
            }
        }
        // Compared in metres, the budget would have accepted bakes whose report reads over it (0.027 cm:
        // 0.00027000002 m is within 0.027 / 100, reported as 0.027000003 cm) and refused some that read within.
        assert!(differed > 100, "{differed}");
        let error = 0.027f32 / 100.0;
        assert!(error <= 0.027 / 100.0 && error * 100.0 > 0.027);
        assert!(!within_budget(error, 0.027));
    }
}
