//! The Evaluator: the one place that turns (source, time, parameters) into a pose. `evaluate` runs clock
//! (`clock.rs`: the transport and its rules) → source (`source/`: the rest pose, a clip, a blend space or a state
//! machine, each sampled by the runtime jobs) → clip layers (`clip_layers.rs`) → the layer stack
//! (`layers::LayerRig::apply`: foot lock → breath → look-at → twist → springs, stepped through one `LayerState`) →
//! expressions (`expressions.rs`) → local to model → skinning, and keeps what persists between frames. The editor,
//! `pose`, `render`, bake/export, the benches and the fuzz targets all evaluate through it.

mod clip_layers;
pub mod clock;
pub mod curves;
mod expressions;
mod source;

pub use clock::wrap_cycle;
use clock::{Clock, SourceKind, Timing};

use glam::{Mat4, Vec3};

use crate::blend::sampler::root_motion_joint;
use crate::blend::{BlendSampler, BlendSpace, RootMotion};
use crate::core::mesh::Skin;
use crate::core::{Character, Clip, ClipBinding, Pose, Skeleton, Transform};
use crate::layers::look_at::LookBoneReport;
use crate::layers::{
    FootLockState, LayerInput, LayerParams, LayerRig, LayerScratch, LayerState, Step,
};
use crate::runtime::{JobError, LocalToModelJob, SkinningJob};

use clip_layers::ClipLayers;
use expressions::Expressions;
pub use source::Precision;
use source::compiled::ClipCache;
use source::look::VrmLook;
use source::nodes::RootPlay;
use source::{Source, SourceOut, SourceTime};

/// Where the pose comes from before the layers.
#[derive(Clone, Debug, PartialEq)]
pub enum SourceSpec {
    /// The skeleton's rest pose.
    Rest,
    /// One clip, by index into the clip list.
    Clip(usize),
    /// A blend space over clips of the list (by name).
    Blend(BlendSpace),
    /// A state machine whose states play clips of the list or blend spaces over them (by name); it must validate.
    /// A state's `mirror` is not applied here: `offline::mirror::machine_clips` gives the clips and machine to
    /// pass for it.
    StateMachine(crate::graph::StateMachine),
}

/// How the clock moves before an evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ClockStep {
    /// Stay where it is (re-evaluate after an edit).
    #[default]
    Hold,
    /// Wall-clock seconds since the last frame (times the speed while playing).
    Advance(f32),
    /// Jump to a time: the look-at filter resets.
    Seek(f32),
    /// Continue to an absolute time since the start, as playing forward would (baking on a grid).
    Continue(f32),
}

/// What one evaluation needs besides the state the Evaluator keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EvalInput {
    /// How the clock moves first.
    pub clock: ClockStep,
    /// Moves the blend space's sample point first (the phase is kept).
    pub blend_point: Option<[f64; 2]>,
    /// Replaces the look-at target of the parameters (the camera, a command line point), model space.
    pub look_target: Option<Vec3>,
    /// Where the character stands in the world (the springs move in world space): None for the origin.
    pub placement: Option<Mat4>,
    /// Steps the simulated layers (foot lock, the springs) by this instead of the clock's step (a bake steps them
    /// on its grid).
    pub simulation_dt: Option<f32>,
}

/// The result of an evaluation, kept by the Evaluator between frames.
#[derive(Clone, Debug, Default)]
pub struct EvalOutput {
    /// Final local transforms.
    pub local: Pose,
    /// Model-space matrices of every joint.
    pub model: Vec<Mat4>,
    /// Skinning matrices (model × inverse bind), one list per skin of the character.
    pub skins: Vec<Vec<Mat4>>,
    /// What look-at did, per chain bone (empty when it is off).
    pub look: Vec<LookBoneReport>,
    /// Blend weight of every node of the space at the sample point (empty for a clip).
    pub weights: Vec<f64>,
    /// Morph-target weights, one list per mesh of the character (empty for a mesh without morph targets): the
    /// meshes' defaults where no clip animates them.
    pub morph_weights: Vec<Vec<f32>>,
    /// The first job that refused its buffers in this evaluation (a skin naming a joint outside the skeleton;
    /// the Evaluator sizes everything else itself). Its output is left as it was.
    pub error: Option<JobError>,
}

