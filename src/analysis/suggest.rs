//! "New space from clips": a starting blend space laid out from a character's clips. Each clip is placed by its
//! name (idle, walk, run, jog, sprint, strafe, forward, back, left, right) and by the horizontal root speed it
//! measures (for a gait authored in place, its name's direction at the speed its planted feet move back at); clips
//! that say nothing about locomotion (a T-pose, a jump) are left out and listed.
//!
//! Clips that all move forward (or stand) give a 1D space over speed; any sideways or backward clip gives a 2D
//! Freeform Directional space over velocity, right and forward in m/s, like Unity's locomotion blend trees.

use glam::Vec3;

use crate::blend::sampler::{root_motion_joint, root_travel};
use crate::blend::{BlendAxis, BlendMode, BlendNode, BlendSpace, RootMotion, TimeSync};
use crate::core::{Character, Clip};

/// Root speed (m/s) below which a clip counts as standing still, measured.
pub const STILL_SPEED: f32 = 0.2;
/// Speed given to a walk whose root does not travel (an in-place clip), m/s.
pub const NOMINAL_WALK: f32 = 1.4;
/// Speed given to a jog whose root does not travel, m/s.
pub const NOMINAL_JOG: f32 = 2.5;
/// Speed given to a run whose root does not travel, m/s.
pub const NOMINAL_RUN: f32 = 3.5;
/// Speed given to a sprint whose root does not travel, m/s.
pub const NOMINAL_SPRINT: f32 = 5.5;

/// What a clip's name says about its gait.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NamedGait {
    /// Nominal speed in m/s (0 for an idle).
    pub speed: f32,
    /// Unit direction as (right, forward).
    pub direction: [f32; 2],
}

/// Where one clip went, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The clip's name.
    pub clip: String,
    /// Its node position: (speed, 0) in 1D, (right, forward) velocity in 2D.
    pub position: [f64; 2],
    /// The horizontal root speed measured over its cycle, m/s.
    pub measured_speed: f32,
    /// True when the position comes from the measured root velocity (for an in-place gait, the speed its planted
    /// feet move back at), false when from the name.
    pub measured: bool,
}

/// A suggested space and how it was made.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    /// The blend space.
    pub space: BlendSpace,
    /// Each node's clip and how it was placed, in node order.
    pub placed: Vec<Placement>,
    /// Clips left out: neither their name nor their root motion says how they move, or it names an action
    /// (a jump, an attack) rather than a gait.
    pub left_out: Vec<String>,
    /// Clips left out as variants of a gait already placed at the same point (`Walking_B` beside `Walking_A`):
    /// stacked nodes would split the weight between them and hide one another on the canvas.
    pub variants: Vec<String>,
}

