//! The inspector's States tab: the state machine as Unity's Animator window shows it. Play it, record and replay
//! parameter scripts, and see the current state and the transition's progress live; the graph view in its own
//! window, as Unity's Animator window ([`graph`]); the selected state's motion and speed; the selected transition's settings and preview timeline
//! ([`transition`]); the parameters, with sliders, toggles and trigger buttons, and keys that fire triggers.

pub mod graph;
pub mod transition;

use egui::{Color32, RichText, Vec2};

use crate::app::command::{Command, Commands, Purpose};
use crate::app::editor::EditorState;
use crate::graph::machine::ANY_STATE;
use crate::graph::{
    MachineEdit, MachinePlayer, Parameter, ParameterKind, ParameterValue, StateMachine,
    TransitionModel,
};
use graph::{GraphDrag, Node};
use transition::TimelineDrag;

/// What the graph has selected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selected {
    /// A state, by name.
    State(String),
    /// Any State: its transitions.
    AnyState,
    /// Entry: the entry state and the Entry transitions tried before it.
    Entry,
    /// A transition, by index.
    Transition(usize),
}

pub use crate::app::state::session::TRIGGER_KEYS;

/// The States tab's own state.
#[derive(Default)]
pub struct StatesPanel {
    /// What the graph has selected.
    pub selected: Option<Selected>,
    /// The machine's layer the graph shows (None: the machine's own states, which it edits).
    pub layer: Option<usize>,
    /// The graph's view offset (points).
    pub pan: Vec2,
    /// The graph's scale, screen points per graph unit (0 before the first zoom: 1).
    zoom: f32,
    /// The graph's pane is open (docked beside the viewport).
    pub graph_open: bool,
    /// The sub-state machines the graph folds into one node each.
    pub folded: graph::Folded,
    drag: Option<GraphDrag>,
    /// Make Transition chose a source: the next click on a state connects it.
    connecting: Option<Node>,
    /// Where the context menu opened (graph units) and on what.
    menu_at: Option<(Vec2, Option<Node>)>,
    /// The Rename menu item asks the name field for focus.
    focus_name: bool,
    /// The state name being typed (the state's name when typing began, the text).
    name_edit: Option<(String, String)>,
    /// A parameter name being typed (its index, the text).
    parameter_edit: Option<(usize, String)>,
    timeline_drag: Option<TimelineDrag>,
    /// States' lengths measured while no machine plays, and the document (generation, revision) they are of.
    lengths: ((u64, u64), std::collections::HashMap<usize, Option<f64>>),
}

impl StatesPanel {
    /// The graph's scale: screen points per graph unit.
    pub fn zoom(&self) -> f32 {
        if self.zoom > 0.0 { self.zoom } else { 1.0 }
    }

    /// A state's loop in seconds at its speed ([`EditorState::state_seconds`]). While a machine plays the player
    /// knows it; otherwise a blend state's length binds its space to the character, which is not work for every
    /// frame, so it is kept until the document changes.
    fn state_seconds(&mut self, e: &EditorState, state: usize) -> Option<f64> {
        if e.any_machine_player().is_some() {
            return e.state_seconds(state);
        }
        let key = (e.doc().generation, e.doc().revision);
        if self.lengths.0 != key {
            self.lengths = (key, Default::default());
        }
        *self
            .lengths
            .1
            .entry(state)
            .or_insert_with(|| e.state_seconds(state))
    }

