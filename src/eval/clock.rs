//! The clock: the transport (play, pause, stop, seek, speed, loop, an in/out range) and the source and layer
//! clocks it moves, in f64 so long sessions do not drift.

/// Wraps `t` into a cycle of length `d`: [0, d] stays, later times land in (0, d] (so the end of a cycle shows
/// its last pose), earlier ones in [0, d).
pub fn wrap_cycle(t: f64, d: f64) -> f64 {
    if d.is_nan() || d <= 0.0 || !t.is_finite() {
        return 0.0;
    }
    if (0.0..=d).contains(&t) {
        t
    } else if t > d {
        let r = t.rem_euclid(d);
        if r == 0.0 { d } else { r }
    } else {
        t.rem_euclid(d)
    }
}
