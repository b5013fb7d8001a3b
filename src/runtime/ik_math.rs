//! The quaternion constructions ozz-animation's IK jobs are written with (`SimdQuaternion::FromVectors`,
//! `FromAxisCosAngle`, the sign fix-up and the weighted normalised lerp), in scalar form, so that the jobs give
//! ozz's corrections and not merely equivalent ones.

use glam::{Mat4, Quat, Vec3, Vec4};

/// The rotation taking `from` onto `to` about their common perpendicular (lolengine's construction, as ozz's
/// `FromVectors`): identity when either is near zero, 180° about an axis orthogonal to `from` when they are
/// opposite. Neither needs to be normalised.
pub(crate) fn from_vectors(from: Vec3, to: Vec3) -> Quat {
    let norms = (from.length_squared() * to.length_squared()).sqrt();
    if norms < 1e-6 {
        return Quat::IDENTITY;
    }
    let real = norms + from.dot(to);
    let q = if real < 1e-6 * norms {
        if from.x.abs() > from.z.abs() {
            Vec4::new(-from.y, from.x, 0.0, 0.0)
        } else {
            Vec4::new(0.0, -from.z, from.y, 0.0)
        }
    } else {
        from.cross(to).extend(real)
    };
    Quat::from_vec4(q.normalize())
}

/// The rotation about the unit `axis` whose angle has cosine `cos` (in [-1, 1]), as ozz's `FromAxisCosAngle`.
pub(crate) fn from_axis_cos_angle(axis: Vec3, cos: f32) -> Quat {
    let half_cos2 = (1.0 + cos) * 0.5;
    let half_sin2 = 1.0 - half_cos2;
    Quat::from_vec4((axis * half_sin2.sqrt()).extend(half_cos2.sqrt()))
}

/// `q` with its w made non-negative (the same rotation), so that a lerp from identity takes the short way.
pub(crate) fn positive_w(q: Quat) -> Quat {
    if q.w < 0.0 { -q } else { q }
}

/// The normalised lerp from identity to `q` by `weight` (clamped below at 0), as ozz weighs a correction.
pub(crate) fn weighted(q: Quat, weight: f32) -> Quat {
    let t = weight.max(0.0);
    let v = Vec4::W + (Vec4::from(q) - Vec4::W) * t;
    Quat::from_vec4(v.normalize())
}

/// The inverse of a joint's model matrix, None when it has none (ozz then gives identity corrections).
pub(crate) fn inverse(m: &Mat4) -> Option<Mat4> {
    let det = m.determinant();
    (det.is_finite() && det.abs() > f32::MIN_POSITIVE).then(|| m.inverse())
}

/// Whether `v` is a unit vector within ozz's estimate tolerance (`IsNormalizedEst3`: |length² − 1| < 2e-3).
pub(crate) fn is_normalized_est(v: Vec3) -> bool {
    (v.length_squared() - 1.0).abs() < 2e-3
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written from the construction: the result takes the direction of `from` onto that of `to`.
    #[test]
    fn from_vectors_turns_one_direction_onto_the_other() {
        for (a, b) in [
            (Vec3::X, Vec3::Y),
            (Vec3::new(1.0, 2.0, 3.0), Vec3::new(-2.0, 0.5, 1.0)),
            (Vec3::Z, Vec3::Z * 3.0),
            (Vec3::X, -Vec3::X),
            (Vec3::Z, -Vec3::Z * 2.0),
        ] {
            let q = from_vectors(a, b);
            assert!(
                (q * a.normalize() - b.normalize()).length() < 1e-5,
                "{a} {b}"
            );
        }
        assert_eq!(from_vectors(Vec3::ZERO, Vec3::X), Quat::IDENTITY);
    }

    #[test]
    fn from_axis_cos_angle_is_the_axis_angle_rotation() {
        let axis = Vec3::new(1.0, -2.0, 0.5).normalize();
        for angle in [0.0f32, 0.3, 1.5, 3.0] {
            let q = from_axis_cos_angle(axis, angle.cos());
            assert!(q.abs_diff_eq(Quat::from_axis_angle(axis, angle), 1e-6));
        }
    }

    #[test]
    fn a_weighted_correction_runs_from_identity_to_the_correction() {
        let q = Quat::from_rotation_y(1.2);
        assert!(weighted(q, 0.0).abs_diff_eq(Quat::IDENTITY, 1e-7));
        assert!(weighted(q, 1.0).abs_diff_eq(q, 1e-6));
        let half = weighted(q, 0.5);
        assert!((half.to_axis_angle().1 - 0.6).abs() < 0.02);
        assert!(positive_w(-q).w > 0.0);
    }
}
