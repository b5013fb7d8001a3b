//! Morph-weight tracks (glTF `weights` channels) and their binding to a character's meshes: sampled exactly as
//! glTF 2.0 defines (STEP, LINEAR, CUBICSPLINE with per-key tangents), one weight per morph target. A track may
//! name the targets it drives (Unity's blend-shape curves) instead of driving every target of its mesh in order;
//! [`resolve_named`] makes it a track of its mesh's every target once the character is known.

use serde::{Deserialize, Serialize};

use super::character::Character;
use super::clip::{ClipError, Interpolation, check_keys};

/// Keyframes of one node's morph weights: `width` weights per key (one per morph target of its mesh).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MorphTrack {
    /// Name of the node the channel animates (the node that instances the morphed mesh).
    pub node: String,
    /// The names of the targets its weights drive, in order (empty: every target of the mesh, in the mesh's
    /// order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    targets: Vec<String>,
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
            targets: Vec::new(),
            width,
            times,
            values,
            interpolation,
        })
    }

    /// A track of the targets named `targets` of the mesh at `node` (its last path element, or, where no mesh
    /// is instanced by that name, a mesh with targets of those names): one weight per name per key.
    pub fn named(
        node: impl Into<String>,
        targets: Vec<String>,
        times: Vec<f32>,
        values: Vec<f32>,
        interpolation: Interpolation,
    ) -> Result<Self, ClipError> {
        let mut track = MorphTrack::new(node, targets.len(), times, values, interpolation)?;
        track.targets = targets;
        Ok(track)
    }

    /// The names of the targets it drives (empty: every target of its mesh, in order).
    pub fn targets(&self) -> &[String] {
        &self.targets
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
            .map(|track| MorphTrack {
                targets: self.targets.clone(),
                ..track
            })
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
        // A track that names its targets binds once resolved ([`resolve_named`]), never by its width.
        for (t, track) in tracks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.targets.is_empty())
        {
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

/// Most weights (keys × the mesh's targets) a track naming its targets is made into: 16 M.
pub const MAX_RESOLVED_WEIGHTS: usize = 1 << 24;

/// `tracks` with each that names its targets made a track of every target of the mesh it drives on
/// `character`: the mesh instanced by the track's node name (its last path element), else the first with a
/// target of one of its names; the mesh's other targets keep their defaults, and names the mesh lacks are left
/// out. A track whose mesh cannot be found, or that would take more than [`MAX_RESOLVED_WEIGHTS`] weights, is
/// kept as it is, bound to nothing.
pub fn resolve_named(tracks: &[MorphTrack], character: &Character) -> Vec<MorphTrack> {
    tracks
        .iter()
        .map(|track| resolved(track, character).unwrap_or_else(|| track.clone()))
        .collect()
}

fn resolved(track: &MorphTrack, character: &Character) -> Option<MorphTrack> {
    if track.targets.is_empty() {
        return None;
    }
    let sets = || character.meshes.iter().filter_map(|m| m.morph.as_ref());
    let name = track.node.rsplit('/').next().unwrap_or(&track.node);
    let set = sets()
        .find(|m| !name.is_empty() && (m.node == name || m.mesh == name))
        .or_else(|| sets().find(|m| track.targets.iter().any(|t| m.target_names.contains(t))))?;
    let slots: Vec<(usize, usize)> = track
        .targets
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some((i, set.target_names.iter().position(|n| n == t)?)))
        .collect();
    let (from, to) = (track.width, set.target_names.len());
    // Per key one group of weights, or three (in-tangents, weights, out-tangents) for cubic splines.
    let groups = if track.interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    if track.times.len().saturating_mul(groups).saturating_mul(to) > MAX_RESOLVED_WEIGHTS {
        return None;
    }
    let zeros = vec![0.0; to];
    let mut values = Vec::with_capacity(track.times.len() * groups * to);
    for (g, given) in track.values.chunks_exact(from.max(1)).enumerate() {
        let weights = groups == 1 || g % 3 == 1;
        let start = values.len();
        values.extend_from_slice(if weights {
            &set.default_weights
        } else {
            &zeros
        });
        values.resize(start + to, 0.0);
        for &(i, slot) in &slots {
            values[start + slot] = given[i];
        }
    }
    MorphTrack::new(
        set.node.clone(),
        to,
        track.times.clone(),
        values,
        track.interpolation,
    )
    .ok()
}

