//! Parameter scripts: a JSON list of `{"time", "set", "value"}` and `{"time", "trigger"}`, played
//! deterministically. A change at time t takes effect at the first update at or after t.
//!
//! The machine's simulation clock ([`SimClock`]): a state machine decides (applies a script's due events, tests
//! and starts transitions) only at ticks k / rate seconds from its start, the first at 0 with dt 0, the rate
//! [`DEFAULT_SIM_RATE`] unless set within [`SIM_RATE_RANGE`]. Whatever rate the frames come at, the ticks and so
//! the decisions are the same; a frame between two ticks shows the last tick's state moved on in time.

use serde::{Deserialize, Serialize};

use super::machine::ParameterValue;
use super::player::MachinePlayer;

/// The most events a script may hold.
pub const MAX_SCRIPT_EVENTS: usize = 100_000;

/// One change of a parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScriptEvent {
    /// Sets a parameter to a value.
    Set {
        /// Seconds from the start.
        time: f64,
        /// The parameter's name.
        set: String,
        /// Its new value.
        value: ParameterValue,
    },
    /// Sets a trigger.
    Trigger {
        /// Seconds from the start.
        time: f64,
        /// The trigger's name.
        trigger: String,
    },
}

impl ScriptEvent {
    /// When it happens.
    pub fn time(&self) -> f64 {
        match self {
            ScriptEvent::Set { time, .. } | ScriptEvent::Trigger { time, .. } => *time,
        }
    }

    /// The parameter it changes.
    pub fn parameter(&self) -> &str {
        match self {
            ScriptEvent::Set { set, .. } => set,
            ScriptEvent::Trigger { trigger, .. } => trigger,
        }
    }
}

/// A script, its events in time order (ties keep their order in the file).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    events: Vec<ScriptEvent>,
}

/// Times within this of an update's count as at it (a frame grid's k/fps rounds).
const TIME_SLACK: f64 = 1e-9;

/// The rate a state machine simulates at unless told otherwise, Hz.
pub const DEFAULT_SIM_RATE: f64 = 60.0;

/// The simulation rates a state machine may step at, Hz.
pub const SIM_RATE_RANGE: std::ops::RangeInclusive<f64> = 10.0..=1000.0;

/// The most ticks a machine runs one by one to reach a time (ten million, the frames `pose` allows; at the
/// highest rate, more than the longest bake): past that, a jump takes those before the last ones in one update,
/// so an absurd time cannot hang a caller.
pub const MAX_TICKS_AT_ONCE: u64 = 10_000_000;

/// The rounding allowed when a time is compared with a tick's or an event's: [`TIME_SLACK`] or that of an f32
/// clock at `t`, whichever is larger (`bake` and the editor carry frame times as f32).
fn slack(t: f64) -> f64 {
    TIME_SLACK.max(t.abs() * f64::from(f32::EPSILON))
}

/// A state machine's simulation clock (see the module documentation): which ticks are due by a time and when
/// each falls. Tick k is at exactly k / rate seconds; it is due by a time within [`slack`] of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimClock {
    rate: f64,
    /// The index of the next tick to run.
    next: u64,
}

impl Default for SimClock {
    fn default() -> Self {
        SimClock::new(DEFAULT_SIM_RATE)
    }
}

impl SimClock {
    /// A clock at `rate` Hz (clamped into [`SIM_RATE_RANGE`]; not a number: the default) before its first tick.
    pub fn new(rate: f64) -> Self {
        let rate = if rate.is_nan() {
            DEFAULT_SIM_RATE
        } else {
            rate.clamp(*SIM_RATE_RANGE.start(), *SIM_RATE_RANGE.end())
        };
        SimClock { rate, next: 0 }
    }

    /// Ticks a second.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Back before the first tick.
    pub fn restart(&mut self) {
        self.next = 0;
    }

    /// Seconds of the last tick run (0 before the first).
    pub fn last_time(&self) -> f64 {
        self.next.saturating_sub(1) as f64 / self.rate
    }

    /// Seconds of the next tick to run.
    pub fn next_time(&self) -> f64 {
        self.next as f64 / self.rate
    }

    /// How many ticks not yet run are due by `t` seconds.
    pub fn due(&self, t: f64) -> u64 {
        if !(t.is_finite() && t + slack(t) >= 0.0) {
            return 0;
        }
        // The index of the last tick due: k / rate <= t + slack.
        let last = ((t + slack(t)) * self.rate).floor();
        if last >= u64::MAX as f64 {
            return u64::MAX - self.next;
        }
        (last as u64 + 1).saturating_sub(self.next)
    }

