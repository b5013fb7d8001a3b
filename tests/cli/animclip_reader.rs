//! An independent reader of `.animclip` version 5, written from docs/formats.md's description of the layout with a
//! plain MessagePack reader (rmpv), not from `clipfile::native` or `runtime::packed`: it decodes every channel kind,
//! the packed groups (bit by bit, its own residual and prediction rules), the rest data and the morph-weight
//! tracks, and its poses and weights must match animtune's own decoding of the same bytes.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use animtune::clipfile;
use glam::{Quat, Vec3};
use rmpv::Value;

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Smallest three: the largest component's index, then the other three as u16 fractions of ±1/√2.
fn quat7(b: &[u8]) -> Quat {
    let largest = b[0] as usize;
    let mut c = [0.0f32; 4];
    let mut k = 0;
    for (i, slot) in c.iter_mut().enumerate() {
        if i == largest {
            continue;
        }
        let v = u16::from_le_bytes([b[1 + 2 * k], b[2 + 2 * k]]) as f32 / 65535.0;
        *slot = (v * 2.0 - 1.0) * std::f32::consts::FRAC_1_SQRT_2;
        k += 1;
    }
    c[largest] = (1.0 - c.iter().map(|x| x * x).sum::<f32>()).max(0.0).sqrt();
    Quat::from_array(c).normalize()
}

/// (local rest translation, rotation, scale, parent rest rotation) of one track's rest bytes; `previous` is the
/// previous track's (rotation, parent rotation) when it is this track's parent (flag 4 takes the parent rotation
/// from it).
fn rest(bytes: &[u8], previous: Option<(Quat, Quat)>) -> (Vec3, Quat, Vec3, Quat) {
    let flags = bytes[0];
    let t = floats(&bytes[1..13]);
    let rotation = quat7(&bytes[13..20]);
    let (parent, at) = if flags & 4 != 0 {
        let (r, p) = previous.expect("a derived parent rotation follows its parent");
        ((p * r).normalize(), 20)
    } else {
        (quat7(&bytes[20..27]), 27)
    };
    let scale = if flags & 1 != 0 {
        Vec3::from_slice(&floats(&bytes[at..at + 12]))
    } else {
        Vec3::ONE
    };
    (Vec3::from_slice(&t), rotation, scale, parent)
}

/// One channel: its key frames and values (as 4-vectors: x, y, z and w or 0), or None at rest.
fn channel(v: &Value, n: usize) -> Option<Keyed> {
    let a = v.as_array()?;
    let kind = a[0].as_u64().unwrap();
    let mut frames = frames_from_deltas(&a[1]);
    // A fifth element: the key frames as a bitmap, bit f for frame f.
    if let Some(bitmap) = a.get(4).and_then(Value::as_slice) {
        frames = (0..bitmap.len() * 8)
            .filter(|&f| bitmap[f / 8] >> (f % 8) & 1 == 1)
            .map(|f| f as u32)
            .collect();
    }
    let values = a[2].as_slice().unwrap();
    let range = a[3].as_slice().unwrap();
    let vec4 = |c: &[f32]| std::array::from_fn(|i| c.get(i).copied().unwrap_or(0.0));
    let out = match kind {
        0 => return None,
        1 => return Some((vec![0], vec![vec4(&floats(values))])),
        2 => floats(values).chunks_exact(n).map(vec4).collect(),
        3 => {
            let r = floats(range);
            values
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0)
                .collect::<Vec<_>>()
                .chunks_exact(n)
                .map(|q| vec4(&(0..n).map(|i| r[i] + q[i] * r[n + i]).collect::<Vec<_>>()))
                .collect()
        }
        4 => {
            let bits = range[0] as usize;
            // Minimums then maximums of x, y, z on a 16-bit grid over [-1, 1]: extents are the differences.
            let grid: Vec<f32> = range[1..]
                .chunks_exact(2)
                .map(|b| -1.0 + u16::from_le_bytes([b[0], b[1]]) as f32 * (2.0 / 65535.0))
                .collect();
            let r: Vec<f32> = (0..3)
                .map(|c| grid[c])
                .chain((0..3).map(|c| grid[3 + c] - grid[c]))
                .collect();
            let bit = |i: usize| (values[i / 8] >> (i % 8)) & 1;
            (0..frames.len())
                .map(|k| {
                    let xyz: Vec<f32> = (0..3)
                        .map(|c| {
                            let first = (3 * k + c) * bits;
                            let q: u32 = (0..bits).map(|b| u32::from(bit(first + b)) << b).sum();
                            r[c] + q as f32 / ((1u32 << bits) - 1) as f32 * r[3 + c]
                        })
                        .collect();
                    let w = (1.0 - xyz.iter().map(|x| x * x).sum::<f32>())
                        .max(0.0)
                        .sqrt();
                    vec4(&[xyz[0], xyz[1], xyz[2], w])
                })
                .collect()
        }
        k => panic!("unknown channel kind {k}"),
    };
    Some((frames, out))
}

