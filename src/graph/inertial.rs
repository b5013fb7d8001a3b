//! The per-bone curves of the two transition models that do not crossfade states: inertialization's quintic
//! decay of the source-to-destination offset (Bollo, "Inertialization: High-Performance Animation Transitions in
//! Gears of War", GDC 2018), and dead blending's extrapolation of the source with a decaying velocity (Holden,
//! "Dead Blending", 2023), both as pure functions of time.

use std::f64::consts::LN_2;

/// Bollo's `CalcInertialFloat`: the offset `t` seconds into a blend of length `t1` that starts at `x0` moving at
/// `v0`. A quintic with x(t1) = x′(t1) = x″(t1) = 0 and x(0) = x0; to keep it from overshooting zero, a velocity
/// away from zero is dropped, `t1` is shortened to −5·x0/v0 when the velocity would carry it past zero sooner, and
/// the starting acceleration (chosen for zero jerk at the start) is clamped to push towards zero.
pub fn inertial_offset(x0: f64, v0: f64, t1: f64, t: f64) -> f64 {
    if x0 == 0.0 || t1.is_nan() || t1 <= 0.0 {
        return 0.0;
    }
    // Worked with x0 > 0 (the sign restored at the end).
    let sign = x0.signum();
    let (x0, mut v0) = (x0 * sign, v0 * sign);
    if v0 > 0.0 {
        v0 = 0.0;
    }
    let t1 = if v0 < 0.0 { t1.min(-5.0 * x0 / v0) } else { t1 };
    let t = t.max(0.0);
    if t >= t1 {
        return 0.0;
    }
    let [a, b, c, a0] = quintic(x0, v0, t1);
    let x = (((a * t + b) * t + c) * t + a0 / 2.0) * t * t + v0 * t + x0;
    sign * x
}

/// The quintic's coefficients A, B, C (of t⁵, t⁴, t³) and its starting acceleration a0.
fn quintic(x0: f64, v0: f64, t1: f64) -> [f64; 4] {
    let t2 = t1 * t1;
    let a0 = ((-8.0 * v0 * t1 - 20.0 * x0) / t2).max(0.0);
    let a = -(a0 * t2 + 6.0 * v0 * t1 + 12.0 * x0) / (2.0 * t2 * t2 * t1);
    let b = (3.0 * a0 * t2 + 16.0 * v0 * t1 + 30.0 * x0) / (2.0 * t2 * t2);
    let c = -(3.0 * a0 * t2 + 12.0 * v0 * t1 + 20.0 * x0) / (2.0 * t2 * t1);
    [a, b, c, a0]
}

/// Dead blending's extrapolation: where a value at `x0` moving at `v0` is `t` seconds later when its velocity
/// halves every `halflife` seconds: x0 + v0·h/ln 2·(1 − e^(−t·ln 2/h)). Without a half-life it stays at `x0`.
pub fn dead_extrapolate(x0: f64, v0: f64, halflife: f64, t: f64) -> f64 {
    if halflife.is_nan() || halflife <= 0.0 {
        return x0;
    }
    let k = LN_2 / halflife;
    x0 + v0 / k * (1.0 - (-k * t.max(0.0)).exp())
}

