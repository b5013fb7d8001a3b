//! The native `.animclip` file: MessagePack (rmp-serde), `["animtune-clip", version, body]`.

use std::path::Path;

use glam::{Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::{BakedClip, BakedMorph, BakedTrack, Channel, ClipFileError};
use crate::core::clip::{MAX_KEY_TIME, TrackTarget};
use crate::core::skeleton::MAX_PATH_BYTES;
use crate::core::{HumanBone, Transform};

/// The tag that opens every native clip file.
pub const TAG: &str = "animtune-clip";
/// The newest format version this build writes and reads. Version 2 adds the parent's rest origin and scale to the
/// rest data of tracks with a translation channel (hips placement in retargeting); tracks without them (and
/// version 1 files) read as 0 and 1. Version 3 adds rotation channels packed in as few bits as their error
/// budget allows (kind 4, [`super::packed_rotations`]). Version 4 adds the runtime's packed form
/// ([`crate::runtime::packed`]): the body's `packed` groups hold the keys of channels that share their key
/// frames, each lane naming its track (whose channel is then nil). Version 5 always writes the packed groups
/// (an empty array when there are none) and adds morph-weight tracks after them: `[node, width, times, values]`,
/// times and values as f32 little-endian bytes, `width` values per time.
pub const VERSION: u32 = 5;

/// Most key values (keys × channels) the packed groups of one file may decode to: 16 M (256 MB as f32 x, y, z, w).
pub const MAX_PACKED_VALUES: u64 = 16 << 20;

/// Quaternions further than this from unit length are refused; closer ones are renormalised.
pub(crate) const UNIT_TOLERANCE: f32 = 1e-3;

pub(crate) const KIND_REST: u8 = 0;
pub(crate) const KIND_CONSTANT: u8 = 1;
pub(crate) const KIND_KEYS: u8 = 2;
pub(crate) const KIND_KEYS_QUANTIZED: u8 = 3;
pub(crate) const KIND_ROTATIONS_PACKED: u8 = 4;

/// Version 4: keyed channels of one property sharing their key frames, in the runtime's packed form
/// ([`crate::runtime::packed`], linear interpolation), four to a block.
#[derive(Serialize, Deserialize)]
pub(crate) struct FileGroup {
    /// 0 translation, 1 rotation, 2 scale.
    pub(crate) property: u8,
    /// The key frames, as deltas (the first from frame 0).
    pub(crate) frames: Vec<u32>,
    /// Per block, the track of each of its four lanes (padding lanes repeat the last real one).
    pub(crate) tracks: Vec<u32>,
    /// Per block, the lanes in use (1–4).
    #[serde(with = "serde_bytes")]
    pub(crate) lanes: Vec<u8>,
    /// Per block of rotations, the component rebuilt from the others (0–3, or 4 for none stored); 3 for vectors.
    #[serde(with = "serde_bytes")]
    pub(crate) dropped: Vec<u8>,
    /// Per block, each lane's grid step (4 f32, little-endian).
    #[serde(with = "serde_bytes")]
    pub(crate) steps: Vec<u8>,
    /// The residual stream.
    #[serde(with = "serde_bytes")]
    pub(crate) bits: Vec<u8>,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct FileChannel {
    pub(crate) kind: u8,
    /// Frame index deltas (first from 0), one per key.
    pub(crate) frames: Vec<u32>,
    /// f32 little-endian values (KIND_CONSTANT, KIND_KEYS) or u16 little-endian quantized values.
    #[serde(with = "serde_bytes")]
    pub(crate) values: Vec<u8>,
    /// Quantized only: per-component minimum then per-component range, f32 little-endian.
    #[serde(with = "serde_bytes")]
    pub(crate) range: Vec<u8>,
    /// Version 3: the key frames as a bitmap over the clip's frames (bit f set: a key on frame f, least
    /// significant bit first), written instead of `frames` where it is shorter.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "serde_bytes")]
    pub(crate) key_bitmap: Vec<u8>,
}

/// `c` with its key frames as a bitmap over `frame_count` frames when that is shorter than their deltas.
pub(crate) fn smaller_frames(mut c: FileChannel, frame_count: u64) -> FileChannel {
    if c.frames.is_empty() {
        return c;
    }
    let bitmap_len = (frame_count as usize).div_ceil(8);
    let delta_len: usize = c
        .frames
        .iter()
        .map(|&d| match d {
            0..128 => 1,
            128..256 => 2,
            256..65536 => 3,
            _ => 5,
        })
        .sum::<usize>()
        + if c.frames.len() < 16 { 1 } else { 3 };
    // A bin field costs its length prefix (two bytes up to 255).
    if bitmap_len + 2 >= delta_len {
        return c;
    }
    let mut bitmap = vec![0u8; bitmap_len];
    let mut f = 0usize;
    for &d in &c.frames {
        f += d as usize;
        bitmap[f / 8] |= 1 << (f % 8);
    }
    c.frames.clear();
    c.key_bitmap = bitmap;
    c
}

#[derive(Serialize, Deserialize)]
pub(crate) struct FileTrack {
    /// Bytes of the previous track's path this one starts with (paths share their prefixes).
    pub(crate) path_shared: u32,
    /// The rest of the path.
    pub(crate) path_rest: String,
    /// Joint name; empty when it is the path's last segment.
    pub(crate) name: String,
    /// Index into Unity's HumanBodyBones order, if the joint is a human bone.
    pub(crate) human_bone: Option<u8>,
    /// Version 3: [`super::rest`]'s bytes. Versions 1 and 2: f32 little-endian rest translation (3), rotation
    /// (4), scale (3), parent rest rotation (4), rest height (1), and in version 2 for tracks with a translation
    /// channel the parent's rest origin (3) and scale (1).
    #[serde(with = "serde_bytes")]
    pub(crate) rest: Vec<u8>,
    /// Nil when the channel stays at rest (version 3; older files write a kind-0 channel).
    pub(crate) translation: Option<FileChannel>,
    /// As `translation`.
    pub(crate) rotation: Option<FileChannel>,
    /// As `translation`.
    pub(crate) scale: Option<FileChannel>,
}

/// Rest data per track: translation, rotation, scale, parent rest rotation, rest height; then, in version 2 and
/// for tracks with a translation channel, the parent's rest origin and scale.
pub(crate) const REST_FLOATS_PLACED: usize = 19;
/// Rest data per track without the parent's origin and scale (every track of a version 1 file).
pub(crate) const REST_FLOATS: usize = 15;

/// Explicit frame times: f32 little-endian bytes (version 3), or an array of floats (versions 1 and 2).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum FileTimes {
    Bytes(#[serde(with = "serde_bytes")] Vec<u8>),
    Floats(Vec<f32>),
}

#[derive(Serialize, Deserialize)]
pub(crate) struct Body {
    pub(crate) id: i32,
    pub(crate) name: String,
    pub(crate) duration: f32,
    pub(crate) frame_rate: f32,
    pub(crate) times: Option<FileTimes>,
    pub(crate) tracks: Vec<FileTrack>,
    /// Version 4: the packed groups (version 5 writes them even when there are none).
    #[serde(default)]
    pub(crate) packed: Vec<FileGroup>,
    /// Version 5: morph-weight tracks.
    #[serde(default)]
    pub(crate) morph: Vec<FileMorph>,
}

/// Most morph-weight values (keys × targets) one file may hold: 16 M.
pub const MAX_MORPH_VALUES: u64 = 16 << 20;

/// A morph-weight track in the file (version 5).
#[derive(Serialize, Deserialize)]
pub(crate) struct FileMorph {
    /// The node it animates.
    pub(crate) node: String,
    /// Targets per key.
    pub(crate) width: u32,
    /// Key times, f32 little-endian.
    #[serde(with = "serde_bytes")]
    pub(crate) times: Vec<u8>,
    /// `width` weights per key, f32 little-endian.
    #[serde(with = "serde_bytes")]
    pub(crate) values: Vec<u8>,
}

/// True when the bytes start like a native clip (an array whose first element is the tag).
pub fn looks_native(bytes: &[u8]) -> bool {
    let mut rd = bytes;
    rmp::decode::read_array_len(&mut rd).is_ok() && {
        let mut buf = [0u8; 32];
        rmp::decode::read_str(&mut rd, &mut buf).is_ok_and(|s| s == TAG)
    }
}

pub(crate) trait Components: Copy {
    const N: usize;
    fn to_vec(self) -> Vec<f32>;
    fn from_slice(s: &[f32]) -> Self;
}

impl Components for Vec3 {
    const N: usize = 3;
    fn to_vec(self) -> Vec<f32> {
        self.to_array().to_vec()
    }
    fn from_slice(s: &[f32]) -> Self {
        Vec3::from_slice(s)
    }
}

impl Components for Quat {
    const N: usize = 4;
    fn to_vec(self) -> Vec<f32> {
        self.to_array().to_vec()
    }
    fn from_slice(s: &[f32]) -> Self {
        Quat::from_vec4(Vec4::from_slice(s))
    }
}

struct Checker<'a> {
    path: &'a Path,
}

impl Checker<'_> {
    fn invalid(&self, message: String) -> ClipFileError {
        ClipFileError::Invalid {
            path: self.path.to_path_buf(),
            message,
        }
    }

    fn floats(&self, bytes: &[u8], what: &str) -> Result<Vec<f32>, ClipFileError> {
        if !bytes.len().is_multiple_of(4) {
            return Err(self.invalid(format!(
                "{what}: {} value bytes is not a whole number of floats",
                bytes.len()
            )));
        }
        let v: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if v.iter().any(|x| !x.is_finite()) {
            return Err(self.invalid(format!("{what}: value is NaN or infinite")));
        }
        Ok(v)
    }

    /// Rest data of a version 1 or 2 file: 15 floats (19 in version 2 for tracks that carry their parent's
    /// origin and scale).
    fn rest_floats(
        &self,
        bytes: &[u8],
        version: u32,
        what: &str,
    ) -> Result<super::rest::Rest, ClipFileError> {
        let rest = self.floats(bytes, what)?;
        let fits = rest.len() == REST_FLOATS || (version >= 2 && rest.len() == REST_FLOATS_PLACED);
        if !fits {
            return Err(self.invalid(format!("{what} has the wrong number of values")));
        }
        if rest.get(18).is_some_and(|&s| s <= 0.0) {
            return Err(self.invalid(format!("{what} has a parent scale that is not positive")));
        }
        Ok(super::rest::Rest {
            local: Transform {
                translation: Vec3::from_slice(&rest[0..3]).into(),
                rotation: Quat::from_slice(&rest[3..7]).normalize(),
                scale: Vec3::from_slice(&rest[7..10]).into(),
            },
            parent_rotation: Quat::from_slice(&rest[10..14]).normalize(),
            height: rest[14],
            parent_origin: rest.get(15..18).map_or(Vec3::ZERO, Vec3::from_slice),
            parent_scale: rest.get(18).copied().unwrap_or(1.0),
        })
    }

    /// The key frames of a keyed channel, from its bitmap or its deltas.
    fn frames(
        &self,
        c: &FileChannel,
        frame_count: u64,
        what: &str,
    ) -> Result<Vec<u32>, ClipFileError> {
        if !c.key_bitmap.is_empty() {
            return self.bitmap_frames(c, frame_count, what);
        }
        self.delta_frames(&c.frames, frame_count, what)
    }

    /// Key frames from their deltas (the first from frame 0): at least one, increasing, inside the clip.
    fn delta_frames(
        &self,
        deltas: &[u32],
        frame_count: u64,
        what: &str,
    ) -> Result<Vec<u32>, ClipFileError> {
        if deltas.is_empty() {
            return Err(self.invalid(format!("{what}: keyed channel with no keys")));
        }
        let mut frames = Vec::with_capacity(deltas.len());
        let mut f: u64 = 0;
        for (i, &d) in deltas.iter().enumerate() {
            if i > 0 && d == 0 {
                return Err(self.invalid(format!(
                    "{what}: key {i} does not come after the previous one"
                )));
            }
            f += d as u64;
            if f >= frame_count {
                return Err(self.invalid(format!(
                    "{what}: key {i} is on frame {f}, past the clip's {frame_count} frames"
                )));
            }
            frames.push(f as u32);
        }
        Ok(frames)
    }

    /// Key frames written as a bitmap: one bit per frame of the clip, no bit set past its end, one key at least.
    fn bitmap_frames(
        &self,
        c: &FileChannel,
        frame_count: u64,
        what: &str,
    ) -> Result<Vec<u32>, ClipFileError> {
        if !c.frames.is_empty() || c.key_bitmap.len() as u64 != frame_count.div_ceil(8) {
            return Err(self.invalid(format!(
                "{what}: a key bitmap of {} bytes does not fit the clip's {frame_count} frames",
                c.key_bitmap.len()
            )));
        }
        let frames: Vec<u32> = (0..c.key_bitmap.len() * 8)
            .filter(|&f| c.key_bitmap[f / 8] >> (f % 8) & 1 == 1)
            .map(|f| f as u32)
            .collect();
        match frames.last() {
            None => Err(self.invalid(format!("{what}: keyed channel with no keys"))),
            Some(&f) if u64::from(f) >= frame_count => Err(self.invalid(format!(
                "{what}: key on frame {f}, past the clip's {frame_count} frames"
            ))),
            Some(_) => Ok(frames),
        }
    }

    /// A rotation channel of kind 4: its range is the bits per component, then the x, y, z minimums and
    /// extents as floats.
    fn packed_rotations(
        &self,
        c: &FileChannel,
        frame_count: u64,
        what: &str,
    ) -> Result<Channel<Quat>, ClipFileError> {
        let frames = self.frames(c, frame_count, what)?;
        let Some((&bits, grid)) = c.range.split_first() else {
            return Err(self.invalid(format!("{what}: packed rotations without their range")));
        };
        if grid.len() != 12 {
            return Err(self.invalid(format!(
                "{what}: packed rotations need a 13-byte range, found {}",
                c.range.len()
            )));
        }
        let u16_at = |i: usize| u16::from_le_bytes([grid[2 * i], grid[2 * i + 1]]);
        let packed = super::packed_rotations::PackedRotations {
            bits,
            low: [u16_at(0), u16_at(1), u16_at(2)],
            high: [u16_at(3), u16_at(4), u16_at(5)],
            data: c.values.clone(),
        };
        let values = super::packed_rotations::unpack(&packed, frames.len())
            .map_err(|e| self.invalid(format!("{what}: {e}")))?;
        Ok(Channel::Keys { frames, values })
    }

    fn channel<T: Components>(
        &self,
        c: &FileChannel,
        frame_count: u64,
        what: &str,
    ) -> Result<Channel<T>, ClipFileError> {
        let n = T::N;
        match c.kind {
            KIND_REST => Ok(Channel::Rest),
            KIND_CONSTANT => {
                let v = self.floats(&c.values, what)?;
                if v.len() != n {
                    return Err(self.invalid(format!(
                        "{what}: constant has {} components, expected {n}",
                        v.len()
                    )));
                }
                Ok(Channel::Constant(T::from_slice(&v)))
            }
            KIND_KEYS | KIND_KEYS_QUANTIZED => {
                let frames = self.frames(c, frame_count, what)?;
                let keys = frames.len();
                let flat = if c.kind == KIND_KEYS {
                    let v = self.floats(&c.values, what)?;
                    if v.len() != keys * n {
                        return Err(self.invalid(format!(
                            "{what}: {keys} keys but {} values (expected {})",
                            v.len(),
                            keys * n
                        )));
                    }
                    v
                } else {
                    let range = self.floats(&c.range, what)?;
                    if c.values.len() != keys * n * 2 || range.len() != 2 * n {
                        return Err(self.invalid(format!(
                            "{what}: quantized data does not match {keys} keys"
                        )));
                    }
                    let (min, extent) = range.split_at(n);
                    c.values
                        .chunks_exact(2)
                        .enumerate()
                        .map(|(i, b)| {
                            let q = u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0;
                            min[i % n] + q * extent[i % n]
                        })
                        .collect()
                };
                let values = flat.chunks_exact(n).map(T::from_slice).collect();
                Ok(Channel::Keys { frames, values })
            }
            k => Err(self.invalid(format!("{what}: unknown channel kind {k}"))),
        }
    }

    /// Decodes packed group `index` into the keys of the channels it names (which must be nil in their tracks),
    /// adding its key values to `values` (bounded by [`MAX_PACKED_VALUES`]).
    fn packed_group(
        &self,
        g: &FileGroup,
        index: usize,
        frame_count: u64,
        values: &mut u64,
        tracks: &mut [BakedTrack],
    ) -> Result<(), ClipFileError> {
        use crate::runtime::packed::{PackedGroup, PackedProperty};
        let what = format!("packed group {index}");
        let bad = |m: String| self.invalid(format!("{what}: {m}"));
        let property = PackedProperty::from_code(g.property)
            .ok_or_else(|| bad(format!("unknown property {}", g.property)))?;
        let frames = self.delta_frames(&g.frames, frame_count, &what)?;
        let blocks = g.lanes.len();
        if g.tracks.len() != 4 * blocks || g.dropped.len() != blocks || g.steps.len() != 16 * blocks
        {
            return Err(bad(format!(
                "{blocks} blocks with {} lane tracks, {} dropped components and {} step bytes",
                g.tracks.len(),
                g.dropped.len(),
                g.steps.len()
            )));
        }
        let real: u64 = g.lanes.iter().map(|&l| u64::from(l)).sum();
        *values = values.saturating_add(real.saturating_mul(frames.len() as u64));
        if *values > MAX_PACKED_VALUES {
            return Err(bad(format!(
                "decodes to over {MAX_PACKED_VALUES} key values"
            )));
        }
        let rotations = property == PackedProperty::Rotation;
        for (b, (&lanes, &dropped)) in g.lanes.iter().zip(&g.dropped).enumerate() {
            let dropped_ok = if rotations {
                dropped <= 4
            } else {
                dropped == 3
            };
            if !(1..=4).contains(&lanes) || !dropped_ok {
                return Err(bad(format!(
                    "block {b}: {lanes} lanes, dropped component {dropped}"
                )));
            }
        }
        let steps = self.floats(&g.steps, &what)?;
        if steps.iter().any(|&s| s <= 0.0) {
            return Err(bad("a grid step is not positive".into()));
        }
        let mut joints = Vec::with_capacity(blocks);
        for block in g.tracks.chunks_exact(4) {
            let mut lanes = [0u16; 4];
            for (lane, &t) in lanes.iter_mut().zip(block) {
                *lane = u16::try_from(t)
                    .ok()
                    .filter(|&t| usize::from(t) < tracks.len())
                    .ok_or_else(|| {
                        bad(format!("names track {t}, past the file's {}", tracks.len()))
                    })?;
            }
            joints.push(lanes);
        }
        let mut bits = g.bits.clone();
        bits.extend_from_slice(&[0; 8]);
        let group = PackedGroup {
            property,
            time_set: 0,
            keys: frames.len(),
            joints,
            holds: vec![Vec4::ZERO; blocks],
            steps: steps.chunks_exact(4).map(Vec4::from_slice).collect(),
            dropped: g.dropped.clone(),
            lanes: g.lanes.clone(),
            bits,
        };
        let least_bits = group.least_stream_bits();
        if least_bits > g.bits.len() as u64 * 8 {
            return Err(bad(format!(
                "its residual widths alone need {least_bits} bits, the stream has {}",
                g.bits.len() * 8
            )));
        }
        let (lanes, used_bits) = group.decode_lanes();
        let lane_steps: Vec<f32> = group
            .steps
            .iter()
            .zip(&group.lanes)
            .flat_map(|(s, &n)| s.to_array().into_iter().take(usize::from(n)))
            .collect();
        if used_bits > g.bits.len() * 8 {
            return Err(bad(format!(
                "its keys need {used_bits} bits, the stream has {}",
                g.bits.len() * 8
            )));
        }
        for ((track, keys), step) in lanes.into_iter().zip(lane_steps) {
            let t = &mut tracks[usize::from(track)];
            t.grid_steps[usize::from(g.property)] = Some(step);
            let name = &t.target.path;
            let taken = || bad(format!("track '{name}' has this channel already"));
            if keys.iter().flatten().any(|v| !v.is_finite()) {
                return Err(bad(format!("track '{name}': a key is not finite")));
            }
            let frames = frames.clone();
            match property {
                PackedProperty::Translation | PackedProperty::Scale => {
                    let channel = if property == PackedProperty::Scale {
                        &mut t.scale
                    } else {
                        &mut t.translation
                    };
                    if !matches!(channel, Channel::Rest) {
                        return Err(taken());
                    }
                    *channel = Channel::Keys {
                        frames,
                        values: keys.iter().map(|k| Vec3::from_slice(&k[..3])).collect(),
                    };
                }
                PackedProperty::Rotation => {
                    if !matches!(t.rotation, Channel::Rest) {
                        return Err(taken());
                    }
                    let keys = Channel::Keys {
                        frames,
                        values: keys.iter().map(|k| Quat::from_array(*k)).collect(),
                    };
                    t.rotation = self.unit(keys, &what, true)?;
                }
            }
        }
        Ok(())
    }

    fn unit(
        &self,
        c: Channel<Quat>,
        what: &str,
        quantized: bool,
    ) -> Result<Channel<Quat>, ClipFileError> {
        let fix = |q: Quat| -> Result<Quat, ClipFileError> {
            let len = q.length();
            if !quantized && (len - 1.0).abs() > UNIT_TOLERANCE || len < 0.5 {
                return Err(self.invalid(format!(
                    "{what}: quaternion of length {len} is not a rotation"
                )));
            }
            Ok(q / len)
        };
        Ok(match c {
            Channel::Rest => Channel::Rest,
            Channel::Constant(q) => Channel::Constant(fix(q)?),
            Channel::Keys { frames, values } => Channel::Keys {
                frames,
                values: values.into_iter().map(fix).collect::<Result<_, _>>()?,
            },
        })
    }
}

