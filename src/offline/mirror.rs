//! Mirroring a clip on a character, as Unity's clip Mirror: left and right swapped and the motion reflected across
//! the character's sagittal plane (x → −x in glTF's frame, the character facing +Z).
//!
//! The clip is evaluated on the character at each of its key times. Each joint then takes its partner's motion
//! (left and right humanoid bones swap; other joints pair by name, `.L`/`.R`, `Left`/`Right`, `_l`/`_r`, `l_`/`r_`;
//! a joint with no partner mirrors its own), as a model-space turn away from the partner's rest, reflected
//! (`M·Δ·M`), applied to the joint's own rest; the translations the clip moves (the hips', wherever they are in
//! the tree) reflect likewise, and the others keep their rest offsets. The result is a clip on the
//! character's own skeleton, bound by path. It assumes a symmetric rest pose, as Unity's does.

use glam::{Mat4, Quat, Vec3};

/// How far from its rest offset a joint's translation must go for the mirror to reflect it (metres, in its
/// parent's units).
const MOVED_M: f32 = 1e-6;

use crate::core::binding::track_targets;
use crate::core::{Character, Clip, HumanBone, Interpolation, Keys, Pose, Track};
use crate::eval::{ClockStep, EvalInput, Evaluator};

/// The clip `settings` make of `clip` on `character`: crop, cycle offset, loop pose and the root bakes, then the
/// mirror (keeping the clip's name, so blend nodes and layers still find it); with the joints the mirror found
/// no partner for, by name.
pub fn apply_settings(
    character: &Character,
    clip: &Clip,
    settings: &crate::core::ClipSettings,
) -> Result<(Clip, Vec<String>), crate::core::clip_settings::ClipSettingsError> {
    let set = settings.apply(clip)?;
    if !settings.mirror {
        return Ok((set, Vec::new()));
    }
    let Mirrored { mut clip, unpaired } = mirror_clip(character, &set);
    clip.name = set.name;
    Ok((clip, unpaired))
}

/// A state machine's clips with its mirrored states' made: `clips` followed by a mirrored copy (named as
/// [`mirror_clip`] names it) of each clip a state with `mirror` on plays (every node's, for a blend-space state),
/// and the machine with those states playing the copies instead (their `mirror` then off); a clip state with a
/// mirror parameter keeps its clip and has its copy made, named "`clip` (mirrored)", for the Evaluator to choose
/// by the parameter. What the Evaluator is
/// given to play a machine whose states mirror (it does not mirror clips itself).
pub fn machine_clips(
    character: &Character,
    clips: &[Clip],
    machine: &crate::graph::StateMachine,
) -> (Vec<Clip>, crate::graph::StateMachine) {
    let mut all = clips.to_vec();
    let mut machine = machine.clone();
    let mirrored_name = |name: &str, all: &mut Vec<Clip>| -> String {
        let Some(source) = clips.iter().find(|c| c.name == name) else {
            return name.to_string();
        };
        let wanted = format!("{name} (mirrored)");
        if !all.iter().any(|c| c.name == wanted) {
            let mut m = mirror_clip(character, source).clip;
            m.name = wanted.clone();
            all.push(m);
        }
        wanted
    };
    for state in machine.all_states_mut() {
        // A blend-space state's nodes: each mirrored where its own Mirror (Unity's blend tree child Mirror) or the
        // state's, not both, says so.
        if let Some(space) = &mut state.blend_space {
            let state_mirror = state.mirror && state.mirror_parameter.is_none();
            for node in &mut space.nodes {
                if node.mirror != state_mirror {
                    node.clip = mirrored_name(&node.clip, &mut all);
                }
                node.mirror = false;
            }
            if state_mirror {
                state.mirror = false;
            }
        }
        if state.mirror_parameter.is_some() {
            // The parameter decides while the machine plays: both clips (each node's, for a blend space) are
            // there to choose from.
            if let Some(clip) = &state.clip {
                mirrored_name(clip, &mut all);
            }
            for node in state.blend_space.iter().flat_map(|b| &b.nodes) {
                mirrored_name(&node.clip, &mut all);
            }
            state.mirror = false;
            continue;
        }
        if !state.mirror {
            continue;
        }
        if let Some(clip) = &state.clip {
            state.clip = Some(mirrored_name(clip, &mut all));
        }
        state.mirror = false;
    }
    (all, machine)
}

