//! A VRM Animation (.vrma) clip bound to other humanoids through their human bones.

use crate::common;

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
    // The expression and look-at tracks are read as such (they drive the character's `happy` and its look-at),
    // not as joint tracks.
    assert!(
        binding.unbound_tracks.is_empty(),
        "{:?}",
        binding.unbound_tracks
    );
    assert!(clip.look_at.is_some());
    let expressions: Vec<&str> = clip
        .expression_tracks
        .iter()
        .map(|t| t.node.as_str())
        .collect();
    assert_eq!(expressions, ["happy"]);

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

/// The model-space rotation, from rest to posed, of humanoid bone `bone`.
fn bone_turn(m: &ImportedModel, pose: &Pose, bone: HumanBone) -> Quat {
    let c = &m.character;
    let j = c.humanoid.joint(bone).unwrap();
    let rest = model_rotations(m, &Pose::rest(&c.skeleton))[j];
    (model_rotations(m, pose)[j] * rest.inverse()).normalize()
}

#[test]
fn upper_chest_motion_folds_into_the_chest_of_a_rig_without_one() {
    use animtune::core::clip::{Interpolation, Keys, Track};
    use animtune::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
    use animtune::layers::LayerParams;
    // A source rig with an UpperChest (Quaternius), whose UpperChest alone bends 30 degrees about its parent's
    // right; Godette has Spine and Chest but no UpperChest.
    let quaternius = load_file(&common::quaternius()).unwrap();
    let godette = load_file(&common::asset("Godette_vrm_v4.vrm")).unwrap();
    assert!(
        godette
            .character
            .humanoid
            .joint(HumanBone::UpperChest)
            .is_none()
    );
    let qc = &quaternius.character;
    let targets = animtune::offline::compact::track_targets(&qc.skeleton, Some(&qc.humanoid));
    let target_of = |b: HumanBone| targets[qc.humanoid.joint(b).unwrap()].clone();
    let (chest, upper) = (
        target_of(HumanBone::Chest),
        target_of(HumanBone::UpperChest),
    );
    let bend = Quat::from_rotation_x(30f32.to_radians());
    let track = |target: animtune::core::TrackTarget, end: Quat| Track {
        rotation: Some(
            Keys::new(
                vec![0.0, 1.0],
                vec![target.rest.rotation, end],
                Interpolation::Linear,
            )
            .unwrap(),
        ),
        translation: None,
        scale: None,
        target,
    };
    let clip = animtune::core::Clip::new(
        "bend",
        vec![
            track(chest.clone(), chest.rest.rotation),
            track(upper.clone(), upper.rest.rotation * bend),
        ],
    );
    let play = |m: &ImportedModel| {
        let clips = [clip.clone()];
        let mut ev = Evaluator::new(
            &m.character,
            &clips,
            SourceSpec::Clip(0),
            LayerParams::off(),
        );
        let pose = ev
            .evaluate(&EvalInput {
                clock: ClockStep::Seek(1.0),
                ..EvalInput::default()
            })
            .local
            .clone();
        (pose, ev.source().binding().unwrap().folded.clone())
    };
    let (on_source, _) = play(&quaternius);
    let (on_godette, folded) = play(&godette);
    assert_eq!(folded.len(), 1, "{folded:?}");
    let want = bone_turn(&quaternius, &on_source, HumanBone::UpperChest);
    let got = bone_turn(&godette, &on_godette, HumanBone::Chest);
    let angle = |q: Quat| q.angle_between(Quat::IDENTITY).to_degrees();
    assert!(
        (angle(want) - 30.0).abs() < 0.5,
        "source bends {}",
        angle(want)
    );
    assert!(
        want.angle_between(got).to_degrees() < 1.0,
        "Godette's chest turns {} degrees, as the source's upper chest {}",
        angle(got),
        angle(want)
    );
}

#[test]
fn a_track_bound_by_name_to_a_joint_resting_the_same_way_is_copied_exactly() {
    use animtune::core::Wrap;
    // Quaternius's jog with its paths changed (as if from another file of the same rig): it binds by name, the
    // rests agree, and the pose equals the file's own to 1e-5.
    let quaternius = load_file(&common::quaternius()).unwrap();
    let c = &quaternius.character;
    let run = quaternius
        .clips
        .iter()
        .find(|c| c.name == "Jog_Fwd_Loop")
        .unwrap();
    let mut renamed = run.clone();
    for t in &mut renamed.tracks {
        t.target.path = format!("OtherFile/{}", t.target.name);
    }
    let binding = renamed.bind(&c.skeleton, Some(&c.humanoid));
    assert!(
        binding
            .tracks
            .iter()
            .flatten()
            .all(|b| b.method == BindMethod::Name && b.retarget.is_none())
    );
    let (mut own, mut taken) = (Pose::rest(&c.skeleton), Pose::rest(&c.skeleton));
    run.sample_into(&run.bind(&c.skeleton, None), 0.4, Wrap::Clamp, &mut own);
    renamed.sample_into(&binding, 0.4, Wrap::Clamp, &mut taken);
    for (a, b) in own.local.iter().zip(&taken.local) {
        assert!(glam::Vec3::from(a.translation).distance(b.translation.into()) <= 1e-5);
        assert!(
            (glam::Vec4::from(a.rotation) - glam::Vec4::from(b.rotation))
                .abs()
                .max_element()
                <= 1e-5
        );
    }
}
