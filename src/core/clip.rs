//! Animation clips: per-joint keyframe tracks, sampled exactly as glTF 2.0 defines.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::humanoid::HumanBone;
use super::morph::MorphTrack;
use super::transform::Transform;

/// How values between two keys are found (glTF `sampler.interpolation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interpolation {
    /// Hold the earlier key's value until the next key.
    Step,
    /// Linear for vectors, shortest-path slerp for rotations.
    Linear,
    /// Cubic Hermite spline with per-key in and out tangents.
    CubicSpline,
}

/// A problem with keyframe data.
#[derive(Debug, Error, PartialEq)]
pub enum ClipError {
    /// No keys at all.
    #[error("track has no keys")]
    Empty,
    /// Times and values disagree in count.
    #[error("track has {times} times but {values} values (expected {expected})")]
    CountMismatch {
        /// Number of key times.
        times: usize,
        /// Number of values given.
        values: usize,
        /// Number of values the interpolation needs.
        expected: usize,
    },
    /// A time is NaN, infinite, negative, or not after the previous one.
    #[error("key time {index} ({time}) is not finite, negative or not increasing")]
    BadTime {
        /// Index of the key.
        index: usize,
        /// Its time.
        time: f32,
    },
    /// A time past [`MAX_KEY_TIME`]: a clip that long would ask a bake for unbounded frames.
    #[error("key time {index} ({time} s) is past the {MAX_KEY_TIME} s limit of a clip")]
    TooLate {
        /// Index of the key.
        index: usize,
        /// Its time.
        time: f32,
    },
    /// A value holds NaN or infinity.
    #[error("key value {index} is not finite")]
    NonFiniteValue {
        /// Index of the value.
        index: usize,
    },
}

/// The latest key time a clip may have, seconds (an hour, as `bake --duration` allows).
pub const MAX_KEY_TIME: f32 = 3600.0;

/// A value type that keyframe tracks can hold.
pub trait KeyValue: Copy {
    /// Linear (or spherical, for rotations) interpolation at `t` in [0, 1].
    fn interpolate(a: Self, b: Self, t: f32) -> Self;
    /// glTF cubic spline: p(t) = (2t³−3t²+1)v0 + (t³−2t²+t)·td·b0 + (−2t³+3t²)v1 + (t³−t²)·td·a1.
    fn hermite(v0: Self, out0: Self, v1: Self, in1: Self, td: f32, t: f32) -> Self;
    /// True when every component is finite.
    fn finite(&self) -> bool;
    /// The largest difference between the components of `a` and `b` (for rotations, of `b` or `-b`, whichever
    /// is nearer: the same rotation).
    fn max_difference(a: Self, b: Self) -> f32;
}

fn hermite_basis(t: f32) -> [f32; 4] {
    let t2 = t * t;
    let t3 = t2 * t;
    [
        2.0 * t3 - 3.0 * t2 + 1.0,
        t3 - 2.0 * t2 + t,
        -2.0 * t3 + 3.0 * t2,
        t3 - t2,
    ]
}

impl KeyValue for Vec3 {
    fn interpolate(a: Self, b: Self, t: f32) -> Self {
        a.lerp(b, t)
    }
    fn hermite(v0: Self, out0: Self, v1: Self, in1: Self, td: f32, t: f32) -> Self {
        let [h00, h10, h01, h11] = hermite_basis(t);
        v0 * h00 + out0 * (td * h10) + v1 * h01 + in1 * (td * h11)
    }
    fn max_difference(a: Self, b: Self) -> f32 {
        (a - b).abs().max_element()
    }

    fn finite(&self) -> bool {
        self.is_finite()
    }
}

impl KeyValue for Quat {
    fn interpolate(a: Self, b: Self, t: f32) -> Self {
        slerp_shortest(a, b, t)
    }
    fn hermite(v0: Self, out0: Self, v1: Self, in1: Self, td: f32, t: f32) -> Self {
        let [h00, h10, h01, h11] = hermite_basis(t);
        let v = glam::Vec4::from(v0) * h00
            + glam::Vec4::from(out0) * (td * h10)
            + glam::Vec4::from(v1) * h01
            + glam::Vec4::from(in1) * (td * h11);
        // A spline through (or overflowing past) zero has no direction there: the arc between the keys stands in.
        v.try_normalize()
            .map_or_else(|| slerp_shortest(v0, v1, t), Quat::from_vec4)
    }
    fn max_difference(a: Self, b: Self) -> f32 {
        let (a, b) = (glam::Vec4::from(a), glam::Vec4::from(b));
        (a - b).abs().max_element().min((a + b).abs().max_element())
    }

