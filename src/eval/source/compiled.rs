//! A clip compiled for a character, with cursors of its own: what every source and clip layer samples. The
//! compiled clip, its binding and its morph and expression tracks are shared by every copy playing the same clip
//! ([`ClipCache`] compiles each once per character); each copy keeps its own sampling cursors.

use std::sync::{Arc, OnceLock};

use glam::{Vec3, Vec3A};

use crate::blend::TimeSync;
use crate::blend::markers::FootMarker;
use crate::blend::sampler::{root_motion_joint, root_travel};
use crate::core::morph::{MorphBinding, MorphTrack};
use crate::core::{Character, Clip, ClipBinding, Skeleton, Transform};
use crate::eval::clock::wrap_cycle;
use crate::layers::clip_layer::{LayerClip, LayerClipSupply};
use crate::layers::ik_goals::{IkGoalsRig, IkGoalsScratch};
use crate::runtime::{Animation, JobError, LocalToModelJob, SamplingContext, SamplingJob};

/// How an Evaluator compiles its clips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// The runtime's compact form (linear keys packed within [`crate::compile::COMPACT_TOLERANCE`] of the
    /// clip's own): what the editor, `pose` and `render` play.
    #[default]
    Compact,
    /// Every key as the clip has it: the reference bakes and exports are measured against.
    Exact,
}

/// A clip compiled for the character, with its cursors. The compiled clip and its binding are shared by every
/// source playing the same clip (clip layers, copies of the evaluator); each keeps its own cursors.
#[derive(Clone, Debug)]
pub(crate) struct CompiledClip {
    pub(crate) index: usize,
    pub(crate) animation: Arc<Animation>,
    pub(crate) context: SamplingContext,
    pub(crate) binding: Arc<ClipBinding>,
    /// Horizontal model-space travel of the root-motion joint over one cycle (metres).
    pub(crate) root_travel: Vec3,
    /// The clip's Loop Time: off, it holds its last pose after its end.
    pub(crate) looping: bool,
    /// Its morph-weight tracks and the meshes they drive (shared like the compiled clip).
    pub(crate) morph: Arc<ClipMorph>,
    /// Its feet's contacts (foot-down markers, the velocity it walks at when authored in place), found the
    /// first time they are asked for (shared like the compiled clip).
    feet: Arc<OnceLock<ClipFeet>>,
    /// The character's retarget IK goals bound for this clip, when it asks for some and they can run.
    ik_goals: Option<Box<ClipGoals>>,
}

/// A clip's IK goals (shared like the compiled clip) with this copy's scratch.
#[derive(Clone, Debug)]
struct ClipGoals {
    rig: Arc<IkGoalsRig>,
    scratch: IkGoalsScratch,
}

/// What a clip's feet say, measured once per compiled clip.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClipFeet {
    /// Its foot-down markers (empty when its feet cannot be tracked).
    pub(crate) markers: Vec<FootMarker>,
    /// The velocity it walks at when authored in place (model space, m/s): its feet's treadmill reversed; None
    /// when it travels on its root or no foot stands.
    pub(crate) walk: Option<Vec3>,
}

/// A clip's morph-weight tracks bound to the character's meshes, and its expression tracks bound to the
/// character's expressions.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClipMorph {
    tracks: Vec<MorphTrack>,
    binding: MorphBinding,
    expression_tracks: Vec<MorphTrack>,
    /// (track, expression index) for each expression track whose expression the character has.
    expressions: Vec<(usize, usize)>,
    /// A VRM Animation's look-at track.
    pub(crate) look_at: Option<crate::core::Keys<glam::Quat>>,
}

impl ClipMorph {
    pub(crate) fn is_empty(&self) -> bool {
        self.binding.pairs.is_empty()
    }

    /// Whether it moves the face: morph weights of the character's meshes or its expressions.
    pub(crate) fn has_face(&self) -> bool {
        !self.is_empty() || !self.expressions.is_empty()
    }

    /// Adds `weight` × each expression track's value at `time` (clamped to [0, 1], as VRM Animation defines)
    /// to its expression's entry of `out`.
    pub(crate) fn add_expressions(&self, time: f32, weight: f32, out: &mut [f32]) {
        for &(t, e) in &self.expressions {
            let mut v = [0.0];
            self.expression_tracks[t].sample_into(time, &mut v);
            if let Some(o) = out.get_mut(e) {
                *o += weight * v[0].clamp(0.0, 1.0);
            }
        }
    }

