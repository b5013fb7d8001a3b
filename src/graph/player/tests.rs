//! The player against Unity's rules as the manual and the interruption post state them, each case worked by hand:
//! the expected times are closed forms of the settings, not outputs of the player.

use super::*;
use crate::graph::machine::{ParameterValue, StateMachine};

/// States A (1 s, loops), B (2 s, loops), C (1 s, does not loop), D (1 s, loops), with `transitions` and
/// parameters go, back (bool), jump (trigger), speed (float), n (int).
fn machine(transitions: &str) -> MachinePlayer {
    let text = format!(
        r#"{{"parameters": [{{"name": "go", "type": "bool"}}, {{"name": "back", "type": "bool"}},
                            {{"name": "jump", "type": "trigger"}}, {{"name": "speed", "type": "float"}},
                            {{"name": "n", "type": "int"}}],
             "states": [{{"name": "A", "clip": "a"}}, {{"name": "B", "clip": "b"}},
                        {{"name": "C", "clip": "c"}}, {{"name": "D", "clip": "d"}}],
             "entry": "A", "transitions": {transitions}}}"#
    );
    let m: StateMachine = serde_json::from_str(&text).unwrap();
    m.validate().unwrap();
    let info = |length, looping| StateInfo { length, looping };
    MachinePlayer::new(
        &m,
        vec![
            info(1.0, true),
            info(2.0, true),
            info(1.0, false),
            info(1.0, true),
        ],
    )
}

const DT: f64 = 0.01;

/// Steps until `t` seconds have passed since the start (from `from`).
fn run(p: &mut MachinePlayer, from: f64, to: f64) {
    let steps = ((to - from) / DT).round() as usize;
    for _ in 0..steps {
        p.update(DT);
    }
}

fn set(p: &mut MachinePlayer, name: &str, v: bool) {
    assert!(p.set(name, ParameterValue::Bool(v)));
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn a_condition_only_transition_starts_on_the_update_its_condition_holds() {
    let mut p = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": false, "duration": 0.5,
             "conditions": [{"parameter": "go", "mode": "if"}]}]"#,
    );
    run(&mut p, 0.0, 0.3);
    assert!(p.active().is_none());
    set(&mut p, "go", true);
    p.update(DT);
    let a = *p.active().unwrap();
    assert_eq!(a.to, 1);
    assert!(close(a.elapsed, 0.0) && close(a.duration, 0.5));
    // Linear weight, both states advancing: after 0.2 s, B at 0.2 / 2 and A at 0.31 + 0.2.
    run(&mut p, 0.0, 0.2);
    let terms = p.terms();
    assert_eq!(terms.len(), 2);
    assert!(close(terms[1].weight, 0.4), "{terms:?}");
    assert_eq!(
        terms[0].motion,
        Motion::State {
            state: 0,
            time: p.time()
        }
    );
    assert!(close(p.time(), 0.31 + 0.2));
    assert!(matches!(terms[1].motion, Motion::State { state: 1, time } if close(time, 0.1)));
    run(&mut p, 0.0, 0.3);
    assert!(p.active().is_none());
    assert_eq!(p.current(), 1);
    assert!(close(p.time(), 0.25));
}

/// A → B at exit time `exit_time` once `go` is set, with no blend.
fn gated_at(exit_time: f64) -> MachinePlayer {
    machine(&format!(
        r#"[{{"from": "A", "to": "B", "has_exit_time": true, "exit_time": {exit_time}, "duration": 0,
             "conditions": [{{"parameter": "go", "mode": "if"}}]}}]"#
    ))
}

#[test]
fn exit_time_below_one_is_tested_on_every_loop_of_a_looping_state() {
    let mut p = gated_at(0.5);
    // The condition comes at 0.7, after this loop's 0.5: the transition waits for the next loop's.
    run(&mut p, 0.0, 0.7);
    set(&mut p, "go", true);
    run(&mut p, 0.7, 1.45);
    assert_eq!(p.current(), 0, "not before 1.5");
    run(&mut p, 1.45, 1.55);
    assert_eq!(p.current(), 1, "at normalised 1.5");
    // It starts at the crossing itself: a zero duration lands B at the time past it (0.05 s of its 2 s).
    assert!((p.time() - 0.025).abs() < 1e-6, "{}", p.time());
}

