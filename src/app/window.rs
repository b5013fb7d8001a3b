//! The eframe application. Each frame it applies the commands queued since the last frame, advances time and
//! evaluates the pose once, then lays out the panels, which queue the next commands.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use egui::Key;

use super::command::{CameraMove, Command, Commands, Transport};
use super::command::{OpenKind, Purpose};
use super::dock::{Dock, DockPanes, Pane};
use super::editor::EditorState;
use super::gpu::ViewportGpu;
use super::panels::curves::CurvesPanel;
use super::panels::inspector::Inspector;
use super::panels::inspector::blend::{BlendPanel, canvas_id};
use super::panels::menu;
use super::panels::viewport::ViewportPanel;
use super::panels::{scene, status_bar, timeline, typing};
use super::state::session::Persisted;
use crate::app::dialogs::export::ExportDialog;
use crate::app::dialogs::files::{FileDialogs, Polled};
use crate::app::editor::MAX_FRAME_STEP_S;
use crate::app::state::layout::{Layout, UI_SCALES};
use crate::render::camera::ViewPreset;

const STORAGE_KEY: &str = "animtune";
const LAYOUT_KEY: &str = "animtune_layout";
const DOCK_KEY: &str = "animtune_dock";

/// The key eframe keeps egui's memory under (its `STORAGE_EGUI_MEMORY_KEY`).
pub const EGUI_MEMORY_KEY: &str = "egui";

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
    /// Escape, undo or redo was pressed this frame: an open menu closes (its entry was not what was used).
    dismiss_menus: bool,
    /// The pointer was down or a field had focus in the last frame: the commands its panels pushed (the last
    /// value of a drag, sent in the frame its button was released) still belong to that interaction.
    busy_before: bool,
    screenshot: Option<ScreenshotPlan>,
    shots: Option<mpsc::Receiver<std::sync::Arc<egui::ColorImage>>>,
    frames: u32,
    eval_micros: f32,
    inspector: Inspector,
    curves: CurvesPanel,
    viewport: ViewportPanel,
    /// The central area's docked panes (viewport, graph, curves, skate map).
    dock: Dock,
    /// The skate map pane's canvas.
    skate_map: BlendPanel,
    export: ExportDialog,
    soak: Option<super::soak::Soak>,
    frame_times: Option<super::frame_times::FrameTimes>,
    /// A window size (points) asked for on the command line, applied on the first frame (eframe would otherwise
    /// restore the saved one).
    window_size: Option<[f32; 2]>,
    /// The longest side, in physical pixels, the graphics device can draw a window at (its 2D texture limit).
    max_surface_side: u32,
    /// Where the clip list was last drawn: files dropped there add clips instead of opening a model.
    clip_list: Option<egui::Rect>,
    layout: Layout,
    files: FileDialogs,
    /// The model name the window's title shows.
    title: String,
    /// The scene panel's and the inspector's fit to the window's width.
    panel_fit: [PanelFit; 2],
    /// Gamepads, for driving the blend point (None where the system offers none).
    gamepads: Option<gilrs::Gilrs>,
}

