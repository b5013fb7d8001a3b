//! The exact builder: each bound track's keys mapped onto its joint (retargeting folded into the values), held
//! channels folded into the base pose, and the others grouped by key times and interpolation, four joints to a
//! block, every key kept as the clip has it (f32). What bakes and exports measure against, and what
//! [`super::search`] packs.

use std::collections::{HashMap, HashSet};

use glam::{Quat, Vec3, Vec3A, Vec4};

use crate::core::binding::BoundTrack;
use crate::core::clip::{Interpolation, Keys};
use crate::core::{Clip, ClipBinding, Skeleton};
use crate::runtime::Animation;
use crate::runtime::animation::{
    BaseOverrides, CubicSegment, Group, LinearGroup, next_id, slerp_angle,
};

/// How far (per component: a rotation's quaternion components, or a vector's units) every key of
/// a channel may be from its first for the channel to be held at its first key, folded into the base pose. It
/// strips the float noise exporters leave in channels that do not move (Blender writes channels whose two keys
/// differ by 1e-7): a rotation held so turns its joint by at most 4e-6 rad (0.0004 cm at a point 1 m away), a
/// translation moves by at most 1e-6 units.
pub const HELD_EPSILON: f32 = 1e-6;

/// Which property a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Property {
    Translation,
    Rotation,
    Scale,
}

/// One channel's keys, mapped onto the target joint.
struct ChannelKeys {
    joint: usize,
    property: Property,
    times: Vec<f32>,
    interpolation: Interpolation,
    /// One value per key, or (in-tangent, value, out-tangent) per key for cubic splines; rotations as (x, y, z, w).
    values: Vec<Vec4>,
    /// The step of the grid the values lie on ([`crate::core::Keys::grid_step`]), when not retargeted.
    grid_step: Option<f32>,
}

/// Grid steps the clip's keys already lie on, by joint and property.
pub(crate) type GridSteps = HashMap<(u16, Property), f32>;

impl ChannelKeys {
    fn key_value(&self, k: usize) -> Vec4 {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// True when every sample of the channel is its first key within [`HELD_EPSILON`] per component
    /// (rotations either sign): the channel is held at its first key.
    fn is_held(&self) -> bool {
        let first = self.key_value(0);
        let near = |v: Vec4| {
            let d = (v - first).abs().max_element();
            let flipped = if self.property == Property::Rotation {
                (v + first).abs().max_element()
            } else {
                f32::INFINITY
            };
            d.min(flipped) <= HELD_EPSILON
        };
        match self.interpolation {
            Interpolation::CubicSpline => self
                .values
                .chunks(3)
                .all(|c| near(c[1]) && c[0] == Vec4::ZERO && c[2] == Vec4::ZERO),
            _ => self.values.iter().all(|v| near(*v)),
        }
    }
}

fn vec_keys(
    keys: &Keys<Vec3>,
    map: impl Fn(Vec3) -> Vec3,
    tangent: impl Fn(Vec3) -> Vec3,
) -> Vec<Vec4> {
    let cubic = keys.interpolation() == Interpolation::CubicSpline;
    keys.values()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let v = if cubic && i % 3 != 1 {
                tangent(v)
            } else {
                map(v)
            };
            v.extend(0.0)
        })
        .collect()
}

fn quat_keys(keys: &Keys<Quat>, pre: Quat, post: Quat) -> Vec<Vec4> {
    keys.values()
        .iter()
        .map(|&q| Vec4::from(pre * q * post))
        .collect()
}

/// The channels of one bound track, with retargeting folded into the key values.
fn track_channels(track: &crate::core::Track, bound: &BoundTrack, out: &mut Vec<ChannelKeys>) {
    let joint = bound.joint;
    let mut push = |property, times: &[f32], interpolation, values, grid_step| {
        out.push(ChannelKeys {
            joint,
            property,
            times: times.to_vec(),
            interpolation,
            values,
            grid_step,
        })
    };
    match &bound.retarget {
        None => {
            if let Some(k) = &track.translation {
                push(
                    Property::Translation,
                    k.times(),
                    k.interpolation(),
                    vec_keys(k, |v| v, |v| v),
                    k.grid_step(),
                );
            }
            if let Some(k) = &track.rotation {
                push(
                    Property::Rotation,
                    k.times(),
                    k.interpolation(),
                    quat_keys(k, Quat::IDENTITY, Quat::IDENTITY),
                    k.grid_step(),
                );
            }
            if let Some(k) = &track.scale {
                push(
                    Property::Scale,
                    k.times(),
                    k.interpolation(),
                    vec_keys(k, |v| v, |v| v),
                    k.grid_step(),
                );
            }
        }
        Some(r) => {
            if let Some(k) = &track.rotation {
                push(
                    Property::Rotation,
                    k.times(),
                    k.interpolation(),
                    quat_keys(k, r.pre, r.post),
                    None,
                );
            }
            if let (Some(k), Some(scale)) = (&track.translation, r.translation_scale) {
                let map = |v: Vec3| r.translation_offset + r.translation_rotation * v * scale;
                let tangent = |v: Vec3| r.translation_rotation * v * scale;
                push(
                    Property::Translation,
                    k.times(),
                    k.interpolation(),
                    vec_keys(k, map, tangent),
                    None,
                );
            }
        }
    }
}

