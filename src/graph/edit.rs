//! Edits of a state machine as a graph editor makes them: add, rename, move and delete states, set the entry,
//! connect and reorder transitions, add and rename parameters, weigh a layer. Each keeps the machine's references whole (a
//! renamed state's transitions follow it; a deleted state takes its transitions with it) and refuses what would
//! break them with a message naming the item.

use super::machine::{
    ANY_STATE, Condition, EXIT, EntryTransition, MAX_MACHINE_ITEMS, Parameter, State, StateMachine,
    Transition,
};

/// One change to a state machine (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub enum MachineEdit {
    /// Adds a state (the first one becomes the entry).
    AddState(Box<State>),
    /// Deletes a state by name, with every transition from or to it (the entry moves to the first state left).
    RemoveState(String),
    /// Renames a state; transitions and the entry follow.
    RenameState {
        /// The state's name now.
        from: String,
        /// Its new name.
        to: String,
    },
    /// Moves a state in the graph view.
    MoveState {
        /// The state's name.
        name: String,
        /// Where it is drawn.
        position: [f32; 2],
    },
    /// Replaces what a state plays and how (its name is kept: renaming is [`MachineEdit::RenameState`]).
    SetState(usize, Box<State>),
    /// Makes a state the entry.
    SetEntry(String),
    /// Adds a transition with Unity's defaults from a state or [`ANY_STATE`] to a state or [`EXIT`].
    AddTransition {
        /// Source state or [`ANY_STATE`].
        from: String,
        /// Destination state or [`EXIT`].
        to: String,
    },
    /// Replaces a transition's settings (its ends are kept).
    SetTransition(usize, Box<Transition>),
    /// Deletes a transition.
    RemoveTransition(usize),
    /// Moves a transition one place earlier (`up`) or later among its source's transitions: their priority.
    ReorderTransition(usize, bool),
    /// Adds a parameter.
    AddParameter(Parameter),
    /// Replaces a parameter; a new name is carried into conditions and blend-state points.
    SetParameter(usize, Parameter),
    /// Deletes a parameter with the conditions that test it (blend states it drove lose their point parameters).
    RemoveParameter(usize),
    /// Sets a layer's weight (Unity's layer Weight), clamped into [0, 1].
    SetLayerWeight {
        /// The layer, by index among the machine's layers.
        layer: usize,
        /// Its weight.
        weight: f64,
    },
}

