//! Baked clips: round trips on every clip of every shared model, the Unity layout, binding, playback,
//! and files that are truncated, corrupted or lying.

use crate::common;

use std::path::Path;

use animtune::clipfile::{self, BakedClip, Channel, ClipFile, ClipFileError, native};
use animtune::core::binding::BindMethod;
use animtune::core::{HumanBone, Pose};
use animtune::eval::{ClockStep, EvalInput, Evaluator, SourceSpec};
use animtune::import::{ImportedModel, load_file};
use animtune::layers::LayerParams;
use animtune::offline::frames::prepare;
use animtune::offline::{BakeSettings, Encoded, ExportFormat, encode, measure};
use glam::{Quat, Vec3};
use rmpv::Value;

fn models() -> Vec<(String, ImportedModel)> {
    let mut out = vec![("mannequin".to_string(), animtune::demo::mannequin::load())];
    for name in [
        "CesiumMan.glb",
        "RiggedSimple.glb",
        "Fox.glb",
        "RobotExpressive.glb",
        "three-vrm_test.vrma",
    ] {
        out.push((name.to_string(), load_file(&common::asset(name)).unwrap()));
    }
    out.push((
        "quaternius".to_string(),
        load_file(&common::quaternius()).unwrap(),
    ));
    out
}

/// The Mixamo models among the extended fixtures.
fn mixamo_models() -> Vec<(String, ImportedModel)> {
    ["Xbot.glb", "Soldier.glb", "Michelle.glb"]
        .into_iter()
        .map(|name| {
            let path = common::extra_asset(&format!("mixamo/{name}"));
            (name.to_string(), load_file(&path).unwrap())
        })
        .collect()
}

const TOLERANCE_M: f32 = 0.01 / 100.0;