/// Key frames from their deltas (the first from frame 0).
fn frames_from_deltas(v: &Value) -> Vec<u32> {
    let mut frame = 0u32;
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            frame += d.as_u64().unwrap() as u32;
            frame
        })
        .collect()
}

/// A channel's key frames and values (as 4-vectors: x, y, z and w or 0).
type Keyed = (Vec<u32>, Vec<[f32; 4]>);

/// The bits of a packed stream, least significant bit first.
struct Bits<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bits<'_> {
    fn read(&mut self, n: u32) -> i64 {
        let mut v = 0i64;
        for b in 0..n as usize {
            let bit = self.at + b;
            v |= i64::from((self.data[bit / 8] >> (bit % 8)) & 1) << b;
        }
        self.at += n as usize;
        v
    }
}

/// The channels of a packed group (`[property, frame_deltas, tracks, lanes, dropped, steps, bits]`), as
/// (track, key frames, values): per block, four lanes; per segment (key 0, key 1, then 16 keys at a time) a
/// 5-bit width per block, stored component and lane; per key, block, component and lane a residual of that width
/// stored plus 2^(width−1); the value is that residual plus 0, the previous key, or twice the previous key minus
/// the one before, times the lane's step; rotations rebuild their dropped component as √(1 − the others²), or
/// store all four (dropped 4) and are normalised.
fn packed_group(v: &Value) -> (u64, Vec<(usize, Keyed)>) {
    let a = v.as_array().unwrap();
    let property = a[0].as_u64().unwrap();
    let frames = frames_from_deltas(&a[1]);
    let tracks: Vec<usize> = a[2]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_u64().unwrap() as usize)
        .collect();
    let (lanes, dropped) = (a[3].as_slice().unwrap(), a[4].as_slice().unwrap());
    let steps = floats(a[5].as_slice().unwrap());
    let mut bits = Bits {
        data: a[6].as_slice().unwrap(),
        at: 0,
    };
    let blocks = lanes.len();
    let stored = |b: usize| {
        if property == 1 && dropped[b] == 4 {
            4
        } else {
            3
        }
    };
    // Per block, component, lane: the integers of the last two keys, and the segment's widths.
    let mut last = vec![[[[0i64; 2]; 4]; 4]; blocks];
    let mut widths = vec![[[0u32; 4]; 4]; blocks];
    let mut out: Vec<Vec<[f32; 4]>> = vec![Vec::new(); blocks * 4];
    for k in 0..frames.len() {
        if k < 2 || (k - 2) % 16 == 0 {
            for (b, block) in widths.iter_mut().enumerate() {
                for component in block.iter_mut().take(stored(b)) {
                    for width in component.iter_mut() {
                        *width = bits.read(5) as u32;
                    }
                }
            }
        }
        for b in 0..blocks {
            let mut comps = [[0.0f32; 4]; 4];
            for c in 0..stored(b) {
                for l in 0..4 {
                    let w = widths[b][c][l];
                    let bias = if w == 0 { 0 } else { 1i64 << (w - 1) };
                    let r = bits.read(w) - bias;
                    let [before, previous] = last[b][c][l];
                    let predicted = match k {
                        0 => 0,
                        1 => previous,
                        _ => 2 * previous - before,
                    };
                    let q = predicted + r;
                    last[b][c][l] = [previous, q];
                    comps[l][c] = q as f32 * steps[4 * b + l];
                }
            }
            for l in 0..lanes[b] as usize {
                let s = comps[l];
                let value = match (property, dropped[b]) {
                    (1, 4) => Quat::from_array(s).normalize().to_array(),
                    (1, d) => {
                        let rebuilt = (1.0 - s[0] * s[0] - s[1] * s[1] - s[2] * s[2])
                            .max(0.0)
                            .sqrt();
                        let mut q = [0.0; 4];
                        let mut i = 0;
                        for (c, slot) in q.iter_mut().enumerate() {
                            if c == d as usize {
                                *slot = rebuilt;
                            } else {
                                *slot = s[i];
                                i += 1;
                            }
                        }
                        q
                    }
                    _ => [s[0], s[1], s[2], 0.0],
                };
                out[4 * b + l].push(value);
            }
        }
    }
    let channels = (0..blocks)
        .flat_map(|b| (0..lanes[b] as usize).map(move |l| 4 * b + l))
        .map(|i| (tracks[i], (frames.clone(), std::mem::take(&mut out[i]))))
        .collect();
    (property, channels)
}

