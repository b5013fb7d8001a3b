//! The editor's panels as a new user meets them, through egui_kittest: each model's own blend space, a space
//! laid out from clips, hover text on every control, the layout at 900×600 and at UI scale 2, and the humanoid
//! mapping editor.

use crate::common;

use animtune::app::AnimtuneApp;
use animtune::app::command::{Command, Transport};
use animtune::app::panels::inspector::blend::CANVAS_LABEL;
use animtune::blend::BlendMode;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::kittest::{harness_scaled, harness_sized, settle_analyses};

fn open(h: &mut Harness<'static, AnimtuneApp>, path: std::path::PathBuf) {
    h.state_mut().send(Command::Open(path));
    h.run_steps(3);
}

#[test]
fn a_model_opens_on_its_own_space_never_on_the_mannequins() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    assert!(!h.state().editor().tuning().blend.nodes.is_empty());
    open(&mut h, common::asset("CesiumMan.glb"));
    let e = h.state().editor();
    assert!(
        e.tuning().blend.nodes.is_empty(),
        "CesiumMan took another model's blend space"
    );
    assert!(e.blend_sampler().missing().is_empty());
    assert!(!e.blending(), "nothing to blend: its clip plays");
    // The unnamed clip is "clip 0" everywhere: the clip list, the timeline, the clip tab.
    assert_eq!(e.doc().clips[0].name, "clip 0");
    assert!(h.query_all_by_label_contains("clip 0").next().is_some());
    assert!(h.query_by_label_contains("no clip named").is_none());
    // The mannequin comes back with its own space.
    h.state_mut().send(Command::LoadMannequin);
    h.run_steps(2);
    assert!(h.state().editor().tuning().blend.nodes.len() > 2);
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn new_space_from_clips_lays_soldier_out_on_a_speed_axis() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    open(&mut h, common::extra_asset("mixamo/Soldier.glb"));
    h.get_by_label("New space from clips").click();
    settle_analyses(&mut h);
    let space = h.state().editor().tuning().blend.clone();
    assert_eq!(space.mode, BlendMode::OneD, "{space:?}");
    assert!(space.axes[0].name.contains("Speed"), "{:?}", space.axes[0]);
    let at = |clip: &str| {
        space
            .nodes
            .iter()
            .find(|n| n.clip == clip)
            .unwrap_or_else(|| panic!("no {clip} node in {space:?}"))
            .position[0]
    };
    assert_eq!(at("Idle"), 0.0);
    assert!(0.5 < at("Walk") && at("Walk") < at("Run"), "{space:?}");
    assert!(!space.nodes.iter().any(|n| n.clip == "TPose"), "{space:?}");
    assert!(h.state().editor().blending(), "the new space plays");
    assert!(
        h.state().editor().status().text.contains("left out: TPose"),
        "{}",
        h.state().editor().status().text
    );
    // Undo brings back the empty space.
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert!(h.state().editor().tuning().blend.nodes.is_empty());
}

/// Roles of the widgets a user acts on.
fn interactive(role: Role) -> bool {
    matches!(
        role,
        Role::Button
            | Role::CheckBox
            | Role::RadioButton
            | Role::ComboBox
            | Role::Slider
            | Role::SpinButton
            | Role::TextInput
            | Role::Canvas
            | Role::Tab
            | Role::Switch
            | Role::Link
    )
}

/// Interactive widgets shown now with no hover text (their accessible description), as "role label".
fn undescribed(h: &Harness<'static, AnimtuneApp>) -> Vec<String> {
    h.root()
        .children_recursive()
        .filter(|n| {
            let a = n.accesskit_node();
            interactive(a.role()) && a.description().is_none_or(|d| d.trim().is_empty())
        })
        .map(|n| {
            let a = n.accesskit_node();
            format!("{:?} {:?}", a.role(), a.label().unwrap_or_default())
        })
        .collect()
}

/// A machine of two states, a transition between them, and a parameter of each type.
fn machine_with_a_transition(h: &mut Harness<'static, AnimtuneApp>) {
    use animtune::graph::{MachineEdit, Parameter, ParameterKind, ParameterValue};
    let mut commands = vec![
        Command::NewMachine,
        Command::EditMachine(MachineEdit::AddState(Box::new(
            animtune::graph::edit::clip_state("Walk", "WalkForward", [200.0, 0.0]),
        ))),
        Command::EditMachine(MachineEdit::AddTransition {
            from: "Idle".into(),
            to: "Walk".into(),
        }),
    ];
    for (name, kind) in [
        ("speed", ParameterKind::Float),
        ("count", ParameterKind::Int),
        ("grounded", ParameterKind::Bool),
        ("jump", ParameterKind::Trigger),
    ] {
        commands.push(Command::EditMachine(MachineEdit::AddParameter(Parameter {
            name: name.into(),
            kind,
            default: ParameterValue::Number(0.0),
        })));
    }
    for c in commands {
        h.state_mut().send(c);
        h.run_steps(1);
    }
}

#[test]
fn every_interactive_widget_has_hover_text() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    let mut missing = Vec::new();
    let mut check = |h: &mut Harness<'static, AnimtuneApp>, what: &str| {
        h.run_steps(2);
        for m in undescribed(h) {
            missing.push(format!("{what}: {m}"));
        }
    };
    check(&mut h, "Blend tab");
    for tab in ["Clip", "Joint", "Humanoid", "Layers"] {
        h.get_by_label(tab).click();
        check(&mut h, tab);
    }
    // The States tab with a machine: its graph pane, a state's inspector, then a transition's with its
    // timeline, the machine playing.
    machine_with_a_transition(&mut h);
    h.get_by_label("States").click();
    check(&mut h, "States tab");
    h.get_by_label("Graph panel").click();
    h.run_steps(2);
    check(&mut h, "States tab, graph pane");
    let canvas = h
        .get_by_label(animtune::app::panels::inspector::states::graph::GRAPH_LABEL)
        .rect();
    let m = h.state().editor().machine().unwrap().clone();
    let pan = h.state().states_panel().pan;
    let rect =
        |i| animtune::app::panels::inspector::states::graph::state_rect(&m, i, canvas, pan, 1.0);
    for at in [
        rect(0).center(),
        rect(0).center().lerp(rect(1).center(), 0.5),
    ] {
        h.drag_at(at);
        h.run_steps(1);
        h.drop_at(at);
        check(&mut h, "States tab, a state or a transition selected");
    }
    h.get_by_label("Play machine").click();
    check(&mut h, "States tab, the machine playing");
    // A joint selected, a clip playing with an in/out range, the export window open.
    h.state_mut().send(Command::SelectJoint(Some(3)));
    h.state_mut().send(Command::PlayClip(Some(0)));
    h.state_mut().send(Command::SetPlayRange(Some([0.1, 0.5])));
    h.get_by_label("Joint").click();
    check(&mut h, "Joint tab, joint selected");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    check(&mut h, "Export window, clip playing");
    // Every menu, opened.
    for menu in ["File", "Edit", "View", "Help"] {
        h.get_by_role_and_label(Role::Button, menu).click();
        check(&mut h, &format!("{menu} menu"));
        h.key_press(egui::Key::Escape);
        h.run_steps(2);
    }
    assert!(missing.is_empty(), "no hover text:\n{}", missing.join("\n"));
}

