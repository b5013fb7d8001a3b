//! Curves of one joint's local channels over a clip or a blend cycle: the source pose, and the pose after each
//! layer in stack order (clip layers → foot lock → breath → look-at → twist → springs), so that what each layer adds can be seen (the
//! editor's curves view, Blender's Graph Editor and Unity's Curves view being the models).
//!
//! Each stage is a copy of the caller's [`Evaluator`] (same source, root motion and blend point) with the layers
//! up to that stage on, played forward from the first time as a bake plays it: look-at's smoothing runs as it
//! does in playback.

use glam::{EulerRot, Quat, Vec3};

use super::{ClockStep, EvalInput, Evaluator};
use crate::core::{Character, Clip, Transform};
use crate::layers::LayerParams;

/// Most samples a curve holds (a long clip is sampled more sparsely).
pub const MAX_CURVE_SAMPLES: usize = 2000;

/// A point in the layer stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The clip or blend, before any layer.
    Source,
    /// After the clip layers.
    Clips,
    /// After foot lock.
    FootLock,
    /// After breath.
    Breath,
    /// After breath and look-at.
    LookAt,
    /// After breath, look-at and twist correction.
    Twist,
    /// After every layer and the spring bones (stepped from the first time, as a bake steps them).
    Springs,
}

impl Stage {
    /// The stage's name, as the curves view labels it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Source => "source",
            Stage::Clips => "+ clip layers",
            Stage::FootLock => "+ foot lock",
            Stage::Breath => "+ breath",
            Stage::LookAt => "+ look-at",
            Stage::Twist => "+ twist",
            Stage::Springs => "+ springs",
        }
    }

    /// `layers` with only the layers up to this stage kept on (those off stay off).
    pub fn layers(self, layers: &LayerParams) -> LayerParams {
        let mut l = layers.clone();
        if self == Stage::Source {
            l.clips.clear();
        }
        l.foot_lock.enabled &= !matches!(self, Stage::Source | Stage::Clips);
        l.breath.enabled &= !matches!(self, Stage::Source | Stage::Clips | Stage::FootLock);
        l.look_at.enabled &= matches!(self, Stage::LookAt | Stage::Twist | Stage::Springs);
        l.twist.enabled &= matches!(self, Stage::Twist | Stage::Springs);
        l.springs.enabled &= self == Stage::Springs;
        l
    }
}

/// One stage's local transforms of the joint, one per sample time.
#[derive(Clone, Debug, PartialEq)]
pub struct StageCurve {
    /// Which stage.
    pub stage: Stage,
    /// The joint's local transform at each time.
    pub local: Vec<Transform>,
}

/// A joint's curves: the source and every stage an enabled layer adds, the last being the final pose.
#[derive(Clone, Debug, PartialEq)]
pub struct JointCurves {
    /// The joint (index into the skeleton).
    pub joint: usize,
    /// Sample times (seconds of the clip, or of the blend cycle).
    pub times: Vec<f32>,
    /// The source first, then one stage per enabled layer, in stack order.
    pub stages: Vec<StageCurve>,
}

impl JointCurves {
    /// The source stage.
    pub fn source(&self) -> &StageCurve {
        &self.stages[0]
    }

    /// The final stage (the source when no layer is on).
    pub fn final_stage(&self) -> &StageCurve {
        &self.stages[self.stages.len() - 1]
    }
}

/// Sample times over `[0, duration]` at `fps`, the last at the end, at most [`MAX_CURVE_SAMPLES`].
pub fn curve_times(duration: f32, fps: f32) -> Vec<f32> {
    if !(duration.is_finite() && duration > 0.0) {
        return vec![0.0];
    }
    let fps = if fps.is_finite() && fps > 0.0 {
        fps
    } else {
        30.0
    };
    let intervals = ((duration * fps).ceil() as usize).clamp(1, MAX_CURVE_SAMPLES - 1);
    (0..=intervals)
        .map(|k| duration * k as f32 / intervals as f32)
        .collect()
}

