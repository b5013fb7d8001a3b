//! Rendering shared by the editor's viewport and the headless `render` command: skinned meshes, grid, skeleton
//! overlay. Takes meshes and model-space joint matrices; knows nothing about clips or UI.
//!
//! The camera (framing, orbit) is pure math and always built; the wgpu parts need the `render` feature.

pub mod camera;
#[cfg(feature = "render")]
pub mod morph;
#[cfg(feature = "render")]
pub mod offscreen;
#[cfg(feature = "render")]
pub mod overlay;
pub mod pick;
#[cfg(feature = "render")]
pub mod renderer;

pub use camera::OrbitCamera;
#[cfg(feature = "render")]
pub use renderer::{FrameInput, GpuCharacter, Renderer};
