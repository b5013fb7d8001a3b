//! Opening and saving from the editor: models, clips, blend spaces and presets. Failures go to the status bar;
//! the document changes only when a file was read whole.

use std::path::Path;

use super::EditorState;
use crate::app::command::BlendEdit;
use crate::app::state::document::{ClipSource, Tuning};
use crate::core::binding::BindMethod;

impl EditorState {
    /// Opens a model, a clip or a preset, deciding by extension; failures go to the status bar.
    pub(super) fn open(&mut self, path: &Path) {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let result = match ext.as_str() {
            _ if path.is_dir() => self.open_unity_project(path),
            "animclip" | "bytes" | "vrma" | "anim" => self.add_clips(path, true),
            "json" => self.open_blend_space(path),
            "controller" | "overridecontroller" => self.open_unity_controller(path),
            _ => self.open_model(path),
        };
        match result {
            Ok(()) => self.session.remember(path),
            Err(e) => self.session.report(format!("{e:#}"), true),
        }
    }

    /// Replaces the character with a model file.
    fn open_model(&mut self, path: &Path) -> anyhow::Result<()> {
        let model = crate::import::load_file(path)?;
        if !model.is_animatable() {
            anyhow::bail!(
                "{}: has no skin, no animation, no parts on joints and no humanoid: nothing to show",
                path.display()
            );
        }
        self.stash_model_tuning();
        let key = crate::app::state::document::model_key(path);
        self.doc.tuning.blend = self.space_for(&key);
        self.doc.tuning.state_machine = self.machine_for(&key);
        self.doc.key = key;
        // Undo steps belong to the model they were made on.
        self.history = Default::default();
        self.doc.revision += 1;
        self.doc.base_humanoid = model.character.humanoid.clone();
        self.doc.tuning.humanoid.clear();
        self.doc.tuning.root_joint = false;
        self.doc.rootless = None;
        let height_before = self.doc.model.character.rest_height();
        self.doc.model = model;
        self.doc.name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.adopt_model();
        self.rescale_look_target(height_before);
        let character = &self.doc.model.character;
        let h = &character.humanoid;
        let humanoid = if h.is_humanoid() {
            format!("humanoid ({})", h.source.as_str())
        } else {
            "not humanoid".into()
        };
        let mut text = format!(
            "Opened {}: {} joints, {} clips, {humanoid}",
            path.display(),
            character.skeleton.len(),
            self.doc.clips.len()
        );
        for w in &character.warnings {
            text.push_str(&format!("; warning: {w}"));
        }
        // A model that opened with something missing is reported in the error colour, so it is seen.
        self.session.report(text, !character.warnings.is_empty());
        Ok(())
    }

    /// [`EditorState::add_clips`], remembering the file or reporting the failure in the status bar.
    pub(super) fn add_clips_or_report(&mut self, path: &Path, play_first: bool) {
        match self.add_clips(path, play_first) {
            Ok(()) => self.session.remember(path),
            Err(e) => self.session.report(format!("{e:#}"), true),
        }
    }

    /// Appends source clips to the document, each also as its clip settings make it (the clip list's).
    fn append_clips(&mut self, clips: Vec<crate::core::Clip>) {
        let (settled, _) = crate::offline::apply_clip_settings(
            &self.doc.model.character,
            &clips,
            &self.doc.tuning.clip_settings,
        );
        self.doc.clips.extend(settled);
        self.doc.source_clips.extend(clips);
    }

    /// Opens a Unity controller: its clips join the clip list and its base layer becomes the state machine, in
    /// one undo step; what does not play as in Unity goes to the status bar.
    /// Opens a Unity project folder's controller; where it holds several, lists them for the window to ask.
    fn open_unity_project(&mut self, folder: &Path) -> anyhow::Result<()> {
        let project = crate::import::unity::project::Project::of_folder(folder)?;
        let found = project.controllers(folder);
        match found.as_slice() {
            [] => anyhow::bail!(
                "{}: holds no .controller or .overrideController with a .meta file (project {})",
                folder.display(),
                project.root.display()
            ),
            [one] => self.open_unity_controller(one),
            _ => {
                self.session.report(
                    format!(
                        "{} holds {} controllers: pick one in the window",
                        project.root.display(),
                        found.len()
                    ),
                    false,
                );
                self.session.controller_choice = found;
                Ok(())
            }
        }
    }

