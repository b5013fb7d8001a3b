//! The Evaluator: the one place that turns (source, time, parameters) into a pose. `evaluate` runs clock
//! (`clock.rs`: the transport and its rules) → source (`source/`: the rest pose, a clip, a blend space or a state
//! machine, each sampled by the runtime jobs, played by `source::SourcePlayer`) → layers (`layer_stage.rs`: clip
//! layers, then `layers::LayerRig::apply`: foot lock → breath → look-at → twist → springs) → expressions → local to
//! model → skinning, and keeps what persists between frames (`io.rs`: what an evaluation takes and gives). The
//! editor, `pose`, `render`, bake/export, the benches and the fuzz targets all evaluate through it.

pub mod clock;
pub mod curves;
mod expressions;
mod io;
mod layer_stage;
mod source;

pub use clock::wrap_cycle;
use clock::{Clock, SourceKind};
pub use io::{ClockStep, EvalInput, EvalOutput, SourceSpec};
pub use layer_stage::LayerStage;
pub use source::Precision;
pub use source::player::SourcePlayer;

use glam::Mat4;

use crate::blend::BlendSpace;
use crate::core::mesh::Skin;
use crate::core::{Character, Clip, Skeleton, Transform};
use crate::layers::{LayerInput, LayerParams, Step};
use crate::runtime::{JobError, LocalToModelJob, SkinningJob};

use source::{SourceTime, compiled::ClipCache, player::SampleOut};