/// Steps a second a seek replays a state machine at: `pose`'s default `--fps`, so a scrub shows what `pose --time`
/// prints.
pub const MACHINE_SEEK_FPS: f64 = 60.0;

/// The one evaluator of poses (see the module documentation).
#[derive(Clone, Debug)]
pub struct Evaluator {
    /// How its clips are compiled.
    precision: Precision,
    skeleton: Skeleton,
    skins: Vec<Skin>,
    root_motion_joint: Option<usize>,
    clip_root_motion: RootMotion,
    accumulate_loops: bool,
    source: Source,
    layers: LayerParams,
    rig: LayerRig,
    /// What the stateful layers keep between evaluations (look-at's filter, foot lock, the springs).
    layer_state: LayerState,
    clock: Clock,
    layer_scratch: LayerScratch,
    /// The clip layers, bound (see [`crate::layers::clip_layer`]).
    clip_layers: ClipLayers,
    /// The meshes' default morph weights, and scratch of the same shape for blends and clip layers.
    morph_defaults: Vec<Vec<f32>>,
    /// The character's expressions and their weights (the source's, the layers' sliders).
    expressions: Expressions,
    /// The character's VRM look-at, what it drives, for a clip's look-at track.
    vrm_look: VrmLook,
    /// The travel an in-place clip took out of the pose (model space): the springs move with it, as the
    /// character does in the world.
    treadmill: Vec3,
    output: EvalOutput,
    evaluations: u64,
}

impl Evaluator {
    /// An evaluator for `character`, playing `source` (clips by index or blend nodes by name in `clips`) under
    /// `layers`, stopped at time 0 and looping.
    pub fn new(
        character: &Character,
        clips: &[Clip],
        source: SourceSpec,
        layers: LayerParams,
    ) -> Self {
        Self::with_precision(character, clips, source, layers, Precision::Compact)
    }

    /// [`Evaluator::new`] with its clips compiled at `precision`: [`Precision::Exact`] for the reference a bake
    /// or an export is measured against.
    pub fn with_precision(
        character: &Character,
        clips: &[Clip],
        source: SourceSpec,
        layers: LayerParams,
        precision: Precision,
    ) -> Self {
        let n = character.skeleton.len();
        let morph_defaults = crate::core::morph::default_weights(character);
        let mut ev = Evaluator {
            precision,
            skeleton: character.skeleton.clone(),
            skins: character.skins.clone(),
            root_motion_joint: root_motion_joint(character),
            clip_root_motion: RootMotion::Keep,
            accumulate_loops: false,
            source: Source::Rest,
            rig: LayerRig::bind(&layers, character),
            expressions: Expressions::bind(character, &layers),
            layers,
            layer_state: LayerState::default(),
            clock: Clock::default(),
            layer_scratch: LayerScratch::default(),
            clip_layers: ClipLayers::new(character),
            output: EvalOutput {
                morph_weights: morph_defaults.clone(),
                local: Pose::rest(&character.skeleton),
                model: vec![Mat4::IDENTITY; n],
                skins: character
                    .skins
                    .iter()
                    .map(|s| vec![Mat4::IDENTITY; s.joints.len()])
                    .collect(),
                look: Vec::new(),
                weights: Vec::new(),
                error: None,
            },
            morph_defaults,
            vrm_look: VrmLook::bind(character),
            treadmill: Vec3::ZERO,
            evaluations: 0,
        };
        ev.set_source(character, clips, source);
        ev
    }

    /// An evaluator playing `clip` alone on `character` with every layer off (stopped at 0, looping): for
    /// measuring and transforming a clip.
    pub fn for_clip(character: &Character, clip: &Clip) -> Self {
        Self::new(
            character,
            std::slice::from_ref(clip),
            SourceSpec::Clip(0),
            LayerParams::off(),
        )
    }

