//! A Unity project folder's assets by GUID. Every asset `X` has `X.meta` beside it, whose `guid:` is how other
//! assets refer to it (`{fileID, guid, type}`); a model's `.meta` also names its clips (sub-assets) by file ID:
//! `clipAnimations` (each with its `internalID`), the older `internalIDToNameTable` and `fileIDToRecycleName`.
//!
//! The project is the folder above the nearest `Assets` folder, or else the asset's own folder (or the folder the
//! user chose, [`Project::of_folder`], which also lists its controllers); it is walked once,
//! bounded in files and depth, without following links, skipping Unity's `Library`, `Temp` and `Logs`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::yaml::{self, Node, ObjectRef, UnityError};

/// Most `.meta` files indexed.
pub const MAX_META_FILES: usize = 100_000;
/// Deepest folder walked below the project's root.
pub const MAX_DEPTH: usize = 32;
/// Largest `.meta` file read, bytes.
pub const MAX_META_BYTES: u64 = 16 << 20;

/// What a reference resolves to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The asset file.
    pub path: PathBuf,
    /// The sub-asset's name in a model (a clip of an FBX), when the reference names one the `.meta` lists.
    pub sub_asset: Option<String>,
}

/// A project's assets by GUID.
#[derive(Clone, Debug, Default)]
pub struct Project {
    /// The folder walked.
    pub root: PathBuf,
    by_guid: HashMap<String, PathBuf>,
    /// `.meta` files that could not be read, one line each.
    pub problems: Vec<String>,
}

/// Folders Unity generates, never assets.
const SKIPPED: [&str; 5] = ["Library", "Temp", "Logs", "obj", ".git"];

impl Project {
    /// The project around `asset`: its root found as the module says, and its `.meta` files indexed.
    pub fn around(asset: &Path) -> Result<Project, UnityError> {
        let asset = asset
            .canonicalize()
            .map_err(|e| UnityError::new(asset, format!("cannot be found: {e}")))?;
        let root = asset
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == "Assets"))
            .and_then(Path::parent)
            .or_else(|| asset.parent())
            .unwrap_or(Path::new("/"))
            .to_path_buf();
        Project::indexed(root, &asset)
    }

    /// The project a folder the user chose is (or is inside): the folder above the nearest `Assets` at or above
    /// it, the folder itself when it holds `Assets`, else the folder alone; its `.meta` files indexed.
    pub fn of_folder(folder: &Path) -> Result<Project, UnityError> {
        let folder = folder
            .canonicalize()
            .map_err(|e| UnityError::new(folder, format!("cannot be found: {e}")))?;
        if !folder.is_dir() {
            return Err(UnityError::new(&folder, "is not a folder"));
        }
        let root = folder
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == "Assets"))
            .and_then(Path::parent)
            .unwrap_or(&folder)
            .to_path_buf();
        Project::indexed(root, &folder)
    }

    /// The project at `root` with its `.meta` files indexed; errors name `asked` (what the user gave).
    fn indexed(root: PathBuf, asked: &Path) -> Result<Project, UnityError> {
        let mut project = Project {
            root: root.clone(),
            ..Project::default()
        };
        let mut count = 0;
        project.walk(&root, 0, &mut count, asked)?;
        Ok(project)
    }

    /// The project's animator controllers and override controllers in `folder` or below it (the assets its
    /// `.meta` files list), sorted by path.
    pub fn controllers(&self, folder: &Path) -> Vec<PathBuf> {
        let folder = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf());
        let mut found: Vec<PathBuf> = self
            .by_guid
            .values()
            .filter(|p| {
                p.starts_with(&folder)
                    && p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| e == "controller" || e == "overrideController")
                    && p.is_file()
            })
            .cloned()
            .collect();
        found.sort();
        found
    }

    fn walk(
        &mut self,
        dir: &Path,
        depth: usize,
        count: &mut usize,
        asset: &Path,
    ) -> Result<(), UnityError> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                if !SKIPPED.iter().any(|s| entry.file_name() == *s) {
                    self.walk(&path, depth + 1, count, asset)?;
                }
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "meta") {
                *count += 1;
                if *count > MAX_META_FILES {
                    return Err(UnityError::new(
                        asset,
                        format!(
                            "its project {} holds more than {MAX_META_FILES} .meta files",
                            self.root.display()
                        ),
                    ));
                }
                match meta_guid(&path) {
                    Ok(Some(guid)) => {
                        self.by_guid.insert(guid, path.with_extension(""));
                    }
                    Ok(None) => {}
                    Err(e) => self.problems.push(e.to_string()),
                }
            }
        }
        Ok(())
    }

    /// The asset a reference names, and the sub-asset's name where its model's `.meta` lists it (None: the GUID
    /// is not in the project, or the reference is inside the same file).
    pub fn resolve(&self, r: &ObjectRef) -> Option<Resolved> {
        let path = self.by_guid.get(r.guid.as_ref()?)?.clone();
        let sub_asset = sub_asset_name(&path, r.file_id);
        Some(Resolved { path, sub_asset })
    }

    /// How many assets the project holds.
    pub fn len(&self) -> usize {
        self.by_guid.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.by_guid.is_empty()
    }
}

