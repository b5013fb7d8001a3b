//! FBX import on the two Mixamo FBX exports in the shared assets: humanoid by Mixamo names, upright and facing +Z
//! in metres, one clip each that matches ufbx's evaluation at its keys, and everything downstream (pose, render,
//! bake to .glb and back). three.js's FBXLoader, an independent reader, is compared in scripts/test.sh.

use crate::common;

use animtune::core::{HumanBone, MappingSource, Pose};
use animtune::import::load_file;

const FILES: [&str; 2] = ["fbx/Samba_Dancing.fbx", "fbx/mixamo.fbx"];

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn mixamo_fbx_files_are_humanoids_by_mixamo_names() {
    for name in FILES {
        let m = load_file(&common::extra_asset(name)).unwrap();
        let c = &m.character;
        let h = &c.humanoid;
        assert!(h.is_humanoid(), "{name}: missing {:?}", h.missing_required);
        assert_eq!(h.source, MappingSource::Names, "{name}");
        let hips = h.joint(HumanBone::Hips).unwrap();
        assert_eq!(c.skeleton.name(hips), "mixamorig:Hips", "{name}");
        // Fingers map Index1-3 as Unity does; Index4 is the tip's end marker, not the distal bone (nor a twist).
        let distal = h.joint(HumanBone::LeftIndexDistal).unwrap();
        assert_eq!(
            c.skeleton.name(distal),
            "mixamorig:LeftHandIndex3",
            "{name}"
        );
        assert!(
            c.twist_chains().is_empty(),
            "{name}: {:?}",
            c.twist_chains()
        );
        assert!(c.skins.len() == 2 && c.meshes.len() == 2, "{name}");
        assert!(
            c.notes.iter().any(|n| n.contains("units of 0.01 m")),
            "{name}: {:?}",
            c.notes
        );
    }
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn the_rest_pose_is_upright_in_metres_and_faces_plus_z() {
    for name in FILES {
        let m = load_file(&common::extra_asset(name)).unwrap();
        let c = &m.character;
        let model = Pose::rest(&c.skeleton).model_matrices(&c.skeleton);
        let at = |b: HumanBone| model[c.humanoid.joint(b).unwrap()].w_axis.truncate();
        let (head, hips, foot) = (
            at(HumanBone::Head),
            at(HumanBone::Hips),
            at(HumanBone::LeftFoot),
        );
        // A human 1.5–2 m tall, in metres, head over hips over feet.
        assert!(head.y > hips.y && hips.y > foot.y, "{name}");
        assert!(
            (1.3..2.1).contains(&(head.y - foot.y + 0.1)),
            "{name}: {head} {foot}"
        );
        // Facing +Z: toes in front of the ankles, the character's left on +X.
        let toes = at(HumanBone::LeftToes);
        assert!(toes.z > foot.z + 0.05, "{name}: toes {toes} foot {foot}");
        assert!(at(HumanBone::LeftUpperLeg).x > 0.0, "{name}");
        // The skinned surface agrees: its bounds span the same height.
        let (min, max) = animtune::render::camera::posed_bounds(c, &model);
        assert!(
            (max.y - min.y - (head.y - foot.y)).abs() < 0.4,
            "{name}: {min} {max}"
        );
    }
}

/// The error against ufbx's own evaluation the importer measured and noted, in cm: (at keys, between keys).
fn noted_errors(notes: &[String]) -> (f64, f64) {
    let note = notes
        .iter()
        .find(|n| n.contains("against ufbx's evaluation"))
        .unwrap_or_else(|| panic!("no error note in {notes:?}"));
    let numbers: Vec<f64> = note
        .split("within ")
        .nth(1)
        .unwrap()
        .split(" cm")
        .take(2)
        .map(|s| s.rsplit(' ').next().unwrap().trim().parse().unwrap())
        .collect();
    (numbers[0], numbers[1])
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn each_stack_that_moves_is_a_clip_matching_ufbx_at_its_keys() {
    for (name, duration) in [(FILES[0], 19.8), (FILES[1], 16.833)] {
        let m = load_file(&common::extra_asset(name)).unwrap();
        // "Take 001" moves nothing and is left out with a note.
        assert_eq!(m.clips.len(), 1, "{name}");
        let clip = &m.clips[0];
        assert_eq!(clip.name, "mixamo.com");
        assert!(
            (clip.duration - duration).abs() < 0.01,
            "{name}: {}",
            clip.duration
        );
        assert!(clip.tracks.len() >= 50, "{name}");
        let notes = &m.character.notes;
        assert!(
            notes
                .iter()
                .any(|n| n.contains("'Take 001': moves no joint"))
        );
        let (at_keys, between) = noted_errors(notes);
        assert!(at_keys < 0.001, "{name}: {at_keys} cm at the keys");
        assert!(between < 5.0, "{name}: {between} cm between keys");
    }
}

#[test]
fn a_tiny_ascii_fbx_imports_with_its_skin_and_curve() {
    let m = animtune::import::fbx::load_bytes_with(
        animtune::fuzzing::TINY_FBX.as_bytes(),
        "tiny",
        None,
        std::path::Path::new("tiny.fbx"),
        &animtune::import::Limits::default(),
    )
    .unwrap();
    let c = &m.character;
    assert_eq!(c.skeleton.len(), 2);
    assert_eq!(c.skins[0].joints.len(), 2);
    assert_eq!(m.clips.len(), 1);
    // The spine turns 90° about Z over one second: halfway, 45°.
    let clip = &m.clips[0];
    assert!((clip.duration - 1.0).abs() < 1e-4);
    let binding = clip.bind(&c.skeleton, None);
    let mut pose = Pose::rest(&c.skeleton);
    clip.sample_into(&binding, 0.5, animtune::core::Wrap::Clamp, &mut pose);
    let spine = c.skeleton.find_by_name("Spine").unwrap();
    let angle = pose.local[spine]
        .rotation
        .angle_between(glam::Quat::IDENTITY);
    assert!(
        (angle.to_degrees() - 45.0).abs() < 0.5,
        "{}",
        angle.to_degrees()
    );
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn truncated_and_corrupt_fbx_are_clear_errors() {
    let bytes = std::fs::read(common::extra_asset(FILES[1])).unwrap();
    let dir = common::temp_dir("fbx-bad");
    for (label, data) in [
        ("truncated", bytes[..bytes.len() / 3].to_vec()),
        ("header only", bytes[..40].to_vec()),
        ("flipped", {
            let mut b = bytes.clone();
            for i in (2000..b.len()).step_by(997) {
                b[i] ^= 0x5a;
            }
            b
        }),
    ] {
        let path = dir.join(format!("{}.fbx", label.replace(' ', "_")));
        std::fs::write(&path, &data).unwrap();
        match load_file(&path) {
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.starts_with(&path.display().to_string()),
                    "{label}: {text}"
                );
                // A file cut short says so, not what the reader tripped on next (B17: "Bad DEFLATE data").
                if label != "flipped" {
                    assert!(text.contains("the file is cut short"), "{label}: {text}");
                }
            }
            // A flipped byte inside a value may still read: then it must be usable.
            Ok(m) => assert!(!m.character.skeleton.is_empty(), "{label}"),
        }
    }
}

#[test]
#[ignore = "extended: needs ANIMTUNE_EXTRA_ASSETS"]
fn the_cli_inspects_poses_renders_and_bakes_an_fbx() {
    let file = common::extra_asset(FILES[0]);
    let file = file.to_str().unwrap();
    let json = common::json_of(&common::animtune(&["inspect", file, "--json"]));
    assert_eq!(json["humanoid"]["is_humanoid"], true, "{json}");
    let pose = common::json_of(&common::animtune(&[
        "pose", file, "--clip", "0", "--time", "2.0", "--json",
    ]));
    assert_eq!(pose["clip"], "mixamo.com");
    let dir = common::temp_dir("fbx-cli");
    let png = dir.join("samba.png");
    let out = common::animtune(&["render", file, "-o", png.to_str().unwrap()]);
    common::assert_success(&out);
    // Upright and whole: the rows and columns holding the character's pixels (Mixamo Beta's red-brown; a row
    // red from edge to edge is the grid's X axis) span more height than width.
    let img = image::open(&png).unwrap().to_rgba8();
    let (w, h) = img.dimensions();
    let red = |x: u32, y: u32| {
        let p = img.get_pixel(x, y);
        p[0] > 90
            && i32::from(p[0]) > i32::from(p[1]) + 40
            && i32::from(p[0]) > i32::from(p[2]) + 40
    };
    let rows: Vec<u32> = (0..h)
        .filter(|&y| {
            let n = (0..w).filter(|&x| red(x, y)).count() as u32;
            n >= 2 && n < w / 3
        })
        .collect();
    let cols: Vec<u32> = (0..w)
        .filter(|&x| rows.iter().filter(|&&y| red(x, y)).count() >= 2)
        .collect();
    let (height, width) = (
        rows.last().unwrap() - rows.first().unwrap(),
        cols.last().unwrap() - cols.first().unwrap(),
    );
    assert!(
        height > width && height > h / 3,
        "{width} x {height} pixels"
    );
    // Bake to glTF, and the .glb reads back with the clip's length.
    let glb = dir.join("samba.glb");
    let out = common::animtune(&[
        "bake",
        file,
        "--format",
        "gltf",
        "--duration",
        "2",
        "-o",
        glb.to_str().unwrap(),
    ]);
    common::assert_success(&out);
    let back = load_file(&glb).unwrap();
    assert!((back.clips[0].duration - 2.0).abs() < 0.05);
    assert!(back.character.humanoid.is_humanoid());
}

#[test]
fn a_base_colour_texture_beside_the_fbx_is_read_and_one_outside_its_folder_is_not() {
    let dir = common::temp_dir("fbx-texture");
    let mut png = image::RgbaImage::new(2, 2);
    for p in png.pixels_mut() {
        *p = image::Rgba([10, 200, 30, 255]);
    }
    png.save(dir.join("base.png")).unwrap();
    let material = r#"
	Material: 6000, "Material::Skin", "" {
		Version: 102
		ShadingModel: "phong"
		Properties70:  {
			P: "DiffuseColor", "Color", "", "A",1,0.5,0.25
		}
	}
	Texture: 7000, "Texture::Base", "" {
		Type: "TextureVideoClip"
		Version: 202
		TextureName: "Texture::Base"
		FileName: "FILE"
		RelativeFilename: "FILE"
	}
"#;
    let links = "\tC: \"OO\",6000,2000\n\tC: \"OP\",7000,6000, \"DiffuseColor\"\n}";
    for (file, read) in [("base.png", true), ("../base.png", false)] {
        let text = animtune::fuzzing::TINY_FBX
            .replacen(
                "Objects:  {\n",
                &format!("Objects:  {{\n{}", material.replace("FILE", file)),
                1,
            )
            .trim_end()
            .strip_suffix('}')
            .unwrap()
            .to_string()
            + links;
        let sub = dir.join(if read { "here" } else { "below" });
        std::fs::create_dir_all(&sub).unwrap();
        if read {
            std::fs::copy(dir.join("base.png"), sub.join("base.png")).unwrap();
        }
        let path = sub.join("textured.fbx");
        std::fs::write(&path, text).unwrap();
        let m = load_file(&path).unwrap();
        let c = &m.character;
        assert_eq!(c.materials.len(), 1, "{file}");
        // The diffuse colour, sRGB, becomes a linear base colour.
        let [r, g, _, a] = c.materials[0].base_color;
        assert!(
            (r - 1.0).abs() < 1e-4 && (g - 0.214).abs() < 0.01 && a == 1.0,
            "{:?}",
            c.materials[0]
        );
        if read {
            assert_eq!(c.textures.len(), 1, "{:?}", c.notes);
            assert_eq!(c.textures[0].rgba[..4], [10, 200, 30, 255]);
            assert_eq!(c.materials[0].base_color_texture, Some(0));
        } else {
            assert!(c.textures.is_empty());
            assert!(
                c.notes.iter().any(|n| n.contains("not read")),
                "{:?}",
                c.notes
            );
        }
    }
}
