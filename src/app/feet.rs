//! Feet on the ground in the editor: the skate meter of what plays (a clip, or the blend space at its point) and
//! the skate map of the blend space, measured by [`crate::analysis::contacts`] on worker threads so that no frame
//! waits for them. Each is measured again when what it depends on changes (the character, the clip or the space,
//! the clip settings, foot lock); a newer request cancels the one under way. The map reports its progress.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::analysis::contacts::{
    BlendMeter, ContactSettings, SkateMap, SkateReport, clip_skate, skate_map,
};
use crate::blend::BlendSpace;
use crate::core::{Character, Clip, ClipSettings};
use crate::layers::FootLockParams;

use super::worker::Worker;

/// The rate feet are sampled at (the skate meter's default).
const FPS: f32 = 60.0;
/// Points per side of the editor's skate map: odd, so that the middle of a symmetric axis (where an idle node
/// sits) is measured, not averaged with its neighbours.
pub const MAP_SIZE: usize = 13;

/// What the skate meter and map depend on: a change of any of it measures them again.
#[derive(Clone, Debug, PartialEq)]
pub struct FeetKey {
    /// The document's character generation.
    pub generation: u64,
    /// The clip playing (None: the blend space).
    pub clip: Option<usize>,
    /// The blend space (its point included for the meter, left at the origin for the map).
    pub space: Option<BlendSpace>,
    /// The clip settings in force.
    pub clip_settings: BTreeMap<String, ClipSettings>,
    /// Foot lock's settings when it is on.
    pub foot_lock: Option<FootLockParams>,
}

/// A measurement request: the character and clips, shared with the worker, and what to measure.
struct Job {
    key: FeetKey,
    character: Arc<Character>,
    clips: Arc<Vec<Clip>>,
}

/// The measurements the editor shows, and the workers that make them.
pub struct FeetAnalysis {
    meter: Worker<Job, Result<SkateReport, String>>,
    map: Worker<Job, Result<Option<SkateMap>, String>>,
    /// The key the newest meter request was made for, and its result when it came.
    meter_key: Option<FeetKey>,
    report: Option<Result<SkateReport, String>>,
    report_current: bool,
    map_key: Option<FeetKey>,
    skate_map: Option<Result<SkateMap, String>>,
    map_current: bool,
    /// The character and clips last sent, shared by the requests of one generation and clip list.
    shared: Option<SharedModel>,
}

/// The character and clips the workers read, for one generation and clip count.
struct SharedModel {
    generation: u64,
    clip_count: usize,
    clip_settings: BTreeMap<String, ClipSettings>,
    character: Arc<Character>,
    clips: Arc<Vec<Clip>>,
}

impl Default for FeetAnalysis {
    fn default() -> Self {
        Self::new()
    }
}

impl FeetAnalysis {
    /// Starts the two workers.
    pub fn new() -> Self {
        // The blend meter binds the space once and is reused while only its point moves.
        let mut bound: Option<(FeetKey, BlendMeter)> = None;
        let meter = Worker::spawn("animtune skate meter", move |job: Job, _progress| {
            let foot_lock = job.key.foot_lock.as_ref();
            match (job.key.clip, &job.key.space) {
                (Some(i), _) => {
                    let clip = job
                        .clips
                        .get(i)
                        .ok_or_else(|| format!("clip {i} is not loaded"))?;
                    clip_skate(
                        &job.character,
                        clip,
                        FPS,
                        &ContactSettings::default(),
                        foot_lock,
                    )
                }
                (None, Some(space)) => {
                    let mut unplaced = job.key.clone();
                    if let Some(s) = &mut unplaced.space {
                        s.point = [0.0, 0.0];
                    }
                    if bound.as_ref().is_none_or(|(k, _)| *k != unplaced) {
                        let meter = BlendMeter::new(
                            &job.character,
                            &job.clips,
                            space,
                            FPS,
                            ContactSettings::default(),
                            foot_lock,
                        )?;
                        bound = Some((unplaced, meter));
                    }
                    let (_, meter) = bound.as_mut().ok_or("no blend meter")?;
                    Ok(meter.measure(&job.character, space.point))
                }
                (None, None) => Err("nothing plays".to_string()),
            }
        });
        let map = Worker::spawn("animtune skate map", move |job: Job, progress| {
            let space = job.key.space.as_ref().ok_or("no blend space")?;
            skate_map(
                &job.character,
                &job.clips,
                space,
                MAP_SIZE,
                FPS,
                ContactSettings::default(),
                job.key.foot_lock.as_ref(),
                |done, total| progress(done as f32 / total.max(1) as f32),
            )
        });
        FeetAnalysis {
            meter,
            map,
            meter_key: None,
            report: None,
            report_current: false,
            map_key: None,
            skate_map: None,
            map_current: false,
            shared: None,
        }
    }

