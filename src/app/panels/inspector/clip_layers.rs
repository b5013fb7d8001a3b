//! The Layers tab's clip layers section: clips over the source, each with its clip, weight, mode, body-part mask
//! (drawn as a figure, as Unity's Avatar Mask is), timing, mute, solo and order. It edits the tab's draft of the layer
//! parameters, which the tab sends as one undoable change.

use egui::{Color32, Rect, Sense, Stroke, Vec2};

use crate::app::editor::EditorState;
use crate::app::widgets::slider;
use crate::layers::{AvatarMask, BodyPart, ClipLayer, LayerMode, LayerParams};

/// The figure's parts: each part's rectangles in a 60 × 100 box (head at the top, the figure facing the viewer,
/// so its left is on the right as Unity draws it).
fn figure(part: BodyPart) -> &'static [[f32; 4]] {
    match part {
        BodyPart::Head => &[[24.0, 0.0, 12.0, 12.0]],
        BodyPart::Body => &[[21.0, 14.0, 18.0, 32.0]],
        BodyPart::RightArm => &[[10.0, 14.0, 9.0, 26.0]],
        BodyPart::LeftArm => &[[41.0, 14.0, 9.0, 26.0]],
        BodyPart::RightHand => &[[8.0, 42.0, 10.0, 8.0]],
        BodyPart::LeftHand => &[[42.0, 42.0, 10.0, 8.0]],
        BodyPart::RightLeg => &[[21.0, 48.0, 8.0, 50.0]],
        BodyPart::LeftLeg => &[[31.0, 48.0, 8.0, 50.0]],
    }
}

/// Draws the mask figure; a click on a part turns it on or off. Returns true when the mask changed.
fn mask_figure(ui: &mut egui::Ui, id: usize, parts: &mut Vec<BodyPart>) -> bool {
    let scale = 1.2;
    let (rect, response) = ui.allocate_exact_size(Vec2::new(60.0, 100.0) * scale, Sense::click());
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Image, true, format!("mask figure {id}"))
    });
    let part_rects = |part: BodyPart| {
        figure(part).iter().map(move |[x, y, w, h]| {
            Rect::from_min_size(
                rect.min + Vec2::new(*x, *y) * scale,
                Vec2::new(*w, *h) * scale,
            )
        })
    };
    let painter = ui.painter_at(rect);
    let hover = response.hover_pos();
    let mut clicked = None;
    for part in BodyPart::ALL {
        let on = parts.contains(&part);
        let color = if on {
            Color32::from_rgb(90, 200, 110)
        } else {
            Color32::from_rgb(170, 60, 60)
        };
        for r in part_rects(part) {
            let hovered = hover.is_some_and(|p| r.contains(p));
            painter.rect(
                r,
                2.0,
                color,
                Stroke::new(if hovered { 2.0 } else { 0.0 }, Color32::WHITE),
                egui::StrokeKind::Inside,
            );
            if response.clicked()
                && response
                    .interact_pointer_pos()
                    .is_some_and(|p| r.contains(p))
            {
                clicked = Some(part);
            }
        }
    }
    let name = hover.and_then(|p| {
        BodyPart::ALL
            .into_iter()
            .find(|&part| part_rects(part).any(|r| r.contains(p)))
    });
    response.on_hover_text(match name {
        Some(part) => format!(
            "{}: click to turn on or off (green: driven by the layer)",
            part.name()
        ),
        None => "The body parts the layer drives, as Unity's Avatar Mask: click a part".to_string(),
    });
    match clicked {
        Some(part) if parts.contains(&part) => {
            parts.retain(|p| *p != part);
            true
        }
        Some(part) => {
            parts.push(part);
            true
        }
        None => false,
    }
}

/// What a layer's drag handle carries: the layer's index.
struct LayerDrag(usize);

