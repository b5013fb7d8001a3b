//! `animtune pose`: joint transforms at a time of a clip.

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::{ClipSourceArgs, PoseArgs, SpringArgs};
use crate::core::binding::BindMethod;
use crate::core::{Clip, Pose, Transform};
use crate::eval::{ClockStep, EvalInput, Evaluator, Precision, SourceSpec};
use crate::graph::Script;
use crate::import::ImportedModel;
use crate::layers::LayerParams;

#[derive(Serialize)]
struct PoseReport {
    clip: Option<String>,
    time: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    binding: Option<BindingReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    layers: Option<LayersReport>,
    joints: Vec<JointPose>,
    /// Every mesh with morph targets, in the character's mesh order.
    morph_weights: Vec<MorphWeights>,
    /// Every expression of the character with the weight it was given (0 unless a preset sets it).
    expressions: std::collections::BTreeMap<String, f32>,
    /// With --springs: how they were stepped and where their tails ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    springs: Option<SpringReport>,
    /// With a preset's state machine: where it stands at the time.
    #[serde(skip_serializing_if = "Option::is_none")]
    state_machine: Option<MachineReport>,
}

/// The most updates one `pose` runs (spring and foot-lock steps, frames of a script, state-machine ticks): a
/// million, 4.6 hours of clip at 60 fps, a few seconds in a release build (ten million took 15–31 s). Past it a run
/// is refused, naming the flags to lower.
pub const MAX_UPDATES: u64 = 1_000_000;

/// Where a state machine stands: its current state and normalised time, the running transition.
#[derive(Serialize)]
pub(super) struct MachineReport {
    /// The rate it simulated at, Hz.
    sim_rate_hz: f64,
    state: String,
    normalized_time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    transition: Option<TransitionReport>,
    /// Every parameter's value (bools and triggers 0 or 1).
    parameters: std::collections::BTreeMap<String, f64>,
}

/// A running transition.
#[derive(Serialize)]
struct TransitionReport {
    /// Its index in the preset's list.
    index: usize,
    to: String,
    /// The destination's normalised time.
    to_time: f64,
    /// Elapsed over duration, in [0, 1].
    progress: f64,
    /// Whether its source is a pose frozen at an interruption.
    frozen_source: bool,
}

impl MachineReport {
    fn of(player: &crate::graph::MachinePlayer, sim_rate_hz: f64) -> Self {
        let m = player.machine();
        MachineReport {
            sim_rate_hz,
            state: m.states[player.current()].name.clone(),
            normalized_time: player.time(),
            transition: player.active().map(|a| TransitionReport {
                index: a.transition,
                to: m.states[a.to].name.clone(),
                to_time: a.to_time,
                progress: a.progress(),
                frozen_source: a.frozen_source,
            }),
            parameters: m
                .parameters
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.clone(), player.value(i)))
                .collect(),
        }
    }
}

/// The morph weights of one morphed mesh.
#[derive(Serialize)]
struct MorphWeights {
    node: String,
    mesh: String,
    weights: Vec<f32>,
}

/// What the procedural layers did.
#[derive(Serialize)]
pub(super) struct LayersReport {
    /// The clip layers applied (muted ones, those at weight 0 and, while any is soloed, the others left out), by
    /// clip name.
    clips: Vec<String>,
    breath: bool,
    twist: bool,
    look_at: Option<Vec<LookReport>>,
}

#[derive(Serialize)]
struct LookReport {
    bone: String,
    angle_deg: f32,
    limited: bool,
}

/// What a clip's tracks bound to: tracks that found no joint, joints that no track drives.
#[derive(Serialize)]
pub(super) struct BindingReport {
    unbound_tracks: Vec<String>,
    joints_without_track: Vec<String>,
    /// Tracks of humanoid bones this character lacks, folded into their parent bone's track: [from, into].
    folded: Vec<[String; 2]>,
}

#[derive(Serialize)]
struct JointPose {
    name: String,
    human_bone: Option<&'static str>,
    local: Trs,
    model: Trs,
}

#[derive(Serialize)]
struct Trs {
    translation: [f32; 3],
    rotation: [f32; 4],
    scale: [f32; 3],
}

impl From<Transform> for Trs {
    fn from(t: Transform) -> Self {
        Trs {
            translation: t.translation.to_array(),
            rotation: t.rotation.to_array(),
            scale: t.scale.to_array(),
        }
    }
}

