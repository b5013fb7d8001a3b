//! Foot contacts and the skate meter (`analysis::contacts`) on committed clips, against figures worked out
//! independently of animtune's evaluation: an idle whose feet stand still, and the same idle with its hips swayed
//! sideways, whose feet then slide exactly as the hips move (every leg joint keeps its local pose), so their slide
//! is the sway's derivative.

use animtune::analysis::contacts::{ContactSettings, Ground, clip_skate};
use animtune::core::{Clip, Interpolation, Keys};
use animtune::import::load_file;
use glam::Vec3;

use crate::common::quaternius;

fn idle() -> (animtune::import::ImportedModel, Clip) {
    let model = load_file(&quaternius()).unwrap();
    let clip = model
        .clips
        .iter()
        .find(|c| c.name == "Idle_Loop")
        .unwrap()
        .clone();
    (model, clip)
}

/// The idle with its hips moved `amplitude` metres along x as sin(2π t / period) on top of their keys.
fn swayed(clip: &Clip, amplitude: f32, period: f32) -> Clip {
    let mut out = clip.clone();
    let hips = out
        .tracks
        .iter_mut()
        .find(|t| t.target.name == "DEF-hips")
        .expect("the idle keys its hips");
    let times: Vec<f32> = (0..=480)
        .map(|k| clip.duration * k as f32 / 480.0)
        .collect();
    let base = hips.translation.clone();
    let rest = Vec3::from(hips.target.rest.translation);
    let values: Vec<Vec3> = times
        .iter()
        .map(|&t| {
            let at = base.as_ref().map_or(rest, |k| k.sample(t));
            at + Vec3::X * amplitude * (std::f32::consts::TAU * t / period).sin()
        })
        .collect();
    hips.translation = Some(Keys::new(times, values, Interpolation::Linear).unwrap());
    out
}

#[test]
fn an_idle_whose_feet_stand_still_barely_skates() {
    let (model, clip) = idle();
    let r = clip_skate(
        &model.character,
        &clip,
        60.0,
        &ContactSettings::default(),
        None,
    )
    .unwrap();
    assert_eq!(r.skate_ratio, 0.0);
    assert!(r.planted_speed_cm_s.mean < 0.5, "{r:?}");
    assert!(r.feet.iter().all(|f| !f.contacts.is_empty()), "{r:?}");
}

/// Swayed by A sin(ωt) over whole cycles, a standing foot slides at A·ω·|cos ωt|: its mean over the clip is
/// A·ω·2/π, and the share of time above 0.5 m/s is (2/π)·acos(0.5 / (A·ω)). The meter agrees within 10 % and 0.1.
#[test]
fn a_swayed_idle_slides_as_the_sway_moves_the_hips() {
    let (model, clip) = idle();
    let settings = ContactSettings {
        speed_m_s: 2.0,
        ..ContactSettings::default()
    };
    for (amplitude, cycles) in [(0.05, 1.0), (0.08, 4.0)] {
        let period = clip.duration / cycles;
        let omega = std::f32::consts::TAU / period;
        let peak = amplitude * omega;
        let sway = swayed(&clip, amplitude, period);
        let r = clip_skate(&model.character, &sway, 60.0, &settings, None).unwrap();
        let Ground::Treadmill(ground) = r.ground else {
            panic!("{:?}", r.ground)
        };
        assert!(Vec3::from_array(ground).length() < 0.02, "{ground:?}");
        let mean = 100.0 * peak * 2.0 / std::f32::consts::PI;
        assert!(
            (r.planted_speed_cm_s.mean - mean).abs() <= 0.1 * mean,
            "A {amplitude}: {} cm/s against {mean}",
            r.planted_speed_cm_s.mean
        );
        let ratio = if peak > 0.5 {
            2.0 / std::f32::consts::PI * (0.5 / peak).acos()
        } else {
            0.0
        };
        assert!(
            (r.skate_ratio - ratio).abs() <= 0.1,
            "A {amplitude}: {} against {ratio}",
            r.skate_ratio
        );
    }
}

