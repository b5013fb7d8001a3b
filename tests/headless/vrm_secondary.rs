//! A VRM's secondary motion: spring bones and expressions read from VRM files as three-vrm 3.5.5's loaders read
//! them (`VRMSpringBoneLoaderPlugin`, `VRMExpressionLoaderPlugin`), and springs stepped through the Evaluator's
//! clock rules. The motion and the weights themselves are checked against three-vrm in node
//! (`scripts/springs_threevrm.mjs`, `scripts/expressions_threevrm.mjs`, run by `scripts/test.sh`).

use animtune::core::spring::{ColliderShape, SpringSource};
use animtune::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use animtune::import::load_file;
use animtune::layers::LayerParams;
use glam::Vec3;

use crate::common::asset;

/// Godette's `secondaryAnimation`: three bone groups whose bones and every node below them are joints (a leaf
/// gets a virtual tail), two collider groups of spheres with z negated, `stiffiness` read as stiffness.
#[test]
fn godette_vrm0_bone_groups_become_joints_down_to_their_leaves() {
    let model = load_file(&asset("Godette_vrm_v4.vrm")).unwrap();
    let c = &model.character;
    let s = &c.springs;
    assert_eq!(s.source, SpringSource::Vrm0);
    let joints: Vec<usize> = s.springs.iter().map(|g| g.joints.len()).collect();
    assert_eq!(joints, [8, 2, 6]);
    let ribbon = &s.springs[1].joints;
    assert_eq!(c.skeleton.name(ribbon[0].joint), "Ribbon");
    assert_eq!(
        ribbon[0].tail.map(|t| c.skeleton.name(t)),
        Some("Ribbon_end")
    );
    assert_eq!(ribbon[1].tail, None, "a leaf has a virtual tail");
    assert_eq!(ribbon[0].settings.stiffness, 2.0);
    assert_eq!(s.springs[2].joints[0].settings.drag_force, 0.1);
    assert_eq!(s.colliders.len(), 4);
    // The file's first collider: offset (0, 0.06, -0.04) on chest_Armature, radius 0.1.
    let first = s.colliders[0];
    assert_eq!(c.skeleton.name(first.joint), "chest_Armature");
    let ColliderShape::Sphere { offset, radius, .. } = first.shape else {
        panic!("VRM 0.x colliders are spheres");
    };
    assert!(
        offset.distance(Vec3::new(0.0, 0.06, 0.04)) < 1e-6,
        "{offset}"
    );
    assert!((radius - 0.1).abs() < 1e-6);
    assert_eq!(s.springs[0].collider_groups, [1]);
}

/// secondary_test.vrm's `VRMC_springBone`: each joint but a spring's last is a spring joint toward the next; the
/// center node, capsules and a joint that leaves its properties out (three-vrm's defaults) are read.
#[test]
fn vrm1_springs_read_joints_centers_capsules_and_defaults() {
    let model = load_file(&asset("vrm/secondary_test.vrm")).unwrap();
    let c = &model.character;
    let s = &c.springs;
    assert_eq!(s.source, SpringSource::Vrm1);
    let names: Vec<Vec<(&str, Option<&str>)>> = s
        .springs
        .iter()
        .map(|g| {
            g.joints
                .iter()
                .map(|j| (c.skeleton.name(j.joint), j.tail.map(|t| c.skeleton.name(t))))
                .collect()
        })
        .collect();
    assert_eq!(
        names[0],
        [
            ("hair_1", Some("hair_2")),
            ("hair_2", Some("hair_3")),
            ("hair_3", Some("hair_end"))
        ]
    );
    assert_eq!(names[1].len(), 3);
    assert_eq!(
        s.springs[1].center.map(|j| c.skeleton.name(j)),
        Some("hips")
    );
    let defaults = s.springs[0].joints[2].settings;
    assert_eq!((defaults.stiffness, defaults.drag_force), (1.0, 0.4));
    assert_eq!(s.springs[0].joints[0].settings.gravity_power, 0.6);
    let capsules = s
        .colliders
        .iter()
        .filter(|c| matches!(c.shape, ColliderShape::Capsule { .. }))
        .count();
    assert_eq!((s.colliders.len(), capsules), (6, 4));
    assert!(
        !c.notes.iter().any(|n| n.contains("spring")),
        "{:?}",
        c.notes
    );
}

