//! Export: the baked stream matches what the editor plays live, and every format replays it within 0.01 cm.

use crate::common;

use std::path::Path;

use crate::common::{animtune, assert_clean_failure, temp_dir};
use animtune::app::command::{Command, Transport};
use animtune::app::editor::EditorState;
use animtune::layers::LayerParams;
use animtune::offline::{
    BakeSettings, ClipMeta, Encoded, ExportError, ExportFormat, Frames, PathPoint, StreamSource,
    StreamSpec, bake_stream, max_vertex_error, measure,
};

const TOLERANCE_M: f32 = 1e-4;

fn tuned_layers() -> LayerParams {
    let mut layers = LayerParams::default();
    layers.look_at.enabled = true;
    layers.look_at.target = [0.9, 1.6, 1.2];
    layers.look_at.speed_deg_per_s = 120.0;
    layers.breath.effect_rate = 2.0;
    layers
}

/// Encodes `frames` as a clip called `name` on the uniform 30 fps grid.
fn encode(
    character: &animtune::core::Character,
    frames: &Frames,
    name: &str,
    format: ExportFormat,
    animation_only: bool,
    settings: &BakeSettings,
) -> Encoded {
    let meta = ClipMeta::uniform(0, name, frames, 30.0);
    animtune::offline::encode(character, frames, &meta, format, animation_only, settings)
}

/// `source` baked at 30 fps for `duration` seconds, the whole clip.
fn baked(
    character: &animtune::core::Character,
    clips: &[animtune::core::Clip],
    blend: Option<&animtune::blend::BlendSpace>,
    layers: &LayerParams,
    source: StreamSource,
    duration: f32,
) -> Frames {
    let spec = StreamSpec {
        source,
        duration,
        fps: 30.0,
        clip_range: None,
    };
    bake_stream(character, clips, blend, layers, &spec, &mut |_, _| true).unwrap()
}

/// The editor shows the bake's frame `k` (`reference`): every virtual vertex within the compact tolerance (the
/// editor plays the runtime's compact clips; the bake's reference compiles them exact). `scratch` holds the two
/// poses' model matrices.
fn assert_shows(
    k: usize,
    s: &animtune::core::Skeleton,
    reference: &animtune::core::Pose,
    e: &EditorState,
    scratch: (&mut Vec<glam::Mat4>, &mut Vec<glam::Mat4>),
) {
    let (a, b) = scratch;
    reference.model_matrices_into(s, a);
    e.pose().model_matrices_into(s, b);
    let err = max_vertex_error(a, b);
    assert!(
        err <= animtune::compile::COMPACT_TOLERANCE,
        "frame {k}: editor and bake differ by {} cm",
        err * 100.0
    );
}

fn walk_frames(duration: f32) -> (animtune::import::ImportedModel, Frames) {
    let model = animtune::demo::mannequin::load();
    let space = animtune::demo::locomotion::default_blend_space();
    let frames = baked(
        &model.character,
        &model.clips,
        Some(&space),
        &tuned_layers(),
        StreamSource::BlendPoint([0.3, 1.2]),
        duration,
    );
    (model, frames)
}

#[test]
fn the_baked_stream_is_what_the_editor_plays() {
    let (model, frames) = walk_frames(2.0);
    let s = &model.character.skeleton;
    let mut e = EditorState::new();
    e.apply(Command::SetLayers(Box::new(tuned_layers())));
    e.apply(Command::SetBlendPoint([0.3, 1.2]));
    e.apply(Command::Transport(Transport::Scrub(0.0)));
    e.apply(Command::Transport(Transport::Play));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (k, reference) in frames.poses.iter().enumerate() {
        // The frame that seeks shows time 0; each later frame advances.
        e.update(1.0 / 30.0, false);
        assert_shows(k, s, reference, &e, (&mut a, &mut b));
    }
}

