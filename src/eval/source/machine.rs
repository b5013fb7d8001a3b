//! The state machine as the Evaluator's source: each state's motion bound to the character (a clip, or a blend
//! space driven by two parameters), the player stepped with the clock, and the player's terms sampled and blended
//! through the BlendingJob. The pose frozen at an interruption is kept here.
//!
//! The machine simulates at its own rate ([`SimClock`], 60 Hz unless set), whatever the rate its poses are asked
//! for: it decides only at ticks k / rate seconds from its start (the first at 0 with dt 0), each applying the
//! script's events due by its time, then updating the player by the time since the tick before (which tests and
//! starts transitions). A pose at a time between ticks is the last tick's state moved on to that time by
//! [`MachinePlayer::coast`] (the state's and the transition's clocks run; nothing is decided), and the tick's
//! state is put back before the next tick. A replay from the entry (a seek) runs the same ticks, so any two runs
//! of the same script agree at the same time, whatever their frames, to the rounding of their times.
//!
//! Inertialization and dead blending work per bone on the pose as the simulation showed it: when such a
//! transition starts at a tick, the pose of the tick before and its velocity (from the tick before that) are
//! recorded, and the jobs of `runtime::inertialize` turn the destination into the transition's pose. A machine
//! with such a transition so samples its pose at every tick; another samples only at an interruption (the pose
//! it freezes) and when asked for its pose.

use glam::DVec2;

use crate::blend::tree::{TreeScratch, WeightTree};

use super::compiled::{ClipCache, CompiledClip, keep_first};
use super::face::{Face, LookMix};
use super::frame::SourceOut;
use super::nodes::{BoundSpace, FaceMix, NodeOutput, RootPlay, SpaceTime, next_slot};
use crate::core::{Character, Skeleton, Transform};
use crate::graph::player::TickState;
use crate::graph::script::{MAX_TICKS_AT_ONCE, SimClock};
use crate::graph::{
    MachineEvent, MachinePlayer, Motion, Script, ScriptCursor, StateInfo, StateMachine, Term,
    TransitionModel,
};
use crate::layers::clip_layer::LayerMode;
use crate::runtime::{
    AdditiveLayer, BlendingJob, BoneStart, DeadBlendingJob, InertialOffsetJob, InertializationJob,
    JobError, TransitionStartJob, additive_delta,
};

/// A state's motion, bound.
#[derive(Clone, Debug)]
enum StateMotion {
    /// A clip (None when the character has no clip of that name).
    Clip(Option<CompiledClip>),
    /// A blend space bound (its sampler and compiled node clips), and the parameters (by index) giving its point.
    Blend {
        bound: Box<BoundSpace>,
        point: Option<[usize; 2]>,
        /// The node weights at `weights_at`, the cycle length they give, and the nodes that play (node,
        /// weight: those that weigh and have their clip): recomputed when the point moves.
        weights: Vec<f64>,
        weights_at: Option<[f64; 2]>,
        length: f64,
        live: Vec<(usize, f32)>,
        /// A tree of blends weighing the nodes instead of the point (Unity's nested and Direct trees), the
        /// parameters' values it last read, and the share of the weight it leaves to the rest pose.
        tree: Option<Box<BoundTree>>,
    },
}

/// A state's tree of blends, bound: its parameters by index, their values at the last weighing, the share it
/// left to the rest pose, and its buffers.
#[derive(Clone, Debug)]
struct BoundTree {
    tree: WeightTree,
    parameters: Vec<usize>,
    read: Vec<f64>,
    rest_share: f64,
    scratch: TreeScratch,
}

/// The bound state machine.
#[derive(Clone, Debug)]
pub(crate) struct MachineSource {
    player: MachinePlayer,
    states: Vec<StateMotion>,
    /// Clips the states name that the character lacks.
    missing: Vec<String>,
    terms: Vec<Term>,
    /// The poses one blend mixes (a clip state's, each live node of a blend state's, the frozen one), back to back,
    /// and their weights.
    poses: Vec<Transform>,
    weights: Vec<f32>,
    /// The pose frozen at the last interruption, and the buffer the next one is blended into.
    frozen: Vec<Transform>,
    frozen_next: Vec<Transform>,
    /// The poses of the last two ticks and the seconds between them, for the per-bone models' start.
    last: Vec<Transform>,
    before_last: Vec<Transform>,
    last_dt: f64,
    /// Whether any transition blends per bone (only then is the pose of each tick sampled and kept).
    per_bone: bool,
    /// The simulation's ticks, and the player's state the last one left (put back before the next).
    clock: SimClock,
    tick: TickState,
    /// What a per-bone transition started from: per bone the pose shown and its velocity (translation per
    /// second, rotation vector per second).
    start: Vec<BoneStart>,
    /// The transition `start` belongs to.
    start_of: Option<usize>,
    /// Whether a clip of some state has morph-weight or expression tracks (only then is the face blended).
    faced: bool,
    /// The face of the blend being made, the one frozen at the last interruption, and the buffer the next is
    /// made in.
    face: Face,
    frozen_face: Face,
    frozen_face_next: Face,
    /// The meshes' default morph weights, and scratch of their shape.
    morph_defaults: Vec<Vec<f32>>,
    morph_scratch: Vec<Vec<f32>>,
    /// The look-at tracks' rotation mixed over the clips that play.
    look: LookMix,
    /// How root motion plays (the Evaluator's transport says whether kept root motion accumulates over loops).
    root: RootPlay,
    /// The parameter script played, if any: its events are applied as the machine's time reaches them.
    script: Option<ScriptCursor>,
    /// The machine's layers, each bound as a machine of its own over these parameters (see
    /// [`MachineSource::tick`] and [`MachineSource::sample`]).
    layers: Vec<BoundLayer>,
    /// The poses a layer blends: the pose below it and its own, back to back.
    layer_poses: Vec<Transform>,
    /// The parameters' values as the last tick found them, before the machine's update.
    found: Vec<f64>,
    /// Per state, for a clip state with a mirror parameter: the parameter (by index) and the clip's mirrored copy
    /// (named "`clip` (mirrored)" among the clips), played instead while the parameter is true.
    mirror_switch: Vec<Option<(usize, CompiledClip)>>,
    /// Likewise for a blend-space state: its space with every node's clip mirrored.
    mirror_space: Vec<Option<(usize, Box<BoundSpace>)>>,
    /// Per state, the length its player counts instead of its motion's, set by a synced layer (see
    /// [`MachineSource::sync_lengths`]); empty when none is.
    pinned: Vec<Option<f64>>,
}

/// What an Additive layer's motion is relative to: each state's motion at its start (Unity's additive reference:
/// a clip's first frame), blended by the weights the layer's states play at; and the buffers that blend uses.
#[derive(Clone, Debug, Default)]
struct AdditiveReference {
    /// Per state of the layer, its start pose (back to back, one skeleton's worth each).
    starts: Vec<Transform>,
    terms: Vec<Term>,
    poses: Vec<Transform>,
    weights: Vec<f32>,
    reference: Vec<Transform>,
    delta: Vec<Transform>,
}

impl AdditiveReference {
    /// Adds `own` (the layer's pose) to `out` relative to the start poses of the states `player` plays, by their
    /// weights, each joint by its `mask` weight; the root joint keeps the travel below.
    fn add(
        &mut self,
        player: &MachinePlayer,
        own: &[Transform],
        mask: &[f32],
        skeleton: &Skeleton,
        root_joint: Option<usize>,
        out: &mut [Transform],
    ) -> Result<(), JobError> {
        let n = skeleton.len();
        player.terms_into(&mut self.terms);
        self.poses.clear();
        self.weights.clear();
        for t in &self.terms {
            // The frozen pose of an interrupted transition has no start of its own: it is left out.
            if let Motion::State { state, .. } = t.motion
                && let Some(start) = self.starts.get(state * n..(state + 1) * n)
                && t.weight > 0.0
            {
                self.poses.extend_from_slice(start);
                self.weights.push(t.weight as f32);
            }
        }
        if self.weights.is_empty() {
            return Ok(());
        }
        BlendingJob {
            poses: &self.poses,
            weights: &self.weights,
            masks: &[],
            additive: &[],
            rest: skeleton.rest(),
            threshold: 0.1,
            output: &mut self.reference,
        }
        .run()?;
        for ((d, p), r) in self.delta.iter_mut().zip(own).zip(&self.reference) {
            *d = additive_delta(p, r);
        }
        let root = root_joint.map(|r| (r, out[r].translation));
        AdditiveLayer {
            pose: &self.delta,
            weight: 1.0,
            mask: Some(mask),
        }
        .apply(out)?;
        if let Some((r, t)) = root {
            out[r].translation = t;
        }
        Ok(())
    }
}

