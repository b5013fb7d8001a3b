//! Rendering without a window: a device with no surface, an MSAA target, read back into an image.

use thiserror::Error;

use super::renderer::{DEPTH_FORMAT, FrameInput, Renderer};
use crate::core::Character;

/// Why an offscreen render could not run.
#[derive(Debug, Error)]
pub enum RenderError {
    /// No GPU or software adapter was found.
    #[error(
        "no graphics adapter found ({0}); without a GPU install a software Vulkan driver: apt-get install libvulkan1 mesa-vulkan-drivers"
    )]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("cannot create a graphics device: {0}")]
    Device(String),
    /// The image size is zero or too large.
    #[error(
        "image size {0}x{1}: each side 1 to the adapter's texture limit (at most 8192), and at most 4096x4096 pixels"
    )]
    Size(u32, u32),
    /// The character's geometry does not fit the device.
    #[error("{0}")]
    Limits(crate::core::gpu_fit::GpuLimitError),
    /// Reading the image back failed.
    #[error("reading the rendered image back failed: {0}")]
    Readback(String),
}

/// Colour the viewport clears to (sRGB 8-bit: 56, 58, 64).
pub const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.0395,
    g: 0.0423,
    b: 0.0513,
    a: 1.0,
};

/// [`BACKGROUND`] as a target of `format` stores it: linear for an sRGB target (encoded on write), the sRGB
/// encoding (56, 58, 64) for a plain unorm one.
pub fn background_for(format: wgpu::TextureFormat) -> wgpu::Color {
    if format.is_srgb() {
        BACKGROUND
    } else {
        wgpu::Color {
            r: 56.0 / 255.0,
            g: 58.0 / 255.0,
            b: 64.0 / 255.0,
            a: 1.0,
        }
    }
}

/// MSAA samples of offscreen renders, and of the editor's viewport on a hardware GPU.
pub const SAMPLES: u32 = 4;
/// Colour format of every target.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// Colour, MSAA and depth textures of one render target size.
pub struct RenderTarget {
    /// The multisampled colour, resolved into the colour texture (None at one sample: drawn into it directly).
    msaa_view: Option<wgpu::TextureView>,
    depth_view: wgpu::TextureView,
    resolved_view: wgpu::TextureView,
    /// The resolved colour texture (RGBA8 holding sRGB-encoded colour).
    pub resolved: wgpu::Texture,
    /// Its size.
    pub size: wgpu::Extent3d,
}

impl RenderTarget {
    /// Creates textures of the given size and colour `format` with `samples` samples a pixel (1, or what the
    /// pipelines were built for); `extra_view` lets the resolved texture be viewed in another format too (on
    /// devices with [`wgpu::DownlevelFlags::VIEW_FORMATS`]).
    pub fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        samples: u32,
        format: wgpu::TextureFormat,
        extra_view: Option<wgpu::TextureFormat>,
    ) -> Self {
        let size = wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        };
        let extra: Vec<wgpu::TextureFormat> = extra_view.into_iter().collect();
        let texture = |label, format, samples, usage, view_formats: &[wgpu::TextureFormat]| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats,
            })
        };
        let msaa = (samples > 1).then(|| {
            texture(
                "msaa colour",
                format,
                samples,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
                &[],
            )
        });
        let resolved = texture(
            "colour",
            format,
            1,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
            &extra,
        );
        let depth = texture(
            "depth",
            DEPTH_FORMAT,
            samples,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
            &[],
        );
        let view = |t: &wgpu::Texture| t.create_view(&wgpu::TextureViewDescriptor::default());
        RenderTarget {
            msaa_view: msaa.as_ref().map(view),
            depth_view: view(&depth),
            resolved_view: view(&resolved),
            resolved,
            size,
        }
    }

    /// A view of the resolved colour in `format` (one of the formats given at creation).
    pub fn view_as(&self, format: wgpu::TextureFormat) -> wgpu::TextureView {
        self.resolved.create_view(&wgpu::TextureViewDescriptor {
            format: Some(format),
            ..Default::default()
        })
    }

    /// Records a pass that clears the target and draws the character.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &Renderer,
        gpu: &super::GpuCharacter,
        show_grid: bool,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("character"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: self.msaa_view.as_ref().unwrap_or(&self.resolved_view),
                depth_slice: None,
                resolve_target: self.msaa_view.as_ref().map(|_| &self.resolved_view),
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(background_for(self.resolved.format())),
                    store: if self.msaa_view.is_some() {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        renderer.draw(&mut pass, gpu, show_grid);
    }
}

