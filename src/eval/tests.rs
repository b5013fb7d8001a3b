//! The Evaluator's transport and clock rules, its agreement between seeking and playing, and that a frame
//! allocates nothing once warm.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use std::sync::Arc;

use glam::{Mat4, Vec3};

use super::*;
use crate::blend::RootMotion;
use crate::core::ClipBinding;
use crate::import::ImportedModel;
use crate::offline::max_vertex_error;
use crate::runtime::Animation;

/// Counts the allocations of the thread that asks (tests run on several threads at once).
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_allocation() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches no heap memory.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_allocation();
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_allocation();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_allocation();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Allocations made by this thread while `f` runs.
fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

fn mannequin() -> ImportedModel {
    crate::demo::mannequin::load()
}

/// The mannequin's first clip, no layers.
fn clip_evaluator(model: &ImportedModel) -> Evaluator {
    Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Clip(0),
        LayerParams::off(),
    )
}

fn advance(ev: &mut Evaluator, dt: f32) {
    ev.evaluate(&EvalInput {
        clock: ClockStep::Advance(dt),
        ..EvalInput::default()
    });
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

/// Every layer on, look-at turning at a finite speed toward a point beside the head.
fn all_layers() -> LayerParams {
    let mut layers = LayerParams::default();
    layers.breath.enabled = true;
    layers.twist.enabled = true;
    layers.look_at.enabled = true;
    layers.look_at.follow_camera = false;
    layers.look_at.speed_deg_per_s = 90.0;
    layers.look_at.target = [0.8, 1.6, 0.6];
    layers
}

#[test]
fn wrap_cycle_keeps_the_end_of_a_cycle() {
    assert_eq!(wrap_cycle(0.0, 2.0), 0.0);
    assert_eq!(wrap_cycle(2.0, 2.0), 2.0);
    assert_eq!(wrap_cycle(4.0, 2.0), 2.0);
    assert!((wrap_cycle(2.5, 2.0) - 0.5).abs() < 1e-12);
    assert!((wrap_cycle(-0.5, 2.0) - 1.5).abs() < 1e-12);
    assert_eq!(wrap_cycle(f64::NAN, 2.0), 0.0);
    assert_eq!(wrap_cycle(1.0, 0.0), 0.0);
}

#[test]
fn a_new_evaluator_is_stopped_at_zero_and_loops() {
    let model = mannequin();
    let ev = clip_evaluator(&model);
    assert!(!ev.clock().is_playing());
    assert!(ev.clock().is_looping());
    assert_eq!(ev.time(), 0.0);
    assert_eq!(ev.source().clip(), Some(0));
    assert!(
        ev.duration() > 0.5,
        "the mannequin's first clip has a length"
    );
}

#[test]
fn play_pause_and_advance() {
    let model = mannequin();
    let mut ev = clip_evaluator(&model);
    advance(&mut ev, 0.25);
    assert_eq!(ev.time(), 0.0, "a paused clock does not move");
    ev.play();
    advance(&mut ev, 0.25);
    assert!(close(ev.time(), 0.25));
    ev.clock_mut().pause();
    advance(&mut ev, 0.25);
    assert!(close(ev.time(), 0.25));
    ev.clock_mut().set_speed(2.0);
    ev.play();
    advance(&mut ev, 0.1);
    assert!(
        close(ev.time(), 0.45),
        "speed scales the step: {}",
        ev.time()
    );
    ev.clock_mut().set_speed(f32::NAN);
    assert_eq!(ev.clock().speed(), 2.0, "NaN speed is ignored");
    advance(&mut ev, f32::NAN);
    assert!(close(ev.time(), 0.45), "a NaN step moves nothing");
}

#[test]
fn looping_wraps_into_the_cycle_and_keeps_its_end() {
    let model = mannequin();
    let mut ev = clip_evaluator(&model);
    let d = ev.duration();
    ev.play();
    advance(&mut ev, d);
    assert!(close(ev.time(), d), "exactly one cycle shows the last pose");
    advance(&mut ev, 0.1);
    assert!(close(ev.time(), 0.1), "then it wraps: {}", ev.time());
    assert!(ev.clock().is_playing());
    assert!(
        close(ev.clock().layer_time(), d + 0.1),
        "the layer clock keeps running"
    );
}

#[test]
fn non_looping_stops_at_the_end_and_play_replays_from_the_start() {
    let model = mannequin();
    let mut ev = clip_evaluator(&model);
    let d = ev.duration();
    ev.clock_mut().set_looping(false);
    ev.play();
    advance(&mut ev, d + 0.3);
    assert_eq!(ev.time(), d);
    assert!(!ev.clock().is_playing(), "it stops at the end");
    ev.play();
    assert_eq!(ev.time(), 0.0, "play at the end starts over");
    advance(&mut ev, 0.2);
    assert!(close(ev.time(), 0.2));
}

#[test]
fn a_clip_with_loop_time_off_plays_once_and_holds_its_last_pose() {
    let mut model = mannequin();
    model.clips[0].looping = false;
    let mut ev = clip_evaluator(&model);
    let d = ev.duration();
    assert!(
        ev.clock().is_looping() && !ev.loops(),
        "the transport loops, the clip does not"
    );
    ev.play();
    advance(&mut ev, d + 0.3);
    assert_eq!(ev.time(), d, "it holds its end");
    assert!(!ev.clock().is_playing());
    let end = ev.output().local.local.clone();
    // A bake's continuous clock holds it as well.
    let mut stream = clip_evaluator(&model);
    continue_to(&mut stream, 0.0);
    assert_eq!(continue_to(&mut stream, d + 0.5), end, "held after the end");
    // The same clip looping starts over.
    model.clips[0].looping = true;
    let mut looping = clip_evaluator(&model);
    continue_to(&mut looping, 0.0);
    assert_ne!(continue_to(&mut looping, d + 0.5), end);
}

#[test]
fn negative_speed_plays_backwards_and_wraps_or_stops_at_zero() {
    let model = mannequin();
    let mut ev = clip_evaluator(&model);
    let d = ev.duration();
    ev.clock_mut().set_speed(-1.0);
    ev.seek(0.5);
    ev.play();
    advance(&mut ev, 0.2);
    assert!(close(ev.time(), 0.3));
    advance(&mut ev, 0.4);
    assert!(close(ev.time(), d - 0.1), "wraps backwards: {}", ev.time());
    ev.clock_mut().set_looping(false);
    ev.seek(0.1);
    advance(&mut ev, 0.3);
    assert_eq!(ev.time(), 0.0);
    assert!(!ev.clock().is_playing(), "it stops at the start");
    ev.play();
    assert_eq!(ev.time(), d, "play at the start replays from the end");
}

#[test]
fn seek_clamps_and_ignores_nan() {
    let model = mannequin();
    let mut ev = clip_evaluator(&model);
    let d = ev.duration();
    ev.seek(d + 5.0);
    assert_eq!(ev.time(), d);
    ev.seek(-1.0);
    assert_eq!(ev.time(), 0.0);
    ev.seek(0.4);
    ev.seek(f32::NAN);
    assert!(close(ev.time(), 0.4));
    assert!(
        close(ev.clock().layer_time(), 0.4),
        "the layer clock follows a seek"
    );
}

#[test]
fn stop_resets_the_breath_clock_and_the_look_at_filter() {
    let model = mannequin();
    let layers = all_layers();
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Clip(0),
        layers.clone(),
    );
    let far = Vec3::new(-0.9, 1.4, 0.5);
    ev.play();
    for _ in 0..30 {
        ev.evaluate(&EvalInput {
            clock: ClockStep::Advance(1.0 / 30.0),
            blend_point: None,
            look_target: None,
            ..Default::default()
        });
    }
    // The target jumps to the other side: the filter turns toward it at 90°/s, so it lags behind.
    ev.evaluate(&EvalInput {
        clock: ClockStep::Advance(1.0 / 30.0),
        blend_point: None,
        look_target: Some(far),
        ..Default::default()
    });
    assert!(
        ev.layers.state.look.direction().is_some(),
        "the filter holds a direction"
    );
    ev.stop();
    assert!(!ev.clock().is_playing());
    assert_eq!(ev.time(), 0.0);
    assert_eq!(
        ev.clock().layer_time(),
        0.0,
        "stop restarts the breath clock"
    );
    assert!(
        ev.layers.state.look.direction().is_none(),
        "stop forgets the look direction"
    );
    let after_stop = ev
        .evaluate(&EvalInput {
            clock: ClockStep::Hold,
            blend_point: None,
            look_target: Some(far),
            ..Default::default()
        })
        .model
        .clone();

    let mut fresh = Evaluator::new(&model.character, &model.clips, SourceSpec::Clip(0), layers);
    let expected = fresh
        .evaluate(&EvalInput {
            clock: ClockStep::Seek(0.0),
            blend_point: None,
            look_target: Some(far),
            ..Default::default()
        })
        .model
        .clone();
    let error = max_vertex_error(&expected, &after_stop);
    assert!(
        error < 1e-6,
        "after stop the pose is a fresh start's ({error} m)"
    );
}

