//! An AnimatorController as the tool's [`StateMachine`], with the clips its states play loaded through the
//! project's `.meta` files (`.anim` files, and clips inside models), each named by its file (`Walk.anim`,
//! `idle.fbx: Root|Idle`).
//!
//! What maps: parameters of every type with their defaults; states with speed, its multiplier parameter, cycle
//! offset, motion time parameter and mirror; transitions with every timing field, their conditions and order, solo
//! and mute as Unity applies them; Any State, Entry and Exit; blend trees of the four 1D/2D types whose children are
//! clips, as blend spaces driven by their parameters. Sub-state machines are flattened (a state inside one is named
//! `Machine/State` where its own name is taken): a transition into one goes through its Entry transitions, else to
//! its default state, and one to its Exit through its parent's transitions out of it, else the parent's Entry,
//! each way a transition of its own with the conditions along it.
//! The base layer is the machine's own states; a layer above it with transitions or several states is a layer of
//! the machine (its own states over the same parameters, Override or Additive); a layer of one state is a clip
//! layer playing its default state's clip. Either takes the layer's weight and its avatar mask's body parts
//! and transform paths (by joint name). A Direct or nested blend tree becomes a blend space listing its clips and
//! the tree of blends that weighs them. A synced layer plays its source layer's states and transitions with its
//! own motions, timed as Unity's Timing says. What does not map is named in the notes, one line each: Write
//! Defaults off, Foot IK and tags, and states with no motion (they hold the rest pose).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::controller::{
    self, BlendTree, BlendType, Blending, ConditionMode as UnityMode, Destination, Interruption,
    Machine, Motion, ParameterValue as UnityValue,
};
use super::project::Project;
use super::yaml::{ObjectRef, UnityError};
use crate::blend::tree::{MAX_TREE_DEPTH, PlacedTree, WeighedTree, WeightTree};
use crate::blend::{BlendAxis, BlendMode, BlendNode, BlendSpace};
use crate::core::Clip;
use crate::graph::machine::{ANY_STATE, EXIT};
use crate::graph::machine::{EntryTransition, MachineLayer};
use crate::graph::{
    Condition, ConditionMode, InterruptionSource, Parameter, ParameterKind, ParameterValue, State,
    StateMachine, Transition,
};
use crate::layers::clip_layer::{BodyPart, ClipLayer, LayerMode};

/// The name of the clip that states with no motion play: no tracks, so the rest pose.
pub const NO_MOTION: &str = "(no motion)";

/// A controller ready to play.
#[derive(Clone, Debug)]
pub struct ImportedController {
    /// The base layer as a state machine.
    pub machine: StateMachine,
    /// The clips its states play, named as the machine names them.
    pub clips: Vec<Clip>,
    /// The layers above the base that play one clip (their default state's), as clip layers over the machine.
    pub layers: Vec<ClipLayer>,
    /// What is not played as Unity plays it, one line each.
    pub notes: Vec<String>,
}

/// The controller a path names: the path itself when it is a file; in a project folder, its only controller
/// (an error lists them when there are several, and says so when there are none).
pub fn controller_in(path: &Path) -> Result<PathBuf, UnityError> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let project = Project::of_folder(path)?;
    let found = project.controllers(path);
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(UnityError::new(
            path,
            format!(
                "holds no .controller or .overrideController with a .meta file (project {})",
                project.root.display()
            ),
        )),
        many => {
            let listed: Vec<String> = many
                .iter()
                .take(MAX_LISTED)
                .map(|p| {
                    p.strip_prefix(&project.root)
                        .unwrap_or(p)
                        .display()
                        .to_string()
                })
                .collect();
            let more = many.len().saturating_sub(MAX_LISTED);
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            Err(UnityError::new(
                path,
                format!(
                    "holds {} controllers; name one: {}{tail}",
                    many.len(),
                    listed.join(", ")
                ),
            ))
        }
    }
}

/// How many controllers an error lists by name.
const MAX_LISTED: usize = 10;

