//! Our side of the paired runtime benchmark against ozz-animation-rs (`scripts/bench-vs-ozz.sh`): the same
//! operations, names and loop as peers/ozz/src/bench.rs, on the same Quaternius rig, plus the full stack, the
//! layer stack and the state-machine rows (a crossfade of two blend-space states, its budget measured as one
//! call, and a machine of one state).
//!
//!   runtime_bench GLTF [batches] [iters]
//!   runtime_bench --write-ozz GLTF DIR     (the rig and the four clips as ozz archives, for the peer)
//!
//! Prints `BENCH <name> <median ns per call> <min ns per call>` per operation, like the peer, timed on this
//! thread's CPU clock (`CLOCK_THREAD_CPUTIME_ID`: time the thread ran, not time another process took), and
//! `MEMORY <clip> <bytes>` per compiled clip.

use std::hint::black_box;

use animtune::core::{Character, Clip, Transform};
use animtune::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use animtune::runtime::{
    AdditiveLayer, Animation, BlendingJob, IkAimJob, IkTwoBoneJob, LocalToModelJob,
    SamplingContext, SamplingJob,
};
use glam::{Mat4, Quat, Vec3};

#[path = "support/ozz_archive.rs"]
mod ozz_archive;
#[path = "support/thread_clock.rs"]
mod thread_clock;
use thread_clock::bench;

struct Layer {
    anim: Animation,
    context: SamplingContext,
}

fn layer(character: &Character, clips: &[Clip], name: &str) -> Layer {
    let clip = clips
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no clip {name}"));
    let (anim, _) = Animation::bind(clip, &character.skeleton, Some(&character.humanoid));
    Layer {
        context: SamplingContext::for_animation(&anim),
        anim,
    }
}

fn sample(l: &mut Layer, time: f32, output: &mut [Transform]) {
    SamplingJob {
        animation: &l.anim,
        context: &mut l.context,
        time,
        output,
    }
    .run()
    .expect("valid sampling job");
}

/// Samples each of `layers` at `phase` of its length into `poses` (one after another) and blends them with
/// `weights` into `out`.
fn sample_and_blend(
    layers: &mut [Layer],
    phase: f32,
    poses: &mut [Transform],
    weights: &[f32],
    rest: &[Transform],
    out: &mut [Transform],
) {
    let n = rest.len();
    for (i, l) in layers.iter_mut().enumerate() {
        let t = phase * l.anim.duration();
        sample(l, t, &mut poses[i * n..(i + 1) * n]);
    }
    BlendingJob {
        poses,
        weights,
        masks: &[],
        additive: &[],
        rest,
        threshold: 0.1,
        output: out,
    }
    .run()
    .expect("valid blending job");
}

