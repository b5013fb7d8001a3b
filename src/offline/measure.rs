//! The error metric of every bake and export: the model-space displacement of virtual vertices 3 cm from each
//! joint (ACL's metric), measured over every reference frame and every check pose between them (the source at
//! its keys and at a quarter, half and three quarters of the way between consecutive keys and between
//! consecutive frames, [`super::frames::CHECK_FRACTIONS`]: nlerp parts from slerp most near the quarters).
//!
//! Contract: the figure is the one a bake's budget is checked against and its report states. The model-space
//! transforms are composed in f64 from the poses' f32 values (rotations as the unit quaternions they stand for),
//! so the figure does not move with the rounding of a long chain: composed in f32 it was up to 5e-6 m low on
//! Fox.glb (a rig some 100 units long), a twentieth of the default budget.

use glam::{DMat4, DVec3};

use super::compact::{RotationInterp, nlerp};
use super::frames::Frames;
use crate::core::clip::Interpolation;
use crate::core::{Clip, ClipBinding, Pose, Skeleton, Transform, Wrap};

pub use crate::core::metric::{VIRTUAL_VERTEX_DISTANCE, max_vertex_error};

/// Largest virtual-vertex error of `clip` (bound by path to `skeleton`) against the reference frames and the
/// check poses, in metres.
pub fn measure(skeleton: &Skeleton, frames: &Frames, clip: &Clip) -> f32 {
    measure_reading(skeleton, frames, clip, RotationInterp::Slerp)
}

/// [`measure`] with the rotation keys read by `reading`: slerp (glTF's definition, three.js, animtune's exact
/// sampling), nlerp (Blender's glTF importer, Unity, ozz, ACL), or the worse of the two.
pub fn measure_reading(
    skeleton: &Skeleton,
    frames: &Frames,
    clip: &Clip,
    reading: RotationInterp,
) -> f32 {
    Reference::new(skeleton, frames).reading(clip, reading)
}

/// The error of `clip` as the player plays it: compiled for `skeleton` by the runtime, as the editor, `pose` and
/// `render` compile what they open, and sampled at the reference frames and check poses.
pub fn measure_player(skeleton: &Skeleton, frames: &Frames, clip: &Clip) -> f32 {
    Reference::new(skeleton, frames).player(clip)
}

/// What a bake is measured against, computed once for every candidate: the times of the reference frames and
/// check poses, and the model-space virtual vertices of each of those poses.
pub struct Reference<'a> {
    skeleton: &'a Skeleton,
    times: Vec<f32>,
    /// Per time, per joint and axis: the virtual vertex in the joint's frame (3 cm in model units whatever the
    /// joint's scale) and where the reference pose puts it in model space.
    vertices: Vec<Vec<(DVec3, DVec3)>>,
}

impl<'a> Reference<'a> {
    /// The reference of `frames` (their grid, then their check poses) on `skeleton`.
    pub fn new(skeleton: &'a Skeleton, frames: &Frames) -> Self {
        let grid = frames.times.iter().zip(&frames.poses);
        let checks = frames.checks.iter().map(|(t, p)| (t, p));
        let mut model = Vec::new();
        let (times, vertices) = grid
            .chain(checks)
            .map(|(&t, pose)| {
                model_matrices_f64(skeleton, pose, &mut model);
                let at = model
                    .iter()
                    .flat_map(|m| {
                        [DVec3::X, DVec3::Y, DVec3::Z].map(|axis| {
                            let len = m.transform_vector3(axis).length().max(1e-12);
                            let local = axis * (f64::from(VIRTUAL_VERTEX_DISTANCE) / len);
                            (local, m.transform_point3(local))
                        })
                    })
                    .collect();
                (t, at)
            })
            .unzip();
        Reference {
            skeleton,
            times,
            vertices,
        }
    }

    /// [`measure_reading`] against this reference.
    pub fn reading(&self, clip: &Clip, reading: RotationInterp) -> f32 {
        if reading == RotationInterp::Both {
            return self
                .reading(clip, RotationInterp::Slerp)
                .max(self.reading(clip, RotationInterp::Nlerp));
        }
        let skeleton = self.skeleton;
        let binding = clip.bind(skeleton, None);
        self.worst(|t, pose| {
            pose.reset_to_rest(skeleton);
            clip.sample_into(&binding, t, Wrap::Clamp, pose);
            if reading == RotationInterp::Nlerp {
                read_rotations_by_nlerp(clip, &binding, clip.wrap_time(t, Wrap::Clamp), pose);
            }
            true
        })
    }

