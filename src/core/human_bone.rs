//! Unity's HumanBodyBones: the humanoid bone names every layer and file uses.

use serde::{Deserialize, Serialize};

macro_rules! human_bones {
    ($($bone:ident),* $(,)?) => {
        /// A humanoid bone, named as Unity's `HumanBodyBones` (PascalCase).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum HumanBone {
            $(
                #[doc = concat!("The `", stringify!($bone), "` bone.")]
                $bone,
            )*
        }

        impl HumanBone {
            /// Every humanoid bone, in Unity's order.
            pub const ALL: &'static [HumanBone] = &[$(HumanBone::$bone),*];

            /// The PascalCase name ("LeftUpperArm").
            pub fn name(self) -> &'static str {
                match self {
                    $(HumanBone::$bone => stringify!($bone),)*
                }
            }
        }
    };
}

human_bones!(
    Hips,
    LeftUpperLeg,
    RightUpperLeg,
    LeftLowerLeg,
    RightLowerLeg,
    LeftFoot,
    RightFoot,
    Spine,
    Chest,
    Neck,
    Head,
    LeftShoulder,
    RightShoulder,
    LeftUpperArm,
    RightUpperArm,
    LeftLowerArm,
    RightLowerArm,
    LeftHand,
    RightHand,
    LeftToes,
    RightToes,
    LeftEye,
    RightEye,
    Jaw,
    LeftThumbProximal,
    LeftThumbIntermediate,
    LeftThumbDistal,
    LeftIndexProximal,
    LeftIndexIntermediate,
    LeftIndexDistal,
    LeftMiddleProximal,
    LeftMiddleIntermediate,
    LeftMiddleDistal,
    LeftRingProximal,
    LeftRingIntermediate,
    LeftRingDistal,
    LeftLittleProximal,
    LeftLittleIntermediate,
    LeftLittleDistal,
    RightThumbProximal,
    RightThumbIntermediate,
    RightThumbDistal,
    RightIndexProximal,
    RightIndexIntermediate,
    RightIndexDistal,
    RightMiddleProximal,
    RightMiddleIntermediate,
    RightMiddleDistal,
    RightRingProximal,
    RightRingIntermediate,
    RightRingDistal,
    RightLittleProximal,
    RightLittleIntermediate,
    RightLittleDistal,
    UpperChest,
);

/// Left or right side of the body (the character's own left, on +X when facing +Z).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The character's left.
    Left,
    /// The character's right.
    Right,
}

/// The five fingers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Finger {
    /// Thumb.
    Thumb,
    /// Index finger.
    Index,
    /// Middle finger.
    Middle,
    /// Ring finger.
    Ring,
    /// Little finger (pinky).
    Little,
}

/// A body part regardless of side: what a name convention says a joint is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BodyPart {
    /// Pelvis.
    Hips,
    /// One of the spine joints between hips and neck (Spine, Chest, UpperChest by order).
    SpineChain,
    /// Neck.
    Neck,
    /// Head.
    Head,
    /// Eye (sided).
    Eye,
    /// Jaw.
    Jaw,
    /// Clavicle (sided).
    Shoulder,
    /// Upper arm (sided).
    UpperArm,
    /// Forearm (sided).
    LowerArm,
    /// Hand (sided).
    Hand,
    /// Thigh (sided).
    UpperLeg,
    /// Shin (sided).
    LowerLeg,
    /// Foot (sided).
    Foot,
    /// Toes (sided).
    Toes,
    /// A finger segment (sided; segments ordered down the finger).
    Finger(Finger),
}

impl BodyPart {
    /// Whether the part comes in a left and a right.
    pub fn is_sided(self) -> bool {
        !matches!(
            self,
            BodyPart::Hips | BodyPart::SpineChain | BodyPart::Neck | BodyPart::Head | BodyPart::Jaw
        )
    }

    /// The humanoid bone for this part on a side (None for the spine chain and fingers, which depend on order).
    pub fn bone(self, side: Option<Side>) -> Option<HumanBone> {
        use HumanBone as H;
        let pick = |l: H, r: H| match side {
            Some(Side::Left) => Some(l),
            Some(Side::Right) => Some(r),
            None => None,
        };
        match self {
            BodyPart::Hips => Some(H::Hips),
            BodyPart::SpineChain | BodyPart::Finger(_) => None,
            BodyPart::Neck => Some(H::Neck),
            BodyPart::Head => Some(H::Head),
            BodyPart::Jaw => Some(H::Jaw),
            BodyPart::Eye => pick(H::LeftEye, H::RightEye),
            BodyPart::Shoulder => pick(H::LeftShoulder, H::RightShoulder),
            BodyPart::UpperArm => pick(H::LeftUpperArm, H::RightUpperArm),
            BodyPart::LowerArm => pick(H::LeftLowerArm, H::RightLowerArm),
            BodyPart::Hand => pick(H::LeftHand, H::RightHand),
            BodyPart::UpperLeg => pick(H::LeftUpperLeg, H::RightUpperLeg),
            BodyPart::LowerLeg => pick(H::LeftLowerLeg, H::RightLowerLeg),
            BodyPart::Foot => pick(H::LeftFoot, H::RightFoot),
            BodyPart::Toes => pick(H::LeftToes, H::RightToes),
        }
    }
}