/// With foot lock on, the swayed idle's planted feet hold still: under 1 cm/s on average and at most, while
/// both feet stay in contact throughout, the legs following the swaying hips.
#[test]
fn foot_lock_holds_the_swayed_idles_feet_within_1_cm_s() {
    let (model, clip) = idle();
    let settings = ContactSettings {
        speed_m_s: 2.0,
        ..ContactSettings::default()
    };
    let lock = animtune::layers::FootLockParams::default();
    for (amplitude, cycles) in [(0.05, 1.0), (0.08, 4.0)] {
        let sway = swayed(&clip, amplitude, clip.duration / cycles);
        let free = clip_skate(&model.character, &sway, 60.0, &settings, None).unwrap();
        let held = clip_skate(&model.character, &sway, 60.0, &settings, Some(&lock)).unwrap();
        assert!(free.planted_speed_cm_s.mean > 5.0, "{free:?}");
        assert!(
            held.planted_speed_cm_s.max <= 1.0,
            "A {amplitude}: {:?}",
            held.planted_speed_cm_s
        );
        assert!(
            held.contact_frames + 4 >= free.contact_frames,
            "A {amplitude}: {} contact frames held, {} free",
            held.contact_frames,
            free.contact_frames
        );
    }
}

/// `clip` played from `shift` of its cycle on: every track resampled at 240 keys a cycle, so that its feet come
/// down that much later in the cycle.
fn time_shifted(clip: &Clip, shift: f32, name: &str) -> Clip {
    let mut out = clip.clone();
    out.name = name.to_string();
    let d = clip.duration;
    let times: Vec<f32> = (0..=240).map(|k| d * k as f32 / 240.0).collect();
    let at = |t: f32| (t + shift * d).rem_euclid(d);
    for track in &mut out.tracks {
        if let Some(keys) = &track.translation {
            let v = times.iter().map(|&t| keys.sample(at(t))).collect();
            track.translation = Some(Keys::new(times.clone(), v, Interpolation::Linear).unwrap());
        }
        if let Some(keys) = &track.rotation {
            let v = times.iter().map(|&t| keys.sample(at(t))).collect();
            track.rotation = Some(Keys::new(times.clone(), v, Interpolation::Linear).unwrap());
        }
        if let Some(keys) = &track.scale {
            let v = times.iter().map(|&t| keys.sample(at(t))).collect();
            track.scale = Some(Keys::new(times.clone(), v, Interpolation::Linear).unwrap());
        }
    }
    out
}