    /// [`measure_player`] against this reference.
    pub fn player(&self, clip: &Clip) -> f32 {
        use crate::runtime::{Animation, SamplingContext, SamplingJob};
        let (animation, _) = Animation::bind(clip, self.skeleton, None);
        let mut context = SamplingContext::for_animation(&animation);
        self.worst(|t, pose| {
            SamplingJob {
                animation: &animation,
                context: &mut context,
                time: clip.wrap_time(t, Wrap::Clamp),
                output: &mut pose.local,
            }
            .run()
            .is_ok()
        })
    }

    /// The largest virtual-vertex displacement (metres), over the reference's times, of the poses `pose_at(t,
    /// pose)` writes for them; infinite when it returns false (it could not pose that time).
    fn worst(&self, mut pose_at: impl FnMut(f32, &mut Pose) -> bool) -> f32 {
        let mut pose = Pose::rest(self.skeleton);
        let mut model = Vec::new();
        let mut worst = 0.0f64;
        for (&t, vertices) in self.times.iter().zip(&self.vertices) {
            if !pose_at(t, &mut pose) {
                return f32::INFINITY;
            }
            model_matrices_f64(self.skeleton, &pose, &mut model);
            for (m, v) in model.iter().zip(vertices.chunks_exact(3)) {
                for &(local, at) in v {
                    worst = worst.max(m.transform_point3(local).distance(at));
                }
            }
        }
        worst as f32
    }
}

/// [`crate::core::transform::compose`] in f64, of the unit rotation the local one stands for: the model matrix
/// of a joint whose parent's is `parent`.
fn compose_f64(parent: &DMat4, local: &Transform) -> DMat4 {
    let q = local.rotation.as_dquat().normalize();
    let (x2, y2, z2) = (q.x + q.x, q.y + q.y, q.z + q.z);
    let (xx, xy, xz) = (q.x * x2, q.x * y2, q.x * z2);
    let (yy, yz, zz) = (q.y * y2, q.y * z2, q.z * z2);
    let (wx, wy, wz) = (q.w * x2, q.w * y2, q.w * z2);
    let s = local.scale.as_dvec3();
    let t = local.translation.as_dvec3();
    let (px, py, pz, pw) = (parent.x_axis, parent.y_axis, parent.z_axis, parent.w_axis);
    let col = |a: f64, b: f64, c: f64| px * a + py * b + pz * c;
    DMat4::from_cols(
        col((1.0 - (yy + zz)) * s.x, (xy + wz) * s.x, (xz - wy) * s.x),
        col((xy - wz) * s.y, (1.0 - (xx + zz)) * s.y, (yz + wx) * s.y),
        col((xz + wy) * s.z, (yz - wx) * s.z, (1.0 - (xx + yy)) * s.z),
        px * t.x + py * t.y + pz * t.z + pw,
    )
}

/// Model-space matrix of every joint of `pose`, in f64.
fn model_matrices_f64(skeleton: &Skeleton, pose: &Pose, out: &mut Vec<DMat4>) {
    out.clear();
    let root = skeleton.root_transform().as_dmat4();
    for (j, local) in pose.local.iter().enumerate().take(skeleton.len()) {
        let parent = skeleton.parent(j).map_or(root, |p| out[p]);
        out.push(compose_f64(&parent, local));
    }
}

/// Replaces the rotations of `pose` that linear rotation keys of `clip` drive directly (no retargeting) by the
/// nlerp of the two keys around `t`.
fn read_rotations_by_nlerp(clip: &Clip, binding: &ClipBinding, t: f32, pose: &mut Pose) {
    for (track, bound) in clip.tracks.iter().zip(&binding.tracks) {
        let (Some(b), Some(keys)) = (bound, &track.rotation) else {
            continue;
        };
        if b.retarget.is_some() || keys.interpolation() != Interpolation::Linear || keys.len() < 2 {
            continue;
        }
        let times = keys.times();
        let k = times.partition_point(|&x| x <= t);
        if k == 0 || k >= times.len() {
            continue;
        }
        let (t0, t1) = (times[k - 1], times[k]);
        let u = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
        let values = keys.values();
        pose.local[b.joint].rotation = nlerp(values[k - 1], values[k], u);
    }
}

