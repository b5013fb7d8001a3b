//! The status bar: the last message, red when it reports a failure.

use egui::{Color32, RichText};

use crate::app::editor::EditorState;

/// Draws the status line: always one line, so that a long message never moves the timeline above it (a click
/// aimed at Play would land elsewhere); a message cut short shows whole on hover.
pub fn ui(ui: &mut egui::Ui, e: &EditorState) {
    let s = e.status();
    let color = if s.is_error {
        Color32::from_rgb(240, 110, 100)
    } else {
        ui.visuals().text_color()
    };
    ui.add(egui::Label::new(RichText::new(&s.text).color(color)).truncate());
}
