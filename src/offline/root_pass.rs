//! Root-motion passes over a whole clip on the character it plays on, as Unity's Root Transform options and
//! Unreal's root lock have them:
//! - **extract**: the body's travel (from the hips, the centre of mass or the feet), per component (XZ, yaw
//!   about the vertical, Y), moves onto the joint above the hips; a component not extracted stays in the pose;
//! - **into pose**: the inverse: the root joint's motion, per component, moves into the joints below it, and the
//!   root stays where the lock puts it.
//!
//! Contract: every joint's model-space placement is unchanged, measured at 3 cm virtual points against the source
//! at its keys, on the pass's grid and between them ([`PASS_TOLERANCE_CM`]). Only the root joint's track and its
//! children's are rewritten, keyed linearly on a grid that holds every source key time, refined until the
//! measure holds; a clip that reaches the character through humanoid retargeting is sampled onto its joints
//! first, every joint keyed on the grid.

use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

use super::frames::{self, Frames};
use crate::analysis::root_motion::yaw_of;
pub use crate::core::clip_pass::{RootBasis, RootComponents, RootLock, RootPass};
use crate::core::humanoid::HumanBone;
use crate::core::{Character, Clip, Pose, Track, Transform};

/// The largest displacement of a 3 cm virtual point a pass may leave against its source, centimetres: a tenth
/// of a bake's default budget, so a pass and a bake together stay within the bake's.
pub const PASS_TOLERANCE_CM: f32 = 0.001;

/// The grid rate a pass starts at; it is refined where the measure misses, down to steps of 1 / [`MAX_PASS_FPS`].
const START_FPS: f32 = 60.0;
/// The densest grid a pass may key, frames per second.
const MAX_PASS_FPS: f32 = 960.0;

/// What a pass did, for reports (lengths in metres, angles in degrees, in the character's model space).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RootPassReport {
    /// "extract" or "into_pose".
    pub pass: &'static str,
    /// The joint that carries root motion.
    pub root_joint: String,
    /// True when the pass added that joint above the hips (the rig had none there).
    pub added_root: bool,
    /// The components moved.
    pub components: Vec<&'static str>,
    /// What the root follows (an extraction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basis: Option<&'static str>,
    /// Where the root is locked.
    pub lock: &'static str,
    /// Keys on the grid, and its rate.
    pub keys: usize,
    /// The rate (frames per second) the grid starts from, before the source's key times and the refinements.
    pub grid_fps: f32,
    /// True when every joint was keyed (a clip that reaches the character through retargeting).
    pub resampled_all_joints: bool,
    /// The root's travel from the first frame to the last, before and after.
    pub root_travel_before: [f32; 3],
    /// See `root_travel_before`.
    pub root_travel_after: [f32; 3],
    /// The root's turn about the vertical over the clip, before and after.
    pub root_turn_before_deg: f32,
    /// See `root_turn_before_deg`.
    pub root_turn_after_deg: f32,
    /// The basis's travel over the clip (an extraction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basis_travel: Option<[f32; 3]>,
    /// The farthest the hips get from the root horizontally, after the pass, centimetres.
    pub hips_from_root_max_cm: f32,
    /// The largest displacement of a 3 cm virtual point against the source, centimetres (for synthesized travel:
    /// in the root's frame, since the root moves on purpose).
    pub error_cm: f32,
    /// Synthesized travel: the planted feet's mean slide on the result, cm/s (the skate meter, now on root motion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planted_after_cm_s: Option<f32>,
}

impl RootPassReport {
    /// The figures that matter before and after, short enough for a status line: the root's travel and turn,
    /// and how far any other joint moved.
    pub fn brief(&self) -> String {
        let across = |v: [f32; 3]| v[0].hypot(v[2]);
        if let Some(planted) = self.planted_after_cm_s {
            return format!(
                "travel synthesized from the planted feet onto '{}': the root travels {:.2} m; planted feet slide \
                 {planted:.2} cm/s",
                self.root_joint,
                across(self.root_travel_after)
            );
        }
        format!(
            "{} {} '{}'{}: the root travels {:.2} m and turns {:+.1}° (was {:.2} m, {:+.1}°); every other joint \
             within {:.4} cm",
            self.components.join(", "),
            match self.basis {
                Some(basis) => format!("from the {basis} onto"),
                None => "into the pose from".to_string(),
            },
            self.root_joint,
            if self.added_root { " (added)" } else { "" },
            across(self.root_travel_after),
            self.root_turn_after_deg,
            across(self.root_travel_before),
            self.root_turn_before_deg,
            self.error_cm
        )
    }

