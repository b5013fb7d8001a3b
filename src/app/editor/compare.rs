//! Two transition models side by side: a second character beside the first plays the same state machine with
//! every transition under another model, in step with the first (the same time, the same parameter changes, the
//! same script), so that an interruption can be watched under Unity's rule and, say, inertialization at once.

use glam::{Mat4, Vec3};

use super::EditorState;
use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use crate::graph::{MachinePlayer, ParameterValue, StateMachine, TransitionModel};
use crate::render::camera::posed_bounds;

/// The second character (see the module documentation).
pub(super) struct Compare {
    /// The model every transition of its machine uses.
    pub(super) model: TransitionModel,
    eval: Option<Evaluator>,
    /// How far beside the first character it stands (along x), measured when it starts.
    step: f32,
    /// Its pose placed beside the first character's (model space of the scene).
    placed: Vec<Mat4>,
    /// The camera frames both once the second is first placed.
    frame_both: bool,
}

impl Compare {
    /// A comparison under `model`, bound when the machine next plays.
    pub(super) fn new(model: TransitionModel) -> Self {
        Compare {
            model,
            eval: None,
            step: 0.0,
            placed: Vec::new(),
            frame_both: true,
        }
    }
}

/// `m` with every transition under `model`.
pub fn with_model(m: &StateMachine, model: TransitionModel) -> StateMachine {
    let mut m = m.clone();
    for t in &mut m.transitions {
        t.model = model;
    }
    m
}

impl EditorState {
    /// The model the second character plays every transition with (None: no comparison).
    pub fn compare_model(&self) -> Option<TransitionModel> {
        self.compare.as_ref().map(|c| c.model)
    }

    /// The second character's player, while the machine plays.
    pub fn compare_player(&self) -> Option<&MachinePlayer> {
        self.machine_player()?;
        self.compare.as_ref()?.eval.as_ref()?.source().machine()
    }

    /// The second character's joint matrices, placed beside the first, while the machine plays.
    pub fn compare_matrices(&self) -> Option<&[Mat4]> {
        self.compare_player()?;
        let c = self.compare.as_ref()?;
        (!c.placed.is_empty()).then_some(&c.placed[..])
    }

    /// Starts (Some) or ends the comparison; starting plays the machine again from its entry, both characters
    /// in step.
    pub(super) fn set_compare(&mut self, model: Option<TransitionModel>) {
        match model {
            None => {
                self.compare = None;
                self.session
                    .report("Comparison off: one character".into(), false);
            }
            Some(model) => {
                self.compare = Some(Compare::new(model));
                if self.play_machine() {
                    let name = model.label();
                    self.session.report(
                        format!(
                            "Comparing: the character on the right plays every transition as {name}"
                        ),
                        false,
                    );
                }
            }
        }
    }

    /// After the machine starts playing: the second character starts with it.
    pub(super) fn restart_compare(&mut self) {
        let Some(c) = &mut self.compare else {
            return;
        };
        let Some(m) = self.doc.tuning.state_machine.as_ref() else {
            c.eval = None;
            return;
        };
        let character = &self.doc.model.character;
        let (clips, m) = crate::offline::mirror::machine_clips(
            character,
            &self.doc.clips,
            &with_model(m, c.model),
        );
        let mut eval = Evaluator::new(
            character,
            &clips,
            SourceSpec::StateMachine(m),
            self.doc.tuning.layers.clone(),
        );
        eval.play();
        c.eval = Some(eval);
        c.step = side_step(&self.doc.model.character);
        c.placed.clear();
    }

    /// The first character's replayed script, played by the second too.
    pub(super) fn compare_set_script(&mut self, script: std::sync::Arc<crate::graph::Script>) {
        if let Some(eval) = self.compare.as_mut().and_then(|c| c.eval.as_mut()) {
            eval.source_mut().set_script(Some(script));
        }
    }

    /// A parameter change of the first character, made on the second too.
    pub(super) fn compare_set(&mut self, name: &str, value: ParameterValue) {
        if let Some(p) = self
            .compare
            .as_mut()
            .and_then(|c| c.eval.as_mut())
            .and_then(|e| e.source_mut().machine_mut())
        {
            p.set(name, value);
        }
    }

    /// After the first character's evaluation: the second one to the same machine time, placed beside it.
    pub(super) fn step_compare(&mut self, placement: Mat4) {
        if self.machine_player().is_none() {
            return;
        }
        let time = self.session.eval.time();
        let Some(c) = &mut self.compare else {
            return;
        };
        let Some(eval) = &mut c.eval else {
            return;
        };
        // A seek (Stop, Home, a scrub) replays both from the entry: the second follows it back, under the script
        // while the parameters are a replayed script's (as the first did).
        if time < eval.time() {
            match super::machine::replayed_script(&self.session.machine) {
                Some(_) => {
                    eval.seek_script(time);
                }
                None => eval.seek(time),
            }
        }
        let beside = placement * Mat4::from_translation(Vec3::X * c.step);
        let input = EvalInput {
            clock: ClockStep::Continue(time),
            placement: Some(beside),
            ..Default::default()
        };
        eval.evaluate(&input);
        c.placed.clear();
        c.placed
            .extend(eval.output().model.iter().map(|m| beside * *m));
        if std::mem::take(&mut c.frame_both) {
            self.frame_pending = true;
        }
    }