    /// Draws the tab.
    pub fn ui(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        let Some(m) = e.machine() else {
            ui.label(
                "No state machine. Make one to play a character as the game runs it: states playing clips or \
                 blend spaces, transitions with Unity's settings, parameters to drive them.",
            );
            if ui
                .button("New state machine")
                .on_hover_text(
                    "One state playing the clip shown (or the first clip); add more from the graph",
                )
                .clicked()
            {
                out.push(Command::NewMachine);
                self.graph_open = true;
            }
            return;
        };
        self.live(ui, e, m, out);
        if ui
            .selectable_label(self.graph_open, "Graph panel")
            .on_hover_text(
                "The states and transitions as a graph: add, connect, move, rename, delete",
            )
            .clicked()
        {
            self.graph_open = !self.graph_open;
        }
        match self.selected.clone() {
            Some(Selected::State(name)) => match m.state_index(&name) {
                Some(i) => self.state(ui, e, m, i, out),
                None => self.selected = None,
            },
            Some(Selected::Transition(t)) if t < m.transitions.len() => {
                ui.separator();
                self.transition(ui, e, m, t, out);
            }
            Some(Selected::Entry) => {
                ui.separator();
                ui.strong("Entry").on_hover_text(
                    "Where the machine starts, and starts again after Exit: the first Entry transition whose \
                     conditions hold, else the entry state (Unity's Entry)",
                );
                for t in &m.entry_transitions {
                    let when: Vec<String> = t.conditions.iter().map(condition_text).collect();
                    ui.label(format!("-> {} when {}", t.to, when.join(" and ")));
                }
                ui.label(format!("-> {} (the entry state)", m.entry));
            }
            Some(Selected::AnyState) => {
                ui.separator();
                ui.strong("Any State").on_hover_text(
                    "Transitions that may fire whichever state plays, tested before that state's own (Unity's \
                     Any State)",
                );
                if !self.transition_list(ui, m, ANY_STATE) {
                    ui.weak("No transitions: drag from Any State's dot onto a state to add one");
                }
            }
            _ => {}
        }
        ui.separator();
        self.parameters(ui, e, m, out);
    }

