//! The skate meter over evaluated poses: a clip's or a blend space's feet tracked through the Evaluator (with foot
//! lock when asked) and measured by [`crate::core::contacts`] (the definitions are there, and in docs/feet.md);
//! the skate map over a blend space, and the treadmill an in-place clip walks on.

pub use crate::core::contacts::{
    ContactSettings, FootContacts, FootTrack, Ground, SkateReport, Speeds, measure, track_feet,
};
use crate::core::contacts::{feet_of, track};
use glam::Vec3;
use serde::Serialize;

/// Samples `clip` on `character` at `fps` (its root motion kept) and tracks both feet's contact points; an error
/// names what the character lacks. With `foot_lock`, the clip plays under that layer (and no other), stepped from
/// time 0 at the rate as a bake steps it, on the treadmill the clip walks on when it is authored in place.
pub fn foot_tracks(
    character: &crate::core::Character,
    clip: &crate::core::Clip,
    fps: f32,
    foot_lock: Option<&crate::layers::FootLockParams>,
) -> Result<TrackedFeet, String> {
    use crate::eval::{ClockStep, EvalInput, Evaluator, Precision, SourceSpec};
    let feet = feet_of(character, fps)?;
    let layers = layers_with(foot_lock);
    let mut ev = Evaluator::with_precision(
        character,
        std::slice::from_ref(clip),
        SourceSpec::Clip(0),
        layers,
        Precision::Exact,
    );
    ev.clock_mut().set_looping(false);
    let stepped = foot_lock.is_some();
    let mut walk = Walk::default();
    let (times, tracks) = track(character, &feet, clip.duration.max(0.0), fps, |t| {
        let out = ev.evaluate(&EvalInput {
            clock: if stepped {
                ClockStep::Continue(t)
            } else {
                ClockStep::Seek(t)
            },
            simulation_dt: stepped.then_some(1.0 / fps),
            ..EvalInput::default()
        });
        walk.note(t, out.treadmill);
        out.model.clone()
    });
    Ok(TrackedFeet {
        times,
        feet: tracks,
        walk: walk.velocity(),
    })
}

/// Both feet tracked over a clip ([`foot_tracks`]).
pub struct TrackedFeet {
    /// The sample times (seconds).
    pub times: Vec<f32>,
    /// Each foot's contact point at those times (model space).
    pub feet: Vec<FootTrack>,
    /// The velocity of the treadmill foot lock held the feet on (an in-place clip under foot lock; else None).
    pub walk: Option<Vec3>,
}

/// The treadmill's first and last places over a run, to tell how fast it moved.
#[derive(Default)]
struct Walk {
    first: Option<(f32, Vec3)>,
    last: Option<(f32, Vec3)>,
}

impl Walk {
    fn note(&mut self, time: f32, treadmill: Vec3) {
        self.first.get_or_insert((time, treadmill));
        self.last = Some((time, treadmill));
    }

    /// The treadmill's mean velocity (m/s); None when it stood still.
    fn velocity(&self) -> Option<Vec3> {
        let ((t0, a), (t1, b)) = (self.first?, self.last?);
        let v = (b - a) / (t1 - t0);
        (t1 > t0 && v.is_finite() && v != Vec3::ZERO).then_some(v)
    }

    /// The ground the feet stand on when the treadmill carried the character: it moves back as fast.
    fn ground(&self) -> Option<Ground> {
        self.velocity().map(|v| Ground::Treadmill((-v).to_array()))
    }
}

/// The velocity a clip authored in place walks at (model space, m/s): the opposite of the mean velocity of its low
/// contact points, the treadmill under it; None when its feet cannot be tracked or nothing is low.
pub fn in_place_velocity(
    character: &crate::core::Character,
    clip: &crate::core::Clip,
) -> Option<Vec3> {
    let report = clip_skate(character, clip, 60.0, &ContactSettings::default(), None).ok()?;
    crate::blend::markers::walk_velocity(&report)
}

/// Every layer off but foot lock, on with `foot_lock`'s settings when given.
fn layers_with(foot_lock: Option<&crate::layers::FootLockParams>) -> crate::layers::LayerParams {
    let mut layers = crate::layers::LayerParams::off();
    if let Some(p) = foot_lock {
        layers.foot_lock = p.clone();
        layers.foot_lock.enabled = true;
    }
    layers
}

/// The skate meter of a blend space at `point` over one cycle, its clips played with their root motion kept. The
/// ground is still when its clips travel on their root motion; else it moves back at the point's velocity when
/// both axes are velocities (named "Velocity …": x to the right, y forward); else it is a treadmill. With
/// `foot_lock`, the blend plays under that layer.
pub fn blend_skate(
    character: &crate::core::Character,
    clips: &[crate::core::Clip],
    space: &crate::blend::BlendSpace,
    point: [f64; 2],
    fps: f32,
    settings: &ContactSettings,
    foot_lock: Option<&crate::layers::FootLockParams>,
) -> Result<SkateReport, String> {
    Ok(
        BlendMeter::new(character, clips, space, fps, *settings, foot_lock)?
            .measure(character, point),
    )
}

