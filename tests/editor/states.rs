//! The States tab as a new user meets it, through egui_kittest: build idle → walk → run with a jump from Any
//! State in the graph view, drive it with parameters and a trigger key, scrub a transition on its timeline.

use animtune::app::AnimtuneApp;
use animtune::app::command::Command;
use animtune::app::panels::inspector::states::graph::{
    GRAPH_LABEL, NODE, Node, node_rect, state_rect,
};
use animtune::app::panels::inspector::states::transition::TIMELINE_LABEL;
use animtune::graph::{ConditionMode, MachineEdit, ParameterKind};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::common;
use crate::ui::drag;

/// The editor in a window tall enough for the graph and the inspector side by side.
fn harness() -> Harness<'static, AnimtuneApp> {
    crate::kittest::harness_sized(1280.0, 1000.0)
}

/// Where state `name`'s box is on the screen now.
fn state_box(h: &Harness<'static, AnimtuneApp>, name: &str) -> egui::Rect {
    let canvas = h.get_by_label(GRAPH_LABEL).rect();
    let m = h.state().editor().machine().expect("a machine");
    let i = m.state_index(name).expect("the state");
    state_rect(
        m,
        i,
        canvas,
        h.state().states_panel().pan,
        h.state().states_panel().zoom(),
    )
}

fn right_click(h: &mut Harness<'static, AnimtuneApp>, at: egui::Pos2) {
    click_with(h, at, egui::PointerButton::Secondary);
}

/// A primary click at a point (on the graph's canvas, where no widget of its own is).
fn left_click(h: &mut Harness<'static, AnimtuneApp>, at: egui::Pos2) {
    click_with(h, at, egui::PointerButton::Primary);
    h.run_steps(1);
}

fn click_with(h: &mut Harness<'static, AnimtuneApp>, at: egui::Pos2, button: egui::PointerButton) {
    h.hover_at(at);
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(1);
    }
    h.run_steps(1);
}

/// The last widget labelled `label` (menus open over the panels, so theirs come last).
fn click_last(h: &mut Harness<'static, AnimtuneApp>, role: Role, label: &str) {
    let node = h
        .query_all_by_role_and_label(role, label)
        .last()
        .unwrap_or_else(|| panic!("no {role:?} '{label}'"));
    node.click();
    h.run_steps(2);
}

/// The editor on its States tab, where the user has clicked New state machine (the graph pane opens).
fn with_a_new_machine() -> Harness<'static, AnimtuneApp> {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("States").click();
    h.run_steps(2);
    click_last(&mut h, Role::Button, "New state machine");
    h.run_steps(3);
    h
}

/// A controller of the committed Unity fixture project (`tests/fixtures/unity/Assets/<rel>`).
fn fixture_controller(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/unity/Assets")
        .join(rel)
}

/// The editor with a fixture controller opened, as File > Open Unity controller opens it.
fn with_fixture_controller(rel: &str) -> Harness<'static, AnimtuneApp> {
    let mut h = harness();
    h.run_steps(2);
    send(&mut h, Command::Open(fixture_controller(rel)));
    h
}

/// The States tab, with its graph pane open.
fn open_graph(h: &mut Harness<'static, AnimtuneApp>) {
    h.get_by_label("States").click();
    h.run_steps(2);
    show_graph(h);
}

/// The graph pane open (the States tab already shown).
fn show_graph(h: &mut Harness<'static, AnimtuneApp>) {
    if h.query_by_label(GRAPH_LABEL).is_none() {
        h.get_by_label("Graph panel").click();
        h.run_steps(2);
    }
}

fn send(h: &mut Harness<'static, AnimtuneApp>, command: Command) {
    h.state_mut().send(command);
    h.run_steps(2);
    let status = &h.state().editor().status();
    assert!(!status.is_error, "{}", status.text);
}

