//! Exact solver: branch and bound over per-table key choices.
//!
//! Each table with a choice takes one of its options (keep, or a key some
//! incident edge proposes). Tables are decided in order of degree; an edge is
//! settled when all its tables are decided, and dead as soon as one decided
//! table sits on a different key. The bound is value so far plus every edge
//! that is neither settled nor dead: optimistic because costs only grow.
//! Instances above [`MAX_TABLES`] choosing tables or [`MAX_COMBINATIONS`]
//! combinations are refused rather than left to run for hours.

use crate::error::{Error, Result};
use crate::problem::Problem;

/// Most tables with a choice the exact solver accepts.
pub const MAX_TABLES: usize = 20;
/// Most layout combinations (product of per-table choice counts) it accepts.
pub const MAX_COMBINATIONS: u128 = 1 << 32;

#[derive(Clone, Copy)]
enum Undo {
    Dead(usize, bool),
    Step(usize),
    Served(usize),
}

struct Search<'p> {
    p: &'p Problem,
    order: Vec<usize>,
    x: Vec<usize>,
    pending: Vec<u8>,
    dead: Vec<bool>,
    value: f64,
    optimistic: f64,
    rewrite: f64,
    storage: f64,
    best: f64,
    best_x: Vec<usize>,
    log: Vec<Undo>,
    tol: f64,
}

impl Search<'_> {
    fn decide(&mut self, t: usize, k: usize) {
        let p = self.p;
        self.x[t] = k;
        for &id in &p.adj[t] {
            if self.dead[id] {
                continue;
            }
            let e = &p.edges[id];
            let (_, kt, _) = e.seen_from(t);
            if kt != k {
                let was_pending = self.pending[id] > 0;
                self.dead[id] = true;
                if was_pending {
                    self.optimistic -= e.w;
                }
                self.log.push(Undo::Dead(id, was_pending));
            } else {
                self.pending[id] = self.pending[id].saturating_sub(1);
                self.log.push(Undo::Step(id));
                if self.pending[id] == 0 {
                    self.value += e.w;
                    self.optimistic -= e.w;
                    self.log.push(Undo::Served(id));
                }
            }
        }
    }

    fn undo_to(&mut self, mark: usize) {
        while self.log.len() > mark {
            match self.log.pop() {
                Some(Undo::Dead(id, was_pending)) => {
                    self.dead[id] = false;
                    if was_pending {
                        self.optimistic += self.p.edges[id].w;
                    }
                }
                Some(Undo::Step(id)) => self.pending[id] += 1,
                Some(Undo::Served(id)) => {
                    let w = self.p.edges[id].w;
                    self.value -= w;
                    self.optimistic += w;
                }
                None => break,
            }
        }
    }

    fn dfs(&mut self, depth: usize) {
        let npv = self.value - self.rewrite - self.storage;
        if npv > self.best + self.tol {
            // Undecided tables keep option 0 (their current value already counts them so).
            self.best = npv;
            self.best_x.clone_from(&self.x);
            for &t in &self.order[depth..] {
                self.best_x[t] = 0;
            }
        }
        if depth == self.order.len() || npv + self.optimistic <= self.best + self.tol {
            return;
        }
        let t = self.order[depth];
        let p = self.p;
        for k in 0..p.tables[t].options.len() {
            let rw = p.rewrite(t, k);
            let st = p.storage(t, k);
            if !p.fits(self.rewrite + rw, self.storage + st) {
                continue;
            }
            let mark = self.log.len();
            self.rewrite += rw;
            self.storage += st;
            self.decide(t, k);
            self.dfs(depth + 1);
            self.undo_to(mark);
            self.rewrite -= rw;
            self.storage -= st;
        }
        self.x[t] = 0;
    }
}

