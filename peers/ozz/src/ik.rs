//! ozz-animation-rs's `IKTwoBoneJob` and `IKAimJob` on cases read from standard input: the reference side of
//! tests/headless/ozz_ik.rs, which feeds animtune's jobs the same cases.
//!
//! One case a line, numbers separated by spaces; matrices are 16 floats, column by column (as glam holds them):
//!   two_bone TARGET(3) MID_AXIS(3) POLE(3) TWIST SOFTEN WEIGHT START(16) MID(16) END(16)
//!     -> START_CORRECTION(x y z w) MID_CORRECTION(x y z w) REACHED(0|1)
//!   aim TARGET(3) FORWARD(3) OFFSET(3) UP(3) POLE(3) TWIST WEIGHT JOINT(16)
//!     -> CORRECTION(x y z w) REACHED(0|1)
//! A case the job refuses prints "invalid".

use std::fmt::Write as _;
use std::io::Read;

use glam::{Mat4, Quat, Vec3A};
use ozz_animation_rs::{IKAimJob, IKTwoBoneJob};

fn vec(v: &[f32]) -> Vec3A {
    Vec3A::new(v[0], v[1], v[2])
}

fn matrix(m: &[f32]) -> Mat4 {
    Mat4::from_cols_slice(m)
}

fn print(out: &mut String, q: Quat) {
    for c in q.to_array() {
        let _ = write!(out, "{c:.9e} ");
    }
}

/// Reads every case from standard input and writes one result line per case to standard output.
pub fn run() -> Result<(), String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("reading the cases: {e}"))?;
    let mut out = String::new();
    for (number, line) in input.lines().enumerate() {
        let mut words = line.split_whitespace();
        let Some(kind) = words.next() else { continue };
        let v: Vec<f32> = words
            .map(|w| w.parse::<f32>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("line {}: {e}", number + 1))?;
        match (kind, v.len()) {
            ("two_bone", 60) => {
                let mut job = IKTwoBoneJob::default();
                job.set_target(vec(&v[0..]));
                job.set_mid_axis(vec(&v[3..]));
                job.set_pole_vector(vec(&v[6..]));
                job.set_twist_angle(v[9]);
                job.set_soften(v[10]);
                job.set_weight(v[11]);
                job.set_start_joint(matrix(&v[12..28]));
                job.set_mid_joint(matrix(&v[28..44]));
                job.set_end_joint(matrix(&v[44..60]));
                if job.run().is_err() {
                    out.push_str("invalid\n");
                    continue;
                }
                print(&mut out, job.start_joint_correction());
                print(&mut out, job.mid_joint_correction());
                out.push_str(if job.reached() { "1\n" } else { "0\n" });
            }
            ("aim", 33) => {
                let mut job = IKAimJob::default();
                job.set_target(vec(&v[0..]));
                job.set_forward(vec(&v[3..]));
                job.set_offset(vec(&v[6..]));
                job.set_up(vec(&v[9..]));
                job.set_pole_vector(vec(&v[12..]));
                job.set_twist_angle(v[15]);
                job.set_weight(v[16]);
                job.set_joint(matrix(&v[17..33]));
                if job.run().is_err() {
                    out.push_str("invalid\n");
                    continue;
                }
                print(&mut out, job.joint_correction());
                out.push_str(if job.reached() { "1\n" } else { "0\n" });
            }
            _ => {
                return Err(format!(
                    "line {}: '{kind}' with {} numbers is not a case",
                    number + 1,
                    v.len()
                ))
            }
        }
    }
    print!("{out}");
    Ok(())
}
