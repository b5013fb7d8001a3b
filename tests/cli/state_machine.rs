//! `pose --preset P --script S`: a state machine under Unity's transition rules on the Quaternius clips, joint by
//! joint against a composition of the clips that `pose --clip` samples alone. The oracle's times and weights are
//! worked from the rules (a crossfade linear in time, the destination starting at its offset, a normalised
//! duration as a fraction of the source's length, an exit time in the source's normalised time, an interruption
//! freezing the blended pose), and its blend is the weighted quaternion sum with hemisphere alignment that
//! ARCHITECTURE.md defines, written here.

use std::path::{Path, PathBuf};

use glam::Quat;

use crate::common;

/// The clips' lengths as `inspect` reports them.
fn durations(model: &str) -> std::collections::HashMap<String, f64> {
    let json = common::json_of(&common::animtune(&["inspect", model, "--json"]));
    json["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["duration"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Every joint's local rotation from a `pose --json` output, by joint name.
pub(crate) fn rotations(pose: &serde_json::Value) -> Vec<(String, Quat)> {
    pose["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let r: Vec<f32> = j["local"]["rotation"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap() as f32)
                .collect();
            (
                j["name"].as_str().unwrap().to_string(),
                Quat::from_xyzw(r[0], r[1], r[2], r[3]),
            )
        })
        .collect()
}

/// A clip alone at `time` (looping), every key as the file has it.
fn clip_at(model: &str, clip: &str, time: f64) -> Vec<Quat> {
    let t = format!("{time}");
    let out = common::animtune(&[
        "pose", model, "--clip", clip, "--time", &t, "--loop", "--exact", "--json",
    ]);
    rotations(&common::json_of(&out))
        .into_iter()
        .map(|(_, q)| q)
        .collect()
}

/// The weighted blend of poses: per joint, the weighted sum of quaternions each turned to the first's hemisphere,
/// normalised.
pub(crate) fn blend(poses: &[(&[Quat], f64)]) -> Vec<Quat> {
    (0..poses[0].0.len())
        .map(|j| {
            let first = poses[0].0[j];
            let mut sum = glam::Vec4::ZERO;
            for (pose, w) in poses {
                let q = pose[j];
                let q = if q.dot(first) < 0.0 { -q } else { q };
                sum += glam::Vec4::from(q) * *w as f32;
            }
            Quat::from_vec4(sum.normalize())
        })
        .collect()
}

/// Writes the preset (the machine's states Idle, Walk and Jog over the Quaternius clips; parameters go (bool),
/// jump (trigger)) and the script, and runs `pose` at `time`.
fn machine_pose(dir: &Path, transitions: &str, script: &str, time: f64) -> serde_json::Value {
    let preset = dir.join("machine.json");
    std::fs::write(
        &preset,
        format!(
            r#"{{"format": "animtune-preset", "version": 5,
                 "layers": {{"breath": {{"enabled": false}}, "look_at": {{"enabled": false}},
                            "twist": {{"enabled": false}}}},
                 "state_machine": {{
                   "parameters": [{{"name": "go", "type": "bool"}}, {{"name": "jump", "type": "trigger"}}],
                   "states": [{{"name": "Idle", "clip": "Idle_Loop"}}, {{"name": "Walk", "clip": "Walk_Loop"}},
                              {{"name": "Jog", "clip": "Jog_Fwd_Loop"}}],
                   "entry": "Idle", "transitions": {transitions}}}}}"#
        ),
    )
    .unwrap();
    let script_path: PathBuf = dir.join("script.json");
    std::fs::write(&script_path, script).unwrap();
    let q = common::quaternius();
    let t = format!("{time}");
    let out = common::animtune(&[
        "pose",
        q.to_str().unwrap(),
        "--preset",
        preset.to_str().unwrap(),
        "--script",
        script_path.to_str().unwrap(),
        "--time",
        &t,
        "--exact",
        "--json",
    ]);
    common::json_of(&out)
}

use crate::common::angle_deg;

