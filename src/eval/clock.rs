//! The clock: the transport (play, pause, stop, seek, speed, loop, an in/out range) and the source and layer
//! clocks it moves, in f64 so long sessions do not drift. Its rules, in one place:
//! - **Advance(dt)** (playing): the clocks move by `dt × speed`; a clip wraps into (0, duration] when looping
//!   (it stops at an end otherwise), within its in/out range when one is set; a blend space advances its *phase*
//!   by `dt × speed / cycle`, so changing weights (and so the cycle) never makes the feet jump; a state machine
//!   only runs forward. The look-at filter is stepped by `dt` even while paused (it follows a moving target).
//! - **Seek(t)**: the source clock jumps to `t` (clamped into the clip or cycle), the layer clock to `t`, the
//!   loop count to 0, and the look-at filter snaps on the next evaluation (the Evaluator resets every stateful
//!   layer with it).
//! - **Continue(t)** (baking on a time grid): every clock moves continuously to `t` seconds since the start, as
//!   playing at speed 1 with looping would, stepping the filter by the difference.
//! - **Hold**: evaluates again where it is (after an edit).
//! - **Play** starts inside the in/out range, and from the far end when a source that does not loop sits at its
//!   end.

/// What kind of source the clock times (its rules differ per kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SourceKind {
    Rest,
    Clip,
    Blend,
    Machine,
}

/// What the clock needs to know of the source it times.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    pub(crate) kind: SourceKind,
    /// The clip's length, the blend cycle at the current weights, the machine's current state's cycle.
    pub(crate) duration: f64,
    /// False for a clip with Loop Time off.
    pub(crate) source_loops: bool,
}

/// The transport and the source and layer clocks.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Clip time (clip source) in [0, duration]; seconds since the start for a machine.
    pub(crate) time: f64,
    /// Blend phase in [0, 1].
    pub(crate) phase: f64,
    /// The layers' time: continuous while playing, equal to the source time after a seek.
    pub(crate) elapsed: f64,
    pub(crate) playing: bool,
    pub(crate) looping: bool,
    pub(crate) speed: f32,
    /// Seconds the look-at filter steps on the next evaluation (0 after a seek: the filter snaps).
    pub(crate) look_dt: f32,
    /// Whole cycles looped through since the last seek (negative when playing backwards).
    pub(crate) cycles: i64,
    /// A clip's in/out range (None: the whole clip).
    range: Option<[f32; 2]>,
}

impl Default for Clock {
    /// Stopped at 0, looping, at speed 1.
    fn default() -> Self {
        Clock {
            time: 0.0,
            phase: 0.0,
            elapsed: 0.0,
            playing: false,
            looping: true,
            speed: 1.0,
            look_dt: 0.0,
            cycles: 0,
            range: None,
        }
    }
}

impl Clock {
    /// True while the clock advances.
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Stops advancing, keeping the time.
    pub fn pause(&mut self) {
        self.playing = false;
    }

    /// True when the source wraps at its end instead of stopping.
    pub fn is_looping(&self) -> bool {
        self.looping
    }

    /// Sets looping.
    pub fn set_looping(&mut self, looping: bool) {
        self.looping = looping;
    }

    /// Playback speed (negative plays backwards).
    pub fn speed(&self) -> f32 {
        self.speed
    }

    /// Sets the speed; NaN or infinity is ignored.
    pub fn set_speed(&mut self, speed: f32) {
        if speed.is_finite() {
            self.speed = speed;
        }
    }

    /// The layers' time (breathing): continuous while playing, the source time after a seek.
    pub fn layer_time(&self) -> f32 {
        self.elapsed as f32
    }

    /// Limits a clip's playback to an in/out range of seconds (None: the whole clip): playing loops (or stops)
    /// within it. A range that is empty or not finite clears it; it is clamped into the clip when used.
    pub fn set_play_range(&mut self, range: Option<[f32; 2]>) {
        self.range = range.filter(|[a, b]| a.is_finite() && b.is_finite() && a < b);
    }

    /// Whether the source starts over after its end: the transport's loop, unless the source does not loop.
    pub(crate) fn loops(&self, timing: Timing) -> bool {
        self.looping && timing.source_loops
    }

    /// The in/out range in effect, clamped into the source (None unless the source is a clip and the range
    /// overlaps it).
    pub(crate) fn range(&self, timing: Timing) -> Option<[f32; 2]> {
        let [a, b] = self.range?;
        let d = timing.duration as f32;
        let (a, b) = (a.clamp(0.0, d), b.clamp(0.0, d));
        (timing.kind == SourceKind::Clip && a < b).then_some([a, b])
    }

    /// The source time a timeline shows: the clip time, phase × cycle for a blend space, the time since the
    /// start for a machine.
    pub(crate) fn shown_time(&self, timing: Timing) -> f32 {
        match timing.kind {
            SourceKind::Rest => 0.0,
            SourceKind::Clip => self.time as f32,
            SourceKind::Blend => (self.phase * timing.duration) as f32,
            SourceKind::Machine => self.elapsed as f32,
        }
    }

