//! The scene panel: the character's summary, its clips (click to play; drop files here to add theirs) with a
//! binding report per file they came from, and its skeleton (click to select).

use egui::{Color32, RichText};

use crate::app::command::OpenKind;
use crate::app::command::Purpose;
use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;

/// Deepest indentation of the skeleton list.
const MAX_INDENT: usize = 24;

/// Draws the panel; returns the clip list's area, where dropped files add clips instead of opening a model.
/// `open` is set to `Some(false)` when the user hides the panel.
pub fn ui(
    ui: &mut egui::Ui,
    e: &EditorState,
    out: &mut Commands,
    open: &mut Option<bool>,
) -> egui::Rect {
    let doc = e.doc();
    ui.horizontal(|ui| {
        if ui
            .small_button("«")
            .on_hover_text(
                "Hide this panel (the strip at the window's edge, or View, shows it again)",
            )
            .clicked()
        {
            *open = Some(false);
        }
        ui.add(egui::Label::new(RichText::new(&doc.name).heading()).truncate())
            .on_hover_text(&doc.name);
    });
    let c = &doc.model.character;
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
    let list = ui.scope(|ui| {
        ui.horizontal(|ui| {
            ui.label(RichText::new("Clips").strong());
            if ui
                .small_button("Add from...")
                .on_hover_text(
                    "Add the clips of another file (a model, .vrma, .animclip, Unity .bytes); or drop files here",
                )
                .clicked()
            {
                out.push(Command::ChooseFile(Purpose::Open(OpenKind::Clips)));
            }
        });
        // The clip list scrolls in up to half the panel's height, so the skeleton below stays in reach however
        // many clips there are (Quaternius: 46).
        let half = (ui.available_height() * 0.5).max(120.0);
        egui::ScrollArea::vertical()
            .id_salt("clip list")
            .max_height(half)
            .auto_shrink([false, true])
            .show(ui, |ui| clip_list(ui, e, out));
    });
    let list_rect = list.response.rect;
    ui.separator();
    ui.label(RichText::new("Skeleton").strong());
    let twists: Vec<usize> = c
        .twist_chains()
        .iter()
        .flat_map(|t| t.joints.clone())
        .collect();
    let bones = h.bone_per_joint(c.skeleton.len());
    let selected = e.session().selected;
    egui::ScrollArea::vertical()
        .id_salt("skeleton")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (j, bone) in bones.iter().enumerate() {
                let indent = "  ".repeat(c.skeleton.depth(j).min(MAX_INDENT));
                let mut text = format!("{indent}{}", c.skeleton.name(j));
                if let Some(b) = bone {
                    text.push_str(&format!("  [{}]", b.name()));
                }
                if twists.contains(&j) {
                    text.push_str("  (twist)");
                }
                let button = egui::Button::selectable(selected == Some(j), text).truncate();
                let tip = match bone {
                    Some(b) => format!("Select {} (human bone {})", c.skeleton.path(j), b.name()),
                    None => format!("Select {}", c.skeleton.path(j)),
                };
                if ui.add(button).on_hover_text(tip).clicked() {
                    out.push(Command::SelectJoint(Some(j)));
                }
            }
        });
    list_rect
}

/// The clips (click to play), the files they came from with their binding reports, and the drop hint.
fn clip_list(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let doc = e.doc();
    let files_hovering = ui.ctx().input(|i| !i.raw.hovered_files.is_empty());
    for (i, clip) in doc.clips.iter().enumerate() {
        let name = if clip.name.is_empty() {
            format!("clip {i}")
        } else {
            clip.name.clone()
        };
        let label = format!("{name}  ({:.2} s)", clip.duration);
        let button = egui::Button::selectable(e.clip() == Some(i), label).truncate();
        if ui
            .add(button)
            .on_hover_text(format!(
                "Play {name}: {:.3} s, {} tracks",
                clip.duration,
                clip.tracks.len()
            ))
            .clicked()
        {
            out.push(Command::PlayClip(Some(i)));
        }
    }
    for s in &doc.clip_sources {
        let file = s.path.file_name().map_or_else(
            || s.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        // Elided to the panel's width: a header is not truncated by egui, and a long name widened the panel.
        let title = format!("from {file}: {} clip(s)", s.clips.len());
        let room = ui.available_width() - ui.spacing().indent - ui.spacing().icon_width;
        egui::CollapsingHeader::new(crate::app::widgets::elided(ui, &title, room))
            .id_salt(("clip_source", &s.path))
            .show(ui, |ui| {
                ui.add(egui::Label::new(s.path.display().to_string()).truncate())
                    .on_hover_text(s.path.display().to_string());
                ui.label(format!(
                    "tracks bound by path {}, by name {}, by humanoid bone {}",
                    s.by_path, s.by_name, s.by_human_bone
                ));
                if s.retargeted > 0 {
                    ui.label(format!(
                        "{} bound by path or name rest differently here: retargeted",
                        s.retargeted
                    ));
                }
                if s.unbound > 0 {
                    ui.colored_label(
                        Color32::from_rgb(230, 160, 60),
                        format!("{} track(s) found no joint", s.unbound),
                    );
                }
                ui.add(egui::Label::new(s.clips.join(", ")).truncate())
                    .on_hover_text(s.clips.join(", "));
            });
    }
    if files_hovering {
        ui.colored_label(
            Color32::from_rgb(120, 200, 120),
            "Drop here to add the file's clips",
        );
    }
}
