//! Fitting a character to a graphics device's limits before anything is uploaded: textures larger than the
//! device allows are downscaled, geometry that cannot fit in one buffer is refused with a clear error.
//!
//! Pure and headless: the renderer passes the limits its device reports, and the fuzzers call it without one.

use thiserror::Error;

use super::Character;
use super::mesh::Texture;

/// Bytes of one vertex as the renderer uploads it (position, normal, uv, four joints, four weights).
pub const GPU_VERTEX_BYTES: u64 = 64;
/// Bytes of one joint matrix in a skinning palette.
pub const GPU_JOINT_BYTES: u64 = 64;

/// The device limits that decide whether a character fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuLimits {
    /// Longest side of a 2D texture, pixels.
    pub max_texture_side: u32,
    /// Largest buffer, bytes.
    pub max_buffer_bytes: u64,
    /// Largest joint palette of one skin, bytes: the storage binding limit, or the texture rows × 64 bytes where
    /// the palette is a texture.
    pub max_palette_bytes: u64,
}

impl GpuLimits {
    /// WebGPU's guaranteed defaults (every adapter offers at least these): 8192-pixel textures, 256 MiB buffers,
    /// 128 MiB storage bindings.
    pub const WEBGPU_DEFAULTS: GpuLimits = GpuLimits {
        max_texture_side: 8192,
        max_buffer_bytes: 256 << 20,
        max_palette_bytes: 128 << 20,
    };
}

/// Geometry the device cannot hold.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum GpuLimitError {
    /// A primitive's vertex or index buffer is larger than the device's largest buffer.
    #[error(
        "mesh '{mesh}' primitive {primitive}: its {what} buffer needs {bytes} bytes, over the graphics device's buffer limit of {limit} bytes"
    )]
    Buffer {
        /// Mesh name.
        mesh: String,
        /// Primitive index in the mesh.
        primitive: usize,
        /// "vertex" or "index".
        what: &'static str,
        /// Bytes needed.
        bytes: u64,
        /// The device's limit.
        limit: u64,
    },
    /// A skin's joint palette is larger than the device allows.
    #[error(
        "skin '{skin}': {joints} joints need a {bytes}-byte palette, over the graphics device's joint palette limit of {limit} bytes"
    )]
    Palette {
        /// Skin name.
        skin: String,
        /// Joint count.
        joints: usize,
        /// Bytes needed.
        bytes: u64,
        /// The device's limit.
        limit: u64,
    },
}

/// What a character needs changed to fit a device.
#[derive(Debug, Default)]
pub struct GpuFit {
    /// Per texture of the character: its downscaled replacement, or `None` when it fits as it is.
    pub textures: Vec<Option<Texture>>,
    /// One line per downscaled texture, for the status bar or stderr.
    pub notes: Vec<String>,
}

/// Checks a character against `limits`: refuses geometry over the buffer limits and downscales oversized
/// textures (keeping their aspect) to the largest side the device takes.
pub fn fit_character(character: &Character, limits: &GpuLimits) -> Result<GpuFit, GpuLimitError> {
    for mesh in &character.meshes {
        for (primitive, p) in mesh.primitives.iter().enumerate() {
            let buffers = [
                ("vertex", p.positions.len() as u64 * GPU_VERTEX_BYTES),
                ("index", p.indices.len() as u64 * 4),
            ];
            for (what, bytes) in buffers {
                if bytes > limits.max_buffer_bytes {
                    return Err(GpuLimitError::Buffer {
                        mesh: mesh.name.clone(),
                        primitive,
                        what,
                        bytes,
                        limit: limits.max_buffer_bytes,
                    });
                }
            }
        }
    }
    for skin in &character.skins {
        let bytes = skin.joints.len() as u64 * GPU_JOINT_BYTES;
        if bytes > limits.max_palette_bytes.min(limits.max_buffer_bytes) {
            return Err(GpuLimitError::Palette {
                skin: skin.name.clone(),
                joints: skin.joints.len(),
                bytes,
                limit: limits.max_palette_bytes,
            });
        }
    }
    let side = limits.max_texture_side.max(1);
    let mut fit = GpuFit::default();
    for (i, t) in character.textures.iter().enumerate() {
        if t.width <= side && t.height <= side {
            fit.textures.push(None);
            continue;
        }
        let smaller = downscale(t, side);
        fit.notes.push(format!(
            "texture {i} is {}x{}, over the graphics device's {side}-pixel limit: shown at {}x{}",
            t.width, t.height, smaller.width, smaller.height
        ));
        fit.textures.push(Some(smaller));
    }
    Ok(fit)
}

