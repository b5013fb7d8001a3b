//! Spring bones: the last layer of the stack. Each joint's tail is integrated with Verlet steps and the joint is
//! turned toward it, exactly as three-vrm 3.5.5's `VRMSpringBoneJoint.update` (the VRM spec's reference
//! algorithm) does it:
//! - inertia `(current − previous) × (1 − drag)` in the spring's center space, then in world space a pull along
//!   the joint's initial axis (`stiffness × dt`) and gravity (`gravity_dir × gravity_power × dt`);
//! - the tail is put back at the bone's length, the length three-vrm re-measures at every update from the
//!   tail's world position as it was left by the previous update (at the first update, where the reset put it);
//! - colliders (sphere, capsule, plane; `inside` from the extended colliders) push it out, each followed by the
//!   length constraint again;
//! - the joint's rotation is rebuilt from its initial local rotation (its animated rotation is dropped).
//!
//! Joints run in three-vrm's order: a joint after every spring joint above its parent and above its colliders'
//! joints; after each joint, the joints below it that are not spring joints are moved with it.
//!
//! Timing (the Evaluator's clock rules): the state resets on a seek (tails where the current pose puts them,
//! three-vrm's `reset()`), is stepped by the frame's `dt` while playing or paused, and on the bake grid when
//! baking. [`SpringStep::Fixed`] replaces three-vrm's one step per frame by fixed steps at a chosen rate, so the
//! motion does not depend on the frame rate.

use std::collections::BTreeMap;

use glam::{Mat3, Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::ParamError;
use crate::core::spring::{ColliderShape, SpringSettings};
use crate::core::{Character, Skeleton, Transform};
use crate::runtime::LocalToModelJob;

/// How the springs are stepped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpringStep {
    /// One step per frame with the frame's `dt`, as three-vrm (the motion depends on the frame rate).
    #[default]
    PerFrame,
    /// Steps of `1 / rate_hz` seconds, as many as the frames' time covers (at most [`MAX_SUBSTEPS`] a frame).
    Fixed,
}

/// Most fixed steps one frame takes; a longer frame drops the rest of its time.
pub const MAX_SUBSTEPS: u32 = 16;

/// A spring chain a preset adds on any rig, by joint name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpringChain {
    /// Its name.
    pub name: String,
    /// Joint names, root first. Each joint swings toward the next; the last toward its first child joint, or a
    /// virtual tail 7 cm along its rest offset when it has none.
    pub joints: Vec<String>,
    /// Settings of every joint of the chain.
    pub settings: SpringSettings,
    /// Names of the character's collider groups it collides with.
    pub collider_groups: Vec<String>,
    /// A joint whose space the tails move in (None: world space).
    pub center: Option<String>,
}

/// The springs' parameters, as presets store them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpringParams {
    /// Simulate at all.
    pub enabled: bool,
    /// One step per frame or fixed steps.
    pub step: SpringStep,
    /// Rate of the fixed steps (Hz).
    pub rate_hz: f32,
    /// Seconds of updates with the first pose held before a bake's first frame, to settle the springs.
    pub preroll_s: f32,
    /// Chains added by joint name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<SpringChain>,
    /// Settings replacing a joint's own, by joint name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub joints: BTreeMap<String, SpringSettings>,
    /// Names of springs (the file's or the chains') that do not move.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disabled: Vec<String>,
}

impl Default for SpringParams {
    fn default() -> Self {
        SpringParams {
            enabled: true,
            step: SpringStep::PerFrame,
            rate_hz: 60.0,
            preroll_s: 0.0,
            chains: Vec::new(),
            joints: BTreeMap::new(),
            disabled: Vec::new(),
        }
    }
}

fn check_settings(s: &SpringSettings) -> Result<(), ParamError> {
    super::check("hit_radius", s.hit_radius, 0.0, 10.0)?;
    super::check("stiffness", s.stiffness, 0.0, 1000.0)?;
    super::check("gravity_power", s.gravity_power, 0.0, 1000.0)?;
    super::check("drag_force", s.drag_force, 0.0, 1.0)?;
    for (i, c) in s.gravity_dir.iter().enumerate() {
        super::check(&format!("gravity_dir[{i}]"), *c, -1000.0, 1000.0)?;
    }
    Ok(())
}

impl SpringParams {
    /// Checks every value; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        super::check("rate_hz", self.rate_hz, 1.0, 2000.0)?;
        super::check("preroll_s", self.preroll_s, 0.0, 600.0)?;
        for (i, c) in self.chains.iter().enumerate() {
            let field = format!("chains[{i}]");
            if c.joints.is_empty() {
                return Err(ParamError::new(
                    format!("{field}.joints"),
                    "a chain needs at least one joint",
                ));
            }
            check_settings(&c.settings).map_err(|e| e.under(&format!("{field}.settings")))?;
        }
        for (name, s) in &self.joints {
            check_settings(s).map_err(|e| e.under(&format!("joints.{name}")))?;
        }
        Ok(())
    }
}

