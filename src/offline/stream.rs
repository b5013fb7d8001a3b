//! The first stage of the offline pipeline for what the editor plays: the final pose stream (a clip, the blend
//! space at a point or along a path of points over time, or a state machine under a script; then the layers)
//! sampled over a duration at a frame rate. A state machine simulates at its own rate whatever the frame rate
//! (`graph::script::SimClock`): its frames are what `pose --script` shows at their times.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ExportError;
use super::frames::Frames;
use crate::blend::{BlendSampler, BlendSpace};
use crate::core::{Character, Clip};
use crate::eval::{ClockStep, EvalInput, Evaluator, Precision, SourceSpec};
use crate::layers::LayerParams;

/// Where the animation comes from before the layers.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamSource {
    /// One clip, by index into the clip list (looping when the duration is longer).
    Clip(usize),
    /// The blend space at a fixed point.
    BlendPoint([f64; 2]),
    /// The blend space along a path of points over time.
    BlendPath(Vec<PathPoint>),
    /// A state machine driven by a parameter script, played from 0.
    Machine {
        /// The machine.
        machine: Box<crate::graph::StateMachine>,
        /// The parameter script.
        script: crate::graph::Script,
        /// The rate it simulates at, Hz (decisions on ticks of that rate, whatever the frame rate).
        sim_rate: f64,
    },
}

impl StreamSource {
    /// The blend point at `t` seconds from the start (None for a clip).
    pub fn point_at(&self, t: f32) -> Option<[f64; 2]> {
        match self {
            StreamSource::BlendPath(path) => Some(path_point(path, t)),
            StreamSource::BlendPoint(p) => Some(*p),
            StreamSource::Clip(_) | StreamSource::Machine { .. } => None,
        }
    }
}

/// A point of a blend path: where the sample point is at a time; linear in between, held at the ends.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathPoint {
    /// Seconds from the start.
    pub time: f32,
    /// The sample point.
    pub point: [f64; 2],
}

/// What to bake.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamSpec {
    /// The source.
    pub source: StreamSource,
    /// Length in seconds.
    pub duration: f32,
    /// Frames per second (the look-at filter is stepped at this rate).
    pub fps: f32,
    /// For a clip source: the in/out range (seconds of the clip) the bake starts at and loops within, as the
    /// editor plays it; None for the whole clip from 0.
    pub clip_range: Option<[f32; 2]>,
}

/// A file stem for a clip name: letters, digits, `-`, `_` and `.` kept, anything else `_`; `clip{index}` when empty.
pub fn file_stem(name: &str, index: usize) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        format!("clip{index}")
    } else {
        clean
    }
}

/// The files a bake of `stems` (each with its index, a node's or a clip's) writes into `dir` with extension
/// `ext`, in order: a stem already taken (also differing only in case, which is one file on some file systems)
/// gets its index appended. The `bake` command and the editor's export name their files with it.
pub fn files_in(dir: &Path, stems: &[(usize, String)], ext: &str) -> Vec<PathBuf> {
    let mut taken = std::collections::HashSet::new();
    stems
        .iter()
        .map(|(index, stem)| {
            let mut stem = stem.clone();
            if !taken.insert(stem.to_lowercase()) {
                stem = format!("{stem}_{index}");
                taken.insert(stem.to_lowercase());
            }
            dir.join(format!("{stem}.{ext}"))
        })
        .collect()
}

/// One stream per blend node: the space at the node's point, for `duration` or one cycle of the weights there.
pub fn per_node_specs(
    blend: &BlendSpace,
    clips: &[Clip],
    character: &Character,
    fps: f32,
    duration: Option<f32>,
) -> Vec<(String, StreamSpec)> {
    let sampler = BlendSampler::bind(blend, clips, character);
    blend
        .nodes
        .iter()
        .map(|node| {
            let w = blend.weights_at(glam::DVec2::from_array(node.position));
            let spec = StreamSpec {
                source: StreamSource::BlendPoint(node.position),
                duration: duration.unwrap_or_else(|| sampler.cycle_length(&w).max(1.0 / fps)),
                fps,
                clip_range: None,
            };
            (node.clip.clone(), spec)
        })
        .collect()
}