/// Finds a clip by name, else by index.
pub(super) fn find_clip<'a>(clips: &'a [Clip], wanted: &str, file: &str) -> Result<&'a Clip> {
    let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
    find_clip_index(&names, wanted, file).map(|i| &clips[i])
}

/// The index of the clip `wanted` names among clips named `names`: by name, else by index.
pub(super) fn find_clip_index(names: &[&str], wanted: &str, file: &str) -> Result<usize> {
    if let Some(i) = names.iter().position(|n| *n == wanted) {
        return Ok(i);
    }
    if let Ok(i) = wanted.parse::<usize>() {
        if i < names.len() {
            return Ok(i);
        }
        bail!(
            "{file}: clip index {i} is out of range ({} clips)",
            names.len()
        );
    }
    bail!(
        "{file}: no clip named '{wanted}' (clips: {})",
        names.join(", ")
    )
}

fn pick_clip<'a>(clips: &'a [Clip], wanted: Option<&str>, file: &str) -> Result<Option<&'a Clip>> {
    match wanted {
        None => Ok(clips.first()),
        Some(w) => find_clip(clips, w, file).map(Some),
    }
}

/// A pose evaluated from the command line's clip options.
pub(super) struct Evaluated {
    /// The pose.
    pub pose: Pose,
    /// Model-space matrices of the pose.
    pub model: Vec<glam::Mat4>,
    /// Name of the clip used, if any.
    pub clip: Option<String>,
    /// What the clip bound to.
    pub binding: Option<BindingReport>,
    /// What the layers did, when a preset or `--look-at` applied them.
    pub layers: Option<LayersReport>,
    /// Morph-target weights, one list per mesh of the character (empty for a mesh without targets).
    pub morph_weights: Vec<Vec<f32>>,
    /// Every expression of the character with its weight.
    pub expressions: std::collections::BTreeMap<String, f32>,
    /// What `--springs` simulated.
    pub springs: Option<SpringReport>,
    /// Where the preset's state machine stands, when one played.
    pub state_machine: Option<MachineReport>,
}

/// `--springs`: how the spring bones were stepped, and where their tails ended.
#[derive(Serialize)]
pub(super) struct SpringReport {
    fps: f32,
    preroll_s: f32,
    /// --sway's X, Y, Z, HZ.
    #[serde(skip_serializing_if = "Option::is_none")]
    sway: Option<[f32; 4]>,
    /// Updates run, the preroll's included.
    updates: usize,
    /// Every spring joint, in the order they run.
    joints: Vec<SpringJointReport>,
    /// With --trace: per update after the preroll, every joint's tail in world space.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    trace: Vec<Vec<[f32; 3]>>,
}

#[derive(Serialize)]
struct SpringJointReport {
    joint: String,
    spring: String,
    /// The tail joint (null: a virtual tail).
    tail: Option<String>,
    /// The joint's position in world space.
    world: [f32; 3],
    /// Its tail's position in world space.
    tail_world: [f32; 3],
}

/// The largest `--sway` offset along each axis, metres: ten metres either way is far past any sway that tests a
/// character's springs, and keeps the root's placement (and the tails it drags) far from f32's overflow.
pub const MAX_SWAY_M: f32 = 10.0;

/// The highest `--sway` frequency, Hz (past the update rate's half, a sway only aliases).
pub const MAX_SWAY_HZ: f32 = 100.0;

/// `--springs` parsed.
struct SpringRun {
    fps: f32,
    preroll: f32,
    sway: Option<(glam::Vec3, f32)>,
    trace: bool,
}

