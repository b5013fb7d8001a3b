//! The source as the Evaluator plays it: the compiled source, how its root motion plays, and what it hands the
//! stages after it (the pose, the morph and expression weights with a VRM Animation look-at track applied, and the
//! treadmill). It answers what plays (the clip, the blend space, the state machine and its script) and samples at
//! the clock's times; the clock itself is the Evaluator's.

use glam::Vec3;

use crate::blend::{BlendSampler, BlendSpace, RootMotion};
use crate::core::{Character, Clip, ClipBinding, Skeleton, Transform};
use crate::runtime::JobError;

use super::compiled::{ClipCache, Precision};
use super::look::VrmLook;
use super::nodes::RootPlay;
use super::{SourceOut, SourceTime};
use crate::eval::clock::{SourceKind, Timing};
use crate::eval::io::SourceSpec;

/// The compiled source.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    Rest,
    Clip(super::compiled::CompiledClip),
    Blend(Box<super::blend::BlendSource>),
    Machine(Box<super::machine::MachineSource>),
}

/// What the Evaluator plays before its layers (see the module documentation).
#[derive(Clone, Debug)]
pub struct SourcePlayer {
    /// How its clips are compiled.
    pub(crate) precision: Precision,
    pub(crate) source: Source,
    root_motion_joint: Option<usize>,
    clip_root_motion: RootMotion,
    accumulate_loops: bool,
    /// The meshes' default morph weights, which each sample starts from.
    morph_defaults: Vec<Vec<f32>>,
    /// The character's VRM look-at, what it drives, for a clip's look-at track.
    vrm_look: VrmLook,
    /// The travel an in-place clip took out of the pose (model space): the springs move with it, as the
    /// character does in the world.
    pub(crate) treadmill: Vec3,
    /// The rate a state machine simulates at, Hz (kept for the machines bound later).
    sim_rate: f64,
}

/// Where a sample goes: the local pose, the meshes' morph weights and the expressions' weights.
pub(crate) struct SampleOut<'a> {
    pub(crate) pose: &'a mut [Transform],
    pub(crate) morph: &'a mut [Vec<f32>],
    pub(crate) expressions: &'a mut [f32],
}

impl SourcePlayer {
    /// Plays the rest pose of `character` until a source is bound.
    pub(crate) fn new(character: &Character, precision: Precision) -> Self {
        SourcePlayer {
            precision,
            source: Source::Rest,
            root_motion_joint: crate::blend::sampler::root_motion_joint(character),
            clip_root_motion: RootMotion::Keep,
            accumulate_loops: false,
            morph_defaults: crate::core::morph::default_weights(character),
            vrm_look: VrmLook::bind(character),
            treadmill: Vec3::ZERO,
            sim_rate: crate::graph::script::DEFAULT_SIM_RATE,
        }
    }

    /// Binds `spec` (compiling its clips through `cache`).
    pub(crate) fn bind(
        &mut self,
        character: &Character,
        clips: &[Clip],
        spec: SourceSpec,
        cache: &mut ClipCache,
    ) {
        self.source = match spec {
            SourceSpec::Rest => Source::Rest,
            SourceSpec::Clip(i) if i < clips.len() => Source::Clip(cache.get(i)),
            SourceSpec::Clip(_) => Source::Rest,
            // A machine without a state has nothing to play (the editor's and the CLI's checks say so).
            SourceSpec::StateMachine(m) if m.states.is_empty() => Source::Rest,
            SourceSpec::Blend(space) => Source::Blend(Box::new(super::blend::BlendSource::bind(
                space, character, clips, cache,
            ))),
            SourceSpec::StateMachine(m) => {
                let mut machine = super::machine::MachineSource::bind(&m, character, cache);
                machine.set_sim_rate(self.sim_rate);
                Source::Machine(Box::new(machine))
            }
        };
    }

