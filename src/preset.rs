//! Presets: the tuned parameters as one versioned JSON file (`"format": "animtune-preset"`), so a setup can be
//! saved, shared, checked in pipelines and reloaded. Missing fields take their defaults; a newer version, a
//! wrong format tag or a bad value is a clear error naming the file and the field.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::blend::BlendSpace;
use crate::core::{HipsPlacement, HumanBone};
use crate::layers::LayerParams;

/// The format tag every preset carries.
pub const FORMAT: &str = "animtune-preset";
/// The preset version this build writes and the newest it reads. Version 2: breath angles follow the Unity
/// original's sense (version 1 files are migrated on load so they keep their motion). Version 3: clip layers
/// (`layers.clips`) and clip settings (`clip_settings`); older files have none, and an older animtune refuses a
/// version 3 file rather than drop them. Version 4: a clip's settings also hold its name, Loop Time and the root
/// offsets (a version 3 file reads with the clip's own name, looping and no offsets). Version 5: a state machine
/// (`state_machine`); older files have none.
pub const VERSION: u32 = 5;

fn is_default_goals(g: &crate::core::IkGoals) -> bool {
    *g == crate::core::IkGoals::default()
}

fn is_default_placement(p: &HipsPlacement) -> bool {
    *p == HipsPlacement::default()
}

/// Everything a preset holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Preset {
    /// Always [`FORMAT`].
    pub format: String,
    /// Format version; files newer than [`VERSION`] are refused.
    pub version: u32,
    /// The blend space, when the preset drives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blend: Option<BlendSpace>,
    /// The procedural layers' parameters.
    pub layers: LayerParams,
    /// Humanoid mapping overrides: humanoid bone name → joint name ("" leaves the bone unmapped).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub humanoid: BTreeMap<String, String>,
    /// Where clips retargeted onto the character put its hips ("clip_position", the default, or "rest_offset").
    #[serde(skip_serializing_if = "is_default_placement")]
    pub hips_placement: HipsPlacement,
    /// The IK goals clips retargeted onto the character reach for ([`crate::core::IkGoals`]).
    #[serde(skip_serializing_if = "is_default_goals")]
    pub ik_goals: crate::core::IkGoals,
    /// A joint (`Root`) added above the hips of a rig whose hips are its top joint, so that root motion extracted
    /// from its clips has a joint to go to (a bake adds one by itself).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub root_joint: bool,
    /// Files the character's clips were added from (beyond the model's own), relative to the preset's folder
    /// where possible: loading the preset adds them again, so blend nodes find their clips.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clip_files: Vec<String>,
    /// Clip settings (crop, cycle offset, loop pose) by clip name, as Unity's clip inspector sets them.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub clip_settings: BTreeMap<String, crate::core::ClipSettings>,
    /// Clips made from takes (several clips from one take, as Unity's clip list): each a copy of a loaded clip
    /// under a new name, whose settings are in `clip_settings` under that name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clip_splits: Vec<crate::core::ClipSplit>,
    /// The clip that played when the preset was saved (its name as its settings make it), which the editor plays
    /// again on opening it; None: the blend space played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plays: Option<String>,
    /// The state machine, when the preset drives one ([`crate::graph`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_machine: Option<crate::graph::StateMachine>,
    /// The keys the editor fires the state machine's triggers with: trigger name → key name (a letter or digit).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub trigger_keys: BTreeMap<String, String>,
}

impl Default for Preset {
    fn default() -> Self {
        Preset {
            format: FORMAT.into(),
            version: VERSION,
            blend: None,
            layers: LayerParams::default(),
            humanoid: BTreeMap::new(),
            hips_placement: HipsPlacement::default(),
            ik_goals: Default::default(),
            root_joint: false,
            clip_files: Vec::new(),
            clip_settings: BTreeMap::new(),
            clip_splits: Vec::new(),
            plays: None,
            state_machine: None,
            trigger_keys: BTreeMap::new(),
        }
    }
}

