//! The transition inspector: Unity's settings, the conditions, the model that blends it, and Unity's preview
//! timeline (the source and destination bars, their overlap, the exit time, duration and offset handles), which
//! scrubs the transition's preview in the viewport.

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, vec2};

use super::StatesPanel;
use crate::app::command::{Command, Commands, Transport};
use crate::app::editor::EditorState;
use crate::graph::machine::{ANY_STATE, EXIT};
use crate::graph::{
    Condition, ConditionMode, InterruptionSource, MachineEdit, ParameterKind, StateMachine,
    Transition, TransitionModel,
};

/// The accessible name of the preview timeline.
pub const TIMELINE_LABEL: &str = "Transition preview timeline";

/// What a drag on the preview timeline moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimelineDrag {
    /// The playhead: scrubs the preview.
    Scrub,
    /// The transition's start (the exit time).
    ExitTime,
    /// The overlap's end (the duration).
    Duration,
    /// The destination bar (the offset), from its start when the drag began.
    Offset(f64),
}

/// Where the timeline's parts fall, in seconds from the source's start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelinePlan {
    /// One loop of the source at its speed.
    pub source_s: f64,
    /// One loop of the destination at its speed.
    pub destination_s: f64,
    /// The transition's start.
    pub start: f64,
    /// The blend's length.
    pub duration: f64,
    /// Where the destination's time 0 falls.
    pub destination_start: f64,
}

impl TimelinePlan {
    /// The plan of `t` for states whose loops last `source_s` and `destination_s` seconds (Unity's: a transition
    /// without exit time is shown starting at 0).
    pub fn new(t: &Transition, source_s: f64, destination_s: f64) -> Self {
        let start = if t.has_exit_time {
            t.exit_time * source_s
        } else {
            0.0
        };
        let duration = if t.fixed_duration {
            t.duration
        } else {
            t.duration * source_s
        };
        TimelinePlan {
            source_s,
            destination_s,
            start,
            duration,
            destination_start: start - t.offset * destination_s,
        }
    }

    /// The seconds the timeline spans (from, to).
    pub fn span(&self) -> (f64, f64) {
        let end = (self.start + self.duration).max(self.source_s);
        let lo = self.destination_start.min(0.0);
        let hi = (end + 0.25 * self.destination_s)
            .max(self.destination_start + self.destination_s)
            .max(lo + 1e-3);
        (lo, hi)
    }
}

impl StatesPanel {
    /// The selected transition's settings, conditions and preview timeline.
    pub(super) fn transition(
        &mut self,
        ui: &mut egui::Ui,
        e: &EditorState,
        m: &StateMachine,
        i: usize,
        out: &mut Commands,
    ) {
        let Some(t) = m.transitions.get(i) else {
            return;
        };
        let from = if t.from == ANY_STATE {
            "Any State"
        } else {
            &t.from
        };
        let to = if t.to == EXIT { "Exit" } else { &t.to };
        ui.horizontal(|ui| {
            ui.strong(format!("{from} -> {to}"));
            if ui
                .small_button("Up")
                .on_hover_text("Earlier among its source's transitions: tested first")
                .clicked()
            {
                out.push(Command::EditMachine(MachineEdit::ReorderTransition(
                    i, true,
                )));
            }
            if ui
                .small_button("Down")
                .on_hover_text("Later among its source's transitions")
                .clicked()
            {
                out.push(Command::EditMachine(MachineEdit::ReorderTransition(
                    i, false,
                )));
            }
            if ui
                .button("Delete")
                .on_hover_text("Delete the transition")
                .clicked()
            {
                out.push(Command::EditMachine(MachineEdit::RemoveTransition(i)));
                self.selected = None;
            }
        });
        let mut n = t.clone();
        settings(ui, &mut n);
        conditions(ui, m, &mut n);
        if n != *t {
            out.push(Command::EditMachine(MachineEdit::SetTransition(
                i,
                Box::new(n),
            )));
        }
        ui.separator();
        self.timeline(ui, e, m, i, out);
    }