#[test]
fn every_clip_of_every_model_round_trips_within_a_hundredth_of_a_centimetre() {
    assert_eq!(round_trip_every_clip(models()), 8 + 1 + 1 + 3 + 14 + 1 + 46);
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn every_mixamo_clip_round_trips_within_a_hundredth_of_a_centimetre() {
    assert_eq!(round_trip_every_clip(mixamo_models()), 7 + 4 + 2);
}

/// Bakes every clip of the models, checks each against its source (native and Unity layouts), and counts them.
fn round_trip_every_clip(models: Vec<(String, ImportedModel)>) -> usize {
    let settings = BakeSettings::default();
    let mut baked_clips = 0;
    for (name, m) in models {
        let c = &m.character;
        for clip in &m.clips {
            let (frames, meta) = prepare(&c.skeleton, Some(&c.humanoid), clip, &settings);
            let baked = encode(c, &frames, &meta, ExportFormat::Native, false, &settings);
            assert!(
                baked.report.max_error_cm <= 0.01,
                "{name} '{}': {} cm",
                clip.name,
                baked.report.max_error_cm
            );
            assert!(
                baked.report.bytes < baked.report.raw_bytes,
                "{name} '{}' did not shrink",
                clip.name
            );

            // Reload from the bytes alone and replay through the player at every frame.
            let file = clipfile::decode(&baked.bytes, Path::new("mem.animclip")).unwrap();
            let replay = file.to_clip();
            let binding = replay.bind(&c.skeleton, None);
            assert!(binding.unbound_tracks.is_empty());
            let bare = animtune::core::Character::skeleton_only(&c.skeleton, None);
            // Both compiled exact: the claim is the file's, not the runtime's compact form's.
            let mut player = Evaluator::for_clip_exact(&bare, &replay);
            // Against the source itself: at every grid frame, every key time of every channel of the source
            // and the midpoint between consecutive ones.
            let mut source = Evaluator::for_clip_exact(&bare, clip);
            let mut keys: Vec<f32> = Vec::new();
            for t in &clip.tracks {
                keys.extend(t.translation.iter().flat_map(|k| k.times().to_vec()));
                keys.extend(t.rotation.iter().flat_map(|k| k.times().to_vec()));
                keys.extend(t.scale.iter().flat_map(|k| k.times().to_vec()));
            }
            keys.retain(|t| (0.0..=clip.duration).contains(t));
            keys.sort_by(f32::total_cmp);
            keys.dedup();
            let mids: Vec<f32> = keys.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
            let (mut worst, mut rounding) = (0.0f32, 0.0f32);
            let mut reference = animtune::core::Pose::rest(&c.skeleton);
            for &t in frames.times.iter().chain(&keys).chain(&mids) {
                let at = |ev: &mut Evaluator| {
                    ev.evaluate(&EvalInput {
                        clock: ClockStep::Seek(t),
                        ..EvalInput::default()
                    })
                    .local
                    .model_matrices(&c.skeleton)
                };
                let played = at(&mut player);
                let e = animtune::offline::max_vertex_error(&at(&mut source), &played);
                worst = worst.max(e);
                // The report measures the file with the reference sampler: how far its f32 rounding is from the
                // runtime's on this rig.
                reference.reset_to_rest(&c.skeleton);
                replay.sample_into(&binding, t, animtune::core::Wrap::Clamp, &mut reference);
                let r = animtune::offline::max_vertex_error(
                    &reference.model_matrices(&c.skeleton),
                    &played,
                );
                rounding = rounding.max(r);
            }
            assert!(
                worst <= TOLERANCE_M,
                "{name} '{}': replay error against the source {} cm",
                clip.name,
                worst * 100.0
            );
            // The report is measured at the source's merged key times and their midpoints with the reference
            // sampler; these times are the channels' own, so they may differ by float noise, and the two samplers
            // round differently (up to 0.0004 cm on Fox.glb, a rig some 100 units long): the two agree within 5 % and
            // that rounding.
            assert!(
                worst * 100.0 <= baked.report.max_error_cm * 1.05 + rounding * 100.0 + 1e-5,
                "{name} '{}': the report says {} cm, the source is {} cm away",
                clip.name,
                baked.report.max_error_cm,
                worst * 100.0
            );

            // The Unity layout, decoded by its own reader, is within the same bound of the source, at its keys
            // and midpoints too (where Unity's per-component interpolation needs them, they are keys).
            let unity = encode(c, &frames, &meta, ExportFormat::Unity, false, &settings);
            let decoded = clipfile::decode(&unity.bytes, Path::new("mem.bytes")).unwrap();
            assert!(matches!(decoded, ClipFile::Unity(_)));
            let e = measure(&c.skeleton, &frames, &decoded.to_clip());
            assert!(
                e <= TOLERANCE_M,
                "{name} '{}': Unity layout error {} cm",
                clip.name,
                e * 100.0
            );
            baked_clips += 1;
        }
    }
    baked_clips
}

fn quaternius_walk() -> (ImportedModel, Encoded) {
    let m = load_file(&common::quaternius()).unwrap();
    let c = &m.character;
    let clip = m.clips.iter().find(|c| c.name == "Walk_Loop").unwrap();
    let baked =
        animtune::offline::bake_clip(c, clip, ExportFormat::Native, &BakeSettings::default());
    (m, baked)
}

#[test]
fn a_baked_clip_plays_on_another_humanoid_by_human_bone() {
    let (_, baked) = quaternius_walk();
    let clip = clipfile::decode(&baked.bytes, Path::new("walk.animclip"))
        .unwrap()
        .to_clip();
    let mannequin = animtune::demo::mannequin::load();
    let c = &mannequin.character;
    let binding = clip.bind(&c.skeleton, Some(&c.humanoid));
    let by_bone = binding
        .tracks
        .iter()
        .flatten()
        .filter(|b| b.method == BindMethod::HumanBone)
        .count();
    assert!(by_bone >= 40, "{by_bone} tracks bound by human bone");
    // What did not bind is reported: twist joints have no track.
    assert!(
        binding
            .joints_without_track
            .iter()
            .any(|j| j == "LeftUpperArmTwist")
    );
    let thigh = c.humanoid.joint(HumanBone::LeftUpperLeg).unwrap();
    let rest = c.skeleton.rest()[thigh].rotation;
    let swing = (0..40)
        .map(|i| {
            let mut pose = Pose::rest(&c.skeleton);
            clip.sample_into(
                &binding,
                i as f32 / 30.0,
                animtune::core::Wrap::Loop,
                &mut pose,
            );
            pose.local[thigh].rotation.angle_between(rest).to_degrees()
        })
        .fold(0.0, f32::max);
    // A walk swings the thigh by tens of degrees.
    assert!(swing > 20.0, "thigh swings {swing}°");
}

/// The 46 Quaternius clips compiled for playback take no more memory than ACL 2.1's compressed clips at its
/// defaults (261,696 bytes, BENCHMARKS.md): each clip keeps only the base channels that are not the rest pose,
/// and the rest pose is one allocation the clips of the skeleton share. (How close the compact form plays to
/// the keys is the spec test's: tests/cli/gltf_spec_eval.rs, 0.01 cm on every clip.)
#[test]
fn the_46_quaternius_clips_compiled_take_no_more_memory_than_acl() {
    const ACL_BYTES: usize = 261_696;
    let m = load_file(&common::quaternius()).unwrap();
    let s = &m.character.skeleton;
    assert_eq!(m.clips.len(), 46);
    let compiled: Vec<_> = m
        .clips
        .iter()
        .map(|c| animtune::runtime::Animation::bind(c, s, Some(&m.character.humanoid)).0)
        .collect();
    let shared = compiled[0].shared_rest_bytes();
    assert_eq!(
        shared,
        s.len() * std::mem::size_of::<animtune::core::Transform>()
    );
    let total = shared + compiled.iter().map(|a| a.memory_bytes()).sum::<usize>();
    assert!(total <= ACL_BYTES, "{total} bytes");
    for a in &compiled {
        assert!(a.compact_error().unwrap_or(0.0) <= animtune::compile::COMPACT_TOLERANCE);
    }
}

#[test]
fn a_packed_file_plays_on_its_own_grids_as_stored() {
    let (m, baked) = quaternius_walk();
    let s = &m.character.skeleton;
    let clip = clipfile::decode(&baked.bytes, Path::new("walk.animclip"))
        .unwrap()
        .to_clip();
    let binding = clip.bind(s, None);
    // Compiled for playback, the file's keys land on the grids they were written on: the runtime's packed form
    // holds the file's own integers, and plays within 0.0002 cm of the file read exactly (measured 0.00011 cm:
    // the two slerps' rounding, and lanes where the compiler rebuilds another quaternion component than the
    // file did), where a compilation on its own grids is 0.005 cm away.
    let compact = animtune::runtime::Animation::build(&clip, &binding, s);
    let exact = animtune::runtime::Animation::build_exact(&clip, &binding, s);
    let error = compact.compact_error().expect("it packs");
    assert!(error < 2e-6, "{} cm from the file's keys", error * 100.0);
    assert!(compact.memory_bytes() < exact.memory_bytes() / 2);
    // Without the grids (a clip whose keys were moved off them) the compiler picks its own: further away.
    let mut moved = native::decode(&baked.bytes, Path::new("walk.animclip")).unwrap();
    for t in &mut moved.tracks {
        t.grid_steps = [None; 3];
    }
    let moved = moved.to_clip();
    let own = animtune::runtime::Animation::build(&moved, &binding, s);
    assert!(own.compact_error().unwrap() > 10.0 * error);
}

#[test]
fn the_same_time_gives_the_same_pose() {
    let (m, baked) = quaternius_walk();
    let s = &m.character.skeleton;
    let clip = baked.clip.to_clip();
    let bare = animtune::core::Character::skeleton_only(s, None);
    let clips = [clip];
    let mut player = Evaluator::new(&bare, &clips, SourceSpec::Clip(0), LayerParams::off());
    let at = |clock| EvalInput {
        clock,
        ..EvalInput::default()
    };
    let a: Pose = player.evaluate(&at(ClockStep::Seek(0.7))).local.clone();
    player.play();
    player.clock_mut().set_speed(-1.5);
    for _ in 0..37 {
        player.evaluate(&at(ClockStep::Advance(0.013)));
    }
    player.stop();
    let b = player.evaluate(&at(ClockStep::Hold)).local.clone();
    assert_ne!(a, b);
    let b = player.evaluate(&at(ClockStep::Seek(0.7))).local.clone();
    assert_eq!(a, b);
}

#[test]
fn the_unity_layout_is_exactly_the_nested_arrays() {
    let m = animtune::demo::mannequin::load();
    let c = &m.character;
    let settings = BakeSettings::default();
    let (frames, meta) = prepare(&c.skeleton, Some(&c.humanoid), &m.clips[0], &settings);
    let unity = encode(c, &frames, &meta, ExportFormat::Unity, false, &settings);
    let v = rmpv::decode::read_value(&mut unity.bytes.as_slice()).unwrap();
    let top = v.as_array().unwrap();
    assert_eq!(top.len(), 5);
    assert!(top[0].is_i64() || top[0].is_u64(), "id is an int");
    assert!(matches!(top[1], Value::F32(_)), "length is float32");
    assert!(
        matches!(top[2], Value::F32(f) if f == meta.frame_rate),
        "frameRate is float32, the grid's rate"
    );
    assert_eq!(top[3].as_str(), Some("Idle"));
    let paths = top[4].as_array().unwrap();
    assert!(!paths.is_empty());
    for p in paths {
        let p = p.as_array().unwrap();
        assert_eq!(p.len(), 3);
        assert!(p[0].as_str().unwrap().starts_with("Hips"));
        for (curves, n) in [(&p[1], 3), (&p[2], 4)] {
            let curves = curves.as_array().unwrap();
            assert_eq!(curves.len(), n);
            for curve in curves {
                let curve = curve.as_array().unwrap();
                assert_eq!(curve.len(), 3, "[keys, postWrapMode, preWrapMode]");
                assert!(curve[1].is_i64() || curve[1].is_u64());
                assert!(curve[2].is_i64() || curve[2].is_u64());
                let keys = curve[0].as_array().unwrap();
                assert!(!keys.is_empty());
                for k in keys {
                    let k = k.as_array().unwrap();
                    assert_eq!(k.len(), 4);
                    assert!(
                        k.iter().all(|x| matches!(x, Value::F32(_))),
                        "keys are four float32"
                    );
                }
            }
        }
    }
}

fn key(t: f32, v: f32, i: f32, o: f32) -> Value {
    Value::Array(vec![
        Value::F32(t),
        Value::F32(v),
        Value::F32(i),
        Value::F32(o),
    ])
}

fn curve(keys: Vec<Value>) -> Value {
    Value::Array(vec![Value::Array(keys), Value::from(8), Value::from(8)])
}

fn hermite(t: f32, k0: (f32, f32, f32, f32), k1: (f32, f32, f32, f32)) -> f32 {
    let dt = k1.0 - k0.0;
    let u = (t - k0.0) / dt;
    let (u2, u3) = (u * u, u * u * u);
    (2.0 * u3 - 3.0 * u2 + 1.0) * k0.1
        + (u3 - 2.0 * u2 + u) * dt * k0.3
        + (-2.0 * u3 + 3.0 * u2) * k1.1
        + (u3 - u2) * dt * k1.2
}

#[test]
fn a_unity_file_written_elsewhere_evaluates_with_its_hermite_tangents() {
    // x has curved tangents and its own key times; y is flat; z has three keys; rotation turns about Y.
    let kx = [(0.0, 0.0, 0.0, 2.0), (1.0, 1.0, -1.0, 0.5)];
    let kz = [
        (0.0, 1.0, 0.0, 0.0),
        (0.4, 0.5, 0.3, 0.3),
        (1.0, 0.0, 0.0, 0.0),
    ];
    let (s, c) = (0.5f32.sin(), 0.5f32.cos());
    let pos = Value::Array(vec![
        curve(kx.iter().map(|k| key(k.0, k.1, k.2, k.3)).collect()),
        curve(vec![key(0.0, 2.0, 0.0, 0.0)]),
        curve(kz.iter().map(|k| key(k.0, k.1, k.2, k.3)).collect()),
    ]);
    let rot = Value::Array(vec![
        curve(vec![key(0.0, 0.0, 0.0, 0.0)]),
        curve(vec![key(0.0, 0.0, 0.0, s), key(1.0, s, s, 0.0)]),
        curve(vec![key(0.0, 0.0, 0.0, 0.0)]),
        curve(vec![key(0.0, 1.0, 0.0, c - 1.0), key(1.0, c, c - 1.0, 0.0)]),
    ]);
    let file = Value::Array(vec![
        Value::from(7),
        Value::F32(1.0),
        Value::F32(30.0),
        Value::from("FromUnity"),
        Value::Array(vec![Value::Array(vec![Value::from("Hips"), pos, rot])]),
    ]);
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &file).unwrap();
    let clip = clipfile::decode(&bytes, Path::new("unity.bytes"))
        .unwrap()
        .to_clip();
    assert_eq!(clip.name, "FromUnity");
    let track = &clip.tracks[0];
    for i in 0..=20 {
        let t = i as f32 / 20.0;
        let p: Vec3 = track.translation.as_ref().unwrap().sample(t);
        let x = hermite(t, kx[0], kx[1]);
        let z = if t <= 0.4 {
            hermite(t, kz[0], kz[1])
        } else {
            hermite(t, kz[1], kz[2])
        };
        // Unity's axes read into glTF's: X of positions and Y, Z of rotations change sign.
        assert!(
            (p.x + x).abs() < 1e-5 && (p.y - 2.0).abs() < 1e-6 && (p.z - z).abs() < 1e-5,
            "t={t}: {p} vs (-{x}, 2, {z})"
        );
        let q: Quat = track.rotation.as_ref().unwrap().sample(t);
        let y = hermite(t, (0.0, 0.0, 0.0, s), (1.0, s, s, 0.0));
        let w = hermite(t, (0.0, 1.0, 0.0, c - 1.0), (1.0, c, c - 1.0, 0.0));
        let expected = Quat::from_xyzw(0.0, -y, 0.0, w).normalize();
        assert!(q.dot(expected).abs() > 1.0 - 1e-6, "t={t}");
    }
}