    /// Writes the weights at `time` into the meshes the tracks drive (the others keep what `out` holds).
    pub(crate) fn sample(&self, time: f32, out: &mut [Vec<f32>]) {
        for &(t, m) in &self.binding.pairs {
            if let Some(w) = out.get_mut(m) {
                self.tracks[t].sample_into(time, w);
            }
        }
    }
}

impl CompiledClip {
    pub(crate) fn new(
        clips: &[Clip],
        index: usize,
        character: &Character,
        precision: Precision,
    ) -> Self {
        let bind = match precision {
            Precision::Compact => Animation::bind,
            Precision::Exact => Animation::bind_exact,
        };
        let (animation, binding) = bind(
            &clips[index],
            &character.skeleton,
            Some(&character.humanoid),
        );
        let root_travel = root_motion_joint(character).map_or(Vec3::ZERO, |r| {
            root_travel(&character.skeleton, &clips[index], &binding, r)
        });
        let clip = &clips[index];
        let tracks = crate::core::morph::resolve_named(&clip.morph_tracks, character);
        let morph = ClipMorph {
            binding: MorphBinding::bind(&tracks, character),
            tracks,
            expressions: clip
                .expression_tracks
                .iter()
                .enumerate()
                .filter_map(|(t, track)| {
                    let e = character
                        .expressions
                        .iter()
                        .position(|e| e.name == track.node)?;
                    Some((t, e))
                })
                .collect(),
            expression_tracks: clip.expression_tracks.clone(),
            look_at: clip.look_at.clone(),
        };
        let ik_goals = goals_for(character, clip, &animation);
        CompiledClip {
            index,
            ik_goals,
            morph: Arc::new(morph),
            context: SamplingContext::for_animation(&animation),
            animation: Arc::new(animation),
            binding: Arc::new(binding),
            root_travel,
            looping: clips[index].looping,
            feet: Arc::default(),
        }
    }

    /// What the clip's feet say on `character` (`clip` is the one it was compiled from), found the first time
    /// it is asked for: the clip sampled exact with its root motion kept, its feet's contacts at 60 fps
    /// ([`crate::blend::markers::feet_report`]).
    pub(crate) fn feet(&self, character: &Character, clip: &Clip) -> &ClipFeet {
        self.feet.get_or_init(|| {
            let mut exact =
                CompiledClip::new(std::slice::from_ref(clip), 0, character, Precision::Exact);
            let skeleton = &character.skeleton;
            let mut pose = skeleton.rest().to_vec();
            let mut model = vec![glam::Mat4::IDENTITY; skeleton.len()];
            let report = crate::blend::markers::feet_report(character, clip.duration, |t| {
                let sampled = exact.sample(t, &mut pose);
                let posed = LocalToModelJob::all(skeleton, &pose, &mut model).run();
                if sampled.and(posed).is_err() {
                    model.fill(glam::Mat4::IDENTITY);
                }
                model.clone()
            });
            report.map_or_else(
                |_| ClipFeet::default(),
                |r| ClipFeet {
                    markers: crate::blend::markers::from_contacts(
                        &r,
                        clip.duration,
                        1.0 / crate::blend::markers::MARKER_FPS,
                    ),
                    walk: crate::blend::markers::walk_velocity(&r),
                },
            )
        })
    }

    /// The velocity the clip walks at when authored in place, once its feet were found ([`CompiledClip::feet`]).
    pub(crate) fn walk(&self) -> Option<Vec3> {
        self.feet.get().and_then(|f| f.walk)
    }

    /// The clip's time `elapsed` seconds after its start: wrapped into its cycle when it loops, else held at
    /// its end.
    pub(crate) fn time_after(&self, elapsed: f64) -> f64 {
        let d = f64::from(self.animation.duration());
        if self.looping {
            wrap_cycle(elapsed, d)
        } else {
            elapsed.clamp(0.0, d.max(0.0))
        }
    }

    /// Where this clip plays as a node of a blend under `sync`: at `phase` of its length (normalised time), at
    /// its foot-down `marker` time where one was found (else as normalised), or `elapsed()` seconds (at the
    /// node's time scale) after its start on its own clock (asked for only then: the hot path skips it).
    pub(crate) fn node_time(
        &self,
        sync: TimeSync,
        phase: f64,
        marker: impl FnOnce() -> Option<f64>,
        elapsed: impl FnOnce() -> f64,
    ) -> f64 {
        let d = f64::from(self.animation.duration());
        match sync {
            TimeSync::Normalized => phase * d,
            TimeSync::Markers => marker().unwrap_or(phase * d),
            TimeSync::Independent => self.time_after(elapsed()),
        }
    }

