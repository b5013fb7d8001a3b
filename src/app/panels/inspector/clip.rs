//! The inspector's Clip tab: the clip playing, its settings as Unity's clip inspector has them (crop, cycle offset,
//! loop pose with the loop-match light) and how its tracks bound to the character, or, while the blend space
//! plays, its state (the point, the cycle, each node's weight and time).

use egui::Color32;

use crate::app::command::{ClipPass, Command, Commands};
use crate::app::editor::EditorState;
use crate::core::ClipSettings;
use crate::core::clip_pass::{
    LoopFix, MAX_STRETCH_PCT, RootBasis, RootComponents, RootLock, RootPass, SkateFix,
};
use crate::core::clip_settings::MAX_ROOT_OFFSET_M;

/// The Clip tab's state.
#[derive(Default)]
pub struct ClipPanel {
    /// The name being typed, for the clip at that index: it applies on Enter or when the field loses focus.
    name_edit: Option<(usize, String)>,
    /// The root-motion pass the Root motion rows will run.
    root: RootDraft,
    /// The loop-seam fix's window, seconds each side.
    loop_window: Option<f32>,
    /// The skate clean-up's settings.
    skate: SkateFix,
}

/// The root-motion rows' choices.
struct RootDraft {
    components: RootComponents,
    basis: RootBasis,
    lock: RootLock,
}

impl Default for RootDraft {
    fn default() -> Self {
        RootDraft {
            components: RootComponents::TRAVEL_AND_TURN,
            basis: RootBasis::Hips,
            lock: RootLock::Reference,
        }
    }
}

/// Tracks without a joint listed at most.
const UNBOUND_SHOWN: usize = 20;

/// Draws the tab.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands, panel: &mut ClipPanel) {
    if e.blending() {
        let blend = &e.tuning().blend;
        ui.label(format!(
            "Blend space playing: {} ({} nodes)",
            blend.mode.label(),
            blend.nodes.len()
        ));
        let p = blend.point;
        ui.label(format!(
            "Point {:.3}, {:.3}; cycle {:.3} s; at {:.3} s",
            p[0],
            p[1],
            e.eval().duration(),
            e.eval().time()
        ));
        for (node, w) in blend.nodes.iter().zip(e.blend_weights()) {
            if *w > 0.0 {
                ui.label(format!("{}  weight {w:.3}", node.clip));
            }
        }
        ui.label("Pick a single clip in the clip list to see its tracks here.");
        return;
    }
    let (Some(i), Some(b)) = (e.clip(), e.binding()) else {
        ui.label("Rest pose: no clip or blend space is playing.");
        return;
    };
    let clip = &e.doc().clips[i];
    ui.label(format!(
        "{}: {:.3} s, {} tracks",
        clip.name,
        clip.duration,
        clip.tracks.len()
    ));
    settings(ui, e, i, out, panel);
    takes(ui, e, i, out);
    root_motion(ui, e, i, out, &mut panel.root);
    ui.separator();
    ui.label(format!(
        "Tracks without a joint: {}",
        b.unbound_tracks.len()
    ));
    for t in b.unbound_tracks.iter().take(UNBOUND_SHOWN) {
        ui.add(egui::Label::new(t).truncate()).on_hover_text(t);
    }
    ui.label(format!(
        "Joints without a track: {}",
        b.joints_without_track.len()
    ));
}

