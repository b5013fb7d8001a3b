//! A state machine as data, as presets hold it (`"state_machine"`): parameters, states playing a clip or a blend
//! space, the entry state, and transitions with Unity's settings plus the model that blends them.
//!
//! Defaults follow what Unity gives a new transition in the Animator window: Has Exit Time on at 0.75, a fixed
//! duration of 0.25 s, no offset, no interruption, ordered interruption, and (from Any State) able to transition
//! to self.

use serde::{Deserialize, Serialize};

use crate::blend::BlendSpace;

/// The name `from` takes for Any State.
pub const ANY_STATE: &str = "any";
/// The name `to` takes for the machine's Exit (which, at the top level, re-enters at the entry state).
pub const EXIT: &str = "exit";

/// The most states, parameters or transitions a machine may have (each bounds the work of one update).
pub const MAX_MACHINE_ITEMS: usize = 1000;

/// The most conditions one transition may have, and all of a machine's transitions together (each is tested on
/// every update).
pub const MAX_CONDITIONS: usize = 64;
/// See [`MAX_CONDITIONS`].
pub const MAX_MACHINE_CONDITIONS: usize = 4000;

/// The most points of a transition's xfade curve.
pub const MAX_CURVE_POINTS: usize = 256;

/// The largest speed a state may play at (either way): beyond it, normalised time runs away.
pub const MAX_STATE_SPEED: f64 = 100.0;

/// The largest exit time, duration, offset (either way) or half-life a transition may have, in seconds or
/// normalised time: an hour, or 3600 loops.
pub const MAX_TRANSITION_SPAN: f64 = 3600.0;

/// A state machine (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StateMachine {
    /// The parameters conditions read and blend-space states are driven by.
    pub parameters: Vec<Parameter>,
    /// The states.
    pub states: Vec<State>,
    /// The state the machine starts in (and re-enters after Exit) when no entry transition holds.
    pub entry: String,
    /// Unity's Entry transitions, in order: on entering (at the start, and through Exit) the first whose
    /// conditions all hold chooses the state (a trigger it reads is consumed), else `entry`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entry_transitions: Vec<EntryTransition>,
    /// Transitions, in priority order per source state (Unity's order in the state's list).
    pub transitions: Vec<Transition>,
    /// Layers above these states (Unity's Animator layers 1…), each with states of its own over the same
    /// parameters, blended over what is below it in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<MachineLayer>,
}

/// An Entry transition: the state it enters when its conditions all hold (none: always).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntryTransition {
    /// The state entered.
    pub to: String,
    /// Its conditions, as a transition's.
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// The most layers a machine may have above its own states.
pub const MAX_MACHINE_LAYERS: usize = 32;

/// A layer of a state machine: its own states, entry and transitions, which read the machine's parameters, and
/// how its pose goes over the layers below (Unity's layer weight, Override blending and Avatar Mask). The mask is
/// a clip layer's: body parts, then per-joint weights by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MachineLayer {
    /// Its name (Unity's layer name).
    pub name: String,
    /// Weight in [0, 1].
    pub weight: f64,
    /// The humanoid body parts it drives (all by default).
    pub parts: Vec<crate::layers::clip_layer::BodyPart>,
    /// Per-joint weights in [0, 1] by joint name, over what the parts give.
    pub joint_weights: std::collections::BTreeMap<String, f32>,
    /// Its states.
    pub states: Vec<State>,
    /// The state it starts in.
    pub entry: String,
    /// Its transitions, in priority order per source state.
    pub transitions: Vec<Transition>,
    /// Tried in order on entering, before `entry` (Unity's Entry transitions of the layer).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entry_transitions: Vec<EntryTransition>,
    /// Override (the default) or Additive: its motion relative to each state's first pose, added to the pose
    /// below (Unity's layer Blending).
    pub mode: crate::layers::clip_layer::LayerMode,
    /// The layer whose states and transitions it plays, each state with this layer's motion for the state of the
    /// same name (Unity's Sync): 0 the machine's own states, k its layer k − 1, always one below it. None: it
    /// plays its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synced_to: Option<usize>,
    /// For a synced layer, Unity's Timing: each state lasts between its source's length and its own by this
    /// layer's weight, in both layers. Off, this layer's motions stretch to the source's lengths.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub synced_timing: bool,
}

