//! The state machine in the editor: edits (one undo step each), playing it, its parameters and triggers, a
//! transition's preview for the timeline's scrub, and recording and replaying parameter scripts.

use std::path::Path;

use super::EditorState;
use crate::eval::SourceSpec;
use crate::graph::edit::{clip_state, free_state_name, preview_machine};
use crate::graph::{MachineEdit, MachinePlayer, ParameterValue, Script, ScriptEvent, StateMachine};

impl EditorState {
    /// The state machine being edited (the tuning's).
    pub fn machine(&self) -> Option<&StateMachine> {
        self.doc.tuning.state_machine.as_ref()
    }

    /// The player when the evaluator plays the machine (not a transition's preview).
    pub fn machine_player(&self) -> Option<&MachinePlayer> {
        self.session
            .eval
            .source()
            .machine()
            .filter(|_| self.session.machine.preview.is_none())
    }

    /// The player of the machine's layer `layer` while the machine plays (not a transition's preview).
    pub fn machine_layer_player(&self, layer: usize) -> Option<&MachinePlayer> {
        self.machine_player()?;
        self.session.eval.source().machine_layer(layer)
    }

    /// The transition whose preview plays now.
    pub fn machine_preview(&self) -> Option<usize> {
        self.session
            .machine
            .preview
            .filter(|_| self.session.eval.source().machine().is_some())
    }

    /// The player of what plays now, the machine or a transition's preview.
    pub fn any_machine_player(&self) -> Option<&MachinePlayer> {
        self.session.eval.source().machine()
    }

    /// True while parameter changes are recorded.
    pub fn recording(&self) -> bool {
        self.session.machine.recording.is_some()
    }

    /// The script last recorded or opened.
    pub fn script(&self) -> Option<&Script> {
        self.session.machine.script.as_ref()
    }

    /// True while the script replays.
    pub fn replaying(&self) -> bool {
        self.session.machine.replaying && self.machine_player().is_some()
    }

    /// True once a replayed script has made its last change and the machine plays on under its parameters.
    pub fn script_replayed(&self) -> bool {
        self.session.machine.replayed
            && !self.session.machine.replaying
            && self.machine_player().is_some()
            && replayed_script(&self.session.machine).is_some()
    }

    /// The seconds one loop of a state takes at its speed (None when its motion is unknown): from the player
    /// when the machine plays, else from its clip (a blend-space state from its space at its point).
    pub fn state_seconds(&self, state: usize) -> Option<f64> {
        let m = self.machine()?;
        let s = m.states.get(state)?;
        let same = |p: &MachinePlayer| p.machine().states.get(state).is_some_and(|o| o == s);
        let length = match self.any_machine_player().filter(|p| same(p)) {
            Some(p) => p.state_info(state).map(|i| i.length)?,
            None => match (&s.clip, &s.blend_space) {
                (Some(clip), _) => {
                    let c = self.doc.clips.iter().find(|c| &c.name == clip)?;
                    f64::from(c.duration)
                }
                (None, Some(space)) => {
                    let sampler = crate::blend::BlendSampler::bind(
                        space,
                        &self.doc.clips,
                        &self.doc.model.character,
                    );
                    f64::from(sampler.cycle_length(&space.weights()))
                }
                (None, None) => return None,
            },
        };
        // Times the speed multiplier's value now (its default while the machine does not play).
        let multiplier = s.speed_parameter.as_deref().map_or(Some(1.0), |p| {
            match self.any_machine_player() {
                Some(player) => player.value_of(p),
                None => m
                    .parameters
                    .iter()
                    .find(|q| q.name == p)
                    .map(|q| q.default.for_kind(q.kind)),
            }
        })?;
        let speed = (s.speed * multiplier).abs();
        (length > 0.0 && speed > 0.0).then(|| length / speed)
    }

    /// Binds `key` (egui's name for it; None unbinds) to fire trigger `name`; one key fires one trigger.
    pub(super) fn set_trigger_key(&mut self, name: String, key: Option<String>) {
        let keys = &mut self.session.machine.trigger_keys;
        match key {
            Some(k) => {
                keys.retain(|_, v| *v != k);
                keys.insert(name, k);
            }
            None => {
                keys.remove(&name);
            }
        }
    }

