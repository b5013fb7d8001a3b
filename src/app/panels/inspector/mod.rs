//! The inspector: tabs for the blend space, the clip, the selected joint and the layers, one file each.

pub mod blend;
pub mod clip;
pub mod clip_layers;
pub mod expressions;
pub mod humanoid;
pub mod joint;
pub mod layers;
pub mod springs;
pub mod states;

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
    /// The humanoid mapping.
    Humanoid,
    /// The procedural layers.
    Layers,
    /// Expression weights.
    Expressions,
    /// Spring bones.
    Springs,
    /// The state machine.
    States,
}

impl InspectorTab {
    /// Every tab, in display order.
    pub const ALL: [InspectorTab; 8] = [
        InspectorTab::Blend,
        InspectorTab::Clip,
        InspectorTab::Joint,
        InspectorTab::Humanoid,
        InspectorTab::Layers,
        InspectorTab::Expressions,
        InspectorTab::Springs,
        InspectorTab::States,
    ];

    /// What the tab shows, for its tooltip.
    pub fn help(self) -> &'static str {
        match self {
            InspectorTab::Blend => {
                "The blend space: mode, axes, nodes, the sample point and the weights"
            }
            InspectorTab::Clip => {
                "The clip playing and how its tracks found joints, or the blend state"
            }
            InspectorTab::Joint => {
                "The selected joint's local and model-space transform and human bone"
            }
            InspectorTab::Humanoid => {
                "Which joint plays each human bone; fix or change the mapping here"
            }
            InspectorTab::Layers => "Procedural layers: breath, twist correction, look-at",
            InspectorTab::Expressions => {
                "Expressions: a slider per face (or morph target) of the character"
            }
            InspectorTab::Springs => {
                "Spring bones: chains, stiffness, gravity, drag, colliders, and how they are stepped"
            }
            InspectorTab::States => {
                "The state machine: its graph, transitions with Unity's settings and a preview timeline, \
                 parameters, play, record and replay"
            }
        }
    }

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            InspectorTab::Blend => "Blend",
            InspectorTab::Clip => "Clip",
            InspectorTab::Joint => "Joint",
            InspectorTab::Humanoid => "Humanoid",
            InspectorTab::Layers => "Layers",
            InspectorTab::Expressions => "Face",
            InspectorTab::Springs => "Springs",
            InspectorTab::States => "States",
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
    clip: clip::ClipPanel,
    /// The state machine tab.
    pub states: states::StatesPanel,
}

impl Inspector {
    /// Draws the tab bar and the tab shown; `open` is set to `Some(false)` when the user hides the panel.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        e: &EditorState,
        out: &mut Commands,
        open: &mut Option<bool>,
    ) {
        // The hide button first, then the tabs wrapping after it: a right-aligned button on the tabs' row covered
        // the last tab's title when the row was full.
        ui.horizontal_wrapped(|ui| {
            if ui
                .small_button("»")
                .on_hover_text(
                    "Hide the inspector (the strip at the window's edge, or View, shows it again)",
                )
                .clicked()
            {
                *open = Some(false);
            }
            for tab in InspectorTab::ALL {
                if ui
                    .selectable_label(self.tab == tab, tab.title())
                    .on_hover_text(tab.help())
                    .clicked()
                {
                    self.tab = tab;
                }
            }
        });
        ui.separator();
        // Contents scroll both ways rather than widen the panel: its width is the user's. Each tab keeps its own
        // scroll offset, so a tab never opens scrolled to where another was left.
        egui::ScrollArea::both()
            .id_salt(("inspector scroll", self.tab.title()))
            .auto_shrink([false, false])
            .show(ui, |ui| match self.tab {
                InspectorTab::Blend => self.blend.ui(ui, e, out),
                InspectorTab::Clip => clip::ui(ui, e, out, &mut self.clip),
                InspectorTab::Joint => joint::ui(ui, e),
                InspectorTab::Humanoid => humanoid::ui(ui, e, out),
                InspectorTab::Layers => self.layers.ui(ui, e, out),
                InspectorTab::Expressions => expressions::ui(ui, e, out),
                InspectorTab::Springs => springs::ui(ui, e, out),
                InspectorTab::States => self.states.ui(ui, e, out),
            });
    }
}
