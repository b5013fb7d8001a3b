//! The scene panel: the character's summary, its clips (click to play) and its skeleton (click to select).

use egui::{Color32, RichText};

use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;

/// Deepest indentation of the skeleton list.
const MAX_INDENT: usize = 24;

/// Draws the panel.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let doc = e.doc();
    ui.heading(&doc.name);
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
    ui.label(RichText::new("Clips").strong());
    for (i, clip) in doc.clips.iter().enumerate() {
        let name = if clip.name.is_empty() {
            format!("clip {i}")
        } else {
            clip.name.clone()
        };
        let label = format!("{name}  ({:.2} s)", clip.duration);
        if ui.selectable_label(e.clip() == Some(i), label).clicked() {
            out.push(Command::PlayClip(Some(i)));
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
    let selected = e.session().selected;
    egui::ScrollArea::vertical().show(ui, |ui| {
        for (j, bone) in bones.iter().enumerate() {
            let indent = "  ".repeat(c.skeleton.depth(j).min(MAX_INDENT));
            let mut text = format!("{indent}{}", c.skeleton.name(j));
            if let Some(b) = bone {
                text.push_str(&format!("  [{}]", b.name()));
            }
            if twists.contains(&j) {
                text.push_str("  (twist)");
            }
            if ui.selectable_label(selected == Some(j), text).clicked() {
                out.push(Command::SelectJoint(Some(j)));
            }
        }
    });
}
