//! The Layers tab: clip layers (see [`super::clip_layers`]), then breath, look-at and twist correction parameters, with a plot of the breathing angles and
//! what each layer found on the character. The widgets edit a draft of the parameters (copied when the
//! document's tuning changes, not every frame); a changed draft is sent as [`Command::SetLayers`].

use egui::{Color32, RichText};
use egui_plot::{Line, Plot, PlotPoints, VLine};
use glam::Vec3;

use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;
use crate::app::widgets::slider;
use crate::blend::heatmap::node_color;
use crate::layers::breath::BreathBone;
use crate::layers::look_at::{LookBone, LookLimit, LookSolver, UnityLimitMethod, UnityLookBone};
use crate::layers::{Easing, LayerParams};

/// UI state of the Layers tab.
#[derive(Default)]
pub struct LayersPanel {
    new_breath_bone: String,
    /// The parameters the widgets edit, and the document revision they were copied at.
    draft: Option<(u64, LayerParams)>,
}

fn axis_name(v: Vec3) -> String {
    let named = [
        (Vec3::X, "+X"),
        (Vec3::NEG_X, "-X"),
        (Vec3::Y, "+Y"),
        (Vec3::NEG_Y, "-Y"),
        (Vec3::Z, "+Z"),
        (Vec3::NEG_Z, "-Z"),
    ];
    named
        .iter()
        .find(|(a, _)| a.abs_diff_eq(v, 1e-4))
        .map_or_else(
            || format!("({:.2}, {:.2}, {:.2})", v.x, v.y, v.z),
            |(_, n)| n.to_string(),
        )
}

fn easing_combo(ui: &mut egui::Ui, id: &str, value: &mut Easing, tip: &str) {
    egui::ComboBox::from_id_salt(id)
        .selected_text(value.name())
        .show_ui(ui, |ui| {
            for e in Easing::ALL {
                ui.selectable_value(value, e, e.name());
            }
        })
        .response
        .on_hover_text(tip);
}

/// Three drag values for x, y and z, each with `tip` naming what they are.
fn vec3_edit(ui: &mut egui::Ui, v: &mut [f32; 3], tip: &str) {
    for (c, axis) in v.iter_mut().zip(["x", "y", "z"]) {
        ui.add(
            egui::DragValue::new(c)
                .update_while_editing(false)
                .speed(0.01)
                .max_decimals(3),
        )
        .on_hover_text(format!("{tip}: {axis}"));
    }
}

/// The breath bones the rig can take: its human bones, then its other joints (names as the breath layer reads
/// them: a human bone's name, else a joint's).
fn breath_candidates(e: &EditorState) -> Vec<String> {
    let c = &e.doc().model.character;
    let mut names: Vec<String> = c
        .humanoid
        .bones()
        .map(|(b, _)| b.name().to_string())
        .collect();
    let bones = c.humanoid.bone_per_joint(c.skeleton.len());
    names.extend(
        (0..c.skeleton.len())
            .filter(|&j| bones[j].is_none())
            .map(|j| c.skeleton.name(j).to_string()),
    );
    names
}

impl LayersPanel {
    /// Draws the tab.
    pub fn ui(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        let revision = e.doc().revision;
        let mut p = match self.draft.take() {
            Some((r, draft)) if r == revision => draft,
            _ => e.tuning().layers.clone(),
        };
        egui::CollapsingHeader::new(RichText::new("Clip layers").strong())
            .default_open(true)
            .show(ui, |ui| super::clip_layers::ui(ui, e, &mut p))
            .header_response
            .on_hover_text(
                "Clips over the source, below breath: override or additive, masked by body part",
            );
        egui::CollapsingHeader::new(RichText::new("Foot lock").strong())
            .default_open(true)
            .show(ui, |ui| foot_lock(ui, e, &mut p))
            .header_response
            .on_hover_text(
                "Hold each planted foot where it lands (two-bone IK on the legs, the pelvis lowered where a \
                 leg cannot reach), after the clip layers and before breath and look-at",
            );
        egui::CollapsingHeader::new(RichText::new("Breath").strong())
            .default_open(true)
            .show(ui, |ui| self.breath(ui, e, &mut p));
        egui::CollapsingHeader::new(RichText::new("Look-at").strong())
            .default_open(true)
            .show(ui, |ui| look_at(ui, e, &mut p));
        egui::CollapsingHeader::new(RichText::new("Twist correction").strong())
            .default_open(true)
            .show(ui, |ui| twist(ui, e, &mut p));
        if p != e.tuning().layers {
            out.push(Command::SetLayers(Box::new(p.clone())));
        }
        self.draft = Some((revision, p));
    }

