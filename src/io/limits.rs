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
