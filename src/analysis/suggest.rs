//! "New space from clips": a starting blend space laid out from a character's clips, as a Unity user lays out a
//! locomotion blend tree: one node per gait and direction, the plain take of each.
//!
//! A clip's name is read word by word (split at non-letters and lower→upper case changes): its **gait** (idle,
//! walk, jog, run, sprint, as Unity, Mixamo, Quaternius and KayKit name them: `Idle`, `Walking`, `Jog_Fwd_Loop`,
//! `Running_A`, `Sprint_Loop`, `Breathing Idle`), its **direction** (forward, back, left, right, strafe, and Unity
//! Starter Assets' compass `N`/`S`/`E`/`W`, `L`/`R`), its **pace** (slow, fast), its **stance** (crouch, sneak, crawl,
//! injured, formal, drunk, combat, and a weapon held: pistol, rifle, sword, torch…), its **take** (a single letter
//! or digits: `Walking_B`, `Idle_02`), and words that say nothing (loop, in place, root motion, mixamo…). Any other
//! word is a modifier (`Idle_Talking_Loop`). A name with an action word (jump, attack, death, sit, swim, start,
//! turn…) is no gait, whatever else it says.
//!
//! Gaits fall into **families**: one gait, direction (strafe apart), pace and stance. The space is built for the
//! clips without a stance (the plain locomotion), or when there are none for the stance with the most families
//! (a crouch-only library). Each family gives one node, its plainest name: the fewest modifiers, then no take, then
//! the first take, then the first clip (`Idle_Loop` before `Idle_Talking_Loop`, `Walking_A` before `Walking_B`);
//! the family's other clips, and the gaits of other stances (`Crouch_Idle_Loop`, `Walk_Formal_Loop` beside
//! `Walk_Loop`), are left out as variants, listed. Clips that name no gait and do not move (a T-pose) or name an
//! action are left out and listed.
//!
//! Each node is placed by the horizontal root velocity its clip measures over its cycle; a gait authored in place
//! (its root under 0.2 m/s) in its name's direction at the speed its planted feet move back at, else at the name's
//! speed; an idle at the origin. Positions are rounded to 1e-3 m/s. Clips that all move forward (or stand) give a
//! 1D space over speed; any sideways or backward clip gives a 2D Freeform Directional space over velocity, right
//! and forward in m/s, like Unity's locomotion blend trees.

use glam::Vec3;

use crate::blend::sampler::{root_motion_joint, root_travel};
use crate::blend::{BlendAxis, BlendMode, BlendNode, BlendSpace, RootMotion, TimeSync};
use crate::core::{Character, Clip};

use super::positions::rounded;

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
    /// Its node position: (speed, 0) in 1D, (right, forward) velocity in 2D; rounded to 1e-3 m/s.
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
    /// Gaits left out as variants, in clip order: another clip of a family already placed (`Walking_B` beside
    /// `Walking_A`, `Idle_Talking_Loop` beside `Idle_Loop`), or a gait of another stance than the space's
    /// (`Crouch_Idle_Loop`, `Walk_Formal_Loop`). Placed too, they would stack beside the plain gait and split its
    /// weight.
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

/// Words that make a clip an action, not a gait, whatever else its name says ("Jump_Idle", "Walk_Attack",
/// "Walk_Start", "Idle_To_Run").
const ACTIONS: &[&str] = &[
    "jump",
    "land",
    "fall",
    "attack",
    "hit",
    "death",
    "die",
    "dead",
    "roll",
    "punch",
    "kick",
    "shoot",
    "reload",
    "sit",
    "sitting",
    "interact",
    "pickup",
    "pick",
    "spell",
    "throw",
    "cast",
    "emote",
    "dance",
    "climb",
    "swim",
    "swimming",
    "fly",
    "flying",
    "start",
    "stop",
    "end",
    "enter",
    "exit",
    "turn",
    "turning",
    "pivot",
    "transition",
    "to",
];

/// A gait, slowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Gait {
    Idle,
    Walk,
    Jog,
    Run,
    Sprint,
}