/// A gamepad stick's value under which it reads as centred.
const GAMEPAD_DEAD_ZONE: f32 = 0.15;

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
        // Ctrl+= / Ctrl+- / Ctrl+0 are ours (see `shortcut`): egui's own handles one press a frame, so quick
        // presses on a slow frame were lost, and it steps by 0.1 where the View menu offers UI_SCALES.
        cc.egui_ctx.options_mut(|o| o.zoom_with_keyboard = false);
        let layout = cc
            .storage
            .and_then(|s| eframe::get_value::<Layout>(s, LAYOUT_KEY))
            .unwrap_or_default();
        if layout.ui_scale.is_finite() && layout.ui_scale != 1.0 {
            cc.egui_ctx
                .set_zoom_factor(layout.ui_scale.clamp(UI_SCALES[0], UI_SCALES[5]));
        }
        let dock = cc
            .storage
            .and_then(|s| eframe::get_value::<Dock>(s, DOCK_KEY))
            .map(Dock::checked)
            .unwrap_or_default();
        // The graph pane comes back with the dock: its toggle follows.
        let mut inspector = Inspector::default();
        inspector.states.graph_open = dock.is_open(Pane::StateMachine);
        let mut queue = Commands::new();
        if let Some(path) = model {
            queue.push(Command::Open(path));
        }
        AnimtuneApp {
            editor,
            queue,
            dismiss_menus: false,
            busy_before: false,
            screenshot,
            shots: None,
            frames: 0,
            eval_micros: 0.0,
            inspector,
            curves: CurvesPanel::default(),
            viewport: ViewportPanel::new(cc.wgpu_render_state.as_ref().map(ViewportGpu::new)),
            dock,
            skate_map: BlendPanel::for_skate_map(),
            export: ExportDialog::default(),
            soak: None,
            frame_times: None,
            window_size: None,
            max_surface_side: cc
                .wgpu_render_state
                .as_ref()
                .map_or(super::MAX_SURFACE_SIDE, |s| {
                    s.device.limits().max_texture_dimension_2d
                }),
            clip_list: None,
            files: FileDialogs::default(),
            layout,
            title: String::new(),
            panel_fit: [PanelFit::default(); 2],
            gamepads: gilrs::Gilrs::new().ok(),
        }
    }

    /// The curves view's state.
    pub fn curves_panel(&self) -> &CurvesPanel {
        &self.curves
    }

    /// Says the window's render pass has a depth buffer of `format`: on a software rasteriser the viewport then
    /// draws straight into it ([`super::gpu::draws_into_window_pass`]).
    pub fn with_window_depth(mut self, format: Option<wgpu::TextureFormat>) -> Self {
        if let Some(format) = format {
            self.viewport.set_window_depth(format);
        }
        self
    }

    /// Sets the window's inner size (points) on the first frame, over the size the last session saved.
    pub fn with_window_size(mut self, size: [f32; 2]) -> Self {
        self.window_size = Some(size);
        self
    }

    /// `size` (logical pixels, as `--window-size` gives it) in points at the UI scale, clamped so that the window's
    /// surface stays within the device's texture limit, and the window's largest size set to that limit; a
    /// status-bar note says when it had to shrink.
    fn fit_window_size(&mut self, ctx: &egui::Context, size: [f32; 2]) -> [f32; 2] {
        let size = window_points(size, ctx.zoom_factor());
        let points_per_pixel = 1.0 / ctx.pixels_per_point().max(f32::MIN_POSITIVE);
        let max_points = (self.max_surface_side as f32 * points_per_pixel).floor();
        ctx.send_viewport_cmd(egui::ViewportCommand::MaxInnerSize(egui::vec2(
            max_points, max_points,
        )));
        let fitted = size.map(|side| side.min(max_points));
        if fitted != size {
            self.queue.push(Command::Report {
                text: format!(
                    "window size {}x{} is over the graphics device's limit of {} pixels a side: {}x{} instead",
                    size[0], size[1], self.max_surface_side, fitted[0], fitted[1]
                ),
                is_error: false,
            });
        }
        fitted
    }

    /// Plays and measures frame times for `seconds` in this window, then closes it (see [`super::frame_times`]).
    pub fn with_frame_times(mut self, seconds: f32) -> Self {
        self.frame_times = Some(super::frame_times::FrameTimes::new(seconds));
        self
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

    /// The States tab's UI state (its selection and the graph's view offset).
    pub fn states_panel(&self) -> &crate::app::panels::inspector::states::StatesPanel {
        &self.inspector.states
    }

    /// The export window's settings.
    pub fn export_dialog(&mut self) -> &mut ExportDialog {
        &mut self.export
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        self.dismiss_menus = false;
        // Escape closes an open menu or combo box, then the export window (text fields keep it for themselves).
        if ctx.input(|i| i.key_pressed(Key::Escape)) {
            self.dismiss_menus = true;
            if egui::Popup::is_any_open(ctx) {
                egui::Popup::close_all(ctx);
            } else if !self.files.is_open() {
                self.export.close();
            }
        }
        if typing(ctx) {
            return;
        }
        self.trigger_keys(ctx);
        let out = &mut self.queue;
        let undo_or_redo = ctx.input_mut(|i| {
            let redo = i.consume_key(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, Key::Z)
                || i.consume_key(egui::Modifiers::COMMAND, Key::Y);
            if redo {
                out.push(Command::Redo);
            } else if i.consume_key(egui::Modifiers::COMMAND, Key::Z) {
                out.push(Command::Undo);
            } else {
                return false;
            }
            true
        });
        self.dismiss_menus |= undo_or_redo;
        let driving = self.editor.session().driving;
        if driving {
            let stick = self.stick(ctx);
            if stick != self.editor.session().stick {
                self.queue.push(Command::Stick(stick));
            }
        }
        let out = &mut self.queue;
        // While driving, the arrows steer the character instead of stepping frames.
        let arrows_to_canvas = driving || ctx.memory(|m| m.has_focus(canvas_id()));
        // F over the graph pane frames the graph (the pane handles it), not the model.
        let pointer = ctx.pointer_hover_pos();
        let f_to_graph = self
            .dock
            .rect(Pane::StateMachine)
            .is_some_and(|r| pointer.is_some_and(|p| r.contains(p)));
        let editor = &self.editor;
        let (open, export, scale_steps, scale_reset) = ctx.input(|i| {
            let time = editor.eval().time();
            let range = editor
                .eval()
                .play_range()
                .unwrap_or([0.0, editor.eval().duration()]);
            let mut chosen = ShortcutChoice::default();
            // Each key press with the modifiers it was pressed with: on a slow frame Ctrl may be up again by the
            // frame's end, and the frame's modifiers would turn Ctrl+O into O (the out point).
            for event in &i.events {
                if let egui::Event::Key {
                    key,
                    pressed: true,
                    modifiers,
                    ..
                } = event
                    && !(f_to_graph && *key == Key::F && modifiers.is_none())
                {
                    shortcut(
                        *key,
                        *modifiers,
                        time,
                        range,
                        arrows_to_canvas,
                        out,
                        &mut chosen,
                    );
                }
            }
            (
                chosen.open,
                chosen.export,
                chosen.scale_steps,
                chosen.scale_reset,
            )
        });
        if scale_reset || scale_steps != 0 {
            let from = if scale_reset { 1.0 } else { ctx.zoom_factor() };
            ctx.set_zoom_factor(step_ui_scale(from, scale_steps));
        }
        if open {
            self.files.open(OpenKind::Model, &self.editor);
        }
        if export {
            self.export.show(&self.editor);
        }
    }

    /// The stick while driving: the held keys (W/Up forward, S/Down back, D/Right right, A/Left left) plus the
    /// first gamepad's left stick (outside a small dead zone), within the unit disc.
    fn stick(&mut self, ctx: &egui::Context) -> [f32; 2] {
        let (mut x, mut y) = ctx.input(|i| {
            let held = |a: Key, b: Key| i.key_down(a) || i.key_down(b);
            let axis =
                |plus: bool, minus: bool| f32::from(u8::from(plus)) - f32::from(u8::from(minus));
            (
                axis(held(Key::D, Key::ArrowRight), held(Key::A, Key::ArrowLeft)),
                axis(held(Key::W, Key::ArrowUp), held(Key::S, Key::ArrowDown)),
            )
        });
        if let Some(pads) = &mut self.gamepads {
            while pads.next_event().is_some() {}
            if let Some((_, pad)) = pads.gamepads().find(|(_, p)| p.is_connected()) {
                let dead = |v: f32| if v.abs() < GAMEPAD_DEAD_ZONE { 0.0 } else { v };
                x += dead(pad.value(gilrs::Axis::LeftStickX));
                y += dead(pad.value(gilrs::Axis::LeftStickY));
            }
        }
        let length = (x * x + y * y).sqrt();
        if length > 1.0 {
            [x / length, y / length]
        } else {
            [x, y]
        }
    }

    /// Keys bound to triggers (the States tab's parameters) fire them while a state machine plays.
    fn trigger_keys(&mut self, ctx: &egui::Context) {
        let keys = &self.editor.session().machine.trigger_keys;
        if keys.is_empty() || self.editor.any_machine_player().is_none() {
            return;
        }
        let fired: Vec<String> = ctx.input(|i| {
            i.events
                .iter()
                .filter_map(|e| match e {
                    egui::Event::Key {
                        key,
                        pressed: true,
                        repeat: false,
                        modifiers,
                        ..
                    } if modifiers.is_none() => keys
                        .iter()
                        .find(|(_, k)| k.as_str() == key.name())
                        .map(|(name, _)| name.clone()),
                    _ => None,
                })
                .collect()
        });
        self.queue
            .extend(fired.into_iter().map(Command::FireTrigger));
    }

    /// Applies the queued commands, advances time and evaluates once.
    fn update_editor(&mut self, ctx: &egui::Context) {
        let start = Instant::now();
        for command in std::mem::take(&mut self.queue) {
            match command {
                Command::ChooseFile(purpose) => {
                    let name = match purpose {
                        Purpose::SavePreset => Some("preset.json"),
                        Purpose::SaveScript => Some("script.json"),
                        _ => None,
                    };
                    self.files.start(purpose, &self.editor, name);
                }
                command => self.editor.apply(command),
            }
        }
        // Panels push commands after this runs, so the release frame's last edit arrives in the next frame: the
        // undo step closes one frame after the interaction ends, with that edit in it.
        let busy_now = ctx.input(|i| i.pointer.any_down()) || typing(ctx);
        let busy_before = std::mem::replace(&mut self.busy_before, busy_now);
        let busy = busy_now || busy_before;
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
    /// Shows the open file dialog and routes what it chose: files to open go to the editor, export paths to
    /// the export window; a dialog that ended without a file says so in the status bar.
    fn file_dialogs(&mut self, ctx: &egui::Context) {
        self.files.choice = self.layout.file_dialog;
        self.layout.ui_scale = ctx.zoom_factor();
        match self.files.poll(ctx, &self.editor) {
            Polled::Nothing => {}
            Polled::Note(text) => self.queue.push(Command::Report {
                text,
                is_error: false,
            }),
            Polled::Error(text) => self.queue.push(Command::Report {
                text,
                is_error: true,
            }),
            Polled::Chosen(purpose, path) => match purpose {
                Purpose::Open(OpenKind::Clips) => self.queue.push(Command::AddClips(path)),
                Purpose::Open(_) => self.queue.push(Command::Open(path)),
                // The platform's save dialog has already asked before replacing a file; the in-app browser
                // has not, so there an existing preset is refused with a message.
                Purpose::SavePreset => self.queue.push(Command::SavePreset {
                    path,
                    overwrite: !self.files.uses_in_app(),
                }),
                Purpose::ExportFile(_) | Purpose::ExportFolder => self.export.set_path(&path),
                Purpose::OpenScript => self.queue.push(Command::OpenScript(path)),
                Purpose::SaveScript => self.queue.push(Command::SaveScript {
                    path,
                    overwrite: !self.files.uses_in_app(),
                }),
            },
        }
    }

    /// True while a file dialog is open (tests wait on it).
    pub fn file_dialog_open(&self) -> bool {
        self.files.is_open()
    }
}

/// The strip a collapsed side panel leaves: one button that opens it again. Returns true when clicked.
/// Narrowest window (points) in which the scene panel shows by itself; in a narrower one it starts as its strip.
pub const SCENE_MIN_WINDOW: f32 = 760.0;
/// Windows narrower than this (points) keep side panel widths of their own.
pub const WIDE_WINDOW: f32 = 1000.0;
/// Narrowest window (points) in which the inspector shows by itself.
pub const INSPECTOR_MIN_WINDOW: f32 = 520.0;

/// Whether a side panel shows: the user's saved choice, except in a window too narrow for it (at UI scale 2 a
/// 900×600 window is 450×300 points), where it shows as its strip until opened there. A choice made in a narrow
/// window lasts while it stays narrow and is not saved.
#[derive(Clone, Copy, Debug, Default)]
struct PanelFit {
    narrow: bool,
    choice_while_narrow: Option<bool>,
}

impl PanelFit {
    /// Whether the panel shows, `saved` being the user's choice and `narrow` whether the window is too narrow.
    fn shown(&mut self, saved: bool, narrow: bool) -> bool {
        if narrow != self.narrow {
            self.narrow = narrow;
            self.choice_while_narrow = None;
        }
        if narrow {
            self.choice_while_narrow.unwrap_or(false)
        } else {
            saved
        }
    }

    /// The user opened or closed the panel: saved, unless the window is narrow.
    fn choose(&mut self, saved: &mut bool, open: bool) {
        if self.narrow {
            self.choice_while_narrow = Some(open);
        } else {
            *saved = open;
        }
    }
}

/// A panel's frame without its fill: the window is cleared to the panels' colour ([`eframe::App::clear_color`]),
/// so filling each panel again would shade every pixel of the window twice, which in software rendering
/// (lavapipe) is a third of a frame.
fn unfilled(frame: egui::Frame) -> egui::Frame {
    frame.fill(egui::Color32::TRANSPARENT)
}

fn collapsed_strip(ui: &mut egui::Ui, arrow: &str, tip: &str) -> bool {
    ui.add_space(4.0);
    ui.button(arrow).on_hover_text(tip).clicked()
}

impl AnimtuneApp {
    /// Adds the clips of these files to the character once it is open (after the model on the command line).
    pub fn with_clips(mut self, clips: Vec<PathBuf>) -> Self {
        self.queue
            .extend(clips.into_iter().map(Command::AddClipsKeepingSource));
        self
    }

    /// Opens a preset (its blend space, layers and humanoid override) once the model and its clips are in: the
    /// command line's `--preset`.
    pub fn with_preset(mut self, preset: Option<PathBuf>) -> Self {
        self.queue.extend(preset.map(Command::Open));
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
        if let Some(size) = self.window_size.take() {
            let fitted = self.fit_window_size(&ctx, size);
            ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(fitted.into()));
        }
        if let Some(soak) = &mut self.soak {
            if soak.frame(&self.editor, &mut self.queue) {
                self.soak = None;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint();
        }
        if let Some(run) = &mut self.frame_times {
            if ctx.current_pass_index() == 0
                && run.frame(&ctx, &self.editor, &mut self.queue, &mut self.layout)
            {
                self.frame_times = None;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint();
        }
        // A frame may lay out twice (egui discards a pass to fix a layout); time and the pose move once.
        if ctx.current_pass_index() == 0 {
            self.update_editor(&ctx);
        }

        self.file_dialogs(&ctx);
        if self.title != self.editor.doc().name {
            self.title = self.editor.doc().name.clone();
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(format!(
                "animtune — {}",
                self.title
            )));
        }
        let (e, out) = (&self.editor, &mut self.queue);
        // What the side panels show in this window (the menu's View toggles act on that).
        let window_width = ui.available_width();
        let shown = [
            self.panel_fit[0].shown(self.layout.scene_open, window_width < SCENE_MIN_WINDOW),
            self.panel_fit[1].shown(
                self.layout.inspector_open,
                window_width < INSPECTOR_MIN_WINDOW,
            ),
        ];
        let mut layout = Layout {
            scene_open: shown[0],
            inspector_open: shown[1],
            ..self.layout
        };
        let requests = egui::Panel::top("menu")
            .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
            .show(ui, |ui| {
                menu::ui(ui, e, &mut layout, out, self.dismiss_menus)
            })
            .inner;
        let (mut scene_shown, mut inspector_shown) = (layout.scene_open, layout.inspector_open);
        self.layout = Layout {
            scene_open: self.layout.scene_open,
            inspector_open: self.layout.inspector_open,
            ..layout
        };
        if scene_shown != shown[0] {
            self.panel_fit[0].choose(&mut self.layout.scene_open, scene_shown);
        }
        if inspector_shown != shown[1] {
            self.panel_fit[1].choose(&mut self.layout.inspector_open, inspector_shown);
        }
        egui::Panel::bottom("status")
            .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
            .show(ui, |ui| status_bar::ui(ui, e));
        // The ruler lines up with the curves (last frame's) while they span most of the window's width, as
        // they do docked below the viewport.
        let aligned = self
            .curves
            .time_mapping
            .filter(|m| self.layout.curves_open && m.right - m.left >= 0.5 * window_width);
        egui::Panel::bottom("timeline")
            .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
            .resizable(false)
            .show(ui, |ui| {
                timeline::ui(ui, e, out, &mut self.layout.curves_open);
                timeline::ruler(ui, e, out, aligned);
            });
        // Side panels never take more than their share of the window, and never grow with their contents
        // (which scroll instead): the viewport keeps its size while tabs change.
        let width = ui.available_width();
        let collapsed = |id: &str| {
            egui::Panel::left(id.to_string())
                .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
                .show_separator_line(false)
                .resizable(false)
                .exact_size(26.0)
        };
        // A narrow window keeps its own panel widths: a panel squeezed there comes back at its width when the
        // window grows again (egui keeps each panel's width under its id).
        let band = if window_width < WIDE_WINDOW {
            "_narrow"
        } else {
            ""
        };
        let scene_panel = egui::Panel::left(format!("scene{band}"))
            .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
            .show_separator_line(false)
            .resizable(true)
            .default_size(240.0f32.min(width * 0.25))
            .size_range(140.0..=(width * 0.25).max(141.0));
        let mut clip_list = None;
        // Set when a button in the panel (or its collapsed strip) opens or closes it.
        let mut scene_open = None;
        egui::Panel::show_switched(
            ui,
            &mut scene_shown,
            collapsed("scene_collapsed"),
            scene_panel,
            |ui, open| {
                if open {
                    clip_list = Some(scene::ui(ui, e, out, &mut scene_open));
                } else if collapsed_strip(ui, "»", "Show the scene panel (clips and skeleton)") {
                    scene_open = Some(true);
                }
            },
        );
        if let Some(open) = scene_open {
            self.panel_fit[0].choose(&mut self.layout.scene_open, open);
        }
        self.clip_list = clip_list;
        let collapsed_right = egui::Panel::right("inspector_collapsed")
            .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
            .show_separator_line(false)
            .resizable(false)
            .exact_size(26.0);
        let inspector_panel = egui::Panel::right(format!("inspector{band}"))
            .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
            .show_separator_line(false)
            .resizable(true)
            .default_size(360.0f32.min(width * 0.36))
            .size_range(200.0..=(width * 0.4).max(201.0));
        let inspector = &mut self.inspector;
        let mut inspector_open = None;
        egui::Panel::show_switched(
            ui,
            &mut inspector_shown,
            collapsed_right,
            inspector_panel,
            |ui, open| {
                if open {
                    inspector.ui(ui, e, out, &mut inspector_open);
                } else if collapsed_strip(ui, "«", "Show the inspector") {
                    inspector_open = Some(true);
                }
            },
        );
        if let Some(open) = inspector_open {
            self.panel_fit[1].choose(&mut self.layout.inspector_open, open);
        }
        // The side panels' edges, drawn here only as high as the viewport: egui draws a panel's own line over the
        // panel's whole height, which in a short window reaches into the timeline below it.
        let central = ui.available_rect_before_wrap();
        let edge = ui.visuals().widgets.noninteractive.bg_stroke;
        for x in [central.left(), central.right()] {
            ui.painter().vline(x, central.y_range(), edge);
        }
        let eval_micros = self.eval_micros;
        let dock = &mut self.dock;
        dock.set_open(Pane::Curves, self.layout.curves_open);
        dock.set_open(Pane::SkateMap, self.layout.skate_map_open);
        dock.set_open(Pane::StateMachine, self.inspector.states.graph_open);
        self.curves.time_mapping = None;
        let mut panes = DockPanes {
            e,
            out: &mut *out,
            viewport: &mut self.viewport,
            curves: &mut self.curves,
            states: &mut self.inspector.states,
            skate_map: &mut self.skate_map,
            eval_micros,
            viewport_alone: None,
            closed: Vec::new(),
        };
        egui::CentralPanel::default()
            .frame(unfilled(egui::Frame::central_panel(ui.style())))
            .show(ui, |ui| dock.ui(ui, &mut panes));
        for pane in std::mem::take(&mut panes.closed) {
            dock.set_open(pane, false);
        }
        // A pane closed by its tab's × is closed for its toggle too.
        self.layout.curves_open = dock.is_open(Pane::Curves);
        self.layout.skate_map_open = dock.is_open(Pane::SkateMap);
        self.inspector.states.graph_open = dock.is_open(Pane::StateMachine);
        // The skate map is measured only while a canvas paints it.
        let skate = self.inspector.blend.paints_skate_map() || self.skate_map.paints_skate_map();
        if skate != e.session().show_skate_map {
            out.push(Command::ShowSkateMap(skate));
        }
        self.inspector.blend.shown = false;
        self.skate_map.shown = false;
        if requests.export {
            self.export.show(e);
        }
        self.export.ui(&ctx, e, out);
        super::dialogs::controller_choice::ui(&ctx, e, out);

        self.frames += 1;
        self.screenshots(&ctx);
        if self.editor.eval().clock().is_playing() || !self.queue.is_empty() {
            ctx.request_repaint();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.editor.persisted());
        eframe::set_value(storage, LAYOUT_KEY, &self.layout);
        eframe::set_value(storage, DOCK_KEY, &self.dock);
        // egui's own memory is not kept (see `persist_egui_memory`), but eframe still restores what a version
        // that kept it saved: a zoom, panel widths and scroll offsets from long ago.
        storage.remove_string(EGUI_MEMORY_KEY);
    }

    /// egui's own memory (panel widths, scroll offsets, open headers) is not carried to the next session: a
    /// panel squeezed in a small window would stay squeezed in a large one, and a tab would open scrolled where
    /// the last session left it (B12, B3). What a user sets on purpose ([`Layout`]: which panels are open, the UI
    /// scale, the file dialog) is saved on its own.
    fn persist_egui_memory(&self) -> bool {
        false
    }

    /// The panels' colour, opaque: panels are not filled on top of it (see [`unfilled`]).
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        visuals.panel_fill.to_normalized_gamma_f32()
    }
}

