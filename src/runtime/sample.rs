//! The sampling job: an [`Animation`] at a time into local transforms, with a cursor context per clip so that
//! playing forward costs no search (seeking anywhere still works: a jump back or far ahead binary-searches).
//!
//! Rotations follow glTF's shortest-path slerp. With θ the angle between the interval's ends (computed once,
//! in f64 as 2·atan2(|a−b|, |a+b|), well conditioned for nearby keys, when the clip is compiled), slerp's
//! weights are `(1−u)·sinc((1−u)θ)/sinc θ` and `u·sinc(uθ)/sinc θ` with `sinc x = sin x / x`. θ ≤ π/2 (the ends
//! are on one hemisphere), where the Taylor series of sinc through x¹⁰ has a remainder below x¹²/13! ≤ 3.6·10⁻⁸,
//! so the weights are exact to f32 rounding; the property test in this module bounds the result against exact
//! slerp (f64) at 1e-5 rad, and it measures ~1e-7.

use glam::{Mat4, Quat, Vec3A, Vec4};

use super::JobError;
use super::animation::{Animation, CubicSegment, Group, LinearGroup};
use super::check::check_len;
use super::packed::{BlockCache, GroupCursor, PackedProperty};
use crate::core::Transform;

/// Per-clip playback state: for each set of key times, the key interval of the last sample; for each packed
/// group, the keys decoded around it ([`super::packed`]).
#[derive(Clone, Debug, Default)]
pub struct SamplingContext {
    animation: u64,
    /// The base pose of the animation it last served (the skeleton's rest pose with the clip's held channels),
    /// built when it changes animation: each sample then starts from one copy of it, as when every clip kept its
    /// own base pose, while the clips share the rest pose.
    base: Vec<Transform>,
    cursors: Vec<u32>,
    located: Vec<(u32, f32)>,
    packed_cursors: Vec<GroupCursor>,
    packed_caches: Vec<BlockCache>,
}

/// How much room a sampling context needs for one animation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ContextSize {
    pub time_sets: usize,
    pub packed_groups: usize,
    pub packed_blocks: usize,
}

impl SamplingContext {
    /// A context for exact clips with up to `time_sets` distinct sets of key times (no room for packed keys:
    /// [`SamplingContext::for_animation`] sizes one for any clip).
    pub fn new(time_sets: usize) -> Self {
        let mut c = SamplingContext::default();
        c.resize_to(ContextSize {
            time_sets,
            ..ContextSize::default()
        });
        c
    }

    /// A context sized for one animation.
    pub fn for_animation(animation: &Animation) -> Self {
        let mut c = SamplingContext::default();
        c.resize_for(animation);
        c
    }

    /// Makes room for `animation` and forgets the positions (allocates when it grows).
    pub fn resize_for(&mut self, animation: &Animation) {
        self.resize_to(animation.context_size());
    }

    fn resize_to(&mut self, size: ContextSize) {
        self.animation = 0;
        self.cursors.clear();
        self.cursors.resize(size.time_sets, 0);
        self.located.clear();
        self.located.resize(size.time_sets, (0, 0.0));
        self.packed_cursors.clear();
        self.packed_cursors
            .resize(size.packed_groups, GroupCursor::default());
        self.packed_caches.clear();
        self.packed_caches
            .resize(size.packed_blocks, BlockCache::default());
    }

    /// Forgets the cursor positions (the next sample searches and decodes again).
    pub fn invalidate(&mut self) {
        self.animation = 0;
    }

    /// Key-time cursors it has room for.
    pub fn capacity(&self) -> usize {
        self.cursors.len()
    }
}

/// Samples one animation at one time into a local pose (every joint written: base pose, then animated channels).
pub struct SamplingJob<'a> {
    /// What to sample.
    pub animation: &'a Animation,
    /// The cursors of this animation (reset when it last served another one).
    pub context: &'a mut SamplingContext,
    /// Seconds; before the first key the first value holds, after the last key the last.
    pub time: f32,
    /// One transform per joint of the animation's skeleton.
    pub output: &'a mut [Transform],
}

