//! Blend weights: how much each node of a blend space contributes at a sample point.
//!
//! Pure functions of the node positions and the point, in `f64`. The 2D freeform modes are gradient band
//! interpolation (R. S. Johansen, "Automated Semi-Procedural Animation for Character Locomotion", 2009, §6.3):
//! Cartesian for arbitrary parameters, polar for velocities, where direction matters more than distance.

use std::f64::consts::{PI, TAU};

use glam::DVec2;
use serde::{Deserialize, Serialize};

/// How the weights are computed from the node positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlendMode {
    /// One parameter (x): linear between the two neighbouring thresholds, clamped at the ends.
    #[serde(rename = "1d")]
    OneD,
    /// Directions from the origin: the two nodes nearest in angle, barycentric with the origin node.
    SimpleDirectional,
    /// Gradient band interpolation in Cartesian coordinates.
    FreeformCartesian,
    /// Gradient band interpolation in polar coordinates (direction and speed).
    #[default]
    FreeformDirectional,
}

impl BlendMode {
    /// Every mode, in menu order.
    pub const ALL: [BlendMode; 4] = [
        BlendMode::OneD,
        BlendMode::SimpleDirectional,
        BlendMode::FreeformCartesian,
        BlendMode::FreeformDirectional,
    ];

    /// The name used in presets and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            BlendMode::OneD => "1d",
            BlendMode::SimpleDirectional => "simple_directional",
            BlendMode::FreeformCartesian => "freeform_cartesian",
            BlendMode::FreeformDirectional => "freeform_directional",
        }
    }

    /// A label for the UI.
    pub fn label(self) -> &'static str {
        match self {
            BlendMode::OneD => "1D",
            BlendMode::SimpleDirectional => "2D Simple Directional",
            BlendMode::FreeformCartesian => "2D Freeform Cartesian",
            BlendMode::FreeformDirectional => "2D Freeform Directional",
        }
    }

    /// True for the modes that read both coordinates.
    pub fn is_2d(self) -> bool {
        self != BlendMode::OneD
    }

    /// True for the modes that expect a node at the origin.
    pub fn is_directional(self) -> bool {
        matches!(
            self,
            BlendMode::SimpleDirectional | BlendMode::FreeformDirectional
        )
    }
}

/// Something about a node layout that makes some weights arbitrary; reported, never a NaN.
#[derive(Clone, Debug, PartialEq)]
pub enum LayoutIssue {
    /// The space has no node: nothing to blend.
    NoNodes,
    /// A node position is NaN or infinite; that node never gets weight.
    NonFinite(usize),
    /// Two nodes at the same position: they share their weight equally.
    Coincident(usize, usize),
    /// Two nodes in the same direction (simple directional only): the second never gets weight.
    SameDirection(usize, usize),
    /// A directional mode without a node at (0, 0): near the origin the nearest nodes take the weight.
    NoOriginNode,
}

impl std::fmt::Display for LayoutIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutIssue::NoNodes => write!(f, "the blend space has no node"),
            LayoutIssue::NonFinite(i) => write!(f, "node {i} has a position that is not a number"),
            LayoutIssue::Coincident(i, j) => {
                write!(f, "nodes {i} and {j} are at the same position")
            }
            LayoutIssue::SameDirection(i, j) => write!(
                f,
                "nodes {i} and {j} point in the same direction (simple directional uses only {i})"
            ),
            LayoutIssue::NoOriginNode => write!(
                f,
                "no node at (0, 0): a directional blend space should have one (an idle)"
            ),
        }
    }
}

/// Positions closer than this (relative to the layout's size) are the same position.
const SAME_POSITION: f64 = 1e-9;
/// Directions closer than this (radians) are the same direction.
const SAME_DIRECTION: f64 = 1e-6;

fn layout_scale(nodes: &[DVec2]) -> f64 {
    nodes
        .iter()
        .filter(|n| n.is_finite())
        .map(|n| n.abs().max_element())
        .fold(1.0, f64::max)
}

fn is_origin(p: DVec2, scale: f64) -> bool {
    p.length() <= SAME_POSITION * scale
}

/// Unsigned angle between two vectors in [0, π]; 0 when either is zero.
pub fn angle_between(a: DVec2, b: DVec2) -> f64 {
    if a == DVec2::ZERO || b == DVec2::ZERO {
        return 0.0;
    }
    a.perp_dot(b).abs().atan2(a.dot(b))
}

