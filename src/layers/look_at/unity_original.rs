//! The `unity_original` look-at solver: the Unity IK look-at of `../shared/reference/unity-originals/004_…`,
//! reproduced so its settings carry over. The head solves first; a bone that reaches its target within its limits
//! ends the chain, otherwise the next bone down takes the remainder (the head's forward ray is carried to the
//! target through that bone's pivot: `IterateTarget`). Each bone is limited either per axis (`ClampAnglePerBone`:
//! horizontal and vertical limits 0–90, where 90 means no limit, and a self-roll `limitSelf` proportional to the
//! bone's own rotation, applied when a limit cut the turn) or by a lerped axis (`LerpAxisPerBone`: with
//! `limitWeight` > 0 the rotation axis is lerped toward up by that weight and the angle limited to `limitAngle`).
//! Afterwards the bones the solve reached (the head down to the one that finished) are smoothed (`Smooth`): a
//! per-bone weight grows by `min(rotateSpeed, angularSpeed · dt / 90)` each frame the bone is at least 1° (whole
//! degrees) from its last rotation, and the bone is lerped from the last rotation by that weight; within 1° the
//! weight resets. Bones below keep their animation, and their smoothing memory waits for the next frame that
//! reaches them, as the original's `Smooth(boneLimit)` leaves them. A bone's first frame counts as a move from
//! nothing, so its weight starts one increment in (the original's `lastRotation` starts as a zero quaternion).
//!
//! The arithmetic is done in Unity's axes (positions and rotations mirrored in and out), so the original's
//! formulas apply literally, `Vector3.up`, `Vector3.forward` and the sign of `Quaternion.FromToRotation`
//! included: for turns of 120° or more Unity's conversion from a matrix can give w < 0, and `LerpAxisPerBone`
//! then turns the other way about the opposite axis, as the original does. An axis whose limit is 90 is skipped
//! while the other is limited, as in the original (the bone does not turn about it). Two readings remain ours:
//! the bone's rotation angle for the self-roll is taken the short way (≤ 180°, where Unity's depends on the
//! quaternion's sign), and a target straight above or below (where the original divides by zero) is turned
//! toward only by a bone without limits.

use glam::{Mat3, Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::trig::{partial_turn, wrap_angle, yaw_pitch};
use super::{LookAtParams, LookAtRig, LookBoneReport};
use crate::core::pose::{refresh_path, set_world_rotation};
use crate::core::unity_axes::{mirror_position, mirror_rotation};
use crate::core::{Skeleton, Transform};

/// Which of the original's two limit functions a bone uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnityLimitMethod {
    /// `ClampAnglePerBone`: horizontal, vertical and self-roll limits.
    #[default]
    ThreeAxis,
    /// `LerpAxisPerBone`: the rotation axis lerped toward up, the angle limited.
    LerpAxis,
}

/// One chain bone's settings in the original's names and ranges (`LookatData.BoneConfig`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UnityLookBone {
    /// Which limit function applies.
    pub method: UnityLimitMethod,
    /// `limitHori`, degrees 0–90: largest horizontal turn; 90 = no limit.
    pub limit_hori: f32,
    /// `limitVert`, degrees 0–90: largest vertical turn; 90 = no limit.
    pub limit_vert: f32,
    /// `limitSelf`, −1…1: roll about the new forward by this fraction of the bone's own rotation angle, when a
    /// limit cut the turn.
    pub limit_self: f32,
    /// `limitAngle`, degrees 0–90: largest turn of the lerped-axis limit.
    pub limit_angle: f32,
    /// `limitWeight`, 0–1: how far the rotation axis is lerped toward up (0: no limit, the bone turns fully).
    pub limit_weight: f32,
    /// `angularSpeed`: smoothing weight gained per second is `angularSpeed / 90` (capped per frame by the
    /// global `rotateSpeed`).
    pub angular_speed: f32,
}

