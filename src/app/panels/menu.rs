//! The menu bar: File (open, save a preset, export, recent files, the mannequin, quit), Edit (undo, redo),
//! View (overlays, framing, panels, UI scale) and Help (the shortcuts).

use crate::app::command::{CameraMove, Command, Commands};
use crate::app::command::{OpenKind, Purpose};
use crate::app::editor::EditorState;
use crate::app::state::layout::DialogChoice;
use crate::app::state::layout::{Layout, UI_SCALES};
use crate::blend::RootMotion;
use crate::render::camera::ViewPreset;

/// What the menu asks of the window itself (beyond commands to the editor).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MenuRequests {
    /// Show the export window.
    pub export: bool,
}

/// Every keyboard shortcut, as the Help menu lists it: (keys, what they do).
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("Space", "Play / pause"),
    ("Home / End", "Go to the start / end"),
    (
        "Left / Right arrow",
        "Step one frame back / forward (with the blend canvas focused: move the point)",
    ),
    (
        "I / O",
        "Set the in / out point at the playhead (a single clip's: not while a blend space plays)",
    ),
    ("Alt+I", "Clear the in/out range"),
    ("F", "Frame the character"),
    ("Shift+F", "Reset the view"),
    (
        "1 / 3 / 7",
        "Front / right / top view (Ctrl: the opposite side)",
    ),
    ("Ctrl+O", "Open a model"),
    ("Ctrl+E", "Export"),
    ("Ctrl+Z / Ctrl+Shift+Z", "Undo / redo (Ctrl+Y redoes too)"),
    ("Ctrl+= / Ctrl+- / Ctrl+0", "UI scale up / down / reset"),
    ("Escape", "Close a menu, a dialog or the export window"),
    ("Alt+click (viewport)", "Place the look-at target"),
    (
        "Drag / Shift+drag the target (viewport)",
        "Move the look-at target across / toward or away from the camera",
    ),
    (
        "Drag (viewport)",
        "Orbit; right or middle drag pans, wheel zooms",
    ),
    (
        "A trigger's key (States tab)",
        "Fire that trigger while the state machine plays",
    ),
    (
        "Delete (state machine graph)",
        "Delete the selected state or transition",
    ),
];

/// A menu entry with a tooltip; true when clicked.
fn item(ui: &mut egui::Ui, text: &str, tip: &str) -> bool {
    ui.button(text).on_hover_text(tip).clicked()
}

