//! The inspector's Clip tab: the clip playing and how its tracks bound to the character, or, while the blend
//! space plays, its state (the point, the cycle, each node's weight and time).

use crate::app::editor::EditorState;

/// Tracks without a joint listed at most.
const UNBOUND_SHOWN: usize = 20;

/// Draws the tab.
pub fn ui(ui: &mut egui::Ui, e: &EditorState) {
    if e.blending() {
        let blend = &e.tuning().blend;
        ui.label(format!(
            "Blend space playing: {} ({} nodes)",
            blend.mode.label(),
            blend.nodes.len()
        ));
        let p = blend.point;
        ui.label(format!(
            "Point {:.3}, {:.3}; cycle {:.3} s; at {:.3} s",
            p[0],
            p[1],
            e.eval().duration(),
            e.eval().time()
        ));
        for (node, w) in blend.nodes.iter().zip(e.blend_weights()) {
            if *w > 0.0 {
                ui.label(format!("{}  weight {w:.3}", node.clip));
            }
        }
        ui.label("Pick a single clip in the clip list to see its tracks here.");
        return;
    }
    let (Some(i), Some(b)) = (e.clip(), e.binding()) else {
        ui.label("Rest pose: no clip or blend space is playing.");
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
        ui.add(egui::Label::new(t).truncate()).on_hover_text(t);
    }
    ui.label(format!(
        "Joints without a track: {}",
        b.joints_without_track.len()
    ));
}
