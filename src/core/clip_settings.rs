//! Clip settings, as Unity's Animation clip inspector has them: a name, a start/end crop, Loop Time, a cycle
//! offset, Loop Pose (the end blended into the start so the loop does not pop), Mirror and the root transform's
//! Bake Into Pose and offsets. They make a new clip from a source clip, which is what plays, bakes and exports.
//!
//! Each channel keeps the source's key times inside the crop (shifted to start at 0), plus keys at the crop's
//! ends, sampled exactly; cycle offset turns the loop so it starts `cycle_offset` of the way in, with a key at the
//! seam. Loop Pose adds to each channel a correction growing linearly over the clip from nothing at the start to
//! the start-minus-end difference at the end (rotations: that fraction of the end-to-start turn, applied on the
//! parent side), so the end equals the start. Cubic channels come out linear at their own keys.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::clip::{Interpolation, KeyValue, Keys};
use super::morph::MorphTrack;
use super::{Clip, Track};

/// Time between the two keys at a cycle offset's seam (the source's end, then its start): the last SEAM_GAP
/// before the seam runs that much faster.
pub const SEAM_GAP: f32 = 1e-4;

/// The largest root position offset (metres): beyond it a clip is somewhere no view or bake follows it to.
pub const MAX_ROOT_OFFSET_M: f32 = 10_000.0;

/// One clip's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClipSettings {
    /// The clip's new name (None: the source's): what the editor lists, blend nodes and layers name, and bakes
    /// write (Unity's clip name field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Crop start, seconds of the source clip (None: its start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<f32>,
    /// Crop end, seconds of the source clip (None: its end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<f32>,
    /// The clip loops (Unity's Loop Time); off, it plays once and holds its last pose, in the editor, as a blend
    /// node or layer with its own time, and in a bake longer than the clip.
    pub loop_time: bool,
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
    /// Turn of the whole clip about the vertical through the character's origin, degrees, counter-clockwise seen
    /// from above (Root Transform Rotation, Offset).
    pub root_rotation_offset: f32,
    /// Metres added to the root's height (Root Transform Position (Y), Offset).
    pub root_y_offset: f32,
    /// Metres added to the root's horizontal position, x then z (Root Transform Position (XZ), which has no
    /// offset in Unity: ours, for symmetry with Y).
    pub root_xz_offset: [f32; 2],
}

impl Default for ClipSettings {
    fn default() -> Self {
        ClipSettings {
            name: None,
            start: None,
            end: None,
            loop_time: true,
            cycle_offset: 0.0,
            loop_pose: false,
            mirror: false,
            bake_root_rotation: false,
            bake_root_y: false,
            bake_root_xz: false,
            root_rotation_offset: 0.0,
            root_y_offset: 0.0,
            root_xz_offset: [0.0; 2],
        }
    }
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
    /// A root offset is not a finite number, or moves the root further than [`MAX_ROOT_OFFSET_M`].
    #[error("root offsets must be finite, and the position offsets within ±{MAX_ROOT_OFFSET_M} m")]
    Offset,
    /// The name is empty or only blanks.
    #[error("a clip name cannot be empty")]
    Name,
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

    /// What the settings change, in words (empty when nothing): "renamed Stride, cropped 0.500–2.500 s, Loop Time
    /// off, mirrored…", for the export window and reports.
    pub fn summary(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(name) = &self.name {
            out.push(format!("renamed {name}"));
        }
        if self.start.is_some() || self.end.is_some() {
            let end = self
                .end
                .map_or("its end".to_string(), |e| format!("{e:.3} s"));
            out.push(format!(
                "cropped {:.3} s to {end}",
                self.start.unwrap_or(0.0)
            ));
        }
        if !self.loop_time {
            out.push("Loop Time off (plays once, holds its end)".into());
        }
        if self.cycle_offset != 0.0 {
            out.push(format!("cycle offset {:.2}", self.cycle_offset));
        }
        if self.loop_pose {
            out.push("Loop Pose".into());
        }
        if self.mirror {
            out.push("mirrored".into());
        }
        let baked: Vec<&str> = [
            (self.bake_root_rotation, "rotation"),
            (self.bake_root_y, "Y"),
            (self.bake_root_xz, "XZ"),
        ]
        .into_iter()
        .filter_map(|(on, what)| on.then_some(what))
        .collect();
        if !baked.is_empty() {
            out.push(format!("root {} baked into pose", baked.join(", ")));
        }
        if self.root_rotation_offset != 0.0
            || self.root_y_offset != 0.0
            || self.root_xz_offset != [0.0, 0.0]
        {
            out.push("root offsets".into());
        }
        out
    }

