//! The retarget IK goals written into a clip: a clip that reaches a character with IK goals
//! (`layers::ik_goals`) keyed on the character's own joints, so that a bake, the passes after it and every format
//! carry what the goals do, and the result plays the same on the character with its goals turned off.
//!
//! Contract: the keyed clip holds the goals' poses exactly at its keys (linear keys on the pass grid: the source's
//! keys, refined where a linear reading misses the live goals by more than [`KEYS_TOLERANCE_CM`], down to 1/960 s
//! apart). Between keys its distance from the live goals (3 cm virtual points, at the source's keys and a quarter,
//! half and three quarters between keys) is measured and reported: a knee reaching for a pinned goal turns
//! faster than linear keys follow exactly, so that distance is a report, not a refusal.

use serde::Serialize;

use super::frames;
use crate::core::{Character, Clip, Pose, Wrap};
use crate::layers::ik_goals::{IkGoalsReport, IkGoalsRig};

/// How close a linear reading of the keys should come to the live goals (cm, 3 cm virtual points): a bake's
/// default budget.
pub const KEYS_TOLERANCE_CM: f32 = 0.01;
/// The rate the keys start at.
const START_FPS: f32 = 60.0;
/// The finest step the grid is refined to.
const MAX_FPS: f32 = 960.0;
/// How many times the grid is refined.
const ROUNDS: usize = 6;

/// What keying the goals did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GoalKeysReport {
    /// What the goals do on the clip.
    #[serde(flatten)]
    pub goals: IkGoalsReport,
    /// Key times of the keyed clip.
    pub keys: usize,
    /// The keyed clip's largest distance between keys from the clip played with its live goals (cm, 3 cm virtual
    /// points).
    pub error_cm: f32,
}

impl GoalKeysReport {
    /// One line for the CLI and the status bar.
    pub fn brief(&self) -> String {
        format!(
            "{} (keyed at {} times, within {:.4} cm)",
            self.goals.brief(),
            self.keys,
            self.error_cm
        )
    }
}

/// `character` with its IK goals turned off: what a clip keyed with them plays on.
pub fn without_goals(character: &Character) -> Character {
    let mut c = character.clone();
    c.humanoid.ik_goals = Default::default();
    c
}

/// What the character's goals do on `clip`, or why they cannot run on it.
pub fn goals_report(character: &Character, clip: &Clip) -> Result<IkGoalsReport, String> {
    let skeleton = &character.skeleton;
    let (folded, binding) =
        crate::core::fold::bind_folding(clip, skeleton, Some(&character.humanoid));
    let mut pose = Pose::rest(skeleton);
    IkGoalsRig::bind(character, clip, |t, out| {
        pose.reset_to_rest(skeleton);
        folded.sample_into(&binding, t, Wrap::Clamp, &mut pose);
        out.copy_from_slice(&pose.local);
    })
    .map(|rig| rig.report())
}

/// `clip` keyed on `character`'s joints with the character's IK goals applied (None when it asks for none), with
/// the report; the error names why the goals cannot run or the keys cannot hold them.
pub fn key_goals(
    character: &Character,
    clip: &Clip,
) -> Result<Option<(Clip, GoalKeysReport)>, String> {
    if !character.humanoid.ik_goals.is_active() {
        return Ok(None);
    }
    let goals = goals_report(character, clip).map_err(|e| format!("IK goals cannot run: {e}"))?;
    let skeleton = &character.skeleton;
    let plain = without_goals(character);
    let how = frames::Refinement {
        tolerance_cm: KEYS_TOLERANCE_CM,
        max_fps: MAX_FPS,
        rounds: ROUNDS,
        joints: skeleton.len(),
        what: format!("IK goals over clip '{}'", clip.name),
    };
    let grid = frames::pass_grid(clip, START_FPS);
    let refined = frames::refine_grid(clip, grid, &how, |grid, checks| {
        let sampled =
            frames::sample_frames(clip, skeleton, Some(&character.humanoid), grid.to_vec());
        let keyed = frames::keyed_clip(&plain, clip, grid, &sampled.poses);
        let errors = super::measure::point_errors(character, clip, &keyed, checks, None);
        Ok::<_, String>((keyed, errors))
    });
    let (keyed, error_cm) = match refined {
        Ok(done) => done,
        Err(frames::Refined::Tolerance(keyed, error_cm)) => (keyed, error_cm),
        Err(frames::Refined::Failed(e) | frames::Refined::Budget(e)) => return Err(e),
    };
    let keys = keyed
        .tracks
        .first()
        .and_then(|t| t.rotation.as_ref())
        .map_or(0, |k| k.len());
    Ok(Some((
        keyed,
        GoalKeysReport {
            goals,
            keys,
            error_cm,
        },
    )))
}
