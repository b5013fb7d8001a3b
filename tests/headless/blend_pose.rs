//! Pose blending on the mannequin's locomotion space and on real clip sets (Quaternius, Fox).

use crate::common;

use animtune::blend::{BlendSampler, BlendSpace, RootMotion};
use animtune::core::{HumanBone, Pose, Wrap};
use animtune::demo::locomotion::default_blend_space;
use animtune::eval::{ClockStep, EvalInput, Evaluator, Precision, SourceSpec};
use animtune::import::ImportedModel;
use glam::{DVec2, Vec3};

fn blend(
    model: &ImportedModel,
    space: &BlendSpace,
    point: DVec2,
    phase: f32,
) -> (Pose, BlendSampler, f32) {
    let sampler = BlendSampler::bind(space, &model.clips, &model.character);
    assert!(sampler.missing().is_empty(), "{:?}", sampler.missing());
    let w = space.weights_at(point);
    let cycle = sampler.cycle_length(&w);
    let mut space = space.clone();
    space.set_point(point.to_array());
    let layers = animtune::layers::LayerParams::off();
    let source = SourceSpec::Blend(space);
    // Exact keys: the blend's arithmetic is compared with the reference sampler's poses.
    let mut ev = Evaluator::with_precision(
        &model.character,
        &model.clips,
        source,
        layers,
        Precision::Exact,
    );
    let input = EvalInput {
        clock: ClockStep::Seek(phase * cycle),
        ..EvalInput::default()
    };
    let pose = ev.evaluate(&input).local.clone();
    (pose, sampler, cycle)
}

fn clip_pose(model: &ImportedModel, name: &str, time: f32) -> Pose {
    let c = &model.character;
    let clip = model.clips.iter().find(|c| c.name == name).unwrap();
    let b = clip.bind(&c.skeleton, Some(&c.humanoid));
    let mut pose = Pose::rest(&c.skeleton);
    clip.sample_into(&b, time, Wrap::Clamp, &mut pose);
    pose
}

/// Largest rotation difference over the joints, in radians (chord form: `acos` is blind to tiny angles in f32).
fn max_rotation_difference(a: &Pose, b: &Pose) -> f32 {
    a.local
        .iter()
        .zip(&b.local)
        .map(|(x, y)| {
            2.0 * (x.rotation - y.rotation)
                .length()
                .min((x.rotation + y.rotation).length())
        })
        .fold(0.0, f32::max)
}

#[test]
fn on_a_node_the_blend_is_that_clip() {
    let model = animtune::demo::mannequin::load();
    let mut space = default_blend_space();
    space.root_motion = RootMotion::Keep;
    for node in &space.nodes {
        let p = DVec2::from_array(node.position);
        let (pose, _, cycle) = blend(&model, &space, p, 0.3);
        let clip = model.clips.iter().find(|c| c.name == node.clip).unwrap();
        assert!((cycle - clip.duration).abs() < 1e-6, "{}", node.clip);
        let want = clip_pose(&model, &node.clip, 0.3 * clip.duration);
        let d = max_rotation_difference(&pose, &want);
        assert!(d < 1e-4, "{}: {d}", node.clip);
        for (a, b) in pose.local.iter().zip(&want.local) {
            assert!(
                a.translation.abs_diff_eq(b.translation, 1e-5),
                "{}",
                node.clip
            );
        }
    }
}

#[test]
fn halfway_between_two_clips_is_their_normalized_mean() {
    let model = animtune::demo::mannequin::load();
    let mut space = default_blend_space();
    space.root_motion = RootMotion::Keep;
    // Walk (0, 1.4) and run (0, 3.5) alone: at (0, 2.45) the pair is purely radial → 50/50.
    space
        .nodes
        .retain(|n| n.clip == "WalkForward" || n.clip == "RunForward");
    let p = DVec2::new(0.0, 2.45);
    let w = space.weights_at(p);
    let walk = space
        .nodes
        .iter()
        .position(|n| n.clip == "WalkForward")
        .unwrap();
    let run = space
        .nodes
        .iter()
        .position(|n| n.clip == "RunForward")
        .unwrap();
    assert!(
        (w[walk] - 0.5).abs() < 1e-9 && (w[run] - 0.5).abs() < 1e-9,
        "{w:?}"
    );
    let (pose, _, cycle) = blend(&model, &space, p, 0.25);
    let (dw, dr) = (1.1f32, 0.7f32);
    assert!((cycle - 0.5 * (dw + dr)).abs() < 1e-6, "{cycle}");
    let a = clip_pose(&model, "WalkForward", 0.25 * dw);
    let b = clip_pose(&model, "RunForward", 0.25 * dr);
    let knee = model
        .character
        .humanoid
        .joint(HumanBone::LeftLowerLeg)
        .unwrap();
    let (qa, qb) = (a.local[knee].rotation, b.local[knee].rotation);
    let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
    let want = (qa + qb).normalize();
    let q = pose.local[knee].rotation;
    assert!((q - want).length().min((q + want).length()) < 1e-6);
    let mid = (a.local[0].translation + b.local[0].translation) * 0.5;
    assert!(pose.local[0].translation.abs_diff_eq(mid, 1e-5));
}

