//! The editor's state, without any UI types: the document, the session and the history. Panels read it and
//! send [`Command`]s; [`EditorState::apply`] carries them out and [`EditorState::update`] advances time and
//! evaluates the pose once per frame.

use std::path::Path;

use glam::{Mat4, Vec3};

use super::command::{BlendEdit, CameraMove, Command, Transport};
use super::document::{Document, Tuning};
use super::history::History;
use super::session::{Persisted, Session, Status};
use crate::blend::BlendSampler;
use crate::core::{ClipBinding, Pose};
use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use crate::layers::LayerRig;
use crate::layers::look_at::LookBoneReport;
use crate::render::camera::posed_bounds;

/// Aspect ratio the camera frames the character for before the viewport's size is known.
const FRAMING_ASPECT: f32 = 16.0 / 9.0;

/// Everything the editor shows and plays.
pub struct EditorState {
    doc: Document,
    session: Session,
    history: History,
    /// The blend space's clips resolved against the character (for its report, also when a clip plays).
    blend_sampler: BlendSampler,
    /// Frame the camera on the character after the next evaluation (a model was opened).
    frame_pending: bool,
    /// The clock jumped this frame (a seek, stop or new source): the frame shows that time without advancing.
    clock_jumped: bool,
}

impl Default for EditorState {
    fn default() -> Self {
        Self::new()
    }
}

impl EditorState {
    /// The built-in mannequin, playing its locomotion blend space.
    pub fn new() -> Self {
        let doc = Document::mannequin();
        let eval = Evaluator::new(
            &doc.model.character,
            &doc.clips,
            SourceSpec::Rest,
            doc.tuning.layers.clone(),
        );
        let mut s = EditorState {
            blend_sampler: BlendSampler::bind(&doc.tuning.blend, &doc.clips, &doc.model.character),
            session: Session::new(eval),
            history: History::default(),
            frame_pending: false,
            clock_jumped: false,
            doc,
        };
        s.adopt_model();
        s.session.report(
            "Built-in mannequin on its locomotion blend space. Open a .glb/.gltf/.vrm model, a clip or a preset (File menu, or drop a file).".into(),
            false,
        );
        s.update(0.0, false);
        s
    }

    /// What is open and tuned.
    pub fn doc(&self) -> &Document {
        &self.doc
    }

    /// How it is viewed: transport, camera, selection, status.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The evaluator (its transport and last output).
    pub fn eval(&self) -> &Evaluator {
        &self.session.eval
    }

    /// The status bar line.
    pub fn status(&self) -> &Status {
        &self.session.status
    }

    /// The blend space and the layers.
    pub fn tuning(&self) -> &Tuning {
        &self.doc.tuning
    }

    /// The layers bound to the current character (detected axes, twist pairs, what is missing).
    pub fn layer_rig(&self) -> &LayerRig {
        self.session.eval.layer_rig()
    }

    /// The current local pose.
    pub fn pose(&self) -> &Pose {
        &self.session.eval.output().local
    }

    /// Model-space joint matrices of the current pose.
    pub fn matrices(&self) -> &[Mat4] {
        &self.session.eval.output().model
    }

    /// Weight of every blend node at the sample point, as last evaluated (empty when a clip plays).
    pub fn blend_weights(&self) -> &[f64] {
        &self.session.eval.output().weights
    }

    /// What look-at did on the last evaluation, per chain bone.
    pub fn look_report(&self) -> &[LookBoneReport] {
        &self.session.eval.output().look
    }

    /// Time the layers see: follows playback continuously (clips loop, breathing does not) and jumps with seeks.
    pub fn layer_time(&self) -> f32 {
        self.session.eval.layer_time()
    }

    /// The clip playing, as an index into the document's clips (None for the blend space or the rest pose).
    pub fn clip(&self) -> Option<usize> {
        self.session.eval.clip()
    }

    /// True when the pose comes from the blend space instead of one clip.
    pub fn blending(&self) -> bool {
        self.session.eval.blend_space().is_some()
    }

