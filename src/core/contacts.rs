//! Foot contacts and the skate meter measured over sampled contact points: when each foot stands on the ground,
//! and how fast it slides while it does (whoever samples the poses: `analysis` through the Evaluator, a blend
//! space's node sampler for its foot-down markers).
//!
//! Definitions (docs/feet.md, "Contacts and the skate meter"):
//! - a foot's contact point is its toes joint when the character maps one, else its foot joint;
//! - the ground is the lowest height any contact point reaches over the clip; a point is *low* within
//!   `height_m` of it;
//! - velocities are central differences of the sampled positions (one-sided at the ends), horizontal (x, z);
//! - the ground moves: not at all under a clip that travels on its own root motion; under an in-place clip at the
//!   clip's nominal velocity, backwards (when the caller knows it: a blend node's position on velocity axes), else
//!   at the mean horizontal velocity of the low points (a treadmill);
//! - a foot is *in contact* where it is low and slides (moves relative to the ground) slower than `speed_m_s`;
//! - the skate ratio is the share of contact frames where it slides faster than `skate_m_s` (0.5 m/s: GMD's 2.5 cm
//!   per frame at 20 fps); the planted speed is its slide over contact frames, in cm/s.

use glam::Vec3;
use serde::Serialize;

use super::{Character, HumanBone};

/// Thresholds of contact and skating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// Height above the ground under which a contact point is low (metres).
    pub height_m: f32,
    /// Slide under which a low point is in contact (m/s).
    pub speed_m_s: f32,
    /// Slide over which a contact frame skates (m/s).
    pub skate_m_s: f32,
}

impl Default for ContactSettings {
    fn default() -> Self {
        ContactSettings {
            height_m: 0.05,
            speed_m_s: 1.0,
            skate_m_s: 0.5,
        }
    }
}

/// How the ground moved under the clip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ground {
    /// Still: the clip travels on its own root motion.
    RootMotion,
    /// Backwards at the clip's nominal velocity (m/s, model space).
    Nominal([f32; 3]),
    /// At the mean velocity of the low contact points (m/s, model space).
    Treadmill([f32; 3]),
}

impl Ground {
    /// How fast the ground moves under the feet (m/s, model space).
    pub fn velocity(self) -> Vec3 {
        match self {
            Ground::RootMotion => Vec3::ZERO,
            Ground::Nominal(v) => -Vec3::from_array(v),
            Ground::Treadmill(v) => Vec3::from_array(v),
        }
    }
}

/// One foot's track: which foot, and its contact point at each sample time (model space, metres).
#[derive(Clone, Debug, PartialEq)]
pub struct FootTrack {
    /// The human bone it is (LeftFoot or RightFoot).
    pub human_bone: &'static str,
    /// The joint whose position is tracked (the toes, else the foot).
    pub joint: String,
    /// Its position at each time.
    pub positions: Vec<Vec3>,
}

/// One foot's contacts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FootContacts {
    /// The human bone.
    pub human_bone: &'static str,
    /// The joint tracked.
    pub joint: String,
    /// Contact intervals `[start, end]` (seconds).
    pub contacts: Vec<[f32; 2]>,
}

/// Mean and largest of a speed (cm/s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Speeds {
    /// Mean.
    pub mean: f32,
    /// Largest.
    pub max: f32,
}

/// The skate meter's figures for one clip (or blend).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkateReport {
    /// Share of contact frames sliding faster than the skate threshold (0 when there is no contact).
    pub skate_ratio: f32,
    /// The slide of feet in contact (cm/s).
    pub planted_speed_cm_s: Speeds,
    /// How the ground moved.
    pub ground: Ground,
    /// Contact frames over both feet.
    pub contact_frames: usize,
    /// Each foot's contacts.
    pub feet: Vec<FootContacts>,
}

