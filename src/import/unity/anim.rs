//! AnimationClip (class 74) as a `.anim` file holds it: transform curves by path (position, quaternion rotation,
//! Euler rotation with its order, scale), float curves (Transform channels, blend shapes, humanoid muscles and
//! the rest, by attribute and class), and the clip settings. Curves are kept as Unity's keys ([`Curve`]); what the
//! reader does not use is named, never dropped silently.

use std::path::Path;

use super::curve::{Curve, DEFAULT_WEIGHT, Key, Wrap};
use super::yaml::{Node, UnityError, UnityFile};

/// Unity's class ID of an AnimationClip.
pub const CLASS_ANIMATION_CLIP: u32 = 74;
/// Most keys read from one clip, over all its curves.
pub const MAX_KEYS: usize = 10_000_000;

/// What a transform curve drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransformChannel {
    /// `m_PositionCurves`: local position (x, y, z).
    Position,
    /// `m_RotationCurves`: local rotation as a quaternion (x, y, z, w), each component its own curve.
    Rotation,
    /// `m_EulerCurves`: local rotation as Euler degrees (x, y, z) in `order` (Unity's RotationOrder: 0 XYZ,
    /// 1 XZY, 2 YZX, 3 YXZ, 4 ZXY (the default), 5 ZYX).
    Euler {
        /// Unity's RotationOrder value.
        order: u8,
    },
    /// `m_ScaleCurves`: local scale.
    Scale,
}

/// One transform curve: a channel of the object at `path` (relative to the animated root), one curve per
/// component.
#[derive(Clone, Debug, PartialEq)]
pub struct TransformCurve {
    /// The object's path (`Armature/Hips`; empty: the root).
    pub path: String,
    /// What it drives.
    pub channel: TransformChannel,
    /// One curve per component (3, or 4 for a quaternion).
    pub components: Vec<Curve>,
}

/// The class ID of the SkinnedMeshRenderer, whose `blendShape.<name>` float curves weigh its blend shapes.
pub const SKINNED_MESH_RENDERER: i64 = 137;

/// The blend shape a float curve weighs (`blendShape.<name>` on a SkinnedMeshRenderer), if it is one.
pub fn blend_shape(f: &FloatCurve) -> Option<&str> {
    (f.class_id == SKINNED_MESH_RENDERER)
        .then(|| f.attribute.strip_prefix("blendShape."))
        .flatten()
        .filter(|name| !name.is_empty())
}

/// One float curve (`m_FloatCurves`): an attribute of a component on the object at `path`.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatCurve {
    /// The object's path.
    pub path: String,
    /// The property (`blendShape.Smile`, `m_LocalPosition.x`, a muscle name such as `Spine Front-Back`).
    pub attribute: String,
    /// The component's class ID (4 Transform, 95 Animator: humanoid muscles, 137 SkinnedMeshRenderer).
    pub class_id: i64,
    /// The curve.
    pub curve: Curve,
}

/// The clip settings (`m_AnimationClipSettings`) that map onto the tool's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipSettings {
    /// Start and stop times, seconds.
    pub start: f64,
    /// Stop time.
    pub stop: f64,
    /// Loop Time.
    pub loop_time: bool,
    /// Loop Pose.
    pub loop_pose: bool,
    /// Cycle offset (a fraction of the clip).
    pub cycle_offset: f64,
    /// Mirror.
    pub mirror: bool,
    /// Root rotation baked into pose (`m_LoopBlendOrientation`).
    pub bake_rotation: bool,
    /// Root height baked into pose.
    pub bake_position_y: bool,
    /// Root XZ baked into pose.
    pub bake_position_xz: bool,
}

/// A clip read from a `.anim` file.
#[derive(Clone, Debug, PartialEq)]
pub struct UnityClip {
    /// `m_Name`.
    pub name: String,
    /// Keys per second it was authored at.
    pub sample_rate: f64,
    /// Transform curves.
    pub transforms: Vec<TransformCurve>,
    /// Float curves.
    pub floats: Vec<FloatCurve>,
    /// Clip settings.
    pub settings: ClipSettings,
    /// Whether it is a humanoid clip (muscle curves on the Animator).
    pub humanoid: bool,
    /// What it holds that the tool does not play, one line each (object-reference curves, events, a legacy clip).
    pub unsupported: Vec<String>,
}