impl SpringRun {
    fn parse(args: &SpringArgs) -> Result<Self> {
        if !(args.fps.is_finite() && (1.0..=1000.0).contains(&args.fps)) {
            bail!("--fps {}: expected a rate from 1 to 1000", args.fps);
        }
        if !(args.preroll.is_finite() && (0.0..=600.0).contains(&args.preroll)) {
            bail!("--preroll {}: expected 0 to 600 seconds", args.preroll);
        }
        let sway = match &args.sway {
            None => None,
            Some(text) => {
                let v: Vec<f32> = text
                    .split(',')
                    .map(|p| p.trim().parse::<f32>())
                    .collect::<Result<_, _>>()
                    .with_context(|| format!("--sway '{text}': expected X,Y,Z,HZ"))?;
                let [x, y, z, hz] = v.as_slice() else {
                    bail!("--sway '{text}': expected four finite numbers X,Y,Z,HZ");
                };
                let offset = glam::Vec3::new(*x, *y, *z);
                if !(offset.is_finite() && offset.abs().max_element() <= MAX_SWAY_M) {
                    bail!(
                        "--sway '{text}': X, Y and Z are metres, each from -{MAX_SWAY_M} to {MAX_SWAY_M}"
                    );
                }
                if !(hz.is_finite() && (0.0..=MAX_SWAY_HZ).contains(hz)) {
                    bail!("--sway '{text}': HZ is a frequency from 0 to {MAX_SWAY_HZ}");
                }
                Some((offset, *hz))
            }
        };
        Ok(SpringRun {
            fps: args.fps,
            preroll: args.preroll,
            sway,
            trace: args.trace,
        })
    }

    fn placement(&self, t: f32) -> glam::Mat4 {
        self.sway.map_or(glam::Mat4::IDENTITY, |(offset, hz)| {
            glam::Mat4::from_translation(offset * (std::f32::consts::TAU * hz * t).sin())
        })
    }

    /// Plays the stack from 0 to `time` with the springs updated once per frame of the rate.
    fn play<'e>(
        &self,
        ev: &'e mut Evaluator,
        time: f32,
        target: Option<glam::Vec3>,
        file: &str,
    ) -> Result<(SpringReport, &'e crate::eval::EvalOutput)> {
        if time < 0.0 {
            bail!(
                "--time {time}: --springs and --foot-lock step the stack from 0, so the time cannot be negative"
            );
        }
        let dt = 1.0 / self.fps;
        let frames = (f64::from(time) * f64::from(self.fps)).round() as usize;
        let prerolls = (f64::from(self.preroll) * f64::from(self.fps)).round() as usize;
        if (frames + prerolls) as u64 > MAX_UPDATES {
            bail!(
                "--springs/--foot-lock: {} updates (--time and --preroll at --fps {}) are over the {MAX_UPDATES} one \
                 run takes; lower --fps or --time",
                frames + prerolls,
                self.fps
            );
        }
        let input = |clock, k: usize| EvalInput {
            clock,
            blend_point: None,
            look_target: target,
            placement: Some(self.placement(k as f32 * dt)),
            simulation_dt: Some(dt),
        };
        // The reset: the tails where the first pose puts them.
        ev.evaluate(&input(ClockStep::Seek(0.0), 0));
        for _ in 0..prerolls {
            ev.evaluate(&input(ClockStep::Hold, 0));
        }
        let mut trace = Vec::new();
        for k in 0..=frames {
            if let Some(e) = &ev
                .evaluate(&input(ClockStep::Continue(k as f32 * dt), k))
                .error
            {
                bail!("{file}: cannot evaluate the pose: {e}");
            }
            let out = ev.output();
            if self.trace {
                let place = self.placement(k as f32 * dt);
                trace.push(
                    ev.layer_stage()
                        .rig()
                        .springs
                        .tails(&out.model)
                        .iter()
                        .map(|(_, p, _)| place.transform_point3(*p).to_array())
                        .collect(),
                );
            }
        }
        let place = self.placement(frames as f32 * dt);
        let out = ev.output();
        let rig = &ev.layer_stage().rig().springs;
        let infos = rig.joint_infos();
        let tails = rig.tails(&out.model);
        let skeleton_names = ev.skeleton_names();
        let joints = infos
            .iter()
            .zip(&tails)
            .map(|(info, (_, tail, _))| SpringJointReport {
                joint: skeleton_names[info.joint].clone(),
                spring: info.spring.clone(),
                tail: info.tail.map(|t| skeleton_names[t].clone()),
                world: place
                    .transform_point3(out.model[info.joint].w_axis.truncate())
                    .to_array(),
                tail_world: place.transform_point3(*tail).to_array(),
            })
            .collect();
        Ok((
            SpringReport {
                fps: self.fps,
                preroll_s: self.preroll,
                sway: self.sway.map(|(o, hz)| [o.x, o.y, o.z, hz]),
                updates: prerolls + frames + 1,
                joints,
                trace,
            },
            ev.output(),
        ))
    }
}

