//! The error metric of every bake and export: the model-space displacement of virtual vertices 3 cm from each
//! joint (ACL's metric), measured over every reference frame and every check pose between them (the source at
//! its keys and midway between keys).

use super::compact::{RotationInterp, nlerp};
use super::frames::Frames;
use crate::core::clip::Interpolation;
use crate::core::{Clip, ClipBinding, Pose, Skeleton, Wrap};

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
    if reading == RotationInterp::Both {
        return measure_reading(skeleton, frames, clip, RotationInterp::Slerp).max(
            measure_reading(skeleton, frames, clip, RotationInterp::Nlerp),
        );
    }
    let binding = clip.bind(skeleton, None);
    worst_over_frames(skeleton, frames, |t, pose| {
        pose.reset_to_rest(skeleton);
        clip.sample_into(&binding, t, Wrap::Clamp, pose);
        if reading == RotationInterp::Nlerp {
            read_rotations_by_nlerp(clip, &binding, clip.wrap_time(t, Wrap::Clamp), pose);
        }
        true
    })
}

/// The largest virtual-vertex error, over the reference frames and the check poses, of the poses `pose_at(t,
/// pose)` writes for their times; infinite when it returns false (it could not pose that time).
fn worst_over_frames(
    skeleton: &Skeleton,
    frames: &Frames,
    mut pose_at: impl FnMut(f32, &mut Pose) -> bool,
) -> f32 {
    let mut pose = Pose::rest(skeleton);
    let (mut ma, mut mb) = (Vec::new(), Vec::new());
    let mut worst = 0.0f32;
    let grid = frames.times.iter().zip(&frames.poses);
    let checks = frames.checks.iter().map(|(t, p)| (t, p));
    for (t, reference) in grid.chain(checks) {
        if !pose_at(*t, &mut pose) {
            return f32::INFINITY;
        }
        reference.model_matrices_into(skeleton, &mut ma);
        pose.model_matrices_into(skeleton, &mut mb);
        worst = worst.max(max_vertex_error(&ma, &mb));
    }
    worst
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

/// The error of `clip` as the player plays it: compiled for `skeleton` by the runtime, as the editor, `pose` and
/// `render` compile what they open, and sampled at the reference frames and check poses.
pub fn measure_player(skeleton: &Skeleton, frames: &Frames, clip: &Clip) -> f32 {
    use crate::runtime::{Animation, SamplingContext, SamplingJob};
    let (animation, _) = Animation::bind(clip, skeleton, None);
    let mut context = SamplingContext::for_animation(&animation);
    worst_over_frames(skeleton, frames, |t, pose| {
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

/// How far a clip's end is from its start on `character`, in metres at the virtual vertices: what Unity's loop
/// match lights show (green when the end meets the start). The root's horizontal travel does not count (a walk
/// ends where it moved to); its height and every rotation do.
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
    if let Some(root) = crate::blend::sampler::root_motion_joint(character) {
        let (s, e) = (
            start.local[root].translation,
            &mut end.local[root].translation,
        );
        e.x = s.x;
        e.z = s.z;
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
}
