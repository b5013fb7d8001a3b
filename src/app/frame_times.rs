//! The frame-time run (`animtune --frame-times SECONDS`, used by `scripts/frame-times.sh`): the real window plays
//! what it opened with (the mannequin its blend space, a model its first clip) and records the wall time from one
//! frame to the next, what a user sees as smoothness. After a warm-up it measures for the given seconds as
//! opened, then as long again with onion skin on, then with the curves and skate map panes open (the hips
//! selected, onion skin off), prints the figures and closes.

use std::time::{Duration, Instant};

use super::command::{Command, Commands, OnionSkin, Transport};
use super::editor::EditorState;
use super::state::layout::Layout;

/// Time before measuring: the model loads, pipelines and the font atlas settle.
const WARM_UP: Duration = Duration::from_secs(2);
/// Time after a change of phase before measuring again.
const SETTLE: Duration = Duration::from_secs(1);

/// What one phase of the run measured.
#[derive(Default)]
struct Phase {
    /// Milliseconds between consecutive frames.
    intervals: Vec<f32>,
    /// Animation seconds played while measuring, and the wall seconds they took (loop wraps left out).
    played: (f32, f32),
}

impl Phase {
    fn median_and_summary(&self, name: &str) -> (f32, String) {
        let mut ms = self.intervals.clone();
        ms.sort_by(f32::total_cmp);
        let at = |q: f32| {
            ms.get(((ms.len() as f32 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        let speed = if self.played.1 > 0.0 {
            self.played.0 / self.played.1
        } else {
            0.0
        };
        let text = format!(
            "{name}: {} frames, frame ms min {:.1}, median {:.1}, p90 {:.1}, max {:.1}; playback {speed:.2} s of animation per wall second",
            ms.len(),
            at(0.0),
            at(0.5),
            at(0.9),
            at(1.0)
        );
        (at(0.5), text)
    }
}

/// A frame-time run in progress.
pub struct FrameTimes {
    seconds: Duration,
    /// When the current phase started measuring.
    start: Instant,
    last: Option<(Instant, f32)>,
    phases: Vec<Phase>,
}

impl FrameTimes {
    /// Starts a run measuring `seconds` per phase after the warm-up.
    pub fn new(seconds: f32) -> Self {
        FrameTimes {
            seconds: Duration::from_secs_f32(seconds),
            start: Instant::now() + WARM_UP,
            last: None,
            phases: vec![Phase::default()],
        }
    }

    /// One frame: keeps playback going and records the interval since the last frame. Returns true when the
    /// run is over (figures printed).
    pub fn frame(
        &mut self,
        ctx: &egui::Context,
        e: &EditorState,
        out: &mut Commands,
        layout: &mut Layout,
    ) -> bool {
        let now = Instant::now();
        if !e.eval().clock().is_playing() {
            out.push(Command::Transport(Transport::Play));
        }
        let time = e.eval().time();
        if let (true, Some((last, before)), Some(phase)) =
            (now >= self.start, self.last, self.phases.last_mut())
        {
            let dt = now.duration_since(last).as_secs_f32();
            phase.intervals.push(dt * 1000.0);
            if time >= before {
                phase.played.0 += time - before;
                phase.played.1 += dt;
            }
        }
        self.last = Some((now, time));
        if now < self.start + self.seconds {
            return false;
        }
        if self.phases.len() == 1 {
            out.push(Command::SetOnionSkin(OnionSkin {
                enabled: true,
                ..OnionSkin::default()
            }));
            self.phases.push(Phase::default());
            self.start = now + SETTLE;
            return false;
        }
        if self.phases.len() == 2 {
            out.push(Command::SetOnionSkin(OnionSkin::default()));
            let hips = e
                .doc()
                .model
                .character
                .humanoid
                .joint(crate::core::HumanBone::Hips);
            out.push(Command::SelectJoint(Some(hips.unwrap_or(0))));
            layout.curves_open = true;
            layout.skate_map_open = true;
            self.phases.push(Phase::default());
            self.start = now + SETTLE;
            return false;
        }
        let (median, plain) = self.phases[0].median_and_summary("as opened");
        let (_, onion) = self.phases[1].median_and_summary("with onion skin (2 + 2 ghosts)");
        let (_, panes) = self.phases[2].median_and_summary("with the curves and skate map panes");
        let size = ctx.content_rect().size() * ctx.pixels_per_point();
        println!(
            "window: {:.0}x{:.0} pixels, {:.2} pixels per point\n{plain}\n{onion}\n{panes}\nmedian frame ms: {median:.1}",
            size.x,
            size.y,
            ctx.pixels_per_point(),
        );
        true
    }
}
