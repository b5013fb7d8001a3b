//! A generic `.anim` clip as the tool's [`Clip`]: one track per transform path, bound to a character by path and
//! joint name as a Unity-layout clip is.
//!
//! Unity's curves are sampled on a grid of [`SAMPLE_RATE`] plus every key time, with a key just before each
//! stepped key so that a step stays a step; between samples the clip plays linearly (rotations by slerp), within
//! [`SAMPLING_TOLERANCE`] of Unity's curves on the clips measured (`tests`). Values cross from Unity's
//! left-handed axes (positions' X negated, rotations (x, −y, −z, w)); Euler curves are composed in their rotation
//! order first. The clip's Loop Time becomes the clip's looping; its start and stop crop it. Blend-shape curves
//! (`blendShape.<name>` on a SkinnedMeshRenderer) become one morph track per renderer path naming its targets,
//! Unity's weights (0–100) made glTF's (0–1), sampled the same way; they bind to the character's mesh of that
//! name when the clip plays.

use glam::{Quat, Vec3};

use super::anim::{TransformChannel, UnityClip, blend_shape};
use super::curve::Curve;
use crate::core::morph::MorphTrack;
use crate::core::unity_axes::{mirror_position, mirror_rotation};
use crate::core::{Clip, Interpolation, Keys, Track, TrackTarget, Transform};

/// Samples per second of the grid the curves are read on.
pub const SAMPLE_RATE: f64 = 120.0;
/// How far before a stepped key the held value is sampled, seconds.
const STEP_LEAD: f64 = 1e-4;
/// The longest clip read (stop minus start), seconds: an hour.
pub const MAX_CLIP_SECONDS: f64 = 3600.0;
/// Most samples over every track of one clip.
pub const MAX_SAMPLES: usize = 20_000_000;

