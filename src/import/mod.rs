//! Importers: files on disk → [`Character`](crate::core::Character) and [`Clip`](crate::core::Clip)s.

pub mod gltf;
pub mod uri;

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::core::{Character, Clip};

/// Files larger than this are refused before reading, unless configured otherwise (1 GiB).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// How much a file may ask for: checked before anything large is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest file read, bytes (`ANIMTUNE_MAX_FILE_MB`).
    pub max_file_bytes: u64,
    /// Most mesh vertices over all primitives (`ANIMTUNE_MAX_VERTICES`).
    pub max_vertices: usize,
    /// Most skin joints over all skins (`ANIMTUNE_MAX_JOINTS`); nodes are capped at 16 times this.
    pub max_joints: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: MAX_FILE_BYTES,
            max_vertices: 20_000_000,
            max_joints: 20_000,
        }
    }
}

impl Limits {
    /// No limit (for data the program made itself, such as the built-in mannequin or its own exports).
    pub fn unlimited() -> Self {
        Limits {
            max_file_bytes: u64::MAX,
            max_vertices: usize::MAX,
            max_joints: usize::MAX / 16,
        }
    }

    /// The defaults, with any of `ANIMTUNE_MAX_FILE_MB`, `ANIMTUNE_MAX_VERTICES`, `ANIMTUNE_MAX_JOINTS` applied
    /// (values that are not positive whole numbers are ignored).
    pub fn from_env() -> Self {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|&v| v > 0)
        };
        let mut l = Limits::default();
        if let Some(mb) = var("ANIMTUNE_MAX_FILE_MB") {
            l.max_file_bytes = mb.saturating_mul(1 << 20);
        }
        if let Some(v) = var("ANIMTUNE_MAX_VERTICES") {
            l.max_vertices = v as usize;
        }
        if let Some(j) = var("ANIMTUNE_MAX_JOINTS") {
            l.max_joints = j as usize;
        }
        l
    }
}

/// Why a model could not be imported. Every variant names the file.
#[derive(Debug, Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is larger than the limit ([`Limits::max_file_bytes`]).
    #[error("{path}: file is {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Not a glTF/GLB file, or one the glTF reader rejects (truncated, bad JSON, invalid indices…).
    #[error("{path}: not a valid glTF/GLB/VRM file: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What the reader said.
        message: String,
    },
    /// An external URI that points outside the model's folder or at the network.
    #[error("{path}: refused external file: {source}")]
    Uri {
        /// The file.
        path: PathBuf,
        /// What was wrong with the URI.
        source: uri::UriError,
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

/// Loads a .glb, .gltf (with external files beside it), .vrm or .vrma file, within the limits from the
/// environment ([`Limits::from_env`]).
pub fn load_file(path: &Path) -> Result<ImportedModel, ImportError> {
    load_file_with(path, &Limits::from_env())
}

/// Loads a model file within the given limits.
pub fn load_file_with(path: &Path, limits: &Limits) -> Result<ImportedModel, ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > limits.max_file_bytes {
        return Err(ImportError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit: limits.max_file_bytes,
        });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    gltf::load_bytes_with(&bytes, &name, Some(&base), path, limits)
}
