//! A blend's face: the morph weights and expression weights of the clips a blend mixes, as a weighted mean (a
//! blend-space source's nodes, a state machine's states and nodes and its frozen pose), and the VRM Animation
//! look-at tracks of those clips, mixed the same way.

use glam::{Quat, Vec4};

use super::compiled::CompiledClip;

/// A blend's face: morph weights (per mesh) and expression weights summed over the clips that play, each times
/// its weight, and the weights' total; [`Face::normalize`] makes them the weighted mean, as the blend-space source
/// blends them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Face {
    /// Per mesh, the summed morph weights.
    pub(crate) morph: Vec<Vec<f32>>,
    /// Per expression, the summed weights.
    pub(crate) expressions: Vec<f32>,
    /// The summed weights of the clips (and poses) added.
    pub(crate) total: f32,
}

impl Face {
    /// A face of the shape of `defaults` and `expressions` expressions, all zero.
    pub(crate) fn zero(defaults: &[Vec<f32>], expressions: usize) -> Face {
        Face {
            morph: defaults.iter().map(|m| vec![0.0; m.len()]).collect(),
            expressions: vec![0.0; expressions],
            total: 0.0,
        }
    }

    /// Back to all zero.
    pub(crate) fn clear(&mut self) {
        self.morph.iter_mut().for_each(|m| m.fill(0.0));
        self.expressions.fill(0.0);
        self.total = 0.0;
    }

    /// Adds `w` × the morph weights in `morph` (the total is the caller's).
    pub(crate) fn add_morph(&mut self, w: f32, morph: &[Vec<f32>]) {
        for (sum, m) in self.morph.iter_mut().zip(morph) {
            for (a, b) in sum.iter_mut().zip(m) {
                *a += w * b;
            }
        }
    }

    /// Adds `w` × the morph weights in `morph` and the expressions in `expressions`.
    pub(crate) fn add(&mut self, w: f32, morph: &[Vec<f32>], expressions: &[f32]) {
        self.add_morph(w, morph);
        for (a, b) in self.expressions.iter_mut().zip(expressions) {
            *a += w * b;
        }
        self.total += w;
    }

    /// Adds `w` × clip `c`'s face at time `t` (the meshes' defaults where it has no morph track).
    pub(crate) fn add_clip(
        &mut self,
        w: f32,
        c: &CompiledClip,
        t: f32,
        defaults: &[Vec<f32>],
        scratch: &mut [Vec<f32>],
    ) {
        for (s, d) in scratch.iter_mut().zip(defaults) {
            s.copy_from_slice(d);
        }
        c.morph.sample(t, scratch);
        c.morph.add_expressions(t, w, &mut self.expressions);
        self.add_morph(w, scratch);
        self.total += w;
    }

    /// The sums divided by the total: the weighted mean.
    pub(crate) fn normalize(&mut self) {
        if self.total > 0.0 {
            let k = 1.0 / self.total;
            self.morph.iter_mut().flatten().for_each(|a| *a *= k);
            self.expressions.iter_mut().for_each(|a| *a *= k);
            self.total = 1.0;
        }
    }

    /// Writes the face into `morph` (per mesh) and `expressions`.
    pub(crate) fn write_to(&self, morph: &mut [Vec<f32>], expressions: &mut [f32]) {
        for (m, f) in morph.iter_mut().zip(&self.morph) {
            m.copy_from_slice(f);
        }
        expressions.copy_from_slice(&self.expressions);
    }
}

/// The look-at rotation of the clips a blend mixes that have a VRM Animation look-at track: their weighted mean
/// (normalised lerp, each on the first's side). Clips without a track do not count: none having one leaves the
/// look as the layers and expressions set it, as a single clip without a track does.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LookMix {
    sum: Vec4,
    total: f32,
}

impl LookMix {
    /// Nothing added.
    pub(crate) fn clear(&mut self) {
        *self = LookMix::default();
    }

    /// Adds `w` × clip `c`'s look-at rotation at time `t`, when it has a look-at track.
    pub(crate) fn add_clip(&mut self, w: f32, c: &CompiledClip, t: f32) {
        let Some(track) = &c.morph.look_at else {
            return;
        };
        let q = Vec4::from(track.sample(t));
        let aligned = if self.total > 0.0 && q.dot(self.sum) < 0.0 {
            -q
        } else {
            q
        };
        self.sum += aligned * w;
        self.total += w;
    }

    /// The mixed rotation, if any clip added one.
    pub(crate) fn rotation(&self) -> Option<Quat> {
        (self.total > 0.0 && self.sum.length_squared() > 0.0)
            .then(|| Quat::from_vec4(self.sum.normalize()))
    }
}
