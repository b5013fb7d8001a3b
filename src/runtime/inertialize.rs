//! Per-bone transitions that do not crossfade poses, as jobs in ozz's shape (caller-owned buffers, `validate()`,
//! `run()`): inertialization (Bollo, "Inertialization: High-Performance Animation Transitions in Gears of War",
//! GDC 2018), which adds to the destination the offset from the pose shown when the transition started, each
//! bone's translation length and rotation angle decaying along a fixed direction by a quintic; and dead blending
//! (Holden, "Dead Blending", 2023), which extrapolates the pose shown with its velocity halving every half-life and
//! crossfades it into the destination by smoothstep. Scale is the destination's.
//!
//! [`TransitionStartJob`] records where a transition starts (the pose shown and its velocity from the one before);
//! [`InertialOffsetJob`] measures inertialization's offsets against the destination as it starts; then each frame
//! [`InertializationJob`] or [`DeadBlendingJob`] turns the destination into the transition's pose.

use glam::{Quat, Vec3, Vec3A};

use super::JobError;
use super::check::check_len;
use crate::core::Transform;

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

/// A bone's pose and velocity where a per-bone transition started, and for inertialization its offset from the
/// destination then: a translation (direction, length, speed along it) and a rotation (axis, angle, angular speed
/// about it), each decayed along its fixed direction.
#[derive(Clone, Copy, Debug)]
pub struct BoneStart {
    pose: Transform,
    velocity: Vec3A,
    angular: Vec3A,
    offset_dir: Vec3A,
    offset_len: f32,
    offset_speed: f32,
    offset_axis: Vec3,
    offset_angle: f32,
    offset_spin: f32,
}

impl Default for BoneStart {
    fn default() -> Self {
        BoneStart {
            pose: Transform::IDENTITY,
            velocity: Vec3A::ZERO,
            angular: Vec3A::ZERO,
            offset_dir: Vec3A::ZERO,
            offset_len: 0.0,
            offset_speed: 0.0,
            offset_axis: Vec3::X,
            offset_angle: 0.0,
            offset_spin: 0.0,
        }
    }
}

/// Records where a transition starts: per bone the pose `shown` and its velocity from `previous`, the pose shown
/// `dt` seconds before it (empty, or `dt` not above 0: no velocity). `output` holds one entry per bone.
pub struct TransitionStartJob<'a> {
    /// The pose shown when the transition starts.
    pub shown: &'a [Transform],
    /// The pose shown before it (empty: none).
    pub previous: &'a [Transform],
    /// Seconds between the two.
    pub dt: f64,
    /// One start per bone.
    pub output: &'a mut [BoneStart],
}

impl TransitionStartJob<'_> {
    /// Checks the buffers' lengths.
    pub fn validate(&self) -> Result<(), JobError> {
        check_len("output", self.output.len(), self.shown.len())?;
        if !self.previous.is_empty() {
            check_len("previous", self.previous.len(), self.shown.len())?;
        }
        Ok(())
    }

    /// Records every bone's start.
    pub fn run(self) -> Result<(), JobError> {
        self.validate()?;
        let moving = self.previous.len() == self.shown.len() && self.dt > 0.0;
        let inv_dt = if moving { (1.0 / self.dt) as f32 } else { 0.0 };
        for (j, (pose, out)) in self.shown.iter().zip(self.output.iter_mut()).enumerate() {
            let (velocity, angular) = match self.previous.get(j).filter(|_| moving) {
                Some(prev) => {
                    let turn = pose.rotation * prev.rotation.inverse();
                    let turn = if turn.w < 0.0 { -turn } else { turn };
                    (
                        (pose.translation - prev.translation) * inv_dt,
                        Vec3A::from(turn.to_scaled_axis()) * inv_dt,
                    )
                }
                None => (Vec3A::ZERO, Vec3A::ZERO),
            };
            *out = BoneStart {
                pose: *pose,
                velocity,
                angular,
                ..BoneStart::default()
            };
        }
        Ok(())
    }
}