    pub(super) fn new_machine(&mut self) {
        if self.machine().is_some() {
            return;
        }
        let clip = self
            .clip()
            .filter(|_| !self.blending())
            .or((!self.doc.clips.is_empty()).then_some(0))
            .map(|i| self.doc.clips[i].name.clone());
        let mut m = StateMachine::default();
        let state = match clip {
            Some(clip) => clip_state(&free_state_name(&m, &clip), &clip, [0.0, 0.0]),
            None => {
                let mut s = clip_state("Blend", "", [0.0, 0.0]);
                s.clip = None;
                s.blend_space = Some(self.doc.tuning.blend.clone());
                s
            }
        };
        if let Err(e) = MachineEdit::AddState(Box::new(state)).apply(&mut m) {
            self.session.report(format!("State machine: {e}"), true);
            return;
        }
        let before = self.doc.tuning.clone();
        self.doc.tuning.state_machine = Some(m);
        self.history.record(&before, &self.doc.tuning);
        self.doc.revision += 1;
        self.session.report(
            "New state machine: right-click the graph to add states, drag from a state's dot to connect".into(),
            false,
        );
    }

    pub(super) fn edit_machine(&mut self, edit: MachineEdit) {
        let Some(m) = &self.doc.tuning.state_machine else {
            return;
        };
        let mut edited = m.clone();
        if let Err(e) = edit.apply(&mut edited) {
            self.session.report(format!("State machine: {e}"), true);
            return;
        }
        if Some(&edited) == self.doc.tuning.state_machine.as_ref() {
            return;
        }
        self.history.before_edit(&self.doc.tuning);
        self.doc.tuning.state_machine = Some(edited);
        self.doc.revision += 1;
        self.machine_changed();
    }