impl HumanBone {
    /// Parses a PascalCase name ("LeftUpperArm"); case-insensitive.
    pub fn from_name(name: &str) -> Option<HumanBone> {
        HumanBone::ALL
            .iter()
            .copied()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// Parses a VRM bone name: camelCase in both versions; VRM 1.0 names the thumb Metacarpal/Proximal/Distal.
    pub fn from_vrm_name(name: &str, vrm1: bool) -> Option<HumanBone> {
        if vrm1 {
            let shifted = name
                .replace("ThumbProximal", "ThumbIntermediate")
                .replace("ThumbMetacarpal", "ThumbProximal");
            return HumanBone::from_name(&shifted);
        }
        HumanBone::from_name(name)
    }

    /// The bone's name as VRM writes it (camelCase; `vrm1` picks 1.0's thumb names).
    pub fn vrm_name(self, vrm1: bool) -> String {
        let n = self.name();
        let mut s = n[..1].to_ascii_lowercase() + &n[1..];
        if vrm1 && s.contains("Thumb") {
            s = s
                .replace("ThumbProximal", "ThumbMetacarpal")
                .replace("ThumbIntermediate", "ThumbProximal");
        }
        s
    }

    /// Required by Unity's humanoid rule: hips, spine, head, and both arms and legs down to hands and feet.
    pub fn is_required(self) -> bool {
        use HumanBone::*;
        matches!(
            self,
            Hips | Spine
                | Head
                | LeftUpperArm
                | RightUpperArm
                | LeftLowerArm
                | RightLowerArm
                | LeftHand
                | RightHand
                | LeftUpperLeg
                | RightUpperLeg
                | LeftLowerLeg
                | RightLowerLeg
                | LeftFoot
                | RightFoot
        )
    }

    /// Required bones, in Unity's order.
    pub fn required() -> impl Iterator<Item = HumanBone> {
        HumanBone::ALL.iter().copied().filter(|b| b.is_required())
    }

    /// The side of the body, for sided bones.
    pub fn side(self) -> Option<Side> {
        let n = self.name();
        if n.starts_with("Left") {
            Some(Side::Left)
        } else if n.starts_with("Right") {
            Some(Side::Right)
        } else {
            None
        }
    }

    /// The bone above this one in the humanoid hierarchy (the nearest one, mapped or not).
    pub fn parent(self) -> Option<HumanBone> {
        use HumanBone::*;
        let sided = |l: HumanBone, r: HumanBone| match self.side() {
            Some(Side::Right) => r,
            _ => l,
        };
        let name = self.name();
        let finger_parent = |segment: &str| -> Option<HumanBone> {
            let prev = match segment {
                "Intermediate" => "Proximal",
                "Distal" => "Intermediate",
                _ => return Some(sided(LeftHand, RightHand)),
            };
            HumanBone::from_name(&name.replace(segment, prev))
        };
        Some(match self {
            Hips => return None,
            Spine | LeftUpperLeg | RightUpperLeg => Hips,
            Chest => Spine,
            UpperChest => Chest,
            Neck | LeftShoulder | RightShoulder => UpperChest,
            Head => Neck,
            LeftEye | RightEye | Jaw => Head,
            LeftUpperArm | RightUpperArm => sided(LeftShoulder, RightShoulder),
            LeftLowerArm | RightLowerArm => sided(LeftUpperArm, RightUpperArm),
            LeftHand | RightHand => sided(LeftLowerArm, RightLowerArm),
            LeftLowerLeg | RightLowerLeg => sided(LeftUpperLeg, RightUpperLeg),
            LeftFoot | RightFoot => sided(LeftLowerLeg, RightLowerLeg),
            LeftToes | RightToes => sided(LeftFoot, RightFoot),
            _ => {
                let segment = ["Proximal", "Intermediate", "Distal"]
                    .into_iter()
                    .find(|s| name.ends_with(s))?;
                return finger_parent(segment);
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(HumanBone::ALL.len(), 55);
        for &b in HumanBone::ALL {
            assert_eq!(HumanBone::from_name(b.name()), Some(b));
            assert_eq!(HumanBone::from_vrm_name(&b.vrm_name(true), true), Some(b));
            assert_eq!(HumanBone::from_vrm_name(&b.vrm_name(false), false), Some(b));
        }
        assert_eq!(HumanBone::required().count(), 15);
    }

    #[test]
    fn vrm1_thumb_names_shift() {
        assert_eq!(
            HumanBone::from_vrm_name("leftThumbMetacarpal", true),
            Some(HumanBone::LeftThumbProximal)
        );
        assert_eq!(
            HumanBone::from_vrm_name("leftThumbProximal", true),
            Some(HumanBone::LeftThumbIntermediate)
        );
        assert_eq!(
            HumanBone::from_vrm_name("leftThumbProximal", false),
            Some(HumanBone::LeftThumbProximal)
        );
    }

    #[test]
    fn humanoid_parents() {
        assert_eq!(
            HumanBone::RightLowerArm.parent(),
            Some(HumanBone::RightUpperArm)
        );
        assert_eq!(
            HumanBone::LeftIndexDistal.parent(),
            Some(HumanBone::LeftIndexIntermediate)
        );
        assert_eq!(
            HumanBone::RightThumbProximal.parent(),
            Some(HumanBone::RightHand)
        );
        assert_eq!(HumanBone::Hips.parent(), None);
        // Every bone reaches the hips.
        for &b in HumanBone::ALL {
            let mut cur = b;
            let mut steps = 0;
            while let Some(p) = cur.parent() {
                cur = p;
                steps += 1;
                // The longest chain, distal finger to hips, is 10 steps.
                assert!(steps <= 10);
            }
            assert_eq!(cur, HumanBone::Hips);
        }
    }
}
