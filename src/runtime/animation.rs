//! A clip compiled for one skeleton: what the sampling job streams through.
//!
//! Channels that never change (within [`HELD_EPSILON`]) are folded into a base pose (with the rest pose for joints no track drives), so a
//! sample starts from one copy. The other channels are grouped by their key times (a glTF exporter usually keys
//! every channel at the same times) and interpolation, four joints to a block, in structure-of-arrays form. A
//! linear group stores each key once, key-major (a sample reads the blocks of key k and of key k + 1, which lie
//! next to each other, and playing forward walks that storage in order), and for rotations the angle of each
//! interval and `θ / sin θ`, rotations being sign-aligned along each lane so consecutive keys share a hemisphere.
//! A cubic group stores each interval's ends and tangents.
//! Retargeting through humanoid bones is folded into the keys: slerp, lerp and the cubic Hermite spline commute
//! with the constant rotations and affine maps it applies, so the result equals retargeting after sampling.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Mat4, Quat, Vec3, Vec3A, Vec4};

use super::packed::{ChannelToPack, PackedGroup, PackedProperty, pack_channels};
use super::{LocalToModelJob, SamplingContext, SamplingJob};
use crate::core::metric::{JointScale, joint_scales, max_vertex_error};

use crate::core::binding::BoundTrack;
use crate::core::clip::{Interpolation, Keys};
use crate::core::{Clip, ClipBinding, Skeleton, Transform};

/// Linearly interpolated (or stepped) channels sharing one set of key times, four joints to a block, each key
/// stored once: `N` vectors per key per block, one per component (x, y, z lanes of four joints for vectors; x, y,
/// z, w for rotations, then the angle θ of the interval the key starts, in [0, π/2], and θ / sin θ, so a sample
/// reads one stream).
#[derive(Clone, Debug)]
pub(crate) struct LinearGroup<const N: usize> {
    /// Index of the key times in [`Animation::time_sets`].
    pub time_set: usize,
    /// Blocks per key.
    pub blocks: usize,
    /// Joint of each lane of each block (padding lanes repeat a real lane).
    pub joints: Vec<[u16; 4]>,
    /// Per block, 1 in the lanes that step (hold a key until the next) and 0 in those that interpolate.
    pub holds: Vec<Vec4>,
    /// `keys × blocks` blocks, key-major: key `k`'s blocks are `keys[k*blocks..(k+1)*blocks]`.
    pub keys: Vec<[Vec4; N]>,
}

/// A cubic Hermite interval for four joints: values and tangents already scaled by the interval's length.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct CubicSegment<const N: usize> {
    pub v0: [Vec4; N],
    pub m0: [Vec4; N],
    pub v1: [Vec4; N],
    pub m1: [Vec4; N],
}

/// Channels sharing one set of key times and one kind of interpolation, four joints to a block.
#[derive(Clone, Debug)]
pub(crate) struct Group<S> {
    /// Index of the key times in [`Animation::time_sets`].
    pub time_set: usize,
    /// Blocks per key interval.
    pub blocks: usize,
    /// Joint of each lane of each block (padding lanes repeat a real lane).
    pub joints: Vec<[u16; 4]>,
    /// `intervals × blocks` segments, interval-major: interval `k`'s blocks are `segments[k*blocks..(k+1)*blocks]`.
    pub segments: Vec<S>,
}

/// How far (per component: a rotation's quaternion components, or a vector's units) every key of
/// a channel may be from its first for the channel to be held at its first key, folded into the base pose. It
/// strips the float noise exporters leave in channels that do not move (Blender writes channels whose two keys
/// differ by 1e-7): a rotation held so turns its joint by at most 4e-6 rad (0.0004 cm at a point 1 m away), a
/// translation moves by at most 1e-6 units.
pub const HELD_EPSILON: f32 = 1e-6;

/// Which property a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Property {
    Translation,
    Rotation,
    Scale,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The channels of a clip's base pose that differ from the skeleton's rest pose, by property (a list each, so
/// that writing them over the rest pose is a tight loop per property, with no branch per channel).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct BaseOverrides {
    /// Joint and translation.
    pub translations: Vec<(u16, [f32; 3])>,
    /// Joint and rotation (x, y, z, w).
    pub rotations: Vec<(u16, [f32; 4])>,
    /// Joint and scale.
    pub scales: Vec<(u16, [f32; 3])>,
}

