//! Look-at: the head (then the eyes) turn toward a target point. Two solvers: `shares` (ours: from the bottom of
//! the chain up, each bone takes a share of the turn within its limits, and the look direction turns at a
//! bounded angular speed) and `unity_original` (the Unity original's rules and parameters, [`unity_original`]).

pub mod trig;
pub mod unity_original;

use trig::{from_yaw_pitch, partial_turn, wrap_angle, yaw_pitch};

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::breath::local_axis_toward;
use super::{ParamError, check, check_axis, chosen_axis, resolve_joint};
use crate::core::pose::{ancestor_path, refresh_path, set_world_rotation};
use crate::core::{Character, HumanBone, Pose, Skeleton, Transform};
use glam::Mat4;
pub use unity_original::{UnityLimitMethod, UnityLookBone, UnitySmoothing};

/// The character's forward in model space.
pub const CHARACTER_FORWARD: Vec3 = Vec3::Z;

/// How far one bone may turn.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum LookLimit {
    /// No limit.
    Off,
    /// Separate limits for turning left/right and up/down, and a roll that follows the turn.
    Axis {
        /// Largest turn left or right, degrees (0–90).
        horizontal_deg: f32,
        /// Largest turn up or down, degrees (0–90).
        vertical_deg: f32,
        /// Roll about the forward axis per unit of turn (−1…1; 0 keeps the bone level).
        roll: f32,
    },
    /// One limit on the whole angle, approached smoothly, with the rotation axis pulled toward up.
    Smooth {
        /// The angle the turn approaches but never reaches, degrees.
        angle_deg: f32,
        /// 0 keeps the rotation axis; 1 turns only about the up axis.
        limit_weight: f32,
    },
}

/// One bone of the look-at chain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LookBone {
    /// Humanoid bone name, or a joint name for rigs without a humanoid map.
    pub bone: String,
    /// Share of the remaining turn this bone takes (the head usually takes all that is left: 1).
    pub weight: f32,
    /// Forward axis in the bone's local frame; None: detected from the rest pose.
    pub forward: Option<[f32; 3]>,
    /// The bone's limit (`shares` solver).
    pub limit: LookLimit,
    /// The bone's settings for the `unity_original` solver, in the original's names.
    pub unity: UnityLookBone,
}

impl Default for LookBone {
    fn default() -> Self {
        LookBone {
            bone: String::new(),
            weight: 0.5,
            forward: None,
            limit: LookLimit::Off,
            unity: UnityLookBone::default(),
        }
    }
}

/// Which look-at solver runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LookSolver {
    /// Ours: bottom-up shares with per-bone limits and a constant-speed look direction.
    #[default]
    Shares,
    /// The Unity original: head first, early stop, its limits and per-bone smoothing.
    UnityOriginal,
}

impl LookSolver {
    /// Both solvers, for pickers.
    pub const ALL: [LookSolver; 2] = [LookSolver::Shares, LookSolver::UnityOriginal];

    /// The name used in presets and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            LookSolver::Shares => "shares",
            LookSolver::UnityOriginal => "unity_original",
        }
    }
}

/// Look-at parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LookAtParams {
    /// Layer on.
    pub enabled: bool,
    /// Global weight: 0 leaves the animation alone, 1 turns fully.
    pub weight: f32,
    /// The point to look at, model space (metres, character root frame).
    pub target: [f32; 3],
    /// Look at the viewport camera instead of `target` (editor only).
    pub follow_camera: bool,
    /// The solver.
    pub solver: LookSolver,
    /// `unity_original`: the original's `rotateSpeed`, the most a bone's smoothing weight grows per frame.
    #[serde(rename = "rotateSpeed")]
    pub rotate_speed: f32,
    /// The chain, head first (default Head, Neck, UpperChest — Chest where there is none — and Spine).
    pub chain: Vec<LookBone>,
    /// Smoothing: the look direction turns at most this fast, degrees per second (0: no smoothing).
    pub speed_deg_per_s: f32,
    /// Aim the eye bones too, when the rig has them.
    pub eyes: bool,
    /// Eye limit left/right, degrees.
    pub eye_horizontal_deg: f32,
    /// Eye limit up/down, degrees.
    pub eye_vertical_deg: f32,
}