/// Every joint within 0.05° of the expected rotation.
pub(crate) fn assert_matches(case: &str, got: &serde_json::Value, want: &[Quat]) {
    let got = rotations(got);
    assert_eq!(got.len(), want.len());
    let mut worst = (0.0f64, String::new());
    for ((name, g), w) in got.iter().zip(want) {
        let angle = angle_deg(*g, *w);
        if angle > worst.0 {
            worst = (angle, name.clone());
        }
    }
    assert!(worst.0 < 0.05, "{case}: {} is {}° off", worst.1, worst.0);
}

const GO_AT_HALF: &str = r#"[{"time": 0.5, "set": "go", "value": true}]"#;

#[test]
fn unity_transitions_reproduce_as_compositions_of_the_clips() {
    let dir = common::temp_dir("cli-machine");
    let q = common::quaternius();
    let model = q.to_str().unwrap();
    let d = durations(model);
    let (idle, walk) = (d["Idle_Loop"], d["Walk_Loop"]);

    // A fixed duration: 0.25 s from the update at 0.5 s; at 0.6 s the walk has played 0.1 s at weight 0.4.
    let got = machine_pose(
        &dir,
        r#"[{"from": "Idle", "to": "Walk", "has_exit_time": false, "duration": 0.25,
             "conditions": [{"parameter": "go", "mode": "if"}]}]"#,
        GO_AT_HALF,
        0.6,
    );
    assert_eq!(got["state_machine"]["transition"]["to"], "Walk");
    let want = blend(&[
        (&clip_at(model, "Idle_Loop", 0.6), 0.6),
        (&clip_at(model, "Walk_Loop", 0.1), 0.4),
    ]);
    assert_matches("fixed duration", &got, &want);

    // A normalised duration: 0.2 of the idle's length; and an offset: the walk starts at 0.3 of its cycle.
    let got = machine_pose(
        &dir,
        r#"[{"from": "Idle", "to": "Walk", "has_exit_time": false, "fixed_duration": false, "duration": 0.2,
             "offset": 0.3, "conditions": [{"parameter": "go", "mode": "if"}]}]"#,
        GO_AT_HALF,
        0.7,
    );
    let w = 0.2 / (0.2 * idle);
    let want = blend(&[
        (&clip_at(model, "Idle_Loop", 0.7), 1.0 - w),
        (&clip_at(model, "Walk_Loop", 0.3 * walk + 0.2), w),
    ]);
    assert_matches("normalised duration and offset", &got, &want);

    // Exit time 0.51 of the idle, no condition: it starts at 1.275 s, between two 60 Hz frames (the time past
    // the crossing counts), so 0.1 s later the walk weighs 0.4.
    let t = 0.51 * idle + 0.1;
    let got = machine_pose(
        &dir,
        r#"[{"from": "Idle", "to": "Walk", "has_exit_time": true, "exit_time": 0.51, "duration": 0.25}]"#,
        "[]",
        t,
    );
    let want = blend(&[
        (&clip_at(model, "Idle_Loop", t), 0.6),
        (&clip_at(model, "Walk_Loop", 0.1), 0.4),
    ]);
    assert_matches("exit time", &got, &want);

    // An interruption freezes the blend: Idle → Walk (0.5 s) from 0.5 s, interrupted at 0.7 s by Idle → Jog
    // (0.25 s, Current State, not ordered). At 0.8 s: the pose frozen at 0.7 (idle 0.7 s and walk 0.2 s at 0.4)
    // at 0.6, the jog's 0.1 s at 0.4.
    let got = machine_pose(
        &dir,
        r#"[{"from": "Idle", "to": "Walk", "has_exit_time": false, "duration": 0.5,
             "interruption_source": "current", "ordered_interruption": false,
             "conditions": [{"parameter": "go", "mode": "if"}]},
            {"from": "Idle", "to": "Jog", "has_exit_time": false, "duration": 0.25,
             "conditions": [{"parameter": "jump", "mode": "if"}]}]"#,
        r#"[{"time": 0.5, "set": "go", "value": true}, {"time": 0.7, "trigger": "jump"}]"#,
        0.8,
    );
    assert_eq!(got["state_machine"]["transition"]["frozen_source"], true);
    let frozen = blend(&[
        (&clip_at(model, "Idle_Loop", 0.7), 0.6),
        (&clip_at(model, "Walk_Loop", 0.2), 0.4),
    ]);
    let want = blend(&[(&frozen, 0.6), (&clip_at(model, "Jog_Fwd_Loop", 0.1), 0.4)]);
    assert_matches("interruption", &got, &want);
}