impl BaseOverrides {
    /// The channels of `base` farther than `epsilon` (per component; rotations either sign) from `rest`.
    fn between(base: &[Transform], rest: &[Transform], epsilon: f32) -> Self {
        let mut out = BaseOverrides::default();
        let far = |d: Vec4| d.abs().max_element() > epsilon;
        for (j, (b, r)) in base.iter().zip(rest).enumerate() {
            let j = j as u16;
            let (bt, rt) = (Vec3::from(b.translation), Vec3::from(r.translation));
            if far((bt - rt).extend(0.0)) {
                out.translations.push((j, bt.to_array()));
            }
            let (bq, rq) = (Vec4::from(b.rotation), Vec4::from(r.rotation));
            if far(bq - rq) && far(bq + rq) {
                out.rotations.push((j, bq.to_array()));
            }
            let (bs, rs) = (Vec3::from(b.scale), Vec3::from(r.scale));
            if far((bs - rs).extend(0.0)) {
                out.scales.push((j, bs.to_array()));
            }
        }
        out.translations.shrink_to_fit();
        out.rotations.shrink_to_fit();
        out.scales.shrink_to_fit();
        out
    }

    /// Writes every channel into `pose` (one transform per joint of the skeleton).
    #[inline]
    pub fn apply(&self, pose: &mut [Transform]) {
        for &(j, v) in &self.translations {
            pose[usize::from(j)].translation = Vec3A::from_array(v);
        }
        for &(j, v) in &self.rotations {
            pose[usize::from(j)].rotation = Quat::from_array(v);
        }
        for &(j, v) in &self.scales {
            pose[usize::from(j)].scale = Vec3A::from_array(v);
        }
    }

    /// Bytes its lists hold, at their capacities.
    fn heap_bytes(&self) -> usize {
        fn buffer<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        buffer(&self.translations) + buffer(&self.rotations) + buffer(&self.scales)
    }
}

/// A clip bound to and compiled for one skeleton.
#[derive(Clone, Debug)]
pub struct Animation {
    pub(crate) id: u64,
    duration: f32,
    /// The skeleton's rest pose, one allocation shared by every clip compiled for the skeleton.
    pub(crate) rest: Arc<[Transform]>,
    /// The channels no key animates whose value is not the rest pose's (held channels): with `rest`, the base
    /// pose sampling starts from.
    pub(crate) base_overrides: BaseOverrides,
    /// Every (joint, property: 0 translation, 1 rotation, 2 scale) no animated channel writes, when copying
    /// those from the base pose is cheaper than copying all of it (fewer than joints); empty otherwise.
    pub(crate) constant_channels: Vec<(u16, u8)>,
    pub(crate) time_sets: Vec<Vec<f32>>,
    pub(crate) rotations: Vec<LinearGroup<6>>,
    pub(crate) rotations_cubic: Vec<Group<CubicSegment<4>>>,
    pub(crate) vectors: [Vec<LinearGroup<3>>; 2],
    pub(crate) vectors_cubic: [Vec<Group<CubicSegment<3>>>; 2],
    /// The linear groups, packed (then `rotations` and `vectors` are empty).
    pub(crate) packed: Vec<PackedGroup>,
    /// Largest virtual-vertex displacement of the packed keys against the exact ones, metres (None: exact).
    compact_error: Option<f32>,
    animated_channels: usize,
}

/// How far (metres of virtual-vertex displacement, [`crate::core::metric`]) a compiled clip's packed keys may
/// move any joint's virtual vertices from where the clip's own keys put them, measured at every key time and at
/// the quarters between keys when it is compiled: 0.008 cm, under the 0.01 cm every bake keeps (between the
/// measured times the error can be a little larger; the spec test bounds it at 0.01 cm on every test asset).
pub const COMPACT_TOLERANCE: f32 = 8e-5;

/// The grid steps tried, as fractions of the per-joint budget ([`COMPACT_TOLERANCE`] over the joint's reach or
/// parent scale), coarsest first; the first whose measured error is within the tolerance is kept.
const STEP_FACTORS: [f32; 6] = [1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125];