/// One joint of the bound rig.
#[derive(Clone, Debug, PartialEq)]
struct RigJoint {
    joint: usize,
    tail: Option<usize>,
    settings: SpringSettings,
    /// The initial direction to the tail, in the joint's own space (unit).
    bone_axis: Vec3,
    initial_local: Mat4,
    initial_rotation: Quat,
    /// The tail in the joint's own space at rest.
    initial_tail: Vec3,
    center: Option<usize>,
    /// Colliders, flattened over the spring's groups in order (indices into `colliders`).
    colliders: Vec<usize>,
    /// Joints below it that move with it (not below another spring joint), parents first.
    followers: Vec<usize>,
    /// Its parent is a spring joint or moves with one: its world matrix changes during an update.
    parent_moves: bool,
    /// `bone_axis` through `initial_local`'s 3×3 part, normalised (constant: three-vrm computes it per update).
    initial_axis: Vec3,
    /// Index of the spring it belongs to.
    spring: usize,
}

/// A collider of the bound rig.
#[derive(Clone, Copy, Debug, PartialEq)]
struct RigCollider {
    joint: usize,
    shape: ColliderShape,
    /// Its joint is a spring joint or moves with one: its matrix is taken when a joint uses it, not once per
    /// update.
    moves: bool,
}

/// The springs bound to one character: the file's and the preset's chains, in the order they run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpringRig {
    joints: Vec<RigJoint>,
    colliders: Vec<RigCollider>,
    /// Spring names, by spring index.
    springs: Vec<String>,
    /// The joints whose world matrices an update reads (the spring joints, their tails, the joints that move
    /// with them, the colliders' and centers' joints, and every joint above those), parents first.
    needed: Vec<usize>,
    /// Chains of the preset that name joints the character lacks.
    pub problems: Vec<String>,
}

/// A spring joint as the editor lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct SpringJointInfo {
    /// The joint.
    pub joint: usize,
    /// Its tail joint (None: a virtual tail).
    pub tail: Option<usize>,
    /// The spring it belongs to.
    pub spring: String,
    /// The settings in use.
    pub settings: SpringSettings,
}

