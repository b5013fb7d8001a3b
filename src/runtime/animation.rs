//! A clip compiled for one skeleton: the form the sampling job streams through (the builder, `src/compile/`, makes it).
//!
//! Channels that never change are folded into a base pose (with the rest pose for joints no track drives), so a
//! sample starts from one copy. The other channels are grouped by their key times (a glTF exporter usually keys
//! every channel at the same times) and interpolation, four joints to a block, in structure-of-arrays form. A
//! linear group stores each key once, key-major (a sample reads the blocks of key k and of key k + 1, which lie
//! next to each other, and playing forward walks that storage in order), and for rotations the angle of each
//! interval and `θ / sin θ`, rotations being sign-aligned along each lane so consecutive keys share a hemisphere.
//! A cubic group stores each interval's ends and tangents; linear groups may instead be packed
//! ([`super::packed`]). Retargeting through humanoid bones is already folded into the keys.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Quat, Vec3, Vec3A, Vec4};

use super::packed::PackedGroup;
use crate::core::Transform;

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

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh identity for a compiled clip (sampling contexts remember which clip they were last used with).
pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

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
    pub(crate) fn between(base: &[Transform], rest: &[Transform], epsilon: f32) -> Self {
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
    pub(crate) duration: f32,
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
    pub(crate) compact_error: Option<f32>,
    pub(crate) animated_channels: usize,
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

impl Animation {
    /// The largest virtual-vertex displacement (metres) its packed keys cause against the clip's own keys, as
    /// measured when it was compiled; None when every key is exact.
    pub fn compact_error(&self) -> Option<f32> {
        self.compact_error
    }

    /// Length in seconds (the clip's last key time).
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// Joints of the skeleton it was compiled for.
    pub fn joint_count(&self) -> usize {
        self.rest.len()
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
