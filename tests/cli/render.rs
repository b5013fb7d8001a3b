//! Offscreen rendering on lavapipe (or any adapter): pixels, not just "it ran".

use crate::common;

use animtune::core::{Pose, Wrap};
use animtune::import::{ImportedModel, load_file};
use animtune::render::FrameInput;
use animtune::render::camera::{OrbitCamera, posed_bounds};
use animtune::render::offscreen::{DeviceLimits, OffscreenRenderer};
use animtune::render::renderer::PaletteKind;
use glam::Mat4;
use image::RgbaImage;

const W: u32 = 320;
const H: u32 = 240;

fn renderer() -> OffscreenRenderer {
    OffscreenRenderer::new()
        .expect("a graphics adapter (install libvulkan1 mesa-vulkan-drivers for lavapipe)")
}

fn pose_at(m: &ImportedModel, clip: Option<&str>, t: f32) -> Vec<Mat4> {
    let c = &m.character;
    let mut pose = Pose::rest(&c.skeleton);
    if let Some(name) = clip {
        let clip = m.clips.iter().find(|x| x.name == name).unwrap();
        let b = clip.bind(&c.skeleton, None);
        clip.sample_into(&b, t, Wrap::Loop, &mut pose);
    }
    pose.model_matrices(&c.skeleton)
}

fn framed(m: &ImportedModel, model: &[Mat4], yaw: f32) -> OrbitCamera {
    let mut cam = OrbitCamera {
        yaw,
        pitch: 0.0,
        ..OrbitCamera::default()
    };
    let (min, max) = posed_bounds(&m.character, model);
    cam.frame(min, max, W as f32 / H as f32);
    cam
}

fn draw(r: &OffscreenRenderer, m: &ImportedModel, model: &[Mat4], cam: &OrbitCamera) -> RgbaImage {
    draw_with_grid(r, m, model, cam, false)
}

fn draw_with_grid(
    r: &OffscreenRenderer,
    m: &ImportedModel,
    model: &[Mat4],
    cam: &OrbitCamera,
    show_grid: bool,
) -> RgbaImage {
    let frame = FrameInput {
        model,
        camera: cam,
        aspect: W as f32 / H as f32,
        show_skeleton: false,
        show_grid,
        grid_follows: animtune::render::camera::grid_anchor(&m.character, model),
        selected: None,
        hovered: None,
        trail: &[],
        ghosts: &[],
        look_target: None,
        morph_weights: &[],
        companion: None,
    };
    r.render(&m.character, &frame, W, H).unwrap().image
}

/// A frame of `model` with no overlays and no grid.
fn plain_frame<'a>(
    model: &'a [Mat4],
    cam: &'a OrbitCamera,
    morph_weights: &'a [Vec<f32>],
    companion: Option<&'a [Mat4]>,
) -> FrameInput<'a> {
    FrameInput {
        model,
        camera: cam,
        aspect: W as f32 / H as f32,
        show_skeleton: false,
        show_grid: false,
        grid_follows: glam::Vec3::ZERO,
        selected: None,
        hovered: None,
        trail: &[],
        ghosts: &[],
        look_target: None,
        morph_weights,
        companion,
    }
}

fn is_background(p: &image::Rgba<u8>) -> bool {
    let bg = [56i32, 58, 64];
    (0..3).all(|i| (p[i] as i32 - bg[i]).abs() <= 3)
}

/// Bounding box (x0, y0, x1, y1) and count of the pixels that are not background.
fn silhouette(img: &RgbaImage) -> (u32, u32, u32, u32, usize) {
    let (mut x0, mut y0, mut x1, mut y1, mut n) = (u32::MAX, u32::MAX, 0, 0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if !is_background(p) {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
            n += 1;
        }
    }
    (x0, y0, x1, y1, n)
}

