//! The mannequin's body: tapered capsules along its bones, skinned smoothly across the joints, written as two
//! primitives (body and eyes).

use std::f32::consts::{PI, TAU};

use glam::{Vec2, Vec3};
use serde_json::json;

use super::rig::JointSpec;
use crate::io::glb::{Component, GlbBuilder, Target};

/// A tapered, optionally flattened capsule from `a` to `b`, skinned along a chain of joints.
struct Capsule {
    a: Vec3,
    b: Vec3,
    ra: f32,
    rb: f32,
    /// Cross-section scale along the two perpendicular axes (1, 1 = round).
    squash: Vec2,
    /// Joints whose heads lie along the capsule, in order; each owns the stretch after its head.
    chain: Vec<usize>,
    /// Joint that owns the stretch before the first chain joint's head (usually its parent).
    before: Option<usize>,
    /// Primitive (0 = body, 1 = eyes).
    primitive: usize,
}

#[derive(Default)]
struct MeshData {
    positions: Vec<f32>,
    normals: Vec<f32>,
    joints: Vec<u32>,
    weights: Vec<f32>,
    indices: Vec<u32>,
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

impl Capsule {
    fn frame(&self) -> (Vec3, Vec3, Vec3) {
        let dir = (self.b - self.a).normalize();
        let hint = if dir.y.abs() > 0.9 { Vec3::X } else { Vec3::Y };
        let u = hint.cross(dir).normalize();
        let w = dir.cross(u);
        (dir, u, w)
    }

    /// Weights of up to four joints for a point, from its position along the capsule's axis.
    fn weights(&self, p: Vec3, heads: &[Vec3]) -> Vec<(usize, f32)> {
        let (dir, _, _) = self.frame();
        let s = (p - self.a).dot(dir);
        let along: Vec<f32> = self
            .chain
            .iter()
            .map(|&j| (heads[j] - self.a).dot(dir))
            .collect();
        let mut out: Vec<(usize, f32)> = Vec::new();
        let blend = |i: usize| -> f32 {
            let prev = if i == 0 { f32::MIN } else { along[i - 1] };
            let next = along.get(i + 1).copied().unwrap_or(f32::MAX);
            let b = (0.3 * (along[i] - prev).min(next - along[i])).min(0.05);
            smoothstep(along[i] - b, along[i] + b, s)
        };
        let f: Vec<f32> = (0..along.len()).map(blend).collect();
        if let Some(parent) = self.before {
            out.push((parent, 1.0 - f[0]));
        }
        for (k, &j) in self.chain.iter().enumerate() {
            let first = if self.before.is_none() && k == 0 {
                1.0
            } else {
                f[k]
            };
            let w = first * (1.0 - f.get(k + 1).copied().unwrap_or(0.0));
            out.push((j, w));
        }
        out.retain(|(_, w)| *w > 1e-4);
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out.truncate(4);
        let sum: f32 = out.iter().map(|(_, w)| w).sum();
        out.iter_mut().for_each(|(_, w)| *w /= sum);
        out
    }

