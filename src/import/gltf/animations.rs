//! Animations: one clip per glTF animation, one track per animated joint (STEP, LINEAR and CUBICSPLINE kept
//! as they are), and one morph-weight track per `weights` channel; channels on nodes outside the skeleton are
//! noted and skipped. Rotation keys (a joint's and a VRM Animation's look-at) are rotations when read: a zero or
//! non-finite quaternion is refused naming its key, the others are normalised, and a cubic-spline tangent
//! reaching further than [`MAX_TANGENT_REACH`] over its segment is shortened to it with a warning.

use std::collections::{BTreeMap, HashMap};

use ::gltf as gl;
use glam::{Quat, Vec3};

use crate::core::clip::{ClipError, Interpolation, Keys, Track};
use crate::core::humanoid::HumanoidMap;
use crate::core::morph::MorphTrack;
use crate::core::{Clip, Skeleton};

/// Every animation of the document as a clip on `skeleton`, and the warnings the user must hear (each also in
/// `notes`); `node_names` names skipped nodes in notes. Rotation keys are checked as [`rotation_keys`] reads them:
/// what it had to bound is warned of.
pub(super) fn read_clips(
    document: &gl::Document,
    buffers: &[gl::buffer::Data],
    skeleton: &Skeleton,
    humanoid: &HumanoidMap,
    node_to_joint: &HashMap<usize, usize>,
    node_names: &[String],
    notes: &mut Vec<String>,
) -> Result<(Vec<Clip>, Vec<String>), String> {
    let mut warnings = Vec::new();
    let get = |b: gl::Buffer| buffers.get(b.index()).map(|d| d.0.as_slice());
    let targets = crate::core::binding::track_targets(skeleton, Some(humanoid));
    let expression_nodes = vrma_expression_nodes(document);
    let look_at_node = document
        .extension_value("VRMC_vrm_animation")
        .and_then(|v| v.pointer("/lookAt/node"))
        .and_then(serde_json::Value::as_u64)
        .map(|n| n as usize);
    let target_of = |j: usize| targets[j].clone();
    let mut clips = Vec::new();
    for anim in document.animations() {
        let anim_name = anim.name().unwrap_or_default().to_string();
        let mut tracks: BTreeMap<usize, Track> = BTreeMap::new();
        let mut morph_tracks = Vec::new();
        let mut skipped_morph_channels = 0;
        let mut expression_tracks = Vec::new();
        let mut look_at = None;
        for channel in anim.channels() {
            let what = format!(
                "animation {} ('{anim_name}') channel {}",
                anim.index(),
                channel.index()
            );
            let node = channel.target().node().index();
            if Some(node) == look_at_node {
                if channel.target().property() == gl::animation::Property::Rotation {
                    let what = format!("{what} (the VRM Animation's look-at)");
                    let (keys, shortened) =
                        read_look_at(&channel, get).map_err(|m| format!("{what}: {m}"))?;
                    if shortened > 0 {
                        long_tangents(&what, shortened, notes, &mut warnings);
                    }
                    look_at = Some(keys);
                }
                continue;
            }
            if let Some(name) = expression_nodes.get(&node) {
                if channel.target().property() == gl::animation::Property::Translation {
                    expression_tracks.push(
                        read_expression_track(&channel, get, name)
                            .map_err(|m| format!("{what}: {m}"))?,
                    );
                }
                continue;
            }
            if channel.target().property() == gl::animation::Property::MorphTargetWeights {
                match read_morph_track(&channel, get).map_err(|m| format!("{what}: {m}"))? {
                    Some(t) => morph_tracks.push(t),
                    None => skipped_morph_channels += 1,
                }
                continue;
            }
            let Some(&joint) = node_to_joint.get(&node) else {
                notes.push(format!(
                    "{what}: animates node '{}', which is not part of the skeleton; skipped",
                    node_names[node]
                ));
                continue;
            };
            let interpolation = interpolation_of(channel.sampler());
            let reader = channel.reader(get);
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or_else(|| format!("{what}: sampler input cannot be read"))?
                .collect();
            let track = tracks.entry(joint).or_insert_with(|| Track {
                target: target_of(joint),
                translation: None,
                rotation: None,
                scale: None,
            });
            let bad = |e: ClipError| format!("{what}: {e}");
            use gl::animation::util::ReadOutputs;
            match reader.read_outputs() {
                Some(ReadOutputs::Translations(it)) => {
                    track.translation = Some(
                        Keys::new(times, it.map(Vec3::from).collect(), interpolation)
                            .map_err(bad)?,
                    );
                }
                Some(ReadOutputs::Scales(it)) => {
                    track.scale = Some(
                        Keys::new(times, it.map(Vec3::from).collect(), interpolation)
                            .map_err(bad)?,
                    );
                }
                Some(ReadOutputs::Rotations(it)) => {
                    let (keys, shortened) =
                        rotation_keys(times, it.into_f32().collect(), interpolation)
                            .map_err(|m| format!("{what}: {m}"))?;
                    if shortened > 0 {
                        long_tangents(&what, shortened, notes, &mut warnings);
                    }
                    track.rotation = Some(keys);
                }
                _ => return Err(format!("{what}: sampler output cannot be read")),
            }
        }
        if skipped_morph_channels > 0 {
            notes.push(format!(
                "animation {} ('{anim_name}'): {skipped_morph_channels} morph-weight channel(s) on nodes without \
                 morph targets skipped",
                anim.index()
            ));
        }
        let mut clip = Clip::new(anim_name, tracks.into_values().collect())
            .with_morph_tracks(morph_tracks)
            .with_expression_tracks(expression_tracks);
        clip.look_at = look_at;
        clips.push(clip);
    }
    Ok((clips, warnings))
}

