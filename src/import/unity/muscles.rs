//! Unity's humanoid muscle model: each muscle of a humanoid `.anim` clip as a turn of one bone, so a muscle clip
//! becomes bone rotations on a reference humanoid standing in a T-pose (every bone's rest rotation the identity,
//! +Y up, facing +Z, its left on +X: the tool's axes).
//!
//! A muscle value `m` is an angle: `m × max` when positive, `m × −min` when negative, with Unity's default
//! limits (`HumanTrait.GetMuscleDefaultMin/Max`, degrees). Positive values turn the bone toward the second word
//! of the muscle's name ("Down-Up": up; "Front-Back": back; "In-Out": out; "Stretch": straighter; "Close":
//! closed). A bone's muscles combine as Unity's: half-angle tangents, the swings as one turn about their summed
//! axis, after the twist about the bone (`swing × twist`).
//!
//! Muscle zero is not the T-pose: Unity's zero pose has the arms lowered and forward, the elbows and knees bent.
//! The T-pose's muscle values ([`Muscle::t_pose`]) are those Unity recorded for a T-pose in VRLabs Marker's
//! `M_Gesture in T pose.anim` (MIT); a bone's rotation is taken from there. Fingers have none recorded, so their
//! zero is the flat hand. The docs (`docs/unity.md`) state what this model leaves out.

use std::sync::OnceLock;

use glam::{Quat, Vec3};

use crate::core::HumanBone;

/// How a muscle turns its bone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// About the bone itself (a twist).
    Twist,
    /// About an axis across the bone (a swing).
    Swing,
}

/// One humanoid muscle.
#[derive(Clone, Debug, PartialEq)]
pub struct Muscle {
    /// The curve attribute that drives it ("Left Arm Down-Up", "LeftHand.Index.1 Stretched").
    pub attribute: String,
    /// The bone it turns.
    pub bone: HumanBone,
    /// Twist or swing.
    pub turn: Turn,
    /// The axis a positive value turns the bone about, in the reference humanoid's T-pose (unit length).
    pub axis: Vec3,
    /// Unity's default limits, degrees: the angle at −1 and at +1.
    pub min: f32,
    /// The angle at +1, degrees.
    pub max: f32,
    /// The muscle's value in Unity's T-pose.
    pub t_pose: f32,
}

impl Muscle {
    /// The angle, radians, a value turns the bone by from muscle zero.
    pub fn angle(&self, value: f32) -> f32 {
        let value = if value.is_finite() { value } else { 0.0 };
        let limit = if value < 0.0 { -self.min } else { self.max };
        (value * limit).to_radians()
    }
}

/// One row of the table: the attribute with `{S}` for the side ("Left"/"Right") where the bone has sides, the bone
/// likewise, the turn, the axis for the left side (the right side's is its mirror image), min, max, T-pose value.
type Row = (&'static str, &'static str, Turn, [f32; 3], f32, f32, f32);

const TWIST: Turn = Turn::Twist;
const SWING: Turn = Turn::Swing;

