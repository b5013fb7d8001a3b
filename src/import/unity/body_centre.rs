//! The centre of mass of the reference humanoid, which Unity's humanoid clips move (`RootT` is the body's centre
//! of mass, in units of its height in the T-pose): adult proportions in a T-pose and segment masses, so the hips
//! can be placed under a posed body's centre.
//!
//! Segment masses and the centres' places along each segment are Winter's anthropometric table (Biomechanics
//! and Motor Control of Human Movement, table 4.1): thigh 10 % at 0.433, leg 4.65 % at 0.433, foot 1.45 %,
//! upper arm 2.8 % at 0.436, forearm 1.6 % at 0.430, hand 0.6 %, head and neck 8.1 %, the trunk's 49.7 % split
//! over pelvis, abdomen and thorax. Unity's own table is not published; the docs say so.

use glam::{Quat, Vec3};

use crate::core::humanoid::{BodyPart, HumanBone, Side};

/// A joint of the reference humanoid: its bone (none for an end point), its parent's index, T-pose position
/// (metres, +Y up, facing +Z, its left on +X).
struct Joint {
    bone: Option<HumanBone>,
    parent: Option<usize>,
    position: Vec3,
}

/// The reference's joints and body segments.
pub struct Reference {
    joints: Vec<Joint>,
    /// Segments: from joint, to joint, fraction of the body's mass, centre's place from `from` (0..1).
    segments: Vec<(usize, usize, f32, f32)>,
    /// The centre of mass in the T-pose.
    t_pose_centre: Vec3,
}

impl Reference {
    /// The reference humanoid (hips 0.98 m high in the T-pose).
    pub fn new() -> Self {
        let mut joints: Vec<Joint> = Vec::new();
        let mut add = |bone: Option<HumanBone>, parent: Option<usize>, p: [f32; 3]| {
            joints.push(Joint {
                bone,
                parent,
                position: Vec3::from(p),
            });
            joints.len() - 1
        };
        let hips = add(Some(HumanBone::Hips), None, [0.0, 0.98, 0.0]);
        let spine = add(Some(HumanBone::Spine), Some(hips), [0.0, 1.08, 0.0]);
        let chest = add(Some(HumanBone::Chest), Some(spine), [0.0, 1.20, 0.0]);
        let upper = add(Some(HumanBone::UpperChest), Some(chest), [0.0, 1.32, 0.0]);
        let neck = add(Some(HumanBone::Neck), Some(upper), [0.0, 1.47, 0.0]);
        let head = add(Some(HumanBone::Head), Some(neck), [0.0, 1.56, 0.0]);
        let head_top = add(None, Some(head), [0.0, 1.76, 0.0]);
        let mut segments = vec![
            (hips, spine, 0.142, 0.5),
            (spine, chest, 0.139, 0.5),
            (chest, upper, 0.108, 0.5),
            (upper, neck, 0.108, 0.5),
            (neck, head_top, 0.081, 0.5),
        ];
        for (side, s) in [(Side::Left, 1.0f32), (Side::Right, -1.0)] {
            let bone = |b: BodyPart| b.bone(Some(side));
            let x = |v: f32| v * s;
            let shoulder = add(bone(BodyPart::Shoulder), Some(upper), [x(0.03), 1.42, 0.0]);
            let arm = add(
                bone(BodyPart::UpperArm),
                Some(shoulder),
                [x(0.17), 1.42, 0.0],
            );
            let forearm = add(bone(BodyPart::LowerArm), Some(arm), [x(0.44), 1.42, 0.0]);
            let hand = add(bone(BodyPart::Hand), Some(forearm), [x(0.69), 1.42, 0.0]);
            let fingertips = add(None, Some(hand), [x(0.87), 1.42, 0.0]);
            let thigh = add(bone(BodyPart::UpperLeg), Some(hips), [x(0.09), 0.93, 0.0]);
            let leg = add(bone(BodyPart::LowerLeg), Some(thigh), [x(0.09), 0.51, 0.0]);
            let foot = add(bone(BodyPart::Foot), Some(leg), [x(0.09), 0.09, 0.0]);
            let toes = add(bone(BodyPart::Toes), Some(foot), [x(0.09), 0.025, 0.13]);
            let toe_tip = add(None, Some(toes), [x(0.09), 0.02, 0.20]);
            segments.extend([
                (arm, forearm, 0.028, 0.436),
                (forearm, hand, 0.016, 0.430),
                (hand, fingertips, 0.006, 0.5),
                (thigh, leg, 0.100, 0.433),
                (leg, foot, 0.0465, 0.433),
                (foot, toe_tip, 0.0145, 0.5),
            ]);
        }
        let mut reference = Reference {
            joints,
            segments,
            t_pose_centre: Vec3::ZERO,
        };
        reference.t_pose_centre = reference.hips_height() * Vec3::Y
            + reference.centre_from_hips(Quat::IDENTITY, |_| None);
        reference
    }

    /// The hips' height in the T-pose, metres.
    pub fn hips_height(&self) -> f32 {
        self.joints[0].position.y
    }

    /// The centre of mass in the T-pose, metres: Unity's body position of 1 in height.
    pub fn t_pose_centre(&self) -> Vec3 {
        self.t_pose_centre
    }

    /// Where the centre of mass lies from the hips, in the reference's axes, with the hips turned by `hips` and
    /// each bone by `local(bone)` from its T-pose (None: as in the T-pose).
    pub fn centre_from_hips(&self, hips: Quat, local: impl Fn(HumanBone) -> Option<Quat>) -> Vec3 {
        let mut world = Vec::with_capacity(self.joints.len());
        let mut position = Vec::with_capacity(self.joints.len());
        for joint in &self.joints {
            let turn = joint.bone.and_then(&local).unwrap_or(Quat::IDENTITY);
            match joint.parent {
                None => {
                    world.push(hips);
                    position.push(Vec3::ZERO);
                }
                Some(p) => {
                    let offset = joint.position - self.joints[p].position;
                    position.push(position[p] + world[p] * offset);
                    world.push(world[p] * turn);
                }
            }
        }
        let (mut sum, mut mass) = (Vec3::ZERO, 0.0);
        for &(a, b, m, f) in &self.segments {
            sum += m * position[a].lerp(position[b], f);
            mass += m;
        }
        sum / mass
    }
}

impl Default for Reference {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_centre_sits_just_above_the_hips_in_the_t_pose_and_moves_with_the_legs() {
        let r = Reference::new();
        let c = r.t_pose_centre();
        assert!(c.x.abs() < 1e-5 && c.z.abs() < 0.01, "{c}");
        // A standing adult's centre of mass lies a little above the hip joints.
        assert!((1.0..1.08).contains(&c.y), "{c}");
        // Both thighs raised forward to the horizontal bring the centre forward and up from the hips.
        let raised = Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2);
        let sitting = r.centre_from_hips(Quat::IDENTITY, |b| {
            matches!(b, HumanBone::LeftUpperLeg | HumanBone::RightUpperLeg).then_some(raised)
        });
        assert!(
            sitting.z > 0.05 && sitting.y > c.y - r.hips_height(),
            "{sitting}"
        );
    }
}