#[test]
fn scripts_and_machines_that_do_not_fit_are_refused() {
    let dir = common::temp_dir("cli-machine-bad");
    let q = common::quaternius();
    let preset = dir.join("machine.json");
    std::fs::write(
        &preset,
        r#"{"format": "animtune-preset", "version": 5, "state_machine": {
             "states": [{"name": "Idle", "clip": "No_Such_Clip"}], "entry": "Idle"}}"#,
    )
    .unwrap();
    let script = dir.join("script.json");
    std::fs::write(&script, r#"[{"time": 0.1, "trigger": "jump"}]"#).unwrap();
    let (q, preset, script) = (
        q.to_str().unwrap(),
        preset.to_str().unwrap(),
        script.to_str().unwrap(),
    );
    let out = common::animtune(&["pose", q, "--preset", preset, "--time", "0.5"]);
    common::assert_clean_failure(&out, &["machine.json", "No_Such_Clip"]);
    std::fs::write(
        dir.join("machine.json"),
        r#"{"format": "animtune-preset", "version": 5, "state_machine": {
             "states": [{"name": "Idle", "clip": "Idle_Loop"}], "entry": "Idle"}}"#,
    )
    .unwrap();
    let out = common::animtune(&[
        "pose", q, "--preset", preset, "--script", script, "--time", "0.5",
    ]);
    common::assert_clean_failure(&out, &["script.json", "no parameter 'jump'"]);
    std::fs::write(
        dir.join("script.json"),
        "[{\"time\": -2, \"trigger\": \"jump\"}]",
    )
    .unwrap();
    let out = common::animtune(&[
        "pose", q, "--preset", preset, "--script", script, "--time", "0.5",
    ]);
    common::assert_clean_failure(&out, &["script.json", "time -2"]);
    let out = common::animtune(&["pose", q, "--script", script, "--time", "0.5"]);
    common::assert_clean_failure(
        &out,
        &["--script", "the command line holds none", "--controller"],
    );
    // A simulation rate outside 10 to 1000 Hz, or with nothing to simulate, is refused naming the flag.
    let out = common::animtune(&[
        "pose",
        q,
        "--preset",
        preset,
        "--sim-rate",
        "5",
        "--time",
        "0.5",
    ]);
    common::assert_clean_failure(&out, &["--sim-rate 5", "from 10 to 1000 Hz"]);
    let baked = dir.join("out.animclip");
    let out = common::animtune(&[
        "bake",
        q,
        "--preset",
        preset,
        "--script",
        script,
        "--duration",
        "1",
        "--sim-rate",
        "2000",
        "-o",
        baked.to_str().unwrap(),
    ]);
    common::assert_clean_failure(&out, &["--sim-rate 2000", "from 10 to 1000 Hz"]);
    let out = common::animtune(&[
        "pose",
        q,
        "--preset",
        preset,
        "--clip",
        "Walk_Loop",
        "--sim-rate",
        "30",
    ]);
    common::assert_clean_failure(&out, &["--sim-rate", "holds none"]);
}