#[test]
fn continuing_on_a_grid_matches_seeking_each_time() {
    let model = mannequin();
    let mut grid = clip_evaluator(&model);
    let mut seeking = clip_evaluator(&model);
    let d = grid.duration();
    for k in 0..=90 {
        let t = k as f32 / 30.0;
        let a: Vec<Mat4> = grid
            .evaluate(&EvalInput {
                clock: ClockStep::Continue(t),
                ..EvalInput::default()
            })
            .model
            .clone();
        let b = &seeking
            .evaluate(&EvalInput {
                clock: ClockStep::Seek(wrap_cycle(f64::from(t), f64::from(d)) as f32),
                ..EvalInput::default()
            })
            .model;
        let error = max_vertex_error(&a, b);
        assert!(error < 1e-6, "t = {t}: {error} m");
    }
}

/// Evaluates `frames` frames of every clock step and counts what they allocate.
fn allocations_per_run(ev: &mut Evaluator, blend_point: Option<[f64; 2]>, frames: usize) -> u64 {
    ev.play();
    let steps = |k: usize| match k % 7 {
        3 => ClockStep::Seek(0.3),
        5 => ClockStep::Hold,
        6 => ClockStep::Continue(k as f32 / 30.0),
        _ => ClockStep::Advance(1.0 / 30.0),
    };
    let target = Some(Vec3::new(0.5, 1.5, 1.0));
    // Warm-up: every buffer reaches its size.
    for k in 0..frames {
        ev.evaluate(&EvalInput {
            clock: steps(k),
            blend_point,
            look_target: target,
            ..Default::default()
        });
    }
    allocations_during(|| {
        for k in 0..frames {
            ev.evaluate(&EvalInput {
                clock: steps(k),
                blend_point,
                look_target: target,
                ..Default::default()
            });
        }
    })
}

