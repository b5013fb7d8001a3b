//! What the passes that make a clip from a whole clip ask for; the passes run in `offline`, and presets keep these
//! settings over a source clip, not its frames.
//! - A root-motion pass (`offline::root_pass`), as Unity's Root Transform options and Unreal's root lock name
//!   it: which components move (XZ travel, yaw, Y), what an extracted root follows, where the root stands.
//! - A loop-seam fix (`offline::loop_seam`): the window the seam's pose and velocity differences spread over.
//! - A foot-skate clean-up (`offline::skate_fix`): how long corrections ease and how far a leg may stretch.

use serde::Serialize;

/// Which parts of the root's motion a pass moves (Unity's Root Transform Rotation, Position (Y), Position (XZ)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RootComponents {
    /// Horizontal travel.
    pub xz: bool,
    /// Turn about the vertical.
    pub yaw: bool,
    /// Height.
    pub y: bool,
}

impl RootComponents {
    /// Travel only: the turn and the height left in the pose.
    pub const TRAVEL: RootComponents = RootComponents {
        xz: true,
        yaw: false,
        y: false,
    };

    /// Travel and turn, the height left in the pose: what engines' root motion usually carries.
    pub const TRAVEL_AND_TURN: RootComponents = RootComponents {
        xz: true,
        yaw: true,
        y: false,
    };

    /// Reads a comma-separated list of `xz`, `yaw` and `y` (at least one).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = RootComponents::default();
        for part in text.split(',').map(str::trim) {
            match part {
                "xz" => out.xz = true,
                "yaw" => out.yaw = true,
                "y" => out.y = true,
                other => {
                    return Err(format!(
                        "'{other}' is not a root component (use xz, yaw and y, comma-separated)"
                    ));
                }
            }
        }
        if out.is_empty() {
            return Err("name at least one root component: xz, yaw or y".into());
        }
        Ok(out)
    }

    /// True when no component is chosen.
    pub fn is_empty(&self) -> bool {
        !(self.xz || self.yaw || self.y)
    }

    /// The chosen components' names, in the order `xz, yaw, y`.
    pub fn names(&self) -> Vec<&'static str> {
        [(self.xz, "xz"), (self.yaw, "yaw"), (self.y, "y")]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect()
    }
}

/// What the extracted root follows (Unity's "Based Upon").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootBasis {
    /// The hips joint (Unity's body orientation and position).
    #[default]
    Hips,
    /// The humanoid's centre of mass: each bone from its humanoid parent a segment weighted by its rest length,
    /// at its midpoint.
    CenterOfMass,
    /// The feet: their midpoint horizontally, the lower foot's height.
    Feet,
}

impl RootBasis {
    /// The name the CLI and reports use.
    pub fn name(self) -> &'static str {
        match self {
            RootBasis::Hips => "hips",
            RootBasis::CenterOfMass => "mass",
            RootBasis::Feet => "feet",
        }
    }
}

/// Where the root stands when its motion is taken away (Unreal's root lock).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootLock {
    /// Its rest (reference) pose.
    #[default]
    Reference,
    /// Where the clip puts it at its first frame.
    FirstFrame,
    /// At the model's origin, turned as in its rest pose.
    Zero,
}

impl RootLock {
    /// The name the CLI and reports use.
    pub fn name(self) -> &'static str {
        match self {
            RootLock::Reference => "ref",
            RootLock::FirstFrame => "first",
            RootLock::Zero => "zero",
        }
    }
}

/// One root-motion pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "pass")]
pub enum RootPass {
    /// The body's motion onto the root joint.
    Extract {
        /// What moves onto the root.
        components: RootComponents,
        /// What the root follows.
        basis: RootBasis,
        /// Where the root starts.
        lock: RootLock,
    },
    /// The root joint's motion into the joints below it.
    IntoPose {
        /// What moves into the pose.
        components: RootComponents,
        /// Where the root stays.
        lock: RootLock,
    },
}

impl RootPass {
    /// The components it moves.
    pub fn components(&self) -> RootComponents {
        match *self {
            RootPass::Extract { components, .. } | RootPass::IntoPose { components, .. } => {
                components
            }
        }
    }

    /// Where it puts the root.
    pub fn lock(&self) -> RootLock {
        match *self {
            RootPass::Extract { lock, .. } | RootPass::IntoPose { lock, .. } => lock,
        }
    }
}

/// A loop-seam fix: the end's pose and velocity made to meet the start's, the difference spread over a window on
/// each side of the seam.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct LoopFix {
    /// Seconds on each side of the seam the difference spreads over (at most half the clip).
    pub window_s: f32,
}

impl LoopFix {
    /// The window when none is given, seconds.
    pub const DEFAULT_WINDOW_S: f32 = 0.3;
}

impl Default for LoopFix {
    fn default() -> Self {
        LoopFix {
            window_s: Self::DEFAULT_WINDOW_S,
        }
    }
}

/// The most a skate clean-up may stretch a leg, percent of its length.
pub const MAX_STRETCH_PCT: f32 = 5.0;

/// A foot-skate clean-up: each plant held at one point, the corrections easing over `plant_blend_s` before and
/// after it, a leg stretched at most `max_stretch_pct` when the pelvis alone cannot bring the ankle in reach.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SkateFix {
    /// Seconds a correction eases in before a plant and out after it.
    pub plant_blend_s: f32,
    /// The most a leg may stretch, percent of its length (0 to [`MAX_STRETCH_PCT`]).
    pub max_stretch_pct: f32,
}

impl SkateFix {
    /// The easing when none is given, seconds.
    pub const DEFAULT_PLANT_BLEND_S: f32 = 0.15;
}

impl Default for SkateFix {
    fn default() -> Self {
        SkateFix {
            plant_blend_s: Self::DEFAULT_PLANT_BLEND_S,
            max_stretch_pct: 0.0,
        }
    }
}