/// Lists what is degenerate about a layout for a mode.
pub fn layout_issues(mode: BlendMode, nodes: &[DVec2]) -> Vec<LayoutIssue> {
    let mut out = Vec::new();
    if nodes.is_empty() {
        out.push(LayoutIssue::NoNodes);
        return out;
    }
    let scale = layout_scale(nodes);
    let key = |p: DVec2| {
        if mode == BlendMode::OneD {
            DVec2::new(p.x, 0.0)
        } else {
            p
        }
    };
    for (i, &a) in nodes.iter().enumerate() {
        if !key(a).is_finite() {
            out.push(LayoutIssue::NonFinite(i));
            continue;
        }
        for (j, &b) in nodes.iter().enumerate().skip(i + 1) {
            if !key(b).is_finite() {
                continue;
            }
            if (key(a) - key(b)).length() <= SAME_POSITION * scale {
                out.push(LayoutIssue::Coincident(i, j));
            } else if mode == BlendMode::SimpleDirectional
                && !is_origin(a, scale)
                && !is_origin(b, scale)
                && angle_between(a, b) <= SAME_DIRECTION
            {
                out.push(LayoutIssue::SameDirection(i, j));
            }
        }
    }
    if mode.is_directional() && !nodes.iter().any(|&n| is_origin(n, scale)) {
        out.push(LayoutIssue::NoOriginNode);
    }
    out
}

/// The weight of every node at `point`, written into `out` (resized to `nodes.len()`).
///
/// Weights are ≥ 0 and sum to 1 whenever at least one node has a finite position; nodes with a
/// non-finite position get 0. For [`BlendMode::OneD`] only the x coordinates are read.
pub fn compute_weights(mode: BlendMode, nodes: &[DVec2], point: DVec2, out: &mut Vec<f64>) {
    out.clear();
    out.resize(nodes.len(), 0.0);
    let point = if point.is_finite() {
        point
    } else {
        DVec2::ZERO
    };
    let finite: Vec<usize> = (0..nodes.len())
        .filter(|&i| {
            if mode == BlendMode::OneD {
                nodes[i].x.is_finite()
            } else {
                nodes[i].is_finite()
            }
        })
        .collect();
    match finite.len() {
        0 => return,
        1 => {
            out[finite[0]] = 1.0;
            return;
        }
        _ => {}
    }
    match mode {
        BlendMode::OneD => one_d(nodes, &finite, point.x, out),
        BlendMode::SimpleDirectional => simple_directional(nodes, &finite, point, out),
        BlendMode::FreeformCartesian => {
            freeform(nodes, &finite, point, out, cartesian_band);
        }
        BlendMode::FreeformDirectional => {
            freeform(nodes, &finite, point, out, polar_band);
        }
    }
}

/// Convenience form of [`compute_weights`] returning a new vector.
pub fn weights(mode: BlendMode, nodes: &[DVec2], point: DVec2) -> Vec<f64> {
    let mut out = Vec::new();
    compute_weights(mode, nodes, point, &mut out);
    out
}

fn one_d(nodes: &[DVec2], finite: &[usize], p: f64, out: &mut [f64]) {
    let mut order = finite.to_vec();
    order.sort_by(|&a, &b| nodes[a].x.total_cmp(&nodes[b].x));
    let x = |k: usize| nodes[order[k]].x;
    let last = order.len() - 1;
    if p <= x(0) {
        out[order[0]] = 1.0;
        return;
    }
    if p >= x(last) {
        out[order[last]] = 1.0;
        return;
    }
    // The last threshold at or below p; the next one is strictly above it.
    let k = (0..last).rev().find(|&k| x(k) <= p).unwrap_or(0);
    let t = (p - x(k)) / (x(k + 1) - x(k));
    out[order[k]] = 1.0 - t;
    out[order[k + 1]] = t;
}

