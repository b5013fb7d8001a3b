//! The editor's state and actions, without any UI types: what is loaded, what plays, where the camera is,
//! what the status bar says. The panels only call these.

use std::path::{Path, PathBuf};

use glam::Mat4;
use serde::{Deserialize, Serialize};

use crate::blend::{BlendSampler, BlendSpace};
use crate::core::{Clip, ClipBinding, Pose};
use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use crate::import::ImportedModel;
use crate::layers::look_at::LookBoneReport;
use crate::layers::{LayerParams, LayerRig};
use crate::render::OrbitCamera;
use crate::render::camera::posed_bounds;

/// Most recent files remembered.
pub const RECENT_LIMIT: usize = 10;
/// Undo steps kept.
pub const UNDO_LIMIT: usize = 200;

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
        let mut a = self.clone();
        a.blend.point = other.blend.point;
        a != *other
    }
}

/// Gathers the live edits of one interaction (a drag, typing in a field) into one undo step.
#[derive(Clone, Debug, Default)]
pub struct EditGroup {
    pending: Option<Tuning>,
}

impl EditGroup {
    /// Call after the panels ran with `before` = the parameters before them; `busy` while the interaction
    /// goes on (a button held, a field focused). The step is recorded once it ends.
    pub fn end_frame(&mut self, e: &mut EditorState, before: Tuning, busy: bool) {
        if self.pending.is_none() && e.tuning().differs_from(&before) {
            self.pending = Some(before);
        }
        if !busy {
            self.commit(e);
        }
    }

    /// Records the interaction in progress as an undo step now (before undoing, say).
    pub fn commit(&mut self, e: &mut EditorState) {
        if let Some(before) = self.pending.take() {
            e.push_undo(before);
        }
    }
}

/// One line for the status bar.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Status {
    /// The message.
    pub text: String,
    /// True when it reports a failure.
    pub is_error: bool,
}

/// What survives a restart.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Persisted {
    /// Recently opened files, newest first.
    pub recent: Vec<PathBuf>,
    /// The camera.
    pub camera: Option<OrbitCamera>,
    /// Skeleton overlay on.
    pub show_skeleton: bool,
    /// The blend space being tuned.
    #[serde(default)]
    pub blend: Option<BlendSpace>,
    /// The layers being tuned.
    #[serde(default)]
    pub layers: Option<LayerParams>,
}

/// Everything the editor shows and plays.
pub struct EditorState {
    /// The character and its own clips.
    pub model: ImportedModel,
    /// Display name of the model.
    pub model_name: String,
    /// Clips available to play: the model's, then clips opened from other files.
    pub clips: Vec<Clip>,
    /// The one evaluator of poses: source, clock and transport, layers; its output is the current pose.
    pub eval: Evaluator,
    /// Viewport camera.
    pub camera: OrbitCamera,
    /// Selected joint.
    pub selected: Option<usize>,
    /// Draw the skeleton overlay.
    pub show_skeleton: bool,
    /// Draw the ground grid.
    pub show_grid: bool,
    /// The status bar line.
    pub status: Status,
    /// Recently opened files, newest first.
    pub recent: Vec<PathBuf>,
    /// Increases whenever the model changes (so GPU buffers are rebuilt).
    pub generation: u64,
    /// Frames per second used for frame numbers and stepping.
    pub frame_rate: f32,
    /// The blend space (edited in the blend panel; played when the evaluator's source is a blend).
    pub blend: BlendSpace,
    blend_sampler: BlendSampler,
    /// The procedural layers' parameters.
    pub layers: LayerParams,
    undo: Vec<Tuning>,
    redo: Vec<Tuning>,
}

impl Default for EditorState {
    fn default() -> Self {
        Self::new()
    }
}

impl EditorState {
    /// The built-in mannequin, playing its first clip.
    pub fn new() -> Self {
        let model = crate::demo::mannequin::load();
        let blend = crate::demo::locomotion::default_blend_space();
        let mut s = EditorState {
            blend_sampler: BlendSampler::bind(&blend, &model.clips, &model.character),
            eval: Evaluator::new(
                &model.character,
                &model.clips,
                SourceSpec::Rest,
                LayerParams::default(),
            ),
            blend,
            layers: LayerParams::default(),
            undo: Vec::new(),
            redo: Vec::new(),
            model_name: "Mannequin (built-in)".into(),
            clips: Vec::new(),
            camera: OrbitCamera::default(),
            selected: None,
            show_skeleton: false,
            show_grid: true,
            status: Status::default(),
            recent: Vec::new(),
            generation: 0,
            frame_rate: 30.0,
            model,
        };
        s.adopt_model();
        s.status = Status {
            text: "Built-in mannequin on its locomotion blend space. Open a .glb/.gltf/.vrm model, a clip or a preset (File menu, or drop a file).".into(),
            is_error: false,
        };
        s
    }

