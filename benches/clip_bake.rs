//! Baking, encoding and decoding clips of the Quaternius rig (53 joints, 46 clips).

use std::hint::black_box;
use std::path::Path;

use animtune::clipfile::{self, unity};
use animtune::import::load_file;
use animtune::offline::frames::prepare;
use animtune::offline::{BakeSettings, ExportFormat, bake_clip, encode};
#[path = "../tests/common/mod.rs"]
mod common;

use common::assets_dir as assets;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let model = load_file(&assets().join("quaternius_ual/AnimationLibrary_Godot_Standard.gltf"))
        .expect("the Quaternius asset in assets/");
    let ch = &model.character;
    let settings = BakeSettings::default();
    let walk = model
        .clips
        .iter()
        .find(|c| c.name == "Walk_Loop")
        .expect("Walk_Loop clip");

    c.bench_function("bake Walk_Loop (1.33 s, 30 fps, 0.01 cm)", |b| {
        b.iter(|| bake_clip(ch, black_box(walk), ExportFormat::Native, &settings))
    });

    let mut group = c.benchmark_group("all 46 clips");
    group.sample_size(10);
    group.bench_function("bake native", |b| {
        b.iter(|| {
            for clip in &model.clips {
                black_box(bake_clip(ch, clip, ExportFormat::Native, &settings));
            }
        })
    });
    let prepared: Vec<_> = model
        .clips
        .iter()
        .map(|clip| prepare(&ch.skeleton, Some(&ch.humanoid), clip, &settings))
        .collect();
    group.bench_function("bake Unity layout", |b| {
        b.iter(|| {
            for (frames, meta) in &prepared {
                black_box(encode(
                    ch,
                    frames,
                    meta,
                    ExportFormat::Unity,
                    false,
                    &settings,
                ));
            }
        })
    });
    let baked: Vec<_> = prepared
        .iter()
        .map(|(frames, meta)| encode(ch, frames, meta, ExportFormat::Native, false, &settings))
        .collect();
    let native_bytes: usize = baked.iter().map(|b| b.bytes.len()).sum();
    group.throughput(Throughput::Bytes(native_bytes as u64));
    group.bench_function("encode native", |b| {
        b.iter(|| {
            for x in &baked {
                black_box(animtune::offline::encode::native::encode(&x.clip, true));
            }
        })
    });
    group.bench_function("decode native", |b| {
        b.iter(|| {
            for x in &baked {
                black_box(clipfile::decode(&x.bytes, Path::new("bench")).unwrap());
            }
        })
    });
    let unity_files: Vec<Vec<u8>> = baked
        .iter()
        .map(|x| {
            use animtune::offline::encode::unity as encode;
            encode::encode(&encode::from_baked(&x.clip, unity::UnityAxes::Unity).0)
        })
        .collect();
    group.throughput(Throughput::Bytes(
        unity_files.iter().map(Vec::len).sum::<usize>() as u64,
    ));
    group.bench_function("decode Unity layout", |b| {
        b.iter(|| {
            for bytes in &unity_files {
                black_box(clipfile::decode(bytes, Path::new("bench")).unwrap());
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