impl UnityClip {
    /// The last key's time over every curve (0 for an empty clip).
    pub fn duration(&self) -> f64 {
        let last = |c: &Curve| c.keys.last().map_or(0.0, |k| k.time);
        self.transforms
            .iter()
            .flat_map(|t| t.components.iter())
            .chain(self.floats.iter().map(|f| &f.curve))
            .map(last)
            .fold(0.0, f64::max)
    }

    /// Keys over every curve.
    pub fn key_count(&self) -> usize {
        self.transforms
            .iter()
            .flat_map(|t| t.components.iter())
            .chain(self.floats.iter().map(|f| &f.curve))
            .map(|c| c.keys.len())
            .sum()
    }
}

/// The attribute names of humanoid clips' root and IK curves (muscle names are the rest on class 95).
const HUMANOID_PREFIXES: [&str; 6] = [
    "RootT.",
    "RootQ.",
    "MotionT.",
    "MotionQ.",
    "LeftFoot",
    "RightFoot",
];

/// Whether any float curve is a humanoid one: the Animator's (class 95) root, IK or muscle curves.
fn humanoid_curves(floats: &[FloatCurve]) -> bool {
    floats.iter().any(|f| {
        f.class_id == 95
            && (HUMANOID_PREFIXES.iter().any(|p| f.attribute.starts_with(p))
                || super::muscles::find(&f.attribute).is_some())
    })
}

/// Reads the AnimationClips of a parsed `.anim` file (usually one).
pub fn clips(file: &UnityFile, path: &Path) -> Result<Vec<UnityClip>, UnityError> {
    let mut keys = 0usize;
    file.of_class(CLASS_ANIMATION_CLIP)
        .map(|doc| clip(&doc.fields, path, &mut keys))
        .collect()
}