fn simple_directional(nodes: &[DVec2], finite: &[usize], p: DVec2, out: &mut [f64]) {
    let scale = layout_scale(nodes);
    let center = finite.iter().copied().find(|&i| is_origin(nodes[i], scale));
    // Directional nodes; of several in one direction only the first counts (a reported layout issue).
    let mut dirs: Vec<usize> = Vec::new();
    for &i in finite {
        if Some(i) == center || is_origin(nodes[i], scale) {
            continue;
        }
        if dirs
            .iter()
            .all(|&d| angle_between(nodes[d], nodes[i]) > SAME_DIRECTION)
        {
            dirs.push(i);
        }
    }
    let give_rest = |out: &mut [f64], rest: f64| {
        if let Some(c) = center {
            out[c] += rest.max(0.0);
        }
    };
    if dirs.is_empty() {
        if let Some(c) = center {
            out[c] = 1.0;
        }
        return;
    }
    if p.length() <= SAME_POSITION * scale {
        match center {
            Some(c) => out[c] = 1.0,
            None => dirs.iter().for_each(|&d| out[d] = 1.0 / dirs.len() as f64),
        }
        return;
    }
    let theta = p.y.atan2(p.x);
    let ccw = |i: usize| (nodes[i].y.atan2(nodes[i].x) - theta).rem_euclid(TAU);
    // A: first node counter-clockwise from p (or on its ray); B: first node clockwise.
    let a = dirs
        .iter()
        .copied()
        .min_by(|&i, &j| ccw(i).total_cmp(&ccw(j)))
        .unwrap_or(dirs[0]);
    let b = dirs
        .iter()
        .copied()
        .max_by(|&i, &j| ccw(i).total_cmp(&ccw(j)))
        .unwrap_or(dirs[0]);
    let gap = ccw(a) + (TAU - ccw(b));
    if dirs.len() == 1 || gap >= PI - SAME_DIRECTION {
        // No triangle (origin, A, B) contains p's direction: project onto the node nearer in angle.
        let n = if ccw(a) <= TAU - ccw(b) { a } else { b };
        let t = (p.dot(nodes[n]) / nodes[n].length_squared()).clamp(0.0, 1.0);
        if center.is_some() {
            out[n] = t;
            give_rest(out, 1.0 - t);
        } else {
            out[n] = 1.0;
        }
        return;
    }
    let (va, vb) = (nodes[a], nodes[b]);
    let det = va.perp_dot(vb);
    let mut wa = (p.perp_dot(vb) / det).max(0.0);
    let mut wb = (va.perp_dot(p) / det).max(0.0);
    let sum = wa + wb;
    if sum > 1.0 || center.is_none() {
        if sum > 0.0 {
            wa /= sum;
            wb /= sum;
        } else {
            wa = 0.5;
            wb = 0.5;
        }
    }
    out[a] = wa;
    out[b] = wb;
    give_rest(out, 1.0 - wa - wb);
}

/// The gradient band vectors of the pair (i, j) at point p: (v_ip, v_ij).
type BandFn = fn(DVec2, DVec2, DVec2) -> (DVec2, DVec2);

fn cartesian_band(pi: DVec2, pj: DVec2, p: DVec2) -> (DVec2, DVec2) {
    (p - pi, pj - pi)
}

/// Polar gradient band vectors, as (angle term, radial term).
///
/// Per pair, v_ij = (α·angle(p_i, p_j), (|p_j| − |p_i|)/m) and v_ip = (α·signed angle(p_i, p), (|p| − |p_i|)/m)
/// with m = (|p_i| + |p_j|)/2 and α = 2; the angle to p is positive on p_j's side. A node at the origin has no
/// direction: its angles are taken from the other node (angle(p, p_j) against 0 when p_i is the origin,
/// angle(p, p_i) for both when p_j is) with α = 1.
fn polar_band(pi: DVec2, pj: DVec2, p: DVec2) -> (DVec2, DVec2) {
    let (li, lj, lp) = (pi.length(), pj.length(), p.length());
    let m = (li + lj) / 2.0;
    let (a_ij, a_ip, alpha);
    if pi == DVec2::ZERO {
        a_ij = angle_between(p, pj);
        a_ip = 0.0;
        alpha = 1.0;
    } else if pj == DVec2::ZERO {
        a_ij = angle_between(p, pi);
        a_ip = a_ij;
        alpha = 1.0;
    } else {
        alpha = 2.0;
        a_ij = angle_between(pi, pj);
        a_ip = if a_ij <= 0.0 {
            0.0
        } else if p == DVec2::ZERO {
            a_ij
        } else {
            let unsigned = angle_between(pi, p);
            let toward_j = pi.perp_dot(p) * pi.perp_dot(pj) >= 0.0;
            if a_ij < PI * 0.99 && !toward_j {
                -unsigned
            } else {
                unsigned
            }
        };
    }
    (
        DVec2::new(alpha * a_ip, (lp - li) / m),
        DVec2::new(alpha * a_ij, (lj - li) / m),
    )
}

