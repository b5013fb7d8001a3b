//! The node tree and the skeleton taken from it: the joints of the skins (or, without a skin, the nodes a VRM
//! table or an animation names), in an order where parents come first, with the transform above them.

use std::collections::HashMap;

use ::gltf as gl;
use glam::{Mat4, Quat, Vec3};

use crate::core::Transform;
use crate::core::skeleton::{JointDef, Skeleton};

/// The skeleton of a document: its joints in parent-first order and the node each joint is.
pub(super) struct SkeletonNodes {
    /// The skeleton (its root transform includes `facing_fix`).
    pub(super) skeleton: Skeleton,
    /// Joint index of each skeleton node.
    pub(super) node_to_joint: HashMap<usize, usize>,
}

/// Builds the skeleton: skin joints, else `extra` nodes (a VRM table's) and animated nodes with every other
/// mesh-less node of the trees they are in (a character of rigid parts keeps its whole rig, not only what one clip
/// moves), else every node without a mesh. `required` nodes (the springs') are joints in every case.
pub(super) fn skeleton(
    document: &gl::Document,
    nodes: &NodeGraph,
    extra: &[usize],
    required: &[usize],
    facing_fix: Mat4,
) -> Result<SkeletonNodes, String> {
    let mut wanted: Vec<usize> = document
        .skins()
        .flat_map(|s| s.joints().map(|j| j.index()))
        .collect();
    let mut deforming = vec![false; nodes.len()];
    for &j in &wanted {
        deforming[j] = true;
    }
    let skinless = wanted.is_empty();
    if skinless {
        wanted.extend_from_slice(extra);
        for a in document.animations() {
            for c in a.channels() {
                wanted.push(c.target().node().index());
            }
        }
        // The trees holding those nodes: every mesh-less node under their top-most ancestors. Each node's root
        // is found once (a walk stops at a node already resolved), so a deep hierarchy costs linear time.
        let mut root_of: Vec<Option<usize>> = vec![None; nodes.len()];
        let mut path = Vec::new();
        let mut roots: Vec<usize> = Vec::new();
        for &start in &wanted {
            let mut r = start;
            while root_of[r].is_none() {
                path.push(r);
                match nodes.parent[r] {
                    Some(p) => r = p,
                    None => break,
                }
            }
            let root = root_of[r].unwrap_or(r);
            for n in path.drain(..) {
                root_of[n] = Some(root);
            }
            roots.push(root);
        }
        roots.sort_unstable();
        roots.dedup();
        let has_mesh: Vec<bool> = document.nodes().map(|n| n.mesh().is_some()).collect();
        let mut stack = roots;
        while let Some(n) = stack.pop() {
            if !has_mesh[n] {
                wanted.push(n);
            }
            stack.extend(nodes.children[n].iter().copied());
        }
        if wanted.is_empty() {
            wanted.extend(
                document
                    .nodes()
                    .filter(|n| n.mesh().is_none())
                    .map(|n| n.index()),
            );
        }
    }
    wanted.extend_from_slice(required);
    wanted.sort_unstable();
    wanted.dedup();
    let (order, above) = nodes.skeleton_nodes(&wanted);
    let prefix = order
        .first()
        .and_then(|&root| nodes.parent[root])
        .map(|p| nodes.path_of(p))
        .unwrap_or_default();
    let node_to_joint: HashMap<usize, usize> =
        order.iter().enumerate().map(|(j, &n)| (n, j)).collect();
    let joints: Vec<JointDef> = order
        .iter()
        .map(|&n| JointDef {
            name: nodes.names[n].clone(),
            parent: nodes.parent[n].and_then(|p| node_to_joint.get(&p).copied()),
            rest: nodes.local[n],
            deforms: skinless || deforming[n],
        })
        .collect();
    let skeleton = Skeleton::new(joints, facing_fix * above)
        .and_then(|s| s.with_path_prefix(&prefix))
        .map_err(|e| e.to_string())?;
    Ok(SkeletonNodes {
        skeleton,
        node_to_joint,
    })
}

/// The node tree of a document, with cycles and shared children refused.
pub(super) struct NodeGraph {
    pub(super) parent: Vec<Option<usize>>,
    pub(super) children: Vec<Vec<usize>>,
    pub(super) local: Vec<Transform>,
    pub(super) names: Vec<String>,
    pub(super) in_scene: Vec<usize>,
}