impl Default for MachineLayer {
    fn default() -> Self {
        MachineLayer {
            name: String::new(),
            weight: 1.0,
            parts: crate::layers::clip_layer::BodyPart::ALL.to_vec(),
            joint_weights: Default::default(),
            states: Vec::new(),
            entry: String::new(),
            transitions: Vec::new(),
            entry_transitions: Vec::new(),
            mode: Default::default(),
            synced_to: None,
            synced_timing: false,
        }
    }
}

impl MachineLayer {
    /// The layer as a machine of its own over `parameters` (how it is checked and played).
    pub fn machine(&self, parameters: &[Parameter]) -> StateMachine {
        StateMachine {
            parameters: parameters.to_vec(),
            states: self.states.clone(),
            entry: self.entry.clone(),
            entry_transitions: self.entry_transitions.clone(),
            transitions: self.transitions.clone(),
            layers: Vec::new(),
        }
    }

    /// Its mask on `character`, one weight in [0, 1] per joint, as a clip layer's mask reads.
    pub fn joint_mask(&self, character: &crate::core::Character) -> Vec<f32> {
        crate::layers::clip_layer::ClipLayer {
            parts: self.parts.clone(),
            joint_weights: self.joint_weights.clone(),
            ..Default::default()
        }
        .joint_mask(character)
    }
}

/// A parameter and its starting value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    /// Its name, unique in the machine.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: ParameterKind,
    /// Its value at the start (a number, or true/false for bool and trigger parameters).
    #[serde(default)]
    pub default: ParameterValue,
}

/// A parameter's type, as Unity's `AnimatorControllerParameterType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParameterKind {
    /// A real number.
    Float,
    /// A whole number (set values are truncated towards zero, as Unity's SetInteger takes an int).
    Int,
    /// True or false.
    Bool,
    /// A bool that the transition it fires resets.
    Trigger,
}

/// A value written in a preset or a script: a number or true/false.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParameterValue {
    /// true or false.
    Bool(bool),
    /// A number.
    Number(f64),
}

impl Default for ParameterValue {
    fn default() -> Self {
        ParameterValue::Number(0.0)
    }
}

impl ParameterValue {
    /// The value as a number for a parameter of `kind`: bools as 0 or 1, ints truncated.
    pub fn for_kind(self, kind: ParameterKind) -> f64 {
        let v = match self {
            ParameterValue::Bool(b) => f64::from(u8::from(b)),
            ParameterValue::Number(x) if x.is_finite() => x,
            ParameterValue::Number(_) => 0.0,
        };
        match kind {
            ParameterKind::Float => v,
            ParameterKind::Int => v.trunc(),
            ParameterKind::Bool | ParameterKind::Trigger => f64::from(u8::from(v != 0.0)),
        }
    }
}

/// A state: what it plays and how fast.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Its name, unique in the machine.
    pub name: String,
    /// The clip it plays (by name), or
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<String>,
    /// the blend space it plays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blend_space: Option<BlendSpace>,
    /// Playback speed (Unity's Speed): normalised time advances by speed / length per second.
    #[serde(default = "one")]
    pub speed: f64,
    /// A float (or int) parameter the speed is multiplied by (Unity's Speed Multiplier parameter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_parameter: Option<String>,
    /// Added to the state's normalised time where its motion is sampled (Unity's Cycle Offset), in cycles.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cycle_offset: f64,
    /// A float (or int) parameter whose value is the cycle offset instead (Unity's Cycle Offset parameter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle_offset_parameter: Option<String>,
    /// A float (or int) parameter whose value is where the motion is sampled, in cycles, instead of the state's
    /// clock (Unity's Motion Time parameter); the state's own time still decides exit times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_parameter: Option<String>,
    /// Plays the motion mirrored left to right (Unity's Mirror).
    #[serde(default)]
    pub mirror: bool,
    /// A bool parameter that mirrors the state's motion (a blend space's every node) while it is true, instead of
    /// `mirror` (Unity's Mirror parameter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mirror_parameter: Option<String>,
    /// For a blend-space state, the float parameters giving the point's x and y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point_parameters: Option<[String; 2]>,
    /// For a blend-space state, a tree of blends over its nodes whose weights the parameters give instead of one
    /// point (Unity's nested and Direct blend trees).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<crate::blend::tree::WeightTree>,
    /// Where the graph view draws it (x, y); layout only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f32; 2]>,
    /// The sub-state machine it sits in, by path ("Fast", "Fast/Turns"; Unity's), which the graph view draws as a
    /// frame around its states; layout only (a machine plays flat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

