//! AnimatorController (class 91) as Unity serializes it, read into Unity's own model: parameters, layers, each
//! layer's state machine (1107) with its states (1102), transitions (1101, 1109), sub-state machines and blend
//! trees (206). Objects are found by file ID; a reference to a missing object, a cycle of sub-machines or trees,
//! and counts over the bounds are errors that name the file. References into other assets (clips, masks) are
//! kept as [`ObjectRef`]s for the project to resolve.

use std::collections::HashSet;
use std::path::Path;

use super::yaml::{Document, Node, ObjectRef, UnityError, UnityFile};

/// Class IDs of the objects a controller holds.
pub mod class {
    /// AnimatorController.
    pub const CONTROLLER: u32 = 91;
    /// BlendTree.
    pub const BLEND_TREE: u32 = 206;
    /// AnimatorOverrideController.
    pub const OVERRIDE_CONTROLLER: u32 = 221;
    /// AvatarMask.
    pub const AVATAR_MASK: u32 = 319;
    /// AnimatorStateTransition.
    pub const STATE_TRANSITION: u32 = 1101;
    /// AnimatorState.
    pub const STATE: u32 = 1102;
    /// AnimatorStateMachine.
    pub const STATE_MACHINE: u32 = 1107;
    /// AnimatorTransition (Entry and sub-machine transitions).
    pub const TRANSITION: u32 = 1109;
    /// MonoBehaviour (a StateMachineBehaviour).
    pub const MONO_BEHAVIOUR: u32 = 114;
}

/// Most parameters, layers, states, transitions, conditions or tree children read from one controller.
pub const MAX_ITEMS: usize = 10_000;
/// Deepest nesting of sub-state machines or blend trees.
pub const MAX_NESTING: usize = 32;

/// A parameter's type and default.
#[derive(Clone, Debug, PartialEq)]
pub enum ParameterValue {
    /// Float (type 1).
    Float(f64),
    /// Int (type 3).
    Int(i64),
    /// Bool (type 4).
    Bool(bool),
    /// Trigger (type 9).
    Trigger,
}

/// A controller parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// Its type and default value.
    pub value: ParameterValue,
}

/// How a layer combines with those below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blending {
    /// Replaces them by its weight (0).
    Override,
    /// Adds to them (1).
    Additive,
}

/// A layer.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// Its name.
    pub name: String,
    /// Weight (the base layer is always 1 in Unity, whatever is stored).
    pub weight: f64,
    /// Override or additive.
    pub blending: Blending,
    /// Its avatar mask, in another asset (None: no mask).
    pub mask: Option<ObjectRef>,
    /// The layer whose states it mirrors (a synced layer), with its own motions.
    pub synced_to: Option<usize>,
    /// Synced timing (a synced layer follows its own timing when off).
    pub synced_timing: bool,
    /// The IK pass is on (noted, not previewed).
    pub ik_pass: bool,
    /// Its state machine (None for a synced layer, which has none of its own).
    pub machine: Option<Machine>,
    /// A synced layer's motions per state of the layer it follows, by state file ID.
    pub synced_motions: Vec<(i64, Option<Motion>)>,
}

/// A state machine or sub-state machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// Its name.
    pub name: String,
    /// Its file ID (sub-machine transitions name it).
    pub file_id: i64,
    /// Its states.
    pub states: Vec<State>,
    /// Sub-state machines.
    pub children: Vec<Machine>,
    /// Any State's transitions (on the layer's top machine).
    pub any_state: Vec<Transition>,
    /// Entry's transitions.
    pub entry: Vec<Transition>,
    /// Transitions out of a sub-machine (a sub-machine's exit), by the sub-machine's file ID.
    pub machine_transitions: Vec<(i64, Vec<Transition>)>,
    /// The default state's file ID.
    pub default_state: Option<i64>,
    /// Scripts attached (StateMachineBehaviours): noted, not run.
    pub behaviours: usize,
}