/// Foot-phase sync: Quaternius's walk blended half and half with itself started a third of a cycle later
/// skates on normalized time (the feet of the two disagree), while synced on foot-down markers the two clips
/// play in step and the blend skates as little as the walk alone.
#[test]
fn marker_sync_aligns_a_late_footed_walk_with_an_early_one() {
    use animtune::analysis::contacts::blend_skate;
    use animtune::analysis::foot_markers::clip_markers;
    use animtune::blend::{BlendSpace, TimeSync};
    let model = load_file(&quaternius()).unwrap();
    let walk = model
        .clips
        .iter()
        .find(|c| c.name == "Walk_Loop")
        .unwrap()
        .clone();
    let late = time_shifted(&walk, -1.0 / 3.0, "Walk_Late");
    let (early_marks, late_marks) = (
        clip_markers(&model.character, &walk).unwrap(),
        clip_markers(&model.character, &late).unwrap(),
    );
    assert!(early_marks.iter().any(|m| m.left) && early_marks.iter().any(|m| !m.left));
    let offset = late_marks[0].time - early_marks[0].time;
    assert!(offset.abs() > 0.1, "{early_marks:?} {late_marks:?}");
    let clips = vec![walk.clone(), late];
    let settings = ContactSettings::default();
    let alone = clip_skate(&model.character, &walk, 60.0, &settings, None).unwrap();
    let mut space: BlendSpace = serde_json::from_str(
        r#"{"mode": "1d", "axes": [{"name": "blend", "min": 0, "max": 1}, {"name": "", "min": -1, "max": 1}],
            "nodes": [{"clip": "Walk_Loop", "position": [0, 0]}, {"clip": "Walk_Late", "position": [1, 0]}]}"#,
    )
    .unwrap();
    let halfway = |space: &BlendSpace| {
        blend_skate(
            &model.character,
            &clips,
            space,
            [0.5, 0.0],
            60.0,
            &settings,
            None,
        )
        .unwrap()
    };
    let normalized = halfway(&space);
    space.sync = TimeSync::Markers;
    let synced = halfway(&space);
    println!(
        "walk alone {:?}; normalized {:?} skate {}; markers {:?} skate {}",
        alone.planted_speed_cm_s,
        normalized.planted_speed_cm_s,
        normalized.skate_ratio,
        synced.planted_speed_cm_s,
        synced.skate_ratio
    );
    assert!(
        synced.planted_speed_cm_s.mean <= alone.planted_speed_cm_s.mean * 1.5 + 1.0,
        "{synced:?} against the walk's {alone:?}"
    );
    // Both stand on the walk's own treadmill (the two clips are one walk): out of step, the planted feet slide
    // half as fast again and skate several times as often.
    let ground = |r: &animtune::analysis::SkateReport| match r.ground {
        Ground::Treadmill(v) => Vec3::from_array(v),
        other => panic!("on a treadmill: {other:?}"),
    };
    assert!(
        ground(&normalized).distance(ground(&alone)) < 0.01,
        "{normalized:?}"
    );
    assert!(
        normalized.planted_speed_cm_s.mean > 1.5 * synced.planted_speed_cm_s.mean
            && normalized.skate_ratio > 3.0 * synced.skate_ratio,
        "normalized {normalized:?}, synced {synced:?}"
    );
}

/// "New space from clips" on Quaternius's clips, authored in place: the walk, jog and sprint land at the speeds
/// their planted feet move back at (measured, growing with the gait), not all at a name's nominal speed.
#[test]
fn new_space_from_clips_places_in_place_gaits_by_their_feet() {
    let model = load_file(&quaternius()).unwrap();
    let s = animtune::analysis::suggest::space_from_clips(&model.character, &model.clips).unwrap();
    let at = |clip: &str| {
        s.placed
            .iter()
            .find(|p| p.clip == clip)
            .unwrap_or_else(|| panic!("{clip} not placed: {:?}", s.placed))
    };
    let (walk, jog, sprint) = (at("Walk_Loop"), at("Jog_Fwd_Loop"), at("Sprint_Loop"));
    println!("{walk:?}\n{jog:?}\n{sprint:?}");
    assert!(walk.measured && jog.measured && sprint.measured);
    assert!(
        0.5 < walk.measured_speed
            && walk.measured_speed < jog.measured_speed
            && jog.measured_speed < sprint.measured_speed,
        "{walk:?} {jog:?} {sprint:?}"
    );
}

/// A space synced on markers finds its clips' foot-down markers itself when it is bound (no caller hands them
/// over): each node's are its clip's own, as `clip_markers` samples them through the Evaluator. A space on
/// normalised time finds none until an edit switches it to markers.
#[test]
fn a_space_finds_its_clips_markers_when_it_is_bound_on_marker_sync() {
    use animtune::analysis::foot_markers::clip_markers;
    use animtune::blend::{BlendSpace, TimeSync};
    use animtune::eval::{Evaluator, SourceSpec};
    use animtune::layers::LayerParams;
    let model = load_file(&quaternius()).unwrap();
    let clips = &model.clips;
    let (walk, run) = ("Walk_Loop", "Jog_Fwd_Loop");
    let clip = |name: &str| clips.iter().find(|c| c.name == name).unwrap();
    let mut space: BlendSpace = serde_json::from_value(serde_json::json!({
        "mode": "1d", "axes": [{"name": "speed", "min": 0, "max": 1}, {"name": "", "min": -1, "max": 1}],
        "nodes": [{"clip": walk, "position": [0, 0]}, {"clip": run, "position": [1, 0]}]
    }))
    .unwrap();
    let c = &model.character;
    let mut ev = Evaluator::new(
        c,
        clips,
        SourceSpec::Blend(space.clone()),
        LayerParams::off(),
    );
    assert!(
        !ev.source().has_sync_markers(),
        "normalised time needs no markers"
    );
    space.sync = TimeSync::Markers;
    ev.set_blend_space(c, clips, &space);
    let bound = Evaluator::new(c, clips, SourceSpec::Blend(space), LayerParams::off());
    for ev in [&ev, &bound] {
        let sampler = ev.source().blend_sampler().unwrap();
        for (node, name) in [walk, run].into_iter().enumerate() {
            let expected = clip_markers(c, clip(name)).unwrap();
            assert!(expected.len() >= 2, "{name}: {expected:?}");
            assert_eq!(sampler.markers(node), &expected[..], "{name}");
        }
    }
}