    fn adopt_model(&mut self) {
        self.clips = self.model.clips.clone();
        self.selected = None;
        self.generation += 1;
        let (looping, speed) = (self.eval.is_looping(), self.eval.speed());
        self.eval = Evaluator::new(
            &self.model.character,
            &self.clips,
            SourceSpec::Rest,
            self.layers.clone(),
        );
        self.eval.set_looping(looping);
        self.eval.set_speed(speed);
        self.rebind_blend();
        // Blend when every node of the space finds its clip in this model; otherwise play the first clip.
        let blend_ready = !self.blend.nodes.is_empty() && self.blend_sampler.missing().is_empty();
        if blend_ready {
            self.play_blend();
        } else {
            self.select_clip(if self.clips.is_empty() { None } else { Some(0) });
        }
        self.eval.play();
        self.frame_model(16.0 / 9.0);
    }

    /// Rebinds the blend space's report and, when it plays, the evaluator's blend source (keeping the phase).
    fn rebind_blend(&mut self) {
        self.blend_sampler = BlendSampler::bind(&self.blend, &self.clips, &self.model.character);
        self.eval
            .set_blend_space(&self.model.character, &self.clips, &self.blend);
    }

    fn rebind_layers(&mut self) {
        self.eval.set_layers(&self.model.character, &self.layers);
    }

    /// The layers bound to the current character (detected axes, twist pairs, what is missing).
    pub fn layer_rig(&self) -> &LayerRig {
        self.eval.layer_rig()
    }

    /// The current local pose.
    pub fn pose(&self) -> &Pose {
        &self.eval.output().local
    }

    /// Model-space joint matrices of the current pose.
    pub fn matrices(&self) -> &[Mat4] {
        &self.eval.output().model
    }

    /// Weight of every blend node at the sample point, as last evaluated (empty when a clip plays).
    pub fn blend_weights(&self) -> &[f64] {
        &self.eval.output().weights
    }

    /// What look-at did on the last evaluation, per chain bone.
    pub fn look_report(&self) -> &[LookBoneReport] {
        &self.eval.output().look
    }

    /// Time the layers see: follows playback continuously (clips loop, breathing does not) and jumps with seeks.
    pub fn layer_time(&self) -> f32 {
        self.eval.layer_time()
    }

    /// The clip playing, as an index into `clips` (None for the blend space or the rest pose).
    pub fn clip(&self) -> Option<usize> {
        self.eval.clip()
    }

    /// True when the pose comes from the blend space instead of one clip.
    pub fn blending(&self) -> bool {
        self.eval.blend_space().is_some()
    }

    /// Every tunable parameter, as one value (for undo and presets).
    pub fn tuning(&self) -> Tuning {
        Tuning {
            blend: self.blend.clone(),
            layers: self.layers.clone(),
        }
    }

    fn set_tuning(&mut self, t: Tuning) {
        self.blend = t.blend;
        self.layers = t.layers;
        self.rebind_blend();
        self.rebind_layers();
        self.evaluate();
    }

    /// Applies an edit to the layers' parameters; with `checkpoint`, the state before it becomes an undo step.
    pub fn edit_layers(&mut self, checkpoint: bool, edit: impl FnOnce(&mut LayerParams)) {
        let before = self.tuning();
        edit(&mut self.layers);
        if self.layers == before.layers {
            return;
        }
        if checkpoint {
            self.push_undo(before);
        }
        self.rebind_layers();
        self.evaluate();
    }

    /// Where look-at aims now: the camera when following it, else the parameters' target.
    pub fn look_target(&self) -> glam::Vec3 {
        if self.layers.look_at.follow_camera {
            self.camera.eye()
        } else {
            glam::Vec3::from_array(self.layers.look_at.target)
        }
    }

    /// Plays the blend space (from the start of its cycle, paused).
    pub fn play_blend(&mut self) {
        self.eval.set_source(
            &self.model.character,
            &self.clips,
            SourceSpec::Blend(self.blend.clone()),
        );
        self.eval.pause();
        self.evaluate();
    }