/// Lane `l` of a block: the channel of that lane, or the block's first channel for padding lanes.
fn lane<'c>(block: &[&'c ChannelKeys], l: usize) -> &'c ChannelKeys {
    block.get(l).unwrap_or(&block[0])
}

/// Values and length-scaled tangents of interval `k` of a cubic channel (the last interval holds the last key).
fn cubic_ends(c: &ChannelKeys, k: usize) -> [Vec4; 4] {
    let n = c.times.len();
    if k + 1 >= n {
        let v = c.values[3 * k + 1];
        return [v, Vec4::ZERO, v, Vec4::ZERO];
    }
    let td = c.times[k + 1] - c.times[k];
    [
        c.values[3 * k + 1],
        c.values[3 * k + 2] * td,
        c.values[3 * (k + 1) + 1],
        c.values[3 * (k + 1)] * td,
    ]
}

fn transpose<const N: usize>(lanes: [Vec4; 4]) -> [Vec4; N] {
    let rows = lanes.map(|v| v.to_array());
    std::array::from_fn(|c| Vec4::new(rows[0][c], rows[1][c], rows[2][c], rows[3][c]))
}

fn build_groups<S>(
    channels: &[&ChannelKeys],
    time_set: usize,
    segment: impl Fn(&[&ChannelKeys], usize) -> S,
) -> Group<S> {
    let blocks: Vec<&[&ChannelKeys]> = channels.chunks(4).collect();
    let intervals = channels[0].times.len();
    let joints = blocks
        .iter()
        .map(|b| std::array::from_fn(|l| lane(b, l).joint as u16))
        .collect();
    let mut segments = Vec::with_capacity(intervals * blocks.len());
    for k in 0..intervals {
        for b in &blocks {
            segments.push(segment(b, k));
        }
    }
    Group {
        time_set,
        blocks: blocks.len(),
        joints,
        segments,
    }
}

/// A linear group of `channels`: rotations when `N` is 6 (sign-aligned, each key with its interval's angles),
/// vectors when it is 3.
fn linear_group<const N: usize>(channels: &[&ChannelKeys], time_set: usize) -> LinearGroup<N> {
    let blocks: Vec<&[&ChannelKeys]> = channels.chunks(4).collect();
    let n = channels[0].times.len();
    let rotations = N == 6;
    // Each lane's keys, rotations flipped where needed so each shares the previous one's hemisphere.
    let lanes: Vec<[Vec<Vec4>; 4]> = blocks
        .iter()
        .map(|b| {
            std::array::from_fn(|l| {
                let c = lane(b, l);
                let mut keys: Vec<Vec4> = (0..n).map(|k| c.key_value(k)).collect();
                if rotations {
                    for k in 1..n {
                        if keys[k - 1].dot(keys[k]) < 0.0 {
                            keys[k] = -keys[k];
                        }
                    }
                }
                keys
            })
        })
        .collect();
    let mut keys = Vec::with_capacity(n * blocks.len());
    for k in 0..n {
        for lane_keys in &lanes {
            let components: [Vec4; 4] = transpose(std::array::from_fn(|l| lane_keys[l][k]));
            let mut theta = [0.0; 4];
            let mut inv_sinc = [1.0; 4];
            if rotations && k + 1 < n {
                for l in 0..4 {
                    (theta[l], inv_sinc[l]) = slerp_angle(lane_keys[l][k], lane_keys[l][k + 1]);
                }
            }
            let angles = [Vec4::from_array(theta), Vec4::from_array(inv_sinc)];
            keys.push(std::array::from_fn(|c| {
                if c < 4 { components[c] } else { angles[c - 4] }
            }));
        }
    }
    LinearGroup {
        time_set,
        blocks: blocks.len(),
        joints: blocks
            .iter()
            .map(|b| std::array::from_fn(|l| lane(b, l).joint as u16))
            .collect(),
        holds: blocks
            .iter()
            .map(|b| {
                Vec4::from_array(std::array::from_fn(|l| {
                    f32::from(u8::from(lane(b, l).interpolation == Interpolation::Step))
                }))
            })
            .collect(),
        keys,
    }
}

fn cubic_segment<const N: usize>(block: &[&ChannelKeys], k: usize) -> CubicSegment<N> {
    let ends: [[Vec4; 4]; 4] = std::array::from_fn(|l| cubic_ends(lane(block, l), k));
    CubicSegment {
        v0: transpose(ends.map(|e| e[0])),
        m0: transpose(ends.map(|e| e[1])),
        v1: transpose(ends.map(|e| e[2])),
        m1: transpose(ends.map(|e| e[3])),
    }
}

