//! Writes a skeleton and clips as ozz-animation archives (`ozz-skeleton` version 2, `ozz-animation` version 7,
//! little-endian), so that ozz-animation-rs (peers/ozz) samples the very keys our runtime compiles. Written from
//! the archive layout (what ozz's `IArchive` reads, as ozz-animation-rs's reader restates it), not from ozz's code.
//!
//! What this writer does, and what ozz's offline builder and optimizer would do differently:
//! - Keys are the source clip's own times and values (a cubic spline's values at its key times), one track per
//!   joint in the skeleton's order, each with a key at ratio 0 and at ratio 1 (held values added where the source
//!   starts late or ends early); a joint the clip does not animate holds its rest pose in two keys.
//! - Runs of exactly repeated values keep only their ends (a constant channel becomes two keys). ozz's optimizer
//!   goes further: it drops every key that linear interpolation rebuilds within a tolerance measured along the
//!   hierarchy (1 mm by default). This writer drops no key that changes the curve.
//! - Tracks are padded to a multiple of four with identity tracks, as ozz's builder does.
//! - No iframes (ozz 0.15+ can snapshot the cursor every few seconds for fast seeks): a backward jump rewinds
//!   from the start. The bench plays forward at 1/60 s a call, so only loop wraps pay for it.
//! - Translations and scales as IEEE half floats, rotations as the 48-bit "smallest three" quaternion key ozz
//!   uses (largest component dropped, three 15-bit components), each key made shortest-path from the previous.

use std::io::Write;
use std::path::Path;

use animtune::core::{Clip, Skeleton, Transform};
use glam::{Quat, Vec3};

/// One archive being written: little-endian values after the endianness byte.
struct Archive(Vec<u8>);