/// Draws the menu bar; `layout` is the window's (panels, UI scale, which file dialog). `dismiss`: a key that
/// closes menus (Escape) or acts without them (undo, redo) was pressed, so an open menu closes.
pub fn ui(
    ui: &mut egui::Ui,
    e: &EditorState,
    layout: &mut Layout,
    out: &mut Commands,
    dismiss: bool,
) -> MenuRequests {
    let mut requests = MenuRequests::default();
    let close_on_dismiss = |ui: &mut egui::Ui| {
        if dismiss {
            ui.close();
        }
    };
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| {
            close_on_dismiss(ui);
            if item(ui, "Open model…  Ctrl+O", "Open a .glb, .gltf, .vrm or .fbx character (or drop it on the window)") {
                out.push(Command::ChooseFile(Purpose::Open(OpenKind::Model)));
            }
            if item(
                ui,
                "Add clips from…",
                "Adds the clips of another file (a model, .fbx, .vrma, .animclip, Unity .bytes) to this character; you \
                 can also drop files on the clip list",
            ) {
                out.push(Command::ChooseFile(Purpose::Open(OpenKind::Clips)));
            }
            if item(
                ui,
                "Open blend space / preset…",
                "Open a blend space or preset (.json): its blend space, layers, humanoid override and clip files",
            ) {
                out.push(Command::ChooseFile(Purpose::Open(OpenKind::Preset)));
            }
            if item(
                ui,
                "Open Unity controller…",
                "Open a Unity AnimatorController (.controller) from a Unity project: its base layer becomes the \
                 state machine (States tab), its clips join the clip list (found through the project's .meta files)",
            ) {
                out.push(Command::ChooseFile(Purpose::Open(OpenKind::UnityController)));
            }
            if item(
                ui,
                "Open Unity project…",
                "Open a Unity project folder (or a folder inside its Assets): its animator controller plays as the \
                 state machine, its clips join the clip list; where it has several controllers you pick one",
            ) {
                out.push(Command::ChooseFile(Purpose::Open(OpenKind::UnityProject)));
            }
            if item(
                ui,
                "Save preset…",
                "Save the blend space, layers, humanoid override and the clip files as a preset (.json)",
            ) {
                out.push(Command::ChooseFile(Purpose::SavePreset));
            }
            if item(ui, "Export…  Ctrl+E", "Bake what plays to glTF, .animclip or the Unity layout") {
                requests.export = true;
            }
            ui.menu_button("Recent files", |ui| {
                let recent = &e.session().recent;
                if recent.is_empty() {
                    ui.label("none yet");
                }
                for p in recent {
                    if item(ui, &p.display().to_string(), "Open this file again") {
                        out.push(Command::Open(p.clone()));
                    }
                }
            })
            .response
            .on_hover_text("Files opened lately, newest first");
            if item(ui, "Mannequin (built-in)", "Go back to the built-in mannequin and its locomotion clips") {
                out.push(Command::LoadMannequin);
            }
            let mut in_app = layout.file_dialog == DialogChoice::InApp;
            if ui
                .checkbox(&mut in_app, "Built-in file browser")
                .on_hover_text(
                    "Always use the file browser inside the window instead of the system's dialog (it is used \
                     anyway where the system has none)",
                )
                .changed()
            {
                layout.file_dialog = if in_app {
                    DialogChoice::InApp
                } else {
                    DialogChoice::Automatic
                };
            }
            ui.separator();
            if item(ui, "Quit", "Close animtune (the layout and recent files are kept)") {
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            }
        })
        .response
        .on_hover_text("Open, save, export");
        ui.menu_button("Edit", |ui| {
            close_on_dismiss(ui);
            let undo = egui::Button::new("Undo  Ctrl+Z");
            let tip = "Undo the last change to the blend space, layers or humanoid mapping";
            if ui
                .add_enabled(e.can_undo(), undo)
                .on_hover_text(tip)
                .on_disabled_hover_text(tip)
                .clicked()
            {
                out.push(Command::Undo);
            }
            let redo = egui::Button::new("Redo  Ctrl+Shift+Z");
            let tip = "Redo what was undone";
            if ui
                .add_enabled(e.can_redo(), redo)
                .on_hover_text(tip)
                .on_disabled_hover_text(tip)
                .clicked()
            {
                out.push(Command::Redo);
            }
        })
        .response
        .on_hover_text("Undo and redo");
        ui.menu_button("View", |ui| {
            close_on_dismiss(ui);
            // A short window scrolls the menu rather than cutting it at the screen's edge.
            let room = ui.ctx().content_rect().bottom() - ui.min_rect().top() - 8.0;
            egui::ScrollArea::vertical()
                .max_height(room.max(80.0))
                .show(ui, |ui| {
            let session = e.session();
            let mut skeleton = session.show_skeleton;
            if ui
                .checkbox(&mut skeleton, "Skeleton")
                .on_hover_text("Draw the joints and bones over the mesh (joints can then be clicked)")
                .changed()
            {
                out.push(Command::ShowSkeleton(skeleton));
            }
            let mut grid = session.show_grid;
            if ui
                .checkbox(&mut grid, "Grid")
                .on_hover_text("Draw the ground grid (its spacing follows the character's size)")
                .changed()
            {
                out.push(Command::ShowGrid(grid));
            }
            let mut springs = session.show_springs;
            if ui
                .checkbox(&mut springs, "Springs and colliders")
                .on_hover_text(
                    "Draw the spring joints (yellow, to their tails) and the colliders they bounce off (magenta)",
                )
                .changed()
            {
                out.push(Command::ShowSprings(springs));
            }
            if item(ui, "Frame model  F", "Fit the character in the viewport") {
                out.push(Command::Camera(CameraMove::Frame));
            }
            if item(ui, "Reset view  Shift+F", "Front view, framed") {
                out.push(Command::Camera(CameraMove::Reset));
            }
            ui.menu_button("Views", |ui| {
                let keys = ["1", "Ctrl+1", "3", "Ctrl+3", "7", "Ctrl+7"];
                for (view, key) in ViewPreset::ALL.into_iter().zip(keys) {
                    if item(ui, &format!("{}  {key}", view.name()), "Look from this side, framed") {
                        out.push(Command::Camera(CameraMove::View(view)));
                    }
                }
            })
            .response
            .on_hover_text("Front, back, sides, top, bottom");
            ui.separator();
            ui.checkbox(&mut layout.scene_open, "Scene panel")
                .on_hover_text("The left panel: the character, its clips and skeleton");
            ui.checkbox(&mut layout.inspector_open, "Inspector")
                .on_hover_text("The right panel: blend space, clip, joint, humanoid and layers");
            ui.checkbox(&mut layout.curves_open, "Curves view").on_hover_text(
                "The selected joint's curves, docked below the viewport (drag its tab to move it)",
            );
            ui.checkbox(&mut layout.skate_map_open, "Skate map panel").on_hover_text(
                "The blend space's skate map in a docked pane beside the viewport, as large as you make it",
            );
            ui.menu_button("UI scale", |ui| {
                let zoom = ui.ctx().zoom_factor();
                for scale in UI_SCALES {
                    let text = format!("{:.0} %", scale * 100.0);
                    if ui
                        .radio((zoom - scale).abs() < 0.01, text)
                        .on_hover_text("Ctrl+= and Ctrl+- step the scale, Ctrl+0 resets it")
                        .clicked()
                    {
                        ui.ctx().set_zoom_factor(scale);
                    }
                }
            })
            .response
            .on_hover_text("Size of all text and controls (Ctrl+= / Ctrl+-)");
            ui.separator();
            ui.label("Root motion of a clip");
            let mode = e.eval().source().clip_root_motion();
            for (m, name, tip) in [
                (RootMotion::Keep, "Keep", "The hips travel as authored; loops walk on, the camera follows"),
                (RootMotion::InPlace, "In place", "The clip's average horizontal travel is removed"),
            ] {
                if ui.radio(mode == m, name).on_hover_text(tip).clicked() {
                    out.push(Command::SetClipRootMotion(m));
                }
            }
            let mut follow = session.follow_root;
            if ui
                .checkbox(&mut follow, "Camera follows the root")
                .on_hover_text("While a clip's motion is kept, the camera moves with the character")
                .changed()
            {
                out.push(Command::FollowRoot(follow));
            }
            ui.separator();
            let mut onion = session.onion;
            let mut changed = ui
                .checkbox(&mut onion.enabled, "Onion skin")
                .on_hover_text("Ghosts of the poses before (red) and after (green) the current time")
                .changed();
            ui.horizontal(|ui| {
                changed |= ui
                    .add(egui::DragValue::new(&mut onion.before).update_while_editing(false).range(0..=8).prefix("before "))
                    .on_hover_text("Ghosts before the current time")
                    .changed();
                changed |= ui
                    .add(egui::DragValue::new(&mut onion.after).update_while_editing(false).range(0..=8).prefix("after "))
                    .on_hover_text("Ghosts after the current time")
                    .changed();
                changed |= ui
                    .add(
                        egui::DragValue::new(&mut onion.step_frames).update_while_editing(false)
                            .range(1..=60)
                            .prefix("every ")
                            .suffix(" frames"),
                    )
                    .on_hover_text("Frames between ghosts")
                    .changed();
            });
            if changed {
                out.push(Command::SetOnionSkin(onion));
            }
            });
        })
        .response
        .on_hover_text("Overlays, camera, panels, UI scale, root motion, onion skin");
        ui.menu_button("Help", |ui| {
            close_on_dismiss(ui);
            ui.label(egui::RichText::new("Keyboard shortcuts").strong());
            egui::Grid::new("shortcuts").striped(true).show(ui, |ui| {
                for (keys, what) in SHORTCUTS {
                    ui.monospace(*keys);
                    ui.label(*what);
                    ui.end_row();
                }
            });
            ui.separator();
            ui.label("Every control has a tooltip: hover it. docs/ has the rest.");
        })
        .response
        .on_hover_text("Keyboard shortcuts");
    });
    requests
}