    fn open_unity_controller(&mut self, path: &Path) -> anyhow::Result<()> {
        self.session.controller_choice.clear();
        let limit = crate::import::Limits::from_env().max_file_bytes;
        let imported = crate::import::unity::to_machine::import(path, limit)?;
        // Named by their files, one clip per name: those already in the list (opened before) stay as they are.
        let count = imported.clips.len();
        let fresh: Vec<crate::core::Clip> = imported
            .clips
            .into_iter()
            .filter(|c| !self.doc.clips.iter().any(|o| o.name == c.name))
            .collect();
        self.append_clips(fresh);
        let before = self.doc.tuning.clone();
        let machine_layers = imported.machine.layers.len();
        self.doc.tuning.state_machine = Some(imported.machine);
        // Its upper layers replace the clip layers (the Layers tab), in the same undo step.
        let layers = imported.layers.len();
        self.doc.tuning.layers.clips = imported.layers;
        self.history.record(&before, &self.doc.tuning);
        self.layers_changed();
        self.machine_changed();
        let notes = if imported.notes.is_empty() {
            String::new()
        } else {
            format!("; not as in Unity: {}", imported.notes.join("; "))
        };
        self.session.report(
            format!(
                "Opened {}: its base layer is the state machine (States tab), with {machine_layers} layer(s) of \
                 states above it; {layers} single-clip layer(s) as clip layers (Layers tab); {} clip(s){notes}",
                path.display(),
                count
            ),
            false,
        );
        Ok(())
    }

    /// Adds every clip of a file (a model, .vrma, .animclip or Unity layout) to the character's clip list, each
    /// bound by path, then joint name, then humanoid bone; plays the first (with `play_first`, or when neither a
    /// clip nor a blend space plays). Clips none of whose tracks find a joint, a mesh's morph targets or an
    /// expression are left out; the file's binding report goes to the clip list and the status bar.
    fn add_clips(&mut self, path: &Path, play_first: bool) -> anyhow::Result<()> {
        let clips = crate::import::load_clips(path)?;
        let c = &self.doc.model.character;
        let mut source = ClipSource {
            path: path.to_path_buf(),
            clips: Vec::new(),
            by_path: 0,
            by_name: 0,
            by_human_bone: 0,
            retargeted: 0,
            unbound: 0,
        };
        let mut usable = Vec::new();
        let mut faces = 0;
        for clip in clips {
            let binding = clip.bind(&c.skeleton, Some(&c.humanoid));
            let face = crate::core::morph::face_tracks_bound(&clip, c);
            if binding.tracks.iter().flatten().next().is_none() && face == 0 {
                continue;
            }
            faces += face;
            for b in binding.tracks.iter().flatten() {
                match b.method {
                    BindMethod::Path => source.by_path += 1,
                    BindMethod::Name => source.by_name += 1,
                    BindMethod::HumanBone => source.by_human_bone += 1,
                }
                if b.retarget.is_some() && b.method != BindMethod::HumanBone {
                    source.retargeted += 1;
                }
            }
            source.unbound += binding.unbound_tracks.len();
            source.clips.push(clip.name.clone());
            usable.push(clip);
        }
        if usable.is_empty() {
            anyhow::bail!(
                "{}: no track of its clips found a joint, a morph target or an expression of {}",
                path.display(),
                self.doc.name
            );
        }
        let first = self.doc.clips.len();
        self.append_clips(usable);
        let text = format!(
            "Added {} clip(s) from {}: tracks bound by path {}, by name {}, by humanoid bone {} ({} retargeted \
             between rest poses); {} found no joint{}",
            source.clips.len(),
            path.display(),
            source.by_path,
            source.by_name,
            source.by_human_bone,
            source.by_human_bone + source.retargeted,
            source.unbound,
            match faces {
                0 => String::new(),
                n => format!("; {n} face track(s) drive morph targets or expressions"),
            }
        );
        // Tracks bound by humanoid bone to a character that is not a whole humanoid (a quadruped whose hips and
        // head were recognised) play, but not as they were meant to: said in red, not accepted silently.
        let c = &self.doc.model.character;
        let partial = source.by_human_bone > 0 && !c.humanoid.is_humanoid();
        // Many tracks finding no joint: clips made for another skeleton, which may play wrong. Said in red too.
        let bound = source.by_path + source.by_name + source.by_human_bone;
        let foreign = source.unbound > 0 && 4 * source.unbound >= bound + source.unbound;
        let text = if partial {
            format!(
                "{text}. Warning: {} is not a humanoid ({} required bone(s) unmapped), so the tracks bound by \
                 humanoid bone move only the bones it has and may look wrong",
                self.doc.name,
                c.humanoid.missing_required.len()
            )
        } else if foreign {
            format!(
                "{text}. Warning: {} of {} tracks found no joint of {}: these clips were made for another \
                 skeleton and may play wrong (check the Humanoid tab's mapping)",
                source.unbound,
                bound + source.unbound,
                self.doc.name
            )
        } else {
            text
        };
        self.doc.clip_sources.push(source);
        self.rebind_blend();
        // Added from the command line (`--clips`), the clips join the list and what plays keeps playing (the
        // model's own clip, its blend space); added by the user, the first new clip plays.
        let nothing_plays = self.clip().is_none() && !self.blending();
        if play_first || nothing_plays {
            self.select_clip(Some(first));
        }
        self.session.eval.play();
        self.session.report(text, partial || foreign);
        Ok(())
    }