    /// [`Evaluator::for_clip`] with the clip compiled exact ([`Precision::Exact`]): the reference a bake of it
    /// is measured against.
    pub fn for_clip_exact(character: &Character, clip: &Clip) -> Self {
        Self::with_precision(
            character,
            std::slice::from_ref(clip),
            SourceSpec::Clip(0),
            LayerParams::off(),
            Precision::Exact,
        )
    }

    /// Clips the clip layers name (their own, or an additive reference) that the character does not have.
    pub fn missing_layer_clips(&self) -> Vec<&str> {
        self.clip_layers.missing()
    }

    /// Plays another source (compiling its clips), from time 0.
    pub fn set_source(&mut self, character: &Character, clips: &[Clip], source: SourceSpec) {
        let mut cache = ClipCache::new(clips, character, self.precision);
        self.source = match source {
            SourceSpec::Rest => Source::Rest,
            SourceSpec::Clip(i) if i < clips.len() => Source::Clip(cache.get(i)),
            SourceSpec::Clip(_) => Source::Rest,
            SourceSpec::Blend(space) => Source::Blend(Box::new(source::blend::BlendSource::bind(
                space, character, clips, &mut cache,
            ))),
            SourceSpec::StateMachine(m) => Source::Machine(Box::new(
                source::machine::MachineSource::bind(&m, character, &mut cache),
            )),
        };
        self.clip_layers
            .bind(&self.layers, character, &mut cache, false);
        self.seek(0.0);
    }

    /// Replaces the blend space's nodes, axes or modes (rebinding its clips when the nodes changed), keeping the
    /// phase, the layer clock and the look-at filter (an edit is not a seek). Does nothing when the source is not
    /// a blend space.
    pub fn set_blend_space(&mut self, character: &Character, clips: &[Clip], new: &BlendSpace) {
        let Source::Blend(blend) = &mut self.source else {
            return;
        };
        let space = &mut blend.bound.space;
        if space.nodes != new.nodes {
            let (phase, elapsed, look) = (
                self.clock.phase,
                self.clock.elapsed,
                self.layer_state.look.clone(),
            );
            self.set_source(character, clips, SourceSpec::Blend(new.clone()));
            self.clock.phase = phase;
            self.clock.elapsed = elapsed;
            self.layer_state.look = look;
        } else {
            *space = new.clone();
            blend.bound.find_markers(character, clips);
            blend.invalidate_weights();
        }
        self.refresh_weights();
    }

    /// Replaces the layer parameters (rebinding them to the character, and the clip layers to `clips`).
    pub fn set_layers(&mut self, character: &Character, clips: &[Clip], layers: &LayerParams) {
        if *layers != self.layers {
            self.rig = LayerRig::bind(layers, character);
            self.expressions.set_layers(character, layers);
            let rebind = layers.clips != self.layers.clips || layers.masks != self.layers.masks;
            self.layers = layers.clone();
            if rebind {
                let mut cache = ClipCache::new(clips, character, self.precision);
                self.clip_layers
                    .bind(&self.layers, character, &mut cache, true);
            }
        }
    }

    /// The layer parameters in use.
    pub fn layers(&self) -> &LayerParams {
        &self.layers
    }

    /// The layers bound to the character (detected axes, twist pairs, what is missing).
    pub fn layer_rig(&self) -> &LayerRig {
        &self.rig
    }

    /// The blend space played, if the source is one.
    pub fn blend_space(&self) -> Option<&BlendSpace> {
        match &self.source {
            Source::Blend(b) => Some(&b.bound.space),
            _ => None,
        }
    }

    /// The blend space's clips resolved against the character, if the source is one.
    pub fn blend_sampler(&self) -> Option<&BlendSampler> {
        match &self.source {
            Source::Blend(b) => Some(&b.bound.sampler),
            _ => None,
        }
    }

    /// The clip played (index into the clip list), if the source is one clip.
    pub fn clip(&self) -> Option<usize> {
        match &self.source {
            Source::Clip(c) => Some(c.index),
            _ => None,
        }
    }

    /// How the played clip's tracks bound (None unless the source is one clip).
    pub fn binding(&self) -> Option<&ClipBinding> {
        match &self.source {
            Source::Clip(c) => Some(&c.binding),
            _ => None,
        }
    }