#[test]
fn escape_closes_a_menu() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    h.get_by_label("File").click();
    h.run_steps(2);
    assert!(h.query_by_label_contains("Save preset").is_some());
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("Save preset").is_none(),
        "the File menu is still open"
    );
}

/// Renders, saves the image under target/ui-snapshots/ for people to look at, and asserts that the whole
/// blend canvas is on screen and not under the timeline: every corner of it is inside the window and above
/// the timeline panel, and the canvas's dark background shows at each corner.
fn assert_canvas_whole(h: &mut Harness<'static, AnimtuneApp>, name: &str, size: egui::Vec2) {
    h.run_steps(3);
    let canvas = h.get_by_label(CANVAS_LABEL).rect();
    // The timeline panel starts at its transport buttons.
    let timeline = h.get_by_role_and_label(Role::Button, "|<").rect();
    let image = h.render().expect("the wgpu test renderer");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-snapshots");
    std::fs::create_dir_all(&dir).unwrap();
    image.save(dir.join(format!("{name}.png"))).unwrap();
    assert!(
        canvas.width() >= 100.0 && canvas.height() >= 35.0,
        "{name}: canvas {canvas:?}"
    );
    assert!(
        canvas.left() >= 0.0
            && canvas.right() <= size.x
            && canvas.top() >= 0.0
            && canvas.bottom() <= timeline.top() - 4.0,
        "{name}: canvas {canvas:?} is cut (window {size:?}, timeline from {timeline:?})"
    );
    let scale = image.width() as f32 / size.x;
    for corner in [
        canvas.left_top() + egui::vec2(3.0, 3.0),
        canvas.right_top() + egui::vec2(-3.0, 3.0),
        canvas.left_bottom() + egui::vec2(3.0, -3.0),
        canvas.right_bottom() + egui::vec2(-3.0, -3.0),
    ] {
        let p = image.get_pixel((corner.x * scale) as u32, (corner.y * scale) as u32);
        assert!(
            p[0] < 90 && p[1] < 90 && p[2] < 110,
            "{name}: the canvas is not drawn at {corner:?} ({p:?}): covered or cut"
        );
    }
}

#[test]
fn the_whole_blend_canvas_shows_at_900x600_and_at_scale_2() {
    let mut h = harness_sized(900.0, 600.0);
    h.run_steps(2);
    assert_canvas_whole(&mut h, "blend_900x600", egui::vec2(900.0, 600.0));
    // The viewport keeps a usable size beside the panels.
    let viewport = h
        .get_by_label(animtune::app::panels::viewport::VIEWPORT_LABEL)
        .rect();
    assert!(viewport.width() >= 300.0, "viewport {viewport:?}");

    let mut h = harness_sized(1280.0, 800.0);
    h.ctx.set_zoom_factor(2.0);
    h.run_steps(3);
    assert_canvas_whole(&mut h, "blend_scale2", egui::vec2(640.0, 400.0));
}

/// At 900×600 with UI scale 2 the inspector's view is shorter than a usual canvas: the canvas is then as tall as
/// that view, so scrolling the inspector brings it on screen whole (it was a strip cut by the tabs and the
/// transport wherever it was scrolled).
#[test]
fn the_blend_canvas_scrolls_into_view_whole_at_900x600_and_scale_2() {
    let mut h = harness_sized(900.0, 600.0);
    h.ctx.set_zoom_factor(2.0);
    h.run_steps(3);
    if h.query_by_label("States").is_none() {
        h.get_by_role_and_label(Role::Button, "«").click();
        h.run_steps(3);
    }
    let tabs_bottom = h.get_by_label("States").rect().bottom();
    let timeline = h.get_by_role_and_label(Role::Button, "|<").rect();
    // The wheel over the inspector, a little at a time, until the canvas is below the tabs and above the
    // transport (or the inspector stops scrolling).
    let mut whole = None;
    for _ in 0..40 {
        let canvas = h.get_by_label(CANVAS_LABEL).rect();
        if canvas.top() >= tabs_bottom && canvas.bottom() <= timeline.top() {
            whole = Some(canvas);
            break;
        }
        h.hover_at(egui::pos2(
            h.get_by_label("States").rect().center().x,
            tabs_bottom + 20.0,
        ));
        crate::ui::wheel(&mut h, -10.0);
        h.run_steps(2);
    }
    let canvas = whole.unwrap_or_else(|| {
        panic!(
            "the canvas {:?} never shows whole between the tabs (bottom {tabs_bottom}) and the transport {timeline:?}",
            h.get_by_label(CANVAS_LABEL).rect()
        )
    });
    assert!(canvas.height() >= 40.0, "canvas {canvas:?}");
}

#[test]
fn the_inspector_keeps_its_width_across_tabs() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    let viewport = |h: &Harness<'static, AnimtuneApp>| {
        h.get_by_label(animtune::app::panels::viewport::VIEWPORT_LABEL)
            .rect()
    };
    let first = viewport(&h);
    for tab in [
        "Clip", "Joint", "Humanoid", "Layers", "Face", "Springs", "Blend",
    ] {
        h.get_by_label(tab).click();
        h.run_steps(2);
        assert!(
            (viewport(&h).width() - first.width()).abs() < 1.0,
            "{tab}: the viewport went from {first:?} to {:?}",
            viewport(&h)
        );
    }
}

/// The joint that plays `bone` in the open character.
fn mapped(h: &Harness<'static, AnimtuneApp>, bone: animtune::core::HumanBone) -> Option<usize> {
    h.state()
        .editor()
        .doc()
        .model
        .character
        .humanoid
        .joint(bone)
}

