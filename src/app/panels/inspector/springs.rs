//! The Springs tab: the character's spring chains (VRM's, and chains the preset adds by joint name) with their
//! stiffness, gravity, drag and hit radius per chain and per joint, the collider groups, how the springs are
//! stepped, and the tools to see them move while the clip stands still (sway, Ctrl+drag, reset). Every edit is
//! [`Command::SetLayers`] with the springs' parameters changed: one undo step per drag, saved in presets.

use egui::RichText;

use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;
use crate::app::widgets::{slider, slider_named, soft_slider_named};
use crate::core::spring::SpringSettings;
use crate::layers::springs::{SpringChain, SpringJointInfo, SpringParams, SpringStep};

const STIFFNESS_TIP: &str =
    "How strongly the joint is pulled back toward its rest direction (per second)";
const GRAVITY_TIP: &str = "How strongly gravity pulls the tail (metres per second)";
const DRAG_TIP: &str =
    "Share of the tail's speed lost at every update: 0 swings freely, 1 stops at once";
const RADIUS_TIP: &str = "Radius of the tail's sphere against the colliders (metres)";
const DIR_TIP: &str = "Direction of gravity in the world (used as given, as three-vrm does)";

/// Sliders for one set of settings; true when one changed.
fn settings_ui(ui: &mut egui::Ui, s: &mut SpringSettings, id: &str) -> bool {
    let mut changed = false;
    // The bars span the values VRM models use; a typed value goes past them up to what the layer accepts.
    changed |= soft_slider_named(
        ui,
        &mut s.stiffness,
        0.0..=4.0,
        0.0..=1000.0,
        ("Stiffness", &format!("Stiffness {id}")),
        STIFFNESS_TIP,
    )
    .changed();
    changed |= soft_slider_named(
        ui,
        &mut s.gravity_power,
        0.0..=2.0,
        0.0..=1000.0,
        ("Gravity", &format!("Gravity {id}")),
        GRAVITY_TIP,
    )
    .changed();
    changed |= slider_named(
        ui,
        &mut s.drag_force,
        0.0..=1.0,
        ("Drag", &format!("Drag {id}")),
        DRAG_TIP,
    )
    .changed();
    changed |= soft_slider_named(
        ui,
        &mut s.hit_radius,
        0.0..=0.2,
        0.0..=10.0,
        ("Radius", &format!("Radius {id}")),
        RADIUS_TIP,
    )
    .changed();
    ui.horizontal(|ui| {
        for (axis, v) in ["x", "y", "z"].iter().zip(&mut s.gravity_dir) {
            changed |= ui
                .add(
                    egui::DragValue::new(v)
                        .speed(0.01)
                        .range(-1.0..=1.0)
                        .prefix(format!("{axis} ")),
                )
                .on_hover_text(DIR_TIP)
                .changed();
        }
        ui.label("gravity").on_hover_text(DIR_TIP);
    });
    changed
}

/// The selected joint and the joints below it down the first child, as a chain (a tail, a ponytail).
fn chain_from(e: &EditorState, joint: usize) -> Vec<String> {
    let s = &e.doc().model.character.skeleton;
    let mut out = vec![s.name(joint).to_string()];
    let mut j = joint;
    while let Some(c) = s.children(j).next() {
        if s.children(c).next().is_none() {
            break;
        }
        out.push(s.name(c).to_string());
        j = c;
    }
    out
}

