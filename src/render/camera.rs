//! The orbit camera: yaw and pitch around a target at a distance, as in Blender or Unity's scene view.

use glam::{Mat4, Vec3};
use serde::{Deserialize, Serialize};

/// Vertical field of view in radians.
pub const FOV_Y: f32 = 35.0 * std::f32::consts::PI / 180.0;

/// How much of the view's half-width and half-height a framed box may fill (the rest is margin).
pub const FRAME_FILL: f32 = 0.85;

/// An orbit camera; yaw 0 looks at the character's face (camera on +Z), pitch > 0 looks down.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrbitCamera {
    /// Point looked at.
    pub target: Vec3,
    /// Rotation about +Y, radians.
    pub yaw: f32,
    /// Elevation, radians (clamped short of the poles).
    pub pitch: f32,
    /// Distance from the target, metres.
    pub distance: f32,
}

/// The standard views (Blender's numpad views): the camera on one side of the character, looking at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewPreset {
    /// Facing the character (camera on +Z, where glTF characters face).
    Front,
    /// Behind it.
    Back,
    /// On the front camera's right (+X: the character's left side).
    Right,
    /// On the front camera's left (-X: the character's right side).
    Left,
    /// Above, looking down (short of the pole).
    Top,
    /// Below, looking up.
    Bottom,
}

impl ViewPreset {
    /// Every preset, in menu order.
    pub const ALL: [ViewPreset; 6] = [
        ViewPreset::Front,
        ViewPreset::Back,
        ViewPreset::Right,
        ViewPreset::Left,
        ViewPreset::Top,
        ViewPreset::Bottom,
    ];

    /// Yaw and pitch (radians) of the view.
    pub fn angles(self) -> (f32, f32) {
        let deg = f32::to_radians;
        match self {
            ViewPreset::Front => (0.0, 0.0),
            ViewPreset::Back => (deg(180.0), 0.0),
            ViewPreset::Right => (deg(90.0), 0.0),
            ViewPreset::Left => (deg(270.0), 0.0),
            ViewPreset::Top => (0.0, PITCH_LIMIT),
            ViewPreset::Bottom => (0.0, -PITCH_LIMIT),
        }
    }

    /// Its name in menus.
    pub fn name(self) -> &'static str {
        match self {
            ViewPreset::Front => "Front",
            ViewPreset::Back => "Back",
            ViewPreset::Right => "Right",
            ViewPreset::Left => "Left",
            ViewPreset::Top => "Top",
            ViewPreset::Bottom => "Bottom",
        }
    }
}

/// The steepest pitch (radians): short of the poles, where "up" would be undefined.
pub const PITCH_LIMIT: f32 = 1.5;

impl Default for OrbitCamera {
    fn default() -> Self {
        OrbitCamera {
            target: Vec3::new(0.0, 0.9, 0.0),
            yaw: 0.0,
            pitch: 0.1,
            distance: 3.5,
        }
    }
}

impl OrbitCamera {
    /// Camera position.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + Vec3::new(sy * cp, sp, cy * cp) * self.distance
    }

    /// View-projection matrix for an aspect ratio (width / height); wgpu's clip space is Direct3D's (depth 0..1).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let near = (self.distance * 0.01).max(0.001);
        let far = self.distance * 100.0 + 100.0;
        glam::camera::rh::proj::directx::perspective(FOV_Y, aspect.max(1e-3), near, far)
            * glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// Turns to a standard view, keeping the target and distance.
    pub fn set_view(&mut self, view: ViewPreset) {
        (self.yaw, self.pitch) = view.angles();
    }

    /// Turns by mouse-drag amounts (radians).
    pub fn orbit(&mut self, d_yaw: f32, d_pitch: f32) {
        self.yaw = (self.yaw + d_yaw).rem_euclid(std::f32::consts::TAU);
        self.pitch = (self.pitch + d_pitch).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Moves the target in the view plane by a fraction of the distance.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        let forward = (self.target - self.eye()).normalize_or_zero();
        let right = forward.cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(forward);
        self.target += (right * -dx + up * dy) * self.distance;
    }

    /// Zooms by a factor (< 1 moves closer).
    pub fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance * factor).clamp(0.05, 1000.0);
        }
    }

    /// Points at the centre of a bounding box and backs off, along the current view direction, until every
    /// corner of the box projects inside the view of `aspect` (width / height) with a margin: the whole box is in
    /// frame on all axes, however long or wide it is.
    pub fn frame(&mut self, min: Vec3, max: Vec3, aspect: f32) {
        if !(min.is_finite() && max.is_finite()) || min.cmpgt(max).any() {
            return;
        }
        let center = (min + max) * 0.5;
        let back = (self.eye() - self.target).normalize_or(Vec3::Z);
        let right = Vec3::Y.cross(back).normalize_or(Vec3::X);
        let up = back.cross(right);
        let tan_y = (FOV_Y * 0.5).tan() * FRAME_FILL;
        let tan_x = tan_y * aspect.clamp(0.1, 10.0);
        let mut distance = 0.1f32;
        for corner in 0..8 {
            let pick = |bit: usize, lo: f32, hi: f32| if corner & bit == 0 { lo } else { hi };
            let p = Vec3::new(
                pick(1, min.x, max.x),
                pick(2, min.y, max.y),
                pick(4, min.z, max.z),
            ) - center;
            let toward = back.dot(p);
            distance = distance
                .max(toward + right.dot(p).abs() / tan_x)
                .max(toward + up.dot(p).abs() / tan_y);
        }
        self.target = center;
        self.distance = distance.min(1000.0);
    }

    /// Parses "front", "side", "back", or "YAW,PITCH" in degrees.
    pub fn parse_view(text: &str) -> Option<(f32, f32)> {
        match text {
            "front" => Some((0.0, 0.1)),
            "side" => Some((90f32.to_radians(), 0.1)),
            "back" => Some((180f32.to_radians(), 0.1)),
            _ => {
                let (y, p) = text.split_once(',')?;
                let (y, p): (f32, f32) = (y.trim().parse().ok()?, p.trim().parse().ok()?);
                (y.is_finite() && p.is_finite())
                    .then(|| (y.to_radians(), p.to_radians().clamp(-1.5, 1.5)))
            }
        }
    }
}

