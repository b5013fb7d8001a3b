//! The orbit camera: yaw and pitch around a target at a distance, as in Blender or Unity's scene view.

use glam::{Mat4, Vec3};
use serde::{Deserialize, Serialize};

/// Vertical field of view in radians.
pub const FOV_Y: f32 = 35.0 * std::f32::consts::PI / 180.0;

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

    /// Turns by mouse-drag amounts (radians).
    pub fn orbit(&mut self, d_yaw: f32, d_pitch: f32) {
        self.yaw = (self.yaw + d_yaw).rem_euclid(std::f32::consts::TAU);
        self.pitch = (self.pitch + d_pitch).clamp(-1.5, 1.5);
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

    /// Points at the centre of a bounding box and backs off until it fits the view.
    pub fn frame(&mut self, min: Vec3, max: Vec3, aspect: f32) {
        let center = (min + max) * 0.5;
        let half = (max - min) * 0.5;
        let fit_v = half.y.max(half.x.min(half.z) * 0.5) / (FOV_Y * 0.5).tan();
        let fov_x = 2.0 * ((FOV_Y * 0.5).tan() * aspect.max(0.1)).atan();
        let fit_h = half.x.max(half.z) / (fov_x * 0.5).tan();
        self.target = center;
        self.distance = (fit_v.max(fit_h) * 1.15 + half.length() * 0.2).max(0.1);
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
    let mut points: Vec<Vec3> = Vec::new();
    for mesh in &character.meshes {
        let palette = character.mesh_palette(mesh, model);
        for p in &mesh.primitives {
            for (v, pos) in p.positions.iter().enumerate() {
                let pos = Vec3::from(*pos);
                let skinned = match (&p.joints, &p.weights, palette.len() > 1) {
                    (Some(j), Some(w), true) => (0..4)
                        .map(|k| {
                            palette
                                .get(j[v][k] as usize)
                                .map_or(Vec3::ZERO, |m| m.transform_point3(pos) * w[v][k])
                        })
                        .sum(),
                    _ => palette[0].transform_point3(pos),
                };
                points.push(skinned);
            }
        }
    }
    if points.is_empty() {
        points.extend(model.iter().map(|m| m.w_axis.truncate()));
    }
    points.retain(|p| p.is_finite());
    if points.is_empty() {
        return (Vec3::ZERO, Vec3::ONE);
    }
    let min = points.iter().fold(Vec3::splat(f32::MAX), |a, &p| a.min(p));
    let max = points.iter().fold(Vec3::splat(f32::MIN), |a, &p| a.max(p));
    (min, max)
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
    fn views_parse() {
        assert_eq!(OrbitCamera::parse_view("front"), Some((0.0, 0.1)));
        let (y, p) = OrbitCamera::parse_view("45,-10").unwrap();
        assert!((y - 45f32.to_radians()).abs() < 1e-6 && (p + 10f32.to_radians()).abs() < 1e-6);
        assert_eq!(OrbitCamera::parse_view("sideways"), None);
        assert_eq!(OrbitCamera::parse_view("NaN,0"), None);
    }
}
