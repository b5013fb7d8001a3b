//! Playback state of one clip: play, pause, stop, seek, loop, speed. A pure time keeper; the pose comes from
//! sampling the clip at [`Player::time`], so the same time always gives the same pose.

use crate::core::{Clip, ClipBinding, Pose, Skeleton, Wrap};

/// Transport state for playing a clip of a given length.
#[derive(Clone, Debug, PartialEq)]
pub struct Player {
    duration: f32,
    time: f32,
    playing: bool,
    /// Wrap around at the ends instead of stopping there.
    pub looping: bool,
    speed: f32,
}

impl Player {
    /// A stopped player at time 0, looping, at speed 1.
    pub fn new(duration: f32) -> Self {
        Player {
            duration: if duration.is_finite() {
                duration.max(0.0)
            } else {
                0.0
            },
            time: 0.0,
            playing: false,
            looping: true,
            speed: 1.0,
        }
    }

    /// Current time in seconds, within [0, duration].
    pub fn time(&self) -> f32 {
        self.time
    }

    /// Clip length in seconds.
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// Whether time advances on [`Player::advance`].
    pub fn is_playing(&self) -> bool {
        self.playing
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

    /// Starts playing from the current time (from the far end when a non-looping clip already sits at its end).
    pub fn play(&mut self) {
        if !self.looping {
            if self.speed >= 0.0 && self.time >= self.duration {
                self.time = 0.0;
            } else if self.speed < 0.0 && self.time <= 0.0 {
                self.time = self.duration;
            }
        }
        self.playing = true;
    }

    /// Stops advancing, keeping the time.
    pub fn pause(&mut self) {
        self.playing = false;
    }

    /// Stops and goes back to time 0.
    pub fn stop(&mut self) {
        self.playing = false;
        self.time = 0.0;
    }

    /// Jumps to a time (clamped into the clip; NaN is ignored).
    pub fn seek(&mut self, time: f32) {
        if time.is_finite() {
            self.time = time.clamp(0.0, self.duration);
        }
    }

    /// Changes the length while keeping the position as a fraction of it (a blend space's cycle length changes
    /// as its weights do; the phase must not jump).
    pub fn rescale(&mut self, duration: f32) {
        if !duration.is_finite() || duration < 0.0 {
            return;
        }
        self.time = if self.duration > 0.0 {
            (self.time / self.duration * duration).clamp(0.0, duration)
        } else {
            0.0
        };
        self.duration = duration;
    }

    /// Advances by `dt` seconds of wall time when playing; returns the new time.
    pub fn advance(&mut self, dt: f32) -> f32 {
        if !self.playing || !dt.is_finite() || self.duration <= 0.0 {
            return self.time;
        }
        let t = self.time + dt * self.speed;
        if self.looping {
            self.time = t.rem_euclid(self.duration);
        } else if t >= self.duration || t <= 0.0 {
            self.time = t.clamp(0.0, self.duration);
            self.playing = false;
        } else {
            self.time = t;
        }
        self.time
    }

    /// The clip's pose at the current time, on top of the rest pose.
    pub fn pose(&self, clip: &Clip, binding: &ClipBinding, skeleton: &Skeleton, pose: &mut Pose) {
        pose.reset_to_rest(skeleton);
        clip.sample_into(binding, self.time, Wrap::Clamp, pose);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn play_pause_stop_seek() {
        let mut p = Player::new(2.0);
        assert_eq!(p.advance(0.5), 0.0, "stopped players do not move");
        p.play();
        assert_eq!(p.advance(0.5), 0.5);
        p.pause();
        assert_eq!(p.advance(0.5), 0.5);
        p.seek(1.75);
        assert_eq!(p.time(), 1.75);
        p.seek(9.0);
        assert_eq!(p.time(), 2.0);
        p.stop();
        assert_eq!(p.time(), 0.0);
        assert!(!p.is_playing());
    }

    #[test]
    fn rescaling_keeps_the_phase() {
        let mut p = Player::new(2.0);
        p.seek(0.5);
        p.rescale(4.0);
        assert_eq!(p.time(), 1.0);
        assert_eq!(p.duration(), 4.0);
        p.rescale(f32::NAN);
        assert_eq!(p.duration(), 4.0);
    }

    #[test]
    fn looping_wraps_and_negative_speed_plays_backwards() {
        let mut p = Player::new(2.0);
        p.play();
        p.advance(2.5);
        assert!((p.time() - 0.5).abs() < 1e-6);
        p.set_speed(-1.0);
        p.advance(1.0);
        assert!((p.time() - 1.5).abs() < 1e-6);
        p.set_speed(f32::NAN);
        assert_eq!(p.speed(), -1.0);
    }

    #[test]
    fn without_loop_it_stops_at_the_end_and_replays_from_the_start() {
        let mut p = Player::new(1.0);
        p.looping = false;
        p.play();
        p.advance(3.0);
        assert_eq!(p.time(), 1.0);
        assert!(!p.is_playing());
        p.play();
        assert_eq!(p.time(), 0.0);
        p.set_speed(-2.0);
        p.advance(0.1);
        assert_eq!(p.time(), 0.0);
        assert!(!p.is_playing());
    }
}