#[test]
fn the_mannequin_stands_where_the_camera_puts_it() {
    let r = renderer();
    let m = animtune::demo::mannequin::load();
    let model = pose_at(&m, None, 0.0);
    let front = draw(&r, &m, &model, &framed(&m, &model, 0.0));
    let (x0, y0, x1, y1, n) = silhouette(&front);
    assert!(n > 2000, "only {n} character pixels");
    // Centred horizontally, filling most of the height, feet below head.
    let cx = (x0 + x1) as f32 / 2.0;
    assert!(
        (cx - W as f32 / 2.0).abs() < W as f32 * 0.05,
        "centre x {cx}"
    );
    let height = (y1 - y0) as f32 / H as f32;
    assert!((0.6..=1.0).contains(&height), "height fraction {height}");
    // The torso is at the centre column, and it is lit (not black, not background).
    let torso = front.get_pixel(W / 2, (y0 + (y1 - y0) * 2 / 5).min(H - 1));
    assert!(!is_background(torso) && torso[0] > 90, "{torso:?}");
    // From the side, the T-pose mannequin is much narrower than from the front.
    let side = draw(
        &r,
        &m,
        &model,
        &framed(&m, &model, std::f32::consts::FRAC_PI_2),
    );
    let (sx0, _, sx1, _, _) = silhouette(&side);
    assert!(
        (sx1 - sx0) * 2 < (x1 - x0),
        "side {} vs front {}",
        sx1 - sx0,
        x1 - x0
    );
}

#[test]
fn two_times_of_a_walk_move_the_leg_pixels() {
    let r = renderer();
    let m = load_file(&common::quaternius()).unwrap();
    let a = pose_at(&m, Some("Walk_Loop"), 0.1);
    let b = pose_at(&m, Some("Walk_Loop"), 0.75);
    let cam = framed(&m, &a, std::f32::consts::FRAC_PI_2);
    let (ia, ib) = (draw(&r, &m, &a, &cam), draw(&r, &m, &b, &cam));
    let (_, y0, _, y1, _) = silhouette(&ia);
    let mid = (y0 + y1) / 2;
    let (mut lower, mut upper) = (0, 0);
    for (x, y, p) in ia.enumerate_pixels() {
        if is_background(p) != is_background(ib.get_pixel(x, y)) {
            if y > mid {
                lower += 1;
            } else {
                upper += 1;
            }
        }
    }
    assert!(lower > 300, "{lower} leg pixels changed");
    assert!(
        lower > upper,
        "legs ({lower}) should move more than the upper body ({upper})"
    );
    // The same time renders the same image.
    assert_eq!(ia, draw(&r, &m, &a, &cam));
}

/// A device without vertex storage buffers (WebGL2's limits, as eframe asks of a GL adapter) keeps joint palettes
/// in a texture: the walk renders the same pixels as with the storage buffer.
#[test]
fn a_device_without_storage_buffers_skins_from_a_texture_palette() {
    let storage = renderer();
    let texture = OffscreenRenderer::with_limits(DeviceLimits::WebGl2)
        .expect("a graphics adapter at WebGL2 limits");
    assert_eq!(storage.palette_kind(), PaletteKind::StorageBuffer);
    assert_eq!(texture.palette_kind(), PaletteKind::Texture);
    let m = load_file(&common::quaternius()).unwrap();
    let pose = pose_at(&m, Some("Walk_Loop"), 0.4);
    let cam = framed(&m, &pose, 0.7);
    let (a, b) = (
        draw(&storage, &m, &pose, &cam),
        draw(&texture, &m, &pose, &cam),
    );
    let differing = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| (0..3).any(|i| (p[i] as i32 - q[i] as i32).abs() > 2))
        .count();
    let (_, _, _, _, n) = silhouette(&a);
    assert!(n > 2000, "only {n} character pixels");
    assert!(
        differing * 200 < n,
        "{differing} of {n} character pixels differ between the palette forms"
    );
    // The texture palette is not the rest pose: the walk's legs are where the storage form draws them.
    let rest = draw(&texture, &m, &pose_at(&m, None, 0.0), &cam);
    assert_ne!(rest, b);
}

#[test]
fn a_texture_shows_its_colours() {
    let r = renderer();
    let m = load_file(&common::asset("CesiumMan.glb")).unwrap();
    let model = pose_at(&m, None, 0.0);
    let img = draw(&r, &m, &model, &framed(&m, &model, 0.0));
    // CesiumMan's texture is white with blue and green stripes; its material colour is plain white.
    let blue = img
        .pixels()
        .filter(|p| !is_background(p) && p[2] as i32 > p[0] as i32 + 40)
        .count();
    let green = img
        .pixels()
        .filter(|p| !is_background(p) && p[1] as i32 > p[0] as i32 + 30 && p[1] > p[2])
        .count();
    assert!(blue > 100 && green > 50, "blue {blue}, green {green}");
}

