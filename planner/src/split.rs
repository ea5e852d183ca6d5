//! The planner splits the problem: connected components solved apart, then
//! combined under the shared budgets.
//!
//! Edges that share no table cannot conflict, so the connected components of
//! the table–edge graph (found with petgraph's union–find) are independent
//! except for the budgets they share. Each component ("part") offers a
//! [`Frontier`] of (rewrite, storage, NPV) options; a multiple-choice
//! knapsack ([`Knapsack`]) picks one option per part.
//!
//! - [`Mode::Exact`]: every part's frontier by branch and bound (each part
//!   within the exact solver's size limits), combined exactly: the optimum.
//! - [`Mode::Default`]: a part within the exact solver's size limits is
//!   solved by branch and bound seeded with the local-search plan and capped
//!   at [`EXACT_NODE_LIMIT`] nodes (so the result is never worse than the
//!   local search); larger parts, or parts the cap cuts short, get the
//!   local-search planner at a ladder of budgets, and after the knapsack each
//!   such part is re-planned with the budget left to it.
//!
//! With a single part and no curve asked for, no frontier is needed: the
//! part is planned under the budgets directly.

use std::borrow::Cow;

use petgraph::unionfind::UnionFind;

use crate::error::Result;
use crate::exact;
use crate::frontier::{Frontier, Point};
use crate::greedy::{self, Rank};
use crate::improved;
use crate::knapsack::Knapsack;
use crate::problem::Problem;
use crate::state::State;

/// Branch-and-bound nodes the default planner spends on one part before it
/// falls back to the local search's plans for that part.
pub const EXACT_NODE_LIMIT: u64 = 2_000_000;
/// Budget ladder for a part planned heuristically: the plan under the full
/// budgets, then this many halvings.
const LADDER_STEPS: usize = 8;
/// Parts above this many edges use the per-byte greedy (not the local
/// search) on the lower rungs of the ladder; the rung the knapsack picks is
/// re-planned with the local search anyway (not on the budget curve's
/// points, which keep the rungs).
pub(crate) const LADDER_LOCAL_SEARCH_MAX_EDGES: usize = 5_000;

/// Which solver a part gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Branch and bound everywhere (fails on a part above the size limits).
    Exact,
    /// Branch and bound on small parts, local search otherwise.
    Default,
}

/// A connected component: its tables (indices into the whole instance,
/// ascending) and the instance restricted to them.
pub(crate) struct Part<'p> {
    pub tables: Vec<usize>,
    pub problem: Cow<'p, Problem>,
}

/// The components with at least one table that has a choice to make, in
/// order of their first table. A part covering the whole instance reuses it.
pub(crate) fn parts(p: &Problem) -> Vec<Part<'_>> {
    let n = p.tables.len();
    let mut uf: UnionFind<usize> = UnionFind::new(n);
    for e in &p.edges {
        uf.union(e.a, e.b);
    }
    let labels = uf.into_labeling();
    // Component id per root, numbered by first table.
    let mut comp_of_root = vec![usize::MAX; n];
    let mut tables: Vec<Vec<usize>> = Vec::new();
    let mut has_edge = vec![false; n];
    for e in &p.edges {
        has_edge[e.a] = true;
        has_edge[e.b] = true;
    }
    for t in 0..n {
        if !has_edge[t] {
            continue;
        }
        let r = labels[t];
        if comp_of_root[r] == usize::MAX {
            comp_of_root[r] = tables.len();
            tables.push(Vec::new());
        }
        tables[comp_of_root[r]].push(t);
    }
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); tables.len()];
    for (id, e) in p.edges.iter().enumerate() {
        edges[comp_of_root[labels[e.a]]].push(id);
    }
    tables
        .into_iter()
        .zip(edges)
        .filter(|(ts, _)| ts.iter().any(|&t| p.tables[t].options.len() > 1))
        .map(|(ts, es)| {
            let problem = if ts.len() == n {
                Cow::Borrowed(p)
            } else {
                Cow::Owned(p.subproblem(&ts, &es))
            };
            Part {
                tables: ts,
                problem,
            }
        })
        .collect()
}