fn one() -> f64 {
    1.0
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// A condition of a transition on one parameter, as Unity's `AnimatorCondition`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    /// The parameter's name.
    pub parameter: String,
    /// The test.
    pub mode: ConditionMode,
    /// What `greater`, `less`, `equals` and `not_equal` compare with.
    #[serde(default)]
    pub threshold: f64,
}

/// A condition's test, as Unity's `AnimatorConditionMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConditionMode {
    /// A bool or trigger is true.
    If,
    /// A bool is false.
    IfNot,
    /// A float or int is above the threshold.
    Greater,
    /// A float or int is below the threshold.
    Less,
    /// An int equals the threshold.
    Equals,
    /// An int differs from the threshold.
    NotEqual,
}

impl ConditionMode {
    /// Whether `value` passes the test against `threshold`.
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            ConditionMode::If => value != 0.0,
            ConditionMode::IfNot => value == 0.0,
            ConditionMode::Greater => value > threshold,
            ConditionMode::Less => value < threshold,
            ConditionMode::Equals => value == threshold,
            ConditionMode::NotEqual => value != threshold,
        }
    }
}

/// Which transitions may interrupt a running one, as Unity's `TransitionInterruptionSource`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptionSource {
    /// None may.
    #[default]
    None,
    /// The source state's transitions.
    Current,
    /// The destination state's transitions.
    Next,
    /// The source state's, then the destination's.
    CurrentThenNext,
    /// The destination state's, then the source's.
    NextThenCurrent,
}

/// How a transition blends its source into its destination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransitionModel {
    /// Unity's Animator: a crossfade linear in time, both states advancing; an interruption freezes the blended
    /// pose and fades that static pose into the new destination.
    #[default]
    Unity,
    /// Godot 4's AnimationNodeStateMachine: no automatic transition starts while a fade runs; the crossfade weight
    /// follows the transition's xfade curve.
    Godot,
    /// Inertialization (Bollo, GDC 2018): the destination plays at once and the difference from the source decays
    /// to zero by a quintic per bone; an interruption shortens the next duration by the time left.
    Inertialization,
    /// Dead blending (Holden, 2023): the source is extrapolated with its velocity decaying by a half-life, and
    /// crossfaded into the destination.
    DeadBlending,
}

impl TransitionModel {
    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            TransitionModel::Unity => "Unity crossfade",
            TransitionModel::Godot => "Godot 4",
            TransitionModel::Inertialization => "Inertialization",
            TransitionModel::DeadBlending => "Dead blending",
        }
    }

    /// Every model, in the order the UI lists them.
    pub const ALL: [TransitionModel; 4] = [
        TransitionModel::Unity,
        TransitionModel::Godot,
        TransitionModel::Inertialization,
        TransitionModel::DeadBlending,
    ];
}

