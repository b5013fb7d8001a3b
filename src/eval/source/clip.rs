//! The single-clip source: the clip sampled at the source time with its morph weights, expression tracks and
//! VRM Animation look-at track, and its root motion as the transport asks (in place, with the travel taken out
//! kept as a treadmill under the character; or kept, accumulating over loops). A clip authored in place walks on
//! a treadmill at the velocity its feet give.

use glam::Vec3;

use crate::blend::RootMotion;
use crate::core::Skeleton;
use crate::runtime::JobError;

use super::compiled::{CompiledClip, shift_root};
use super::frame::{SourceOut, SourceTime};

/// Samples `c` at `at.time` into `out`.
pub(crate) fn sample(
    c: &mut CompiledClip,
    at: SourceTime,
    root_motion: RootMotion,
    accumulate_loops: bool,
    root_joint: Option<usize>,
    skeleton: &Skeleton,
    out: SourceOut,
) -> Result<(), JobError> {
    let time = at.time as f32;
    let result = c.sample(time, out.pose);
    c.morph.sample(time, out.morph);
    c.morph.add_expressions(time, 1.0, out.expressions);
    *out.look = c.morph.look_at.as_ref().map(|track| track.sample(time));
    let duration = f64::from(c.animation.duration());
    let offset = match root_motion {
        RootMotion::InPlace if duration > 0.0 => {
            let cycles = at.cycles as f64 + at.time / duration;
            *out.treadmill = c.root_travel * cycles as f32;
            -c.root_travel * (at.time / duration) as f32
        }
        RootMotion::Keep if accumulate_loops => c.root_travel * at.cycles as f32,
        _ => Vec3::ZERO,
    };
    if let Some(r) = root_joint {
        shift_root(skeleton, out.pose, r, offset);
    }
    // A clip authored in place walks on a treadmill whatever the mode: the character goes on in the world at
    // the velocity its feet give (once they were found, for the layers that feel it).
    if let Some(walk) = c.walk() {
        *out.treadmill = walk * (at.cycles as f64 * duration + at.time) as f32;
    }
    result
}
