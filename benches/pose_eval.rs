//! Sampling a clip and computing model-space matrices for the Quaternius 53-joint rig: the runtime jobs the
//! Evaluator runs, and the reference sampler (`Clip::sample_into`) that the bake error metric measures against.

use std::hint::black_box;

use animtune::core::{Pose, Transform, Wrap};
use animtune::import::load_file;
use animtune::runtime::{Animation, LocalToModelJob, SamplingContext, SamplingJob};
#[path = "../tests/common/mod.rs"]
mod common;

use common::assets_dir as assets;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::Mat4;

fn bench(c: &mut Criterion) {
    let model = load_file(&assets().join("quaternius_ual/AnimationLibrary_Godot_Standard.gltf"))
        .expect("the Quaternius asset in assets/");
    let skel = &model.character.skeleton;
    let clip = model
        .clips
        .iter()
        .find(|c| c.name == "Walk_Loop")
        .expect("Walk_Loop clip");
    let (animation, binding) = Animation::bind(clip, skel, Some(&model.character.humanoid));
    let mut context = SamplingContext::for_animation(&animation);
    let duration = animation.duration();
    let mut local = vec![Transform::IDENTITY; skel.len()];
    let mut model_m = vec![Mat4::IDENTITY; skel.len()];
    let mut t = 0.0f32;
    let mut sample = |t: f32, local: &mut [Transform]| {
        SamplingJob {
            animation: &animation,
            context: &mut context,
            time: t % duration,
            output: local,
        }
        .run()
        .expect("valid sampling job");
    };

    c.bench_function("sample Walk_Loop (53 joints, runtime)", |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            sample(black_box(t), &mut local);
        })
    });
    c.bench_function("local to model (53 joints, runtime)", |b| {
        b.iter(|| {
            LocalToModelJob::all(skel, black_box(&local), &mut model_m)
                .run()
                .expect("valid job")
        })
    });
    c.bench_function("sample + local to model (53 joints, runtime)", |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            sample(black_box(t), &mut local);
            LocalToModelJob::all(skel, &local, &mut model_m)
                .run()
                .expect("valid job");
            black_box(&model_m);
        })
    });
    let mut pose = Pose::rest(skel);
    c.bench_function("sample Walk_Loop (53 joints, reference sampler)", |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            clip.sample_into(&binding, black_box(t), Wrap::Loop, &mut pose);
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
