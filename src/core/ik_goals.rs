//! What retargeting with IK goals asks for (Unreal's IK Retargeter after its FK pass): which chains reach for
//! goals taken from the source's feet and hands, how far each goal is pulled to the source's own position, when a
//! goal is pinned (speed planting) and whether the hips may drop so that the legs reach. The layer that runs them
//! is `layers::ik_goals`; a character carries these settings beside its hips placement, so every clip retargeted
//! onto it (alone, in a blend space, a state machine or a clip layer) gets them.

use serde::{Deserialize, Serialize};

/// One chain's goal (both feet, or both hands).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChainGoal {
    /// Whether the chain reaches for its goal.
    pub enabled: bool,
    /// 0: the goal is the source's effector relative to its hips, scaled by the two rigs' chain lengths and
    /// placed on the target's hips; 1: the source's effector where the source has it (Unreal's Blend to Source).
    pub blend_to_source: f32,
    /// Whether the goal is pinned while the source's effector moves slower than the plant speed.
    pub plant: bool,
}

/// The retarget IK goals of a character (presets: `ik_goals`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IkGoals {
    /// The feet: ankles to their goals by the legs' two-bone IK.
    pub feet: ChainGoal,
    /// The hands: wrists to their goals by the arms' two-bone IK.
    pub hands: ChainGoal,
    /// A source effector slower than this (m/s, in the source's world: its root motion included) is planted.
    pub plant_speed_m_s: f32,
    /// Seconds a pinned goal takes to hand back to the moving one after the plant ends (smoothstep).
    pub plant_release_s: f32,
    /// Whether the hips may be lowered so that both feet reach their goals.
    pub adjust_hips: bool,
}

/// Unreal's default plant speed threshold: 15 cm/s.
pub const DEFAULT_PLANT_SPEED_M_S: f32 = 0.15;

impl Default for ChainGoal {
    fn default() -> Self {
        ChainGoal {
            enabled: false,
            blend_to_source: 0.0,
            plant: true,
        }
    }
}

impl Default for IkGoals {
    fn default() -> Self {
        IkGoals {
            feet: ChainGoal::default(),
            hands: ChainGoal {
                plant: false,
                ..ChainGoal::default()
            },
            plant_speed_m_s: DEFAULT_PLANT_SPEED_M_S,
            plant_release_s: 0.2,
            adjust_hips: true,
        }
    }
}

impl IkGoals {
    /// Whether any chain reaches for a goal.
    pub fn is_active(&self) -> bool {
        self.feet.enabled || self.hands.enabled
    }

    /// Turns on the chains a comma-separated list names (`feet`, `hands`), for the CLI's `--ik-goals`.
    pub fn parse_chains(text: &str) -> Result<Self, String> {
        let mut out = IkGoals::default();
        for part in text.split(',').map(str::trim) {
            match part {
                "feet" => out.feet.enabled = true,
                "hands" => out.hands.enabled = true,
                other => {
                    return Err(format!(
                        "'{other}' is not an IK goal chain (use feet and hands, comma-separated)"
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Checks every value; the error is the field (as presets spell it under `ik_goals`) and what is wrong.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let check = |field: &'static str, v: f32, max: f32| {
            if v.is_finite() && (0.0..=max).contains(&v) {
                Ok(())
            } else {
                Err((field, format!("{v} is not within 0 to {max}")))
            }
        };
        check("feet.blend_to_source", self.feet.blend_to_source, 1.0)?;
        check("hands.blend_to_source", self.hands.blend_to_source, 1.0)?;
        check("plant_speed_m_s", self.plant_speed_m_s, 10.0)?;
        check("plant_release_s", self.plant_release_s, 5.0)
    }

    /// The chains turned on, as `--ik-goals` names them ("feet,hands"; "off" when none).
    pub fn chains(&self) -> String {
        let names: Vec<&str> = [(self.feet.enabled, "feet"), (self.hands.enabled, "hands")]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
        if names.is_empty() {
            "off".into()
        } else {
            names.join(",")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_parse_and_print_back() {
        let g = IkGoals::parse_chains("feet, hands").unwrap();
        assert!(g.feet.enabled && g.hands.enabled);
        assert_eq!(g.chains(), "feet,hands");
        assert_eq!(IkGoals::default().chains(), "off");
        assert!(
            IkGoals::parse_chains("toes")
                .unwrap_err()
                .contains("'toes'")
        );
    }

    #[test]
    fn out_of_range_values_are_named() {
        let mut g = IkGoals::default();
        g.feet.blend_to_source = 1.5;
        assert_eq!(g.validate().unwrap_err().0, "feet.blend_to_source");
        g.feet.blend_to_source = 0.5;
        g.plant_speed_m_s = f32::NAN;
        assert_eq!(g.validate().unwrap_err().0, "plant_speed_m_s");
    }
}
