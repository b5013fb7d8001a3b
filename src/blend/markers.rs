//! Foot-phase sync as a blend space plays it (`TimeSync::Markers`): each clip's foot-down markers (found by
//! `analysis::foot_markers` and handed to the sampler by whoever binds the space), and where a follower plays
//! so that it sits at the leader's fraction between matching markers, as Unreal's sync markers.

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
}
