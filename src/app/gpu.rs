//! The 3D viewport on eframe's device. On a GPU the shared renderer draws into its own multisampled texture,
//! which egui shows as an image. On a software rasteriser it draws straight into the window's pass, in its place
//! among egui's shapes: there, egui sampling a viewport-sized texture cost a third of each frame.

use crate::render::offscreen::{COLOR_FORMAT, RenderTarget, SAMPLES};
use crate::render::renderer::{DEPTH_FORMAT, PaletteKind};
use crate::render::{FrameInput, GpuCharacter, Renderer};

use super::command::{Command, Commands};
use super::editor::EditorState;

/// The renderer and the uploaded character. It lives in egui's callback resources, where the window pass's
/// paint callback can reach it.
struct Scene {
    renderer: Renderer,
    /// The uploaded character with the document generation it came from, or why it could not be uploaded.
    character: Option<(u64, Result<GpuCharacter, String>)>,
}

/// Where the viewport's pixels go.
enum Route {
    /// Into a texture of its own (MSAA on a GPU), shown by egui as an image.
    Texture {
        format: wgpu::TextureFormat,
        target: Option<Box<RenderTarget>>,
        texture: Option<egui::TextureId>,
    },
    /// Into the window's render pass, by a paint callback (one sample, the window's format and depth buffer).
    WindowPass,
}

/// What the viewport panel puts where the character goes.
pub enum ViewportImage {
    /// A texture to show as an image over the viewport's rectangle.
    Texture(egui::TextureId),
    /// A paint callback that draws the character into the window pass, clipped to the viewport's rectangle.
    WindowPass(egui::PaintCallback),
}

/// GPU state of the viewport, living beside eframe's wgpu renderer.
pub struct ViewportGpu {
    state: egui_wgpu::RenderState,
    /// The depth format of the window's pass (None: none, as in a test harness), see [`draws_into_window_pass`].
    window_depth: Option<wgpu::TextureFormat>,
    /// Where the pixels go, chosen and built at the first paint.
    route: Option<Route>,
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

/// Whether the viewport draws into the window's pass: on a software rasteriser, when that pass has the
/// renderer's depth buffer (`window_depth`, as eframe was asked for it).
pub fn draws_into_window_pass(
    adapter: &wgpu::AdapterInfo,
    window_depth: Option<wgpu::TextureFormat>,
) -> bool {
    viewport_samples(adapter) == 1 && window_depth == Some(DEPTH_FORMAT)
}

impl ViewportGpu {
    /// A viewport on eframe's device, drawing into a texture until [`ViewportGpu::set_window_depth`] says the
    /// window's pass has a depth buffer.
    pub fn new(state: &egui_wgpu::RenderState) -> Self {
        ViewportGpu {
            state: state.clone(),
            window_depth: None,
            route: None,
        }
    }

    /// Says the window's pass has a depth buffer of `format` (as eframe was asked for one), before the first
    /// paint.
    pub fn set_window_depth(&mut self, format: wgpu::TextureFormat) {
        self.window_depth = Some(format);
    }

    /// Chooses the route, builds the pipelines on eframe's device and says on stderr which adapter draws and how.
    fn build(&self) -> Route {
        let state = &self.state;
        let info = state.adapter.get_info();
        let (route, format, samples) = if draws_into_window_pass(&info, self.window_depth) {
            (Route::WindowPass, state.target_format, 1)
        } else {
            // egui shows a native texture's bytes as sRGB-encoded: an sRGB target is viewed as plain unorm where
            // the device can view a texture in another format; elsewhere (GL) the target is plain unorm and the
            // shaders encode.
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
            let route = Route::Texture {
                format,
                target: None,
                texture: None,
            };
            (route, format, viewport_samples(&info))
        };
        let renderer = Renderer::new(&state.device, &state.queue, format, samples);
        let palette = match renderer.palette_kind() {
            PaletteKind::StorageBuffer => "a storage buffer",
            PaletteKind::Texture => "a texture",
        };
        let into = match route {
            Route::WindowPass => "into the window's pass",
            Route::Texture { .. } => "into a texture",
        };
        eprintln!(
            "animtune: drawing with {} ({:?}), joint palette in {palette}, {samples} sample(s) a pixel, {into}",
            info.name, info.backend
        );
        state.renderer.write().callback_resources.insert(Scene {
            renderer,
            character: None,
        });
        route
    }

