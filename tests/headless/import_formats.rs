//! Importer coverage for every allowed JOINTS_0 / WEIGHTS_0 component type, generated normals, joint order.

use std::path::Path;

use animtune::import::gltf::load_bytes;
use animtune::io::glb::{Component, GlbBuilder, Target};
use serde_json::json;

/// A two-joint skinned quad; joints listed in the skin in reverse order, weights in the given encoding.
fn quad(joints: Component, weights: Option<Component>, normals: bool) -> Vec<u8> {
    let mut g = GlbBuilder::new();
    let pos = [0.0f32, 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.];
    let p = g.floats(&pos, "VEC3", 3, Some(Target::Vertices), true);
    let j = g.uints(
        &[0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
        joints,
        "VEC4",
        4,
        Some(Target::Vertices),
    );
    // Vertex 0: 75% / 25%; vertex 1: 50/50; vertices 2, 3: one joint.
    let wf = [
        0.75f32, 0.25, 0., 0., 0.5, 0.5, 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.,
    ];
    let w = match weights {
        None => g.floats(&wf, "VEC4", 4, Some(Target::Vertices), false),
        Some(c) => {
            let max = if c == Component::U8 { 255.0 } else { 65535.0 };
            let q: Vec<u32> = wf.iter().map(|x| (x * max).round() as u32).collect();
            let a = g.uints(&q, c, "VEC4", 4, Some(Target::Vertices));
            g.set_normalized(a);
            a
        }
    };
    let i = g.uints(
        &[0, 1, 2, 0, 2, 3],
        Component::U16,
        "SCALAR",
        1,
        Some(Target::Indices),
    );
    let mut attributes = json!({"POSITION": p, "JOINTS_0": j, "WEIGHTS_0": w});
    if normals {
        let n = g.floats(
            &[0.0f32, 0., 1., 0., 0., 1., 0., 0., 1., 0., 0., 1.],
            "VEC3",
            3,
            Some(Target::Vertices),
            false,
        );
        attributes["NORMAL"] = json!(n);
    }
    let doc = json!({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 2]}],
        "nodes": [{"name": "Root", "children": [1]}, {"name": "Tip", "translation": [0, 1, 0]}, {"mesh": 0, "skin": 0}],
        "meshes": [{"primitives": [{"attributes": attributes, "indices": i}]}],
        "skins": [{"joints": [1, 0]}]
    });
    g.finish(doc)
}