/// A blend space bound once for measuring its skate at many points (the skate map, a dragged point).
pub struct BlendMeter {
    ev: crate::eval::Evaluator,
    feet: Vec<(&'static str, usize)>,
    travels: bool,
    velocity_axes: bool,
    fps: f32,
    settings: ContactSettings,
}

impl BlendMeter {
    /// Binds `space` over `clips` on `character`; an error names a missing clip or foot, or a bad rate.
    pub fn new(
        character: &crate::core::Character,
        clips: &[crate::core::Clip],
        space: &crate::blend::BlendSpace,
        fps: f32,
        settings: ContactSettings,
        foot_lock: Option<&crate::layers::FootLockParams>,
    ) -> Result<Self, String> {
        use crate::eval::{Evaluator, Precision, SourceSpec};
        let feet = feet_of(character, fps)?;
        if let Some(missing) = space
            .nodes
            .iter()
            .enumerate()
            .find(|(_, n)| !clips.iter().any(|c| c.name == n.clip))
        {
            return Err(format!(
                "blend node {} plays clip '{}', which is not loaded",
                missing.0, missing.1.clip
            ));
        }
        let mut space = space.clone();
        space.root_motion = crate::blend::RootMotion::Keep;
        let travels = space.nodes.iter().any(|n| {
            clips
                .iter()
                .find(|c| c.name == n.clip)
                .and_then(|c| super::root_motion(character, c))
                .is_some_and(|r| r.speed > 0.05)
        });
        let velocity_axes = space.mode.is_2d()
            && space
                .axes
                .iter()
                .all(|a| a.name.to_lowercase().contains("velocity"));
        let mut ev = Evaluator::with_precision(
            character,
            clips,
            SourceSpec::Blend(space),
            layers_with(foot_lock),
            Precision::Exact,
        );
        // Free or locked, the feet are measured on the treadmill the clips authored in place walk on.
        ev.walk_in_place(character, clips);
        Ok(BlendMeter {
            ev,
            feet,
            travels,
            velocity_axes,
            fps,
            settings,
        })
    }

    /// The skate meter at `point` (clamped to the axes) over one cycle from phase 0.
    pub fn measure(&mut self, character: &crate::core::Character, point: [f64; 2]) -> SkateReport {
        use crate::eval::{ClockStep, EvalInput};
        self.ev.set_blend_point(point);
        let p = self.ev.source().blend_space().map_or(point, |s| s.point);
        let nominal = if self.travels {
            Some(Ground::RootMotion)
        } else if self.velocity_axes {
            // x to the right (-X in glTF's axes), y forward (+Z).
            Some(Ground::Nominal([-(p[0] as f32), 0.0, p[1] as f32]))
        } else {
            None
        };
        let cycle = self.ev.duration();
        let fps = self.fps;
        let ev = &mut self.ev;
        ev.evaluate(&EvalInput {
            clock: ClockStep::Seek(0.0),
            ..EvalInput::default()
        });
        let mut walk = Walk::default();
        let (times, tracks) = track(character, &self.feet, cycle, fps, |t| {
            let out = ev.evaluate(&EvalInput {
                clock: ClockStep::Continue(t),
                simulation_dt: Some(1.0 / fps),
                ..EvalInput::default()
            });
            walk.note(t, out.treadmill);
            out.model.clone()
        });
        // Clips authored in place stand on the treadmill they walk on (their own feet's, in proportion to their
        // weights), which foot lock holds feet on too.
        let ground = nominal.or_else(|| walk.ground());
        measure(&times, &tracks, ground, &self.settings)
    }
}

/// The skate of a blend space over a grid of points covering its axes (row 0 at the top, y max), as the skate
/// map paints it beside the influence map.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkateMap {
    /// Points per side.
    pub size: usize,
    /// Lower-left corner of the covered rectangle (x min, y min).
    pub min: [f64; 2],
    /// Upper-right corner (x max, y max).
    pub max: [f64; 2],
    /// The mean planted-foot slide at each point (cm/s), row-major from the top row.
    pub planted_cm_s: Vec<f32>,
    /// The skate ratio at each point.
    pub skate_ratio: Vec<f32>,
}

impl SkateMap {
    /// The point of the space at grid point (row, col), row 0 at the top: the grid's first and last points lie
    /// on the axes' ends, so an odd size measures the middle of a symmetric axis (where an idle node usually is).
    pub fn point(&self, row: usize, col: usize) -> [f64; 2] {
        cell_point(self.min, self.max, self.size, row, col)
    }