/// The shortcuts that open a window rather than send a command, as one frame's key presses chose them.
#[derive(Default)]
struct ShortcutChoice {
    open: bool,
    export: bool,
    /// UI scale steps asked for (Ctrl+= up, Ctrl+- down), in order.
    scale_steps: i32,
    /// Ctrl+0: back to scale 1.
    scale_reset: bool,
}

/// A window size in logical pixels as egui's points at UI scale `zoom`: a window asked for at 900×600 opens at
/// 900×600 whatever scale the UI was saved at (egui sizes windows in points, which the scale enlarges).
pub fn window_points(size: [f32; 2], zoom: f32) -> [f32; 2] {
    let zoom = if zoom.is_finite() && zoom > 0.0 {
        zoom
    } else {
        1.0
    };
    size.map(|side| side / zoom)
}

/// The UI scale `steps` entries of [`UI_SCALES`] up (or down) from `from`, within the list.
pub fn step_ui_scale(from: f32, steps: i32) -> f32 {
    let mut scale = from;
    for _ in 0..steps.unsigned_abs() {
        scale = if steps > 0 {
            UI_SCALES
                .into_iter()
                .find(|&s| s > scale + 1e-3)
                .unwrap_or(UI_SCALES[UI_SCALES.len() - 1])
        } else {
            UI_SCALES
                .into_iter()
                .rev()
                .find(|&s| s < scale - 1e-3)
                .unwrap_or(UI_SCALES[0])
        };
    }
    scale
}

