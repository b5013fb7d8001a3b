//! Foot-phase markers: when each foot comes down in a clip (the start of each of its contacts, as the skate meter
//! finds them), the events a blend space aligns its clips on with [`crate::blend::TimeSync::Markers`] (the timing
//! itself is [`crate::blend::markers`]), as Unreal's sync markers are placed on foot-down frames.

use super::contacts::SkateReport;

pub use crate::blend::markers::FootMarker;

/// The foot-down markers of a looping clip of `duration` seconds from its contacts, in time order. A contact that
/// runs through the loop (it starts at the clip's start and another of the same foot ends at its end) came down
/// before the end, so only the later start counts; a foot that never lifts has no marker.
pub fn from_contacts(report: &SkateReport, duration: f32, frame: f32) -> Vec<FootMarker> {
    let mut out = Vec::new();
    for foot in &report.feet {
        let left = foot.human_bone.starts_with("Left");
        let c = &foot.contacts;
        let wraps = c.len() >= 2
            && c.first().is_some_and(|f| f[0] <= frame)
            && c.last().is_some_and(|l| l[1] >= duration - frame);
        let whole = c.len() == 1 && c[0][0] <= frame && c[0][1] >= duration - frame;
        if whole {
            continue;
        }
        for (i, interval) in c.iter().enumerate() {
            if wraps && i == 0 {
                continue;
            }
            out.push(FootMarker {
                time: interval[0],
                left,
            });
        }
    }
    out.sort_by(|a, b| a.time.total_cmp(&b.time));
    out
}

/// The rate feet are tracked at to find markers.
const MARKER_FPS: f32 = 60.0;

/// The foot-down markers of a clip of `duration` seconds on `character` from its model-space pose at each time
/// (`model_at`: the clip sampled with its root motion kept and no layer): its contacts at 60 fps, measured on
/// still ground when its root-motion joint travels from the first pose to the last faster than 5 cm/s, else on
/// the treadmill under it. What the source of a space synced on markers finds for each of its clips.
pub fn from_model_poses(
    character: &crate::core::Character,
    duration: f32,
    mut model_at: impl FnMut(f32) -> Vec<glam::Mat4>,
) -> Result<Vec<FootMarker>, String> {
    let (times, feet) =
        super::contacts::track_feet(character, duration, MARKER_FPS, &mut model_at)?;
    let travels = travels_on_root_motion(character, duration, &mut model_at);
    let report = super::contacts::measure(
        &times,
        &feet,
        travels.then_some(super::Ground::RootMotion),
        &super::ContactSettings::default(),
    );
    Ok(from_contacts(&report, duration, 1.0 / MARKER_FPS))
}

/// Whether the root-motion joint travels faster than 5 cm/s from the first pose to the last, as
/// [`super::root_motion`] measures its average speed (its last sample at Unity's 30 fps grid's end).
fn travels_on_root_motion(
    character: &crate::core::Character,
    duration: f32,
    model_at: &mut impl FnMut(f32) -> Vec<glam::Mat4>,
) -> bool {
    let Some(root) = crate::blend::sampler::root_motion_joint(character) else {
        return false;
    };
    if duration <= 0.0 || !duration.is_finite() {
        return false;
    }
    let rate = super::root_motion::SAMPLE_RATE;
    let frames = (duration * rate).ceil().max(1.0) as usize;
    let last = (frames as f32 / rate).min(duration);
    let at = |m: Vec<glam::Mat4>| m.get(root).map(|m| m.w_axis.truncate());
    let (Some(first), Some(last)) = (at(model_at(0.0)), at(model_at(last))) else {
        return false;
    };
    let velocity = (last - first) / duration;
    velocity.is_finite() && velocity.length() > 0.05
}

/// The foot-down markers of `clip` on `character`, sampled exact through the Evaluator with every layer off (the
/// markers a blend space synced on them plays this clip at).
pub fn clip_markers(
    character: &crate::core::Character,
    clip: &crate::core::Clip,
) -> Result<Vec<FootMarker>, String> {
    use crate::eval::{ClockStep, EvalInput, Evaluator};
    let mut ev = Evaluator::for_clip_exact(character, clip);
    ev.set_looping(false);
    from_model_poses(character, clip.duration, |t| {
        ev.evaluate(&EvalInput {
            clock: ClockStep::Seek(t),
            ..EvalInput::default()
        })
        .model
        .clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(time: f32, left: bool) -> FootMarker {
        FootMarker { time, left }
    }

    #[test]
    fn markers_come_from_contact_starts_and_a_contact_through_the_loop_counts_once() {
        use super::super::contacts::{FootContacts, Ground, Speeds};
        let report = SkateReport {
            skate_ratio: 0.0,
            planted_speed_cm_s: Speeds::default(),
            ground: Ground::RootMotion,
            contact_frames: 0,
            feet: vec![
                FootContacts {
                    human_bone: "LeftFoot",
                    joint: "l".into(),
                    contacts: vec![[0.0, 0.2], [0.7, 1.0]],
                },
                FootContacts {
                    human_bone: "RightFoot",
                    joint: "r".into(),
                    contacts: vec![[0.2, 0.65]],
                },
            ],
        };
        let markers = from_contacts(&report, 1.0, 1.0 / 60.0);
        assert_eq!(markers, vec![m(0.2, false), m(0.7, true)]);
    }
}
