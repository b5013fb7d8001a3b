//! The `unity_original` look-at against a port of the article's C# (`../shared/reference/unity-originals/004_…`),
//! written for this test from the article alone: its `IterateTarget`, `ClampAnglePerBone`, `LerpAxisPerBone` and
//! `Smooth`, on a transform hierarchy of its own in Unity's axes, with Unity's math written from Unity's
//! definitions (`FromToRotation` as a rotation matrix converted by Shoemake's method, so its sign is Unity's).
//!
//! The article shows no outer loop; the port reads it as the functions imply: the head first, each next bone down
//! aiming through `IterateTarget` until one finishes, then `Smooth(boneLimit)` over the bones reached. One rule is
//! ours on purpose and the port takes it too: the self-roll angle is taken the short way (≤ 180°).

use crate::common;
use crate::layers::look;

use animtune::core::{Pose, Skeleton, Wrap};
use animtune::import::ImportedModel;
use animtune::layers::look_at::{
    LookAtParams, LookAtRig, LookAtState, LookSolver, UnityLimitMethod, UnityLookBone,
};
use glam::{Mat4, Quat, Vec3};

/// Unity's math, from Unity's definitions.
mod unity {
    use glam::{Quat, Vec3, Vec4};

    /// `Vector3.Angle`, degrees.
    pub fn vector_angle(from: Vec3, to: Vec3) -> f32 {
        let denominator = (from.length_squared() * to.length_squared()).sqrt();
        if denominator < 1e-15 {
            return 0.0;
        }
        (from.dot(to) / denominator)
            .clamp(-1.0, 1.0)
            .acos()
            .to_degrees()
    }

    /// `Matrix3x3f::SetFromToRotation` (Möller and Hughes), rows of the matrix that turns unit `from` onto `to`.
    fn from_to_matrix(from: Vec3, to: Vec3) -> [[f32; 3]; 3] {
        let v = from.cross(to);
        let e = from.dot(to);
        let mut m = [[0.0f32; 3]; 3];
        if e.abs() > 1.0 - 1e-6 {
            let a = from.abs();
            let x = if a.x < a.y {
                if a.x < a.z { Vec3::X } else { Vec3::Z }
            } else if a.y < a.z {
                Vec3::Y
            } else {
                Vec3::Z
            };
            let (u, v) = (x - from, x - to);
            let c1 = 2.0 / u.dot(u);
            let c2 = 2.0 / v.dot(v);
            let c3 = c1 * c2 * u.dot(v);
            for i in 0..3 {
                for j in 0..3 {
                    m[i][j] = -c1 * u[i] * u[j] - c2 * v[i] * v[j] + c3 * v[i] * u[j];
                }
                m[i][i] += 1.0;
            }
        } else {
            let h = 1.0 / (1.0 + e);
            let (hvx, hvz) = (h * v.x, h * v.z);
            let (hvxy, hvxz, hvyz) = (hvx * v.y, hvx * v.z, hvz * v.y);
            m[0] = [e + hvx * v.x, hvxy - v.z, hvxz + v.y];
            m[1] = [hvxy + v.z, e + h * v.y * v.y, hvyz - v.x];
            m[2] = [hvxz - v.y, hvyz + v.x, e + hvz * v.z];
        }
        m
    }

    /// `MatrixToQuaternion` (Shoemake), then normalised.
    fn matrix_to_quaternion(m: [[f32; 3]; 3]) -> Quat {
        let trace = m[0][0] + m[1][1] + m[2][2];
        let mut q = [0.0f32; 4];
        if trace > 0.0 {
            let root = (trace + 1.0).sqrt();
            q[3] = 0.5 * root;
            let root = 0.5 / root;
            q[0] = (m[2][1] - m[1][2]) * root;
            q[1] = (m[0][2] - m[2][0]) * root;
            q[2] = (m[1][0] - m[0][1]) * root;
        } else {
            let next = [1, 2, 0];
            let mut i = 0;
            if m[1][1] > m[0][0] {
                i = 1;
            }
            if m[2][2] > m[i][i] {
                i = 2;
            }
            let j = next[i];
            let k = next[j];
            let root = (m[i][i] - m[j][j] - m[k][k] + 1.0).sqrt();
            q[i] = 0.5 * root;
            let root = 0.5 / root;
            q[3] = (m[k][j] - m[j][k]) * root;
            q[j] = (m[j][i] + m[i][j]) * root;
            q[k] = (m[k][i] + m[i][k]) * root;
        }
        Quat::from_array(q).normalize()
    }