    fn breath(&mut self, ui: &mut egui::Ui, e: &EditorState, p: &mut LayerParams) {
        let b = &mut p.breath;
        ui.horizontal(|ui| {
            ui.checkbox(&mut b.enabled, "Breath")
                .on_hover_text("Rotate the bones below in a breathing cycle on top of what plays");
            ui.checkbox(&mut b.keep_shoulders, "Keep shoulders still")
                .on_hover_text(
                    "Counter-rotate the shoulders so the arms do not swing with the chest",
                );
        });
        if b.keep_shoulders {
            ui.horizontal(|ui| {
                ui.label("generic shoulders").on_hover_text(
                    "Joints held still when the humanoid has no Shoulder bones (the original's \
                     genericLeftShoulder / genericRightShoulder); empty: the upper arms",
                );
                for (side, value) in [
                    ("left", &mut b.generic_left_shoulder),
                    ("right", &mut b.generic_right_shoulder),
                ] {
                    let mut text = value.clone().unwrap_or_default();
                    let edit = egui::TextEdit::singleline(&mut text)
                        .hint_text(side)
                        .desired_width(90.0);
                    if ui
                        .add(edit)
                        .on_hover_text(format!("The joint held still as the {side} shoulder"))
                        .changed()
                    {
                        *value = (!text.trim().is_empty()).then_some(text);
                    }
                }
            });
        }
        slider(
            ui,
            &mut b.inhale_s,
            0.05..=10.0,
            "inhale s",
            "Seconds breathing in (the original's inhaleTime)",
        );
        slider(
            ui,
            &mut b.exhale_s,
            0.05..=10.0,
            "exhale s",
            "Seconds breathing out (exhaleTime)",
        );
        slider(
            ui,
            &mut b.rest_s,
            0.0..=10.0,
            "rest s",
            "Seconds of pause after breathing out (restTime)",
        );
        slider(
            ui,
            &mut b.duration_rate,
            0.1..=5.0,
            "duration rate",
            "Multiplies the three times: above 1 breathes slower (durationRate)",
        );
        slider(
            ui,
            &mut b.effect_rate,
            0.0..=5.0,
            "effect rate",
            "Multiplies every bone's angles: how deep the breath is (effectRate)",
        );
        ui.horizontal(|ui| {
            ui.label("inhale");
            easing_combo(
                ui,
                "inhale_easing",
                &mut b.inhale_easing,
                "How the breath-in eases",
            );
            ui.label("exhale");
            easing_combo(
                ui,
                "exhale_easing",
                &mut b.exhale_easing,
                "How the breath-out eases",
            );
        });
        let t = e.layer_time();
        let (phase, f, cycle) = b.phase_at(t);
        ui.label(format!(
            "now: {} {:.0} %, cycle {}, {:.2} s per cycle",
            phase.name(),
            f * 100.0,
            cycle + 1,
            b.cycle_length()
        ));
        // Angles over two cycles around the current time, the current time marked.
        let len = b.cycle_length().max(1e-3);
        let start = (t / len).floor() * len;
        let plot_params = b.clone();
        let rig = &e.layer_rig().breath;
        // Only the bones this rig has are plotted.
        let on_rig: Vec<usize> = rig.bones.iter().map(|x| x.index).collect();
        Plot::new("breath_plot")
            .height(130.0)
            .x_axis_label("time (s)")
            .y_axis_label("angle (°)")
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .show(ui, |plot| {
                for (i, bone) in plot_params
                    .bones
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| on_rig.contains(i))
                {
                    let points: Vec<[f64; 2]> = (0..=240)
                        .map(|k| {
                            let x = start + 2.0 * len * k as f32 / 240.0;
                            let y = plot_params.angle_deg(bone.inhale_deg, bone.exhale_deg, x);
                            [f64::from(x), f64::from(y)]
                        })
                        .collect();
                    let c = node_color(i);
                    plot.line(
                        Line::new(bone.bone.clone(), PlotPoints::from(points))
                            .color(Color32::from_rgb(c[0], c[1], c[2])),
                    );
                }
                plot.vline(VLine::new("now", f64::from(t)).color(Color32::WHITE));
            });
        // The key, as plain coloured names (the plot's own legend would make each a toggle).
        ui.horizontal_wrapped(|ui| {
            for (i, bone) in plot_params
                .bones
                .iter()
                .enumerate()
                .filter(|(i, _)| on_rig.contains(i))
            {
                let c = node_color(i);
                ui.colored_label(
                    Color32::from_rgb(c[0], c[1], c[2]),
                    format!("— {}", bone.bone),
                );
            }
            ui.label("| now");
        });
        let mut remove = None;
        for (i, bone) in b.bones.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                // First in the row: a narrow panel cuts the row's end.
                if ui
                    .small_button("x")
                    .on_hover_text("Remove: stop breathing on this bone")
                    .clicked()
                {
                    remove = Some(i);
                }
                ui.label(&bone.bone);
                ui.add(
                    egui::DragValue::new(&mut bone.inhale_deg)
                        .update_while_editing(false)
                        .speed(0.05)
                        .range(-90.0..=90.0)
                        .prefix("in ")
                        .suffix("°"),
                )
                .on_hover_text("Degrees this bone turns at the top of the breath in");
                ui.add(
                    egui::DragValue::new(&mut bone.exhale_deg)
                        .update_while_editing(false)
                        .speed(0.05)
                        .range(-90.0..=90.0)
                        .prefix("out ")
                        .suffix("°"),
                )
                .on_hover_text("Degrees this bone turns at the end of the breath out");
                match rig.bones.iter().find(|x| x.index == i) {
                    Some(found) => {
                        let mut overridden = bone.axis.is_some();
                        ui.label(format!("axis {}", axis_name(found.axis)))
                            .on_hover_text(format!("detected: {}", axis_name(found.detected_axis)));
                        if ui
                            .checkbox(&mut overridden, "set")
                            .on_hover_text("Set the axis by hand instead of the detected one")
                            .changed()
                        {
                            bone.axis = overridden.then(|| found.detected_axis.to_array());
                        }
                    }
                    None => {
                        ui.colored_label(Color32::from_rgb(240, 110, 100), "not on this rig")
                            .on_hover_text(
                                "No human bone or joint of this name here: it is skipped",
                            );
                    }
                }
            });
            if let Some(axis) = &mut bone.axis {
                ui.horizontal(|ui| {
                    ui.label("    axis");
                    vec3_edit(ui, axis, "Breathing axis in the bone's space");
                });
            }
        }
        if let Some(i) = remove {
            b.bones.remove(i);
        }
        // Add bone: a combo over what this rig has (human bones first), never free text.
        let candidates: Vec<String> = breath_candidates(e)
            .into_iter()
            .filter(|n| !b.bones.iter().any(|x| &x.bone == n))
            .collect();
        ui.horizontal(|ui| {
            if !candidates.contains(&self.new_breath_bone) {
                self.new_breath_bone = candidates.first().cloned().unwrap_or_default();
            }
            egui::ComboBox::from_id_salt("breath_add_bone")
                .width(140.0)
                .truncate()
                .height(320.0)
                .selected_text(self.new_breath_bone.as_str())
                .show_ui(ui, |ui| {
                    for name in &candidates {
                        ui.selectable_value(&mut self.new_breath_bone, name.clone(), name.as_str());
                    }
                })
                .response
                .on_hover_text("The rig's human bones, then its other joints");
            let add = ui
                .add_enabled(
                    !self.new_breath_bone.is_empty(),
                    egui::Button::new("Add bone"),
                )
                .on_hover_text("Breathe on this bone too (1° in, -1° out to start)")
                .on_disabled_hover_text("Every bone of this rig already breathes");
            if add.clicked() {
                b.bones.push(BreathBone {
                    bone: std::mem::take(&mut self.new_breath_bone),
                    inhale_deg: 1.0,
                    exhale_deg: -1.0,
                    axis: None,
                });
            }
        });
    }
}

