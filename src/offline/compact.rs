//! Compaction: reduce reference frames to the keys each channel needs, and the one error search that lowers
//! the local tolerance until the encoded file, decoded again, is within the bound (measured by
//! [`super::measure`]).

use glam::{Quat, Vec3};

use super::frames::Frames;
use crate::clipfile::{BakedClip, BakedTrack, Channel};
use crate::core::Skeleton;
use crate::core::clip::KeyValue;
use crate::core::humanoid::HumanoidMap;
use crate::core::metric::joint_scales;

/// Rotation angle between two unit quaternions, precise for tiny angles (where acos of the dot product is not).
fn angle(a: Quat, b: Quat) -> f32 {
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
}

/// Unity's and Blender's reading of two rotation keys: per-component lerp on the shorter side, normalised.
pub fn nlerp(a: Quat, b: Quat, u: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    Quat::from_vec4(glam::Vec4::from(a).lerp(glam::Vec4::from(b), u)).normalize()
}

/// Frames to keep so that interpolation between kept frames, by every one of `interps`, stays within `tol` of
/// every sample.
fn keep_frames<T: Copy>(
    times: &[f32],
    values: &[T],
    tol: f32,
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
            let ok = (a + 1..cand).all(|i| {
                let u = (times[i] - times[a]) / (times[cand] - times[a]);
                interps
                    .iter()
                    .all(|interp| dist(interp(values[a], values[cand], u), values[i]) <= tol)
            });
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

fn channel<T: Copy>(
    times: &[f32],
    values: Vec<T>,
    rest: T,
    tol: f32,
    keys: KeyReduction,
    dist: impl Fn(T, T) -> f32 + Copy,
    interps: &[fn(T, T, f32) -> T],
) -> Channel<T> {
    if values.iter().all(|&v| dist(v, rest) <= tol) {
        return Channel::Rest;
    }
    if values.iter().all(|&v| dist(v, values[0]) <= tol) {
        return Channel::Constant(values[0]);
    }
    if keys == KeyReduction::None {
        return Channel::Keys {
            frames: (0..values.len() as u32).collect(),
            values,
        };
    }
    let frames = keep_frames(times, &values, tol, dist, interps);
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
    let mut tracks = Vec::new();
    for (j, target) in targets.into_iter().enumerate() {
        let s = &scales[j];
        let rest = skeleton.rest()[j];
        let col = |f: fn(&crate::core::Transform) -> Vec3| {
            frames
                .poses
                .iter()
                .map(|p| f(&p.local[j]))
                .collect::<Vec<_>>()
        };
        let lerp: &[fn(Vec3, Vec3, f32) -> Vec3] = &[Vec3::lerp];
        let translation = channel(
            times,
            col(|t| t.translation.into()),
            rest.translation.into(),
            tol / s.parent_scale,
            keys,
            |a, b| a.distance(b),
            lerp,
        );
        let rotations: Vec<Quat> = frames.poses.iter().map(|p| p.local[j].rotation).collect();
        let rotation = channel(
            times,
            rotations,
            rest.rotation,
            tol / s.reach,
            keys,
            angle,
            rotation_interp.readings(),
        );
        let scale = channel(
            times,
            col(|t| t.scale.into()),
            rest.scale.into(),
            tol / s.reach,
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
/// metres) is within `tolerance`; the last attempt keeps every frame unquantized.
pub fn search<T>(
    tolerance: f32,
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
        if error <= tolerance || i == last {
            return (out, error, q);
        }
    }
    unreachable!("the last attempt always returns")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_lines_keep_only_their_ends() {
        let times: Vec<f32> = (0..10).map(|i| i as f32).collect();
        let values: Vec<Vec3> = times
            .iter()
            .map(|&t| Vec3::new(t * 2.0, 1.0, 0.0))
            .collect();
        assert_eq!(
            keep_frames(&times, &values, 1e-5, |a, b| a.distance(b), &[Vec3::lerp]),
            vec![0, 9]
        );
    }

    #[test]
    fn a_corner_is_kept() {
        let times: Vec<f32> = (0..5).map(|i| i as f32).collect();
        let v = |x: f32| Vec3::new(x, 0.0, 0.0);
        let values = vec![v(0.0), v(1.0), v(2.0), v(1.0), v(0.0)];
        assert_eq!(
            keep_frames(&times, &values, 1e-5, |a, b| a.distance(b), &[Vec3::lerp]),
            vec![0, 2, 4]
        );
    }

    #[test]
    fn reduced_keys_stay_within_tolerance() {
        let times: Vec<f32> = (0..60).map(|i| i as f32 / 30.0).collect();
        let values: Vec<Vec3> = times
            .iter()
            .map(|&t| Vec3::new((t * 3.0).sin(), (t * 7.0).cos() * 0.2, t))
            .collect();
        let tol = 1e-2;
        let kept = keep_frames(&times, &values, tol, |a, b| a.distance(b), &[Vec3::lerp]);
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
}
