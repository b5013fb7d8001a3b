//! A clip's root motion as Unity's `Motion.averageSpeed` / `averageAngularSpeed` give it: the root-motion joint
//! (the hips, else the skeleton's root) sampled through the Evaluator at 30 fps over the clip, in the character's
//! model space.
//! - `velocity`: its travel from the first frame to the last over the clip's length (m/s);
//! - `speed`: that velocity's length (m/s);
//! - `angular_speed`: its turn about +Y over the clip (the sum of the frame-to-frame turns of its facing, so a
//!   clip turning further than half a turn counts all of it) over the clip's length (rad/s, counter-clockwise seen
//!   from above positive).

use glam::{Quat, Vec3};
use serde::Serialize;

use crate::blend::sampler::root_motion_joint;
use crate::core::{Character, Clip, Pose};
use crate::eval::{ClockStep, EvalInput, Evaluator};

use crate::blend::sampler::AVERAGE_SPEED_RATE as SAMPLE_RATE;

/// A clip's average root motion (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RootMotionStats {
    /// Average velocity in model space (m/s).
    pub velocity: [f32; 3],
    /// Its length (m/s).
    pub speed: f32,
    /// Average turn rate about +Y (rad/s).
    pub angular_speed: f32,
}

/// The root motion of `clip` on `character`; None for a clip without length or a character without joints.
pub fn root_motion(character: &Character, clip: &Clip) -> Option<RootMotionStats> {
    joint_motion(character, clip, root_motion_joint(character)?)
}

/// The same figures for any joint `root` (such as a root joint above the hips that carries extracted root
/// motion); None for a clip without length or a joint the skeleton lacks.
pub fn joint_motion(character: &Character, clip: &Clip, root: usize) -> Option<RootMotionStats> {
    if root >= character.skeleton.len() {
        return None;
    }
    if clip.duration <= 0.0 || !clip.duration.is_finite() {
        return None;
    }
    let skeleton = &character.skeleton;
    let rest = Pose::rest(skeleton).model_matrices(skeleton)[root]
        .to_scale_rotation_translation()
        .1;
    let mut ev = Evaluator::for_clip_exact(character, clip);
    ev.clock_mut().set_looping(false);
    let frames = (clip.duration * SAMPLE_RATE).ceil().max(1.0) as usize;
    let mut first = Vec3::ZERO;
    let mut last = Vec3::ZERO;
    let mut turn = 0.0f32;
    let mut previous_yaw: Option<f32> = None;
    for k in 0..=frames {
        let t = (k as f32 / SAMPLE_RATE).min(clip.duration);
        let m = ev
            .evaluate(&EvalInput {
                clock: ClockStep::Seek(t),
                ..EvalInput::default()
            })
            .model[root];
        let (_, rotation, position) = m.to_scale_rotation_translation();
        let yaw = yaw_of(rotation * rest.inverse());
        if let Some(p) = previous_yaw {
            let mut d = yaw - p;
            d = (d + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
            turn += d;
        }
        previous_yaw = Some(yaw);
        if k == 0 {
            first = position;
        }
        last = position;
    }
    let velocity = (last - first) / clip.duration;
    velocity.is_finite().then(|| RootMotionStats {
        velocity: velocity.to_array(),
        speed: velocity.length(),
        angular_speed: turn / clip.duration,
    })
}

/// The yaw (about +Y) a rotation turns +Z by.
pub fn yaw_of(rotation: Quat) -> f32 {
    let f = rotation * Vec3::Z;
    f.x.atan2(f.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mannequin's WalkForward walks forward (+Z) without turning; its turning clip, if any, turns.
    #[test]
    fn a_walk_forward_travels_along_z_without_turning() {
        let model = crate::demo::mannequin::load();
        let walk = model
            .clips
            .iter()
            .find(|c| c.name == "WalkForward")
            .expect("the mannequin walks");
        let r = root_motion(&model.character, walk).unwrap();
        assert!(r.velocity[2].abs() >= r.velocity[0].abs(), "{r:?}");
        assert!(r.angular_speed.abs() < 0.05, "{r:?}");
        assert!((r.speed - Vec3::from_array(r.velocity).length()).abs() < 1e-6);
    }

    #[test]
    fn yaw_is_about_y_from_z() {
        assert!((yaw_of(Quat::from_rotation_y(0.5)) - 0.5).abs() < 1e-6);
    }
}