/// Decodes and validates `.animclip` bytes; `path` names the source in errors.
pub fn decode(bytes: &[u8], path: &Path) -> Result<BakedClip, ClipFileError> {
    let format = |e: String| ClipFileError::Format {
        path: path.to_path_buf(),
        message: format!("not a readable .animclip file: {e}"),
    };
    let (tag, version, _): (String, u32, serde::de::IgnoredAny) =
        rmp_serde::from_slice(bytes).map_err(|e| format(e.to_string()))?;
    if tag != TAG {
        return Err(ClipFileError::Format {
            path: path.to_path_buf(),
            message: format!("not an .animclip file (tag '{tag}')"),
        });
    }
    if version > VERSION {
        return Err(ClipFileError::NewerVersion {
            path: path.to_path_buf(),
            found: version,
            supported: VERSION,
        });
    }
    let (_, _, body): (String, u32, Body) =
        super::messagepack::decode_whole(bytes).map_err(format)?;
    let ck = Checker { path };
    if !body.duration.is_finite()
        || !(0.0..=MAX_KEY_TIME).contains(&body.duration)
        || !body.frame_rate.is_finite()
        || !(0.0..=1000.0).contains(&body.frame_rate)
    {
        return Err(ck.invalid(format!(
            "duration {} s / frame rate {} out of range (0 to {MAX_KEY_TIME} s, 0 to 1000 fps)",
            body.duration, body.frame_rate
        )));
    }
    let times = match body.times {
        None => None,
        Some(FileTimes::Floats(t)) => Some(t),
        Some(FileTimes::Bytes(b)) => Some(ck.floats(&b, "frame times")?),
    };
    let frame_count = match &times {
        Some(t) => {
            if t.is_empty()
                || t.iter().any(|x| !x.is_finite())
                || t.windows(2).any(|w| w[1] <= w[0])
                || t[0] < 0.0
            {
                return Err(
                    ck.invalid("frame times are empty, not finite or not increasing".into())
                );
            }
            t.len() as u64
        }
        None => {
            if body.frame_rate <= 0.0 && body.duration > 0.0 {
                return Err(ck.invalid("frame rate must be positive".into()));
            }
            super::uniform_frame_count(body.duration, body.frame_rate)
        }
    };
    let mut tracks = Vec::with_capacity(body.tracks.len().min(65536));
    let mut prev_path = String::new();
    let mut previous_rest: Option<super::rest::Rest> = None;
    let mut path_bytes = 0u64;
    for (i, t) in body.tracks.iter().enumerate() {
        let shared = t.path_shared as usize;
        if shared > prev_path.len() || !prev_path.is_char_boundary(shared) {
            return Err(ck.invalid(format!(
                "track {i}: shares {shared} bytes of a {}-byte previous path",
                prev_path.len()
            )));
        }
        // Shared prefixes let a small file spell out paths that grow with every track: bound their total.
        path_bytes += (shared + t.path_rest.len()) as u64;
        if path_bytes > MAX_PATH_BYTES {
            return Err(ck.invalid(format!(
                "track {i}: the track paths spell out more than {MAX_PATH_BYTES} bytes"
            )));
        }
        let path = format!("{}{}", &prev_path[..shared], t.path_rest);
        let what = |p: &str| format!("track '{path}' {p}");
        let rest = if version >= 3 {
            let derived = previous_rest
                .as_ref()
                .filter(|_| {
                    path.rsplit_once('/')
                        .is_some_and(|(parent, _)| parent == prev_path)
                })
                .map(super::rest::derived_parent);
            super::rest::decode(&t.rest, derived).map_err(|e| ck.invalid(what(&e)))?
        } else {
            ck.rest_floats(&t.rest, version, &what("rest data"))?
        };
        previous_rest = Some(rest);
        let human_bone = match t.human_bone {
            None => None,
            Some(b) => Some(
                *HumanBone::ALL
                    .get(b as usize)
                    .ok_or_else(|| ck.invalid(what(&format!("names unknown human bone {b}"))))?,
            ),
        };
        let name = if t.name.is_empty() {
            path.rsplit('/').next().unwrap_or_default().to_string()
        } else {
            t.name.clone()
        };
        let rest_channel = FileChannel {
            kind: KIND_REST,
            frames: Vec::new(),
            values: Vec::new(),
            range: Vec::new(),
            key_bitmap: Vec::new(),
        };
        let (translation, rotation, scale) = (
            t.translation.as_ref().unwrap_or(&rest_channel),
            t.rotation.as_ref().unwrap_or(&rest_channel),
            t.scale.as_ref().unwrap_or(&rest_channel),
        );
        let quantized_rotation =
            matches!(rotation.kind, KIND_KEYS_QUANTIZED | KIND_ROTATIONS_PACKED);
        let rotation = if rotation.kind == KIND_ROTATIONS_PACKED && version >= 3 {
            ck.packed_rotations(rotation, frame_count, &what("rotation"))?
        } else {
            ck.channel::<Quat>(rotation, frame_count, &what("rotation"))?
        };
        tracks.push(BakedTrack {
            target: TrackTarget {
                path: path.clone(),
                name,
                human_bone,
                rest: rest.local,
                parent_rest_rotation: rest.parent_rotation,
                rest_height: rest.height,
                parent_rest_origin: rest.parent_origin,
                parent_rest_scale: rest.parent_scale,
                rest_known: true,
            },
            translation: ck.channel(translation, frame_count, &what("translation"))?,
            rotation: ck.unit(rotation, &what("rotation"), quantized_rotation)?,
            scale: ck.channel(scale, frame_count, &what("scale"))?,
            grid_steps: [None; 3],
        });
        prev_path = path;
    }
    if !body.packed.is_empty() && version < 4 {
        return Err(ck.invalid(format!("packed groups in a version {version} file")));
    }
    // Every block drives at least one channel and no channel is given twice, so a file has at most three blocks
    // a track: checked on the declared counts, before any group is decoded.
    let blocks: u64 = body.packed.iter().map(|g| g.lanes.len() as u64).sum();
    if blocks > 3 * tracks.len() as u64 {
        return Err(ck.invalid(format!(
            "{blocks} packed blocks, more than the 3 channels of each of its {} tracks",
            tracks.len()
        )));
    }
    let mut values: u64 = 0;
    for (i, g) in body.packed.iter().enumerate() {
        ck.packed_group(g, i, frame_count, &mut values, &mut tracks)?;
    }
    if !body.morph.is_empty() && version < 5 {
        return Err(ck.invalid(format!("morph-weight tracks in a version {version} file")));
    }
    let declared: u64 = body.morph.iter().map(|m| m.values.len() as u64 / 4).sum();
    if declared > MAX_MORPH_VALUES {
        return Err(ck.invalid(format!(
            "{declared} morph weights, more than the {MAX_MORPH_VALUES} a file may hold"
        )));
    }
    let mut morph = Vec::with_capacity(body.morph.len());
    for (i, m) in body.morph.iter().enumerate() {
        let what = format!("morph track {i} ('{}')", m.node);
        let times = ck.floats(&m.times, &what)?;
        let values = ck.floats(&m.values, &what)?;
        let width = m.width as usize;
        if times.is_empty()
            || width == 0
            || values.len() != times.len() * width
            || times.windows(2).any(|w| w[1] <= w[0])
            || times[0] < 0.0
            || times[times.len() - 1] > MAX_KEY_TIME
        {
            return Err(ck.invalid(format!(
                "{what}: {} times, {} values of {width} targets: not increasing keys with a value per target",
                times.len(),
                values.len()
            )));
        }
        morph.push(BakedMorph {
            node: m.node.clone(),
            width,
            times,
            values,
        });
    }
    Ok(BakedClip {
        id: body.id,
        name: body.name,
        duration: body.duration,
        frame_rate: body.frame_rate,
        times,
        tracks,
        morph,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::encode::native::{KeyStorage, encode_with};

    fn rest_channel() -> FileChannel {
        FileChannel {
            kind: KIND_REST,
            frames: Vec::new(),
            values: Vec::new(),
            range: Vec::new(),
            key_bitmap: Vec::new(),
        }
    }

    fn one_track_body(rest: &[f32]) -> Body {
        Body {
            id: 0,
            name: "one".into(),
            duration: 1.0,
            frame_rate: 30.0,
            times: None,
            tracks: vec![FileTrack {
                path_shared: 0,
                path_rest: "Hips".into(),
                name: String::new(),
                human_bone: Some(0),
                rest: rest.iter().flat_map(|f| f.to_le_bytes()).collect(),
                translation: Some(rest_channel()),
                rotation: Some(rest_channel()),
                scale: Some(rest_channel()),
            }],
            packed: Vec::new(),
            morph: Vec::new(),
        }
    }

    #[test]
    fn version_1_files_read_with_no_parent_origin_and_unit_scale() {
        let v1 = [
            0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0,
        ];
        let bytes = rmp_serde::to_vec(&(TAG, 1u32, one_track_body(&v1))).unwrap();
        let clip = decode(&bytes, Path::new("v1.animclip")).unwrap();
        let t = &clip.tracks[0].target;
        assert_eq!(
            (t.parent_rest_origin, t.parent_rest_scale),
            (Vec3::ZERO, 1.0)
        );
        assert_eq!(t.rest_height, 1.0);
        // Version 2 carries them where a track has them; a version 1 file cannot.
        let v2: Vec<f32> = v1.iter().copied().chain([0.5, 0.0, -2.0, 0.01]).collect();
        let bytes = rmp_serde::to_vec(&(TAG, 2u32, one_track_body(&v2))).unwrap();
        let t = decode(&bytes, Path::new("v2.animclip")).unwrap().tracks[0]
            .target
            .clone();
        assert_eq!(
            (t.parent_rest_origin, t.parent_rest_scale),
            (Vec3::new(0.5, 0.0, -2.0), 0.01)
        );
        let bytes = rmp_serde::to_vec(&(TAG, 1u32, one_track_body(&v2))).unwrap();
        let err = decode(&bytes, Path::new("old.animclip"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("wrong number of values"), "{err}");
    }

    /// A one-track clip (Hips, turning about y over 31 frames), its keyed rotation as `rotation`.
    fn turning_clip() -> BakedClip {
        let values: Vec<Quat> = (0..31)
            .map(|i| Quat::from_rotation_y(0.05 * i as f32))
            .collect();
        BakedClip {
            id: 1,
            name: "turn".into(),
            duration: 1.0,
            frame_rate: 30.0,
            times: None,
            tracks: vec![BakedTrack {
                target: TrackTarget::at_identity("Hips"),
                translation: Channel::Rest,
                rotation: Channel::Keys {
                    frames: (0..31).collect(),
                    values,
                },
                scale: Channel::Rest,
                grid_steps: [None; 3],
            }],
            morph: Vec::new(),
        }
    }

    fn body_of(bytes: &[u8]) -> Body {
        let (_, _, body): (String, u32, Body) = rmp_serde::from_slice(bytes).unwrap();
        body
    }

    #[test]
    fn version_3_packed_rotations_still_read() {
        let clip = turning_clip();
        let Channel::Keys { values, .. } = &clip.tracks[0].rotation else {
            unreachable!()
        };
        // A version 3 writer's kind 4 channel: x, y, z in b bits of their range, w rebuilt.
        let p = super::super::packed_rotations::pack(values, 1e-4).unwrap();
        let mut body = body_of(&encode_with(&clip, KeyStorage::Fixed16));
        let channel = body.tracks[0].rotation.as_mut().unwrap();
        channel.kind = KIND_ROTATIONS_PACKED;
        channel.values = p.data.clone();
        channel.range = std::iter::once(p.bits)
            .chain(p.low.iter().chain(&p.high).flat_map(|v| v.to_le_bytes()))
            .collect();
        let bytes = rmp_serde::to_vec(&(TAG, 3u32, body)).unwrap();
        let back = decode(&bytes, Path::new("v3.animclip")).unwrap();
        let Channel::Keys { values: read, .. } = &back.tracks[0].rotation else {
            panic!("{:?}", back.tracks[0].rotation)
        };
        for (a, b) in values.iter().zip(read) {
            assert!(super::super::packed_rotations::rotation_angle(*a, *b) <= 1e-4);
        }
    }

    #[test]
    fn packed_groups_are_checked() {
        let clip = turning_clip();
        let budgets = [[1e-4; 3]];
        let bytes = encode_with(&clip, KeyStorage::Packed(&budgets));
        let good = body_of(&bytes);
        assert_eq!(good.packed.len(), 1);
        assert!(
            good.tracks[0].rotation.is_none(),
            "a packed channel is nil in its track"
        );
        let back = decode(&bytes, Path::new("v4.animclip")).unwrap();
        assert_eq!(back.tracks[0].grid_steps[1], Some(1e-4));
        let Channel::Keys { values, .. } = &back.tracks[0].rotation else {
            panic!()
        };
        let Channel::Keys { values: want, .. } = &clip.tracks[0].rotation else {
            panic!()
        };
        for (a, b) in want.iter().zip(values) {
            assert!(super::super::packed_rotations::rotation_angle(*a, *b) < 3e-4);
        }
        let refused = |edit: &dyn Fn(&mut Body), version: u32, needle: &str| {
            let mut body = body_of(&bytes);
            edit(&mut body);
            let bytes = rmp_serde::to_vec(&(TAG, version, body)).unwrap();
            let err = decode(&bytes, Path::new("bad.animclip"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("bad.animclip") && err.contains(needle),
                "{err}"
            );
        };
        refused(&|_| {}, 3, "packed groups in a version 3 file");
        refused(&|b| b.packed[0].tracks[0] = 7, 4, "names track 7");
        refused(&|b| b.packed[0].bits.truncate(2), 4, "the stream has 16");
        refused(&|b| b.packed[0].property = 9, 4, "unknown property 9");
        // A million blocks (a 32 MB file) once decoded to 970 MB before the stream was found short.
        refused(
            &|b| {
                let g = &mut b.packed[0];
                g.tracks = g.tracks.repeat(1_000_000);
                g.lanes = g.lanes.repeat(1_000_000);
                g.dropped = g.dropped.repeat(1_000_000);
                g.steps = g.steps.repeat(1_000_000);
            },
            4,
            "1000000 packed blocks, more than the 3 channels of each of its 1 tracks",
        );
        refused(
            &|b| {
                let g = &mut b.packed[0];
                g.frames = vec![1; 30];
                g.bits.truncate(20);
            },
            4,
            "its residual widths alone need",
        );
        refused(&|b| b.packed[0].lanes[0] = 5, 4, "5 lanes");
        refused(
            &|b| b.packed[0].steps[..4].copy_from_slice(&0f32.to_le_bytes()),
            4,
            "not positive",
        );
        refused(
            &|b| b.packed[0].frames.push(100),
            4,
            "past the clip's 31 frames",
        );
        refused(
            &|b| {
                b.tracks[0].rotation = Some(
                    body_of(&encode_with(&turning_clip(), KeyStorage::Full)).tracks[0]
                        .rotation
                        .take()
                        .unwrap(),
                )
            },
            4,
            "has this channel already",
        );
    }

    #[test]
    fn paths_growing_through_shared_prefixes_are_bounded() {
        let rest: Vec<u8> = [0.0f32, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
            .into_iter()
            .chain([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0])
            .flat_map(f32::to_le_bytes)
            .collect();
        // Every track repeats the whole previous path and adds 100 bytes: 1 300 tracks spell out 84 MB of paths
        // from a file of about 330 KB.
        let mut prev = 0u32;
        let tracks: Vec<FileTrack> = (0..1300)
            .map(|i| {
                let t = FileTrack {
                    path_shared: prev,
                    path_rest: format!("/{i:099}"),
                    name: String::new(),
                    human_bone: None,
                    rest: rest.clone(),
                    translation: Some(rest_channel()),
                    rotation: Some(rest_channel()),
                    scale: Some(rest_channel()),
                };
                prev += 100;
                t
            })
            .collect();
        let body = Body {
            id: 0,
            name: "grow".into(),
            duration: 1.0,
            frame_rate: 30.0,
            times: None,
            tracks,
            packed: Vec::new(),
            morph: Vec::new(),
        };
        let bytes = rmp_serde::to_vec(&(TAG, 2u32, body)).unwrap();
        assert!(bytes.len() < 1 << 20, "{}", bytes.len());
        let err = decode(&bytes, Path::new("grow.animclip"))
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("grow.animclip") && err.contains(&MAX_PATH_BYTES.to_string()),
            "{err}"
        );
    }
}