impl Default for UnityLookBone {
    /// No limits, and smoothing that settles in about a quarter of a second. (The original's C# defaults are all
    /// 0, which would pin every bone and freeze the smoothing; these make the head look at the target.)
    fn default() -> Self {
        UnityLookBone {
            method: UnityLimitMethod::ThreeAxis,
            limit_hori: 90.0,
            limit_vert: 90.0,
            limit_self: 0.0,
            limit_angle: 90.0,
            limit_weight: 0.0,
            angular_speed: 360.0,
        }
    }
}

impl UnityLookBone {
    /// Limits of a three-axis bone, the rest at their defaults.
    pub fn three_axis(limit_hori: f32, limit_vert: f32) -> Self {
        UnityLookBone {
            limit_hori,
            limit_vert,
            ..UnityLookBone::default()
        }
    }
}

/// One chain bone's smoothing memory (`Bone.lastRotation`, `Bone.smoothWeight`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitySmoothing {
    /// The local rotation the bone had after the last frame.
    pub last_rotation: Quat,
    /// The accumulated lerp weight.
    pub smooth_weight: f32,
    /// The first frame came with no time step (a seek, then the first evaluation): its increment is added with
    /// the next frame's, so the weight reaches two increments on the second frame as in the original, whose first
    /// `Update` has a frame's `Time.deltaTime`.
    pub first_increment_pending: bool,
}

/// Unity's `Vector3.Angle`, degrees.
fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    let denominator = (a.length_squared() * b.length_squared()).sqrt();
    if denominator < 1e-15 {
        return 0.0;
    }
    (a.dot(b) / denominator)
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

/// Unity's `Quaternion.AngleAxis` (identity for a zero axis).
fn angle_axis(angle_deg: f32, axis: Vec3) -> Quat {
    match axis.try_normalize() {
        Some(a) => Quat::from_axis_angle(a, angle_deg.to_radians()),
        None => Quat::IDENTITY,
    }
}

/// Unity's `Quaternion.FromToRotation`: the shortest arc, signed as Unity's conversion from its rotation matrix
/// signs it (Shoemake's): w > 0 while the matrix trace is positive (turns under 120°), else the quaternion
/// component of the largest diagonal entry is positive, so w may be negative. Opposite directions turn half way
/// round the axis Unity's matrix (Möller and Hughes') picks: from the basis axis least along `from`.
fn from_to(from: Vec3, to: Vec3) -> Quat {
    let (Some(f), Some(t)) = (from.try_normalize(), to.try_normalize()) else {
        return Quat::IDENTITY;
    };
    let q = if f.dot(t) < -1.0 + 1e-6 {
        let a = f.abs();
        let x = if a.x < a.y {
            if a.x < a.z { Vec3::X } else { Vec3::Z }
        } else if a.y < a.z {
            Vec3::Y
        } else {
            Vec3::Z
        };
        let axis = (x - f).cross(x - t).normalize_or(x);
        Quat::from_xyzw(axis.x, axis.y, axis.z, 0.0)
    } else {
        Quat::from_rotation_arc(f, t)
    };
    let m = Mat3::from_quat(q);
    let diagonal = [m.x_axis.x, m.y_axis.y, m.z_axis.z];
    let positive = if diagonal.iter().sum::<f32>() > 0.0 {
        q.w
    } else {
        let mut i = 0;
        if diagonal[1] > diagonal[0] {
            i = 1;
        }
        if diagonal[2] > diagonal[i] {
            i = 2;
        }
        [q.x, q.y, q.z][i]
    };
    if positive < 0.0 { -q } else { q }
}

/// Unity's `Quaternion.Angle`, degrees.
fn quat_angle_deg(a: Quat, b: Quat) -> f32 {
    (a.dot(b).abs().min(1.0).acos() * 2.0).to_degrees()
}

