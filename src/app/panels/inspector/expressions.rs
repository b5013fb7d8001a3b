//! The Expressions tab: a slider per expression of the character (VRM's, else one per morph-target name), each
//! edit sent as [`Command::SetLayers`] with the layer parameters' expression weights changed (one undo step per
//! drag), and the morph weights the meshes show.

use egui::RichText;

use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;
use crate::app::widgets::slider;

/// Draws the tab.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let c = &e.doc().model.character;
    if c.expressions.is_empty() {
        ui.label("This character has no morph targets, so no expressions.");
        return;
    }
    let mut layers = e.tuning().layers.clone();
    ui.label(RichText::new("Expressions").strong())
        .on_hover_text(
            "Weights added over what the clip keys; saved in presets (layers.expressions)",
        );
    for x in &c.expressions {
        let mut w = layers.expressions.get(&x.name).copied().unwrap_or(0.0);
        let targets = x.binds.len();
        let tip = format!(
            "'{}': drives {targets} morph target{}{}",
            x.name,
            if targets == 1 { "" } else { "s" },
            if x.is_binary {
                " (binary: snaps to 0 or 1 at 0.5)"
            } else {
                ""
            }
        );
        if slider(ui, &mut w, 0.0..=1.0, &x.name, &tip).changed() {
            if w == 0.0 {
                layers.expressions.remove(&x.name);
            } else {
                layers.expressions.insert(x.name.clone(), w);
            }
        }
    }
    if ui
        .button("Reset all")
        .on_hover_text("Set every expression weight to 0")
        .clicked()
    {
        layers.expressions.clear();
    }
    if layers != e.tuning().layers {
        out.push(Command::SetLayers(Box::new(layers)));
    }
    ui.separator();
    ui.label(RichText::new("Morph weights shown").strong())
        .on_hover_text(
            "Per morphed mesh: the clip's weights (or the mesh's defaults) plus the expressions",
        );
    let shown = &e.eval().output().morph_weights;
    for (mesh, weights) in c.meshes.iter().zip(shown) {
        let Some(set) = &mesh.morph else { continue };
        egui::CollapsingHeader::new(&set.node)
            .id_salt(("morph node", &set.node, &set.mesh))
            .show(ui, |ui| {
                for (name, w) in set.target_names.iter().zip(weights) {
                    ui.monospace(format!("{w:6.3}  {name}"));
                }
            });
    }
}
