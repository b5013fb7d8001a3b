//! Morph-weight tracks (glTF `weights` channels) and their binding to a character's meshes: sampled exactly as
//! glTF 2.0 defines (STEP, LINEAR, CUBICSPLINE with per-key tangents), one weight per morph target.

use serde::{Deserialize, Serialize};

use super::character::Character;
use super::clip::{ClipError, Interpolation, check_keys};

/// Keyframes of one node's morph weights: `width` weights per key (one per morph target of its mesh).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MorphTrack {
    /// Name of the node the channel animates (the node that instances the morphed mesh).
    pub node: String,
    width: usize,
    times: Vec<f32>,
    /// `width` values per key, or for cubic splines (in-tangents, values, out-tangents) per key, each `width`
    /// long, as glTF lays them out.
    values: Vec<f32>,
    interpolation: Interpolation,
}

impl MorphTrack {
    /// Checks and stores keys: `values` holds `width` weights per key (three groups of `width` per key for cubic
    /// splines).
    pub fn new(
        node: impl Into<String>,
        width: usize,
        times: Vec<f32>,
        values: Vec<f32>,
        interpolation: Interpolation,
    ) -> Result<Self, ClipError> {
        check_keys(&times, values.len(), width, interpolation)?;
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(ClipError::NonFiniteValue { index });
        }
        Ok(MorphTrack {
            node: node.into(),
            width,
            times,
            values,
            interpolation,
        })
    }

    /// Weights per key: the number of morph targets the track drives.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Key times in seconds.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// The interpolation mode.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Stored values, as glTF lays them out (see [`MorphTrack::new`]).
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Last key time.
    pub fn end_time(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// The weights of key `k` (not its tangents).
    pub fn key_weights(&self, k: usize) -> &[f32] {
        let w = self.width;
        match self.interpolation {
            Interpolation::CubicSpline => &self.values[(3 * k + 1) * w..(3 * k + 2) * w],
            _ => &self.values[k * w..(k + 1) * w],
        }
    }

    /// Writes the weights at `time` into `out` (its first `width` entries): before the first key the first
    /// key's, after the last the last key's.
    pub fn sample_into(&self, time: f32, out: &mut [f32]) {
        let w = self.width.min(out.len());
        let n = self.times.len();
        let next = self.times.partition_point(|&k| k <= time);
        if next == 0 || next >= n {
            let k = if next == 0 { 0 } else { n - 1 };
            out[..w].copy_from_slice(&self.key_weights(k)[..w]);
            return;
        }
        let k = next - 1;
        let (t0, t1) = (self.times[k], self.times[next]);
        let td = t1 - t0;
        let u = (time - t0) / td;
        match self.interpolation {
            Interpolation::Step => out[..w].copy_from_slice(&self.key_weights(k)[..w]),
            Interpolation::Linear => {
                let (a, b) = (self.key_weights(k), self.key_weights(next));
                for i in 0..w {
                    out[i] = a[i] + (b[i] - a[i]) * u;
                }
            }
            Interpolation::CubicSpline => {
                let s = self.width;
                let group =
                    |key: usize, g: usize| &self.values[(3 * key + g) * s..(3 * key + g + 1) * s];
                let (v0, out0, in1, v1) =
                    (group(k, 1), group(k, 2), group(next, 0), group(next, 1));
                let (u2, u3) = (u * u, u * u * u);
                let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
                let h10 = u3 - 2.0 * u2 + u;
                let h01 = -2.0 * u3 + 3.0 * u2;
                let h11 = u3 - u2;
                for i in 0..w {
                    out[i] = h00 * v0[i] + h10 * td * out0[i] + h01 * v1[i] + h11 * td * in1[i];
                }
            }
        }
    }

    /// A track through `points`, each (output time, source time): the weights sampled at the source times, keyed
    /// at the output times (sorted, increasing), STEP kept and the rest linear. How clip settings crop and offset.
    pub fn resampled(&self, points: &[(f32, f32)], fix: impl Fn(f32, &mut [f32])) -> Self {
        let mut values = vec![0.0; points.len() * self.width];
        for (&(t, src), v) in points.iter().zip(values.chunks_exact_mut(self.width)) {
            self.sample_into(src, v);
            fix(t, v);
        }
        let interpolation = match self.interpolation {
            Interpolation::Step => Interpolation::Step,
            _ => Interpolation::Linear,
        };
        let times = points.iter().map(|p| p.0).collect();
        MorphTrack::new(self.node.clone(), self.width, times, values, interpolation)
            .unwrap_or_else(|_| self.clone())
    }
}

/// Which character meshes each morph track of a clip drives: by node name, where the mesh has as many targets
/// as the track has weights.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphBinding {
    /// (track index, mesh index) pairs.
    pub pairs: Vec<(usize, usize)>,
}

