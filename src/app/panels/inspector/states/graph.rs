//! The state machine's graph view, drawn with egui's painter as Unity's Animator window draws it: states as
//! boxes, Entry, Any State and Exit beside them, transitions as arrows with their head halfway. Drag a state to
//! move it, drag from a state's dot onto another to connect them, drag the empty canvas to pan; right-click for
//! Create State, Make Transition, Set as Entry, Rename and Delete; Delete removes the selection. Each sub-state
//! machine is a frame around its states; a click on its name folds it into one node (as Unity draws a
//! sub-machine), which takes the arrows to and from its states, and a double-click on the node opens it again.
//!
//! A state machine's graph is states joined by arrows, not a data flow of typed pins, so the node-graph crates
//! for egui (whose nodes are pins and wires) do not fit it; the painter does.

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2, pos2, vec2};

use super::{Selected, StatesPanel};
use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;
use crate::graph::edit::{clip_state, free_state_name};
use crate::graph::machine::{ANY_STATE, EXIT};
use crate::graph::{MachineEdit, MachinePlayer, StateMachine};

/// A state's box, in points.
pub const NODE: Vec2 = vec2(124.0, 34.0);
/// Where graph units' origin sits from the canvas's corner before any pan: right of the Entry, Any State and
/// Exit column.
pub const MARGIN: Vec2 = vec2(NODE.x + 70.0, 20.0);
/// The connect dot's radius at zoom 1, on a box's right edge; it scales with the boxes.
const DOT: f32 = 6.0;
/// How near an arrow a click selects it.
const ARROW_PICK: f32 = 6.0;
/// The accessible name of the graph canvas.
pub const GRAPH_LABEL: &str = "State machine graph";

/// Something drawn in the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// A state, by index.
    State(usize),
    /// Where the machine starts.
    Entry,
    /// Transitions that may fire from any state.
    Any,
    /// Leaving the machine (back to its entry).
    Exit,
    /// A folded sub-state machine, by its index among the layout's folded ones.
    Group(usize),
}

/// What a drag on the canvas does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GraphDrag {
    /// Moves a state; the offset from the pointer to the state's corner.
    Move(usize, Vec2),
    /// Draws a new transition from a state or Any State.
    Connect(Node),
    /// Moves the view.
    Pan,
}

/// The graph canvas's id: focused after a drag on it (its Delete key), it is not a field being typed in, so an
/// edit on it closes its undo step when the pointer is released.
pub fn graph_canvas_id() -> egui::Id {
    egui::Id::unique("animtune_state_graph")
}

/// The graph's smallest canvas (points): a smaller pane clips it.
const MIN_GRAPH: Vec2 = vec2(80.0, 48.0);

/// The graph view's zoom limits.
pub const ZOOM: std::ops::RangeInclusive<f32> = 0.15..=2.0;

/// Where state `i`'s box lies on the screen in a graph canvas drawn at `canvas`, the view moved by `pan` and
/// scaled by `zoom`.
pub fn state_rect(m: &StateMachine, i: usize, canvas: Rect, pan: Vec2, zoom: f32) -> Rect {
    node_rect(m, Node::State(i), canvas, pan, zoom)
}

/// Where `node`'s box lies on the screen (see [`state_rect`]).
pub fn node_rect(m: &StateMachine, node: Node, canvas: Rect, pan: Vec2, zoom: f32) -> Rect {
    Layout::new(m, canvas.min.to_vec2() + MARGIN + pan, zoom, &Folded::new()).rect(node)
}

/// The sub-state machines folded into one node each, by path ("Fast", "Fast/Turns").
pub type Folded = std::collections::BTreeSet<String>;

/// A state's corner in graph units: where it was placed, else a grid by index.
pub fn state_position(m: &StateMachine, i: usize) -> Pos2 {
    match m.states.get(i).and_then(|s| s.position) {
        Some([x, y]) => pos2(x, y),
        None => pos2(
            (i % 3) as f32 * (NODE.x + 30.0),
            (i / 3) as f32 * (NODE.y + 36.0),
        ),
    }
}

/// Where the fixed nodes sit, left of the states (graph units).
pub fn fixed_position(node: Node) -> Pos2 {
    let x = -NODE.x - 50.0;
    match node {
        Node::Entry => pos2(x, 0.0),
        Node::Any => pos2(x, NODE.y + 36.0),
        _ => pos2(x, 2.0 * (NODE.y + 36.0)),
    }
}

/// The graph as placed on the screen.
struct Layout<'a> {
    m: &'a StateMachine,
    /// Where graph units' origin is on the screen.
    origin: Vec2,
    /// Screen points per graph unit.
    zoom: f32,
    /// The folded sub-machines that hold states (an outer one only, where both an outer and an inner one are
    /// folded), and per state the one it is hidden in.
    folded: Vec<&'a str>,
    hidden: Vec<Option<usize>>,
}

