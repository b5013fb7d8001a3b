//! Packed linear channels: the compact form a compiled clip keeps its linear and stepped keys in, sampled
//! straight from it.
//!
//! Each lane (one channel of a block of four) has a grid step, chosen from the error it may cause (see
//! [`super::animation`]); every stored key component is an integer number of steps. Translations and scales
//! store x, y and z. Rotations store three of the four components of their sign-aligned quaternions: each block
//! drops one component that stays clear of zero in all its lanes over the whole clip (each lane's sequence
//! negated where needed so it is positive), and a sample rebuilds it as √(1 − the others²), which also leaves the
//! quaternion at unit length. A channel none of whose components keeps one sign (a joint that spins through a
//! whole turn) goes into a block that stores all four ([`KEEP_ALL`]), normalised once decoded.
//!
//! The integers are coded as residuals from a prediction: key 0 from 0, key 1 from key 0, key k from the line
//! through keys k − 2 and k − 1 (2·q[k−1] − q[k−2]). Smooth motion sampled finely has small second
//! differences, so most residuals take a few bits. Each is stored with a bias of half its range (a width w holds
//! −2^(w−1) to 2^(w−1) − 1), with one width per lane and component per segment ([`SEGMENT_KEYS`] keys; keys 0 and
//! 1 are segments of their own), each width in 5 bits at the segment's start. The stream is key-major (key k of
//! every block, then key k + 1), the order a forward sample reads it.
//!
//! A sample decodes into the sampling context: per block, the two keys around the time and the integers of the
//! predictor. Playing forward decodes each key once; a jump back starts again from key 0 (as ozz's sampler
//! does).

use glam::{BVec4A, IVec4, Vec4};

use crate::io::bits::{BitReader, BitWriter};

/// Keys per segment of residual widths (after keys 0 and 1).
pub const SEGMENT_KEYS: usize = 16;

/// Bits of each residual width in the stream.
const WIDTH_BITS: u32 = 5;

/// Largest grid value magnitude: a channel's step is widened so every value fits (f32 holds these integers
/// exactly, and the residuals stay below 2²⁵).
pub(crate) const MAX_GRID: f32 = 4_194_304.0;

/// Per dropped rotation component, the components stored, in order (index 3 is w).
const STORED: [[usize; 3]; 4] = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]];

/// The `dropped` of a rotation block that stores all four components.
pub(crate) const KEEP_ALL: u8 = 4;

/// Components a block stores.
fn stored_count(rotations: bool, dropped: u8) -> usize {
    if rotations && dropped == KEEP_ALL {
        4
    } else {
        3
    }
}

/// Which property a packed group animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PackedProperty {
    Translation,
    Rotation,
    Scale,
}

impl PackedProperty {
    /// The property of a file's code (0 translation, 1 rotation, 2 scale).
    pub fn from_code(code: u8) -> Option<Self> {
        [Self::Translation, Self::Rotation, Self::Scale]
            .get(usize::from(code))
            .copied()
    }
}

/// Linear (or stepped) channels of one property sharing one set of key times, four to a block, packed as the
/// module describes.
#[derive(Clone, Debug)]
pub(crate) struct PackedGroup {
    /// What the channels animate.
    pub property: PackedProperty,
    /// Index of the key times in the animation's time sets.
    pub time_set: usize,
    /// Keys per channel.
    pub keys: usize,
    /// Joint of each lane of each block (padding lanes repeat the last real lane's joint).
    pub joints: Vec<[u16; 4]>,
    /// Per block, 1 in the lanes that step and 0 in those that interpolate.
    pub holds: Vec<Vec4>,
    /// Per block, each lane's grid step.
    pub steps: Vec<Vec4>,
    /// Per block of rotations, the component rebuilt from the others (0–3, 3 being w; [`KEEP_ALL`] for none);
    /// 3 for vectors.
    pub dropped: Vec<u8>,
    /// Per block, the lanes in use (the others repeat the last of them).
    pub lanes: Vec<u8>,
    /// The residual stream, followed by 8 zero bytes (a whole-word load at its last value stays inside).
    pub bits: Vec<u8>,
}