impl SamplingJob<'_> {
    /// Checks the inputs.
    pub fn validate(&self) -> Result<(), JobError> {
        check_len("output", self.output.len(), self.animation.joint_count())?;
        let need = self.animation.context_size();
        let ctx = &*self.context;
        for (what, got, expected) in [
            (
                "sampling context (key-time cursors)",
                ctx.cursors.len(),
                need.time_sets,
            ),
            (
                "sampling context (packed groups)",
                ctx.packed_cursors.len(),
                need.packed_groups,
            ),
            (
                "sampling context (packed blocks)",
                ctx.packed_caches.len(),
                need.packed_blocks,
            ),
        ] {
            if got < expected {
                return Err(JobError::Length {
                    what,
                    got,
                    expected,
                });
            }
        }
        if !self.time.is_finite() {
            return Err(JobError::NotFinite("time"));
        }
        Ok(())
    }

    /// Samples; allocates nothing.
    pub fn run(&mut self) -> Result<(), JobError> {
        self.validate()?;
        let anim = self.animation;
        let ctx = &mut *self.context;
        if ctx.animation != anim.id {
            // Sized once per joint count (a new skeleton), so sampling one animation again allocates nothing.
            ctx.base.clear();
            ctx.base.extend_from_slice(&anim.rest);
            anim.base_overrides.apply(&mut ctx.base);
            ctx.cursors.fill(0);
            ctx.packed_cursors
                .iter_mut()
                .for_each(GroupCursor::invalidate);
            ctx.animation = anim.id;
        }
        for ((times, cursor), located) in anim
            .time_sets
            .iter()
            .zip(ctx.cursors.iter_mut())
            .zip(ctx.located.iter_mut())
        {
            *located = locate(times, cursor, self.time);
        }
        let out = &mut *self.output;
        // Start from the base pose: all of it, or (when most channels move: the list is kept only then) only
        // what no channel overwrites.
        if !anim.constant_channels.is_empty() {
            for &(j, property) in &anim.constant_channels {
                let (o, b) = (&mut out[usize::from(j)], &ctx.base[usize::from(j)]);
                match property {
                    0 => o.translation = b.translation,
                    1 => o.rotation = b.rotation,
                    _ => o.scale = b.scale,
                }
            }
        } else {
            out.copy_from_slice(&ctx.base);
        }
        let at = |time_set: usize| {
            let (k, u) = ctx.located[time_set];
            (k as usize, u)
        };
        for g in &anim.rotations {
            let (k, u) = at(g.time_set);
            let (a, b) = key_blocks(g, k, &anim.time_sets[g.time_set]);
            for (((a, b), hold), joints) in a.iter().zip(b).zip(&g.holds).zip(&g.joints) {
                let q = slerp_block(a, b, lane_fraction(u, *hold));
                store(joints, q, |t, v| t.rotation = Quat::from_vec4(v), out);
            }
        }
        let mut first_block = 0;
        for (g, cursor) in anim.packed.iter().zip(ctx.packed_cursors.iter_mut()) {
            let (k, u) = at(g.time_set);
            let caches = &mut ctx.packed_caches[first_block..first_block + g.blocks()];
            first_block += g.blocks();
            g.seek(k, cursor, caches);
            let blocks = caches.iter().zip(&g.holds).zip(&g.joints);
            match g.property {
                PackedProperty::Rotation => {
                    for ((cache, hold), joints) in blocks {
                        let q = slerp_block_unit(&cache.a, &cache.b, lane_fraction(u, *hold));
                        store(joints, q, |t, v| t.rotation = Quat::from_vec4(v), out);
                    }
                }
                vector => {
                    let p = usize::from(vector == PackedProperty::Scale);
                    for ((cache, hold), joints) in blocks {
                        let (a, b) = (&cache.a, &cache.b);
                        let v = lerp_block(
                            &[a[0], a[1], a[2]],
                            &[b[0], b[1], b[2]],
                            lane_fraction(u, *hold),
                        );
                        store(joints, extend(v), |t, v| set_vector(t, p, v), out);
                    }
                }
            }
        }
        for g in &anim.rotations_cubic {
            let (k, u) = at(g.time_set);
            for (s, joints) in blocks(g, k) {
                let q = normalize_block(hermite_block(s, u));
                store(joints, q, |t, v| t.rotation = Quat::from_vec4(v), out);
            }
        }
        for (p, groups) in anim.vectors.iter().enumerate() {
            for g in groups {
                let (k, u) = at(g.time_set);
                let (a, b) = key_blocks(g, k, &anim.time_sets[g.time_set]);
                for (((a, b), hold), joints) in a.iter().zip(b).zip(&g.holds).zip(&g.joints) {
                    let v = lerp_block(a, b, lane_fraction(u, *hold));
                    store(joints, extend(v), |t, v| set_vector(t, p, v), out);
                }
            }
        }
        for (p, groups) in anim.vectors_cubic.iter().enumerate() {
            for g in groups {
                let (k, u) = at(g.time_set);
                for (s, joints) in blocks(g, k) {
                    let v = hermite_block(s, u);
                    store(joints, extend(v), |t, v| set_vector(t, p, v), out);
                }
            }
        }
        Ok(())
    }
}