fn clip(fields: &Node, path: &Path, keys: &mut usize) -> Result<UnityClip, UnityError> {
    let name = fields.str("m_Name").unwrap_or("").to_string();
    let err = |m: String| UnityError::new(path, format!("clip '{name}': {m}"));
    let mut transforms = Vec::new();
    for (field, channel, n) in [
        ("m_PositionCurves", TransformChannel::Position, 3),
        ("m_RotationCurves", TransformChannel::Rotation, 4),
        ("m_EulerCurves", TransformChannel::Euler { order: 4 }, 3),
        ("m_ScaleCurves", TransformChannel::Scale, 3),
    ] {
        for item in fields.get(field).map(Node::items).unwrap_or(&[]) {
            let c = item
                .get("curve")
                .ok_or_else(|| err(format!("{field}: a curve without `curve`")))?;
            let channel = match channel {
                TransformChannel::Euler { .. } => TransformChannel::Euler {
                    order: c
                        .i64("m_RotationOrder")
                        .filter(|o| (0..=5).contains(o))
                        .unwrap_or(4) as u8,
                },
                other => other,
            };
            let components = vector_curve(c, n, keys).map_err(|m| err(format!("{field}: {m}")))?;
            transforms.push(TransformCurve {
                path: item.str("path").unwrap_or("").to_string(),
                channel,
                components,
            });
        }
    }
    let mut floats = Vec::new();
    // Transform channels written one component a curve (class 4): (path, channel, component, curve).
    let mut parts: Vec<(String, TransformChannel, usize, Curve)> = Vec::new();
    for item in fields.get("m_FloatCurves").map(Node::items).unwrap_or(&[]) {
        let c = item
            .get("curve")
            .ok_or_else(|| err("m_FloatCurves: a curve without `curve`".into()))?;
        let curve = vector_curve(c, 1, keys)
            .map_err(|m| err(format!("m_FloatCurves: {m}")))?
            .remove(0);
        let attribute = item.str("attribute").unwrap_or("");
        if item.i64("classID") == Some(4) {
            let order = c
                .i64("m_RotationOrder")
                .filter(|o| (0..=5).contains(o))
                .unwrap_or(4) as u8;
            if let Some((channel, k)) = transform_component(attribute, order) {
                parts.push((
                    item.str("path").unwrap_or("").to_string(),
                    channel,
                    k,
                    curve,
                ));
                continue;
            }
        }
        floats.push(FloatCurve {
            path: item.str("path").unwrap_or("").to_string(),
            attribute: item.str("attribute").unwrap_or("").to_string(),
            class_id: item.i64("classID").unwrap_or(0),
            curve,
        });
    }
    let mut partial = Vec::new();
    while let Some((path, channel, _, _)) = parts.first().cloned() {
        let (mine, rest): (Vec<_>, Vec<_>) = parts
            .into_iter()
            .partition(|(p, c, _, _)| *p == path && *c == channel);
        parts = rest;
        let n = if channel == TransformChannel::Rotation {
            4
        } else {
            3
        };
        let mut components: Vec<Option<Curve>> = vec![None; n];
        for (_, _, k, curve) in mine {
            components[k] = Some(curve);
        }
        let already = transforms
            .iter()
            .any(|t: &TransformCurve| t.path == path && same_channel(t.channel, channel));
        match components.into_iter().collect::<Option<Vec<Curve>>>() {
            Some(components) if !already => transforms.push(TransformCurve {
                path,
                channel,
                components,
            }),
            _ => partial.push(path),
        }
    }
    let humanoid = humanoid_curves(&floats);
    let s = fields.get("m_AnimationClipSettings");
    let flag = |key: &str| s.and_then(|s| s.i64(key)).is_some_and(|v| v != 0);
    let number = |key: &str| s.and_then(|s| s.f64(key)).filter(|v| v.is_finite());
    let mut settings = ClipSettings {
        start: number("m_StartTime").unwrap_or(0.0),
        stop: number("m_StopTime").unwrap_or(0.0),
        loop_time: flag("m_LoopTime"),
        loop_pose: flag("m_LoopBlend"),
        cycle_offset: number("m_CycleOffset").unwrap_or(0.0),
        mirror: flag("m_Mirror"),
        bake_rotation: flag("m_LoopBlendOrientation"),
        bake_position_y: flag("m_LoopBlendPositionY"),
        bake_position_xz: flag("m_LoopBlendPositionXZ"),
    };
    let mut unsupported = Vec::new();
    if settings.mirror {
        unsupported.push(
            "its Mirror setting is not applied on reading (it needs the character): set Mirror in the Clip tab (or \
             `bake --mirror`)"
                .into(),
        );
    }
    let count = |key: &str| fields.get(key).map_or(0, |n| n.items().len());
    for (key, what) in [
        (
            "m_PPtrCurves",
            "object-reference curves (sprites, materials)",
        ),
        ("m_Events", "animation events"),
        ("m_CompressedRotationCurves", "compressed rotation curves"),
    ] {
        let n = count(key);
        if n > 0 {
            unsupported.push(format!("{n} {what} ({key}) are not played"));
        }
    }
    let animator = |f: &&FloatCurve| f.class_id == 95;
    if humanoid {
        let played = |a: &str| {
            super::muscles::find(a).is_some() || a.starts_with("RootT.") || a.starts_with("RootQ.")
        };
        let goals = floats
            .iter()
            .filter(animator)
            .filter(|f| !played(&f.attribute))
            .count();
        if goals > 0 {
            unsupported.push(format!(
                "{goals} humanoid IK-goal or motion curve(s) (LeftFootT, MotionQ, …) are not played: Unity \
                 reads them in a layer's IK pass"
            ));
        }
    }
    let others = floats
        .iter()
        .filter(|f| !(humanoid && animator(f)) && blend_shape(f).is_none())
        .count();
    if others > 0 {
        unsupported.push(format!(
            "{others} float curve(s) of properties (other than Transform and blend shapes) are not played"
        ));
    }
    if !partial.is_empty() {
        unsupported.push(format!(
            "{} Transform channel(s) written as float curves with some components missing or twice (at '{}') \
             are not played: the missing components need the joint's rest value",
            partial.len(),
            partial[0]
        ));
    }
    if fields.i64("m_Legacy").is_some_and(|v| v != 0) {
        unsupported.push("a legacy clip (m_Legacy: 1): read as a Mecanim clip".into());
    }
    let clip = UnityClip {
        name,
        sample_rate: fields
            .f64("m_SampleRate")
            .filter(|r| r.is_finite() && *r > 0.0)
            .unwrap_or(60.0),
        transforms,
        floats,
        settings: ClipSettings::default(),
        humanoid,
        unsupported,
    };
    if settings.stop <= settings.start {
        settings.stop = clip.duration();
    }
    Ok(UnityClip { settings, ..clip })
}