/// The seam a spring bake leaves where it loops: over the spring joints, the largest distance (metres) between
/// a tail's offset from its joint in the last frame and in the first, in model space. None when the layers
/// simulate no springs or there are fewer than two frames.
pub fn spring_seam(
    character: &crate::core::Character,
    layers: &crate::layers::LayerParams,
    frames: &super::Frames,
) -> Option<f32> {
    let (first, last) = (frames.poses.first()?, frames.poses.last()?);
    if !layers.springs.enabled || frames.poses.len() < 2 {
        return None;
    }
    let rig = crate::layers::SpringRig::bind(&layers.springs, character);
    if rig.is_empty() {
        return None;
    }
    let offsets = |pose: &crate::core::Pose| {
        let model = pose.model_matrices(&character.skeleton);
        rig.tails(&model)
            .into_iter()
            .map(|(j, tail, _)| tail - model[j].w_axis.truncate())
            .collect::<Vec<_>>()
    };
    offsets(first)
        .iter()
        .zip(offsets(last))
        .map(|(a, b)| a.distance(b))
        .reduce(f32::max)
}

/// The displacement of a 3 cm virtual point of each joint (but `except`, a joint a pass moves on purpose), in
/// metres, between `source` as it plays on `character` and `out` (a clip made from it, bound by path), at each of
/// `times`: how far a pass that makes a clip from a clip moved what it should not.
pub fn point_errors(
    character: &crate::core::Character,
    source: &Clip,
    out: &Clip,
    times: &[f32],
    except: Option<usize>,
) -> Vec<f32> {
    let skeleton = &character.skeleton;
    let reference =
        super::frames::sample_frames(source, skeleton, Some(&character.humanoid), times.to_vec());
    let binding = out.bind(skeleton, None);
    let mut pose = Pose::rest(skeleton);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    reference
        .times
        .iter()
        .zip(&reference.poses)
        .map(|(&t, before)| {
            pose.reset_to_rest(skeleton);
            out.sample_into(&binding, t, Wrap::Clamp, &mut pose);
            before.model_matrices_into(skeleton, &mut a);
            pose.model_matrices_into(skeleton, &mut b);
            if let Some(j) = except.filter(|&j| j < a.len()) {
                b[j] = a[j];
            }
            crate::core::metric::max_vertex_error(&a, &b)
        })
        .collect()
}

/// How far a clip's end is from its start on `character`, in metres at the virtual vertices: what Unity's loop
/// match lights show (green when the end meets the start). The horizontal travel of the hips and of the joints
/// above them (a root joint) does not count (a walk ends where it moved to); heights and every rotation do.
pub fn loop_match(character: &crate::core::Character, clip: &Clip) -> f32 {
    use crate::eval::{ClockStep, EvalInput, Evaluator};
    let mut ev = Evaluator::for_clip(character, clip);
    let mut pose_at = |t: f32| {
        ev.evaluate(&EvalInput {
            clock: ClockStep::Seek(t),
            ..EvalInput::default()
        })
        .local
        .clone()
    };
    let start = pose_at(0.0);
    let mut end = pose_at(clip.duration);
    // The hips and the joints above them (a root joint extracted travel went to).
    let mut travelling = crate::blend::sampler::root_motion_joint(character);
    while let Some(joint) = travelling {
        let (s, e) = (
            start.local[joint].translation,
            &mut end.local[joint].translation,
        );
        e.x = s.x;
        e.z = s.z;
        travelling = character.skeleton.parent(joint);
    }
    max_vertex_error(
        &start.model_matrices(&character.skeleton),
        &end.model_matrices(&character.skeleton),
    )
}

#[cfg(test)]
mod tests {
    use crate::core::ClipSettings;