#[test]
fn a_new_user_builds_idle_walk_run_with_a_jump_and_drives_it() {
    let mut h = with_a_new_machine();
    assert_eq!(h.state().editor().machine().unwrap().entry, "Idle");

    // Right-click the empty graph: Create State → a clip, where the click was.
    let canvas = h.get_by_label(GRAPH_LABEL).rect();
    for (clip, at) in [
        ("WalkForward", egui::vec2(360.0, 20.0)),
        ("RunForward", egui::vec2(360.0, 100.0)),
        ("StrafeLeft", egui::vec2(360.0, 180.0)),
    ] {
        right_click(&mut h, canvas.min + at);
        h.get_by_label("Create State").hover();
        h.run_steps(2);
        click_last(&mut h, Role::Button, clip);
    }
    let m = h.state().editor().machine().unwrap().clone();
    let names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Idle", "WalkForward", "RunForward", "StrafeLeft"]);
    // The new state sits where the menu opened.
    let walk = state_box(&h, "WalkForward");
    assert!(
        (walk.min - (canvas.min + egui::vec2(360.0, 20.0))).length() < 2.0,
        "{walk:?}"
    );

    // Rename StrafeLeft to Jump through the context menu's Rename.
    let jump = state_box(&h, "StrafeLeft");
    right_click(&mut h, jump.center());
    click_last(&mut h, Role::Button, "Rename");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.event(egui::Event::Text("Jump".into()));
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    assert!(
        h.state()
            .editor()
            .machine()
            .unwrap()
            .state_index("Jump")
            .is_some()
    );

    // Connect by dragging from a state's dot onto another: Idle → Walk → Run, Jump → Idle.
    for (from, to) in [
        ("Idle", "WalkForward"),
        ("WalkForward", "RunForward"),
        ("Jump", "Idle"),
    ] {
        let dot = state_box(&h, from).right_center();
        let target = state_box(&h, to).center();
        drag(&mut h, dot, target);
    }
    // Any State's dot onto Jump: Any State sits left of the states, below Entry.
    let idle = state_box(&h, "Idle");
    let any_dot = idle.min + egui::vec2(-50.0, NODE.y + 36.0 + NODE.y / 2.0);
    let jump = state_box(&h, "Jump").center();
    drag(&mut h, any_dot, jump);
    let m = h.state().editor().machine().unwrap().clone();
    let ends: Vec<(&str, &str)> = m
        .transitions
        .iter()
        .map(|t| (t.from.as_str(), t.to.as_str()))
        .collect();
    assert_eq!(
        ends,
        [
            ("Idle", "WalkForward"),
            ("WalkForward", "RunForward"),
            ("Jump", "Idle"),
            ("any", "Jump")
        ]
    );

    // Parameters from the tab's + menu; conditions from the transition inspector.
    for kind in ["Float", "Trigger"] {
        click_last(&mut h, Role::Button, "+");
        click_last(&mut h, Role::Button, kind);
    }
    let m = h.state().editor().machine().unwrap().clone();
    assert_eq!(m.parameters[0].kind, ParameterKind::Float);
    assert_eq!(m.parameters[1].kind, ParameterKind::Trigger);
    let (speed, jump) = (m.parameters[0].name.clone(), m.parameters[1].name.clone());
    // The new transition is selected after its drag: Any State → Jump; its + Condition tests the first
    // parameter; the rest are set as the inspector's fields would.
    click_last(&mut h, Role::Button, "+ Condition");
    let t = &h.state().editor().machine().unwrap().transitions[3];
    assert_eq!(t.conditions.len(), 1, "{t:?}");
    for (k, parameter, mode, threshold) in [
        (0, &speed, ConditionMode::Greater, 0.1),
        (1, &speed, ConditionMode::Greater, 2.0),
        (3, &jump, ConditionMode::If, 0.0),
    ] {
        let mut t = h.state().editor().machine().unwrap().transitions[k].clone();
        t.has_exit_time = false;
        t.conditions = vec![animtune::graph::Condition {
            parameter: parameter.clone(),
            mode,
            threshold,
        }];
        t.can_transition_to_self = false;
        send(
            &mut h,
            Command::EditMachine(MachineEdit::SetTransition(k, Box::new(t))),
        );
    }
    h.state().editor().machine().unwrap().validate().unwrap();

    // Play it; the speed's slider moves the live value; a key bound to the trigger fires it.
    click_last(&mut h, Role::Button, "Play machine");
    assert!(h.state().editor().machine_player().is_some());
    send(
        &mut h,
        Command::SetMachineParameter(speed.clone(), animtune::graph::ParameterValue::Number(3.0)),
    );
    let current = |h: &Harness<'static, AnimtuneApp>| {
        let p = h.state().editor().machine_player().unwrap();
        p.machine().states[p.current()].name.clone()
    };
    for _ in 0..60 {
        h.step();
        if current(&h) == "RunForward" {
            break;
        }
    }
    assert_eq!(current(&h), "RunForward");
    assert!(
        h.query_by_label_contains("state RunForward").is_some(),
        "live state shown"
    );
    send(
        &mut h,
        Command::SetTriggerKey(jump.clone(), Some("J".into())),
    );
    h.key_press(egui::Key::J);
    h.run_steps(2);
    let p = h.state().editor().machine_player().unwrap();
    let to_jump = p.active().map(|a| a.to) == p.machine().state_index("Jump")
        || p.machine().states[p.current()].name == "Jump";
    assert!(to_jump, "the J key fired the jump");

    // Undo takes back one edit at a time: the last was Any State → Jump's condition.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    let t = &h.state().editor().machine().unwrap().transitions[3];
    assert_eq!(
        t.conditions[0].parameter, speed,
        "back to the + Condition's default"
    );
}