/// The tool's clip of a `.anim` clip, or why it cannot be one (a clip with no curve it plays, one too long). A
/// humanoid clip's muscle curves are decoded by [`super::muscle_clip`].
pub fn to_clip(u: &UnityClip) -> Result<Clip, String> {
    if u.humanoid {
        return super::muscle_clip::to_clip(u);
    }
    if u.transforms.is_empty() && !u.floats.iter().any(|f| blend_shape(f).is_some()) {
        return Err(format!(
            "clip '{}' has no transform or blend-shape curves (only {} float curve(s) of properties, which are \
             not played)",
            u.name,
            u.floats.len()
        ));
    }
    let (start, stop) = span(u)?;
    let mut paths: Vec<&str> = u.transforms.iter().map(|t| t.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    let mut samples = 0usize;
    let mut tracks = Vec::new();
    for path in paths {
        let curves: Vec<_> = u.transforms.iter().filter(|t| t.path == path).collect();
        let channel =
            |want: fn(&TransformChannel) -> bool| curves.iter().find(|t| want(&t.channel));
        let mut times = |components: &[Curve]| -> Result<Vec<f64>, String> {
            // Bounded before the grid is allocated: its samples and the keys inside it.
            let keys: usize = components.iter().map(|c| c.keys.len()).sum();
            let grid = ((stop - start) * SAMPLE_RATE).ceil() as usize + 1;
            if samples.saturating_add(grid).saturating_add(2 * keys) > MAX_SAMPLES {
                return Err(format!(
                    "clip '{}' would take more than {MAX_SAMPLES} samples",
                    u.name
                ));
            }
            let t = sample_times(components, start, stop);
            samples = samples.saturating_add(t.len());
            if samples > MAX_SAMPLES {
                return Err(format!(
                    "clip '{}' would take more than {MAX_SAMPLES} samples",
                    u.name
                ));
            }
            Ok(t)
        };
        let vec3 = |c: &[Curve], t: f64| {
            Vec3::new(
                c[0].evaluate(t) as f32,
                c[1].evaluate(t) as f32,
                c[2].evaluate(t) as f32,
            )
        };
        let keys_of = |ts: &[f64]| -> Vec<f32> { ts.iter().map(|t| (t - start) as f32).collect() };
        let bad = |e: crate::core::clip::ClipError| format!("clip '{}', '{path}': {e}", u.name);
        let translation = match channel(|c| matches!(c, TransformChannel::Position)) {
            Some(p) => {
                let ts = times(&p.components)?;
                let v = ts
                    .iter()
                    .map(|&t| mirror_position(vec3(&p.components, t)))
                    .collect();
                Some(Keys::new(keys_of(&ts), v, Interpolation::Linear).map_err(bad)?)
            }
            None => None,
        };
        let rotation = match channel(|c| {
            matches!(
                c,
                TransformChannel::Rotation | TransformChannel::Euler { .. }
            )
        }) {
            Some(r) => {
                let ts = times(&r.components)?;
                let v = continuous(ts.iter().map(|&t| {
                    let q = match r.channel {
                        TransformChannel::Euler { order } => euler(vec3(&r.components, t), order),
                        _ => {
                            let c = &r.components;
                            let q = Quat::from_xyzw(
                                c[0].evaluate(t) as f32,
                                c[1].evaluate(t) as f32,
                                c[2].evaluate(t) as f32,
                                c[3].evaluate(t) as f32,
                            );
                            if q.length_squared() > 1e-12 {
                                q.normalize()
                            } else {
                                Quat::IDENTITY
                            }
                        }
                    };
                    mirror_rotation(q)
                }));
                Some(Keys::new(keys_of(&ts), v, Interpolation::Linear).map_err(bad)?)
            }
            None => None,
        };
        let scale = match channel(|c| matches!(c, TransformChannel::Scale)) {
            Some(sc) => {
                let ts = times(&sc.components)?;
                let v = ts.iter().map(|&t| vec3(&sc.components, t)).collect();
                Some(Keys::new(keys_of(&ts), v, Interpolation::Linear).map_err(bad)?)
            }
            None => None,
        };
        let mut target = TrackTarget::at_identity(path);
        target.name = path.rsplit('/').next().unwrap_or(path).to_string();
        target.rest = Transform::IDENTITY;
        target.rest_known = false;
        tracks.push(Track {
            target,
            translation,
            rotation,
            scale,
        });
    }
    let morph = blend_shape_tracks(u, start, stop, samples)?;
    let mut clip = Clip::new(u.name.clone(), tracks).with_morph_tracks(morph);
    clip.duration = (stop - start) as f32;
    with_settings(u, clip)
}

/// The clip's blend-shape curves as one morph track per renderer path, naming its targets (the first curve of a
/// name counts), each curve sampled as the transform curves are and divided by 100; `samples` is what the
/// clip's other tracks took, bounded with these by [`MAX_SAMPLES`].
fn blend_shape_tracks(
    u: &UnityClip,
    start: f64,
    stop: f64,
    mut samples: usize,
) -> Result<Vec<MorphTrack>, String> {
    let shapes: Vec<(&str, &str, &Curve)> = u
        .floats
        .iter()
        .filter_map(|f| Some((f.path.as_str(), blend_shape(f)?, &f.curve)))
        .collect();
    let mut paths: Vec<&str> = shapes.iter().map(|s| s.0).collect();
    paths.sort_unstable();
    paths.dedup();
    let too_many = || {
        format!(
            "clip '{}' would take more than {MAX_SAMPLES} samples",
            u.name
        )
    };
    let mut tracks = Vec::with_capacity(paths.len());
    for path in paths {
        let mut curves: Vec<(&str, &Curve)> = Vec::new();
        for &(_, name, curve) in shapes.iter().filter(|s| s.0 == path) {
            if !curves.iter().any(|c| c.0 == name) {
                curves.push((name, curve));
            }
        }
        // Bounded before the grid is allocated: its samples and the keys inside it, for every curve.
        let keys: usize = curves.iter().map(|c| c.1.keys.len()).sum();
        let grid = ((stop - start) * SAMPLE_RATE).ceil() as usize + 1;
        let most = grid.saturating_add(2 * keys).saturating_mul(curves.len());
        if samples.saturating_add(most) > MAX_SAMPLES {
            return Err(too_many());
        }
        let times = sample_times(curves.iter().map(|c| c.1), start, stop);
        samples = samples.saturating_add(times.len() * curves.len());
        let values = times
            .iter()
            .flat_map(|&t| curves.iter().map(move |c| (c.1.evaluate(t) / 100.0) as f32))
            .collect();
        let names = curves.iter().map(|c| c.0.to_string()).collect();
        let keys = times.iter().map(|t| (t - start) as f32).collect();
        tracks.push(
            MorphTrack::named(path, names, keys, values, Interpolation::Linear)
                .map_err(|e| format!("clip '{}', blend shapes at '{path}': {e}", u.name))?,
        );
    }
    Ok(tracks)
}

/// The clip with the `.anim`'s settings that change its keys applied as the tool's clip settings do: Loop Time,
/// Cycle Offset, Loop Pose and Bake Into Pose (rotation, height, travel). Its start and stop already cropped it;
/// its Mirror, which needs the character, is left to the caller (named in the clip's notes).
pub(super) fn with_settings(u: &UnityClip, clip: Clip) -> Result<Clip, String> {
    let s = &u.settings;
    let settings = crate::core::ClipSettings {
        loop_time: s.loop_time,
        cycle_offset: (s.cycle_offset.rem_euclid(1.0) as f32).min(0.999_999),
        loop_pose: s.loop_pose,
        bake_root_rotation: s.bake_rotation,
        bake_root_y: s.bake_position_y,
        bake_root_xz: s.bake_position_xz,
        ..crate::core::ClipSettings::default()
    };
    settings
        .apply(&clip)
        .map_err(|e| format!("clip '{}': its settings: {e}", u.name))
}

/// Rotations kept in one hemisphere from key to key, so slerp between them takes the short way Unity's curves do.
pub(super) fn continuous(rotations: impl Iterator<Item = Quat>) -> Vec<Quat> {
    let mut previous: Option<Quat> = None;
    rotations
        .map(|q| {
            let q = if previous.is_some_and(|p| p.dot(q) < 0.0) {
                -q
            } else {
                q
            };
            previous = Some(q);
            q
        })
        .collect()
}

/// The part of the clip played, `(start, stop)` seconds from its settings, or why it is too long to read.
pub(super) fn span(u: &UnityClip) -> Result<(f64, f64), String> {
    let s = &u.settings;
    let (start, stop) = (s.start.max(0.0), s.stop.max(s.start.max(0.0)));
    if stop - start > MAX_CLIP_SECONDS {
        return Err(format!(
            "clip '{}' runs {:.0} s (start {start} s, stop {stop} s), more than the {MAX_CLIP_SECONDS} s read",
            u.name,
            stop - start
        ));
    }
    Ok((start, stop))
}

/// A Unity Euler rotation (degrees) in `order` (Unity's RotationOrder, the order the axes apply in: 4 = ZXY, the
/// default, is z first, then x, then y).
pub fn euler(deg: Vec3, order: u8) -> Quat {
    let (x, y, z) = (
        Quat::from_rotation_x(deg.x.to_radians()),
        Quat::from_rotation_y(deg.y.to_radians()),
        Quat::from_rotation_z(deg.z.to_radians()),
    );
    // The first axis applied is the rightmost factor.
    match order {
        0 => z * y * x,
        1 => y * z * x,
        2 => x * z * y,
        3 => z * x * y,
        5 => x * y * z,
        _ => y * x * z,
    }
}

/// Where the curves of one channel are sampled in `[start, stop]`: a uniform grid, every key time, and a time
/// just before each key that ends a stepped segment.
pub(super) fn sample_times<'a>(
    components: impl IntoIterator<Item = &'a Curve>,
    start: f64,
    stop: f64,
) -> Vec<f64> {
    let mut times: Vec<f64> = Vec::new();
    let span = (stop - start).max(0.0);
    let n = (span * SAMPLE_RATE).ceil() as usize;
    times.extend((0..=n).map(|i| (start + i as f64 / SAMPLE_RATE).min(stop)));
    for c in components {
        for pair in c.keys.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if b.time > start && b.time <= stop {
                times.push(b.time);
                if !a.out_slope.is_finite() || !b.in_slope.is_finite() {
                    times.push((b.time - STEP_LEAD).max(start));
                }
            }
        }
        if let Some(k) = c.keys.first().filter(|k| k.time > start && k.time <= stop) {
            times.push(k.time);
        }
    }
    times.sort_by(f64::total_cmp);
    // Distinct as the clip's f32 times from its start, however long the clip.
    times.dedup_by(|a, b| (*a - start) as f32 <= (*b - start) as f32);
    times
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::unity::{anim, yaml};
    use std::path::Path;

    #[test]
    fn unity_euler_orders_apply_their_axes_in_turn() {
        // ZXY (the default): z first. Rotating +X by z = 90° gives +Y, then y = 90° about Y leaves it.
        let q = euler(Vec3::new(0.0, 90.0, 90.0), 4);
        assert!((q * Vec3::X - Vec3::Y).length() < 1e-5, "{}", q * Vec3::X);
        // XYZ: x first, then y, then z: +Y by x = 90° → +Z, by y = 90° → +X, by z = 90° → +Y.
        let q = euler(Vec3::new(90.0, 90.0, 90.0), 0);
        assert!((q * Vec3::Y - Vec3::Y).length() < 1e-5, "{}", q * Vec3::Y);
    }

    #[test]
    fn a_generic_clip_plays_its_curves_in_the_tools_axes() {
        let text = "--- !u!74 &7400000
AnimationClip:
  m_Name: Nod
  m_PositionCurves:
  - curve:
      m_Curve:
      - {time: 0, value: {x: 1, y: 0, z: 0}, inSlope: {x: 0, y: 0, z: 0}, outSlope: {x: 0, y: 0, z: 0}, weightedMode: 0}
      - {time: 1, value: {x: 3, y: 0, z: 0}, inSlope: {x: 0, y: 0, z: 0}, outSlope: {x: 0, y: 0, z: 0}, weightedMode: 0}
      m_PreInfinity: 2
      m_PostInfinity: 2
    path: Armature/Head
  m_EulerCurves:
  - curve:
      m_Curve:
      - {time: 0, value: {x: 0, y: 0, z: 0}, inSlope: {x: 0, y: 0, z: 0}, outSlope: {x: 0, y: Infinity, z: 0}, weightedMode: 0}
      - {time: 0.5, value: {x: 0, y: 40, z: 0}, inSlope: {x: 0, y: 0, z: 0}, outSlope: {x: 0, y: 0, z: 0}, weightedMode: 0}
      m_PreInfinity: 2
      m_PostInfinity: 2
      m_RotationOrder: 4
    path: Armature/Head
  m_AnimationClipSettings:
    m_StartTime: 0
    m_StopTime: 1
    m_LoopTime: 1
";
        let file = yaml::parse(text, Path::new("nod.anim")).unwrap();
        let u = &anim::clips(&file, Path::new("nod.anim")).unwrap()[0];
        let clip = to_clip(u).unwrap();
        assert_eq!(clip.tracks.len(), 1);
        assert!(clip.looping);
        let track = &clip.tracks[0];
        assert_eq!(
            (track.target.path.as_str(), track.target.name.as_str()),
            ("Armature/Head", "Head")
        );
        let p = track.translation.as_ref().unwrap();
        // Unity's x = 2 at the middle (a smoothstep from 1 to 3) is glTF's x = −2.
        assert!((p.sample(0.5).x + 2.0).abs() < 1e-4, "{}", p.sample(0.5));
        let r = track.rotation.as_ref().unwrap();
        // Stepped: 0° until the key at 0.5 s, then 40° about Unity's +Y, which is −40° about glTF's +Y.
        let before = r.sample(0.499);
        assert!(before.angle_between(Quat::IDENTITY) < 1e-4, "{before}");
        let after = r.sample(0.6);
        let want = Quat::from_rotation_y(-40f32.to_radians());
        assert!(after.angle_between(want) < 1e-4, "{after} {want}");
        // A stop time years away is refused before its grid is allocated (a fuzzer's 4 TB allocation).
        let far = text.replace("m_StopTime: 1", "m_StopTime: 1e12");
        let file = yaml::parse(&far, Path::new("far.anim")).unwrap();
        let u = &anim::clips(&file, Path::new("far.anim")).unwrap()[0];
        let e = to_clip(u).unwrap_err();
        assert!(e.contains("more than the 3600 s"), "{e}");
    }

    #[test]
    fn a_clips_cycle_offset_and_bake_into_pose_apply_as_the_tools_clip_settings() {
        let text = "--- !u!74 &7400000
AnimationClip:
  m_Name: Slide
  m_PositionCurves:
  - curve:
      m_Curve:
      - {time: 0, value: {x: 1, y: 0, z: 0}, inSlope: {x: 2, y: 0, z: 0}, outSlope: {x: 2, y: 0, z: 0}}
      - {time: 1, value: {x: 3, y: 0, z: 0}, inSlope: {x: 2, y: 0, z: 0}, outSlope: {x: 2, y: 0, z: 0}}
    path: Hips
  m_AnimationClipSettings:
    m_StartTime: 0
    m_StopTime: 1
    m_LoopTime: 1
    m_CycleOffset: 1.25
";
        let clip_of = |text: &str| {
            let file = yaml::parse(text, Path::new("slide.anim")).unwrap();
            to_clip(&anim::clips(&file, Path::new("slide.anim")).unwrap()[0]).unwrap()
        };
        // Unity's x runs 1 → 3 (a line); a cycle offset of 1.25 starts the loop a quarter in: x = 1.5, glTF −1.5.
        let x = |clip: &Clip, t: f32| clip.tracks[0].translation.as_ref().unwrap().sample(t).x;
        let offset = clip_of(text);
        assert!((x(&offset, 0.0) + 1.5).abs() < 1e-3, "{}", x(&offset, 0.0));
        // Root Transform Position (XZ), Bake Into Pose: the travel from start to end is taken out.
        let baked = clip_of(&text.replace(
            "m_CycleOffset: 1.25",
            "m_CycleOffset: 0\n    m_LoopBlendPositionXZ: 1",
        ));
        assert!((x(&baked, 0.0) - x(&baked, 1.0)).abs() < 1e-3);
    }

    #[test]
    fn transform_float_curves_play_as_their_channel_and_a_partial_one_is_named() {
        let key = |v: f64| format!("{{time: 0, value: {v}, inSlope: 0, outSlope: 0}}");
        let float = |attribute: &str, v: f64| {
            format!(
                "  - curve:\n      m_Curve:\n      - {}\n    attribute: {attribute}\n    path: Armature/Hips\n    classID: 4\n",
                key(v)
            )
        };
        let text = format!(
            "--- !u!74 &7400000\nAnimationClip:\n  m_Name: Floats\n  m_FloatCurves:\n{}{}{}{}",
            float("m_LocalPosition.x", 1.0),
            float("m_LocalPosition.y", 2.0),
            float("m_LocalPosition.z", 3.0),
            float("m_LocalScale.y", 2.0),
        );
        let file = yaml::parse(&text, Path::new("floats.anim")).unwrap();
        let u = &anim::clips(&file, Path::new("floats.anim")).unwrap()[0];
        assert!(
            u.unsupported
                .iter()
                .any(|n| n.contains("1 Transform channel") && n.contains("Armature/Hips")),
            "{:?}",
            u.unsupported
        );
        let clip = to_clip(u).unwrap();
        let p = clip.tracks[0].translation.as_ref().unwrap().sample(0.0);
        // Unity's (1, 2, 3) is glTF's (−1, 2, 3).
        assert!(p.abs_diff_eq(Vec3::new(-1.0, 2.0, 3.0), 1e-6), "{p}");
        assert!(clip.tracks[0].scale.is_none());
    }
}
