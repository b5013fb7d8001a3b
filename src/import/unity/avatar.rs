//! A model's Unity avatar, read from the model's `.meta` (the ModelImporter's `humanDescription`): the transform
//! that plays each human bone, as the user configured it in Unity's Avatar window, and the avatar's T-pose (its
//! `skeleton`: each transform's local position, rotation and scale as Unity's avatar holds them), in the tool's
//! axes. [`apply`] makes them the character's humanoid map and T-pose.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::Quat;

use super::project::MAX_META_BYTES;
use super::yaml::{self, Node, UnityError};
use crate::core::humanoid::{HumanoidMap, MappingSource};
use crate::core::unity_axes::mirror_rotation;
use crate::core::{Character, HumanBone};

/// Most human-bone or skeleton entries read from one avatar.
pub const MAX_AVATAR_ENTRIES: usize = 10_000;
/// How far (degrees) a transform that plays no human bone may be from the character's rest in the avatar's
/// T-pose before the T-pose is taken to describe another import of the model, and left out.
pub const T_POSE_AGREEMENT_DEG: f32 = 1.0;

/// A model's Unity avatar.
#[derive(Clone, Debug, PartialEq)]
pub struct UnityAvatar {
    /// The `.meta` it was read from.
    pub meta: PathBuf,
    /// Each human bone and the name of the transform that plays it, in the file's order.
    pub human: Vec<(HumanBone, String)>,
    /// The avatar's T-pose: each transform's name and local rotation (the tool's axes).
    pub t_pose: Vec<(String, Quat)>,
}

/// The avatar in `model`'s `.meta`, if it has one: None where there is no `.meta`, it is not a model's, or it
/// configures no human bones. A `.meta` too large, not UTF-8 or not YAML is an error naming it.
pub fn read(model: &Path) -> Result<Option<UnityAvatar>, UnityError> {
    let meta = PathBuf::from(format!("{}.meta", model.display()));
    if !meta.is_file() {
        return Ok(None);
    }
    let bytes = crate::io::limits::read_file(&meta, MAX_META_BYTES)
        .map_err(|e| UnityError::new(&meta, e.to_string()))?;
    let text =
        std::str::from_utf8(&bytes).map_err(|_| UnityError::new(&meta, "is not UTF-8 text"))?;
    if !text.contains("humanDescription:") {
        return Ok(None);
    }
    let root = yaml::parse_plain(text, &meta)?;
    let Some(description) = root
        .get("ModelImporter")
        .and_then(|i| i.get("humanDescription"))
    else {
        return Ok(None);
    };
    let (human, skeleton) = (
        description.get("human").map(Node::items).unwrap_or(&[]),
        description.get("skeleton").map(Node::items).unwrap_or(&[]),
    );
    if human.len() > MAX_AVATAR_ENTRIES || skeleton.len() > MAX_AVATAR_ENTRIES {
        return Err(UnityError::new(
            &meta,
            format!(
                "its avatar lists {} human bones and {} transforms, over the {MAX_AVATAR_ENTRIES} read",
                human.len(),
                skeleton.len()
            ),
        ));
    }
    let human: Vec<(HumanBone, String)> = human
        .iter()
        .filter_map(|h| {
            // Unity writes "Left Thumb Proximal"; its HumanBodyBones, as the tool's, "LeftThumbProximal".
            let bone = HumanBone::from_name(&h.str("humanName")?.replace(' ', ""))?;
            Some((bone, h.str("boneName")?.to_string()))
        })
        .collect();
    if human.is_empty() {
        return Ok(None);
    }
    let t_pose = skeleton
        .iter()
        .filter_map(|t| {
            let r = t.get("rotation")?;
            let q = Quat::from_xyzw(
                r.f64("x")? as f32,
                r.f64("y")? as f32,
                r.f64("z")? as f32,
                r.f64("w")? as f32,
            );
            let q = (q.is_finite() && q.length_squared() > 1e-12).then(|| q.normalize())?;
            Some((t.str("name")?.to_string(), mirror_rotation(q)))
        })
        .collect();
    Ok(Some(UnityAvatar {
        meta,
        human,
        t_pose,
    }))
}