    /// Finds the feet of the clips it plays (a clip, a blend space's nodes) once per compiled clip: the walk of a
    /// clip authored in place, the treadmill foot lock holds feet on and the springs feel.
    pub(crate) fn find_feet(&mut self, character: &Character, clips: &[Clip]) {
        let find = |c: &super::compiled::CompiledClip| {
            if let Some(clip) = clips.get(c.index) {
                c.feet(character, clip);
            }
        };
        match &self.source {
            Source::Clip(c) => find(c),
            Source::Blend(b) => b.bound.nodes.iter().flatten().for_each(find),
            Source::Rest | Source::Machine(_) => {}
        }
    }

    /// Replaces the blend space's axes or modes, its nodes unchanged (finding markers when it now syncs on
    /// them); the weights are computed again at the next refresh.
    pub(crate) fn edit_blend_space(
        &mut self,
        character: &Character,
        clips: &[Clip],
        new: &BlendSpace,
    ) {
        if let Source::Blend(blend) = &mut self.source {
            blend.bound.space = new.clone();
            blend.bound.find_markers(character, clips);
            blend.invalidate_weights();
        }
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

    /// Whether the blend space's sampler has foot-down markers (found when a space synced on them is bound).
    pub fn has_sync_markers(&self) -> bool {
        matches!(&self.source, Source::Blend(b) if b.bound.sampler.has_markers())
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

    /// The state machine's player when the source is one (its current state, transition and parameters).
    pub fn machine(&self) -> Option<&crate::graph::MachinePlayer> {
        match &self.source {
            Source::Machine(m) => Some(m.player()),
            _ => None,
        }
    }

    /// The player of the state machine's layer `layer`, when the source is a machine that has it.
    pub fn machine_layer(&self, layer: usize) -> Option<&crate::graph::MachinePlayer> {
        match &self.source {
            Source::Machine(m) => m.layer_player(layer),
            _ => None,
        }
    }

    /// The state machine's player, to set its parameters before an evaluation (its state is the source's to
    /// step: an update or a restart through it would be undone at the next tick).
    pub fn machine_mut(&mut self) -> Option<&mut crate::graph::MachinePlayer> {
        match &mut self.source {
            Source::Machine(m) => Some(m.player_mut()),
            _ => None,
        }
    }

    /// Weighs the state machine's layer `layer` by `weight` as it plays, without a restart; false when the source
    /// is not a machine with that layer.
    pub fn set_machine_layer_weight(&mut self, layer: usize, weight: f64) -> bool {
        match &mut self.source {
            Source::Machine(m) => m.set_layer_weight(layer, weight),
            _ => false,
        }
    }

    /// Clips the state machine's states name that the character lacks (they play its rest pose).
    pub fn missing_machine_clips(&self) -> &[String] {
        match &self.source {
            Source::Machine(m) => m.missing(),
            _ => &[],
        }
    }

    /// Plays `script` on the state machine from its start as the machine's time goes on: each tick applies the
    /// events due by its time first (None stops it). The machine's parameters are not reset: a new machine starts
    /// at their defaults, and one that has run no tick past 0 runs its tick at 0 again with the script's events
    /// at 0. No effect on other sources.
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

    /// Length of what plays: the clip's duration, the blend cycle at the current weights, 0 for the rest pose.
    pub fn duration(&self) -> f32 {
        match &self.source {
            Source::Rest => 0.0,
            Source::Clip(c) => c.animation.duration(),
            Source::Blend(b) => b.cycle_length(),
            Source::Machine(m) => m.current_length(),
        }
    }

    /// What the clock needs to know of the source.
    pub(crate) fn timing(&self) -> Timing {
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

    /// The source's normalised phase in [0, 1] at `at` (what synced clip layers follow).
    pub(crate) fn phase(&self, at: SourceTime) -> f64 {
        match &self.source {
            Source::Blend(_) => at.phase,
            _ => {
                let d = f64::from(self.duration());
                if d > 0.0 { at.time / d } else { 0.0 }
            }
        }
    }

    /// Moves the blend space's sample point (clamped to its axes).
    pub(crate) fn set_blend_point(&mut self, point: [f64; 2]) {
        if let Source::Blend(b) = &mut self.source {
            b.bound.space.set_point(point);
        }
    }

    /// Brings the blend weights to the space's point, copying them to `weights` when they changed (clearing it
    /// for another source).
    pub(crate) fn refresh_weights(&mut self, weights: &mut Vec<f64>) {
        let Source::Blend(b) = &mut self.source else {
            weights.clear();
            return;
        };
        if b.refresh_weights() {
            weights.clone_from(&b.weights);
        }
    }

    /// The rate a state machine simulates at, Hz: its decisions fall on ticks 1 / rate seconds apart whatever
    /// the rate of the frames (see [`crate::graph::script::SimClock`]).
    pub fn sim_rate(&self) -> f64 {
        self.sim_rate
    }

    /// Simulates state machines at `rate` Hz (clamped into [`crate::graph::script::SIM_RATE_RANGE`]): the
    /// machine playing goes back to its entry state's start (`Evaluator::set_sim_rate` replays it to the time).
    pub(crate) fn set_sim_rate(&mut self, rate: f64) {
        let clock = crate::graph::script::SimClock::new(rate);
        self.sim_rate = clock.rate();
        if let Source::Machine(m) = &mut self.source {
            m.set_sim_rate(self.sim_rate);
        }
    }

    /// The time of the state machine's next tick, the update that sees a parameter set now (None for another
    /// source): what a recording stamps the change with, so that a replay applies it at the same tick.
    pub fn machine_next_tick(&self) -> Option<f64> {
        match &self.source {
            Source::Machine(m) => Some(m.sim_clock().next_time()),
            _ => None,
        }
    }

    /// Takes a state machine to `to` seconds since its start (nothing for another source; see
    /// [`super::machine::MachineSource::advance`]).
    pub(crate) fn advance_machine(&mut self, to: f64, skeleton: &Skeleton) {
        if let Source::Machine(m) = &mut self.source {
            m.advance(to, skeleton, self.accumulate_loops);
        }
    }

    /// Replays the machine from its entry to `time` (see [`super::machine::MachineSource::replay`]), under its
    /// script or with its parameters as they are; the number of script events applied (0 for another source).
    pub(crate) fn replay_machine(
        &mut self,
        time: f32,
        under_script: bool,
        skeleton: &Skeleton,
        out: SampleOut,
    ) -> usize {
        let Source::Machine(m) = &mut self.source else {
            return 0;
        };
        let (mut look, mut treadmill) = (None, Vec3::ZERO);
        let out = SourceOut {
            pose: out.pose,
            morph: out.morph,
            expressions: out.expressions,
            look: &mut look,
            treadmill: &mut treadmill,
        };
        m.replay(
            f64::from(time),
            under_script,
            skeleton,
            self.accumulate_loops,
            out,
        )
    }

    /// Samples the source (and blends it) at `at` into `out`, the morph weights from their defaults and the
    /// expressions from zero, then plays a look-at track it reports.
    pub(crate) fn sample(
        &mut self,
        at: SourceTime,
        skeleton: &Skeleton,
        out: SampleOut,
    ) -> Result<(), JobError> {
        for (m, d) in out.morph.iter_mut().zip(&self.morph_defaults) {
            m.copy_from_slice(d);
        }
        out.expressions.fill(0.0);
        self.treadmill = Vec3::ZERO;
        let mut look = None;
        let pose = out.pose;
        let expressions = out.expressions;
        let to = SourceOut {
            pose: &mut *pose,
            morph: out.morph,
            expressions: &mut *expressions,
            look: &mut look,
            treadmill: &mut self.treadmill,
        };
        let root = RootPlay {
            joint: self.root_motion_joint,
            accumulate_loops: self.accumulate_loops,
        };
        let result = match &mut self.source {
            Source::Rest => {
                to.pose.copy_from_slice(skeleton.rest());
                Ok(())
            }
            Source::Clip(c) => super::clip::sample(
                c,
                at,
                self.clip_root_motion,
                self.accumulate_loops,
                self.root_motion_joint,
                skeleton,
                to,
            ),
            Source::Blend(b) => b.sample(at, root, skeleton, to),
            Source::Machine(m) => m.sample(skeleton, self.accumulate_loops, to),
        };
        if let Some(rotation) = look {
            self.vrm_look.apply(rotation, expressions, pose);
        }
        result
    }
}
