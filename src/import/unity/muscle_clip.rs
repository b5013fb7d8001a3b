//! A humanoid `.anim` clip as the tool's [`Clip`]: its muscle curves decoded ([`super::muscles`]) into rotations
//! of the humanoid bones of a reference humanoid in a T-pose, its body curves (`RootT`, `RootQ`) into the hips'
//! position and rotation. The tracks name human bones only, so they reach a character through its humanoid map,
//! retargeted from the T-pose to the character's rest pose as a VRM Animation is.
//!
//! Unity's body position is the centre of mass, in units of its height in the T-pose: the hips go where the
//! posed reference's centre of mass ([`super::body_centre`]) lands there, and the hips' rest heights scale that
//! onto the character. A bone with any muscle curve takes a track (its other
//! muscles at zero); curves for the IK goals and the motion (`LeftFootT`, `MotionQ`, …) are not played.

use glam::{Quat, Vec3};

use super::anim::UnityClip;
use super::anim_clip::{MAX_SAMPLES, continuous, sample_times, span};
use super::body_centre::Reference;
use super::curve::Curve;
use super::muscles::{self, muscles};
use crate::core::unity_axes::{mirror_position, mirror_rotation};
use crate::core::{Clip, HumanBone, Interpolation, Keys, Track, TrackTarget, Transform};

/// The class ID of the Animator, whose float curves a humanoid clip's are.
const CLASS_ANIMATOR: i64 = 95;

