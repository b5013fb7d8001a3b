//! `bake --fix-skate`: a walk retargeted onto the mannequin (Quaternius's Walk_Loop, which slides there) cleaned
//! up, and the flags' errors. The report's figures are the skate meter's, run on the clip before and after.

use crate::common::{self, animtune, json_of};

#[test]
fn a_retargeted_walk_baked_with_fix_skate_plants_its_feet() {
    let (q, out) = common::quaternius_and_output("fix-skate", "walk.animclip");
    let (q, out) = (q.as_str(), out.as_str());
    let json = json_of(&animtune(&[
        "bake",
        "mannequin",
        "--clip-file",
        q,
        "--clip",
        "Walk_Loop",
        "--fix-skate",
        "-o",
        out,
        "--json",
    ]));
    let report = &json[0]["skate_fix"];
    let before = report["before"]["planted_mean_cm_s"].as_f64().unwrap();
    let after = report["after"]["planted_mean_cm_s"].as_f64().unwrap();
    assert!(before > 10.0, "{report}");
    assert!(after <= 1.0, "{report}");
    assert_eq!(report["stretch_pct"], 0.0);
    assert!(report["plants"].as_u64().unwrap() >= 2, "{report}");
}

#[test]
fn fix_skate_flags_are_refused_by_name() {
    let dir = common::temp_dir("fix-skate-flags");
    let out = dir.join("x.animclip");
    let out = out.to_str().unwrap();
    let bake = |extra: &[&str]| {
        let mut args = vec![
            "bake",
            "mannequin",
            "--clip",
            "WalkForward",
            "--fix-skate",
            "-o",
            out,
        ];
        args.extend_from_slice(extra);
        animtune(&args)
    };
    common::assert_clean_failure(&bake(&["--max-stretch", "9"]), &["--max-stretch", "5"]);
    common::assert_clean_failure(&bake(&["--plant-blend=-1"]), &["--plant-blend"]);
    common::assert_clean_failure(&bake(&["--springs"]), &["--fix-skate", "--springs"]);
    // Fox maps no humanoid legs.
    let fox = common::asset("Fox.glb");
    common::assert_clean_failure(
        &animtune(&[
            "bake",
            fox.to_str().unwrap(),
            "--clip",
            "0",
            "--fix-skate",
            "-o",
            out,
        ]),
        &["legs"],
    );
    assert!(!std::path::Path::new(out).exists());
}

/// An in-place walk given its feet's travel (`--extract-root xz --root-from feet`), retargeted onto the
/// mannequin and cleaned up: its planted feet stand still in the world (the meter on root motion).
#[test]
fn an_in_place_walk_given_its_feet_travel_then_cleaned_up_stands_on_its_feet() {
    let (q, out) = common::quaternius_and_output("synthesized-travel", "walk.animclip");
    let (q, out) = (q.as_str(), out.as_str());
    let json = json_of(&animtune(&[
        "bake",
        "mannequin",
        "--clip-file",
        q,
        "--clip",
        "Walk_Loop",
        "--extract-root",
        "xz",
        "--root-from",
        "feet",
        "--fix-skate",
        "-o",
        out,
        "--json",
    ]));
    let root = &json[0]["root_pass"];
    assert_eq!(root["pass"], "synthesize", "{root}");
    assert!(
        root["root_travel_after"][2].as_f64().unwrap() > 1.0,
        "{root}"
    );
    let skate = &json[0]["skate_fix"];
    assert!(
        skate["after"]["planted_mean_cm_s"].as_f64().unwrap() <= 2.0,
        "{skate}"
    );
}