/// Hostile machines, each generated: no state, 33 layers, a layer of weight 2.5, an entry transition to no state,
/// a cycle offset of 1e300, a transition lasting 1e30 s, a state speed of 1e308, and 200,000 conditions. `preset validate` accepts a machine without a state (the editor saves one before its first
/// state), but `pose`, `render` and a bake refuse it by name; every other one is refused by `preset validate` and
/// by each command, naming the file and the value, with exit 1, at once.
#[test]
fn hostile_state_machines_are_refused_by_name() {
    let dir = common::temp_dir("cli-machine-hostile");
    let preset = |name: &str, machine: serde_json::Value| {
        let path = dir.join(name);
        let text = serde_json::json!({"format": "animtune-preset", "version": 5, "state_machine": machine});
        std::fs::write(&path, text.to_string()).unwrap();
        path.to_str().unwrap().to_string()
    };
    let two_states = |transitions: serde_json::Value, speed: f64| {
        serde_json::json!({
            "parameters": [{"name": "go", "type": "trigger"}],
            "states": [{"name": "A", "clip": "Idle", "speed": speed}, {"name": "B", "clip": "WalkForward"}],
            "entry": "A", "transitions": transitions})
    };
    let script = dir.join("script.json");
    std::fs::write(&script, "[]").unwrap();
    let script = script.to_str().unwrap();
    let out_file = dir.join("out.animclip");
    let out_file = out_file.to_str().unwrap();
    let png = dir.join("out.png");
    let png = png.to_str().unwrap();
    let runs = |p: &str| {
        [
            common::animtune(&["pose", "mannequin", "--preset", p, "--time", "2"]),
            common::animtune(&["render", "mannequin", "--preset", p, "-o", png]),
            common::animtune(&[
                "bake",
                "mannequin",
                "--preset",
                p,
                "--script",
                script,
                "--duration",
                "1",
                "-o",
                out_file,
            ]),
        ]
    };

    let empty = preset(
        "empty.json",
        serde_json::json!({"states": [], "entry": "A"}),
    );
    let validate = common::animtune(&["preset", "validate", &empty]);
    common::assert_success(&validate);
    for out in runs(&empty) {
        common::assert_clean_failure(&out, &["empty.json", "no state to play"]);
    }

    let long = serde_json::json!([{"from": "A", "to": "B", "model": "inertialization", "duration": 1e30,
        "fixed_duration": true, "has_exit_time": true, "exit_time": 0.1}]);
    let many: Vec<serde_json::Value> = (0..200_000)
        .map(|_| serde_json::json!({"parameter": "go", "mode": "if"}))
        .collect();
    let with = |key: &str, value: serde_json::Value| {
        let mut m = two_states(serde_json::json!([]), 1.0);
        m[key] = value;
        m
    };
    let layer = serde_json::json!({"name": "Arms", "states": [{"name": "R", "clip": "Idle"}], "entry": "R"});
    let mut heavy = layer.clone();
    heavy["weight"] = serde_json::json!(2.5);
    let mut offset = two_states(serde_json::json!([]), 1.0);
    offset["states"][0]["cycle_offset"] = serde_json::json!(1e300);
    let cases = [
        (
            "layers.json",
            with("layers", serde_json::json!(vec![layer; 33])),
            "33 layers",
        ),
        (
            "heavy.json",
            with("layers", serde_json::json!([heavy])),
            "weight 2.5",
        ),
        (
            "entry.json",
            with("entry_transitions", serde_json::json!([{"to": "Nowhere"}])),
            "no state named 'Nowhere'",
        ),
        ("offset.json", offset, "cycle offset 1e300"),
        ("long.json", two_states(long, 1.0), "duration 1e30"),
        (
            "fast.json",
            two_states(serde_json::json!([]), 1e308),
            "speed 1e308",
        ),
        (
            "many.json",
            two_states(
                serde_json::json!([{"from": "A", "to": "B", "conditions": many}]),
                1.0,
            ),
            "200000 conditions",
        ),
    ];
    for (name, machine, problem) in cases {
        let p = preset(name, machine);
        let started = std::time::Instant::now();
        common::assert_clean_failure(
            &common::animtune(&["preset", "validate", &p]),
            &[name, problem],
        );
        for out in runs(&p) {
            common::assert_clean_failure(&out, &[name, problem]);
        }
        assert!(started.elapsed().as_secs() < 20, "{name}: refused at once");
    }
    // The largest transition allowed plays without a NaN.
    let longest = serde_json::json!([{"from": "A", "to": "B", "model": "inertialization", "duration": 3600,
        "fixed_duration": true, "has_exit_time": true, "exit_time": 0.1}]);
    let p = preset("longest.json", two_states(longest, 100.0));
    let out = common::animtune(&["pose", "mannequin", "--preset", &p, "--time", "2", "--json"]);
    common::assert_success(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("NaN") && !text.contains("inf"),
        "finite pose"
    );
    let pose = common::json_of(&out);
    let joints = pose["joints"].as_array().expect("joints");
    assert!(joints.iter().all(|j| {
        j["local"]["translation"]
            .as_array()
            .is_some_and(|t| t.iter().all(|v| v.as_f64().is_some_and(f64::is_finite)))
    }));
}

