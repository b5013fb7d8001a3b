//! A VRM Animation (.vrma) clip bound to other humanoids through their human bones.

mod common;

use animtune::core::binding::BindMethod;
use animtune::core::{HumanBone, Pose, Wrap};
use animtune::import::{ImportedModel, load_file};
use glam::Quat;

fn model_rotations(m: &ImportedModel, pose: &Pose) -> Vec<Quat> {
    pose.model_matrices(&m.character.skeleton)
        .iter()
        .map(|x| x.to_scale_rotation_translation().1.normalize())
        .collect()
}

/// For every retargeted bone, the rotation from rest to animated in model space must be the same on both rigs.
fn check_binds(target: &ImportedModel) {
    let vrma = load_file(&common::asset("three-vrm_test.vrma")).unwrap();
    let clip = &vrma.clips[0];
    let c = &target.character;
    let binding = clip.bind(&c.skeleton, Some(&c.humanoid));
    let human_tracks = clip
        .tracks
        .iter()
        .filter(|t| t.target.human_bone.is_some())
        .count();
    let bound: Vec<_> = binding.tracks.iter().flatten().collect();
    assert!(human_tracks > 0);
    assert_eq!(
        bound.len(),
        human_tracks,
        "unbound: {:?}",
        binding.unbound_tracks
    );
    assert!(bound.iter().all(|b| b.method == BindMethod::HumanBone));
    // The expression and look-at tracks of a VRMA are not joints of the character: reported, not bound.
    assert_eq!(binding.unbound_tracks, ["happy", "lookAt"]);

    let src_skel = &vrma.character.skeleton;
    let src_binding = clip.bind(src_skel, Some(&vrma.character.humanoid));
    for time in [0.4, 0.75, 1.3, 2.2] {
        let mut src_pose = Pose::rest(src_skel);
        clip.sample_into(&src_binding, time, Wrap::Clamp, &mut src_pose);
        let mut dst_pose = Pose::rest(&c.skeleton);
        clip.sample_into(&binding, time, Wrap::Clamp, &mut dst_pose);
        let src_rest = model_rotations(&vrma, &Pose::rest(src_skel));
        let src_now = model_rotations(&vrma, &src_pose);
        let dst_rest = model_rotations(target, &Pose::rest(&c.skeleton));
        let dst_now = model_rotations(target, &dst_pose);
        let mut compared = 0;
        for track in &clip.tracks {
            let Some(bone) = track.target.human_bone else {
                continue;
            };
            let (Some(sj), Some(dj)) =
                (vrma.character.humanoid.joint(bone), c.humanoid.joint(bone))
            else {
                continue;
            };
            let d_src = src_now[sj] * src_rest[sj].inverse();
            let d_dst = dst_now[dj] * dst_rest[dj].inverse();
            assert!(
                d_src.dot(d_dst).abs() > 1.0 - 1e-4,
                "{} at {time}: {d_src} vs {d_dst}",
                bone.name()
            );
            compared += 1;
        }
        assert!(compared > 0);
    }
    // The clip really moves the target.
    let mut pose = Pose::rest(&c.skeleton);
    clip.sample_into(&binding, 1.5, Wrap::Clamp, &mut pose);
    assert_ne!(pose, Pose::rest(&c.skeleton));
    let _ = HumanBone::Hips;
}

#[test]
fn vrma_binds_to_the_mannequin_by_human_bone() {
    check_binds(&animtune::demo::mannequin::load());
}

#[test]
fn vrma_binds_to_godette_by_human_bone() {
    check_binds(&load_file(&common::asset("Godette_vrm_v4.vrm")).unwrap());
}

#[test]
fn vrma_binds_to_the_quaternius_rig_by_human_bone() {
    check_binds(&load_file(&common::quaternius()).unwrap());
}
