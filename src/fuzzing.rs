//! Fuzzing support: the entry points every decoder of untrusted bytes is fuzzed through, seed inputs generated
//! by code, and a byte mutator. Used by `examples/fuzz.rs` (`scripts/fuzz.sh`) and by the corpus regression test.

use std::path::Path;

use crate::import::Limits;
use crate::offline::{BakeSettings, ExportFormat, bake_clip};

/// A decoder under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `.animclip` decoding (`clipfile::native::decode`).
    Animclip,
    /// Unity-layout decoding (`clipfile::unity::decode`).
    Unity,
    /// Preset and blend space loading (`Preset::parse`, `preset::parse_blend_space`).
    Preset,
    /// glTF/GLB/VRM import from bytes (`import::gltf::load_bytes_with`).
    Gltf,
    /// Blend path files (`offline::stream::parse_path`).
    BlendPath,
    /// Render setup without a device: glTF import, fitting to (small) GPU limits, posed bounds and camera framing.
    RenderSetup,
    /// Blend space loading, then its influence map (`blend::heatmap`) within the work budget.
    Heatmap,
    /// FBX import from bytes (`import::fbx::load_bytes_with`, ufbx), then every clip evaluated.
    Fbx,
    /// A preset's state machine (text: the preset, then optionally `\n%%\n` and a parameter script), checked,
    /// then played on the mannequin for a second at 60 Hz under the script, and sought back.
    Machine,
    /// VRM import from bytes, then its springs stepped and its expressions set for a few frames.
    Vrm,
    /// Unity's text assets (`import::unity`): the YAML read, then whatever it holds read as a controller, an
    /// override controller, a mask and `.anim` clips, each clip made the tool's clip.
    UnityYaml,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 11] = [
        Target::Animclip,
        Target::Unity,
        Target::Preset,
        Target::Gltf,
        Target::BlendPath,
        Target::RenderSetup,
        Target::Heatmap,
        Target::Fbx,
        Target::Machine,
        Target::Vrm,
        Target::UnityYaml,
    ];

    /// Lowercase name (folder of its corpus).
    pub fn name(self) -> &'static str {
        match self {
            Target::Animclip => "animclip",
            Target::Unity => "unity",
            Target::Preset => "preset",
            Target::Gltf => "gltf",
            Target::BlendPath => "blend_path",
            Target::RenderSetup => "render_setup",
            Target::Heatmap => "heatmap",
            Target::Fbx => "fbx",
            Target::Machine => "machine",
            Target::Vrm => "vrm",
            Target::UnityYaml => "unity_yaml",
        }
    }

    /// The target named `name`.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// True for targets whose inputs are text (JSON).
    pub fn is_text(self) -> bool {
        matches!(
            self,
            Target::Preset
                | Target::BlendPath
                | Target::Heatmap
                | Target::Machine
                | Target::UnityYaml
        )
    }
}

/// The limits fuzzed imports run under: small enough that a file cannot make the fuzzer allocate gigabytes.
pub fn fuzz_limits() -> Limits {
    Limits {
        max_file_bytes: 16 << 20,
        max_vertices: 200_000,
        max_joints: 2_000,
    }
}

