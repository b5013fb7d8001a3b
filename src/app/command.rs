//! What the panels ask the editor to do. A panel reads the [`EditorState`](super::editor::EditorState) and
//! pushes `Command`s; the window applies them all at the start of the next frame, then advances time and
//! evaluates the pose once (see [`EditorState::update`](super::editor::EditorState::update)).

use std::path::PathBuf;

use glam::Vec3;

use crate::blend::{BlendAxis, BlendMode, BlendNode, BlendSpace, RootMotion, TimeSync};
use crate::layers::LayerParams;
use crate::render::camera::ViewPreset;

/// An analysis a panel runs over the blend space and the clips (off the UI thread, with progress).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Analysis {
    /// Blend tab › New space from clips: a space laid out from the clips' names and measured speeds.
    NewSpaceFromClips,
    /// Blend tab › Compute positions: the nodes placed from their clips' motion.
    ComputePositions(crate::analysis::positions::ComputePositions),
    /// Blend tab › Homogeneous speed: the nodes' time scales set from their clips' speeds.
    HomogeneousSpeed,
}

impl Analysis {
    /// What the status bar calls it while it runs.
    pub fn name(self) -> String {
        match self {
            Analysis::NewSpaceFromClips => "New space from clips".to_string(),
            Analysis::ComputePositions(kind) => format!("Compute positions ({})", kind.name()),
            Analysis::HomogeneousSpeed => "Homogeneous speed".to_string(),
        }
    }

    /// What its error line says it could not do.
    pub fn failure(self) -> &'static str {
        match self {
            Analysis::NewSpaceFromClips => "cannot lay out a blend space",
            Analysis::ComputePositions(_) => "Compute positions",
            Analysis::HomogeneousSpeed => "Homogeneous speed",
        }
    }
}