/// The texture resized (triangle filter) so that its longer side is `side`, aspect kept, at least 1 pixel.
fn downscale(t: &Texture, side: u32) -> Texture {
    let scale = f64::from(side) / f64::from(t.width.max(t.height));
    let w = ((f64::from(t.width) * scale).round() as u32).clamp(1, side);
    let h = ((f64::from(t.height) * scale).round() as u32).clamp(1, side);
    let resized = image::RgbaImage::from_raw(t.width, t.height, t.rgba.clone()).map(|img| {
        image::imageops::resize(&img, w, h, image::imageops::FilterType::Triangle).into_raw()
    });
    Texture {
        width: w,
        height: h,
        // A texture whose bytes do not match its size cannot come from the importer; show it white.
        rgba: resized.unwrap_or_else(|| vec![255; (w * h * 4) as usize]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::mesh::{Mesh, MeshPlacement, Primitive, Skin};

    fn character_with(textures: Vec<Texture>, vertices: usize) -> Character {
        let mut c = crate::demo::mannequin::load().character;
        c.textures = textures;
        c.meshes = vec![Mesh {
            name: "big".into(),
            placement: MeshPlacement::Model {
                transform: glam::Mat4::IDENTITY,
            },
            primitives: vec![Primitive {
                positions: vec![[0.0; 3]; vertices],
                normals: vec![[0.0; 3]; vertices],
                uvs: None,
                joints: None,
                weights: None,
                indices: vec![0; 3],
                material: None,
                targets: Vec::new(),
            }],
            morph: None,
        }];
        c
    }

    #[test]
    fn a_wide_texture_is_downscaled_to_the_side_limit_keeping_its_aspect() {
        let wide = Texture {
            width: 32768,
            height: 2,
            rgba: [200u8, 100, 50, 255].repeat(32768 * 2),
        };
        let fit =
            fit_character(&character_with(vec![wide], 3), &GpuLimits::WEBGPU_DEFAULTS).unwrap();
        let t = fit.textures[0].as_ref().unwrap();
        assert_eq!((t.width, t.height), (8192, 1));
        assert_eq!(t.rgba.len(), 8192 * 4);
        assert_eq!(&t.rgba[..4], &[200, 100, 50, 255]);
        assert!(fit.notes[0].contains("32768x2"), "{}", fit.notes[0]);
    }

    #[test]
    fn textures_within_the_limit_are_left_alone() {
        let small = Texture {
            width: 4,
            height: 4,
            rgba: vec![1; 64],
        };
        let fit =
            fit_character(&character_with(vec![small], 3), &GpuLimits::WEBGPU_DEFAULTS).unwrap();
        assert!(fit.textures[0].is_none() && fit.notes.is_empty());
    }

    #[test]
    fn a_vertex_buffer_over_the_limit_is_refused_by_name() {
        let limits = GpuLimits {
            max_buffer_bytes: 1000 * GPU_VERTEX_BYTES,
            ..GpuLimits::WEBGPU_DEFAULTS
        };
        assert!(fit_character(&character_with(vec![], 1000), &limits).is_ok());
        let err = fit_character(&character_with(vec![], 1001), &limits).unwrap_err();
        assert!(
            err.to_string().contains("mesh 'big' primitive 0")
                && err.to_string().contains("64064 bytes"),
            "{err}"
        );
    }

    #[test]
    fn a_palette_over_the_storage_limit_is_refused() {
        let mut c = character_with(vec![], 3);
        c.skins = vec![Skin {
            name: "body".into(),
            joints: vec![0; 100],
            inverse_bind: vec![glam::Mat4::IDENTITY; 100],
        }];
        let limits = GpuLimits {
            max_palette_bytes: 99 * GPU_JOINT_BYTES,
            ..GpuLimits::WEBGPU_DEFAULTS
        };
        let err = fit_character(&c, &limits).unwrap_err();
        assert!(err.to_string().contains("skin 'body'"), "{err}");
    }
}
