//! `animtune pose` against an independent evaluation of the glTF 2.0 spec's animation rules (CesiumMan at 0.5 s).

mod common;

use std::collections::HashMap;
use std::process::Command;

use glam::{Mat4, Quat, Vec3, Vec4};
use serde_json::Value;

/// Spec Appendix C slerp, written out: a = acos(|q0·q1|), s = sign(q0·q1).
fn spec_slerp(q0: Vec4, q1: Vec4, t: f32) -> Vec4 {
    let d = q0.dot(q1);
    let s = if d < 0.0 { -1.0 } else { 1.0 };
    let a = d.abs().min(1.0).acos();
    if a < 1e-6 {
        return (q0 * (1.0 - t) + q1 * s * t).normalize();
    }
    q0 * ((a * (1.0 - t)).sin() / a.sin()) + q1 * (s * (a * t).sin() / a.sin())
}

/// Local TRS of every node at `time`, from the raw file, following the spec's LINEAR/STEP/CUBICSPLINE rules.
fn expected_locals(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    time: f32,
) -> Vec<(Vec3, Vec4, Vec3)> {
    let mut locals: Vec<(Vec3, Vec4, Vec3)> = doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            (Vec3::from(t), Vec4::from(r), Vec3::from(s))
        })
        .collect();
    let anim = doc.animations().next().unwrap();
    for ch in anim.channels() {
        let reader = ch.reader(|b| Some(&buffers[b.index()].0));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        let vals: Vec<Vec4> = match reader.read_outputs().unwrap() {
            gltf::animation::util::ReadOutputs::Translations(i)
            | gltf::animation::util::ReadOutputs::Scales(i) => {
                i.map(|v| Vec3::from(v).extend(0.0)).collect()
            }
            gltf::animation::util::ReadOutputs::Rotations(r) => {
                r.into_f32().map(Vec4::from).collect()
            }
            _ => continue,
        };
        assert_eq!(
            ch.sampler().interpolation(),
            gltf::animation::Interpolation::Linear
        );
        let k = times.iter().rposition(|&t| t <= time).unwrap();
        let v = if k + 1 >= times.len() {
            vals[k]
        } else {
            let u = (time - times[k]) / (times[k + 1] - times[k]);
            match ch.target().property() {
                gltf::animation::Property::Rotation => spec_slerp(vals[k], vals[k + 1], u),
                _ => vals[k] + (vals[k + 1] - vals[k]) * u,
            }
        };
        let l = &mut locals[ch.target().node().index()];
        match ch.target().property() {
            gltf::animation::Property::Translation => l.0 = v.truncate(),
            gltf::animation::Property::Rotation => l.1 = v,
            gltf::animation::Property::Scale => l.2 = v.truncate(),
            _ => {}
        }
    }
    locals
}

fn arr(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

#[test]
fn cesium_man_pose_at_half_a_second_matches_the_spec() {
    let path = common::asset("CesiumMan.glb");
    let (doc, buffers, _) = gltf::import(&path).unwrap();
    let locals = expected_locals(&doc, &buffers, 0.5);
    let mut parent = HashMap::new();
    for n in doc.nodes() {
        for c in n.children() {
            parent.insert(c.index(), n.index());
        }
    }
    let world = |mut i: usize| {
        let mut m = Mat4::IDENTITY;
        loop {
            let (t, r, s) = locals[i];
            m = Mat4::from_scale_rotation_translation(s, Quat::from_vec4(r), t) * m;
            match parent.get(&i) {
                Some(&p) => i = p,
                None => return m,
            }
        }
    };
    let by_name: HashMap<String, usize> = doc
        .nodes()
        .map(|n| (n.name().unwrap().to_string(), n.index()))
        .collect();

    let out = Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(["pose", path.to_str().unwrap(), "--time", "0.5", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let joints = json["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 19);
    for j in joints {
        let node = by_name[j["name"].as_str().unwrap()];
        let (t, r, s) = locals[node];
        let lt = arr(&j["local"]["translation"]);
        let lr = arr(&j["local"]["rotation"]);
        let ls = arr(&j["local"]["scale"]);
        for i in 0..3 {
            assert!(
                (lt[i] - t[i]).abs() < 1e-5,
                "{}: translation {lt:?} vs {t}",
                j["name"]
            );
            assert!(
                (ls[i] - s[i]).abs() < 1e-5,
                "{}: scale {ls:?} vs {s}",
                j["name"]
            );
        }
        let sign = if Vec4::from_slice(&lr).dot(r) < 0.0 {
            -1.0
        } else {
            1.0
        };
        for i in 0..4 {
            assert!(
                (lr[i] * sign - r[i]).abs() < 1e-5,
                "{}: rotation {lr:?} vs {r}",
                j["name"]
            );
        }
        // "model" is relative to the character root: the scene root here, so it is the node's world transform.
        let (ws, wr, wt) = world(node).to_scale_rotation_translation();
        let mt = arr(&j["model"]["translation"]);
        let mr = Quat::from_slice(&arr(&j["model"]["rotation"]));
        let ms = arr(&j["model"]["scale"]);
        assert!(
            Vec3::from_slice(&mt).abs_diff_eq(wt, 1e-5),
            "{}: model translation {mt:?} vs {wt}",
            j["name"]
        );
        assert!(
            mr.dot(wr).abs() > 1.0 - 1e-5,
            "{}: model rotation",
            j["name"]
        );
        assert!(
            Vec3::from_slice(&ms).abs_diff_eq(ws, 1e-4),
            "{}: model scale {ms:?} vs {ws}",
            j["name"]
        );
    }
}
