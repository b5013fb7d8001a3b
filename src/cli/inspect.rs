//! `animtune inspect`: what the tool understood of a model.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Serialize;

use super::InspectArgs;
use crate::core::mesh::MeshPlacement;
use crate::runtime::Animation;

#[derive(Serialize)]
struct Report {
    file: String,
    joints: Vec<Joint>,
    humanoid: Humanoid,
    twist_joints: Vec<Twist>,
    clips: Vec<ClipInfo>,
    /// Bytes of the skeleton's rest pose, which the compiled clips share (counted once, not in theirs).
    shared_rest_bytes: usize,
    /// Every clip's compiled bytes plus the shared rest pose once: what the clips take in memory together.
    compiled_total_bytes: usize,
    meshes: Vec<MeshInfo>,
    notes: Vec<String>,
}

#[derive(Serialize)]
struct Joint {
    index: usize,
    name: String,
    parent: Option<usize>,
    path: String,
    human_bone: Option<&'static str>,
}

#[derive(Serialize)]
struct Humanoid {
    source: &'static str,
    is_humanoid: bool,
    bones: BTreeMap<&'static str, String>,
    missing_required: Vec<&'static str>,
    problems: Vec<String>,
    warnings: Vec<String>,
    facing_corrected: bool,
    /// Joints whose T-pose is not their rest (a Unity avatar's T-pose), by name.
    t_pose_joints: Vec<String>,
}

#[derive(Serialize)]
struct Twist {
    parent: &'static str,
    child: &'static str,
    joints: Vec<String>,
}

#[derive(Serialize)]
struct ClipInfo {
    index: usize,
    name: String,
    duration: f32,
    channels: usize,
    /// Channels that move (the others are held at one value when compiled).
    moving_channels: usize,
    /// Bytes the clip takes compiled for this character (the runtime's compact form), the shared rest pose aside.
    compiled_bytes: usize,
    /// How far the compact form is from the clip's keys (virtual vertices, cm); None when it stays exact.
    compact_error_cm: Option<f32>,
    /// Morph-weight channels (glTF `weights`), besides the joint channels.
    morph_channels: usize,
    /// The root's average motion over the clip, as Unity's `Motion.averageSpeed` (see `analysis::root_motion`).
    root_motion: Option<crate::analysis::RootMotionStats>,
    /// The same figures for the joint above the hips (where extracted root motion lives), when the rig has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    root_joint_motion: Option<JointMotion>,
}

/// One joint's average motion over a clip.
#[derive(Serialize)]
struct JointMotion {
    joint: String,
    #[serde(flatten)]
    motion: crate::analysis::RootMotionStats,
}

#[derive(Serialize)]
struct MeshInfo {
    name: String,
    vertices: usize,
    skinned: bool,
}

pub fn run(args: &InspectArgs) -> Result<()> {
    let path = std::path::Path::new(&args.model.model);
    if crate::import::unity::is_unity_asset(path) {
        return unity_asset(args, path);
    }
    let model = super::model::open(&args.model)?;
    let c = &model.character;
    let s = &c.skeleton;
    let bones = c.humanoid.bone_per_joint(s.len());
    let above_hips = c
        .humanoid
        .joint(crate::core::humanoid::HumanBone::Hips)
        .and_then(|h| s.parent(h));
    let mut report = Report {
        file: args.model.model.clone(),
        joints: (0..s.len())
            .map(|j| Joint {
                index: j,
                name: s.name(j).to_string(),
                parent: s.parent(j),
                path: s.path(j).to_string(),
                human_bone: bones[j].map(|b| b.name()),
            })
            .collect(),
        humanoid: Humanoid {
            source: c.humanoid.source.as_str(),
            is_humanoid: c.humanoid.is_humanoid(),
            bones: c
                .humanoid
                .bones()
                .map(|(b, j)| (b.name(), s.name(j).to_string()))
                .collect(),
            missing_required: c
                .humanoid
                .missing_required
                .iter()
                .map(|b| b.name())
                .collect(),
            problems: c.humanoid.problems.clone(),
            warnings: c.humanoid.warnings.clone(),
            facing_corrected: c.facing_corrected,
            t_pose_joints: c
                .humanoid
                .t_pose
                .keys()
                .map(|&j| s.name(j).to_string())
                .collect(),
        },
        twist_joints: c
            .twist_chains()
            .into_iter()
            .map(|t| Twist {
                parent: t.parent.name(),
                child: t.child.name(),
                joints: t.joints.iter().map(|&j| s.name(j).to_string()).collect(),
            })
            .collect(),
        shared_rest_bytes: std::mem::size_of_val(s.rest()),
        compiled_total_bytes: 0,
        clips: model
            .clips
            .iter()
            .enumerate()
            .map(|(index, clip)| {
                let (compiled, _) = Animation::bind(clip, s, Some(&c.humanoid));
                ClipInfo {
                    index,
                    name: clip.name.clone(),
                    duration: clip.duration,
                    channels: clip.channel_count(),
                    moving_channels: compiled.animated_channels(),
                    compiled_bytes: compiled.memory_bytes(),
                    compact_error_cm: compiled.compact_error().map(|e| e * 100.0),
                    morph_channels: clip.morph_tracks.len(),
                    root_motion: crate::analysis::root_motion(c, clip),
                    root_joint_motion: above_hips.and_then(|j| {
                        Some(JointMotion {
                            joint: s.name(j).to_string(),
                            motion: crate::analysis::root_motion::joint_motion(c, clip, j)?,
                        })
                    }),
                }
            })
            .collect(),
        meshes: c
            .meshes
            .iter()
            .map(|m| MeshInfo {
                name: m.name.clone(),
                vertices: m.vertex_count(),
                skinned: matches!(m.placement, MeshPlacement::Skinned { .. }),
            })
            .collect(),
        notes: c.notes.clone(),
    };
    report.compiled_total_bytes =
        report.shared_rest_bytes + report.clips.iter().map(|c| c.compiled_bytes).sum::<usize>();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_summary(&report);
    }
    Ok(())
}

