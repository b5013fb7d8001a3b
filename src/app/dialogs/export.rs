//! File → Export…: bakes what the editor plays (the blend space at its point, or the clip, with the layers) to
//! a file, on a worker thread, with a progress bar, Cancel, and a confirmation before replacing a file.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;

use crate::app::command::Purpose;
use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;
use crate::app::export_job::{ExportJob, per_node_outputs};
use crate::clipfile::unity::UnityAxes;
use crate::offline::{ExportFormat, StreamSource};

struct Running {
    progress: Arc<AtomicU32>,
    cancel: Arc<AtomicBool>,
    done: mpsc::Receiver<Result<String, String>>,
}

/// The export window's state.
pub struct ExportDialog {
    /// Shown.
    pub open: bool,
    /// Output layout.
    pub format: ExportFormat,
    /// One clip per blend node plus the preset, into a folder.
    pub per_node: bool,
    /// Seconds to bake.
    pub duration: f32,
    /// Frames per second.
    pub fps: f32,
    /// glTF without meshes.
    pub animation_only: bool,
    /// Unity layout in glTF's axes (for pipelines that convert by themselves).
    pub unity_gltf_axes: bool,
    /// Unity layout with curves only for the joints that move.
    pub sparse: bool,
    /// Output path as typed (empty until the window first opens, which suggests one beside the model).
    pub path: String,
    /// The user typed or chose the path: opening the window again keeps it.
    path_chosen: bool,
    confirm: bool,
    running: Option<Running>,
}

impl Default for ExportDialog {
    fn default() -> Self {
        ExportDialog {
            open: false,
            format: ExportFormat::Gltf,
            per_node: false,
            duration: 2.0,
            fps: 30.0,
            animation_only: false,
            unity_gltf_axes: false,
            sparse: false,
            path: String::new(),
            path_chosen: false,
            confirm: false,
            running: None,
        }
    }
}