#[test]
fn scrubbing_the_preview_timeline_plays_the_transition_at_that_time() {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("States").click();
    h.run_steps(2);
    send(&mut h, Command::NewMachine);
    h.get_by_label("Graph panel").click();
    h.run_steps(4);
    send(
        &mut h,
        Command::EditMachine(MachineEdit::AddState(Box::new(
            animtune::graph::edit::clip_state("Walk", "WalkForward", [200.0, 0.0]),
        ))),
    );
    send(
        &mut h,
        Command::EditMachine(MachineEdit::AddTransition {
            from: "Idle".into(),
            to: "Walk".into(),
        }),
    );
    // Select the arrow by clicking its middle.
    let (a, b) = (
        state_box(&h, "Idle").center(),
        state_box(&h, "Walk").center(),
    );
    h.drag_at(a.lerp(b, 0.5));
    h.run_steps(1);
    h.drop_at(a.lerp(b, 0.5));
    h.run_steps(2);
    assert_eq!(
        h.state().states_panel().selected,
        Some(animtune::app::panels::inspector::states::Selected::Transition(0)),
        "a click on the arrow selects it"
    );
    let timeline = h.get_by_label(TIMELINE_LABEL).rect();
    // The ruler strip: a click there scrubs the preview to that time.
    let at = egui::pos2(
        timeline.left() + timeline.width() * 0.5,
        timeline.top() + 6.0,
    );
    h.drag_at(at);
    h.run_steps(1);
    h.drop_at(at);
    h.run_steps(2);
    let e = h.state().editor();
    assert_eq!(e.machine_preview(), Some(0));
    assert!(!e.eval().clock().is_playing());
    let t = e.eval().time();
    assert!(t > 0.0, "scrubbed to {t}");
    // Idle's exit time is 0.75 of its loop, the blend 0.25 s: the preview's progress follows from the time.
    let idle = e.machine().unwrap().state_index("Idle").unwrap();
    let start = 0.75 * e.state_seconds(idle).unwrap();
    let p = e.any_machine_player().unwrap();
    let want = ((f64::from(t) - start) / 0.25).clamp(0.0, 1.0);
    let got = match p.active() {
        Some(a) => a.progress(),
        None if p.current() == idle => 0.0,
        None => 1.0,
    };
    assert!(
        (got - want).abs() < 0.02,
        "progress {got}, want {want} at {t} s"
    );
    // Dragging the duration handle lengthens the blend: one undo step.
    let before = e.machine().unwrap().transitions[0].duration;
    let plan = animtune::app::panels::inspector::states::transition::TimelinePlan::new(
        &e.machine().unwrap().transitions[0],
        e.state_seconds(idle).unwrap(),
        e.state_seconds(1).unwrap(),
    );
    let (lo, hi) = plan.span();
    let timeline = h.get_by_label(TIMELINE_LABEL).rect();
    let x = |s: f64| timeline.left() + ((s - lo) / (hi - lo)) as f32 * timeline.width();
    let y = timeline.top() + 40.0;
    let end = plan.start + plan.duration;
    assert!(
        timeline.right() <= 1280.0,
        "the timeline shows whole: {timeline:?}"
    );
    drag(&mut h, egui::pos2(x(end), y), egui::pos2(x(end) + 30.0, y));
    let after = h.state().editor().machine().unwrap().transitions[0].duration;
    assert!(after > before + 0.05, "{before} → {after}");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(
        h.state().editor().machine().unwrap().transitions[0].duration,
        before
    );
}

/// The wheel over the graph zooms it about the pointer (the box under it grows and stays under it), and a state
/// made by right-clicking the zoomed graph lands where the click was.
#[test]
fn the_wheel_zooms_the_graph_about_the_pointer() {
    let mut h = with_a_new_machine();
    let before = state_box(&h, "Idle");
    let at = before.center();
    h.hover_at(at);
    h.run_steps(1);
    crate::ui::wheel(&mut h, 150.0);
    h.run_steps(8);
    let zoom = h.state().states_panel().zoom();
    let after = state_box(&h, "Idle");
    assert!(zoom > 1.2, "zoom {zoom}");
    assert!(
        (after.width() / before.width() - zoom).abs() < 1e-3,
        "{before:?} → {after:?}"
    );
    assert!((after.center() - at).length() < 1.0, "{at:?} → {after:?}");
    let canvas = h.get_by_label(GRAPH_LABEL).rect();
    let click = canvas.max - egui::vec2(120.0, 60.0);
    right_click(&mut h, click);
    h.get_by_label("Create State").hover();
    h.run_steps(2);
    click_last(&mut h, Role::Button, "RunForward");
    let run = state_box(&h, "RunForward");
    assert!((run.min - click).length() < 2.0, "{run:?} at {click:?}");
}

/// The transport drives a playing state machine as it does a clip: Pause pauses it, a frame step moves it one frame
/// (replaying it to that time), and Stop takes it back to its start.
#[test]
fn the_transport_pauses_steps_and_stops_a_playing_machine() {
    let mut h = with_a_new_machine();
    send(&mut h, Command::PlayMachine);
    h.run_steps(20);
    assert!(
        h.state().editor().machine_player().is_some(),
        "the machine plays"
    );
    assert!(h.state().editor().eval().clock().is_playing());
    let pause = h.get_by_role_and_label(Role::Button, "Pause");
    assert!(
        !pause.accesskit_node().is_disabled(),
        "Pause is on while the machine plays"
    );
    pause.click();
    h.run_steps(2);
    assert!(!h.state().editor().eval().clock().is_playing(), "paused");
    let before = h.state().editor().eval().time();
    h.run_steps(5);
    assert_eq!(
        h.state().editor().eval().time(),
        before,
        "a paused machine holds"
    );
    h.get_by_role_and_label(Role::Button, ">").click();
    h.run_steps(2);
    let stepped = h.state().editor().eval().time();
    let frame = 1.0 / 30.0;
    assert!(
        stepped > before && stepped - before < 2.0 * frame,
        "one frame on: {before} → {stepped}"
    );
    h.get_by_role_and_label(Role::Button, "Stop").click();
    h.run_steps(2);
    assert_eq!(
        h.state().editor().eval().time(),
        0.0,
        "Stop goes back to the start"
    );
    assert!(
        h.state().editor().machine_player().is_some(),
        "the machine still plays"
    );
}

