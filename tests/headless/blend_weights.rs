//! Blend weights against an independent evaluation of the published formulas, plus their invariants:
//! non-negative, summing to 1, one-hot on nodes, continuous along paths, mirror symmetric.

use animtune::blend::{BlendMode, weights};
use glam::DVec2;
use proptest::prelude::*;

/// Gradient band influence, written straight from Johansen 2009 §6.3 (and the issue's wording: each h_i
/// clamped to [0, 1]) with `acos` angles; shares no code with the library.
mod reference {
    pub fn unsigned_angle(a: [f64; 2], b: [f64; 2]) -> f64 {
        let la = (a[0] * a[0] + a[1] * a[1]).sqrt();
        let lb = (b[0] * b[0] + b[1] * b[1]).sqrt();
        if la == 0.0 || lb == 0.0 {
            return 0.0;
        }
        ((a[0] * b[0] + a[1] * b[1]) / (la * lb))
            .clamp(-1.0, 1.0)
            .acos()
    }

    fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
        a[0] * b[1] - a[1] * b[0]
    }

    fn len(a: [f64; 2]) -> f64 {
        a[0].hypot(a[1])
    }

    /// (v_ip, v_ij) for the polar variant.
    fn polar(pi: [f64; 2], pj: [f64; 2], p: [f64; 2]) -> ([f64; 2], [f64; 2]) {
        let zero = [0.0, 0.0];
        let m = (len(pi) + len(pj)) / 2.0;
        let (aij, aip, alpha) = if pi == zero {
            (unsigned_angle(p, pj), 0.0, 1.0)
        } else if pj == zero {
            let a = unsigned_angle(p, pi);
            (a, a, 1.0)
        } else {
            let aij = unsigned_angle(pi, pj);
            let aip = if aij <= 0.0 {
                0.0
            } else if p == zero {
                aij
            } else {
                let u = unsigned_angle(pi, p);
                if aij < std::f64::consts::PI * 0.99 && cross(pi, p) * cross(pi, pj) < 0.0 {
                    -u
                } else {
                    u
                }
            };
            (aij, aip, 2.0)
        };
        (
            [alpha * aip, (len(p) - len(pi)) / m],
            [alpha * aij, (len(pj) - len(pi)) / m],
        )
    }

    pub fn freeform(nodes: &[[f64; 2]], p: [f64; 2], polar_mode: bool) -> Vec<f64> {
        let mut h = vec![0.0; nodes.len()];
        for i in 0..nodes.len() {
            let mut best = f64::INFINITY;
            for j in 0..nodes.len() {
                if i == j {
                    continue;
                }
                let (vip, vij) = if polar_mode {
                    polar(nodes[i], nodes[j], p)
                } else {
                    (
                        [p[0] - nodes[i][0], p[1] - nodes[i][1]],
                        [nodes[j][0] - nodes[i][0], nodes[j][1] - nodes[i][1]],
                    )
                };
                let t =
                    1.0 - (vip[0] * vij[0] + vip[1] * vij[1]) / (vij[0] * vij[0] + vij[1] * vij[1]);
                best = best.min(t);
            }
            h[i] = best.clamp(0.0, 1.0);
        }
        let sum: f64 = h.iter().sum();
        h.iter().map(|x| x / sum).collect()
    }
}

fn layout() -> impl Strategy<Value = Vec<[f64; 2]>> {
    proptest::collection::vec((-3.0f64..3.0, -3.0f64..3.0), 2..10)
        .prop_map(|v| v.into_iter().map(|(x, y)| [x, y]).collect::<Vec<_>>())
        .prop_filter("nodes at least 0.2 apart", |nodes| {
            nodes.iter().enumerate().all(|(i, a)| {
                nodes[i + 1..]
                    .iter()
                    .all(|b| (a[0] - b[0]).hypot(a[1] - b[1]) > 0.2)
            })
        })
}

fn with_origin(mut nodes: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    nodes.retain(|n| n[0].hypot(n[1]) > 0.2);
    nodes.insert(0, [0.0, 0.0]);
    nodes
}

