//! The in-app file browser (used where the platform has no file dialog) behaves as the platform dialogs do: a
//! typed name or path is what Open opens, names sort ignoring case with folders first, and only a save offers
//! New Folder.

use std::path::Path;

use crate::common;

use animtune::app::AnimtuneApp;
use animtune::app::command::{Command, Purpose};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::ui_panels::built_in_browser_harness;

/// Types `text` into the focused field over what it holds.
fn retype(h: &mut Harness<'static, AnimtuneApp>, text: &str) {
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.event(egui::Event::Text(text.into()));
    h.run_steps(1);
}

/// Opens a dialog for `purpose` in the built-in browser and goes to `dir` by typing it in the browser's folder
/// field.
fn browse(h: &mut Harness<'static, AnimtuneApp>, purpose: Purpose, dir: &Path) {
    h.state_mut().send(Command::ChooseFile(purpose));
    h.run_steps(3);
    assert!(h.state().file_dialog_open(), "no file dialog");
    // The folder field: the text field holding the path of a folder.
    h.get_all_by_role(Role::TextInput)
        .find(|n| {
            n.accesskit_node()
                .value()
                .is_some_and(|v| Path::new(&*v).is_absolute() && Path::new(&*v).is_dir())
        })
        .expect("the browser's folder field")
        .focus();
    h.run_steps(1);
    retype(h, dir.to_str().unwrap());
    h.key_press(egui::Key::Enter);
    h.run_steps(2);
}

/// The labels of the browser's rows, top to bottom.
fn rows(h: &Harness<'static, AnimtuneApp>) -> Vec<String> {
    let mut rows: Vec<(f32, String)> = h
        .query_all_by(|n| {
            n.label()
                .is_some_and(|l| l.starts_with("🗀 ") || l.starts_with("🗋 "))
        })
        .map(|n| (n.rect().top(), n.accesskit_node().label().unwrap()))
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    rows.into_iter().map(|(_, l)| l).collect()
}

#[test]
fn the_browser_lists_folders_first_then_names_ignoring_case() {
    let dir = common::temp_dir("browser-sort");
    for f in ["b.glb", "A.glb", "C.glb", "notes.txt"] {
        std::fs::write(dir.join(f), b"").unwrap();
    }
    for d in ["zeta", "Beta"] {
        std::fs::create_dir(dir.join(d)).unwrap();
    }
    let mut h = built_in_browser_harness();
    browse(
        &mut h,
        Purpose::Open(animtune::app::command::OpenKind::Model),
        &dir,
    );
    assert_eq!(
        rows(&h),
        ["🗀 Beta", "🗀 zeta", "🗋 A.glb", "🗋 b.glb", "🗋 C.glb"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn open_takes_the_typed_name_and_a_missing_one_is_named_in_the_status_bar() {
    let dir = common::temp_dir("browser-typed");
    std::os::unix::fs::symlink(common::asset("RobotExpressive.glb"), dir.join("Robot.glb"))
        .unwrap();
    let mut h = built_in_browser_harness();
    browse(
        &mut h,
        Purpose::Open(animtune::app::command::OpenKind::Model),
        &dir,
    );
    // A name that is no file: Enter says so in the status bar, naming it, and the browser stays open.
    h.get_by_role_and_label(Role::TextInput, "File name:")
        .focus();
    h.run_steps(1);
    retype(&mut h, "Robt.glb");
    h.key_press(egui::Key::Enter);
    h.run_steps(2);
    let status = h.state().editor().status();
    assert!(
        status.is_error
            && status
                .text
                .contains(&*dir.join("Robt.glb").to_string_lossy()),
        "{status:?}"
    );
    assert!(h.state().file_dialog_open(), "the browser closed");
    // The name corrected (no row clicked), Open opens it.
    h.get_by_role_and_label(Role::TextInput, "File name:")
        .focus();
    h.run_steps(1);
    retype(&mut h, "Robot.glb");
    h.get_by_role_and_label(Role::Button, "Open").click();
    h.run_steps(4);
    assert!(!h.state().file_dialog_open(), "the browser is still open");
    assert_eq!(
        h.state().editor().doc().name,
        "Robot.glb",
        "{}",
        h.state().editor().status().text
    );
    // A path relative to the folder shown, typed with Enter, opens too.
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink(
        common::asset("RobotExpressive.glb"),
        dir.join("sub/Other.glb"),
    )
    .unwrap();
    browse(
        &mut h,
        Purpose::Open(animtune::app::command::OpenKind::Model),
        &dir,
    );
    h.get_by_role_and_label(Role::TextInput, "File name:")
        .focus();
    h.run_steps(1);
    retype(&mut h, "sub/Other.glb");
    h.key_press(egui::Key::Enter);
    h.run_steps(4);
    assert_eq!(h.state().editor().doc().name, "Other.glb");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn new_folder_is_offered_when_saving_only() {
    let dir = common::temp_dir("browser-new-folder");
    let mut h = built_in_browser_harness();
    for purpose in [
        Purpose::Open(animtune::app::command::OpenKind::Model),
        Purpose::Open(animtune::app::command::OpenKind::Clips),
        Purpose::Open(animtune::app::command::OpenKind::Preset),
        Purpose::OpenScript,
    ] {
        browse(&mut h, purpose, &dir);
        assert!(
            h.query_by_role_and_label(Role::Button, "New Folder")
                .is_none(),
            "{purpose:?} offers New Folder"
        );
        h.key_press(egui::Key::Escape);
        h.run_steps(2);
        assert!(!h.state().file_dialog_open());
    }
    for purpose in [
        Purpose::ExportFile("glb"),
        Purpose::ExportFolder,
        Purpose::SaveScript,
    ] {
        browse(&mut h, purpose, &dir);
        assert!(
            h.query_by_role_and_label(Role::Button, "New Folder")
                .is_some(),
            "{purpose:?} offers no New Folder"
        );
        h.key_press(egui::Key::Escape);
        h.run_steps(2);
    }
    // Saving a preset: New Folder creates the folder named and goes into it.
    browse(&mut h, Purpose::SavePreset, &dir);
    h.get_by_role_and_label(Role::Button, "New Folder").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::TextInput, "New folder:")
        .focus();
    h.run_steps(1);
    retype(&mut h, "takes");
    h.get_by_role_and_label(Role::Button, "Create").click();
    h.run_steps(2);
    assert!(dir.join("takes").is_dir());
    let inside = dir.join("takes").display().to_string();
    assert!(
        h.get_all_by_role(Role::TextInput)
            .any(|n| n.accesskit_node().value().as_deref() == Some(inside.as_str())),
        "the browser did not go into the new folder"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
