//! The in-app file browser: the file dialog drawn inside the window where the platform has none, behaving as the
//! GTK, Windows and macOS dialogs do.
//!
//! - The list shows folders first, then files, each sorted by name ignoring case; files are those with one of the
//!   purpose's extensions (none when choosing a folder); names starting with `.` only with Show hidden.
//! - The name field takes a file name, a path relative to the folder shown, a full path or `~/…`. Enter there, or
//!   Open/Save, chooses the file it names; a name that is a folder is entered instead. Opening a name that is no
//!   file is refused with a message naming it ([`Outcome::Failed`]) and the browser stays open to correct it;
//!   saving into a folder that does not exist likewise.
//! - The folder field at the top takes a folder or a full path to a file: Enter goes there (or, when opening,
//!   opens the file).
//! - A click selects an entry (a file's name goes to the name field), a double-click enters a folder or chooses a
//!   file. New Folder is offered only where something is saved (a file or a folder to export into); it creates
//!   the folder and enters it.
//! - Escape, Cancel or the window's close button end it with [`Outcome::Cancelled`].

use std::path::{Component, Path, PathBuf};

use egui::{Key, TextEdit};

/// What the browser chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// An existing file to open.
    Open,
    /// A file name to save to (it may exist: the caller decides whether to replace it).
    Save,
    /// A folder (to export into).
    Folder,
}

/// What a frame of the browser ended with.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// Still open, nothing chosen.
    Open,
    /// The user chose this path; the browser is done.
    Chosen(PathBuf),
    /// The user cancelled; the browser is done.
    Cancelled,
    /// What the user asked for cannot be done (the message names the path); the browser stays open.
    Failed(String),
}

/// One row of the list.
#[derive(Clone, Debug)]
struct Entry {
    name: String,
    path: PathBuf,
    is_dir: bool,
}

/// An open in-app browser.
pub struct Browser {
    mode: Mode,
    title: String,
    extensions: &'static [&'static str],
    folder: PathBuf,
    folder_text: String,
    entries: Result<Vec<Entry>, String>,
    selected: Option<Entry>,
    name: String,
    show_hidden: bool,
    /// The name being typed for a new folder, while that row shows.
    new_folder: Option<String>,
    /// The name field takes the keyboard on the first frame.
    focus_name: bool,
}

/// The name that a new folder in `dir` starts with: "New folder", numbered when taken.
fn unused_folder_name(dir: &Path) -> String {
    (1..1000)
        .map(|n| match n {
            1 => "New folder".to_string(),
            n => format!("New folder {n}"),
        })
        .find(|name| dir.join(name).symlink_metadata().is_err())
        .unwrap_or_else(|| "New folder".into())
}

/// `path` with `.` and `..` resolved by name (as a shell's `cd` does), so that the parent button goes up.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            c => out.push(c),
        }
    }
    out
}

