//! The budget curve: the best NPV the planner finds under every rewrite
//! budget, from the cheapest single change up to the unconstrained plan.
//!
//! It answers what each extra byte of rewrite buys. The curve is a step
//! function: a point is a plan, its `budget` the least rewrite budget that
//! buys it (its rewrite cost), and the NPV holds until the next point. The
//! storage budget stays as configured (no limit when `None`) while the
//! rewrite budget varies.
//!
//! Work is shared between budgets: the instance is split into connected
//! components once, each component's Pareto frontier of (rewrite, storage,
//! NPV) plans is computed once under no rewrite limit, and each budget is a
//! knapsack over those frontiers (plus, for components too large to solve
//! exactly but of at most 5,000 edges, a re-plan of that component with the
//! budget left to it; larger ones offer the plans of a ladder of halved
//! budgets).

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::{Algorithm, EdgeDemand, LayoutPlan, PlannerConfig, TableProfile};
use crate::problem::Problem;
use crate::split::{Mode, Split, LADDER_LOCAL_SEARCH_MAX_EDGES};

/// Most points a curve keeps (the chosen plan's and the last are always kept).
pub const MAX_CURVE_POINTS: usize = 48;

/// NPV against rewrite budget, with the plan chosen marked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BudgetCurve {
    /// Storage budget held fixed while the rewrite budget varies (`None`: no limit).
    pub storage_budget: Option<u64>,
    /// Bytes of the cheapest single layout change (the smallest table with a
    /// candidate key); below it no budget buys anything. 0 when nothing can change.
    pub cheapest_change: u64,
    /// The steps, budget ascending, NPV strictly ascending; the last is the
    /// unconstrained plan. Empty when no change pays at any budget.
    pub points: Vec<CurvePoint>,
    /// Index into `points` of the chosen plan (`None` when it changes nothing).
    pub chosen: Option<usize>,
    /// True when every point is the optimum for its budget (every component
    /// solved exactly); otherwise points are the default planner's plans.
    pub exact: bool,
}

/// One step of a [`BudgetCurve`]: a plan and what it costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The least rewrite budget that buys this plan: its rewrite cost, bytes.
    pub budget: u64,
    /// NPV of the plan, bytes.
    pub npv: f64,
    /// Bytes kept until VACUUM.
    pub storage_cost: u64,
    /// Tables whose layout changes.
    pub tables_changed: usize,
    /// Edges the plan serves.
    pub edges_served: usize,
    /// True for the plan chosen under the configured budgets.
    pub chosen: bool,
}

/// Plan with `algorithm` under `config`'s budgets, and the budget curve
/// around that plan (see the module docs). The plan is the one
/// [`crate::plan_with`] returns.
pub fn plan_and_curve(
    profiles: &[TableProfile],
    edges: &[EdgeDemand],
    config: &PlannerConfig,
    algorithm: Algorithm,
) -> Result<(LayoutPlan, BudgetCurve)> {
    plan_and_curve_of(&Problem::build(profiles, edges, config)?, algorithm)
}

/// [`plan_and_curve`] on an indexed instance.
pub(crate) fn plan_and_curve_of(
    p: &Problem,
    algorithm: Algorithm,
) -> Result<(LayoutPlan, BudgetCurve)> {
    let x = crate::solve(p, algorithm)?;
    let plan = p.to_plan(&x, algorithm.name());
    let curve = build(p, &x, algorithm)?;
    Ok((plan, curve))
}

/// The budget curve alone (see [`plan_and_curve`]).
pub fn curve(
    profiles: &[TableProfile],
    edges: &[EdgeDemand],
    config: &PlannerConfig,
    algorithm: Algorithm,
) -> Result<BudgetCurve> {
    plan_and_curve(profiles, edges, config, algorithm).map(|(_, c)| c)
}

struct Step {
    rewrite: f64,
    storage: f64,
    npv: f64,
    x: Vec<usize>,
}

fn step(p: &Problem, x: Vec<usize>) -> Step {
    let (npv, rewrite, storage) = p.evaluate(&x);
    Step {
        rewrite,
        storage,
        npv,
        x,
    }
}

fn build(p: &Problem, chosen_x: &[usize], algorithm: Algorithm) -> Result<BudgetCurve> {
    let tol = p.tol();
    let cheapest = p
        .tables
        .iter()
        .flat_map(|t| t.rewrite.iter().skip(1).copied())
        .min()
        .unwrap_or(0);
    let mode = if algorithm == Algorithm::Exact {
        Mode::Exact
    } else {
        Mode::Default
    };
    let cap = p.with_budgets(f64::INFINITY, p.storage_budget);
    let mut split = Split::new(&cap, mode)?;
    let exact = split.exact.iter().all(|&e| e);
    // Candidate budgets: the rewrite costs of the merged frontier's plans
    // within the storage budget, where NPV rises.
    let k = split.knapsack(|_, s| s <= cap.storage_budget * (1.0 + 1e-12) + 1e-6, tol);
    let mut budgets: Vec<f64> = Vec::new();
    let mut best = 0.0;
    for n in k.points() {
        if n.npv > best + tol {
            best = n.npv;
            budgets.push(n.rewrite);
        }
    }
    let budgets = thin(budgets);
    // One plan per budget, reusing the frontiers; NPV never falls as the
    // budget grows (a plan that fits a smaller budget fits a larger one).
    let mut steps: Vec<Step> = Vec::with_capacity(budgets.len() + 1);
    for b in budgets {
        let q = p.with_budgets(b, p.storage_budget);
        let s = step(p, split.plan_refining(&q, LADDER_LOCAL_SEARCH_MAX_EDGES));
        if steps.last().is_none_or(|l| s.npv > l.npv + tol) && s.npv > tol {
            steps.push(s);
        }
    }
    // The chosen plan is a point of its own when the curve lacks it.
    let c = step(p, chosen_x.to_vec());
    let changes = chosen_x.iter().any(|&k| k != 0);
    let mut chosen = None;
    if changes {
        // A step worth the same is replaced by the plan the user gets.
        let at = steps.iter().position(|s| (s.npv - c.npv).abs() <= tol);
        chosen = Some(match at {
            Some(i) => {
                steps[i] = c;
                i
            }
            None => {
                let i = steps.partition_point(|s| s.rewrite <= c.rewrite);
                steps.insert(i, c);
                i
            }
        });
    }
    let points = steps
        .iter()
        .enumerate()
        .map(|(i, s)| CurvePoint {
            budget: s.rewrite.round() as u64,
            npv: s.npv,
            storage_cost: s.storage.round() as u64,
            tables_changed: s.x.iter().filter(|&&k| k != 0).count(),
            edges_served: p.edges.iter().filter(|e| p.served(&s.x, e)).count(),
            chosen: chosen == Some(i),
        })
        .collect();
    Ok(BudgetCurve {
        storage_budget: p.storage_budget_u64,
        cheapest_change: cheapest,
        points,
        chosen,
        exact,
    })
}

