//! A tree of blends over a blend space's nodes, for Unity's nested and Direct blend trees: each leaf is a node of
//! the space; an inner blend weighs its children by a 1D or 2D mode at the point its two parameters give, each
//! child at its position; a Direct blend weighs each child by its own parameter. A node's weight is the product of
//! the weights down the tree to it.
//!
//! The weights of a Direct blend are its parameters clamped to [0, 1], divided by their sum where it normalizes
//! them (Unity's Normalized Blend Values). Below a total of 1 the rest is left to the caller (the machine gives it
//! to the rest pose, as Unity gives it to the default values).

use glam::DVec2;
use serde::{Deserialize, Serialize};

use super::weights::{BlendMode, compute_weights};

/// The deepest tree read (Unity's trees nest a few levels).
pub const MAX_TREE_DEPTH: usize = 16;

/// A tree of blends whose leaves are the nodes of a blend space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum WeightTree {
    /// A node of the space, by index.
    Node {
        /// Its index in the space's nodes.
        node: usize,
    },
    /// Children weighed by `mode` at the point `parameters` give (x, y; a 1D blend reads x).
    Blend {
        /// How the children are weighed.
        mode: BlendMode,
        /// The float parameters giving the point.
        parameters: [String; 2],
        /// The children, each at its position.
        children: Vec<PlacedTree>,
    },
    /// Each child weighed by its own parameter (Unity's Direct blend tree).
    Direct {
        /// The children, each with its parameter.
        children: Vec<WeighedTree>,
        /// Whether the weights are divided by their sum.
        #[serde(default)]
        normalized: bool,
    },
}

/// A child of a [`WeightTree::Blend`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacedTree {
    /// Where it weighs 1 (x, y; a 1D blend reads x).
    pub position: [f64; 2],
    /// What it plays.
    pub tree: WeightTree,
}

/// A child of a [`WeightTree::Direct`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeighedTree {
    /// The float parameter giving its weight.
    pub parameter: String,
    /// What it plays.
    pub tree: WeightTree,
}

/// Buffers for [`WeightTree::weights_into`], one pair per depth; reused, they stop allocating once grown.
#[derive(Clone, Debug, Default)]
pub struct TreeScratch {
    levels: Vec<(Vec<DVec2>, Vec<f64>)>,
}

