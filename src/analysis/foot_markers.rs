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

/// The foot-down markers of `clip` on `character` (its contacts at 60 fps, root motion kept).
pub fn clip_markers(
    character: &crate::core::Character,
    clip: &crate::core::Clip,
) -> Result<Vec<FootMarker>, String> {
    let fps = 60.0;
    let report = super::contacts::clip_skate(
        character,
        clip,
        fps,
        &super::ContactSettings::default(),
        None,
    )?;
    Ok(from_contacts(&report, clip.duration, 1.0 / fps))
}

/// Every node's foot-down markers for a space synced on them (empty where a node's clip is missing or its feet
/// cannot be tracked), in node order: what [`crate::eval::Evaluator::set_sync_markers`] takes.
pub fn for_space(
    character: &crate::core::Character,
    clips: &[crate::core::Clip],
    space: &crate::blend::BlendSpace,
) -> Vec<Vec<FootMarker>> {
    space
        .nodes
        .iter()
        .map(|n| {
            clips
                .iter()
                .find(|c| c.name == n.clip)
                .and_then(|c| clip_markers(character, c).ok())
                .unwrap_or_default()
        })
        .collect()
}

/// Hands `ev` the foot-down markers of what it plays that syncs on them: its blend space's nodes, or each blend
/// state of its state machine (what `pose`, `bake` and the editor call after binding a source).
pub fn hand_to(
    ev: &mut crate::eval::Evaluator,
    character: &crate::core::Character,
    clips: &[crate::core::Clip],
) {
    if let Some(space) = ev
        .blend_space()
        .filter(|s| s.sync == crate::blend::TimeSync::Markers)
    {
        let markers = for_space(character, clips, space);
        ev.set_sync_markers(markers);
    }
    let states: Vec<(usize, Vec<Vec<FootMarker>>)> = ev
        .machine_marker_spaces()
        .into_iter()
        .map(|(s, space)| (s, for_space(character, clips, space)))
        .collect();
    for (s, markers) in states {
        ev.set_state_sync_markers(s, markers);
    }
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