    fn emit(&self, heads: &[Vec3], mesh: &mut MeshData) {
        const SIDES: usize = 14;
        const CAP_ROWS: usize = 4;
        let (dir, u, w) = self.frame();
        let len = (self.b - self.a).length();
        let body_rows = ((len / 0.03).ceil() as usize).clamp(2, 24);
        let mut rows: Vec<(Vec3, f32, f32)> = Vec::new(); // centre, radius, normal tilt (sin of latitude)
        for k in 1..CAP_ROWS {
            let lat = -PI / 2.0 + (k as f32 / CAP_ROWS as f32) * PI / 2.0;
            rows.push((
                self.a + dir * (self.ra * lat.sin()),
                self.ra * lat.cos(),
                lat.sin(),
            ));
        }
        for k in 0..=body_rows {
            let t = k as f32 / body_rows as f32;
            rows.push((
                self.a.lerp(self.b, t),
                self.ra + (self.rb - self.ra) * t,
                0.0,
            ));
        }
        for k in 1..CAP_ROWS {
            let lat = (k as f32 / CAP_ROWS as f32) * PI / 2.0;
            rows.push((
                self.b + dir * (self.rb * lat.sin()),
                self.rb * lat.cos(),
                lat.sin(),
            ));
        }
        let base = (mesh.positions.len() / 3) as u32;
        let mut push = |p: Vec3, n: Vec3| {
            mesh.positions.extend(p.to_array());
            mesh.normals.extend(n.normalize().to_array());
            let ws = self.weights(p, heads);
            for i in 0..4 {
                let (j, wt) = ws.get(i).copied().unwrap_or((0, 0.0));
                mesh.joints.push(if wt > 0.0 { j as u32 } else { 0 });
                mesh.weights.push(wt);
            }
        };
        push(self.a - dir * self.ra, -dir);
        for &(c, r, tilt) in &rows {
            for s in 0..SIDES {
                let ang = TAU * s as f32 / SIDES as f32;
                let (sin, cos) = ang.sin_cos();
                let radial = u * (cos * self.squash.x) + w * (sin * self.squash.y);
                let radial_n = (u * (cos / self.squash.x) + w * (sin / self.squash.y)).normalize();
                let n = radial_n * (1.0 - tilt * tilt).sqrt() + dir * tilt;
                push(c + radial * r, n);
            }
        }
        push(self.b + dir * self.rb, dir);
        let ring = |r: usize, s: usize| base + 1 + (r * SIDES + s % SIDES) as u32;
        let last_pole = base + 1 + (rows.len() * SIDES) as u32;
        for s in 0..SIDES {
            mesh.indices.extend([base, ring(0, s + 1), ring(0, s)]);
        }
        for r in 0..rows.len() - 1 {
            for s in 0..SIDES {
                let (a, b, c, d) = (
                    ring(r, s),
                    ring(r, s + 1),
                    ring(r + 1, s),
                    ring(r + 1, s + 1),
                );
                mesh.indices.extend([a, b, d, a, d, c]);
            }
        }
        let top = rows.len() - 1;
        for s in 0..SIDES {
            mesh.indices
                .extend([ring(top, s), ring(top, s + 1), last_pole]);
        }
    }
}

fn capsules(specs: &[JointSpec]) -> Vec<Capsule> {
    let j = |name: &str| {
        specs
            .iter()
            .position(|s| s.name == name)
            .expect("mannequin joint")
    };
    let h = |name: &str| specs[j(name)].head;
    let mut out = vec![
        Capsule {
            a: h("Hips") - Vec3::Y * 0.02,
            b: h("Neck") - Vec3::Y * 0.13,
            ra: 0.125,
            rb: 0.14,
            squash: Vec2::new(1.2, 0.75),
            chain: vec![j("Hips"), j("Spine"), j("Chest"), j("UpperChest")],
            before: None,
            primitive: 0,
        },
        Capsule {
            a: h("Neck") - Vec3::Y * 0.03,
            b: h("Head"),
            ra: 0.05,
            rb: 0.05,
            squash: Vec2::ONE,
            chain: vec![j("Neck"), j("Head")],
            before: Some(j("UpperChest")),
            primitive: 0,
        },
        Capsule {
            a: h("Head") + Vec3::new(0.0, 0.06, 0.0),
            b: h("Head") + Vec3::new(0.0, 0.16, 0.0),
            ra: 0.095,
            rb: 0.085,
            squash: Vec2::new(1.0, 1.1),
            chain: vec![j("Head")],
            before: None,
            primitive: 0,
        },
    ];
    for eye in ["LeftEye", "RightEye"] {
        out.push(Capsule {
            a: h(eye),
            b: h(eye) + Vec3::Z * 0.005,
            ra: 0.014,
            rb: 0.014,
            squash: Vec2::ONE,
            chain: vec![j(eye)],
            before: None,
            primitive: 1,
        });
    }
    for side in ["Left", "Right"] {
        let n = |b: &str| format!("{side}{b}");
        out.push(Capsule {
            a: h(&n("Shoulder")),
            b: h(&n("UpperArm")),
            ra: 0.055,
            rb: 0.06,
            squash: Vec2::new(1.0, 1.0),
            chain: vec![j(&n("Shoulder"))],
            before: Some(j("UpperChest")),
            primitive: 0,
        });
        out.push(Capsule {
            a: h(&n("UpperArm")),
            b: h(&n("Hand")),
            ra: 0.05,
            rb: 0.035,
            squash: Vec2::ONE,
            chain: [
                "UpperArm",
                "UpperArmTwist",
                "LowerArm",
                "LowerArmTwist",
                "Hand",
            ]
            .map(|b| j(&n(b)))
            .to_vec(),
            before: Some(j(&n("Shoulder"))),
            primitive: 0,
        });
        out.push(Capsule {
            a: h(&n("Hand")),
            b: h(&n("MiddleProximal")) - (h(&n("MiddleProximal")) - h(&n("Hand"))) * 0.15,
            ra: 0.03,
            rb: 0.035,
            squash: Vec2::new(0.55, 1.3),
            chain: vec![j(&n("Hand"))],
            before: Some(j(&n("LowerArmTwist"))),
            primitive: 0,
        });
        for finger in ["Thumb", "Index", "Middle", "Ring", "Little"] {
            let f = |seg: &str| n(&format!("{finger}{seg}"));
            let tip = h(&f("Distal")) + (h(&f("Distal")) - h(&f("Intermediate"))) * 0.8;
            let r = if finger == "Thumb" { 0.011 } else { 0.009 };
            out.push(Capsule {
                a: h(&f("Proximal")),
                b: tip,
                ra: r,
                rb: r * 0.8,
                squash: Vec2::ONE,
                chain: vec![j(&f("Proximal")), j(&f("Intermediate")), j(&f("Distal"))],
                before: Some(j(&n("Hand"))),
                primitive: 0,
            });
        }
        out.push(Capsule {
            a: h(&n("UpperLeg")) + Vec3::Y * 0.02,
            b: h(&n("Foot")),
            ra: 0.08,
            rb: 0.045,
            squash: Vec2::ONE,
            chain: [
                "UpperLeg",
                "UpperLegTwist",
                "LowerLeg",
                "LowerLegTwist",
                "Foot",
            ]
            .map(|b| j(&n(b)))
            .to_vec(),
            before: Some(j("Hips")),
            primitive: 0,
        });
        let foot = h(&n("Foot"));
        out.push(Capsule {
            a: Vec3::new(foot.x, 0.045, -0.05),
            b: Vec3::new(foot.x, 0.035, 0.17),
            ra: 0.04,
            rb: 0.035,
            squash: Vec2::new(1.0, 0.7),
            chain: vec![j(&n("Foot")), j(&n("Toes"))],
            before: Some(j(&n("LowerLegTwist"))),
            primitive: 0,
        });
    }
    out
}

/// Writes the body and eyes primitives (skinned capsules) into `glb`; returns their JSON.
pub(super) fn write_primitives(
    glb: &mut GlbBuilder,
    specs: &[JointSpec],
) -> Vec<serde_json::Value> {
    let heads: Vec<Vec3> = specs.iter().map(|s| s.head).collect();
    let mut bodies = [MeshData::default(), MeshData::default()];
    for c in capsules(specs) {
        c.emit(&heads, &mut bodies[c.primitive]);
    }

    let mut primitives = Vec::new();
    for (i, m) in bodies.iter().enumerate() {
        let pos = glb.floats(&m.positions, "VEC3", 3, Some(Target::Vertices), true);
        let nrm = glb.floats(&m.normals, "VEC3", 3, Some(Target::Vertices), false);
        let jnt = glb.uints(&m.joints, Component::U8, "VEC4", 4, Some(Target::Vertices));
        let wgt = glb.floats(&m.weights, "VEC4", 4, Some(Target::Vertices), false);
        let idx = glb.uints(
            &m.indices,
            Component::U16,
            "SCALAR",
            1,
            Some(Target::Indices),
        );
        primitives.push(json!({
            "attributes": {"POSITION": pos, "NORMAL": nrm, "JOINTS_0": jnt, "WEIGHTS_0": wgt},
            "indices": idx, "material": i
        }));
    }
    primitives
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_normalised_and_smooth() {
        let specs = super::super::rig::joints();
        let heads: Vec<Vec3> = specs.iter().map(|s| s.head).collect();
        let mut mesh = MeshData::default();
        for c in capsules(&specs) {
            c.emit(&heads, &mut mesh);
        }
        for w in mesh.weights.chunks_exact(4) {
            let sum: f32 = w.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{w:?}");
        }
        // Some vertices blend two or more joints (smooth skinning, not rigid).
        let blended = mesh.weights.chunks_exact(4).filter(|w| w[1] > 0.1).count();
        assert!(blended > 100, "{blended} blended vertices");
    }
}