    /// Runs the `n`-th tick from now (at least the next), skipping those before it: its time, and the seconds
    /// since the last tick run (0 for the first tick).
    pub fn tick_over(&mut self, n: u64) -> (f64, f64) {
        let before = self.last_time();
        self.next = self.next.saturating_add(n.max(1));
        let now = self.last_time();
        (now, now - before)
    }
}

/// A script being played: how many of its events have been applied. The one cursor over a script (the state
/// machine source owns one; `play` below steps a player alone with one). An event is due at the first update at
/// or after its time, its time compared within [`TIME_SLACK`] or the rounding of an f32 clock at `t`, whichever
/// is larger.
#[derive(Clone, Debug)]
pub struct ScriptCursor {
    script: std::sync::Arc<Script>,
    next: usize,
}

impl ScriptCursor {
    /// At the script's start.
    pub fn new(script: std::sync::Arc<Script>) -> Self {
        ScriptCursor { script, next: 0 }
    }

    /// The script played.
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// How many events have been applied.
    pub fn applied(&self) -> usize {
        self.next
    }

    /// Whether every event has been applied.
    pub fn done(&self) -> bool {
        self.next >= self.script.events.len()
    }

    /// Back to the script's start.
    pub fn rewind(&mut self) {
        self.next = 0;
    }

    /// Applies to `player` the events not yet applied that are due by time `t`.
    pub fn apply_due(&mut self, t: f64, player: &mut MachinePlayer) {
        let slack = slack(t);
        while let Some(e) = self.script.events.get(self.next) {
            if e.time() > t + slack {
                break;
            }
            match e {
                ScriptEvent::Set { set, value, .. } => player.set(set, *value),
                ScriptEvent::Trigger { trigger, .. } => {
                    player.set(trigger, ParameterValue::Bool(true))
                }
            };
            self.next += 1;
        }
    }
}

