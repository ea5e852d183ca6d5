//! Combining independent parts under shared budgets: a multiple-choice
//! knapsack over per-part frontiers.
//!
//! Each part (a connected component of the table–edge graph) offers a
//! [`Frontier`] of options; a plan takes exactly one option per part, and
//! costs and NPVs add up. Parts are merged one at a time: every sum of a
//! point of the merged frontier so far and a point of the next part that
//! fits the budgets is a candidate, and only the undominated candidates are
//! kept (a sweep in cost order with a prefix-maximum tree over storage
//! cost). The result is the exact Pareto frontier of whole plans, with
//! back-pointers to recover the option each part takes.
//!
//! Frontiers of sums stay small in practice (a plan's cost is a sum of table
//! sizes, and a point must beat every cheaper one). As a guard against
//! pathological inputs (thousands of parts with many options each), a merged
//! frontier above [`MAX_POINTS`] is thinned to evenly spaced points plus its
//! best one, and the result is then no longer guaranteed optimal.

use crate::frontier::Frontier;

/// Most points a merged frontier keeps.
pub(crate) const MAX_POINTS: usize = 20_000;

/// A point of a merged frontier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Node {
    pub rewrite: f64,
    pub storage: f64,
    pub npv: f64,
    /// Tables that change layout.
    pub changed: usize,
    /// Index in the previous level (`u32::MAX` at the root).
    parent: u32,
    /// Index of the point taken in this level's part.
    pick: u32,
}

/// Merged frontiers, one level per part.
#[derive(Clone, Debug)]
pub(crate) struct Knapsack {
    levels: Vec<Vec<Node>>,
}

/// Prefix maximum over ranks (Fenwick tree).
struct PrefixMax(Vec<f64>);

impl PrefixMax {
    fn new(n: usize) -> Self {
        PrefixMax(vec![f64::NEG_INFINITY; n + 1])
    }
    fn update(&mut self, rank: usize, v: f64) {
        let mut i = rank + 1;
        while i < self.0.len() {
            if v > self.0[i] {
                self.0[i] = v;
            }
            i += i & i.wrapping_neg();
        }
    }
    /// Maximum over ranks 0..=rank.
    fn query(&self, rank: usize) -> f64 {
        let mut i = rank + 1;
        let mut m = f64::NEG_INFINITY;
        while i > 0 {
            m = m.max(self.0[i]);
            i -= i & i.wrapping_neg();
        }
        m
    }
}

impl Knapsack {
    /// Merge `parts` under the budgets `fits(rewrite, storage)`; NPVs within
    /// `tol` count as equal. Every part must hold its zero-cost option.
    pub fn solve(parts: &[&Frontier], fits: impl Fn(f64, f64) -> bool, tol: f64) -> Knapsack {
        let root = Node {
            rewrite: 0.0,
            storage: 0.0,
            npv: 0.0,
            changed: 0,
            parent: u32::MAX,
            pick: u32::MAX,
        };
        let mut levels = vec![vec![root]];
        for part in parts {
            let prev = levels.last().map_or(&[][..], Vec::as_slice);
            let mut cand: Vec<Node> = Vec::with_capacity(prev.len() * part.len());
            for (i, a) in prev.iter().enumerate() {
                for (j, f) in part.points().iter().enumerate() {
                    let (rw, st) = (a.rewrite + f.rewrite, a.storage + f.storage);
                    if !fits(rw, st) {
                        continue;
                    }
                    cand.push(Node {
                        rewrite: rw,
                        storage: st,
                        npv: a.npv + f.npv,
                        changed: a.changed + f.x.iter().filter(|&&k| k != 0).count(),
                        parent: i as u32,
                        pick: j as u32,
                    });
                }
            }
            let mut kept = pareto(cand, tol);
            if kept.len() > MAX_POINTS {
                kept = thin(kept);
            }
            levels.push(kept);
        }
        Knapsack { levels }
    }

    /// The merged frontier, in cost order.
    pub fn points(&self) -> &[Node] {
        self.levels.last().map_or(&[], Vec::as_slice)
    }

    /// The highest-NPV merged point (ties: the cheaper one).
    pub fn best(&self, tol: f64) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, p) in self.points().iter().enumerate() {
            if best.is_none_or(|b| p.npv > self.points()[b].npv + tol) {
                best = Some(i);
            }
        }
        best
    }

    /// The option each part takes in merged point `i`.
    pub fn picks(&self, i: usize) -> Vec<usize> {
        let parts = self.levels.len() - 1;
        let mut out = vec![0; parts];
        let mut at = i;
        for level in (1..=parts).rev() {
            let n = self.levels[level][at];
            out[level - 1] = n.pick as usize;
            at = n.parent as usize;
        }
        out
    }
}

