//! The 3D viewport panel: the rendered character with its overlays, camera orbit / pan / zoom, the orientation
//! gizmo, joint picking and hovering, and dragging or placing the look-at target.

use egui::{Color32, Pos2, Rect, Vec2};
use glam::Vec3;

use crate::app::command::{CameraMove, Command, Commands};
use crate::app::editor::EditorState;
use crate::app::gpu::{ViewportGpu, ViewportImage};
use crate::render::camera::ViewPreset;
use crate::render::pick;

/// The viewport's accessibility label (tests find its rectangle by it).
pub const VIEWPORT_LABEL: &str = "Viewport";
/// What the viewport does with the pointer (its accessible description).
pub const VIEWPORT_HELP: &str = "Drag to orbit, right or middle drag to pan, wheel to zoom; click a joint or the \
     surface to select; drag the green cross to move the look-at target (Shift: in depth, Alt+click: place it); \
     Ctrl+drag moves the character about (its springs follow)";
/// How near (points) the pointer must be to a joint or the look-at target to pick it.
const PICK_RADIUS: f32 = 14.0;
/// Largest render target side, in pixels.
const MAX_TARGET_SIDE: u32 = 8192;
/// Radius of the orientation gizmo, points, in a viewport large enough for it.
const GIZMO_RADIUS: f32 = 34.0;
/// A viewport narrower or lower than this (points) gets the compact corner text: frame rate only, at the bottom.
pub const COMPACT_HUD_BELOW: [f32; 2] = [420.0, 300.0];

/// The gizmo's radius in a viewport of `size` points: at most [`GIZMO_RADIUS`], and small enough to leave the
/// character room in a small viewport.
pub fn gizmo_radius(size: Vec2) -> f32 {
    GIZMO_RADIUS.min(0.12 * size.x.min(size.y)).max(14.0)
}
/// The farthest in front of the head (metres, toward the camera) a drag keeps the look-at target: nearer the
/// camera, the view's edge would be reached before the head turns far.
const LOOK_DRAG_MAX_DEPTH: f32 = 0.5;

/// The viewport's UI state.
pub struct ViewportPanel {
    gpu: Option<ViewportGpu>,
    /// A drag of the look-at target is in progress, at this depth in front of the head (toward the camera).
    dragging_target: Option<f32>,
    /// The joint under the pointer, and where the pointer was when it was found.
    hovered: Option<(Pos2, Option<usize>)>,
}

/// Where a model-space point lands in the viewport (None behind the camera).
fn to_screen(view_proj: glam::Mat4, rect: Rect, p: Vec3) -> Option<Pos2> {
    let c = view_proj * p.extend(1.0);
    if c.w <= 1e-6 {
        return None;
    }
    let n = c.truncate() / c.w;
    Some(
        rect.min
            + Vec2::new(
                (n.x * 0.5 + 0.5) * rect.width(),
                (0.5 - n.y * 0.5) * rect.height(),
            ),
    )
}

impl ViewportPanel {
    /// Says the window's pass has a depth buffer of `format`: the viewport draws into it where
    /// [`crate::app::gpu::draws_into_window_pass`] says (before the first paint).
    pub fn set_window_depth(&mut self, format: wgpu::TextureFormat) {
        if let Some(g) = &mut self.gpu {
            g.set_window_depth(format);
        }
    }

    /// A viewport drawing with `gpu` (None: no renderer, a message instead).
    pub fn new(gpu: Option<ViewportGpu>) -> Self {
        ViewportPanel {
            gpu,
            dragging_target: None,
            hovered: None,
        }
    }

