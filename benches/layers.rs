//! The procedural layer stack (breath → look-at → twist) on a sampled pose; spring bones; morph weights.

use std::hint::black_box;

use animtune::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use animtune::import::{ImportedModel, load_file};
use animtune::layers::LayerParams;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
#[path = "../tests/common/mod.rs"]
mod common;

fn bench_model(c: &mut Criterion, label: &str, model: &ImportedModel, clip: &str) {
    let index = model
        .clips
        .iter()
        .position(|c| c.name == clip)
        .expect("clip");
    let mut params = LayerParams::default();
    params.look_at.enabled = true;
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Clip(index),
        params,
    );
    let seek = EvalInput {
        clock: ClockStep::Seek(0.5),
        ..EvalInput::default()
    };
    let base = ev.evaluate(&seek).local.local.clone();
    c.bench_function(&format!("layer stack, {label}"), |b| {
        b.iter(|| ev.layers_only(black_box(&base), 1.0 / 60.0))
    });
    ev.play();
    let mut t = 0.0f32;
    c.bench_function(
        &format!("sample + layer stack + local to model, {label}"),
        |b| {
            b.iter(|| {
                t += 1.0 / 60.0;
                let input = EvalInput {
                    clock: ClockStep::Advance(1.0 / 60.0),
                    look_target: Some(Vec3::new(t.sin(), 1.6, 1.5)),
                    ..EvalInput::default()
                };
                black_box(ev.evaluate(&input).model.len())
            })
        },
    );
}

/// One spring update of a VRM (the springs layer on a pose of three-vrm's test clip), and a whole evaluation with
/// springs while playing.
fn bench_springs(c: &mut Criterion, label: &str, file: &str) {
    let model = load_file(&common::asset(file)).expect("the VRM in assets/");
    let clips =
        animtune::import::load_clips(&common::asset("three-vrm_test.vrma")).expect("the VRMA");
    let ch = &model.character;
    let mut ev = Evaluator::new(ch, &clips, SourceSpec::Clip(0), LayerParams::off());
    let pose = ev
        .evaluate(&EvalInput {
            clock: ClockStep::Seek(1.0),
            ..EvalInput::default()
        })
        .local
        .local
        .clone();
    let params = animtune::layers::SpringParams::default();
    let rig = animtune::layers::SpringRig::bind(&params, ch);
    let mut state = animtune::layers::SpringState::default();
    let mut local = pose.clone();
    c.bench_function(&format!("spring update, {label}"), |b| {
        b.iter(|| {
            local.copy_from_slice(&pose);
            rig.apply(
                &params,
                &ch.skeleton,
                glam::Mat4::IDENTITY,
                animtune::layers::Step::Advance(1.0 / 60.0),
                &mut state,
                black_box(&mut local),
            );
        })
    });
    let mut layers = LayerParams::off();
    layers.springs.enabled = true;
    ev.set_layers(ch, &clips, &layers);
    ev.play();
    c.bench_function(
        &format!("sample + springs + local to model, {label}"),
        |b| {
            b.iter(|| {
                let input = EvalInput {
                    clock: ClockStep::Advance(1.0 / 60.0),
                    ..EvalInput::default()
                };
                black_box(ev.evaluate(&input).model.len())
            })
        },
    );
}

/// Morph weights of RobotExpressive: its Wave clip's morph tracks on three meshes, plus an expression.
fn bench_morph(c: &mut Criterion) {
    let model =
        load_file(&common::asset("RobotExpressive.glb")).expect("RobotExpressive in assets/");
    let index = model
        .clips
        .iter()
        .position(|c| c.name == "Wave")
        .expect("Wave");
    let mut layers = LayerParams::off();
    layers.expressions.insert("Surprised".into(), 0.5);
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Clip(index),
        layers,
    );
    ev.play();
    c.bench_function(
        "sample + morph weights + expression, RobotExpressive",
        |b| {
            b.iter(|| {
                let input = EvalInput {
                    clock: ClockStep::Advance(1.0 / 60.0),
                    ..EvalInput::default()
                };
                black_box(ev.evaluate(&input).morph_weights.len())
            })
        },
    );
}

fn bench(c: &mut Criterion) {
    bench_springs(c, "secondary_test.vrm (6 joints)", "vrm/secondary_test.vrm");
    bench_springs(c, "Godette (16 joints)", "Godette_vrm_v4.vrm");
    bench_morph(c);
    let mannequin = animtune::demo::mannequin::load();
    bench_model(
        c,
        "mannequin (62 joints, 8 twist pairs)",
        &mannequin,
        "WalkForward",
    );
    let q = load_file(&common::quaternius()).expect("the Quaternius asset in assets/");
    bench_model(c, "Quaternius (53 joints)", &q, "Walk_Loop");
}

criterion_group!(benches, bench);
criterion_main!(benches);
