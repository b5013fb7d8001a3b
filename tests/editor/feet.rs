//! Feet on the ground in the editor, as a new user meets them (egui_kittest): the contacts under the ruler and
//! the skate figure of what plays, foot lock turned on in the Layers tab and the skate dropping, and the skate map
//! painted in the Blend tab in the background, measured again when the space changes.

use std::time::{Duration, Instant};

use animtune::app::AnimtuneApp;
use animtune::app::command::{BlendEdit, Command};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::kittest::{harness, harness_sized};

/// Runs frames until the background measurements are done (at most a minute).
fn settle(h: &mut Harness<'static, AnimtuneApp>) {
    let start = Instant::now();
    h.run_steps(2);
    while h.state().editor().feet().busy() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the feet analysis did not finish"
        );
        std::thread::sleep(Duration::from_millis(20));
        h.run_steps(1);
    }
    h.run_steps(2);
}

/// The mannequin's generated walk slides its planted feet (three quarters of its contact frames skate); the
/// strip under the ruler shows its contacts and the figure, and turning on foot lock in the Layers tab brings
/// the skate to nothing.
#[test]
fn contacts_and_the_skate_figure_show_and_foot_lock_drops_the_skate() {
    let mut h = harness();
    h.run_steps(2);
    let walk = crate::ui::clip_index(&h, "WalkForward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    settle(&mut h);
    let (free, current) = h.state().editor().feet().report().expect("a report");
    assert!(current);
    let free = free.as_ref().expect("the walk is measured").clone();
    assert!(free.skate_ratio > 0.5, "{free:?}");
    assert!(free.feet.iter().all(|f| !f.contacts.is_empty()), "{free:?}");
    h.get_by_label_contains("skate 7");

    h.get_by_label("Layers").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::CheckBox, "Foot lock").click();
    settle(&mut h);
    let e = h.state().editor();
    assert!(e.tuning().layers.foot_lock.enabled);
    let (locked, current) = e.feet().report().expect("a report");
    assert!(current);
    let locked = locked.as_ref().expect("measured with foot lock");
    assert!(
        locked.skate_ratio < 0.05
            && locked.planted_speed_cm_s.mean < free.planted_speed_cm_s.mean / 4.0,
        "with foot lock {locked:?}, without {free:?}"
    );
    assert!(
        e.eval().layer_stage().foot_lock().feet.len() == 2,
        "{:?}",
        e.eval().layer_stage().foot_lock()
    );
    h.get_by_label_contains("skate 0 %");
}

/// The Blend tab's "skate" map is measured in the background with a progress bar, painted when done, and
/// measured again when a node moves. (A tall window, so that the Map row shows without scrolling.)
#[test]
fn the_skate_map_is_measured_in_the_background_and_again_when_the_space_changes() {
    let mut h = harness_sized(1280.0, 1300.0);
    h.run_steps(2);
    h.get_by_label("skate").click();
    h.run_steps(2);
    assert!(h.state().editor().feet().map_progress().is_some());
    settle(&mut h);
    let first = match h.state().editor().feet().skate_map() {
        Some((Ok(map), true)) => map.clone(),
        other => panic!("{other:?}"),
    };
    let side = animtune::app::feet::MAP_SIZE;
    assert_eq!(first.planted_cm_s.len(), side * side);
    let (lo, hi) = first
        .planted_cm_s
        .iter()
        .fold((f32::INFINITY, 0.0f32), |(a, b), &v| (a.min(v), b.max(v)));
    assert!(hi > lo + 10.0, "{lo} to {hi}");
    h.get_by_label_contains("planted slide");

    let node = h.state().editor().tuning().blend.nodes[1].position;
    h.state_mut().send(Command::EditBlend(BlendEdit::MoveNode(
        1,
        [node[0] + 0.5, node[1]],
    )));
    h.run_steps(2);
    assert!(h.state().editor().feet().busy());
    settle(&mut h);
    let second = match h.state().editor().feet().skate_map() {
        Some((Ok(map), true)) => map.clone(),
        other => panic!("{other:?}"),
    };
    assert_ne!(first.planted_cm_s, second.planted_cm_s);
}