/// The lower-case words of a clip name: split at non-letters and at lower→upper case changes
/// ("WalkForward_Left" → walk, forward, left).
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if !ch.is_alphabetic() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = ch.is_lowercase();
        word.extend(ch.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Words that make a clip an action, not a gait, whatever else its name says ("Jump_Idle", "Walk_Attack").
const ACTIONS: &[&str] = &[
    "jump", "land", "fall", "attack", "hit", "death", "die", "dead", "roll", "punch", "kick",
    "shoot", "reload", "sit", "sitting", "interact", "pickup", "pick", "spell", "throw", "cast",
    "emote", "dance", "climb", "swim",
];

/// Reads a gait from a clip name, or None when the name names no locomotion (or names an action).
pub fn gait_from_name(name: &str) -> Option<NamedGait> {
    let words = words(name);
    let has = |w: &[&str]| words.iter().any(|x| w.contains(&x.as_str()));
    if has(ACTIONS) {
        return None;
    }
    let speed = if has(&["sprint"]) {
        NOMINAL_SPRINT
    } else if has(&["run", "running"]) {
        NOMINAL_RUN
    } else if has(&["jog", "jogging", "trot"]) {
        NOMINAL_JOG
    } else if has(&["walk", "walking", "strafe", "strafing"]) {
        NOMINAL_WALK
    } else if has(&["idle", "stand", "standing", "breathing"]) {
        return Some(NamedGait {
            speed: 0.0,
            direction: [0.0, 1.0],
        });
    } else {
        return None;
    };
    let mut right = 0.0f32;
    let mut forward = 0.0f32;
    if has(&["left"]) {
        right -= 1.0;
    }
    if has(&["right"]) {
        right += 1.0;
    }
    if has(&["back", "backward", "backwards", "bwd"]) {
        forward -= 1.0;
    }
    if has(&["forward", "forwards", "fwd"]) || (forward == 0.0 && right == 0.0) {
        forward += 1.0;
    }
    let len = (right * right + forward * forward).sqrt();
    Some(NamedGait {
        speed,
        direction: [right / len, forward / len],
    })
}

/// Horizontal root velocity of a clip over its cycle as (right, forward), m/s: model +Z is forward and the
/// character's right is −X.
fn measured_velocity(character: &Character, clip: &Clip) -> [f32; 2] {
    let Some(root) = root_motion_joint(character) else {
        return [0.0, 0.0];
    };
    let binding = clip.bind(&character.skeleton, Some(&character.humanoid));
    let v: Vec3 = root_travel(&character.skeleton, clip, &binding, root) / clip.duration.max(1e-3);
    [-v.x, v.z]
}

/// The velocity an in-place clip walks at, as (right, forward) m/s (the skate meter's treadmill, reversed).
fn feet_velocity(character: &Character, clip: &Clip) -> Option<[f32; 2]> {
    super::contacts::in_place_velocity(character, clip).map(|v| [-v.x, v.z])
}

/// A round upper end for an axis holding values up to `max`.
fn axis_end(max: f64) -> f64 {
    let max = max.max(1.0) * 1.1;
    (max * 2.0).ceil() / 2.0
}

/// Lays out a blend space over `clips` (their names, else their measured root speed), or explains why none can.
pub fn space_from_clips(character: &Character, clips: &[Clip]) -> Result<Suggestion, String> {
    let mut placed: Vec<(Placement, [f32; 2])> = Vec::new();
    let mut left_out = Vec::new();
    let mut variants = Vec::new();
    for (i, clip) in clips.iter().enumerate() {
        let name = if clip.name.is_empty() {
            format!("clip {i}")
        } else {
            clip.name.clone()
        };
        if placed.iter().any(|(p, _)| p.clip == name) {
            continue;
        }
        let named = gait_from_name(&name);
        let actions = words(&name).iter().any(|w| ACTIONS.contains(&w.as_str()));
        let mut velocity = measured_velocity(character, clip);
        let still = |v: [f32; 2]| (v[0] * v[0] + v[1] * v[1]).sqrt() < STILL_SPEED;
        if let Some(g) = named.filter(|g| still(velocity) && g.speed > 0.0 && !actions) {
            // An in-place gait: its name's direction at the speed its planted feet move back at (the skate meter's
            // treadmill; only its size, since which way a character faces in its own space is not known).
            if let Some(v) = feet_velocity(character, clip) {
                let speed = (v[0] * v[0] + v[1] * v[1]).sqrt();
                velocity = [g.direction[0] * speed, g.direction[1] * speed];
            }
        }
        let speed = (velocity[0] * velocity[0] + velocity[1] * velocity[1]).sqrt();
        let (vel, measured) = match named {
            // An idle stays at the origin even if it sways.
            Some(g) if g.speed == 0.0 => ([0.0, 0.0], false),
            _ if speed >= STILL_SPEED && speed.is_finite() && !actions => (velocity, true),
            Some(g) => ([g.direction[0] * g.speed, g.direction[1] * g.speed], false),
            None => {
                left_out.push(name);
                continue;
            }
        };
        // A second clip of a gait already placed there (a variant, placed by its name) is kept out.
        let same_place = |(p, v): &(Placement, [f32; 2])| {
            !measured && !p.measured && (v[0] - vel[0]).abs() < 1e-3 && (v[1] - vel[1]).abs() < 1e-3
        };
        if placed.iter().any(same_place) {
            variants.push(name);
            continue;
        }
        placed.push((
            Placement {
                clip: name,
                position: [0.0, 0.0],
                measured_speed: speed,
                measured,
            },
            vel,
        ));
    }
    if placed.is_empty() {
        return Err(format!(
            "no clip is named like a gait (idle, walk, run, strafe…) or moves its root: {}",
            if left_out.is_empty() {
                "there are no clips".to_string()
            } else {
                left_out.join(", ")
            }
        ));
    }
    // Forward (or standing) only: one speed axis. Anything sideways or backward: velocity in 2D.
    let forward_only = placed
        .iter()
        .all(|(_, v)| v[0].abs() <= 0.25 * v[1].abs().max(STILL_SPEED) && v[1] >= -STILL_SPEED);
    let mut space = BlendSpace {
        sync: TimeSync::Normalized,
        root_motion: RootMotion::InPlace,
        ..BlendSpace::default()
    };
    if forward_only {
        placed.sort_by(|a, b| a.1[1].total_cmp(&b.1[1]));
        for (p, v) in &mut placed {
            p.position = [f64::from(v[1].max(0.0)), 0.0];
        }
        let top = placed
            .iter()
            .map(|(p, _)| p.position[0])
            .fold(0.0, f64::max);
        space.mode = BlendMode::OneD;
        space.axes = [
            BlendAxis {
                name: "Speed (m/s)".into(),
                min: 0.0,
                max: axis_end(top),
            },
            BlendAxis {
                name: String::new(),
                ..BlendAxis::default()
            },
        ];
    } else {
        for (p, v) in &mut placed {
            p.position = [f64::from(v[0]), f64::from(v[1])];
        }
        let reach = placed
            .iter()
            .flat_map(|(p, _)| p.position)
            .fold(0.0, |m: f64, x| m.max(x.abs()));
        let end = axis_end(reach);
        space.mode = BlendMode::FreeformDirectional;
        space.axes = [
            BlendAxis {
                name: "Velocity right (m/s)".into(),
                min: -end,
                max: end,
            },
            BlendAxis {
                name: "Velocity forward (m/s)".into(),
                min: -end,
                max: end,
            },
        ];
    }
    space.nodes = placed
        .iter()
        .map(|(p, _)| BlendNode {
            time_scale: 1.0,
            clip: p.clip.clone(),
            position: p.position,
        })
        .collect();
    // Start at the slowest moving node (a walk), else the origin.
    space.point = placed
        .iter()
        .map(|(p, _)| p.position)
        .filter(|q| q[0].hypot(q[1]) > 0.0)
        .min_by(|a, b| a[0].hypot(a[1]).total_cmp(&b[0].hypot(b[1])))
        .unwrap_or([0.0, 0.0]);
    Ok(Suggestion {
        space,
        placed: placed.into_iter().map(|(p, _)| p).collect(),
        left_out,
        variants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clip_library_gives_one_node_per_gait_and_leaves_actions_out() {
        // B9: a KayKit-style library stacked Walking_A/B/C and took Jump_Idle for the idle.
        let m = crate::demo::mannequin::load();
        let idle = m.clips.iter().find(|c| c.name == "Idle").unwrap();
        let names = [
            "Idle_A",
            "Idle_B",
            "Walking_A",
            "Walking_B",
            "Walking_C",
            "Running_A",
            "Running_B",
            "Jump_Idle",
            "Jump_Start",
            "Jump_Land",
        ];
        let clips: Vec<Clip> = names
            .iter()
            .map(|n| Clip {
                name: n.to_string(),
                ..idle.clone()
            })
            .collect();
        let s = space_from_clips(&m.character, &clips).unwrap();
        let placed: Vec<&str> = s.placed.iter().map(|p| p.clip.as_str()).collect();
        assert_eq!(placed, ["Idle_A", "Walking_A", "Running_A"]);
        assert_eq!(
            s.variants,
            ["Idle_B", "Walking_B", "Walking_C", "Running_B"]
        );
        assert_eq!(s.left_out, ["Jump_Idle", "Jump_Start", "Jump_Land"]);
        assert_eq!(gait_from_name("Jump_Idle"), None);
    }

    #[test]
    fn names_split_into_words_and_give_gaits() {
        assert_eq!(words("WalkForward_Left"), ["walk", "forward", "left"]);
        assert_eq!(words("mixamo.com|Run"), ["mixamo", "com", "run"]);
        let g = gait_from_name("Run").unwrap();
        assert_eq!((g.speed, g.direction), (NOMINAL_RUN, [0.0, 1.0]));
        assert_eq!(gait_from_name("Idle").unwrap().speed, 0.0);
        let strafe = gait_from_name("StrafeLeft").unwrap();
        assert_eq!(strafe.direction, [-1.0, 0.0]);
        let back = gait_from_name("walk_backward").unwrap();
        assert_eq!(back.direction, [0.0, -1.0]);
        assert!(gait_from_name("TPose").is_none());
        assert!(gait_from_name("Jump").is_none());
    }

    #[test]
    fn the_mannequin_clips_give_a_directional_space_at_their_measured_speeds() {
        let model = crate::demo::mannequin::load();
        let s = space_from_clips(&model.character, &model.clips).unwrap();
        assert_eq!(s.space.mode, BlendMode::FreeformDirectional);
        let run = s.placed.iter().find(|p| p.clip == "RunForward").unwrap();
        assert!(run.measured, "{run:?}");
        assert!((run.position[1] - 3.5).abs() < 0.2, "{run:?}");
        assert!(run.position[0].abs() < 0.2, "{run:?}");
        let left = s.placed.iter().find(|p| p.clip == "StrafeLeft").unwrap();
        assert!(left.position[0] < -1.0, "{left:?}");
        assert!(s.space.validate().is_ok());
    }

    #[test]
    fn clips_with_no_gait_give_a_reason() {
        let model = crate::demo::mannequin::load();
        let mut clip = model.clips[0].clone();
        clip.name = "TPose".into();
        clip.tracks.clear();
        let err = space_from_clips(&model.character, &[clip]).unwrap_err();
        assert!(err.contains("TPose"), "{err}");
    }
}