/// The curves of `joint` under `eval`'s source, root motion and blend point, at `times` (ascending): the source
/// pose and the pose after each enabled layer of `eval`'s layers (the clip layers together, bound to `clips`). `look_target` replaces the look-at target as
/// in [`EvalInput`]. An out-of-range joint gives no stages.
pub fn joint_curves(
    eval: &Evaluator,
    character: &Character,
    clips: &[Clip],
    look_target: Option<Vec3>,
    joint: usize,
    times: &[f32],
) -> JointCurves {
    let layers = eval.layer_stage().params().clone();
    let mut stages = vec![Stage::Source];
    stages.extend(
        [
            (
                Stage::Clips,
                crate::layers::clip_layer::playing(&layers.clips).contains(&true),
            ),
            (
                Stage::FootLock,
                layers.foot_lock.enabled && eval.layer_stage().rig().foot_lock.problem.is_none(),
            ),
            (Stage::Breath, layers.breath.enabled),
            (Stage::LookAt, layers.look_at.enabled),
            (Stage::Twist, layers.twist.enabled),
            (
                Stage::Springs,
                layers.springs.enabled && !eval.layer_stage().rig().springs.is_empty(),
            ),
        ]
        .into_iter()
        .filter_map(|(s, on)| on.then_some(s)),
    );
    if joint >= character.skeleton.len() {
        stages.clear();
    }
    let stages = stages
        .into_iter()
        .map(|stage| {
            let mut ev = eval.clone();
            ev.clock_mut().set_play_range(None);
            ev.set_layers(character, clips, &stage.layers(&layers));
            let local = times
                .iter()
                .enumerate()
                .map(|(k, &t)| {
                    let clock = if k == 0 {
                        ClockStep::Seek(t)
                    } else {
                        ClockStep::Continue(t)
                    };
                    let out = ev.evaluate(&EvalInput {
                        clock,
                        blend_point: None,
                        look_target,
                        ..Default::default()
                    });
                    out.local.local[joint]
                })
                .collect();
            StageCurve { stage, local }
        })
        .collect();
    JointCurves {
        joint,
        times: times.to_vec(),
        stages,
    }
}

/// What a curve shows of a local transform.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Channel {
    /// Translation x, y, z in metres.
    Translation,
    /// Rotation as Euler angles in degrees, Blender's default XYZ mode (about the parent's fixed axes, X first),
    /// unwrapped so that no curve jumps by 360°.
    #[default]
    Euler,
    /// Rotation as the quaternion's x, y, z, w, each sample on the previous one's hemisphere.
    Quaternion,
    /// Scale x, y, z.
    Scale,
}

impl Channel {
    /// Every channel, in the order the curves view offers them.
    pub const ALL: [Channel; 4] = [
        Channel::Translation,
        Channel::Euler,
        Channel::Quaternion,
        Channel::Scale,
    ];

    /// The channel's name and unit.
    pub fn name(self) -> &'static str {
        match self {
            Channel::Translation => "Translation (m)",
            Channel::Euler => "Rotation (Euler XYZ, °)",
            Channel::Quaternion => "Rotation (quaternion)",
            Channel::Scale => "Scale",
        }
    }

    /// The components' names.
    pub fn components(self) -> &'static [&'static str] {
        match self {
            Channel::Quaternion => &["x", "y", "z", "w"],
            _ => &["x", "y", "z"],
        }
    }
}

/// Euler angles in degrees (x, y, z) of `q` in Blender's XYZ mode: `q = Rz(z)·Ry(y)·Rx(x)`.
pub fn euler_xyz_degrees(q: Quat) -> [f64; 3] {
    let (z, y, x) = q.to_euler(EulerRot::ZYX);
    [x, y, z].map(|a| f64::from(a).to_degrees())
}