#[test]
fn remapping_a_human_bone_changes_the_pose_and_is_saved_in_the_preset() {
    use animtune::core::HumanBone;
    let dir = common::temp_dir("remap");
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    h.state_mut().send(Command::Transport(Transport::Stop));
    h.run_steps(2);
    let (chest, neck) = {
        let c = &h.state().editor().doc().model.character;
        (
            c.humanoid.joint(HumanBone::Chest).unwrap(),
            c.humanoid.joint(HumanBone::Neck).unwrap(),
        )
    };
    // Breathing at its fullest, so that which joint the breath bones name shows in the pose.
    h.state_mut()
        .send(Command::Transport(Transport::Scrub(1.2)));
    h.run_steps(2);
    let before = h.state().editor().pose().local.clone();
    // The Humanoid tab's combo box for Chest, then the neck joint in its list.
    h.get_by_label("Humanoid").click();
    h.run_steps(2);
    let neck_name = h
        .state()
        .editor()
        .doc()
        .model
        .character
        .skeleton
        .name(neck)
        .to_string();
    let combo = h
        .root()
        .children_recursive()
        .find(|n| {
            let a = n.accesskit_node();
            a.role() == Role::ComboBox
                && a.description().is_some_and(|d| d.contains("plays Chest;"))
        })
        .expect("a combo box for Chest");
    combo.click();
    h.run_steps(2);
    h.get_by_label(&format!("{neck_name}  [Neck]")).click();
    h.run_steps(3);
    let e = h.state().editor();
    let c = &e.doc().model.character;
    assert_eq!(c.humanoid.joint(HumanBone::Chest), Some(neck));
    assert_eq!(
        c.humanoid.joint(HumanBone::Neck),
        None,
        "a joint plays one bone"
    );
    let after = &e.pose().local;
    let moved = (0..after.len())
        .filter(|&j| after[j].rotation.angle_between(before[j].rotation) > 1e-4)
        .count();
    assert!(moved > 0, "the pose did not change");
    assert!(
        after[chest].rotation.angle_between(before[chest].rotation) > 1e-4
            || after[neck].rotation.angle_between(before[neck].rotation) > 1e-4
    );
    let preset = dir.join("remapped.json");
    h.state_mut().send(Command::SavePreset {
        path: preset.clone(),
        overwrite: true,
    });
    h.run_steps(2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&preset).unwrap()).unwrap();
    assert_eq!(json["humanoid"]["Chest"], neck_name.as_str(), "{json}");
    assert_eq!(json["humanoid"]["Neck"], "", "{json}");
    // Undo restores the model's own mapping; the preset brings the override back.
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert_eq!(mapped(&h, HumanBone::Chest), Some(chest));
    h.state_mut().send(Command::Open(preset));
    h.run_steps(2);
    assert_eq!(
        mapped(&h, HumanBone::Chest),
        Some(neck),
        "{}",
        h.state().editor().status().text
    );
}

#[test]
fn a_broken_humanoid_is_fixed_from_the_humanoid_tab() {
    use animtune::core::HumanBone;
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    let head = mapped(&h, HumanBone::Head).unwrap();
    h.state_mut()
        .send(Command::SetHumanBone(HumanBone::Head, None));
    h.get_by_label("Humanoid").click();
    h.run_steps(3);
    assert!(
        !h.state()
            .editor()
            .doc()
            .model
            .character
            .humanoid
            .is_humanoid()
    );
    assert!(h.query_by_label_contains("Not a humanoid").is_some());
    h.state_mut()
        .send(Command::SetHumanBone(HumanBone::Head, Some(head)));
    h.run_steps(2);
    let e = h.state().editor();
    assert!(e.doc().model.character.humanoid.is_humanoid());
    assert!(
        e.tuning().humanoid.is_empty(),
        "back to the model's own mapping: no override"
    );
}

#[test]
fn the_humanoid_tab_sets_where_retargeted_hips_go_and_undo_restores_it() {
    use animtune::core::HipsPlacement;
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    h.get_by_label("Humanoid").click();
    h.run_steps(2);
    h.root()
        .children_recursive()
        .find(|n| {
            let a = n.accesskit_node();
            a.role() == Role::ComboBox
                && a.description()
                    .is_some_and(|d| d.contains("three-vrm and Unity Mecanim"))
        })
        .expect("the hips placement combo box")
        .click();
    h.run_steps(2);
    h.get_by_label("Rest + clip motion").click();
    h.run_steps(2);
    let placement = |h: &Harness<'static, AnimtuneApp>| {
        let e = h.state().editor();
        assert_eq!(
            e.tuning().hips_placement,
            e.doc().model.character.humanoid.hips_placement,
            "the character binds clips with the tuning's rule"
        );
        e.tuning().hips_placement
    };
    assert_eq!(placement(&h), HipsPlacement::RestOffset);
    h.state_mut().send(Command::Undo);
    h.run_steps(2);
    assert_eq!(placement(&h), HipsPlacement::ClipPosition);
}

#[test]
fn command_line_clips_keep_the_blend_space_playing_and_a_preset_opens_after_them() {
    let vrma = common::asset("three-vrm_test.vrma");
    let dir = common::temp_dir("editor-cli-preset");
    let preset = dir.join("p.json");
    let mut p = animtune::preset::Preset::default();
    p.layers.breath.effect_rate = 1.7;
    std::fs::write(&preset, serde_json::to_string(&p).unwrap()).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .wgpu()
        .build_eframe(move |cc| {
            AnimtuneApp::new(cc, None, None)
                .with_clips(vec![vrma.clone()])
                .with_preset(Some(preset.clone()))
        });
    h.run_steps(4);
    let e = h.state().editor();
    assert!(
        e.doc().clips.iter().any(|c| c.name == "three-vrm_test"),
        "the clips were added: {}",
        e.status().text
    );
    assert!(
        e.eval().source().blend_space().is_some(),
        "the mannequin's blend space still plays"
    );
    assert_eq!(
        e.tuning().layers.breath.effect_rate,
        1.7,
        "{}",
        e.status().text
    );
}

#[test]
fn a_look_at_row_standing_in_for_a_missing_bone_says_which_it_drives() {
    // The VRM 1.0 sample has no UpperChest: the default chain's UpperChest row drives Chest.
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    open(&mut h, common::asset("vrm/mtoon_default.vrm"));
    h.get_by_label("Layers").click();
    h.run_steps(2);
    if h.query_by_label_contains("drives Chest").is_none() {
        h.get_by_label_contains("Look-at").click();
        h.run_steps(3);
    }
    assert!(
        h.query_by_label_contains("drives Chest").is_some(),
        "{}",
        h.state().editor().status().text
    );
}

