//! Laying out blend spaces from real clip sets: "New space from clips" (`analysis::suggest`: one node per gait
//! family, the plain gait leading each) on Quaternius's library and KayKit's, and Compute Positions
//! (`analysis::positions`) on clips authored in place, which it reads from their feet.

use animtune::analysis::positions::{ComputePositions, compute_positions};
use animtune::analysis::suggest::{Suggestion, space_from_clips};
use animtune::blend::{BlendMode, BlendSpace};
use animtune::import::{load_clips, load_file};

use crate::common;

/// Each placed clip's distance from the origin, in node order.
fn node_speeds(s: &Suggestion) -> Vec<(&str, f64)> {
    s.placed
        .iter()
        .map(|p| (p.clip.as_str(), p.position[0].hypot(p.position[1])))
        .collect()
}

/// No two nodes closer than `gap` (m/s): none stacked beside another.
fn assert_apart(s: &Suggestion, gap: f64) {
    let speeds = node_speeds(s);
    for (i, a) in speeds.iter().enumerate() {
        for b in &speeds[i + 1..] {
            assert!((a.1 - b.1).abs() >= gap, "{a:?} beside {b:?} in {speeds:?}");
        }
    }
}

/// Quaternius's library: the plain idle (not Crouch_Idle_Loop, which sorts first) at the origin, then the plain
/// walk, jog and sprint at their feet's speeds; the formal walk, the crouch clips and the idles with a modifier or a
/// prop are variants, left out; no node sits beside another.
#[test]
fn new_space_from_quaternius_places_the_plain_gait_of_each_family() {
    let model = load_file(&common::quaternius()).unwrap();
    let s = space_from_clips(&model.character, &model.clips).unwrap();
    println!("{:?}\nvariants {:?}", node_speeds(&s), s.variants);
    let placed: Vec<&str> = s.placed.iter().map(|p| p.clip.as_str()).collect();
    assert_eq!(
        placed,
        ["Idle_Loop", "Walk_Loop", "Jog_Fwd_Loop", "Sprint_Loop"]
    );
    assert_eq!(s.placed[0].position, [0.0, 0.0]);
    for variant in [
        "Crouch_Idle_Loop",
        "Crouch_Fwd_Loop",
        "Walk_Formal_Loop",
        "Idle_Talking_Loop",
        "Idle_Torch_Loop",
        "Pistol_Idle_Loop",
        "Sword_Idle",
    ] {
        assert!(s.variants.iter().any(|v| v == variant), "{variant}: {s:?}");
    }
    assert!(
        s.left_out.iter().any(|c| c == "A_TPose"),
        "{:?}",
        s.left_out
    );
    assert_apart(&s, 0.5);
    // Positions reach the editor rounded to mm/s.
    for p in &s.placed {
        for v in p.position {
            assert_eq!((v * 1000.0).round() / 1000.0, v, "{p:?}");
        }
    }
}

/// KayKit's knight with its two animation libraries (clips in files of their own): one idle, one walk and one run,
/// the A take of each; Idle_B, Walking_B/C and Running_B are variants, so no walk or run sits beside another.
#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn new_space_from_kaykit_places_one_take_per_gait() {
    let model = load_file(&common::extra_asset("more/kaykit/Knight.glb")).unwrap();
    let mut clips = Vec::new();
    for library in ["Rig_Medium_MovementBasic.glb", "Rig_Medium_General.glb"] {
        clips.extend(load_clips(&common::extra_asset(&format!("more/kaykit/{library}"))).unwrap());
    }
    let s = space_from_clips(&model.character, &clips).unwrap();
    println!("{:?}\nvariants {:?}", node_speeds(&s), s.variants);
    let placed: Vec<&str> = s.placed.iter().map(|p| p.clip.as_str()).collect();
    assert_eq!(placed, ["Idle_A", "Walking_A", "Running_A"]);
    assert_eq!(
        s.variants,
        ["Running_B", "Walking_B", "Walking_C", "Idle_B"]
    );
    assert!(s.placed[1..].iter().all(|p| p.measured), "{:?}", s.placed);
    assert_apart(&s, 0.5);
}

/// A 1D space over Quaternius's idle, walk, jog and sprint (authored in place; the jog's root drifts 2.5 cm/s up)
/// and Roll_RM (root motion), every node at 0.
fn quaternius_speed_space() -> BlendSpace {
    let nodes = [
        "Idle_Loop",
        "Walk_Loop",
        "Jog_Fwd_Loop",
        "Sprint_Loop",
        "Roll_RM",
    ]
    .map(|c| serde_json::json!({"clip": c, "position": [0, 0]}));
    serde_json::from_value(serde_json::json!({
        "mode": "1d", "axes": [{"name": "speed", "min": 0, "max": 1}, {"name": "", "min": -1, "max": 1}],
        "nodes": nodes
    }))
    .unwrap()
}