/// Why a preset (or blend space file) could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    /// The file could not be read: missing, not a regular file, or over the byte budget.
    #[error(transparent)]
    Read(#[from] crate::io::limits::ReadError),
    /// Not JSON, or a value of the wrong type.
    #[error("{path}: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// Where and what.
        message: String,
    },
    /// Some other kind of file.
    #[error("{path}: not an animtune preset (format is {found:?}, expected \"{FORMAT}\")")]
    WrongFormat {
        /// The file.
        path: PathBuf,
        /// The format tag found.
        found: String,
    },
    /// Written by a newer animtune.
    #[error(
        "{path}: preset version {version} is newer than this animtune reads (up to {VERSION}); update animtune"
    )]
    Newer {
        /// The file.
        path: PathBuf,
        /// The version found.
        version: u64,
    },
    /// A value out of range or not a number.
    #[error("{path}: {field}: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Field path, as in the JSON.
        field: String,
        /// What is wrong.
        problem: String,
    },
    /// The file holds no blend space where one is needed.
    #[error("{path}: holds no blend space (no \"blend\" object and no \"nodes\")")]
    NoBlendSpace {
        /// The file.
        path: PathBuf,
    },
}

fn json_error(path: &Path, e: serde_path_to_error::Error<serde_json::Error>) -> PresetError {
    let field = e.path().to_string();
    let inner = e.into_inner();
    let message = if field == "." || field.is_empty() {
        inner.to_string()
    } else {
        format!("{field}: {inner}")
    };
    PresetError::Json {
        path: path.to_path_buf(),
        message,
    }
}

fn deserialize<T: serde::de::DeserializeOwned>(text: &str, path: &Path) -> Result<T, PresetError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| json_error(path, e))
}

impl Preset {
    /// Parses preset text; `path` names the source in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, PresetError> {
        let value: serde_json::Value = deserialize(text, path)?;
        check_header(&value, path)?;
        let mut preset: Preset = deserialize(text, path)?;
        preset.validate(path)?;
        if preset.version < 2 {
            preset.layers.breath.migrate_from_right_axis();
        }
        preset.version = VERSION;
        Ok(preset)
    }

    /// Reads and parses a preset file.
    pub fn load(path: &Path) -> Result<Self, PresetError> {
        Self::parse(&read_text(path)?, path)
    }

    /// The humanoid override as bones (names checked by [`Preset::validate`]).
    pub fn humanoid_override(&self) -> BTreeMap<HumanBone, String> {
        self.humanoid
            .iter()
            .filter_map(|(b, j)| HumanBone::from_name(b).map(|b| (b, j.clone())))
            .collect()
    }

    /// Checks every value; the error names the field.
    pub fn validate(&self, path: &Path) -> Result<(), PresetError> {
        let invalid = |field: String, problem: String| PresetError::Invalid {
            path: path.to_path_buf(),
            field,
            problem,
        };
        self.layers
            .validate()
            .map_err(|e| invalid(format!("layers.{}", e.field), e.problem))?;
        self.ik_goals
            .validate()
            .map_err(|(field, problem)| invalid(format!("ik_goals.{field}"), problem))?;
        for (bone, joint) in &self.humanoid {
            if HumanBone::from_name(bone).is_none() {
                return Err(invalid(
                    format!("humanoid.{bone}"),
                    "not a humanoid bone name (Unity HumanBodyBones)".into(),
                ));
            }
            if !joint.is_empty() && joint.trim().is_empty() {
                return Err(invalid(
                    format!("humanoid.{bone}"),
                    "a joint name of only spaces (\"\" leaves the bone unmapped)".into(),
                ));
            }
        }
        if let Some(blend) = &self.blend {
            blend.validate().map_err(|e| PresetError::Invalid {
                path: path.to_path_buf(),
                field: format!("blend.{}", e.field),
                problem: e.problem,
            })?;
        }
        if self.trigger_keys.len() > crate::graph::machine::MAX_MACHINE_ITEMS {
            let n = self.trigger_keys.len();
            return Err(invalid(
                "trigger_keys".into(),
                format!("{n} keys, over the number of parameters a machine may have"),
            ));
        }
        for (trigger, key) in &self.trigger_keys {
            let is_trigger = self.state_machine.as_ref().is_some_and(|m| {
                m.parameters
                    .iter()
                    .any(|p| p.name == *trigger && p.kind == crate::graph::ParameterKind::Trigger)
            });
            if !is_trigger {
                return Err(invalid(
                    format!("trigger_keys.{trigger}"),
                    "the state machine has no trigger of that name".into(),
                ));
            }
            if !(key.len() == 1 && key.chars().all(|c| c.is_ascii_alphanumeric())) {
                return Err(invalid(
                    format!("trigger_keys.{trigger}"),
                    format!("'{key}' is not a letter or digit key"),
                ));
            }
        }
        if let Some(machine) = &self.state_machine {
            machine
                .validate()
                .map_err(|e| invalid("state_machine".into(), e.to_string()))?;
            for state in &machine.states {
                if let Some(space) = &state.blend_space {
                    space.validate().map_err(|e| {
                        let at = format!(
                            "state_machine.states.{}.blend_space.{}",
                            state.name, e.field
                        );
                        invalid(at, e.problem)
                    })?;
                }
            }
        }
        Ok(())
    }

    /// Records `files` as [`Preset::clip_files`], relative to the folder of `preset_path` where they can be.
    pub fn set_clip_files(&mut self, files: &[PathBuf], preset_path: &Path) {
        let dir = preset_path.parent().unwrap_or(Path::new(""));
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.clip_files = files
            .iter()
            .map(|f| {
                let f = std::path::absolute(f).unwrap_or_else(|_| f.clone());
                pathdiff::diff_paths(&f, &dir)
                    .unwrap_or(f)
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
    }

    /// [`Preset::clip_files`] as paths, relative ones taken from the folder of `preset_path`.
    pub fn clip_paths(&self, preset_path: &Path) -> Vec<PathBuf> {
        let dir = preset_path.parent().unwrap_or(Path::new(""));
        self.clip_files.iter().map(|f| dir.join(f)).collect()
    }

    /// The preset as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a preset always serializes")
    }
}

