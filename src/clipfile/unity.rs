//! The Unity-side clip runtime's layout: `AnimDataSequence` serialized by MessagePack-CSharp with integer keys,
//! i.e. nested arrays: `[id, length, frameRate, name, [[path, [x, y, z], [x, y, z, w]], …]]`, each curve
//! `[[[time, value, inTangent, outTangent], …], postWrapMode, preWrapMode]`.
//!
//! Values are in Unity's axes unless a file is written with [`UnityAxes::Gltf`]; paths run from the character
//! root (`Armature/Hips/Spine`), as the original writer's `RelativePath(animator.transform, bone)` gives them.

use std::path::Path;

use glam::{Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::ClipFileError;
use crate::core::clip::{Interpolation, Keys, MAX_KEY_TIME, Track, TrackTarget};
use crate::core::unity_axes::{mirror_position, mirror_rotation};
use crate::core::{Clip, Transform};

/// The axes a Unity-layout file's values are in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnityAxes {
    /// Unity's left-handed axes (X mirrored from glTF's): what the Unity runtime assigns to localPosition and
    /// localRotation as they are.
    #[default]
    Unity,
    /// glTF's axes, for pipelines that convert by themselves.
    Gltf,
}

impl UnityAxes {
    /// A glTF position in these axes (the one mirror is its own inverse).
    pub fn position(self, v: Vec3) -> Vec3 {
        match self {
            UnityAxes::Unity => mirror_position(v),
            UnityAxes::Gltf => v,
        }
    }

    /// A glTF rotation in these axes (the one mirror is its own inverse).
    pub fn rotation(self, q: Quat) -> Quat {
        match self {
            UnityAxes::Unity => mirror_rotation(q),
            UnityAxes::Gltf => q,
        }
    }
}

/// Unity's `WrapMode.ClampForever`, written for both wrap modes.
pub const WRAP_CLAMP_FOREVER: i32 = 8;

/// One Unity `Keyframe`: time, value, in-tangent, out-tangent (slopes per second).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Keyframe(pub f32, pub f32, pub f32, pub f32);

/// One Unity `AnimationCurve`: keys, post-wrap mode, pre-wrap mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve(pub Vec<Keyframe>, pub i32, pub i32);

/// `AnimPathSequence`: path, localPosition curves (x, y, z), localRotation curves (x, y, z, w).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathSequence(pub String, pub [Curve; 3], pub [Curve; 4]);

/// `AnimDataSequence`: id, length, frame rate, name, path sequences.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnityClip(pub i32, pub f32, pub f32, pub String, pub Vec<PathSequence>);

impl Curve {
    /// A curve of `keys` clamped before and after them (Unity's ClampForever both ways).
    pub fn clamped(keys: Vec<Keyframe>) -> Self {
        Curve(keys, WRAP_CLAMP_FOREVER, WRAP_CLAMP_FOREVER)
    }

    /// Value and slope at `t`, evaluated as Unity does: cubic Hermite per segment, clamped outside the keys.
    pub fn evaluate(&self, t: f32) -> (f32, f32) {
        let k = &self.0;
        match k.len() {
            0 => return (0.0, 0.0),
            _ if t <= k[0].0 => return (k[0].1, 0.0),
            _ if t >= k[k.len() - 1].0 => return (k[k.len() - 1].1, 0.0),
            _ => {}
        }
        let i = k.partition_point(|key| key.0 <= t) - 1;
        let (a, b) = (k[i], k[i + 1]);
        let dt = b.0 - a.0;
        let u = (t - a.0) / dt;
        let (u2, u3) = (u * u, u * u * u);
        let value = (2.0 * u3 - 3.0 * u2 + 1.0) * a.1
            + (u3 - 2.0 * u2 + u) * dt * a.3
            + (-2.0 * u3 + 3.0 * u2) * b.1
            + (u3 - u2) * dt * b.2;
        let slope = ((6.0 * u2 - 6.0 * u) * a.1 + (-6.0 * u2 + 6.0 * u) * b.1) / dt
            + (3.0 * u2 - 4.0 * u + 1.0) * a.3
            + (3.0 * u2 - 2.0 * u) * b.2;
        (value, slope)
    }

    /// (in-tangent, value, out-tangent) at `t`: a key's own tangents, else the curve's slope there. Keys are in
    /// increasing time (checked on load), so the key is found by bisection: a track re-keyed on all its curves'
    /// times costs n log n, not n².
    fn tangent_point(&self, t: f32) -> [f32; 3] {
        let i = self.0.partition_point(|k| k.0 < t);
        if let Some(k) = self.0.get(i).filter(|k| k.0 == t) {
            return [k.2, k.1, k.3];
        }
        let (v, s) = self.evaluate(t);
        [s, v, s]
    }
}