/// Unity's body muscles, bone by bone from the spine out (each sided row read for the left side, then the right). Axes are the tool's (+X the character's left, +Z forward):
/// a positive angle about `axis` moves the bone's far end along `axis × bone`, toward the name's second word.
#[rustfmt::skip]
const ROWS: &[Row] = &[
    ("Spine Front-Back", "Spine", SWING, [-1.0, 0.0, 0.0], -40.0, 40.0, 0.0),
    ("Spine Left-Right", "Spine", SWING, [0.0, 0.0, 1.0], -40.0, 40.0, 0.0),
    ("Spine Twist Left-Right", "Spine", TWIST, [0.0, -1.0, 0.0], -40.0, 40.0, 0.0),
    ("Chest Front-Back", "Chest", SWING, [-1.0, 0.0, 0.0], -40.0, 40.0, 0.0),
    ("Chest Left-Right", "Chest", SWING, [0.0, 0.0, 1.0], -40.0, 40.0, 0.0),
    ("Chest Twist Left-Right", "Chest", TWIST, [0.0, -1.0, 0.0], -40.0, 40.0, 0.0),
    ("UpperChest Front-Back", "UpperChest", SWING, [-1.0, 0.0, 0.0], -20.0, 20.0, 0.0),
    ("UpperChest Left-Right", "UpperChest", SWING, [0.0, 0.0, 1.0], -20.0, 20.0, 0.0),
    ("UpperChest Twist Left-Right", "UpperChest", TWIST, [0.0, -1.0, 0.0], -20.0, 20.0, 0.0),
    ("Neck Nod Down-Up", "Neck", SWING, [-1.0, 0.0, 0.0], -40.0, 40.0, 0.0),
    ("Neck Tilt Left-Right", "Neck", SWING, [0.0, 0.0, 1.0], -40.0, 40.0, 0.0),
    ("Neck Turn Left-Right", "Neck", TWIST, [0.0, -1.0, 0.0], -40.0, 40.0, 0.0),
    ("Head Nod Down-Up", "Head", SWING, [-1.0, 0.0, 0.0], -40.0, 40.0, 0.0),
    ("Head Tilt Left-Right", "Head", SWING, [0.0, 0.0, 1.0], -40.0, 40.0, 0.0),
    ("Head Turn Left-Right", "Head", TWIST, [0.0, -1.0, 0.0], -40.0, 40.0, 0.0),
    ("{S} Eye Down-Up", "{S}Eye", SWING, [-1.0, 0.0, 0.0], -10.0, 15.0, 0.0),
    ("{S} Eye In-Out", "{S}Eye", SWING, [0.0, 1.0, 0.0], -20.0, 20.0, 0.0),
    ("Jaw Close", "Jaw", SWING, [-1.0, 0.0, 0.0], -10.0, 10.0, 0.0),
    ("Jaw Left-Right", "Jaw", SWING, [0.0, -1.0, 0.0], -10.0, 10.0, 0.0),
    ("{S} Upper Leg Front-Back", "{S}UpperLeg", SWING, [1.0, 0.0, 0.0], -90.0, 50.0, 0.6001087),
    ("{S} Upper Leg In-Out", "{S}UpperLeg", SWING, [0.0, 0.0, 1.0], -60.0, 60.0, 0.0),
    ("{S} Upper Leg Twist In-Out", "{S}UpperLeg", TWIST, [0.0, 1.0, 0.0], -60.0, 60.0, 0.0),
    ("{S} Lower Leg Stretch", "{S}LowerLeg", SWING, [-1.0, 0.0, 0.0], -80.0, 80.0, 0.999916),
    ("{S} Lower Leg Twist In-Out", "{S}LowerLeg", TWIST, [0.0, 1.0, 0.0], -90.0, 90.0, 0.0),
    ("{S} Foot Up-Down", "{S}Foot", SWING, [1.0, 0.0, 0.0], -50.0, 50.0, 0.0),
    ("{S} Foot Twist In-Out", "{S}Foot", TWIST, [0.0, 0.0, 1.0], -30.0, 30.0, 0.0),
    ("{S} Toes Up-Down", "{S}Toes", SWING, [1.0, 0.0, 0.0], -50.0, 50.0, 0.0),
    ("{S} Shoulder Down-Up", "{S}Shoulder", SWING, [0.0, 0.0, 1.0], -15.0, 30.0, 0.0),
    ("{S} Shoulder Front-Back", "{S}Shoulder", SWING, [0.0, 1.0, 0.0], -15.0, 15.0, 0.0),
    ("{S} Arm Down-Up", "{S}UpperArm", SWING, [0.0, 0.0, 1.0], -60.0, 100.0, 0.39181224),
    ("{S} Arm Front-Back", "{S}UpperArm", SWING, [0.0, 1.0, 0.0], -100.0, 100.0, 0.31132194),
    ("{S} Arm Twist In-Out", "{S}UpperArm", TWIST, [-1.0, 0.0, 0.0], -90.0, 90.0, 0.11178637),
    ("{S} Forearm Stretch", "{S}LowerArm", SWING, [0.0, 1.0, 0.0], -80.0, 80.0, 0.96493566),
    ("{S} Forearm Twist In-Out", "{S}LowerArm", TWIST, [-1.0, 0.0, 0.0], -90.0, 90.0, -0.084616),
    ("{S} Hand Down-Up", "{S}Hand", SWING, [0.0, 0.0, 1.0], -80.0, 80.0, 0.0),
    ("{S} Hand In-Out", "{S}Hand", SWING, [0.0, -1.0, 0.0], -40.0, 40.0, 0.0),
];