/// The value of a channel at grid frame `f` (its times `time`): linear between the keys around it.
fn at(
    ch: &(Vec<u32>, Vec<[f32; 4]>),
    f: u32,
    time: &dyn Fn(u32) -> f32,
    rotation: bool,
) -> [f32; 4] {
    let (frames, values) = ch;
    let i = frames.partition_point(|&k| k <= f);
    if i == 0 {
        return values[0];
    }
    if i == frames.len() || frames[i - 1] == f {
        return values[i - 1];
    }
    let (a, b) = (frames[i - 1], frames[i]);
    let u = (time(f) - time(a)) / (time(b) - time(a));
    if rotation {
        Quat::from_array(values[i - 1])
            .normalize()
            .slerp(Quat::from_array(values[i]).normalize(), u)
            .to_array()
    } else {
        std::array::from_fn(|c| values[i - 1][c] + (values[i][c] - values[i - 1][c]) * u)
    }
}

#[test]
fn an_independent_reader_decodes_every_grid_frame_of_a_baked_clip_as_animtune_does() {
    let dir = common::temp_dir("animclip-reader");
    let quaternius = common::quaternius();
    for (model, clip) in [
        (quaternius.to_str().unwrap(), "Walk_Loop"),
        (quaternius.to_str().unwrap(), "Roll_RM"),
        ("mannequin", "RunForward"),
    ] {
        let file = dir.join(format!("{clip}.animclip"));
        let out = common::animtune(&["bake", model, "--clip", clip, "-o", file.to_str().unwrap()]);
        common::assert_success(&out);
        let bytes = std::fs::read(&file).unwrap();

        let top = rmpv::decode::read_value(&mut bytes.as_slice()).unwrap();
        let top = top.as_array().unwrap();
        assert_eq!(top[0].as_str(), Some("animtune-clip"));
        assert_eq!(top[1].as_u64(), Some(5));
        let body = top[2].as_array().unwrap();
        // Packed channels by (track, property: 0 translation, 1 rotation, 2 scale).
        let mut packed: HashMap<(usize, u64), Keyed> = HashMap::new();
        let mut rebuilt_components = HashMap::new();
        for g in body.get(6).and_then(Value::as_array).into_iter().flatten() {
            let (property, channels) = packed_group(g);
            if property == 1 {
                for d in g.as_array().unwrap()[4].as_slice().unwrap() {
                    *rebuilt_components.entry(*d).or_insert(0) += 1;
                }
            }
            for (track, keyed) in channels {
                packed.insert((track, property), keyed);
            }
        }
        let (duration, rate) = (
            body[2].as_f64().unwrap() as f32,
            body[3].as_f64().unwrap() as f32,
        );
        // Explicit frame times: f32 little-endian bytes.
        let times: Option<Vec<f32>> = body[4].as_slice().map(floats);
        let time = |f: u32| match &times {
            Some(t) => t[f as usize],
            None => (f as f32 / rate).min(duration),
        };
        let frame_count = times
            .as_ref()
            .map_or(((duration * rate - 1e-4).ceil() as u32) + 1, |t| {
                t.len() as u32
            });

        // animtune's own reading, sampled at each frame's time.
        let ours = clipfile::decode(&bytes, Path::new("x.animclip"))
            .unwrap()
            .to_clip();
        let mut kinds = HashMap::new();
        let mut path = String::new();
        let mut previous: Option<(String, Quat, Quat)> = None;
        let mut compared = 0;
        for (i, t) in body[5].as_array().unwrap().iter().enumerate() {
            let t = t.as_array().unwrap();
            path = format!(
                "{}{}",
                &path[..t[0].as_u64().unwrap() as usize],
                t[1].as_str().unwrap()
            );
            let parent = previous
                .as_ref()
                .filter(|(p, _, _)| path.rsplit_once('/').is_some_and(|(up, _)| up == p))
                .map(|(_, r, pr)| (*r, *pr));
            let (rest_t, rest_r, rest_s, rest_p) = rest(t[4].as_slice().unwrap(), parent);
            previous = Some((path.clone(), rest_r, rest_p));
            assert_eq!(ours.tracks[i].target.path, path);
            let target = &ours.tracks[i].target;
            assert_eq!(Vec3::from(target.rest.translation), rest_t, "{path}");
            assert!(
                clipfile::packed_rotations::rotation_angle(target.rest.rotation, rest_r) < 1e-6,
                "{path}"
            );
            assert!(
                clipfile::packed_rotations::rotation_angle(target.parent_rest_rotation, rest_p)
                    < 1e-5,
                "{path}"
            );
            assert_eq!(Vec3::from(target.rest.scale), rest_s, "{path}");
            let own = [channel(&t[5], 3), channel(&t[6], 4), channel(&t[7], 3)];
            let channels: Vec<_> = own
                .into_iter()
                .enumerate()
                .map(|(p, c)| c.or_else(|| packed.remove(&(i, p as u64))))
                .collect();
            for v in [&t[5], &t[6], &t[7]] {
                if let Some(kind) = v.as_array().map(|a| a[0].as_u64().unwrap()) {
                    *kinds.entry(kind).or_insert(0) += 1;
                }
            }
            let track = &ours.tracks[i];
            for f in 0..frame_count {
                let s = time(f);
                if let (Some(ch), Some(k)) = (&channels[0], &track.translation) {
                    let theirs = Vec3::from_slice(&at(ch, f, &time, false)[..3]);
                    assert!(
                        theirs.distance(k.sample(s)) < 1e-6,
                        "{path} translation at frame {f}"
                    );
                    compared += 1;
                }
                if let (Some(ch), Some(k)) = (&channels[1], &track.rotation) {
                    let theirs = Quat::from_array(at(ch, f, &time, true));
                    let angle =
                        clipfile::packed_rotations::rotation_angle(theirs.normalize(), k.sample(s));
                    assert!(angle < 1e-5, "{path} rotation at frame {f}: {angle} rad");
                    compared += 1;
                }
            }
        }
        assert!(compared > 100, "{clip}: {compared} values compared");
        assert!(packed.is_empty(), "{clip}: packed channels of no track");
        assert!(
            !rebuilt_components.is_empty(),
            "{clip}: packed rotations were exercised: {kinds:?}"
        );
        if clip == "Roll_RM" {
            assert!(
                rebuilt_components.contains_key(&4),
                "the roll spins its hips through a whole turn: one block keeps all four components"
            );
        }
    }
}

