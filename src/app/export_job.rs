//! One export of what the editor plays (the blend space at its point, or a clip, with the layers), owned so
//! it runs on a worker thread: a bake request to the offline pipeline, then the file written.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::editor::EditorState;
use crate::blend::BlendSpace;
use crate::clipfile::unity::UnityAxes;
use crate::core::{Character, Clip};
use crate::layers::LayerParams;
use crate::offline::stream::{file_stem, per_node_specs};
use crate::offline::{
    BakeRequest, BakeSettings, BakeSource, ExportError, ExportFormat, StreamSource, StreamSpec,
};
use crate::preset::Preset;

/// What one export does, owned so it can run on another thread.
#[derive(Clone, Debug)]
pub struct ExportJob {
    /// The character.
    pub character: Character,
    /// Its clips as loaded.
    pub clips: Vec<Clip>,
    /// Their settings, by the loaded clip's name.
    pub clip_settings: std::collections::BTreeMap<String, crate::core::ClipSettings>,
    /// The blend space.
    pub blend: BlendSpace,
    /// The layers.
    pub layers: LayerParams,
    /// The source, or None for one clip per blend node (plus the preset) into a folder.
    pub source: Option<StreamSource>,
    /// Seconds (ignored per node: each node bakes its cycle).
    pub duration: f32,
    /// Frames per second.
    pub fps: f32,
    /// For one clip: the in/out range it starts at and loops within (None: the whole clip from 0).
    pub clip_range: Option<[f32; 2]>,
    /// Output layout.
    pub format: ExportFormat,
    /// glTF without meshes.
    pub animation_only: bool,
    /// Unity layout: the axes of its values.
    pub unity_axes: UnityAxes,
    /// Unity layout: curves only for the joints that move.
    pub sparse: bool,
    /// Output file, or folder for one clip per node.
    pub path: PathBuf,
    /// Replace existing files (the user confirmed).
    pub overwrite: bool,
}

impl ExportJob {
    /// A job for what `e` holds, writing `source` (None: one clip per blend node) to `path`.
    pub fn for_editor(e: &EditorState, source: Option<StreamSource>, path: PathBuf) -> Self {
        let tuning = e.tuning();
        ExportJob {
            character: e.doc().model.character.clone(),
            clips: e.doc().source_clips.clone(),
            clip_settings: tuning.clip_settings.clone(),
            blend: tuning.blend.clone(),
            layers: tuning.layers.clone(),
            source,
            duration: 2.0,
            fps: 30.0,
            clip_range: None,
            format: ExportFormat::Gltf,
            animation_only: false,
            unity_axes: UnityAxes::Unity,
            sparse: false,
            path,
            overwrite: false,
        }
    }

    /// Runs the export; `progress` gets the fraction done, `cancel` stops it. Returns the status line.
    pub fn run(&self, progress: &AtomicU32, cancel: &AtomicBool) -> Result<String, String> {
        // A clip keeps its name (as its settings make it), as Unity and Blender name an exported action; a blend
        // space's stream takes the file's.
        let clip_name = match &self.source {
            Some(StreamSource::Clip(i)) => self.clips.get(*i).map(|c| {
                crate::offline::request::settled_name(&c.name, &self.clip_settings).to_string()
            }),
            _ => None,
        };
        let name = clip_name.unwrap_or_else(|| {
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "Baked".into())
        });
        let settings = BakeSettings {
            fps: self.fps,
            unity_axes: self.unity_axes,
            sparse: self.sparse,
            ..BakeSettings::default()
        };
        let bake = |spec: &StreamSpec, name: &str, out: &std::path::Path, part: (usize, usize)| {
            let request = BakeRequest {
                character: &self.character,
                clips: &self.clips,
                clip_settings: &self.clip_settings,
                blend: Some(&self.blend),
                layers: &self.layers,
                source: BakeSource::Stream(spec.clone()),
                name: name.to_string(),
                format: self.format,
                animation_only: self.animation_only,
                settings: settings.clone(),
            };
            let encoded = request
                .run(&mut |done, total| {
                    let f = (part.0 as f32 + done as f32 / total.max(1) as f32) / part.1 as f32;
                    progress.store((f * 1000.0) as u32, Ordering::Relaxed);
                    !cancel.load(Ordering::Relaxed)
                })
                .map_err(|e| match e {
                    ExportError::Cancelled => "Export cancelled; nothing was written".to_string(),
                    e => format!("{}: {e}", out.display()),
                })?
                .encoded;
            crate::io::fsutil::write_atomic(out, &encoded.bytes, self.overwrite)
                .map_err(|e| e.to_string())?;
            Ok::<f32, String>(encoded.report.max_error_cm)
        };
        match &self.source {
            Some(source) => {
                let spec = StreamSpec {
                    source: source.clone(),
                    duration: self.duration,
                    fps: self.fps,
                    clip_range: self.clip_range,
                };
                let err = bake(&spec, &name, &self.path, (0, 1))?;
                Ok(format!(
                    "Exported {} ({}, {:.2} s at {} fps, max error {:.4} cm)",
                    self.path.display(),
                    self.format.name(),
                    self.duration,
                    self.fps,
                    err
                ))
            }
            None => {
                std::fs::create_dir_all(&self.path)
                    .map_err(|e| format!("{}: cannot create folder: {e}", self.path.display()))?;
                // Each node's cycle is that of its clip as its settings make it.
                let (clips, _) = crate::offline::apply_clip_settings(
                    &self.character,
                    &self.clips,
                    &self.clip_settings,
                );
                let specs = per_node_specs(&self.blend, &clips, &self.character, self.fps, None);
                let n = specs.len();
                for (i, (clip, spec)) in specs.iter().enumerate() {
                    let out = self.path.join(format!(
                        "{}.{}",
                        file_stem(clip, i),
                        self.format.extension()
                    ));
                    bake(spec, clip, &out, (i, n))?;
                }
                let preset = Preset {
                    blend: Some(self.blend.clone()),
                    layers: self.layers.clone(),
                    ..Preset::default()
                };
                crate::io::fsutil::write_atomic(
                    &self.path.join("preset.json"),
                    preset.to_json().as_bytes(),
                    self.overwrite,
                )
                .map_err(|e| e.to_string())?;
                Ok(format!(
                    "Exported the preset and {n} clips ({}) to {}",
                    self.format.name(),
                    self.path.display()
                ))
            }
        }
    }
}
