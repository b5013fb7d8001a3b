//! Unity's blend tree Compute Positions: each node placed from how its clip moves, as a Unity user reads it: x
//! toward the character's right (−X in glTF's axes, +X in Unity's), y forward (+Z).
//! - Velocity XZ (2D): x = velocity to the right, y = velocity forward (m/s);
//! - Speed (1D): the velocity's length (m/s);
//! - Angular Speed (1D): the turn rate about +Y (rad/s);
//! - Speed and Angular Speed (2D): x = the turn rate, y = the speed.
//!
//! A clip whose root travels (its horizontal average speed at least 5 cm/s) is read from its root motion
//! ([`super::root_motion`], Unity's `Motion.averageSpeed`). A clip authored in place (its root drifts less) is read
//! from its feet: its velocity is the one its planted feet move back at ([`super::contacts::in_place_velocity`], the
//! skate meter's treadmill), so an in-place walk, jog and sprint land at their walking speeds and an idle at 0; its
//! turn rate stays its root's. An in-place clip whose feet cannot be tracked keeps its root motion's values.
//!
//! Positions are rounded to 1e-3 (mm/s, mrad/s). The axes are named after the values and widened to hold them (a
//! range of values that are never negative is not widened below 0), their ends rounded alike. Refused, with the
//! reason, when the values do not vary by 0.05 or more (every node would land on one point), naming the in-place
//! clips whose feet could not be read.
//!
//! Also Adjust Time Scale → Homogeneous Speed ([`homogeneous_speed`]): each moving node's time scale set so that its
//! clip moves at its node's speed.

use super::CANCELLED;
use crate::blend::{BlendMode, BlendSpace};
use crate::core::{Character, Clip};

/// What Compute Positions reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputePositions {
    /// Velocity x and z.
    VelocityXz,
    /// Speed.
    Speed,
    /// Turn rate.
    AngularSpeed,
    /// Turn rate and speed.
    SpeedAndAngularSpeed,
}

impl ComputePositions {
    /// Every kind, in Unity's order.
    pub const ALL: [ComputePositions; 4] = [
        ComputePositions::VelocityXz,
        ComputePositions::Speed,
        ComputePositions::AngularSpeed,
        ComputePositions::SpeedAndAngularSpeed,
    ];

    /// As Unity's menu names it.
    pub fn name(self) -> &'static str {
        match self {
            ComputePositions::VelocityXz => "Velocity XZ",
            ComputePositions::Speed => "Speed",
            ComputePositions::AngularSpeed => "Angular Speed",
            ComputePositions::SpeedAndAngularSpeed => "Speed and Angular Speed",
        }
    }

    /// True when it places nodes on a plane (a 2D space), false on a line (1D).
    pub fn is_2d(self) -> bool {
        matches!(
            self,
            ComputePositions::VelocityXz | ComputePositions::SpeedAndAngularSpeed
        )
    }

    /// True when it reads a velocity or a speed (which an in-place clip's feet give), false for the turn rate alone.
    fn reads_speed(self) -> bool {
        self != ComputePositions::AngularSpeed
    }
}

/// `v` rounded to 1e-3: the precision positions and axis ends are given at (mm/s, mrad/s), so that the editor
/// shows 0.924, not 0.9239770770072937, and -0.01, not -0.010000000000000002.
pub fn rounded(v: f64) -> f64 {
    let r = (v * 1000.0).round() / 1000.0;
    if r == 0.0 { 0.0 } else { r }
}

/// Nodes placed by Compute Positions, and how their clips were read.
#[derive(Clone, Debug, PartialEq)]
pub struct Computed {
    /// The space with its nodes placed and its axes named and widened.
    pub space: BlendSpace,
    /// The clips authored in place that were read from their feet, in node order (each once).
    pub by_feet: Vec<String>,
    /// The clips authored in place whose feet could not be read, so their (near zero) root motion was used.
    pub unread: Vec<String>,
}

/// How one clip moves, as Compute Positions reads it.
struct Motion {
    /// (right, forward), m/s.
    velocity: [f64; 2],
    speed: f64,
    /// Turn rate about +Y, rad/s.
    turn: f64,
    /// True when it is authored in place.
    in_place: bool,
    /// True when its velocity and speed come from its feet.
    by_feet: bool,
}

/// How `clip` moves on `character`: by its root motion when its root travels, else (`feet` asked) by its feet.
fn motion(character: &Character, clip: &Clip, feet: bool) -> Result<Motion, String> {
    let r = super::root_motion(character, clip)
        .ok_or_else(|| format!("clip '{}' has no length to read motion from", clip.name))?;
    let [vx, _, vz] = r.velocity.map(f64::from);
    let mut m = Motion {
        velocity: [-vx, vz],
        speed: f64::from(r.speed),
        turn: f64::from(r.angular_speed),
        in_place: vx.hypot(vz) < STILL_M_S,
        by_feet: false,
    };
    if m.in_place
        && feet
        && let Some(v) = super::contacts::in_place_velocity(character, clip)
            .filter(|v| v.is_finite())
            .map(|v| v.as_dvec3())
    {
        m.velocity = [-v.x, v.z];
        m.speed = v.x.hypot(v.z);
        m.by_feet = true;
    }
    Ok(m)
}

