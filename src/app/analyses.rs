//! The analyses panels ask for, run on worker threads ([`super::worker`]) as the skate map is, so that no frame
//! waits for them: "New space from clips", Compute Positions and Homogeneous Speed (whose result arrives as the
//! commands the panel would have pushed: one undo step and a status line), the Clip tab's loop match and the
//! curves view's curves. Each job carries the document's generation and revision it was asked of: when the
//! document changes under a running action, the action stops at its next progress call and the status bar says
//! so; a figure asked of an older document is measured again. Progress goes to the status bar.

use std::sync::Arc;

use glam::Vec3;

use super::command::{Analysis, BlendEdit, Command};
use super::worker::Worker;
use crate::analysis::CANCELLED;
use crate::analysis::positions::{
    compute_positions_with_progress, homogeneous_speed_with_progress,
};
use crate::analysis::suggest::space_from_clips_with_progress;
use crate::app::state::document::Tuning;
use crate::blend::{BlendSpace, RootMotion};
use crate::core::{Character, Clip};
use crate::eval::Evaluator;
use crate::eval::curves::{JointCurves, curve_times, joint_curves};

/// The document an analysis was asked of: its character generation and its tuning revision.
pub type DocKey = (u64, u64);

/// An action's request, with what it reads.
struct ActionJob {
    analysis: Analysis,
    character: Arc<Character>,
    clips: Arc<Vec<Clip>>,
    space: BlendSpace,
    /// The document's name, for the error line.
    name: String,
}

/// A loop-match request: the clip's index and the document it is of.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LoopKey {
    doc: DocKey,
    clip: usize,
}

/// What the curves were computed from: any change computes them again.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvesKey {
    /// The document's character generation.
    pub generation: u64,
    /// The tuning in force.
    pub tuning: Tuning,
    /// The clip playing.
    pub clip: Option<usize>,
    /// Whether the blend space plays.
    pub blending: bool,
    /// The joint plotted.
    pub joint: usize,
    /// The look-at target.
    pub look_target: [f32; 3],
    /// The clip's root motion.
    pub root_motion: RootMotion,
    /// The timeline's frame rate (the curves' sample rate).
    pub frame_rate: f32,
}

struct CurvesJob {
    key: CurvesKey,
    eval: Box<Evaluator>,
    character: Arc<Character>,
    clips: Arc<Vec<Clip>>,
    look_target: Vec3,
    duration: f32,
}

/// The character and clips the workers read, shared by the requests of one document state.
struct SharedDoc {
    key: DocKey,
    clip_count: usize,
    character: Arc<Character>,
    clips: Arc<Vec<Clip>>,
}

/// The panels' analyses and the workers that run them.
pub struct PanelAnalyses {
    actions: Worker<ActionJob, Result<Vec<Command>, String>>,
    /// The action under way and the document it was asked of.
    action: Option<(Analysis, DocKey)>,
    loops: Worker<(Arc<Character>, Clip), f32>,
    loop_asked: Option<LoopKey>,
    loop_done: Option<(LoopKey, f32)>,
    curves: Worker<CurvesJob, Option<(CurvesKey, JointCurves)>>,
    curves_asked: Option<CurvesKey>,
    curves_done: Option<(CurvesKey, JointCurves)>,
    /// Times curves were computed (tests check they are not computed every frame).
    pub curve_computations: u64,
    shared: Option<SharedDoc>,
}

impl Default for PanelAnalyses {
    fn default() -> Self {
        Self::new()
    }
}

/// Maps a worker's progress callback to the analyses' `(done, total)` form.
fn steps(progress: &dyn Fn(f32) -> bool) -> impl FnMut(usize, usize) -> bool + '_ {
    move |done, total| progress(done as f32 / total.max(1) as f32)
}

