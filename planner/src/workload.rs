//! From a workload's edge table to a plan: the edges become planner
//! demands, the most recent window with executions is planned for, and the
//! paying edges the plan leaves out are named with what they would need.

use crate::curve::BudgetCurve;
use crate::model::{Algorithm, EdgeDemand, Plan, PlannerConfig, TableProfile};
use crate::problem::Problem;
use crate::Result;
use graph::edges::{
    build_edges, data_align, windows, CostMeasure, EdgeRow, ExecFacts, RowFallback,
};
use serde::Serialize;
use std::collections::BTreeSet;

/// Planner demands from an edge table, one per edge, in the table's order.
pub fn demands(rows: &[EdgeRow]) -> Vec<EdgeDemand> {
    rows.iter()
        .map(|r| EdgeDemand {
            left_table: r.left_table.clone(),
            left_columns: r.left_columns.clone(),
            right_table: r.right_table.clone(),
            right_columns: r.right_columns.clone(),
            jis: r.jis,
            scanned_bytes: r.scanned_bytes,
            smj_count: r.smj_count,
            bhj_count: r.bhj_count,
            other_count: r.other_count,
        })
        .collect()
}

/// A plan with what it was made from.
#[derive(Clone, Debug)]
pub struct Planned {
    /// The table profiles used.
    pub profiles: Vec<TableProfile>,
    /// The window planned for (`None` when no execution has a start time:
    /// the whole input).
    pub window: Option<(i64, i64)>,
    /// The edge demands given to the planner (indexed by `EdgeRef::index`).
    pub demands: Vec<EdgeDemand>,
    /// The planner settings used.
    pub config: PlannerConfig,
    /// The plan.
    pub plan: Plan,
    /// Paying edges the plan does not serve, best first (see [`left_out`]).
    pub left_out: Vec<LeftOut>,
    /// NPV against rewrite budget, the plan's point marked (see [`crate::curve`]).
    pub curve: BudgetCurve,
}

/// The JSON form of a [`Planned`]: the plan's fields, the window, and the
/// table profiles with where each figure came from.
#[derive(Serialize)]
pub struct PlanJson<'a> {
    /// The plan.
    #[serde(flatten)]
    pub plan: &'a Plan,
    /// Start of the window planned for.
    pub window_start_ms: Option<i64>,
    /// End of that window.
    pub window_end_ms: Option<i64>,
    /// Table sizes and layouts used, with their source.
    pub table_profiles: &'a [TableProfile],
    /// NPV against rewrite budget, the plan's point marked.
    pub budget_curve: &'a BudgetCurve,
}

impl Planned {
    /// The JSON view.
    pub fn json(&self) -> PlanJson<'_> {
        PlanJson {
            plan: &self.plan,
            window_start_ms: self.window.map(|w| w.0),
            window_end_ms: self.window.map(|w| w.1),
            table_profiles: &self.profiles,
            budget_curve: &self.curve,
        }
    }
}

/// Edges that would pay on their own but that `plan` does not serve (the
/// budget, or a conflicting key on a shared table), best first: what a
/// larger budget or another choice would buy. Costs and savings are the
/// planner's own.
pub fn left_out(
    profiles: &[TableProfile],
    demands: &[EdgeDemand],
    config: &PlannerConfig,
    plan: &Plan,
) -> Result<Vec<LeftOut>> {
    let problem = Problem::build(profiles, demands, config)?;
    Ok(left_out_of(&problem, plan))
}

/// [`left_out`] on an indexed instance.
pub(crate) fn left_out_of(problem: &Problem, plan: &Plan) -> Vec<LeftOut> {
    let served: BTreeSet<usize> = plan
        .tables
        .iter()
        .flat_map(|t| t.edges_served.iter().map(|e| e.edge.index))
        .collect();
    let mut out: Vec<LeftOut> = problem
        .edges
        .iter()
        .filter(|e| !served.contains(&e.input))
        .filter_map(|e| {
            let (rewrite_bytes, standalone_npv) = problem.standalone(e);
            (standalone_npv > 0.0).then(|| LeftOut {
                label: problem.input_edges[e.input].label.clone(),
                rewrite_bytes,
                standalone_npv,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.standalone_npv
            .total_cmp(&a.standalone_npv)
            .then_with(|| a.label.cmp(&b.label))
    });
    out
}

/// A paying edge the plan does not serve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeftOut {
    /// `left(cols) = right(cols)`.
    pub label: String,
    /// Bytes its tables' rewrites would cost.
    pub rewrite_bytes: f64,
    /// Its NPV if it were the only change.
    pub standalone_npv: f64,
}

/// Plan for the most recent window of `width_ms`, which ends at the last
/// execution (windows are aligned to the data: [`data_align`]), or for the
/// whole input when no execution has a start time.
pub fn plan_latest_window(
    facts: Vec<ExecFacts>,
    width_ms: i64,
    cost: CostMeasure,
    fallback: &RowFallback,
    profiles: Vec<TableProfile>,
    config: PlannerConfig,
    algorithm: Algorithm,
) -> Result<Planned> {
    let wins = windows(&facts, width_ms, data_align(&facts, width_ms));
    let (window, facts) = match wins.into_iter().rev().find(|(_, _, ex)| !ex.is_empty()) {
        Some((s, e, ex)) => (Some((s, e)), ex),
        None => (None, facts),
    };
    let demands = demands(&build_edges(&facts, cost, fallback));
    let (plan, curve) = crate::plan_and_curve(&profiles, &demands, &config, algorithm)?;
    let left_out = left_out(&profiles, &demands, &config, &plan)?;
    Ok(Planned {
        profiles,
        window,
        demands,
        config,
        plan,
        left_out,
        curve,
    })
}