/// The undominated candidates, in (rewrite, storage) order.
fn pareto(mut cand: Vec<Node>, tol: f64) -> Vec<Node> {
    cand.sort_by(|x, y| {
        x.rewrite
            .total_cmp(&y.rewrite)
            .then_with(|| x.storage.total_cmp(&y.storage))
            .then_with(|| y.npv.total_cmp(&x.npv))
            .then_with(|| (x.parent, x.pick).cmp(&(y.parent, y.pick)))
    });
    let mut storages: Vec<f64> = cand.iter().map(|c| c.storage).collect();
    storages.sort_by(f64::total_cmp);
    storages.dedup();
    let rank = |s: f64| storages.partition_point(|&v| v < s);
    let mut best = PrefixMax::new(storages.len());
    let mut kept = Vec::new();
    for c in cand {
        // Earlier candidates cost no more rewrite; any with no more storage
        // and at least this NPV dominates it.
        let r = rank(c.storage);
        if best.query(r) >= c.npv - tol {
            continue;
        }
        best.update(r, c.npv);
        kept.push(c);
    }
    kept
}

/// Evenly spaced points plus the best one.
fn thin(kept: Vec<Node>) -> Vec<Node> {
    let n = kept.len();
    let top = (0..n).fold(0, |b, i| if kept[i].npv > kept[b].npv { i } else { b });
    let step = n.div_ceil(MAX_POINTS - 1);
    kept.into_iter()
        .enumerate()
        .filter(|(i, _)| i % step == 0 || *i == top)
        .map(|(_, p)| p)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::Point;

    fn frontier(points: &[(f64, f64)]) -> Frontier {
        let mut f = Frontier::new(1e-9);
        for (i, &(c, v)) in points.iter().enumerate() {
            f.insert(Point {
                rewrite: c,
                storage: c,
                npv: v,
                x: if i == 0 { vec![0] } else { vec![1] },
            });
        }
        f
    }

    /// Every combination, checked against the merged frontier.
    #[test]
    fn merged_frontier_matches_enumeration() {
        let mut rng = crate::synth::SplitMix64::new(11);
        for _ in 0..200 {
            let parts: Vec<Frontier> = (0..1 + rng.below(5))
                .map(|_| {
                    let mut pts = vec![(0.0, 0.0)];
                    for _ in 0..1 + rng.below(4) {
                        pts.push((1.0 + rng.below(20) as f64, rng.range(-5.0, 30.0)));
                    }
                    frontier(&pts)
                })
                .collect();
            let refs: Vec<&Frontier> = parts.iter().collect();
            let budget = rng.below(60) as f64;
            let k = Knapsack::solve(&refs, |r, _| r <= budget, 1e-9);
            // Enumerate all choices.
            let mut best = f64::NEG_INFINITY;
            let mut idx = vec![0usize; parts.len()];
            loop {
                let (c, v) = idx.iter().zip(&parts).fold((0.0, 0.0), |(c, v), (&i, f)| {
                    (c + f.points()[i].rewrite, v + f.points()[i].npv)
                });
                if c <= budget && v > best {
                    best = v;
                }
                let mut i = 0;
                while i < idx.len() {
                    idx[i] += 1;
                    if idx[i] < parts[i].len() {
                        break;
                    }
                    idx[i] = 0;
                    i += 1;
                }
                if i == idx.len() {
                    break;
                }
            }
            let Some(b) = k.best(1e-9) else {
                panic!("the zero plan always fits")
            };
            assert!((k.points()[b].npv - best).abs() < 1e-9);
            // The picks reproduce the point's figures.
            let picks = k.picks(b);
            let v: f64 = picks
                .iter()
                .zip(&parts)
                .map(|(&i, f)| f.points()[i].npv)
                .sum();
            assert!((v - best).abs() < 1e-9);
            // Merged points are undominated and in cost order.
            for w in k.points().windows(2) {
                assert!(w[0].rewrite <= w[1].rewrite);
                assert!(w[1].npv > w[0].npv);
            }
        }
    }

    #[test]
    fn prefix_max_tree() {
        let mut t = PrefixMax::new(5);
        t.update(3, 2.0);
        t.update(1, 1.0);
        assert_eq!(t.query(0), f64::NEG_INFINITY);
        assert_eq!(t.query(2), 1.0);
        assert_eq!(t.query(4), 2.0);
    }
}