/// Central differences of `positions` at `times`, horizontal only (one-sided at the ends).
fn horizontal_velocities(times: &[f32], positions: &[Vec3]) -> Vec<Vec3> {
    let n = positions.len().min(times.len());
    (0..n)
        .map(|k| {
            let (a, b) = (k.saturating_sub(1), (k + 1).min(n - 1));
            let dt = times[b] - times[a];
            if dt <= 0.0 {
                return Vec3::ZERO;
            }
            let v = (positions[b] - positions[a]) / dt;
            Vec3::new(v.x, 0.0, v.z)
        })
        .collect()
}

/// Measures contacts and skating of `feet` sampled at `times`. `ground` says whether the clip travels on its root
/// motion (`Some(Ground::RootMotion)`), or its nominal velocity; None estimates a treadmill.
pub fn measure(
    times: &[f32],
    feet: &[FootTrack],
    ground: Option<Ground>,
    settings: &ContactSettings,
) -> SkateReport {
    let floor = feet
        .iter()
        .flat_map(|f| f.positions.iter().map(|p| p.y))
        .fold(f32::INFINITY, f32::min);
    let velocities: Vec<Vec<Vec3>> = feet
        .iter()
        .map(|f| horizontal_velocities(times, &f.positions))
        .collect();
    let low = |f: &FootTrack, k: usize| f.positions[k].y - floor < settings.height_m;
    let ground = ground.unwrap_or_else(|| {
        let (sum, count) = feet
            .iter()
            .zip(&velocities)
            .flat_map(|(f, v)| (0..v.len()).filter(|&k| low(f, k)).map(move |k| v[k]))
            .fold((Vec3::ZERO, 0usize), |(s, n), v| (s + v, n + 1));
        let mean = if count > 0 {
            sum / count as f32
        } else {
            Vec3::ZERO
        };
        Ground::Treadmill(mean.to_array())
    });
    let under = ground.velocity();
    let mut slides = Vec::new();
    let mut out_feet = Vec::new();
    for (f, v) in feet.iter().zip(&velocities) {
        let mut contacts: Vec<[f32; 2]> = Vec::new();
        let mut run: Option<f32> = None;
        for k in 0..v.len() {
            let slide = (v[k] - under).length();
            let contact = low(f, k) && slide < settings.speed_m_s;
            if contact {
                slides.push(slide);
                run.get_or_insert(times[k]);
            } else if let Some(start) = run.take() {
                contacts.push([start, times[k - 1]]);
            }
        }
        if let (Some(start), Some(&end)) = (run, times.get(v.len().saturating_sub(1))) {
            contacts.push([start, end]);
        }
        out_feet.push(FootContacts {
            human_bone: f.human_bone,
            joint: f.joint.clone(),
            contacts,
        });
    }
    let n = slides.len();
    let skating = slides.iter().filter(|&&s| s > settings.skate_m_s).count();
    SkateReport {
        skate_ratio: if n > 0 {
            skating as f32 / n as f32
        } else {
            0.0
        },
        planted_speed_cm_s: Speeds {
            mean: if n > 0 {
                100.0 * slides.iter().sum::<f32>() / n as f32
            } else {
                0.0
            },
            max: 100.0 * slides.iter().copied().fold(0.0, f32::max),
        },
        ground,
        contact_frames: n,
        feet: out_feet,
    }
}

/// The feet's contact joints (toes, else foot) by human bone; an error names what the character lacks, or a
/// rate out of range.
pub(crate) fn feet_of(
    character: &Character,
    fps: f32,
) -> Result<Vec<(&'static str, usize)>, String> {
    if !(fps.is_finite() && (1.0..=1000.0).contains(&fps)) {
        return Err(format!("a rate of {fps} fps: expected 1 to 1000"));
    }
    let map = &character.humanoid;
    [
        (HumanBone::LeftFoot, HumanBone::LeftToes),
        (HumanBone::RightFoot, HumanBone::RightToes),
    ]
    .into_iter()
    .map(|(bone, toes)| {
        let joint = map.joint(toes).or_else(|| map.joint(bone)).ok_or_else(|| {
            format!(
                "'{}' has no {} mapped, so its feet cannot be tracked",
                character.name,
                bone.name()
            )
        })?;
        Ok((bone.name(), joint))
    })
    .collect()
}

