//! One bake request, the entry point of every bake and export: the clips as loaded and their settings, the
//! layers, what to bake (a clip on its own keys or the stream the editor plays), the format and the tolerance.
//! The CLI and the editor's export only build a request and show its report, so every clip setting and layer
//! reaches every bake by construction.

use std::collections::BTreeMap;

use super::stream::{StreamSpec, bake_stream};
use super::{BakeSettings, ClipMeta, Encoded, ExportError, ExportFormat, encode, frames};
use crate::blend::BlendSpace;
use crate::core::{Character, Clip, ClipSettings};
use crate::layers::LayerParams;

/// What a bake is of.
#[derive(Clone, Debug, PartialEq)]
pub enum BakeSource {
    /// One clip (an index into the request's clips), on the settings' grid with its own keys, no layers: the
    /// clip as its settings make it.
    Clip(usize),
    /// What the editor plays over a duration (a clip with the layers, or the blend space), sampled at a rate.
    Stream(StreamSpec),
}

/// Everything one bake needs.
#[derive(Clone, Debug)]
pub struct BakeRequest<'a> {
    /// The character.
    pub character: &'a Character,
    /// Its clips as loaded, before their settings.
    pub clips: &'a [Clip],
    /// Clip settings by the loaded clip's name.
    pub clip_settings: &'a BTreeMap<String, ClipSettings>,
    /// The blend space, for blend sources.
    pub blend: Option<&'a BlendSpace>,
    /// Clip layers and procedural layers (a stream bake; a clip bake has none).
    pub layers: &'a LayerParams,
    /// What to bake.
    pub source: BakeSource,
    /// A root-motion pass over a clip bake's clip (after its settings), before it is baked.
    pub root_pass: Option<super::root_pass::RootPass>,
    /// A loop-seam fix over a clip bake's clip (after its settings and the root pass), before it is baked.
    pub loop_fix: Option<crate::core::clip_pass::LoopFix>,
    /// A foot-skate clean-up over a clip bake's clip (after its settings and the root pass, before the loop fix).
    pub skate_fix: Option<crate::core::clip_pass::SkateFix>,
    /// The name written into the file for a stream (a clip bake takes the clip's name).
    pub name: String,
    /// Output layout.
    pub format: ExportFormat,
    /// glTF: skeleton nodes and animation only, no meshes.
    pub animation_only: bool,
    /// Grid, tolerance and layout options.
    pub settings: BakeSettings,
}

/// What a bake produced: the file's bytes and report, and what the clip settings noted.
#[derive(Debug)]
pub struct BakeOutcome {
    /// The encoded file, its report (the error measured against the source, sizes) and the layout's notes.
    pub encoded: Encoded,
    /// For a clip bake with settings: how far its end pose is from its start (metres at 3 cm points, root travel
    /// aside), the loop-match figure.
    pub loop_match: Option<f32>,
    /// A stream bake with springs: the seam they leave where it loops (metres; see
    /// [`super::measure::spring_seam`]).
    pub spring_seam: Option<f32>,
    /// What the root-motion pass did (its error measured against the clip before the pass; the encoded report's
    /// against the clip after it).
    pub root_pass: Option<super::root_pass::RootPassReport>,
    /// What the loop-seam fix did.
    pub loop_fix: Option<super::loop_seam::LoopFixReport>,
    /// What the skate clean-up did.
    pub skate_fix: Option<super::skate_fix::SkateFixReport>,
    /// What the retarget IK goals did, keyed into the clip before the passes.
    pub ik_goals: Option<super::goal_keys::GoalKeysReport>,
}

/// `clips` with `settings` applied by clip name (each clip's name, Loop Time, crop, cycle offset, loop pose,
/// root settings and mirror), and what could not apply (that clip is left as it was) or mirrored without a
/// partner. The editor, the CLI and every bake make their clips with this.
pub fn apply_clip_settings(
    character: &Character,
    clips: &[Clip],
    settings: &BTreeMap<String, ClipSettings>,
) -> (Vec<Clip>, Vec<String>) {
    let mut notes = Vec::new();
    let clips = clips
        .iter()
        .map(|c| match apply_one(character, c, settings) {
            Ok((set, note)) => {
                notes.extend(note);
                set
            }
            Err(e) => {
                notes.push(e);
                c.clone()
            }
        })
        .collect();
    (clips, notes)
}