    /// Play, record, replay and the scripts' files; the current state and the transition's progress.
    fn live(&mut self, ui: &mut egui::Ui, e: &EditorState, m: &StateMachine, out: &mut Commands) {
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Play machine")
                .on_hover_text("Play the state machine from its entry state, the parameters at their defaults")
                .clicked()
            {
                out.push(Command::PlayMachine);
            }
            let recording = e.recording();
            let record = if recording { "Stop recording" } else { "Record" };
            // As wide as its longer label: the buttons after it never move when recording starts or stops.
            let width = button_width(ui, "Stop recording");
            if ui
                .add(egui::Button::new(record).min_size(Vec2::new(width, 0.0)))
                .on_hover_text(
                    "Record the parameters you change and the triggers you fire, with their times, as a script",
                )
                .clicked()
            {
                out.push(Command::RecordScript(!recording));
            }
            if ui
                .add_enabled(e.script().is_some(), egui::Button::new("Replay"))
                .on_hover_text("Play the machine again from its entry with the script's changes at their times")
                .on_disabled_hover_text("Record or open a script first")
                .clicked()
            {
                out.push(Command::ReplayScript);
            }
            if ui
                .button("Open script…")
                .on_hover_text("Read a parameter script (JSON) to replay")
                .clicked()
            {
                out.push(Command::ChooseFile(Purpose::OpenScript));
            }
            if ui
                .add_enabled(e.script().is_some(), egui::Button::new("Save script…"))
                .on_hover_text("Write the script as JSON, for `pose --script` and `bake --script`")
                .clicked()
            {
                out.push(Command::ChooseFile(Purpose::SaveScript));
            }
        });
        ui.horizontal(|ui| {
            ui.label("Compare with");
            let current = e.compare_model();
            egui::ComboBox::from_id_salt("compare model")
                .selected_text(current.map_or("nothing", TransitionModel::label))
                .show_ui(ui, |ui| {
                    if ui.selectable_label(current.is_none(), "nothing").clicked() {
                        out.push(Command::CompareModels(None));
                    }
                    for m in TransitionModel::ALL {
                        if ui.selectable_label(current == Some(m), m.label()).clicked() {
                            out.push(Command::CompareModels(Some(m)));
                        }
                    }
                })
                .response
                .on_hover_text(
                    "A second character beside the first plays the same machine, parameters and script with every \
                     transition under this model",
                );
        });
        // Three rows whatever plays, each one line (truncated, never wrapped): the rows below never move as a
        // transition starts and ends, as recording starts, or as the machine starts or stops.
        let row = ui.spacing().interact_size.y;
        let height = 3.0 * row + 2.0 * ui.spacing().item_spacing.y;
        let (rect, _) = ui.allocate_exact_size(
            Vec2::new(ui.available_width(), height),
            egui::Sense::hover(),
        );
        let mut block = ui.new_child(
            egui::UiBuilder::new()
                .max_rect(rect)
                .layout(egui::Layout::top_down(egui::Align::Min)),
        );
        let ui = &mut block;
        let line = |ui: &mut egui::Ui, text: RichText| {
            ui.horizontal(|ui| {
                ui.set_min_height(row);
                ui.add(egui::Label::new(text).truncate());
            });
        };
        match (e.machine_player(), e.machine_preview()) {
            (Some(p), _) => live_state(ui, e, p, row),
            (None, Some(t)) => {
                line(
                    ui,
                    RichText::new(format!(
                        "Previewing transition {} -> {} at {:.2} s (Play machine to run the machine)",
                        m.transitions[t].from,
                        m.transitions[t].to,
                        e.eval().time()
                    )),
                );
                line(ui, RichText::new(""));
            }
            (None, None) => {
                line(ui, RichText::new("Not playing: press Play machine.").weak());
                line(ui, RichText::new(machine_summary(m)).weak());
            }
        }
        let status = if let Err(err) = m.validate() {
            RichText::new(format!("Cannot play: {err}")).color(Color32::LIGHT_RED)
        } else if e.recording() {
            RichText::new("recording").color(Color32::from_rgb(230, 80, 80))
        } else if e.replaying() {
            RichText::new("replaying the script")
        } else if e.script_replayed() {
            RichText::new("script replayed: the machine plays on")
        } else {
            RichText::new("Record saves parameter changes as a script; Replay plays it again.")
                .weak()
        };
        line(ui, status);
    }

    /// The selected state: name, motion, speed, mirror, its point's parameters, entry, its transitions.
    fn state(
        &mut self,
        ui: &mut egui::Ui,
        e: &EditorState,
        m: &StateMachine,
        i: usize,
        out: &mut Commands,
    ) {
        ui.separator();
        let s = &m.states[i];
        ui.horizontal(|ui| {
            ui.label("State");
            let draft = match &mut self.name_edit {
                Some((of, text)) if *of == s.name => text,
                slot => &mut slot.insert((s.name.clone(), s.name.clone())).1,
            };
            let field = ui
                .add(egui::TextEdit::singleline(draft).desired_width(140.0))
                .on_hover_text("The state's name: Enter renames it, and its transitions follow");
            if std::mem::take(&mut self.focus_name) {
                field.request_focus();
            }
            let commit = field.lost_focus();
            if commit {
                if *draft != s.name {
                    out.push(Command::EditMachine(MachineEdit::RenameState {
                        from: s.name.clone(),
                        to: draft.clone(),
                    }));
                    self.selected = Some(Selected::State(draft.clone()));
                }
                self.name_edit = None;
            }
            if m.entry == s.name {
                ui.label(RichText::new("entry").color(Color32::from_rgb(230, 140, 40)));
            } else if ui.button("Set as Entry").clicked() {
                out.push(Command::EditMachine(MachineEdit::SetEntry(s.name.clone())));
            }
            if ui
                .button("Delete")
                .on_hover_text("Delete the state and its transitions")
                .clicked()
            {
                out.push(Command::EditMachine(MachineEdit::RemoveState(
                    s.name.clone(),
                )));
                self.selected = None;
            }
        });
        let mut n = s.clone();
        ui.horizontal(|ui| {
            ui.label("Motion");
            let shown = match (&n.clip, &n.blend_space) {
                (Some(c), _) => c.clone(),
                (None, Some(space)) => format!("Blend space ({} nodes)", space.nodes.len()),
                _ => "(none)".into(),
            };
            egui::ComboBox::from_id_salt("state motion")
                .selected_text(shown)
                .width(180.0)
                .show_ui(ui, |ui| {
                    if ui
                        .button("Blend space (the Blend tab's)")
                        .on_hover_text("Play a copy of the blend space the Blend tab edits")
                        .clicked()
                    {
                        n.clip = None;
                        n.blend_space = Some(e.tuning().blend.clone());
                        n.tree = None;
                        n.mirror_parameter = None;
                    }
                    for c in &e.doc().clips {
                        if ui
                            .selectable_label(n.clip.as_deref() == Some(c.name.as_str()), &c.name)
                            .clicked()
                        {
                            n.clip = Some(c.name.clone());
                            n.blend_space = None;
                            n.point_parameters = None;
                            n.tree = None;
                        }
                    }
                })
                .response
                .on_hover_text("What the state plays: a clip of the character, or a blend space");
        });
        ui.horizontal(|ui| {
            ui.label("Speed");
            ui.add(
                egui::DragValue::new(&mut n.speed)
                    .speed(0.01)
                    .range(-10.0..=10.0),
            )
            .on_hover_text("Playback speed: normalised time advances by speed / length a second");
            ui.add_enabled(
                n.mirror_parameter.is_none(),
                egui::Checkbox::new(&mut n.mirror, "Mirror"),
            )
            .on_hover_text("Play the motion mirrored left to right")
            .on_disabled_hover_text("Its Mirror by parameter decides");
            if let Some(seconds) = self.state_seconds(e, i) {
                ui.weak(format!("{seconds:.2} s a loop"));
            }
        });
        let names_of = |kinds: &[ParameterKind]| -> Vec<&str> {
            m.parameters
                .iter()
                .filter(|p| kinds.contains(&p.kind))
                .map(|p| p.name.as_str())
                .collect()
        };
        let numbers = names_of(&[ParameterKind::Float, ParameterKind::Int]);
        parameter_row(
            ui,
            ["Multiplier", "speed parameter", "none"],
            "A float parameter the speed is multiplied by while the state plays (Unity's Speed Multiplier)",
            "The parameter multiplying the speed; none: the speed alone",
            &mut n.speed_parameter,
            &numbers,
        );
        ui.horizontal(|ui| {
            ui.label("Cycle offset").on_hover_text(
                "Cycles added to the state's time where its motion is sampled (Unity's Cycle Offset)",
            );
            ui.add_enabled(
                n.cycle_offset_parameter.is_none(),
                egui::DragValue::new(&mut n.cycle_offset)
                    .speed(0.01)
                    .range(-1.0..=1.0),
            )
            .on_hover_text("The offset, in cycles (0.5: half a cycle on)");
            parameter_choice(
                ui,
                "cycle offset parameter",
                &mut n.cycle_offset_parameter,
                &numbers,
                "no parameter",
            )
            .on_hover_text("A float parameter giving the offset instead");
        });
        parameter_row(
            ui,
            ["Motion time", "time parameter", "the clock"],
            "A float parameter placing the motion, in cycles, instead of the state's clock (Unity's Motion Time)",
            "The parameter whose value is where the motion is sampled; the clock: the state's time",
            &mut n.time_parameter,
            &numbers,
        );
        parameter_row(
            ui,
            ["Mirror by", "mirror parameter", "none"],
            "A bool parameter that mirrors the motion while it is true, instead of Mirror (Unity's Mirror parameter)",
            "The parameter; none: the Mirror checkbox decides",
            &mut n.mirror_parameter,
            &names_of(&[ParameterKind::Bool]),
        );
        if let Some(tree) = &n.tree {
            ui.horizontal(|ui| {
                ui.label("Weights from").on_hover_text(
                    "A tree of blends (Unity's nested or Direct blend tree) weighs the clips from these parameters",
                );
                ui.weak(tree.parameters().join(", "));
            });
        } else if n.blend_space.is_some() {
            ui.horizontal(|ui| {
                ui.label("Point from").on_hover_text(
                    "The float parameters that place the blend space's point (x, y); none: its own point",
                );
                let mut pair = n.point_parameters.clone().unwrap_or_default();
                for (k, axis) in ["x", "y"].into_iter().enumerate() {
                    egui::ComboBox::from_id_salt(("point parameter", k))
                        .selected_text(if pair[k].is_empty() { axis } else { pair[k].as_str() })
                        .show_ui(ui, |ui| {
                            for p in &numbers {
                                ui.selectable_value(&mut pair[k], p.to_string(), *p);
                            }
                        })
                        .response
                        .on_hover_text(format!("The parameter giving the point's {axis}"));
                }
                if pair.iter().all(|p| !p.is_empty()) {
                    n.point_parameters = Some(pair);
                }
            });
        }
        if n != *s {
            out.push(Command::EditMachine(MachineEdit::SetState(i, Box::new(n))));
        }
        self.transition_list(ui, m, &s.name);
    }

    /// The transitions out of `from` (a state's name or [`ANY_STATE`]) in the order they are tested, each
    /// selecting it when clicked; false when there are none.
    fn transition_list(&mut self, ui: &mut egui::Ui, m: &StateMachine, from: &str) -> bool {
        let outgoing: Vec<usize> = (0..m.transitions.len())
            .filter(|&k| m.transitions[k].from == from)
            .collect();
        if outgoing.is_empty() {
            return false;
        }
        ui.label("Transitions, in the order they are tested");
        for k in outgoing {
            if ui
                .selectable_label(false, format!("-> {}", m.transitions[k].to))
                .on_hover_text("Select this transition")
                .clicked()
            {
                self.selected = Some(Selected::Transition(k));
            }
        }
        true
    }

    /// The parameters: name, type, value (the default while stopped, the live value while playing), trigger
    /// keys.
    fn parameters(
        &mut self,
        ui: &mut egui::Ui,
        e: &EditorState,
        m: &StateMachine,
        out: &mut Commands,
    ) {
        let live = e.machine_player();
        ui.horizontal(|ui| {
            ui.strong("Parameters").on_hover_text(if live.is_some() {
                "The machine plays: these change its live values (not undo steps; recorded while recording)"
            } else {
                "Stopped: these set the values the machine starts with"
            });
            let add = ui.menu_button("+", |ui| {
                for (kind, name) in [
                    (ParameterKind::Float, "Float"),
                    (ParameterKind::Int, "Int"),
                    (ParameterKind::Bool, "Bool"),
                    (ParameterKind::Trigger, "Trigger"),
                ] {
                    if ui.button(name).clicked() {
                        let taken = |n: &str| m.parameter_index(n).is_some();
                        let base = format!("New {name}");
                        let name = (1..)
                            .map(|k| if k == 1 { base.clone() } else { format!("{base} {k}") })
                            .find(|n| !taken(n))
                            .unwrap_or(base);
                        out.push(Command::EditMachine(MachineEdit::AddParameter(Parameter {
                            name,
                            kind,
                            default: ParameterValue::Number(0.0),
                        })));
                        ui.close();
                    }
                }
            });
            add.response
                .on_hover_text("Add a parameter: float, int, bool or trigger");
        });
        for (i, p) in m.parameters.iter().enumerate() {
            ui.horizontal(|ui| {
                let draft = match &mut self.parameter_edit {
                    Some((of, text)) if *of == i => text,
                    _ => &mut String::new(),
                };
                let mut text = if draft.is_empty() {
                    p.name.clone()
                } else {
                    draft.clone()
                };
                let field = ui
                    .add(egui::TextEdit::singleline(&mut text).desired_width(90.0))
                    .on_hover_text(
                        "The parameter's name: Enter renames it, and its conditions follow",
                    );
                if field.changed() {
                    self.parameter_edit = Some((i, text.clone()));
                }
                if field.lost_focus() {
                    if text != p.name && !text.is_empty() {
                        out.push(Command::EditMachine(MachineEdit::SetParameter(
                            i,
                            Parameter {
                                name: text,
                                ..p.clone()
                            },
                        )));
                    }
                    self.parameter_edit = None;
                }
                parameter_value(ui, p, live, i, out);
                if p.kind == ParameterKind::Trigger {
                    trigger_key(ui, e, p, out);
                }
                if ui
                    .small_button("x")
                    .on_hover_text("Delete the parameter and its conditions")
                    .clicked()
                {
                    out.push(Command::EditMachine(MachineEdit::RemoveParameter(i)));
                }
            });
        }
    }
}

