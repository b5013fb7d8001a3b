//! The inspector's Clip tab: the clip playing and how its tracks bound to the character.

use crate::app::editor::EditorState;

/// Tracks without a joint listed at most.
const UNBOUND_SHOWN: usize = 20;

/// Draws the tab.
pub fn ui(ui: &mut egui::Ui, e: &EditorState) {
    let (Some(i), Some(b)) = (e.clip(), e.binding()) else {
        ui.label("Rest pose (no clip)");
        return;
    };
    let clip = &e.doc().clips[i];
    ui.label(format!(
        "{}: {:.3} s, {} tracks",
        clip.name,
        clip.duration,
        clip.tracks.len()
    ));
    ui.label(format!(
        "Tracks without a joint: {}",
        b.unbound_tracks.len()
    ));
    for t in b.unbound_tracks.iter().take(UNBOUND_SHOWN) {
        ui.small(t);
    }
    ui.label(format!(
        "Joints without a track: {}",
        b.joints_without_track.len()
    ));
}
