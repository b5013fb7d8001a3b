//! Pipelines and per-character GPU buffers; records draws into a render pass it is given.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};
use wgpu::util::DeviceExt;

use super::camera::OrbitCamera;
use super::morph::{self, GpuMorph};
use super::overlay::{self, LineVertex};
use crate::core::Character;
use crate::core::gpu_fit::{GPU_VERTEX_BYTES, GpuLimitError, GpuLimits, fit_character};
use crate::core::mesh::MeshPlacement;

/// Most onion-skin ghosts drawn at once.
pub const MAX_GHOSTS: usize = 16;
/// Colour of the ghosts before the current time (translucent warm red, Maya's convention).
const GHOST_BEFORE: [f32; 4] = [1.0, 0.45, 0.35, 0.3];
/// Colour of the ghosts after it (translucent green).
const GHOST_AFTER: [f32; 4] = [0.4, 1.0, 0.5, 0.3];

/// Depth buffer format of every pass the renderer draws into.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Vertex {
    position: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
    joints: [u32; 4],
    weights: [f32; 4],
}

// The GPU fit check sizes vertex buffers with this stride.
const _: () = assert!(std::mem::size_of::<Vertex>() as u64 == GPU_VERTEX_BYTES);

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CameraUniform {
    view_proj: [f32; 16],
    eye: [f32; 4],
    light_dir: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct MaterialUniform {
    base_color: [f32; 4],
    flags: [f32; 4],
}

/// What one frame shows: where the joints are, from where it is seen, and the overlay options.
pub struct FrameInput<'a> {
    /// Model-space matrix of every joint.
    pub model: &'a [Mat4],
    /// The camera.
    pub camera: &'a OrbitCamera,
    /// Width / height of the target.
    pub aspect: f32,
    /// Draw the skeleton on top of the meshes.
    pub show_skeleton: bool,
    /// Draw the ground grid.
    pub show_grid: bool,
    /// The point (model space) the ground grid follows, snapped to its lines: the character's root, so a clip
    /// that travels (root motion Keep) stays on the grid.
    pub grid_follows: Vec3,
    /// Joint to highlight.
    pub selected: Option<usize>,
    /// Joint under the pointer (a lighter highlight).
    pub hovered: Option<usize>,
    /// Root-motion trail to draw on the ground (model space).
    pub trail: &'a [Vec3],
    /// Onion-skin ghost poses (model-space joint matrices), each marked true when after the current time; at
    /// most [`MAX_GHOSTS`] are drawn.
    pub ghosts: &'a [(bool, Vec<Mat4>)],
    /// Where to draw the look-at target marker (model space), when look-at is on.
    pub look_target: Option<glam::Vec3>,
    /// Morph-target weights per mesh of the character (`EvalOutput::morph_weights`; empty for none).
    pub morph_weights: &'a [Vec<f32>],
    /// A second copy of the character drawn opaque in this pose (model-space joint matrices, already placed
    /// beside the first): the state machine's side-by-side comparison. Its morph targets follow the first's.
    pub companion: Option<&'a [Mat4]>,
}

struct DrawItem {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    count: u32,
    mesh: usize,
    material: usize,
    /// Its morph targets, when it has some.
    morph: Option<GpuMorph>,
}

/// Where a mesh's joint palette lives on the GPU.
enum PaletteMemory {
    /// A storage buffer of matrices.
    Buffer(wgpu::Buffer),
    /// An RGBA32 float texture, 4 texels (one a column) by one row a joint.
    Texture(wgpu::Texture),
}

struct MeshSlot {
    palette: PaletteMemory,
    bind_group: wgpu::BindGroup,
}