    fn finite(&self) -> bool {
        self.is_finite()
    }
}

/// Spherical interpolation along the shorter arc (glTF 2.0, Appendix C).
pub fn slerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    let mut d = a.dot(b);
    let b = if d < 0.0 {
        d = -d;
        -b
    } else {
        b
    };
    if d > 1.0 - 1e-6 {
        return Quat::from_vec4(glam::Vec4::from(a).lerp(glam::Vec4::from(b), t)).normalize();
    }
    let angle = d.acos();
    let s = angle.sin();
    let wa = ((1.0 - t) * angle).sin() / s;
    let wb = (t * angle).sin() / s;
    Quat::from_vec4(glam::Vec4::from(a) * wa + glam::Vec4::from(b) * wb)
}

/// Keyframes of one property: times, values and how to interpolate them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Keys<T> {
    times: Vec<f32>,
    /// One value per key, or (in-tangent, value, out-tangent) per key for cubic splines.
    values: Vec<T>,
    interpolation: Interpolation,
    /// The step of the grid the values lie on, when they were read from a packed `.animclip`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    grid_step: Option<f32>,
}

impl<T: KeyValue> Keys<T> {
    /// Checks and stores keys; cubic splines take three values per key as glTF lays them out.
    pub fn new(
        times: Vec<f32>,
        values: Vec<T>,
        interpolation: Interpolation,
    ) -> Result<Self, ClipError> {
        check_keys(&times, values.len(), 1, interpolation)?;
        if let Some(index) = values.iter().position(|v| !v.finite()) {
            return Err(ClipError::NonFiniteValue { index });
        }
        Ok(Keys {
            times,
            values,
            interpolation,
            grid_step: None,
        })
    }

    /// The same keys noting the step of the grid their values lie on (a packed `.animclip`'s): the runtime's
    /// compiler tries that grid first, so the clip plays as stored.
    /// The compiler measures the result as always: a wrong step costs nothing but a second try.
    pub fn with_grid_step(mut self, step: Option<f32>) -> Self {
        self.grid_step = step.filter(|s| s.is_finite() && *s > 0.0);
        self
    }

    /// The step of the grid the values lie on, if known ([`Keys::with_grid_step`]).
    pub fn grid_step(&self) -> Option<f32> {
        self.grid_step
    }

    /// One key at time 0 holding `value`.
    pub fn held(value: T) -> Self {
        Keys {
            times: vec![0.0],
            values: vec![value],
            interpolation: Interpolation::Linear,
            grid_step: None,
        }
    }

