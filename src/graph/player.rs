//! The state machine's player: parameter values, the current state and its normalised time, and the running
//! transition, stepped by `dt` under Unity's transition rules (with the Godot model's one difference). It knows
//! no poses: [`MachinePlayer::terms`] says which motions to sample at which normalised times and weights, and an
//! interruption hands the caller the terms of the pose to freeze ([`MachinePlayer::take_freeze`]). Its caller
//! updates it at the ticks of a simulation rate (`script::SimClock`) and between them coasts it on from the last
//! tick's state ([`MachinePlayer::coast`]), which it puts back before the next update ([`TickState`]).
//!
//! One update, as Unity's Animator (the rules as written in Unity's manual and its 2016 blog post on transition
//! interruptions, "Wait, I've changed my mind!"):
//! 1. the current state (unless it is a frozen pose) and a running transition's destination advance by
//!    dt × speed / length in normalised time, and the transition's elapsed time by dt;
//! 2. a transition whose elapsed time reached its duration completes: its destination becomes the current state;
//! 3. with no transition running, Any State's transitions and then the current state's, each in its list's order,
//!    are tested, and the first that holds starts. While one runs, Any State's are tested, then those its
//!    interruption source names: the source state's (with Ordered Interruption only those listed before the
//!    running one) and/or the destination's. One that holds interrupts: the blended pose is frozen as it is and
//!    fades, static, into the new destination.
//!
//! A transition holds when all its conditions hold and, with Has Exit Time, the state's normalised time crossed
//! the exit time during this update: below 1 on every loop of a looping state (e + k for whole k), else once. It
//! starts at the crossing, not at the end of the update: the time past it counts as elapsed in the transition and
//! in the destination (which starts at its offset). Triggers are consumed by the transition they fire. Exit
//! re-enters the entry state. A transition with neither exit time nor conditions never fires (Unity ignores it).

use super::machine::{
    ANY_STATE, EXIT, InterruptionSource, ParameterKind, StateMachine, TransitionModel,
};

/// What the player needs to know of each state's motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateInfo {
    /// Seconds of one cycle at speed 1 (a clip's length, a blend space's cycle at its point).
    pub length: f64,
    /// Whether it loops (its clip's Loop Time): normalised time still grows past 1 either way, as Unity's.
    pub looping: bool,
}

/// One motion of the blended pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// A state at a normalised time (whole loops included).
    State {
        /// The state's index.
        state: usize,
        /// Its normalised time.
        time: f64,
    },
    /// The pose frozen at the last interruption.
    Frozen,
}

/// A motion and its weight in the blended pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Term {
    /// What to sample.
    pub motion: Motion,
    /// Its weight (the terms' weights sum to 1).
    pub weight: f64,
}

/// A running transition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActiveTransition {
    /// Its index among the machine's transitions.
    pub transition: usize,
    /// The destination state.
    pub to: usize,
    /// The destination's normalised time.
    pub to_time: f64,
    /// Seconds since it started.
    pub elapsed: f64,
    /// Its length in seconds (a normalised duration resolved against the source state when it started).
    pub duration: f64,
    /// Whether its source is the pose frozen at an interruption rather than the current state.
    pub frozen_source: bool,
}

