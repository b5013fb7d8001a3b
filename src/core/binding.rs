//! Binding a clip's tracks to the joints of a skeleton: by path, name, or humanoid bone.

use glam::{Quat, Vec3};
use serde::Serialize;

use super::clip::{Clip, Wrap};
use super::humanoid::{HumanBone, HumanoidMap};
use super::pose::Pose;
use super::skeleton::Skeleton;

/// Where a clip retargeted between two humanoids puts the target's hips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HipsPlacement {
    /// The clip's hips position in its model space, scaled by the ratio of the two rest hips heights: the rule
    /// of pixiv's three-vrm (VRM Animation and its Mixamo example) and of Unity Mecanim's body position. A
    /// clip's character standing off its origin stands off the target's origin as far (scaled).
    #[default]
    ClipPosition,
    /// The target's rest hips plus the clip's hips motion away from its own rest hips (scaled likewise): the
    /// target stays where it stands at rest, for clips authored away from their origin.
    RestOffset,
}

impl HipsPlacement {
    /// Both rules, in the order the editor offers them.
    pub const ALL: [HipsPlacement; 2] = [HipsPlacement::ClipPosition, HipsPlacement::RestOffset];

    /// The name presets and the CLI use.
    pub fn name(self) -> &'static str {
        match self {
            HipsPlacement::ClipPosition => "clip_position",
            HipsPlacement::RestOffset => "rest_offset",
        }
    }
}

/// How one track reaches a joint of another rig through their humanoid maps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Retarget {
    /// Rotation applied before the source rotation.
    pub pre: Quat,
    /// Rotation applied after the source rotation.
    pub post: Quat,
    /// Scale for the source's local translation (hips only; None ignores translation).
    pub translation_scale: Option<f32>,
    /// Rotation from the source parent frame to the target parent frame.
    pub translation_rotation: Quat,
    /// Added after rotating and scaling: the target's local translation is
    /// `translation_offset + translation_rotation * source * translation_scale`.
    pub translation_offset: Vec3,
}

impl Retarget {
    /// The target's local translation for a source local translation (when translation is retargeted).
    pub fn translation(&self, source: Vec3) -> Option<Vec3> {
        self.translation_scale
            .map(|k| self.translation_offset + self.translation_rotation * source * k)
    }
}

/// How one track was bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BindMethod {
    /// Same root-relative path.
    Path,
    /// Same joint name.
    Name,
    /// Same humanoid bone, rotations retargeted between rest poses.
    HumanBone,
}

/// One bound track.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundTrack {
    /// Joint of the target skeleton.
    pub joint: usize,
    /// How it was found.
    pub method: BindMethod,
    /// Retargeting, when bound through a humanoid bone.
    pub retarget: Option<Retarget>,
}

/// A clip's tracks resolved against one skeleton, plus what did not bind.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipBinding {
    /// Per track (same order as the clip), the joint it drives, if any.
    pub tracks: Vec<Option<BoundTrack>>,
    /// Paths of tracks that found no joint.
    pub unbound_tracks: Vec<String>,
    /// Names of joints that no track drives.
    pub joints_without_track: Vec<String>,
    /// Tracks of humanoid bones the target lacks, folded into their parent bone's track (see
    /// [`super::fold::fold_unmapped_bones`]); empty when the clip was bound as it is.
    pub folded: Vec<super::fold::Fold>,
}

impl Clip {
    /// Binds tracks to a skeleton: by path, then joint name, then humanoid bone (retargeted).
    pub fn bind(&self, skeleton: &Skeleton, humanoid: Option<&HumanoidMap>) -> ClipBinding {
        bind(self, skeleton, humanoid)
    }

    /// Writes the clip's values at `time` into `pose` for every bound track; other joints are left as they are.
    pub fn sample_into(&self, binding: &ClipBinding, time: f32, wrap: Wrap, pose: &mut Pose) {
        let t = self.wrap_time(time, wrap);
        for (track, bound) in self.tracks.iter().zip(&binding.tracks) {
            let Some(b) = bound else { continue };
            let local = &mut pose.local[b.joint];
            match &b.retarget {
                None => {
                    if let Some(k) = &track.translation {
                        local.translation = (k.sample(t)).into();
                    }
                    if let Some(k) = &track.rotation {
                        local.rotation = k.sample(t);
                    }
                    if let Some(k) = &track.scale {
                        local.scale = (k.sample(t)).into();
                    }
                }
                Some(r) => {
                    if let Some(k) = &track.rotation {
                        local.rotation = (r.pre * k.sample(t) * r.post).normalize();
                    }
                    if let Some(v) = track
                        .translation
                        .as_ref()
                        .and_then(|k| r.translation(k.sample(t)))
                    {
                        local.translation = v.into();
                    }
                }
            }
        }
    }
}