#[test]
fn evaluate_allocates_nothing_after_warm_up_on_the_mannequin() {
    let model = mannequin();
    let mut clip = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Clip(1),
        all_layers(),
    );
    assert_eq!(allocations_per_run(&mut clip, None, 120), 0);

    let mut space = crate::demo::locomotion::default_blend_space();
    space.set_point([0.6, 1.2]);
    let point = space.point;
    let mut blend = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Blend(space),
        all_layers(),
    );
    assert_eq!(allocations_per_run(&mut blend, Some(point), 120), 0);
    assert!(
        blend.output().weights.iter().filter(|w| **w > 0.0).count() >= 2,
        "the point blends several clips"
    );
}

#[test]
fn evaluate_allocates_nothing_after_warm_up_on_quaternius() {
    let path = crate::test_support::quaternius();
    let model = crate::import::load_file(&path).expect("the Quaternius rig loads");
    let preset =
        crate::preset::Preset::load(&crate::test_support::preset("quaternius_locomotion.json"))
            .expect("the shipped preset loads");
    let space = preset.blend.expect("the preset has a blend space");
    let point = space.point;
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Blend(space),
        all_layers(),
    );
    assert_eq!(allocations_per_run(&mut ev, Some(point), 120), 0);
    assert!(
        !ev.output().skins.is_empty(),
        "skin palettes are part of the frame"
    );
}

