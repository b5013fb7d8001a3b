//! The mannequin's rig: joint names (Unity humanoid names, plus twist joints), parents and rest positions.

use glam::Vec3;

/// One joint: name, parent name, model-space rest position (metres, +Y up, facing +Z, left on +X).
pub(super) struct JointSpec {
    pub(super) name: String,
    pub(super) parent: Option<usize>,
    pub(super) head: Vec3,
}

/// The mannequin's joints in parent-before-child order.
pub(super) fn joints() -> Vec<JointSpec> {
    let mut out: Vec<JointSpec> = Vec::new();
    let add = |out: &mut Vec<JointSpec>, name: &str, parent: Option<&str>, head: Vec3| -> usize {
        let parent = parent.map(|p| {
            out.iter()
                .position(|j| j.name == p)
                .expect("parent listed first")
        });
        out.push(JointSpec {
            name: name.to_string(),
            parent,
            head,
        });
        out.len() - 1
    };
    add(&mut out, "Hips", None, Vec3::new(0.0, 0.98, 0.0));
    add(&mut out, "Spine", Some("Hips"), Vec3::new(0.0, 1.08, 0.0));
    add(&mut out, "Chest", Some("Spine"), Vec3::new(0.0, 1.20, 0.0));
    add(
        &mut out,
        "UpperChest",
        Some("Chest"),
        Vec3::new(0.0, 1.32, 0.0),
    );
    add(
        &mut out,
        "Neck",
        Some("UpperChest"),
        Vec3::new(0.0, 1.47, 0.0),
    );
    add(&mut out, "Head", Some("Neck"), Vec3::new(0.0, 1.56, 0.0));
    add(
        &mut out,
        "LeftEye",
        Some("Head"),
        Vec3::new(0.032, 1.65, 0.085),
    );
    add(
        &mut out,
        "RightEye",
        Some("Head"),
        Vec3::new(-0.032, 1.65, 0.085),
    );
    for (side, s) in [("Left", 1.0f32), ("Right", -1.0f32)] {
        let n = |b: &str| format!("{side}{b}");
        let x = |v: f32| v * s;
        add(
            &mut out,
            &n("Shoulder"),
            Some("UpperChest"),
            Vec3::new(x(0.03), 1.42, 0.0),
        );
        add(
            &mut out,
            &n("UpperArm"),
            Some(&n("Shoulder")),
            Vec3::new(x(0.17), 1.42, 0.0),
        );
        add(
            &mut out,
            &n("UpperArmTwist"),
            Some(&n("UpperArm")),
            Vec3::new(x(0.305), 1.42, 0.0),
        );
        add(
            &mut out,
            &n("LowerArm"),
            Some(&n("UpperArmTwist")),
            Vec3::new(x(0.44), 1.42, 0.0),
        );
        add(
            &mut out,
            &n("LowerArmTwist"),
            Some(&n("LowerArm")),
            Vec3::new(x(0.565), 1.42, 0.0),
        );
        add(
            &mut out,
            &n("Hand"),
            Some(&n("LowerArmTwist")),
            Vec3::new(x(0.69), 1.42, 0.0),
        );
        let fingers: [(&str, [f32; 3], f32, [f32; 3]); 5] = [
            ("Thumb", [0.715, 1.405, 0.03], 0.75, [0.025, -0.005, 0.022]),
            ("Index", [0.78, 1.42, 0.03], 1.0, [0.038, 0.0, 0.0]),
            ("Middle", [0.785, 1.42, 0.01], 1.0, [0.042, 0.0, 0.0]),
            ("Ring", [0.78, 1.42, -0.01], 1.0, [0.038, 0.0, 0.0]),
            ("Little", [0.77, 1.42, -0.03], 1.0, [0.03, 0.0, 0.0]),
        ];
        for (finger, base, _, step) in fingers {
            let base = Vec3::new(x(base[0]), base[1], base[2]);
            let step = Vec3::new(x(step[0]), step[1], step[2]);
            let prox = n(&format!("{finger}Proximal"));
            let inter = n(&format!("{finger}Intermediate"));
            add(&mut out, &prox, Some(&n("Hand")), base);
            add(&mut out, &inter, Some(&prox), base + step);
            add(
                &mut out,
                &n(&format!("{finger}Distal")),
                Some(&inter),
                base + step * 1.8,
            );
        }
    }
    for (side, s) in [("Left", 1.0f32), ("Right", -1.0f32)] {
        let n = |b: &str| format!("{side}{b}");
        let x = 0.09 * s;
        add(
            &mut out,
            &n("UpperLeg"),
            Some("Hips"),
            Vec3::new(x, 0.93, 0.0),
        );
        add(
            &mut out,
            &n("UpperLegTwist"),
            Some(&n("UpperLeg")),
            Vec3::new(x, 0.72, 0.0),
        );
        add(
            &mut out,
            &n("LowerLeg"),
            Some(&n("UpperLegTwist")),
            Vec3::new(x, 0.51, 0.0),
        );
        add(
            &mut out,
            &n("LowerLegTwist"),
            Some(&n("LowerLeg")),
            Vec3::new(x, 0.30, 0.0),
        );
        add(
            &mut out,
            &n("Foot"),
            Some(&n("LowerLegTwist")),
            Vec3::new(x, 0.09, 0.0),
        );
        add(
            &mut out,
            &n("Toes"),
            Some(&n("Foot")),
            Vec3::new(x, 0.025, 0.13),
        );
    }
    out
}
