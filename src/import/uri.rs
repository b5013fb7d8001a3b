//! Safe resolution of the external file URIs a .gltf names: only files inside the model's folder.

use std::path::{Component, Path, PathBuf};

use thiserror::Error;

/// Why an external URI was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum UriError {
    /// A scheme other than a plain relative path (http:, file:, …).
    #[error("URI '{0}' uses a scheme other than a relative file path")]
    Scheme(String),
    /// An absolute path.
    #[error("URI '{0}' is an absolute path; only files beside the model are read")]
    Absolute(String),
    /// A `..` component that would leave the model's folder.
    #[error("URI '{0}' climbs out of the model's folder with '..'")]
    Escape(String),
    /// Percent-encoding that does not decode to UTF-8.
    #[error("URI '{0}' is not valid percent-encoded UTF-8")]
    Encoding(String),
    /// A path that resolves (through links) outside the model's folder.
    #[error("URI '{0}' resolves outside the model's folder")]
    Outside(String),
}

/// True for `data:` URIs, which carry their bytes inline.
pub fn is_data_uri(uri: &str) -> bool {
    uri.starts_with("data:")
}

fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Resolves a relative file URI against the model's folder, refusing anything that could leave it.
pub fn resolve(base_dir: &Path, uri: &str) -> Result<PathBuf, UriError> {
    let decoded = percent_decode(uri).ok_or_else(|| UriError::Encoding(uri.to_string()))?;
    let has_scheme = decoded.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if has_scheme {
        let drive_letter = decoded.len() >= 2 && decoded.as_bytes()[1] == b':';
        return Err(if drive_letter {
            UriError::Absolute(uri.to_string())
        } else {
            UriError::Scheme(uri.to_string())
        });
    }
    if decoded.starts_with('/') || decoded.starts_with('\\') {
        return Err(UriError::Absolute(uri.to_string()));
    }
    let rel = PathBuf::from(decoded.replace('\\', "/"));
    for c in rel.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(UriError::Escape(uri.to_string())),
            Component::RootDir | Component::Prefix(_) => {
                return Err(UriError::Absolute(uri.to_string()));
            }
        }
    }
    let full = base_dir.join(&rel);
    if let (Ok(real), Ok(real_base)) = (full.canonicalize(), base_dir.canonicalize())
        && !real.starts_with(&real_base)
    {
        return Err(UriError::Outside(uri.to_string()));
    }
    Ok(full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_files_resolve() {
        let base = Path::new("/models/robot");
        assert_eq!(resolve(base, "robot.bin").unwrap(), base.join("robot.bin"));
        assert_eq!(
            resolve(base, "tex/skin%20a.png").unwrap(),
            base.join("tex/skin a.png")
        );
        assert_eq!(resolve(base, "./a.bin").unwrap(), base.join("./a.bin"));
    }

    #[test]
    fn escapes_and_schemes_are_refused() {
        let base = Path::new("/models/robot");
        assert_eq!(
            resolve(base, "../secret.bin"),
            Err(UriError::Escape("../secret.bin".into()))
        );
        assert_eq!(
            resolve(base, "a/../../x.bin"),
            Err(UriError::Escape("a/../../x.bin".into()))
        );
        assert_eq!(
            resolve(base, "%2E%2E/x.bin"),
            Err(UriError::Escape("%2E%2E/x.bin".into()))
        );
        assert_eq!(
            resolve(base, "/etc/passwd"),
            Err(UriError::Absolute("/etc/passwd".into()))
        );
        assert_eq!(
            resolve(base, "C:\\x.bin"),
            Err(UriError::Absolute("C:\\x.bin".into()))
        );
        assert_eq!(
            resolve(base, "http://example.com/a.bin"),
            Err(UriError::Scheme("http://example.com/a.bin".into()))
        );
        assert_eq!(
            resolve(base, "file:///etc/passwd"),
            Err(UriError::Scheme("file:///etc/passwd".into()))
        );
        assert_eq!(resolve(base, "%FF"), Err(UriError::Encoding("%FF".into())));
    }
}