impl Script {
    /// What it holds, per parameter in the order first met: "speed (21 values), jump (1 trigger)" (a drag of a
    /// slider records a value per frame, which reads as one gesture); "nothing" when empty.
    pub fn summary(&self) -> String {
        let mut counts: Vec<(&str, bool, usize)> = Vec::new();
        for e in self.events() {
            let (name, trigger) = match e {
                ScriptEvent::Set { set, .. } => (set.as_str(), false),
                ScriptEvent::Trigger { trigger, .. } => (trigger.as_str(), true),
            };
            match counts.iter_mut().find(|c| c.0 == name && c.1 == trigger) {
                Some(c) => c.2 += 1,
                None => counts.push((name, trigger, 1)),
            }
        }
        if counts.is_empty() {
            return "nothing".into();
        }
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        counts
            .iter()
            .map(|&(name, trigger, n)| {
                let what = if trigger {
                    plural(n, "trigger", "triggers")
                } else {
                    plural(n, "value", "values")
                };
                format!("{name} ({what})")
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Parses a script, checking each event's time and size; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Script, String> {
        let mut events: Vec<ScriptEvent> = serde_json::from_str(text)
            .map_err(|e| format!("{source}: not a parameter script: {e}"))?;
        if events.len() > MAX_SCRIPT_EVENTS {
            return Err(format!(
                "{source}: {} events, over the {MAX_SCRIPT_EVENTS} a script may hold",
                events.len()
            ));
        }
        if let Some((i, e)) = events
            .iter()
            .enumerate()
            .find(|(_, e)| !(e.time().is_finite() && e.time() >= 0.0))
        {
            return Err(format!(
                "{source}: event {i} has time {}, not a time from 0 on",
                e.time()
            ));
        }
        events.sort_by(|a, b| a.time().total_cmp(&b.time()));
        Ok(Script { events })
    }

    /// A script of `events` (a recording): sorted by time, ties keeping their order; events whose time is not
    /// a number from 0 on are dropped, and past [`MAX_SCRIPT_EVENTS`] the latest.
    pub fn from_events(mut events: Vec<ScriptEvent>) -> Script {
        events.retain(|e| e.time().is_finite() && e.time() >= 0.0);
        events.sort_by(|a, b| a.time().total_cmp(&b.time()));
        events.truncate(MAX_SCRIPT_EVENTS);
        Script { events }
    }

    /// The script as [`Script::parse`] reads it: a JSON list, one event per line.
    pub fn to_json(&self) -> String {
        let lines: Vec<String> = self
            .events
            .iter()
            .map(|e| serde_json::to_string(e).unwrap_or_default())
            .collect();
        format!("[\n  {}\n]\n", lines.join(",\n  "))
    }

    /// The events, in time order.
    pub fn events(&self) -> &[ScriptEvent] {
        &self.events
    }

    /// The first parameter the script names that `player`'s machine lacks.
    pub fn unknown_parameter(&self, player: &MachinePlayer) -> Option<&str> {
        self.events
            .iter()
            .map(ScriptEvent::parameter)
            .find(|p| player.machine().parameter_index(p).is_none())
    }
}

/// The times a script is played at, `fps` updates a second up to `until` seconds: 0, then k/fps for every whole
/// frame, then `until` itself when it falls between two frames (what `pose --script --time` evaluates).
pub fn update_times(fps: f64, until: f64) -> impl Iterator<Item = f64> {
    let frames = (until * fps + TIME_SLACK).floor().max(0.0) as u64;
    let last = (frames as f64 / fps < until).then_some(until);
    (0..=frames).map(move |k| k as f64 / fps).chain(last)
}

/// Plays `script` on `player` alone from its start at the [`update_times`] of `fps` up to `until`, each update
/// after the events due by its time (the first, at 0, with dt 0). Calls `frame(k, player)` after the k-th. At
/// `fps` equal to a machine's simulation rate these are its ticks (up to a last update at `until`).
pub fn play(
    player: &mut MachinePlayer,
    script: &Script,
    fps: f64,
    until: f64,
    mut frame: impl FnMut(usize, &MachinePlayer),
) {
    let mut cursor = ScriptCursor::new(std::sync::Arc::new(script.clone()));
    let mut before = 0.0;
    for (k, t) in update_times(fps, until).enumerate() {
        cursor.apply_due(t, player);
        player.update(t - before);
        before = t;
        frame(k, player);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A drag's values and a trigger read as what they are, in the singular for one.
    #[test]
    fn a_recording_is_summed_up_per_parameter() {
        let set = |time: f64, value: f64| ScriptEvent::Set {
            time,
            set: "speed".into(),
            value: super::super::ParameterValue::Number(value),
        };
        let jump = ScriptEvent::Trigger {
            time: 0.5,
            trigger: "jump".into(),
        };
        let drag = Script::from_events(vec![set(0.1, 0.2), set(0.2, 0.4), jump, set(0.3, 0.6)]);
        assert_eq!(drag.summary(), "speed (3 values), jump (1 trigger)");
        assert_eq!(
            Script::from_events(vec![set(0.1, 1.0)]).summary(),
            "speed (1 value)"
        );
        assert_eq!(Script::from_events(Vec::new()).summary(), "nothing");
    }
    use crate::graph::machine::StateMachine;
    use crate::graph::player::StateInfo;

    fn player() -> MachinePlayer {
        let m: StateMachine = serde_json::from_str(
            r#"{"parameters": [{"name": "speed", "type": "float"}, {"name": "jump", "type": "trigger"}],
                "states": [{"name": "Idle", "clip": "i"}, {"name": "Walk", "clip": "w"}, {"name": "Jump", "clip": "j"}],
                "entry": "Idle",
                "transitions": [
                  {"from": "Idle", "to": "Walk", "has_exit_time": false, "duration": 0.2,
                   "conditions": [{"parameter": "speed", "mode": "greater", "threshold": 0.5}]},
                  {"from": "any", "to": "Jump", "has_exit_time": false, "duration": 0.1,
                   "conditions": [{"parameter": "jump", "mode": "if"}]}]}"#,
        )
        .unwrap();
        m.validate().unwrap();
        let info = StateInfo {
            length: 1.0,
            looping: true,
        };
        MachinePlayer::new(&m, vec![info; 3])
    }

    #[test]
    fn a_change_takes_effect_at_the_first_update_at_or_after_its_time() {
        let script = Script::parse(
            r#"[{"time": 0.5, "set": "speed", "value": 1.0}, {"time": 0.21, "trigger": "jump"}]"#,
            "s.json",
        )
        .unwrap();
        assert_eq!(script.events()[0].parameter(), "jump", "sorted by time");
        let mut started = Vec::new();
        let mut p = player();
        play(&mut p, &script, 10.0, 1.0, |k, p| {
            for e in p.events() {
                if let crate::graph::player::MachineEvent::Started { transition, .. } = e {
                    started.push((k, *transition));
                }
            }
        });
        // The trigger at 0.21 s is seen at frame 3 (0.3 s); the speed at 0.5 s exactly at frame 5, but by then
        // the machine is in Jump, which has no transition to Walk.
        assert_eq!(started, vec![(3, 1)]);
        assert_eq!(p.value_of("speed"), Some(1.0));
    }

    /// Ticks fall at exactly k / rate, the first at 0 with dt 0; a tick is due by a frame on it however an f32
    /// clock rounds the frame's time (1.9 as f32 is below 1.9), and not before; a jump runs one update over the
    /// ticks it skips.
    #[test]
    fn ticks_fall_at_whole_multiples_of_the_period_and_are_due_by_frames_on_them() {
        let mut clock = SimClock::new(60.0);
        assert_eq!(clock.due(-0.5), 0);
        assert_eq!(clock.due(0.0), 1);
        assert_eq!(clock.tick_over(1), (0.0, 0.0));
        assert_eq!(clock.due(0.0), 0);
        assert!(f64::from(1.9f32) < 1.9);
        assert_eq!(clock.due(f64::from(1.9f32)), 114, "ticks 1 to 114 (1.9 s)");
        assert_eq!(clock.due(1.9 - 1e-4), 113);
        let mut times = Vec::new();
        for _ in 0..114 {
            times.push(clock.tick_over(1));
        }
        assert_eq!(times[113].0, 114.0 / 60.0);
        assert!(times.iter().all(|(_, dt)| (dt - 1.0 / 60.0).abs() < 1e-12));
        assert_eq!(clock.last_time(), 1.9);
        assert_eq!(clock.next_time(), 115.0 / 60.0);
        let (t, dt) = clock.tick_over(6);
        assert_eq!(t, 2.0);
        assert!((dt - 0.1).abs() < 1e-12);
        clock.restart();
        assert_eq!((clock.last_time(), clock.due(0.05)), (0.0, 4));
        assert_eq!(SimClock::new(5.0).rate(), 10.0);
        assert_eq!(SimClock::new(f64::NAN).rate(), DEFAULT_SIM_RATE);
        assert!(SimClock::new(60.0).due(f64::INFINITY) == 0 && SimClock::new(60.0).due(1e300) > 0);
    }

    #[test]
    fn updates_fall_on_the_frame_grid_and_on_the_time_asked() {
        let times: Vec<f64> = update_times(10.0, 0.35).collect();
        assert_eq!(times, [0.0, 0.1, 0.2, 0.3, 0.35]);
        let on_grid: Vec<f64> = update_times(10.0, 0.3).collect();
        assert_eq!(on_grid, [0.0, 0.1, 0.2, 0.3]);
    }

    #[test]
    fn a_recording_written_out_reads_back_the_same() {
        let recorded = Script::from_events(vec![
            ScriptEvent::Trigger {
                time: 1.5,
                trigger: "jump".into(),
            },
            ScriptEvent::Set {
                time: 0.25,
                set: "speed".into(),
                value: ParameterValue::Number(0.8),
            },
            ScriptEvent::Set {
                time: f64::NAN,
                set: "speed".into(),
                value: ParameterValue::Bool(true),
            },
        ]);
        assert_eq!(recorded.events().len(), 2);
        assert_eq!(recorded.events()[0].time(), 0.25);
        let text = recorded.to_json();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value[1]["trigger"], "jump");
        assert_eq!(value[0]["value"], 0.8);
        assert_eq!(Script::parse(&text, "r.json").unwrap(), recorded);
    }

    #[test]
    fn bad_scripts_are_refused_with_their_name() {
        let e = Script::parse(r#"[{"time": -1, "trigger": "jump"}]"#, "s.json").unwrap_err();
        assert!(e.contains("s.json: event 0 has time -1"), "{e}");
        let e = Script::parse(r#"{"time": 1}"#, "s.json").unwrap_err();
        assert!(e.starts_with("s.json: not a parameter script"), "{e}");
        let s = Script::parse(r#"[{"time": 0, "set": "nope", "value": true}]"#, "s.json").unwrap();
        assert_eq!(s.unknown_parameter(&player()), Some("nope"));
    }
}