impl MeshSlot {
    /// Writes `matrices` into the palette.
    fn write(&self, queue: &wgpu::Queue, matrices: &[Mat4]) {
        match &self.palette {
            PaletteMemory::Buffer(buffer) => {
                queue.write_buffer(buffer, 0, bytemuck::cast_slice(matrices))
            }
            PaletteMemory::Texture(texture) => {
                let rows = (matrices.len() as u32).min(texture.height());
                if rows == 0 {
                    return;
                }
                queue.write_texture(
                    texture.as_image_copy(),
                    bytemuck::cast_slice(&matrices[..rows as usize]),
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(PALETTE_ROW_BYTES),
                        rows_per_image: Some(rows),
                    },
                    wgpu::Extent3d {
                        width: 4,
                        height: rows,
                        depth_or_array_layers: 1,
                    },
                );
            }
        }
    }
}

/// How the skinning shader reads joint matrices on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaletteKind {
    /// A storage buffer read in the vertex stage (Vulkan, Metal, DX12, desktop GL 4.3+ when requested).
    StorageBuffer,
    /// A float texture read with `textureLoad`, where the device allows no storage buffer in the vertex stage
    /// (WebGL2-level GL devices, as eframe requests on GL).
    Texture,
}

/// Bytes of one palette row in the texture form: four RGBA32 float texels.
const PALETTE_ROW_BYTES: u32 = 64;

impl PaletteKind {
    /// The form `device` supports: the storage buffer when its vertex stage may bind one, else the texture.
    pub fn for_device(device: &wgpu::Device) -> Self {
        if device.limits().max_storage_buffers_per_shader_stage > 0 {
            PaletteKind::StorageBuffer
        } else {
            PaletteKind::Texture
        }
    }
}

/// A character's buffers on the GPU.
pub struct GpuCharacter {
    items: Vec<DrawItem>,
    meshes: Vec<MeshSlot>,
    /// Per onion-skin ghost, a palette per mesh.
    ghosts: Vec<Vec<MeshSlot>>,
    /// The companion's palette per mesh, and whether it is drawn this frame.
    companion: Vec<MeshSlot>,
    companion_on: bool,
    ghost_count: usize,
    /// Ghost materials: before and after the current time.
    ghost_materials: [wgpu::BindGroup; 2],
    ghost_after: Vec<bool>,
    materials: Vec<wgpu::BindGroup>,
    grid: wgpu::Buffer,
    grid_count: u32,
    /// The grid's half size and line step, and the centre (x, z) its buffer holds.
    grid_half: f32,
    grid_step: f32,
    grid_center: [f32; 2],
    bones: wgpu::Buffer,
    bone_count: u32,
    human: Vec<bool>,
    /// What primitives without morph targets bind as group 3.
    no_morph: GpuMorph,
}

impl GpuCharacter {
    /// The morph bind group `item` draws with.
    fn morph_group<'a>(&'a self, item: &'a DrawItem) -> &'a wgpu::BindGroup {
        &item.morph.as_ref().unwrap_or(&self.no_morph).bind_group
    }
}

/// Pipelines shared by every character drawn into targets of one colour format and sample count.
pub struct Renderer {
    palette_kind: PaletteKind,
    camera_buffer: wgpu::Buffer,
    camera_bind_group: wgpu::BindGroup,
    joints_layout: wgpu::BindGroupLayout,
    material_layout: wgpu::BindGroupLayout,
    morph_layout: wgpu::BindGroupLayout,
    mesh_pipeline: wgpu::RenderPipeline,
    ghost_pipeline: wgpu::RenderPipeline,
    grid_pipeline: wgpu::RenderPipeline,
    bones_pipeline: wgpu::RenderPipeline,
    /// Fills the pass's viewport with the background colour, for a pass the renderer did not clear.
    background_pipeline: wgpu::RenderPipeline,
    white: wgpu::TextureView,
    sampler: wgpu::Sampler,
}

