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

/// Most grid lines each way from the centre line: a grid of any size stays a few thousand vertices.
pub const MAX_GRID_LINES: f32 = 200.0;

/// Ground grid on the XZ plane: `half` metres each way, a line every `step` (at most [`MAX_GRID_LINES`] each way;
/// none when either is not a positive finite number); X axis red, Z axis blue.
pub fn grid(half: f32, step: f32) -> Vec<LineVertex> {
    grid_around([0.0, 0.0], half, step)
}

/// Where a grid of `step` follows a point at `at` (x, z): the nearest multiple of the step, so its lines stay on
/// the world's grid as it moves (the origin when `at` is not finite).
pub fn grid_center(at: [f32; 2], step: f32) -> [f32; 2] {
    at.map(|v| {
        let c = (v / step).round() * step;
        if c.is_finite() { c } else { 0.0 }
    })
}

/// The grid of [`grid`] centred on `center` (x, z, on the world's lines: see [`grid_center`]): the same number of
/// lines wherever it is, the world's X and Z axes red and blue where they fall inside it.
pub fn grid_around(center: [f32; 2], half: f32, step: f32) -> Vec<LineVertex> {
    let mut out = Vec::new();
    if !(half.is_finite() && step.is_finite() && half > 0.0 && step > 0.0) {
        return out;
    }
    let n = (half / step).round().min(MAX_GRID_LINES) as i32;
    let [cx0, cz0] = center;
    let plain = [0.36, 0.37, 0.4, 1.0];
    let on_axis = |v: f32| v.abs() < step * 0.5;
    for i in -n..=n {
        let offset = i as f32 * step;
        // A line of constant z (along x), then one of constant x (along z).
        let z = cz0 + offset;
        let x = cx0 + offset;
        let cx = if on_axis(z) {
            [0.75, 0.2, 0.2, 1.0]
        } else {
            plain
        };
        let cz = if on_axis(x) {
            [0.2, 0.35, 0.8, 1.0]
        } else {
            plain
        };
        out.push(LineVertex {
            position: [cx0 - half, 0.0, z],
            color: cx,
        });
        out.push(LineVertex {
            position: [cx0 + half, 0.0, z],
            color: cx,
        });
        out.push(LineVertex {
            position: [x, 0.0, cz0 - half],
            color: cz,
        });
        out.push(LineVertex {
            position: [x, 0.0, cz0 + half],
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

/// Vertices in a [`joint_marker`]: the 12 edges of an octahedron.
pub const JOINT_MARKER_VERTICES: usize = 24;

/// A wire octahedron around a joint, `size` metres from its centre to each tip: the selected or hovered joint,
/// drawn over the mesh whether or not the skeleton is shown.
pub fn joint_marker(at: Vec3, size: f32, color: [f32; 4]) -> Vec<LineVertex> {
    let tips = [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z].map(|d| at + d * size);
    let (top, bottom) = (at + Vec3::Y * size, at - Vec3::Y * size);
    let ring = [tips[0], tips[2], tips[1], tips[3]];
    let mut out = Vec::with_capacity(JOINT_MARKER_VERTICES);
    for i in 0..4 {
        for (a, b) in [
            (ring[i], ring[(i + 1) % 4]),
            (ring[i], top),
            (ring[i], bottom),
        ] {
            out.extend([a, b].map(|p| LineVertex {
                position: p.to_array(),
                color,
            }));
        }
    }
    out
}

/// Colour of the selected joint's marker and bone.
pub const SELECTED_COLOR: [f32; 4] = [1.0, 0.9, 0.1, 1.0];
/// Colour of the hovered joint's marker.
pub const HOVER_COLOR: [f32; 4] = [0.3, 0.85, 1.0, 1.0];
/// Most points of a root trail the overlay draws (the newest).
pub const MAX_TRAIL_POINTS: usize = 4096;

/// Colour of the root-motion trail.
pub const TRAIL_COLOR: [f32; 4] = [0.95, 0.45, 0.9, 1.0];

/// A joint's marker size: a fifth of its longest bone to a child (or to its parent for a leaf), at least 1 cm.
pub fn joint_marker_size(skeleton: &Skeleton, model: &[Mat4], joint: usize) -> f32 {
    let at = model[joint].w_axis.truncate();
    let to = |j: usize| model[j].w_axis.truncate().distance(at);
    let children = (0..skeleton.len())
        .filter(|&c| skeleton.parent(c) == Some(joint))
        .map(to)
        .fold(0.0f32, f32::max);
    let length = if children > 0.0 {
        children
    } else {
        skeleton.parent(joint).map_or(0.0, to)
    };
    (length * 0.2).max(0.01)
}

/// The selected joint highlighted: its marker and its bones (to its parent and children), in
/// [`SELECTED_COLOR`].
pub fn selection_lines(skeleton: &Skeleton, model: &[Mat4], joint: usize) -> Vec<LineVertex> {
    let at = model[joint].w_axis.truncate();
    let mut out = joint_marker(
        at,
        joint_marker_size(skeleton, model, joint),
        SELECTED_COLOR,
    );
    let linked = (0..skeleton.len())
        .filter(|&c| skeleton.parent(c) == Some(joint))
        .chain(skeleton.parent(joint));
    for other in linked {
        out.extend([at, model[other].w_axis.truncate()].map(|p| LineVertex {
            position: p.to_array(),
            color: SELECTED_COLOR,
        }));
    }
    out
}

/// A polyline through `points` (a root trail), as line-list vertices.
pub fn polyline(points: &[Vec3], color: [f32; 4]) -> Vec<LineVertex> {
    points
        .windows(2)
        .flat_map(|w| {
            [w[0], w[1]].map(|p| LineVertex {
                position: p.to_array(),
                color,
            })
        })
        .collect()
}

/// Grid spacing and half-size that suit a character of bounds `min`..`max`: a line every power of ten of its
/// size over two (0.5 m for a 1.8 m human, 50 for one in centimetres), reaching three times its size.
pub fn grid_for(min: Vec3, max: Vec3) -> (f32, f32) {
    let size = (max - min).max_element();
    if !size.is_finite() || size <= 0.0 {
        return (5.0, 0.5);
    }
    let step = 10f32.powf(size.log10().floor()) * 0.5;
    let half = (size * 3.0).max(step * 10.0);
    let half = (half / step).ceil().min(MAX_GRID_LINES) * step;
    if !(half.is_finite() && step.is_finite() && step > 0.0) {
        return (5.0, 0.5);
    }
    (half, step)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_follows_the_character_size() {
        let human = grid_for(Vec3::new(-0.3, 0.0, -0.2), Vec3::new(0.3, 1.8, 0.2));
        assert_eq!(human.1, 0.5);
        assert!(human.0 >= 5.0);
        let in_cm = grid_for(Vec3::new(-30.0, 0.0, -20.0), Vec3::new(30.0, 180.0, 20.0));
        assert_eq!(in_cm.1, 50.0);
        assert!(in_cm.0 >= 500.0);
        let small = grid_for(Vec3::ZERO, Vec3::splat(0.07));
        assert!((small.1 - 0.005).abs() < 1e-6, "{small:?}");
    }

    #[test]
    fn a_character_near_the_float_limit_gets_a_bounded_grid() {
        // 1e38 m across: three times that overflows, and a line count from it would not fit in memory.
        let (half, step) = grid_for(Vec3::splat(-1e38), Vec3::splat(1e38));
        assert!(half.is_finite() && step.is_finite(), "{half} {step}");
        let lines = grid(half, step);
        assert!(lines.len() <= 4 * (2 * MAX_GRID_LINES as usize + 1));
        assert!(grid(f32::INFINITY, 5e37).is_empty());
        assert!(grid(1e30, 1e-30).len() <= 4 * (2 * MAX_GRID_LINES as usize + 1));
    }

    #[test]
    fn a_joint_marker_is_a_closed_octahedron() {
        let lines = joint_marker(Vec3::ONE, 0.1, SELECTED_COLOR);
        assert_eq!(lines.len(), JOINT_MARKER_VERTICES);
        for v in &lines {
            let d = Vec3::from(v.position) - Vec3::ONE;
            assert!((d.abs().max_element() - 0.1).abs() < 1e-6);
        }
    }
}
