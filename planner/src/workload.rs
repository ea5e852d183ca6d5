//! From a workload's edge table to a plan: the edges become planner
//! demands, the most recent window with executions is planned for, and the
//! paying edges the plan leaves out are named with what they would need.

use crate::curve::BudgetCurve;
use crate::model::{Algorithm, EdgeDemand, LayoutPlan, LeaveAlone, PlannerConfig, TableProfile};
use crate::problem::Problem;
use crate::Result;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use workload::edges::{EdgeRow, ExecFacts};
use workload::windows::EdgeTable;

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
            measured_saving: None,
        })
        .collect()
}

/// Files and bytes a workload's scans of one table read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reads {
    /// Bytes read on the table as it is.
    pub bytes_now: u64,
    /// Bytes read under the key.
    pub bytes_after: u64,
    /// Files read on the table as it is.
    pub files_now: u64,
    /// Files read under the key.
    pub files_after: u64,
    /// Bytes in the scanned table, summed over the scans.
    pub bytes_scanned_table: u64,
}

impl Reads {
    /// The share of the scanned tables' bytes that reading `read` bytes
    /// skips, in percent.
    pub fn skipped_pct(&self, read: u64) -> f64 {
        if self.bytes_scanned_table == 0 {
            0.0
        } else {
            100.0 * (1.0 - read as f64 / self.bytes_scanned_table as f64)
        }
    }
}

impl std::ops::AddAssign for Reads {
    fn add_assign(&mut self, o: Reads) {
        self.bytes_now += o.bytes_now;
        self.bytes_after += o.bytes_after;
        self.files_now += o.files_now;
        self.files_after += o.files_after;
        self.bytes_scanned_table += o.bytes_scanned_table;
    }
}

/// How the tables given with `--tables` are priced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Pricing {
    /// Simulated from the audited tables' statistics and rows.
    Measured,
    /// The constant scan reduction for every table.
    Assumed,
}

/// What laying one table out by one key does to each execution's scans
/// of it, measured from the table's own statistics and rows (the
/// `skipping` crate): the input that replaces the assumed
/// `scan_reduction` for that table.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredKey {
    /// The table (as the plan names it).
    pub table: String,
    /// The clustering key, sorted.
    pub key: Vec<String>,
    /// Per execution, what its scans read.
    pub per_exec: BTreeMap<parsers::record::ExecRef, Reads>,
    /// The engine behaviour the reads assume (`minmax`, `values`, or both
    /// where the executions ran on different engines).
    pub engine: crate::engine::EngineSet,
    /// The files the simulated rewrite writes.
    pub files_after: u64,
    /// The rewrite simulated.
    pub rewrite: Option<RewriteSpec>,
    /// The table's bytes.
    pub bytes: u64,
}

/// The rewrite a measured key was simulated for, which the plan's
/// statements run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RewriteSpec {
    /// The rewriter.
    pub rewriter: crate::engine::Rewriter,
    /// The file size it writes towards.
    pub target_size: u64,
    /// The size was asked for (`--target-size`): the statements set the
    /// table's property to it first.
    pub set_property: bool,
}

/// One measured key over the window planned for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasuredWindow {
    /// The table.
    pub table: String,
    /// The key, sorted.
    pub key: Vec<String>,
    /// Executions of the window that scan the table.
    pub executions: u64,
    /// What they read now and under the key.
    #[serde(flatten)]
    pub reads: Reads,
    /// The engine behaviour the reads assume ([`MeasuredKey::engine`]).
    pub engine: crate::engine::EngineSet,
    /// The rewrite simulated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<RewriteSpec>,
}

/// A join edge priced by its tables' measurements instead of the assumed
/// reduction ([`with_measured`]), and what became of it: it is not one of
/// the planner's demands, so it is neither served nor left out in the
/// plan's own terms (issue 32.8: every edge is said).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplacedEdge {
    /// `left(cols) = right(cols)`.
    pub label: String,
    /// What its measured tables' keys did, per table.
    pub reason: String,
}

