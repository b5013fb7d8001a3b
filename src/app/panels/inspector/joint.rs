//! The inspector's Joint tab: the selected joint's name, path and human bone; its local translation, rotation
//! (Euler and quaternion) and scale; its model-space position and rotation.

use egui::RichText;

use crate::app::editor::EditorState;

/// One labelled row of numbers.
fn row(ui: &mut egui::Ui, label: &str, text: String, tip: &str) {
    ui.horizontal(|ui| {
        ui.add_sized([130.0, 18.0], egui::Label::new(label));
        ui.monospace(text).on_hover_text(tip);
    });
}

/// A rotation as XYZ Euler angles in degrees.
fn euler_row(ui: &mut egui::Ui, rotation: glam::Quat, tip: &str) {
    let (x, y, z) = rotation.to_euler(glam::EulerRot::XYZ);
    let [x, y, z] = [x, y, z].map(f32::to_degrees);
    row(
        ui,
        "rotation (°, XYZ)",
        format!("{x:8.2} {y:8.2} {z:8.2}"),
        tip,
    );
}

/// Draws the tab.
pub fn ui(ui: &mut egui::Ui, e: &EditorState) {
    let Some(j) = e.session().selected else {
        ui.label("Click a joint in the viewport or the skeleton list.");
        return;
    };
    let c = &e.doc().model.character;
    let s = &c.skeleton;
    ui.label(RichText::new(s.name(j)).strong());
    ui.add(egui::Label::new(s.path(j)).truncate())
        .on_hover_text(s.path(j));
    let bone = c.humanoid.bone_of(j);
    ui.label(format!(
        "Human bone: {}",
        bone.map_or("none (map one in the Humanoid tab)", |b| b.name())
    ));
    ui.separator();
    let l = e.pose().local[j];
    ui.label(RichText::new("Local (relative to the parent)").strong());
    let t = l.translation;
    row(
        ui,
        "translation (m)",
        format!("{:8.4} {:8.4} {:8.4}", t.x, t.y, t.z),
        "Local translation x y z, metres",
    );
    euler_row(
        ui,
        l.rotation,
        "Local rotation as Euler angles in degrees, applied X then Y then Z",
    );
    let q = l.rotation;
    row(
        ui,
        "quaternion",
        format!("{:7.4} {:7.4} {:7.4} {:7.4}", q.x, q.y, q.z, q.w),
        "Local rotation quaternion x y z w",
    );
    let sc = l.scale;
    row(
        ui,
        "scale",
        format!("{:8.4} {:8.4} {:8.4}", sc.x, sc.y, sc.z),
        "Local scale x y z",
    );
    ui.separator();
    ui.label(RichText::new("Model space").strong());
    let m = crate::core::Transform::from_mat4(&e.matrices()[j]);
    let t = m.translation;
    row(
        ui,
        "position (m)",
        format!("{:8.4} {:8.4} {:8.4}", t.x, t.y, t.z),
        "Position in the model's space (+Y up, +Z the character's front), metres",
    );
    euler_row(
        ui,
        m.rotation,
        "Rotation in the model's space as Euler angles in degrees, X then Y then Z",
    );
}
