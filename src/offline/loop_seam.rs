//! The loop-seam fix: a clip whose end does not meet its start (a crop, a take that was never a loop) made to loop
//! with no kick. Loop Pose matches the pose only, spreading the difference linearly over the whole clip, so the
//! velocity still jumps at the seam; this pass matches pose and velocity, each joint's channel corrected by a cubic
//! that starts flat a window before the seam, meets the other side's pose and velocity halfway at the seam, and
//! ends flat a window after it (half the difference on each side).
//!
//! Contract: the new clip keys every joint linearly on the source's own keys when they lie on one uniform grid,
//! else on a 60 fps grid plus the source's key times; outside the two windows it is the source. The root's
//! horizontal travel over the cycle is not a seam (a walk ends where it walked to): when the hips travel faster
//! than [`TRAVEL_SPEED`] their horizontal position is matched in velocity only. Rotations are corrected on the parent side, as Loop Pose corrects them. The report
//! gives the seam before and after at 3 cm virtual points: the pose gap (cm) and the velocity jump (cm/s).

use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

use super::frames;
use crate::core::clip_pass::LoopFix;
use crate::core::humanoid::HumanBone;
use crate::core::metric::VIRTUAL_VERTEX_DISTANCE;
use crate::core::{Character, Clip, Pose};

/// The grid rate of a source whose keys do not lie on one uniform grid.
const GRID_FPS: f32 = 60.0;
/// How many times the jump is read again and corrected (each round leaves a fraction of it).
const JUMP_ROUNDS: usize = 8;
/// The step the seam's velocities are read over, seconds.
const VELOCITY_STEP: f32 = 1.0 / 60.0;

/// What the fix did (centimetres, centimetres per second, at 3 cm virtual points).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopFixReport {
    /// The window on each side of the seam, seconds (as asked, or clamped to two keys and half the clip).
    pub window_s: f32,
    /// The end's distance from the start, the root's horizontal travel aside (the loop-match figure).
    pub seam_before_cm: f32,
    /// See `seam_before_cm`.
    pub seam_after_cm: f32,
    /// The largest jump in velocity across the seam.
    pub seam_speed_before_cm_s: f32,
    /// See `seam_speed_before_cm_s`.
    pub seam_speed_after_cm_s: f32,
    /// The most any point moved from the source (inside the windows).
    pub largest_change_cm: f32,
    /// Keys of the new clip's grid.
    pub keys: usize,
}

impl LoopFixReport {
    /// The seam before and after, in one line.
    pub fn brief(&self) -> String {
        format!(
            "seam {:.4} cm and {:.2} cm/s (was {:.4} cm and {:.2} cm/s), spread over {:.2} s each side; nothing \
             moved more than {:.3} cm",
            self.seam_after_cm,
            self.seam_speed_after_cm_s,
            self.seam_before_cm,
            self.seam_speed_before_cm_s,
            self.window_s,
            self.largest_change_cm
        )
    }
}

/// Why the fix cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LoopFixError {
    /// The clip is too short to have a seam and a window.
    #[error("clip '{0}' is too short to loop (it needs two frames at least)")]
    TooShort(String),
    /// The window is not a positive number of seconds.
    #[error("loop window {0} s: must be a positive number of seconds")]
    Window(f32),
    /// The grid would be too large.
    #[error("{0}")]
    Budget(String),
}

