//! Picking in the viewport: the ray under a cursor, the posed surface it hits and the joint that moves that
//! surface most (so a click on the forehead selects the head, as in Blender's weight-paint select), with the
//! nearest joint on screen as the fallback. Pure math on the CPU, no GPU types.

use glam::{Mat4, Vec3};

use crate::core::Character;
use crate::core::mesh::MeshPlacement;

/// A ray from the camera through a point of the view: origin and unit direction, model space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where it starts (on the near plane).
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
}

/// The ray through `cursor` (pixels from the view's top-left) in a view of `size` pixels.
pub fn ray_through(view_proj: Mat4, cursor: [f32; 2], size: [f32; 2]) -> Option<Ray> {
    let ndc_x = cursor[0] / size[0].max(1.0) * 2.0 - 1.0;
    let ndc_y = 1.0 - cursor[1] / size[1].max(1.0) * 2.0;
    let inv = view_proj.inverse();
    let near = inv.project_point3(Vec3::new(ndc_x, ndc_y, 0.0));
    let far = inv.project_point3(Vec3::new(ndc_x, ndc_y, 1.0));
    let dir = (far - near).normalize_or_zero();
    (near.is_finite() && dir != Vec3::ZERO).then_some(Ray { origin: near, dir })
}

/// Where the ray first meets a triangle (distance along the ray and barycentric weights of b and c).
fn intersect(ray: &Ray, a: Vec3, b: Vec3, c: Vec3) -> Option<(f32, f32, f32)> {
    let (e1, e2) = (b - a, c - a);
    let p = ray.dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = ray.origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = ray.dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    (t > 0.0).then_some((t, u, v))
}

/// The joint that moves the posed surface under the ray most: the nearest triangle hit, its three vertices'
/// skin weights mixed by where it was hit. A mesh riding on a joint gives that joint. Returns the joint and the
/// distance to the hit.
pub fn surface_joint(character: &Character, model: &[Mat4], ray: &Ray) -> Option<(usize, f32)> {
    let mut best: Option<(usize, f32)> = None;
    for mesh in &character.meshes {
        let palette = character.mesh_palette(mesh, model);
        let (skin_joints, rigid) = match &mesh.placement {
            MeshPlacement::Skinned { skin } => (Some(&character.skins[*skin].joints), None),
            MeshPlacement::Joint { joint, .. } => (None, Some(*joint)),
            MeshPlacement::Model { .. } => (None, None),
        };
        for p in &mesh.primitives {
            let posed: Vec<Vec3> = (0..p.positions.len())
                .map(|v| p.posed_position(v, &palette))
                .collect();
            for tri in p.indices.chunks_exact(3) {
                let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
                if a.max(b).max(c) >= posed.len() {
                    continue;
                }
                let Some((t, u, v)) = intersect(ray, posed[a], posed[b], posed[c]) else {
                    continue;
                };
                if best.is_some_and(|(_, d)| d <= t) {
                    continue;
                }
                let joint = rigid.or_else(|| {
                    let (joints, weights) = (p.joints.as_ref()?, p.weights.as_ref()?);
                    let mut totals: Vec<(usize, f32)> = Vec::with_capacity(12);
                    for (vertex, bary) in [(a, 1.0 - u - v), (b, u), (c, v)] {
                        for k in 0..4 {
                            let w = weights[vertex][k] * bary;
                            let j = skin_joints?.get(joints[vertex][k] as usize).copied()?;
                            match totals.iter_mut().find(|(tj, _)| *tj == j) {
                                Some(e) => e.1 += w,
                                None => totals.push((j, w)),
                            }
                        }
                    }
                    totals
                        .into_iter()
                        .max_by(|x, y| x.1.total_cmp(&y.1))
                        .map(|(j, _)| j)
                });
                if let Some(j) = joint {
                    best = Some((j, t));
                }
            }
        }
    }
    best
}

/// The joint drawn nearest `cursor` on screen within `radius` pixels.
pub fn nearest_joint_on_screen(
    model: &[Mat4],
    view_proj: Mat4,
    cursor: [f32; 2],
    size: [f32; 2],
    radius: f32,
) -> Option<usize> {
    let mut best = None;
    let mut best_d = radius;
    for (j, m) in model.iter().enumerate() {
        let clip = view_proj * m.w_axis;
        if clip.w <= 0.0 {
            continue;
        }
        let ndc = clip.truncate() / clip.w;
        let px = [(ndc.x * 0.5 + 0.5) * size[0], (0.5 - ndc.y * 0.5) * size[1]];
        let d = ((px[0] - cursor[0]).powi(2) + (px[1] - cursor[1]).powi(2)).sqrt();
        if d < best_d {
            best_d = d;
            best = Some(j);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::OrbitCamera;

    #[test]
    fn a_click_on_the_forehead_picks_the_head_not_an_eye() {
        let m = crate::demo::mannequin::load();
        let c = &m.character;
        let model = crate::core::Pose::rest(&c.skeleton).model_matrices(&c.skeleton);
        let mut camera = OrbitCamera::default();
        let (min, max) = crate::render::camera::posed_bounds(c, &model);
        camera.frame(min, max, 1.6);
        let vp = camera.view_proj(1.6);
        let size = [1280.0, 800.0];
        // The forehead: above the eyes, on the front of the skull.
        let forehead = vp.project_point3(Vec3::new(0.0, 1.73, 0.09));
        let cursor = [
            (forehead.x * 0.5 + 0.5) * size[0],
            (0.5 - forehead.y * 0.5) * size[1],
        ];
        let ray = ray_through(vp, cursor, size).unwrap();
        let (joint, _) = surface_joint(c, &model, &ray).unwrap();
        assert_eq!(c.skeleton.name(joint), "Head");
        // A click on the shin picks the lower leg.
        let shin = vp.project_point3(Vec3::new(0.1, 0.3, 0.06));
        let cursor = [
            (shin.x * 0.5 + 0.5) * size[0],
            (0.5 - shin.y * 0.5) * size[1],
        ];
        let ray = ray_through(vp, cursor, size).unwrap();
        let (joint, _) = surface_joint(c, &model, &ray).unwrap();
        assert!(
            c.skeleton.name(joint).contains("LowerLeg"),
            "{}",
            c.skeleton.name(joint)
        );
        // Empty space hits nothing.
        let ray = ray_through(vp, [5.0, 5.0], size).unwrap();
        assert!(surface_joint(c, &model, &ray).is_none());
    }
}
