//! A blend space as the user edits it and presets store it: mode, axes, nodes with their clip names, the
//! sample point, and how clips are timed and how root motion is treated.

use glam::DVec2;
use serde::{Deserialize, Serialize};

use super::weights::{BlendMode, LayoutIssue, compute_weights, layout_issues};

/// The most nodes a blend space may have: weights cost nodes² per point (Unity's blend trees hold tens).
pub const MAX_BLEND_NODES: usize = 1000;
/// One parameter axis of the space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BlendAxis {
    /// Parameter name shown on the axis ("Velocity X").
    pub name: String,
    /// Lower end of the shown range.
    pub min: f64,
    /// Upper end of the shown range.
    pub max: f64,
}

impl Default for BlendAxis {
    fn default() -> Self {
        BlendAxis {
            name: String::new(),
            min: -1.0,
            max: 1.0,
        }
    }
}

/// A clip placed in the space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BlendNode {
    /// Name of the clip it plays.
    pub clip: String,
    /// Where in the space the clip plays alone (x, y; y is ignored in 1D).
    pub position: [f64; 2],
    /// How fast the clip plays (Unity's blend tree Time Scale): its length in the blend's cycle is its duration
    /// over this; 1 by default.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub time_scale: f64,
    /// Where in its cycle the clip plays when the space's cycle starts, as a fraction of it (Unity's blend tree
    /// child Cycle Offset; normalized time sync); 0 by default.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cycle_offset: f64,
    /// The clip plays mirrored left to right (Unity's blend tree child Mirror): in a state machine, whose mirrored
    /// copies of clips are made for it (`offline::mirror::machine_clips`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mirror: bool,
}

fn one() -> f64 {
    1.0
}

fn is_one(v: &f64) -> bool {
    *v == 1.0
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// The largest time scale a node may have.
pub const MAX_TIME_SCALE: f64 = 100.0;

impl Default for BlendNode {
    fn default() -> Self {
        BlendNode {
            clip: String::new(),
            position: [0.0, 0.0],
            time_scale: 1.0,
            cycle_offset: 0.0,
            mirror: false,
        }
    }
}

/// How clips of different lengths are timed against each other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeSync {
    /// All clips share one normalized time; the cycle lasts the weighted mean of their lengths (as Unity's
    /// blend trees do), so feet stay in phase.
    #[default]
    Normalized,
    /// Each clip plays at its own speed and loops on its own.
    Independent,
    /// Foot-phase sync, as Unreal's sync markers: the heaviest clip leads on the normalized time, and each other
    /// clip sits at the leader's fraction between its own matching foot-down markers (left down, right down,
    /// found from each clip's contacts); only markers every playing clip has count. A clip without them plays on
    /// the normalized time.
    Markers,
}

/// What happens to the clips' horizontal root travel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootMotion {
    /// The character stays in place: each clip's average horizontal root velocity is removed.
    #[default]
    InPlace,
    /// The hips travel as authored.
    Keep,
}

/// A blend space: nodes placed over one or two parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BlendSpace {
    /// How weights are computed.
    pub mode: BlendMode,
    /// The x and y axes (y unused in 1D).
    pub axes: [BlendAxis; 2],
    /// The nodes.
    pub nodes: Vec<BlendNode>,
    /// Where the space is sampled.
    pub point: [f64; 2],
    /// How clip times relate.
    pub sync: TimeSync,
    /// Root motion handling.
    pub root_motion: RootMotion,
}

impl Default for BlendSpace {
    fn default() -> Self {
        BlendSpace {
            mode: BlendMode::FreeformDirectional,
            axes: [
                BlendAxis {
                    name: "X".into(),
                    ..BlendAxis::default()
                },
                BlendAxis {
                    name: "Y".into(),
                    ..BlendAxis::default()
                },
            ],
            nodes: Vec::new(),
            point: [0.0, 0.0],
            sync: TimeSync::Normalized,
            root_motion: RootMotion::InPlace,
        }
    }
}

/// A value in a blend space that cannot be used, named by its field path.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{field}: {problem}")]
pub struct BlendSpaceError {
    /// Field path, as in the JSON ("nodes[2].position[0]").
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

impl BlendSpace {
    /// Node positions as vectors.
    pub fn positions(&self) -> Vec<DVec2> {
        self.nodes
            .iter()
            .map(|n| DVec2::from_array(n.position))
            .collect()
    }

