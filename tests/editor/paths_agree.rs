//! The four ways a pose is asked for — the editor playing, `pose`, `render`'s pose and `bake` — evaluate the same
//! pose for the same source, time and preset (they all go through the one Evaluator; a bake's reference compiles
//! the clips exact, the others play the runtime's compact form).

use std::path::{Path, PathBuf};

use animtune::app::command::Command as EditorCommand;
use animtune::app::editor::EditorState;
use animtune::cli::{Cli, evaluated_model};
use animtune::compile::COMPACT_TOLERANCE;
use animtune::core::Pose;
use animtune::offline::max_vertex_error;
use animtune::offline::{StreamSource, StreamSpec, bake_stream};
use animtune::preset::Preset;
use clap::Parser;
use glam::Mat4;

use crate::common;

/// Frames the editor plays at 30 fps before the poses are compared.
const FRAMES: usize = 40;
const FPS: f32 = 30.0;

/// `preset` with every layer on, look-at snapping (speed 0) toward a point off to the side, written to `dir`.
fn write_preset(dir: &Path, mut preset: Preset) -> PathBuf {
    let layers = &mut preset.layers;
    layers.breath.enabled = true;
    layers.twist.enabled = true;
    layers.look_at.enabled = true;
    layers.look_at.follow_camera = false;
    layers.look_at.speed_deg_per_s = 0.0;
    layers.look_at.target = [0.6, 1.7, 1.2];
    let path = dir.join("preset.json");
    std::fs::write(&path, preset.to_json()).expect("write preset");
    path
}

fn model_matrices(skeleton: &animtune::core::Skeleton, pose: &Pose) -> Vec<Mat4> {
    let mut m = Vec::new();
    pose.model_matrices_into(skeleton, &mut m);
    m
}

/// Plays `preset` on `model` in the editor, then asks `pose`, `render` and `bake` for the same time, and
/// compares all four at 3 cm virtual points.
fn assert_paths_agree(model: &str, preset: Preset) {
    let dir = common::temp_dir(&format!("paths-{}", model.len()));
    let preset_path = write_preset(&dir, preset);
    let preset_arg = preset_path.to_str().expect("utf-8 temp path");
    let time = FRAMES as f32 / FPS;

    let mut editor = EditorState::new();
    if model != "mannequin" {
        editor.apply(EditorCommand::Open(model.into()));
    }
    editor.apply(EditorCommand::Open(preset_path.clone()));
    // The frame that opens the preset shows its time 0; each later frame advances.
    editor.update(1.0 / FPS, false);
    assert!(!editor.status().is_error, "{}", editor.status().text);
    assert!(
        editor.eval().clock().is_playing(),
        "opening a preset plays it"
    );
    assert_eq!(editor.eval().time(), 0.0);
    for _ in 0..FRAMES {
        editor.update(1.0 / FPS, false);
    }
    let skeleton = editor.doc().model.character.skeleton.clone();
    let from_editor = editor.matrices().to_vec();
    assert!(
        (editor.layer_time() - time).abs() < 1e-5,
        "the editor played {} s, not {time} s",
        editor.layer_time()
    );

    let time_arg = time.to_string();
    let pose_cli = Cli::parse_from([
        "animtune", "pose", model, "--preset", preset_arg, "--time", &time_arg,
    ]);
    let from_pose =
        evaluated_model(&pose_cli.command.expect("a pose command")).expect("pose evaluates");

    let png = dir.join("out.png");
    let render_cli = Cli::parse_from([
        "animtune",
        "render",
        model,
        "--preset",
        preset_arg,
        "--time",
        &time_arg,
        "-o",
        png.to_str().expect("utf-8 temp path"),
    ]);
    let from_render =
        evaluated_model(&render_cli.command.expect("a render command")).expect("render evaluates");

    let preset = Preset::load(&preset_path).expect("preset loads");
    let space = preset.blend.as_ref().expect("the preset has a blend space");
    let spec = StreamSpec {
        source: StreamSource::BlendPoint(space.point),
        duration: time,
        fps: FPS,
        clip_range: None,
    };
    // The bake streams the clips the editor opened (the model's, under the preset's clip settings).
    let frames = bake_stream(
        &editor.doc().model.character,
        &editor.doc().clips,
        preset.blend.as_ref(),
        &preset.layers,
        &spec,
        &mut |_, _| true,
    )
    .expect("bake evaluates");
    assert_eq!(frames.times.len(), FRAMES + 1);
    assert!((frames.times[FRAMES] - time).abs() < 1e-6);
    let from_bake = model_matrices(&skeleton, &frames.poses[FRAMES]);

    // The pose moved away from the rest pose (the layers and the blend did something).
    let rest = model_matrices(&skeleton, &Pose::rest(&skeleton));
    assert!(
        max_vertex_error(&rest, &from_editor) > 0.01,
        "{model}: the compared pose is the rest pose"
    );
    // `pose` and `render` play the runtime's compact clips as the editor does; a bake samples its reference from
    // the exact keys, which the compact form stays within COMPACT_TOLERANCE of.
    for (name, other, tolerance) in [
        ("pose", &from_pose, 1e-6),
        ("render", &from_render, 1e-6),
        ("bake", &from_bake, COMPACT_TOLERANCE),
    ] {
        let error = max_vertex_error(&from_editor, other);
        assert!(
            error <= tolerance,
            "{model}: the editor and {name} differ by {error} m at 3 cm virtual points"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mannequin_blend_with_every_layer() {
    let mut preset = Preset {
        blend: Some(animtune::demo::locomotion::default_blend_space()),
        ..Preset::default()
    };
    if let Some(space) = &mut preset.blend {
        space.set_point([0.7, 1.3]);
    }
    assert_paths_agree("mannequin", preset);
}

#[test]
fn quaternius_blend_with_every_layer() {
    let preset_file = common::preset("quaternius_locomotion.json");
    let preset = Preset::load(&preset_file).expect("the shipped Quaternius preset loads");
    let model = common::quaternius();
    assert_paths_agree(model.to_str().expect("utf-8 asset path"), preset);
}