#[test]
fn the_time_past_the_exit_time_counts_in_the_destination_and_the_offset_starts_it() {
    let mut p = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": true, "exit_time": 0.505, "duration": 1.0, "offset": 0.25}]"#,
    );
    run(&mut p, 0.0, 0.51);
    let a = *p.active().unwrap();
    // Crossed at 0.505 s: 0.005 s before this update's end.
    assert!((a.elapsed - 0.005).abs() < 1e-9, "{}", a.elapsed);
    assert!(
        (a.to_time - (0.25 + 0.005 / 2.0)).abs() < 1e-9,
        "{}",
        a.to_time
    );
}

#[test]
fn exit_time_above_one_is_tested_once() {
    let mut p = gated_at(2.5);
    run(&mut p, 0.0, 2.6);
    set(&mut p, "go", true);
    run(&mut p, 2.6, 6.0);
    assert_eq!(
        p.current(),
        0,
        "2.5 passed without the condition: never again"
    );
    let mut q = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": true, "exit_time": 2.5, "duration": 0}]"#,
    );
    run(&mut q, 0.0, 2.45);
    assert_eq!(q.current(), 0);
    run(&mut q, 2.45, 2.55);
    assert_eq!(q.current(), 1, "after two and a half loops");
}

#[test]
fn a_state_that_does_not_loop_tests_its_exit_time_once() {
    let mut p = machine(
        r#"[{"from": "A", "to": "C", "has_exit_time": false, "duration": 0,
             "conditions": [{"parameter": "go", "mode": "if"}]},
            {"from": "C", "to": "D", "has_exit_time": true, "exit_time": 0.5, "duration": 0,
             "conditions": [{"parameter": "back", "mode": "if"}]}]"#,
    );
    set(&mut p, "go", true);
    p.update(DT);
    assert_eq!(p.current(), 2);
    run(&mut p, 0.0, 0.7);
    set(&mut p, "back", true);
    run(&mut p, 0.7, 3.0);
    assert_eq!(
        p.current(),
        2,
        "C does not loop: 1.5 and 2.5 are not its exit times"
    );
}

#[test]
fn a_normalised_duration_is_a_fraction_of_the_source_state() {
    let mut p = machine(
        r#"[{"from": "B", "to": "A", "has_exit_time": false, "fixed_duration": false, "duration": 0.25,
             "conditions": [{"parameter": "back", "mode": "if"}]},
            {"from": "A", "to": "B", "has_exit_time": false, "fixed_duration": true, "duration": 0,
             "conditions": [{"parameter": "go", "mode": "if"}]}]"#,
    );
    set(&mut p, "go", true);
    p.update(DT);
    assert_eq!(p.current(), 1);
    set(&mut p, "go", false);
    set(&mut p, "back", true);
    p.update(DT);
    // A quarter of B's 2 s.
    assert!(close(p.active().unwrap().duration, 0.5));
}

#[test]
fn speed_scales_normalised_time_and_a_normalised_duration() {
    let mut p = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": true, "exit_time": 0.5, "fixed_duration": false,
             "duration": 0.5}]"#,
    );
    p.machine.states[0].speed = 2.0;
    run(&mut p, 0.0, 0.25);
    let a = *p.active().expect("at 0.25 s a double-speed A is at 0.5");
    // Half of A's cycle at double speed: 0.25 s.
    assert!(close(a.duration, 0.25), "{}", a.duration);
}

#[test]
fn triggers_are_consumed_and_any_state_may_refuse_to_restart_its_destination() {
    let mut p = machine(
        r#"[{"from": "any", "to": "D", "has_exit_time": false, "duration": 0, "can_transition_to_self": false,
             "conditions": [{"parameter": "jump", "mode": "if"}]},
            {"from": "any", "to": "B", "has_exit_time": false, "duration": 0, "can_transition_to_self": false,
             "conditions": [{"parameter": "go", "mode": "if"}]}]"#,
    );
    assert!(p.set("jump", ParameterValue::Bool(true)));
    p.update(DT);
    assert_eq!(p.current(), 3);
    assert_eq!(p.value_of("jump"), Some(0.0), "consumed");
    run(&mut p, 0.0, 0.5);
    assert!(close(p.time(), 0.5), "not restarted");
    set(&mut p, "go", true);
    p.update(DT);
    assert_eq!(p.current(), 1);
    run(&mut p, 0.0, 0.5);
    assert_eq!(p.current(), 1);
    assert!(
        close(p.time(), 0.25),
        "go stays true but B is not re-entered: {}",
        p.time()
    );
}