/// A state.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// Its name.
    pub name: String,
    /// Its file ID.
    pub file_id: i64,
    /// Its motion: a clip in another asset, or a blend tree.
    pub motion: Option<Motion>,
    /// Speed, and the parameter it is multiplied by.
    pub speed: f64,
    /// The speed multiplier parameter, when active.
    pub speed_parameter: Option<String>,
    /// Cycle offset, or the parameter that gives it.
    pub cycle_offset: f64,
    /// The cycle offset parameter, when active.
    pub cycle_offset_parameter: Option<String>,
    /// Mirror, or the parameter that gives it.
    pub mirror: bool,
    /// The mirror parameter, when active.
    pub mirror_parameter: Option<String>,
    /// The parameter that gives its normalised time, when active.
    pub time_parameter: Option<String>,
    /// Its tag.
    pub tag: String,
    /// Write Defaults (noted).
    pub write_defaults: bool,
    /// Foot IK (noted).
    pub ik_on_feet: bool,
    /// Its outgoing transitions in Unity's order.
    pub transitions: Vec<Transition>,
    /// Scripts attached: noted, not run.
    pub behaviours: usize,
}

/// A state's motion.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    /// A clip, in a `.anim` or a model's sub-asset.
    Clip(ObjectRef),
    /// A blend tree in the controller (or a `.asset`).
    Tree(Box<BlendTree>),
}

/// Blend tree types (`m_BlendType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendType {
    /// 0: 1D.
    Simple1D,
    /// 1: 2D Simple Directional.
    SimpleDirectional2D,
    /// 2: 2D Freeform Directional.
    FreeformDirectional2D,
    /// 3: 2D Freeform Cartesian.
    FreeformCartesian2D,
    /// 4: Direct.
    Direct,
}

/// A blend tree.
#[derive(Clone, Debug, PartialEq)]
pub struct BlendTree {
    /// Its name.
    pub name: String,
    /// Its type.
    pub blend_type: BlendType,
    /// The parameter of its first axis.
    pub parameter: String,
    /// The parameter of its second axis (2D).
    pub parameter_y: String,
    /// Its children.
    pub children: Vec<TreeChild>,
    /// Whether a Direct tree divides its weights by their sum (`m_NormalizedBlendValues`).
    pub normalized: bool,
}

/// A blend tree's child.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeChild {
    /// Its motion (None: an empty slot).
    pub motion: Option<Motion>,
    /// Its threshold (1D).
    pub threshold: f64,
    /// Its position (2D).
    pub position: [f64; 2],
    /// Its time scale.
    pub time_scale: f64,
    /// Its cycle offset.
    pub cycle_offset: f64,
    /// Its mirror.
    pub mirror: bool,
    /// Its weight parameter (Direct).
    pub direct_parameter: String,
}

/// Condition modes (`m_ConditionMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConditionMode {
    /// 1: a bool is true or a trigger is set.
    If,
    /// 2: a bool is false.
    IfNot,
    /// 3: greater than the threshold.
    Greater,
    /// 4: less than the threshold.
    Less,
    /// 6: equal to the threshold (ints).
    Equals,
    /// 7: not equal.
    NotEqual,
}

/// A transition's condition.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// Its mode.
    pub mode: ConditionMode,
    /// The parameter.
    pub parameter: String,
    /// The threshold.
    pub threshold: f64,
}

/// Where a transition goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Destination {
    /// A state, by file ID.
    State(i64),
    /// A sub-state machine (entered through its Entry), by file ID.
    Machine(i64),
    /// The machine's Exit.
    Exit,
}

/// Interruption sources (`m_InterruptionSource`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interruption {
    /// 0.
    None,
    /// 1.
    Source,
    /// 2.
    Destination,
    /// 3.
    SourceThenDestination,
    /// 4.
    DestinationThenSource,
}

/// A transition (AnimatorStateTransition, or AnimatorTransition with the timing fields at their defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// Its name.
    pub name: String,
    /// Where it goes.
    pub destination: Destination,
    /// Its conditions (all must hold).
    pub conditions: Vec<Condition>,
    /// Solo and mute.
    pub solo: bool,
    /// Muted: never taken.
    pub mute: bool,
    /// Has Exit Time, and the exit time (normalised).
    pub has_exit_time: bool,
    /// Exit time.
    pub exit_time: f64,
    /// Duration, in seconds when fixed, else normalised.
    pub duration: f64,
    /// Fixed duration.
    pub fixed_duration: bool,
    /// Offset into the destination (normalised).
    pub offset: f64,
    /// Interruption source.
    pub interruption: Interruption,
    /// Ordered interruption.
    pub ordered_interruption: bool,
    /// Can transition to self (Any State).
    pub can_transition_to_self: bool,
}

/// A controller read from a `.controller` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Controller {
    /// Its name.
    pub name: String,
    /// Its parameters.
    pub parameters: Vec<Parameter>,
    /// Its layers, base first.
    pub layers: Vec<Layer>,
    /// What it holds that is not previewed, one line each.
    pub unsupported: Vec<String>,
}