/// The Evaluator's clock rules: playing steps the springs (the hair swings away from where the clip puts it), a
/// seek resets them (the next pose has the spring joints where the clip and rest put them), and Hold steps
/// nothing.
#[test]
fn the_evaluator_steps_springs_while_playing_and_resets_them_on_a_seek() {
    let model = load_file(&asset("vrm/secondary_test.vrm")).unwrap();
    let clips = animtune::import::load_clips(&asset("three-vrm_test.vrma")).unwrap();
    let c = &model.character;
    let mut ev = Evaluator::new(c, &clips, SourceSpec::Clip(0), LayerParams::off());
    let mut layers = LayerParams::off();
    layers.springs.enabled = true;
    ev.set_layers(c, &clips, &layers);
    let hair = c.skeleton.find_by_name("hair_1").unwrap();
    let at = |ev: &mut Evaluator, clock| {
        ev.evaluate(&EvalInput {
            clock,
            ..Default::default()
        })
        .local
        .local[hair]
            .rotation
    };
    let rest = c.skeleton.rest()[hair].rotation;
    assert_eq!(at(&mut ev, ClockStep::Seek(0.5)), rest);
    ev.play();
    let mut swung = 0.0f32;
    for _ in 0..30 {
        swung = swung.max(at(&mut ev, ClockStep::Advance(1.0 / 30.0)).angle_between(rest));
    }
    assert!(swung > 0.05, "the hair swung {swung} rad");
    let held = at(&mut ev, ClockStep::Hold);
    assert_eq!(ev.layer_stage().spring_steps(), 0);
    assert_eq!(at(&mut ev, ClockStep::Hold), held);
    assert_eq!(at(&mut ev, ClockStep::Seek(0.5)), rest);
}

/// VRM 0.x blend shape groups become VRM 1.0 presets as three-vrm maps them (`joy` → `happy`, `a` → `aa`…), with
/// bind weights 0–100 scaled to 0–1.
#[test]
fn godette_blend_shape_groups_become_vrm1_presets() {
    let model = load_file(&asset("Godette_vrm_v4.vrm")).unwrap();
    let c = &model.character;
    assert!(c.vrm_expressions);
    let names: Vec<&str> = c.expressions.iter().map(|e| e.name.as_str()).collect();
    for preset in [
        "aa", "ih", "ou", "ee", "oh", "blink", "happy", "angry", "sad", "relaxed", "neutral",
    ] {
        assert!(names.contains(&preset), "{preset} missing from {names:?}");
    }
    let happy = c.expressions.iter().find(|e| e.name == "happy").unwrap();
    let binds: Vec<(usize, f32)> = happy.binds.iter().map(|b| (b.target, b.weight)).collect();
    assert_eq!(binds, [(9, 0.5), (10, 0.25)]);
}

/// VRM 1.0 expressions: presets and a custom one, binary and override flags, node-based binds; a material colour
/// bind is named in one warning.
#[test]
fn vrm1_expressions_read_binary_overrides_custom_and_warn_about_material_binds() {
    use animtune::core::expression::ExpressionOverride;
    let model = load_file(&asset("vrm/secondary_test.vrm")).unwrap();
    let c = &model.character;
    let by = |n: &str| c.expressions.iter().find(|e| e.name == n).unwrap();
    assert_eq!(c.expressions.len(), 7);
    let surprised = by("surprised");
    assert!(surprised.is_binary);
    assert_eq!(surprised.override_mouth, ExpressionOverride::Blend);
    assert_eq!(by("happy").override_blink, ExpressionOverride::Block);
    let smirk: Vec<(usize, f32)> = by("smirk")
        .binds
        .iter()
        .map(|b| (b.target, b.weight))
        .collect();
    assert_eq!(smirk, [(2, 0.3), (3, 0.4)]);
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("'angry'"), "{:?}", c.warnings);
}

/// The curves view's "+ springs" stage: on secondary_test.vrm with springs on, the ponytail's curve after the
/// springs differs from its curve before them (gravity pulls it down from its rest direction).
#[test]
fn the_curves_view_shows_what_the_springs_add() {
    use animtune::eval::curves::{Stage, joint_curves};
    let model = load_file(&asset("vrm/secondary_test.vrm")).unwrap();
    let clips = animtune::import::load_clips(&asset("three-vrm_test.vrma")).unwrap();
    let c = &model.character;
    let mut layers = LayerParams::off();
    layers.springs.enabled = true;
    let ev = Evaluator::new(c, &clips, SourceSpec::Clip(0), layers);
    let hair = c.skeleton.find_by_name("hair_1").unwrap();
    let times: Vec<f32> = (0..60).map(|k| k as f32 / 30.0).collect();
    let curves = joint_curves(&ev, c, &clips, None, hair, &times);
    let stages: Vec<Stage> = curves.stages.iter().map(|s| s.stage).collect();
    assert_eq!(stages, [Stage::Source, Stage::Springs]);
    let moved = curves.stages[0]
        .local
        .iter()
        .zip(&curves.stages[1].local)
        .map(|(a, b)| a.rotation.angle_between(b.rotation))
        .fold(0.0f32, f32::max);
    assert!(
        moved > 0.05,
        "the springs turned the hair by {moved} rad at most"
    );
}

