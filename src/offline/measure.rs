//! The error metric of every bake and export: the model-space displacement of virtual vertices 3 cm from each
//! joint (ACL's metric), measured over every reference frame and every check pose between them (the source at
//! its keys and midway between keys).

use super::frames::Frames;
use crate::core::{Clip, Pose, Skeleton, Wrap};

pub use crate::core::metric::{VIRTUAL_VERTEX_DISTANCE, max_vertex_error};

/// Largest virtual-vertex error of `clip` (bound by path to `skeleton`) against the reference frames and the
/// check poses, in metres.
pub fn measure(skeleton: &Skeleton, frames: &Frames, clip: &Clip) -> f32 {
    let binding = clip.bind(skeleton, None);
    let mut pose = Pose::rest(skeleton);
    let (mut ma, mut mb) = (Vec::new(), Vec::new());
    let mut worst = 0.0f32;
    let grid = frames.times.iter().zip(&frames.poses);
    let checks = frames.checks.iter().map(|(t, p)| (t, p));
    for (t, reference) in grid.chain(checks) {
        pose.reset_to_rest(skeleton);
        clip.sample_into(&binding, *t, Wrap::Clamp, &mut pose);
        reference.model_matrices_into(skeleton, &mut ma);
        pose.model_matrices_into(skeleton, &mut mb);
        worst = worst.max(max_vertex_error(&ma, &mb));
    }
    worst
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