/// A layer of the machine bound: its states as a machine, and its mask times its weight, per joint.
#[derive(Clone, Debug)]
struct BoundLayer {
    source: Box<MachineSource>,
    /// Its mask, and that times its weight.
    mask: Vec<f32>,
    layer_mask: Vec<f32>,
    /// An Additive layer's reference poses and buffers (None: an Override layer).
    additive: Option<Box<AdditiveReference>>,
    /// The masks as they apply this sample: below and own, the layer's scaled by the share of its terms that
    /// move (see [`MachineSource::compose_moving`]).
    shared_masks: (Vec<f32>, Vec<f32>),
    /// For a synced layer, the layer it follows and how its states' lengths are timed.
    sync: Option<LayerSync>,
}

/// How a synced layer's states are timed (Unity's synced layers): it plays its source's states and transitions,
/// so its player and its source's count the same lengths and keep the same normalised times.
#[derive(Clone, Copy, Debug)]
struct LayerSync {
    /// 0 the machine's own states, k its layer k − 1.
    source: usize,
    /// Unity's Timing: the lengths lie between the source's motions' and this layer's by `weight`, in both
    /// layers; off, this layer's motions stretch to the source's lengths.
    timing: bool,
    weight: f64,
}

impl MachineSource {
    /// Binds `machine` (validated by the caller) to `character` and `clips`.
    pub(crate) fn bind(
        machine: &StateMachine,
        character: &Character,
        cache: &mut ClipCache,
    ) -> Self {
        let clips = cache.clips;
        let mut missing = Vec::new();
        let states: Vec<StateMotion> = machine
            .states
            .iter()
            .map(|s| {
                if let Some(name) = &s.clip {
                    let index = clips.iter().position(|c| &c.name == name);
                    if index.is_none() {
                        missing.push(name.clone());
                    }
                    StateMotion::Clip(index.map(|i| cache.get(i)))
                } else {
                    let space = s.blend_space.clone().unwrap_or_default();
                    let bound = BoundSpace::bind(space, character, clips, cache);
                    missing.extend(bound.sampler.missing().iter().map(|(_, name)| name.clone()));
                    let point = s.point_parameters.as_ref().and_then(|[x, y]| {
                        Some([machine.parameter_index(x)?, machine.parameter_index(y)?])
                    });
                    let tree = s.tree.as_ref().map(|tree| {
                        Box::new(BoundTree {
                            parameters: tree
                                .parameters()
                                .into_iter()
                                .filter_map(|p| machine.parameter_index(p))
                                .collect(),
                            tree: tree.clone(),
                            read: Vec::new(),
                            rest_share: 0.0,
                            scratch: TreeScratch::default(),
                        })
                    });
                    StateMotion::Blend {
                        bound: Box::new(bound),
                        point,
                        weights: Vec::new(),
                        weights_at: None,
                        length: 0.0,
                        live: Vec::new(),
                        tree,
                    }
                }
            })
            .collect();
        let infos = states
            .iter()
            .map(|_| StateInfo {
                length: 0.0,
                looping: true,
            })
            .collect();
        let n = character.skeleton.len();
        let player = MachinePlayer::new(machine, infos);
        let tick = player.tick_state();
        let mut source = MachineSource {
            player,
            states,
            missing,
            terms: Vec::new(),
            poses: Vec::new(),
            weights: Vec::new(),
            frozen: character.skeleton.rest().to_vec(),
            frozen_next: Vec::new(),
            last: Vec::new(),
            before_last: Vec::new(),
            last_dt: 0.0,
            clock: SimClock::default(),
            tick,
            per_bone: machine.transitions.iter().any(|t| {
                matches!(
                    t.model,
                    TransitionModel::Inertialization | TransitionModel::DeadBlending
                )
            }),
            start: Vec::new(),
            start_of: None,
            faced: false,
            face: Face::default(),
            frozen_face: Face::default(),
            frozen_face_next: Face::default(),
            morph_defaults: Vec::new(),
            morph_scratch: Vec::new(),
            look: LookMix::default(),
            root: RootPlay {
                joint: crate::blend::sampler::root_motion_joint(character),
                accumulate_loops: false,
            },
            script: None,
            layers: Vec::new(),
            layer_poses: Vec::new(),
            found: Vec::with_capacity(machine.parameters.len()),
            mirror_switch: machine
                .states
                .iter()
                .map(|s| {
                    let parameter = machine.parameter_index(s.mirror_parameter.as_deref()?)?;
                    let mirrored = format!("{} (mirrored)", s.clip.as_deref()?);
                    let index = clips.iter().position(|c| c.name == mirrored)?;
                    Some((parameter, cache.get(index)))
                })
                .collect(),
            mirror_space: machine
                .states
                .iter()
                .map(|s| {
                    let parameter = machine.parameter_index(s.mirror_parameter.as_deref()?)?;
                    let mut space = s.blend_space.clone()?;
                    for node in &mut space.nodes {
                        node.clip = format!("{} (mirrored)", node.clip);
                    }
                    // Only where the copies were made (`offline::mirror::machine_clips`).
                    let made = |n: &crate::blend::BlendNode| clips.iter().any(|c| c.name == n.clip);
                    if !space.nodes.iter().all(made) {
                        return None;
                    }
                    Some((
                        parameter,
                        Box::new(BoundSpace::bind(space, character, clips, cache)),
                    ))
                })
                .collect(),
            pinned: Vec::new(),
        };
        for (i, l) in machine.layers.iter().enumerate() {
            let played = machine
                .layer_machine(i)
                .unwrap_or_else(|| l.machine(&machine.parameters));
            let mut layer = MachineSource::bind(&played, character, cache);
            let additive = (l.mode == LayerMode::Additive).then(|| {
                let skeleton = &character.skeleton;
                let n = skeleton.len();
                let mut starts = vec![Transform::IDENTITY; n * l.states.len()];
                for (state, start) in starts.chunks_mut(n.max(1)).enumerate() {
                    let term = [Term {
                        motion: Motion::State { state, time: 0.0 },
                        weight: 1.0,
                    }];
                    // A state that cannot be sampled starts at the rest pose.
                    if layer.blend_terms(&term, skeleton, start).is_err() {
                        start.copy_from_slice(skeleton.rest());
                    }
                }
                Box::new(AdditiveReference {
                    starts,
                    reference: vec![Transform::IDENTITY; n],
                    delta: vec![Transform::IDENTITY; n],
                    ..AdditiveReference::default()
                })
            });
            source.missing.extend(layer.missing.iter().cloned());
            let w = l.weight.clamp(0.0, 1.0) as f32;
            let mask: Vec<f32> = l
                .joint_mask(character)
                .iter()
                .map(|m| m.clamp(0.0, 1.0))
                .collect();
            let layer_mask: Vec<f32> = mask.iter().map(|m| m * w).collect();
            source.layers.push(BoundLayer {
                mask,
                shared_masks: (vec![1.0; layer_mask.len()], vec![0.0; layer_mask.len()]),
                layer_mask,
                source: Box::new(layer),
                additive,
                sync: l.synced_to.filter(|&k| k <= i).map(|k| LayerSync {
                    source: k,
                    timing: l.synced_timing,
                    weight: l.weight.clamp(0.0, 1.0),
                }),
            });
        }
        source.faced = source.states.iter().any(|m| {
            let faced = |c: &CompiledClip| c.morph.has_face();
            match m {
                StateMotion::Clip(c) => c.iter().any(faced),
                StateMotion::Blend { bound, .. } => bound.nodes.iter().flatten().any(faced),
            }
        });
        if source.faced {
            let defaults = crate::core::morph::default_weights(character);
            let zero = Face::zero(&defaults, character.expressions.len());
            source.face = zero.clone();
            source.frozen_face = Face {
                morph: defaults.clone(),
                total: 1.0,
                ..zero.clone()
            };
            source.frozen_face_next = zero;
            source.morph_scratch = defaults.clone();
            source.morph_defaults = defaults;
        }
        source.poses.reserve(2 * n);
        source.refresh_infos(true);
        source.sync_lengths();
        source
    }

    /// The player (its parameters are set through it).
    pub(crate) fn player(&self) -> &MachinePlayer {
        &self.player
    }

    /// The player of the machine's layer `layer` (its states, current state and transition).
    pub(crate) fn layer_player(&self, layer: usize) -> Option<&MachinePlayer> {
        self.layers.get(layer).map(|l| &l.source.player)
    }

    /// Weighs layer `layer` by `weight` (clamped into [0, 1]) from now on, as it plays: its mask, a synced
    /// layer's Timing, and the machine its player keeps. False when there is no such layer.
    pub(crate) fn set_layer_weight(&mut self, layer: usize, weight: f64) -> bool {
        let Some(l) = self.layers.get_mut(layer) else {
            return false;
        };
        let weight = weight.clamp(0.0, 1.0);
        for (w, m) in l.layer_mask.iter_mut().zip(&l.mask) {
            *w = m * weight as f32;
        }
        if let Some(sync) = &mut l.sync {
            sync.weight = weight;
        }
        self.player.set_layer_weight(layer, weight);
        self.sync_lengths();
        true
    }

