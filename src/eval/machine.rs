//! The state machine as the Evaluator's source: each state's motion bound to the character (a clip, or a blend
//! space driven by two parameters), the player stepped with the clock, and the player's terms sampled and blended
//! through the BlendingJob. The pose frozen at an interruption is kept here.
//!
//! Inertialization and dead blending are selectable in the data and their curves are in `graph::inertial`, but
//! the Evaluator does not apply their per-bone offsets yet: such a transition plays as the player's terms say (the
//! destination whole for inertialization, a linear crossfade for dead blending).

use glam::DVec2;

use super::ClipSource;
use super::Precision;
use crate::blend::{BlendSampler, BlendSpace};
use crate::core::{Character, Clip, Skeleton, Transform};
use crate::graph::{MachinePlayer, Motion, StateInfo, StateMachine, Term};
use crate::runtime::{BlendingJob, JobError};

/// A state's motion, bound.
#[derive(Clone, Debug)]
enum StateMotion {
    /// A clip (None when the character has no clip of that name).
    Clip(Option<ClipSource>),
    /// A blend space, its sampler and compiled node clips, and the parameters (by index) giving its point.
    Blend {
        space: Box<BlendSpace>,
        sampler: Box<BlendSampler>,
        nodes: Vec<Option<ClipSource>>,
        point: Option<[usize; 2]>,
    },
}

/// The bound state machine.
#[derive(Clone, Debug)]
pub(super) struct MachineSource {
    player: MachinePlayer,
    states: Vec<StateMotion>,
    /// Clips the states name that the character lacks.
    missing: Vec<String>,
    terms: Vec<Term>,
    /// One pose per term (or per node of a blend state), back to back, and their weights.
    poses: Vec<Transform>,
    weights: Vec<f32>,
    /// A blend state's node poses while it is sampled.
    node_poses: Vec<Transform>,
    node_weights: Vec<f32>,
    /// The pose frozen at the last interruption.
    frozen: Vec<Transform>,
}