    /// Length of what plays: the clip's duration, the blend cycle at the current weights, 0 for the rest pose.
    pub fn duration(&self) -> f32 {
        match &self.source {
            Source::Rest => 0.0,
            Source::Clip(c) => c.animation.duration(),
            Source::Blend(b) => b.cycle_length(),
            Source::Machine(m) => m.current_length(),
        }
    }

    /// The source time shown on a timeline: clip time, or phase × cycle for a blend space.
    pub fn time(&self) -> f32 {
        self.clock.shown_time(self.timing())
    }

    /// What the clock needs to know of the source.
    fn timing(&self) -> Timing {
        let (kind, source_loops) = match &self.source {
            Source::Rest => (SourceKind::Rest, true),
            Source::Clip(c) => (SourceKind::Clip, c.looping),
            Source::Blend(_) => (SourceKind::Blend, true),
            Source::Machine(_) => (SourceKind::Machine, true),
        };
        Timing {
            kind,
            duration: f64::from(self.duration()),
            source_loops,
        }
    }

    /// The layers' time (breathing): continuous while playing, the source time after a seek.
    pub fn layer_time(&self) -> f32 {
        self.clock.elapsed as f32
    }

    /// True while the clock advances.
    pub fn is_playing(&self) -> bool {
        self.clock.playing
    }

    /// True when the source wraps at its end instead of stopping.
    pub fn is_looping(&self) -> bool {
        self.clock.looping
    }

    /// Sets looping.
    pub fn set_looping(&mut self, looping: bool) {
        self.clock.looping = looping;
    }

    /// How a single clip's horizontal root travel shows: in place (its average velocity removed, as the blend
    /// space's `InPlace`) or kept as authored (the default).
    pub fn set_clip_root_motion(&mut self, mode: RootMotion) {
        self.clip_root_motion = mode;
    }

    /// The single clip's root motion mode.
    pub fn clip_root_motion(&self) -> RootMotion {
        self.clip_root_motion
    }

    /// When on, kept root motion accumulates over loops: each completed cycle adds the cycle's travel, so the
    /// character walks on instead of snapping back (Unity's preview). Off by default (a pose depends on the
    /// clip time alone); the editor turns it on.
    pub fn set_accumulate_loops(&mut self, on: bool) {
        self.accumulate_loops = on;
    }

    /// The joint whose horizontal travel is root motion (the hips, else the first root).
    pub fn root_joint(&self) -> Option<usize> {
        self.root_motion_joint
    }

    /// Limits a clip's playback to an in/out range of seconds (None: the whole clip): playing loops (or stops)
    /// within it. A range that is empty or not finite clears it; it is clamped into the clip when used.
    pub fn set_play_range(&mut self, range: Option<[f32; 2]>) {
        self.clock.set_range(range);
    }

    /// The in/out range in effect for the current source, clamped into it (None: the whole clip, or the
    /// source is not a clip, or the range lies outside it).
    pub fn play_range(&self) -> Option<[f32; 2]> {
        self.clock.range(self.timing())
    }

    /// Playback speed (negative plays backwards).
    pub fn speed(&self) -> f32 {
        self.clock.speed
    }

    /// Sets the speed; NaN or infinity is ignored.
    pub fn set_speed(&mut self, speed: f32) {
        if speed.is_finite() {
            self.clock.speed = speed;
        }
    }

    /// Whether the source starts over after its end: the transport's loop, unless the clip playing has Loop Time
    /// off.
    pub fn loops(&self) -> bool {
        self.clock.loops(self.timing())
    }

    /// Starts playing (from the far end's opposite when a non-looping source sits at its end).
    pub fn play(&mut self) {
        if let Some(t) = self.clock.play_seek(self.timing()) {
            self.seek(t);
        }
        self.clock.playing = true;
    }

    /// Stops advancing, keeping the time.
    pub fn pause(&mut self) {
        self.clock.playing = false;
    }

    /// Pauses and goes back to time 0 (a seek: the breath clock and look-at smoothing restart).
    pub fn stop(&mut self) {
        self.clock.playing = false;
        self.seek(0.0);
    }