    #[test]
    fn loop_pose_closes_the_loop_that_a_crop_opens() {
        let model = crate::demo::mannequin::load();
        let walk = model
            .clips
            .iter()
            .find(|c| c.name == "WalkForward")
            .unwrap();
        let whole = super::loop_match(&model.character, walk);
        assert!(whole < 1e-3, "the mannequin's walk loops: {whole} m");
        // Its travel extracted onto an added root joint: that travel does not count either.
        let extract = crate::core::clip_pass::RootPass::Extract {
            components: crate::core::clip_pass::RootComponents::TRAVEL,
            basis: crate::core::clip_pass::RootBasis::Hips,
            lock: crate::core::clip_pass::RootLock::Reference,
        };
        let out =
            crate::offline::root_pass::run_root_pass(&model.character, walk, &extract).unwrap();
        let rooted = out.character.as_ref().unwrap();
        let on_root = super::loop_match(rooted, &out.clip);
        assert!(on_root < 1e-3, "extracted onto a root: {on_root} m");
        let crop = ClipSettings {
            start: Some(0.1),
            end: Some(0.8),
            ..Default::default()
        };
        let cropped = crop.apply(walk).unwrap();
        let open = super::loop_match(&model.character, &cropped);
        assert!(open > 0.01, "a cropped walk does not loop: {open} m");
        let closed = ClipSettings {
            loop_pose: true,
            ..crop
        }
        .apply(walk)
        .unwrap();
        let fixed = super::loop_match(&model.character, &closed);
        assert!(fixed < 1e-4, "loop pose closes it: {fixed} m (was {open})");
    }

    /// A knee 45 cm above its ankle turning 60° about x between keys 1/30 s apart, and back.
    fn knee_kick() -> (crate::core::Skeleton, crate::core::Clip) {
        use crate::core::skeleton::JointDef;
        use crate::core::{Clip, Interpolation, Keys, Track, TrackTarget, Transform};
        let joint = |name: &str, parent: Option<usize>, y: f32| JointDef {
            name: name.into(),
            parent,
            rest: Transform {
                translation: glam::Vec3::new(0.0, y, 0.0).into(),
                ..Transform::IDENTITY
            },
            deforms: true,
        };
        let joints = vec![joint("knee", None, 0.5), joint("ankle", Some(0), -0.45)];
        let skeleton = crate::core::Skeleton::new(joints, glam::Mat4::IDENTITY).unwrap();
        let values = [0.0f32, 60.0, 0.0]
            .iter()
            .map(|d| glam::Quat::from_rotation_x(d.to_radians()))
            .collect();
        let keys = Keys::new(
            vec![0.0, 1.0 / 30.0, 2.0 / 30.0],
            values,
            Interpolation::Linear,
        );
        let track = Track {
            target: TrackTarget {
                rest: skeleton.rest()[0],
                ..TrackTarget::at_identity("knee")
            },
            translation: None,
            rotation: Some(keys.unwrap()),
            scale: None,
        };
        (skeleton, Clip::new("kick", vec![track]))
    }

    /// The source's own keys read by nlerp part from the source near a quarter of the way between keys 60°
    /// apart, not midway: the measure reads them there.
    #[test]
    fn the_nlerp_reading_is_measured_a_quarter_of_the_way_between_keys() {
        use super::super::compact::RotationInterp;
        let (skeleton, clip) = knee_kick();
        let settings = crate::offline::BakeSettings::default();
        let (frames, _) = crate::offline::frames::prepare(&skeleton, None, &clip, &settings);
        let reference = super::Reference::new(&skeleton, &frames);
        let slerp = reference.reading(&clip, RotationInterp::Slerp);
        let nlerp = reference.reading(&clip, RotationInterp::Nlerp);
        assert!(
            slerp < 1e-7,
            "read by slerp the keys are the source: {slerp} m"
        );
        // 0.26° of parting a quarter of the way, 48 cm from the knee (the ankle's farthest virtual vertex).
        assert!((0.0019..0.0023).contains(&nlerp), "{nlerp} m");
        let mut midway = frames.clone();
        midway
            .checks
            .retain(|(t, _)| ((t * 60.0).round() - t * 60.0).abs() < 1e-3);
        assert_eq!(midway.checks.len(), 2);
        let blind = super::Reference::new(&skeleton, &midway).reading(&clip, RotationInterp::Nlerp);
        assert!(blind < 1e-6, "midway nlerp and slerp agree: {blind} m");
    }
}
