//! The quaternion constructions ozz-animation's IK jobs are written with (`SimdQuaternion::FromVectors`,
//! `FromAxisCosAngle`, the sign fix-up and the weighted normalised lerp), in scalar form, so that the jobs give
//! ozz's corrections and not merely equivalent ones.

use glam::{Mat3A, Mat4, Quat, Vec3A, Vec4};

/// The rotation taking `from` onto `to` about their common perpendicular (lolengine's construction, as ozz's
/// `FromVectors`): identity when either is near zero, 180° about an axis orthogonal to `from` when they are
/// opposite. Neither needs to be normalised.
pub(crate) fn from_vectors(from: Vec3A, to: Vec3A) -> Quat {
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
        Vec4::from((from.cross(to), real))
    };
    Quat::from_vec4(q * rsqrt(Vec4::splat(q.length_squared())).x)
}

/// The roll of ozz's IK jobs: a turn about the unit `axis` (negated when `flip`) by the angle between the plane
/// normals `from` and `to`, as ozz's `FromAxisCosAngle(±axis, cos(from, to))`. Built from the half-vector
/// (|from × to| along the axis, |from||to| + from · to), which is the same rotation but keeps small angles exact
/// where the cosine loses them; half a turn about `axis` when the normals are opposite.
pub(crate) fn plane_roll(from: Vec3A, to: Vec3A, axis: Vec3A, flip: bool) -> Quat {
    let norms = (from.length_squared() * to.length_squared()).sqrt();
    let real = norms + from.dot(to);
    let axis = if flip { -axis } else { axis };
    let q = if real < 1e-6 * norms {
        Vec4::from((axis, 0.0))
    } else {
        Vec4::from((axis * from.cross(to).length(), real))
    };
    Quat::from_vec4(q * rsqrt(Vec4::splat(q.length_squared())).x)
}

/// The rotation about the unit `axis` whose angle has cosine `cos` (in [-1, 1]), as ozz's `FromAxisCosAngle` (both
/// square roots in one SIMD operation).
pub(crate) fn from_axis_cos_angle(axis: Vec3A, cos: f32) -> Quat {
    let half_cos2 = (1.0 + cos) * 0.5;
    let half_sin2 = 1.0 - half_cos2;
    let roots = Vec4::new(half_sin2, half_cos2, 0.0, 0.0).sqrt();
    Quat::from_vec4(Vec4::from((axis * roots.x, roots.y)))
}

/// 1/√v per lane, as ozz's `RSqrtEstNR`: the SSE estimate (relative error at most 1.5·2⁻¹², Intel's bound) refined
/// by one Newton-Raphson step, y(3 − v·y²)/2, which squares that error: at most 1.5·(1.5·2⁻¹²)² ≈ 2.0e-7 relative,
/// plus the step's own rounding (tested below at 5e-7). Elsewhere than x86-64, the exact 1/√v.
#[cfg(target_arch = "x86_64")]
pub(crate) fn rsqrt(v: Vec4) -> Vec4 {
    use std::arch::x86_64::{__m128, _mm_mul_ps, _mm_rsqrt_ps, _mm_set1_ps, _mm_sub_ps};
    let x: __m128 = v.into();
    // SAFETY: SSE is part of every x86-64 processor (the target's baseline), so these instructions exist.
    let refined = unsafe {
        let y = _mm_rsqrt_ps(x);
        _mm_mul_ps(
            _mm_mul_ps(_mm_set1_ps(0.5), y),
            _mm_sub_ps(_mm_set1_ps(3.0), _mm_mul_ps(_mm_mul_ps(x, y), y)),
        )
    };
    Vec4::from(refined)
}

/// 1/√v per lane (exact here; the x86-64 build uses the refined SSE estimate).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn rsqrt(v: Vec4) -> Vec4 {
    Vec4::ONE / v.sqrt()
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

/// The inverse of a joint's model matrix (affine: its last row, which ozz's full 4 × 4 inverse would also carry, is
/// taken as (0, 0, 0, 1)), kept as the inverse of its 3 × 3 part and its origin: a point goes back as
/// `linear · (p − origin)`, which spares computing the inverse's translation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointInverse {
    linear: Mat3A,
    origin: Vec3A,
}

impl JointInverse {
    /// A model-space point in the joint's space.
    #[inline(always)]
    pub(crate) fn point(&self, p: Vec3A) -> Vec3A {
        self.linear * (p - self.origin)
    }

    /// A model-space direction in the joint's space.
    #[inline(always)]
    pub(crate) fn vector(&self, v: Vec3A) -> Vec3A {
        self.linear * v
    }
}

/// The inverse of a joint's model matrix; None when it has none (ozz then gives identity corrections): a singular
/// matrix inverts to infinities or NaN, which one SIMD test finds.
pub(crate) fn inverse(m: &Mat4) -> Option<JointInverse> {
    let linear = Mat3A::from_mat4(*m).inverse();
    let below = |c: Vec3A| c.abs().cmplt(Vec3A::splat(f32::INFINITY));
    (below(linear.x_axis) & below(linear.y_axis) & below(linear.z_axis))
        .all()
        .then_some(JointInverse {
            linear,
            origin: Vec3A::from_vec4(m.w_axis),
        })
}

