//! The Unity-side encoder: a baked clip as the `AnimDataSequence` layout `clipfile::unity` defines and decodes
//! (linear Hermite keys with their slopes as tangents, positions and rotations in Unity's axes unless asked
//! otherwise), serialized by MessagePack as MessagePack-CSharp writes it.

use glam::{Quat, Vec3};

use crate::clipfile::unity::{Curve, Keyframe, PathSequence, UnityAxes, UnityClip};
use crate::clipfile::{BakedClip, Channel};

pub(crate) fn linear_keys(times: &[f32], values: &[f32]) -> Vec<Keyframe> {
    let n = times.len();
    let slope = |i: usize| (values[i + 1] - values[i]) / (times[i + 1] - times[i]);
    (0..n)
        .map(|i| {
            let inn = if i > 0 { slope(i - 1) } else { 0.0 };
            let out = if i + 1 < n { slope(i) } else { 0.0 };
            Keyframe(times[i], values[i], inn, out)
        })
        .collect()
}

fn curves<const N: usize>(times: &[f32], values: &[[f32; N]]) -> [Curve; N] {
    std::array::from_fn(|c| {
        let comp: Vec<f32> = values.iter().map(|v| v[c]).collect();
        Curve::clamped(linear_keys(times, &comp))
    })
}

/// Converts a baked clip to the Unity layout in `axes`: keys where the baked clip has them, with tangents that
/// make each segment linear (so Unity's Hermite evaluation reproduces the baked motion); quaternion signs kept
/// continuous. Returns the clip and the paths whose scale animation the layout cannot carry.
pub fn from_baked(baked: &BakedClip, axes: UnityAxes) -> (UnityClip, Vec<String>) {
    let mut dropped_scale = Vec::new();
    let mut paths = Vec::new();
    for t in &baked.tracks {
        if !matches!(t.scale, Channel::Rest) {
            dropped_scale.push(t.target.path.clone());
        }
        let (pt, pv): (Vec<f32>, Vec<Vec3>) = match &t.translation {
            Channel::Rest => (vec![0.0], vec![t.target.rest.translation.into()]),
            Channel::Constant(v) => (vec![0.0], vec![*v]),
            Channel::Keys { frames, values } => (
                frames.iter().map(|&f| baked.frame_time(f)).collect(),
                values.clone(),
            ),
        };
        let pv: Vec<[f32; 3]> = pv
            .into_iter()
            .map(|v| axes.position(v).to_array())
            .collect();
        let (rt, rv): (Vec<f32>, Vec<Quat>) = match &t.rotation {
            Channel::Rest => (vec![0.0], vec![t.target.rest.rotation]),
            Channel::Constant(q) => (vec![0.0], vec![*q]),
            Channel::Keys { frames, values } => (
                frames.iter().map(|&f| baked.frame_time(f)).collect(),
                values.clone(),
            ),
        };
        let mut continuous: Vec<[f32; 4]> = Vec::with_capacity(rv.len());
        let mut prev: Option<Quat> = None;
        for q in rv {
            let q = axes.rotation(q);
            let q = match prev {
                Some(p) if p.dot(q) < 0.0 => -q,
                _ => q,
            };
            prev = Some(q);
            continuous.push(q.to_array());
        }
        paths.push(PathSequence(
            t.target.path.clone(),
            curves(&pt, &pv),
            curves(&rt, &continuous),
        ));
    }
    (
        UnityClip(
            baked.id,
            baked.duration,
            baked.frame_rate,
            baked.name.clone(),
            paths,
        ),
        dropped_scale,
    )
}

/// Encodes the Unity layout as MessagePack bytes (floats as float32, as MessagePack-CSharp writes them).
pub fn encode(clip: &UnityClip) -> Vec<u8> {
    rmp_serde::to_vec(clip).expect("clip data always serializes")
}