/// Dead blending's crossfade weight of the destination at `progress` in [0, 1]: smoothstep, so that both the
/// pose and its velocity are continuous where the blend starts and ends.
pub fn dead_blend_weight(progress: f64) -> f64 {
    let x = progress.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Value, first and second derivative by central differences.
    fn derivatives(f: impl Fn(f64) -> f64, t: f64) -> [f64; 3] {
        let h = 1e-4;
        let (a, b, c) = (f(t - h), f(t), f(t + h));
        [b, (c - a) / (2.0 * h), (c - 2.0 * b + a) / (h * h)]
    }

    /// The quintic ends at rest: x(t1) = x′(t1) = x″(t1) = 0, from the coefficients themselves (exact polynomials,
    /// so the closed forms of its derivatives, not differences).
    #[test]
    fn the_quintic_ends_at_rest() {
        for (x0, v0, t1) in [
            (1.0, 0.0, 0.5),
            (0.3, -0.2, 0.4),
            (2.0, -1.0, 1.0),
            (0.01, -3.0, 0.3),
        ] {
            let t1 = if v0 < 0.0 {
                f64::min(t1, -5.0 * x0 / v0)
            } else {
                t1
            };
            let [a, b, c, a0] = quintic(x0, v0, t1);
            let x = a * t1.powi(5)
                + b * t1.powi(4)
                + c * t1.powi(3)
                + a0 / 2.0 * t1 * t1
                + v0 * t1
                + x0;
            let dx = 5.0 * a * t1.powi(4) + 4.0 * b * t1.powi(3) + 3.0 * c * t1 * t1 + a0 * t1 + v0;
            let ddx = 20.0 * a * t1.powi(3) + 12.0 * b * t1 * t1 + 6.0 * c * t1 + a0;
            for (what, v) in [("x", x), ("x'", dx), ("x''", ddx)] {
                assert!(
                    v.abs() < 1e-9 * (1.0 + x0 / t1 / t1),
                    "{what}(t1) = {v} for {x0} {v0} {t1}"
                );
            }
        }
    }

    /// It starts where the offset is (and at its velocity when that points towards zero and leaves time to stop),
    /// is zero from t1 on, and never crosses zero, over a grid of starts, velocities both ways and lengths.
    #[test]
    fn the_offset_starts_at_x0_and_never_overshoots() {
        for x0 in [-1.0, -0.05, 0.02, 0.5, 3.0] {
            for v0 in [-20.0, -2.0, -0.1, 0.0, 0.1, 2.0, 20.0] {
                for t1 in [0.1, 0.3, 1.0] {
                    let f = |t| inertial_offset(x0, v0, t1, t);
                    assert!((f(0.0) - x0).abs() < 1e-12);
                    assert_eq!(f(t1), 0.0);
                    for k in 0..=1000 {
                        let x = f(t1 * k as f64 / 1000.0);
                        assert!(x * x0 >= -1e-12, "{x0} {v0} {t1}: {x} at step {k}");
                        assert!(x.abs() <= x0.abs() + 1e-12, "{x0} {v0} {t1}: grows to {x}");
                    }
                    let toward = v0 * x0 < 0.0 && -5.0 * x0 / v0 >= t1;
                    if toward {
                        let h = 1e-7 * t1;
                        let d = (f(h) - f(0.0)) / h;
                        assert!((d - v0).abs() < 1e-3 * v0.abs(), "{x0} {v0} {t1}: {d}");
                    }
                }
            }
        }
    }

    /// Dead blending continues the source's motion: x(0) = x0, x′(0) = v0, the velocity halves every half-life,
    /// and the blended value (smoothstep weight) is continuous with the source in value and velocity at the
    /// switch and reaches the destination at the end.
    #[test]
    fn dead_blending_is_continuous_at_the_switch() {
        let (x0, v0, h) = (0.4, 1.5, 0.15);
        let f = |t| dead_extrapolate(x0, v0, h, t);
        let [x, d, _] = derivatives(f, 1e-4);
        assert!(
            (x - x0 - v0 * 1e-4).abs() < 1e-6 && (d - v0).abs() < 1e-3,
            "{x} {d}"
        );
        let [_, dh, _] = derivatives(f, h);
        assert!((dh - v0 / 2.0).abs() < 1e-4, "{dh}");
        let dest = |t: f64| -0.3 + 0.2 * t;
        let blend_time = 0.25;
        let blended = |t: f64| {
            let w = dead_blend_weight(t / blend_time);
            f(t) * (1.0 - w) + dest(t) * w
        };
        let [b0, db0, _] = derivatives(blended, 1e-4);
        assert!((b0 - f(1e-4)).abs() < 1e-6, "{b0}");
        assert!((db0 - v0).abs() < 1e-2, "velocity at the switch {db0}");
        assert!((blended(blend_time) - dest(blend_time)).abs() < 1e-12);
        assert_eq!(dead_extrapolate(x0, v0, 0.0, 1.0), x0);
    }
}