    /// Draws the viewport; `eval_micros` is shown in the corner.
    pub fn ui(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands, eval_micros: f32) {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
        response.widget_info(|| {
            egui::WidgetInfo::labeled(egui::accesskit::Role::Canvas, true, VIEWPORT_LABEL)
        });
        // Described for assistive tools and tests rather than by a tooltip, which would cover the character
        // whenever the pointer rests; the same help is in the Help menu.
        ui.ctx().accesskit_node_builder(response.id, |node| {
            node.set_description(VIEWPORT_HELP);
        });
        let camera = &e.session().camera;
        let aspect = rect.width() / rect.height().max(1.0);
        if (aspect - e.session().viewport_aspect).abs() > 1e-3 {
            out.push(Command::Camera(CameraMove::SetAspect(aspect)));
        }
        let view_proj = camera.view_proj(aspect);
        let size = [rect.width(), rect.height()];
        let local = |p: Pos2| [p.x - rect.left(), p.y - rect.top()];
        let radius = gizmo_radius(rect.size());
        let margin = (radius * 0.35).max(6.0);
        let gizmo_center = Pos2::new(rect.right() - radius - margin, rect.top() + radius + margin);
        let in_gizmo = |p: Pos2| p.distance(gizmo_center) < radius + 8.0;
        // The look-at target: dragged on a plane facing the camera a little in front of the head; Shift+drag
        // moves it toward or away from the camera; Alt+click places it under the pointer.
        let look = &e.tuning().layers.look_at;
        let look_editable = look.enabled && !look.follow_camera;
        let target = e.look_target();
        let head = e.look_head();
        let toward_camera = (camera.eye() - head).normalize_or(Vec3::Z);
        let place_at = |cursor: Pos2, depth: f32| -> Option<Vec3> {
            let ray = pick::ray_through(view_proj, local(cursor), size)?;
            let point = head + toward_camera * depth;
            let denom = ray.dir.dot(toward_camera);
            (denom.abs() > 1e-6)
                .then(|| ray.origin + ray.dir * ((point - ray.origin).dot(toward_camera) / denom))
        };
        let target_depth = ((target - head).dot(toward_camera)).clamp(0.0, LOOK_DRAG_MAX_DEPTH);
        if response.drag_started_by(egui::PointerButton::Primary)
            && look_editable
            && let Some(press) = ui.input(|i| i.pointer.press_origin())
            && to_screen(view_proj, rect, target).is_some_and(|t| t.distance(press) < PICK_RADIUS)
        {
            self.dragging_target = Some(target_depth);
        }
        if let Some(depth) = self.dragging_target {
            let shift = ui.input(|i| i.modifiers.shift);
            if shift {
                let dy = response.drag_delta().y;
                let depth =
                    (depth - dy * 0.005 * camera.distance).clamp(-5.0, camera.distance * 0.9);
                self.dragging_target = Some(depth);
                let moved = target + toward_camera * (depth - (target - head).dot(toward_camera));
                out.push(Command::SetLookTarget(moved));
            } else if let Some(pos) = response.interact_pointer_pos()
                && let Some(hit) = place_at(pos, depth)
            {
                out.push(Command::SetLookTarget(hit));
            }
            if response.drag_stopped() || !ui.input(|i| i.pointer.primary_down()) {
                self.dragging_target = None;
            }
        } else if response.dragged_by(egui::PointerButton::Primary)
            && ui.input(|i| i.modifiers.command)
        {
            // Ctrl+drag: the character slides on the ground under the pointer (the springs feel the motion).
            let ground = |cursor: Pos2| -> Option<Vec3> {
                let ray = pick::ray_through(view_proj, local(cursor), size)?;
                (ray.dir.y.abs() > 1e-4).then(|| ray.origin + ray.dir * (-ray.origin.y / ray.dir.y))
            };
            if let Some(pos) = response.interact_pointer_pos()
                && let (Some(now), Some(before)) =
                    (ground(pos), ground(pos - response.drag_delta()))
            {
                let by = Vec3::new(now.x - before.x, 0.0, now.z - before.z);
                if by.is_finite() && by.length() < 10.0 {
                    out.push(Command::MoveCharacter(by));
                }
            }
        } else if response.dragged_by(egui::PointerButton::Primary)
            && !ui.input(|i| i.pointer.press_origin()).is_some_and(in_gizmo)
        {
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
        // Hover: found again only when the pointer moved (a surface pick skins the meshes on the CPU).
        let hover_pos = response.hover_pos().filter(|p| !in_gizmo(*p));
        self.hovered = match (hover_pos, self.hovered) {
            (None, _) => None,
            (Some(p), Some((q, j))) if p.distance(q) < 1.0 => Some((q, j)),
            (Some(p), _) => Some((p, e.joint_at(local(p), size, PICK_RADIUS))),
        };
        let hovered = self.hovered.and_then(|(_, j)| j);
        self.paint(ui, rect, e, hovered, out);
        if e.session().show_springs {
            Self::springs_overlay(ui, rect, view_proj, e);
        }
        Self::feet_overlay(ui, rect, view_proj, e);
        Self::compare_labels(ui, rect, view_proj, e);
        let gizmo_pick = self.gizmo(ui, gizmo_center, radius, view_proj);
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            if let Some(view) = gizmo_pick.filter(|_| in_gizmo(pos)) {
                out.push(Command::Camera(CameraMove::View(view)));
            } else if ui.input(|i| i.modifiers.alt) && look_editable {
                if let Some(hit) = place_at(pos, target_depth) {
                    out.push(Command::SetLookTarget(hit));
                }
            } else {
                out.push(Command::PickJoint {
                    cursor: local(pos),
                    size,
                    radius: PICK_RADIUS,
                });
            }
        }
        if look_editable && to_screen(view_proj, rect, target).is_none_or(|p| !rect.contains(p)) {
            Self::offscreen_arrow(ui, rect, view_proj, target);
        }
        self.hud(ui, rect, e, hovered, eval_micros);
    }

