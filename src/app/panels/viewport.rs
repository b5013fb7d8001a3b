//! The 3D viewport panel: the rendered character with its overlays, camera orbit / pan / zoom, joint picking
//! and dragging the look-at target.

use egui::Color32;

use crate::app::command::{CameraMove, Command, Commands};
use crate::app::editor::EditorState;
use crate::app::gpu::ViewportGpu;

/// How near (points) the pointer must be to a joint or the look-at target to pick it.
const PICK_RADIUS: f32 = 14.0;
/// Largest render target side, in pixels.
const MAX_TARGET_SIDE: u32 = 8192;

/// The viewport's UI state.
pub struct ViewportPanel {
    gpu: Option<ViewportGpu>,
    /// A drag of the look-at target is in progress.
    dragging_target: bool,
}

impl ViewportPanel {
    /// A viewport drawing with `gpu` (None: no renderer, a message instead).
    pub fn new(gpu: Option<ViewportGpu>) -> Self {
        ViewportPanel {
            gpu,
            dragging_target: false,
        }
    }

    /// Draws the viewport; `eval_micros` is shown in the corner.
    pub fn ui(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands, eval_micros: f32) {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        let camera = &e.session().camera;
        let aspect = rect.width() / rect.height().max(1.0);
        let view_proj = camera.view_proj(aspect);
        let to_screen = |p: glam::Vec3| {
            let c = view_proj.project_point3(p);
            rect.min
                + egui::vec2(
                    (c.x * 0.5 + 0.5) * rect.width(),
                    (0.5 - c.y * 0.5) * rect.height(),
                )
        };
        // The look-at target's cross can be dragged in the plane facing the camera.
        let look = &e.tuning().layers.look_at;
        if response.drag_started_by(egui::PointerButton::Primary)
            && look.enabled
            && !look.follow_camera
            && let Some(press) = ui.input(|i| i.pointer.press_origin())
            && to_screen(e.look_target()).distance(press) < PICK_RADIUS
        {
            self.dragging_target = true;
        }
        if self.dragging_target {
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
                let normal = (target - camera.eye()).normalize_or_zero();
                let denom = dir.dot(normal);
                if denom.abs() > 1e-6 {
                    let hit = near + dir * ((target - near).dot(normal) / denom);
                    out.push(Command::SetLookTarget(hit));
                }
            }
            if response.drag_stopped() || !ui.input(|i| i.pointer.primary_down()) {
                self.dragging_target = false;
            }
        } else if response.dragged_by(egui::PointerButton::Primary) {
            let d = response.drag_delta();
            out.push(Command::Camera(CameraMove::Orbit(-d.x * 0.01, d.y * 0.01)));
        }
        if response.dragged_by(egui::PointerButton::Secondary)
            || response.dragged_by(egui::PointerButton::Middle)
        {
            let d = response.drag_delta();
            let h = rect.height();
            out.push(Command::Camera(CameraMove::Pan(d.x / h, d.y / h)));
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                out.push(Command::Camera(CameraMove::Zoom((-scroll * 0.002).exp())));
            }
        }
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            let local = pos - rect.min;
            out.push(Command::PickJoint {
                cursor: [local.x, local.y],
                size: [rect.width(), rect.height()],
                radius: PICK_RADIUS,
            });
        }
        self.paint(ui, rect, e);
        let mut overlay = format!(
            "eval {eval_micros:.0} µs  frame {:.1} ms",
            ui.input(|i| i.stable_dt) * 1000.0
        );
        if let Some(j) = e.session().selected {
            let c = &e.doc().model.character;
            let bone = c
                .humanoid
                .bone_of(j)
                .map(|b| format!(" ({})", b.name()))
                .unwrap_or_default();
            overlay = format!("{}{bone}   {overlay}", c.skeleton.name(j));
        }
        ui.painter().text(
            rect.left_top() + egui::vec2(8.0, 6.0),
            egui::Align2::LEFT_TOP,
            overlay,
            egui::FontId::monospace(12.0),
            Color32::from_gray(220),
        );
    }

    fn paint(&mut self, ui: &egui::Ui, rect: egui::Rect, e: &EditorState) {
        let Some(gpu) = &mut self.gpu else {
            ui.painter().text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "No GPU renderer",
                egui::FontId::proportional(18.0),
                Color32::GRAY,
            );
            return;
        };
        let ppp = ui.ctx().pixels_per_point();
        let side = |points: f32| ((points * ppp).round().max(1.0) as u32).min(MAX_TARGET_SIDE);
        let texture = gpu.paint(e, side(rect.width()), side(rect.height()));
        ui.painter().image(
            texture,
            rect,
            egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
            Color32::WHITE,
        );
    }
}