/// The current state, its normalised time and loop, and the transition's progress: two rows of `row` points,
/// the second there (empty) when no transition runs.
fn live_state(ui: &mut egui::Ui, e: &EditorState, p: &MachinePlayer, row: f32) {
    let m = p.machine();
    let name = |s: usize| m.states.get(s).map_or("?", |x| x.name.as_str());
    let t = p.time();
    let text = format!(
        "{:.2} s · state {} at {:.2} (loop {}, {:.0} %)",
        e.eval().time(),
        name(p.current()),
        t,
        t.floor().max(0.0) as i64 + 1,
        t.rem_euclid(1.0) * 100.0
    );
    ui.horizontal(|ui| {
        ui.set_min_height(row);
        ui.add(egui::Label::new(text).truncate());
    });
    ui.horizontal(|ui| {
        ui.set_min_height(row);
        if let Some(a) = p.active() {
            let frozen = if a.frozen_source {
                " (from the frozen pose)"
            } else {
                ""
            };
            ui.add(
                egui::ProgressBar::new(a.progress() as f32)
                    .desired_width(140.0)
                    .show_percentage(),
            );
            ui.add(egui::Label::new(format!("-> {}{frozen}", name(a.to))).truncate());
        }
    });
}

/// The width of a button showing `text` in the current font.
fn button_width(ui: &egui::Ui, text: &str) -> f32 {
    let galley = egui::WidgetText::from(text).into_galley(
        ui,
        Some(egui::TextWrapMode::Extend),
        f32::INFINITY,
        egui::TextStyle::Button,
    );
    (galley.size().x + 2.0 * ui.spacing().button_padding.x).ceil()
}