/// The limits of `device` that decide whether a character fits it. With the texture palette a skin may have
/// as many joints as a texture has rows.
pub fn gpu_limits(device: &wgpu::Device) -> GpuLimits {
    let l = device.limits();
    let max_palette_bytes = match PaletteKind::for_device(device) {
        PaletteKind::StorageBuffer => l.max_storage_buffer_binding_size,
        PaletteKind::Texture => {
            u64::from(l.max_texture_dimension_2d) * u64::from(PALETTE_ROW_BYTES)
        }
    };
    GpuLimits {
        max_texture_side: l.max_texture_dimension_2d,
        max_buffer_bytes: l.max_buffer_size,
        max_palette_bytes,
    }
}

/// An RGBA32 float texture of `width` × `height` texels that shaders read with `textureLoad`.
pub(super) fn float_texture(label: &str, width: u32, height: u32) -> wgpu::TextureDescriptor<'_> {
    wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    }
}

/// A bind group layout entry for a 2D float texture.
pub(super) fn texture_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    filterable: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

fn shader(device: &wgpu::Device, label: &str, source: &str) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}

/// A pipeline drawing one triangle over the whole viewport in the background colour as `format` stores it.
fn background_pipeline(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    multisample: wgpu::MultisampleState,
    depth_stencil: Option<wgpu::DepthStencilState>,
) -> wgpu::RenderPipeline {
    let c = super::offscreen::background_for(format);
    let module = shader(
        device,
        "background",
        &format!(
            "@vertex fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {{
    return vec4<f32>(f32(i & 1u) * 4.0 - 1.0, f32(i >> 1u) * 4.0 - 1.0, 1.0, 1.0);
}}
@fragment fn fs_main() -> @location(0) vec4<f32> {{
    return vec4<f32>({:.6}, {:.6}, {:.6}, 1.0);
}}",
            c.r, c.g, c.b
        ),
    );
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("background"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil,
        multisample,
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

fn texture_view(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> wgpu::TextureView {
    let size = wgpu::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("base colour"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture: &texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        rgba,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(4 * width),
            rows_per_image: Some(height),
        },
        size,
    );
    texture.create_view(&wgpu::TextureViewDescriptor::default())
}

impl Renderer {
    /// Builds the pipelines for targets of `format` with `samples` MSAA samples and a [`DEPTH_FORMAT`] depth buffer;
    /// the joint palette takes the form the device supports ([`PaletteKind::for_device`]). Into a target that is
    /// not sRGB the shaders write sRGB-encoded colour themselves, so both kinds of target hold the same bytes.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        samples: u32,
    ) -> Self {
        let uniform_entry = |binding, visibility| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let camera_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("camera"),
            entries: &[uniform_entry(0, wgpu::ShaderStages::VERTEX_FRAGMENT)],
        });
        let palette_kind = PaletteKind::for_device(device);
        let joints_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("joints"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: match palette_kind {
                    PaletteKind::StorageBuffer => wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    PaletteKind::Texture => wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                },
                count: None,
            }],
        });
        let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                uniform_entry(0, wgpu::ShaderStages::FRAGMENT),
                texture_entry(1, wgpu::ShaderStages::FRAGMENT, true),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let morph_layout = morph::layout(device);
        let camera_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("camera"),
            size: std::mem::size_of::<CameraUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let camera_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("camera"),
            layout: &camera_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: camera_buffer.as_entire_binding(),
            }],
        });

        let depth = |write: bool, compare| {
            Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(write),
                depth_compare: Some(compare),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            })
        };
        let multisample = wgpu::MultisampleState {
            count: samples,
            mask: !0,
            alpha_to_coverage_enabled: false,
        };
        let target = [Some(wgpu::ColorTargetState {
            format,
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
            write_mask: wgpu::ColorWrites::ALL,
        })];

        let palette_source = match palette_kind {
            PaletteKind::StorageBuffer => include_str!("../../shaders/palette_storage.wgsl"),
            PaletteKind::Texture => include_str!("../../shaders/palette_texture.wgsl"),
        };
        let output_source = if format.is_srgb() {
            include_str!("../../shaders/output_srgb_target.wgsl")
        } else {
            include_str!("../../shaders/output_unorm_target.wgsl")
        };
        let mesh_shader = shader(
            device,
            "skinned",
            &format!(
                "{palette_source}\n{output_source}\n{}",
                include_str!("../../shaders/skinned.wgsl")
            ),
        );
        let mesh_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skinned"),
            bind_group_layouts: &[
                Some(&camera_layout),
                Some(&joints_layout),
                Some(&material_layout),
                Some(&morph_layout),
            ],
            immediate_size: 0,
        });
        let mesh_pipeline_with = |label, depth_stencil| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
            layout: Some(&mesh_layout),
            vertex: wgpu::VertexState {
                module: &mesh_shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<Vertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Uint32x4, 4 => Float32x4],
                })],
            },
            primitive: wgpu::PrimitiveState {
                cull_mode: None,
                ..Default::default()
            },
            depth_stencil,
            multisample,
            fragment: Some(wgpu::FragmentState {
                module: &mesh_shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &target,
            }),
            multiview_mask: None,
            cache: None,
        })
        };
        let mesh_pipeline = mesh_pipeline_with("skinned", depth(true, wgpu::CompareFunction::Less));
        // Onion-skin ghosts: translucent, tested against the character's depth but not writing it.
        let ghost_pipeline =
            mesh_pipeline_with("ghosts", depth(false, wgpu::CompareFunction::Less));

        let line_shader = shader(
            device,
            "lines",
            &format!(
                "{output_source}\n{}",
                include_str!("../../shaders/lines.wgsl")
            ),
        );
        let line_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lines"),
            bind_group_layouts: &[Some(&camera_layout)],
            immediate_size: 0,
        });
        let line_pipeline = |label, depth_stencil| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&line_layout),
                vertex: wgpu::VertexState {
                    module: &line_shader,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: std::mem::size_of::<LineVertex>() as u64,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4],
                    })],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::LineList,
                    ..Default::default()
                },
                depth_stencil,
                multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &line_shader,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &target,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let grid_pipeline = line_pipeline("grid", depth(true, wgpu::CompareFunction::Less));
        let bones_pipeline = line_pipeline("bones", depth(false, wgpu::CompareFunction::Always));
        let background_pipeline = background_pipeline(
            device,
            format,
            multisample,
            depth(false, wgpu::CompareFunction::Always),
        );

        let white = texture_view(device, queue, 1, 1, &[255, 255, 255, 255]);
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("base colour"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        Renderer {
            palette_kind,
            camera_buffer,
            camera_bind_group,
            joints_layout,
            material_layout,
            morph_layout,
            mesh_pipeline,
            ghost_pipeline,
            grid_pipeline,
            bones_pipeline,
            background_pipeline,
            white,
            sampler,
        }
    }

    /// Uploads a character's meshes, materials and textures, after fitting it to the device's limits: oversized
    /// textures are downscaled (one note each), geometry over a buffer limit is an error.
    pub fn upload(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        character: &Character,
    ) -> Result<(GpuCharacter, Vec<String>), GpuLimitError> {
        let fit = fit_character(character, &gpu_limits(device))?;
        let textures: Vec<wgpu::TextureView> = character
            .textures
            .iter()
            .zip(&fit.textures)
            .map(|(t, smaller)| {
                let t = smaller.as_ref().unwrap_or(t);
                texture_view(device, queue, t.width, t.height, &t.rgba)
            })
            .collect();
        let mut materials: Vec<wgpu::BindGroup> = character
            .materials
            .iter()
            .map(|m| {
                let tex = m.base_color_texture.and_then(|i| textures.get(i));
                self.material_bind_group(device, m.base_color, tex)
            })
            .collect();
        let default_material = materials.len();
        materials.push(self.material_bind_group(device, [0.8, 0.8, 0.8, 1.0], None));

        let mut items = Vec::new();
        let mut notes = fit.notes;
        let max_rows = device.limits().max_texture_dimension_2d;
        let mut meshes = Vec::new();
        let slots = || -> Vec<MeshSlot> {
            character
                .meshes
                .iter()
                .map(|mesh| {
                    let palette_len = match mesh.placement {
                        MeshPlacement::Skinned { skin } => {
                            character.skins[skin].joints.len().max(1)
                        }
                        _ => 1,
                    };
                    self.palette_slot(device, palette_len)
                })
                .collect()
        };
        meshes.extend(slots());
        let ghosts = (0..MAX_GHOSTS).map(|_| slots()).collect();
        let companion = slots();
        for (mi, mesh) in character.meshes.iter().enumerate() {
            let skinned = matches!(mesh.placement, MeshPlacement::Skinned { .. });
            for p in &mesh.primitives {
                if p.indices.is_empty() {
                    continue;
                }
                let vertices: Vec<Vertex> = (0..p.positions.len())
                    .map(|v| Vertex {
                        position: p.positions[v],
                        normal: p.normals[v],
                        uv: p.uvs.as_ref().map_or([0.0; 2], |u| u[v]),
                        joints: match (&p.joints, skinned) {
                            (Some(j), true) => j[v].map(u32::from),
                            _ => [0; 4],
                        },
                        weights: match (&p.weights, skinned) {
                            (Some(w), true) => w[v],
                            _ => [1.0, 0.0, 0.0, 0.0],
                        },
                    })
                    .collect();
                let morph = match morph::texture_rows(p) {
                    Some(rows) if rows <= max_rows => {
                        Some(morph::upload(device, queue, &self.morph_layout, Some(p)))
                    }
                    Some(rows) => {
                        notes.push(format!(
                            "mesh '{}': its morph targets need {rows} texture rows, over the device's \
                             {max_rows}; drawn without them",
                            mesh.name
                        ));
                        None
                    }
                    None => None,
                };
                items.push(DrawItem {
                    morph,
                    vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("vertices"),
                        contents: bytemuck::cast_slice(&vertices),
                        usage: wgpu::BufferUsages::VERTEX,
                    }),
                    indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("indices"),
                        contents: bytemuck::cast_slice(&p.indices),
                        usage: wgpu::BufferUsages::INDEX,
                    }),
                    count: p.indices.len() as u32,
                    mesh: mi,
                    material: p
                        .material
                        .filter(|&m| m < default_material)
                        .unwrap_or(default_material),
                });
            }
        }
        let rest = crate::core::Pose::rest(&character.skeleton).model_matrices(&character.skeleton);
        let (min, max) = super::camera::posed_bounds(character, &rest);
        let (half, step) = overlay::grid_for(min, max);
        let grid_lines = overlay::grid(half, step);
        let grid = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grid"),
            contents: bytemuck::cast_slice(&grid_lines),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        });
        let bones = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bones"),
            size: ((character.skeleton.len().max(1) * 4
                + overlay::MARKER_VERTICES
                + 2 * overlay::JOINT_MARKER_VERTICES
                + 2 * overlay::MAX_TRAIL_POINTS)
                * std::mem::size_of::<LineVertex>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let human = character
            .humanoid
            .bone_per_joint(character.skeleton.len())
            .iter()
            .map(Option::is_some)
            .collect();
        let ghost_materials = [
            self.material_bind_group(device, GHOST_BEFORE, None),
            self.material_bind_group(device, GHOST_AFTER, None),
        ];
        let gpu = GpuCharacter {
            items,
            meshes,
            ghosts,
            companion,
            companion_on: false,
            ghost_count: 0,
            ghost_materials,
            ghost_after: Vec::new(),
            materials,
            grid,
            grid_count: grid_lines.len() as u32,
            grid_half: half,
            grid_step: step,
            grid_center: [0.0, 0.0],
            bones,
            bone_count: 0,
            human,
            no_morph: morph::upload(device, queue, &self.morph_layout, None),
        };
        Ok((gpu, notes))
    }

    /// A palette of `joints` matrices in the device's form, with its bind group.
    fn palette_slot(&self, device: &wgpu::Device, joints: usize) -> MeshSlot {
        let (palette, resource_view);
        match self.palette_kind {
            PaletteKind::StorageBuffer => {
                palette = PaletteMemory::Buffer(device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("joint palette"),
                    size: (joints * 64) as u64,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }));
                resource_view = None;
            }
            PaletteKind::Texture => {
                let texture =
                    device.create_texture(&float_texture("joint palette", 4, joints as u32));
                resource_view = Some(texture.create_view(&wgpu::TextureViewDescriptor::default()));
                palette = PaletteMemory::Texture(texture);
            }
        }
        let resource = match (&palette, &resource_view) {
            (PaletteMemory::Buffer(buffer), _) => buffer.as_entire_binding(),
            (PaletteMemory::Texture(_), Some(view)) => wgpu::BindingResource::TextureView(view),
            (PaletteMemory::Texture(_), None) => unreachable!("a texture palette has its view"),
        };
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("joint palette"),
            layout: &self.joints_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource,
            }],
        });
        MeshSlot {
            palette,
            bind_group,
        }
    }

    /// The form of the joint palette on this renderer's device.
    pub fn palette_kind(&self) -> PaletteKind {
        self.palette_kind
    }

    fn material_bind_group(
        &self,
        device: &wgpu::Device,
        base_color: [f32; 4],
        texture: Option<&wgpu::TextureView>,
    ) -> wgpu::BindGroup {
        let uniform = MaterialUniform {
            base_color,
            flags: [texture.is_some() as u32 as f32, 0.0, 0.0, 0.0],
        };
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("material"),
            contents: bytemuck::bytes_of(&uniform),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("material"),
            layout: &self.material_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(texture.unwrap_or(&self.white)),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        })
    }

    /// Writes the camera, every mesh's joint palette and the skeleton lines for this frame.
    pub fn prepare(
        &self,
        queue: &wgpu::Queue,
        gpu: &mut GpuCharacter,
        character: &Character,
        frame: &FrameInput,
    ) {
        let light = Vec3::new(-0.4, -0.8, -0.45).normalize();
        let eye = frame.camera.eye();
        let uniform = CameraUniform {
            view_proj: frame.camera.view_proj(frame.aspect).to_cols_array(),
            eye: [eye.x, eye.y, eye.z, 1.0],
            light_dir: [light.x, light.y, light.z, 0.0],
        };
        queue.write_buffer(&self.camera_buffer, 0, bytemuck::bytes_of(&uniform));
        let center =
            overlay::grid_center([frame.grid_follows.x, frame.grid_follows.z], gpu.grid_step);
        if center != gpu.grid_center && gpu.grid_count > 0 {
            let lines = overlay::grid_around(center, gpu.grid_half, gpu.grid_step);
            if lines.len() as u32 == gpu.grid_count {
                queue.write_buffer(&gpu.grid, 0, bytemuck::cast_slice(&lines));
                gpu.grid_center = center;
            }
        }
        for (mesh, slot) in character.meshes.iter().zip(&gpu.meshes) {
            slot.write(queue, &character.mesh_palette(mesh, frame.model));
        }
        for item in &gpu.items {
            if let Some(m) = &item.morph {
                m.write(queue, frame.morph_weights.get(item.mesh).map_or(&[], |w| w));
            }
        }
        gpu.companion_on = frame.companion.is_some();
        if let Some(model) = frame.companion {
            for (mesh, slot) in character.meshes.iter().zip(&gpu.companion) {
                slot.write(queue, &character.mesh_palette(mesh, model));
            }
        }
        gpu.ghost_count = frame.ghosts.len().min(gpu.ghosts.len());
        gpu.ghost_after.clear();
        for ((after, model), slots) in frame.ghosts.iter().zip(&gpu.ghosts) {
            gpu.ghost_after.push(*after);
            for (mesh, slot) in character.meshes.iter().zip(slots) {
                slot.write(queue, &character.mesh_palette(mesh, model));
            }
        }
        let mut lines = if frame.show_skeleton {
            overlay::skeleton_lines(&character.skeleton, frame.model, &gpu.human, frame.selected)
        } else {
            Vec::new()
        };
        if let Some(t) = frame.look_target.filter(|t| t.is_finite()) {
            lines.extend(overlay::marker(t, 0.06, [0.3, 1.0, 0.4, 1.0]));
        }
        let skeleton = &character.skeleton;
        let valid = |j: Option<usize>| j.filter(|&j| j < skeleton.len() && j < frame.model.len());
        if let Some(j) = valid(frame.hovered).filter(|&j| Some(j) != frame.selected) {
            let size = overlay::joint_marker_size(skeleton, frame.model, j);
            let at = frame.model[j].w_axis.truncate();
            lines.extend(overlay::joint_marker(at, size, overlay::HOVER_COLOR));
        }
        if let Some(j) = valid(frame.selected) {
            lines.extend(overlay::selection_lines(skeleton, frame.model, j));
        }
        let trail = &frame.trail[frame.trail.len().saturating_sub(overlay::MAX_TRAIL_POINTS)..];
        lines.extend(overlay::polyline(trail, overlay::TRAIL_COLOR));
        gpu.bone_count = lines.len() as u32;
        if !lines.is_empty() {
            queue.write_buffer(&gpu.bones, 0, bytemuck::cast_slice(&lines));
        }
    }

    /// Fills the pass's viewport with the background, for a pass shared with other drawing (the editor's window),
    /// which the renderer cannot clear; the depth must have been cleared to 1 with the pass.
    pub fn draw_background(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.background_pipeline);
        pass.draw(0..3, 0..1);
    }

    /// Records the draws of one character (after [`Renderer::prepare`]).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, gpu: &GpuCharacter, show_grid: bool) {
        pass.set_bind_group(0, &self.camera_bind_group, &[]);
        if show_grid {
            pass.set_pipeline(&self.grid_pipeline);
            pass.set_vertex_buffer(0, gpu.grid.slice(..));
            pass.draw(0..gpu.grid_count, 0..1);
        }
        pass.set_pipeline(&self.mesh_pipeline);
        let copies = if gpu.companion_on {
            [Some(&gpu.meshes), Some(&gpu.companion)]
        } else {
            [Some(&gpu.meshes), None]
        };
        for slots in copies.into_iter().flatten() {
            for item in &gpu.items {
                pass.set_bind_group(3, gpu.morph_group(item), &[]);
                pass.set_bind_group(1, &slots[item.mesh].bind_group, &[]);
                pass.set_bind_group(2, &gpu.materials[item.material], &[]);
                pass.set_vertex_buffer(0, item.vertices.slice(..));
                pass.set_index_buffer(item.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..item.count, 0, 0..1);
            }
        }
        if gpu.ghost_count > 0 {
            pass.set_pipeline(&self.ghost_pipeline);
            for (slots, &after) in gpu.ghosts[..gpu.ghost_count].iter().zip(&gpu.ghost_after) {
                pass.set_bind_group(2, &gpu.ghost_materials[after as usize], &[]);
                for item in &gpu.items {
                    pass.set_bind_group(3, gpu.morph_group(item), &[]);
                    pass.set_bind_group(1, &slots[item.mesh].bind_group, &[]);
                    pass.set_vertex_buffer(0, item.vertices.slice(..));
                    pass.set_index_buffer(item.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..item.count, 0, 0..1);
                }
            }
        }
        if gpu.bone_count > 0 {
            pass.set_pipeline(&self.bones_pipeline);
            pass.set_vertex_buffer(0, gpu.bones.slice(..));
            pass.draw(0..gpu.bone_count, 0..1);
        }
    }
}
