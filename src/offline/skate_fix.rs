//! Foot-skate clean-up over a whole clip, after Kovar, Schreiner and Gleicher ("Footskate cleanup for motion
//! capture editing", SCA 2002): each plant the skate meter finds is held at one point, the legs reach it with the
//! two-bone IK job, the pelvis moves the least needed so that both ankles reach, a capped leg stretch takes what
//! is left, and every correction eases in and out around the plant so that nothing pops.
//!
//! Contract:
//! - plants are the skate meter's contacts (`analysis::contacts::clip_skate` at 60 fps, the settings given);
//! - a plant is held across the ground at the mean of its contact point over the plant, on the ground the meter
//!   uses (still under root motion; moving at the treadmill's or the nominal velocity under an in-place clip); its
//!   height stays the source's, so a foot lifts and lands when it did;
//! - the weight of a plant is 1 over it and eases (smoothstep) to 0 over `plant_blend_s` before and after; where
//!   a foot has no weight its leg is the source's, and where no foot needs it the pelvis is too;
//! - the foot keeps its model-space orientation, so its contact point moves as its ankle does;
//! - the new clip keys every joint linearly on the source's own keys when they lie on one uniform grid, else on
//!   60 fps plus the source's key times; the report gives the meter before and after, measured the same way.

use glam::{Mat4, Vec3};
use serde::Serialize;

use super::frames;
use crate::analysis::contacts::{ContactSettings, SkateReport, clip_skate};
use crate::core::clip_pass::SkateFix;
use crate::core::humanoid::HumanBone;
use crate::core::{Character, Clip, Pose};
use crate::layers::FootLockRig;
use crate::layers::foot_lock::{leg_length, refresh, solve_leg};

/// The rate the plants are found at, and of the grid of a source without its own uniform keys.
const FPS: f32 = 60.0;

/// The skate meter's figures before or after.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SkateFigures {
    /// Share of contact frames sliding faster than the skate threshold.
    pub skate_ratio: f32,
    /// Mean slide of the planted feet, cm/s.
    pub planted_mean_cm_s: f32,
    /// Largest slide of the planted feet, cm/s.
    pub planted_max_cm_s: f32,
}

impl From<&SkateReport> for SkateFigures {
    fn from(r: &SkateReport) -> Self {
        SkateFigures {
            skate_ratio: r.skate_ratio,
            planted_mean_cm_s: r.planted_speed_cm_s.mean,
            planted_max_cm_s: r.planted_speed_cm_s.max,
        }
    }
}

/// One joint's largest correction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointCorrection {
    /// The joint.
    pub joint: String,
    /// The most a 3 cm virtual point of it moved from the source, cm.
    pub cm: f32,
}

/// What the clean-up did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkateFixReport {
    /// The meter on the source.
    pub before: SkateFigures,
    /// The meter on the new clip.
    pub after: SkateFigures,
    /// Plants held, both feet.
    pub plants: usize,
    /// Where the corrections act: each plant with its easing on both sides, seconds (outside them the clip is
    /// the source).
    pub windows: Vec<[f32; 2]>,
    /// The seconds each correction eases over.
    pub plant_blend_s: f32,
    /// The largest leg stretch used, percent (never over the cap).
    pub stretch_pct: f32,
    /// The farthest the pelvis moved, cm.
    pub pelvis_cm: f32,
    /// The joints corrected most, largest first (at most five).
    pub largest: Vec<JointCorrection>,
    /// Keys of the new clip's grid.
    pub keys: usize,
}

impl SkateFixReport {
    /// The figures before and after, in one line.
    pub fn brief(&self) -> String {
        format!(
            "planted feet slide {:.2} cm/s on average, {:.2} at most, skate {:.0} % (was {:.2}, {:.2}, {:.0} %); {} \
             plants held, pelvis moved up to {:.1} cm, stretch {:.1} %",
            self.after.planted_mean_cm_s,
            self.after.planted_max_cm_s,
            100.0 * self.after.skate_ratio,
            self.before.planted_mean_cm_s,
            self.before.planted_max_cm_s,
            100.0 * self.before.skate_ratio,
            self.plants,
            self.pelvis_cm,
            self.stretch_pct
        )
    }
}

/// A plant of one foot: when, and where its contact point is held (in the ground's frame: at time t it is
/// `anchor + ground_velocity * t`).
#[derive(Clone, Copy, Debug)]
struct Plant {
    start: f32,
    end: f32,
    anchor: Vec3,
}

