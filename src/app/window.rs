//! The eframe application: menu bar, scene panel, viewport, inspector, timeline and status bar.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use egui::{Color32, Key, RichText};

use super::blend_panel::{BlendPanel, canvas_id, typing};
use super::editor::{EditGroup, EditorState, Persisted};
use super::export_dialog::ExportDialog;
use super::layers_panel::LayersPanel;
use super::viewport::ViewportGpu;

const STORAGE_KEY: &str = "animtune";

/// Writes a screenshot after a number of frames, then closes the window (for CI under Xvfb).
pub struct ScreenshotPlan {
    /// Where the PNG goes.
    pub path: PathBuf,
    /// Frames to run first.
    pub frames: u32,
}

/// The editor window.
pub struct AnimtuneApp {
    /// Editor state, public so tests can inspect it.
    pub editor: EditorState,
    gpu: Option<ViewportGpu>,
    screenshot: Option<ScreenshotPlan>,
    shots: Option<mpsc::Receiver<std::sync::Arc<egui::ColorImage>>>,
    frames: u32,
    eval_micros: f32,
    inspector_tab: usize,
    /// The blend space panel's UI state.
    pub blend_panel: BlendPanel,
    edits: EditGroup,
    layers_panel: LayersPanel,
    /// The parameters before a drag of the look-at target began (one undo step when it ends).
    target_drag: Option<super::editor::Tuning>,
    /// File → Export….
    pub export: ExportDialog,
    soak: Option<super::soak::Soak>,
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
        if let Some(path) = model {
            editor.open(&path);
            editor.frame_model(16.0 / 9.0);
        }
        AnimtuneApp {
            editor,
            gpu: cc.wgpu_render_state.as_ref().map(ViewportGpu::new),
            screenshot,
            shots: None,
            frames: 0,
            eval_micros: 0.0,
            inspector_tab: 0,
            blend_panel: BlendPanel::default(),
            edits: EditGroup::default(),
            layers_panel: LayersPanel::default(),
            target_drag: None,
            export: ExportDialog::default(),
            soak: None,
        }
    }

    /// Runs the scripted soak test in this window (see [`super::soak`]).
    pub fn with_soak(mut self, plan: super::soak::SoakPlan) -> Self {
        self.soak = Some(super::soak::Soak::new(plan));
        self
    }

    fn undo(&mut self) {
        self.edits.commit(&mut self.editor);
        self.editor.undo();
    }

    fn redo(&mut self) {
        self.edits.commit(&mut self.editor);
        self.editor.redo();
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        if typing(ctx) {
            return;
        }
        let (undo, redo) = ctx.input_mut(|i| {
            let redo = i.consume_key(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, Key::Z)
                || i.consume_key(egui::Modifiers::COMMAND, Key::Y);
            let undo = i.consume_key(egui::Modifiers::COMMAND, Key::Z);
            (undo, redo)
        });
        if redo {
            self.redo();
        } else if undo {
            self.undo();
        }
        let arrows_to_canvas = ctx.memory(|m| m.has_focus(canvas_id()));
        let e = &mut self.editor;
        ctx.input(|i| {
            if i.key_pressed(Key::Space) {
                e.toggle_play();
            }
            if i.key_pressed(Key::ArrowRight) && !arrows_to_canvas {
                e.step_frames(1);
            }
            if i.key_pressed(Key::ArrowLeft) && !arrows_to_canvas {
                e.step_frames(-1);
            }
            if i.key_pressed(Key::Home) {
                e.scrub(0.0);
            }
            if i.key_pressed(Key::End) {
                e.scrub(e.eval.duration());
            }
            if i.key_pressed(Key::F) {
                e.frame_model(16.0 / 9.0);
            }
        });
        if ctx.input(|i| i.modifiers.command && i.key_pressed(Key::O)) {
            self.open_dialog(false);
        }
        if ctx.input(|i| i.modifiers.command && i.key_pressed(Key::E)) {
            self.export.show(&self.editor);
        }
    }

    fn open_dialog(&mut self, clip: bool) {
        let dialog = if clip {
            rfd::FileDialog::new().add_filter("clips", &["animclip", "bytes", "vrma"])
        } else {
            rfd::FileDialog::new().add_filter("models", &["glb", "gltf", "vrm"])
        };
        match dialog.pick_file() {
            Some(path) => self.editor.open(&path),
            None => {
                self.editor.status.text =
                    "No file chosen (no file dialog available? drop a file on the window instead)"
                        .into();
                self.editor.status.is_error = false;
            }
        }
    }

    fn menu(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open model…  Ctrl+O").clicked() {
                    self.open_dialog(false);
                }
                if ui.button("Open clip…").clicked() {
                    self.open_dialog(true);
                }
                if ui.button("Open blend space / preset…").clicked() {
                    match rfd::FileDialog::new()
                        .add_filter("presets", &["json"])
                        .pick_file()
                    {
                        Some(path) => self.editor.open(&path),
                        None => {
                            self.editor.status.text =
                                "No file chosen (no file dialog available? drop the .json on the window instead)"
                                    .into();
                            self.editor.status.is_error = false;
                        }
                    }
                }
                if ui.button("Save preset…").clicked() {
                    match rfd::FileDialog::new()
                        .add_filter("presets", &["json"])
                        .set_file_name("preset.json")
                        .save_file()
                    {
                        // The save dialog has already asked before replacing an existing file.
                        Some(path) => self.editor.save_preset(&path, true),
                        None => {
                            self.editor.status.text =
                                "Not saved (no file chosen, or no file dialog available)".into();
                            self.editor.status.is_error = false;
                        }
                    }
                }
                if ui.button("Export…  Ctrl+E").clicked() {
                    self.export.show(&self.editor);
                }
                ui.menu_button("Recent files", |ui| {
                    if self.editor.recent.is_empty() {
                        ui.label("none yet");
                    }
                    for p in self.editor.recent.clone() {
                        if ui.button(p.display().to_string()).clicked() {
                            self.editor.open(&p);
                        }
                    }
                });
                if ui.button("Mannequin (built-in)").clicked() {
                    let recent = std::mem::take(&mut self.editor.recent);
                    self.editor = EditorState::new();
                    self.editor.recent = recent;
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            ui.menu_button("Edit", |ui| {
                if ui
                    .add_enabled(self.editor.can_undo(), egui::Button::new("Undo  Ctrl+Z"))
                    .clicked()
                {
                    self.undo();
                }
                if ui
                    .add_enabled(
                        self.editor.can_redo(),
                        egui::Button::new("Redo  Ctrl+Shift+Z"),
                    )
                    .clicked()
                {
                    self.redo();
                }
            });
            ui.menu_button("View", |ui| {
                ui.checkbox(&mut self.editor.show_skeleton, "Skeleton");
                ui.checkbox(&mut self.editor.show_grid, "Grid");
                if ui.button("Frame model  F").clicked() {
                    self.editor.frame_model(16.0 / 9.0);
                }
            });
        });
    }

    fn scene_panel(&mut self, ui: &mut egui::Ui) {
        let e = &mut self.editor;
        ui.heading(&e.model_name);
        let c = &e.model.character;
        let h = &c.humanoid;
        ui.label(format!(
            "{} joints, {} meshes",
            c.skeleton.len(),
            c.meshes.len()
        ));
        if h.is_humanoid() {
            ui.label(format!(
                "Humanoid: {} bones from {}",
                h.len(),
                h.source.as_str()
            ));
        } else {
            let missing: Vec<&str> = h.missing_required.iter().map(|b| b.name()).collect();
            ui.colored_label(
                Color32::from_rgb(230, 160, 60),
                format!("Not humanoid (missing: {})", missing.join(", ")),
            );
        }
        ui.separator();
        ui.label(RichText::new("Clips").strong());
        let mut chosen = None;
        for (i, clip) in e.clips.iter().enumerate() {
            let name = if clip.name.is_empty() {
                format!("clip {i}")
            } else {
                clip.name.clone()
            };
            if ui
                .selectable_label(
                    e.clip() == Some(i),
                    format!("{name}  ({:.2} s)", clip.duration),
                )
                .clicked()
            {
                chosen = Some(i);
            }
        }
        ui.separator();
        ui.label(RichText::new("Skeleton").strong());
        let twists: Vec<usize> = c
            .twist_chains()
            .iter()
            .flat_map(|t| t.joints.clone())
            .collect();
        let bones = h.bone_per_joint(c.skeleton.len());
        let mut select = None;
        egui::ScrollArea::vertical().show(ui, |ui| {
            for (j, bone) in bones.iter().enumerate() {
                let indent = "  ".repeat(c.skeleton.depth(j).min(24));
                let mut text = format!("{indent}{}", c.skeleton.name(j));
                if let Some(b) = bone {
                    text.push_str(&format!("  [{}]", b.name()));
                }
                if twists.contains(&j) {
                    text.push_str("  (twist)");
                }
                if ui.selectable_label(e.selected == Some(j), text).clicked() {
                    select = Some(j);
                }
            }
        });
        if select.is_some() {
            e.selected = select;
        }
        if let Some(i) = chosen {
            e.select_clip(Some(i));
            e.eval.play();
        }
    }

    fn inspector(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            for (i, tab) in ["Blend", "Clip", "Joint", "Layers"].iter().enumerate() {
                if ui.selectable_label(self.inspector_tab == i, *tab).clicked() {
                    self.inspector_tab = i;
                }
            }
        });
        ui.separator();
        if self.inspector_tab == 0 || self.inspector_tab == 3 {
            let before = self.editor.tuning();
            egui::ScrollArea::vertical().show(ui, |ui| {
                if self.inspector_tab == 0 {
                    self.blend_panel.ui(ui, &mut self.editor);
                } else {
                    self.layers_panel.ui(ui, &mut self.editor);
                }
            });
            let busy = ui.input(|i| i.pointer.any_down()) || typing(ui.ctx());
            self.edits.end_frame(&mut self.editor, before, busy);
            return;
        }
        let e = &self.editor;
        match self.inspector_tab {
            1 => match (e.clip(), e.binding()) {
                (Some(i), Some(b)) => {
                    let clip = &e.clips[i];
                    ui.label(format!(
                        "{}: {:.3} s, {} tracks",
                        clip.name,
                        clip.duration,
                        clip.tracks.len()
                    ));
                    ui.label(format!(
                        "Tracks without a joint: {}",
                        b.unbound_tracks.len()
                    ));
                    for t in b.unbound_tracks.iter().take(20) {
                        ui.small(t);
                    }
                    ui.label(format!(
                        "Joints without a track: {}",
                        b.joints_without_track.len()
                    ));
                }
                _ => {
                    ui.label("Rest pose (no clip)");
                }
            },
            2 => match e.selected {
                Some(j) => {
                    let s = &e.model.character.skeleton;
                    ui.label(RichText::new(s.name(j)).strong());
                    ui.small(s.path(j));
                    let t = crate::core::Transform::from_mat4(&e.matrices()[j]);
                    ui.label(format!(
                        "model position: {:.3} {:.3} {:.3}",
                        t.translation.x, t.translation.y, t.translation.z
                    ));
                    let l = e.pose().local[j];
                    let (x, y, z) = l.rotation.to_euler(glam::EulerRot::XYZ);
                    ui.label(format!(
                        "local rotation (deg): {:.1} {:.1} {:.1}",
                        x.to_degrees(),
                        y.to_degrees(),
                        z.to_degrees()
                    ));
                }
                None => {
                    ui.label("Click a joint in the viewport or the skeleton list.");
                }
            },
            _ => {}
        }
    }

    fn timeline(&mut self, ui: &mut egui::Ui) {
        let e = &mut self.editor;
        ui.horizontal(|ui| {
            let label = if e.eval.is_playing() { "Pause" } else { "Play" };
            if ui.button(label).on_hover_text("Space").clicked() {
                e.toggle_play();
            }
            if ui.button("Stop").clicked() {
                e.stop();
            }
            if ui.button("|<").on_hover_text("Home").clicked() {
                e.scrub(0.0);
            }
            if ui.button("<").on_hover_text("Left arrow").clicked() {
                e.step_frames(-1);
            }
            if ui.button(">").on_hover_text("Right arrow").clicked() {
                e.step_frames(1);
            }
            if ui.button(">|").on_hover_text("End").clicked() {
                let end = e.eval.duration();
                e.scrub(end);
            }
            let current = if e.blending() {
                "Blend space".to_string()
            } else {
                e.clip()
                    .map_or("(rest pose)".to_string(), |i| e.clips[i].name.clone())
            };
            // None: the blend space; Some(None): the rest pose; Some(Some(i)): clip i.
            let before = if e.blending() { None } else { Some(e.clip()) };
            let mut chosen = before;
            egui::ComboBox::from_id_salt("clip")
                .selected_text(current)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut chosen, None, "Blend space");
                    for (i, clip) in e.clips.iter().enumerate() {
                        ui.selectable_value(&mut chosen, Some(Some(i)), clip.name.as_str());
                    }
                });
            if chosen != before {
                match chosen {
                    None => e.play_blend(),
                    Some(c) => e.select_clip(c),
                }
                e.eval.play();
            }
            let mut looping = e.eval.is_looping();
            if ui.checkbox(&mut looping, "Loop").changed() {
                e.eval.set_looping(looping);
            }
            let mut speed = e.eval.speed();
            if ui
                .add(
                    egui::DragValue::new(&mut speed)
                        .speed(0.05)
                        .range(-4.0..=4.0)
                        .prefix("speed "),
                )
                .changed()
            {
                e.eval.set_speed(speed);
            }
            ui.label(format!("{:.3} s  frame {}", e.eval.time(), e.frame()));
        });
        let duration = e.eval.duration().max(1e-3);
        let mut t = e.eval.time();
        let slider = egui::Slider::new(&mut t, 0.0..=duration)
            .show_value(false)
            .text("Time");
        let width = ui.available_width();
        ui.spacing_mut().slider_width = (width - 60.0).max(50.0);
        if ui.add(slider).changed() {
            e.scrub(t);
        }
    }

    fn viewport(&mut self, ui: &mut egui::Ui) {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        let e = &mut self.editor;
        let aspect = rect.width() / rect.height().max(1.0);
        let view_proj = e.camera.view_proj(aspect);
        let to_screen = |p: glam::Vec3| {
            let c = view_proj.project_point3(p);
            rect.min
                + egui::vec2(
                    (c.x * 0.5 + 0.5) * rect.width(),
                    (0.5 - c.y * 0.5) * rect.height(),
                )
        };
        // The look-at target's cross can be dragged in the plane facing the camera.
        let look = &e.layers.look_at;
        if response.drag_started_by(egui::PointerButton::Primary)
            && look.enabled
            && !look.follow_camera
            && let Some(press) = ui.input(|i| i.pointer.press_origin())
            && to_screen(e.look_target()).distance(press) < 14.0
        {
            self.target_drag = Some(e.tuning());
        }
        if self.target_drag.is_some() {
            if let Some(pos) = response.interact_pointer_pos() {
                let inv = view_proj.inverse();
                let ndc = glam::Vec2::new(
                    (pos.x - rect.left()) / rect.width() * 2.0 - 1.0,
                    1.0 - (pos.y - rect.top()) / rect.height() * 2.0,
                );
                let near = inv.project_point3(ndc.extend(0.0));
                let far = inv.project_point3(ndc.extend(1.0));
                let dir = (far - near).normalize_or_zero();
                let target = e.look_target();
                let normal = (target - e.camera.eye()).normalize_or_zero();
                let denom = dir.dot(normal);
                if denom.abs() > 1e-6 {
                    let hit = near + dir * ((target - near).dot(normal) / denom);
                    if hit.is_finite() {
                        e.edit_layers(false, |l| l.look_at.target = hit.to_array());
                    }
                }
            }
            if (response.drag_stopped() || !ui.input(|i| i.pointer.primary_down()))
                && let Some(before) = self.target_drag.take()
            {
                e.push_undo(before);
            }
        } else if response.dragged_by(egui::PointerButton::Primary) {
            let d = response.drag_delta();
            e.camera.orbit(-d.x * 0.01, d.y * 0.01);
        }
        if response.dragged_by(egui::PointerButton::Secondary)
            || response.dragged_by(egui::PointerButton::Middle)
        {
            let d = response.drag_delta();
            e.camera.pan(d.x / rect.height(), d.y / rect.height());
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                e.camera.zoom((-scroll * 0.002).exp());
            }
        }
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            let local = pos - rect.min;
            e.pick_joint([local.x, local.y], [rect.width(), rect.height()], 14.0);
        }
        match &mut self.gpu {
            Some(gpu) => {
                let ppp = ui.ctx().pixels_per_point();
                let (w, h) = (
                    (rect.width() * ppp).round().max(1.0) as u32,
                    (rect.height() * ppp).round().max(1.0) as u32,
                );
                let texture = gpu.paint(e, w.min(8192), h.min(8192));
                ui.painter().image(
                    texture,
                    rect,
                    egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                    Color32::WHITE,
                );
            }
            None => {
                ui.painter().text(
                    rect.center(),
                    egui::Align2::CENTER_CENTER,
                    "No GPU renderer",
                    egui::FontId::proportional(18.0),
                    Color32::GRAY,
                );
            }
        }
        let mut overlay = format!(
            "eval {:.0} µs  frame {:.1} ms",
            self.eval_micros,
            ui.input(|i| i.stable_dt) * 1000.0
        );
        if let Some(j) = e.selected {
            let s = &e.model.character.skeleton;
            let bone = e
                .model
                .character
                .humanoid
                .bone_of(j)
                .map(|b| format!(" ({})", b.name()))
                .unwrap_or_default();
            overlay = format!("{}{bone}   {overlay}", s.name(j));
        }
        ui.painter().text(
            rect.left_top() + egui::vec2(8.0, 6.0),
            egui::Align2::LEFT_TOP,
            overlay,
            egui::FontId::monospace(12.0),
            Color32::from_gray(220),
        );
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
        for p in dropped {
            self.editor.open(&p);
        }
        self.shortcuts(&ctx);
        let start = Instant::now();
        let dt = ctx.input(|i| i.stable_dt).min(0.1);
        self.editor.tick(dt);
        self.eval_micros = start.elapsed().as_secs_f32() * 1e6;
        if let Some(soak) = &mut self.soak {
            if soak.frame(&mut self.editor) {
                self.soak = None;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint();
        }

        egui::Panel::top("menu").show(ui, |ui| self.menu(ui));
        egui::Panel::bottom("status").show(ui, |ui| {
            let s = &self.editor.status;
            let color = if s.is_error {
                Color32::from_rgb(240, 110, 100)
            } else {
                ui.visuals().text_color()
            };
            ui.label(RichText::new(&s.text).color(color));
        });
        egui::Panel::bottom("timeline")
            .resizable(false)
            .show(ui, |ui| self.timeline(ui));
        egui::Panel::left("scene")
            .resizable(true)
            .default_size(260.0)
            .show(ui, |ui| self.scene_panel(ui));
        egui::Panel::right("inspector")
            .resizable(true)
            .default_size(360.0)
            .show(ui, |ui| self.inspector(ui));
        egui::CentralPanel::default().show(ui, |ui| self.viewport(ui));
        self.export.ui(&ctx, &mut self.editor);

        self.frames += 1;
        self.screenshots(&ctx);
        if self.editor.eval.is_playing() {
            ctx.request_repaint();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.editor.persisted());
    }
}