/// Foot lock on an in-place blend space (Quaternius's locomotion preset, its clips authored in place): the lock
/// holds feet on the treadmill the clips walk on, the ground the meter measures on, so locking never measures
/// worse than free: at the walk node and between the idle and the walk the planted slide at least halves and
/// the skate share does not grow; the ground is the same free and locked.
#[test]
fn foot_lock_on_an_in_place_blend_space_holds_feet_on_its_treadmill() {
    use animtune::analysis::contacts::blend_skate;
    use animtune::preset::Preset;
    let model = load_file(&quaternius()).unwrap();
    let preset = Preset::load(&crate::common::preset("quaternius_locomotion.json")).unwrap();
    let space = preset.blend.expect("a blend space");
    let settings = ContactSettings::default();
    let lock = animtune::layers::FootLockParams::default();
    for point in [[1.4, 0.0], [0.5, 0.0]] {
        let skate = |foot_lock| {
            blend_skate(
                &model.character,
                &model.clips,
                &space,
                point,
                60.0,
                &settings,
                foot_lock,
            )
            .unwrap()
        };
        let (free, locked) = (skate(None), skate(Some(&lock)));
        assert!(
            matches!(free.ground, Ground::Treadmill(v) if Vec3::from_array(v).length() > 0.1),
            "{point:?}: in place, on a treadmill: {:?}",
            free.ground
        );
        assert_eq!(free.ground, locked.ground, "{point:?}: one ground");
        assert!(
            locked.planted_speed_cm_s.mean <= 0.5 * free.planted_speed_cm_s.mean,
            "{point:?}: planted {} → {} cm/s",
            free.planted_speed_cm_s.mean,
            locked.planted_speed_cm_s.mean
        );
        assert!(
            locked.skate_ratio <= free.skate_ratio,
            "{point:?}: skate {} → {}",
            free.skate_ratio,
            locked.skate_ratio
        );
    }
}

/// The skate map reads at each of its points what the meter reads there: at the mannequin's idle node (the
/// middle of its symmetric x axis, 0 on its z axis) it is a point of the grid, so the idle region is painted
/// as the idle measures, not as an average with the walks around it.
#[test]
fn the_skate_map_measures_the_idle_node_itself() {
    use animtune::analysis::contacts::{BlendMeter, skate_map};
    let model = animtune::demo::mannequin::load();
    let space = animtune::demo::locomotion::default_blend_space();
    let size = 13;
    let map = skate_map(
        &model.character,
        &model.clips,
        &space,
        size,
        60.0,
        ContactSettings::default(),
        None,
        |_, _| true,
    )
    .unwrap()
    .unwrap();
    let idle = space.nodes.iter().find(|n| n.clip == "Idle").unwrap();
    let at = (0..size)
        .flat_map(|r| (0..size).map(move |c| (r, c)))
        .find(|&(r, c)| {
            let p = map.point(r, c);
            (p[0] - idle.position[0]).abs() < 1e-9 && (p[1] - idle.position[1]).abs() < 1e-9
        })
        .expect("the idle node is a point of the grid");
    let mut meter = BlendMeter::new(
        &model.character,
        &model.clips,
        &space,
        60.0,
        ContactSettings::default(),
        None,
    )
    .unwrap();
    let measured = meter.measure(&model.character, idle.position);
    assert_eq!(
        map.planted_cm_s[at.0 * size + at.1],
        measured.planted_speed_cm_s.mean
    );
    // Painted at that point: the pixel over the node shows the idle's own figure.
    let pixels = 121;
    let rgba = map.to_rgba(pixels, 50.0);
    let px = |f: f32| ((f * (pixels - 1) as f32).round() as usize).min(pixels - 1);
    let (fx, fy) = (
        at.1 as f32 / (size - 1) as f32,
        at.0 as f32 / (size - 1) as f32,
    );
    let i = (px(fy) * pixels + px(fx)) * 4;
    let want = animtune::blend::heatmap::ramp(measured.planted_speed_cm_s.mean / 50.0);
    for k in 0..3 {
        assert!(
            (i32::from(rgba[i + k]) - i32::from(want[k])).abs() <= 3,
            "{:?} against {want:?}",
            &rgba[i..i + 3]
        );
    }
}