/// A mirrored clip and what had no partner.
#[derive(Clone, Debug)]
pub struct Mirrored {
    /// The clip, on the character's skeleton (named as the source, with " (mirrored)").
    pub clip: Clip,
    /// Joints that are neither on the middle line nor paired, by name: they mirror their own motion.
    pub unpaired: Vec<String>,
}

/// The name of the other side's joint for `name`, by the usual conventions (`.L`/`.R`, `_l`/`_r` and the like at
/// the end, `L_`/`R_` at the start, `Left`/`Right` anywhere), if it names a side.
pub fn partner_name(name: &str) -> Option<String> {
    const SUFFIXES: [(&str, &str); 4] = [(".L", ".R"), ("_L", "_R"), ("_l", "_r"), (".l", ".r")];
    const PREFIXES: [(&str, &str); 2] = [("L_", "R_"), ("l_", "r_")];
    const WORDS: [(&str, &str); 3] = [("Left", "Right"), ("left", "right"), ("LEFT", "RIGHT")];
    let both = |(a, b): (&'static str, &'static str)| [(a, b), (b, a)];
    for (from, to) in SUFFIXES.into_iter().flat_map(both) {
        if let Some(stem) = name.strip_suffix(from) {
            return Some(format!("{stem}{to}"));
        }
    }
    for (from, to) in PREFIXES.into_iter().flat_map(both) {
        if let Some(stem) = name.strip_prefix(from) {
            return Some(format!("{to}{stem}"));
        }
    }
    for (from, to) in WORDS.into_iter().flat_map(both) {
        if name.contains(from) {
            return Some(name.replacen(from, to, 1));
        }
    }
    None
}

/// The humanoid bone on the other side.
fn partner_bone(bone: HumanBone) -> Option<HumanBone> {
    let name = bone.name();
    let other = if let Some(rest) = name.strip_prefix("Left") {
        format!("Right{rest}")
    } else if let Some(rest) = name.strip_prefix("Right") {
        format!("Left{rest}")
    } else {
        return None;
    };
    HumanBone::ALL.iter().copied().find(|b| b.name() == other)
}

/// Reflects a rotation across the sagittal plane: `M·R·M` with `M = diag(−1, 1, 1)`.
fn reflect_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

fn reflect_vector(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, v.z)
}

