//! Joint hierarchy of a character: names, parents, paths from the character root and rest pose.

use std::collections::HashMap;

use glam::Mat4;
use thiserror::Error;

use super::transform::Transform;

/// A problem with the joint list given to [`Skeleton::new`].
#[derive(Debug, Error, PartialEq)]
pub enum SkeletonError {
    /// A joint names a parent that does not come before it.
    #[error("joint {joint} ('{name}') has parent {parent}, which does not come before it")]
    ParentOrder {
        /// Index of the offending joint.
        joint: usize,
        /// Its name.
        name: String,
        /// The parent index it gave.
        parent: usize,
    },
    /// More joints than a `u16` parent index can address.
    #[error("{0} joints is more than the supported 65535")]
    TooManyJoints(usize),
    /// The joints' paths would take more than [`MAX_PATH_BYTES`] (a hierarchy tens of thousands deep).
    #[error(
        "the joint paths would take {0} bytes, over the {MAX_PATH_BYTES}-byte limit (a hierarchy too deep)"
    )]
    PathsTooLong(u64),
    /// A rest transform holds NaN or infinity.
    #[error("joint {joint} ('{name}') has a non-finite rest transform")]
    NonFiniteRest {
        /// Index of the offending joint.
        joint: usize,
        /// Its name.
        name: String,
    },
}

/// The most bytes all joint paths together may take: a path repeats its ancestors' names, so a deep chain grows
/// quadratically.
pub const MAX_PATH_BYTES: u64 = 64 << 20;

/// One joint as given to [`Skeleton::new`].
#[derive(Clone, Debug)]
pub struct JointDef {
    /// Joint (node) name; may be empty.
    pub name: String,
    /// Index of the parent joint, which must come earlier in the list.
    pub parent: Option<usize>,
    /// Local rest transform.
    pub rest: Transform,
    /// Whether a skin deforms vertices with this joint (false for helper nodes kept for the hierarchy).
    pub deforms: bool,
}

/// The inverse of `m`'s linear part; all zero (every direction vanishes) when it is singular.
fn root_linear_inverse(m: Mat4) -> glam::Mat3A {
    let linear = glam::Mat3A::from_mat4(m);
    if linear.determinant().abs() > f32::MIN_POSITIVE {
        linear.inverse()
    } else {
        glam::Mat3A::ZERO
    }
}

/// A joint hierarchy in parent-before-child order with lookups by name and path.
#[derive(Clone, Debug)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<Option<u16>>,
    paths: Vec<String>,
    /// Shared with the clips compiled for the skeleton (the runtime starts each sample from it).
    rest: std::sync::Arc<[Transform]>,
    deforms: Vec<bool>,
    root_transform: Mat4,
    root_rotation: glam::Quat,
    /// The inverse of the linear part of `root_transform` (zero when that is singular).
    root_linear_inverse: glam::Mat3A,
    by_name: HashMap<String, usize>,
    by_path: HashMap<String, usize>,
    /// Depth-first preorder position of each joint, and the position of the last joint of its subtree: `k` is in
    /// the subtree of `j` exactly when `preorder[j] <= preorder[k] <= subtree_last[j]`.
    preorder: Vec<u16>,
    subtree_last: Vec<u16>,
}

