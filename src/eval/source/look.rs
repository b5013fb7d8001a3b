//! A character's VRM look-at bound for playing a VRM Animation look-at track: the rotation a source reports
//! turns the eyes (bone look-at) or sets the look expressions (expression look-at), as three-vrm's appliers do.

use crate::core::{Character, Pose, Transform};

/// A character's VRM look-at bound: its look expressions (lookUp, lookDown, lookLeft, lookRight) and its eyes
/// (joint, the rest model rotation of its parent, its rest local rotation).
#[derive(Clone, Debug, Default)]
pub(crate) struct VrmLook {
    look: Option<crate::core::vrm_look_at::VrmLookAt>,
    expressions: [Option<usize>; 4],
    eyes: [Option<(usize, glam::Quat, glam::Quat)>; 2],
}

impl VrmLook {
    pub(crate) fn bind(character: &Character) -> Self {
        let Some(look) = character.vrm_look_at else {
            return VrmLook::default();
        };
        let expression = |name: &str| character.expressions.iter().position(|e| e.name == name);
        let rest = Pose::rest(&character.skeleton).model_matrices(&character.skeleton);
        let s = &character.skeleton;
        let eye = |bone| {
            let j = character.humanoid.joint(bone)?;
            let parent = s.parent(j).map_or(s.root_rotation(), |p| {
                rest[p].to_scale_rotation_translation().1
            });
            Some((j, parent.normalize(), s.rest()[j].rotation))
        };
        VrmLook {
            look: Some(look),
            expressions: ["lookUp", "lookDown", "lookLeft", "lookRight"].map(expression),
            eyes: [
                eye(crate::core::HumanBone::LeftEye),
                eye(crate::core::HumanBone::RightEye),
            ],
        }
    }

    /// Plays a look-at track's rotation: the look expressions' weights set in `expressions`, or the eyes turned
    /// in `pose` (three-vrm's appliers).
    pub(crate) fn apply(
        &self,
        rotation: glam::Quat,
        expressions: &mut [f32],
        pose: &mut [Transform],
    ) {
        use crate::core::vrm_look_at::{LookAtKind, yaw_pitch};
        let Some(look) = &self.look else { return };
        let (yaw, pitch) = yaw_pitch(rotation);
        match look.kind {
            LookAtKind::Expression => {
                for (slot, (_, w)) in self
                    .expressions
                    .iter()
                    .zip(look.expression_weights(yaw, pitch))
                {
                    if let Some(e) = slot.and_then(|e| expressions.get_mut(e)) {
                        *e = w;
                    }
                }
            }
            LookAtKind::Bone => {
                for (eye, turn) in self.eyes.iter().zip(look.eye_turns(yaw, pitch)) {
                    if let Some((j, parent, rest)) = *eye
                        && let Some(t) = pose.get_mut(j)
                    {
                        t.rotation = (parent.inverse() * turn * parent * rest).normalize();
                    }
                }
            }
        }
    }
}
