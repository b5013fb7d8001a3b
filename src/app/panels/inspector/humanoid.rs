//! The inspector's Humanoid tab, like Unity's Configure Avatar: every human bone with the joint that plays it
//! and a combo box to change it. Required bones that no joint plays are listed first, in red, and can be
//! fixed there. Changes are an undoable override that presets save.

use egui::{Color32, RichText};

use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;
use crate::core::{HipsPlacement, HumanBone};

/// Red of a required bone that no joint plays.
const MISSING: Color32 = Color32::from_rgb(240, 110, 100);

/// The body part a bone is listed under.
fn group(bone: HumanBone) -> &'static str {
    let n = bone.name();
    if ["Thumb", "Index", "Middle", "Ring", "Little"]
        .iter()
        .any(|f| n.contains(f))
    {
        if n.starts_with("Left") {
            "Left hand fingers"
        } else {
            "Right hand fingers"
        }
    } else if n.contains("Leg") || n.contains("Foot") || n.contains("Toes") {
        "Legs"
    } else if n.contains("Arm") || n.contains("Hand") || n.contains("Shoulder") {
        "Arms"
    } else if matches!(
        bone,
        HumanBone::Neck
            | HumanBone::Head
            | HumanBone::Jaw
            | HumanBone::LeftEye
            | HumanBone::RightEye
    ) {
        "Head"
    } else {
        "Body"
    }
}

/// Groups in display order; fingers start folded.
const GROUPS: [(&str, bool); 6] = [
    ("Body", true),
    ("Head", true),
    ("Arms", true),
    ("Legs", true),
    ("Left hand fingers", false),
    ("Right hand fingers", false),
];

/// One bone's row: its name (red when required and unmapped) and a combo box over the skeleton's joints.
fn bone_row(ui: &mut egui::Ui, e: &EditorState, bone: HumanBone, out: &mut Commands) {
    let c = &e.doc().model.character;
    let joint = c.humanoid.joint(bone);
    let overridden = e.tuning().humanoid.contains_key(&bone);
    ui.horizontal(|ui| {
        let mut name = RichText::new(bone.name());
        if bone.is_required() && joint.is_none() {
            name = name.color(MISSING);
        }
        if overridden {
            name = name.italics();
        }
        let label_width = 150.0;
        ui.add_sized([label_width, 18.0], egui::Label::new(name).truncate())
            .on_hover_text(if overridden {
                "Human bone (mapped by you: saved in presets as the humanoid override)"
            } else if bone.is_required() {
                "Human bone, required for a humanoid"
            } else {
                "Human bone, optional"
            });
        let shown = joint.map_or("(none)".to_string(), |j| c.skeleton.name(j).to_string());
        let mut chosen = joint;
        egui::ComboBox::from_id_salt(("human_bone", bone.name()))
            .width(ui.available_width().clamp(100.0, 220.0))
            .truncate()
            .selected_text(shown)
            .height(360.0)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut chosen, None, "(none)");
                for j in 0..c.skeleton.len() {
                    let mut text = c.skeleton.name(j).to_string();
                    if let Some(b) = c.humanoid.bone_of(j).filter(|&b| b != bone) {
                        text.push_str(&format!("  [{}]", b.name()));
                    }
                    ui.selectable_value(&mut chosen, Some(j), text);
                }
            })
            .response
            .on_hover_text(format!(
                "The joint that plays {}; choosing one another bone has unmaps that bone",
                bone.name()
            ));
        if chosen != joint {
            out.push(Command::SetHumanBone(bone, chosen));
        }
    });
}

/// The retargeting rule for the hips of clips from other characters.
fn hips_row(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let current = e.tuning().hips_placement;
    let label = |p: HipsPlacement| match p {
        HipsPlacement::ClipPosition => "Clip position × height",
        HipsPlacement::RestOffset => "Rest + clip motion",
    };
    ui.horizontal(|ui| {
        ui.label("Retargeted hips")
            .on_hover_text("Where clips from other characters put this character's hips");
        let mut chosen = current;
        egui::ComboBox::from_id_salt("hips placement")
            .selected_text(label(current))
            .show_ui(ui, |ui| {
                for p in HipsPlacement::ALL {
                    ui.selectable_value(&mut chosen, p, label(p));
                }
            })
            .response
            .on_hover_text(
                "Clip position × height: the clip's hips position scaled by the ratio of the rest hips heights, \
                 as three-vrm and Unity Mecanim place them.\nRest + clip motion: this character's rest hips plus \
                 the clip's hips motion, for clips authored away from their origin.",
            );
        if chosen != current {
            out.push(Command::SetHipsPlacement(chosen));
        }
    });
}