/// `space` with its nodes placed by `kind` from how their clips move on `character` (clips found by name in
/// `clips`): by root motion, or for clips authored in place by their feet; an error names what cannot be read or
/// why the values do not serve.
pub fn compute_positions(
    space: &BlendSpace,
    character: &Character,
    clips: &[Clip],
    kind: ComputePositions,
) -> Result<Computed, String> {
    compute_positions_with_progress(space, character, clips, kind, &mut |_, _| true)
}

/// [`compute_positions`], calling `progress(nodes done, nodes)` after each node; it stops with an error when
/// `progress` returns false.
pub fn compute_positions_with_progress(
    space: &BlendSpace,
    character: &Character,
    clips: &[Clip],
    kind: ComputePositions,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Computed, String> {
    if kind.is_2d() != space.mode.is_2d() {
        return Err(format!(
            "{} places nodes on {}, and this is a {} space",
            kind.name(),
            if kind.is_2d() { "a plane" } else { "a line" },
            if space.mode == BlendMode::OneD {
                "1D"
            } else {
                "2D"
            }
        ));
    }
    let mut out = space.clone();
    let mut by_feet: Vec<String> = Vec::new();
    let mut unread: Vec<String> = Vec::new();
    let total = out.nodes.len();
    for (done, node) in out.nodes.iter_mut().enumerate() {
        if !progress(done, total) {
            return Err(CANCELLED.to_string());
        }
        let clip = clips
            .iter()
            .find(|c| c.name == node.clip)
            .ok_or_else(|| format!("node clip '{}' is not loaded", node.clip))?;
        let m = motion(character, clip, kind.reads_speed())?;
        let list = if m.by_feet {
            Some(&mut by_feet)
        } else if m.in_place && kind.reads_speed() {
            Some(&mut unread)
        } else {
            None
        };
        if let Some(list) = list.filter(|l| !l.contains(&node.clip)) {
            list.push(node.clip.clone());
        }
        let position = match kind {
            ComputePositions::VelocityXz => m.velocity,
            ComputePositions::Speed => [m.speed, 0.0],
            ComputePositions::AngularSpeed => [m.turn, 0.0],
            ComputePositions::SpeedAndAngularSpeed => [m.turn, m.speed],
        };
        node.position = position.map(rounded);
    }
    let range = |axis: usize| {
        out.nodes
            .iter()
            .map(|n| n.position[axis])
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                (l.min(v), h.max(v))
            })
    };
    let varies = |axis: usize| {
        let (lo, hi) = range(axis);
        hi - lo >= STILL_M_S
    };
    if out.nodes.len() < 2 || !(varies(0) || (kind.is_2d() && varies(1))) {
        let why = if unread.is_empty() {
            "every node would land on one point".to_string()
        } else {
            let quoted: Vec<String> = unread.iter().map(|c| format!("'{c}'")).collect();
            format!(
                "{} {} authored in place and {} feet cannot be read",
                quoted.join(", "),
                if unread.len() == 1 { "is" } else { "are" },
                if unread.len() == 1 { "its" } else { "their" }
            )
        };
        return Err(format!(
            "the clips' {} does not vary by {STILL_M_S} or more ({why}): positions unchanged",
            kind.name().to_lowercase()
        ));
    }
    let names: [&str; 2] = match kind {
        ComputePositions::VelocityXz => ["Velocity X (right, m/s)", "Velocity Z (forward, m/s)"],
        ComputePositions::Speed => ["Speed", ""],
        ComputePositions::AngularSpeed => ["Angular Speed", ""],
        ComputePositions::SpeedAndAngularSpeed => ["Angular Speed", "Speed"],
    };
    let ranges = [range(0), range(1)];
    let used = if kind.is_2d() { 2 } else { 1 };
    for ((axis, name), (lo, hi)) in out.axes.iter_mut().zip(names).zip(ranges).take(used) {
        let margin = 0.1 * (hi - lo).max(0.1);
        let below = if lo >= 0.0 {
            (lo - margin).max(0.0)
        } else {
            lo - margin
        };
        axis.name = name.to_string();
        axis.min = rounded(axis.min.min(below));
        axis.max = rounded(axis.max.max(hi + margin));
    }
    Ok(Computed {
        space: out,
        by_feet,
        unread,
    })
}

/// The speed a clip moves at (m/s), as Compute Positions reads it: its root motion's average speed, or for a clip
/// authored in place the speed its planted feet move back at; None when it stands still (under 5 cm/s) or it is
/// authored in place and its feet cannot be read.
pub fn clip_speed(character: &Character, clip: &Clip) -> Option<f64> {
    let m = motion(character, clip, true).ok()?;
    let speed = (!m.in_place || m.by_feet).then_some(m.speed)?;
    (speed.is_finite() && speed >= STILL_M_S).then_some(speed)
}

