//! The document: what the user opened and tuned (the character, its clips, the blend space and the layers).
//! Saving a preset writes its tuning; undo restores it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::blend::BlendSpace;
use crate::core::{Clip, HumanBone, HumanoidMap};
use crate::import::ImportedModel;
use crate::layers::LayerParams;

/// The built-in mannequin's key among remembered blend spaces.
pub const MANNEQUIN_KEY: &str = "<mannequin>";

/// The key under which a model file's blend space is remembered: its absolute path where it can be resolved.
pub fn model_key(path: &std::path::Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Every tunable parameter: what presets hold and what undo restores.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    /// The blend space.
    pub blend: BlendSpace,
    /// The procedural layers.
    pub layers: LayerParams,
    /// The user's humanoid mapping override: human bone → joint name ("" unmaps it), on top of the mapping
    /// the model came with.
    pub humanoid: BTreeMap<HumanBone, String>,
    /// Where clips retargeted onto the character put its hips.
    pub hips_placement: crate::core::HipsPlacement,
    /// The IK goals clips retargeted onto the character reach for.
    pub ik_goals: crate::core::IkGoals,
    /// A joint added above the hips of a rig whose hips are its top joint, to carry extracted root motion.
    pub root_joint: bool,
    /// Clip settings (crop, cycle offset, loop pose) by clip name: they make the clips that play from the ones
    /// loaded.
    pub clip_settings: BTreeMap<String, crate::core::ClipSettings>,
    /// Clips made from takes: copies of loaded clips under new names (their settings are in `clip_settings`).
    pub clip_splits: Vec<crate::core::ClipSplit>,
    /// The state machine the States tab edits and plays (`pose`, `render` and `bake` play it from a preset).
    pub state_machine: Option<crate::graph::StateMachine>,
}

impl Tuning {
    /// True when the two differ in more than the blend space's sample point (which is not an undo step).
    pub fn differs_from(&self, other: &Tuning) -> bool {
        let (a, b) = (&self.blend, &other.blend);
        self.layers != other.layers
            || self.humanoid != other.humanoid
            || self.hips_placement != other.hips_placement
            || self.ik_goals != other.ik_goals
            || self.root_joint != other.root_joint
            || self.clip_settings != other.clip_settings
            || self.clip_splits != other.clip_splits
            || self.state_machine != other.state_machine
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
    /// The character and its own clips; its humanoid map is `base_humanoid` with the tuning's override.
    pub model: ImportedModel,
    /// The humanoid mapping the model came with (VRM table, names or hierarchy), before the user's override.
    pub base_humanoid: HumanoidMap,
    /// Display name of the model.
    pub name: String,
    /// Which model this is, for remembering its blend space: the file's absolute path, or
    /// [`MANNEQUIN_KEY`].
    pub key: String,
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
    /// The clips as loaded (the model's, then those added from other files), then the copies the tuning's clip
    /// splits made of their takes: `clips` are these with the tuning's clip settings applied.
    pub source_clips: Vec<Clip>,
    /// The splits whose copies `source_clips` holds now (the tuning's after each change).
    pub applied_splits: Vec<crate::core::ClipSplit>,
    /// What each root-motion pass of those splits did, by the clip it made.
    pub root_pass_reports: BTreeMap<String, crate::offline::root_pass::RootPassReport>,
    /// What each skate clean-up of those splits did, by the clip it made.
    pub skate_fix_reports: BTreeMap<String, crate::offline::skate_fix::SkateFixReport>,
    /// What each loop-seam fix of those splits did, by the clip it made.
    pub loop_fix_reports: BTreeMap<String, crate::offline::loop_seam::LoopFixReport>,
    /// The character as loaded, while the tuning's root joint is added to `model.character`.
    pub rootless: Option<crate::core::Character>,
}

impl Document {
    /// The built-in mannequin with its locomotion blend space and default layers.
    pub fn mannequin() -> Self {
        let model = crate::demo::mannequin::load();
        Document {
            clips: model.clips.clone(),
            source_clips: model.clips.clone(),
            clip_sources: Vec::new(),
            base_humanoid: model.character.humanoid.clone(),
            model,
            name: "Mannequin (built-in)".into(),
            key: MANNEQUIN_KEY.into(),
            tuning: Tuning {
                blend: crate::demo::locomotion::default_blend_space(),
                layers: LayerParams::default(),
                humanoid: BTreeMap::new(),
                hips_placement: Default::default(),
                ik_goals: Default::default(),
                root_joint: false,
                clip_settings: BTreeMap::new(),
                clip_splits: Vec::new(),
                state_machine: None,
            },
            applied_splits: Vec::new(),
            root_pass_reports: BTreeMap::new(),
            loop_fix_reports: BTreeMap::new(),
            skate_fix_reports: BTreeMap::new(),
            rootless: None,
            generation: 0,
            revision: 0,
        }
    }
}