/// Why each replaced join demand is not in the plan as itself: per
/// measured table of the edge, whether the plan re-lays it out, whether a
/// measured key of it saves bytes in the window, or whether none does.
fn replaced_reasons(
    replaced: &[EdgeDemand],
    measured: &[MeasuredWindow],
    plan: &crate::LayoutPlan,
) -> Vec<ReplacedEdge> {
    let human = |b: u64| crate::human(b as f64);
    let table_reason = |t: &str| -> Option<String> {
        let keys: Vec<&MeasuredWindow> = measured.iter().filter(|m| m.table == t).collect();
        if let Some(d) = plan.tables.iter().find(|d| d.changed && d.table == t) {
            return Some(format!(
                "{t} is re-laid out on ({}) for what its scans measured",
                d.keys.join(", ")
            ));
        }
        let best = keys
            .iter()
            .max_by_key(|m| m.reads.bytes_now.saturating_sub(m.reads.bytes_after))?;
        let saving = best.reads.bytes_now.saturating_sub(best.reads.bytes_after);
        Some(if saving == 0 {
            format!(
                "{t}: none of its {} measured key(s) saves a byte in this window (its scans read {} now, and as much or more under each)",
                keys.len(),
                human(best.reads.bytes_now)
            )
        } else {
            format!(
                "{t}: its best measured key ({}) saves {} a window, which the plan does not take (see left_out and left_alone)",
                best.key.join(", "),
                human(saving)
            )
        })
    };
    replaced
        .iter()
        .map(|d| {
            let mut tables = vec![d.left_table.as_str()];
            if d.right_table != d.left_table {
                tables.push(d.right_table.as_str());
            }
            let parts: Vec<String> = tables.into_iter().filter_map(table_reason).collect();
            ReplacedEdge {
                label: d.label(),
                reason: if parts.is_empty() {
                    "priced by its tables' measurements, which no scan of this window read".into()
                } else {
                    parts.join("; ")
                },
            }
        })
        .collect()
}

/// The demands with measured tables priced by measurement: every join
/// demand touching a measured table is replaced by that table's own
/// demands, one per measured key, each saving what its scans in the
/// window (`facts`) read now minus under the key. Returns the demands,
/// the measured keys over the window, and the join demands replaced.
pub fn with_measured(
    demands: Vec<EdgeDemand>,
    facts: &[ExecFacts],
    measured: &[MeasuredKey],
) -> (Vec<EdgeDemand>, Vec<MeasuredWindow>, Vec<EdgeDemand>) {
    if measured.is_empty() {
        return (demands, Vec::new(), Vec::new());
    }
    let tables: BTreeSet<&str> = measured.iter().map(|m| m.table.as_str()).collect();
    let ids: BTreeSet<(&str, u64)> = facts
        .iter()
        .map(|f| (f.app_id.as_str(), f.execution_id))
        .collect();
    let (replaced, mut out): (Vec<EdgeDemand>, Vec<EdgeDemand>) =
        demands.into_iter().partition(|d| {
            tables.contains(d.left_table.as_str()) || tables.contains(d.right_table.as_str())
        });
    let mut windows = Vec::new();
    for m in measured {
        let mut reads = Reads::default();
        let mut executions = 0;
        for (id, r) in &m.per_exec {
            if ids.contains(&(id.app_id.as_str(), id.execution_id)) {
                reads += *r;
                executions += 1;
            }
        }
        if executions == 0 {
            continue;
        }
        let saving = reads.bytes_now.saturating_sub(reads.bytes_after);
        windows.push(MeasuredWindow {
            table: m.table.clone(),
            key: m.key.clone(),
            executions,
            reads,
            engine: m.engine.clone(),
            rewrite: m.rewrite.clone(),
        });
        if saving == 0 {
            // Nothing to gain: not a demand (the table keeps its layout).
            continue;
        }
        out.push(EdgeDemand {
            left_table: m.table.clone(),
            left_columns: m.key.clone(),
            right_table: m.table.clone(),
            right_columns: m.key.clone(),
            jis: 0.0,
            scanned_bytes: reads.bytes_now as f64,
            smj_count: 0,
            bhj_count: 0,
            other_count: executions,
            measured_saving: Some(saving as f64),
        });
    }
    (out, windows, replaced)
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
    pub plan: LayoutPlan,
    /// Paying edges the plan does not serve, best first (see [`left_out`]).
    pub left_out: Vec<LeftOut>,
    /// NPV against rewrite budget, the plan's point marked (see [`mod@crate::curve`]).
    pub curve: BudgetCurve,
    /// The measured keys over the window (tables priced by measurement).
    pub measured: Vec<MeasuredWindow>,
    /// Join demands replaced by their tables' measured demands, each
    /// with what became of it.
    pub replaced: Vec<ReplacedEdge>,
}