    /// The player, to set parameters.
    pub(crate) fn player_mut(&mut self) -> &mut MachinePlayer {
        &mut self.player
    }

    /// Clips the states name that the character lacks.
    pub(crate) fn missing(&self) -> &[String] {
        &self.missing
    }

    /// The current state's cycle in seconds at speed 1.
    pub(crate) fn current_length(&self) -> f32 {
        self.length_of(self.player.current()) as f32
    }

    /// Back to the entry state's start, before the first tick (the parameters keep their values).
    pub(crate) fn restart(&mut self) {
        self.player.restart();
        self.clock.restart();
        self.tick = self.player.tick_state();
        self.last.clear();
        self.before_last.clear();
        self.start_of = None;
        self.refresh_infos(true);
        for l in &mut self.layers {
            l.source.clock = self.clock;
            l.source.restart();
        }
        self.sync_lengths();
    }

    /// The simulation's clock: its rate and the ticks run.
    pub(crate) fn sim_clock(&self) -> &SimClock {
        &self.clock
    }

    /// Simulates at `rate` Hz (clamped into [`crate::graph::script::SIM_RATE_RANGE`]), back at the entry
    /// state's start ([`MachineSource::restart`]).
    pub(crate) fn set_sim_rate(&mut self, rate: f64) {
        self.clock = SimClock::new(rate);
        self.restart();
    }

    /// Plays `script` from its start as the machine's time goes on (None: no script). A machine that has run no
    /// tick past 0 goes back before its first, so that the script's events at 0 apply at the tick at 0.
    pub(crate) fn set_script(&mut self, script: Option<std::sync::Arc<Script>>) {
        self.script = script.map(ScriptCursor::new);
        if self.clock.last_time() <= 0.0 {
            self.restart();
        }
    }

    /// The script played and how far.
    pub(crate) fn script(&self) -> Option<&ScriptCursor> {
        self.script.as_ref()
    }

    /// Takes the machine to its time `to` (seconds since its start): runs every tick due by then, each after the
    /// script's events due by its time, then shows the last tick's state moved on to `to`.
    pub(crate) fn advance(&mut self, to: f64, skeleton: &Skeleton, accumulate_loops: bool) {
        self.run_to(to, true, skeleton, accumulate_loops);
    }

    /// Replays the machine from its entry to `time` (at least 0): the same ticks a run that played to `time`
    /// ran, whatever its frames, so that frozen poses and where per-bone transitions start are what a live run
    /// leaves; then samples it into `out`. With `under_script`, the parameters go back to their defaults and the
    /// script plays from its start; otherwise the parameters stay as they are and the script's cursor where it
    /// is. Returns the script's events applied.
    pub(crate) fn replay(
        &mut self,
        time: f64,
        under_script: bool,
        skeleton: &Skeleton,
        accumulate_loops: bool,
        out: SourceOut,
    ) -> usize {
        let under_script = under_script && self.script.is_some();
        if under_script {
            self.player.reset_parameters();
            if let Some(cursor) = &mut self.script {
                cursor.rewind();
            }
        }
        self.restart();
        self.run_to(time.max(0.0), under_script, skeleton, accumulate_loops);
        // A failed sample leaves the pose as it was; the evaluation after the seek reports it.
        let _ = self.sample(skeleton, accumulate_loops, out);
        self.script.as_ref().map_or(0, ScriptCursor::applied)
    }

    /// Runs the ticks due by `to` (their script's events applied when `under_script`), then coasts the player
    /// from the last one to `to`. A jump of more than [`MAX_TICKS_AT_ONCE`] ticks takes those before the last
    /// ones in one update.
    fn run_to(&mut self, to: f64, under_script: bool, skeleton: &Skeleton, accumulate_loops: bool) {
        self.root.accumulate_loops = accumulate_loops;
        self.player.set_tick_state(self.tick);
        for l in &mut self.layers {
            l.source.player.set_tick_state(l.source.tick);
        }
        let mut due = self.clock.due(to);
        if due > MAX_TICKS_AT_ONCE {
            self.tick(due - MAX_TICKS_AT_ONCE + 1, under_script, skeleton);
            due = MAX_TICKS_AT_ONCE - 1;
        }
        for _ in 0..due {
            self.tick(1, under_script, skeleton);
        }
        self.player.coast(to - self.clock.last_time());
        for l in &mut self.layers {
            l.source.player.coast(to - l.source.clock.last_time());
        }
    }

    /// Runs the `n`-th tick from now (one update over those skipped): the script's events due by its time when
    /// `under_script`, the blend states' points and lengths, then the player's update. What it decided is kept
    /// as poses: the pose an interruption froze and, for per-bone transitions, the tick's pose and where one
    /// that started here starts from. A failed blend here leaves its buffer as it was; the sample of the same
    /// clips asked for next reports it.
    fn tick(&mut self, n: u64, under_script: bool, skeleton: &Skeleton) {
        let (time, dt) = self.clock.tick_over(n);
        if under_script && let Some(cursor) = &mut self.script {
            cursor.apply_due(time, &mut self.player);
        }
        self.refresh_infos(false);
        self.sync_lengths();
        // The layers decide on the parameters as this tick found them (a trigger any of them takes is reset).
        if !self.layers.is_empty() {
            self.found.clear();
            self.found.extend_from_slice(self.player.values());
        }
        self.player.update(dt);
        for l in &mut self.layers {
            l.source.player.set_values(&self.found);
            l.source.tick(n, false, skeleton);
            self.player
                .reset_triggers_taken_by(&self.found, &l.source.player);
        }
        if let Some(terms) = self.player.take_freeze() {
            // Blended into a second buffer: the terms may hold the pose frozen before (an interruption of an
            // interruption).
            let mut fresh = std::mem::take(&mut self.frozen_next);
            fresh.resize(skeleton.len(), Transform::IDENTITY);
            let _ = self.blend_terms(&terms, skeleton, &mut fresh);
            self.frozen_next = std::mem::replace(&mut self.frozen, fresh);
            if self.faced {
                std::mem::swap(&mut self.frozen_face_next, &mut self.face);
                std::mem::swap(&mut self.frozen_face, &mut self.frozen_face_next);
            }
        }
        if self.per_bone {
            self.keep_tick_pose(skeleton, dt);
        }
        self.tick = self.player.tick_state();
    }

    /// The running transition and its model when it blends per bone.
    fn per_bone_transition(&self) -> Option<(crate::graph::ActiveTransition, TransitionModel)> {
        let a = self.player.active()?;
        let model = self.player.machine().transitions[a.transition].model;
        matches!(
            model,
            TransitionModel::Inertialization | TransitionModel::DeadBlending
        )
        .then_some((*a, model))
    }

    /// After a tick `dt` seconds after the one before: records where a per-bone transition that started at it
    /// starts (the pose of the tick before and its velocity), then samples the tick's pose as the last one.
    fn keep_tick_pose(&mut self, skeleton: &Skeleton, dt: f64) {
        let started = self.player.events().iter().rev().find_map(|e| match e {
            MachineEvent::Started { transition, .. } => Some(*transition),
            _ => None,
        });
        let fresh = match self.per_bone_transition() {
            Some((a, _)) => {
                let fresh = started == Some(a.transition) || self.start_of != Some(a.transition);
                if fresh {
                    self.record_start(skeleton);
                    self.start_of = Some(a.transition);
                }
                fresh
            }
            None => {
                self.start_of = None;
                false
            }
        };
        let mut pose = std::mem::take(&mut self.before_last);
        pose.resize(skeleton.len(), Transform::IDENTITY);
        let _ = self.compose(skeleton, &mut pose, fresh);
        self.before_last = std::mem::replace(&mut self.last, pose);
        self.last_dt = dt;
    }

    fn point_of(&self, state: usize) -> Option<[f64; 2]> {
        match &self.states[state] {
            StateMotion::Blend {
                point: Some([x, y]),
                ..
            } => Some([self.player.value(*x), self.player.value(*y)]),
            _ => None,
        }
    }

    fn length_of(&self, state: usize) -> f64 {
        match &self.states[state] {
            StateMotion::Clip(Some(c)) => f64::from(c.animation.duration()),
            StateMotion::Clip(None) => 0.0,
            StateMotion::Blend { length, .. } => *length,
        }
    }