pub(super) fn parse_point3(text: &str) -> Result<glam::Vec3> {
    let v: Vec<f32> = text
        .split(',')
        .map(|p| p.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--look-at '{text}': expected X,Y,Z in metres"))?;
    match v.as_slice() {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(glam::Vec3::new(*x, *y, *z)),
        _ => bail!("--look-at '{text}': expected three finite numbers X,Y,Z"),
    }
}

/// The source the command line names and what its binding reported.
struct Chosen<'a> {
    clips: &'a [Clip],
    source: SourceSpec,
    clip: Option<String>,
    binding: Option<BindingReport>,
}

/// The whole stack from the command line, through the Evaluator: the clip (or the preset's blend space), then the
/// layers (the preset's, or the defaults with look-at on when only `--look-at` asks; none otherwise).
pub(super) fn evaluate_stack(
    model: &ImportedModel,
    args: &super::ModelArgs,
    src: &ClipSourceArgs,
    springs: Option<&SpringArgs>,
) -> Result<Evaluated> {
    if !src.time.is_finite() {
        bail!("--time must be a finite number of seconds");
    }
    let preset = super::model::preset(args)?;
    let file = args.model.as_str();
    let preset_file = args
        .preset
        .as_ref()
        .map_or_else(|| "the preset".into(), |p| p.display().to_string());
    let target = src.look_at.as_deref().map(parse_point3).transpose()?;
    let layers_on = preset.is_some() || target.is_some();
    let layers = match (&preset, layers_on) {
        (Some(p), _) => p.layers.clone(),
        (None, true) => LayerParams::default(),
        (None, false) => LayerParams::off(),
    };
    let spring_flag = springs.is_some_and(|s| s.springs);
    let flags = crate::layers::LayerFlags {
        look_at: target,
        look_solver: src.look_solver.map(|s| s.solver()),
        springs: spring_flag,
        foot_lock: springs.is_some_and(|s| s.foot_lock),
        preroll_s: None,
    };
    let layers = flags
        .apply(layers, &model.character, file)
        .map_err(|e| anyhow::anyhow!(e))?;
    // The stateful layers are stepped from 0 at the rate: the springs when asked for, foot lock when on.
    let spring_run = springs
        .filter(|s| s.springs || layers.foot_lock.enabled)
        .map(SpringRun::parse)
        .transpose()?;
    let no_clip_option = src.clip.is_none() && src.clip_file.is_none() && src.baked.is_none();
    // A Unity controller plays as a state machine with its clips beside the model's.
    let controller = src
        .controller
        .as_deref()
        .map(super::model::open_controller)
        .transpose()?;
    let preset_file = match &src.controller {
        Some(path) => path.display().to_string(),
        None => preset_file,
    };
    // Its upper layers play over its machine, as a preset's clip layers do.
    let layers = match &controller {
        Some(c) => {
            let mut with = layers;
            with.clips.extend(c.layers.iter().cloned());
            with
        }
        None => layers,
    };
    let with_controller: Vec<Clip>;
    let model_clips: &[Clip] = match &controller {
        Some(c) => {
            with_controller = model.clips.iter().chain(&c.clips).cloned().collect();
            &with_controller
        }
        None => &model.clips,
    };
    let machine = match &controller {
        Some(c) => Some(c.machine.clone()),
        None => preset
            .as_ref()
            .and_then(|p| p.state_machine.clone())
            .filter(|_| no_clip_option),
    };
    if let Some(m) = &machine {
        m.validate_playable()
            .map_err(|e| anyhow::anyhow!("{preset_file}: state_machine: {e}"))?;
    }
    for (given, flag) in [
        (src.script.is_some(), "--script"),
        (src.sim_rate.is_some(), "--sim-rate"),
    ] {
        if given && machine.is_none() {
            bail!(
                "{flag} plays a state machine, and {} holds none: give a --preset that holds one, or \
                 --controller (a clip option chooses a clip instead)",
                if src.controller.is_some() || args.preset.is_some() {
                    preset_file.as_str()
                } else {
                    "the command line"
                }
            );
        }
    }
    let sim_rate = sim_rate(src.sim_rate)?;
    let external: Vec<Clip>;
    let with_mirrors: Vec<Clip>;
    let chosen = match preset.as_ref().and_then(|p| p.blend.as_ref()) {
        _ if machine.is_some() => {
            let (clips, mirrored) = crate::offline::mirror::machine_clips(
                &model.character,
                model_clips,
                &machine.clone().unwrap_or_default(),
            );
            with_mirrors = clips;
            Chosen {
                clips: &with_mirrors,
                source: SourceSpec::StateMachine(mirrored),
                clip: Some("state machine".into()),
                binding: None,
            }
        }
        Some(space) if no_clip_option => {
            let sampler = crate::blend::BlendSampler::bind(space, &model.clips, &model.character);
            if let Some((i, clip)) = sampler.missing().first() {
                bail!(
                    "{preset_file}: blend node {i} plays clip '{clip}', which the model ({file}) does not have"
                );
            }
            Chosen {
                clips: &model.clips,
                source: SourceSpec::Blend(space.clone()),
                clip: Some("blend space".into()),
                binding: None,
            }
        }
        _ => {
            let (clips, clips_file) = match (&src.clip_file, &src.baked) {
                (Some(path), _) => {
                    external = crate::import::load_clips(path)?;
                    (&external[..], path.display().to_string())
                }
                (None, Some(path)) => {
                    external =
                        vec![crate::clipfile::load(path)?.to_clip_in(src.unity_axes.unity_axes())];
                    (&external[..], path.display().to_string())
                }
                (None, None) => (&model.clips[..], file.to_string()),
            };
            choose_clip(model, file, clips, &clips_file, src)?
        }
    };
    let is_blend = matches!(chosen.source, SourceSpec::Blend(_));
    let precision = if src.exact {
        Precision::Exact
    } else {
        Precision::Compact
    };
    let mut ev = Evaluator::with_precision(
        &model.character,
        chosen.clips,
        chosen.source,
        layers,
        precision,
    );
    let settings = preset.map(|p| p.clip_settings).unwrap_or_default();
    if let Some(missing) = crate::offline::request::missing_layer_clip(
        ev.layer_stage().params(),
        chosen.clips,
        &settings,
    ) {
        bail!("{preset_file}: {missing}");
    }
    // Looping (always for a blend space): as if played from 0 for `time` seconds, so the layers' clock (breath)
    // reads `time` as in the editor and in bakes, and the source wraps into its cycle. Otherwise a seek, which
    // holds the ends.
    let clock = if is_blend || src.looping {
        ClockStep::Continue(src.time)
    } else {
        ClockStep::Seek(src.time)
    };
    if let Some(clip) = ev.source().missing_machine_clips().first() {
        bail!(
            "{preset_file}: the state machine plays clip '{clip}', which the model ({file}) does not have"
        );
    }
    let mut spring_report = None;
    let out = match &spring_run {
        _ if machine.is_some() => {
            let script = match &src.script {
                Some(path) => {
                    let text = crate::preset::read_text(path)?;
                    let name = path.display().to_string();
                    Script::parse(&text, &name).map_err(|e| anyhow::anyhow!(e))?
                }
                None => Script::default(),
            };
            let fps = springs.map_or(60.0, |s| f64::from(s.fps));
            ev.set_sim_rate(sim_rate);
            play_machine(
                &mut ev,
                &script,
                src.script.as_deref(),
                fps,
                src.time,
                target,
            )?
        }
        None => {
            let input = EvalInput {
                clock,
                blend_point: None,
                look_target: target,
                ..Default::default()
            };
            ev.evaluate(&input)
        }
        Some(run) => {
            let (report, out) = run.play(&mut ev, src.time, target, file)?;
            spring_report = spring_flag.then_some(report);
            out
        }
    };
    if let Some(e) = &out.error {
        bail!("{file}: cannot evaluate the pose: {e}");
    }
    let (pose, model_m, look) = (out.local.clone(), out.model.clone(), out.look.clone());
    let morph_weights = out.morph_weights.clone();
    let expressions = model
        .character
        .expressions
        .iter()
        .zip(ev.layer_stage().expression_weights())
        .map(|(e, w)| (e.name.clone(), *w))
        .collect();
    let report = layers_on.then(|| {
        let (params, rig) = (ev.layer_stage().params(), ev.layer_stage().rig());
        LayersReport {
            clips: params
                .clips
                .iter()
                .zip(crate::layers::clip_layer::playing(&params.clips))
                .filter(|(_, on)| *on)
                .map(|(c, _)| c.clip.clone())
                .collect(),
            breath: params.breath.enabled && !rig.breath.bones.is_empty(),
            twist: params.twist.enabled && rig.twist.pairs.iter().any(|p| p.is_valid()),
            look_at: params.look_at.enabled.then(|| {
                look.iter()
                    .map(|r| LookReport {
                        bone: params.look_at.chain[r.index].bone.clone(),
                        angle_deg: r.angle_deg,
                        limited: r.limited,
                    })
                    .collect()
            }),
        }
    });
    Ok(Evaluated {
        state_machine: (ev.source().machine())
            .map(|p| MachineReport::of(p, ev.source().sim_rate())),
        pose,
        model: model_m,
        clip: chosen.clip,
        binding: chosen.binding,
        layers: report,
        morph_weights,
        expressions,
        springs: spring_report,
    })
}