/// Clips from one take, as Unity's clip list makes them: a new clip from this clip's take (cropped to the in/out
/// range when one is set), and, for a clip made so, its take and a way to remove it.
fn takes(ui: &mut egui::Ui, e: &EditorState, i: usize, out: &mut Commands) {
    let Some(source) = e.doc().source_clips.get(i) else {
        return;
    };
    let split = e
        .tuning()
        .clip_splits
        .iter()
        .find(|s| s.name == source.name);
    ui.horizontal(|ui| {
        if ui
            .button("New clip from this take")
            .on_hover_text(
                "Another clip from the same take, with its own crop and settings (Unity's clip list); it takes \
                 the in/out range when one is set. Saved in presets",
            )
            .clicked()
        {
            out.push(Command::SplitTake(i));
        }
        if let Some(split) = split
            && ui
                .button("Remove clip")
                .on_hover_text("Remove this clip made from a take (its take stays)")
                .clicked()
        {
            out.push(Command::RemoveSplit(split.name.clone()));
        }
    });
    if let Some(split) = split {
        let doc = e.doc();
        if let Some(report) = doc.skate_fix_reports.get(&split.name) {
            ui.label(format!(
                "Made from {} with its foot skate cleaned up: {}",
                split.take,
                report.brief()
            ));
        } else {
            match (
                doc.root_pass_reports.get(&split.name),
                doc.loop_fix_reports.get(&split.name),
            ) {
                (Some(report), _) => {
                    ui.label(format!(
                        "Made from {} with a root-motion pass: {}",
                        split.take,
                        report.brief()
                    ))
                    .on_hover_text(report.summary());
                }
                (None, Some(report)) => {
                    ui.label(format!(
                        "Made from {} with its loop seam fixed: {}",
                        split.take,
                        report.brief()
                    ));
                }
                (None, None) => {
                    ui.label(format!("Made from take {}", split.take));
                }
            }
        }
    }
}

/// Label of the button that makes a clip whose foot skate is cleaned up.
pub const FIX_SKATE_LABEL: &str = "Fix foot skate";
/// Label of the button that makes a clip whose loop seam is fixed.
pub const FIX_LOOP_LABEL: &str = "Fix loop seam";
/// Label of the button that makes a clip with root motion extracted.
pub const EXTRACT_ROOT_LABEL: &str = "Extract root motion";
/// Label of the button that makes a clip with the root's motion moved into the pose.
pub const ROOT_INTO_POSE_LABEL: &str = "Root motion into pose";