/// Reads the controller at `path` and its clips (files of at most `max_bytes`).
pub fn import(path: &Path, max_bytes: u64) -> Result<ImportedController, UnityError> {
    let project = Project::around(path)?;
    let (controller_path, file, overrides) = follow_overrides(path, &project, max_bytes)?;
    let c = controller::read(&file, &controller_path)?;
    let mut b = Builder {
        project: &project,
        max_bytes,
        overrides,
        clips: Vec::new(),
        loaded: BTreeMap::new(),
        notes: c.unsupported.clone(),
    };
    let base = c
        .layers
        .first()
        .and_then(|l| l.machine.as_ref())
        .ok_or_else(|| UnityError::new(path, "its base layer has no state machine"))?;
    let parameters: Vec<Parameter> = c
        .parameters
        .iter()
        .map(|p| {
            let (kind, default) = match p.value {
                UnityValue::Float(v) => (ParameterKind::Float, ParameterValue::Number(v)),
                UnityValue::Int(v) => (ParameterKind::Int, ParameterValue::Number(v as f64)),
                UnityValue::Bool(v) => (ParameterKind::Bool, ParameterValue::Bool(v)),
                UnityValue::Trigger => (ParameterKind::Trigger, ParameterValue::Bool(false)),
            };
            Parameter {
                name: p.name.clone(),
                kind,
                default,
            }
        })
        .collect();
    let mut layers = Vec::new();
    let mut machine_layers: Vec<MachineLayer> = Vec::new();
    // Where each Unity layer plays: 0 the machine's own states, k its layer k − 1 (None: not as a machine).
    let mut played_at: Vec<Option<usize>> = vec![Some(0)];
    for l in c.layers.iter().skip(1) {
        // A synced layer plays the states and transitions of the layer it follows, with its own motions.
        let synced;
        let mut source_at = None;
        let l = match (
            &l.machine,
            l.synced_to.and_then(|k| Some((k, c.layers.get(k)?))),
        ) {
            (None, Some((k, source))) if source.machine.is_some() => {
                source_at = played_at.get(k).copied().flatten();
                synced = controller::Layer {
                    machine: source
                        .machine
                        .as_ref()
                        .map(|m| with_motions(m, &l.synced_motions)),
                    ..l.clone()
                };
                &synced
            }
            _ => l,
        };
        let source_name = l.synced_to.and_then(|k| c.layers.get(k)).map(|s| &s.name);
        match b.layer(l, &parameters)? {
            Some(UpperLayer::Clip(mut clip)) => {
                if let Some(source) = source_name {
                    // A one-state layer plays as a clip layer: synced, it keeps the base's phase.
                    clip.synced = l.synced_to == Some(0);
                    b.notes.push(if clip.synced {
                        format!(
                            "layer '{}' plays its motion for layer '{source}''s state, stretched to its length",
                            l.name
                        )
                    } else {
                        format!(
                            "layer '{}' plays its motion for layer '{source}''s state on its own clock",
                            l.name
                        )
                    });
                }
                layers.push(clip);
                played_at.push(None);
            }
            Some(UpperLayer::Machine(mut m)) => {
                if let Some(source) = source_name {
                    m.synced_to = source_at;
                    m.synced_timing = m.synced_to.is_some() && l.synced_timing;
                    b.notes.push(match (source_at, l.synced_timing) {
                        (None, _) => format!(
                            "layer '{}' plays layer '{source}''s states with its own motions, on its own clock: \
                             '{source}' does not play as a state machine before it",
                            l.name
                        ),
                        (Some(_), false) => format!(
                            "layer '{}' plays layer '{source}''s states with its own motions, stretched to their \
                             lengths (Unity's synced layer without Timing)",
                            l.name
                        ),
                        (Some(_), true) => format!(
                            "layer '{}' plays layer '{source}''s states with its own motions, each state lasting \
                             between the two motions' lengths by the layer's weight (Unity's Timing)",
                            l.name
                        ),
                    });
                }
                machine_layers.push(m);
                played_at.push(Some(machine_layers.len()));
            }
            None => played_at.push(None),
        }
    }
    let base = b
        .layer_machine(base, &parameters)?
        .ok_or_else(|| UnityError::new(path, "its base layer has no states"))?;
    let machine = StateMachine {
        parameters,
        states: base.states,
        entry: base.entry,
        entry_transitions: base.entry_transitions,
        transitions: base.transitions,
        layers: machine_layers,
    };
    machine
        .validate_playable()
        .map_err(|e| UnityError::new(path, format!("cannot play as a state machine: {e}")))?;
    Ok(ImportedController {
        machine,
        clips: b.clips,
        layers,
        notes: b.notes,
    })
}

/// Most override controllers one may stand on before its controller.
pub const MAX_OVERRIDE_DEPTH: usize = 16;

/// The controller `path` plays, parsed: itself, or the one at the bottom of a chain of override controllers, with
/// the clips they swap (an outer override wins over an inner one for the same original clip).
#[allow(clippy::type_complexity)]
fn follow_overrides(
    path: &Path,
    project: &Project,
    max_bytes: u64,
) -> Result<
    (
        PathBuf,
        super::yaml::UnityFile,
        BTreeMap<ObjectRef, ObjectRef>,
    ),
    UnityError,
> {
    let mut chain: Vec<PathBuf> = Vec::new();
    let mut layers: Vec<Vec<(ObjectRef, ObjectRef)>> = Vec::new();
    let mut current = path.to_path_buf();
    let file = loop {
        let file = super::yaml::read(&current, max_bytes)?;
        if file
            .of_class(controller::class::OVERRIDE_CONTROLLER)
            .next()
            .is_none()
        {
            break file;
        }
        let canonical = current.canonicalize().unwrap_or_else(|_| current.clone());
        if chain.contains(&canonical) || chain.len() >= MAX_OVERRIDE_DEPTH {
            return Err(UnityError::new(
                path,
                format!(
                    "its override controllers refer to one another in a cycle, or more than {MAX_OVERRIDE_DEPTH} deep"
                ),
            ));
        }
        chain.push(canonical);
        let o = super::mask::read_override(&file, &current)?;
        layers.push(o.clips);
        current = project.resolve(&o.base).map(|r| r.path).ok_or_else(|| {
            UnityError::new(
                &current,
                format!(
                    "its base controller (asset {}) is not in the project folder",
                    o.base.guid.as_deref().unwrap_or("in this file")
                ),
            )
        })?;
    };
    // Innermost first, so the outer overrides replace the inner ones.
    let mut overrides = BTreeMap::new();
    for pairs in layers.into_iter().rev() {
        overrides.extend(pairs);
    }
    Ok((current, file, overrides))
}