/// The fix over `clip` as it plays on `character`: the new clip (same name, length, loop) and the report.
pub fn fix_loop(
    character: &Character,
    clip: &Clip,
    fix: &LoopFix,
) -> Result<(Clip, LoopFixReport), LoopFixError> {
    if !(fix.window_s.is_finite() && fix.window_s > 0.0) {
        return Err(LoopFixError::Window(fix.window_s));
    }
    let duration = clip.duration;
    if !(duration.is_finite() && duration > 2.0 * VELOCITY_STEP) {
        return Err(LoopFixError::TooShort(clip.name.clone()));
    }
    let skeleton = &character.skeleton;
    let humanoid = Some(&character.humanoid);
    let grid = frames::pass_grid(clip, GRID_FPS);
    super::check_sample_budget(
        grid.len() as u64,
        skeleton.len(),
        &format!("loop fix of clip '{}'", clip.name),
    )
    .map_err(|e| LoopFixError::Budget(e.to_string()))?;
    if grid.len() < 3 {
        return Err(LoopFixError::TooShort(clip.name.clone()));
    }
    let n = grid.len() - 1;
    let (h_start, h_end) = (grid[1] - grid[0], grid[n] - grid[n - 1]);
    // At least two keys on each side, or the slopes at the seam could not change.
    let window = fix
        .window_s
        .max(2.0 * h_start.max(h_end))
        .min(duration / 2.0);
    let root = crate::blend::sampler::root_motion_joint(character);
    let hips = character.humanoid.joint(HumanBone::Hips).or(root);
    let mut poses: Vec<Pose> = frames::sample_frames(clip, skeleton, humanoid, grid.clone()).poses;
    // The gap and the jump as a linear reading of the grid plays them: the first and the last key, and the
    // slopes of the first and the last interval. The gap is closed at once (the jump's part is nothing at the
    // seam); a cubic's slope over one interval is not its slope at the seam, so the jump is read again and
    // corrected until it is gone.
    for round in 0..JUMP_ROUNDS {
        let close_gap = round == 0;
        for j in 0..skeleton.len() {
            let local = |k: usize| poses[k].local[j];
            let (first, second, before_last, last) = (local(0), local(1), local(n - 1), local(n));
            let mut t_gap = Vec3::from(first.translation - last.translation);
            if Some(j) == hips && travels(t_gap, duration) {
                t_gap.x = 0.0;
                t_gap.z = 0.0;
            }
            let t_jump = Vec3::from(second.translation - first.translation) / h_start
                - Vec3::from(last.translation - before_last.translation) / h_end;
            let s_gap = Vec3::from(first.scale - last.scale);
            let s_jump = Vec3::from(second.scale - first.scale) / h_start
                - Vec3::from(last.scale - before_last.scale) / h_end;
            // Rotation: on the parent side, in scaled-axis form.
            let turn = |from: Quat, to: Quat| shortest(to * from.inverse()).to_scaled_axis();
            let r_gap = turn(last.rotation, first.rotation);
            let r_jump = turn(first.rotation, second.rotation) / h_start
                - turn(before_last.rotation, last.rotation) / h_end;
            let gap_share = if close_gap { 1.0 } else { 0.0 };
            for (&t, pose) in grid.iter().zip(&mut poses) {
                let Some((at_gap, at_jump)) = correction(t, duration, window) else {
                    continue;
                };
                let at_gap = at_gap * gap_share;
                let l = &mut pose.local[j];
                l.translation += glam::Vec3A::from(t_gap * at_gap + t_jump * at_jump);
                l.scale += glam::Vec3A::from(s_gap * at_gap + s_jump * at_jump);
                l.rotation = (Quat::from_scaled_axis(r_gap * at_gap + r_jump * at_jump)
                    * l.rotation)
                    .normalize();
            }
        }
    }
    let out = frames::keyed_clip(character, clip, &grid, &poses);
    let before = seam(character, clip);
    let after = seam(character, &out);
    let largest_change_cm = super::measure::point_errors(character, clip, &out, &grid, None)
        .into_iter()
        .fold(0.0, f32::max)
        * 100.0;
    Ok((
        out,
        LoopFixReport {
            window_s: window,
            seam_before_cm: before.0 * 100.0,
            seam_after_cm: after.0 * 100.0,
            seam_speed_before_cm_s: before.1 * 100.0,
            seam_speed_after_cm_s: after.1 * 100.0,
            largest_change_cm,
            keys: grid.len(),
        },
    ))
}

/// The slowest root travel, metres per second, that counts as travel rather than a gap at the seam: an in-place
/// clip's hips sway a few centimetres over a cycle, a walk travels a metre a second.
const TRAVEL_SPEED: f32 = 0.1;

/// True when the root's horizontal displacement `d` over a clip of `duration` seconds is travel (the clip moves
/// on), not a gap to close.
fn travels(d: Vec3, duration: f32) -> bool {
    d.x.hypot(d.z) >= TRAVEL_SPEED * duration
}

/// `q` or `-q`, whichever turns the short way (non-negative w).
fn shortest(q: Quat) -> Quat {
    if q.w < 0.0 { -q } else { q }
}

