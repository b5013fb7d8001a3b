//! Unity's axes beside glTF's. Both have +Y up and +Z forward; Unity is left-handed, so a value crosses between
//! the two by mirroring X: positions (x, y, z) → (−x, y, z), rotations (x, y, z, w) → (x, −y, −z, w), as
//! UnityGLTF and glTFast convert. Each conversion is its own inverse.

use glam::{Quat, Vec3};

/// A position (or direction) in the other convention's axes.
pub fn mirror_position(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, v.z)
}

/// A rotation in the other convention's axes.
pub fn mirror_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirroring_commutes_with_rotating() {
        let q = Quat::from_euler(glam::EulerRot::YXZ, 0.4, -0.7, 1.1);
        let v = Vec3::new(0.3, -1.2, 2.0);
        let a = mirror_position(q * v);
        let b = mirror_rotation(q) * mirror_position(v);
        assert!(a.distance(b) < 1e-5, "{a} vs {b}");
        assert_eq!(mirror_rotation(mirror_rotation(q)), q);
    }

    #[test]
    fn a_left_turn_stays_a_left_turn() {
        // A character facing +Z turning to its left: in glTF (right hand on -X) left is +X, so the turn is about
        // +Y by a positive angle; in Unity (right hand on +X) left is -X, a negative angle about +Y.
        let gltf_turn = Quat::from_rotation_y(0.5);
        let unity_turn = mirror_rotation(gltf_turn);
        let forward_in_unity = unity_turn * Vec3::Z;
        assert!(forward_in_unity.x < 0.0, "{forward_in_unity}");
    }
}