    /// Opens a blend space from a preset or blend space JSON file and plays it.
    fn open_blend_space(&mut self, path: &Path) -> anyhow::Result<()> {
        let text = crate::preset::read_text(path)?;
        let is_preset = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .is_some_and(|v| v.get("format").is_some());
        if is_preset {
            let preset = crate::preset::Preset::parse(&text, path)?;
            let overrides = preset.humanoid_override();
            // Checked before anything changes: every joint it names must be in this character.
            let c = &self.doc.model.character;
            self.doc
                .base_humanoid
                .clone()
                .with_override(&overrides, &c.skeleton)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            // The clips of the files the preset remembers, unless this character already took them.
            for file in preset.clip_paths(path) {
                let known = |s: &ClipSource| {
                    std::fs::canonicalize(&s.path).ok() == std::fs::canonicalize(&file).ok()
                };
                if !self.doc.clip_sources.iter().any(known) {
                    self.add_clips(&file, true).map_err(|e| {
                        anyhow::anyhow!("{e:#} (a clip file of preset {})", path.display())
                    })?;
                }
            }
            let plays = preset.plays.clone();
            // Keys the editor's own shortcuts use cannot fire triggers: those bindings are left out, and said so.
            let free = crate::app::state::session::TRIGGER_KEYS;
            let (keys, taken): (std::collections::BTreeMap<_, _>, Vec<_>) = (
                preset
                    .trigger_keys
                    .iter()
                    .filter(|(_, k)| free.contains(&k.as_str()))
                    .map(|(t, k)| (t.clone(), k.clone()))
                    .collect(),
                preset
                    .trigger_keys
                    .iter()
                    .filter(|(_, k)| !free.contains(&k.as_str()))
                    .map(|(t, k)| format!("{k} ({t})"))
                    .collect(),
            );
            self.session.machine.trigger_keys = keys;
            let has_blend = preset.blend.is_some();
            let clip_files = preset.clip_files.len();
            let clip_settings = preset.clip_settings.len();
            let after = Tuning {
                clip_splits: preset.clip_splits,
                blend: preset
                    .blend
                    .unwrap_or_else(|| self.doc.tuning.blend.clone()),
                layers: preset.layers,
                humanoid: overrides,
                hips_placement: preset.hips_placement,
                ik_goals: preset.ik_goals,
                root_joint: preset.root_joint,
                clip_settings: preset.clip_settings,
                state_machine: preset.state_machine,
            };
            self.history.record(&self.doc.tuning, &after);
            self.doc.tuning = after;
            self.tuning_replaced();
            // What played when it was saved plays again: its clip, else its blend space (when it has nodes).
            let clip = plays.and_then(|name| self.doc.clips.iter().position(|c| c.name == name));
            if let Some(i) = clip {
                self.select_clip(Some(i));
                self.session.eval.play();
            } else if has_blend && !self.doc.tuning.blend.nodes.is_empty() {
                self.play_blend();
                self.session.eval.play();
            }
            // A blend space whose clips are all here (or none, the current one kept): say what came back.
            if !has_blend || self.blend_sampler.missing().is_empty() {
                let mut restored = self.preset_restored(has_blend, clip_files);
                if clip_settings > 0 {
                    restored.push_str(&format!("; clip settings of {clip_settings} clip(s)"));
                }
                if !taken.is_empty() {
                    restored.push_str(&format!(
                        "; trigger keys {} left unbound (the editor's own shortcuts)",
                        taken.join(", ")
                    ));
                }
                let text = format!("Opened preset {}: {restored}", path.display());
                self.session.report(text, false);
                return Ok(());
            }
        } else {
            let space = crate::preset::parse_blend_space(&text, path)?;
            self.edit_blend(BlendEdit::Replace(Box::new(space)));
        }
        let missing: Vec<&str> = self
            .blend_sampler
            .missing()
            .iter()
            .map(|(_, c)| c.as_str())
            .collect();
        let (text, is_error) = if missing.is_empty() {
            let nodes = self.doc.tuning.blend.nodes.len();
            (
                format!("Opened blend space {}: {nodes} nodes", path.display()),
                false,
            )
        } else {
            let names = missing.join(", ");
            let text = format!(
                "{}: clips not in {}: {names}",
                path.display(),
                self.doc.name
            );
            (text, true)
        };
        self.session.report(text, is_error);
        Ok(())
    }