impl WeightTree {
    /// Every parameter the tree reads, in order, each once.
    pub fn parameters(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        self.visit(0, &mut |t, _| {
            let names: Vec<&str> = match t {
                WeightTree::Node { .. } => Vec::new(),
                WeightTree::Blend { parameters, .. } => {
                    parameters.iter().map(String::as_str).collect()
                }
                WeightTree::Direct { children, .. } => {
                    children.iter().map(|c| c.parameter.as_str()).collect()
                }
            };
            for n in names {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        });
        out
    }

    /// Renames a parameter wherever the tree reads it.
    pub fn rename_parameter(&mut self, old: &str, new: &str) {
        match self {
            WeightTree::Node { .. } => {}
            WeightTree::Blend {
                parameters,
                children,
                ..
            } => {
                for p in parameters.iter_mut().filter(|p| *p == old) {
                    *p = new.to_string();
                }
                for c in children {
                    c.tree.rename_parameter(old, new);
                }
            }
            WeightTree::Direct { children, .. } => {
                for c in children {
                    if c.parameter == old {
                        c.parameter = new.to_string();
                    }
                    c.tree.rename_parameter(old, new);
                }
            }
        }
    }

    /// Calls `f` on the tree and every subtree, with its depth (the root at 0).
    pub fn visit<'a>(&'a self, depth: usize, f: &mut impl FnMut(&'a WeightTree, usize)) {
        f(self, depth);
        match self {
            WeightTree::Node { .. } => {}
            WeightTree::Blend { children, .. } => {
                children.iter().for_each(|c| c.tree.visit(depth + 1, f))
            }
            WeightTree::Direct { children, .. } => {
                children.iter().for_each(|c| c.tree.visit(depth + 1, f))
            }
        }
    }

    /// What is wrong with the tree over a space of `nodes` nodes, if anything: a leaf past the nodes, a blend
    /// without children, a position that is not finite, a tree deeper than [`MAX_TREE_DEPTH`] or with more
    /// than `max_items` subtrees.
    pub fn problem(&self, nodes: usize, max_items: usize) -> Option<String> {
        let mut problem = None;
        let mut items = 0usize;
        self.visit(0, &mut |t, depth| {
            items += 1;
            if problem.is_some() {
                return;
            }
            if depth > MAX_TREE_DEPTH {
                problem = Some(format!("is nested deeper than {MAX_TREE_DEPTH}"));
            } else if items > max_items {
                problem = Some(format!("has more than {max_items} parts"));
            } else {
                problem = match t {
                    WeightTree::Node { node } if *node >= nodes => {
                        Some(format!("names node {node}, past the blend space's {nodes}"))
                    }
                    WeightTree::Blend { children, .. } if children.is_empty() => {
                        Some("has a blend with no children".into())
                    }
                    WeightTree::Blend { children, .. }
                        if children
                            .iter()
                            .any(|c| !c.position.iter().all(|v| v.is_finite())) =>
                    {
                        Some("has a child whose position is not a finite number".into())
                    }
                    _ => None,
                };
            }
        });
        problem
    }

    /// Each node's weight (`out`, sized to `nodes`) with the parameters' values from `value`; returns their sum
    /// (1 unless a Direct blend's weights fall short of it).
    pub fn weights_into(
        &self,
        value: &impl Fn(&str) -> f64,
        nodes: usize,
        out: &mut Vec<f64>,
        scratch: &mut TreeScratch,
    ) -> f64 {
        out.clear();
        out.resize(nodes, 0.0);
        self.add(1.0, 0, value, out, scratch);
        out.iter().sum()
    }

    fn add(
        &self,
        share: f64,
        depth: usize,
        value: &impl Fn(&str) -> f64,
        out: &mut [f64],
        scratch: &mut TreeScratch,
    ) {
        if share <= 0.0 || depth > MAX_TREE_DEPTH {
            return;
        }
        match self {
            WeightTree::Node { node } => {
                if let Some(w) = out.get_mut(*node) {
                    *w += share;
                }
            }
            WeightTree::Blend {
                mode,
                parameters,
                children,
            } => {
                if scratch.levels.len() <= depth {
                    scratch.levels.resize_with(depth + 1, Default::default);
                }
                let (positions, weights) = &mut scratch.levels[depth];
                positions.clear();
                positions.extend(children.iter().map(|c| DVec2::from(c.position)));
                let point = DVec2::new(value(&parameters[0]), value(&parameters[1]));
                compute_weights(*mode, positions, point, weights);
                for (k, child) in children.iter().enumerate() {
                    let w = scratch.levels[depth].1[k];
                    child.tree.add(share * w, depth + 1, value, out, scratch);
                }
            }
            WeightTree::Direct {
                children,
                normalized,
            } => {
                let weight = |c: &WeighedTree| {
                    let v = value(&c.parameter);
                    if v.is_finite() {
                        v.clamp(0.0, 1.0)
                    } else {
                        0.0
                    }
                };
                let sum: f64 = children.iter().map(weight).sum();
                let scale = if *normalized && sum > 0.0 {
                    1.0 / sum
                } else {
                    1.0
                };
                for c in children {
                    c.tree
                        .add(share * weight(c) * scale, depth + 1, value, out, scratch);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(node: usize) -> WeightTree {
        WeightTree::Node { node }
    }

    #[test]
    fn a_nested_blend_multiplies_its_weights_down_the_tree() {
        // 1D on x: node 0 at 0, and at 1 a 1D on y of node 1 (at 0) and node 2 (at 1).
        let inner = WeightTree::Blend {
            mode: BlendMode::OneD,
            parameters: ["y".into(), "y".into()],
            children: vec![
                PlacedTree {
                    position: [0.0, 0.0],
                    tree: node(1),
                },
                PlacedTree {
                    position: [1.0, 0.0],
                    tree: node(2),
                },
            ],
        };
        let tree = WeightTree::Blend {
            mode: BlendMode::OneD,
            parameters: ["x".into(), "x".into()],
            children: vec![
                PlacedTree {
                    position: [0.0, 0.0],
                    tree: node(0),
                },
                PlacedTree {
                    position: [1.0, 0.0],
                    tree: inner,
                },
            ],
        };
        assert_eq!(tree.parameters(), ["x", "y"]);
        let value = |p: &str| if p == "x" { 0.25 } else { 0.5 };
        let (mut out, mut scratch) = (Vec::new(), TreeScratch::default());
        let sum = tree.weights_into(&value, 3, &mut out, &mut scratch);
        assert!((sum - 1.0).abs() < 1e-12);
        for (got, want) in out.iter().zip([0.75, 0.125, 0.125]) {
            assert!((got - want).abs() < 1e-12, "{out:?}");
        }
        assert!(tree.problem(3, 100).is_none());
        assert!(tree.problem(2, 100).unwrap().contains("node 2"));
    }

    #[test]
    fn a_direct_blend_weighs_each_child_by_its_parameter() {
        let tree = |normalized| WeightTree::Direct {
            children: vec![
                WeighedTree {
                    parameter: "a".into(),
                    tree: node(0),
                },
                WeighedTree {
                    parameter: "b".into(),
                    tree: node(1),
                },
            ],
            normalized,
        };
        let value = |p: &str| if p == "a" { 0.25 } else { 3.0 };
        let (mut out, mut scratch) = (Vec::new(), TreeScratch::default());
        // b is clamped to 1; unnormalized the weights are as they are.
        let sum = tree(false).weights_into(&value, 2, &mut out, &mut scratch);
        assert_eq!((sum, out.clone()), (1.25, vec![0.25, 1.0]));
        let sum = tree(true).weights_into(&value, 2, &mut out, &mut scratch);
        assert!(
            (sum - 1.0).abs() < 1e-12 && (out[0] - 0.2).abs() < 1e-12,
            "{out:?}"
        );
        let short = |_: &str| 0.25;
        let sum = tree(false).weights_into(&short, 2, &mut out, &mut scratch);
        assert_eq!(sum, 0.5);
    }
}