/// The Transform channel and component a float curve's attribute names (`m_LocalPosition.x`, `m_LocalRotation.w`,
/// `m_LocalScale.z`, `localEulerAnglesRaw.y` and its older spellings), the Euler channel in `order`.
fn transform_component(attribute: &str, order: u8) -> Option<(TransformChannel, usize)> {
    let (property, component) = attribute.rsplit_once('.')?;
    let channel = match property {
        "m_LocalPosition" => TransformChannel::Position,
        "m_LocalRotation" => TransformChannel::Rotation,
        "m_LocalScale" => TransformChannel::Scale,
        "localEulerAnglesRaw" | "localEulerAngles" | "localEulerAnglesBaked" => {
            TransformChannel::Euler { order }
        }
        _ => return None,
    };
    let k = "xyzw".find(component).filter(|_| component.len() == 1)?;
    (k < if channel == TransformChannel::Rotation {
        4
    } else {
        3
    })
    .then_some((channel, k))
}

/// Whether two channels drive the same thing (a rotation, whether as a quaternion or Euler angles).
fn same_channel(a: TransformChannel, b: TransformChannel) -> bool {
    let rotation = |c| {
        matches!(
            c,
            TransformChannel::Rotation | TransformChannel::Euler { .. }
        )
    };
    a == b || (rotation(a) && rotation(b))
}