    /// Key times in seconds.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// Stored values: one per key, or (in-tangent, value, out-tangent) per key for cubic splines.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The interpolation mode.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// True when there are no keys (never, for keys built by [`Keys::new`]).
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Last key time.
    pub fn end_time(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// The value of key `k` (not a tangent).
    pub fn key_value(&self, k: usize) -> T {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// Value at `time`; before the first key the first value, after the last the last value.
    pub fn sample(&self, time: f32) -> T {
        let n = self.times.len();
        let next = self.times.partition_point(|&k| k <= time);
        if next == 0 {
            return self.key_value(0);
        }
        if next >= n {
            return self.key_value(n - 1);
        }
        let k = next - 1;
        let (t0, t1) = (self.times[k], self.times[next]);
        let td = t1 - t0;
        let u = (time - t0) / td;
        match self.interpolation {
            Interpolation::Step => self.values[k],
            Interpolation::Linear => T::interpolate(self.values[k], self.values[next], u),
            Interpolation::CubicSpline => T::hermite(
                self.values[3 * k + 1],
                self.values[3 * k + 2],
                self.values[3 * next + 1],
                self.values[3 * next],
                td,
                u,
            ),
        }
    }
}

/// Checks key times (present, finite, increasing, within [`MAX_KEY_TIME`]) and that `values` values fill them:
/// `per_key` per key, three times that for cubic splines.
pub(crate) fn check_keys(
    times: &[f32],
    values: usize,
    per_key: usize,
    interpolation: Interpolation,
) -> Result<(), ClipError> {
    if times.is_empty() || per_key == 0 {
        return Err(ClipError::Empty);
    }
    let expected = match interpolation {
        Interpolation::CubicSpline => times.len().saturating_mul(3 * per_key),
        _ => times.len().saturating_mul(per_key),
    };
    if values != expected {
        return Err(ClipError::CountMismatch {
            times: times.len(),
            values,
            expected,
        });
    }
    for (index, &time) in times.iter().enumerate() {
        let after_previous = index == 0 || time > times[index - 1];
        if !time.is_finite() || time < 0.0 || !after_previous {
            return Err(ClipError::BadTime { index, time });
        }
        if time > MAX_KEY_TIME {
            return Err(ClipError::TooLate { index, time });
        }
    }
    Ok(())
}

fn unit_scale() -> f32 {
    1.0
}

/// Which joint a track animates, described so it can bind to other skeletons too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrackTarget {
    /// Root-relative path of the joint in the source skeleton ("Hips/Spine").
    pub path: String,
    /// Joint name in the source skeleton.
    pub name: String,
    /// Humanoid bone of the joint in the source, if mapped.
    pub human_bone: Option<HumanBone>,
    /// Local rest transform of the joint in the source.
    pub rest: Transform,
    /// Model-space rest rotation of the joint's parent in the source (for humanoid retargeting).
    pub parent_rest_rotation: Quat,
    /// Model-space rest height (Y) of the joint in the source, to scale hips motion between rigs.
    pub rest_height: f32,
    /// Model-space rest position of the parent's origin in the source (the skeleton's root frame for a root
    /// joint): with `parent_rest_rotation` and `parent_rest_scale` it places the hips' local position in the
    /// source's model space, where hips placement is measured.
    #[serde(default)]
    pub parent_rest_origin: Vec3,
    /// Uniform model-space rest scale of the parent in the source (a unit conversion such as an FBX file's 0.01).
    #[serde(default = "unit_scale")]
    pub parent_rest_scale: f32,
    /// True when `rest`, `parent_rest_rotation` and `rest_height` describe the source (false for layouts that do
    /// not carry them, such as Unity's): only then can a track be retargeted between different rest poses.
    #[serde(default)]
    pub rest_known: bool,
}

impl TrackTarget {
    /// A root joint `name` (its path too) resting at the identity, its rest known: for clips built in code.
    pub fn at_identity(name: &str) -> Self {
        TrackTarget {
            path: name.into(),
            name: name.into(),
            human_bone: None,
            rest: Transform::IDENTITY,
            parent_rest_rotation: Quat::IDENTITY,
            rest_height: 0.0,
            parent_rest_origin: Vec3::ZERO,
            parent_rest_scale: 1.0,
            rest_known: true,
        }
    }
}

/// Keyframes for one joint's translation, rotation and scale (each optional).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Track {
    /// The joint this track animates.
    pub target: TrackTarget,
    /// Local translation keys.
    pub translation: Option<Keys<Vec3>>,
    /// Local rotation keys.
    pub rotation: Option<Keys<Quat>>,
    /// Local scale keys.
    pub scale: Option<Keys<Vec3>>,
}

impl Track {
    /// Number of animated properties (0–3).
    pub fn channel_count(&self) -> usize {
        self.translation.is_some() as usize
            + self.rotation.is_some() as usize
            + self.scale.is_some() as usize
    }

    fn end_time(&self) -> f32 {
        let t = self.translation.as_ref().map_or(0.0, Keys::end_time);
        let r = self.rotation.as_ref().map_or(0.0, Keys::end_time);
        let s = self.scale.as_ref().map_or(0.0, Keys::end_time);
        t.max(r).max(s)
    }
}

/// What happens to time outside [0, duration].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Wrap {
    /// Hold the first or last pose.
    #[default]
    Clamp,
    /// Repeat the clip.
    Loop,
}

