//! The editor's panels, one per file (the inspector's tabs in `inspector/`). Each holds its own UI state only,
//! reads the [`EditorState`](super::editor::EditorState) and pushes [`Command`](super::command::Command)s.

pub mod curves;
pub mod inspector;
pub mod menu;
pub mod scene;
pub mod status_bar;
pub mod timeline;
pub mod viewport;

/// True when a widget other than the blend canvas has the keyboard (a text field being typed in): editor
/// shortcuts wait for it, and an undo step stays open while it lasts.
pub fn typing(ctx: &egui::Context) -> bool {
    ctx.memory(|m| {
        m.focused()
            .is_some_and(|f| f != inspector::blend::canvas_id())
    })
}
