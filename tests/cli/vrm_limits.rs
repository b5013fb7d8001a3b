//! Hostile VRM inputs the fuzzers found, each made from a real VRM by editing its glTF JSON: spring bones and
//! expressions past their bounds are refused naming the file and the count, repeated spring roots are one root,
//! and `--sway` refuses values outside its range. None may panic, run long or take memory without bound.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{self, animtune, assert_clean_failure, edit_glb, json_of, temp_dir};

/// A copy of `asset` with its JSON edited, written as `name` into `dir`.
fn edited(asset: &str, dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let out = dir.join(name);
    edit_glb(&common::asset(asset), &out, edit);
    out
}

/// The `pose --springs --json` joints of the spring named `spring`.
fn spring_joints<'a>(pose: &'a Value, spring: &str) -> Vec<&'a Value> {
    pose["springs"]["joints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["spring"] == spring)
        .collect()
}

/// A VRM 0.x bone group listing one bone 20 000 times has that bone as one chain root (its two nodes, once);
/// bone groups that together make more spring joints than a model may have are refused naming the file and the
/// limit.
#[test]
fn vrm0_spring_roots_are_deduplicated_and_spring_joints_bounded() {
    let dir = temp_dir("vrm-limits-bones");
    let repeated = edited("Godette_vrm_v4.vrm", &dir, "repeated.vrm", |j| {
        j["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["bones"] =
            json!(vec![22; 20_000]);
    });
    let pose = json_of(&animtune(&[
        "pose",
        repeated.to_str().unwrap(),
        "--springs",
        "--time",
        "0",
        "--json",
    ]));
    let joints = spring_joints(&pose, "group 0");
    assert_eq!(joints.len(), 2, "{joints:?}");
    assert_ne!(joints[0]["joint"], joints[1]["joint"]);

    // 200 groups on the root: 200 × 68 joints.
    let many = edited("Godette_vrm_v4.vrm", &dir, "many_groups.vrm", |j| {
        let groups = &mut j["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"];
        let mut group = groups[0].clone();
        group["bones"] = json!([0]);
        *groups = json!(vec![group; 200]);
    });
    let limit = animtune::import::gltf::MAX_SPRING_JOINTS.to_string();
    assert_clean_failure(
        &animtune(&["pose", many.to_str().unwrap(), "--time", "1"]),
        &[
            "many_groups.vrm",
            "secondaryAnimation",
            "spring joints",
            &limit,
        ],
    );
}

/// A VRM 1.0 spring of 20 001 joints is refused naming the file, the count and the limit.
#[test]
fn vrm1_spring_joints_are_bounded() {
    let dir = temp_dir("vrm-limits-springs");
    let long = edited("vrm/secondary_test.vrm", &dir, "long_spring.vrm", |j| {
        let springs = &mut j["extensions"]["VRMC_springBone"]["springs"];
        springs[0]["joints"] = (0..20_001).map(|i| json!({"node": 20 + i % 4})).collect();
        springs[1]["joints"] = json!([]);
    });
    let limit = animtune::import::gltf::MAX_SPRING_JOINTS.to_string();
    assert_clean_failure(
        &animtune(&["pose", long.to_str().unwrap(), "--time", "1"]),
        &[
            "long_spring.vrm",
            "VRMC_springBone",
            "20000 spring joints",
            &limit,
        ],
    );
}

/// VRM 0.x and 1.0 expressions past the bounds (how many, and binds per expression) are refused naming the file,
/// the count and the limit; at the bound, every expression is read.
#[test]
fn expressions_and_their_binds_are_bounded() {
    use animtune::import::gltf::{MAX_EXPRESSION_BINDS, MAX_EXPRESSIONS};
    let dir = temp_dir("vrm-limits-expressions");
    let bind = json!({"mesh": 0, "index": 5, "weight": 50});
    let groups = |count: usize, binds: usize| -> Value {
        (0..count)
            .map(|i| json!({"name": format!("x{i}"), "binds": vec![bind.clone(); binds]}))
            .collect()
    };
    let set_groups = |name: &str, value: Value| {
        edited("Godette_vrm_v4.vrm", &dir, name, |j| {
            j["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"] = value;
        })
    };
    let at_bound = set_groups("at_bound.vrm", groups(MAX_EXPRESSIONS, 1));
    let pose = json_of(&animtune(&[
        "pose",
        at_bound.to_str().unwrap(),
        "--time",
        "0",
        "--json",
    ]));
    assert_eq!(
        pose["expressions"].as_object().unwrap().len(),
        MAX_EXPRESSIONS
    );

    let too_many = set_groups("many_groups.vrm", groups(MAX_EXPRESSIONS + 1, 1));
    assert_clean_failure(
        &animtune(&["pose", too_many.to_str().unwrap(), "--time", "0"]),
        &[
            "many_groups.vrm",
            "blendShapeGroups",
            &format!("{} expressions", MAX_EXPRESSIONS + 1),
            &format!("the {MAX_EXPRESSIONS} "),
        ],
    );

    let binds_over = [
        format!("{} morph-target binds", MAX_EXPRESSION_BINDS + 1),
        format!("the {MAX_EXPRESSION_BINDS} "),
    ];
    let many_binds = set_groups("many_binds.vrm", groups(1, MAX_EXPRESSION_BINDS + 1));
    assert_clean_failure(
        &animtune(&["pose", many_binds.to_str().unwrap(), "--time", "0"]),
        &["many_binds.vrm", "'x0'", &binds_over[0], &binds_over[1]],
    );

    // VRM 1.0: presets and custom expressions count together.
    let custom: serde_json::Map<String, Value> = (0..=MAX_EXPRESSIONS)
        .map(|i| (format!("c{i}"), json!({"morphTargetBinds": []})))
        .collect();
    let vrm1 = edited("vrm/secondary_test.vrm", &dir, "many_custom.vrm", |j| {
        j["extensions"]["VRMC_vrm"]["expressions"]["custom"] = Value::Object(custom);
    });
    assert_clean_failure(
        &animtune(&["pose", vrm1.to_str().unwrap(), "--time", "0"]),
        &[
            "many_custom.vrm",
            "VRMC_vrm",
            &format!("expressions, more than the {MAX_EXPRESSIONS} "),
        ],
    );

    let vrm1_binds = edited("vrm/secondary_test.vrm", &dir, "many_binds1.vrm", |j| {
        j["extensions"]["VRMC_vrm"]["expressions"]["custom"] = json!({
            "wide": {"morphTargetBinds": vec![json!({"node": 0, "index": 0}); MAX_EXPRESSION_BINDS + 1]}
        });
    });
    assert_clean_failure(
        &animtune(&["pose", vrm1_binds.to_str().unwrap(), "--time", "0"]),
        &["many_binds1.vrm", "'wide'", &binds_over[0], &binds_over[1]],
    );
}

/// `--sway` refuses an offset past ±10 m or a frequency outside 0 to 100 Hz by the flag's name (1e38 m used to
/// turn the spring joints into NaN); a sway inside the range runs.
#[test]
fn sway_outside_its_range_is_refused_by_name() {
    let godette = common::asset("Godette_vrm_v4.vrm");
    let godette = godette.to_str().unwrap();
    let pose = |sway: &str| {
        animtune(&[
            "pose",
            godette,
            "--springs",
            "--sway",
            sway,
            "--time",
            "0.5",
        ])
    };
    for (sway, range) in [
        ("1e38,0,0,1", "metres, each from -10 to 10"),
        ("0,-11,0,1", "metres, each from -10 to 10"),
        ("0,0,0.1,1e30", "HZ is a frequency from 0 to 100"),
        ("0.1,0,0,-1", "HZ is a frequency from 0 to 100"),
    ] {
        assert_clean_failure(&pose(sway), &["--sway", sway, range]);
    }
    common::assert_success(&pose("0.3,-0.1,0.2,1.5"));
}