/// A parameter's value: the live one while the machine plays, else its default (an undo step).
fn parameter_value(
    ui: &mut egui::Ui,
    p: &Parameter,
    live: Option<&MachinePlayer>,
    i: usize,
    out: &mut Commands,
) {
    let value = live.map_or(p.default.for_kind(p.kind), |l| l.value(i));
    let set = |out: &mut Commands, v: ParameterValue| match live {
        Some(_) => out.push(Command::SetMachineParameter(p.name.clone(), v)),
        None => out.push(Command::EditMachine(MachineEdit::SetParameter(
            i,
            Parameter {
                default: v,
                ..p.clone()
            },
        ))),
    };
    match p.kind {
        ParameterKind::Float => {
            let mut v = value;
            let tip = if live.is_some() {
                "The value now (the machine plays)"
            } else {
                "The value the machine starts with"
            };
            if ui
                .add(egui::DragValue::new(&mut v).speed(0.01))
                .on_hover_text(tip)
                .changed()
            {
                set(out, ParameterValue::Number(v));
            }
            let mut slider = v;
            let bar = ui.add(egui::Slider::new(&mut slider, -5.0..=5.0).show_value(false));
            if crate::app::widgets::tooltip_unless_dragged(bar, tip).changed() {
                set(out, ParameterValue::Number(slider));
            }
        }
        ParameterKind::Int => {
            let mut v = value as i64;
            if ui
                .add(egui::DragValue::new(&mut v).speed(0.1))
                .on_hover_text(
                    "The whole number now, or the one the machine starts with when stopped",
                )
                .changed()
            {
                set(out, ParameterValue::Number(v as f64));
            }
        }
        ParameterKind::Bool => {
            let mut v = value != 0.0;
            let response = ui.checkbox(&mut v, "");
            // Named by its parameter for screen readers and tests (the name is in the field beside it).
            let checked = v;
            response.widget_info(|| {
                egui::WidgetInfo::selected(egui::Role::CheckBox, true, checked, &p.name)
            });
            if response
                .on_hover_text("True or false: now, or at the start when stopped")
                .changed()
            {
                set(out, ParameterValue::Bool(v));
            }
        }
        ParameterKind::Trigger => {
            let set_now = value != 0.0;
            let button = ui.add_enabled(
                live.is_some(),
                egui::Button::new(if set_now { "Fire (set)" } else { "Fire" }),
            );
            if button
                .on_hover_text("Set the trigger: the transition it lets fire consumes it")
                .on_disabled_hover_text("Play the machine to fire triggers")
                .clicked()
            {
                out.push(Command::FireTrigger(p.name.clone()));
            }
        }
    }
    ui.weak(match p.kind {
        ParameterKind::Float => "float",
        ParameterKind::Int => "int",
        ParameterKind::Bool => "bool",
        ParameterKind::Trigger => "trigger",
    });
}

