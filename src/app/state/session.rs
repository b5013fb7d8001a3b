//! The session: how the document is being looked at (the evaluator's transport, the camera, the selection,
//! overlays, the status bar and recent files). None of it is undone or saved in a preset.

use std::collections::BTreeMap;
use std::path::PathBuf;

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::app::command::OnionSkin;

use crate::blend::BlendSpace;
use crate::eval::Evaluator;
use crate::layers::LayerParams;
use crate::render::OrbitCamera;

/// Most recent files remembered.
pub const RECENT_LIMIT: usize = 10;

/// One line for the status bar.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Status {
    /// The message.
    pub text: String,
    /// True when it reports a failure.
    pub is_error: bool,
}

/// Messages the status bar's log keeps.
pub const MAX_MESSAGES: usize = 50;

/// What survives a restart.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Persisted {
    /// Recently opened files, newest first.
    pub recent: Vec<PathBuf>,
    /// Skeleton overlay on.
    pub show_skeleton: bool,
    /// The mannequin's blend space as sessions before per-model spaces saved it (read, never written).
    #[serde(default, skip_serializing)]
    pub blend: Option<BlendSpace>,
    /// Each model's blend space, by [`model_key`](crate::app::state::document::model_key).
    #[serde(default)]
    pub spaces: BTreeMap<String, BlendSpace>,
    /// Each model's state machine, by model key.
    #[serde(default)]
    pub machines: BTreeMap<String, crate::graph::StateMachine>,
    /// The layers being tuned.
    #[serde(default)]
    pub layers: Option<LayerParams>,
    /// The height of the character the look-at target was placed for (model units): a character of another
    /// size gets the target scaled with it.
    #[serde(default)]
    pub look_target_height: Option<f32>,
}

/// The view of the document.
pub struct Session {
    /// The one evaluator of poses: source, clock and transport, layers; its output is the current pose.
    pub eval: Evaluator,
    /// Viewport camera.
    pub camera: OrbitCamera,
    /// Selected joint.
    pub selected: Option<usize>,
    /// Draw the skeleton overlay.
    pub show_skeleton: bool,
    /// Draw the ground grid.
    pub show_grid: bool,
    /// The status bar line.
    pub status: Status,
    /// The last [`MAX_MESSAGES`] messages, oldest first: the status bar's log shows them whole.
    pub messages: std::collections::VecDeque<Status>,
    /// Recently opened files, newest first.
    pub recent: Vec<PathBuf>,
    /// Frames per second used for frame numbers and stepping.
    pub frame_rate: f32,
    /// The viewport's aspect ratio (width / height), which framing fits.
    pub viewport_aspect: f32,
    /// The camera follows the root-motion joint while a clip plays (kept or in place: an in-place clip whose
    /// hips still wander stays in view).
    pub follow_root: bool,
    /// Where the camera last saw the root-motion joint (on the ground).
    pub followed_root: Option<Vec3>,
    /// Set by a change of root motion: the next frame puts the camera's target over the root.
    pub recenter_on_root: bool,
    /// Where the root-motion joint has been while playing (model space, on the ground), oldest first.
    pub root_trail: Vec<Vec3>,
    /// Ghost poses around the current time.
    pub onion: OnionSkin,
    /// The blend space each model was last tuned with, by model key (the open model's is in the document).
    pub spaces: BTreeMap<String, BlendSpace>,
    /// The state machine each model was last tuned with, by model key (the open model's is in the document).
    pub machines: BTreeMap<String, crate::graph::StateMachine>,
    /// Draw the spring joints and colliders.
    pub show_springs: bool,
    /// Where the user moved the character to (world space; the springs move in the world).
    pub character_offset: Vec3,
    /// Sway the character from side to side.
    pub shake: bool,
    /// Seconds the sway has run.
    pub shake_time: f32,
    /// Measure and paint the blend space's skate map (the Blend tab).
    pub show_skate_map: bool,
    /// Keys (WASD, arrows) and a gamepad's left stick drive the blend point, and the character travels.
    pub driving: bool,
    /// The stick as the keys and the pad hold it this frame (x right, y forward, in the unit disc).
    pub stick: [f32; 2],
    /// The point's motion while driven, and how it follows the stick.
    pub drive: crate::blend::Drive,
    /// How the driven point follows the stick.
    pub drive_params: crate::blend::DriveParams,
    /// What the editor plays and records of the state machine.
    pub machine: MachineSession,
    /// The controllers of a Unity project folder just opened that holds several: the window asks which to open.
    pub controller_choice: Vec<PathBuf>,
}