/// Whether a state in sub-machine `group` sits in `folded` (it, or a sub-machine of it).
fn within(group: &str, folded: &str) -> bool {
    group == folded
        || group
            .strip_prefix(folded)
            .is_some_and(|rest| rest.starts_with('/'))
}

impl<'a> Layout<'a> {
    fn new(m: &'a StateMachine, origin: Vec2, zoom: f32, folded: &'a Folded) -> Self {
        let groups = || m.states.iter().filter_map(|s| s.group.as_deref());
        let mut shown: Vec<&'a str> = folded
            .iter()
            .map(String::as_str)
            .filter(|f| groups().any(|g| within(g, f)))
            .collect();
        let outer: Vec<&'a str> = shown.clone();
        shown.retain(|f| !outer.iter().any(|o| o != f && within(f, o)));
        let hidden = m
            .states
            .iter()
            .map(|s| {
                let g = s.group.as_deref()?;
                shown.iter().position(|f| within(g, f))
            })
            .collect();
        Layout {
            m,
            origin,
            zoom,
            folded: shown,
            hidden,
        }
    }

    /// What a node is drawn as: a state hidden in a folded sub-machine is drawn as that sub-machine.
    fn shown(&self, node: Node) -> Node {
        match node {
            Node::State(i) => self
                .hidden
                .get(i)
                .copied()
                .flatten()
                .map_or(node, Node::Group),
            other => other,
        }
    }

    fn rect(&self, node: Node) -> Rect {
        let corner = match self.shown(node) {
            Node::State(i) => state_position(self.m, i),
            // A folded sub-machine stands where its top-left state stood.
            Node::Group(k) => (0..self.m.states.len())
                .filter(|&i| self.hidden[i] == Some(k))
                .map(|i| state_position(self.m, i))
                .fold(pos2(f32::INFINITY, f32::INFINITY), |a, b| a.min(b)),
            other => fixed_position(other),
        };
        Rect::from_min_size(corner * self.zoom + self.origin, NODE * self.zoom)
    }

    /// A folded sub-machine's name (its path's last part) and how many states it hides.
    fn group_label(&self, k: usize) -> String {
        let path = self.folded.get(k).copied().unwrap_or("");
        let states = self.hidden.iter().filter(|&&h| h == Some(k)).count();
        format!(
            "{} » {states} state{}",
            path.rsplit('/').next().unwrap_or(path),
            if states == 1 { "" } else { "s" }
        )
    }

    /// A screen point in graph units.
    fn to_graph(&self, p: Pos2) -> Vec2 {
        (p.to_vec2() - self.origin) / self.zoom
    }