#[test]
fn every_format_replays_the_stream_within_a_hundredth_of_a_centimetre() {
    let (model, frames) = walk_frames(2.5);
    let c = &model.character;
    let settings = BakeSettings::default();
    for format in [
        ExportFormat::Native,
        ExportFormat::Unity,
        ExportFormat::Gltf,
    ] {
        for animation_only in [false, true] {
            if animation_only && format != ExportFormat::Gltf {
                continue;
            }
            let out = encode(c, &frames, "Walk", format, animation_only, &settings);
            let error = out.report.max_error_cm;
            assert!(error <= 0.01, "{format:?}: {error}");
            // Decoded independently of the encoder's own check.
            let clip = match format {
                ExportFormat::Gltf => {
                    let back = animtune::import::gltf::load_bytes(
                        &out.bytes,
                        "walk",
                        None,
                        Path::new("walk.glb"),
                    )
                    .unwrap();
                    if !animation_only {
                        assert_eq!(back.character.skeleton.len(), c.skeleton.len());
                        assert_eq!(back.character.meshes.len(), c.meshes.len());
                        assert_eq!(back.character.skins.len(), 1);
                    }
                    back.clips[0].clone()
                }
                _ => animtune::clipfile::decode(&out.bytes, Path::new("walk.bin"))
                    .unwrap()
                    .to_clip(),
            };
            let err = measure(&c.skeleton, &frames, &clip);
            assert!(
                err <= TOLERANCE_M,
                "{format:?} (animation only {animation_only}): {} cm",
                err * 100.0
            );
        }
    }
}

#[test]
fn the_glb_reimports_with_the_same_skinned_pose() {
    let (model, frames) = walk_frames(1.0);
    let c = &model.character;
    let out = encode(
        c,
        &frames,
        "Walk",
        ExportFormat::Gltf,
        false,
        &BakeSettings::default(),
    );
    let back = animtune::import::gltf::load_bytes(&out.bytes, "walk", None, Path::new("walk.glb"))
        .unwrap();
    let bc = &back.character;
    // The skinned vertices of the re-imported model at a frame equal the original's.
    let k = 17;
    let t = frames.times[k];
    let clip = &back.clips[0];
    let binding = clip.bind(&bc.skeleton, None);
    let mut pose = animtune::core::Pose::rest(&bc.skeleton);
    clip.sample_into(&binding, t, animtune::core::Wrap::Clamp, &mut pose);
    let m_back = pose.model_matrices(&bc.skeleton);
    let m_live = frames.poses[k].model_matrices(&c.skeleton);
    let skin = |ch: &animtune::core::Character, m: &[glam::Mat4]| -> Vec<glam::Vec3> {
        let mesh = &ch.meshes[0];
        let palette = ch.mesh_palette(mesh, m);
        let p = &mesh.primitives[0];
        let (joints, weights) = (p.joints.as_ref().unwrap(), p.weights.as_ref().unwrap());
        p.positions
            .iter()
            .zip(joints.iter().zip(weights))
            .step_by(37)
            .map(|(pos, (j, w))| {
                let v = glam::Vec3::from_array(*pos);
                (0..4)
                    .map(|i| palette[j[i] as usize].transform_point3(v) * w[i])
                    .sum::<glam::Vec3>()
            })
            .collect()
    };
    for (a, b) in skin(c, &m_live).iter().zip(skin(bc, &m_back)) {
        assert!(a.distance(b) < 1e-4, "{a} vs {b}");
    }
}

