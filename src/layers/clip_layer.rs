//! Clip layers: clips over the source pose (a clip or a blend space), below breath → look-at → twist, as Unity's
//! Animator layers (weight, Override or Additive, an Avatar Mask by body part or by transform) and ozz's
//! partial and additive blending. Each is evaluated by the runtime's [`BlendingJob`](crate::runtime::BlendingJob):
//! an override layer as a masked blend with what is below it, an additive one as an additive layer relative to
//! the clip's own pose at a reference time (its first frame by default, Unity's "additive reference pose").

use serde::{Deserialize, Serialize};

use super::{LayerParams, ParamError};
use crate::core::morph::default_weights;
use crate::core::{Character, Clip, HumanBone, Skeleton, Transform};
use crate::runtime::{AdditiveLayer, BlendingJob, JobError, additive_delta};

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

/// A clip as a clip layer plays it: compiled for the character, with cursors of its own (the Evaluator's
/// compiled clips).
pub(crate) trait LayerClip: Clone {
    /// Its length in seconds.
    fn duration(&self) -> f32;
    /// Where it is `elapsed` seconds after its start (wrapped when it loops, held at its end otherwise).
    fn time_after(&self, elapsed: f64) -> f64;
    /// Samples its pose at `time` into `pose` (one transform per joint).
    fn sample_pose(&mut self, time: f32, pose: &mut [Transform]) -> Result<(), JobError>;
    /// Whether it has morph-weight tracks.
    fn has_morph(&self) -> bool;
    /// Samples its morph weights at `time` into `weights` (one list per mesh).
    fn sample_morph(&self, time: f32, weights: &mut [Vec<f32>]);
}

/// Where clip layers get their clips: each compiled once for the character however many layers play it.
pub(crate) trait LayerClipSupply<'a, C> {
    /// The character's clips, by index.
    fn clips(&self) -> &'a [Clip];
    /// Clip `index` compiled, with fresh cursors.
    fn get(&mut self, index: usize) -> C;
    /// Reuses `clip`'s compiled form (compiled before for the same character and clips).
    fn keep(&mut self, clip: &C);
}

/// A clip layer bound to the character: its clip compiled, its mask, and for additive layers the reference pose.
#[derive(Clone, Debug)]
pub(crate) struct BoundClipLayer<C> {
    pub(crate) spec: ClipLayer,
    /// None when the character has no clip of that name.
    pub(crate) source: Option<C>,
    /// The mask, one weight per joint.
    mask: Vec<f32>,
    /// Override layers: the weights of the pose below (1 − weight × mask) and of the layer (weight × mask).
    below_mask: Vec<f32>,
    layer_mask: Vec<f32>,
    /// Additive layers: the clip's pose at the reference time.
    reference: Vec<Transform>,
    /// Additive layers: the clip's morph weights at the reference time (the meshes' defaults elsewhere).
    reference_morph: Vec<Vec<f32>>,
    /// The clip name the character lacks when `source` is None (the layer's clip or its reference clip).
    missing: String,
}

impl<C: LayerClip> BoundClipLayer<C> {
    /// Binds `spec`; `compiled(i)` gives clip `i` compiled for the character (shared between layers).
    fn bind(
        spec: &ClipLayer,
        character: &Character,
        clips: &[Clip],
        compiled: &mut impl FnMut(usize) -> C,
    ) -> Self {
        let mask = spec.joint_mask(character);
        let w = spec.weight.clamp(0.0, 1.0);
        let layer_mask: Vec<f32> = mask.iter().map(|m| m.clamp(0.0, 1.0) * w).collect();
        let below_mask = layer_mask.iter().map(|m| 1.0 - m).collect();
        let mut source = clips
            .iter()
            .position(|c| c.name == spec.clip)
            .map(&mut *compiled);
        let mut reference = character.skeleton.rest().to_vec();
        // The reference pose: the layer's own clip, or the one named, at the reference time. A reference clip the
        // character lacks leaves the layer without a clip (skipped, and named as missing).
        let mut missing = spec.clip.clone();
        let mut reference_source = match &spec.reference_clip {
            Some(name) => match clips.iter().position(|c| c.name == *name) {
                Some(i) => Some(compiled(i)),
                None => {
                    if source.is_some() {
                        missing = name.clone();
                    }
                    source = None;
                    None
                }
            },
            None => source.clone(),
        };
        let mut reference_morph = default_weights(character);
        if let Some(c) = reference_source.as_mut() {
            let t = spec.reference_time.clamp(0.0, c.duration().max(0.0));
            // A failed sample leaves the rest pose as the reference.
            let _ = c.sample_pose(t, &mut reference);
            c.sample_morph(t, &mut reference_morph);
        }
        if source.is_some() {
            missing.clear();
        }
        BoundClipLayer {
            spec: spec.clone(),
            source,
            missing,
            mask,
            below_mask,
            layer_mask,
            reference,
            reference_morph,
        }
    }
}

/// The clip layers of the layer parameters, bound, with their scratch.
#[derive(Clone, Debug)]
pub(crate) struct ClipLayers<C> {
    layers: Vec<BoundClipLayer<C>>,
    /// The pose below and the layer's pose back to back, then a delta pose.
    poses: Vec<Transform>,
    delta: Vec<Transform>,
    /// The meshes' morph weights a layer's clip sets.
    morph_scratch: Vec<Vec<f32>>,
}

