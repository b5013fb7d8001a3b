//! Humanoid mapping from the shape of the hierarchy alone: hips branch into two legs and a spine, the chest
//! into two arms and a neck.

use std::collections::BTreeMap;

use glam::Vec3;

use super::{HumanBone, HumanoidMap, MappingSource, rest_positions};
use crate::core::naming;
use crate::core::skeleton::Skeleton;

impl HumanoidMap {
    /// Maps by the shape of the hierarchy: hips branch into two legs and a spine, the chest into two arms and a neck.
    pub fn from_hierarchy(skeleton: &Skeleton) -> Self {
        let mut map = HumanoidMap::empty();
        let positions = rest_positions(skeleton);
        if let Some(bones) = map_by_shape(skeleton, &positions) {
            map.source = MappingSource::Hierarchy;
            map.bones = bones;
        }
        map.finish(skeleton);
        map
    }
}

struct Extent {
    low: f32,
    high: f32,
}

fn extent(skeleton: &Skeleton, p: &[Vec3], root: usize) -> Extent {
    let mut e = Extent {
        low: p[root].y,
        high: p[root].y,
    };
    for k in skeleton.subtree(root) {
        e.low = e.low.min(p[k].y);
        e.high = e.high.max(p[k].y);
    }
    e
}

fn is_end(skeleton: &Skeleton, j: usize) -> bool {
    !skeleton.deforms(j)
        || naming::words(skeleton.name(j))
            .iter()
            .any(|w| matches!(w.as_str(), "end" | "nub" | "tip" | "top"))
}

/// Follows single children down from `start` to the first joint that branches or ends.
fn chain(skeleton: &Skeleton, start: usize) -> Vec<usize> {
    let mut out = vec![start];
    let mut cur = start;
    loop {
        let kids: Vec<usize> = skeleton
            .children(cur)
            .filter(|&c| !is_end(skeleton, c))
            .collect();
        if kids.len() != 1 {
            return out;
        }
        cur = kids[0];
        out.push(cur);
    }
}

/// Picks (first, middle, last): middle is the joint nearest halfway between first and last.
fn limb(chain: &[usize], p: &[Vec3]) -> (usize, usize, usize) {
    let (a, z) = (chain[0], chain[chain.len() - 1]);
    let half = p[a].distance(p[z]) * 0.5;
    let mid = chain[1..chain.len() - 1]
        .iter()
        .copied()
        .min_by(|&x, &y| {
            let dx = (p[a].distance(p[x]) - half).abs();
            let dy = (p[a].distance(p[y]) - half).abs();
            dx.total_cmp(&dy)
        })
        .unwrap_or(chain[1]);
    (a, mid, z)
}

fn map_by_shape(skeleton: &Skeleton, p: &[Vec3]) -> Option<BTreeMap<HumanBone, usize>> {
    use HumanBone as H;
    let n = skeleton.len();
    let (low, high) = p
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), v| (l.min(v.y), h.max(v.y)));
    let height = high - low;
    if n < 10 || height <= 0.0 {
        return None;
    }
    let reach = 0.25 * height;
    let branches = |j: usize| -> (Vec<usize>, Vec<usize>) {
        let mut down = Vec::new();
        let mut up = Vec::new();
        for c in skeleton.children(j).filter(|&c| skeleton.deforms(c)) {
            let e = extent(skeleton, p, c);
            if p[j].y - e.low > reach {
                down.push(c);
            } else if e.high - p[j].y > reach {
                up.push(c);
            }
        }
        (down, up)
    };
    let hips = (0..n).filter(|&j| skeleton.deforms(j)).find(|&j| {
        let (down, up) = branches(j);
        down.len() >= 2 && !up.is_empty()
    })?;
    let (mut legs, up) = branches(hips);
    legs.sort_by(|&a, &b| {
        extent(skeleton, p, a)
            .low
            .total_cmp(&extent(skeleton, p, b).low)
    });
    legs.truncate(2);
    let mut bones = BTreeMap::new();
    bones.insert(H::Hips, hips);

    for leg in legs {
        let c = chain(skeleton, leg);
        if c.len() < 3 {
            return None;
        }
        let left = p[leg].x >= p[hips].x;
        let (u, l, f, t) = if left {
            (H::LeftUpperLeg, H::LeftLowerLeg, H::LeftFoot, H::LeftToes)
        } else {
            (
                H::RightUpperLeg,
                H::RightLowerLeg,
                H::RightFoot,
                H::RightToes,
            )
        };
        let (foot_chain, toes) = if c.len() >= 4 {
            (&c[..c.len() - 1], c.last().copied())
        } else {
            (&c[..], None)
        };
        let (a, m, z) = limb(foot_chain, p);
        bones.insert(u, a);
        bones.insert(l, m);
        bones.insert(f, z);
        if let Some(toe_joint) = toes {
            bones.insert(t, toe_joint);
        }
    }

    // Spine: up from the hips until a joint branches into arms and neck.
    let spine_start = *up.iter().max_by(|&&a, &&b| {
        extent(skeleton, p, a)
            .high
            .total_cmp(&extent(skeleton, p, b).high)
    })?;
    let spine = chain(skeleton, spine_start);
    let chest = *spine.last()?;
    let mut spine_slots = spine.clone();
    let top_children: Vec<usize> = skeleton
        .children(chest)
        .filter(|&c| skeleton.deforms(c) && !is_end(skeleton, c))
        .collect();
    if top_children.len() < 3 {
        return None;
    }
    // The neck is the branch that reaches highest; the arms are the two reaching furthest sideways.
    let neck_start = *top_children.iter().max_by(|&&a, &&b| {
        extent(skeleton, p, a)
            .high
            .total_cmp(&extent(skeleton, p, b).high)
    })?;
    let mut arms: Vec<usize> = top_children
        .iter()
        .copied()
        .filter(|&c| c != neck_start)
        .collect();
    let sideways = |c: usize| {
        skeleton
            .subtree(c)
            .map(|k| (p[k].x - p[chest].x).abs())
            .fold(0.0, f32::max)
    };
    arms.sort_by(|&a, &b| sideways(b).total_cmp(&sideways(a)));
    arms.truncate(2);
    if arms.len() < 2 {
        return None;
    }
    if spine_slots.len() > 3 {
        let last = spine_slots[spine_slots.len() - 1];
        spine_slots = vec![spine_slots[0], spine_slots[1], last];
    }
    for (slot, j) in [H::Spine, H::Chest, H::UpperChest].iter().zip(spine_slots) {
        bones.insert(*slot, j);
    }

    let neck = chain(skeleton, neck_start);
    let head = *neck.last()?;
    bones.insert(H::Head, head);
    if neck.len() >= 2 {
        bones.insert(H::Neck, neck[0]);
    }

    for arm in arms {
        let c = chain(skeleton, arm);
        if c.len() < 3 {
            return None;
        }
        let left = p[*c.last()?].x >= p[chest].x;
        let (s, u, l, h) = if left {
            (
                H::LeftShoulder,
                H::LeftUpperArm,
                H::LeftLowerArm,
                H::LeftHand,
            )
        } else {
            (
                H::RightShoulder,
                H::RightUpperArm,
                H::RightLowerArm,
                H::RightHand,
            )
        };
        let limb_chain = if c.len() >= 4 {
            bones.insert(s, c[0]);
            &c[1..]
        } else {
            &c[..]
        };
        let (a, m, z) = limb(limb_chain, p);
        bones.insert(u, a);
        bones.insert(l, m);
        bones.insert(h, z);
    }
    Some(bones)
}