#[test]
fn exit_re_enters_at_the_entry_state() {
    let mut p = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": false, "duration": 0,
             "conditions": [{"parameter": "go", "mode": "if"}]},
            {"from": "B", "to": "exit", "has_exit_time": true, "exit_time": 1.0, "duration": 0}]"#,
    );
    set(&mut p, "go", true);
    p.update(DT);
    set(&mut p, "go", false);
    run(&mut p, 0.0, 2.0);
    assert_eq!(p.current(), 0);
}

/// A → B (0.5 s, interruption source and ordering as given), and two more transitions that hold once `n` is 1:
/// A → C listed before A → B, and A → D listed after it, plus B → D.
fn interruptible(source: &str, ordered: bool) -> MachinePlayer {
    let mut p = machine(&format!(
        r#"[{{"from": "A", "to": "C", "has_exit_time": false, "duration": 0.4,
              "conditions": [{{"parameter": "n", "mode": "equals", "threshold": 1}}]}},
            {{"from": "A", "to": "B", "has_exit_time": false, "duration": 0.5,
              "interruption_source": "{source}", "ordered_interruption": {ordered},
              "conditions": [{{"parameter": "go", "mode": "if"}}]}},
            {{"from": "A", "to": "D", "has_exit_time": false, "duration": 0.4,
              "conditions": [{{"parameter": "n", "mode": "greater", "threshold": 0}}]}},
            {{"from": "B", "to": "D", "has_exit_time": false, "duration": 0.4,
              "conditions": [{{"parameter": "n", "mode": "greater", "threshold": 0}}]}}]"#
    ));
    set(&mut p, "go", true);
    p.update(DT);
    assert_eq!(p.active().unwrap().to, 1);
    run(&mut p, 0.0, 0.2);
    p
}

/// Sets n = `n` and updates once: the destination the machine heads for then.
fn interrupt_with(p: &mut MachinePlayer, n: f64) -> usize {
    assert!(p.set("n", ParameterValue::Number(n)));
    p.update(DT);
    p.active().map_or(p.current(), |a| a.to)
}

#[test]
fn interruption_sources_decide_who_may_interrupt() {
    // None: nothing interrupts.
    assert_eq!(interrupt_with(&mut interruptible("none", true), 1.0), 1);
    // Current, ordered: only A's transitions listed before A → B (A → C holds with n = 1; A → D with n = 2 is
    // listed after).
    assert_eq!(interrupt_with(&mut interruptible("current", true), 2.0), 1);
    assert_eq!(interrupt_with(&mut interruptible("current", true), 1.0), 2);
    // Current, not ordered: A → D too.
    assert_eq!(interrupt_with(&mut interruptible("current", false), 2.0), 3);
    // Next: B's transitions (B → D), not A's.
    assert_eq!(interrupt_with(&mut interruptible("next", true), 2.0), 3);
    let mut next = interruptible("next", true);
    next.machine.transitions[3].conditions[0].threshold = 5.0;
    assert_eq!(interrupt_with(&mut next, 1.0), 1, "A → C is not B's");
    // Both hold with n = 1: the order of the sources decides (A → C for current first, B → D for next first).
    assert_eq!(
        interrupt_with(&mut interruptible("current_then_next", true), 1.0),
        2
    );
    assert_eq!(
        interrupt_with(&mut interruptible("next_then_current", true), 1.0),
        3
    );
}

