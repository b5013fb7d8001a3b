//! The passes that repair clips, over the 46 Quaternius clips (53 joints): root motion extracted from the hips
//! onto the root joint (XZ and yaw), the loop seam fixed (0.3 s each side), and the foot skate cleaned up; and
//! the retarget IK goals on the clips retargeted onto the mannequin: played at 60 fps with and without foot goals
//! (bound once per clip, as a player binds them), and keyed into each clip as a bake does. BENCHMARKS.md gives the
//! time per second of clip.

use std::hint::black_box;

use animtune::analysis::contacts::ContactSettings;
use animtune::core::clip_pass::{LoopFix, RootBasis, RootComponents, RootLock, RootPass, SkateFix};
use animtune::import::load_file;
use animtune::offline::loop_seam::fix_loop;
use animtune::offline::root_pass::run_root_pass;
use animtune::offline::skate_fix::fix_skate;
#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{Criterion, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let model = load_file(
        &common::assets_dir().join("quaternius_ual/AnimationLibrary_Godot_Standard.gltf"),
    )
    .expect("the Quaternius asset in assets/");
    let ch = &model.character;
    let seconds: f32 = model.clips.iter().map(|c| c.duration).sum();
    println!("46 clips, {seconds:.3} s of clip in all");
    let extract = RootPass::Extract {
        components: RootComponents::TRAVEL_AND_TURN,
        basis: RootBasis::Hips,
        lock: RootLock::Reference,
    };
    let mut group = c.benchmark_group("all 46 clips");
    group.sample_size(10);
    group.bench_function("extract root motion (xz, yaw, from the hips)", |b| {
        b.iter(|| {
            for clip in &model.clips {
                black_box(run_root_pass(ch, clip, &extract).expect("the pass runs"));
            }
        })
    });
    let fix = LoopFix::default();
    group.bench_function("fix loop seam (0.3 s each side)", |b| {
        b.iter(|| {
            for clip in &model.clips {
                black_box(fix_loop(ch, clip, &fix).expect("the fix runs"));
            }
        })
    });
    // The clips whose legs the meter can track (all but the poses too short to sample).
    let contact = ContactSettings::default();
    let skate = SkateFix::default();
    group.bench_function("fix foot skate (0.15 s easing, no stretch)", |b| {
        b.iter(|| {
            for clip in &model.clips {
                let _ = black_box(fix_skate(ch, clip, &skate, &contact));
            }
        })
    });
    // The clips retargeted onto the mannequin, with and without foot goals.
    let mannequin = animtune::demo::mannequin::load().character;
    let mut with_goals = mannequin.clone();
    with_goals.humanoid.ik_goals = animtune::core::IkGoals::parse_chains("feet").expect("feet");
    let frames = |clip: &animtune::core::Clip| -> Vec<f32> {
        (0..=(clip.duration * 60.0) as usize)
            .map(|i| i as f32 / 60.0)
            .collect()
    };
    for (name, character) in [
        ("play retargeted at 60 fps, no goals", &mannequin),
        ("play retargeted at 60 fps, foot goals", &with_goals),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                for clip in &model.clips {
                    black_box(animtune::offline::frames::sample_frames(
                        clip,
                        &character.skeleton,
                        Some(&character.humanoid),
                        frames(clip),
                    ));
                }
            })
        });
    }
    group.bench_function("key foot goals into the clip (as a bake does)", |b| {
        b.iter(|| {
            for clip in &model.clips {
                let _ = black_box(animtune::offline::goal_keys::key_goals(&with_goals, clip));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
