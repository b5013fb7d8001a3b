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
    #[error("{path}: cannot write: {error}")]
    Io {
        /// The target file.
        path: PathBuf,
        /// The OS error (in the message, not a `source`: a caller printing the chain would print it twice).
        error: std::io::Error,
    },
}

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it into place. The temporary file is
/// created exclusively under an unpredictable name (the `tempfile` crate), so nothing planted beside the target —
/// a symlink included — is written through. An existing file is replaced only when `overwrite` is true; without
/// it the rename refuses to replace one that appeared meanwhile.
pub fn write_atomic(path: &Path, bytes: &[u8], overwrite: bool) -> Result<(), WriteError> {
    if !overwrite && path.symlink_metadata().is_ok() {
        return Err(WriteError::Exists(path.to_path_buf()));
    }
    let io = |error| WriteError::Io {
        path: path.to_path_buf(),
        error,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{file_name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // Created as `std::fs::write` creates a file (0666 less the user's umask), not tempfile's private 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(&dir).map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    // Test hook (debug builds only): die between the temp file and the rename, as a killed writer would.
    #[cfg(debug_assertions)]
    if std::env::var_os("ANIMTUNE_TEST_ABORT_BEFORE_RENAME").is_some() {
        std::process::abort();
    }
    let persisted = if overwrite {
        tmp.persist(path)
    } else {
        tmp.persist_noclobber(path)
    };
    match persisted {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(WriteError::Exists(path.to_path_buf()))
        }
        Err(e) => Err(io(e.error)),
    }
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

    #[cfg(unix)]
    #[test]
    fn a_written_file_gets_the_users_umask_like_any_other() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("animtune-fsutil-mode-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join("plain.bin");
        std::fs::write(&plain, b"x").unwrap();
        let ours = dir.join("ours.bin");
        write_atomic(&ours, b"x", false).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // (Under a umask of 077 both are 0600; under any other, tempfile's own 0600 would differ.)
        assert_eq!(mode(&ours), mode(&plain));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_planted_beside_the_target_is_not_written_through() {
        let dir = std::env::temp_dir().join(format!("animtune-fsutil-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let outside = dir.join("outside.txt");
        std::fs::write(&outside, b"keep").unwrap();
        // The names the old writer used, and the target itself, all pointing outside.
        let target = dir.join("out.bin");
        for name in [
            format!(".out.bin.{}.tmp", std::process::id()),
            ".out.bin.tmp".to_string(),
        ] {
            std::os::unix::fs::symlink(&outside, dir.join(name)).unwrap();
        }
        write_atomic(&target, b"new", false).unwrap();
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A symlink at the target is replaced, not followed, and only with permission.
        let linked = dir.join("linked.bin");
        std::os::unix::fs::symlink(&outside, &linked).unwrap();
        assert!(matches!(
            write_atomic(&linked, b"x", false),
            Err(WriteError::Exists(_))
        ));
        write_atomic(&linked, b"x", true).unwrap();
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        assert_eq!(std::fs::read(&linked).unwrap(), b"x");
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
