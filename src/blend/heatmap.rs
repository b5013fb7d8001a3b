//! Influence maps: the weight of every node over a grid covering the blend space, and their colouring.
//!
//! The freeform modes use a fast `f32` path: each pair's gradient band term is linear (Cartesian) or linear
//! in the angle and radius of the pixel (polar), so its coefficients are computed once and every row of
//! pixels is a few vectorizable loops; rows run in parallel. Pixels where that path has no answer (the
//! origin in polar mode, a zero sum) fall back to the exact `f64` weights.

use std::f32::consts::{PI, TAU};

use glam::DVec2;
use rayon::prelude::*;

use super::weights::{BlendMode, angle_between, compute_weights};

/// Node weights sampled on a square grid over a rectangle of the space.
#[derive(Clone, Debug, PartialEq)]
pub struct Heatmap {
    /// Pixels per side.
    pub size: usize,
    /// Number of nodes.
    pub nodes: usize,
    /// Lower-left corner of the covered rectangle (x min, y min).
    pub min: DVec2,
    /// Upper-right corner (x max, y max).
    pub max: DVec2,
    /// Weights, row-major from the top row, each row holding every node's `size` values in turn.
    pub weights: Vec<f32>,
}

impl Heatmap {
    /// The point of the space at the centre of a pixel (row 0 is the top, at `max.y`).
    pub fn pixel_point(&self, row: usize, col: usize) -> DVec2 {
        pixel_point(self.min, self.max, self.size, row, col)
    }

    /// The weight of `node` at a pixel.
    pub fn weight(&self, node: usize, row: usize, col: usize) -> f32 {
        self.weights[(row * self.nodes + node) * self.size + col]
    }
}

fn pixel_point(min: DVec2, max: DVec2, size: usize, row: usize, col: usize) -> DVec2 {
    let fx = (col as f64 + 0.5) / size as f64;
    let fy = (row as f64 + 0.5) / size as f64;
    DVec2::new(min.x + fx * (max.x - min.x), max.y - fy * (max.y - min.y))
}

/// One pair's gradient band term as a function of the pixel.
#[derive(Clone, Copy, Debug)]
enum PairTerm {
    /// t = c + cx·x + cy·y (Cartesian).
    Linear { c: f32, cx: f32, cy: f32 },
    /// t = 1 − a·(signed or unsigned angle from node i to p) − b·(|p| − |p_i|) (polar, neither at the origin).
    Polar { a: f32, b: f32, signed: f32 },
    /// Node i at the origin: t = 1 − (4|p|/|p_j|) / (angle(p, p_j)² + 4).
    FromOrigin { inv_rj4: f32 },
    /// Node j at the origin: t = 1 − (angle(p, p_i)² − 4(|p| − |p_i|)/|p_i|) / (angle(p, p_i)² + 4).
    ToOrigin { inv_ri4: f32 },
}

/// Precomputed per-node and per-pair data for one layout.
struct Plan {
    mode: BlendMode,
    nodes: Vec<DVec2>,
    finite: Vec<usize>,
    theta: Vec<f32>,
    radius: Vec<f32>,
    /// For each finite i (by position in `finite`), its pair terms with every other finite j.
    pairs: Vec<Vec<(usize, PairTerm)>>,
}

impl Plan {
    fn new(mode: BlendMode, nodes: &[DVec2]) -> Self {
        let finite: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].is_finite()).collect();
        let theta = nodes
            .iter()
            .map(|n| n.y.atan2(n.x) as f32)
            .collect::<Vec<_>>();
        let radius = nodes.iter().map(|n| n.length() as f32).collect::<Vec<_>>();
        let mut pairs = Vec::with_capacity(finite.len());
        for &i in &finite {
            let mut row = Vec::new();
            for &j in &finite {
                if i == j {
                    continue;
                }
                if let Some(term) = pair_term(mode, nodes[i], nodes[j]) {
                    row.push((j, term));
                }
            }
            pairs.push(row);
        }
        Plan {
            mode,
            nodes: nodes.to_vec(),
            finite,
            theta,
            radius,
            pairs,
        }
    }
}