/// Feeds `bytes` to the target; returns a short outcome ("ok" or the error's kind) for corpus bookkeeping.
/// A panic here is a bug.
pub fn run(target: Target, bytes: &[u8]) -> String {
    let path = Path::new("fuzz-input");
    let outcome = |r: Result<(), String>| match r {
        Ok(()) => "ok".to_string(),
        Err(e) => {
            // A kind of error, not its values: the message up to the first quoted or bracketed part, in plain
            // lowercase words (names and values echoed from the input are dropped).
            let message = e.strip_prefix("fuzz-input: ").unwrap_or(&e);
            let cut = message
                .find(['\'', '"', '`', '(', '[', '{'])
                .unwrap_or(message.len());
            let head = message[..cut].rsplit(": ").next().unwrap_or("");
            head.split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| {
                    !w.is_empty() && w.len() <= 12 && w.chars().all(|c| c.is_ascii_lowercase())
                })
                .take(5)
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    match target {
        Target::Animclip => outcome(
            crate::clipfile::native::decode(bytes, path)
                .map(|c| {
                    let _ = c.to_clip();
                })
                .map_err(|e| e.to_string()),
        ),
        Target::Unity => outcome(
            crate::clipfile::unity::decode(bytes, path)
                .map(|c| {
                    let _ = c.to_clip(crate::clipfile::unity::UnityAxes::Unity);
                })
                .map_err(|e| e.to_string()),
        ),
        Target::Preset => {
            let text = String::from_utf8_lossy(bytes);
            let a = crate::preset::Preset::parse(&text, path).map(|p| {
                if let Some(b) = &p.blend {
                    let _ = b.weights();
                }
            });
            let b = crate::preset::parse_blend_space(&text, path).map(|b| {
                let _ = b.weights();
                let _ = b.issues();
            });
            match (a, b) {
                (Ok(()), Ok(())) => "ok".into(),
                (Err(e), _) | (_, Err(e)) => preset_error_kind(e),
            }
        }
        Target::Fbx => outcome(
            crate::import::fbx::load_bytes_with(
                bytes,
                "fuzz",
                None,
                Path::new("fuzz-input"),
                &fuzz_limits(),
            )
            .map(|m| evaluate_every_clip(&m))
            .map_err(|e| e.to_string()),
        ),
        Target::Gltf => outcome(import(bytes).map(|m| evaluate_every_clip(&m))),
        Target::RenderSetup => outcome(import(bytes).and_then(|m| {
            use crate::core::gpu_fit::{GpuLimits, fit_character};
            let c = &m.character;
            // Small limits, so that textures and buffers of a few KB already take the downscale and error paths.
            let limits = GpuLimits {
                max_texture_side: 16,
                max_buffer_bytes: 64 << 10,
                max_palette_bytes: 4 << 10,
            };
            fit_character(c, &limits).map_err(|e| e.to_string())?;
            let model = crate::core::Pose::rest(&c.skeleton).model_matrices(&c.skeleton);
            let (min, max) = crate::render::camera::posed_bounds(c, &model);
            let mut camera = crate::render::OrbitCamera::default();
            camera.frame(min, max, 1.5);
            let _ = camera.view_proj(1.5);
            Ok(())
        })),
        Target::Heatmap => {
            let text = String::from_utf8_lossy(bytes);
            match crate::preset::parse_blend_space(&text, path) {
                Err(e) => preset_error_kind(e),
                Ok(space) => outcome((|| {
                    use crate::blend::{HeatmapView, heatmap};
                    let size = 24;
                    heatmap::check_work(size, space.nodes.len())?;
                    let [ax, ay] = &space.axes;
                    let min = glam::DVec2::new(ax.min, ay.min);
                    let max = glam::DVec2::new(ax.max, ay.max);
                    let map = heatmap::compute(space.mode, &space.positions(), min, max, size);
                    let _ = heatmap::to_rgba(&map, HeatmapView::All, &heatmap::node_colors(&space));
                    if !space.nodes.is_empty() {
                        let _ = heatmap::to_rgba(&map, HeatmapView::Node(0), &[]);
                    }
                    Ok(())
                })()),
            }
        }
        Target::Machine => {
            let text = String::from_utf8_lossy(bytes);
            let (preset, script) = match text.split_once(SCRIPT_SEPARATOR) {
                Some((p, s)) => (p, Some(s)),
                None => (&*text, None),
            };
            match crate::preset::Preset::parse(preset, path) {
                Err(e) => preset_error_kind(e),
                Ok(p) => outcome(play_machine(p, script)),
            }
        }
        Target::Vrm => outcome(import(bytes).map(|m| step_springs_and_faces(&m))),
        Target::UnityYaml => outcome(read_unity(bytes, path)),
        Target::BlendPath => outcome(
            crate::offline::stream::parse_path(&String::from_utf8_lossy(bytes), "fuzz-input")
                .map(|p| {
                    let _ = crate::offline::stream::path_point(&p, 0.5);
                })
                .map_err(|e| e.to_string()),
        ),
    }
}

/// Poses an imported model at rest and each of its clips halfway through, through the Evaluator.
fn evaluate_every_clip(m: &crate::import::ImportedModel) {
    use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
    let layers = crate::layers::LayerParams::default();
    let c = &m.character;
    let mut ev = Evaluator::new(c, &m.clips, SourceSpec::Rest, layers);
    ev.evaluate(&EvalInput::default());
    for (i, clip) in m.clips.iter().enumerate() {
        ev.set_source(c, &m.clips, SourceSpec::Clip(i));
        let clock = ClockStep::Seek(clip.duration * 0.5);
        ev.evaluate(&EvalInput {
            clock,
            ..EvalInput::default()
        });
    }
}

/// Seeds of the Unity target: the committed fixture project's controller, override controller, a generic clip
/// and a humanoid one.
const UNITY_SEEDS: [&str; 5] = [
    include_str!("../tests/fixtures/unity/Assets/Controllers/Locomotion.controller"),
    include_str!("../tests/fixtures/unity/Assets/Controllers/Fast.overrideController"),
    include_str!("../tests/fixtures/unity/Assets/Anims/Walk.anim"),
    include_str!("../tests/fixtures/unity/Assets/Anims/Wave.anim"),
    include_str!("../tests/fixtures/unity/Assets/Anims/Face.anim"),
];

/// Reads a Unity text asset as every reader would: the YAML, then its controller, override controller, mask and
/// clips (each made the tool's clip); it is "ok" when the YAML reads and what it holds reads.
fn read_unity(bytes: &[u8], path: &Path) -> Result<(), String> {
    use crate::import::unity::{anim, anim_clip, controller, mask, yaml};
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    let file = yaml::parse(text, path).map_err(|e| e.to_string())?;
    let mut read = Vec::new();
    if file
        .of_class(controller::class::CONTROLLER)
        .next()
        .is_some()
    {
        read.push(
            controller::read(&file, path)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
    }
    if file
        .of_class(controller::class::OVERRIDE_CONTROLLER)
        .next()
        .is_some()
    {
        read.push(
            mask::read_override(&file, path)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
    }
    if file
        .of_class(controller::class::AVATAR_MASK)
        .next()
        .is_some()
    {
        read.push(
            mask::read_mask(&file, path)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
    }
    if file.of_class(anim::CLASS_ANIMATION_CLIP).next().is_some() {
        read.push(
            anim::clips(&file, path)
                .map_err(|e| e.to_string())
                .and_then(|clips| {
                    for c in &clips {
                        anim_clip::to_clip(c)?;
                    }
                    Ok(())
                }),
        );
    }
    read.into_iter().collect()
}

/// Between a machine input's preset and its script.
pub const SCRIPT_SEPARATOR: &str = "\n%%\n";

/// The mannequin, loaded once for the machine target.
fn mannequin() -> &'static crate::import::ImportedModel {
    static MODEL: std::sync::OnceLock<crate::import::ImportedModel> = std::sync::OnceLock::new();
    MODEL.get_or_init(crate::demo::mannequin::load)
}

/// Plays the preset's state machine on the mannequin as `pose --script` does: checked, then a second at 60 Hz
/// under `script` (every parameter changed by it), then sought back to the middle (the script replayed).
fn play_machine(preset: crate::preset::Preset, script: Option<&str>) -> Result<(), String> {
    use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
    let machine = preset.state_machine.ok_or("no state machine")?;
    machine.validate_playable().map_err(|e| e.to_string())?;
    let script = script
        .map(|s| crate::graph::Script::parse(s, "fuzz-input"))
        .transpose()?;
    let model = mannequin();
    let (clips, machine) =
        crate::offline::mirror::machine_clips(&model.character, &model.clips, &machine);
    let mut ev = Evaluator::new(
        &model.character,
        &clips,
        SourceSpec::StateMachine(machine),
        preset.layers,
    );
    let player = ev
        .source()
        .machine()
        .ok_or("the state machine did not bind")?;
    if let Some(name) = script.as_ref().and_then(|s| s.unknown_parameter(player)) {
        return Err(format!("no parameter '{name}'"));
    }
    ev.source_mut().set_script(script.map(std::sync::Arc::new));
    for k in 1..=60 {
        let out = ev.evaluate(&EvalInput {
            clock: ClockStep::Continue(k as f32 / 60.0),
            ..EvalInput::default()
        });
        if let Some(e) = &out.error {
            return Err(e.to_string());
        }
    }
    ev.evaluate(&EvalInput {
        clock: ClockStep::Seek(0.5),
        ..EvalInput::default()
    });
    Ok(())
}

/// Steps an imported VRM's springs for ten frames at 60 Hz with each of its expressions set in turn (the
/// springs on, a wind-free sway), as the editor's Springs and Face tabs do.
fn step_springs_and_faces(m: &crate::import::ImportedModel) {
    use crate::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
    let c = &m.character;
    let mut layers = crate::layers::LayerParams::off();
    layers.springs.enabled = true;
    let source = if m.clips.is_empty() {
        SourceSpec::Rest
    } else {
        SourceSpec::Clip(0)
    };
    let mut ev = Evaluator::new(c, &m.clips, source, layers.clone());
    let names: Vec<String> = c
        .expressions
        .iter()
        .map(|e| e.name.clone())
        .take(8)
        .collect();
    for k in 0..10 {
        if let Some(name) = names.get(k % names.len().max(1)) {
            layers.expressions = [(name.clone(), 1.0)].into();
            ev.set_layers(c, &m.clips, &layers);
        }
        ev.evaluate(&EvalInput {
            clock: ClockStep::Advance(1.0 / 60.0),
            ..EvalInput::default()
        });
    }
}

/// A two-joint skinned quad with a three-key rotation curve, as an ASCII FBX 7.4 file: the FBX fuzzer's seed.
pub const TINY_FBX: &str = include_str!("import/tiny.fbx");

/// glTF import under [`fuzz_limits`], its error as text.
fn import(bytes: &[u8]) -> Result<crate::import::ImportedModel, String> {
    crate::import::gltf::load_bytes_with(
        bytes,
        "fuzz",
        None,
        Path::new("fuzz-input"),
        &fuzz_limits(),
    )
    .map_err(|e| e.to_string())
}

/// The kind of a preset error: its variant (and the checked field), since the message echoes the input's keys.
fn preset_error_kind(e: crate::preset::PresetError) -> String {
    use crate::preset::PresetError;
    match e {
        PresetError::Invalid { field, .. } => {
            format!("invalid {}", field.split('[').next().unwrap_or_default())
        }
        PresetError::Json { .. } => "json".into(),
        PresetError::WrongFormat { .. } => "format".into(),
        PresetError::Newer { .. } => "newer".into(),
        PresetError::NoBlendSpace { .. } => "no blend".into(),
        PresetError::Read { .. } => "read".into(),
    }
}

/// A two-joint skinned quad with a two-key animation: small, so the importer fuzzes at thousands of runs a second.
pub fn tiny_glb() -> Vec<u8> {
    use crate::io::glb::{Component, GlbBuilder, Target as View};
    use serde_json::json;
    let mut g = GlbBuilder::new();
    let p = g.floats(
        &[0.0, 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.],
        "VEC3",
        3,
        Some(View::Vertices),
        true,
    );
    let j = g.uints(
        &[0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
        Component::U8,
        "VEC4",
        4,
        Some(View::Vertices),
    );
    let w = g.floats(
        &[
            0.75, 0.25, 0., 0., 0.5, 0.5, 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.,
        ],
        "VEC4",
        4,
        Some(View::Vertices),
        false,
    );
    let i = g.uints(
        &[0, 1, 2, 0, 2, 3],
        Component::U16,
        "SCALAR",
        1,
        Some(View::Indices),
    );
    let ibm = g.floats(
        &[
            glam::Mat4::IDENTITY.to_cols_array(),
            glam::Mat4::from_translation(glam::Vec3::NEG_Y).to_cols_array(),
        ]
        .concat(),
        "MAT4",
        16,
        None,
        false,
    );
    let t = g.floats(&[0.0, 1.0], "SCALAR", 1, None, true);
    let r = g.floats(
        &[0.0, 0., 0., 1., 0., 0., 0.3826834, 0.9238795],
        "VEC4",
        4,
        None,
        false,
    );
    let doc = json!({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 2]}],
        "nodes": [{"name": "Hips", "children": [1]}, {"name": "Spine", "translation": [0, 1, 0]}, {"mesh": 0, "skin": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": p, "JOINTS_0": j, "WEIGHTS_0": w}, "indices": i}]}],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": ibm}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}],
                        "samplers": [{"input": t, "output": r, "interpolation": "LINEAR"}]}]
    });
    g.finish(doc)
}