    /// With a comparison, each character's label over its head: what it plays its transitions as.
    fn compare_labels(ui: &egui::Ui, rect: Rect, view_proj: glam::Mat4, e: &EditorState) {
        let (Some(labels), Some(second)) = (e.compare_labels(), e.compare_matrices()) else {
            return;
        };
        let character = &e.doc().model.character;
        let painter = ui.painter_at(rect);
        for (k, (text, matrices)) in labels.iter().zip([e.matrices(), second]).enumerate() {
            let (min, max) = crate::render::camera::posed_bounds(character, matrices);
            let head = Vec3::new(0.5 * (min.x + max.x), max.y, 0.5 * (min.z + max.z));
            let Some(at) = to_screen(view_proj, rect, head) else {
                continue;
            };
            let galley = painter.layout_no_wrap(
                text.clone(),
                egui::FontId::proportional(13.0),
                Color32::from_gray(235),
            );
            let mut label = Rect::from_center_size(
                at - egui::vec2(0.0, 10.0 + galley.size().y / 2.0),
                galley.size() + egui::vec2(8.0, 4.0),
            );
            // Kept inside the view: a character near its edge keeps its whole label.
            let shift = (rect.left() + 4.0 - label.left()).max(0.0)
                + (rect.right() - 4.0 - label.right()).min(0.0);
            label = label.translate(egui::vec2(shift, 0.0));
            painter.rect_filled(label, 3.0, Color32::from_black_alpha(150));
            painter.galley(
                label.min + egui::vec2(4.0, 2.0),
                galley,
                Color32::from_gray(235),
            );
            let id = ui.scope_id().with(("compare label", k));
            ui.interact(label, id, egui::Sense::hover())
                .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, text));
        }
    }

    /// The spring joints (a line to each tail, the tail's hit sphere) in yellow and the colliders (spheres and
    /// capsules as outlines, planes as a cross) in magenta, as three-vrm's helpers draw them.
    fn springs_overlay(ui: &egui::Ui, rect: Rect, view_proj: glam::Mat4, e: &EditorState) {
        let rig = &e.layer_rig().springs;
        let character = &e.doc().model.character;
        let model = e.matrices();
        let eye = e.session().camera.eye();
        let painter = ui.painter_at(rect);
        // A world-space radius at `c` in screen points: the projected offset along the view's horizontal.
        let screen_radius = |c: Vec3, r: f32| -> Option<(Pos2, f32)> {
            let side = (c - eye).cross(Vec3::Y).normalize_or(Vec3::X);
            let p = to_screen(view_proj, rect, c)?;
            let q = to_screen(view_proj, rect, c + side * r)?;
            Some((p, p.distance(q)))
        };
        let magenta = egui::Stroke::new(1.2, Color32::from_rgb(255, 0, 255));
        for (_, shape) in crate::layers::SpringRig::placed_colliders(character, model) {
            match shape {
                crate::core::spring::ColliderShape::Sphere { offset, radius, .. } => {
                    if let Some((p, r)) = screen_radius(offset, radius) {
                        painter.circle_stroke(p, r, magenta);
                    }
                }
                crate::core::spring::ColliderShape::Capsule {
                    offset,
                    tail,
                    radius,
                    ..
                } => {
                    if let (Some((a, ra)), Some((b, rb))) =
                        (screen_radius(offset, radius), screen_radius(tail, radius))
                    {
                        painter.circle_stroke(a, ra, magenta);
                        painter.circle_stroke(b, rb, magenta);
                        let n = (b - a).normalized().rot90();
                        painter.line_segment([a + n * ra, b + n * rb], magenta);
                        painter.line_segment([a - n * ra, b - n * rb], magenta);
                    }
                }
                crate::core::spring::ColliderShape::Plane { offset, normal } => {
                    if let (Some(p), Some(q)) = (
                        to_screen(view_proj, rect, offset),
                        to_screen(view_proj, rect, offset + normal * 0.1),
                    ) {
                        painter.line_segment([p, q], magenta);
                        painter.circle_stroke(p, 4.0, magenta);
                    }
                }
            }
        }
        let yellow = egui::Stroke::new(1.5, Color32::from_rgb(255, 230, 0));
        for (joint, tail, hit) in rig.tails(model) {
            let Some(from) = model.get(joint).map(|m| m.w_axis.truncate()) else {
                continue;
            };
            if let (Some(a), Some((b, r))) =
                (to_screen(view_proj, rect, from), screen_radius(tail, hit))
            {
                painter.line_segment([a, b], yellow);
                painter.circle_stroke(b, r.max(2.0), yellow);
            }
        }
    }

    /// Planted feet: a green disc on each contact point the skate meter finds in contact at the time shown, and,
    /// with foot lock on, a cyan ring where each locked foot is held.
    fn feet_overlay(ui: &egui::Ui, rect: Rect, view_proj: glam::Mat4, e: &EditorState) {
        let painter = ui.painter_at(rect);
        let model = e.matrices();
        let skeleton = &e.doc().model.character.skeleton;
        if let Some((Ok(report), _)) = e.feet().report() {
            let time = e.eval().time();
            for (i, foot) in report.feet.iter().enumerate() {
                let Some(joint) = skeleton.find_by_name(&foot.joint) else {
                    continue;
                };
                if !e.feet().in_contact(i, time) {
                    continue;
                }
                if let Some(p) = model
                    .get(joint)
                    .and_then(|m| to_screen(view_proj, rect, m.w_axis.truncate()))
                {
                    painter.circle_filled(p, 5.0, Color32::from_rgb(90, 210, 120));
                }
            }
        }
        if e.tuning().layers.foot_lock.enabled {
            let cyan = egui::Stroke::new(2.0, Color32::from_rgb(80, 220, 240));
            let placement = e.session().placement();
            for foot in &e.eval().layer_stage().foot_lock().feet {
                if let Some(p) = foot
                    .model_lock
                    .filter(|_| foot.weight > 0.0)
                    .and_then(|l| to_screen(view_proj, rect, placement.transform_point3(l)))
                {
                    painter.circle_stroke(p, 4.0 + 5.0 * foot.weight, cyan);
                }
            }
        }
    }

    /// The corner text (selection, hover, timings) on a dark plate, so that nothing drawn in 3D hides it.
    fn hud(
        &self,
        ui: &egui::Ui,
        rect: Rect,
        e: &EditorState,
        hovered: Option<usize>,
        eval_micros: f32,
    ) {
        let c = &e.doc().model.character;
        let describe = |j: usize| {
            let bone = c
                .humanoid
                .bone_of(j)
                .map(|b| format!(" ({})", b.name()))
                .unwrap_or_default();
            format!("{}{bone}", c.skeleton.name(j))
        };
        let frame_s = ui.input(|i| i.stable_dt);
        let compact = rect.width() < COMPACT_HUD_BELOW[0] || rect.height() < COMPACT_HUD_BELOW[1];
        if compact {
            // A small viewport keeps the character in sight: the frame rate alone, in the bottom-left corner.
            let mut text = format!("{:.0} fps", 1.0 / frame_s.max(1e-3));
            if e.eval().clock().is_playing() && playback_note(frame_s).is_some() {
                text.push_str(", frames skipped");
            }
            let painter = ui.painter();
            let galley = painter.layout_no_wrap(
                text,
                egui::FontId::monospace(11.0),
                Color32::from_gray(225),
            );
            let at = rect.left_bottom() + Vec2::new(6.0, -6.0 - galley.size().y);
            painter.rect_filled(
                Rect::from_min_size(at - Vec2::splat(3.0), galley.size() + Vec2::splat(6.0)),
                3.0,
                Color32::from_black_alpha(170),
            );
            painter.galley(at, galley, Color32::from_gray(225));
            return;
        }
        let mut lines = vec![format!(
            "eval {eval_micros:.0} µs  frame {:.1} ms",
            frame_s * 1000.0
        )];
        if e.eval().clock().is_playing()
            && let Some(note) = playback_note(frame_s)
        {
            lines.push(note);
        }
        if let Some(j) = e.session().selected {
            lines.insert(0, format!("selected: {}", describe(j)));
        }
        if let Some(j) = hovered.filter(|&j| Some(j) != e.session().selected) {
            lines.push(format!("under pointer: {}", describe(j)));
        }
        let painter = ui.painter();
        let galley = painter.layout_no_wrap(
            lines.join("\n"),
            egui::FontId::monospace(12.0),
            Color32::from_gray(225),
        );
        let at = rect.left_top() + Vec2::new(8.0, 6.0);
        painter.rect_filled(
            Rect::from_min_size(at - Vec2::splat(4.0), galley.size() + Vec2::splat(8.0)),
            4.0,
            Color32::from_black_alpha(170),
        );
        painter.galley(at, galley, Color32::from_gray(225));
    }

    /// An arrow at the viewport's edge pointing toward a look-at target that is off screen (or behind).
    fn offscreen_arrow(ui: &egui::Ui, rect: Rect, view_proj: glam::Mat4, target: Vec3) {
        let c = view_proj * target.extend(1.0);
        let mut d = Vec2::new(c.x, -c.y);
        if c.w < 0.0 {
            d = -d;
        }
        if d.length() < 1e-6 {
            return;
        }
        let d = d.normalized();
        let half = rect.size() * 0.5 - Vec2::splat(24.0);
        let scale = (half.x / d.x.abs().max(1e-6)).min(half.y / d.y.abs().max(1e-6));
        let tip = rect.center() + d * scale;
        let green = Color32::from_rgb(80, 255, 110);
        ui.painter()
            .arrow(tip - d * 22.0, d * 22.0, egui::Stroke::new(2.5, green));
        ui.painter().text(
            tip - d * 30.0,
            egui::Align2::CENTER_CENTER,
            "look target",
            egui::TextStyle::Body.resolve(ui.style()),
            green,
        );
    }

    /// Draws the orientation gizmo (the world axes as the camera sees them) and returns the view of the axis
    /// end under the pointer, if any: a click there turns to that view.
    fn gizmo(
        &self,
        ui: &egui::Ui,
        center: Pos2,
        radius: f32,
        view_proj: glam::Mat4,
    ) -> Option<ViewPreset> {
        let painter = ui.painter();
        painter.circle_filled(center, radius + 6.0, Color32::from_black_alpha(90));
        let rotation = glam::Mat3::from_mat4(view_proj);
        let axes = [
            (
                Vec3::X,
                "X",
                Color32::from_rgb(230, 80, 80),
                ViewPreset::Right,
                ViewPreset::Left,
            ),
            (
                Vec3::Y,
                "Y",
                Color32::from_rgb(110, 210, 90),
                ViewPreset::Top,
                ViewPreset::Bottom,
            ),
            (
                Vec3::Z,
                "Z",
                Color32::from_rgb(90, 140, 240),
                ViewPreset::Front,
                ViewPreset::Back,
            ),
        ];
        let pointer = ui.input(|i| i.pointer.hover_pos());
        let mut ends: Vec<(f32, Pos2, Color32, &str, ViewPreset, bool)> = Vec::new();
        for (axis, name, color, plus, minus) in axes {
            let v = rotation * axis;
            let dir = Vec2::new(v.x, -v.y);
            let dir = if dir.length() > 1e-4 {
                dir.normalized() * dir.length().min(1.0)
            } else {
                dir
            };
            ends.push((v.z, center + dir * radius, color, name, plus, true));
            ends.push((-v.z, center - dir * radius, color, name, minus, false));
        }
        // Far ends first, so near ones are drawn over them.
        ends.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut under = None;
        for &(_, at, color, name, view, positive) in &ends {
            if positive {
                painter.line_segment([center, at], egui::Stroke::new(2.0, color));
                painter.circle_filled(at, 8.0, color);
                painter.text(
                    at,
                    egui::Align2::CENTER_CENTER,
                    name,
                    egui::FontId::proportional(10.0),
                    Color32::BLACK,
                );
            } else {
                painter.circle_stroke(at, 6.0, egui::Stroke::new(1.5, color));
            }
            if pointer.is_some_and(|p| p.distance(at) < 9.0) {
                under = Some(view);
            }
        }
        under
    }

    fn paint(
        &mut self,
        ui: &egui::Ui,
        rect: Rect,
        e: &EditorState,
        hovered: Option<usize>,
        out: &mut Commands,
    ) {
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
        let pixels = [side(rect.width()), side(rect.height())];
        match gpu.paint(e, rect, pixels, hovered, out) {
            Ok(ViewportImage::Texture(texture)) => {
                ui.painter().image(
                    texture,
                    rect,
                    Rect::from_min_max(Pos2::new(0.0, 0.0), Pos2::new(1.0, 1.0)),
                    Color32::WHITE,
                );
            }
            Ok(ViewportImage::WindowPass(callback)) => {
                ui.painter().add(callback);
            }
            Err(why) => {
                ui.painter().text(
                    rect.center(),
                    egui::Align2::CENTER_CENTER,
                    why,
                    egui::FontId::proportional(14.0),
                    Color32::LIGHT_RED,
                );
            }
        }
    }
}

/// What the viewport's corner says about playback when frames are slow: below 15 frames a second playback keeps
/// real time by skipping frames; a frame longer than the longest step leaves it behind real time.
pub fn playback_note(frame_s: f32) -> Option<String> {
    use crate::app::editor::MAX_FRAME_STEP_S;
    if frame_s > MAX_FRAME_STEP_S {
        Some(format!(
            "playback behind real time: a frame took {:.0} ms",
            frame_s * 1000.0
        ))
    } else if frame_s > 1.0 / 15.0 {
        Some(format!(
            "real time at {:.0} fps: frames are skipped",
            1.0 / frame_s
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::playback_note;

    #[test]
    fn slow_frames_are_said_to_skip_and_stalls_to_fall_behind() {
        assert_eq!(playback_note(1.0 / 60.0), None);
        assert_eq!(
            playback_note(0.5).as_deref(),
            Some("real time at 2 fps: frames are skipped")
        );
        assert_eq!(
            playback_note(1.5).as_deref(),
            Some("playback behind real time: a frame took 1500 ms")
        );
    }
}
