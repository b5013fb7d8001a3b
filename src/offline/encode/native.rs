//! The `.animclip` encoder: a baked clip written in the layout `clipfile::native` defines and decodes (full
//! floats, 16-bit fractions of each channel's range, or the runtime's packed form), each track's path shared with
//! the one before it and its rest written as `clipfile::rest` lays it out.

use crate::clipfile::native::{
    Body, Components, FileChannel, FileGroup, FileMorph, FileTimes, FileTrack, KIND_CONSTANT,
    KIND_KEYS, KIND_KEYS_QUANTIZED, KIND_REST, TAG, VERSION, smaller_frames,
};
use crate::clipfile::{BakedClip, Channel};
use crate::core::HumanBone;
use glam::Vec3;

/// How keyed values are stored.
#[derive(Clone, Copy, Debug)]
pub enum KeyStorage<'a> {
    /// 32-bit floats.
    Full,
    /// 16-bit fractions of each channel's range per component.
    Fixed16,
    /// The runtime's packed form (version 4): keyed channels sharing their key frames packed together, each
    /// lane on a grid of the track's budget (per track: translation units, rotation quaternion units, scale
    /// units; see [`crate::runtime::packed`]); channels it cannot pack as [`KeyStorage::Fixed16`].
    Packed(&'a [[f32; 3]]),
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
        key_bitmap: Vec::new(),
    };
    match c {
        Channel::Rest => empty(KIND_REST),
        Channel::Constant(v) => FileChannel {
            values: f32_bytes(&v.to_vec()),
            ..empty(KIND_CONSTANT)
        },
        Channel::Keys { frames, values } => {
            let deltas = frame_deltas(frames);
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
                key_bitmap: Vec::new(),
            }
        }
    }
}

/// Encodes a baked clip as `.animclip` bytes; `quantize` stores keyed values as 16-bit fractions of each track's range.
pub fn encode(clip: &BakedClip, quantize: bool) -> Vec<u8> {
    encode_with(
        clip,
        if quantize {
            KeyStorage::Fixed16
        } else {
            KeyStorage::Full
        },
    )
}

/// None for a channel at rest (written as nil); else the channel, its key frames written the shorter way for a
/// clip of `frame_count` frames.
fn unless_rest(c: FileChannel, frame_count: u64) -> Option<FileChannel> {
    (c.kind != KIND_REST).then(|| smaller_frames(c, frame_count))
}

fn frame_deltas(frames: &[u32]) -> Vec<u32> {
    let mut prev = 0;
    frames
        .iter()
        .enumerate()
        .map(|(i, &f)| {
            let d = if i == 0 { f } else { f - prev };
            prev = f;
            d
        })
        .collect()
}

/// The keyed channels of `clip` packed as the runtime packs them, grouped by property and key frames; with the
/// (track, property) pairs they hold. Groups that cannot be packed (a key not finite) are left out.
fn packed_groups(clip: &BakedClip, budgets: &[[f32; 3]]) -> (Vec<FileGroup>, Vec<(usize, u8)>) {
    use crate::compile::pack::{ChannelToPack, pack_channels};
    use crate::runtime::packed::PackedProperty;
    let mut groups: std::collections::BTreeMap<(u8, Vec<u32>), Vec<ChannelToPack>> =
        std::collections::BTreeMap::new();
    if clip.tracks.len() > usize::from(u16::MAX) || budgets.len() != clip.tracks.len() {
        return (Vec::new(), Vec::new());
    }
    for (i, t) in clip.tracks.iter().enumerate() {
        let mut add = |property: u8, frames: &Vec<u32>, keys: Vec<[f32; 4]>| {
            groups
                .entry((property, frames.clone()))
                .or_default()
                .push(ChannelToPack {
                    lane: i as u16,
                    hold: false,
                    keys,
                });
        };
        let vectors = |values: &[Vec3]| values.iter().map(|v| v.extend(0.0).to_array()).collect();
        if let Channel::Keys { frames, values } = &t.translation {
            add(0, frames, vectors(values));
        }
        if let Channel::Keys { frames, values } = &t.rotation {
            add(1, frames, values.iter().map(|q| q.to_array()).collect());
        }
        if let Channel::Keys { frames, values } = &t.scale {
            add(2, frames, vectors(values));
        }
    }
    let mut out = Vec::new();
    let mut members = Vec::new();
    for ((property, frames), channels) in groups {
        let Some(kind) = PackedProperty::from_code(property) else {
            continue;
        };
        let lanes: Vec<usize> = channels.iter().map(|c| usize::from(c.lane)).collect();
        let Some(g) = pack_channels(kind, 0, frames.len(), channels, |lane| {
            budgets[usize::from(lane)][usize::from(property)]
        }) else {
            continue;
        };
        members.extend(lanes.into_iter().map(|t| (t, property)));
        let mut bits = g.bits;
        bits.truncate(bits.len().saturating_sub(8));
        out.push(FileGroup {
            property,
            frames: frame_deltas(&frames),
            tracks: g.joints.iter().flatten().map(|&t| u32::from(t)).collect(),
            lanes: g.lanes,
            dropped: g.dropped,
            steps: g
                .steps
                .iter()
                .flat_map(|s| f32_bytes(&s.to_array()))
                .collect(),
            bits,
        });
    }
    (out, members)
}

