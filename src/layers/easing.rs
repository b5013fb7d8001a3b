//! Easing curves for the breath phases: maps of [0, 1] onto [0, 1] with f(0) = 0 and f(1) = 1.

use std::f32::consts::PI;

use serde::{Deserialize, Serialize};

/// An easing curve, by its usual name (easings.net).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Easing {
    /// No easing.
    Linear,
    /// Fast start, gentle end: sin(t·π/2).
    #[default]
    EaseOutSine,
    /// Gentle at both ends: (1 − cos(t·π))/2.
    EaseInOutSine,
    /// Quadratic, gentle at both ends.
    EaseInOutQuad,
    /// Cubic, fast start: 1 − (1 − t)³.
    EaseOutCubic,
    /// Quartic, fast start: 1 − (1 − t)⁴.
    EaseOutQuart,
    /// Quartic, gentle at both ends.
    EaseInOutQuart,
    /// Exponential, fast start: 1 − 2^(−10t).
    EaseOutExpo,
}

impl Easing {
    /// Every curve, in menu order.
    pub const ALL: [Easing; 8] = [
        Easing::Linear,
        Easing::EaseOutSine,
        Easing::EaseInOutSine,
        Easing::EaseInOutQuad,
        Easing::EaseOutCubic,
        Easing::EaseOutQuart,
        Easing::EaseInOutQuart,
        Easing::EaseOutExpo,
    ];

    /// The name shown in the UI and stored in presets.
    pub fn name(self) -> &'static str {
        match self {
            Easing::Linear => "Linear",
            Easing::EaseOutSine => "EaseOutSine",
            Easing::EaseInOutSine => "EaseInOutSine",
            Easing::EaseInOutQuad => "EaseInOutQuad",
            Easing::EaseOutCubic => "EaseOutCubic",
            Easing::EaseOutQuart => "EaseOutQuart",
            Easing::EaseInOutQuart => "EaseInOutQuart",
            Easing::EaseOutExpo => "EaseOutExpo",
        }
    }

    /// The eased value of `t`, clamped to [0, 1].
    pub fn apply(self, t: f32) -> f32 {
        let t = if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        };
        match self {
            Easing::Linear => t,
            Easing::EaseOutSine => (t * PI / 2.0).sin(),
            Easing::EaseInOutSine => (1.0 - (t * PI).cos()) / 2.0,
            Easing::EaseInOutQuad => {
                if t < 0.5 {
                    2.0 * t * t
                } else {
                    1.0 - (-2.0 * t + 2.0).powi(2) / 2.0
                }
            }
            Easing::EaseOutCubic => 1.0 - (1.0 - t).powi(3),
            Easing::EaseOutQuart => 1.0 - (1.0 - t).powi(4),
            Easing::EaseInOutQuart => {
                if t < 0.5 {
                    8.0 * t.powi(4)
                } else {
                    1.0 - (-2.0 * t + 2.0).powi(4) / 2.0
                }
            }
            Easing::EaseOutExpo => {
                if t >= 1.0 {
                    1.0
                } else {
                    1.0 - 2f32.powf(-10.0 * t)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_curve_starts_at_0_ends_at_1_and_rises() {
        for e in Easing::ALL {
            assert_eq!(e.apply(0.0), 0.0, "{e:?}");
            assert!((e.apply(1.0) - 1.0).abs() < 1e-6, "{e:?}");
            let mut prev = 0.0;
            for k in 1..=100 {
                let v = e.apply(k as f32 / 100.0);
                assert!(v >= prev - 1e-6, "{e:?} falls at {k}");
                prev = v;
            }
        }
        assert!((Easing::EaseInOutQuad.apply(0.25) - 0.125).abs() < 1e-6);
        assert!((Easing::EaseOutSine.apply(0.5) - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
    }
}