/// The finger muscles of one side: attribute suffix after "{S}Hand.", bone suffix after "{S}", axis for the
/// left hand, min, max. The thumb points forward and out (+X +Z on the left); the other fingers along +X, palm
/// down, so stretching lifts them (+Y) and spreading parts them toward the thumb (index, middle) or away
/// (ring, little).
#[rustfmt::skip]
const FINGER_ROWS: &[(&str, &str, [f32; 3], f32, f32)] = &[
    ("Thumb.1 Stretched", "ThumbProximal", [-FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2], -20.0, 20.0),
    ("Thumb.Spread", "ThumbProximal", [0.0, -1.0, 0.0], -25.0, 25.0),
    ("Thumb.2 Stretched", "ThumbIntermediate", [-FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2], -40.0, 35.0),
    ("Thumb.3 Stretched", "ThumbDistal", [-FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2], -40.0, 35.0),
    ("Index.1 Stretched", "IndexProximal", [0.0, 0.0, 1.0], -50.0, 50.0),
    ("Index.Spread", "IndexProximal", [0.0, -1.0, 0.0], -20.0, 20.0),
    ("Index.2 Stretched", "IndexIntermediate", [0.0, 0.0, 1.0], -45.0, 45.0),
    ("Index.3 Stretched", "IndexDistal", [0.0, 0.0, 1.0], -45.0, 45.0),
    ("Middle.1 Stretched", "MiddleProximal", [0.0, 0.0, 1.0], -50.0, 50.0),
    ("Middle.Spread", "MiddleProximal", [0.0, -1.0, 0.0], -7.5, 7.5),
    ("Middle.2 Stretched", "MiddleIntermediate", [0.0, 0.0, 1.0], -45.0, 45.0),
    ("Middle.3 Stretched", "MiddleDistal", [0.0, 0.0, 1.0], -45.0, 45.0),
    ("Ring.1 Stretched", "RingProximal", [0.0, 0.0, 1.0], -50.0, 50.0),
    ("Ring.Spread", "RingProximal", [0.0, 1.0, 0.0], -7.5, 7.5),
    ("Ring.2 Stretched", "RingIntermediate", [0.0, 0.0, 1.0], -45.0, 45.0),
    ("Ring.3 Stretched", "RingDistal", [0.0, 0.0, 1.0], -45.0, 45.0),
    ("Little.1 Stretched", "LittleProximal", [0.0, 0.0, 1.0], -50.0, 50.0),
    ("Little.Spread", "LittleProximal", [0.0, 1.0, 0.0], -20.0, 20.0),
    ("Little.2 Stretched", "LittleIntermediate", [0.0, 0.0, 1.0], -45.0, 45.0),
    ("Little.3 Stretched", "LittleDistal", [0.0, 0.0, 1.0], -45.0, 45.0),
];

const FRAC_1_SQRT_2: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// Every muscle, body first (left side before right for each row), then the left hand's and the right hand's.
pub fn muscles() -> &'static [Muscle] {
    static TABLE: OnceLock<Vec<Muscle>> = OnceLock::new();
    TABLE.get_or_init(build)
}

/// The muscle a curve attribute drives.
pub fn find(attribute: &str) -> Option<usize> {
    muscles().iter().position(|m| m.attribute == attribute)
}

/// An axis on the right side: the left side's mirrored through the body's midplane (an axial vector keeps its X
/// and negates Y and Z under x → −x).
fn mirrored(axis: Vec3) -> Vec3 {
    Vec3::new(axis.x, -axis.y, -axis.z)
}

fn bone(name: &str) -> HumanBone {
    HumanBone::from_name(name).unwrap_or_else(|| panic!("{name} is a HumanBodyBones name"))
}

fn build() -> Vec<Muscle> {
    let mut out = Vec::new();
    for &(attribute, bone_name, turn, axis, min, max, t_pose) in ROWS {
        let sides: &[&str] = if attribute.contains("{S}") {
            &["Left", "Right"]
        } else {
            &[""]
        };
        for side in sides {
            let axis = Vec3::from(axis);
            out.push(Muscle {
                attribute: attribute.replace("{S}", side),
                bone: bone(&bone_name.replace("{S}", side)),
                turn,
                axis: if *side == "Right" {
                    mirrored(axis)
                } else {
                    axis
                },
                min,
                max,
                t_pose,
            });
        }
    }
    for side in ["Left", "Right"] {
        for &(attribute, bone_name, axis, min, max) in FINGER_ROWS {
            let axis = Vec3::from(axis);
            out.push(Muscle {
                attribute: format!("{side}Hand.{attribute}"),
                bone: bone(&format!("{side}{bone_name}")),
                turn: Turn::Swing,
                axis: if side == "Right" {
                    mirrored(axis)
                } else {
                    axis
                },
                min,
                max,
                t_pose: 0.0,
            });
        }
    }
    out
}