/// A transition between states, with Unity's settings (see the module documentation for the defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Transition {
    /// The source state's name, or [`ANY_STATE`].
    pub from: String,
    /// The destination state's name, or [`EXIT`].
    pub to: String,
    /// All must hold for it to fire.
    pub conditions: Vec<Condition>,
    /// Whether it waits for the source's normalised time to reach `exit_time` (with conditions, both must hold).
    pub has_exit_time: bool,
    /// In the source's normalised time: below 1 it is tested on every loop, from 1 on once.
    pub exit_time: f64,
    /// Whether `duration` is in seconds (else a fraction of the source state's length).
    pub fixed_duration: bool,
    /// How long the blend takes.
    pub duration: f64,
    /// The destination's normalised time when it starts.
    pub offset: f64,
    /// Which transitions may interrupt this one.
    pub interruption_source: InterruptionSource,
    /// With `current` as a source, only the source state's transitions of higher priority than this one interrupt.
    pub ordered_interruption: bool,
    /// From Any State: whether it may fire while its destination already plays.
    pub can_transition_to_self: bool,
    /// How it blends.
    pub model: TransitionModel,
    /// Godot's xfade curve: points (x, y) in [0, 1], x increasing, mapping the fade's progress to the
    /// destination's weight (linear between points); empty for a linear fade.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub xfade_curve: Vec<[f64; 2]>,
    /// Dead blending: the half-life of the source's extrapolated velocity, in seconds.
    pub halflife: f64,
}

impl Default for Transition {
    fn default() -> Self {
        Transition {
            from: String::new(),
            to: String::new(),
            conditions: Vec::new(),
            has_exit_time: true,
            exit_time: 0.75,
            fixed_duration: true,
            duration: 0.25,
            offset: 0.0,
            interruption_source: InterruptionSource::None,
            ordered_interruption: true,
            can_transition_to_self: true,
            model: TransitionModel::Unity,
            xfade_curve: Vec::new(),
            halflife: 0.1,
        }
    }
}

