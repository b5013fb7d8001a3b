//! Packing channels into the runtime's packed form ([`crate::runtime::packed`]): each lane's keys on a grid whose
//! step is the error budget of what it drives, rotations sign-aligned and grouped by the component they drop. The
//! compiler packs a clip's linear groups with it, and the `.animclip` encoder its tracks.

use glam::{IVec4, Vec4};

use crate::runtime::packed::{
    BlockKeys, KEEP_ALL, MAX_GRID, PackedGroup, PackedProperty, stored_components, to_grid,
};

/// One channel to pack: its keys (rotations as x, y, z, w; vectors as x, y, z, 0) and what a lane names it by.
pub(crate) struct ChannelToPack {
    /// The joint (or, in a file, the track) the lane drives.
    pub lane: u16,
    /// True when it steps (holds each key until the next).
    pub hold: bool,
    /// Its keys, one per key time of the group.
    pub keys: Vec<[f32; 4]>,
}

/// Packs channels of one property sharing `keys` key times: each channel's grid step is `budget` of its lane
/// (widened to hold its largest value on the grid). Rotation channels are sign-aligned (each key on the previous
/// one's hemisphere) and sorted into blocks by the component
/// they drop (the one farthest from zero over the clip), each sequence negated where needed so that component
/// is positive; a channel with no component that keeps one sign keeps all four. None when a key is not finite.
pub(crate) fn pack_channels(
    property: PackedProperty,
    time_set: usize,
    keys: usize,
    channels: Vec<ChannelToPack>,
    budget: impl Fn(u16) -> f32,
) -> Option<PackedGroup> {
    let rotations = property == PackedProperty::Rotation;
    let mut lanes = Vec::with_capacity(channels.len());
    for mut channel in channels {
        if channel.keys.len() != keys || channel.keys.iter().flatten().any(|v| !v.is_finite()) {
            return None;
        }
        let mut dropped = 3;
        if rotations {
            // Sign-aligned: each key on the previous one's hemisphere.
            for k in 1..channel.keys.len() {
                let (a, b) = (Vec4::from(channel.keys[k - 1]), Vec4::from(channel.keys[k]));
                if a.dot(b) < 0.0 {
                    channel.keys[k] = (-b).to_array();
                }
            }
            let clear = clearance(&channel.keys);
            let best = (0..4)
                .max_by(|&a, &b| clear[a].total_cmp(&clear[b]))
                .unwrap_or(3);
            if clear[best] <= 0.0 {
                dropped = KEEP_ALL;
            } else {
                dropped = best as u8;
                if channel.keys[0][best] < 0.0 {
                    channel.keys.iter_mut().for_each(|q| *q = q.map(|c| -c));
                }
            }
        }
        lanes.push((dropped, channel));
    }
    lanes.sort_by_key(|(dropped, c)| (*dropped, c.lane));
    let mut blocks = Vec::new();
    for same in lanes.chunk_by(|a, b| a.0 == b.0) {
        for chunk in same.chunks(4) {
            let dropped = chunk[0].0;
            let lane = |l: usize| &chunk[l.min(chunk.len() - 1)].1;
            let steps: [f32; 4] = std::array::from_fn(|l| {
                let largest = lane(l)
                    .keys
                    .iter()
                    .flatten()
                    .fold(0.0f32, |m, v| m.max(v.abs()));
                budget(lane(l).lane)
                    .max(largest / MAX_GRID)
                    .max(f32::MIN_POSITIVE)
            });
            blocks.push(BlockKeys {
                joints: std::array::from_fn(|l| lane(l).lane),
                hold: Vec4::from_array(std::array::from_fn(|l| f32::from(u8::from(lane(l).hold)))),
                step: Vec4::from_array(steps),
                dropped,
                lanes: chunk.len() as u8,
                grid: (0..keys)
                    .map(|k| {
                        let comps: [[f32; 4]; 4] = std::array::from_fn(|l| {
                            let q = lane(l).keys[k];
                            if rotations {
                                stored_components(q, dropped)
                            } else {
                                q
                            }
                        });
                        std::array::from_fn(|c| {
                            IVec4::from_array(std::array::from_fn(|l| {
                                if l < chunk.len() {
                                    to_grid(comps[l][c], steps[l])
                                } else {
                                    0
                                }
                            }))
                        })
                    })
                    .collect(),
            });
        }
    }
    Some(PackedGroup::pack(property, time_set, keys, &blocks))
}

/// For one rotation channel (sign-aligned unit quaternions, key after key), how far from zero each component
/// stays over the clip: its smallest magnitude when it keeps one sign, 0 when it crosses zero.
pub(crate) fn clearance(keys: &[[f32; 4]]) -> [f32; 4] {
    std::array::from_fn(|c| {
        let first = keys.first().map_or(0.0, |k| k[c]);
        if keys.iter().all(|k| k[c] * first > 0.0) {
            keys.iter()
                .map(|k| k[c].abs())
                .fold(f32::INFINITY, f32::min)
        } else {
            0.0
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clearance_is_zero_for_a_component_that_crosses_zero() {
        let keys = [[0.5, -0.1, 0.7, 0.5], [0.4, 0.1, 0.7, 0.6]];
        let c = clearance(&keys);
        assert_eq!(c[1], 0.0);
        assert_eq!(c[0], 0.4);
        assert_eq!(c[3], 0.5);
    }
}
