//! Unity's AnimationCurve: keys with in and out slopes and weights, evaluated as Unity evaluates them.
//!
//! Between two keys the curve is a cubic Hermite of the left key's out slope and the right key's in slope. When
//! either side is weighted (its weight set by `weightedMode`) it is a cubic Bézier in time and value, with the
//! control points one weight of the span along each tangent (an unweighted side counts 1/3, where the Bézier is the
//! Hermite). An infinite slope on either side holds the left key's value (a stepped key, Unity's "Constant").
//! Before the first key and after the last the curve clamps, repeats or ping-pongs (`m_PreInfinity`,
//! `m_PostInfinity`).

/// A weight's default: the Bézier control point a third of the way, where the Bézier is the Hermite.
pub const DEFAULT_WEIGHT: f64 = 1.0 / 3.0;

/// One key of one component.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    /// Its time, seconds.
    pub time: f64,
    /// Its value.
    pub value: f64,
    /// Slope arriving at it (value per second; infinite: stepped).
    pub in_slope: f64,
    /// Slope leaving it.
    pub out_slope: f64,
    /// Weight of the arriving tangent (a fraction of the span), when `weighted_in`.
    pub in_weight: f64,
    /// Weight of the leaving tangent, when `weighted_out`.
    pub out_weight: f64,
    /// The arriving tangent is weighted (Unity's weightedMode 1 or 3).
    pub weighted_in: bool,
    /// The leaving tangent is weighted (weightedMode 2 or 3).
    pub weighted_out: bool,
}

impl Key {
    /// A key with both slopes `slope` and no weights.
    pub fn new(time: f64, value: f64, slope: f64) -> Self {
        Key {
            time,
            value,
            in_slope: slope,
            out_slope: slope,
            in_weight: DEFAULT_WEIGHT,
            out_weight: DEFAULT_WEIGHT,
            weighted_in: false,
            weighted_out: false,
        }
    }
}

/// What a curve does outside its keys (Unity's serialized `m_PreInfinity` / `m_PostInfinity`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Wrap {
    /// 0: back and forth.
    PingPong,
    /// 1: start over.
    Loop,
    /// 2 (Unity's default): hold the end key's value.
    #[default]
    Clamp,
}

impl Wrap {
    /// The serialized value's mode (anything but 0 and 1 clamps, as Unity reads it).
    pub fn from_serialized(v: i64) -> Self {
        match v {
            0 => Wrap::PingPong,
            1 => Wrap::Loop,
            _ => Wrap::Clamp,
        }
    }
}

/// A curve: keys in time order, and its wrap modes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Curve {
    /// Keys, strictly increasing in time.
    pub keys: Vec<Key>,
    /// Before the first key.
    pub pre: Wrap,
    /// After the last key.
    pub post: Wrap,
}

impl Curve {
    /// The curve's value at `time`.
    pub fn evaluate(&self, time: f64) -> f64 {
        let (Some(first), Some(last)) = (self.keys.first(), self.keys.last()) else {
            return 0.0;
        };
        if self.keys.len() == 1 || !time.is_finite() {
            return first.value;
        }
        let span = last.time - first.time;
        let t = if time < first.time {
            wrap(time, first.time, span, self.pre)
        } else if time > last.time {
            wrap(time, first.time, span, self.post)
        } else {
            time
        };
        if t >= last.time {
            return last.value;
        }
        let i = self
            .keys
            .partition_point(|k| k.time <= t)
            .clamp(1, self.keys.len() - 1);
        segment(&self.keys[i - 1], &self.keys[i], t)
    }
}

/// `time` outside `[start, start + span]` brought inside by `mode`.
fn wrap(time: f64, start: f64, span: f64, mode: Wrap) -> f64 {
    if span <= 0.0 {
        return start;
    }
    let local = time - start;
    match mode {
        Wrap::Clamp => start + local.clamp(0.0, span),
        Wrap::Loop => start + local.rem_euclid(span),
        Wrap::PingPong => {
            let p = local.rem_euclid(2.0 * span);
            start + if p > span { 2.0 * span - p } else { p }
        }
    }
}

/// The value between keys `a` and `b` at `time`.
pub fn segment(a: &Key, b: &Key, time: f64) -> f64 {
    let dt = b.time - a.time;
    if dt <= 0.0 {
        return a.value;
    }
    if !a.out_slope.is_finite() || !b.in_slope.is_finite() {
        return a.value;
    }
    let u = ((time - a.time) / dt).clamp(0.0, 1.0);
    if a.weighted_out || b.weighted_in {
        let w0 = if a.weighted_out {
            a.out_weight
        } else {
            DEFAULT_WEIGHT
        };
        let w1 = if b.weighted_in {
            b.in_weight
        } else {
            DEFAULT_WEIGHT
        };
        return bezier(a, b, dt, w0, w1, u);
    }
    let (m0, m1) = (a.out_slope * dt, b.in_slope * dt);
    let (u2, u3) = (u * u, u * u * u);
    (2.0 * u3 - 3.0 * u2 + 1.0) * a.value
        + (u3 - 2.0 * u2 + u) * m0
        + (u3 - u2) * m1
        + (-2.0 * u3 + 3.0 * u2) * b.value
}