/// The retarget IK goals: which chains reach for the source's feet and hands, and how. The rows stay in place
/// (greyed) while no chain is on.
fn ik_goals_rows(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let current = e.tuning().ik_goals;
    let mut g = current;
    ui.horizontal(|ui| {
        ui.label("IK goals").on_hover_text(
            "After retargeting a clip from another character, take the ends of the chosen limbs to goals read \
             from the source's feet and hands, scaled to this character (Unreal's IK Retargeter). The skate \
             figure shows the result.",
        );
        ui.checkbox(&mut g.feet.enabled, "Feet")
            .on_hover_text("The legs reach for the source's feet (two-bone IK)");
        ui.checkbox(&mut g.hands.enabled, "Hands")
            .on_hover_text("The arms reach for the source's hands (two-bone IK)");
    });
    ui.add_enabled_ui(g.is_active(), |ui| {
        // A narrow grid (chain, blend to source, plant) that fits the inspector at a large UI scale.
        egui::Grid::new("ik goal chains")
            .num_columns(3)
            .show(ui, |ui| {
                ui.label("");
                ui.label("to source").on_hover_text(
                    "Blend to source. 0: the source's motion relative to its hips, scaled to this character's \
                     limbs; 1: the source's own positions",
                );
                ui.label("plant").on_hover_text(
                    "Pin the goal while the source's foot or hand slides slower than the plant speed",
                );
                ui.end_row();
                for (name, chain) in [("Feet", &mut g.feet), ("Hands", &mut g.hands)] {
                    ui.add_enabled_ui(chain.enabled, |ui| ui.label(name));
                    ui.add_enabled(
                        chain.enabled,
                        egui::DragValue::new(&mut chain.blend_to_source)
                            .range(0.0..=1.0)
                            .speed(0.01)
                            .fixed_decimals(2),
                    )
                    .on_hover_text(format!("{name}: blend to source (0 to 1)"));
                    ui.add_enabled(chain.enabled, egui::Checkbox::without_text(&mut chain.plant))
                        .on_hover_text(format!("{name}: pin while the source's is planted"));
                    ui.end_row();
                }
            });
        ui.horizontal(|ui| {
            ui.label("Plant below");
            let mut cm_s = g.plant_speed_m_s * 100.0;
            ui.add(
                egui::DragValue::new(&mut cm_s)
                    .range(0.0..=1000.0)
                    .speed(0.5)
                    .suffix(" cm/s"),
            )
            .on_hover_text("A source foot or hand sliding slower than this is planted (Unreal: 15 cm/s)");
            g.plant_speed_m_s = cm_s / 100.0;
        });
        ui.horizontal(|ui| {
            ui.label("Release over");
            ui.add(
                egui::DragValue::new(&mut g.plant_release_s)
                    .range(0.0..=5.0)
                    .speed(0.01)
                    .suffix(" s"),
            )
            .on_hover_text("Seconds a pinned goal takes to hand back to the moving one");
        });
        ui.checkbox(&mut g.adjust_hips, "Lower hips to reach")
            .on_hover_text("The hips drop as little as needed for the feet to reach, at most a quarter of the leg");
    });
    if g != current {
        out.push(Command::SetIkGoals(g));
    }
}

/// Draws the tab.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let c = &e.doc().model.character;
    let h = &c.humanoid;
    if h.is_humanoid() {
        ui.label(format!(
            "Humanoid: {} of {} bones mapped, from {}",
            h.len(),
            HumanBone::ALL.len(),
            h.source.as_str()
        ));
    } else {
        ui.colored_label(
            MISSING,
            format!(
                "Not a humanoid: {} required bone(s) have no joint. Choose them below.",
                h.missing_required.len()
            ),
        );
        for &bone in &h.missing_required {
            bone_row(ui, e, bone, out);
        }
        ui.separator();
    }
    for problem in &h.problems {
        ui.colored_label(MISSING, problem);
    }
    for warning in &h.warnings {
        ui.colored_label(Color32::from_rgb(230, 170, 60), warning);
    }
    hips_row(ui, e, out);
    ik_goals_rows(ui, e, out);
    if !e.tuning().humanoid.is_empty() {
        ui.horizontal(|ui| {
            ui.label(format!(
                "{} bone(s) mapped by you (italic)",
                e.tuning().humanoid.len()
            ));
        });
    }
    for (title, open) in GROUPS {
        egui::CollapsingHeader::new(title)
            .default_open(open)
            .show(ui, |ui| {
                for &bone in HumanBone::ALL.iter().filter(|&&b| group(b) == title) {
                    bone_row(ui, e, bone, out);
                }
            });
    }
}
