//! One export of what the editor plays (the blend space at its point, or a clip, with the layers), owned so
//! it runs on a worker thread: a bake request to the offline pipeline, then the files written.
//!
//! An export writes all of its files or none: every output path is checked first (one that exists is refused
//! unless the user confirmed replacing it), every stream is baked in memory, and only then is each file written,
//! atomically (a temporary file renamed into place, `io::fsutil`). A refusal, a failed bake or a cancel before
//! the writes writes nothing; should a write itself fail, the status line names the files already written.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::editor::EditorState;
use crate::blend::BlendSpace;
use crate::clipfile::unity::UnityAxes;
use crate::core::{Character, Clip};
use crate::layers::LayerParams;
use crate::offline::stream::{file_stem, files_in, per_node_specs};
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

    /// The files the export writes: its file, or, one clip per node, each node's clip (named as `bake
    /// --per-node` names them) and `preset.json` in its folder.
    pub fn outputs(&self) -> Vec<PathBuf> {
        match self.source {
            Some(_) => vec![self.path.clone()],
            None => per_node_outputs(&self.blend, &self.path, self.format),
        }
    }

    /// Runs the export; `progress` gets the fraction done, `cancel` stops it until the writes begin. Returns the
    /// status line: what was written, or why nothing (or what part) was.
    pub fn run(&self, progress: &AtomicU32, cancel: &AtomicBool) -> Result<String, String> {
        let outputs = self.outputs();
        if !self.overwrite
            && let Some(existing) = outputs.iter().find(|p| p.symlink_metadata().is_ok())
        {
            return Err(format!(
                "{}: already exists; nothing was written",
                existing.display()
            ));
        }
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
        let bake = |spec: &StreamSpec, name: &str, out: &Path, part: (usize, usize)| {
            let request = BakeRequest {
                character: &self.character,
                clips: &self.clips,
                clip_settings: &self.clip_settings,
                blend: Some(&self.blend),
                layers: &self.layers,
                source: BakeSource::Stream(spec.clone()),
                root_pass: None,
                loop_fix: None,
                skate_fix: None,
                name: name.to_string(),
                format: self.format,
                animation_only: self.animation_only,
                settings: settings.clone(),
            };
            request
                .run(&mut |done, total| {
                    let f = (part.0 as f32 + done as f32 / total.max(1) as f32) / part.1 as f32;
                    progress.store((f * 1000.0) as u32, Ordering::Relaxed);
                    !cancel.load(Ordering::Relaxed)
                })
                .map(|outcome| outcome.encoded)
                .map_err(|e| match e {
                    ExportError::Cancelled => "Export cancelled; nothing was written".to_string(),
                    e => format!("{}: {e}; nothing was written", out.display()),
                })
        };
        let cancelled = || {
            cancel
                .load(Ordering::Relaxed)
                .then(|| "Export cancelled; nothing was written".to_string())
        };
        match &self.source {
            Some(source) => {
                let spec = StreamSpec {
                    source: source.clone(),
                    duration: self.duration,
                    fps: self.fps,
                    clip_range: self.clip_range,
                };
                let encoded = bake(&spec, &name, &self.path, (0, 1))?;
                if let Some(text) = cancelled() {
                    return Err(text);
                }
                write_all(&[(self.path.clone(), encoded.bytes)], self.overwrite)?;
                let simulated = match source {
                    StreamSource::Machine { sim_rate, .. } => {
                        format!(", the machine simulated at {sim_rate} Hz")
                    }
                    _ => String::new(),
                };
                Ok(format!(
                    "Exported {} ({}, {:.2} s at {} fps{simulated}, max error {:.4} cm)",
                    self.path.display(),
                    self.format.name(),
                    self.duration,
                    self.fps,
                    encoded.report.max_error_cm
                ))
            }
            None => {
                // Each node's cycle is that of its clip as its settings make it.
                let (clips, _) = crate::offline::apply_clip_settings(
                    &self.character,
                    &self.clips,
                    &self.clip_settings,
                );
                let specs = per_node_specs(&self.blend, &clips, &self.character, self.fps, None);
                let n = specs.len();
                let mut files = Vec::with_capacity(n + 1);
                for (i, ((clip, spec), out)) in specs.iter().zip(outputs).enumerate() {
                    let encoded = bake(spec, clip, &out, (i, n))?;
                    files.push((out, encoded.bytes));
                }
                if let Some(text) = cancelled() {
                    return Err(text);
                }
                let preset = Preset {
                    blend: Some(self.blend.clone()),
                    layers: self.layers.clone(),
                    ..Preset::default()
                };
                files.push((self.path.join("preset.json"), preset.to_json().into_bytes()));
                std::fs::create_dir_all(&self.path).map_err(|e| {
                    format!(
                        "{}: cannot create the folder: {e}; nothing was written",
                        self.path.display()
                    )
                })?;
                write_all(&files, self.overwrite)?;
                Ok(format!(
                    "Exported the preset and {n} clips ({}) to {}: {}",
                    self.format.name(),
                    self.path.display(),
                    file_names(files.iter().map(|(p, _)| p.as_path()))
                ))
            }
        }
    }
}