/// The skate figure measures a clip or a blend space: while a state machine plays it shows none (not the figure
/// of what played before, nor 0 %).
#[test]
fn a_playing_machine_shows_no_skate_figure_of_what_played_before() {
    let mut h = with_a_new_machine();
    while h.state().editor().feet().busy() {
        h.run_steps(1);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("skate ").is_some(),
        "the blend's figure"
    );
    send(&mut h, Command::PlayMachine);
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("skate ").is_none(),
        "no figure for the machine"
    );
    h.get_by_label("feet: —");
}

/// The States tab's rows stay where they are while the machine plays through a transition and while recording
/// starts and stops: the status lines keep one place, and Record keeps its width.
#[test]
fn the_states_tab_rows_never_move_while_the_machine_plays_and_records() {
    use animtune::graph::{MachineEdit, State};
    let mut h = with_a_new_machine();
    let walk = State {
        name: "Walk".into(),
        clip: Some("WalkForward".into()),
        ..h.state().editor().machine().unwrap().states[0].clone()
    };
    send(
        &mut h,
        Command::EditMachine(MachineEdit::AddState(Box::new(walk))),
    );
    for (from, to) in [("Idle", "Walk"), ("Walk", "Idle")] {
        send(
            &mut h,
            Command::EditMachine(MachineEdit::AddTransition {
                from: from.into(),
                to: to.into(),
            }),
        );
    }
    let rows = |h: &Harness<'static, AnimtuneApp>| {
        [
            h.get_by_label("Graph panel").rect(),
            h.get_by_role_and_label(Role::Button, "Replay").rect(),
        ]
    };
    let still = rows(&h);
    send(&mut h, Command::PlayMachine);
    let mut saw_transition = false;
    for _ in 0..240 {
        h.run_steps(1);
        saw_transition |= h
            .state()
            .editor()
            .machine_player()
            .is_some_and(|p| p.active().is_some());
        assert_eq!(rows(&h), still, "a row moved while the machine played");
    }
    assert!(saw_transition, "the machine went through a transition");
    send(&mut h, Command::RecordScript(true));
    assert_eq!(rows(&h), still, "a row moved when recording started");
    send(&mut h, Command::RecordScript(false));
    assert_eq!(rows(&h), still, "a row moved when recording stopped");
}

/// Clicking Any State selects it and lists its transitions in the order they are tested, as Unity's inspector
/// does; clicking one selects that transition.
#[test]
fn selecting_any_state_lists_its_transitions_in_order() {
    use animtune::graph::State;
    use animtune::graph::machine::ANY_STATE;
    let mut h = with_a_new_machine();
    for (name, clip) in [("Walk", "WalkForward"), ("Run", "RunForward")] {
        let state = State {
            name: name.into(),
            clip: Some(clip.into()),
            ..h.state().editor().machine().unwrap().states[0].clone()
        };
        send(
            &mut h,
            Command::EditMachine(MachineEdit::AddState(Box::new(state))),
        );
    }
    for to in ["Run", "Walk"] {
        send(
            &mut h,
            Command::EditMachine(MachineEdit::AddTransition {
                from: ANY_STATE.into(),
                to: to.into(),
            }),
        );
    }
    let any = {
        let m = h.state().editor().machine().unwrap();
        let canvas = h.get_by_label(GRAPH_LABEL).rect();
        let panel = h.state().states_panel();
        node_rect(m, Node::Any, canvas, panel.pan, panel.zoom())
    };
    left_click(&mut h, any.center());
    h.get_by_label("Any State");
    let (run, walk) = (
        h.get_by_label("-> Run").rect(),
        h.get_by_label("-> Walk").rect(),
    );
    assert!(run.top() < walk.top(), "in the order they are tested");
    h.get_by_label("-> Walk").click();
    h.run_steps(2);
    assert!(
        h.query_by_label("Any State").is_none(),
        "the transition is selected instead"
    );
}

