//! Baked clips: a clip sampled on a frame grid, compacted, and stored as `.animclip` (native) or in the
//! Unity-side AnimDataSequence layout.

mod messagepack;
pub mod native;
pub mod packed_rotations;
pub mod rest;
pub mod unity;

use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};
use thiserror::Error;

use crate::core::Clip;
use crate::core::clip::{Interpolation, Keys, Track, TrackTarget};

/// Why a clip file could not be read.
#[derive(Debug, Error)]
pub enum ClipFileError {
    /// The file could not be read: missing, not a regular file, or over the byte budget.
    #[error(transparent)]
    Read(#[from] crate::io::limits::ReadError),
    /// Not MessagePack, not one of the known layouts, or cut short.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// Written by a newer animtune than this one.
    #[error(
        "{path}: written by a newer animtune (clip format version {found}; this build reads up to {supported})"
    )]
    NewerVersion {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
        /// Newest version this build reads.
        supported: u32,
    },
    /// Well-formed but inconsistent data (counts, times, NaN, non-unit quaternions…).
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the track.
        message: String,
    },
}

/// One property of a baked track.
#[derive(Clone, Debug, PartialEq)]
pub enum Channel<T> {
    /// Equal to the joint's rest value throughout: not stored.
    Rest,
    /// One value throughout.
    Constant(T),
    /// Keys on grid frames (increasing), linearly interpolated (slerp for rotations).
    Keys {
        /// Grid frame index of each key.
        frames: Vec<u32>,
        /// Value at each key.
        values: Vec<T>,
    },
}

impl<T> Channel<T> {
    /// Number of stored values (0 for rest, 1 for a constant).
    pub fn key_count(&self) -> usize {
        match self {
            Channel::Rest => 0,
            Channel::Constant(_) => 1,
            Channel::Keys { frames, .. } => frames.len(),
        }
    }
}

/// One joint's baked motion.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedTrack {
    /// The joint: path, name, human bone, and its rest data for retargeting.
    pub target: TrackTarget,
    /// Local translation.
    pub translation: Channel<Vec3>,
    /// Local rotation.
    pub rotation: Channel<Quat>,
    /// Local scale.
    pub scale: Channel<Vec3>,
    /// Per channel (translation, rotation, scale), the step of the grid its keys lie on when they were read from
    /// a packed `.animclip` ([`crate::core::Keys::with_grid_step`]).
    pub grid_steps: [Option<f32>; 3],
}

/// A clip sampled on a grid of frames and compacted.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedClip {
    /// Identifier (the Unity runtime's `id`).
    pub id: i32,
    /// Clip name.
    pub name: String,
    /// Length in seconds.
    pub duration: f32,
    /// Frames per second of the grid: its uniform part's rate (for the source's key times alone, the mean rate).
    pub frame_rate: f32,
    /// Explicit frame times when the grid is not uniform (source keys kept); None for a uniform grid.
    pub times: Option<Vec<f32>>,
    /// Tracks of the joints that move.
    pub tracks: Vec<BakedTrack>,
    /// Morph-weight tracks (`.animclip` version 5, glTF `weights` channels), by the node they animate.
    pub morph: Vec<BakedMorph>,
}

/// The morph weights of one node, keyed (read linearly between keys).
#[derive(Clone, Debug, PartialEq)]
pub struct BakedMorph {
    /// The node whose mesh's targets they drive (bound by node name, then mesh name, as glTF clips are).
    pub node: String,
    /// Targets per key.
    pub width: usize,
    /// Increasing key times (seconds).
    pub times: Vec<f32>,
    /// `width` weights per key.
    pub values: Vec<f32>,
}

/// Number of frames of a uniform grid over `duration` at `fps` (first at 0, last exactly at the end).
pub fn uniform_frame_count(duration: f32, fps: f32) -> u64 {
    if duration <= 0.0 || fps <= 0.0 {
        return 1;
    }
    (((duration as f64 * fps as f64) - 1e-4).ceil().max(0.0) as u64).saturating_add(1)
}

