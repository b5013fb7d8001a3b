//! `bake --fix-loop`: Walk_Loop cropped so that it no longer loops, fixed, and checked from outside through
//! `pose` of the written file: its end stands where its start does; and the flag's errors.

use crate::common::{self, animtune, json_of};

#[test]
fn a_cropped_walk_baked_with_fix_loop_ends_where_it_starts() {
    let (q, out) = common::quaternius_and_output("fix-loop", "walk.animclip");
    let (q, out) = (q.as_str(), out.as_str());
    let json = json_of(&animtune(&[
        "bake",
        q,
        "--clip",
        "Walk_Loop",
        "--crop",
        "0,1",
        "--fix-loop",
        "--loop-window",
        "0.25",
        "-o",
        out,
        "--json",
    ]));
    let report = &json[0]["loop_fix"];
    assert!(
        report["seam_before_cm"].as_f64().unwrap() > 10.0,
        "{report}"
    );
    assert!(
        report["seam_after_cm"].as_f64().unwrap() <= 0.01,
        "{report}"
    );
    assert_eq!(report["window_s"], 0.25);
    let pose = |t: &str| {
        json_of(&animtune(&[
            "pose", q, "--baked", out, "--time", t, "--json",
        ]))
    };
    common::assert_same_positions(&pose("0"), &pose("1"), 2e-4);
}

#[test]
fn fix_loop_flags_are_refused_by_name() {
    let (q, out) = common::quaternius_and_output("fix-loop-flags", "x.animclip");
    let (q, out) = (q.as_str(), out.as_str());
    common::assert_clean_failure(
        &animtune(&[
            "bake",
            q,
            "--clip",
            "Walk_Loop",
            "--fix-loop",
            "--loop-window",
            "0",
            "-o",
            out,
        ]),
        &["--loop-window"],
    );
    common::assert_clean_failure(
        &animtune(&[
            "bake",
            q,
            "--clip",
            "Walk_Loop",
            "--fix-loop",
            "--foot-lock",
            "-o",
            out,
        ]),
        &["--fix-loop", "--foot-lock"],
    );
    assert!(!std::path::Path::new(out).exists());
}