/// The sample point of a path at time `t`.
pub fn path_point(path: &[PathPoint], t: f32) -> [f64; 2] {
    let Some(first) = path.first() else {
        return [0.0, 0.0];
    };
    if t <= first.time {
        return first.point;
    }
    // Times never decrease (checked by `parse_path`): the segment ending at the first point at or after `t` is
    // found by bisection, so a bake costs log(points) per frame.
    let i = path.partition_point(|p| p.time < t);
    let (Some(a), Some(b)) = (path.get(i.wrapping_sub(1)), path.get(i)) else {
        return path.last().map_or(first.point, |p| p.point);
    };
    let span = b.time - a.time;
    let f = if span > 0.0 {
        f64::from((t - a.time) / span)
    } else {
        1.0
    };
    [
        a.point[0] + (b.point[0] - a.point[0]) * f,
        a.point[1] + (b.point[1] - a.point[1]) * f,
    ]
}

/// The most points a blend path may have.
pub const MAX_PATH_POINTS: usize = 100_000;

/// Reads a blend path file: a JSON array of `{"time": seconds, "point": [x, y]}`, times increasing.
pub fn parse_path(text: &str, name: &str) -> Result<Vec<PathPoint>, ExportError> {
    let path: Vec<PathPoint> = serde_json::from_str(text)
        .map_err(|e| ExportError::Invalid(format!("{name}: not a blend path ({e})")))?;
    if path.is_empty() {
        return Err(ExportError::Invalid(format!(
            "{name}: the path has no point"
        )));
    }
    if path.len() > MAX_PATH_POINTS {
        return Err(ExportError::Invalid(format!(
            "{name}: {} points, over the {MAX_PATH_POINTS} a blend path may have",
            path.len()
        )));
    }
    for (i, p) in path.iter().enumerate() {
        if !p.time.is_finite() || p.point.iter().any(|v| !v.is_finite()) {
            return Err(ExportError::Invalid(format!(
                "{name}: point {i} has a value that is not a finite number"
            )));
        }
        if i > 0 && p.time < path[i - 1].time {
            return Err(ExportError::Invalid(format!(
                "{name}: point {i} comes before point {} in time",
                i - 1
            )));
        }
    }
    Ok(path)
}

impl StreamSpec {
    /// Checks the numbers and that the source exists.
    pub fn validate(&self, clips: &[Clip], blend: Option<&BlendSpace>) -> Result<(), ExportError> {
        if !super::FPS_RANGE.contains(&self.fps) {
            return Err(ExportError::Invalid(format!(
                "fps {}: must be in [{}, {}]",
                self.fps,
                super::FPS_RANGE.start(),
                super::FPS_RANGE.end()
            )));
        }
        if !(self.duration.is_finite() && self.duration > 0.0 && self.duration <= 3600.0) {
            return Err(ExportError::Invalid(format!(
                "duration {}: must be in (0, 3600] seconds",
                self.duration
            )));
        }
        match &self.source {
            StreamSource::Clip(i) if *i >= clips.len() => Err(ExportError::Invalid(format!(
                "clip index {i} is out of range ({} clips)",
                clips.len()
            ))),
            StreamSource::BlendPoint(_) | StreamSource::BlendPath(_) if blend.is_none() => Err(
                ExportError::Invalid("a blend source needs a blend space (in the preset)".into()),
            ),
            StreamSource::Machine { sim_rate, .. }
                if !crate::graph::script::SIM_RATE_RANGE.contains(sim_rate) =>
            {
                let range = crate::graph::script::SIM_RATE_RANGE;
                Err(ExportError::Invalid(format!(
                    "simulation rate {sim_rate}: must be in [{}, {}] Hz",
                    range.start(),
                    range.end()
                )))
            }
            StreamSource::Machine { machine, .. } => machine
                .validate_playable()
                .map_err(|e| ExportError::Tuning(format!("state_machine: {e}"))),
            _ => Ok(()),
        }
    }

