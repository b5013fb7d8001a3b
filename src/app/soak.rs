//! The soak run (`animtune --soak SECONDS`): the real window cycles load model → play → blend → change layers →
//! export for a while, sampling the process's resident memory, then writes the samples and a summary and exits.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::command::{Command, Commands};
use super::editor::EditorState;
use super::export_job::ExportJob;
use crate::offline::StreamSource;

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
    pub fn frame(&mut self, e: &EditorState, out: &mut Commands) -> bool {
        let now = Instant::now();
        if now >= self.next_sample {
            self.samples
                .push(((now - self.start).as_secs_f32(), resident_kib()));
            self.next_sample = now + Duration::from_secs(1);
        }
        if now >= self.next_action {
            self.act(e, out);
            self.step += 1;
            self.next_action = now + Duration::from_millis(250);
        }
        if now - self.start >= Duration::from_secs(self.plan.seconds) {
            self.finish();
            return true;
        }
        false
    }

    fn act(&mut self, e: &EditorState, out: &mut Commands) {
        let k = self.step;
        match k % 6 {
            0 => out.push(match (&self.plan.model, (k / 6) % 2) {
                (Some(path), 1) => Command::Open(path.clone()),
                _ => Command::LoadMannequin,
            }),
            1 => out.push(Command::PlayBlend),
            2 => {
                let a = k as f64 * 0.7;
                out.push(Command::SetBlendPoint([a.sin() * 1.5, 1.0 + a.cos() * 2.0]));
            }
            3 => {
                let mut l = e.tuning().layers.clone();
                l.look_at.enabled = !l.look_at.enabled;
                l.look_at.target = [(k as f32).sin(), 1.6, 1.5];
                l.breath.effect_rate = 1.0 + (k % 3) as f32 * 0.5;
                out.push(Command::SetLayers(Box::new(l)));
            }
            4 => {
                let source = match e.clip() {
                    Some(i) if !e.blending() => StreamSource::Clip(i),
                    _ => StreamSource::BlendPoint(e.tuning().blend.point),
                };
                let job = ExportJob {
                    duration: 0.5,
                    overwrite: true,
                    ..ExportJob::for_editor(e, Some(source), self.export_path.clone())
                };
                let (p, c) = (Default::default(), Default::default());
                if let Err(text) = job.run(&p, &c) {
                    out.push(Command::Report {
                        text,
                        is_error: true,
                    });
                }
            }
            _ => {
                out.push(Command::Undo);
                let clips = e.doc().clips.len();
                if clips > 0 {
                    out.push(Command::PlayClip(Some(k % clips)));
                }
            }
        }
    }

    fn finish(&self) {
        let mut csv = String::from("seconds,rss_kib\n");
        for (t, kib) in &self.samples {
            csv.push_str(&format!("{t:.1},{kib}\n"));
        }
        if let Err(err) = crate::io::fsutil::write_atomic(&self.plan.out, csv.as_bytes(), true) {
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