/// Compute Positions › Speed reads an in-place clip by its feet (the treadmill its planted feet stand on) and a
/// root-motion clip by its root: the idle at 0, the walk, jog and sprint at their walking speeds (growing, as the
/// skate meter gives them), Roll_RM at its root's speed; not every node at about 0. Positions and the axis's ends
/// come rounded to 1e-3, the axis starting at 0 (speeds are never negative).
#[test]
fn compute_positions_by_speed_reads_in_place_clips_by_their_feet() {
    use animtune::analysis::contacts::in_place_velocity;
    let model = load_file(&common::quaternius()).unwrap();
    let (c, clips) = (&model.character, &model.clips);
    let done =
        compute_positions(&quaternius_speed_space(), c, clips, ComputePositions::Speed).unwrap();
    let space = &done.space;
    println!("{space:?}\nby feet {:?}", done.by_feet);
    let at = |clip: &str| {
        space
            .nodes
            .iter()
            .find(|n| n.clip == clip)
            .unwrap()
            .position
    };
    let clip = |name: &str| clips.iter().find(|c| c.name == name).unwrap();
    assert_eq!(at("Idle_Loop"), [0.0, 0.0]);
    for name in ["Walk_Loop", "Jog_Fwd_Loop", "Sprint_Loop"] {
        let feet = f64::from(in_place_velocity(c, clip(name)).unwrap().length());
        assert!(
            (at(name)[0] - feet).abs() <= 1e-3,
            "{name}: {:?} against {feet}",
            at(name)
        );
    }
    assert!(
        0.5 < at("Walk_Loop")[0]
            && at("Walk_Loop")[0] < at("Jog_Fwd_Loop")[0]
            && at("Jog_Fwd_Loop")[0] < at("Sprint_Loop")[0],
        "{space:?}"
    );
    let roll = animtune::analysis::root_motion(c, clip("Roll_RM")).unwrap();
    assert!(roll.speed > 0.5, "{roll:?}");
    assert!(
        (at("Roll_RM")[0] - f64::from(roll.speed)).abs() <= 1e-3,
        "{space:?}"
    );
    assert_eq!(
        done.by_feet,
        ["Idle_Loop", "Walk_Loop", "Jog_Fwd_Loop", "Sprint_Loop"]
    );
    assert!(done.unread.is_empty(), "{:?}", done.unread);
    let axis = &space.axes[0];
    assert_eq!(axis.min, 0.0, "{axis:?}");
    assert!(axis.max >= at("Sprint_Loop")[0], "{axis:?}");
    let thousandths = |v: f64| format!("{v}").split('.').nth(1).map_or(0, str::len) <= 3;
    for v in space
        .nodes
        .iter()
        .flat_map(|n| n.position)
        .chain([axis.min, axis.max])
    {
        assert!(thousandths(v), "{v} in {space:?}");
    }
    assert!(space.validate().is_ok());
}

/// Velocity XZ on the same clips in a 2D space: the in-place walk and jog land forward at their feet's speeds, and
/// a space of in-place clips whose feet cannot be read (a rig without feet) is refused naming them.
#[test]
fn compute_positions_by_velocity_reads_feet_and_refuses_clips_it_cannot_read() {
    let model = load_file(&common::quaternius()).unwrap();
    let mut space = quaternius_speed_space();
    space.mode = BlendMode::FreeformDirectional;
    let done = compute_positions(
        &space,
        &model.character,
        &model.clips,
        ComputePositions::VelocityXz,
    )
    .unwrap()
    .space;
    let at = |clip: &str| done.nodes.iter().find(|n| n.clip == clip).unwrap().position;
    for name in ["Walk_Loop", "Jog_Fwd_Loop"] {
        let [right, forward] = at(name);
        assert!(
            forward > 0.5 && right.abs() < 0.1 * forward,
            "{name}: {done:?}"
        );
    }
    // RiggedSimple's two bones have no feet: its clip, authored in place, cannot be read.
    let mut simple = load_file(&common::asset("RiggedSimple.glb")).unwrap();
    simple.clips[0].name = "Bend".into();
    let name = "Bend";
    let space: BlendSpace = serde_json::from_value(serde_json::json!({
        "mode": "1d", "axes": [{"name": "speed", "min": 0, "max": 1}, {"name": "", "min": -1, "max": 1}],
        "nodes": [{"clip": name, "position": [0, 0]}, {"clip": name, "position": [1, 0]}]
    }))
    .unwrap();
    let why = compute_positions(
        &space,
        &simple.character,
        &simple.clips,
        ComputePositions::Speed,
    )
    .unwrap_err();
    println!("{why}");
    assert!(
        why.contains(&format!(
            "'{name}' is authored in place and its feet cannot be read"
        )),
        "{why}"
    );
}