/// `bake --preset P --script S --duration D`: the scripted run as one clip, within its bake tolerance of the
/// machine, and its frame at 0.8 s where `pose --script` puts every joint (model space, within 0.1 mm).
#[test]
fn a_scripted_run_bakes_to_a_clip() {
    let dir = common::temp_dir("cli-machine-bake");
    let transitions = r#"[{"from": "Idle", "to": "Walk", "has_exit_time": false, "duration": 0.25,
                           "conditions": [{"parameter": "go", "mode": "if"}]},
                          {"from": "any", "to": "Jog", "has_exit_time": false, "duration": 0.2,
                           "conditions": [{"parameter": "jump", "mode": "if"}]}]"#;
    let script = r#"[{"time": 0.4, "set": "go", "value": true}, {"time": 0.9, "trigger": "jump"}]"#;
    let posed = machine_pose(&dir, transitions, script, 0.8);
    let q = common::quaternius();
    let out = dir.join("run.animclip");
    let (preset, script) = (dir.join("machine.json"), dir.join("script.json"));
    let report = common::json_of(&common::animtune(&[
        "bake",
        q.to_str().unwrap(),
        "--preset",
        preset.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
        "--duration",
        "1.5",
        "--fps",
        "60",
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]));
    let row = &report.as_array().unwrap()[0];
    assert!(row["max_error_cm"].as_f64().unwrap() <= 0.01, "{row}");
    assert!(
        row["source"].as_str().unwrap().contains("state machine"),
        "{row}"
    );
    let baked = common::json_of(&common::animtune(&[
        "pose",
        q.to_str().unwrap(),
        "--baked",
        out.to_str().unwrap(),
        "--time",
        "0.8",
        "--json",
    ]));
    common::assert_same_positions(&posed, &baked, 1e-4);
}

/// A state's Mirror plays its clip as the clip setting Mirror makes it (the clip-settings path is checked against
/// three.js elsewhere): the same pose at a time, joint by joint.
#[test]
fn a_mirrored_state_plays_its_clip_mirrored() {
    let dir = common::temp_dir("cli-machine-mirror");
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    let machine = dir.join("machine.json");
    let layers_off = r#""layers": {"breath": {"enabled": false}, "look_at": {"enabled": false},
                                   "twist": {"enabled": false}}"#;
    std::fs::write(
        &machine,
        format!(
            r#"{{"format": "animtune-preset", "version": 5, {layers_off}, "state_machine": {{
                 "states": [{{"name": "M", "clip": "Walk_Loop", "mirror": true}}], "entry": "M"}}}}"#
        ),
    )
    .unwrap();
    let settings = dir.join("settings.json");
    std::fs::write(
        &settings,
        format!(
            r#"{{"format": "animtune-preset", "version": 5, {layers_off},
                 "clip_settings": {{"Walk_Loop": {{"mirror": true}}}}}}"#
        ),
    )
    .unwrap();
    let posed = common::json_of(&common::animtune(&[
        "pose",
        q,
        "--preset",
        machine.to_str().unwrap(),
        "--time",
        "0.3",
        "--exact",
        "--json",
    ]));
    let mirrored = common::json_of(&common::animtune(&[
        "pose",
        q,
        "--preset",
        settings.to_str().unwrap(),
        "--clip",
        "Walk_Loop",
        "--time",
        "0.3",
        "--loop",
        "--exact",
        "--json",
    ]));
    let plain = clip_at(q, "Walk_Loop", 0.3);
    let want: Vec<Quat> = rotations(&mirrored).into_iter().map(|(_, r)| r).collect();
    assert_matches("mirror", &posed, &want);
    let moved = rotations(&posed)
        .iter()
        .zip(&plain)
        .map(|((_, a), b)| angle_deg(*a, *b))
        .fold(0.0, f64::max);
    assert!(moved > 5.0, "mirrored, not the clip itself: {moved}°");
    // Unity's Mirror parameter: the bool `flip` mirrors the state while it is true, whatever `mirror` says.
    let by_parameter = dir.join("by_parameter.json");
    std::fs::write(
        &by_parameter,
        format!(
            r#"{{"format": "animtune-preset", "version": 5, {layers_off}, "state_machine": {{
                 "parameters": [{{"name": "flip", "type": "bool", "default": false}}],
                 "states": [{{"name": "M", "clip": "Walk_Loop", "mirror": true, "mirror_parameter": "flip"}}],
                 "entry": "M"}}}}"#
        ),
    )
    .unwrap();
    let script = dir.join("flip.json");
    std::fs::write(&script, r#"[{"time": 0.2, "set": "flip", "value": true}]"#).unwrap();
    let at = |time: &str| {
        common::json_of(&common::animtune(&[
            "pose",
            q,
            "--preset",
            by_parameter.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "--time",
            time,
            "--exact",
            "--json",
        ]))
    };
    assert_matches("flip off", &at("0.1"), &clip_at(q, "Walk_Loop", 0.1));
    assert_matches("flip on", &at("0.3"), &want);
}

