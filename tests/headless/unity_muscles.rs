//! A humanoid `.anim` clip's muscles, one at a time through their range, turn their bones on the mannequin as
//! Unity documents them. The table below is written here from Unity's muscle names and default limits
//! (`HumanTrait.MuscleName`, `GetMuscleDefaultMin/Max`), not from the library: a value v turns the bone by
//! `v × max` degrees when positive and `v × −min` when negative, from the pose at v = 0, toward the second word of
//! the muscle's name ("Down-Up": up, "Front-Back": back, "In-Out": out, "Stretch": straighter, "Left-Right": the
//! character's right). A swing turns the bone about an axis across it; a twist turns it about itself.
//!
//! Each turn is measured on the mannequin after the humanoid retarget, in the frame of the bone's parent as it
//! stands in the T-pose (+X the character's left, +Y up, +Z forward); the jaw, which the mannequin lacks, on the
//! decoded clip's own track.

use glam::Vec3;

use animtune::core::{HumanBone, Pose, Wrap};
use animtune::import::unity::{anim, anim_clip, yaml};

/// What a positive value does.
#[derive(Clone, Copy)]
enum Motion {
    /// A swing: the bone's far end moves toward this direction (in the parent's T-pose frame).
    Toward(Vec3),
    /// A twist about the bone: +1 when the turn is about the bone's own direction by the right-hand rule,
    /// −1 about its opposite.
    Twist(f32),
}

struct Case {
    attribute: String,
    bone: &'static str,
    parent: &'static str,
    /// The bone's direction in the T-pose (toward its far end).
    direction: Vec3,
    min: f32,
    max: f32,
    motion: Motion,
}

/// A muscle's default limits, degrees: (min, max).
type Limits = (f32, f32);

