//! VRM Animation (`.vrma`) export: the bake's frames moved onto a normalized humanoid rig, which the glTF encoder
//! then writes with the `VRMC_vrm_animation` extension.
//!
//! The rig has one node per mapped human bone (named as VRM 1.0 names it), each parented to its nearest mapped
//! ancestor, every rest rotation the identity and every rest offset the bones' rest offset in the character's
//! model space (+Y up, facing +Z: the spec's axes, VRM 0.x characters having been turned at import). A bone's
//! rotation at a frame is its model-space turn from rest, relative to its parent bone's: what three-vrm-animation
//! reads back (it takes each track relative to the rest world rotations of the file's nodes, here the identity),
//! and what any joints between two human bones did is carried by them. The hips carry their model-space position.
//! Joints that play no human bone (hair, twist, props) are not in a VRMA.
//!
//! A clip with a look-at track keeps it (the look-at node's rotation): what the character's look-at sets from it
//! is then the player's to set (three-vrm's look-at appliers), so the eyes (a look-at by bones) or the look
//! expressions (a look-at by expressions) are left out.

use glam::{Mat4, Quat, Vec3, Vec3A};

use crate::core::humanoid::{HumanoidMap, MappingSource};
use crate::core::{Character, HumanBone, JointDef, Pose, Skeleton, Transform};
use crate::offline::frames::Frames;

/// The character's human bones on a normalized rig, and the frames posed on it.
pub struct Normalized {
    /// A character holding only the rig (and its humanoid map).
    pub character: Character,
    /// The frames on the rig.
    pub frames: Frames,
    /// Source joint of each rig node.
    pub sources: Vec<usize>,
}

fn rotation_of(m: &Mat4) -> Quat {
    m.to_scale_rotation_translation().1.normalize()
}

/// Moves `frames` of `character` onto its normalized humanoid rig; an error when the character is not a humanoid.
pub fn normalize(character: &Character, frames: &Frames) -> Result<Normalized, String> {
    let map = &character.humanoid;
    if !map.is_humanoid() {
        return Err(format!(
            "a VRM Animation needs a humanoid, and '{}' is not one (missing {})",
            character.name,
            map.missing_required
                .iter()
                .map(|b| b.name())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let skeleton = &character.skeleton;
    let rest_model = Pose::rest(skeleton).model_matrices(skeleton);
    let mut sources: Vec<usize> = Vec::new();
    let mut bones: Vec<HumanBone> = Vec::new();
    let mut parents: Vec<Option<usize>> = Vec::new();
    use crate::core::vrm_look_at::LookAtKind;
    let looks =
        |kind| frames.look_at.is_some() && character.vrm_look_at.is_some_and(|l| l.kind == kind);
    let (eyes_looked, expressions_looked) =
        (looks(LookAtKind::Bone), looks(LookAtKind::Expression));
    for j in 0..skeleton.len() {
        let Some(bone) = map.bone_of(j) else { continue };
        if eyes_looked && matches!(bone, HumanBone::LeftEye | HumanBone::RightEye) {
            continue;
        }
        let mut p = skeleton.parent(j);
        let parent = loop {
            match p {
                None => break None,
                Some(k) => match sources.iter().position(|&s| s == k) {
                    Some(node) => break Some(node),
                    None => p = skeleton.parent(k),
                },
            }
        };
        sources.push(j);
        bones.push(bone);
        parents.push(parent);
    }
    let position = |j: usize| rest_model[j].w_axis.truncate();
    let joints: Vec<JointDef> = (0..sources.len())
        .map(|k| {
            let offset =
                position(sources[k]) - parents[k].map_or(Vec3::ZERO, |p| position(sources[p]));
            JointDef {
                name: bones[k].vrm_name(true),
                parent: parents[k],
                rest: Transform {
                    translation: Vec3A::from(offset),
                    ..Transform::IDENTITY
                },
                deforms: false,
            }
        })
        .collect();
    let rig = Skeleton::new(joints, Mat4::IDENTITY).map_err(|e| e.to_string())?;
    let entries: Vec<(HumanBone, usize)> = bones.iter().copied().zip(0..).collect();
    let humanoid = HumanoidMap::from_table(MappingSource::Vrm1, &entries, &rig);
    let rest_turn: Vec<Quat> = sources
        .iter()
        .map(|&j| rotation_of(&rest_model[j]))
        .collect();
    let place = |pose: &Pose| -> Pose {
        let model = pose.model_matrices(skeleton);
        let turn: Vec<Quat> = sources
            .iter()
            .zip(&rest_turn)
            .map(|(&j, rest)| (rotation_of(&model[j]) * rest.inverse()).normalize())
            .collect();
        let mut out = Pose::rest(&rig);
        for k in 0..sources.len() {
            let above = parents[k].map_or(Quat::IDENTITY, |p| turn[p]);
            out.local[k].rotation = (above.inverse() * turn[k]).normalize();
            if parents[k].is_none() {
                out.local[k].translation = model[sources[k]].w_axis.truncate().into();
            }
        }
        out
    };
    let frames = Frames {
        times: frames.times.clone(),
        poses: frames.poses.iter().map(place).collect(),
        source_joints: sources.len(),
        checks: frames
            .checks
            .iter()
            .map(|(t, pose)| (*t, place(pose)))
            .collect(),
        expressions: frames
            .expressions
            .iter()
            .filter(|e| {
                !(expressions_looked
                    && ["lookUp", "lookDown", "lookLeft", "lookRight"].contains(&e.name.as_str()))
            })
            .cloned()
            .collect(),
        look_at: frames.look_at.clone(),
        morph: Vec::new(),
    };
    let mut out = Character::skeleton_only(&rig, Some(&humanoid));
    out.name = character.name.clone();
    Ok(Normalized {
        character: out,
        frames,
        sources,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the mannequin, every human bone of the rig turns in model space as its joint does, and the hips stand
    /// where the joint stands.
    #[test]
    fn the_rig_turns_every_human_bone_as_the_character_does() {
        let model = crate::demo::mannequin::load();
        let c = &model.character;
        let clip = &model.clips[0];
        let frames = crate::offline::frames::sample_frames(
            clip,
            &c.skeleton,
            Some(&c.humanoid),
            vec![0.0, 0.3, 0.7],
        );
        let n = normalize(c, &frames).unwrap();
        let rest = Pose::rest(&c.skeleton).model_matrices(&c.skeleton);
        for (pose, src) in n.frames.poses.iter().zip(&frames.poses) {
            let ours = pose.model_matrices(&n.character.skeleton);
            let theirs = src.model_matrices(&c.skeleton);
            for (k, &j) in n.sources.iter().enumerate() {
                let turn = rotation_of(&theirs[j]) * rotation_of(&rest[j]).inverse();
                assert!(rotation_of(&ours[k]).angle_between(turn) < 1e-4, "{k}");
                let position = ours[k].w_axis.truncate();
                if k == 0 {
                    assert!(position.distance(theirs[j].w_axis.truncate()) < 1e-5);
                }
            }
        }
    }
}