/// Names every state of `m` and its sub-machines uniquely (a repeated name takes its machine's path), and
/// notes each sub-machine's default state.
fn collect_names(m: &Machine, prefix: &str, names: &mut BTreeMap<i64, String>) {
    for s in &m.states {
        let taken = names.values().any(|n| *n == s.name);
        let name = if taken && !prefix.is_empty() {
            format!("{prefix}/{}", s.name)
        } else if taken {
            format!("{} ({})", s.name, s.file_id)
        } else {
            s.name.clone()
        };
        names.insert(s.file_id, name);
    }
    for c in &m.children {
        let p = if prefix.is_empty() {
            c.name.clone()
        } else {
            format!("{prefix}/{}", c.name)
        };
        collect_names(c, &p, names);
    }
}

/// A layer's state machine as the tool's: its states and transitions, the default state, and its Entry
/// transitions.
struct LayerStates {
    states: Vec<State>,
    transitions: Vec<Transition>,
    entry: String,
    entry_transitions: Vec<EntryTransition>,
}

/// A layer above the base as it plays.
enum UpperLayer {
    /// One clip over the layers below.
    Clip(ClipLayer),
    /// States of its own.
    Machine(MachineLayer),
}

/// What a state plays, imported: a clip, or a blend space with the parameters giving its point, or with the tree
/// of blends that weighs its nodes.
#[derive(Default)]
struct ImportedMotion {
    clip: Option<String>,
    blend_space: Option<BlendSpace>,
    point_parameters: Option<[String; 2]>,
    tree: Option<WeightTree>,
}

/// A subtree that weighs nothing (its share goes to the rest pose).
const EMPTY_TREE: WeightTree = WeightTree::Direct {
    children: Vec::new(),
    normalized: false,
};

/// A blend tree child's cycle offset as a fraction in [0, 1) (0 where it is not a number).
fn finite_offset(v: f64) -> f64 {
    if v.is_finite() {
        v.rem_euclid(1.0)
    } else {
        0.0
    }
}

/// The blend space mode of a 1D or 2D tree; None for a Direct one.
fn blend_mode(t: BlendType) -> Option<BlendMode> {
    match t {
        BlendType::Simple1D => Some(BlendMode::OneD),
        BlendType::SimpleDirectional2D => Some(BlendMode::SimpleDirectional),
        BlendType::FreeformDirectional2D => Some(BlendMode::FreeformDirectional),
        BlendType::FreeformCartesian2D => Some(BlendMode::FreeformCartesian),
        BlendType::Direct => None,
    }
}

/// The humanoid body parts an avatar mask's 13 bits let through (Unity's order, [`super::mask::BODY_PARTS`]):
/// its Root and the four IK goals have no counterpart in the clip layer's parts.
fn mask_parts(bits: &[bool; 13]) -> Vec<BodyPart> {
    [
        (1, BodyPart::Body),
        (2, BodyPart::Head),
        (3, BodyPart::LeftLeg),
        (4, BodyPart::RightLeg),
        (5, BodyPart::LeftArm),
        (6, BodyPart::RightArm),
        (7, BodyPart::LeftHand),
        (8, BodyPart::RightHand),
    ]
    .into_iter()
    .filter(|&(bit, _)| bits[bit])
    .map(|(_, part)| part)
    .collect()
}

fn flatten<'a>(m: &'a Machine, out: &mut Vec<&'a controller::State>) {
    out.extend(&m.states);
    for c in &m.children {
        flatten(c, out);
    }
}

fn gather_any(m: &Machine, out: &mut Vec<controller::Transition>) {
    out.extend(m.any_state.iter().cloned());
    for c in &m.children {
        gather_any(c, out);
    }
}

/// A layer's machines as its flattened machine reads them: the states' names, each machine by file ID with the
/// machine holding it, and the machine holding each state.
struct Layout<'a> {
    names: BTreeMap<i64, String>,
    machines: BTreeMap<i64, (&'a Machine, Option<i64>)>,
    holder: BTreeMap<i64, i64>,
    top: i64,
    /// Ways followed so far: a hostile file's sub-machines could multiply them without end.
    steps: std::cell::Cell<usize>,
}

/// The most ways [`Layout::destinations`] follows over a layer (a real layer follows tens).
const MAX_DESTINATION_STEPS: usize = 100_000;

/// Where one Unity transition may end in the flattened machine, in order: a state (or the layer's Exit) and the
/// conditions that must also hold to go there.
type Destinations = Vec<(String, Vec<controller::Condition>)>;

impl<'a> Layout<'a> {
    /// The path of sub-machine `machine` from the layer's top machine ("Fast/Turns"); None for the top itself.
    fn group_of(&self, machine: i64) -> Option<String> {
        let mut names = Vec::new();
        let mut at = machine;
        while let Some(&(m, Some(parent))) = self.machines.get(&at) {
            names.push(m.name.as_str());
            at = parent;
            if names.len() > controller::MAX_NESTING {
                break;
            }
        }
        names.reverse();
        (!names.is_empty()).then(|| names.join("/"))
    }

    fn add(&mut self, m: &'a Machine, parent: Option<i64>) {
        self.machines.insert(m.file_id, (m, parent));
        for s in &m.states {
            self.holder.insert(s.file_id, m.file_id);
        }
        for c in &m.children {
            self.add(c, Some(m.file_id));
        }
    }

