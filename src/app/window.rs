//! The eframe application. Each frame it applies the commands queued since the last frame, advances time and
//! evaluates the pose once, then lays out the panels, which queue the next commands.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use egui::Key;

use super::command::{CameraMove, Command, Commands, Transport};
use super::editor::EditorState;
use super::gpu::ViewportGpu;
use super::panels::inspector::Inspector;
use super::panels::inspector::blend::{BlendPanel, canvas_id};
use super::panels::menu::{self, OpenKind};
use super::panels::viewport::ViewportPanel;
use super::panels::{scene, status_bar, timeline, typing};
use super::state::session::Persisted;
use crate::app::dialogs::export::ExportDialog;
use crate::render::camera::ViewPreset;

const STORAGE_KEY: &str = "animtune";
/// Longest time step one frame advances (a stalled frame does not jump the animation).
const MAX_FRAME_STEP_S: f32 = 0.1;

/// Writes a screenshot after a number of frames, then closes the window (for CI under Xvfb).
pub struct ScreenshotPlan {
    /// Where the PNG goes.
    pub path: PathBuf,
    /// Frames to run first.
    pub frames: u32,
}

/// The editor window.
pub struct AnimtuneApp {
    editor: EditorState,
    queue: Commands,
    screenshot: Option<ScreenshotPlan>,
    shots: Option<mpsc::Receiver<std::sync::Arc<egui::ColorImage>>>,
    frames: u32,
    eval_micros: f32,
    inspector: Inspector,
    viewport: ViewportPanel,
    export: ExportDialog,
    soak: Option<super::soak::Soak>,
    /// Where the clip list was last drawn: files dropped there add clips instead of opening a model.
    clip_list: Option<egui::Rect>,
}