/// Plays the Evaluator's state machine from 0 to `time` under `script` (`script_path` names it in errors),
/// evaluated at `fps` frames a second for the layers: at 0, then at each frame k at k/fps (and at `time` when it
/// falls between frames; `graph::script::update_times`). The machine runs the ticks of its simulation rate due by
/// each frame, each after the script's events due by its time, so the pose at `time` is the same at any `fps`.
fn play_machine<'a>(
    ev: &'a mut Evaluator,
    script: &Script,
    script_path: Option<&std::path::Path>,
    fps: f64,
    time: f32,
    look_target: Option<glam::Vec3>,
) -> Result<&'a crate::eval::EvalOutput> {
    if !(fps.is_finite() && fps > 0.0 && fps <= 10_000.0) {
        bail!("--fps {fps}: expected a rate above 0 and at most 10000");
    }
    let time = f64::from(time.max(0.0));
    let frames = (time * fps + 1e-9).floor();
    if frames > MAX_UPDATES as f64 {
        bail!(
            "--time {time} at --fps {fps}: over the {MAX_UPDATES} frames one run takes; lower --fps or --time"
        );
    }
    let rate = ev.source().sim_rate();
    if time * rate > MAX_UPDATES as f64 {
        bail!(
            "--time {time} at --sim-rate {rate}: over the {MAX_UPDATES} ticks one run takes; lower --sim-rate or \
             --time"
        );
    }
    let Some(player) = ev.source().machine() else {
        bail!("the state machine did not bind");
    };
    if let Some(name) = script.unknown_parameter(player) {
        let path = script_path.map_or_else(String::new, |p| format!("{}: ", p.display()));
        bail!("{path}the state machine has no parameter '{name}'");
    }
    ev.source_mut()
        .set_script(Some(std::sync::Arc::new(script.clone())));
    for t in crate::graph::script::update_times(fps, time) {
        ev.evaluate(&EvalInput {
            clock: ClockStep::Continue(t as f32),
            look_target,
            ..Default::default()
        });
    }
    Ok(ev.output())
}

