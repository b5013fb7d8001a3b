//! Timing rows of ozz-animation-rs on the Quaternius rig, named and looped as examples/runtime_bench.rs's rows.
//!
//!   ozz-peer bench DIR [batches] [iters]
//!
//! DIR holds skeleton.ozz and Walk_Loop.ozz, Idle_Loop.ozz, Jog_Fwd_Loop.ozz, Sprint_Loop.ozz, as
//! `runtime_bench --write-ozz` writes them. Each row runs `batches` batches of `iters` calls after one warm-up
//! batch; time advances 1/60 s a call (looping), so the sampling caches stay warm as in an editor playing one
//! character. Prints "BENCH name median_ns min_ns" per row, timed on this thread's CPU clock, and
//! "MEMORY clip bytes" per clip: the bytes ozz's own `Animation::size()` would count for the same keys (its
//! 8-bit ratios when an animation has at most 255 time points, as ozz stores them; ozz-animation-rs widens them
//! to 16 bits in memory).
//!
//! The jobs are built once and only their ratio changes per call: ozz-animation-rs's intended use.

use std::cell::RefCell;
use std::hint::black_box;
use std::rc::Rc;

use glam::{Mat4, Vec3A, Vec4};
use ozz_animation_rs::{
    Animation, BlendingJob, BlendingLayer, IKAimJob, IKTwoBoneJob, LocalToModelJob,
    SamplingContext, SamplingJob, Skeleton, SoaTransform,
};

#[path = "../../../examples/support/thread_clock.rs"]
mod thread_clock;
use thread_clock::bench;

type Buffer = Rc<RefCell<Vec<SoaTransform>>>;

const CLIPS: [&str; 4] = ["Walk_Loop", "Idle_Loop", "Jog_Fwd_Loop", "Sprint_Loop"];

/// How many targets the IK rows cycle through (made before timing, so that no sine is timed).
const IK_TARGETS: usize = 1024;

/// The bytes ozz-animation's `Animation::size()` gives for these keys: the object, its name, time points, and
/// per stream a ratio (8 or 16 bits), a previous-key offset (16 bits) and a 6-byte key per key.
fn ozz_size(a: &Animation) -> usize {
    let ratio = if a.timepoints().len() <= 255 { 1 } else { 2 };
    let keys = a.translations().len() + a.rotations().len() + a.scales().len();
    // ozz 0.16's Animation object: duration, track count, name pointer, and three streams' spans and intervals.
    const OBJECT: usize = 160;
    OBJECT + a.name().len() + 1 + 4 * a.timepoints().len() + keys * (ratio + 2 + 6)
}

/// One clip with its sampling job and output.
struct Layer {
    job: SamplingJob,
    locals: Buffer,
    duration: f32,
}

fn load(dir: &str, name: &str, skeleton: &Skeleton) -> Result<(Layer, usize), String> {
    let path = format!("{dir}/{name}.ozz");
    let anim = Animation::from_path(&path).map_err(|e| format!("{path}: {e}"))?;
    if anim.num_tracks() != skeleton.num_joints() {
        return Err(format!(
            "{path} has {} tracks, the skeleton {} joints",
            anim.num_tracks(),
            skeleton.num_joints()
        ));
    }
    let size = ozz_size(&anim);
    let duration = anim.duration();
    let locals: Buffer = Rc::new(RefCell::new(vec![
        SoaTransform::default();
        skeleton.num_soa_joints()
    ]));
    let mut job: SamplingJob = SamplingJob::default();
    job.set_context(SamplingContext::new(anim.num_tracks()));
    job.set_animation(Rc::new(anim));
    job.set_output(locals.clone());
    Ok((
        Layer {
            job,
            locals,
            duration,
        },
        size,
    ))
}

fn sample(l: &mut Layer, ratio: f32) {
    l.job.set_ratio(ratio);
    l.job.run().expect("valid sampling job");
}

/// Samples one clip at each ratio (in the order given, through one context, as playback would) and prints one
/// line per ratio and joint: "ratio joint tx ty tz rx ry rz rw sx sy sz".
pub fn sample_locals(args: &[String]) -> Result<(), String> {
    let (dir, clip) = (&args[0], &args[1]);
    let skeleton_path = format!("{dir}/skeleton.ozz");
    let skeleton =
        Skeleton::from_path(&skeleton_path).map_err(|e| format!("{skeleton_path}: {e}"))?;
    let (mut layer, _) = load(dir, clip, &skeleton)?;
    for word in &args[2..] {
        let ratio: f32 = word.parse().map_err(|e| format!("ratio '{word}': {e}"))?;
        sample(&mut layer, ratio);
        let locals = layer.locals.borrow();
        for j in 0..skeleton.num_joints() {
            let (s, k) = (&locals[j / 4], j % 4);
            let t = [s.translation.x[k], s.translation.y[k], s.translation.z[k]];
            let r = [
                s.rotation.x[k],
                s.rotation.y[k],
                s.rotation.z[k],
                s.rotation.w[k],
            ];
            let c = [s.scale.x[k], s.scale.y[k], s.scale.z[k]];
            let values: Vec<String> = t
                .iter()
                .chain(&r)
                .chain(&c)
                .map(|v| format!("{v:.7e}"))
                .collect();
            println!("{ratio} {j} {}", values.join(" "));
        }
    }
    Ok(())
}