/// A result in the status bar (an export's) stays while a script's replay ends: the end shows on the States tab's
/// status row instead.
#[test]
fn the_end_of_a_replay_leaves_the_status_bar_alone() {
    use animtune::graph::{Parameter, ParameterValue};
    let dir = common::temp_dir("replay-status");
    let mut h = with_a_new_machine();
    send(
        &mut h,
        Command::EditMachine(MachineEdit::AddParameter(Parameter {
            name: "speed".into(),
            kind: ParameterKind::Float,
            default: ParameterValue::Number(0.0),
        })),
    );
    let script = dir.join("script.json");
    std::fs::write(&script, r#"[{"time": 1.0, "set": "speed", "value": 0.5}]"#).unwrap();
    send(&mut h, Command::OpenScript(script));
    send(&mut h, Command::ReplayScript);
    assert!(h.state().editor().replaying());
    let result = "wrote run.glb: 1.00 s at 30 fps";
    send(
        &mut h,
        Command::Report {
            text: result.into(),
            is_error: false,
        },
    );
    for _ in 0..120 {
        h.run_steps(1);
    }
    assert!(!h.state().editor().replaying(), "the replay ended");
    assert_eq!(h.state().editor().status().text, result);
    h.get_by_label("script replayed: the machine plays on");
}

/// A state's Mirror plays its clip mirrored when the machine plays in the editor, as the CLI and the export do:
/// WalkForward's first pose mirrored puts the other leg forward.
#[test]
fn a_mirrored_state_plays_mirrored_in_the_editor() {
    let legs = |mirror: bool| {
        let mut h = with_a_new_machine();
        let mut walk = animtune::graph::edit::clip_state("Walk", "WalkForward", [0.0, 0.0]);
        walk.mirror = mirror;
        send(
            &mut h,
            Command::EditMachine(MachineEdit::AddState(Box::new(walk))),
        );
        send(
            &mut h,
            Command::EditMachine(MachineEdit::SetEntry("Walk".into())),
        );
        click_last(&mut h, Role::Button, "Play machine");
        h.run_steps(1);
        let e = h.state().editor();
        let c = &e.doc().model.character;
        let rotation = |bone| e.pose().local[c.humanoid.joint(bone).unwrap()].rotation;
        (
            rotation(animtune::core::HumanBone::LeftUpperLeg),
            rotation(animtune::core::HumanBone::RightUpperLeg),
        )
    };
    let (left, right) = legs(false);
    let (mirrored_left, mirrored_right) = legs(true);
    let swapped = |a: glam::Quat, b: glam::Quat| {
        common::angle_deg(a, glam::Quat::from_xyzw(b.x, -b.y, -b.z, b.w))
    };
    assert!(
        common::angle_deg(left, right) > 5.0,
        "the walk's legs differ at its start"
    );
    assert!(
        swapped(mirrored_left, right) < 1.0 && swapped(mirrored_right, left) < 1.0,
        "mirrored, each leg takes the other's turn (mirrored through the midplane)"
    );
}

/// Clicking Entry lists where the machine starts: the Trees controller's Entry transitions on `which`, with their
/// conditions, then its entry state.
#[test]
fn selecting_entry_lists_its_entry_transitions() {
    let mut h = with_fixture_controller("Trees/Trees.controller");
    open_graph(&mut h);
    let canvas = h.get_by_label(GRAPH_LABEL).rect();
    let m = h.state().editor().machine().unwrap().clone();
    let entry = node_rect(
        &m,
        Node::Entry,
        canvas,
        h.state().states_panel().pan,
        h.state().states_panel().zoom(),
    );
    left_click(&mut h, entry.center());
    for line in [
        "-> Freeform when which = 1",
        "-> Scrubbed when which = 3",
        "-> Simple (the entry state)",
    ] {
        assert!(h.query_by_label(line).is_some(), "'{line}' is listed");
    }
}

/// A trigger's key is saved in the preset and bound again when the preset is opened.
#[test]
fn trigger_keys_are_saved_in_the_preset() {
    use animtune::graph::{Parameter, ParameterValue};
    let dir = common::temp_dir("trigger-keys");
    let mut h = with_a_new_machine();
    send(
        &mut h,
        Command::EditMachine(MachineEdit::AddParameter(Parameter {
            name: "jump".into(),
            kind: ParameterKind::Trigger,
            default: ParameterValue::Bool(false),
        })),
    );
    send(
        &mut h,
        Command::SetTriggerKey("jump".into(), Some("J".into())),
    );
    let path = dir.join("keys.json");
    send(
        &mut h,
        Command::SavePreset {
            path: path.clone(),
            overwrite: false,
        },
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["trigger_keys"]["jump"], "J", "{saved}");
    let mut fresh = harness();
    fresh.run_steps(2);
    send(&mut fresh, Command::Open(path));
    let keys = &fresh.state().editor().session().machine.trigger_keys;
    assert_eq!(keys.get("jump").map(String::as_str), Some("J"));
}

/// "Compare with" shows both characters: the camera frames the second beside the first, and each is labelled
/// over its head with what it plays its transitions as.
#[test]
fn compare_frames_both_characters_and_labels_each() {
    use animtune::graph::TransitionModel;
    let mut h = with_a_new_machine();
    send(&mut h, Command::PlayMachine);
    send(
        &mut h,
        Command::CompareModels(Some(TransitionModel::Inertialization)),
    );
    h.run_steps(5);
    let viewport = h
        .get_by_label(animtune::app::panels::viewport::VIEWPORT_LABEL)
        .rect();
    let first = h.get_by_label_contains(": transitions as authored").rect();
    let second = h
        .get_by_label_contains(": every transition as Inertialization")
        .rect();
    for (which, r) in [("first", first), ("second", second)] {
        assert!(
            viewport.contains_rect(r),
            "the {which} label is in view: {r:?} in {viewport:?}"
        );
    }
    assert!(second.center().x > first.center().x + 20.0, "side by side");
}

/// At 900×600 and UI scale 2 the graph is a pane docked below the viewport, not a window over the inspector:
/// Play, Record and Replay stay uncovered, and Frame all brings all six states into view.
#[test]
fn the_graph_docks_below_the_viewport_and_frame_all_shows_every_state() {
    use animtune::graph::State;
    let mut h = crate::kittest::harness_scaled(900.0, 600.0, 2.0);
    h.run_steps(2);
    h.get_by_label("States").click();
    h.run_steps(2);
    click_last(&mut h, Role::Button, "New state machine");
    h.run_steps(3);
    let first = h.state().editor().machine().unwrap().states[0].clone();
    for i in 1..6 {
        let state = State {
            name: format!("S{i}"),
            position: None,
            ..first.clone()
        };
        send(
            &mut h,
            Command::EditMachine(MachineEdit::AddState(Box::new(state))),
        );
    }
    let canvas = h.get_by_label(GRAPH_LABEL).rect();
    for label in ["Play", "Record", "Replay"] {
        if let Some(b) = h.query_by_role_and_label(Role::Button, label) {
            assert!(
                !b.rect().intersects(canvas),
                "{label} {:?} under the graph {canvas:?}",
                b.rect()
            );
        }
    }
    let viewport = h
        .get_by_label(animtune::app::panels::viewport::VIEWPORT_LABEL)
        .rect();
    assert!(
        !viewport.intersects(canvas.shrink(1.0)),
        "{viewport:?} {canvas:?}"
    );
    let graph = canvas;
    let boxes = |h: &Harness<'static, AnimtuneApp>| {
        let m = h.state().editor().machine().unwrap();
        let p = h.state().states_panel();
        (0..6)
            .map(|i| state_rect(m, i, graph, p.pan, p.zoom()))
            .collect::<Vec<_>>()
    };
    let inside = |h: &Harness<'static, AnimtuneApp>| {
        boxes(h).iter().filter(|b| graph.contains_rect(**b)).count()
    };
    assert!(inside(&h) < 6, "the states start spread past the pane");
    // F over the graph frames it (the model's F does not take it).
    h.hover_at(graph.center());
    h.run_steps(1);
    h.key_press(egui::Key::F);
    h.run_steps(2);
    assert_eq!(inside(&h), 6, "F over the graph fits every state");
    crate::ui::wheel(&mut h, 400.0);
    h.run_steps(3);
    assert!(inside(&h) < 6, "zoomed in again");
    h.get_by_label("Frame all").click();
    h.run_steps(2);
    assert_eq!(
        inside(&h),
        6,
        "Frame all fits every state in the pane {graph:?}: {:?}",
        boxes(&h)
    );
}