/// Morph-weight tracks (version 5, after the packed groups): `[node, width, times, values]`, times and `width`
/// values per time as f32 little-endian bytes, read linearly. The sampler's three animations (LINEAR, STEP,
/// CUBICSPLINE weights) baked: the file's weights, read here, match animtune's reading at and between their keys.
#[test]
fn morph_weight_tracks_read_as_readme_describes() {
    let dir = common::temp_dir("animclip-reader-morph");
    let sampler = common::asset("morph_sampler.glb");
    for clip in ["Linear", "Step", "Cubic"] {
        let file = dir.join(format!("{clip}.animclip"));
        let out = common::animtune(&[
            "bake",
            sampler.to_str().unwrap(),
            "--clip",
            clip,
            "-o",
            file.to_str().unwrap(),
        ]);
        common::assert_success(&out);
        let bytes = std::fs::read(&file).unwrap();
        let top = rmpv::decode::read_value(&mut bytes.as_slice()).unwrap();
        let body = top.as_array().unwrap()[2].as_array().unwrap();
        assert!(
            body[6].as_array().is_some(),
            "version 5 writes the packed groups"
        );
        let morph = body[7].as_array().unwrap();
        assert_eq!(morph.len(), 1, "{clip}");
        let m = morph[0].as_array().unwrap();
        let width = m[1].as_u64().unwrap() as usize;
        let times = floats(m[2].as_slice().unwrap());
        let values = floats(m[3].as_slice().unwrap());
        assert_eq!((width, values.len()), (3, times.len() * 3));
        let theirs = |t: f32| -> Vec<f32> {
            let k = times.partition_point(|&x| x <= t).clamp(1, times.len() - 1);
            let (a, b) = (times[k - 1], times[k]);
            let f = ((t - a) / (b - a)).clamp(0.0, 1.0);
            (0..width)
                .map(|i| values[(k - 1) * width + i] * (1.0 - f) + values[k * width + i] * f)
                .collect()
        };
        let ours = clipfile::decode(&bytes, Path::new("m.animclip"))
            .unwrap()
            .to_clip();
        let track = &ours.morph_tracks[0];
        assert_eq!(track.node, m[0].as_str().unwrap());
        for i in 0..=40 {
            let t = i as f32 * 0.05;
            let mut w = [0.0; 3];
            track.sample_into(t, &mut w);
            for (a, b) in w.iter().zip(theirs(t)) {
                assert!((a - b).abs() < 1e-6, "{clip} at {t}: {w:?}");
            }
        }
    }
}