    fn timeline(
        &mut self,
        ui: &mut egui::Ui,
        e: &EditorState,
        m: &StateMachine,
        i: usize,
        out: &mut Commands,
    ) {
        let t = &m.transitions[i];
        let state_of = |name: &str| {
            if name == ANY_STATE || name == EXIT {
                m.state_index(&m.entry)
            } else {
                m.state_index(name)
            }
        };
        let lengths = (
            state_of(&t.from).and_then(|s| self.state_seconds(e, s)),
            state_of(&t.to).and_then(|s| self.state_seconds(e, s)),
        );
        let (Some(source_s), Some(destination_s)) = lengths else {
            ui.label("The preview needs both states' motions: a clip the character has, or a blend space.");
            return;
        };
        let plan = TimelinePlan::new(t, source_s, destination_s);
        ui.horizontal(|ui| {
            ui.label("Preview");
            if ui
                .button("Play preview")
                .on_hover_text("Play the transition in the viewport from the source's start")
                .clicked()
            {
                out.push(Command::PreviewTransition {
                    transition: i,
                    time: 0.0,
                });
                out.push(Command::Transport(Transport::Play));
            }
        });
        // The visible width: the inspector scrolls sideways, and a timeline wider than it would hide its end.
        let visible = ui.clip_rect().right() - ui.cursor().left() - 8.0;
        let width = ui.available_width().min(visible).max(200.0);
        let (rect, response) = ui.allocate_exact_size(vec2(width, 76.0), Sense::click_and_drag());
        response
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, TIMELINE_LABEL));
        let response = crate::app::widgets::tooltip_unless_dragged(
            response,
            "Click or drag the top strip to scrub the preview in the viewport; drag the blue lines to change the \
             exit time (start) and the duration (end); drag the lower bar to change the offset",
        );
        let (lo, hi) = plan.span();
        let x_of = |s: f64| rect.left() + ((s - lo) / (hi - lo)) as f32 * rect.width();
        let s_of = |x: f32| lo + f64::from((x - rect.left()) / rect.width()) * (hi - lo);
        let ruler = Rect::from_min_max(rect.min, Pos2::new(rect.right(), rect.top() + 16.0));
        let source_row = Rect::from_min_max(
            Pos2::new(rect.left(), rect.top() + 20.0),
            Pos2::new(rect.right(), rect.top() + 44.0),
        );
        let destination_row = source_row.translate(vec2(0.0, 28.0));
        let press = ui.input(|x| x.pointer.press_origin());
        if response.drag_started()
            && let Some(p) = press.or(response.interact_pointer_pos())
        {
            let near = |s: f64| (p.x - x_of(s)).abs() <= 5.0 && p.y > ruler.bottom();
            self.timeline_drag = Some(if near(plan.start + plan.duration) && plan.duration > 0.0 {
                TimelineDrag::Duration
            } else if near(plan.start) {
                TimelineDrag::ExitTime
            } else if destination_row.contains(p) {
                TimelineDrag::Offset(plan.destination_start)
            } else {
                TimelineDrag::Scrub
            });
        }
        let pointer = response.interact_pointer_pos();
        if let Some(p) = pointer
            && (response.dragged() || response.clicked())
        {
            let at = s_of(p.x);
            let mut n = t.clone();
            match self.timeline_drag.filter(|_| response.dragged()) {
                Some(TimelineDrag::ExitTime) => {
                    n.has_exit_time = true;
                    n.exit_time = (at / plan.source_s).max(0.0);
                }
                Some(TimelineDrag::Duration) => {
                    let d = (at - plan.start).max(0.0);
                    n.duration = if n.fixed_duration {
                        d
                    } else {
                        d / plan.source_s
                    };
                }
                Some(TimelineDrag::Offset(start)) => {
                    let press_s = s_of(press.map_or(p.x, |q| q.x));
                    let moved = start + (at - press_s);
                    n.offset = ((plan.start - moved) / plan.destination_s).clamp(0.0, 1.0);
                }
                _ => out.push(Command::PreviewTransition {
                    transition: i,
                    time: at.max(0.0) as f32,
                }),
            }
            if n != *t {
                out.push(Command::EditMachine(MachineEdit::SetTransition(
                    i,
                    Box::new(n),
                )));
            }
        }
        if response.drag_stopped() {
            self.timeline_drag = None;
        }
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 2.0, Color32::from_gray(28));
        // A tick per tenth of a second, labelled every half second; over 4 s a tick per second, each labelled.
        let (step, every) = if hi - lo > 4.0 {
            (1.0, 1.0)
        } else {
            (0.1, 0.5)
        };
        let mut s = (lo / step).ceil() * step;
        while s <= hi {
            let x = x_of(s);
            let tall = ((s / every).round() * every - s).abs() < 1e-6;
            painter.line_segment(
                [
                    Pos2::new(x, ruler.bottom() - if tall { 8.0 } else { 4.0 }),
                    Pos2::new(x, ruler.bottom()),
                ],
                Stroke::new(1.0, Color32::from_gray(120)),
            );
            if tall {
                painter.text(
                    Pos2::new(x + 2.0, ruler.top()),
                    Align2::LEFT_TOP,
                    format!("{s:.1}"),
                    FontId::monospace(9.0),
                    Color32::from_gray(160),
                );
            }
            s += step;
        }
        let bar = |row: Rect, a: f64, b: f64, fill: Color32, name: &str, every: f64| {
            let r = Rect::from_min_max(
                Pos2::new(x_of(a), row.top()),
                Pos2::new(x_of(b), row.bottom()),
            );
            painter.rect_filled(r, 2.0, fill);
            let mut k = a + every;
            while every > 0.0 && k < b {
                painter.line_segment(
                    [
                        Pos2::new(x_of(k), row.top()),
                        Pos2::new(x_of(k), row.bottom()),
                    ],
                    Stroke::new(1.0, Color32::from_gray(20)),
                );
                k += every;
            }
            painter.text(
                r.left_center() + vec2(4.0, 0.0),
                Align2::LEFT_CENTER,
                name,
                FontId::proportional(11.0),
                Color32::WHITE,
            );
        };
        let end = plan.start + plan.duration;
        bar(
            source_row,
            0.0,
            end.max(plan.source_s),
            Color32::from_rgb(70, 90, 120),
            &t.from.replace(ANY_STATE, "(entry state)"),
            plan.source_s,
        );
        bar(
            destination_row,
            plan.destination_start,
            (plan.destination_start + plan.destination_s).max(end + 0.25 * plan.destination_s),
            Color32::from_rgb(90, 110, 70),
            &t.to.replace(EXIT, "(entry state)"),
            plan.destination_s,
        );
        // The overlap, with the destination's weight rising across it.
        let overlap = Rect::from_min_max(
            Pos2::new(x_of(plan.start), source_row.top()),
            Pos2::new(x_of(end), destination_row.bottom()),
        );
        painter.rect_filled(
            overlap,
            0.0,
            Color32::from_rgba_unmultiplied(120, 160, 255, 50),
        );
        painter.line_segment(
            [overlap.left_top(), overlap.right_bottom()],
            Stroke::new(1.5, Color32::from_rgb(120, 160, 255)),
        );
        for s in [plan.start, end] {
            let x = x_of(s);
            painter.line_segment(
                [
                    Pos2::new(x, source_row.top()),
                    Pos2::new(x, destination_row.bottom()),
                ],
                Stroke::new(2.0, Color32::from_rgb(120, 160, 255)),
            );
        }
        if e.machine_preview() == Some(i) {
            let x = x_of(f64::from(e.eval().time()));
            painter.line_segment(
                [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
                Stroke::new(1.5, Color32::from_rgb(250, 80, 80)),
            );
        }
    }
}