/// One block's channels before packing: per key, the stored components as grid integers.
pub(crate) struct BlockKeys {
    /// Joint of each lane (padding lanes repeat the last real lane's).
    pub joints: [u16; 4],
    /// 1 in the lanes that step.
    pub hold: Vec4,
    /// Each lane's grid step.
    pub step: Vec4,
    /// The rotation component rebuilt ([`KEEP_ALL`] for none; 3 for vectors).
    pub dropped: u8,
    /// Lanes in use.
    pub lanes: u8,
    /// Per key, per stored component, the lanes' integers (three used unless all four are stored).
    pub grid: Vec<[IVec4; 4]>,
}

/// What a sample keeps of one packed block between calls.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockCache {
    /// The key at the start of the current interval and the one after it (the same at the last key), as
    /// x, y, z, w lanes (w unused for vectors).
    pub a: [Vec4; 4],
    pub b: [Vec4; 4],
    /// The grid integers of the last two keys decoded (the predictor's inputs).
    prev: [IVec4; 4],
    cur: [IVec4; 4],
    /// Per stored component: each lane's residual bit offset among the four, mask and bias, and the four's
    /// total width (the current segment's).
    offsets: [[u8; 4]; 4],
    masks: [[u32; 4]; 4],
    biases: [IVec4; 4],
    totals: [u8; 4],
}

impl Default for BlockCache {
    fn default() -> Self {
        BlockCache {
            a: [Vec4::ZERO; 4],
            b: [Vec4::ZERO; 4],
            prev: [IVec4::ZERO; 4],
            cur: [IVec4::ZERO; 4],
            offsets: [[0; 4]; 4],
            masks: [[0; 4]; 4],
            biases: [IVec4::ZERO; 4],
            totals: [0; 4],
        }
    }
}

/// Where a packed group's decoding stands in a sampling context.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupCursor {
    /// The key at the start of the cached interval; `u32::MAX` when nothing is decoded.
    key: u32,
    /// The next bit of the stream.
    bit: u32,
}

impl Default for GroupCursor {
    fn default() -> Self {
        GroupCursor {
            key: u32::MAX,
            bit: 0,
        }
    }
}

impl GroupCursor {
    /// Forgets what was decoded.
    pub fn invalidate(&mut self) {
        self.key = u32::MAX;
    }
}

fn segment_starts(k: usize) -> bool {
    k < 2 || (k - 2).is_multiple_of(SEGMENT_KEYS)
}

/// The predicted grid integers of key `k` from the two keys before (wrapping: a stream read from a damaged file
/// gives wrong values, which its reader checks, never an overflow).
#[inline(always)]
fn predict(k: usize, prev: IVec4, cur: IVec4) -> IVec4 {
    match k {
        0 => IVec4::ZERO,
        1 => cur,
        _ => cur.wrapping_add(cur).wrapping_sub(prev),
    }
}

/// The fewest bits w whose biased range (−2^(w−1) to 2^(w−1) − 1) holds `r` (0 for 0).
fn width_of(r: i32) -> u8 {
    if r == 0 {
        0
    } else {
        let magnitude = if r < 0 { !r } else { r } as u32;
        (33 - magnitude.leading_zeros()) as u8
    }
}

fn bias_of(width: u8) -> i32 {
    if width == 0 { 0 } else { 1 << (width - 1) }
}

impl PackedGroup {
    /// Packs the blocks of one property and time set (`keys` keys each).
    pub fn pack(
        property: PackedProperty,
        time_set: usize,
        keys: usize,
        blocks: &[BlockKeys],
    ) -> Self {
        let mut w = BitWriter::default();
        let rotations = property == PackedProperty::Rotation;
        let mut widths = vec![[[0u8; 4]; 4]; blocks.len()];
        let residual = |k: usize, b: &BlockKeys, c: usize| -> IVec4 {
            let (prev, cur) = match k {
                0 => (IVec4::ZERO, IVec4::ZERO),
                1 => (IVec4::ZERO, b.grid[0][c]),
                _ => (b.grid[k - 2][c], b.grid[k - 1][c]),
            };
            b.grid[k][c] - predict(k, prev, cur)
        };
        for k in 0..keys {
            if segment_starts(k) {
                let end = if k < 2 {
                    k + 1
                } else {
                    (k + SEGMENT_KEYS).min(keys)
                };
                for (block, block_widths) in blocks.iter().zip(widths.iter_mut()) {
                    let count = stored_count(rotations, block.dropped);
                    for (c, lane_widths) in block_widths.iter_mut().enumerate().take(count) {
                        for (l, width) in lane_widths.iter_mut().enumerate() {
                            *width = if l < usize::from(block.lanes) {
                                (k..end)
                                    .map(|k| width_of(residual(k, block, c).to_array()[l]))
                                    .max()
                                    .unwrap_or(0)
                            } else {
                                0
                            };
                            w.push(u32::from(*width), WIDTH_BITS);
                        }
                    }
                }
            }
            for (block, block_widths) in blocks.iter().zip(&widths) {
                let count = stored_count(rotations, block.dropped);
                for (c, lane_widths) in block_widths.iter().enumerate().take(count) {
                    let r = residual(k, block, c).to_array();
                    for l in 0..4 {
                        let width = lane_widths[l];
                        w.push((r[l] + bias_of(width)) as u32, u32::from(width));
                    }
                }
            }
        }
        let mut bits = w.finish();
        bits.extend_from_slice(&[0; 8]);
        bits.shrink_to_fit();
        PackedGroup {
            property,
            time_set,
            keys,
            joints: blocks.iter().map(|b| b.joints).collect(),
            holds: blocks.iter().map(|b| b.hold).collect(),
            steps: blocks.iter().map(|b| b.step).collect(),
            dropped: blocks.iter().map(|b| b.dropped).collect(),
            lanes: blocks.iter().map(|b| b.lanes).collect(),
            bits,
        }
    }