    /// Where playing must seek before it starts, if anywhere: inside the in/out range (its in point, or its out
    /// point backwards), or the far end when a source that does not loop sits at the end it plays towards.
    pub(crate) fn play_seek(&self, timing: Timing) -> Option<f32> {
        let forward = self.speed >= 0.0;
        if let Some([a, b]) = self.range(timing) {
            let t = self.time as f32;
            let at_stop = !self.loops(timing) && if forward { t >= b } else { t <= a };
            return (t < a || t > b || at_stop).then_some(if forward { a } else { b });
        }
        if self.loops(timing) {
            return None;
        }
        let (at_end, at_start) = match timing.kind {
            SourceKind::Blend => (self.phase >= 1.0, self.phase <= 0.0),
            _ => (self.time >= timing.duration, self.time <= 0.0),
        };
        if forward && at_end {
            Some(0.0)
        } else if !forward && at_start {
            Some(timing.duration as f32)
        } else {
            None
        }
    }

    /// The source time a seek to `time` lands on: clamped into the clip or cycle (a machine is only kept from
    /// going below 0).
    pub(crate) fn seek_target(time: f32, timing: Timing) -> f64 {
        match timing.kind {
            SourceKind::Machine => f64::from(time).max(0.0),
            _ => f64::from(time).clamp(0.0, timing.duration.max(0.0)),
        }
    }

    /// Every clock to source time `t` (seconds): the layer clock follows, the loop count restarts and the
    /// look-at filter snaps.
    pub(crate) fn seek(&mut self, t: f64, timing: Timing) {
        let d = timing.duration;
        self.time = t;
        self.phase = if d > 0.0 { t / d } else { 0.0 };
        self.elapsed = t;
        self.cycles = 0;
        self.look_dt = 0.0;
    }

    /// A machine's clocks moved on by `d` seconds (never backwards): the machine's time now.
    pub(crate) fn advance_machine(&mut self, d: f64) -> f64 {
        self.elapsed += d.max(0.0);
        self.time = self.elapsed;
        self.elapsed
    }

    /// The source and layer clocks moved by `d` seconds of source time, wrapping when `looping` and the source
    /// loops (otherwise it stops at an end, or at the in/out range's).
    pub(crate) fn advance(&mut self, d: f64, looping: bool, timing: Timing) {
        let looping = looping && timing.source_loops;
        let duration = timing.duration;
        self.elapsed = (self.elapsed + d).max(0.0);
        if duration <= 0.0 {
            return;
        }
        if let Some([a, b]) = self.range(timing) {
            let (a, b) = (f64::from(a), f64::from(b));
            let next = self.time + d;
            if looping {
                self.time = a + wrap_cycle(next - a, b - a);
            } else if next >= b || next <= a {
                self.time = next.clamp(a, b);
                self.playing = false;
            } else {
                self.time = next;
            }
            self.phase = self.time / duration;
            return;
        }
        let (value, length) = match timing.kind {
            SourceKind::Blend => (&mut self.phase, 1.0),
            _ => (&mut self.time, duration),
        };
        let next = *value + d / duration * length;
        if looping {
            *value = wrap_cycle(next, length);
            let wrapped = ((next - *value) / length).round();
            if wrapped.is_finite() {
                self.cycles = self.cycles.saturating_add(wrapped as i64);
            }
        } else if next >= length || next <= 0.0 {
            *value = next.clamp(0.0, length);
            self.playing = false;
        } else {
            *value = next;
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(duration: f64, source_loops: bool) -> Timing {
        Timing {
            kind: SourceKind::Clip,
            duration,
            source_loops,
        }
    }

    #[test]
    fn a_looping_clip_wraps_and_counts_its_cycles() {
        let mut c = Clock::default();
        c.advance(2.5, true, clip(1.0, true));
        assert_eq!((c.time, c.cycles, c.elapsed), (0.5, 2, 2.5));
        c.advance(-1.0, true, clip(1.0, true));
        assert_eq!((c.time, c.cycles), (0.5, 1));
        // The end of a cycle shows its last pose.
        c.advance(0.5, true, clip(1.0, true));
        assert_eq!((c.time, c.cycles), (1.0, 1));
    }

    #[test]
    fn a_clip_without_loop_time_stops_at_its_end_and_plays_again_from_the_start() {
        let mut c = Clock {
            playing: true,
            ..Clock::default()
        };
        c.advance(1.5, true, clip(1.0, false));
        assert_eq!((c.time, c.playing), (1.0, false));
        assert_eq!(c.play_seek(clip(1.0, false)), Some(0.0));
        c.speed = -1.0;
        assert_eq!(
            c.play_seek(clip(1.0, false)),
            None,
            "backwards it plays from where it is"
        );
    }

    #[test]
    fn an_in_out_range_loops_within_and_playing_starts_inside_it() {
        let mut c = Clock::default();
        c.set_play_range(Some([0.2, 0.6]));
        assert_eq!(c.play_seek(clip(1.0, true)), Some(0.2));
        c.seek(0.5, clip(1.0, true));
        c.advance(0.3, true, clip(1.0, true));
        assert!((c.time - 0.4).abs() < 1e-6, "{}", c.time);
        c.set_play_range(Some([0.6, 0.2]));
        assert_eq!(c.range(clip(1.0, true)), None, "an empty range clears it");
    }

    #[test]
    fn a_blend_advances_its_phase_by_the_cycle() {
        let blend = Timing {
            kind: SourceKind::Blend,
            duration: 2.0,
            source_loops: true,
        };
        let mut c = Clock::default();
        c.advance(0.5, true, blend);
        assert_eq!((c.phase, c.time), (0.25, 0.0));
        assert_eq!(c.shown_time(blend), 0.5);
    }
}