/// A state machine's frames allocate nothing once warm either: the compare-outputs machine at a speed that
/// crossfades Idle → Walk and then inertializes into Run, played, sought (each seek replays its ticks and
/// starts both transitions again) and continued, under the layers.
#[test]
fn evaluate_allocates_nothing_after_warm_up_on_a_state_machine() {
    let path = crate::test_support::quaternius();
    let model = crate::import::load_file(&path).expect("the Quaternius rig loads");
    let machine = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/compare-outputs/machine.json"
    );
    let preset = crate::preset::Preset::load(std::path::Path::new(machine)).expect("it loads");
    let machine = preset.state_machine.expect("a state machine");
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::StateMachine(machine),
        all_layers(),
    );
    let player = ev.source_mut().machine_mut().expect("a machine plays");
    player.set("speed", crate::graph::ParameterValue::Number(3.0));
    assert_eq!(allocations_per_run(&mut ev, None, 120), 0);
    let run = ev.source().machine().unwrap();
    assert_eq!(run.machine().states[run.current()].name, "Run");
}

#[test]
fn the_allocation_counter_sees_allocations() {
    let n = allocations_during(|| {
        std::hint::black_box(vec![1u8; 64]);
    });
    assert!(n >= 1, "a Vec allocation was not counted");
}

#[test]
fn editing_the_blend_nodes_keeps_the_phase_and_the_look_direction() {
    let model = mannequin();
    let space = crate::demo::locomotion::default_blend_space();
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Blend(space.clone()),
        all_layers(),
    );
    ev.play();
    for _ in 0..20 {
        advance(&mut ev, 1.0 / 30.0);
    }
    let phase = ev.clock.phase;
    let look = ev.layers.state.look.direction();
    assert!(look.is_some() && phase > 0.0);
    let mut edited = space;
    edited.nodes[1].position[0] += 0.25;
    ev.set_blend_space(&model.character, &model.clips, &edited);
    assert_eq!(
        ev.source().blend_space().map(|s| &s.nodes),
        Some(&edited.nodes)
    );
    assert_eq!(ev.clock.phase, phase, "a node edit is not a seek");
    assert_eq!(
        ev.layers.state.look.direction(),
        look,
        "the look-at filter keeps its direction"
    );
}

#[test]
fn a_single_clip_plays_in_place_or_walks_on_over_its_loops() {
    let m = mannequin();
    let c = &m.character;
    let run = m.clips.iter().position(|c| c.name == "RunForward").unwrap();
    let clip = &m.clips[run];
    let mut ev = Evaluator::new(c, &m.clips, SourceSpec::Clip(run), LayerParams::off());
    let root = ev.source().root_joint().unwrap();
    let hips = |ev: &Evaluator| ev.output().model[root].w_axis.truncate();
    ev.play();
    advance(&mut ev, 0.0);
    let start = hips(&ev);
    // Kept without accumulation (the default): 2.5 cycles later the hips are where they are half a cycle in.
    let d = clip.duration;
    advance(&mut ev, 2.5 * d);
    let snapped = hips(&ev) - start;
    // Accumulating: two more whole cycles of travel on top.
    ev.seek(0.0);
    ev.source_mut().set_accumulate_loops(true);
    advance(&mut ev, 2.5 * d);
    let walked = hips(&ev) - start;
    let travel = walked - snapped;
    assert!(travel.z > 1.0, "two cycles travel forward: {travel}");
    assert!(travel.y.abs() < 1e-4, "travel is horizontal: {travel}");
    // In place: the hips hardly move forward over a cycle.
    ev.source_mut().set_clip_root_motion(RootMotion::InPlace);
    ev.seek(0.0);
    advance(&mut ev, 0.0);
    let a = hips(&ev);
    advance(&mut ev, 0.5 * d);
    let b = hips(&ev);
    assert!(
        (b - a).z.abs() < 0.05 * travel.z,
        "in place: {} vs {}",
        b - a,
        travel
    );
}

