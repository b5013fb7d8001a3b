//! Import of every shared third-party asset and of the built-in mannequin.

use crate::common;

use crate::common::{asset, quaternius};
use animtune::core::{HumanBone, MappingSource, Pose, Wrap};
use animtune::import::{ImportedModel, load_file};

fn load(name: &str) -> ImportedModel {
    load_file(&asset(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// An extended fixture (outside the repository), loaded.
fn load_extra(name: &str) -> ImportedModel {
    load_file(&common::extra_asset(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn moved_joints(model: &ImportedModel, clip: usize, time: f32) -> usize {
    let c = &model.character;
    let clip = &model.clips[clip];
    let binding = clip.bind(&c.skeleton, Some(&c.humanoid));
    let rest = Pose::rest(&c.skeleton);
    let mut pose = rest.clone();
    clip.sample_into(&binding, time, Wrap::Loop, &mut pose);
    rest.local
        .iter()
        .zip(&pose.local)
        .filter(|(a, b)| {
            a.rotation.dot(b.rotation).abs() < 1.0 - 1e-6
                || a.translation.distance(b.translation) > 1e-5
        })
        .count()
}

#[test]
fn godette_vrm0_maps_every_required_bone_through_the_vrm_table() {
    let m = load("Godette_vrm_v4.vrm");
    let h = &m.character.humanoid;
    assert_eq!(h.source, MappingSource::Vrm0);
    assert!(h.missing_required.is_empty(), "{:?}", h.missing_required);
    assert!(h.is_humanoid(), "{:?}", h.problems);
    assert_eq!(h.len(), 45);
    let s = &m.character.skeleton;
    assert_eq!(s.name(h.joint(HumanBone::Hips).unwrap()), "pelvis_Armature");
    assert_eq!(s.name(h.joint(HumanBone::Spine).unwrap()), "tummy_Armature");
    assert!(m.character.facing_corrected);
    // Facing normalised: the character's left arm is on +X, as for every +Z-facing character.
    let p = animtune::core::humanoid::rest_positions(s);
    let l = p[h.joint(HumanBone::LeftHand).unwrap()];
    let r = p[h.joint(HumanBone::RightHand).unwrap()];
    assert!(l.x > 0.2 && r.x < -0.2, "left {l} right {r}");
    assert_eq!(m.character.meshes.len(), 2);
    assert!(m.clips.is_empty());
}

#[test]
fn quaternius_rigify_rig_maps_by_name_and_plays_all_clips() {
    let m = load_file(&quaternius()).unwrap();
    let h = &m.character.humanoid;
    assert_eq!(h.source, MappingSource::Names);
    assert!(
        h.is_humanoid(),
        "missing {:?} problems {:?}",
        h.missing_required,
        h.problems
    );
    let s = &m.character.skeleton;
    let name = |b| s.name(h.joint(b).unwrap());
    assert_eq!(name(HumanBone::Hips), "DEF-hips");
    assert_eq!(name(HumanBone::Spine), "DEF-spine.001");
    assert_eq!(name(HumanBone::UpperChest), "DEF-spine.003");
    assert_eq!(name(HumanBone::LeftUpperArm), "DEF-upper_arm.L");
    assert_eq!(name(HumanBone::RightLowerLeg), "DEF-shin.R");
    assert_eq!(name(HumanBone::LeftIndexDistal), "DEF-f_index.03.L");
    assert_eq!(s.len(), 53);
    assert_eq!(m.clips.len(), 46);
    let walk = m.clips.iter().position(|c| c.name == "Walk_Loop").unwrap();
    assert!(moved_joints(&m, walk, 0.3) > 20);
}

#[test]
fn robot_expressive_maps_by_name_with_shared_joints_and_sparse_clips() {
    let m = load("RobotExpressive.glb");
    let c = &m.character;
    assert_eq!(c.humanoid.source, MappingSource::Names);
    assert!(
        c.humanoid.missing_required.is_empty(),
        "{:?}",
        c.humanoid.missing_required
    );
    assert!(c.humanoid.is_humanoid(), "{:?}", c.humanoid.problems);
    assert_eq!(c.skins.len(), 4);
    // The four skins share one joint set.
    assert!(c.skins.windows(2).all(|w| w[0].joints == w[1].joints));
    assert_eq!(m.clips.len(), 14);
    // Each clip keys the three heads' morph weights (Angry, Surprised, Sad).
    assert!(m.clips.iter().all(|clip| clip.morph_tracks.len() == 3));
    let heads: Vec<_> = c.meshes.iter().filter_map(|m| m.morph.as_ref()).collect();
    assert_eq!(heads.len(), 3);
    assert!(
        heads
            .iter()
            .all(|h| h.target_names == ["Angry", "Surprised", "Sad"])
    );
    // Sparse clips: fewer tracks than joints, and the others keep their rest value.
    let idle = m.clips.iter().position(|c| c.name == "Idle").unwrap();
    assert!(m.clips[idle].tracks.len() < c.skeleton.len());
    let binding = m.clips[idle].bind(&c.skeleton, None);
    let mut pose = Pose::rest(&c.skeleton);
    m.clips[idle].sample_into(&binding, 1.0, Wrap::Loop, &mut pose);
    for name in &binding.joints_without_track {
        let j = c.skeleton.find_by_name(name).unwrap();
        assert_eq!(pose.local[j], c.skeleton.rest()[j]);
    }
    // Meshes rigidly parented to bones are kept as attachments.
    assert!(c.meshes.iter().any(|m| matches!(
        m.placement,
        animtune::core::mesh::MeshPlacement::Joint { .. }
    )));
}

#[test]
fn cesium_man_keeps_the_transform_above_its_skeleton_and_maps_by_hierarchy() {
    let m = load("CesiumMan.glb");
    let c = &m.character;
    assert_eq!(c.skeleton.len(), 19);
    assert_eq!(c.skeleton.name(0), "Skeleton_torso_joint_1");
    // Z_UP and Armature nodes above the root are not lost: the character stands along +Y.
    let p = animtune::core::humanoid::rest_positions(&c.skeleton);
    let top = p.iter().map(|v| v.y).fold(f32::MIN, f32::max);
    assert!(top > 1.0, "top joint at {top}");
    assert_eq!(c.humanoid.source, MappingSource::Hierarchy);
    assert!(
        c.humanoid.is_humanoid(),
        "{:?} {:?}",
        c.humanoid.missing_required,
        c.humanoid.problems
    );
    assert_eq!(c.textures.len(), 1);
    assert!(c.materials[0].base_color_texture.is_some());
}

#[test]
fn fox_loads_and_plays_but_is_not_humanoid() {
    let m = load("Fox.glb");
    assert!(!m.character.humanoid.is_humanoid());
    assert_eq!(
        m.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["Survey", "Walk", "Run"]
    );
    assert!(moved_joints(&m, 1, 0.2) > 10);
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn broken_vrm_reports_missing_required_bones() {
    let m = load_extra("broken_human_bone_vrm0.vrm");
    let h = &m.character.humanoid;
    assert_eq!(h.source, MappingSource::Vrm0);
    assert!(!h.is_humanoid());
    assert!(h.missing_required.contains(&HumanBone::Hips));
    assert_eq!(h.missing_required.len(), 15);
}

#[test]
fn rigged_simple_is_a_minimal_skin() {
    let m = load("RiggedSimple.glb");
    assert_eq!(m.character.skeleton.len(), 2);
    assert_eq!(m.clips.len(), 1);
    assert!(!m.character.humanoid.is_humanoid());
    assert!(moved_joints(&m, 0, 1.0) >= 1);
}

#[test]
fn vrma_clip_maps_its_bones_through_vrmc_vrm_animation() {
    let m = load("three-vrm_test.vrma");
    assert_eq!(m.character.humanoid.source, MappingSource::Vrm1);
    assert!(m.character.humanoid.is_humanoid());
    assert!(m.character.skins.is_empty());
    assert_eq!(m.clips.len(), 1);
    assert!((m.clips[0].duration - 3.0).abs() < 1e-4);
    // VRM 1.0 thumb names: Metacarpal is Unity's ThumbProximal.
    let h = &m.character.humanoid;
    assert_eq!(
        m.character
            .skeleton
            .name(h.joint(HumanBone::LeftThumbProximal).unwrap()),
        "leftThumbMetacarpal"
    );
}

#[test]
fn mannequin_is_a_complete_humanoid_with_twist_joints() {
    let m = animtune::demo::mannequin::load();
    let c = &m.character;
    assert!(c.humanoid.is_humanoid());
    assert!((50..=70).contains(&c.skeleton.len()));
    let twists = c.twist_chains();
    for (parent, child) in [
        (HumanBone::LeftUpperArm, HumanBone::LeftLowerArm),
        (HumanBone::RightLowerArm, HumanBone::RightHand),
        (HumanBone::LeftUpperLeg, HumanBone::LeftLowerLeg),
        (HumanBone::RightLowerLeg, HumanBone::RightFoot),
    ] {
        let t = twists
            .iter()
            .find(|t| t.parent == parent && t.child == child)
            .unwrap();
        assert_eq!(t.joints.len(), 1);
        assert!(c.skeleton.name(t.joints[0]).ends_with("Twist"));
    }
    assert_eq!(twists.len(), 8);
    assert!(m.clips.iter().any(|c| c.name == "Idle"));
    assert!(moved_joints(&m, 0, 1.0) > 8);
}

/// A skinless VRM humanoid: mapped from its VRM table, animatable and upright.
fn check_skinless_humanoid(name: &str, m: &ImportedModel, source: MappingSource) {
    let h = &m.character.humanoid;
    assert_eq!(h.source, source, "{name}");
    assert!(h.is_humanoid(), "{name}: missing {:?}", h.missing_required);
    assert!(m.is_animatable(), "{name}");
    // Upright: the head is well above the hips in the rest pose.
    let c = &m.character;
    let model = animtune::core::Pose::rest(&c.skeleton).model_matrices(&c.skeleton);
    let y = |b| model[h.joint(b).unwrap()].w_axis.y;
    assert!(y(HumanBone::Head) > y(HumanBone::Hips) + 0.2, "{name}");
}

#[test]
fn a_skinless_vrm1_humanoid_loads_and_maps() {
    // A VRM 1.0 that lists VRMC_vrm as required and has no skin.
    let name = "vrm/mtoon_default.vrm";
    check_skinless_humanoid(name, &load(name), MappingSource::Vrm1);
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn a_skinless_vrm0_humanoid_loads_and_maps() {
    // A VRM 0.x whose skeleton is plain nodes (no skin).
    let name = "vrm/basic_armature_vrm0.vrm";
    check_skinless_humanoid(name, &load_extra(name), MappingSource::Vrm0);
}

#[test]
fn an_unknown_required_extension_is_refused_by_name() {
    let m = load("vrm/mtoon_default.vrm");
    assert!(
        m.character.notes.iter().all(|n| !n.contains("VRMC_vrm")),
        "VRMC_vrm is read, not merely tolerated"
    );
    let bytes = std::fs::read(common::asset("vrm/mtoon_default.vrm")).unwrap();
    // Rename the required extension in the JSON chunk (same length keeps the GLB consistent).
    let text = "\"extensionsRequired\":[\"VRMC_vrm\"]";
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = String::from_utf8(bytes[20..20 + json_len].to_vec()).unwrap();
    assert!(json.contains(text), "the asset lists VRMC_vrm as required");
    let patched = json.replace(text, "\"extensionsRequired\":[\"EXT_unkn\"]");
    let mut out = bytes[..20].to_vec();
    out.extend_from_slice(patched.as_bytes());
    out.extend_from_slice(&bytes[20 + json_len..]);
    let Err(err) =
        animtune::import::gltf::load_bytes(&out, "x", None, std::path::Path::new("x.vrm"))
    else {
        panic!("a file requiring an unknown extension loaded");
    };
    assert!(err.to_string().contains("EXT_unkn"), "{err}");
}