#[test]
fn in_place_removes_travel_and_keep_keeps_it() {
    let model = animtune::demo::mannequin::load();
    let s = &model.character.skeleton;
    let hips = model.character.humanoid.joint(HumanBone::Hips).unwrap();
    let mut space = default_blend_space();
    let p = DVec2::new(0.0, 1.4);
    let hips_at = |space: &BlendSpace, phase: f32| {
        let (pose, _, _) = blend(&model, space, p, phase);
        pose.model_matrices(s)[hips].w_axis.truncate()
    };
    space.root_motion = RootMotion::InPlace;
    let start = hips_at(&space, 0.0);
    let end = hips_at(&space, 1.0);
    let mid = hips_at(&space, 0.5);
    assert!(Vec3::new(end.x - start.x, 0.0, end.z - start.z).length() < 1e-4);
    assert!((mid.z - start.z).abs() < 0.02, "in place: {mid} vs {start}");
    space.root_motion = RootMotion::Keep;
    let travel = hips_at(&space, 1.0) - hips_at(&space, 0.0);
    assert!((travel.z - 1.4 * 1.1).abs() < 1e-3, "kept travel {travel}");
}

#[test]
fn every_point_of_the_default_space_gives_a_finite_normalized_pose() {
    let model = animtune::demo::mannequin::load();
    let space = default_blend_space();
    for x in [-2.0, -0.7, 0.0, 0.4, 2.0] {
        for y in [-2.0, -0.3, 0.0, 1.0, 2.8, 4.0] {
            let (pose, _, cycle) = blend(&model, &space, DVec2::new(x, y), 0.6);
            assert!(cycle > 0.0);
            for t in &pose.local {
                assert!(t.is_finite());
                assert!((t.rotation.length() - 1.0).abs() < 1e-5);
            }
        }
    }
}

#[test]
fn quaternius_locomotion_blends_walk_and_jog() {
    let model = animtune::import::load_file(&common::quaternius()).unwrap();
    let path = common::preset("quaternius_locomotion.json");
    let space = animtune::preset::load_blend_space(&path).unwrap();
    let w = space.weights();
    // 2.2 between Walk (1.4) and Jog (3.0): 0.5 each.
    assert!(
        (w[1] - 0.5).abs() < 1e-9 && (w[2] - 0.5).abs() < 1e-9,
        "{w:?}"
    );
    let (pose, sampler, cycle) = blend(&model, &space, space.point(), 0.4);
    let durations: Vec<f32> = ["Walk_Loop", "Jog_Fwd_Loop"]
        .iter()
        .map(|n| model.clips.iter().find(|c| &c.name == n).unwrap().duration)
        .collect();
    assert!((cycle - 0.5 * (durations[0] + durations[1])).abs() < 1e-5);
    let walk = clip_pose(&model, "Walk_Loop", 0.4 * durations[0]);
    let jog = clip_pose(&model, "Jog_Fwd_Loop", 0.4 * durations[1]);
    let between = max_rotation_difference(&walk, &jog);
    let to_walk = max_rotation_difference(&pose, &walk);
    let to_jog = max_rotation_difference(&pose, &jog);
    assert!(
        to_walk > 0.1 * between && to_jog > 0.1 * between,
        "{to_walk} {to_jog} {between}"
    );
    assert!(to_walk < between && to_jog < between);
    assert_eq!(sampler.node_clips().iter().flatten().count(), 4);
}

#[test]
fn fox_walk_run_blends_by_path_binding_without_a_humanoid() {
    let model = animtune::import::load_file(&common::asset("Fox.glb")).unwrap();
    let path = common::preset("fox_walk_run.json");
    let space = animtune::preset::load_blend_space(&path).unwrap();
    let (pose, sampler, cycle) = blend(&model, &space, space.point(), 0.5);
    assert!(sampler.binding(0).unwrap().unbound_tracks.is_empty());
    assert!(cycle > 0.7 && cycle < 1.2, "{cycle}");
    let walk = clip_pose(&model, "Walk", 0.5 * 0.7083);
    assert!(max_rotation_difference(&pose, &walk) > 1e-3);
    assert!(pose.local.iter().all(|t| t.is_finite()));
}

#[test]
fn missing_clips_are_reported_and_skipped() {
    let model = animtune::demo::mannequin::load();
    let mut space = default_blend_space();
    space.nodes[1].clip = "NoSuchClip".into();
    let sampler = BlendSampler::bind(&space, &model.clips, &model.character);
    assert_eq!(sampler.missing(), &[(1, "NoSuchClip".to_string())]);
    let w = space.weights_at(DVec2::new(0.0, 1.4));
    assert_eq!(sampler.effective_weights(&w), vec![]);
    let w = space.weights_at(DVec2::new(0.0, 0.7));
    assert!(w[1] > 0.1, "{w:?}");
    let eff = sampler.effective_weights(&w);
    assert!(eff.iter().all(|&(i, _)| i != 1));
    assert!((eff.iter().map(|e| e.1).sum::<f32>() - 1.0).abs() < 1e-6);
}
