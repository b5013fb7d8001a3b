//! File dialogs that always work: the platform's dialog (rfd) on its own thread, so the window keeps
//! repainting while it is open, or, where the platform has none (no XDG portal and no zenity on Linux, or the
//! platform dialog came back at once without a file), the in-app [`Browser`].

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::browser::{Browser, Mode, Outcome};
use crate::app::command::{OpenKind, Purpose};
use crate::app::editor::EditorState;
use crate::app::state::layout::DialogChoice;

/// A platform dialog that returns sooner than this with no file was not shown to anyone: it is unavailable.
const TOO_FAST_TO_BE_A_USER: Duration = Duration::from_millis(250);

impl Purpose {
    fn title(self) -> &'static str {
        match self {
            Purpose::Open(OpenKind::Model) => "Open a model",
            Purpose::Open(OpenKind::Clips) => "Add clips from a file",
            Purpose::Open(OpenKind::Preset) => "Open a blend space or preset",
            Purpose::Open(OpenKind::UnityController) => "Open a Unity controller",
            Purpose::Open(OpenKind::UnityProject) => "Open a Unity project folder",
            Purpose::SavePreset => "Save the preset",
            Purpose::ExportFile(_) => "Export to",
            Purpose::ExportFolder => "Export into the folder",
            Purpose::OpenScript => "Open a parameter script",
            Purpose::SaveScript => "Save the parameter script",
        }
    }

    /// Extensions the dialog lists (empty: folders only).
    fn extensions(self) -> &'static [&'static str] {
        match self {
            Purpose::Open(OpenKind::Model) => &["glb", "gltf", "vrm", "fbx"],
            Purpose::Open(OpenKind::Clips) => &[
                "glb", "gltf", "vrm", "vrma", "fbx", "animclip", "bytes", "anim",
            ],
            Purpose::Open(OpenKind::UnityController) => &["controller", "overrideController"],
            Purpose::Open(OpenKind::Preset)
            | Purpose::SavePreset
            | Purpose::OpenScript
            | Purpose::SaveScript => &["json"],
            Purpose::ExportFile("glb") => &["glb"],
            Purpose::ExportFile("animclip") => &["animclip"],
            Purpose::ExportFile(_) => &["bytes"],
            Purpose::Open(OpenKind::UnityProject) | Purpose::ExportFolder => &[],
        }
    }
}

/// True when the platform can show its own file dialog: always on Windows and macOS; on Linux and the BSDs
/// when a session bus (for the XDG desktop portal) or zenity is there. `ANIMTUNE_FILE_DIALOG=in-app` says no.
pub fn platform_dialog_available() -> bool {
    if std::env::var("ANIMTUNE_FILE_DIALOG").is_ok_and(|v| v == "in-app") {
        return false;
    }
    if cfg!(any(target_os = "windows", target_os = "macos")) {
        return true;
    }
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
    let zenity = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("zenity").is_file()));
    bus || zenity
}

/// A platform dialog running on its own thread.
struct Native {
    purpose: Purpose,
    /// The name it suggested, for the in-app browser should the platform have no dialog.
    file_name: Option<String>,
    started: Instant,
    done: mpsc::Receiver<Option<PathBuf>>,
}

/// The editor's file dialogs: at most one open at a time.
#[derive(Default)]
pub struct FileDialogs {
    /// Which dialog to use.
    pub choice: DialogChoice,
    native: Option<Native>,
    browser: Option<(Purpose, Browser)>,
    /// The platform dialog came back at once without a file: use the in-app browser from now on.
    platform_failed: bool,
}

