//! A blend's face: the morph weights and expression weights of the clips a blend mixes, as a weighted mean (a
//! blend-space source's nodes, a state machine's states and nodes and its frozen pose).

use super::ClipSource;

/// A blend's face: morph weights (per mesh) and expression weights summed over the clips that play, each times
/// its weight, and the weights' total; [`Face::normalize`] makes them the weighted mean, as the blend-space source
/// blends them.
#[derive(Clone, Debug, Default)]
pub(super) struct Face {
    /// Per mesh, the summed morph weights.
    pub(super) morph: Vec<Vec<f32>>,
    /// Per expression, the summed weights.
    pub(super) expressions: Vec<f32>,
    /// The summed weights of the clips (and poses) added.
    pub(super) total: f32,
}

impl Face {
    /// A face of the shape of `defaults` and `expressions` expressions, all zero.
    pub(super) fn zero(defaults: &[Vec<f32>], expressions: usize) -> Face {
        Face {
            morph: defaults.iter().map(|m| vec![0.0; m.len()]).collect(),
            expressions: vec![0.0; expressions],
            total: 0.0,
        }
    }

    /// Back to all zero.
    pub(super) fn clear(&mut self) {
        self.morph.iter_mut().for_each(|m| m.fill(0.0));
        self.expressions.fill(0.0);
        self.total = 0.0;
    }

    /// Adds `w` × the morph weights in `morph` (the total is the caller's).
    pub(super) fn add_morph(&mut self, w: f32, morph: &[Vec<f32>]) {
        for (sum, m) in self.morph.iter_mut().zip(morph) {
            for (a, b) in sum.iter_mut().zip(m) {
                *a += w * b;
            }
        }
    }

    /// Adds `w` × the morph weights in `morph` and the expressions in `expressions`.
    pub(super) fn add(&mut self, w: f32, morph: &[Vec<f32>], expressions: &[f32]) {
        self.add_morph(w, morph);
        for (a, b) in self.expressions.iter_mut().zip(expressions) {
            *a += w * b;
        }
        self.total += w;
    }

    /// Adds `w` × clip `c`'s face at time `t` (the meshes' defaults where it has no morph track).
    pub(super) fn add_clip(
        &mut self,
        w: f32,
        c: &ClipSource,
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
    pub(super) fn normalize(&mut self) {
        if self.total > 0.0 {
            let k = 1.0 / self.total;
            self.morph.iter_mut().flatten().for_each(|a| *a *= k);
            self.expressions.iter_mut().for_each(|a| *a *= k);
            self.total = 1.0;
        }
    }

    /// Writes the face into `morph` (per mesh) and `expressions`.
    pub(super) fn write_to(&self, morph: &mut [Vec<f32>], expressions: &mut [f32]) {
        for (m, f) in morph.iter_mut().zip(&self.morph) {
            m.copy_from_slice(f);
        }
        expressions.copy_from_slice(&self.expressions);
    }
}