fn set_vector(t: &mut Transform, property: usize, v: Vec4) {
    if property == 0 {
        t.translation = Vec3A::from_vec4(v);
    } else {
        t.scale = Vec3A::from_vec4(v);
    }
}

/// The key interval holding `t` (the last one past the end) and the fraction into it, moving the cursor.
#[inline]
fn locate(times: &[f32], cursor: &mut u32, t: f32) -> (u32, f32) {
    let n = times.len();
    let mut k = (*cursor as usize).min(n - 1);
    if t < times[k] {
        k = times.partition_point(|&x| x <= t).saturating_sub(1);
    } else {
        let mut steps = 0;
        while k + 1 < n && times[k + 1] <= t {
            k += 1;
            steps += 1;
            if steps == 4 {
                k += times[k..].partition_point(|&x| x <= t) - 1;
                break;
            }
        }
    }
    *cursor = k as u32;
    let u = if k + 1 < n && t > times[k] {
        ((t - times[k]) / (times[k + 1] - times[k])).min(1.0)
    } else {
        0.0
    };
    (k as u32, u)
}

#[inline(always)]
fn blocks<S>(g: &Group<S>, k: usize) -> impl Iterator<Item = (&S, &[u16; 4])> {
    g.segments[k * g.blocks..(k + 1) * g.blocks]
        .iter()
        .zip(&g.joints)
}

/// The blocks of key `k` and of the key after it (key `k` again for the last key) of a linear group.
#[inline(always)]
fn key_blocks<'g, const N: usize>(
    g: &'g LinearGroup<N>,
    k: usize,
    times: &[f32],
) -> (&'g [[Vec4; N]], &'g [[Vec4; N]]) {
    let next = (k + 1).min(times.len() - 1);
    (
        &g.keys[k * g.blocks..(k + 1) * g.blocks],
        &g.keys[next * g.blocks..(next + 1) * g.blocks],
    )
}

/// The fraction into the interval per lane: `u`, or 0 in the lanes that step.
#[inline(always)]
fn lane_fraction(u: f32, hold: Vec4) -> Vec4 {
    Vec4::splat(u) * (Vec4::ONE - hold)
}

#[inline(always)]
fn store(
    joints: &[u16; 4],
    lanes: [Vec4; 4],
    set: impl Fn(&mut Transform, Vec4),
    out: &mut [Transform],
) {
    // A 4×4 transpose (SIMD shuffles in glam): the block's lanes become one vector per joint.
    let per_joint = Mat4::from_cols(lanes[0], lanes[1], lanes[2], lanes[3]).transpose();
    for (&j, v) in joints.iter().zip([
        per_joint.x_axis,
        per_joint.y_axis,
        per_joint.z_axis,
        per_joint.w_axis,
    ]) {
        set(&mut out[usize::from(j)], v);
    }
}

#[inline(always)]
fn extend(v: [Vec4; 3]) -> [Vec4; 4] {
    [v[0], v[1], v[2], Vec4::ZERO]
}

/// sin(x)/x for x in [0, π/2]: the Taylor series through x¹⁰ (remainder below x¹²/13! ≤ 3.6·10⁻⁸, under f32's
/// rounding at 1), in y = x² by Horner's rule.
#[inline(always)]
fn sinc(x: Vec4) -> Vec4 {
    const C: [f32; 6] = [
        1.0,
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
    ];
    let y = x * x;
    let mut r = Vec4::splat(C[5]);
    for &c in C[..5].iter().rev() {
        r = r * y + Vec4::splat(c);
    }
    r
}

/// Slerp of four joints' rotations from key `a` to key `b` (same hemisphere) by `u4` per lane, through the angle
/// θ and θ / sin θ stored with `a` (its components 4 and 5).
#[inline(always)]
fn slerp_block(a: &[Vec4; 6], b: &[Vec4; 6], u4: Vec4) -> [Vec4; 4] {
    let (theta, inv_sinc) = (a[4], a[5]);
    let v4 = Vec4::ONE - u4;
    let w0 = v4 * sinc(v4 * theta) * inv_sinc;
    let w1 = u4 * sinc(u4 * theta) * inv_sinc;
    std::array::from_fn(|c| a[c] * w0 + b[c] * w1)
}