    /// What the pass did, in one line: the components and basis, the root's travel and turn before and after,
    /// how far the hips get from it, and the error against the clip before.
    pub fn summary(&self) -> String {
        let travel = |v: [f32; 3]| format!("{:.3} m across, {:+.3} m up", v[0].hypot(v[2]), v[1]);
        if let Some(planted) = self.planted_after_cm_s {
            return format!(
                "travel synthesized from the planted feet onto '{}'{}: the root travels {} (was {}); the planted \
                 feet now slide {planted:.2} cm/s on average in the world; the body around the root within {:.5} \
                 cm of the clip before",
                self.root_joint,
                if self.added_root {
                    " (added above the hips)"
                } else {
                    ""
                },
                travel(self.root_travel_after),
                travel(self.root_travel_before),
                self.error_cm
            );
        }
        let what = match self.basis {
            Some(basis) => format!(
                "{} extracted from the {basis} onto '{}'",
                self.components.join(", "),
                self.root_joint
            ),
            None => format!(
                "{} of '{}' moved into the pose",
                self.components.join(", "),
                self.root_joint
            ),
        };
        format!(
            "{what}{} (lock {}): the root travels {} and turns {:+.1}° (was {}, {:+.1}°); the hips are at \
             most {:.1} cm from it across; every other joint within {:.5} cm of the clip before ({} keys: {} fps, \
             the source's key times, and more where the body turns fast)",
            if self.added_root {
                " (added above the hips)"
            } else {
                ""
            },
            self.lock,
            travel(self.root_travel_after),
            self.root_turn_after_deg,
            travel(self.root_travel_before),
            self.root_turn_before_deg,
            self.hips_from_root_max_cm,
            self.error_cm,
            self.keys,
            self.grid_fps
        )
    }
}

/// Why a pass cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RootPassError {
    /// No component chosen.
    #[error("choose at least one root component (xz, yaw, y)")]
    NoComponent,
    /// The clip has no length.
    #[error("clip '{0}' has no length: there is no motion to move")]
    Empty(String),
    /// The character has no hips.
    #[error("the character has no humanoid Hips bone: a root pass needs to know where the body is")]
    NoHips,
    /// Into pose: the hips have no joint above them, so there is no root motion to move.
    #[error(
        "the hips joint '{0}' has no joint above it whose motion could move into the pose (extracting root motion \
         adds one)"
    )]
    NoRootJoint(String),
    /// A basis needs bones the character lacks.
    #[error("root motion based upon the {basis} needs the humanoid bones {missing}")]
    Basis {
        /// The basis asked for.
        basis: &'static str,
        /// What is missing.
        missing: String,
    },
    /// The grid would be too large.
    #[error("{0}")]
    Budget(String),
    /// The densest grid still misses the source.
    #[error(
        "the pass keeps every joint within {error_cm:.4} cm of the source at best, over its {PASS_TOLERANCE_CM} cm \
         budget"
    )]
    Tolerance {
        /// The best figure reached.
        error_cm: f32,
    },
}

/// The body positions a basis follows, per frame.
fn basis_positions(
    character: &Character,
    basis: RootBasis,
    models: &[Vec<Mat4>],
    hips: usize,
) -> Result<Vec<Vec3>, RootPassError> {
    let humanoid = &character.humanoid;
    let at = |m: &[Mat4], j: usize| m[j].w_axis.truncate();
    match basis {
        RootBasis::Hips => Ok(models.iter().map(|m| at(m, hips)).collect()),
        RootBasis::Feet => {
            let (Some(l), Some(r)) = (
                humanoid.joint(HumanBone::LeftFoot),
                humanoid.joint(HumanBone::RightFoot),
            ) else {
                return Err(RootPassError::Basis {
                    basis: "feet",
                    missing: "LeftFoot and RightFoot".into(),
                });
            };
            Ok(models
                .iter()
                .map(|m| {
                    let (a, b) = (at(m, l), at(m, r));
                    let mid = (a + b) * 0.5;
                    Vec3::new(mid.x, a.y.min(b.y), mid.z)
                })
                .collect())
        }
        RootBasis::CenterOfMass => {
            let skeleton = &character.skeleton;
            let rest = Pose::rest(skeleton).model_matrices(skeleton);
            let segments: Vec<(usize, usize, f32)> = HumanBone::ALL
                .iter()
                .filter_map(|&bone| {
                    let j = humanoid.joint(bone)?;
                    let p = humanoid.joint(bone.parent()?)?;
                    let length = (at(&rest, j) - at(&rest, p)).length();
                    (length.is_finite() && length > 0.0).then_some((p, j, length))
                })
                .collect();
            let total: f32 = segments.iter().map(|s| s.2).sum();
            if segments.is_empty() || total <= 0.0 {
                return Err(RootPassError::Basis {
                    basis: "centre of mass",
                    missing: "of at least two connected limbs".into(),
                });
            }
            Ok(models
                .iter()
                .map(|m| {
                    segments
                        .iter()
                        .map(|&(p, j, w)| (at(m, p) + at(m, j)) * (0.5 * w))
                        .sum::<Vec3>()
                        / total
                })
                .collect())
        }
    }
}