/// How much of the gap and of the jump the correction adds at `t` (None outside both windows): the cubic Hermite
/// from nothing (flat) a window before the seam to half the gap, with half the jump as its slope, at the end; and
/// from minus half the gap (minus half the jump as its slope) at the start to nothing (flat) a window after it.
fn correction(t: f32, duration: f32, window: f32) -> Option<(f32, f32)> {
    if t >= duration - window {
        let u = ((t - (duration - window)) / window).clamp(0.0, 1.0);
        let (h01, h11) = (-2.0 * u.powi(3) + 3.0 * u * u, u.powi(3) - u * u);
        Some((0.5 * h01, 0.5 * window * h11))
    } else if t <= window {
        let u = (t / window).clamp(0.0, 1.0);
        let (h00, h10) = (
            2.0 * u.powi(3) - 3.0 * u * u + 1.0,
            u.powi(3) - 2.0 * u * u + u,
        );
        Some((-0.5 * h00, -0.5 * window * h10))
    } else {
        None
    }
}

/// The seam of `clip` on `character` in metres and metres per second at 3 cm virtual points: how far the end is
/// from the start (the root's horizontal travel aside) and the largest jump between the velocities a
/// [`VELOCITY_STEP`] before the end and after the start.
pub fn seam(character: &Character, clip: &Clip) -> (f32, f32) {
    let skeleton = &character.skeleton;
    let d = clip.duration;
    let h = VELOCITY_STEP.min(d / 2.0);
    let mut f = frames::sample_frames(
        clip,
        skeleton,
        Some(&character.humanoid),
        vec![0.0, h, d - h, d],
    );
    // The root's horizontal travel over the cycle taken off the end's frames.
    if let Some(root) = crate::blend::sampler::root_motion_joint(character)
        && let travel = f.poses[3].local[root].translation - f.poses[0].local[root].translation
        && travels(Vec3::from(travel), d)
    {
        for k in [2, 3] {
            let t = &mut f.poses[k].local[root].translation;
            t.x -= travel.x;
            t.z -= travel.z;
        }
    }
    let points: Vec<Vec<Vec3>> = f
        .poses
        .iter()
        .map(|p| virtual_points(&p.model_matrices(skeleton)))
        .collect();
    let gap = points[0]
        .iter()
        .zip(&points[3])
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f32::max);
    let jump = (0..points[0].len())
        .map(|i| {
            let start = (points[1][i] - points[0][i]) / h;
            let end = (points[3][i] - points[2][i]) / h;
            start.distance(end)
        })
        .fold(0.0, f32::max);
    (gap, jump)
}

