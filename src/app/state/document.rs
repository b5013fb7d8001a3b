//! The document: what the user opened and tuned (the character, its clips, the blend space and the layers).
//! Saving a preset writes its tuning; undo restores it.

use crate::blend::BlendSpace;
use crate::core::Clip;
use crate::import::ImportedModel;
use crate::layers::LayerParams;

/// Every tunable parameter: what presets hold and what undo restores.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    /// The blend space.
    pub blend: BlendSpace,
    /// The procedural layers.
    pub layers: LayerParams,
}

impl Tuning {
    /// True when the two differ in more than the blend space's sample point (which is not an undo step).
    pub fn differs_from(&self, other: &Tuning) -> bool {
        let (a, b) = (&self.blend, &other.blend);
        self.layers != other.layers
            || a.mode != b.mode
            || a.axes != b.axes
            || a.nodes != b.nodes
            || a.sync != b.sync
            || a.root_motion != b.root_motion
    }
}

/// What is open: the character, the clips it can play and the tuning.
pub struct Document {
    /// The character and its own clips.
    pub model: ImportedModel,
    /// Display name of the model.
    pub name: String,
    /// Clips available to play: the model's, then clips opened from other files.
    pub clips: Vec<Clip>,
    /// The blend space and the layers.
    pub tuning: Tuning,
    /// Increases whenever the character changes (so GPU buffers are rebuilt).
    pub generation: u64,
    /// Increases whenever the tuning changes (so panels holding a draft of it refresh the draft).
    pub revision: u64,
}

impl Document {
    /// The built-in mannequin with its locomotion blend space and default layers.
    pub fn mannequin() -> Self {
        let model = crate::demo::mannequin::load();
        Document {
            clips: model.clips.clone(),
            model,
            name: "Mannequin (built-in)".into(),
            tuning: Tuning {
                blend: crate::demo::locomotion::default_blend_space(),
                layers: LayerParams::default(),
            },
            generation: 0,
            revision: 0,
        }
    }
}
