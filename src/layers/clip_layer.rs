//! Clip layers: clips over the source pose (a clip or a blend space), below breath → look-at → twist, as Unity's
//! Animator layers (weight, Override or Additive, an Avatar Mask by body part or by transform) and ozz's
//! partial and additive blending. Each is evaluated by the runtime's [`BlendingJob`](crate::runtime::BlendingJob):
//! an override layer as a masked blend with what is below it, an additive one as an additive layer relative to
//! the clip's own pose at a reference time (its first frame by default, Unity's "additive reference pose").

use serde::{Deserialize, Serialize};

use super::ParamError;
use crate::core::{Character, HumanBone};

/// How a clip layer combines with the pose below it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerMode {
    /// Replaces the pose below, by the layer's weight, where its mask lets it (Unity's Override).
    #[default]
    Override,
    /// Adds the clip's motion relative to its reference pose (Unity's Additive).
    Additive,
}

/// A humanoid body part, as Unity's Avatar Mask draws them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyPart {
    /// Hips, spine, chest, upper chest.
    Body,
    /// Neck, head, eyes, jaw.
    Head,
    /// Left shoulder, upper and lower arm.
    LeftArm,
    /// Right shoulder, upper and lower arm.
    RightArm,
    /// Left hand and fingers.
    LeftHand,
    /// Right hand and fingers.
    RightHand,
    /// Left upper and lower leg, foot, toes.
    LeftLeg,
    /// Right upper and lower leg, foot, toes.
    RightLeg,
}

impl BodyPart {
    /// Every part, in the order the editor lists them.
    pub const ALL: [BodyPart; 8] = [
        BodyPart::Head,
        BodyPart::Body,
        BodyPart::LeftArm,
        BodyPart::RightArm,
        BodyPart::LeftHand,
        BodyPart::RightHand,
        BodyPart::LeftLeg,
        BodyPart::RightLeg,
    ];

    /// The part's name, as Unity's Avatar Mask names it.
    pub fn name(self) -> &'static str {
        match self {
            BodyPart::Body => "Body",
            BodyPart::Head => "Head",
            BodyPart::LeftArm => "Left Arm",
            BodyPart::RightArm => "Right Arm",
            BodyPart::LeftHand => "Left Hand",
            BodyPart::RightHand => "Right Hand",
            BodyPart::LeftLeg => "Left Leg",
            BodyPart::RightLeg => "Right Leg",
        }
    }

    /// The part a humanoid bone belongs to.
    pub fn of(bone: HumanBone) -> BodyPart {
        let name = bone.name();
        let side = |left, right| {
            if name.starts_with("Left") {
                left
            } else {
                right
            }
        };
        use HumanBone as H;
        match bone {
            H::Hips | H::Spine | H::Chest | H::UpperChest => BodyPart::Body,
            H::Neck | H::Head | H::LeftEye | H::RightEye | H::Jaw => BodyPart::Head,
            H::LeftShoulder
            | H::RightShoulder
            | H::LeftUpperArm
            | H::RightUpperArm
            | H::LeftLowerArm
            | H::RightLowerArm => side(BodyPart::LeftArm, BodyPart::RightArm),
            H::LeftUpperLeg
            | H::RightUpperLeg
            | H::LeftLowerLeg
            | H::RightLowerLeg
            | H::LeftFoot
            | H::RightFoot
            | H::LeftToes
            | H::RightToes => side(BodyPart::LeftLeg, BodyPart::RightLeg),
            // The hands and every finger bone.
            _ => side(BodyPart::LeftHand, BodyPart::RightHand),
        }
    }
}

fn default_weight() -> f32 {
    1.0
}

fn all_parts() -> Vec<BodyPart> {
    BodyPart::ALL.to_vec()
}