fn look_at(ui: &mut egui::Ui, e: &EditorState, p: &mut LayerParams) {
    let l = &mut p.look_at;
    ui.horizontal(|ui| {
        ui.checkbox(&mut l.enabled, "Look-at")
            .on_hover_text("Turn the head (and the chain below) toward the target");
        ui.checkbox(&mut l.follow_camera, "Follow camera")
            .on_hover_text("The target is the camera: the character looks at you");
        ui.checkbox(&mut l.eyes, "Eyes")
            .on_hover_text("Turn the eye bones too, within the eye limits");
    });
    ui.horizontal(|ui| {
        ui.label("solver");
        egui::ComboBox::from_id_salt("look_solver")
            .selected_text(l.solver.name())
            .show_ui(ui, |ui| {
                for s in LookSolver::ALL {
                    ui.selectable_value(&mut l.solver, s, s.name());
                }
            })
            .response
            .on_hover_text(
                "shares: each bone takes a share of the turn, bottom up. unity_original: the Unity \
                 look-at's rules (head first, stop when reached) and its parameter names",
            );
    });
    slider(
        ui,
        &mut l.weight,
        0.0..=1.0,
        "weight",
        "How much of the look-at applies (0: none, 1: all)",
    );
    ui.horizontal(|ui| {
        ui.label("target");
        vec3_edit(ui, &mut l.target, "Target in model space, metres");
    });
    ui.label("Drag the green cross in the viewport to move the target.");
    match l.solver {
        LookSolver::Shares => {
            slider(
                ui,
                &mut l.speed_deg_per_s,
                0.0..=1440.0,
                "speed deg/s (0: none)",
                "The fastest the head turns toward a moving target; 0 turns at once",
            );
        }
        LookSolver::UnityOriginal => {
            slider(
                ui,
                &mut l.rotate_speed,
                0.0..=1.0,
                "rotateSpeed",
                "The most a bone's smoothing weight grows in one frame",
            );
        }
    }
    ui.horizontal(|ui| {
        ui.label("eye limits");
        ui.add(
            egui::DragValue::new(&mut l.eye_horizontal_deg)
                .update_while_editing(false)
                .range(0.0..=90.0)
                .prefix("h ")
                .suffix("°"),
        )
        .on_hover_text("Largest sideways eye turn");
        ui.add(
            egui::DragValue::new(&mut l.eye_vertical_deg)
                .update_while_editing(false)
                .range(0.0..=90.0)
                .prefix("v ")
                .suffix("°"),
        )
        .on_hover_text("Largest up/down eye turn");
    });
    let rig = &e.layer_rig().look_at;
    let mut remove = None;
    for (i, bone) in l.chain.iter_mut().enumerate() {
        if chain_bone(ui, e, rig, i, bone, l.solver) {
            remove = Some(i);
        }
    }
    if let Some(i) = remove {
        l.chain.remove(i);
    }
    if ui
        .button("Add chain bone")
        .on_hover_text(
            "Adds a bone at the bottom of the chain; type its humanoid bone or joint name",
        )
        .clicked()
    {
        l.chain.push(LookBone {
            bone: "Chest".into(),
            weight: 0.2,
            forward: None,
            limit: LookLimit::Axis {
                horizontal_deg: 20.0,
                vertical_deg: 10.0,
                roll: 0.0,
            },
            unity: UnityLookBone::three_axis(20.0, 10.0),
        });
    }
    if !rig.missing.is_empty() {
        ui.colored_label(
            Color32::from_rgb(240, 110, 100),
            format!("not on this rig: {}", rig.missing.join(", ")),
        );
    }
}