    /// `Quaternion.FromToRotation`.
    pub fn from_to_rotation(from: Vec3, to: Vec3) -> Quat {
        if from.length() < 1e-5 || to.length() < 1e-5 {
            return Quat::IDENTITY;
        }
        matrix_to_quaternion(from_to_matrix(from.normalize(), to.normalize()))
    }

    /// `Quaternion.AngleAxis`, degrees.
    pub fn angle_axis(angle: f32, axis: Vec3) -> Quat {
        if axis.length() < 1e-5 {
            return Quat::IDENTITY;
        }
        let a = axis.normalize();
        let (s, c) = (angle.to_radians() * 0.5).sin_cos();
        Quat::from_xyzw(a.x * s, a.y * s, a.z * s, c)
    }

    /// `Quaternion.ToAngleAxis`: degrees in [0, 360] and the axis, from the quaternion as it is signed.
    pub fn to_angle_axis(q: Quat) -> (f32, Vec3) {
        let q = q.normalize();
        let angle = 2.0 * q.w.clamp(-1.0, 1.0).acos();
        if angle.abs() < 1e-6 {
            return (0.0, Vec3::X);
        }
        let div = 1.0 / (1.0 - q.w * q.w).sqrt();
        (
            angle.to_degrees(),
            Vec3::new(q.x * div, q.y * div, q.z * div),
        )
    }

    /// `Quaternion.Angle`, degrees (a zero quaternion is 180° from everything).
    pub fn quaternion_angle(a: Quat, b: Quat) -> f32 {
        let dot = a.dot(b);
        if dot > 1.0 - 1e-6 {
            return 0.0;
        }
        (dot.abs().min(1.0).acos() * 2.0).to_degrees()
    }

    /// `Quaternion.Lerp`: t clamped, the sign of `b` flipped when the dot is negative, normalised (the identity
    /// when the result has no length).
    pub fn lerp(a: Quat, b: Quat, t: f32) -> Quat {
        let t = t.clamp(0.0, 1.0);
        let (a4, b4) = (Vec4::from(a), Vec4::from(b));
        let b4 = if a.dot(b) < 0.0 { -b4 } else { b4 };
        let r = a4 + (b4 - a4) * t;
        if r.length() < 1e-5 {
            Quat::IDENTITY
        } else {
            Quat::from_vec4(r / r.length())
        }
    }
}

/// A transform hierarchy in Unity's axes (left-handed: glTF's X mirrored), as the C# reads `transform`.
struct Hierarchy<'s> {
    skeleton: &'s Skeleton,
    root: Mat4,
    root_rotation: Quat,
    local_position: Vec<Vec3>,
    local_rotation: Vec<Quat>,
    local_scale: Vec<Vec3>,
}

fn mirror_vector(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, v.z)
}

fn mirror_quat(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

impl<'s> Hierarchy<'s> {
    fn new(skeleton: &'s Skeleton, pose: &Pose) -> Self {
        let flip = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let root = flip * skeleton.root_transform() * flip;
        Hierarchy {
            skeleton,
            root,
            root_rotation: root.to_scale_rotation_translation().1.normalize(),
            local_position: pose
                .local
                .iter()
                .map(|t| mirror_vector(t.translation.into()))
                .collect(),
            local_rotation: pose.local.iter().map(|t| mirror_quat(t.rotation)).collect(),
            local_scale: pose.local.iter().map(|t| t.scale.into()).collect(),
        }
    }

    fn matrix(&self, j: usize) -> Mat4 {
        let parent = self
            .skeleton
            .parent(j)
            .map_or(self.root, |p| self.matrix(p));
        parent
            * Mat4::from_scale_rotation_translation(
                self.local_scale[j],
                self.local_rotation[j],
                self.local_position[j],
            )
    }

    /// `transform.position`.
    fn position(&self, j: usize) -> Vec3 {
        self.matrix(j).w_axis.truncate()
    }

    /// `transform.rotation`.
    fn rotation(&self, j: usize) -> Quat {
        let parent = self
            .skeleton
            .parent(j)
            .map_or(self.root_rotation, |p| self.rotation(p));
        (parent * self.local_rotation[j]).normalize()
    }

    /// `transform.rotation = q`.
    fn set_rotation(&mut self, j: usize, q: Quat) {
        let parent = self
            .skeleton
            .parent(j)
            .map_or(self.root_rotation, |p| self.rotation(p));
        self.local_rotation[j] = (parent.inverse() * q).normalize();
    }
}

/// One chain bone of the port: its joint, its forward axis (local, Unity's axes) and its `BoneConfig`.
struct PortBone {
    joint: usize,
    forward: Vec3,
    config: UnityLookBone,
}

/// `Bone.lastRotation` and `Bone.smoothWeight`, as a fresh component has them.
#[derive(Clone, Copy)]
struct PortMemory {
    last_rotation: Quat,
    smooth_weight: f32,
}

const FRESH: PortMemory = PortMemory {
    last_rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
    smooth_weight: 0.0,
};

struct Port<'a> {
    bones: &'a [PortBone],
    rotate_speed: f32,
}