/// Root motion as Unity's Root Transform options and Unreal's root lock have it: which components, what the root
/// follows and where it is locked, and two actions that each make a new clip from this one (its take, with its
/// settings): root motion extracted onto the joint above the hips, or that joint's motion moved into the pose.
fn root_motion(
    ui: &mut egui::Ui,
    e: &EditorState,
    i: usize,
    out: &mut Commands,
    draft: &mut RootDraft,
) {
    ui.separator();
    let character = &e.doc().model.character;
    let root = character
        .humanoid
        .joint(crate::core::HumanBone::Hips)
        .and_then(|h| character.skeleton.parent(h));
    ui.label(match root {
        Some(j) => format!("Root motion (joint {})", character.skeleton.name(j)),
        None => "Root motion".to_string(),
    })
    .on_hover_text(
        "Move the clip's travel between the hips and the root joint above them: Extract puts the chosen parts of \
         the body's motion on the root (what engines' root motion plays), Into pose moves the root's motion \
         into the body. Every other joint stays where the clip puts it. Each makes a new clip; saved in presets",
    );
    egui::Grid::new("root_motion_pass")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Components");
            ui.horizontal(|ui| {
                let c = &mut draft.components;
                ui.checkbox(&mut c.xz, "XZ")
                    .on_hover_text("Horizontal travel (Unity's Root Transform Position (XZ))");
                ui.checkbox(&mut c.yaw, "Yaw")
                    .on_hover_text("Turn about the vertical (Root Transform Rotation)");
                ui.checkbox(&mut c.y, "Y")
                    .on_hover_text("Height (Root Transform Position (Y))");
            });
            ui.end_row();
            ui.label("Based upon");
            egui::ComboBox::from_id_salt("root_basis")
                .selected_text(basis_label(draft.basis))
                .show_ui(ui, |ui| {
                    for b in [RootBasis::Hips, RootBasis::CenterOfMass, RootBasis::Feet] {
                        ui.selectable_value(&mut draft.basis, b, basis_label(b));
                    }
                })
                .response
                .on_hover_text("What the extracted root follows (Unity's Based Upon)");
            ui.end_row();
            ui.label("Root lock");
            egui::ComboBox::from_id_salt("root_lock")
                .selected_text(lock_label(draft.lock))
                .show_ui(ui, |ui| {
                    for l in [RootLock::Reference, RootLock::FirstFrame, RootLock::Zero] {
                        ui.selectable_value(&mut draft.lock, l, lock_label(l));
                    }
                })
                .response
                .on_hover_text(
                    "Where the root stands with the motion taken from it (Unreal's Root Lock)",
                );
            ui.end_row();
        });
    let chosen = !draft.components.is_empty();
    let why_not = (!chosen).then_some("Choose at least one component");
    // A rig whose hips are its top joint has no root motion to move into the pose; extracting adds a root.
    let why_not_into = why_not.or(root.is_none().then_some(
        "This rig's hips are its top joint: there is no root joint whose motion could move into the pose",
    ));
    // One button a row: side by side they run off a narrow inspector.
    ui.vertical(|ui| {
        let extract = ui
            .add_enabled(why_not.is_none(), egui::Button::new(EXTRACT_ROOT_LABEL))
            .on_hover_text(if root.is_some() {
                "A new clip with the chosen components of the body's motion on the root joint"
            } else {
                "A new clip with the chosen components of the body's motion on a root joint: this rig's hips are \
                 its top joint, so a joint `Root` is added above them (undo takes it away again)"
            })
            .on_disabled_hover_text(why_not.unwrap_or_default());
        if extract.clicked() {
            out.push(Command::PassClip(
                i,
                ClipPass::Root(RootPass::Extract {
                    components: draft.components,
                    basis: draft.basis,
                    lock: draft.lock,
                }),
            ));
        }
        let into = ui
            .add_enabled(why_not_into.is_none(), egui::Button::new(ROOT_INTO_POSE_LABEL))
            .on_hover_text(
                "A new clip with the root joint's motion (the chosen components) in the body",
            )
            .on_disabled_hover_text(why_not_into.unwrap_or_default());
        if into.clicked() {
            out.push(Command::PassClip(
                i,
                ClipPass::Root(RootPass::IntoPose {
                    components: draft.components,
                    lock: draft.lock,
                }),
            ));
        }
    });
}

fn basis_label(b: RootBasis) -> &'static str {
    match b {
        RootBasis::Hips => "Hips (body)",
        RootBasis::CenterOfMass => "Centre of mass",
        RootBasis::Feet => "Feet",
    }
}

fn lock_label(l: RootLock) -> &'static str {
    match l {
        RootLock::Reference => "Reference pose",
        RootLock::FirstFrame => "First frame",
        RootLock::Zero => "Zero",
    }
}

/// Label of the take bar (for tests and screen readers).
pub const TAKE_BAR_LABEL: &str = "Take";