/// The full stack through the Evaluator: a blend of three clips, breath, look-at on, twist, local to model, skin.
fn full_stack(
    label: &str,
    model: &animtune::import::ImportedModel,
    clips: [&str; 3],
    batches: usize,
    iters: usize,
) {
    let mut layers = animtune::layers::LayerParams::default();
    layers.look_at.enabled = true;
    layers.look_at.target = [0.6, 1.5, 1.2];
    // A triangle of nodes with the point inside: all three clips contribute.
    let space = animtune::blend::BlendSpace {
        mode: animtune::blend::BlendMode::FreeformCartesian,
        nodes: [[0.0, 0.0], [-1.0, 1.5], [1.0, 2.0]]
            .iter()
            .zip(clips)
            .map(|(&position, clip)| animtune::blend::space::BlendNode {
                time_scale: 1.0,
                clip: clip.into(),
                position,
                ..Default::default()
            })
            .collect(),
        point: [0.0, 1.1],
        ..animtune::blend::BlendSpace::default()
    };
    let layers_for_machine = layers.clone();
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Blend(space.clone()),
        layers,
    );
    ev.play();
    let first = ev.evaluate(&EvalInput::default());
    let used = first.weights.iter().filter(|&&w| w > 1e-5).count();
    assert_eq!(used, 3, "{label}: weights {:?}", first.weights);
    let source = {
        let mut off = Evaluator::new(
            &model.character,
            &model.clips,
            SourceSpec::Clip(0),
            animtune::layers::LayerParams::off(),
        );
        off.evaluate(&EvalInput::default()).local.local.clone()
    };
    let step = EvalInput {
        clock: ClockStep::Advance(1.0 / 60.0),
        ..EvalInput::default()
    };
    bench(&format!("full stack ({label})"), batches, iters / 3, || {
        black_box(ev.evaluate(&step).model.last());
    });
    bench(&format!("layer stack ({label})"), batches, iters, || {
        black_box(ev.layers_only(&source, 1.0 / 60.0));
    });
    // Issue 41's budget: a state machine crossfading between two states that each play this 3-clip space (the
    // second at another point), under the same layers: the full stack plus one more blend-space sample.
    let mut other = space.clone();
    other.point = [0.3, 1.6];
    let playing_machine = |json: serde_json::Value| {
        let machine = serde_json::from_value(json).expect("a valid machine");
        let mut ev = Evaluator::new(
            &model.character,
            &model.clips,
            SourceSpec::StateMachine(machine),
            layers_for_machine.clone(),
        );
        ev.play();
        ev
    };
    let mut crossfade = playing_machine(serde_json::json!({
        "parameters": [{"name": "go", "type": "bool", "default": true}],
        "states": [{"name": "A", "blend_space": space}, {"name": "B", "blend_space": other}],
        "entry": "A",
        "transitions": [{"from": "A", "to": "B", "has_exit_time": false, "duration": 1.0e6,
                         "conditions": [{"parameter": "go", "mode": "if"}]}]
    }));
    crossfade.evaluate(&EvalInput::default());
    assert!(
        crossfade
            .source()
            .machine()
            .and_then(|m| m.active())
            .is_some(),
        "{label}: crossfading"
    );
    // The budget in one call, so that it meets the caches the crossfade meets: the full stack as above, then one
    // more sample of the space at the second state's point through the jobs alone (its three clips at that
    // point's phase and cycle, blended with its weights).
    let other_weights = other.weights();
    let other_cycle = animtune::blend::BlendSampler::bind(&other, &model.clips, &model.character)
        .cycle_length(&other_weights);
    let other_weights: Vec<f32> = other_weights.iter().map(|&w| w as f32).collect();
    assert!(
        other_weights.iter().all(|&w| w > 1e-5),
        "{label}: the second point weighs all three clips: {other_weights:?}"
    );
    let mut other_layers: Vec<Layer> = clips
        .iter()
        .map(|c| layer(&model.character, &model.clips, c))
        .collect();
    let n = model.character.skeleton.len();
    let mut other_poses = vec![Transform::IDENTITY; 3 * n];
    let mut other_out = vec![Transform::IDENTITY; n];
    let mut other_time = 0.0f32;
    bench(
        &format!("full stack + one blend-space sample ({label})"),
        batches,
        iters / 3,
        || {
            black_box(ev.evaluate(&step).model.last());
            other_time = (other_time + 1.0 / 60.0) % other_cycle;
            sample_and_blend(
                &mut other_layers,
                other_time / other_cycle,
                &mut other_poses,
                &other_weights,
                model.character.skeleton.rest(),
                &mut other_out,
            );
            black_box(other_out[0].translation.x);
        },
    );
    let mut one = playing_machine(serde_json::json!({
        "states": [{"name": "A", "blend_space": space}],
        "entry": "A",
    }));
    // The machine's own cost: one state playing the same space, against the full stack's blend-space source.
    bench(
        &format!("state machine one state ({label})"),
        batches,
        iters / 3,
        || {
            black_box(one.evaluate(&step).model.last());
        },
    );
    bench(
        &format!("state machine crossfade ({label})"),
        batches,
        iters / 3,
        || {
            black_box(crossfade.evaluate(&step).model.last());
        },
    );
}

/// Writes the rig's skeleton and the four benchmarked clips as ozz archives into `dir`, for peers/ozz.
fn write_ozz(path: &str, dir: &str) {
    let model = animtune::import::load_file(std::path::Path::new(path)).expect("loads the rig");
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).expect("creates the archive folder");
    let skeleton = &model.character.skeleton;
    ozz_archive::write_skeleton(skeleton, &dir.join("skeleton.ozz")).expect("writes skeleton.ozz");
    for name in CLIPS {
        let clip = model
            .clips
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no clip {name}"));
        ozz_archive::write_animation(clip, skeleton, &dir.join(format!("{name}.ozz")))
            .unwrap_or_else(|e| panic!("writes {name}.ozz: {e}"));
    }
}