/// Seed inputs for a target, generated by code.
pub fn seeds(target: Target) -> Vec<Vec<u8>> {
    match target {
        Target::Gltf | Target::RenderSetup => {
            let mut out = vec![tiny_glb()];
            // The same document as .gltf JSON with an embedded data URI.
            let bytes = tiny_glb();
            if let Ok(glb) = gltf::binary::Glb::from_slice(&bytes) {
                let mut doc: serde_json::Value =
                    serde_json::from_slice(&glb.json).unwrap_or_default();
                if let Some(bin) = glb.bin {
                    doc["buffers"][0]["uri"] = serde_json::json!(format!(
                        "data:application/octet-stream;base64,{}",
                        base64::encode(&bin)
                    ));
                    out.push(serde_json::to_vec(&doc).unwrap_or_default());
                }
            }
            out
        }
        Target::Animclip | Target::Unity => {
            let model = crate::demo::mannequin::load();
            let c = &model.character;
            let clip = &model.clips[0];
            let settings = BakeSettings {
                fps: 10.0,
                ..BakeSettings::default()
            };
            let format = if target == Target::Animclip {
                ExportFormat::Native
            } else {
                ExportFormat::Unity
            };
            vec![bake_clip(c, clip, format, &settings).bytes]
        }
        Target::Preset => {
            let preset = crate::preset::Preset {
                blend: Some(crate::demo::locomotion::default_blend_space()),
                ..crate::preset::Preset::default()
            };
            vec![
                preset.to_json().into_bytes(),
                serde_json::to_vec(&crate::demo::locomotion::default_blend_space()).unwrap_or_default(),
            ]
        }
        Target::Fbx => vec![TINY_FBX.as_bytes().to_vec()],
        Target::Machine => vec![machine_seed().into_bytes()],
        Target::Vrm => vec![tiny_vrm0(), tiny_vrm1()],
        Target::UnityYaml => UNITY_SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect(),
        Target::Heatmap => vec![
            serde_json::to_vec(&crate::demo::locomotion::default_blend_space()).unwrap_or_default(),
        ],
        Target::BlendPath => vec![
            br#"[{"time": 0, "point": [0, 0]}, {"time": 1.5, "point": [0.5, 1.4]}, {"time": 3, "point": [0, 3.5]}]"#
                .to_vec(),
        ],
    }
}