impl SpringRig {
    /// Binds the character's springs and the parameters' chains; a joint listed in `params.joints` takes those
    /// settings.
    pub fn bind(params: &SpringParams, character: &Character) -> Self {
        let skeleton = &character.skeleton;
        let setup = &character.springs;
        let mut rig = SpringRig {
            colliders: setup
                .colliders
                .iter()
                .map(|c| RigCollider {
                    joint: c.joint,
                    shape: c.shape,
                    moves: false,
                })
                .collect(),
            ..SpringRig::default()
        };
        let mut entries: Vec<Entry> = Vec::new();
        let colliders_of = |groups: &[usize]| -> Vec<usize> {
            groups
                .iter()
                .filter_map(|&g| setup.collider_groups.get(g))
                .flat_map(|g| g.colliders.iter().copied())
                .filter(|&c| c < setup.colliders.len())
                .collect()
        };
        for spring in &setup.springs {
            let s = rig.springs.len();
            rig.springs.push(spring.name.clone());
            if params.disabled.contains(&spring.name) {
                continue;
            }
            let colliders = colliders_of(&spring.collider_groups);
            for j in &spring.joints {
                entries.push(Entry {
                    joint: j.joint,
                    tail: j.tail,
                    settings: j.settings,
                    spring: s,
                    center: spring.center,
                    colliders: colliders.clone(),
                });
            }
        }
        for chain in &params.chains {
            let s = rig.springs.len();
            rig.springs.push(chain.name.clone());
            if params.disabled.contains(&chain.name) {
                continue;
            }
            let found: Vec<Option<usize>> = chain
                .joints
                .iter()
                .map(|n| super::resolve_joint(character, n))
                .collect();
            if let Some(missing) = chain.joints.iter().zip(&found).find(|(_, j)| j.is_none()) {
                rig.problems.push(format!(
                    "spring chain '{}' names joint '{}', which the character lacks",
                    chain.name, missing.0
                ));
                continue;
            }
            let joints: Vec<usize> = found.into_iter().flatten().collect();
            let groups: Vec<usize> = chain
                .collider_groups
                .iter()
                .filter_map(|name| setup.collider_groups.iter().position(|g| g.name == *name))
                .collect();
            let center = chain
                .center
                .as_deref()
                .and_then(|c| super::resolve_joint(character, c));
            let colliders = colliders_of(&groups);
            for (i, &j) in joints.iter().enumerate() {
                let tail = joints
                    .get(i + 1)
                    .copied()
                    .or_else(|| skeleton.children(j).next());
                entries.push(Entry {
                    joint: j,
                    tail,
                    settings: chain.settings,
                    spring: s,
                    center,
                    colliders: colliders.clone(),
                });
            }
        }
        let is_spring = {
            let mut v = vec![false; skeleton.len()];
            for e in &entries {
                if e.joint < v.len() {
                    v[e.joint] = true;
                }
            }
            v
        };
        // A joint moves during an update when it or a joint above it is a spring joint.
        let mut moved = is_spring.clone();
        for k in 0..skeleton.len() {
            if let Some(p) = skeleton.parent(k) {
                moved[k] |= moved[p];
            }
        }
        for c in &mut rig.colliders {
            c.moves = moved.get(c.joint).copied().unwrap_or(false);
        }
        let mut needed = vec![false; skeleton.len()];
        let need = |k: usize, needed: &mut Vec<bool>| {
            let mut j = Some(k);
            while let Some(x) = j.filter(|&x| x < needed.len() && !needed[x]) {
                needed[x] = true;
                j = skeleton.parent(x);
            }
        };
        for e in &entries {
            need(e.joint, &mut needed);
            for k in e.tail.into_iter().chain(e.center) {
                need(k, &mut needed);
            }
            for k in skeleton.subtree(e.joint) {
                need(k, &mut needed);
            }
        }
        for c in &rig.colliders {
            need(c.joint, &mut needed);
        }
        rig.needed = (0..skeleton.len()).filter(|&k| needed[k]).collect();
        for Entry {
            joint,
            tail,
            settings,
            spring,
            center,
            colliders,
        } in sort(skeleton, entries, &rig.colliders)
        {
            let rest = skeleton.rest()[joint];
            let initial_tail = match tail {
                Some(t) => Vec3::from(skeleton.rest()[t].translation),
                None => {
                    let p = Vec3::from(rest.translation);
                    three_normalize(p) * 0.07
                }
            };
            let settings = params
                .joints
                .get(skeleton.name(joint))
                .copied()
                .unwrap_or(settings);
            let followers = skeleton
                .subtree(joint)
                .skip(1)
                .filter(|&d| {
                    let mut k = d;
                    while k != joint {
                        if is_spring[k] {
                            return false;
                        }
                        match skeleton.parent(k) {
                            Some(p) => k = p,
                            None => return false,
                        }
                    }
                    true
                })
                .collect();
            let bone_axis = three_normalize(initial_tail);
            rig.joints.push(RigJoint {
                joint,
                tail,
                settings,
                bone_axis,
                parent_moves: skeleton.parent(joint).is_some_and(|p| moved[p]),
                initial_axis: transform_direction(rest.to_mat4(), bone_axis),
                initial_local: rest.to_mat4(),
                initial_rotation: rest.rotation,
                initial_tail,
                center,
                colliders,
                followers,
                spring,
            });
        }
        rig
    }

    /// True when there is nothing to simulate.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// The joints in the order they run.
    pub fn joint_infos(&self) -> Vec<SpringJointInfo> {
        self.joints
            .iter()
            .map(|j| SpringJointInfo {
                joint: j.joint,
                tail: j.tail,
                spring: self.springs[j.spring].clone(),
                settings: j.settings,
            })
            .collect()
    }

    /// Spring names, in order.
    pub fn spring_names(&self) -> &[String] {
        &self.springs
    }

    /// Each joint's tail point in model space for a pose's model matrices (the tail joint, or the virtual
    /// tail), with the joint and its hit radius: what the viewport draws.
    pub fn tails(&self, model: &[Mat4]) -> Vec<(usize, Vec3, f32)> {
        self.joints
            .iter()
            .filter(|j| j.joint < model.len())
            .map(|j| {
                let p = match j.tail.filter(|&t| t < model.len()) {
                    Some(t) => model[t].w_axis.truncate(),
                    None => model[j.joint].transform_point3(j.initial_tail),
                };
                (j.joint, p, j.settings.hit_radius)
            })
            .collect()
    }

    /// Number of colliders bound.
    pub fn collider_count(&self) -> usize {
        self.colliders.len()
    }

    /// Every collider of the character placed by a pose's model matrices: (joint, shape in model space), a sphere's
    /// and capsule's radius scaled as the joint's matrix scales.
    pub fn placed_colliders(character: &Character, model: &[Mat4]) -> Vec<(usize, ColliderShape)> {
        character
            .springs
            .colliders
            .iter()
            .filter(|c| c.joint < model.len())
            .map(|c| {
                let m = model[c.joint];
                let scale = m.x_axis.truncate().length();
                let shape = match c.shape {
                    ColliderShape::Sphere {
                        offset,
                        radius,
                        inside,
                    } => ColliderShape::Sphere {
                        offset: m.transform_point3(offset),
                        radius: radius * scale,
                        inside,
                    },
                    ColliderShape::Capsule {
                        offset,
                        tail,
                        radius,
                        inside,
                    } => ColliderShape::Capsule {
                        offset: m.transform_point3(offset),
                        tail: m.transform_point3(tail),
                        radius: radius * scale,
                        inside,
                    },
                    ColliderShape::Plane { offset, normal } => ColliderShape::Plane {
                        offset: m.transform_point3(offset),
                        normal: three_normalize(Mat3::from_mat4(m).inverse().transpose() * normal),
                    },
                };
                (c.joint, shape)
            })
            .collect()
    }