impl Archive {
    fn new() -> Self {
        Archive(vec![1])
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn cstr(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
    }
    fn save(&self, path: &Path) -> std::io::Result<()> {
        std::fs::File::create(path)?.write_all(&self.0)
    }
}

fn half(v: f32) -> u16 {
    half::f16::from_f32(v).to_bits()
}

/// The 48-bit quaternion key: bits 0–1 the index of the largest component, bit 2 its sign, then the other
/// three components in order, each mapped from [-√2/2, √2/2] to 15 bits.
fn quaternion_key(q: Quat) -> [u16; 3] {
    let c = q.normalize().to_array();
    let largest = (0..4)
        .max_by(|&a, &b| c[a].abs().total_cmp(&c[b].abs()))
        .unwrap();
    let scale = 32767.0 / std::f32::consts::SQRT_2;
    let mut bits = largest as u64 | (u64::from(c[largest] < 0.0) << 2);
    let mut shift = 3;
    for (i, &v) in c.iter().enumerate() {
        if i == largest {
            continue;
        }
        let q = ((v + std::f32::consts::FRAC_1_SQRT_2) * scale)
            .round()
            .clamp(0.0, 32767.0) as u64;
        bits |= q << shift;
        shift += 15;
    }
    [bits as u16, (bits >> 16) as u16, (bits >> 32) as u16]
}

/// A skeleton archive. Joints keep our order (every parent before its children, as ozz requires).
pub fn write_skeleton(skeleton: &Skeleton, path: &Path) -> std::io::Result<()> {
    let n = skeleton.len();
    let mut a = Archive::new();
    a.cstr("ozz-skeleton");
    a.u32(2);
    a.u32(n as u32);
    a.u32(skeleton.names().iter().map(|s| s.len() as u32 + 1).sum());
    for name in skeleton.names() {
        a.cstr(name);
    }
    for j in 0..n {
        let parent = skeleton.parent(j).map_or(-1, |p| {
            assert!(p < j, "parent after child");
            p as i16
        });
        a.u16(parent as u16);
    }
    let rest = skeleton.rest();
    for group in 0..n.div_ceil(4) {
        let lane = |k: usize| {
            rest.get(group * 4 + k)
                .copied()
                .unwrap_or(Transform::IDENTITY)
        };
        let lanes: [Transform; 4] = std::array::from_fn(lane);
        for axis in 0..3 {
            lanes.iter().for_each(|t| a.f32(t.translation[axis]));
        }
        for axis in 0..4 {
            lanes
                .iter()
                .for_each(|t| a.f32(t.rotation.to_array()[axis]));
        }
        for axis in 0..3 {
            lanes.iter().for_each(|t| a.f32(t.scale[axis]));
        }
    }
    a.save(path)
}

/// One channel's keys: (ratio in [0, 1], encoded value).
type Channel = Vec<(f32, [u16; 3])>;

/// A channel from (time, value) keys: ratios of `duration`, a key at 0 and at 1, repeated runs cut to their ends.
fn channel<T: Copy>(
    keys: Vec<(f32, T)>,
    duration: f32,
    same: impl Fn(T, T) -> bool,
    encode: impl Fn(T) -> [u16; 3],
) -> Channel {
    let mut ratios: Vec<(f32, T)> = keys
        .into_iter()
        .map(|(t, v)| ((t / duration).clamp(0.0, 1.0), v))
        .collect();
    ratios.dedup_by(|b, a| a.0 == b.0);
    if ratios[0].0 > 0.0 {
        ratios.insert(0, (0.0, ratios[0].1));
    }
    let last = *ratios.last().unwrap();
    if last.0 < 1.0 {
        ratios.push((1.0, last.1));
    }
    let kept: Vec<(f32, T)> = (0..ratios.len())
        .filter(|&i| {
            i == 0
                || i + 1 == ratios.len()
                || !(same(ratios[i - 1].1, ratios[i].1) && same(ratios[i].1, ratios[i + 1].1))
        })
        .map(|i| ratios[i])
        .collect();
    kept.into_iter().map(|(r, v)| (r, encode(v))).collect()
}

/// The three key streams of one animation, laid out as ozz's runtime walks them.
struct Streams {
    ratios: Vec<u16>,
    previouses: Vec<u16>,
    values: Vec<[u16; 3]>,
}

/// Orders the channels' keys: every track's first key, every track's second key, then the rest in the order the
/// sampler needs them (by the ratio of the key before them in their track). `timepoint` maps a ratio to its
/// index among the animation's time points.
fn streams(channels: &[Channel], timepoint: impl Fn(f32) -> u16) -> Streams {
    let tracks = channels.len();
    // (ratio the key is needed at, track, key index within the track)
    let mut order: Vec<(f32, usize, usize)> = Vec::new();
    for (track, keys) in channels.iter().enumerate() {
        for k in 2..keys.len() {
            order.push((keys[k - 1].0, track, k));
        }
    }
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut sequence: Vec<(usize, usize)> = (0..tracks).map(|t| (t, 0)).collect();
    sequence.extend((0..tracks).map(|t| (t, 1)));
    sequence.extend(order.iter().map(|&(_, t, k)| (t, k)));
    let mut last_of_track: Vec<usize> = vec![0; tracks];
    let mut s = Streams {
        ratios: Vec::with_capacity(sequence.len()),
        previouses: Vec::with_capacity(sequence.len()),
        values: Vec::with_capacity(sequence.len()),
    };
    for (index, &(track, k)) in sequence.iter().enumerate() {
        let (ratio, value) = channels[track][k];
        let previous = if k == 0 {
            0
        } else {
            index - last_of_track[track]
        };
        assert!(
            previous <= usize::from(u16::MAX),
            "a key is too far from its previous one"
        );
        last_of_track[track] = index;
        s.ratios.push(timepoint(ratio));
        s.previouses.push(previous as u16);
        s.values.push(value);
    }
    s
}

/// An animation archive of `clip` on `skeleton`: one track per joint, matched by name, then by path.
pub fn write_animation(clip: &Clip, skeleton: &Skeleton, path: &Path) -> std::io::Result<()> {
    let duration = clip.duration;
    assert!(duration > 0.0, "{} has no duration", clip.name);
    let n = skeleton.len();
    let aligned = n.div_ceil(4) * 4;
    let same3 = |a: Vec3, b: Vec3| a == b;
    let enc3 = |v: Vec3| [half(v.x), half(v.y), half(v.z)];
    let mut translations = Vec::with_capacity(aligned);
    let mut rotations = Vec::with_capacity(aligned);
    let mut scales = Vec::with_capacity(aligned);
    for j in 0..aligned {
        let rest = skeleton
            .rest()
            .get(j)
            .copied()
            .unwrap_or(Transform::IDENTITY);
        let track = (j < n)
            .then(|| {
                clip.tracks
                    .iter()
                    .find(|t| t.target.name == skeleton.name(j))
                    .or_else(|| {
                        clip.tracks
                            .iter()
                            .find(|t| t.target.path == skeleton.path(j))
                    })
            })
            .flatten();
        let held3 = |v: Vec3| vec![(0.0, v), (duration, v)];
        let t_keys = match track.and_then(|t| t.translation.as_ref()) {
            Some(k) => k.times().iter().map(|&t| (t, k.sample(t))).collect(),
            None => held3(rest.translation.into()),
        };
        let s_keys = match track.and_then(|t| t.scale.as_ref()) {
            Some(k) => k.times().iter().map(|&t| (t, k.sample(t))).collect(),
            None => held3(rest.scale.into()),
        };
        let mut r_keys: Vec<(f32, Quat)> = match track.and_then(|t| t.rotation.as_ref()) {
            Some(k) => k.times().iter().map(|&t| (t, k.sample(t))).collect(),
            None => vec![(0.0, rest.rotation), (duration, rest.rotation)],
        };
        for i in 1..r_keys.len() {
            if r_keys[i].1.dot(r_keys[i - 1].1) < 0.0 {
                r_keys[i].1 = -r_keys[i].1;
            }
        }
        translations.push(channel(t_keys, duration, same3, enc3));
        scales.push(channel(s_keys, duration, same3, enc3));
        rotations.push(channel(r_keys, duration, |a, b| a == b, quaternion_key));
    }

    let mut timepoints: Vec<f32> = [&translations, &rotations, &scales]
        .iter()
        .flat_map(|channels| channels.iter().flatten().map(|&(r, _)| r))
        .collect();
    timepoints.sort_by(f32::total_cmp);
    timepoints.dedup();
    assert!(
        timepoints.len() <= usize::from(u16::MAX),
        "too many time points"
    );
    let timepoint = |r: f32| timepoints.binary_search_by(|p| p.total_cmp(&r)).unwrap() as u16;
    let [t, r, s] = [&translations, &rotations, &scales].map(|c| streams(c, timepoint));

    let mut a = Archive::new();
    a.cstr("ozz-animation");
    a.u32(7);
    a.f32(duration);
    a.u32(n as u32);
    a.u32(clip.name.len() as u32);
    a.u32(timepoints.len() as u32);
    a.u32(t.values.len() as u32);
    a.u32(r.values.len() as u32);
    a.u32(s.values.len() as u32);
    for _ in 0..6 {
        a.u32(0); // no iframe entries or descriptions, for each of the three streams
    }
    a.0.extend_from_slice(clip.name.as_bytes());
    timepoints.iter().for_each(|&p| a.f32(p));
    let small_ratios = timepoints.len() <= usize::from(u8::MAX);
    for stream in [&t, &r, &s] {
        for &ratio in &stream.ratios {
            if small_ratios {
                a.u8(ratio as u8);
            } else {
                a.u16(ratio);
            }
        }
        stream.previouses.iter().for_each(|&p| a.u16(p));
        a.f32(1.0); // iframe interval (no iframes)
        for v in &stream.values {
            v.iter().for_each(|&c| a.u16(c));
        }
    }
    a.save(path)
}