impl Port<'_> {
    fn direction(&self, h: &Hierarchy, i: usize) -> Vec3 {
        h.rotation(self.bones[i].joint) * self.bones[i].forward
    }

    /// `IterateTarget(i, …)`: the forward and look-at directions of bone `i + 1`.
    fn iterate_target(&self, h: &Hierarchy, i: usize, lookat_position: Vec3) -> (Vec3, Vec3) {
        let first_bone_position = h.position(self.bones[0].joint);
        let length = lookat_position.distance(first_bone_position);
        let vt_position = first_bone_position + self.direction(h, 0) * length;
        let next_bone_position = h.position(self.bones[i + 1].joint);
        let vt_direction = vt_position - next_bone_position;
        let final_direction = lookat_position - next_bone_position;
        let forward_direction = self.direction(h, i + 1);
        let lookat_direction =
            unity::from_to_rotation(vt_direction, final_direction) * forward_direction;
        (forward_direction, lookat_direction)
    }

    /// `ClampAnglePerBone`.
    fn clamp_angle_per_bone(
        &self,
        h: &mut Hierarchy,
        index: usize,
        forward: Vec3,
        lookat: Vec3,
    ) -> bool {
        let config = &self.bones[index].config;
        let joint = self.bones[index].joint;
        let mut finish = true;
        let limit_hori = config.limit_hori < 90.0;
        let limit_vert = config.limit_vert < 90.0;
        let limit_self = config.limit_self != 0.0;
        if !limit_hori && !limit_vert && !limit_self {
            let look_rotation = unity::from_to_rotation(forward, lookat);
            h.set_rotation(joint, look_rotation * h.rotation(joint));
            return finish;
        }
        let forward_hori_direction = Vec3::new(forward.x, 0.0, forward.z);
        let mut rotation = Quat::IDENTITY;
        if limit_hori {
            let xz_scale = (1.0 / (lookat.x * lookat.x + lookat.z * lookat.z)).sqrt();
            let hori_direction = Vec3::new(xz_scale * lookat.x, 0.0, xz_scale * lookat.z);
            let mut hori_angle = unity::vector_angle(forward_hori_direction, hori_direction);
            let hori_axis = forward_hori_direction.cross(hori_direction);
            if hori_angle > config.limit_hori {
                finish = false;
                hori_angle = config.limit_hori;
            }
            rotation = unity::angle_axis(hori_angle, hori_axis);
        }
        if config.limit_vert < 90.0 {
            let vert_direction = rotation * forward_hori_direction;
            let xz_scale2 = ((1.0 - lookat.y * lookat.y)
                / (vert_direction.x * vert_direction.x + vert_direction.z * vert_direction.z))
                .sqrt();
            let vert_direction2 = Vec3::new(
                xz_scale2 * vert_direction.x,
                lookat.y,
                xz_scale2 * vert_direction.z,
            );
            let mut vert_angle = unity::vector_angle(vert_direction, vert_direction2);
            if vert_angle > config.limit_vert {
                finish = false;
                vert_angle = config.limit_vert;
            }
            rotation =
                unity::angle_axis(vert_angle, vert_direction.cross(vert_direction2)) * rotation;
        }
        let bone_rotation = h.rotation(joint);
        if !finish && config.limit_self != 0.0 {
            let inverse_forward_rotation = unity::from_to_rotation(forward, Vec3::Z);
            let ori_self_rotation = inverse_forward_rotation * bone_rotation;
            // Ours on purpose: the short way (the C#'s angle depends on the quaternion's sign).
            let ori_self_rotation = if ori_self_rotation.w < 0.0 {
                -ori_self_rotation
            } else {
                ori_self_rotation
            };
            let (ori_self_angle, _) = unity::to_angle_axis(ori_self_rotation);
            let actual_direction = rotation * forward;
            let self_rotation =
                unity::angle_axis(ori_self_angle * config.limit_self, actual_direction);
            rotation = self_rotation * rotation;
        }
        h.set_rotation(joint, rotation * bone_rotation);
        finish
    }

    /// `LerpAxisPerBone`.
    fn lerp_axis_per_bone(&self, h: &mut Hierarchy, i: usize, forward: Vec3, lookat: Vec3) -> bool {
        let config = &self.bones[i].config;
        let joint = self.bones[i].joint;
        let rotation = unity::from_to_rotation(forward, lookat);
        if config.limit_weight > 0.0 {
            let (angle, axis) = unity::to_angle_axis(rotation);
            let new_axis = axis.lerp(Vec3::Y, config.limit_weight);
            let new_angle = (angle - unity::vector_angle(axis, new_axis)).min(config.limit_angle);
            let look_rotation = unity::angle_axis(new_angle, new_axis);
            h.set_rotation(joint, look_rotation * h.rotation(joint));
            false
        } else {
            h.set_rotation(joint, rotation * h.rotation(joint));
            true
        }
    }

    /// The chain toward `lookat_position`: returns `boneLimit`, the number of bones reached.
    fn solve(&self, h: &mut Hierarchy, lookat_position: Vec3) -> usize {
        for i in 0..self.bones.len() {
            let (forward, lookat) = if i == 0 {
                let first = self.bones[0].joint;
                (
                    self.direction(h, 0),
                    (lookat_position - h.position(first)).normalize(),
                )
            } else {
                self.iterate_target(h, i - 1, lookat_position)
            };
            let finish = match self.bones[i].config.method {
                UnityLimitMethod::ThreeAxis => self.clamp_angle_per_bone(h, i, forward, lookat),
                UnityLimitMethod::LerpAxis => self.lerp_axis_per_bone(h, i, forward, lookat),
            };
            if finish {
                return i + 1;
            }
        }
        self.bones.len()
    }

    /// `Smooth(boneLimit)`.
    fn smooth(
        &self,
        h: &mut Hierarchy,
        bone_limit: usize,
        memory: &mut [PortMemory],
        delta_time: f32,
    ) {
        for (i, bone) in memory.iter_mut().enumerate().take(bone_limit) {
            let joint = self.bones[i].joint;
            let mut result = h.local_rotation[joint];
            let angle = unity::quaternion_angle(result, bone.last_rotation) as i32;
            if angle > 0 {
                bone.smooth_weight += self
                    .rotate_speed
                    .min(self.bones[i].config.angular_speed * delta_time / 90.0);
                result = unity::lerp(bone.last_rotation, result, bone.smooth_weight);
                h.local_rotation[joint] = result;
            } else {
                bone.smooth_weight = 0.0;
            }
            bone.last_rotation = result;
        }
    }
}