/// One clip layer, as presets store it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClipLayer {
    /// The layer's name, as Unity's Animator names its layers (empty in presets written before names: the list
    /// shows "Layer N").
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The clip, by name (as blend nodes name theirs).
    pub clip: String,
    /// Weight in [0, 1].
    pub weight: f32,
    /// Override or additive.
    pub mode: LayerMode,
    /// Additive layers: the time (s) of the clip whose pose the motion is relative to (0: its first frame).
    pub reference_time: f32,
    /// Additive layers: the clip, by name, whose pose at `reference_time` is the reference (None: the layer's own
    /// clip), as Unity's "additive reference pose" from another clip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_clip: Option<String>,
    /// The body parts the layer drives (humanoids; a joint goes with its nearest humanoid bone, and joints above
    /// the hips with none). All of them by default.
    pub parts: Vec<BodyPart>,
    /// Per-joint weights in [0, 1] by joint name, over what the parts give (Unity's transform mask).
    pub joint_weights: std::collections::BTreeMap<String, f32>,
    /// Synced to the source's normalised phase (Unity's layer "Sync"); otherwise the clip plays on its own clock.
    pub synced: bool,
    /// Left out of the evaluation (kept in the list).
    pub muted: bool,
    /// Soloed: while any layer is soloed, only soloed layers (not muted) play.
    pub solo: bool,
    /// A named avatar mask of the layer parameters ([`AvatarMask`]) used instead of the layer's own parts and
    /// joint weights, as Unity layers share one mask asset (None: the layer's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mask: Option<String>,
}

/// A named avatar mask that several clip layers share (Unity's AvatarMask asset): body parts, and per-joint
/// weights over them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AvatarMask {
    /// The mask's name, which layers name it by.
    pub name: String,
    /// The body parts it lets through.
    pub parts: Vec<BodyPart>,
    /// Per-joint weights in [0, 1] by joint name, over what the parts give.
    pub joint_weights: std::collections::BTreeMap<String, f32>,
}

impl Default for AvatarMask {
    fn default() -> Self {
        AvatarMask {
            name: String::new(),
            parts: all_parts(),
            joint_weights: Default::default(),
        }
    }
}

impl Default for ClipLayer {
    fn default() -> Self {
        ClipLayer {
            name: String::new(),
            clip: String::new(),
            weight: default_weight(),
            mode: LayerMode::Override,
            reference_time: 0.0,
            reference_clip: None,
            parts: all_parts(),
            joint_weights: Default::default(),
            synced: false,
            muted: false,
            solo: false,
            mask: None,
        }
    }
}

impl ClipLayer {
    /// The layer with the named mask it uses (from `masks`) in place of its own parts and joint weights; itself
    /// when it uses none or names a mask that is not there.
    pub fn with_mask(&self, masks: &[AvatarMask]) -> ClipLayer {
        let mut out = self.clone();
        if let Some(m) = self
            .mask
            .as_ref()
            .and_then(|name| masks.iter().find(|m| m.name == *name))
        {
            out.parts = m.parts.clone();
            out.joint_weights = m.joint_weights.clone();
        }
        out
    }

    /// The name the editor shows: the layer's own, or "Layer N" for the layer at `index` when it has none.
    pub fn display_name(&self, index: usize) -> String {
        if self.name.trim().is_empty() {
            format!("Layer {}", index + 1)
        } else {
            self.name.clone()
        }
    }

    /// A layer as the editor adds one, like Unity's new Animator layer: weight 0 (nothing changes until it is
    /// raised), override, every body part, on `clip`, named `name`.
    pub fn new_in_editor(name: String, clip: String) -> Self {
        ClipLayer {
            name,
            clip,
            weight: 0.0,
            ..ClipLayer::default()
        }
    }
}

/// Whether each of `layers` plays: not muted, with weight, and soloed when any layer is.
pub fn playing(layers: &[ClipLayer]) -> Vec<bool> {
    let solo = layers.iter().any(|l| l.solo && !l.muted);
    layers
        .iter()
        .map(|l| !l.muted && l.weight > 0.0 && (!solo || l.solo))
        .collect()
}