/// A named animation: tracks for some joints over a duration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clip {
    /// Clip name (may be empty when the source had none).
    pub name: String,
    /// Length in seconds (the last key time over all tracks).
    pub duration: f32,
    /// One track per animated joint.
    pub tracks: Vec<Track>,
    /// The way the clip's source character faces, as a turn about +Y from +Z (radians), when its format fixes
    /// it: VRM Animation and VRM files (whose specs put the character facing +Z once VRM 0.x is turned). None
    /// when retargeting must estimate it from the source's rest legs (glTF, FBX, baked clips).
    pub facing_yaw: Option<f32>,
    /// Whether it loops (Unity's Loop Time, from its clip settings): off, players hold its last pose after its
    /// end instead of starting over.
    #[serde(default = "loops_by_default")]
    pub looping: bool,
    /// Morph-weight tracks (glTF `weights` channels), by the node they animate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub morph_tracks: Vec<MorphTrack>,
    /// Expression-weight tracks (a VRM Animation's expressions): one weight per key, each track named by the
    /// expression it drives (in the track's `node`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expression_tracks: Vec<MorphTrack>,
    /// A VRM Animation's look-at track: the rotation of its look-at node (yaw and pitch read as Euler YXZ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look_at: Option<Keys<Quat>>,
}

fn loops_by_default() -> bool {
    true
}

impl Clip {
    /// Builds a clip whose duration is its last key time.
    pub fn new(name: impl Into<String>, tracks: Vec<Track>) -> Self {
        let duration = tracks.iter().map(Track::end_time).fold(0.0, f32::max);
        Clip {
            name: name.into(),
            duration,
            tracks,
            facing_yaw: None,
            looping: true,
            morph_tracks: Vec::new(),
            expression_tracks: Vec::new(),
            look_at: None,
        }
    }

    /// The clip with `tracks` animating morph weights; its duration grows to their last key.
    pub fn with_morph_tracks(mut self, tracks: Vec<MorphTrack>) -> Self {
        let end = tracks.iter().map(MorphTrack::end_time).fold(0.0, f32::max);
        self.duration = self.duration.max(end);
        self.morph_tracks = tracks;
        self
    }

    /// The clip with `tracks` animating expression weights; its duration grows to their last key.
    pub fn with_expression_tracks(mut self, tracks: Vec<MorphTrack>) -> Self {
        let end = tracks.iter().map(MorphTrack::end_time).fold(0.0, f32::max);
        self.duration = self.duration.max(end);
        self.expression_tracks = tracks;
        self
    }

    /// Number of animated properties over all tracks (glTF channels).
    pub fn channel_count(&self) -> usize {
        self.tracks.iter().map(Track::channel_count).sum()
    }