    /// After an edit, undo or redo that changed the machine: a machine playing plays the new one from its entry
    /// with the parameter values it had; a preview shows the edited transition at the same time.
    pub(super) fn machine_changed(&mut self) {
        // Undo and redo of other tuning land here too: what plays is left alone when its machine is the same.
        let playing = self
            .session
            .eval
            .source()
            .machine()
            .map(MachinePlayer::machine);
        let wanted = match self.machine_preview() {
            Some(k) => self.machine().and_then(|m| preview_machine(m, k)),
            None => self.machine().cloned(),
        };
        if playing.is_none() || playing == wanted.as_ref() {
            return;
        }
        // Only layer weights changed (the States tab's weight slider): they take effect as the machine plays on.
        if let (Some(now), Some(new)) = (playing, &wanted)
            && now.layers.len() == new.layers.len()
        {
            let mut same = new.clone();
            for (l, w) in same.layers.iter_mut().zip(&now.layers) {
                l.weight = w.weight;
            }
            if same == *now {
                let weights: Vec<f64> = new.layers.iter().map(|l| l.weight).collect();
                let source = self.session.eval.source_mut();
                for (k, w) in weights.into_iter().enumerate() {
                    source.set_machine_layer_weight(k, w);
                }
                return;
            }
        }
        if let Some(k) = self.machine_preview() {
            let time = self.session.eval.time();
            self.session.machine.preview = None;
            self.preview(k, time);
            return;
        }
        let Some(old) = self.machine_player() else {
            return;
        };
        let values: Vec<(String, f64)> = old
            .machine()
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), old.value(i)))
            .collect();
        let playing = self.session.eval.clock().is_playing();
        if !self.play_machine() {
            return;
        }
        if let Some(p) = self.session.eval.source_mut().machine_mut() {
            for (name, v) in values {
                p.set(&name, ParameterValue::Number(v));
            }
        }
        if !playing {
            self.session.eval.clock_mut().pause();
        }
    }

    /// Plays the machine from its entry; false (with the reason in the status bar) when it cannot.
    pub(super) fn play_machine(&mut self) -> bool {
        self.session.machine.preview = None;
        self.session.machine.replaying = false;
        self.session.machine.replayed = false;
        let Some(m) = self.machine().cloned() else {
            self.session
                .report("No state machine: make one in the States tab".into(), true);
            return false;
        };
        if let Err(e) = m.validate() {
            self.session
                .report(format!("State machine cannot play: {e}"), true);
            return false;
        }
        if m.states.is_empty() {
            self.session
                .report("State machine cannot play: it has no state".into(), true);
            return false;
        }
        self.clock_jumped = true;
        let character = &self.doc.model.character;
        let (clips, m) = crate::offline::mirror::machine_clips(character, &self.doc.clips, &m);
        self.session
            .eval
            .set_source(character, &clips, SourceSpec::StateMachine(m));
        self.session.eval.play();
        let missing = self.session.eval.source().missing_machine_clips();
        if missing.is_empty() {
            self.session
                .report("Playing the state machine".into(), false);
        } else {
            let text = format!(
                "Playing the state machine; the character has no clip {} (those states show the rest pose)",
                missing.join(", ")
            );
            self.session.report(text, true);
        }
        self.restart_compare();
        true
    }

    pub(super) fn set_parameter(&mut self, name: &str, value: ParameterValue, trigger: bool) {
        // Stamped with the time of the machine's next tick, the update that sees the change: a script's change
        // takes effect at the first tick at or after its time, so the replay applies it at that same tick.
        let time = self
            .session
            .eval
            .source()
            .machine_next_tick()
            .unwrap_or(0.0);
        let Some(player) = self.session.eval.source_mut().machine_mut() else {
            self.session.report(
                "The state machine is not playing: press Play in the States tab".into(),
                true,
            );
            return;
        };
        if !player.set(name, value) {
            self.session
                .report(format!("The state machine has no parameter '{name}'"), true);
            return;
        }
        // Set by hand: the parameters are no longer the script's (a seek keeps them as they are).
        self.session.machine.replayed = false;
        self.compare_set(name, value);
        if let Some(events) = &mut self.session.machine.recording {
            events.push(if trigger {
                ScriptEvent::Trigger {
                    time,
                    trigger: name.to_string(),
                }
            } else {
                ScriptEvent::Set {
                    time,
                    set: name.to_string(),
                    value,
                }
            });
        }
    }

    pub(super) fn preview(&mut self, transition: usize, time: f32) {
        if self.machine_preview() != Some(transition) {
            let Some(preview) = self.machine().and_then(|m| preview_machine(m, transition)) else {
                self.session
                    .report(format!("No transition {transition} to preview"), true);
                return;
            };
            if let Err(e) = preview.validate() {
                self.session
                    .report(format!("The transition cannot be previewed: {e}"), true);
                return;
            }
            self.session.machine.replaying = false;
            let character = &self.doc.model.character;
            let (clips, preview) =
                crate::offline::mirror::machine_clips(character, &self.doc.clips, &preview);
            self.session
                .eval
                .set_source(character, &clips, SourceSpec::StateMachine(preview));
            self.session.machine.preview = Some(transition);
        }
        self.clock_jumped = true;
        self.session.eval.clock_mut().pause();
        self.session.eval.seek(time.max(0.0));
    }

    pub(super) fn record(&mut self, on: bool) {
        if on {
            if self.play_machine() {
                self.session.machine.recording = Some(Vec::new());
                self.session.report(
                    "Recording: the parameters you change and the triggers you fire are kept with their times"
                        .into(),
                    false,
                );
            }
            return;
        }
        if let Some(events) = self.session.machine.recording.take() {
            let script = Script::from_events(events);
            let text = format!(
                "Recorded {} over {:.2} s: Replay plays it again, Save script writes it",
                script.summary(),
                self.session.eval.time()
            );
            self.session.machine.script = Some(script);
            self.session.report(text, false);
        }
    }

    pub(super) fn replay(&mut self) {
        let Some(script) = self.session.machine.script.clone() else {
            self.session
                .report("No script: record one or open one first".into(), true);
            return;
        };
        self.session.machine.recording = None;
        if !self.play_machine() {
            return;
        }
        if let Some(name) = self
            .session
            .eval
            .source()
            .machine()
            .and_then(|p| script.unknown_parameter(p))
        {
            let text = format!("The script sets '{name}', which the state machine does not have");
            self.session.report(text, true);
        }
        let shared = std::sync::Arc::new(script.clone());
        self.session
            .eval
            .source_mut()
            .set_script(Some(shared.clone()));
        self.compare_set_script(shared);
        self.session.machine.replaying = true;
        self.session.machine.replayed = true;
        self.session
            .report(format!("Replaying {}", script.summary()), false);
    }

    /// A seek of the timeline. While the parameters are a replayed script's (during its replay and after it,
    /// until one is set by hand), the machine is replayed under it to `time` (its parameters from their
    /// defaults, as `pose --script` plays it) and the replay goes on from there; otherwise a plain seek (a
    /// machine replays with its parameters as they are).
    pub(super) fn seek_to(&mut self, time: f32) {
        match replayed_script(&self.session.machine) {
            Some(script) => {
                let applied = self.session.eval.seek_script(time);
                self.session.machine.replaying = applied < script.events().len();
            }
            None => self.session.eval.seek(time),
        }
    }

    /// After an evaluation: the end of a replay (its last change applied by the machine) noted.
    pub(super) fn note_replay_progress(&mut self) {
        if !self.session.machine.replaying {
            return;
        }
        if self.session.machine.preview.is_some() {
            self.session.machine.replaying = false;
            return;
        }
        // The States tab says so on its status row: the status bar keeps what it shows (an export's result).
        if self.session.eval.source().script().is_none_or(|c| c.done()) {
            self.session.machine.replaying = false;
        }
    }

    pub(super) fn open_script(&mut self, path: &Path) {
        let read = crate::preset::read_text(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Script::parse(&text, &path.display().to_string()));
        match read {
            Ok(script) => {
                let text = format!(
                    "Opened script {} ({}): Replay plays it",
                    path.display(),
                    script.summary()
                );
                self.session.machine.script = Some(script);
                self.session.remember(path);
                self.session.report(text, false);
            }
            Err(e) => self.session.report(e, true),
        }
    }

    pub(super) fn save_script(&mut self, path: &Path, overwrite: bool) {
        let Some(script) = &self.session.machine.script else {
            self.session
                .report("No script to save: record one first".into(), true);
            return;
        };
        match crate::io::fsutil::write_atomic(path, script.to_json().as_bytes(), overwrite) {
            Ok(()) => self
                .session
                .report(format!("Saved script {}", path.display()), false),
            Err(e) => self.session.report(e.to_string(), true),
        }
    }
}