fn dv(nodes: &[[f64; 2]]) -> Vec<DVec2> {
    nodes.iter().map(|&n| DVec2::from_array(n)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn freeform_modes_match_the_independent_formulas(nodes in layout(), x in -4.0f64..4.0, y in -4.0f64..4.0) {
        for (mode, polar, nodes) in [
            (BlendMode::FreeformCartesian, false, nodes.clone()),
            (BlendMode::FreeformDirectional, true, nodes.clone()),
            (BlendMode::FreeformDirectional, true, with_origin(nodes.clone())),
        ] {
            if nodes.len() < 2 {
                continue;
            }
            let got = weights(mode, &dv(&nodes), DVec2::new(x, y));
            let want = reference::freeform(&nodes, [x, y], polar);
            for (g, w) in got.iter().zip(&want) {
                prop_assert!((g - w).abs() < 1e-6, "{mode:?} {nodes:?} at ({x},{y}): {got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn weights_are_a_partition_of_unity_and_one_hot_on_nodes(nodes in layout(), x in -4.0f64..4.0, y in -4.0f64..4.0) {
        for mode in BlendMode::ALL {
            let nodes = if mode.is_directional() { with_origin(nodes.clone()) } else { nodes.clone() };
            let w = weights(mode, &dv(&nodes), DVec2::new(x, y));
            prop_assert!(w.iter().all(|&v| v >= 0.0 && v.is_finite()), "{mode:?} {w:?}");
            prop_assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{mode:?} {w:?}");
            if mode == BlendMode::OneD || mode == BlendMode::SimpleDirectional {
                continue;
            }
            for (k, n) in nodes.iter().enumerate() {
                let w = weights(mode, &dv(&nodes), DVec2::from_array(*n));
                prop_assert!((w[k] - 1.0).abs() < 1e-9, "{mode:?} node {k}: {w:?}");
            }
        }
    }

    #[test]
    fn mirroring_the_layout_mirrors_nothing_but_the_point(nodes in layout(), x in -4.0f64..4.0, y in -4.0f64..4.0) {
        for mode in BlendMode::ALL {
            let nodes = if mode.is_directional() { with_origin(nodes.clone()) } else { nodes.clone() };
            let mirrored: Vec<[f64; 2]> = nodes.iter().map(|n| [-n[0], n[1]]).collect();
            let a = weights(mode, &dv(&nodes), DVec2::new(x, y));
            let b = weights(mode, &dv(&mirrored), DVec2::new(-x, y));
            for (p, q) in a.iter().zip(&b) {
                prop_assert!((p - q).abs() < 1e-9, "{mode:?}: {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn weights_change_continuously_along_a_path(nodes in layout(), ring in ring_layout(), from in (-4.0f64..4.0, -4.0f64..4.0), to in (-4.0f64..4.0, -4.0f64..4.0)) {
        let mut xs: Vec<f64> = nodes.iter().map(|n| n[0]).collect();
        xs.sort_by(f64::total_cmp);
        let one_d_ok = xs.windows(2).all(|w| w[1] - w[0] >= 0.2);
        for (mode, nodes) in [
            (BlendMode::OneD, nodes.clone()),
            (BlendMode::FreeformCartesian, nodes.clone()),
            (BlendMode::FreeformDirectional, ring.clone()),
        ] {
            if mode == BlendMode::OneD && !one_d_ok {
                continue;
            }
            let nodes = dv(&nodes);
            let (a, b) = (DVec2::new(from.0, from.1), DVec2::new(to.0, to.1));
            let steps = 2000;
            let mut prev = weights(mode, &nodes, a);
            for s in 1..=steps {
                let w = weights(mode, &nodes, a.lerp(b, s as f64 / steps as f64));
                let jump = w.iter().zip(&prev).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
                prop_assert!(jump < 0.1, "{mode:?}: jump {jump} at step {s}");
                prev = w;
            }
        }
    }
}

/// A directional layout as locomotion sets have: an idle at the origin and nodes all around it (no gap of
/// half a turn), some with a second, faster node in the same direction. Behind a lone node (a gap over
/// 180°) the polar angle wraps and weights jump, in this formula as in Unity's.
fn ring_layout() -> impl Strategy<Value = Vec<[f64; 2]>> {
    (4usize..9).prop_flat_map(|n| {
        proptest::collection::vec(
            (
                -0.25f64..0.25,
                0.5f64..2.0,
                proptest::option::of(0.5f64..1.5),
            ),
            n,
        )
        .prop_map(move |spokes| {
            let mut out = vec![[0.0, 0.0]];
            for (k, (jitter, r, outer)) in spokes.into_iter().enumerate() {
                let a = k as f64 * std::f64::consts::TAU / n as f64 + jitter;
                out.push([r * a.cos(), r * a.sin()]);
                if let Some(extra) = outer {
                    out.push([(r + extra) * a.cos(), (r + extra) * a.sin()]);
                }
            }
            out
        })
    })
}

#[test]
fn one_d_by_hand_with_unsorted_thresholds() {
    let n = dv(&[[2.0, 0.0], [-1.0, 5.0], [0.5, -3.0]]);
    let w = weights(BlendMode::OneD, &n, DVec2::new(1.25, 100.0));
    // Between 0.5 and 2.0: t = 0.75 / 1.5 = 0.5.
    assert_eq!(w, vec![0.5, 0.0, 0.5]);
    let w = weights(BlendMode::OneD, &n, DVec2::new(-0.4, 0.0));
    // Between −1 and 0.5: t = 0.6 / 1.5 = 0.4.
    assert!(
        (w[1] - 0.6).abs() < 1e-12 && (w[2] - 0.4).abs() < 1e-12,
        "{w:?}"
    );
}

#[test]
fn freeform_directional_by_hand_speed_along_one_direction() {
    // Walk (0,1) and run (0,3) straight ahead plus an idle: at (0,2) the pair (walk, run) is purely radial:
    // m = 2, v_ij = (0, 1), v_ip = (0, 0.5) → t = 0.5 for both; the idle's band ends at walk.
    let n = dv(&[[0.0, 0.0], [0.0, 1.0], [0.0, 3.0]]);
    let w = weights(BlendMode::FreeformDirectional, &n, DVec2::new(0.0, 2.0));
    assert!(w[0].abs() < 1e-12, "{w:?}");
    assert!(
        (w[1] - 0.5).abs() < 1e-12 && (w[2] - 0.5).abs() < 1e-12,
        "{w:?}"
    );
}

#[test]
fn no_origin_node_is_a_warning_in_directional_modes() {
    let n = dv(&[[0.0, 1.0], [1.0, 0.0]]);
    for mode in [BlendMode::SimpleDirectional, BlendMode::FreeformDirectional] {
        let issues = animtune::blend::layout_issues(mode, &n);
        assert!(
            issues.contains(&animtune::blend::LayoutIssue::NoOriginNode),
            "{mode:?}"
        );
        let w = weights(mode, &n, DVec2::ZERO);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}