/// Two transitions made one after the other are two undo steps, even while the graph keeps the keyboard focus
/// a drag on it gave (a focused graph counted as typing, which kept one undo step open for every edit).
#[test]
fn each_edit_on_a_focused_graph_is_its_own_undo_step() {
    use animtune::graph::State;
    let mut h = with_a_new_machine();
    let first = h.state().editor().machine().unwrap().states[0].clone();
    let walk = State {
        name: "Walk".into(),
        clip: Some("WalkForward".into()),
        position: Some([200.0, 0.0]),
        ..first
    };
    send(
        &mut h,
        Command::EditMachine(MachineEdit::AddState(Box::new(walk))),
    );
    // A drag on the empty canvas (a pan) gives the graph the keyboard.
    let canvas = h.get_by_label(GRAPH_LABEL).rect();
    let empty = canvas.right_bottom() - egui::vec2(20.0, 20.0);
    h.hover_at(empty);
    h.run_steps(1);
    drag(&mut h, empty, empty - egui::vec2(10.0, 5.0));
    h.run_steps(2);
    let idle = h.state().editor().machine().unwrap().entry.clone();
    for (from, to) in [(idle.as_str(), "Walk"), ("Walk", idle.as_str())] {
        send(
            &mut h,
            Command::EditMachine(MachineEdit::AddTransition {
                from: from.into(),
                to: to.into(),
            }),
        );
    }
    assert_eq!(h.state().editor().machine().unwrap().transitions.len(), 2);
    send(&mut h, Command::Undo);
    assert_eq!(
        h.state().editor().machine().unwrap().transitions.len(),
        1,
        "one undo takes back one transition"
    );
}

/// A transition being dragged out of a state starts at the dot it was dragged from, not under the state's box.
#[test]
fn a_link_being_dragged_starts_at_the_states_dot() {
    let mut h = with_a_new_machine();
    let idle = h.state().editor().machine().unwrap().entry.clone();
    let state = state_box(&h, &idle);
    let dot = state.right_center();
    let pointer = dot + egui::vec2(90.0, 70.0);
    h.drag_at(dot);
    h.run_steps(1);
    h.hover_at(dot.lerp(pointer, 0.5));
    h.run_steps(1);
    h.hover_at(pointer);
    h.run_steps(2);
    let image = h.render().expect("the wgpu test renderer");
    let scale = image.width() as f32 / 1280.0;
    // The lower right quarter of the box, clear of its label: a line from the box's centre would cross it.
    let white = (0..)
        .map(|k| state.center().x + 20.0 + k as f32)
        .take_while(|&x| x < state.right() - 8.0)
        .flat_map(|x| {
            (0..)
                .map(|k| state.center().y + 5.0 + k as f32)
                .take_while(|&y| y < state.bottom() - 2.0)
                .map(move |y| (x, y))
        })
        .filter(|&(x, y)| {
            let p = image.get_pixel((x * scale) as u32, (y * scale) as u32);
            p[0] > 200 && p[1] > 200 && p[2] > 200
        })
        .count();
    assert_eq!(white, 0, "line pixels inside {idle}'s box {state:?}");
    h.drop_at(pointer);
    h.run_steps(2);
}

/// The rows kept for a playing machine say what the machine holds and what Record does while nothing plays,
/// rather than leaving an empty gap above the graph's button.
#[test]
fn the_rows_kept_for_a_playing_machine_are_not_empty_while_it_is_stopped() {
    let h = with_a_new_machine();
    let entry = h.state().editor().machine().unwrap().entry.clone();
    h.get_by_label(&format!(
        "1 state, 0 transitions, 0 parameters; entry {entry}"
    ));
    h.get_by_label("Record saves parameter changes as a script; Replay plays it again.");
}