/// How many of a clip's face tracks find something of `character` to drive: morph-weight tracks a mesh (named
/// targets resolved first), expression tracks an expression of that name.
pub fn face_tracks_bound(clip: &crate::core::Clip, character: &Character) -> usize {
    let morph = resolve_named(&clip.morph_tracks, character);
    let mut bound: Vec<usize> = MorphBinding::bind(&morph, character)
        .pairs
        .iter()
        .map(|&(t, _)| t)
        .collect();
    bound.dedup();
    let expressions = clip
        .expression_tracks
        .iter()
        .filter(|t| character.expressions.iter().any(|e| e.name == t.node))
        .count();
    bound.len() + expressions
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

    /// A track naming its targets becomes one of its mesh's every target: found by the node's last path element
    /// (else by a target name), the names it gives scattered into the mesh's order, the others at the mesh's
    /// defaults, a name the mesh lacks left out; cubic splines keep zero tangents for the targets not named.
    #[test]
    fn a_track_naming_its_targets_is_made_one_of_its_meshs_every_target() {
        use crate::core::mesh::{Mesh, MeshPlacement, MorphSet};
        let mut character = crate::demo::mannequin::load().character;
        let face = |node: &str, names: &[&str], defaults: Vec<f32>| Mesh {
            name: node.into(),
            placement: MeshPlacement::Skinned { skin: 0 },
            primitives: Vec::new(),
            morph: Some(MorphSet {
                node: node.into(),
                mesh: format!("{node}Mesh"),
                target_names: names.iter().map(|n| n.to_string()).collect(),
                default_weights: defaults,
            }),
        };
        character.meshes = vec![
            face("Brows", &["Up", "Down"], vec![0.0, 0.0]),
            face("Face", &["Smile", "Blink", "Frown"], vec![0.1, 0.2, 0.3]),
        ];
        let names = |n: &[&str]| n.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let linear = MorphTrack::named(
            "Armature/Face",
            names(&["Frown", "Wink", "Smile"]),
            vec![0.0, 1.0],
            vec![1.0, 9.0, 2.0, 3.0, 9.0, 4.0],
            Interpolation::Linear,
        )
        .unwrap();
        let by_name = MorphTrack::named(
            "",
            names(&["Down"]),
            vec![0.0],
            vec![0.5],
            Interpolation::Step,
        )
        .unwrap();
        let cubic = MorphTrack::named(
            "Face",
            names(&["Blink"]),
            vec![0.0],
            vec![7.0, 0.6, 8.0],
            Interpolation::CubicSpline,
        )
        .unwrap();
        // As wide as Brows: still bound to nothing.
        let unknown = MorphTrack::named(
            "Tail",
            names(&["Wag", "Swish"]),
            vec![0.0],
            vec![1.0, 1.0],
            Interpolation::Step,
        )
        .unwrap();
        let resolved = resolve_named(&[linear, by_name, cubic, unknown.clone()], &character);
        assert_eq!(resolved[0].node, "Face");
        assert!(resolved[0].targets().is_empty());
        assert_eq!(resolved[0].values(), [2.0, 0.2, 1.0, 4.0, 0.2, 3.0]);
        assert_eq!(
            (resolved[1].node.as_str(), resolved[1].values()),
            ("Brows", &[0.0, 0.5][..])
        );
        assert_eq!(
            resolved[2].values(),
            [0.0, 7.0, 0.0, 0.1, 0.6, 0.3, 0.0, 8.0, 0.0]
        );
        assert_eq!(resolved[3], unknown, "kept, bound to nothing");
        let binding = MorphBinding::bind(&resolved, &character);
        assert_eq!(binding.pairs, [(0, 1), (1, 0), (2, 1)]);
        assert!(
            MorphBinding::bind(&[unknown], &character).pairs.is_empty(),
            "a named track never binds by its width"
        );
        // A long track onto a mesh of many targets would take more than the bound: it is kept, unbound.
        let many: Vec<String> = (0..4096).map(|i| format!("t{i}")).collect();
        let crowd: Vec<&str> = many.iter().map(String::as_str).collect();
        character.meshes = vec![face("Crowd", &crowd, vec![0.0; 4096])];
        let keys = MAX_RESOLVED_WEIGHTS / 4096 + 1;
        let long = MorphTrack::named(
            "Crowd",
            names(&["t0"]),
            (0..keys).map(|k| k as f32 * 0.01).collect(),
            vec![0.5; keys],
            Interpolation::Linear,
        )
        .unwrap();
        assert_eq!(
            resolve_named(std::slice::from_ref(&long), &character),
            [long]
        );
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