#[test]
fn a_preset_with_an_empty_blend_space_turns_the_transport_off_and_says_what_it_restored() {
    // B13: the empty space showed an enabled "Pause", and the status line did not say what else came back.
    let dir = common::temp_dir("editor-empty-space");
    let preset = dir.join("empty.json");
    let mut p = animtune::preset::Preset {
        blend: Some(animtune::blend::BlendSpace::default()),
        ..Default::default()
    };
    p.layers.look_at.enabled = true;
    std::fs::write(&preset, p.to_json()).unwrap();
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    open(&mut h, preset);
    h.run_steps(2);
    let status = h.state().editor().status().text.clone();
    assert!(
        status.contains("an empty blend space") && status.contains("look-at"),
        "{status}"
    );
    let play = h.get_by_role_and_label(Role::Button, "Play");
    assert!(
        play.accesskit_node().is_disabled(),
        "Play is enabled with nothing to play"
    );
    assert!(
        h.query_by_label("Pause").is_none(),
        "an empty space shows Pause"
    );
}

#[test]
fn the_joint_tab_shows_every_value_of_a_row_at_the_default_width() {
    // B11: at the default inspector width the quaternion's w was cut off, and values printed "-0.00".
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    h.state_mut().send(Command::SelectJoint(Some(3)));
    h.get_by_label("Joint").click();
    h.run_steps(3);
    // The row as the tab prints it: four values, one that rounds to zero as 0.
    let q = h.state().editor().pose().local[3].rotation;
    let text = q
        .to_array()
        .map(|v| format!("{:.4}", if v.abs() < 5e-5 { 0.0 } else { v }))
        .join("  ");
    assert!(!text.contains("-0.0000"), "{text}");
    let row = h.get_by_label(&text);
    assert!(
        row.rect().right() <= 1280.0,
        "the row runs past the window: {:?}",
        row.rect()
    );
}

/// The editor at 1280x800 with the built-in file browser chosen (View → File → "Built-in file browser", as a
/// user without a system dialog would find it), so that opening a file shows no platform dialog.
pub fn built_in_browser_harness() -> Harness<'static, AnimtuneApp> {
    // The browser labels folders and files with icons (🗀 🗋 📂) that egui's text fonts lack: the emoji fonts draw
    // them. The harness fails on any missing glyph.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .wgpu()
        .build_eframe(|cc| AnimtuneApp::new(cc, None, None));
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "File").click();
    h.run_steps(2);
    h.get_by_label("Built-in file browser").click();
    h.run_steps(2);
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    h
}

#[test]
fn ctrl_o_with_the_built_in_browser_opens_a_typed_path() {
    let mut h = built_in_browser_harness();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    h.run_steps(3);
    assert!(h.state().file_dialog_open(), "no file dialog");
    assert!(
        h.query_by_label_contains("Open a model").is_some(),
        "the in-app browser is not shown"
    );
    // Its folder field (showing the working directory) takes a full path; Enter opens the file.
    let robot = common::asset("RobotExpressive.glb");
    let cwd = std::env::current_dir().unwrap().display().to_string();
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.accesskit_node().value().as_deref() == Some(cwd.as_str()))
        .expect("the browser's folder field")
        .focus();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.accesskit_node().value().as_deref() == Some(cwd.as_str()))
        .expect("the browser's folder field, focused")
        .type_text(robot.to_str().unwrap());
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    h.run_steps(4);
    assert!(!h.state().file_dialog_open());
    assert_eq!(
        h.state().editor().doc().name,
        "RobotExpressive.glb",
        "{}",
        h.state().editor().status().text
    );
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn an_fbx_character_plays_in_the_editor_and_lends_its_clip_to_a_glb() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    open(&mut h, common::extra_asset("fbx/Samba_Dancing.fbx"));
    let e = h.state().editor();
    assert_eq!(e.doc().name, "Samba_Dancing.fbx", "{}", e.status().text);
    assert!(e.doc().model.character.humanoid.is_humanoid());
    assert!(
        e.clip().is_some() && e.eval().clock().is_playing(),
        "its clip plays"
    );
    let before = e.pose().local.clone();
    let t0 = e.eval().time();
    h.run_steps(4);
    let e = h.state().editor();
    assert!(e.eval().time() > t0);
    let moved = before
        .iter()
        .zip(&e.pose().local)
        .filter(|(a, b)| a.rotation.angle_between(b.rotation) > 1e-3)
        .count();
    assert!(moved > 10, "{moved} joints moved");
    // The dance bound onto Mixamo's Xbot (.glb) by joint name.
    open(&mut h, common::extra_asset("mixamo/Xbot.glb"));
    h.state_mut().send(Command::AddClips(common::extra_asset(
        "fbx/Samba_Dancing.fbx",
    )));
    h.run_steps(3);
    let e = h.state().editor();
    let source = e.doc().clip_sources.last().expect("clips added");
    assert!(
        source.by_name + source.by_path > 40,
        "{source:?} {}",
        e.status().text
    );
    assert_eq!(e.doc().clips[e.clip().unwrap()].name, "mixamo.com");
}

#[test]
fn a_long_status_message_stays_on_one_line_and_the_timeline_stays_put() {
    let mut h = harness_sized(900.0, 600.0);
    h.run_steps(2);
    let time_bar =
        |h: &Harness<'static, AnimtuneApp>| h.get_by_role_and_label(Role::Slider, "Time").rect();
    let before = time_bar(&h);
    let text = "a message long enough to need two lines at this width: ".repeat(4);
    h.state_mut().send(Command::Report {
        text: text.clone(),
        is_error: true,
    });
    h.run_steps(2);
    assert_eq!(h.state().editor().status().text, text);
    assert_eq!(time_bar(&h), before, "the timeline moved");
}

#[test]
fn each_inspector_tab_keeps_its_own_scroll_offset() {
    let mut h = harness_sized(900.0, 600.0);
    h.run_steps(2);
    let rate = |h: &Harness<'static, AnimtuneApp>| {
        h.get_by_role_and_label(Role::Slider, "effect rate").rect()
    };
    h.get_by_label("Layers").click();
    h.run_steps(2);
    let fresh = rate(&h);
    // The Humanoid tab's long bone list, scrolled down with the wheel over the inspector.
    h.get_by_label("Humanoid").click();
    h.run_steps(2);
    let over = h.get_by_label("Humanoid").rect().center() + egui::vec2(0.0, 150.0);
    h.hover_at(over);
    crate::ui::wheel(&mut h, -3000.0);
    h.run_steps(4);
    // Layers opens where it was, not scrolled by as much as Humanoid was.
    h.get_by_label("Layers").click();
    h.run_steps(2);
    assert_eq!(rate(&h), fresh, "the Layers tab opened scrolled");
}

#[test]
fn the_transport_buttons_stay_put_when_play_turns_to_pause() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    let stop = |h: &Harness<'static, AnimtuneApp>| h.get_by_label("Stop").rect();
    let playing = (h.get_by_label("Pause").rect(), stop(&h));
    h.get_by_label("Pause").click();
    h.run_steps(2);
    let paused = (h.get_by_label("Play").rect(), stop(&h));
    assert_eq!(playing, paused, "(toggle, Stop) moved");
}