/// Our solver snapped (no smoothing) on a copy of `pose`.
fn ours_snapped(
    rig: &LookAtRig,
    params: &LookAtParams,
    s: &Skeleton,
    target: Vec3,
    pose: &Pose,
) -> Pose {
    let mut out = pose.clone();
    look(
        rig,
        params,
        s,
        target,
        None,
        &mut LookAtState::default(),
        &mut out,
    );
    out
}

/// The worst angle, over the chain's bones, between our model-space rotations and the port's.
fn worst_difference_deg(
    rig: &LookAtRig,
    s: &Skeleton,
    pose: &Pose,
    port: &Hierarchy,
) -> (f32, String) {
    let world = pose.world_rotations(s);
    let mut worst = (0.0f32, String::new());
    for b in &rig.bones {
        let theirs = port.rotation(b.joint);
        let d = mirror_quat(world[b.joint])
            .angle_between(theirs)
            .to_degrees();
        if d > worst.0 {
            worst = (d, s.name(b.joint).to_string());
        }
    }
    worst
}

fn port_bones(rig: &LookAtRig, params: &LookAtParams) -> Vec<PortBone> {
    rig.bones
        .iter()
        .map(|b| PortBone {
            joint: b.joint,
            forward: mirror_vector(b.forward),
            config: params.chain[b.index].unity.clone(),
        })
        .collect()
}