    /// The blend space's clips resolved against the current model.
    pub fn blend_sampler(&self) -> &BlendSampler {
        &self.blend_sampler
    }

    /// Applies an edit to the blend space; with `checkpoint`, the state before it becomes an undo step
    /// (drags checkpoint once at their start, then edit live).
    pub fn edit_blend(&mut self, checkpoint: bool, edit: impl FnOnce(&mut BlendSpace)) {
        let before = self.tuning();
        edit(&mut self.blend);
        if self.blend == before.blend {
            return;
        }
        let nodes_changed = self.blend.nodes != before.blend.nodes;
        if checkpoint {
            self.push_undo(before);
        }
        if nodes_changed {
            self.rebind_blend();
        } else {
            self.eval
                .set_blend_space(&self.model.character, &self.clips, &self.blend);
        }
        self.evaluate();
    }

    /// Records `before` as an undo step when it differs from the current parameters (an edit that was
    /// applied live, e.g. a drag, ends).
    pub fn push_undo(&mut self, before: Tuning) {
        let now = self.tuning();
        self.push_undo_to(before, &now);
    }

    fn push_undo_to(&mut self, before: Tuning, after: &Tuning) {
        if after.differs_from(&before) {
            self.undo.push(before);
            if self.undo.len() > UNDO_LIMIT {
                self.undo.remove(0);
            }
            self.redo.clear();
        }
    }

    /// Moves the blend space's sample point (clamped to the axes); not an undo step, like scrubbing.
    pub fn set_blend_point(&mut self, point: [f64; 2]) {
        self.blend.set_point(point);
        self.eval.set_blend_point(self.blend.point);
        self.evaluate();
    }

    /// Replaces the blend space (opened from a file), as one undo step, and plays it.
    pub fn set_blend_space(&mut self, space: BlendSpace) {
        self.edit_blend(true, |b| *b = space);
        self.rebind_blend();
        self.play_blend();
        self.eval.play();
    }

    /// True when there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// True when there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Undoes the last parameter edit.
    pub fn undo(&mut self) {
        if let Some(prev) = self.undo.pop() {
            self.redo.push(self.tuning());
            self.set_tuning(prev);
            self.info("Undo".into());
        }
    }

    /// Redoes the last undone edit.
    pub fn redo(&mut self) {
        if let Some(next) = self.redo.pop() {
            self.undo.push(self.tuning());
            self.set_tuning(next);
            self.info("Redo".into());
        }
    }

    /// Restores what a previous session saved.
    pub fn restore(&mut self, p: Persisted) {
        self.recent = p.recent;
        if let Some(c) = p
            .camera
            .filter(|c| c.target.is_finite() && c.distance.is_finite())
        {
            self.camera = c;
        }
        self.show_skeleton = p.show_skeleton;
        // The tuning comes back only when it is valid (a file edited by hand, or from another version).
        let path = Path::new("<saved session>");
        let preset = crate::preset::Preset {
            blend: p.blend.clone(),
            layers: p.layers.clone().unwrap_or_default(),
            ..crate::preset::Preset::default()
        };
        if preset.validate(path).is_ok() {
            let blend_was_playing = self.blending();
            self.set_tuning(Tuning {
                blend: p.blend.unwrap_or_else(|| self.blend.clone()),
                layers: p.layers.unwrap_or_else(|| self.layers.clone()),
            });
            if blend_was_playing {
                self.play_blend();
                self.eval.play();
            }
        }
    }

    /// What to save for the next session.
    pub fn persisted(&self) -> Persisted {
        Persisted {
            recent: self.recent.clone(),
            camera: Some(self.camera),
            show_skeleton: self.show_skeleton,
            blend: Some(self.blend.clone()),
            layers: Some(self.layers.clone()),
        }
    }

    fn error(&mut self, text: String) {
        self.status = Status {
            text,
            is_error: true,
        };
    }

    fn info(&mut self, text: String) {
        self.status = Status {
            text,
            is_error: false,
        };
    }

    fn remember(&mut self, path: &Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(RECENT_LIMIT);
    }

    /// Opens a model or a clip file, deciding by extension; failures go to the status bar.
    pub fn open(&mut self, path: &Path) {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let result = match ext.as_str() {
            "animclip" | "bytes" | "vrma" => self.open_clip(path),
            "json" => self.open_blend_space(path),
            _ => self.open_model(path),
        };
        match result {
            Ok(()) => self.remember(path),
            Err(e) => self.error(format!("{e:#}")),
        }
    }