/// The turn about +Y from the way the clip's source character faces to the way the target faces, so a rig
/// exported facing −Z (some Mixamo characters) and one facing +Z move the same way. The source's facing is the
/// clip's [`Clip::facing_yaw`] where its format fixes it (VRM Animation: +Z, whatever its rest pose), else it is
/// taken from its rest pose as the target's always is (forward = up × the line from the left to the right upper
/// leg); identity when a side that needs the legs lacks them.
pub(crate) fn facing_alignment(
    clip: &Clip,
    humanoid: Option<&HumanoidMap>,
    model: &[glam::Mat4],
) -> Quat {
    let yaw = |right: Vec3| {
        let forward = Vec3::Y.cross(right);
        forward.x.atan2(forward.z)
    };
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z).length() > 1e-6;
    let source_yaw = match clip.facing_yaw {
        Some(y) => y,
        None => {
            let track_of = |b: HumanBone| {
                clip.tracks
                    .iter()
                    .find(|t| t.target.human_bone == Some(b) && t.target.rest_known)
            };
            let (Some(l), Some(r)) = (
                track_of(HumanBone::LeftUpperLeg),
                track_of(HumanBone::RightUpperLeg),
            ) else {
                return Quat::IDENTITY;
            };
            // Both legs hang from the hips: the hips' model rest rotation carries their local offsets into
            // model space.
            let source_right = l.target.parent_rest_rotation
                * (Vec3::from(r.target.rest.translation) - Vec3::from(l.target.rest.translation));
            if !flat(source_right) {
                return Quat::IDENTITY;
            }
            yaw(source_right)
        }
    };
    let Some(h) = humanoid else {
        return Quat::IDENTITY;
    };
    let (Some(lj), Some(rj)) = (
        h.joint(HumanBone::LeftUpperLeg),
        h.joint(HumanBone::RightUpperLeg),
    ) else {
        return Quat::IDENTITY;
    };
    let target_right = model[rj].w_axis.truncate() - model[lj].w_axis.truncate();
    if !flat(target_right) {
        return Quat::IDENTITY;
    }
    Quat::from_rotation_y(yaw(target_right) - source_yaw)
}

/// Each joint of a skeleton as a track target: path, name, humanoid bone and rest data (the parent's model-space
/// rest rotation taken as the product of the rest rotations, so a zero or odd scale cannot make it NaN), for clips
/// read from the skeleton's file and for baked tracks.
pub fn track_targets(
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
) -> Vec<super::clip::TrackTarget> {
    let rest = Pose::rest(skeleton);
    let model = rest.model_matrices(skeleton);
    let world = rest.world_rotations(skeleton);
    let bones = humanoid.map(|h| h.bone_per_joint(skeleton.len()));
    (0..skeleton.len())
        .map(|j| {
            let parent = skeleton
                .parent(j)
                .map_or(skeleton.root_transform(), |p| model[p]);
            super::clip::TrackTarget {
                path: skeleton.path(j).to_string(),
                name: skeleton.name(j).to_string(),
                human_bone: bones.as_ref().and_then(|b| b[j]),
                rest: skeleton.rest()[j],
                parent_rest_rotation: skeleton
                    .parent(j)
                    .map_or(skeleton.root_rotation(), |p| world[p]),
                rest_height: model[j].w_axis.y,
                parent_rest_origin: parent.w_axis.truncate(),
                parent_rest_scale: uniform_scale(&parent),
                rest_known: true,
            }
        })
        .collect()
}

/// The uniform scale of a model matrix (the cube root of its linear part's determinant, 1 when that is not a
/// usable number): how much longer a length is in model space than in the frame the matrix maps from.
pub fn uniform_scale(m: &glam::Mat4) -> f32 {
    let s = m.determinant().abs().cbrt();
    if s.is_finite() && s > 1e-12 { s } else { 1.0 }
}

/// True when a track's source joint rests as `joint` of `skeleton` does: the same local rest (rotation within
/// 1e-3 rad, translation within 0.1 % of its length) under a parent resting the same way in model space.
fn rests_agree(
    t: &super::clip::TrackTarget,
    skeleton: &Skeleton,
    joint: usize,
    parent_rest: Quat,
) -> bool {
    let dst = &skeleton.rest()[joint];
    let close = |a: Quat, b: Quat| a.dot(b).abs() >= (1.0 - 1.25e-7);
    let (ts, td) = (Vec3::from(t.rest.translation), Vec3::from(dst.translation));
    close(t.rest.rotation, dst.rotation)
        && close(t.parent_rest_rotation, parent_rest)
        && ts.distance(td) <= 1e-3 * td.length().max(1e-3)
}