/// The `n` component curves of one serialized AnimationCurve (`m_Curve` keys whose values are scalars, or
/// `{x, y, z[, w]}`).
fn vector_curve(curve: &Node, n: usize, keys: &mut usize) -> Result<Vec<Curve>, String> {
    let wrap = |key: &str| Wrap::from_serialized(curve.i64(key).unwrap_or(2));
    let (pre, post) = (wrap("m_PreInfinity"), wrap("m_PostInfinity"));
    let items = curve.get("m_Curve").map(Node::items).unwrap_or(&[]);
    *keys = keys.saturating_add(items.len() * n);
    if *keys > MAX_KEYS {
        return Err(format!("more than {MAX_KEYS} keys"));
    }
    let names = ["x", "y", "z", "w"];
    let component = |node: Option<&Node>, c: usize| -> Option<f64> {
        let node = node?;
        if n == 1 {
            node.text().and_then(super::yaml::parse_f64)
        } else {
            node.f64(names[c])
        }
    };
    let mut out = vec![
        Curve {
            keys: Vec::with_capacity(items.len()),
            pre,
            post,
        };
        n
    ];
    for (i, k) in items.iter().enumerate() {
        let time = k
            .f64("time")
            .filter(|t| t.is_finite())
            .ok_or_else(|| format!("key {i} has no finite time"))?;
        let mode = k.i64("weightedMode").unwrap_or(0);
        for (c, curve) in out.iter_mut().enumerate() {
            let value = component(k.get("value"), c)
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("key {i} at {time} s has no finite value"))?;
            let slope = |key: &str| {
                component(k.get(key), c)
                    .filter(|v| !v.is_nan())
                    .unwrap_or(0.0)
            };
            let weight = |key: &str| {
                component(k.get(key), c)
                    .filter(|v| v.is_finite())
                    .unwrap_or(DEFAULT_WEIGHT)
            };
            if curve.keys.last().is_some_and(|last| last.time >= time) {
                return Err(format!(
                    "key {i} at {time} s is not after the key before it"
                ));
            }
            curve.keys.push(Key {
                time,
                value,
                in_slope: slope("inSlope"),
                out_slope: slope("outSlope"),
                in_weight: weight("inWeight"),
                out_weight: weight("outWeight"),
                weighted_in: mode & 1 != 0,
                weighted_out: mode & 2 != 0,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIP: &str = "%YAML 1.1
%TAG !u! tag:unity3d.com,2011:
--- !u!74 &7400000
AnimationClip:
  m_Name: Wave
  serializedVersion: 7
  m_Legacy: 0
  m_EulerCurves:
  - curve:
      serializedVersion: 2
      m_Curve:
      - serializedVersion: 3
        time: 0
        value: {x: 0, y: 10, z: 0}
        inSlope: {x: 0, y: 0, z: 0}
        outSlope: {x: 0, y: Infinity, z: 0}
        tangentMode: 0
        weightedMode: 0
        inWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
        outWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
      - serializedVersion: 3
        time: 0.5
        value: {x: 90, y: 20, z: 0}
        inSlope: {x: 0, y: 0, z: 0}
        outSlope: {x: 0, y: 0, z: 0}
        tangentMode: 0
        weightedMode: 1
        inWeight: {x: 0.8, y: 0.33333334, z: 0.33333334}
        outWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
      m_PreInfinity: 2
      m_PostInfinity: 1
      m_RotationOrder: 4
    path: Armature/Hips/Spine/UpperArm.R
  m_FloatCurves:
  - curve:
      serializedVersion: 2
      m_Curve:
      - serializedVersion: 3
        time: 0
        value: 0
        inSlope: 0
        outSlope: 0
        tangentMode: 136
        weightedMode: 0
        inWeight: 0
        outWeight: 0
      m_PreInfinity: 2
      m_PostInfinity: 2
      m_RotationOrder: 4
    attribute: blendShape.Smile
    path: Body
    classID: 137
    script: {fileID: 0}
  - curve:
      serializedVersion: 2
      m_Curve:
      - serializedVersion: 3
        time: 0
        value: 1
        inSlope: 0
        outSlope: 0
        tangentMode: 136
        weightedMode: 0
        inWeight: 0
        outWeight: 0
      m_PreInfinity: 2
      m_PostInfinity: 2
      m_RotationOrder: 4
    attribute: material._Color.r
    path: Body
    classID: 137
    script: {fileID: 0}
  m_PPtrCurves:
  - curve: []
    attribute: m_Sprite
    path: ''
    classID: 212
    script: {fileID: 0}
  m_SampleRate: 30
  m_AnimationClipSettings:
    serializedVersion: 2
    m_StartTime: 0
    m_StopTime: 0.5
    m_LoopTime: 1
    m_LoopBlend: 0
    m_CycleOffset: 0.25
    m_Mirror: 1
  m_Events: []
";

    #[test]
    fn a_clip_reads_its_curves_settings_and_what_it_does_not_play() {
        let file = super::super::yaml::parse(CLIP, Path::new("wave.anim")).unwrap();
        let clips = clips(&file, Path::new("wave.anim")).unwrap();
        assert_eq!(clips.len(), 1);
        let c = &clips[0];
        assert_eq!((c.name.as_str(), c.sample_rate), ("Wave", 30.0));
        assert!(!c.humanoid);
        let euler = &c.transforms[0];
        assert_eq!(euler.path, "Armature/Hips/Spine/UpperArm.R");
        assert_eq!(euler.channel, TransformChannel::Euler { order: 4 });
        assert_eq!(euler.components.len(), 3);
        let y = &euler.components[1];
        assert!(
            y.keys[0].out_slope.is_infinite(),
            "Infinity slopes are kept (stepped)"
        );
        assert_eq!(y.evaluate(0.4), 10.0);
        assert_eq!(y.post, Wrap::Loop);
        let x = &euler.components[0];
        assert!(x.keys[1].weighted_in && !x.keys[1].weighted_out);
        assert_eq!(x.keys[1].in_weight, 0.8);
        assert_eq!(c.floats[0].attribute, "blendShape.Smile");
        assert_eq!(c.floats[0].class_id, 137);
        let s = &c.settings;
        assert!(s.loop_time && !s.loop_pose && s.mirror);
        assert_eq!((s.stop, s.cycle_offset), (0.5, 0.25));
        assert_eq!(c.unsupported.len(), 3, "{:?}", c.unsupported);
        assert!(c.unsupported[0].contains("Mirror setting"));
        assert!(c.unsupported[1].contains("object-reference"));
        assert!(
            c.unsupported[2].contains("1 float curve(s) of properties"),
            "the blend shape plays, the material colour does not: {:?}",
            c.unsupported
        );
        assert_eq!(c.duration(), 0.5);
    }

    #[test]
    fn keys_out_of_order_or_without_values_are_named() {
        let bad = CLIP.replace("time: 0.5", "time: -1");
        let file = super::super::yaml::parse(&bad, Path::new("bad.anim")).unwrap();
        let e = clips(&file, Path::new("bad.anim")).unwrap_err().to_string();
        assert!(
            e.contains("bad.anim") && e.contains("'Wave'") && e.contains("key 1"),
            "{e}"
        );
        let bad = CLIP.replace(
            "value: {x: 90, y: 20, z: 0}",
            "value: {x: NaN, y: 20, z: 0}",
        );
        let file = super::super::yaml::parse(&bad, Path::new("bad.anim")).unwrap();
        let e = clips(&file, Path::new("bad.anim")).unwrap_err().to_string();
        assert!(e.contains("no finite value"), "{e}");
    }
}
