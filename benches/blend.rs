//! Blend spaces: weights per sample, influence maps, and a blended pose.

use std::hint::black_box;

use animtune::blend::{BlendMode, BlendSampler, BlendSpace, heatmap};
use animtune::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};

use animtune::import::load_file;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::DVec2;
#[path = "../tests/common/mod.rs"]
mod common;

/// A locomotion-like layout: an idle at the origin, then rings of nodes at growing speeds.
fn layout(n: usize) -> Vec<DVec2> {
    let mut out = vec![DVec2::ZERO];
    let per_ring = 8;
    for k in 0..n - 1 {
        let ring = (k / per_ring) as f64 + 1.0;
        let a = (k % per_ring) as f64 * std::f64::consts::TAU / per_ring as f64 + 0.1 * ring;
        out.push(DVec2::new(a.cos(), a.sin()) * 1.3 * ring);
    }
    out
}

fn bench(c: &mut Criterion) {
    let nodes8 = layout(8);
    let p = DVec2::new(0.4, 0.9);
    let mut out = Vec::new();
    for mode in BlendMode::ALL {
        c.bench_function(&format!("weights, 8 nodes, {}", mode.as_str()), |b| {
            b.iter(|| animtune::blend::compute_weights(mode, &nodes8, black_box(p), &mut out))
        });
    }
    let mut group = c.benchmark_group("heatmap 256x256");
    group.sample_size(20);
    for mode in [BlendMode::FreeformDirectional, BlendMode::FreeformCartesian] {
        for n in [8, 16, 32] {
            let nodes = layout(n);
            let extent = DVec2::splat(4.5);
            group.bench_with_input(BenchmarkId::new(mode.as_str(), n), &nodes, |b, nodes| {
                b.iter(|| heatmap::compute(mode, nodes, -extent, extent, 256))
            });
        }
    }
    group.finish();
    // Issue 40's goal: a 32-node Freeform Directional map at 512 x 512 within 16 ms.
    let mut group = c.benchmark_group("heatmap 512x512");
    group.sample_size(20);
    for mode in [BlendMode::FreeformDirectional, BlendMode::FreeformCartesian] {
        let nodes = layout(32);
        let extent = DVec2::splat(4.5);
        group.bench_with_input(BenchmarkId::new(mode.as_str(), 32), &nodes, |b, nodes| {
            b.iter(|| heatmap::compute(mode, nodes, -extent, extent, 512))
        });
    }
    group.finish();

    let model = load_file(&common::quaternius()).expect("the Quaternius asset in assets/");
    let space: BlendSpace = serde_json::from_str(
        r#"{"mode":"freeform_cartesian","nodes":[
            {"clip":"Idle_Loop","position":[0,0]},{"clip":"Walk_Loop","position":[0,1.4]},
            {"clip":"Jog_Fwd_Loop","position":[0,3]},{"clip":"Sprint_Loop","position":[0,5.5]}],
            "root_motion":"in_place"}"#,
    )
    .unwrap();
    let sampler = BlendSampler::bind(&space, &model.clips, &model.character);
    assert!(sampler.missing().is_empty());
    let mut space = space;
    space.set_point([0.0, 2.0]);
    let layers = animtune::layers::LayerParams::off();
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Blend(space),
        layers,
    );
    ev.play();
    let step = EvalInput {
        clock: ClockStep::Advance(1.0 / 60.0),
        ..EvalInput::default()
    };
    c.bench_function(
        "blended pose + local to model, 2 of 4 clips x 53 joints",
        |b| b.iter(|| black_box(ev.evaluate(&step).model.len())),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
