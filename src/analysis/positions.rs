//! Unity's blend tree Compute Positions: each node placed from its clip's root motion ([`super::root_motion`]),
//! as a Unity user reads it: x toward the character's right (−X in glTF's axes, +X in Unity's), y forward (+Z).
//! - Velocity XZ (2D): x = velocity to the right, y = velocity forward (m/s);
//! - Speed (1D): the velocity's length (m/s);
//! - Angular Speed (1D): the turn rate about +Y (rad/s);
//! - Speed and Angular Speed (2D): x = the turn rate, y = the speed.
//!
//! The axes are named after the values and widened to hold them. Refused when the values do not vary (every node
//! would land on one point: clips authored in place have no root motion to read).
//!
//! Also Adjust Time Scale → Homogeneous Speed ([`homogeneous_speed`]): each moving node's time scale set so that its
//! clip moves at its node's speed.

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
}

/// `space` with its nodes placed by `kind` from their clips' root motion on `character` (clips found by name in
/// `clips`); an error names what cannot be read or why the values do not serve.
pub fn compute_positions(
    space: &BlendSpace,
    character: &Character,
    clips: &[Clip],
    kind: ComputePositions,
) -> Result<BlendSpace, String> {
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
    for node in &mut out.nodes {
        let clip = clips
            .iter()
            .find(|c| c.name == node.clip)
            .ok_or_else(|| format!("node clip '{}' is not loaded", node.clip))?;
        let r = super::root_motion(character, clip)
            .ok_or_else(|| format!("clip '{}' has no length to read motion from", node.clip))?;
        let [vx, _, vz] = r.velocity.map(f64::from);
        let (speed, turn) = (f64::from(r.speed), f64::from(r.angular_speed));
        node.position = match kind {
            ComputePositions::VelocityXz => [-vx, vz],
            ComputePositions::Speed => [speed, 0.0],
            ComputePositions::AngularSpeed => [turn, 0.0],
            ComputePositions::SpeedAndAngularSpeed => [turn, speed],
        };
    }
    let varies = |axis: usize| {
        let values = out.nodes.iter().map(|n| n.position[axis]);
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
        hi - lo > 1e-3
    };
    if out.nodes.len() < 2 || !(varies(0) || (kind.is_2d() && varies(1))) {
        return Err(format!(
            "the clips' {} does not vary (clips played in place have no root motion to read): positions unchanged",
            kind.name().to_lowercase()
        ));
    }
    let names: [&str; 2] = match kind {
        ComputePositions::VelocityXz => ["Velocity X (right, m/s)", "Velocity Z (forward, m/s)"],
        ComputePositions::Speed => ["Speed", ""],
        ComputePositions::AngularSpeed => ["Angular Speed", ""],
        ComputePositions::SpeedAndAngularSpeed => ["Angular Speed", "Speed"],
    };
    for (a, axis) in out
        .axes
        .iter_mut()
        .enumerate()
        .take(if kind.is_2d() { 2 } else { 1 })
    {
        axis.name = names[a].to_string();
        let (lo, hi) = out
            .nodes
            .iter()
            .map(|n| n.position[a])
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                (l.min(v), h.max(v))
            });
        let margin = 0.1 * (hi - lo).max(0.1);
        axis.min = axis.min.min(lo - margin);
        axis.max = axis.max.max(hi + margin);
    }
    Ok(out)
}

/// The speed a clip moves at (m/s): its root motion's average speed, or for a clip authored in place the speed its
/// planted feet move back at; None when it stands still (under 5 cm/s) or its feet cannot be tracked.
pub fn clip_speed(character: &Character, clip: &Clip) -> Option<f64> {
    let root = super::root_motion(character, clip).map_or(0.0, |r| f64::from(r.speed));
    let speed = if root >= STILL_M_S {
        root
    } else {
        f64::from(super::contacts::in_place_velocity(character, clip)?.length())
    };
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
    let mut out = space.clone();
    let mut changed = 0;
    for node in &mut out.nodes {
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
        .unwrap();
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
        .unwrap();
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
