//! The local-to-model job: local transforms to model-space matrices, parents before children, for the whole
//! skeleton or only the subtree below one joint (`from`) up to a last joint (`to`), as ozz's LocalToModelJob.
//! A layer that turned one joint refreshes just what hangs below it.

use glam::Mat4;

use super::{JobError, check_len};
use crate::core::transform::compose;
use crate::core::{Skeleton, Transform};

/// Computes model-space matrices.
pub struct LocalToModelJob<'a> {
    /// The joint hierarchy (and the root transform placing it in model space).
    pub skeleton: &'a Skeleton,
    /// Local transforms, one per joint.
    pub input: &'a [Transform],
    /// Refresh only this joint and its descendants (its parent's matrix is read from `output`); None: every joint.
    pub from: Option<usize>,
    /// Last joint index to refresh (`usize::MAX`: through the end).
    pub to: usize,
    /// Model-space matrices, one per joint.
    pub output: &'a mut [Mat4],
}

impl<'a> LocalToModelJob<'a> {
    /// The job for every joint.
    pub fn all(skeleton: &'a Skeleton, input: &'a [Transform], output: &'a mut [Mat4]) -> Self {
        LocalToModelJob {
            skeleton,
            input,
            from: None,
            to: usize::MAX,
            output,
        }
    }

    /// Checks the inputs.
    pub fn validate(&self) -> Result<(), JobError> {
        let n = self.skeleton.len();
        check_len("input", self.input.len(), n)?;
        check_len("output", self.output.len(), n)?;
        if let Some(joint) = self.from.filter(|&f| f >= n) {
            return Err(JobError::Joint {
                what: "from",
                joint,
                joints: n,
            });
        }
        Ok(())
    }

    /// Computes the matrices; allocates nothing.
    pub fn run(&mut self) -> Result<(), JobError> {
        self.validate()?;
        let skeleton = self.skeleton;
        let root = skeleton.root_transform();
        let parents = skeleton.parents();
        let n = skeleton.len();
        let last = self.to.min(n.saturating_sub(1));
        let out = &mut *self.output;
        match self.from {
            None => {
                let input = &self.input[..n];
                // The previous joint's matrix stays in registers: down a chain (spine, limbs, fingers) the
                // parent is the joint just computed, and reloading it from memory would add to the latency.
                let mut previous = root;
                for j in 0..(last + 1).min(n) {
                    let parent = match parents[j] {
                        Some(p) if j > 0 && usize::from(p) == j - 1 => previous,
                        Some(p) => out[usize::from(p)],
                        None => root,
                    };
                    previous = compose(&parent, &input[j]);
                    out[j] = previous;
                }
            }
            Some(from) => {
                for j in from..=last {
                    if j != from && !skeleton.is_ancestor_or_self(from, j) {
                        continue;
                    }
                    let parent = match parents[j] {
                        Some(p) => out[usize::from(p)],
                        None => root,
                    };
                    out[j] = compose(&parent, &self.input[j]);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{JointDef, Pose};
    use glam::{Quat, Vec3};

    fn skeleton() -> Skeleton {
        // 0 → 1 → 2, 0 → 3, given in an order where 3 comes after 2.
        let parents = [None, Some(0), Some(1), Some(0)];
        let joints = parents
            .iter()
            .enumerate()
            .map(|(i, &parent)| JointDef {
                name: format!("j{i}"),
                parent,
                rest: Transform {
                    translation: Vec3::new(0.1 * i as f32, 0.2, -0.05).into(),
                    rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3 * i as f32, -0.2, 0.5),
                    scale: Vec3::new(1.0, 1.5 - 0.1 * i as f32, 0.9).into(),
                },
                deforms: true,
            })
            .collect();
        Skeleton::new(joints, Mat4::from_scale(Vec3::splat(0.01))).unwrap()
    }

    #[test]
    fn matches_the_matrix_product_and_refreshes_subtrees_only() {
        let s = skeleton();
        let mut pose = Pose::rest(&s);
        let mut out = vec![Mat4::IDENTITY; s.len()];
        LocalToModelJob::all(&s, &pose.local, &mut out)
            .run()
            .unwrap();
        for j in 0..s.len() {
            let parent = s.parent(j).map_or(s.root_transform(), |p| out[p]);
            assert!(
                (parent * pose.local[j].to_mat4()).abs_diff_eq(out[j], 1e-6),
                "joint {j}"
            );
        }
        pose.local[1].rotation = Quat::from_rotation_x(1.0);
        let before = out.clone();
        let mut job = LocalToModelJob {
            skeleton: &s,
            input: &pose.local,
            from: Some(1),
            to: usize::MAX,
            output: &mut out,
        };
        job.run().unwrap();
        assert_eq!(out[0], before[0]);
        assert_eq!(out[3], before[3], "joint 3 is not below joint 1");
        assert_ne!(out[2], before[2]);
        let mut full = vec![Mat4::IDENTITY; s.len()];
        LocalToModelJob::all(&s, &pose.local, &mut full)
            .run()
            .unwrap();
        assert_eq!(out, full);
        let job = LocalToModelJob {
            skeleton: &s,
            input: &pose.local,
            from: Some(9),
            to: 0,
            output: &mut full,
        };
        assert!(matches!(job.validate(), Err(JobError::Joint { .. })));
    }
}