    /// The fewest bits a stream of this group's keys and blocks can hold: the residual widths at every segment's
    /// start, even when every residual is 0 bits wide. A reader compares it with a file's stream before decoding.
    pub fn least_stream_bits(&self) -> u64 {
        let rotations = self.property == PackedProperty::Rotation;
        let segments = (0..self.keys).filter(|&k| segment_starts(k)).count() as u64;
        let widths_per_segment: u64 = self
            .dropped
            .iter()
            .map(|&d| 4 * stored_count(rotations, d) as u64)
            .sum();
        segments * widths_per_segment * u64::from(WIDTH_BITS)
    }

    /// Blocks per key.
    pub fn blocks(&self) -> usize {
        self.joints.len()
    }

    /// Bytes its buffers hold, at their capacities (the struct itself not counted).
    pub fn heap_bytes(&self) -> usize {
        self.joints.capacity() * std::mem::size_of::<[u16; 4]>()
            + self.holds.capacity() * std::mem::size_of::<Vec4>()
            + self.steps.capacity() * std::mem::size_of::<Vec4>()
            + self.dropped.capacity()
            + self.lanes.capacity()
            + self.bits.capacity()
    }

    /// Decodes key `k` of every block into the caches' `b` (the old `b` becomes `a`).
    #[inline]
    fn decode_key(&self, k: usize, cursor: &mut GroupCursor, caches: &mut [BlockCache]) {
        let mut reader = BitReader::new(&self.bits, cursor.bit as usize);
        let rotations = self.property == PackedProperty::Rotation;
        if segment_starts(k) {
            for (b, cache) in caches.iter_mut().enumerate() {
                for c in 0..stored_count(rotations, self.dropped[b]) {
                    let mut total = 0u8;
                    let mut biases = [0; 4];
                    for (l, bias) in biases.iter_mut().enumerate() {
                        let width = reader.take(WIDTH_BITS) as u8;
                        cache.offsets[c][l] = total;
                        cache.masks[c][l] = ((1u64 << width) - 1) as u32;
                        *bias = bias_of(width);
                        total = total.saturating_add(width);
                    }
                    cache.biases[c] = IVec4::from_array(biases);
                    cache.totals[c] = total;
                }
            }
        }
        for (b, cache) in caches.iter_mut().enumerate() {
            let step = self.steps[b];
            let dropped = self.dropped[b];
            let mut stored = [Vec4::ZERO; 4];
            let count = stored_count(rotations, dropped);
            for (c, value) in stored.iter_mut().enumerate().take(count) {
                let (off, mask) = (cache.offsets[c], cache.masks[c]);
                let raw = if cache.totals[c] <= 57 {
                    // One load for the four lanes.
                    let word = reader.peek();
                    reader.skip(u32::from(cache.totals[c]));
                    let lane = |l: usize| ((word >> off[l]) as u32 & mask[l]) as i32;
                    IVec4::new(lane(0), lane(1), lane(2), lane(3))
                } else {
                    let mut lane = |l: usize| reader.take(mask[l].count_ones()) as i32;
                    IVec4::new(lane(0), lane(1), lane(2), lane(3))
                };
                let q = predict(k, cache.prev[c], cache.cur[c])
                    .wrapping_add(raw)
                    .wrapping_sub(cache.biases[c]);
                cache.prev[c] = cache.cur[c];
                cache.cur[c] = q;
                *value = q.as_vec4() * step;
            }
            let mut next = [stored[0], stored[1], stored[2], Vec4::ZERO];
            if count == 4 {
                let len2 = stored.iter().fold(Vec4::ZERO, |s, &v| s + v * v);
                let inv = super::blend::inverse_sqrt(len2.max(Vec4::splat(f32::MIN_POSITIVE)));
                next = stored.map(|v| v * inv);
            } else if rotations {
                let d = usize::from(self.dropped[b] & 3);
                let rest = Vec4::ONE
                    - stored[0] * stored[0]
                    - stored[1] * stored[1]
                    - stored[2] * stored[2];
                next[d] = rest.max(Vec4::ZERO).sqrt();
                for (i, &c) in STORED[d].iter().enumerate() {
                    next[c] = stored[i];
                }
            }
            let lanes = usize::from(self.lanes[b]);
            if lanes < 4 {
                let pad = BVec4A::from_array(std::array::from_fn(|l| l >= lanes));
                for v in next.iter_mut() {
                    *v = Vec4::select(pad, Vec4::splat(v[lanes.max(1) - 1]), *v);
                }
            }
            cache.a = cache.b;
            cache.b = next;
        }
        cursor.bit = reader.at as u32;
    }