#[test]
fn humanoid_clips_added_to_a_non_humanoid_come_with_a_warning() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    let add_vrma = |h: &mut Harness<'static, AnimtuneApp>| {
        h.state_mut()
            .send(Command::AddClips(common::asset("three-vrm_test.vrma")));
        h.run_steps(2);
        h.state().editor().status().clone()
    };
    // The mannequin is a humanoid: a plain report.
    let status = add_vrma(&mut h);
    assert!(!status.is_error, "{}", status.text);
    assert!(!status.text.contains("not a humanoid"), "{}", status.text);
    // Fox is not: the clip is added, and the status bar says in red what it will and will not move.
    open(&mut h, common::asset("Fox.glb"));
    let clips = h.state().editor().doc().clips.len();
    let status = add_vrma(&mut h);
    assert_eq!(
        h.state().editor().doc().clips.len(),
        clips + 1,
        "{}",
        status.text
    );
    assert!(status.is_error, "{}", status.text);
    assert!(
        status.text.contains("Fox.glb is not a humanoid"),
        "{}",
        status.text
    );
}

#[test]
fn a_900x600_window_at_scale_2_keeps_the_character_in_sight_and_every_panel_reachable() {
    // B4: at 450×300 points the viewport was 185×260 px with the HUD and gizmo over the head, the canvas never
    // fit, the transport row wrapped into three rows, and the scene panel's edge crossed the timeline.
    let mut h = harness_scaled(450.0, 300.0, 2.0);
    h.run_steps(4);
    let viewport = |h: &Harness<'static, AnimtuneApp>| {
        h.get_by_label(animtune::app::panels::viewport::VIEWPORT_LABEL)
            .rect()
    };
    let v = viewport(&h);
    assert!(
        v.width() >= 0.8 * 450.0 && v.height() >= 150.0,
        "both side panels start as strips: viewport {v:?}"
    );
    assert!(h.query_by_label(CANVAS_LABEL).is_none());
    assert!(
        animtune::app::panels::viewport::gizmo_radius(v.size()) <= 0.12 * v.height() + 0.01,
        "the gizmo leaves the character room"
    );
    // One transport row (it scrolls sideways): the ruler follows right under Pause.
    let pause = h.get_by_role_and_label(Role::Button, "Pause").rect();
    let ruler = h.get_by_label("Time").rect();
    assert!(
        ruler.top() - pause.top() < 40.0,
        "the transport row wrapped: {pause:?}, ruler {ruler:?}"
    );
    let image = h.render().expect("the wgpu test renderer");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-snapshots");
    std::fs::create_dir_all(&dir).unwrap();
    image.save(dir.join("scale2_900x600.png")).unwrap();
    // No panel edge crosses the timeline: the ruler's row of pixels between its ticks is one grey.
    let y = ((ruler.center().y + 12.0) * 2.0) as u32;
    let row: Vec<_> = (((ruler.left() + 10.0) * 2.0) as u32..((ruler.right() - 10.0) * 2.0) as u32)
        .map(|x| image.get_pixel(x, y).0)
        .collect();
    let bright = row
        .iter()
        .filter(|p| p[0] > 40 && p[0] == p[1] && p[1] == p[2])
        .count();
    assert!(
        bright < 8,
        "a line crosses the ruler ({bright} bright pixels)"
    );
    // The inspector opens from its strip, with a usable canvas as tall as its view (the panel scrolls to it
    // whole: `the_blend_canvas_scrolls_into_view_whole_at_900x600_and_scale_2`).
    h.get_by_label("«").click();
    h.run_steps(4);
    let canvas = h.get_by_label(CANVAS_LABEL).rect();
    assert!(canvas.height() >= 50.0, "canvas {canvas:?}");
    assert!(viewport(&h).width() >= 200.0, "viewport {:?}", viewport(&h));
    // In a wide window the saved choice (both open) comes back.
    h.set_size(egui::vec2(1100.0, 700.0));
    h.run_steps(4);
    assert!(
        h.query_by_label("Clips").is_some(),
        "the scene panel is back"
    );
    assert!(h.query_by_label(CANVAS_LABEL).is_some());
    // At the panels' own widths, not squeezed.
    let mut fresh = harness_scaled(1100.0, 700.0, 2.0);
    fresh.run_steps(4);
    assert!(
        (viewport(&h).width() - viewport(&fresh).width()).abs() < 1.0,
        "panels kept their squeezed widths: viewport {:?}, fresh {:?}",
        viewport(&h),
        viewport(&fresh)
    );
}

#[test]
fn a_settings_choice_is_never_left_alone_on_a_line() {
    // At the default inspector width "keep" wrapped onto a line of its own, away from "Root" and "in place".
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(3);
    let (in_place, keep) = (
        h.get_by_label("in place").rect(),
        h.get_by_label("keep").rect(),
    );
    assert!(
        (in_place.center().y - keep.center().y).abs() < 1.0,
        "in place {in_place:?}, keep {keep:?}"
    );
}

/// C7: In, Out, Clear range and Curves stay where they are while the time readout's digits change and whatever
/// clip plays (a long name pushed them 150 px).
#[test]
fn the_transport_buttons_stay_put_as_the_time_and_the_clip_change() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    open(&mut h, common::quaternius());
    let clips = h.state().editor().doc().clips.clone();
    let short = clips.iter().position(|c| c.name.len() <= 8).unwrap();
    let long = (0..clips.len())
        .max_by_key(|&i| clips[i].name.len())
        .unwrap();
    let place = |h: &mut Harness<'static, AnimtuneApp>, clip: usize, time: f32| {
        h.state_mut().send(Command::PlayClip(Some(clip)));
        h.run_steps(2);
        h.state_mut()
            .send(Command::Transport(Transport::Scrub(time)));
        h.run_steps(2);
        ["In", "Out", "Curves"].map(|label| h.get_by_label(label).rect().left())
    };
    let first = place(&mut h, short, 0.0);
    let later = place(&mut h, short, clips[short].duration * 0.77);
    let other = place(&mut h, long, clips[long].duration * 0.51);
    assert_eq!(first, later, "the time's digits moved the buttons");
    assert_eq!(first, other, "'{}' moved the buttons", clips[long].name);
}