    /// Brings each blend state's weights and cycle length to its point (from its parameters, else its own);
    /// whether any moved.
    fn refresh_weights(&mut self) -> bool {
        let mut moved = false;
        for s in 0..self.states.len() {
            let from_parameters = self.point_of(s);
            if let StateMotion::Blend {
                bound,
                weights,
                weights_at,
                length,
                live,
                tree,
                ..
            } = &mut self.states[s]
            {
                let p = from_parameters.unwrap_or(bound.space.point);
                let reweigh = match tree {
                    Some(t) => {
                        let player = &self.player;
                        let unread = t.read.len() != t.parameters.len()
                            || t.parameters
                                .iter()
                                .zip(&t.read)
                                .any(|(&i, &v)| player.value(i).to_bits() != v.to_bits());
                        if unread {
                            t.read.clear();
                            t.read.extend(t.parameters.iter().map(|&i| player.value(i)));
                            let value = |name: &str| player.value_of(name).unwrap_or(0.0);
                            let nodes = bound.space.nodes.len();
                            let total = t.tree.weights_into(&value, nodes, weights, &mut t.scratch);
                            t.rest_share = (1.0_f64 - total).max(0.0);
                        }
                        unread
                    }
                    None if *weights_at != Some(p) => {
                        *weights = bound.space.weights_at(DVec2::from(p));
                        true
                    }
                    None => false,
                };
                if reweigh {
                    *length = f64::from(bound.sampler.cycle_length(weights));
                    let nodes = &bound.nodes;
                    *weights_at = Some(p);
                    live.clear();
                    live.extend(
                        weights
                            .iter()
                            .enumerate()
                            .filter(|&(node, w)| {
                                *w > 1e-5 && nodes.get(node).is_some_and(Option::is_some)
                            })
                            .map(|(node, w)| (node, *w as f32)),
                    );
                    moved = true;
                }
            }
        }
        moved
    }

    /// Tells the player each state's cycle length and looping: always when `all`, else only when a blend
    /// state's point moved (the clips' lengths do not change).
    fn refresh_infos(&mut self, all: bool) {
        if !self.refresh_weights() && !all {
            return;
        }
        for s in 0..self.states.len() {
            let looping = match &self.states[s] {
                StateMotion::Clip(Some(c)) => c.looping,
                _ => true,
            };
            let info = StateInfo {
                length: self.pinned_length(s),
                looping,
            };
            self.player.set_state_info(s, info);
        }
    }

    /// The length state `s` counts: a synced layer's pin, else its motion's.
    fn pinned_length(&self, s: usize) -> f64 {
        self.pinned
            .get(s)
            .copied()
            .flatten()
            .unwrap_or_else(|| self.length_of(s))
    }

    /// Times the synced layers' states (their points read from the machine's parameters as they stand): each
    /// state of a synced layer counts its source's motion's length, or with Timing the length between that and
    /// its own motion's by the layer's weight, which its source then counts too (a state with no motion of its
    /// own keeps its source's). Nothing to do without synced layers.
    fn sync_lengths(&mut self) {
        if self.layers.iter().all(|l| l.sync.is_none()) {
            return;
        }
        // Taken out while a layer and its source (the machine itself, or a layer below) are both changed.
        let mut layers = std::mem::take(&mut self.layers);
        for i in 0..layers.len() {
            let Some(sync) = layers[i].sync else {
                continue;
            };
            let (below, rest) = layers.split_at_mut(i);
            let layer = &mut rest[0].source;
            layer.player.set_values(self.player.values());
            layer.refresh_weights();
            let source: &mut MachineSource = match sync.source {
                0 => self,
                k => &mut below[k - 1].source,
            };
            let states = layer.states.len().min(source.states.len());
            layer.pinned.resize(layer.states.len(), None);
            if sync.timing {
                source.pinned.resize(source.states.len(), None);
            }
            for s in 0..states {
                let theirs = source.length_of(s);
                let own = layer.length_of(s);
                let length = if sync.timing && own > 0.0 {
                    theirs + (own - theirs) * sync.weight
                } else {
                    theirs
                };
                layer.pinned[s] = Some(length);
                if sync.timing {
                    source.pinned[s] = Some(length);
                }
                for m in [&mut *layer, &mut *source] {
                    if let Some(info) = m.player.state_info(s) {
                        let info = StateInfo {
                            length: m.pinned_length(s),
                            ..info
                        };
                        m.player.set_state_info(s, info);
                    }
                }
            }
        }
        self.layers = layers;
    }

    /// Samples the player's pose as it stands into `out` (sized for the skeleton); the states' clips' morph
    /// weights and expressions blend as the pose does into `morph` and `expressions` (which hold the meshes'
    /// defaults and zeros, left as they are when no clip has such tracks).
    pub(crate) fn sample(
        &mut self,
        skeleton: &Skeleton,
        accumulate_loops: bool,
        out: SourceOut,
    ) -> Result<(), JobError> {
        self.root.accumulate_loops = accumulate_loops;
        let SourceOut {
            pose: out,
            morph,
            expressions,
            look,
            ..
        } = out;
        self.refresh_infos(false);
        self.sync_lengths();
        let mut result = self.compose(skeleton, out, false);
        keep_first(&mut result, self.compose_layers(skeleton, out));
        if self.faced {
            self.face.write_to(morph, expressions);
        }
        *look = self.look.rotation();
        result
    }

    /// Each layer's pose over `out` in order, by its weight and mask (Unity's Override layers); the root joint
    /// keeps the travel of the pose below, as a clip layer leaves it.
    fn compose_layers(
        &mut self,
        skeleton: &Skeleton,
        out: &mut [Transform],
    ) -> Result<(), JobError> {
        if self.layers.is_empty() {
            return Ok(());
        }
        let n = skeleton.len();
        let mut result = Ok(());
        let mut poses = std::mem::take(&mut self.layer_poses);
        poses.resize(2 * n, Transform::IDENTITY);
        for l in &mut self.layers {
            let (below, own) = poses.split_at_mut(n);
            l.source.refresh_infos(false);
            let share = l.source.compose_moving(skeleton, own, &mut result);
            if share <= 0.0 {
                continue;
            }
            below.copy_from_slice(out);
            for ((b, w), m) in l
                .shared_masks
                .0
                .iter_mut()
                .zip(&mut l.shared_masks.1)
                .zip(&l.layer_mask)
            {
                *w = m * share;
                *b = 1.0 - *w;
            }
            match &mut l.additive {
                None => keep_first(
                    &mut result,
                    crate::layers::clip_layer::blend_override(
                        &poses,
                        [&l.shared_masks.0, &l.shared_masks.1],
                        skeleton,
                        self.root.joint,
                        out,
                    ),
                ),
                Some(a) => keep_first(
                    &mut result,
                    a.add(
                        &l.source.player,
                        &poses[n..],
                        &l.shared_masks.1,
                        skeleton,
                        self.root.joint,
                        out,
                    ),
                ),
            }
        }
        self.layer_poses = poses;
        result
    }

    /// As a layer: the pose of the terms that play a motion into `out`, their weights made to sum to 1, and
    /// their share of the whole (0: `out` untouched). A state whose clip moves no joint (Unity's empty state)
    /// leaves the layers below as they are, and a transition into or out of one fades the layer in or out. A
    /// per-bone transition's pose is taken whole.
    fn compose_moving(
        &mut self,
        skeleton: &Skeleton,
        out: &mut [Transform],
        result: &mut Result<(), JobError>,
    ) -> f32 {
        if self.per_bone_transition().is_some() {
            keep_first(result, self.compose(skeleton, out, false));
            return 1.0;
        }
        let mut terms = std::mem::take(&mut self.terms);
        self.player.terms_into(&mut terms);
        let moves = |m: &Motion| match m {
            Motion::Frozen => true,
            Motion::State { state, .. } => match self.states.get(*state) {
                Some(StateMotion::Clip(Some(c))) => c.binding.tracks.iter().any(Option::is_some),
                Some(StateMotion::Clip(None)) | None => false,
                Some(StateMotion::Blend { .. }) => true,
            },
        };
        terms.retain(|t| t.weight > 0.0 && moves(&t.motion));
        let share: f64 = terms.iter().map(|t| t.weight).sum();
        if share > 0.0 {
            for t in &mut terms {
                t.weight /= share;
            }
            keep_first(result, self.blend_terms(&terms, skeleton, out));
        }
        self.terms = terms;
        share.min(1.0) as f32
    }

    /// The player's pose as it stands into `out`: its terms in one blend, or a per-bone transition's destination
    /// turned into the transition's pose (`fresh`: it starts now, and inertialization's offsets are taken
    /// against this destination first).
    fn compose(
        &mut self,
        skeleton: &Skeleton,
        out: &mut [Transform],
        fresh: bool,
    ) -> Result<(), JobError> {
        let Some((a, model)) = self.per_bone_transition() else {
            let mut terms = std::mem::take(&mut self.terms);
            self.player.terms_into(&mut terms);
            let result = self.blend_terms(&terms, skeleton, out);
            self.terms = terms;
            return result;
        };
        let dest = [Term {
            motion: Motion::State {
                state: a.to,
                time: a.to_time,
            },
            weight: 1.0,
        }];
        let mut result = self.blend_terms(&dest, skeleton, out);
        if fresh {
            keep_first(&mut result, self.fix_offsets(out));
        }
        let halflife = self.player.machine().transitions[a.transition].halflife;
        let applied =
            self.apply_per_bone(model, a.elapsed, a.duration, a.progress(), halflife, out);
        keep_first(&mut result, applied);
        result
    }