/// Coefficients of Eberly's slerp series ("A Fast and Accurate Algorithm for Computing SLERP", 2011), its first
/// eight terms: uᵢ = 1 / (i(2i + 1)) and vᵢ = i / (2i + 1).
const SLERP_U: [f32; 8] = [
    1.0 / 3.0,
    1.0 / 10.0,
    1.0 / 21.0,
    1.0 / 36.0,
    1.0 / 55.0,
    1.0 / 78.0,
    1.0 / 105.0,
    1.0 / 136.0,
];
const SLERP_V: [f32; 8] = [
    1.0 / 3.0,
    2.0 / 5.0,
    3.0 / 7.0,
    4.0 / 9.0,
    5.0 / 11.0,
    6.0 / 13.0,
    7.0 / 15.0,
    8.0 / 17.0,
];

/// How many terms of the series a block takes, by the largest |cos θ − 1| of its lanes (checked in f64 over u and
/// cos θ): up to [`NEAR_SLERP_XM1`] (a turn of 0.2 rad between keys, most channels keyed at 30 fps), two terms
/// are within 2.5·10⁻⁹ of slerp's weights; up to [`SHORT_SLERP_XM1`] (0.63 rad), four are within 1.3·10⁻⁹; up
/// to [`MEDIUM_SLERP_XM1`] (1.85 rad), eight are within 6·10⁻⁸; beyond it the block takes the angle itself.
const NEAR_SLERP_XM1: f32 = 0.005;
const SHORT_SLERP_XM1: f32 = 0.05;
const MEDIUM_SLERP_XM1: f32 = 0.4;

/// Shortest-path slerp of four joints' unit rotations from `a` to `b` by `u4` per lane, what packed keys are
/// sampled with (they carry no stored angle). Keys up to 1.85 rad apart, the usual case, take Eberly's series
/// in cos θ and u (no trigonometry); a block with a lane whose keys are farther apart computes each lane's
/// angle and runs the same series as exact keys ([`slerp_block`]). Its error against exact slerp is bounded by a property
/// test in this module.
#[inline(always)]
fn slerp_block_unit(a: &[Vec4; 4], b: &[Vec4; 4], u4: Vec4) -> [Vec4; 4] {
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    let sign = Vec4::select(dot.cmplt(Vec4::ZERO), Vec4::splat(-1.0), Vec4::ONE);
    let xm1 = dot.abs() - Vec4::ONE;
    let farthest = -xm1.min_element();
    if farthest > MEDIUM_SLERP_XM1 {
        return slerp_block_far(a, b, sign, u4);
    }
    if farthest > SHORT_SLERP_XM1 {
        slerp_series::<8>(a, b, sign, xm1, u4)
    } else if farthest > NEAR_SLERP_XM1 {
        slerp_series::<4>(a, b, sign, xm1, u4)
    } else {
        slerp_series::<2>(a, b, sign, xm1, u4)
    }
}

/// Eberly's series cut after `TERMS` terms, for [`slerp_block_unit`].
#[inline(always)]
fn slerp_series<const TERMS: usize>(
    a: &[Vec4; 4],
    b: &[Vec4; 4],
    sign: Vec4,
    xm1: Vec4,
    u4: Vec4,
) -> [Vec4; 4] {
    let d = Vec4::ONE - u4;
    let (t2, d2) = (u4 * u4, d * d);
    let (mut ct, mut cd) = (Vec4::ONE, Vec4::ONE);
    for i in (0..TERMS).rev() {
        let (u, v) = (Vec4::splat(SLERP_U[i]), Vec4::splat(SLERP_V[i]));
        ct = Vec4::ONE + (u * t2 - v) * xm1 * ct;
        cd = Vec4::ONE + (u * d2 - v) * xm1 * cd;
    }
    let w1 = sign * u4 * ct;
    let w0 = d * cd;
    std::array::from_fn(|c| a[c] * w0 + b[c] * w1)
}

