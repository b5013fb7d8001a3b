//! Skins: each skin's joints as skeleton indices and its inverse bind matrices (identity when absent).

use std::collections::HashMap;

use ::gltf as gl;
use glam::Mat4;

use crate::core::mesh::Skin;

/// Every skin of the document, its joints mapped through `node_to_joint` (every skin joint is a joint).
pub(super) fn read_skins(
    document: &gl::Document,
    buffers: &[gl::buffer::Data],
    node_to_joint: &HashMap<usize, usize>,
) -> Result<Vec<Skin>, String> {
    let get = |b: gl::Buffer| buffers.get(b.index()).map(|d| d.0.as_slice());
    let mut skins = Vec::new();
    for skin in document.skins() {
        let joints: Vec<usize> = skin.joints().map(|n| node_to_joint[&n.index()]).collect();
        let reader = skin.reader(get);
        let inverse_bind: Vec<Mat4> = match reader.read_inverse_bind_matrices() {
            Some(m) => m.map(|c| Mat4::from_cols_array_2d(&c)).collect(),
            None => vec![Mat4::IDENTITY; joints.len()],
        };
        if inverse_bind.len() < joints.len() {
            return Err(format!(
                "skin {} has {} joints but {} inverse bind matrices",
                skin.index(),
                joints.len(),
                inverse_bind.len()
            ));
        }
        if let Some(i) = inverse_bind.iter().position(|m| !m.is_finite()) {
            return Err(format!(
                "skin {}: inverse bind matrix {i} is not finite",
                skin.index()
            ));
        }
        skins.push(Skin {
            name: skin.name().unwrap_or_default().to_string(),
            joints,
            inverse_bind,
        });
    }
    Ok(skins)
}
