//! `animtune weights | heatmap | preset` from the outside: JSON contracts, pixels, and clean failures.

use crate::common::{
    animtune, assert_clean_failure, assert_success, json_of, pose_joint, temp_dir,
};
use glam::DVec2;

fn default_preset(dir: &std::path::Path) -> std::path::PathBuf {
    let out = animtune(&["preset", "default"]);
    assert!(out.status.success());
    let path = dir.join("preset.json");
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

#[test]
fn weights_json_matches_the_library() {
    let dir = temp_dir("cli-weights");
    let preset = default_preset(&dir);
    let j = json_of(&animtune(&[
        "weights",
        "--blend",
        preset.to_str().unwrap(),
        "--point",
        "-0.3,1.7",
        "--json",
    ]));
    assert_eq!(j["mode"], "freeform_directional");
    assert_eq!(j["point"], serde_json::json!([-0.3, 1.7]));
    let space = animtune::preset::load_blend_space(&preset).unwrap();
    let want = space.weights_at(DVec2::new(-0.3, 1.7));
    let got = j["weights"].as_array().unwrap();
    assert_eq!(got.len(), space.nodes.len());
    let mut sum = 0.0;
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g["node"], k);
        assert_eq!(g["clip"], space.nodes[k].clip.as_str());
        assert_eq!(g["position"], serde_json::json!(space.nodes[k].position));
        assert!((g["weight"].as_f64().unwrap() - w).abs() < 1e-12);
        sum += w;
    }
    assert!((sum - 1.0).abs() < 1e-9);
}