fn pair_term(mode: BlendMode, pi: DVec2, pj: DVec2) -> Option<PairTerm> {
    if pi == pj {
        return None;
    }
    if mode == BlendMode::FreeformCartesian {
        let d = pj - pi;
        let l2 = d.length_squared();
        return Some(PairTerm::Linear {
            c: (1.0 + pi.dot(d) / l2) as f32,
            cx: (-d.x / l2) as f32,
            cy: (-d.y / l2) as f32,
        });
    }
    let (ri, rj) = (pi.length(), pj.length());
    if pi == DVec2::ZERO {
        return Some(PairTerm::FromOrigin {
            inv_rj4: (4.0 / rj) as f32,
        });
    }
    if pj == DVec2::ZERO {
        return Some(PairTerm::ToOrigin {
            inv_ri4: (4.0 / ri) as f32,
        });
    }
    let m = (ri + rj) / 2.0;
    let a_ij = angle_between(pi, pj);
    let radial = (rj - ri) / m;
    let len2 = (2.0 * a_ij).powi(2) + radial * radial;
    let signed = if a_ij >= std::f64::consts::PI * 0.99 {
        0.0
    } else if pi.perp_dot(pj) >= 0.0 {
        1.0
    } else {
        -1.0
    };
    Some(PairTerm::Polar {
        a: (4.0 * a_ij / len2) as f32,
        b: (radial / m / len2) as f32,
        signed,
    })
}

/// The most pixel weights (size² × nodes) one heatmap may compute: 200 M, 800 MB of weights.
pub const MAX_HEATMAP_WORK: u64 = 200_000_000;

/// Checks a heatmap's cost (`size`² × `nodes` pixel weights) against [`MAX_HEATMAP_WORK`] before anything is
/// allocated; the error says what was asked and the limit.
pub fn check_work(size: usize, nodes: usize) -> Result<(), String> {
    let cost = (size as u64)
        .saturating_mul(size as u64)
        .saturating_mul(nodes as u64);
    if cost > MAX_HEATMAP_WORK {
        return Err(format!(
            "size {size} with {nodes} nodes: {cost} pixel weights, over the {MAX_HEATMAP_WORK} limit"
        ));
    }
    Ok(())
}

/// Computes the weights of every node over `size` × `size` pixels covering [min, max]; callers check the cost
/// with [`check_work`] first.
pub fn compute(mode: BlendMode, nodes: &[DVec2], min: DVec2, max: DVec2, size: usize) -> Heatmap {
    let n = nodes.len();
    let mut weights = vec![0.0f32; size * size * n];
    if n > 0 && size > 0 {
        let plan = Plan::new(mode, nodes);
        let alive = alive_tiles(&plan, min, max, size);
        weights
            .par_chunks_mut(n * size)
            .enumerate()
            .for_each(|(row, out)| fill_row(&plan, &alive, min, max, size, row, out));
    }
    Heatmap {
        size,
        nodes: n,
        min,
        max,
        weights,
    }
}

fn exact_into(plan: &Plan, p: DVec2, size: usize, col: usize, out: &mut [f32]) {
    let mut w = Vec::new();
    compute_weights(plan.mode, &plan.nodes, p, &mut w);
    for (node, v) in w.iter().enumerate() {
        out[node * size + col] = *v as f32;
    }
}