#[test]
fn an_interruption_freezes_the_blended_pose_and_fades_it_into_the_new_destination() {
    let mut p = interruptible("current", true);
    let before = p.terms();
    assert!(close(before[1].weight, 0.4), "{before:?}");
    assert_eq!(interrupt_with(&mut p, 1.0), 2);
    // The frozen terms are the blend as it stood at the interruption (after this update's advance).
    let frozen = p.take_freeze().expect("an interruption freezes");
    assert_eq!(frozen.len(), 2);
    assert!(close(frozen[1].weight, 0.42), "{frozen:?}");
    assert!(p.take_freeze().is_none(), "handed over once");
    assert!(matches!(
        p.events(),
        [MachineEvent::Started {
            transition: 0,
            interrupted: true
        }]
    ));
    // The frozen pose does not advance; the new destination fades in linearly over its 0.4 s.
    run(&mut p, 0.0, 0.1);
    let terms = p.terms();
    assert_eq!(terms[0].motion, Motion::Frozen);
    assert!(close(terms[1].weight, 0.25), "{terms:?}");
    assert!(matches!(terms[1].motion, Motion::State { state: 2, time } if close(time, 0.1)));
    run(&mut p, 0.0, 0.3);
    assert_eq!(p.current(), 2);
    assert!(p.active().is_none());
}

#[test]
fn any_state_transitions_are_tested_first_and_may_interrupt() {
    let mut p = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": false, "duration": 0.5,
             "conditions": [{"parameter": "go", "mode": "if"}]},
            {"from": "any", "to": "D", "has_exit_time": false, "duration": 0.2,
             "conditions": [{"parameter": "jump", "mode": "if"}]}]"#,
    );
    set(&mut p, "go", true);
    p.update(DT);
    run(&mut p, 0.0, 0.1);
    assert!(p.set("jump", ParameterValue::Bool(true)));
    p.update(DT);
    assert_eq!(p.active().unwrap().to, 3);
    assert!(p.active().unwrap().frozen_source);
}

#[test]
fn godot_starts_no_transition_while_it_fades_and_follows_its_xfade_curve() {
    let mut p = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": false, "duration": 0.5, "model": "godot",
             "interruption_source": "current_then_next", "xfade_curve": [[0, 0], [0.5, 0.8], [1, 1]],
             "conditions": [{"parameter": "go", "mode": "if"}]},
            {"from": "any", "to": "D", "has_exit_time": false, "duration": 0.2,
             "conditions": [{"parameter": "jump", "mode": "if"}]}]"#,
    );
    set(&mut p, "go", true);
    p.update(DT);
    run(&mut p, 0.0, 0.1);
    // A fifth of the way: the curve's first segment (0 to 0.8 over 0.5) at 0.2 gives 0.32.
    assert!(close(p.terms()[1].weight, 0.32), "{:?}", p.terms());
    assert!(p.set("jump", ParameterValue::Bool(true)));
    run(&mut p, 0.0, 0.1);
    assert_eq!(p.active().unwrap().to, 1, "the fade runs on");
    run(&mut p, 0.0, 0.3);
    // Once it has ended the trigger, still set, fires.
    assert_eq!(p.active().map_or(p.current(), |a| a.to), 3);
}

#[test]
fn inertialization_shortens_the_next_duration_by_the_time_left() {
    let mut p = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": false, "duration": 0.5, "model": "inertialization",
             "interruption_source": "next", "conditions": [{"parameter": "go", "mode": "if"}]},
            {"from": "B", "to": "D", "has_exit_time": false, "duration": 0.4, "model": "inertialization",
             "conditions": [{"parameter": "back", "mode": "if"}]}]"#,
    );
    set(&mut p, "go", true);
    p.update(DT);
    run(&mut p, 0.0, 0.2);
    let terms = p.terms();
    assert_eq!(terms.len(), 1, "the destination plays whole");
    assert!(matches!(terms[0].motion, Motion::State { state: 1, time } if close(time, 0.1)));
    set(&mut p, "back", true);
    p.update(DT);
    // 0.5 − 0.21 = 0.29 s were left: 0.4 − 0.29.
    assert!((p.active().unwrap().duration - 0.11).abs() < 1e-9);
}

#[test]
fn xfade_curves_interpolate_between_their_points() {
    assert_eq!(xfade(&[], 0.3), 0.3);
    let c = [[0.2, 0.0], [0.6, 1.0]];
    assert_eq!(xfade(&c, 0.1), 0.0);
    assert!(close(xfade(&c, 0.4), 0.5));
    assert_eq!(xfade(&c, 0.9), 1.0);
}