#[test]
fn playback_loops_within_the_in_out_range() {
    let m = mannequin();
    let mut ev = clip_evaluator(&m);
    let d = ev.duration();
    ev.clock_mut().set_play_range(Some([0.25 * d, 0.5 * d]));
    ev.seek(0.3 * d);
    ev.play();
    for _ in 0..40 {
        advance(&mut ev, 0.07 * d);
        let t = ev.time();
        assert!((0.25 * d - 1e-5..=0.5 * d + 1e-5).contains(&t), "{t}");
    }
    // Not looping: it stops at the out point.
    ev.clock_mut().set_looping(false);
    ev.seek(0.3 * d);
    ev.play();
    advance(&mut ev, d);
    assert!((ev.time() - 0.5 * d).abs() < 1e-5 && !ev.clock().is_playing());
    // Play at the out point with looping off starts over at the in point, and so does Play from before it.
    for start in [0.5 * d, 0.0] {
        ev.seek(start);
        ev.play();
        advance(&mut ev, 0.05 * d);
        assert!(
            (ev.time() - 0.3 * d).abs() < 1e-4 && ev.clock().is_playing(),
            "from {start}: at {} playing {}",
            ev.time(),
            ev.clock().is_playing()
        );
    }
    // An empty range is no range.
    ev.clock_mut().set_play_range(Some([0.4, 0.4]));
    assert_eq!(ev.play_range(), None);
}

/// `clip` held at its pose at `at` seconds (every channel two equal keys over its length).
fn held(clip: &Clip, at: f32) -> Clip {
    use crate::core::clip::{Interpolation, Keys};
    fn hold<T: crate::core::clip::KeyValue>(
        k: &Option<Keys<T>>,
        at: f32,
        d: f32,
    ) -> Option<Keys<T>> {
        k.as_ref().map(|k| {
            let v = k.sample(at);
            Keys::new(vec![0.0, d], vec![v, v], Interpolation::Linear).unwrap()
        })
    }
    let d = clip.duration;
    let tracks = clip
        .tracks
        .iter()
        .map(|t| crate::core::Track {
            target: t.target.clone(),
            translation: hold(&t.translation, at, d),
            rotation: hold(&t.rotation, at, d),
            scale: hold(&t.scale, at, d),
        })
        .collect();
    Clip::new(format!("{} held", clip.name), tracks)
}

/// The mannequin on its clip `source` with `layers` (procedural layers off), evaluated at `t` seconds after a seek
/// to 0.
fn layered_pose(
    model: &ImportedModel,
    clips: &[Clip],
    source: usize,
    layers: &[crate::layers::ClipLayer],
    t: f32,
) -> Vec<Transform> {
    let mut params = LayerParams::off();
    params.clips = layers.to_vec();
    let mut ev = Evaluator::new(&model.character, clips, SourceSpec::Clip(source), params);
    ev.seek(0.0);
    continue_to(&mut ev, t)
}

/// The local pose a continuous clock (a bake's) reaches at `t`.
fn continue_to(ev: &mut Evaluator, t: f32) -> Vec<Transform> {
    ev.evaluate(&EvalInput {
        clock: ClockStep::Continue(t),
        ..EvalInput::default()
    })
    .local
    .local
    .clone()
}

#[test]
fn a_masked_override_layer_leaves_the_joints_outside_its_mask_bit_identical() {
    use crate::core::HumanBone as H;
    use crate::layers::{BodyPart, ClipLayer};
    let model = mannequin();
    let (idle, walk) = (0, 1);
    let layer = ClipLayer {
        clip: model.clips[walk].name.clone(),
        parts: vec![BodyPart::LeftArm, BodyPart::Head],
        ..Default::default()
    };
    let t = 0.37;
    let plain = layered_pose(&model, &model.clips, idle, &[], t);
    let layered = layered_pose(&model, &model.clips, idle, std::slice::from_ref(&layer), t);
    let walking = layered_pose(&model, &model.clips, walk, &[], t);
    let joint = |b| model.character.humanoid.joint(b).unwrap();
    for bone in [H::RightUpperArm, H::Spine, H::LeftUpperLeg, H::LeftHand] {
        assert_eq!(
            layered[joint(bone)],
            plain[joint(bone)],
            "{bone:?}: the source, bit for bit"
        );
    }
    for bone in [H::LeftUpperArm, H::LeftLowerArm, H::Head] {
        assert_eq!(
            layered[joint(bone)],
            walking[joint(bone)],
            "{bone:?}: the layer's clip"
        );
    }
    // Half weight: half way between, and a muted layer is no layer.
    let half = layered_pose(
        &model,
        &model.clips,
        idle,
        &[ClipLayer {
            weight: 0.5,
            ..layer.clone()
        }],
        t,
    );
    let j = joint(H::LeftLowerArm);
    let expected = plain[j].rotation.slerp(walking[j].rotation, 0.5);
    assert!(half[j].rotation.angle_between(expected) < 2e-3);
    let muted = ClipLayer {
        muted: true,
        ..layer
    };
    assert_eq!(layered_pose(&model, &model.clips, idle, &[muted], t), plain);
}