impl BakedClip {
    /// Number of grid frames.
    pub fn frame_count(&self) -> u64 {
        match &self.times {
            Some(t) => t.len() as u64,
            None => uniform_frame_count(self.duration, self.frame_rate),
        }
    }

    /// Time of grid frame `k`.
    pub fn frame_time(&self, k: u32) -> f32 {
        match &self.times {
            Some(t) => t[k as usize],
            None => (k as f32 / self.frame_rate).min(self.duration),
        }
    }

    /// Stored values over all channels (a constant counts one).
    pub fn key_count(&self) -> usize {
        self.tracks
            .iter()
            .map(|t| t.translation.key_count() + t.rotation.key_count() + t.scale.key_count())
            .sum()
    }

    /// The clip as a core [`Clip`] (linear keys), ready to bind and sample.
    pub fn to_clip(&self) -> Clip {
        let tracks = self
            .tracks
            .iter()
            .map(|t| Track {
                target: t.target.clone(),
                translation: self
                    .keys_of(&t.translation)
                    .map(|k| k.with_grid_step(t.grid_steps[0])),
                rotation: self
                    .keys_of(&t.rotation)
                    .map(|k| k.with_grid_step(t.grid_steps[1])),
                scale: self
                    .keys_of(&t.scale)
                    .map(|k| k.with_grid_step(t.grid_steps[2])),
            })
            .collect();
        let morph = self
            .morph
            .iter()
            .filter_map(|m| {
                crate::core::morph::MorphTrack::new(
                    m.node.clone(),
                    m.width,
                    m.times.clone(),
                    m.values.clone(),
                    crate::core::Interpolation::Linear,
                )
                .ok()
            })
            .collect();
        let mut clip = Clip::new(self.name.clone(), tracks).with_morph_tracks(morph);
        clip.duration = self.duration;
        clip
    }

    fn keys_of<T: crate::core::clip::KeyValue>(&self, c: &Channel<T>) -> Option<Keys<T>> {
        let (times, values) = match c {
            Channel::Rest => return None,
            Channel::Constant(v) => (vec![0.0], vec![*v]),
            Channel::Keys { frames, values } => (
                frames.iter().map(|&f| self.frame_time(f)).collect(),
                values.clone(),
            ),
        };
        Keys::new(times, values, Interpolation::Linear).ok()
    }
}

/// A clip file as read from disk, in whichever layout it was.
#[derive(Clone, Debug)]
pub enum ClipFile {
    /// The native `.animclip` layout.
    Native(BakedClip),
    /// The Unity-side AnimDataSequence layout.
    Unity(unity::UnityClip),
}

impl ClipFile {
    /// The clip, ready to bind and sample (a Unity-layout file read in Unity's axes, as the Unity runtime writes).
    pub fn to_clip(&self) -> Clip {
        self.to_clip_in(unity::UnityAxes::Unity)
    }

    /// The clip, a Unity-layout file's values read as being in `unity_axes` (native files carry glTF's axes).
    pub fn to_clip_in(&self, unity_axes: unity::UnityAxes) -> Clip {
        match self {
            ClipFile::Native(c) => c.to_clip(),
            ClipFile::Unity(c) => c.to_clip(unity_axes),
        }
    }

    /// "native" or "unity".
    pub fn format_name(&self) -> &'static str {
        match self {
            ClipFile::Native(_) => "native",
            ClipFile::Unity(_) => "unity",
        }
    }
}

/// Reads a clip file, telling the two layouts apart by their first element (a tag string or an int id).
pub fn load(path: &Path) -> Result<ClipFile, ClipFileError> {
    let limit = crate::io::limits::Limits::from_env().max_file_bytes;
    let bytes = crate::io::limits::read_file(path, limit)?;
    decode(&bytes, path)
}

/// Decodes clip bytes in either layout; `path` names the source in errors.
pub fn decode(bytes: &[u8], path: &Path) -> Result<ClipFile, ClipFileError> {
    if native::looks_native(bytes) {
        native::decode(bytes, path).map(ClipFile::Native)
    } else {
        unity::decode(bytes, path).map(ClipFile::Unity)
    }
}
