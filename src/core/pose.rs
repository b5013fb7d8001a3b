//! A pose: local transforms of every joint, and their model-space matrices.

use glam::{Mat4, Quat};

use super::skeleton::Skeleton;
use super::transform::Transform;

/// Local transforms for every joint of one skeleton.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pose {
    /// Local transform per joint, by joint index.
    pub local: Vec<Transform>,
}

impl Pose {
    /// The skeleton's rest pose.
    pub fn rest(skeleton: &Skeleton) -> Self {
        Pose {
            local: skeleton.rest().to_vec(),
        }
    }

    /// Resets every joint to the rest pose, keeping the allocation.
    pub fn reset_to_rest(&mut self, skeleton: &Skeleton) {
        self.local.clear();
        self.local.extend_from_slice(skeleton.rest());
    }

    /// Model-space matrix of every joint, written into `out` (resized to fit); joints the pose does not cover
    /// (a pose of another skeleton) stay at the identity.
    pub fn model_matrices_into(&self, skeleton: &Skeleton, out: &mut Vec<Mat4>) {
        out.clear();
        out.resize(skeleton.len(), Mat4::IDENTITY);
        if self.local.len() != skeleton.len() {
            return;
        }
        let root = skeleton.root_transform();
        for (j, local) in self.local.iter().enumerate() {
            let parent = skeleton.parent(j).map_or(root, |p| out[p]);
            out[j] = super::transform::compose(&parent, local);
        }
    }

    /// Model-space rotation of every joint (scales ignored), written into `out` (resized to fit).
    pub fn world_rotations_into(&self, skeleton: &Skeleton, out: &mut Vec<Quat>) {
        out.clear();
        out.reserve(self.local.len());
        let root = skeleton.root_rotation();
        for (i, local) in self.local.iter().enumerate() {
            let parent = match skeleton.parent(i) {
                Some(p) => out[p],
                None => root,
            };
            out.push((parent * local.rotation).normalize());
        }
    }

    /// Model-space rotation of every joint.
    pub fn world_rotations(&self, skeleton: &Skeleton) -> Vec<Quat> {
        let mut out = Vec::new();
        self.world_rotations_into(skeleton, &mut out);
        out
    }

    /// Model-space rotation a joint's parent frame has (the root frame's for a root joint).
    pub fn parent_world_rotation(skeleton: &Skeleton, world: &[Quat], joint: usize) -> Quat {
        match skeleton.parent(joint) {
            Some(p) => world[p],
            None => skeleton.root_rotation(),
        }
    }

    /// Gives `joint` the model-space rotation `rotation`, given the current model-space rotations `world`
    /// (which are updated for that joint only: call it parent before child, or recompute after).
    pub fn set_world_rotation(
        &mut self,
        skeleton: &Skeleton,
        world: &mut [Quat],
        joint: usize,
        rotation: Quat,
    ) {
        set_world_rotation(skeleton, &mut self.local, world, joint, rotation);
    }

    /// Model-space matrix of every joint.
    pub fn model_matrices(&self, skeleton: &Skeleton) -> Vec<Mat4> {
        let mut out = Vec::new();
        self.model_matrices_into(skeleton, &mut out);
        out
    }
}

/// Gives `joint` the model-space rotation `rotation` in a local pose, given the current model-space rotations
/// `world` (updated for that joint only).
pub fn set_world_rotation(
    skeleton: &Skeleton,
    local: &mut [Transform],
    world: &mut [Quat],
    joint: usize,
    rotation: Quat,
) {
    let parent = Pose::parent_world_rotation(skeleton, world, joint);
    local[joint].rotation = (parent.inverse() * rotation).normalize();
    world[joint] = rotation;
}

/// Model-space rotation of one joint (scales ignored), walking up its ancestors; allocates nothing.
pub fn world_rotation(skeleton: &Skeleton, local: &[Transform], joint: usize) -> Quat {
    let mut q = local[joint].rotation;
    let mut j = skeleton.parent(joint);
    while let Some(p) = j {
        q = local[p].rotation * q;
        j = skeleton.parent(p);
    }
    (skeleton.root_rotation() * q).normalize()
}

/// Refreshes the model matrices and rotations of the joints in `path` (each joint's parent must come earlier in
/// `path` or be up to date already; joints in index order satisfy this when `path` holds every ancestor).
pub fn refresh_path(
    skeleton: &Skeleton,
    local: &[Transform],
    path: &[usize],
    model: &mut [Mat4],
    world: &mut [Quat],
) {
    let (root, root_rot) = (skeleton.root_transform(), skeleton.root_rotation());
    for &j in path {
        let (pm, pw) = match skeleton.parent(j) {
            Some(p) => (model[p], world[p]),
            None => (root, root_rot),
        };
        model[j] = super::transform::compose(&pm, &local[j]);
        // Unit times unit stays unit to rounding (~1e-7 per joint down a chain): a normalisation here would put a
        // square root and a division on the chain's critical path.
        world[j] = pw * local[j].rotation;
    }
}

/// Every joint in `joints` and all their ancestors, in index (parent-first) order.
pub fn ancestor_path(skeleton: &Skeleton, joints: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut keep = vec![false; skeleton.len()];
    for j in joints {
        let mut walk = Some(j);
        while let Some(k) = walk.filter(|&k| k < keep.len() && !keep[k]) {
            keep[k] = true;
            walk = skeleton.parent(k);
        }
    }
    (0..keep.len()).filter(|&j| keep[j]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::skeleton::JointDef;
    use glam::{Quat, Vec3};

    #[test]
    fn local_to_model_composes_down_the_chain() {
        let rot = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        let joints = vec![
            JointDef {
                name: "root".into(),
                parent: None,
                rest: Transform {
                    translation: Vec3::new(0.0, 1.0, 0.0).into(),
                    rotation: rot,
                    scale: Vec3::ONE.into(),
                },
                deforms: true,
            },
            JointDef {
                name: "child".into(),
                parent: Some(0),
                rest: Transform {
                    translation: Vec3::new(0.0, 0.0, 2.0).into(),
                    rotation: Quat::IDENTITY,
                    scale: Vec3::ONE.into(),
                },
                deforms: true,
            },
        ];
        // The whole rig sits under a 0.01 scale, as an armature exported in centimetres would.
        let skel = Skeleton::new(joints, Mat4::from_scale(Vec3::splat(0.01))).unwrap();
        let m = Pose::rest(&skel).model_matrices(&skel);
        // Child at local +Z 2, rotated 90° about Y → +X 2; plus root at Y 1; all scaled by 0.01.
        let p = m[1].transform_point3(Vec3::ZERO);
        assert!(p.abs_diff_eq(Vec3::new(0.02, 0.01, 0.0), 1e-6), "{p}");
    }
}
