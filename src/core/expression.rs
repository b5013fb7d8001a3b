//! Expressions: named faces made of morph-target weights. A character's expressions come from its file (VRM);
//! a model without them gets one expression per morph-target name (what Blender lists as shape keys and
//! Unity as blend shapes), driving every target of that name at weight 1.
//!
//! Weights resolve to morph weights as three-vrm 3.5.5's `VRMExpressionManager.update` does:
//! - a binary expression shows 1 above 0.5, else 0;
//! - each group (blink, look-at, mouth) gets the multiplier `max(0, 1 − Σ override amounts)`, where an
//!   expression that blocks the group counts 1 while it shows above 0 and one that blends counts what it shows;
//! - each expression adds `shown × multiplier × bind weight` to its targets (a binary one adds nothing when that
//!   product is below 1);
//! - with a VRM's expressions, every target an expression binds is first set to 0 (three-vrm clears them each
//!   frame, so a clip's own keys on those targets do not show).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::character::Character;

/// VRM 1.0's preset names.
pub const VRM_PRESETS: [&str; 18] = [
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "blink",
    "happy",
    "angry",
    "sad",
    "relaxed",
    "lookUp",
    "surprised",
    "lookDown",
    "lookLeft",
    "lookRight",
    "blinkLeft",
    "blinkRight",
    "neutral",
];

/// One morph target an expression drives.
#[derive(Clone, Debug, PartialEq)]
pub struct MorphBind {
    /// Index of the mesh in the character.
    pub mesh: usize,
    /// Index of the target in the mesh's morph set.
    pub target: usize,
    /// The target's weight at expression weight 1.
    pub weight: f32,
}

/// How an expression treats the blink, look-at or mouth expressions while it shows (VRM 1.0
/// `overrideBlink` / `overrideLookAt` / `overrideMouth`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpressionOverride {
    /// Leaves them alone.
    #[default]
    None,
    /// Turns them off while its weight is above 0.
    Block,
    /// Scales them by 1 − its weight.
    Blend,
}

/// Which group of presets an expression belongs to, for the overrides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpressionGroup {
    /// blink, blinkLeft, blinkRight.
    Blink,
    /// lookUp, lookDown, lookLeft, lookRight.
    LookAt,
    /// aa, ih, ou, ee, oh.
    Mouth,
    /// Every other expression.
    Other,
}

impl ExpressionGroup {
    /// The group of a VRM 1.0 preset name.
    pub fn of(name: &str) -> Self {
        match name {
            "blink" | "blinkLeft" | "blinkRight" => ExpressionGroup::Blink,
            "lookUp" | "lookDown" | "lookLeft" | "lookRight" => ExpressionGroup::LookAt,
            "aa" | "ih" | "ou" | "ee" | "oh" => ExpressionGroup::Mouth,
            _ => ExpressionGroup::Other,
        }
    }
}

/// A named expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expression {
    /// Its name: a VRM preset name (`happy`, `blink`, `aa`…) or a custom one.
    pub name: String,
    /// The group its name puts it in.
    pub group: ExpressionGroup,
    /// The targets it drives.
    pub binds: Vec<MorphBind>,
    /// Snaps to 0 or 1 at 0.5.
    pub is_binary: bool,
    /// What it does to the blink expressions.
    pub override_blink: ExpressionOverride,
    /// What it does to the look-at expressions.
    pub override_look_at: ExpressionOverride,
    /// What it does to the mouth expressions.
    pub override_mouth: ExpressionOverride,
}

impl Expression {
    /// An expression with no overrides, not binary.
    pub fn new(name: impl Into<String>, binds: Vec<MorphBind>) -> Self {
        let name = name.into();
        Expression {
            group: ExpressionGroup::of(&name),
            name,
            binds,
            is_binary: false,
            override_blink: ExpressionOverride::None,
            override_look_at: ExpressionOverride::None,
            override_mouth: ExpressionOverride::None,
        }
    }

    /// The weight it shows at `weight`: snapped when binary.
    fn shown(&self, weight: f32) -> f32 {
        if self.is_binary {
            if weight > 0.5 { 1.0 } else { 0.0 }
        } else {
            weight
        }
    }

    /// What it does to expressions of `group`.
    fn override_of(&self, group: ExpressionGroup) -> ExpressionOverride {
        match group {
            ExpressionGroup::Blink => self.override_blink,
            ExpressionGroup::LookAt => self.override_look_at,
            ExpressionGroup::Mouth => self.override_mouth,
            ExpressionGroup::Other => ExpressionOverride::None,
        }
    }
}

/// One expression per distinct morph-target name of `character`, each driving every target of that name at
/// weight 1, in the order the names first appear.
pub fn from_target_names(character: &Character) -> Vec<Expression> {
    let mut out: Vec<Expression> = Vec::new();
    // Each name's expression, found in constant time (a linear search made 100 000 targets take 40 s).
    let mut by_name: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (mesh, m) in character.meshes.iter().enumerate() {
        let Some(set) = &m.morph else { continue };
        for (target, name) in set.target_names.iter().enumerate() {
            let bind = MorphBind {
                mesh,
                target,
                weight: 1.0,
            };
            match by_name.get(name.as_str()) {
                Some(&e) => out[e].binds.push(bind),
                None => {
                    by_name.insert(name, out.len());
                    out.push(Expression::new(name.clone(), vec![bind]));
                }
            }
        }
    }
    out
}

/// The weight of each of `expressions` that `by_name` gives (0 for the others).
pub fn weights_of(expressions: &[Expression], by_name: &BTreeMap<String, f32>) -> Vec<f32> {
    expressions
        .iter()
        .map(|e| by_name.get(&e.name).copied().unwrap_or(0.0))
        .collect()
}

