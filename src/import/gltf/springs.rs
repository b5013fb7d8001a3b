//! Spring bones of a VRM: `VRMC_springBone` (1.0, with `VRMC_springBone_extended_collider`) or
//! `secondaryAnimation` (0.x), converted as three-vrm 3.5.5's `VRMSpringBoneLoaderPlugin` converts them:
//! - 1.0: each joint but the last of a spring is a spring joint whose tail is the next joint; the spring's
//!   `center` and collider groups apply to all of them; a property left out takes three-vrm's default.
//! - 0.x: every node below (and including) each of a bone group's `bones` is a joint, in depth-first order, and
//!   its tail is its first child (a leaf gets a virtual tail); collider offsets have z negated; `stiffiness` is
//!   read; `center` −1 means none. A node reached twice in one bone group (a bone listed twice, or listed under
//!   another of the group's bones) is one joint, where three-vrm would simulate it twice.
//!
//! Bounds: a model has at most [`MAX_SPRING_JOINTS`] spring joints and as many springs (bone groups), at most
//! [`MAX_SPRING_COLLIDERS`] colliders and as many collider groups, and one spring reaches at most
//! [`MAX_SPRING_COLLIDERS`] colliders through its groups; a file over any of them is refused, the message naming
//! the count (for 0.x joints, that it is past the limit) and the limit. Counts are checked before their lists
//! are read, and 0.x joints as they are reached, so no more than the limit is ever made. A collider listed
//! twice in a group, or a group listed twice by a spring, counts once.
//!
//! Everything is read by node first ([`SpringNodes`]) so the skeleton can include every node the springs use,
//! then mapped to joints ([`SpringNodes::into_joints`]).

use std::collections::HashMap;

use ::gltf as gl;
use glam::Vec3;
use serde_json::Value;

use super::nodes::NodeGraph;
use crate::core::spring::{
    Collider, ColliderGroup, ColliderShape, Spring, SpringJoint, SpringSettings, SpringSetup,
    SpringSource,
};

/// The most spring joints a model may have, all its springs together (and the most springs): real models
/// have tens to a few thousand; at this many, even on a few nodes listed over and over, a release build binds
/// the rig in a tenth of a second and runs an update in under 2 ms.
pub const MAX_SPRING_JOINTS: usize = 10_000;

/// The most colliders (and collider groups) a model's springs may have, and the most colliders one spring may
/// reach through its collider groups: real models have tens. Every update tests each spring joint against the
/// colliders its spring reaches, so this and [`MAX_SPRING_JOINTS`] bound an update's work.
pub const MAX_SPRING_COLLIDERS: usize = 1_024;

/// A spring joint by node.
struct NodeJoint {
    node: usize,
    tail: Option<usize>,
    settings: SpringSettings,
}

/// A spring by node.
struct NodeSpring {
    name: String,
    joints: Vec<NodeJoint>,
    collider_groups: Vec<usize>,
    center: Option<usize>,
}

/// The springs of a document by node index.
pub(super) struct SpringNodes {
    source: SpringSource,
    springs: Vec<NodeSpring>,
    colliders: Vec<(usize, ColliderShape)>,
    collider_groups: Vec<ColliderGroup>,
    /// What was skipped (bad references), for the import notes.
    pub(super) notes: Vec<String>,
}

fn f32_of(v: &Value, key: &str) -> Option<f32> {
    v.get(key).and_then(Value::as_f64).map(|x| x as f32)
}

fn vec3_of(v: Option<&Value>) -> Option<Vec3> {
    let a = v?.as_array()?;
    if a.len() != 3 {
        return None;
    }
    let c = |i: usize| a[i].as_f64().map(|x| x as f32);
    Some(Vec3::new(c(0)?, c(1)?, c(2)?))
}

/// A VRM 0.x `{x, y, z}` object (a missing component is 0, as three-vrm reads it).
fn xyz_of(v: &Value) -> Vec3 {
    let c = |k: &str| f32_of(v, k).unwrap_or(0.0);
    Vec3::new(c("x"), c("y"), c("z"))
}

fn node_of(v: Option<&Value>, nodes: usize) -> Option<usize> {
    v.and_then(Value::as_u64)
        .map(|n| n as usize)
        .filter(|&n| n < nodes)
}

fn finite_or(value: Option<f32>, default: f32) -> f32 {
    value.filter(|v| v.is_finite()).unwrap_or(default)
}

