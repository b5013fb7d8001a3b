//! File writes that never leave a half-written or silently replaced file.

use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why a file was not written.
#[derive(Debug, Error)]
pub enum WriteError {
    /// The target exists and overwriting was not allowed.
    #[error("{0}: already exists (use --force to replace it)")]
    Exists(PathBuf),
    /// Creating, writing or renaming failed; the old file, if any, is untouched.
    #[error("{path}: cannot write: {source}")]
    Io {
        /// The target file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it into place.
/// An existing file is replaced only when `overwrite` is true.
pub fn write_atomic(path: &Path, bytes: &[u8], overwrite: bool) -> Result<(), WriteError> {
    if !overwrite && path.exists() {
        return Err(WriteError::Exists(path.to_path_buf()));
    }
    let io = |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        // Test hook (debug builds only): die between the temp file and the rename, as a killed writer would.
        #[cfg(debug_assertions)]
        if std::env::var_os("ANIMTUNE_TEST_ABORT_BEFORE_RENAME").is_some() {
            std::process::abort();
        }
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_without_permission() {
        let dir = std::env::temp_dir().join(format!("animtune-fsutil-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.bin");
        write_atomic(&p, b"one", false).unwrap();
        assert!(matches!(
            write_atomic(&p, b"two", false),
            Err(WriteError::Exists(_))
        ));
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        write_atomic(&p, b"two", true).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1, "no temp file left behind");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failed_write_leaves_old_file() {
        let p = Path::new("/nonexistent-dir-animtune/x.bin");
        assert!(matches!(
            write_atomic(p, b"x", true),
            Err(WriteError::Io { .. })
        ));
    }
}