fn print_summary(r: &Report) {
    outln!("{}", r.file);
    outln!("  joints: {}", r.joints.len());
    let h = &r.humanoid;
    let verdict = if h.is_humanoid {
        "humanoid"
    } else {
        "NOT humanoid"
    };
    outln!(
        "  humanoid: {verdict} (source: {}, {} bones mapped)",
        h.source,
        h.bones.len()
    );
    if !h.missing_required.is_empty() {
        outln!("    missing required: {}", h.missing_required.join(", "));
    }
    for p in &h.problems {
        outln!("    problem: {p}");
    }
    for w in &h.warnings {
        outln!("    warning: {w}");
    }
    if !h.t_pose_joints.is_empty() {
        outln!(
            "    T-pose (the Unity avatar's) differs from the rest pose at {} joint(s): {}",
            h.t_pose_joints.len(),
            h.t_pose_joints.join(", ")
        );
    }
    for (bone, joint) in &h.bones {
        outln!("    {bone:<24} {joint}");
    }
    if h.facing_corrected {
        outln!("  facing: turned 180° to face +Z");
    }
    outln!("  twist joints:");
    if r.twist_joints.is_empty() {
        outln!("    none");
    }
    for t in &r.twist_joints {
        outln!("    {} → {}: {}", t.parent, t.child, t.joints.join(", "));
    }
    outln!("  meshes: {}", r.meshes.len());
    for m in &r.meshes {
        outln!(
            "    {:<32} {:>7} vertices{}",
            m.name,
            m.vertices,
            if m.skinned { ", skinned" } else { "" }
        );
    }
    outln!("  clips: {}", r.clips.len());
    for c in &r.clips {
        let packed = match c.compact_error_cm {
            Some(e) => format!("packed, {e:.4} cm from its keys"),
            None if c.moving_channels == 0 && c.morph_channels == 0 => "nothing moves".to_string(),
            None => "exact".to_string(),
        };
        let morph = match c.morph_channels {
            0 => String::new(),
            n => format!(
                ", {n} morph-weight channel{}",
                if n == 1 { "" } else { "s" }
            ),
        };
        outln!(
            "    [{}] {:<32} {:>7.3} s {:>4} channels {:>7} bytes compiled ({packed}{morph})",
            c.index,
            c.name,
            c.duration,
            c.channels,
            c.compiled_bytes
        );
    }
    if !r.clips.is_empty() {
        outln!(
            "  compiled clips together: {} bytes ({} shared rest pose bytes counted once)",
            r.compiled_total_bytes,
            r.shared_rest_bytes
        );
    }
    for n in &r.notes {
        outln!("  note: {n}");
    }
}

/// `inspect` of a Unity asset (`.controller`, `.overrideController`, `.mask`, `.anim`, a blend tree `.asset`):
/// what it holds, and what the tool does not preview.
fn unity_asset(args: &InspectArgs, path: &std::path::Path) -> Result<()> {
    let mut limits = crate::import::Limits::from_env();
    if let Some(mb) = args.model.max_file_mb {
        limits.max_file_bytes = mb.saturating_mul(1 << 20);
    }
    let d = crate::import::unity::describe(path, limits.max_file_bytes)?;
    if args.json {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            file: &'a str,
            #[serde(flatten)]
            description: &'a crate::import::unity::Description,
        }
        let report = Report {
            file: &args.model.model,
            description: &d,
        };
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    outln!("{}: {} '{}'", args.model.model, d.kind, d.name);
    for line in &d.lines {
        outln!("  {line}");
    }
    if d.unsupported.is_empty() {
        outln!("  not previewed: nothing");
    } else {
        outln!("  not previewed: {}", d.unsupported.join("; "));
    }
    Ok(())
}
