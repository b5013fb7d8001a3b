//! The inspector's Joint tab: the selected joint's name, path and human bone; its local translation, rotation
//! (Euler and quaternion) and scale; its model-space position and rotation.

use egui::RichText;

use crate::app::editor::EditorState;

/// One labelled row of numbers.
fn row(ui: &mut egui::Ui, label: &str, text: String, tip: &str) {
    // The label above its values: four numbers fit the inspector's default width (a label beside them cut the
    // quaternion's w off).
    ui.label(label);
    ui.monospace(text).on_hover_text(tip);
}

/// Values to `decimals` places, one space apart, a value that rounds to zero printed as 0 (never "-0.00").
fn fixed(values: &[f32], decimals: usize) -> String {
    let half_step = 0.5 * 10f32.powi(-(decimals as i32));
    values
        .iter()
        .map(|&v| {
            let v = if v.abs() < half_step { 0.0 } else { v };
            format!("{v:.decimals$}")
        })
        .collect::<Vec<_>>()
        .join("  ")
}

/// A rotation as XYZ Euler angles in degrees.
fn euler_row(ui: &mut egui::Ui, rotation: glam::Quat, tip: &str) {
    let (x, y, z) = rotation.to_euler(glam::EulerRot::XYZ);
    let [x, y, z] = [x, y, z].map(f32::to_degrees);
    row(ui, "rotation (°, XYZ)", fixed(&[x, y, z], 2), tip);
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
        fixed(&[t.x, t.y, t.z], 4),
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
        fixed(&[q.x, q.y, q.z, q.w], 4),
        "Local rotation quaternion x y z w",
    );
    let sc = l.scale;
    row(
        ui,
        "scale",
        fixed(&[sc.x, sc.y, sc.z], 4),
        "Local scale x y z",
    );
    ui.separator();
    ui.label(RichText::new("Model space").strong());
    let m = crate::core::Transform::from_mat4(&e.matrices()[j]);
    let t = m.translation;
    row(
        ui,
        "position (m)",
        fixed(&[t.x, t.y, t.z], 4),
        "Position in the model's space (+Y up, +Z the character's front), metres",
    );
    euler_row(
        ui,
        m.rotation,
        "Rotation in the model's space as Euler angles in degrees, X then Y then Z",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_rounds_to_zero_prints_without_a_sign() {
        assert_eq!(fixed(&[-0.0001, 0.25, -1.5], 2), "0.00  0.25  -1.50");
        assert_eq!(fixed(&[-0.00004], 4), "0.0000");
    }
}