#[test]
fn a_blend_path_changes_the_motion_over_time_and_cancel_stops() {
    let model = animtune::demo::mannequin::load();
    let space = animtune::demo::locomotion::default_blend_space();
    let path = vec![
        PathPoint {
            time: 0.0,
            point: [0.0, 0.0],
        },
        PathPoint {
            time: 1.0,
            point: [0.0, 3.5],
        },
    ];
    let spec = StreamSpec {
        source: StreamSource::BlendPath(path.clone()),
        duration: 1.0,
        fps: 30.0,
        clip_range: None,
    };
    let layers = LayerParams::default();
    let frames = baked(
        &model.character,
        &model.clips,
        Some(&space),
        &layers,
        spec.source.clone(),
        spec.duration,
    );
    assert_eq!(frames.poses.len(), 31);
    // Idle at the start, running at the end: the legs are far apart by then.
    let s = &model.character.skeleton;
    let knee = model
        .character
        .humanoid
        .joint(animtune::core::HumanBone::LeftLowerLeg)
        .unwrap();
    let travel = frames
        .poses
        .iter()
        .map(|p| p.model_matrices(s)[knee].w_axis.z.abs())
        .collect::<Vec<_>>();
    assert!(
        travel[0] < 0.05 && travel[25..].iter().any(|&z| z > 0.15),
        "{travel:?}"
    );
    assert_eq!(
        animtune::offline::stream::path_point(&path, 0.5),
        [0.0, 1.75]
    );
    let mut calls = 0;
    let cancelled = bake_stream(
        &model.character,
        &model.clips,
        Some(&space),
        &layers,
        &spec,
        &mut |done, _| {
            calls += 1;
            done < 5
        },
    );
    assert!(matches!(cancelled, Err(ExportError::Cancelled)));
    assert_eq!(calls, 6);
    let bad = StreamSpec {
        fps: f32::NAN,
        ..spec
    };
    assert!(matches!(
        bake_stream(
            &model.character,
            &model.clips,
            Some(&space),
            &layers,
            &bad,
            &mut |_, _| true
        ),
        Err(ExportError::Invalid(_))
    ));
}

#[test]
fn cli_exports_keep_existing_files_and_write_one_clip_per_node() {
    let dir = temp_dir("cli-export");
    let preset = dir.join("preset.json");
    let out = animtune(&["preset", "default"]);
    std::fs::write(&preset, &out.stdout).unwrap();
    let p = preset.to_str().unwrap();
    let glb = dir.join("walk.glb");
    let run = |extra: &[&str]| {
        let mut args = vec!["bake", "mannequin", "--preset", p];
        args.extend_from_slice(extra);
        animtune(&args)
    };
    let first = run(&[
        "--blend-point",
        "0,1.4",
        "--format",
        "gltf",
        "-o",
        glb.to_str().unwrap(),
    ]);
    common::assert_success(&first);
    let before = std::fs::read(&glb).unwrap();
    assert_eq!(&before[..4], b"glTF");
    // Existing file: refused without --force, and untouched.
    let again = run(&[
        "--blend-point",
        "0,3",
        "--format",
        "gltf",
        "-o",
        glb.to_str().unwrap(),
    ]);
    assert_clean_failure(&again, &["walk.glb", "already exists"]);
    assert_eq!(std::fs::read(&glb).unwrap(), before);
    // A failing export (bad path file) leaves it untouched too, even with --force.
    let bad_path = dir.join("path.json");
    std::fs::write(
        &bad_path,
        r#"[{"time": 1, "point": [0, 0]}, {"time": 0.5, "point": [1, 1]}]"#,
    )
    .unwrap();
    let failed = run(&[
        "--blend-path",
        bad_path.to_str().unwrap(),
        "--format",
        "gltf",
        "-o",
        glb.to_str().unwrap(),
        "--force",
    ]);
    assert_clean_failure(&failed, &["path.json", "comes before"]);
    assert_eq!(std::fs::read(&glb).unwrap(), before);
    // One step for a blend space: a clip per node plus the preset.
    let folder = dir.join("nodes");
    let nodes = run(&[
        "--per-node",
        "--format",
        "native",
        "-o",
        folder.to_str().unwrap(),
        "--json",
    ]);
    common::assert_success(&nodes);
    let report: serde_json::Value = serde_json::from_slice(&nodes.stdout).unwrap();
    assert_eq!(report.as_array().unwrap().len(), 8);
    for name in [
        "Idle.animclip",
        "WalkForward.animclip",
        "RunForward.animclip",
        "preset.json",
    ] {
        assert!(folder.join(name).is_file(), "{name}");
    }
    let info = animtune(&[
        "clip",
        "info",
        folder.join("RunForward.animclip").to_str().unwrap(),
        "--json",
    ]);
    assert!(info.status.success());
}

