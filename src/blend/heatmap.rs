//! Influence maps: the weight of every node over a grid covering the blend space, and their colouring.
//!
//! The freeform modes use a fast `f32` path. Each pair's gradient band term is linear (Cartesian) or linear in
//! the angle and radius of the pixel (polar), so its coefficients are computed once. The grid is cut into tiles
//! of 32 × 32 pixels; over a tile, each term's range is bounded, a node with a term below zero everywhere has no
//! weight there (and stores nothing), and of a live node's terms only those that can be the least somewhere in
//! the tile are evaluated, as vectorizable runs over the tile's pixels. Bands of tiles run in parallel. Pixels
//! where that path has no answer (the origin in polar mode, a zero sum) fall back to the exact `f64` weights.

use std::f32::consts::{PI, TAU};

use glam::DVec2;
use rayon::prelude::*;

use super::weights::{BlendMode, angle_between, compute_weights};

/// Node weights sampled on a square grid over a rectangle of the space.
///
/// Stored sparsely: the grid is cut into tiles of [`TILE`] pixels a side, and a node has a block of weights only in
/// the tiles where it may weigh something (elsewhere its weight is 0). A 32-node locomotion space at 512 × 512
/// keeps about a fifth of the dense 33 MB.
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
    /// Per tile (row-major from the top-left tile) and node: where the node's block starts in `blocks`, or
    /// [`NO_BLOCK`] where it has no weight in the tile.
    block_start: Vec<usize>,
    /// Blocks of `TILE` × `TILE` weights, row-major within their tile (the pixels past the grid's edge unused).
    blocks: Vec<f32>,
}

/// A node's entry in a tile where it has no weight.
const NO_BLOCK: usize = usize::MAX;

impl Heatmap {
    /// The point of the space at the centre of a pixel (row 0 is the top, at `max.y`).
    pub fn pixel_point(&self, row: usize, col: usize) -> DVec2 {
        pixel_point(self.min, self.max, self.size, row, col)
    }

    /// The weight of `node` at a pixel.
    pub fn weight(&self, node: usize, row: usize, col: usize) -> f32 {
        let tile = (row / TILE) * self.size.div_ceil(TILE) + col / TILE;
        match self.block_start[tile * self.nodes + node] {
            NO_BLOCK => 0.0,
            start => self.blocks[start + (row % TILE) * TILE + col % TILE],
        }
    }