/// The `guid:` of a `.meta` file (its top-level key, 32 hex digits).
fn meta_guid(meta: &Path) -> Result<Option<String>, UnityError> {
    let bytes = crate::io::limits::read_file(meta, MAX_META_BYTES)
        .map_err(|e| UnityError(e.to_string()))?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text.lines().find_map(|l| {
        let g = l.strip_prefix("guid:")?.trim();
        (g.len() == 32 && g.bytes().all(|b| b.is_ascii_hexdigit())).then(|| g.to_ascii_lowercase())
    }))
}

/// The name of the sub-asset `file_id` of the model at `asset`, from its `.meta`.
fn sub_asset_name(asset: &Path, file_id: i64) -> Option<String> {
    let meta = PathBuf::from(format!("{}.meta", asset.display()));
    let bytes = crate::io::limits::read_file(&meta, MAX_META_BYTES).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    if !text.contains("ModelImporter:") {
        return None;
    }
    let root = yaml::parse_plain(text, &meta).ok()?;
    let importer = root.get("ModelImporter")?;
    let id = file_id.to_string();
    // Clips the user set up in the model's Animation tab.
    let clips = importer
        .get("animations")
        .and_then(|a| a.get("clipAnimations"))
        .map(Node::items)
        .unwrap_or(&[]);
    if let Some(c) = clips
        .iter()
        .find(|c| c.str("internalID") == Some(id.as_str()))
    {
        return c.str("name").map(str::to_string);
    }
    // `internalIDToNameTable: - first: {74: ID} second: NAME`.
    for pair in importer
        .get("internalIDToNameTable")
        .map(Node::items)
        .unwrap_or(&[])
    {
        let first = pair.get("first")?;
        if first
            .entries()
            .iter()
            .any(|(_, v)| v.text() == Some(id.as_str()))
        {
            return pair.str("second").map(str::to_string);
        }
    }
    // `fileIDToRecycleName: {ID: NAME}` (Unity before 2019.3).
    importer
        .get("fileIDToRecycleName")
        .and_then(|m| m.str(&id))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guids_resolve_to_assets_and_model_clips_to_their_names() {
        let root = crate::test_support::temp_dir("unity-project");
        let anims = root.join("Assets/Anims");
        std::fs::create_dir_all(&anims).unwrap();
        std::fs::create_dir_all(root.join("Library")).unwrap();
        std::fs::write(anims.join("walk.anim"), "").unwrap();
        std::fs::write(
            anims.join("walk.anim.meta"),
            "fileFormatVersion: 2\nguid: 0123456789abcdef0123456789ABCDEF\nNativeFormatImporter:\n  mainObjectFileID: 7400000\n",
        )
        .unwrap();
        std::fs::write(anims.join("hero.fbx"), "").unwrap();
        std::fs::write(
            anims.join("hero.fbx.meta"),
            "fileFormatVersion: 2
guid: 11111111111111111111111111111111
ModelImporter:
  internalIDToNameTable:
  - first:
      74: 7400002
    second: Jump
  fileIDToRecycleName:
    7400004: Old
  animations:
    clipAnimations:
    - serializedVersion: 16
      name: Root|Idle
      takeName: Root|Idle
      internalID: 2910742486769232160
",
        )
        .unwrap();
        // A `.meta` under Library is Unity's cache, never an asset.
        std::fs::write(
            root.join("Library/x.meta"),
            "guid: 22222222222222222222222222222222\n",
        )
        .unwrap();
        let p = Project::around(&anims.join("walk.anim")).unwrap();
        assert_eq!(p.root, root.canonicalize().unwrap());
        assert_eq!(p.len(), 2);
        let r = |guid: &str, file_id| ObjectRef {
            file_id,
            guid: Some(guid.into()),
        };
        let walk = p
            .resolve(&r("0123456789abcdef0123456789abcdef", 7400000))
            .unwrap();
        assert!(walk.path.ends_with("Assets/Anims/walk.anim") && walk.sub_asset.is_none());
        for (id, name) in [
            (2910742486769232160, "Root|Idle"),
            (7400002, "Jump"),
            (7400004, "Old"),
        ] {
            let hero = p
                .resolve(&r("11111111111111111111111111111111", id))
                .unwrap();
            assert_eq!(hero.sub_asset.as_deref(), Some(name), "{id}");
        }
        assert!(
            p.resolve(&r("22222222222222222222222222222222", 1))
                .is_none()
        );
    }
}
