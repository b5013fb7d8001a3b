//! Morph targets on the GPU: each morphed primitive's displacements in an RGBA32 float texture, and a uniform
//! listing the targets whose weight is not zero (see `shaders/skinned.wgsl`). The vertex shader adds them before
//! skinning, on Vulkan and GL alike (a texture read in the vertex stage needs no storage buffer).

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::core::mesh::Primitive;

/// Most targets one draw applies at once: (target, weight) pairs, two per vec4 of the uniform.
pub const MAX_ACTIVE_TARGETS: usize = 128;

/// Texels per row of a displacement texture (also the WebGL2 minimum of `max_texture_dimension_2d`).
const TEXTURE_WIDTH: u32 = 2048;

/// The uniform of `shaders/skinned.wgsl`'s `Morph`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct MorphUniform {
    /// Targets listed; texture width; vertex count; unused.
    info: [u32; 4],
    /// (target, weight) pairs, two per vec4.
    entries: [[f32; 4]; MAX_ACTIVE_TARGETS / 2],
}

impl MorphUniform {
    /// The uniform for `weights` on a primitive of `vertices` vertices: the targets whose weight is not zero, in
    /// order, at most [`MAX_ACTIVE_TARGETS`] of them.
    pub fn new(weights: &[f32], vertices: usize) -> Self {
        let mut u = MorphUniform {
            info: [0, TEXTURE_WIDTH, vertices as u32, 0],
            entries: [[0.0; 4]; MAX_ACTIVE_TARGETS / 2],
        };
        let active = weights
            .iter()
            .enumerate()
            .filter(|(_, w)| **w != 0.0 && w.is_finite())
            .take(MAX_ACTIVE_TARGETS);
        for (k, (t, &w)) in active.enumerate() {
            let half = 2 * (k % 2);
            u.entries[k / 2][half] = t as f32;
            u.entries[k / 2][half + 1] = w;
            u.info[0] = k as u32 + 1;
        }
        u
    }
}

/// A primitive's morph data on the GPU.
pub struct GpuMorph {
    uniform: wgpu::Buffer,
    /// The bind group of the displacements and the uniform.
    pub bind_group: wgpu::BindGroup,
    vertices: usize,
}

impl GpuMorph {
    /// Writes the uniform for `weights`.
    pub fn write(&self, queue: &wgpu::Queue, weights: &[f32]) {
        let u = MorphUniform::new(weights, self.vertices);
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&u));
    }
}

/// The texture rows a primitive's displacements take, or None when it has no targets.
pub fn texture_rows(p: &Primitive) -> Option<u32> {
    let texels = (p.targets.len() as u64) * (p.positions.len() as u64) * 2;
    (texels > 0).then(|| {
        texels
            .div_ceil(u64::from(TEXTURE_WIDTH))
            .min(u64::from(u32::MAX)) as u32
    })
}

/// The bind group layout of group 3.
pub fn layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("morph"),
        entries: &[
            super::renderer::texture_entry(0, wgpu::ShaderStages::VERTEX, false),
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
        ],
    })
}

/// Uploads `p`'s displacements (a 1×1 texture of zeros for a primitive without targets, so every draw binds
/// the same layout).
pub fn upload(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    layout: &wgpu::BindGroupLayout,
    p: Option<&Primitive>,
) -> GpuMorph {
    let rows = p.and_then(texture_rows).unwrap_or(1);
    let width = if p.and_then(texture_rows).is_some() {
        TEXTURE_WIDTH
    } else {
        1
    };
    let mut texels = vec![[0.0f32; 4]; (width as usize) * (rows as usize)];
    let vertices = p.map_or(0, |p| p.positions.len());
    if let Some(p) = p.filter(|p| !p.targets.is_empty()) {
        for (t, target) in p.targets.iter().enumerate() {
            for v in 0..vertices {
                let i = (t * vertices + v) * 2;
                let [x, y, z] = target.positions[v];
                texels[i] = [x, y, z, 0.0];
                if let Some(n) = &target.normals {
                    let [x, y, z] = n[v];
                    texels[i + 1] = [x, y, z, 0.0];
                }
            }
        }
    }
    let texture = device.create_texture_with_data(
        queue,
        &super::renderer::float_texture("morph displacements", width, rows),
        wgpu::util::TextureDataOrder::LayerMajor,
        bytemuck::cast_slice(&texels),
    );
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("morph weights"),
        contents: bytemuck::bytes_of(&MorphUniform::new(&[], vertices)),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("morph"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: uniform.as_entire_binding(),
            },
        ],
    });
    GpuMorph {
        uniform,
        bind_group,
        vertices,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uniform_lists_only_targets_that_weigh_something() {
        let u = MorphUniform::new(&[0.0, 0.5, 0.0, 1.0, -0.25], 7);
        assert_eq!(u.info, [3, TEXTURE_WIDTH, 7, 0]);
        assert_eq!(u.entries[0], [1.0, 0.5, 3.0, 1.0]);
        assert_eq!(u.entries[1][..2], [4.0, -0.25]);
    }

    #[test]
    fn at_most_the_uniforms_capacity_is_listed() {
        let u = MorphUniform::new(&vec![1.0; 300], 1);
        assert_eq!(u.info[0] as usize, MAX_ACTIVE_TARGETS);
    }
}