/// Marks the layer block `block` (index `i`) while another layer is dragged over it, with a line where the
/// dragged layer would go (above or below, by the pointer's side of the block's middle); returns Some((from,
/// insertion index)) when it is dropped there, Some(None) when that moves nothing (onto its own place).
fn drop_target(ui: &egui::Ui, block: &egui::Response, i: usize) -> Option<Option<(usize, usize)>> {
    block.dnd_hover_payload::<LayerDrag>()?;
    let pointer = ui.ctx().pointer_interact_pos()?;
    let below = pointer.y > block.rect.center().y;
    let y = if below {
        block.rect.bottom()
    } else {
        block.rect.top()
    };
    let stroke = egui::Stroke::new(2.0, ui.visuals().selection.stroke.color);
    ui.painter().hline(block.rect.x_range(), y, stroke);
    let to = i + usize::from(below);
    let from = block.dnd_release_payload::<LayerDrag>()?.0;
    Some((from != to && from + 1 != to).then_some((from, to)))
}

/// The per-joint weights over the body parts (Unity's transform mask): each named joint with its weight, and a
/// joint picker to add one.
fn joint_weights(
    ui: &mut egui::Ui,
    joints: &[&str],
    weights: &mut std::collections::BTreeMap<String, f32>,
) {
    egui::CollapsingHeader::new(format!("Joint weights ({})", weights.len()))
        .id_salt("joint weights")
        .show(ui, |ui| {
            let mut drop = None;
            for (name, w) in weights.iter_mut() {
                ui.horizontal(|ui| {
                    let weight = ui.add(
                        egui::Slider::new(w, 0.0..=1.0)
                            .update_while_editing(false)
                            .text(name.as_str()),
                    );
                    crate::app::widgets::tooltip_unless_dragged(
                        weight,
                        "This joint's weight, over what its body part gives",
                    );
                    if ui.small_button("x").on_hover_text("Remove").clicked() {
                        drop = Some(name.clone());
                    }
                });
            }
            if let Some(name) = drop {
                weights.remove(&name);
            }
            let mut add = None;
            egui::ComboBox::from_id_salt("add joint weight")
                .width(160.0)
                .selected_text("Add a joint…")
                .show_ui(ui, |ui| {
                    for name in joints.iter().filter(|n| !weights.contains_key(**n)) {
                        if ui.selectable_label(false, *name).clicked() {
                            add = Some(name.to_string());
                        }
                    }
                })
                .response
                .on_hover_text(
                    "Weigh one joint on its own: added at 1 (the layer's full weight); 0 leaves it to the pose below",
                );
            if let Some(name) = add {
                // As Unity's transform mask adds a joint ticked: the joint plays fully until lowered.
                weights.insert(name, 1.0);
            }
        });
}

/// The layer's mask: its own, or one of the named masks layers share (Unity's AvatarMask assets); "Save as
/// mask" makes the layer's own mask a named one.
fn mask_choice(ui: &mut egui::Ui, layer: &mut ClipLayer, masks: &mut Vec<AvatarMask>) {
    ui.horizontal(|ui| {
        ui.label("mask");
        egui::ComboBox::from_id_salt("mask")
            .width(120.0)
            .truncate()
            .selected_text(layer.mask.as_deref().unwrap_or("(its own)"))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut layer.mask, None, "(its own)");
                for m in masks.iter() {
                    ui.selectable_value(&mut layer.mask, Some(m.name.clone()), m.name.as_str());
                }
            })
            .response
            .on_hover_text(
                "Which avatar mask the layer uses: its own, or a named mask several layers share (edits to a \
                 named mask change every layer on it)",
            );
        if layer.mask.is_none()
            && ui
                .button("Save as mask")
                .on_hover_text("Make this layer's mask a named one that other layers can use")
                .clicked()
        {
            let name = (1..)
                .map(|k| format!("Mask {k}"))
                .find(|n| !masks.iter().any(|m| m.name == *n))
                .unwrap_or_default();
            masks.push(AvatarMask {
                name: name.clone(),
                parts: layer.parts.clone(),
                joint_weights: layer.joint_weights.clone(),
            });
            layer.mask = Some(name);
        }
    });
}