    /// The blend space's clips resolved against the current model.
    pub fn blend_sampler(&self) -> &BlendSampler {
        &self.blend_sampler
    }

    /// The clip binding's report: tracks that found no joint and joints without a track.
    pub fn binding(&self) -> Option<&ClipBinding> {
        self.session.eval.binding()
    }

    /// Current frame number at the editor's frame rate.
    pub fn frame(&self) -> u32 {
        self.session.frame()
    }

    /// True when there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        self.history.can_undo()
    }

    /// True when there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        self.history.can_redo()
    }

    /// Where look-at aims now: the camera when following it, else the parameters' target.
    pub fn look_target(&self) -> Vec3 {
        let look = &self.doc.tuning.layers.look_at;
        if look.follow_camera {
            self.session.camera.eye()
        } else {
            Vec3::from_array(look.target)
        }
    }

    /// Carries out one command. The pose is evaluated by the next [`EditorState::update`].
    pub fn apply(&mut self, command: Command) {
        self.clock_jumped |= matches!(
            command,
            Command::Open(_)
                | Command::LoadMannequin
                | Command::PlayClip(_)
                | Command::PlayBlend
                | Command::Transport(
                    Transport::Stop
                        | Transport::Scrub(_)
                        | Transport::ScrubToEnd
                        | Transport::StepFrames(_)
                )
        );
        match command {
            Command::Open(path) => self.open(&path),
            Command::SavePreset { path, overwrite } => self.save_preset(&path, overwrite),
            Command::LoadMannequin => {
                let recent = std::mem::take(&mut self.session.recent);
                *self = EditorState::new();
                self.session.recent = recent;
            }
            Command::Transport(t) => self.transport(t),
            Command::PlayClip(index) => {
                self.select_clip(index);
                self.session.eval.play();
            }
            Command::PlayBlend => {
                self.play_blend();
                self.session.eval.play();
            }
            Command::EditBlend(edit) => self.edit_blend(edit),
            Command::SetBlendPoint(point) => {
                self.doc.tuning.blend.set_point(point);
                self.session
                    .eval
                    .set_blend_point(self.doc.tuning.blend.point);
            }
            Command::SetLayers(layers) => {
                if *layers != self.doc.tuning.layers {
                    self.history.before_edit(&self.doc.tuning);
                    self.doc.tuning.layers = *layers;
                    self.layers_changed();
                }
            }
            Command::SetLookTarget(target) => {
                if target.is_finite() {
                    let mut layers = self.doc.tuning.layers.clone();
                    layers.look_at.target = target.to_array();
                    self.apply(Command::SetLayers(Box::new(layers)));
                }
            }
            Command::Undo => {
                if self.history.undo(&mut self.doc.tuning) {
                    self.tuning_replaced();
                    self.session.report("Undo".into(), false);
                }
            }
            Command::Redo => {
                if self.history.redo(&mut self.doc.tuning) {
                    self.tuning_replaced();
                    self.session.report("Redo".into(), false);
                }
            }
            Command::SelectJoint(j) => {
                self.session.selected = j.filter(|&j| j < self.doc.model.character.skeleton.len());
            }
            Command::PickJoint {
                cursor,
                size,
                radius,
            } => self.session.selected = self.pick_joint(cursor, size, radius),
            Command::Camera(m) => match m {
                CameraMove::Orbit(yaw, pitch) => self.session.camera.orbit(yaw, pitch),
                CameraMove::Pan(x, y) => self.session.camera.pan(x, y),
                CameraMove::Zoom(f) => self.session.camera.zoom(f),
                CameraMove::Frame => self.frame_model(FRAMING_ASPECT),
            },
            Command::ShowSkeleton(on) => self.session.show_skeleton = on,
            Command::ShowGrid(on) => self.session.show_grid = on,
            Command::Report { text, is_error } => self.session.report(text, is_error),
        }
    }

    /// Ends a frame: closes the undo step of an interaction that is over (`busy` while a button is held or a
    /// field has focus), advances the clock by `dt` seconds (not in a frame whose commands moved the clock:
    /// it shows the time they chose) and evaluates the pose, once.
    pub fn update(&mut self, dt: f32, busy: bool) {
        if !busy {
            self.history.close(&self.doc.tuning);
        }
        let clock = if std::mem::take(&mut self.clock_jumped) {
            ClockStep::Hold
        } else {
            ClockStep::Advance(dt)
        };
        let input = EvalInput {
            clock,
            blend_point: None,
            look_target: Some(self.look_target()),
        };
        if let Some(e) = &self.session.eval.evaluate(&input).error {
            let text = format!("{}: cannot evaluate the pose: {e}", self.doc.name);
            if self.session.status.text != text {
                self.session.report(text, true);
            }
        }
        if std::mem::take(&mut self.frame_pending) {
            self.frame_model(FRAMING_ASPECT);
        }
    }

    fn transport(&mut self, t: Transport) {
        let eval = &mut self.session.eval;
        match t {
            Transport::Play => eval.play(),
            Transport::TogglePlay => {
                if eval.is_playing() {
                    eval.pause();
                } else {
                    eval.play();
                }
            }
            Transport::Stop => eval.stop(),
            Transport::Scrub(time) => {
                eval.pause();
                eval.seek(time);
            }
            Transport::ScrubToEnd => {
                eval.pause();
                eval.seek(eval.duration());
            }
            Transport::StepFrames(frames) => {
                eval.pause();
                let rate = self.session.frame_rate;
                let t = (self.session.frame() as i32 + frames).max(0) as f32 / rate;
                self.session.eval.seek(t);
            }
            Transport::SetLooping(on) => eval.set_looping(on),
            Transport::SetSpeed(speed) => eval.set_speed(speed),
        }
    }

    fn adopt_model(&mut self) {
        self.doc.clips = self.doc.model.clips.clone();
        self.doc.generation += 1;
        self.session.selected = None;
        let old = &self.session.eval;
        let (looping, speed) = (old.is_looping(), old.speed());
        let character = &self.doc.model.character;
        self.session.eval = Evaluator::new(
            character,
            &self.doc.clips,
            SourceSpec::Rest,
            self.doc.tuning.layers.clone(),
        );
        self.session.eval.set_looping(looping);
        self.session.eval.set_speed(speed);
        self.rebind_blend();
        // Blend when every node of the space finds its clip in this model; otherwise play the first clip.
        let blend = &self.doc.tuning.blend;
        if !blend.nodes.is_empty() && self.blend_sampler.missing().is_empty() {
            self.play_blend();
        } else {
            self.select_clip((!self.doc.clips.is_empty()).then_some(0));
        }
        self.session.eval.play();
        self.frame_pending = true;
    }

    /// Rebinds the blend space's report and, when it plays, the evaluator's blend source (keeping the phase).
    fn rebind_blend(&mut self) {
        let (blend, character) = (&self.doc.tuning.blend, &self.doc.model.character);
        self.blend_sampler = BlendSampler::bind(blend, &self.doc.clips, character);
        self.session
            .eval
            .set_blend_space(character, &self.doc.clips, blend);
    }

    fn layers_changed(&mut self) {
        self.doc.revision += 1;
        self.session
            .eval
            .set_layers(&self.doc.model.character, &self.doc.tuning.layers);
    }

    /// After undo, redo, a preset or a restored session replaced the whole tuning.
    fn tuning_replaced(&mut self) {
        self.rebind_blend();
        self.layers_changed();
    }

    fn edit_blend(&mut self, edit: BlendEdit) {
        let replace = matches!(edit, BlendEdit::Replace(_));
        self.history.before_edit(&self.doc.tuning);
        let before_nodes = self.doc.tuning.blend.nodes.len();
        let rebind = matches!(
            edit,
            BlendEdit::SetNodeClip(..)
                | BlendEdit::RemoveNode(_)
                | BlendEdit::AddNode(_)
                | BlendEdit::Replace(_)
        );
        edit.apply(&mut self.doc.tuning.blend);
        self.doc.revision += 1;
        if rebind || before_nodes != self.doc.tuning.blend.nodes.len() {
            self.rebind_blend();
        } else {
            let character = &self.doc.model.character;
            self.session
                .eval
                .set_blend_space(character, &self.doc.clips, &self.doc.tuning.blend);
        }
        if replace {
            self.history.close(&self.doc.tuning);
            self.play_blend();
            self.session.eval.play();
        }
    }

    /// Plays the blend space from the start of its cycle, paused.
    fn play_blend(&mut self) {
        let blend = SourceSpec::Blend(self.doc.tuning.blend.clone());
        let character = &self.doc.model.character;
        self.session
            .eval
            .set_source(character, &self.doc.clips, blend);
        self.session.eval.pause();
    }

    /// Chooses the clip to play (None: the rest pose), from time 0, paused.
    fn select_clip(&mut self, index: Option<usize>) {
        let source = match index.filter(|&i| i < self.doc.clips.len()) {
            Some(i) => SourceSpec::Clip(i),
            None => SourceSpec::Rest,
        };
        let character = &self.doc.model.character;
        self.session
            .eval
            .set_source(character, &self.doc.clips, source);
        self.session.eval.pause();
    }

    /// Restores what a previous session saved.
    pub fn restore(&mut self, p: Persisted) {
        let s = &mut self.session;
        s.recent = p.recent;
        if let Some(c) = p
            .camera
            .filter(|c| c.target.is_finite() && c.distance.is_finite())
        {
            s.camera = c;
        }
        s.show_skeleton = p.show_skeleton;
        // The tuning comes back only when it is valid (a file edited by hand, or from another version).
        let preset = crate::preset::Preset {
            blend: p.blend,
            layers: p.layers.unwrap_or_default(),
            ..crate::preset::Preset::default()
        };
        if preset.validate(Path::new("<saved session>")).is_ok() {
            let blend_was_playing = self.blending();
            if let Some(blend) = preset.blend {
                self.doc.tuning.blend = blend;
            }
            self.doc.tuning.layers = preset.layers;
            self.tuning_replaced();
            if blend_was_playing {
                self.play_blend();
                self.session.eval.play();
            }
        }
    }

    /// What to save for the next session.
    pub fn persisted(&self) -> Persisted {
        Persisted {
            recent: self.session.recent.clone(),
            camera: Some(self.session.camera),
            show_skeleton: self.session.show_skeleton,
            blend: Some(self.doc.tuning.blend.clone()),
            layers: Some(self.doc.tuning.layers.clone()),
        }
    }

    /// Opens a model, a clip or a preset, deciding by extension; failures go to the status bar.
    fn open(&mut self, path: &Path) {
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
            Ok(()) => self.session.remember(path),
            Err(e) => self.session.report(format!("{e:#}"), true),
        }
    }

    /// Replaces the character with a model file.
    fn open_model(&mut self, path: &Path) -> anyhow::Result<()> {
        let model = crate::import::load_file(path)?;
        if model.character.skins.is_empty() && model.clips.is_empty() {
            anyhow::bail!(
                "{}: has no skin and no animation: nothing to show",
                path.display()
            );
        }
        self.doc.model = model;
        self.doc.name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.adopt_model();
        let character = &self.doc.model.character;
        let h = &character.humanoid;
        let humanoid = if h.is_humanoid() {
            format!("humanoid ({})", h.source.as_str())
        } else {
            "not humanoid".into()
        };
        let text = format!(
            "Opened {}: {} joints, {} clips, {humanoid}",
            path.display(),
            character.skeleton.len(),
            self.doc.clips.len()
        );
        self.session.report(text, false);
        Ok(())
    }

    /// Adds a clip from a clip file (.animclip, Unity layout, .vrma) and plays it on the current character.
    fn open_clip(&mut self, path: &Path) -> anyhow::Result<()> {
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
        let c = &self.doc.model.character;
        let binding = clip.bind(&c.skeleton, Some(&c.humanoid));
        let bound = binding.tracks.iter().flatten().count();
        if bound == 0 {
            anyhow::bail!(
                "{}: none of its {} tracks found a joint of {}",
                path.display(),
                clip.tracks.len(),
                self.doc.name
            );
        }
        let unbound = binding.unbound_tracks.len();
        self.doc.clips.push(clip);
        self.rebind_blend();
        self.select_clip(Some(self.doc.clips.len() - 1));
        self.session.eval.play();
        let text = format!(
            "Opened clip {}: {bound} tracks bound, {unbound} found no joint",
            path.display()
        );
        self.session.report(text, false);
        Ok(())
    }

    /// Opens a blend space from a preset or blend space JSON file and plays it.
    fn open_blend_space(&mut self, path: &Path) -> anyhow::Result<()> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
        let is_preset = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .is_some_and(|v| v.get("format").is_some());
        if is_preset {
            let preset = crate::preset::Preset::parse(&text, path)?;
            let overrides = preset.humanoid_override();
            if !overrides.is_empty() {
                let c = &mut self.doc.model.character;
                c.humanoid = c
                    .humanoid
                    .clone()
                    .with_override(&overrides, &c.skeleton)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                self.doc.generation += 1;
            }
            let has_blend = preset.blend.is_some();
            let after = Tuning {
                blend: preset
                    .blend
                    .unwrap_or_else(|| self.doc.tuning.blend.clone()),
                layers: preset.layers,
            };
            self.history.record(&self.doc.tuning, &after);
            self.doc.tuning = after;
            self.tuning_replaced();
            if !has_blend {
                self.session
                    .report(format!("Opened preset {} (layers)", path.display()), false);
                return Ok(());
            }
            self.play_blend();
            self.session.eval.play();
        } else {
            let space = crate::preset::parse_blend_space(&text, path)?;
            self.edit_blend(BlendEdit::Replace(Box::new(space)));
        }
        let missing: Vec<&str> = self
            .blend_sampler
            .missing()
            .iter()
            .map(|(_, c)| c.as_str())
            .collect();
        let (text, is_error) = if missing.is_empty() {
            let nodes = self.doc.tuning.blend.nodes.len();
            (
                format!("Opened blend space {}: {nodes} nodes", path.display()),
                false,
            )
        } else {
            let names = missing.join(", ");
            let text = format!(
                "{}: clips not in {}: {names}",
                path.display(),
                self.doc.name
            );
            (text, true)
        };
        self.session.report(text, is_error);
        Ok(())
    }

    /// Writes the current tuning (blend space, layers) as a preset; `overwrite` only after the user confirmed.
    fn save_preset(&mut self, path: &Path, overwrite: bool) {
        let preset = crate::preset::Preset {
            blend: Some(self.doc.tuning.blend.clone()),
            layers: self.doc.tuning.layers.clone(),
            ..crate::preset::Preset::default()
        };
        match crate::fsutil::write_atomic(path, preset.to_json().as_bytes(), overwrite) {
            Ok(()) => {
                self.session.remember(path);
                self.session
                    .report(format!("Saved preset {}", path.display()), false);
            }
            Err(e) => self.session.report(e.to_string(), true),
        }
    }

    /// Points the camera at the posed character.
    fn frame_model(&mut self, aspect: f32) {
        let (min, max) = posed_bounds(&self.doc.model.character, self.matrices());
        self.session.camera.frame(min, max, aspect);
    }

    /// The joint whose screen position is nearest `cursor` (pixels, in a view of `size`), within `radius`.
    fn pick_joint(&self, cursor: [f32; 2], size: [f32; 2], radius: f32) -> Option<usize> {
        let vp = self.session.camera.view_proj(size[0] / size[1].max(1.0));
        let mut best = None;
        let mut best_d = radius;
        for (j, m) in self.matrices().iter().enumerate() {
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
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::LayerParams;

    /// Applies the commands as one frame (the interaction ends with it) and evaluates.
    fn frame(s: &mut EditorState, commands: impl IntoIterator<Item = Command>) {
        for c in commands {
            s.apply(c);
        }
        s.update(0.0, false);
    }

    fn move_node(i: usize, p: [f64; 2]) -> Command {
        Command::EditBlend(BlendEdit::MoveNode(i, p))
    }

    fn layers(s: &EditorState, edit: impl FnOnce(&mut LayerParams)) -> Command {
        let mut l = s.tuning().layers.clone();
        edit(&mut l);
        Command::SetLayers(Box::new(l))
    }

    #[test]
    fn starts_on_the_mannequin_playing_its_locomotion_blend() {
        let s = EditorState::new();
        assert!(s.blending());
        assert_eq!(s.clip(), None);
        assert_eq!(s.doc().clips[0].name, "Idle");
        assert!(s.eval().is_playing());
        assert!(s.blend_sampler().missing().is_empty());
        assert!((s.blend_weights().iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(s.matrices().len(), s.doc().model.character.skeleton.len());
    }

    #[test]
    fn blend_edits_undo_and_redo() {
        let mut s = EditorState::new();
        let start = s.tuning().blend.clone();
        // One interaction over three frames (the pointer is held), then a separate removal.
        s.apply(move_node(1, [0.2, 1.6]));
        s.update(0.0, true);
        s.apply(move_node(1, [0.3, 1.7]));
        s.update(0.0, false);
        frame(&mut s, [Command::EditBlend(BlendEdit::RemoveNode(2))]);
        assert_eq!(s.tuning().blend.nodes.len(), start.nodes.len() - 1);
        frame(&mut s, [Command::Undo]);
        assert_eq!(s.tuning().blend.nodes[1].position, [0.3, 1.7]);
        frame(&mut s, [Command::Undo]);
        assert_eq!(s.tuning().blend, start);
        assert!(!s.can_undo());
        frame(&mut s, [Command::Redo]);
        assert_eq!(s.tuning().blend.nodes[1].position, [0.3, 1.7]);
        frame(&mut s, [Command::SetBlendPoint([0.0, 3.5])]);
        let run = s
            .tuning()
            .blend
            .nodes
            .iter()
            .position(|n| n.clip == "RunForward")
            .unwrap();
        assert!((s.blend_weights()[run] - 1.0).abs() < 1e-9);
        assert!((s.eval().duration() - 0.7).abs() < 1e-6);
    }

    #[test]
    fn presets_save_and_reopen_the_blend_space() {
        let dir = crate::test_support::temp_dir("editor-preset");
        let path = dir.join("mine.json");
        let mut s = EditorState::new();
        frame(&mut s, [move_node(1, [0.1, 1.5])]);
        let rate = layers(&s, |l| l.breath.effect_rate = 2.0);
        frame(&mut s, [rate]);
        let save = Command::SavePreset {
            path: path.clone(),
            overwrite: false,
        };
        frame(&mut s, [save.clone()]);
        assert!(!s.status().is_error, "{}", s.status().text);
        frame(&mut s, [save]);
        let status = s.status();
        assert!(
            status.is_error && status.text.contains("exists"),
            "{}",
            status.text
        );
        let mut t = EditorState::new();
        frame(&mut t, [Command::Open(path)]);
        assert!(!t.status().is_error, "{}", t.status().text);
        assert_eq!(t.tuning(), s.tuning());
        assert!(t.blending());
        assert!(t.can_undo(), "opening a preset is one undo step");
        frame(&mut t, [Command::Undo]);
        assert_eq!(t.tuning(), EditorState::new().tuning());
    }

    #[test]
    fn the_tuning_survives_a_restart() {
        let mut s = EditorState::new();
        let look = layers(&s, |l| l.look_at.enabled = true);
        frame(&mut s, [move_node(2, [0.2, -1.0]), look]);
        let saved = serde_json::to_string(&s.persisted()).unwrap();
        let mut t = EditorState::new();
        t.restore(serde_json::from_str(&saved).unwrap());
        assert_eq!(t.tuning(), s.tuning());
        assert!(t.blending() && t.eval().is_playing());
        // An older session without tuning, or a broken one, leaves the defaults.
        let mut u = EditorState::new();
        u.restore(
            serde_json::from_str(r#"{"recent":[],"camera":null,"show_skeleton":true}"#).unwrap(),
        );
        assert_eq!(u.tuning().blend, EditorState::new().tuning().blend);
        let mut bad: Persisted = serde_json::from_str(&saved).unwrap();
        bad.layers.as_mut().unwrap().twist.intensity = 7.0;
        let mut v = EditorState::new();
        v.restore(bad);
        assert_eq!(v.tuning().layers, LayerParams::default());
    }

    #[test]
    fn the_blend_cycle_follows_the_weights_without_jumping_phase() {
        let mut s = EditorState::new();
        frame(&mut s, [Command::SetBlendPoint([0.0, 1.4])]);
        frame(&mut s, [Command::Transport(Transport::Scrub(0.55))]);
        frame(&mut s, [Command::SetBlendPoint([0.0, 3.5])]);
        let t = s.eval().time();
        assert!((t - 0.35).abs() < 1e-5, "{t}");
    }

    #[test]
    fn unreadable_files_go_to_the_status_bar() {
        let mut s = EditorState::new();
        frame(&mut s, [Command::Open("/no/such/file.glb".into())]);
        assert!(s.status().is_error);
        assert!(s.status().text.contains("/no/such/file.glb"));
        assert!(s.session().recent.is_empty());
        assert_eq!(s.doc().name, "Mannequin (built-in)");
    }

    #[test]
    fn stepping_and_scrubbing_pause_and_move_by_frames() {
        let mut s = EditorState::new();
        frame(&mut s, [Command::Transport(Transport::Scrub(1.0))]);
        assert!(!s.eval().is_playing());
        assert_eq!(s.frame(), 30);
        frame(&mut s, [Command::Transport(Transport::StepFrames(1))]);
        assert_eq!(s.frame(), 31);
        frame(&mut s, [Command::Transport(Transport::StepFrames(-40))]);
        assert_eq!(s.frame(), 0);
    }

    #[test]
    fn a_frame_evaluates_once_whatever_it_applies() {
        let mut s = EditorState::new();
        let before = s.eval().evaluations();
        let rate = layers(&s, |l| l.breath.effect_rate = 1.5);
        frame(
            &mut s,
            [
                move_node(1, [0.1, 1.5]),
                Command::SetBlendPoint([0.3, 2.0]),
                rate,
                Command::Transport(Transport::Scrub(0.2)),
                Command::Undo,
            ],
        );
        assert_eq!(s.eval().evaluations(), before + 1);
    }

    #[test]
    fn picking_finds_the_head() {
        let mut s = EditorState::new();
        frame(&mut s, [Command::PlayClip(None)]);
        let size = [800.0, 600.0];
        let head = s
            .doc()
            .model
            .character
            .humanoid
            .joint(crate::core::HumanBone::Head)
            .unwrap();
        let vp = s.session().camera.view_proj(size[0] / size[1]);
        let p = vp.project_point3(s.matrices()[head].w_axis.truncate());
        let px = [(p.x * 0.5 + 0.5) * size[0], (0.5 - p.y * 0.5) * size[1]];
        let pick = Command::PickJoint {
            cursor: px,
            size,
            radius: 10.0,
        };
        frame(&mut s, [pick]);
        assert_eq!(s.session().selected, Some(head));
    }
}