impl MachineEdit {
    /// Applies the edit, or says why not (the machine is then unchanged).
    pub fn apply(self, m: &mut StateMachine) -> Result<(), String> {
        match self {
            MachineEdit::AddState(state) => {
                check_name(m, "state", &state.name, None)?;
                if m.states.len() >= MAX_MACHINE_ITEMS {
                    return Err(format!(
                        "a state machine may have {MAX_MACHINE_ITEMS} states"
                    ));
                }
                if m.states.is_empty() || m.state_index(&m.entry).is_none() {
                    m.entry = state.name.clone();
                }
                m.states.push(*state);
            }
            MachineEdit::RemoveState(name) => {
                let i = state(m, &name)?;
                m.states.remove(i);
                m.transitions.retain(|t| t.from != name && t.to != name);
                m.entry_transitions.retain(|t| t.to != name);
                if m.entry == name {
                    m.entry = m.states.first().map(|s| s.name.clone()).unwrap_or_default();
                }
            }
            MachineEdit::RenameState { from, to } => {
                let i = state(m, &from)?;
                if from == to {
                    return Ok(());
                }
                check_name(m, "state", &to, Some(i))?;
                for t in &mut m.transitions {
                    if t.from == from {
                        t.from = to.clone();
                    }
                    if t.to == from {
                        t.to = to.clone();
                    }
                }
                for t in m.entry_transitions.iter_mut().filter(|t| t.to == from) {
                    t.to = to.clone();
                }
                if m.entry == from {
                    m.entry = to.clone();
                }
                m.states[i].name = to;
            }
            MachineEdit::MoveState { name, position } => {
                let i = state(m, &name)?;
                if position.iter().all(|v| v.is_finite()) {
                    m.states[i].position = Some(position);
                }
            }
            MachineEdit::SetState(i, new) => {
                let slot = m.states.get_mut(i).ok_or_else(|| format!("no state {i}"))?;
                State {
                    name: slot.name.clone(),
                    ..(*new).clone()
                }
                .check_numbers()
                .map_err(|e| e.to_string())?;
                let name = std::mem::take(&mut slot.name);
                *slot = State { name, ..*new };
            }
            MachineEdit::SetEntry(name) => {
                state(m, &name)?;
                m.entry = name;
            }
            MachineEdit::AddTransition { from, to } => {
                if from != ANY_STATE {
                    state(m, &from)?;
                }
                if to != EXIT {
                    state(m, &to)?;
                }
                if from == ANY_STATE && to == EXIT {
                    return Err("Any State cannot lead to Exit".into());
                }
                if m.transitions.len() >= MAX_MACHINE_ITEMS {
                    return Err(format!(
                        "a state machine may have {MAX_MACHINE_ITEMS} transitions"
                    ));
                }
                // As Unity makes them: a transition out of Any State fires on its conditions alone.
                let has_exit_time = from != ANY_STATE;
                m.transitions.push(Transition {
                    from,
                    to,
                    has_exit_time,
                    ..Transition::default()
                });
            }
            MachineEdit::SetTransition(i, new) => {
                let slot = m
                    .transitions
                    .get_mut(i)
                    .ok_or_else(|| format!("no transition {i}"))?;
                new.check_numbers(&format!("transition {i} ({} -> {})", slot.from, slot.to))
                    .map_err(|e| e.to_string())?;
                let (from, to) = (std::mem::take(&mut slot.from), std::mem::take(&mut slot.to));
                *slot = Transition { from, to, ..*new };
            }
            MachineEdit::RemoveTransition(i) => {
                if i >= m.transitions.len() {
                    return Err(format!("no transition {i}"));
                }
                m.transitions.remove(i);
            }
            MachineEdit::ReorderTransition(i, up) => {
                let from = &m
                    .transitions
                    .get(i)
                    .ok_or_else(|| format!("no transition {i}"))?
                    .from;
                let same: Vec<usize> = (0..m.transitions.len())
                    .filter(|&k| &m.transitions[k].from == from)
                    .collect();
                let at = same.iter().position(|&k| k == i).unwrap_or(0);
                let other = if up {
                    at.checked_sub(1).map(|a| same[a])
                } else {
                    same.get(at + 1).copied()
                };
                if let Some(k) = other {
                    m.transitions.swap(i, k);
                }
            }
            MachineEdit::AddParameter(p) => {
                check_name(m, "parameter", &p.name, None)?;
                if m.parameters.len() >= MAX_MACHINE_ITEMS {
                    return Err(format!(
                        "a state machine may have {MAX_MACHINE_ITEMS} parameters"
                    ));
                }
                m.parameters.push(p);
            }
            MachineEdit::SetParameter(i, p) => {
                let old = m
                    .parameters
                    .get(i)
                    .ok_or_else(|| format!("no parameter {i}"))?
                    .name
                    .clone();
                if p.name != old {
                    check_name(m, "parameter", &p.name, Some(i))?;
                    rename_parameter(m, &old, &p.name);
                }
                m.parameters[i] = p;
            }
            MachineEdit::SetLayerWeight { layer, weight } => {
                let l = m
                    .layers
                    .get_mut(layer)
                    .ok_or_else(|| format!("no layer {layer}"))?;
                if !weight.is_finite() {
                    return Err(format!(
                        "layer '{}': weight {weight} is not a number",
                        l.name
                    ));
                }
                l.weight = weight.clamp(0.0, 1.0);
            }
            MachineEdit::RemoveParameter(i) => {
                if i >= m.parameters.len() {
                    return Err(format!("no parameter {i}"));
                }
                let name = m.parameters.remove(i).name;
                for conditions in condition_lists(m) {
                    conditions.retain(|c| c.parameter != name);
                }
                for s in m.all_states_mut() {
                    if s.point_parameters
                        .as_ref()
                        .is_some_and(|p| p.contains(&name))
                    {
                        s.point_parameters = None;
                    }
                    // A tree that reads it no longer weighs the nodes: the space's own point does.
                    if s.tree
                        .as_ref()
                        .is_some_and(|t| t.parameters().contains(&name.as_str()))
                    {
                        s.tree = None;
                    }
                    for p in [
                        &mut s.speed_parameter,
                        &mut s.cycle_offset_parameter,
                        &mut s.time_parameter,
                        &mut s.mirror_parameter,
                    ] {
                        if p.as_ref() == Some(&name) {
                            *p = None;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The index of the state named `name`, or a message.
fn state(m: &StateMachine, name: &str) -> Result<usize, String> {
    m.state_index(name)
        .ok_or_else(|| format!("no state named '{name}'"))
}

/// Refuses an empty name, a reserved one for a state, and one another item already has (`except` is the item
/// being renamed).
fn check_name(
    m: &StateMachine,
    what: &str,
    name: &str,
    except: Option<usize>,
) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err(format!("a {what} needs a name"));
    }
    let taken = if what == "state" {
        if name == ANY_STATE || name == EXIT {
            return Err(format!(
                "'{name}' is reserved for {}",
                if name == EXIT { "Exit" } else { "Any State" }
            ));
        }
        m.states
            .iter()
            .enumerate()
            .any(|(k, s)| Some(k) != except && s.name == name)
    } else {
        m.parameters
            .iter()
            .enumerate()
            .any(|(k, p)| Some(k) != except && p.name == name)
    };
    if taken {
        return Err(format!("another {what} is already named '{name}'"));
    }
    Ok(())
}

/// Every condition list of the machine and its layers: their transitions' and their Entry transitions'.
fn condition_lists(m: &mut StateMachine) -> impl Iterator<Item = &mut Vec<Condition>> {
    fn of<'a>(
        transitions: &'a mut [Transition],
        entries: &'a mut [EntryTransition],
    ) -> impl Iterator<Item = &'a mut Vec<Condition>> {
        transitions
            .iter_mut()
            .map(|t| &mut t.conditions)
            .chain(entries.iter_mut().map(|t| &mut t.conditions))
    }
    let layers = m
        .layers
        .iter_mut()
        .flat_map(|l| of(&mut l.transitions, &mut l.entry_transitions));
    of(&mut m.transitions, &mut m.entry_transitions).chain(layers)
}

/// Renames a parameter where the machine and its layers read it: conditions, points, trees, the states' speed,
/// offset, time and mirror parameters.
fn rename_parameter(m: &mut StateMachine, old: &str, new: &str) {
    for c in condition_lists(m).flatten() {
        if c.parameter == old {
            c.parameter = new.to_string();
        }
    }
    for s in m.all_states_mut() {
        for p in s
            .point_parameters
            .iter_mut()
            .flatten()
            .chain(s.speed_parameter.as_mut())
            .chain(s.cycle_offset_parameter.as_mut())
            .chain(s.time_parameter.as_mut())
            .chain(s.mirror_parameter.as_mut())
        {
            if p == old {
                *p = new.to_string();
            }
        }
        if let Some(tree) = &mut s.tree {
            tree.rename_parameter(old, new);
        }
    }
}

/// A state playing `clip`, at normal speed, drawn at `position`.
pub fn clip_state(name: &str, clip: &str, position: [f32; 2]) -> State {
    State {
        name: name.to_string(),
        clip: Some(clip.to_string()),
        blend_space: None,
        speed: 1.0,
        speed_parameter: None,
        cycle_offset: 0.0,
        cycle_offset_parameter: None,
        time_parameter: None,
        mirror: false,
        mirror_parameter: None,
        point_parameters: None,
        tree: None,
        position: Some(position),
        group: None,
    }
}

/// A name not yet taken by a state: `base`, else `base 2`, `base 3`, …
pub fn free_state_name(m: &StateMachine, base: &str) -> String {
    let base = if base.trim().is_empty() || base == ANY_STATE || base == EXIT {
        "State"
    } else {
        base
    };
    (1..)
        .map(|k| {
            if k == 1 {
                base.to_string()
            } else {
                format!("{base} {k}")
            }
        })
        .find(|n| m.state_index(n).is_none())
        .unwrap_or_default()
}

/// The machine a transition's preview plays: it starts in the transition's source (for Any State, the entry
/// state), and the transition is its only one, its conditions taken as met, so that it fires at its exit time
/// (at once when it has none) and the destination then plays on. None when the transition or its states are
/// missing.
pub fn preview_machine(m: &StateMachine, transition: usize) -> Option<StateMachine> {
    let t = m.transitions.get(transition)?;
    let from = if t.from == ANY_STATE {
        m.entry.clone()
    } else {
        t.from.clone()
    };
    let to = if t.to == EXIT {
        m.entry.clone()
    } else {
        t.to.clone()
    };
    m.state_index(&from)?;
    m.state_index(&to)?;
    let always = "__preview";
    let mut parameters = m.parameters.clone();
    parameters.push(Parameter {
        name: always.into(),
        kind: super::machine::ParameterKind::Bool,
        default: super::machine::ParameterValue::Bool(true),
    });
    Some(StateMachine {
        parameters,
        states: m.states.clone(),
        entry: from.clone(),
        entry_transitions: Vec::new(),
        transitions: vec![Transition {
            from,
            to,
            conditions: vec![super::machine::Condition {
                parameter: always.into(),
                mode: super::machine::ConditionMode::If,
                threshold: 0.0,
            }],
            ..t.clone()
        }],
        layers: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::machine::{Condition, ConditionMode, ParameterKind, ParameterValue};

    /// A layer's weight is set clamped into [0, 1]; a layer that is not there, or a weight that is not a number,
    /// is refused with the machine unchanged.
    #[test]
    fn a_layers_weight_is_set_clamped_and_a_missing_layer_is_refused() {
        let mut m = machine();
        m.layers.push(crate::graph::machine::MachineLayer {
            name: "Arms".into(),
            ..Default::default()
        });
        let set = |m: &mut StateMachine, layer, weight| {
            MachineEdit::SetLayerWeight { layer, weight }.apply(m)
        };
        set(&mut m, 0, 0.25).unwrap();
        assert_eq!(m.layers[0].weight, 0.25);
        set(&mut m, 0, 7.0).unwrap();
        assert_eq!(m.layers[0].weight, 1.0);
        let before = m.clone();
        assert!(set(&mut m, 1, 0.5).unwrap_err().contains("no layer 1"));
        assert!(set(&mut m, 0, f64::NAN).unwrap_err().contains("'Arms'"));
        assert_eq!(m, before);
    }

    fn machine() -> StateMachine {
        let mut m = StateMachine::default();
        for (name, x) in [("Idle", 0.0), ("Walk", 200.0)] {
            MachineEdit::AddState(Box::new(clip_state(name, name, [x, 0.0])))
                .apply(&mut m)
                .unwrap();
        }
        MachineEdit::AddParameter(Parameter {
            name: "speed".into(),
            kind: ParameterKind::Float,
            default: ParameterValue::Number(0.0),
        })
        .apply(&mut m)
        .unwrap();
        MachineEdit::AddTransition {
            from: "Idle".into(),
            to: "Walk".into(),
        }
        .apply(&mut m)
        .unwrap();
        m.transitions[0].conditions.push(Condition {
            parameter: "speed".into(),
            mode: ConditionMode::Greater,
            threshold: 0.1,
        });
        m
    }

    #[test]
    fn the_first_state_is_the_entry_and_a_new_transition_has_unitys_defaults() {
        let m = machine();
        assert_eq!(m.entry, "Idle");
        let t = &m.transitions[0];
        assert!(t.has_exit_time && t.fixed_duration);
        assert_eq!((t.exit_time, t.duration, t.offset), (0.75, 0.25, 0.0));
        m.validate().unwrap();
    }

    /// Unity's Any State transitions start without an exit time: a trigger-driven jump fires at once.
    #[test]
    fn a_new_transition_out_of_any_state_has_no_exit_time() {
        let mut m = machine();
        MachineEdit::AddTransition {
            from: ANY_STATE.into(),
            to: "Walk".into(),
        }
        .apply(&mut m)
        .unwrap();
        let t = m.transitions.last().unwrap();
        assert!(!t.has_exit_time && t.fixed_duration, "{t:?}");
        m.validate().unwrap();
    }

    #[test]
    fn renaming_carries_into_transitions_entry_and_conditions() {
        let mut m = machine();
        MachineEdit::RenameState {
            from: "Idle".into(),
            to: "Stand".into(),
        }
        .apply(&mut m)
        .unwrap();
        assert_eq!(
            (m.entry.as_str(), m.transitions[0].from.as_str()),
            ("Stand", "Stand")
        );
        let mut p = m.parameters[0].clone();
        p.name = "velocity".into();
        MachineEdit::SetParameter(0, p).apply(&mut m).unwrap();
        assert_eq!(m.transitions[0].conditions[0].parameter, "velocity");
        m.validate().unwrap();
    }

    #[test]
    fn names_that_clash_or_are_reserved_are_refused_and_nothing_changes() {
        let mut m = machine();
        let before = m.clone();
        for edit in [
            MachineEdit::RenameState {
                from: "Idle".into(),
                to: "Walk".into(),
            },
            MachineEdit::RenameState {
                from: "Idle".into(),
                to: "exit".into(),
            },
            MachineEdit::AddState(Box::new(clip_state(" ", "x", [0.0; 2]))),
            MachineEdit::AddTransition {
                from: "any".into(),
                to: "exit".into(),
            },
            MachineEdit::AddTransition {
                from: "Nope".into(),
                to: "Walk".into(),
            },
        ] {
            let e = edit.clone().apply(&mut m).unwrap_err();
            assert!(!e.is_empty(), "{edit:?}");
            assert_eq!(m, before, "{edit:?} changed the machine: {e}");
        }
    }

    #[test]
    fn deleting_a_state_takes_its_transitions_and_moves_the_entry() {
        let mut m = machine();
        MachineEdit::RemoveState("Idle".into())
            .apply(&mut m)
            .unwrap();
        assert!(m.transitions.is_empty());
        assert_eq!(m.entry, "Walk");
        m.validate().unwrap();
    }

    #[test]
    fn deleting_a_parameter_takes_its_conditions() {
        let mut m = machine();
        MachineEdit::RemoveParameter(0).apply(&mut m).unwrap();
        assert!(m.transitions[0].conditions.is_empty());
        m.validate().unwrap();
    }

    #[test]
    fn reordering_swaps_only_within_the_same_source() {
        let mut m = machine();
        for (from, to) in [("Walk", "Idle"), ("Idle", "exit")] {
            MachineEdit::AddTransition {
                from: from.into(),
                to: to.into(),
            }
            .apply(&mut m)
            .unwrap();
        }
        // Idle's transitions are 0 and 2; moving 2 up swaps it with 0, not with Walk's 1.
        MachineEdit::ReorderTransition(2, true)
            .apply(&mut m)
            .unwrap();
        let ends: Vec<_> = m
            .transitions
            .iter()
            .map(|t| (t.from.as_str(), t.to.as_str()))
            .collect();
        assert_eq!(ends, [("Idle", "exit"), ("Walk", "Idle"), ("Idle", "Walk")]);
    }

    #[test]
    fn a_preview_fires_its_transition_at_the_exit_time_whatever_the_conditions() {
        use crate::graph::player::{MachinePlayer, StateInfo};
        let m = machine();
        let p = preview_machine(&m, 0).unwrap();
        p.validate().unwrap();
        let info = StateInfo {
            length: 2.0,
            looping: true,
        };
        let mut player = MachinePlayer::new(&p, vec![info; 2]);
        // Exit time 0.75 of a 2 s state: 1.5 s; then 0.25 s of blend.
        player.update(1.4);
        assert!(player.active().is_none());
        player.update(0.2);
        let a = player.active().expect("started at 1.5 s");
        assert!((a.elapsed - 0.1).abs() < 1e-12);
        player.update(0.2);
        assert_eq!(player.current(), 1);
        // It does not fire again from the destination.
        player.update(5.0);
        assert_eq!(player.current(), 1);
        assert!(player.active().is_none());
    }
}
