//! Humanoid mapping by joint-name conventions (Unity, Mixamo, Blender and Rigify, 3ds Max Biped, and
//! underscore-suffixed names), chains filled in where names stop.

use std::collections::{BTreeMap, HashMap};

use super::{BodyPart, Finger, HumanBone, HumanoidMap, MappingSource, Side, rest_positions};
use crate::core::naming::{self, NameGuess};
use crate::core::skeleton::Skeleton;

impl HumanoidMap {
    /// Maps by joint-name conventions.
    pub fn from_names(skeleton: &Skeleton) -> Self {
        let positions = rest_positions(skeleton);
        let side_of = |j: usize| {
            if positions[j].x >= 0.0 {
                Side::Left
            } else {
                Side::Right
            }
        };
        let guesses: Vec<Option<NameGuess>> = (0..skeleton.len())
            .map(|j| {
                if !skeleton.deforms(j) {
                    return None;
                }
                naming::guess(skeleton.name(j)).map(|mut g| {
                    if g.part.is_sided() && g.side.is_none() {
                        g.side = Some(side_of(j));
                    }
                    g
                })
            })
            .collect();

        let mut bones = BTreeMap::new();
        // Simple parts: the candidate highest in the hierarchy wins (a second "upper_arm.L.001" is a twist segment).
        let mut simple: HashMap<HumanBone, Vec<usize>> = HashMap::new();
        for (j, g) in guesses.iter().enumerate() {
            if let Some(g) = g
                && let Some(bone) = g.part.bone(g.side)
            {
                simple.entry(bone).or_default().push(j);
            }
        }
        for (bone, mut joints) in simple {
            joints.sort_by_key(|&j| {
                let weak = guesses[j].is_some_and(|g| g.weak);
                let leads_to_middle = subtree_has_word(skeleton, j, &["middle", "mid"]);
                (weak, !leads_to_middle, skeleton.depth(j), j)
            });
            bones.insert(bone, joints[0]);
        }

        // Spine chain: joints between hips and neck, in depth order → Spine, Chest, UpperChest.
        let hips = bones.get(&HumanBone::Hips).copied();
        let mut spine: Vec<usize> = guesses
            .iter()
            .enumerate()
            .filter(|(j, g)| {
                g.is_some_and(|g| g.part == BodyPart::SpineChain)
                    && hips.is_none_or(|h| h != *j && skeleton.is_ancestor_or_self(h, *j))
            })
            .map(|(j, _)| j)
            .collect();
        spine.sort_by_key(|&j| (skeleton.depth(j), j));
        assign_chain(
            &mut bones,
            &spine,
            &[HumanBone::Spine, HumanBone::Chest, HumanBone::UpperChest],
        );

        // Fingers: per side and finger, in depth order → Proximal, Intermediate, Distal.
        for side in [Side::Left, Side::Right] {
            for finger in [
                Finger::Thumb,
                Finger::Index,
                Finger::Middle,
                Finger::Ring,
                Finger::Little,
            ] {
                let mut joints: Vec<usize> = guesses
                    .iter()
                    .enumerate()
                    .filter(|(j, g)| {
                        g.is_some_and(|g| {
                            g.part == BodyPart::Finger(finger) && g.side == Some(side)
                        }) && (finger == Finger::Thumb
                            || !naming::words(skeleton.name(*j))
                                .iter()
                                .any(|w| w == "metacarpal"))
                    })
                    .map(|(j, _)| j)
                    .collect();
                joints.sort_by_key(|&j| (skeleton.depth(j), j));
                // A fourth joint that ends the chain is the fingertip's end marker (Mixamo's "Index4"), not the
                // distal bone: Unity maps Index1-3.
                if joints.len() >= 4
                    && let Some(&tip) = joints.last()
                    && !(0..skeleton.len()).any(|k| skeleton.parent(k) == Some(tip))
                {
                    joints.pop();
                }
                assign_chain(&mut bones, &joints, &finger_bones(side, finger));
            }
        }

        let mut map = HumanoidMap::empty();
        map.source = if bones.is_empty() {
            MappingSource::None
        } else {
            MappingSource::Names
        };
        map.bones = bones;
        map.finish(skeleton);
        map
    }
}

fn finger_bones(side: Side, finger: Finger) -> [HumanBone; 3] {
    let side = match side {
        Side::Left => "Left",
        Side::Right => "Right",
    };
    let finger = match finger {
        Finger::Thumb => "Thumb",
        Finger::Index => "Index",
        Finger::Middle => "Middle",
        Finger::Ring => "Ring",
        Finger::Little => "Little",
    };
    ["Proximal", "Intermediate", "Distal"].map(|seg| {
        HumanBone::from_name(&format!("{side}{finger}{seg}"))
            .expect("every finger segment is a HumanBone")
    })
}

/// Fills bones from a chain of joints: one joint → first bone, two → first two, three or more → first, second, last.
fn assign_chain(bones: &mut BTreeMap<HumanBone, usize>, chain: &[usize], slots: &[HumanBone; 3]) {
    let picks: Vec<usize> = match chain.len() {
        0 => vec![],
        1 => vec![chain[0]],
        2 => vec![chain[0], chain[1]],
        n => vec![chain[0], chain[1], chain[n - 1]],
    };
    for (slot, joint) in slots.iter().zip(picks) {
        bones.entry(*slot).or_insert(joint);
    }
}

fn subtree_has_word(skeleton: &Skeleton, joint: usize, words: &[&str]) -> bool {
    (joint..skeleton.len()).any(|k| {
        skeleton.is_ancestor_or_self(joint, k)
            && naming::words(skeleton.name(k))
                .iter()
                .any(|w| words.contains(&w.as_str()))
    })
}