impl Animation {
    /// Compiles `clip` keeping every key as the clip has it (f32): what bakes and exports sample their
    /// reference from. Joints no track drives keep the skeleton's rest pose; when several tracks drive one
    /// property of a joint, the last one wins (as sampling them in order would).
    pub fn build_exact(clip: &Clip, binding: &ClipBinding, skeleton: &Skeleton) -> Self {
        Self::compile_exact(clip, binding, skeleton).0
    }

    /// [`Animation::build_exact`], with the grid steps the animated channels' keys lie on.
    pub(crate) fn compile_exact(
        clip: &Clip,
        binding: &ClipBinding,
        skeleton: &Skeleton,
    ) -> (Self, GridSteps) {
        let mut grid_steps = GridSteps::new();
        let rest = skeleton.rest_shared();
        let mut base = rest.to_vec();
        let mut channels = Vec::new();
        for (track, bound) in clip.tracks.iter().zip(&binding.tracks) {
            if let Some(b) = bound.as_ref().filter(|b| b.joint < base.len()) {
                track_channels(track, b, &mut channels);
            }
        }
        // The last channel per (joint, property) wins.
        let mut last: HashMap<(usize, Property), usize> = HashMap::new();
        for (i, c) in channels.iter().enumerate() {
            last.insert((c.joint, c.property), i);
        }
        let mut time_set_of: HashMap<Vec<u32>, usize> = HashMap::new();
        let mut time_sets: Vec<Vec<f32>> = Vec::new();
        // (property, cubic, time set) → channels, in joint order within each group.
        let mut grouped: HashMap<(Property, bool, usize), Vec<&ChannelKeys>> = HashMap::new();
        let mut animated_channels = 0;
        let mut animated = HashSet::new();
        for (i, c) in channels.iter().enumerate() {
            if last.get(&(c.joint, c.property)) != Some(&i) {
                continue;
            }
            if c.is_held() {
                let v = c.key_value(0);
                let t = &mut base[c.joint];
                match c.property {
                    Property::Translation => t.translation = Vec3A::from_vec4(v),
                    Property::Rotation => t.rotation = Quat::from_vec4(v),
                    Property::Scale => t.scale = Vec3A::from_vec4(v),
                }
                continue;
            }
            animated_channels += 1;
            animated.insert((c.joint, c.property));
            if let Some(step) = c.grid_step {
                grid_steps.insert((c.joint as u16, c.property), step);
            }
            let key: Vec<u32> = c.times.iter().map(|t| t.to_bits()).collect();
            let set = *time_set_of.entry(key).or_insert_with(|| {
                time_sets.push(c.times.clone());
                time_sets.len() - 1
            });
            let cubic = c.interpolation == Interpolation::CubicSpline;
            grouped.entry((c.property, cubic, set)).or_default().push(c);
        }
        let constant_channels: Vec<(u16, u8)> = (0..base.len())
            .flat_map(|j| {
                [Property::Translation, Property::Rotation, Property::Scale].map(|p| (j, p))
            })
            .filter(|c| !animated.contains(c))
            .map(|(j, p)| (j as u16, p as u8))
            .collect();
        let constant_channels = if constant_channels.len() < base.len() {
            constant_channels
        } else {
            Vec::new()
        };
        let mut keys: Vec<_> = grouped.into_iter().collect();
        keys.sort_by_key(|((p, cubic, set), _)| (*set, *p as u8, *cubic));
        let base_overrides = BaseOverrides::between(&base, &rest, 0.0);
        let mut anim = Animation {
            id: next_id(),
            duration: clip.duration,
            rest,
            base_overrides,
            constant_channels,
            time_sets,
            rotations: Vec::new(),
            rotations_cubic: Vec::new(),
            vectors: [Vec::new(), Vec::new()],
            vectors_cubic: [Vec::new(), Vec::new()],
            packed: Vec::new(),
            compact_error: None,
            animated_channels,
        };
        for ((property, cubic, set), mut chans) in keys {
            chans.sort_by_key(|c| c.joint);
            let v = usize::from(property == Property::Scale);
            match (property, cubic) {
                (Property::Rotation, false) => anim.rotations.push(linear_group(&chans, set)),
                (Property::Rotation, true) => {
                    anim.rotations_cubic
                        .push(build_groups(&chans, set, cubic_segment::<4>))
                }
                (_, false) => anim.vectors[v].push(linear_group(&chans, set)),
                (_, true) => {
                    anim.vectors_cubic[v].push(build_groups(&chans, set, cubic_segment::<3>))
                }
            }
        }
        (anim, grid_steps)
    }

    /// Binds as [`Animation::bind`] does and compiles with every key exact ([`Animation::build_exact`]).
    pub fn bind_exact(
        clip: &Clip,
        skeleton: &Skeleton,
        humanoid: Option<&crate::core::HumanoidMap>,
    ) -> (Self, ClipBinding) {
        let (clip, binding) = crate::core::fold::bind_folding(clip, skeleton, humanoid);
        (Self::build_exact(&clip, &binding, skeleton), binding)
    }
}