/// The key that fires a trigger.
fn trigger_key(ui: &mut egui::Ui, e: &EditorState, p: &Parameter, out: &mut Commands) {
    let keys = &e.session().machine.trigger_keys;
    let bound = keys.get(&p.name).cloned();
    egui::ComboBox::from_id_salt(("trigger key", &p.name))
        .width(48.0)
        .selected_text(bound.clone().unwrap_or_else(|| "key".into()))
        .show_ui(ui, |ui| {
            if ui.selectable_label(bound.is_none(), "none").clicked() {
                out.push(Command::SetTriggerKey(p.name.clone(), None));
            }
            for k in TRIGGER_KEYS {
                if ui
                    .selectable_label(bound.as_deref() == Some(k), k)
                    .clicked()
                {
                    out.push(Command::SetTriggerKey(p.name.clone(), Some(k.to_string())));
                }
            }
        })
        .response
        .on_hover_text("The key that fires this trigger while the machine plays");
}

/// A drop-down choosing one of the numeric parameters `numbers`, or none (shown as `none`).
fn parameter_choice(
    ui: &mut egui::Ui,
    id: &str,
    chosen: &mut Option<String>,
    numbers: &[&str],
    none: &str,
) -> egui::Response {
    egui::ComboBox::from_id_salt(id)
        .selected_text(chosen.as_deref().unwrap_or(none))
        .show_ui(ui, |ui| {
            ui.selectable_value(chosen, None, none);
            for p in numbers {
                ui.selectable_value(chosen, Some(p.to_string()), *p);
            }
        })
        .response
}