/// The clips sampled and blended, in the order the rows use them.
const CLIPS: [&str; 4] = ["Walk_Loop", "Idle_Loop", "Jog_Fwd_Loop", "Sprint_Loop"];

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: runtime_bench GLTF [batches] [iters] | runtime_bench --write-ozz GLTF DIR";
    let path = args.next().expect(usage);
    if path == "--write-ozz" {
        let (rig, dir) = (args.next().expect(usage), args.next().expect(usage));
        return write_ozz(&rig, &dir);
    }
    let batches: usize = args.next().map_or(30, |a| a.parse().expect("batches"));
    let iters: usize = args.next().map_or(20000, |a| a.parse().expect("iters"));
    let model = animtune::import::load_file(std::path::Path::new(&path)).expect("loads the rig");
    let character = &model.character;
    let skeleton = &character.skeleton;
    let n = skeleton.len();
    let names = CLIPS;
    let mut layers: Vec<Layer> = names
        .iter()
        .map(|c| layer(character, &model.clips, c))
        .collect();
    println!(
        "animtune: {n} joints, Walk_Loop {:.3} s, {} animated channels",
        layers[0].anim.duration(),
        layers[0].anim.animated_channels()
    );
    for (name, l) in names.iter().zip(&layers) {
        println!("MEMORY {name} {}", l.anim.memory_bytes());
    }
    let mut models = vec![Mat4::IDENTITY; n];
    let mut blended = vec![Transform::IDENTITY; n];
    let mut poses = vec![Transform::IDENTITY; 4 * n];
    let dt = 1.0f32 / 60.0;
    let walk_d = layers[0].anim.duration();
    let mut t = 0.0f32;
    let mut locals = vec![Transform::IDENTITY; n];
    bench("sample Walk_Loop", batches, iters, || {
        t += dt;
        sample(&mut layers[0], t % walk_d, &mut locals);
        black_box(locals[0].translation.x);
    });
    // Extra rows (no ozz counterpart): the other clips of the blends, which animate far more channels.
    for i in 1..4 {
        let d = layers[i].anim.duration();
        let name = format!("sample {}", names[i]);
        let mut t = 0.0f32;
        bench(&name, batches, iters, || {
            t += dt;
            sample(&mut layers[i], t % d, &mut locals);
            black_box(locals[0].translation.x);
        });
    }
    let l2m = |input: &[Transform], models: &mut [Mat4]| {
        LocalToModelJob::all(skeleton, input, models)
            .run()
            .expect("valid local-to-model job");
        black_box(models[n - 1].w_axis.x);
    };
    bench("local to model", batches, iters, || {
        l2m(&locals, &mut models)
    });
    bench("sample Walk_Loop + local to model", batches, iters, || {
        t += dt;
        sample(&mut layers[0], t % walk_d, &mut locals);
        l2m(&locals, &mut models);
    });
    for count in [3usize, 4] {
        let cycle: f32 = layers[..count]
            .iter()
            .map(|l| l.anim.duration() / count as f32)
            .sum();
        let weights = vec![1.0 / count as f32; count];
        let mut bt = 0.0f32;
        let mut run = |with_l2m: bool| {
            bt = (bt + dt) % cycle;
            sample_and_blend(
                &mut layers[..count],
                bt / cycle,
                &mut poses[..count * n],
                &weights,
                skeleton.rest(),
                &mut blended,
            );
            if with_l2m {
                l2m(&blended, &mut models);
            } else {
                black_box(blended[0].translation.x);
            }
        };
        bench(
            &format!("{count} clips sampled + blend"),
            batches,
            iters / count,
            || run(false),
        );
        bench(
            &format!("{count} clips sampled + blend + local to model"),
            batches,
            iters / count,
            || run(true),
        );
    }
    // Partial blending, as ozz's partial_blend sample (and the same rows in peers/ozz/src/bench.rs): Walk on the
    // lower body, Jog on the upper body (the subtree of DEF-spine.002, the chest), by per-joint weights; then the
    // same with Sprint as an additive layer at 0.3.
    let chest = (0..n)
        .find(|&j| skeleton.name(j) == "DEF-spine.002")
        .expect("the rig has DEF-spine.002");
    let upper: Vec<f32> = (0..n)
        .map(|j| {
            let mut at = Some(j);
            while let Some(a) = at {
                if a == chest {
                    return 1.0;
                }
                at = skeleton.parent(a);
            }
            0.0
        })
        .collect();
    let lower: Vec<f32> = upper.iter().map(|u| 1.0 - u).collect();
    let masks = [Some(lower.as_slice()), Some(upper.as_slice())];
    let order = [0usize, 2, 3];
    let cycle = (layers[0].anim.duration() + layers[2].anim.duration()) / 2.0;
    for additive in [false, true] {
        let count = 2 + usize::from(additive);
        let mut bt = 0.0f32;
        let name = if additive {
            "2 clips masked + additive + local to model"
        } else {
            "2 clips masked blend + local to model"
        };
        bench(name, batches, iters / count, || {
            bt = (bt + dt) % cycle;
            let phase = bt / cycle;
            for (i, &c) in order[..count].iter().enumerate() {
                let l = &mut layers[c];
                let d = l.anim.duration();
                sample(l, phase * d, &mut poses[i * n..(i + 1) * n]);
            }
            let (blend_poses, rest_poses) = poses.split_at(2 * n);
            let add = [AdditiveLayer {
                pose: &rest_poses[..n],
                weight: 0.3,
                mask: None,
            }];
            BlendingJob {
                poses: blend_poses,
                weights: &[1.0, 1.0],
                masks: &masks,
                additive: if additive { &add } else { &[] },
                rest: skeleton.rest(),
                threshold: 0.1,
                output: &mut blended,
            }
            .run()
            .expect("valid blending job");
            l2m(&blended, &mut models);
        });
    }
    ik_rows(batches, iters);
    full_stack(
        "Quaternius",
        &model,
        ["Walk_Loop", "Idle_Loop", "Jog_Fwd_Loop"],
        batches,
        iters,
    );
    let mannequin = animtune::demo::mannequin::load();
    full_stack(
        "mannequin",
        &mannequin,
        ["Idle", "WalkForward", "RunForward"],
        batches,
        iters,
    );
}