impl NodeGraph {
    pub(super) fn new(document: &gl::Document) -> Result<Self, String> {
        let n = document.nodes().len();
        let mut parent = vec![None; n];
        let mut children = vec![Vec::new(); n];
        let mut local = Vec::with_capacity(n);
        let mut names = Vec::with_capacity(n);
        for node in document.nodes() {
            for c in node.children() {
                if parent[c.index()].replace(node.index()).is_some() {
                    return Err(format!("node {} has more than one parent", c.index()));
                }
                children[node.index()].push(c.index());
            }
            let t = match node.transform() {
                gl::scene::Transform::Matrix { matrix } => {
                    Transform::from_mat4(&Mat4::from_cols_array_2d(&matrix))
                }
                gl::scene::Transform::Decomposed {
                    translation,
                    rotation,
                    scale,
                } => Transform {
                    translation: Vec3::from(translation).into(),
                    rotation: Quat::from_array(rotation).normalize(),
                    scale: Vec3::from(scale).into(),
                },
            };
            if !t.is_finite() {
                return Err(format!("node {} has a non-finite transform", node.index()));
            }
            local.push(t);
            names.push(
                node.name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("node{}", node.index())),
            );
        }
        // Every node must reach a root without looping: each walk up stops at a node already known to reach one,
        // so the check is linear in the node count however deep the hierarchy.
        const UNSEEN: u8 = 0;
        const ON_WALK: u8 = 1;
        const REACHES_ROOT: u8 = 2;
        let mut state = vec![UNSEEN; n];
        let mut walk = Vec::new();
        for start in 0..n {
            walk.clear();
            let mut j = start;
            loop {
                match state[j] {
                    REACHES_ROOT => break,
                    ON_WALK => {
                        return Err(format!("node {j} is part of a cycle in the node hierarchy"));
                    }
                    _ => {}
                }
                state[j] = ON_WALK;
                walk.push(j);
                match parent[j] {
                    Some(p) => j = p,
                    None => break,
                }
            }
            for &w in &walk {
                state[w] = REACHES_ROOT;
            }
        }
        let roots: Vec<usize> = match document
            .default_scene()
            .or_else(|| document.scenes().next())
        {
            Some(scene) => scene.nodes().map(|n| n.index()).collect(),
            None => (0..n).filter(|&i| parent[i].is_none()).collect(),
        };
        let mut in_scene = Vec::new();
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            in_scene.push(i);
            stack.extend(children[i].iter().rev());
        }
        Ok(NodeGraph {
            parent,
            children,
            local,
            names,
            in_scene,
        })
    }

    pub(super) fn len(&self) -> usize {
        self.parent.len()
    }

    pub(super) fn world(&self, node: usize) -> Mat4 {
        let mut m = self.local[node].to_mat4();
        let mut j = node;
        while let Some(p) = self.parent[j] {
            m = self.local[p].to_mat4() * m;
            j = p;
        }
        m
    }

    /// Names from the scene root node down to `node`, joined by '/'.
    fn path_of(&self, node: usize) -> String {
        let mut chain = self.ancestors_and_self(node);
        chain.reverse();
        let names: Vec<&str> = chain.iter().map(|&n| self.names[n].as_str()).collect();
        names.join("/")
    }

    fn ancestors_and_self(&self, node: usize) -> Vec<usize> {
        let mut out = vec![node];
        let mut j = node;
        while let Some(p) = self.parent[j] {
            out.push(p);
            j = p;
        }
        out
    }

    /// Skeleton nodes in parent-before-child order (the wanted nodes and everything between them and their
    /// common ancestor), and the world transform above the skeleton root(s). Linear in the node count: each walk
    /// up from a wanted node stops at a node an earlier walk marked.
    pub(super) fn skeleton_nodes(&self, wanted: &[usize]) -> (Vec<usize>, Mat4) {
        let mut member = vec![false; self.len()];
        let mut is_wanted = vec![false; self.len()];
        for &w in wanted {
            is_wanted[w] = true;
            let mut j = w;
            while !member[j] {
                member[j] = true;
                match self.parent[j] {
                    Some(p) => j = p,
                    None => break,
                }
            }
        }
        // The lowest common ancestor: from the single root of the marked tree, down while a node is not wanted
        // itself and has exactly one marked child.
        let mut top = (0..self.len()).filter(|&i| member[i] && self.parent[i].is_none());
        let lca = match (top.next(), top.next()) {
            (Some(root), None) => {
                let mut j = root;
                loop {
                    let mut marked = self.children[j].iter().filter(|&&c| member[c]);
                    match (marked.next(), marked.next()) {
                        (Some(&only), None) if !is_wanted[j] => {
                            member[j] = false;
                            j = only;
                        }
                        _ => break Some(j),
                    }
                }
            }
            _ => None,
        };
        let (roots, above) = match lca {
            Some(r) => (
                vec![r],
                self.parent[r].map_or(Mat4::IDENTITY, |p| self.world(p)),
            ),
            None => (
                (0..self.len())
                    .filter(|&i| member[i] && self.parent[i].is_none())
                    .collect(),
                Mat4::IDENTITY,
            ),
        };
        let mut order = Vec::new();
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(self.children[i].iter().rev().filter(|&&c| member[c]));
        }
        (order, above)
    }

    /// Nearest skeleton joint above a node, and the node's transform relative to it.
    pub(super) fn joint_ancestor(
        &self,
        node: usize,
        node_to_joint: &HashMap<usize, usize>,
    ) -> Option<(usize, Mat4)> {
        let mut offset = self.local[node].to_mat4();
        let mut j = node;
        while let Some(p) = self.parent[j] {
            if let Some(&joint) = node_to_joint.get(&p) {
                return Some((joint, offset));
            }
            offset = self.local[p].to_mat4() * offset;
            j = p;
        }
        None
    }
}