/// The three virtual points 3 cm from each joint along its axes, in model space.
fn virtual_points(model: &[Mat4]) -> Vec<Vec3> {
    model
        .iter()
        .flat_map(|m| {
            [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| {
                let len = m.transform_vector3(axis).length().max(1e-12);
                m.transform_point3(axis * (VIRTUAL_VERTEX_DISTANCE / len))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ClipSettings;

    /// Per joint, the wrapped second difference of its model position across the seam and the largest inside the
    /// clip, sampled at `fps` (the clip's length a whole number of frames at that rate).
    fn accelerations(character: &Character, clip: &Clip, fps: f32) -> Vec<(f32, f32)> {
        let skeleton = &character.skeleton;
        let times = frames::uniform_times(clip.duration, fps);
        let n = times.len() - 1;
        let f = frames::sample_frames(clip, skeleton, Some(&character.humanoid), times);
        let positions: Vec<Vec<Vec3>> = f
            .poses
            .iter()
            .map(|p| {
                p.model_matrices(skeleton)
                    .iter()
                    .map(|m| m.w_axis.truncate())
                    .collect()
            })
            .collect();
        (0..skeleton.len())
            .map(|j| {
                let p = |k: usize| positions[k][j];
                let seam = (p(1) - 2.0 * p(0) + p(n - 1)).length();
                let inside = (1..n)
                    .map(|k| (p(k + 1) - 2.0 * p(k) + p(k - 1)).length())
                    .fold(0.0, f32::max);
                (seam, inside)
            })
            .collect()
    }

    #[test]
    fn a_cropped_walk_loops_with_no_gap_and_no_kick_after_the_fix() {
        let model = crate::import::load_file(&crate::test_support::quaternius()).unwrap();
        let c = &model.character;
        let walk = model.clips.iter().find(|k| k.name == "Walk_Loop").unwrap();
        let cropped = ClipSettings {
            end: Some(1.0),
            ..Default::default()
        }
        .apply(walk)
        .unwrap();
        let open = accelerations(c, &cropped, 30.0);
        assert!(
            open.iter().any(|(seam, inside)| seam > inside),
            "the cropped walk kicks at its seam"
        );
        let (fixed, report) = fix_loop(c, &cropped, &LoopFix::default()).unwrap();
        assert!(report.seam_before_cm > 1.0, "{report:?}");
        assert!(report.seam_after_cm <= 0.01, "{report:?}");
        assert!(
            report.seam_speed_after_cm_s < 0.1 * report.seam_speed_before_cm_s,
            "{report:?}"
        );
        for (j, (seam, inside)) in accelerations(c, &fixed, 30.0).into_iter().enumerate() {
            assert!(
                seam <= inside + 1e-6,
                "{}: {seam} m/frame² across the seam, {inside} inside",
                c.skeleton.name(j)
            );
        }
        // Outside the windows the clip is the source.
        let middle = frames::sample_frames(&cropped, &c.skeleton, Some(&c.humanoid), vec![0.5]);
        let after = frames::sample_frames(&fixed, &c.skeleton, Some(&c.humanoid), vec![0.5]);
        let moved = crate::core::metric::max_vertex_error(
            &middle.poses[0].model_matrices(&c.skeleton),
            &after.poses[0].model_matrices(&c.skeleton),
        );
        assert!(moved < 1e-5, "{moved} m at mid-clip");
    }

    #[test]
    fn a_travelling_walk_keeps_its_travel_and_loops_in_velocity() {
        let model = crate::demo::mannequin::load();
        let c = &model.character;
        let walk = model
            .clips
            .iter()
            .find(|k| k.name == "WalkForward")
            .unwrap();
        let cropped = ClipSettings {
            start: Some(0.1),
            end: Some(0.8),
            ..Default::default()
        }
        .apply(walk)
        .unwrap();
        let (fixed, report) = fix_loop(c, &cropped, &LoopFix::default()).unwrap();
        let hips = c.humanoid.joint(HumanBone::Hips).unwrap();
        let travel = |clip: &Clip| {
            let f = frames::sample_frames(
                clip,
                &c.skeleton,
                Some(&c.humanoid),
                vec![0.0, clip.duration],
            );
            f.poses[1].local[hips].translation - f.poses[0].local[hips].translation
        };
        let (before, after) = (travel(&cropped), travel(&fixed));
        assert!(before.z.abs() > 0.3, "the walk travels: {before}");
        assert!(
            (after.x - before.x).abs() < 1e-4 && (after.z - before.z).abs() < 1e-4,
            "{after} against {before}"
        );
        assert!(report.seam_after_cm <= 0.01, "{report:?}");
        assert!(
            report.seam_speed_after_cm_s < 0.1 * report.seam_speed_before_cm_s,
            "{report:?}"
        );
    }

    #[test]
    fn the_correction_is_flat_at_the_far_ends_and_meets_halfway_at_the_seam() {
        let (d, w) = (2.0, 0.4);
        assert_eq!(correction(1.0, d, w), None);
        let (gap, jump) = correction(d - w, d, w).unwrap();
        assert!(gap.abs() < 1e-6 && jump.abs() < 1e-6);
        let (gap, jump) = correction(d, d, w).unwrap();
        assert!((gap - 0.5).abs() < 1e-6 && jump.abs() < 1e-6);
        let (gap, jump) = correction(0.0, d, w).unwrap();
        assert!((gap + 0.5).abs() < 1e-6 && jump.abs() < 1e-6);
        let (gap, jump) = correction(w, d, w).unwrap();
        assert!(gap.abs() < 1e-6 && jump.abs() < 1e-6);
        assert!(
            fix_loop(
                &crate::demo::mannequin::load().character,
                &crate::demo::mannequin::load().clips[0],
                &LoopFix { window_s: -1.0 }
            )
            .is_err()
        );
    }
}