/// Bounding box of a character's meshes in a pose (CPU skinning of every vertex), or of its joints when it has no mesh.
pub fn posed_bounds(character: &crate::core::Character, model: &[Mat4]) -> (Vec3, Vec3) {
    let mut bounds = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    let add = |b: &mut (Vec3, Vec3), p: Vec3| {
        if p.is_finite() {
            *b = (b.0.min(p), b.1.max(p));
        }
    };
    for mesh in &character.meshes {
        let palette = character.mesh_palette(mesh, model);
        for p in &mesh.primitives {
            for v in 0..p.positions.len() {
                add(&mut bounds, p.posed_position(v, &palette));
            }
        }
    }
    if bounds.0.x > bounds.1.x {
        model
            .iter()
            .for_each(|m| add(&mut bounds, m.w_axis.truncate()));
    }
    if bounds.0.x > bounds.1.x {
        return (Vec3::ZERO, Vec3::ONE);
    }
    bounds
}

/// Where the ground grid follows the character posed by `model`: its root-motion joint (the hips, else the first
/// root) on the ground, or the origin when it has none.
pub fn grid_anchor(character: &crate::core::Character, model: &[Mat4]) -> Vec3 {
    crate::blend::sampler::root_motion_joint(character)
        .and_then(|j| model.get(j))
        .map_or(Vec3::ZERO, |m| {
            m.w_axis.truncate() * Vec3::new(1.0, 0.0, 1.0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_camera_sits_on_plus_z() {
        let c = OrbitCamera {
            target: Vec3::ZERO,
            yaw: 0.0,
            pitch: 0.0,
            distance: 2.0,
        };
        assert!(c.eye().abs_diff_eq(Vec3::new(0.0, 0.0, 2.0), 1e-6));
        // The target projects to the centre of the screen.
        let p = c.view_proj(1.0).project_point3(Vec3::ZERO);
        assert!(p.x.abs() < 1e-6 && p.y.abs() < 1e-6);
    }

    #[test]
    fn framing_fits_the_box() {
        let mut c = OrbitCamera::default();
        c.frame(
            Vec3::new(-0.3, 0.0, -0.2),
            Vec3::new(0.3, 1.8, 0.2),
            16.0 / 9.0,
        );
        let vp = c.view_proj(16.0 / 9.0);
        for corner in [Vec3::new(-0.3, 0.0, 0.0), Vec3::new(0.3, 1.8, 0.0)] {
            let p = vp.project_point3(corner);
            assert!(p.x.abs() < 1.0 && p.y.abs() < 1.0, "{corner} → {p}");
        }
    }

    #[test]
    fn framing_puts_every_corner_inside_the_margin_for_any_shape_view_and_aspect() {
        let boxes = [
            (Vec3::new(-0.3, 0.0, -0.2), Vec3::new(0.3, 1.8, 0.2)),
            // A T-pose: arms wider than the character is tall.
            (Vec3::new(-0.9, 0.0, -0.15), Vec3::new(0.9, 1.6, 0.15)),
            // A fox: long along Z.
            (Vec3::new(-0.2, 0.0, -0.8), Vec3::new(0.2, 0.7, 0.9)),
        ];
        for (min, max) in boxes {
            for aspect in [0.5, 1.0, 1.6, 3.0] {
                for (yaw, pitch) in [(0.0, 0.1), (1.2, 0.4), (3.1, -0.3)] {
                    let mut c = OrbitCamera {
                        yaw,
                        pitch,
                        ..OrbitCamera::default()
                    };
                    c.frame(min, max, aspect);
                    let vp = c.view_proj(aspect);
                    let mut widest = 0.0f32;
                    for i in 0..8 {
                        let corner = Vec3::new(
                            if i & 1 == 0 { min.x } else { max.x },
                            if i & 2 == 0 { min.y } else { max.y },
                            if i & 4 == 0 { min.z } else { max.z },
                        );
                        let p = vp.project_point3(corner);
                        let reach = p.x.abs().max(p.y.abs());
                        assert!(reach <= FRAME_FILL + 1e-4, "{min} {max} {aspect} → {p}");
                        widest = widest.max(reach);
                    }
                    // Tight: the farthest corner reaches the margin.
                    assert!(widest > FRAME_FILL - 1e-3, "{widest}");
                }
            }
        }
    }

    #[test]
    fn views_parse() {
        assert_eq!(OrbitCamera::parse_view("front"), Some((0.0, 0.1)));
        let (y, p) = OrbitCamera::parse_view("45,-10").unwrap();
        assert!((y - 45f32.to_radians()).abs() < 1e-6 && (p + 10f32.to_radians()).abs() < 1e-6);
        assert_eq!(OrbitCamera::parse_view("sideways"), None);
        assert_eq!(OrbitCamera::parse_view("NaN,0"), None);
    }
}