/// The one evaluator of poses (see the module documentation).
#[derive(Clone, Debug)]
pub struct Evaluator {
    skeleton: Skeleton,
    skins: Vec<Skin>,
    clock: Clock,
    source: SourcePlayer,
    layers: LayerStage,
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
        let mut ev = Evaluator {
            skeleton: character.skeleton.clone(),
            skins: character.skins.clone(),
            clock: Clock::default(),
            source: SourcePlayer::new(character, precision),
            layers: LayerStage::bind(character, layers),
            output: EvalOutput::at_rest(character),
            evaluations: 0,
        };
        ev.set_source(character, clips, source);
        ev
    }

    /// An evaluator playing `clip` alone on `character` with every layer off (stopped at 0, looping): for
    /// measuring and transforming a clip.
    pub fn for_clip(character: &Character, clip: &Clip) -> Self {
        let clips = std::slice::from_ref(clip);
        Self::new(character, clips, SourceSpec::Clip(0), LayerParams::off())
    }

    /// [`Evaluator::for_clip`] with the clip compiled exact ([`Precision::Exact`]): the reference a bake of it
    /// is measured against.
    pub fn for_clip_exact(character: &Character, clip: &Clip) -> Self {
        let clips = std::slice::from_ref(clip);
        let off = LayerParams::off();
        Self::with_precision(character, clips, SourceSpec::Clip(0), off, Precision::Exact)
    }

    /// What plays before the layers: the clip, blend space or state machine, and how its root motion plays.
    pub fn source(&self) -> &SourcePlayer {
        &self.source
    }

    /// What plays, to set a machine's parameters or script, or how root motion plays.
    pub fn source_mut(&mut self) -> &mut SourcePlayer {
        &mut self.source
    }

    /// The layers over the source: their parameters, their rig and what they keep.
    pub fn layer_stage(&self) -> &LayerStage {
        &self.layers
    }

    /// The layers, to reset the springs.
    pub fn layer_stage_mut(&mut self) -> &mut LayerStage {
        &mut self.layers
    }

    /// Plays another source (compiling its clips), from time 0.
    pub fn set_source(&mut self, character: &Character, clips: &[Clip], source: SourceSpec) {
        let mut cache = ClipCache::new(clips, character, self.source.precision);
        self.source.bind(character, clips, source, &mut cache);
        self.layers.bind_clip_layers(character, &mut cache, false);
        self.find_ground(character, clips);
        self.seek(0.0);
    }

    /// Replaces the blend space's nodes, axes or modes (rebinding its clips when the nodes changed), keeping the
    /// phase, the layer clock and the look-at filter (an edit is not a seek). Does nothing when the source is not
    /// a blend space.
    pub fn set_blend_space(&mut self, character: &Character, clips: &[Clip], new: &BlendSpace) {
        let Some(space) = self.source.blend_space() else {
            return;
        };
        if space.nodes != new.nodes {
            let (phase, elapsed) = (self.clock.phase, self.clock.elapsed);
            let look = self.layers.state.look.clone();
            self.set_source(character, clips, SourceSpec::Blend(new.clone()));
            self.clock.phase = phase;
            self.clock.elapsed = elapsed;
            self.layers.state.look = look;
        } else {
            self.source.edit_blend_space(character, clips, new);
        }
        self.refresh_weights();
    }

    /// Replaces the layer parameters (rebinding them to the character, and the clip layers to `clips`).
    pub fn set_layers(&mut self, character: &Character, clips: &[Clip], layers: &LayerParams) {
        let precision = self.source.precision;
        self.layers.set_params(character, clips, layers, precision);
        self.find_ground(character, clips);
    }

    /// When a layer feels the ground, the source finds the treadmill its in-place clips walk on.
    fn find_ground(&mut self, character: &Character, clips: &[Clip]) {
        if self.layers.feels_the_ground() {
            self.walk_in_place(character, clips);
        }
    }

    /// Finds the walk of the clips it plays that are authored in place (their feet's treadmill), so that
    /// [`EvalOutput::treadmill`] moves even with no layer feeling the ground: the skate meter measures on it.
    pub fn walk_in_place(&mut self, character: &Character, clips: &[Clip]) {
        self.source.find_feet(character, clips);
    }

    /// Length of what plays: the clip's duration, the blend cycle at the current weights, 0 for the rest pose.
    pub fn duration(&self) -> f32 {
        self.source.duration()
    }

    /// The source time shown on a timeline: clip time, or phase × cycle for a blend space.
    pub fn time(&self) -> f32 {
        self.clock.shown_time(self.source.timing())
    }

    /// The transport: playing or paused, looping, speed, the in/out range and the layers' time.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The transport, to pause it, loop it, set its speed or its in/out range.
    pub fn clock_mut(&mut self) -> &mut Clock {
        &mut self.clock
    }

    /// The in/out range in effect, clamped into the clip (None: the whole clip, not a clip, or outside it).
    pub fn play_range(&self) -> Option<[f32; 2]> {
        self.clock.range(self.source.timing())
    }

    /// Whether the source starts over after its end: the transport's loop, unless the clip's Loop Time is off.
    pub fn loops(&self) -> bool {
        self.clock.loops(self.source.timing())
    }

    /// Starts playing (from the far end's opposite when a non-looping source sits at its end).
    pub fn play(&mut self) {
        if let Some(t) = self.clock.play_seek(self.source.timing()) {
            self.seek(t);
        }
        self.clock.playing = true;
    }

    /// Pauses and goes back to time 0 (a seek: the breath clock and look-at smoothing restart).
    pub fn stop(&mut self) {
        self.clock.playing = false;
        self.seek(0.0);
    }

    /// Jumps to a time (clamped into the clip or cycle; NaN is ignored): the layer clock follows and the look-at
    /// filter resets. A state machine is replayed from its entry to the time, its parameters as they are now.
    pub fn seek(&mut self, time: f32) {
        if !time.is_finite() {
            return;
        }
        self.refresh_weights();
        self.replay_machine(time, false);
        self.seek_clocks(Clock::seek_target(time, self.source.timing()));
    }

    /// Simulates a state machine at `rate` Hz ([`SourcePlayer::sim_rate`]; clamped into its range), replayed to
    /// the time shown as a seek does. Other sources keep the rate for a machine played later.
    pub fn set_sim_rate(&mut self, rate: f64) {
        self.source.set_sim_rate(rate);
        self.seek(self.time());
    }

    /// A seek of a state machine under its parameter script ([`SourcePlayer::set_script`]): the parameters back
    /// at their defaults, the machine replayed from its entry to `time` with the script's events due by each
    /// tick, as `pose --script` plays it; the script goes on from there. Returns the events applied. Other
    /// sources, or a machine without a script, seek as [`Evaluator::seek`] does and apply none.
    pub fn seek_script(&mut self, time: f32) -> usize {
        if !time.is_finite() || self.source.script().is_none() {
            self.seek(time);
            return 0;
        }
        let applied = self.replay_machine(time, true);
        self.seek_clocks(f64::from(time).max(0.0));
        applied
    }

    /// The clocks to source time `t` after a seek, and every stateful layer reset (the look-at filter snaps,
    /// the springs and foot lock start over).
    fn seek_clocks(&mut self, t: f64) {
        self.clock.seek(t, self.source.timing());
        self.layers.state.reset();
    }

    fn replay_machine(&mut self, time: f32, under_script: bool) -> usize {
        let out = SampleOut {
            pose: &mut self.output.local.local,
            morph: &mut self.output.morph_weights,
            expressions: &mut self.layers.expressions.from_source,
        };
        self.source
            .replay_machine(time, under_script, &self.skeleton, out)
    }

    /// Moves the blend space's sample point (clamped to its axes); the phase is kept.
    pub fn set_blend_point(&mut self, point: [f64; 2]) {
        self.source.set_blend_point(point);
        self.refresh_weights();
    }

    fn refresh_weights(&mut self) {
        self.source.refresh_weights(&mut self.output.weights);
    }

    fn step(&mut self, step: ClockStep) {
        match step {
            ClockStep::Hold => self.clock.look_dt = 0.0,
            ClockStep::Seek(t) => self.seek(t),
            ClockStep::Advance(dt) => {
                let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
                if self.clock.playing {
                    let d = f64::from(dt) * f64::from(self.clock.speed);
                    self.advance_by(d, self.clock.looping);
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
    /// taken to its clock's new time.
    fn advance_by(&mut self, d: f64, looping: bool) {
        let timing = self.source.timing();
        if timing.kind == SourceKind::Machine {
            let to = self.clock.advance_machine(d);
            self.source.advance_machine(to, &self.skeleton);
        } else {
            self.clock.advance(d, looping, timing);
        }
    }

    /// Moves the clock as `input` says and evaluates the whole stack. Allocates nothing after the first frames
    /// but when the sample point moves (the blend weights are recomputed).
    pub fn evaluate(&mut self, input: &EvalInput) -> &EvalOutput {
        self.evaluations += 1;
        if let Some(p) = input.blend_point {
            self.set_blend_point(p);
        }
        self.refresh_weights();
        self.step(input.clock);
        let at = SourceTime {
            time: self.clock.time,
            phase: self.clock.phase,
            elapsed: self.clock.elapsed,
            cycles: self.clock.cycles,
        };
        let sampled = self.source.sample(
            at,
            &self.skeleton,
            SampleOut {
                pose: &mut self.output.local.local,
                morph: &mut self.output.morph_weights,
                expressions: &mut self.layers.expressions.from_source,
            },
        );
        let mut out = self.output.layer_out();
        let dt = std::mem::take(&mut self.clock.look_dt);
        let treadmill = self.source.treadmill;
        let layer_input = layer_stage::frame_input(input, self.clock.elapsed, dt, treadmill);
        let (phase, root) = (self.source.phase(at), self.source.root_joint());
        let skeleton = &self.skeleton;
        let layered = (self.layers).apply(
            sampled,
            [phase, at.elapsed],
            root,
            skeleton,
            &layer_input,
            &mut out,
        );
        let posed = self.pose_model_and_skins();
        self.output.error = layered.err().or(posed.err());
        self.output.treadmill = treadmill;
        &self.output
    }

    /// Model matrices of the final pose, then each skin's matrices.
    fn pose_model_and_skins(&mut self) -> Result<(), JobError> {
        let (local, model) = (&self.output.local.local, &mut self.output.model);
        let mut result = LocalToModelJob::all(&self.skeleton, local, model).run();
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

    /// Joint names of the skeleton it evaluates.
    pub fn skeleton_names(&self) -> &[String] {
        self.skeleton.names()
    }

    /// How many times [`Evaluator::evaluate`] ran (the editor evaluates once per frame).
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// The last evaluation.
    pub fn output(&self) -> &EvalOutput {
        &self.output
    }

    /// Only the layer stack on `source` (a local pose), look-at stepped by `dt` (the benchmarks' "layer stack"):
    /// the number of look-at report entries.
    pub fn layers_only(&mut self, source: &[Transform], dt: f32) -> usize {
        if source.len() != self.output.local.local.len() {
            return 0;
        }
        self.output.local.local.copy_from_slice(source);
        let input = LayerInput {
            time: self.clock.elapsed as f32,
            look_step: Step::Advance(dt),
            simulation_step: Step::Hold,
            look_target: None,
            placement: Mat4::IDENTITY,
        };
        let mut out = self.output.layer_out();
        self.layers.apply_rig(&self.skeleton, &input, &mut out);
        self.output.look.len()
    }
}

#[cfg(test)]
mod tests;