/// Makes `avatar` `character`'s humanoid map, where every transform it names is a joint and the required bones
/// are there (else the map found by names or shape stays, with a warning saying why), and the avatar's T-pose
/// its T-pose, where the transforms that play no human bone agree with the rest pose within
/// [`T_POSE_AGREEMENT_DEG`] (else it is left out, with a warning).
pub fn apply(avatar: &UnityAvatar, character: &mut Character) {
    let skeleton = &character.skeleton;
    let meta = avatar.meta.display();
    let mut entries = Vec::with_capacity(avatar.human.len());
    let mut missing = Vec::new();
    for (bone, name) in &avatar.human {
        match skeleton.find_by_name(name) {
            Some(j) => entries.push((*bone, j)),
            None => missing.push(name.as_str()),
        }
    }
    let map = HumanoidMap::from_table(MappingSource::UnityAvatar, &entries, skeleton);
    if !missing.is_empty() || !map.missing_required.is_empty() {
        let why = if missing.is_empty() {
            format!(
                "it leaves out {}",
                map.missing_required
                    .iter()
                    .map(|b| b.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            format!(
                "it names transforms the model lacks: {}",
                missing.join(", ")
            )
        };
        character.humanoid.warnings.push(format!(
            "the Unity avatar in {meta} is not used: {why}; the bones are mapped by {}",
            character.humanoid.source.as_str()
        ));
        return;
    }
    let kept = std::mem::replace(&mut character.humanoid, map);
    character.humanoid.hips_placement = kept.hips_placement;
    character.humanoid.ik_goals = kept.ik_goals;
    let rest = skeleton.rest();
    let mut t_pose = BTreeMap::new();
    for (name, q) in &avatar.t_pose {
        let Some(j) = skeleton.find_by_name(name) else {
            continue;
        };
        let off = rest[j].rotation.angle_between(*q).to_degrees();
        if character.humanoid.bone_of(j).is_some() {
            if off > 1e-3 {
                t_pose.insert(j, *q);
            }
        } else if off > T_POSE_AGREEMENT_DEG {
            character.humanoid.warnings.push(format!(
                "the T-pose of the Unity avatar in {meta} is not used: its '{name}', which plays no human bone, \
                 is {off:.1}° from the model's rest (another import of the model?)"
            ));
            return;
        }
    }
    character.humanoid.t_pose = t_pose;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Pose;

    /// A model's `.meta` as Unity writes it: the avatar maps the mannequin's joints (Unity's finger names have
    /// spaces), and its T-pose lowers the left upper arm by 30° about Unity's Z (the tool's −Z) and keeps the
    /// rest elsewhere; `hips` is the rotation written for the hips, which play a human bone.
    fn meta(dir: &Path, human: &[(&str, &str)], skeleton: &[(&str, Quat)]) -> PathBuf {
        let model = dir.join("model.fbx");
        let mut text = String::from(
            "fileFormatVersion: 2\nguid: 0123456789abcdef0123456789abcdef\nModelImporter:\n  \
             serializedVersion: 22200\n  humanDescription:\n    serializedVersion: 3\n    human:\n",
        );
        for (bone, joint) in human {
            text.push_str(&format!(
                "    - boneName: {joint}\n      humanName: {bone}\n      limit:\n        min: {{x: 0, y: 0, z: 0}}\n        modified: 0\n"
            ));
        }
        text.push_str("    skeleton:\n");
        for (name, q) in skeleton {
            // Unity's axes: (x, −y, −z, w) of the tool's.
            text.push_str(&format!(
                "    - name: {name}\n      parentName: \n      position: {{x: 0, y: 0, z: 0}}\n      rotation: {{x: {}, y: {}, z: {}, w: {}}}\n      scale: {{x: 1, y: 1, z: 1}}\n",
                q.x, -q.y, -q.z, q.w
            ));
        }
        text.push_str("    armTwist: 0.5\n  animationType: 3\n");
        std::fs::write(dir.join("model.fbx.meta"), text).unwrap();
        model
    }

    fn mannequin_human() -> Vec<(String, String)> {
        let c = crate::demo::mannequin::load().character;
        c.humanoid
            .bones()
            .map(|(b, j)| {
                // Unity's spelling of the finger bones: "Left Thumb Proximal".
                let name = b.name();
                let unity = if name.contains("Thumb")
                    || name.contains("Index")
                    || name.contains("Middle")
                    || name.contains("Ring")
                    || name.contains("Little")
                {
                    let mut spaced = String::new();
                    for (i, ch) in name.chars().enumerate() {
                        if i > 0 && ch.is_ascii_uppercase() {
                            spaced.push(' ');
                        }
                        spaced.push(ch);
                    }
                    spaced
                } else {
                    name.to_string()
                };
                (unity, c.skeleton.name(j).to_string())
            })
            .collect()
    }

    /// The avatar's mapping becomes the character's (its source says so), and a muscle clip at the T-pose's
    /// values stands the left upper arm in the avatar's T-pose, not the rest pose: Unity's humanoid retarget goes
    /// through the avatar's T-pose.
    #[test]
    fn the_avatars_bones_and_t_pose_become_the_characters() {
        let dir = crate::test_support::temp_dir("unity-avatar");
        let mut character = crate::demo::mannequin::load().character;
        let arm = character.skeleton.find_by_name("LeftUpperArm").unwrap();
        let lowered =
            character.skeleton.rest()[arm].rotation * Quat::from_rotation_z(-30f32.to_radians());
        let human = mannequin_human();
        let pairs: Vec<(&str, &str)> = human
            .iter()
            .map(|(b, j)| (b.as_str(), j.as_str()))
            .collect();
        let hips = character.skeleton.find_by_name("Hips").unwrap();
        let model = meta(
            &dir,
            &pairs,
            &[
                ("LeftUpperArm", lowered),
                ("Hips", character.skeleton.rest()[hips].rotation),
            ],
        );
        let avatar = read(&model).unwrap().expect("an avatar");
        assert_eq!(
            avatar.human.len(),
            pairs.len(),
            "every bone, fingers spelt with spaces"
        );
        apply(&avatar, &mut character);
        assert_eq!(character.humanoid.source, MappingSource::UnityAvatar);
        assert!(
            character.humanoid.warnings.is_empty(),
            "{:?}",
            character.humanoid.warnings
        );
        assert_eq!(
            character
                .humanoid
                .t_pose
                .keys()
                .copied()
                .collect::<Vec<_>>(),
            [arm]
        );

        let wave = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/unity/Assets/Anims/Wave.anim");
        let clip = &crate::import::load_clips(&wave).unwrap()[0];
        let posed = |c: &Character| {
            let binding = clip.bind(&c.skeleton, Some(&c.humanoid));
            let mut pose = Pose::rest(&c.skeleton);
            clip.sample_into(&binding, 0.0, crate::core::clip::Wrap::Clamp, &mut pose);
            pose.local[arm].rotation
        };
        let off = posed(&character).angle_between(lowered).to_degrees();
        assert!(
            off < 0.05,
            "the left arm stands in the avatar's T-pose: {off}°"
        );
        let plain = crate::demo::mannequin::load().character;
        let at_rest = posed(&plain)
            .angle_between(plain.skeleton.rest()[arm].rotation)
            .to_degrees();
        assert!(
            at_rest < 0.05,
            "without the avatar, in the rest pose: {at_rest}°"
        );

        // A clip of the rig's own family, bound by path with a rest a little off the joint's, is carried rest to
        // rest as without the avatar: only retargets by human bone go through the T-pose.
        let model = crate::demo::mannequin::load();
        let mut walk = model.clips[0].clone();
        let track = walk
            .tracks
            .iter_mut()
            .find(|t| t.target.name == "LeftUpperArm")
            .expect("the arm's track");
        track.target.rest.rotation *= Quat::from_rotation_x(0.05);
        let own = |c: &Character| {
            let binding = walk.bind(&c.skeleton, Some(&c.humanoid));
            let mut pose = Pose::rest(&c.skeleton);
            walk.sample_into(&binding, 0.3, crate::core::clip::Wrap::Clamp, &mut pose);
            pose.local[arm].rotation
        };
        let off = own(&character).angle_between(own(&plain)).to_degrees();
        assert!(off < 1e-3, "a path-bound track ignores the T-pose: {off}°");
    }

    /// An avatar naming a transform the model lacks leaves the map found by names, and a T-pose whose joints
    /// that play no bone are off the rest (another import) is left out, each with a warning naming the `.meta`.
    #[test]
    fn an_avatar_for_another_model_is_left_out_with_a_warning() {
        let dir = crate::test_support::temp_dir("unity-avatar-other");
        let mut human = mannequin_human();
        human[0].1 = "mixamorig:Nowhere".into();
        let pairs: Vec<(&str, &str)> = human
            .iter()
            .map(|(b, j)| (b.as_str(), j.as_str()))
            .collect();
        let model = meta(&dir, &pairs, &[]);
        let mut character = crate::demo::mannequin::load().character;
        apply(&read(&model).unwrap().unwrap(), &mut character);
        assert_eq!(character.humanoid.source, MappingSource::Names);
        let w = character.humanoid.warnings.join("\n");
        assert!(
            w.contains("model.fbx.meta") && w.contains("mixamorig:Nowhere"),
            "{w}"
        );

        let human = mannequin_human();
        let pairs: Vec<(&str, &str)> = human
            .iter()
            .map(|(b, j)| (b.as_str(), j.as_str()))
            .collect();
        let mut character = crate::demo::mannequin::load().character;
        let twist = (0..character.skeleton.len())
            .find(|&j| character.humanoid.bone_of(j).is_none())
            .unwrap();
        let turned = character.skeleton.rest()[twist].rotation * Quat::from_rotation_x(0.1);
        let model = meta(&dir, &pairs, &[(character.skeleton.name(twist), turned)]);
        apply(&read(&model).unwrap().unwrap(), &mut character);
        assert_eq!(character.humanoid.source, MappingSource::UnityAvatar);
        assert!(character.humanoid.t_pose.is_empty());
        assert!(
            character
                .humanoid
                .warnings
                .join("\n")
                .contains("another import"),
            "{:?}",
            character.humanoid.warnings
        );
        assert_eq!(
            read(&dir.join("none.fbx")).unwrap(),
            None,
            "no .meta: no avatar"
        );
    }
}