/// The times and both feet's contact points over `duration` at `fps`, from a pose's model matrices at each time;
/// an error names what the character lacks.
pub fn track_feet(
    character: &Character,
    duration: f32,
    fps: f32,
    model_at: impl FnMut(f32) -> Vec<glam::Mat4>,
) -> Result<(Vec<f32>, Vec<FootTrack>), String> {
    let feet = feet_of(character, fps)?;
    Ok(track(character, &feet, duration, fps, model_at))
}

/// The feet's contact points over `duration` at `fps`, from a pose's model matrices at each time.
pub(crate) fn track(
    character: &Character,
    feet: &[(&'static str, usize)],
    duration: f32,
    fps: f32,
    mut model_at: impl FnMut(f32) -> Vec<glam::Mat4>,
) -> (Vec<f32>, Vec<FootTrack>) {
    let frames = (duration * fps).ceil() as usize;
    let times: Vec<f32> = (0..=frames)
        .map(|k| (k as f32 / fps).min(duration))
        .collect();
    let mut tracks: Vec<FootTrack> = feet
        .iter()
        .map(|&(human_bone, j)| FootTrack {
            human_bone,
            joint: character.skeleton.name(j).to_string(),
            positions: Vec::with_capacity(times.len()),
        })
        .collect();
    for &t in &times {
        let model = model_at(t);
        for (track, &(_, j)) in tracks.iter_mut().zip(feet) {
            track.positions.push(model[j].w_axis.truncate());
        }
    }
    (times, tracks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(positions: Vec<Vec3>) -> FootTrack {
        FootTrack {
            human_bone: "LeftFoot",
            joint: "foot".into(),
            positions,
        }
    }

    /// A foot planted for half a second, lifted, then set down sliding 0.3 m/s: two contacts, the planted speed's
    /// mean is the slide's share (written from the definitions).
    #[test]
    fn a_planted_then_sliding_foot_gives_its_contacts_and_speeds() {
        let times: Vec<f32> = (0..=60).map(|k| k as f32 / 60.0).collect();
        let positions = times
            .iter()
            .map(|&t| {
                if t <= 0.5 {
                    Vec3::ZERO
                } else if t < 0.6 {
                    Vec3::new(0.0, 0.2, 0.0)
                } else {
                    Vec3::new(0.3 * (t - 0.6), 0.0, 0.0)
                }
            })
            .collect();
        let r = measure(
            &times,
            &[track(positions)],
            Some(Ground::RootMotion),
            &ContactSettings::default(),
        );
        let c = &r.feet[0].contacts;
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(
            (c[0][0] - 0.0).abs() < 1e-6 && (c[1][1] - 1.0).abs() < 1e-6,
            "{c:?}"
        );
        assert_eq!(r.skate_ratio, 0.0);
        assert!((r.planted_speed_cm_s.max - 30.0).abs() < 0.5, "{r:?}");
    }

    /// An in-place walk's planted foot moves backwards at the walking speed: the treadmill takes that speed
    /// as the ground's, and the foot does not slide.
    #[test]
    fn an_in_place_planted_foot_rides_the_treadmill() {
        let times: Vec<f32> = (0..=30).map(|k| k as f32 / 30.0).collect();
        let positions = times
            .iter()
            .map(|&t| Vec3::new(0.0, 0.0, -1.2 * t))
            .collect();
        let r = measure(
            &times,
            &[track(positions)],
            None,
            &ContactSettings::default(),
        );
        let Ground::Treadmill(v) = r.ground else {
            panic!("{:?}", r.ground)
        };
        assert!((v[2] + 1.2).abs() < 1e-4, "{v:?}");
        assert!(r.planted_speed_cm_s.max < 0.1, "{r:?}");
        assert_eq!(r.feet[0].contacts.len(), 1);
    }
}
