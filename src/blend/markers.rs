//! Foot-phase sync as a blend space plays it (`TimeSync::Markers`): each clip's foot-down markers (the start of
//! each of its feet's contacts, as the skate meter finds them, which the Evaluator's node sampler finds from the
//! clip's poses when it binds a space synced on them), and where a follower plays so that it sits at the leader's
//! fraction between matching markers, as Unreal's sync markers are placed on foot-down frames.

/// One foot coming down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootMarker {
    /// Seconds into the clip.
    pub time: f32,
    /// The left foot (else the right).
    pub left: bool,
}

/// Where a follower plays so that it sits at the leader's fraction between matching markers: the leader at
/// `leader_time` of its `leader_duration` is between its markers a and b (cyclically); the follower's time is as
/// far between its own marker of a's foot (the one nearest a in phase) and its next marker of b's foot. Only
/// markers of the feet in `feet` ([left, right]) count. None when either clip lacks them.
pub fn synced_time(
    leader: &[FootMarker],
    leader_duration: f32,
    leader_time: f32,
    follower: &[FootMarker],
    follower_duration: f32,
    feet: [bool; 2],
) -> Option<f32> {
    let counts = |m: &&FootMarker| if m.left { feet[0] } else { feet[1] };
    let lead: Vec<FootMarker> = leader.iter().filter(counts).copied().collect();
    let follow: Vec<FootMarker> = follower.iter().filter(counts).copied().collect();
    let (dl, df) = (leader_duration, follower_duration);
    if lead.is_empty() || follow.is_empty() || dl <= 0.0 || df <= 0.0 {
        return None;
    }
    let t = leader_time.rem_euclid(dl);
    // The leader's last marker at or before t (from the previous cycle when t is before the first), and the next.
    let ia = lead
        .iter()
        .rposition(|m| m.time <= t)
        .unwrap_or(lead.len() - 1);
    let a_time = if lead[ia].time <= t {
        lead[ia].time
    } else {
        lead[ia].time - dl
    };
    let ib = (ia + 1) % lead.len();
    let mut b_time = lead[ib].time;
    while b_time <= a_time {
        b_time += dl;
    }
    let f = ((t - a_time) / (b_time - a_time)).clamp(0.0, 1.0);
    // The follower's marker of a's foot nearest a in phase, then its next marker of b's foot.
    let phase = |time: f32, d: f32| (time / d).rem_euclid(1.0);
    let pa = phase(a_time, dl);
    let distance = |p: f32| {
        let d = (p - pa).abs();
        d.min(1.0 - d)
    };
    let ja = follow
        .iter()
        .enumerate()
        .filter(|(_, m)| m.left == lead[ia].left)
        .min_by(|(_, x), (_, y)| {
            distance(phase(x.time, df)).total_cmp(&distance(phase(y.time, df)))
        })?
        .0;
    let a2 = follow[ja].time;
    let next = (1..=follow.len())
        .map(|k| (ja + k) % follow.len())
        .find(|&j| follow[j].left == lead[ib].left)?;
    let mut b2 = follow[next].time;
    while b2 <= a2 {
        b2 += df;
    }
    Some((a2 + f * (b2 - a2)).rem_euclid(df))
}