/// One request from a panel, a shortcut, a dropped file or a script.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Opens a model, a clip, a preset or a Unity controller, deciding by extension (a folder: a Unity project).
    Open(PathBuf),
    /// Closes the list of a Unity project's controllers without opening one.
    DismissControllerChoice,
    /// Adds every clip of a file (a model, .vrma, .animclip or Unity layout) to the character's clip list and
    /// plays the first.
    AddClips(PathBuf),
    /// Adds a file's clips as [`Command::AddClips`] does but keeps playing the blend space if one plays (the
    /// command line's `--clips`: the model opens on its remembered space, whose nodes may be these clips).
    AddClipsKeepingSource(PathBuf),
    /// Writes the tuning as a preset; `overwrite` only after the user confirmed.
    SavePreset {
        /// The file to write.
        path: PathBuf,
        /// Replace an existing file.
        overwrite: bool,
    },
    /// Goes back to the built-in mannequin (the recent files stay).
    LoadMannequin,
    /// Playback.
    Transport(Transport),
    /// Plays one clip (None: the rest pose) from its start.
    PlayClip(Option<usize>),
    /// Plays the blend space from the start of its cycle.
    PlayBlend,
    /// Changes the blend space (one undo step per interaction).
    EditBlend(BlendEdit),
    /// Moves the blend space's sample point (not an undo step, like scrubbing).
    SetBlendPoint([f64; 2]),
    /// Replaces the procedural layers' parameters (one undo step per interaction).
    SetLayers(Box<LayerParams>),
    /// Moves the look-at target (one undo step per drag).
    SetLookTarget(Vec3),
    /// Undoes the last tuning edit.
    Undo,
    /// Redoes the last undone edit.
    Redo,
    /// Selects a joint (None: no selection).
    SelectJoint(Option<usize>),
    /// Selects the joint nearest a point of the viewport, within a radius (pixels).
    PickJoint {
        /// The cursor, relative to the viewport's top-left corner.
        cursor: [f32; 2],
        /// The viewport's size.
        size: [f32; 2],
        /// How far from a joint a click still selects it.
        radius: f32,
    },
    /// Moves the viewport camera.
    Camera(CameraMove),
    /// Shows or hides the skeleton overlay.
    ShowSkeleton(bool),
    /// Shows or hides the ground grid.
    ShowGrid(bool),
    /// Shows or hides the spring joints and colliders in the viewport.
    ShowSprings(bool),
    /// Measures the blend space's skate map in the background (while the Blend tab paints it) or stops.
    ShowSkateMap(bool),
    /// Starts or stops driving the blend point with keys and a gamepad (the blend space plays).
    Drive(bool),
    /// The stick this frame while driving (x right, y forward).
    Stick([f32; 2]),
    /// How the driven point follows the stick.
    SetDriveParams(crate::blend::DriveParams),
    /// Moves the character about in the world by this much (the springs feel it; not an undo step).
    MoveCharacter(Vec3),
    /// Puts the character back at the origin.
    CenterCharacter,
    /// Sways the character from side to side, so springs move while the clip stands still.
    Shake(bool),
    /// Forgets the springs' motion: their tails go where the pose puts them.
    ResetSprings,
    /// How a single clip's root travel shows (in place, or kept with the camera following).
    SetClipRootMotion(RootMotion),
    /// The camera follows the root while motion is kept.
    FollowRoot(bool),
    /// Ghost poses before and after the current time.
    SetOnionSkin(OnionSkin),
    /// The in/out range that playback loops within (None: the whole clip).
    SetPlayRange(Option<[f32; 2]>),
    /// Opens a file dialog for this purpose (the window carries it out; the editor state ignores it).
    ChooseFile(Purpose),
    /// Maps a human bone to a joint (None: to no joint): an undoable humanoid override.
    SetHumanBone(crate::core::HumanBone, Option<usize>),
    /// Where clips retargeted onto the character put its hips: an undoable setting that presets save.
    SetHipsPlacement(crate::core::HipsPlacement),
    /// The retarget IK goals clips from other characters reach for: an undoable setting that presets save.
    SetIkGoals(crate::core::IkGoals),
    /// Make another clip from the take of clip `index` (cropped to the in/out range when one is set).
    SplitTake(usize),
    /// Remove a clip made from a take, by its loaded name.
    RemoveSplit(String),
    /// Make a clip from clip `index` as it plays with a pass over it: a root-motion pass (root motion extracted
    /// onto the joint above the hips, or moved into the pose), a skate clean-up or a loop-seam fix.
    PassClip(usize, ClipPass),
    /// One clip's settings (crop, cycle offset, loop pose), by clip name: undoable, saved in presets.
    SetClipSettings {
        /// The clip's name.
        clip: String,
        /// Its settings (the defaults remove them).
        settings: crate::core::ClipSettings,
    },
    /// Makes a state machine when there is none: one state playing the clip shown (or the first clip), the
    /// entry. One undo step.
    NewMachine,
    /// Changes the state machine (one undo step per interaction); a machine playing restarts with its parameters.
    EditMachine(crate::graph::MachineEdit),
    /// Plays the state machine from its entry state, its parameters at their defaults.
    PlayMachine,
    /// Sets a parameter of the machine playing (not an undo step; recorded while recording).
    SetMachineParameter(String, crate::graph::ParameterValue),
    /// Fires a trigger of the machine playing (recorded while recording).
    FireTrigger(String),
    /// Plays a transition's preview (its source, then the transition at its exit time, then its destination),
    /// paused at `time` seconds from the source's start: the preview timeline's scrub.
    PreviewTransition {
        /// The transition's index.
        transition: usize,
        /// Seconds from the source's start.
        time: f32,
    },
    /// Starts recording parameter changes (the machine plays again from its entry) or stops and keeps them as
    /// the script.
    RecordScript(bool),
    /// Plays the machine again from its entry with the script's parameter changes at their times.
    ReplayScript,
    /// Reads a parameter script to replay.
    OpenScript(PathBuf),
    /// Writes the script; `overwrite` only after the user confirmed.
    SaveScript {
        /// The file to write.
        path: PathBuf,
        /// Replace an existing file.
        overwrite: bool,
    },
    /// Shows a second character beside the first playing the same machine with every transition under this
    /// model (None: one character); the machine plays again from its entry.
    CompareModels(Option<crate::graph::TransitionModel>),
    /// Binds a key (egui's name for it; None unbinds) to fire a trigger.
    SetTriggerKey(String, Option<String>),
    /// Runs a panel's analysis in the background; its result arrives as one undo step and a status line.
    Analyze(Analysis),
    /// Measures the loop match of a clip in the background (the Clip tab shows it when it comes).
    MeasureLoopMatch(usize),
    /// Computes the selected joint's curves in the background (while the curves view is shown).
    ComputeCurves,
    /// Puts a line in the status bar (a panel's own outcome: an export finished, no file chosen).
    Report {
        /// The message.
        text: String,
        /// True for a failure.
        is_error: bool,
    },
}

/// Onion skin: translucent ghost poses at frame steps around the current time (Maya's ghosting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnionSkin {
    /// Drawn at all.
    pub enabled: bool,
    /// Ghosts before the current time.
    pub before: u32,
    /// Ghosts after it.
    pub after: u32,
    /// Frames between ghosts (at the session's frame rate).
    pub step_frames: u32,
}

impl Default for OnionSkin {
    fn default() -> Self {
        OnionSkin {
            enabled: false,
            before: 2,
            after: 2,
            step_frames: 5,
        }
    }
}