/// The named masks: each with its name (renaming follows into the layers on it), how many layers use it, and
/// Delete (those layers keep its parts and weights as their own).
fn masks_section(ui: &mut egui::Ui, p: &mut LayerParams) {
    if p.masks.is_empty() {
        return;
    }
    ui.label(egui::RichText::new("Avatar masks").strong());
    let mut delete = None;
    let mut rename = None;
    for (k, mask) in p.masks.iter_mut().enumerate() {
        let users = p
            .clips
            .iter()
            .filter(|l| l.mask.as_deref() == Some(mask.name.as_str()))
            .count();
        ui.push_id(("avatar mask", k), |ui| {
            ui.horizontal(|ui| {
                let before = mask.name.clone();
                let edit = ui
                    .add(egui::TextEdit::singleline(&mut mask.name).desired_width(110.0))
                    .on_hover_text("The mask's name (the layers on it follow a rename)");
                if edit.changed() && !mask.name.trim().is_empty() {
                    rename = Some((before, mask.name.clone()));
                }
                ui.label(format!("{users} layer(s)"));
                if ui
                    .button("Delete")
                    .on_hover_text("Remove the mask; the layers on it keep its parts and weights")
                    .clicked()
                {
                    delete = Some(k);
                }
            });
        });
    }
    if let Some((old, new)) = rename {
        for layer in &mut p.clips {
            if layer.mask.as_deref() == Some(old.as_str()) {
                layer.mask = Some(new.clone());
            }
        }
    }
    if let Some(k) = delete {
        let mask = p.masks.remove(k);
        for layer in &mut p.clips {
            if layer.mask.as_deref() == Some(mask.name.as_str()) {
                layer.mask = None;
                layer.parts = mask.parts.clone();
                layer.joint_weights = mask.joint_weights.clone();
            }
        }
    }
}