    /// What each character shows, to label it in the viewport: the first plays the machine's transitions as
    /// authored, the second every transition under the compared model (None without a comparison).
    pub fn compare_labels(&self) -> Option<[String; 2]> {
        let c = self.compare.as_ref()?;
        self.compare_matrices()?;
        let name = &self.doc.name;
        Some([
            format!("{name}: transitions as authored"),
            format!("{name}: every transition as {}", c.model.label()),
        ])
    }
}

/// How far the second character stands from the first: one and a half widths of the rest pose, at least
/// 0.6 of its height.
fn side_step(c: &crate::core::Character) -> f32 {
    let rest = crate::core::Pose::rest(&c.skeleton).model_matrices(&c.skeleton);
    let (min, max) = posed_bounds(c, &rest);
    let size = max - min;
    (size.x * 1.5).max(size.y * 0.6).max(0.5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::command::Command;
    use crate::app::editor::machine::tests::frame;
    use crate::graph::MachineEdit;
    use crate::graph::edit::clip_state;

    /// Idle → Walk on a trigger, blending for half a second.
    fn machine(s: &mut EditorState) {
        use crate::graph::{Condition, ConditionMode, Parameter, ParameterKind};
        frame(s, [Command::NewMachine], 0.0);
        let walk = clip_state("Walk", "WalkForward", [200.0, 0.0]);
        let go = Parameter {
            name: "go".into(),
            kind: ParameterKind::Trigger,
            default: ParameterValue::Bool(false),
        };
        let edits = [
            MachineEdit::AddState(Box::new(walk)),
            MachineEdit::AddParameter(go),
            MachineEdit::AddTransition {
                from: "Idle".into(),
                to: "Walk".into(),
            },
        ];
        for e in edits {
            frame(s, [Command::EditMachine(e)], 0.0);
        }
        let mut t = s.machine().unwrap().transitions[0].clone();
        t.has_exit_time = false;
        t.duration = 0.5;
        t.conditions = vec![Condition {
            parameter: "go".into(),
            mode: ConditionMode::If,
            threshold: 0.0,
        }];
        frame(
            s,
            [Command::EditMachine(MachineEdit::SetTransition(
                0,
                Box::new(t),
            ))],
            0.0,
        );
        s.machine().unwrap().validate().unwrap();
    }

    #[test]
    fn the_second_character_keeps_step_and_differs_only_while_a_transition_runs() {
        let mut s = EditorState::new();
        machine(&mut s);
        frame(
            &mut s,
            [Command::CompareModels(Some(
                TransitionModel::Inertialization,
            ))],
            0.0,
        );
        assert!(!s.status().is_error, "{}", s.status().text);
        let dt = 1.0 / 30.0;
        for _ in 0..10 {
            frame(&mut s, [], dt);
        }
        // The largest difference between the two poses' joint axes (their translations differ by the step aside).
        let joints = |s: &EditorState| {
            let offset =
                s.compare_matrices().unwrap()[0].w_axis - s.eval().output().model[0].w_axis;
            s.eval()
                .output()
                .model
                .iter()
                .zip(s.compare_matrices().unwrap())
                .map(|(a, b)| {
                    let axes = [
                        b.x_axis - a.x_axis,
                        b.y_axis - a.y_axis,
                        b.z_axis - a.z_axis,
                    ];
                    let moved = b.w_axis - a.w_axis - offset;
                    axes.iter()
                        .chain([&moved])
                        .map(|d| d.abs().max_element())
                        .fold(0.0f32, f32::max)
                })
                .fold(0.0f32, f32::max)
        };
        assert!(joints(&s) < 1e-5, "both idle alike: {}", joints(&s));
        // Placed beside: the same pose moved along x.
        let (a, b) = (s.eval().output().model[0], s.compare_matrices().unwrap()[0]);
        let dx = b.w_axis.x - a.w_axis.x;
        assert!(dx > 0.4 && (b.w_axis.y - a.w_axis.y).abs() < 1e-5, "{dx}");
        frame(&mut s, [Command::FireTrigger("go".into())], dt);
        for _ in 0..5 {
            frame(&mut s, [], dt);
        }
        let (p, q) = (s.machine_player().unwrap(), s.compare_player().unwrap());
        assert_eq!(
            p.active().map(|a| a.to),
            q.active().map(|a| a.to),
            "in step"
        );
        assert!(
            joints(&s) > 0.01,
            "crossfade and inertialization differ mid-blend"
        );
        for _ in 0..30 {
            frame(&mut s, [], dt);
        }
        assert!(
            joints(&s) < 1e-3,
            "both in Walk after the blend: {}",
            joints(&s)
        );
        frame(&mut s, [Command::CompareModels(None)], 0.0);
        assert!(s.compare_matrices().is_none());
    }
}