    /// Grid times: frame k at k / fps, the last exactly at the end.
    pub fn times(&self) -> Vec<f32> {
        super::frames::uniform_times(self.duration, self.fps)
    }
}

/// Evaluates the stream at every frame: source pose, then the layers. `progress(done, total)` returns false to
/// cancel.
pub fn bake_stream(
    character: &Character,
    clips: &[Clip],
    blend: Option<&BlendSpace>,
    layers: &LayerParams,
    spec: &StreamSpec,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Frames, ExportError> {
    spec.validate(clips, blend)?;
    super::check_sample_budget(
        crate::clipfile::uniform_frame_count(spec.duration, spec.fps),
        character.skeleton.len(),
        &format!("{} s at {} fps", spec.duration, spec.fps),
    )?;
    let times = spec.times();
    // A machine's mirrored states play mirrored copies of their clips, made here.
    let with_mirrors;
    let (clips, mirrored_machine) = match &spec.source {
        StreamSource::Machine { machine, .. } => {
            let (all, machine) = super::mirror::machine_clips(character, clips, machine);
            with_mirrors = all;
            (&with_mirrors[..], Some(machine))
        }
        _ => (clips, None),
    };
    let source = match (&spec.source, blend) {
        (StreamSource::Clip(i), _) => SourceSpec::Clip(*i),
        (StreamSource::Machine { machine, .. }, _) => {
            SourceSpec::StateMachine(mirrored_machine.unwrap_or_else(|| (**machine).clone()))
        }
        (_, Some(space)) => {
            let sampler = BlendSampler::bind(space, clips, character);
            if let Some((i, clip)) = sampler.missing().first() {
                return Err(ExportError::Tuning(format!(
                    "blend node {i} plays clip '{clip}', which the model does not have"
                )));
            }
            SourceSpec::Blend(space.clone())
        }
        (_, None) => unreachable!("validated: blend sources have a blend space"),
    };
    let mut ev =
        Evaluator::with_precision(character, clips, source, layers.clone(), Precision::Exact);
    if let Some(missing) = ev.layer_stage().missing_clips().first() {
        return Err(ExportError::Tuning(format!(
            "a clip layer plays clip '{missing}', which the model does not have"
        )));
    }
    if let Some(missing) = ev.source().missing_machine_clips().first() {
        return Err(ExportError::Tuning(format!(
            "the state machine plays clip '{missing}', which the model does not have"
        )));
    }
    // A machine simulates at its rate, its script's events applied at the first tick at or after their times
    // (as `pose --script` plays it).
    let script = match &spec.source {
        StreamSource::Machine {
            script, sim_rate, ..
        } => {
            ev.set_sim_rate(*sim_rate);
            Some(script)
        }
        _ => None,
    };
    if let (Some(script), Some(player)) = (script, ev.source().machine())
        && let Some(name) = script.unknown_parameter(player)
    {
        return Err(ExportError::Tuning(format!(
            "the script sets '{name}', which the state machine has no parameter for"
        )));
    }
    if let Some(script) = script {
        ev.source_mut()
            .set_script(Some(std::sync::Arc::new(script.clone())));
    }
    ev.clock_mut().set_play_range(spec.clip_range);
    let start = match (&spec.source, ev.play_range()) {
        (StreamSource::Clip(_), Some([a, _])) => {
            ev.seek(a);
            a
        }
        _ => 0.0,
    };
    // The stateful layers (springs, foot lock) are stepped on the grid: frame k is the state after k + 1 updates
    // of 1 / fps from the reset at the first pose (and the springs' preroll updates with that pose held).
    let run = crate::layers::SimulationRun::on_grid(layers, ev.layer_stage().rig(), spec.fps);
    let simulation_dt = run.map(|r| r.dt);
    if let Some(run) = run {
        let first = spec.source.point_at(0.0);
        // A machine is sought under its script, so that the tick at 0 takes the script's events at 0.
        let clock = if script.is_some() {
            ev.seek_script(start);
            ClockStep::Hold
        } else {
            ClockStep::Seek(start)
        };
        ev.evaluate(&EvalInput {
            clock,
            blend_point: first,
            ..Default::default()
        });
        for _ in 0..run.preroll_steps {
            ev.evaluate(&EvalInput {
                blend_point: first,
                simulation_dt,
                ..Default::default()
            });
        }
    }
    let mut poses = Vec::with_capacity(times.len());
    let mut morph: Vec<Vec<f32>> = Vec::with_capacity(times.len());
    let mut expressions: Vec<super::frames::ExpressionKeys> = character
        .expressions
        .iter()
        .map(|e| super::frames::ExpressionKeys {
            name: e.name.clone(),
            times: times.clone(),
            weights: Vec::with_capacity(times.len()),
        })
        .collect();
    for (k, &t) in times.iter().enumerate() {
        if !progress(k, times.len()) {
            return Err(ExportError::Cancelled);
        }
        let input = EvalInput {
            clock: ClockStep::Continue(start + t),
            blend_point: spec.source.point_at(t),
            look_target: None,
            simulation_dt,
            ..Default::default()
        };
        let out = ev.evaluate(&input);
        if let Some(e) = &out.error {
            return Err(ExportError::Invalid(format!(
                "cannot evaluate the pose at {t} s: {e}"
            )));
        }
        poses.push(out.local.clone());
        morph.push(out.morph_weights.concat());
        for (keys, &now) in expressions
            .iter_mut()
            .zip(ev.layer_stage().expression_weights())
        {
            keys.weights.push(now);
        }
    }
    progress(times.len(), times.len());
    let morph = morph_frames(character, &times, &morph);
    Ok(Frames {
        checks: Vec::new(),
        times,
        poses,
        source_joints: character.skeleton.len(),
        look_at: None,
        morph,
        expressions: expressions
            .into_iter()
            .filter(|keys| keys.weights.iter().any(|&x| x != 0.0))
            .collect(),
    })
}

/// The morph weights of every morphed mesh whose weights leave its defaults at some frame, by its node, from the
/// frames' weights (each frame: every mesh's list, concatenated).
fn morph_frames(
    character: &Character,
    times: &[f32],
    frames: &[Vec<f32>],
) -> Vec<crate::clipfile::BakedMorph> {
    let mut out = Vec::new();
    let mut at = 0;
    for mesh in &character.meshes {
        let Some(set) = &mesh.morph else { continue };
        let width = set.target_names.len();
        let values: Vec<f32> = frames
            .iter()
            .flat_map(|f| f.get(at..at + width).unwrap_or(&[]).iter().copied())
            .collect();
        at += width;
        let moves = values
            .chunks_exact(width.max(1))
            .any(|v| v != set.default_weights.as_slice());
        if width > 0 && moves && values.len() == times.len() * width {
            out.push(crate::clipfile::BakedMorph {
                node: set.node.clone(),
                width,
                times: times.to_vec(),
                values,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The segment search as a plain scan: the first segment whose end is at or after `t`.
    fn scanned(path: &[PathPoint], t: f32) -> [f64; 2] {
        if t <= path[0].time {
            return path[0].point;
        }
        for w in path.windows(2) {
            if t <= w[1].time {
                let span = w[1].time - w[0].time;
                let f = if span > 0.0 {
                    f64::from((t - w[0].time) / span)
                } else {
                    1.0
                };
                return [0, 1].map(|c| w[0].point[c] + (w[1].point[c] - w[0].point[c]) * f);
            }
        }
        path[path.len() - 1].point
    }

    /// A machine baked under a stateful layer (foot lock: its run seeks to the first pose before the frames)
    /// takes its script's events at 0 at the tick at 0, as a bake without one does: the arms and the spine, which
    /// foot lock leaves alone, are the same at every frame of an Idle → Walk crossfade that starts at 0.
    #[test]
    fn a_machine_bake_under_foot_lock_applies_its_events_at_0_at_the_first_tick() {
        let model = crate::import::load_file(&crate::test_support::quaternius()).unwrap();
        let (c, clips) = (&model.character, &model.clips);
        let machine: crate::graph::StateMachine = serde_json::from_str(
            r#"{"parameters": [{"name": "speed", "type": "float"}],
                "states": [{"name": "Idle", "clip": "Idle_Loop"}, {"name": "Walk", "clip": "Walk_Loop"}],
                "entry": "Idle",
                "transitions": [{"from": "Idle", "to": "Walk", "has_exit_time": false, "duration": 0.25,
                                 "conditions": [{"parameter": "speed", "mode": "greater", "threshold": 0.5}]}]}"#,
        )
        .unwrap();
        let script =
            crate::graph::Script::parse(r#"[{"time": 0, "set": "speed", "value": 1.4}]"#, "test")
                .unwrap();
        let spec = StreamSpec {
            source: StreamSource::Machine {
                machine: Box::new(machine),
                script,
                sim_rate: 60.0,
            },
            duration: 0.4,
            fps: 30.0,
            clip_range: None,
        };
        let mut locked = LayerParams::off();
        locked.foot_lock.enabled = true;
        let bake = |layers: &LayerParams| {
            bake_stream(c, clips, None, layers, &spec, &mut |_, _| true).unwrap()
        };
        let (free, locked) = (bake(&LayerParams::off()), bake(&locked));
        use crate::core::HumanBone;
        let upper = [
            HumanBone::Spine,
            HumanBone::LeftUpperArm,
            HumanBone::RightLowerArm,
        ];
        for (k, (a, b)) in free.poses.iter().zip(&locked.poses).enumerate() {
            for bone in upper {
                let j = c.humanoid.joint(bone).unwrap();
                let (p, q) = (
                    a.local[j].rotation.as_dquat(),
                    b.local[j].rotation.as_dquat(),
                );
                let r = p.normalize().conjugate() * q.normalize();
                let d = (2.0 * r.xyz().length().atan2(r.w.abs())).to_degrees();
                assert!(d < 1e-4, "frame {k}, {bone:?}: {d}°");
            }
        }
    }

    #[test]
    fn path_points_are_found_by_bisection_as_a_scan_finds_them() {
        // Repeated times (a jump), a pause, and times before and after the path.
        let times = [0.5f32, 1.0, 1.0, 2.0, 2.0, 2.0, 3.5, 4.0];
        let path: Vec<PathPoint> = times
            .iter()
            .enumerate()
            .map(|(i, &time)| PathPoint {
                time,
                point: [i as f64, (i * i) as f64 * 0.5],
            })
            .collect();
        for k in 0..=50 {
            let t = k as f32 * 0.1;
            assert_eq!(path_point(&path, t), scanned(&path, t), "at {t} s");
        }
    }

    #[test]
    fn a_path_of_the_most_points_is_looked_up_quickly_at_every_frame() {
        // 100 000 points within the first second and one at 100 s: a scan from the start walked all of them for
        // every later frame (10^10 steps for 100 000 frames; minutes). Bisection takes about 17 per frame.
        let mut path: Vec<PathPoint> = (0..MAX_PATH_POINTS - 1)
            .map(|i| PathPoint {
                time: i as f32 / MAX_PATH_POINTS as f32,
                point: [0.0, 0.0],
            })
            .collect();
        path.push(PathPoint {
            time: 100.0,
            point: [1.0, 2.0],
        });
        let started = std::time::Instant::now();
        let mut sum = 0.0;
        for k in 0..100_000 {
            sum += path_point(&path, 1.0 + k as f32 * 0.00099)[1];
        }
        assert!(sum > 0.0);
        assert!(
            started.elapsed().as_secs_f32() < 2.0,
            "{:?}",
            started.elapsed()
        );
    }
}