/// A blend-space state's Mirror parameter mirrors every node while it is true: the same pose as the state with
/// Mirror on, and with it off as the state with Mirror off.
#[test]
fn a_blend_space_states_mirror_parameter_mirrors_its_nodes() {
    let dir = common::temp_dir("cli-machine-mirror-space");
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    let layers_off = r#""layers": {"breath": {"enabled": false}, "look_at": {"enabled": false},
                                   "twist": {"enabled": false}}"#;
    let preset = |name: &str, state_fields: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                r#"{{"format": "animtune-preset", "version": 5, {layers_off}, "state_machine": {{
                     "parameters": [{{"name": "flip", "type": "bool", "default": false}}],
                     "states": [{{"name": "M", {state_fields} "blend_space": {{"mode": "1d", "point": [0.4, 0],
                        "nodes": [{{"clip": "Walk_Loop", "position": [0, 0]}}, {{"clip": "Jog_Fwd_Loop", "position": [1, 0]}}]}}}}],
                     "entry": "M"}}}}"#
            ),
        )
        .unwrap();
        path
    };
    let by_parameter = preset("by_parameter.json", r#""mirror_parameter": "flip","#);
    let mirrored = preset("mirrored.json", r#""mirror": true,"#);
    let plain = preset("plain.json", "");
    let script = dir.join("flip.json");
    std::fs::write(&script, r#"[{"time": 0.2, "set": "flip", "value": true}]"#).unwrap();
    let pose = |preset: &std::path::Path, time: &str, with_script: bool| {
        let mut args = vec![
            "pose",
            q,
            "--preset",
            preset.to_str().unwrap(),
            "--time",
            time,
            "--exact",
            "--json",
        ];
        if with_script {
            args.extend(["--script", script.to_str().unwrap()]);
        }
        common::json_of(&common::animtune(&args))
    };
    let want = |p: &std::path::Path, time: &str| -> Vec<Quat> {
        rotations(&pose(p, time, false))
            .into_iter()
            .map(|(_, r)| r)
            .collect()
    };
    let differ = want(&plain, "0.3")
        .iter()
        .zip(want(&mirrored, "0.3"))
        .map(|(a, b)| angle_deg(*a, b))
        .fold(0.0, f64::max);
    assert!(
        differ > 5.0,
        "mirrored, the space differs from itself: {differ}°"
    );
    assert_matches(
        "flip off",
        &pose(&by_parameter, "0.1", true),
        &want(&plain, "0.1"),
    );
    assert_matches(
        "flip on",
        &pose(&by_parameter, "0.3", true),
        &want(&mirrored, "0.3"),
    );
}

/// `pose`'s morph weights of the first mesh for these arguments.
fn pose_morph_weights(args: &[&str]) -> Vec<f64> {
    let json = common::json_of(&common::animtune(args));
    json["morph_weights"][0]["weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Asserts that `pose MODEL --preset P [--script S] --time T --exact`, with `preset` and `script` written to
/// files, gives `morph_sampler.glb`'s morph weights as `linear` × Linear's plus (1 − `linear`) × Step's, each as
/// `pose --clip` gives it at T.
fn assert_morph_mix(tag: &str, preset: &str, script: Option<&str>, time: &str, linear: f64) {
    let model = common::asset("morph_sampler.glb");
    let model = model.to_str().unwrap();
    let dir = common::temp_dir(tag);
    let (preset_path, script_path) = (dir.join("preset.json"), dir.join("script.json"));
    std::fs::write(&preset_path, preset).unwrap();
    let mut how = vec!["--preset", preset_path.to_str().unwrap()];
    if let Some(script) = script {
        std::fs::write(&script_path, script).unwrap();
        how.extend_from_slice(&["--script", script_path.to_str().unwrap()]);
    }
    let at = |clip: &str| {
        pose_morph_weights(&[
            "pose", model, "--clip", clip, "--time", time, "--exact", "--json",
        ])
    };
    let (a, b) = (at("Linear"), at("Step"));
    let mut args = vec!["pose", model];
    args.extend_from_slice(&how);
    args.extend_from_slice(&["--time", time, "--exact", "--json"]);
    let got = pose_morph_weights(&args);
    assert_eq!(got.len(), a.len());
    assert!(
        a.iter().zip(&b).any(|(a, b)| (a - b).abs() > 0.05),
        "the clips differ there: {a:?} {b:?}"
    );
    for ((g, a), b) in got.iter().zip(&a).zip(&b) {
        let want = linear * a + (1.0 - linear) * b;
        assert!((g - want).abs() < 1e-4, "{got:?}: Linear {a}, Step {b}");
    }
}

/// Morph weights of a state's clip (`morph_sampler.glb`'s Linear and Step each key one weight) blend through a
/// crossfade as the poses do: at 0.4 s into a 1 s crossfade begun at 0, 0.6 of Linear's and 0.4 of Step's,
/// each as `pose --clip` gives it at that time.
#[test]
fn a_crossfade_blends_the_states_morph_weights_as_their_poses() {
    let preset = r#"{"format": "animtune-preset", "version": 5, "state_machine": {
        "parameters": [{"name": "go", "type": "trigger"}],
        "states": [{"name": "A", "clip": "Linear"}, {"name": "B", "clip": "Step"}],
        "entry": "A",
        "transitions": [{"from": "A", "to": "B", "has_exit_time": false, "duration": 1.0,
                         "conditions": [{"parameter": "go", "mode": "if"}]}]}}"#;
    let script = r#"[{"time": 0, "trigger": "go"}]"#;
    assert_morph_mix("machine-morph", preset, Some(script), "0.4", 0.6);
}

/// A blend space's morph weights are the weighted mean of its nodes' clips', as its pose is: a 1D space 0.4 of
/// the way from Linear to Step, each clip on its own clock, at 0.3 s gives 0.6 of Linear's weights and 0.4 of
/// Step's, each as `pose --clip` gives it at that time.
#[test]
fn a_blend_space_blends_its_nodes_morph_weights_as_their_poses() {
    let preset = r#"{"format": "animtune-preset", "version": 5, "blend": {
        "mode": "1d", "point": [0.4, 0], "sync": "independent", "root_motion": "keep",
        "nodes": [{"clip": "Linear", "position": [0, 0]}, {"clip": "Step", "position": [1, 0]}]}}"#;
    assert_morph_mix("blend-morph", preset, None, "0.3", 0.6);
}