/// Whether every input is finite, in one pass over registers: x·0 is 0 for a finite x and NaN for ±∞ and NaN, so
/// one sum of such products tells. What both IK jobs' `validate()` start with; [`first_not_finite`] names the
/// culprit when this fails.
#[inline(always)]
pub(crate) fn all_finite(vectors: &[Vec3A], scalars: &[f32], matrices: &[&Mat4]) -> bool {
    let mut v = Vec3A::ZERO;
    for x in vectors {
        v += *x * 0.0;
    }
    let mut m = Vec4::ZERO;
    for x in matrices {
        m += x.x_axis * 0.0 + x.y_axis * 0.0 + x.z_axis * 0.0 + x.w_axis * 0.0;
    }
    let s = scalars.iter().fold(0.0, |acc, x| acc + x * 0.0);
    (m + Vec4::from((v, s))).element_sum() == 0.0
}

/// The name of the first input that is not finite (|v| < ∞ per SIMD lane fails for ±∞ and NaN), None when all
/// are: the error's detail once [`all_finite`] has failed.
#[cold]
pub(crate) fn first_not_finite(
    vectors: &[(&'static str, Vec3A)],
    scalars: &[(&'static str, f32)],
    matrices: &[(&'static str, &Mat4)],
) -> Option<&'static str> {
    let finite_vector = |v: &Vec3A| v.abs().cmplt(Vec3A::splat(f32::INFINITY)).all();
    let vector = vectors.iter().find(|(_, v)| !finite_vector(v));
    let scalar = scalars.iter().find(|(_, s)| !s.is_finite());
    let matrix = matrices.iter().find(|(_, m)| !is_finite_matrix(m));
    vector
        .map(|(n, _)| *n)
        .or(scalar.map(|(n, _)| *n))
        .or(matrix.map(|(n, _)| *n))
}

/// Whether every entry of a matrix is finite (a SIMD comparison per column: |v| < ∞ fails for ±∞ and NaN).
fn is_finite_matrix(m: &Mat4) -> bool {
    let below = |c: Vec4| c.abs().cmplt(Vec4::INFINITY);
    (below(m.x_axis) & below(m.y_axis) & below(m.z_axis) & below(m.w_axis)).all()
}

/// Whether `v` is a unit vector within ozz's estimate tolerance (`IsNormalizedEst3`: |length² − 1| < 2e-3).
pub(crate) fn is_normalized_est(v: Vec3A) -> bool {
    (v.length_squared() - 1.0).abs() < 2e-3
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

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
            let q = from_vectors(a.into(), b.into());
            assert!(
                (q * a.normalize() - b.normalize()).length() < 1e-5,
                "{a} {b}"
            );
        }
        assert_eq!(from_vectors(Vec3A::ZERO, Vec3A::X), Quat::IDENTITY);
    }

    /// The refined estimate's bound, checked over twelve decades in f64.
    #[test]
    fn rsqrt_is_within_5e_7_of_the_exact_value() {
        let mut worst = 0.0f64;
        for k in 0..4000 {
            let v = 10f32.powf(-6.0 + 12.0 * k as f32 / 4000.0);
            let got = f64::from(rsqrt(Vec4::new(v, 2.0 * v, 3.0 * v, 0.5 * v)).x);
            let exact = 1.0 / f64::from(v).sqrt();
            worst = worst.max((got - exact).abs() / exact);
        }
        assert!(worst < 5e-7, "{worst}");
    }

    /// The plane roll is the turn about the axis by the angle between the normals, small angles included (where
    /// ozz's cosine form loses digits), and half a turn for opposite normals.
    #[test]
    fn plane_roll_turns_one_normal_onto_the_other_about_the_axis() {
        let axis = Vec3::new(1.0, -2.0, 0.5).normalize();
        let side = axis.any_orthonormal_vector();
        for angle in [1e-4f32, 0.01, 0.3, 1.5, 3.0, -0.7] {
            let from = side * 2.0;
            let to = Quat::from_axis_angle(axis, angle) * side * 0.5;
            let q = plane_roll(from.into(), to.into(), axis.into(), angle < 0.0);
            let expected = Quat::from_axis_angle(axis, angle);
            assert!(
                q.abs_diff_eq(expected, 2e-6) || q.abs_diff_eq(-expected, 2e-6),
                "{angle}: {q}"
            );
        }
        let q = plane_roll(side.into(), (-side).into(), axis.into(), false);
        assert!((q * side + side).length() < 1e-5, "{q}");
    }

    #[test]
    fn from_axis_cos_angle_is_the_axis_angle_rotation() {
        let axis = Vec3::new(1.0, -2.0, 0.5).normalize();
        for angle in [0.0f32, 0.3, 1.5, 3.0] {
            let q = from_axis_cos_angle(axis.into(), angle.cos());
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
