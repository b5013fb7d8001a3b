//! The skinning-matrices job: `model[joint] × inverse bind` for every joint of one skin.

use glam::Mat4;

use super::JobError;
use super::check::check_len;

/// Computes one skin's palette.
pub struct SkinningJob<'a> {
    /// Model-space matrices of the skeleton's joints.
    pub model: &'a [Mat4],
    /// Skeleton joint of each skin joint.
    pub joints: &'a [usize],
    /// Inverse bind matrix of each skin joint.
    pub inverse_bind: &'a [Mat4],
    /// One matrix per skin joint.
    pub output: &'a mut [Mat4],
}

impl SkinningJob<'_> {
    /// Checks the inputs.
    pub fn validate(&self) -> Result<(), JobError> {
        check_len(
            "inverse bind matrices",
            self.inverse_bind.len(),
            self.joints.len(),
        )?;
        check_len("output", self.output.len(), self.joints.len())?;
        if let Some(&joint) = self.joints.iter().find(|&&j| j >= self.model.len()) {
            return Err(JobError::Joint {
                what: "skin joint",
                joint,
                joints: self.model.len(),
            });
        }
        Ok(())
    }

    /// Computes the palette; allocates nothing.
    pub fn run(&mut self) -> Result<(), JobError> {
        self.validate()?;
        for ((o, &j), ibm) in self
            .output
            .iter_mut()
            .zip(self.joints)
            .zip(self.inverse_bind)
        {
            *o = self.model[j] * *ibm;
        }
        Ok(())
    }
}
