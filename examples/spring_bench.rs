//! Our side of the paired spring-bone benchmark against three-vrm (`scripts/bench-springs.sh`): one update of every
//! spring of a VRM (the springs layer: local → world matrices of the pose, then three-vrm's joint step for each
//! joint), with a VRM Animation playing at 60 fps, as `scripts/springs_bench_threevrm.mjs` times
//! `springBoneManager.update` on the same files.
//!
//!   spring_bench MODEL.vrm CLIP.vrma [updates]
//!
//! Prints `SPRINGS <joints> <ns per update>`: the time of `updates` calls in a row on this thread's CPU clock
//! (the pose's copy into the layer's buffer included) divided by their number, after as many warm-up calls. The
//! clock is read once per run: on this virtual machine a read costs about 0.5 µs, a fifth of an update.

use std::hint::black_box;

use animtune::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use animtune::import::{load_clips, load_file};
use animtune::layers::{LayerParams, SpringParams, SpringRig, SpringState};
use glam::Mat4;

#[path = "support/thread_clock.rs"]
#[allow(dead_code)] // the shared timing loop; this bench times one run of its own
mod thread_clock;
use thread_clock::thread_cpu_ns;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(model), Some(clip)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: spring_bench MODEL.vrm CLIP.vrma [updates]");
        std::process::exit(2);
    };
    let updates: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(20_000);
    let model = load_file(model.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let clips = load_clips(clip.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let c = &model.character;
    // The clip's poses at 60 fps (springs off), then the springs stepped over them.
    let mut ev = Evaluator::new(c, &clips, SourceSpec::Clip(0), LayerParams::off());
    let frames: Vec<_> = (0..240)
        .map(|k| {
            ev.evaluate(&EvalInput {
                clock: ClockStep::Continue(k as f32 / 60.0),
                ..EvalInput::default()
            })
            .local
            .local
            .clone()
        })
        .collect();
    let params = SpringParams::default();
    let rig = SpringRig::bind(&params, c);
    let mut state = SpringState::default();
    let mut local = frames[0].clone();
    let mut step = |k: usize| {
        local.copy_from_slice(&frames[k % frames.len()]);
        rig.apply(
            &params,
            &c.skeleton,
            Mat4::IDENTITY,
            animtune::layers::Step::Advance(1.0 / 60.0),
            &mut state,
            black_box(&mut local),
        );
    };
    for k in 0..updates {
        step(k);
    }
    let t0 = thread_cpu_ns();
    for k in 0..updates {
        step(k);
    }
    let total = thread_cpu_ns() - t0;
    println!(
        "SPRINGS {} {:.0}",
        rig.joint_infos().len(),
        total / updates as f64
    );
}
