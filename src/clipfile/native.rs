//! The native `.animclip` file: MessagePack (rmp-serde), `["animtune-clip", version, body]`.

use std::path::Path;

use glam::{Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::{BakedClip, BakedTrack, Channel, ClipFileError};
use crate::core::clip::{MAX_KEY_TIME, TrackTarget};
use crate::core::skeleton::MAX_PATH_BYTES;
use crate::core::{HumanBone, Transform};

/// The tag that opens every native clip file.
pub const TAG: &str = "animtune-clip";
/// The newest format version this build writes and reads. Version 2 adds the parent's rest origin and scale to the
/// rest data of tracks with a translation channel (hips placement in retargeting); tracks without them (and
/// version 1 files) read as 0 and 1.
pub const VERSION: u32 = 2;

/// Quaternions further than this from unit length are refused; closer ones are renormalised.
const UNIT_TOLERANCE: f32 = 1e-3;

const KIND_REST: u8 = 0;
const KIND_CONSTANT: u8 = 1;
const KIND_KEYS: u8 = 2;
const KIND_KEYS_QUANTIZED: u8 = 3;

#[derive(Serialize, Deserialize)]
struct FileChannel {
    kind: u8,
    /// Frame index deltas (first from 0), one per key.
    frames: Vec<u32>,
    /// f32 little-endian values (KIND_CONSTANT, KIND_KEYS) or u16 little-endian quantized values.
    #[serde(with = "serde_bytes")]
    values: Vec<u8>,
    /// Quantized only: per-component minimum then per-component range, f32 little-endian.
    #[serde(with = "serde_bytes")]
    range: Vec<u8>,
}

#[derive(Serialize, Deserialize)]
struct FileTrack {
    /// Bytes of the previous track's path this one starts with (paths share their prefixes).
    path_shared: u32,
    /// The rest of the path.
    path_rest: String,
    /// Joint name; empty when it is the path's last segment.
    name: String,
    /// Index into Unity's HumanBodyBones order, if the joint is a human bone.
    human_bone: Option<u8>,
    /// f32 little-endian: rest translation (3), rotation (4), scale (3), parent rest rotation (4), rest height (1).
    #[serde(with = "serde_bytes")]
    rest: Vec<u8>,
    translation: FileChannel,
    rotation: FileChannel,
    scale: FileChannel,
}

/// Rest data per track: translation, rotation, scale, parent rest rotation, rest height; then, in version 2 and
/// for tracks with a translation channel, the parent's rest origin and scale.
const REST_FLOATS_PLACED: usize = 19;
/// Rest data per track without the parent's origin and scale (every track of a version 1 file).
const REST_FLOATS: usize = 15;

#[derive(Serialize, Deserialize)]
struct Body {
    id: i32,
    name: String,
    duration: f32,
    frame_rate: f32,
    times: Option<Vec<f32>>,
    tracks: Vec<FileTrack>,
}

/// True when the bytes start like a native clip (an array whose first element is the tag).
pub fn looks_native(bytes: &[u8]) -> bool {
    let mut rd = bytes;
    rmp::decode::read_array_len(&mut rd).is_ok() && {
        let mut buf = [0u8; 32];
        rmp::decode::read_str(&mut rd, &mut buf).is_ok_and(|s| s == TAG)
    }
}

trait Components: Copy {
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

/// Length in bytes of the common prefix of two paths, cut at a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .take_while(|((_, x), y)| x == y)
        .last()
        .map_or(0, |((i, x), _)| i + x.len_utf8())
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn encode_channel<T: Components>(c: &Channel<T>, quantize: bool) -> FileChannel {
    let empty = |kind| FileChannel {
        kind,
        frames: Vec::new(),
        values: Vec::new(),
        range: Vec::new(),
    };
    match c {
        Channel::Rest => empty(KIND_REST),
        Channel::Constant(v) => FileChannel {
            values: f32_bytes(&v.to_vec()),
            ..empty(KIND_CONSTANT)
        },
        Channel::Keys { frames, values } => {
            let mut deltas = Vec::with_capacity(frames.len());
            let mut prev = 0;
            for (i, &f) in frames.iter().enumerate() {
                deltas.push(if i == 0 { f } else { f - prev });
                prev = f;
            }
            let flat: Vec<f32> = values.iter().flat_map(|v| v.to_vec()).collect();
            if !quantize {
                return FileChannel {
                    frames: deltas,
                    values: f32_bytes(&flat),
                    ..empty(KIND_KEYS)
                };
            }
            let mut min = vec![f32::MAX; T::N];
            let mut max = vec![f32::MIN; T::N];
            for v in flat.chunks_exact(T::N) {
                for i in 0..T::N {
                    min[i] = min[i].min(v[i]);
                    max[i] = max[i].max(v[i]);
                }
            }
            let extent: Vec<f32> = min.iter().zip(&max).map(|(a, b)| b - a).collect();
            let q: Vec<u8> = flat
                .chunks_exact(T::N)
                .flat_map(|v| {
                    (0..T::N)
                        .map(|i| {
                            let u = if extent[i] > 0.0 {
                                (v[i] - min[i]) / extent[i]
                            } else {
                                0.0
                            };
                            (u * 65535.0).round().clamp(0.0, 65535.0) as u16
                        })
                        .collect::<Vec<_>>()
                })
                .flat_map(u16::to_le_bytes)
                .collect();
            FileChannel {
                kind: KIND_KEYS_QUANTIZED,
                frames: deltas,
                values: q,
                range: f32_bytes(&[min, extent].concat()),
            }
        }
    }
}

/// Encodes a baked clip as `.animclip` bytes; `quantize` stores keyed values as 16-bit fractions of each track's range.
pub fn encode(clip: &BakedClip, quantize: bool) -> Vec<u8> {
    let body = Body {
        id: clip.id,
        name: clip.name.clone(),
        duration: clip.duration,
        frame_rate: clip.frame_rate,
        times: clip.times.clone(),
        tracks: clip
            .tracks
            .iter()
            .scan("", |prev: &mut &str, t| {
                let path = t.target.path.as_str();
                let shared = common_prefix(prev, path);
                *prev = path;
                let r = t.target.rest;
                // The parent's origin and scale place a translation in model space (hips placement): only
                // tracks that move their joint carry them.
                let placed = !matches!(t.translation, Channel::Rest);
                let placement = [
                    t.target.parent_rest_origin.to_array().as_slice(),
                    &[t.target.parent_rest_scale],
                ]
                .concat();
                let rest = [
                    r.translation.to_array().as_slice(),
                    &r.rotation.to_array(),
                    &r.scale.to_array(),
                    &t.target.parent_rest_rotation.to_array(),
                    &[t.target.rest_height],
                    if placed { &placement } else { &[] },
                ]
                .concat();
                let last_segment = path.rsplit('/').next().unwrap_or_default();
                Some(FileTrack {
                    path_shared: shared as u32,
                    path_rest: path[shared..].to_string(),
                    name: if t.target.name == last_segment {
                        String::new()
                    } else {
                        t.target.name.clone()
                    },
                    human_bone: t
                        .target
                        .human_bone
                        .and_then(|b| HumanBone::ALL.iter().position(|&x| x == b))
                        .map(|i| i as u8),
                    rest: f32_bytes(&rest),
                    translation: encode_channel(&t.translation, quantize),
                    rotation: encode_channel(&t.rotation, quantize),
                    scale: encode_channel(&t.scale, quantize),
                })
            })
            .collect(),
    };
    rmp_serde::to_vec(&(TAG, VERSION, body)).expect("clip data always serializes")
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
                let keys = c.frames.len();
                if keys == 0 {
                    return Err(self.invalid(format!("{what}: keyed channel with no keys")));
                }
                let mut frames = Vec::with_capacity(keys);
                let mut f: u64 = 0;
                for (i, &d) in c.frames.iter().enumerate() {
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
    let (_, _, body): (String, u32, Body) = super::decode_whole(bytes).map_err(format)?;
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
    let frame_count = match &body.times {
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
        let rest = ck.floats(&t.rest, &what("rest data"))?;
        let fits = rest.len() == REST_FLOATS || (version >= 2 && rest.len() == REST_FLOATS_PLACED);
        if !fits {
            return Err(ck.invalid(what("rest data has the wrong number of values")));
        }
        if rest.get(18).is_some_and(|&s| s <= 0.0) {
            return Err(ck.invalid(what("rest data has a parent scale that is not positive")));
        }
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
        let rotation = ck.channel::<Quat>(&t.rotation, frame_count, &what("rotation"))?;
        tracks.push(BakedTrack {
            target: TrackTarget {
                path: path.clone(),
                name,
                human_bone,
                rest: Transform {
                    translation: Vec3::from_slice(&rest[0..3]).into(),
                    rotation: Quat::from_slice(&rest[3..7]).normalize(),
                    scale: Vec3::from_slice(&rest[7..10]).into(),
                },
                parent_rest_rotation: Quat::from_slice(&rest[10..14]).normalize(),
                rest_height: rest[14],
                parent_rest_origin: rest.get(15..18).map_or(Vec3::ZERO, Vec3::from_slice),
                parent_rest_scale: rest.get(18).copied().unwrap_or(1.0),
                rest_known: true,
            },
            translation: ck.channel(&t.translation, frame_count, &what("translation"))?,
            rotation: ck.unit(
                rotation,
                &what("rotation"),
                t.rotation.kind == KIND_KEYS_QUANTIZED,
            )?,
            scale: ck.channel(&t.scale, frame_count, &what("scale"))?,
        });
        prev_path = path;
    }
    Ok(BakedClip {
        id: body.id,
        name: body.name,
        duration: body.duration,
        frame_rate: body.frame_rate,
        times: body.times,
        tracks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rest_channel() -> FileChannel {
        FileChannel {
            kind: KIND_REST,
            frames: Vec::new(),
            values: Vec::new(),
            range: Vec::new(),
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
                translation: rest_channel(),
                rotation: rest_channel(),
                scale: rest_channel(),
            }],
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
        let bytes = rmp_serde::to_vec(&(TAG, VERSION, one_track_body(&v2))).unwrap();
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
                    translation: rest_channel(),
                    rotation: rest_channel(),
                    scale: rest_channel(),
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
        };
        let bytes = rmp_serde::to_vec(&(TAG, VERSION, body)).unwrap();
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