/// The values of `channel` over `local`: one list per component, one value per sample.
pub fn channel_values(local: &[Transform], channel: Channel) -> Vec<Vec<f64>> {
    let n = channel.components().len();
    let mut out: Vec<Vec<f64>> = vec![Vec::with_capacity(local.len()); n];
    let mut previous: Option<Quat> = None;
    for t in local {
        let values: Vec<f64> = match channel {
            Channel::Translation => t.translation.to_array().map(f64::from).to_vec(),
            Channel::Scale => t.scale.to_array().map(f64::from).to_vec(),
            Channel::Quaternion => {
                let q = match previous {
                    Some(p) if p.dot(t.rotation) < 0.0 => -t.rotation,
                    _ => t.rotation,
                };
                previous = Some(q);
                q.to_array().map(f64::from).to_vec()
            }
            Channel::Euler => euler_xyz_degrees(t.rotation).to_vec(),
        };
        for (c, v) in values.into_iter().enumerate() {
            let v = match (channel, out[c].last()) {
                (Channel::Euler, Some(&before)) => v + 360.0 * ((before - v) / 360.0).round(),
                _ => v,
            };
            out[c].push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::SourceSpec;

    #[test]
    fn euler_angles_follow_blenders_xyz_mode() {
        let (x, y, z) = (0.3f32, -0.7f32, 1.1f32);
        let q = Quat::from_rotation_z(z) * Quat::from_rotation_y(y) * Quat::from_rotation_x(x);
        let e = euler_xyz_degrees(q);
        for (got, want) in e.iter().zip([x, y, z]) {
            assert!((got - f64::from(want).to_degrees()).abs() < 1e-4, "{e:?}");
        }
    }

    #[test]
    fn euler_curves_are_unwrapped_and_quaternions_kept_on_one_hemisphere() {
        // A turn about X from 150° to 210°: wrapped angles jump from 180 to -180.
        let local: Vec<Transform> = (0..=6)
            .map(|k| Transform {
                rotation: Quat::from_rotation_x((150.0 + 10.0 * k as f32).to_radians()),
                ..Transform::IDENTITY
            })
            .collect();
        let x = &channel_values(&local, Channel::Euler)[0];
        for (k, v) in x.iter().enumerate() {
            assert!((v - (150.0 + 10.0 * k as f64)).abs() < 1e-3, "{x:?}");
        }
        let flipped: Vec<Transform> = local
            .iter()
            .enumerate()
            .map(|(k, t)| Transform {
                rotation: if k % 2 == 1 { -t.rotation } else { t.rotation },
                ..*t
            })
            .collect();
        let w = &channel_values(&flipped, Channel::Quaternion)[3];
        assert!(
            w.windows(2).all(|p| (p[0] - p[1]).abs() < 0.1),
            "one hemisphere: {w:?}"
        );
    }

    #[test]
    fn look_at_changes_the_heads_final_curve_and_not_its_source() {
        let crate::import::ImportedModel { character, clips } = crate::demo::mannequin::load();
        let head = character
            .humanoid
            .joint(crate::core::HumanBone::Head)
            .unwrap();
        let mut layers = LayerParams::off();
        let ev = Evaluator::new(&character, &clips, SourceSpec::Clip(0), layers.clone());
        let times = curve_times(ev.duration(), 30.0);
        let plain = joint_curves(&ev, &character, &clips, None, head, &times);
        assert_eq!(plain.stages.len(), 1, "no layer on: the source only");
        layers.look_at.enabled = true;
        layers.look_at.target = [1.0, 1.7, 0.5];
        let mut ev = ev.clone();
        ev.set_layers(&character, &clips, &layers);
        let looked = joint_curves(&ev, &character, &clips, None, head, &times);
        assert_eq!(
            looked.stages.iter().map(|s| s.stage).collect::<Vec<_>>(),
            [Stage::Source, Stage::LookAt]
        );
        assert_eq!(looked.source(), plain.source(), "the source is untouched");
        let turned = looked
            .final_stage()
            .local
            .iter()
            .zip(&plain.source().local)
            .map(|(a, b)| a.rotation.angle_between(b.rotation).to_degrees())
            .fold(0.0f32, f32::max);
        assert!(turned > 5.0, "the head turns: {turned}°");
    }

    /// Foot lock is a stage of its own, after the clip layers and before breath: the source stage is the clip
    /// as it plays without it, and the knee's curve changes at the foot-lock stage.
    #[test]
    fn foot_lock_has_its_own_stage_and_leaves_the_source_alone() {
        let crate::import::ImportedModel { character, clips } = crate::demo::mannequin::load();
        let walk = clips.iter().position(|c| c.name == "WalkForward").unwrap();
        let knee = character
            .humanoid
            .joint(crate::core::HumanBone::LeftLowerLeg)
            .unwrap();
        let ev = Evaluator::new(
            &character,
            &clips,
            SourceSpec::Clip(walk),
            LayerParams::off(),
        );
        let times = curve_times(ev.duration(), 30.0);
        let plain = joint_curves(&ev, &character, &clips, None, knee, &times);
        let mut layers = LayerParams::off();
        layers.foot_lock.enabled = true;
        layers.breath.enabled = true;
        let mut ev = ev.clone();
        ev.set_layers(&character, &clips, &layers);
        let locked = joint_curves(&ev, &character, &clips, None, knee, &times);
        assert_eq!(
            locked.stages.iter().map(|s| s.stage).collect::<Vec<_>>(),
            [Stage::Source, Stage::FootLock, Stage::Breath]
        );
        assert_eq!(
            locked.source(),
            plain.source(),
            "the source is the clip alone"
        );
        let bent = locked.stages[1]
            .local
            .iter()
            .zip(&plain.source().local)
            .map(|(a, b)| a.rotation.angle_between(b.rotation).to_degrees())
            .fold(0.0f32, f32::max);
        assert!(bent > 0.5, "foot lock bends the knee: {bent}°");
    }

    #[test]
    fn curve_times_cover_the_span_and_are_bounded() {
        let t = curve_times(1.1, 30.0);
        assert_eq!((t[0], *t.last().unwrap()), (0.0, 1.1));
        assert_eq!(t.len(), 34);
        assert_eq!(curve_times(1e6, 30.0).len(), MAX_CURVE_SAMPLES);
        assert_eq!(curve_times(0.0, 30.0), [0.0]);
    }
}