/// File → Open Unity controller…: the fixture project's controller becomes the machine (its clips join the clip
/// list, found through its `.meta` files) in one undo step; the graph shows its states; setting `go` while it
/// plays takes Idle to Walk.
#[test]
fn a_unity_controller_opens_as_the_machine_and_its_parameters_drive_it() {
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("File").click();
    h.run_steps(2);
    assert!(
        h.query_by_label("Open Unity controller…").is_some(),
        "the File menu offers it"
    );
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    send(
        &mut h,
        Command::Open(fixture_controller("Controllers/Locomotion.controller")),
    );
    let status = h.state().editor().status().text.clone();
    assert!(
        status.contains("base layer is the state machine"),
        "{status}"
    );
    let m = h.state().editor().machine().unwrap().clone();
    let names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Idle", "Walk", "Move"]);
    for clip in ["Idle.anim", "Walk.anim", "Run.anim"] {
        assert!(
            h.state()
                .editor()
                .doc()
                .clips
                .iter()
                .any(|c| c.name == clip),
            "{clip} in the clip list"
        );
    }
    open_graph(&mut h);
    state_box(&h, "Move");
    click_last(&mut h, Role::Button, "Play machine");
    assert!(h.state().editor().machine_player().is_some());
    send(
        &mut h,
        Command::SetMachineParameter("go".into(), animtune::graph::ParameterValue::Bool(true)),
    );
    let current = |h: &Harness<'static, AnimtuneApp>| {
        let p = h.state().editor().machine_player().unwrap();
        let to = p.active().map(|a| p.machine().states[a.to].name.clone());
        to.unwrap_or_else(|| p.machine().states[p.current()].name.clone())
    };
    for _ in 0..30 {
        h.step();
        if current(&h) == "Walk" {
            break;
        }
    }
    assert_eq!(current(&h), "Walk", "go takes Idle to Walk");
    send(&mut h, Command::Undo);
    assert!(
        h.state().editor().machine().is_none(),
        "opening it was one undo step"
    );
}

/// File → Open Unity project… with the fixture project, which holds two controllers and an override controller:
/// the window asks which to open; the chosen one is the machine, its `go` parameter takes Idle to Walk, and the
/// Export window bakes the machine to a file that reads back.
#[test]
fn a_unity_project_folder_opens_its_chosen_controller_which_plays_and_bakes() {
    use animtune::app::dialogs::controller_choice::TITLE;
    let mut h = harness();
    h.run_steps(2);
    h.get_by_label("File").click();
    h.run_steps(2);
    assert!(
        h.query_by_label("Open Unity project…").is_some(),
        "the File menu offers it"
    );
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    let project = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/unity");
    send(&mut h, Command::Open(project));
    assert!(h.state().editor().machine().is_none());
    assert!(h.query_by_label(TITLE).is_some(), "the window asks which");
    for offered in [
        "Controllers/Fast.overrideController",
        "Layered/Layered.controller",
        "Synced/Synced.controller",
        "Trees/Trees.controller",
    ] {
        assert!(h.query_by_label(offered).is_some(), "{offered} is offered");
    }
    h.get_by_role_and_label(Role::Button, "Controllers/Locomotion.controller")
        .click();
    h.run_steps(3);
    assert!(h.query_by_label(TITLE).is_none(), "the window closes");
    let m = opened_machine(&h);
    let names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Idle", "Walk", "Move"]);
    open_graph(&mut h);
    state_box(&h, "Walk");
    click_last(&mut h, Role::Button, "Play machine");
    send(&mut h, Command::RecordScript(true));
    // The bool parameter's checkbox, found by its parameter's name.
    h.get_by_role_and_label(Role::CheckBox, "go").click();
    h.run_steps(1);
    let mut walked = false;
    for _ in 0..40 {
        h.step();
        let p = h.state().editor().machine_player().unwrap();
        walked |= p.machine().states[p.current()].name == "Walk";
    }
    assert!(walked, "go takes Idle to Walk");
    send(&mut h, Command::RecordScript(false));

    let out = common::temp_dir("unity-project-bake").join("go.animclip");
    let mut dialog = animtune::app::dialogs::export::ExportDialog::default();
    dialog.set_path(&out);
    let job = dialog
        .job(h.state().editor(), false)
        .expect("an export job");
    let status = job
        .run(&Default::default(), &Default::default())
        .expect("the export runs");
    assert!(status.contains("simulated at"), "{status}");
    let back = animtune::clipfile::load(&out).expect("the bake reads back");
    let clip = back.to_clip_in(Default::default());
    assert!(
        clip.duration > 0.5 && !clip.tracks.is_empty(),
        "{}",
        clip.duration
    );
}