/// Draws the section on `p`'s clip layers.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, p: &mut LayerParams) {
    let clips: Vec<&str> = e.doc().clips.iter().map(|c| c.name.as_str()).collect();
    let missing = e.eval().layer_stage().missing_clips();
    if clips.is_empty() {
        ui.label("The character has no clips to layer.");
    }
    let joints: Vec<&str> = e
        .doc()
        .model
        .character
        .skeleton
        .names()
        .iter()
        .map(String::as_str)
        .collect();
    let mut remove = None;
    let mut swap = None;
    let mut moved = None;
    let count = p.clips.len();
    let LayerParams {
        clips: layers,
        masks,
        ..
    } = p;
    for (i, layer) in layers.iter_mut().enumerate() {
        let block = ui.push_id(("clip layer", i), |ui| {
            ui.horizontal(|ui| {
                let drag_id = ui.scope_id().with("drag");
                let shown = layer.display_name(i);
                // While dragged, the handle carries the layer's name and clip under the pointer.
                let carried = if ui.ctx().is_being_dragged(drag_id) {
                    format!("☰ {shown} · {}", layer.clip)
                } else {
                    "☰".to_string()
                };
                ui.dnd_drag_source(drag_id, LayerDrag(i), |ui| {
                    ui.label(carried);
                })
                .response
                .on_hover_text("Drag onto another layer to move it there");
                ui.add(
                    egui::TextEdit::singleline(&mut layer.name)
                        .hint_text(shown)
                        .desired_width(90.0),
                )
                .on_hover_text("The layer's name (Unity's layer name); saved in presets");
                ui.checkbox(&mut layer.muted, "mute")
                    .on_hover_text("Leave the layer out without removing it");
                ui.checkbox(&mut layer.solo, "solo")
                    .on_hover_text("Play only the soloed layers while any is soloed");
                if ui
                    .button("Remove")
                    .on_hover_text("Remove the layer")
                    .clicked()
                {
                    remove = Some(i);
                }
            });
            // The clip on a row of its own: with the name, the header row no longer fit the default width.
            ui.horizontal(|ui| {
                ui.label("clip");
                egui::ComboBox::from_id_salt("clip")
                    .width(160.0)
                    .truncate()
                    .selected_text(layer.clip.as_str())
                    .show_ui(ui, |ui| {
                        for name in &clips {
                            ui.selectable_value(&mut layer.clip, name.to_string(), *name);
                        }
                    })
                    .response
                    .on_hover_text("The layer's clip (any clip of the character)");
            });
            if missing.contains(&layer.clip.as_str()) {
                ui.colored_label(
                    Color32::from_rgb(240, 190, 80),
                    format!("The character has no clip '{}': the layer is skipped", layer.clip),
                );
            }
            ui.horizontal(|ui| {
                ui.selectable_value(&mut layer.mode, LayerMode::Override, "override")
                    .on_hover_text("Replace the pose below where the mask lets it (Unity's Override)");
                ui.selectable_value(&mut layer.mode, LayerMode::Additive, "additive")
                    .on_hover_text(
                        "Add the clip's motion relative to its pose at the reference time (Unity's Additive)",
                    );
                ui.checkbox(&mut layer.synced, "synced").on_hover_text(
                    "Play at the source's normalised phase (Unity's layer Sync); off: on its own clock",
                );
                if ui
                    .add_enabled(i > 0, egui::Button::new("Up"))
                    .on_hover_text("Move the layer up (evaluated earlier)")
                    .clicked()
                {
                    swap = Some((i - 1, i));
                }
                if ui
                    .add_enabled(i + 1 < count, egui::Button::new("Down"))
                    .on_hover_text("Move the layer down (evaluated later, over the ones above)")
                    .clicked()
                {
                    swap = Some((i, i + 1));
                }
            });
            slider(
                ui,
                &mut layer.weight,
                0.0..=1.0,
                "weight",
                "How much of the layer shows (0: none)",
            );
            if layer.mode == LayerMode::Additive {
                ui.horizontal(|ui| {
                    ui.label("reference clip");
                    egui::ComboBox::from_id_salt("reference clip")
                        .width(120.0)
                        .truncate()
                        .selected_text(layer.reference_clip.as_deref().unwrap_or("(its own)"))
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut layer.reference_clip, None, "(its own)");
                            for name in &clips {
                                ui.selectable_value(
                                    &mut layer.reference_clip,
                                    Some(name.to_string()),
                                    *name,
                                );
                            }
                        })
                        .response
                        .on_hover_text(
                            "The clip whose pose at the reference time the motion is relative to (Unity's \
                             additive reference pose)",
                        );
                });
                slider(
                    ui,
                    &mut layer.reference_time,
                    0.0..=e
                        .doc()
                        .clips
                        .iter()
                        .find(|c| c.name == layer.clip)
                        .map_or(1.0, |c| c.duration.max(0.0)),
                    "reference (s)",
                    "The time of the clip whose pose the motion is relative to (0: its first frame)",
                );
            }
            mask_choice(ui, layer, masks);
            // A layer on a named mask edits that mask (every layer sharing it follows), else its own.
            let shared = layer
                .mask
                .as_ref()
                .and_then(|name| masks.iter().position(|m| m.name == *name));
            let (parts, weights) = match shared {
                Some(m) => {
                    let mask = &mut masks[m];
                    (&mut mask.parts, &mut mask.joint_weights)
                }
                None => (&mut layer.parts, &mut layer.joint_weights),
            };
            ui.horizontal(|ui| {
                mask_figure(ui, i, parts);
                ui.vertical(|ui| {
                    for part in BodyPart::ALL {
                        let mut on = parts.contains(&part);
                        if ui.checkbox(&mut on, part.name()).changed() {
                            if on {
                                parts.push(part);
                            } else {
                                parts.retain(|p| *p != part);
                            }
                        }
                    }
                });
            });
            joint_weights(ui, &joints, weights);
        })
        .response;
        if let Some(to) = drop_target(ui, &block, i) {
            moved = to;
        }
        ui.separator();
    }
    masks_section(ui, p);
    if let Some(i) = remove {
        p.clips.remove(i);
    }
    if let Some((a, b)) = swap {
        p.clips.swap(a, b);
    }
    if let Some((from, to)) = moved {
        let layer = p.clips.remove(from);
        p.clips.insert(if to > from { to - 1 } else { to }, layer);
    }
    if ui
        .add_enabled(!clips.is_empty(), egui::Button::new("Add clip layer"))
        .on_hover_text(
            "Layer the playing clip (or the first) over the source: all body parts, weight 0 as in Unity, so \
             nothing changes until you raise it",
        )
        .clicked()
    {
        let clip = e
            .clip()
            .and_then(|i| clips.get(i))
            .or(clips.first())
            .map(|c| c.to_string())
            .unwrap_or_default();
        let name = format!("Layer {}", p.clips.len() + 1);
        p.clips.push(ClipLayer::new_in_editor(name, clip));
    }
}
