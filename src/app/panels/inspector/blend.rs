//! The blend space panel: mode and axes, a canvas with the influence map, draggable nodes and sample point,
//! the node list with numeric coordinates, and bars of the current weights. It changes the blend space only by
//! sending [`Command::EditBlend`] and [`Command::SetBlendPoint`].

use egui::{Color32, Pos2, Rect, Sense, Stroke, TextureHandle, TextureOptions, Vec2};
use glam::DVec2;

use crate::app::command::{Analysis, BlendEdit, Command, Commands};
use crate::app::editor::EditorState;
use crate::blend::heatmap::{self, HeatmapView};
use crate::blend::{BlendMode, BlendNode, BlendSpace, RootMotion, TimeSync};

/// Accessible label of the canvas (tests find it by this).
pub const CANVAS_LABEL: &str = "Blend space canvas";
/// The canvas widget's id (the window checks it: arrows move the sample point while it has focus).
pub fn canvas_id() -> egui::Id {
    egui::Id::unique("animtune_blend_canvas")
}

/// Pixels per side of the live influence map.
pub const HEATMAP_SIZE: usize = 128;

/// The canvas's background, around (or, with no map, under) the influence map.
const CANVAS_FILL: Color32 = Color32::from_gray(18);

/// The parts of `outer` outside `inner` (which lies within it), as up to four rectangles.
fn ring(outer: Rect, inner: Rect) -> impl Iterator<Item = Rect> {
    let inner = inner.intersect(outer);
    [
        Rect::from_min_max(outer.min, egui::pos2(outer.max.x, inner.min.y)),
        Rect::from_min_max(egui::pos2(outer.min.x, inner.max.y), outer.max),
        Rect::from_min_max(
            egui::pos2(outer.min.x, inner.min.y),
            egui::pos2(inner.min.x, inner.max.y),
        ),
        Rect::from_min_max(
            egui::pos2(inner.max.x, inner.min.y),
            egui::pos2(outer.max.x, inner.max.y),
        ),
    ]
    .into_iter()
    .filter(|r| r.is_positive())
}
/// Node hit radius on the canvas, in points.
const NODE_RADIUS: f32 = 7.0;

/// What the canvas paints under the nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeatmapChoice {
    /// The selected node's weight.
    Selected,
    /// Every node in its colour.
    All,
    /// The skate map: the planted-foot slide of the blend at every point (measured in the background).
    Skate,
    /// No map.
    Off,
}

/// The planted slide the skate map paints brightest (cm/s): the skate meter's threshold.
const SKATE_MAP_FULL_CM_S: f32 = 50.0;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Drag {
    Point,
    Node(usize),
}

/// UI state of the panel (what is selected, the cached map texture).
pub struct BlendPanel {
    /// The node the selected-node map and the list highlight.
    pub selected: Option<usize>,
    /// What the canvas paints.
    pub heatmap: HeatmapChoice,
    /// Snap dragged nodes to a grid.
    pub snap: bool,
    /// Grid step for snapping, in axis units.
    pub snap_step: f64,
    drag: Option<Drag>,
    add_clip: usize,
    texture: Option<TextureHandle>,
    texture_key: Option<String>,
    pixels: Vec<u8>,
    /// The canvas's id and accessible label (the Blend tab's, or the skate map pane's).
    canvas: (egui::Id, &'static str),
    /// Drawn this frame (the window clears it before the frame): the skate map is measured only while a canvas
    /// paints it.
    pub shown: bool,
    /// The canvas fills the space it is given (the skate map pane) instead of following the tab's width.
    fill: bool,
    /// How many times the map was recomputed (tests watch it follow edits).
    pub heatmap_updates: u64,
}

impl Default for BlendPanel {
    fn default() -> Self {
        BlendPanel {
            selected: Some(1),
            heatmap: HeatmapChoice::Selected,
            snap: false,
            snap_step: 0.1,
            drag: None,
            add_clip: 0,
            texture: None,
            texture_key: None,
            pixels: Vec::new(),
            heatmap_updates: 0,
            canvas: (canvas_id(), CANVAS_LABEL),
            shown: false,
            fill: false,
        }
    }
}

/// The skate map pane's canvas id.
pub fn skate_map_canvas_id() -> egui::Id {
    egui::Id::unique("animtune_skate_map_canvas")
}

/// The skate map pane's canvas label.
pub const SKATE_MAP_CANVAS_LABEL: &str = "Skate map canvas";

impl BlendPanel {
    /// The skate map's own pane: the blend space's canvas painted with the skate map, filling the pane.
    pub fn for_skate_map() -> Self {
        BlendPanel {
            heatmap: HeatmapChoice::Skate,
            canvas: (skate_map_canvas_id(), SKATE_MAP_CANVAS_LABEL),
            fill: true,
            ..BlendPanel::default()
        }
    }

    /// Draws the skate map pane's canvas, filling the pane (below its header row, so it never moves as the map
    /// is measured).
    pub fn skate_map_pane(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        self.canvas(ui, e, out);
        self.shown = true;
    }

