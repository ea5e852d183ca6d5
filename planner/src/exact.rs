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
use crate::frontier::{Frontier, Point};
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
    /// Frontier mode: every undominated plan within the budgets, not just the best.
    frontier: Option<Frontier>,
    log: Vec<Undo>,
    tol: f64,
    nodes: u64,
    node_limit: u64,
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

    /// The current partial assignment with undecided tables on option 0.
    fn completed(&self, depth: usize) -> Vec<usize> {
        let mut x = self.x.clone();
        for &t in &self.order[depth..] {
            x[t] = 0;
        }
        x
    }

    /// Record the node's plan; true when the subtree below cannot do better.
    fn record_and_bound(&mut self, depth: usize) -> bool {
        // Undecided tables keep option 0; `value` counts only settled edges,
        // so `npv` is a lower bound of that plan's NPV (exact at the leaves).
        let npv = self.value - self.rewrite - self.storage;
        let bound = npv + self.optimistic;
        if let Some(f) = &self.frontier {
            let (rw, st) = (self.rewrite, self.storage);
            if f.admits(rw, st, npv) {
                let x = self.completed(depth);
                if let Some(f) = &mut self.frontier {
                    f.insert(Point {
                        rewrite: rw,
                        storage: st,
                        npv,
                        x,
                    });
                }
            }
            // Deeper plans cost at least as much and are worth at most `bound`.
            return self
                .frontier
                .as_ref()
                .is_some_and(|f| f.dominated(rw, st, bound));
        }
        if npv > self.best + self.tol {
            self.best = npv;
            self.best_x = self.completed(depth);
        }
        bound <= self.best + self.tol
    }

    fn dfs(&mut self, depth: usize) {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            return;
        }
        if self.record_and_bound(depth) || depth == self.order.len() {
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
            if self.nodes > self.node_limit {
                break;
            }
        }
        self.x[t] = 0;
    }
}

/// Refuse instances above the size limits.
pub(crate) fn check_size(p: &Problem) -> Result<()> {
    let choosing = p.tables.iter().filter(|t| t.options.len() > 1).count();
    let combinations = p
        .tables
        .iter()
        .fold(1u128, |acc, t| acc.saturating_mul(t.options.len() as u128));
    if choosing > MAX_TABLES || combinations > MAX_COMBINATIONS {
        return Err(Error::TooLargeForExact {
            tables: choosing,
            combinations,
            max_tables: MAX_TABLES,
            max_combinations: MAX_COMBINATIONS,
        });
    }
    Ok(())
}

/// Whether the instance is within the exact solver's size limits.
pub(crate) fn fits_size(p: &Problem) -> bool {
    check_size(p).is_ok()
}

fn search(p: &Problem, node_limit: u64, frontier: Option<Frontier>) -> Search<'_> {
    let mut order: Vec<usize> = (0..p.tables.len())
        .filter(|&t| p.tables[t].options.len() > 1)
        .collect();
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
    Search {
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
        frontier,
        log: Vec::new(),
        tol: p.tol(),
        nodes: 0,
        node_limit,
    }
}

/// The best assignment under both budgets, or [`Error::TooLargeForExact`].
pub(crate) fn solve(p: &Problem) -> Result<Vec<usize>> {
    check_size(p)?;
    let mut s = search(p, u64::MAX, None);
    s.dfs(0);
    Ok(s.best_x)
}

/// Branch and bound that gives up after `node_limit` nodes, starting from
/// the incumbent `seed` (a feasible assignment, say a heuristic's). Returns
/// the best assignment found and whether the search finished (then it is
/// optimal). Never worse than `seed`.
pub(crate) fn solve_limited(p: &Problem, seed: &[usize], node_limit: u64) -> (Vec<usize>, bool) {
    let mut s = search(p, node_limit, None);
    let (npv, rw, st) = p.evaluate(seed);
    if p.fits(rw, st) {
        s.best = npv;
        s.best_x = seed.to_vec();
    }
    s.dfs(0);
    let complete = s.nodes <= node_limit;
    (s.best_x, complete)
}