/// Unity's transition settings, and the model with its own setting.
fn settings(ui: &mut egui::Ui, n: &mut Transition) {
    egui::Grid::new("transition settings")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Model").on_hover_text(
                "How the two states blend: Unity's crossfade (an interruption freezes the blended pose), Godot 4's \
                 (no automatic transition while fading, an xfade curve), inertialization (Bollo) or dead \
                 blending (Holden)",
            );
            choose(
                ui,
                "transition model",
                &mut n.model,
                &TransitionModel::ALL,
                TransitionModel::label,
                "How the two states blend",
            );
            ui.end_row();
            ui.checkbox(&mut n.has_exit_time, "Has Exit Time").on_hover_text(
                "Wait for the source's normalised time: below 1 tested every loop, from 1 on once",
            );
            ui.add_enabled(
                n.has_exit_time,
                egui::DragValue::new(&mut n.exit_time)
                    .range(0.0..=100.0)
                    .speed(0.01)
                    .prefix("Exit Time "),
            )
            .on_hover_text("In the source's normalised time (3.5: after three and a half loops)");
            ui.end_row();
            ui.checkbox(&mut n.fixed_duration, "Fixed Duration")
                .on_hover_text("The duration in seconds; off: a fraction of the source state's length");
            ui.add(
                egui::DragValue::new(&mut n.duration)
                    .range(0.0..=100.0)
                    .speed(0.01)
                    .prefix("Duration ")
                    .suffix(if n.fixed_duration { " s" } else { " ×" }),
            )
            .on_hover_text("How long the blend takes: seconds, or a fraction of the source's length");
            ui.end_row();
            ui.label("Offset").on_hover_text("The destination's normalised time when it starts");
            ui.add(egui::DragValue::new(&mut n.offset).range(0.0..=1.0).speed(0.01))
                .on_hover_text("The destination's normalised time when it starts");
            ui.end_row();
            ui.label("Interruption Source")
                .on_hover_text("Which transitions may interrupt this one while it runs");
            choose(
                ui,
                "interruption source",
                &mut n.interruption_source,
                &[
                    InterruptionSource::None,
                    InterruptionSource::Current,
                    InterruptionSource::Next,
                    InterruptionSource::CurrentThenNext,
                    InterruptionSource::NextThenCurrent,
                ],
                interruption_name,
                "Which transitions may interrupt this one while it runs",
            );
            ui.end_row();
            let current = matches!(
                n.interruption_source,
                InterruptionSource::Current
                    | InterruptionSource::CurrentThenNext
                    | InterruptionSource::NextThenCurrent
            );
            ui.add_enabled(current, egui::Checkbox::new(&mut n.ordered_interruption, "Ordered Interruption"))
                .on_hover_text("Only the source state's transitions above this one in its list interrupt");
            ui.add_enabled(
                n.from == ANY_STATE,
                egui::Checkbox::new(&mut n.can_transition_to_self, "Can Transition To Self"),
            )
            .on_hover_text("From Any State: may fire while its destination already plays");
            ui.end_row();
            match n.model {
                TransitionModel::DeadBlending => {
                    ui.label("Half-life").on_hover_text(
                        "Seconds in which the source's extrapolated velocity halves",
                    );
                    ui.add(
                        egui::DragValue::new(&mut n.halflife)
                            .range(0.0..=10.0)
                            .speed(0.005)
                            .suffix(" s"),
                    )
                    .on_hover_text("Seconds in which the source's extrapolated velocity halves");
                    ui.end_row();
                }
                TransitionModel::Godot => {
                    ui.label("Xfade curve").on_hover_text(
                        "How the destination's weight follows the fade's progress",
                    );
                    let shapes = [("Linear", Vec::new()), ("Ease in-out", smoothstep_curve())];
                    let shown = shapes
                        .iter()
                        .find(|(_, c)| *c == n.xfade_curve)
                        .map_or("Custom (from the preset)", |(name, _)| name);
                    egui::ComboBox::from_id_salt("xfade curve")
                        .selected_text(shown)
                        .show_ui(ui, |ui| {
                            for (name, curve) in shapes {
                                if ui.selectable_label(n.xfade_curve == curve, name).clicked() {
                                    n.xfade_curve = curve;
                                }
                            }
                        })
                        .response
                        .on_hover_text("The destination's weight against the fade's progress");
                    ui.end_row();
                }
                _ => {}
            }
        });
}

