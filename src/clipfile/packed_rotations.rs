//! Rotation keys packed in as few bits as an angle budget allows (the `.animclip` channel kind 4): each key is
//! made w ≥ 0, and its x, y and z are stored as b-bit fractions of the channel's range of that component (range
//! reduction, as ACL and ozz do), w being rebuilt as √(1 − x² − y² − z²). The range itself is stored on a 16-bit
//! grid over [−1, 1] ([`RANGE_STEP`]), widened outward to it. The encoder picks the smallest b from
//! [`MIN_BITS`] to [`MAX_BITS`] whose decoded keys all stay within the budget, measured on the keys as they will
//! be read back; where even [`MAX_BITS`] do not (a w near 0 amplifies the error of x, y, z), it gives up and the
//! caller stores the channel another way.

use glam::{Quat, Vec3};

use crate::io::bits::{BitReader, BitWriter};

/// Fewest bits per component tried.
pub const MIN_BITS: u8 = 4;
/// Most bits per component.
pub const MAX_BITS: u8 = 16;

/// The spacing of the grid the range is stored on: 2 / 65535, over [−1, 1].
pub const RANGE_STEP: f32 = 2.0 / 65535.0;

/// One channel's keys, packed.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedRotations {
    /// Bits per component.
    pub bits: u8,
    /// Smallest x, y, z over the keys, as steps of [`RANGE_STEP`] above −1 (rounded down).
    pub low: [u16; 3],
    /// Largest x, y, z, likewise (rounded up).
    pub high: [u16; 3],
    /// The components, key after key, `bits` each, least significant bit first.
    pub data: Vec<u8>,
}

impl PackedRotations {
    /// The smallest value of component `c`.
    pub fn min(&self, c: usize) -> f32 {
        -1.0 + f32::from(self.low[c]) * RANGE_STEP
    }

    /// The span of component `c`.
    pub fn extent(&self, c: usize) -> f32 {
        f32::from(self.high[c].saturating_sub(self.low[c])) * RANGE_STEP
    }
}

/// The rotation angle between two unit quaternions (radians), precise for tiny angles.
pub fn rotation_angle(a: Quat, b: Quat) -> f32 {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let chord = (glam::Vec4::from(a) - glam::Vec4::from(b)).length();
    4.0 * (chord * 0.5).min(1.0).asin()
}

fn positive_w(q: Quat) -> Quat {
    if q.w < 0.0 { -q } else { q }
}

/// Packs `keys` in the fewest bits that keep each within `budget` radians of itself once unpacked; None when
/// [`MAX_BITS`] are not enough (or the keys are not finite).
pub fn pack(keys: &[Quat], budget: f32) -> Option<PackedRotations> {
    let xyz: Vec<Vec3> = keys
        .iter()
        .map(|&q| positive_w(q.normalize()).xyz())
        .collect();
    if xyz.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let min = xyz.iter().fold(Vec3::splat(f32::MAX), |a, &v| a.min(v));
    let max = xyz.iter().fold(Vec3::splat(f32::MIN), |a, &v| a.max(v));
    let grid =
        |v: f32, round: fn(f32) -> f32| round((v + 1.0) / RANGE_STEP).clamp(0.0, 65535.0) as u16;
    let low = min.to_array().map(|v| grid(v, f32::floor));
    let high = max.to_array().map(|v| grid(v, f32::ceil));
    (MIN_BITS..=MAX_BITS).find_map(|bits| {
        let mut packed = PackedRotations {
            bits,
            low,
            high,
            data: Vec::new(),
        };
        packed.data = quantize(&xyz, &packed);
        let back = unpack(&packed, keys.len()).ok()?;
        keys.iter()
            .zip(&back)
            .all(|(&k, &b)| rotation_angle(k.normalize(), b) <= budget)
            .then_some(packed)
    })
}