/// The passes that make a clip from a whole clip, in the order they run: root motion, the skate clean-up, the
/// loop seam (none: the clip as it is).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClipPasses {
    /// A root-motion pass.
    pub root: Option<super::root_pass::RootPass>,
    /// A foot-skate clean-up (its contacts found with the meter's default settings).
    pub skate: Option<crate::core::clip_pass::SkateFix>,
    /// A loop-seam fix.
    pub loop_seam: Option<crate::core::clip_pass::LoopFix>,
}

/// What [`run_passes`] made: the clip, the character with the root a root pass added (the clip is for it), and
/// each pass's report.
#[derive(Debug)]
pub struct PassedClip {
    /// The new clip (the source's name).
    pub clip: Clip,
    /// The character with an added root joint, when the root pass added one.
    pub character: Option<Character>,
    /// The root pass's report.
    pub root: Option<super::root_pass::RootPassReport>,
    /// The skate clean-up's report.
    pub skate: Option<super::skate_fix::SkateFixReport>,
    /// The loop fix's report.
    pub loop_seam: Option<super::loop_seam::LoopFixReport>,
}

/// Runs `passes` over `clip` on `character`, each on the previous one's result (and on the character with the
/// root the root pass added); the error is the first pass's that cannot run.
pub fn run_passes(
    character: &Character,
    clip: &Clip,
    passes: &ClipPasses,
) -> Result<PassedClip, String> {
    let mut out = PassedClip {
        clip: clip.clone(),
        character: None,
        root: None,
        skate: None,
        loop_seam: None,
    };
    if let Some(pass) = &passes.root {
        let passed =
            super::root_pass::run_root_pass(character, clip, pass).map_err(|e| e.to_string())?;
        out.clip = passed.clip;
        out.character = passed.character;
        out.root = Some(passed.report);
    }
    let character = out.character.as_ref().unwrap_or(character);
    if let Some(fix) = &passes.skate {
        let contact = crate::analysis::contacts::ContactSettings::default();
        let (fixed, report) = super::skate_fix::fix_skate(character, &out.clip, fix, &contact)?;
        out.clip = fixed;
        out.skate = Some(report);
    }
    if let Some(fix) = &passes.loop_seam {
        let (fixed, report) =
            super::loop_seam::fix_loop(character, &out.clip, fix).map_err(|e| e.to_string())?;
        out.clip = fixed;
        out.loop_seam = Some(report);
    }
    Ok(out)
}

/// What [`with_splits`] made.
#[derive(Debug)]
pub struct SplitClips {
    /// The clips given, then the clips made.
    pub clips: Vec<Clip>,
    /// Each root-motion pass's report, by the clip it made.
    pub root_passes: Vec<(String, super::root_pass::RootPassReport)>,
    /// Each skate clean-up's report, by the clip it made.
    pub skate_fixes: Vec<(String, super::skate_fix::SkateFixReport)>,
    /// Each loop-seam fix's report, by the clip it made.
    pub loop_fixes: Vec<(String, super::loop_seam::LoopFixReport)>,
}