/// The best assignment under both budgets, or [`Error::TooLargeForExact`].
pub(crate) fn solve(p: &Problem) -> Result<Vec<usize>> {
    let mut order: Vec<usize> = (0..p.tables.len())
        .filter(|&t| p.tables[t].options.len() > 1)
        .collect();
    let combinations = order.iter().fold(1u128, |acc, &t| {
        acc.saturating_mul(p.tables[t].options.len() as u128)
    });
    if order.len() > MAX_TABLES || combinations > MAX_COMBINATIONS {
        return Err(Error::TooLargeForExact {
            tables: order.len(),
            combinations,
            max_tables: MAX_TABLES,
            max_combinations: MAX_COMBINATIONS,
        });
    }
    order.sort_by(|&a, &b| {
        p.adj[b]
            .len()
            .cmp(&p.adj[a].len())
            .then_with(|| p.tables[a].name.cmp(&p.tables[b].name))
    });
    let mut choosing = vec![false; p.tables.len()];
    for &t in &order {
        choosing[t] = true;
    }
    let x = vec![0usize; p.tables.len()];
    let mut pending = vec![0u8; p.edges.len()];
    let mut dead = vec![false; p.edges.len()];
    let mut value = 0.0;
    let mut optimistic = 0.0;
    for (id, e) in p.edges.iter().enumerate() {
        let ends: &[usize] = if e.a == e.b { &[e.a] } else { &[e.a, e.b] };
        let mut n = 0u8;
        for &t in ends {
            if choosing[t] {
                n += 1;
            } else {
                // A table without a choice stays on option 0.
                let (_, kt, _) = e.seen_from(t);
                if kt != 0 {
                    dead[id] = true;
                }
            }
        }
        pending[id] = n;
        if dead[id] {
            continue;
        }
        if n == 0 {
            value += e.w;
        } else {
            optimistic += e.w;
        }
    }
    let mut s = Search {
        p,
        order,
        x: x.clone(),
        pending,
        dead,
        value,
        optimistic,
        rewrite: 0.0,
        storage: 0.0,
        best: f64::NEG_INFINITY,
        best_x: x,
        log: Vec::new(),
        tol: p.tol(),
    };
    s.dfs(0);
    Ok(s.best_x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth;

    /// Every assignment, no pruning: the reference for tiny instances.
    fn brute_force(p: &Problem) -> f64 {
        let n = p.tables.len();
        let mut x = vec![0usize; n];
        let mut best = f64::NEG_INFINITY;
        loop {
            let (npv, rw, st) = p.evaluate(&x);
            if p.fits(rw, st) && npv > best {
                best = npv;
            }
            // Odometer increment.
            let mut i = 0;
            loop {
                if i == n {
                    return best;
                }
                x[i] += 1;
                if x[i] < p.tables[i].options.len() {
                    break;
                }
                x[i] = 0;
                i += 1;
            }
        }
    }

    #[test]
    fn exact_equals_brute_force_on_random_small_instances() {
        let mut checked = 0;
        for seed in 0..150u64 {
            let inst = synth::random_instance(seed);
            let Ok(p) = Problem::build(&inst.tables, &inst.edges, &inst.config) else {
                panic!("seed {seed} must build");
            };
            let combos: usize = p.tables.iter().map(|t| t.options.len()).product();
            if combos > 200_000 {
                continue;
            }
            let Ok(x) = solve(&p) else {
                panic!("seed {seed} must solve");
            };
            let (npv, rw, st) = p.evaluate(&x);
            assert!(p.fits(rw, st), "seed {seed}: exact plan over budget");
            let bf = brute_force(&p);
            assert!(
                (npv - bf).abs() <= 1e-6 * (1.0 + bf.abs()),
                "seed {seed}: exact {npv} vs brute force {bf}"
            );
            checked += 1;
        }
        assert!(checked >= 100, "only {checked} instances were small enough");
    }

    #[test]
    fn refuses_large_instances() {
        let inst = synth::large_instance(200, 600, 1);
        let Ok(p) = Problem::build(&inst.tables, &inst.edges, &inst.config) else {
            panic!("large instance must build");
        };
        match solve(&p) {
            Err(Error::TooLargeForExact { tables, .. }) => assert!(tables > MAX_TABLES),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}
