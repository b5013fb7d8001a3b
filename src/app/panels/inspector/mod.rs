//! The inspector: tabs for the blend space, the clip, the selected joint and the layers, one file each.

pub mod blend;
pub mod clip;
pub mod joint;
pub mod layers;

use crate::app::command::Commands;
use crate::app::editor::EditorState;
use blend::BlendPanel;
use layers::LayersPanel;

/// The inspector's tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InspectorTab {
    /// The blend space.
    #[default]
    Blend,
    /// The clip playing.
    Clip,
    /// The selected joint.
    Joint,
    /// The procedural layers.
    Layers,
}

impl InspectorTab {
    /// Every tab, in display order.
    pub const ALL: [InspectorTab; 4] = [
        InspectorTab::Blend,
        InspectorTab::Clip,
        InspectorTab::Joint,
        InspectorTab::Layers,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            InspectorTab::Blend => "Blend",
            InspectorTab::Clip => "Clip",
            InspectorTab::Joint => "Joint",
            InspectorTab::Layers => "Layers",
        }
    }
}

/// The inspector's UI state: the tab shown and the tabs' own state.
#[derive(Default)]
pub struct Inspector {
    /// The tab shown.
    pub tab: InspectorTab,
    /// The blend space tab.
    pub blend: BlendPanel,
    layers: LayersPanel,
}

impl Inspector {
    /// Draws the tab bar and the tab shown.
    pub fn ui(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        ui.horizontal(|ui| {
            for tab in InspectorTab::ALL {
                if ui.selectable_label(self.tab == tab, tab.title()).clicked() {
                    self.tab = tab;
                }
            }
        });
        ui.separator();
        egui::ScrollArea::vertical().show(ui, |ui| match self.tab {
            InspectorTab::Blend => self.blend.ui(ui, e, out),
            InspectorTab::Clip => clip::ui(ui, e),
            InspectorTab::Joint => joint::ui(ui, e),
            InspectorTab::Layers => self.layers.ui(ui, e, out),
        });
    }
}
