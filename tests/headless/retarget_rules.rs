//! The retargeting rules users compare against three-vrm: a VRM Animation's facing is its spec's (+Z), not a
//! guess from its rest pose, and the hips go where the clip puts them, scaled by the rest hips heights, unless the
//! character asks for its rest hips plus the clip's motion. (`scripts/test.sh` also checks these against three-vrm
//! itself, in node.)

use crate::common;

use animtune::core::fold::bind_folding;
use animtune::core::{Clip, HipsPlacement, HumanBone, Pose, Wrap};
use animtune::import::{ImportedModel, load_file};
use glam::{Mat4, Quat, Vec3};

fn rotation(m: &Mat4) -> Quat {
    m.to_scale_rotation_translation().1.normalize()
}

/// The model-space rotation and position of `bone` after sampling `clip` at `time` onto `target`.
fn retargeted(target: &ImportedModel, clip: &Clip, bone: HumanBone, time: f32) -> (Quat, Vec3) {
    let c = &target.character;
    let (clip, binding) = bind_folding(clip, &c.skeleton, Some(&c.humanoid));
    let mut pose = Pose::rest(&c.skeleton);
    clip.sample_into(&binding, time, Wrap::Clamp, &mut pose);
    let m = pose.model_matrices(&c.skeleton)[c.humanoid.joint(bone).unwrap()];
    (rotation(&m), m.w_axis.truncate())
}

use crate::common::angle_deg;

/// Quaternius's Jog with its rest pose turned 45° about +Y at the hips (its keys unchanged), as a VRMA authored
/// off the spec's T-pose would be, and the VRMA's facing: its rest legs show the turn.
fn twisted_hips_clip(source: &ImportedModel, turn: Quat) -> Clip {
    let mut clip = jog(source).clone();
    clip.facing_yaw = Some(0.0);
    let hips_path = clip
        .tracks
        .iter()
        .find(|t| t.target.human_bone == Some(HumanBone::Hips))
        .unwrap()
        .target
        .path
        .clone();
    for t in &mut clip.tracks {
        if t.target.path == hips_path {
            let parent = t.target.parent_rest_rotation;
            t.target.rest.rotation =
                (parent.inverse() * turn * parent * t.target.rest.rotation).normalize();
        } else if t.target.path.starts_with(&format!("{hips_path}/")) {
            // Everything under the hips rests turned with them.
            t.target.parent_rest_rotation = (turn * t.target.parent_rest_rotation).normalize();
        }
    }
    clip
}

fn jog(source: &ImportedModel) -> &Clip {
    source
        .clips
        .iter()
        .find(|c| c.name == "Jog_Fwd_Loop")
        .unwrap()
}