/// What one key press, with the modifiers it was pressed with, asks for: a command in `out`, or a window in
/// `chosen`. `time` is the playhead and `range` the play range (or the whole clip), for I and O.
fn shortcut(
    key: Key,
    modifiers: egui::Modifiers,
    time: f32,
    range: [f32; 2],
    arrows_to_canvas: bool,
    out: &mut Commands,
    chosen: &mut ShortcutChoice,
) {
    let (command, shift, alt) = (modifiers.command, modifiers.shift, modifiers.alt);
    match key {
        Key::Space if !command && !shift => out.push(Command::Transport(Transport::TogglePlay)),
        Key::Home if !command && !shift => out.push(Command::Transport(Transport::Scrub(0.0))),
        Key::End if !command && !shift => out.push(Command::Transport(Transport::ScrubToEnd)),
        Key::F if shift => out.push(Command::Camera(CameraMove::Reset)),
        Key::F if !command => out.push(Command::Camera(CameraMove::Frame)),
        // Blender's numpad views (the digit row too): 1 front, 3 right, 7 top; with Ctrl the opposite side.
        Key::Num1 | Key::Num3 | Key::Num7 => {
            let (plain, with_ctrl) = match key {
                Key::Num1 => (ViewPreset::Front, ViewPreset::Back),
                Key::Num3 => (ViewPreset::Right, ViewPreset::Left),
                _ => (ViewPreset::Top, ViewPreset::Bottom),
            };
            let view = if command { with_ctrl } else { plain };
            out.push(Command::Camera(CameraMove::View(view)));
        }
        // In/out range at the playhead (I, O); Alt+I clears it.
        Key::I if !command => out.push(Command::SetPlayRange(if alt {
            None
        } else {
            Some([time, range[1]])
        })),
        Key::O if command => chosen.open = true,
        Key::O if !alt => out.push(Command::SetPlayRange(Some([range[0], time]))),
        Key::E if command => chosen.export = true,
        // UI scale, through the View menu's steps: each press counts, however many come in one slow frame.
        Key::Equals | Key::Plus if command => chosen.scale_steps += 1,
        Key::Minus if command => chosen.scale_steps -= 1,
        Key::Num0 if command => {
            chosen.scale_reset = true;
            chosen.scale_steps = 0;
        }
        Key::ArrowRight if !arrows_to_canvas => {
            out.push(Command::Transport(Transport::StepFrames(1)))
        }
        Key::ArrowLeft if !arrows_to_canvas => {
            out.push(Command::Transport(Transport::StepFrames(-1)))
        }
        _ => {}
    }
}
