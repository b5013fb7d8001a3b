//! Sampling a clip and computing model-space matrices for the Quaternius 53-joint rig.

use std::hint::black_box;

use animtune::core::{Pose, Wrap};
use animtune::import::load_file;
#[path = "../tests/common/mod.rs"]
mod common;

use common::assets_dir as assets;
use criterion::{Criterion, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let model = load_file(&assets().join("quaternius_ual/AnimationLibrary_Godot_Standard.gltf"))
        .expect("the Quaternius asset (set ANIMTUNE_TEST_ASSETS)");
    let skel = &model.character.skeleton;
    let clip = model
        .clips
        .iter()
        .find(|c| c.name == "Walk_Loop")
        .expect("Walk_Loop clip");
    let binding = clip.bind(skel, Some(&model.character.humanoid));
    let mut pose = Pose::rest(skel);
    let mut model_m = Vec::new();
    let mut t = 0.0f32;

    c.bench_function("sample Walk_Loop (53 joints)", |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            clip.sample_into(&binding, black_box(t), Wrap::Loop, &mut pose);
        })
    });
    c.bench_function("local to model (53 joints)", |b| {
        b.iter(|| black_box(&pose).model_matrices_into(skel, &mut model_m))
    });
    c.bench_function("sample + local to model (53 joints)", |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            clip.sample_into(&binding, black_box(t), Wrap::Loop, &mut pose);
            pose.model_matrices_into(skel, &mut model_m);
            black_box(&model_m);
        })
    });
    c.bench_function("import Quaternius .gltf (53 joints, 46 clips)", |b| {
        b.iter(|| {
            load_file(&assets().join("quaternius_ual/AnimationLibrary_Godot_Standard.gltf"))
                .unwrap()
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