/// A joint's (1.0) or bone group's (0.x) settings; what is left out takes three-vrm's default.
fn settings_of(v: &Value, stiffness_key: &str, gravity_dir: Option<Vec3>) -> SpringSettings {
    let d = SpringSettings::default();
    SpringSettings {
        hit_radius: finite_or(f32_of(v, "hitRadius"), d.hit_radius),
        stiffness: finite_or(f32_of(v, stiffness_key), d.stiffness),
        gravity_power: finite_or(f32_of(v, "gravityPower"), d.gravity_power),
        gravity_dir: gravity_dir
            .filter(|g| g.is_finite())
            .map_or(d.gravity_dir, |g| g.to_array()),
        drag_force: finite_or(f32_of(v, "dragForce"), d.drag_force),
    }
}

/// The array under `key`, empty when it is missing or not an array.
fn array_of<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Refuses `count` `what` over `limit`.
fn check_count(what: &str, count: usize, limit: usize) -> Result<(), String> {
    if count > limit {
        return Err(format!(
            "{count} {what}, more than the {limit} a model may have"
        ));
    }
    Ok(())
}

/// The indices listed under `key` that are below `limit` (others are dropped, as three-vrm drops them), each
/// once, in the order they first appear: the result has at most `limit` entries whatever the list's length.
fn indices_below(v: &Value, key: &str, limit: usize) -> Vec<usize> {
    let mut seen = vec![false; limit];
    array_of(v, key)
        .iter()
        .filter_map(|i| i.as_u64().and_then(|i| usize::try_from(i).ok()))
        .filter(|&i| i < limit && !std::mem::replace(&mut seen[i], true))
        .collect()
}

/// The colliders a spring reaches through its collider groups (a collider in two groups counts twice, as the
/// update tests it twice), refused over [`MAX_SPRING_COLLIDERS`].
fn check_reach(
    name: &str,
    groups: &[usize],
    collider_groups: &[ColliderGroup],
) -> Result<(), String> {
    let reach: usize = groups
        .iter()
        .map(|&g| collider_groups[g].colliders.len())
        .sum();
    if reach > MAX_SPRING_COLLIDERS {
        return Err(format!(
            "spring '{name}' reaches {reach} colliders through its collider groups, more than the \
             {MAX_SPRING_COLLIDERS} a spring may have"
        ));
    }
    Ok(())
}

impl SpringNodes {
    /// Reads the springs of `document` (1.0 first, as three-vrm does); none when it has neither extension. Err:
    /// the springs are over a bound (see the module docs), saying which.
    pub(super) fn read(document: &gl::Document, graph: &NodeGraph) -> Result<Self, String> {
        let mut out = SpringNodes {
            source: SpringSource::None,
            springs: Vec::new(),
            colliders: Vec::new(),
            collider_groups: Vec::new(),
            notes: Vec::new(),
        };
        if let Some(ext) = document.extension_value("VRMC_springBone") {
            out.source = SpringSource::Vrm1;
            out.read_vrm1(ext, graph.len())
                .map_err(|e| format!("VRMC_springBone: {e}"))?;
        } else if let Some(sa) = document
            .extension_value("VRM")
            .and_then(|v| v.get("secondaryAnimation"))
        {
            out.source = SpringSource::Vrm0;
            out.read_vrm0(sa, graph)
                .map_err(|e| format!("VRM secondaryAnimation: {e}"))?;
        }
        Ok(out)
    }