/// The whole take (the source clip as loaded, `duration` seconds) with the crop shaded between its start and end
/// handles, as Unity's clip inspector shows it: drag a handle to move that end; the playhead shows where the
/// clip is in the take.
fn take_bar(ui: &mut egui::Ui, e: &EditorState, duration: f32, s: &mut ClipSettings) {
    use egui::{Pos2, Rect, Sense, Stroke, Vec2};
    if duration <= 0.0 {
        return;
    }
    let width = ui.available_width().clamp(120.0, 420.0);
    let (rect, _) = ui.allocate_exact_size(Vec2::new(width, 26.0), Sense::hover());
    let bar = rect.shrink2(Vec2::new(7.0, 6.0));
    let x_of = |t: f32| bar.left() + t / duration * bar.width();
    let t_of = |x: f32| ((x - bar.left()) / bar.width() * duration).clamp(0.0, duration);
    let (start, end) = (s.start.unwrap_or(0.0), s.end.unwrap_or(duration));
    let painter = ui.painter_at(rect);
    painter.rect_filled(bar, 2.0, Color32::from_gray(45));
    let crop = Rect::from_x_y_ranges(x_of(start)..=x_of(end), bar.y_range());
    painter.rect_filled(crop, 2.0, Color32::from_rgb(60, 95, 150));
    // The playhead, in the take's time.
    let at = (start + e.eval().time()).min(duration);
    painter.line_segment(
        [
            Pos2::new(x_of(at), bar.top()),
            Pos2::new(x_of(at), bar.bottom()),
        ],
        Stroke::new(2.0, Color32::from_rgb(240, 80, 70)),
    );
    let info = ui.interact(rect, ui.scope_id().with("take bar"), Sense::hover());
    info.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, TAKE_BAR_LABEL));
    info.on_hover_text(format!(
        "The whole take ({duration:.3} s): the clip is the shaded part, {start:.3}–{end:.3} s. Drag a handle to \
         move the clip's start or end (Unity's clip inspector)"
    ));
    for (k, value) in [start, end].into_iter().enumerate() {
        let handle = Rect::from_center_size(
            Pos2::new(x_of(value), rect.center().y),
            Vec2::new(8.0, 22.0),
        );
        let id = ui.scope_id().with(("take handle", k));
        let response = ui.interact(handle, id, Sense::drag());
        let label = if k == 0 {
            "Take start handle"
        } else {
            "Take end handle"
        };
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, true, label));
        let hot = response.hovered() || response.dragged();
        painter.rect_filled(
            handle,
            2.0,
            if hot {
                Color32::WHITE
            } else {
                Color32::from_gray(200)
            },
        );
        if response.dragged()
            && let Some(pos) = response.interact_pointer_pos()
        {
            let t = (t_of(pos.x) * 1000.0).round() / 1000.0;
            // Each end stays a frame's worth (1/120 s) from the other.
            let gap = 1.0 / 120.0;
            if k == 0 {
                let t = t.min(end - gap).max(0.0);
                s.start = (t > 0.0).then_some(t);
            } else {
                let t = t.max(start + gap).min(duration);
                s.end = (t < duration).then_some(t);
            }
        }
    }
}

/// The root transform's rows, as Unity's: rotation, Y and XZ, each baked into the pose or not, with an offset.
fn root_transform(ui: &mut egui::Ui, s: &mut ClipSettings) {
    ui.label("Root transform (the hips)").on_hover_text(
        "Bake into pose takes the hips' drift out of the clip, evenly over it; the offset turns or moves the \
         whole clip (Unity's Root Transform Rotation / Position (Y) / Position (XZ))",
    );
    egui::Grid::new("root_transform")
        .num_columns(3)
        .show(ui, |ui| {
            let bake = "Bake into pose";
            ui.label("Rotation");
            ui.checkbox(&mut s.bake_root_rotation, bake)
                .on_hover_text("The clip ends facing as it starts");
            ui.add(
                egui::DragValue::new(&mut s.root_rotation_offset)
                    .update_while_editing(false)
                    .speed(0.5)
                    .range(-180.0..=180.0)
                    .suffix("°"),
            )
            .on_hover_text(
                "Offset: turns the clip about the vertical, counter-clockwise seen from above",
            );
            ui.end_row();
            ui.label("Position Y");
            ui.checkbox(&mut s.bake_root_y, bake)
                .on_hover_text("The clip ends at the height it starts");
            ui.add(
                egui::DragValue::new(&mut s.root_y_offset)
                    .update_while_editing(false)
                    .speed(0.005)
                    .range(-MAX_ROOT_OFFSET_M..=MAX_ROOT_OFFSET_M)
                    .suffix(" m"),
            )
            .on_hover_text("Offset: raises (or lowers) the hips");
            ui.end_row();
            ui.label("Position XZ");
            ui.checkbox(&mut s.bake_root_xz, bake)
                .on_hover_text("The hips do not travel: the clip plays in place");
            ui.horizontal(|ui| {
                for (v, axis) in s.root_xz_offset.iter_mut().zip(["x ", "z "]) {
                    ui.add(
                        egui::DragValue::new(v)
                            .update_while_editing(false)
                            .speed(0.005)
                            .range(-MAX_ROOT_OFFSET_M..=MAX_ROOT_OFFSET_M)
                            .prefix(axis)
                            .suffix(" m"),
                    )
                    .on_hover_text("Offset: moves the hips along the ground");
                }
            });
            ui.end_row();
        });
}

