//! animtune's IK jobs against ozz-animation's own (`IKTwoBoneJob`, `IKAimJob`), through the ozz anchor in
//! `../shared/anchors/ozz` (beside the extended fixtures): ozz's `ik_two_bone_job.cc` and `ik_aim_job.cc` are
//! compiled with `benches/ozz/ozz_ik.cc`, both sides run the same generated cases, and every correction agrees
//! within 1e-5 per quaternion component, with the same reachability.
//!
//! ozz estimates some reciprocals (12-bit `rcpps`/`rsqrtps`) where animtune divides exactly: in the soft zone of
//! the two-bone job (`soften` below 1 and the target beyond it) and in the normalisation of a partly weighted aim.
//! Those cases are compared too; the test reports how far each family is apart.

use std::path::{Path, PathBuf};
use std::process::Command;

use animtune::runtime::{IkAimJob, IkTwoBoneJob};
use glam::{Mat4, Quat, Vec3};

use crate::common::extra_asset;

/// The largest difference allowed between a correction of ours and ozz's, per quaternion component.
const TOLERANCE: f32 = 1e-5;

/// In the two-bone job's soft zone ozz divides by `rcpss` estimates (12 bits, relative error up to 3.7e-4) with no
/// refinement, three times; animtune divides exactly. The corrections there are compared within this.
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

/// Extracts ozz's headers and IK sources from the anchor's archive and compiles the harness against them.
fn build_ozz_ik(anchor: &Path) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ozz-ik");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sources = [
        "src/animation/runtime/ik_two_bone_job.cc",
        "src/animation/runtime/ik_aim_job.cc",
    ];
    let status = Command::new("tar")
        .arg("xzf")
        .arg(anchor)
        .arg("-C")
        .arg(&dir)
        .arg("include")
        .args(sources)
        .status()
        .expect("tar runs");
    assert!(
        status.success(),
        "tar could not extract {}",
        anchor.display()
    );
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/ozz/ozz_ik.cc");
    let binary = dir.join("ozz_ik");
    let out = Command::new("g++")
        .args(["-O2", "-std=c++17", "-Wno-ignored-attributes", "-I"])
        .arg(dir.join("include"))
        .arg(&harness)
        .args(sources.map(|s| dir.join(s)))
        .arg("-o")
        .arg(&binary)
        .output()
        .expect("g++ runs (scripts/test.sh installs it)");
    assert!(
        out.status.success(),
        "g++ failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    binary
}

fn run_ozz(binary: &Path, input: &str) -> Vec<Vec<f32>> {
    // Through a file: a pipe written whole before reading would block once the output fills its buffer.
    let cases = binary.with_file_name("cases.txt");
    std::fs::write(&cases, input).unwrap();
    let out = Command::new(binary)
        .stdin(std::fs::File::open(&cases).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
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

fn difference(a: Quat, b: Quat) -> f32 {
    (glam::Vec4::from(a) - glam::Vec4::from(b))
        .abs()
        .max_element()
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn ik_jobs_agree_with_ozz_within_1e_5() {
    let anchor = extra_asset("../anchors/ozz/ozz-animation-0.16.0-6cbdc79.tar.gz");
    let binary = build_ozz_ik(&anchor);
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
    for c in &aims {
        input.push_str("aim");
        for v in [c.target, c.forward, c.offset, c.up, c.pole] {
            push(&mut input, &v.to_array());
        }
        push(&mut input, &[c.twist, c.weight]);
        push_matrix(&mut input, &c.joint);
        input.push('\n');
    }
    let ozz = run_ozz(&binary, &input);
    assert_eq!(ozz.len(), two_bone.len() + aims.len());

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
        let mut theirs = quat_of(&theirs[0..4]);
        let family = if c.weight < 1.0 {
            // ozz normalises a weighted aim by a 12-bit estimate: its length is off by up to 4e-4.
            theirs = theirs.normalize();
            "aim, weighted"
        } else {
            "aim"
        };
        let d = difference(q, theirs);
        let noise = nudged(c.target, |t| difference(q, solve_aim(c, t).0));
        ill_conditioned += usize::from(d > TOLERANCE && d - noise <= TOLERANCE);
        note(family, d - noise, i, TOLERANCE);
    }
    println!(
        "largest difference from ozz beyond conditioning noise, per family: {worst:?}; {ill_conditioned} \
         ill-conditioned cases; {reached_count} two-bone targets reached"
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