/// The files an export of one clip per node of `blend` writes into `dir` in `format`: each node's clip, in the
/// nodes' order (a clip name taken twice gets the node's index appended), then `preset.json`.
pub fn per_node_outputs(blend: &BlendSpace, dir: &Path, format: ExportFormat) -> Vec<PathBuf> {
    let stems: Vec<(usize, String)> = blend
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| (i, file_stem(&node.clip, i)))
        .collect();
    let mut files = files_in(dir, &stems, format.extension());
    files.push(dir.join("preset.json"));
    files
}

/// The names of `paths`, comma-separated.
fn file_names<'a>(paths: impl Iterator<Item = &'a Path>) -> String {
    paths
        .map(|p| p.file_name().unwrap_or(p.as_os_str()).to_string_lossy())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes each of `files` atomically, in order. A failure stops there and its message names the files written
/// before it.
fn write_all(files: &[(PathBuf, Vec<u8>)], overwrite: bool) -> Result<(), String> {
    for (k, (path, bytes)) in files.iter().enumerate() {
        if let Err(e) = crate::io::fsutil::write_atomic(path, bytes, overwrite) {
            let why = match e {
                crate::io::fsutil::WriteError::Exists(p) => {
                    format!("{}: already exists", p.display())
                }
                e => e.to_string(),
            };
            let done = match k {
                0 => "nothing was written".to_string(),
                _ => format!(
                    "written before it: {}",
                    file_names(files[..k].iter().map(|(p, _)| p.as_path()))
                ),
            };
            return Err(format!("{why}; {done}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_per_node_export_refused_for_its_preset_bakes_and_writes_nothing() {
        let dir = crate::test_support::temp_dir("export-job-refused");
        std::fs::write(dir.join("preset.json"), b"{}").unwrap();
        let e = EditorState::new();
        let job = ExportJob {
            format: ExportFormat::Native,
            ..ExportJob::for_editor(&e, None, dir.clone())
        };
        assert_eq!(job.outputs().len(), e.tuning().blend.nodes.len() + 1);
        let (progress, cancel) = (AtomicU32::new(0), AtomicBool::new(false));
        let err = job.run(&progress, &cancel).unwrap_err();
        assert!(
            err.ends_with("preset.json: already exists; nothing was written"),
            "{err}"
        );
        assert_eq!(names_in(&dir), ["preset.json"]);
        assert_eq!(
            progress.load(Ordering::Relaxed),
            0,
            "it baked before refusing"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_write_that_fails_names_the_files_written_before_it() {
        let dir = crate::test_support::temp_dir("export-job-write");
        // A folder where the second file goes: renaming a file over it fails.
        std::fs::create_dir(dir.join("b.animclip")).unwrap();
        let files: Vec<(PathBuf, Vec<u8>)> = ["a", "b", "c"]
            .iter()
            .map(|n| (dir.join(format!("{n}.animclip")), n.as_bytes().to_vec()))
            .collect();
        let err = write_all(&files, true).unwrap_err();
        assert!(
            err.contains("b.animclip: cannot write")
                && err.ends_with("; written before it: a.animclip"),
            "{err}"
        );
        assert_eq!(names_in(&dir), ["a.animclip", "b.animclip"]);
        let err = write_all(&files[1..], true).unwrap_err();
        assert!(err.ends_with("; nothing was written"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