/// The words naming each gait.
const GAITS: &[(&str, Gait)] = &[
    ("idle", Gait::Idle),
    ("idling", Gait::Idle),
    ("stand", Gait::Idle),
    ("standing", Gait::Idle),
    ("breathing", Gait::Idle),
    ("walk", Gait::Walk),
    ("walking", Gait::Walk),
    ("walks", Gait::Walk),
    ("stroll", Gait::Walk),
    ("strolling", Gait::Walk),
    ("jog", Gait::Jog),
    ("jogging", Gait::Jog),
    ("trot", Gait::Jog),
    ("trotting", Gait::Jog),
    ("run", Gait::Run),
    ("running", Gait::Run),
    ("runs", Gait::Run),
    ("sprint", Gait::Sprint),
    ("sprinting", Gait::Sprint),
];

/// Words naming a sideways gait (a walk when nothing else names the gait).
const STRAFE: &[&str] = &["strafe", "strafing"];

/// Words naming a direction, as (right, forward): spelled out, abbreviated, and Unity Starter Assets' compass
/// (`Walk_N`, `Run_SE`).
const DIRECTIONS: &[(&str, [i8; 2])] = &[
    ("forward", [0, 1]),
    ("forwards", [0, 1]),
    ("fwd", [0, 1]),
    ("front", [0, 1]),
    ("n", [0, 1]),
    ("back", [0, -1]),
    ("backward", [0, -1]),
    ("backwards", [0, -1]),
    ("bwd", [0, -1]),
    ("bw", [0, -1]),
    ("s", [0, -1]),
    ("left", [-1, 0]),
    ("l", [-1, 0]),
    ("w", [-1, 0]),
    ("right", [1, 0]),
    ("r", [1, 0]),
    ("e", [1, 0]),
    ("ne", [1, 1]),
    ("nw", [-1, 1]),
    ("se", [1, -1]),
    ("sw", [-1, -1]),
];

/// Words naming a pace within a gait, with the share of the gait's nominal speed.
const PACES: &[(&str, i8, f32)] = &[
    ("slow", -1, 0.75),
    ("slower", -1, 0.75),
    ("fast", 1, 1.25),
    ("faster", 1, 1.25),
    ("quick", 1, 1.25),
];

/// Words naming a stance: a locomotion set of its own (Unity users give it its own blend tree), as the stance they
/// name. Sneaking and crawling are walks; any stance with a direction and no gait word is a walk (`Crouch_Fwd`).
const STANCES: &[(&str, &str)] = &[
    ("crouch", "crouch"),
    ("crouched", "crouch"),
    ("crouching", "crouch"),
    ("squat", "crouch"),
    ("sneak", "sneak"),
    ("sneaking", "sneak"),
    ("stealth", "sneak"),
    ("tiptoe", "sneak"),
    ("crawl", "crawl"),
    ("crawling", "crawl"),
    ("prone", "crawl"),
    ("injured", "injured"),
    ("wounded", "injured"),
    ("hurt", "injured"),
    ("limp", "injured"),
    ("limping", "injured"),
    ("formal", "formal"),
    ("drunk", "drunk"),
    ("combat", "combat"),
    ("battle", "combat"),
    ("armed", "combat"),
    ("aim", "aim"),
    ("aiming", "aim"),
    ("pistol", "pistol"),
    ("rifle", "rifle"),
    ("gun", "rifle"),
    ("sword", "sword"),
    ("shield", "shield"),
    ("torch", "torch"),
    ("bow", "bow"),
    ("spear", "spear"),
    ("axe", "axe"),
    ("melee", "melee"),
    ("weapon", "weapon"),
    ("carry", "carry"),
    ("carrying", "carry"),
];

/// Stances that are themselves a gait (a walk) when no gait word is there ("Sneaking").
const MOVING_STANCES: &[&str] = &["sneak", "sneaking", "tiptoe", "crawl", "crawling"];

/// Words that say nothing about the gait: loop markers, in place or root motion, exporters' and tools' words.
const NEUTRAL: &[&str] = &[
    "loop",
    "looping",
    "looped",
    "cycle",
    "in",
    "place",
    "inplace",
    "ip",
    "root",
    "rm",
    "motion",
    "anim",
    "animation",
    "armature",
    "mixamo",
    "com",
    "take",
    "layer",
    "humanoid",
    "standard",
    "default",
    "base",
    "basic",
    "normal",
    "generic",
    "locomotion",
    "clip",
];

/// Everything a clip's name says about it as a gait.
#[derive(Clone, Debug, PartialEq)]
struct NameReading {
    gait: Gait,
    /// (right, forward), each −1, 0 or 1; (0, 0) when the name gives none.
    direction: [i8; 2],
    strafe: bool,
    /// −1 slow, 0, 1 fast.
    pace: i8,
    /// The stances named, sorted, each once.
    stance: Vec<&'static str>,
    /// How many words modify the gait beyond it (unknown words, and gait words past the first).
    modifiers: usize,
    /// The take: single letters and digits that number a clip among its family's ("b" in `Walking_B`).
    take: String,
}