/// The weighted segment: a Bézier through (0, v0), (w0, v0 + w0·m0), (1 − w1, v1 − w1·m1), (1, v1) in time
/// fractions and values (m: slope times the span), solved for the parameter whose time is `x`.
fn bezier(a: &Key, b: &Key, dt: f64, w0: f64, w1: f64, x: f64) -> f64 {
    let (w0, w1) = (w0.clamp(0.0, 1.0), w1.clamp(0.0, 1.0));
    let xs = [0.0, w0, 1.0 - w1, 1.0];
    let ys = [
        a.value,
        a.value + w0 * a.out_slope * dt,
        b.value - w1 * b.in_slope * dt,
        b.value,
    ];
    let s = solve_bezier(xs, x);
    cubic_bezier(ys, s)
}

fn cubic_bezier(p: [f64; 4], s: f64) -> f64 {
    let r = 1.0 - s;
    r * r * r * p[0] + 3.0 * r * r * s * p[1] + 3.0 * r * s * s * p[2] + s * s * s * p[3]
}

/// The parameter in [0, 1] at which the Bézier of `xs` (increasing from 0 to 1, control points inside [0, 1])
/// reaches `x`: Newton's method from the linear guess, kept inside a bisection bracket.
fn solve_bezier(xs: [f64; 4], x: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut s = x;
    for _ in 0..64 {
        let f = cubic_bezier(xs, s) - x;
        if f.abs() < 1e-12 {
            break;
        }
        if f > 0.0 {
            hi = s;
        } else {
            lo = s;
        }
        let r = 1.0 - s;
        let d = 3.0 * r * r * (xs[1] - xs[0])
            + 6.0 * r * s * (xs[2] - xs[1])
            + 3.0 * s * s * (xs[3] - xs[2]);
        let next = s - f / d;
        s = if d.abs() > 1e-12 && next > lo && next < hi {
            next
        } else {
            0.5 * (lo + hi)
        };
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(keys: Vec<Key>) -> Curve {
        Curve {
            keys,
            ..Curve::default()
        }
    }

    #[test]
    fn hermite_passes_its_keys_with_its_slopes() {
        let c = curve(vec![Key::new(0.0, 1.0, 2.0), Key::new(2.0, 3.0, -1.0)]);
        assert_eq!(c.evaluate(0.0), 1.0);
        assert_eq!(c.evaluate(2.0), 3.0);
        let h = 1e-6;
        let start = (c.evaluate(h) - c.evaluate(0.0)) / h;
        let end = (c.evaluate(2.0) - c.evaluate(2.0 - h)) / h;
        assert!(
            (start - 2.0).abs() < 1e-4 && (end + 1.0).abs() < 1e-4,
            "{start} {end}"
        );
    }

    #[test]
    fn a_third_weight_on_both_sides_is_the_hermite() {
        let a = Key::new(0.0, 0.0, 3.0);
        let b = Key::new(1.5, 2.0, -2.0);
        let mut wa = a;
        wa.weighted_out = true;
        let mut wb = b;
        wb.weighted_in = true;
        for i in 0..=20 {
            let t = 1.5 * f64::from(i) / 20.0;
            let d = segment(&a, &b, t) - segment(&wa, &wb, t);
            assert!(d.abs() < 1e-9, "t {t}: {d}");
        }
    }

    #[test]
    fn an_infinite_slope_steps_and_wraps_repeat_or_bounce() {
        let mut a = Key::new(0.0, 1.0, 0.0);
        a.out_slope = f64::INFINITY;
        let c = curve(vec![a, Key::new(1.0, 5.0, 0.0)]);
        assert_eq!(c.evaluate(0.99), 1.0);
        assert_eq!(c.evaluate(1.0), 5.0);
        let lin = |pre, post| Curve {
            keys: vec![Key::new(0.0, 0.0, 1.0), Key::new(1.0, 1.0, 1.0)],
            pre,
            post,
        };
        assert_eq!(lin(Wrap::Clamp, Wrap::Clamp).evaluate(3.5), 1.0);
        assert!((lin(Wrap::Clamp, Wrap::Loop).evaluate(3.25) - 0.25).abs() < 1e-12);
        assert!((lin(Wrap::Clamp, Wrap::PingPong).evaluate(1.25) - 0.75).abs() < 1e-12);
        assert!((lin(Wrap::Loop, Wrap::Clamp).evaluate(-0.25) - 0.75).abs() < 1e-12);
    }
}