/// [`slerp_block_unit`] for blocks with keys far apart: each lane's angle computed as the compiler does for
/// exact keys, `b` turned onto `a`'s hemisphere by `sign`.
#[cold]
fn slerp_block_far(a: &[Vec4; 4], b: &[Vec4; 4], sign: Vec4, u4: Vec4) -> [Vec4; 4] {
    let b = b.map(|c| c * sign);
    let lane = |q: &[Vec4; 4], l: usize| Vec4::from_array(q.map(|c| c.to_array()[l]));
    let angles: [(f32, f32); 4] =
        std::array::from_fn(|l| super::animation::slerp_angle(lane(a, l), lane(&b, l)));
    let theta = Vec4::from_array(angles.map(|x| x.0));
    let inv_sinc = Vec4::from_array(angles.map(|x| x.1));
    let a6 = [a[0], a[1], a[2], a[3], theta, inv_sinc];
    let b6 = [b[0], b[1], b[2], b[3], theta, inv_sinc];
    slerp_block(&a6, &b6, u4)
}

/// Slerp as the sampling job runs it on packed keys, for one pair of unit quaternions: exposed so its
/// error against exact slerp can be tested and measured.
pub fn polynomial_slerp(a: Quat, b: Quat, u: f32) -> Quat {
    let split = |q: Quat| q.to_array().map(Vec4::splat);
    let q = slerp_block_unit(&split(a), &split(b), Vec4::splat(u));
    Quat::from_xyzw(q[0].x, q[1].x, q[2].x, q[3].x)
}

#[inline(always)]
fn lerp_block(a: &[Vec4; 3], b: &[Vec4; 3], u4: Vec4) -> [Vec4; 3] {
    let v4 = Vec4::ONE - u4;
    std::array::from_fn(|c| a[c] * v4 + b[c] * u4)
}

#[inline(always)]
fn hermite_block<const N: usize>(s: &CubicSegment<N>, u: f32) -> [Vec4; N] {
    let u2 = u * u;
    let u3 = u2 * u;
    let h00 = Vec4::splat(2.0 * u3 - 3.0 * u2 + 1.0);
    let h10 = Vec4::splat(u3 - 2.0 * u2 + u);
    let h01 = Vec4::splat(-2.0 * u3 + 3.0 * u2);
    let h11 = Vec4::splat(u3 - u2);
    std::array::from_fn(|c| s.v0[c] * h00 + s.m0[c] * h10 + s.v1[c] * h01 + s.m1[c] * h11)
}

#[inline(always)]
fn normalize_block(q: [Vec4; 4]) -> [Vec4; 4] {
    let len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    let inv = Vec4::ONE / len2.sqrt().max(Vec4::splat(f32::MIN_POSITIVE));
    q.map(|c| c * inv)
}