/// A combo box setting `value` to one of `options`, each shown by `name`.
fn choose<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    id: &str,
    value: &mut T,
    options: &[T],
    name: fn(T) -> &'static str,
    tip: &str,
) {
    egui::ComboBox::from_id_salt(id)
        .selected_text(name(*value))
        .show_ui(ui, |ui| {
            for &o in options {
                ui.selectable_value(value, o, name(o));
            }
        })
        .response
        .on_hover_text(tip);
}

/// Smoothstep sampled at nine points: Godot's ease-in-out as an xfade curve.
fn smoothstep_curve() -> Vec<[f64; 2]> {
    (0..=8)
        .map(|k| {
            let x = f64::from(k) / 8.0;
            [x, x * x * (3.0 - 2.0 * x)]
        })
        .collect()
}

/// The conditions, one row each: parameter, test and threshold.
fn conditions(ui: &mut egui::Ui, m: &StateMachine, n: &mut Transition) {
    ui.label("Conditions").on_hover_text(
        "All must hold for the transition to fire (with an exit time, at the exit time)",
    );
    let mut remove = None;
    for (k, c) in n.conditions.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            egui::ComboBox::from_id_salt(("condition parameter", k))
                .selected_text(c.parameter.as_str())
                .show_ui(ui, |ui| {
                    for p in &m.parameters {
                        if ui
                            .selectable_label(p.name == c.parameter, &p.name)
                            .clicked()
                        {
                            c.parameter = p.name.clone();
                            c.mode = modes(p.kind)[0];
                        }
                    }
                })
                .response
                .on_hover_text("The parameter the condition tests");
            let kind = m
                .parameter_index(&c.parameter)
                .map(|p| m.parameters[p].kind);
            if let Some(kind) = kind {
                egui::ComboBox::from_id_salt(("condition mode", k))
                    .selected_text(mode_name(c.mode))
                    .show_ui(ui, |ui| {
                        for mode in modes(kind) {
                            ui.selectable_value(&mut c.mode, *mode, mode_name(*mode));
                        }
                    })
                    .response
                    .on_hover_text("The test");
                if !matches!(c.mode, ConditionMode::If | ConditionMode::IfNot) {
                    let speed = if kind == ParameterKind::Int {
                        1.0
                    } else {
                        0.01
                    };
                    ui.add(egui::DragValue::new(&mut c.threshold).speed(speed))
                        .on_hover_text("What the parameter is compared with");
                    if kind == ParameterKind::Int {
                        c.threshold = c.threshold.trunc();
                    }
                }
            } else {
                ui.colored_label(Color32::LIGHT_RED, "no such parameter");
            }
            if ui
                .small_button("x")
                .on_hover_text("Remove the condition")
                .clicked()
            {
                remove = Some(k);
            }
        });
    }
    if let Some(k) = remove {
        n.conditions.remove(k);
    }
    let add = ui.add_enabled(!m.parameters.is_empty(), egui::Button::new("+ Condition"));
    if add
        .on_hover_text("Test a parameter (make one under Parameters first)")
        .on_disabled_hover_text("Add a parameter first")
        .clicked()
        && let Some(p) = m.parameters.first()
    {
        n.conditions.push(Condition {
            parameter: p.name.clone(),
            mode: modes(p.kind)[0],
            threshold: 0.0,
        });
    }
}