/// Driving: the Drive button, then W held walks the point forward smoothly (no jump to the end in the first
/// frame, then at the axis's end), the character travels forward in the world on the blend's root motion with the skate
/// meter following the point, and releasing W brings the point back to rest.
#[test]
fn w_drives_the_point_forward_and_the_character_walks_on_its_root_motion() {
    let mut h = harness_sized(1280.0, 1000.0);
    h.run_steps(2);
    h.get_by_label("Drive").click();
    h.run_steps(2);
    assert!(h.state().editor().session().driving);
    let start = h.state().editor().session().character_offset;
    h.key_down(egui::Key::W);
    let mut ys = Vec::new();
    for _ in 0..40 {
        h.run_steps(1);
        std::thread::sleep(Duration::from_millis(15));
        ys.push(h.state().editor().tuning().blend.point[1]);
    }
    let e = h.state().editor();
    assert_eq!(e.session().stick, [0.0, 1.0]);
    assert!(ys[0] < 2.0, "the point jumped: {ys:?}");
    assert!(ys.windows(2).all(|w| w[1] >= w[0] - 1e-9), "{ys:?}");
    assert!(ys[39] > 3.0, "{ys:?}");
    let travelled = e.session().character_offset - start;
    assert!(
        travelled.z > 0.05 && travelled.x.abs() < travelled.z,
        "{travelled:?}"
    );
    h.key_up(egui::Key::W);
    for _ in 0..80 {
        h.run_steps(1);
        std::thread::sleep(Duration::from_millis(15));
    }
    let point = h.state().editor().tuning().blend.point;
    assert!(point[1] < ys[39] / 2.0, "{point:?}");
    settle(&mut h);
    match h.state().editor().feet().report() {
        Some((Ok(r), true)) => assert!(r.contact_frames > 0, "{r:?}"),
        other => panic!("{other:?}"),
    }
}

/// Foot-phase sync, chosen in the Blend tab, drops the skate of a blend whose clips' feet disagree: Quaternius's
/// walk and a take of it whose loop starts a third of a cycle later (Split take, then its Cycle Offset), half and
/// half. On normalised time the two put their feet down at different moments and the planted feet slide; on
/// foot-down markers they step together (the walk alone slides about 25 cm/s). Undo goes back to normalised time.
#[test]
fn foot_phase_sync_is_chosen_in_the_blend_tab_and_measured() {
    let mut h = harness_sized(1280.0, 1300.0);
    h.run_steps(2);
    let rig = crate::common::asset("quaternius_ual/AnimationLibrary_Godot_Standard.gltf");
    h.state_mut().send(Command::Open(rig));
    h.run_steps(3);
    let walk = crate::ui::clip_index(&h, "Walk_Loop");
    h.state_mut().send(Command::SplitTake(walk));
    h.run_steps(2);
    let late = "Walk_Loop 2";
    assert!(
        h.state()
            .editor()
            .doc()
            .clips
            .iter()
            .any(|c| c.name == late)
    );
    let settings = animtune::core::ClipSettings {
        cycle_offset: 1.0 / 3.0,
        ..Default::default()
    };
    h.state_mut().send(Command::SetClipSettings {
        clip: late.into(),
        settings,
    });
    let space: animtune::blend::BlendSpace = serde_json::from_value(serde_json::json!({
        "mode": "1d", "point": [0.5, 0.0],
        "axes": [{"name": "blend", "min": 0, "max": 1}, {"name": "", "min": -1, "max": 1}],
        "nodes": [{"clip": "Walk_Loop", "position": [0, 0]}, {"clip": late, "position": [1, 0]}]
    }))
    .unwrap();
    h.state_mut()
        .send(Command::EditBlend(BlendEdit::Replace(Box::new(space))));
    h.state_mut().send(Command::PlayBlend);
    settle(&mut h);
    let measured = |h: &Harness<'static, AnimtuneApp>| match h.state().editor().feet().report() {
        Some((Ok(r), true)) => r.clone(),
        other => panic!("{other:?}"),
    };
    let normalized = measured(&h);
    h.get_by_label("Blend").click();
    h.run_steps(2);
    h.get_by_label("foot phase").click();
    h.run_steps(2);
    assert_eq!(
        h.state().editor().tuning().blend.sync,
        animtune::blend::TimeSync::Markers
    );
    settle(&mut h);
    let e = h.state().editor();
    assert!(e.blending());
    let synced = measured(&h);
    assert!(synced.contact_frames > 0, "{synced:?}");
    // Both on the walk's own treadmill: in step, the planted feet slide markedly slower and skate far less.
    assert!(
        synced.planted_speed_cm_s.mean < normalized.planted_speed_cm_s.mean / 1.5
            && synced.skate_ratio < normalized.skate_ratio / 3.0,
        "markers {synced:?} against normalised {normalized:?}"
    );
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert_eq!(
        h.state().editor().tuning().blend.sync,
        animtune::blend::TimeSync::Normalized
    );
}