    /// Whether its canvas painted the skate map this frame.
    pub fn paints_skate_map(&self) -> bool {
        self.shown && self.heatmap == HeatmapChoice::Skate
    }
}

/// Where the space's range is drawn inside the canvas widget's rectangle: inset by a node's size, so nodes at
/// the ends of the axes are whole.
pub fn space_rect(canvas: Rect) -> Rect {
    canvas.shrink(1.0 + NODE_RADIUS * 1.2 + 2.0)
}

/// The rectangle of the space shown on the canvas: the axes' ranges (y is a unit band in 1D).
pub fn shown_range(space: &BlendSpace) -> (DVec2, DVec2) {
    let [ax, ay] = &space.axes;
    if space.mode.is_2d() {
        (DVec2::new(ax.min, ay.min), DVec2::new(ax.max, ay.max))
    } else {
        (DVec2::new(ax.min, -1.0), DVec2::new(ax.max, 1.0))
    }
}

/// Where a point of the space is drawn in a canvas rectangle.
pub fn space_to_screen(space: &BlendSpace, rect: Rect, p: [f64; 2]) -> Pos2 {
    let (min, max) = shown_range(space);
    let y = if space.mode.is_2d() { p[1] } else { 0.0 };
    let fx = ((p[0] - min.x) / (max.x - min.x)) as f32;
    let fy = ((y - min.y) / (max.y - min.y)) as f32;
    egui::pos2(
        rect.left() + fx * rect.width(),
        rect.bottom() - fy * rect.height(),
    )
}

/// The point of the space under a canvas position.
pub fn screen_to_space(space: &BlendSpace, rect: Rect, pos: Pos2) -> [f64; 2] {
    let (min, max) = shown_range(space);
    let fx = f64::from((pos.x - rect.left()) / rect.width());
    let fy = f64::from((rect.bottom() - pos.y) / rect.height());
    let y = if space.mode.is_2d() {
        min.y + fy * (max.y - min.y)
    } else {
        0.0
    };
    [min.x + fx * (max.x - min.x), y]
}

/// Smallest canvas side, points.
const MIN_CANVAS: f32 = 120.0;

/// Smallest canvas height where the inspector's view is shorter than [`MIN_CANVAS`], points.
const MIN_SHORT_CANVAS: f32 = 50.0;

/// What each weighting mode does, for its tooltip.
fn mode_help(mode: BlendMode) -> &'static str {
    match mode {
        BlendMode::OneD => {
            "One parameter: the two nodes around the point share the weight linearly"
        }
        BlendMode::SimpleDirectional => {
            "Directions only, one node per direction (plus one at the centre): the two directions around the \
             point blend"
        }
        BlendMode::FreeformCartesian => {
            "Gradient band interpolation over x and y as plain coordinates (e.g. speed and turn rate)"
        }
        BlendMode::FreeformDirectional => {
            "Gradient band interpolation in polar space: nodes in several directions and at several speeds \
             (velocity)"
        }
    }
}

/// One node's weight: a swatch and a bar exactly as long as the weight (0 draws no fill), with the clip and
/// the value.
fn weight_bar(ui: &mut egui::Ui, node: usize, rgb: [u8; 3], clip: &str, weight: f64) {
    let height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
    let width = ui.available_width().min(260.0);
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, height), Sense::hover());
    let painter = ui.painter_at(rect);
    let color = color32(rgb);
    painter.rect_filled(rect, 2.0, Color32::from_gray(40));
    let w = weight.clamp(0.0, 1.0) as f32;
    if w > 0.0 {
        let fill = Rect::from_min_size(rect.min, Vec2::new(rect.width() * w, rect.height()));
        painter.rect_filled(fill, 2.0, color.gamma_multiply(0.7));
    }
    let swatch = Rect::from_min_size(rect.min + Vec2::new(3.0, 3.0), Vec2::splat(height - 6.0));
    painter.rect_filled(swatch, 2.0, color);
    let font = egui::TextStyle::Body.resolve(ui.style());
    painter.text(
        swatch.right_center() + Vec2::new(4.0, 0.0),
        egui::Align2::LEFT_CENTER,
        format!("{clip}  {weight:.3}"),
        font,
        Color32::WHITE,
    );
    response.on_hover_text(format!(
        "Weight of node {node} ({clip}) at the sample point"
    ));
}

/// The axes' titles and ends as the canvas draws them in `rect`: each laid out, with its top-left corner.
fn axis_title_galleys(
    painter: &egui::Painter,
    rect: Rect,
    space: &BlendSpace,
) -> Vec<(std::sync::Arc<egui::Galley>, Pos2)> {
    let (min, max) = shown_range(space);
    let font = egui::TextStyle::Body.resolve(&painter.ctx().global_style());
    let mut titles = vec![
        (
            format!("{}", min.x),
            egui::Align2::LEFT_BOTTOM,
            rect.left_bottom() + Vec2::new(3.0, -2.0),
        ),
        (
            format!("{}  {}", space.axes[0].name, max.x),
            egui::Align2::RIGHT_BOTTOM,
            rect.right_bottom() + Vec2::new(-3.0, -2.0),
        ),
    ];
    if space.mode.is_2d() {
        titles.push((
            format!("{}  {}", max.y, space.axes[1].name),
            egui::Align2::LEFT_TOP,
            rect.left_top() + Vec2::new(3.0, 2.0),
        ));
    }
    titles
        .into_iter()
        .map(|(text, align, at)| {
            let galley = painter.layout_no_wrap(text, font.clone(), Color32::WHITE);
            let corner = align.anchor_size(at, galley.size()).min;
            (galley, corner)
        })
        .collect()
}

/// Where the axes' titles lie (node labels keep clear of them).
fn axis_titles(painter: &egui::Painter, rect: Rect, space: &BlendSpace) -> Vec<Rect> {
    axis_title_galleys(painter, rect, space)
        .into_iter()
        .map(|(g, at)| Rect::from_min_size(at, g.size()))
        .collect()
}