fn fill_row(
    plan: &Plan,
    alive: &Alive,
    min: DVec2,
    max: DVec2,
    size: usize,
    row: usize,
    out: &mut [f32],
) {
    let freeform = matches!(
        plan.mode,
        BlendMode::FreeformCartesian | BlendMode::FreeformDirectional
    );
    if !freeform || plan.finite.len() < 2 {
        for col in 0..size {
            exact_into(plan, pixel_point(min, max, size, row, col), size, col, out);
        }
        return;
    }
    let y = pixel_point(min, max, size, row, 0).y as f32;
    let xs: Vec<f32> = (0..size)
        .map(|c| pixel_point(min, max, size, row, c).x as f32)
        .collect();
    let polar = plan.mode == BlendMode::FreeformDirectional;
    let (r, th): (Vec<f32>, Vec<f32>) = if polar {
        xs.iter()
            .map(|&x| ((x * x + y * y).sqrt(), y.atan2(x)))
            .unzip()
    } else {
        (Vec::new(), Vec::new())
    };
    // Signed angle from each node to each pixel, in (−π, π].
    let delta: Vec<Vec<f32>> = if polar {
        (0..plan.nodes.len())
            .map(|i| {
                let ti = plan.theta[i];
                th.iter()
                    .map(|&t| {
                        let d = t - ti;
                        let d = if d > PI { d - TAU } else { d };
                        if d <= -PI { d + TAU } else { d }
                    })
                    .collect()
            })
            .collect()
    } else {
        Vec::new()
    };
    let abs_delta: Vec<Vec<f32>> = delta
        .iter()
        .map(|d| d.iter().map(|v| v.abs()).collect())
        .collect();
    let tile_row = row / TILE;
    let mut sum = vec![0.0f32; size];
    for (k, &i) in plan.finite.iter().enumerate() {
        let h = &mut out[i * size..(i + 1) * size];
        let ri = plan.radius[i];
        for tile_col in 0..size.div_ceil(TILE) {
            let range = tile_col * TILE..((tile_col + 1) * TILE).min(size);
            let h = &mut h[range.clone()];
            if !alive.get(tile_row, tile_col, k) {
                h.fill(0.0);
                continue;
            }
            h.fill(1.0);
            let (xs, r) = (
                &xs[range.clone()],
                if polar { &r[range.clone()] } else { &r[..] },
            );
            for &(j, term) in &plan.pairs[k] {
                match term {
                    PairTerm::Linear { c, cx, cy } => {
                        let c = c + cy * y;
                        for (h, &x) in h.iter_mut().zip(xs) {
                            *h = h.min(c + cx * x);
                        }
                    }
                    PairTerm::Polar { a, b, signed } => {
                        let angle = if signed == 0.0 {
                            &abs_delta[i]
                        } else {
                            &delta[i]
                        };
                        let a = a * if signed == 0.0 { 1.0 } else { signed };
                        for ((h, &ang), &rp) in h.iter_mut().zip(&angle[range.clone()]).zip(r) {
                            *h = h.min(1.0 - a * ang - b * (rp - ri));
                        }
                    }
                    PairTerm::FromOrigin { inv_rj4 } => {
                        for ((h, &dj), &rp) in h.iter_mut().zip(&delta[j][range.clone()]).zip(r) {
                            *h = h.min(1.0 - inv_rj4 * rp / (dj * dj + 4.0));
                        }
                    }
                    PairTerm::ToOrigin { inv_ri4 } => {
                        for ((h, &di), &rp) in h.iter_mut().zip(&abs_delta[i][range.clone()]).zip(r)
                        {
                            let a2 = di * di;
                            *h = h.min(1.0 - (a2 - inv_ri4 * (rp - ri)) / (a2 + 4.0));
                        }
                    }
                }
            }
            for h in h.iter_mut() {
                *h = h.max(0.0);
            }
        }
        for (s, h) in sum.iter_mut().zip(h.iter()) {
            *s += *h;
        }
    }
    for col in 0..size {
        let at_origin = polar && r[col] == 0.0;
        if sum[col] > 0.0 && sum[col].is_finite() && !at_origin {
            let inv = 1.0 / sum[col];
            for &i in &plan.finite {
                out[i * size + col] *= inv;
            }
        } else {
            exact_into(plan, pixel_point(min, max, size, row, col), size, col, out);
        }
    }
}

/// Pixels per side of a tile: the unit over which a node is found to have no weight at all.
const TILE: usize = 32;