/// The settings compared: the defaults (no limits), and two chains of limits that include a 90 on one axis
/// while the other is limited, the self-roll and the lerped axis.
fn settings() -> Vec<(&'static str, LookAtParams)> {
    let base = LookAtParams {
        enabled: true,
        solver: LookSolver::UnityOriginal,
        eyes: false,
        weight: 1.0,
        ..LookAtParams::default()
    };
    let with = |configs: &[UnityLookBone]| {
        let mut p = base.clone();
        for (bone, config) in p.chain.iter_mut().zip(configs) {
            bone.unity = config.clone();
        }
        p
    };
    let three = UnityLookBone::three_axis;
    let limits = with(&[
        three(30.0, 90.0),
        three(45.0, 20.0),
        three(90.0, 25.0),
        UnityLookBone::default(),
    ]);
    let mixed = with(&[
        UnityLookBone {
            method: UnityLimitMethod::LerpAxis,
            limit_weight: 0.4,
            limit_angle: 50.0,
            ..UnityLookBone::default()
        },
        UnityLookBone {
            limit_self: 0.5,
            ..three(20.0, 90.0)
        },
        three(60.0, 30.0),
        UnityLookBone::default(),
    ]);
    vec![
        ("defaults", with(&[])),
        ("limits", limits),
        ("lerp axis and self-roll", mixed),
    ]
}

fn characters() -> Vec<(&'static str, ImportedModel)> {
    vec![
        ("mannequin", animtune::demo::mannequin::load()),
        (
            "Quaternius",
            animtune::import::load_file(&common::quaternius()).unwrap(),
        ),
    ]
}

/// A point 1.5 m from the head, `yaw` degrees about +Y from straight ahead (+Z; 180 is behind) and `pitch` up.
fn around_head(head: Vec3, yaw: f32, pitch: f32) -> Vec3 {
    let (y, p) = (yaw.to_radians(), pitch.to_radians());
    head + 1.5 * Vec3::new(y.sin() * p.cos(), p.sin(), y.cos() * p.cos())
}

#[test]
fn unity_original_turns_every_bone_as_the_articles_code_does_all_around_the_head() {
    for (who, m) in characters() {
        let s = &m.character.skeleton;
        let rest = Pose::rest(s);
        let head_joint = m
            .character
            .humanoid
            .joint(animtune::core::HumanBone::Head)
            .unwrap();
        let head = rest.model_matrices(s)[head_joint].w_axis.truncate();
        for (setting, params) in settings() {
            let rig = LookAtRig::bind(&params, &m.character);
            let bones = port_bones(&rig, &params);
            let port = Port {
                bones: &bones,
                rotate_speed: params.rotate_speed,
            };
            let mut worst = (0.0f32, String::new());
            // Every 30° round the head, behind included, and 179°: exactly behind, the head's forward and the
            // target are opposite and the turn's axis (Unity's and ours) depends on rounding noise.
            let yaws = (0..12).map(|k| 15.0 + 30.0 * k as f32).chain([179.0]);
            for yaw in yaws {
                for pitch in [-45.0, 0.0, 30.0] {
                    let target = around_head(head, yaw, pitch);
                    let pose = ours_snapped(&rig, &params, s, target, &rest);
                    let mut h = Hierarchy::new(s, &rest);
                    port.solve(&mut h, mirror_vector(target));
                    let (d, bone) = worst_difference_deg(&rig, s, &pose, &h);
                    if d > worst.0 {
                        worst = (d, format!("{bone}, target at yaw {yaw}° pitch {pitch}°"));
                    }
                }
            }
            assert!(
                worst.0 <= 0.5,
                "{who}, {setting}: {}° off the article's code ({})",
                worst.0,
                worst.1
            );
        }
    }
}