/// Adds `weights` (one per expression, in order; missing ones are 0) to the morph weights, one list per mesh,
/// as the module documentation describes; `clear_binds` first sets every bound target to 0 (a VRM's
/// expressions).
pub fn apply(
    expressions: &[Expression],
    weights: &[f32],
    morph: &mut [Vec<f32>],
    clear_binds: bool,
) {
    if clear_binds {
        for b in expressions.iter().flat_map(|e| &e.binds) {
            if let Some(t) = morph.get_mut(b.mesh).and_then(|m| m.get_mut(b.target)) {
                *t = 0.0;
            }
        }
    }
    if weights.iter().all(|&w| w == 0.0) {
        return;
    }
    let shown = |i: usize| {
        let w = weights
            .get(i)
            .copied()
            .filter(|w| w.is_finite())
            .unwrap_or(0.0);
        expressions[i].shown(w)
    };
    // three-vrm's `_calculateWeightMultipliers`: 1 less every override amount, at least 0.
    let multiplier = |group: ExpressionGroup| {
        let amount: f32 = (0..expressions.len())
            .map(|i| match expressions[i].override_of(group) {
                ExpressionOverride::Block if shown(i) > 0.0 => 1.0,
                ExpressionOverride::Blend => shown(i),
                _ => 0.0,
            })
            .sum();
        (1.0 - amount).max(0.0)
    };
    let groups = [
        ExpressionGroup::Blink,
        ExpressionGroup::LookAt,
        ExpressionGroup::Mouth,
    ]
    .map(|g| (g, multiplier(g)));
    for (i, e) in expressions.iter().enumerate() {
        let mut w = shown(i)
            * groups
                .iter()
                .find(|(g, _)| *g == e.group)
                .map_or(1.0, |(_, m)| *m);
        if e.is_binary && w < 1.0 {
            w = 0.0;
        }
        if w == 0.0 {
            continue;
        }
        for b in &e.binds {
            if let Some(t) = morph.get_mut(b.mesh).and_then(|m| m.get_mut(b.target)) {
                *t += w * b.weight;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bind(target: usize) -> Vec<MorphBind> {
        vec![MorphBind {
            mesh: 0,
            target,
            weight: 1.0,
        }]
    }

    fn run(expressions: &[Expression], weights: &[(&str, f32)]) -> Vec<f32> {
        let mut morph = vec![vec![0.0; 3]];
        let by_name = weights.iter().map(|(n, w)| (n.to_string(), *w)).collect();
        apply(
            expressions,
            &weights_of(expressions, &by_name),
            &mut morph,
            false,
        );
        morph.remove(0)
    }

    #[test]
    fn a_binary_expression_snaps_at_one_half() {
        let mut e = Expression::new("happy", bind(0));
        e.is_binary = true;
        assert_eq!(run(&[e.clone()], &[("happy", 0.5)])[0], 0.0);
        assert_eq!(run(&[e], &[("happy", 0.51)])[0], 1.0);
    }

    /// Two blends add their amounts (three-vrm: 1 − Σ, clamped at 0), not multiply their complements; a binary
    /// expression scaled below 1 by an override shows nothing.
    #[test]
    fn blend_overrides_add_up_and_scaled_binaries_vanish() {
        let mut happy = Expression::new("happy", bind(0));
        happy.override_mouth = ExpressionOverride::Blend;
        let mut sad = Expression::new("sad", bind(1));
        sad.override_mouth = ExpressionOverride::Blend;
        let aa = Expression::new("aa", bind(2));
        let all = [happy.clone(), sad.clone(), aa];
        let out = run(&all, &[("happy", 0.5), ("sad", 0.25), ("aa", 1.0)]);
        assert!((out[2] - 0.25).abs() < 1e-6, "{out:?}");
        let out = run(&all, &[("happy", 0.75), ("sad", 0.75), ("aa", 1.0)]);
        assert_eq!(out[2], 0.0);
        let mut oh = Expression::new("oh", bind(2));
        oh.is_binary = true;
        let out = run(&[happy, oh], &[("happy", 0.1), ("oh", 1.0)]);
        assert_eq!(out[2], 0.0);
    }

    /// A VRM's expressions clear the targets they bind before adding (three-vrm's `clearAppliedWeight`), so a
    /// clip's key on a bound target does not show; unbound targets keep theirs.
    #[test]
    fn vrm_expressions_clear_their_targets_first() {
        let blink = Expression::new("blink", bind(0));
        let mut morph = vec![vec![0.7, 0.7, 0.0]];
        apply(&[blink], &[], &mut morph, true);
        assert_eq!(morph[0], [0.0, 0.7, 0.0]);
    }

    /// VRM 1.0 (expressions.md, "Override"): block turns the overridden expressions off while the overriding one
    /// is above 0; blend scales them by 1 − its weight.
    #[test]
    fn overrides_block_or_blend_blink_look_at_and_mouth() {
        let mut happy = Expression::new("happy", bind(0));
        happy.override_blink = ExpressionOverride::Block;
        happy.override_mouth = ExpressionOverride::Blend;
        let blink = Expression::new("blink", bind(1));
        let aa = Expression::new("aa", bind(2));
        let all = [happy, blink, aa];
        assert_eq!(
            run(&all, &[("happy", 0.25), ("blink", 1.0), ("aa", 0.8)]),
            [0.25, 0.0, 0.6]
        );
        assert_eq!(
            run(&all, &[("happy", 0.0), ("blink", 1.0), ("aa", 0.8)]),
            [0.0, 1.0, 0.8]
        );
    }
}