#[test]
fn a_restart_goes_back_to_the_entry_and_keeps_the_parameters() {
    let mut p = gated_at(0.5);
    set(&mut p, "go", true);
    run(&mut p, 0.0, 0.7);
    assert_eq!(p.current(), 1);
    p.restart();
    assert_eq!((p.current(), p.time()), (0, 0.0));
    assert!(p.active().is_none());
    assert_eq!(p.value_of("go"), Some(1.0));
}

/// Coasting moves the clocks as an update's first step does but decides nothing: a transition past its duration
/// stays running (its destination alone in the terms), an exit time crossed starts nothing, a trigger stays set;
/// put back, the tick's state updates as if the coast had not happened.
#[test]
fn coasting_moves_the_clocks_and_decides_nothing() {
    let mut p = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": false, "duration": 0.1,
             "conditions": [{"parameter": "jump", "mode": "if"}]},
            {"from": "B", "to": "D", "has_exit_time": true, "exit_time": 0.1, "duration": 0.2}]"#,
    );
    p.update(0.0);
    assert!(p.set("jump", ParameterValue::Bool(true)));
    let tick = p.tick_state();
    p.coast(0.05);
    assert!(close(p.time(), 0.05) && p.active().is_none());
    assert_eq!(p.value_of("jump"), Some(1.0), "no trigger consumed");
    p.set_tick_state(tick);
    p.update(0.05);
    let started = *p.active().unwrap();
    assert_eq!(started.to, 1);
    // Coasting 0.3 s: the transition's 0.1 s are over and B's exit time (0.1 of 2 s) is crossed, but A → B
    // still runs, B alone in the terms, and nothing starts.
    let tick = p.tick_state();
    p.coast(0.3);
    let a = *p.active().unwrap();
    assert!(close(a.elapsed, 0.3) && close(a.to_time, 0.15));
    assert!(close(p.time(), 0.35));
    let terms = p.terms();
    assert_eq!(terms.len(), 1);
    assert!(matches!(terms[0].motion, Motion::State { state: 1, time } if close(time, 0.15)));
    p.set_tick_state(tick);
    assert_eq!(p.tick_state(), tick);
    p.update(0.3);
    // The update completes A → B and, B's exit time crossed at 0.2 s of its time, starts B → D.
    assert_eq!(p.current(), 1);
    let a = *p.active().unwrap();
    assert_eq!(a.to, 3);
    assert!(close(a.elapsed, 0.1), "{a:?}");
}

/// A trigger fires once whichever layer takes it: a layer that started its update from the machine's values and
/// consumed a trigger resets it in the machine; one it did not consume, or a bool, stays.
#[test]
fn a_trigger_a_layer_takes_is_reset_in_the_machine() {
    let mut base = machine(r#"[]"#);
    assert!(base.set("jump", ParameterValue::Bool(true)));
    assert!(base.set("go", ParameterValue::Bool(true)));
    let found = base.values().to_vec();
    let mut layer = machine(
        r#"[{"from": "A", "to": "B", "has_exit_time": false, "duration": 0.1,
             "conditions": [{"parameter": "jump", "mode": "if"}]}]"#,
    );
    layer.set_values(&found);
    layer.update(DT);
    assert!(layer.active().is_some(), "the layer takes the trigger");
    base.reset_triggers_taken_by(&found, &layer);
    assert_eq!(base.value_of("jump"), Some(0.0));
    assert_eq!(base.value_of("go"), Some(1.0));
    // A layer that took nothing leaves the trigger set.
    assert!(base.set("jump", ParameterValue::Bool(true)));
    let found = base.values().to_vec();
    let mut idle = machine(r#"[]"#);
    idle.set_values(&found);
    idle.update(DT);
    base.reset_triggers_taken_by(&found, &idle);
    assert_eq!(base.value_of("jump"), Some(1.0));
}

