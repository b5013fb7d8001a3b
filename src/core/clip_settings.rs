//! Clip settings, as Unity's Animation clip inspector has them: a start/end crop, a cycle offset and Loop Pose
//! (the end blended into the start so the loop does not pop). They make a new clip from a source clip, which is
//! what plays, bakes and exports.
//!
//! Each channel keeps the source's key times inside the crop (shifted to start at 0), plus keys at the crop's
//! ends, sampled exactly; cycle offset turns the loop so it starts `cycle_offset` of the way in, with a key at the
//! seam. Loop Pose adds to each channel a correction growing linearly over the clip from nothing at the start to
//! the start-minus-end difference at the end (rotations: that fraction of the end-to-start turn, applied on the
//! parent side), so the end equals the start. Cubic channels come out linear at their own keys.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::clip::{Interpolation, KeyValue, Keys};
use super::{Clip, Track};

/// Time between the two keys at a cycle offset's seam (the source's end, then its start): the last SEAM_GAP
/// before the seam runs that much faster.
pub const SEAM_GAP: f32 = 1e-4;

/// One clip's settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClipSettings {
    /// Crop start, seconds of the source clip (None: its start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<f32>,
    /// Crop end, seconds of the source clip (None: its end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<f32>,
    /// Where the loop starts, as a fraction of the (cropped) clip in [0, 1) (Unity's Cycle Offset).
    pub cycle_offset: f32,
    /// Blend the end into the start (Unity's Loop Pose).
    pub loop_pose: bool,
    /// Left and right swapped and the motion reflected (Unity's Mirror): needs the character, so
    /// [`ClipSettings::apply`] leaves it to `offline::mirror::apply_settings`.
    pub mirror: bool,
    /// Root rotation baked into the pose: the hips' turn about the vertical from start to end is taken out,
    /// evenly over the clip, so the clip ends facing as it starts (Unity's Root Transform Rotation, Bake Into Pose).
    pub bake_root_rotation: bool,
    /// Root height baked into the pose: the hips' rise or fall from start to end is taken out evenly (Root
    /// Transform Position (Y)).
    pub bake_root_y: bool,
    /// Root travel baked into the pose: the hips' horizontal travel from start to end is taken out evenly, so the
    /// clip plays in place (Root Transform Position (XZ)).
    pub bake_root_xz: bool,
}

/// Why settings cannot apply to a clip.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClipSettingsError {
    /// The crop is empty, reversed or outside the clip.
    #[error(
        "crop {start}..{end} s is not a part of the clip's 0..{duration} s (start must be before end)"
    )]
    Crop {
        /// Start asked for.
        start: f32,
        /// End asked for.
        end: f32,
        /// The clip's length.
        duration: f32,
    },
    /// The cycle offset is not in [0, 1).
    #[error("cycle offset {0} is not within [0, 1)")]
    CycleOffset(f32),
}

impl ClipSettings {
    /// True when the settings change nothing.
    pub fn is_identity(&self) -> bool {
        *self == ClipSettings::default()
    }

    /// The crop on a clip of `duration` seconds, checked.
    pub fn range(&self, duration: f32) -> Result<(f32, f32), ClipSettingsError> {
        let (a, b) = (self.start.unwrap_or(0.0), self.end.unwrap_or(duration));
        if !(a.is_finite() && b.is_finite() && a >= 0.0 && b <= duration + 1e-4 && a < b) {
            return Err(ClipSettingsError::Crop {
                start: a,
                end: b,
                duration,
            });
        }
        Ok((a, b.min(duration)))
    }

    /// The clip these settings make of `clip` (named as it), all but the mirror.
    pub fn apply(&self, clip: &Clip) -> Result<Clip, ClipSettingsError> {
        if !(self.cycle_offset.is_finite() && (0.0..1.0).contains(&self.cycle_offset)) {
            return Err(ClipSettingsError::CycleOffset(self.cycle_offset));
        }
        if (ClipSettings {
            mirror: false,
            ..self.clone()
        })
        .is_identity()
        {
            return Ok(clip.clone());
        }
        let (a, b) = self.range(clip.duration)?;
        let d = b - a;
        let shift = self.cycle_offset * d;
        let tracks = clip
            .tracks
            .iter()
            .map(|t| Track {
                target: t.target.clone(),
                translation: t
                    .translation
                    .as_ref()
                    .map(|k| self.channel(k, a, d, shift, loop_vec)),
                rotation: t
                    .rotation
                    .as_ref()
                    .map(|k| self.channel(k, a, d, shift, loop_quat)),
                scale: t
                    .scale
                    .as_ref()
                    .map(|k| self.channel(k, a, d, shift, loop_vec)),
            })
            .collect();
        let mut out = Clip::new(clip.name.clone(), tracks);
        out.duration = d;
        out.facing_yaw = clip.facing_yaw;
        self.bake_root(&mut out);
        Ok(out)
    }