/// Most check times a compilation measures (longer clips are measured at evenly spread key times).
const MAX_CHECK_TIMES: usize = 20_000;

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
type GridSteps = HashMap<(u16, Property), f32>;

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

/// The angle θ between the directions of `a` and `b` (same hemisphere), computed in f64 as 2·atan2(|a−b|, |a+b|)
/// of the normalised ends (exact for nearby keys, where acos of the dot product loses it), and θ/sin θ.
pub(crate) fn slerp_angle(a: Vec4, b: Vec4) -> (f32, f32) {
    let (a, b) = (
        a.as_dvec4().normalize_or_zero(),
        b.as_dvec4().normalize_or_zero(),
    );
    let theta = 2.0 * (a - b).length().atan2((a + b).length());
    let inv_sinc = if theta < 1e-12 {
        1.0
    } else {
        theta / theta.sin()
    };
    (theta as f32, inv_sinc as f32)
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
    /// Compiles `clip`, bound to `skeleton` by `binding`, in the compact form: linear and stepped keys packed
    /// ([`super::packed`]) on grids whose measured error stays within [`COMPACT_TOLERANCE`] of the clip's own
    /// keys (cubic splines stay exact). A clip whose keys cannot be packed so (not finite, or too fine even at
    /// the finest grid tried) stays exact: [`Animation::compact_error`] says which.
    pub fn build(clip: &Clip, binding: &ClipBinding, skeleton: &Skeleton) -> Self {
        let (exact, grid_steps) = Self::compile_exact(clip, binding, skeleton);
        if let Some(compact) = exact.compacted(skeleton, &grid_steps) {
            return compact;
        }
        // Nothing to pack: the base pose alone is snapped to the rest pose, kept when that is within the
        // tolerance at the clip's start (nothing moves, so one time measures it).
        let mut snapped = exact.clone();
        snapped.base_overrides = exact.snapped_base_overrides();
        match exact.max_error_against(&snapped, skeleton, &[0.0]) {
            Some(e) if e <= COMPACT_TOLERANCE => snapped,
            _ => exact,
        }
    }

    /// Compiles `clip` keeping every key as the clip has it (f32): what bakes and exports sample their
    /// reference from. Joints no track drives keep the skeleton's rest pose; when several tracks drive one
    /// property of a joint, the last one wins (as sampling them in order would).
    pub fn build_exact(clip: &Clip, binding: &ClipBinding, skeleton: &Skeleton) -> Self {
        Self::compile_exact(clip, binding, skeleton).0
    }

    /// [`Animation::build_exact`], with the grid steps the animated channels' keys lie on.
    fn compile_exact(clip: &Clip, binding: &ClipBinding, skeleton: &Skeleton) -> (Self, GridSteps) {
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
        let mut animated = std::collections::HashSet::new();
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
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
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

    /// Binds `clip` to `skeleton` (path, name, then humanoid bone; the motion of humanoid bones the target lacks
    /// folded into their parent bone's) and compiles it in the compact form ([`Animation::build`]).
    pub fn bind(
        clip: &Clip,
        skeleton: &Skeleton,
        humanoid: Option<&crate::core::HumanoidMap>,
    ) -> (Self, ClipBinding) {
        let (clip, binding) = crate::core::fold::bind_folding(clip, skeleton, humanoid);
        (Self::build(&clip, &binding, skeleton), binding)
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

    /// The largest virtual-vertex displacement (metres) its packed keys cause against the clip's own keys, as
    /// measured when it was compiled; None when every key is exact.
    pub fn compact_error(&self) -> Option<f32> {
        self.compact_error
    }

    /// The same clip with its linear groups packed on grids `factor` × each joint's budget (or, for the
    /// channels `grid_steps` names, those steps), or None when a key is not finite.
    fn packed(&self, scales: &[JointScale], factor: f32, grid_steps: &GridSteps) -> Option<Self> {
        // Property's order (translation, rotation, scale) is the order of `JointScale::grid_steps`.
        let budget = |joint: u16, property: Property| {
            grid_steps
                .get(&(joint, property))
                .copied()
                .unwrap_or_else(|| {
                    scales[usize::from(joint)].grid_steps(factor * COMPACT_TOLERANCE)
                        [property as usize]
                })
        };
        let mut out = self.clone();
        out.packed = self
            .rotations
            .iter()
            .map(|g| {
                pack_linear(g, PackedProperty::Rotation, |j| {
                    budget(j, Property::Rotation)
                })
            })
            .chain(
                self.vectors
                    .iter()
                    .zip([
                        (PackedProperty::Translation, Property::Translation),
                        (PackedProperty::Scale, Property::Scale),
                    ])
                    .flat_map(|(groups, (packed, property))| {
                        groups
                            .iter()
                            .map(move |g| pack_linear(g, packed, |j| budget(j, property)))
                    }),
            )
            .collect::<Option<_>>()?;
        out.rotations = Vec::new();
        out.vectors = [Vec::new(), Vec::new()];
        out.base_overrides = self.snapped_base_overrides();
        Some(out)
    }

    /// The packed form whose error, measured against this exact one, is within [`COMPACT_TOLERANCE`]; None
    /// when there is nothing to pack or no grid tried is fine enough. Channels whose keys lie on a known grid
    /// (`grid_steps`, from a packed file) are tried on it first: there they pack as the file stores them.
    fn compacted(&self, skeleton: &Skeleton, grid_steps: &GridSteps) -> Option<Self> {
        if self.rotations.is_empty() && self.vectors.iter().all(Vec::is_empty) {
            return None;
        }
        if skeleton.len() != self.rest.len() {
            return None;
        }
        let scales = joint_scales(skeleton);
        let times = check_times(&self.time_sets);
        let none = GridSteps::new();
        let attempts = (!grid_steps.is_empty())
            .then_some((1.0, grid_steps))
            .into_iter()
            .chain(STEP_FACTORS.iter().map(|&f| (f, &none)));
        attempts.into_iter().find_map(|(factor, steps)| {
            let mut candidate = self.packed(&scales, factor, steps)?;
            let error = self.max_error_against(&candidate, skeleton, &times)?;
            (error <= COMPACT_TOLERANCE).then(|| {
                candidate.id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
                candidate.compact_error = Some(error);
                candidate
            })
        })
    }

    /// The largest virtual-vertex displacement between this animation and `other` at `times`.
    fn max_error_against(&self, other: &Self, skeleton: &Skeleton, times: &[f32]) -> Option<f32> {
        let n = skeleton.len();
        let mut sides = [self, other].map(|a| {
            (
                a,
                SamplingContext::for_animation(a),
                vec![Transform::IDENTITY; n],
                vec![Mat4::IDENTITY; n],
            )
        });
        let mut worst = 0.0f32;
        for &time in times {
            for (animation, context, local, model) in sides.iter_mut() {
                SamplingJob {
                    animation,
                    context,
                    time,
                    output: local,
                }
                .run()
                .ok()?;
                LocalToModelJob::all(skeleton, local, model).run().ok()?;
            }
            let error = max_vertex_error(&sides[0].3, &sides[1].3);
            if !error.is_finite() {
                return None;
            }
            worst = worst.max(error);
        }
        Some(worst)
    }

    /// Length in seconds (the clip's last key time).
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// Joints of the skeleton it was compiled for.
    pub fn joint_count(&self) -> usize {
        self.rest.len()
    }

    /// The base channels farther than [`HELD_EPSILON`] from the rest pose: the others are the rest pose
    /// (exporters write 0.9999999 for 1), so most clips keep a handful. The packed form takes these, and the
    /// compiler measures it against the exact form, snapping included.
    fn snapped_base_overrides(&self) -> BaseOverrides {
        BaseOverrides::between(&self.base_pose(), &self.rest, HELD_EPSILON)
    }

    /// The pose sampling starts from: the rest pose with the held channels' values.
    pub fn base_pose(&self) -> Vec<Transform> {
        let mut base = self.rest.to_vec();
        self.base_overrides.apply(&mut base);
        base
    }

    /// Bytes of the skeleton's rest pose, which every clip compiled for it shares (one allocation, not counted in
    /// [`Animation::memory_bytes`]): a set of clips of one skeleton takes the sum of theirs plus this once.
    pub fn shared_rest_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.rest)
    }

    /// Distinct sets of key times (one cursor each in a [`super::SamplingContext`]).
    pub fn time_set_count(&self) -> usize {
        self.time_sets.len()
    }

    /// The room a sampling context needs for it.
    pub(crate) fn context_size(&self) -> super::sample::ContextSize {
        super::sample::ContextSize {
            time_sets: self.time_sets.len(),
            packed_groups: self.packed.len(),
            packed_blocks: self.packed.iter().map(PackedGroup::blocks).sum(),
        }
    }

    /// Channels that change over time (the others are folded into the base pose).
    pub fn animated_channels(&self) -> usize {
        self.animated_channels
    }

    /// Bytes the compiled clip holds in memory: the struct and every buffer it owns, at their capacities (what
    /// ozz's `Animation::size()` counts for its own). The skeleton's rest pose it shares with the other clips of
    /// the skeleton is counted by [`Animation::shared_rest_bytes`].
    pub fn memory_bytes(&self) -> usize {
        fn buffer<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        fn groups<S>(g: &Vec<Group<S>>) -> usize {
            buffer(g)
                + g.iter()
                    .map(|g| buffer(&g.joints) + buffer(&g.segments))
                    .sum::<usize>()
        }
        fn linear<const N: usize>(g: &Vec<LinearGroup<N>>) -> usize {
            buffer(g)
                + g.iter()
                    .map(|g| buffer(&g.joints) + buffer(&g.holds) + buffer(&g.keys))
                    .sum::<usize>()
        }
        std::mem::size_of::<Self>()
            + buffer(&self.packed)
            + self
                .packed
                .iter()
                .map(PackedGroup::heap_bytes)
                .sum::<usize>()
            + self.base_overrides.heap_bytes()
            + buffer(&self.constant_channels)
            + buffer(&self.time_sets)
            + self.time_sets.iter().map(buffer).sum::<usize>()
            + linear(&self.rotations)
            + groups(&self.rotations_cubic)
            + self.vectors.iter().map(linear).sum::<usize>()
            + self.vectors_cubic.iter().map(groups).sum::<usize>()
    }
}