/// Encodes a baked clip as `.animclip` bytes, keyed values stored as `precision` says.
pub fn encode_with(clip: &BakedClip, precision: KeyStorage) -> Vec<u8> {
    let quantize = !matches!(precision, KeyStorage::Full);
    let (packed, members) = match precision {
        KeyStorage::Packed(budgets) => packed_groups(clip, budgets),
        _ => (Vec::new(), Vec::new()),
    };
    let in_group = |track: usize, property: u8| members.contains(&(track, property));
    let frames = clip.frame_count();
    // The previous track's path and rest as a reader will see them (a child derives its parent rotation).
    let mut previous: Option<(String, crate::clipfile::rest::Rest)> = None;
    let body = Body {
        id: clip.id,
        name: clip.name.clone(),
        duration: clip.duration,
        frame_rate: clip.frame_rate,
        times: clip.times.as_ref().map(|t| FileTimes::Bytes(f32_bytes(t))),
        tracks: clip
            .tracks
            .iter()
            .enumerate()
            .scan("", |prev: &mut &str, (i, t)| {
                let path = t.target.path.as_str();
                let shared = common_prefix(prev, path);
                *prev = path;
                // The rest height, parent origin and parent scale place a translation in model space (hips
                // placement): only tracks that move their joint carry them.
                let placed = !matches!(t.translation, Channel::Rest);
                let derived = previous
                    .as_ref()
                    .filter(|(p, _)| path.rsplit_once('/').is_some_and(|(parent, _)| parent == p))
                    .map(|(_, r)| crate::clipfile::rest::derived_parent(r));
                let rest = crate::clipfile::rest::encode(
                    &crate::clipfile::rest::Rest {
                        local: t.target.rest,
                        parent_rotation: t.target.parent_rest_rotation,
                        height: t.target.rest_height,
                        parent_origin: t.target.parent_rest_origin,
                        parent_scale: t.target.parent_rest_scale,
                    },
                    placed,
                    derived,
                );
                let read_back = crate::clipfile::rest::decode(&rest, derived)
                    .expect("rest data just written reads");
                previous = Some((path.to_string(), read_back));
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
                    rest,
                    // A channel a packed group holds is nil here.
                    translation: (!in_group(i, 0))
                        .then(|| unless_rest(encode_channel(&t.translation, quantize), frames))
                        .flatten(),
                    rotation: (!in_group(i, 1))
                        .then(|| unless_rest(encode_channel(&t.rotation, quantize), frames))
                        .flatten(),
                    scale: (!in_group(i, 2))
                        .then(|| unless_rest(encode_channel(&t.scale, quantize), frames))
                        .flatten(),
                })
            })
            .collect(),
        packed,
        morph: clip
            .morph
            .iter()
            .map(|m| FileMorph {
                node: m.node.clone(),
                width: m.width as u32,
                times: f32_bytes(&m.times),
                values: f32_bytes(&m.values),
            })
            .collect(),
    };
    rmp_serde::to_vec(&(TAG, VERSION, body)).expect("clip data always serializes")
}