    /// Maps a playback time into the clip's time range.
    pub fn wrap_time(&self, time: f32, wrap: Wrap) -> f32 {
        if !time.is_finite() || self.duration <= 0.0 {
            return 0.0;
        }
        match wrap {
            Wrap::Clamp => time.clamp(0.0, self.duration),
            Wrap::Loop => time.rem_euclid(self.duration),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32) -> Vec3 {
        Vec3::new(x, 2.0 * x, -x)
    }

    #[test]
    fn step_holds_the_earlier_key() {
        let k = Keys::new(
            vec![0.0, 1.0, 2.0],
            vec![v(1.0), v(5.0), v(9.0)],
            Interpolation::Step,
        )
        .unwrap();
        assert_eq!(k.sample(0.99), v(1.0));
        assert_eq!(k.sample(1.0), v(5.0));
        assert_eq!(k.sample(1.5), v(5.0));
        assert_eq!(k.sample(7.0), v(9.0));
        assert_eq!(k.sample(-1.0), v(1.0));
    }

    #[test]
    fn linear_interpolates_vectors() {
        let k = Keys::new(vec![1.0, 3.0], vec![v(2.0), v(6.0)], Interpolation::Linear).unwrap();
        // u = (1.5 − 1) / 2 = 0.25 → 2 + 0.25·4 = 3.
        assert!(k.sample(1.5).abs_diff_eq(v(3.0), 1e-6));
        assert_eq!(k.sample(0.0), v(2.0));
    }

    #[test]
    fn linear_rotation_takes_the_short_way() {
        let a = Quat::from_rotation_z(0.0);
        // 350° about Z, stored with the opposite sign: the short way from 0° is −10°.
        let b = -Quat::from_rotation_z(350f32.to_radians());
        let k = Keys::new(vec![0.0, 1.0], vec![a, b], Interpolation::Linear).unwrap();
        let mid = k.sample(0.5);
        let expected = Quat::from_rotation_z((-5f32).to_radians());
        assert!(mid.dot(expected).abs() > 1.0 - 1e-6, "{mid:?}");
    }

    #[test]
    fn slerp_matches_hand_computed_value() {
        // 0° → 90° about Y; at t = 1/3 the angle is 30°, i.e. (0, sin 15°, 0, cos 15°).
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        let q = slerp_shortest(a, b, 1.0 / 3.0);
        let s = 15f32.to_radians();
        assert!(
            (q.y - s.sin()).abs() < 1e-6 && (q.w - s.cos()).abs() < 1e-6,
            "{q:?}"
        );
    }

    #[test]
    fn cubic_spline_matches_gltf_formula() {
        // Keys at t=0 and t=2 with value 0 → 1 (x only), out-tangent of key 0 = 3, in-tangent of key 1 = −1.
        let x = |f: f32| Vec3::new(f, 0.0, 0.0);
        let values = vec![x(9.0), x(0.0), x(3.0), x(-1.0), x(1.0), x(7.0)];
        let k = Keys::new(vec![0.0, 2.0], values, Interpolation::CubicSpline).unwrap();
        // t=0.5 → u=0.25, td=2: h00=0.84375 h10=0.140625 h01=0.15625 h11=−0.046875
        // p = 0.84375·0 + 2·0.140625·3 + 0.15625·1 + 2·(−0.046875)·(−1) = 0.84375 + 0.15625 + 0.09375 = 1.09375
        assert!(
            (k.sample(0.5).x - 1.09375).abs() < 1e-6,
            "{}",
            k.sample(0.5).x
        );
        // Outside the range the key values (not tangents) are held.
        assert_eq!(k.sample(-1.0), x(0.0));
        assert_eq!(k.sample(5.0), x(1.0));
    }

    #[test]
    fn cubic_spline_rotation_is_normalised() {
        let q0 = Quat::IDENTITY;
        let q1 = Quat::from_rotation_x(1.0);
        let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        let k = Keys::new(
            vec![0.0, 1.0],
            vec![zero, q0, zero, zero, q1, zero],
            Interpolation::CubicSpline,
        )
        .unwrap();
        let q = k.sample(0.5);
        assert!((q.length() - 1.0).abs() < 1e-6);
        // Zero tangents: h00 = h01 = 0.5 at u = 0.5, so the result is normalize(q0 + q1) = half angle.
        assert!(q.dot(Quat::from_rotation_x(0.5)).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn bad_keys_are_refused() {
        assert_eq!(
            Keys::new(vec![0.0, 0.0], vec![v(0.0), v(1.0)], Interpolation::Linear),
            Err(ClipError::BadTime {
                index: 1,
                time: 0.0
            })
        );
        assert!(matches!(
            Keys::new(vec![0.0, 1.0], vec![v(0.0)], Interpolation::Linear),
            Err(ClipError::CountMismatch { .. })
        ));
        assert!(matches!(
            Keys::new(vec![0.0], vec![Vec3::NAN], Interpolation::Linear),
            Err(ClipError::NonFiniteValue { index: 0 })
        ));
        assert_eq!(
            Keys::<Vec3>::new(vec![], vec![], Interpolation::Step),
            Err(ClipError::Empty)
        );
    }

    #[test]
    fn loop_and_clamp_wrap_time() {
        let track = Track {
            target: TrackTarget::at_identity("a"),
            translation: Some(
                Keys::new(vec![0.0, 2.0], vec![v(0.0), v(2.0)], Interpolation::Linear).unwrap(),
            ),
            rotation: None,
            scale: None,
        };
        let clip = Clip::new("c", vec![track]);
        assert_eq!(clip.duration, 2.0);
        assert_eq!(clip.wrap_time(2.5, Wrap::Loop), 0.5);
        assert_eq!(clip.wrap_time(-0.5, Wrap::Loop), 1.5);
        assert_eq!(clip.wrap_time(2.5, Wrap::Clamp), 2.0);
        assert_eq!(clip.wrap_time(f32::NAN, Wrap::Clamp), 0.0);
    }
}
