//! The trigonometry of the look-at solvers without libm calls: polynomial approximations whose error bounds are
//! stated here and checked against the exact functions by property tests. Look-at runs every frame for every
//! chain bone, and libm's `atan2f`, `asinf` and `sinf`/`cosf` were most of its cost.

use std::f32::consts::{FRAC_PI_2, PI};

use glam::{Quat, Vec3};

/// Largest error of [`atan2`] and [`asin`], radians (measured by the property tests at about 2e-6; the bound
/// leaves room for float rounding).
pub const ANGLE_ERROR: f32 = 5e-6;
/// Largest error of [`sin_cos`] on either value, for angles within ±4π.
pub const SIN_COS_ERROR: f32 = 2e-6;

/// atan(z) for |z| ≤ 1: an odd minimax polynomial of degree 11.
fn atan_unit(z: f32) -> f32 {
    let z2 = z * z;
    z * (0.999_977_26
        + z2 * (-0.332_623_47
            + z2 * (0.193_543_46 + z2 * (-0.116_432_87 + z2 * (0.052_653_32 + z2 * -0.011_721_2)))))
}

/// The angle of (x, y) from +x, in (−π, π]; 0 for (0, 0), as `f32::atan2` gives.
pub fn atan2(y: f32, x: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    let (small, large) = if ax < ay { (ax, ay) } else { (ay, ax) };
    if large == 0.0 || !large.is_finite() {
        return y.atan2(x);
    }
    let mut r = atan_unit(small / large);
    if ay > ax {
        r = FRAC_PI_2 - r;
    }
    if x < 0.0 {
        r = PI - r;
    }
    if y < 0.0 { -r } else { r }
}

/// asin(x) for x in [−1, 1] (clamped).
pub fn asin(x: f32) -> f32 {
    let x = x.clamp(-1.0, 1.0);
    atan2(x, (1.0 - x * x).max(0.0).sqrt())
}

/// (sin a, cos a): reduced to a quarter turn around a multiple of π/2, then polynomials of degree 7 and 8.
pub fn sin_cos(a: f32) -> (f32, f32) {
    if !a.is_finite() || a.abs() > 4.0 * PI {
        return a.sin_cos();
    }
    let quadrant = (a * (2.0 / PI)).round();
    // π/2 in two parts, so the reduction keeps the bits a single f32 constant would lose.
    let r = (a - quadrant * 1.570_796_4) + quadrant * 4.371_139e-8;
    let r2 = r * r;
    let s = r * (1.0 + r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0))));
    let c = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 + r2 * (1.0 / 40320.0))));
    match (quadrant as i32).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// Direction → (yaw about +Y from +Z toward +X, elevation), radians.
pub(crate) fn yaw_pitch(d: Vec3) -> (f32, f32) {
    (atan2(d.x, d.z), asin(d.y))
}

pub(crate) fn from_yaw_pitch(yaw: f32, pitch: f32) -> Vec3 {
    let ((sy, cy), (sp, cp)) = (sin_cos(yaw), sin_cos(pitch));
    Vec3::new(sy * cp, sp, cy * cp)
}

/// An angle in (−3π, 3π) (a difference of two angles in [−π, π]) brought into [−π, π).
pub(crate) fn wrap_angle(a: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    if a >= PI {
        a - TAU
    } else if a < -PI {
        a + TAU
    } else {
        a
    }
}

/// The fraction `weight` (clamped to [0, 1]) of the turn `full`: slerp from the identity, i.e. the same axis and
/// `weight` times the angle (one arctangent and one sine-cosine pair, where glam's slerp takes an arccosine and
/// three sines); `full` itself at 1.
pub(crate) fn partial_turn(full: Quat, weight: f32) -> Quat {
    let w = weight.clamp(0.0, 1.0);
    if w >= 1.0 {
        return full;
    }
    // The shorter way round: w ≥ 0.
    let full = if full.w < 0.0 { -full } else { full };
    let v = Vec3::new(full.x, full.y, full.z);
    let s = v.length();
    if s < 1e-12 {
        return Quat::IDENTITY;
    }
    let (sin, cos) = sin_cos(w * atan2(s, full.w));
    let v = v * (sin / s);
    Quat::from_xyzw(v.x, v.y, v.z, cos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The difference of two angles, the short way round.
    fn angle_diff(a: f32, b: f32) -> f32 {
        let d = (a - b).rem_euclid(2.0 * PI);
        d.min(2.0 * PI - d)
    }

    #[test]
    fn the_axes_and_the_corners_are_exact_enough() {
        for (y, x) in [
            (0.0, 1.0),
            (1.0, 0.0),
            (0.0, -1.0),
            (-1.0, 0.0),
            (1.0, 1.0),
            (-1.0, -1.0),
            (0.0, 0.0),
        ] {
            assert!(
                angle_diff(atan2(y, x), y.atan2(x)) <= ANGLE_ERROR,
                "({y}, {x})"
            );
        }
        assert!((asin(1.0) - FRAC_PI_2).abs() <= ANGLE_ERROR);
        assert!((asin(-1.0) + FRAC_PI_2).abs() <= ANGLE_ERROR);
    }

    proptest! {
        #[test]
        fn atan2_is_within_its_bound(y in -10.0f32..10.0, x in -10.0f32..10.0) {
            prop_assert!(angle_diff(atan2(y, x), y.atan2(x)) <= ANGLE_ERROR);
        }

        #[test]
        fn asin_is_within_its_bound(x in -1.0f32..=1.0) {
            prop_assert!((asin(x) - x.asin()).abs() <= ANGLE_ERROR);
        }

        #[test]
        fn sin_cos_is_within_its_bound(a in -4.0 * PI..4.0 * PI) {
            let (s, c) = sin_cos(a);
            let (es, ec) = a.sin_cos();
            prop_assert!((s - es).abs() <= SIN_COS_ERROR, "sin {a}: {s} vs {es}");
            prop_assert!((c - ec).abs() <= SIN_COS_ERROR, "cos {a}: {c} vs {ec}");
        }
    }
}
