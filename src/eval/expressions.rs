//! The expressions stage: each of the character's expressions weighs what the source's clips' expression tracks
//! and look-at give it plus the layer parameters' slider, at most 1, and the weights are applied to the meshes'
//! morph weights (a VRM's expressions clear the targets they bind first, as three-vrm does).

use crate::core::Character;
use crate::core::expression::{Expression, apply, weights_of};
use crate::layers::LayerParams;

/// A character's expressions and their weights.
#[derive(Clone, Debug)]
pub(crate) struct Expressions {
    expressions: Vec<Expression>,
    vrm: bool,
    /// Per expression: the layer parameters' weight, the source's, and the sum the last evaluation applied.
    from_layers: Vec<f32>,
    pub(crate) from_source: Vec<f32>,
    applied: Vec<f32>,
}

impl Expressions {
    /// `character`'s expressions, weighted by `layers`' sliders.
    pub(crate) fn bind(character: &Character, layers: &LayerParams) -> Self {
        let n = character.expressions.len();
        Expressions {
            expressions: character.expressions.clone(),
            vrm: character.vrm_expressions,
            from_layers: weights_of(&character.expressions, &layers.expressions),
            from_source: vec![0.0; n],
            applied: vec![0.0; n],
        }
    }

    /// New layer parameters' sliders.
    pub(crate) fn set_layers(&mut self, character: &Character, layers: &LayerParams) {
        self.from_layers = weights_of(&character.expressions, &layers.expressions);
    }

    /// Sums the source's and the layers' weights (at most 1) and applies them to `morph`.
    pub(crate) fn apply_to(&mut self, morph: &mut [Vec<f32>]) {
        for ((w, s), l) in self
            .applied
            .iter_mut()
            .zip(&self.from_source)
            .zip(&self.from_layers)
        {
            *w = (s + l).min(1.0);
        }
        apply(&self.expressions, &self.applied, morph, self.vrm);
    }

    /// The weights the last evaluation applied.
    pub(crate) fn applied(&self) -> &[f32] {
        &self.applied
    }
}
