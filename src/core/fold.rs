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
    let mut folded = clip.clone();
    folded.tracks = kept;
    Some((folded, folds))
}

/// Whether a track moves its joint away from the joint's rest.
fn moves(track: &Track) -> bool {
    let rest = track.target.rest;
    let t = track.translation.as_ref().is_some_and(|k| {
        k.values()
            .iter()
            .any(|v| v.distance(rest.translation.into()) > 1e-6)
    });
    let r = track.rotation.as_ref().is_some_and(|k| {
        k.values()
            .iter()
            .any(|q| q.dot(rest.rotation).abs() < 1.0 - 1e-7)
    });
    t || r
}

/// A track's local transform at `time` (its rest where a channel has no keys).
fn local_at(track: &Track, time: f32) -> glam::Mat4 {
    let rest = track.target.rest;
    glam::Mat4::from_scale_rotation_translation(
        track
            .scale
            .as_ref()
            .map_or(rest.scale.into(), |k| k.sample(time)),
        track
            .rotation
            .as_ref()
            .map_or(rest.rotation, |k| k.sample(time)),
        track
            .translation
            .as_ref()
            .map_or(rest.translation.into(), |k| k.sample(time)),
    )
}

/// `clip` with the motion of the animated joints above its hips that find no joint of `skeleton` (by path or
/// name) composed into the hips' track: a clip whose travel is on a root joint (Quaternius's `_RM` clips) carries
/// it on a character without one, as Unity's humanoid clips carry the body's motion on any rig. The hips' new keys
/// (linear, at the union of the involved tracks' key times) put them where the source puts them in its model space
/// with those joints at rest; the folded tracks are removed. None when nothing above the hips both moves and
/// finds no joint (a chain with an unanimated joint in it stops there: its offset is not in the clip).
pub fn fold_root_motion(clip: &Clip, skeleton: &Skeleton) -> Option<(Clip, Vec<Fold>)> {
    let direct = |t: &Track| {
        skeleton.find_by_path(&t.target.path).is_some()
            || (!t.target.name.is_empty() && skeleton.find_by_name(&t.target.name).is_some())
    };
    let hips = clip
        .tracks
        .iter()
        .position(|t| t.target.human_bone == Some(HumanBone::Hips))?;
    // The hips' animated ancestors that bind to nothing, nearest first.
    let mut chain = Vec::new();
    let mut path = clip.tracks[hips].target.path.as_str();
    while let Some((up, _)) = path.rsplit_once('/') {
        let Some(a) = clip.tracks.iter().position(|t| t.target.path == up) else {
            break;
        };
        if direct(&clip.tracks[a]) {
            break;
        }
        chain.push(a);
        path = up;
    }
    if !chain.iter().any(|&a| moves(&clip.tracks[a])) {
        return None;
    }
    let empty: &[f32] = &[];
    let mut times: Vec<f32> = Vec::new();
    for &i in chain.iter().chain(std::iter::once(&hips)) {
        let t = &clip.tracks[i];
        for keys in [
            t.translation.as_ref().map_or(empty, |k| k.times()),
            t.rotation.as_ref().map_or(empty, |k| k.times()),
        ] {
            times = union_times(&times, keys);
        }
    }
    if times.is_empty() {
        times.push(0.0);
    }
    // From the top down: the chain's rest product and its animated product.
    let rest = chain.iter().rev().fold(glam::Mat4::IDENTITY, |m, &a| {
        m * clip.tracks[a].target.rest.to_mat4()
    });
    let rest_inverse = rest.inverse();
    let track = &clip.tracks[hips];
    let (mut translations, mut rotations) = (Vec::with_capacity(times.len()), Vec::new());
    let mut previous = Quat::IDENTITY;
    for &time in &times {
        let above = chain.iter().rev().fold(glam::Mat4::IDENTITY, |m, &a| {
            m * local_at(&clip.tracks[a], time)
        });
        let (_, r, t) =
            (rest_inverse * above * local_at(track, time)).to_scale_rotation_translation();
        let r = r.normalize();
        previous = if r.dot(previous) < 0.0 { -r } else { r };
        translations.push(t);
        rotations.push(previous);
    }
    let mut folded = clip.clone();
    let h = &mut folded.tracks[hips];
    h.translation = Keys::new(times.clone(), translations, Interpolation::Linear).ok();
    h.rotation = Keys::new(times, rotations, Interpolation::Linear).ok();
    let into = h.target.path.clone();
    let folds = chain
        .iter()
        .map(|&a| Fold {
            from: clip.tracks[a].target.path.clone(),
            into: into.clone(),
        })
        .collect();
    let mut index = 0;
    folded.tracks.retain(|_| {
        index += 1;
        !chain.contains(&(index - 1))
    });
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
    let Some(map) = humanoid.filter(|h| h.joint(HumanBone::Hips).is_some()) else {
        return (
            std::borrow::Cow::Borrowed(clip),
            clip.bind(skeleton, humanoid),
        );
    };
    let mut folds = Vec::new();
    let mut folded = None;
    if let Some((c, f)) = fold_unmapped_bones(clip, skeleton, map) {
        folded = Some(c);
        folds.extend(f);
    }
    if let Some((c, f)) = fold_root_motion(folded.as_ref().unwrap_or(clip), skeleton) {
        folded = Some(c);
        folds.extend(f);
    }
    match folded {
        Some(folded) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_motion_folds_into_the_hips_where_no_joint_takes_it() {
        // Roll_RM travels on Quaternius's `root`; the mannequin has no such joint. Folded, the hips go where the
        // source puts them with its root animated, while the root stays at rest.
        let q = crate::import::load_file(&crate::test_support::quaternius()).unwrap();
        let roll = q.clips.iter().find(|c| c.name == "Roll_RM").unwrap();
        let mannequin = crate::demo::mannequin::load().character;
        let (folded, folds) = fold_root_motion(roll, &mannequin.skeleton).unwrap();
        assert_eq!(folds.len(), 1);
        assert!(folds[0].from.ends_with("root") && folds[0].into.ends_with("DEF-hips"));
        assert_eq!(folded.tracks.len(), roll.tracks.len() - 1);
        assert_eq!(folded.looping, roll.looping);
        let c = &q.character;
        let hips = c.humanoid.joint(HumanBone::Hips).unwrap();
        let times: Vec<f32> = (0..=10).map(|i| roll.duration * i as f32 / 10.0).collect();
        let a = crate::offline::frames::sample_frames(roll, &c.skeleton, None, times.clone());
        let b = crate::offline::frames::sample_frames(&folded, &c.skeleton, None, times);
        let mut travel = 0.0f32;
        let mut first = None;
        for (pa, pb) in a.poses.iter().zip(&b.poses) {
            let (ma, mb) = (
                pa.model_matrices(&c.skeleton),
                pb.model_matrices(&c.skeleton),
            );
            let (ha, hb) = (ma[hips].w_axis.truncate(), mb[hips].w_axis.truncate());
            assert!((ha - hb).length() < 1e-3, "{ha} vs {hb}");
            let start = *first.get_or_insert(ha);
            travel = travel.max((ha - start).length());
        }
        assert!(travel > 1.0, "Roll_RM travels {travel} m");
        // The rig's own joint takes the root's track: nothing folds.
        assert!(fold_root_motion(roll, &c.skeleton).is_none());
    }
}