/// One chain bone's row; returns true when its Remove button was clicked.
fn chain_bone(
    ui: &mut egui::Ui,
    e: &EditorState,
    rig: &crate::layers::LookAtRig,
    i: usize,
    bone: &mut LookBone,
    solver: LookSolver,
) -> bool {
    let found = rig.bones.iter().find(|b| b.index == i);
    let report = e.look_report().iter().find(|r| r.index == i);
    let mut remove = false;
    ui.horizontal(|ui| {
        // First in the row: a narrow panel cuts the row's end, and the live angle there changes width.
        remove = ui
            .small_button("x")
            .on_hover_text("Remove: take this bone out of the chain")
            .clicked();
        ui.add(egui::TextEdit::singleline(&mut bone.bone).desired_width(80.0))
            .on_hover_text("The chain bone: a human bone or joint name");
        if found.is_none() {
            ui.colored_label(Color32::from_rgb(240, 110, 100), "?")
                .on_hover_text("not on this rig");
        }
        if solver == LookSolver::Shares {
            ui.add(
                egui::DragValue::new(&mut bone.weight)
                    .update_while_editing(false)
                    .speed(0.01)
                    .range(0.0..=1.0)
                    .prefix("share "),
            )
            .on_hover_text("This bone's share of the turn");
        }
        if let Some(f) = found {
            // A bone this rig lacks stands in for another (UpperChest falls back to Chest): the row says so.
            let c = &e.doc().model.character;
            let joint = c.skeleton.name(f.joint);
            let plays = c
                .humanoid
                .bone_of(f.joint)
                .map_or(joint.to_string(), |b| b.name().to_string());
            if plays != bone.bone && joint != bone.bone {
                ui.label(format!("drives {plays}")).on_hover_text(format!(
                    "This rig has no {}: the row drives {plays} (joint {joint})",
                    bone.bone
                ));
            }
            ui.label(format!("fwd {}", axis_name(f.forward)));
        }
        if let Some(r) = report {
            let text = format!(
                "{:.1} deg{}",
                r.angle_deg,
                if r.limited { " (limit)" } else { "" }
            );
            let color = if r.limited {
                Color32::from_rgb(230, 170, 60)
            } else {
                ui.visuals().text_color()
            };
            ui.colored_label(color, text);
        }
    });
    match solver {
        LookSolver::Shares => shares_limit(ui, i, bone),
        LookSolver::UnityOriginal => unity_limits(ui, i, &mut bone.unity),
    }
    remove
}