/// The machine target's seed: the mannequin's idle, walk and run as states with Unity's transition kinds (exit
/// time, a bool, a float threshold, a trigger from Any State with inertialization), a masked layer and two synced
/// layers (one with Timing), then a script driving them.
fn machine_seed() -> String {
    let preset = r#"{"format": "animtune-preset", "version": 5,
  "state_machine": {
    "parameters": [{"name": "go", "type": "bool"}, {"name": "speed", "type": "float", "default": 0.0},
                   {"name": "jump", "type": "trigger"}],
    "states": [{"name": "Idle", "clip": "Idle"}, {"name": "Walk", "clip": "WalkForward", "speed": 1.2},
               {"name": "Run", "clip": "RunForward", "mirror": true}],
    "entry": "Idle",
    "transitions": [
      {"from": "Idle", "to": "Walk", "has_exit_time": false, "duration": 0.2,
       "conditions": [{"parameter": "go", "mode": "if"}]},
      {"from": "Walk", "to": "Run", "has_exit_time": true, "exit_time": 0.5, "duration": 0.1,
       "conditions": [{"parameter": "speed", "mode": "greater", "threshold": 2.0}]},
      {"from": "any", "to": "Idle", "has_exit_time": false, "duration": 0.3, "model": "inertialization",
       "interruption_source": "current_then_next",
       "conditions": [{"parameter": "jump", "mode": "if"}]}],
    "layers": [
      {"name": "Arms", "weight": 0.5, "parts": ["left_arm"], "entry": "Rest",
       "states": [{"name": "Rest", "clip": "Idle"}, {"name": "Swing", "clip": "RunForward"}],
       "transitions": [{"from": "Rest", "to": "Swing", "duration": 0.1, "has_exit_time": true, "exit_time": 0.5}]},
      {"name": "Echo", "weight": 0.7, "synced_to": 0, "entry": "Idle",
       "states": [{"name": "Idle", "clip": "RunForward"}, {"name": "Run", "clip": "Idle"}]},
      {"name": "Paced", "weight": 0.4, "synced_to": 1, "synced_timing": true, "entry": "Rest",
       "states": [{"name": "Rest", "clip": "WalkForward"}]}]}}"#;
    let script = r#"[{"time": 0.1, "set": "go", "value": true}, {"time": 0.4, "set": "speed", "value": 3.0},
 {"time": 0.8, "trigger": "jump"}]"#;
    format!("{preset}{SCRIPT_SEPARATOR}{script}")
}