    /// The name the clip takes under these settings.
    pub fn name_of<'a>(&'a self, source: &'a str) -> &'a str {
        self.name.as_deref().unwrap_or(source)
    }

    /// Only the keys change (no rename, Loop Time or mirror): what [`ClipSettings::apply`] recomputes.
    fn changes_keys(&self) -> bool {
        ClipSettings {
            name: None,
            loop_time: true,
            mirror: false,
            ..self.clone()
        } != ClipSettings::default()
    }

    /// The clip these settings make of `clip`, all but the mirror.
    pub fn apply(&self, clip: &Clip) -> Result<Clip, ClipSettingsError> {
        if !(self.cycle_offset.is_finite() && (0.0..1.0).contains(&self.cycle_offset)) {
            return Err(ClipSettingsError::CycleOffset(self.cycle_offset));
        }
        let offsets = [
            self.root_rotation_offset,
            self.root_y_offset,
            self.root_xz_offset[0],
            self.root_xz_offset[1],
        ];
        if !offsets.iter().all(|v| v.is_finite())
            || offsets[1..].iter().any(|v| v.abs() > MAX_ROOT_OFFSET_M)
        {
            return Err(ClipSettingsError::Offset);
        }
        if self.name.as_ref().is_some_and(|n| n.trim().is_empty()) {
            return Err(ClipSettingsError::Name);
        }
        if !self.changes_keys() {
            let mut out = clip.clone();
            out.name = self.name_of(&clip.name).to_string();
            out.looping = self.loop_time;
            return Ok(out);
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
        let morph_tracks = clip
            .morph_tracks
            .iter()
            .map(|t| self.morph_channel(t, a, d, shift))
            .collect();
        let expression_tracks = clip
            .expression_tracks
            .iter()
            .map(|t| self.morph_channel(t, a, d, shift))
            .collect();
        let mut out = Clip::new(self.name_of(&clip.name), tracks)
            .with_morph_tracks(morph_tracks)
            .with_expression_tracks(expression_tracks);
        out.duration = d;
        out.facing_yaw = clip.facing_yaw;
        out.look_at = clip.look_at.clone();
        out.looping = self.loop_time;
        self.bake_root(&mut out);
        self.offset_root(&mut out);
        Ok(out)
    }

    /// The track of the root the root settings act on: the hips (its humanoid bone), else the first root joint.
    fn root_track(clip: &mut Clip) -> Option<&mut Track> {
        let i = clip
            .tracks
            .iter()
            .position(|t| t.target.human_bone == Some(super::HumanBone::Hips))
            .or_else(|| {
                clip.tracks
                    .iter()
                    .position(|t| !t.target.path.contains('/'))
            })?;
        Some(&mut clip.tracks[i])
    }

    /// Turns and moves the root as the offsets ask, in the character's model space (the root's parent at rest).
    fn offset_root(&self, clip: &mut Clip) {
        let turn = Quat::from_rotation_y(self.root_rotation_offset.to_radians());
        let shift = Vec3::new(
            self.root_xz_offset[0],
            self.root_y_offset,
            self.root_xz_offset[1],
        );
        if turn == Quat::IDENTITY && shift == Vec3::ZERO {
            return;
        }
        let Some(track) = Self::root_track(clip) else {
            return;
        };
        let frame = ParentFrame::of(track);
        let local_turn = frame.turn_to_local(turn);
        if let Some(k) = track.rotation.as_mut() {
            *k = map_keys(k, |_, q| (local_turn * q).normalize());
        }
        let translation = track
            .translation
            .get_or_insert_with(|| Keys::held(Vec3::from(track.target.rest.translation)));
        *translation = map_keys(translation, |_, v| {
            frame.to_local(turn * frame.to_model(v) + shift)
        });
        if track.rotation.is_none() && turn != Quat::IDENTITY {
            track.rotation = Some(Keys::held(
                (local_turn * track.target.rest.rotation).normalize(),
            ));
        }
    }

    /// Takes the root's drift (travel, height change, turn) out of the clip, as the bake flags ask: the track of
    /// the hips (its humanoid bone), else of the first root joint.
    fn bake_root(&self, clip: &mut Clip) {
        if !(self.bake_root_rotation || self.bake_root_y || self.bake_root_xz) {
            return;
        }
        let d = clip.duration;
        let Some(track) = Self::root_track(clip) else {
            return;
        };
        if d <= 0.0 {
            return;
        }
        let frame = ParentFrame::of(track);
        let mask = Vec3::new(
            f32::from(u8::from(self.bake_root_xz)),
            f32::from(u8::from(self.bake_root_y)),
            f32::from(u8::from(self.bake_root_xz)),
        );
        if let Some(k) = track.translation.as_mut().filter(|_| mask != Vec3::ZERO) {
            let drift = (frame.to_model(k.sample(d)) - frame.to_model(k.sample(0.0))) * mask;
            *k = map_keys(k, |t, v| {
                frame.to_local(frame.to_model(v) - drift * (t / d))
            });
        }
        if let Some(k) = track.rotation.as_mut().filter(|_| self.bake_root_rotation) {
            let yaw = |q: Quat| {
                let f = frame.rotation * q * Vec3::Z;
                f.x.atan2(f.z)
            };
            let mut turn = yaw(k.sample(d)) - yaw(k.sample(0.0));
            turn = (turn + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                - std::f32::consts::PI;
            *k = map_keys(k, |t, q| {
                (frame.turn_to_local(Quat::from_rotation_y(-turn * t / d)) * q).normalize()
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
        let points = Self::crop_points(keys.times(), a, d, shift);
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

    /// A morph-weight track cropped, offset and looped as [`ClipSettings::channel`] does a joint's.
    fn morph_channel(&self, track: &MorphTrack, a: f32, d: f32, shift: f32) -> MorphTrack {
        let points = Self::crop_points(track.times(), a, d, shift);
        let mut first = vec![0.0; track.width()];
        let mut last = vec![0.0; track.width()];
        track.sample_into(points[0].1, &mut first);
        track.sample_into(points[points.len() - 1].1, &mut last);
        track.resampled(&points, |t, v| {
            if self.loop_pose && d > 0.0 {
                for (i, x) in v.iter_mut().enumerate() {
                    *x += (first[i] - last[i]) * (t / d);
                }
            }
        })
    }

    /// (output time in [0, d], the source time it reads): the source's keys inside the crop, turned by the
    /// offset; both ends; and with an offset the seam, where the source's start follows its end SEAM_GAP later
    /// (key times are strictly increasing).
    fn crop_points(key_times: &[f32], a: f32, d: f32, shift: f32) -> Vec<(f32, f32)> {
        let mut points: Vec<(f32, f32)> = key_times
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
        points
    }
}

/// The root's parent at rest in the source's model space: the root settings measure and act in model space
/// (its vertical is +Y), whatever frame the root's keys are in (an FBX armature turned and scaled by 0.01).
struct ParentFrame {
    rotation: Quat,
    origin: Vec3,
    scale: f32,
}

impl ParentFrame {
    fn of(track: &Track) -> Self {
        let t = &track.target;
        let scale = if t.parent_rest_scale.is_finite() && t.parent_rest_scale > 0.0 {
            t.parent_rest_scale
        } else {
            1.0
        };
        ParentFrame {
            rotation: t.parent_rest_rotation.normalize(),
            origin: t.parent_rest_origin,
            scale,
        }
    }

    /// A local position in model space.
    fn to_model(&self, v: Vec3) -> Vec3 {
        self.origin + self.rotation * (v * self.scale)
    }

    /// A model-space position in the parent's space.
    fn to_local(&self, v: Vec3) -> Vec3 {
        self.rotation.inverse() * (v - self.origin) / self.scale
    }

    /// A model-space turn as the turn of a local rotation (applied on its parent side).
    fn turn_to_local(&self, turn: Quat) -> Quat {
        self.rotation.inverse() * turn * self.rotation
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
    fn the_name_and_loop_time_carry_over_and_leave_the_keys() {
        let source = clip();
        let set = ClipSettings {
            name: Some("Walk fast".into()),
            loop_time: false,
            ..Default::default()
        }
        .apply(&source)
        .unwrap();
        assert_eq!(set.name, "Walk fast");
        assert!(!set.looping && source.looping);
        assert_eq!(set.tracks, source.tracks);
        let blank = ClipSettings {
            name: Some("  ".into()),
            ..Default::default()
        };
        assert_eq!(blank.apply(&source), Err(ClipSettingsError::Name));
    }

    #[test]
    fn root_offsets_turn_and_move_the_whole_clip() {
        let source = clip();
        let moved = ClipSettings {
            root_rotation_offset: 90.0,
            root_y_offset: 0.5,
            root_xz_offset: [1.0, -2.0],
            ..Default::default()
        }
        .apply(&source)
        .unwrap();
        let turn = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        for k in 0..=20 {
            let t = k as f32 * 0.1;
            let (a, b) = (at(&moved, t), at(&source, t));
            let expected = turn * b.0 + Vec3::new(1.0, 0.5, -2.0);
            assert!(a.0.abs_diff_eq(expected, 1e-5), "{t}: {a:?} {expected}");
            let q = turn * b.1;
            let q = if q.dot(a.1) < 0.0 { -q } else { q };
            assert!(a.1.abs_diff_eq(q, 1e-5), "{t}: {} {q}", a.1);
        }
        for bad in [f32::NAN, 1e38] {
            let bad = ClipSettings {
                root_y_offset: bad,
                ..Default::default()
            };
            assert_eq!(bad.apply(&source), Err(ClipSettingsError::Offset));
        }
    }

    #[test]
    fn root_settings_act_in_model_space_under_a_turned_and_scaled_parent() {
        // An FBX armature: the hips' parent turned -90° about X and scaled by 0.01, so the hips' local +Z is
        // model +Y and its keys are in centimetres.
        let mut source = clip();
        let parent = Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2);
        source.tracks[0].target.parent_rest_rotation = parent;
        source.tracks[0].target.parent_rest_scale = 0.01;
        let model = |c: &Clip, t: f32| parent * at(c, t).0 * 0.01;
        let set = ClipSettings {
            bake_root_xz: true,
            root_y_offset: 0.25,
            ..Default::default()
        }
        .apply(&source)
        .unwrap();
        let (start, end) = (model(&set, 0.0), model(&set, 2.0));
        assert!(
            (start.x - end.x).abs() < 1e-6 && (start.z - end.z).abs() < 1e-6,
            "no horizontal travel in model space: {start} {end}"
        );
        for t in [0.0, 0.5, 1.0, 2.0] {
            let (a, b) = (model(&set, t), model(&source, t));
            assert!(
                (a.y - b.y - 0.25).abs() < 1e-5,
                "{t}: raised 0.25 m in model space: {a} {b}"
            );
        }
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

/// Another clip made from a take (Unity's clip list: several clips from one take, each with its own settings): a
/// copy of the loaded clip `take`, or a root-motion pass over it, named `name` as if loaded so, whose crop and
/// other settings are the clip settings under `name`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClipSplit {
    /// The take: a loaded clip's name.
    pub take: String,
    /// The new clip's name.
    pub name: String,
    /// A root-motion pass the new clip is made with (None: a copy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_pass: Option<super::clip_pass::RootPass>,
    /// A foot-skate clean-up the new clip is made with (after the root pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skate_fix: Option<super::clip_pass::SkateFix>,
    /// A loop-seam fix the new clip is made with (last, when several are given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_fix: Option<super::clip_pass::LoopFix>,
}