    /// Renders the editor's current pose at `width`×`height` pixels; returns what egui should draw over `rect`,
    /// or why the character cannot be drawn; `hovered` is the joint under the pointer. A new character's upload
    /// notes and errors go to `out` once.
    pub fn paint(
        &mut self,
        editor: &EditorState,
        rect: egui::Rect,
        [width, height]: [u32; 2],
        hovered: Option<usize>,
        out: &mut Commands,
    ) -> Result<ViewportImage, String> {
        if self.route.is_none() {
            self.route = Some(self.build());
        }
        let (device, queue) = (&self.state.device, &self.state.queue);
        let mut egui_renderer = self.state.renderer.write();
        if let Some(Route::Texture {
            format,
            target,
            texture,
        }) = &mut self.route
            && target
                .as_ref()
                .is_none_or(|t| t.size.width != width || t.size.height != height)
        {
            let unorm = wgpu::TextureFormat::Rgba8Unorm;
            let samples = viewport_samples(&self.state.adapter.get_info());
            let new_target = RenderTarget::new(
                device,
                width,
                height,
                samples,
                *format,
                format.is_srgb().then_some(unorm),
            );
            // egui samples native textures as Rgba8Unorm holding sRGB-encoded bytes, which is what we wrote.
            let view = new_target.view_as(unorm);
            match texture {
                Some(id) => egui_renderer.update_egui_texture_from_wgpu_texture(
                    device,
                    &view,
                    wgpu::FilterMode::Nearest,
                    *id,
                ),
                None => {
                    *texture = Some(egui_renderer.register_native_texture(
                        device,
                        &view,
                        wgpu::FilterMode::Nearest,
                    ))
                }
            }
            *target = Some(Box::new(new_target));
        }
        let Some(scene) = egui_renderer.callback_resources.get_mut::<Scene>() else {
            unreachable!("the scene was inserted when the viewport was built");
        };
        if scene
            .character
            .as_ref()
            .is_none_or(|(g, _)| *g != editor.doc().generation)
        {
            let upload = scene
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
            scene.character = Some((editor.doc().generation, gpu));
        }
        let Some((_, gpu)) = &mut scene.character else {
            unreachable!("the character was just uploaded");
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
        scene
            .renderer
            .prepare(queue, gpu, &editor.doc().model.character, &frame);
        let show_grid = editor.session().show_grid;
        match self.route.as_ref().expect("the route was just built") {
            Route::WindowPass => Ok(ViewportImage::WindowPass(
                egui_wgpu::Callback::new_paint_callback(rect, WindowPassDraw { show_grid }),
            )),
            Route::Texture {
                target, texture, ..
            } => {
                let (Some(target), Some(texture)) = (target, texture) else {
                    unreachable!("the target and its texture were just created");
                };
                let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("viewport"),
                });
                target.encode(&mut encoder, &scene.renderer, gpu, show_grid);
                queue.submit([encoder.finish()]);
                Ok(ViewportImage::Texture(*texture))
            }
        }
    }
}

/// The paint callback of [`Route::WindowPass`]: the background and the character prepared this frame.
struct WindowPassDraw {
    show_grid: bool,
}

impl egui_wgpu::CallbackTrait for WindowPassDraw {
    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        resources: &egui_wgpu::CallbackResources,
    ) {
        let Some(scene) = resources.get::<Scene>() else {
            return;
        };
        scene.renderer.draw_background(pass);
        if let Some((_, Ok(gpu))) = &scene.character {
            scene.renderer.draw(pass, gpu, self.show_grid);
        }
    }
}
