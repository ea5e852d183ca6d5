//! A mutable plan with O(1) move scoring.
//!
//! `gain[t][k]` is the discounted saving of the edges incident to `t` that
//! would be served if `t` alone moved to option `k` (every other table staying
//! put). A single-table move is then scored in O(1), a two-table (edge) move in
//! O(edges between the two tables), and applying a move costs O(degree).

use crate::problem::Problem;

/// A move's effect: NPV change and budget usage change.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Delta {
    pub npv: f64,
    pub rewrite: f64,
    pub storage: f64,
}

#[derive(Clone, Debug)]
pub(crate) struct State<'p> {
    pub p: &'p Problem,
    pub x: Vec<usize>,
    gain: Vec<Vec<f64>>,
    pub benefit: f64,
    pub rewrite: f64,
    pub storage: f64,
    /// Bumped when a table or one of its neighbours changes option: a score that
    /// involves `t` depends on `gain[t]`, which neighbours' moves change.
    pub touch: Vec<u64>,
}

impl<'p> State<'p> {
    /// The do-nothing plan: every table keeps its layout.
    pub fn new(p: &'p Problem) -> State<'p> {
        let x = vec![0; p.tables.len()];
        State::from_assignment(p, x)
    }

    pub fn from_assignment(p: &'p Problem, x: Vec<usize>) -> State<'p> {
        let mut gain: Vec<Vec<f64>> = p
            .tables
            .iter()
            .map(|t| vec![0.0; t.options.len()])
            .collect();
        let mut benefit = 0.0;
        for e in &p.edges {
            if e.a == e.b {
                gain[e.a][e.ka] += e.w;
            } else {
                if x[e.b] == e.kb {
                    gain[e.a][e.ka] += e.w;
                }
                if x[e.a] == e.ka {
                    gain[e.b][e.kb] += e.w;
                }
            }
            if p.served(&x, e) {
                benefit += e.w;
            }
        }
        let mut rewrite = 0.0;
        let mut storage = 0.0;
        for (t, &k) in x.iter().enumerate() {
            rewrite += p.rewrite(t, k);
            storage += p.storage(t, k);
        }
        let touch = vec![0; x.len()];
        State {
            p,
            x,
            gain,
            benefit,
            rewrite,
            storage,
            touch,
        }
    }

    pub fn npv(&self) -> f64 {
        self.benefit - self.rewrite - self.storage
    }

    /// Would the plan after `d` respect both budgets?
    pub fn fits(&self, d: &Delta) -> bool {
        self.p
            .fits(self.rewrite + d.rewrite, self.storage + d.storage)
    }

    /// Move table `t` to option `k`, everything else fixed.
    pub fn delta_single(&self, t: usize, k: usize) -> Delta {
        let cur = self.x[t];
        if k == cur {
            return Delta::default();
        }
        let g = &self.gain[t];
        let rw = self.p.rewrite(t, k) - self.p.rewrite(t, cur);
        let st = self.p.storage(t, k) - self.p.storage(t, cur);
        Delta {
            npv: g[k] - g[cur] - rw - st,
            rewrite: rw,
            storage: st,
        }
    }

    /// Move `a` to `ka` and `b` to `kb` together (`a != b`).
    pub fn delta_pair(&self, a: usize, ka: usize, b: usize, kb: usize) -> Delta {
        let da = self.delta_single(a, ka);
        let db = self.delta_single(b, kb);
        let (xa, xb) = (self.x[a], self.x[b]);
        let mut corr = 0.0;
        if let Some(between) = self.p.pairs.get(&(a.min(b), a.max(b))) {
            for &id in between {
                let e = &self.p.edges[id];
                // The edge's key on `a` and on `b`, whichever way round it was given.
                let (_, ea, eb) = e.seen_from(a);
                let on = |c: bool| if c { e.w } else { 0.0 };
                let true_new = on(ka == ea && kb == eb);
                let true_old = on(xa == ea && xb == eb);
                let counted_a = on(ka == ea && xb == eb) - on(xa == ea && xb == eb);
                let counted_b = on(kb == eb && xa == ea) - on(xb == eb && xa == ea);
                corr += (true_new - true_old) - counted_a - counted_b;
            }
        }
        Delta {
            npv: da.npv + db.npv + corr,
            rewrite: da.rewrite + db.rewrite,
            storage: da.storage + db.storage,
        }
    }

    /// The move that serves edge `id`: both its tables onto its key.
    pub fn edge_move(&self, id: usize) -> (usize, usize, usize, usize) {
        let e = &self.p.edges[id];
        (e.a, e.ka, e.b, e.kb)
    }

    /// Score the move serving edge `id`.
    pub fn delta_edge(&self, id: usize) -> Delta {
        let (a, ka, b, kb) = self.edge_move(id);
        if a == b {
            self.delta_single(a, ka)
        } else {
            self.delta_pair(a, ka, b, kb)
        }
    }

    /// Apply a single-table move.
    pub fn apply(&mut self, t: usize, k: usize) {
        let cur = self.x[t];
        if k == cur {
            return;
        }
        let p = self.p;
        for &id in &p.adj[t] {
            let e = &p.edges[id];
            if e.a == e.b {
                continue;
            }
            let (u, kt, ku) = e.seen_from(t);
            self.touch[u] += 1;
            if kt == cur {
                self.gain[u][ku] -= e.w;
            }
            if kt == k {
                self.gain[u][ku] += e.w;
            }
        }
        self.benefit += self.gain[t][k] - self.gain[t][cur];
        self.rewrite += p.rewrite(t, k) - p.rewrite(t, cur);
        self.storage += p.storage(t, k) - p.storage(t, cur);
        self.x[t] = k;
        self.touch[t] += 1;
    }

    /// Apply the move serving edge `id`.
    pub fn apply_edge(&mut self, id: usize) {
        let (a, ka, b, kb) = self.edge_move(id);
        self.apply(a, ka);
        self.apply(b, kb);
    }

    /// Re-derive all running sums from the assignment (removes float drift).
    pub fn resync(&mut self) {
        let touch = std::mem::take(&mut self.touch);
        *self = State::from_assignment(self.p, self.x.clone());
        self.touch = touch;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth;

    /// Incremental scores must equal full re-evaluation on random moves.
    #[test]
    fn incremental_scores_match_full_evaluation() {
        for seed in 0..40u64 {
            let inst = synth::random_instance(seed);
            let Ok(p) = Problem::build(&inst.tables, &inst.edges, &inst.config) else {
                panic!("instance {seed} must build");
            };
            let mut s = State::new(&p);
            let mut rng = synth::SplitMix64::new(seed);
            for _ in 0..30 {
                let t = rng.below(p.tables.len() as u64) as usize;
                let k = rng.below(p.tables[t].options.len() as u64) as usize;
                let before = p.evaluate(&s.x).0;
                if p.edges.is_empty() || rng.below(2) == 0 {
                    let d = s.delta_single(t, k);
                    s.apply(t, k);
                    let after = p.evaluate(&s.x).0;
                    assert!(
                        (after - before - d.npv).abs() < 1e-6 * (1.0 + after.abs()),
                        "single seed {seed}"
                    );
                } else {
                    let id = rng.below(p.edges.len() as u64) as usize;
                    let d = s.delta_edge(id);
                    s.apply_edge(id);
                    let after = p.evaluate(&s.x).0;
                    assert!(
                        (after - before - d.npv).abs() < 1e-6 * (1.0 + after.abs()),
                        "edge seed {seed}"
                    );
                }
                assert!((s.npv() - p.evaluate(&s.x).0).abs() < 1e-6 * (1.0 + s.npv().abs()));
            }
        }
    }
}
