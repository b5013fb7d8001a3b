//! Bounds on what a file may ask for, checked before anything large is read or allocated. Shared by the
//! importers and the clip file readers.

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

/// Why [`read_file`] read nothing.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The OS refused.
    #[error("{path}: cannot read: {error}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The OS error (in the message, not a `source`: a caller printing the chain would print it twice).
        error: std::io::Error,
    },
    /// A FIFO, a device, a socket or a folder: only regular files are read (a FIFO would block, a device
    /// would never end).
    #[error("{path}: not a regular file ({kind}); only regular files are read")]
    NotRegular {
        /// The file.
        path: std::path::PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// Over the byte budget.
    #[error(
        "{path}: file is {size} bytes, over the {limit}-byte limit (--max-file-mb or ANIMTUNE_MAX_FILE_MB)"
    )]
    TooLarge {
        /// The file.
        path: std::path::PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
}

/// Checks that `path` is a regular file of at most `max_bytes` before anything opens it; returns its size.
pub fn check_regular_file(path: &std::path::Path, max_bytes: u64) -> Result<u64, ReadError> {
    let meta = std::fs::metadata(path).map_err(|error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a folder"
        } else {
            "a FIFO, device or socket"
        };
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    if meta.len() > max_bytes {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: max_bytes,
        });
    }
    Ok(meta.len())
}

/// Reads a regular file of at most `max_bytes` (checked before opening, and enforced while reading, in case it
/// grows).
pub fn read_file(path: &std::path::Path, max_bytes: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let size = check_regular_file(path, max_bytes)?;
    let io = |error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max_bytes {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit: max_bytes,
        });
    }
    Ok(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn devices_and_folders_are_refused_without_opening_them() {
        let err = read_file(std::path::Path::new("/dev/zero"), MAX_FILE_BYTES).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let err = read_file(&std::env::temp_dir(), MAX_FILE_BYTES).unwrap_err();
        assert!(err.to_string().contains("a folder"), "{err}");
        let dir = std::env::temp_dir().join(format!("animtune-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe.glb");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = read_file(&fifo, MAX_FILE_BYTES).unwrap_err();
            assert!(err.to_string().contains("FIFO"), "{err}");
        }
        let small = dir.join("small.bin");
        std::fs::write(&small, [7u8; 10]).unwrap();
        assert_eq!(read_file(&small, 10).unwrap().len(), 10);
        assert!(matches!(
            read_file(&small, 9),
            Err(ReadError::TooLarge { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
