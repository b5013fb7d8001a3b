//! The 3D viewport: the shared renderer draws into a texture each frame, which egui shows as an image.

use crate::render::offscreen::{COLOR_FORMAT, RenderTarget, SAMPLES};
use crate::render::renderer::PaletteKind;
use crate::render::{FrameInput, GpuCharacter, Renderer};

use super::command::{Command, Commands};
use super::editor::EditorState;

/// GPU state of the viewport, living beside eframe's wgpu renderer.
pub struct ViewportGpu {
    state: egui_wgpu::RenderState,
    renderer: Renderer,
    /// MSAA samples of the viewport: [`SAMPLES`] on a GPU, 1 in software rendering, where 4× cost a third of
    /// each frame (BENCHMARKS.md, "Editor frame times").
    samples: u32,
    /// Colour format of the viewport's target: sRGB where the device can view it as plain unorm for egui, plain
    /// unorm elsewhere.
    format: wgpu::TextureFormat,
    target: Option<RenderTarget>,
    texture: Option<egui::TextureId>,
    /// The uploaded character with the document generation it came from, or why it could not be uploaded.
    character: Option<(u64, Result<GpuCharacter, String>)>,
}

/// MSAA samples for the viewport on `adapter`: none on a software rasteriser (lavapipe, llvmpipe, WARP), where
/// every sample is CPU time, else [`SAMPLES`].
pub fn viewport_samples(adapter: &wgpu::AdapterInfo) -> u32 {
    if adapter.device_type == wgpu::DeviceType::Cpu {
        1
    } else {
        SAMPLES
    }
}

impl ViewportGpu {
    /// Builds the pipelines on eframe's device, and says on stderr which adapter draws and how.
    pub fn new(state: &egui_wgpu::RenderState) -> Self {
        let info = state.adapter.get_info();
        let samples = viewport_samples(&info);
        // egui shows a native texture's bytes as sRGB-encoded: an sRGB target is viewed as plain unorm where the
        // device can view a texture in another format; elsewhere (GL) the target is plain unorm and the shaders
        // encode.
        let view_formats = state
            .adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::VIEW_FORMATS);
        let format = if view_formats {
            COLOR_FORMAT
        } else {
            wgpu::TextureFormat::Rgba8Unorm
        };
        let renderer = Renderer::new(&state.device, &state.queue, format, samples);
        let palette = match renderer.palette_kind() {
            PaletteKind::StorageBuffer => "a storage buffer",
            PaletteKind::Texture => "a texture",
        };
        eprintln!(
            "animtune: drawing with {} ({:?}), joint palette in {palette}",
            info.name, info.backend
        );
        ViewportGpu {
            renderer,
            format,
            samples,
            state: state.clone(),
            target: None,
            texture: None,
            character: None,
        }
    }

    /// Renders the editor's current pose at `width`×`height` pixels; returns the texture egui should show, or
    /// why the character cannot be drawn; `hovered` is the joint under the pointer. A new character's upload notes and errors go to `out` once.
    pub fn paint(
        &mut self,
        editor: &EditorState,
        width: u32,
        height: u32,
        hovered: Option<usize>,
        out: &mut Commands,
    ) -> Result<egui::TextureId, String> {
        let (device, queue) = (&self.state.device, &self.state.queue);
        let resized = self
            .target
            .as_ref()
            .is_none_or(|t| t.size.width != width || t.size.height != height);
        if resized {
            let unorm = wgpu::TextureFormat::Rgba8Unorm;
            let srgb = self.format.is_srgb();
            let target = RenderTarget::new(
                device,
                width,
                height,
                self.samples,
                self.format,
                srgb.then_some(unorm),
            );
            // egui samples native textures as Rgba8Unorm holding sRGB-encoded bytes, which is what we wrote.
            let view = target.view_as(unorm);
            let mut egui_renderer = self.state.renderer.write();
            match self.texture {
                Some(id) => egui_renderer.update_egui_texture_from_wgpu_texture(
                    device,
                    &view,
                    wgpu::FilterMode::Nearest,
                    id,
                ),
                None => {
                    self.texture = Some(egui_renderer.register_native_texture(
                        device,
                        &view,
                        wgpu::FilterMode::Nearest,
                    ))
                }
            }
            self.target = Some(target);
        }
        if self
            .character
            .as_ref()
            .is_none_or(|(g, _)| *g != editor.doc().generation)
        {
            let upload = self
                .renderer
                .upload(device, queue, &editor.doc().model.character);
            let name = &editor.doc().name;
            let gpu = match upload {
                Ok((gpu, notes)) => {
                    out.extend(notes.into_iter().map(|n| Command::Report {
                        text: format!("{name}: {n}"),
                        is_error: false,
                    }));
                    Ok(gpu)
                }
                Err(e) => {
                    let text = format!("cannot draw {name}: {e}");
                    out.push(Command::Report {
                        text: text.clone(),
                        is_error: true,
                    });
                    Err(text)
                }
            };
            self.character = Some((editor.doc().generation, gpu));
        }
        let (Some(target), Some((_, gpu)), Some(texture)) =
            (&self.target, &mut self.character, self.texture)
        else {
            unreachable!("target, character and texture were just created");
        };
        let gpu = gpu.as_mut().map_err(|e| e.clone())?;
        let frame = FrameInput {
            model: editor.matrices(),
            camera: &editor.session().camera,
            aspect: width as f32 / height.max(1) as f32,
            show_skeleton: editor.session().show_skeleton,
            show_grid: editor.session().show_grid,
            grid_follows: crate::render::camera::grid_anchor(
                &editor.doc().model.character,
                editor.matrices(),
            ),
            selected: editor.session().selected,
            hovered,
            trail: &editor.session().root_trail,
            ghosts: editor.ghosts(),
            look_target: editor
                .tuning()
                .layers
                .look_at
                .enabled
                .then(|| editor.look_target()),
            morph_weights: &editor.eval().output().morph_weights,
            companion: editor.compare_matrices(),
        };
        self.renderer
            .prepare(queue, gpu, &editor.doc().model.character, &frame);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("viewport"),
        });
        target.encode(
            &mut encoder,
            &self.renderer,
            gpu,
            editor.session().show_grid,
        );
        queue.submit([encoder.finish()]);
        Ok(texture)
    }
}