/// Unity's `Quaternion.Lerp`: t clamped to [0, 1], the shorter way, normalised.
fn quat_lerp(a: Quat, b: Quat, t: f32) -> Quat {
    let t = t.clamp(0.0, 1.0);
    let b = if a.dot(b) < 0.0 { -b } else { b };
    Quat::from_vec4(glam::Vec4::from(a) * (1.0 - t) + glam::Vec4::from(b) * t).normalize()
}

/// `ClampAnglePerBone` in Unity's axes: the world-space turn of a bone with forward `forward` toward
/// `lookat` (both unit) and world rotation `bone_rotation`, and whether the bone reached its target.
pub fn clamp_angle_per_bone(
    config: &UnityLookBone,
    forward: Vec3,
    lookat: Vec3,
    bone_rotation: Quat,
) -> (Quat, bool) {
    let limit_hori = config.limit_hori < 90.0;
    let limit_vert = config.limit_vert < 90.0;
    let limit_self = config.limit_self != 0.0;
    if !limit_hori && !limit_vert && !limit_self {
        return (from_to(forward, lookat), true);
    }
    let mut finish = true;
    let forward_hori = Vec3::new(forward.x, 0.0, forward.z);
    let xz = lookat.x * lookat.x + lookat.z * lookat.z;
    if xz < 1e-12 || forward_hori.length_squared() < 1e-12 {
        // Straight above or below (the original asserts here): only a free bone can follow.
        return (from_to(forward, lookat), !limit_hori && !limit_vert);
    }
    let mut rotation = Quat::IDENTITY;
    if limit_hori {
        let xz_scale = (1.0 / xz).sqrt();
        let hori_direction = Vec3::new(xz_scale * lookat.x, 0.0, xz_scale * lookat.z);
        let mut hori_angle = angle_deg(forward_hori, hori_direction);
        let hori_axis = forward_hori.cross(hori_direction);
        if hori_angle > config.limit_hori {
            finish = false;
            hori_angle = config.limit_hori;
        }
        rotation = angle_axis(hori_angle, hori_axis);
    }
    if limit_vert {
        let vert_direction = rotation * forward_hori;
        let vxz = vert_direction.x * vert_direction.x + vert_direction.z * vert_direction.z;
        let xz_scale2 = ((1.0 - lookat.y * lookat.y).max(0.0) / vxz).sqrt();
        let vert_direction2 = Vec3::new(
            xz_scale2 * vert_direction.x,
            lookat.y,
            xz_scale2 * vert_direction.z,
        );
        let mut vert_angle = angle_deg(vert_direction, vert_direction2);
        if vert_angle > config.limit_vert {
            finish = false;
            vert_angle = config.limit_vert;
        }
        rotation = angle_axis(vert_angle, vert_direction.cross(vert_direction2)) * rotation;
    }
    if !finish && limit_self {
        let inverse_forward_rotation = from_to(forward, Vec3::Z);
        let ori_self_rotation = inverse_forward_rotation * bone_rotation;
        let ori_self_rotation = if ori_self_rotation.w < 0.0 {
            -ori_self_rotation
        } else {
            ori_self_rotation
        };
        let ori_self_angle = (ori_self_rotation.w.min(1.0).acos() * 2.0).to_degrees();
        let actual_direction = rotation * forward;
        let self_rotation = angle_axis(ori_self_angle * config.limit_self, actual_direction);
        rotation = self_rotation * rotation;
    }
    (rotation, finish)
}

/// `LerpAxisPerBone` in Unity's axes: the turn of a bone with forward `forward` toward `lookat`, and whether
/// the bone reached its target (only when it is not limited).
pub fn lerp_axis_per_bone(config: &UnityLookBone, forward: Vec3, lookat: Vec3) -> (Quat, bool) {
    let rotation = from_to(forward, lookat);
    if config.limit_weight <= 0.0 {
        return (rotation, true);
    }
    let (axis, angle) = rotation.to_axis_angle();
    let angle = angle.to_degrees();
    let new_axis = axis.lerp(Vec3::Y, config.limit_weight);
    let new_angle = (angle - angle_deg(axis, new_axis)).min(config.limit_angle);
    (angle_axis(new_angle, new_axis), false)
}