/// Where each node's label goes: right or left of the node, above or below it, inside `frame`, the first of those
/// four places that overlaps neither a label placed before it nor one of `taken` (the axes' titles); None where
/// all four would.
fn label_rects(nodes: &[Pos2], sizes: &[Vec2], frame: Rect, taken: &[Rect]) -> Vec<Option<Rect>> {
    let mut placed: Vec<Rect> = taken.to_vec();
    nodes
        .iter()
        .zip(sizes)
        .map(|(&at, &size)| {
            let gap = NODE_RADIUS + 3.0;
            let xs = [at.x + gap, at.x - gap - size.x];
            let ys = [at.y - NODE_RADIUS - size.y, at.y + NODE_RADIUS];
            let spot = ys
                .iter()
                .flat_map(|&y| xs.iter().map(move |&x| egui::pos2(x, y)))
                .map(|p| {
                    let p = p.clamp(frame.min, (frame.max - size).max(frame.min));
                    Rect::from_min_size(p, size)
                })
                .find(|r| !placed.iter().any(|q| q.expand(1.0).intersects(*r)))?;
            placed.push(spot);
            Some(spot)
        })
        .collect()
}

/// Under the canvas while it paints the skate map: its progress, or what it shows, or why it cannot be measured;
/// always one row (truncated, whole on hover), so the rows below never move as it is measured.
pub fn skate_map_status(ui: &mut egui::Ui, e: &EditorState) {
    let size = egui::vec2(ui.available_width(), ui.spacing().interact_size.y);
    if let Some(done) = e.feet().map_progress() {
        ui.add_sized(
            size,
            egui::ProgressBar::new(done)
                .show_percentage()
                .text(format!("measuring the skate map… {:.0} %", 100.0 * done)),
        )
        .on_hover_text(
            "Each of the 13 x 13 points plays a whole cycle; editing the space starts it again",
        );
        return;
    }
    let (text, tip) = match e.feet().skate_map() {
        Some((Ok(map), _)) => {
            let (lo, hi) = map
                .planted_cm_s
                .iter()
                .fold((f32::INFINITY, 0.0f32), |(a, b), &v| (a.min(v), b.max(v)));
            let lock = if e.tuning().layers.foot_lock.enabled {
                ", foot lock on"
            } else {
                ""
            };
            // Short enough for the docked pane's row; the hover text says it whole.
            let text = format!(
                "planted slide {lo:.0}–{hi:.0} cm/s, bright {SKATE_MAP_FULL_CM_S:.0}+{lock}"
            );
            let tip = format!(
                "Skate map: planted slide {lo:.0} to {hi:.0} cm/s (dark still, bright {SKATE_MAP_FULL_CM_S:.0} cm/s \
                 or more){lock}. The skate meter's mean planted-foot slide over one cycle at each of 13 x 13 \
                 points of the space"
            );
            (egui::RichText::new(text), tip)
        }
        Some((Err(why), _)) => {
            let text = format!("skate map: {why}");
            (egui::RichText::new(&text).weak(), text)
        }
        None => (egui::RichText::new(""), String::new()),
    };
    let label = ui.add_sized(size, egui::Label::new(text).truncate());
    if !tip.is_empty() {
        label.on_hover_text(tip);
    }
}

fn color32(rgb: [u8; 3]) -> Color32 {
    Color32::from_rgb(rgb[0], rgb[1], rgb[2])
}

fn nice_step(range: f64) -> f64 {
    let raw = range / 8.0;
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(mag * 10.0)
}

impl BlendPanel {
    /// The RGBA bytes of the influence map last shown (empty before the first).
    pub fn heatmap_pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// Draws the panel.
    pub fn ui(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        self.header(ui, e, out);
        self.canvas(ui, e, out);
        if self.heatmap == HeatmapChoice::Skate {
            skate_map_status(ui, e);
        }
        self.weights(ui, e, out);
        ui.separator();
        self.settings(ui, e, out);
        ui.separator();
        self.nodes(ui, e, out);
        self.shown = true;
    }

    fn header(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        let blend = &e.tuning().blend;
        ui.horizontal_wrapped(|ui| {
            let play = ui.add_enabled(
                !blend.nodes.is_empty(),
                egui::Button::selectable(e.blending(), "Play blend"),
            );
            if play
                .on_hover_text("Play the blend space instead of one clip")
                .on_disabled_hover_text("The space has no nodes yet: add one below, or make a new space from the clips")
                .clicked()
                && !e.blending()
            {
                out.push(Command::PlayBlend);
            }
            let mut mode = blend.mode;
            egui::ComboBox::from_id_salt("blend_mode")
                .selected_text(mode.label())
                .show_ui(ui, |ui| {
                    for m in BlendMode::ALL {
                        ui.selectable_value(&mut mode, m, m.label())
                            .on_hover_text(mode_help(m));
                    }
                })
                .response
                .on_hover_text("How node weights are computed from the sample point");
            if mode != blend.mode {
                out.push(Command::EditBlend(BlendEdit::SetMode(mode)));
            }
            if ui
                .button("New space from clips")
                .on_hover_text(
                    "Replace this space with one laid out from the clips: one node per gait family named (idle, \
                     walk, jog, run, sprint; forward, back, left, right, strafe; crouch, formal… apart), the plain \
                     take of each, at each clip's measured root speed (in place: its feet's). Undo brings the old \
                     one back.",
                )
                .clicked()
            {
                self.selected = Some(0);
                out.push(Command::Analyze(Analysis::NewSpaceFromClips));
            }
        });
    }