/// A controller's upper layers open with it, in the same undo step: "Left arm" (two states and a transition) as a
/// layer of the machine, which the States tab names; "Spine" (one state) as a clip layer the Layers tab lists.
#[test]
fn a_unity_controllers_upper_layers_open_with_it() {
    let mut h = with_fixture_controller("Layered/Layered.controller");
    let m = opened_machine(&h);
    let machine_layers: Vec<(&str, usize)> = m
        .layers
        .iter()
        .map(|l| (l.name.as_str(), l.states.len()))
        .collect();
    assert_eq!(machine_layers, [("Left arm", 2)]);
    let clip_layers: Vec<(String, f32)> = h
        .state()
        .editor()
        .tuning()
        .layers
        .clips
        .iter()
        .map(|l| (l.name.clone(), l.weight))
        .collect();
    assert_eq!(clip_layers, [("Spine".to_string(), 0.5)]);
    // Idle's 1 s clip at speed 1 times its multiplier `pace` (2): a loop is half a second.
    assert_eq!(h.state().editor().state_seconds(0), Some(0.5));
    h.get_by_label("States").click();
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("1 layer above: Left arm")
            .is_some(),
        "the States tab names the machine's layer"
    );
    // The graph shows the layer's states, live: its Rest, then Swing once `swap` fires.
    show_graph(&mut h);
    h.get_by_value("Base").click();
    h.run_steps(2);
    h.get_by_label("Left arm (view only)").click();
    h.run_steps(2);
    assert_eq!(h.state().states_panel().layer, Some(0));
    // The shown layer's weight is a slider beside it: the arrow keys move it, one undo step puts it back.
    let weight = |h: &Harness<'static, AnimtuneApp>| opened_machine(h).layers[0].weight;
    let before = weight(&h);
    h.get_by_role_and_label(Role::Slider, "weight").focus();
    h.run_steps(1);
    h.key_press(egui::Key::ArrowLeft);
    h.run_steps(2);
    let lowered = weight(&h);
    assert!(
        lowered < before,
        "the slider lowers the weight: {before} -> {lowered}"
    );
    send(&mut h, Command::Undo);
    assert_eq!(weight(&h), before);
    click_last(&mut h, Role::Button, "Play machine");
    let layer_state = |h: &Harness<'static, AnimtuneApp>| {
        let p = h
            .state()
            .editor()
            .machine_layer_player(0)
            .expect("the layer plays");
        p.machine().states[p.current()].name.clone()
    };
    assert_eq!(layer_state(&h), "Rest");
    send(
        &mut h,
        Command::SetMachineParameter("swap".into(), animtune::graph::ParameterValue::Bool(true)),
    );
    for _ in 0..20 {
        h.step();
    }
    assert_eq!(layer_state(&h), "Swing");
    // The weight changes as the machine plays on: no restart takes the layer back to Rest.
    let played = h.state().editor().eval().time();
    h.get_by_role_and_label(Role::Slider, "weight").focus();
    h.run_steps(1);
    h.key_press(egui::Key::ArrowLeft);
    h.run_steps(2);
    assert!(weight(&h) < before);
    assert_eq!(layer_state(&h), "Swing", "the layer plays on");
    assert!(
        h.state().editor().eval().time() >= played,
        "the machine's time goes on"
    );
    send(&mut h, Command::Undo);
    assert_eq!(weight(&h), before);
    // Dragging a node of the shown layer edits nothing.
    let before = opened_machine(&h);
    let canvas = h.get_by_label(GRAPH_LABEL).rect();
    drag(
        &mut h,
        canvas.center(),
        canvas.center() + egui::vec2(40.0, 30.0),
    );
    assert_eq!(opened_machine(&h), before);
    h.get_by_label("Layers").click();
    h.run_steps(3);
    assert!(
        h.query_all_by_value("Spine").next().is_some(),
        "the Layers tab lists the clip layer"
    );
    send(&mut h, Command::Undo);
    assert!(h.state().editor().tuning().layers.clips.is_empty());
    assert!(h.state().editor().machine().is_none());
}

/// A Unity controller's sub-machine (Locomotion's Fast, holding Move) is a frame in the graph; a click on its
/// name folds it into one node, as Unity draws a sub-machine, and the node's context menu opens it again. The
/// machine itself does not change.
#[test]
fn a_sub_machines_frame_folds_into_one_node_and_opens_again() {
    let mut h = with_fixture_controller("Controllers/Locomotion.controller");
    open_graph(&mut h);
    h.get_by_label("Frame all").click();
    h.run_steps(2);
    let before = opened_machine(&h);
    let zoom = h.state().states_panel().zoom();
    // The frame's name sits above its states: 10 points of padding and 18 of title, scaled by the zoom.
    let moving = state_box(&h, "Move");
    let title = moving.min + egui::vec2(-10.0 * zoom + 6.0, -28.0 * zoom + 4.0);
    left_click(&mut h, title);
    assert!(
        h.state().states_panel().folded.contains("Fast"),
        "a click on the frame's name folds it"
    );
    // The folded node stands where Move stood; a click on it selects nothing (not the arrows from its centre),
    // and its menu opens it again.
    left_click(&mut h, moving.center());
    assert_eq!(h.state().states_panel().selected, None);
    right_click(&mut h, moving.center());
    click_last(&mut h, Role::Button, "Open sub-machine");
    assert!(h.state().states_panel().folded.is_empty());
    assert_eq!(opened_machine(&h), before, "folding is a view, not an edit");
}

/// The machine a controller just opened as.
fn opened_machine(h: &Harness<'static, AnimtuneApp>) -> animtune::graph::StateMachine {
    h.state()
        .editor()
        .machine()
        .expect("the controller opened")
        .clone()
}