impl PanelAnalyses {
    /// Starts the workers.
    pub fn new() -> Self {
        let actions = Worker::spawn("animtune panel analysis", |job: ActionJob, progress| {
            let mut step = steps(progress);
            run_action(job, &mut step)
        });
        let loops = Worker::spawn(
            "animtune loop match",
            |(character, clip): (Arc<Character>, Clip), _| {
                crate::offline::measure::loop_match(&character, &clip)
            },
        );
        let curves = Worker::spawn("animtune curves", |job: CurvesJob, _| {
            let times = curve_times(job.duration, job.key.frame_rate);
            let curves = joint_curves(
                &job.eval,
                &job.character,
                &job.clips,
                Some(job.look_target),
                job.key.joint,
                &times,
            );
            Some((job.key, curves))
        });
        PanelAnalyses {
            actions,
            action: None,
            loops,
            loop_asked: None,
            loop_done: None,
            curves,
            curves_asked: None,
            curves_done: None,
            curve_computations: 0,
            shared: None,
        }
    }

    /// The character and clips of the document at `doc`, shared with the workers (copied once per state).
    fn share(
        &mut self,
        doc: DocKey,
        character: &Character,
        clips: &[Clip],
    ) -> (Arc<Character>, Arc<Vec<Clip>>) {
        let stale = self
            .shared
            .as_ref()
            .is_none_or(|s| s.key != doc || s.clip_count != clips.len());
        if stale {
            let character = match self.shared.take() {
                Some(s) if s.key.0 == doc.0 => s.character,
                _ => Arc::new(character.clone()),
            };
            self.shared = Some(SharedDoc {
                key: doc,
                clip_count: clips.len(),
                character,
                clips: Arc::new(clips.to_vec()),
            });
        }
        let s = self.shared.as_ref().expect("shared just set");
        (Arc::clone(&s.character), Arc::clone(&s.clips))
    }

    /// Starts `analysis` over the document at `doc` (a newer request stops the one under way).
    pub fn start(
        &mut self,
        analysis: Analysis,
        doc: DocKey,
        character: &Character,
        clips: &[Clip],
        space: &BlendSpace,
        name: &str,
    ) {
        let (character, clips) = self.share(doc, character, clips);
        self.actions.submit(ActionJob {
            analysis,
            character,
            clips,
            space: space.clone(),
            name: name.to_string(),
        });
        self.action = Some((analysis, doc));
    }

    /// The action under way and its progress in [0, 1].
    pub fn running(&self) -> Option<(Analysis, f32)> {
        self.action.map(|(a, _)| (a, self.actions.progress()))
    }

    /// Picks up a finished action for the document now at `doc`: the commands it gives (its result, or the
    /// status line saying it stopped because the document changed).
    pub fn poll(&mut self, doc: DocKey) -> Vec<Command> {
        let Some((analysis, asked)) = self.action else {
            return Vec::new();
        };
        if asked != doc {
            self.actions.cancel();
            self.action = None;
            return vec![Command::Report {
                text: format!(
                    "{} stopped: the document changed while it ran",
                    analysis.name()
                ),
                is_error: false,
            }];
        }
        match self.actions.take() {
            Some(Ok(commands)) => {
                self.action = None;
                commands
            }
            Some(Err(why)) => {
                self.action = None;
                vec![Command::Report {
                    text: why,
                    is_error: true,
                }]
            }
            None => Vec::new(),
        }
    }

    /// Asks for the loop match of clip `clip` of the document at `doc` unless it is measured or under way.
    pub fn ask_loop_match(
        &mut self,
        doc: DocKey,
        clip: usize,
        character: &Character,
        clips: &[Clip],
    ) {
        let key = LoopKey { doc, clip };
        if self.loop_asked == Some(key) || self.loop_done.is_some_and(|(k, _)| k == key) {
            return;
        }
        let Some(source) = clips.get(clip) else {
            return;
        };
        let (character, _) = self.share(doc, character, clips);
        self.loops.submit((character, source.clone()));
        self.loop_asked = Some(key);
    }

    /// Picks up the figures measured since the last frame (the loop match, the curves).
    pub fn collect(&mut self) {
        if let Some(asked) = self.loop_asked
            && let Some(v) = self.loops.take()
        {
            self.loop_done = Some((asked, v));
            self.loop_asked = None;
        }
        if let Some(Some(done)) = self.curves.take() {
            self.curves_asked = None;
            self.curves_done = Some(done);
        }
    }

    /// The loop match (metres) of clip `clip` of the document at `doc`, once measured.
    pub fn loop_match(&self, doc: DocKey, clip: usize) -> Option<f32> {
        self.loop_done
            .filter(|(k, _)| *k == LoopKey { doc, clip })
            .map(|(_, v)| v)
    }