    /// Steps the springs and writes their joints' rotations into `local` (see the module documentation).
    /// `placement` puts the character in the world; a [`super::Step::Reset`] rests the springs where this pose puts
    /// them.
    pub fn apply(
        &self,
        params: &SpringParams,
        skeleton: &Skeleton,
        placement: Mat4,
        step: super::Step,
        state: &mut SpringState,
        local: &mut [Transform],
    ) {
        if !params.enabled || self.joints.is_empty() || local.len() != skeleton.len() {
            state.fresh = false;
            state.steps = 0;
            return;
        }
        let n = skeleton.len();
        state.world.resize(n, Mat4::IDENTITY);
        let root = placement * skeleton.root_transform();
        if self.needed.len() * 2 < n {
            // Only what the springs read (a VRM's hair hangs off a few of its many joints).
            for &k in &self.needed {
                state.world[k] =
                    Self::parent_world(skeleton, &state.world, root, k) * local[k].to_mat4();
            }
        } else {
            if LocalToModelJob::all(skeleton, local, &mut state.world)
                .run()
                .is_err()
            {
                return;
            }
            if placement != Mat4::IDENTITY {
                for m in &mut state.world {
                    *m = placement * *m;
                }
            }
        }
        let sized = state.current.len() == self.joints.len();
        if !sized || !state.fresh || step == super::Step::Reset {
            self.reset(skeleton, root, state, local);
            state.fresh = true;
            state.steps = 0;
            return;
        }
        let dt = match step {
            super::Step::Advance(dt) => dt,
            super::Step::Hold | super::Step::Reset => 0.0,
        };
        let (steps, h) = match params.step {
            SpringStep::PerFrame => (u32::from(dt > 0.0), dt),
            SpringStep::Fixed => {
                let h = 1.0 / params.rate_hz.clamp(1.0, 2000.0);
                state.accumulator += dt.max(0.0);
                // A frame of exactly n steps must take n although its time and the step's are rounded.
                let mut steps = (state.accumulator / h + 1e-3).floor();
                if steps > MAX_SUBSTEPS as f32 {
                    steps = MAX_SUBSTEPS as f32;
                    state.accumulator = 0.0;
                } else {
                    state.accumulator = (state.accumulator - steps * h).max(0.0);
                }
                (steps as u32, h)
            }
        };
        state.steps = steps;
        for _ in 0..steps {
            self.update(params, skeleton, root, h, state, local);
        }
        for (i, j) in self.joints.iter().enumerate() {
            local[j.joint].rotation = state.rotation[i];
        }
    }

    fn parent_world(skeleton: &Skeleton, world: &[Mat4], root: Mat4, joint: usize) -> Mat4 {
        skeleton.parent(joint).map_or(root, |p| world[p])
    }

    /// Moves a joint's world matrix to its local transform, and the joints that follow it.
    fn place(
        &self,
        skeleton: &Skeleton,
        root: Mat4,
        j: &RigJoint,
        world: &mut [Mat4],
        local: &[Transform],
    ) {
        world[j.joint] =
            Self::parent_world(skeleton, world, root, j.joint) * local[j.joint].to_mat4();
        for &f in &j.followers {
            world[f] = Self::parent_world(skeleton, world, root, f) * local[f].to_mat4();
        }
    }

    fn to_center(world: &[Mat4], center: Option<usize>) -> Mat4 {
        center.map_or(Mat4::IDENTITY, |c| affine_inverse(world[c]))
    }

    /// three-vrm's `reset()`: every joint at its initial rotation, its tail where that puts it.
    fn reset(
        &self,
        skeleton: &Skeleton,
        root: Mat4,
        state: &mut SpringState,
        local: &mut [Transform],
    ) {
        let k = self.joints.len();
        state.current.resize(k, Vec3::ZERO);
        state.prev.resize(k, Vec3::ZERO);
        state.child_left.resize(k, Vec3::ZERO);
        state.rotation.resize(k, Quat::IDENTITY);
        state.accumulator = 0.0;
        for (i, j) in self.joints.iter().enumerate() {
            local[j.joint].rotation = j.initial_rotation;
            state.rotation[i] = j.initial_rotation;
            self.place(skeleton, root, j, &mut state.world, local);
            let tail = state.world[j.joint].transform_point3(j.initial_tail);
            let c = Self::to_center(&state.world, j.center).transform_point3(tail);
            state.current[i] = c;
            state.prev[i] = c;
        }
        self.remember_tails(state);
    }