/// A bone's turn from muscle zero for its muscles' values (`(muscle index, value)`), as Unity composes them: the
/// swings' half-angle tangents summed into one swing, applied after the twist.
pub fn from_zero(values: impl IntoIterator<Item = (usize, f32)>) -> Quat {
    let table = muscles();
    let (mut swing, mut twist) = (Vec3::ZERO, Vec3::ZERO);
    for (i, value) in values {
        let m = &table[i];
        let half_tan = (0.5 * m.angle(value)).tan();
        match m.turn {
            Turn::Swing => swing += m.axis * half_tan,
            Turn::Twist => twist += m.axis * half_tan,
        }
    }
    let quat = |v: Vec3| Quat::from_xyzw(v.x, v.y, v.z, 1.0).normalize();
    (quat(swing) * quat(twist)).normalize()
}

/// A bone's turn from muscle zero to its T-pose, for its muscles (by index) at their T-pose values.
pub fn t_pose_turn(bone_muscles: &[usize]) -> Quat {
    let table = muscles();
    from_zero(bone_muscles.iter().map(|&i| (i, table[i].t_pose)))
}

/// A bone's local rotation relative to its T-pose for its muscles' values: the turn from the T-pose back to muscle
/// zero (`t_pose`, [`t_pose_turn`] of the same muscles), then the turn from zero to the values (both about the
/// bone's axes as they stand in the T-pose).
pub fn local_rotation(t_pose: Quat, values: impl IntoIterator<Item = (usize, f32)>) -> Quat {
    (t_pose.inverse() * from_zero(values)).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_unitys_95_muscles_once_each() {
        let t = muscles();
        assert_eq!(t.len(), 95);
        for (i, m) in t.iter().enumerate() {
            assert_eq!(find(&m.attribute), Some(i), "{}", m.attribute);
            assert!((m.axis.length() - 1.0).abs() < 1e-6, "{}", m.attribute);
        }
        assert_eq!(t[find("Right Arm Down-Up").unwrap()].axis, Vec3::NEG_Z);
        assert_eq!(
            t[find("RightHand.Little.Spread").unwrap()].bone,
            HumanBone::RightLittleProximal
        );
    }

    #[test]
    fn one_muscle_turns_its_bone_by_its_limit_about_its_axis() {
        let i = find("Left Arm Down-Up").unwrap();
        let q = from_zero([(i, 0.5)]);
        let (axis, angle) = q.to_axis_angle();
        assert!((angle.to_degrees() - 50.0).abs() < 1e-3, "{angle}");
        assert!(axis.abs_diff_eq(Vec3::Z, 1e-5), "{axis}");
        let (_, angle) = from_zero([(i, -1.0)]).to_axis_angle();
        assert!((angle.to_degrees() - 60.0).abs() < 1e-3, "{angle}");
        // At its T-pose values the arm stands in the T-pose.
        let arm: Vec<usize> = muscles()
            .iter()
            .enumerate()
            .filter(|(_, m)| m.bone == HumanBone::LeftUpperArm)
            .map(|(k, _)| k)
            .collect();
        let at_t_pose = arm.iter().map(|&k| (k, muscles()[k].t_pose));
        assert!(local_rotation(t_pose_turn(&arm), at_t_pose).angle_between(Quat::IDENTITY) < 1e-5);
    }

    #[test]
    fn swing_comes_after_twist() {
        let twist = find("Left Arm Twist In-Out").unwrap();
        let swing = find("Left Arm Down-Up").unwrap();
        let both = from_zero([(twist, 0.5), (swing, 0.5)]);
        let expected = Quat::from_axis_angle(Vec3::Z, 50f32.to_radians())
            * Quat::from_axis_angle(Vec3::NEG_X, 45f32.to_radians());
        assert!(both.angle_between(expected) < 1e-5);
    }
}
