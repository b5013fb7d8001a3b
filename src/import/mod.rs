//! Importers: files on disk → [`Character`](crate::core::Character) and [`Clip`](crate::core::Clip)s.

pub mod fbx;
pub mod gltf;
pub mod unity;
pub mod uri;

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::core::{Character, Clip};

pub use crate::io::limits::{Limits, MAX_FILE_BYTES};

/// Why a model could not be imported. Every variant names the file.
#[derive(Debug, Error)]
pub enum ImportError {
    /// The file could not be read: missing, not a regular file, or over [`Limits::max_file_bytes`].
    #[error(transparent)]
    Read(#[from] crate::io::limits::ReadError),
    /// Not a glTF/GLB file, or one the glTF reader rejects (truncated, bad JSON, invalid indices…).
    #[error("{path}: not a valid glTF/GLB/VRM file: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What the reader said.
        message: String,
    },
    /// Not an FBX file ufbx can read (truncated, corrupt, an unsupported version…).
    #[error("{path}: {message}")]
    Fbx {
        /// The file.
        path: PathBuf,
        /// What ufbx said.
        message: String,
    },
    /// An external URI that points outside the model's folder or at the network.
    #[error("{path}: refused external file: {error}")]
    Uri {
        /// The file.
        path: PathBuf,
        /// What was wrong with the URI (in the message, not a `source`, so it prints once).
        error: uri::UriError,
    },
    /// The file asks for more than the configured limits allow.
    #[error("{path}: {what}")]
    OverLimit {
        /// The file.
        path: PathBuf,
        /// What and which limit (and how to raise it).
        what: String,
    },
    /// Well-formed glTF whose data is inconsistent (accessor past its buffer, bad joint index, NaN…).
    #[error("{path}: {message}")]
    Data {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the glTF object.
        message: String,
    },
}

/// A character and the clips that came with it.
#[derive(Clone, Debug)]
pub struct ImportedModel {
    /// The character (skeleton, humanoid, meshes).
    pub character: Character,
    /// Every animation of the file, bound to the character's skeleton by construction.
    pub clips: Vec<Clip>,
}

impl ImportedModel {
    /// True when there is something to pose or play: a skin, a clip, a mesh on a joint (rigid parts, as
    /// skinless VRM avatars have), or a humanoid skeleton; false for a static scene.
    pub fn is_animatable(&self) -> bool {
        let c = &self.character;
        !c.skins.is_empty()
            || !self.clips.is_empty()
            || !c.humanoid.is_empty()
            || c.meshes
                .iter()
                .any(|m| matches!(m.placement, crate::core::mesh::MeshPlacement::Joint { .. }))
    }
}

/// Loads a .glb, .gltf (with external files beside it), .vrm, .vrma or .fbx file, within the limits from the
/// environment ([`Limits::from_env`]).
pub fn load_file(path: &Path) -> Result<ImportedModel, ImportError> {
    load_file_with(path, &Limits::from_env())
}

/// Loads a model file within the given limits.
pub fn load_file_with(path: &Path, limits: &Limits) -> Result<ImportedModel, ImportError> {
    let bytes = crate::io::limits::read_file(path, limits.max_file_bytes)?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let is_fbx = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fbx"))
        || fbx::looks_like_fbx(&bytes);
    if is_fbx {
        let mut model = fbx::load_bytes_with(&bytes, &name, Some(&base), path, limits)?;
        // A model in a Unity project: the avatar configured for it in Unity maps its humanoid.
        match unity::avatar::read(path) {
            Ok(Some(avatar)) => unity::avatar::apply(&avatar, &mut model.character),
            Ok(None) => {}
            Err(e) => model
                .character
                .humanoid
                .warnings
                .push(format!("its Unity avatar is not read: {e}")),
        }
        Ok(model)
    } else {
        gltf::load_bytes_with(&bytes, &name, Some(&base), path, limits)
    }
}

/// Why a file's clips could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ClipsError {
    /// A model file (.glb, .gltf, .vrm, .vrma, .fbx) failed to import.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// A clip file (.animclip, Unity layout) failed to decode.
    #[error(transparent)]
    ClipFile(#[from] crate::clipfile::ClipFileError),
    /// A Unity `.anim` file failed to read, or holds a clip that cannot play.
    #[error(transparent)]
    Unity(#[from] unity::UnityError),
    /// The file holds no animation.
    #[error("{0}: has no animation")]
    NoClips(PathBuf),
}

/// Every clip a file holds, whatever its format: a model's animations (.glb, .gltf, .vrm, .vrma, .fbx, each track
/// carrying its joint's path, name, humanoid bone and rest pose so it binds to another character), a baked
/// clip (.animclip, or the Unity layout in Unity's axes), or a Unity `.anim` (generic). Unnamed clips take the
/// file's name.
pub fn load_clips(path: &Path) -> Result<Vec<Clip>, ClipsError> {
    load_clips_and_warnings(path).map(|(clips, _)| clips)
}

/// [`load_clips`], and what the user must hear about although the clips loaded (the importer's
/// [`Character::warnings`], such as keys it had to bound), for the caller to show naming the file.
pub fn load_clips_and_warnings(path: &Path) -> Result<(Vec<Clip>, Vec<String>), ClipsError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let (mut clips, warnings) = match ext.as_str() {
        "animclip" | "bytes" => (vec![crate::clipfile::load(path)?.to_clip()], Vec::new()),
        "anim" => unity::load_clips(path, Limits::from_env().max_file_bytes)?,
        _ => {
            let model = load_file(path)?;
            (model.clips, model.character.warnings)
        }
    };
    if clips.is_empty() {
        return Err(ClipsError::NoClips(path.to_path_buf()));
    }
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for (i, c) in clips
        .iter_mut()
        .enumerate()
        .filter(|(_, c)| c.name.is_empty())
    {
        c.name = if i == 0 {
            stem.clone()
        } else {
            format!("{stem} {i}")
        };
    }
    Ok((clips, warnings))
}