/// The JSON form of a [`Planned`]: the plan's fields, the window, and the
/// table profiles with where each figure came from.
#[derive(Serialize)]
pub struct PlanJson<'a> {
    /// The plan.
    #[serde(flatten)]
    pub plan: &'a LayoutPlan,
    /// Start of the window planned for.
    pub window_start_ms: Option<i64>,
    /// End of that window.
    pub window_end_ms: Option<i64>,
    /// Table sizes and layouts used, with their source.
    pub table_profiles: &'a [TableProfile],
    /// NPV against rewrite budget, the plan's point marked.
    pub budget_curve: &'a BudgetCurve,
    /// Tables priced by measurement: per key, what the window's scans
    /// read now and under it.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub measured: &'a [MeasuredWindow],
    /// Edges that would pay on their own but are not in the plan, and why
    /// (the reports list the first few and point here for the rest).
    pub left_out: &'a [LeftOut],
    /// Join edges priced by their tables' measurements, and what became
    /// of each.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub replaced: &'a [ReplacedEdge],
}

impl Planned {
    /// The rewrite each measured table was simulated for (its statements
    /// run that rewrite).
    pub fn rewrites(&self) -> std::collections::BTreeMap<String, RewriteSpec> {
        let mut out = std::collections::BTreeMap::new();
        for m in &self.measured {
            if let Some(r) = &m.rewrite {
                out.entry(m.table.clone()).or_insert_with(|| r.clone());
            }
        }
        out
    }

    /// The JSON view.
    pub fn json(&self) -> PlanJson<'_> {
        PlanJson {
            plan: &self.plan,
            window_start_ms: self.window.map(|w| w.0),
            window_end_ms: self.window.map(|w| w.1),
            table_profiles: &self.profiles,
            budget_curve: &self.curve,
            measured: &self.measured,
            left_out: &self.left_out,
            replaced: &self.replaced,
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
    plan: &LayoutPlan,
) -> Result<Vec<LeftOut>> {
    let problem = Problem::build(profiles, demands, config)?;
    let mut out = left_out_of(&problem, plan);
    if out
        .iter()
        .any(|l| matches!(l.reason, LeftOutReason::LeftAlone { .. }))
    {
        // What an edge kept out by a rule would need without the rule.
        let free = PlannerConfig {
            left_alone: BTreeMap::new(),
            ..config.clone()
        };
        let all = Problem::build(profiles, demands, &free)?;
        for l in out
            .iter_mut()
            .filter(|l| matches!(l.reason, LeftOutReason::LeftAlone { .. }))
        {
            if let Some(e) = all
                .edges
                .iter()
                .find(|e| all.input_edges[e.input].label == l.label)
            {
                (l.rewrite_bytes, l.standalone_npv) = all.standalone(e);
            }
        }
        out.retain(|l| {
            l.standalone_npv > 0.0 || !matches!(l.reason, LeftOutReason::LeftAlone { .. })
        });
        out.sort_by(|a, b| {
            b.standalone_npv
                .total_cmp(&a.standalone_npv)
                .then_with(|| a.label.cmp(&b.label))
        });
    }
    Ok(out)
}

/// [`left_out`] on an indexed instance.
pub(crate) fn left_out_of(problem: &Problem, plan: &LayoutPlan) -> Vec<LeftOut> {
    let served: BTreeSet<usize> = plan
        .tables
        .iter()
        .flat_map(|t| t.edges_served.iter().map(|e| e.edge.index))
        .collect();
    let left_alone: BTreeMap<&str, &LeaveAlone> = plan
        .left_alone
        .iter()
        .map(|l| (l.table.as_str(), &l.reason))
        .collect();
    let budgeted = plan.budget.is_some() || plan.storage_budget.is_some();
    let mut out: Vec<LeftOut> = problem
        .edges
        .iter()
        .filter(|e| !served.contains(&e.input))
        .filter_map(|e| {
            let (rewrite_bytes, standalone_npv) = problem.standalone(e);
            if standalone_npv <= 0.0 {
                return None;
            }
            let sides = [(e.a, e.ka), (e.b, e.kb)];
            let reason = sides
                .iter()
                .filter(|&&(_, k)| k != 0)
                .find_map(|&(t, _)| {
                    let name = &problem.tables[t].name;
                    left_alone
                        .get(name.as_str())
                        .map(|why| LeftOutReason::LeftAlone {
                            table: name.clone(),
                            why: (*why).clone(),
                        })
                })
                .or_else(|| {
                    sides.iter().find_map(|&(t, k)| {
                        let tbl = &problem.tables[t];
                        let d = plan.tables.iter().find(|d| d.table == tbl.name)?;
                        if d.keys == tbl.options[k] {
                            return None;
                        }
                        let best = d
                            .edges_served
                            .iter()
                            .max_by(|x, y| x.scan_reduction.total_cmp(&y.scan_reduction))?;
                        Some(LeftOutReason::Conflict {
                            table: tbl.name.clone(),
                            keys: d.keys.clone(),
                            serves: best.edge.label.clone(),
                        })
                    })
                })
                .unwrap_or(if budgeted {
                    LeftOutReason::OverBudget
                } else {
                    LeftOutReason::CostsMore
                });
            Some(LeftOut {
                label: problem.input_edges[e.input].label.clone(),
                rewrite_bytes,
                standalone_npv,
                reason,
            })
        })
        .collect();
    // Edges the rules keep out (a table left alone) pay on their own too.
    for s in &problem.skipped {
        let Some((table, why)) = left_alone
            .iter()
            .find(|(t, _)| s.reason.starts_with(&format!("needs {t} re-laid out")))
        else {
            continue;
        };
        out.push(LeftOut {
            label: s.edge.label.clone(),
            rewrite_bytes: 0.0,
            standalone_npv: 0.0,
            reason: LeftOutReason::LeftAlone {
                table: table.to_string(),
                why: (*why).clone(),
            },
        });
    }
    out.sort_by(|a, b| {
        b.standalone_npv
            .total_cmp(&a.standalone_npv)
            .then_with(|| a.label.cmp(&b.label))
    });
    out
}

/// An edge the plan leaves out, with what serving it alone would need and
/// why it is not in the plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeftOut {
    /// `left(cols) = right(cols)`.
    pub label: String,
    /// Bytes its tables' rewrites would cost from the current layouts
    /// (0 when a table it needs is left alone).
    pub rewrite_bytes: f64,
    /// Its NPV alone: discounted saving minus those rewrites and storage
    /// (0 when a table it needs is left alone).
    pub standalone_npv: f64,
    /// Why the plan leaves it out.
    pub reason: LeftOutReason,
}

