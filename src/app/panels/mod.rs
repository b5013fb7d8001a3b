//! The editor's panels, one per file (the inspector's tabs in `inspector/`). Each holds its own UI state only,
//! reads the [`EditorState`](super::editor::EditorState) and pushes [`Command`](super::command::Command)s.

pub mod curves;
pub mod inspector;
pub mod menu;
pub mod scene;
pub mod status_bar;
pub mod timeline;
pub mod viewport;

/// True when a widget other than a canvas has the keyboard (a text field being typed in): editor
/// shortcuts wait for it, and an undo step stays open while it lasts.
pub fn typing(ctx: &egui::Context) -> bool {
    // The canvases take focus for their keys (arrows, Delete) but are not typed in.
    let canvases = [
        inspector::blend::canvas_id(),
        inspector::blend::skate_map_canvas_id(),
        inspector::states::graph::graph_canvas_id(),
    ];
    ctx.memory(|m| m.focused().is_some_and(|f| !canvases.contains(&f)))
}
