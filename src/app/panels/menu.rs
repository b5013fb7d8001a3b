//! The menu bar: File (open, save a preset, export, recent files, the mannequin, quit), Edit (undo, redo) and
//! View (overlays, framing).

use std::path::PathBuf;

use crate::app::command::{CameraMove, Command, Commands};
use crate::app::editor::EditorState;
use crate::blend::RootMotion;
use crate::render::camera::ViewPreset;

/// What the menu asks of the window itself (beyond commands to the editor).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MenuRequests {
    /// Show the export window.
    pub export: bool,
}

/// The kinds of file the open dialogs offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenKind {
    /// A character (.glb, .gltf, .vrm).
    Model,
    /// Clips to add to the character: any file holding animation (models, .vrma, .animclip, Unity .bytes).
    Clips,
    /// A blend space or preset (.json).
    Preset,
}

/// Shows a file dialog for `kind` and sends the file to open, or says in the status bar that none was chosen.
pub fn open_dialog(kind: OpenKind, out: &mut Commands) {
    let dialog = match kind {
        OpenKind::Model => rfd::FileDialog::new().add_filter("models", &["glb", "gltf", "vrm"]),
        OpenKind::Clips => rfd::FileDialog::new().add_filter(
            "animation",
            &["glb", "gltf", "vrm", "vrma", "animclip", "bytes"],
        ),
        OpenKind::Preset => rfd::FileDialog::new().add_filter("presets", &["json"]),
    };
    out.push(match dialog.pick_file() {
        Some(path) if kind == OpenKind::Clips => Command::AddClips(path),
        Some(path) => Command::Open(path),
        None => Command::Report {
            text: "No file chosen (no file dialog available? drop the file on the window instead)"
                .into(),
            is_error: false,
        },
    });
}

fn save_preset_dialog(out: &mut Commands) {
    let picked: Option<PathBuf> = rfd::FileDialog::new()
        .add_filter("presets", &["json"])
        .set_file_name("preset.json")
        .save_file();
    out.push(match picked {
        // The save dialog has already asked before replacing an existing file.
        Some(path) => Command::SavePreset {
            path,
            overwrite: true,
        },
        None => Command::Report {
            text: "Not saved (no file chosen, or no file dialog available)".into(),
            is_error: false,
        },
    });
}

/// Draws the menu bar.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) -> MenuRequests {
    let mut requests = MenuRequests::default();
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| {
            if ui.button("Open model…  Ctrl+O").clicked() {
                open_dialog(OpenKind::Model, out);
            }
            if ui
                .button("Add clips from…")
                .on_hover_text(
                    "Adds the clips of another file (a model, .vrma, .animclip, Unity .bytes) to this \
                     character; you can also drop files on the clip list",
                )
                .clicked()
            {
                open_dialog(OpenKind::Clips, out);
            }
            if ui.button("Open blend space / preset…").clicked() {
                open_dialog(OpenKind::Preset, out);
            }
            if ui.button("Save preset…").clicked() {
                save_preset_dialog(out);
            }
            if ui.button("Export…  Ctrl+E").clicked() {
                requests.export = true;
            }
            ui.menu_button("Recent files", |ui| {
                let recent = &e.session().recent;
                if recent.is_empty() {
                    ui.label("none yet");
                }
                for p in recent {
                    if ui.button(p.display().to_string()).clicked() {
                        out.push(Command::Open(p.clone()));
                    }
                }
            });
            if ui.button("Mannequin (built-in)").clicked() {
                out.push(Command::LoadMannequin);
            }
            ui.separator();
            if ui.button("Quit").clicked() {
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            }
        });
        ui.menu_button("Edit", |ui| {
            let undo = egui::Button::new("Undo  Ctrl+Z");
            if ui.add_enabled(e.can_undo(), undo).clicked() {
                out.push(Command::Undo);
            }
            let redo = egui::Button::new("Redo  Ctrl+Shift+Z");
            if ui.add_enabled(e.can_redo(), redo).clicked() {
                out.push(Command::Redo);
            }
        });
        ui.menu_button("View", |ui| {
            let session = e.session();
            let mut skeleton = session.show_skeleton;
            if ui.checkbox(&mut skeleton, "Skeleton").changed() {
                out.push(Command::ShowSkeleton(skeleton));
            }
            let mut grid = session.show_grid;
            if ui.checkbox(&mut grid, "Grid").changed() {
                out.push(Command::ShowGrid(grid));
            }
            if ui.button("Frame model  F").clicked() {
                out.push(Command::Camera(CameraMove::Frame));
            }
            if ui.button("Reset view  Shift+F").clicked() {
                out.push(Command::Camera(CameraMove::Reset));
            }
            ui.menu_button("Views", |ui| {
                let keys = ["1", "Ctrl+1", "3", "Ctrl+3", "7", "Ctrl+7"];
                for (view, key) in ViewPreset::ALL.into_iter().zip(keys) {
                    if ui.button(format!("{}  {key}", view.name())).clicked() {
                        out.push(Command::Camera(CameraMove::View(view)));
                    }
                }
            });
            ui.separator();
            ui.label("Root motion of a clip");
            let mode = e.eval().clip_root_motion();
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
                .changed()
            {
                out.push(Command::FollowRoot(follow));
            }
            ui.separator();
            let mut onion = session.onion;
            let mut changed = ui.checkbox(&mut onion.enabled, "Onion skin").changed();
            ui.horizontal(|ui| {
                changed |= ui
                    .add(egui::DragValue::new(&mut onion.before).range(0..=8).prefix("before "))
                    .changed();
                changed |= ui
                    .add(egui::DragValue::new(&mut onion.after).range(0..=8).prefix("after "))
                    .changed();
                changed |= ui
                    .add(
                        egui::DragValue::new(&mut onion.step_frames)
                            .range(1..=60)
                            .prefix("every ")
                            .suffix(" frames"),
                    )
                    .changed();
            });
            if changed {
                out.push(Command::SetOnionSkin(onion));
            }
        });
    });
    requests
}