    /// Jumps to a time (clamped into the clip or cycle; NaN is ignored): the layer clock follows and the look-at
    /// filter resets.
    pub fn seek(&mut self, time: f32) {
        if !time.is_finite() {
            return;
        }
        self.refresh_weights();
        if let Source::Machine(_) = &self.source {
            // A machine is replayed from its entry state to the time, its parameters as they are now, stepped as
            // `pose` steps it.
            self.replay_machine(time, MACHINE_SEEK_FPS, false);
        }
        self.seek_clocks(Clock::seek_target(time, self.timing()));
    }

    /// The clocks to source time `t` after a seek, and every stateful layer reset (the look-at filter snaps,
    /// the springs and foot lock start over).
    fn seek_clocks(&mut self, t: f64) {
        self.clock.seek(t, self.timing());
        self.layer_state.reset();
    }

    /// A seek of a state machine under its parameter script ([`Evaluator::set_script`]): the parameters back at
    /// their defaults, the machine replayed from its entry to `time` at `fps` steps a second with the script's
    /// events due by each step, as `pose --script --time --fps` plays it; the script goes on from there. Returns
    /// how many of the script's events it applied. Other sources, or a machine without a script, seek as
    /// [`Evaluator::seek`] does, and apply none.
    pub fn seek_script(&mut self, time: f32, fps: f64) -> usize {
        if !time.is_finite() {
            return 0;
        }
        if !matches!(&self.source, Source::Machine(m) if m.script().is_some()) {
            self.seek(time);
            return 0;
        }
        let applied = self.replay_machine(time, fps, true);
        self.seek_clocks(f64::from(time).max(0.0));
        applied
    }

    /// Replays the machine from its entry to `time` at `fps` steps a second (see
    /// [`source::machine::MachineSource::replay`]), under its script or with its parameters as they are.
    fn replay_machine(&mut self, time: f32, fps: f64, under_script: bool) -> usize {
        let Source::Machine(m) = &mut self.source else {
            return 0;
        };
        let (mut look, mut treadmill) = (None, Vec3::ZERO);
        let out = SourceOut {
            pose: &mut self.output.local.local,
            morph: &mut self.output.morph_weights,
            expressions: &mut self.expressions.from_source,
            look: &mut look,
            treadmill: &mut treadmill,
        };
        m.replay(
            f64::from(time),
            fps,
            under_script,
            &self.skeleton,
            self.accumulate_loops,
            out,
        )
    }

    /// Plays `script` on the state machine from its start as the machine's time goes on: each evaluation that
    /// takes the machine to a time first applies the events due by then (None stops it). The machine's
    /// parameters are not reset: a new machine starts at their defaults. No effect on other sources.
    pub fn set_script(&mut self, script: Option<std::sync::Arc<crate::graph::Script>>) {
        if let Source::Machine(m) = &mut self.source {
            m.set_script(script);
        }
    }

    /// The state machine's script and how far it has played, if one plays.
    pub fn script(&self) -> Option<&crate::graph::ScriptCursor> {
        match &self.source {
            Source::Machine(m) => m.script(),
            _ => None,
        }
    }

    /// Moves the blend space's sample point (clamped to its axes); the phase is kept.
    pub fn set_blend_point(&mut self, point: [f64; 2]) {
        if let Source::Blend(b) = &mut self.source {
            b.bound.space.set_point(point);
        }
        self.refresh_weights();
    }

    fn refresh_weights(&mut self) {
        let Source::Blend(b) = &mut self.source else {
            self.output.weights.clear();
            return;
        };
        if b.refresh_weights() {
            self.output.weights.clone_from(&b.weights);
        }
    }

    fn step(&mut self, step: ClockStep) {
        match step {
            ClockStep::Hold => self.clock.look_dt = 0.0,
            ClockStep::Seek(t) => self.seek(t),
            ClockStep::Advance(dt) => {
                let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
                if self.clock.playing {
                    self.advance_by(
                        f64::from(dt) * f64::from(self.clock.speed),
                        self.clock.looping,
                    );
                }
                self.clock.look_dt = dt;
            }
            ClockStep::Continue(t) => {
                if !t.is_finite() {
                    return;
                }
                let d = f64::from(t) - self.clock.elapsed;
                self.advance_by(d, true);
                self.clock.elapsed = f64::from(t);
                self.clock.look_dt = d.max(0.0) as f32;
            }
        }
    }