/// Which nodes (by position among the plan's finite nodes) may have weight in each tile.
struct Alive {
    tiles_per_side: usize,
    nodes: usize,
    may: Vec<bool>,
}

impl Alive {
    fn get(&self, tile_row: usize, tile_col: usize, k: usize) -> bool {
        self.may[(tile_row * self.tiles_per_side + tile_col) * self.nodes + k]
    }
}

/// The ranges a tile's pixel centres span, to bound a pair's band term over it: x, y, the radius, and per node the
/// signed angle from the node and its magnitude (the whole turn where the tile holds the origin or straddles the
/// angle's wrap).
struct Tile {
    x: [f32; 2],
    y: [f32; 2],
    r: [f32; 2],
    delta: Vec<[f32; 2]>,
    abs_delta: Vec<[f32; 2]>,
}

impl Tile {
    fn of(plan: &Plan, x: [f64; 2], y: [f64; 2]) -> Self {
        let near = |lo: f64, hi: f64| {
            if lo > 0.0 {
                lo
            } else if hi < 0.0 {
                -hi
            } else {
                0.0
            }
        };
        let (dx, dy) = (near(x[0], x[1]), near(y[0], y[1]));
        let corners = [(x[0], y[0]), (x[0], y[1]), (x[1], y[0]), (x[1], y[1])];
        let r_max = corners
            .iter()
            .map(|&(a, b)| (a * a + b * b).sqrt())
            .fold(0.0, f64::max);
        let holds_origin = dx == 0.0 && dy == 0.0;
        // atan2 jumps from −π to π across the negative x axis.
        let straddles_wrap = x[0] < 0.0 && y[0] < 0.0 && y[1] >= 0.0;
        let theta = (!holds_origin && !straddles_wrap).then(|| {
            corners
                .iter()
                .map(|&(a, b)| b.atan2(a))
                .fold([f64::INFINITY, f64::NEG_INFINITY], |[lo, hi], t| {
                    [lo.min(t), hi.max(t)]
                })
        });
        let pi = std::f64::consts::PI;
        let (delta, abs_delta) = plan
            .theta
            .iter()
            .map(|&ti| {
                let whole = ([-PI, PI], [0.0, PI]);
                let Some([t0, t1]) = theta else {
                    return whole;
                };
                let (mut lo, mut hi) = (t0 - f64::from(ti), t1 - f64::from(ti));
                if lo > pi {
                    lo -= 2.0 * pi;
                    hi -= 2.0 * pi;
                } else if hi <= -pi {
                    lo += 2.0 * pi;
                    hi += 2.0 * pi;
                }
                if !(lo > -pi && hi <= pi) {
                    return whole;
                }
                let abs = if lo >= 0.0 {
                    [lo, hi]
                } else if hi <= 0.0 {
                    [-hi, -lo]
                } else {
                    [0.0, (-lo).max(hi)]
                };
                ([lo as f32, hi as f32], [abs[0] as f32, abs[1] as f32])
            })
            .unzip();
        Tile {
            x: [x[0] as f32, x[1] as f32],
            y: [y[0] as f32, y[1] as f32],
            r: [(dx * dx + dy * dy).sqrt() as f32, r_max as f32],
            delta,
            abs_delta,
        }
    }