/// Every undominated plan within the budgets (see [`Frontier`]), exactly:
/// a branch and bound that prunes a subtree when a recorded plan costs no
/// more and is worth at least the subtree's bound. `seeds` (feasible
/// assignments) prime the frontier. Returns the frontier and whether the
/// search finished within `node_limit` nodes (otherwise the frontier holds
/// the plans found so far and the seeds).
pub(crate) fn frontier(p: &Problem, seeds: &[Vec<usize>], node_limit: u64) -> (Frontier, bool) {
    let mut f = Frontier::new(p.tol());
    for x in seeds {
        let (npv, rw, st) = p.evaluate(x);
        if p.fits(rw, st) {
            f.insert(Point {
                rewrite: rw,
                storage: st,
                npv,
                x: x.clone(),
            });
        }
    }
    let mut s = search(p, node_limit, Some(f));
    s.dfs(0);
    let complete = s.nodes <= node_limit;
    // Points recorded above the leaves carry a lower bound of their NPV: re-price.
    let mut exact = Frontier::new(p.tol());
    for pt in s.frontier.unwrap_or_default().points() {
        let (npv, rewrite, storage) = p.evaluate(&pt.x);
        exact.insert(Point {
            rewrite,
            storage,
            npv,
            x: pt.x.clone(),
        });
    }
    (exact, complete)
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

    /// The frontier's best point within any budget is the exact optimum for that budget.
    #[test]
    fn frontier_answers_every_budget() {
        for seed in 0..80u64 {
            let inst = synth::random_instance(seed);
            let Ok(p) = Problem::build(&inst.tables, &inst.edges, &inst.config) else {
                panic!("seed {seed} must build");
            };
            let open = p.with_budgets(f64::INFINITY, f64::INFINITY);
            let (f, complete) = frontier(&open, &[], u64::MAX);
            assert!(complete);
            assert_eq!(
                f.points()[0].rewrite,
                0.0,
                "seed {seed}: do-nothing plan first"
            );
            let mut budgets: Vec<f64> = f.points().iter().map(|q| q.rewrite).collect();
            budgets.extend(f.points().iter().map(|q| q.rewrite - 1.0));
            budgets.push(p.budget);
            for b in budgets.into_iter().filter(|b| *b >= 0.0) {
                let q = p.with_budgets(b, f64::INFINITY);
                let Ok(x) = solve(&q) else {
                    panic!("seed {seed} solves")
                };
                let want = q.evaluate(&x).0;
                let got = f
                    .points()
                    .iter()
                    .filter(|pt| q.fits(pt.rewrite, pt.storage))
                    .map(|pt| pt.npv)
                    .fold(f64::NEG_INFINITY, f64::max);
                assert!(
                    (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                    "seed {seed} budget {b}: frontier {got} vs exact {want}"
                );
            }
        }
    }

    #[test]
    fn limited_search_is_never_worse_than_its_seed() {
        for seed in 0..40u64 {
            let inst = synth::dense_instance(seed);
            let Ok(p) = Problem::build(&inst.tables, &inst.edges, &inst.config) else {
                panic!("seed {seed} must build");
            };
            let heuristic =
                crate::greedy::run(crate::state::State::new(&p), crate::greedy::Rank::Npv, &[]).x;
            let (x, complete) = solve_limited(&p, &heuristic, 50);
            assert!(!complete || p.tables.len() < 3);
            assert!(p.evaluate(&x).0 >= p.evaluate(&heuristic).0 - p.tol());
            let (x, complete) = solve_limited(&p, &heuristic, u64::MAX);
            assert!(complete);
            let Ok(best) = solve(&p) else {
                panic!("solves")
            };
            assert!((p.evaluate(&x).0 - p.evaluate(&best).0).abs() <= p.tol());
        }
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