/// The tests a parameter of `kind` can take (Unity's list per type).
fn modes(kind: ParameterKind) -> &'static [ConditionMode] {
    match kind {
        ParameterKind::Float => &[ConditionMode::Greater, ConditionMode::Less],
        ParameterKind::Int => &[
            ConditionMode::Greater,
            ConditionMode::Less,
            ConditionMode::Equals,
            ConditionMode::NotEqual,
        ],
        ParameterKind::Bool => &[ConditionMode::If, ConditionMode::IfNot],
        ParameterKind::Trigger => &[ConditionMode::If],
    }
}

fn mode_name(m: ConditionMode) -> &'static str {
    match m {
        ConditionMode::If => "true",
        ConditionMode::IfNot => "false",
        ConditionMode::Greater => "Greater",
        ConditionMode::Less => "Less",
        ConditionMode::Equals => "Equals",
        ConditionMode::NotEqual => "NotEqual",
    }
}

fn interruption_name(s: InterruptionSource) -> &'static str {
    match s {
        InterruptionSource::None => "None",
        InterruptionSource::Current => "Current State",
        InterruptionSource::Next => "Next State",
        InterruptionSource::CurrentThenNext => "Current State Then Next State",
        InterruptionSource::NextThenCurrent => "Next State Then Current State",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unity's preview: the transition starts at exit time × the source's length, a normalised duration is a
    /// fraction of the source, and the destination bar starts `offset` of its length before the start.
    #[test]
    fn the_timeline_places_the_bars_as_unitys_preview() {
        let t = Transition {
            exit_time: 0.5,
            fixed_duration: false,
            duration: 0.25,
            offset: 0.2,
            ..Transition::default()
        };
        let p = TimelinePlan::new(&t, 2.0, 1.5);
        assert_eq!((p.start, p.duration), (1.0, 0.5));
        assert!((p.destination_start - (1.0 - 0.3)).abs() < 1e-12);
        let fixed = TimelinePlan::new(
            &Transition {
                has_exit_time: false,
                ..Transition::default()
            },
            2.0,
            1.0,
        );
        assert_eq!((fixed.start, fixed.duration), (0.0, 0.25));
    }
}