/// `clips` followed by the clips `splits` make from their takes: copies named as the split says, or a split's
/// passes (root motion, the skate clean-up, then the loop seam) over its take as the take's `settings` make it (cropped, mirrored…)
/// on `character`, with the passes' reports; or why one cannot be made: its take is not among the clips, its name
/// is taken, a setting of the take cannot apply, or a pass cannot run (a rig without a joint above the hips
/// would need one added, which only a bake does).
pub fn with_splits(
    character: &Character,
    clips: &[Clip],
    splits: &[crate::core::ClipSplit],
    settings: &BTreeMap<String, ClipSettings>,
) -> Result<SplitClips, String> {
    let mut out = clips.to_vec();
    let mut reports = Vec::new();
    let mut loop_fixes = Vec::new();
    let mut skate_fixes = Vec::new();
    for split in splits {
        if split.name.trim().is_empty() {
            return Err(format!(
                "a clip made from take '{}' needs a name",
                split.take
            ));
        }
        if out.iter().any(|c| c.name == split.name) {
            return Err(format!(
                "clip '{}' (made from take '{}'): another clip has that name",
                split.name, split.take
            ));
        }
        let take = clips.iter().find(|c| c.name == split.take).ok_or_else(|| {
            format!(
                "clip '{}' is made from take '{}', which the model does not have",
                split.name, split.take
            )
        })?;
        let any_pass =
            split.root_pass.is_some() || split.skate_fix.is_some() || split.loop_fix.is_some();
        let take = &if any_pass {
            apply_one(character, take, settings)?.0
        } else {
            take.clone()
        };
        let passes = ClipPasses {
            root: split.root_pass,
            skate: split.skate_fix,
            loop_seam: split.loop_fix,
        };
        let named = |e: String| format!("clip '{}' (from take '{}'): {e}", split.name, split.take);
        let passed = run_passes(character, take, &passes).map_err(named)?;
        if passed.character.is_some() {
            return Err(named(
                "the rig has no joint above its hips to carry root motion; only a bake adds one (bake \
                 --extract-root)"
                    .into(),
            ));
        }
        reports.extend(passed.root.map(|r| (split.name.clone(), r)));
        skate_fixes.extend(passed.skate.map(|r| (split.name.clone(), r)));
        loop_fixes.extend(passed.loop_seam.map(|r| (split.name.clone(), r)));
        let mut made = passed.clip;
        made.name = split.name.clone();
        out.push(made);
    }
    Ok(SplitClips {
        clips: out,
        root_passes: reports,
        skate_fixes,
        loop_fixes,
    })
}

/// The first clip layer of `layers` whose clip (or additive reference clip) is not among `clips` (the clips as
/// their settings made them), as a message naming the layer and, when the settings renamed that clip, its new
/// name.
pub fn missing_layer_clip(
    layers: &crate::layers::LayerParams,
    clips: &[Clip],
    settings: &BTreeMap<String, ClipSettings>,
) -> Option<String> {
    let has = |name: &str| clips.iter().any(|c| c.name == name);
    layers.clips.iter().enumerate().find_map(|(i, layer)| {
        let missing = std::iter::once(&layer.clip)
            .chain(&layer.reference_clip)
            .find(|name| !has(name))?;
        let renamed = settings
            .get(missing.as_str())
            .map(|s| s.name_of(missing))
            .filter(|new| new != missing)
            .map(|new| {
                format!(" (the clip settings rename clip '{missing}' to '{new}': use the new name)")
            })
            .unwrap_or_default();
        Some(format!(
            "clip layer {} plays clip '{missing}', which the model does not have{renamed}",
            i + 1
        ))
    })
}

/// The name a clip named `name` as loaded takes under its settings (its own when it has none or no new name).
pub fn settled_name<'a>(name: &'a str, settings: &'a BTreeMap<String, ClipSettings>) -> &'a str {
    settings.get(name).map_or(name, |s| s.name_of(name))
}

/// One clip with its settings (see [`apply_clip_settings`]), with a note naming the joints the mirror found no
/// partner for; the error names the clip and the setting that cannot apply.
pub fn apply_one(
    character: &Character,
    clip: &Clip,
    settings: &BTreeMap<String, ClipSettings>,
) -> Result<(Clip, Option<String>), String> {
    let Some(s) = settings.get(&clip.name) else {
        return Ok((clip.clone(), None));
    };
    let (set, unpaired) = super::mirror::apply_settings(character, clip, s)
        .map_err(|e| format!("clip '{}': {e}", clip.name))?;
    let note = (!unpaired.is_empty()).then(|| {
        format!(
            "{}: mirrored, but these joints have no partner and mirror their own motion: {}",
            clip.name,
            unpaired.join(", ")
        )
    });
    Ok((set, note))
}