/// `Smooth` for one bone: the local rotation to show given the solved one, `dt` seconds after the last frame.
pub fn smooth(
    memory: &mut Option<UnitySmoothing>,
    solved: Quat,
    rotate_speed: f32,
    angular_speed: f32,
    dt: f32,
) -> Quat {
    let increment = rotate_speed.min(angular_speed * dt / 90.0);
    let Some(m) = memory else {
        // The original's first frame: a zero `lastRotation` is 180° away, so the weight gains its increment and
        // the lerp from zero lands on the solved rotation. With no time step (the frame after a seek) that
        // increment is unknown: it is taken on the next frame, as that frame's.
        *memory = Some(UnitySmoothing {
            last_rotation: solved,
            smooth_weight: increment,
            first_increment_pending: dt <= 0.0,
        });
        return solved;
    };
    let mut result = solved;
    // `(int)Quaternion.Angle(…)`: under one whole degree counts as arrived.
    if quat_angle_deg(result, m.last_rotation).trunc() > 0.0 {
        let increments = if m.first_increment_pending { 2.0 } else { 1.0 };
        m.smooth_weight += increments * increment;
        m.first_increment_pending &= increment <= 0.0;
        result = quat_lerp(m.last_rotation, result, m.smooth_weight);
    } else {
        m.smooth_weight = 0.0;
        m.first_increment_pending = false;
    }
    m.last_rotation = result;
    result
}