/// The script whose replay set the machine's parameters, while they are still its (not while a transition
/// previews): a seek replays it.
pub(super) fn replayed_script(m: &crate::app::state::session::MachineSession) -> Option<&Script> {
    m.script
        .as_ref()
        .filter(|_| m.replayed && m.preview.is_none())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    use crate::app::command::{Command, Transport};
    use crate::graph::edit::clip_state;
    use crate::graph::{Condition, ConditionMode, Parameter, ParameterKind, Transition};

    /// One frame: the commands, then `dt` seconds of playback, the interaction over.
    pub(in crate::app::editor) fn frame(
        s: &mut EditorState,
        commands: impl IntoIterator<Item = Command>,
        dt: f32,
    ) {
        for c in commands {
            s.apply(c);
        }
        s.update(dt, false);
    }

    fn edit(s: &mut EditorState, e: MachineEdit) {
        frame(s, [Command::EditMachine(e)], 0.0);
        assert!(!s.status().is_error, "{}", s.status().text);
    }

    fn when(parameter: &str, mode: ConditionMode, threshold: f64) -> Condition {
        Condition {
            parameter: parameter.into(),
            mode,
            threshold,
        }
    }

    /// Idle → Walk (speed > 0.1) → Run (speed > 2), and Jump from Any State on a trigger, back to Idle at its
    /// exit time: the machine a new user builds in the graph, through the commands the graph sends.
    fn locomotion(s: &mut EditorState) -> usize {
        let mut steps = 0;
        frame(s, [Command::NewMachine], 0.0);
        steps += 1;
        assert_eq!(s.machine().unwrap().entry, "Idle");
        for (name, clip, x) in [
            ("Walk", "WalkForward", 160.0),
            ("Run", "RunForward", 320.0),
            ("Jump", "StrafeLeft", 160.0),
        ] {
            edit(
                s,
                MachineEdit::AddState(Box::new(clip_state(name, clip, [x, 80.0]))),
            );
            steps += 1;
        }
        for (name, kind) in [
            ("speed", ParameterKind::Float),
            ("jump", ParameterKind::Trigger),
        ] {
            edit(
                s,
                MachineEdit::AddParameter(Parameter {
                    name: name.into(),
                    kind,
                    default: ParameterValue::Number(0.0),
                }),
            );
            steps += 1;
        }
        let wired = [
            (
                "Idle",
                "Walk",
                Some(when("speed", ConditionMode::Greater, 0.1)),
            ),
            (
                "Walk",
                "Run",
                Some(when("speed", ConditionMode::Greater, 2.0)),
            ),
            ("any", "Jump", Some(when("jump", ConditionMode::If, 0.0))),
            ("Jump", "Idle", None),
        ];
        for (k, (from, to, condition)) in wired.into_iter().enumerate() {
            edit(
                s,
                MachineEdit::AddTransition {
                    from: from.into(),
                    to: to.into(),
                },
            );
            steps += 1;
            if let Some(c) = condition {
                let mut t = s.machine().unwrap().transitions[k].clone();
                t.has_exit_time = false;
                t.conditions = vec![c];
                t.can_transition_to_self = false;
                edit(s, MachineEdit::SetTransition(k, Box::new(t)));
                steps += 1;
            }
        }
        s.machine().unwrap().validate().unwrap();
        steps
    }

    fn state_name(s: &EditorState) -> String {
        let p = s.machine_player().expect("the machine plays");
        p.machine().states[p.current()].name.clone()
    }

    #[test]
    fn a_machine_built_in_steps_undoes_one_edit_at_a_time() {
        let mut s = EditorState::new();
        let steps = locomotion(&mut s);
        let built = s.machine().cloned();
        frame(&mut s, [Command::Undo], 0.0);
        assert_eq!(
            s.machine().unwrap().transitions.len(),
            3,
            "the last step added Jump → Idle"
        );
        for _ in 1..steps {
            frame(&mut s, [Command::Undo], 0.0);
        }
        assert!(s.machine().is_none(), "every edit was one step");
        for _ in 0..steps {
            frame(&mut s, [Command::Redo], 0.0);
        }
        assert_eq!(s.machine().cloned(), built);
    }

    #[test]
    fn parameters_and_triggers_drive_the_machine_playing() {
        let mut s = EditorState::new();
        locomotion(&mut s);
        frame(&mut s, [Command::PlayMachine], 0.0);
        assert_eq!(state_name(&s), "Idle");
        frame(
            &mut s,
            [Command::SetMachineParameter(
                "speed".into(),
                ParameterValue::Number(1.0),
            )],
            1.0 / 30.0,
        );
        for _ in 0..15 {
            frame(&mut s, [], 1.0 / 30.0);
        }
        assert_eq!(state_name(&s), "Walk");
        frame(&mut s, [Command::FireTrigger("jump".into())], 1.0 / 30.0);
        let p = s.machine_player().unwrap();
        let a = p.active().expect("Any State → Jump started");
        assert_eq!(p.machine().states[a.to].name, "Jump");
        assert_eq!(p.value_of("jump"), Some(0.0), "the trigger was consumed");
        // Undoing an edit of something else (the layers) leaves the machine playing where it is.
        let at = s.eval().time();
        let mut layers = s.tuning().layers.clone();
        layers.breath.enabled = !layers.breath.enabled;
        frame(&mut s, [Command::SetLayers(Box::new(layers))], 0.0);
        frame(&mut s, [Command::Undo], 0.0);
        assert_eq!(s.eval().time(), at, "the machine was not restarted");
        assert_eq!(state_name(&s), "Walk");
        // An edit while it plays keeps the parameters' values.
        let mut t = s.machine().unwrap().transitions[0].clone();
        t.duration = 0.3;
        edit(&mut s, MachineEdit::SetTransition(0, Box::new(t)));
        assert_eq!(s.machine_player().unwrap().value_of("speed"), Some(1.0));
    }

    #[test]
    fn scrubbing_a_transition_shows_its_blend_at_that_time() {
        let mut s = EditorState::new();
        locomotion(&mut s);
        // Jump → Idle fires at 0.75 of Jump's loop and blends for 0.25 s.
        let jump = s.machine().unwrap().state_index("Jump").unwrap();
        let seconds = s.state_seconds(jump).unwrap();
        let at = (0.75 * seconds + 0.1) as f32;
        frame(
            &mut s,
            [Command::PreviewTransition {
                transition: 3,
                time: at,
            }],
            0.0,
        );
        assert_eq!(s.machine_preview(), Some(3));
        assert!(!s.eval().clock().is_playing(), "scrubbing pauses");
        let p = s.any_machine_player().unwrap();
        let a = p.active().expect("in the blend");
        assert!((a.progress() - 0.1 / 0.25).abs() < 1e-4, "{}", a.progress());
        assert!(
            s.machine_player().is_none(),
            "a preview is not the machine playing"
        );
        // Changing the duration shows at the same scrub time.
        let mut t = s.machine().unwrap().transitions[3].clone();
        t.duration = 0.5;
        edit(&mut s, MachineEdit::SetTransition(3, Box::new(t)));
        let a = s.any_machine_player().unwrap().active().copied().unwrap();
        assert!((a.progress() - 0.1 / 0.5).abs() < 1e-4, "{}", a.progress());
        // Before the exit time only the source plays.
        frame(
            &mut s,
            [Command::PreviewTransition {
                transition: 3,
                time: 0.1,
            }],
            0.0,
        );
        assert!(s.any_machine_player().unwrap().active().is_none());
    }

    #[test]
    fn a_recorded_script_replays_the_same_states_and_saves_as_the_cli_reads_it() {
        let mut s = EditorState::new();
        locomotion(&mut s);
        let dt = 1.0 / 30.0;
        let run = |s: &mut EditorState, live: bool| {
            let mut states = Vec::new();
            for k in 0..60 {
                let commands = match (live, k) {
                    (true, 9) => vec![Command::SetMachineParameter(
                        "speed".into(),
                        ParameterValue::Number(3.0),
                    )],
                    (true, 40) => vec![Command::FireTrigger("jump".into())],
                    _ => vec![],
                };
                frame(s, commands, dt);
                states.push(state_name(s));
            }
            states
        };
        frame(&mut s, [Command::RecordScript(true)], 0.0);
        assert!(s.recording());
        let recorded = run(&mut s, true);
        frame(&mut s, [Command::RecordScript(false)], 0.0);
        let script = s.script().expect("kept").clone();
        assert_eq!(script.events().len(), 2);
        assert!(recorded.contains(&"Run".to_string()) && recorded.contains(&"Jump".to_string()));
        frame(&mut s, [Command::ReplayScript], 0.0);
        assert_eq!(
            s.machine_player().unwrap().value_of("speed"),
            Some(0.0),
            "a replay starts from the defaults"
        );
        let replayed = run(&mut s, false);
        assert_eq!(replayed, recorded);

        let dir = crate::test_support::temp_dir("editor-script");
        let path = dir.join("run.json");
        let save = |overwrite| Command::SaveScript {
            path: path.clone(),
            overwrite,
        };
        frame(&mut s, [save(false)], 0.0);
        assert!(!s.status().is_error, "{}", s.status().text);
        frame(&mut s, [save(false)], 0.0);
        assert!(
            s.status().is_error,
            "an existing script is not replaced unasked"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Script::parse(&text, "run.json").unwrap(), script);
        std::fs::write(dir.join("bad.json"), "{").unwrap();
        frame(&mut s, [Command::OpenScript(dir.join("bad.json"))], 0.0);
        assert!(s.status().is_error && s.status().text.contains("bad.json"));
        frame(&mut s, [Command::OpenScript(path.clone())], 0.0);
        assert!(!s.status().is_error, "{}", s.status().text);
        assert_eq!(s.script(), Some(&script));
    }

    /// Scrubbing during a replay replays the script to the scrubbed time: back before a change undoes it (the
    /// defaults again), forward past it applies it, and the replay goes on to the script's later changes.
    #[test]
    fn scrubbing_a_replay_replays_the_script_to_that_time() {
        let mut s = EditorState::new();
        locomotion(&mut s);
        let dt = 1.0 / 30.0;
        frame(&mut s, [Command::RecordScript(true)], 0.0);
        for k in 0..60 {
            let commands = match k {
                9 => vec![Command::SetMachineParameter(
                    "speed".into(),
                    ParameterValue::Number(3.0),
                )],
                40 => vec![Command::FireTrigger("jump".into())],
                _ => vec![],
            };
            frame(&mut s, commands, dt);
        }
        frame(&mut s, [Command::RecordScript(false)], 0.0);
        frame(&mut s, [Command::ReplayScript], 0.0);
        for _ in 0..20 {
            frame(&mut s, [], dt);
        }
        let speed = |s: &EditorState| s.machine_player().unwrap().value_of("speed");
        assert_eq!(speed(&s), Some(3.0), "the first change replayed");
        frame(&mut s, [Command::Transport(Transport::Scrub(0.1))], 0.0);
        assert_eq!(speed(&s), Some(0.0), "before the change: the default");
        assert_eq!(state_name(&s), "Idle");
        frame(&mut s, [Command::Transport(Transport::Scrub(1.0))], 0.0);
        assert_eq!(speed(&s), Some(3.0), "past the change again");
        assert_ne!(state_name(&s), "Idle");
        frame(&mut s, [Command::Transport(Transport::Play)], 0.0);
        let mut jumped = false;
        for _ in 0..30 {
            frame(&mut s, [], dt);
            jumped |= state_name(&s) == "Jump"
                || s.machine_player().unwrap().active().is_some_and(|a| {
                    s.machine_player().unwrap().machine().states[a.to].name == "Jump"
                });
        }
        assert!(jumped, "the replay went on to the jump");
        assert!(!s.replaying(), "every change replayed");
        // After the replay the parameters are still the script's: a scrub back replays it again.
        frame(&mut s, [Command::Transport(Transport::Scrub(0.1))], 0.0);
        assert_eq!(speed(&s), Some(0.0), "before the change, after the replay");
        // A parameter set by hand takes over: a scrub keeps it.
        let slow = ParameterValue::Number(1.0);
        frame(
            &mut s,
            [Command::SetMachineParameter("speed".into(), slow)],
            0.0,
        );
        frame(&mut s, [Command::Transport(Transport::Scrub(0.5))], 0.0);
        assert_eq!(speed(&s), Some(1.0), "the hand-set value stays");
    }

    #[test]
    fn what_cannot_play_says_why_in_the_status_bar() {
        let mut s = EditorState::new();
        frame(&mut s, [Command::PlayMachine], 0.0);
        assert!(s.status().is_error && s.status().text.contains("No state machine"));
        frame(&mut s, [Command::NewMachine], 0.0);
        frame(
            &mut s,
            [Command::SetMachineParameter(
                "speed".into(),
                ParameterValue::Number(1.0),
            )],
            0.0,
        );
        assert!(s.status().is_error && s.status().text.contains("not playing"));
        let mut state = s.machine().unwrap().states[0].clone();
        state.clip = Some("NoSuchClip".into());
        frame(
            &mut s,
            [Command::EditMachine(MachineEdit::SetState(
                0,
                Box::new(state),
            ))],
            0.0,
        );
        frame(&mut s, [Command::PlayMachine], 0.0);
        assert!(
            s.status().text.contains("NoSuchClip"),
            "{}",
            s.status().text
        );
        frame(
            &mut s,
            [Command::EditMachine(MachineEdit::AddTransition {
                from: "Idle".into(),
                to: "Nope".into(),
            })],
            0.0,
        );
        assert!(s.status().is_error && s.status().text.contains("Nope"));
        let _ = Transition::default();
    }
}