/// Copy a part's assignment into the whole instance's.
fn scatter(x: &mut [usize], part: &Part, local: &[usize]) {
    for (&t, &k) in part.tables.iter().zip(local) {
        x[t] = k;
    }
}

fn point(p: &Problem, x: Vec<usize>) -> Point {
    let (npv, rewrite, storage) = p.evaluate(&x);
    Point {
        rewrite,
        storage,
        npv,
        x,
    }
}

/// Plan one part under its budgets (no frontier).
fn solve_part(p: &Problem, mode: Mode) -> Result<Vec<usize>> {
    match mode {
        Mode::Exact => exact::solve(p),
        Mode::Default => {
            let seed = improved::solve(p);
            if exact::fits_size(p) {
                Ok(exact::solve_limited(p, &seed, EXACT_NODE_LIMIT).0)
            } else {
                Ok(seed)
            }
        }
    }
}

/// A part's options within its budgets, and whether they are exact.
fn part_frontier(p: &Problem, mode: Mode) -> Result<(Frontier, bool)> {
    match mode {
        Mode::Exact => {
            exact::check_size(p)?;
            Ok(exact::frontier(p, &[], u64::MAX))
        }
        Mode::Default => {
            let top = improved::solve(p);
            if exact::fits_size(p) {
                let (f, complete) =
                    exact::frontier(p, std::slice::from_ref(&top), EXACT_NODE_LIMIT);
                if complete {
                    return Ok((f, true));
                }
                return Ok((ladder(p, top, f), false));
            }
            Ok((ladder(p, top, Frontier::new(p.tol())), false))
        }
    }
}

/// Heuristic options: `top` (the plan under the part's budgets), then plans
/// under budgets halved again and again, down to the cheapest change.
fn ladder(p: &Problem, top: Vec<usize>, mut f: Frontier) -> Frontier {
    f.insert(point(p, vec![0; p.tables.len()]));
    let top = point(p, top);
    let cheapest = p
        .tables
        .iter()
        .flat_map(|t| t.rewrite_f.iter().skip(1).copied())
        .fold(f64::INFINITY, f64::min);
    let (mut b, mut s) = (top.rewrite, top.storage);
    f.insert(top);
    for _ in 0..LADDER_STEPS {
        b /= 2.0;
        s /= 2.0;
        if b < cheapest {
            break;
        }
        let q = p.with_budgets(b, s);
        // Big parts: one greedy by NPV per rewritten byte (the ranking that
        // suits a binding budget) per rung; the rung the knapsack picks is
        // re-planned with the local search anyway.
        let x = if p.edges.len() <= LADDER_LOCAL_SEARCH_MAX_EDGES {
            improved::solve(&q)
        } else {
            greedy::run(State::new(&q), Rank::PerByte, &[]).x
        };
        f.insert(point(p, x));
    }
    f
}

/// Per-part frontiers computed once, reusable for any budgets within the
/// caps they were computed under.
pub(crate) struct Split<'p> {
    pub parts: Vec<Part<'p>>,
    pub frontiers: Vec<Frontier>,
    /// Whether each part's frontier is exact.
    pub exact: Vec<bool>,
    mode: Mode,
}

