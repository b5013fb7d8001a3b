//! The clip layers bound to a character and applied over the source, in order: an override layer blends its
//! clip over the pose below through its mask (the root keeps the source's travel), an additive layer adds its
//! clip's difference from a reference pose; each also layers its clip's morph weights. Each clip is compiled once
//! however many layers play it, through the sources' clip cache.

use crate::core::{Character, Clip, Skeleton, Transform};
use crate::layers::{ClipLayer, LayerMode, LayerParams};
use crate::runtime::{AdditiveLayer, BlendingJob, JobError, additive_delta};

use super::source::compiled::{ClipCache, CompiledClip};

/// A clip layer bound to the character: its clip compiled, its mask, and for additive layers the reference pose.
#[derive(Clone, Debug)]
pub(crate) struct BoundClipLayer {
    pub(crate) spec: ClipLayer,
    /// None when the character has no clip of that name.
    pub(crate) source: Option<CompiledClip>,
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

impl BoundClipLayer {
    /// Binds `spec`; `compiled(i)` gives clip `i` compiled for the character (shared between layers).
    fn bind(
        spec: &ClipLayer,
        character: &Character,
        clips: &[Clip],
        compiled: &mut impl FnMut(usize) -> CompiledClip,
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
        let mut reference_morph = crate::core::morph::default_weights(character);
        if let Some(c) = reference_source.as_mut() {
            let t = spec
                .reference_time
                .clamp(0.0, c.animation.duration().max(0.0));
            // A failed sample leaves the rest pose as the reference.
            let _ = c.sample(t, &mut reference);
            c.morph.sample(t, &mut reference_morph);
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
pub(crate) struct ClipLayers {
    layers: Vec<BoundClipLayer>,
    /// The pose below and the layer's pose back to back, then a delta pose.
    poses: Vec<Transform>,
    delta: Vec<Transform>,
    /// The meshes' morph weights a layer's clip sets.
    morph_scratch: Vec<Vec<f32>>,
}

impl ClipLayers {
    /// None bound yet, with scratch for `character`.
    pub(crate) fn new(character: &Character) -> Self {
        let n = character.skeleton.len();
        ClipLayers {
            layers: Vec::new(),
            poses: vec![Transform::IDENTITY; 2 * n],
            delta: vec![Transform::IDENTITY; n],
            morph_scratch: crate::core::morph::default_weights(character),
        }
    }

    /// Binds the clip layers of the layer parameters to `clips` (a layer whose clip is missing is skipped). Each
    /// clip is compiled once however many layers play it; with `keep`, a layer whose settings did not change
    /// keeps its binding and cursors, and the clips already compiled are reused.
    pub(crate) fn bind(
        &mut self,
        params: &LayerParams,
        character: &Character,
        cache: &mut ClipCache,
        keep: bool,
    ) {
        let old = std::mem::take(&mut self.layers);
        let mut old_by_position: Vec<Option<BoundClipLayer>> = Vec::new();
        if keep {
            for source in old.iter().filter_map(|l| l.source.as_ref()) {
                cache.keep(source);
            }
            old_by_position = old.into_iter().map(Some).collect();
        }
        let clips = cache.clips;
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
    pub(crate) fn bound(&self) -> &[BoundClipLayer] {
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
                phase * f64::from(source.animation.duration())
            } else {
                source.time_after(elapsed)
            };
            let (below, pose) = self.poses.split_at_mut(n);
            source.sample(t as f32, pose)?;
            if !source.morph.is_empty() {
                let layered = &mut self.morph_scratch;
                for (l, o) in layered.iter_mut().zip(&*morph) {
                    l.copy_from_slice(o);
                }
                source.morph.sample(t as f32, layered);
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
                    let out = &mut *pose_out;
                    below.copy_from_slice(out);
                    let root = root_joint.map(|r| (r, out[r].translation));
                    BlendingJob {
                        poses: &self.poses,
                        weights: &[1.0, 1.0],
                        masks: &[Some(&layer.below_mask), Some(&layer.layer_mask)],
                        additive: &[],
                        rest: skeleton.rest(),
                        threshold: 0.1,
                        output: out,
                    }
                    .run()?;
                    // The root keeps the source's travel: a layer poses the body, it does not move it.
                    if let Some((r, t)) = root {
                        out[r].translation = t;
                    }
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