/// B11: at the default width every row of the Layers tab (breath, look-at, twist and a clip layer with its name,
/// mask and weight rows) ends inside the window.
#[test]
fn the_layers_tab_rows_end_inside_the_window_at_the_default_width() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    let mut layers = h.state().editor().tuning().layers.clone();
    layers.clips.push(animtune::layers::ClipLayer {
        name: "A layer with a long name".into(),
        clip: "WalkForwardLeft".into(),
        weight: 0.5,
        ..Default::default()
    });
    h.state_mut().send(Command::SetLayers(Box::new(layers)));
    h.run_steps(3);
    let inspector_left = h.get_by_label("Layers").rect().left();
    let worst = h
        .get_all_by_role(Role::Button)
        .chain(h.get_all_by_role(Role::CheckBox))
        .chain(h.get_all_by_role(Role::Slider))
        .chain(h.get_all_by_role(Role::SpinButton))
        .chain(h.get_all_by_role(Role::ComboBox))
        .map(|n| n.rect())
        .filter(|r| r.left() >= inspector_left - 1.0 && r.top() < 790.0)
        .fold(0.0f32, |m, r| m.max(r.right()));
    let past: Vec<String> = h
        .get_all_by_role(Role::Button)
        .chain(h.get_all_by_role(Role::CheckBox))
        .chain(h.get_all_by_role(Role::Slider))
        .chain(h.get_all_by_role(Role::SpinButton))
        .chain(h.get_all_by_role(Role::ComboBox))
        .filter(|n| n.rect().right() > 1280.0 && n.rect().top() < 790.0)
        .map(|n| {
            format!(
                "{:?}/{:?} {:?}",
                n.accesskit_node().label(),
                n.accesskit_node().value(),
                n.rect()
            )
        })
        .collect();
    assert!(
        worst <= 1280.0,
        "a control of the Layers tab ends at x = {worst}: {past:?}"
    );
}