    /// The ends of a transition from inside machine `within` to `d`, as Unity goes: into a sub-machine through
    /// its Entry (its Entry transitions in order, else its default state); out of a sub-machine's Exit through
    /// the transitions its parent has from it, else the parent's Entry; out of the layer's top machine to the
    /// layer's Exit.
    fn destinations(&self, d: &Destination, within: i64, depth: usize) -> Destinations {
        self.steps.set(self.steps.get() + 1);
        if depth > controller::MAX_NESTING || self.steps.get() > MAX_DESTINATION_STEPS {
            return Vec::new();
        }
        match d {
            Destination::State(id) => self
                .names
                .get(id)
                .map(|n| vec![(n.clone(), Vec::new())])
                .unwrap_or_default(),
            Destination::Machine(id) => self.enter(*id, depth + 1),
            Destination::Exit => self.exit(within, depth + 1),
        }
    }

    fn enter(&self, machine: i64, depth: usize) -> Destinations {
        let Some((m, _)) = self.machines.get(&machine) else {
            return Vec::new();
        };
        let mut out = self.through(&m.entry, machine, depth);
        if let Some(name) = m.default_state.and_then(|d| self.names.get(&d)) {
            out.push((name.clone(), Vec::new()));
        }
        out
    }

    fn exit(&self, within: i64, depth: usize) -> Destinations {
        let Some(&(_, Some(parent))) = self.machines.get(&within) else {
            return vec![(EXIT.to_string(), Vec::new())];
        };
        let (parent_machine, _) = self.machines[&parent];
        let out_of = parent_machine
            .machine_transitions
            .iter()
            .filter(|(from, _)| *from == within)
            .flat_map(|(_, list)| list.iter())
            .cloned()
            .collect::<Vec<_>>();
        let mut out = self.through(&out_of, parent, depth);
        if parent == self.top {
            out.push((EXIT.to_string(), Vec::new()));
        } else {
            out.extend(self.enter(parent, depth + 1));
        }
        out
    }

    /// The ends of a list of Unity transitions taken in order from inside `within` (muted ones left out; where any
    /// is solo, only the solo ones), each with its conditions.
    fn through(&self, list: &[controller::Transition], within: i64, depth: usize) -> Destinations {
        let mut out = Vec::new();
        for t in usable(list) {
            for (to, extra) in self.destinations(&t.destination, within, depth) {
                let mut conditions = t.conditions.clone();
                conditions.extend(extra);
                out.push((to, conditions));
            }
        }
        out
    }
}

/// A machine with each state's motion replaced by a synced layer's motion for it (none where it gives none).
fn with_motions(m: &Machine, motions: &[(i64, Option<Motion>)]) -> Machine {
    Machine {
        states: m
            .states
            .iter()
            .map(|s| controller::State {
                motion: motions
                    .iter()
                    .find(|(id, _)| *id == s.file_id)
                    .and_then(|(_, motion)| motion.clone()),
                ..s.clone()
            })
            .collect(),
        children: m
            .children
            .iter()
            .map(|c| with_motions(c, motions))
            .collect(),
        ..m.clone()
    }
}

/// Places the states for the graph view: the layer's own in a grid of three columns, then each sub-machine's in a
/// block of its own below (the view frames each block), in graph units.
fn lay_out(states: &mut [State]) {
    const STEP: [f32; 2] = [160.0, 70.0];
    const BLOCK_GAP: f32 = 50.0;
    let mut groups: Vec<Option<String>> = vec![None];
    for s in states.iter() {
        if !groups.contains(&s.group) {
            groups.push(s.group.clone());
        }
    }
    let mut top = 0.0;
    for g in &groups {
        let mut k = 0usize;
        for s in states.iter_mut().filter(|s| &s.group == g) {
            s.position = Some([(k % 3) as f32 * STEP[0], top + (k / 3) as f32 * STEP[1]]);
            k += 1;
        }
        if k > 0 {
            top += k.div_ceil(3) as f32 * STEP[1] + BLOCK_GAP;
        }
    }
}

/// A list of transitions as Unity takes them: muted ones left out and, where any is solo, only the solo ones.
fn usable(list: &[controller::Transition]) -> impl Iterator<Item = &controller::Transition> {
    let solo = list.iter().any(|t| t.solo && !t.mute);
    list.iter().filter(move |t| !t.mute && (!solo || t.solo))
}

struct Builder<'a> {
    project: &'a Project,
    max_bytes: u64,
    /// Clips an override controller swaps: the base controller's clip → the one that plays instead.
    overrides: BTreeMap<ObjectRef, ObjectRef>,
    clips: Vec<Clip>,
    /// Clips loaded per file, by the file's path: their names as the machine knows them.
    loaded: BTreeMap<PathBuf, Vec<String>>,
    notes: Vec<String>,
}