    /// What opening a preset restored, for the status bar: its blend space (or that it kept the current one), the
    /// layers that are on, the humanoid override, the hips rule and the clip files.
    fn preset_restored(&self, has_blend: bool, clip_files: usize) -> String {
        let t = &self.doc.tuning;
        let blend = match (has_blend, t.blend.nodes.len()) {
            (false, _) => "no blend space (the current one kept)".to_string(),
            (true, 0) => "an empty blend space (add nodes in the Blend tab)".to_string(),
            (true, n) => format!("blend space of {n} nodes"),
        };
        let l = &t.layers;
        let on: Vec<&str> = [
            (l.breath.enabled, "breath"),
            (l.look_at.enabled, "look-at"),
            (l.twist.enabled, "twist"),
        ]
        .into_iter()
        .filter_map(|(enabled, name)| enabled.then_some(name))
        .collect();
        let layers = if on.is_empty() {
            "every layer off".to_string()
        } else {
            format!("layers on: {}", on.join(", "))
        };
        let mut parts = vec![blend, layers];
        if !l.clips.is_empty() {
            parts.push(format!("{} clip layer(s)", l.clips.len()));
        }
        if !t.humanoid.is_empty() {
            parts.push(format!("humanoid override of {} bone(s)", t.humanoid.len()));
        }
        if let Some(m) = &t.state_machine {
            parts.push(format!(
                "a state machine of {} state(s) (the States tab plays and edits it)",
                m.states.len()
            ));
        }
        if t.hips_placement != crate::core::HipsPlacement::default() {
            parts.push(format!("retargeted hips: {}", t.hips_placement.name()));
        }
        if t.root_joint {
            parts.push("a root joint added above the hips".into());
        }
        if t.ik_goals.is_active() {
            parts.push(format!("retarget IK goals: {}", t.ik_goals.chains()));
        }
        if clip_files > 0 {
            parts.push(format!("{clip_files} clip file(s)"));
        }
        parts.join("; ")
    }

    /// Writes the current tuning (blend space, layers) as a preset; `overwrite` only after the user confirmed.
    pub(super) fn save_preset(&mut self, path: &Path, overwrite: bool) {
        let mut preset = crate::preset::Preset {
            blend: Some(self.doc.tuning.blend.clone()),
            layers: self.doc.tuning.layers.clone(),
            humanoid: self
                .doc
                .tuning
                .humanoid
                .iter()
                .map(|(bone, joint)| (bone.name().to_string(), joint.clone()))
                .collect(),
            hips_placement: self.doc.tuning.hips_placement,
            ik_goals: self.doc.tuning.ik_goals,
            root_joint: self.doc.tuning.root_joint,
            clip_settings: self.doc.tuning.clip_settings.clone(),
            clip_splits: self.doc.tuning.clip_splits.clone(),
            state_machine: self.doc.tuning.state_machine.clone(),
            trigger_keys: self.session.machine.trigger_keys.clone(),
            plays: self
                .clip()
                .filter(|_| !self.blending())
                .and_then(|i| self.doc.clips.get(i))
                .map(|c| c.name.clone()),
            ..crate::preset::Preset::default()
        };
        let sources: Vec<std::path::PathBuf> = self
            .doc
            .clip_sources
            .iter()
            .map(|s| s.path.clone())
            .collect();
        preset.set_clip_files(&sources, path);
        match crate::io::fsutil::write_atomic(path, preset.to_json().as_bytes(), overwrite) {
            Ok(()) => {
                self.session.remember(path);
                self.session
                    .report(format!("Saved preset {}", path.display()), false);
            }
            Err(e) => self.session.report(e.to_string(), true),
        }
    }
}