    /// Takes the root's drift (travel, height change, turn) out of the clip, as the bake flags ask: the track of
    /// the hips (its humanoid bone), else of the first root joint.
    fn bake_root(&self, clip: &mut Clip) {
        if !(self.bake_root_rotation || self.bake_root_y || self.bake_root_xz) {
            return;
        }
        let d = clip.duration;
        let root = clip
            .tracks
            .iter()
            .position(|t| t.target.human_bone == Some(super::HumanBone::Hips))
            .or_else(|| {
                clip.tracks
                    .iter()
                    .position(|t| !t.target.path.contains('/'))
            });
        let Some(track) = root.map(|r| &mut clip.tracks[r]) else {
            return;
        };
        if d <= 0.0 {
            return;
        }
        let mask = Vec3::new(
            f32::from(u8::from(self.bake_root_xz)),
            f32::from(u8::from(self.bake_root_y)),
            f32::from(u8::from(self.bake_root_xz)),
        );
        if let Some(k) = track.translation.as_mut().filter(|_| mask != Vec3::ZERO) {
            let drift = (k.sample(d) - k.sample(0.0)) * mask;
            *k = map_keys(k, |t, v| v - drift * (t / d));
        }
        if let Some(k) = track.rotation.as_mut().filter(|_| self.bake_root_rotation) {
            let yaw = |q: Quat| {
                let f = q * Vec3::Z;
                f.x.atan2(f.z)
            };
            let mut turn = yaw(k.sample(d)) - yaw(k.sample(0.0));
            turn = (turn + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                - std::f32::consts::PI;
            *k = map_keys(k, |t, q| {
                (Quat::from_rotation_y(-turn * t / d) * q).normalize()
            });
        }
    }

    /// One channel cropped to `[a, a + d]`, turned by `shift` seconds and, with Loop Pose, corrected by `fix`.
    fn channel<T: KeyValue>(
        &self,
        keys: &Keys<T>,
        a: f32,
        d: f32,
        shift: f32,
        fix: fn(T, T, T, f32) -> T,
    ) -> Keys<T> {
        // (output time in [0, d], the source time it reads): the source's keys inside the crop, turned by the
        // offset; both ends; and with an offset the seam, where the source's start follows its end SEAM_GAP later
        // (key times are strictly increasing).
        let mut points: Vec<(f32, f32)> = keys
            .times()
            .iter()
            .filter(|&&k| k > a && k < a + d)
            .map(|&k| {
                let u = k - a - shift;
                (if u < 0.0 { u + d } else { u }, k)
            })
            .collect();
        let end_source = if shift > 0.0 { a + shift } else { a + d };
        points.extend([(0.0, a + shift), (d, end_source)]);
        if shift > 0.0 {
            points.extend([(d - shift - SEAM_GAP, a + d), (d - shift, a)]);
        }
        points.sort_by(|x, y| x.0.total_cmp(&y.0));
        points.dedup_by(|x, y| x.0 - y.0 < SEAM_GAP * 0.5);
        let first = keys.sample(points[0].1);
        let last = keys.sample(points[points.len() - 1].1);
        let times: Vec<f32> = points.iter().map(|p| p.0).collect();
        let values: Vec<T> = points
            .iter()
            .map(|&(t, src)| {
                let v = keys.sample(src);
                if self.loop_pose && d > 0.0 {
                    fix(v, first, last, t / d)
                } else {
                    v
                }
            })
            .collect();
        let interpolation = match keys.interpolation() {
            Interpolation::Step => Interpolation::Step,
            _ => Interpolation::Linear,
        };
        Keys::new(times, values, interpolation).unwrap_or_else(|_| keys.clone())
    }
}

/// `keys` with each value replaced by `f(time, value)`, linear (cubic tangents would no longer fit).
fn map_keys<T: KeyValue>(keys: &Keys<T>, f: impl Fn(f32, T) -> T) -> Keys<T> {
    let times = keys.times().to_vec();
    let values = times
        .iter()
        .enumerate()
        .map(|(i, &t)| f(t, keys.key_value(i)))
        .collect();
    let interpolation = match keys.interpolation() {
        Interpolation::Step => Interpolation::Step,
        _ => Interpolation::Linear,
    };
    Keys::new(times, values, interpolation).unwrap_or_else(|_| keys.clone())
}

/// Loop Pose for vectors: `v + f·(first − last)`.
fn loop_vec(v: Vec3, first: Vec3, last: Vec3, f: f32) -> Vec3 {
    v + (first - last) * f
}

/// Loop Pose for rotations: `slerp(1, first·last⁻¹, f)·q`, so the end becomes the start.
fn loop_quat(q: Quat, first: Quat, last: Quat, f: f32) -> Quat {
    let turn = (first * last.inverse()).normalize();
    let turn = if turn.w < 0.0 { -turn } else { turn };
    (Quat::IDENTITY.slerp(turn, f) * q).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip() -> Clip {
        let target = super::super::TrackTarget::at_identity("bone");
        let times = vec![0.0, 0.5, 1.0, 2.0];
        let tracks = vec![Track {
            target,
            translation: Some(
                Keys::new(
                    times.clone(),
                    vec![
                        Vec3::ZERO,
                        Vec3::new(1.0, 0.0, 0.0),
                        Vec3::new(2.0, 1.0, 0.0),
                        Vec3::new(4.0, 0.0, 0.0),
                    ],
                    Interpolation::Linear,
                )
                .unwrap(),
            ),
            rotation: Some(
                Keys::new(
                    times,
                    [0.0f32, 0.4, 0.9, 1.2].map(Quat::from_rotation_y).to_vec(),
                    Interpolation::Linear,
                )
                .unwrap(),
            ),
            scale: None,
        }];
        Clip::new("c", tracks)
    }

    fn at(c: &Clip, t: f32) -> (Vec3, Quat) {
        let tr = &c.tracks[0];
        (
            tr.translation.as_ref().unwrap().sample(t),
            tr.rotation.as_ref().unwrap().sample(t),
        )
    }

    #[test]
    fn baking_the_root_into_the_pose_takes_out_its_travel_height_and_turn() {
        let source = clip();
        let baked = ClipSettings {
            bake_root_xz: true,
            bake_root_rotation: true,
            ..Default::default()
        }
        .apply(&source)
        .unwrap();
        let (start, end) = (at(&baked, 0.0), at(&baked, 2.0));
        assert!(
            start.0.abs_diff_eq(end.0, 1e-5),
            "no travel: {start:?} {end:?}"
        );
        assert!(start.1.angle_between(end.1) < 1e-3, "no turn");
        // Height was not asked for: the source's y stays (it ends where it started here anyway).
        assert!((at(&baked, 1.0).0.y - at(&source, 1.0).0.y).abs() < 1e-6);
    }

    #[test]
    fn a_crop_plays_the_part_from_zero() {
        let source = clip();
        let cropped = ClipSettings {
            start: Some(0.25),
            end: Some(1.5),
            ..Default::default()
        }
        .apply(&source)
        .unwrap();
        assert!((cropped.duration - 1.25).abs() < 1e-6);
        for k in 0..=25 {
            let t = k as f32 * 0.05;
            let (a, b) = (at(&cropped, t), at(&source, 0.25 + t));
            assert!(a.0.abs_diff_eq(b.0, 1e-5), "{t}: {a:?} {b:?}");
            assert!(a.1.angle_between(b.1) < 1e-3, "{t}");
        }
        let bad = ClipSettings {
            start: Some(1.5),
            end: Some(1.0),
            ..Default::default()
        };
        assert!(bad.apply(&source).is_err());
    }

    #[test]
    fn a_cycle_offset_starts_the_loop_later() {
        let source = clip();
        let turned = ClipSettings {
            cycle_offset: 0.25,
            ..Default::default()
        }
        .apply(&source)
        .unwrap();
        for k in 0..=40 {
            let t = k as f32 * 0.05;
            let u = (t + 0.5) % 2.0;
            let (a, b) = (at(&turned, t), at(&source, u));
            // (Just before the seam the source's end comes SEAM_GAP early: up to 2e-4 here.)
            assert!(
                a.0.abs_diff_eq(b.0, 5e-4),
                "{t}: {a:?} vs source at {u}: {b:?}"
            );
        }
    }

    #[test]
    fn loop_pose_makes_the_end_the_start() {
        let source = clip();
        let looped = ClipSettings {
            loop_pose: true,
            ..Default::default()
        }
        .apply(&source)
        .unwrap();
        let (start, end) = (at(&looped, 0.0), at(&looped, 2.0));
        assert!(start.0.abs_diff_eq(end.0, 1e-5), "{start:?} {end:?}");
        assert!(start.1.angle_between(end.1) < 1e-3);
        assert_eq!(at(&looped, 0.0), at(&source, 0.0), "the start is untouched");
        assert!(ClipSettings::default().is_identity());
        assert_eq!(ClipSettings::default().apply(&source).unwrap(), source);
    }
}