fn freeform(nodes: &[DVec2], finite: &[usize], p: DVec2, out: &mut [f64], band: BandFn) {
    let scale = layout_scale(nodes);
    if let Some(&hit) = finite
        .iter()
        .find(|&&i| (nodes[i] - p).length() <= SAME_POSITION * scale)
    {
        // On a node: one-hot (split evenly when nodes coincide there).
        let here: Vec<usize> = finite
            .iter()
            .copied()
            .filter(|&i| (nodes[i] - nodes[hit]).length() <= SAME_POSITION * scale)
            .collect();
        here.iter().for_each(|&i| out[i] = 1.0 / here.len() as f64);
        return;
    }
    let mut sum = 0.0;
    for &i in finite {
        let mut h = 1.0f64;
        for &j in finite {
            if i == j {
                continue;
            }
            let (v_ip, v_ij) = band(nodes[i], nodes[j], p);
            let len2 = v_ij.length_squared();
            if len2 <= 0.0 || !len2.is_finite() {
                continue;
            }
            h = h.min(1.0 - v_ip.dot(v_ij) / len2);
            if h <= 0.0 {
                break;
            }
        }
        let h = h.max(0.0);
        out[i] = h;
        sum += h;
    }
    if sum > 0.0 && sum.is_finite() {
        out.iter_mut().for_each(|w| *w /= sum);
    } else {
        out.iter_mut().for_each(|w| *w = 0.0);
        let nearest = finite
            .iter()
            .copied()
            .min_by(|&a, &b| (nodes[a] - p).length().total_cmp(&(nodes[b] - p).length()))
            .unwrap_or(finite[0]);
        out[nearest] = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn one_d_is_linear_between_neighbours_and_clamped() {
        let n = [v(1.0, 0.0), v(0.0, 0.0), v(3.0, 0.0)];
        close(
            &weights(BlendMode::OneD, &n, v(0.25, 9.0)),
            &[0.25, 0.75, 0.0],
        );
        close(
            &weights(BlendMode::OneD, &n, v(2.5, 0.0)),
            &[0.25, 0.0, 0.75],
        );
        close(
            &weights(BlendMode::OneD, &n, v(-4.0, 0.0)),
            &[0.0, 1.0, 0.0],
        );
        close(&weights(BlendMode::OneD, &n, v(7.0, 0.0)), &[0.0, 0.0, 1.0]);
        close(&weights(BlendMode::OneD, &n, v(1.0, 0.0)), &[1.0, 0.0, 0.0]);
    }

    #[test]
    fn cartesian_by_hand_for_two_and_three_nodes() {
        // Two nodes: h_0 = 1 - t, h_1 = t along the segment; outside the band one node gets all.
        let n = [v(0.0, 0.0), v(2.0, 0.0)];
        close(
            &weights(BlendMode::FreeformCartesian, &n, v(0.5, 1.0)),
            &[0.75, 0.25],
        );
        close(
            &weights(BlendMode::FreeformCartesian, &n, v(3.0, 0.0)),
            &[0.0, 1.0],
        );
        // Three nodes at (0,0), (1,0), (0,1), p = (0.25, 0.25):
        // h0 = min(1 - 0.25, 1 - 0.25) = 0.75;
        // h1 = min(1 - (p-(1,0))·(-1,0)/1, 1 - (p-(1,0))·(-1,1)/2) = min(0.25, 1 - (0.75+0.25)/2) = 0.25;
        // h2 = 0.25 by symmetry. Sum 1.25.
        let n = [v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0)];
        close(
            &weights(BlendMode::FreeformCartesian, &n, v(0.25, 0.25)),
            &[0.6, 0.2, 0.2],
        );
    }

    #[test]
    fn directional_by_hand_origin_and_two_directions() {
        // Origin, forward (0,1), right (1,0); p = (0, 0.5): halfway to forward along its ray.
        // Pair (fwd, right): v_ij = (2·π/2, 0), v_ip = (2·0, (0.5-1)/1) → dot 0 → t = 1.
        // Pair (fwd, origin): α = 1, a_ij = angle(p, fwd) = 0 = a_ip; v_ij = (0, -1/0.5), v_ip = (0, -0.5/0.5)
        //   → t = 1 - (1·2)/4 = 0.5. So h_fwd = 0.5.
        // Origin: pair (origin, fwd): v_ij = (0, 1/0.5), v_ip = (0, 0.5/0.5) → t = 0.5;
        //   pair (origin, right): a_ij = angle(p, right) = π/2, v_ij = (π/2, 2), v_ip = (0, 1) → t = 1 - 2/(π²/4+4).
        // Right: pair (right, fwd): v_ij = (π, 0), v_ip = (2·(-π/2)... p is on fwd's side: +π/2·2 = π) → t = 0.
        let n = [v(0.0, 0.0), v(0.0, 1.0), v(1.0, 0.0)];
        let w = weights(BlendMode::FreeformDirectional, &n, v(0.0, 0.5));
        let h_origin = 0.5f64.min(1.0 - 2.0 / (PI * PI / 4.0 + 4.0));
        let h_fwd = 0.5;
        let sum = h_origin + h_fwd;
        close(&w, &[h_origin / sum, h_fwd / sum, 0.0]);
    }

    #[test]
    fn simple_directional_is_barycentric_with_the_origin() {
        let n = [v(0.0, 0.0), v(0.0, 2.0), v(2.0, 0.0), v(-2.0, 0.0)];
        // p = (0.5, 0.5) = 0.25·(0,2) + 0.25·(2,0); the origin takes the remaining 0.5.
        close(
            &weights(BlendMode::SimpleDirectional, &n, v(0.5, 0.5)),
            &[0.5, 0.25, 0.25, 0.0],
        );
        // Beyond the outer edge: no extrapolation, the two nodes share by their barycentric ratio.
        close(
            &weights(BlendMode::SimpleDirectional, &n, v(3.0, 1.0)),
            &[0.0, 0.25, 0.75, 0.0],
        );
        // Backwards, in the half plane no pair spans: projection onto the nearer node, rest to the origin.
        close(
            &weights(BlendMode::SimpleDirectional, &n, v(-1.0, -1.0)),
            &[0.5, 0.0, 0.0, 0.5],
        );
    }

    #[test]
    fn edge_cases_never_give_nan() {
        for mode in BlendMode::ALL {
            assert!(weights(mode, &[], v(1.0, 1.0)).is_empty());
            close(&weights(mode, &[v(3.0, 4.0)], v(-1.0, 2.0)), &[1.0]);
            let n = [v(1.0, 1.0), v(1.0, 1.0), v(-1.0, 2.0), v(f64::NAN, 0.0)];
            for p in [v(0.0, 0.0), v(1.0, 1.0), v(0.3, -5.0), v(f64::NAN, 1.0)] {
                let w = weights(mode, &n, p);
                assert!(
                    w.iter().all(|x| x.is_finite() && *x >= 0.0),
                    "{mode:?} {w:?}"
                );
                assert!(
                    (w.iter().sum::<f64>() - 1.0).abs() < 1e-12,
                    "{mode:?} {w:?}"
                );
                assert_eq!(w[3], 0.0);
            }
        }
    }

    #[test]
    fn on_a_node_is_one_hot_and_coincident_nodes_split() {
        let n = [v(0.0, 0.0), v(1.0, 1.0), v(1.0, 1.0), v(-1.0, 2.0)];
        for mode in [BlendMode::FreeformCartesian, BlendMode::FreeformDirectional] {
            close(&weights(mode, &n, v(-1.0, 2.0)), &[0.0, 0.0, 0.0, 1.0]);
            close(&weights(mode, &n, v(1.0, 1.0)), &[0.0, 0.5, 0.5, 0.0]);
        }
    }

    #[test]
    fn layout_issues_are_reported() {
        let n = [v(1.0, 1.0), v(1.0, 1.0), v(2.0, 2.0)];
        let issues = layout_issues(BlendMode::SimpleDirectional, &n);
        assert!(issues.contains(&LayoutIssue::Coincident(0, 1)));
        assert!(issues.contains(&LayoutIssue::SameDirection(0, 2)));
        assert!(issues.contains(&LayoutIssue::NoOriginNode));
        let issues = layout_issues(BlendMode::FreeformCartesian, &n);
        assert_eq!(issues, vec![LayoutIssue::Coincident(0, 1)]);
        assert_eq!(
            layout_issues(BlendMode::OneD, &[]),
            vec![LayoutIssue::NoNodes]
        );
    }
}