    /// Samples into `output` (sized for the skeleton by the Evaluator), then takes its limbs to the retarget
    /// IK goals when the character asks for them.
    pub(crate) fn sample(&mut self, time: f32, output: &mut [Transform]) -> Result<(), JobError> {
        SamplingJob {
            animation: &self.animation,
            context: &mut self.context,
            time,
            output,
        }
        .run()?;
        if let Some(goals) = &mut self.ik_goals {
            goals.rig.apply(time, output, &mut goals.scratch);
        }
        Ok(())
    }
}

/// The character's retarget IK goals bound for `clip`, when it asks for some and they can run on this clip (the
/// reason they cannot is for reports: [`IkGoalsRig::bind`]).
fn goals_for(character: &Character, clip: &Clip, animation: &Animation) -> Option<Box<ClipGoals>> {
    if !character.humanoid.ik_goals.is_active() {
        return None;
    }
    let mut context = SamplingContext::for_animation(animation);
    IkGoalsRig::bind(character, clip, |time, output| {
        let _ = SamplingJob {
            animation,
            context: &mut context,
            time,
            output,
        }
        .run();
    })
    .ok()
    .map(|rig| {
        Box::new(ClipGoals {
            rig: Arc::new(rig),
            scratch: IkGoalsScratch::default(),
        })
    })
}

/// Clips compiled for one character at one precision, each once however many sources play it (a blend space's
/// nodes, a state machine's states, clip layers): [`ClipCache::get`] hands out copies that share the compiled
/// clip, each with cursors of its own.
pub(crate) struct ClipCache<'a> {
    pub(crate) clips: &'a [Clip],
    pub(crate) character: &'a Character,
    precision: Precision,
    compiled: std::collections::HashMap<usize, CompiledClip>,
}

impl<'a> ClipCache<'a> {
    pub(crate) fn new(clips: &'a [Clip], character: &'a Character, precision: Precision) -> Self {
        ClipCache {
            clips,
            character,
            precision,
            compiled: std::collections::HashMap::new(),
        }
    }

    /// Reuses `source`'s compiled clip for its clip (one compiled before, for the same character and clips).
    pub(crate) fn keep(&mut self, source: &CompiledClip) {
        self.compiled
            .entry(source.index)
            .or_insert_with(|| source.clone());
    }

    /// Clip `index` compiled (the first time it is asked for), with fresh cursors.
    pub(crate) fn get(&mut self, index: usize) -> CompiledClip {
        let (clips, character, precision) = (self.clips, self.character, self.precision);
        let mut source = self
            .compiled
            .entry(index)
            .or_insert_with(|| CompiledClip::new(clips, index, character, precision))
            .clone();
        source.context = SamplingContext::for_animation(&source.animation);
        source
    }
}

impl LayerClip for CompiledClip {
    fn duration(&self) -> f32 {
        self.animation.duration()
    }

    fn time_after(&self, elapsed: f64) -> f64 {
        CompiledClip::time_after(self, elapsed)
    }

    fn sample_pose(&mut self, time: f32, pose: &mut [Transform]) -> Result<(), JobError> {
        self.sample(time, pose)
    }

    fn has_morph(&self) -> bool {
        !self.morph.is_empty()
    }

    fn sample_morph(&self, time: f32, weights: &mut [Vec<f32>]) {
        self.morph.sample(time, weights);
    }
}

impl<'a> LayerClipSupply<'a, CompiledClip> for ClipCache<'a> {
    fn clips(&self) -> &'a [Clip] {
        self.clips
    }

    fn get(&mut self, index: usize) -> CompiledClip {
        ClipCache::get(self, index)
    }

    fn keep(&mut self, clip: &CompiledClip) {
        ClipCache::keep(self, clip);
    }
}

/// Keeps the first error of a run of jobs: `result` takes `next`'s error when it holds none yet. An `Ok` is only
/// tested, never moved: moving the whole `Result` just after the job wrote its tag made the CPU wait on the stores
/// (a stall `perf annotate` showed at each sample of the state machine's nodes).
pub(crate) fn keep_first(result: &mut Result<(), JobError>, next: Result<(), JobError>) {
    if let Err(e) = next
        && result.is_ok()
    {
        *result = Err(e);
    }
}

/// Moves the root joint of a local pose by a model-space offset (converted into its parent's space: a direction,
/// so only the rotations and scales above it are undone).
pub(crate) fn shift_root(skeleton: &Skeleton, pose: &mut [Transform], root: usize, offset: Vec3) {
    if offset == Vec3::ZERO || root >= pose.len() {
        return;
    }
    let local = skeleton.to_parent_frame(pose, root, Vec3A::from(offset));
    if local.is_finite() {
        pose[root].translation += local;
    }
}
