//! The document: what the user opened and tuned (the character, its clips, the blend space and the layers).
//! Saving a preset writes its tuning; undo restores it.

use std::path::PathBuf;

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

/// Clips added from one file and how their tracks found the character's joints: the binding report the clip
/// list shows per file.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipSource {
    /// The file.
    pub path: PathBuf,
    /// Names of the clips added from it.
    pub clips: Vec<String>,
    /// Tracks bound by joint path.
    pub by_path: usize,
    /// Tracks bound by joint name.
    pub by_name: usize,
    /// Tracks bound by humanoid bone (retargeted).
    pub by_human_bone: usize,
    /// Tracks bound by path or name to a joint with another rest pose, whose rotations are retargeted.
    pub retargeted: usize,
    /// Tracks that found no joint.
    pub unbound: usize,
}

/// What is open: the character, the clips it can play and the tuning.
pub struct Document {
    /// The character and its own clips.
    pub model: ImportedModel,
    /// Display name of the model.
    pub name: String,
    /// Clips available to play: the model's, then clips added from other files.
    pub clips: Vec<Clip>,
    /// The files clips were added from, in order, with their binding reports.
    pub clip_sources: Vec<ClipSource>,
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
            clip_sources: Vec::new(),
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