impl Skeleton {
    /// Builds a skeleton; `root_transform` places the joints' root frame in the character's model space.
    pub fn new(joints: Vec<JointDef>, root_transform: Mat4) -> Result<Self, SkeletonError> {
        if joints.len() > u16::MAX as usize {
            return Err(SkeletonError::TooManyJoints(joints.len()));
        }
        let mut names = Vec::with_capacity(joints.len());
        let mut parents = Vec::with_capacity(joints.len());
        let mut paths: Vec<String> = Vec::with_capacity(joints.len());
        let mut rest = Vec::with_capacity(joints.len());
        let mut deforms = Vec::with_capacity(joints.len());
        // Path lengths first, so a deep chain is refused before its paths are built.
        let mut path_len: Vec<u64> = Vec::with_capacity(joints.len());
        let mut total = 0u64;
        for (i, j) in joints.iter().enumerate() {
            let segment = if j.name.is_empty() {
                format!("joint{i}").len() as u64
            } else {
                j.name.len() as u64
            };
            let len = match j.parent.filter(|&p| p < i) {
                Some(p) => path_len[p] + 1 + segment,
                None => segment,
            };
            path_len.push(len);
            total = total.saturating_add(len);
            if total > MAX_PATH_BYTES {
                return Err(SkeletonError::PathsTooLong(total));
            }
        }
        for (i, j) in joints.into_iter().enumerate() {
            if let Some(p) = j.parent
                && p >= i
            {
                return Err(SkeletonError::ParentOrder {
                    joint: i,
                    name: j.name,
                    parent: p,
                });
            }
            if !j.rest.is_finite() {
                return Err(SkeletonError::NonFiniteRest {
                    joint: i,
                    name: j.name,
                });
            }
            let segment = if j.name.is_empty() {
                format!("joint{i}")
            } else {
                j.name.clone()
            };
            let path = match j.parent {
                Some(p) => format!("{}/{}", paths[p], segment),
                None => segment,
            };
            paths.push(path);
            names.push(j.name);
            parents.push(j.parent.map(|p| p as u16));
            rest.push(j.rest);
            deforms.push(j.deforms);
        }
        let mut by_name = HashMap::new();
        for (i, n) in names.iter().enumerate() {
            by_name.entry(n.clone()).or_insert(i);
        }
        let mut by_path = HashMap::new();
        for (i, p) in paths.iter().enumerate() {
            by_path.entry(p.clone()).or_insert(i);
        }
        let (preorder, subtree_last) = preorder_intervals(&parents);
        Ok(Skeleton {
            names,
            parents,
            paths,
            rest: rest.into(),
            deforms,
            root_transform,
            root_rotation: Some(root_transform.to_scale_rotation_translation().1.normalize())
                .filter(|q| q.is_finite())
                .unwrap_or(glam::Quat::IDENTITY),
            root_linear_inverse: root_linear_inverse(root_transform),
            by_name,
            by_path,
            preorder,
            subtree_last,
        })
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when the skeleton has no joints.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Joint names, by joint index.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Name of one joint.
    pub fn name(&self, joint: usize) -> &str {
        &self.names[joint]
    }

    /// Parent index of each joint (None for roots); parents always come first.
    pub fn parents(&self) -> &[Option<u16>] {
        &self.parents
    }

    /// Parent of one joint.
    pub fn parent(&self, joint: usize) -> Option<usize> {
        self.parents[joint].map(usize::from)
    }

    /// Path of one joint from the character root, every node between the scene root and the joint included
    /// ("Armature/Hips/Spine"), as Unity's `AnimationUtility.CalculateTransformPath` gives it.
    pub fn path(&self, joint: usize) -> &str {
        &self.paths[joint]
    }

    /// Places the skeleton under the nodes named by `prefix` ("Scene/Armature"): every joint path starts with
    /// it. The nodes above the root joints are not joints; their transform is in [`Skeleton::root_transform`].
    pub fn with_path_prefix(mut self, prefix: &str) -> Result<Self, SkeletonError> {
        if prefix.is_empty() {
            return Ok(self);
        }
        let extra = (prefix.len() as u64 + 1).saturating_mul(self.paths.len() as u64);
        let total: u64 = self.paths.iter().map(|p| p.len() as u64).sum::<u64>() + extra;
        if total > MAX_PATH_BYTES {
            return Err(SkeletonError::PathsTooLong(total));
        }
        for p in &mut self.paths {
            *p = format!("{prefix}/{p}");
        }
        self.by_path = self
            .paths
            .iter()
            .enumerate()
            .rev()
            .map(|(i, p)| (p.clone(), i))
            .collect();
        Ok(self)
    }

    /// Paths from the character root, by joint index.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// Local rest transforms, by joint index.
    pub fn rest(&self) -> &[Transform] {
        &self.rest
    }

    /// The rest transforms as a shared buffer: every clip compiled for this skeleton (and its clones) holds this
    /// one allocation instead of a copy.
    pub fn rest_shared(&self) -> std::sync::Arc<[Transform]> {
        std::sync::Arc::clone(&self.rest)
    }

    /// Whether a skin deforms vertices with this joint.
    pub fn deforms(&self, joint: usize) -> bool {
        self.deforms[joint]
    }

    /// Transform from the root joints' parent frame to the character's model space.
    pub fn root_transform(&self) -> Mat4 {
        self.root_transform
    }

    /// `v`, a direction in the character's model space, in the frame of `joint`'s parent for the pose `local`:
    /// the linear parts (rotation, scale) of the root transform and of each ancestor undone from the top down,
    /// without building their matrices. Not finite where an ancestor's scale is zero, zero where the root
    /// transform is singular.
    pub fn to_parent_frame(
        &self,
        local: &[Transform],
        joint: usize,
        v: glam::Vec3A,
    ) -> glam::Vec3A {
        match self.parent(joint) {
            Some(p) => {
                let t = &local[p];
                (t.rotation.inverse() * self.to_parent_frame(local, p, v)) / t.scale
            }
            None => self.root_linear_inverse * v,
        }
    }

    /// Rotation part of [`Skeleton::root_transform`] (scale removed).
    pub fn root_rotation(&self) -> glam::Quat {
        self.root_rotation
    }

    /// First joint with this name.
    pub fn find_by_name(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// Joint with this path from the character root.
    pub fn find_by_path(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    /// Direct children of a joint, in order.
    pub fn children(&self, joint: usize) -> impl Iterator<Item = usize> + '_ {
        (joint + 1..self.len()).filter(move |&c| self.parent(c) == Some(joint))
    }

    /// The joint and every joint below it.
    pub fn subtree(&self, joint: usize) -> impl Iterator<Item = usize> + '_ {
        (joint..self.len()).filter(move |&k| self.is_ancestor_or_self(joint, k))
    }

    /// Number of ancestors of a joint (0 for a root).
    pub fn depth(&self, joint: usize) -> usize {
        let mut d = 0;
        let mut j = joint;
        while let Some(p) = self.parent(j) {
            d += 1;
            j = p;
        }
        d
    }

    /// True when `ancestor` is `joint` or lies above it (constant time).
    pub fn is_ancestor_or_self(&self, ancestor: usize, joint: usize) -> bool {
        let p = self.preorder[joint];
        self.preorder[ancestor] <= p && p <= self.subtree_last[ancestor]
    }

    /// Joints strictly between `ancestor` and `descendant`, from the ancestor down; None when not related.
    pub fn joints_between(&self, ancestor: usize, descendant: usize) -> Option<Vec<usize>> {
        let mut out = Vec::new();
        let mut j = self.parent(descendant)?;
        loop {
            if j == ancestor {
                out.reverse();
                return Some(out);
            }
            out.push(j);
            j = self.parent(j)?;
        }
    }
}

/// Depth-first preorder positions of every joint and, per joint, the position of the last joint below it
/// (children visited in index order). Parents come before children, so one pass from the end finds the sizes.
fn preorder_intervals(parents: &[Option<u16>]) -> (Vec<u16>, Vec<u16>) {
    let n = parents.len();
    let mut size = vec![1usize; n];
    for j in (0..n).rev() {
        if let Some(p) = parents[j] {
            size[usize::from(p)] += size[j];
        }
    }
    // A joint's position: its parent's position + 1 + the sizes of the earlier siblings' subtrees.
    let mut pre = vec![0usize; n];
    let mut next_child = vec![0usize; n];
    let mut next_root = 0usize;
    for j in 0..n {
        match parents[j] {
            Some(p) => {
                let p = usize::from(p);
                pre[j] = pre[p] + 1 + next_child[p];
                next_child[p] += size[j];
            }
            None => {
                pre[j] = next_root;
                next_root += size[j];
            }
        }
    }
    let last = (0..n).map(|j| (pre[j] + size[j] - 1) as u16).collect();
    (pre.into_iter().map(|p| p as u16).collect(), last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(name: &str, parent: Option<usize>) -> JointDef {
        JointDef {
            name: name.into(),
            parent,
            rest: Transform::IDENTITY,
            deforms: true,
        }
    }

    #[test]
    fn paths_and_lookups() {
        let s = Skeleton::new(
            vec![
                joint("Hips", None),
                joint("Spine", Some(0)),
                joint("Chest", Some(1)),
                joint("LeftUpLeg", Some(0)),
            ],
            Mat4::IDENTITY,
        )
        .unwrap();
        assert_eq!(s.path(2), "Hips/Spine/Chest");
        assert_eq!(s.find_by_path("Hips/LeftUpLeg"), Some(3));
        assert_eq!(s.find_by_name("Spine"), Some(1));
        assert_eq!(s.children(0).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(s.depth(2), 2);
        assert_eq!(s.joints_between(0, 2), Some(vec![1]));
        assert_eq!(s.joints_between(3, 2), None);
        assert!(
            s.is_ancestor_or_self(0, 2)
                && s.is_ancestor_or_self(1, 2)
                && s.is_ancestor_or_self(2, 2)
        );
        assert!(!s.is_ancestor_or_self(3, 2) && !s.is_ancestor_or_self(2, 1));
        assert_eq!(s.subtree(1).collect::<Vec<_>>(), vec![1, 2]);
    }

    #[test]
    fn subtrees_hold_in_any_parent_first_order() {
        // Breadth-first order: 0 → {1, 2}, 1 → {3, 5}, 2 → {4}; a second root 6 → {7}.
        let parents = [
            None,
            Some(0),
            Some(0),
            Some(1),
            Some(2),
            Some(1),
            None,
            Some(6),
        ];
        let joints = parents
            .iter()
            .enumerate()
            .map(|(i, &p)| joint(&format!("j{i}"), p))
            .collect();
        let s = Skeleton::new(joints, Mat4::IDENTITY).unwrap();
        for a in 0..s.len() {
            for k in 0..s.len() {
                let mut walk = Some(k);
                let mut expected = false;
                while let Some(w) = walk {
                    expected |= w == a;
                    walk = s.parent(w);
                }
                assert_eq!(s.is_ancestor_or_self(a, k), expected, "{a} above {k}");
            }
        }
    }

    #[test]
    fn parent_after_child_is_refused() {
        let err = Skeleton::new(vec![joint("A", Some(1)), joint("B", None)], Mat4::IDENTITY);
        assert!(matches!(
            err,
            Err(SkeletonError::ParentOrder { joint: 0, .. })
        ));
    }

    #[test]
    fn directions_go_into_a_parent_frame_as_the_inverse_matrix_takes_them() {
        use glam::{Quat, Vec3, Vec3A};
        let root = Mat4::from_scale_rotation_translation(
            Vec3::new(0.01, 0.01, 0.02),
            Quat::from_rotation_x(-1.2),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let s = Skeleton::new(
            vec![
                joint("Root", None),
                joint("Hips", Some(0)),
                joint("Spine", Some(1)),
            ],
            root,
        )
        .unwrap();
        let local = [
            Transform {
                translation: Vec3A::new(0.3, -0.2, 0.5),
                rotation: Quat::from_euler(glam::EulerRot::YXZ, 0.4, -0.7, 1.1),
                scale: Vec3A::new(1.5, 0.5, 2.0),
            },
            Transform {
                translation: Vec3A::new(0.0, 1.0, 0.0),
                rotation: Quat::from_rotation_z(2.5),
                scale: Vec3A::splat(3.0),
            },
            Transform::IDENTITY,
        ];
        let v = Vec3A::new(0.7, -1.3, 0.4);
        // The oracle: the parent's model matrix, built by multiplying the matrices down the chain, inverted.
        let parent_model = root * local[0].to_mat4() * local[1].to_mat4();
        let expected = parent_model.inverse().transform_vector3a(v);
        let got = s.to_parent_frame(&local, 2, v);
        assert!(
            (got - expected).length() < 1e-4 * expected.length(),
            "{got} {expected}"
        );
        let at_root = s.to_parent_frame(&local, 0, v);
        assert!((at_root - root.inverse().transform_vector3a(v)).length() < 1e-3);
        let flat = Skeleton::new(
            vec![joint("Root", None)],
            Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0)),
        );
        assert_eq!(flat.unwrap().to_parent_frame(&local, 0, v), Vec3A::ZERO);
    }
}