/// An export file beside the model (or in the working directory for the mannequin), named after the model
/// and what plays.
fn suggested_path(e: &EditorState, extension: &str) -> PathBuf {
    let model = std::path::Path::new(&e.doc().key);
    let folder = model
        .is_absolute()
        .then(|| model.parent())
        .flatten()
        .map(std::path::Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let what = if e.machine_player().is_some() {
        "machine".to_string()
    } else if e.blending() {
        "blend".to_string()
    } else {
        e.clip()
            .map_or("rest".to_string(), |i| e.doc().clips[i].name.clone())
    };
    let what: String = what
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // The mannequin's key is no path: it has no file name to borrow.
    let stem = match model.file_stem() {
        Some(s) if model.is_absolute() => s.to_string_lossy().into_owned(),
        _ => "mannequin".to_string(),
    };
    folder.join(format!("{stem}_{what}.{extension}"))
}

impl ExportDialog {
    /// Opens the window with the duration of what plays now and, unless the user chose a path, a file named
    /// after the model and what plays, in the model's folder.
    pub fn show(&mut self, e: &EditorState) {
        self.open = true;
        if !self.path_chosen {
            self.path = suggested_path(e, self.format.extension())
                .display()
                .to_string();
        }
        self.duration = match (e.eval().play_range(), e.machine_player()) {
            (Some([a, b]), _) => b - a,
            // A machine: its script and two seconds more for the last change to play out.
            (None, Some(_)) => e
                .script()
                .and_then(|s| s.events().last())
                .map_or(5.0, |last| last.time() as f32 + 2.0),
            (None, None) => e.eval().duration().max(0.1),
        };
    }

    /// Closes the window (an export that runs goes on, and the window shows again for its progress).
    pub fn close(&mut self) {
        self.open = self.running.is_some();
        self.confirm = false;
    }

    /// Sets the output path (from a file dialog).
    /// A file whose extension names a format (`.animclip`, `.bytes`, `.glb`, `.vrma`) switches to that format, so
    /// what is written is what its name says.
    pub fn set_path(&mut self, path: &std::path::Path) {
        self.path = path.display().to_string();
        self.path_chosen = true;
        self.follow_extension();
    }

    /// Takes the format the path's extension names, if any (a file, not a per-node folder).
    fn follow_extension(&mut self) {
        let named = std::path::Path::new(self.path.trim())
            .extension()
            .and_then(|e| e.to_str())
            .and_then(ExportFormat::from_extension);
        if let (false, Some(format)) = (self.per_node, named) {
            self.format = format;
        }
    }

    /// Switches between one file and a folder of one clip per node, the path following: a file's name becomes
    /// a folder beside it (`walk.glb` → `walk_nodes`, never the file itself), a folder gets the format's
    /// extension back.
    pub fn set_per_node(&mut self, on: bool) {
        if on == self.per_node {
            return;
        }
        self.per_node = on;
        let path = self.path.trim().to_string();
        if path.is_empty() {
            return;
        }
        let p = PathBuf::from(&path);
        self.path = if on {
            let stem = p.with_extension("");
            format!("{}_nodes", stem.display())
        } else {
            let folder = path.trim_end_matches('/').trim_end_matches("_nodes");
            format!("{folder}.{}", self.format.extension())
        };
    }

    /// The longest bake the frame budget allows at the current rate for this character, seconds.
    pub fn max_duration(&self, e: &EditorState) -> f32 {
        let joints = e.doc().model.character.skeleton.len().max(1) as f64;
        let frames = crate::offline::MAX_BAKE_SAMPLES as f64 / joints;
        ((frames - 1.0) / f64::from(self.fps.max(1.0))).max(0.1) as f32
    }

    /// The files of the export as set that exist already (a link included): the file, or, one clip per node,
    /// any node's clip or the preset in the folder.
    fn existing_outputs(&self, e: &EditorState) -> Vec<PathBuf> {
        let path = self.path.trim();
        if path.is_empty() {
            return Vec::new();
        }
        let target = PathBuf::from(path);
        let outputs = if self.per_node {
            per_node_outputs(&e.tuning().blend, &target, self.format)
        } else {
            vec![target]
        };
        outputs
            .into_iter()
            .filter(|p| p.symlink_metadata().is_ok())
            .collect()
    }

    /// True while an export runs.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The job the current settings describe.
    pub fn job(&self, e: &EditorState, overwrite: bool) -> Result<ExportJob, String> {
        let blend = &e.tuning().blend;
        let source = if self.per_node {
            if blend.nodes.is_empty() {
                return Err("The blend space has no node to export".into());
            }
            None
        } else if let (Some(m), Some(_)) = (e.machine(), e.machine_player()) {
            Some(StreamSource::Machine {
                machine: Box::new(m.clone()),
                script: e.script().cloned().unwrap_or_default(),
                sim_rate: e.eval().source().sim_rate(),
            })
        } else if e.blending() {
            Some(StreamSource::BlendPoint(blend.point))
        } else {
            match e.clip() {
                Some(i) => Some(StreamSource::Clip(i)),
                None => return Err("Nothing plays: choose a clip or the blend space".into()),
            }
        };
        if self.path.trim().is_empty() {
            return Err("Choose an output file".into());
        }
        Ok(ExportJob {
            duration: self.duration,
            fps: self.fps,
            format: self.format,
            animation_only: self.animation_only,
            unity_axes: if self.unity_gltf_axes {
                UnityAxes::Gltf
            } else {
                UnityAxes::Unity
            },
            sparse: self.sparse,
            overwrite,
            clip_range: e.clip().and(e.eval().play_range()),
            ..ExportJob::for_editor(e, source, PathBuf::from(self.path.trim()))
        })
    }

    fn start(&mut self, job: ExportJob) {
        let progress = Arc::new(AtomicU32::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let (p, c) = (progress.clone(), cancel.clone());
        std::thread::spawn(move || {
            let _ = tx.send(job.run(&p, &c));
        });
        self.running = Some(Running {
            progress,
            cancel,
            done: rx,
        });
    }

    /// Draws the window (when open) and reports a finished export in the status bar.
    pub fn ui(&mut self, ctx: &egui::Context, e: &EditorState, out: &mut Commands) {
        if let Some(r) = &self.running {
            if let Ok(result) = r.done.try_recv() {
                self.running = None;
                let (text, is_error) = match result {
                    Ok(text) => (text, false),
                    Err(text) => (text, true),
                };
                out.push(Command::Report { text, is_error });
            } else {
                ctx.request_repaint();
            }
        }
        if !self.open {
            return;
        }
        let mut close = false;
        // Below the menu bar, so the window never covers it.
        let top = ctx.content_rect().top() + 40.0;
        egui::Window::new("Export")
            .resizable(false)
            .collapsible(false)
            .default_pos([ctx.content_rect().center().x - 180.0, top])
            .constrain_to(ctx.content_rect().with_min_y(top))
            .show(ctx, |ui| {
                self.contents(ui, e, out);
                ui.separator();
                close = ui
                    .button("Close")
                    .on_hover_text("Close this window (Escape); an export that runs goes on")
                    .clicked();
            });
        if close {
            self.close();
        }
    }

    fn contents(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        let blend = &e.tuning().blend;
        let what = if self.per_node {
            format!(
                "one clip per blend node ({}) + preset.json, into a folder",
                blend.nodes.len()
            )
        } else if e.machine_player().is_some() {
            let script = match e.script() {
                Some(s) => format!("with the script's {}", s.summary()),
                None => "its parameters at their defaults (no script)".into(),
            };
            format!(
                "the state machine from its entry, {script}, simulated at {} Hz whatever the fps",
                e.eval().source().sim_rate()
            )
        } else if e.blending() {
            format!(
                "the blend space at ({:.2}, {:.2})",
                blend.point[0], blend.point[1]
            )
        } else {
            e.clip().map_or("nothing (rest pose)".into(), |i| {
                let range = e.eval().play_range().map_or(String::new(), |[a, b]| {
                    format!(" from its in point {a:.3} s, looping within {a:.3}–{b:.3} s")
                });
                format!("clip {}{range}", e.doc().clips[i].name)
            })
        };
        // One line each, whatever their length (the full text in the tooltip): a line that wraps moves every
        // control below it.
        let line = |ui: &mut egui::Ui, text: String| {
            ui.add(egui::Label::new(text.as_str()).truncate())
                .on_hover_text(text);
        };
        line(ui, format!("Bakes {what}, then the layers."));
        // C11: what the bake applies besides the layers, and a loop that will not close.
        let settings = match (self.per_node, e.blending(), e.clip()) {
            (false, false, Some(i)) => e
                .doc()
                .source_clips
                .get(i)
                .and_then(|c| e.tuning().clip_settings.get(&c.name))
                .map(|s| s.summary())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        line(
            ui,
            if settings.is_empty() {
                "Clip settings: none".to_string()
            } else {
                format!("Clip settings: {}", settings.join(", "))
            },
        );
        let own_clock: Vec<String> = e
            .tuning()
            .layers
            .clips
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.synced && !l.muted && l.weight > 0.0)
            .map(|(i, l)| l.display_name(i))
            .collect();
        let warning = (!own_clock.is_empty()).then(|| {
            format!(
                "⚠ {} on {} own clock: the baked loop has a seam where {} cycle does not end with the source's \
                 (tick Synced, or bake a duration that is a whole number of both cycles)",
                own_clock.join(", "),
                if own_clock.len() == 1 { "its" } else { "their" },
                if own_clock.len() == 1 { "its" } else { "their" },
            )
        });
        // Drawn or not, the line takes its place, so the controls below do not move when it appears.
        let text = warning
            .clone()
            .unwrap_or_else(|| "no layer on its own clock".into());
        let label =
            egui::Label::new(egui::RichText::new(text.as_str()).color(ui.visuals().warn_fg_color))
                .truncate();
        ui.add_visible(warning.is_some(), label).on_hover_text(text);
        ui.horizontal(|ui| {
            ui.label("Format");
            for f in [
                ExportFormat::Gltf,
                ExportFormat::Native,
                ExportFormat::Unity,
                ExportFormat::Vrma,
            ] {
                let tip = match f {
                    ExportFormat::Gltf => {
                        "glTF binary (.glb): the character with the baked animation"
                    }
                    ExportFormat::Native => "animtune's compact MessagePack clip (.animclip)",
                    ExportFormat::Unity => {
                        "The Unity C# runtime's AnimDataSequence layout (.bytes)"
                    }
                    ExportFormat::Vrma => {
                        "VRM Animation (.vrma): the human bones and expressions, for any VRM (three-vrm, UniVRM)"
                    }
                };
                if ui
                    .selectable_value(&mut self.format, f, f.name())
                    .on_hover_text(tip)
                    .changed()
                {
                    let stem = self
                        .path
                        .rsplit_once('.')
                        .map_or(self.path.clone(), |(s, _)| s.to_string());
                    if !self.per_node {
                        self.path = format!("{stem}.{}", f.extension());
                    }
                }
            }
        });
        let mut per_node = self.per_node;
        if ui
            .checkbox(&mut per_node, "Blend space: one clip per node + preset")
            .on_hover_text(
                "Bake every node's clip on its own, plus a preset that rebuilds the space, into a folder",
            )
            .changed()
        {
            self.set_per_node(per_node);
        }
        // Every format's options are always shown (those of another format greyed out), so the controls below
        // stay where they are when the format changes.
        let gltf = self.format == ExportFormat::Gltf;
        ui.add_enabled(
            gltf,
            egui::Checkbox::new(&mut self.animation_only, "Animation only (skeleton, no meshes)"),
        )
        .on_hover_text(
            "glTF: leave the meshes and textures out, a smaller file with the skeleton and animation",
        )
        .on_disabled_hover_text("For glTF exports");
        let unity = self.format == ExportFormat::Unity;
        ui.add_enabled(
            unity,
            egui::Checkbox::new(&mut self.unity_gltf_axes, "glTF axes"),
        )
        .on_hover_text(
            "Unity layout. Off: Unity's axes (X mirrored), what the Unity runtime plays as it is. On: glTF's \
             axes, for pipelines that convert by themselves",
        )
        .on_disabled_hover_text("For Unity-layout exports");
        ui.add_enabled(
            unity,
            egui::Checkbox::new(&mut self.sparse, "Only joints that move"),
        )
        .on_hover_text(
            "Unity layout. Off: every humanoid bone gets curves, as the original writer records them; the \
             Unity player leaves a bone without curves wherever it was",
        )
        .on_disabled_hover_text("For Unity-layout exports");
        crate::app::widgets::slider(
            ui,
            &mut self.fps,
            1.0..=120.0,
            "fps",
            "Frames per second of the bake",
        );
        // The duration is limited only by what a bake may hold (frames × joints), at this rate.
        let longest = self.max_duration(e);
        self.duration = self.duration.min(longest);
        ui.add_enabled(
            !self.per_node,
            egui::DragValue::new(&mut self.duration)
                .update_while_editing(false)
                .range(0.1..=longest)
                .speed(0.05)
                .prefix("duration ")
                .suffix(" s"),
        )
        .on_hover_text(format!(
            "Seconds to bake (loops repeat); at most {longest:.0} s at this rate for {} joints",
            e.doc().model.character.skeleton.len()
        ));
        ui.horizontal(|ui| {
            ui.label(if self.per_node { "Folder" } else { "File" });
            if ui
                .add(egui::TextEdit::singleline(&mut self.path).desired_width(220.0))
                .on_hover_text("Where the export goes; nothing is replaced without asking")
                .changed()
            {
                self.path_chosen = true;
                self.follow_extension();
            }
            if ui
                .button("Browse…")
                .on_hover_text("Choose the output with a file dialog")
                .clicked()
            {
                out.push(Command::ChooseFile(if self.per_node {
                    Purpose::ExportFolder
                } else {
                    Purpose::ExportFile(self.format.extension())
                }));
            }
        });
        if let Some(r) = &self.running {
            let f = r.progress.load(Ordering::Relaxed) as f32 / 1000.0;
            ui.add(egui::ProgressBar::new(f).show_percentage());
            if ui
                .button("Cancel")
                .on_hover_text("Stop the export; nothing is written")
                .clicked()
            {
                r.cancel.store(true, Ordering::Relaxed);
            }
            return;
        }
        let existing = self.existing_outputs(e);
        let exists = !existing.is_empty();
        if self.confirm
            && let Some((first, more)) = existing.split_first()
        {
            let question = match more.len() {
                0 => format!("{} exists. Replace it?", first.display()),
                n => format!(
                    "{} and {n} more of the files exist. Replace them?",
                    first.display()
                ),
            };
            ui.colored_label(egui::Color32::from_rgb(230, 170, 60), question);
            ui.horizontal(|ui| {
                if ui
                    .button("Replace")
                    .on_hover_text("Write over the existing files")
                    .clicked()
                {
                    self.confirm = false;
                    match self.job(e, true) {
                        Ok(job) => self.start(job),
                        Err(text) => out.push(Command::Report {
                            text,
                            is_error: true,
                        }),
                    }
                }
                if ui
                    .button("Keep it")
                    .on_hover_text("Do not export; change the path instead")
                    .clicked()
                {
                    self.confirm = false;
                }
            });
            return;
        }
        if ui
            .button("Export")
            .on_hover_text("Bake and write the file (asks before replacing one)")
            .clicked()
        {
            if exists {
                self.confirm = true;
            } else {
                match self.job(e, false) {
                    Ok(job) => self.start(job),
                    Err(text) => out.push(Command::Report {
                        text,
                        is_error: true,
                    }),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU32};

    /// A path chosen or typed with another format's extension writes that format: `.animclip` bytes in
    /// `run.animclip`, not a glTF under that name.
    #[test]
    fn the_format_follows_the_chosen_files_extension() {
        let mut d = ExportDialog::default();
        assert_eq!(d.format, ExportFormat::Gltf);
        for (name, format) in [
            ("run.animclip", ExportFormat::Native),
            ("run.BYTES", ExportFormat::Unity),
            ("run.vrma", ExportFormat::Vrma),
            ("run.glb", ExportFormat::Gltf),
        ] {
            d.set_path(std::path::Path::new(name));
            assert_eq!(d.format, format, "{name}");
        }
        d.set_path(std::path::Path::new("run.txt"));
        assert_eq!(
            d.format,
            ExportFormat::Gltf,
            "an unknown extension keeps the format"
        );
    }

    #[test]
    fn a_job_exports_the_blend_and_cancel_writes_nothing() {
        let dir = crate::test_support::temp_dir("export-job");
        let e = EditorState::new();
        let mut d = ExportDialog {
            path: dir.join("walk.glb").display().to_string(),
            duration: 1.0,
            ..ExportDialog::default()
        };
        let job = d.job(&e, false).unwrap();
        assert!(matches!(job.source, Some(StreamSource::BlendPoint(_))));
        let (p, c) = (AtomicU32::new(0), AtomicBool::new(false));
        let text = job.run(&p, &c).unwrap();
        assert!(text.contains("walk.glb"), "{text}");
        assert_eq!(p.load(Ordering::Relaxed), 1000);
        let written = std::fs::read(dir.join("walk.glb")).unwrap();
        // Without overwrite the existing file is kept and the error says so.
        let err = job.run(&p, &c).unwrap_err();
        assert!(err.contains("already exists"), "{err}");
        // Cancelled: nothing written, the old file intact.
        c.store(true, Ordering::Relaxed);
        let overwrite = ExportJob {
            overwrite: true,
            ..job
        };
        assert!(overwrite.run(&p, &c).unwrap_err().contains("cancelled"));
        assert_eq!(std::fs::read(dir.join("walk.glb")).unwrap(), written);
        // One clip per node plus the preset. Switching to it turns the file name into a folder beside the file,
        // which exists (B15: the folder was the file's own path, and writing failed with "File exists").
        d.format = ExportFormat::Native;
        d.path = dir.join("walk.animclip").display().to_string();
        d.set_per_node(true);
        assert_eq!(PathBuf::from(&d.path), dir.join("walk_nodes"));
        d.set_per_node(false);
        assert_eq!(PathBuf::from(&d.path), dir.join("walk.animclip"));
        d.set_per_node(true);
        d.path = dir.join("nodes").display().to_string();
        let job = d.job(&e, false).unwrap();
        c.store(false, Ordering::Relaxed);
        job.run(&p, &c).unwrap();
        assert!(dir.join("nodes/WalkForward.animclip").is_file());
        assert!(dir.join("nodes/preset.json").is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