impl LookAtRig {
    /// Solves the chain the original's way toward `target` (model space): head first, stopping at the first bone
    /// that reaches it; then smooths the bones it reached with `dt` (None: snaps, and the smoothing of every
    /// bone starts over at the next frame).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply_unity_original(
        &self,
        params: &LookAtParams,
        skeleton: &Skeleton,
        target: Vec3,
        dt: Option<f32>,
        smoothing: &mut Vec<Option<UnitySmoothing>>,
        local: &mut [Transform],
        model: &mut [Mat4],
        world: &mut [Quat],
        report: &mut Vec<LookBoneReport>,
    ) {
        let head = &self.bones[0];
        let lookat_position = mirror_position(target);
        let position = |model: &[Mat4], j: usize| mirror_position(model[j].w_axis.truncate());
        let forward_of = |world: &[Quat], joint: usize, axis: Vec3| {
            mirror_position(world[joint] * axis).normalize_or(Vec3::Z)
        };
        let mut reached = self.bones.len();
        for (i, b) in self.bones.iter().enumerate() {
            let config = &params.chain[b.index].unity;
            let forward = forward_of(world, b.joint, b.forward);
            let lookat = if i == 0 {
                (lookat_position - position(model, b.joint)).normalize_or(forward)
            } else {
                // IterateTarget: the head's forward point at the target's distance, seen from this bone.
                let first = position(model, head.joint);
                let length = lookat_position.distance(first);
                let vt_position = first + forward_of(world, head.joint, head.forward) * length;
                let pivot = position(model, b.joint);
                from_to(vt_position - pivot, lookat_position - pivot) * forward
            };
            let bone_rotation = mirror_rotation(world[b.joint]);
            let (rotation, finish) = match config.method {
                UnityLimitMethod::ThreeAxis => {
                    clamp_angle_per_bone(config, forward, lookat, bone_rotation)
                }
                UnityLimitMethod::LerpAxis => lerp_axis_per_bone(config, forward, lookat),
            };
            let turn = partial_turn(mirror_rotation(rotation), params.weight);
            let before = world[b.joint] * b.forward;
            set_world_rotation(skeleton, local, world, b.joint, turn * world[b.joint]);
            let at = self.path.partition_point(|&j| j < b.joint);
            refresh_path(skeleton, local, &self.path[at..], model, world);
            let ((y0, p0), (y1, p1)) = (yaw_pitch(before), yaw_pitch(world[b.joint] * b.forward));
            report.push(LookBoneReport {
                index: b.index,
                angle_deg: super::super::twist::rotation_distance(turn, Quat::IDENTITY)
                    .to_degrees(),
                yaw_deg: wrap_angle(y1 - y0).to_degrees(),
                pitch_deg: (p1 - p0).to_degrees(),
                limited: !finish,
            });
            if finish {
                reached = i + 1;
                break;
            }
        }
        smoothing.resize(self.bones.len(), None);
        let dt = match dt {
            Some(dt) if dt.is_finite() => dt.max(0.0),
            _ => {
                smoothing.iter_mut().for_each(|m| *m = None);
                return;
            }
        };
        for (b, memory) in self.bones.iter().zip(smoothing.iter_mut()).take(reached) {
            let solved = mirror_rotation(local[b.joint].rotation);
            let angular_speed = params.chain[b.index].unity.angular_speed;
            let shown = smooth(memory, solved, params.rotate_speed, angular_speed, dt);
            local[b.joint].rotation = mirror_rotation(shown);
        }
        refresh_path(skeleton, local, &self.path, model, world);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlimited_bone_turns_fully_and_finishes() {
        let config = UnityLookBone::default();
        let look = Vec3::new(-1.0, 0.0, 1.0).normalize();
        let (q, finish) = clamp_angle_per_bone(&config, Vec3::Z, look, Quat::IDENTITY);
        assert!(finish);
        assert!((q * Vec3::Z).distance(look) < 1e-5);
    }

    #[test]
    fn a_horizontal_limit_cuts_the_turn_and_passes_it_on() {
        let config = UnityLookBone::three_axis(30.0, 90.0);
        let look = Vec3::new(-1.0, 0.0, 1.0).normalize();
        let (q, finish) = clamp_angle_per_bone(&config, Vec3::Z, look, Quat::IDENTITY);
        assert!(!finish);
        assert!((angle_deg(q * Vec3::Z, Vec3::Z) - 30.0).abs() < 1e-3);
        // Toward the target's side (Unity's left is −X).
        assert!((q * Vec3::Z).x < 0.0);
    }

    #[test]
    fn the_self_roll_turns_about_the_new_forward_by_a_share_of_the_bones_rotation() {
        let config = UnityLookBone {
            limit_self: 0.5,
            ..UnityLookBone::three_axis(10.0, 90.0)
        };
        let look = Vec3::new(-1.0, 0.0, 1.0).normalize();
        let bone = Quat::from_rotation_z(0.4);
        let (q, _) = clamp_angle_per_bone(&config, Vec3::Z, look, bone);
        let (plain, _) =
            clamp_angle_per_bone(&UnityLookBone::three_axis(10.0, 90.0), Vec3::Z, look, bone);
        // The roll leaves the forward where the limit put it and adds half of the bone's 0.4 rad about it.
        assert!((q * Vec3::Z).distance(plain * Vec3::Z) < 1e-5);
        let roll = quat_angle_deg(q, plain);
        assert!((roll - 0.2f32.to_degrees()).abs() < 1e-2, "{roll}");
    }

    #[test]
    fn the_lerped_axis_limit_caps_the_angle() {
        let config = UnityLookBone {
            method: UnityLimitMethod::LerpAxis,
            limit_angle: 20.0,
            limit_weight: 0.3,
            ..UnityLookBone::default()
        };
        let look = Vec3::new(1.0, 0.2, 1.0).normalize();
        let (q, finish) = lerp_axis_per_bone(&config, Vec3::Z, look);
        assert!(!finish);
        assert!(quat_angle_deg(q, Quat::IDENTITY) <= 20.0 + 1e-3);
        let free = UnityLookBone {
            limit_weight: 0.0,
            ..config
        };
        assert!(lerp_axis_per_bone(&free, Vec3::Z, look).1);
    }
}