    fn job(&mut self, key: FeetKey, character: &Character, clips: &[Clip]) -> Job {
        let fresh = self.shared.as_ref().is_none_or(|m| {
            m.generation != key.generation
                || m.clip_count != clips.len()
                || m.clip_settings != key.clip_settings
        });
        let model = match self.shared.take() {
            Some(m) if !fresh => m,
            _ => SharedModel {
                generation: key.generation,
                clip_count: clips.len(),
                clip_settings: key.clip_settings.clone(),
                character: Arc::new(character.clone()),
                clips: Arc::new(clips.to_vec()),
            },
        };
        let job = Job {
            key,
            character: Arc::clone(&model.character),
            clips: Arc::clone(&model.clips),
        };
        self.shared = Some(model);
        job
    }

    /// Asks for the meter of `key` when it is not the one measured or under way; picks up finished results.
    pub fn update_meter(&mut self, key: FeetKey, character: &Character, clips: &[Clip]) {
        if self.meter_key.as_ref() != Some(&key) {
            if self.meter_key.as_ref().map(|k| k.generation) != Some(key.generation) {
                self.shared = None;
                self.report = None;
            }
            let job = self.job(key.clone(), character, clips);
            self.meter.submit(job);
            self.meter_key = Some(key);
            self.report_current = false;
        }
        if let Some(r) = self.meter.take() {
            self.report = Some(r);
            self.report_current = true;
        }
    }

    /// Forgets the meter (what plays is neither a clip nor a blend space): nothing is shown for it, and any
    /// measurement under way stops.
    pub fn clear_meter(&mut self) {
        if self.meter_key.take().is_some() {
            self.meter.cancel();
        }
        self.report = None;
        self.report_current = false;
    }

    /// Asks for the skate map of `key` (None: the map is not shown, and any under way stops).
    pub fn update_map(&mut self, key: Option<FeetKey>, character: &Character, clips: &[Clip]) {
        let Some(key) = key else {
            if self.map_key.take().is_some() {
                self.map.cancel();
            }
            return;
        };
        if self.map_key.as_ref() != Some(&key) {
            let job = self.job(key.clone(), character, clips);
            self.map.submit(job);
            self.map_key = Some(key);
            self.map_current = false;
        }
        if let Some(r) = self.map.take() {
            self.skate_map = Some(r.and_then(|m| m.ok_or_else(|| "cancelled".to_string())));
            self.map_current = true;
        }
    }

    /// The skate meter of what plays: the newest result, and whether it is for what plays now (false while a
    /// newer one is measured).
    pub fn report(&self) -> Option<(&Result<SkateReport, String>, bool)> {
        self.report.as_ref().map(|r| (r, self.report_current))
    }

    /// The skate map: the newest result, and whether it is for the space as it is now.
    pub fn skate_map(&self) -> Option<(&Result<SkateMap, String>, bool)> {
        self.skate_map.as_ref().map(|r| (r, self.map_current))
    }

    /// The skate map's progress in [0, 1] while it is measured (None when it is done or not asked for).
    pub fn map_progress(&self) -> Option<f32> {
        (self.map_key.is_some() && !self.map_current).then(|| self.map.progress())
    }

    /// Whether a measurement is under way (tests wait for it).
    pub fn busy(&self) -> bool {
        (self.meter_key.is_some() && !self.report_current)
            || (self.map_key.is_some() && !self.map_current)
    }

    /// Whether `foot` (its index in the report) is in contact at `time` (seconds of the clip or cycle).
    pub fn in_contact(&self, foot: usize, time: f32) -> bool {
        let Some(Ok(report)) = &self.report else {
            return false;
        };
        report.feet.get(foot).is_some_and(|f| {
            f.contacts
                .iter()
                .any(|[a, b]| time >= *a - 0.5 / FPS && time <= *b + 0.5 / FPS)
        })
    }
}