#[test]
fn an_additive_layer_is_identity_at_weight_0_and_reproduces_its_clip_over_its_reference_pose() {
    use crate::layers::{ClipLayer, LayerMode};
    let model = mannequin();
    let walk = 1;
    let reference_time = 0.2;
    let mut clips = model.clips.clone();
    clips.push(held(&model.clips[walk], reference_time));
    let hold = clips.len() - 1;
    let layer = ClipLayer {
        clip: model.clips[walk].name.clone(),
        mode: LayerMode::Additive,
        reference_time,
        ..Default::default()
    };
    let t = 0.61;
    let base = layered_pose(&model, &clips, hold, &[], t);
    let none = layered_pose(
        &model,
        &clips,
        hold,
        &[ClipLayer {
            weight: 0.0,
            ..layer.clone()
        }],
        t,
    );
    assert_eq!(none, base, "weight 0 is the identity");
    // Over the clip's own pose at the reference time, the additive layer gives back the clip.
    let added = layered_pose(&model, &clips, hold, std::slice::from_ref(&layer), t);
    let walking = layered_pose(&model, &clips, walk, &[], t);
    for (j, (a, w)) in added.iter().zip(&walking).enumerate() {
        let (qa, qw) = (glam::Vec4::from(a.rotation), glam::Vec4::from(w.rotation));
        assert!(
            (qa - qw).length() < 1e-4 || (qa + qw).length() < 1e-4,
            "joint {j}: {a:?} vs {w:?}"
        );
        assert!(a.translation.abs_diff_eq(w.translation, 1e-4), "joint {j}");
    }
    assert!(
        added
            .iter()
            .zip(&base)
            .any(|(a, b)| a.rotation.angle_between(b.rotation) > 0.05),
        "the layer moved something"
    );
}

#[test]
fn a_synced_clip_layer_plays_at_the_sources_phase_and_an_unsynced_one_on_its_own_clock() {
    use crate::core::HumanBone as H;
    use crate::layers::ClipLayer;
    let model = mannequin();
    // Idle (4 s) under RunForward (0.7 s), every joint overridden.
    let (idle, run) = (0, 7);
    assert_eq!(model.clips[run].name, "RunForward");
    let (d_idle, d_run) = (model.clips[idle].duration, model.clips[run].duration);
    let t = 1.3;
    let layer = |synced| ClipLayer {
        clip: model.clips[run].name.clone(),
        synced,
        ..Default::default()
    };
    let arm = model.character.humanoid.joint(H::LeftUpperArm).unwrap();
    let synced = layered_pose(&model, &model.clips, idle, &[layer(true)], t);
    let own = layered_pose(&model, &model.clips, idle, &[layer(false)], t);
    let run_at = |time: f32| layered_pose(&model, &model.clips, run, &[], time)[arm];
    assert_eq!(
        synced[arm],
        run_at(t / d_idle * d_run),
        "at the source's phase"
    );
    assert_eq!(own[arm], run_at(t % d_run), "on its own clock, looping");
}

#[test]
fn a_soloed_clip_layer_plays_alone() {
    use crate::core::HumanBone as H;
    use crate::layers::{BodyPart, ClipLayer};
    let model = mannequin();
    let (idle, walk, run) = (0, 1, 7);
    let arm = ClipLayer {
        clip: model.clips[walk].name.clone(),
        parts: vec![BodyPart::LeftArm],
        ..Default::default()
    };
    let leg = ClipLayer {
        clip: model.clips[run].name.clone(),
        parts: vec![BodyPart::LeftLeg],
        ..Default::default()
    };
    let t = 0.4;
    let both = layered_pose(&model, &model.clips, idle, &[arm.clone(), leg.clone()], t);
    let soloed = layered_pose(
        &model,
        &model.clips,
        idle,
        &[
            ClipLayer {
                solo: true,
                ..arm.clone()
            },
            leg,
        ],
        t,
    );
    let arm_only = layered_pose(&model, &model.clips, idle, &[arm], t);
    assert_eq!(soloed, arm_only, "only the soloed layer plays");
    let j = model.character.humanoid.joint(H::LeftUpperLeg).unwrap();
    assert_ne!(both[j], soloed[j], "the other layer moved the leg");
}