    /// Brings the caches to the interval starting at key `k` (decoding forward, or from key 0 after a jump
    /// back).
    #[inline]
    pub fn seek(&self, k: usize, cursor: &mut GroupCursor, caches: &mut [BlockCache]) {
        let at = cursor.key as usize;
        if cursor.key != u32::MAX && at == k {
            return;
        }
        if cursor.key == u32::MAX || at > k {
            cursor.bit = 0;
            self.decode_key(0, cursor, caches);
            if self.keys > 1 {
                self.decode_key(1, cursor, caches);
            } else {
                for cache in caches.iter_mut() {
                    cache.a = cache.b;
                }
            }
            cursor.key = 0;
        }
        while (cursor.key as usize) < k {
            let next = cursor.key as usize + 2;
            if next < self.keys {
                self.decode_key(next, cursor, caches);
            } else {
                for cache in caches.iter_mut() {
                    cache.a = cache.b;
                }
            }
            cursor.key += 1;
        }
    }
}

/// A lane's joint (or track) and its keys, decoded.
pub(crate) type LaneKeys = (u16, Vec<[f32; 4]>);

impl PackedGroup {
    /// Every key of every real lane, decoded (rotations as x, y, z, w; vectors as x, y, z, 0), with the lane's
    /// joint (or track); and the bits the stream took, for a reader to check it against the stream's length.
    pub(crate) fn decode_lanes(&self) -> (Vec<LaneKeys>, usize) {
        let blocks = self.blocks();
        let mut caches = vec![BlockCache::default(); blocks];
        let mut cursor = GroupCursor::default();
        let mut lanes: Vec<LaneKeys> = (0..blocks)
            .flat_map(|b| {
                (0..usize::from(self.lanes[b])).map(move |l| (self.joints[b][l], Vec::new()))
            })
            .collect();
        for k in 0..self.keys {
            self.seek(k, &mut cursor, &mut caches);
            let mut i = 0;
            for (b, cache) in caches.iter().enumerate() {
                for l in 0..usize::from(self.lanes[b]) {
                    lanes[i].1.push(cache.a.map(|c| c.to_array()[l]));
                    i += 1;
                }
            }
        }
        (lanes, cursor.bit as usize)
    }
}

/// The grid integer of `v` on a lane of step `step`.
pub(crate) fn to_grid(v: f32, step: f32) -> i32 {
    (v / step).round() as i32
}