/// The Face tab has a slider per expression of RobotExpressive (one per morph-target name): dragging Surprised
/// sets its weight on every head mesh, in one undo step.
#[test]
fn the_face_tab_drags_an_expression_onto_every_mesh_in_one_undo_step() {
    let mut h = harness_sized(1280.0, 800.0);
    open(&mut h, common::asset("RobotExpressive.glb"));
    h.get_by_label("Face").click();
    h.run_steps(2);
    let slider = h.get_by_role_and_label(Role::Slider, "Surprised").rect();
    let y = slider.center().y;
    h.drag_at(egui::pos2(slider.left() + 2.0, y));
    h.run_steps(1);
    for f in [0.4, 0.7, 1.0] {
        h.hover_at(egui::pos2(slider.left() + slider.width() * f + 4.0, y));
        h.run_steps(1);
    }
    h.drop_at(egui::pos2(slider.right() + 4.0, y));
    h.run_steps(2);
    let e = h.state().editor();
    assert_eq!(e.tuning().layers.expressions.get("Surprised"), Some(&1.0));
    let morphed: Vec<&Vec<f32>> = e
        .eval()
        .output()
        .morph_weights
        .iter()
        .filter(|w| !w.is_empty())
        .collect();
    assert_eq!(morphed.len(), 3);
    assert!(
        morphed.iter().all(|w| **w == [0.0, 1.0, 0.0]),
        "{morphed:?}"
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    let e = h.state().editor();
    assert!(e.tuning().layers.expressions.is_empty());
    assert!(
        e.eval()
            .output()
            .morph_weights
            .iter()
            .all(|w| w.iter().all(|x| *x == 0.0))
    );
}

/// The Springs tab on Godette: every inspector tab's title shows whole at 1280×800 (the hide button no longer
/// covers the last); a chain's Stiffness slider sets every joint of the chain in one undo step; Sway swings the
/// hair while the clip stands still.
#[test]
fn the_springs_tab_tunes_a_whole_chain_in_one_undo_step_and_sway_swings_the_hair() {
    let mut h = harness_sized(1280.0, 800.0);
    open(&mut h, common::asset("Godette_vrm_v4.vrm"));
    h.get_by_label("Springs").click();
    h.run_steps(2);
    for tab in ["Face", "Springs"] {
        let r = h.get_by_label(tab).rect();
        assert!(r.right() <= 1280.0 && r.width() > 20.0, "{tab}: {r:?}");
    }
    h.get_by_label_contains("group 0: FrontHair").click();
    h.run_steps(2);
    let slider = h
        .get_by_role_and_label(Role::Slider, "Stiffness (group 0)")
        .rect();
    let y = slider.center().y;
    h.drag_at(egui::pos2(slider.left() + 2.0, y));
    h.run_steps(1);
    for f in [0.3, 0.6, 0.9] {
        h.hover_at(egui::pos2(slider.left() + slider.width() * f, y));
        h.run_steps(1);
    }
    h.drop_at(egui::pos2(slider.right() + 4.0, y));
    h.run_steps(2);
    let e = h.state().editor();
    let overrides = &e.tuning().layers.springs.joints;
    assert_eq!(overrides.len(), 8, "{overrides:?}");
    assert!(
        overrides.values().all(|s| s.stiffness == 4.0),
        "{overrides:?}"
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    let left = &h.state().editor().tuning().layers.springs.joints;
    assert!(left.is_empty(), "{left:?}");

    let hair = {
        let c = &h.state().editor().doc().model.character;
        c.skeleton.find_by_name("HairBall_Center").unwrap()
    };
    let rest = h.state().editor().doc().model.character.skeleton.rest()[hair].rotation;
    h.get_by_label("Sway").click();
    let mut swung = 0.0f32;
    for _ in 0..30 {
        h.run_steps(1);
        let r = h.state().editor().pose().local[hair].rotation;
        swung = swung.max(r.angle_between(rest));
    }
    assert!(h.state().editor().session().shake);
    assert!(swung > 0.02, "the hair swung {swung} rad");
}

/// A VRM 0.x group without a comment shows its first joint beside its number, and a value typed past the end of
/// a spring slider's bar is kept (the bar spans the usual values, as Blender's soft limits): Gravity 3 stays 3.
#[test]
fn a_gravity_typed_past_the_bar_is_kept() {
    let mut h = harness_sized(1280.0, 800.0);
    open(&mut h, common::asset("Godette_vrm_v4.vrm"));
    h.get_by_label("Springs").click();
    h.run_steps(2);
    h.get_by_label_contains("group 2: HairBall").click();
    h.run_steps(2);
    let bar = h
        .get_by_role_and_label(Role::Slider, "Gravity (group 2)")
        .rect();
    let field = h
        .get_all_by_role(Role::SpinButton)
        .filter(|n| {
            let r = n.rect();
            (r.center().y - bar.center().y).abs() < 4.0 && r.left() > bar.right()
        })
        .map(|n| n.rect())
        .next()
        .expect("the number beside the bar");
    let at = field.center();
    h.hover_at(at);
    h.run_steps(1);
    h.drag_at(at);
    h.run_steps(1);
    h.drop_at(at);
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.event(egui::Event::Text("3".into()));
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    let e = h.state().editor();
    let joints = &e.tuning().layers.springs.joints;
    assert!(!joints.is_empty(), "the whole chain was set");
    assert!(
        joints.values().all(|s| s.gravity_power == 3.0),
        "{joints:?}"
    );
}

/// The Springs tab at 900×600 and at UI scale 2: its controls stay inside the window (the tab bar wraps; the
/// chains' sliders scroll rather than widen the panel).
#[test]
fn the_springs_tab_fits_at_900x600_and_at_scale_2() {
    for (w, h_, zoom) in [(900.0, 600.0, 1.0), (1280.0, 800.0, 2.0)] {
        let mut h = harness_sized(w, h_);
        h.ctx.set_zoom_factor(zoom);
        open(&mut h, common::asset("Godette_vrm_v4.vrm"));
        h.get_by_label("Springs").click();
        h.run_steps(2);
        h.get_by_label_contains("group 0: ").click();
        h.run_steps(2);
        let (width, height) = (w / zoom, h_ / zoom);
        for label in ["Springs", "Sway", "Reset", "Simulate springs"] {
            let r = h.get_by_label(label).rect();
            assert!(
                r.right() <= width && r.bottom() <= height && r.width() > 10.0,
                "{label} at {w}x{h_} scale {zoom}: {r:?}"
            );
        }
        let slider = h
            .get_by_role_and_label(Role::Slider, "Stiffness (group 0)")
            .rect();
        assert!(slider.left() < width && slider.width() > 40.0, "{slider:?}");
    }
}

/// Blend tab → Compute positions → Velocity XZ places each node at its clip's root velocity (a node moved away
/// comes back near its walk's speed), in one undo step.
#[test]
fn compute_positions_places_the_nodes_by_root_velocity_in_one_undo_step() {
    // Tall enough for the settings below the canvas to show without scrolling.
    let mut h = harness_sized(1280.0, 1200.0);
    h.run_steps(2);
    let moved = [1.5, -1.5];
    h.state_mut().send(Command::EditBlend(
        animtune::app::command::BlendEdit::MoveNode(1, moved),
    ));
    h.run_steps(2);
    let node =
        |h: &Harness<'static, AnimtuneApp>| h.state().editor().tuning().blend.nodes[1].position;
    assert_eq!(node(&h), moved);
    h.get_by_label("Compute positions").click();
    h.run_steps(2);
    h.get_by_label("Velocity XZ").click();
    settle_analyses(&mut h);
    let placed = node(&h);
    assert!(placed != moved && placed[1] > 0.3, "{placed:?}");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(node(&h), moved);
}

/// Compute positions runs off the UI thread: an edit of the document in the frame it was asked in stops it, the
/// status bar says so, and its result never lands over the edit (one undo step: the edit's).
#[test]
fn an_edit_while_compute_positions_runs_stops_it() {
    use animtune::analysis::positions::ComputePositions;
    use animtune::app::command::{Analysis, BlendEdit};
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    let moved = [0.7, 0.2];
    h.state_mut()
        .send(Command::Analyze(Analysis::ComputePositions(
            ComputePositions::VelocityXz,
        )));
    h.state_mut()
        .send(Command::EditBlend(BlendEdit::MoveNode(1, moved)));
    settle_analyses(&mut h);
    let status = h.state().editor().status().text.clone();
    assert!(
        status.contains("Compute positions (Velocity XZ) stopped: the document changed"),
        "{status}"
    );
    assert_eq!(h.state().editor().tuning().blend.nodes[1].position, moved);
    h.run_steps(10);
    assert_eq!(
        h.state().editor().tuning().blend.nodes[1].position,
        moved,
        "the stopped result does not land later"
    );
}

/// A 1D space's canvas is tall enough to read (it was 95 points at the default width).
#[test]
fn a_one_d_canvas_is_at_least_140_points_tall() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(2);
    let mut space = h.state().editor().tuning().blend.clone();
    space.mode = BlendMode::OneD;
    h.state_mut().send(Command::EditBlend(
        animtune::app::command::BlendEdit::Replace(Box::new(space)),
    ));
    h.run_steps(3);
    let canvas = h.get_by_label(CANVAS_LABEL).rect();
    assert!(canvas.height() >= 140.0, "{canvas:?}");
}

/// The Blend tab's Time and Root settings each keep a row: Root's choices and Compute positions end inside the
/// inspector (they were cut at its edge as "Root in p").
#[test]
fn the_root_motion_choices_are_not_cut_at_the_inspectors_edge() {
    let mut h = harness_sized(1280.0, 800.0);
    h.run_steps(3);
    let right = 1280.0;
    for label in ["in place", "keep", "Compute positions", "foot phase"] {
        let r = h.get_by_label(label).rect();
        assert!(r.right() <= right - 4.0, "{label} ends at {}", r.right());
    }
    assert!(
        h.get_by_label("keep").rect().top() > h.get_by_label("synced").rect().bottom(),
        "Root has a row of its own"
    );
}

/// A twist pair that does nothing says why on a line that wraps inside the inspector (on the pair's row it was
/// cut at the panel's edge). RobotExpressive has no twist joints.
#[test]
fn a_twist_pairs_reason_wraps_inside_the_inspector() {
    let mut h = harness_sized(1280.0, 1600.0);
    h.run_steps(2);
    h.state_mut()
        .send(Command::Open(common::asset("RobotExpressive.glb")));
    h.run_steps(3);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    let reasons: Vec<egui::Rect> = h
        .query_all_by_label_contains("no twist joint between")
        .map(|n| n.rect())
        .collect();
    assert!(!reasons.is_empty(), "no reason shown");
    for r in reasons {
        assert!(r.right() <= 1280.0 - 4.0, "a reason ends at {}", r.right());
    }
}

/// In a 900×600 window the Springs tab's setting rows end inside the inspector: their labels say what the row
/// sets ("Stiffness"), the group or joint being in the heading above (they were cut as "Stiffness (group 0").
#[test]
fn spring_setting_labels_fit_a_900_wide_window() {
    let mut h = harness_sized(900.0, 600.0);
    h.run_steps(2);
    h.state_mut()
        .send(Command::Open(common::asset("Godette_vrm_v4.vrm")));
    h.run_steps(3);
    h.get_by_label("Springs").click();
    h.run_steps(2);
    h.get_by_label_contains("group 0:").click();
    h.run_steps(3);
    for label in ["Stiffness", "Gravity", "Drag", "Radius", "gravity"] {
        let r = h
            .query_all_by_label(label)
            .map(|n| n.rect())
            .next()
            .unwrap_or_else(|| panic!("no {label} row"));
        assert!(r.right() <= 900.0 - 4.0, "{label} ends at {}", r.right());
    }
    // The bars keep their full names for screen readers and tests.
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "Stiffness (group 0)");
}