/// What is wrong with a machine, naming the item.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MachineError {
    /// A list is longer than [`MAX_MACHINE_ITEMS`].
    #[error("{0} {1}, over the {MAX_MACHINE_ITEMS} a state machine may have")]
    TooMany(usize, &'static str),
    /// Two states or two parameters share a name.
    #[error("two {0} are named '{1}'")]
    Duplicate(&'static str, String),
    /// The entry names no state.
    #[error("the entry state '{0}' is not a state of the machine")]
    NoEntry(String),
    /// A state plays neither a clip nor a blend space, or both.
    #[error("state '{0}' must play exactly one of a clip or a blend space")]
    Motion(String),
    /// A transition names a state that does not exist.
    #[error("transition {0} ({1} -> {2}): no state named '{3}'")]
    UnknownState(usize, String, String, String),
    /// A condition or a state names a parameter that does not exist, or one of the wrong type.
    #[error("{0}: {1}")]
    Parameter(String, String),
    /// A number is out of its range.
    #[error("{0}: {1}")]
    Value(String, String),
    /// The machine has no state to play.
    #[error("the state machine has no state to play")]
    NoState,
}

/// A number as an error message shows it: as written when short, else in scientific notation.
fn shown(v: f64) -> String {
    if v.is_finite() && v.abs() < 1e9 {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

impl State {
    /// Checks its speed's range.
    pub fn check_numbers(&self) -> Result<(), MachineError> {
        if !(self.speed.is_finite() && self.speed.abs() <= MAX_STATE_SPEED) {
            return Err(MachineError::Value(
                format!("state '{}'", self.name),
                format!(
                    "speed {} must be a number from -{MAX_STATE_SPEED} to {MAX_STATE_SPEED}",
                    shown(self.speed)
                ),
            ));
        }
        if !(self.cycle_offset.is_finite() && self.cycle_offset.abs() <= MAX_TRANSITION_SPAN) {
            return Err(MachineError::Value(
                format!("state '{}'", self.name),
                format!(
                    "cycle offset {} must be a number from -{MAX_TRANSITION_SPAN} to {MAX_TRANSITION_SPAN}",
                    shown(self.cycle_offset)
                ),
            ));
        }
        Ok(())
    }
}

impl Transition {
    /// Checks its times' ranges, its counts of conditions and curve points, its curve and thresholds; `at`
    /// names it in the error.
    pub fn check_numbers(&self, at: &str) -> Result<(), MachineError> {
        let t = self;
        let at = || at.to_string();
        let span = MAX_TRANSITION_SPAN;
        for (name, v, min) in [
            ("exit_time", t.exit_time, 0.0),
            ("duration", t.duration, 0.0),
            ("halflife", t.halflife, 0.0),
            ("offset", t.offset, -span),
        ] {
            if !(v.is_finite() && v >= min && v <= span) {
                return Err(MachineError::Value(
                    at(),
                    format!("{name} {} must be a number from {min} to {span}", shown(v)),
                ));
            }
        }
        check_conditions(&t.conditions, &at())?;
        if t.xfade_curve.len() > MAX_CURVE_POINTS {
            return Err(MachineError::Value(
                at(),
                format!(
                    "{} xfade_curve points, over the {MAX_CURVE_POINTS} a curve may have",
                    t.xfade_curve.len()
                ),
            ));
        }
        let curve_ok = t
            .xfade_curve
            .iter()
            .all(|p| p.iter().all(|v| v.is_finite()))
            && t.xfade_curve.windows(2).all(|w| w[0][0] < w[1][0]);
        if !curve_ok {
            return Err(MachineError::Value(
                at(),
                "xfade_curve needs finite points with x increasing".into(),
            ));
        }
        Ok(())
    }
}

/// A transition's conditions: at most [`MAX_CONDITIONS`], each threshold finite; `at` names the transition.
fn check_conditions(conditions: &[Condition], at: &str) -> Result<(), MachineError> {
    if conditions.len() > MAX_CONDITIONS {
        return Err(MachineError::Value(
            at.to_string(),
            format!(
                "{} conditions, over the {MAX_CONDITIONS} a transition may have",
                conditions.len()
            ),
        ));
    }
    if let Some(c) = conditions.iter().find(|c| !c.threshold.is_finite()) {
        return Err(MachineError::Value(
            format!("{at} condition on '{}'", c.parameter),
            format!("threshold {} is not a finite number", shown(c.threshold)),
        ));
    }
    Ok(())
}

impl StateMachine {
    /// Every state of the machine, then its layers' in order.
    pub fn all_states_mut(&mut self) -> impl Iterator<Item = &mut State> {
        let layers = self.layers.iter_mut().flat_map(|l| l.states.iter_mut());
        self.states.iter_mut().chain(layers)
    }

    /// What layer `layer` plays, as a machine of its own over the parameters: its own states, or for a synced
    /// layer the states, entry and transitions of the layer it follows, each state playing this layer's motion
    /// for the state of that name (nothing where it has none). None past the layers.
    pub fn layer_machine(&self, layer: usize) -> Option<StateMachine> {
        let l = self.layers.get(layer)?;
        let mut source = match l.synced_to {
            Some(0) => StateMachine {
                parameters: self.parameters.clone(),
                states: self.states.clone(),
                entry: self.entry.clone(),
                entry_transitions: self.entry_transitions.clone(),
                transitions: self.transitions.clone(),
                layers: Vec::new(),
            },
            Some(k) if k <= layer => self.layer_machine(k - 1)?,
            _ => return Some(l.machine(&self.parameters)),
        };
        for state in &mut source.states {
            let own = l.states.iter().find(|s| s.name == state.name);
            state.clip = own.and_then(|s| s.clip.clone());
            state.blend_space = own.and_then(|s| s.blend_space.clone());
            state.point_parameters = own.and_then(|s| s.point_parameters.clone());
            state.tree = own.and_then(|s| s.tree.clone());
        }
        Some(source)
    }

    /// The index of the state named `name`.
    pub fn state_index(&self, name: &str) -> Option<usize> {
        self.states.iter().position(|s| s.name == name)
    }

    /// The index of the parameter named `name`.
    pub fn parameter_index(&self, name: &str) -> Option<usize> {
        self.parameters.iter().position(|p| p.name == name)
    }

    /// [`StateMachine::validate`], and a state to play: what `pose`, `render` and a bake need (an editor's
    /// machine may be saved before its first state).
    pub fn validate_playable(&self) -> Result<(), MachineError> {
        self.validate()?;
        if self.states.is_empty() {
            return Err(MachineError::NoState);
        }
        Ok(())
    }

    /// Checks names, references, types, counts and ranges, naming the first problem.
    pub fn validate(&self) -> Result<(), MachineError> {
        for (n, what) in [
            (self.states.len(), "states"),
            (self.parameters.len(), "parameters"),
            (self.transitions.len(), "transitions"),
        ] {
            if n > MAX_MACHINE_ITEMS {
                return Err(MachineError::TooMany(n, what));
            }
        }
        for (i, s) in self.states.iter().enumerate() {
            if self.states[..i].iter().any(|o| o.name == s.name) {
                return Err(MachineError::Duplicate("states", s.name.clone()));
            }
            if s.clip.is_some() == s.blend_space.is_some() {
                return Err(MachineError::Motion(s.name.clone()));
            }
            s.check_numbers()?;
            for p in s.point_parameters.iter().flatten() {
                self.expect_parameter(p, &[ParameterKind::Float, ParameterKind::Int], || {
                    format!("state '{}' point parameter", s.name)
                })?;
            }
            if let Some(tree) = &s.tree {
                let nodes = s.blend_space.as_ref().map_or(0, |b| b.nodes.len());
                if let Some(problem) = tree.problem(nodes, MAX_MACHINE_ITEMS) {
                    return Err(MachineError::Value(
                        format!("state '{}' blend tree", s.name),
                        problem,
                    ));
                }
                for p in tree.parameters() {
                    self.expect_parameter(p, &[ParameterKind::Float, ParameterKind::Int], || {
                        format!("state '{}' blend tree parameter", s.name)
                    })?;
                }
            }
            if let Some(p) = &s.mirror_parameter {
                self.expect_parameter(p, &[ParameterKind::Bool], || {
                    format!("state '{}' mirror parameter", s.name)
                })?;
            }
            for (p, what) in [
                (&s.speed_parameter, "speed parameter"),
                (&s.cycle_offset_parameter, "cycle offset parameter"),
                (&s.time_parameter, "time parameter"),
            ] {
                if let Some(p) = p {
                    self.expect_parameter(p, &[ParameterKind::Float, ParameterKind::Int], || {
                        format!("state '{}' {what}", s.name)
                    })?;
                }
            }
        }
        for (i, p) in self.parameters.iter().enumerate() {
            if self.parameters[..i].iter().any(|o| o.name == p.name) {
                return Err(MachineError::Duplicate("parameters", p.name.clone()));
            }
        }
        if self.entry_transitions.len() > MAX_MACHINE_ITEMS {
            return Err(MachineError::TooMany(
                self.entry_transitions.len(),
                "entry transitions",
            ));
        }
        for (i, t) in self.entry_transitions.iter().enumerate() {
            let at = || format!("entry transition {i} (-> {})", t.to);
            if self.state_index(&t.to).is_none() {
                return Err(MachineError::Value(
                    at(),
                    format!("no state named '{}'", t.to),
                ));
            }
            check_conditions(&t.conditions, &at())?;
            for c in &t.conditions {
                self.check_condition(c, || format!("{} condition", at()))?;
            }
        }
        let conditions: usize = self
            .transitions
            .iter()
            .map(|t| t.conditions.len())
            .chain(self.entry_transitions.iter().map(|t| t.conditions.len()))
            .sum();
        if conditions > MAX_MACHINE_CONDITIONS {
            return Err(MachineError::Value(
                "transitions".into(),
                format!(
                    "{conditions} conditions, over the {MAX_MACHINE_CONDITIONS} a state machine may have"
                ),
            ));
        }
        if !self.states.is_empty() && self.state_index(&self.entry).is_none() {
            return Err(MachineError::NoEntry(self.entry.clone()));
        }
        if self.layers.len() > MAX_MACHINE_LAYERS {
            return Err(MachineError::Value(
                "layers".into(),
                format!(
                    "{} layers, over the {MAX_MACHINE_LAYERS} a state machine may have",
                    self.layers.len()
                ),
            ));
        }
        for (i, l) in self.layers.iter().enumerate() {
            let at = format!("layer {i} ('{}')", l.name);
            if !(0.0..=1.0).contains(&l.weight) {
                return Err(MachineError::Value(
                    at,
                    format!("weight {} is outside 0..1", shown(l.weight)),
                ));
            }
            if let Some((joint, w)) = l
                .joint_weights
                .iter()
                .find(|(_, w)| !(0.0..=1.0).contains(*w))
            {
                return Err(MachineError::Value(
                    at,
                    format!("joint weight {w} of '{joint}' is outside 0..1"),
                ));
            }
            if let Some(k) = l.synced_to.filter(|&k| k > i) {
                return Err(MachineError::Value(
                    at,
                    format!("it is synced to layer {}, which is not below it", k - 1),
                ));
            }
            let machine = l.machine(&self.parameters);
            machine
                .validate_playable()
                .map_err(|e| MachineError::Value(at, e.to_string()))?;
        }
        for (i, t) in self.transitions.iter().enumerate() {
            let unknown = |name: &str| {
                MachineError::UnknownState(i, t.from.clone(), t.to.clone(), name.to_string())
            };
            if t.from != ANY_STATE && self.state_index(&t.from).is_none() {
                return Err(unknown(&t.from));
            }
            if t.to != EXIT && self.state_index(&t.to).is_none() {
                return Err(unknown(&t.to));
            }
            let at = || format!("transition {i} ({} -> {})", t.from, t.to);
            t.check_numbers(&at())?;
            for c in &t.conditions {
                self.check_condition(c, || format!("{} condition", at()))?;
            }
        }
        Ok(())
    }

    /// A condition's parameter exists and is of a type its mode tests.
    fn check_condition(&self, c: &Condition, at: impl Fn() -> String) -> Result<(), MachineError> {
        let kinds: &[ParameterKind] = match c.mode {
            ConditionMode::If => &[ParameterKind::Bool, ParameterKind::Trigger],
            ConditionMode::IfNot => &[ParameterKind::Bool],
            ConditionMode::Greater | ConditionMode::Less => {
                &[ParameterKind::Float, ParameterKind::Int]
            }
            ConditionMode::Equals | ConditionMode::NotEqual => &[ParameterKind::Int],
        };
        self.expect_parameter(&c.parameter, kinds, at)
    }

    fn expect_parameter(
        &self,
        name: &str,
        kinds: &[ParameterKind],
        at: impl Fn() -> String,
    ) -> Result<(), MachineError> {
        let Some(p) = self.parameter_index(name).map(|i| &self.parameters[i]) else {
            return Err(MachineError::Parameter(
                at(),
                format!("no parameter named '{name}'"),
            ));
        };
        if !kinds.contains(&p.kind) {
            return Err(MachineError::Parameter(
                at(),
                format!("parameter '{name}' is a {:?}, this needs {kinds:?}", p.kind),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> StateMachine {
        serde_json::from_str(text).unwrap()
    }

    /// A synced layer plays its source's states, entry and transitions (their speeds too: Unity's synced layer
    /// overrides motions only) with its own motion per state by name, and nothing where it names none; a layer
    /// synced to one not below it is refused.
    #[test]
    fn a_synced_layer_plays_its_sources_states_with_its_own_motions() {
        let mut m = parse(
            r#"{"parameters": [{"name": "go", "type": "bool"}],
                "states": [{"name": "Idle", "clip": "Idle", "speed": 2}, {"name": "Walk", "clip": "Walk"}],
                "entry": "Idle",
                "transitions": [{"from": "Idle", "to": "Walk", "conditions": [{"parameter": "go", "mode": "if"}]}],
                "layers": [{"name": "Hurt", "synced_to": 0, "synced_timing": true,
                            "states": [{"name": "Idle", "clip": "Limp"}, {"name": "Gone", "clip": "Run"}],
                            "entry": "Idle"}]}"#,
        );
        m.validate().unwrap();
        let played = m.layer_machine(0).unwrap();
        assert_eq!(played.transitions, m.transitions);
        assert_eq!(played.entry, "Idle");
        let motions: Vec<_> = played
            .states
            .iter()
            .map(|s| (s.name.as_str(), s.clip.as_deref(), s.speed))
            .collect();
        assert_eq!(motions, [("Idle", Some("Limp"), 2.0), ("Walk", None, 1.0)]);
        let back: StateMachine = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        m.layers[0].synced_to = Some(1);
        let refused = m.validate().unwrap_err().to_string();
        assert!(refused.contains("not below it"), "{refused}");
        m.layers[0].synced_to = None;
        assert_eq!(
            m.layer_machine(0).unwrap().states[0].clip.as_deref(),
            Some("Limp")
        );
        assert_eq!(m.layer_machine(0).unwrap().states.len(), 2);
    }

    #[test]
    fn the_issue_keys_read_and_unity_defaults_fill_the_rest() {
        let m = parse(
            r#"{"parameters": [{"name": "speed", "type": "float", "default": 0.5},
                               {"name": "jump", "type": "trigger"},
                               {"name": "grounded", "type": "bool", "default": true}],
                "states": [{"name": "Idle", "clip": "Idle_Loop", "speed": 1},
                           {"name": "Move", "blend_space": {"mode": "1d", "nodes": []},
                            "point_parameters": ["speed", "speed"]}],
                "entry": "Idle",
                "transitions": [{"from": "Idle", "to": "Move",
                                 "conditions": [{"parameter": "speed", "mode": "greater", "threshold": 0.1}],
                                 "has_exit_time": false, "fixed_duration": false, "duration": 0.3},
                                {"from": "any", "to": "exit",
                                 "conditions": [{"parameter": "jump", "mode": "if"}],
                                 "interruption_source": "current_then_next", "model": "inertialization"}]}"#,
        );
        m.validate().unwrap();
        assert_eq!(m.parameters[2].default.for_kind(ParameterKind::Bool), 1.0);
        let t = &m.transitions[1];
        assert!(t.has_exit_time && t.fixed_duration && t.ordered_interruption);
        assert_eq!((t.exit_time, t.duration, t.offset), (0.75, 0.25, 0.0));
        assert_eq!(t.interruption_source, InterruptionSource::CurrentThenNext);
        assert_eq!(t.model, TransitionModel::Inertialization);
        let back: StateMachine = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn problems_are_named() {
        let mut m = parse(
            r#"{"parameters": [{"name": "go", "type": "bool"}],
                "states": [{"name": "A", "clip": "a"}, {"name": "B", "clip": "b"}], "entry": "A",
                "transitions": [{"from": "A", "to": "C"}]}"#,
        );
        assert!(
            m.validate()
                .unwrap_err()
                .to_string()
                .contains("no state named 'C'")
        );
        m.transitions[0].to = "B".into();
        m.transitions[0].conditions.push(Condition {
            parameter: "go".into(),
            mode: ConditionMode::Greater,
            threshold: 0.0,
        });
        let e = m.validate().unwrap_err().to_string();
        assert!(e.contains("parameter 'go' is a Bool"), "{e}");
        m.transitions[0].conditions[0].mode = ConditionMode::If;
        m.transitions[0].duration = -1.0;
        assert!(
            m.validate()
                .unwrap_err()
                .to_string()
                .contains("duration -1")
        );
        m.transitions[0].duration = 0.2;
        m.entry = "Nowhere".into();
        assert!(matches!(m.validate(), Err(MachineError::NoEntry(_))));
        m.entry = "A".into();
        m.states[1].blend_space = Some(BlendSpace::default());
        assert!(matches!(m.validate(), Err(MachineError::Motion(_))));
    }

    #[test]
    fn values_take_their_parameter_kind() {
        let v = ParameterValue::Number(2.7);
        assert_eq!(v.for_kind(ParameterKind::Int), 2.0);
        assert_eq!(v.for_kind(ParameterKind::Bool), 1.0);
        assert_eq!(
            ParameterValue::Number(-2.7).for_kind(ParameterKind::Int),
            -2.0
        );
        assert_eq!(
            ParameterValue::Bool(true).for_kind(ParameterKind::Float),
            1.0
        );
        assert_eq!(
            ParameterValue::Number(f64::NAN).for_kind(ParameterKind::Float),
            0.0
        );
    }
}