    /// Moves the source and layer clocks by `d` seconds of source time (see [`Clock::advance`]); a machine is
    /// stepped by what its clock moved.
    fn advance_by(&mut self, d: f64, looping: bool) {
        let timing = self.timing();
        if let Source::Machine(m) = &mut self.source {
            let dt = self.clock.advance_machine(d);
            m.advance(self.clock.elapsed, dt);
        } else {
            self.clock.advance(d, looping, timing);
        }
    }

    /// Moves the clock as `input` says and evaluates the whole stack. Allocates nothing after the first frames
    /// (the blend weights are recomputed, and may allocate, only when the sample point moves).
    pub fn evaluate(&mut self, input: &EvalInput) -> &EvalOutput {
        self.evaluations += 1;
        if let Some(p) = input.blend_point {
            self.set_blend_point(p);
        }
        self.refresh_weights();
        self.step(input.clock);
        let sampled = self.sample_source().and_then(|()| self.apply_clip_layers());
        self.apply_layers(input);
        self.expressions.apply_to(&mut self.output.morph_weights);
        let posed = self.pose_model_and_skins();
        self.output.error = sampled.err().or(posed.err());
        &self.output
    }

    /// The clip layers over the source.
    fn apply_clip_layers(&mut self) -> Result<(), JobError> {
        self.clip_layers.apply(
            self.source_phase(),
            self.clock.elapsed,
            &self.skeleton,
            self.root_motion_joint,
            &mut self.output.local.local,
            &mut self.output.morph_weights,
        )
    }

    /// The layer stack after the clip layers, stepped by the clock (look-at) and by `input`'s simulation step or
    /// the clock's (foot lock, the springs).
    fn apply_layers(&mut self, input: &EvalInput) {
        let dt = std::mem::take(&mut self.clock.look_dt);
        // An in-place clip still travels in the world: foot lock holds feet on that ground, and the springs feel
        // the travel (a treadmill under the character).
        let placement =
            input.placement.unwrap_or(Mat4::IDENTITY) * Mat4::from_translation(self.treadmill);
        let layer_input = LayerInput {
            time: self.clock.elapsed as f32,
            look_step: Step::Advance(dt),
            simulation_step: Step::Advance(input.simulation_dt.unwrap_or(dt)),
            look_target: input.look_target,
            placement,
        };
        self.rig.apply(
            &self.layers,
            &self.skeleton,
            &layer_input,
            &mut self.layer_state,
            &mut self.output.local.local,
            &mut self.layer_scratch,
            &mut self.output.look,
        );
    }

    /// Model matrices of the final pose, then each skin's matrices.
    fn pose_model_and_skins(&mut self) -> Result<(), JobError> {
        let mut result = LocalToModelJob::all(
            &self.skeleton,
            &self.output.local.local,
            &mut self.output.model,
        )
        .run();
        for (skin, out) in self.skins.iter().zip(&mut self.output.skins) {
            result = result.and(
                SkinningJob {
                    model: &self.output.model,
                    joints: &skin.joints,
                    inverse_bind: &skin.inverse_bind,
                    output: out,
                }
                .run(),
            );
        }
        result
    }

    /// The state machine's player when the source is one (its current state, transition and parameters).
    pub fn machine(&self) -> Option<&crate::graph::MachinePlayer> {
        match &self.source {
            Source::Machine(m) => Some(m.player()),
            _ => None,
        }
    }

    /// The state machine's player, to set its parameters before an evaluation.
    pub fn machine_mut(&mut self) -> Option<&mut crate::graph::MachinePlayer> {
        match &mut self.source {
            Source::Machine(m) => Some(m.player_mut()),
            _ => None,
        }
    }

    /// Clips the state machine's states name that the character lacks (they play its rest pose).
    pub fn missing_machine_clips(&self) -> &[String] {
        match &self.source {
            Source::Machine(m) => m.missing(),
            _ => &[],
        }
    }