/// Reads a JSON text file (a preset, a blend space, a blend path): a regular file within the byte budget, as UTF-8.
pub fn read_text(path: &Path) -> Result<String, PresetError> {
    let limit = crate::io::limits::Limits::from_env().max_file_bytes;
    let bytes = crate::io::limits::read_file(path, limit)?;
    String::from_utf8(bytes).map_err(|e| PresetError::Json {
        path: path.to_path_buf(),
        message: format!("not UTF-8 text: {e}"),
    })
}

fn check_header(value: &serde_json::Value, path: &Path) -> Result<(), PresetError> {
    if !value.is_object() {
        return Err(PresetError::Json {
            path: path.to_path_buf(),
            message: "a preset is a JSON object ({\"format\": \"animtune-preset\", ...})".into(),
        });
    }
    let format = value.get("format");
    match format {
        Some(serde_json::Value::String(f)) if f == FORMAT => {}
        Some(other) => {
            return Err(PresetError::WrongFormat {
                path: path.to_path_buf(),
                found: other
                    .as_str()
                    .map_or_else(|| other.to_string(), String::from),
            });
        }
        None => {}
    }
    if let Some(v) = value.get("version").and_then(|v| v.as_u64())
        && v > u64::from(VERSION)
    {
        return Err(PresetError::Newer {
            path: path.to_path_buf(),
            version: v,
        });
    }
    Ok(())
}

/// Reads a blend space from a preset (its `"blend"`) or from a file holding just a blend space.
pub fn load_blend_space(path: &Path) -> Result<BlendSpace, PresetError> {
    parse_blend_space(&read_text(path)?, path)
}

