//! A deterministic graph layout: stress majorization (SMACOF) on hop
//! distances, then rotation to the main axis, fitting to a canvas and
//! removing overlaps between node circles.
//!
//! Stress majorization places nodes so that their drawn distances match
//! their graph distances (Gansner, Koren and North, "Graph drawing by stress
//! majorization", 2004). It starts from a circle in node order with a small
//! jitter from a fixed-seed generator and runs a fixed number of iterations,
//! so the same graph always gives the same picture; nodes of different
//! components are kept one hop beyond the graph's diameter apart.
//!
//! ```
//! use petgraph::graph::UnGraph;
//! use report::layout::{stress, fit};
//!
//! let g = UnGraph::<(), ()>::from_edges([(0, 1), (1, 2), (2, 3)]);
//! let p = stress(&g, 200);
//! let d = |a: usize, b: usize| ((p[a].0 - p[b].0).powi(2) + (p[a].1 - p[b].1).powi(2)).sqrt();
//! assert!((d(0, 3) / d(0, 1) - 3.0).abs() < 0.05, "a path is drawn straight");
//! let placed = fit(&p, &[10.0; 4], 400.0, 300.0, 20.0);
//! assert!(placed.iter().all(|&(x, y)| (30.0..=370.0).contains(&x) && (30.0..=270.0).contains(&y)));
//! ```

use petgraph::algo::dijkstra;
use petgraph::graph::{NodeIndex, UnGraph};

/// Positions (unit-free) for the nodes of `g`, indexed like its nodes, from
/// `iterations` rounds of stress majorization.
pub fn stress<N, E>(g: &UnGraph<N, E>, iterations: usize) -> Vec<(f64, f64)> {
    let n = g.node_count();
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![(0.0, 0.0)];
    }
    // Hop distances; pairs in different components get diameter + 1.
    let mut dist = vec![vec![f64::INFINITY; n]; n];
    for (i, row) in dist.iter_mut().enumerate() {
        for (j, d) in dijkstra(g, NodeIndex::new(i), None, |_| 1.0f64) {
            row[j.index()] = d;
        }
    }
    let finite = dist
        .iter()
        .flatten()
        .copied()
        .filter(|d| d.is_finite())
        .fold(1.0f64, f64::max);
    for d in dist.iter_mut().flatten() {
        if !d.is_finite() {
            *d = finite + 1.0;
        }
    }
    // A circle in node order, jittered by a fixed-seed generator so that
    // symmetric graphs do not start on a saddle.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut jitter = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.1
    };
    let radius = finite / 2.0;
    let mut pos: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            (radius * a.cos() + jitter(), radius * a.sin() + jitter())
        })
        .collect();
    for _ in 0..iterations {
        let mut next = Vec::with_capacity(n);
        for i in 0..n {
            let (mut sx, mut sy, mut sw) = (0.0, 0.0, 0.0);
            for j in 0..n {
                if i == j {
                    continue;
                }
                let d = dist[i][j];
                let w = 1.0 / (d * d);
                let (dx, dy) = (pos[i].0 - pos[j].0, pos[i].1 - pos[j].1);
                let len = (dx * dx + dy * dy).sqrt();
                let (ux, uy) = if len > 1e-9 {
                    (dx / len, dy / len)
                } else {
                    // Coincident nodes: separate along a direction fixed by their order.
                    let a = (i * n + j) as f64;
                    (a.cos(), a.sin())
                };
                sx += w * (pos[j].0 + d * ux);
                sy += w * (pos[j].1 + d * uy);
                sw += w;
            }
            next.push((sx / sw, sy / sw));
        }
        pos = next;
    }
    main_axis_horizontal(&mut pos);
    pos
}

/// Rotate `pos` about its centroid so that its widest spread is horizontal.
fn main_axis_horizontal(pos: &mut [(f64, f64)]) {
    let n = pos.len() as f64;
    let (mx, my) = pos
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x / n, b + y / n));
    let (mut cxx, mut cyy, mut cxy) = (0.0, 0.0, 0.0);
    for &(x, y) in pos.iter() {
        cxx += (x - mx) * (x - mx);
        cyy += (y - my) * (y - my);
        cxy += (x - mx) * (y - my);
    }
    let angle = 0.5 * (2.0 * cxy).atan2(cxx - cyy);
    let (s, c) = (-angle).sin_cos();
    for p in pos.iter_mut() {
        let (x, y) = (p.0 - mx, p.1 - my);
        *p = (x * c - y * s, x * s + y * c);
    }
}

/// Most one axis is stretched beyond the other by [`fit`].
pub const MAX_STRETCH: f64 = 1.6;