impl Builder<'_> {
    /// A layer's state machine as states, transitions and the entry state (None: it has no states), its
    /// sub-machines flattened; what does not map is noted.
    fn layer_machine(
        &mut self,
        base: &Machine,
        parameters: &[Parameter],
    ) -> Result<Option<LayerStates>, UnityError> {
        // Every state of the layer, its name made unique, by file ID; every machine, with the one holding it.
        let mut names: BTreeMap<i64, String> = BTreeMap::new();
        collect_names(base, "", &mut names);
        let mut layout = Layout {
            names,
            machines: BTreeMap::new(),
            holder: BTreeMap::new(),
            top: base.file_id,
            steps: std::cell::Cell::new(0),
        };
        layout.add(base, None);
        let names = &layout.names;
        let mut states = Vec::new();
        let mut transitions = Vec::new();
        let mut flat = Vec::new();
        flatten(base, &mut flat);
        for s in &flat {
            let name = names[&s.file_id].clone();
            let ImportedMotion {
                clip,
                blend_space,
                point_parameters,
                tree,
            } = self.motion(&name, s.motion.as_ref())?;
            let mirror_parameter = s.mirror_parameter.clone().filter(|p| {
                let boolean = parameters
                    .iter()
                    .any(|q| &q.name == p && q.kind == ParameterKind::Bool);
                let why = (!boolean).then_some("is not a bool parameter of the controller");
                if let Some(why) = why {
                    self.notes
                        .push(format!("state '{name}': its mirror parameter '{p}' {why}"));
                }
                why.is_none()
            });
            let mut numeric = |p: &String, what: &str| {
                let found = parameters.iter().any(|q: &Parameter| {
                    &q.name == p && matches!(q.kind, ParameterKind::Float | ParameterKind::Int)
                });
                if !found {
                    self.notes.push(format!(
                        "state '{name}': its {what} '{p}' is not a float parameter of the controller"
                    ));
                }
                found
            };
            let speed_parameter = s
                .speed_parameter
                .clone()
                .filter(|p| numeric(p, "speed multiplier"));
            let cycle_offset_parameter = s
                .cycle_offset_parameter
                .clone()
                .filter(|p| numeric(p, "cycle offset parameter"));
            let time_parameter = s
                .time_parameter
                .clone()
                .filter(|p| numeric(p, "motion time parameter"));
            let span = crate::graph::machine::MAX_TRANSITION_SPAN;
            states.push(State {
                name: name.clone(),
                clip,
                blend_space,
                speed: s.speed.clamp(
                    -crate::graph::machine::MAX_STATE_SPEED,
                    crate::graph::machine::MAX_STATE_SPEED,
                ),
                speed_parameter,
                cycle_offset: if s.cycle_offset.is_finite() {
                    s.cycle_offset.clamp(-span, span)
                } else {
                    0.0
                },
                cycle_offset_parameter,
                time_parameter,
                mirror: s.mirror,
                mirror_parameter,
                point_parameters,
                tree,
                position: None,
                group: layout
                    .holder
                    .get(&s.file_id)
                    .and_then(|&m| layout.group_of(m)),
            });
            let within = layout.holder.get(&s.file_id).copied().unwrap_or(layout.top);
            transitions.extend(self.transitions(&name, &s.transitions, &layout, within));
        }
        lay_out(&mut states);
        // What states carry that the preview does not use, one line each over the layer.
        let list = |pick: &dyn Fn(&controller::State) -> bool| -> Vec<&str> {
            flat.iter()
                .filter(|s| pick(s))
                .map(|s| names[&s.file_id].as_str())
                .collect()
        };
        let shown = |names: &[&str]| {
            let mut text = names
                .iter()
                .take(5)
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ");
            if names.len() > 5 {
                text.push_str(&format!(" and {} more", names.len() - 5));
            }
            text
        };
        for (states, what) in [
            (
                list(&|s| !s.write_defaults),
                "have Write Defaults off: joints their motion does not animate take the rest pose here, where \
                 Unity keeps the values they had",
            ),
            (
                list(&|s| s.ik_on_feet),
                "have Foot IK on, which is not previewed",
            ),
            (
                list(&|s| !s.tag.is_empty()),
                "have tags, which nothing here reads",
            ),
        ] {
            if !states.is_empty() {
                self.notes.push(format!(
                    "{} state(s) {what}: {}",
                    states.len(),
                    shown(&states)
                ));
            }
        }
        let mut any = Vec::new();
        gather_any(base, &mut any);
        transitions.extend(self.transitions(ANY_STATE, &any, &layout, layout.top));
        let entry_transitions = self
            .transitions("Entry", &base.entry, &layout, layout.top)
            .into_iter()
            .filter(|t| t.to != EXIT)
            .map(|t| EntryTransition {
                to: t.to,
                conditions: t.conditions,
            })
            .collect();
        if layout.steps.get() > MAX_DESTINATION_STEPS {
            self.notes.push(format!(
                "transitions through sub-state machines were followed only {MAX_DESTINATION_STEPS} ways: \
                 some are left out"
            ));
        }
        let entry = base
            .default_state
            .and_then(|id| names.get(&id).cloned())
            .or_else(|| states.first().map(|s| s.name.clone()));
        Ok(entry.map(|entry| LayerStates {
            states,
            transitions,
            entry,
            entry_transitions,
        }))
    }

    /// A layer above the base: where it has transitions or several states and overrides, a machine layer of
    /// its own states over the machine's parameters; otherwise a clip layer playing its default state's clip. Both
    /// take the layer's weight and avatar mask. None (with a note) where it cannot play: a synced layer following no states, no states,
    /// a single state with no clip or a blend tree.
    fn layer(
        &mut self,
        l: &controller::Layer,
        parameters: &[Parameter],
    ) -> Result<Option<UpperLayer>, UnityError> {
        let name = &l.name;
        let Some(m) = &l.machine else {
            self.notes.push(format!(
                "layer '{name}' is synced to a layer with no states of its own: nothing to play"
            ));
            return Ok(None);
        };
        let mut flat = Vec::new();
        flatten(m, &mut flat);
        let Some(state) = m
            .default_state
            .and_then(|id| flat.iter().find(|s| s.file_id == id))
            .or(flat.first())
        else {
            self.notes
                .push(format!("layer '{name}' has no states: nothing to play"));
            return Ok(None);
        };
        if l.ik_pass {
            self.notes
                .push(format!("layer '{name}': its IK pass is not previewed"));
        }
        let mut any = Vec::new();
        gather_any(m, &mut any);
        let leaving = flat.iter().map(|s| s.transitions.len()).sum::<usize>() + any.len();
        if leaving > 0 || flat.len() > 1 {
            let Some(LayerStates {
                states,
                transitions,
                entry,
                entry_transitions,
            }) = self.layer_machine(m, parameters)?
            else {
                return Ok(None);
            };
            let (parts, joint_weights) = self.layer_mask(l);
            return Ok(Some(UpperLayer::Machine(MachineLayer {
                name: name.clone(),
                weight: l.weight.clamp(0.0, 1.0),
                parts,
                joint_weights,
                states,
                entry,
                transitions,
                entry_transitions,
                mode: match l.blending {
                    Blending::Override => LayerMode::Override,
                    Blending::Additive => LayerMode::Additive,
                },
                ..MachineLayer::default()
            })));
        }
        let at = format!("{name}/{}", state.name);
        let clip = match &state.motion {
            Some(Motion::Clip(r)) => self.clip(&at, r)?,
            Some(Motion::Tree(t)) => {
                self.notes.push(format!(
                    "layer '{name}': its default state '{}' plays blend tree '{}', which a clip layer does not play",
                    state.name, t.name
                ));
                return Ok(None);
            }
            None => {
                self.notes.push(format!(
                    "layer '{name}': its default state '{}' has no motion, so it leaves the layers below as they are",
                    state.name
                ));
                return Ok(None);
            }
        };
        let Some(clip) = clip else {
            return Ok(None);
        };
        if state.speed != 1.0 {
            self.notes.push(format!(
                "layer '{name}': its state's speed {} is not applied",
                state.speed
            ));
        }
        let (parts, joint_weights) = self.layer_mask(l);
        Ok(Some(UpperLayer::Clip(ClipLayer {
            name: name.clone(),
            clip,
            weight: l.weight.clamp(0.0, 1.0) as f32,
            mode: match l.blending {
                Blending::Override => LayerMode::Override,
                Blending::Additive => LayerMode::Additive,
            },
            parts,
            joint_weights,
            ..ClipLayer::default()
        })))
    }

    /// A layer's avatar mask as body parts and per-joint weights by the last name of each transform path (every
    /// part and no weights where it has none, or it cannot be found or read, noted).
    fn layer_mask(&mut self, l: &controller::Layer) -> (Vec<BodyPart>, BTreeMap<String, f32>) {
        let all = (BodyPart::ALL.to_vec(), BTreeMap::new());
        let Some(r) = &l.mask else {
            return all;
        };
        let name = &l.name;
        match self.mask(r) {
            Ok(Some(mask)) => (
                mask_parts(&mask.body_parts),
                mask.elements
                    .iter()
                    .filter_map(|(path, w)| {
                        let joint = path.rsplit('/').next().filter(|j| !j.is_empty())?;
                        Some((joint.to_string(), w.clamp(0.0, 1.0) as f32))
                    })
                    .collect(),
            ),
            Ok(None) => {
                self.notes.push(format!(
                    "layer '{name}': its avatar mask is in asset {}, which the project folder does not hold; the \
                     layer plays unmasked",
                    r.guid.as_deref().unwrap_or("in this file")
                ));
                all
            }
            Err(e) => {
                self.notes.push(format!(
                    "layer '{name}': its avatar mask cannot be read: {e}"
                ));
                all
            }
        }
    }

    /// The avatar mask a layer names (None: not in the project).
    fn mask(&self, r: &ObjectRef) -> Result<Option<super::mask::AvatarMask>, UnityError> {
        let Some(found) = self.project.resolve(r) else {
            return Ok(None);
        };
        let file = super::yaml::read(&found.path, self.max_bytes)?;
        super::mask::read_mask(&file, &found.path).map(Some)
    }

    /// What a state plays: a clip's name, or a blend space and the parameters driving its point.
    #[allow(clippy::type_complexity)]
    fn motion(
        &mut self,
        state: &str,
        motion: Option<&Motion>,
    ) -> Result<ImportedMotion, UnityError> {
        let clip = |name: String| ImportedMotion {
            clip: Some(name),
            ..ImportedMotion::default()
        };
        match motion {
            None => Ok(clip(self.no_motion(state))),
            Some(Motion::Clip(r)) => match self.clip(state, r)? {
                Some(name) => Ok(clip(name)),
                None => Ok(clip(self.no_motion(state))),
            },
            Some(Motion::Tree(t)) => {
                let nested = t
                    .children
                    .iter()
                    .any(|c| matches!(c.motion, Some(Motion::Tree(_))));
                let Some(mode) = blend_mode(t.blend_type).filter(|_| !nested) else {
                    return self.tree_motion(state, t);
                };
                let mut nodes = Vec::new();
                for c in &t.children {
                    let clip = match &c.motion {
                        Some(Motion::Clip(r)) => self.clip(state, r)?,
                        Some(Motion::Tree(_)) | None => None,
                    };
                    let Some(clip) = clip else { continue };
                    let position = if mode == BlendMode::OneD {
                        [c.threshold, 0.0]
                    } else {
                        c.position
                    };
                    nodes.push(BlendNode {
                        clip,
                        position,
                        time_scale: if c.time_scale > 0.0 {
                            c.time_scale
                        } else {
                            1.0
                        },
                        cycle_offset: finite_offset(c.cycle_offset),
                        mirror: c.mirror,
                    });
                }
                if nodes.is_empty() {
                    self.notes.push(format!(
                        "state '{state}': blend tree '{}' has no clip to play",
                        t.name
                    ));
                    return Ok(clip(self.no_motion(state)));
                }
                let bound = |axis: usize| {
                    let (lo, hi) = nodes
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), n| {
                            (lo.min(n.position[axis]), hi.max(n.position[axis]))
                        });
                    let pad = ((hi - lo) * 0.1).max(0.5);
                    (lo - pad, hi + pad)
                };
                let (x, y) = (bound(0), bound(1));
                let space = BlendSpace {
                    mode,
                    axes: [
                        BlendAxis {
                            name: t.parameter.clone(),
                            min: x.0,
                            max: x.1,
                        },
                        BlendAxis {
                            name: if mode == BlendMode::OneD {
                                "Y".into()
                            } else {
                                t.parameter_y.clone()
                            },
                            min: y.0,
                            max: y.1,
                        },
                    ],
                    nodes,
                    ..BlendSpace::default()
                };
                // A 1D space reads its point's y from the same parameter (unused).
                let y_param = if mode == BlendMode::OneD {
                    t.parameter.clone()
                } else {
                    t.parameter_y.clone()
                };
                Ok(ImportedMotion {
                    blend_space: Some(space),
                    point_parameters: Some([t.parameter.clone(), y_param]),
                    ..ImportedMotion::default()
                })
            }
        }
    }

    /// A Direct tree, or one with trees among its children: its clips, leaf by leaf, as the nodes of a blend
    /// space (each at its time scale times its parents'), and the tree of blends that weighs them.
    fn tree_motion(&mut self, state: &str, t: &BlendTree) -> Result<ImportedMotion, UnityError> {
        let mut nodes = Vec::new();
        let tree = self.weight_tree(state, t, (1.0, 0.0, false), 0, &mut nodes)?;
        if nodes.is_empty() {
            self.notes.push(format!(
                "state '{state}': blend tree '{}' has no clip to play",
                t.name
            ));
            return Ok(ImportedMotion {
                clip: Some(self.no_motion(state)),
                ..ImportedMotion::default()
            });
        }
        // The space only lists the clips (one a step along x); the tree weighs them.
        let last = nodes.len() as f64;
        let space = BlendSpace {
            mode: BlendMode::OneD,
            axes: [
                BlendAxis {
                    name: format!("{} (tree)", t.name),
                    min: -0.5,
                    max: last - 0.5,
                },
                BlendAxis::default(),
            ],
            nodes,
            ..BlendSpace::default()
        };
        Ok(ImportedMotion {
            blend_space: Some(space),
            tree: Some(tree),
            ..ImportedMotion::default()
        })
    }

    fn weight_tree(
        &mut self,
        state: &str,
        t: &BlendTree,
        (time_scale, cycle_offset, mirror): (f64, f64, bool),
        depth: usize,
        nodes: &mut Vec<BlendNode>,
    ) -> Result<WeightTree, UnityError> {
        let mut children = Vec::new();
        for c in &t.children {
            let scale = time_scale
                * if c.time_scale > 0.0 {
                    c.time_scale
                } else {
                    1.0
                };
            // A child's cycle offset and mirror apply to everything under it.
            let (offset, mirrored) = (
                cycle_offset + finite_offset(c.cycle_offset),
                mirror != c.mirror,
            );
            let child = match &c.motion {
                Some(Motion::Tree(inner)) if depth < MAX_TREE_DEPTH => {
                    self.weight_tree(state, inner, (scale, offset, mirrored), depth + 1, nodes)?
                }
                Some(Motion::Clip(r)) => match self.clip(state, r)? {
                    Some(clip) => {
                        nodes.push(BlendNode {
                            clip,
                            position: [nodes.len() as f64, 0.0],
                            time_scale: scale.min(crate::blend::space::MAX_TIME_SCALE),
                            cycle_offset: offset.rem_euclid(1.0),
                            mirror: mirrored,
                        });
                        WeightTree::Node {
                            node: nodes.len() - 1,
                        }
                    }
                    None => EMPTY_TREE,
                },
                // An empty slot (or a tree nested too deep) weighs its share to the rest pose.
                _ => EMPTY_TREE,
            };
            children.push((c, child));
        }
        Ok(match blend_mode(t.blend_type) {
            None => WeightTree::Direct {
                children: children
                    .into_iter()
                    .map(|(c, tree)| WeighedTree {
                        parameter: c.direct_parameter.clone(),
                        tree,
                    })
                    .collect(),
                normalized: t.normalized,
            },
            Some(mode) => WeightTree::Blend {
                mode,
                parameters: [
                    t.parameter.clone(),
                    if mode == BlendMode::OneD {
                        t.parameter.clone()
                    } else {
                        t.parameter_y.clone()
                    },
                ],
                children: children
                    .into_iter()
                    .map(|(c, tree)| PlacedTree {
                        position: if mode == BlendMode::OneD {
                            [c.threshold, 0.0]
                        } else {
                            c.position
                        },
                        tree,
                    })
                    .collect(),
            },
        })
    }

    /// The clip with no tracks that states without a motion play.
    fn no_motion(&mut self, state: &str) -> String {
        if !self.clips.iter().any(|c| c.name == NO_MOTION) {
            let mut clip = Clip::new(NO_MOTION, Vec::new());
            clip.duration = 1.0;
            self.clips.push(clip);
        }
        self.notes.push(format!(
            "state '{state}' plays no motion here (the rest pose)"
        ));
        NO_MOTION.into()
    }

    /// The name of the clip a reference names, loading its file once; None (noted) when it cannot be found or
    /// read.
    fn clip(&mut self, state: &str, r: &ObjectRef) -> Result<Option<String>, UnityError> {
        let r = self.overrides.get(r).cloned().unwrap_or_else(|| r.clone());
        let r = &r;
        let Some(found) = self.project.resolve(r) else {
            self.notes.push(format!(
                "state '{state}': its clip is in asset {} (object {}), which the project folder does not hold",
                r.guid.as_deref().unwrap_or("in this file"),
                r.file_id
            ));
            return Ok(None);
        };
        if !self.loaded.contains_key(&found.path) {
            let limits_ok =
                crate::io::limits::check_regular_file(&found.path, self.max_bytes).is_ok();
            let loaded = if limits_ok {
                crate::import::load_clips(&found.path).map_err(|e| e.to_string())
            } else {
                Err(format!("{}: over the size limit", found.path.display()))
            };
            let names = match loaded {
                Ok(clips) => {
                    // Named by their file (and a model's clip by its name there), so they never take the name of
                    // one of the character's own clips.
                    let file = found
                        .path
                        .file_name()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let single_anim =
                        clips.len() == 1 && found.path.extension().is_some_and(|e| e == "anim");
                    let mut names = Vec::new();
                    for mut c in clips {
                        c.name = if single_anim {
                            file.clone()
                        } else {
                            format!("{file}: {}", c.name)
                        };
                        names.push(c.name.clone());
                        self.clips.push(c);
                    }
                    names
                }
                Err(e) => {
                    self.notes.push(format!("state '{state}': {e}"));
                    Vec::new()
                }
            };
            self.loaded.insert(found.path.clone(), names);
        }
        let names = &self.loaded[&found.path];
        let pick = match &found.sub_asset {
            Some(sub) => names
                .iter()
                .find(|n| n.ends_with(&format!(": {sub}")))
                .or_else(|| (names.len() == 1).then(|| &names[0])),
            None => names.first(),
        };
        if pick.is_none() && !names.is_empty() {
            self.notes.push(format!(
                "state '{state}': clip '{}' is not among the clips of {}",
                found.sub_asset.as_deref().unwrap_or("?"),
                found.path.display()
            ));
        }
        Ok(pick.cloned())
    }

    /// A state's (or Any State's, or Entry's) transitions in Unity's order (muted ones left out and, where any is
    /// solo, only the solo ones), from inside machine `within`: one into a sub-machine or out of one's Exit
    /// becomes one transition per way it can end, each with the conditions of the way.
    fn transitions(
        &mut self,
        from: &str,
        list: &[controller::Transition],
        layout: &Layout,
        within: i64,
    ) -> Vec<Transition> {
        let mut out = Vec::new();
        for t in usable(list) {
            let ends = layout.destinations(&t.destination, within, 0);
            if ends.is_empty() {
                self.notes.push(format!(
                    "a transition from '{from}' goes to a state the layer does not hold"
                ));
                continue;
            }
            for (to, extra) in ends {
                let conditions = t.conditions.iter().chain(&extra);
                out.push(Transition {
                    from: from.to_string(),
                    to,
                    conditions: conditions
                        .map(|c| Condition {
                            parameter: c.parameter.clone(),
                            mode: match c.mode {
                                UnityMode::If => ConditionMode::If,
                                UnityMode::IfNot => ConditionMode::IfNot,
                                UnityMode::Greater => ConditionMode::Greater,
                                UnityMode::Less => ConditionMode::Less,
                                UnityMode::Equals => ConditionMode::Equals,
                                UnityMode::NotEqual => ConditionMode::NotEqual,
                            },
                            threshold: c.threshold,
                        })
                        .collect(),
                    has_exit_time: t.has_exit_time,
                    exit_time: t.exit_time,
                    fixed_duration: t.fixed_duration,
                    duration: t.duration,
                    offset: t.offset,
                    interruption_source: match t.interruption {
                        Interruption::None => InterruptionSource::None,
                        Interruption::Source => InterruptionSource::Current,
                        Interruption::Destination => InterruptionSource::Next,
                        Interruption::SourceThenDestination => InterruptionSource::CurrentThenNext,
                        Interruption::DestinationThenSource => InterruptionSource::NextThenCurrent,
                    },
                    ordered_interruption: t.ordered_interruption,
                    can_transition_to_self: t.can_transition_to_self,
                    ..Transition::default()
                });
            }
        }
        out
    }
}