/// Springs on any rig: a preset's chain by joint name swings the Fox's tail (its three tail joints) while it
/// walks.
#[test]
fn a_preset_chain_swings_the_fox_tail() {
    use animtune::layers::springs::SpringChain;
    let model = load_file(&asset("Fox.glb")).unwrap();
    let c = &model.character;
    let walk = model.clips.iter().position(|c| c.name == "Walk").unwrap();
    let mut layers = LayerParams::off();
    layers.springs.enabled = true;
    layers.springs.chains.push(SpringChain {
        name: "tail".into(),
        joints: ["b_Tail01_012", "b_Tail02_013", "b_Tail03_014"]
            .map(String::from)
            .to_vec(),
        settings: animtune::core::spring::SpringSettings {
            stiffness: 0.5,
            gravity_power: 0.5,
            ..Default::default()
        },
        ..SpringChain::default()
    });
    let mut ev = Evaluator::new(c, &model.clips, SourceSpec::Clip(walk), layers);
    assert!(ev.layer_stage().rig().springs.problems.is_empty());
    assert_eq!(ev.layer_stage().rig().springs.joint_infos().len(), 3);
    let tip = c.skeleton.find_by_name("b_Tail03_014").unwrap();
    let mut plain = Evaluator::new(c, &model.clips, SourceSpec::Clip(walk), LayerParams::off());
    ev.play();
    plain.play();
    let mut apart = 0.0f32;
    for _ in 0..60 {
        let step = EvalInput {
            clock: ClockStep::Advance(1.0 / 30.0),
            ..Default::default()
        };
        let a = ev.evaluate(&step).model[tip].w_axis;
        let b = plain.evaluate(&step).model[tip].w_axis;
        apart = apart.max((a - b).truncate().length());
    }
    // The Fox is in centimetres under a 0.01 scale: its tail tip moves by some centimetres.
    assert!(apart > 0.01, "the tail tip moved {apart} from the clip's");
}

/// An in-place clip still travels: with its travel taken out of the pose (root motion in place), the springs move
/// as they do with the travel kept, relative to the body (the world under the character is a treadmill).
#[test]
fn springs_feel_the_travel_an_in_place_clip_takes_out() {
    use animtune::blend::RootMotion;
    use animtune::layers::springs::SpringChain;
    let model = load_file(&crate::common::quaternius()).unwrap();
    let c = &model.character;
    let roll = model
        .clips
        .iter()
        .position(|c| c.name == "Roll_RM")
        .unwrap();
    let mut layers = LayerParams::off();
    layers.springs.enabled = true;
    layers.springs.chains.push(SpringChain {
        name: "arm".into(),
        joints: ["DEF-upper_arm.L", "DEF-forearm.L"]
            .map(String::from)
            .to_vec(),
        settings: animtune::core::spring::SpringSettings {
            stiffness: 0.2,
            drag_force: 0.1,
            ..Default::default()
        },
        ..SpringChain::default()
    });
    let hand = c.skeleton.find_by_name("DEF-hand.L").unwrap();
    let hips = c.skeleton.find_by_name("DEF-hips").unwrap();
    let offsets = |mode: RootMotion| {
        let mut ev = Evaluator::new(c, &model.clips, SourceSpec::Clip(roll), layers.clone());
        ev.source_mut().set_clip_root_motion(mode);
        ev.clock_mut().set_looping(false);
        ev.evaluate(&EvalInput {
            clock: ClockStep::Seek(0.0),
            ..Default::default()
        });
        ev.play();
        (0..40)
            .map(|_| {
                let m = &ev
                    .evaluate(&EvalInput {
                        clock: ClockStep::Advance(1.0 / 30.0),
                        ..Default::default()
                    })
                    .model;
                (m[hand].w_axis - m[hips].w_axis).truncate()
            })
            .collect::<Vec<_>>()
    };
    let (kept, in_place) = (offsets(RootMotion::Keep), offsets(RootMotion::InPlace));
    let worst = kept
        .iter()
        .zip(&in_place)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    assert!(
        worst < 1e-3,
        "the hand is {worst} m from where it swings with the travel kept"
    );
}