impl ClipLayer {
    /// Checks the values; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.weight.is_finite() && (0.0..=1.0).contains(&self.weight)) {
            return Err(ParamError::new("weight", "must be within [0, 1]"));
        }
        if !(self.reference_time.is_finite() && self.reference_time >= 0.0) {
            return Err(ParamError::new(
                "reference_time",
                "must be a time of the clip (≥ 0 s)",
            ));
        }
        for (joint, w) in &self.joint_weights {
            if !(w.is_finite() && (0.0..=1.0).contains(w)) {
                return Err(ParamError::new(
                    format!("joint_weights.{joint}"),
                    "must be within [0, 1]",
                ));
            }
        }
        Ok(())
    }

    /// The layer's mask on `character`, one weight in [0, 1] per joint: its body parts on a humanoid (a joint
    /// takes the part of its nearest humanoid bone, itself included; joints with none above them get 0), every
    /// joint on a character without a humanoid map, then the per-joint weights by name over that.
    pub fn joint_mask(&self, character: &Character) -> Vec<f32> {
        let skeleton = &character.skeleton;
        let humanoid = &character.humanoid;
        let human = !humanoid.is_empty();
        (0..skeleton.len())
            .map(|j| {
                if let Some(w) = self.joint_weights.get(skeleton.name(j)) {
                    return *w;
                }
                if !human {
                    return 1.0;
                }
                let mut at = Some(j);
                while let Some(a) = at {
                    if let Some(bone) = humanoid.bone_of(a) {
                        return f32::from(u8::from(self.parts.contains(&BodyPart::of(bone))));
                    }
                    at = skeleton.parent(a);
                }
                0.0
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_parts_follow_unitys_avatar_mask() {
        assert_eq!(BodyPart::of(HumanBone::UpperChest), BodyPart::Body);
        assert_eq!(BodyPart::of(HumanBone::Jaw), BodyPart::Head);
        assert_eq!(BodyPart::of(HumanBone::RightShoulder), BodyPart::RightArm);
        assert_eq!(BodyPart::of(HumanBone::LeftHand), BodyPart::LeftHand);
        assert_eq!(
            BodyPart::of(HumanBone::RightLittleDistal),
            BodyPart::RightHand
        );
        assert_eq!(BodyPart::of(HumanBone::LeftToes), BodyPart::LeftLeg);
        for bone in HumanBone::ALL {
            // Every sided bone but the eyes (which go with the head) is on its side.
            let part = BodyPart::of(*bone);
            if bone.name().starts_with("Left") && *bone != HumanBone::LeftEye {
                assert!(part.name().starts_with("Left"), "{bone:?} {part:?}");
            }
        }
    }

    #[test]
    fn a_mask_of_the_arms_and_head_on_the_mannequin() {
        let character = crate::demo::mannequin::load().character;
        let layer = ClipLayer {
            parts: vec![BodyPart::LeftArm, BodyPart::Head],
            ..Default::default()
        };
        let mask = layer.joint_mask(&character);
        let joint = |b| character.humanoid.joint(b).unwrap();
        assert_eq!(mask[joint(HumanBone::LeftLowerArm)], 1.0);
        assert_eq!(mask[joint(HumanBone::Head)], 1.0);
        assert_eq!(mask[joint(HumanBone::RightUpperArm)], 0.0);
        assert_eq!(
            mask[joint(HumanBone::LeftHand)],
            0.0,
            "the hand is its own part"
        );
        assert_eq!(mask[joint(HumanBone::Hips)], 0.0);
        let mut by_name = layer.clone();
        let hips = character.skeleton.name(joint(HumanBone::Hips)).to_string();
        by_name.joint_weights.insert(hips, 0.5);
        assert_eq!(by_name.joint_mask(&character)[joint(HumanBone::Hips)], 0.5);
        assert!(
            ClipLayer {
                weight: 1.5,
                ..Default::default()
            }
            .validate()
            .is_err()
        );
    }
}
