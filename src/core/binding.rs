//! Binding a clip's tracks to the joints of a skeleton: by path, name, or humanoid bone.

use glam::Quat;

use super::clip::{BindMethod, BoundTrack, Clip, ClipBinding, Retarget};
use super::humanoid::{HumanBone, HumanoidMap};
use super::pose::Pose;
use super::skeleton::Skeleton;

/// Resolves every track of `clip` against `skeleton` (see [`Clip::bind`]).
pub fn bind(clip: &Clip, skeleton: &Skeleton, humanoid: Option<&HumanoidMap>) -> ClipBinding {
    let model = Pose::rest(skeleton).model_matrices(skeleton);
    let model_rot: Vec<Quat> = model
        .iter()
        .map(|m| m.to_scale_rotation_translation().1.normalize())
        .collect();
    let root_rot = skeleton
        .root_transform()
        .to_scale_rotation_translation()
        .1
        .normalize();
    let parent_rot = |j: usize| skeleton.parent(j).map_or(root_rot, |p| model_rot[p]);

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
        let bound = if let Some((joint, method)) = direct {
            Some(BoundTrack {
                joint,
                method,
                retarget: None,
            })
        } else if let (Some(bone), Some(map)) = (t.human_bone, humanoid) {
            map.joint(bone).map(|joint| {
                let wps = t.parent_rest_rotation;
                let wpd = parent_rot(joint);
                let pre = wpd.inverse() * wps;
                let post = t.rest.rotation.inverse()
                    * wps.inverse()
                    * wpd
                    * skeleton.rest()[joint].rotation;
                let translation_scale = (bone == HumanBone::Hips).then(|| {
                    let src = t.rest_height;
                    let dst = model[joint].w_axis.y;
                    if src.abs() > 1e-6 { dst / src } else { 1.0 }
                });
                BoundTrack {
                    joint,
                    method: BindMethod::HumanBone,
                    retarget: Some(Retarget {
                        pre,
                        post,
                        translation_scale,
                        translation_rotation: pre,
                        dst_rest_translation: skeleton.rest()[joint].translation.into(),
                    }),
                }
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
    }
}