impl Controller {
    /// Every state of every layer (sub-machines included).
    pub fn states(&self) -> Vec<&State> {
        fn walk<'a>(m: &'a Machine, out: &mut Vec<&'a State>) {
            out.extend(&m.states);
            for c in &m.children {
                walk(c, out);
            }
        }
        let mut out = Vec::new();
        for m in self.layers.iter().filter_map(|l| l.machine.as_ref()) {
            walk(m, &mut out);
        }
        out
    }
}

/// Reads the AnimatorController in a parsed `.controller` file.
pub fn read(file: &UnityFile, path: &Path) -> Result<Controller, UnityError> {
    let doc = file
        .of_class(class::CONTROLLER)
        .next()
        .ok_or_else(|| UnityError::new(path, "holds no AnimatorController (class 91)"))?;
    let mut r = Reader {
        file,
        path,
        items: 0,
        unsupported: Vec::new(),
    };
    r.controller(doc)
}

struct Reader<'a> {
    file: &'a UnityFile,
    path: &'a Path,
    items: usize,
    unsupported: Vec<String>,
}

impl<'a> Reader<'a> {
    fn err(&self, message: impl std::fmt::Display) -> UnityError {
        UnityError::new(self.path, message)
    }

    /// Counts `n` more items against [`MAX_ITEMS`].
    fn count(&mut self, n: usize, what: &str) -> Result<(), UnityError> {
        self.items = self.items.saturating_add(n);
        if self.items > MAX_ITEMS {
            return Err(self.err(format!(
                "more than {MAX_ITEMS} parameters, layers, states, transitions and conditions (at {what})"
            )));
        }
        Ok(())
    }