/// [`tiny_glb`] as a VRM 0.x: its joints as hips and spine, a spring bone group on the spine with a sphere
/// collider on the hips, and a blend-shape group binding a morph target of the quad.
pub fn tiny_vrm0() -> Vec<u8> {
    tiny_vrm(|doc| {
        doc["extensionsUsed"] = serde_json::json!(["VRM"]);
        doc["extensions"] = serde_json::json!({"VRM": {
            "specVersion": "0.0",
            "humanoid": {"humanBones": [{"bone": "hips", "node": 0}, {"bone": "spine", "node": 1}]},
            "secondaryAnimation": {
                "boneGroups": [{"stiffiness": 1.0, "gravityPower": 0.2, "gravityDir": {"x": 0, "y": -1, "z": 0},
                                "dragForce": 0.4, "center": -1, "hitRadius": 0.02, "bones": [1],
                                "colliderGroups": [0]}],
                "colliderGroups": [{"node": 0, "colliders": [{"offset": {"x": 0, "y": 0.5, "z": 0}, "radius": 0.1}]}]},
            "blendShapeMaster": {"blendShapeGroups": [
                {"name": "Joy", "presetName": "joy", "binds": [{"mesh": 0, "index": 0, "weight": 100}]}]}
        }});
    })
}

/// [`tiny_glb`] as a VRM 1.0: `VRMC_vrm` (humanoid, an expression binding the quad's morph target) and
/// `VRMC_springBone` (a spring on the spine, a capsule collider on the hips).
pub fn tiny_vrm1() -> Vec<u8> {
    tiny_vrm(|doc| {
        doc["extensionsUsed"] = serde_json::json!(["VRMC_vrm", "VRMC_springBone"]);
        doc["extensions"] = serde_json::json!({
            "VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "tiny", "licenseUrl": "https://vrm.dev/licenses/1.0/"},
                "humanoid": {"humanBones": {"hips": {"node": 0}, "spine": {"node": 1}}},
                "expressions": {"preset": {"happy": {"morphTargetBinds": [{"node": 2, "index": 0, "weight": 1.0}]}}}},
            "VRMC_springBone": {"specVersion": "1.0",
                "colliders": [{"node": 0, "shape": {"capsule": {"offset": [0, 0, 0], "radius": 0.1, "tail": [0, 0.5, 0]}}}],
                "colliderGroups": [{"colliders": [0]}],
                "springs": [{"joints": [{"node": 0}, {"node": 1, "stiffness": 1.0, "gravityPower": 0.2,
                                         "gravityDir": [0, -1, 0], "dragForce": 0.4, "hitRadius": 0.02}],
                             "colliderGroups": [0]}]}
        });
    })
}