/// `clip` mirrored on `character` (see the module documentation).
pub fn mirror_clip(character: &Character, clip: &Clip) -> Mirrored {
    let skeleton = &character.skeleton;
    let n = skeleton.len();
    // Each joint's partner.
    let mut unpaired = Vec::new();
    let partner: Vec<usize> = (0..n)
        .map(|j| {
            if let Some(bone) = character.humanoid.bone_of(j) {
                return partner_bone(bone)
                    .and_then(|b| character.humanoid.joint(b))
                    .unwrap_or(j);
            }
            match partner_name(skeleton.name(j)) {
                Some(other) => (0..n)
                    .find(|&k| skeleton.name(k) == other)
                    .unwrap_or_else(|| {
                        unpaired.push(skeleton.name(j).to_string());
                        j
                    }),
                None => j,
            }
        })
        .collect();
    // Sample the clip on the character at its key times.
    let times = super::frames::source_key_times(clip);
    let mut ev = Evaluator::for_clip(character, clip);
    let rest = Pose::rest(skeleton);
    let rest_world = rest.world_rotations(skeleton);
    let rest_model = rest.model_matrices(skeleton);
    let mut rotations: Vec<Vec<Quat>> = vec![Vec::with_capacity(times.len()); n];
    let mut translations: Vec<Vec<Vec3>> = vec![Vec::with_capacity(times.len()); n];
    // The joints the clip moves away from their rest offsets (the hips, wherever they are in the tree).
    let mut moves = vec![false; n];
    for &t in &times {
        let out = ev.evaluate(&EvalInput {
            clock: ClockStep::Seek(t),
            ..EvalInput::default()
        });
        for (j, (posed, at_rest)) in out.local.local.iter().zip(skeleton.rest()).enumerate() {
            moves[j] |= (posed.translation - at_rest.translation).length() > MOVED_M;
        }
    }
    let mut mirrored_model = vec![Mat4::IDENTITY; n];
    for &t in &times {
        let out = ev.evaluate(&EvalInput {
            clock: ClockStep::Seek(t),
            ..EvalInput::default()
        });
        let world = out.local.world_rotations(skeleton);
        let model = &out.model;
        // Mirrored model-space rotations and positions.
        let mirrored_world: Vec<Quat> = (0..n)
            .map(|j| {
                let p = partner[j];
                let delta = world[p] * rest_world[p].inverse();
                (reflect_rotation(delta) * rest_world[j]).normalize()
            })
            .collect();
        for j in 0..n {
            let (parent_world, parent_model) = match skeleton.parent(j) {
                Some(p) => (mirrored_world[p], mirrored_model[p]),
                None => (skeleton.root_rotation(), skeleton.root_transform()),
            };
            let rotation = (parent_world.inverse() * mirrored_world[j]).normalize();
            // Translations: a joint whose partner the clip moves (the hips' travel) takes the partner's
            // model-space offset from rest, reflected; the others keep their rest offsets.
            let p = partner[j];
            let rest_local = &skeleton.rest()[j];
            let translation = if moves[p] {
                let moved = model[p].w_axis.truncate() - rest_model[p].w_axis.truncate();
                let target = rest_model[j].w_axis.truncate() + reflect_vector(moved);
                parent_model.inverse().transform_point3(target)
            } else {
                Vec3::from(rest_local.translation)
            };
            mirrored_model[j] = parent_model
                * Mat4::from_scale_rotation_translation(
                    rest_local.scale.into(),
                    rotation,
                    translation,
                );
            rotations[j].push(rotation);
            translations[j].push(translation);
        }
    }
    let targets = track_targets(skeleton, Some(&character.humanoid));
    let tracks = targets
        .into_iter()
        .enumerate()
        .map(|(j, target)| Track {
            target,
            translation: Keys::new(
                times.clone(),
                translations[j].clone(),
                Interpolation::Linear,
            )
            .ok(),
            rotation: Keys::new(times.clone(), rotations[j].clone(), Interpolation::Linear).ok(),
            scale: None,
        })
        .collect();
    let mut out = Clip::new(format!("{} (mirrored)", clip.name), tracks);
    out.duration = clip.duration;
    out.facing_yaw = Some(0.0);
    Mirrored {
        clip: out,
        unpaired,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every joint's model-space position when `clip` plays on `c` at `t` seconds.
    fn positions(c: &Character, clip: &Clip, t: f32) -> Vec<Vec3> {
        Evaluator::for_clip(c, clip)
            .evaluate(&EvalInput {
                clock: ClockStep::Seek(t),
                ..EvalInput::default()
            })
            .model
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect()
    }

    /// Unity mirrors a blend tree child by its own Mirror or its state's, and the two undo each other.
    #[test]
    fn a_blend_node_mirrors_by_its_own_mirror_or_its_states_not_both() {
        let model = crate::demo::mannequin::load();
        let node = |clip: &str, mirror: bool| crate::blend::BlendNode {
            clip: clip.into(),
            mirror,
            ..Default::default()
        };
        let mut machine = crate::graph::StateMachine::default();
        let mut state = crate::graph::edit::clip_state("S", "WalkForward", [0.0, 0.0]);
        state.clip = None;
        state.blend_space = Some(crate::blend::BlendSpace {
            nodes: vec![node("WalkForward", true), node("RunForward", false)],
            ..Default::default()
        });
        machine.states.push(state);
        let nodes = |state_mirror: bool| {
            let mut m = machine.clone();
            m.states[0].mirror = state_mirror;
            let (clips, m) = machine_clips(&model.character, &model.clips, &m);
            let names: Vec<String> = m.states[0]
                .blend_space
                .as_ref()
                .unwrap()
                .nodes
                .iter()
                .map(|n| n.clip.clone())
                .collect();
            assert!(
                names.iter().all(|n| clips.iter().any(|c| &c.name == n)),
                "{names:?}"
            );
            names
        };
        assert_eq!(nodes(false), ["WalkForward (mirrored)", "RunForward"]);
        assert_eq!(nodes(true), ["WalkForward", "RunForward (mirrored)"]);
    }

    #[test]
    fn root_travel_baked_into_the_pose_leaves_hips_that_do_not_travel() {
        let model = crate::demo::mannequin::load();
        let c = &model.character;
        let walk = model
            .clips
            .iter()
            .find(|k| k.name == "WalkForward")
            .unwrap();
        let settings = crate::core::ClipSettings {
            bake_root_xz: true,
            ..Default::default()
        };
        let (baked, _) = apply_settings(c, walk, &settings).unwrap();
        let hips = c.humanoid.joint(HumanBone::Hips).unwrap();
        let travel = |clip: &Clip| {
            let at = |t: f32| {
                let p = positions(c, clip, t)[hips];
                glam::Vec2::new(p.x, p.z)
            };
            let start = at(0.0);
            (0..=11)
                .map(|k| at(k as f32 * 0.1).distance(start))
                .fold(0.0f32, f32::max)
        };
        let (before, after) = (travel(walk), travel(&baked));
        assert!(before > 0.5, "the walk travels: {before} m");
        assert!(
            after < 0.05,
            "baked into the pose the hips stay: {after} m (they sway, they do not travel)"
        );
    }

    #[test]
    fn side_names_pair_up() {
        assert_eq!(partner_name("upperarm.L").as_deref(), Some("upperarm.R"));
        assert_eq!(partner_name("hand_r").as_deref(), Some("hand_l"));
        assert_eq!(partner_name("L_Foot").as_deref(), Some("R_Foot"));
        assert_eq!(
            partner_name("mixamorig:RightHand").as_deref(),
            Some("mixamorig:LeftHand")
        );
        assert_eq!(partner_name("Spine"), None);
    }

    #[test]
    fn hips_below_a_root_joint_keep_their_travel_reflected() {
        // Quaternius's hips hang under a `root` joint turned -90° about X: their keyed position must be
        // reflected, not dropped for the rest offset.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/quaternius_ual/AnimationLibrary_Godot_Standard.gltf"
        );
        let model = crate::import::load_file(std::path::Path::new(path)).unwrap();
        let c = &model.character;
        let walk = model.clips.iter().find(|k| k.name == "Walk_Loop").unwrap();
        let mirrored = mirror_clip(c, walk);
        let hips = c.humanoid.joint(HumanBone::Hips).unwrap();
        assert!(c.skeleton.parent(hips).is_some(), "the hips have a parent");
        let mut worst = 0.0f32;
        for t in [0.0, 0.2, 0.45, 0.7] {
            let (a, m) = (positions(c, walk, t), positions(c, &mirrored.clip, t));
            worst = worst.max(m[hips].distance(reflect_vector(a[hips])));
        }
        assert!(worst < 1e-5, "the hips are {:.4} cm off", worst * 100.0);
    }

    #[test]
    fn a_mirrored_clip_is_the_clip_reflected_bone_for_bone() {
        let model = crate::demo::mannequin::load();
        let c = &model.character;
        let walk = model
            .clips
            .iter()
            .find(|k| k.name == "WalkForwardLeft")
            .unwrap();
        let mirrored = mirror_clip(c, walk);
        assert!(mirrored.unpaired.is_empty(), "{:?}", mirrored.unpaired);

        let h = |b| c.humanoid.joint(b).unwrap();
        let mut worst = 0.0f32;
        for t in [0.0, 0.3, 0.55, 0.9] {
            let (a, m) = (positions(c, walk, t), positions(c, &mirrored.clip, t));
            for (left, right) in [
                (HumanBone::LeftHand, HumanBone::RightHand),
                (HumanBone::LeftFoot, HumanBone::RightFoot),
                (HumanBone::LeftLowerArm, HumanBone::RightLowerArm),
                (HumanBone::Head, HumanBone::Head),
                (HumanBone::Hips, HumanBone::Hips),
            ] {
                worst = worst
                    .max(m[h(left)].distance(reflect_vector(a[h(right)])))
                    .max(m[h(right)].distance(reflect_vector(a[h(left)])));
            }
        }
        assert!(
            worst < 1e-4,
            "mirrored pose {:.4} cm from the reflected one",
            worst * 100.0
        );
    }
}