/// Every joint's model matrix from a `pose --json` output.
fn model_matrices(pose: &serde_json::Value) -> Vec<glam::Mat4> {
    let v = |j: &serde_json::Value, key: &str| -> Vec<f32> {
        j["model"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    pose["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let (t, r, s) = (v(j, "translation"), v(j, "rotation"), v(j, "scale"));
            glam::Mat4::from_scale_rotation_translation(
                glam::Vec3::new(s[0], s[1], s[2]),
                Quat::from_xyzw(r[0], r[1], r[2], r[3]),
                glam::Vec3::new(t[0], t[1], t[2]),
            )
        })
        .collect()
}

/// The machine of `scripts/compare-outputs` (Idle → Walk → Run on the Quaternius clips: Unity crossfades,
/// inertialization, dead blending, a trigger to Idle) under its script simulates at one rate (60 Hz) whatever the
/// frame rate: a bake at 30 fps, `pose` at 60 fps and `pose` at 30 fps agree at their shared times, and `pose`
/// at 24, 30 and 60 fps between their frames, every virtual vertex within the runtime's compact tolerance (so
/// within what a bake keeps); as do two frame rates at `--sim-rate 30`. The bake's report and `pose`'s name the
/// rate. The times: the crossfade to Walk, the inertialization into Run and the dead blending back, the
/// trigger's crossfade to Idle and the last walk. (Before the machine had a rate of its own, the per-bone
/// transitions put the 30 fps bake up to 81 cm from `pose` at 60 fps, at 1.7 s.)
#[test]
fn a_machine_simulates_at_one_rate_whatever_the_frame_rate() {
    let dir = common::temp_dir("cli-machine-rate");
    let q = common::quaternius();
    let q = q.to_str().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/compare-outputs");
    let (preset, script) = (fixtures.join("machine.json"), fixtures.join("script.json"));
    let (preset, script) = (preset.to_str().unwrap(), script.to_str().unwrap());
    let baked = dir.join("run30.animclip");
    // Unquantized and compacted within a tenth of the compact tolerance, the file read back exact holds the bake's
    // frames (its report's error, which counts the runtime's packed form too, may pass that: --accept-error).
    let report = common::json_of(&common::animtune(&[
        "bake",
        q,
        "--preset",
        preset,
        "--script",
        script,
        "--duration",
        "3",
        "--fps",
        "30",
        "--no-quantize",
        "--tolerance-cm",
        "0.0008",
        "--accept-error",
        "-o",
        baked.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(report[0]["sim_rate_hz"], 60.0, "{}", report[0]);
    let pose = |time: &str, how: &[&str]| {
        let mut args = vec!["pose", q, "--time", time, "--exact", "--json"];
        args.extend_from_slice(how);
        common::json_of(&common::animtune(&args))
    };
    let machine = ["--preset", preset, "--script", script];
    let tolerance = animtune::compile::COMPACT_TOLERANCE;
    let mut worst = [0.0f32; 2];
    for time in [
        "0.4", "0.6", "1.0", "1.1", "1.2", "1.6", "1.7", "1.8", "2.0", "2.1", "2.6",
    ] {
        let at60 = pose(time, &machine);
        if time == "1.1" {
            let m = &at60["state_machine"];
            assert_eq!(m["sim_rate_hz"], 60.0, "{m}");
            assert_eq!(m["transition"]["to"], "Run", "{m}");
        }
        let mut at30 = machine.to_vec();
        at30.extend_from_slice(&["--fps", "30"]);
        let at30 = pose(time, &at30);
        let from_bake = pose(time, &["--baked", baked.to_str().unwrap()]);
        let reference = model_matrices(&at60);
        for (i, other) in [at30, from_bake].iter().enumerate() {
            let e = animtune::offline::max_vertex_error(&reference, &model_matrices(other));
            worst[i] = worst[i].max(e);
            let what = ["pose --fps 30", "the 30 fps bake"][i];
            assert!(
                e <= tolerance,
                "at {time} s, {what} is {} cm from pose --fps 60",
                e * 100.0
            );
        }
    }
    // Between frames (of 24, 30 and 60 fps): the pose is the same however many frames led there.
    for time in ["1.01", "1.15", "1.55"] {
        let at = |fps: &str| {
            let mut args = machine.to_vec();
            args.extend_from_slice(&["--fps", fps]);
            model_matrices(&pose(time, &args))
        };
        let reference = at("60");
        for fps in ["30", "24"] {
            let e = animtune::offline::max_vertex_error(&reference, &at(fps));
            worst[0] = worst[0].max(e);
            assert!(e <= tolerance, "at {time} s, --fps {fps}: {} cm", e * 100.0);
        }
    }
    // Another rate: its own ticks, whatever the frames.
    let at = |fps: &str| {
        let mut args = machine.to_vec();
        args.extend_from_slice(&["--sim-rate", "30", "--fps", fps]);
        pose("1.15", &args)
    };
    let (a, b) = (at("60"), at("24"));
    assert_eq!(a["state_machine"]["sim_rate_hz"], 30.0);
    let e = animtune::offline::max_vertex_error(&model_matrices(&a), &model_matrices(&b));
    assert!(e <= tolerance, "at 30 Hz: {} cm", e * 100.0);
    eprintln!(
        "worst: pose --fps 30 {:.6} cm, the 30 fps bake {:.6} cm",
        worst[0] * 100.0,
        worst[1] * 100.0
    );
}