/// The turn about +Y of a rotation, read from where it takes the sideways axis (+X): a body pitching forward, as
/// in a roll or a bow, keeps it level, where its forward axis points up or down and has no heading. A rotation
/// that tips the sideways axis near the vertical is read from its forward axis instead.
fn heading(rotation: Quat) -> f32 {
    let side = rotation * Vec3::X;
    if side.x.hypot(side.z) >= 0.5 {
        (-side.z).atan2(side.x)
    } else {
        yaw_of(rotation)
    }
}

/// Heading about +Y of `rotation` relative to `reference` ([`heading`]), per frame, unwrapped so a turn past half
/// a circle goes on.
fn unwrapped_yaws(rotations: impl Iterator<Item = Quat>, reference: Quat) -> Vec<f32> {
    let mut out: Vec<f32> = Vec::new();
    for q in rotations {
        let raw = heading(q * reference.inverse());
        let yaw = match out.last() {
            Some(&previous) => {
                let d = (raw - previous + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                    - std::f32::consts::PI;
                previous + d
            }
            None => raw,
        };
        out.push(yaw);
    }
    out
}

fn decompose(m: &Mat4) -> (Vec3, Quat, Vec3) {
    let (s, r, t) = m.to_scale_rotation_translation();
    (t, r.normalize(), s)
}

/// The name of the joint a pass adds above hips that have no joint above them (Unity's and Unreal's usual name).
pub const ADDED_ROOT_NAME: &str = "Root";

/// The hips of a humanoid whose hips are its top joint (no joint above them to carry root motion), else None.
pub fn rootless_hips(character: &Character) -> Option<usize> {
    character
        .humanoid
        .joint(HumanBone::Hips)
        .filter(|&h| character.skeleton.parent(h).is_none())
}

/// `character` with a joint [`ADDED_ROOT_NAME`] added above its hips when they are its top joint (None when they
/// are not, or there are no hips): what an extraction adds, and what presets with `root_joint` add again.
pub fn with_added_root(
    character: &Character,
) -> Option<Result<Character, crate::core::skeleton::SkeletonError>> {
    rootless_hips(character).map(|hips| Ok(character.with_joint_above(hips, ADDED_ROOT_NAME)?.0))
}

/// What a pass made.
#[derive(Clone, Debug)]
pub struct RootPassOutput {
    /// The new clip: the source's name, length and loop.
    pub clip: Clip,
    /// What the pass did.
    pub report: RootPassReport,
    /// The character with the root joint the pass added above its hips (the clip is for it, and a bake writes
    /// it); None when the rig had a joint there.
    pub character: Option<Character>,
}

/// Runs `pass` over `clip` as it plays on `character`. When the hips have no joint above them, an extraction
/// adds one ([`ADDED_ROOT_NAME`], resting at the identity) and the output carries that character.
pub fn run_root_pass(
    character: &Character,
    clip: &Clip,
    pass: &RootPass,
) -> Result<RootPassOutput, RootPassError> {
    let components = pass.components();
    if components.is_empty() {
        return Err(RootPassError::NoComponent);
    }
    if !(clip.duration > 0.0 && clip.duration.is_finite()) {
        return Err(RootPassError::Empty(clip.name.clone()));
    }
    let hips = character
        .humanoid
        .joint(HumanBone::Hips)
        .ok_or(RootPassError::NoHips)?;
    let added = match (character.skeleton.parent(hips), pass) {
        (Some(_), _) => None,
        (None, RootPass::Extract { .. }) => Some(
            character
                .with_joint_above(hips, ADDED_ROOT_NAME)
                .map_err(|e| RootPassError::Budget(e.to_string()))?,
        ),
        (None, RootPass::IntoPose { .. }) => {
            return Err(RootPassError::NoRootJoint(
                character.skeleton.name(hips).to_string(),
            ));
        }
    };
    let (clip, report) = match &added {
        Some((with_root, _)) => on_character(with_root, clip, pass)?,
        None => on_character(character, clip, pass)?,
    };
    let mut report = report;
    report.added_root = added.is_some();
    Ok(RootPassOutput {
        clip,
        report,
        character: added.map(|(c, _)| c),
    })
}

/// [`run_root_pass`] on a character whose hips have a joint above them.
fn on_character(
    character: &Character,
    clip: &Clip,
    pass: &RootPass,
) -> Result<(Clip, RootPassReport), RootPassError> {
    let skeleton = &character.skeleton;
    let hips = character
        .humanoid
        .joint(HumanBone::Hips)
        .ok_or(RootPassError::NoHips)?;
    let root = skeleton
        .parent(hips)
        .ok_or_else(|| RootPassError::NoRootJoint(skeleton.name(hips).to_string()))?;
    let binding = clip.bind(skeleton, Some(&character.humanoid));
    let direct = binding.folded.is_empty()
        && binding
            .tracks
            .iter()
            .flatten()
            .all(|b| b.retarget.is_none());
    if let RootPass::Extract {
        basis: RootBasis::Feet,
        lock,
        ..
    } = *pass
        && crate::analysis::root_motion(character, clip).is_some_and(|r| r.speed < IN_PLACE_SPEED)
    {
        return synthesize(character, clip, root, hips, lock);
    }
    let grid = grid_times(clip, START_FPS);
    let how = frames::Refinement {
        tolerance_cm: PASS_TOLERANCE_CM,
        max_fps: MAX_PASS_FPS,
        rounds: MAX_REFINEMENTS,
        joints: skeleton.len(),
        what: format!("root pass over clip '{}'", clip.name),
    };
    let refined = frames::refine_grid(clip, grid, &how, |grid, checks| {
        let (out, mut report) = pass_on_grid(character, clip, pass, grid, root, hips, direct)?;
        report.grid_fps = START_FPS;
        let errors = super::measure::point_errors(character, clip, &out, checks, Some(root));
        Ok(((out, report), errors))
    });
    match refined {
        Ok(((out, mut report), error_cm)) => {
            report.error_cm = error_cm;
            Ok((out, report))
        }
        Err(frames::Refined::Failed(e)) => Err(e),
        Err(frames::Refined::Budget(e)) => Err(RootPassError::Budget(e)),
        Err(frames::Refined::Tolerance(_, error_cm)) => Err(RootPassError::Tolerance { error_cm }),
    }
}

/// The hips' average speed (m/s) under which a clip is in place: extracting from its feet synthesizes travel.
const IN_PLACE_SPEED: f32 = 0.05;

/// Root motion synthesized for an in-place clip from its planted feet: frame by frame, the root moves by the
/// planted feet's backward slide (their mean, horizontal), so that they stand still in the world; between plants
/// it keeps the pace of the plants around it. The joints below the root keep their local poses: this is the one
/// pass that changes world motion (the report's error is then the planted slide left, measured by the skate meter
/// on the result, which now travels).
fn synthesize(
    character: &Character,
    clip: &Clip,
    root: usize,
    hips: usize,
    lock: RootLock,
) -> Result<(Clip, RootPassReport), RootPassError> {
    use crate::analysis::contacts::{ContactSettings, clip_skate, foot_tracks};
    let basis_error = |e: String| RootPassError::Basis {
        basis: "feet",
        missing: e,
    };
    let skeleton = &character.skeleton;
    let settings = ContactSettings::default();
    let meter = clip_skate(character, clip, SYNTH_FPS, &settings, None).map_err(basis_error)?;
    let feet = foot_tracks(character, clip, SYNTH_FPS, None).map_err(basis_error)?;
    let times = &feet.times;
    let n = times.len();
    // Each frame's root velocity: minus the mean horizontal velocity of the feet in contact then.
    let mut velocity: Vec<Option<Vec3>> = vec![None; n];
    for (k, v) in velocity.iter_mut().enumerate() {
        let (a, b) = (k.saturating_sub(1), (k + 1).min(n - 1));
        let dt = times[b] - times[a];
        let planted: Vec<Vec3> = feet
            .feet
            .iter()
            .filter(|f| {
                meter.feet.iter().any(|c| {
                    c.human_bone == f.human_bone
                        && c.contacts.iter().any(|i| (i[0]..=i[1]).contains(&times[k]))
                })
            })
            .map(|f| {
                let d = (f.positions[b] - f.positions[a]) / dt.max(1e-6);
                Vec3::new(-d.x, 0.0, -d.z)
            })
            .collect();
        if !planted.is_empty() && dt > 0.0 {
            *v = Some(planted.iter().sum::<Vec3>() / planted.len() as f32);
        }
    }
    let known: Vec<(usize, Vec3)> = velocity
        .iter()
        .enumerate()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    if known.is_empty() {
        return Err(basis_error(
            "feet that touch the ground (no plant found to travel from)".into(),
        ));
    }
    let filled: Vec<Vec3> = (0..n)
        .map(|k| {
            velocity[k].unwrap_or_else(|| {
                let before = known.iter().rev().find(|(j, _)| *j < k);
                let after = known.iter().find(|(j, _)| *j > k);
                match (before, after) {
                    (Some(&(i, a)), Some(&(j, b))) => a.lerp(b, (k - i) as f32 / (j - i) as f32),
                    (Some(&(_, a)), None) | (None, Some(&(_, a))) => a,
                    (None, None) => Vec3::ZERO,
                }
            })
        })
        .collect();
    let mut travel = vec![Vec3::ZERO; n];
    for k in 1..n {
        travel[k] = travel[k - 1] + (filled[k] + filled[k - 1]) * 0.5 * (times[k] - times[k - 1]);
    }
    // The root's new track on the pass's grid (the source's keys kept): where the clip puts it (or the lock),
    // moved on by the travel, read linearly between the meter's frames.
    let travel_at = |t: f32| {
        let k = times.partition_point(|&x| x <= t).clamp(1, n - 1);
        let (a, b) = (times[k - 1], times[k]);
        let u = if b > a {
            ((t - a) / (b - a)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        travel[k - 1].lerp(travel[k], u)
    };
    let grid = frames::pass_grid(clip, SYNTH_FPS);
    let times = &grid;
    let n = times.len();
    let sampled = frames::sample_frames(clip, skeleton, Some(&character.humanoid), times.clone());
    let models: Vec<Vec<Mat4>> = sampled
        .poses
        .iter()
        .map(|p| p.model_matrices(skeleton))
        .collect();
    let rest_model = Pose::rest(skeleton).model_matrices(skeleton);
    let (rest_t, rest_r, rest_s) = decompose(&rest_model[root]);
    let mut poses = sampled.poses.clone();
    for (k, pose) in poses.iter_mut().enumerate() {
        let (t, _, s) = match lock {
            RootLock::Reference => (rest_t, rest_r, rest_s),
            RootLock::FirstFrame => decompose(&models[0][root]),
            RootLock::Zero => (Vec3::ZERO, rest_r, rest_s),
        };
        let own = decompose(&models[k][root]);
        // The root keeps its own motion across the ground's plane and takes the travel on it.
        let placed = Vec3::new(t.x, own.0.y, t.z)
            + travel_at(times[k])
            + Vec3::new(
                own.0.x - models[0][root].w_axis.x,
                0.0,
                own.0.z - models[0][root].w_axis.z,
            );
        let parent = skeleton
            .parent(root)
            .map_or(skeleton.root_transform(), |p| models[k][p]);
        pose.local[root] = Transform::from_mat4(
            &(parent.inverse() * Mat4::from_scale_rotation_translation(s, own.1, placed)),
        );
    }
    let out = frames::keyed_clip(character, clip, times, &poses);
    let after = clip_skate(character, &out, SYNTH_FPS, &settings, None).map_err(basis_error)?;
    let error_cm = relative_error_cm(character, clip, &out, root, times);
    let last = n - 1;
    let after_models: Vec<Vec<Mat4>> = poses.iter().map(|p| p.model_matrices(skeleton)).collect();
    let hips_from_root_max_cm = after_models
        .iter()
        .map(|m| {
            let d = m[hips].w_axis.truncate() - m[root].w_axis.truncate();
            Vec3::new(d.x, 0.0, d.z).length() * 100.0
        })
        .fold(0.0, f32::max);
    let before_root: Vec<Vec3> = models.iter().map(|m| m[root].w_axis.truncate()).collect();
    let after_root: Vec<Vec3> = after_models
        .iter()
        .map(|m| m[root].w_axis.truncate())
        .collect();
    Ok((
        out,
        RootPassReport {
            pass: "synthesize",
            root_joint: skeleton.name(root).to_string(),
            added_root: false,
            components: vec!["xz"],
            basis: Some("feet"),
            lock: lock.name(),
            keys: n,
            grid_fps: SYNTH_FPS,
            resampled_all_joints: true,
            root_travel_before: (before_root[last] - before_root[0]).to_array(),
            root_travel_after: (after_root[last] - after_root[0]).to_array(),
            root_turn_before_deg: 0.0,
            root_turn_after_deg: 0.0,
            basis_travel: Some(travel_at(clip.duration).to_array()),
            hips_from_root_max_cm,
            error_cm,
            planted_after_cm_s: Some(after.planted_speed_cm_s.mean),
        },
    ))
}

/// The largest displacement (cm) of a 3 cm virtual point of any joint in its root's frame, between `clip` and
/// `out`, at `times` and a quarter, half and three quarters between them: how far a pass that moves the root on
/// purpose moved the body around it.
fn relative_error_cm(
    character: &Character,
    clip: &Clip,
    out: &Clip,
    root: usize,
    times: &[f32],
) -> f32 {
    let skeleton = &character.skeleton;
    let checks = frames::distinct(frames::merged(times, &frames::between(times)));
    let relative = |c: &Clip| -> Vec<Vec<Mat4>> {
        frames::sample_frames(c, skeleton, Some(&character.humanoid), checks.clone())
            .poses
            .iter()
            .map(|p| {
                let m = p.model_matrices(skeleton);
                let inverse = m[root].inverse();
                m.iter().map(|j| inverse * *j).collect()
            })
            .collect()
    };
    let (a, b) = (relative(clip), relative(out));
    a.iter()
        .zip(&b)
        .map(|(x, y)| crate::core::metric::max_vertex_error(x, y))
        .fold(0.0, f32::max)
        * 100.0
}

/// The rate travel is synthesized at.
const SYNTH_FPS: f32 = 60.0;

/// How many times a pass refines its grid before it gives up.
const MAX_REFINEMENTS: usize = 6;

/// Uniform times at `fps` and every source key time.
fn grid_times(clip: &Clip, fps: f32) -> Vec<f32> {
    frames::distinct(frames::merged(
        &frames::uniform_times(clip.duration, fps),
        &frames::source_key_times(clip),
    ))
}

fn pass_on_grid(
    character: &Character,
    clip: &Clip,
    pass: &RootPass,
    grid: &[f32],
    root: usize,
    hips: usize,
    direct: bool,
) -> Result<(Clip, RootPassReport), RootPassError> {
    let skeleton = &character.skeleton;
    let components = pass.components();
    let sampled: Frames =
        frames::sample_frames(clip, skeleton, Some(&character.humanoid), grid.to_vec());
    let models: Vec<Vec<Mat4>> = sampled
        .poses
        .iter()
        .map(|p| p.model_matrices(skeleton))
        .collect();
    let rest_model = Pose::rest(skeleton).model_matrices(skeleton);
    let (rest_t, rest_r, rest_s) = decompose(&rest_model[root]);
    let lock = match pass.lock() {
        RootLock::Reference => (rest_t, rest_r, rest_s),
        RootLock::FirstFrame => decompose(&models[0][root]),
        RootLock::Zero => (Vec3::ZERO, rest_r, rest_s),
    };
    let root_before: Vec<(Vec3, Quat, Vec3)> = models.iter().map(|m| decompose(&m[root])).collect();
    let (new_root, basis_travel): (Vec<Mat4>, Option<Vec3>) = match *pass {
        RootPass::Extract { basis, .. } => {
            let positions = basis_positions(character, basis, &models, hips)?;
            let hips_rest = decompose(&rest_model[hips]).1;
            let yaws = unwrapped_yaws(models.iter().map(|m| decompose(&m[hips]).1), hips_rest);
            let first = positions[0];
            let roots = positions
                .iter()
                .zip(&yaws)
                .map(|(&p, &yaw)| {
                    let d = p - first;
                    let t = lock.0
                        + if components.xz {
                            Vec3::new(d.x, 0.0, d.z)
                        } else {
                            Vec3::ZERO
                        }
                        + if components.y {
                            Vec3::Y * d.y
                        } else {
                            Vec3::ZERO
                        };
                    let r = if components.yaw {
                        Quat::from_rotation_y(yaw - yaws[0]) * lock.1
                    } else {
                        lock.1
                    };
                    Mat4::from_scale_rotation_translation(lock.2, r, t)
                })
                .collect();
            (roots, Some(positions[positions.len() - 1] - first))
        }
        RootPass::IntoPose { .. } => {
            let yaws = unwrapped_yaws(root_before.iter().map(|r| r.1), lock.1);
            let roots = root_before
                .iter()
                .zip(&yaws)
                .map(|(&(t, r, s), &yaw)| {
                    let t = Vec3::new(
                        if components.xz { lock.0.x } else { t.x },
                        if components.y { lock.0.y } else { t.y },
                        if components.xz { lock.0.z } else { t.z },
                    );
                    let r = if components.yaw {
                        (Quat::from_rotation_y(-yaw) * r).normalize()
                    } else {
                        r
                    };
                    Mat4::from_scale_rotation_translation(s, r, t)
                })
                .collect();
            (roots, None)
        }
    };
    // Every joint's new local transform: the root's in its parent's frame, its children's under the new root,
    // every other joint's as sampled.
    let children: Vec<usize> = skeleton.children(root).collect();
    let affected = |j: usize| j == root || children.contains(&j);
    let locals: Vec<Vec<Transform>> = sampled
        .poses
        .iter()
        .zip(&models)
        .zip(&new_root)
        .map(|((pose, model), &root_model)| {
            let mut local = pose.local.clone();
            let parent = skeleton
                .parent(root)
                .map_or(skeleton.root_transform(), |p| model[p]);
            local[root] = Transform::from_mat4(&(parent.inverse() * root_model));
            let inverse = root_model.inverse();
            for &c in &children {
                local[c] = Transform::from_mat4(&(inverse * model[c]));
            }
            local
        })
        .collect();
    let targets = crate::core::binding::track_targets(skeleton, Some(&character.humanoid));
    let keyed = |j: usize| -> Track {
        let values: Vec<Transform> = locals.iter().map(|l| l[j]).collect();
        frames::keyed_track(targets[j].clone(), grid, &values)
    };
    let mut tracks: Vec<Track> = if direct {
        clip.tracks
            .iter()
            .zip(&clip.bind(skeleton, Some(&character.humanoid)).tracks)
            .filter(|(_, b)| b.as_ref().is_none_or(|b| !affected(b.joint)))
            .map(|(t, _)| t.clone())
            .collect()
    } else {
        (0..skeleton.len())
            .filter(|&j| !affected(j))
            .map(keyed)
            .collect()
    };
    tracks.extend(
        std::iter::once(root)
            .chain(children.iter().copied())
            .map(keyed),
    );
    let mut out = clip.clone();
    out.tracks = tracks;
    if !direct {
        out.facing_yaw = None;
    }
    let last = grid.len() - 1;
    let root_after: Vec<(Vec3, Quat, Vec3)> = new_root.iter().map(decompose).collect();
    let turn = |r: &[(Vec3, Quat, Vec3)]| {
        let yaws = unwrapped_yaws(r.iter().map(|x| x.1), r[0].1);
        yaws[last].to_degrees()
    };
    let hips_from_root_max_cm = models
        .iter()
        .zip(&root_after)
        .map(|(m, r)| {
            let d = m[hips].w_axis.truncate() - r.0;
            Vec3::new(d.x, 0.0, d.z).length() * 100.0
        })
        .fold(0.0, f32::max);
    let report = RootPassReport {
        pass: match pass {
            RootPass::Extract { .. } => "extract",
            RootPass::IntoPose { .. } => "into_pose",
        },
        root_joint: skeleton.name(root).to_string(),
        added_root: false,
        components: components.names(),
        basis: match pass {
            RootPass::Extract { basis, .. } => Some(basis.name()),
            RootPass::IntoPose { .. } => None,
        },
        lock: pass.lock().name(),
        keys: grid.len(),
        grid_fps: 0.0,
        resampled_all_joints: !direct,
        root_travel_before: (root_before[last].0 - root_before[0].0).to_array(),
        root_travel_after: (root_after[last].0 - root_after[0].0).to_array(),
        root_turn_before_deg: turn(&root_before),
        root_turn_after_deg: turn(&root_after),
        basis_travel: basis_travel.map(|v| v.to_array()),
        hips_from_root_max_cm,
        error_cm: 0.0,
        planted_after_cm_s: None,
    };
    Ok((out, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quaternius() -> crate::import::ImportedModel {
        crate::import::load_file(&crate::test_support::quaternius()).unwrap()
    }

    const ALL: RootComponents = RootComponents {
        xz: true,
        yaw: true,
        y: true,
    };

    /// The largest 3 cm point displacement of `clip` against `source` on `character`, centimetres, at the
    /// source's keys and between them and on a 240 fps grid.
    fn distance_cm(character: &Character, source: &Clip, clip: &Clip) -> f32 {
        let times = frames::distinct(frames::merged(
            &frames::uniform_times(source.duration, 240.0),
            &frames::source_check_times(source),
        ));
        let root = character.skeleton.find_by_name("root").unwrap();
        super::super::measure::point_errors(character, source, clip, &times, Some(root))
            .into_iter()
            .fold(0.0, f32::max)
            * 100.0
    }

    fn horizontal(v: [f32; 3]) -> Vec3 {
        Vec3::new(v[0], 0.0, v[2])
    }

    #[test]
    fn root_motion_moved_into_the_pose_and_extracted_again_puts_every_joint_where_the_source_does()
    {
        let model = quaternius();
        let c = &model.character;
        let roll = model.clips.iter().find(|k| k.name == "Roll_RM").unwrap();
        let into = RootPass::IntoPose {
            components: ALL,
            lock: RootLock::Reference,
        };
        let RootPassOutput {
            clip: in_pose,
            report: first,
            ..
        } = run_root_pass(c, roll, &into).unwrap();
        assert_eq!(first.root_joint, "root");
        assert!(
            horizontal(first.root_travel_before).length() > 4.0,
            "{first:?}"
        );
        assert!(
            Vec3::from(first.root_travel_after).length() < 1e-5,
            "{first:?}"
        );
        assert!(first.root_turn_after_deg.abs() < 1e-3, "{first:?}");
        assert!(distance_cm(c, roll, &in_pose) <= PASS_TOLERANCE_CM);
        let extract = RootPass::Extract {
            components: RootComponents::TRAVEL_AND_TURN,
            basis: RootBasis::Hips,
            lock: RootLock::Reference,
        };
        let RootPassOutput {
            clip: extracted,
            report,
            ..
        } = run_root_pass(c, &in_pose, &extract).unwrap();
        let error = distance_cm(c, roll, &extracted);
        assert!(error <= 0.01, "{error} cm from Roll_RM");
        let root = horizontal(report.root_travel_after);
        let hips = horizontal(report.basis_travel.unwrap());
        assert!(root.distance(hips) <= 0.01, "{report:?}");
        let original = horizontal(first.root_travel_before);
        assert!(
            root.distance(original) <= 0.05 * original.length(),
            "root {root} against Roll_RM's {original}"
        );
        assert!(report.hips_from_root_max_cm <= 35.0, "{report:?}");
    }

    #[test]
    fn a_component_kept_in_the_pose_leaves_the_root_where_the_lock_puts_it() {
        let model = quaternius();
        let c = &model.character;
        let roll = model.clips.iter().find(|k| k.name == "Roll_RM").unwrap();
        let pass = RootPass::Extract {
            components: RootComponents::TRAVEL,
            basis: RootBasis::CenterOfMass,
            lock: RootLock::Zero,
        };
        let RootPassOutput {
            clip: out, report, ..
        } = run_root_pass(c, roll, &pass).unwrap();
        assert!(report.root_travel_after[1].abs() < 1e-6, "{report:?}");
        assert!(report.root_turn_after_deg.abs() < 1e-3, "{report:?}");
        assert!(
            horizontal(report.root_travel_after).length() > 4.0,
            "{report:?}"
        );
        assert!(distance_cm(c, roll, &out) <= PASS_TOLERANCE_CM);
        let skeleton = &c.skeleton;
        let root = skeleton.find_by_name("root").unwrap();
        let mut pose = Pose::rest(skeleton);
        out.sample_into(
            &out.bind(skeleton, None),
            0.0,
            crate::core::Wrap::Clamp,
            &mut pose,
        );
        let at_start = pose.model_matrices(skeleton)[root].w_axis.truncate();
        assert!(
            at_start.length() < 1e-5,
            "a zero lock starts at the origin: {at_start}"
        );
    }

    #[test]
    fn a_rig_whose_hips_are_its_top_joint_gets_a_root_joint_above_them() {
        let model = crate::demo::mannequin::load();
        let c = &model.character;
        let hips = c.humanoid.joint(HumanBone::Hips).unwrap();
        assert_eq!(
            c.skeleton.parent(hips),
            None,
            "the mannequin's hips are its top joint"
        );
        let walk = model
            .clips
            .iter()
            .find(|k| k.name == "WalkForward")
            .unwrap();
        let pass = RootPass::Extract {
            components: RootComponents::TRAVEL_AND_TURN,
            basis: RootBasis::Hips,
            lock: RootLock::Reference,
        };
        let out = run_root_pass(c, walk, &pass).unwrap();
        let with_root = out.character.as_ref().expect("a character with a root");
        assert!(out.report.added_root);
        assert_eq!(out.report.root_joint, ADDED_ROOT_NAME);
        let s = &with_root.skeleton;
        let root = s.find_by_name(ADDED_ROOT_NAME).unwrap();
        assert_eq!(
            s.parent(with_root.humanoid.joint(HumanBone::Hips).unwrap()),
            Some(root)
        );
        // Every joint but the new root where the mannequin's own walk puts it, on the mannequin itself.
        let times = frames::uniform_times(walk.duration, 240.0);
        let reference = frames::sample_frames(walk, &c.skeleton, Some(&c.humanoid), times.clone());
        let binding = out.clip.bind(s, None);
        let mut worst = 0.0f32;
        for (&t, source) in times.iter().zip(&reference.poses) {
            let mut pose = Pose::rest(s);
            out.clip
                .sample_into(&binding, t, crate::core::Wrap::Clamp, &mut pose);
            let after = pose.model_matrices(s);
            let before = source.model_matrices(&c.skeleton);
            worst = worst.max(crate::core::metric::max_vertex_error(&before, &after[1..]));
        }
        assert!(worst * 100.0 <= 0.002, "{} cm", worst * 100.0);
        let root_travel = horizontal(out.report.root_travel_after);
        let hips_travel = horizontal(out.report.basis_travel.unwrap());
        assert!(
            hips_travel.length() > 0.5,
            "the walk travels: {:?}",
            out.report
        );
        assert!(root_travel.distance(hips_travel) < 1e-4, "{:?}", out.report);
        // Moving root motion into the pose needs a root that has some.
        let into = RootPass::IntoPose {
            components: ALL,
            lock: RootLock::Reference,
        };
        let err = run_root_pass(c, walk, &into).unwrap_err();
        assert!(matches!(err, RootPassError::NoRootJoint(_)), "{err}");
    }

    #[test]
    fn an_in_place_walk_extracted_from_its_feet_travels_on_its_planted_feet() {
        let model = quaternius();
        let c = &model.character;
        let walk = model.clips.iter().find(|k| k.name == "Walk_Loop").unwrap();
        let pass = RootPass::Extract {
            components: RootComponents::TRAVEL,
            basis: RootBasis::Feet,
            lock: RootLock::Reference,
        };
        let out = run_root_pass(c, walk, &pass).unwrap();
        let r = &out.report;
        assert_eq!(r.pass, "synthesize");
        let planted_before =
            crate::analysis::contacts::clip_skate(c, walk, 60.0, &Default::default(), None)
                .unwrap()
                .planted_speed_cm_s
                .mean;
        // Forward (+z) at about a metre a second, the body around the root as it was.
        let travel = Vec3::from(r.root_travel_after);
        assert!(
            travel.z / walk.duration > 0.8 && travel.x.abs() < 0.05,
            "{r:?}"
        );
        assert!(r.error_cm <= PASS_TOLERANCE_CM, "{r:?}");
        let planted = r.planted_after_cm_s.unwrap();
        assert!(
            planted < 0.5 * planted_before,
            "{planted} cm/s against {planted_before} on the treadmill"
        );
    }

    #[test]
    fn components_parse_from_a_comma_separated_list() {
        assert_eq!(
            RootComponents::parse("xz,yaw").unwrap().names(),
            ["xz", "yaw"]
        );
        assert_eq!(RootComponents::parse("y").unwrap().names(), ["y"]);
        assert!(
            RootComponents::parse("xz,pitch")
                .unwrap_err()
                .contains("pitch")
        );
        assert!(RootComponents::parse("").is_err());
    }
}