/// The nodes a VRM Animation's expressions are keyed on (`VRMC_vrm_animation.expressions`, preset and custom),
/// with the expression each drives.
fn vrma_expression_nodes(document: &gl::Document) -> HashMap<usize, String> {
    let Some(e) = document
        .extension_value("VRMC_vrm_animation")
        .and_then(|v| v.get("expressions"))
    else {
        return HashMap::new();
    };
    ["preset", "custom"]
        .iter()
        .filter_map(|kind| e.get(kind).and_then(serde_json::Value::as_object))
        .flatten()
        .filter_map(|(name, v)| {
            let node = v.get("node")?.as_u64()?;
            Some((node as usize, name.clone()))
        })
        .collect()
}

/// A VRM Animation expression channel: the weight is the node's translation x (three-vrm-animation's reading),
/// one value per key (three per key for cubic splines, as glTF lays them out).
fn read_expression_track<'a, 's, F>(
    channel: &gl::animation::Channel<'a>,
    get: F,
    name: &str,
) -> Result<MorphTrack, String>
where
    F: Clone + Fn(gl::Buffer<'a>) -> Option<&'s [u8]>,
{
    use gl::animation::util::ReadOutputs;
    let (times, ReadOutputs::Translations(values)) = keys_of(channel, get)? else {
        return Err("sampler output cannot be read".into());
    };
    let values: Vec<f32> = values.map(|v| v[0]).collect();
    MorphTrack::new(name, 1, times, values, interpolation_of(channel.sampler()))
        .map_err(|e| e.to_string())
}

/// A VRM Animation's look-at channel: its node's rotation keys as [`rotation_keys`] reads them, and how many
/// tangents were shortened.
fn read_look_at<'a, 's, F>(
    channel: &gl::animation::Channel<'a>,
    get: F,
) -> Result<(Keys<Quat>, usize), String>
where
    F: Clone + Fn(gl::Buffer<'a>) -> Option<&'s [u8]>,
{
    use gl::animation::util::ReadOutputs;
    let (times, ReadOutputs::Rotations(values)) = keys_of(channel, get)? else {
        return Err("sampler output cannot be read".into());
    };
    rotation_keys(
        times,
        values.into_f32().collect(),
        interpolation_of(channel.sampler()),
    )
}

/// How far a cubic-spline rotation tangent may carry a segment: its length times the duration of the segment it
/// shapes is at most this, twice the farthest apart two unit quaternions can be. Past it a spline swings
/// anywhere between its keys (and, long enough, overflows to NaN); longer tangents are shortened to it.
pub const MAX_TANGENT_REACH: f32 = 4.0;

/// Quaternions shorter than this hold no rotation to normalise.
const MIN_ROTATION_LENGTH: f32 = 1e-6;

/// A rotation channel's keys, checked as they are read: each key value a rotation (a zero or non-finite
/// quaternion is an error naming the key; the others are normalised) and each cubic-spline tangent finite and
/// within [`MAX_TANGENT_REACH`] of its segment (longer ones shortened, and counted in the second value): a spline
/// through such keys stays finite everywhere. The times are checked by [`Keys::new`].
fn rotation_keys(
    times: Vec<f32>,
    raw: Vec<[f32; 4]>,
    interpolation: Interpolation,
) -> Result<(Keys<Quat>, usize), String> {
    let cubic = interpolation == Interpolation::CubicSpline;
    let per_key = if cubic { 3 } else { 1 };
    crate::core::clip::check_keys(&times, raw.len(), 1, interpolation)
        .map_err(|e| e.to_string())?;
    let n = times.len();
    let mut shortened = 0;
    let mut values = Vec::with_capacity(raw.len());
    for (i, q) in raw.into_iter().enumerate() {
        let (key, role) = (i / per_key, i % per_key);
        let v = glam::Vec4::from_array(q);
        let [x, y, z, w] = q;
        if !v.is_finite() {
            return Err(format!(
                "rotation key {key} holds a value that is not finite ({x}, {y}, {z}, {w})"
            ));
        }
        let largest = v.abs().max_element();
        // Its direction, scaled to its largest component first where its length would overflow or underflow.
        let direction = v.try_normalize().unwrap_or_else(|| {
            if largest > 0.0 {
                (v / largest).normalize()
            } else {
                glam::Vec4::ZERO
            }
        });
        if !cubic || role == 1 {
            if largest < MIN_ROTATION_LENGTH {
                return Err(format!(
                    "rotation key {key} ({x}, {y}, {z}, {w}) is not a rotation: a zero quaternion has no direction"
                ));
            }
            values.push(Quat::from_vec4(direction));
            continue;
        }
        // The in-tangent shapes the segment before its key, the out-tangent the one after; a first in-tangent or
        // a last out-tangent shapes none and is held to its neighbouring segment.
        let (a, b) = match role {
            0 if key > 0 => (key - 1, key),
            _ if key + 1 < n => (key, key + 1),
            _ if n > 1 => (key - 1, key),
            _ => (key, key),
        };
        let span = if b > a { times[b] - times[a] } else { 1.0 };
        let limit = MAX_TANGENT_REACH / span;
        if largest * (v / largest.max(f32::MIN_POSITIVE)).length() > limit {
            shortened += 1;
            values.push(Quat::from_vec4(direction * limit));
        } else {
            values.push(Quat::from_vec4(v));
        }
    }
    let keys = Keys::new(times, values, interpolation).map_err(|e| e.to_string())?;
    Ok((keys, shortened))
}

/// Notes (and warns) that `shortened` tangents of the channel `what` were longer than [`MAX_TANGENT_REACH`].
fn long_tangents(
    what: &str,
    shortened: usize,
    notes: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    let message = format!(
        "{what}: {shortened} cubic-spline rotation tangent(s) reached further than {MAX_TANGENT_REACH} over their \
         segment and were shortened to it (such a spline swings anywhere between its keys)"
    );
    notes.push(message.clone());
    warnings.push(message);
}

/// A channel's key times and outputs.
fn keys_of<'a, 's, F>(
    channel: &gl::animation::Channel<'a>,
    get: F,
) -> Result<(Vec<f32>, gl::animation::util::ReadOutputs<'s>), String>
where
    F: Clone + Fn(gl::Buffer<'a>) -> Option<&'s [u8]>,
{
    let reader = channel.reader(get);
    let times: Vec<f32> = reader
        .read_inputs()
        .ok_or("sampler input cannot be read")?
        .collect();
    let outputs = reader
        .read_outputs()
        .ok_or("sampler output cannot be read")?;
    Ok((times, outputs))
}

/// Our interpolation for a glTF sampler's.
fn interpolation_of(sampler: gl::animation::Sampler) -> Interpolation {
    match sampler.interpolation() {
        gl::animation::Interpolation::Step => Interpolation::Step,
        gl::animation::Interpolation::Linear => Interpolation::Linear,
        gl::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
    }
}

/// A `weights` channel as a morph track on its node (named as the mesh import names it), or None when the node
/// has no mesh with morph targets.
fn read_morph_track<'a, 's, F>(
    channel: &gl::animation::Channel<'a>,
    get: F,
) -> Result<Option<MorphTrack>, String>
where
    F: Clone + Fn(gl::Buffer<'a>) -> Option<&'s [u8]>,
{
    let node = channel.target().node();
    let Some(mesh) = node.mesh() else {
        return Ok(None);
    };
    let width = mesh
        .primitives()
        .map(|p| p.morph_targets().len())
        .max()
        .unwrap_or(0);
    if width == 0 {
        return Ok(None);
    }
    let interpolation = interpolation_of(channel.sampler());
    use gl::animation::util::ReadOutputs;
    let (times, ReadOutputs::MorphTargetWeights(weights)) = keys_of(channel, get)? else {
        return Err("sampler output cannot be read".into());
    };
    let values: Vec<f32> = weights.into_f32().collect();
    let name = node.name().or(mesh.name()).unwrap_or_default();
    MorphTrack::new(name, width, times, values, interpolation)
        .map(Some)
        .map_err(|e| e.to_string())
}
