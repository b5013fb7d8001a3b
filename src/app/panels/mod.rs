//! The editor's panels, one per file. Each holds its own UI state only, reads the
//! [`EditorState`](super::editor::EditorState) and pushes [`Command`](super::command::Command)s.

pub mod blend;
pub mod clip_info;
pub mod export;
pub mod inspector;
pub mod joint_info;
pub mod layers;
pub mod menu;
pub mod scene;
pub mod status_bar;
pub mod timeline;
pub mod viewport;

/// True when a widget other than the blend canvas has the keyboard (a text field being typed in): editor
/// shortcuts wait for it, and an undo step stays open while it lasts.
pub fn typing(ctx: &egui::Context) -> bool {
    ctx.memory(|m| m.focused().is_some_and(|f| f != blend::canvas_id()))
}