impl NameReading {
    /// The family: clips that differ only by take and modifiers.
    fn family(&self) -> (Gait, [i8; 2], bool, i8, &[&'static str]) {
        (
            self.gait,
            self.direction,
            self.strafe,
            self.pace,
            &self.stance,
        )
    }

    /// How plain a name is within its family: the least wins.
    fn plainness(&self) -> (usize, bool, &str) {
        (self.modifiers, !self.take.is_empty(), &self.take)
    }

    fn named(&self) -> NamedGait {
        let speed = match self.gait {
            Gait::Idle => {
                return NamedGait {
                    speed: 0.0,
                    direction: [0.0, 1.0],
                };
            }
            Gait::Walk => NOMINAL_WALK,
            Gait::Jog => NOMINAL_JOG,
            Gait::Run => NOMINAL_RUN,
            Gait::Sprint => NOMINAL_SPRINT,
        };
        let share = PACES
            .iter()
            .find(|(_, p, _)| *p == self.pace)
            .map_or(1.0, |(_, _, s)| *s);
        let [right, forward] = match self.direction {
            [0, 0] => [0.0, 1.0],
            [r, f] => [f32::from(r), f32::from(f)],
        };
        let len = right.hypot(forward);
        NamedGait {
            speed: speed * share,
            direction: [right / len, forward / len],
        }
    }
}

/// Reads a clip's name as a gait, or None when it names no locomotion (or names an action).
fn read_name(name: &str) -> Option<NameReading> {
    let words = words(name);
    if words.iter().any(|w| ACTIONS.contains(&w.as_str())) {
        return None;
    }
    let mut gait: Option<Gait> = None;
    let mut gait_words = 0;
    let mut direction = [0i8; 2];
    let mut strafe = false;
    let mut pace = 0;
    let mut stance: Vec<&'static str> = Vec::new();
    let mut moving_stance = false;
    let mut modifiers = 0;
    let mut take: String = name.chars().filter(char::is_ascii_digit).collect();
    for w in &words {
        let w = w.as_str();
        if NEUTRAL.contains(&w) {
            continue;
        }
        if let Some(&(_, g)) = GAITS.iter().find(|(n, _)| *n == w) {
            gait = gait.max(Some(g));
            gait_words += 1;
        } else if STRAFE.contains(&w) {
            strafe = true;
        } else if let Some((_, d)) = DIRECTIONS.iter().find(|(n, _)| *n == w) {
            for (axis, v) in direction.iter_mut().zip(d) {
                if *v != 0 {
                    *axis = *v;
                }
            }
        } else if let Some(&(_, p, _)) = PACES.iter().find(|(n, _, _)| *n == w) {
            pace = p;
        } else if let Some(&(_, s)) = STANCES.iter().find(|(n, _)| *n == w) {
            moving_stance |= MOVING_STANCES.contains(&w);
            if !stance.contains(&s) {
                stance.push(s);
            }
        } else if w.chars().count() == 1 {
            take.push_str(w);
        } else {
            modifiers += 1;
        }
    }
    let gait = match gait {
        Some(g) => g,
        None if strafe || moving_stance || (!stance.is_empty() && direction != [0, 0]) => {
            Gait::Walk
        }
        None => return None,
    };
    stance.sort_unstable();
    Some(NameReading {
        gait,
        direction: match gait {
            Gait::Idle => [0, 0],
            _ if direction == [0, 0] && !strafe => [0, 1],
            _ => direction,
        },
        strafe: strafe && gait != Gait::Idle,
        pace: if gait == Gait::Idle { 0 } else { pace },
        stance,
        modifiers: modifiers + gait_words.max(1) - 1,
        take,
    })
}

/// Reads a gait from a clip name, or None when the name names no locomotion (or names an action).
pub fn gait_from_name(name: &str) -> Option<NamedGait> {
    read_name(name).map(|r| r.named())
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

/// The stance a space is built for: none when some gait has none (the plain locomotion), else the stance with the
/// most families (the first such on a tie).
fn chosen_stance(readings: &[&NameReading]) -> Vec<&'static str> {
    if readings.iter().any(|r| r.stance.is_empty()) {
        return Vec::new();
    }
    let mut best: Option<(usize, &[&'static str])> = None;
    for r in readings {
        let mut families = Vec::new();
        for o in readings.iter().filter(|o| o.stance == r.stance) {
            if !families.contains(&o.family()) {
                families.push(o.family());
            }
        }
        if best.is_none_or(|(most, _)| families.len() > most) {
            best = Some((families.len(), &r.stance));
        }
    }
    best.map(|(_, s)| s.to_vec()).unwrap_or_default()
}

/// For each reading, whether it gives its family's node: its stance is `stance` and no other clip of its family has
/// a plainer name (or as plain, earlier).
fn family_nodes(readings: &[Option<NameReading>], stance: &[&str]) -> Vec<bool> {
    let rank = |k: usize| readings[k].as_ref().map(|r| (r.plainness(), k));
    (0..readings.len())
        .map(|k| {
            let Some(r) = readings[k].as_ref().filter(|r| r.stance == stance) else {
                return false;
            };
            let plainest = (0..readings.len())
                .filter(|&j| {
                    readings[j]
                        .as_ref()
                        .is_some_and(|o| o.family() == r.family())
                })
                .min_by(|&a, &b| rank(a).cmp(&rank(b)));
            plainest == Some(k)
        })
        .collect()
}

/// Lays out a blend space over `clips` (one node per gait family, placed by its measured root velocity, else its
/// feet, else its name), or explains why none can.
pub fn space_from_clips(character: &Character, clips: &[Clip]) -> Result<Suggestion, String> {
    space_from_clips_with_progress(character, clips, &mut |_, _| true)
}

/// [`space_from_clips`], calling `progress(names done, names)` after each clip name; it stops with an error when
/// `progress` returns false.
pub fn space_from_clips_with_progress(
    character: &Character,
    clips: &[Clip],
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Suggestion, String> {
    // Each name once (a node names its clip), with what it says.
    let mut names: Vec<(usize, String)> = Vec::new();
    for (i, clip) in clips.iter().enumerate() {
        let name = if clip.name.is_empty() {
            format!("clip {i}")
        } else {
            clip.name.clone()
        };
        if !names.iter().any(|(_, n)| *n == name) {
            names.push((i, name));
        }
    }
    let readings: Vec<Option<NameReading>> = names.iter().map(|(_, n)| read_name(n)).collect();
    let gaits: Vec<&NameReading> = readings.iter().flatten().collect();
    let nodes = family_nodes(&readings, &chosen_stance(&gaits));
    let mut placed: Vec<(Placement, [f32; 2])> = Vec::new();
    let mut left_out = Vec::new();
    let mut variants = Vec::new();
    let total = names.len();
    for (done, (((i, name), reading), node)) in
        names.into_iter().zip(&readings).zip(nodes).enumerate()
    {
        if !progress(done, total) {
            return Err(super::CANCELLED.to_string());
        }
        if reading.is_some() && !node {
            variants.push(name);
            continue;
        }
        if words(&name).iter().any(|w| ACTIONS.contains(&w.as_str())) {
            left_out.push(name);
            continue;
        }
        let clip = &clips[i];
        let named = reading.as_ref().map(NameReading::named);
        let mut velocity = measured_velocity(character, clip);
        let still = |v: [f32; 2]| (v[0] * v[0] + v[1] * v[1]).sqrt() < STILL_SPEED;
        if let Some(g) = named.filter(|g| still(velocity) && g.speed > 0.0) {
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
            _ if speed >= STILL_SPEED && speed.is_finite() => (velocity, true),
            Some(g) => ([g.direction[0] * g.speed, g.direction[1] * g.speed], false),
            None => {
                left_out.push(name);
                continue;
            }
        };
        // Two families placed by name at one point (`WalkLeft` and `StrafeLeft` on a character whose feet cannot be
        // read) would stack: the second is kept out.
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
            p.position = [rounded(f64::from(v[1].max(0.0))), 0.0];
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
            p.position = [rounded(f64::from(v[0])), rounded(f64::from(v[1]))];
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
            ..BlendNode::default()
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

    /// The family and plainness each library's names give, as Unity, Mixamo, Quaternius and KayKit spell them.
    #[test]
    fn names_fall_into_families_and_the_plainest_leads_each() {
        let r = |n: &str| read_name(n).unwrap_or_else(|| panic!("{n} reads as no gait"));
        let family = |n: &str| format!("{:?}", r(n).family());
        // Quaternius: the plain idle and walk lead; crouch, formal, torch and pistol are stances of their own.
        assert_eq!(family("Idle_Loop"), family("Idle_Talking_Loop"));
        assert!(r("Idle_Loop").plainness() < r("Idle_Talking_Loop").plainness());
        assert_eq!(r("Crouch_Idle_Loop").stance, ["crouch"]);
        assert_eq!(r("Walk_Formal_Loop").stance, ["formal"]);
        assert_eq!(r("Idle_Torch_Loop").stance, ["torch"]);
        assert_eq!(r("Pistol_Idle_Loop").stance, ["pistol"]);
        assert_eq!(family("Jog_Fwd_Loop"), family("Jog"));
        assert_eq!(r("Crouch_Fwd_Loop").gait, Gait::Walk);
        assert!(
            read_name("Swim_Fwd_Loop").is_none() && read_name("Spell_Simple_Idle_Loop").is_none()
        );
        // KayKit: takes A, B, C of one family, A first; Sneaking is a walk of its own stance.
        assert_eq!(family("Walking_A"), family("Walking_C"));
        assert!(r("Walking_A").plainness() < r("Walking_B").plainness());
        assert_eq!(family("Walking_Backwards"), family("Walk_Back"));
        assert_ne!(family("Walking_Backwards"), family("Walking_A"));
        assert_ne!(family("Running_Strafe_Left"), family("Running_Left"));
        assert_eq!(r("Sneaking").stance, ["sneak"]);
        // Mixamo: "Breathing Idle" is an idle, plainer "Idle" leads it; paces and injuries are families of their own.
        assert_eq!(family("Breathing Idle"), family("Idle"));
        assert!(r("Idle").plainness() < r("Breathing Idle").plainness());
        assert_eq!(family("Standard Run"), family("Running"));
        assert_ne!(family("Slow Run"), family("Fast Run"));
        assert!(
            gait_from_name("Slow Run").unwrap().speed < gait_from_name("Fast Run").unwrap().speed
        );
        assert_eq!(r("Injured Walk").stance, ["injured"]);
        assert!(read_name("Start Walking").is_none() && read_name("Idle To Run").is_none());
        // Unity: HumanoidCrouchWalk is a crouch; Starter Assets' compass directions.
        assert_eq!(r("HumanoidCrouchWalk").stance, ["crouch"]);
        assert_eq!(family("HumanoidWalk"), family("Walk_N"));
        assert_eq!(
            gait_from_name("Run_SE").unwrap().direction[1],
            -(0.5f32.sqrt())
        );
        assert_eq!(r("Walk_W").direction, [-1, 0]);
    }

    /// Quaternius-like names: the plain idle leads (not the crouch idle, which sorts first), the formal walk and the
    /// crouch clips are variants of other stances; a crouch-only library builds its crouch space.
    #[test]
    fn the_plain_idle_leads_and_other_stances_are_variants() {
        let m = crate::demo::mannequin::load();
        let idle = m.clips.iter().find(|c| c.name == "Idle").unwrap();
        let clips = |names: &[&str]| -> Vec<Clip> {
            names
                .iter()
                .map(|n| Clip {
                    name: n.to_string(),
                    ..idle.clone()
                })
                .collect()
        };
        let s = space_from_clips(
            &m.character,
            &clips(&[
                "Crouch_Fwd_Loop",
                "Crouch_Idle_Loop",
                "Idle_Loop",
                "Idle_Talking_Loop",
                "Jog_Fwd_Loop",
                "Walk_Formal_Loop",
                "Walk_Loop",
            ]),
        )
        .unwrap();
        let placed: Vec<&str> = s.placed.iter().map(|p| p.clip.as_str()).collect();
        assert_eq!(placed, ["Idle_Loop", "Walk_Loop", "Jog_Fwd_Loop"]);
        assert_eq!(
            s.variants,
            [
                "Crouch_Fwd_Loop",
                "Crouch_Idle_Loop",
                "Idle_Talking_Loop",
                "Walk_Formal_Loop"
            ]
        );
        let crouch = space_from_clips(
            &m.character,
            &clips(&["Crouch_Idle", "Crouch_Walk", "Idle_Torch"]),
        )
        .unwrap();
        let placed: Vec<&str> = crouch.placed.iter().map(|p| p.clip.as_str()).collect();
        assert_eq!(placed, ["Crouch_Idle", "Crouch_Walk"]);
        assert_eq!(crouch.variants, ["Idle_Torch"]);
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