    /// The object a same-file reference names, of one of `classes`.
    fn object(
        &self,
        r: &ObjectRef,
        classes: &[u32],
        what: &str,
    ) -> Result<&'a Document, UnityError> {
        let doc = self.file.object(r.file_id).ok_or_else(|| {
            self.err(format!(
                "{what} refers to object {}, which is not in the file",
                r.file_id
            ))
        })?;
        if !classes.contains(&doc.class_id) {
            return Err(self.err(format!(
                "{what} refers to object {} of class {} ({}), not the class expected",
                r.file_id, doc.class_id, doc.class_name
            )));
        }
        Ok(doc)
    }

    fn controller(&mut self, doc: &Document) -> Result<Controller, UnityError> {
        let f = &doc.fields;
        let name = f.str("m_Name").unwrap_or("").to_string();
        let params = f
            .get("m_AnimatorParameters")
            .map(Node::items)
            .unwrap_or(&[]);
        self.count(params.len(), "parameters")?;
        let parameters = params
            .iter()
            .map(|p| {
                let name = p.str("m_Name").unwrap_or("").to_string();
                let value = match p.i64("m_Type") {
                    Some(1) => ParameterValue::Float(
                        p.f64("m_DefaultFloat")
                            .filter(|v| v.is_finite())
                            .unwrap_or(0.0),
                    ),
                    Some(3) => ParameterValue::Int(p.i64("m_DefaultInt").unwrap_or(0)),
                    Some(4) => ParameterValue::Bool(p.i64("m_DefaultBool").is_some_and(|v| v != 0)),
                    Some(9) => ParameterValue::Trigger,
                    other => {
                        return Err(self.err(format!(
                            "parameter '{name}' has type {other:?}, not 1, 3, 4 or 9"
                        )));
                    }
                };
                Ok(Parameter { name, value })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let layer_nodes = f.get("m_AnimatorLayers").map(Node::items).unwrap_or(&[]);
        self.count(layer_nodes.len(), "layers")?;
        let mut layers = Vec::new();
        for (i, l) in layer_nodes.iter().enumerate() {
            let lname = l.str("m_Name").unwrap_or("").to_string();
            let synced = l.i64("m_SyncedLayerIndex").filter(|&s| s >= 0);
            let synced_to = match synced {
                Some(s) if (s as usize) < layer_nodes.len() && s as usize != i => Some(s as usize),
                Some(s) => {
                    return Err(self.err(format!(
                        "layer '{lname}' is synced to layer {s}, which it cannot be"
                    )));
                }
                None => None,
            };
            let machine = match (synced_to, l.object("m_StateMachine")) {
                (None, Some(r)) if !r.is_none() => {
                    let mut seen = HashSet::new();
                    Some(self.machine(&r, 0, &mut seen)?)
                }
                _ => None,
            };
            let ik_pass = l.i64("m_IKPass").is_some_and(|v| v != 0);
            if ik_pass {
                self.unsupported
                    .push(format!("layer '{lname}': the IK pass is not previewed"));
            }
            let mut synced_motions = Vec::new();
            for m in l.get("m_Motions").map(Node::items).unwrap_or(&[]) {
                let state = m.object("m_State").map_or(0, |r| r.file_id);
                let motion = match m.object("m_Motion") {
                    Some(r) if !r.is_none() => Some(self.motion(&r, 0, &mut HashSet::new())?),
                    _ => None,
                };
                synced_motions.push((state, motion));
            }
            layers.push(Layer {
                name: lname,
                weight: if i == 0 {
                    1.0
                } else {
                    l.f64("m_DefaultWeight")
                        .filter(|w| w.is_finite())
                        .unwrap_or(0.0)
                        .clamp(0.0, 1.0)
                },
                blending: if l.i64("m_BlendingMode") == Some(1) {
                    Blending::Additive
                } else {
                    Blending::Override
                },
                mask: l.object("m_Mask").filter(|r| !r.is_none()),
                synced_to,
                synced_timing: l.i64("m_SyncedLayerAffectsTiming").is_some_and(|v| v != 0),
                ik_pass,
                machine,
                synced_motions,
            });
        }
        Ok(Controller {
            name,
            parameters,
            layers,
            unsupported: std::mem::take(&mut self.unsupported),
        })
    }

    fn machine(
        &mut self,
        r: &ObjectRef,
        depth: usize,
        seen: &mut HashSet<i64>,
    ) -> Result<Machine, UnityError> {
        if depth > MAX_NESTING || !seen.insert(r.file_id) {
            return Err(self.err(format!(
                "state machine {} is nested in itself or deeper than {MAX_NESTING} levels",
                r.file_id
            )));
        }
        let doc = self.object(r, &[class::STATE_MACHINE], "a layer or sub-state machine")?;
        let f = &doc.fields;
        let name = f.str("m_Name").unwrap_or("").to_string();
        let refs = |key: &str, inner: Option<&str>| -> Vec<ObjectRef> {
            f.get(key)
                .map(Node::items)
                .unwrap_or(&[])
                .iter()
                .filter_map(|n| match inner {
                    Some(k) => n.object(k),
                    None => n.as_object(),
                })
                .collect()
        };
        let state_refs = refs("m_ChildStates", Some("m_State"));
        let child_refs = refs("m_ChildStateMachines", Some("m_StateMachine"));
        let any_refs = refs("m_AnyStateTransitions", None);
        let entry_refs = refs("m_EntryTransitions", None);
        self.count(
            state_refs.len() + child_refs.len() + any_refs.len() + entry_refs.len(),
            &name,
        )?;
        let mut states = Vec::new();
        for s in &state_refs {
            states.push(self.state(s, depth)?);
        }
        let mut children = Vec::new();
        for c in &child_refs {
            children.push(self.machine(c, depth + 1, seen)?);
        }
        let any_state = self.transitions(&any_refs, &name)?;
        let entry = self.transitions(&entry_refs, &name)?;
        // `m_StateMachineTransitions`: pairs of a sub-machine (`first`) and the transitions out of it (`second`);
        // `{}` when there are none.
        let mut machine_transitions = Vec::new();
        for item in f
            .get("m_StateMachineTransitions")
            .map(Node::items)
            .unwrap_or(&[])
        {
            let from = item.object("first").map_or(0, |r| r.file_id);
            let list: Vec<ObjectRef> = item
                .get("second")
                .map(Node::items)
                .unwrap_or(&[])
                .iter()
                .filter_map(Node::as_object)
                .collect();
            let t = self.transitions(&list, &name)?;
            machine_transitions.push((from, t));
        }
        let behaviours = f
            .get("m_StateMachineBehaviours")
            .map_or(0, |b| b.items().len());
        if behaviours > 0 {
            self.unsupported.push(format!(
                "state machine '{name}': {behaviours} StateMachineBehaviour script(s) are not run"
            ));
        }
        seen.remove(&r.file_id);
        Ok(Machine {
            name,
            file_id: r.file_id,
            states,
            children,
            any_state,
            entry,
            machine_transitions,
            default_state: f
                .object("m_DefaultState")
                .filter(|r| !r.is_none())
                .map(|r| r.file_id),
            behaviours,
        })
    }

    fn state(&mut self, r: &ObjectRef, depth: usize) -> Result<State, UnityError> {
        let doc = self.object(r, &[class::STATE], "a state machine's child state")?;
        let f = &doc.fields;
        let name = f.str("m_Name").unwrap_or("").to_string();
        let active = |flag: &str, param: &str| -> Option<String> {
            f.i64(flag)
                .filter(|&v| v != 0)
                .map(|_| f.str(param).unwrap_or("").to_string())
        };
        let motion = match f.object("m_Motion") {
            Some(m) if !m.is_none() => Some(self.motion(&m, depth, &mut HashSet::new())?),
            _ => None,
        };
        let transition_refs: Vec<ObjectRef> = f
            .get("m_Transitions")
            .map(Node::items)
            .unwrap_or(&[])
            .iter()
            .filter_map(Node::as_object)
            .collect();
        self.count(transition_refs.len(), &name)?;
        let transitions = self.transitions(&transition_refs, &name)?;
        let behaviours = f
            .get("m_StateMachineBehaviours")
            .map_or(0, |b| b.items().len());
        if behaviours > 0 {
            self.unsupported.push(format!(
                "state '{name}': {behaviours} StateMachineBehaviour script(s) are not run"
            ));
        }
        let finite =
            |key: &str, default: f64| f.f64(key).filter(|v| v.is_finite()).unwrap_or(default);
        Ok(State {
            name,
            file_id: r.file_id,
            motion,
            speed: finite("m_Speed", 1.0),
            speed_parameter: active("m_SpeedParameterActive", "m_SpeedParameter"),
            cycle_offset: finite("m_CycleOffset", 0.0),
            cycle_offset_parameter: active(
                "m_CycleOffsetParameterActive",
                "m_CycleOffsetParameter",
            ),
            mirror: f.i64("m_Mirror").is_some_and(|v| v != 0),
            mirror_parameter: active("m_MirrorParameterActive", "m_MirrorParameter"),
            time_parameter: active("m_TimeParameterActive", "m_TimeParameter"),
            tag: f.str("m_Tag").unwrap_or("").to_string(),
            write_defaults: f.i64("m_WriteDefaultValues").is_none_or(|v| v != 0),
            ik_on_feet: f.i64("m_IKOnFeet").is_some_and(|v| v != 0),
            transitions,
            behaviours,
        })
    }

    /// A motion: a clip in another asset (kept as a reference), or a blend tree in this file.
    fn motion(
        &mut self,
        r: &ObjectRef,
        depth: usize,
        seen: &mut HashSet<i64>,
    ) -> Result<Motion, UnityError> {
        if r.guid.is_some() {
            return Ok(Motion::Clip(r.clone()));
        }
        let doc = self.object(r, &[class::BLEND_TREE, 74], "a motion")?;
        if doc.class_id == 74 {
            return Ok(Motion::Clip(r.clone()));
        }
        if depth > MAX_NESTING || !seen.insert(r.file_id) {
            return Err(self.err(format!(
                "blend tree {} is nested in itself or deeper than {MAX_NESTING} levels",
                r.file_id
            )));
        }
        let tree = self.tree(doc, depth, seen)?;
        seen.remove(&r.file_id);
        Ok(Motion::Tree(Box::new(tree)))
    }

    fn tree(
        &mut self,
        doc: &Document,
        depth: usize,
        seen: &mut HashSet<i64>,
    ) -> Result<BlendTree, UnityError> {
        let f = &doc.fields;
        let name = f.str("m_Name").unwrap_or("").to_string();
        let blend_type = match f.i64("m_BlendType").unwrap_or(0) {
            0 => BlendType::Simple1D,
            1 => BlendType::SimpleDirectional2D,
            2 => BlendType::FreeformDirectional2D,
            3 => BlendType::FreeformCartesian2D,
            4 => BlendType::Direct,
            other => {
                return Err(self.err(format!("blend tree '{name}' has type {other}, not 0 to 4")));
            }
        };
        let items = f.get("m_Childs").map(Node::items).unwrap_or(&[]);
        self.count(items.len(), &name)?;
        let mut children = Vec::new();
        for c in items {
            let motion = match c.object("m_Motion") {
                Some(m) if !m.is_none() => Some(self.motion(&m, depth + 1, seen)?),
                _ => None,
            };
            let finite =
                |key: &str, default: f64| c.f64(key).filter(|v| v.is_finite()).unwrap_or(default);
            let pos = c.get("m_Position");
            let axis = |k: &str| {
                pos.and_then(|p| p.f64(k))
                    .filter(|v| v.is_finite())
                    .unwrap_or(0.0)
            };
            children.push(TreeChild {
                motion,
                threshold: finite("m_Threshold", 0.0),
                position: [axis("x"), axis("y")],
                time_scale: finite("m_TimeScale", 1.0),
                cycle_offset: finite("m_CycleOffset", 0.0),
                mirror: c.i64("m_Mirror").is_some_and(|v| v != 0),
                direct_parameter: c.str("m_DirectBlendParameter").unwrap_or("").to_string(),
            });
        }
        Ok(BlendTree {
            name,
            blend_type,
            parameter: f.str("m_BlendParameter").unwrap_or("").to_string(),
            parameter_y: f.str("m_BlendParameterY").unwrap_or("").to_string(),
            children,
            normalized: f.i64("m_NormalizedBlendValues").is_some_and(|v| v != 0),
        })
    }

    fn transitions(
        &mut self,
        refs: &[ObjectRef],
        owner: &str,
    ) -> Result<Vec<Transition>, UnityError> {
        refs.iter()
            .filter(|r| !r.is_none())
            .map(|r| self.transition(r, owner))
            .collect()
    }

    fn transition(&mut self, r: &ObjectRef, owner: &str) -> Result<Transition, UnityError> {
        let doc = self.object(
            r,
            &[class::STATE_TRANSITION, class::TRANSITION],
            &format!("a transition of '{owner}'"),
        )?;
        let f = &doc.fields;
        let name = f.str("m_Name").unwrap_or("").to_string();
        let conditions = f.get("m_Conditions").map(Node::items).unwrap_or(&[]);
        self.count(conditions.len(), owner)?;
        let conditions = conditions
            .iter()
            .map(|c| {
                let mode = match c.i64("m_ConditionMode") {
                    Some(1) => ConditionMode::If,
                    Some(2) => ConditionMode::IfNot,
                    Some(3) => ConditionMode::Greater,
                    Some(4) => ConditionMode::Less,
                    Some(6) => ConditionMode::Equals,
                    Some(7) => ConditionMode::NotEqual,
                    other => return Err(self.err(format!(
                        "a transition of '{owner}' has condition mode {other:?}, not 1 to 4, 6 or 7"
                    ))),
                };
                Ok(Condition {
                    mode,
                    parameter: c.str("m_ConditionEvent").unwrap_or("").to_string(),
                    threshold: c
                        .f64("m_EventTreshold")
                        .filter(|v| v.is_finite())
                        .unwrap_or(0.0),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let destination = if f.i64("m_IsExit").is_some_and(|v| v != 0) {
            Destination::Exit
        } else if let Some(s) = f.object("m_DstState").filter(|r| !r.is_none()) {
            Destination::State(s.file_id)
        } else if let Some(m) = f.object("m_DstStateMachine").filter(|r| !r.is_none()) {
            Destination::Machine(m.file_id)
        } else {
            return Err(self.err(format!(
                "a transition of '{owner}' goes nowhere (no state, machine or exit)"
            )));
        };
        let flag = |key: &str| f.i64(key).is_some_and(|v| v != 0);
        let finite =
            |key: &str, default: f64| f.f64(key).filter(|v| v.is_finite()).unwrap_or(default);
        let state_transition = doc.class_id == class::STATE_TRANSITION;
        Ok(Transition {
            name,
            destination,
            conditions,
            solo: flag("m_Solo"),
            mute: flag("m_Mute"),
            has_exit_time: state_transition && flag("m_HasExitTime"),
            exit_time: finite("m_ExitTime", 0.75),
            duration: if state_transition {
                finite("m_TransitionDuration", 0.25).max(0.0)
            } else {
                0.0
            },
            fixed_duration: !state_transition || f.i64("m_HasFixedDuration").is_none_or(|v| v != 0),
            offset: finite("m_TransitionOffset", 0.0),
            interruption: match f.i64("m_InterruptionSource").unwrap_or(0) {
                1 => Interruption::Source,
                2 => Interruption::Destination,
                3 => Interruption::SourceThenDestination,
                4 => Interruption::DestinationThenSource,
                _ => Interruption::None,
            },
            ordered_interruption: f.i64("m_OrderedInterruption").is_none_or(|v| v != 0),
            can_transition_to_self: flag("m_CanTransitionToSelf"),
        })
    }
}