/// Every key time of every time set and the quarters between consecutive keys, sorted (at most
/// [`MAX_CHECK_TIMES`], spread evenly over the sorted list).
fn check_times(time_sets: &[Vec<f32>]) -> Vec<f32> {
    let mut times: Vec<f32> = time_sets
        .iter()
        .flat_map(|t| {
            t.iter().copied().chain(
                t.windows(2)
                    .flat_map(|w| [0.25, 0.5, 0.75].map(|f| w[0] + f * (w[1] - w[0]))),
            )
        })
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    if times.len() > MAX_CHECK_TIMES {
        let stride = times.len().div_ceil(MAX_CHECK_TIMES);
        times = times.into_iter().step_by(stride).collect();
    }
    times
}

/// Packs an exact linear group (`N` = 6 for rotations, whose first 4 components are the quaternion; 3 for
/// vectors), each lane's grid step the budget of its joint ([`pack_channels`]). None when a key is not finite.
fn pack_linear<const N: usize>(
    g: &LinearGroup<N>,
    property: PackedProperty,
    budget: impl Fn(u16) -> f32,
) -> Option<PackedGroup> {
    let blocks = g.blocks;
    let keys = g.keys.len() / blocks.max(1);
    // Each real lane as a channel (the exact group's padding lanes repeat lane 0's joint; a group has one
    // channel per joint).
    let mut channels = Vec::new();
    for b in 0..blocks {
        let j = g.joints[b];
        let used = (1..4).find(|&l| j[l] == j[0]).unwrap_or(4);
        for (l, &joint) in j.iter().enumerate().take(used) {
            channels.push(ChannelToPack {
                lane: joint,
                hold: g.holds[b].to_array()[l] != 0.0,
                keys: (0..keys)
                    .map(|k| {
                        let v = &g.keys[k * blocks + b];
                        std::array::from_fn(|c| {
                            if c < N.min(4) {
                                v[c].to_array()[l]
                            } else {
                                0.0
                            }
                        })
                    })
                    .collect(),
            });
        }
    }
    pack_channels(property, g.time_set, keys, channels, budget)
}
