//! The inspector's Joint tab: the selected joint's name, path, model position and local rotation.

use egui::RichText;

use crate::app::editor::EditorState;

/// Draws the tab.
pub fn ui(ui: &mut egui::Ui, e: &EditorState) {
    let Some(j) = e.session().selected else {
        ui.label("Click a joint in the viewport or the skeleton list.");
        return;
    };
    let s = &e.doc().model.character.skeleton;
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