#[test]
fn a_vrm_animation_keeps_the_specs_facing_whatever_its_rest_pose() {
    let vrma = load_file(&common::asset("three-vrm_test.vrma")).unwrap();
    assert_eq!(
        vrma.clips[0].facing_yaw,
        Some(0.0),
        "VRMA clips carry the spec's facing"
    );
    let source = load_file(&common::quaternius()).unwrap();
    assert_eq!(
        source.clips[0].facing_yaw, None,
        "glTF clips have their facing guessed"
    );
    let target = load_file(&common::asset("vrm/mtoon_default.vrm")).unwrap();
    let turn = Quat::from_rotation_y(45f32.to_radians());
    let twisted = twisted_hips_clip(&source, turn);
    let mut guessed = twisted.clone();
    guessed.facing_yaw = None;

    let (s, c) = (&source.character, &target.character);
    let rotations = |skeleton, pose: &Pose| -> Vec<Quat> {
        pose.model_matrices(skeleton).iter().map(rotation).collect()
    };
    let src_rest = rotations(&s.skeleton, &Pose::rest(&s.skeleton));
    let dst_rest = rotations(&c.skeleton, &Pose::rest(&c.skeleton));
    let own = jog(&source).bind(&s.skeleton, Some(&s.humanoid));
    // As every player binds: the source's UpperChest, which this target lacks, folded into its Chest.
    let (twisted, spec) = bind_folding(&twisted, &c.skeleton, Some(&c.humanoid));
    let (guessed, guess) = bind_folding(&guessed, &c.skeleton, Some(&c.humanoid));
    let mut worst_guess = 0f64;
    for time in [0.1, 0.3, 0.55] {
        let mut src = Pose::rest(&s.skeleton);
        jog(&source).sample_into(&own, time, Wrap::Clamp, &mut src);
        let src_now = rotations(&s.skeleton, &src);
        let mut ours = Pose::rest(&c.skeleton);
        twisted.sample_into(&spec, time, Wrap::Clamp, &mut ours);
        let ours = rotations(&c.skeleton, &ours);
        let mut turned = Pose::rest(&c.skeleton);
        guessed.sample_into(&guess, time, Wrap::Clamp, &mut turned);
        let turned = rotations(&c.skeleton, &turned);
        for &bone in HumanBone::ALL.iter() {
            // The target has no UpperChest: its Chest moves as the source's UpperChest (the fold).
            let from = match bone {
                HumanBone::Chest if c.humanoid.joint(HumanBone::UpperChest).is_none() => {
                    HumanBone::UpperChest
                }
                b => b,
            };
            let (Some(sj), Some(dj)) = (s.humanoid.joint(from), c.humanoid.joint(bone)) else {
                continue;
            };
            // three-vrm: each bone's model-space motion against its (turned) rest, laid on the target's rest
            // (within 0.1°: the fold composes linear keys, so between keys it is not exactly the product).
            let expected = src_now[sj] * (turn * src_rest[sj]).inverse() * dst_rest[dj];
            let off = angle_deg(ours[dj], expected);
            assert!(off < 0.1, "{} at {time} s: {off}°", bone.name());
            worst_guess = worst_guess.max(angle_deg(turned[dj], expected));
        }
    }
    // The same clip from a format that does not fix the facing is turned by the guess from its legs.
    assert!(
        worst_guess > 20.0,
        "the guess moved bones only {worst_guess}°"
    );
}

#[test]
fn hips_go_where_the_clip_puts_them_scaled_or_at_the_rest_plus_the_motion() {
    let source = load_file(&common::quaternius()).unwrap();
    let clip = source.clips.iter().find(|c| c.name == "Roll_RM").unwrap();
    let mut target = animtune::demo::mannequin::load();
    let (s, t) = (&source.character, &target.character);
    let hips_of = |m: &ImportedModel, pose: &Pose| {
        let c = &m.character;
        pose.model_matrices(&c.skeleton)[c.humanoid.joint(HumanBone::Hips).unwrap()]
            .w_axis
            .truncate()
    };
    let src_rest = hips_of(&source, &Pose::rest(&s.skeleton));
    let dst_rest = hips_of(&target, &Pose::rest(&t.skeleton));
    let ratio = dst_rest.y / src_rest.y;
    let own = clip.bind(&s.skeleton, Some(&s.humanoid));
    for time in [0.2, 0.6, 1.0] {
        let mut pose = Pose::rest(&s.skeleton);
        clip.sample_into(&own, time, Wrap::Clamp, &mut pose);
        // The clip's hips position in its model space, its root's travel included: the mannequin has no joint
        // for Roll_RM's `root`, so that travel is carried by the hips.
        let src_now = hips_of(&source, &pose);

        target.character.humanoid.hips_placement = HipsPlacement::ClipPosition;
        let (_, at) = retargeted(&target, clip, HumanBone::Hips, time);
        assert!(
            at.distance(src_now * ratio) < 1e-4,
            "clip position at {time} s: {at} vs {}",
            src_now * ratio
        );

        target.character.humanoid.hips_placement = HipsPlacement::RestOffset;
        let (_, at) = retargeted(&target, clip, HumanBone::Hips, time);
        let expected = dst_rest + (src_now - src_rest) * ratio;
        assert!(
            at.distance(expected) < 1e-4,
            "rest offset at {time} s: {at} vs {expected}"
        );
    }
    // The two rules differ by the rests' horizontal offset, which this pair has.
    assert!(
        Vec3::new(
            dst_rest.x - src_rest.x * ratio,
            0.0,
            dst_rest.z - src_rest.z * ratio
        )
        .length()
            > 1e-3
    );
}