#[test]
fn render_command_writes_a_png_without_a_display() {
    let dir = common::temp_dir("render-cli");
    let out = dir.join("robot.png");
    let robot = common::asset("RobotExpressive.glb");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args([
            "render",
            robot.to_str().unwrap(),
            "--clip",
            "Wave",
            "--time",
            "1",
            "--size",
            "200x150",
            "--camera",
            "20,10",
            "-o",
        ])
        .arg(&out)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    common::assert_success(&status);
    let img = image::open(&out).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (200, 150));
    let (_, _, _, _, n) = silhouette(&img);
    assert!(n > 1000, "{n} non-background pixels");
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(["render", "mannequin", "--size", "0x10", "-o"])
        .arg(dir.join("bad.png"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--size"));
}

/// A model whose hips are scaled by 1e38 (the ground grid sized from its bounds once asked for 1.9 GB and more) is
/// refused quickly at import, naming the file and the joint that rests out of range.
#[test]
fn a_model_scaled_near_the_float_limit_is_refused_without_exhausting_memory() {
    let dir = common::temp_dir("render-huge");
    let mannequin = dir.join("mannequin.glb");
    let out = common::animtune(&["mannequin", "-o", mannequin.to_str().unwrap()]);
    assert!(out.status.success());
    let huge = dir.join("huge.glb");
    common::edit_glb(&mannequin, &huge, |json| {
        json["nodes"][0]["scale"] = serde_json::json!([1e38, 1e38, 1e38])
    });
    let png = dir.join("huge.png");
    let started = std::time::Instant::now();
    let out = common::animtune(&[
        "render",
        huge.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
    ]);
    common::assert_clean_failure(&out, &["huge.glb", "Spine", "from the origin"]);
    assert!(
        started.elapsed().as_secs_f32() < 10.0,
        "took {:?}",
        started.elapsed()
    );
}

/// C8: a character that has travelled 30 m (root motion Keep) still stands on the grid: the grid follows its root
/// in whole cells (it stayed at the origin, 5 m across, and the character walked off it).
#[test]
fn the_ground_grid_follows_a_character_that_travels() {
    let r = renderer();
    let m = animtune::demo::mannequin::load();
    let travelled: Vec<Mat4> = pose_at(&m, None, 0.0)
        .into_iter()
        .map(|j| Mat4::from_translation(glam::Vec3::new(30.0, 0.0, 12.0)) * j)
        .collect();
    let mut cam = framed(&m, &travelled, 0.3);
    cam.pitch = 0.4;
    let bare = draw_with_grid(&r, &m, &travelled, &cam, false);
    let grid = draw_with_grid(&r, &m, &travelled, &cam, true);
    let lines = bare
        .pixels()
        .zip(grid.pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        lines > 500,
        "{lines} grid pixels around the travelled character"
    );
}

/// The top of the drawn character, in pixel rows, where the CPU puts it: every vertex morphed by glTF's rule
/// (base + Σ weight × displacement) and skinned, then projected by the camera.
fn projected_top(
    m: &ImportedModel,
    model: &[Mat4],
    weights: &[Vec<f32>],
    cam: &OrbitCamera,
) -> f32 {
    let view_proj = cam.view_proj(W as f32 / H as f32);
    let c = &m.character;
    let mut top = f32::INFINITY;
    for (mesh, w) in c.meshes.iter().zip(weights) {
        let palette = c.mesh_palette(mesh, model);
        for p in &mesh.primitives {
            for v in 0..p.positions.len() {
                let ndc = view_proj.project_point3(p.posed_morphed_position(v, &palette, w));
                top = top.min((1.0 - ndc.y) * 0.5 * H as f32);
            }
        }
    }
    top
}

/// RobotExpressive's "Surprised" target raises its brows: the GPU draws the morphed head where the CPU projects
/// it, with either joint palette form (Vulkan's storage buffer and GL's texture).
#[test]
fn morph_targets_deform_the_face_where_the_cpu_puts_it() {
    let m = load_file(&common::asset("RobotExpressive.glb")).unwrap();
    let c = &m.character;
    let surprised: Vec<Vec<f32>> = c
        .meshes
        .iter()
        .map(|mesh| {
            mesh.morph.as_ref().map_or_else(Vec::new, |s| {
                s.target_names
                    .iter()
                    .map(|n| f32::from(u8::from(n == "Surprised")))
                    .collect()
            })
        })
        .collect();
    assert_eq!(surprised.iter().filter(|w| w.contains(&1.0)).count(), 3);
    let none: Vec<Vec<f32>> = surprised.iter().map(|w| vec![0.0; w.len()]).collect();
    let model = pose_at(&m, None, 0.0);
    // Framed on the face, morphed: the meshes with targets.
    let (mut min, mut max) = (glam::Vec3::INFINITY, glam::Vec3::NEG_INFINITY);
    for (mesh, w) in c.meshes.iter().zip(&surprised) {
        if mesh.morph.is_none() {
            continue;
        }
        let palette = c.mesh_palette(mesh, &model);
        for p in &mesh.primitives {
            for v in 0..p.positions.len() {
                let at = p.posed_morphed_position(v, &palette, w);
                min = min.min(at);
                max = max.max(at);
            }
        }
    }
    let mut cam = OrbitCamera::default();
    cam.frame(min, max, W as f32 / H as f32);
    for r in [
        renderer(),
        OffscreenRenderer::with_limits(DeviceLimits::WebGl2).unwrap(),
    ] {
        let draw_with = |weights: &[Vec<f32>]| {
            let frame = plain_frame(&model, &cam, weights, None);
            r.render(c, &frame, W, H).unwrap().image
        };
        for weights in [&none, &surprised] {
            let expected = projected_top(&m, &model, weights, &cam).max(0.0);
            let (_, drawn, _, _, n) = silhouette(&draw_with(weights));
            assert!(n > 1000, "{:?}: only {n} pixels", r.palette_kind());
            assert!(
                (drawn as f32 - expected).abs() <= 2.0,
                "{:?}: the top is drawn at row {drawn}, the CPU puts it at {expected:.1}",
                r.palette_kind()
            );
        }
        let rise =
            projected_top(&m, &model, &none, &cam) - projected_top(&m, &model, &surprised, &cam);
        assert!(rise > 10.0, "the brows rise only {rise:.1} px");
    }
}

/// The state machine's comparison draws a second, opaque character where its matrices put it: beside the first,
/// which stays where it was.
#[test]
fn a_companion_character_is_drawn_where_its_matrices_put_it() {
    let r = renderer();
    let m = animtune::demo::mannequin::load();
    let model = pose_at(&m, None, 0.0);
    // Two arm spans aside (the mannequin stands in a T).
    let aside = Mat4::from_translation(glam::Vec3::new(3.2, 0.0, 0.0));
    let beside: Vec<Mat4> = model.iter().map(|j| aside * *j).collect();
    // Framed on both, so that both fit.
    let (a, b) = (
        posed_bounds(&m.character, &model),
        posed_bounds(&m.character, &beside),
    );
    let (min, max) = (a.0.min(b.0), a.1.max(b.1));
    let mut cam = OrbitCamera {
        pitch: 0.0,
        ..OrbitCamera::default()
    };
    cam.frame(min, max, W as f32 / H as f32);
    let frame = |companion| plain_frame(&model, &cam, &[], companion);
    let alone = r.render(&m.character, &frame(None), W, H).unwrap().image;
    let pair = r
        .render(&m.character, &frame(Some(&beside)), W, H)
        .unwrap()
        .image;
    // Columns holding character pixels, as runs: one figure alone, two with the companion, the first unmoved.
    let runs = |img: &RgbaImage| {
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for x in 0..W {
            if (0..H)
                .filter(|&y| !is_background(img.get_pixel(x, y)))
                .count()
                > 2
            {
                match runs.last_mut() {
                    Some(r) if r.1 + 1 == x => r.1 = x,
                    _ => runs.push((x, x)),
                }
            }
        }
        runs
    };
    let (one, two) = (runs(&alone), runs(&pair));
    assert_eq!(one.len(), 1, "{one:?}");
    assert_eq!(two.len(), 2, "{two:?}");
    assert!(two.contains(&one[0]), "the first stays: {one:?} in {two:?}");
    let (n_alone, n_pair) = (silhouette(&alone).4, silhouette(&pair).4);
    assert!(
        (n_pair as f32 / n_alone as f32 - 2.0).abs() < 0.2,
        "an opaque copy of the same size: {n_alone} then {n_pair} pixels"
    );
}