    /// Unity's Compute Positions (below the canvas, beside timing and root motion): the nodes placed from their
    /// clips' root motion (one undo step), or the reason in the status bar.
    fn compute_positions(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        use crate::analysis::positions::ComputePositions;
        let blend = &e.tuning().blend;
        let menu = ui.menu_button("Compute positions", |ui| {
            for kind in ComputePositions::ALL {
                let fits = kind.is_2d() == blend.mode.is_2d() && blend.nodes.len() > 1;
                let clicked = ui
                    .add_enabled(fits, egui::Button::new(kind.name()))
                    .on_hover_text(
                        "Place every node from its clip's average root motion, as Unity's Compute Positions \
                         (right and forward in m/s, turn rate in rad/s); a clip authored in place by the speed its \
                         planted feet move back at. Undo puts them back.",
                    )
                    .on_disabled_hover_text(if kind.is_2d() {
                        "Places nodes on a plane: for a 2D space with two nodes or more"
                    } else {
                        "Places nodes on a line: for a 1D space with two nodes or more"
                    })
                    .clicked();
                if clicked {
                    out.push(Command::Analyze(Analysis::ComputePositions(kind)));
                    ui.close();
                }
            }
            ui.separator();
            Self::homogeneous_speed(ui, e, out);
        });
        menu.response.on_hover_text(
            "Place the nodes from their clips' root motion, or for clips authored in place their feet (Unity's \
             blend tree Compute Positions), or adjust their time scales (Homogeneous speed)",
        );
    }

    /// Unity's Adjust Time Scale → Homogeneous Speed: each moving node's time scale set so that its clip moves at
    /// its node's speed (one undo step; refused with the reason in the status bar).
    fn homogeneous_speed(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        let blend = &e.tuning().blend;
        let clicked = ui
            .add_enabled(
                !blend.nodes.is_empty(),
                egui::Button::new("Homogeneous speed (time scales)"),
            )
            .on_hover_text(
                "Adjust time scales (Unity's Homogeneous Speed, as animtune reads it): each node whose clip moves \
                 plays at the rate that makes it move at its node's speed (its distance from the origin on \
                 velocity or speed axes), so the feet keep pace with the parameter. Undo puts them back.",
            )
            .on_disabled_hover_text("The space has no nodes yet")
            .clicked();
        if clicked {
            out.push(Command::Analyze(Analysis::HomogeneousSpeed));
        }
    }