    /// Asks for the curves of `key` (evaluated by a copy of `eval`) unless they are computed or under way.
    pub fn ask_curves(
        &mut self,
        key: CurvesKey,
        eval: &Evaluator,
        doc: DocKey,
        character: &Character,
        clips: &[Clip],
        look_target: Vec3,
    ) {
        if self.curves_asked.as_ref() == Some(&key)
            || self.curves_done.as_ref().is_some_and(|(k, _)| *k == key)
        {
            return;
        }
        let (character, clips) = self.share(doc, character, clips);
        self.curves.submit(CurvesJob {
            key: key.clone(),
            eval: Box::new(eval.clone()),
            character,
            clips,
            look_target,
            duration: eval.duration(),
        });
        self.curves_asked = Some(key);
        self.curve_computations += 1;
    }

    /// The newest curves computed, and whether they are for `key` (false while newer ones are computed).
    pub fn curves(&self, key: Option<&CurvesKey>) -> Option<(&JointCurves, bool)> {
        self.curves_done.as_ref().map(|(k, c)| (c, Some(k) == key))
    }

    /// The curves last computed, whatever they are for.
    pub fn latest_curves(&self) -> Option<&JointCurves> {
        self.curves_done.as_ref().map(|(_, c)| c)
    }

    /// Forgets the curves (no joint is selected): any under way stop.
    pub fn clear_curves(&mut self) {
        if self.curves_asked.take().is_some() {
            self.curves.cancel();
        }
        self.curves_done = None;
    }

    /// Whether anything is under way (tests wait for it).
    pub fn busy(&self) -> bool {
        self.action.is_some() || self.loop_asked.is_some() || self.curves_asked.is_some()
    }
}

/// Runs one action: its commands, or the error line naming the document.
fn run_action(
    job: ActionJob,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Vec<Command>, String> {
    let ActionJob {
        analysis,
        character,
        clips,
        space,
        name,
    } = job;
    let fail = |why: String| {
        if why == CANCELLED {
            format!("{} stopped", analysis.name())
        } else {
            format!("{name}: {}: {why}", analysis.failure())
        }
    };
    let (space, text) = match analysis {
        Analysis::NewSpaceFromClips => {
            let s = space_from_clips_with_progress(&character, &clips, progress).map_err(fail)?;
            let placed: Vec<String> = s
                .placed
                .iter()
                .map(|p| {
                    let how = if p.measured { "measured" } else { "by name" };
                    format!(
                        "{} at {:.2} ({how})",
                        p.clip,
                        p.position[0].hypot(p.position[1])
                    )
                })
                .collect();
            let mut text = format!("New blend space from clips: {}", placed.join(", "));
            if !s.variants.is_empty() {
                text.push_str(&format!(
                    "; variants (another take, modifier or stance of a gait), left out: {}",
                    s.variants.join(", ")
                ));
            }
            if !s.left_out.is_empty() {
                text.push_str(&format!("; left out: {}", s.left_out.join(", ")));
            }
            (s.space, text)
        }
        Analysis::ComputePositions(kind) => {
            let done = compute_positions_with_progress(&space, &character, &clips, kind, progress)
                .map_err(fail)?;
            let mut text = format!("Nodes placed by {}", kind.name());
            if !done.by_feet.is_empty() {
                text.push_str(&format!(
                    "; authored in place, read from their feet: {}",
                    done.by_feet.join(", ")
                ));
            }
            if !done.unread.is_empty() {
                text.push_str(&format!(
                    "; authored in place, feet not readable, by root motion: {}",
                    done.unread.join(", ")
                ));
            }
            (done.space, text)
        }
        Analysis::HomogeneousSpeed => {
            let space = homogeneous_speed_with_progress(&space, &character, &clips, progress)
                .map_err(fail)?;
            let scales: Vec<String> = space
                .nodes
                .iter()
                .map(|n| format!("{} ×{:.2}", n.clip, n.time_scale))
                .collect();
            (space, format!("Time scales: {}", scales.join(", ")))
        }
    };
    Ok(vec![
        Command::EditBlend(BlendEdit::Replace(Box::new(space))),
        Command::Report {
            text,
            is_error: false,
        },
    ])
}
