//! Local joint transforms (translation, rotation, scale), as glTF nodes store them.

use glam::{Mat4, Quat, Vec3A};
use serde::{Deserialize, Serialize};

/// A TRS transform: scale first, then rotation, then translation (glTF's order).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transform {
    /// Translation in metres.
    pub translation: Vec3A,
    /// Unit rotation quaternion (x, y, z, w).
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3A,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The transform that changes nothing.
    pub const IDENTITY: Transform = Transform {
        translation: Vec3A::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3A::ONE,
    };

    /// The transform as a column-major matrix (T * R * S).
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            self.scale.into(),
            self.rotation,
            self.translation.into(),
        )
    }

    /// Decomposes an affine matrix into TRS (shear, if any, is lost).
    pub fn from_mat4(m: &Mat4) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Transform {
            translation: translation.into(),
            rotation: rotation.normalize(),
            scale: scale.into(),
        }
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

/// `parent × T × R × S` for an affine parent, without forming the local matrix's fourth row. The local matrix's
/// entries (scale folded in) do not depend on the parent, so only three dependent vector operations per column
/// follow the parent's load: the chain down a limb is latency-bound.
#[inline(always)]
pub fn compose(parent: &Mat4, local: &Transform) -> Mat4 {
    let q = local.rotation;
    let (x2, y2, z2) = (q.x + q.x, q.y + q.y, q.z + q.z);
    let (xx, xy, xz) = (q.x * x2, q.x * y2, q.x * z2);
    let (yy, yz, zz) = (q.y * y2, q.y * z2, q.z * z2);
    let (wx, wy, wz) = (q.w * x2, q.w * y2, q.w * z2);
    let s = local.scale;
    let t = local.translation;
    let (px, py, pz, pw) = (parent.x_axis, parent.y_axis, parent.z_axis, parent.w_axis);
    let col = |a: f32, b: f32, c: f32| px * a + py * b + pz * c;
    Mat4::from_cols(
        col((1.0 - (yy + zz)) * s.x, (xy + wz) * s.x, (xz - wy) * s.x),
        col((xy - wz) * s.y, (1.0 - (xx + zz)) * s.y, (yz + wx) * s.y),
        col((xz + wy) * s.z, (yz - wx) * s.z, (1.0 - (xx + yy)) * s.z),
        (px * t.x + py * t.y) + (pz * t.z + pw),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn matrix_round_trip_keeps_trs() {
        let t = Transform {
            translation: Vec3::new(1.0, -2.0, 0.5).into(),
            rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1),
            scale: Vec3::new(2.0, 0.5, 1.5).into(),
        };
        let back = Transform::from_mat4(&t.to_mat4());
        assert!(back.translation.abs_diff_eq(t.translation, 1e-5));
        assert!(back.rotation.dot(t.rotation).abs() > 1.0 - 1e-6);
        assert!(back.scale.abs_diff_eq(t.scale, 1e-5));
    }

    #[test]
    fn matrix_applies_scale_then_rotation_then_translation() {
        let t = Transform {
            translation: Vec3::new(0.0, 1.0, 0.0).into(),
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            scale: Vec3::splat(2.0).into(),
        };
        // (1,0,0) → scaled (2,0,0) → rotated 90° about Z (0,2,0) → translated (0,3,0).
        let p = t.to_mat4().transform_point3(Vec3::X);
        assert!(p.abs_diff_eq(Vec3::new(0.0, 3.0, 0.0), 1e-6));
    }
}
