//! Reading humanoid body parts from joint names (Mixamo, Rigify, Blender, Unity-like, 3ds Max Biped, VRoid, Unreal).

use super::human_bone::{BodyPart, Finger, Side};

/// What a joint name says about the joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameGuess {
    /// The body part.
    pub part: BodyPart,
    /// Side, when the name carries one.
    pub side: Option<Side>,
    /// True for a palm / metacarpal joint read as a hand (a weaker match than "hand").
    pub weak: bool,
}

/// Splits a name into lowercase words at separators, case changes and digit boundaries.
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(&prev) = cur.chars().last().as_ref() {
            let digit_change = prev.is_ascii_digit() != c.is_ascii_digit();
            let lower_to_upper = prev.is_lowercase() && c.is_uppercase();
            let acronym_end = prev.is_uppercase()
                && c.is_uppercase()
                && chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if digit_change || lower_to_upper || acronym_end {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|w| w.to_lowercase()).collect()
}

/// Words that only say "this is a bone of some rig" and carry no body part.
const NOISE: &[&str] = &[
    "def",
    "org",
    "mixamorig",
    "bip",
    "j",
    "b",
    "c",
    "f",
    "skeleton",
    "joint",
    "jnt",
    "jt",
    "armature",
    "bone",
    "bn",
    "sk",
    "rig",
    "deform",
    "character",
    "char",
    "valve",
    "biped",
];

/// Words that mark a joint as a helper, not a humanoid bone (twist, roll, end effectors, IK targets).
const HELPER: &[&str] = &[
    "twist",
    "roll",
    "end",
    "nub",
    "tip",
    "ik",
    "pole",
    "target",
    "ctrl",
    "control",
    "helper",
    "socket",
    "null",
    "pv",
    "aux",
    "corrective",
    "fk",
    "mch",
    "top",
    "point",
];

/// True when the name marks a twist or roll helper joint.
pub fn is_twist_name(name: &str) -> bool {
    words(name).iter().any(|w| w == "twist" || w == "roll")
}

fn side_word(w: &str) -> Option<Side> {
    match w {
        "l" | "left" | "lf" => Some(Side::Left),
        "r" | "right" | "rt" => Some(Side::Right),
        _ => None,
    }
}

/// The side a joint name carries, if any.
pub fn guess_side(name: &str) -> Option<Side> {
    words(name).iter().find_map(|w| side_word(w))
}

/// Reads the body part a joint name describes, if any.
pub fn guess(name: &str) -> Option<NameGuess> {
    let all = words(name);
    if all.iter().any(|w| HELPER.contains(&w.as_str())) {
        return None;
    }
    let mut side = None;
    let mut parts = String::new();
    for w in &all {
        if let Some(s) = side_word(w) {
            side = side.or(Some(s));
            continue;
        }
        match w.as_str() {
            w if NOISE.contains(&w) => {}
            w if w.chars().all(|c| c.is_ascii_digit()) => {}
            w => parts.push_str(w),
        }
    }
    let (part, weak) = part_from_words(&parts)?;
    if !part.is_sided() && side.is_some() {
        // A side on an unsided part (e.g. "hip_L" on a quadruped) is not a humanoid bone.
        return None;
    }
    Some(NameGuess { part, side, weak })
}