/// The foot-down markers of a looping clip of `duration` seconds from its contacts, in time order. A contact that
/// runs through the loop (it starts at the clip's start and another of the same foot ends at its end) came down
/// before the end, so only the later start counts; a foot that never lifts has no marker.
pub fn from_contacts(
    report: &crate::core::contacts::SkateReport,
    duration: f32,
    frame: f32,
) -> Vec<FootMarker> {
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
pub const MARKER_FPS: f32 = 60.0;

/// The foot-down markers of a clip of `duration` seconds on `character` from its model-space pose at each time
/// (`model_at`: the clip sampled with its root motion kept and no layer): its contacts at 60 fps, measured on
/// still ground when its root-motion joint travels from the first pose to the last faster than 5 cm/s, else on
/// the treadmill under it. What the source of a space synced on markers finds for each of its clips.
pub fn from_model_poses(
    character: &crate::core::Character,
    duration: f32,
    model_at: impl FnMut(f32) -> Vec<glam::Mat4>,
) -> Result<Vec<FootMarker>, String> {
    let report = feet_report(character, duration, model_at)?;
    Ok(from_contacts(&report, duration, 1.0 / MARKER_FPS))
}

/// The contacts of a clip of `duration` seconds from its model-space poses, as [`from_model_poses`] measures
/// them (60 fps; still ground when the root-motion joint travels, else the treadmill under the feet): its
/// foot-down markers come from it, and the velocity an in-place clip walks at ([`walk_velocity`]).
pub fn feet_report(
    character: &crate::core::Character,
    duration: f32,
    mut model_at: impl FnMut(f32) -> Vec<glam::Mat4>,
) -> Result<crate::core::contacts::SkateReport, String> {
    let (times, feet) =
        crate::core::contacts::track_feet(character, duration, MARKER_FPS, &mut model_at)?;
    let travels = travels_on_root_motion(character, duration, &mut model_at);
    Ok(crate::core::contacts::measure(
        &times,
        &feet,
        travels.then_some(crate::core::contacts::Ground::RootMotion),
        &crate::core::contacts::ContactSettings::default(),
    ))
}

/// The velocity a clip authored in place walks at (model space, m/s): the opposite of the treadmill its feet
/// stand on in `report`; None when it travels on its root, or no foot is in contact.
pub fn walk_velocity(report: &crate::core::contacts::SkateReport) -> Option<glam::Vec3> {
    match report.ground {
        crate::core::contacts::Ground::Treadmill(v)
            if report.contact_frames > 0 && v.iter().all(|c| c.is_finite()) =>
        {
            Some(-glam::Vec3::from_array(v))
        }
        _ => None,
    }
}

/// Whether the root-motion joint travels faster than 5 cm/s from the first pose to the last, as
/// [`super::root_motion`] measures its average speed (its last sample at Unity's 30 fps grid's end).
fn travels_on_root_motion(
    character: &crate::core::Character,
    duration: f32,
    model_at: &mut impl FnMut(f32) -> Vec<glam::Mat4>,
) -> bool {
    let Some(root) = super::sampler::root_motion_joint(character) else {
        return false;
    };
    if duration <= 0.0 || !duration.is_finite() {
        return false;
    }
    let rate = super::sampler::AVERAGE_SPEED_RATE;
    let frames = (duration * rate).ceil().max(1.0) as usize;
    let last = (frames as f32 / rate).min(duration);
    let at = |m: Vec<glam::Mat4>| m.get(root).map(|m| m.w_axis.truncate());
    let (Some(first), Some(last)) = (at(model_at(0.0)), at(model_at(last))) else {
        return false;
    };
    let velocity = (last - first) / duration;
    velocity.is_finite() && velocity.length() > 0.05
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(time: f32, left: bool) -> FootMarker {
        FootMarker { time, left }
    }

    /// A walk whose left foot lands at 0.1 s and right at 0.6 s (1 s cycle) leads one whose left lands at 0.5 s
    /// and right at 0.9 s (1.2 s cycle): halfway from the leader's left to its right, the follower is halfway
    /// from its left to its right.
    #[test]
    fn a_follower_sits_at_the_leaders_fraction_between_matching_markers() {
        let lead = [m(0.1, true), m(0.6, false)];
        let follow = [m(0.5, true), m(0.9, false)];
        let both = [true, true];
        let t = synced_time(&lead, 1.0, 0.35, &follow, 1.2, both).unwrap();
        assert!((t - 0.7).abs() < 1e-6, "{t}");
        // From the right foot down to the next left (across the loop): 0.6 → 1.1 for the leader, 0.9 → 1.7 for
        // the follower; at 0.85 (halfway) the follower is at 1.3, i.e. 0.1 into its next cycle.
        let t = synced_time(&lead, 1.0, 0.85, &follow, 1.2, both).unwrap();
        assert!((t - 0.1).abs() < 1e-5, "{t}");
        // Before the leader's first marker (0.8 of the way from the previous cycle's right at −0.4 to this left),
        // the follower is 0.8 of the way from its right to its next left: 0.9 + 0.8 × 0.8 − 1.2.
        let t = synced_time(&lead, 1.0, 0.0, &follow, 1.2, both).unwrap();
        assert!((t - (0.9 + 0.8 * 0.8 - 1.2)).abs() < 1e-5, "{t}");
        // At a marker, the follower is at its matching marker.
        let t = synced_time(&lead, 1.0, 0.6, &follow, 1.2, both).unwrap();
        assert!((t - 0.9).abs() < 1e-6, "{t}");
    }

    #[test]
    fn only_common_feet_count_and_missing_markers_give_none() {
        let lead = [m(0.1, true), m(0.6, false)];
        let follow = [m(0.5, true), m(0.9, false)];
        // Left only: from the leader's left (0.1) to its next left (1.1), a quarter of the way at 0.35; the
        // follower's left 0.5 → 1.7, a quarter of the way at 0.8.
        let t = synced_time(&lead, 1.0, 0.35, &follow, 1.2, [true, false]).unwrap();
        assert!((t - 0.8).abs() < 1e-6, "{t}");
        assert_eq!(synced_time(&lead, 1.0, 0.3, &[], 1.2, [true, true]), None);
        assert_eq!(
            synced_time(&lead, 1.0, 0.3, &[m(0.2, false)], 1.2, [true, false]),
            None
        );
    }

    #[test]
    fn markers_come_from_contact_starts_and_a_contact_through_the_loop_counts_once() {
        use crate::core::contacts::{FootContacts, Ground, SkateReport, Speeds};
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
        let m = |time, left| FootMarker { time, left };
        assert_eq!(markers, vec![m(0.2, false), m(0.7, true)]);
    }
}