    /// Where each tail joint stands now: the next update measures bone lengths from there.
    fn remember_tails(&self, state: &mut SpringState) {
        for (i, j) in self.joints.iter().enumerate() {
            if let Some(t) = j.tail {
                state.child_left[i] = state.world[t].w_axis.truncate();
            }
        }
    }

    /// One update of every joint by `dt` (three-vrm's `VRMSpringBoneManager.update`).
    fn update(
        &self,
        _params: &SpringParams,
        skeleton: &Skeleton,
        root: Mat4,
        dt: f32,
        state: &mut SpringState,
        local: &mut [Transform],
    ) {
        // Colliders on joints no spring moves: their matrices once per update (three-vrm refreshes them with the
        // ancestors before the joints run).
        state.colliders.clear();
        state.colliders.extend(
            self.colliders
                .iter()
                .map(|c| collider_matrix(state.world[c.joint], c.shape.offset())),
        );
        for (i, j) in self.joints.iter().enumerate() {
            if j.parent_moves {
                self.place(skeleton, root, j, &mut state.world, local);
            }
            let world = &state.world;
            let bone = world[j.joint];
            let position = bone.w_axis.truncate();
            let child = match j.tail {
                Some(_) => state.child_left[i],
                None => bone.transform_point3(j.initial_tail),
            };
            let length = (position - child).length();
            let parent = Self::parent_world(skeleton, world, root, j.joint);
            let axis = transform_direction(parent, j.initial_axis);
            let s = &j.settings;
            let center_to_world = j.center.map_or(Mat4::IDENTITY, |c| world[c]);
            let inertia = (state.current[i] - state.prev[i]) * (1.0 - s.drag_force);
            let mut next = center_to_world.transform_point3(state.current[i] + inertia)
                + axis * (s.stiffness * dt)
                + Vec3::from_array(s.gravity_dir) * (s.gravity_power * dt);
            next = three_normalize(next - position) * length + position;
            for &c in &j.colliders {
                let collider = self.colliders[c];
                let matrix = if collider.moves {
                    collider_matrix(world[collider.joint], collider.shape.offset())
                } else {
                    state.colliders[c]
                };
                if let Some(push) = collide(&collider.shape, &matrix, next, s.hit_radius) {
                    next += push;
                    let d = next - position;
                    next = d * (length / d.length()) + position;
                }
            }
            state.prev[i] = state.current[i];
            state.current[i] = Self::to_center(world, j.center).transform_point3(next);
            let to_initial = affine_inverse(parent * j.initial_local);
            let direction = three_normalize(to_initial.transform_point3(next));
            let rotation = j.initial_rotation * from_unit_vectors(j.bone_axis, direction);
            state.rotation[i] = rotation;
            local[j.joint].rotation = rotation;
            self.place(skeleton, root, j, &mut state.world, local);
        }
        self.remember_tails(state);
    }
}

/// The runs of the springs that persist between frames.
#[derive(Clone, Debug, Default)]
pub struct SpringState {
    current: Vec<Vec3>,
    prev: Vec<Vec3>,
    child_left: Vec<Vec3>,
    rotation: Vec<Quat>,
    world: Vec<Mat4>,
    colliders: Vec<Mat4>,
    accumulator: f32,
    /// False until a reset placed the tails (a seek clears it).
    fresh: bool,
    /// Updates the last frame took.
    steps: u32,
}

impl SpringState {
    /// Forgets the tails: the next evaluation puts them where its pose puts them.
    pub fn reset(&mut self) {
        self.fresh = false;
    }

    /// Updates the last evaluation took (0 after a reset, or a fixed-step frame shorter than a step).
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// The tails in their spring's center space (world space without a center), in the rig's joint order.
    pub fn tails(&self) -> &[Vec3] {
        &self.current
    }
}

/// The inverse of an affine matrix (every matrix here is: no projection), cheaper than a general 4×4 inverse.
fn affine_inverse(m: Mat4) -> Mat4 {
    Mat4::from(glam::Affine3A::from_mat4(m).inverse())
}

/// three.js's `Vector3.normalize`: divides by the length, or by 1 when it is 0.
fn three_normalize(v: Vec3) -> Vec3 {
    let l = v.length();
    if l == 0.0 { v } else { v / l }
}

/// three.js's `Vector3.transformDirection`: the 3×3 part, then normalised.
fn transform_direction(m: Mat4, v: Vec3) -> Vec3 {
    three_normalize(Mat3::from_mat4(m) * v)
}

