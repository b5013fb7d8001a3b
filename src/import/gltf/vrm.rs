//! VRM: the humanoid table a VRM 0.x, VRM 1.0 or VRMA file carries, and the humanoid map built from it (or
//! detected from names and the hierarchy when there is none).

use std::collections::HashMap;

use ::gltf as gl;
use serde_json::Value;

use crate::core::Skeleton;
use crate::core::humanoid::{HumanBone, HumanoidMap, MappingSource};

/// The humanoid table a VRM (or VRMA) file carries, if any.
pub(super) struct VrmInfo {
    pub(super) source: MappingSource,
    pub(super) bones: Vec<(HumanBone, usize)>,
    pub(super) warnings: Vec<String>,
}

impl VrmInfo {
    pub(super) fn read(document: &gl::Document) -> Self {
        let mut info = VrmInfo {
            source: MappingSource::None,
            bones: Vec::new(),
            warnings: Vec::new(),
        };
        let vrm1 = document
            .extension_value("VRMC_vrm")
            .or_else(|| document.extension_value("VRMC_vrm_animation"));
        if let Some(table) = vrm1
            .and_then(|v| v.pointer("/humanoid/humanBones"))
            .and_then(Value::as_object)
        {
            info.source = MappingSource::Vrm1;
            for (name, entry) in table {
                info.push(name, entry.get("node"), true);
            }
        } else if let Some(list) = document
            .extension_value("VRM")
            .and_then(|v| v.pointer("/humanoid/humanBones"))
            .and_then(Value::as_array)
        {
            info.source = MappingSource::Vrm0;
            for entry in list {
                let name = entry
                    .get("bone")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                info.push(name, entry.get("node"), false);
            }
        }
        info
    }

    fn push(&mut self, name: &str, node: Option<&Value>, vrm1: bool) {
        let node = node.and_then(Value::as_u64).map(|n| n as usize);
        match (HumanBone::from_vrm_name(name, vrm1), node) {
            (Some(bone), Some(node)) => self.bones.push((bone, node)),
            (None, _) => self.warnings.push(format!(
                "VRM humanoid bone '{name}' is not a known bone; ignored"
            )),
            (_, None) => self
                .warnings
                .push(format!("VRM humanoid bone '{name}' has no node; ignored")),
        }
    }
}

/// The humanoid map: the VRM table when the file has one (bones on nodes outside the skeleton noted), else
/// detected from the skeleton's names and hierarchy.
pub(super) fn humanoid(
    vrm: &VrmInfo,
    node_to_joint: &HashMap<usize, usize>,
    skeleton: &Skeleton,
    notes: &mut Vec<String>,
) -> HumanoidMap {
    if vrm.source == MappingSource::None {
        return HumanoidMap::detect(skeleton);
    }
    let mut entries = Vec::new();
    for (bone, node) in &vrm.bones {
        match node_to_joint.get(node) {
            Some(&j) => entries.push((*bone, j)),
            None => notes.push(format!(
                "VRM maps {} to node {node}, which is not a skeleton joint",
                bone.name()
            )),
        }
    }
    let mut map = HumanoidMap::from_table(vrm.source, &entries, skeleton);
    map.warnings.extend(vrm.warnings.iter().cloned());
    map
}