/// The `unity_original` settings of one chain bone, named and ranged as in the original's inspector.
fn unity_limits(ui: &mut egui::Ui, i: usize, u: &mut UnityLookBone) {
    ui.horizontal(|ui| {
        let names = ["three axis", "lerp axis"];
        let methods = [UnityLimitMethod::ThreeAxis, UnityLimitMethod::LerpAxis];
        let current = methods.iter().position(|m| *m == u.method).unwrap_or(0);
        egui::ComboBox::from_id_salt(("unity_method", i))
            .width(80.0)
            .selected_text(names[current])
            .show_ui(ui, |ui| {
                for (m, name) in methods.into_iter().zip(names) {
                    ui.selectable_value(&mut u.method, m, name);
                }
            })
            .response
            .on_hover_text(
                "The original's limit method: per-axis limits, or one cone leaning toward up",
            );
        let drag = |ui: &mut egui::Ui, v: &mut f32, range, name: &str, tip: &str| {
            ui.add(
                egui::DragValue::new(v)
                    .update_while_editing(false)
                    .speed(0.1)
                    .range(range)
                    .prefix(format!("{name} ")),
            )
            .on_hover_text(tip);
        };
        match u.method {
            UnityLimitMethod::ThreeAxis => {
                drag(
                    ui,
                    &mut u.limit_hori,
                    0.0..=90.0,
                    "limitHori",
                    "90: no limit",
                );
                drag(
                    ui,
                    &mut u.limit_vert,
                    0.0..=90.0,
                    "limitVert",
                    "90: no limit",
                );
                drag(
                    ui,
                    &mut u.limit_self,
                    -1.0..=1.0,
                    "limitSelf",
                    "roll by this share of the bone's rotation when a limit cuts",
                );
            }
            UnityLimitMethod::LerpAxis => {
                drag(
                    ui,
                    &mut u.limit_angle,
                    0.0..=90.0,
                    "limitAngle",
                    "largest turn",
                );
                drag(
                    ui,
                    &mut u.limit_weight,
                    0.0..=1.0,
                    "limitWeight",
                    "how far the axis leans toward up (0: no limit)",
                );
            }
        }
        drag(
            ui,
            &mut u.angular_speed,
            0.0..=3600.0,
            "angularSpeed",
            "smoothing weight gained per second, x90",
        );
    });
}