    /// An upper bound of node `i`'s band term with node `j` over the tile (|p_i| = `ri`).
    fn term_bound(&self, term: PairTerm, i: usize, j: usize, ri: f32) -> f32 {
        let [r0, r1] = self.r;
        match term {
            PairTerm::Linear { c, cx, cy } => {
                c + (cx * self.x[0]).max(cx * self.x[1]) + (cy * self.y[0]).max(cy * self.y[1])
            }
            PairTerm::Polar { a, b, signed } => {
                let ([lo, hi], a) = if signed == 0.0 {
                    (self.abs_delta[i], a)
                } else {
                    (self.delta[i], a * signed)
                };
                let least_angle = (a * lo).min(a * hi);
                let least_radial = (b * (r0 - ri)).min(b * (r1 - ri));
                1.0 - least_angle - least_radial
            }
            PairTerm::FromOrigin { inv_rj4 } => {
                let dj = self.abs_delta[j][1];
                1.0 - inv_rj4 * r0 / (dj * dj + 4.0)
            }
            PairTerm::ToOrigin { inv_ri4 } => {
                let [a0, a1] = self.abs_delta[i];
                let top = 4.0 + inv_ri4 * (r1 - ri);
                if top <= 0.0 {
                    top / (a1 * a1 + 4.0)
                } else {
                    top / (a0 * a0 + 4.0)
                }
            }
        }
    }
}

/// For every tile and finite node: false where some band term of the node is below zero over the whole tile, so
/// its weight there is 0 (with a margin for the f32 rounding of the pixels' own terms).
fn alive_tiles(plan: &Plan, min: DVec2, max: DVec2, size: usize) -> Alive {
    let tiles = size.div_ceil(TILE);
    let nodes = plan.finite.len();
    let mut may = vec![true; tiles * tiles * nodes];
    let freeform = matches!(
        plan.mode,
        BlendMode::FreeformCartesian | BlendMode::FreeformDirectional
    );
    if freeform {
        for tr in 0..tiles {
            for tc in 0..tiles {
                let (r0, r1) = (tr * TILE, ((tr + 1) * TILE).min(size) - 1);
                let (c0, c1) = (tc * TILE, ((tc + 1) * TILE).min(size) - 1);
                let (a, b) = (
                    pixel_point(min, max, size, r1, c0),
                    pixel_point(min, max, size, r0, c1),
                );
                let tile = Tile::of(plan, [a.x, b.x], [a.y, b.y]);
                for (k, &i) in plan.finite.iter().enumerate() {
                    let ri = plan.radius[i];
                    let dead = plan.pairs[k]
                        .iter()
                        .any(|&(j, term)| tile.term_bound(term, i, j, ri) < -1e-5);
                    may[(tr * tiles + tc) * nodes + k] = !dead;
                }
            }
        }
    }
    Alive {
        tiles_per_side: tiles,
        nodes,
        may,
    }
}

/// What an influence map image shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeatmapView {
    /// One node's weight, on a colour ramp from dark (0) to bright yellow (1).
    Node(usize),
    /// Every node in its own colour, brightness = its weight.
    All,
}

