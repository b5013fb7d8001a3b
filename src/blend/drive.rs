//! Driving the blend point as a game does: a stick (keys or a gamepad's left stick, in the unit disc) names a
//! target point on the space's axes, and the point follows it through a critically damped spring whose
//! acceleration is capped, so that it eases in and out like a character's speed instead of jumping.
//!
//! The stick's rest is the origin clamped into the axes (standing still on velocity axes); pushing it fully to a
//! side reaches that end of the axis. In a 1D space the stick's forward axis drives the one axis.

use serde::{Deserialize, Serialize};

use super::BlendSpace;

/// How the point follows the stick.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DriveParams {
    /// About how long the point takes to settle on a new target (seconds): the spring's 2 / ω.
    pub response_s: f64,
    /// The largest acceleration of the point (axis units per second²: m/s² on velocity axes).
    pub max_acceleration: f64,
}

impl Default for DriveParams {
    fn default() -> Self {
        DriveParams {
            response_s: 0.3,
            max_acceleration: 6.0,
        }
    }
}

/// The point's motion between frames.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Drive {
    /// How fast the point moves (axis units per second).
    pub velocity: [f64; 2],
}

/// Longest step the spring is integrated over at once (seconds); longer frames take several.
const MAX_STEP_S: f64 = 1.0 / 240.0;

impl Drive {
    /// The point the stick asks for: the stick's rest at the origin (clamped into the axes), a full push reaching
    /// the end of an axis. `stick` is clamped into the unit disc; x is to the right, y forward.
    pub fn target(space: &BlendSpace, stick: [f64; 2]) -> [f64; 2] {
        let [mut x, mut y] = stick.map(|v| if v.is_finite() { v } else { 0.0 });
        let length = (x * x + y * y).sqrt();
        if length > 1.0 {
            x /= length;
            y /= length;
        }
        let along = |axis: &super::BlendAxis, s: f64| {
            let rest = 0.0f64.clamp(axis.min.min(axis.max), axis.max.max(axis.min));
            if s >= 0.0 {
                rest + s * (axis.max - rest)
            } else {
                rest + s * (rest - axis.min)
            }
        };
        let [ax, ay] = &space.axes;
        if space.mode.is_2d() {
            [along(ax, x), along(ay, y)]
        } else {
            [along(ax, y), 0.0]
        }
    }

    /// Moves `point` towards `target` by `dt` seconds of the spring; returns the new point.
    pub fn step(
        &mut self,
        point: [f64; 2],
        target: [f64; 2],
        dt: f64,
        params: &DriveParams,
    ) -> [f64; 2] {
        if !(dt.is_finite() && dt > 0.0 && point.iter().chain(&target).all(|v| v.is_finite())) {
            return point;
        }
        let omega = 2.0 / params.response_s.max(1e-3);
        let cap = params.max_acceleration.max(0.0);
        let steps = (dt / MAX_STEP_S).ceil().clamp(1.0, 10_000.0) as usize;
        let h = dt / steps as f64;
        let mut p = point;
        for _ in 0..steps {
            let mut a = [0.0; 2];
            for k in 0..2 {
                a[k] = omega * omega * (target[k] - p[k]) - 2.0 * omega * self.velocity[k];
            }
            let size = (a[0] * a[0] + a[1] * a[1]).sqrt();
            if size > cap {
                a = a.map(|v| v * cap / size);
            }
            for k in 0..2 {
                self.velocity[k] += a[k] * h;
                p[k] += self.velocity[k] * h;
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blend::{BlendAxis, BlendMode};

    fn space() -> BlendSpace {
        BlendSpace {
            mode: BlendMode::FreeformDirectional,
            axes: [
                BlendAxis {
                    name: "Velocity X".into(),
                    min: -2.0,
                    max: 2.0,
                },
                BlendAxis {
                    name: "Velocity Z".into(),
                    min: -2.0,
                    max: 4.0,
                },
            ],
            ..BlendSpace::default()
        }
    }

    #[test]
    fn the_stick_reaches_the_ends_of_the_axes_from_a_rest_at_the_origin() {
        let s = space();
        assert_eq!(Drive::target(&s, [0.0, 0.0]), [0.0, 0.0]);
        assert_eq!(Drive::target(&s, [0.0, 1.0]), [0.0, 4.0]);
        assert_eq!(Drive::target(&s, [0.0, -1.0]), [0.0, -2.0]);
        assert_eq!(Drive::target(&s, [-1.0, 0.0]), [-2.0, 0.0]);
        let diagonal = Drive::target(&s, [1.0, 1.0]);
        assert!((diagonal[0] - 2.0 * 0.5f64.sqrt()).abs() < 1e-12);
        let mut one_d = space();
        one_d.mode = BlendMode::OneD;
        one_d.axes[0].min = 0.0;
        one_d.axes[0].max = 5.0;
        assert_eq!(Drive::target(&one_d, [0.0, 1.0]), [5.0, 0.0]);
        assert_eq!(Drive::target(&one_d, [0.0, -1.0]), [0.0, 0.0]);
    }

    /// Critically damped: the point settles on the target without passing it, within a few response times.
    #[test]
    fn the_point_settles_without_overshoot() {
        let mut d = Drive::default();
        let params = DriveParams {
            response_s: 0.3,
            max_acceleration: 1e9,
        };
        let mut p = [0.0, 0.0];
        for _ in 0..120 {
            p = d.step(p, [0.0, 3.0], 1.0 / 60.0, &params);
            assert!(p[1] <= 3.0 + 1e-9, "{p:?}");
        }
        assert!((p[1] - 3.0).abs() < 0.01, "{p:?}");
    }

    /// The acceleration cap bounds how fast the speed changes: from rest, after t seconds at most a·t.
    #[test]
    fn the_acceleration_stays_under_its_cap() {
        let mut d = Drive::default();
        let params = DriveParams {
            response_s: 0.05,
            max_acceleration: 2.0,
        };
        let mut p = [0.0, 0.0];
        for k in 1..=30 {
            p = d.step(p, [0.0, 4.0], 1.0 / 60.0, &params);
            let t = k as f64 / 60.0;
            assert!(d.velocity[1] <= 2.0 * t + 1e-9, "{t}: {:?}", d.velocity);
            // a·t²/2, plus what the integration's steps of 1/240 s add (a·h·t/2).
            assert!(
                p[1] <= t * t + 2.0 * MAX_STEP_S * t / 2.0 + 1e-9,
                "{t}: {p:?}"
            );
        }
        // A frame of a whole second is integrated in small steps, as sixty frames would be.
        let (mut a, mut b) = (Drive::default(), Drive::default());
        let mut pa = [0.0, 0.0];
        for _ in 0..60 {
            pa = a.step(pa, [1.0, 1.0], 1.0 / 60.0, &DriveParams::default());
        }
        let pb = b.step([0.0, 0.0], [1.0, 1.0], 1.0, &DriveParams::default());
        assert!((pa[0] - pb[0]).abs() < 1e-3 && (pa[1] - pb[1]).abs() < 1e-3);
    }
}
