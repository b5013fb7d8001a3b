//! Shared helpers for integration tests: running the binary and checking its failures; the asset and
//! temporary-folder helpers come from support.rs (shared with the library's unit tests).
#![allow(dead_code)]

use std::process::{Command, Output};

mod support;
#[allow(unused_imports)]
pub use support::*;

/// The Quaternius rig's path and a path for file `name` in a fresh temporary folder named after `tag`, as the
/// strings a command line takes.
pub fn quaternius_and_output(tag: &str, name: &str) -> (String, String) {
    let out = temp_dir(tag).join(name);
    (
        quaternius().to_string_lossy().into_owned(),
        out.to_string_lossy().into_owned(),
    )
}

/// The angle between two rotations in degrees, from the relative rotation's vector part in f64 (the acos of an
/// f32 dot product near 1 reads rounding in the last digits as hundredths of a degree).
pub fn angle_deg(a: glam::Quat, b: glam::Quat) -> f64 {
    let (a, b) = (a.as_dquat().normalize(), b.as_dquat().normalize());
    let r = a.conjugate() * b;
    (2.0 * r.xyz().length().atan2(r.w.abs())).to_degrees()
}

/// Runs the built `animtune` binary.
pub fn animtune(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(args)
        .output()
        .unwrap()
}

/// Asserts that a command succeeded, showing its stderr when it did not.
pub fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The JSON a successful command printed.
pub fn json_of(out: &Output) -> serde_json::Value {
    assert_success(out);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The weights of each morphed node of a `pose --json` output (`morph_weights`), by node name, in its order.
pub fn morph_weights(pose: &serde_json::Value) -> Vec<(String, Vec<f64>)> {
    pose["morph_weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let w = m["weights"].as_array().unwrap();
            (
                m["node"].as_str().unwrap().to_string(),
                w.iter().map(|x| x.as_f64().unwrap()).collect(),
            )
        })
        .collect()
}

/// The joint of a `pose --json` output whose `field` ("name" or "human_bone") is `value`.
pub fn pose_joint<'a>(
    pose: &'a serde_json::Value,
    field: &str,
    value: &str,
) -> &'a serde_json::Value {
    pose["joints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j[field] == value)
        .unwrap_or_else(|| panic!("no joint whose {field} is {value}"))
}

/// Two `pose --json` outputs put every joint at the same model-space position, within `tolerance_m` per axis.
pub fn assert_same_positions(a: &serde_json::Value, b: &serde_json::Value, tolerance_m: f64) {
    let (a, b) = (
        a["joints"].as_array().unwrap(),
        b["joints"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(b) {
        assert_eq!(a["name"], b["name"]);
        for i in 0..3 {
            let d = a["model"]["translation"][i].as_f64().unwrap()
                - b["model"]["translation"][i].as_f64().unwrap();
            assert!(d.abs() < tolerance_m, "{}: {d}", a["name"]);
        }
    }
}

/// Bad input: exit code 1, one line on stderr containing every needle (the file and the problem), never a panic.
pub fn assert_clean_failure(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    for n in needles {
        assert!(err.contains(n), "'{n}' not in: {err}");
    }
}

/// A model of one sparse primitive, `count` vertices all at the origin (no bufferView, no indices), on a node
/// with a one-key rotation (so that there is something to animate).
pub fn sparse_mesh_gltf(count: u64) -> Vec<u8> {
    let mut bin = vec![0u8; 20];
    bin.extend([0.0f32, 0.0, 0.0, 1.0].iter().flat_map(|v| v.to_le_bytes()));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::encode(&bin)
    );
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 4},
            {"buffer": 0, "byteOffset": 4, "byteLength": 12},
            {"buffer": 0, "byteOffset": 16, "byteLength": 4},
            {"buffer": 0, "byteOffset": 20, "byteLength": 16}],
        "accessors": [{"componentType": 5126, "count": count, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0],
            "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5125},
                "values": {"bufferView": 1}}},
            {"bufferView": 2, "componentType": 5126, "count": 1, "type": "SCALAR", "min": [0], "max": [0]},
            {"bufferView": 3, "componentType": 5126, "count": 1, "type": "VEC4"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "nodes": [{"mesh": 0, "name": "part"}], "scenes": [{"nodes": [0]}], "scene": 0,
        "animations": [{"samplers": [{"input": 1, "output": 2}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}]
    });
    serde_json::to_vec(&doc).unwrap()
}

/// A copy of the .glb at `path` whose JSON `edit` changed (its binary chunk kept), written to `out`.
pub fn edit_glb(
    path: &std::path::Path,
    out: &std::path::Path,
    edit: impl FnOnce(&mut serde_json::Value),
) {
    let bytes = std::fs::read(path).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    edit(&mut json);
    // The BIN chunk follows the JSON chunk: its length, its type, then the data.
    let bin = &bytes[20 + json_len + 8..];
    let text = serde_json::to_vec(&json).unwrap();
    std::fs::write(out, animtune::io::glb::assemble(&text, bin)).unwrap();
}

/// A one-triangle glTF on an animated node whose material's texture is an external `skin_diffuse.png` that is
/// not there, written into `dir`.
pub fn model_with_missing_texture(dir: &std::path::Path) -> std::path::PathBuf {
    let mut doc: serde_json::Value = serde_json::from_slice(&sparse_mesh_gltf(3)).unwrap();
    doc["images"] = serde_json::json!([{"uri": "skin_diffuse.png"}]);
    doc["textures"] = serde_json::json!([{"source": 0}]);
    doc["materials"] =
        serde_json::json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    doc["meshes"][0]["primitives"][0]["material"] = serde_json::json!(0);
    let path = dir.join("textured.gltf");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

/// A preset in `dir` with every procedural layer off and RobotExpressive's Surprised expression at 0.5.
pub fn surprised_preset(dir: &std::path::Path) -> std::path::PathBuf {
    let preset = dir.join("face.json");
    std::fs::write(
        &preset,
        r#"{"format": "animtune-preset", "version": 4, "layers": {"breath": {"enabled": false},
            "look_at": {"enabled": false}, "twist": {"enabled": false}, "expressions": {"Surprised": 0.5}}}"#,
    )
    .unwrap();
    preset
}