    /// The weight of each of the character's expressions in the last evaluation: its clips' expression tracks
    /// plus the layer parameters' weight, at most 1.
    pub fn expression_weights(&self) -> &[f32] {
        self.expressions.applied()
    }

    /// Joint names of the skeleton it evaluates.
    pub fn skeleton_names(&self) -> &[String] {
        self.skeleton.names()
    }

    /// Updates the springs took in the last evaluation.
    pub fn spring_steps(&self) -> u32 {
        self.layer_state.springs.steps()
    }

    /// Whether the blend space's sampler has foot-down markers (found when a space synced on them is bound).
    pub fn has_sync_markers(&self) -> bool {
        matches!(&self.source, Source::Blend(b) if b.bound.sampler.has_markers())
    }

    /// Foot lock's state after the last evaluation: each foot's lock, its weight, and the pelvis drop.
    pub fn foot_lock(&self) -> &FootLockState {
        &self.layer_state.foot_lock
    }

    /// Forgets the springs' motion: the next evaluation puts their tails where its pose puts them.
    pub fn reset_springs(&mut self) {
        self.layer_state.springs.reset();
    }

    /// How many times [`Evaluator::evaluate`] ran (the editor evaluates once per frame).
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// The last evaluation.
    pub fn output(&self) -> &EvalOutput {
        &self.output
    }

    /// Only the layer stack, on `source` (a local pose), stepping look-at by `dt`: what the benchmarks time as
    /// "layer stack". Returns the number of look-at report entries.
    pub fn layers_only(&mut self, source: &[Transform], dt: f32) -> usize {
        let local = &mut self.output.local.local;
        if source.len() != local.len() {
            return 0;
        }
        local.copy_from_slice(source);
        let input = LayerInput {
            time: self.clock.elapsed as f32,
            look_step: Step::Advance(dt),
            simulation_step: Step::Hold,
            look_target: None,
            placement: Mat4::IDENTITY,
        };
        self.rig.apply(
            &self.layers,
            &self.skeleton,
            &input,
            &mut self.layer_state,
            local,
            &mut self.layer_scratch,
            &mut self.output.look,
        );
        self.output.look.len()
    }

    /// The source's normalised phase in [0, 1] (what synced clip layers follow).
    fn source_phase(&self) -> f64 {
        match &self.source {
            Source::Blend(_) => self.clock.phase,
            _ => {
                let d = f64::from(self.duration());
                if d > 0.0 { self.clock.time / d } else { 0.0 }
            }
        }
    }

    /// Samples the source (and blends it) into the output's local pose, then plays a look-at track it reports.
    fn sample_source(&mut self) -> Result<(), JobError> {
        let morph = &mut self.output.morph_weights;
        for (m, d) in morph.iter_mut().zip(&self.morph_defaults) {
            m.copy_from_slice(d);
        }
        self.expressions.from_source.fill(0.0);
        self.treadmill = Vec3::ZERO;
        let mut look = None;
        let out = SourceOut {
            pose: &mut self.output.local.local,
            morph,
            expressions: &mut self.expressions.from_source,
            look: &mut look,
            treadmill: &mut self.treadmill,
        };
        let at = SourceTime {
            time: self.clock.time,
            phase: self.clock.phase,
            elapsed: self.clock.elapsed,
            cycles: self.clock.cycles,
        };
        let root = RootPlay {
            joint: self.root_motion_joint,
            accumulate_loops: self.accumulate_loops,
        };
        let result = match &mut self.source {
            Source::Rest => {
                out.pose.copy_from_slice(self.skeleton.rest());
                Ok(())
            }
            Source::Clip(c) => source::clip::sample(
                c,
                at,
                self.clip_root_motion,
                self.accumulate_loops,
                self.root_motion_joint,
                &self.skeleton,
                out,
            ),
            Source::Blend(b) => b.sample(at, root, &self.skeleton, out),
            Source::Machine(m) => m.sample(&self.skeleton, self.accumulate_loops, out),
        };
        if let Some(rotation) = look {
            self.vrm_look.apply(
                rotation,
                &mut self.expressions.from_source,
                &mut self.output.local.local,
            );
        }
        result
    }
}

#[cfg(test)]
mod tests;