/// `--sim-rate`'s value, checked (the default without one).
pub(super) fn sim_rate(given: Option<f64>) -> Result<f64> {
    let range = crate::graph::script::SIM_RATE_RANGE;
    match given {
        None => Ok(crate::graph::script::DEFAULT_SIM_RATE),
        Some(hz) if range.contains(&hz) => Ok(hz),
        Some(hz) => bail!(
            "--sim-rate {hz}: expected a simulation rate from {} to {} Hz",
            range.start(),
            range.end()
        ),
    }
}

/// Picks the clip `src` names in `clips` and checks that it binds to the model.
fn choose_clip<'a>(
    model: &ImportedModel,
    file: &str,
    clips: &'a [Clip],
    clips_file: &str,
    src: &ClipSourceArgs,
) -> Result<Chosen<'a>> {
    let c = &model.character;
    let s = &c.skeleton;
    let clip = pick_clip(clips, src.clip.as_deref(), clips_file)?;
    if (src.clip_file.is_some() || src.baked.is_some()) && clip.is_none() {
        bail!("{clips_file}: has no animation");
    }
    let Some(clip) = clip else {
        return Ok(Chosen {
            clips,
            source: SourceSpec::Rest,
            clip: None,
            binding: None,
        });
    };
    let index = clips
        .iter()
        .position(|c| std::ptr::eq(c, clip))
        .unwrap_or(0);
    let binding = crate::core::fold::bind_folding(clip, s, Some(&c.humanoid)).1;
    let needs_humanoid = binding
        .tracks
        .iter()
        .flatten()
        .any(|b| b.method == BindMethod::HumanBone);
    if needs_humanoid && !c.humanoid.is_humanoid() {
        let mut why: Vec<String> = c.humanoid.problems.clone();
        if !c.humanoid.missing_required.is_empty() {
            let missing: Vec<&str> = c
                .humanoid
                .missing_required
                .iter()
                .map(|b| b.name())
                .collect();
            why.insert(0, format!("missing {}", missing.join(", ")));
        }
        bail!(
            "{file}: not a humanoid ({}), so clip '{}' from {clips_file} cannot bind by human bone",
            why.join("; "),
            clip.name
        );
    }
    if binding.tracks.iter().flatten().count() == 0 && !clip.tracks.is_empty() {
        bail!(
            "{file}: none of the {} tracks of clip '{}' found a joint",
            clip.tracks.len(),
            clip.name
        );
    }
    if !binding.unbound_tracks.is_empty() {
        eprintln!(
            "note: {} track(s) found no joint: {} (--json lists them all)",
            binding.unbound_tracks.len(),
            super::first_few(&binding.unbound_tracks)
        );
    }
    Ok(Chosen {
        clips,
        source: SourceSpec::Clip(index),
        clip: Some(clip.name.clone()),
        binding: Some(BindingReport {
            unbound_tracks: binding.unbound_tracks,
            joints_without_track: binding.joints_without_track,
            folded: binding
                .folded
                .into_iter()
                .map(|f| [f.from, f.into])
                .collect(),
        }),
    })
}