impl<'p> Split<'p> {
    /// Split `cap` (the instance with the largest budgets any later question
    /// will ask about) and compute every part's frontier.
    pub fn new(cap: &'p Problem, mode: Mode) -> Result<Split<'p>> {
        let parts = parts(cap);
        let mut frontiers = Vec::with_capacity(parts.len());
        let mut exact = Vec::with_capacity(parts.len());
        for part in &parts {
            let (f, e) = part_frontier(&part.problem, mode)?;
            frontiers.push(f);
            exact.push(e);
        }
        Ok(Split {
            parts,
            frontiers,
            exact,
            mode,
        })
    }

    /// The knapsack over the parts' frontiers under `fits`.
    pub fn knapsack(&self, fits: impl Fn(f64, f64) -> bool, tol: f64) -> Knapsack {
        let refs: Vec<&Frontier> = self.frontiers.iter().collect();
        Knapsack::solve(&refs, fits, tol)
    }

    /// The best plan for `p` (whose budgets are within the caps): knapsack,
    /// then (default mode) re-plan each heuristic part with the budget the
    /// others leave it. Heuristic re-plans are added to the part's frontier.
    pub fn plan(&mut self, p: &Problem) -> Vec<usize> {
        self.plan_refining(p, usize::MAX)
    }

    /// [`Split::plan`], re-planning only heuristic parts of at most
    /// `max_edges` edges (larger ones keep their frontier's point: the
    /// budget curve asks at many budgets and must stay quick).
    pub fn plan_refining(&mut self, p: &Problem, max_edges: usize) -> Vec<usize> {
        let tol = p.tol();
        let k = self.knapsack(|r, s| p.fits(r, s), tol);
        let mut picks: Vec<Point> = match k.best(tol) {
            Some(i) => k
                .picks(i)
                .iter()
                .zip(&self.frontiers)
                .map(|(&j, f)| f.points()[j].clone())
                .collect(),
            None => self
                .parts
                .iter()
                .map(|part| point(&part.problem, vec![0; part.tables.len()]))
                .collect(),
        };
        if self.mode == Mode::Default {
            for i in 0..self.parts.len() {
                if self.exact[i] || self.parts[i].problem.edges.len() > max_edges {
                    continue;
                }
                let used_rw: f64 = picks.iter().map(|q| q.rewrite).sum();
                let used_st: f64 = picks.iter().map(|q| q.storage).sum();
                let b = p.budget - (used_rw - picks[i].rewrite);
                let s = p.storage_budget - (used_st - picks[i].storage);
                let q = self.parts[i].problem.with_budgets(b, s);
                let x = improved::solve(&q);
                let cand = point(&q, x);
                if q.fits(cand.rewrite, cand.storage) && cand.npv > picks[i].npv + tol {
                    self.frontiers[i].insert(cand.clone());
                    picks[i] = cand;
                }
            }
        }
        let mut x = vec![0; p.tables.len()];
        for (part, pick) in self.parts.iter().zip(&picks) {
            scatter(&mut x, part, &pick.x);
        }
        x
    }
}

/// The best assignment for `p` under its budgets.
pub(crate) fn solve(p: &Problem, mode: Mode) -> Result<Vec<usize>> {
    let parts = parts(p);
    let mut x = vec![0; p.tables.len()];
    match parts.len() {
        0 => Ok(x),
        1 => {
            let local = solve_part(&parts[0].problem, mode)?;
            scatter(&mut x, &parts[0], &local);
            Ok(x)
        }
        _ => Ok(Split::new(p, mode)?.plan(p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth;

    #[test]
    fn components_are_found_and_reindexed() {
        let inst = synth::component_instance(3);
        let Ok(p) = Problem::build(&inst.tables, &inst.edges, &inst.config) else {
            panic!("builds")
        };
        let parts = parts(&p);
        assert!(parts.len() >= 3, "{} parts", parts.len());
        let mut seen = vec![false; p.tables.len()];
        let mut edges = 0;
        for part in &parts {
            for &t in &part.tables {
                assert!(!seen[t], "table in two parts");
                seen[t] = true;
            }
            let q = &part.problem;
            edges += q.edges.len();
            for e in &q.edges {
                // The same tables, by name, as in the whole instance.
                let orig = &p.edges.iter().find(|o| o.input == e.input);
                let Some(orig) = orig else {
                    panic!("edge kept")
                };
                assert_eq!(q.tables[e.a].name, p.tables[orig.a].name);
                assert_eq!(q.tables[e.b].name, p.tables[orig.b].name);
            }
        }
        assert_eq!(edges, p.edges.len());
    }

    /// Two random instances side by side (tables renamed apart), one budget.
    fn pair(seed: u64) -> synth::Instance {
        let (a, b) = (
            synth::random_instance(seed),
            synth::random_instance(seed + 5000),
        );
        let mut out = a.clone();
        out.tables = Vec::new();
        out.edges = Vec::new();
        for (inst, prefix) in [(&a, "a."), (&b, "b.")] {
            for t in &inst.tables {
                let mut t = t.clone();
                t.table = format!("{prefix}{}", t.table);
                out.tables.push(t);
            }
            for e in &inst.edges {
                let mut e = e.clone();
                e.left_table = format!("{prefix}{}", e.left_table);
                e.right_table = format!("{prefix}{}", e.right_table);
                out.edges.push(e);
            }
        }
        // Budget for about one of the two.
        out.config.budget = a.config.budget.max(b.config.budget);
        out.config.storage_budget = a.config.storage_budget.max(b.config.storage_budget);
        out
    }

    /// Exact per part and combined equals the exact solver on the whole
    /// instance (small enough for both); the default planner matches it.
    #[test]
    fn split_exact_equals_whole_exact() {
        let mut checked = 0;
        for seed in 0..200u64 {
            let inst = pair(seed);
            let Ok(p) = Problem::build(&inst.tables, &inst.edges, &inst.config) else {
                panic!("builds")
            };
            let combos: u128 = p.tables.iter().map(|t| t.options.len() as u128).product();
            if parts(&p).len() < 2 || combos > 5_000_000 {
                continue;
            }
            let (Ok(a), Ok(b)) = (solve(&p, Mode::Exact), exact::solve(&p)) else {
                panic!("seed {seed} solves")
            };
            let (va, ra, sa) = p.evaluate(&a);
            assert!(p.fits(ra, sa));
            assert!(
                (va - p.evaluate(&b).0).abs() <= p.tol(),
                "seed {seed}: split {va} whole {}",
                p.evaluate(&b).0
            );
            let Ok(d) = solve(&p, Mode::Default) else {
                panic!("solves")
            };
            let (vd, rd, sd) = p.evaluate(&d);
            assert!(p.fits(rd, sd));
            assert!(
                (vd - va).abs() <= p.tol(),
                "seed {seed} default {vd} vs {va}"
            );
            checked += 1;
        }
        assert!(checked >= 40, "only {checked} instances checked");
    }

    /// The shared budget is what couples parts: with two identical parts
    /// and budget for one, exactly one is planned.
    #[test]
    fn budget_is_shared_between_parts() {
        use crate::model::{EdgeDemand, PlannerConfig, TableProfile};
        const G: u64 = 1_000_000_000;
        let t = |n: &str| TableProfile {
            table: n.into(),
            bytes: G,
            rows: None,
            files: None,
            partitioned_by: vec![],
            clustered_by: vec![],
            source: "test".into(),
        };
        let e = |l: &str, r: &str, scanned: f64| EdgeDemand {
            left_table: l.into(),
            left_columns: vec!["k".into()],
            right_table: r.into(),
            right_columns: vec!["k".into()],
            jis: 0.0,
            scanned_bytes: scanned,
            smj_count: 1,
            bhj_count: 0,
            other_count: 0,
            measured_saving: None,
        };
        let tables = [t("a"), t("b"), t("c"), t("d")];
        let edges = [e("a", "b", 100.0 * G as f64), e("c", "d", 90.0 * G as f64)];
        let config = PlannerConfig {
            budget: Some(2 * G),
            storage_budget: Some(2 * G),
            ..Default::default()
        };
        let Ok(p) = Problem::build(&tables, &edges, &config) else {
            panic!("builds")
        };
        assert_eq!(parts(&p).len(), 2);
        for mode in [Mode::Exact, Mode::Default] {
            let Ok(x) = solve(&p, mode) else {
                panic!("solves")
            };
            // a–b saves more: it gets the budget.
            assert_eq!(x, vec![1, 1, 0, 0], "{mode:?}");
        }
    }
}
