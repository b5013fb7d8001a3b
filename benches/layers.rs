//! The procedural layer stack (breath → look-at → twist) on a sampled pose.

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

fn bench(c: &mut Criterion) {
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