/// The `shares` limit of one chain bone.
fn shares_limit(ui: &mut egui::Ui, i: usize, bone: &mut LookBone) {
    ui.horizontal(|ui| {
        let mut mode = match bone.limit {
            LookLimit::Off => 0,
            LookLimit::Axis { .. } => 1,
            LookLimit::Smooth { .. } => 2,
        };
        let before = mode;
        egui::ComboBox::from_id_salt(("limit_mode", i))
            .width(70.0)
            .selected_text(["no limit", "axis", "smooth"][mode])
            .show_ui(ui, |ui| {
                for (k, name) in ["no limit", "axis", "smooth"].iter().enumerate() {
                    ui.selectable_value(&mut mode, k, *name);
                }
            })
            .response
            .on_hover_text("How this bone's turn is limited");
        if mode != before {
            bone.limit = match mode {
                0 => LookLimit::Off,
                1 => LookLimit::Axis {
                    horizontal_deg: 45.0,
                    vertical_deg: 30.0,
                    roll: 0.0,
                },
                _ => LookLimit::Smooth {
                    angle_deg: 45.0,
                    limit_weight: 0.5,
                },
            };
        }
        match &mut bone.limit {
            LookLimit::Off => {}
            LookLimit::Axis {
                horizontal_deg,
                vertical_deg,
                roll,
            } => {
                ui.add(
                    egui::DragValue::new(horizontal_deg)
                        .update_while_editing(false)
                        .range(0.0..=90.0)
                        .prefix("h ")
                        .suffix("°"),
                )
                .on_hover_text("Largest sideways turn (90: free)");
                ui.add(
                    egui::DragValue::new(vertical_deg)
                        .update_while_editing(false)
                        .range(0.0..=90.0)
                        .prefix("v ")
                        .suffix("°"),
                )
                .on_hover_text("Largest up/down turn (90: free)");
                ui.add(
                    egui::DragValue::new(roll)
                        .update_while_editing(false)
                        .speed(0.01)
                        .range(-1.0..=1.0)
                        .prefix("roll "),
                )
                .on_hover_text("Roll by this share of the turn when a limit cuts it");
            }
            LookLimit::Smooth {
                angle_deg,
                limit_weight,
            } => {
                ui.add(
                    egui::DragValue::new(angle_deg)
                        .update_while_editing(false)
                        .range(0.0..=180.0)
                        .prefix("angle ")
                        .suffix("°"),
                )
                .on_hover_text("Largest turn, in any direction");
                ui.add(
                    egui::DragValue::new(limit_weight)
                        .update_while_editing(false)
                        .speed(0.01)
                        .range(0.0..=1.0)
                        .prefix("to up "),
                )
                .on_hover_text("How far the limit cone leans toward up (0: none)");
            }
        }
    });
}

