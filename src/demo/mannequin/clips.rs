//! The mannequin's clips: an idle, then the locomotion set, each joint's rotation and the hips offset given as
//! functions of time and keyed at the clip's rate.

use std::f32::consts::TAU;

use glam::{Quat, Vec3};
use serde_json::json;

use super::rig::JointSpec;
use crate::io::glb::GlbBuilder;

/// A joint's local rotation at a time (None: the joint is not animated).
type RotationFn = Box<dyn Fn(&str, f32) -> Option<Quat>>;

/// A clip: name, duration, key rate, each joint's local rotation (None: not animated) and the hips offset
/// from rest, as functions of time.
struct ClipSpec {
    name: String,
    duration: f32,
    fps: f32,
    rotation: RotationFn,
    hips: Box<dyn Fn(f32) -> Vec3>,
}

/// The mannequin's clips: the idle, then the locomotion set.
fn clip_specs() -> Vec<ClipSpec> {
    const IDLE: f32 = 4.0;
    let mut out = vec![ClipSpec {
        name: "Idle".into(),
        duration: IDLE,
        fps: 15.0,
        rotation: Box::new(|joint, t| idle_rotation(joint, t, IDLE)),
        hips: Box::new(|t| Vec3::new(0.0, 0.004 * (TAU * t / IDLE * 2.0).sin(), 0.0)),
    }];
    for gait in crate::demo::locomotion::gaits() {
        let g = gait.clone();
        out.push(ClipSpec {
            name: gait.name.into(),
            duration: gait.period,
            fps: 30.0,
            rotation: Box::new(move |joint, t| g.rotation(joint, t)),
            hips: Box::new(move |t| gait.hips_offset(t)),
        });
    }
    out
}

/// Local rotation of a joint in the idle clip at time `t` (None: the joint is not animated).
fn idle_rotation(name: &str, t: f32, duration: f32) -> Option<Quat> {
    let phase = TAU * t / duration;
    let deg = |d: f32| d.to_radians();
    let breathe = phase.sin();
    let sway = (phase + 0.6).sin();
    Some(match name {
        "Hips" => Quat::from_rotation_y(deg(2.0) * sway),
        "Spine" => Quat::from_rotation_x(deg(1.0) * breathe),
        "Chest" => Quat::from_rotation_x(deg(-1.5) * breathe),
        "Neck" => Quat::from_rotation_x(deg(0.5) * breathe),
        "Head" => {
            Quat::from_rotation_y(deg(6.0) * (phase * 0.5).sin())
                * Quat::from_rotation_x(deg(2.0) * sway)
        }
        "LeftUpperArm" => Quat::from_rotation_z(deg(-72.0 + 2.0 * breathe)),
        "RightUpperArm" => Quat::from_rotation_z(deg(72.0 - 2.0 * breathe)),
        "LeftLowerArm" => Quat::from_rotation_y(deg(-12.0 - 3.0 * sway)),
        "RightLowerArm" => Quat::from_rotation_y(deg(12.0 + 3.0 * sway)),
        "LeftShoulder" => Quat::from_rotation_z(-deg(breathe)),
        "RightShoulder" => Quat::from_rotation_z(deg(breathe)),
        "LeftUpperLeg" => Quat::from_rotation_z(deg(sway)),
        "RightUpperLeg" => Quat::from_rotation_z(deg(sway)),
        _ => return None,
    })
}

/// Writes every clip's keys into `glb`; returns the animations' JSON.
pub(super) fn write_animations(
    glb: &mut GlbBuilder,
    specs: &[JointSpec],
) -> Vec<serde_json::Value> {
    let mut channels_by_clip = Vec::new();
    for clip in clip_specs() {
        let frames = (clip.duration * clip.fps).round() as usize;
        let times: Vec<f32> = (0..=frames)
            .map(|k| k as f32 * clip.duration / frames as f32)
            .collect();
        let input = glb.floats(&times, "SCALAR", 1, None, true);
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        for (i, s) in specs.iter().enumerate() {
            if (clip.rotation)(&s.name, 0.0).is_none() {
                continue;
            }
            let values: Vec<f32> = times
                .iter()
                .flat_map(|&t| {
                    (clip.rotation)(&s.name, t)
                        .map(|q| q.normalize().to_array())
                        .unwrap_or([0.0, 0.0, 0.0, 1.0])
                })
                .collect();
            let output = glb.floats(&values, "VEC4", 4, None, false);
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            channels.push(
                json!({"sampler": samplers.len() - 1, "target": {"node": i, "path": "rotation"}}),
            );
        }
        let hips: Vec<f32> = times
            .iter()
            .flat_map(|&t| (specs[0].head + (clip.hips)(t)).to_array())
            .collect();
        let hips = glb.floats(&hips, "VEC3", 3, None, false);
        samplers.push(json!({"input": input, "output": hips, "interpolation": "LINEAR"}));
        channels.push(
            json!({"sampler": samplers.len() - 1, "target": {"node": 0, "path": "translation"}}),
        );
        channels_by_clip
            .push(json!({"name": clip.name, "channels": channels, "samplers": samplers}));
    }
    channels_by_clip
}