pub fn run(args: &PoseArgs) -> Result<()> {
    let model = super::model::open(&args.model)?;
    let c = &model.character;
    let s = &c.skeleton;
    let Evaluated {
        pose,
        model: model_m,
        clip,
        binding,
        layers,
        morph_weights,
        expressions,
        springs,
        state_machine,
    } = evaluate_stack(&model, &args.model, &args.source, Some(&args.springs))?;
    let bones = c.humanoid.bone_per_joint(s.len());
    let report = PoseReport {
        clip,
        time: args.source.time,
        binding,
        layers,
        joints: (0..s.len())
            .map(|j| JointPose {
                name: s.name(j).to_string(),
                human_bone: bones[j].map(|b| b.name()),
                local: pose.local[j].into(),
                model: Transform::from_mat4(&model_m[j]).into(),
            })
            .collect(),
        morph_weights: c
            .meshes
            .iter()
            .zip(morph_weights)
            .filter_map(|(mesh, weights)| {
                mesh.morph.as_ref().map(|m| MorphWeights {
                    node: m.node.clone(),
                    mesh: m.mesh.clone(),
                    weights,
                })
            })
            .collect(),
        expressions,
        springs,
        state_machine,
    };
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).context("serializing the pose")?
        );
    } else {
        outln!(
            "clip: {}  time: {} s",
            report.clip.as_deref().unwrap_or("(rest pose)"),
            report.time
        );
        if let Some(m) = &report.state_machine {
            match &m.transition {
                Some(t) => outln!(
                    "state: {} at {:.3} -> {} at {:.3} ({:.0} %{})",
                    m.state,
                    m.normalized_time,
                    t.to,
                    t.to_time,
                    t.progress * 100.0,
                    if t.frozen_source {
                        ", from a frozen pose"
                    } else {
                        ""
                    }
                ),
                None => outln!("state: {} at {:.3}", m.state, m.normalized_time),
            }
        }
        for j in &report.joints {
            let t = j.model.translation;
            let r = j.local.rotation;
            outln!(
                "{:<32} {:<22} model pos [{:8.4} {:8.4} {:8.4}]  local rot [{:7.4} {:7.4} {:7.4} {:7.4}]",
                j.name,
                j.human_bone.unwrap_or("-"),
                t[0],
                t[1],
                t[2],
                r[0],
                r[1],
                r[2],
                r[3]
            );
        }
        for m in &report.morph_weights {
            outln!("morph {:<26} {:?}", m.node, m.weights);
        }
    }
    Ok(())
}