/// Scale and centre `pos` into a `width × height` canvas, keeping `margin`
/// plus the largest radius (`radii`) clear of the canvas edges. Both axes
/// get the same scale, except that the one with room to spare may stretch
/// up to [`MAX_STRETCH`] times more.
pub fn fit(
    pos: &[(f64, f64)],
    radii: &[f64],
    width: f64,
    height: f64,
    margin: f64,
) -> Vec<(f64, f64)> {
    if pos.is_empty() {
        return Vec::new();
    }
    let rmax = radii.iter().copied().fold(0.0f64, f64::max);
    let pad = margin + rmax;
    let (w, h) = ((width - 2.0 * pad).max(1.0), (height - 2.0 * pad).max(1.0));
    let (x0, x1, y0, y1) = pos.iter().fold(
        (f64::MAX, f64::MIN, f64::MAX, f64::MIN),
        |(a, b, c, d), &(x, y)| (a.min(x), b.max(x), c.min(y), d.max(y)),
    );
    let (sx, sy) = (x1 - x0, y1 - y0);
    let fill = |room: f64, spread: f64| (spread > 1e-12).then(|| room / spread);
    // One scale keeps the drawn distances true; the longer axis may stretch
    // up to MAX_STRETCH times more to use a canvas of another shape.
    let (scale_x, scale_y) = match (fill(w, sx), fill(h, sy)) {
        (Some(a), Some(b)) => {
            let s = a.min(b);
            (a.min(s * MAX_STRETCH), b.min(s * MAX_STRETCH))
        }
        (Some(a), None) => (a, 0.0),
        (None, Some(b)) => (0.0, b),
        (None, None) => (0.0, 0.0),
    };
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    pos.iter()
        .map(|&(x, y)| {
            (
                width / 2.0 + (x - cx) * scale_x,
                height / 2.0 + (y - cy) * scale_y,
            )
        })
        .collect()
}

/// Push apart circles that overlap (closer than the sum of their radii plus
/// `gap`), `rounds` times, keeping every circle inside the canvas.
pub fn separate(
    pos: &mut [(f64, f64)],
    radii: &[f64],
    gap: f64,
    (width, height): (f64, f64),
    rounds: usize,
) {
    let n = pos.len();
    for _ in 0..rounds {
        let mut moved = false;
        for i in 0..n {
            for j in i + 1..n {
                let (dx, dy) = (pos[j].0 - pos[i].0, pos[j].1 - pos[i].1);
                let len = (dx * dx + dy * dy).sqrt();
                let want = radii[i] + radii[j] + gap;
                if len >= want {
                    continue;
                }
                let (ux, uy) = if len > 1e-9 {
                    (dx / len, dy / len)
                } else {
                    (1.0, 0.0)
                };
                let push = (want - len) / 2.0;
                pos[i].0 -= ux * push;
                pos[i].1 -= uy * push;
                pos[j].0 += ux * push;
                pos[j].1 += uy * push;
                moved = true;
            }
        }
        for (p, r) in pos.iter_mut().zip(radii) {
            p.0 = p.0.clamp(*r, (width - r).max(*r));
            p.1 = p.1.clamp(*r, (height - r).max(*r));
        }
        if !moved {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(p: &[(f64, f64)], a: usize, b: usize) -> f64 {
        ((p[a].0 - p[b].0).powi(2) + (p[a].1 - p[b].1).powi(2)).sqrt()
    }

    #[test]
    fn same_graph_same_positions() {
        let g = UnGraph::<(), ()>::from_edges([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (5, 6)]);
        let a = stress(&g, 300);
        let b = stress(&g, 300);
        assert_eq!(a, b);
        assert!(a.iter().all(|p| p.0.is_finite() && p.1.is_finite()));
    }

    #[test]
    fn neighbours_are_closer_than_strangers() {
        // A star of 5 leaves around 0, and a far path 6-7-8 attached to leaf 1.
        let g = UnGraph::<(), ()>::from_edges([
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (0, 5),
            (1, 6),
            (6, 7),
            (7, 8),
        ]);
        let p = stress(&g, 300);
        for leaf in 1..=5 {
            assert!(d(&p, 0, leaf) < d(&p, 0, 8), "leaf {leaf}");
        }
        assert!(d(&p, 1, 6) < d(&p, 2, 8));
    }

    #[test]
    fn components_do_not_coincide() {
        let g = UnGraph::<(), ()>::from_edges([(0, 1), (2, 3), (4, 5)]);
        let p = stress(&g, 300);
        for i in 0..6 {
            for j in i + 1..6 {
                assert!(d(&p, i, j) > 0.5, "{i} {j}: {p:?}");
            }
        }
    }

    #[test]
    fn widest_spread_is_horizontal() {
        let g = UnGraph::<(), ()>::from_edges([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]);
        let p = stress(&g, 300);
        let (w, h) = p.iter().fold((0.0f64, 0.0f64), |(w, h), a| {
            (w.max(a.0.abs()), h.max(a.1.abs()))
        });
        assert!(w > 3.0 * h, "{p:?}");
    }

    #[test]
    fn separation_removes_overlaps_within_the_canvas() {
        let mut p = vec![
            (100.0, 100.0),
            (101.0, 100.0),
            (100.0, 100.0),
            (300.0, 50.0),
        ];
        let r = [20.0, 30.0, 10.0, 5.0];
        separate(&mut p, &r, 4.0, (400.0, 300.0), 200);
        for i in 0..p.len() {
            assert!(p[i].0 >= r[i] && p[i].0 <= 400.0 - r[i]);
            assert!(p[i].1 >= r[i] && p[i].1 <= 300.0 - r[i]);
            for j in i + 1..p.len() {
                assert!(d(&p, i, j) >= r[i] + r[j] + 4.0 - 1e-6, "{i} {j}: {p:?}");
            }
        }
    }

    #[test]
    fn tiny_graphs() {
        assert!(stress(&UnGraph::<(), ()>::default(), 10).is_empty());
        let mut one = UnGraph::<(), ()>::default();
        one.add_node(());
        assert_eq!(stress(&one, 10), vec![(0.0, 0.0)]);
        let placed = fit(&[(0.0, 0.0)], &[10.0], 200.0, 100.0, 5.0);
        assert_eq!(placed, vec![(100.0, 50.0)]);
    }
}