/// A row choosing a state's parameter: `[label, combo id, the choice of none]`, the label's and the choice's
/// hover texts.
fn parameter_row(
    ui: &mut egui::Ui,
    [label, id, none]: [&str; 3],
    label_hover: &str,
    choice_hover: &str,
    chosen: &mut Option<String>,
    options: &[&str],
) {
    ui.horizontal(|ui| {
        ui.label(label).on_hover_text(label_hover);
        parameter_choice(ui, id, chosen, options, none).on_hover_text(choice_hover);
    });
}

/// One line on what the machine holds, for the row a playing machine's state takes.
fn machine_summary(m: &StateMachine) -> String {
    let count = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    let layers = if m.layers.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = m.layers.iter().map(|l| l.name.as_str()).collect();
        format!(
            "; {} above: {}",
            count(m.layers.len(), "layer"),
            names.join(", ")
        )
    };
    format!(
        "{}, {}, {}; entry {}{layers}",
        count(m.states.len(), "state"),
        count(m.transitions.len(), "transition"),
        count(m.parameters.len(), "parameter"),
        if m.entry.is_empty() { "none" } else { &m.entry }
    )
}

/// A condition as the Entry list reads it ("go", "not go", "speed > 0.75", "which = 3").
fn condition_text(c: &crate::graph::Condition) -> String {
    use crate::graph::ConditionMode as M;
    let p = &c.parameter;
    match c.mode {
        M::If => p.clone(),
        M::IfNot => format!("not {p}"),
        M::Greater => format!("{p} > {}", c.threshold),
        M::Less => format!("{p} < {}", c.threshold),
        M::Equals => format!("{p} = {}", c.threshold),
        M::NotEqual => format!("{p} ≠ {}", c.threshold),
    }
}