#[test]
fn a_textured_glb_export_verifies_its_animation_without_decoding_images() {
    let path = common::asset("CesiumMan.glb");
    let model = animtune::import::load_file(&path).unwrap();
    assert!(
        !model.character.textures.is_empty(),
        "CesiumMan is textured"
    );
    let frames = baked(
        &model.character,
        &model.clips,
        None,
        &tuned_layers(),
        StreamSource::Clip(0),
        2.0,
    );
    let before = animtune::import::gltf::image_decodes_on_this_thread();
    let out = encode(
        &model.character,
        &frames,
        "walk",
        ExportFormat::Gltf,
        false,
        &BakeSettings::default(),
    );
    assert_eq!(
        animtune::import::gltf::image_decodes_on_this_thread(),
        before,
        "verifying the export decoded images"
    );
    // One decode per tolerance candidate: at most the search's 6 unquantized candidates (5 local tolerances,
    // then every frame).
    assert!(
        (1..=6).contains(&out.verifications),
        "{}",
        out.verifications
    );
    assert!(
        out.report.max_error_cm <= 0.01,
        "{}",
        out.report.max_error_cm
    );
    // The file itself keeps the texture.
    let back = animtune::import::gltf::load_bytes(&out.bytes, "walk", None, Path::new("walk.glb"))
        .unwrap();
    assert_eq!(
        back.character.textures.len(),
        model.character.textures.len()
    );
    assert!(animtune::import::gltf::image_decodes_on_this_thread() > before);
}

#[test]
fn a_clip_bakes_from_its_in_point_and_loops_within_its_range() {
    let model = animtune::demo::mannequin::load();
    let clip = &model.clips[0];
    let (a, b) = (0.2f32, 0.55f32);
    let spec = StreamSpec {
        source: StreamSource::Clip(0),
        duration: 0.6,
        fps: 10.0,
        clip_range: Some([a, b]),
    };
    let frames = bake_stream(
        &model.character,
        &model.clips,
        None,
        &LayerParams::off(),
        &spec,
        &mut |_, _| true,
    )
    .unwrap();
    let binding = clip.bind(&model.character.skeleton, Some(&model.character.humanoid));
    for (k, pose) in frames.poses.iter().enumerate() {
        let t = k as f32 / 10.0;
        // The range's cycle: [a, b] keeps its end, later times wrap into (a, b].
        let span = b - a;
        let local = if t <= span { t } else { t - span };
        let mut expected = animtune::core::Pose::rest(&model.character.skeleton);
        clip.sample_into(
            &binding,
            a + local,
            animtune::core::Wrap::Clamp,
            &mut expected,
        );
        for (x, y) in pose.local.iter().zip(&expected.local) {
            assert!(
                x.rotation.dot(y.rotation).abs() > 1.0 - 1e-5,
                "frame {k} (clip time {}): {x:?} vs {y:?}",
                a + local
            );
        }
    }
}

