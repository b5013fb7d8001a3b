//! The timeline: transport buttons, what plays, loop and speed, the time and frame, and the scrub slider.

use crate::app::command::{Command, Commands, Transport};
use crate::app::editor::EditorState;

/// Draws the timeline.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let eval = e.eval();
    ui.horizontal(|ui| {
        let label = if eval.is_playing() { "Pause" } else { "Play" };
        if ui.button(label).on_hover_text("Space").clicked() {
            out.push(Command::Transport(Transport::TogglePlay));
        }
        if ui.button("Stop").clicked() {
            out.push(Command::Transport(Transport::Stop));
        }
        if ui.button("|<").on_hover_text("Home").clicked() {
            out.push(Command::Transport(Transport::Scrub(0.0)));
        }
        if ui.button("<").on_hover_text("Left arrow").clicked() {
            out.push(Command::Transport(Transport::StepFrames(-1)));
        }
        if ui.button(">").on_hover_text("Right arrow").clicked() {
            out.push(Command::Transport(Transport::StepFrames(1)));
        }
        if ui.button(">|").on_hover_text("End").clicked() {
            out.push(Command::Transport(Transport::ScrubToEnd));
        }
        source_choice(ui, e, out);
        let mut looping = eval.is_looping();
        let loop_box = ui.checkbox(&mut looping, "Loop");
        let mut speed = eval.speed();
        let speed_box = ui.add(
            egui::DragValue::new(&mut speed)
                .speed(0.05)
                .range(-4.0..=4.0)
                .prefix("speed "),
        );
        if loop_box.changed() {
            out.push(Command::Transport(Transport::SetLooping(looping)));
        }
        if speed_box.changed() {
            out.push(Command::Transport(Transport::SetSpeed(speed)));
        }
        ui.label(format!("{:.3} s  frame {}", eval.time(), e.frame()));
    });
    let duration = eval.duration().max(1e-3);
    let mut t = eval.time();
    let slider = egui::Slider::new(&mut t, 0.0..=duration)
        .show_value(false)
        .text("Time");
    ui.spacing_mut().slider_width = (ui.available_width() - 60.0).max(50.0);
    if ui.add(slider).changed() {
        out.push(Command::Transport(Transport::Scrub(t)));
    }
}

/// The combo box choosing what plays: the blend space, the rest pose or a clip.
fn source_choice(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let clips = &e.doc().clips;
    let current = if e.blending() {
        "Blend space".to_string()
    } else {
        e.clip()
            .map_or("(rest pose)".to_string(), |i| clips[i].name.clone())
    };
    // None: the blend space; Some(None): the rest pose; Some(Some(i)): clip i.
    let before = if e.blending() { None } else { Some(e.clip()) };
    let mut chosen = before;
    egui::ComboBox::from_id_salt("clip")
        .selected_text(current)
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut chosen, None, "Blend space");
            for (i, clip) in clips.iter().enumerate() {
                ui.selectable_value(&mut chosen, Some(Some(i)), clip.name.as_str());
            }
        });
    if chosen != before {
        out.push(match chosen {
            None => Command::PlayBlend,
            Some(c) => Command::PlayClip(c),
        });
    }
}