impl AnimtuneApp {
    /// Creates the app: restores the saved session, opens `model` if given.
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        model: Option<PathBuf>,
        screenshot: Option<ScreenshotPlan>,
    ) -> Self {
        let mut editor = EditorState::new();
        if let Some(p) = cc
            .storage
            .and_then(|s| eframe::get_value::<Persisted>(s, STORAGE_KEY))
        {
            editor.restore(p);
        }
        let mut queue = Commands::new();
        if let Some(path) = model {
            queue.push(Command::Open(path));
        }
        AnimtuneApp {
            editor,
            queue,
            screenshot,
            shots: None,
            frames: 0,
            eval_micros: 0.0,
            inspector: Inspector::default(),
            viewport: ViewportPanel::new(cc.wgpu_render_state.as_ref().map(ViewportGpu::new)),
            export: ExportDialog::default(),
            soak: None,
            clip_list: None,
        }
    }

    /// Runs the scripted soak test in this window (see [`super::soak`]).
    pub fn with_soak(mut self, plan: super::soak::SoakPlan) -> Self {
        self.soak = Some(super::soak::Soak::new(plan));
        self
    }

    /// The editor's state, as the panels see it.
    pub fn editor(&self) -> &EditorState {
        &self.editor
    }

    /// Queues a command for the next frame, as a panel would.
    pub fn send(&mut self, command: Command) {
        self.queue.push(command);
    }

    /// The blend space panel's UI state.
    pub fn blend_panel(&self) -> &BlendPanel {
        &self.inspector.blend
    }

    /// The export window's settings.
    pub fn export_dialog(&mut self) -> &mut ExportDialog {
        &mut self.export
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        if typing(ctx) {
            return;
        }
        let out = &mut self.queue;
        ctx.input_mut(|i| {
            let redo = i.consume_key(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, Key::Z)
                || i.consume_key(egui::Modifiers::COMMAND, Key::Y);
            if redo {
                out.push(Command::Redo);
            } else if i.consume_key(egui::Modifiers::COMMAND, Key::Z) {
                out.push(Command::Undo);
            }
        });
        let arrows_to_canvas = ctx.memory(|m| m.has_focus(canvas_id()));
        let editor = &self.editor;
        let (open, export) = ctx.input(|i| {
            let keys = [
                (Key::Space, Command::Transport(Transport::TogglePlay)),
                (Key::Home, Command::Transport(Transport::Scrub(0.0))),
                (Key::End, Command::Transport(Transport::ScrubToEnd)),
                (Key::F, Command::Camera(CameraMove::Frame)),
            ];
            for (key, command) in keys {
                if i.key_pressed(key) && !i.modifiers.command && !i.modifiers.shift {
                    out.push(command);
                }
            }
            // Blender's numpad views (the digit row too): 1 front, 3 right, 7 top; with Ctrl the opposite side.
            let views = [
                (Key::Num1, ViewPreset::Front, ViewPreset::Back),
                (Key::Num3, ViewPreset::Right, ViewPreset::Left),
                (Key::Num7, ViewPreset::Top, ViewPreset::Bottom),
            ];
            for (key, plain, with_ctrl) in views {
                if i.key_pressed(key) {
                    let view = if i.modifiers.command {
                        with_ctrl
                    } else {
                        plain
                    };
                    out.push(Command::Camera(CameraMove::View(view)));
                }
            }
            if i.key_pressed(Key::F) && i.modifiers.shift {
                out.push(Command::Camera(CameraMove::Reset));
            }
            // In/out range at the playhead (I, O); Alt+I clears it.
            let time = editor.eval().time();
            let [a, b] = editor
                .eval()
                .play_range()
                .unwrap_or([0.0, editor.eval().duration()]);
            if i.key_pressed(Key::I) && !i.modifiers.command {
                out.push(Command::SetPlayRange(if i.modifiers.alt {
                    None
                } else {
                    Some([time, b])
                }));
            }
            if i.key_pressed(Key::O) && !i.modifiers.command && !i.modifiers.alt {
                out.push(Command::SetPlayRange(Some([a, time])));
            }
            if !arrows_to_canvas {
                if i.key_pressed(Key::ArrowRight) {
                    out.push(Command::Transport(Transport::StepFrames(1)));
                }
                if i.key_pressed(Key::ArrowLeft) {
                    out.push(Command::Transport(Transport::StepFrames(-1)));
                }
            }
            (
                i.modifiers.command && i.key_pressed(Key::O),
                i.modifiers.command && i.key_pressed(Key::E),
            )
        });
        if open {
            menu::open_dialog(OpenKind::Model, &mut self.queue);
        }
        if export {
            self.export.show(&self.editor);
        }
    }

    /// Applies the queued commands, advances time and evaluates once.
    fn update_editor(&mut self, ctx: &egui::Context) {
        let start = Instant::now();
        for command in self.queue.drain(..) {
            self.editor.apply(command);
        }
        let busy = ctx.input(|i| i.pointer.any_down()) || typing(ctx);
        let dt = ctx.input(|i| i.stable_dt).min(MAX_FRAME_STEP_S);
        self.editor.update(dt, busy);
        self.eval_micros = start.elapsed().as_secs_f32() * 1e6;
    }

    fn screenshots(&mut self, ctx: &egui::Context) {
        let Some(plan) = &self.screenshot else { return };
        if let Some(rx) = &self.shots {
            if let Ok(image) = rx.try_recv() {
                let [w, h] = image.size;
                let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
                let result = image::RgbaImage::from_raw(w as u32, h as u32, bytes)
                    .ok_or_else(|| "screenshot has the wrong size".to_string())
                    .and_then(|img| img.save(&plan.path).map_err(|e| e.to_string()));
                if let Err(e) = result {
                    eprintln!(
                        "error: {}: cannot save the screenshot: {e}",
                        plan.path.display()
                    );
                    std::process::exit(1);
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint();
            return;
        }
        if self.frames >= plan.frames {
            let (tx, rx) = mpsc::channel();
            self.shots = Some(rx);
            ctx.send_viewport_cmd(egui::ViewportCommand::Screenshot(
                egui::ScreenshotCallback::new(move |img| {
                    let _ = tx.send(img);
                }),
            ));
        }
        ctx.request_repaint();
    }
}

impl AnimtuneApp {
    /// Adds the clips of these files to the character once it is open (after the model on the command line).
    pub fn with_clips(mut self, clips: Vec<PathBuf>) -> Self {
        self.queue.extend(clips.into_iter().map(Command::AddClips));
        self
    }
}

impl eframe::App for AnimtuneApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        let on_clip_list = ctx
            .input(|i| i.pointer.latest_pos())
            .zip(self.clip_list)
            .is_some_and(|(p, r)| r.contains(p));
        self.queue.extend(dropped.into_iter().map(|p| {
            if on_clip_list {
                Command::AddClips(p)
            } else {
                Command::Open(p)
            }
        }));
        self.shortcuts(&ctx);
        if let Some(soak) = &mut self.soak {
            if soak.frame(&self.editor, &mut self.queue) {
                self.soak = None;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint();
        }
        // A frame may lay out twice (egui discards a pass to fix a layout); time and the pose move once.
        if ctx.current_pass_index() == 0 {
            self.update_editor(&ctx);
        }

        let (e, out) = (&self.editor, &mut self.queue);
        let requests = egui::Panel::top("menu")
            .show(ui, |ui| menu::ui(ui, e, out))
            .inner;
        egui::Panel::bottom("status").show(ui, |ui| status_bar::ui(ui, e));
        egui::Panel::bottom("timeline")
            .resizable(false)
            .show(ui, |ui| timeline::ui(ui, e, out));
        let clip_list = egui::Panel::left("scene")
            .resizable(true)
            .default_size(260.0)
            .show(ui, |ui| scene::ui(ui, e, out))
            .inner;
        self.clip_list = Some(clip_list);
        egui::Panel::right("inspector")
            .resizable(true)
            .default_size(360.0)
            .show(ui, |ui| self.inspector.ui(ui, e, out));
        let eval_micros = self.eval_micros;
        egui::CentralPanel::default().show(ui, |ui| self.viewport.ui(ui, e, out, eval_micros));
        if requests.export {
            self.export.show(e);
        }
        self.export.ui(&ctx, e, out);

        self.frames += 1;
        self.screenshots(&ctx);
        if self.editor.eval().is_playing() || !self.queue.is_empty() {
            ctx.request_repaint();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.editor.persisted());
    }
}