const LEFT: Vec3 = Vec3::X;
const UP: Vec3 = Vec3::Y;
const FORWARD: Vec3 = Vec3::Z;

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut add = |attribute: String,
                   bone: String,
                   parent: String,
                   direction: Vec3,
                   (min, max): (f32, f32),
                   motion: Motion| {
        out.push(Case {
            attribute,
            bone: HumanBone::from_name(&bone).unwrap().name(),
            parent: HumanBone::from_name(&parent).unwrap().name(),
            direction,
            min,
            max,
            motion,
        });
    };
    let back = Motion::Toward(-FORWARD);
    let right = Motion::Toward(-LEFT);
    // The trunk and head: a twist to the right turns the front toward the character's right, which is a turn
    // about −up (the bone's opposite).
    for (bone, parent, limit) in [
        ("Spine", "Hips", 40.0),
        ("Chest", "Spine", 40.0),
        ("UpperChest", "Chest", 20.0),
    ] {
        let l = (-limit, limit);
        let s = |m: &str| format!("{bone} {m}");
        add(s("Front-Back"), bone.into(), parent.into(), UP, l, back);
        add(s("Left-Right"), bone.into(), parent.into(), UP, l, right);
        add(
            s("Twist Left-Right"),
            bone.into(),
            parent.into(),
            UP,
            l,
            Motion::Twist(-1.0),
        );
    }
    for (bone, parent) in [("Neck", "UpperChest"), ("Head", "Neck")] {
        let l = (-40.0, 40.0);
        // Nodding up tips the top of the head back.
        add(
            format!("{bone} Nod Down-Up"),
            bone.into(),
            parent.into(),
            UP,
            l,
            back,
        );
        add(
            format!("{bone} Tilt Left-Right"),
            bone.into(),
            parent.into(),
            UP,
            l,
            right,
        );
        add(
            format!("{bone} Turn Left-Right"),
            bone.into(),
            parent.into(),
            UP,
            l,
            Motion::Twist(-1.0),
        );
    }
    for (side, s) in [("Left", 1.0f32), ("Right", -1.0f32)] {
        let b = |name: &str| format!("{side}{name}");
        let outward = Motion::Toward(LEFT * s);
        // External rotation (Twist "Out") turns a limb's front toward the outside of the body: about the left
        // limb's opposite direction, about the right limb's own.
        let external = Motion::Twist(-s);
        add(
            format!("{side} Eye Down-Up"),
            b("Eye"),
            "Head".into(),
            FORWARD,
            (-10.0, 15.0),
            Motion::Toward(UP),
        );
        add(
            format!("{side} Eye In-Out"),
            b("Eye"),
            "Head".into(),
            FORWARD,
            (-20.0, 20.0),
            outward,
        );
        let leg = -UP;
        add(
            format!("{side} Upper Leg Front-Back"),
            b("UpperLeg"),
            "Hips".into(),
            leg,
            (-90.0, 50.0),
            back,
        );
        add(
            format!("{side} Upper Leg In-Out"),
            b("UpperLeg"),
            "Hips".into(),
            leg,
            (-60.0, 60.0),
            outward,
        );
        add(
            format!("{side} Upper Leg Twist In-Out"),
            b("UpperLeg"),
            "Hips".into(),
            leg,
            (-60.0, 60.0),
            external,
        );
        // Straightening a bent knee brings the foot forward.
        add(
            format!("{side} Lower Leg Stretch"),
            b("LowerLeg"),
            b("UpperLeg"),
            leg,
            (-80.0, 80.0),
            Motion::Toward(FORWARD),
        );
        add(
            format!("{side} Lower Leg Twist In-Out"),
            b("LowerLeg"),
            b("UpperLeg"),
            leg,
            (-90.0, 90.0),
            external,
        );
        add(
            format!("{side} Foot Up-Down"),
            b("Foot"),
            b("LowerLeg"),
            FORWARD,
            (-50.0, 50.0),
            Motion::Toward(-UP),
        );
        // The foot twists about its length: out turns the sole outward (eversion), the left foot's about +Z.
        add(
            format!("{side} Foot Twist In-Out"),
            b("Foot"),
            b("LowerLeg"),
            FORWARD,
            (-30.0, 30.0),
            Motion::Twist(s),
        );
        add(
            format!("{side} Toes Up-Down"),
            b("Toes"),
            b("Foot"),
            FORWARD,
            (-50.0, 50.0),
            Motion::Toward(-UP),
        );
        let arm = LEFT * s;
        add(
            format!("{side} Shoulder Down-Up"),
            b("Shoulder"),
            "UpperChest".into(),
            arm,
            (-15.0, 30.0),
            Motion::Toward(UP),
        );
        add(
            format!("{side} Shoulder Front-Back"),
            b("Shoulder"),
            "UpperChest".into(),
            arm,
            (-15.0, 15.0),
            back,
        );
        add(
            format!("{side} Arm Down-Up"),
            b("UpperArm"),
            b("Shoulder"),
            arm,
            (-60.0, 100.0),
            Motion::Toward(UP),
        );
        add(
            format!("{side} Arm Front-Back"),
            b("UpperArm"),
            b("Shoulder"),
            arm,
            (-100.0, 100.0),
            back,
        );
        add(
            format!("{side} Arm Twist In-Out"),
            b("UpperArm"),
            b("Shoulder"),
            arm,
            (-90.0, 90.0),
            external,
        );
        // The elbow bends forward; straightening it swings the hand back.
        add(
            format!("{side} Forearm Stretch"),
            b("LowerArm"),
            b("UpperArm"),
            arm,
            (-80.0, 80.0),
            back,
        );
        add(
            format!("{side} Forearm Twist In-Out"),
            b("LowerArm"),
            b("UpperArm"),
            arm,
            (-90.0, 90.0),
            external,
        );
        add(
            format!("{side} Hand Down-Up"),
            b("Hand"),
            b("LowerArm"),
            arm,
            (-80.0, 80.0),
            Motion::Toward(UP),
        );
        // Out: toward the thumb, which points forward in the T-pose (radial deviation).
        add(
            format!("{side} Hand In-Out"),
            b("Hand"),
            b("LowerArm"),
            arm,
            (-40.0, 40.0),
            Motion::Toward(FORWARD),
        );
        let thumb = (LEFT * s + FORWARD).normalize();
        let fingers: [(&str, Limits, Limits, Limits, Vec3); 5] = [
            ("Thumb", (-20.0, 20.0), (-25.0, 25.0), (-40.0, 35.0), thumb),
            ("Index", (-50.0, 50.0), (-20.0, 20.0), (-45.0, 45.0), arm),
            ("Middle", (-50.0, 50.0), (-7.5, 7.5), (-45.0, 45.0), arm),
            ("Ring", (-50.0, 50.0), (-7.5, 7.5), (-45.0, 45.0), arm),
            ("Little", (-50.0, 50.0), (-20.0, 20.0), (-45.0, 45.0), arm),
        ];
        for (finger, first, spread, rest, direction) in fingers {
            // Palm down: a stretched finger lifts (a curled one drops toward the palm). The thumb straightens
            // and spreads in the hand's plane, away from the palm and from the index.
            let (stretch, spreading) = if finger == "Thumb" {
                (
                    Motion::Toward(UP),
                    Motion::Toward((FORWARD - LEFT * s).normalize()),
                )
            } else {
                // Index and middle part toward the thumb, ring and little away from it.
                let toward_thumb = matches!(finger, "Index" | "Middle");
                (
                    Motion::Toward(UP),
                    Motion::Toward(if toward_thumb { FORWARD } else { -FORWARD }),
                )
            };
            let bone = |k: &str| format!("{side}{finger}{k}");
            let attr = |m: &str| format!("{side}Hand.{finger}.{m}");
            add(
                attr("1 Stretched"),
                bone("Proximal"),
                b("Hand"),
                direction,
                first,
                stretch,
            );
            add(
                attr("Spread"),
                bone("Proximal"),
                b("Hand"),
                direction,
                spread,
                spreading,
            );
            add(
                attr("2 Stretched"),
                bone("Intermediate"),
                bone("Proximal"),
                direction,
                rest,
                stretch,
            );
            add(
                attr("3 Stretched"),
                bone("Distal"),
                bone("Intermediate"),
                direction,
                rest,
                stretch,
            );
        }
    }
    add(
        "Jaw Close".into(),
        "Jaw".into(),
        "Head".into(),
        FORWARD,
        (-10.0, 10.0),
        Motion::Toward(UP),
    );
    add(
        "Jaw Left-Right".into(),
        "Jaw".into(),
        "Head".into(),
        FORWARD,
        (-10.0, 10.0),
        right,
    );
    out
}