impl ActiveTransition {
    /// Progress in [0, 1].
    pub fn progress(&self) -> f64 {
        if self.duration > 0.0 {
            (self.elapsed / self.duration).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

/// What an update moves besides the parameters: the current state, its normalised time and the running
/// transition. A caller that shows the machine between two updates keeps it after an update
/// ([`MachinePlayer::tick_state`]), moves the player on to the time shown ([`MachinePlayer::coast`]) and puts it
/// back before the next update ([`MachinePlayer::set_tick_state`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TickState {
    current: usize,
    time: f64,
    active: Option<ActiveTransition>,
    entered: bool,
}

/// Something that happened in an update, for the editor's log and the CLI.
#[derive(Clone, Debug, PartialEq)]
pub enum MachineEvent {
    /// A transition started (`interrupted`: it interrupted a running one).
    Started {
        /// The transition's index.
        transition: usize,
        /// Whether it interrupted another.
        interrupted: bool,
    },
    /// A transition completed: its destination is now the current state.
    Completed {
        /// The transition's index.
        transition: usize,
    },
}

/// The state machine's player (see the module documentation).
#[derive(Clone, Debug)]
pub struct MachinePlayer {
    machine: StateMachine,
    infos: Vec<StateInfo>,
    values: Vec<f64>,
    entry: usize,
    current: usize,
    time: f64,
    active: Option<ActiveTransition>,
    /// Per state, its transitions' indices in order; then Any State's.
    from_state: Vec<Vec<usize>>,
    from_any: Vec<usize>,
    /// The resolved destination of each transition (Exit → the entry state).
    destination: Vec<usize>,
    freeze: Option<Vec<Term>>,
    events: Vec<MachineEvent>,
    /// The Entry transitions resolved: the state each enters.
    entry_to: Vec<usize>,
    /// Whether the first update since the start chose the state to enter (Entry transitions decide there, on
    /// the parameters as that update finds them).
    entered: bool,
}

impl MachinePlayer {
    /// A player of `machine` (which must validate and have a state) at its entry state's start, its parameters
    /// at their defaults. `infos` gives each state's length and looping, in the machine's order.
    pub fn new(machine: &StateMachine, infos: Vec<StateInfo>) -> Self {
        let entry = machine.state_index(&machine.entry).unwrap_or(0);
        let mut from_state = vec![Vec::new(); machine.states.len()];
        let mut from_any = Vec::new();
        let mut destination = Vec::with_capacity(machine.transitions.len());
        for (i, t) in machine.transitions.iter().enumerate() {
            if t.from == ANY_STATE {
                from_any.push(i);
            } else if let Some(s) = machine.state_index(&t.from) {
                from_state[s].push(i);
            }
            destination.push(if t.to == EXIT {
                entry
            } else {
                machine.state_index(&t.to).unwrap_or(entry)
            });
        }
        let values = machine
            .parameters
            .iter()
            .map(|p| p.default.for_kind(p.kind))
            .collect();
        MachinePlayer {
            machine: machine.clone(),
            infos,
            values,
            entry,
            current: entry,
            time: 0.0,
            active: None,
            from_state,
            from_any,
            destination,
            freeze: None,
            events: Vec::new(),
            entry_to: machine
                .entry_transitions
                .iter()
                .map(|t| machine.state_index(&t.to).unwrap_or(entry))
                .collect(),
            entered: false,
        }
    }

    /// Whether a condition holds on the parameters' values now.
    fn holds(&self, c: &super::machine::Condition) -> bool {
        let v = self
            .machine
            .parameter_index(&c.parameter)
            .map_or(0.0, |p| self.values[p]);
        c.mode.holds(v, c.threshold)
    }

    /// The state entering the machine leads to now: the first Entry transition whose conditions hold (its
    /// triggers consumed), else the entry state.
    fn enter(&mut self) -> usize {
        let found = self
            .machine
            .entry_transitions
            .iter()
            .position(|t| t.conditions.iter().all(|c| self.holds(c)));
        let Some(k) = found else {
            return self.entry;
        };
        let parameters = &self.machine.parameters;
        for c in &self.machine.entry_transitions[k].conditions {
            if let Some(p) = parameters.iter().position(|p| p.name == c.parameter)
                && parameters[p].kind == ParameterKind::Trigger
            {
                self.values[p] = 0.0;
            }
        }
        self.entry_to[k]
    }

    /// The machine played.
    pub fn machine(&self) -> &StateMachine {
        &self.machine
    }

    /// Takes a new weight for the machine's layer `layer` (clamped into [0, 1]; the layers play apart from this
    /// player, which keeps the machine they are part of).
    pub fn set_layer_weight(&mut self, layer: usize, weight: f64) {
        if let Some(l) = self.machine.layers.get_mut(layer) {
            l.weight = weight.clamp(0.0, 1.0);
        }
    }

    /// Updates a state's length (a blend-space state's cycle changes with its point).
    pub fn set_state_info(&mut self, state: usize, info: StateInfo) {
        if let Some(slot) = self.infos.get_mut(state) {
            *slot = info;
        }
    }

    /// A state's length (seconds of its motion at speed 1) and looping, as the player counts them.
    pub fn state_info(&self, state: usize) -> Option<StateInfo> {
        self.infos.get(state).copied()
    }

    /// The current state's index.
    pub fn current(&self) -> usize {
        self.current
    }

    /// The current state's normalised time.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The running transition.
    pub fn active(&self) -> Option<&ActiveTransition> {
        self.active.as_ref()
    }

    /// A parameter's value by index (bools and triggers 0 or 1).
    pub fn value(&self, parameter: usize) -> f64 {
        self.values.get(parameter).copied().unwrap_or(0.0)
    }

    /// A parameter's value by name.
    pub fn value_of(&self, name: &str) -> Option<f64> {
        self.machine.parameter_index(name).map(|i| self.values[i])
    }

    /// Sets a parameter by name (converted to its kind; a trigger set true stays set until a transition consumes
    /// it). False when the machine has no such parameter.
    pub fn set(&mut self, name: &str, value: super::machine::ParameterValue) -> bool {
        let Some(i) = self.machine.parameter_index(name) else {
            return false;
        };
        self.values[i] = value.for_kind(self.machine.parameters[i].kind);
        true
    }

    /// Every parameter's value, in the machine's order (bools and triggers 0 or 1).
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Takes the values of another player of the same parameters (a layer deciding on the machine's
    /// parameters); a list of another length is ignored.
    pub fn set_values(&mut self, values: &[f64]) {
        if values.len() == self.values.len() {
            self.values.copy_from_slice(values);
        }
    }

    /// Resets each trigger that was set in `found` and that `layer` (a player over the same parameters, which
    /// started its update from `found`) consumed: a trigger fires once, whichever layer takes it.
    pub fn reset_triggers_taken_by(&mut self, found: &[f64], layer: &MachinePlayer) {
        for (i, p) in self.machine.parameters.iter().enumerate() {
            if p.kind == ParameterKind::Trigger
                && found.get(i).is_some_and(|&v| v != 0.0)
                && layer.values.get(i).is_some_and(|&v| v == 0.0)
            {
                self.values[i] = 0.0;
            }
        }
    }

    /// Every parameter back to its default (a script replays from them).
    pub fn reset_parameters(&mut self) {
        for (v, p) in self.values.iter_mut().zip(&self.machine.parameters) {
            *v = p.default.for_kind(p.kind);
        }
    }

    /// Back to the entry state's start, the parameters keeping their values (a seek replays from there).
    pub fn restart(&mut self) {
        self.current = self.entry;
        self.time = 0.0;
        self.active = None;
        self.freeze = None;
        self.events.clear();
        self.entered = false;
    }

    /// What happened in the last update.
    pub fn events(&self) -> &[MachineEvent] {
        &self.events
    }

    /// The terms of the pose to freeze that the last update's interruption left, once.
    pub fn take_freeze(&mut self) -> Option<Vec<Term>> {
        self.freeze.take()
    }

    /// The blended pose's terms now.
    pub fn terms(&self) -> Vec<Term> {
        let mut out = Vec::with_capacity(2);
        self.terms_into(&mut out);
        out
    }

    /// [`MachinePlayer::terms`] into a list the caller keeps.
    pub fn terms_into(&self, out: &mut Vec<Term>) {
        out.clear();
        let current = Motion::State {
            state: self.current,
            time: self.time,
        };
        let Some(a) = &self.active else {
            out.push(Term {
                motion: current,
                weight: 1.0,
            });
            return;
        };
        let t = &self.machine.transitions[a.transition];
        let w = match t.model {
            // The destination plays whole; the offset from the source is the caller's (per bone).
            TransitionModel::Inertialization => 1.0,
            TransitionModel::Godot => xfade(&t.xfade_curve, a.progress()),
            TransitionModel::Unity | TransitionModel::DeadBlending => a.progress(),
        };
        let source = if a.frozen_source {
            Motion::Frozen
        } else {
            current
        };
        if w < 1.0 {
            out.push(Term {
                motion: source,
                weight: 1.0 - w,
            });
        }
        out.push(Term {
            motion: Motion::State {
                state: a.to,
                time: a.to_time,
            },
            weight: w,
        });
    }

    /// The state the last update left (see [`TickState`]).
    pub fn tick_state(&self) -> TickState {
        TickState {
            current: self.current,
            time: self.time,
            active: self.active,
            entered: self.entered,
        }
    }

    /// Back to a state an update left (the parameters keep their values).
    pub fn set_tick_state(&mut self, state: TickState) {
        self.current = state.current;
        self.time = state.time;
        self.active = state.active;
        self.entered = state.entered;
    }

    /// Moves the current state (unless it is a frozen pose) and a running transition on by `dt` seconds as an
    /// update's first step does, but decides nothing: no transition completes or starts (a transition past its
    /// duration shows its destination alone), no trigger is consumed. The pose between two updates.
    pub fn coast(&mut self, dt: f64) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        if !self.active.is_some_and(|a| a.frozen_source) {
            self.time += dt * self.rate(self.current);
        }
        if let Some(mut a) = self.active {
            a.elapsed += dt;
            a.to_time += dt * self.rate(a.to);
            self.active = Some(a);
        }
    }

    /// Where a state's motion is sampled at its normalised time `time`: `time` plus its cycle offset (its
    /// parameter's value where it has one, clamped as the offset is), in cycles; or its time parameter's value
    /// (clamped likewise), where it has one, whatever its clock.
    pub fn motion_time(&self, state: usize, time: f64) -> f64 {
        let Some(s) = self.machine.states.get(state) else {
            return time;
        };
        let span = super::machine::MAX_TRANSITION_SPAN;
        if let Some(p) = s.time_parameter.as_deref() {
            return self.value_of(p).unwrap_or(0.0).clamp(-span, span);
        }
        let offset = match s.cycle_offset_parameter.as_deref() {
            Some(p) => self.value_of(p).unwrap_or(0.0).clamp(-span, span),
            None => s.cycle_offset,
        };
        time + offset
    }

    /// Normalised time per second of a state: its speed, times its speed parameter's value where it has one
    /// (within ±[`MAX_STATE_SPEED`](super::machine::MAX_STATE_SPEED)), over its length.
    fn rate(&self, state: usize) -> f64 {
        let length = self.infos.get(state).map_or(0.0, |i| i.length);
        let s = &self.machine.states[state];
        let multiplier = s
            .speed_parameter
            .as_deref()
            .and_then(|p| self.value_of(p))
            .unwrap_or(1.0);
        let max = super::machine::MAX_STATE_SPEED;
        let speed = (s.speed * multiplier).clamp(-max, max);
        if length > 0.0 { speed / length } else { 0.0 }
    }

    fn looping(&self, state: usize) -> bool {
        self.infos.get(state).is_some_and(|i| i.looping)
    }

    /// Steps the machine by `dt` seconds (see the module documentation).
    pub fn update(&mut self, dt: f64) {
        self.events.clear();
        if !self.entered {
            self.entered = true;
            if self.active.is_none() && self.time == 0.0 {
                self.current = self.enter();
            }
        }
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let src_prev = self.time;
        let frozen = self.active.is_some_and(|a| a.frozen_source);
        if !frozen {
            self.time += dt * self.rate(self.current);
        }
        let mut src_window = (src_prev, self.time);
        let mut dst_window = None;
        if let Some(mut a) = self.active {
            a.elapsed += dt;
            let before = a.to_time;
            a.to_time += dt * self.rate(a.to);
            dst_window = Some((before, a.to_time));
            self.active = Some(a);
            if a.elapsed >= a.duration {
                self.complete(a);
                src_window = (before, a.to_time);
                dst_window = None;
            }
        }
        match self.active {
            None => {
                let candidates = self.from_any.iter().chain(&self.from_state[self.current]);
                if let Some((t, over)) = self.first_holding(candidates.copied(), src_window, None) {
                    self.start(t, over, false);
                }
            }
            Some(a) => {
                let running = &self.machine.transitions[a.transition];
                if running.model == TransitionModel::Godot {
                    return;
                }
                // Any State's first, then the interruption source's lists (no allocation: slices of the lists).
                let list = &self.from_state[self.current];
                let cut = if running.ordered_interruption && running.from != ANY_STATE {
                    list.iter()
                        .position(|&t| t == a.transition)
                        .unwrap_or(list.len())
                } else {
                    list.len()
                };
                let src = (&list[..cut], src_window);
                let dst = (
                    &self.from_state[a.to][..],
                    dst_window.unwrap_or((a.to_time, a.to_time)),
                );
                let none: (&[usize], (f64, f64)) = (&[], src_window);
                let [first, second] = match running.interruption_source {
                    InterruptionSource::None => [none, none],
                    InterruptionSource::Current => [src, none],
                    InterruptionSource::Next => [dst, none],
                    InterruptionSource::CurrentThenNext => [src, dst],
                    InterruptionSource::NextThenCurrent => [dst, src],
                };
                let any = (&self.from_any[..], src_window);
                let found = [any, first, second].into_iter().find_map(|(list, window)| {
                    let others = list.iter().copied().filter(|&t| t != a.transition);
                    self.first_holding(others, window, Some(a.to))
                });
                if let Some((t, over)) = found {
                    let mut frozen_terms = Vec::with_capacity(2);
                    self.terms_into(&mut frozen_terms);
                    self.freeze = Some(frozen_terms);
                    self.start(t, over, true);
                }
            }
        }
    }

    /// The first of `candidates` that holds over the normalised-time `window` of the state it leaves, and the
    /// seconds since its exit time was crossed. `playing_to` is a running transition's destination (Can
    /// Transition To Self counts it as playing).
    fn first_holding(
        &self,
        candidates: impl Iterator<Item = usize>,
        window: (f64, f64),
        playing_to: Option<usize>,
    ) -> Option<(usize, f64)> {
        for i in candidates {
            let t = &self.machine.transitions[i];
            let to = self.destination[i];
            if t.from == ANY_STATE
                && !t.can_transition_to_self
                && (to == self.current || playing_to == Some(to))
            {
                continue;
            }
            if !t.has_exit_time && t.conditions.is_empty() {
                continue;
            }
            let conditions = t.conditions.iter().all(|c| self.holds(c));
            if !conditions {
                continue;
            }
            if !t.has_exit_time {
                return Some((i, 0.0));
            }
            let from = if t.from == ANY_STATE {
                self.current
            } else {
                self.machine.state_index(&t.from).unwrap_or(self.current)
            };
            let (a, b) = window;
            if b <= a {
                continue;
            }
            let e = t.exit_time;
            let crossing = if e < 1.0 && self.looping(from) {
                e + ((a - e).floor() + 1.0).max(0.0)
            } else {
                e
            };
            if a < crossing && crossing <= b {
                let rate = self.rate(from);
                let over = if rate > 0.0 {
                    (b - crossing) / rate
                } else {
                    0.0
                };
                return Some((i, over));
            }
        }
        None
    }

    /// Starts transition `i`, `over` seconds after the moment it held; `interrupting` a running one freezes the
    /// source.
    fn start(&mut self, i: usize, over: f64, interrupting: bool) {
        let to = if self.machine.transitions[i].to == EXIT {
            self.enter()
        } else {
            self.destination[i]
        };
        let t = &self.machine.transitions[i];
        for c in &t.conditions {
            if let Some(p) = self.machine.parameter_index(&c.parameter)
                && self.machine.parameters[p].kind == ParameterKind::Trigger
            {
                self.values[p] = 0.0;
            }
        }
        let source_seconds = {
            let rate = self.rate(self.current).abs();
            if rate > 0.0 { 1.0 / rate } else { 0.0 }
        };
        let mut duration = if t.fixed_duration {
            t.duration
        } else {
            t.duration * source_seconds
        };
        if interrupting
            && t.model == TransitionModel::Inertialization
            && let Some(a) = &self.active
        {
            duration = (duration - (a.duration - a.elapsed).max(0.0)).max(0.0);
        }
        let a = ActiveTransition {
            transition: i,
            to,
            to_time: t.offset + over * self.rate(to),
            elapsed: over,
            duration,
            frozen_source: interrupting,
        };
        self.events.push(MachineEvent::Started {
            transition: i,
            interrupted: interrupting,
        });
        self.active = Some(a);
        if a.elapsed >= a.duration {
            self.complete(a);
        }
    }

    fn complete(&mut self, a: ActiveTransition) {
        self.current = a.to;
        self.time = a.to_time;
        self.active = None;
        self.events.push(MachineEvent::Completed {
            transition: a.transition,
        });
    }

    /// The entry state's index.
    pub fn entry(&self) -> usize {
        self.entry
    }
}

/// Godot's xfade curve at progress `x`: linear between the points (clamped to their ends), `x` itself when empty.
pub fn xfade(curve: &[[f64; 2]], x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    let (Some(first), Some(last)) = (curve.first(), curve.last()) else {
        return x;
    };
    if x <= first[0] {
        return first[1].clamp(0.0, 1.0);
    }
    if x >= last[0] {
        return last[1].clamp(0.0, 1.0);
    }
    let k = curve.windows(2).position(|w| x <= w[1][0]).unwrap_or(0);
    let ([x0, y0], [x1, y1]) = (curve[k], curve[k + 1]);
    (y0 + (y1 - y0) * (x - x0) / (x1 - x0)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests;
