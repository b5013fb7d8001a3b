//! Materials and textures: images decoded to RGBA8 (counted per thread, so a test can see that a path decodes
//! none), base colour factors and textures.

use std::path::Path;

use ::gltf as gl;

use crate::core::mesh::{Material, Texture};
use crate::import::uri;

thread_local! {
    static IMAGE_DECODES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has decoded a file's images into pixels: how a test sees that a path (an export's
/// verification) decodes none.
pub fn image_decodes_on_this_thread() -> u64 {
    IMAGE_DECODES.with(std::cell::Cell::get)
}

pub(super) fn read_textures(
    document: &gl::Document,
    base: Option<&Path>,
    buffers: &[gl::buffer::Data],
    notes: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> (Vec<Texture>, Vec<Option<usize>>) {
    if document.images().len() == 0 {
        return (Vec::new(), Vec::new());
    }
    if document.images().len() > 0 {
        IMAGE_DECODES.with(|c| c.set(c.get() + 1));
    }
    if let Err(why) = check_image_sizes(document, base, buffers) {
        notes.push(format!("textures not loaded: {why}"));
        return (Vec::new(), vec![None; document.textures().len()]);
    }
    let mut textures = Vec::new();
    let mut image_slot = Vec::new();
    for (i, image) in document.images().enumerate() {
        // Each image on its own: one missing or broken file leaves its textures off, not the whole model.
        let img = match gl::image::Data::from_source(image.source(), base, buffers) {
            Ok(img) => img,
            Err(e) => {
                let what = match image.source() {
                    gl::image::Source::Uri { uri, .. } if !uri::is_data_uri(uri) => {
                        let missing =
                            base.is_some_and(|b| uri::resolve(b, uri).is_ok_and(|f| !f.exists()));
                        if missing {
                            format!("image '{uri}' is missing")
                        } else {
                            format!("image '{uri}' cannot be read ({e})")
                        }
                    }
                    _ => format!("image {i} cannot be read ({e})"),
                };
                let warning = format!("{what}: drawn untextured");
                notes.push(warning.clone());
                warnings.push(warning);
                image_slot.push(None);
                continue;
            }
        };
        match to_rgba8(&img) {
            Some(rgba) => {
                image_slot.push(Some(textures.len()));
                textures.push(Texture {
                    width: img.width,
                    height: img.height,
                    rgba,
                });
            }
            None => {
                notes.push(format!(
                    "image {i}: pixel format {:?} not supported, drawn untextured",
                    img.format
                ));
                image_slot.push(None);
            }
        }
    }
    let per_texture = document
        .textures()
        .map(|t| image_slot.get(t.source().index()).copied().flatten())
        .collect();
    (textures, per_texture)
}

/// The most pixels one image may decode to (4096 x 4096, 64 MiB as RGBA).
const MAX_IMAGE_PIXELS: u64 = 4096 * 4096;
/// The most pixels all of a model's images may decode to together (256 MiB as RGBA).
const MAX_TOTAL_IMAGE_PIXELS: u64 = 4 * MAX_IMAGE_PIXELS;

/// Reads each image's dimensions from its header (nothing is decoded) and refuses images that would decode to
/// more pixels than the budgets: a 60 KB 1-bit PNG can declare 22000 x 22000.
fn check_image_sizes(
    document: &gl::Document,
    base: Option<&Path>,
    buffers: &[gl::buffer::Data],
) -> Result<(), String> {
    use std::io::Cursor;
    let mut total = 0u64;
    for img in document.images() {
        let bytes: Vec<u8> = match img.source() {
            gl::image::Source::View { view, .. } => {
                let data = buffers
                    .get(view.buffer().index())
                    .map_or(&[][..], |b| &b.0[..]);
                let end = (view.offset() + view.length()).min(data.len());
                data[view.offset().min(end)..end].to_vec()
            }
            gl::image::Source::Uri { uri, .. } => {
                if let Some(rest) = uri.strip_prefix("data:") {
                    let payload = rest.split_once(";base64,").map_or("", |(_, p)| p);
                    base64::decode(payload).unwrap_or_default()
                } else {
                    let Some(dir) = base else { continue };
                    let Ok(path) = crate::import::uri::resolve(dir, uri) else {
                        continue;
                    };
                    let mut head = Vec::new();
                    if let Ok(f) = std::fs::File::open(&path) {
                        use std::io::Read;
                        let _ = f.take(1 << 20).read_to_end(&mut head);
                    }
                    head
                }
            }
        };
        let Ok((w, h)) = image::ImageReader::new(Cursor::new(&bytes))
            .with_guessed_format()
            .map_err(|_| ())
            .and_then(|r| r.into_dimensions().map_err(|_| ()))
        else {
            continue;
        };
        let pixels = u64::from(w) * u64::from(h);
        if pixels > MAX_IMAGE_PIXELS {
            return Err(format!(
                "image {} is {w}x{h}, over the {MAX_IMAGE_PIXELS}-pixel limit (4096x4096)",
                img.index()
            ));
        }
        total += pixels;
        if total > MAX_TOTAL_IMAGE_PIXELS {
            return Err(format!(
                "the images add up to more than {MAX_TOTAL_IMAGE_PIXELS} pixels (image {} reaches it)",
                img.index()
            ));
        }
    }
    Ok(())
}

fn to_rgba8(img: &gl::image::Data) -> Option<Vec<u8>> {
    use gl::image::Format as F;
    let px = &img.pixels;
    let out: Vec<u8> = match img.format {
        F::R8 => px.iter().flat_map(|&r| [r, r, r, 255]).collect(),
        F::R8G8 => px
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        F::R8G8B8 => px
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        F::R8G8B8A8 => px.clone(),
        F::R16G16B16 => px
            .chunks_exact(6)
            .flat_map(|c| [c[1], c[3], c[5], 255])
            .collect(),
        F::R16G16B16A16 => px
            .chunks_exact(8)
            .flat_map(|c| [c[1], c[3], c[5], c[7]])
            .collect(),
        _ => return None,
    };
    (out.len() == img.width as usize * img.height as usize * 4).then_some(out)
}

/// The document's materials, their base colour textures resolved through `image_of_texture`.
pub(super) fn read_materials(
    document: &gl::Document,
    image_of_texture: &[Option<usize>],
) -> Vec<Material> {
    document
        .materials()
        .map(|m| {
            let pbr = m.pbr_metallic_roughness();
            Material {
                name: m.name().unwrap_or_default().to_string(),
                base_color: pbr.base_color_factor(),
                base_color_texture: pbr.base_color_texture().and_then(|info| {
                    image_of_texture
                        .get(info.texture().index())
                        .copied()
                        .flatten()
                }),
                double_sided: m.double_sided(),
            }
        })
        .collect()
}