/// Draws the tab.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let character = &e.doc().model.character;
    let rig = &e.layer_rig().springs;
    let mut layers = e.tuning().layers.clone();
    let p: &mut SpringParams = &mut layers.springs;
    ui.checkbox(&mut p.enabled, "Simulate springs")
        .on_hover_text(
            "Spring bones swing after the body (hair, tails, skirts): the last layer, after twist",
        );
    ui.horizontal(|ui| {
        ui.label("Steps").on_hover_text(
            "Per frame: one update with the frame's time, as three-vrm does (the motion depends on the frame \
             rate). Fixed: updates of 1/rate seconds, as many as the frames cover (the same at any frame rate)",
        );
        egui::ComboBox::from_id_salt("spring steps")
            .selected_text(match p.step {
                SpringStep::PerFrame => "Per frame (three-vrm)",
                SpringStep::Fixed => "Fixed rate",
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut p.step, SpringStep::PerFrame, "Per frame (three-vrm)");
                ui.selectable_value(&mut p.step, SpringStep::Fixed, "Fixed rate");
            });
    });
    if p.step == SpringStep::Fixed {
        slider(
            ui,
            &mut p.rate_hz,
            15.0..=240.0,
            "Rate (Hz)",
            "Updates per second of the fixed steps",
        );
    }
    ui.label(
        RichText::new(format!(
            "In use: {}; {} update{} last frame",
            match p.step {
                SpringStep::PerFrame => "one update per frame".to_string(),
                SpringStep::Fixed => format!("fixed {} Hz steps", p.rate_hz),
            },
            e.eval().layer_stage().spring_steps(),
            if e.eval().layer_stage().spring_steps() == 1 {
                ""
            } else {
                "s"
            }
        ))
        .weak(),
    );
    slider(
        ui,
        &mut p.preroll_s,
        0.0..=5.0,
        "Bake preroll (s)",
        "Seconds of updates with the first pose held before a bake's first frame, to settle the springs",
    );
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Reset")
            .on_hover_text("Forget the springs' motion: their tails go where the pose puts them (a seek does too)")
            .clicked()
        {
            out.push(Command::ResetSprings);
        }
        let mut shake = e.session().shake;
        if ui
            .checkbox(&mut shake, "Sway")
            .on_hover_text("Move the character from side to side so the springs swing while the clip stands still")
            .changed()
        {
            out.push(Command::Shake(shake));
        }
        if ui
            .button("Center")
            .on_hover_text("Put the character back at the origin (Ctrl+drag in the viewport moves it)")
            .clicked()
        {
            out.push(Command::CenterCharacter);
        }
        let mut show = e.session().show_springs;
        if ui
            .checkbox(&mut show, "Show")
            .on_hover_text("Draw the spring joints (yellow) and the colliders (magenta) in the viewport")
            .changed()
        {
            out.push(Command::ShowSprings(show));
        }
    });
    ui.separator();
    let infos = rig.joint_infos();
    if rig.spring_names().is_empty() {
        ui.label(
            "This character has no spring bones. Select the first joint of a tail or a ponytail and add a chain: \
             it is saved in the preset.",
        );
    }
    for (spring, name) in rig.spring_names().iter().enumerate() {
        let joints: Vec<&SpringJointInfo> = infos.iter().filter(|j| j.spring == *name).collect();
        let mut on = !p.disabled.contains(name);
        ui.horizontal(|ui| {
            if ui
                .checkbox(&mut on, "")
                .on_hover_text("Simulate this spring (off: it keeps the clip's pose)")
                .changed()
            {
                if on {
                    p.disabled.retain(|d| d != name);
                } else {
                    p.disabled.push(name.clone());
                }
            }
            let preset = p.chains.iter().position(|c| c.name == *name);
            // A VRM 0.x group without a comment is only numbered: its first joint says which it is.
            let numbered = name
                .strip_prefix("group ")
                .is_some_and(|n| n.parse::<usize>().is_ok());
            let title = match joints.first() {
                Some(j) if numbered => {
                    let first = character.skeleton.name(j.joint);
                    let more = joints.len().saturating_sub(1);
                    format!("{name}: {first} (+{more} joints)")
                }
                _ => name.clone(),
            };
            egui::CollapsingHeader::new(RichText::new(title).strong())
                .id_salt(("spring", spring))
                .show(ui, |ui| {
                    if let Some(first) = joints.first() {
                        let mut all = first.settings;
                        ui.label("Whole chain")
                            .on_hover_text("Set every joint of the chain at once");
                        if settings_ui(ui, &mut all, &format!("({name})")) {
                            for j in &joints {
                                p.joints
                                    .insert(character.skeleton.name(j.joint).to_string(), all);
                            }
                        }
                    }
                    for j in &joints {
                        let joint = character.skeleton.name(j.joint).to_string();
                        let tail = j
                            .tail
                            .map_or("a virtual tail", |t| character.skeleton.name(t));
                        egui::CollapsingHeader::new(&joint)
                            .id_salt(("spring joint", spring, j.joint))
                            .show(ui, |ui| {
                                ui.label(RichText::new(format!("swings toward {tail}")).weak());
                                let mut s = j.settings;
                                if settings_ui(ui, &mut s, &joint) {
                                    p.joints.insert(joint.clone(), s);
                                }
                            });
                    }
                    if let Some(i) = preset
                        && ui
                            .button("Remove chain")
                            .on_hover_text("Remove this chain from the preset")
                            .clicked()
                    {
                        let chain = p.chains.remove(i);
                        for j in &chain.joints {
                            p.joints.remove(j);
                        }
                    }
                });
        });
    }
    if let Some(selected) = e.session().selected {
        let joint = character.skeleton.name(selected).to_string();
        if ui
            .button(format!("Add a chain from {joint}"))
            .on_hover_text("A spring chain from the selected joint down its first children, saved in the preset")
            .clicked()
        {
            let mut name = format!("{joint} chain");
            while rig.spring_names().contains(&name) {
                name.push('\'');
            }
            p.chains.push(SpringChain {
                name,
                joints: chain_from(e, selected),
                settings: SpringSettings {
                    gravity_power: 0.3,
                    hit_radius: 0.02,
                    ..SpringSettings::default()
                },
                ..SpringChain::default()
            });
        }
    }
    for problem in &rig.problems {
        ui.colored_label(ui.visuals().warn_fg_color, problem);
    }
    let groups = &character.springs.collider_groups;
    if !groups.is_empty() {
        ui.separator();
        ui.label(RichText::new("Collider groups").strong())
            .on_hover_text("What the springs bounce off, from the file (drawn in magenta)");
        for g in groups {
            let joints: Vec<&str> = g
                .colliders
                .iter()
                .filter_map(|&c| character.springs.colliders.get(c))
                .map(|c| character.skeleton.name(c.joint))
                .collect();
            ui.label(format!(
                "{}: {} collider{} on {}",
                g.name,
                g.colliders.len(),
                if g.colliders.len() == 1 { "" } else { "s" },
                joints.join(", ")
            ));
        }
    }
    if layers != e.tuning().layers && layers.springs.validate().is_ok() {
        out.push(Command::SetLayers(Box::new(layers)));
    }
}
