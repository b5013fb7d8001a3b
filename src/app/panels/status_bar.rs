//! The status bar: the last message, red when it reports a failure (a click shows the recent messages whole), and
//! the progress of a panel's analysis while one runs.

use egui::{Color32, RichText};

use crate::app::editor::EditorState;

/// Width of the analysis progress bar, points.
const PROGRESS_WIDTH: f32 = 260.0;

/// Draws the status line: always one line, so that a long message never moves the timeline above it (a click
/// aimed at Play would land elsewhere); a message cut short shows whole on hover. A running analysis shows its
/// progress at the line's right end.
pub fn ui(ui: &mut egui::Ui, e: &EditorState) {
    if let Some((analysis, done)) = e.analyses().running() {
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let width = PROGRESS_WIDTH.min(ui.available_width() * 0.5);
            ui.add(
                egui::ProgressBar::new(done)
                    .desired_width(width)
                    .text(format!("{}… {:.0} %", analysis.name(), 100.0 * done)),
            )
            .on_hover_text("Runs in the background; an edit of the document stops it");
            ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), message(e));
        });
        return;
    }
    message(e)(ui);
}

/// The title of the log of recent messages a click on the status line opens.
pub const MESSAGE_LOG: &str = "Recent messages";

fn color(ui: &egui::Ui, is_error: bool) -> Color32 {
    if is_error {
        Color32::from_rgb(240, 110, 100)
    } else {
        ui.visuals().text_color()
    }
}

/// The last message, one line; a click opens the log of recent messages, whole and selectable (a long list of
/// left-out clips, an import's notes).
fn message(e: &EditorState) -> impl FnOnce(&mut egui::Ui) + '_ {
    move |ui| {
        let s = e.status();
        let line = ui
            .add(
                egui::Label::new(RichText::new(&s.text).color(color(ui, s.is_error)))
                    .truncate()
                    .sense(egui::Sense::click()),
            )
            .on_hover_text("Click: the recent messages, whole");
        egui::Popup::from_toggle_button_response(&line)
            .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
            .show(|ui| {
                ui.set_max_width(ui.ctx().content_rect().width() * 0.8);
                ui.label(RichText::new(MESSAGE_LOG).strong());
                let messages = &e.session().messages;
                if messages.is_empty() {
                    ui.label(RichText::new("none yet").weak());
                }
                egui::ScrollArea::vertical()
                    .max_height(ui.ctx().content_rect().height() * 0.6)
                    .show(ui, |ui| {
                        for m in messages.iter().rev() {
                            ui.add(
                                egui::Label::new(
                                    RichText::new(&m.text).color(color(ui, m.is_error)),
                                )
                                .wrap()
                                .selectable(true),
                            );
                            ui.separator();
                        }
                    });
            });
    }
}