fn quantize(xyz: &[Vec3], p: &PackedRotations) -> Vec<u8> {
    let top = ((1u32 << p.bits) - 1) as f32;
    let mut out = BitWriter::default();
    for v in xyz {
        for c in 0..3 {
            let u = if p.extent(c) > 0.0 {
                (v[c] - p.min(c)) / p.extent(c)
            } else {
                0.0
            };
            out.push((u * top).round().clamp(0.0, top) as u32, u32::from(p.bits));
        }
    }
    out.finish()
}

/// The data length in bytes of `count` keys at `bits` per component.
pub fn data_len(count: usize, bits: u8) -> usize {
    (count * 3 * bits as usize).div_ceil(8)
}

/// The `count` keys of `packed`; an error says what does not fit.
pub fn unpack(packed: &PackedRotations, count: usize) -> Result<Vec<Quat>, String> {
    let bits = packed.bits;
    if !(MIN_BITS..=MAX_BITS).contains(&bits) {
        return Err(format!(
            "{bits} bits per component, outside {MIN_BITS}..={MAX_BITS}"
        ));
    }
    if packed.data.len() != data_len(count, bits) {
        return Err(format!(
            "{} bytes of packed data for {count} keys at {bits} bits (expected {})",
            packed.data.len(),
            data_len(count, bits)
        ));
    }
    if (0..3).any(|c| packed.high[c] < packed.low[c]) {
        return Err("the packed range ends below where it starts".into());
    }
    let top = ((1u32 << bits) - 1) as f32;
    let mut read = BitReader::new(&packed.data, 0);
    Ok((0..count)
        .map(|_| {
            let v = Vec3::from_array(std::array::from_fn(|c| {
                packed.min(c) + read.take(u32::from(bits)) as f32 / top * packed.extent(c)
            }));
            let w = (1.0 - v.length_squared()).max(0.0).sqrt();
            Quat::from_xyzw(v.x, v.y, v.z, w).normalize()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn turn(axis: Vec3, angle: f32) -> Quat {
        Quat::from_axis_angle(axis.normalize(), angle)
    }

    #[test]
    fn a_small_motion_packs_in_few_bits_within_its_budget() {
        let keys: Vec<Quat> = (0..30)
            .map(|i| turn(Vec3::new(1.0, 0.2, 0.0), 0.3 + 0.01 * i as f32))
            .collect();
        let packed = pack(&keys, 1e-3).unwrap();
        assert!(packed.bits < 12, "{} bits", packed.bits);
        let back = unpack(&packed, keys.len()).unwrap();
        for (k, b) in keys.iter().zip(&back) {
            assert!(rotation_angle(*k, *b) <= 1e-3);
        }
        // A tighter budget costs bits.
        assert!(pack(&keys, 1e-5).unwrap().bits > packed.bits);
    }

    #[test]
    fn unpacking_refuses_data_that_does_not_fit() {
        let packed = pack(&[Quat::IDENTITY, Quat::from_rotation_x(0.5)], 1e-3).unwrap();
        assert!(unpack(&packed, 3).is_err());
        let bad_bits = PackedRotations {
            bits: 40,
            ..packed.clone()
        };
        assert!(unpack(&bad_bits, 2).is_err());
        let bad_range = PackedRotations {
            low: [9, 0, 0],
            high: [3, 0, 0],
            ..packed
        };
        assert!(unpack(&bad_range, 2).is_err());
    }

    proptest! {
        #[test]
        fn every_packed_key_is_within_its_budget(
            angles in proptest::collection::vec(-3.1f32..3.1, 1..40),
            ax in -1.0f32..1.0, ay in -1.0f32..1.0, az in 0.1f32..1.0,
            budget_exp in -6.0f32..-2.0,
        ) {
            let budget = 10f32.powf(budget_exp);
            let keys: Vec<Quat> = angles.iter().map(|&a| turn(Vec3::new(ax, ay, az), a)).collect();
            if let Some(p) = pack(&keys, budget) {
                let back = unpack(&p, keys.len()).unwrap();
                for (k, b) in keys.iter().zip(&back) {
                    prop_assert!(rotation_angle(*k, *b) <= budget);
                }
            }
        }
    }
}
