//! The Unity AnimDataSequence layout against the Unity originals' conventions, checked without our decoder:
//! the file is read with rmpv and evaluated with a Hermite written here; paths are computed here from the glTF
//! JSON; a file written the way the original writer writes one (every humanoid bone, every frame, Unity's
//! smooth tangents, Unity's axes, paths from the root) plays here on the glTF model.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use animtune::clipfile;
use animtune::core::binding::BindMethod;
use animtune::import::load_file;
use animtune::offline::frames::sample_frames;
use animtune::offline::{BakeSettings, ExportFormat, bake_clip, measure};
use glam::{Quat, Vec3};
use rmpv::Value;

/// Every node's path from the character root (the scene's root nodes are its children), from the glTF JSON.
fn node_paths(gltf: &Path) -> HashMap<String, String> {
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(gltf).unwrap()).unwrap();
    let nodes = json["nodes"].as_array().unwrap();
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            parent[c.as_u64().unwrap() as usize] = Some(i);
        }
    }
    let name = |i: usize| nodes[i]["name"].as_str().unwrap().to_string();
    (0..nodes.len())
        .map(|i| {
            let mut path = name(i);
            let mut j = i;
            while let Some(p) = parent[j] {
                path = format!("{}/{path}", name(p));
                j = p;
            }
            (name(i), path)
        })
        .collect()
}

/// Unity's `AnimationCurve.Evaluate`: cubic Hermite between keys [time, value, inTangent, outTangent].
fn evaluate(keys: &[[f32; 4]], t: f32) -> f32 {
    if t <= keys[0][0] {
        return keys[0][1];
    }
    if t >= keys[keys.len() - 1][0] {
        return keys[keys.len() - 1][1];
    }
    let i = keys.iter().rposition(|k| k[0] <= t).unwrap();
    let (a, b) = (keys[i], keys[i + 1]);
    let dt = b[0] - a[0];
    let u = (t - a[0]) / dt;
    let (u2, u3) = (u * u, u * u * u);
    (2.0 * u3 - 3.0 * u2 + 1.0) * a[1]
        + (u3 - 2.0 * u2 + u) * dt * a[3]
        + (-2.0 * u3 + 3.0 * u2) * b[1]
        + (u3 - u2) * dt * b[2]
}

fn f32_of(v: &Value) -> f32 {
    v.as_f64().unwrap() as f32
}

/// Path → (position at t, rotation at t) from a Unity-layout file, decoded with rmpv.
fn read_independently(bytes: &[u8], t: f32) -> HashMap<String, (Vec3, Quat)> {
    let v = rmpv::decode::read_value(&mut &bytes[..]).unwrap();
    let curves_at = |curves: &Value| -> Vec<f32> {
        curves
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let keys: Vec<[f32; 4]> = c.as_array().unwrap()[0]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| {
                        let k = k.as_array().unwrap();
                        [f32_of(&k[0]), f32_of(&k[1]), f32_of(&k[2]), f32_of(&k[3])]
                    })
                    .collect();
                evaluate(&keys, t)
            })
            .collect()
    };
    v.as_array().unwrap()[4]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let p = p.as_array().unwrap();
            let pos = curves_at(&p[1]);
            let rot = curves_at(&p[2]);
            (
                p[0].as_str().unwrap().to_string(),
                (
                    Vec3::new(pos[0], pos[1], pos[2]),
                    Quat::from_xyzw(rot[0], rot[1], rot[2], rot[3]).normalize(),
                ),
            )
        })
        .collect()
}

#[test]
fn walk_loop_in_the_unity_layout_is_in_unitys_axes_with_paths_from_the_root_and_every_bone() {
    let gltf = common::quaternius();
    let m = load_file(&gltf).unwrap();
    let c = &m.character;
    let clip = m.clips.iter().find(|c| c.name == "Walk_Loop").unwrap();
    // A tolerance far below the default keeps every grid frame, so the file holds the pose at 0.5 s exactly.
    let settings = BakeSettings {
        tolerance_cm: 1e-6,
        ..BakeSettings::default()
    };
    let baked = bake_clip(c, clip, ExportFormat::Unity, &settings);
    let values = read_independently(&baked.bytes, 0.5);
    let paths = node_paths(&gltf);
    let reference = sample_frames(clip, &c.skeleton, Some(&c.humanoid), vec![0.5]);
    let pose = &reference.poses[0];

    for (bone, joint) in c.humanoid.bones() {
        let name = c.skeleton.name(joint);
        let path = &paths[name];
        let (p, q) = values
            .get(path)
            .unwrap_or_else(|| panic!("{bone:?} ('{path}') has no curve"));
        let local = pose.local[joint];
        let t = Vec3::from(local.translation);
        let expected_p = Vec3::new(-t.x, t.y, t.z);
        let r = local.rotation;
        let expected_q = Quat::from_xyzw(r.x, -r.y, -r.z, r.w);
        let q = if q.dot(expected_q) < 0.0 { -*q } else { *q };
        assert!(
            p.distance(expected_p) < 1e-5,
            "{path}: position {p} vs {expected_p}"
        );
        assert!(
            (glam::Vec4::from(q) - glam::Vec4::from(expected_q))
                .abs()
                .max_element()
                < 1e-5,
            "{path}: rotation {q} vs {expected_q}"
        );
    }
    let hips = &paths["DEF-hips"];
    assert!(hips.starts_with("Rig/"), "{hips}");
    let hips_t = Vec3::from(pose.local[c.skeleton.find_by_name("DEF-hips").unwrap()].translation);
    assert!(hips_t.x.abs() > 1e-4, "the test needs a hips X to mirror");
    assert!((values[hips].0.x + hips_t.x).abs() < 1e-5);
}