/// A joint's model matrix from an axis (normalised here), an angle and a position: the IK rows' inputs, built
/// by the same formula in peers/ozz/src/bench.rs.
fn ik_joint(axis: [f32; 3], angle: f32, at: [f32; 3]) -> Mat4 {
    Mat4::from_rotation_translation(
        Quat::from_axis_angle(Vec3::from_array(axis).normalize(), angle),
        Vec3::from_array(at),
    )
}

/// How many targets the IK rows cycle through (computed before timing, so that no sine is timed).
const IK_TARGETS: usize = 1024;

/// "two-bone IK" and "aim IK": one job a call on fixed joints (a leg; a head), the target the next of a table made
/// before timing from the call's index k, exactly as the peer's rows.
fn ik_rows(batches: usize, iters: usize) {
    let hip = ik_joint([0.2, 1.0, 0.1], 0.4, [0.1, 0.95, 0.02]);
    let knee = ik_joint([1.0, 0.1, 0.0], 0.5, [0.12, 0.52, 0.08]);
    let ankle = ik_joint([0.0, 1.0, 0.3], -0.2, [0.11, 0.08, 0.0]);
    // SIMD vectors, as the IK jobs' members (ozz's SimdFloat4).
    let legs: Vec<glam::Vec3A> = (0..IK_TARGETS)
        .map(|k| {
            let t = k as f32;
            glam::Vec3A::new(
                0.1 + 0.2 * (0.013 * t).sin(),
                0.2 + 0.15 * (0.021 * t).sin(),
                0.1 + 0.2 * (0.017 * t).cos(),
            )
        })
        .collect();
    let looks: Vec<glam::Vec3A> = (0..IK_TARGETS)
        .map(|k| {
            let t = k as f32;
            glam::Vec3A::new(
                (0.01 * t).sin(),
                1.6 + 0.3 * (0.03 * t).sin(),
                1.0 + 0.5 * (0.01 * t).cos(),
            )
        })
        .collect();
    let mut k = 0usize;
    let (mut start, mut mid, mut reached) = (Quat::IDENTITY, Quat::IDENTITY, false);
    bench("two-bone IK", batches, iters, || {
        k = (k + 1) % IK_TARGETS;
        let mut job = IkTwoBoneJob::new(&hip, &knee, &ankle, &mut start, &mut mid, &mut reached);
        job.target = legs[k];
        job.mid_axis = glam::Vec3A::X;
        job.pole_vector = glam::Vec3A::Z;
        job.soften = 0.97;
        job.run().expect("valid two-bone job");
        black_box((&start, &mid, &reached));
    });
    let head = ik_joint([0.1, 1.0, 0.0], 0.3, [0.0, 1.6, 0.0]);
    let mut correction = Quat::IDENTITY;
    bench("aim IK", batches, iters, || {
        k = (k + 1) % IK_TARGETS;
        let mut job = IkAimJob::new(&head, &mut correction, &mut reached);
        job.target = looks[k];
        job.forward = glam::Vec3A::Z;
        job.up = glam::Vec3A::Y;
        job.offset = glam::Vec3A::new(0.05, 0.07, 0.1);
        job.pole_vector = glam::Vec3A::Y;
        job.run().expect("valid aim job");
        black_box((&correction, &reached));
    });
}
