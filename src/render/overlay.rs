//! Line geometry for the viewport: the ground grid and the skeleton overlay.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};

use crate::core::Skeleton;

/// One line vertex: position and RGBA colour.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LineVertex {
    /// Model-space position.
    pub position: [f32; 3],
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

/// Ground grid on the XZ plane: `half` metres each way, a line every `step`; X axis red, Z axis blue.
pub fn grid(half: f32, step: f32) -> Vec<LineVertex> {
    let mut out = Vec::new();
    let n = (half / step).round() as i32;
    for i in -n..=n {
        let v = i as f32 * step;
        let (cx, cz) = if i == 0 {
            ([0.75, 0.2, 0.2, 1.0], [0.2, 0.35, 0.8, 1.0])
        } else {
            ([0.36, 0.37, 0.4, 1.0], [0.36, 0.37, 0.4, 1.0])
        };
        out.push(LineVertex {
            position: [-half, 0.0, v],
            color: cx,
        });
        out.push(LineVertex {
            position: [half, 0.0, v],
            color: cx,
        });
        out.push(LineVertex {
            position: [v, 0.0, -half],
            color: cz,
        });
        out.push(LineVertex {
            position: [v, 0.0, half],
            color: cz,
        });
    }
    out
}

/// Vertices in a [`marker`].
pub const MARKER_VERTICES: usize = 6;

/// A three-axis cross at `at`, `size` metres each way (the look-at target).
pub fn marker(at: Vec3, size: f32, color: [f32; 4]) -> Vec<LineVertex> {
    [Vec3::X, Vec3::Y, Vec3::Z]
        .iter()
        .flat_map(|&axis| {
            [at - axis * size, at + axis * size].map(|p| LineVertex {
                position: p.to_array(),
                color,
            })
        })
        .collect()
}

/// Colour of a bone in the overlay.
pub fn bone_color(is_human: bool, selected: bool) -> [f32; 4] {
    if selected {
        [1.0, 0.9, 0.1, 1.0]
    } else if is_human {
        [1.0, 0.55, 0.15, 1.0]
    } else {
        [0.65, 0.7, 0.75, 1.0]
    }
}

/// Bone segments (joint to parent) in model space; `human[j]` marks humanoid joints.
pub fn skeleton_lines(
    skeleton: &Skeleton,
    model: &[Mat4],
    human: &[bool],
    selected: Option<usize>,
) -> Vec<LineVertex> {
    let mut out = Vec::with_capacity(skeleton.len() * 2);
    for j in 0..skeleton.len() {
        let Some(p) = skeleton.parent(j) else {
            continue;
        };
        let color = bone_color(human.get(j).copied().unwrap_or(false), selected == Some(j));
        let a: Vec3 = model[p].w_axis.truncate();
        let b: Vec3 = model[j].w_axis.truncate();
        out.push(LineVertex {
            position: a.to_array(),
            color,
        });
        out.push(LineVertex {
            position: b.to_array(),
            color,
        });
    }
    out
}