    /// Records the last tick's pose and its velocity (from the tick before) as where a per-bone transition
    /// starts (the rest pose and no velocity before any tick).
    fn record_start(&mut self, skeleton: &Skeleton) {
        let shown: &[Transform] = if self.last.len() == skeleton.len() {
            &self.last
        } else {
            skeleton.rest()
        };
        self.start.resize(shown.len(), BoneStart::default());
        // The buffers are sized here: the job cannot refuse them.
        let _ = TransitionStartJob {
            shown,
            previous: if self.before_last.len() == shown.len() {
                &self.before_last
            } else {
                &[]
            },
            dt: self.last_dt,
            output: &mut self.start,
        }
        .run();
    }

    /// Inertialization's offsets: each bone's start against the destination `dest` as it starts.
    fn fix_offsets(&mut self, dest: &[Transform]) -> Result<(), JobError> {
        InertialOffsetJob {
            destination: dest,
            start: &mut self.start,
        }
        .run()
    }

    /// Turns `out` (the destination) into the per-bone model's pose `elapsed` seconds into a transition of
    /// `duration` seconds.
    fn apply_per_bone(
        &self,
        model: TransitionModel,
        elapsed: f64,
        duration: f64,
        progress: f64,
        halflife: f64,
        out: &mut [Transform],
    ) -> Result<(), JobError> {
        match model {
            TransitionModel::Inertialization => InertializationJob {
                start: &self.start,
                elapsed,
                duration,
                pose: out,
            }
            .run(),
            TransitionModel::DeadBlending => DeadBlendingJob {
                start: &self.start,
                elapsed,
                progress,
                halflife,
                pose: out,
            }
            .run(),
            TransitionModel::Unity | TransitionModel::Godot => Ok(()),
        }
    }

    /// Blends `terms` into `out` in one BlendingJob: every clip of every term with the term's weight times its
    /// node weight (a blend state's nodes join the others rather than being blended first).
    fn blend_terms(
        &mut self,
        terms: &[Term],
        skeleton: &Skeleton,
        out: &mut [Transform],
    ) -> Result<(), JobError> {
        self.weights.clear();
        if self.faced {
            self.face.clear();
        }
        self.look.clear();
        let mut result = Ok(());
        for term in terms.iter().filter(|t| t.weight > 0.0) {
            match term.motion {
                Motion::Frozen => {
                    let slot = next_slot(&mut self.poses, self.weights.len(), skeleton.len());
                    let frozen = if self.frozen.len() == skeleton.len() {
                        &self.frozen[..]
                    } else {
                        skeleton.rest()
                    };
                    self.poses[slot].copy_from_slice(frozen);
                    self.weights.push(term.weight as f32);
                    if self.faced {
                        let f = &self.frozen_face;
                        self.face.add(term.weight as f32, &f.morph, &f.expressions);
                    }
                }
                Motion::State { state, time } => {
                    keep_first(
                        &mut result,
                        self.push_state(state, time, term.weight, skeleton),
                    );
                }
            }
        }
        if self.faced {
            self.face.normalize();
        }
        if self.weights.is_empty() {
            out.copy_from_slice(skeleton.rest());
            return result;
        }
        let used = self.weights.len() * skeleton.len();
        result.and(blend_into(
            &self.poses[..used],
            &self.weights,
            skeleton,
            out,
        ))
    }

    /// Appends state `state` at normalised time `time`, weighing `weight`, to the poses to blend: a clip at that
    /// fraction of its length (wrapped when it loops, held at its end when not), or a blend space's nodes at that
    /// phase of each, each weighing `weight` times its node weight at the state's point.
    fn push_state(
        &mut self,
        state: usize,
        time: f64,
        weight: f64,
        skeleton: &Skeleton,
    ) -> Result<(), JobError> {
        let n = skeleton.len();
        let before = self.weights.len();
        let mut result = Ok(());
        let time = self.player.motion_time(state, time);
        match &mut self.states[state] {
            StateMotion::Clip(None) => {}
            StateMotion::Clip(Some(c)) => {
                let c = match &mut self.mirror_switch[state] {
                    Some((p, mirrored)) if self.player.value(*p) != 0.0 => mirrored,
                    _ => c,
                };
                let slot = next_slot(&mut self.poses, before, n);
                let t = c.time_after(time * f64::from(c.animation.duration()));
                keep_first(&mut result, c.sample(t as f32, &mut self.poses[slot]));
                self.weights.push(weight as f32);
                if self.faced {
                    let (d, s) = (&self.morph_defaults, &mut self.morph_scratch);
                    self.face.add_clip(weight as f32, c, t as f32, d, s);
                }
                self.look.add_clip(weight as f32, c, t as f32);
            }
            StateMotion::Blend {
                bound,
                weights,
                length,
                live,
                tree,
                ..
            } => {
                // The fraction of the cycle: `time - floor(time)` is exact, and unlike `rem_euclid` (a software
                // `fmod`, its loop as long as the time's exponent is large) it takes the same few cycles at any time.
                let bound = match &mut self.mirror_space[state] {
                    Some((p, mirrored)) if self.player.value(*p) != 0.0 => mirrored,
                    _ => bound,
                };
                let cycles = time.floor();
                let at = SpaceTime {
                    phase: time - cycles,
                    elapsed: time * *length,
                    cycles: cycles as i64,
                };
                let node_weights = &*weights;
                let mut unused_travel = glam::Vec3::ZERO;
                keep_first(
                    &mut result,
                    bound.sample_nodes(
                        live,
                        at,
                        |node, _| (weight * node_weights[node]) as f32,
                        skeleton,
                        self.root,
                        NodeOutput {
                            poses: &mut self.poses,
                            weights: &mut self.weights,
                            face: self.faced.then_some(FaceMix {
                                face: &mut self.face,
                                defaults: &self.morph_defaults,
                                scratch: &mut self.morph_scratch,
                            }),
                            look: &mut self.look,
                            // A machine's states stand on no treadmill (their root motion plays as kept).
                            travel: &mut unused_travel,
                        },
                    ),
                );
                // A tree whose weights fall short of 1 leaves the rest to the rest pose (Unity: to the default
                // values).
                let rest_share = tree.as_ref().map_or(0.0, |t| t.rest_share);
                if rest_share > 1e-5 && self.weights.len() > before {
                    let slot = next_slot(&mut self.poses, self.weights.len(), n);
                    self.poses[slot].copy_from_slice(skeleton.rest());
                    self.weights.push((weight * rest_share) as f32);
                    if self.faced {
                        self.face
                            .add_morph((weight * rest_share) as f32, &self.morph_defaults);
                        self.face.total += (weight * rest_share) as f32;
                    }
                }
            }
        }
        if self.weights.len() == before {
            // A state with nothing to play holds the rest pose.
            let slot = next_slot(&mut self.poses, before, n);
            self.poses[slot].copy_from_slice(skeleton.rest());
            self.weights.push(weight as f32);
            if self.faced {
                // The rest pose's face: the meshes' defaults, no expression.
                self.face.add_morph(weight as f32, &self.morph_defaults);
                self.face.total += weight as f32;
            }
        }
        result
    }
}