/// Resolves every track of `clip` against `skeleton` (see [`Clip::bind`]).
///
/// A track bound by path or name whose rest differs from the joint's (and whose file carries rests) is
/// retargeted like one bound by humanoid bone.
pub fn bind(clip: &Clip, skeleton: &Skeleton, humanoid: Option<&HumanoidMap>) -> ClipBinding {
    let rest = Pose::rest(skeleton);
    let model = rest.model_matrices(skeleton);
    let model_rot = rest.world_rotations(skeleton);
    let parent_rot = |j: usize| {
        skeleton
            .parent(j)
            .map_or(skeleton.root_rotation(), |p| model_rot[p])
    };
    let facing = facing_alignment(clip, humanoid, &model);
    let placement = humanoid.map_or(HipsPlacement::default(), |h| h.hips_placement);
    // Retargets by human bone (between rigs, through the humanoid) go to the character's T-pose, which is its rest
    // pose unless its humanoid says otherwise (a Unity avatar's), as Unity's humanoid retarget goes from T-pose to
    // T-pose. A track bound by path or name comes from the rig's own family: it is carried from its rest to the
    // joint's rest, and whether the two agree is asked of the rest pose.
    let t_pose = humanoid.map(|h| &h.t_pose).filter(|t| !t.is_empty());
    let t_pose_rotation = |j: usize| {
        t_pose
            .and_then(|t| t.get(&j))
            .copied()
            .unwrap_or(skeleton.rest()[j].rotation)
    };
    let t_model_rot = t_pose.map(|_| {
        let mut posed = Pose::rest(skeleton);
        for (j, local) in posed.local.iter_mut().enumerate() {
            local.rotation = t_pose_rotation(j);
        }
        posed.world_rotations(skeleton)
    });
    let target_frames = |j: usize, through_t_pose: bool| match (&t_model_rot, through_t_pose) {
        (Some(rot), true) => (
            skeleton
                .parent(j)
                .map_or(skeleton.root_rotation(), |p| rot[p]),
            t_pose_rotation(j),
        ),
        _ => (parent_rot(j), skeleton.rest()[j].rotation),
    };

    let mut driven = vec![false; skeleton.len()];
    let mut tracks = Vec::with_capacity(clip.tracks.len());
    let mut unbound_tracks = Vec::new();
    for track in &clip.tracks {
        let t = &track.target;
        let direct = skeleton
            .find_by_path(&t.path)
            .map(|j| (j, BindMethod::Path))
            .or_else(|| {
                (!t.name.is_empty())
                    .then(|| skeleton.find_by_name(&t.name))
                    .flatten()
                    .map(|j| (j, BindMethod::Name))
            });
        // Rotations carried between the two rest poses (so the model-space motion of each bone is the same on
        // both rigs); translation only for the hips, scaled by their rest heights.
        let retarget = |joint: usize, through_t_pose: bool| {
            let wps = facing * t.parent_rest_rotation;
            let (wpd, local) = target_frames(joint, through_t_pose);
            let pre = wpd.inverse() * wps;
            let post = t.rest.rotation.inverse() * wps.inverse() * wpd * local;
            let is_hips = t.human_bone == Some(HumanBone::Hips)
                || humanoid.and_then(|h| h.joint(HumanBone::Hips)) == Some(joint);
            // Model-space placement: the source's hips position (its parent's rest frame applied to the local
            // value), turned to the target's facing and scaled by the rest hips heights, is put in the target's
            // parent frame. Both rules share that linear part; they differ in the constant.
            let height_ratio = {
                let src = t.rest_height;
                let dst = model[joint].w_axis.y;
                if src.abs() > 1e-6 { dst / src } else { 1.0 }
            };
            let dst_parent = skeleton
                .parent(joint)
                .map_or(skeleton.root_transform(), |p| model[p]);
            let dst_scale = uniform_scale(&dst_parent);
            let k = height_ratio * t.parent_rest_scale / dst_scale;
            let dst_rest = Vec3::from(skeleton.rest()[joint].translation);
            let translation_offset = match placement {
                HipsPlacement::ClipPosition => {
                    wpd.inverse()
                        * (facing * t.parent_rest_origin * height_ratio
                            - dst_parent.w_axis.truncate())
                        / dst_scale
                }
                HipsPlacement::RestOffset => dst_rest - pre * Vec3::from(t.rest.translation) * k,
            };
            Retarget {
                pre,
                post,
                translation_scale: is_hips.then_some(k),
                translation_rotation: pre,
                translation_offset,
            }
        };
        let bound = if let Some((joint, method)) = direct {
            // The same joint on a rig with another rest pose (Mixamo characters share names, not rests): copying
            // the values would pose it in the wrong frames, so they are retargeted as through a humanoid bone.
            let rests_differ = t.rest_known && !rests_agree(t, skeleton, joint, parent_rot(joint));
            Some(BoundTrack {
                joint,
                method,
                retarget: rests_differ.then(|| retarget(joint, false)),
            })
        } else if let (Some(bone), Some(map)) = (t.human_bone, humanoid) {
            map.joint(bone).map(|joint| BoundTrack {
                joint,
                method: BindMethod::HumanBone,
                retarget: Some(retarget(joint, true)),
            })
        } else {
            None
        };
        match &bound {
            Some(b) => driven[b.joint] = true,
            None => unbound_tracks.push(t.path.clone()),
        }
        tracks.push(bound);
    }
    let joints_without_track = (0..skeleton.len())
        .filter(|&j| !driven[j])
        .map(|j| skeleton.name(j).to_string())
        .collect();
    ClipBinding {
        tracks,
        unbound_tracks,
        joints_without_track,
        folded: Vec::new(),
    }
}
