//! The window that asks which controller to open when a Unity project folder holds several: one button per
//! controller (its path in the project), and Cancel. Shown while the session lists choices.

use crate::app::command::{Command, Commands};
use crate::app::editor::EditorState;

/// The window's title (tests find it by this).
pub const TITLE: &str = "Open which controller?";

/// Draws the window while `e`'s session lists controllers to choose from.
pub fn ui(ctx: &egui::Context, e: &EditorState, out: &mut Commands) {
    let choices = &e.session().controller_choice;
    if choices.is_empty() {
        return;
    }
    let root = common_folder(choices);
    egui::Window::new(TITLE)
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(ctx, |ui| {
            ui.label(
                "This project holds several animator controllers. Open one as the state machine:",
            );
            egui::ScrollArea::vertical()
                .max_height(ctx.content_rect().height() * 0.6)
                .show(ui, |ui| {
                    for path in choices {
                        let shown = path
                            .strip_prefix(&root)
                            .unwrap_or(path)
                            .display()
                            .to_string();
                        if ui
                            .button(&shown)
                            .on_hover_text(path.display().to_string())
                            .clicked()
                        {
                            out.push(Command::Open(path.clone()));
                        }
                    }
                });
            if ui.button("Cancel").clicked() {
                out.push(Command::DismissControllerChoice);
            }
        });
}

/// The deepest folder holding every path, so the list shows paths inside the project.
fn common_folder(paths: &[std::path::PathBuf]) -> std::path::PathBuf {
    let mut root = paths[0].parent().unwrap_or(&paths[0]).to_path_buf();
    while !paths.iter().all(|p| p.starts_with(&root)) {
        if !root.pop() {
            break;
        }
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_list_shows_paths_below_the_folder_they_share() {
        let paths = [
            PathBuf::from("/p/Assets/A/x.controller"),
            PathBuf::from("/p/Assets/B/y.controller"),
        ];
        assert_eq!(common_folder(&paths), PathBuf::from("/p/Assets"));
        assert_eq!(common_folder(&paths[..1]), PathBuf::from("/p/Assets/A"));
    }
}