/// C9: a clip exported from the editor is named after the clip (as its settings rename it), not after the file
/// it is written to.
#[test]
fn an_exported_clip_is_named_after_the_clip() {
    let dir = temp_dir("export-clip-name");
    let model = animtune::demo::mannequin::load();
    let walk = model
        .clips
        .iter()
        .position(|c| c.name == "WalkForward")
        .unwrap();
    let mut e = EditorState::new();
    e.apply(Command::PlayClip(Some(walk)));
    for (settings, want) in [
        (std::collections::BTreeMap::new(), "WalkForward"),
        (
            [(
                "WalkForward".to_string(),
                animtune::core::ClipSettings {
                    name: Some("Stride".into()),
                    ..Default::default()
                },
            )]
            .into(),
            "Stride",
        ),
    ] {
        let path = dir.join(format!("mannequin_file_name_{want}.glb"));
        let mut job = animtune::app::export_job::ExportJob::for_editor(
            &e,
            Some(StreamSource::Clip(walk)),
            path.clone(),
        );
        job.clip_settings = settings;
        job.duration = 0.5;
        job.run(&Default::default(), &Default::default()).unwrap();
        let back = animtune::import::load_file(&path).unwrap();
        assert_eq!(back.clips[0].name, want);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A state machine driven live and recorded, then exported from the editor: the export bakes the machine with
/// the recorded script, and its frames are the poses the editor showed when it replayed the script.
#[test]
fn a_recorded_state_machine_bakes_as_the_editor_replays_it() {
    use animtune::graph::{
        Condition, ConditionMode, MachineEdit, Parameter, ParameterKind, ParameterValue,
    };
    let dt = 1.0 / 30.0;
    let mut e = EditorState::new();
    let step = |e: &mut EditorState, commands: Vec<Command>, dt: f32| {
        for c in commands {
            e.apply(c);
        }
        e.update(dt, false);
    };
    step(&mut e, vec![Command::NewMachine], 0.0);
    let speed = Parameter {
        name: "speed".into(),
        kind: ParameterKind::Float,
        default: ParameterValue::Number(0.0),
    };
    let walk = animtune::graph::edit::clip_state("Walk", "WalkForward", [200.0, 0.0]);
    for edit in [
        MachineEdit::AddState(Box::new(walk)),
        MachineEdit::AddParameter(speed),
        MachineEdit::AddTransition {
            from: "Idle".into(),
            to: "Walk".into(),
        },
    ] {
        step(&mut e, vec![Command::EditMachine(edit)], 0.0);
    }
    let mut t = e.machine().unwrap().transitions[0].clone();
    t.has_exit_time = false;
    t.duration = 0.3;
    t.conditions = vec![Condition {
        parameter: "speed".into(),
        mode: ConditionMode::Greater,
        threshold: 0.5,
    }];
    step(
        &mut e,
        vec![Command::EditMachine(MachineEdit::SetTransition(
            0,
            Box::new(t),
        ))],
        0.0,
    );
    step(&mut e, vec![Command::RecordScript(true)], 0.0);
    for k in 0..30 {
        let set = Command::SetMachineParameter("speed".into(), ParameterValue::Number(1.0));
        step(&mut e, if k == 10 { vec![set] } else { vec![] }, dt);
    }
    step(&mut e, vec![Command::RecordScript(false)], 0.0);
    assert_eq!(e.script().unwrap().events().len(), 1);

    let mut dialog = animtune::app::dialogs::export::ExportDialog::default();
    dialog.set_path(&temp_dir("machine-export").join("run.animclip"));
    let job = dialog.job(&e, false).unwrap();
    let Some(StreamSource::Machine {
        machine,
        script,
        sim_rate,
    }) = &job.source
    else {
        panic!("the export bakes the machine: {:?}", job.source.is_some());
    };
    assert_eq!(script, e.script().unwrap());
    assert_eq!(*sim_rate, animtune::graph::script::DEFAULT_SIM_RATE);
    let model = animtune::demo::mannequin::load();
    let frames = baked(
        &model.character,
        &model.clips,
        None,
        &e.tuning().layers,
        StreamSource::Machine {
            machine: machine.clone(),
            script: script.clone(),
            sim_rate: *sim_rate,
        },
        2.0,
    );

    let status = job
        .run(&Default::default(), &Default::default())
        .expect("the export runs");
    assert!(status.contains("simulated at 60 Hz"), "{status}");

    step(&mut e, vec![Command::ReplayScript], 0.0);
    let s = &model.character.skeleton;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut walked = false;
    for (k, reference) in frames.poses.iter().enumerate() {
        if k > 0 {
            e.update(dt, false);
        }
        assert_shows(k, s, reference, &e, (&mut a, &mut b));
        let p = e.machine_player().unwrap();
        walked |= p.machine().states[p.current()].name == "Walk";
    }
    assert!(walked, "the script took the machine into Walk");
}

/// The Export window says at what rate the state machine that plays simulates (its transitions decide on ticks
/// of that rate whatever the bake's fps).
#[test]
fn the_export_window_names_the_machines_simulation_rate() {
    use egui_kittest::kittest::Queryable;
    let mut h = crate::kittest::harness_sized(1280.0, 1000.0);
    h.run_steps(2);
    for command in [Command::NewMachine, Command::PlayMachine] {
        h.state_mut().send(command);
        h.run_steps(2);
    }
    assert!(h.state().editor().machine_player().is_some(), "it plays");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    h.run_steps(2);
    assert!(h.state_mut().export_dialog().open);
    let rate = "simulated at 60 Hz whatever the fps";
    assert!(
        h.query_by_label_contains(rate).is_some(),
        "the window names the rate"
    );
}