/// The stored components of rotation `q` when component `dropped` is rebuilt (all four for [`KEEP_ALL`]; the
/// fourth is 0 otherwise).
pub(crate) fn stored_components(q: [f32; 4], dropped: u8) -> [f32; 4] {
    match STORED.get(usize::from(dropped)) {
        Some(order) => [q[order[0]], q[order[1]], q[order[2]], 0.0],
        None => q,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(keys: usize, lanes: u8, step: f32, f: impl Fn(i32, usize, usize) -> i32) -> BlockKeys {
        BlockKeys {
            joints: [0, 1, 2, 3],
            hold: Vec4::ZERO,
            step: Vec4::splat(step),
            dropped: 3,
            lanes,
            grid: (0..keys)
                .map(|k| {
                    std::array::from_fn(|c| {
                        IVec4::from_array(std::array::from_fn(|l| {
                            if l < usize::from(lanes) {
                                f(k as i32, c, l)
                            } else {
                                0
                            }
                        }))
                    })
                })
                .collect(),
        }
    }

    #[test]
    fn every_key_decodes_forward_and_after_jumps_back() {
        for keys in [1, 2, 3, 17, 18, 19, 40] {
            let blocks = [
                block(keys, 4, 1.0, |k, c, l| match c {
                    0 => k * k - 3 * l as i32,
                    1 => (1 << 21) - k * k * k,
                    _ => -(1 << 22) + k % 3 + l as i32,
                }),
                block(keys, 2, 0.5, |k, c, l| {
                    (k * 7 - 40) * (c as i32 + 1) + l as i32 * 1000
                }),
            ];
            let g = PackedGroup::pack(PackedProperty::Translation, 0, keys, &blocks);
            let mut cursor = GroupCursor::default();
            let mut caches = vec![BlockCache::default(); 2];
            let order: Vec<usize> = (0..keys)
                .chain([0, keys / 2, 1, keys - 1, 0])
                .filter(|&k| k < keys)
                .collect();
            for k in order {
                g.seek(k, &mut cursor, &mut caches);
                let next = (k + 1).min(keys - 1);
                for (block, cache) in blocks.iter().zip(&caches) {
                    for c in 0..3 {
                        let want = |key: usize, l: usize| {
                            let l = l.min(usize::from(block.lanes) - 1);
                            block.grid[key][c].to_array()[l] as f32 * block.step.x
                        };
                        for l in 0..4 {
                            assert_eq!(
                                cache.a[c].to_array()[l],
                                want(k, l),
                                "{keys} keys, key {k}"
                            );
                            assert_eq!(
                                cache.b[c].to_array()[l],
                                want(next, l),
                                "{keys} keys, key {k}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn rotations_rebuild_the_dropped_component_or_keep_all_four() {
        // Every component well clear of zero: rebuilding a small one amplifies the others' rounding.
        let q = glam::Quat::from_xyzw(0.4, -0.5, 0.45, 0.6)
            .normalize()
            .to_array();
        let step = 1e-6;
        for dropped in 0..=KEEP_ALL {
            // A lane's sequence is negated so the dropped component is positive.
            let full = match q.get(usize::from(dropped)) {
                Some(&v) if v < 0.0 => q.map(|c| -c),
                _ => q,
            };
            let s = stored_components(full, dropped);
            let mut b = block(2, 4, step, |_, c, _| to_grid(s[c], step));
            b.dropped = dropped;
            let g = PackedGroup::pack(PackedProperty::Rotation, 0, 2, &[b]);
            let mut caches = [BlockCache::default()];
            g.seek(0, &mut GroupCursor::default(), &mut caches);
            for (c, want) in full.iter().enumerate() {
                assert!(
                    (caches[0].a[c].x - want).abs() < 5e-6,
                    "{dropped}: {:?}",
                    caches[0].a
                );
            }
        }
    }

    #[test]
    fn residual_widths_are_the_fewest_that_hold_their_values() {
        let holds = |w: u8, r: i32| r >= -bias_of(w) && r < bias_of(w).max(1);
        for r in [-70000, -129, -128, -2, -1, 0, 1, 2, 127, 128, 70000] {
            let w = width_of(r);
            assert!(holds(w, r), "{r}: width {w}");
            assert!(
                w == 0 || !holds(w - 1, r),
                "{r}: width {w} is not the fewest"
            );
        }
    }

    #[test]
    fn smooth_motion_takes_few_bits() {
        let b = block(64, 4, 1.0, |k, c, l| {
            (((k as f32) * 0.1 * (1.0 + c as f32 * 0.3 + l as f32 * 0.2)).sin() * 4000.0).round()
                as i32
        });
        let g = PackedGroup::pack(PackedProperty::Translation, 0, 64, &[b]);
        // The values span 8001 steps: 64 keys × 12 values at a fixed 13 bits would be 1248 bytes.
        assert!(g.bits.len() < 1248 * 3 / 4, "{} bytes", g.bits.len());
    }
}
