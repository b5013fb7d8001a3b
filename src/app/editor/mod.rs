//! The editor's state, without any UI types: the document, the session and the history. Panels read it and
//! send [`Command`]s; [`EditorState::apply`] carries them out and [`EditorState::update`] advances time and
//! evaluates the pose once per frame.

use std::path::Path;

use glam::{Mat4, Vec3};

mod compare;
mod files;
mod machine;

use super::command::{BlendEdit, CameraMove, ClipPass, Command, Transport};
use super::state::document::{Document, MANNEQUIN_KEY, Tuning};
use super::state::history::History;
use super::state::session::{Persisted, Session, Status};
use crate::blend::BlendSampler;
use crate::core::{ClipBinding, Pose};
use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use crate::layers::LayerRig;
use crate::layers::look_at::LookBoneReport;
use crate::render::OrbitCamera;
use crate::render::camera::posed_bounds;

/// Longest time step one frame advances. Up to it playback keeps real time however slow the frames are (software
/// rendering draws a frame in hundreds of milliseconds): frames are skipped, not slowed. A longer stall (a
/// debugger, a suspended laptop) does not jump the animation, and the viewport's corner says playback fell behind.
pub const MAX_FRAME_STEP_S: f32 = 1.0;
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
    /// Onion-skin ghost poses of the last update: (after the current time, model-space joint matrices).
    ghosts: Vec<(bool, Vec<Mat4>)>,
    /// The pose's matrices moved to where the character stands (empty while it stands at the origin).
    placed: Vec<Mat4>,
    /// The camera is as the last framing left it (no orbit, pan or zoom since): a new viewport shape reframes.
    camera_framed: bool,
    /// The skate meter of what plays and the skate map, measured in the background.
    feet: crate::app::feet::FeetAnalysis,
    /// The panels' analyses (new space, Compute positions, loop match, curves), run in the background.
    analyses: crate::app::analyses::PanelAnalyses,
    /// A second character playing the machine under another transition model, beside the first.
    compare: Option<compare::Compare>,
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
            ghosts: Vec::new(),
            placed: Vec::new(),
            camera_framed: false,
            feet: crate::app::feet::FeetAnalysis::new(),
            analyses: crate::app::analyses::PanelAnalyses::new(),
            compare: None,
            doc,
        };
        s.adopt_model();
        s.session.report(
            "Built-in mannequin on its locomotion blend space. Open a .glb/.gltf/.vrm/.fbx model, a clip or a preset (File menu, or drop a file).".into(),
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
        self.session.eval.layer_stage().rig()
    }

    /// The current local pose.
    pub fn pose(&self) -> &Pose {
        &self.session.eval.output().local
    }

    /// Joint matrices of the current pose where the character stands: model space, moved by the user's drag
    /// and the sway ([`crate::app::state::Session::placement`]).
    pub fn matrices(&self) -> &[Mat4] {
        if self.placed.is_empty() {
            &self.session.eval.output().model
        } else {
            &self.placed
        }
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
        self.session.eval.clock().layer_time()
    }

    /// The clip playing, as an index into the document's clips (None for the blend space or the rest pose).
    pub fn clip(&self) -> Option<usize> {
        self.session.eval.source().clip()
    }

    /// True when the pose comes from the blend space instead of one clip.
    pub fn blending(&self) -> bool {
        self.session.eval.source().blend_space().is_some()
    }

    /// The blend space's clips resolved against the current model.
    pub fn blend_sampler(&self) -> &BlendSampler {
        &self.blend_sampler
    }

    /// The clip binding's report: tracks that found no joint and joints without a track.
    pub fn binding(&self) -> Option<&ClipBinding> {
        self.session.eval.source().binding()
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

    /// Where the head is now (model space): the humanoid head, else the top centre of the character's posed
    /// bounds. Dragging the look-at target moves it on a plane in front of this point.
    pub fn look_head(&self) -> Vec3 {
        let c = &self.doc.model.character;
        let joint = c.humanoid.joint(crate::core::HumanBone::Head);
        match joint.and_then(|j| self.matrices().get(j)) {
            Some(m) => m.w_axis.truncate(),
            None => {
                let (min, max) = posed_bounds(c, self.matrices());
                Vec3::new((min.x + max.x) * 0.5, max.y, (min.z + max.z) * 0.5)
            }
        }
    }

    /// Key times of the playing clip (sorted, without repeats) for the tracks driving `joint`, or for every
    /// track when `joint` is None; empty unless a clip plays. At most `limit` of them (evenly thinned).
    pub fn key_times(&self, joint: Option<usize>, limit: usize) -> Vec<f32> {
        let (Some(index), Some(binding)) = (self.clip(), self.binding()) else {
            return Vec::new();
        };
        let clip = &self.doc.clips[index];
        let mut times: Vec<f32> = clip
            .tracks
            .iter()
            .zip(&binding.tracks)
            .filter(|(_, b)| joint.is_none() || b.as_ref().map(|b| b.joint) == joint)
            .flat_map(|(t, _)| {
                let channels = [
                    t.translation.as_ref().map(|k| k.times()),
                    t.rotation.as_ref().map(|k| k.times()),
                    t.scale.as_ref().map(|k| k.times()),
                ];
                channels.into_iter().flatten().flatten().copied()
            })
            .filter(|t| t.is_finite())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-5);
        if times.len() > limit.max(1) {
            let step = times.len() as f32 / limit.max(1) as f32;
            times = (0..limit.max(1))
                .map(|i| times[(i as f32 * step) as usize])
                .collect();
        }
        times
    }

    /// Carries out one command. The pose is evaluated by the next [`EditorState::update`].
    pub fn apply(&mut self, command: Command) {
        self.clock_jumped |= matches!(
            command,
            Command::Open(_)
                | Command::AddClips(_)
                | Command::AddClipsKeepingSource(_)
                | Command::LoadMannequin
                | Command::PlayClip(_)
                | Command::PlayBlend
                | Command::SplitTake(_)
                | Command::PassClip(..)
                | Command::RemoveSplit(_)
                | Command::Transport(
                    Transport::Stop
                        | Transport::Scrub(_)
                        | Transport::ScrubToEnd
                        | Transport::StepFrames(_)
                )
        );
        match command {
            Command::Open(path) => self.open(&path),
            Command::DismissControllerChoice => self.session.controller_choice.clear(),
            Command::AddClips(path) => self.add_clips_or_report(&path, true),
            Command::AddClipsKeepingSource(path) => self.add_clips_or_report(&path, false),
            Command::SavePreset { path, overwrite } => self.save_preset(&path, overwrite),
            Command::LoadMannequin => {
                self.stash_model_tuning();
                let recent = std::mem::take(&mut self.session.recent);
                let spaces = std::mem::take(&mut self.session.spaces);
                let machines = std::mem::take(&mut self.session.machines);
                *self = EditorState::new();
                self.session.recent = recent;
                self.session.spaces = spaces;
                self.session.machines = machines;
                self.doc.tuning.state_machine = self.machine_for(MANNEQUIN_KEY);
                if let Some(space) = self.session.spaces.get(MANNEQUIN_KEY).cloned() {
                    self.doc.tuning.blend = space;
                    self.rebind_blend();
                    self.play_blend();
                    self.session.eval.play();
                }
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
            } => self.session.selected = self.joint_at(cursor, size, radius),
            Command::Camera(m) => match m {
                CameraMove::Orbit(yaw, pitch) => {
                    self.camera_framed = false;
                    self.session.camera.orbit(yaw, pitch);
                }
                CameraMove::Pan(x, y) => {
                    self.camera_framed = false;
                    self.session.camera.pan(x, y);
                }
                CameraMove::Zoom(f) => {
                    self.camera_framed = false;
                    self.session.camera.zoom(f);
                }
                CameraMove::Frame => self.frame_model(),
                CameraMove::View(v) => {
                    self.session.camera.set_view(v);
                    self.frame_model();
                }
                CameraMove::Reset => {
                    self.session.camera = OrbitCamera::default();
                    self.frame_model();
                }
                CameraMove::SetAspect(a) => {
                    if a.is_finite() && a > 0.0 && a != self.session.viewport_aspect {
                        self.session.viewport_aspect = a;
                        // A framing the user has not changed since follows the viewport's new shape (the
                        // first frame of a model opened at start-up was framed before the viewport's size was
                        // known).
                        if self.camera_framed {
                            self.frame_model();
                        }
                    }
                }
            },
            Command::SetHumanBone(bone, joint) => self.set_human_bone(bone, joint),
            Command::SetHipsPlacement(p) => self.set_hips_placement(p),
            Command::SetIkGoals(goals) => self.set_ik_goals(goals),
            Command::SetClipSettings { clip, settings } => self.set_clip_settings(clip, settings),
            Command::SplitTake(index) => self.split_take(index),
            Command::PassClip(index, pass) => self.pass_clip(index, pass),
            Command::RemoveSplit(name) => self.remove_split(&name),
            Command::ChooseFile(_) => {}
            Command::SetClipRootMotion(mode) => {
                self.session.eval.source_mut().set_clip_root_motion(mode);
                self.session.root_trail.clear();
                // The root jumps (in place: back near the origin; kept: on to where the loops took it): the
                // next frame brings the camera over it instead of leaving the view empty.
                self.session.recenter_on_root = true;
            }
            Command::FollowRoot(on) => self.session.follow_root = on,
            Command::SetOnionSkin(onion) => self.session.onion = onion,
            Command::SetPlayRange(range) => {
                // A range belongs to one clip: a blend space (or the rest pose) has none to set.
                if range.is_some() && self.clip().is_none() {
                    self.session.report(
                        "In/out points mark a range of a single clip: choose a clip in the clip list first"
                            .to_string(),
                        false,
                    );
                } else {
                    self.session.eval.clock_mut().set_play_range(range);
                }
            }
            Command::ShowSkeleton(on) => self.session.show_skeleton = on,
            Command::ShowGrid(on) => self.session.show_grid = on,
            Command::ShowSprings(on) => self.session.show_springs = on,
            Command::ShowSkateMap(on) => self.session.show_skate_map = on,
            Command::Drive(on) => {
                if on && !self.blending() {
                    self.play_blend();
                }
                if on {
                    self.session.eval.play();
                }
                self.session.driving = on;
                self.session.drive = crate::blend::Drive::default();
                self.session.stick = [0.0, 0.0];
            }
            Command::Stick(stick) => {
                self.session.stick = stick.map(|v| if v.is_finite() { v } else { 0.0 })
            }
            Command::SetDriveParams(p) => self.session.drive_params = p,
            Command::MoveCharacter(by) => {
                if by.is_finite() {
                    self.session.character_offset += by;
                }
            }
            Command::CenterCharacter => {
                self.session.character_offset = Vec3::ZERO;
                self.session.shake = false;
            }
            Command::Shake(on) => {
                self.session.shake = on;
                self.session.shake_time = 0.0;
            }
            Command::ResetSprings => self.session.eval.layer_stage_mut().reset_springs(),
            Command::NewMachine => self.new_machine(),
            Command::EditMachine(edit) => self.edit_machine(edit),
            Command::PlayMachine => {
                self.play_machine();
            }
            Command::SetMachineParameter(name, value) => self.set_parameter(&name, value, false),
            Command::FireTrigger(name) => {
                self.set_parameter(&name, crate::graph::ParameterValue::Bool(true), true)
            }
            Command::PreviewTransition { transition, time } => self.preview(transition, time),
            Command::RecordScript(on) => self.record(on),
            Command::ReplayScript => self.replay(),
            Command::OpenScript(path) => self.open_script(&path),
            Command::SaveScript { path, overwrite } => self.save_script(&path, overwrite),
            Command::SetTriggerKey(name, key) => self.set_trigger_key(name, key),
            Command::CompareModels(model) => self.set_compare(model),
            Command::Report { text, is_error } => self.session.report(text, is_error),
            Command::Analyze(analysis) => {
                let doc = self.doc_key();
                let d = &self.doc;
                self.analyses.start(
                    analysis,
                    doc,
                    &d.model.character,
                    &d.clips,
                    &d.tuning.blend,
                    &d.name,
                );
            }
            Command::MeasureLoopMatch(clip) => {
                let doc = self.doc_key();
                let d = &self.doc;
                self.analyses
                    .ask_loop_match(doc, clip, &d.model.character, &d.clips);
            }
            Command::ComputeCurves => match self.curves_key() {
                Some(key) => {
                    let doc = self.doc_key();
                    let look = self.look_target();
                    let d = &self.doc;
                    self.analyses.ask_curves(
                        key,
                        &self.session.eval,
                        doc,
                        &d.model.character,
                        &d.clips,
                        look,
                    );
                }
                None => self.analyses.clear_curves(),
            },
        }
    }

    /// Ends a frame: closes the undo step of an interaction that is over (`busy` while a button is held or a
    /// field has focus), advances the clock by `dt` seconds (not in a frame whose commands moved the clock:
    /// it shows the time they chose) and evaluates the pose, once.
    pub fn update(&mut self, dt: f32, busy: bool) {
        for command in self.analyses.poll(self.doc_key()) {
            self.apply(command);
        }
        self.analyses.collect();
        if !busy {
            self.history.close(&self.doc.tuning);
        }
        let clock = if std::mem::take(&mut self.clock_jumped) {
            ClockStep::Hold
        } else {
            ClockStep::Advance(dt)
        };
        if self.session.shake {
            self.session.shake_time += dt.max(0.0);
        }
        self.drive(dt);
        let placement = self.session.placement();
        let input = EvalInput {
            clock,
            blend_point: None,
            look_target: Some(self.look_target()),
            placement: Some(placement),
            ..Default::default()
        };
        if let Some(e) = &self.session.eval.evaluate(&input).error {
            let text = format!("{}: cannot evaluate the pose: {e}", self.doc.name);
            if self.session.status.text != text {
                self.session.report(text, true);
            }
        }
        self.note_replay_progress();
        self.step_compare(placement);
        self.placed.clear();
        if placement != Mat4::IDENTITY {
            let model = &self.session.eval.output().model;
            self.placed.extend(model.iter().map(|m| placement * *m));
        }
        self.follow_root();
        self.measure_feet();
        self.pose_ghosts();
        if std::mem::take(&mut self.frame_pending) {
            self.frame_model();
        }
    }

    /// While driving: the point follows the stick through the spring, and an in-place blend moves the character
    /// by the travel it takes out of the pose (the camera follows; the grid follows the character).
    fn drive(&mut self, dt: f32) {
        if !self.session.driving || !self.blending() {
            self.session.driving = false;
            return;
        }
        let dt = f64::from(dt.clamp(0.0, MAX_FRAME_STEP_S));
        let space = &self.doc.tuning.blend;
        let stick = self.session.stick.map(f64::from);
        let target = crate::blend::Drive::target(space, stick);
        let point = self
            .session
            .drive
            .step(space.point, target, dt, &self.session.drive_params);
        self.doc.tuning.blend.set_point(point);
        // Held at an end of an axis, the point stops there.
        let held = self.doc.tuning.blend.point;
        for k in 0..2 {
            if held[k] != point[k] {
                self.session.drive.velocity[k] = 0.0;
            }
        }
        self.session.eval.set_blend_point(held);
        if self.doc.tuning.blend.root_motion == crate::blend::RootMotion::InPlace
            && self.session.eval.clock().is_playing()
            && let Some(sampler) = self.session.eval.source().blend_sampler()
        {
            let velocity = sampler
                .travel_velocity(&self.doc.tuning.blend.weights(), self.doc.tuning.blend.sync)
                * self.session.eval.clock().speed();
            let by = velocity * dt as f32;
            if by.is_finite() {
                self.session.character_offset += by;
                self.session.camera.target += by;
            }
        }
    }

    /// The panels' analyses and what they found.
    pub fn analyses(&self) -> &crate::app::analyses::PanelAnalyses {
        &self.analyses
    }

    /// The document as analyses key it: its character generation and tuning revision.
    pub fn doc_key(&self) -> crate::app::analyses::DocKey {
        (self.doc.generation, self.doc.revision)
    }

    /// What the selected joint's curves depend on (None when no joint is selected).
    pub fn curves_key(&self) -> Option<crate::app::analyses::CurvesKey> {
        Some(crate::app::analyses::CurvesKey {
            generation: self.doc.generation,
            tuning: self.doc.tuning.clone(),
            clip: self.clip(),
            blending: self.blending(),
            joint: self.session.selected?,
            look_target: self.look_target().to_array(),
            root_motion: self.session.eval.source().clip_root_motion(),
            frame_rate: self.session.frame_rate,
        })
    }

    /// The skate meter of what plays and the blend space's skate map.
    pub fn feet(&self) -> &crate::app::feet::FeetAnalysis {
        &self.feet
    }

    /// Asks the feet analysis for what plays now (and for the skate map while it is shown), and picks up what it
    /// finished.
    fn measure_feet(&mut self) {
        use crate::app::feet::FeetKey;
        let tuning = &self.doc.tuning;
        let foot_lock = tuning
            .layers
            .foot_lock
            .enabled
            .then(|| tuning.layers.foot_lock.clone());
        let clip = self.session.eval.source().clip();
        let space = self.session.eval.source().blend_space().cloned();
        let character = &self.doc.model.character;
        if clip.is_some() || space.is_some() {
            let key = FeetKey {
                generation: self.doc.generation,
                clip,
                space: if clip.is_some() { None } else { space.clone() },
                clip_settings: tuning.clip_settings.clone(),
                foot_lock: foot_lock.clone(),
            };
            self.feet.update_meter(key, character, &self.doc.clips);
        } else {
            self.feet.clear_meter();
        }
        let map_key = (self.session.show_skate_map && self.blend_sampler.missing().is_empty())
            .then(|| {
                let mut space = tuning.blend.clone();
                space.point = [0.0, 0.0];
                FeetKey {
                    generation: self.doc.generation,
                    clip: None,
                    space: Some(space),
                    clip_settings: tuning.clip_settings.clone(),
                    foot_lock,
                }
            });
        self.feet.update_map(map_key, character, &self.doc.clips);
    }

    /// Onion-skin ghosts of the last update, oldest first: (after the current time, model-space matrices).
    pub fn ghosts(&self) -> &[(bool, Vec<Mat4>)] {
        &self.ghosts
    }

    /// Poses the onion-skin ghosts: a copy of the evaluator seeks to each ghost's time (the source's own
    /// times, wrapped when looping, else clamped), and every ghost is moved by the root travel the current
    /// pose has accumulated over loops, so that ghosts stay beside the character.
    fn pose_ghosts(&mut self) {
        self.ghosts.clear();
        let onion = self.session.onion;
        if !onion.enabled || !(self.blending() || self.clip().is_some()) {
            return;
        }
        let eval = &self.session.eval;
        let (now, duration) = (eval.time(), eval.duration());
        if duration <= 0.0 {
            return;
        }
        let step = onion.step_frames.max(1) as f32 / self.session.frame_rate.max(1.0);
        let mut ghost = eval.clone();
        let seek = |ghost: &mut Evaluator, t: f32| {
            let t = if eval.clock().is_looping() {
                crate::eval::wrap_cycle(f64::from(t), f64::from(duration)) as f32
            } else {
                t.clamp(0.0, duration)
            };
            ghost.clock_mut().pause();
            ghost.evaluate(&EvalInput {
                clock: ClockStep::Seek(t),
                ..EvalInput::default()
            });
        };
        // The loops' travel: where the root is now, against where a seek to the same time puts it.
        let root = eval.source().root_joint();
        let root_at = |m: &[Mat4]| {
            root.and_then(|r| m.get(r))
                .map_or(Vec3::ZERO, |m| m.w_axis.truncate())
        };
        seek(&mut ghost, now);
        let shift = root_at(self.matrices()) - root_at(&ghost.output().model);
        let shift = Mat4::from_translation(Vec3::new(shift.x, 0.0, shift.z));
        let before = (1..=onion.before)
            .rev()
            .map(|k| (false, now - k as f32 * step));
        let after = (1..=onion.after).map(|k| (true, now + k as f32 * step));
        for (is_after, t) in before
            .chain(after)
            .take(crate::render::renderer::MAX_GHOSTS)
        {
            seek(&mut ghost, t);
            let model = ghost.output().model.iter().map(|m| shift * *m).collect();
            self.ghosts.push((is_after, model));
        }
    }

    /// Moves the camera with the root while a clip plays (its target moves by the root's horizontal step, so the
    /// view follows without turning; after a change of root motion it is put over the root), and extends the root
    /// trail while the clip's motion is kept.
    fn follow_root(&mut self) {
        let Some(root) = self.session.eval.source().root_joint() else {
            return;
        };
        // The clip's own travel (the user's drag and the sway are not followed: the character is seen moving).
        let Some(m) = self.session.eval.output().model.get(root) else {
            return;
        };
        let p = m.w_axis.truncate();
        let here = Vec3::new(p.x, 0.0, p.z);
        let playing_clip = self.clip().is_some();
        let kept = playing_clip
            && self.session.eval.source().clip_root_motion() == crate::blend::RootMotion::Keep;
        let s = &mut self.session;
        if !playing_clip || !here.is_finite() {
            s.root_trail.clear();
            s.followed_root = None;
            return;
        }
        if s.follow_root {
            if std::mem::take(&mut s.recenter_on_root) {
                s.camera.target.x = here.x;
                s.camera.target.z = here.z;
            } else if let Some(last) = s.followed_root {
                s.camera.target += here - last;
            }
        }
        s.followed_root = Some(here);
        if !kept {
            s.root_trail.clear();
            return;
        }
        if let Some(&last) = s.root_trail.last()
            && last.distance(here) < 1e-4
        {
            return;
        }
        // Past what the overlay draws, the oldest quarter goes.
        let limit = crate::render::overlay::MAX_TRAIL_POINTS;
        if s.root_trail.len() >= limit {
            s.root_trail.drain(..limit / 4);
        }
        s.root_trail.push(here);
    }

    fn transport(&mut self, t: Transport) {
        let eval = &mut self.session.eval;
        match t {
            Transport::Play => eval.play(),
            Transport::TogglePlay => {
                if eval.clock().is_playing() {
                    eval.clock_mut().pause();
                } else {
                    eval.play();
                }
            }
            Transport::Stop => {
                eval.clock_mut().pause();
                self.seek_to(0.0);
            }
            Transport::Scrub(time) => {
                eval.clock_mut().pause();
                self.seek_to(time);
            }
            Transport::ScrubToEnd => {
                eval.clock_mut().pause();
                let end = eval.play_range().map_or(eval.duration(), |[_, b]| b);
                // A looping clip's end is its first frame again: End shows the last frame before it, as
                // Blender's and Unity's End do.
                let t = if eval.loops() {
                    last_frame_before(end, self.session.frame_rate)
                } else {
                    end
                };
                self.seek_to(t);
            }
            Transport::StepFrames(frames) => {
                eval.clock_mut().pause();
                let rate = self.session.frame_rate;
                let t = (self.session.frame() as i32 + frames).max(0) as f32 / rate;
                self.seek_to(t);
            }
            Transport::SetLooping(on) => eval.clock_mut().set_looping(on),
            Transport::SetSpeed(speed) => eval.clock_mut().set_speed(speed),
        }
    }

    fn adopt_model(&mut self) {
        // Unnamed clips are "clip N" everywhere: the clip list, blend nodes, the timeline and exports.
        for (i, clip) in self.doc.model.clips.iter_mut().enumerate() {
            if clip.name.trim().is_empty() {
                clip.name = format!("clip {i}");
            }
        }
        self.doc.source_clips = self.doc.model.clips.clone();
        // Clips made from takes belong to the model whose takes they copy.
        self.doc.tuning.clip_splits.clear();
        self.doc.applied_splits.clear();
        self.doc.root_pass_reports.clear();
        self.doc.loop_fix_reports.clear();
        self.doc.skate_fix_reports.clear();
        self.doc.clips = crate::offline::apply_clip_settings(
            &self.doc.model.character,
            &self.doc.source_clips,
            &self.doc.tuning.clip_settings,
        )
        .0;
        self.doc.clip_sources.clear();
        if self.doc.model.character.meshes.is_empty() {
            // A bare skeleton (a skinless VRM armature, a VRMA) shows as its skeleton, or not at all.
            self.session.show_skeleton = true;
        }
        self.doc.generation += 1;
        self.session.selected = None;
        self.session.root_trail.clear();
        self.session.eval = self.new_evaluator(SourceSpec::Rest);
        self.rebind_blend();
        // Blend when every node of the space finds its clip in this model; otherwise play the first clip.
        let blend = &self.doc.tuning.blend;
        if !blend.nodes.is_empty() && self.blend_sampler.missing().is_empty() {
            self.play_blend();
        } else {
            self.select_clip((!self.doc.clips.is_empty()).then_some(0));
        }
        // Nothing plays on a model without clips (the rest pose is not "playing").
        if self.blending() || self.clip().is_some() {
            self.session.eval.play();
        }
        // Every model opens in the front view, framed once it is posed.
        self.session.followed_root = None;
        self.session.camera = OrbitCamera::default();
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

    pub(super) fn layers_changed(&mut self) {
        self.doc.revision += 1;
        self.session.eval.set_layers(
            &self.doc.model.character,
            &self.doc.clips,
            &self.doc.tuning.layers,
        );
    }

    /// After undo, redo, a preset or a restored session replaced the whole tuning.
    fn tuning_replaced(&mut self) {
        self.apply_root_joint();
        let playing = self.sync_splits();
        self.apply_humanoid();
        self.apply_clip_settings();
        if let Some(name) = playing {
            self.play_loaded_clip(&name);
        }
        self.rebind_blend();
        self.layers_changed();
        self.machine_changed();
    }

    /// Makes the loaded clips hold one copy of its take per clip split of the tuning (removing the copies of
    /// splits it no longer has); returns the loaded name of the clip that was playing when they changed, so that
    /// it plays on at its new place, or of its take when it was removed (an undo of a clip just made goes back to
    /// the clip it was made from). A split that cannot be made (its take missing, its name taken) is reported.
    fn sync_splits(&mut self) -> Option<String> {
        let wanted = self.doc.tuning.clip_splits.clone();
        if wanted == self.doc.applied_splits {
            return None;
        }
        let playing = self
            .clip()
            .filter(|_| !self.blending())
            .and_then(|i| self.doc.source_clips.get(i))
            .map(|c| c.name.clone());
        let applied = std::mem::take(&mut self.doc.applied_splits);
        let playing = playing.map(|name| {
            applied
                .iter()
                .find(|s| s.name == name && !wanted.contains(s))
                .map_or(name, |s| s.take.clone())
        });
        let gone: Vec<&str> = applied
            .iter()
            .filter(|s| !wanted.contains(s))
            .map(|s| s.name.as_str())
            .collect();
        self.doc
            .source_clips
            .retain(|c| !gone.contains(&c.name.as_str()));
        for name in &gone {
            self.doc.root_pass_reports.remove(*name);
            self.doc.loop_fix_reports.remove(*name);
            self.doc.skate_fix_reports.remove(*name);
        }
        let kept: Vec<crate::core::ClipSplit> = applied
            .iter()
            .filter(|s| wanted.contains(s))
            .cloned()
            .collect();
        let new: Vec<crate::core::ClipSplit> = wanted
            .iter()
            .filter(|s| !kept.contains(s))
            .cloned()
            .collect();
        match crate::offline::request::with_splits(
            &self.doc.model.character,
            &self.doc.source_clips,
            &new,
            &self.doc.tuning.clip_settings,
        ) {
            Ok(made) => {
                self.doc.source_clips = made.clips;
                self.doc.applied_splits = wanted;
                self.doc.root_pass_reports.extend(made.root_passes);
                self.doc.loop_fix_reports.extend(made.loop_fixes);
                self.doc.skate_fix_reports.extend(made.skate_fixes);
            }
            Err(e) => {
                self.session.report(format!("{}: {e}", self.doc.name), true);
                self.doc.applied_splits = kept;
            }
        }
        playing
    }

    /// Plays the loaded clip named `name` (from its start) if it is not the one playing, or the first clip when
    /// it is gone.
    fn play_loaded_clip(&mut self, name: &str) {
        let at = self.doc.source_clips.iter().position(|c| c.name == name);
        if at.is_some() && at == self.clip() {
            return;
        }
        let fallback = (!self.doc.clips.is_empty()).then_some(0);
        self.select_clip(at.or(fallback));
        self.session.eval.play();
    }

    /// Makes another clip from the take the clip at `index` plays (Unity's clip list: several clips from one
    /// take): a copy named "<clip> 2" (or the next free number) cropped to the in/out range when one is set, else
    /// as the clip is, in one undo step; it then plays.
    fn split_take(&mut self, index: usize) {
        let Some(source) = self.doc.source_clips.get(index) else {
            return;
        };
        // A clip made from a take splits that take again.
        let take = self
            .doc
            .tuning
            .clip_splits
            .iter()
            .find(|s| s.name == source.name)
            .map_or_else(|| source.name.clone(), |s| s.take.clone());
        let shown = self.doc.clips[index].name.clone();
        let Some(name) = self.free_clip_name((2..10_000).map(|k| format!("{shown} {k}"))) else {
            return;
        };
        let mut settings = self.copied_settings(&source.name);
        if let Some([a, b]) = self.session.eval.play_range() {
            let offset = settings.start.unwrap_or(0.0);
            settings.start = Some(offset + a).filter(|&t| t > 0.0);
            settings.end = Some(offset + b);
        }
        self.history.before_edit(&self.doc.tuning);
        self.doc.tuning.clip_splits.push(crate::core::ClipSplit {
            take,
            name: name.clone(),
            root_pass: None,
            skate_fix: None,
            loop_fix: None,
        });
        if !settings.is_identity() {
            self.doc.tuning.clip_settings.insert(name.clone(), settings);
        }
        self.doc.revision += 1;
        self.tuning_replaced();
        self.history.close(&self.doc.tuning);
        // The new clip plays whole: the range was the take's.
        self.session.eval.clock_mut().set_play_range(None);
        self.play_loaded_clip(&name);
        self.session
            .report(format!("Made clip {name} from take {shown}"), false);
    }

    /// The first of `names` that no clip has (as loaded or as its settings name it).
    fn free_clip_name(&self, mut names: impl Iterator<Item = String>) -> Option<String> {
        names.find(|n| {
            !(self.doc.clips.iter().any(|c| c.name == *n)
                || self.doc.source_clips.iter().any(|c| c.name == *n))
        })
    }

    /// The settings a new clip made from the loaded clip `name` starts with: that clip's, without its new name.
    fn copied_settings(&self, name: &str) -> crate::core::ClipSettings {
        let mut settings = self
            .doc
            .tuning
            .clip_settings
            .get(name)
            .cloned()
            .unwrap_or_default();
        settings.name = None;
        settings
    }

    /// Makes a clip from the clip at `index` as it plays (its settings applied) with a pass over it, a root-motion
    /// pass, a skate clean-up or a loop-seam fix, named "<clip> (root extracted)", "(root in pose)", "(skate
    /// fixed)" or "(loop fixed)", in one undo
    /// step; it then plays, and the status bar gives the pass's figures before and after. The new clip keeps the
    /// clip's Loop Time, and no other setting (the pass ran over them). A pass that cannot run is reported and
    /// makes nothing.
    fn pass_clip(&mut self, index: usize, pass: ClipPass) {
        use crate::core::clip_pass::RootPass;
        let Some(source) = self.doc.source_clips.get(index) else {
            return;
        };
        let take = source.name.clone();
        let shown = self.doc.clips[index].name.clone();
        let what = match pass {
            ClipPass::Root(RootPass::Extract { .. }) => "root extracted",
            ClipPass::Root(RootPass::IntoPose { .. }) => "root in pose",
            ClipPass::Loop(_) => "loop fixed",
            ClipPass::Skate(_) => "skate fixed",
        };
        let Some(name) = self.free_clip_name(
            std::iter::once(format!("{shown} ({what})"))
                .chain((2..10_000).map(|k| format!("{shown} ({what} {k})"))),
        ) else {
            return;
        };
        let settings = crate::core::ClipSettings {
            loop_time: self.copied_settings(&take).loop_time,
            ..Default::default()
        };
        self.history.before_edit(&self.doc.tuning);
        // A rig whose hips are its top joint gets a root joint to extract onto, in the same undo step.
        let adds_root = matches!(pass, ClipPass::Root(RootPass::Extract { .. }))
            && crate::offline::root_pass::rootless_hips(&self.doc.model.character).is_some();
        if adds_root {
            self.doc.tuning.root_joint = true;
        }
        let mut split = crate::core::ClipSplit {
            take,
            name: name.clone(),
            root_pass: None,
            skate_fix: None,
            loop_fix: None,
        };
        match pass {
            ClipPass::Root(p) => split.root_pass = Some(p),
            ClipPass::Loop(f) => split.loop_fix = Some(f),
            ClipPass::Skate(f) => split.skate_fix = Some(f),
        }
        self.doc.tuning.clip_splits.push(split);
        if !settings.is_identity() {
            self.doc.tuning.clip_settings.insert(name.clone(), settings);
        }
        self.doc.revision += 1;
        self.tuning_replaced();
        let brief = match pass {
            ClipPass::Root(_) => self.doc.root_pass_reports.get(&name).map(|r| r.brief()),
            ClipPass::Loop(_) => self.doc.loop_fix_reports.get(&name).map(|r| r.brief()),
            ClipPass::Skate(_) => self.doc.skate_fix_reports.get(&name).map(|r| r.brief()),
        };
        let Some(brief) = brief else {
            // The pass could not run (reported by the sync): nothing was made, nothing to undo.
            self.doc.tuning.clip_splits.retain(|s| s.name != name);
            self.doc.tuning.clip_settings.remove(&name);
            if adds_root {
                self.doc.tuning.root_joint = false;
            }
            self.tuning_replaced();
            self.history.close(&self.doc.tuning);
            return;
        };
        self.history.close(&self.doc.tuning);
        self.play_loaded_clip(&name);
        let added = if adds_root {
            format!(
                " (a joint {} was added above the hips to carry it)",
                crate::offline::root_pass::ADDED_ROOT_NAME
            )
        } else {
            String::new()
        };
        self.session
            .report(format!("Made clip {name}{added}: {brief}"), false);
    }

    /// Removes a clip made from a take (its settings go with it), in one undo step.
    fn remove_split(&mut self, name: &str) {
        if !self.doc.tuning.clip_splits.iter().any(|s| s.name == name) {
            return;
        }
        self.history.before_edit(&self.doc.tuning);
        self.doc.tuning.clip_splits.retain(|s| s.name != name);
        self.doc.tuning.clip_settings.remove(name);
        self.doc.revision += 1;
        self.tuning_replaced();
        self.history.close(&self.doc.tuning);
    }

    /// Makes the clips that play from the loaded ones and the tuning's clip settings; when that changes them,
    /// the evaluator is rebuilt on them, keeping the time and the transport. A setting that cannot apply (a crop
    /// outside its clip) is reported and its clip plays as loaded.
    fn apply_clip_settings(&mut self) {
        let (clips, problems) = crate::offline::apply_clip_settings(
            &self.doc.model.character,
            &self.doc.source_clips,
            &self.doc.tuning.clip_settings,
        );
        if !problems.is_empty() {
            self.session
                .report(format!("clip settings: {}", problems.join("; ")), true);
        }
        if clips == self.doc.clips {
            return;
        }
        self.doc.clips = clips;
        self.rebuild_evaluator();
    }

    /// Makes the character's humanoid map the model's own with the tuning's override; when that changes the
    /// map, everything that reads it (clips bound by human bone, the blend space, the layers, root motion) is
    /// bound again, keeping the time and the transport.
    fn apply_humanoid(&mut self) {
        let c = &self.doc.model.character;
        let mut map = match self
            .doc
            .base_humanoid
            .clone()
            .with_override(&self.doc.tuning.humanoid, &c.skeleton)
        {
            Ok(map) => map,
            Err(e) => {
                let text = format!("{}: humanoid override: {e}", self.doc.name);
                self.session.report(text, true);
                return;
            }
        };
        map.hips_placement = self.doc.tuning.hips_placement;
        map.ik_goals = self.doc.tuning.ik_goals;
        if map == c.humanoid {
            return;
        }
        self.doc.model.character.humanoid = map;
        self.doc.generation += 1;
        self.rebuild_evaluator();
    }

    /// Adds the root joint the tuning asks for above the hips of a rig whose hips are its top joint, or takes it
    /// away again (the character goes back to the one loaded). The character changes, so everything bound to it is
    /// bound again and the selection, an index into its joints, is cleared.
    fn apply_root_joint(&mut self) {
        let shift = match (self.doc.tuning.root_joint, self.doc.rootless.is_some()) {
            (true, false) => {
                match crate::offline::root_pass::with_added_root(&self.doc.model.character) {
                    None => return,
                    Some(Ok(with_root)) => {
                        let before = std::mem::replace(&mut self.doc.model.character, with_root);
                        self.doc.rootless = Some(before);
                        1
                    }
                    Some(Err(e)) => {
                        let text = format!("{}: no root joint could be added: {e}", self.doc.name);
                        self.session.report(text, true);
                        return;
                    }
                }
            }
            (false, true) => {
                if let Some(before) = self.doc.rootless.take() {
                    self.doc.model.character = before;
                }
                -1
            }
            _ => return,
        };
        self.doc.base_humanoid = self
            .doc
            .base_humanoid
            .with_joints_moved(|j| j.saturating_add_signed(shift));
        self.session.selected = None;
        self.doc.generation += 1;
        self.apply_humanoid();
        self.rebuild_evaluator();
    }

    /// A new evaluator on the current character and clips, playing what the old one played, at its time.
    fn rebuild_evaluator(&mut self) {
        let old = &self.session.eval;
        let source = if let Some(space) = old.source().blend_space() {
            SourceSpec::Blend(space.clone())
        } else if let Some(i) = old.source().clip() {
            SourceSpec::Clip(i)
        } else {
            SourceSpec::Rest
        };
        let (time, playing, range) = (old.time(), old.clock().is_playing(), old.play_range());
        let mut eval = self.new_evaluator(source);
        eval.clock_mut().set_play_range(range);
        eval.seek(time);
        if playing {
            eval.play();
        }
        self.session.eval = eval;
        self.clock_jumped = true;
        let character = &self.doc.model.character;
        self.blend_sampler = BlendSampler::bind(&self.doc.tuning.blend, &self.doc.clips, character);
    }

    /// An evaluator for the current character, clips and layers playing `source`, with the current one's loop,
    /// speed and clip root motion, and loops accumulated (the editor's clock counts cycles).
    fn new_evaluator(&self, source: SourceSpec) -> Evaluator {
        let old = &self.session.eval;
        let mut eval = Evaluator::new(
            &self.doc.model.character,
            &self.doc.clips,
            source,
            self.doc.tuning.layers.clone(),
        );
        eval.clock_mut().set_looping(old.clock().is_looping());
        eval.clock_mut().set_speed(old.clock().speed());
        eval.source_mut()
            .set_clip_root_motion(old.source().clip_root_motion());
        eval.source_mut().set_accumulate_loops(true);
        eval
    }

    /// Maps a human bone to a joint (None: to no joint) as an undoable override; saved in presets.
    fn set_clip_settings(&mut self, clip: String, settings: crate::core::ClipSettings) {
        let current = self
            .doc
            .tuning
            .clip_settings
            .get(&clip)
            .cloned()
            .unwrap_or_default();
        if current == settings {
            return;
        }
        let (old_name, new_name) = (
            current.name_of(&clip).to_string(),
            settings.name_of(&clip).to_string(),
        );
        if old_name != new_name {
            if new_name.trim().is_empty() {
                self.session
                    .report(format!("{old_name}: a clip name cannot be empty"), true);
                return;
            }
            if self.doc.clips.iter().any(|c| c.name == new_name) {
                self.session.report(
                    format!("{old_name}: cannot be renamed {new_name}: another clip has that name"),
                    true,
                );
                return;
            }
        }
        self.history.before_edit(&self.doc.tuning);
        if old_name != new_name {
            rename_clip_references(&mut self.doc.tuning, &old_name, &new_name);
        }
        if settings.is_identity() {
            self.doc.tuning.clip_settings.remove(&clip);
        } else {
            self.doc.tuning.clip_settings.insert(clip, settings);
        }
        self.doc.revision += 1;
        self.tuning_replaced();
        // A drag of a handle or a field sends a change per pointer sample: the step closes when the
        // interaction ends ([`EditorState::update`]).
    }

    fn set_hips_placement(&mut self, placement: crate::core::HipsPlacement) {
        if self.doc.tuning.hips_placement == placement {
            return;
        }
        self.history.before_edit(&self.doc.tuning);
        self.doc.tuning.hips_placement = placement;
        self.doc.revision += 1;
        self.tuning_replaced();
        self.history.close(&self.doc.tuning);
    }

    /// The retarget IK goals: a drag of one of their fields is one undo step, closed when the interaction ends.
    fn set_ik_goals(&mut self, goals: crate::core::IkGoals) {
        if self.doc.tuning.ik_goals == goals {
            return;
        }
        if let Err((field, problem)) = goals.validate() {
            self.session
                .report(format!("IK goals: {field}: {problem}"), true);
            return;
        }
        let chains_changed = self.doc.tuning.ik_goals.chains() != goals.chains();
        self.history.before_edit(&self.doc.tuning);
        self.doc.tuning.ik_goals = goals;
        self.doc.revision += 1;
        self.tuning_replaced();
        // What the goals do on the clip playing, or why they cannot run on it, when a chain is turned on or off
        // (not at every sample of a drag).
        if chains_changed && goals.is_active() {
            let c = &self.doc.model.character;
            let report = self.clip().and_then(|i| self.doc.clips.get(i)).map(|clip| {
                match crate::offline::goal_keys::goals_report(c, clip) {
                    Ok(r) => (format!("{}: {}", clip.name, r.brief()), false),
                    Err(e) => (format!("{}: IK goals cannot run: {e}", clip.name), true),
                }
            });
            if let Some((text, is_error)) = report {
                self.session.report(text, is_error);
            }
        }
    }

    fn set_human_bone(&mut self, bone: crate::core::HumanBone, joint: Option<usize>) {
        let skeleton = &self.doc.model.character.skeleton;
        let name = joint.map_or(String::new(), |j| skeleton.name(j).to_string());
        if joint.is_some_and(|j| j >= skeleton.len()) {
            return;
        }
        self.history.before_edit(&self.doc.tuning);
        // The same joint cannot play two bones: the one it played is left unmapped.
        if let Some(j) = joint
            && let Some(other) = self.doc.model.character.humanoid.bone_of(j)
            && other != bone
        {
            self.doc.tuning.humanoid.insert(other, String::new());
        }
        // Back to the model's own mapping: no override needed.
        let own = self.doc.base_humanoid.joint(bone);
        if own == joint {
            self.doc.tuning.humanoid.remove(&bone);
        } else {
            self.doc.tuning.humanoid.insert(bone, name);
        }
        self.doc.revision += 1;
        self.tuning_replaced();
        self.history.close(&self.doc.tuning);
        let c = &self.doc.model.character;
        let text = match c.humanoid.joint(bone) {
            Some(j) => format!("{} is played by '{}'", bone.name(), c.skeleton.name(j)),
            None => format!("{} is not mapped", bone.name()),
        };
        self.session.report(text, false);
    }

    fn edit_blend(&mut self, edit: BlendEdit) {
        let replace = matches!(edit, BlendEdit::Replace(_));
        self.history.before_edit(&self.doc.tuning);
        let rebind = matches!(
            edit,
            BlendEdit::SetNodeClip(..)
                | BlendEdit::RemoveNode(_)
                | BlendEdit::AddNode(_)
                | BlendEdit::Replace(_)
        );
        edit.apply(&mut self.doc.tuning.blend);
        self.doc.revision += 1;
        if rebind {
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
        self.session.eval.clock_mut().pause();
    }

    /// Chooses the clip to play (None: the rest pose), from time 0, paused.
    fn select_clip(&mut self, index: Option<usize>) {
        let source = match index.filter(|&i| i < self.doc.clips.len()) {
            Some(i) => SourceSpec::Clip(i),
            None => SourceSpec::Rest,
        };
        // An in/out range was set on the clip it was set on: another clip starts whole.
        if self.clip() != index {
            self.session.eval.clock_mut().set_play_range(None);
        }
        let character = &self.doc.model.character;
        self.session
            .eval
            .set_source(character, &self.doc.clips, source);
        self.session.eval.clock_mut().pause();
    }

    /// Restores what a previous session saved.
    pub fn restore(&mut self, p: Persisted) {
        let s = &mut self.session;
        s.recent = p.recent;
        // The camera is not restored: every model opens in the front view, framed.
        s.show_skeleton = p.show_skeleton;
        // Blend spaces and layers come back only when valid (a file edited by hand, or from another version).
        let mut spaces = p.spaces;
        if let Some(legacy) = p.blend {
            spaces.entry(MANNEQUIN_KEY.to_string()).or_insert(legacy);
        }
        spaces.retain(|_, space| space.validate().is_ok());
        let mut machines = p.machines;
        machines.retain(|_, machine| machine.validate_playable().is_ok());
        let preset = crate::preset::Preset {
            blend: spaces.get(&self.doc.key).cloned(),
            layers: p.layers.unwrap_or_default(),
            state_machine: machines.get(&self.doc.key).cloned(),
            ..crate::preset::Preset::default()
        };
        self.session.spaces = spaces;
        self.session.machines = machines;
        if preset.validate(Path::new("<saved session>")).is_ok() {
            let blend_was_playing = self.blending();
            if let Some(blend) = preset.blend {
                self.doc.tuning.blend = blend;
            }
            self.doc.tuning.layers = preset.layers;
            self.doc.tuning.state_machine = preset.state_machine;
            self.tuning_replaced();
            self.rescale_look_target(p.look_target_height);
            if blend_was_playing {
                self.play_blend();
                self.session.eval.play();
            }
        }
    }

    /// What to save for the next session.
    pub fn persisted(&self) -> Persisted {
        let mut spaces = self.session.spaces.clone();
        if !self.doc.tuning.blend.nodes.is_empty() {
            spaces.insert(self.doc.key.clone(), self.doc.tuning.blend.clone());
        }
        let mut machines = self.session.machines.clone();
        if let Some(machine) = &self.doc.tuning.state_machine {
            machines.insert(self.doc.key.clone(), machine.clone());
        }
        Persisted {
            recent: self.session.recent.clone(),
            show_skeleton: self.session.show_skeleton,
            blend: None,
            spaces,
            machines,
            layers: Some(self.doc.tuning.layers.clone()),
            look_target_height: self.doc.model.character.rest_height(),
        }
    }

    /// Scales the look-at target (model space, about the character's origin) from a character `from` tall to the
    /// open one, so a target placed before the eyes of one stays before the eyes of another.
    fn rescale_look_target(&mut self, from: Option<f32>) {
        let (Some(from), Some(to)) = (from, self.doc.model.character.rest_height()) else {
            return;
        };
        let ratio = to / from;
        if ratio.is_finite() && (ratio - 1.0).abs() > 0.01 {
            let target = &mut self.doc.tuning.layers.look_at.target;
            *target = target.map(|v| v * ratio);
            self.layers_changed();
        }
    }

    /// Remembers the open model's blend space and state machine (in memory, saved with the session) before
    /// another model opens.
    fn stash_model_tuning(&mut self) {
        let key = self.doc.key.clone();
        match &self.doc.tuning.state_machine {
            Some(machine) => self.session.machines.insert(key.clone(), machine.clone()),
            None => self.session.machines.remove(&key),
        };
        if self.doc.tuning.blend.nodes.is_empty() {
            self.session.spaces.remove(&key);
        } else {
            let space = self.doc.tuning.blend.clone();
            self.session.spaces.insert(key, space);
        }
    }

    /// The blend space a model opens on: the one it was last tuned with, else an empty one (never another
    /// model's).
    fn space_for(&self, key: &str) -> crate::blend::BlendSpace {
        self.session.spaces.get(key).cloned().unwrap_or_default()
    }

    /// The state machine a model opens with: the one it was last tuned with, else none (never another model's).
    fn machine_for(&self, key: &str) -> Option<crate::graph::StateMachine> {
        self.session.machines.get(key).cloned()
    }

    /// Points the camera at the posed character, fitting it to the viewport's aspect on every axis.
    fn frame_model(&mut self) {
        let character = &self.doc.model.character;
        let (mut min, mut max) = posed_bounds(character, self.matrices());
        // A comparison's second character is framed with the first.
        if let Some(second) = self.compare_matrices() {
            let (a, b) = posed_bounds(character, second);
            (min, max) = (min.min(a), max.max(b));
        }
        let aspect = self.session.viewport_aspect;
        self.session.camera.frame(min, max, aspect);
        self.camera_framed = true;
    }

    /// The joint under `cursor` (pixels, in a view of `size`): the one whose skin moves the surface there most,
    /// else, where no surface is hit, the joint drawn nearest within `radius`. With the skeleton shown, a joint
    /// drawn within `radius` wins over the surface behind it.
    pub fn joint_at(&self, cursor: [f32; 2], size: [f32; 2], radius: f32) -> Option<usize> {
        use crate::render::pick;
        let vp = self.session.camera.view_proj(size[0] / size[1].max(1.0));
        let on_screen = || pick::nearest_joint_on_screen(self.matrices(), vp, cursor, size, radius);
        if self.session.show_skeleton
            && let Some(j) = on_screen()
        {
            return Some(j);
        }
        let character = &self.doc.model.character;
        pick::ray_through(vp, cursor, size)
            .and_then(|ray| pick::surface_joint(character, self.matrices(), &ray))
            .map(|(j, _)| j)
            .or_else(on_screen)
    }
}

#[cfg(test)]
mod tests;

/// The time of the last frame at `rate` frames a second strictly before `end` (0 when there is none): where End
/// lands on a loop.
pub fn last_frame_before(end: f32, rate: f32) -> f32 {
    if !(rate > 0.0 && end > 0.0) {
        return 0.0;
    }
    let frames = (f64::from(end) * f64::from(rate) - 1e-4).ceil() - 1.0;
    (frames.max(0.0) / f64::from(rate)) as f32
}

/// Makes the blend nodes and clip layers that play clip `old` (or take their reference pose from it) play `new`:
/// a renamed clip keeps its place everywhere.
fn rename_clip_references(tuning: &mut crate::app::state::document::Tuning, old: &str, new: &str) {
    for node in tuning.blend.nodes.iter_mut().filter(|n| n.clip == old) {
        node.clip = new.to_string();
    }
    for layer in &mut tuning.layers.clips {
        if layer.clip == old {
            layer.clip = new.to_string();
        }
        if layer.reference_clip.as_deref() == Some(old) {
            layer.reference_clip = Some(new.to_string());
        }
    }
}