pub fn run(args: &[String]) -> Result<(), String> {
    let dir = &args[0];
    let batches: usize = args
        .get(1)
        .map_or(Ok(30), |a| a.parse())
        .map_err(|e| format!("batches: {e}"))?;
    let iters: usize = args
        .get(2)
        .map_or(Ok(20000), |a| a.parse())
        .map_err(|e| format!("iters: {e}"))?;
    let skeleton_path = format!("{dir}/skeleton.ozz");
    let skeleton =
        Rc::new(Skeleton::from_path(&skeleton_path).map_err(|e| format!("{skeleton_path}: {e}"))?);
    let nj = skeleton.num_joints();
    let mut layers = Vec::new();
    for name in CLIPS {
        let (layer, size) = load(dir, name, &skeleton)?;
        println!("MEMORY {name} {size}");
        layers.push(layer);
    }
    println!(
        "ozz-animation-rs: {nj} joints ({} SoA), Walk_Loop {:.3} s",
        skeleton.num_soa_joints(),
        layers[0].duration
    );

    let models = Rc::new(RefCell::new(vec![Mat4::IDENTITY; nj]));
    let l2m_job = |input: Buffer| {
        let mut job: LocalToModelJob = LocalToModelJob::default();
        job.set_skeleton(skeleton.clone());
        job.set_input(input);
        job.set_output(models.clone());
        job
    };
    let sink = |models: &Rc<RefCell<Vec<Mat4>>>| black_box(models.borrow()[nj - 1].w_axis.x);
    let dt = 1.0f32 / 60.0;

    for (i, name) in CLIPS.iter().enumerate() {
        let d = layers[i].duration;
        let mut t = 0.0f32;
        bench(&format!("sample {name}"), batches, iters, || {
            t += dt;
            sample(&mut layers[i], (t % d) / d);
            black_box(layers[i].locals.borrow()[0].translation.x);
        });
    }
    let mut l2m_walk = l2m_job(layers[0].locals.clone());
    bench("local to model", batches, iters, || {
        l2m_walk.run().expect("valid local-to-model job");
        sink(&models);
    });
    let walk_d = layers[0].duration;
    let mut t = 0.0f32;
    bench("sample Walk_Loop + local to model", batches, iters, || {
        t += dt;
        sample(&mut layers[0], (t % walk_d) / walk_d);
        l2m_walk.run().expect("valid local-to-model job");
        sink(&models);
    });

    // Normalised-time blends, as animtune's blend source plays them: every clip at one phase, equal weights.
    let blended: Buffer = Rc::new(RefCell::new(vec![
        SoaTransform::default();
        skeleton.num_soa_joints()
    ]));
    let mut l2m_blended = l2m_job(blended.clone());
    for n in [3usize, 4] {
        let mut blend: BlendingJob = BlendingJob::default();
        blend.set_skeleton(skeleton.clone());
        blend.set_output(blended.clone());
        for layer in &layers[..n] {
            blend.layers_mut().push(BlendingLayer::with_weight(
                layer.locals.clone(),
                1.0 / n as f32,
            ));
        }
        let cycle: f32 = layers[..n].iter().map(|l| l.duration / n as f32).sum();
        for with_l2m in [false, true] {
            let mut bt = 0.0f32;
            let name = if with_l2m {
                format!("{n} clips sampled + blend + local to model")
            } else {
                format!("{n} clips sampled + blend")
            };
            bench(&name, batches, iters / n, || {
                bt = (bt + dt) % cycle;
                let phase = bt / cycle;
                for layer in &mut layers[..n] {
                    sample(layer, phase);
                }
                blend.run().expect("valid blending job");
                if with_l2m {
                    l2m_blended.run().expect("valid local-to-model job");
                    sink(&models);
                } else {
                    black_box(blended.borrow()[0].translation.x);
                }
            });
        }
    }

    // Partial blending (ozz's partial_blend sample): Walk on the lower body, Jog on the upper body (the subtree
    // of DEF-spine.002, the chest), by per-joint weights; then the same with Sprint as an additive layer at 0.3.
    let chest = skeleton
        .joint_by_name("DEF-spine.002")
        .ok_or("no joint DEF-spine.002")? as usize;
    let parents = skeleton.joint_parents();
    let mut upper = vec![0.0f32; nj];
    for j in 0..nj {
        if j == chest || (parents[j] >= 0 && upper[parents[j] as usize] == 1.0) {
            upper[j] = 1.0;
        }
    }
    let lane = |j: usize, f: &dyn Fn(f32) -> f32| upper.get(j).map_or(0.0, |&u| f(u));
    let soa = |f: &dyn Fn(f32) -> f32| -> Vec<Vec4> {
        (0..skeleton.num_soa_joints())
            .map(|s| Vec4::from_array(std::array::from_fn(|k| lane(s * 4 + k, f))))
            .collect()
    };
    let (upper_w, lower_w) = (soa(&|u| u), soa(&|u| 1.0 - u));
    for additive in [false, true] {
        let mut blend: BlendingJob = BlendingJob::default();
        blend.set_skeleton(skeleton.clone());
        blend.set_output(blended.clone());
        blend.layers_mut().push(BlendingLayer::with_joint_weights(
            layers[0].locals.clone(),
            lower_w.clone(),
        ));
        blend.layers_mut().push(BlendingLayer::with_joint_weights(
            layers[2].locals.clone(),
            upper_w.clone(),
        ));
        if additive {
            blend
                .additive_layers_mut()
                .push(BlendingLayer::with_weight(layers[3].locals.clone(), 0.3));
        }
        let order: &[usize] = if additive { &[0, 2, 3] } else { &[0, 2] };
        let cycle = (layers[0].duration + layers[2].duration) / 2.0;
        let mut bt = 0.0f32;
        let name = if additive {
            "2 clips masked + additive + local to model"
        } else {
            "2 clips masked blend + local to model"
        };
        bench(name, batches, iters / order.len(), || {
            bt = (bt + dt) % cycle;
            let phase = bt / cycle;
            for &i in order {
                sample(&mut layers[i], phase);
            }
            blend.run().expect("valid blending job");
            l2m_blended.run().expect("valid local-to-model job");
            sink(&models);
        });
    }

    ik_rows(batches, iters);
    Ok(())
}