    /// The sample point as a vector.
    pub fn point(&self) -> DVec2 {
        DVec2::from_array(self.point)
    }

    /// Weights of every node at the sample point.
    pub fn weights(&self) -> Vec<f64> {
        self.weights_at(self.point())
    }

    /// Weights of every node at any point.
    pub fn weights_at(&self, point: DVec2) -> Vec<f64> {
        let mut out = Vec::new();
        compute_weights(self.mode, &self.positions(), point, &mut out);
        out
    }

    /// What is degenerate about the node layout (warnings, not errors).
    pub fn issues(&self) -> Vec<LayoutIssue> {
        layout_issues(self.mode, &self.positions())
    }

    /// Checks every number; the error names the first bad field.
    pub fn validate(&self) -> Result<(), BlendSpaceError> {
        let bad = |field: String, problem: &str| BlendSpaceError {
            field,
            problem: problem.into(),
        };
        for (a, axis) in self.axes.iter().enumerate() {
            if !axis.min.is_finite() {
                return Err(bad(format!("axes[{a}].min"), "not a finite number"));
            }
            if !axis.max.is_finite() {
                return Err(bad(format!("axes[{a}].max"), "not a finite number"));
            }
            if axis.max <= axis.min {
                return Err(bad(
                    format!("axes[{a}].max"),
                    &format!("must be greater than min ({})", axis.min),
                ));
            }
        }
        if self.nodes.len() > MAX_BLEND_NODES {
            return Err(bad(
                "nodes".into(),
                &format!(
                    "{} nodes, over the {MAX_BLEND_NODES} a blend space may have",
                    self.nodes.len()
                ),
            ));
        }
        for (i, node) in self.nodes.iter().enumerate() {
            for (c, v) in node.position.iter().enumerate() {
                if !v.is_finite() {
                    return Err(bad(
                        format!("nodes[{i}].position[{c}]"),
                        "not a finite number",
                    ));
                }
            }
            let t = node.time_scale;
            if !(t.is_finite() && t > 0.0 && t <= MAX_TIME_SCALE) {
                return Err(bad(
                    format!("nodes[{i}].time_scale"),
                    &format!("{t}: expected a number above 0, up to {MAX_TIME_SCALE}"),
                ));
            }
            let o = node.cycle_offset;
            if !(o.is_finite() && (0.0..1.0).contains(&o)) {
                return Err(bad(
                    format!("nodes[{i}].cycle_offset"),
                    &format!("{o}: expected a fraction of the cycle, from 0 up to 1"),
                ));
            }
        }
        for (c, v) in self.point.iter().enumerate() {
            if !v.is_finite() {
                return Err(bad(format!("point[{c}]"), "not a finite number"));
            }
        }
        Ok(())
    }

    /// Moves the sample point, clamped to the axes' ranges (and y to 0 in 1D).
    pub fn set_point(&mut self, point: [f64; 2]) {
        let clamp = |v: f64, a: &BlendAxis| {
            if v.is_finite() {
                v.clamp(a.min, a.max)
            } else {
                a.min.max(0.0).min(a.max)
            }
        };
        self.point = [
            clamp(point[0], &self.axes[0]),
            clamp(point[1], &self.axes[1]),
        ];
        if !self.mode.is_2d() {
            self.point[1] = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_take_defaults_and_bad_numbers_name_the_field() {
        let s: BlendSpace =
            serde_json::from_str(r#"{"nodes":[{"clip":"Walk","position":[0,1]}]}"#).unwrap();
        assert_eq!(s.mode, BlendMode::FreeformDirectional);
        assert_eq!(s.sync, TimeSync::Normalized);
        assert_eq!(s.nodes[0].clip, "Walk");
        assert!(s.validate().is_ok());
        let mut bad = s.clone();
        bad.nodes[0].position[1] = f64::NAN;
        assert_eq!(
            bad.validate().unwrap_err().to_string(),
            "nodes[0].position[1]: not a finite number"
        );
        let mut bad = s;
        bad.axes[1].max = -5.0;
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .starts_with("axes[1].max")
        );
    }

    #[test]
    fn mode_names_round_trip() {
        for mode in BlendMode::ALL {
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
            assert_eq!(serde_json::from_str::<BlendMode>(&json).unwrap(), mode);
        }
    }
}