#[test]
fn heatmap_pixels_follow_the_weights() {
    let dir = temp_dir("cli-heatmap");
    let preset = default_preset(&dir);
    let png = dir.join("walk.png");
    let out = animtune(&[
        "heatmap",
        "--blend",
        preset.to_str().unwrap(),
        "--node",
        "WalkForward",
        "--size",
        "64",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_success(&out);
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (64, 64));
    let space = animtune::preset::load_blend_space(&preset).unwrap();
    let node = space
        .nodes
        .iter()
        .position(|n| n.clip == "WalkForward")
        .unwrap();
    let (min, max) = (
        DVec2::new(space.axes[0].min, space.axes[1].min),
        DVec2::new(space.axes[0].max, space.axes[1].max),
    );
    for (row, col) in [(10, 10), (21, 32), (30, 40), (50, 5), (40, 32)] {
        let p = DVec2::new(
            min.x + (col as f64 + 0.5) / 64.0 * (max.x - min.x),
            max.y - (row as f64 + 0.5) / 64.0 * (max.y - min.y),
        );
        let w = space.weights_at(p)[node] as f32;
        let want = animtune::blend::heatmap::ramp(w);
        let got = img.get_pixel(col, row);
        for c in 0..3 {
            assert!(
                (got[c] as i32 - want[c] as i32).abs() <= 2,
                "pixel ({row},{col}) weight {w}: {got:?} vs {want:?}"
            );
        }
    }
    // The walk node's own pixel is bright, the far backward corner dark.
    let walk_row = ((max.y - 1.4) / (max.y - min.y) * 64.0) as u32;
    assert!(img.get_pixel(32, walk_row)[0] > 200);
    assert!(img.get_pixel(32, 63)[0] < 30);
    // An existing output is kept without --force.
    let again = animtune(&[
        "heatmap",
        "--blend",
        preset.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_clean_failure(&again, &["walk.png", "already exists"]);
    let all = dir.join("all.png");
    let out = animtune(&[
        "heatmap",
        "--blend",
        preset.to_str().unwrap(),
        "--all",
        "-o",
        all.to_str().unwrap(),
    ]);
    assert!(out.status.success());
}

#[test]
fn bad_blend_files_fail_cleanly() {
    let dir = temp_dir("cli-blend-bad");
    let newer = dir.join("newer.json");
    std::fs::write(
        &newer,
        r#"{"format":"animtune-preset","version":99,"blend":{}}"#,
    )
    .unwrap();
    let out = animtune(&[
        "weights",
        "--blend",
        newer.to_str().unwrap(),
        "--point",
        "0,0",
    ]);
    assert_clean_failure(&out, &["newer.json", "version 99"]);

    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"format":"animtune-preset","version":1,"blend":{"axes":[{"min":0,"max":-1},{}],"nodes":[]}}"#,
    )
    .unwrap();
    let out = animtune(&["weights", "--blend", bad.to_str().unwrap()]);
    assert_clean_failure(&out, &["bad.json", "blend.axes[0].max"]);
    let out = animtune(&["preset", "validate", bad.to_str().unwrap()]);
    assert_clean_failure(&out, &["bad.json", "blend.axes[0].max"]);

    let truncated = dir.join("truncated.json");
    std::fs::write(
        &truncated,
        r#"{"format":"animtune-preset","blend":{"nodes":[{"clip":"#,
    )
    .unwrap();
    let out = animtune(&[
        "heatmap",
        "--blend",
        truncated.to_str().unwrap(),
        "-o",
        dir.join("x.png").to_str().unwrap(),
    ]);
    assert_clean_failure(&out, &["truncated.json"]);
    assert!(!dir.join("x.png").exists());

    let good = default_preset(&dir);
    let out = animtune(&[
        "weights",
        "--blend",
        good.to_str().unwrap(),
        "--point",
        "1,nan",
    ]);
    assert_clean_failure(&out, &["--point", "nan"]);
    let out = animtune(&[
        "weights",
        "--blend",
        dir.join("missing.json").to_str().unwrap(),
    ]);
    assert_clean_failure(&out, &["missing.json"]);
    let out = animtune(&["preset", "validate", good.to_str().unwrap()]);
    assert!(out.status.success());
}

#[test]
fn pose_with_a_preset_and_look_at_evaluates_the_whole_stack() {
    let dir = temp_dir("cli-pose-preset");
    let preset = default_preset(&dir);
    let p = preset.to_str().unwrap();
    let plain = json_of(&animtune(&[
        "pose",
        "mannequin",
        "--clip",
        "Idle",
        "--time",
        "1.5",
        "--json",
    ]));
    assert!(plain.get("layers").is_none());
    let stacked = json_of(&animtune(&[
        "pose",
        "mannequin",
        "--clip",
        "Idle",
        "--time",
        "1.5",
        "--preset",
        p,
        "--look-at",
        "1.5,1.6,0.5",
        "--json",
    ]));
    let layers = &stacked["layers"];
    assert_eq!(layers["breath"], true);
    assert_eq!(layers["twist"], true);
    let look = layers["look_at"].as_array().unwrap();
    assert_eq!(look.len(), 4);
    assert_eq!(look[0]["bone"], "Head");
    // The head joint turned toward +X (the character's left): its model-space forward gained +X.
    let head = |j: &serde_json::Value| pose_joint(j, "name", "Head")["model"]["rotation"].clone();
    let q = |v: serde_json::Value| {
        let a: Vec<f32> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        glam::Quat::from_xyzw(a[0], a[1], a[2], a[3])
    };
    let before = q(head(&plain)) * glam::Vec3::Z;
    let after = q(head(&stacked)) * glam::Vec3::Z;
    assert!(after.x > before.x + 0.3, "{before} -> {after}");
    // The Unity original's solver: the head turns to its default limitHori (70) and the neck, reaching the target
    // with the remainder, ends the chain.
    let unity = json_of(&animtune(&[
        "pose",
        "mannequin",
        "--look-at",
        "1.5,1.6,0.5",
        "--look-solver",
        "unity-original",
        "--json",
    ]));
    let look = unity["layers"]["look_at"].as_array().unwrap();
    assert_eq!(look.len(), 2, "{look:?}");
    assert_eq!(look[0]["bone"], "Head");
    assert_eq!(look[0]["limited"], true);
    assert_eq!(look[1]["bone"], "Neck");
    assert_eq!(look[1]["limited"], false);
    // With the preset alone, no clip option: the preset's blend space is the source.
    let blend = json_of(&animtune(&[
        "pose",
        "mannequin",
        "--preset",
        p,
        "--time",
        "0.3",
        "--json",
    ]));
    assert_eq!(blend["clip"], "blend space");
    assert!(blend["layers"]["look_at"].is_null());
}

#[test]
fn bad_presets_and_look_at_points_fail_cleanly() {
    let dir = temp_dir("cli-pose-preset-bad");
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"format":"animtune-preset","version":1,"layers":{"twist":{"intensity":3}}}"#,
    )
    .unwrap();
    let out = animtune(&["pose", "mannequin", "--preset", bad.to_str().unwrap()]);
    assert_clean_failure(&out, &["bad.json", "layers.twist.intensity"]);
    let out = animtune(&["pose", "mannequin", "--look-at", "1,nan,2"]);
    assert_clean_failure(&out, &["--look-at", "1,nan,2"]);
    let missing = dir.join("clips.json");
    std::fs::write(
        &missing,
        r#"{"format":"animtune-preset","blend":{"nodes":[{"clip":"Nope","position":[0,0]}]}}"#,
    )
    .unwrap();
    let out = animtune(&[
        "render",
        "mannequin",
        "--preset",
        missing.to_str().unwrap(),
        "-o",
        dir.join("x.png").to_str().unwrap(),
    ]);
    assert_clean_failure(&out, &["clips.json", "mannequin", "Nope"]);
}