/// three.js's `Quaternion.setFromUnitVectors` (r187), including its choice of axis for opposite vectors.
pub fn from_unit_vectors(from: Vec3, to: Vec3) -> Quat {
    let r = from.dot(to) + 1.0;
    let q = if r < 1e-8 {
        if from.x.abs() > from.z.abs() {
            Quat::from_xyzw(-from.y, from.x, 0.0, 0.0)
        } else {
            Quat::from_xyzw(0.0, -from.z, from.y, 0.0)
        }
    } else {
        let c = from.cross(to);
        Quat::from_xyzw(c.x, c.y, c.z, r)
    };
    q.normalize()
}

/// The collider's matrix: the joint's world matrix moved to the shape's offset (three-vrm's
/// `updateColliderMatrix`).
fn collider_matrix(world: Mat4, offset: Vec3) -> Mat4 {
    let mut m = world;
    m.w_axis = world.transform_point3(offset).extend(1.0);
    m
}

/// A sphere of radius `r` (the shape's, about its nearest point) against the tail sphere `d` away: the signed gap
/// and the unit direction to push along (three-vrm's sphere and capsule `calculateCollision`).
fn round_contact(d: Vec3, r: f32, radius: f32, inside: bool) -> (f32, Vec3) {
    let length = d.length();
    if inside {
        (r - radius - length, -d / length)
    } else {
        (length - radius - r, d / length)
    }
}

/// How far a tail sphere at `tail` must move to leave (or stay inside) the shape; None when it does not touch.
fn collide(shape: &ColliderShape, matrix: &Mat4, tail: Vec3, radius: f32) -> Option<Vec3> {
    let origin = matrix.w_axis.truncate();
    let (distance, direction) = match *shape {
        ColliderShape::Sphere {
            radius: r, inside, ..
        } => round_contact(tail - origin, r, radius, inside),
        ColliderShape::Capsule {
            offset,
            tail: end,
            radius: r,
            inside,
        } => {
            let axis = matrix.transform_point3(end - offset) - origin;
            let length_sq = axis.length_squared();
            let mut d = tail - origin;
            let dot = axis.dot(d);
            if dot > 0.0 {
                d -= if length_sq <= dot {
                    axis
                } else {
                    axis * (dot / length_sq)
                };
            }
            round_contact(d, r, radius, inside)
        }
        ColliderShape::Plane { normal, .. } => {
            let normal_matrix = Mat3::from_mat4(*matrix).inverse().transpose();
            let n = three_normalize(normal_matrix * normal);
            ((tail - origin).dot(n) - radius, n)
        }
    };
    (distance < 0.0).then(|| direction * -distance)
}

/// A spring joint before sorting.
struct Entry {
    joint: usize,
    tail: Option<usize>,
    settings: SpringSettings,
    spring: usize,
    center: Option<usize>,
    colliders: Vec<usize>,
}