fn small_native_clip() -> Vec<u8> {
    let m = animtune::demo::mannequin::load();
    let c = &m.character;
    animtune::offline::bake_clip(
        c,
        &m.clips[0],
        ExportFormat::Native,
        &BakeSettings::default(),
    )
    .bytes
}

#[test]
fn truncated_and_corrupted_files_give_errors_not_panics() {
    let bytes = small_native_clip();
    for cut in 0..bytes.len() {
        assert!(
            clipfile::decode(&bytes[..cut], Path::new("cut.animclip")).is_err(),
            "cut at {cut} decoded"
        );
    }
    // Flip bits all over the file: decoding may succeed or fail, but never panics, and what decodes plays.
    let m = animtune::demo::mannequin::load();
    let s = &m.character.skeleton;
    for i in (0..bytes.len()).step_by(7) {
        for bit in [0x01, 0x10, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= bit;
            if let Ok(f) = clipfile::decode(&b, Path::new("flip.animclip")) {
                let clip = f.to_clip();
                let binding = clip.bind(s, None);
                let mut pose = Pose::rest(s);
                clip.sample_into(&binding, 0.5, animtune::core::Wrap::Loop, &mut pose);
            }
        }
    }
}

#[test]
fn files_that_claim_four_billion_entries_fail_fast() {
    // Unity layout, 18 bytes: [0, 1.0f32, 30.0f32, "", array32 of 0xFFFFFFFF path sequences].
    let mut unity = vec![0x95, 0x00, 0xCA];
    unity.extend(1.0f32.to_be_bytes());
    unity.push(0xCA);
    unity.extend(30.0f32.to_be_bytes());
    unity.extend([0xA0, 0xDD, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert!(unity.len() <= 20);
    let err = clipfile::decode(&unity, Path::new("liar.bytes"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("liar.bytes"), "{err}");

    // Native: a body whose track list claims 0xFFFFFFFF entries.
    let mut native = vec![0x93, 0xAD];
    native.extend(b"animtune-clip");
    native.extend([0x01, 0x96, 0x00, 0xA0, 0xCA]);
    native.extend(1.0f32.to_be_bytes());
    native.push(0xCA);
    native.extend(30.0f32.to_be_bytes());
    native.extend([0xC0, 0xDD, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert!(clipfile::decode(&native, Path::new("liar.animclip")).is_err());

    // A key list that claims far more frames than the clip has.
    let clip = BakedClip {
        id: 0,
        name: "x".into(),
        duration: 1.0,
        frame_rate: 30.0,
        times: None,
        tracks: vec![track(Channel::Keys {
            frames: vec![0, 31],
            values: vec![Quat::IDENTITY; 2],
        })],
        morph: Vec::new(),
    };
    let err = clipfile::decode(
        &animtune::offline::encode::native::encode(&clip, false),
        Path::new("k.animclip"),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("past the clip's 31 frames"), "{err}");
}

fn track(rotation: Channel<Quat>) -> animtune::clipfile::BakedTrack {
    animtune::clipfile::BakedTrack {
        target: animtune::core::TrackTarget {
            path: "Hips".into(),
            name: "Hips".into(),
            human_bone: Some(HumanBone::Hips),
            rest: animtune::core::Transform::IDENTITY,
            parent_rest_rotation: Quat::IDENTITY,
            rest_height: 1.0,
            parent_rest_origin: glam::Vec3::ZERO,
            parent_rest_scale: 1.0,
            rest_known: true,
        },
        translation: Channel::Rest,
        rotation,
        scale: Channel::Rest,
        grid_steps: [None; 3],
    }
}

fn one_track_clip(rotation: Channel<Quat>) -> BakedClip {
    BakedClip {
        id: 3,
        name: "one".into(),
        duration: 1.0,
        frame_rate: 30.0,
        times: None,
        tracks: vec![track(rotation)],
        morph: Vec::new(),
    }
}

#[test]
fn versions_values_and_quaternions_are_validated() {
    let p = Path::new("v.animclip");
    // Newer version: a clear error naming both versions.
    let mut bytes =
        animtune::offline::encode::native::encode(&one_track_clip(Channel::Rest), false);
    let at = 2 + native::TAG.len();
    assert_eq!(bytes[at], native::VERSION as u8);
    bytes[at] = 9;
    match clipfile::decode(&bytes, p) {
        Err(ClipFileError::NewerVersion {
            found: 9,
            supported: native::VERSION,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // NaN.
    let nan = one_track_clip(Channel::Constant(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)));
    let err = clipfile::decode(&animtune::offline::encode::native::encode(&nan, false), p)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("track 'Hips' rotation") && err.contains("NaN"),
        "{err}"
    );
    // Far from unit length: refused. Slightly off: renormalised.
    let long = one_track_clip(Channel::Constant(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0)));
    assert!(
        clipfile::decode(&animtune::offline::encode::native::encode(&long, false), p)
            .unwrap_err()
            .to_string()
            .contains("not a rotation")
    );
    let near = one_track_clip(Channel::Constant(Quat::from_xyzw(0.0, 0.0, 0.0, 1.0005)));
    match clipfile::decode(&animtune::offline::encode::native::encode(&near, false), p).unwrap() {
        ClipFile::Native(c) => match &c.tracks[0].rotation {
            Channel::Constant(q) => assert!((q.length() - 1.0).abs() < 1e-6),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    // Not a clip at all.
    assert!(clipfile::decode(b"hello", p).is_err());
}

#[test]
fn keeping_source_keys_bakes_on_the_source_times() {
    let m = load_file(&common::asset("CesiumMan.glb")).unwrap();
    let c = &m.character;
    let settings = BakeSettings {
        grid: animtune::offline::Grid::SourceKeys,
        ..BakeSettings::default()
    };
    let baked = animtune::offline::bake_clip(c, &m.clips[0], ExportFormat::Native, &settings);
    let source_times = animtune::offline::frames::source_key_times(&m.clips[0]);
    assert_eq!(baked.clip.times.as_deref(), Some(source_times.as_slice()));
    assert!(baked.report.max_error_cm <= 0.01);
}

#[test]
fn trailing_bytes_after_a_clip_are_refused() {
    let native = small_native_clip();
    let m = animtune::demo::mannequin::load();
    let unity = animtune::offline::bake_clip(
        &m.character,
        &m.clips[0],
        ExportFormat::Unity,
        &BakeSettings::default(),
    )
    .bytes;
    for (name, bytes) in [("x.animclip", native), ("x.bytes", unity)] {
        assert!(clipfile::decode(&bytes, Path::new(name)).is_ok());
        let mut longer = bytes.clone();
        longer.extend_from_slice(&bytes[..16]);
        let err = clipfile::decode(&longer, Path::new(name))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(name) && err.contains("16 trailing bytes"),
            "{err}"
        );
    }
}

#[test]
fn a_unity_layout_file_with_350k_keys_poses_in_about_a_second() {
    use animtune::clipfile::unity::{Curve, Keyframe, PathSequence, UnityClip, WRAP_CLAMP_FOREVER};
    // 50 000 keys on each of the hips' seven curves: re-keying a track once looked every time up by a linear
    // search, n² in the keys (minutes for this file).
    let n = 50_000;
    let curve = |value: fn(f32) -> f32| {
        let keys = (0..n)
            .map(|i| {
                let t = i as f32 / 1000.0;
                Keyframe(t, value(t), 0.0, 0.0)
            })
            .collect();
        Curve(keys, WRAP_CLAMP_FOREVER, WRAP_CLAMP_FOREVER)
    };
    let hips = PathSequence(
        "Hips".into(),
        [curve(|t| t.sin() * 0.1), curve(|_| 1.0), curve(|_| 0.0)],
        [
            curve(|_| 0.0),
            curve(|t| (t * 0.5).sin()),
            curve(|_| 0.0),
            curve(|t| (t * 0.5).cos()),
        ],
    );
    let clip = UnityClip(1, n as f32 / 1000.0, 1000.0, "long".into(), vec![hips]);
    let dir = common::temp_dir("unity-many-keys");
    let file = dir.join("long.bytes");
    std::fs::write(&file, animtune::offline::encode::unity::encode(&clip)).unwrap();
    let started = std::time::Instant::now();
    let out = common::animtune(&[
        "pose",
        "mannequin",
        "--baked",
        file.to_str().unwrap(),
        "--time",
        "12.5",
        "--json",
    ]);
    let j = common::json_of(&out);
    let hips = &j["joints"].as_array().unwrap()[0];
    assert_eq!(hips["name"], "Hips");
    assert!(
        started.elapsed().as_secs_f32() < 20.0,
        "took {:?}",
        started.elapsed()
    );
}