/// The weighted blend of `poses` (one per weight, back to back) into `out`, by the BlendingJob.
fn blend_into(
    poses: &[Transform],
    weights: &[f32],
    skeleton: &Skeleton,
    out: &mut [Transform],
) -> Result<(), JobError> {
    BlendingJob {
        poses,
        weights,
        masks: &[],
        additive: &[],
        rest: skeleton.rest(),
        threshold: 0.1,
        output: out,
    }
    .run()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{ClockStep, EvalInput, Evaluator, Precision, SourceSpec};
    use crate::graph::ParameterValue;
    use crate::layers::LayerParams;

    /// The angle between two rotations in degrees, by atan2 of the relative rotation in f64 (an f32 `acos` of the
    /// dot would read rounding as hundredths of a degree).
    fn angle(a: glam::Quat, b: glam::Quat) -> f64 {
        let r = a.as_dquat().normalize().conjugate() * b.as_dquat().normalize();
        (2.0 * r.xyz().length().atan2(r.w.abs())).to_degrees()
    }

    /// The largest angle (degrees) between the two poses' joint rotations.
    fn worst_angle(a: &[Transform], b: &[Transform]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(a, b)| angle(a.rotation, b.rotation))
            .fold(0.0, f64::max)
    }

    /// Idle → Walk under `model` over 0.3 s, asked for at 0.5 s, stepped at 60 Hz for 1.2 s: every frame's pose,
    /// and the walk alone at each frame's time since the transition.
    fn run(model: &str) -> (Vec<Vec<Transform>>, Vec<Vec<Transform>>) {
        let loaded = crate::import::load_file(&crate::test_support::quaternius()).unwrap();
        let machine: StateMachine = serde_json::from_str(&format!(
            r#"{{"parameters": [{{"name": "go", "type": "bool"}}],
                 "states": [{{"name": "Idle", "clip": "Idle_Loop"}}, {{"name": "Walk", "clip": "Walk_Loop"}}],
                 "entry": "Idle",
                 "transitions": [{{"from": "Idle", "to": "Walk", "has_exit_time": false, "duration": 0.3,
                                   "model": "{model}", "halflife": 0.05,
                                   "conditions": [{{"parameter": "go", "mode": "if"}}]}}]}}"#
        ))
        .unwrap();
        machine.validate().unwrap();
        let (character, clips) = (&loaded.character, &loaded.clips);
        let mut ev = Evaluator::with_precision(
            character,
            clips,
            SourceSpec::StateMachine(machine),
            LayerParams::off(),
            Precision::Exact,
        );
        let walk = clips.iter().find(|c| c.name == "Walk_Loop").unwrap();
        let mut alone = Evaluator::for_clip_exact(character, walk);
        let (mut poses, mut walks) = (Vec::new(), Vec::new());
        for k in 0..=72 {
            if k == 30 {
                ev.source_mut()
                    .machine_mut()
                    .unwrap()
                    .set("go", ParameterValue::Bool(true));
            }
            let t = k as f32 / 60.0;
            let out = ev.evaluate(&EvalInput {
                clock: ClockStep::Continue(t),
                ..Default::default()
            });
            poses.push(out.local.local.clone());
            let since = (k as f32 - 30.0).max(0.0) / 60.0;
            let w = alone.evaluate(&EvalInput {
                clock: ClockStep::Seek(since),
                ..Default::default()
            });
            walks.push(w.local.local.clone());
        }
        (poses, walks)
    }

    /// Inertialization starts from the pose shown (the frame before), never strays further from the destination
    /// than that start did, and is the destination alone from 0.3 s on.
    #[test]
    fn inertialization_starts_where_the_pose_was_and_settles_on_the_destination() {
        let (poses, walks) = run("inertialization");
        assert!(
            worst_angle(&poses[30], &poses[29]) < 1e-3,
            "continuous at the start"
        );
        let start_offsets: Vec<f64> = poses[29]
            .iter()
            .zip(&walks[30])
            .map(|(a, b)| angle(a.rotation, b.rotation))
            .collect();
        let largest = start_offsets.iter().cloned().fold(0.0, f64::max);
        assert!(largest > 5.0, "a real transition: {largest}°");
        for k in 30..48 {
            for ((p, w), x0) in poses[k].iter().zip(&walks[k]).zip(&start_offsets) {
                let now = angle(p.rotation, w.rotation);
                assert!(now <= x0 + 1e-3, "frame {k} overshoots: {now}° from {x0}°");
            }
        }
        for k in 48..=72 {
            assert!(worst_angle(&poses[k], &walks[k]) < 1e-3, "frame {k}");
        }
    }

    /// Dead blending starts from the pose shown and is the destination alone once its 0.3 s are over.
    #[test]
    fn dead_blending_starts_where_the_pose_was_and_ends_on_the_destination() {
        let (poses, walks) = run("dead_blending");
        assert!(
            worst_angle(&poses[30], &poses[29]) < 1e-3,
            "continuous at the start"
        );
        assert!(worst_angle(&poses[31], &walks[31]) > 1.0, "still blending");
        for k in 48..=72 {
            assert!(worst_angle(&poses[k], &walks[k]) < 1e-3, "frame {k}");
        }
    }

    /// Quaternius's clips in a machine of four states (one a blend space) that any value of the int `n` from 1 to
    /// 3 sends to B, C or D in 0.4 s from any state.
    fn four_state_machine() -> (crate::import::ImportedModel, StateMachine) {
        let loaded = crate::import::load_file(&crate::test_support::quaternius()).unwrap();
        let space = r#"{"mode": "freeform_cartesian", "point": [0, 1.1], "nodes": [
            {"clip": "Idle_Loop", "position": [0, 0]}, {"clip": "Walk_Loop", "position": [-1, 1.5]},
            {"clip": "Jog_Fwd_Loop", "position": [1, 2]}]}"#;
        let machine: StateMachine = serde_json::from_str(&format!(
            r#"{{"parameters": [{{"name": "n", "type": "int"}}],
                 "states": [{{"name": "A", "clip": "Idle_Loop"}}, {{"name": "B", "blend_space": {space}}},
                            {{"name": "C", "clip": "Sprint_Loop"}}, {{"name": "D", "clip": "Walk_Loop"}}],
                 "entry": "A",
                 "transitions": [
                   {{"from": "any", "to": "B", "has_exit_time": false, "duration": 0.4,
                     "can_transition_to_self": false,
                     "conditions": [{{"parameter": "n", "mode": "equals", "threshold": 1}}]}},
                   {{"from": "any", "to": "C", "has_exit_time": false, "duration": 0.4,
                     "can_transition_to_self": false,
                     "conditions": [{{"parameter": "n", "mode": "equals", "threshold": 2}}]}},
                   {{"from": "any", "to": "D", "has_exit_time": false, "duration": 0.4,
                     "can_transition_to_self": false,
                     "conditions": [{{"parameter": "n", "mode": "equals", "threshold": 3}}]}}]}}"#
        ))
        .unwrap();
        machine.validate().unwrap();
        (loaded, machine)
    }

    /// An interruption of an interruption freezes the blend that holds the pose frozen before, and plays on to
    /// its last destination (blend-space states included).
    #[test]
    fn an_interruption_of_an_interruption_plays_through() {
        let (loaded, machine) = four_state_machine();
        let mut ev = Evaluator::with_precision(
            &loaded.character,
            &loaded.clips,
            SourceSpec::StateMachine(machine),
            LayerParams::off(),
            Precision::Exact,
        );
        let mut frozen_twice = false;
        for k in 0..=90 {
            let n = match k {
                10 => Some(1.0),
                20 => Some(2.0),
                26 => Some(3.0),
                _ => None,
            };
            if let Some(n) = n {
                ev.source_mut()
                    .machine_mut()
                    .unwrap()
                    .set("n", ParameterValue::Number(n));
            }
            let out = ev.evaluate(&EvalInput {
                clock: ClockStep::Continue(k as f32 / 60.0),
                ..Default::default()
            });
            assert!(out.error.is_none(), "frame {k}: {:?}", out.error);
            assert!(
                out.local.local.iter().all(|t| t.rotation.is_normalized()),
                "frame {k}"
            );
            let player = ev.source().machine().unwrap();
            frozen_twice |= k == 26
                && player
                    .active()
                    .is_some_and(|a| a.frozen_source && a.to == 3);
        }
        assert!(frozen_twice, "the third change interrupts the second");
        assert_eq!(ev.source().machine().unwrap().current(), 3);
        assert!(ev.source().machine().unwrap().active().is_none());
    }

    /// A seek under a script lands where playing the script frame by frame does (as `pose --script` plays it):
    /// the parameters back at their defaults, the events applied on the way, the interruptions' frozen poses as
    /// a live run leaves them; a plain seek keeps the parameters as they are.
    #[test]
    fn a_seek_under_a_script_lands_where_playing_it_does() {
        let (loaded, machine) = four_state_machine();
        let script = crate::graph::Script::parse(
            r#"[{"time": 0.1667, "set": "n", "value": 1}, {"time": 0.3333, "set": "n", "value": 2},
                {"time": 0.4333, "set": "n", "value": 3}, {"time": 2.0, "set": "n", "value": 1}]"#,
            "test",
        )
        .unwrap();
        let evaluator = || {
            let (c, clips) = (&loaded.character, &loaded.clips);
            let m = SourceSpec::StateMachine(machine.clone());
            Evaluator::with_precision(c, clips, m, LayerParams::off(), Precision::Exact)
        };
        let until = 0.55;
        let script = std::sync::Arc::new(script);
        let mut played = evaluator();
        played.source_mut().set_script(Some(script.clone()));
        for t in crate::graph::script::update_times(60.0, until) {
            played.evaluate(&EvalInput {
                clock: ClockStep::Continue(t as f32),
                ..Default::default()
            });
        }
        let mut sought = evaluator();
        sought
            .source_mut()
            .machine_mut()
            .unwrap()
            .set("n", ParameterValue::Number(2.0));
        sought.source_mut().set_script(Some(script));
        let applied = sought.seek_script(until as f32);
        sought.evaluate(&EvalInput::default());
        assert_eq!(applied, 3, "the events due by {until} s");
        let (a, b) = (
            played.source().machine().unwrap(),
            sought.source().machine().unwrap(),
        );
        // (`Continue` carries f32 times, the seek f64 ones: normalised times agree to rounding.)
        assert_eq!(a.current(), b.current());
        assert!(
            (a.time() - b.time()).abs() < 1e-6,
            "{} {}",
            a.time(),
            b.time()
        );
        assert!(
            b.active().is_some_and(|t| t.frozen_source),
            "inside the interruption"
        );
        let (a, b) = (&played.output().local.local, &sought.output().local.local);
        assert!(worst_angle(a, b) < 1e-4, "{}°", worst_angle(a, b));
        // A plain seek replays with the parameters as they are (n = 3 now): straight into D, no interruption.
        sought.seek(until as f32);
        let player = sought.source().machine().unwrap();
        assert!(player.active().is_none_or(|t| !t.frozen_source));
    }

    /// A clip that several states play (alone or as a blend state's node) is compiled once and shared.
    #[test]
    fn states_share_a_clip_compiled_once() {
        let model = crate::demo::mannequin::load();
        let (c, clips) = (&model.character, &model.clips[..]);
        let machine: StateMachine = serde_json::from_value(serde_json::json!({
            "states": [
                {"name": "Walk", "clip": "WalkForward"},
                {"name": "Move", "blend_space": {"mode": "freeform_cartesian", "point": [0, 0.7], "nodes": [
                    {"clip": "Idle", "position": [0, 0]},
                    {"clip": "WalkForward", "position": [0, 1.4]}]}}],
            "entry": "Walk"
        }))
        .unwrap();
        let ev = Evaluator::new(
            c,
            clips,
            SourceSpec::StateMachine(machine),
            LayerParams::off(),
        );
        let crate::eval::source::player::Source::Machine(m) = &ev.source.source else {
            panic!("a machine source")
        };
        let (StateMotion::Clip(Some(alone)), StateMotion::Blend { bound, .. }) =
            (&m.states[0], &m.states[1])
        else {
            panic!("a clip state and a blend state")
        };
        let node = bound.nodes[1].as_ref().unwrap();
        assert!(std::sync::Arc::ptr_eq(&alone.animation, &node.animation));
    }

    /// A blend-space state plays as the same space does as a source: in place, its nodes' travel taken out of the
    /// root the same way (the mannequin's walk and run travel), every joint at several times.
    #[test]
    fn a_blend_state_plays_as_its_blend_space_does() {
        let model = crate::demo::mannequin::load();
        let c = &model.character;
        // The walk again, its loop turned a third of a cycle on (cycle offset): its feet land at other fractions
        // of the cycle, so marker sync and normalised time differ.
        let mut clips = model.clips.clone();
        let walk = clips.iter().find(|c| c.name == "WalkForward").unwrap();
        let settings = crate::core::ClipSettings {
            cycle_offset: 1.0 / 3.0,
            ..Default::default()
        };
        let mut late = settings.apply(walk).unwrap();
        late.name = "WalkLate".into();
        clips.push(late);
        let clips = &clips[..];
        // Each way of timing the clips: one normalised time, each clip on its own clock (one at another time
        // scale), and foot-phase sync on markers (found from the clips' contacts for both).
        // In place, and kept with its travel accumulating over loops (the editor's transport): over two seconds,
        // more than one cycle.
        let cases = ["normalized", "independent", "markers"]
            .into_iter()
            .flat_map(|sync| [(sync, "in_place"), (sync, "keep")]);
        for (sync, root_motion) in cases {
            let space: crate::blend::BlendSpace = serde_json::from_value(serde_json::json!({
                "mode": "freeform_cartesian", "point": [0, 2.0], "root_motion": root_motion, "sync": sync,
                "nodes": [
                    {"clip": "Idle", "position": [0, 0]},
                    {"clip": "WalkForward", "position": [0, 1.4], "time_scale": 1.3},
                    {"clip": "WalkLate", "position": [0, 3]}]
            }))
            .unwrap();
            let machine: StateMachine = serde_json::from_value(serde_json::json!({
                "states": [{"name": "Move", "blend_space": space}], "entry": "Move"
            }))
            .unwrap();
            let off = LayerParams::off;
            let mut as_state = Evaluator::new(c, clips, SourceSpec::StateMachine(machine), off());
            let mut as_space = Evaluator::new(c, clips, SourceSpec::Blend(space), off());
            for ev in [&mut as_state, &mut as_space] {
                ev.source_mut().set_accumulate_loops(true);
            }
            if sync == "markers" {
                assert!(
                    as_space.source().has_sync_markers(),
                    "the walk and run have foot-down markers"
                );
            }
            for k in 0..=40 {
                let input = EvalInput {
                    clock: ClockStep::Continue(k as f32 * 0.05),
                    ..Default::default()
                };
                let a = as_state.evaluate(&input).local.local.clone();
                let b = as_space.evaluate(&input).local.local.clone();
                assert!(worst_angle(&a, &b) < 1e-3, "{sync} {root_motion}: step {k}");
                for (x, y) in a.iter().zip(&b) {
                    assert!(
                        (x.translation - y.translation).length() < 1e-5,
                        "{sync} {root_motion}: step {k}"
                    );
                }
            }
        }
    }

    /// A VRM Animation's look-at track plays wherever its clip plays: alone, as the one node of a blend space, as
    /// a clip state and as a blend state of a machine, the eyes turn (bone look-at) and the look expressions show
    /// (expression look-at) as the clip alone makes them.
    #[test]
    fn a_look_at_track_plays_in_blends_and_states() {
        use crate::core::vrm_look_at::{LookAtKind, RangeMap, VrmLookAt};
        let vrma =
            crate::import::load_file(&crate::test_support::asset("three-vrm_test.vrma")).unwrap();
        let mut clip = vrma.clips[0].clone();
        // The test file's track looks straight ahead throughout: it is given one that looks around.
        let times: Vec<f32> = (0..=8).map(|k| k as f32 * 0.3).collect();
        let turns = times
            .iter()
            .map(|&t| {
                glam::Quat::from_euler(
                    glam::EulerRot::YXZ,
                    (2.0 * t).sin() * 0.6,
                    (3.0 * t).cos() * 0.3,
                    0.0,
                )
            })
            .collect();
        clip.look_at =
            Some(crate::core::Keys::new(times, turns, crate::core::Interpolation::Linear).unwrap());
        let clips = std::slice::from_ref(&clip);
        let space: crate::blend::BlendSpace = serde_json::from_value(serde_json::json!({
            "mode": "1d", "point": [0, 0], "nodes": [{"clip": clip.name, "position": [0, 0]}]
        }))
        .unwrap();
        let machine = |state: serde_json::Value| -> StateMachine {
            serde_json::from_value(serde_json::json!({"states": [state], "entry": "Look"})).unwrap()
        };
        for kind in [LookAtKind::Bone, LookAtKind::Expression] {
            let mut model =
                crate::import::load_file(&crate::test_support::asset("vrm/secondary_test.vrm"))
                    .unwrap();
            let range = |scale| RangeMap {
                input_max_deg: 90.0,
                output_scale: scale,
            };
            let full = if kind == LookAtKind::Bone { 10.0 } else { 1.0 };
            model.character.vrm_look_at = Some(VrmLookAt {
                kind,
                horizontal_inner: range(full),
                horizontal_outer: range(full),
                vertical_down: range(full),
                vertical_up: range(full),
            });
            let c = &model.character;
            let sources = [
                SourceSpec::Clip(0),
                SourceSpec::Blend(space.clone()),
                SourceSpec::StateMachine(machine(
                    serde_json::json!({"name": "Look", "clip": clip.name}),
                )),
                SourceSpec::StateMachine(machine(
                    serde_json::json!({"name": "Look", "blend_space": space}),
                )),
            ];
            let mut evaluators: Vec<Evaluator> = sources
                .into_iter()
                .map(|s| Evaluator::new(c, clips, s, LayerParams::off()))
                .collect();
            let eyes: Vec<usize> = [
                crate::core::HumanBone::LeftEye,
                crate::core::HumanBone::RightEye,
            ]
            .iter()
            .filter_map(|&b| c.humanoid.joint(b))
            .collect();
            let mut moved = 0.0f64;
            for k in 1..=12 {
                let input = EvalInput {
                    clock: ClockStep::Continue(k as f32 * 0.2),
                    ..Default::default()
                };
                let alone = evaluators[0].evaluate(&input).clone();
                let alone_expressions = evaluators[0].layer_stage().expression_weights().to_vec();
                let rest = c.skeleton.rest();
                for &j in &eyes {
                    moved = moved.max(angle(alone.local.local[j].rotation, rest[j].rotation));
                }
                moved = moved.max(
                    alone_expressions
                        .iter()
                        .fold(0.0f32, |a, &b| a.max(b))
                        .into(),
                );
                for (i, ev) in evaluators.iter_mut().enumerate().skip(1) {
                    let out = ev.evaluate(&input);
                    for &j in &eyes {
                        let d = angle(out.local.local[j].rotation, alone.local.local[j].rotation);
                        assert!(
                            d < 1e-3,
                            "{kind:?}, source {i}, step {k}: an eye is {d}° off"
                        );
                    }
                    for (a, b) in ev
                        .layer_stage()
                        .expression_weights()
                        .iter()
                        .zip(&alone_expressions)
                    {
                        assert!(
                            (a - b).abs() < 1e-5,
                            "{kind:?}, source {i}, step {k}: {a} vs {b}"
                        );
                    }
                }
            }
            assert!(
                moved > 0.5 * f64::from(full).min(1.0),
                "{kind:?}: the track looks away ({moved})"
            );
        }
    }

    /// A script's event on a frame's time takes effect at that frame however the clock carries the time: driven
    /// by f32 grid times (`bake` steps `Continue(k / fps)`, `pose` takes `--time` as f32), the machine's script
    /// cursor changes state where the player stepped alone at the exact f64 times does (`graph::script::play`,
    /// the reference of "at the first update at or after its time"). Events at 1.9 s and 0.7 s sit on the 30 and
    /// 60 fps grids, and 1.9 and 0.7 as f32 fall below them.
    #[test]
    fn script_events_on_a_frame_take_effect_at_that_frame() {
        let (loaded, machine) = four_state_machine();
        let script = crate::graph::Script::parse(
            r#"[{"time": 0.7, "set": "n", "value": 1}, {"time": 1.9, "set": "n", "value": 2}]"#,
            "test",
        )
        .unwrap();
        assert!(f64::from(1.9f32) < 1.9 && f64::from(0.7f32) < 0.7);
        for fps in [30.0, 60.0] {
            let mut reference = Vec::new();
            let mut player = MachinePlayer::new(
                &machine,
                vec![
                    StateInfo {
                        length: 1.0,
                        looping: true
                    };
                    4
                ],
            );
            crate::graph::script::play(&mut player, &script, fps, 2.5, |_, p| {
                reference.push((p.current(), p.active().map(|a| a.to)));
            });
            let (c, clips) = (&loaded.character, &loaded.clips);
            let mut ev = Evaluator::new(
                c,
                clips,
                SourceSpec::StateMachine(machine.clone()),
                LayerParams::off(),
            );
            ev.source_mut()
                .set_script(Some(std::sync::Arc::new(script.clone())));
            for (k, t) in crate::graph::script::update_times(fps, 2.5).enumerate() {
                ev.evaluate(&EvalInput {
                    clock: ClockStep::Continue(t as f32),
                    ..Default::default()
                });
                let p = ev.source().machine().unwrap();
                // The state a transition heads to, from the frame it starts, is what the event decides.
                let heading = p.active().map_or(p.current(), |a| a.to);
                let (current, to) = reference[k];
                assert_eq!(
                    heading,
                    to.unwrap_or(current),
                    "{fps} fps, frame {k} ({t} s)"
                );
            }
            assert!(ev.source().script().unwrap().done());
        }
    }

    /// The machine of `scripts/compare-outputs` (Idle → Walk → Run on Quaternius' clips: Unity crossfades,
    /// inertialization, dead blending, a trigger from Any State) with every transition's model as given.
    fn compare_outputs_machine() -> StateMachine {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/compare-outputs/machine.json"
        );
        let preset: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        serde_json::from_value(preset["state_machine"].clone()).unwrap()
    }

    /// The pose of `ev` (every joint's local transform) and where its machine stands.
    fn shown(ev: &Evaluator) -> (Vec<Transform>, usize, Option<usize>) {
        let p = ev.source().machine().unwrap();
        (
            ev.output().local.local.clone(),
            p.current(),
            p.active().map(|a| a.transition),
        )
    }

    /// Asserts that two poses agree: every rotation within 1e-4°, every translation within 1e-6 m.
    fn assert_same_pose(a: &[Transform], b: &[Transform], what: &str) {
        assert!(worst_angle(a, b) < 1e-4, "{what}: {}°", worst_angle(a, b));
        for (x, y) in a.iter().zip(b) {
            let d = (x.translation - y.translation).length();
            assert!(d < 1e-6, "{what}: {d} m");
        }
    }

    /// A machine decides at the ticks of its simulation rate whatever its frames: under scripts whose events fall
    /// between ticks, the four-state machine (a blend state, interruptions of interruptions) and the
    /// compare-outputs machine (per-bone transitions, whose start is the pose of the tick before and its
    /// velocity) show the same pose and state at the times 24, 30, 60 and 144 fps share, and a seek under the
    /// script (a replay from the entry) lands there too.
    #[test]
    fn a_machine_shows_the_same_run_at_any_frame_rate() {
        let (four, four_machine) = four_state_machine();
        let four_script = r#"[{"time": 0.21, "set": "n", "value": 1}, {"time": 0.537, "set": "n", "value": 2},
            {"time": 0.6049, "set": "n", "value": 3}, {"time": 1.013, "set": "n", "value": 1}]"#;
        let quaternius = crate::import::load_file(&crate::test_support::quaternius()).unwrap();
        let locomotion_script = r#"[{"time": 0.31, "set": "speed", "value": 1.4},
            {"time": 1.013, "set": "speed", "value": 3.5}, {"time": 1.52, "set": "speed", "value": 2.0},
            {"time": 1.905, "trigger": "stop"}, {"time": 1.905, "set": "speed", "value": 0.0}]"#;
        let cases = [
            (&four, four_machine, four_script),
            (&quaternius, compare_outputs_machine(), locomotion_script),
        ];
        for (loaded, machine, script) in cases {
            let script = std::sync::Arc::new(crate::graph::Script::parse(script, "test").unwrap());
            let evaluator = || {
                let (c, clips) = (&loaded.character, &loaded.clips);
                let m = SourceSpec::StateMachine(machine.clone());
                let mut ev =
                    Evaluator::with_precision(c, clips, m, LayerParams::off(), Precision::Exact);
                ev.source_mut().set_script(Some(script.clone()));
                ev
            };
            // Frames at each rate, the pose kept at every sixth of a second (a frame of each rate).
            let runs: Vec<Vec<_>> = [60u32, 24, 30, 144]
                .iter()
                .map(|&fps| {
                    let mut ev = evaluator();
                    let mut kept = Vec::new();
                    for k in 0..=(fps * 5 / 2) {
                        ev.evaluate(&EvalInput {
                            clock: ClockStep::Continue(k as f32 / fps as f32),
                            ..Default::default()
                        });
                        if k % (fps / 6) == 0 {
                            kept.push(shown(&ev));
                        }
                    }
                    kept
                })
                .collect();
            let mut sought = evaluator();
            for (i, reference) in runs[0].iter().enumerate() {
                sought.seek_script(i as f32 / 6.0);
                sought.evaluate(&EvalInput::default());
                let others = runs[1..].iter().map(|r| &r[i]);
                for (j, other) in others.chain([&shown(&sought)]).enumerate() {
                    let what = format!("{} at {i}/6 s, run {j}", machine.entry);
                    assert_eq!((other.1, other.2), (reference.1, reference.2), "{what}");
                    assert_same_pose(&reference.0, &other.0, &what);
                }
            }
        }
    }

    /// At another simulation rate the same script's events take effect at that rate's ticks: an event at 0.51 s
    /// starts Idle → Walk at 0.5167 s (31 / 60) at 60 Hz and at 0.5333 s (16 / 30) at 30 Hz, whatever the frames.
    #[test]
    fn the_simulation_rate_sets_when_the_machine_decides() {
        let loaded = crate::import::load_file(&crate::test_support::quaternius()).unwrap();
        let script = crate::graph::Script::parse(
            r#"[{"time": 0.51, "set": "speed", "value": 1.4}]"#,
            "test",
        )
        .unwrap();
        let script = std::sync::Arc::new(script);
        for (rate, started) in [
            (60.0, 31.0 / 60.0),
            (30.0, 16.0 / 30.0),
            (240.0, 123.0 / 240.0),
        ] {
            let (c, clips) = (&loaded.character, &loaded.clips);
            let m = SourceSpec::StateMachine(compare_outputs_machine());
            let mut ev = Evaluator::new(c, clips, m, LayerParams::off());
            ev.set_sim_rate(rate);
            assert_eq!(ev.source().sim_rate(), rate);
            ev.source_mut().set_script(Some(script.clone()));
            for k in 0..=33 {
                ev.evaluate(&EvalInput {
                    clock: ClockStep::Continue(k as f32 / 60.0),
                    ..Default::default()
                });
            }
            let a = *ev
                .source()
                .machine()
                .unwrap()
                .active()
                .expect("Idle → Walk");
            let since = 0.55 - a.elapsed;
            assert!((since - started).abs() < 1e-6, "{rate} Hz: {since} s");
        }
    }
}