/// The entries sorted as three-vrm's `_sortJoints`: depth first in insertion order, each entry after the
/// entries on joints above its parent and above its colliders' joints (those from the root down).
fn sort(skeleton: &Skeleton, entries: Vec<Entry>, colliders: &[RigCollider]) -> Vec<Entry> {
    struct Sorter<'a> {
        skeleton: &'a Skeleton,
        entries: &'a [Entry],
        colliders: &'a [RigCollider],
        on_joint: Vec<Vec<usize>>,
        tried: Vec<bool>,
        order: Vec<usize>,
    }
    impl Sorter<'_> {
        fn insert(&mut self, i: usize) {
            if self.tried[i] {
                return;
            }
            self.tried[i] = true;
            let e = &self.entries[i];
            let deps: Vec<usize> = self
                .skeleton
                .parent(e.joint)
                .into_iter()
                .chain(
                    e.colliders
                        .iter()
                        .filter_map(|&c| self.colliders.get(c).map(|c| c.joint)),
                )
                .collect();
            for dep in deps {
                let mut chain = vec![dep];
                let mut k = dep;
                while let Some(p) = self.skeleton.parent(k) {
                    chain.push(p);
                    k = p;
                }
                for &a in chain.iter().rev() {
                    for other in self.on_joint[a].clone() {
                        self.insert(other);
                    }
                }
            }
            self.order.push(i);
        }
    }
    let n = skeleton.len();
    let entries: Vec<Entry> = entries.into_iter().filter(|e| e.joint < n).collect();
    let mut on_joint: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in entries.iter().enumerate() {
        on_joint[e.joint].push(i);
    }
    let mut sorter = Sorter {
        skeleton,
        entries: &entries,
        colliders,
        on_joint,
        tried: vec![false; entries.len()],
        order: Vec::with_capacity(entries.len()),
    };
    for i in 0..entries.len() {
        sorter.insert(i);
    }
    let order = sorter.order;
    let mut slots: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::spring::{Collider, ColliderGroup, Spring, SpringJoint, SpringSetup};
    use crate::core::{JointDef, Skeleton};

    /// root → a → b → c: a horizontal chain 10 cm a link along +X, one metre up.
    fn character(settings: SpringSettings, collider: Option<ColliderShape>) -> Character {
        let joint = |name: &str, parent: Option<usize>, x: f32, y: f32| JointDef {
            name: name.into(),
            parent,
            rest: Transform {
                translation: Vec3::new(x, y, 0.0).into(),
                ..Transform::IDENTITY
            },
            deforms: true,
        };
        let skeleton = Skeleton::new(
            vec![
                joint("root", None, 0.0, 1.0),
                joint("a", Some(0), 0.0, 0.0),
                joint("b", Some(1), 0.1, 0.0),
                joint("c", Some(2), 0.1, 0.0),
            ],
            Mat4::IDENTITY,
        )
        .unwrap();
        let mut c = Character::skeleton_only(&skeleton, None);
        c.springs = SpringSetup {
            springs: vec![Spring {
                name: "chain".into(),
                joints: vec![
                    SpringJoint {
                        joint: 1,
                        tail: Some(2),
                        settings,
                    },
                    SpringJoint {
                        joint: 2,
                        tail: Some(3),
                        settings,
                    },
                ],
                collider_groups: if collider.is_some() { vec![0] } else { vec![] },
                center: None,
            }],
            colliders: collider
                .map(|shape| Collider { joint: 0, shape })
                .into_iter()
                .collect(),
            collider_groups: vec![ColliderGroup {
                name: "g".into(),
                colliders: vec![0],
            }],
            ..SpringSetup::default()
        };
        c
    }

    fn run(
        c: &Character,
        params: &SpringParams,
        frames: usize,
        dt: f32,
        placement: impl Fn(usize) -> Mat4,
    ) -> Vec<Mat4> {
        let rig = SpringRig::bind(params, c);
        let mut state = SpringState::default();
        let mut local = c.skeleton.rest().to_vec();
        for k in 0..=frames {
            local.copy_from_slice(c.skeleton.rest());
            rig.apply(
                params,
                &c.skeleton,
                placement(k),
                crate::layers::Step::Advance(dt),
                &mut state,
                &mut local,
            );
        }
        let mut model = vec![Mat4::IDENTITY; local.len()];
        LocalToModelJob::all(&c.skeleton, &local, &mut model)
            .run()
            .unwrap();
        model
    }

    fn hanging() -> SpringSettings {
        SpringSettings {
            stiffness: 0.0,
            gravity_power: 1.0,
            drag_force: 0.4,
            ..SpringSettings::default()
        }
    }

    /// With no stiffness, gravity and drag, a chain held out sideways falls and comes to rest hanging straight
    /// down, its links keeping their lengths (a damped pendulum).
    #[test]
    fn a_chain_under_gravity_alone_ends_up_hanging_straight_down() {
        let c = character(hanging(), None);
        let m = run(&c, &SpringParams::default(), 600, 1.0 / 60.0, |_| {
            Mat4::IDENTITY
        });
        let (a, b, tip) = (
            m[1].w_axis.truncate(),
            m[2].w_axis.truncate(),
            m[3].w_axis.truncate(),
        );
        for (from, to) in [(a, b), (b, tip)] {
            let link = to - from;
            assert!((link.length() - 0.1).abs() < 1e-4, "{link}");
            assert!(link.normalize().dot(Vec3::NEG_Y) > 0.9998, "{link}");
        }
    }

    /// Stiffness pulls a joint back toward its rest direction: a stiff chain under the same gravity droops less.
    #[test]
    fn stiffness_holds_the_chain_nearer_its_rest_direction() {
        let droop = |stiffness: f32| {
            let c = character(
                SpringSettings {
                    stiffness,
                    ..hanging()
                },
                None,
            );
            let m = run(&c, &SpringParams::default(), 600, 1.0 / 60.0, |_| {
                Mat4::IDENTITY
            });
            (m[3].w_axis.truncate() - m[1].w_axis.truncate())
                .normalize()
                .dot(Vec3::X)
        };
        assert!(droop(4.0) > droop(1.0) + 0.1);
        assert!(droop(1.0) > droop(0.0) + 0.1);
    }

    /// A sphere collider under the chain: the tails rest outside it, at least its radius plus the hit radius
    /// from its centre.
    #[test]
    fn a_sphere_collider_keeps_the_hanging_tails_out() {
        let centre = Vec3::new(0.02, -0.12, 0.0);
        let sphere = ColliderShape::Sphere {
            offset: centre,
            radius: 0.06,
            inside: false,
        };
        let settings = SpringSettings {
            hit_radius: 0.01,
            ..hanging()
        };
        let c = character(settings, Some(sphere));
        let m = run(&c, &SpringParams::default(), 600, 1.0 / 60.0, |_| {
            Mat4::IDENTITY
        });
        let world_centre = Vec3::new(0.0, 1.0, 0.0) + centre;
        for j in [2, 3] {
            let d = m[j].w_axis.truncate().distance(world_centre);
            assert!(d >= 0.07 - 1e-4, "joint {j} is {d} m from the centre");
        }
        let free = run(
            &character(hanging(), None),
            &SpringParams::default(),
            600,
            1.0 / 60.0,
            |_| Mat4::IDENTITY,
        );
        assert!(
            free[2].w_axis.truncate().distance(world_centre) < 0.07,
            "the sphere is in the way"
        );
    }

    /// Fixed steps make the motion independent of the frame rate: 60 frames at 60 fps and 30 frames at 30 fps
    /// give the same chain (the body moves every 1/30 s, and both frame rates step it there the same); three-vrm's one step
    /// per frame does not.
    #[test]
    fn fixed_steps_give_the_same_motion_at_any_frame_rate() {
        let c = character(
            SpringSettings {
                stiffness: 1.0,
                gravity_power: 0.5,
                drag_force: 0.2,
                ..SpringSettings::default()
            },
            None,
        );
        let sway = |fps: f32| {
            move |k: usize| {
                let t = (k as f32 / fps * 30.0 - 1e-3).ceil() / 30.0;
                Mat4::from_translation(Vec3::X * (t * 9.0).sin() * 0.3)
            }
        };
        let fixed = SpringParams {
            step: SpringStep::Fixed,
            rate_hz: 60.0,
            ..SpringParams::default()
        };
        let tip = |params: &SpringParams, fps: f32| {
            run(&c, params, fps as usize, 1.0 / fps, sway(fps))[3]
                .w_axis
                .truncate()
        };
        assert!(tip(&fixed, 60.0).distance(tip(&fixed, 30.0)) < 1e-4);
        let per_frame = SpringParams::default();
        assert!(tip(&per_frame, 60.0).distance(tip(&per_frame, 30.0)) > 1e-3);
    }

    /// three.js's `setFromUnitVectors` for opposite vectors turns half a turn about an axis it picks from the
    /// larger of x and z of the first vector.
    #[test]
    fn opposite_vectors_turn_half_way_round_as_three_js_picks() {
        assert_eq!(
            from_unit_vectors(Vec3::X, Vec3::NEG_X),
            Quat::from_xyzw(0.0, 1.0, 0.0, 0.0)
        );
        assert_eq!(
            from_unit_vectors(Vec3::Z, Vec3::NEG_Z),
            Quat::from_xyzw(0.0, -1.0, 0.0, 0.0)
        );
        let q = from_unit_vectors(Vec3::Y, Vec3::X);
        assert!((q * Vec3::Y).distance(Vec3::X) < 1e-6);
    }

    /// A seek resets the springs: the next evaluation puts the tails where the pose puts them, so the chain shows
    /// its rest rotations again.
    #[test]
    fn a_reset_puts_the_chain_back_where_the_pose_puts_it() {
        let c = character(hanging(), None);
        let params = SpringParams::default();
        let rig = SpringRig::bind(&params, &c);
        let mut state = SpringState::default();
        let mut local = c.skeleton.rest().to_vec();
        // One frame from the rest pose.
        let step = |state: &mut SpringState, local: &mut Vec<Transform>| {
            local.copy_from_slice(c.skeleton.rest());
            rig.apply(
                &params,
                &c.skeleton,
                Mat4::IDENTITY,
                crate::layers::Step::Advance(1.0 / 60.0),
                state,
                local,
            );
        };
        for _ in 0..60 {
            step(&mut state, &mut local);
        }
        assert!(
            local[1]
                .rotation
                .angle_between(c.skeleton.rest()[1].rotation)
                > 0.1
        );
        state.reset();
        step(&mut state, &mut local);
        assert_eq!(state.steps(), 0);
        assert_eq!(local[1].rotation, c.skeleton.rest()[1].rotation);
    }

    /// A chain a preset names by joint: the last joint swings toward its child; a name the rig lacks is reported.
    #[test]
    fn preset_chains_bind_by_joint_name_and_report_missing_joints() {
        let mut c = character(hanging(), None);
        c.springs = SpringSetup::default();
        let params = SpringParams {
            chains: vec![
                SpringChain {
                    name: "tail".into(),
                    joints: vec!["a".into(), "b".into()],
                    settings: hanging(),
                    ..SpringChain::default()
                },
                SpringChain {
                    name: "ears".into(),
                    joints: vec!["ear".into()],
                    ..SpringChain::default()
                },
            ],
            ..SpringParams::default()
        };
        let rig = SpringRig::bind(&params, &c);
        let tails: Vec<Option<usize>> = rig.joint_infos().iter().map(|j| j.tail).collect();
        assert_eq!(tails, [Some(2), Some(3)]);
        assert_eq!(rig.problems.len(), 1);
        assert!(rig.problems[0].contains("'ear'"), "{:?}", rig.problems);
    }
}
