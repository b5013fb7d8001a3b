//! Retargeting with IK goals (`--ik-goals`): a walk whose planted feet stand still in its source's world
//! (Quaternius's in-place Walk_Loop given its feet's travel and cleaned up, on Quaternius's own rig) baked onto two
//! characters of other proportions, with and without goals, each measured by `skate` on the written file; and the
//! flags' errors.

use crate::common::{self, animtune, json_of};

/// The skate meter's mean planted slide (cm/s) and where it measured it, of the one clip in `file`.
fn planted_cm_s(file: &str) -> (f64, String) {
    let json = json_of(&animtune(&["skate", file, "--json"]));
    let clip = &json["clips"][0];
    (
        clip["planted_speed_cm_s"]["mean"].as_f64().unwrap(),
        clip["ground"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn a_planted_walk_retargeted_with_foot_goals_keeps_its_feet_planted() {
    let (q, walk) = common::quaternius_and_output("ik-goals", "walk.animclip");
    let dir = std::path::Path::new(&walk).parent().unwrap().to_path_buf();
    common::assert_success(&animtune(&[
        "bake",
        &q,
        "--clip",
        "Walk_Loop",
        "--extract-root",
        "xz",
        "--root-from",
        "feet",
        "--fix-skate",
        "-o",
        &walk,
    ]));
    // The walk baked to a `.glb` on `model` (with `extra` flags), and the bake's report.
    let bake_walk = |model: &str, out: &str, extra: &[&str]| {
        let mut args = vec![
            "bake",
            model,
            "--clip-file",
            &walk,
            "--clip",
            "Walk_Loop",
            "--format",
            "gltf",
            "--json",
            "-o",
            out,
        ];
        args.extend_from_slice(extra);
        json_of(&animtune(&args))
    };
    let source = dir.join("source.glb").to_string_lossy().into_owned();
    bake_walk(&q, &source, &[]);
    let (source_cm_s, ground) = planted_cm_s(&source);
    assert!(source_cm_s <= 2.0, "the source itself: {source_cm_s} cm/s");
    assert_eq!(ground, "root_motion");
    let cesium = common::asset("CesiumMan.glb")
        .to_string_lossy()
        .into_owned();
    for target in ["mannequin", cesium.as_str()] {
        let bake = |name: &str, goals: &[&str]| {
            let out = dir
                .join(format!("{}-{name}.glb", target.len()))
                .to_string_lossy()
                .into_owned();
            let json = bake_walk(target, &out, goals);
            (out, json)
        };
        let (fk, _) = bake("fk", &[]);
        let (ik, report) = bake("ik", &["--ik-goals", "feet"]);
        let (fk_cm_s, fk_ground) = planted_cm_s(&fk);
        let (ik_cm_s, ik_ground) = planted_cm_s(&ik);
        // The root's travel reaches a character without a root joint through its hips.
        assert_eq!(fk_ground, "root_motion", "{target}");
        assert_eq!(ik_ground, "root_motion", "{target}");
        assert!(ik_cm_s <= 2.0, "{target}: {ik_cm_s} cm/s with goals");
        assert!(
            fk_cm_s > 2.0 * ik_cm_s.max(1.0),
            "{target}: plain FK {fk_cm_s} cm/s, goals {ik_cm_s} cm/s"
        );
        let goals = &report[0]["ik_goals"];
        assert_eq!(goals["limbs"].as_array().unwrap().len(), 2, "{goals}");
        assert!(
            !goals["limbs"][0]["plants"].as_array().unwrap().is_empty(),
            "{goals}"
        );
    }
}

#[test]
fn ik_goal_flags_are_refused_by_name() {
    let dir = common::temp_dir("ik-goal-flags");
    let out = dir.join("x.animclip").to_string_lossy().into_owned();
    let bake = |extra: &[&str]| {
        let mut args = vec!["bake", "mannequin", "--clip", "0", "-o", &out];
        args.extend_from_slice(extra);
        animtune(&args)
    };
    common::assert_clean_failure(&bake(&["--ik-goals", "toes"]), &["--ik-goals", "'toes'"]);
    common::assert_clean_failure(
        &bake(&["--ik-goals", "feet", "--blend-to-source", "2"]),
        &["--blend-to-source"],
    );
    common::assert_clean_failure(
        &bake(&["--ik-goals", "feet", "--plant-speed=-1"]),
        &["--plant-speed"],
    );
    // A goal flag without --ik-goals is a usage error (clap's).
    let alone = bake(&["--plant-speed", "10"]);
    assert!(!alone.status.success());
    assert!(String::from_utf8_lossy(&alone.stderr).contains("--ik-goals"));
    assert!(!std::path::Path::new(&out).exists());
}
