//! The procedural layer stack (breath → look-at → twist) on a sampled pose.

use std::hint::black_box;

use animtune::core::{Pose, Wrap};
use animtune::import::{ImportedModel, load_file};
use animtune::layers::{LayerParams, LayerRig, LookAtState};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
#[path = "../tests/common/mod.rs"]
mod common;

fn bench_model(c: &mut Criterion, label: &str, model: &ImportedModel, clip: &str) {
    let ch = &model.character;
    let s = &ch.skeleton;
    let clip = model.clips.iter().find(|c| c.name == clip).expect("clip");
    let binding = clip.bind(s, Some(&ch.humanoid));
    let mut params = LayerParams::default();
    params.look_at.enabled = true;
    let rig = LayerRig::bind(&params, ch);
    let mut base = Pose::rest(s);
    clip.sample_into(&binding, 0.5, Wrap::Loop, &mut base);
    let mut pose = base.clone();
    let mut state = LookAtState::default();
    let mut t = 0.0f32;
    c.bench_function(&format!("layer stack, {label}"), |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            pose.local.copy_from_slice(&base.local);
            let target = Vec3::new(t.sin(), 1.6, 1.5);
            rig.apply(
                &params,
                ch,
                black_box(t),
                Some(1.0 / 60.0),
                Some(target),
                &mut state,
                &mut pose,
            )
        })
    });
    let mut full = Pose::rest(s);
    c.bench_function(&format!("sample + layer stack, {label}"), |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            full.reset_to_rest(s);
            clip.sample_into(&binding, t, Wrap::Loop, &mut full);
            let target = Vec3::new(t.sin(), 1.6, 1.5);
            rig.apply(
                &params,
                ch,
                black_box(t),
                Some(1.0 / 60.0),
                Some(target),
                &mut state,
                &mut full,
            )
        })
    });
}

fn bench(c: &mut Criterion) {
    let mannequin = animtune::demo::mannequin::load();
    bench_model(
        c,
        "mannequin (62 joints, 8 twist pairs)",
        &mannequin,
        "WalkForward",
    );
    let q =
        load_file(&common::quaternius()).expect("the Quaternius asset (set ANIMTUNE_TEST_ASSETS)");
    bench_model(c, "Quaternius (53 joints)", &q, "Walk_Loop");
}

criterion_group!(benches, bench);
criterion_main!(benches);