/// Keys a trigger can be bound to: letters and digits the editor's own shortcuts leave free.
pub const TRIGGER_KEYS: [&str; 16] = [
    "G", "H", "J", "K", "L", "N", "M", "U", "B", "C", "V", "X", "2", "4", "5", "6",
];

/// The state machine as the editor plays it: a transition's preview, a recording, a script replaying, the keys
/// that fire triggers. None of it is undone or saved in a preset.
#[derive(Clone, Debug, Default)]
pub struct MachineSession {
    /// The transition whose preview the evaluator plays (its source into its destination, the conditions taken
    /// as met), while it does.
    pub preview: Option<usize>,
    /// Parameter changes since recording started, at the machine's time.
    pub recording: Option<Vec<crate::graph::ScriptEvent>>,
    /// The script last recorded or opened.
    pub script: Option<crate::graph::Script>,
    /// While the script replays (the Evaluator's machine plays it until its last event).
    pub replaying: bool,
    /// Whether the parameters are the replayed script's (from its replay's start until a parameter is set by
    /// hand or the machine is played anew): a seek then replays the script to the time.
    pub replayed: bool,
    /// Trigger name → the key (egui's name for it) that fires it.
    pub trigger_keys: BTreeMap<String, String>,
}

impl Session {
    /// A session around an evaluator, with the default camera and overlays.
    pub fn new(eval: Evaluator) -> Self {
        Session {
            eval,
            camera: OrbitCamera::default(),
            selected: None,
            show_skeleton: false,
            show_grid: true,
            status: Status::default(),
            messages: std::collections::VecDeque::new(),
            recent: Vec::new(),
            frame_rate: 30.0,
            viewport_aspect: 16.0 / 9.0,
            follow_root: true,
            followed_root: None,
            recenter_on_root: false,
            root_trail: Vec::new(),
            onion: OnionSkin::default(),
            spaces: BTreeMap::new(),
            machines: BTreeMap::new(),
            show_springs: true,
            character_offset: Vec3::ZERO,
            shake: false,
            shake_time: 0.0,
            show_skate_map: false,
            driving: false,
            stick: [0.0, 0.0],
            drive: crate::blend::Drive::default(),
            drive_params: crate::blend::DriveParams::default(),
            machine: MachineSession::default(),
            controller_choice: Vec::new(),
        }
    }

    /// Where the character stands in the world: the user's offset plus the sway (0.15 m side to side at 1.2 Hz).
    pub fn placement(&self) -> glam::Mat4 {
        let sway = if self.shake {
            Vec3::X * 0.15 * (std::f32::consts::TAU * 1.2 * self.shake_time).sin()
        } else {
            Vec3::ZERO
        };
        glam::Mat4::from_translation(self.character_offset + sway)
    }

    /// Current frame number at the session's frame rate.
    pub fn frame(&self) -> u32 {
        (self.eval.time() * self.frame_rate).round() as u32
    }

    /// Puts `path` first in the recent files.
    pub fn remember(&mut self, path: &std::path::Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(RECENT_LIMIT);
    }

    /// Sets the status line.
    pub fn report(&mut self, text: String, is_error: bool) {
        self.status = Status { text, is_error };
        if self.messages.len() >= MAX_MESSAGES {
            self.messages.pop_front();
        }
        self.messages.push_back(self.status.clone());
    }
}