    fn read_vrm1(&mut self, ext: &Value, nodes: usize) -> Result<(), String> {
        let colliders = array_of(ext, "colliders");
        check_count("spring colliders", colliders.len(), MAX_SPRING_COLLIDERS)?;
        let groups = array_of(ext, "colliderGroups");
        check_count("collider groups", groups.len(), MAX_SPRING_COLLIDERS)?;
        let springs = array_of(ext, "springs");
        check_count("springs", springs.len(), MAX_SPRING_JOINTS)?;
        // Each joint but a spring's last is a spring joint.
        let joints: usize = springs
            .iter()
            .map(|s| array_of(s, "joints").len().saturating_sub(1))
            .sum();
        check_count("spring joints", joints, MAX_SPRING_JOINTS)?;
        let mut collider_index: Vec<Option<usize>> = Vec::with_capacity(colliders.len());
        for (i, c) in colliders.iter().enumerate() {
            let Some(node) = node_of(c.get("node"), nodes) else {
                self.notes
                    .push(format!("spring collider {i} names no node; skipped"));
                collider_index.push(None);
                continue;
            };
            let extended = c
                .pointer("/extensions/VRMC_springBone_extended_collider")
                .filter(|e| e.get("specVersion").and_then(Value::as_str) == Some("1.0"))
                .and_then(|e| e.get("shape"));
            let shape = extended
                .and_then(|s| shape_of(s, true))
                .or_else(|| c.get("shape").and_then(|s| shape_of(s, false)));
            match shape {
                Some(shape) => {
                    collider_index.push(Some(self.colliders.len()));
                    self.colliders.push((node, shape));
                }
                None => {
                    self.notes
                        .push(format!("spring collider {i} has no valid shape; skipped"));
                    collider_index.push(None);
                }
            }
        }
        for (i, g) in groups.iter().enumerate() {
            let colliders = indices_below(g, "colliders", collider_index.len())
                .into_iter()
                .filter_map(|c| collider_index[c])
                .collect();
            let name = g
                .get("name")
                .and_then(Value::as_str)
                .map_or_else(|| format!("colliders {i}"), str::to_string);
            self.collider_groups.push(ColliderGroup { name, colliders });
        }
        let groups = self.collider_groups.len();
        for (i, s) in springs.iter().enumerate() {
            let schema = array_of(s, "joints");
            let mut joints = Vec::with_capacity(schema.len().saturating_sub(1));
            let mut missing = false;
            for pair in schema.windows(2) {
                let (Some(node), Some(tail)) = (
                    node_of(pair[0].get("node"), nodes),
                    node_of(pair[1].get("node"), nodes),
                ) else {
                    missing = true;
                    continue;
                };
                joints.push(NodeJoint {
                    node,
                    tail: Some(tail),
                    settings: settings_of(
                        &pair[0],
                        "stiffness",
                        vec3_of(pair[0].get("gravityDir")),
                    ),
                });
            }
            if missing {
                self.notes
                    .push(format!("spring {i} has a joint without a node; skipped"));
            }
            let collider_groups = indices_below(s, "colliderGroups", groups);
            let name = s
                .get("name")
                .and_then(Value::as_str)
                .map_or_else(|| format!("spring {i}"), str::to_string);
            check_reach(&name, &collider_groups, &self.collider_groups)?;
            self.springs.push(NodeSpring {
                name,
                joints,
                collider_groups,
                center: node_of(s.get("center"), nodes),
            });
        }
        Ok(())
    }

    fn read_vrm0(&mut self, sa: &Value, graph: &NodeGraph) -> Result<(), String> {
        let nodes = graph.len();
        let collider_groups = array_of(sa, "colliderGroups");
        check_count(
            "collider groups",
            collider_groups.len(),
            MAX_SPRING_COLLIDERS,
        )?;
        let colliders: usize = collider_groups
            .iter()
            .map(|g| array_of(g, "colliders").len())
            .sum();
        check_count("spring colliders", colliders, MAX_SPRING_COLLIDERS)?;
        let bone_groups = array_of(sa, "boneGroups");
        check_count(
            "springs (bone groups)",
            bone_groups.len(),
            MAX_SPRING_JOINTS,
        )?;
        for (i, g) in collider_groups.iter().enumerate() {
            let Some(node) = node_of(g.get("node"), nodes) else {
                self.notes
                    .push(format!("collider group {i} names no node; skipped"));
                self.collider_groups.push(ColliderGroup {
                    name: format!("colliders {i}"),
                    colliders: Vec::new(),
                });
                continue;
            };
            let mut colliders = Vec::new();
            for c in array_of(g, "colliders") {
                let offset = c.get("offset").map_or(Vec3::ZERO, xyz_of);
                colliders.push(self.colliders.len());
                self.colliders.push((
                    node,
                    ColliderShape::Sphere {
                        // z is opposite in VRM 0.x (three-vrm negates it).
                        offset: Vec3::new(offset.x, offset.y, -offset.z),
                        radius: finite_or(f32_of(c, "radius"), 0.0),
                        inside: false,
                    },
                ));
            }
            self.collider_groups.push(ColliderGroup {
                name: format!("colliders {i} ({})", graph.names[node]),
                colliders,
            });
        }
        let groups = self.collider_groups.len();
        // The bone group that last reached each node: a node reached twice in one group is one joint.
        let mut reached_in: Vec<Option<usize>> = vec![None; nodes];
        let mut total = 0usize;
        for (i, g) in bone_groups.iter().enumerate() {
            // VRM 0.x spells stiffness "stiffiness".
            let settings = settings_of(g, "stiffiness", g.get("gravityDir").map(xyz_of));
            let collider_groups = indices_below(g, "colliderGroups", groups);
            let center = g
                .get("center")
                .and_then(Value::as_i64)
                .filter(|&c| c >= 0)
                .and_then(|c| usize::try_from(c).ok())
                .filter(|&c| c < nodes);
            let comment = g.get("comment").and_then(Value::as_str).unwrap_or("");
            let name = if comment.is_empty() {
                format!("group {i}")
            } else {
                comment.to_string()
            };
            check_reach(&name, &collider_groups, &self.collider_groups)?;
            let mut joints = Vec::new();
            let mut missing = false;
            for root in array_of(g, "bones") {
                let Some(root) = node_of(Some(root), nodes) else {
                    missing = true;
                    continue;
                };
                // Depth-first, children in file order (three.js's `traverse`); the tail is the first child.
                let mut stack = vec![root];
                while let Some(n) = stack.pop() {
                    if reached_in[n] == Some(i) {
                        continue;
                    }
                    reached_in[n] = Some(i);
                    total += 1;
                    if total > MAX_SPRING_JOINTS {
                        return Err(format!(
                            "more than {MAX_SPRING_JOINTS} spring joints (the limit a model may have) in bone \
                             groups 0 to {i} of {}",
                            bone_groups.len()
                        ));
                    }
                    joints.push(NodeJoint {
                        node: n,
                        tail: graph.children[n].first().copied(),
                        settings,
                    });
                    stack.extend(graph.children[n].iter().rev());
                }
            }
            if missing {
                self.notes.push(format!(
                    "spring bone group {i} names a missing node; skipped"
                ));
            }
            self.springs.push(NodeSpring {
                name,
                joints,
                collider_groups,
                center,
            });
        }
        Ok(())
    }