/// A joint's model matrix from an axis (normalised here), an angle and a position, by the formula
/// examples/runtime_bench.rs uses.
fn ik_joint(axis: [f32; 3], angle: f32, at: [f32; 3]) -> Mat4 {
    let q = glam::Quat::from_axis_angle(glam::Vec3::from(axis).normalize(), angle);
    Mat4::from_rotation_translation(q, glam::Vec3::from(at))
}

/// "two-bone IK" and "aim IK": one job a call on fixed joints (a leg; a head), the target the next of a table
/// made before timing from the call's index, exactly as examples/runtime_bench.rs's rows.
fn ik_rows(batches: usize, iters: usize) {
    let hip = ik_joint([0.2, 1.0, 0.1], 0.4, [0.1, 0.95, 0.02]);
    let knee = ik_joint([1.0, 0.1, 0.0], 0.5, [0.12, 0.52, 0.08]);
    let ankle = ik_joint([0.0, 1.0, 0.3], -0.2, [0.11, 0.08, 0.0]);
    let legs: Vec<Vec3A> = (0..IK_TARGETS)
        .map(|k| {
            let t = k as f32;
            Vec3A::new(
                0.1 + 0.2 * (0.013 * t).sin(),
                0.2 + 0.15 * (0.021 * t).sin(),
                0.1 + 0.2 * (0.017 * t).cos(),
            )
        })
        .collect();
    let looks: Vec<Vec3A> = (0..IK_TARGETS)
        .map(|k| {
            let t = k as f32;
            Vec3A::new(
                (0.01 * t).sin(),
                1.6 + 0.3 * (0.03 * t).sin(),
                1.0 + 0.5 * (0.01 * t).cos(),
            )
        })
        .collect();
    let mut k = 0;
    bench("two-bone IK", batches, iters, || {
        k = (k + 1) % IK_TARGETS;
        let mut job = IKTwoBoneJob::default();
        job.set_target(legs[k]);
        job.set_mid_axis(Vec3A::X);
        job.set_pole_vector(Vec3A::Z);
        job.set_soften(0.97);
        job.set_start_joint(hip);
        job.set_mid_joint(knee);
        job.set_end_joint(ankle);
        job.run().expect("valid two-bone job");
        black_box(job.start_joint_correction().x + job.mid_joint_correction().x);
    });
    let head = ik_joint([0.1, 1.0, 0.0], 0.3, [0.0, 1.6, 0.0]);
    bench("aim IK", batches, iters, || {
        k = (k + 1) % IK_TARGETS;
        let mut job = IKAimJob::default();
        job.set_target(looks[k]);
        job.set_forward(Vec3A::Z);
        job.set_up(Vec3A::Y);
        job.set_offset(Vec3A::new(0.05, 0.07, 0.1));
        job.set_pole_vector(Vec3A::Y);
        job.set_joint(head);
        job.run().expect("valid aim job");
        black_box(job.joint_correction().x);
    });
}