/// The skate clean-up (`offline::skate_fix`) on the swayed idle: its planted feet then slide at most 1 cm/s as the
/// meter measures the new clip, with no stretch (the cap is 0), and outside the plants' windows no joint moves
/// faster than 10 % over the source (there, the clip is the source).
#[test]
fn the_skate_clean_up_holds_the_swayed_idles_feet_within_1_cm_s() {
    use animtune::core::clip_pass::SkateFix;
    use animtune::offline::skate_fix::fix_skate;
    let (model, clip) = idle();
    let c = &model.character;
    let settings = ContactSettings {
        speed_m_s: 2.0,
        ..ContactSettings::default()
    };
    for (amplitude, cycles) in [(0.05, 1.0), (0.08, 4.0)] {
        let sway = swayed(&clip, amplitude, clip.duration / cycles);
        let (fixed, report) = fix_skate(c, &sway, &SkateFix::default(), &settings).unwrap();
        let before = clip_skate(c, &sway, 60.0, &settings, None).unwrap();
        let after = clip_skate(c, &fixed, 60.0, &settings, None).unwrap();
        assert!(before.planted_speed_cm_s.mean > 5.0, "{before:?}");
        assert!(
            after.planted_speed_cm_s.max <= 1.0,
            "A {amplitude}: {:?} ({})",
            after.planted_speed_cm_s,
            report.brief()
        );
        assert!(report.stretch_pct == 0.0, "{report:?}");
        assert_joint_speeds_within(c, &sway, &fixed, &report.windows, 0.1);
    }
}

/// Outside `windows`, no joint of `fixed` moves faster between 60 fps frames than `share` over `source`'s (plus
/// 1 mm/s for rounding).
fn assert_joint_speeds_within(
    character: &animtune::core::Character,
    source: &Clip,
    fixed: &Clip,
    windows: &[[f32; 2]],
    share: f32,
) {
    use animtune::offline::frames::{sample_frames, uniform_times};
    let times = uniform_times(source.duration, 60.0);
    let positions = |clip: &Clip| -> Vec<Vec<Vec3>> {
        sample_frames(
            clip,
            &character.skeleton,
            Some(&character.humanoid),
            times.clone(),
        )
        .poses
        .iter()
        .map(|p| {
            p.model_matrices(&character.skeleton)
                .iter()
                .map(|m| m.w_axis.truncate())
                .collect()
        })
        .collect()
    };
    let (a, b) = (positions(source), positions(fixed));
    let outside = |t: f32| windows.iter().all(|w| t < w[0] || t > w[1]);
    for k in 1..times.len() {
        if !(outside(times[k - 1]) && outside(times[k])) {
            continue;
        }
        let dt = times[k] - times[k - 1];
        for j in 0..a[k].len() {
            let was = (a[k][j] - a[k - 1][j]).length() / dt;
            let now = (b[k][j] - b[k - 1][j]).length() / dt;
            assert!(
                now <= was * (1.0 + share) + 1e-3,
                "{} at {} s: {now} m/s against {was}",
                character.skeleton.name(j),
                times[k]
            );
        }
    }
}
