//! animtune's IK jobs against ozz-animation-rs's (`IKTwoBoneJob`, `IKAimJob`; crates.io, ozz-animation's runtime
//! rewritten in Rust), built by scripts/ozz-peer.sh as a separate program (peers/ozz): both sides run the same
//! generated cases, and every correction agrees within 1e-5 per quaternion component (as rotations: q and -q are
//! one), with the same reachability.
//!
//! In the two-bone job's soft zone (`soften` below 1 and the target beyond it) the two sides' arithmetic differs
//! by more than rounding (ozz's soft-zone ratios go through reciprocal estimates in the C++ original, and the Rust
//! port keeps its order of operations), so those cases are compared within a wider tolerance. Below full weight
//! the aim job is checked against both ways the peers blend it from identity (see the test).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use animtune::runtime::{IkAimJob, IkTwoBoneJob};
use glam::{Mat4, Quat, Vec3};

/// The largest difference allowed between a correction of ours and ozz's, per quaternion component.
const TOLERANCE: f32 = 1e-5;

/// In the two-bone job's soft zone the corrections are compared within this (the largest seen is about 2.3e-4).
const SOFTENED_TOLERANCE: f32 = 2e-3;

/// A small deterministic generator (xorshift64*), so that a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32) / (1u64 << 24) as f32
    }
    fn range(&mut self, a: f32, b: f32) -> f32 {
        a + (b - a) * self.next()
    }
    fn unit(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if (0.05..1.0).contains(&v.length_squared()) {
                return v.normalize();
            }
        }
    }
    fn rotation(&mut self) -> Quat {
        Quat::from_axis_angle(self.unit(), self.range(-3.1, 3.1))
    }
    fn chance(&mut self, p: f32) -> bool {
        self.next() < p
    }
    /// A twist angle half the time, else none.
    fn twist(&mut self) -> f32 {
        if self.chance(0.5) {
            self.range(-1.5, 1.5)
        } else {
            0.0
        }
    }
}

/// A joint's model matrix: a rotation, a uniform scale (sometimes not 1) and a position.
fn joint(rng: &mut Rng, at: Vec3, scale: f32) -> Mat4 {
    Mat4::from_scale_rotation_translation(Vec3::splat(scale), rng.rotation(), at)
}

struct TwoBoneCase {
    target: Vec3,
    mid_axis: Vec3,
    pole: Vec3,
    twist: f32,
    soften: f32,
    weight: f32,
    joints: [Mat4; 3],
}

#[derive(Clone, Copy)]
struct AimCase {
    target: Vec3,
    forward: Vec3,
    offset: Vec3,
    up: Vec3,
    pole: Vec3,
    twist: f32,
    weight: f32,
    joint: Mat4,
}

fn two_bone_case(rng: &mut Rng) -> TwoBoneCase {
    let scale = if rng.chance(0.2) {
        rng.range(0.01, 3.0)
    } else {
        1.0
    };
    let start = Vec3::new(
        rng.range(-1.0, 1.0),
        rng.range(0.0, 2.0),
        rng.range(-1.0, 1.0),
    );
    let (l1, l2) = (rng.range(0.1, 0.6), rng.range(0.1, 0.6));
    let mid = start + rng.unit() * l1;
    let end = mid + rng.unit() * l2;
    let reach = rng.range(0.0, 1.3) * (l1 + l2);
    TwoBoneCase {
        target: start + rng.unit() * reach,
        mid_axis: rng.unit(),
        pole: rng.unit(),
        twist: rng.twist(),
        soften: if rng.chance(0.5) {
            rng.range(0.5, 1.0)
        } else {
            1.0
        },
        weight: if rng.chance(0.6) {
            1.0
        } else if rng.chance(0.1) {
            0.0
        } else {
            rng.range(0.0, 1.0)
        },
        joints: [
            joint(rng, start, scale),
            joint(rng, mid, scale),
            joint(rng, end, scale),
        ],
    }
}

fn aim_case(rng: &mut Rng) -> AimCase {
    let at = Vec3::new(
        rng.range(-1.0, 1.0),
        rng.range(0.0, 2.0),
        rng.range(-1.0, 1.0),
    );
    let offset = if rng.chance(0.5) {
        rng.unit() * rng.range(0.0, 0.3)
    } else {
        Vec3::ZERO
    };
    AimCase {
        target: at + rng.unit() * rng.range(0.05, 3.0),
        forward: rng.unit(),
        offset,
        up: rng.unit(),
        pole: rng.unit(),
        twist: rng.twist(),
        weight: if rng.chance(0.6) {
            1.0
        } else {
            rng.range(0.0, 1.0)
        },
        joint: joint(rng, at, 1.0),
    }
}