/// Decodes and validates Unity-layout bytes; `path` names the source in errors.
pub fn decode(bytes: &[u8], path: &Path) -> Result<UnityClip, ClipFileError> {
    let clip: UnityClip =
        super::messagepack::decode_whole(bytes).map_err(|e| ClipFileError::Format {
            path: path.to_path_buf(),
            message: format!("neither an .animclip nor a Unity AnimDataSequence: {e}"),
        })?;
    let invalid = |message: String| ClipFileError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    if !clip.1.is_finite() || !(0.0..=MAX_KEY_TIME).contains(&clip.1) || !clip.2.is_finite() {
        return Err(invalid(format!(
            "length {} s / frame rate {} out of range (length 0 to {MAX_KEY_TIME} s)",
            clip.1, clip.2
        )));
    }
    for p in &clip.4 {
        for (c, curve) in p.1.iter().chain(&p.2).enumerate() {
            let what = format!("path '{}' curve {c}", p.0);
            for (i, k) in curve.0.iter().enumerate() {
                if k.0 > MAX_KEY_TIME {
                    return Err(invalid(format!(
                        "{what} key {i}: time {} s is past the {MAX_KEY_TIME} s limit of a clip",
                        k.0
                    )));
                }
                if !(k.0.is_finite() && k.1.is_finite()) {
                    return Err(invalid(format!(
                        "{what} key {i}: time or value is NaN or infinite"
                    )));
                }
                if !(k.2.is_finite() && k.3.is_finite()) {
                    return Err(invalid(format!(
                        "{what} key {i}: infinite (stepped) tangents are not supported"
                    )));
                }
                if i > 0 && k.0 <= curve.0[i - 1].0 {
                    return Err(invalid(format!(
                        "{what} key {i}: time {} does not increase",
                        k.0
                    )));
                }
            }
        }
    }
    Ok(clip)
}

fn union_times(curves: &[Curve]) -> Vec<f32> {
    let mut t: Vec<f32> = curves
        .iter()
        .flat_map(|c| c.0.iter().map(|k| k.0))
        .collect();
    t.sort_by(f32::total_cmp);
    t.dedup();
    if t.is_empty() {
        t.push(0.0);
    }
    t
}

impl UnityClip {
    /// Clip name.
    pub fn name(&self) -> &str {
        &self.3
    }

    /// Length in seconds.
    pub fn duration(&self) -> f32 {
        self.1
    }

    /// The clip as a core [`Clip`] in glTF's axes, the file's values read as being in `axes`: each vector's
    /// curves re-keyed on their common times as glTF-style cubic splines, which evaluate exactly as Unity's
    /// per-curve Hermite segments do (the axis change is linear, so tangents convert as values do).
    pub fn to_clip(&self, axes: UnityAxes) -> Clip {
        let tracks = self
            .4
            .iter()
            .map(|p| {
                let tt = union_times(&p.1);
                let tv: Vec<Vec3> = tt
                    .iter()
                    .flat_map(|&t| {
                        let [x, y, z] = [0, 1, 2].map(|c| p.1[c].tangent_point(t));
                        (0..3).map(move |i| axes.position(Vec3::new(x[i], y[i], z[i])))
                    })
                    .collect();
                let rt = union_times(&p.2);
                let rv: Vec<Quat> = rt
                    .iter()
                    .flat_map(|&t| {
                        let [x, y, z, w] = [0, 1, 2, 3].map(|c| p.2[c].tangent_point(t));
                        (0..3).map(move |i| {
                            axes.rotation(Quat::from_vec4(Vec4::new(x[i], y[i], z[i], w[i])))
                        })
                    })
                    .collect();
                Track {
                    target: TrackTarget {
                        path: p.0.clone(),
                        name: p.0.rsplit('/').next().unwrap_or_default().to_string(),
                        human_bone: None,
                        rest: Transform::IDENTITY,
                        parent_rest_rotation: Quat::IDENTITY,
                        rest_height: 0.0,
                        parent_rest_origin: glam::Vec3::ZERO,
                        parent_rest_scale: 1.0,
                        rest_known: false,
                    },
                    translation: Keys::new(tt, tv, Interpolation::CubicSpline).ok(),
                    rotation: Keys::new(rt, rv, Interpolation::CubicSpline).ok(),
                    scale: None,
                }
            })
            .collect();
        let mut clip = Clip::new(self.3.clone(), tracks);
        clip.duration = self.1;
        clip
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::encode::unity::linear_keys;

    #[test]
    fn linear_tangents_make_hermite_linear() {
        let c = Curve::clamped(linear_keys(&[0.0, 1.0, 3.0], &[0.0, 2.0, -2.0]));
        assert!((c.evaluate(0.5).0 - 1.0).abs() < 1e-6);
        assert!((c.evaluate(2.0).0 - 0.0).abs() < 1e-6);
        assert!((c.evaluate(2.5).1 + 2.0).abs() < 1e-5);
        assert_eq!(c.evaluate(9.0).0, -2.0);
    }

    #[test]
    fn hermite_matches_hand_computed_value() {
        // value 0 → 1 over 2 s, out-tangent 3, in-tangent −1, at t = 0.5 (u = 0.25): 1.09375 (as glTF's cubic).
        let c = Curve::clamped(vec![
            Keyframe(0.0, 0.0, 9.0, 3.0),
            Keyframe(2.0, 1.0, -1.0, 7.0),
        ]);
        assert!((c.evaluate(0.5).0 - 1.09375).abs() < 1e-6);
    }
}
