//! Spring bones as data: chains of joints that swing after the body (hair, skirts, tails), the colliders they
//! bounce off, and each joint's settings. VRM 1.0's `VRMC_springBone` and VRM 0.x's `secondaryAnimation` are read
//! into this form at import, converted as three-vrm converts them; a preset can add chains on any rig by joint
//! name. The simulation is the springs layer's.

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Where a character's springs came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpringSource {
    /// No springs in the file.
    #[default]
    None,
    /// VRM 1.0 `VRMC_springBone`.
    Vrm1,
    /// VRM 0.x `secondaryAnimation`.
    Vrm0,
}

/// How one joint swings (VRM 1.0's joint properties; VRM 0.x's bone-group properties).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpringSettings {
    /// Radius of the joint's tail sphere against colliders (metres).
    pub hit_radius: f32,
    /// Pull back toward the joint's rest direction (per second).
    pub stiffness: f32,
    /// Strength of gravity (metres per second).
    pub gravity_power: f32,
    /// Direction of gravity in world space, used as given (three-vrm does not normalise it).
    pub gravity_dir: [f32; 3],
    /// Share of the tail's velocity lost per update, 0 to 1.
    pub drag_force: f32,
}

impl Default for SpringSettings {
    /// three-vrm's defaults for a joint that leaves a property out (its drag is 0.4; the schema says 0.5).
    fn default() -> Self {
        SpringSettings {
            hit_radius: 0.0,
            stiffness: 1.0,
            gravity_power: 0.0,
            gravity_dir: [0.0, -1.0, 0.0],
            drag_force: 0.4,
        }
    }
}

/// One joint of a spring chain.
#[derive(Clone, Debug, PartialEq)]
pub struct SpringJoint {
    /// The joint that turns.
    pub joint: usize,
    /// The joint its tail is (the next joint of the chain); None: a virtual tail 0.07 m along the joint's own
    /// rest offset (VRM 0.x leaves).
    pub tail: Option<usize>,
    /// How it swings.
    pub settings: SpringSettings,
}

/// A chain of joints simulated together.
#[derive(Clone, Debug, PartialEq)]
pub struct Spring {
    /// Its name (the file's, or "group N").
    pub name: String,
    /// Its joints, root first.
    pub joints: Vec<SpringJoint>,
    /// Indices of the collider groups its joints collide with.
    pub collider_groups: Vec<usize>,
    /// The joint whose space the tails are integrated in (VRM `center`): None for world space.
    pub center: Option<usize>,
}

/// The shape of a collider, in its joint's space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColliderShape {
    /// A sphere around `offset`; `inside` keeps tails within it instead of out of it.
    Sphere {
        /// Centre in the joint's space.
        offset: Vec3,
        /// Radius (metres).
        radius: f32,
        /// Keeps tails inside (VRMC_springBone_extended_collider).
        inside: bool,
    },
    /// A capsule from `offset` to `tail`.
    Capsule {
        /// One end in the joint's space.
        offset: Vec3,
        /// The other end in the joint's space.
        tail: Vec3,
        /// Radius (metres).
        radius: f32,
        /// Keeps tails inside.
        inside: bool,
    },
    /// A plane through `offset` facing `normal` (VRMC_springBone_extended_collider).
    Plane {
        /// A point of the plane in the joint's space.
        offset: Vec3,
        /// Its normal in the joint's space.
        normal: Vec3,
    },
}

impl ColliderShape {
    /// The shape's origin in its joint's space.
    pub fn offset(&self) -> Vec3 {
        match self {
            ColliderShape::Sphere { offset, .. }
            | ColliderShape::Capsule { offset, .. }
            | ColliderShape::Plane { offset, .. } => *offset,
        }
    }
}

/// A collider on a joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collider {
    /// The joint it moves with.
    pub joint: usize,
    /// Its shape.
    pub shape: ColliderShape,
}

/// Colliders a spring refers to together.
#[derive(Clone, Debug, PartialEq)]
pub struct ColliderGroup {
    /// Its name (the file's, or "colliders N").
    pub name: String,
    /// Indices into [`SpringSetup::colliders`].
    pub colliders: Vec<usize>,
}

/// Every spring of a character, with its colliders.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpringSetup {
    /// Where they came from.
    pub source: SpringSource,
    /// The chains.
    pub springs: Vec<Spring>,
    /// Every collider.
    pub colliders: Vec<Collider>,
    /// Collider groups.
    pub collider_groups: Vec<ColliderGroup>,
}

impl SpringSetup {
    /// True when there is nothing to simulate.
    pub fn is_empty(&self) -> bool {
        self.springs.iter().all(|s| s.joints.is_empty())
    }

    /// Number of joints over every chain.
    pub fn joint_count(&self) -> usize {
        self.springs.iter().map(|s| s.joints.len()).sum()
    }
}