#[test]
fn an_additive_layer_can_take_its_reference_pose_from_another_clip() {
    use crate::layers::{ClipLayer, LayerMode};
    let model = mannequin();
    let (walk, run) = (1, 7);
    // Over WalkForward held at 0.2 s, RunForward relative to WalkForward's pose at 0.2 s gives back RunForward.
    let mut clips = model.clips.clone();
    clips.push(held(&model.clips[walk], 0.2));
    let hold = clips.len() - 1;
    let layer = ClipLayer {
        clip: model.clips[run].name.clone(),
        mode: LayerMode::Additive,
        reference_clip: Some(model.clips[walk].name.clone()),
        reference_time: 0.2,
        ..Default::default()
    };
    let t = 0.33;
    let added = layered_pose(&model, &clips, hold, std::slice::from_ref(&layer), t);
    let running = layered_pose(&model, &clips, run, &[], t);
    for (j, (a, r)) in added.iter().zip(&running).enumerate() {
        let (qa, qr) = (glam::Vec4::from(a.rotation), glam::Vec4::from(r.rotation));
        assert!(
            (qa - qr).length() < 1e-4 || (qa + qr).length() < 1e-4,
            "joint {j}"
        );
    }
    // A reference clip the character lacks is named as missing.
    let mut params = LayerParams::off();
    params.clips = vec![ClipLayer {
        reference_clip: Some("NoSuchClip".into()),
        ..layer
    }];
    let ev = Evaluator::new(&model.character, &clips, SourceSpec::Clip(hold), params);
    assert_eq!(ev.layer_stage().missing_clips(), ["NoSuchClip"]);
}

/// Distinct compiled clips behind the clip layers.
fn compiled_layer_clips(ev: &Evaluator) -> usize {
    let mut seen: Vec<*const Animation> = ev
        .layers
        .clip_layers
        .bound()
        .iter()
        .filter_map(|l| l.source.as_ref().map(|s| Arc::as_ptr(&s.animation)))
        .collect();
    seen.sort();
    seen.dedup();
    seen.len()
}

/// Ten thousand clip layers on two clips compile each clip once (a 10k-layer preset took 12 s to open when every
/// layer compiled its own copy); changing one layer's weight rebinds that layer alone.
#[test]
fn clip_layers_share_their_compiled_clips_and_an_edit_rebinds_one_layer() {
    use crate::layers::ClipLayer;
    let model = mannequin();
    let mut params = LayerParams::off();
    params.clips = (0..10_000)
        .map(|i| ClipLayer {
            clip: model.clips[1 + i % 2].name.clone(),
            weight: if i % 2 == 0 { 0.0 } else { 0.001 },
            ..Default::default()
        })
        .collect();
    let mut ev = Evaluator::new(
        &model.character,
        &model.clips,
        SourceSpec::Clip(0),
        params.clone(),
    );
    assert_eq!(compiled_layer_clips(&ev), 2);
    let before: Vec<*const ClipBinding> = ev
        .layers
        .clip_layers
        .bound()
        .iter()
        .map(|l| Arc::as_ptr(&l.source.as_ref().unwrap().binding))
        .collect();
    let pose_before = continue_to(&mut ev, 0.3);
    params.clips[5].weight = 0.5;
    ev.set_layers(&model.character, &model.clips, &params);
    assert_eq!(compiled_layer_clips(&ev), 2);
    let after = ev.layers.clip_layers.bound();
    assert!(
        after
            .iter()
            .zip(&before)
            .all(|(l, &b)| { Arc::as_ptr(&l.source.as_ref().unwrap().binding) == b })
    );
    assert_eq!(after[5].spec.weight, 0.5);
    ev.seek(0.0);
    assert_ne!(continue_to(&mut ev, 0.3), pose_before);
}