/// Speed (m/s) under which a clip or a node counts as standing still.
const STILL_M_S: f64 = 0.05;

/// Unity's Adjust Time Scale → Homogeneous Speed, as animtune reads it (Unity's manual says only that the speeds
/// are rescaled to correspond with the parameter's values): each node whose clip moves and which sits away from the
/// origin gets the time scale that makes its clip move at its node's speed (its distance from the origin on
/// velocity or speed axes), so that at every node the feet keep pace with the parameter; other nodes keep theirs.
/// Refused, with the reason, when no node both moves and sits away from the origin.
pub fn homogeneous_speed(
    space: &BlendSpace,
    character: &Character,
    clips: &[Clip],
) -> Result<BlendSpace, String> {
    homogeneous_speed_with_progress(space, character, clips, &mut |_, _| true)
}

/// [`homogeneous_speed`], calling `progress(nodes done, nodes)` after each node; it stops with an error when
/// `progress` returns false.
pub fn homogeneous_speed_with_progress(
    space: &BlendSpace,
    character: &Character,
    clips: &[Clip],
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<BlendSpace, String> {
    let mut out = space.clone();
    let mut changed = 0;
    let total = out.nodes.len();
    for (done, node) in out.nodes.iter_mut().enumerate() {
        if !progress(done, total) {
            return Err(CANCELLED.to_string());
        }
        let clip = clips
            .iter()
            .find(|c| c.name == node.clip)
            .ok_or_else(|| format!("node clip '{}' is not loaded", node.clip))?;
        let [x, y] = node.position;
        let wanted = if space.mode.is_2d() {
            (x * x + y * y).sqrt()
        } else {
            x.abs()
        };
        let Some(speed) = clip_speed(character, clip) else {
            continue;
        };
        if wanted < STILL_M_S {
            continue;
        }
        node.time_scale = (wanted / speed).clamp(0.01, crate::blend::space::MAX_TIME_SCALE);
        changed += 1;
    }
    if changed == 0 {
        return Err(
            "no node's clip moves (by root motion or by its feet) at a node away from the origin: time scales \
             unchanged"
                .to_string(),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Homogeneous Speed on the mannequin's space placed by Velocity XZ: every walk already sits at its own speed,
    /// so its scale stays 1; moved to twice its distance, a node plays twice as fast; the idle keeps 1.
    #[test]
    fn homogeneous_speed_makes_each_clip_move_at_its_nodes_speed() {
        let model = crate::demo::mannequin::load();
        let space = crate::demo::locomotion::default_blend_space();
        let placed = compute_positions(
            &space,
            &model.character,
            &model.clips,
            ComputePositions::VelocityXz,
        )
        .unwrap()
        .space;
        let even = homogeneous_speed(&placed, &model.character, &model.clips).unwrap();
        for n in &even.nodes {
            assert!((n.time_scale - 1.0).abs() < 0.05, "{n:?}");
        }
        let mut far = placed.clone();
        let walk = far
            .nodes
            .iter()
            .position(|n| n.clip == "WalkForward")
            .unwrap();
        far.nodes[walk].position = far.nodes[walk].position.map(|v| 2.0 * v);
        let scaled = homogeneous_speed(&far, &model.character, &model.clips).unwrap();
        assert!(
            (scaled.nodes[walk].time_scale - 2.0).abs() < 0.1,
            "{:?}",
            scaled.nodes[walk]
        );
        let idle = scaled.nodes.iter().find(|n| n.clip == "Idle").unwrap();
        assert_eq!(idle.time_scale, 1.0);
    }

    /// The mannequin's default space holds walks in eight directions on their own root motion: Velocity XZ puts
    /// each where its root goes (forward up, backward down, a strafe to the right on the right); a kind for the
    /// other dimension is refused.
    #[test]
    fn velocity_xz_places_the_mannequins_walks_where_their_roots_go() {
        let model = crate::demo::mannequin::load();
        let space = crate::demo::locomotion::default_blend_space();
        let out = compute_positions(
            &space,
            &model.character,
            &model.clips,
            ComputePositions::VelocityXz,
        )
        .unwrap()
        .space;
        let at = |clip: &str| {
            out.nodes
                .iter()
                .find(|n| n.clip == clip)
                .map(|n| n.position)
                .unwrap()
        };
        let forward = at("WalkForward");
        let backward = at("WalkBackward");
        let right = at("StrafeRight");
        assert!(
            forward[1] > 0.3 && forward[0].abs() < 0.1 * forward[1],
            "{forward:?}"
        );
        assert!(backward[1] < -0.3, "{backward:?}");
        assert!(right[0] > 0.3, "{right:?}");
        let refused = compute_positions(
            &space,
            &model.character,
            &model.clips,
            ComputePositions::Speed,
        );
        assert!(refused.unwrap_err().contains("a line"));
    }
}