/// Playback requests; the seek, stop and scrub rules themselves live in the [`Evaluator`](crate::eval::Evaluator).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transport {
    /// Starts playing.
    Play,
    /// Play / pause toggle.
    TogglePlay,
    /// Pauses, goes back to the start, resets the breath clock and the look-at smoothing.
    Stop,
    /// Pauses and jumps to a time (the timeline's slider, Home).
    Scrub(f32),
    /// Pauses and jumps to the end.
    ScrubToEnd,
    /// Pauses and moves by whole frames.
    StepFrames(i32),
    /// Loop on or off.
    SetLooping(bool),
    /// Playback speed (negative plays backwards).
    SetSpeed(f32),
}

/// Camera moves from the viewport and the View menu.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CameraMove {
    /// Turns around the target by yaw and pitch (radians).
    Orbit(f32, f32),
    /// Moves the target sideways and up, in view heights.
    Pan(f32, f32),
    /// Multiplies the distance.
    Zoom(f32),
    /// Frames the posed character.
    Frame,
    /// Turns to a standard view and frames the character.
    View(ViewPreset),
    /// The front view, framed (the camera a model opens with).
    Reset,
    /// The viewport's aspect ratio (width / height), which framing fits.
    SetAspect(f32),
}

/// One change to the blend space.
#[derive(Clone, Debug, PartialEq)]
pub enum BlendEdit {
    /// The weighting mode.
    SetMode(BlendMode),
    /// How clip times relate.
    SetSync(TimeSync),
    /// Root motion handling.
    SetRootMotion(RootMotion),
    /// Axis 0 (x) or 1 (y).
    SetAxis(usize, BlendAxis),
    /// Moves a node (its y is kept at 0 in a 1D space).
    MoveNode(usize, [f64; 2]),
    /// Plays another clip at a node.
    SetNodeClip(usize, String),
    /// Sets a node's time scale (ignored unless finite, above 0 and at most the limit).
    SetTimeScale(usize, f64),
    /// Removes a node.
    RemoveNode(usize),
    /// Adds a node.
    AddNode(BlendNode),
    /// Replaces the whole space (a file was opened).
    Replace(Box<BlendSpace>),
}

impl BlendEdit {
    /// Applies the edit; indices past the end are ignored.
    pub fn apply(self, space: &mut BlendSpace) {
        match self {
            BlendEdit::SetMode(m) => space.mode = m,
            BlendEdit::SetSync(s) => space.sync = s,
            BlendEdit::SetRootMotion(r) => space.root_motion = r,
            BlendEdit::SetAxis(a, axis) => {
                if let Some(slot) = space.axes.get_mut(a) {
                    *slot = axis;
                }
            }
            BlendEdit::MoveNode(i, p) => {
                let two_d = space.mode.is_2d();
                if let Some(n) = space.nodes.get_mut(i) {
                    n.position = if two_d { p } else { [p[0], 0.0] };
                }
            }
            BlendEdit::SetNodeClip(i, clip) => {
                if let Some(n) = space.nodes.get_mut(i) {
                    n.clip = clip;
                }
            }
            BlendEdit::SetTimeScale(i, t) => {
                if let Some(n) = space.nodes.get_mut(i)
                    && t.is_finite()
                    && t > 0.0
                    && t <= crate::blend::space::MAX_TIME_SCALE
                {
                    n.time_scale = t;
                }
            }
            BlendEdit::RemoveNode(i) => {
                if i < space.nodes.len() {
                    space.nodes.remove(i);
                }
            }
            BlendEdit::AddNode(node) => space.nodes.push(node),
            BlendEdit::Replace(new) => *space = *new,
        }
    }
}

/// Where panels put their commands during a frame.
pub type Commands = Vec<Command>;

/// The kinds of file the open dialogs offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenKind {
    /// A character (.glb, .gltf, .vrm, .fbx).
    Model,
    /// Clips to add to the character: any file holding animation (models, .vrma, .animclip, Unity .bytes).
    Clips,
    /// A blend space or preset (.json).
    Preset,
    /// A Unity AnimatorController (.controller): its base layer becomes the state machine.
    UnityController,
    /// A Unity project folder: its controller (the user picks one where it has several).
    UnityProject,
}

/// What a dialog is choosing a path for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A file to open.
    Open(OpenKind),
    /// Where to save the preset.
    SavePreset,
    /// The export's output file, with its extension.
    ExportFile(&'static str),
    /// The export's output folder (one clip per node).
    ExportFolder,
    /// A parameter script to replay.
    OpenScript,
    /// Where to save the recorded script.
    SaveScript,
}

/// A pass that makes a clip from a clip (see [`Command::PassClip`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClipPass {
    /// Root motion moved between the hips and the root joint.
    Root(crate::core::clip_pass::RootPass),
    /// The loop seam's pose and velocity matched.
    Loop(crate::core::clip_pass::LoopFix),
    /// The foot skate cleaned up.
    Skate(crate::core::clip_pass::SkateFix),
}
