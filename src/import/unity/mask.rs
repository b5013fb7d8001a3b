//! AvatarMask (class 319) and AnimatorOverrideController (class 221): small assets a controller refers to.
//!
//! A mask's `m_Mask` is 13 little-endian 32-bit words in hex, one per humanoid body part in Unity's order (1:
//! animated); its `m_Elements` are transform paths with weights. An override controller names its base
//! controller and pairs of original and override clips.

use std::path::Path;

use super::yaml::{Node, ObjectRef, UnityError, UnityFile};

/// Unity's humanoid body parts, in `m_Mask`'s order (AvatarMaskBodyPart).
pub const BODY_PARTS: [&str; 13] = [
    "Root",
    "Body",
    "Head",
    "LeftLeg",
    "RightLeg",
    "LeftArm",
    "RightArm",
    "LeftFingers",
    "RightFingers",
    "LeftFootIK",
    "RightFootIK",
    "LeftHandIK",
    "RightHandIK",
];
/// Most transform elements read from one mask.
pub const MAX_ELEMENTS: usize = 100_000;
/// Most clip pairs read from one override controller.
pub const MAX_OVERRIDES: usize = 100_000;

/// An avatar mask.
#[derive(Clone, Debug, PartialEq)]
pub struct AvatarMask {
    /// Its name.
    pub name: String,
    /// Each body part of [`BODY_PARTS`]: animated or not (all on when the file has no `m_Mask`).
    pub body_parts: [bool; 13],
    /// Transform paths and their weights (0 or 1 in Unity's inspector).
    pub elements: Vec<(String, f64)>,
}

/// Reads the AvatarMask in a parsed `.mask` file.
pub fn read_mask(file: &UnityFile, path: &Path) -> Result<AvatarMask, UnityError> {
    let doc = file
        .of_class(super::controller::class::AVATAR_MASK)
        .next()
        .ok_or_else(|| UnityError::new(path, "holds no AvatarMask (class 319)"))?;
    let f = &doc.fields;
    let name = f.str("m_Name").unwrap_or("").to_string();
    let body_parts = match f.str("m_Mask") {
        None => [true; 13],
        Some(hex) => body_part_bits(hex.trim())
            .map_err(|m| UnityError::new(path, format!("mask '{name}': m_Mask {m}")))?,
    };
    let items = f.get("m_Elements").map(Node::items).unwrap_or(&[]);
    if items.len() > MAX_ELEMENTS {
        return Err(UnityError::new(
            path,
            format!(
                "mask '{name}' has {} transform elements, more than {MAX_ELEMENTS}",
                items.len()
            ),
        ));
    }
    let elements = items
        .iter()
        .map(|e| {
            (
                e.str("m_Path").unwrap_or("").to_string(),
                e.f64("m_Weight")
                    .filter(|w| w.is_finite())
                    .unwrap_or(1.0)
                    .clamp(0.0, 1.0),
            )
        })
        .collect();
    Ok(AvatarMask {
        name,
        body_parts,
        elements,
    })
}

/// The 13 body-part flags of `m_Mask`: 8 hex digits each, a little-endian 32-bit word (nonzero: animated).
/// Fewer words leave the rest animated, as Unity reads an older mask.
fn body_part_bits(hex: &str) -> Result<[bool; 13], String> {
    if !hex.bytes().all(|b| b.is_ascii_hexdigit())
        || !hex.len().is_multiple_of(8)
        || hex.len() > 13 * 8
    {
        return Err(format!(
            "must be up to 13 words of 8 hex digits, not `{}`",
            hex.chars().take(120).collect::<String>()
        ));
    }
    let mut parts = [true; 13];
    for (i, word) in hex.as_bytes().chunks(8).enumerate() {
        let word = std::str::from_utf8(word).expect("ASCII hex");
        let bytes = u32::from_str_radix(word, 16).map_err(|e| e.to_string())?;
        parts[i] = bytes != 0;
    }
    Ok(parts)
}

/// An override controller: a base controller with some clips swapped.
#[derive(Clone, Debug, PartialEq)]
pub struct OverrideController {
    /// Its name.
    pub name: String,
    /// The base: a controller, or another override controller.
    pub base: ObjectRef,
    /// Original clip → the clip that replaces it (pairs with no override are left out).
    pub clips: Vec<(ObjectRef, ObjectRef)>,
}

/// Reads the AnimatorOverrideController in a parsed `.overrideController` file.
pub fn read_override(file: &UnityFile, path: &Path) -> Result<OverrideController, UnityError> {
    let doc = file
        .of_class(super::controller::class::OVERRIDE_CONTROLLER)
        .next()
        .ok_or_else(|| UnityError::new(path, "holds no AnimatorOverrideController (class 221)"))?;
    let f = &doc.fields;
    let name = f.str("m_Name").unwrap_or("").to_string();
    let base = f
        .object("m_Controller")
        .filter(|r| !r.is_none())
        .ok_or_else(|| {
            UnityError::new(
                path,
                format!("override controller '{name}' has no base controller"),
            )
        })?;
    let items = f.get("m_Clips").map(Node::items).unwrap_or(&[]);
    if items.len() > MAX_OVERRIDES {
        return Err(UnityError::new(
            path,
            format!(
                "override controller '{name}' has {} clip pairs, more than {MAX_OVERRIDES}",
                items.len()
            ),
        ));
    }
    let clips = items
        .iter()
        .filter_map(|p| {
            let original = p.object("m_OriginalClip")?;
            let replacement = p.object("m_OverrideClip").filter(|r| !r.is_none())?;
            Some((original, replacement))
        })
        .collect();
    Ok(OverrideController { name, base, clips })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digits_only_mask_reads_its_body_parts_and_paths() {
        let text = "--- !u!319 &31900000
AvatarMask:
  m_Name: legs
  m_Mask: 01000000000000000000000001000000010000000000000000000000000000000000000000000000000000000000000000000000
  m_Elements:
  - m_Path: Armature
    m_Weight: 1
  - m_Path: Armature/Hips/Spine
    m_Weight: 0
";
        let file = super::super::yaml::parse(text, Path::new("legs.mask")).unwrap();
        let m = read_mask(&file, Path::new("legs.mask")).unwrap();
        let on: Vec<&str> = BODY_PARTS
            .iter()
            .zip(m.body_parts)
            .filter(|(_, on)| *on)
            .map(|(p, _)| *p)
            .collect();
        assert_eq!(on, ["Root", "LeftLeg", "RightLeg"]);
        assert_eq!(m.elements[1], ("Armature/Hips/Spine".to_string(), 0.0));
        let bad = text.replace("m_Mask: 0100", "m_Mask: 01zz");
        let file = super::super::yaml::parse(&bad, Path::new("legs.mask")).unwrap();
        let e = read_mask(&file, Path::new("legs.mask"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("legs.mask") && e.contains("m_Mask"), "{e}");
    }
}
