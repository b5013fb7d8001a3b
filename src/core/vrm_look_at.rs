//! A VRM's own look-at (`VRMC_vrm.lookAt`, VRM 0.x `firstPerson`): how a look direction (yaw and pitch, degrees)
//! turns the eye bones or shows the look expressions. A VRM Animation's look-at track drives it, as three-vrm
//! 3.5.5 plays it: its `VRMLookAtQuaternionProxy` reads yaw and pitch from the track's rotation (Euler YXZ), and
//! its `VRMLookAtBoneApplier` / `VRMLookAtExpressionApplier` apply them through four range maps.

use glam::{EulerRot, Quat};

/// How the look shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookAtKind {
    /// The leftEye and rightEye bones turn.
    Bone,
    /// The lookUp, lookDown, lookLeft and lookRight expressions show.
    Expression,
}

/// An input angle (degrees) to an output: `output_scale × saturate(angle / input_max_deg)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RangeMap {
    /// The angle at which the output is full (at least 0.01°, as three-vrm clamps it).
    pub input_max_deg: f32,
    /// The output at that angle (degrees for bones, a weight for expressions).
    pub output_scale: f32,
}

impl RangeMap {
    /// The mapped value of `angle_deg`.
    pub fn map(&self, angle_deg: f32) -> f32 {
        self.output_scale * (angle_deg / self.input_max_deg).clamp(0.0, 1.0)
    }
}

/// A character's look-at, as its VRM defines it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VrmLookAt {
    /// Bones or expressions.
    pub kind: LookAtKind,
    /// Inward turn of an eye.
    pub horizontal_inner: RangeMap,
    /// Outward turn of an eye.
    pub horizontal_outer: RangeMap,
    /// Looking down.
    pub vertical_down: RangeMap,
    /// Looking up.
    pub vertical_up: RangeMap,
}

/// Yaw and pitch (degrees) of a look rotation, as three-vrm's proxy reads them: Euler YXZ, yaw about +Y, pitch
/// about +X (negative pitch looks up).
pub fn yaw_pitch(rotation: Quat) -> (f32, f32) {
    let m = glam::Mat3::from_quat(rotation.normalize());
    // three.js's Euler.setFromRotationMatrix, order YXZ.
    let m23 = m.z_axis.y;
    let x = (-m23.clamp(-1.0, 1.0)).asin();
    let y = if m23.abs() < 0.999_999_9 {
        m.z_axis.x.atan2(m.z_axis.z)
    } else {
        (-m.x_axis.z).atan2(m.x_axis.x)
    };
    (y.to_degrees(), x.to_degrees())
}

impl VrmLookAt {
    /// The look expressions' weights (lookUp, lookDown, lookLeft, lookRight) for a look, as three-vrm's
    /// expression applier sets them (both sideways looks read the outer map, as it does).
    pub fn expression_weights(&self, yaw: f32, pitch: f32) -> [(&'static str, f32); 4] {
        let (up, down) = if pitch < 0.0 {
            (self.vertical_up.map(-pitch), 0.0)
        } else {
            (0.0, self.vertical_down.map(pitch))
        };
        let (left, right) = if yaw < 0.0 {
            (0.0, self.horizontal_outer.map(-yaw))
        } else {
            (self.horizontal_outer.map(yaw), 0.0)
        };
        [
            ("lookUp", up),
            ("lookDown", down),
            ("lookLeft", left),
            ("lookRight", right),
        ]
    }

    /// The turn of the left and the right eye (in the character's model frame, facing +Z) for a look, as
    /// three-vrm's bone applier makes them: Euler YXZ from the range maps, inner and outer swapped between eyes.
    pub fn eye_turns(&self, yaw: f32, pitch: f32) -> [Quat; 2] {
        let x = if pitch < 0.0 {
            -self.vertical_down.map(-pitch)
        } else {
            self.vertical_up.map(pitch)
        };
        let turn = |inward_negative: RangeMap, positive: RangeMap| {
            let y = if yaw < 0.0 {
                -inward_negative.map(-yaw)
            } else {
                positive.map(yaw)
            };
            Quat::from_euler(EulerRot::YXZ, y.to_radians(), x.to_radians(), 0.0)
        };
        [
            turn(self.horizontal_inner, self.horizontal_outer),
            turn(self.horizontal_outer, self.horizontal_inner),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A look turned 30° about +Y and 10° about +X (Y then X, as three.js composes YXZ) reads back as yaw 30,
    /// pitch 10.
    #[test]
    fn yaw_and_pitch_come_back_from_a_yxz_rotation() {
        let q =
            Quat::from_rotation_y(30f32.to_radians()) * Quat::from_rotation_x(10f32.to_radians());
        let (yaw, pitch) = yaw_pitch(q);
        assert!(
            (yaw - 30.0).abs() < 1e-4 && (pitch - 10.0).abs() < 1e-4,
            "{yaw} {pitch}"
        );
    }

    /// three-vrm's expression applier: looking up (negative pitch) by half the range shows lookUp at half its
    /// scale; a look to the right (negative yaw) reads the outer map.
    #[test]
    fn expression_weights_follow_three_vrm() {
        let map = |input_max_deg, output_scale| RangeMap {
            input_max_deg,
            output_scale,
        };
        let look = VrmLookAt {
            kind: LookAtKind::Expression,
            horizontal_inner: map(90.0, 0.5),
            horizontal_outer: map(60.0, 1.0),
            vertical_down: map(90.0, 1.0),
            vertical_up: map(40.0, 1.0),
        };
        let w = look.expression_weights(-30.0, -20.0);
        assert_eq!(
            w,
            [
                ("lookUp", 0.5),
                ("lookDown", 0.0),
                ("lookLeft", 0.0),
                ("lookRight", 0.5)
            ]
        );
    }
}