/// The folder's entries as the list shows them: folders first, then files, each by name ignoring case (then by
/// name, so names differing only in case keep one order).
fn read_folder(
    dir: &Path,
    mode: Mode,
    extensions: &[&str],
    show_hidden: bool,
) -> Result<Vec<Entry>, String> {
    let read = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut entries: Vec<Entry> = read
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !show_hidden && name.starts_with('.') {
                return None;
            }
            let path = entry.path();
            // Followed through links; a broken link, a socket or a device is not listed.
            let meta = std::fs::metadata(&path).ok()?;
            let listed = if meta.is_dir() {
                true
            } else {
                meta.is_file()
                    && mode != Mode::Folder
                    && path
                        .extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| extensions.iter().any(|x| x.eq_ignore_ascii_case(e)))
            };
            listed.then(|| Entry {
                name,
                path,
                is_dir: meta.is_dir(),
            })
        })
        .collect();
    entries.sort_by(|a, b| {
        b.is_dir
            .cmp(&a.is_dir)
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(entries)
}

impl Browser {
    /// A browser choosing for `mode`, titled `title`, listing files with `extensions` (any case), showing
    /// `folder`, with `file_name` in the name field.
    pub fn new(
        mode: Mode,
        title: &str,
        extensions: &'static [&'static str],
        folder: PathBuf,
        file_name: Option<&str>,
    ) -> Self {
        let icon = match mode {
            Mode::Open => "📂",
            Mode::Save => "💾",
            Mode::Folder => "📁",
        };
        let mut browser = Browser {
            mode,
            title: format!("{icon}  {title}"),
            extensions,
            folder: PathBuf::new(),
            folder_text: String::new(),
            entries: Ok(Vec::new()),
            selected: None,
            name: file_name.unwrap_or_default().to_string(),
            show_hidden: false,
            new_folder: None,
            focus_name: mode != Mode::Folder,
        };
        browser.enter(&folder);
        browser
    }

    /// Shows `dir` (read again when it is the folder shown).
    fn enter(&mut self, dir: &Path) {
        self.folder = normalized(dir);
        self.folder_text = self.folder.display().to_string();
        self.selected = None;
        self.new_folder = None;
        self.refresh();
    }

    fn refresh(&mut self) {
        self.entries = read_folder(&self.folder, self.mode, self.extensions, self.show_hidden);
    }

    /// `text` as a path: `~` is the home folder, a relative path is relative to the folder shown.
    fn resolve(&self, text: &str) -> PathBuf {
        let home = || std::env::var_os("HOME").map(PathBuf::from);
        let path = match text.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => match home() {
                Some(h) => h.join(rest.trim_start_matches('/')),
                None => PathBuf::from(text),
            },
            _ => PathBuf::from(text),
        };
        normalized(&self.folder.join(path))
    }

    /// Enter or the Open/Save/Select Folder button. Choosing a folder: the selected folder, else the one shown.
    /// Otherwise a selected folder is entered, else the name field's path is chosen (or entered, when it is a
    /// folder).
    fn accept(&mut self) -> Outcome {
        let folder_selected = self
            .selected
            .as_ref()
            .filter(|s| s.is_dir)
            .map(|s| s.path.clone());
        if self.mode == Mode::Folder {
            return Outcome::Chosen(folder_selected.unwrap_or_else(|| self.folder.clone()));
        }
        if let Some(dir) = folder_selected {
            self.enter(&dir);
            return Outcome::Open;
        }
        let typed = self.name.trim().to_string();
        if typed.is_empty() {
            return Outcome::Open;
        }
        let path = self.resolve(&typed);
        if path.is_dir() {
            self.name.clear();
            self.enter(&path);
            return Outcome::Open;
        }
        match self.mode {
            Mode::Open if path.is_file() => Outcome::Chosen(path),
            Mode::Open => Outcome::Failed(format!("{}: no such file", path.display())),
            _ => match path.parent() {
                Some(dir) if !dir.is_dir() => {
                    Outcome::Failed(format!("{}: no such folder", dir.display()))
                }
                _ => Outcome::Chosen(path),
            },
        }
    }

    /// Enter in the folder field: go to that folder, or, for a file, open it (or, when saving, take its name).
    fn go_to_typed_folder(&mut self) -> Outcome {
        let path = self.resolve(self.folder_text.trim());
        if path.is_dir() {
            self.enter(&path);
            return Outcome::Open;
        }
        match (self.mode, path.is_file(), path.parent()) {
            (Mode::Open, true, _) => Outcome::Chosen(path),
            (Mode::Save, true, Some(dir)) => {
                self.name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.enter(dir);
                Outcome::Open
            }
            (_, is_file, _) => {
                self.folder_text = self.folder.display().to_string();
                let why = if is_file {
                    "not a folder"
                } else {
                    "no such folder"
                };
                Outcome::Failed(format!("{}: {why}", path.display()))
            }
        }
    }

    /// Creates the folder named in the new-folder row and enters it.
    fn create_folder(&mut self) -> Outcome {
        let Some(name) = self.new_folder.as_deref().map(str::trim) else {
            return Outcome::Open;
        };
        let single = Path::new(name).components().count() == 1
            && matches!(
                Path::new(name).components().next(),
                Some(Component::Normal(_))
            );
        if !single {
            return Outcome::Failed(format!(
                "'{name}': a new folder's name is one name, without '/'"
            ));
        }
        let path = self.folder.join(name);
        match std::fs::create_dir(&path) {
            Ok(()) => {
                self.enter(&path);
                Outcome::Open
            }
            Err(e) => Outcome::Failed(format!("{}: cannot create the folder: {e}", path.display())),
        }
    }

    /// Draws the browser for this frame and returns what it ended with.
    pub fn show(&mut self, ctx: &egui::Context) -> Outcome {
        if ctx.input(|i| i.key_pressed(Key::Escape)) {
            return Outcome::Cancelled;
        }
        let mut open = true;
        let mut outcome = Outcome::Open;
        egui::Window::new(egui::RichText::new(&self.title).strong())
            .id(egui::Id::unique("animtune_file_browser"))
            .open(&mut open)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .default_size([560.0, 400.0])
            .resizable(false)
            .collapsible(false)
            .show(ctx, |ui| {
                ui.ctx().move_to_top(ui.layer_id());
                outcome = self.contents(ui);
            });
        if !open {
            return Outcome::Cancelled;
        }
        outcome
    }

    fn contents(&mut self, ui: &mut egui::Ui) -> Outcome {
        let mut outcome = Outcome::Open;
        egui::Panel::top("animtune_browser_top").show(ui, |ui| {
            ui.horizontal(|ui| {
                let up = self.folder.parent().map(Path::to_path_buf);
                let button = ui
                    .add_enabled(
                        up.is_some(),
                        egui::Button::new("⬆").min_size(egui::vec2(23.0, 20.0)),
                    )
                    .on_hover_text("Parent folder");
                if button.clicked()
                    && let Some(up) = up
                {
                    self.enter(&up);
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui
                        .add(egui::Button::new("⟲").min_size(egui::vec2(23.0, 20.0)))
                        .on_hover_text("Read the folder again")
                        .clicked()
                    {
                        self.refresh();
                    }
                    let field = ui
                        .add_sized(
                            ui.available_size(),
                            TextEdit::singleline(&mut self.folder_text),
                        )
                        .on_hover_text(
                            "The folder shown: type a folder or a full path to a file, then Enter",
                        );
                    if field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                        outcome = self.go_to_typed_folder();
                    }
                });
            });
            ui.add_space(ui.spacing().item_spacing.y);
        });
        egui::Panel::bottom("animtune_browser_bottom").show(ui, |ui| {
            ui.add_space(ui.spacing().item_spacing.y * 2.0);
            if let Some(o) = self.bottom(ui) {
                outcome = o;
            }
        });
        egui::CentralPanel::default().show(ui, |ui| {
            if let Some(o) = self.list(ui) {
                outcome = o;
            }
        });
        outcome
    }

    /// The name field, the new-folder row and the buttons.
    fn bottom(&mut self, ui: &mut egui::Ui) -> Option<Outcome> {
        let mut outcome = None;
        if self.mode != Mode::Folder {
            ui.horizontal(|ui| {
                let label = ui.label("File name:");
                let field = ui
                    .add_sized(ui.available_size(), TextEdit::singleline(&mut self.name))
                    .labelled_by(label.id)
                    .on_hover_text(
                        "A name in the folder shown, a relative or full path; Enter chooses it (a folder is \
                         entered)",
                    );
                if std::mem::take(&mut self.focus_name) {
                    field.request_focus();
                }
                if field.changed() && self.selected.as_ref().is_some_and(|s| s.is_dir) {
                    // What is typed, not a folder clicked earlier, is what Enter takes.
                    self.selected = None;
                }
                if field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                    outcome = Some(self.accept());
                }
            });
        }
        if self.mode != Mode::Open {
            ui.horizontal(|ui| {
                if let Some(name) = &mut self.new_folder {
                    let label = ui.label("New folder:");
                    let field = ui
                        .add(TextEdit::singleline(name).desired_width(220.0))
                        .labelled_by(label.id);
                    let enter = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                    if ui
                        .button("Create")
                        .on_hover_text("Create the folder and go into it")
                        .clicked()
                        || enter
                    {
                        outcome = Some(self.create_folder());
                    } else if ui.button("Don't create").clicked() {
                        self.new_folder = None;
                    }
                } else if ui
                    .button("New Folder")
                    .on_hover_text("Create a folder in the folder shown")
                    .clicked()
                {
                    self.new_folder = Some(unused_folder_name(&self.folder));
                }
            });
        }
        ui.add_space(ui.spacing().item_spacing.y);
        ui.horizontal(|ui| {
            if ui
                .checkbox(&mut self.show_hidden, "Show hidden")
                .on_hover_text("List names starting with '.'")
                .changed()
            {
                self.refresh();
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("Cancel").clicked() {
                    outcome = Some(Outcome::Cancelled);
                }
                let folder_selected = self.selected.as_ref().is_some_and(|s| s.is_dir);
                let (text, enabled) = match self.mode {
                    _ if folder_selected && self.mode != Mode::Folder => ("Open", true),
                    Mode::Open => ("Open", !self.name.trim().is_empty()),
                    Mode::Save => ("Save", !self.name.trim().is_empty()),
                    Mode::Folder => ("Select Folder", true),
                };
                if ui.add_enabled(enabled, egui::Button::new(text)).clicked() {
                    outcome = Some(self.accept());
                }
            });
        });
        outcome
    }

    /// The folder's entries; returns what a double-click chose.
    fn list(&mut self, ui: &mut egui::Ui) -> Option<Outcome> {
        let entries = match &self.entries {
            Ok(entries) => entries.clone(),
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return None;
            }
        };
        let mut clicked = None;
        let mut double = None;
        let row_height = ui.text_style_height(&egui::TextStyle::Body);
        egui::ScrollArea::vertical().show_rows(ui, row_height, entries.len(), |ui, range| {
            ui.with_layout(ui.layout().with_cross_justify(true), |ui| {
                for entry in &entries[range] {
                    let icon = if entry.is_dir { "🗀 " } else { "🗋 " };
                    let is_selected = self.selected.as_ref().is_some_and(|s| s.path == entry.path);
                    let row = ui.selectable_label(is_selected, format!("{icon}{}", entry.name));
                    if row.double_clicked() {
                        double = Some(entry.clone());
                    } else if row.clicked() {
                        clicked = Some(entry.clone());
                    }
                }
            });
        });
        if let Some(entry) = double {
            if entry.is_dir {
                self.enter(&entry.path);
                return None;
            }
            return Some(Outcome::Chosen(entry.path));
        }
        if let Some(entry) = clicked {
            if !entry.is_dir {
                self.name = entry.name.clone();
            }
            self.selected = Some(entry);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_dot_is_resolved_by_name() {
        assert_eq!(normalized(Path::new("/a/b/../c/./d")), Path::new("/a/c/d"));
        assert_eq!(normalized(Path::new("/..")), Path::new("/"));
    }

    #[test]
    fn folders_come_first_and_names_sort_ignoring_case() {
        let dir = crate::test_support::temp_dir("browser-sort");
        for f in ["b.glb", "A.glb", "c.GLB", "notes.txt", ".hidden.glb"] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        for d in ["zeta", "Alpha"] {
            std::fs::create_dir(dir.join(d)).unwrap();
        }
        let names = |mode| -> Vec<String> {
            read_folder(&dir, mode, &["glb"], false)
                .unwrap()
                .into_iter()
                .map(|e| e.name)
                .collect()
        };
        assert_eq!(
            names(Mode::Open),
            ["Alpha", "zeta", "A.glb", "b.glb", "c.GLB"]
        );
        assert_eq!(names(Mode::Folder), ["Alpha", "zeta"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