/// [`tiny_glb`] with a morph target on its quad and `extend` applied to its JSON.
fn tiny_vrm(extend: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let bytes = tiny_glb();
    let Ok(glb) = gltf::binary::Glb::from_slice(&bytes) else {
        return bytes;
    };
    let mut doc: serde_json::Value = serde_json::from_slice(&glb.json).unwrap_or_default();
    let mut bin = glb.bin.map(|b| b.into_owned()).unwrap_or_default();
    // The morph target: every vertex 0.1 up, appended to the binary chunk.
    let offset = bin.len();
    for _ in 0..4 {
        for v in [0.0f32, 0.1, 0.0] {
            bin.extend_from_slice(&v.to_le_bytes());
        }
    }
    let views = doc["bufferViews"].as_array().map_or(0, Vec::len);
    let accessors = doc["accessors"].as_array().map_or(0, Vec::len);
    if let Some(v) = doc["bufferViews"].as_array_mut() {
        v.push(serde_json::json!({"buffer": 0, "byteOffset": offset, "byteLength": 48}));
    }
    if let Some(a) = doc["accessors"].as_array_mut() {
        a.push(serde_json::json!({"bufferView": views, "componentType": 5126, "count": 4, "type": "VEC3",
                                  "min": [0, 0.1, 0], "max": [0, 0.1, 0]}));
    }
    doc["meshes"][0]["primitives"][0]["targets"] = serde_json::json!([{"POSITION": accessors}]);
    doc["buffers"][0]["byteLength"] = serde_json::json!(bin.len());
    extend(&mut doc);
    let json = serde_json::to_vec(&doc).unwrap_or_default();
    gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: 0,
        },
        json: json.into(),
        bin: Some(bin.into()),
    }
    .to_vec()
    .unwrap_or(bytes)
}