#[test]
fn every_joint_and_weight_encoding_reads_the_same() {
    for joints in [Component::U8, Component::U16] {
        for weights in [None, Some(Component::U8), Some(Component::U16)] {
            let bytes = quad(joints, weights, true);
            let m = load_bytes(&bytes, "quad", None, Path::new("quad.glb")).unwrap();
            let prim = &m.character.meshes[0].primitives[0];
            let w = prim.weights.as_ref().unwrap();
            let j = prim.joints.as_ref().unwrap();
            assert!(
                (w[0][0] - 0.75).abs() < 3e-3 && (w[0][1] - 0.25).abs() < 3e-3,
                "{joints:?} {weights:?}: {:?}",
                w[0]
            );
            assert!((w[1][0] - 0.5).abs() < 3e-3);
            assert_eq!(j[1], [0, 1, 0, 0]);
            for v in w {
                assert!((v.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            }
        }
    }
}

#[test]
fn skin_joints_in_any_order_become_parent_before_child() {
    let m = load_bytes(
        &quad(Component::U8, None, true),
        "quad",
        None,
        Path::new("quad.glb"),
    )
    .unwrap();
    let c = &m.character;
    assert_eq!(c.skeleton.names(), ["Root", "Tip"]);
    assert_eq!(c.skeleton.path(1), "Root/Tip");
    // The skin lists Tip first: skin joint 0 is skeleton joint 1.
    assert_eq!(c.skins[0].joints, [1, 0]);
}

#[test]
fn missing_normals_are_generated() {
    let m = load_bytes(
        &quad(Component::U8, None, false),
        "quad",
        None,
        Path::new("quad.glb"),
    )
    .unwrap();
    let prim = &m.character.meshes[0].primitives[0];
    for n in &prim.normals {
        assert!((n[2] - 1.0).abs() < 1e-6, "{n:?}");
    }
}

#[test]
fn joint_index_past_the_skin_is_an_error() {
    let mut bytes = quad(Component::U8, None, true);
    // Joint indices are the second accessor's bytes: replace a 1 with 9 in the binary chunk.
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let bin = 20 + json_len + 8;
    let joints_at = bin + 48; // after 12 position floats
    assert_eq!(bytes[joints_at + 1], 1);
    bytes[joints_at + 1] = 9;
    let err = load_bytes(&bytes, "quad", None, Path::new("quad.glb"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("quad.glb") && err.contains("joint 9"), "{err}");
}

/// `assets/morph_sampler.glb` (scripts/make_morph_glb.mjs): dense and sparse targets expand as glTF 2.0 §3.6.2.3
/// defines (an accessor without a buffer view is zeros; sparse values replace the base at their indices), the
/// mesh's default weights and `targetNames` are kept, and a vertex moves by base + Σ weight × displacement.
#[test]
fn morph_targets_import_dense_and_sparse_with_names_and_default_weights() {
    let m = animtune::import::load_file(&crate::common::asset("morph_sampler.glb")).unwrap();
    let mesh = &m.character.meshes[0];
    let set = mesh.morph.as_ref().expect("a morph set");
    assert_eq!(set.node, "Quad");
    assert_eq!(set.target_names, ["Raise", "SparseZeros", "SparseOnBase"]);
    assert_eq!(set.default_weights, [0.25, 0.0, 0.0]);
    let p = &mesh.primitives[0];
    assert_eq!(p.targets.len(), 3);
    assert_eq!(
        p.targets[0].positions,
        [[0.0; 3], [0.0; 3], [0.0, 0.5, 0.0], [0.0, 0.5, 0.0]]
    );
    assert!(p.targets[0].normals.is_some());
    assert_eq!(
        p.targets[1].positions,
        [[0.0; 3], [0.2, 0.0, 0.1], [0.0; 3], [-0.3, 0.0, 0.2]]
    );
    assert_eq!(
        p.targets[2].positions,
        [
            [0.0, 0.0, 0.05],
            [0.0, 0.0, 0.05],
            [0.4, 0.4, 0.0],
            [0.0, 0.0, 0.05]
        ]
    );
    // Vertex 3 is (0, 1, 0): + 0.5 × (0, 0.5, 0) + 1 × (−0.3, 0, 0.2) + 2 × (0, 0, 0.05).
    let moved = p.morphed_position(3, &[0.5, 1.0, 2.0]);
    assert!(
        (moved - glam::Vec3::new(-0.3, 1.25, 0.3)).length() < 1e-6,
        "{moved}"
    );
    assert_eq!(m.clips.len(), 3);
    assert!(m.clips.iter().all(|c| c.morph_tracks.len() == 1));
}

/// Morph targets whose displacements would exceed the vertex limit are refused before they are decoded.
#[test]
fn morph_targets_over_the_vertex_limit_are_refused() {
    let bytes = std::fs::read(crate::common::asset("morph_sampler.glb")).unwrap();
    let limits = animtune::io::limits::Limits {
        max_vertices: 8,
        ..Default::default()
    };
    let Err(err) =
        animtune::import::gltf::load_bytes_with(&bytes, "m", None, Path::new("m.glb"), &limits)
    else {
        panic!("morph displacements over the limit were accepted");
    };
    assert!(
        err.to_string()
            .contains("morph-target vertex displacements"),
        "{err}"
    );
}

/// Khronos's SimpleMorph (CC0): two targets, default weights (0.5, 0.5), and a LINEAR `weights` channel whose keys
/// at 0, 1, 2, 3, 4 s are (0, 0), (0, 1), (1, 1), (1, 0), (0, 0) (its second buffer, decoded by hand). glTF
/// Appendix C: between keys, each weight is the linear mix of the two keys around it.
#[test]
fn khronos_simple_morph_plays_as_the_spec_evaluates_it() {
    use animtune::eval::{ClockStep, EvalInput, Evaluator};
    let model =
        animtune::import::load_file(&crate::common::asset("khronos/SimpleMorph.gltf")).unwrap();
    let c = &model.character;
    assert_eq!(
        c.meshes[0].morph.as_ref().unwrap().default_weights,
        [0.5, 0.5]
    );
    let keys = [
        (0.0, [0.0, 0.0]),
        (1.0, [0.0, 1.0]),
        (2.0, [1.0, 1.0]),
        (3.0, [1.0, 0.0]),
        (4.0, [0.0, 0.0]),
    ];
    let spec = |t: f32| -> [f32; 2] {
        let k = keys
            .iter()
            .rposition(|(kt, _)| *kt <= t)
            .unwrap()
            .min(keys.len() - 2);
        let ((a, va), (b, vb)) = (keys[k], keys[k + 1]);
        let f = ((t - a) / (b - a)).clamp(0.0, 1.0);
        [va[0] + (vb[0] - va[0]) * f, va[1] + (vb[1] - va[1]) * f]
    };
    let mut ev = Evaluator::for_clip_exact(c, &model.clips[0]);
    for t in [0.0, 0.3, 1.0, 1.7, 2.5, 3.25, 3.9, 4.0] {
        let out = ev.evaluate(&EvalInput {
            clock: ClockStep::Seek(t),
            ..Default::default()
        });
        let w = &out.morph_weights[0];
        let s = spec(t);
        assert!(
            (w[0] - s[0]).abs() < 1e-6 && (w[1] - s[1]).abs() < 1e-6,
            "at {t}: {w:?} vs {s:?}"
        );
    }
}