/// One rendered frame.
pub struct Rendered {
    /// The pixels (sRGB RGBA8).
    pub image: image::RgbaImage,
    /// What had to change for the character to fit the device (downscaled textures), one line each.
    pub notes: Vec<String>,
}

/// A device and the renderer's pipelines, for rendering images headlessly.
pub struct OffscreenRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
    /// Adapter name and backend, for reports.
    pub adapter_info: String,
}

/// Which limits an offscreen device asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceLimits {
    /// WebGPU's downlevel defaults at the adapter's resolution: the `render` command's device.
    Adapter,
    /// WebGL2's: no storage buffers, 2048-pixel textures, as eframe asks of a GL adapter. The renderer then
    /// keeps joint palettes in textures.
    WebGl2,
}

/// The longest side an offscreen image may have (the adapter's texture limit may be lower).
pub const MAX_SIDE: u32 = 8192;
/// The most pixels an offscreen image may have: 16.8 M (4096 x 4096), about 270 MB of multisampled targets.
pub const MAX_PIXELS: u64 = 4096 * 4096;

impl OffscreenRenderer {
    /// Opens the first adapter the platform offers (lavapipe on a machine without a GPU).
    pub fn new() -> Result<Self, RenderError> {
        Self::with_limits(DeviceLimits::Adapter)
    }

    /// Opens the first adapter with a device of `limits`.
    pub fn with_limits(limits: DeviceLimits) -> Result<Self, RenderError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| RenderError::NoAdapter(e.to_string()))?;
        let info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("animtune offscreen"),
            required_features: wgpu::Features::empty(),
            required_limits: match limits {
                DeviceLimits::Adapter => {
                    wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits())
                }
                DeviceLimits::WebGl2 => wgpu::Limits::downlevel_webgl2_defaults(),
            },
            ..Default::default()
        }))
        .map_err(|e| RenderError::Device(e.to_string()))?;
        let renderer = Renderer::new(&device, &queue, COLOR_FORMAT, SAMPLES);
        Ok(OffscreenRenderer {
            device,
            queue,
            renderer,
            adapter_info: format!("{} ({:?})", info.name, info.backend),
        })
    }

    /// The renderer's joint palette form on this device.
    pub fn palette_kind(&self) -> super::renderer::PaletteKind {
        self.renderer.palette_kind()
    }

    /// The device and queue (for callers that render into their own targets).
    pub fn device(&self) -> (&wgpu::Device, &wgpu::Queue) {
        (&self.device, &self.queue)
    }

    /// Renders one frame of a character into an RGBA image.
    pub fn render(
        &self,
        character: &Character,
        frame: &FrameInput,
        width: u32,
        height: u32,
    ) -> Result<Rendered, RenderError> {
        let side = self.device.limits().max_texture_dimension_2d.min(MAX_SIDE);
        if width == 0
            || height == 0
            || width > side
            || height > side
            || u64::from(width) * u64::from(height) > MAX_PIXELS
        {
            return Err(RenderError::Size(width, height));
        }
        let device = &self.device;
        let target = RenderTarget::new(device, width, height, SAMPLES, COLOR_FORMAT, None);
        let (mut gpu, notes) = self
            .renderer
            .upload(device, &self.queue, character)
            .map_err(RenderError::Limits)?;

        self.renderer
            .prepare(&self.queue, &mut gpu, character, frame);
        let size = target.size;
        let resolved = &target.resolved;
        let row = (4 * width).div_ceil(256) * 256;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: (row * height) as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("render"),
        });
        target.encode(&mut encoder, &self.renderer, &gpu, frame.show_grid);
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: resolved,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(height),
                },
            },
            size,
        );
        self.queue.submit([encoder.finish()]);
        let slice = readback.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| RenderError::Readback(e.to_string()))?
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        let data = slice
            .get_mapped_range()
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        let mut pixels = Vec::with_capacity((4 * width * height) as usize);
        for y in 0..height as usize {
            let start = y * row as usize;
            pixels.extend_from_slice(&data[start..start + 4 * width as usize]);
        }
        drop(data);
        readback.unmap();
        let image = image::RgbaImage::from_raw(width, height, pixels)
            .ok_or_else(|| RenderError::Readback("size mismatch".into()))?;
        Ok(Rendered { image, notes })
    }
}