/// glTF's shortest-path slerp computed the way the sampling job does (angle in f64 once, then the sinc series):
/// exposed so its error against exact slerp can be tested and measured.
pub fn fast_slerp(a: Quat, b: Quat, u: f32) -> Quat {
    let (a, b) = (Vec4::from(a), Vec4::from(b));
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let (theta, inv_sinc) = super::animation::slerp_angle(a, b);
    let [ax, ay, az, aw] = a.to_array();
    let [bx, by, bz, bw] = b.to_array();
    let key = |x, y, z, w| [x, y, z, w, theta, inv_sinc].map(Vec4::splat);
    let q = slerp_block(&key(ax, ay, az, aw), &key(bx, by, bz, bw), Vec4::splat(u));
    Quat::from_xyzw(q[0].x, q[1].x, q[2].x, q[3].x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::clip::{Interpolation, Keys};
    use crate::core::{Clip, JointDef, Pose, Skeleton, Track, TrackTarget, Wrap};
    use glam::{DQuat, DVec4, Mat4, Vec3};
    use proptest::prelude::*;

    /// Exact shortest-path slerp in f64.
    fn exact_slerp(a: Quat, b: Quat, u: f64) -> DQuat {
        let a = a.as_dquat().normalize();
        let mut b = b.as_dquat().normalize();
        if a.dot(b) < 0.0 {
            b = -b;
        }
        let theta = 2.0 * (a - b).length().atan2((a + b).length());
        if theta < 1e-15 {
            return a;
        }
        let s = theta.sin();
        let v = DVec4::from(a) * (((1.0 - u) * theta).sin() / s)
            + DVec4::from(b) * ((u * theta).sin() / s);
        DQuat::from_vec4(v)
    }

    fn angle(a: Quat, b: DQuat) -> f64 {
        let a = a.as_dquat();
        let d = (a - b).length().min((a + b).length());
        4.0 * (d / 2.0).asin()
    }

    fn unit(v: [f32; 4]) -> Option<Quat> {
        let q = Quat::from_array(v);
        (q.length() > 0.1).then(|| q.normalize())
    }

    /// `slerp`'s error against exact slerp from `a` to `b` (or, when `near` < 0.5, to a rotation close to `a`:
    /// angles down to ~1e-4 rad) at `u`.
    fn slerp_error(slerp: fn(Quat, Quat, f32) -> Quat, a: Quat, b: Quat, near: f32, u: f32) -> f64 {
        let b = if near < 0.5 {
            a.slerp(b, near * 1e-3).normalize()
        } else {
            b
        };
        angle(slerp(a, b, u), exact_slerp(a, b, f64::from(u)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn both_slerps_stay_within_1e5_rad_of_exact_slerp(
            a in prop::array::uniform4(-1.0f32..1.0),
            b in prop::array::uniform4(-1.0f32..1.0),
            near in 0.0f32..1.0,
            u in 0.0f32..=1.0,
        ) {
            let (Some(a), Some(b)) = (unit(a), unit(b)) else { return Ok(()) };
            for slerp in [fast_slerp as fn(Quat, Quat, f32) -> Quat, polynomial_slerp] {
                let err = slerp_error(slerp, a, b, near, u);
                prop_assert!(err <= 1e-5, "error {err} rad for {a:?} {b:?} at {u}");
            }
        }
    }

    /// The largest error of `slerp` against exact slerp from the identity to turns of 0–360° about y, at u in
    /// steps of 0.05.
    fn worst_on_a_sweep(slerp: fn(Quat, Quat, f32) -> Quat) -> f64 {
        let mut worst = 0.0f64;
        for i in 0..=180 {
            let b = Quat::from_rotation_y((i as f32).to_radians() * 2.0);
            for k in 0..=20 {
                let u = k as f32 / 20.0;
                worst = worst.max(angle(
                    slerp(Quat::IDENTITY, b, u),
                    exact_slerp(Quat::IDENTITY, b, f64::from(u)),
                ));
            }
        }
        worst
    }

    #[test]
    fn both_slerps_errors_are_near_f32_rounding() {
        let fast = worst_on_a_sweep(fast_slerp);
        assert!(fast < 1e-6, "fast_slerp: worst {fast} rad");
        let polynomial = worst_on_a_sweep(polynomial_slerp);
        assert!(
            polynomial < 2e-6,
            "polynomial_slerp: worst {polynomial} rad"
        );
    }

    fn target(name: &str) -> TrackTarget {
        TrackTarget::at_identity(name)
    }

    /// A clip with every interpolation, key times shared and not, constants, and an unanimated joint.
    fn mixed() -> (Skeleton, Clip) {
        let joints = (0usize..6)
            .map(|i| JointDef {
                name: format!("j{i}"),
                parent: i.checked_sub(1),
                rest: Transform {
                    translation: Vec3::new(0.0, 0.1 * i as f32, 0.0).into(),
                    ..Transform::IDENTITY
                },
                deforms: true,
            })
            .collect();
        let skel = Skeleton::new(joints, Mat4::IDENTITY).unwrap();
        let times = vec![0.0, 0.4, 0.5, 1.3, 2.0];
        let rot = |s: f32| -> Vec<Quat> {
            (0..5)
                .map(|k| {
                    Quat::from_euler(
                        glam::EulerRot::XYZ,
                        s * k as f32,
                        0.7 * s,
                        -1.3 * k as f32 * s,
                    )
                })
                .collect()
        };
        let mut tracks = Vec::new();
        for (j, interp) in [
            Interpolation::Linear,
            Interpolation::Step,
            Interpolation::Linear,
        ]
        .into_iter()
        .enumerate()
        {
            let t = if j == 2 {
                vec![0.1, 0.2, 0.9, 1.1, 1.7]
            } else {
                times.clone()
            };
            tracks.push(Track {
                target: target(&format!("j{j}")),
                translation: Some(
                    Keys::new(
                        t.clone(),
                        (0..5)
                            .map(|k| Vec3::splat(k as f32 * (j as f32 + 1.0)))
                            .collect(),
                        interp,
                    )
                    .unwrap(),
                ),
                rotation: Some(Keys::new(t.clone(), rot(0.3 + j as f32), interp).unwrap()),
                scale: Some(Keys::new(vec![0.0, 2.0], vec![Vec3::splat(2.0); 2], interp).unwrap()),
            });
        }
        let cubic_rot: Vec<Quat> = rot(0.5)
            .into_iter()
            .flat_map(|q| {
                [
                    Quat::from_xyzw(0.1, -0.2, 0.05, 0.0),
                    q,
                    Quat::from_xyzw(-0.1, 0.3, 0.0, 0.1),
                ]
            })
            .collect();
        let cubic_vec: Vec<Vec3> = (0..15)
            .map(|i| Vec3::new(i as f32, -(i as f32) * 0.5, 0.25))
            .collect();
        tracks.push(Track {
            target: target("j4"),
            translation: Some(
                Keys::new(times.clone(), cubic_vec, Interpolation::CubicSpline).unwrap(),
            ),
            rotation: Some(
                Keys::new(times.clone(), cubic_rot, Interpolation::CubicSpline).unwrap(),
            ),
            scale: None,
        });
        (skel, Clip::new("mixed", tracks))
    }

    /// Runs the sampling job on `anim` at `t` into `out`, and returns the reference sampler's pose of `clip` on
    /// `skel` there.
    fn sample_both(
        skel: &Skeleton,
        anim: &Animation,
        ctx: &mut SamplingContext,
        clip: &Clip,
        binding: &crate::core::ClipBinding,
        t: f32,
        out: &mut [Transform],
    ) -> Pose {
        SamplingJob {
            animation: anim,
            context: ctx,
            time: t,
            output: out,
        }
        .run()
        .unwrap();
        let mut want = Pose::rest(skel);
        clip.sample_into(binding, t, Wrap::Clamp, &mut want);
        want
    }

    #[test]
    fn sampling_matches_the_reference_forward_backward_and_past_the_end() {
        let (skel, clip) = mixed();
        let (anim, binding) = Animation::bind(&clip, &skel, None);
        assert_eq!(anim.time_set_count(), 2, "shared key times share a cursor");
        let mut ctx = SamplingContext::for_animation(&anim);
        let mut out = vec![Transform::IDENTITY; skel.len()];
        let mut times: Vec<f32> = (0..=130).map(|i| i as f32 * 0.0173 - 0.1).collect();
        times.extend([0.4, 0.5, 1.3, 2.0, 1.0, 0.0, 0.45, 2.5, 0.2, 0.2]);
        for t in times {
            let want = sample_both(&skel, &anim, &mut ctx, &clip, &binding, t, &mut out);
            for (j, (a, b)) in out.iter().zip(&want.local).enumerate() {
                assert!(
                    a.translation.abs_diff_eq(b.translation, 1e-5),
                    "t {t} joint {j}: {a:?} vs {b:?}"
                );
                assert!(a.scale.abs_diff_eq(b.scale, 1e-6), "t {t} joint {j}");
                let err = crate::layers::twist::rotation_distance(a.rotation, b.rotation);
                assert!(err < 2e-5, "t {t} joint {j}: {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn channels_that_move_by_float_noise_only_are_held_and_the_others_animate() {
        let (skel, mut clip) = mixed();
        let (before, _) = Animation::bind_exact(&clip, &skel, None);
        // Joint 5's rotation moves by 1e-7 per component (an exporter's noise), joint 3's by 1e-4 (motion).
        let noisy = |d: f32| {
            let q = Quat::from_rotation_z(0.3);
            let r = Quat::from_xyzw(q.x + d, q.y - d, q.z, q.w);
            Some(Keys::new(vec![0.0, 2.0], vec![q, r], Interpolation::Linear).unwrap())
        };
        clip.tracks.push(Track {
            target: target("j5"),
            translation: None,
            rotation: noisy(1e-7),
            scale: None,
        });
        clip.tracks.push(Track {
            target: target("j3"),
            translation: None,
            rotation: noisy(1e-4),
            scale: None,
        });
        let (after, binding) = Animation::bind_exact(&clip, &skel, None);
        assert_eq!(
            after.animated_channels(),
            before.animated_channels() + 1,
            "only the moving one animates"
        );
        let mut ctx = SamplingContext::for_animation(&after);
        let mut out = vec![Transform::IDENTITY; skel.len()];
        for t in [0.0, 1.0, 2.0] {
            let want = sample_both(&skel, &after, &mut ctx, &clip, &binding, t, &mut out);
            for j in [3, 5] {
                let err = crate::layers::twist::rotation_distance(
                    out[j].rotation,
                    want.local[j].rotation,
                );
                assert!(err < 4e-6, "t {t} joint {j}: {err} rad");
            }
        }
    }

    #[test]
    fn the_compact_form_stays_within_its_tolerance_of_the_exact_one_playing_and_seeking() {
        let (skel, clip) = mixed();
        let (compact, _) = Animation::bind(&clip, &skel, None);
        let (exact, _) = Animation::bind_exact(&clip, &skel, None);
        let error = compact.compact_error().expect("the mixed clip packs");
        assert!(error <= crate::compile::COMPACT_TOLERANCE, "{error}");
        assert!(compact.memory_bytes() < exact.memory_bytes());
        let mut contexts = [&compact, &exact].map(SamplingContext::for_animation);
        let n = skel.len();
        let (mut local, mut model) = (
            [vec![Transform::IDENTITY; n], vec![Transform::IDENTITY; n]],
            [vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]],
        );
        // Forward play, then jumps back and ahead, past both ends.
        let mut times: Vec<f32> = (0..=400).map(|i| i as f32 * 0.0057 - 0.1).collect();
        times.extend([1.9, 0.0, 1.31, 0.41, 0.39, 2.5, -1.0, 1.0]);
        let mut worst = 0.0f32;
        for t in times {
            for (((anim, ctx), local), model) in [&compact, &exact]
                .into_iter()
                .zip(&mut contexts)
                .zip(&mut local)
                .zip(&mut model)
            {
                SamplingJob {
                    animation: anim,
                    context: ctx,
                    time: t,
                    output: local,
                }
                .run()
                .unwrap();
                super::super::LocalToModelJob::all(&skel, local, model)
                    .run()
                    .unwrap();
            }
            worst = worst.max(crate::core::metric::max_vertex_error(&model[0], &model[1]));
        }
        assert!(worst <= 1e-4, "{} cm", worst * 100.0);
    }

    #[test]
    fn a_rotation_no_component_of_which_keeps_its_sign_packs_all_four() {
        let skel = Skeleton::new(
            vec![JointDef {
                name: "j0".into(),
                parent: None,
                rest: Transform::IDENTITY,
                deforms: true,
            }],
            Mat4::IDENTITY,
        )
        .unwrap();
        // A turn about x by 0, 2.5 and 5 rad: w goes from 1 through 0 to −0.8, x starts at 0, y and z stay 0.
        let keys = [0.0, 2.5, 5.0].map(Quat::from_rotation_x).to_vec();
        let clip = Clip::new(
            "spin",
            vec![Track {
                target: target("j0"),
                translation: None,
                rotation: Some(
                    Keys::new(vec![0.0, 1.0, 2.0], keys, Interpolation::Linear).unwrap(),
                ),
                scale: None,
            }],
        );
        let (anim, binding) = Animation::bind(&clip, &skel, None);
        let error = anim.compact_error().expect("it packs");
        assert!(error <= crate::compile::COMPACT_TOLERANCE, "{error}");
        let mut ctx = SamplingContext::for_animation(&anim);
        let mut out = vec![Transform::IDENTITY; 1];
        for i in 0..=200 {
            let t = i as f32 * 0.01;
            let want = sample_both(&skel, &anim, &mut ctx, &clip, &binding, t, &mut out);
            let err =
                crate::layers::twist::rotation_distance(out[0].rotation, want.local[0].rotation);
            // 0.008 cm at the virtual vertices, 3 cm out: under 0.003 rad.
            assert!(err < 3e-3, "t {t}: {err} rad");
        }
    }

    #[test]
    fn validate_refuses_mismatched_buffers() {
        let (skel, clip) = mixed();
        let (anim, _) = Animation::bind(&clip, &skel, None);
        let n = skel.len();
        let validate = |mut ctx: SamplingContext, joints: usize, time: f32| {
            let mut output = vec![Transform::IDENTITY; joints];
            SamplingJob {
                animation: &anim,
                context: &mut ctx,
                time,
                output: &mut output,
            }
            .validate()
        };
        assert_eq!(
            validate(SamplingContext::new(1), n, 0.0),
            Err(JobError::Length {
                what: "sampling context (key-time cursors)",
                got: 1,
                expected: 2,
            })
        );
        // Room for the cursors but not for the packed keys.
        assert!(matches!(
            validate(SamplingContext::new(2), n, 0.0),
            Err(JobError::Length {
                what: "sampling context (packed groups)",
                got: 0,
                ..
            })
        ));
        let fitting = || SamplingContext::for_animation(&anim);
        assert!(matches!(
            validate(fitting(), 2, 0.0),
            Err(JobError::Length { what: "output", .. })
        ));
        assert_eq!(
            validate(fitting(), n, f32::NAN),
            Err(JobError::NotFinite("time"))
        );
        assert_eq!(validate(fitting(), n, 0.5), Ok(()));
    }
}