    /// How many weights the map holds (`TILE`² per node in each tile where it weighs something).
    pub fn stored_weights(&self) -> usize {
        self.blocks.len()
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
    /// For each node i, its pair terms with every other finite node j (none where i is not finite).
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
        for i in 0..nodes.len() {
            let mut row = Vec::new();
            for &j in finite.iter().filter(|_| nodes[i].is_finite()) {
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

    /// Whether the fast `f32` path applies: a freeform mode with two finite nodes or more.
    fn is_fast(&self) -> bool {
        matches!(
            self.mode,
            BlendMode::FreeformCartesian | BlendMode::FreeformDirectional
        ) && self.finite.len() >= 2
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
    let tiles = size.div_ceil(TILE);
    let plan = Plan::new(mode, nodes);
    // Each band of rows one tile high gets its tiles' plan, then its own run of blocks.
    let bands: Vec<TilePlan> = (0..tiles)
        .into_par_iter()
        .map(|tile_row| TilePlan::new(&plan, min, max, size, tile_row))
        .collect();
    let mut block_start = Vec::with_capacity(tiles * tiles * n);
    let mut stored = 0;
    for band in &bands {
        for live in &band.live {
            block_start.push(match live {
                Some(live) => stored + live.block * TILE_PIXELS,
                None => NO_BLOCK,
            });
        }
        stored += band.blocks * TILE_PIXELS;
    }
    let mut blocks = vec![0.0f32; stored];
    let mut parts = Vec::with_capacity(tiles);
    let mut rest = &mut blocks[..];
    for band in &bands {
        let (part, after) = rest.split_at_mut(band.blocks * TILE_PIXELS);
        parts.push(part);
        rest = after;
    }
    parts
        .into_par_iter()
        .zip(&bands)
        .enumerate()
        .for_each(|(tile_row, (part, band))| {
            for tile_col in 0..tiles {
                fill_tile(&plan, band, min, max, size, (tile_row, tile_col), part);
            }
        });
    Heatmap {
        size,
        nodes: n,
        min,
        max,
        block_start,
        blocks,
    }
}

/// A live node's block of weights over its tile.
fn block(part: &mut [f32], live: LiveNode) -> &mut [f32] {
    &mut part[live.block * TILE_PIXELS..(live.block + 1) * TILE_PIXELS]
}

/// Writes the exact `f64` weights at point `p`, pixel `k` of tile `tile_col` of the band, into the blocks of the
/// nodes that have one there.
fn exact_into(plan: &Plan, band: &TilePlan, p: DVec2, tile_col: usize, k: usize, part: &mut [f32]) {
    let mut w = Vec::new();
    compute_weights(plan.mode, &plan.nodes, p, &mut w);
    for (node, v) in w.iter().enumerate() {
        if let Some(live) = band.get(tile_col, node) {
            block(part, live)[k] = *v as f32;
        }
    }
}

/// Pixels in a tile.
const TILE_PIXELS: usize = TILE * TILE;

/// Fills the blocks of tile (`tile_row`, `tile_col`): each live node's band terms over the tile's pixels in a
/// row-major run, then the normalisation by their sum. Pixels past the grid's edge are computed and unused.
fn fill_tile(
    plan: &Plan,
    band: &TilePlan,
    min: DVec2,
    max: DVec2,
    size: usize,
    (tile_row, tile_col): (usize, usize),
    part: &mut [f32],
) {
    let pixel = |k: usize| (tile_row * TILE + k / TILE, tile_col * TILE + k % TILE);
    let inside = |k: usize| {
        let (row, col) = pixel(k);
        row < size && col < size
    };
    // The exact weights at pixel k of the tile.
    let exact = |k: usize, part: &mut [f32]| {
        let (row, col) = pixel(k);
        let p = pixel_point(min, max, size, row, col);
        exact_into(plan, band, p, tile_col, k, part);
    };
    if !plan.is_fast() {
        for k in (0..TILE_PIXELS).filter(|&k| inside(k)) {
            exact(k, part);
        }
        return;
    }
    let (xs, ys): (Vec<f32>, Vec<f32>) = (0..TILE_PIXELS)
        .map(|k| {
            let (row, col) = pixel(k);
            let p = pixel_point(min, max, size, row, col);
            (p.x as f32, p.y as f32)
        })
        .unzip();
    let polar = plan.mode == BlendMode::FreeformDirectional;
    let (r, th): (Vec<f32>, Vec<f32>) = if polar {
        xs.iter()
            .zip(&ys)
            .map(|(&x, &y)| ((x * x + y * y).sqrt(), y.atan2(x)))
            .unzip()
    } else {
        (Vec::new(), Vec::new())
    };
    let mut sum = vec![0.0f32; TILE_PIXELS];
    let (mut delta, mut abs_delta) = (vec![0.0f32; TILE_PIXELS], vec![0.0f32; TILE_PIXELS]);
    let mut other = vec![0.0f32; TILE_PIXELS];
    for &i in &plan.finite {
        // A node with no weight over the tile has no block there.
        let Some(live) = band.get(tile_col, i) else {
            continue;
        };
        let ri = plan.radius[i];
        let h = block(part, live);
        h.fill(1.0);
        if polar {
            signed_angles(&th, plan.theta[i], &mut delta, &mut abs_delta);
        }
        for &pair in band.pairs(live) {
            let (j, term) = plan.pairs[i][usize::from(pair)];
            match term {
                PairTerm::Linear { c, cx, cy } => {
                    for ((h, &x), &y) in h.iter_mut().zip(&xs).zip(&ys) {
                        *h = h.min(c + cx * x + cy * y);
                    }
                }
                PairTerm::Polar { a, b, signed } => {
                    let (angle, a) = if signed == 0.0 {
                        (&abs_delta, a)
                    } else {
                        (&delta, a * signed)
                    };
                    let c = 1.0 + b * ri;
                    for ((h, &ang), &rp) in h.iter_mut().zip(angle).zip(&r) {
                        *h = h.min(c - a * ang - b * rp);
                    }
                }
                PairTerm::FromOrigin { inv_rj4 } => {
                    signed_angles(&th, plan.theta[j], &mut other, &mut Vec::new());
                    for ((h, &dj), &rp) in h.iter_mut().zip(&other).zip(&r) {
                        *h = h.min(1.0 - inv_rj4 * rp / (dj * dj + 4.0));
                    }
                }
                PairTerm::ToOrigin { inv_ri4 } => {
                    for ((h, &di), &rp) in h.iter_mut().zip(&abs_delta).zip(&r) {
                        let a2 = di * di;
                        *h = h.min(1.0 - (a2 - inv_ri4 * (rp - ri)) / (a2 + 4.0));
                    }
                }
            }
        }
        for (h, s) in h.iter_mut().zip(&mut sum) {
            *h = h.max(0.0);
            *s += *h;
        }
    }
    // Pixels the fast path has no answer for (a zero or non-finite sum, the origin in polar mode) take the
    // exact weights; the others are normalised.
    let fallback: Vec<bool> = (0..TILE_PIXELS)
        .map(|k| {
            let at_origin = polar && r[k] == 0.0;
            inside(k) && (!(sum[k] > 0.0 && sum[k].is_finite()) || at_origin)
        })
        .collect();
    for s in sum.iter_mut() {
        *s = 1.0 / *s;
    }
    for &i in &plan.finite {
        if let Some(live) = band.get(tile_col, i) {
            for (h, inv) in block(part, live).iter_mut().zip(&sum) {
                *h *= inv;
            }
        }
    }
    for k in (0..TILE_PIXELS).filter(|&k| fallback[k]) {
        exact(k, part);
    }
}

/// The signed angle from a node at angle `from` to each pixel at angle `th`, in (−π, π], and (where `abs_delta`
/// is as long) its magnitude.
fn signed_angles(th: &[f32], from: f32, delta: &mut [f32], abs_delta: &mut [f32]) {
    for (t, d) in th.iter().zip(delta.iter_mut()) {
        let v = t - from;
        let v = if v > PI { v - TAU } else { v };
        *d = if v <= -PI { v + TAU } else { v };
    }
    for (d, m) in delta.iter().zip(abs_delta.iter_mut()) {
        *m = d.abs();
    }
}

/// The pixels per side of a tile: the unit over which a node is found to have no weight (and gets no block of
/// weights), and over which its pair terms that cannot be the least are dropped.
pub const TILE: usize = 32;

/// How far a bound of a pair term may be trusted against the `f32` terms of the pixels themselves.
const BOUND_MARGIN: f32 = 1e-4;

/// A node that may weigh something in a tile: its block among its band's, and the span of the band's `pairs`
/// holding the positions (in the plan's pair list of the node) of the terms that can decide its weight there.
#[derive(Clone, Copy, Debug)]
struct LiveNode {
    block: usize,
    pairs: (u32, u32),
}

/// For every tile of one row of tiles (a band) and every node: whether the node may have weight there and,
/// where it may, which of its pair terms can be the least somewhere in the tile (a term whose lowest value over
/// the tile is above another's highest never decides the node's weight there).
struct TilePlan {
    nodes: usize,
    /// Per tile of the band and node.
    live: Vec<Option<LiveNode>>,
    pairs: Vec<u16>,
    /// How many blocks the band holds.
    blocks: usize,
}

impl TilePlan {
    /// Node `node` in the band's tile `tile_col`, where it may weigh something.
    fn get(&self, tile_col: usize, node: usize) -> Option<LiveNode> {
        self.live[tile_col * self.nodes + node]
    }

    /// The pair terms that decide a live node's weight in its tile.
    fn pairs(&self, live: LiveNode) -> &[u16] {
        &self.pairs[live.pairs.0 as usize..live.pairs.1 as usize]
    }

    /// The plan of the tiles in row `tr` (counted from the top). Outside the fast path every node is live in
    /// every tile (the exact weights decide).
    fn new(plan: &Plan, min: DVec2, max: DVec2, size: usize, tr: usize) -> Self {
        let tiles = size.div_ceil(TILE);
        let nodes = plan.nodes.len();
        let mut out = TilePlan {
            nodes,
            live: Vec::with_capacity(tiles * nodes),
            pairs: Vec::new(),
            blocks: 0,
        };
        let mut ranges = Vec::new();
        for tc in 0..tiles {
            let (r0, r1) = (tr * TILE, ((tr + 1) * TILE).min(size) - 1);
            let (c0, c1) = (tc * TILE, ((tc + 1) * TILE).min(size) - 1);
            let (a, b) = (
                pixel_point(min, max, size, r1, c0),
                pixel_point(min, max, size, r0, c1),
            );
            let tile = plan
                .is_fast()
                .then(|| Tile::of(plan, [a.x, b.x], [a.y, b.y]));
            for i in 0..nodes {
                let pairs = match &tile {
                    None => Some(0..0),
                    Some(_) if !plan.nodes[i].is_finite() => None,
                    Some(tile) => {
                        let ri = plan.radius[i];
                        ranges.clear();
                        ranges.extend(
                            plan.pairs[i]
                                .iter()
                                .map(|&(j, term)| tile.term_range(term, i, j, ri)),
                        );
                        let least_high = ranges.iter().fold(1.0f32, |m, r| m.min(r[1]));
                        (least_high >= -BOUND_MARGIN).then(|| {
                            let start = out.pairs.len();
                            out.pairs.extend(
                                (0..ranges.len())
                                    .filter(|&p| ranges[p][0] <= least_high + BOUND_MARGIN)
                                    .map(|p| p as u16),
                            );
                            start..out.pairs.len()
                        })
                    }
                };
                out.live.push(pairs.map(|span| {
                    out.blocks += 1;
                    LiveNode {
                        block: out.blocks - 1,
                        pairs: (span.start as u32, span.end as u32),
                    }
                }));
            }
        }
        out
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

    /// The lowest and highest values node `i`'s band term with node `j` may take over the tile (|p_i| = `ri`).
    fn term_range(&self, term: PairTerm, i: usize, j: usize, ri: f32) -> [f32; 2] {
        let span = |u: f32, v: f32| [u.min(v), u.max(v)];
        let [r0, r1] = self.r;
        match term {
            PairTerm::Linear { c, cx, cy } => {
                let (x, y) = (
                    span(cx * self.x[0], cx * self.x[1]),
                    span(cy * self.y[0], cy * self.y[1]),
                );
                [c + x[0] + y[0], c + x[1] + y[1]]
            }
            PairTerm::Polar { a, b, signed } => {
                let ([lo, hi], a) = if signed == 0.0 {
                    (self.abs_delta[i], a)
                } else {
                    (self.delta[i], a * signed)
                };
                let angle = span(a * lo, a * hi);
                let radial = span(b * (r0 - ri), b * (r1 - ri));
                [1.0 - angle[1] - radial[1], 1.0 - angle[0] - radial[0]]
            }
            PairTerm::FromOrigin { inv_rj4 } => {
                let [d0, d1] = self.abs_delta[j];
                [
                    1.0 - inv_rj4 * r1 / (d0 * d0 + 4.0),
                    1.0 - inv_rj4 * r0 / (d1 * d1 + 4.0),
                ]
            }
            PairTerm::ToOrigin { inv_ri4 } => {
                // t = (4 + k(|p| − |p_i|)) / (angle² + 4) with k > 0: the numerator's sign picks the angle.
                let [a0, a1] = self.abs_delta[i];
                let over = |top: f32, low: bool| {
                    let big = top >= 0.0;
                    let a = if big == low { a1 } else { a0 };
                    top / (a * a + 4.0)
                };
                [
                    over(4.0 + inv_ri4 * (r0 - ri), true),
                    over(4.0 + inv_ri4 * (r1 - ri), false),
                ]
            }
        }
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

/// The colour of each node of `space`, from its clip's name (and, for a clip placed twice, which placement it
/// is): a node keeps its colour when others are added, removed or reordered.
pub fn node_colors(space: &crate::blend::BlendSpace) -> Vec<[u8; 3]> {
    space
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let repeat = space.nodes[..i].iter().filter(|o| o.clip == n.clip).count();
            // FNV-1a over the name, then the placement.
            let mut h: u32 = 0x811c_9dc5;
            for b in n.clip.bytes().chain(repeat.to_le_bytes()) {
                h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
            }
            node_color(h as usize % 4096)
        })
        .collect()
}

/// A distinct colour per index (golden-angle hues), as sRGB bytes.
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

/// The map as RGBA bytes, row-major from the top; under [`HeatmapView::All`] node `n` in `colors[n]` (grey past
/// its end).
pub fn to_rgba(map: &Heatmap, view: HeatmapView, colors: &[[u8; 3]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(map.size * map.size * 4);
    let colors: Vec<[u8; 3]> = (0..map.nodes)
        .map(|n| colors.get(n).copied().unwrap_or([128; 3]))
        .collect();
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
            // Most nodes weigh nothing in most tiles and keep no block there.
            let dense = 160 * 160 * nodes.len();
            assert!(
                map.stored_weights() * 2 < dense,
                "{mode:?}: {} of {dense}",
                map.stored_weights()
            );
        }
    }

    /// A node without a position and two nodes on one spot: the map still holds the exact weights, and the node
    /// without a position weighs nothing.
    #[test]
    fn odd_layouts_match_exact_weights() {
        let mut nodes = layout();
        nodes.push(DVec2::new(f64::NAN, 1.0));
        nodes.push(DVec2::new(1.2, 0.0));
        for mode in BlendMode::ALL {
            let map = compute(mode, &nodes, DVec2::splat(-3.0), DVec2::splat(3.0), 45);
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
        let colors: Vec<[u8; 3]> = (0..4).map(node_color).collect();
        let img = to_rgba(&map, HeatmapView::Node(0), &colors);
        // Left column: node 0 dominates (bright); right column: dark.
        assert!(img[0] as u32 + img[1] as u32 > img[12] as u32 + img[13] as u32);
        let all = to_rgba(&map, HeatmapView::All, &colors);
        let c0 = node_color(0);
        // At the far left only node 0 contributes, so the colour is close to its own.
        assert!((all[0] as i32 - c0[0] as i32).abs() < 80);
    }

    #[test]
    fn a_nodes_colour_stays_when_another_node_is_removed() {
        let mut space = crate::demo::locomotion::default_blend_space();
        assert!(space.nodes.len() > 3);
        let before = node_colors(&space);
        let kept: Vec<[u8; 3]> = before[1..].to_vec();
        space.nodes.remove(0);
        assert_eq!(node_colors(&space), kept);
        // Two placements of one clip get two colours.
        space.nodes.push(space.nodes[0].clone());
        let colors = node_colors(&space);
        assert_ne!(colors[0], colors[colors.len() - 1]);
    }
}