/// A small deterministic PRNG (xorshift64*) for the mutator: reproducible runs from a seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is replaced by a fixed odd constant).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

const INTERESTING_U32: [u32; 9] = [
    0,
    1,
    4,
    0x7f,
    0xff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
];
const INTERESTING_TEXT: [&str; 12] = [
    "0",
    "-1",
    "1e39",
    "-1e39",
    "1e999",
    "4294967296",
    "null",
    "\"\"",
    "[]",
    "{}",
    "\"x\"",
    "1.5",
];

/// One random mutation of `input` (bit flips, interesting values, cuts, repeats, splices with `other`; for
/// text targets also JSON-token edits).
pub fn mutate(input: &[u8], other: &[u8], text: bool, rng: &mut Rng) -> Vec<u8> {
    let mut v = input.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = v.len();
        match rng.below(if text { 10 } else { 8 }) {
            0 if len > 0 => {
                let i = rng.below(len);
                v[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                v[i] = [0u8, 0xff, 0x7f, 0x80, b'{', b'"'][rng.below(6)];
            }
            2 if len >= 4 => {
                let i = rng.below(len - 3);
                let value = INTERESTING_U32[rng.below(INTERESTING_U32.len())];
                v[i..i + 4].copy_from_slice(&value.to_le_bytes());
            }
            3 if len > 0 => v.truncate(rng.below(len)),
            4 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                v.drain(a..b);
            }
            5 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                let piece = v[a..b].to_vec();
                let at = rng.below(len);
                v.splice(at..at, piece);
            }
            6 if !other.is_empty() => {
                let a = rng.below(other.len());
                let b = (a + 1 + rng.below(256)).min(other.len());
                let at = rng.below(len + 1);
                v.splice(at..at, other[a..b].iter().copied());
            }
            7 => {
                let at = rng.below(len + 1);
                let n = 1 + rng.below(16);
                let noise: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                v.splice(at..at, noise);
            }
            8 | 9 if len > 0 => {
                // Replace a number in the text with an interesting token.
                let digits: Vec<usize> = (0..len).filter(|&i| v[i].is_ascii_digit()).collect();
                if let Some(&start) = digits.get(rng.below(digits.len())) {
                    let mut end = start;
                    while end < len && (v[end].is_ascii_digit() || b".eE-+".contains(&v[end])) {
                        end += 1;
                    }
                    let token = INTERESTING_TEXT[rng.below(INTERESTING_TEXT.len())];
                    v.splice(start..end, token.bytes());
                }
            }
            _ => {}
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_decode_and_mutations_differ() {
        for t in Target::ALL {
            for s in seeds(t) {
                assert_eq!(run(t, &s), "ok", "{t:?} seed");
            }
        }
        // The VRM seeds carry what the target is for: springs and expressions.
        for seed in seeds(Target::Vrm) {
            let m = import(&seed).unwrap();
            assert!(!m.character.springs.is_empty(), "no springs");
            assert!(!m.character.expressions.is_empty(), "no expressions");
        }
        let mut rng = Rng::new(7);
        let s = seeds(Target::Gltf).remove(0);
        let m = mutate(&s, &s, false, &mut rng);
        assert_ne!(m, s);
    }
}
