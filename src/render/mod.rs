//! GPU rendering shared by the editor's viewport and the headless `render` command: skinned meshes, grid,
//! skeleton overlay. Takes meshes and model-space joint matrices; knows nothing about clips or UI.

pub mod camera;
pub mod offscreen;
pub mod overlay;
pub mod renderer;

pub use camera::OrbitCamera;
pub use renderer::{FrameInput, GpuCharacter, Renderer};