impl MorphBinding {
    /// Binds `tracks` to `character`'s morphed meshes by node name (then mesh name).
    pub fn bind(tracks: &[MorphTrack], character: &Character) -> Self {
        let mut pairs = Vec::new();
        for (t, track) in tracks.iter().enumerate() {
            let fits = |m: &&crate::core::mesh::MorphSet| m.target_names.len() == track.width;
            let by = |key: fn(&crate::core::mesh::MorphSet) -> &str| {
                character
                    .meshes
                    .iter()
                    .enumerate()
                    .filter_map(|(i, mesh)| mesh.morph.as_ref().filter(fits).map(|m| (i, m)))
                    .filter(|(_, m)| key(m) == track.node)
                    .map(|(i, _)| i)
                    .collect::<Vec<_>>()
            };
            let mut meshes = by(|m| m.node.as_str());
            if meshes.is_empty() {
                meshes = by(|m| m.mesh.as_str());
            }
            pairs.extend(meshes.into_iter().map(|m| (t, m)));
        }
        MorphBinding { pairs }
    }
}

/// The default morph weights of every mesh of `character` (empty for a mesh without targets): what a pose
/// shows where no clip animates them.
pub fn default_weights(character: &Character) -> Vec<Vec<f32>> {
    character
        .meshes
        .iter()
        .map(|m| {
            m.morph
                .as_ref()
                .map_or_else(Vec::new, |s| s.default_weights.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(track: &MorphTrack, t: f32) -> Vec<f32> {
        let mut out = vec![f32::NAN; track.width()];
        track.sample_into(t, &mut out);
        out
    }

    /// glTF 2.0 Appendix C, written from the spec: STEP holds the earlier key, LINEAR is (1 − t)·vk + t·vk+1.
    #[test]
    fn step_and_linear_weights_follow_the_spec() {
        let times = vec![0.0, 1.0, 3.0];
        let values = vec![0.0, 1.0, 0.5, 0.5, 1.0, 0.0];
        let linear =
            MorphTrack::new("n", 2, times.clone(), values.clone(), Interpolation::Linear).unwrap();
        assert_eq!(sample(&linear, -1.0), [0.0, 1.0]);
        assert_eq!(sample(&linear, 0.5), [0.25, 0.75]);
        assert_eq!(sample(&linear, 2.0), [0.75, 0.25]);
        assert_eq!(sample(&linear, 9.0), [1.0, 0.0]);
        let step = MorphTrack::new("n", 2, times, values, Interpolation::Step).unwrap();
        assert_eq!(sample(&step, 0.99), [0.0, 1.0]);
        assert_eq!(sample(&step, 1.0), [0.5, 0.5]);
        assert_eq!(sample(&step, 2.9), [0.5, 0.5]);
    }

    /// glTF 2.0 Appendix C's cubic spline: with td = t1 − t0 and s in [0, 1],
    /// p = (2s³ − 3s² + 1)·v0 + td·(s³ − 2s² + s)·b0 + (−2s³ + 3s²)·v1 + td·(s³ − s²)·a1,
    /// where b0 is key 0's out-tangent and a1 key 1's in-tangent.
    #[test]
    fn cubic_spline_weights_use_the_scaled_tangents() {
        // One weight, keys at 0 s and 2 s: (a0, v0, b0) = (9, 0, 1), (a1, v1, b1) = (-2, 1, 9).
        let track = MorphTrack::new(
            "n",
            1,
            vec![0.0, 2.0],
            vec![9.0, 0.0, 1.0, -2.0, 1.0, 9.0],
            Interpolation::CubicSpline,
        )
        .unwrap();
        let s: f32 = 0.25;
        let td = 2.0;
        let expected = (2.0 * s.powi(3) - 3.0 * s * s + 1.0) * 0.0
            + td * (s.powi(3) - 2.0 * s * s + s) * 1.0
            + (-2.0 * s.powi(3) + 3.0 * s * s) * 1.0
            + td * (s.powi(3) - s * s) * -2.0;
        assert!((sample(&track, 0.5)[0] - expected).abs() < 1e-6);
        assert_eq!(sample(&track, 0.0), [0.0]);
        assert_eq!(sample(&track, 2.0), [1.0]);
    }

    #[test]
    fn bad_keys_are_refused() {
        let bad = |w, t: Vec<f32>, v: Vec<f32>, i| MorphTrack::new("n", w, t, v, i).is_err();
        assert!(bad(2, vec![0.0], vec![1.0], Interpolation::Linear));
        assert!(bad(1, vec![0.0], vec![1.0], Interpolation::CubicSpline));
        assert!(bad(
            1,
            vec![1.0, 0.5],
            vec![1.0, 2.0],
            Interpolation::Linear
        ));
        assert!(bad(1, vec![0.0], vec![f32::NAN], Interpolation::Linear));
        assert!(bad(0, vec![0.0], vec![], Interpolation::Linear));
    }
}