fn part_from_words(w: &str) -> Option<(BodyPart, bool)> {
    let finger = |s: &str| -> Option<Finger> {
        let s = s.strip_prefix("hand").unwrap_or(s);
        let s = s.strip_prefix("finger").unwrap_or(s);
        let s = s
            .trim_end_matches("metacarpal")
            .trim_end_matches("proximal")
            .trim_end_matches("intermediate")
            .trim_end_matches("medial")
            .trim_end_matches("distal");
        Some(match s {
            "thumb" => Finger::Thumb,
            "index" | "pointer" => Finger::Index,
            "middle" | "mid" => Finger::Middle,
            "ring" => Finger::Ring,
            "pinky" | "little" | "small" | "pinkie" => Finger::Little,
            _ => return None,
        })
    };
    let part = match w {
        "hips" | "hip" | "pelvis" => BodyPart::Hips,
        "spine" | "abdomen" | "abdominal" | "waist" | "tummy" | "belly" | "chest" | "torso"
        | "upperchest" | "ribcage" | "thorax" => BodyPart::SpineChain,
        "neck" => BodyPart::Neck,
        "head" => BodyPart::Head,
        "eye" => BodyPart::Eye,
        "jaw" => BodyPart::Jaw,
        "shoulder" | "clavicle" | "collar" | "collarbone" => BodyPart::Shoulder,
        "upperarm" | "uparm" | "arm" | "humerus" => BodyPart::UpperArm,
        "lowerarm" | "forearm" | "elbow" | "lowarm" => BodyPart::LowerArm,
        "hand" | "wrist" => BodyPart::Hand,
        "palm" | "metacarpal" => return Some((BodyPart::Hand, true)),
        "upperleg" | "upleg" | "thigh" | "femur" => BodyPart::UpperLeg,
        "lowerleg" | "leg" | "shin" | "calf" | "knee" | "lowleg" | "crus" => BodyPart::LowerLeg,
        "foot" | "ankle" => BodyPart::Foot,
        "toe" | "toes" | "toebase" | "ball" => BodyPart::Toes,
        other => BodyPart::Finger(finger(other)?),
    };
    Some((part, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use BodyPart as P;
    use Side::*;

    fn g(name: &str) -> Option<(BodyPart, Option<Side>)> {
        guess(name).map(|g| (g.part, g.side))
    }

    #[test]
    fn splits_words() {
        assert_eq!(
            words("mixamorig:LeftUpLeg"),
            ["mixamorig", "left", "up", "leg"]
        );
        assert_eq!(
            words("DEF-upper_arm.L.001"),
            ["def", "upper", "arm", "l", "001"]
        );
        assert_eq!(
            words("Bip01 L UpperArm"),
            ["bip", "01", "l", "upper", "arm"]
        );
        assert_eq!(words("UpperArmL"), ["upper", "arm", "l"]);
        assert_eq!(
            words("J_Bip_C_UpperChest"),
            ["j", "bip", "c", "upper", "chest"]
        );
    }

    #[test]
    fn mixamo() {
        assert_eq!(g("mixamorig:Hips"), Some((P::Hips, None)));
        assert_eq!(g("mixamorig:Spine2"), Some((P::SpineChain, None)));
        assert_eq!(g("mixamorig:LeftArm"), Some((P::UpperArm, Some(Left))));
        assert_eq!(g("mixamorig:LeftForeArm"), Some((P::LowerArm, Some(Left))));
        assert_eq!(g("mixamorig:RightUpLeg"), Some((P::UpperLeg, Some(Right))));
        assert_eq!(g("mixamorig:RightLeg"), Some((P::LowerLeg, Some(Right))));
        assert_eq!(g("mixamorig:RightToeBase"), Some((P::Toes, Some(Right))));
        assert_eq!(
            g("mixamorig:LeftHandThumb1"),
            Some((P::Finger(Finger::Thumb), Some(Left)))
        );
        assert_eq!(g("mixamorig:HeadTop_End"), None);
    }

    #[test]
    fn rigify_and_blender() {
        assert_eq!(g("DEF-spine.003"), Some((P::SpineChain, None)));
        assert_eq!(g("DEF-upper_arm.L"), Some((P::UpperArm, Some(Left))));
        assert_eq!(g("DEF-forearm.R"), Some((P::LowerArm, Some(Right))));
        assert_eq!(g("DEF-thigh.L"), Some((P::UpperLeg, Some(Left))));
        assert_eq!(g("DEF-shin.R"), Some((P::LowerLeg, Some(Right))));
        assert_eq!(
            g("DEF-f_pinky.02.L"),
            Some((P::Finger(Finger::Little), Some(Left)))
        );
        assert_eq!(
            g("DEF-thumb.01.R"),
            Some((P::Finger(Finger::Thumb), Some(Right)))
        );
        assert_eq!(g("upper_arm.l"), Some((P::UpperArm, Some(Left))));
        assert_eq!(g("thigh_L"), Some((P::UpperLeg, Some(Left))));
        assert_eq!(g("shoulder.r"), Some((P::Shoulder, Some(Right))));
    }

    #[test]
    fn unity_like() {
        assert_eq!(g("UpperArmL"), Some((P::UpperArm, Some(Left))));
        assert_eq!(g("LowerLegR"), Some((P::LowerLeg, Some(Right))));
        assert_eq!(g("LeftUpperArm"), Some((P::UpperArm, Some(Left))));
        assert_eq!(g("RightLowerArm"), Some((P::LowerArm, Some(Right))));
        assert_eq!(g("ShoulderL"), Some((P::Shoulder, Some(Left))));
        assert_eq!(g("Abdomen"), Some((P::SpineChain, None)));
        assert_eq!(g("J_Bip_L_UpperArm"), Some((P::UpperArm, Some(Left))));
        assert_eq!(
            g("Palm2L").map(|_| guess("Palm2L").unwrap().weak),
            Some(true)
        );
    }

    #[test]
    fn max_biped_and_unreal() {
        assert_eq!(g("Bip01 Pelvis"), Some((P::Hips, None)));
        assert_eq!(g("Bip01 L UpperArm"), Some((P::UpperArm, Some(Left))));
        assert_eq!(g("Bip01 R Forearm"), Some((P::LowerArm, Some(Right))));
        assert_eq!(g("Bip01 L Thigh"), Some((P::UpperLeg, Some(Left))));
        assert_eq!(g("Bip01 R Calf"), Some((P::LowerLeg, Some(Right))));
        assert_eq!(g("Bip01 L Clavicle"), Some((P::Shoulder, Some(Left))));
        assert_eq!(g("Bip01 L Toe0"), Some((P::Toes, Some(Left))));
        assert_eq!(g("clavicle_l"), Some((P::Shoulder, Some(Left))));
        assert_eq!(g("upperarm_twist_01_l"), None);
        assert!(is_twist_name("upperarm_twist_01_l"));
    }

    #[test]
    fn side_on_an_unsided_part_is_not_a_bone() {
        assert_eq!(g("Hip_L"), None);
        assert_eq!(g("Armature"), None);
    }
}