    /// The planted speed painted on the influence map's colour ramp over `pixels` × `pixels` RGBA pixels, from dark
    /// (no slide) to bright yellow (`full_cm_s` and faster): interpolated between the measured points (bilinear),
    /// so a point reads what was measured there, not an average over a cell.
    pub fn to_rgba(&self, pixels: usize, full_cm_s: f32) -> Vec<u8> {
        let mut out = Vec::with_capacity(pixels * pixels * 4);
        let last = self.size.saturating_sub(1);
        let value = |row: usize, col: usize| {
            self.planted_cm_s
                .get(row * self.size + col)
                .copied()
                .unwrap_or(0.0)
        };
        // Pixel k's centre in grid units: the grid's first and last points lie on the image's edges.
        let at = |k: usize| {
            let f = (k as f32 + 0.5) / pixels.max(1) as f32;
            (f * last as f32).clamp(0.0, last as f32)
        };
        for y in 0..pixels {
            let gy = at(y);
            let (r0, ty) = (gy.floor() as usize, gy.fract());
            let r1 = (r0 + 1).min(last);
            for x in 0..pixels {
                let gx = at(x);
                let (c0, tx) = (gx.floor() as usize, gx.fract());
                let c1 = (c0 + 1).min(last);
                let top = value(r0, c0) * (1.0 - tx) + value(r0, c1) * tx;
                let bottom = value(r1, c0) * (1.0 - tx) + value(r1, c1) * tx;
                let v = top * (1.0 - ty) + bottom * ty;
                let [r, g, b] = crate::blend::heatmap::ramp(v / full_cm_s.max(1e-6));
                out.extend_from_slice(&[r, g, b, 255]);
            }
        }
        out
    }
}

fn cell_point(min: [f64; 2], max: [f64; 2], size: usize, row: usize, col: usize) -> [f64; 2] {
    let step = |k: usize| {
        if size > 1 {
            k as f64 / (size - 1) as f64
        } else {
            0.5
        }
    };
    let (fx, fy) = (step(col), step(row));
    [
        min[0] + fx * (max[0] - min[0]),
        max[1] - fy * (max[1] - min[1]),
    ]
}

/// The most points a skate map may measure (each plays a whole cycle).
pub const MAX_SKATE_MAP_POINTS: usize = 4096;

/// Measures the skate at `size` × `size` points over the space's axes. `progress(done, total)` is told after each
/// point; returning false cancels (None). An error names a missing clip or foot, or a grid over
/// [`MAX_SKATE_MAP_POINTS`].
#[allow(clippy::too_many_arguments)]
pub fn skate_map(
    character: &crate::core::Character,
    clips: &[crate::core::Clip],
    space: &crate::blend::BlendSpace,
    size: usize,
    fps: f32,
    settings: ContactSettings,
    foot_lock: Option<&crate::layers::FootLockParams>,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Option<SkateMap>, String> {
    if size == 0 || size * size > MAX_SKATE_MAP_POINTS {
        return Err(format!(
            "a skate map of {size} × {size} points: expected 1 to {MAX_SKATE_MAP_POINTS} points"
        ));
    }
    let mut meter = BlendMeter::new(character, clips, space, fps, settings, foot_lock)?;
    let [x, y] = &space.axes;
    // The range the editor's canvas shows: the axes, and a unit band for the unused y of a 1D space.
    let (min, max) = if space.mode.is_2d() {
        ([x.min, y.min], [x.max, y.max])
    } else {
        ([x.min, -1.0], [x.max, 1.0])
    };
    let total = size * size;
    let mut planted = Vec::with_capacity(total);
    let mut ratio = Vec::with_capacity(total);
    for row in 0..size {
        for col in 0..size {
            if !progress(row * size + col, total) {
                return Ok(None);
            }
            let r = meter.measure(character, cell_point(min, max, size, row, col));
            planted.push(r.planted_speed_cm_s.mean);
            ratio.push(r.skate_ratio);
        }
    }
    progress(total, total);
    Ok(Some(SkateMap {
        size,
        min,
        max,
        planted_cm_s: planted,
        skate_ratio: ratio,
    }))
}

/// The skate meter of one clip: its feet sampled at `fps`; the ground still when the clip travels on its root
/// motion (over 5 cm/s on average), else a treadmill. With `foot_lock`, the clip plays under that layer.
pub fn clip_skate(
    character: &crate::core::Character,
    clip: &crate::core::Clip,
    fps: f32,
    settings: &ContactSettings,
    foot_lock: Option<&crate::layers::FootLockParams>,
) -> Result<SkateReport, String> {
    let TrackedFeet { times, feet, walk } = foot_tracks(character, clip, fps, foot_lock)?;
    let travels = super::root_motion(character, clip).is_some_and(|r| r.speed > 0.05);
    // Locked, an in-place clip's feet are held on the treadmill it walks on: measured against that ground (the
    // one its free feet give), not one estimated from the locked feet.
    let ground = if travels {
        Some(Ground::RootMotion)
    } else {
        walk.map(|v| Ground::Treadmill((-v).to_array()))
    };
    Ok(measure(&times, &feet, ground, settings))
}