impl Default for LookAtParams {
    fn default() -> Self {
        let bone = |b: &str, weight: f32, h: f32, v: f32| LookBone {
            bone: b.into(),
            weight,
            forward: None,
            limit: LookLimit::Axis {
                horizontal_deg: h,
                vertical_deg: v,
                roll: 0.0,
            },
            unity: UnityLookBone::three_axis(h.min(90.0), v.min(90.0)),
        };
        LookAtParams {
            enabled: false,
            weight: 1.0,
            target: [0.0, 1.5, 2.0],
            follow_camera: false,
            solver: LookSolver::Shares,
            rotate_speed: 1.0,
            chain: vec![
                bone("Head", 1.0, 70.0, 40.0),
                bone("Neck", 0.4, 40.0, 25.0),
                bone("UpperChest", 0.25, 20.0, 10.0),
                bone("Spine", 0.15, 15.0, 10.0),
            ],
            speed_deg_per_s: 360.0,
            eyes: true,
            eye_horizontal_deg: 30.0,
            eye_vertical_deg: 20.0,
        }
    }
}

impl LookAtParams {
    /// Checks every value; the error names the field (relative to the look-at section).
    pub fn validate(&self) -> Result<(), ParamError> {
        check("weight", self.weight, 0.0, 1.0)?;
        for (c, v) in self.target.iter().enumerate() {
            check(&format!("target[{c}]"), *v, -1e4, 1e4)?;
        }
        check("speed_deg_per_s", self.speed_deg_per_s, 0.0, 1e5)?;
        check("rotateSpeed", self.rotate_speed, 0.0, 1.0)?;
        check("eye_horizontal_deg", self.eye_horizontal_deg, 0.0, 90.0)?;
        check("eye_vertical_deg", self.eye_vertical_deg, 0.0, 90.0)?;
        for (i, b) in self.chain.iter().enumerate() {
            check(&format!("chain[{i}].weight"), b.weight, 0.0, 1.0)?;
            check_axis(&format!("chain[{i}].forward"), b.forward)?;
            let u = &b.unity;
            for (name, value, min, max) in [
                ("limitHori", u.limit_hori, 0.0, 90.0),
                ("limitVert", u.limit_vert, 0.0, 90.0),
                ("limitSelf", u.limit_self, -1.0, 1.0),
                ("limitAngle", u.limit_angle, 0.0, 90.0),
                ("limitWeight", u.limit_weight, 0.0, 1.0),
                ("angularSpeed", u.angular_speed, 0.0, 1e5),
            ] {
                check(&format!("chain[{i}].unity.{name}"), value, min, max)?;
            }
            match b.limit {
                LookLimit::Off => {}
                LookLimit::Axis {
                    horizontal_deg,
                    vertical_deg,
                    roll,
                } => {
                    check(
                        &format!("chain[{i}].limit.horizontal_deg"),
                        horizontal_deg,
                        0.0,
                        90.0,
                    )?;
                    check(
                        &format!("chain[{i}].limit.vertical_deg"),
                        vertical_deg,
                        0.0,
                        90.0,
                    )?;
                    check(&format!("chain[{i}].limit.roll"), roll, -1.0, 1.0)?;
                }
                LookLimit::Smooth {
                    angle_deg,
                    limit_weight,
                } => {
                    check(
                        &format!("chain[{i}].limit.angle_deg"),
                        angle_deg,
                        0.0,
                        180.0,
                    )?;
                    check(
                        &format!("chain[{i}].limit.limit_weight"),
                        limit_weight,
                        0.0,
                        1.0,
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// A chain bone found on the character.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundLookBone {
    /// Index into [`LookAtParams::chain`].
    pub index: usize,
    /// The joint.
    pub joint: usize,
    /// Forward axis in the joint's frame (the override, or the detected one).
    pub forward: Vec3,
    /// The detected forward axis.
    pub detected_forward: Vec3,
}

/// Look-at bound to one character.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LookAtRig {
    /// The chain, head first.
    pub bones: Vec<BoundLookBone>,
    /// Eye joints and their forward axes.
    pub eyes: Vec<(usize, Vec3)>,
    /// Chain bones this character does not have.
    pub missing: Vec<String>,
    /// The chain, the eyes and all their ancestors in parent-first order: the joints look-at reads.
    pub path: Vec<usize>,
}

/// The smoothing filter's state: the current look direction from the head.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LookAtState {
    direction: Option<Vec3>,
    /// `unity_original`: each chain bone's smoothing memory.
    unity: Vec<Option<UnitySmoothing>>,
}

impl LookAtState {
    /// Forgets the filtered direction (after a seek, the next evaluation snaps to the target).
    pub fn reset(&mut self) {
        self.direction = None;
        self.unity.iter_mut().for_each(|m| *m = None);
    }

    /// The filtered look direction, once there is one.
    pub fn direction(&self) -> Option<Vec3> {
        self.direction
    }
}

/// What one chain bone did.
#[derive(Clone, Debug, PartialEq)]
pub struct LookBoneReport {
    /// Index of the bone in [`LookAtParams::chain`].
    pub index: usize,
    /// The bone's own turn, degrees.
    pub angle_deg: f32,
    /// Its turn left (+) or right (−) of the forward direction, degrees.
    pub yaw_deg: f32,
    /// Its turn up (+) or down (−), degrees.
    pub pitch_deg: f32,
    /// True when the limit cut the turn.
    pub limited: bool,
}

/// Applies a limit to a turn `turn` (model space) of a bone whose forward direction is `forward`.
/// Returns the allowed turn, its yaw and pitch (radians) and whether the limit cut it.
pub fn limit_turn(turn: Quat, forward: Vec3, limit: LookLimit) -> (Quat, f32, f32, bool) {
    let f = forward.normalize_or(CHARACTER_FORWARD);
    let p0 = trig::asin(f.y);
    // The yaw change is the angle between the horizontal projections (one arctangent, equal to the wrapped
    // difference of the two yaws); the pitch change the difference of the elevations.
    let measure = |q: Quat| {
        let g = q * f;
        let dy = trig::atan2(g.x * f.z - g.z * f.x, g.x * f.x + g.z * f.z);
        (dy, trig::asin(g.y) - p0)
    };
    match limit {
        LookLimit::Off => {
            let (dy, dp) = measure(turn);
            (turn, dy, dp, false)
        }
        LookLimit::Axis {
            horizontal_deg,
            vertical_deg,
            roll,
        } => {
            let (dy, dp) = measure(turn);
            let (h, v) = (horizontal_deg.to_radians(), vertical_deg.to_radians());
            let dy_c = dy.clamp(-h, h);
            let limit_p = std::f32::consts::FRAC_PI_2 - 1e-3;
            let dp_c = dp.clamp(-v, v).clamp(-limit_p - p0, limit_p - p0);
            let limited = dy_c != dy || dp_c != dp;
            // Within the limits the aimed direction is where the turn takes the forward direction (the same
            // vector from_yaw_pitch would rebuild from its angles); the roll term is the identity at roll 0.
            let aimed = if limited {
                from_yaw_pitch(yaw_pitch(f).0 + dy_c, p0 + dp_c)
            } else {
                (turn * f).normalize_or(f)
            };
            let base = Quat::from_rotation_arc(f, aimed);
            let q = if roll == 0.0 {
                base
            } else {
                (Quat::from_axis_angle(aimed, -roll * dy_c) * base).normalize()
            };
            (q, dy_c, dp_c, limited)
        }
        LookLimit::Smooth {
            angle_deg,
            limit_weight,
        } => {
            let (mut axis, angle) = turn.to_axis_angle();
            let angle = wrap_angle(angle);
            let l = angle_deg.to_radians();
            if limit_weight > 0.0 && axis.is_finite() {
                let up = if axis.y >= 0.0 { Vec3::Y } else { Vec3::NEG_Y };
                axis = axis.lerp(up, limit_weight).normalize_or(up);
            }
            let limited = angle.abs() >= l;
            let a = if l > 0.0 { l * (angle / l).tanh() } else { 0.0 };
            let q = Quat::from_axis_angle(axis, a);
            let (dy, dp) = measure(q);
            (q, dy, dp, limited)
        }
    }
}

/// Turns `from` toward `to` by at most `max_angle` radians.
pub fn rotate_towards(from: Vec3, to: Vec3, max_angle: f32) -> Vec3 {
    let angle = from.angle_between(to);
    if !angle.is_finite() || angle <= max_angle {
        return to;
    }
    Quat::IDENTITY.slerp(Quat::from_rotation_arc(from, to), max_angle / angle) * from
}

impl LookAtRig {
    /// Resolves the chain (UpperChest falls back to Chest) and the eyes on a character.
    pub fn bind(params: &LookAtParams, character: &Character) -> Self {
        let skeleton = &character.skeleton;
        let rest_world = Pose::rest(skeleton).world_rotations(skeleton);
        let mut rig = LookAtRig::default();
        for (index, b) in params.chain.iter().enumerate() {
            let joint = resolve_joint(character, &b.bone).or_else(|| {
                (b.bone == "UpperChest")
                    .then(|| character.humanoid.joint(HumanBone::Chest))
                    .flatten()
            });
            let Some(joint) = joint else {
                rig.missing.push(b.bone.clone());
                continue;
            };
            if rig.bones.iter().any(|x| x.joint == joint) {
                continue;
            }
            let detected_forward = local_axis_toward(&rest_world, joint, CHARACTER_FORWARD);
            let forward = chosen_axis(b.forward, detected_forward);
            rig.bones.push(BoundLookBone {
                index,
                joint,
                forward,
                detected_forward,
            });
        }
        for eye in [HumanBone::LeftEye, HumanBone::RightEye] {
            if let Some(j) = character.humanoid.joint(eye) {
                rig.eyes
                    .push((j, local_axis_toward(&rest_world, j, CHARACTER_FORWARD)));
            }
        }
        let joints = rig
            .bones
            .iter()
            .map(|b| b.joint)
            .chain(rig.eyes.iter().map(|e| e.0));
        rig.path = ancestor_path(skeleton, joints.collect::<Vec<_>>());
        rig
    }

    /// Turns the chain toward `target` (model space). With `dt`, the look direction is smoothed by the
    /// angular speed in the parameters and `state` carries it between calls; without, it snaps. Only the joints
    /// on [`LookAtRig::path`] of `model` and `world` are read and kept current; `report` gets one entry per
    /// chain bone. Allocates nothing once `report` has room.
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &self,
        params: &LookAtParams,
        skeleton: &Skeleton,
        target: Vec3,
        step: super::Step,
        state: &mut LookAtState,
        local: &mut [Transform],
        model: &mut [Mat4],
        world: &mut [Quat],
        report: &mut Vec<LookBoneReport>,
    ) {
        // The filter's step: none after a reset (it snaps), else the seconds that passed.
        let dt = match step {
            super::Step::Reset => None,
            super::Step::Hold => Some(0.0),
            super::Step::Advance(dt) => Some(dt),
        };
        report.clear();
        if !params.enabled || self.bones.is_empty() || !target.is_finite() {
            return;
        }
        refresh_path(skeleton, local, &self.path, model, world);
        let head = &self.bones[0];
        let head_pos = model[head.joint].w_axis.truncate();
        if params.solver == LookSolver::UnityOriginal {
            self.apply_unity_original(
                params,
                skeleton,
                target,
                dt,
                &mut state.unity,
                local,
                model,
                world,
                report,
            );
            report.sort_by_key(|r| r.index);
            self.aim_eyes(params, skeleton, target, local, model, world);
            return;
        }
        let Some(desired) = (target - head_pos).try_normalize() else {
            return;
        };
        let direction = match (dt, state.direction) {
            (Some(dt), Some(prev)) if params.speed_deg_per_s > 0.0 && dt.is_finite() => {
                rotate_towards(
                    prev,
                    desired,
                    params.speed_deg_per_s.to_radians() * dt.max(0.0),
                )
            }
            _ => desired,
        };
        state.direction = Some(direction);
        let goal = head_pos + direction * (target - head_pos).length();
        for b in self.bones.iter().rev() {
            let spec = &params.chain[b.index];
            let head_pos = model[head.joint].w_axis.truncate();
            let head_fwd = world[head.joint] * head.forward;
            let look_point = head_pos + head_fwd * (goal - head_pos).length();
            let pivot = model[b.joint].w_axis.truncate();
            let (Some(from), Some(to)) = (
                (look_point - pivot).try_normalize(),
                (goal - pivot).try_normalize(),
            ) else {
                continue;
            };
            let full = Quat::from_rotation_arc(from, to);
            let share = partial_turn(full, spec.weight * params.weight);
            let forward = world[b.joint] * b.forward;
            let (turn, yaw, pitch, limited) = limit_turn(share, forward, spec.limit);
            // set_world_rotation normalises the local rotation it derives from this.
            let rotation = turn * world[b.joint];
            set_world_rotation(skeleton, local, world, b.joint, rotation);
            let at = self.path.partition_point(|&j| j < b.joint);
            refresh_path(skeleton, local, &self.path[at..], model, world);
            report.push(LookBoneReport {
                index: b.index,
                angle_deg: super::twist::rotation_distance(turn, Quat::IDENTITY).to_degrees(),
                yaw_deg: yaw.to_degrees(),
                pitch_deg: pitch.to_degrees(),
                limited,
            });
        }
        report.reverse();
        self.aim_eyes(params, skeleton, goal, local, model, world);
    }

    /// Turns the eye bones toward `goal` within the eye limits, when the parameters ask for it.
    fn aim_eyes(
        &self,
        params: &LookAtParams,
        skeleton: &Skeleton,
        goal: Vec3,
        local: &mut [Transform],
        model: &[Mat4],
        world: &mut [Quat],
    ) {
        if params.eyes {
            let limit = LookLimit::Axis {
                horizontal_deg: params.eye_horizontal_deg,
                vertical_deg: params.eye_vertical_deg,
                roll: 0.0,
            };
            for &(eye, fwd) in &self.eyes {
                let pos = model[eye].w_axis.truncate();
                let forward = world[eye] * fwd;
                let Some(to) = (goal - pos).try_normalize() else {
                    continue;
                };
                let full = Quat::from_rotation_arc(forward.normalize_or(to), to);
                let share = partial_turn(full, params.weight);
                let (turn, _, _, _) = limit_turn(share, forward, limit);
                let rotation = (turn * world[eye]).normalize();
                set_world_rotation(skeleton, local, world, eye, rotation);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_limits_clamp_yaw_and_pitch() {
        let turn = Quat::from_rotation_y(80f32.to_radians()) * Quat::from_rotation_x(-0.5);
        let limit = LookLimit::Axis {
            horizontal_deg: 30.0,
            vertical_deg: 10.0,
            roll: 0.0,
        };
        let (q, yaw, pitch, limited) = limit_turn(turn, Vec3::Z, limit);
        assert!(limited);
        assert!(
            (yaw.to_degrees() - 30.0).abs() < 1e-3,
            "{}",
            yaw.to_degrees()
        );
        assert!(pitch.to_degrees().abs() <= 10.0 + 1e-3);
        let (y, p) = yaw_pitch(q * Vec3::Z);
        assert!((y.to_degrees() - 30.0).abs() < 1e-3 && (p - pitch).abs() < 1e-5);
    }

    #[test]
    fn smooth_limit_never_reaches_its_angle() {
        let turn = Quat::from_rotation_y(3.0);
        let (q, _, _, limited) = limit_turn(
            turn,
            Vec3::Z,
            LookLimit::Smooth {
                angle_deg: 45.0,
                limit_weight: 0.0,
            },
        );
        assert!(limited);
        let a = super::super::twist::rotation_distance(q, Quat::IDENTITY).to_degrees();
        assert!(a < 45.0 && a > 40.0, "{a}");
    }

    #[test]
    fn rotate_towards_moves_by_at_most_the_step() {
        let d = rotate_towards(Vec3::Z, Vec3::X, 0.5);
        assert!((d.angle_between(Vec3::Z) - 0.5).abs() < 1e-5);
        assert_eq!(rotate_towards(Vec3::Z, Vec3::X, 2.0), Vec3::X);
    }
}