/// Parses a blend space from preset text or bare blend space JSON.
pub fn parse_blend_space(text: &str, path: &Path) -> Result<BlendSpace, PresetError> {
    let value: serde_json::Value = deserialize(text, path)?;
    let space = if value.get("format").is_some() || value.get("blend").is_some() {
        Preset::parse(text, path)?
            .blend
            .ok_or_else(|| PresetError::NoBlendSpace {
                path: path.to_path_buf(),
            })?
    } else if value.get("nodes").is_some() {
        let space: BlendSpace = deserialize(text, path)?;
        space.validate().map_err(|e| PresetError::Invalid {
            path: path.to_path_buf(),
            field: e.field,
            problem: e.problem,
        })?;
        space
    } else {
        return Err(PresetError::NoBlendSpace {
            path: path.to_path_buf(),
        });
    };
    Ok(space)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("test.json")
    }

    #[test]
    fn round_trips_and_fills_defaults() {
        let preset = Preset {
            blend: Some(crate::demo::locomotion::default_blend_space()),
            ..Preset::default()
        };
        let back = Preset::parse(&preset.to_json(), p()).unwrap();
        assert_eq!(back, preset);
        let minimal = Preset::parse(r#"{"format":"animtune-preset","version":2}"#, p()).unwrap();
        assert_eq!(minimal, Preset::default());
    }

    #[test]
    fn clip_settings_round_trip_and_version_3_ones_keep_their_name_and_loop() {
        use crate::core::ClipSettings;
        let mut preset = Preset::default();
        let set = ClipSettings {
            name: Some("Stride".into()),
            loop_time: false,
            root_rotation_offset: 90.0,
            root_xz_offset: [0.1, -0.2],
            mirror: true,
            ..Default::default()
        };
        preset.clip_settings.insert("Walk".into(), set);
        assert_eq!(Preset::parse(&preset.to_json(), p()).unwrap(), preset);
        let v3 = Preset::parse(
            r#"{"format":"animtune-preset","version":3,"clip_settings":{"Walk":{"start":0.2}}}"#,
            p(),
        )
        .unwrap();
        let walk = &v3.clip_settings["Walk"];
        assert_eq!(walk.start, Some(0.2));
        assert!(walk.loop_time && walk.name.is_none() && walk.root_y_offset == 0.0);
        assert_eq!(v3.version, VERSION, "migrated");
    }

    #[test]
    fn clip_layers_round_trip_and_older_presets_have_none() {
        use crate::layers::{BodyPart, ClipLayer, LayerMode};
        let mut preset = Preset::default();
        preset.layers.clips.push(ClipLayer {
            clip: "Wave".into(),
            weight: 0.7,
            mode: LayerMode::Additive,
            reference_time: 0.5,
            parts: vec![BodyPart::RightArm, BodyPart::RightHand],
            synced: true,
            ..Default::default()
        });
        let text = preset.to_json();
        assert!(
            text.contains(r#""mode": "additive""#) && text.contains(r#""right_arm""#),
            "{text}"
        );
        assert_eq!(Preset::parse(&text, p()).unwrap(), preset);
        let v2 = Preset::parse(
            r#"{"format":"animtune-preset","version":2,"layers":{}}"#,
            p(),
        )
        .unwrap();
        assert!(v2.layers.clips.is_empty());
        assert_eq!(v2.version, VERSION);
        let bad = r#"{"format":"animtune-preset","version":3,"layers":{"clips":[{"clip":"Wave","weight":2}]}}"#;
        let err = Preset::parse(bad, p()).unwrap_err().to_string();
        assert!(err.contains("layers.clips[0].weight"), "{err}");
    }

    #[test]
    fn clip_files_are_stored_relative_to_the_preset() {
        let dir = std::env::temp_dir().join("animtune-preset-paths");
        let preset_path = dir.join("presets/walk.json");
        let mut p = Preset::default();
        p.set_clip_files(&[dir.join("clips/Soldier.glb")], &preset_path);
        assert_eq!(p.clip_files, ["../clips/Soldier.glb"]);
        let back = Preset::parse(&p.to_json(), &preset_path).unwrap();
        let resolved = back.clip_paths(&preset_path);
        assert_eq!(resolved, [dir.join("presets").join("../clips/Soldier.glb")]);
    }

    /// A state machine round-trips; a version 4 preset reads without one; a broken one is refused naming the
    /// problem.
    #[test]
    fn state_machines_round_trip_and_are_checked() {
        let text = r#"{"format":"animtune-preset","version":5,"state_machine":{
            "parameters":[{"name":"speed","type":"float"}],
            "states":[{"name":"Idle","clip":"Idle_Loop"},{"name":"Walk","clip":"Walk_Loop","speed":1.2}],
            "entry":"Idle",
            "transitions":[{"from":"Idle","to":"Walk","has_exit_time":false,
                            "conditions":[{"parameter":"speed","mode":"greater","threshold":0.1}]}]}}"#;
        let preset = Preset::parse(text, p()).unwrap();
        let machine = preset.state_machine.as_ref().unwrap();
        assert_eq!(machine.states[1].speed, 1.2);
        let again = Preset::parse(&serde_json::to_string(&preset).unwrap(), p()).unwrap();
        assert_eq!(again, preset);
        let v4 = Preset::parse(r#"{"format":"animtune-preset","version":4}"#, p()).unwrap();
        assert!(v4.state_machine.is_none());
        let e = Preset::parse(&text.replace(r#""to":"Walk""#, r#""to":"Run""#), p()).unwrap_err();
        assert!(e.to_string().contains("no state named 'Run'"), "{e}");
        // Trigger keys name a trigger of the machine and a letter or digit key.
        let keyed = |keys: &str| text.replacen('{', &format!(r#"{{"trigger_keys":{keys},"#), 1);
        let e = Preset::parse(&keyed(r#"{"jump":"J"}"#), p()).unwrap_err();
        assert!(e.to_string().contains("trigger_keys.jump"), "{e}");
        let e = Preset::parse(&keyed(r#"{"speed":"J"}"#), p()).unwrap_err();
        assert!(e.to_string().contains("no trigger of that name"), "{e}");
    }

    #[test]
    fn version_1_breath_angles_keep_their_motion() {
        let text = r#"{"format":"animtune-preset","version":1,"layers":{"breath":{"bones":[
            {"bone":"Spine","inhale_deg":2,"exhale_deg":-2},
            {"bone":"Chest","inhale_deg":-3,"exhale_deg":3,"axis":[1,0,0]}]}}}"#;
        let preset = Preset::parse(text, p()).unwrap();
        let bones = &preset.layers.breath.bones;
        // The detected axis flipped from the character's right to its left: the angle flips with it.
        assert_eq!((bones[0].inhale_deg, bones[0].exhale_deg), (-2.0, 2.0));
        // An explicit axis meant, and means, the same rotation.
        assert_eq!((bones[1].inhale_deg, bones[1].exhale_deg), (-3.0, 3.0));
        assert_eq!(preset.version, VERSION);
        let again = Preset::parse(&preset.to_json(), p()).unwrap();
        assert_eq!(
            again, preset,
            "a migrated preset saves as the current version"
        );
    }

    #[test]
    fn errors_name_the_file_and_field() {
        let e = Preset::parse(r#"{"format":"animtune-preset","version":7}"#, p()).unwrap_err();
        assert!(e.to_string().contains("version 7 is newer"), "{e}");
        let e = Preset::parse("[]", p()).unwrap_err();
        assert!(e.to_string().contains("is a JSON object"), "{e}");
        let e = Preset::parse(r#"{"format":"something"}"#, p()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("test.json: not an animtune preset"),
            "{e}"
        );
        let e = Preset::parse(
            r#"{"format":"animtune-preset","blend":{"nodes":[{"position":[0,"x"]}]}}"#,
            p(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("blend.nodes[0].position[1]"), "{e}");
        let e = Preset::parse(
            r#"{"format":"animtune-preset","blend":{"axes":[{"min":1,"max":0},{}]}}"#,
            p(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("blend.axes[0].max"), "{e}");
        let e = Preset::parse(
            r#"{"format":"animtune-preset","layers":{"breath":{"inhale_s":-1}}}"#,
            p(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("layers.breath.inhale_s"), "{e}");
        let e = Preset::parse(
            r#"{"format":"animtune-preset","layers":{"look_at":{"chain":[{"limit":{"mode":"axis","horizontal_deg":120,"vertical_deg":10,"roll":0}}]}}}"#,
            p(),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("layers.look_at.chain[0].limit.horizontal_deg"),
            "{e}"
        );
        let e = Preset::parse(
            r#"{"format":"animtune-preset","humanoid":{"Tail":"x"}}"#,
            p(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("humanoid.Tail"), "{e}");
        let e = parse_blend_space("{}", p()).unwrap_err();
        assert!(matches!(e, PresetError::NoBlendSpace { .. }));
        let e = parse_blend_space("{\"nodes\": [", p()).unwrap_err();
        assert!(e.to_string().starts_with("test.json: "), "{e}");
    }

    #[test]
    fn bare_blend_space_files_are_read() {
        let s = parse_blend_space(
            r#"{"mode":"1d","nodes":[{"clip":"Walk","position":[0,0]},{"clip":"Run","position":[1,0]}]}"#,
            p(),
        )
        .unwrap();
        assert_eq!(s.nodes.len(), 2);
        assert_eq!(s.mode, crate::blend::BlendMode::OneD);
    }
}