/// A distinct colour per node (golden-angle hues), as sRGB bytes.
pub fn node_color(node: usize) -> [u8; 3] {
    let h = (node as f32 * 137.508).rem_euclid(360.0) / 60.0;
    let (s, v) = (0.75, 0.95);
    let c = v * s;
    let x = c * (1.0 - (h.rem_euclid(2.0) - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b].map(|u| ((u + m) * 255.0).round() as u8)
}

/// Colour ramp for one weight in [0, 1]: near-black blue through magenta and orange to yellow.
pub fn ramp(w: f32) -> [u8; 3] {
    const STOPS: [[f32; 3]; 5] = [
        [0.02, 0.02, 0.08],
        [0.25, 0.05, 0.45],
        [0.72, 0.18, 0.42],
        [0.98, 0.55, 0.12],
        [0.99, 0.96, 0.45],
    ];
    let w = if w.is_finite() {
        w.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let f = w * (STOPS.len() - 1) as f32;
    let k = (f as usize).min(STOPS.len() - 2);
    let t = f - k as f32;
    let mut out = [0u8; 3];
    for c in 0..3 {
        out[c] = ((STOPS[k][c] * (1.0 - t) + STOPS[k + 1][c] * t) * 255.0).round() as u8;
    }
    out
}

/// The map as RGBA bytes, row-major from the top.
pub fn to_rgba(map: &Heatmap, view: HeatmapView) -> Vec<u8> {
    let mut out = Vec::with_capacity(map.size * map.size * 4);
    let colors: Vec<[u8; 3]> = (0..map.nodes).map(node_color).collect();
    for row in 0..map.size {
        for col in 0..map.size {
            let rgb = match view {
                HeatmapView::Node(n) if n < map.nodes => ramp(map.weight(n, row, col)),
                HeatmapView::Node(_) => ramp(0.0),
                HeatmapView::All => {
                    let mut acc = [0.0f32; 3];
                    for (n, c) in colors.iter().enumerate() {
                        let w = map.weight(n, row, col);
                        for k in 0..3 {
                            acc[k] += w * c[k] as f32;
                        }
                    }
                    acc.map(|v| v.round().clamp(0.0, 255.0) as u8)
                }
            };
            out.extend_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Vec<DVec2> {
        vec![
            DVec2::new(0.0, 0.0),
            DVec2::new(0.0, 1.4),
            DVec2::new(0.0, 3.5),
            DVec2::new(0.0, -1.2),
            DVec2::new(1.2, 0.0),
            DVec2::new(-1.2, 0.0),
            DVec2::new(1.0, 1.0),
            DVec2::new(-1.0, 1.0),
        ]
    }

    /// Every pixel's weights within 2e-4 of the exact `f64` weights at its point.
    fn assert_matches_exact(mode: BlendMode, nodes: &[DVec2], map: &Heatmap) {
        let mut exact = Vec::new();
        for row in 0..map.size {
            for col in 0..map.size {
                compute_weights(mode, nodes, map.pixel_point(row, col), &mut exact);
                for (n, w) in exact.iter().enumerate() {
                    let got = map.weight(n, row, col) as f64;
                    assert!(
                        (got - w).abs() < 2e-4,
                        "{mode:?} pixel ({row},{col}) node {n}: {got} vs {w}"
                    );
                }
            }
        }
    }

    #[test]
    fn fast_path_matches_exact_weights_at_every_pixel() {
        for mode in BlendMode::ALL {
            let nodes = layout();
            let (min, max) = (DVec2::new(-4.0, -4.0), DVec2::new(4.0, 4.0));
            let map = compute(mode, &nodes, min, max, 33);
            assert_matches_exact(mode, &nodes, &map);
        }
    }

    /// The tiles' pruning drops only nodes that have no weight: a 32-node locomotion layout (rings of eight, as
    /// the benchmark's) at 160 x 160 pixels, five tiles a side, against the exact weights at every pixel.
    #[test]
    fn pruned_tiles_match_exact_weights_on_32_nodes() {
        let mut nodes = vec![DVec2::ZERO];
        for k in 0..31 {
            let ring = (k / 8) as f64 + 1.0;
            let a = (k % 8) as f64 * std::f64::consts::TAU / 8.0 + 0.1 * ring;
            nodes.push(DVec2::new(a.cos(), a.sin()) * 1.3 * ring);
        }
        for mode in [BlendMode::FreeformDirectional, BlendMode::FreeformCartesian] {
            let (min, max) = (DVec2::splat(-4.5), DVec2::splat(4.5));
            let map = compute(mode, &nodes, min, max, 160);
            assert_matches_exact(mode, &nodes, &map);
        }
    }

    #[test]
    fn colours_follow_weights() {
        let nodes = [DVec2::new(-1.0, 0.0), DVec2::new(1.0, 0.0)];
        let map = compute(
            BlendMode::FreeformCartesian,
            &nodes,
            DVec2::splat(-1.0),
            DVec2::splat(1.0),
            4,
        );
        let img = to_rgba(&map, HeatmapView::Node(0));
        // Left column: node 0 dominates (bright); right column: dark.
        assert!(img[0] as u32 + img[1] as u32 > img[12] as u32 + img[13] as u32);
        let all = to_rgba(&map, HeatmapView::All);
        let c0 = node_color(0);
        // At the far left only node 0 contributes, so the colour is close to its own.
        assert!((all[0] as i32 - c0[0] as i32).abs() < 80);
    }
}
