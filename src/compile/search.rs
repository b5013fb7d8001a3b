//! The packing search: an exact build's linear groups packed on grids a fraction of each joint's error budget,
//! coarsest first, each candidate sampled and measured against the exact form at every key time and the quarters
//! between; the first within [`COMPACT_TOLERANCE`] is kept, or the exact form when none is.

use glam::Mat4;

use super::exact::{GridSteps, HELD_EPSILON, Property};
use super::pack::{ChannelToPack, pack_channels};
use crate::core::metric::{JointScale, joint_scales, max_vertex_error};
use crate::core::{Clip, ClipBinding, Skeleton, Transform};
use crate::runtime::animation::{BaseOverrides, LinearGroup, next_id};
use crate::runtime::packed::{PackedGroup, PackedProperty};
use crate::runtime::{Animation, LocalToModelJob, SamplingContext, SamplingJob};

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

impl Animation {
    /// Compiles `clip`, bound to `skeleton` by `binding`, in the compact form: linear and stepped keys packed
    /// ([`crate::runtime::packed`]) on grids whose measured error stays within [`COMPACT_TOLERANCE`] of the clip's own
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
                candidate.id = next_id();
                candidate.compact_error = Some(error);
                candidate
            })
        })
    }

    /// The base channels farther than [`HELD_EPSILON`] from the rest pose: the others are the rest pose
    /// (exporters write 0.9999999 for 1), so most clips keep a handful. The packed form takes these, and the
    /// compiler measures it against the exact form, snapping included.
    fn snapped_base_overrides(&self) -> BaseOverrides {
        BaseOverrides::between(&self.base_pose(), &self.rest, HELD_EPSILON)
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