    fn nodes(&self) -> impl Iterator<Item = Node> + '_ {
        [Node::Entry, Node::Any, Node::Exit]
            .into_iter()
            .chain((0..self.folded.len()).map(Node::Group))
            .chain(
                (0..self.m.states.len())
                    .filter(|&i| self.hidden[i].is_none())
                    .map(Node::State),
            )
    }

    /// The topmost node under `pos` (states drawn last are on top).
    fn node_at(&self, pos: Pos2) -> Option<Node> {
        let nodes: Vec<Node> = self.nodes().collect();
        nodes
            .into_iter()
            .rev()
            .find(|&n| self.rect(n).contains(pos))
    }

    /// Each sub-state machine's frame on the screen: around its states, padded, with room above them for its name.
    fn group_frames(&self) -> Vec<(&'a str, Rect)> {
        let mut out: Vec<(&'a str, Rect)> = Vec::new();
        for (i, s) in self.m.states.iter().enumerate() {
            let Some(group) = s.group.as_deref().filter(|_| self.hidden[i].is_none()) else {
                continue;
            };
            let r = self.rect(Node::State(i));
            match out.iter_mut().find(|(name, _)| *name == group) {
                Some((_, frame)) => *frame = frame.union(r),
                None => out.push((group, r)),
            }
        }
        let (pad, label) = (10.0 * self.zoom, 18.0 * self.zoom);
        for (_, frame) in &mut out {
            *frame = Rect::from_min_max(
                frame.min - vec2(pad, pad + label),
                frame.max + vec2(pad, pad),
            );
        }
        out
    }

    /// The sub-machine whose frame's name is under `pos` (where a click folds it).
    fn frame_title_at(&self, pos: Pos2) -> Option<&'a str> {
        let label = 18.0 * self.zoom;
        self.group_frames()
            .into_iter()
            .find(|(_, frame)| {
                Rect::from_min_max(frame.min, pos2(frame.max.x, frame.min.y + label)).contains(pos)
            })
            .map(|(name, _)| name)
    }

    /// How the marks drawn on the graph (connect dots, arrowheads) scale at this zoom: with the boxes, within
    /// bounds, so framed small they never hide the states.
    fn mark_scale(&self) -> f32 {
        self.zoom.clamp(0.25, 2.0)
    }

    /// The connect dot's radius at this zoom.
    fn dot_radius(&self) -> f32 {
        DOT * self.mark_scale()
    }

    /// A node's connect dot (states and Any State have one).
    fn dot(&self, node: Node) -> Option<Pos2> {
        matches!(node, Node::State(_) | Node::Any).then(|| self.rect(node).right_center())
    }

    /// The nodes a transition is drawn between (a folded sub-machine for a state hidden in it).
    fn transition_ends(&self, i: usize) -> Option<(Node, Node)> {
        let t = self.m.transitions.get(i)?;
        let from = if t.from == ANY_STATE {
            Node::Any
        } else {
            Node::State(self.m.state_index(&t.from)?)
        };
        let to = if t.to == EXIT {
            Node::Exit
        } else {
            Node::State(self.m.state_index(&t.to)?)
        };
        Some((self.shown(from), self.shown(to)))
    }

    /// An arrow's segment on the screen: between the boxes' centres, moved aside when the opposite arrow
    /// exists too, so that both show; a transition to its own state is a loop above the box.
    fn arrow(&self, i: usize) -> Option<[Pos2; 2]> {
        let (from, to) = self.transition_ends(i)?;
        let (a, b) = (self.rect(from).center(), self.rect(to).center());
        // Inside a folded sub-machine: not drawn.
        if from == to && matches!(from, Node::Group(_)) {
            return None;
        }
        if from == to {
            let r = self.rect(from);
            return Some([
                r.center_top() + vec2(-20.0, 0.0),
                r.center_top() + vec2(20.0, 0.0),
            ]);
        }
        let both =
            (0..self.m.transitions.len()).any(|k| self.transition_ends(k) == Some((to, from)));
        let side = (b - a).normalized().rot90() * if both { 5.0 } else { 0.0 };
        Some([a + side, b + side])
    }

    fn arrow_at(&self, pos: Pos2) -> Option<usize> {
        (0..self.m.transitions.len())
            .filter_map(|i| Some((i, distance_to_segment(pos, self.arrow(i)?))))
            .filter(|&(_, d)| d <= ARROW_PICK)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

fn distance_to_segment(p: Pos2, [a, b]: [Pos2; 2]) -> f32 {
    let ab = b - a;
    let t = if ab.length_sq() > 0.0 {
        ((p - a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

impl StatesPanel {
    /// The graph as a docked pane (Unity's Animator window), filling it; `frame_all` (the pane's button) or F
    /// over the graph fits every state in view.
    pub fn graph_pane(
        &mut self,
        ui: &mut egui::Ui,
        e: &EditorState,
        out: &mut Commands,
        frame_all: bool,
    ) {
        let Some(base) = e.machine() else {
            ui.label("No state machine: the States tab's New state machine makes one.");
            return;
        };
        if self.layer.is_some_and(|k| k >= base.layers.len()) {
            self.layer = None;
        }
        let shown = self.layer.and_then(|k| base.layer_machine(k));
        let m = shown.as_ref().unwrap_or(base);
        let canvas = ui.available_rect_before_wrap();
        let f_over_graph = ui.rect_contains_pointer(canvas)
            && ui.input(|i| i.key_pressed(egui::Key::F) && i.modifiers.is_none());
        if frame_all || f_over_graph {
            self.frame_all(m, canvas.size().max(MIN_GRAPH));
        }
        if shown.is_some() {
            // A layer is shown, not edited: what the canvas would change is dropped, and the selection (which
            // names the machine's own states) is kept.
            let selected = self.selected.clone();
            self.graph(ui, e, m, &mut Commands::new());
            self.selected = selected;
        } else {
            self.graph(ui, e, m, out);
        }
    }

    /// The drop-down choosing which of the machine's layers the graph shows (nothing when it has none).
    pub fn layer_choice(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        let Some(base) = e.machine().filter(|m| !m.layers.is_empty()) else {
            return;
        };
        if self.layer.is_some_and(|k| k >= base.layers.len()) {
            self.layer = None;
        }
        ui.scope(|ui| {
            ui.label("Layer");
            let name = |k: Option<usize>| match k {
                None => "Base".to_string(),
                Some(k) => {
                    let l = &base.layers[k];
                    match l.synced_to {
                        Some(0) => format!("{} (synced to Base, view only)", l.name),
                        Some(s) if s <= k => {
                            format!("{} (synced to {}, view only)", l.name, base.layers[s - 1].name)
                        }
                        _ => format!("{} (view only)", l.name),
                    }
                }
            };
            egui::ComboBox::from_id_salt("graph layer")
                .selected_text(name(self.layer))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.layer, None, name(None));
                    for k in 0..base.layers.len() {
                        ui.selectable_value(&mut self.layer, Some(k), name(Some(k)));
                    }
                })
                .response
                .on_hover_text(
                    "The machine's own states (edited here), or one of its layers (Unity's Animator layers), shown \
                     live while it plays and edited in the preset. A synced layer shows the states and transitions \
                     of the layer it follows, with its own motions",
                );
            // The shown layer's weight, live (Unity's layer Weight).
            if let Some(k) = self.layer {
                let mut weight = base.layers[k].weight;
                let changed = ui
                    .add(
                        egui::Slider::new(&mut weight, 0.0..=1.0)
                            .text("weight")
                            .fixed_decimals(2),
                    )
                    .on_hover_text(
                        "How much of the layer goes over the layers below it, by its mask (Unity's layer Weight)",
                    )
                    .changed();
                if changed {
                    out.push(Command::EditMachine(MachineEdit::SetLayerWeight {
                        layer: k,
                        weight,
                    }));
                }
            }
        });
    }

    /// Zooms and pans so that every node fits a canvas of `size`, centred.
    pub fn frame_all(&mut self, m: &StateMachine, size: Vec2) {
        let mut bounds = Rect::NOTHING;
        for node in [Node::Entry, Node::Any, Node::Exit]
            .into_iter()
            .chain((0..m.states.len()).map(Node::State))
        {
            let corner = match node {
                Node::State(i) => state_position(m, i),
                other => fixed_position(other),
            };
            bounds = bounds.union(Rect::from_min_size(corner, NODE));
        }
        let room = (size - 2.0 * MARGIN.y * Vec2::splat(1.0)).max(vec2(1.0, 1.0));
        let zoom = (room.x / bounds.width())
            .min(room.y / bounds.height())
            .clamp(*ZOOM.start(), *ZOOM.end());
        self.zoom = zoom;
        // The bounds' centre at the canvas's centre: origin = MARGIN + pan, screen = graph * zoom + origin.
        self.pan = size * 0.5 - bounds.center().to_vec2() * zoom - MARGIN;
    }

    /// Draws the graph of `m` and handles its mouse and keys.
    pub(super) fn graph(
        &mut self,
        ui: &mut egui::Ui,
        e: &EditorState,
        m: &StateMachine,
        out: &mut Commands,
    ) {
        let size = ui.available_size().max(MIN_GRAPH);
        let (rect, _) = ui.allocate_exact_size(size, Sense::hover());
        let response = ui.interact(rect, graph_canvas_id(), Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, GRAPH_LABEL));
        let response = crate::app::widgets::tooltip_unless_dragged(
            response,
            "Drag a state to move it; drag from its dot onto another state to connect them; drag the empty \
             canvas to pan, scroll to zoom. Right-click for Create State, Make Transition, Set as Entry, Rename, \
             Delete. Click a sub-machine's name to fold it into one node; double-click the node to open it.",
        );
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 2.0, Color32::from_gray(30));
        // The wheel (or a pinch) zooms about the pointer: the graph point under it stays under it.
        let zoom = self.zoom();
        if let Some(at) = response.hover_pos() {
            let (scroll, pinch) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
            let factor = (scroll * 0.002).exp() * pinch;
            if factor != 1.0 {
                let new = (zoom * factor).clamp(*ZOOM.start(), *ZOOM.end());
                let origin = rect.min.to_vec2() + MARGIN + self.pan;
                let fixed = (at.to_vec2() - origin) / zoom;
                self.pan += (at.to_vec2() - fixed * new) - origin;
                self.zoom = new;
            }
        }
        // A copy: a click below folds or opens a sub-machine for the next frame.
        let folded = self.folded.clone();
        let layout = Layout::new(
            m,
            rect.min.to_vec2() + MARGIN + self.pan,
            self.zoom(),
            &folded,
        );
        let press = ui.input(|i| i.pointer.press_origin());
        if response.drag_started()
            && let Some(pos) = press.or(response.interact_pointer_pos())
        {
            response.request_focus();
            let on_dot = layout.nodes().find(|&n| {
                layout
                    .dot(n)
                    .is_some_and(|d| d.distance(pos) <= layout.dot_radius() + 2.0)
            });
            self.drag = Some(match (on_dot, layout.node_at(pos)) {
                (Some(n), _) => GraphDrag::Connect(n),
                (None, Some(Node::State(i))) => {
                    self.selected = Some(Selected::State(m.states[i].name.clone()));
                    GraphDrag::Move(i, layout.rect(Node::State(i)).min - pos)
                }
                _ => GraphDrag::Pan,
            });
        }
        let pointer = response.interact_pointer_pos();
        if response.dragged()
            && let (Some(drag), Some(pos)) = (self.drag, pointer)
        {
            match drag {
                GraphDrag::Move(i, grab) => {
                    let corner = layout.to_graph(pos + grab);
                    out.push(Command::EditMachine(MachineEdit::MoveState {
                        name: m.states[i].name.clone(),
                        position: [corner.x.round(), corner.y.round()],
                    }));
                }
                GraphDrag::Pan => self.pan += response.drag_delta(),
                GraphDrag::Connect(_) => {}
            }
        }
        if response.drag_stopped() {
            if let (Some(GraphDrag::Connect(from)), Some(pos)) = (self.drag, pointer) {
                self.connect(m, from, layout.node_at(pos), out);
            }
            self.drag = None;
        }
        if response.double_clicked()
            && let Some(Node::Group(k)) = pointer.and_then(|p| layout.node_at(p))
        {
            self.folded.remove(layout.folded[k]);
        } else if response.clicked()
            && let Some(pos) = pointer
        {
            response.request_focus();
            let node = layout.node_at(pos);
            if let Some(from) = self.connecting.take() {
                self.connect(m, from, node, out);
            } else if let (None, None, Some(group)) =
                (node, layout.arrow_at(pos), layout.frame_title_at(pos))
            {
                self.folded.insert(group.to_string());
            } else {
                self.selected = match (node, layout.arrow_at(pos)) {
                    (Some(Node::State(i)), _) => Some(Selected::State(m.states[i].name.clone())),
                    (Some(Node::Any), _) => Some(Selected::AnyState),
                    (Some(Node::Entry), _) => Some(Selected::Entry),
                    // A folded sub-machine is not an arrow's end to select through.
                    (Some(Node::Group(_)), _) => None,
                    (_, Some(t)) => Some(Selected::Transition(t)),
                    _ => None,
                };
            }
        }
        if response.secondary_clicked() {
            self.connecting = None;
            self.menu_at = pointer.map(|p| {
                let target = match (layout.node_at(p), layout.arrow_at(p)) {
                    (Some(n), _) => Some(n),
                    (None, Some(t)) => {
                        self.selected = Some(Selected::Transition(t));
                        None
                    }
                    _ => None,
                };
                (layout.to_graph(p), target)
            });
        }
        response.context_menu(|ui| self.context_menu(ui, e, m, out));
        if response.has_focus() && ui.input(|i| i.key_pressed(egui::Key::Delete)) {
            self.delete_selected(m, out);
        }
        if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
            self.connecting = None;
        }
        self.paint(&painter, &layout, e, m, pointer.or(response.hover_pos()));
    }

    /// Adds a transition from `from` to the node dropped on (a state, or Exit), and selects it.
    fn connect(&mut self, m: &StateMachine, from: Node, to: Option<Node>, out: &mut Commands) {
        let from_name = match from {
            Node::State(i) => m.states[i].name.clone(),
            Node::Any => ANY_STATE.to_string(),
            _ => return,
        };
        let to_name = match to {
            Some(Node::State(j)) => m.states[j].name.clone(),
            Some(Node::Exit) if from != Node::Any => EXIT.to_string(),
            _ => return,
        };
        out.push(Command::EditMachine(MachineEdit::AddTransition {
            from: from_name,
            to: to_name,
        }));
        self.selected = Some(Selected::Transition(m.transitions.len()));
    }

    fn delete_selected(&mut self, m: &StateMachine, out: &mut Commands) {
        match self.selected.take() {
            Some(Selected::State(name)) if m.state_index(&name).is_some() => {
                out.push(Command::EditMachine(MachineEdit::RemoveState(name)))
            }
            Some(Selected::Transition(t)) if t < m.transitions.len() => {
                out.push(Command::EditMachine(MachineEdit::RemoveTransition(t)))
            }
            _ => {}
        }
    }

    fn context_menu(
        &mut self,
        ui: &mut egui::Ui,
        e: &EditorState,
        m: &StateMachine,
        out: &mut Commands,
    ) {
        let Some((at, target)) = self.menu_at else {
            ui.close();
            return;
        };
        match target {
            Some(Node::State(i)) => {
                let name = m.states[i].name.clone();
                if ui.button("Make Transition").clicked() {
                    self.connecting = Some(Node::State(i));
                    ui.close();
                }
                if ui
                    .add_enabled(m.entry != name, egui::Button::new("Set as Entry"))
                    .on_hover_text("The state the machine starts in (Unity's Layer Default State)")
                    .clicked()
                {
                    out.push(Command::EditMachine(MachineEdit::SetEntry(name.clone())));
                    ui.close();
                }
                if ui.button("Rename").clicked() {
                    self.selected = Some(Selected::State(name.clone()));
                    self.focus_name = true;
                    ui.close();
                }
                if ui.button("Delete").clicked() {
                    out.push(Command::EditMachine(MachineEdit::RemoveState(name)));
                    ui.close();
                }
            }
            Some(Node::Any) => {
                if ui.button("Make Transition").clicked() {
                    self.connecting = Some(Node::Any);
                    ui.close();
                }
            }
            Some(Node::Group(k)) => {
                if ui
                    .button("Open sub-machine")
                    .on_hover_text("Show its states again (a double-click on it does the same)")
                    .clicked()
                {
                    let path = Layout::new(m, Vec2::ZERO, 1.0, &self.folded)
                        .folded
                        .get(k)
                        .map(|p| p.to_string());
                    if let Some(path) = path {
                        self.folded.remove(&path);
                    }
                    ui.close();
                }
            }
            Some(_) => {
                ui.label("Entry and Exit are part of every machine");
            }
            None => {
                if let Some(Selected::Transition(t)) = self.selected.clone()
                    && t < m.transitions.len()
                    && ui.button("Delete Transition").clicked()
                {
                    out.push(Command::EditMachine(MachineEdit::RemoveTransition(t)));
                    ui.close();
                }
                ui.menu_button("Create State", |ui| {
                    let position = [at.x.round(), at.y.round()];
                    if ui
                        .button("Blend Space (the Blend tab's)")
                        .on_hover_text(
                            "A state playing a copy of the blend space the Blend tab edits",
                        )
                        .clicked()
                    {
                        let mut s = clip_state(&free_state_name(m, "Blend Tree"), "", position);
                        s.clip = None;
                        s.blend_space = Some(e.tuning().blend.clone());
                        out.push(Command::EditMachine(MachineEdit::AddState(Box::new(s))));
                        ui.close();
                    }
                    ui.separator();
                    egui::ScrollArea::vertical()
                        .max_height(240.0)
                        .show(ui, |ui| {
                            for c in &e.doc().clips {
                                if ui.button(&c.name).clicked() {
                                    let s =
                                        clip_state(&free_state_name(m, &c.name), &c.name, position);
                                    out.push(Command::EditMachine(MachineEdit::AddState(
                                        Box::new(s),
                                    )));
                                    ui.close();
                                }
                            }
                        });
                });
            }
        }
    }

    fn paint(
        &self,
        painter: &egui::Painter,
        layout: &Layout,
        e: &EditorState,
        m: &StateMachine,
        pointer: Option<Pos2>,
    ) {
        let player = match self.layer {
            Some(k) => e.machine_layer_player(k),
            None => e.machine_player(),
        }
        .filter(|p| p.machine().states == m.states);
        let active = player.and_then(MachinePlayer::active);
        // Each sub-state machine as a frame around its states, named at its top (under everything else).
        let frame_color = Color32::from_gray(110);
        for (name, frame) in layout.group_frames() {
            painter.rect_stroke(
                frame,
                6.0 * layout.mark_scale(),
                Stroke::new(1.0, frame_color),
                egui::StrokeKind::Inside,
            );
            painter.text(
                frame.min + vec2(8.0, 3.0) * layout.zoom,
                Align2::LEFT_TOP,
                name,
                FontId::proportional(12.0 * layout.zoom),
                frame_color,
            );
        }
        // Entry → the entry state, and → each Entry transition's state (thinner: taken only when its conditions
        // hold on entering), as Unity draws them.
        let entry_color = Color32::from_rgb(230, 140, 40);
        let entries = std::iter::once((m.entry.as_str(), 1.5))
            .chain(m.entry_transitions.iter().map(|t| (t.to.as_str(), 1.0)));
        for (to, width) in entries {
            if let Some(i) = m.state_index(to) {
                let (a, b) = (
                    layout.rect(Node::Entry).center(),
                    layout.rect(Node::State(i)).center(),
                );
                arrow(
                    painter,
                    a,
                    b,
                    Stroke::new(width, entry_color),
                    layout.mark_scale(),
                );
            }
        }
        for i in 0..m.transitions.len() {
            let Some([a, b]) = layout.arrow(i) else {
                continue;
            };
            let selected = self.selected == Some(Selected::Transition(i));
            let running = active.is_some_and(|x| x.transition == i);
            let color = if selected {
                Color32::from_rgb(250, 210, 80)
            } else if running {
                Color32::from_rgb(90, 170, 255)
            } else {
                Color32::from_gray(200)
            };
            arrow(
                painter,
                a,
                b,
                Stroke::new(if running { 3.0 } else { 1.5 }, color),
                layout.mark_scale(),
            );
            if running && let Some(x) = active {
                painter.circle_filled(a + (b - a) * x.progress() as f32, 4.0, color);
            }
        }
        for node in layout.nodes() {
            let r = layout.rect(node);
            let (text, fill) = match node {
                Node::Group(k) => (layout.group_label(k), Color32::from_rgb(55, 60, 110)),
                Node::Entry => ("Entry".to_string(), Color32::from_rgb(40, 110, 50)),
                Node::Any => ("Any State".to_string(), Color32::from_rgb(40, 110, 120)),
                Node::Exit => ("Exit".to_string(), Color32::from_rgb(130, 40, 40)),
                Node::State(i) => {
                    let s = &m.states[i];
                    let fill = if s.name == m.entry {
                        Color32::from_rgb(150, 85, 30)
                    } else {
                        Color32::from_gray(70)
                    };
                    (s.name.clone(), fill)
                }
            };
            painter.rect_filled(r, 4.0, fill);
            // A folded sub-machine whose state plays is outlined as a playing state's bar would show it.
            if let (Node::Group(k), Some(p)) = (node, player)
                && layout.hidden.get(p.current()) == Some(&Some(k))
            {
                painter.rect_stroke(
                    r,
                    4.0,
                    Stroke::new(2.0, Color32::from_rgb(90, 170, 255)),
                    egui::StrokeKind::Outside,
                );
            }
            let selected = match (node, &self.selected) {
                (Node::State(i), Some(Selected::State(n))) => m.states[i].name == *n,
                (Node::Any, Some(Selected::AnyState)) => true,
                (Node::Entry, Some(Selected::Entry)) => true,
                _ => false,
            };
            if selected {
                painter.rect_stroke(
                    r,
                    4.0,
                    Stroke::new(2.0, Color32::from_rgb(250, 210, 80)),
                    egui::StrokeKind::Outside,
                );
            }
            painter.text(
                r.center(),
                Align2::CENTER_CENTER,
                text,
                FontId::proportional(13.0 * layout.zoom),
                Color32::WHITE,
            );
            if let Some(d) = layout.dot(node) {
                painter.circle(
                    d,
                    layout.dot_radius(),
                    Color32::from_gray(40),
                    Stroke::new(1.0, Color32::WHITE),
                );
            }
            // Live: the playing states' normalised time as a bar along the bottom, as Unity shows it.
            if let (Node::State(i), Some(p)) = (node, player) {
                let time = if p.current() == i {
                    Some(p.time())
                } else {
                    active.filter(|a| a.to == i).map(|a| a.to_time)
                };
                if let Some(t) = time {
                    let f = if t >= 1.0 && !p.state_info(i).is_some_and(|x| x.looping) {
                        1.0
                    } else {
                        t.rem_euclid(1.0) as f32
                    };
                    let bar = Rect::from_min_size(
                        r.left_bottom() - vec2(0.0, 4.0),
                        vec2(r.width() * f, 4.0),
                    );
                    painter.rect_filled(bar, 0.0, Color32::from_rgb(90, 170, 255));
                }
            }
        }
        if let (Some(from), Some(p)) = (
            self.connecting.or(match self.drag {
                Some(GraphDrag::Connect(n)) => Some(n),
                _ => None,
            }),
            pointer,
        ) {
            // From the dot the drag started on (a transition made from the menu starts there too).
            let a = layout
                .dot(from)
                .unwrap_or_else(|| layout.rect(from).center());
            arrow(
                painter,
                a,
                p,
                Stroke::new(1.5, Color32::WHITE),
                layout.mark_scale(),
            );
        }
    }
}

