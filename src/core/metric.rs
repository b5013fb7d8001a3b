//! The error metric of every bake, export and compiled clip: the model-space displacement of virtual vertices
//! 3 cm from each joint (ACL's metric), and the per-joint sizes error budgets are scaled by.

use glam::{Mat4, Vec3};

use super::{Pose, Skeleton};

/// Distance of the virtual vertices from their joint, in metres.
pub const VIRTUAL_VERTEX_DISTANCE: f32 = 0.03;

/// Largest virtual-vertex displacement between two sets of model matrices, in metres.
pub fn max_vertex_error(a: &[Mat4], b: &[Mat4]) -> f32 {
    let mut worst = 0.0f32;
    for (ma, mb) in a.iter().zip(b) {
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            // 3 cm in model units whatever the joint's scale.
            let len = ma.transform_vector3(axis).length().max(1e-12);
            let local = axis * (VIRTUAL_VERTEX_DISTANCE / len);
            worst = worst.max(
                ma.transform_point3(local)
                    .distance(mb.transform_point3(local)),
            );
        }
    }
    worst
}

/// Per-joint sizes an error budget in metres is scaled by: a rotation of the joint by θ moves its farthest
/// virtual vertex by about θ × `reach`, a local translation error e moves the joint by e × `parent_scale`.
pub struct JointScale {
    /// Distance from the joint to its farthest descendant plus the virtual vertex distance (model metres).
    pub reach: f32,
    /// Model-space scale of the parent frame (local translations are multiplied by it).
    pub parent_scale: f32,
}

impl JointScale {
    /// The grid steps (translation units, quaternion components, scale units) whose rounding moves this joint's
    /// virtual vertices by about `tolerance` metres: what the runtime's packed form stores each channel on. A
    /// quaternion whose four components are each off by at most half a step turns by about twice the step.
    pub fn grid_steps(&self, tolerance: f32) -> [f32; 3] {
        [
            tolerance / self.parent_scale,
            tolerance / (2.0 * self.reach),
            tolerance / self.reach,
        ]
    }
}

/// The sizes of every joint of `skeleton`, at its rest pose.
pub fn joint_scales(skeleton: &Skeleton) -> Vec<JointScale> {
    let model = Pose::rest(skeleton).model_matrices(skeleton);
    let pos: Vec<Vec3> = model.iter().map(|m| m.w_axis.truncate()).collect();
    let scale_of = |m: &Mat4| {
        m.x_axis
            .truncate()
            .length()
            .max(m.y_axis.truncate().length())
            .max(m.z_axis.truncate().length())
    };
    (0..skeleton.len())
        .map(|j| JointScale {
            reach: skeleton
                .subtree(j)
                .map(|d| pos[d].distance(pos[j]))
                .fold(0.0, f32::max)
                + VIRTUAL_VERTEX_DISTANCE,
            parent_scale: skeleton
                .parent(j)
                .map_or_else(
                    || scale_of(&skeleton.root_transform()),
                    |p| scale_of(&model[p]),
                )
                .max(1e-9),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_error_sees_rotation_at_three_centimetres() {
        let a = [Mat4::IDENTITY];
        let b = [Mat4::from_rotation_y(0.01)];
        // A 0.01 rad turn moves a vertex 3 cm away by ≈ 0.3 mm.
        let e = max_vertex_error(&a, &b);
        assert!((e - 0.03 * 0.01).abs() < 1e-6, "{e}");
    }
}
