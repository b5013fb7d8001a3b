//! Foot-phase markers of a clip measured through the Evaluator (the finding itself, from contacts, is
//! [`crate::blend::markers`], which a space synced on markers calls when it is bound).

pub use crate::blend::markers::{FootMarker, from_contacts, from_model_poses};

/// The foot-down markers of `clip` on `character`, sampled exact through the Evaluator with every layer off (the
/// markers a blend space synced on them plays this clip at).
pub fn clip_markers(
    character: &crate::core::Character,
    clip: &crate::core::Clip,
) -> Result<Vec<FootMarker>, String> {
    use crate::eval::{ClockStep, EvalInput, Evaluator};
    let mut ev = Evaluator::for_clip_exact(character, clip);
    ev.clock_mut().set_looping(false);
    from_model_poses(character, clip.duration, |t| {
        ev.evaluate(&EvalInput {
            clock: ClockStep::Seek(t),
            ..EvalInput::default()
        })
        .model
        .clone()
    })
}