/// The tool's clip of a humanoid `.anim` clip, or why it cannot be one (no muscle or body curve, too long).
pub fn to_clip(u: &UnityClip) -> Result<Clip, String> {
    let (start, stop) = span(u)?;
    let table = muscles();
    let mut by_muscle: Vec<Option<&Curve>> = vec![None; table.len()];
    let (mut root_t, mut root_q): ([Option<&Curve>; 3], [Option<&Curve>; 4]) = Default::default();
    for f in u.floats.iter().filter(|f| f.class_id == CLASS_ANIMATOR) {
        let component = |prefix: &str| {
            f.attribute
                .strip_prefix(prefix)
                .and_then(|c| "xyzw".find(c).filter(|_| c.len() == 1))
        };
        if let Some(i) = component("RootT.").filter(|&i| i < 3) {
            root_t[i] = Some(&f.curve);
        } else if let Some(i) = component("RootQ.") {
            root_q[i] = Some(&f.curve);
        } else if let Some(i) = muscles::find(&f.attribute) {
            by_muscle[i] = Some(&f.curve);
        }
    }
    // Each bone that some curve moves, with all its muscles (those without a curve stay at zero).
    let mut bones: Vec<(HumanBone, Vec<usize>)> = Vec::new();
    for (i, m) in table.iter().enumerate() {
        match bones.iter_mut().find(|(b, _)| *b == m.bone) {
            Some((_, list)) => list.push(i),
            None => bones.push((m.bone, vec![i])),
        }
    }
    bones.retain(|(_, list)| list.iter().any(|&i| by_muscle[i].is_some()));
    let has_root_t = root_t.iter().all(Option::is_some);
    let has_root_q = root_q.iter().all(Option::is_some);
    if bones.is_empty() && !has_root_t && !has_root_q {
        return Err(format!(
            "clip '{}' is a humanoid clip with no muscle or body (RootT, RootQ) curve to play",
            u.name
        ));
    }
    let curves: Vec<&Curve> = by_muscle
        .iter()
        .flatten()
        .chain(root_t.iter().flatten())
        .chain(root_q.iter().flatten())
        .copied()
        .collect();
    // Bounded before the grid is allocated: one sample per track per grid step and per key.
    let keys: usize = curves.iter().map(|c| c.keys.len()).sum();
    let grid = ((stop - start) * super::anim_clip::SAMPLE_RATE).ceil() as usize + 1;
    let track_count = bones.len() + 1;
    if grid.saturating_add(2 * keys).saturating_mul(track_count) > MAX_SAMPLES {
        return Err(format!(
            "clip '{}' would take more than {MAX_SAMPLES} samples",
            u.name
        ));
    }
    let times = sample_times(curves.iter().copied(), start, stop);
    let keys_of: Vec<f32> = times.iter().map(|t| (t - start) as f32).collect();
    let bad = |e: crate::core::clip::ClipError| format!("clip '{}': {e}", u.name);
    let value = |c: Option<&Curve>, t: f64| c.map_or(0.0, |c| c.evaluate(t) as f32);

    // Each bone's rotation at each time, then the hips: turned by the body's rotation and placed so that the
    // posed reference's centre of mass is where the clip puts the body.
    let rotations: Vec<Vec<Quat>> = bones
        .iter()
        .map(|(_, list)| {
            // The bone's turn from muscle zero to its T-pose, once: each sample turns back from it.
            let t_pose = muscles::t_pose_turn(list);
            continuous(times.iter().map(|&t| {
                muscles::local_rotation(t_pose, list.iter().map(|&i| (i, value(by_muscle[i], t))))
            }))
        })
        .collect();
    let mut tracks = Vec::with_capacity(track_count);
    if has_root_t || has_root_q {
        let body_rotations: Vec<Quat> = continuous(times.iter().map(|&t| {
            if !has_root_q {
                return Quat::IDENTITY;
            }
            let q = Quat::from_xyzw(
                value(root_q[0], t),
                value(root_q[1], t),
                value(root_q[2], t),
                value(root_q[3], t),
            );
            if q.is_finite() && q.length_squared() > 1e-12 {
                mirror_rotation(q.normalize())
            } else {
                Quat::IDENTITY
            }
        }));
        let reference = Reference::new();
        let mut track_of = vec![None; HumanBone::ALL.len()];
        for (i, (bone, _)) in bones.iter().enumerate() {
            track_of[*bone as usize] = Some(i);
        }
        let scale = reference.t_pose_centre().y;
        let translation = has_root_t
            .then(|| {
                let v = times
                    .iter()
                    .enumerate()
                    .map(|(k, &t)| {
                        let body = mirror_position(Vec3::new(
                            value(root_t[0], t),
                            value(root_t[1], t),
                            value(root_t[2], t),
                        )) * scale;
                        let centre = reference.centre_from_hips(body_rotations[k], |b| {
                            track_of[b as usize].map(|i: usize| rotations[i][k])
                        });
                        body - centre
                    })
                    .collect();
                Keys::new(keys_of.clone(), v, Interpolation::Linear)
            })
            .transpose()
            .map_err(bad)?;
        let rotation = has_root_q
            .then(|| Keys::new(keys_of.clone(), body_rotations, Interpolation::Linear))
            .transpose()
            .map_err(bad)?;
        tracks.push(Track {
            target: reference_target(HumanBone::Hips, reference.hips_height()),
            translation,
            rotation,
            scale: None,
        });
    }
    for ((bone, _), v) in bones.iter().zip(rotations) {
        tracks.push(Track {
            target: reference_target(*bone, 0.0),
            translation: None,
            rotation: Some(Keys::new(keys_of.clone(), v, Interpolation::Linear).map_err(bad)?),
            scale: None,
        });
    }
    let mut clip = Clip::new(u.name.clone(), tracks);
    clip.duration = (stop - start) as f32;
    clip.facing_yaw = Some(0.0);
    super::anim_clip::with_settings(u, clip)
}

/// A bone of the reference humanoid as a track target: bound by its human bone alone (its path is no joint's and
/// its name is empty), its rest rotation the identity, the hips standing `hips_height` high.
fn reference_target(bone: HumanBone, hips_height: f32) -> TrackTarget {
    let mut target = TrackTarget::at_identity(&format!("HumanoidReference/{}", bone.name()));
    target.name = String::new();
    target.human_bone = Some(bone);
    if bone == HumanBone::Hips {
        target.rest = Transform {
            translation: glam::Vec3A::new(0.0, hips_height, 0.0),
            ..Transform::IDENTITY
        };
        target.rest_height = hips_height;
    }
    target
}