/// Unity's Entry transitions: entering (the first update, and through Exit) takes the first whose conditions hold
/// on the parameters as that update finds them, consuming its trigger; none holding, the entry state.
#[test]
fn entry_transitions_choose_the_state_entered() {
    let text = r#"{"parameters": [{"name": "n", "type": "int"}, {"name": "jump", "type": "trigger"},
                                  {"name": "go", "type": "bool"}],
                   "states": [{"name": "A", "clip": "a"}, {"name": "B", "clip": "b"}, {"name": "C", "clip": "c"}],
                   "entry": "A",
                   "entry_transitions": [
                       {"to": "B", "conditions": [{"parameter": "n", "mode": "equals", "threshold": 2}]},
                       {"to": "C", "conditions": [{"parameter": "jump", "mode": "if"}]}],
                   "transitions": [{"from": "B", "to": "exit", "has_exit_time": false, "duration": 0,
                                    "conditions": [{"parameter": "go", "mode": "if"}]}]}"#;
    let m: StateMachine = serde_json::from_str(text).unwrap();
    m.validate().unwrap();
    let info = StateInfo {
        length: 1.0,
        looping: true,
    };
    let player = || MachinePlayer::new(&m, vec![info; 3]);
    let name = |p: &MachinePlayer| m.states[p.current()].name.clone();
    let mut p = player();
    p.update(0.0);
    assert_eq!(name(&p), "A", "none holds: the entry state");
    let mut p = player();
    assert!(p.set("jump", ParameterValue::Bool(true)));
    p.update(0.0);
    assert_eq!(name(&p), "C");
    assert_eq!(p.value_of("jump"), Some(0.0), "the trigger is consumed");
    let mut p = player();
    assert!(p.set("jump", ParameterValue::Bool(true)));
    assert!(p.set("n", ParameterValue::Number(2.0)));
    p.update(0.0);
    assert_eq!(name(&p), "B", "the first that holds");
    assert_eq!(
        p.value_of("jump"),
        Some(1.0),
        "a trigger the chosen one does not read stays"
    );
    // Through Exit: B exits on go and re-enters, now with n at 0 and jump set: C.
    assert!(p.set("n", ParameterValue::Number(0.0)));
    assert!(p.set("go", ParameterValue::Bool(true)));
    p.update(DT);
    assert_eq!(name(&p), "C");
    // An entry transition to no state is refused by name.
    let bad: StateMachine =
        serde_json::from_str(&text.replace(r#"{"to": "C","#, r#"{"to": "D","#)).unwrap();
    let e = bad.validate().unwrap_err().to_string();
    assert!(e.contains("entry transition 1") && e.contains("'D'"), "{e}");
}

/// Unity's Cycle Offset: a state's motion is sampled its offset in cycles on from its normalised time, the
/// offset's parameter replacing the constant where the state has one; the state's own time (exit times) is not
/// moved.
#[test]
fn a_cycle_offset_moves_where_the_motion_is_sampled() {
    let text = r#"{"parameters": [{"name": "phase", "type": "float", "default": 0.5}],
                   "states": [{"name": "A", "clip": "a", "cycle_offset": 0.25},
                              {"name": "B", "clip": "b", "cycle_offset": 0.25,
                               "cycle_offset_parameter": "phase"}],
                   "entry": "A", "transitions": []}"#;
    let m: StateMachine = serde_json::from_str(text).unwrap();
    m.validate().unwrap();
    let info = StateInfo {
        length: 1.0,
        looping: true,
    };
    let mut p = MachinePlayer::new(&m, vec![info, info]);
    run(&mut p, 0.0, 0.2);
    assert!(close(p.time(), 0.2), "{}", p.time());
    assert!(close(p.motion_time(0, p.time()), 0.45));
    assert!(close(p.motion_time(1, 0.2), 0.7));
    assert!(p.set("phase", ParameterValue::Number(-0.1)));
    assert!(close(p.motion_time(1, 0.2), 0.1));
    let bad: StateMachine = serde_json::from_str(&text.replacen(
        r#""cycle_offset": 0.25,"#,
        r#""cycle_offset": 1e300,"#,
        1,
    ))
    .unwrap();
    let e = bad.validate().unwrap_err().to_string();
    assert!(e.contains("cycle offset") && e.contains("'B'"), "{e}");
}