/// A clip whose one curve runs the muscle from −1 at 0 s through 0 at 1 s to +1 at 2 s (slopes of 1: a line).
fn sweep_clip(attribute: &str) -> animtune::core::Clip {
    let key = |t: f64| {
        format!(
            "      - {{time: {t}, value: {}, inSlope: 1, outSlope: 1, weightedMode: 0}}\n",
            t - 1.0
        )
    };
    let text = format!(
        "--- !u!74 &7400000\nAnimationClip:\n  m_Name: sweep\n  m_FloatCurves:\n  - curve:\n      m_Curve:\n{}{}{}      \
         m_PreInfinity: 2\n      m_PostInfinity: 2\n    attribute: {attribute}\n    path: \n    classID: 95\n",
        key(0.0),
        key(1.0),
        key(2.0)
    );
    let path = std::path::Path::new("sweep.anim");
    let file = yaml::parse(&text, path).unwrap();
    let u = &anim::clips(&file, path).unwrap()[0];
    assert!(u.humanoid, "{attribute}");
    anim_clip::to_clip(u).unwrap_or_else(|e| panic!("{attribute}: {e}"))
}

#[test]
fn each_muscle_turns_its_bone_about_the_documented_axis_by_the_documented_angle() {
    let model = animtune::demo::mannequin::load();
    let (skeleton, humanoid) = (&model.character.skeleton, &model.character.humanoid);
    let rest = Pose::rest(skeleton).world_rotations(skeleton);
    let mut checked = 0;
    let mut on_the_clip = Vec::new();
    for case in cases() {
        let bone = HumanBone::from_name(case.bone).unwrap();
        let clip = sweep_clip(&case.attribute);
        let binding = clip.bind(skeleton, Some(humanoid));
        let mapped = humanoid
            .joint(bone)
            .zip(humanoid.joint(HumanBone::from_name(case.parent).unwrap()));
        if mapped.is_none() {
            on_the_clip.push(case.attribute.clone());
        }
        // The bone's turn from the T-pose, in its parent's T-pose frame: on the mannequin after the retarget, or
        // for a bone it lacks (the jaw) on the clip's own track, whose rest is the reference humanoid's T-pose.
        let local = |time: f32| match mapped {
            Some((joint, parent)) => {
                let mut pose = Pose::rest(skeleton);
                clip.sample_into(&binding, time, Wrap::Clamp, &mut pose);
                let world = pose.world_rotations(skeleton);
                let from_t_pose = |j: usize| world[j] * rest[j].inverse();
                from_t_pose(parent).inverse() * from_t_pose(joint)
            }
            None => {
                let track = clip
                    .tracks
                    .iter()
                    .find(|t| t.target.human_bone == Some(bone))
                    .expect("the bone's track");
                track.rotation.as_ref().unwrap().sample(time)
            }
        };
        let zero = local(1.0);
        let zero_direction = zero * case.direction;
        for value in [-1.0f32, -0.5, 0.5, 1.0] {
            let turn = local(1.0 + value) * zero.inverse();
            let (axis, angle) = turn.to_axis_angle();
            let want = value * if value < 0.0 { -case.min } else { case.max };
            let what = format!("{} at {value}", case.attribute);
            assert!(
                (angle.to_degrees() - want.abs()).abs() < 1.0,
                "{what}: turned {}°, documented {want}°",
                angle.to_degrees()
            );
            // The axis of a positive turn.
            let axis = axis * want.signum();
            let along = axis.dot(zero_direction);
            match case.motion {
                Motion::Twist(sign) => assert!(
                    along * sign > 1f32.to_radians().cos(),
                    "{what}: axis {axis} is not the bone's own ({zero_direction}) with sign {sign}"
                ),
                Motion::Toward(direction) => {
                    assert!(
                        along.abs() < 1f32.to_radians().sin(),
                        "{what}: axis {axis} is not across the bone ({zero_direction})"
                    );
                    let moved = (local(1.0 + value.abs()) * case.direction) - zero_direction;
                    assert!(
                        moved.normalize().dot(direction) > 0.1,
                        "{what}: the far end moved {moved}, not toward {direction}"
                    );
                }
            }
        }
        checked += 1;
    }
    // The mannequin has every humanoid bone but the jaw.
    assert_eq!(on_the_clip, ["Jaw Close", "Jaw Left-Right"]);
    assert_eq!(checked, 95);
}

#[test]
fn a_muscle_clip_with_only_ik_curves_is_refused_by_name() {
    let text = "--- !u!74 &7400000\nAnimationClip:\n  m_Name: goals\n  m_FloatCurves:\n  - curve:\n      m_Curve:\n      \
                - {time: 0, value: 1, inSlope: 0, outSlope: 0}\n    attribute: LeftFootT.x\n    path: \n    classID: 95\n";
    let path = std::path::Path::new("goals.anim");
    let file = yaml::parse(text, path).unwrap();
    let u = &anim::clips(&file, path).unwrap()[0];
    let e = anim_clip::to_clip(u).unwrap_err();
    assert!(e.contains("'goals'") && e.contains("no muscle"), "{e}");
}
