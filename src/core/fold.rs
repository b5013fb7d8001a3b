//! Folding the motion of humanoid bones a target does not have into their nearest mapped ancestor: a clip from a
//! rig with an UpperChest, played on one without, turns its Chest by the source's Chest and UpperChest rotations
//! together instead of dropping the upper one. This is our rule, chosen so the neck and arms keep their motion in
//! model space: three-vrm's Mixamo example drops the missing bone's rotation, and the VRM spec's note gives it to
//! the children instead.

use glam::Quat;

use super::HumanBone;
use super::clip::{Clip, Interpolation, Keys, Track};

/// The bones whose motion folds into their parent when the target lacks them: the optional links of the spine,
/// whose children (neck, shoulders) then hang from the parent as they hung from them. Other missing bones
/// (fingers, toes, eyes) are left out: folding them up would turn a hand by a finger's curl.
pub const FOLDED_UP: [HumanBone; 2] = [HumanBone::Chest, HumanBone::UpperChest];
use super::humanoid::HumanoidMap;
use super::skeleton::Skeleton;

/// One fold made: a source bone's track composed into its parent bone's track.
#[derive(Clone, Debug, PartialEq)]
pub struct Fold {
    /// The bone the target lacks (its track's path in the source).
    pub from: String,
    /// The track it was folded into (the parent bone's path in the source).
    pub into: String,
}

/// The sorted union of two key time lists.
fn union_times(a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut t: Vec<f32> = a.iter().chain(b).copied().collect();
    t.sort_by(f32::total_cmp);
    t.dedup_by(|x, y| (*x - *y).abs() <= 1e-6);
    t
}

/// `clip` with every track of a [`FOLDED_UP`] bone that finds no joint of `skeleton` by path or name, and that
/// the target `humanoid` does not map, folded into its parent track when that track is its humanoid parent's and the
/// target maps it: the parent's rotation becomes parent × child at the union of their key times (linear), and its
/// rest rotation likewise, so retargeting between rest poses keeps the motion. Returns None when nothing folds.
pub fn fold_unmapped_bones(
    clip: &Clip,
    skeleton: &Skeleton,
    humanoid: &HumanoidMap,
) -> Option<(Clip, Vec<Fold>)> {
    let direct = |t: &Track| {
        skeleton.find_by_path(&t.target.path).is_some()
            || (!t.target.name.is_empty() && skeleton.find_by_name(&t.target.name).is_some())
    };
    let mut tracks = clip.tracks.clone();
    let mut folds = Vec::new();
    // Deepest paths first, so a chain of missing bones folds step by step toward the mapped ancestor.
    let mut order: Vec<usize> = (0..tracks.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(tracks[i].target.path.matches('/').count()));
    let mut removed = vec![false; tracks.len()];
    for i in order {
        let t = &tracks[i];
        let Some(bone) = t.target.human_bone.filter(|b| FOLDED_UP.contains(b)) else {
            continue;
        };
        if direct(t) || humanoid.joint(bone).is_some() {
            continue;
        }
        let Some(parent_path) = t.target.path.rsplit_once('/').map(|(p, _)| p.to_string()) else {
            continue;
        };
        let Some(p) = (0..tracks.len())
            .find(|&k| k != i && !removed[k] && tracks[k].target.path == parent_path)
        else {
            continue;
        };
        let parent_bone = tracks[p].target.human_bone;
        if parent_bone != bone.parent() {
            continue;
        }
        let child = tracks[i].clone();
        let parent = &mut tracks[p];
        let child_rotation = |time: f32| {
            child
                .rotation
                .as_ref()
                .map_or(child.target.rest.rotation, |k| k.sample(time))
        };
        let parent_rotation = |time: f32| {
            parent
                .rotation
                .as_ref()
                .map_or(parent.target.rest.rotation, |k| k.sample(time))
        };
        let empty: &[f32] = &[];
        let times = union_times(
            parent.rotation.as_ref().map_or(empty, |k| k.times()),
            child.rotation.as_ref().map_or(empty, |k| k.times()),
        );
        let times = if times.is_empty() { vec![0.0] } else { times };
        let mut values: Vec<Quat> = times
            .iter()
            .map(|&time| (parent_rotation(time) * child_rotation(time)).normalize())
            .collect();
        for k in 1..values.len() {
            if values[k].dot(values[k - 1]) < 0.0 {
                values[k] = -values[k];
            }
        }
        parent.rotation = Keys::new(times, values, Interpolation::Linear).ok();
        parent.target.rest.rotation =
            (parent.target.rest.rotation * child.target.rest.rotation).normalize();
        folds.push(Fold {
            from: child.target.path.clone(),
            into: parent.target.path.clone(),
        });
        removed[i] = true;
    }
    if folds.is_empty() {
        return None;
    }
    let mut kept = Vec::with_capacity(tracks.len());
    for (t, gone) in tracks.into_iter().zip(removed) {
        if !gone {
            kept.push(t);
        }
    }
    let mut folded = Clip::new(clip.name.clone(), kept);
    folded.duration = clip.duration;
    folded.facing_yaw = clip.facing_yaw;
    Some((folded, folds))
}

/// Binds `clip` to `skeleton` as [`Clip::bind`] does, after folding the tracks of humanoid bones the target
/// lacks into their parents' ([`fold_unmapped_bones`]): the clip to play (folded or not) and its binding, whose
/// `folded` lists what was folded.
pub fn bind_folding<'c>(
    clip: &'c Clip,
    skeleton: &Skeleton,
    humanoid: Option<&HumanoidMap>,
) -> (std::borrow::Cow<'c, Clip>, super::ClipBinding) {
    match humanoid.and_then(|h| fold_unmapped_bones(clip, skeleton, h)) {
        Some((folded, folds)) => {
            let mut binding = folded.bind(skeleton, humanoid);
            binding.folded = folds;
            (std::borrow::Cow::Owned(folded), binding)
        }
        None => (
            std::borrow::Cow::Borrowed(clip),
            clip.bind(skeleton, humanoid),
        ),
    }
}