/// Why an edge that would pay on its own is not in the plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LeftOutReason {
    /// One of its tables gets another key, which serves an edge worth more.
    Conflict {
        /// The table.
        table: String,
        /// The key the plan gives it.
        keys: Vec<String>,
        /// The most valuable edge that key serves.
        serves: String,
    },
    /// It needs a table re-laid out that a planning rule keeps as it is.
    LeftAlone {
        /// The table.
        table: String,
        /// The rule.
        why: LeaveAlone,
    },
    /// The rewrite or storage budget has no room for it.
    OverBudget,
    /// Beside the plan's other changes it costs more than it saves.
    CostsMore,
}

impl std::fmt::Display for LeftOutReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LeftOutReason::Conflict {
                table,
                keys,
                serves,
            } => write!(
                f,
                "conflicts with {} on {table}, which serves an edge worth more ({serves})",
                keys.join(", ")
            ),
            LeftOutReason::LeftAlone { table, why } => {
                write!(f, "needs {table}, which is left alone: {why}")
            }
            LeftOutReason::OverBudget => f.write_str("over the budget"),
            LeftOutReason::CostsMore => {
                f.write_str("costs more than it saves beside the plan's other changes")
            }
        }
    }
}

/// Plan for one edge table of the workload (the most recent window with
/// executions, or the whole input when no execution has a start time:
/// `workload::windows::EdgeTables::latest`); the tables with measured keys
/// are priced by them ([`with_measured`]).
pub fn plan_window(
    table: &EdgeTable,
    profiles: Vec<TableProfile>,
    config: PlannerConfig,
    algorithm: Algorithm,
    measured: &[MeasuredKey],
) -> Result<Planned> {
    let (demands, measured, replaced) =
        with_measured(demands(&table.edges), &table.facts, measured);
    let config = crate::settle(&profiles, &demands, &config, algorithm)?;
    let (plan, curve) = crate::plan_and_curve(&profiles, &demands, &config, algorithm)?;
    let left_out = left_out(&profiles, &demands, &config, &plan)?;
    let replaced = replaced_reasons(&replaced, &measured, &plan);
    Ok(Planned {
        profiles,
        window: table.window,
        demands,
        config,
        plan,
        left_out,
        curve,
        measured,
        replaced,
    })
}