/// A line from `a` to `b` with its head halfway, pointing to `b` (Unity's arrows), the head `scale` times its size at
/// zoom 1.
fn arrow(painter: &egui::Painter, a: Pos2, b: Pos2, stroke: Stroke, scale: f32) {
    painter.line_segment([a, b], stroke);
    let d = b - a;
    if d.length() < 1.0 {
        return;
    }
    let dir = d.normalized();
    let mid = a + d * 0.5 + dir * 5.0 * scale;
    let side = dir.rot90() * 5.0 * scale;
    let back = mid - dir * 9.0 * scale;
    painter.add(egui::Shape::convex_polygon(
        vec![mid, back + side, back - side],
        stroke.color,
        Stroke::NONE,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_on_an_arrow_finds_it_and_one_beside_it_does_not() {
        let mut m = StateMachine::default();
        for (n, x) in [("A", 0.0), ("B", 300.0)] {
            MachineEdit::AddState(Box::new(clip_state(n, n, [x, 0.0])))
                .apply(&mut m)
                .unwrap();
        }
        MachineEdit::AddTransition {
            from: "A".into(),
            to: "B".into(),
        }
        .apply(&mut m)
        .unwrap();
        let none = Folded::new();
        let layout = Layout::new(&m, Vec2::ZERO, 1.0, &none);
        let mid = pos2(150.0 + NODE.x / 2.0, NODE.y / 2.0);
        assert_eq!(layout.arrow_at(mid), Some(0));
        assert_eq!(layout.arrow_at(mid + vec2(0.0, 12.0)), None);
        assert_eq!(layout.node_at(pos2(5.0, 5.0)), Some(Node::State(0)));
        assert_eq!(layout.dot(Node::State(0)), Some(pos2(NODE.x, NODE.y / 2.0)));
    }

    /// A machine of clip states, each (name, x, y, the sub-machine it sits in).
    fn grouped(states: &[(&str, f32, f32, Option<&str>)]) -> StateMachine {
        let mut m = StateMachine::default();
        for &(n, x, y, group) in states {
            let mut s = clip_state(n, n, [x, y]);
            s.group = group.map(str::to_string);
            m.states.push(s);
        }
        m
    }

    #[test]
    fn a_sub_machines_frame_holds_its_states_and_no_other() {
        let m = grouped(&[
            ("A", 0.0, 0.0, None),
            ("B", 0.0, 120.0, Some("Sub")),
            ("C", 160.0, 120.0, Some("Sub")),
        ]);
        let none = Folded::new();
        let layout = Layout::new(&m, Vec2::ZERO, 1.0, &none);
        let frames = layout.group_frames();
        assert_eq!(frames.len(), 1);
        let (name, frame) = frames[0];
        assert_eq!(name, "Sub");
        for (i, inside) in [(0, false), (1, true), (2, true)] {
            let r = layout.rect(Node::State(i));
            assert_eq!(frame.contains_rect(r), inside, "{i}");
            assert_eq!(frame.intersects(r), inside, "{i}");
        }
    }

    /// Folded, a sub-machine is one node where its top-left state stood: its states are not drawn, the arrows
    /// to and from them meet the node, those between them are not drawn, and its frame goes; a sub-machine
    /// inside a folded one folds with it.
    #[test]
    fn a_folded_sub_machine_is_one_node_that_takes_its_states_arrows() {
        let mut m = grouped(&[
            ("A", 0.0, 0.0, None),
            ("B", 0.0, 120.0, Some("Sub")),
            ("C", 160.0, 120.0, Some("Sub/Inner")),
            ("D", 320.0, 0.0, Some("Other")),
        ]);
        for (from, to) in [("A", "B"), ("B", "C"), ("C", "A")] {
            MachineEdit::AddTransition {
                from: from.into(),
                to: to.into(),
            }
            .apply(&mut m)
            .unwrap();
        }
        let folded: Folded = ["Sub".to_string(), "Sub/Inner".to_string()].into();
        let layout = Layout::new(&m, Vec2::ZERO, 1.0, &folded);
        assert_eq!(layout.folded, ["Sub"], "the inner one folds with the outer");
        let nodes: Vec<Node> = layout.nodes().collect();
        assert!(nodes.contains(&Node::Group(0)));
        assert!(!nodes.contains(&Node::State(1)) && !nodes.contains(&Node::State(2)));
        let node = layout.rect(Node::Group(0));
        assert_eq!(
            node.min,
            pos2(0.0, 120.0),
            "where B, the top-left state, stood"
        );
        assert_eq!(
            layout.rect(Node::State(2)),
            node,
            "C is drawn as the sub-machine"
        );
        assert_eq!(
            layout.transition_ends(0),
            Some((Node::State(0), Node::Group(0)))
        );
        assert_eq!(layout.arrow(1), None, "B → C is inside it");
        assert_eq!(
            layout.transition_ends(2),
            Some((Node::Group(0), Node::State(0)))
        );
        assert_eq!(layout.node_at(node.center()), Some(Node::Group(0)));
        assert_eq!(layout.group_label(0), "Sub » 2 states");
        let frames: Vec<&str> = layout.group_frames().iter().map(|f| f.0).collect();
        assert_eq!(frames, ["Other"]);
        let title = layout.group_frames()[0].1.min + vec2(20.0, 5.0);
        assert_eq!(layout.frame_title_at(title), Some("Other"));
        assert_eq!(
            layout.frame_title_at(layout.rect(Node::State(3)).center()),
            None
        );
    }

    #[test]
    fn the_connect_dot_shrinks_with_the_boxes_so_it_never_hides_them() {
        let m = StateMachine::default();
        let none = Folded::new();
        let at = |zoom| Layout::new(&m, Vec2::ZERO, zoom, &none);
        assert_eq!(at(1.0).dot_radius(), DOT);
        // Framed small (a graph of many states in a short pane), the dot stays within the box's height.
        for zoom in [0.5, 0.3, 0.25, 0.1] {
            let box_height = NODE.y * zoom;
            assert!(2.0 * at(zoom).dot_radius() <= box_height.max(3.0), "{zoom}");
        }
    }
}