#[test]
fn unity_original_smooths_a_jog_as_the_articles_code_does() {
    let m = animtune::import::load_file(&common::quaternius()).unwrap();
    let s = &m.character.skeleton;
    let clip = m.clips.iter().find(|c| c.name == "Jog_Fwd_Loop").unwrap();
    let binding = clip.bind(s, Some(&m.character.humanoid));
    let head_joint = m
        .character
        .humanoid
        .joint(animtune::core::HumanBone::Head)
        .unwrap();
    for (setting, mut params) in settings() {
        params.rotate_speed = 0.05;
        for (bone, speed) in params.chain.iter_mut().zip([120.0, 60.0, 45.0, 30.0]) {
            bone.unity.angular_speed = speed;
        }
        let rig = LookAtRig::bind(&params, &m.character);
        let bones = port_bones(&rig, &params);
        let port = Port {
            bones: &bones,
            rotate_speed: params.rotate_speed,
        };
        let mut state = LookAtState::default();
        let mut memory = vec![FRESH; bones.len()];
        let dt = 1.0 / 30.0;
        let mut worst = (0.0f32, String::new());
        let mut lag = 0.0f32;
        for frame in 0..12 {
            let time = frame as f32 * dt;
            let mut animated = Pose::rest(s);
            clip.sample_into(&binding, time, Wrap::Loop, &mut animated);
            let head = animated.model_matrices(s)[head_joint].w_axis.truncate();
            // The target swings from the left, round behind, to the right.
            let target = around_head(head, 40.0 + 25.0 * frame as f32, 10.0);
            let mut pose = animated.clone();
            look(&rig, &params, s, target, Some(dt), &mut state, &mut pose);
            let mut h = Hierarchy::new(s, &animated);
            let reached = port.solve(&mut h, mirror_vector(target));
            port.smooth(&mut h, reached, &mut memory, dt);
            let (d, bone) = worst_difference_deg(&rig, s, &pose, &h);
            if d > worst.0 {
                worst = (d, format!("{bone} at frame {frame}"));
            }
            let snapped = ours_snapped(&rig, &params, s, target, &animated);
            lag = lag.max(worst_difference_deg(&rig, s, &snapped, &h).0);
        }
        assert!(
            worst.0 <= 0.5,
            "{setting}: {}° off the article's code ({})",
            worst.0,
            worst.1
        );
        assert!(
            lag > 2.0,
            "{setting}: the smoothing should lag the solve, lagged {lag}°"
        );
    }
}

/// The same through the Evaluator, the path the editor, `pose` and bakes share: a seek to 0 and then frame after
/// frame. Its first evaluation has no time step; the article's first `Update` has a frame's `Time.deltaTime`,
/// its zero `lastRotation` makes that frame take an increment, and the second frame runs at two. Before, ours
/// counted from the second frame and trailed the article by up to 3° over frames 1–11.
#[test]
fn unity_original_smoothing_through_the_evaluator_starts_as_the_article_does() {
    use animtune::eval::{ClockStep, EvalInput, Evaluator, Precision, SourceSpec};
    use animtune::layers::LayerParams;
    let m = animtune::import::load_file(&common::quaternius()).unwrap();
    let s = &m.character.skeleton;
    let index = m
        .clips
        .iter()
        .position(|c| c.name == "Jog_Fwd_Loop")
        .unwrap();
    let clip = &m.clips[index];
    let binding = clip.bind(s, Some(&m.character.humanoid));
    let head_joint = m
        .character
        .humanoid
        .joint(animtune::core::HumanBone::Head)
        .unwrap();
    for rotate_speed in [1.0, 0.05] {
        for (setting, mut params) in settings() {
            params.rotate_speed = rotate_speed;
            for (bone, speed) in params.chain.iter_mut().zip([120.0, 60.0, 45.0, 30.0]) {
                bone.unity.angular_speed = speed;
            }
            let rig = LookAtRig::bind(&params, &m.character);
            let bones = port_bones(&rig, &params);
            let port = Port {
                bones: &bones,
                rotate_speed: params.rotate_speed,
            };
            let mut layers = LayerParams::off();
            layers.look_at = params.clone();
            let mut ev = Evaluator::with_precision(
                &m.character,
                &m.clips,
                SourceSpec::Clip(index),
                layers,
                Precision::Exact,
            );
            let mut memory = vec![FRESH; bones.len()];
            let dt = 1.0 / 30.0;
            let mut worst = (0.0f32, String::new());
            for frame in 0..12 {
                let time = frame as f32 * dt;
                let mut animated = Pose::rest(s);
                clip.sample_into(&binding, time, Wrap::Loop, &mut animated);
                let head = animated.model_matrices(s)[head_joint].w_axis.truncate();
                let target = around_head(head, 40.0 + 25.0 * frame as f32, 10.0);
                let clock = if frame == 0 {
                    ClockStep::Seek(0.0)
                } else {
                    ClockStep::Continue(time)
                };
                let out = ev.evaluate(&EvalInput {
                    clock,
                    blend_point: None,
                    look_target: Some(target),
                    ..Default::default()
                });
                let pose = out.local.clone();
                let mut h = Hierarchy::new(s, &animated);
                let reached = port.solve(&mut h, mirror_vector(target));
                port.smooth(&mut h, reached, &mut memory, dt);
                let (d, bone) = worst_difference_deg(&rig, s, &pose, &h);
                if d > worst.0 {
                    worst = (d, format!("{bone} at frame {frame}"));
                }
            }
            assert!(
                worst.0 <= 0.5,
                "{setting}, rotateSpeed {rotate_speed}: {}° off the article's code ({})",
                worst.0,
                worst.1
            );
        }
    }
}