impl MachineSource {
    /// Binds `machine` (validated by the caller) to `character` and `clips`.
    pub(super) fn bind(
        machine: &StateMachine,
        character: &Character,
        clips: &[Clip],
        precision: Precision,
    ) -> Self {
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
                    StateMotion::Clip(
                        index.map(|i| ClipSource::new(clips, i, character, precision)),
                    )
                } else {
                    let space = s.blend_space.clone().unwrap_or_default();
                    let sampler = BlendSampler::bind(&space, clips, character);
                    missing.extend(sampler.missing().iter().map(|(_, name)| name.clone()));
                    let nodes = sampler
                        .node_clips()
                        .into_iter()
                        .map(|c| c.map(|i| ClipSource::new(clips, i, character, precision)))
                        .collect();
                    let point = s.point_parameters.as_ref().and_then(|[x, y]| {
                        Some([machine.parameter_index(x)?, machine.parameter_index(y)?])
                    });
                    StateMotion::Blend {
                        space: Box::new(space),
                        sampler: Box::new(sampler),
                        nodes,
                        point,
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
        let mut source = MachineSource {
            player: MachinePlayer::new(machine, infos),
            states,
            missing,
            terms: Vec::new(),
            poses: Vec::new(),
            weights: Vec::new(),
            node_poses: Vec::new(),
            node_weights: Vec::new(),
            frozen: character.skeleton.rest().to_vec(),
        };
        source.poses.reserve(2 * n);
        source.refresh_infos();
        source
    }

    /// The player (its parameters are set through it).
    pub(super) fn player(&self) -> &MachinePlayer {
        &self.player
    }

    /// The player, to set parameters.
    pub(super) fn player_mut(&mut self) -> &mut MachinePlayer {
        &mut self.player
    }

    /// Clips the states name that the character lacks.
    pub(super) fn missing(&self) -> &[String] {
        &self.missing
    }

    /// The current state's cycle in seconds at speed 1.
    pub(super) fn current_length(&self) -> f32 {
        self.length_of(self.player.current()) as f32
    }

    /// Back to the entry state's start (the parameters keep their values).
    pub(super) fn restart(&mut self) {
        let values: Vec<(String, f64)> = self
            .player
            .machine()
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), self.player.value(i)))
            .collect();
        self.player.reset();
        for (name, v) in values {
            self.player
                .set(&name, crate::graph::ParameterValue::Number(v));
        }
        self.refresh_infos();
    }

    /// Steps the machine by `dt` seconds (the blend states' points follow their parameters first).
    pub(super) fn update(&mut self, dt: f64) {
        self.refresh_infos();
        self.player.update(dt);
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
            StateMotion::Blend { space, sampler, .. } => {
                let weights = match self.point_of(state) {
                    Some(p) => space.weights_at(DVec2::from(p)),
                    None => space.weights(),
                };
                f64::from(sampler.cycle_length(&weights))
            }
        }
    }

    fn refresh_infos(&mut self) {
        for s in 0..self.states.len() {
            let looping = match &self.states[s] {
                StateMotion::Clip(Some(c)) => c.looping,
                _ => true,
            };
            let info = StateInfo {
                length: self.length_of(s),
                looping,
            };
            self.player.set_state_info(s, info);
        }
    }

    /// Samples the player's pose into `out` (sized for the skeleton), first freezing the pose an interruption
    /// left.
    pub(super) fn sample(
        &mut self,
        skeleton: &Skeleton,
        out: &mut [Transform],
    ) -> Result<(), JobError> {
        let mut result = Ok(());
        if let Some(terms) = self.player.take_freeze() {
            let mut frozen = std::mem::take(&mut self.frozen);
            result = self.blend_terms(&terms, skeleton, &mut frozen);
            self.frozen = frozen;
        }
        let mut terms = std::mem::take(&mut self.terms);
        self.player.terms_into(&mut terms);
        result = result.and(self.blend_terms(&terms, skeleton, out));
        self.terms = terms;
        result
    }

    /// Blends `terms` into `out`.
    fn blend_terms(
        &mut self,
        terms: &[Term],
        skeleton: &Skeleton,
        out: &mut [Transform],
    ) -> Result<(), JobError> {
        let n = skeleton.len();
        self.poses.resize(terms.len() * n, Transform::IDENTITY);
        self.weights.clear();
        let mut result = Ok(());
        for (k, term) in terms.iter().enumerate() {
            let mut slot = std::mem::take(&mut self.poses);
            let pose = &mut slot[k * n..(k + 1) * n];
            result = result.and(match term.motion {
                Motion::Frozen => {
                    pose.copy_from_slice(&self.frozen);
                    Ok(())
                }
                Motion::State { state, time } => self.sample_state(state, time, skeleton, pose),
            });
            self.poses = slot;
            self.weights.push(term.weight as f32);
        }
        result.and(blend_into(
            &self.poses[..terms.len() * n],
            &self.weights,
            skeleton,
            out,
        ))
    }

    /// Samples state `state` at normalised time `time` into `out`: a clip at that fraction of its length (wrapped
    /// when it loops, held at its end when not), a blend space's nodes at that phase of each, blended at its point.
    fn sample_state(
        &mut self,
        state: usize,
        time: f64,
        skeleton: &Skeleton,
        out: &mut [Transform],
    ) -> Result<(), JobError> {
        let point = self.point_of(state);
        match &mut self.states[state] {
            StateMotion::Clip(None) => {
                out.copy_from_slice(skeleton.rest());
                Ok(())
            }
            StateMotion::Clip(Some(c)) => {
                let t = c.time_after(time * f64::from(c.animation.duration()));
                c.sample(t as f32, out)
            }
            StateMotion::Blend { space, nodes, .. } => {
                let weights = match point {
                    Some(p) => space.weights_at(DVec2::from(p)),
                    None => space.weights(),
                };
                let phase = time.rem_euclid(1.0);
                let n = skeleton.len();
                self.node_poses.clear();
                self.node_weights.clear();
                let mut result = Ok(());
                for (node, w) in weights.iter().enumerate() {
                    let Some(c) = nodes.get_mut(node).and_then(|c| c.as_mut()) else {
                        continue;
                    };
                    if *w <= 1e-5 {
                        continue;
                    }
                    let start = self.node_poses.len();
                    self.node_poses.resize(start + n, Transform::IDENTITY);
                    let t = phase * f64::from(c.animation.duration());
                    result = result.and(c.sample(t as f32, &mut self.node_poses[start..]));
                    self.node_weights.push(*w as f32);
                }
                if self.node_weights.is_empty() {
                    out.copy_from_slice(skeleton.rest());
                    return result;
                }
                result.and(blend_into(
                    &self.node_poses,
                    &self.node_weights,
                    skeleton,
                    out,
                ))
            }
        }
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