impl<C: LayerClip> ClipLayers<C> {
    /// None bound yet, with scratch for `character`.
    pub(crate) fn new(character: &Character) -> Self {
        let n = character.skeleton.len();
        ClipLayers {
            layers: Vec::new(),
            poses: vec![Transform::IDENTITY; 2 * n],
            delta: vec![Transform::IDENTITY; n],
            morph_scratch: default_weights(character),
        }
    }

    /// Binds the clip layers of the layer parameters to `clips` (a layer whose clip is missing is skipped). Each
    /// clip is compiled once however many layers play it; with `keep`, a layer whose settings did not change
    /// keeps its binding and cursors, and the clips already compiled are reused.
    pub(crate) fn bind<'a>(
        &mut self,
        params: &LayerParams,
        character: &Character,
        cache: &mut impl LayerClipSupply<'a, C>,
        keep: bool,
    ) {
        let old = std::mem::take(&mut self.layers);
        let mut old_by_position: Vec<Option<BoundClipLayer<C>>> = Vec::new();
        if keep {
            for source in old.iter().filter_map(|l| l.source.as_ref()) {
                cache.keep(source);
            }
            old_by_position = old.into_iter().map(Some).collect();
        }
        let clips = cache.clips();
        let mut compile = |i: usize| cache.get(i);
        let masks = &params.masks;
        self.layers = params
            .clips
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                // A layer on a named mask takes the mask's parts and weights (a mask edit rebinds its layers).
                let spec = spec.with_mask(masks);
                match old_by_position.get_mut(i).and_then(Option::take) {
                    Some(layer) if layer.spec == spec => layer,
                    _ => BoundClipLayer::bind(&spec, character, clips, &mut compile),
                }
            })
            .collect();
    }

    /// Clips the clip layers name (their own, or an additive reference) that the character does not have.
    pub(crate) fn missing(&self) -> Vec<&str> {
        self.layers
            .iter()
            .filter(|l| l.source.is_none())
            .map(|l| l.missing.as_str())
            .collect()
    }

    /// The layers bound (for tests).
    #[cfg(test)]
    pub(crate) fn bound(&self) -> &[BoundClipLayer<C>] {
        &self.layers
    }

    /// Applies the clip layers, in order, to `pose` and the meshes' `morph` weights: a synced layer at `phase`
    /// of its clip, the others `elapsed` seconds into theirs; the root joint keeps the pose's travel under an
    /// override layer.
    pub(crate) fn apply(
        &mut self,
        phase: f64,
        elapsed: f64,
        skeleton: &Skeleton,
        root_joint: Option<usize>,
        pose_out: &mut [Transform],
        morph: &mut [Vec<f32>],
    ) -> Result<(), JobError> {
        let n = skeleton.len();
        let solo = self.layers.iter().any(|l| l.spec.solo && !l.spec.muted);
        for layer in &mut self.layers {
            let spec = &layer.spec;
            let Some(source) = layer.source.as_mut() else {
                continue;
            };
            if spec.muted || spec.weight <= 0.0 || (solo && !spec.solo) {
                continue;
            }
            let t = if spec.synced {
                phase * f64::from(source.duration())
            } else {
                source.time_after(elapsed)
            };
            let (below, pose) = self.poses.split_at_mut(n);
            source.sample_pose(t as f32, pose)?;
            if source.has_morph() {
                let layered = &mut self.morph_scratch;
                for (l, o) in layered.iter_mut().zip(&*morph) {
                    l.copy_from_slice(o);
                }
                source.sample_morph(t as f32, layered);
                let w = spec.weight.clamp(0.0, 1.0);
                for ((o, l), r) in morph.iter_mut().zip(&*layered).zip(&layer.reference_morph) {
                    for ((o, l), r) in o.iter_mut().zip(l).zip(r) {
                        *o = match spec.mode {
                            LayerMode::Override => *o + (l - *o) * w,
                            LayerMode::Additive => *o + (l - r) * spec.weight,
                        };
                    }
                }
            }
            match spec.mode {
                LayerMode::Override => {
                    below.copy_from_slice(pose_out);
                    blend_override(
                        &self.poses,
                        [&layer.below_mask, &layer.layer_mask],
                        skeleton,
                        root_joint,
                        pose_out,
                    )?;
                }
                LayerMode::Additive => {
                    for ((d, p), r) in self.delta.iter_mut().zip(&*pose).zip(&layer.reference) {
                        *d = additive_delta(p, r);
                    }
                    AdditiveLayer {
                        pose: &self.delta,
                        weight: spec.weight,
                        mask: Some(&layer.mask),
                    }
                    .apply(pose_out)?;
                }
            }
        }
        Ok(())
    }
}

/// Blends a layer's pose over the pose below it as Unity's Override layers do: `poses` holds the pose below
/// (also in `out`) and the layer's, back to back, weighed per joint by `masks` (1 − weight × mask, weight × mask).
/// The root joint keeps the travel below: a layer poses the body, it does not move it.
pub(crate) fn blend_override(
    poses: &[Transform],
    masks: [&[f32]; 2],
    skeleton: &Skeleton,
    root_joint: Option<usize>,
    out: &mut [Transform],
) -> Result<(), JobError> {
    let root = root_joint.map(|r| (r, out[r].translation));
    BlendingJob {
        poses,
        weights: &[1.0, 1.0],
        masks: &[Some(masks[0]), Some(masks[1])],
        additive: &[],
        rest: skeleton.rest(),
        threshold: 0.1,
        output: out,
    }
    .run()?;
    if let Some((r, t)) = root {
        out[r].translation = t;
    }
    Ok(())
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
