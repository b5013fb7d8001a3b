//! The window's layout that survives a restart: which panels are open, the UI scale, the file dialog.

/// Which dialog the user wants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DialogChoice {
    /// The platform's dialog where there is one, else the in-app browser.
    #[default]
    Automatic,
    /// Always the in-app browser.
    InApp,
}

/// The window's layout that survives a restart (egui's own memory, with panel widths and scroll offsets, does not).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Layout {
    /// The scene panel (clips, skeleton) is open.
    pub scene_open: bool,
    /// The inspector is open.
    pub inspector_open: bool,
    /// UI scale (egui's zoom factor; Ctrl+= and Ctrl+- change it, Ctrl+0 resets).
    pub ui_scale: f32,
    /// Which file dialog to use.
    pub file_dialog: DialogChoice,
    /// The curves pane is open.
    pub curves_open: bool,
    /// The skate map pane is open.
    pub skate_map_open: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            scene_open: true,
            inspector_open: true,
            ui_scale: 1.0,
            file_dialog: DialogChoice::Automatic,
            curves_open: false,
            skate_map_open: false,
        }
    }
}

/// UI scales offered in the View menu.
pub const UI_SCALES: [f32; 6] = [0.75, 1.0, 1.25, 1.5, 1.75, 2.0];