impl BakeRequest<'_> {
    /// Bakes: the clips made by their settings, then frames (a clip on its grid, or the stream with the layers),
    /// then the one error search and encoding of [`encode`]. `progress` gets (frames done, frames) of a stream
    /// and stops it by returning false. A setting that cannot apply is an error (a bake is what was asked for
    /// or nothing); the joints a mirror found no partner for are notes of the report.
    pub fn run(
        &self,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<BakeOutcome, ExportError> {
        let character = self.character;
        let mut notes = Vec::new();
        let mut spring_seam = None;
        let mut root_pass = None;
        let mut loop_fix = None;
        let mut skate_fix = None;
        // The character with the root joint a root-motion pass added (the clip is for it; the file holds it).
        let mut with_root = None;
        // The character with its IK goals turned off, once they were keyed into the clip.
        let mut without_goals = None;
        let mut ik_goals = None;
        let (frames, meta, settings, loop_match) = match &self.source {
            BakeSource::Clip(index) => {
                let source = self.clips.get(*index).ok_or_else(|| {
                    ExportError::Invalid(format!(
                        "clip {index}: there are {} clips",
                        self.clips.len()
                    ))
                })?;
                let (clip, note) = apply_one(character, source, self.clip_settings)
                    .map_err(ExportError::Tuning)?;
                notes.extend(note);
                // Tracks that name their targets (Unity's blend shapes) are written as their meshes' weights.
                let resolved = crate::core::morph::resolve_named(&clip.morph_tracks, character);
                let clip = clip.with_morph_tracks(resolved);
                let clip_name = clip.name.clone();
                let named = |e: String| ExportError::Invalid(format!("clip '{clip_name}': {e}"));
                // The retarget IK goals are keyed into the clip first: the passes and the file see what they do,
                // on the character with its goals off.
                let (clip, character) =
                    match super::goal_keys::key_goals(character, &clip).map_err(named)? {
                        Some((keyed, report)) => {
                            ik_goals = Some(report);
                            without_goals = Some(super::goal_keys::without_goals(character));
                            (keyed, without_goals.as_ref().unwrap_or(character))
                        }
                        None => (clip, character),
                    };
                let passes = ClipPasses {
                    root: self.root_pass,
                    skate: self.skate_fix,
                    loop_seam: self.loop_fix,
                };
                let passed = run_passes(character, &clip, &passes).map_err(named)?;
                with_root = passed.character;
                root_pass = passed.root;
                skate_fix = passed.skate;
                loop_fix = passed.loop_seam;
                let clip = passed.clip;
                let character = with_root.as_ref().unwrap_or(character);
                // A packed `.animclip` of a clip that runs straight between its keys is baked on those keys by
                // default: they hold it exactly, and the packed form's prediction wants evenly spread keys more
                // than the uniform frames the default grid would add between them (21 % smaller on the
                // Quaternius clips).
                let mut settings = self.settings.clone();
                if self.format == ExportFormat::Native
                    && settings.quantize
                    && settings.grid == super::Grid::UniformWithSourceKeys
                    && frames::source_rate(&clip).is_none()
                    && frames::runs_straight(&clip)
                {
                    settings.grid = super::Grid::SourceKeys;
                }
                let (frames, meta) = frames::prepare_for(
                    &character.skeleton,
                    Some(&character.humanoid),
                    &clip,
                    &settings,
                    self.format.rotation_reading(),
                );
                let loop_match = self
                    .clip_settings
                    .contains_key(&source.name)
                    .then(|| super::measure::loop_match(character, &clip));
                (frames, meta, settings, loop_match)
            }
            BakeSource::Stream(_)
                if self.root_pass.is_some()
                    || self.loop_fix.is_some()
                    || self.skate_fix.is_some() =>
            {
                return Err(ExportError::Invalid(
                    "a root-motion pass, a skate clean-up or a loop fix applies to one clip baked on its own keys, \
                     not to a stream with layers"
                        .into(),
                ));
            }
            BakeSource::Stream(spec) => {
                let mut clips = Vec::with_capacity(self.clips.len());
                for c in self.clips {
                    let (clip, note) =
                        apply_one(character, c, self.clip_settings).map_err(ExportError::Tuning)?;
                    notes.extend(note);
                    clips.push(clip);
                }
                if let Some(missing) = missing_layer_clip(self.layers, &clips, self.clip_settings) {
                    return Err(ExportError::Tuning(missing));
                }
                if let Some(problem) = crate::layers::policy::rig_problem(self.layers, character) {
                    return Err(ExportError::Tuning(problem));
                }
                let mut frames =
                    bake_stream(character, &clips, self.blend, self.layers, spec, progress)?;
                spring_seam = super::measure::spring_seam(character, self.layers, &frames);
                let mut meta = ClipMeta::uniform(self.settings.id, &self.name, &frames, spec.fps);
                let settings = BakeSettings {
                    fps: spec.fps,
                    grid: super::Grid::Uniform,
                    ..self.settings.clone()
                };
                if self.format.rotation_reading().reads_nlerp() {
                    frames::split_stream_for_nlerp(
                        &character.skeleton,
                        &mut frames,
                        &mut meta,
                        settings.tolerance_cm / 100.0,
                    );
                }
                (frames, meta, settings, None)
            }
        };
        let character = with_root
            .as_ref()
            .or(without_goals.as_ref())
            .unwrap_or(character);
        // A VRM Animation holds the human bones on a normalized rig: the frames move onto it first, and the
        // error is measured there.
        let normalized = if self.format == ExportFormat::Vrma {
            Some(super::encode::vrma::normalize(character, &frames).map_err(ExportError::Invalid)?)
        } else {
            None
        };
        let (character, frames) = match &normalized {
            Some(n) => (&n.character, &n.frames),
            None => (character, &frames),
        };
        let mut encoded = encode(
            character,
            frames,
            &meta,
            self.format,
            self.animation_only,
            &settings,
        );
        encoded.notes.extend(notes);
        Ok(BakeOutcome {
            encoded,
            loop_match,
            spring_seam,
            root_pass,
            ik_goals,
            loop_fix,
            skate_fix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::{StreamSource, StreamSpec};

    /// A stream bake asked to run foot lock on a character it cannot run on (the Fox maps no humanoid legs)
    /// is refused with the reason, not baked without it.
    #[test]
    fn a_stream_bake_with_foot_lock_on_a_rig_without_legs_is_refused() {
        let model = crate::import::load_file(&crate::test_support::asset("Fox.glb")).unwrap();
        let rig = crate::layers::FootLockRig::bind(&model.character);
        assert!(rig.problem.is_some(), "the Fox has no humanoid legs");
        let mut layers = crate::layers::LayerParams::off();
        layers.foot_lock.enabled = true;
        let request = BakeRequest {
            character: &model.character,
            clips: &model.clips,
            clip_settings: &BTreeMap::new(),
            blend: None,
            layers: &layers,
            source: BakeSource::Stream(StreamSpec {
                source: StreamSource::Clip(0),
                duration: 0.5,
                fps: 30.0,
                clip_range: None,
            }),
            root_pass: None,
            loop_fix: None,
            skate_fix: None,
            name: "walk".into(),
            format: ExportFormat::Native,
            animation_only: false,
            settings: BakeSettings::default(),
        };
        match request.run(&mut |_, _| true) {
            Err(ExportError::Tuning(e)) => assert!(e.starts_with("foot lock is on, but"), "{e}"),
            other => panic!(
                "expected a refusal, got {:?}",
                other.map(|o| o.encoded.report.bytes)
            ),
        }
    }
}