/// Smoothstep from 0 at `a` to 1 at `b`.
fn smoothstep(a: f32, b: f32, t: f32) -> f32 {
    if b <= a {
        return if t >= b { 1.0 } else { 0.0 };
    }
    let u = ((t - a) / (b - a)).clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

impl Plant {
    /// Its weight at `t`: 1 over the plant, easing over `blend` seconds on each side.
    fn weight(&self, t: f32, blend: f32) -> f32 {
        if t < self.start {
            smoothstep(self.start - blend, self.start, t)
        } else if t > self.end {
            1.0 - smoothstep(self.end, self.end + blend, t)
        } else {
            1.0
        }
    }
}

/// Cleans up the foot skate of `clip` on `character`, its contacts found with `contact`.
pub fn fix_skate(
    character: &Character,
    clip: &Clip,
    fix: &SkateFix,
    contact: &ContactSettings,
) -> Result<(Clip, SkateFixReport), String> {
    if !(fix.plant_blend_s.is_finite() && fix.plant_blend_s >= 0.0) {
        return Err(format!(
            "plant blend {} s: must be 0 or more seconds",
            fix.plant_blend_s
        ));
    }
    if !(fix.max_stretch_pct.is_finite()
        && (0.0..=crate::core::clip_pass::MAX_STRETCH_PCT).contains(&fix.max_stretch_pct))
    {
        return Err(format!(
            "max stretch {} %: must be within 0 to {} %",
            fix.max_stretch_pct,
            crate::core::clip_pass::MAX_STRETCH_PCT
        ));
    }
    let rig = FootLockRig::bind(character);
    if let Some(problem) = &rig.problem {
        return Err(format!("the skate clean-up needs both legs: {problem}"));
    }
    let hips = rig
        .hips
        .or_else(|| character.humanoid.joint(HumanBone::Hips))
        .ok_or("the character has no hips")?;
    let skeleton = &character.skeleton;
    let before = clip_skate(character, clip, FPS, contact, None)?;
    let ground_velocity = {
        let v = before.ground.velocity();
        Vec3::new(v.x, 0.0, v.z)
    };
    let grid = frames::pass_grid(clip, FPS);
    // Where a plant at the end stands in the ground's frame, against the same plant at the start of the next
    // cycle: the ground moved on by its velocity over the clip, the body by its root travel.
    let seam_shift = {
        let travel = match before.ground {
            crate::analysis::contacts::Ground::RootMotion => {
                let ends = frames::sample_frames(
                    clip,
                    skeleton,
                    Some(&character.humanoid),
                    vec![0.0, clip.duration],
                );
                let at = |k: usize| {
                    ends.poses[k].model_matrices(skeleton)[hips]
                        .w_axis
                        .truncate()
                };
                let d = at(1) - at(0);
                Vec3::new(d.x, 0.0, d.z)
            }
            _ => Vec3::ZERO,
        };
        ground_velocity * clip.duration - travel
    };
    super::check_sample_budget(
        grid.len() as u64,
        skeleton.len(),
        &format!("skate clean-up of clip '{}'", clip.name),
    )
    .map_err(|e| e.to_string())?;
    let source =
        frames::sample_frames(clip, skeleton, Some(&character.humanoid), grid.clone()).poses;
    let source_model: Vec<Vec<Mat4>> = source.iter().map(|p| p.model_matrices(skeleton)).collect();
    // Plants from the meter on the source; then, since a foot eased into its plant is slow and low a little
    // before it, the meter on the result finds contacts there too: those join the plants (merged per foot) and
    // the clean-up runs again from the source, until the meter finds nothing new.
    let mut intervals: Vec<Vec<[f32; 2]>> = rig
        .legs
        .iter()
        .map(|leg| contacts_of(&before, leg.foot_bone))
        .collect();
    let found = intervals.clone();
    let mut round = 0;
    let (out, after, poses, plants, stretch_used, pelvis_most) = loop {
        round += 1;
        let mut plants = plants_of(
            &rig,
            &intervals,
            &found,
            &grid,
            &source_model,
            ground_velocity,
        );
        if clip.looping {
            for leg_plants in &mut plants {
                join_across_seam(leg_plants, clip.duration, seam_shift);
            }
        }
        let (poses, stretch_used, pelvis_most) = hold(
            character,
            &rig,
            hips,
            &plants,
            &grid,
            &source,
            &source_model,
            ground_velocity,
            fix,
        );
        let out = frames::keyed_clip(character, clip, &grid, &poses);
        let after = clip_skate(character, &out, FPS, contact, None)?;
        let mut grown = false;
        for (leg, mine) in rig.legs.iter().zip(&mut intervals) {
            for found in contacts_of(&after, leg.foot_bone) {
                if !mine.iter().any(|m| m[0] <= found[0] && found[1] <= m[1]) {
                    mine.push(found);
                    grown = true;
                }
            }
            *mine = merged(std::mem::take(mine));
        }
        if !grown || round == PLANT_ROUNDS {
            break (out, after, poses, plants, stretch_used, pelvis_most);
        }
    };
    let fixed_model: Vec<Vec<Mat4>> = poses.iter().map(|p| p.model_matrices(skeleton)).collect();
    let mut largest: Vec<JointCorrection> = (0..skeleton.len())
        .map(|j| {
            let cm = source_model
                .iter()
                .zip(&fixed_model)
                .map(|(a, b)| crate::core::metric::max_vertex_error(&a[j..=j], &b[j..=j]))
                .fold(0.0, f32::max)
                * 100.0;
            JointCorrection {
                joint: skeleton.name(j).to_string(),
                cm,
            }
        })
        .collect();
    largest.sort_by(|a, b| b.cm.total_cmp(&a.cm));
    largest.truncate(5);
    Ok((
        out,
        SkateFixReport {
            before: SkateFigures::from(&before),
            after: SkateFigures::from(&after),
            plants: plants.iter().map(Vec::len).sum(),
            windows: plants
                .iter()
                .flatten()
                .map(|p| [p.start - fix.plant_blend_s, p.end + fix.plant_blend_s])
                .collect(),
            plant_blend_s: fix.plant_blend_s,
            stretch_pct: stretch_used * 100.0,
            pelvis_cm: pelvis_most * 100.0,
            largest,
            keys: grid.len(),
        },
    ))
}

/// How many times the plants may grow from the meter's reading of the result.
const PLANT_ROUNDS: usize = 12;

/// For a looping clip, a plant that runs to the end and one that starts at 0 are the same footfall: both are held
/// at one point, the mean of both (the end's moved on by `shift`, where the start's stands in the ground's frame).
fn join_across_seam(plants: &mut [Plant], duration: f32, shift: Vec3) {
    let edge = 1.5 / FPS;
    let n = plants.len();
    if n < 2 || plants[0].start > edge || plants[n - 1].end < duration - edge {
        return;
    }
    let (first, last) = (plants[0], plants[n - 1]);
    let first_span = (first.end - first.start).max(1e-3);
    let last_span = (last.end - last.start).max(1e-3);
    let joined =
        (first.anchor * first_span + (last.anchor + shift) * last_span) / (first_span + last_span);
    plants[0].anchor = joined;
    plants[n - 1].anchor = joined - shift;
}

/// A foot's contact intervals in a meter's report.
fn contacts_of(report: &SkateReport, foot: HumanBone) -> Vec<[f32; 2]> {
    report
        .feet
        .iter()
        .find(|f| f.human_bone == foot.name())
        .map_or_else(Vec::new, |f| f.contacts.clone())
}

/// Intervals sorted and those that overlap or touch joined.
fn merged(mut intervals: Vec<[f32; 2]>) -> Vec<[f32; 2]> {
    intervals.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let mut out: Vec<[f32; 2]> = Vec::with_capacity(intervals.len());
    for i in intervals {
        match out.last_mut() {
            Some(last) if i[0] <= last[1] + 1e-4 => last[1] = last[1].max(i[1]),
            _ => out.push(i),
        }
    }
    out
}

/// Each leg's plants over `intervals`, held at the mean of its contact point in the ground's frame over the part
/// of the plant the meter found on the source (`found`; the whole plant when it holds none of it): a plant grown
/// over its easing is still held where the foot stood.
fn plants_of(
    rig: &FootLockRig,
    intervals: &[Vec<[f32; 2]>],
    found: &[Vec<[f32; 2]>],
    grid: &[f32],
    source_model: &[Vec<Mat4>],
    ground_velocity: Vec3,
) -> Vec<Vec<Plant>> {
    rig.legs
        .iter()
        .zip(intervals.iter().zip(found))
        .map(|(leg, (intervals, found))| {
            intervals
                .iter()
                .filter_map(|&[start, end]| {
                    let mine = |t: f32| (start..=end).contains(&t);
                    let stood =
                        |t: f32| mine(t) && found.iter().any(|f| (f[0]..=f[1]).contains(&t));
                    let any_stood = grid.iter().any(|&t| stood(t));
                    let inside: Vec<Vec3> = grid
                        .iter()
                        .zip(source_model)
                        .filter(|(t, _)| if any_stood { stood(**t) } else { mine(**t) })
                        .map(|(&t, m)| m[leg.contact].w_axis.truncate() - ground_velocity * t)
                        .collect();
                    // Held a meter frame beyond each end too: the meter's central differences at a plant's ends
                    // read the frames beside it.
                    (!inside.is_empty()).then(|| Plant {
                        start: start - 1.0 / FPS,
                        end: end + 1.0 / FPS,
                        anchor: inside.iter().sum::<Vec3>() / inside.len() as f32,
                    })
                })
                .collect()
        })
        .collect()
}

/// The source's poses on `grid` with every plant held: the pelvis moved the least needed, legs stretched within
/// the cap, then solved; with the largest stretch used and the farthest pelvis move.
#[allow(clippy::too_many_arguments)]
fn hold(
    character: &Character,
    rig: &FootLockRig,
    hips: usize,
    plants: &[Vec<Plant>],
    grid: &[f32],
    source: &[Pose],
    source_model: &[Vec<Mat4>],
    ground_velocity: Vec3,
    fix: &SkateFix,
) -> (Vec<Pose>, f32, f32) {
    let skeleton = &character.skeleton;
    let max_stretch = fix.max_stretch_pct / 100.0;
    let (mut stretch_used, mut pelvis_most) = (0.0f32, 0.0f32);
    let mut poses: Vec<Pose> = Vec::with_capacity(grid.len());
    for (k, &t) in grid.iter().enumerate() {
        let mut pose = source[k].clone();
        let mut model = source_model[k].clone();
        // Where each planted ankle must go: its contact point pulled toward the plant's hold by the weight.
        let targets: Vec<Option<Vec3>> = rig
            .legs
            .iter()
            .zip(plants)
            .map(|(leg, plants)| {
                let (w, plant) = plants
                    .iter()
                    .map(|p| (p.weight(t, fix.plant_blend_s), p))
                    .max_by(|a, b| a.0.total_cmp(&b.0))?;
                (w > 0.0).then(|| {
                    let contact = model[leg.contact].w_axis.truncate();
                    // Held across the ground; the height stays the source's, so a foot still lifts and lands
                    // when it did.
                    let hold = plant.anchor + ground_velocity * t;
                    let pull = Vec3::new(hold.x - contact.x, 0.0, hold.z - contact.z);
                    model[leg.ankle].w_axis.truncate() + pull * w
                })
            })
            .collect();
        // The pelvis moves the least needed for both ankles to reach (alternating projections onto each leg's
        // reach, stretched by the cap).
        let mut shift = Vec3::ZERO;
        for _ in 0..8 {
            for (leg, target) in rig.legs.iter().zip(&targets) {
                let Some(target) = target else { continue };
                let reach = leg_length(&model, leg) * (1.0 + max_stretch) * 0.9999;
                let d = *target - (model[leg.hip].w_axis.truncate() + shift);
                if d.length() > reach {
                    shift += d.normalize() * (d.length() - reach);
                }
            }
        }
        if shift.length_squared() > 0.0 {
            let parent = skeleton
                .parent(hips)
                .map_or(skeleton.root_transform(), |p| model[p]);
            pose.local[hips].translation +=
                glam::Vec3A::from(parent.inverse().transform_vector3(shift));
            refresh(skeleton, &pose.local, &mut model, hips);
            pelvis_most = pelvis_most.max(shift.length());
        }
        for (leg, target) in rig.legs.iter().zip(&targets) {
            let Some(target) = *target else { continue };
            let length = leg_length(&model, leg);
            let distance = (target - model[leg.hip].w_axis.truncate()).length();
            if distance > length && max_stretch > 0.0 {
                let s = (distance / length).min(1.0 + max_stretch);
                pose.local[leg.knee].translation *= s;
                pose.local[leg.ankle].translation *= s;
                refresh(skeleton, &pose.local, &mut model, leg.hip);
                stretch_used = stretch_used.max(s - 1.0);
            }
            solve_leg(skeleton, leg, target, &mut pose.local, &mut model);
        }
        poses.push(pose);
    }
    (poses, stretch_used, pelvis_most)
}