/// The clip's settings: name, crop, loop time, cycle offset, loop pose, mirror and the root transform, each change
/// one undo step, and the loop-match light.
fn settings(
    ui: &mut egui::Ui,
    e: &EditorState,
    i: usize,
    out: &mut Commands,
    panel: &mut ClipPanel,
) {
    let Some(source) = e.doc().source_clips.get(i) else {
        return;
    };
    let name = source.name.clone();
    let before = e
        .tuning()
        .clip_settings
        .get(&name)
        .cloned()
        .unwrap_or_default();
    let mut s = before.clone();
    let d = source.duration.max(0.0);
    ui.label(egui::RichText::new("Settings").strong())
        .on_hover_text(
            "As Unity's Animation clip inspector: they make the clip that plays, bakes and exports",
        );
    ui.horizontal(|ui| {
        ui.label("Name");
        let current = s.name_of(&name).to_string();
        let text = match &mut panel.name_edit {
            Some((at, text)) if *at == i => text,
            slot => &mut slot.insert((i, current.clone())).1,
        };
        let field = ui
            .add(egui::TextEdit::singleline(text).desired_width(160.0))
            .on_hover_text(
                "The clip's name: what the clip list, blend nodes, layers and bakes use (Unity's clip name);                  applies on Enter",
            );
        if field.lost_focus() {
            let typed = text.trim().to_string();
            panel.name_edit = None;
            if !typed.is_empty() && typed != current {
                s.name = (typed != name).then_some(typed);
            }
        } else if !field.has_focus() && *text != current {
            *text = current;
        }
    });
    ui.horizontal(|ui| {
        let mut start = s.start.unwrap_or(0.0);
        let mut end = s.end.unwrap_or(d);
        let seconds = |ui: &mut egui::Ui, label: &str, value: &mut f32, tip: &str| {
            ui.label(label);
            ui.add(
                egui::DragValue::new(value)
                    .update_while_editing(false)
                    .speed(0.01)
                    .range(0.0..=d)
                    .suffix(" s"),
            )
            .on_hover_text(tip);
        };
        seconds(
            ui,
            "Start",
            &mut start,
            "Crop: where the clip starts in the source (Unity's Start)",
        );
        seconds(
            ui,
            "End",
            &mut end,
            "Crop: where the clip ends in the source (Unity's End)",
        );
        s.start = (start > 0.0).then_some(start);
        s.end = (end < d).then_some(end);
    });
    take_bar(ui, e, d, &mut s);
    root_transform(ui, &mut s);
    ui.checkbox(&mut s.mirror, "Mirror").on_hover_text(
        "Left and right swapped, the motion reflected across the character's middle (Unity's Mirror; humanoid \
         bones pair by side, other joints by .L/.R, Left/Right, _l/_r names)",
    );
    ui.horizontal_wrapped(|ui| {
        ui.checkbox(&mut s.loop_time, "Loop time").on_hover_text(
            "The clip starts over after its end (Unity's Loop Time); off, it plays once and holds its last pose",
        );
        let offset = ui.add(
            egui::Slider::new(&mut s.cycle_offset, 0.0..=0.99)
                .update_while_editing(false)
                .text("cycle offset"),
        );
        crate::app::widgets::tooltip_unless_dragged(
            offset,
            "Start the loop this fraction of the way in (Unity's Cycle Offset)",
        );
    });
    let gap = e.analyses().loop_match(e.doc_key(), i);
    if gap.is_none() {
        out.push(Command::MeasureLoopMatch(i));
    }
    ui.horizontal(|ui| {
        ui.checkbox(&mut s.loop_pose, "Loop pose")
            .on_hover_text("Blend the end into the start so the loop does not pop (Unity's Loop Pose)");
        let cm = gap.map(|g| g * 100.0);
        let color = match cm {
            None => Color32::from_gray(120),
            Some(cm) if cm < 0.5 => Color32::from_rgb(90, 200, 110),
            Some(cm) if cm < 3.0 => Color32::from_rgb(230, 190, 70),
            Some(_) => Color32::from_rgb(220, 80, 70),
        };
        let (dot, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
        ui.painter().circle_filled(dot.center(), 5.0, color);
        let text = match cm {
            Some(cm) => format!("loop match {cm:.2} cm"),
            None => "loop match measuring…".to_string(),
        };
        ui.label(text)
            .on_hover_text(
                "How far the end pose is from the start at points 3 cm from each joint, the root's travel aside \
                 (Unity's loop lights): green under 0.5 cm, yellow under 3 cm",
            );
    });
    ui.horizontal(|ui| {
        let window = panel.loop_window.get_or_insert(LoopFix::DEFAULT_WINDOW_S);
        if ui
            .button(FIX_LOOP_LABEL)
            .on_hover_text(
                "A new clip that loops with no kick: the end's pose and velocity meet the start's, the difference \
                 spread over the window on each side of the seam (Loop Pose matches the pose only)",
            )
            .clicked()
        {
            out.push(Command::PassClip(
                i,
                ClipPass::Loop(LoopFix { window_s: *window }),
            ));
        }
        ui.add(
            egui::DragValue::new(window)
                .update_while_editing(false)
                .speed(0.01)
                .range(0.02..=10.0)
                .suffix(" s each side"),
        )
        .on_hover_text("How far from the seam the correction reaches");
    });
    ui.horizontal(|ui| {
        if ui
            .button(FIX_SKATE_LABEL)
            .on_hover_text(
                "A new clip whose planted feet stand still: each plant the skate meter finds held where the foot \
                 stood, the legs reaching it by IK, the pelvis moved the least needed, the corrections easing in \
                 and out around it (Kovar 2002)",
            )
            .clicked()
        {
            out.push(Command::PassClip(i, ClipPass::Skate(panel.skate)));
        }
        ui.add(
            egui::DragValue::new(&mut panel.skate.plant_blend_s)
                .update_while_editing(false)
                .speed(0.01)
                .range(0.0..=2.0)
                .suffix(" s easing"),
        )
        .on_hover_text("How long each correction eases in before a plant and out after it");
        ui.add(
            egui::DragValue::new(&mut panel.skate.max_stretch_pct)
                .update_while_editing(false)
                .speed(0.1)
                .range(0.0..=MAX_STRETCH_PCT)
                .suffix(" % stretch"),
        )
        .on_hover_text("The most a leg may stretch when the pelvis alone cannot bring the foot in reach");
    });
    if s.range(d).is_err() {
        ui.colored_label(Color32::from_rgb(230, 190, 70), "Start must be before End");
        return;
    }
    if s != before {
        out.push(Command::SetClipSettings {
            clip: name,
            settings: s,
        });
    }
    if ui
        .add_enabled(!before.is_identity(), egui::Button::new("Reset settings"))
        .on_hover_text("Play the clip as loaded")
        .clicked()
    {
        out.push(Command::SetClipSettings {
            clip: source.name.clone(),
            settings: ClipSettings::default(),
        });
    }
}