/// Inertialization's offsets: each bone's start against the `destination` pose as the transition starts.
pub struct InertialOffsetJob<'a> {
    /// The destination pose as the transition starts.
    pub destination: &'a [Transform],
    /// The starts, their offsets written.
    pub start: &'a mut [BoneStart],
}

impl InertialOffsetJob<'_> {
    /// Checks the buffers' lengths.
    pub fn validate(&self) -> Result<(), JobError> {
        check_len("start", self.start.len(), self.destination.len())
    }

    /// Measures every bone's offset.
    pub fn run(self) -> Result<(), JobError> {
        self.validate()?;
        for (start, dest) in self.start.iter_mut().zip(self.destination) {
            let offset = start.pose.translation - dest.translation;
            start.offset_len = offset.length();
            if start.offset_len > 0.0 {
                start.offset_dir = offset / start.offset_len;
                start.offset_speed = start.velocity.dot(start.offset_dir);
            }
            let turn = start.pose.rotation * dest.rotation.inverse();
            let turn = if turn.w < 0.0 { -turn } else { turn };
            let (axis, angle) = turn.to_axis_angle();
            if angle > 0.0 && axis.is_finite() {
                start.offset_axis = axis;
                start.offset_angle = angle;
                start.offset_spin = start.angular.dot(Vec3A::from(axis));
            }
        }
        Ok(())
    }
}

/// Inertialization `elapsed` seconds into a transition of `duration` seconds: each bone of `pose` (the
/// destination, in place) plus its start's offset decayed by [`inertial_offset`].
pub struct InertializationJob<'a> {
    /// Where the transition started, per bone.
    pub start: &'a [BoneStart],
    /// Seconds into the transition.
    pub elapsed: f64,
    /// The transition's length in seconds.
    pub duration: f64,
    /// The destination pose, turned into the transition's.
    pub pose: &'a mut [Transform],
}

impl InertializationJob<'_> {
    /// Checks the buffers' lengths.
    pub fn validate(&self) -> Result<(), JobError> {
        check_len("start", self.start.len(), self.pose.len())
    }

    /// Offsets every bone.
    pub fn run(self) -> Result<(), JobError> {
        self.validate()?;
        let (duration, elapsed) = (self.duration, self.elapsed);
        let decay = |x0: f32, v0: f32| {
            inertial_offset(f64::from(x0), f64::from(v0), duration, elapsed) as f32
        };
        for (dest, start) in self.pose.iter_mut().zip(self.start) {
            if start.offset_len > 0.0 {
                let x = decay(start.offset_len, start.offset_speed);
                dest.translation += start.offset_dir * x;
            }
            if start.offset_angle > 0.0 {
                let x = decay(start.offset_angle, start.offset_spin);
                let turn = Quat::from_axis_angle(start.offset_axis, x);
                dest.rotation = (turn * dest.rotation).normalize();
            }
        }
        Ok(())
    }
}

/// Dead blending `elapsed` seconds into a transition at `progress` of it: each bone's start extrapolated with
/// its velocity halving every `halflife` seconds ([`dead_extrapolate`]), crossfaded into `pose` (the destination,
/// in place) by [`dead_blend_weight`].
pub struct DeadBlendingJob<'a> {
    /// Where the transition started, per bone.
    pub start: &'a [BoneStart],
    /// Seconds into the transition.
    pub elapsed: f64,
    /// The transition's progress in [0, 1].
    pub progress: f64,
    /// Seconds in which the start's velocity halves.
    pub halflife: f64,
    /// The destination pose, turned into the transition's.
    pub pose: &'a mut [Transform],
}