/// The Blend tab's node rows keep Remove inside the inspector (it leads the row; at the end a narrow panel cut it
/// to "Remo"), and their columns line up from row to row.
#[test]
fn node_rows_keep_remove_in_reach_and_columns_aligned() {
    let mut h = harness_sized(1280.0, 1600.0);
    h.run_steps(3);
    let removes: Vec<egui::Rect> = h.query_all_by_label("Remove").map(|n| n.rect()).collect();
    assert!(removes.len() >= 2, "{removes:?}");
    for r in &removes {
        assert!(r.right() <= 1280.0 - 4.0, "Remove ends at {}", r.right());
        assert_eq!(
            r.left(),
            removes[0].left(),
            "the Remove column is not aligned"
        );
    }
}

/// In a window 900 wide the breath and look-at rows' remove buttons stay inside it: they lead their rows, which a
/// narrow panel cuts at the end (where the live look-at angle also changes width). Tall, so every row shows.
#[test]
fn breath_and_look_at_rows_keep_their_remove_buttons_in_view_at_900_wide() {
    let mut h = harness_sized(900.0, 2400.0);
    h.run_steps(2);
    h.get_by_label("Layers").click();
    h.run_steps(2);
    let mut layers = h.state().editor().tuning().layers.clone();
    layers.breath.enabled = true;
    layers.look_at.enabled = true;
    h.state_mut().send(Command::SetLayers(Box::new(layers)));
    h.run_steps(3);
    let removes: Vec<egui::Rect> = h
        .get_all_by_role(Role::Button)
        .filter(|n| n.accesskit_node().label().as_deref() == Some("x"))
        .map(|n| n.rect())
        .collect();
    assert!(removes.len() >= 3, "remove buttons shown: {removes:?}");
    for r in removes {
        assert!(r.right() <= 900.0, "a remove button ends at {r:?}");
    }
}

/// At 900×600, and at 900×600 with UI scale 2, the transport stays one row inside the window: what does not fit
/// is in its More menu (before, Loop, speed and Curves sat past the row's edge, out of reach).
#[test]
fn the_transport_fits_a_narrow_window_with_a_more_menu() {
    use animtune::app::panels::timeline::MORE_LABEL;
    for zoom in [1.0, 2.0] {
        let (w, h_) = (900.0, 600.0);
        let mut h = harness_sized(w, h_);
        h.ctx.set_zoom_factor(zoom);
        h.run_steps(3);
        let width = w / zoom;
        let play = h.get_by_role_and_label(Role::Button, "Pause").rect();
        let inside = |h: &Harness<'static, AnimtuneApp>, role: Role, label: &str| {
            let r = h.get_by_role_and_label(role, label).rect();
            assert!(
                r.right() <= width && r.width() > 5.0,
                "{label} at scale {zoom}: {r:?} (window {width} points)"
            );
            assert!(
                (r.center().y - play.center().y).abs() < 0.5 * play.height(),
                "{label} in the row: {r:?}, Pause at {play:?}"
            );
        };
        inside(&h, Role::Button, "Stop");
        inside(&h, Role::Button, ">|");
        if zoom == 1.0 {
            inside(&h, Role::CheckBox, "Loop");
            inside(&h, Role::Button, "Curves");
        } else {
            inside(&h, Role::Button, MORE_LABEL);
            assert!(h.query_by_label("Loop").is_none(), "Loop is in the menu");
            let walk = crate::ui::clip_index(&h, "WalkForward");
            h.state_mut()
                .send(animtune::app::command::Command::PlayClip(Some(walk)));
            h.run_steps(2);
            assert!(h.state().editor().eval().clock().is_looping());
            h.get_by_role_and_label(Role::Button, MORE_LABEL).click();
            h.run_steps(2);
            h.get_by_role_and_label(Role::CheckBox, "Loop").click();
            h.run_steps(2);
            assert!(
                !h.state().editor().eval().clock().is_looping(),
                "Loop from the More menu turns looping off"
            );
        }
    }
}

/// A status line too long for the window is cut, and a click on it opens the recent messages whole and
/// selectable, newest first (before, the rest could only be read while hovering).
#[test]
fn a_click_on_the_status_line_shows_the_recent_messages_whole() {
    use animtune::app::panels::status_bar::MESSAGE_LOG;
    let mut h = harness_sized(900.0, 600.0);
    h.run_steps(2);
    h.state_mut().send(animtune::app::command::Command::Open(
        "/no/such/first.glb".into(),
    ));
    h.run_steps(2);
    let long = format!("/no/such/{}/model.glb", "very-long-folder-name".repeat(12));
    h.state_mut()
        .send(animtune::app::command::Command::Open(long.clone().into()));
    h.run_steps(2);
    let text = h.state().editor().status().text.clone();
    assert!(text.contains(&long), "{text}");
    assert!(h.query_by_label(MESSAGE_LOG).is_none());
    h.get_by_label(&text).click();
    h.run_steps(2);
    h.get_by_label(MESSAGE_LOG);
    let shown = h.query_all_by_label(&text).count();
    assert!(
        shown >= 2,
        "the log shows the last message whole ({shown} labels)"
    );
    assert!(
        h.query_by_label_contains("first.glb").is_some(),
        "and the one before it"
    );
}

/// At 900×600 with UI scale 2 the View menu is taller than the window: it scrolls, so its last rows (onion skin)
/// can be brought onto the screen with the wheel and used, instead of running off the bottom edge.
#[test]
fn the_view_menu_scrolls_in_a_short_window() {
    let mut h = harness_sized(900.0, 600.0);
    h.ctx.set_zoom_factor(2.0);
    h.run_steps(3);
    let bottom = 600.0 / 2.0;
    h.get_by_role_and_label(Role::Button, "View").click();
    h.run_steps(3);
    let onion = |h: &Harness<'static, AnimtuneApp>| {
        h.get_by_role_and_label(Role::CheckBox, "Onion skin").rect()
    };
    assert!(
        onion(&h).bottom() > bottom,
        "the menu fits: {:?}",
        onion(&h)
    );
    h.hover_at(
        h.get_by_role_and_label(Role::CheckBox, "Grid")
            .rect()
            .center(),
    );
    crate::ui::wheel(&mut h, -3000.0);
    h.run_steps(6);
    let shown = onion(&h);
    assert!(
        shown.bottom() <= bottom && shown.top() >= 0.0,
        "Onion skin still off the screen after scrolling: {shown:?}"
    );
    h.get_by_role_and_label(Role::CheckBox, "Onion skin")
        .click();
    h.run_steps(3);
    assert!(h.state().editor().session().onion.enabled);
}