    /// Replaces the character with a model file.
    pub fn open_model(&mut self, path: &Path) -> anyhow::Result<()> {
        let model = crate::import::load_file(path)?;
        if model.character.skins.is_empty() && model.clips.is_empty() {
            anyhow::bail!(
                "{}: has no skin and no animation: nothing to show",
                path.display()
            );
        }
        self.model = model;
        self.model_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.adopt_model();
        let h = &self.model.character.humanoid;
        let humanoid = if h.is_humanoid() {
            format!("humanoid ({})", h.source.as_str())
        } else {
            "not humanoid".into()
        };
        self.info(format!(
            "Opened {}: {} joints, {} clips, {humanoid}",
            path.display(),
            self.model.character.skeleton.len(),
            self.clips.len()
        ));
        Ok(())
    }

    /// Adds a clip from a clip file (.animclip, Unity layout, .vrma) and plays it on the current character.
    pub fn open_clip(&mut self, path: &Path) -> anyhow::Result<()> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut clips = if ext == "vrma" {
            crate::import::load_file(path)?.clips
        } else {
            vec![crate::clipfile::load(path)?.to_clip()]
        };
        if clips.is_empty() {
            anyhow::bail!("{}: has no animation", path.display());
        }
        let mut clip = clips.remove(0);
        if clip.name.is_empty() {
            clip.name = path
                .file_stem()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
        }
        let c = &self.model.character;
        let binding = clip.bind(&c.skeleton, Some(&c.humanoid));
        let bound = binding.tracks.iter().flatten().count();
        if bound == 0 {
            anyhow::bail!(
                "{}: none of its {} tracks found a joint of {}",
                path.display(),
                clip.tracks.len(),
                self.model_name
            );
        }
        let unbound = binding.unbound_tracks.len();
        self.clips.push(clip);
        self.rebind_blend();
        self.select_clip(Some(self.clips.len() - 1));
        self.eval.play();
        self.info(format!(
            "Opened clip {}: {bound} tracks bound, {unbound} found no joint",
            path.display()
        ));
        Ok(())
    }

    /// Opens a blend space from a preset or blend space JSON file and plays it.
    pub fn open_blend_space(&mut self, path: &Path) -> anyhow::Result<()> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
        let is_preset = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .is_some_and(|v| v.get("format").is_some());
        if is_preset {
            let preset = crate::preset::Preset::parse(&text, path)?;
            let overrides = preset.humanoid_override();
            if !overrides.is_empty() {
                let c = &mut self.model.character;
                c.humanoid = c
                    .humanoid
                    .clone()
                    .with_override(&overrides, &c.skeleton)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                self.generation += 1;
            }
            let before = self.tuning();
            let after = Tuning {
                blend: preset.blend.clone().unwrap_or_else(|| self.blend.clone()),
                layers: preset.layers,
            };
            self.push_undo_to(before, &after);
            self.set_tuning(after);
            if preset.blend.is_none() {
                self.info(format!("Opened preset {} (layers)", path.display()));
                return Ok(());
            }
            self.play_blend();
            self.eval.play();
        } else {
            let space = crate::preset::parse_blend_space(&text, path)?;
            self.set_blend_space(space);
        }
        let missing: Vec<&str> = self
            .blend_sampler
            .missing()
            .iter()
            .map(|(_, c)| c.as_str())
            .collect();
        if missing.is_empty() {
            self.info(format!(
                "Opened blend space {}: {} nodes",
                path.display(),
                self.blend.nodes.len()
            ));
        } else {
            self.error(format!(
                "{}: clips not in {}: {}",
                path.display(),
                self.model_name,
                missing.join(", ")
            ));
        }
        Ok(())
    }

    /// Writes the current parameters (blend space, layers) as a preset; `overwrite` only after the user
    /// confirmed.
    pub fn save_preset(&mut self, path: &Path, overwrite: bool) {
        let preset = crate::preset::Preset {
            blend: Some(self.blend.clone()),
            layers: self.layers.clone(),
            ..crate::preset::Preset::default()
        };
        match crate::fsutil::write_atomic(path, preset.to_json().as_bytes(), overwrite) {
            Ok(()) => {
                self.remember(path);
                self.info(format!("Saved preset {}", path.display()));
            }
            Err(e) => self.error(e.to_string()),
        }
    }

    /// Chooses the clip to play (None: the rest pose), from time 0, paused.
    pub fn select_clip(&mut self, index: Option<usize>) {
        let source = match index.filter(|&i| i < self.clips.len()) {
            Some(i) => SourceSpec::Clip(i),
            None => SourceSpec::Rest,
        };
        self.eval
            .set_source(&self.model.character, &self.clips, source);
        self.eval.pause();
        self.evaluate();
    }

    /// The clip binding's report: tracks that found no joint and joints without a track.
    pub fn binding(&self) -> Option<&ClipBinding> {
        self.eval.binding()
    }

    /// Advances playback by `dt` seconds and re-evaluates the pose.
    pub fn tick(&mut self, dt: f32) {
        self.evaluate_with(ClockStep::Advance(dt));
    }

    /// Evaluates the pose again where the clock is (after an edit).
    pub fn evaluate(&mut self) {
        self.evaluate_with(ClockStep::Hold);
    }

    fn evaluate_with(&mut self, clock: ClockStep) {
        let input = EvalInput {
            clock,
            blend_point: None,
            look_target: Some(self.look_target()),
        };
        if let Some(e) = &self.eval.evaluate(&input).error {
            let text = format!("{}: cannot evaluate the pose: {e}", self.model_name);
            if self.status.text != text {
                self.error(text);
            }
        }
    }

    /// Pauses, goes back to the start and resets the layers' clock and look-at smoothing.
    pub fn stop(&mut self) {
        self.eval.stop();
        self.evaluate();
    }

    /// Current frame number at the editor's frame rate.
    pub fn frame(&self) -> u32 {
        (self.eval.time() * self.frame_rate).round() as u32
    }

    /// Pauses and moves by whole frames.
    pub fn step_frames(&mut self, frames: i32) {
        self.eval.pause();
        let t = (self.frame() as i32 + frames).max(0) as f32 / self.frame_rate;
        self.eval.seek(t);
        self.evaluate();
    }

    /// Pauses and jumps to a time.
    pub fn scrub(&mut self, time: f32) {
        self.eval.pause();
        self.eval.seek(time);
        self.evaluate();
    }

    /// Play / pause toggle.
    pub fn toggle_play(&mut self) {
        if self.eval.is_playing() {
            self.eval.pause();
        } else {
            self.eval.play();
        }
    }

    /// Points the camera at the posed character.
    pub fn frame_model(&mut self, aspect: f32) {
        let (min, max) = posed_bounds(&self.model.character, self.matrices());
        self.camera.frame(min, max, aspect);
    }

    /// Selects the joint whose screen position is nearest `cursor` (pixels, in a view of `size`), within `radius`.
    pub fn pick_joint(&mut self, cursor: [f32; 2], size: [f32; 2], radius: f32) -> Option<usize> {
        let vp = self.camera.view_proj(size[0] / size[1].max(1.0));
        let mut best = None;
        let mut best_d = radius;
        for (j, m) in self.eval.output().model.iter().enumerate() {
            let clip = vp * m.w_axis;
            if clip.w <= 0.0 {
                continue;
            }
            let ndc = clip.truncate() / clip.w;
            let px = [(ndc.x * 0.5 + 0.5) * size[0], (0.5 - ndc.y * 0.5) * size[1]];
            let d = ((px[0] - cursor[0]).powi(2) + (px[1] - cursor[1]).powi(2)).sqrt();
            if d < best_d {
                best_d = d;
                best = Some(j);
            }
        }
        self.selected = best;
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_on_the_mannequin_playing_its_locomotion_blend() {
        let s = EditorState::new();
        assert!(s.blending());
        assert_eq!(s.clip(), None);
        assert_eq!(s.clips[0].name, "Idle");
        assert!(s.eval.is_playing());
        assert!(s.blend_sampler().missing().is_empty());
        assert!((s.blend_weights().iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(s.matrices().len(), s.model.character.skeleton.len());
    }

    #[test]
    fn blend_edits_undo_and_redo() {
        let mut s = EditorState::new();
        let start = s.blend.clone();
        s.edit_blend(true, |b| b.nodes[1].position = [0.2, 1.6]);
        s.edit_blend(false, |b| b.nodes[1].position = [0.3, 1.7]);
        s.edit_blend(true, |b| {
            b.nodes.remove(2);
        });
        assert_eq!(s.blend.nodes.len(), start.nodes.len() - 1);
        s.undo();
        assert_eq!(s.blend.nodes[1].position, [0.3, 1.7]);
        s.undo();
        assert_eq!(s.blend, start);
        assert!(!s.can_undo());
        s.redo();
        assert_eq!(s.blend.nodes[1].position, [0.3, 1.7]);
        s.set_blend_point([0.0, 3.5]);
        let run = s
            .blend
            .nodes
            .iter()
            .position(|n| n.clip == "RunForward")
            .unwrap();
        assert!((s.blend_weights()[run] - 1.0).abs() < 1e-9);
        assert!((s.eval.duration() - 0.7).abs() < 1e-6);
    }

    #[test]
    fn presets_save_and_reopen_the_blend_space() {
        let dir =
            std::env::temp_dir().join(format!("animtune-editor-preset-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mine.json");
        let mut s = EditorState::new();
        s.edit_blend(true, |b| b.nodes[1].position = [0.1, 1.5]);
        s.edit_layers(true, |l| l.breath.effect_rate = 2.0);
        s.save_preset(&path, false);
        assert!(!s.status.is_error, "{}", s.status.text);
        s.save_preset(&path, false);
        assert!(
            s.status.is_error && s.status.text.contains("exists"),
            "{}",
            s.status.text
        );
        let mut t = EditorState::new();
        t.open(&path);
        assert!(!t.status.is_error, "{}", t.status.text);
        assert_eq!(t.blend, s.blend);
        assert_eq!(t.layers, s.layers);
        assert!(t.blending());
        assert!(t.can_undo(), "opening a preset is one undo step");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_tuning_survives_a_restart() {
        let mut s = EditorState::new();
        s.edit_blend(true, |b| b.nodes[2].position = [0.2, -1.0]);
        s.edit_layers(true, |l| l.look_at.enabled = true);
        let saved = serde_json::to_string(&s.persisted()).unwrap();
        let mut t = EditorState::new();
        t.restore(serde_json::from_str(&saved).unwrap());
        assert_eq!(t.blend, s.blend);
        assert_eq!(t.layers, s.layers);
        assert!(t.blending() && t.eval.is_playing());
        // An older session without tuning, or a broken one, leaves the defaults.
        let mut u = EditorState::new();
        u.restore(
            serde_json::from_str(r#"{"recent":[],"camera":null,"show_skeleton":true}"#).unwrap(),
        );
        assert_eq!(u.blend, EditorState::new().blend);
        let mut bad: Persisted = serde_json::from_str(&saved).unwrap();
        bad.layers.as_mut().unwrap().twist.intensity = 7.0;
        let mut v = EditorState::new();
        v.restore(bad);
        assert_eq!(v.layers, LayerParams::default());
    }

    #[test]
    fn the_blend_cycle_follows_the_weights_without_jumping_phase() {
        let mut s = EditorState::new();
        s.set_blend_point([0.0, 1.4]);
        s.scrub(0.55);
        s.set_blend_point([0.0, 3.5]);
        assert!((s.eval.time() - 0.35).abs() < 1e-5, "{}", s.eval.time());
    }

    #[test]
    fn unreadable_files_go_to_the_status_bar() {
        let mut s = EditorState::new();
        s.open(Path::new("/no/such/file.glb"));
        assert!(s.status.is_error);
        assert!(s.status.text.contains("/no/such/file.glb"));
        assert!(s.recent.is_empty());
        assert_eq!(s.model_name, "Mannequin (built-in)");
    }

    #[test]
    fn stepping_and_scrubbing_pause_and_move_by_frames() {
        let mut s = EditorState::new();
        s.scrub(1.0);
        assert!(!s.eval.is_playing());
        assert_eq!(s.frame(), 30);
        s.step_frames(1);
        assert_eq!(s.frame(), 31);
        s.step_frames(-40);
        assert_eq!(s.frame(), 0);
    }

    #[test]
    fn picking_finds_the_head() {
        let mut s = EditorState::new();
        s.select_clip(None);
        let size = [800.0, 600.0];
        let head = s
            .model
            .character
            .humanoid
            .joint(crate::core::HumanBone::Head)
            .unwrap();
        let vp = s.camera.view_proj(size[0] / size[1]);
        let p = vp.project_point3(s.matrices()[head].w_axis.truncate());
        let px = [(p.x * 0.5 + 0.5) * size[0], (0.5 - p.y * 0.5) * size[1]];
        assert_eq!(s.pick_joint(px, size, 10.0), Some(head));
    }
}