impl DeadBlendingJob<'_> {
    /// Checks the buffers' lengths.
    pub fn validate(&self) -> Result<(), JobError> {
        check_len("start", self.start.len(), self.pose.len())
    }

    /// Blends every bone.
    pub fn run(self) -> Result<(), JobError> {
        self.validate()?;
        let (halflife, elapsed) = (self.halflife, self.elapsed);
        let reach = |v: f32| dead_extrapolate(0.0, f64::from(v), halflife, elapsed) as f32;
        let w = dead_blend_weight(self.progress) as f32;
        for (dest, start) in self.pose.iter_mut().zip(self.start) {
            let translation = start.pose.translation
                + Vec3A::new(
                    reach(start.velocity.x),
                    reach(start.velocity.y),
                    reach(start.velocity.z),
                );
            let spin = Vec3::new(
                reach(start.angular.x),
                reach(start.angular.y),
                reach(start.angular.z),
            );
            let rotation = Quat::from_scaled_axis(spin) * start.pose.rotation;
            let aligned = if rotation.dot(dest.rotation) < 0.0 {
                -dest.rotation
            } else {
                dest.rotation
            };
            dest.translation = translation.lerp(dest.translation, w);
            dest.rotation = rotation.lerp(aligned, w).normalize();
        }
        Ok(())
    }
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

    /// Numbers worked by hand from Bollo's quintic (GDC 2018: A = −(a0·t1² + 6·v0·t1 + 12·x0)/(2·t1⁵),
    /// B = (3·a0·t1² + 16·v0·t1 + 30·x0)/(2·t1⁴), C = −(3·a0·t1² + 12·v0·t1 + 20·x0)/(2·t1³),
    /// a0 = max(0, (−8·v0·t1 − 20·x0)/t1²)).
    /// x0 = 1, v0 = 0, t1 = 1: a0 = max(0, −20) = 0, A = −6, B = 15, C = −10, so x(t) = −6t⁵ + 15t⁴ − 10t³ + 1:
    /// x(0.25) = 0.896484375, x(0.5) = 0.5. x0 = 1, v0 = −2, t1 = 1 (−5·x0/v0 = 2.5 leaves t1): a0 = max(0, −4) = 0,
    /// A = 0, B = −1, C = 2, so x(t) = −t⁴ + 2t³ − 2t + 1: x(0.5) = 0.1875. x0 = 1, v0 = −10, t1 = 1: t1 becomes
    /// −5·x0/v0 = 0.5, a0 = max(0, (40 − 20)/0.25) = 80, A = −(20 − 30 + 12)/(2/32) = −32,
    /// B = (60 − 80 + 30)/(2/16) = 80, C = −(60 − 60 + 20)/(2/8) = −80: x(0.25) = −32/1024 + 80/256 − 80/64
    /// + 40/16 − 2.5 + 1 = 0.03125.
    #[test]
    fn inertialization_matches_bollos_quintic_worked_by_hand() {
        let cases = [
            (1.0, 0.0, 1.0, 0.25, 0.896484375),
            (1.0, 0.0, 1.0, 0.5, 0.5),
            (-1.0, 0.0, 1.0, 0.5, -0.5),
            (1.0, -2.0, 1.0, 0.5, 0.1875),
            (1.0, -10.0, 1.0, 0.25, 0.03125),
            (1.0, -10.0, 1.0, 0.5, 0.0),
        ];
        for (x0, v0, t1, t, expected) in cases {
            let x = inertial_offset(x0, v0, t1, t);
            assert!(
                (x - expected).abs() < 1e-12,
                "{x0} {v0} {t1} at {t}: {x}, {expected} by hand"
            );
        }
    }

    /// Numbers worked by hand from Holden's dead blending: the extrapolation x0 + v0·h/ln 2·(1 − e^(−t·ln 2/h))
    /// with h = ln 2 is x0 + v0·(1 − e^(−t)): 1 − e^(−1) = 0.6321205588 at t = 1, and v0·h/ln 2 in the limit; the
    /// smoothstep weight at 0.25 is 0.0625·2.5 = 0.15625.
    #[test]
    fn dead_blending_matches_holdens_formula_worked_by_hand() {
        let h = LN_2;
        assert!((dead_extrapolate(0.0, 1.0, h, 1.0) - 0.632_120_558_8).abs() < 1e-10);
        assert!((dead_extrapolate(2.0, -3.0, h, 1.0) - (2.0 - 3.0 * 0.632_120_558_8)).abs() < 1e-9);
        assert!((dead_extrapolate(0.0, 1.0, 0.5, 1e3) - 0.5 / LN_2).abs() < 1e-12);
        assert_eq!(dead_blend_weight(0.25), 0.15625);
        assert_eq!(dead_blend_weight(0.5), 0.5);
    }

    fn bone(translation: Vec3, rotation: Quat) -> Transform {
        Transform {
            translation: translation.into(),
            rotation,
            scale: Vec3A::ONE,
        }
    }

    /// The jobs on one bone, against the numbers above: a start 1 m along x and turned 90° about y from a
    /// destination at rest and at the origin is, half-way through a 1 s inertialization, 0.5 m along and 45°
    /// turned; a quarter of the way, 0.896484375 m and 80.68359375°. Dead blending a bone that moved 1 m/s along x
    /// (h = ln 2), 1 s in at progress 0.5: extrapolated to 0.6321 m, half-way to the destination at 0.3 m: 0.4661 m.
    #[test]
    fn the_jobs_apply_the_worked_numbers_per_bone() {
        let shown = [bone(
            Vec3::X,
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        )];
        let mut start = [BoneStart::default()];
        TransitionStartJob {
            shown: &shown,
            previous: &[],
            dt: 0.0,
            output: &mut start,
        }
        .run()
        .unwrap();
        let dest = [bone(Vec3::ZERO, Quat::IDENTITY)];
        InertialOffsetJob {
            destination: &dest,
            start: &mut start,
        }
        .run()
        .unwrap();
        for (t, along, degrees) in [(0.5, 0.5, 45.0), (0.25, 0.896_484_4, 0.896_484_4 * 90.0)] {
            let mut pose = dest;
            InertializationJob {
                start: &start,
                elapsed: t,
                duration: 1.0,
                pose: &mut pose,
            }
            .run()
            .unwrap();
            assert!(
                (pose[0].translation.x - along).abs() < 1e-6,
                "{t}: {:?}",
                pose[0].translation
            );
            let angle = pose[0].rotation.angle_between(Quat::IDENTITY).to_degrees();
            assert!((angle - degrees).abs() < 1e-3, "{t}: {angle}°");
        }

        let previous = [bone(Vec3::new(-0.1, 0.0, 0.0), Quat::IDENTITY)];
        let shown = [bone(Vec3::ZERO, Quat::IDENTITY)];
        TransitionStartJob {
            shown: &shown,
            previous: &previous,
            dt: 0.1,
            output: &mut start,
        }
        .run()
        .unwrap();
        let mut pose = [bone(Vec3::new(0.3, 0.0, 0.0), Quat::IDENTITY)];
        DeadBlendingJob {
            start: &start,
            elapsed: 1.0,
            progress: 0.5,
            halflife: std::f64::consts::LN_2,
            pose: &mut pose,
        }
        .run()
        .unwrap();
        let expected = 0.5 * 0.632_120_56 + 0.5 * 0.3;
        assert!(
            (pose[0].translation.x - expected).abs() < 1e-5,
            "{:?}",
            pose[0].translation
        );
    }

    #[test]
    fn a_start_of_the_wrong_length_is_refused() {
        let mut pose = [Transform::IDENTITY; 2];
        let result = InertializationJob {
            start: &[BoneStart::default()],
            elapsed: 0.0,
            duration: 1.0,
            pose: &mut pose,
        }
        .run();
        assert!(matches!(result, Err(JobError::Length { .. })));
    }
}