/// Unity's smooth tangents (`AnimationCurve.SmoothTangents(i, 0)`): the mean of the slopes to the neighbours,
/// one-sided at the ends.
fn smooth_keys(times: &[f32], values: &[f32]) -> Vec<Value> {
    let n = times.len();
    let slope = |a: usize, b: usize| (values[b] - values[a]) / (times[b] - times[a]);
    (0..n)
        .map(|i| {
            let m = match i {
                _ if n == 1 => 0.0,
                0 => slope(0, 1),
                _ if i == n - 1 => slope(n - 2, n - 1),
                _ => 0.5 * slope(i - 1, i) + 0.5 * slope(i, i + 1),
            };
            Value::Array(vec![
                Value::F32(times[i]),
                Value::F32(values[i]),
                Value::F32(m),
                Value::F32(m),
            ])
        })
        .collect()
}

fn curve(times: &[f32], values: &[f32]) -> Value {
    Value::Array(vec![
        Value::Array(smooth_keys(times, values)),
        Value::from(8),
        Value::from(8),
    ])
}

#[test]
fn a_file_written_like_the_original_writer_plays_on_the_gltf_model() {
    let gltf = common::quaternius();
    let m = load_file(&gltf).unwrap();
    let c = &m.character;
    let clip = m.clips.iter().find(|c| c.name == "Walk_Loop").unwrap();
    let paths = node_paths(&gltf);
    // The writer's loop: `while (time <= clip.length) { …; time += 1 / frameRate; }`.
    let mut times = Vec::new();
    let mut time = 0.0f32;
    while time <= clip.duration {
        times.push(time);
        time += 1.0 / 30.0;
    }
    let frames = sample_frames(clip, &c.skeleton, Some(&c.humanoid), times.clone());
    let mut sequences = Vec::new();
    for (_, joint) in c.humanoid.bones() {
        let local: Vec<_> = frames.poses.iter().map(|p| p.local[joint]).collect();
        let column = |f: &dyn Fn(&animtune::core::Transform) -> f32| -> Vec<f32> {
            local.iter().map(f).collect()
        };
        // Unity's axes; quaternion signs as Unity's localRotation gives them (kept continuous here).
        let mut rotations: Vec<Quat> = Vec::new();
        for l in &local {
            let q = Quat::from_xyzw(l.rotation.x, -l.rotation.y, -l.rotation.z, l.rotation.w);
            let q = match rotations.last() {
                Some(prev) if prev.dot(q) < 0.0 => -q,
                _ => q,
            };
            rotations.push(q);
        }
        let rot = |f: fn(&Quat) -> f32| -> Vec<f32> { rotations.iter().map(f).collect() };
        sequences.push(Value::Array(vec![
            Value::from(paths[c.skeleton.name(joint)].as_str()),
            Value::Array(vec![
                curve(&times, &column(&|l| -l.translation.x)),
                curve(&times, &column(&|l| l.translation.y)),
                curve(&times, &column(&|l| l.translation.z)),
            ]),
            Value::Array(vec![
                curve(&times, &rot(|q| q.x)),
                curve(&times, &rot(|q| q.y)),
                curve(&times, &rot(|q| q.z)),
                curve(&times, &rot(|q| q.w)),
            ]),
        ]));
    }
    let file = Value::Array(vec![
        Value::from(0),
        Value::F32(clip.duration),
        Value::F32(30.0),
        Value::from(clip.name.as_str()),
        Value::Array(sequences),
    ]);
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &file).unwrap();

    let played = clipfile::decode(&bytes, Path::new("Walk_Loop.bytes"))
        .unwrap()
        .to_clip();
    let binding = played.bind(&c.skeleton, Some(&c.humanoid));
    assert!(
        binding.unbound_tracks.is_empty(),
        "{:?}",
        binding.unbound_tracks
    );
    assert!(
        binding
            .tracks
            .iter()
            .all(|b| b.as_ref().unwrap().method == BindMethod::Path),
        "every track binds by its path from the root"
    );
    let error = measure(&c.skeleton, &frames, &played);
    assert!(error <= 0.01 / 100.0, "{} cm at the keys", error * 100.0);
    // And it is the motion, not a still pose: the walk is far from its first frame half a second in.
    let mut still = frames.clone();
    still.poses = vec![frames.poses[0].clone(); frames.poses.len()];
    assert!(measure(&c.skeleton, &still, &played) > 0.01);
}