fn push(line: &mut String, values: &[f32]) {
    for v in values {
        line.push_str(&format!(" {v:.9e}"));
    }
}

fn push_matrix(line: &mut String, m: &Mat4) {
    push(line, &m.to_cols_array());
}

/// Builds the peer (scripts/ozz-peer.sh: ozz-animation-rs from crates.io, in its own target folder) once for
/// the tests of this file, which run in parallel, and returns its binary.
fn build_ozz_peer() -> PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY
        .get_or_init(|| {
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/ozz-peer.sh");
            let out = Command::new(&script)
                .output()
                .expect("scripts/ozz-peer.sh runs");
            assert!(
                out.status.success(),
                "scripts/ozz-peer.sh failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
        })
        .clone()
}

/// What the peer printed; its failure fails the test.
fn peer_output(mut command: Command) -> String {
    let out = command.output().expect("the peer runs");
    assert!(
        out.status.success(),
        "the peer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn run_ozz(binary: &Path, input: &str) -> Vec<Vec<f32>> {
    // Through a file: a pipe written whole before reading would block once the output fills its buffer.
    let cases = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ozz-ik-cases.txt");
    std::fs::write(&cases, input).unwrap();
    let mut command = Command::new(binary);
    command
        .arg("ik")
        .stdin(std::fs::File::open(&cases).unwrap());
    peer_output(command)
        .lines()
        .map(|l| {
            assert_ne!(l, "invalid", "ozz refused a case");
            l.split_whitespace().map(|v| v.parse().unwrap()).collect()
        })
        .collect()
}

/// The most a result moves when the target moves by 1e-6 of its size along each axis: the noise a few f32
/// roundings make. Where a chain is nearly straight (acos near ±1) or an aim's up or pole nearly lies on the aim,
/// that noise reaches 1e-4 and more, on either side; the comparison allows it on top of the tolerance.
fn nudged(target: Vec3, moved: impl Fn(Vec3) -> f32) -> f32 {
    let nudge = 1e-6 * target.length().max(1.0);
    [Vec3::X, Vec3::Y, Vec3::Z]
        .iter()
        .map(|&axis| moved(target + axis * nudge))
        .fold(0.0, f32::max)
}

/// Our aim job on a case, with its target replaced by `target`.
fn solve_aim(c: &AimCase, target: Vec3) -> (Quat, bool) {
    let (mut q, mut reached) = (Quat::IDENTITY, false);
    let mut job = IkAimJob::new(&c.joint, &mut q, &mut reached);
    job.target = target.into();
    job.forward = c.forward.into();
    job.offset = c.offset.into();
    job.up = c.up.into();
    job.pole_vector = c.pole.into();
    job.twist_angle = c.twist;
    job.weight = c.weight;
    job.run().unwrap();
    (q, reached)
}

/// Our two-bone job on a case, with its target replaced by `target`.
fn solve_two_bone(c: &TwoBoneCase, target: Vec3) -> (Quat, Quat, bool) {
    let (mut start, mut mid, mut reached) = (Quat::IDENTITY, Quat::IDENTITY, false);
    let [a, b, e] = &c.joints;
    let mut job = IkTwoBoneJob::new(a, b, e, &mut start, &mut mid, &mut reached);
    job.target = target.into();
    job.mid_axis = c.mid_axis.into();
    job.pole_vector = c.pole.into();
    job.twist_angle = c.twist;
    job.soften = c.soften;
    job.weight = c.weight;
    job.run().unwrap();
    (start, mid, reached)
}

fn quat_of(v: &[f32]) -> Quat {
    Quat::from_xyzw(v[0], v[1], v[2], v[3])
}

/// The largest component difference between two corrections, as rotations: q and -q are the same rotation, and
/// a weighted correction of ozz-animation-rs can come out on the other sign (its blend towards identity does not
/// pick a hemisphere), so the nearer of `b` and `-b` is compared.
fn difference(a: Quat, b: Quat) -> f32 {
    let (a, b) = (glam::Vec4::from(a), glam::Vec4::from(b));
    (a - b).abs().max_element().min((a + b).abs().max_element())
}

#[test]
fn ik_jobs_agree_with_ozz_within_1e_5() {
    let binary = build_ozz_peer();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let two_bone: Vec<TwoBoneCase> = (0..2000).map(|_| two_bone_case(&mut rng)).collect();
    let aims: Vec<AimCase> = (0..2000).map(|_| aim_case(&mut rng)).collect();
    let mut input = String::new();
    for c in &two_bone {
        input.push_str("two_bone");
        push(&mut input, &c.target.to_array());
        push(&mut input, &c.mid_axis.to_array());
        push(&mut input, &c.pole.to_array());
        push(&mut input, &[c.twist, c.soften, c.weight]);
        c.joints.iter().for_each(|m| push_matrix(&mut input, m));
        input.push('\n');
    }
    // Every aim case, then each weighted one again at full weight (for the hemisphere check below).
    let full_weight: Vec<AimCase> = aims
        .iter()
        .filter(|c| c.weight < 1.0)
        .map(|c| AimCase { weight: 1.0, ..*c })
        .collect();
    for c in aims.iter().chain(&full_weight) {
        input.push_str("aim");
        for v in [c.target, c.forward, c.offset, c.up, c.pole] {
            push(&mut input, &v.to_array());
        }
        push(&mut input, &[c.twist, c.weight]);
        push_matrix(&mut input, &c.joint);
        input.push('\n');
    }
    let ozz = run_ozz(&binary, &input);
    assert_eq!(ozz.len(), two_bone.len() + aims.len() + full_weight.len());
    let mut full_weight_answers = ozz[two_bone.len() + aims.len()..].iter();
    let mut long_way = 0;

    // Each family's largest difference beyond the conditioning noise: (name, excess, case index, tolerance).
    let mut worst: Vec<(&str, f32, usize, f32)> = Vec::new();
    let mut note = |family: &'static str, d: f32, i: usize, tolerance: f32| match worst
        .iter_mut()
        .find(|w| w.0 == family)
    {
        Some(w) if d > w.1 => *w = (family, d, i, tolerance),
        Some(_) => {}
        None => worst.push((family, d, i, tolerance)),
    };
    // Cases whose raw difference exceeds 1e-5 but lies within their conditioning noise.
    let mut ill_conditioned = 0;
    let mut reached_count = 0;
    for (i, (c, theirs)) in two_bone.iter().zip(&ozz).enumerate() {
        let (start, mid, reached) = solve_two_bone(c, c.target);
        assert_eq!(reached, theirs[8] == 1.0, "two-bone case {i}: reached");
        reached_count += usize::from(reached);
        let d =
            difference(start, quat_of(&theirs[0..4])).max(difference(mid, quat_of(&theirs[4..8])));
        if c.soften < 1.0 {
            note("two-bone, softened", d, i, SOFTENED_TOLERANCE);
            continue;
        }
        let noise = nudged(c.target, |t| {
            let (s2, m2, _) = solve_two_bone(c, t);
            difference(start, s2).max(difference(mid, m2))
        });
        ill_conditioned += usize::from(d > TOLERANCE && d - noise <= TOLERANCE);
        note("two-bone", d - noise, i, TOLERANCE);
    }
    for (i, (c, theirs)) in aims.iter().zip(&ozz[two_bone.len()..]).enumerate() {
        let (q, reached) = solve_aim(c, c.target);
        assert_eq!(reached, theirs[4] == 1.0, "aim case {i}: reached");
        let theirs = quat_of(&theirs[0..4]);
        let (family, d) = if c.weight < 1.0 {
            // Below full weight ozz lerps the correction from identity. ozz-animation-rs first puts the full
            // correction on the positive-w side (the short way); ozz 0.16, whose choice our job keeps, lerps it
            // as it came out of the solve, so where that had a negative w it goes the long way. Both answers
            // are made from the peer's full-weight correction, and ours must be one of them.
            let full = quat_of(full_weight_answers.next().unwrap());
            let lerp = |q: Quat| {
                Quat::from_vec4(
                    (glam::Vec4::W + (glam::Vec4::from(q) - glam::Vec4::W) * c.weight).normalize(),
                )
            };
            let short = difference(q, theirs).max(difference(theirs, lerp(full)));
            let long = difference(q, lerp(-full));
            long_way += usize::from(long < short);
            ("aim, weighted", short.min(long))
        } else {
            ("aim", difference(q, theirs))
        };
        let noise = nudged(c.target, |t| difference(q, solve_aim(c, t).0));
        ill_conditioned += usize::from(d > TOLERANCE && d - noise <= TOLERANCE);
        note(family, d - noise, i, TOLERANCE);
    }
    println!(
        "largest difference from ozz beyond conditioning noise, per family: {worst:?}; {ill_conditioned} \
         ill-conditioned cases; {reached_count} two-bone targets reached; {long_way} weighted aims the long way"
    );
    assert!(
        long_way < full_weight.len() / 2,
        "{long_way} weighted aims took the long way"
    );
    assert!(reached_count > 200 && reached_count < 1800);
    assert!(
        ill_conditioned < 40,
        "{ill_conditioned} ill-conditioned cases"
    );
    for (family, d, i, tolerance) in &worst {
        assert!(*d <= *tolerance, "{family}: case {i} is {d} from ozz");
    }
}

#[path = "../../examples/support/ozz_archive.rs"]
mod ozz_archive;

use crate::common::angle_deg;

/// A rotation channel at `time` as ozz interpolates it: the normalised lerp of the two keys around it (the
/// second on the first's side), where our source sampler slerps.
fn nlerp_keys(keys: &animtune::core::Keys<Quat>, time: f32) -> Quat {
    let times = keys.times();
    let next = times.partition_point(|&t| t <= time);
    if next == 0 || next == times.len() {
        return keys.sample(time);
    }
    let (t0, t1) = (times[next - 1], times[next]);
    let (a, mut b) = (keys.sample(t0), keys.sample(t1));
    if a.dot(b) < 0.0 {
        b = -b;
    }
    let f = (time - t0) / (t1 - t0);
    Quat::from_vec4((glam::Vec4::from(a) * (1.0 - f) + glam::Vec4::from(b) * f).normalize())
}

/// The archives `runtime_bench --write-ozz` gives the peer play our clips' own keys: ozz-animation-rs samples
/// Quaternius's walk and sprint through them at many ratios, played forward through one context and then a jump
/// back, and every joint's local transform is the source clip's at that time, within what the archive's half
/// floats and 15-bit quaternion components keep
/// (rotations interpolated by normalised lerp, as ozz does).
#[test]
fn ozz_archives_play_our_keys() {
    let model = animtune::import::load_file(&crate::common::quaternius()).unwrap();
    let skeleton = &model.character.skeleton;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ozz-archives");
    std::fs::create_dir_all(&dir).unwrap();
    ozz_archive::write_skeleton(skeleton, &dir.join("skeleton.ozz")).unwrap();
    let binary = build_ozz_peer();
    for name in ["Walk_Loop", "Sprint_Loop"] {
        let clip = model.clips.iter().find(|c| c.name == name).unwrap();
        ozz_archive::write_animation(clip, skeleton, &dir.join(format!("{name}.ozz"))).unwrap();
        let mut ratios: Vec<f32> = (0..=40).map(|k| k as f32 / 40.0).collect();
        ratios.extend([0.37, 0.1, 0.999]);
        let mut command = Command::new(&binary);
        command
            .arg("sample")
            .arg(&dir)
            .arg(name)
            .args(ratios.iter().map(|r| r.to_string()));
        let out = peer_output(command);
        let (mut worst_deg, mut worst_m, mut compared) = (0.0f64, 0.0f32, 0);
        for line in out.lines() {
            let v: Vec<f32> = line
                .split_whitespace()
                .map(|w| w.parse().unwrap())
                .collect();
            let (time, joint) = (v[0] * clip.duration, v[1] as usize);
            let track = clip
                .tracks
                .iter()
                .find(|t| t.target.name == skeleton.name(joint));
            let rest = skeleton.rest()[joint];
            let rotation = track
                .and_then(|t| t.rotation.as_ref())
                .map_or(rest.rotation, |k| nlerp_keys(k, time));
            let translation = track
                .and_then(|t| t.translation.as_ref())
                .map_or(Vec3::from(rest.translation), |k| k.sample(time));
            let theirs_r = Quat::from_xyzw(v[5], v[6], v[7], v[8]);
            let theirs_t = Vec3::new(v[2], v[3], v[4]);
            worst_deg = worst_deg.max(angle_deg(rotation, theirs_r));
            // Half floats keep 11 significant bits: 1/2048 of the value's size.
            let allowed = 1e-4 + translation.abs().max_element() / 1024.0;
            worst_m = worst_m.max((translation - theirs_t).abs().max_element() / allowed);
            compared += 1;
        }
        println!(
            "{name}: {compared} joint samples; largest rotation difference {worst_deg:.4}°, translation {worst_m:.3} of its allowance"
        );
        assert_eq!(compared, ratios.len() * skeleton.len());
        assert!(
            worst_deg < 0.01,
            "{name}: a rotation is {worst_deg}° from the source"
        );
        assert!(
            worst_m <= 1.0,
            "{name}: a translation is {worst_m} of its allowance from the source"
        );
    }
}