/// Unity's Motion Time parameter: the state's motion is sampled where the parameter says, in cycles, whatever its
/// clock and its cycle offset; the clock still runs (exit times read it). A parameter that is not a number is
/// refused by name.
#[test]
fn a_time_parameter_places_the_motion_whatever_the_clock() {
    let text = r#"{"parameters": [{"name": "scrub", "type": "float", "default": 0.3}],
                   "states": [{"name": "A", "clip": "a", "cycle_offset": 0.25, "time_parameter": "scrub"}],
                   "entry": "A", "transitions": []}"#;
    let m: StateMachine = serde_json::from_str(text).unwrap();
    m.validate().unwrap();
    let info = StateInfo {
        length: 1.0,
        looping: true,
    };
    let mut p = MachinePlayer::new(&m, vec![info]);
    run(&mut p, 0.0, 0.5);
    assert!(close(p.time(), 0.5), "{}", p.time());
    assert!(close(p.motion_time(0, p.time()), 0.3));
    assert!(p.set("scrub", ParameterValue::Number(0.9)));
    assert!(close(p.motion_time(0, p.time()), 0.9));
    let bad: StateMachine = serde_json::from_str(&text.replace(
        r#""type": "float", "default": 0.3"#,
        r#""type": "bool", "default": false"#,
    ))
    .unwrap();
    let e = bad.validate().unwrap_err().to_string();
    assert!(e.contains("time parameter") && e.contains("'A'"), "{e}");
}

/// A state's tree of blends is checked: its leaves name nodes of its blend space, and its parameters exist and
/// are numbers.
#[test]
fn a_blend_tree_naming_a_missing_node_or_parameter_is_refused() {
    let text = r#"{"parameters": [{"name": "w", "type": "float", "default": 0.5}],
                   "states": [{"name": "A", "blend_space": {"nodes": [{"clip": "a", "position": [0, 0]}]},
                               "tree": {"kind": "direct", "children": [
                                   {"parameter": "w", "tree": {"kind": "node", "node": 0}}]}}],
                   "entry": "A", "transitions": []}"#;
    let m: StateMachine = serde_json::from_str(text).unwrap();
    m.validate().unwrap();
    let bad = |from: &str, to: &str| -> String {
        let m: StateMachine = serde_json::from_str(&text.replace(from, to)).unwrap();
        m.validate().unwrap_err().to_string()
    };
    let e = bad(r#""node": 0"#, r#""node": 3"#);
    assert!(
        e.contains("state 'A' blend tree") && e.contains("node 3"),
        "{e}"
    );
    let e = bad(r#""parameter": "w""#, r#""parameter": "v""#);
    assert!(e.contains("'v'"), "{e}");
}

/// Unity's Speed Multiplier parameter: a state of speed 1.5 whose multiplier `speed` is 2 runs 3 normalised
/// cycles a second on a 1 s clip; at 0.5, 0.75; a parameter changed mid-way changes the rate from then on.
#[test]
fn a_speed_parameter_multiplies_the_states_speed() {
    let text = r#"{"parameters": [{"name": "speed", "type": "float", "default": 2.0}],
                   "states": [{"name": "A", "clip": "a", "speed": 1.5, "speed_parameter": "speed"}],
                   "entry": "A", "transitions": []}"#;
    let m: StateMachine = serde_json::from_str(text).unwrap();
    m.validate().unwrap();
    let mut p = MachinePlayer::new(
        &m,
        vec![StateInfo {
            length: 1.0,
            looping: true,
        }],
    );
    run(&mut p, 0.0, 0.2);
    assert!(close(p.time(), 0.6), "{}", p.time());
    assert!(p.set("speed", ParameterValue::Number(0.5)));
    run(&mut p, 0.2, 0.4);
    assert!(close(p.time(), 0.6 + 0.2 * 0.75), "{}", p.time());
    // A speed parameter that names no numeric parameter is refused by name.
    let bad: StateMachine = serde_json::from_str(&text.replace(
        r#""speed_parameter": "speed""#,
        r#""speed_parameter": "pace""#,
    ))
    .unwrap();
    let e = bad.validate().unwrap_err().to_string();
    assert!(e.contains("pace") && e.contains("speed parameter"), "{e}");
}