/// At most [`MAX_CURVE_POINTS`] budgets, evenly spread over the steps, the
/// largest always kept.
fn thin(budgets: Vec<f64>) -> Vec<f64> {
    let n = budgets.len();
    if n <= MAX_CURVE_POINTS {
        return budgets;
    }
    let keep = MAX_CURVE_POINTS - 1;
    (0..keep)
        .map(|i| budgets[i * (n - 1) / keep])
        .chain(std::iter::once(budgets[n - 1]))
        .collect()
}

impl BudgetCurve {
    /// The chosen point.
    pub fn chosen_point(&self) -> Option<&CurvePoint> {
        self.chosen.and_then(|i| self.points.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth;

    /// On instances small enough for the exact solver, every point is the
    /// exact optimum at its budget, points rise in both budget and NPV, and
    /// the unconstrained plan is the last point.
    #[test]
    fn exact_curve_matches_the_exact_solver_at_every_budget() {
        for seed in 0..60u64 {
            let mut inst = synth::random_instance(seed);
            inst.config.budget = None;
            inst.config.storage_budget = None;
            let Ok((plan, c)) =
                plan_and_curve(&inst.tables, &inst.edges, &inst.config, Algorithm::Exact)
            else {
                panic!("seed {seed} plans")
            };
            assert!(c.exact);
            for w in c.points.windows(2) {
                assert!(
                    w[0].budget < w[1].budget && w[0].npv < w[1].npv,
                    "seed {seed}"
                );
            }
            match c.points.last() {
                None => assert!(plan.rewrite_cost == 0 && c.chosen.is_none()),
                Some(last) => {
                    assert!((last.npv - plan.total_npv).abs() <= 1e-6 * (1.0 + last.npv));
                    assert_eq!(c.chosen, Some(c.points.len() - 1), "seed {seed}");
                    assert!(last.chosen);
                }
            }
            for pt in &c.points {
                let mut cfg = inst.config.clone();
                cfg.budget = Some(pt.budget);
                let Ok(x) = crate::plan_with(&inst.tables, &inst.edges, &cfg, Algorithm::Exact)
                else {
                    panic!("seed {seed} plans at {}", pt.budget)
                };
                assert!(
                    (x.total_npv - pt.npv).abs() <= 1e-6 * (1.0 + pt.npv.abs()),
                    "seed {seed} budget {}: curve {} exact {}",
                    pt.budget,
                    pt.npv,
                    x.total_npv
                );
                // One byte less buys strictly less.
                if pt.budget > 0 {
                    cfg.budget = Some(pt.budget - 1);
                    let Ok(y) = crate::plan_with(&inst.tables, &inst.edges, &cfg, Algorithm::Exact)
                    else {
                        panic!("plans")
                    };
                    assert!(y.total_npv < pt.npv - 1e-6, "seed {seed}");
                }
            }
            // Below the cheapest change only layouts already in place can pay.
            assert!(c
                .points
                .first()
                .is_none_or(|f| f.budget == 0 || f.budget >= c.cheapest_change));
        }
    }

    /// Under a budget the chosen point is the plan's, and the curve goes on
    /// past it to the unconstrained plan.
    #[test]
    fn chosen_point_under_a_budget() {
        for seed in 0..40u64 {
            let inst = synth::component_instance(seed);
            let Ok((plan, c)) =
                plan_and_curve(&inst.tables, &inst.edges, &inst.config, Algorithm::Improved)
            else {
                panic!("seed {seed} plans")
            };
            let Some(pt) = c.chosen_point() else {
                assert_eq!(plan.rewrite_cost, 0);
                continue;
            };
            assert!(pt.chosen);
            assert_eq!(pt.budget, plan.rewrite_cost);
            assert!((pt.npv - plan.total_npv).abs() <= 1e-6 * (1.0 + pt.npv));
            assert!(c.points.iter().filter(|p| p.chosen).count() == 1);
            let Some(last) = c.points.last() else {
                panic!("has points")
            };
            assert!(last.npv >= pt.npv);
            assert!(plan.budget.is_some_and(|b| pt.budget <= b));
        }
    }

    #[test]
    fn thinning_keeps_the_ends() {
        let b: Vec<f64> = (0..1000).map(f64::from).collect();
        let t = thin(b);
        assert_eq!(t.len(), MAX_CURVE_POINTS);
        assert_eq!(t.first(), Some(&0.0));
        assert_eq!(t.last(), Some(&999.0));
    }
}