    /// Every node the springs use: the skeleton must hold them as joints.
    pub(super) fn nodes(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .springs
            .iter()
            .flat_map(|s| {
                s.joints
                    .iter()
                    .flat_map(|j| std::iter::once(j.node).chain(j.tail))
                    .chain(s.center)
            })
            .chain(self.colliders.iter().map(|(n, _)| *n))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The springs by joint index; anything on a node outside the skeleton is dropped with a note.
    pub(super) fn into_joints(
        mut self,
        node_to_joint: &HashMap<usize, usize>,
        names: &[String],
        notes: &mut Vec<String>,
    ) -> SpringSetup {
        notes.append(&mut self.notes);
        let joint = |n: usize, notes: &mut Vec<String>| {
            let j = node_to_joint.get(&n).copied();
            if j.is_none() {
                notes.push(format!(
                    "spring node '{}' is not a skeleton joint; left out",
                    names[n]
                ));
            }
            j
        };
        let mut collider_map = Vec::with_capacity(self.colliders.len());
        let mut colliders = Vec::new();
        for (node, shape) in &self.colliders {
            collider_map.push(joint(*node, notes).map(|j| {
                colliders.push(Collider {
                    joint: j,
                    shape: *shape,
                });
                colliders.len() - 1
            }));
        }
        let collider_groups = self
            .collider_groups
            .into_iter()
            .map(|g| ColliderGroup {
                name: g.name,
                colliders: g
                    .colliders
                    .iter()
                    .filter_map(|&c| collider_map.get(c).copied().flatten())
                    .collect(),
            })
            .collect();
        let springs = self
            .springs
            .into_iter()
            .map(|s| Spring {
                name: s.name,
                joints: s
                    .joints
                    .iter()
                    .filter_map(|j| {
                        Some(SpringJoint {
                            joint: joint(j.node, notes)?,
                            tail: j.tail.and_then(|t| node_to_joint.get(&t).copied()),
                            settings: j.settings,
                        })
                    })
                    .collect(),
                collider_groups: s.collider_groups,
                center: s.center.and_then(|c| joint(c, notes)),
            })
            .collect();
        SpringSetup {
            source: self.source,
            springs,
            colliders,
            collider_groups,
        }
    }
}

/// A `shape` object: sphere or capsule (and, from the extended colliders, plane and `inside`).
fn shape_of(s: &Value, extended: bool) -> Option<ColliderShape> {
    let inside = |v: &Value| extended && v.get("inside").and_then(Value::as_bool) == Some(true);
    let offset = |v: &Value| {
        vec3_of(v.get("offset"))
            .filter(|o| o.is_finite())
            .unwrap_or(Vec3::ZERO)
    };
    let radius = |v: &Value| finite_or(f32_of(v, "radius"), 0.0);
    if let Some(v) = s.get("sphere") {
        return Some(ColliderShape::Sphere {
            offset: offset(v),
            radius: radius(v),
            inside: inside(v),
        });
    }
    if let Some(v) = s.get("capsule") {
        return Some(ColliderShape::Capsule {
            offset: offset(v),
            tail: vec3_of(v.get("tail"))
                .filter(|t| t.is_finite())
                .unwrap_or(Vec3::ZERO),
            radius: radius(v),
            inside: inside(v),
        });
    }
    if extended && let Some(v) = s.get("plane") {
        return Some(ColliderShape::Plane {
            offset: offset(v),
            normal: vec3_of(v.get("normal"))
                .filter(|n| n.is_finite())
                .unwrap_or(Vec3::Z),
        });
    }
    None
}