/// The skate map's status (its progress, then its legend) takes one row, so the rows under it stay where they
/// are while it is measured; the whole legend shows on hover.
#[test]
fn the_skate_map_status_is_one_row() {
    let (width, height) = (1280.0, 1300.0);
    let mut h = harness_sized(width, height);
    h.run_steps(2);
    h.get_by_label("skate").click();
    h.run_steps(2);
    let row = h.ctx.global_style().spacing.interact_size.y;
    assert!(
        h.state().editor().feet().map_progress().is_some(),
        "measuring"
    );
    let measuring = h
        .get_by_role(egui::accesskit::Role::ProgressIndicator)
        .rect();
    settle(&mut h);
    h.run_steps(2);
    let legend = h.get_by_label_contains("planted slide").rect();
    assert!(legend.height() <= row + 1.0, "one row: {legend:?}");
    assert_eq!(
        legend.top(),
        measuring.top(),
        "the legend takes the progress bar's place"
    );
    assert!(legend.right() <= width, "inside the window: {legend:?}");
}

/// The skate figure's context menu fixes the foot skate of the clip playing (one undo step): the new clip plays
/// at once and measures lower.
#[test]
fn the_skate_figure_s_menu_makes_a_skate_fixed_clip_that_measures_lower() {
    let mut h = harness();
    h.run_steps(2);
    let walk = crate::ui::clip_index(&h, "WalkForward");
    h.state_mut().send(Command::PlayClip(Some(walk)));
    settle(&mut h);
    let slide = |h: &Harness<'static, AnimtuneApp>| {
        let (report, current) = h.state().editor().feet().report().expect("a report");
        assert!(current);
        report.as_ref().expect("measured").planted_speed_cm_s.mean
    };
    let before = slide(&h);
    h.get_by_label_contains("skate 7").click_secondary();
    h.run_steps(2);
    h.get_by_label(animtune::app::panels::timeline::FIX_SKATE_MENU)
        .click();
    h.run_steps(3);
    let fixed = crate::ui::clip_index(&h, "WalkForward (skate fixed)");
    assert_eq!(
        h.state().editor().clip(),
        Some(fixed),
        "the fixed clip plays"
    );
    settle(&mut h);
    let after = slide(&h);
    assert!(
        after < before / 10.0,
        "planted slide {before} → {after} cm/s"
    );
    crate::ui::undo_removes(&mut h, "WalkForward (skate fixed)");
    assert_eq!(
        h.state().editor().clip(),
        Some(walk),
        "the clip it was made from plays again"
    );
}