/// Where a dialog starts: beside the model, else the most recent file, else the working directory.
fn start_folder(e: &EditorState) -> PathBuf {
    let model = std::path::Path::new(&e.doc().key);
    let beside_model = model.is_absolute().then(|| model.parent()).flatten();
    beside_model
        .map(Path::to_path_buf)
        .or_else(|| {
            e.session()
                .recent
                .first()
                .and_then(|p| p.parent())
                .map(Path::to_path_buf)
        })
        .filter(|d| d.is_dir())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

impl FileDialogs {
    /// True while a dialog is open.
    pub fn is_open(&self) -> bool {
        self.native.is_some() || self.browser.is_some()
    }

    /// True when dialogs open in the window rather than as the platform's.
    pub fn uses_in_app(&self) -> bool {
        self.choice == DialogChoice::InApp || self.platform_failed || !platform_dialog_available()
    }

    /// Opens a dialog to choose a file to open of `kind`.
    pub fn open(&mut self, kind: OpenKind, e: &EditorState) {
        self.start(Purpose::Open(kind), e, None);
    }

    /// Opens a dialog for `purpose`, suggesting `file_name` where it saves.
    pub fn start(&mut self, purpose: Purpose, e: &EditorState, file_name: Option<&str>) {
        if self.is_open() {
            return;
        }
        let folder = start_folder(e);
        if self.uses_in_app() {
            self.open_browser(purpose, folder, file_name);
            return;
        }
        let mut dialog = rfd::FileDialog::new()
            .set_directory(&folder)
            .set_title(purpose.title());
        if !purpose.extensions().is_empty() {
            dialog = dialog.add_filter(purpose.title(), purpose.extensions());
        }
        if let Some(name) = file_name {
            dialog = dialog.set_file_name(name);
        }
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let picked = match purpose {
                Purpose::Open(OpenKind::UnityProject) | Purpose::ExportFolder => {
                    dialog.pick_folder()
                }
                Purpose::Open(_) | Purpose::OpenScript => dialog.pick_file(),
                Purpose::SavePreset | Purpose::SaveScript | Purpose::ExportFile(_) => {
                    dialog.save_file()
                }
            };
            let _ = tx.send(picked);
        });
        self.native = Some(Native {
            purpose,
            file_name: file_name.map(str::to_string),
            started: Instant::now(),
            done: rx,
        });
    }

    fn open_browser(&mut self, purpose: Purpose, folder: PathBuf, file_name: Option<&str>) {
        let mode = match purpose {
            Purpose::Open(OpenKind::UnityProject) | Purpose::ExportFolder => Mode::Folder,
            Purpose::Open(_) | Purpose::OpenScript => Mode::Open,
            Purpose::SavePreset | Purpose::SaveScript | Purpose::ExportFile(_) => Mode::Save,
        };
        let browser = Browser::new(
            mode,
            purpose.title(),
            purpose.extensions(),
            folder,
            file_name,
        );
        self.browser = Some((purpose, browser));
    }

    /// Draws the in-app browser when open and collects a chosen path. Returns (purpose, path) when the user
    /// chose one, a status line when a dialog ended without one, and an error when the browser refused what was
    /// typed (it stays open).
    pub fn poll(&mut self, ctx: &egui::Context, e: &EditorState) -> Polled {
        if let Some(native) = &self.native {
            ctx.request_repaint_after(Duration::from_millis(100));
            let Ok(picked) = native.done.try_recv() else {
                return Polled::Nothing;
            };
            let (purpose, fast) = (
                native.purpose,
                native.started.elapsed() < TOO_FAST_TO_BE_A_USER,
            );
            let file_name = native.file_name.clone();
            self.native = None;
            return match picked {
                Some(path) => Polled::Chosen(purpose, path),
                None if fast => {
                    // Nobody could have cancelled that fast: the platform has no dialog to show.
                    self.platform_failed = true;
                    self.open_browser(purpose, start_folder(e), file_name.as_deref());
                    Polled::Note(
                        "The system file dialog did not open; using the built-in file browser"
                            .into(),
                    )
                }
                None => Polled::Note("No file chosen".into()),
            };
        }
        let Some((purpose, browser)) = &mut self.browser else {
            return Polled::Nothing;
        };
        let purpose = *purpose;
        match browser.show(ctx) {
            Outcome::Open => Polled::Nothing,
            Outcome::Failed(text) => Polled::Error(text),
            Outcome::Chosen(path) => {
                self.browser = None;
                Polled::Chosen(purpose, path)
            }
            Outcome::Cancelled => {
                self.browser = None;
                Polled::Note("No file chosen".into())
            }
        }
    }
}

/// What [`FileDialogs::poll`] found this frame.
#[derive(Debug, PartialEq)]
pub enum Polled {
    /// Still open, or none open.
    Nothing,
    /// The user chose a path.
    Chosen(Purpose, PathBuf),
    /// A dialog ended without a path, or fell back to the in-app browser: a status line.
    Note(String),
    /// The in-app browser refused what was typed (a file that does not exist…): an error for the status bar.
    Error(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purposes_list_their_extensions() {
        assert!(
            Purpose::Open(OpenKind::Clips)
                .extensions()
                .contains(&"vrma")
        );
        assert_eq!(Purpose::ExportFile("glb").extensions(), ["glb"]);
        assert!(Purpose::ExportFolder.extensions().is_empty());
    }
}
