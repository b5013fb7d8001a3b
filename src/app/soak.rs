//! The soak run (`animtune --soak SECONDS`): the real window cycles load model → play → blend → change layers →
//! export for a while, sampling the process's resident memory, then writes the samples and a summary and exits.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::editor::EditorState;
use super::export_dialog::ExportJob;
use crate::export::{ExportFormat, StreamSource};

/// What a soak run does.
#[derive(Clone, Debug)]
pub struct SoakPlan {
    /// How long to run.
    pub seconds: u64,
    /// CSV of `seconds,rss_kib` samples.
    pub out: PathBuf,
    /// A model file to load in turn with the built-in mannequin (optional).
    pub model: Option<PathBuf>,
}

/// A soak run in progress.
pub struct Soak {
    plan: SoakPlan,
    start: Instant,
    next_action: Instant,
    next_sample: Instant,
    step: usize,
    samples: Vec<(f32, u64)>,
    export_path: PathBuf,
}

/// Resident memory of this process in KiB (Linux `/proc/self/statm`; 0 elsewhere).
pub fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u64>().ok())
        })
        .map_or(0, |pages| pages * 4)
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

impl Soak {
    /// Starts a run now.
    pub fn new(plan: SoakPlan) -> Self {
        let now = Instant::now();
        let export_path =
            std::env::temp_dir().join(format!("animtune-soak-{}.glb", std::process::id()));
        Soak {
            plan,
            start: now,
            next_action: now,
            next_sample: now,
            step: 0,
            samples: Vec::new(),
            export_path,
        }
    }

    /// One frame: the next action when due, a memory sample every second. Returns true when the run is over
    /// (samples and summary written).
    pub fn frame(&mut self, e: &mut EditorState) -> bool {
        let now = Instant::now();
        if now >= self.next_sample {
            self.samples
                .push(((now - self.start).as_secs_f32(), resident_kib()));
            self.next_sample = now + Duration::from_secs(1);
        }
        if now >= self.next_action {
            self.act(e);
            self.step += 1;
            self.next_action = now + Duration::from_millis(250);
        }
        if now - self.start >= Duration::from_secs(self.plan.seconds) {
            self.finish();
            return true;
        }
        false
    }

    fn act(&mut self, e: &mut EditorState) {
        let k = self.step;
        match k % 6 {
            0 => {
                let recent = std::mem::take(&mut e.recent);
                match (&self.plan.model, (k / 6) % 2) {
                    (Some(path), 1) => e.open(path),
                    _ => *e = EditorState::new(),
                }
                e.recent = recent;
            }
            1 => {
                e.play_blend();
                e.eval.play();
            }
            2 => {
                let a = k as f64 * 0.7;
                e.set_blend_point([a.sin() * 1.5, 1.0 + a.cos() * 2.0]);
            }
            3 => e.edit_layers(true, |l| {
                l.look_at.enabled = !l.look_at.enabled;
                l.look_at.target = [(k as f32).sin(), 1.6, 1.5];
                l.breath.effect_rate = 1.0 + (k % 3) as f32 * 0.5;
            }),
            4 => {
                let job = ExportJob {
                    character: e.model.character.clone(),
                    clips: e.clips.clone(),
                    blend: e.blend.clone(),
                    layers: e.layers.clone(),
                    source: Some(if e.blending() || e.clip().is_none() {
                        StreamSource::BlendPoint(e.blend.point)
                    } else {
                        StreamSource::Clip(e.clip().unwrap_or(0))
                    }),
                    duration: 0.5,
                    fps: 30.0,
                    format: ExportFormat::Gltf,
                    animation_only: false,
                    path: self.export_path.clone(),
                    overwrite: true,
                };
                let (p, c) = (Default::default(), Default::default());
                if let Err(text) = job.run(&p, &c) {
                    e.status.text = text;
                }
            }
            _ => {
                e.undo();
                if !e.clips.is_empty() {
                    e.select_clip(Some(k % e.clips.len()));
                    e.eval.play();
                }
            }
        }
    }

    fn finish(&self) {
        let mut csv = String::from("seconds,rss_kib\n");
        for (t, kib) in &self.samples {
            csv.push_str(&format!("{t:.1},{kib}\n"));
        }
        if let Err(err) = crate::fsutil::write_atomic(&self.plan.out, csv.as_bytes(), true) {
            eprintln!("error: {err}");
        }
        let _ = std::fs::remove_file(&self.export_path);
        let n = self.samples.len();
        let rss = |from: usize, to: usize| {
            median(
                self.samples[from.min(n)..to.min(n)]
                    .iter()
                    .map(|s| s.1)
                    .collect(),
            )
        };
        // After a quarter of the run as warm-up, compare the next tenth with the last tenth.
        let warm = rss(n / 4, n / 4 + n / 10 + 1);
        let last = rss(n - n / 10 - 1, n);
        let growth = if warm > 0 {
            (last as f64 - warm as f64) / warm as f64 * 100.0
        } else {
            0.0
        };
        println!(
            "soak: {} s, {} actions, {n} samples; resident memory after warm-up {:.1} MiB, at the end {:.1} MiB, growth {growth:+.1} %, peak {:.1} MiB",
            self.plan.seconds,
            self.step,
            warm as f64 / 1024.0,
            last as f64 / 1024.0,
            self.samples.iter().map(|s| s.1).max().unwrap_or(0) as f64 / 1024.0
        );
    }
}
