//! CPU time of one editor frame (clip evaluation + the whole egui UI pass, no GPU) for two characters.

use std::hint::black_box;

use animtune::app::AnimtuneApp;
#[path = "../tests/common/mod.rs"]
mod common;

use common::assets_dir as assets;
use criterion::{Criterion, criterion_group, criterion_main};
use egui_kittest::Harness;

fn bench(c: &mut Criterion) {
    for (name, model) in [
        ("mannequin", None),
        (
            "RobotExpressive",
            Some(assets().join("RobotExpressive.glb")),
        ),
    ] {
        let mut h = Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .build_eframe(|cc| AnimtuneApp::new(cc, model.clone(), None));
        h.run_steps(3);
        assert!(
            h.state().editor().eval().clock().is_playing(),
            "{name} plays a clip"
        );
        c.bench_function(&format!("editor frame: evaluate + UI ({name})"), |b| {
            b.iter(|| {
                h.step();
                black_box(h.state().editor().eval().time());
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