fn foot_lock(ui: &mut egui::Ui, e: &EditorState, p: &mut LayerParams) {
    let f = &mut p.foot_lock;
    ui.checkbox(&mut f.enabled, "Foot lock").on_hover_text(
        "Hold a foot where it lands while it stays on the ground (its toes, else its foot, within the contact \
         height), so that it does not slide",
    );
    if let Some(problem) = &e.layer_rig().foot_lock.problem {
        ui.label(RichText::new(problem).weak());
        return;
    }
    slider(
        ui,
        &mut f.height_m,
        0.0..=0.3,
        "contact height (m)",
        "A foot lands when its contact point is within this height above the ground",
    );
    slider(
        ui,
        &mut f.speed_m_s,
        0.0..=5.0,
        "landing speed (m/s)",
        "A low foot lands when it slides slower than this",
    );
    slider(
        ui,
        &mut f.blend_in_s,
        0.0..=1.0,
        "blend in (s)",
        "Seconds a new lock takes to reach full weight",
    );
    slider(
        ui,
        &mut f.blend_out_s,
        0.0..=1.0,
        "blend out (s)",
        "Seconds a released lock takes to fade after the foot lifts",
    );
    slider(
        ui,
        &mut f.max_pelvis_drop_m,
        0.0..=0.5,
        "pelvis drop (m)",
        "How far the hips may be lowered so that a leg reaches its lock; beyond it the lock is released",
    );
    slider(
        ui,
        &mut f.max_reach,
        0.5..=1.0,
        "leg reach",
        "The share of a leg's length it may stretch to (below 1 keeps the knee from locking straight)",
    );
    let state = e.eval().layer_stage().foot_lock();
    if f.enabled && !state.feet.is_empty() {
        let rig = &e.layer_rig().foot_lock;
        let feet: Vec<String> = rig
            .legs
            .iter()
            .zip(&state.feet)
            .map(|(leg, foot)| {
                let side = if leg.foot_bone == crate::core::HumanBone::LeftFoot {
                    "left"
                } else {
                    "right"
                };
                match (foot.locked, foot.weight > 0.0) {
                    (true, _) => format!("{side} locked ({:.0} %)", 100.0 * foot.weight),
                    (false, true) => format!("{side} releasing ({:.0} %)", 100.0 * foot.weight),
                    (false, false) => format!("{side} free"),
                }
            })
            .collect();
        ui.label(format!(
            "{}; pelvis {:.1} cm lower",
            feet.join(", "),
            100.0 * state.pelvis_drop
        ))
        .on_hover_text("What foot lock did in the frame shown");
    }
}

fn twist(ui: &mut egui::Ui, e: &EditorState, p: &mut LayerParams) {
    let t = &mut p.twist;
    ui.checkbox(&mut t.enabled, "Twist correction")
        .on_hover_text(
            "Spread each limb's twist over its twist joints, as a twist-helper rig does",
        );
    slider(
        ui,
        &mut t.intensity,
        0.0..=1.0,
        "intensity",
        "Share of the twist the helpers take, for every pair without its own",
    );
    let rig = &e.layer_rig().twist;
    let s = &e.doc().model.character.skeleton;
    for found in &rig.pairs {
        let Some(pair) = t.pairs.get_mut(found.index) else {
            continue;
        };
        let label = format!("{} > {}", pair.parent, pair.child);
        // Why a pair does nothing, wrapped under the pair's name (on one row it was cut at the panel's edge).
        if let Some(why) = &found.problem {
            ui.label(RichText::new(format!("{label}: {why}")).weak());
            continue;
        }
        ui.horizontal(|ui| {
            let joints: Vec<&str> = found
                .in_chain
                .iter()
                .chain(&found.helpers)
                .map(|&j| s.name(j))
                .collect();
            ui.label(label).on_hover_text(joints.join(", "));
            let mut own = pair.intensity.is_some();
            if ui
                .checkbox(&mut own, "own")
                .on_hover_text("Give this pair its own intensity")
                .changed()
            {
                pair.intensity = own.then_some(0.5);
            }
            if let Some(v) = &mut pair.intensity {
                ui.add(
                    egui::DragValue::new(v)
                        .update_while_editing(false)
                        .speed(0.01)
                        .range(0.0..=1.0),
                )
                .on_hover_text("This pair's intensity");
            }
            ui.label(format!("{} joint(s)", joints.len()));
        });
    }
}