    /// Timing, root motion, the axes, the map and snapping (below the canvas, so that the canvas stays on
    /// screen in a small window).
    fn settings(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        if e.session().driving {
            let mut p = e.session().drive_params;
            ui.horizontal(|ui| {
                ui.label("Drive");
                ui.add(
                    egui::DragValue::new(&mut p.response_s)
                        .update_while_editing(false)
                        .range(0.02..=3.0)
                        .speed(0.01)
                        .suffix(" s"),
                )
                .on_hover_text("About how long the point takes to settle where the stick points");
                ui.add(
                    egui::DragValue::new(&mut p.max_acceleration)
                        .update_while_editing(false)
                        .range(0.1..=100.0)
                        .speed(0.1)
                        .suffix(" /s²"),
                )
                .on_hover_text("The point's largest acceleration, in axis units per second² (m/s² on velocity axes)");
                ui.label(format!(
                    "stick {:+.2}, {:+.2}",
                    e.session().stick[0],
                    e.session().stick[1]
                ))
                .on_hover_text("What the keys and the gamepad hold now: right, forward");
            });
            if p != e.session().drive_params {
                out.push(Command::SetDriveParams(p));
            }
        }
        let blend = &e.tuning().blend;
        // One row per setting: a row of two settings was cut at the panel's edge ("Root in p"), since egui
        // wraps single widgets, not a setting's label and choices as one piece.
        let mut sync = blend.sync;
        ui.horizontal(|ui| {
            ui.label("Time");
            ui.selectable_value(&mut sync, TimeSync::Normalized, "synced")
                .on_hover_text(
                    "Clips share a normalized time; the cycle is the weighted mean length (Unity's blend trees)",
                );
            ui.selectable_value(&mut sync, TimeSync::Independent, "independent")
                .on_hover_text("Each clip plays at its own speed and loops on its own");
            ui.selectable_value(&mut sync, TimeSync::Markers, "foot phase")
                .on_hover_text(
                    "Align the clips on their feet: the heaviest clip leads, and each other clip sits at the \
                     leader's fraction between its own matching foot-down markers (Unreal's sync markers), so \
                     a walk with a late left foot does not skate against one with an early one",
                );
        });
        if sync != blend.sync {
            out.push(Command::EditBlend(BlendEdit::SetSync(sync)));
        }
        let mut root = blend.root_motion;
        ui.horizontal(|ui| {
            ui.label("Root");
            ui.selectable_value(&mut root, RootMotion::InPlace, "in place").on_hover_text(
                "Each clip's average horizontal root travel is removed: the character stays put",
            );
            ui.selectable_value(&mut root, RootMotion::Keep, "keep")
                .on_hover_text("The hips travel as the clips move them");
            Self::compute_positions(ui, e, out);
        });
        if root != blend.root_motion {
            out.push(Command::EditBlend(BlendEdit::SetRootMotion(root)));
        }
        let axes = if blend.mode.is_2d() { 2 } else { 1 };
        for a in 0..axes {
            ui.horizontal(|ui| {
                let mut axis = blend.axes[a].clone();
                ui.label(if a == 0 { "X" } else { "Y" });
                let name = ui
                    .add(egui::TextEdit::singleline(&mut axis.name).desired_width(120.0))
                    .on_hover_text("The parameter this axis stands for (shown on the canvas)");
                let min = ui
                    .add(
                        egui::DragValue::new(&mut axis.min)
                            .update_while_editing(false)
                            .speed(0.05)
                            .prefix("min "),
                    )
                    .on_hover_text("Lower end of the range the canvas shows");
                let max = ui
                    .add(
                        egui::DragValue::new(&mut axis.max)
                            .update_while_editing(false)
                            .speed(0.05)
                            .prefix("max "),
                    )
                    .on_hover_text("Upper end of the range the canvas shows");
                if (name.changed() || min.changed() || max.changed())
                    && axis.min.is_finite()
                    && axis.max.is_finite()
                    && axis.max > axis.min
                {
                    out.push(Command::EditBlend(BlendEdit::SetAxis(a, axis)));
                }
            });
        }
        ui.horizontal(|ui| {
            ui.label("Map");
            ui.selectable_value(&mut self.heatmap, HeatmapChoice::Selected, "selected node")
                .on_hover_text(
                    "Paint the selected node's weight over the space (bright: weight 1)",
                );
            ui.selectable_value(&mut self.heatmap, HeatmapChoice::All, "all nodes")
                .on_hover_text("Paint every node's influence in its colour");
            ui.selectable_value(&mut self.heatmap, HeatmapChoice::Skate, "skate")
                .on_hover_text(
                    "Paint how fast planted feet slide where the point would play: dark still, bright 50 cm/s \
                     or more (measured in the background over a 13 x 13 grid, with foot lock when it is on)",
                );
            ui.selectable_value(&mut self.heatmap, HeatmapChoice::Off, "off")
                .on_hover_text("No influence map");
        });
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.snap, "Snap")
                .on_hover_text("Dragged nodes land on a grid of this step");
            ui.add_enabled(
                self.snap,
                egui::DragValue::new(&mut self.snap_step)
                    .update_while_editing(false)
                    .speed(0.01)
                    .range(0.01..=10.0),
            )
            .on_hover_text("Snap grid step, in axis units");
        });
    }

    fn update_texture(&mut self, ctx: &egui::Context, space: &BlendSpace, e: &EditorState) {
        if self.heatmap == HeatmapChoice::Skate {
            let Some((Ok(map), _)) = e.feet().skate_map() else {
                self.texture = None;
                self.texture_key = None;
                return;
            };
            let key = format!("skate {:?} {:?} {:?}", map.min, map.max, map.planted_cm_s);
            if self.texture_key.as_deref() != Some(key.as_str()) || self.texture.is_none() {
                self.pixels = map.to_rgba(HEATMAP_SIZE, SKATE_MAP_FULL_CM_S);
                self.set_texture(ctx, key);
            }
            return;
        }
        let view = match (self.heatmap, self.selected) {
            (HeatmapChoice::All, _) => HeatmapView::All,
            (HeatmapChoice::Selected, Some(n)) => HeatmapView::Node(n),
            _ => {
                self.texture = None;
                self.texture_key = None;
                return;
            }
        };
        let (min, max) = shown_range(space);
        let positions = space.positions();
        let colors = heatmap::node_colors(space);
        let key = format!("{:?}{positions:?}{min}{max}{view:?}{colors:?}", space.mode);
        if self.texture_key.as_deref() == Some(key.as_str()) && self.texture.is_some() {
            return;
        }
        let map = heatmap::compute(space.mode, &positions, min, max, HEATMAP_SIZE);
        self.pixels = heatmap::to_rgba(&map, view, &colors);
        self.set_texture(ctx, key);
    }

    /// Shows `self.pixels` as the canvas's map, remembered under `key`.
    fn set_texture(&mut self, ctx: &egui::Context, key: String) {
        let image =
            egui::ColorImage::from_rgba_unmultiplied([HEATMAP_SIZE, HEATMAP_SIZE], &self.pixels);
        match &mut self.texture {
            Some(t) => t.set(image, TextureOptions::LINEAR),
            None => {
                self.texture =
                    Some(ctx.load_texture("blend_heatmap", image, TextureOptions::LINEAR));
            }
        }
        self.texture_key = Some(key);
        self.heatmap_updates += 1;
    }

    fn snapped(&self, p: [f64; 2]) -> [f64; 2] {
        if self.snap && self.snap_step > 0.0 {
            p.map(|v| (v / self.snap_step).round() * self.snap_step)
        } else {
            p
        }
    }

    fn canvas(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        if self
            .selected
            .is_some_and(|s| s >= e.tuning().blend.nodes.len())
        {
            self.selected = None;
        }
        let blend = &e.tuning().blend;
        let (min, max) = shown_range(blend);
        // Equal scale on both axes where it fits, so directions on the canvas are true directions.
        let aspect = if blend.mode.is_2d() {
            (((max.y - min.y) / (max.x - min.x)) as f32).clamp(0.5, 1.6)
        } else {
            0.55
        };
        // As wide as the panel (at most 480 points), and no taller than what is left on screen, so the whole
        // canvas shows in a small window or at a large UI scale (there the axes' scales may differ), down to
        // MIN_CANVAS.
        // (Less the room of a horizontal scroll bar and a margin.)
        let margins = ui.spacing().scroll.bar_width + ui.spacing().scroll.bar_outer_margin + 12.0;
        let visible = ui.clip_rect().bottom() - ui.cursor().top() - margins;
        // In a panel shorter than MIN_CANVAS (a small window at a large UI scale) the canvas is as tall as the
        // panel's view, so scrolling brings it on screen whole.
        let floor = MIN_CANVAS
            .min(ui.clip_rect().height() - margins)
            .max(MIN_SHORT_CANVAS);
        let (width, height) = if self.fill {
            let size = ui.available_size();
            (size.x.max(MIN_CANVAS), size.y.max(MIN_CANVAS))
        } else {
            let width = ui.available_width().clamp(MIN_CANVAS, 480.0);
            // Never flatter than `floor`: below that it cannot be used, and the inspector scrolls instead.
            (width, (width * aspect).min(visible.max(floor)))
        };
        let (rect, _) = ui.allocate_exact_size(Vec2::new(width, height), Sense::hover());
        let (id, label) = self.canvas;
        let response = ui.interact(rect, id, Sense::click_and_drag());
        let painter = ui.painter_at(rect);
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, label));
        let response = crate::app::widgets::tooltip_unless_dragged(
            response,
            "Drag the cross (the sample point) or click to move it; drag a node to place it; click a node to \
             select it. Arrow keys move the point (Shift: farther).",
        );
        let frame = response.rect.shrink(1.0);
        let rect = space_rect(response.rect);
        self.update_texture(ui.ctx(), blend, e);
        // The frame's fill only where the map does not cover it: in software rendering every pixel shaded twice
        // is a few milliseconds a frame.
        if self.texture.is_some() {
            for part in ring(frame, rect) {
                painter.rect_filled(part, 0.0, CANVAS_FILL);
            }
        } else {
            painter.rect_filled(frame, 2.0, CANVAS_FILL);
        }
        if let Some(t) = &self.texture {
            painter.image(
                t.id(),
                rect,
                Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                Color32::WHITE,
            );
        }
        self.grid(&painter, rect, blend);

        // Interaction: drag a node or the sample point; click selects a node or moves the point.
        let hit_node = |pos: Pos2, space: &BlendSpace| {
            space
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (i, space_to_screen(space, rect, n.position).distance(pos)))
                .filter(|&(_, d)| d <= NODE_RADIUS + 3.0)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i)
        };
        // A drag is recognised only after the pointer has moved a little: hit-test where the press began.
        let press = ui.input(|i| i.pointer.press_origin());
        if response.drag_started()
            && let Some(pos) = press.or(response.interact_pointer_pos())
        {
            response.request_focus();
            // The cross wins where it covers a node (a new space starts with it on one): it is what a drag
            // there means to move; a node under it still moves from its other side or by its row.
            let on_point =
                space_to_screen(blend, rect, blend.point).distance(pos) <= NODE_RADIUS * 0.6;
            self.drag = Some(match hit_node(pos, blend).filter(|_| !on_point) {
                Some(i) => {
                    self.selected = Some(i);
                    Drag::Node(i)
                }
                None => Drag::Point,
            });
        }
        if response.dragged()
            && let (Some(drag), Some(pos)) = (self.drag, response.interact_pointer_pos())
        {
            let p = screen_to_space(blend, rect, pos.clamp(rect.min, rect.max));
            match drag {
                Drag::Point => out.push(Command::SetBlendPoint(p)),
                Drag::Node(i) => {
                    let p = self.snapped(p);
                    out.push(Command::EditBlend(BlendEdit::MoveNode(i, p)));
                }
            }
        }
        if response.drag_stopped() {
            self.drag = None;
        }
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            response.request_focus();
            match hit_node(pos, blend) {
                Some(i) => self.selected = Some(i),
                None => out.push(Command::SetBlendPoint(screen_to_space(blend, rect, pos))),
            }
        }
        // Keyboard: arrows move the sample point by 1 % of the range (Shift: 10 %) while the canvas has focus.
        if response.has_focus() {
            ui.memory_mut(|m| {
                m.set_focus_lock_filter(
                    id,
                    egui::EventFilter {
                        horizontal_arrows: true,
                        vertical_arrows: true,
                        ..Default::default()
                    },
                )
            });
            let (min, max) = shown_range(blend);
            let (mut dx, mut dy) = (0.0, 0.0);
            ui.input(|i| {
                let step = if i.modifiers.shift { 0.1 } else { 0.01 };
                if i.key_pressed(egui::Key::ArrowLeft) {
                    dx -= step;
                }
                if i.key_pressed(egui::Key::ArrowRight) {
                    dx += step;
                }
                if i.key_pressed(egui::Key::ArrowUp) {
                    dy += step;
                }
                if i.key_pressed(egui::Key::ArrowDown) {
                    dy -= step;
                }
            });
            if dx != 0.0 || dy != 0.0 {
                let p = blend.point;
                let moved = [p[0] + dx * (max.x - min.x), p[1] + dy * (max.y - min.y)];
                out.push(Command::SetBlendPoint(moved));
            }
            painter.rect_stroke(
                response.rect,
                2.0,
                Stroke::new(1.0, Color32::from_rgb(120, 170, 255)),
                egui::StrokeKind::Inside,
            );
        }
        self.marks(&painter, rect, frame, e);
    }

    fn grid(&self, painter: &egui::Painter, rect: Rect, space: &BlendSpace) {
        let (min, max) = shown_range(space);
        let faint = Stroke::new(1.0, Color32::from_white_alpha(28));
        let axis = Stroke::new(1.0, Color32::from_white_alpha(90));
        let step = nice_step(max.x - min.x);
        let mut x = (min.x / step).ceil() * step;
        while x <= max.x + 1e-9 {
            let sx = space_to_screen(space, rect, [x, 0.0]).x;
            let stroke = if x.abs() < step * 1e-6 { axis } else { faint };
            painter.line_segment(
                [egui::pos2(sx, rect.top()), egui::pos2(sx, rect.bottom())],
                stroke,
            );
            x += step;
        }
        if space.mode.is_2d() {
            let step = nice_step(max.y - min.y);
            let mut y = (min.y / step).ceil() * step;
            while y <= max.y + 1e-9 {
                let sy = space_to_screen(space, rect, [0.0, y]).y;
                let stroke = if y.abs() < step * 1e-6 { axis } else { faint };
                painter.line_segment(
                    [egui::pos2(rect.left(), sy), egui::pos2(rect.right(), sy)],
                    stroke,
                );
                y += step;
            }
        }
        // On a dark backing, as the node labels: the skate map paints bright where the titles sit.
        let text = Color32::from_gray(210);
        for (galley, at) in axis_title_galleys(painter, rect, space) {
            let backing = Rect::from_min_size(at, galley.size()).expand(1.0);
            painter.rect_filled(backing, 2.0, Color32::from_black_alpha(140));
            painter.galley(at, galley, text);
        }
    }

    /// Nodes, their labels and the sample point; labels are kept inside `frame`, and one that would overlap a
    /// label already drawn is left out (the weight list below names every node in its colour).
    fn marks(&self, painter: &egui::Painter, rect: Rect, frame: Rect, e: &EditorState) {
        let blend = &e.tuning().blend;
        let missing: Vec<usize> = e.blend_sampler().missing().iter().map(|m| m.0).collect();
        let font = egui::TextStyle::Body.resolve(&painter.ctx().global_style());
        let galleys: Vec<_> = blend
            .nodes
            .iter()
            .map(|n| painter.layout_no_wrap(n.clip.clone(), font.clone(), Color32::WHITE))
            .collect();
        let places: Vec<Pos2> = blend
            .nodes
            .iter()
            .map(|n| space_to_screen(blend, rect, n.position))
            .collect();
        let sizes: Vec<Vec2> = galleys.iter().map(|g| g.size()).collect();
        let labels = label_rects(&places, &sizes, frame, &axis_titles(painter, rect, blend));
        let colors = heatmap::node_colors(blend);
        for (i, node) in blend.nodes.iter().enumerate() {
            let at = space_to_screen(blend, rect, node.position);
            let fill = if missing.contains(&i) {
                Color32::from_gray(90)
            } else {
                color32(colors[i])
            };
            let selected = self.selected == Some(i);
            painter.circle(
                at,
                NODE_RADIUS * if selected { 1.2 } else { 1.0 },
                fill,
                Stroke::new(if selected { 2.5 } else { 1.0 }, Color32::WHITE),
            );
            if let Some(label) = labels[i] {
                painter.rect_filled(label.expand(1.0), 2.0, Color32::from_black_alpha(140));
                painter.galley(label.min, galleys[i].clone(), Color32::WHITE);
            }
        }
        let p = space_to_screen(blend, rect, blend.point);
        let stroke = Stroke::new(2.0, Color32::WHITE);
        painter.circle_stroke(p, 6.0, stroke);
        painter.line_segment([p - Vec2::new(10.0, 0.0), p + Vec2::new(10.0, 0.0)], stroke);
        painter.line_segment([p - Vec2::new(0.0, 10.0), p + Vec2::new(0.0, 10.0)], stroke);
    }

    fn weights(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        let blend = &e.tuning().blend;
        ui.horizontal(|ui| {
            let mut p = blend.point;
            let x = ui
                .add(
                    egui::DragValue::new(&mut p[0])
                        .update_while_editing(false)
                        .speed(0.01)
                        .prefix("point x "),
                )
                .on_hover_text("The sample point's x: where the space is sampled");
            let y = if blend.mode.is_2d() {
                ui.add(
                    egui::DragValue::new(&mut p[1])
                        .update_while_editing(false)
                        .speed(0.01)
                        .prefix("y "),
                )
                .on_hover_text("The sample point's y")
            } else {
                x.clone()
            };
            if x.changed() || y.changed() {
                out.push(Command::SetBlendPoint(p));
            }
            ui.label(format!("cycle {:.2} s", e.eval().duration()));
            let driving = e.session().driving;
            let drive = ui.add_enabled(
                !blend.nodes.is_empty(),
                egui::Button::selectable(driving, "Drive"),
            );
            if drive
                .on_hover_text(
                    "Drive the point as a game does: W A S D or the arrows (or a gamepad's left stick) push it \
                     forward, back and to the sides, and it follows through a damped spring; an in-place blend \
                     walks the character about on its root motion, with the skate meter live",
                )
                .on_disabled_hover_text("The space has no nodes yet")
                .clicked()
            {
                out.push(Command::Drive(!driving));
            }
        });
        let weights = if e.blending() {
            e.blend_weights().to_vec()
        } else {
            blend.weights()
        };
        let colors = heatmap::node_colors(blend);
        for (i, (node, w)) in blend.nodes.iter().zip(&weights).enumerate() {
            weight_bar(ui, i, colors[i], &node.clip, *w);
        }
        for issue in blend.issues() {
            ui.colored_label(Color32::from_rgb(230, 170, 60), format!("Warning: {issue}"));
        }
        for (i, clip) in e.blend_sampler().missing() {
            ui.colored_label(
                Color32::from_rgb(240, 110, 100),
                format!("node {i}: no clip named \"{clip}\" in this model"),
            );
        }
    }

    fn nodes(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        let blend = &e.tuning().blend;
        ui.label(egui::RichText::new("Nodes").strong());
        if blend.nodes.is_empty() {
            ui.label(
                "No nodes yet. \"New space from clips\" lays one out, or add nodes one by one below at the \
                 sample point.",
            );
        }
        let clip_names: Vec<String> = e.doc().clips.iter().map(|c| c.name.clone()).collect();
        let two_d = blend.mode.is_2d();
        let mut remove = None;
        // A grid, so that each column lines up from row to row.
        egui::Grid::new("blend_nodes").show(ui, |ui| {
            for i in 0..blend.nodes.len() {
                let node = blend.nodes[i].clone();
                if ui
                    .selectable_label(self.selected == Some(i), format!("{i}"))
                    .on_hover_text("Select this node (its influence map shows on the canvas)")
                    .clicked()
                {
                    self.selected = Some(i);
                }
                // Remove leads the row: a narrow panel cuts a row at its end.
                if ui
                    .small_button("Remove")
                    .on_hover_text("Remove this node")
                    .clicked()
                {
                    remove = Some(i);
                }
                let mut clip = node.clip.clone();
                egui::ComboBox::from_id_salt(("node_clip", i))
                    .width(110.0)
                    .truncate()
                    .selected_text(clip.as_str())
                    .show_ui(ui, |ui| {
                        for name in &clip_names {
                            ui.selectable_value(&mut clip, name.clone(), name.as_str());
                        }
                    })
                    .response
                    .on_hover_text(format!("The clip this node plays: {clip}"));
                let mut pos = node.position;
                let x = ui
                    .add(
                        egui::DragValue::new(&mut pos[0])
                            .update_while_editing(false)
                            .speed(0.01),
                    )
                    .on_hover_text("The node's x in the space");
                let y = if two_d {
                    Some(
                        ui.add(
                            egui::DragValue::new(&mut pos[1])
                                .update_while_editing(false)
                                .speed(0.01),
                        )
                        .on_hover_text("The node's y in the space"),
                    )
                } else {
                    None
                };
                let changed = x.changed() || y.as_ref().is_some_and(|y| y.changed());
                if changed && pos.iter().all(|v| v.is_finite()) {
                    out.push(Command::EditBlend(BlendEdit::MoveNode(i, pos)));
                }
                let mut scale = node.time_scale;
                if ui
                    .add(
                        egui::DragValue::new(&mut scale)
                            .update_while_editing(false)
                            .range(0.01..=crate::blend::space::MAX_TIME_SCALE)
                            .speed(0.01)
                            .prefix("×"),
                    )
                    .on_hover_text(
                        "Time scale: how fast this node's clip plays (Unity's blend tree clock column); its length in \
                         the cycle is its duration over this",
                    )
                    .changed()
                {
                    out.push(Command::EditBlend(BlendEdit::SetTimeScale(i, scale)));
                }
                if clip != node.clip {
                    out.push(Command::EditBlend(BlendEdit::SetNodeClip(i, clip)));
                }
                ui.end_row();
            }
        });
        if let Some(i) = remove {
            out.push(Command::EditBlend(BlendEdit::RemoveNode(i)));
            self.selected = None;
        }
        ui.horizontal(|ui| {
            if clip_names.is_empty() {
                ui.label("No clips to add");
                return;
            }
            self.add_clip = self.add_clip.min(clip_names.len() - 1);
            egui::ComboBox::from_id_salt("add_clip")
                .width(140.0)
                .truncate()
                .selected_text(clip_names[self.add_clip].as_str())
                .show_ui(ui, |ui| {
                    for (k, name) in clip_names.iter().enumerate() {
                        ui.selectable_value(&mut self.add_clip, k, name.as_str());
                    }
                })
                .response
                .on_hover_text("The clip the next node plays");
            if ui
                .button("Add node")
                .on_hover_text("Add a node for this clip at the sample point")
                .clicked()
            {
                let node = BlendNode {
                    time_scale: 1.0,
                    clip: clip_names[self.add_clip].clone(),
                    position: blend.point,
                    ..BlendNode::default()
                };
                out.push(Command::EditBlend(BlendEdit::AddNode(node)));
                self.selected = Some(blend.nodes.len());
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_labels_never_overlap() {
        // Nodes side by side (WalkForward, WalkForwardRight) drew their labels over one another, and over the
        // axis title.
        let frame = Rect::from_min_size(egui::pos2(0.0, 0.0), Vec2::new(300.0, 200.0));
        let nodes = [
            egui::pos2(150.0, 100.0),
            egui::pos2(160.0, 100.0),
            egui::pos2(150.0, 110.0),
            egui::pos2(155.0, 105.0),
            egui::pos2(290.0, 5.0),
        ];
        let sizes = [Vec2::new(90.0, 14.0); 5];
        let title = Rect::from_min_size(egui::pos2(200.0, 180.0), Vec2::new(100.0, 20.0));
        let labels = label_rects(&nodes, &sizes, frame, &[title]);
        let drawn: Vec<Rect> = labels.iter().flatten().copied().collect();
        assert!(drawn.len() >= 4, "{labels:?}");
        assert!(
            drawn.iter().all(|r| !r.intersects(title)),
            "{labels:?} over the axis title"
        );
        for (i, a) in drawn.iter().enumerate() {
            assert!(frame.contains_rect(*a), "{a:?}");
            for b in &drawn[i + 1..] {
                assert!(!a.intersects(*b), "{a:?} and {b:?}");
            }
        }
    }
}
