//! The layout plan as text for a person (`lakeaudit plan`'s default
//! output): the window planned for, each table's layout with what it
//! costs and serves, what the plan leaves out and why, and the budget
//! curve.

use crate::Money;
use planner::{
    human, human_budget, BudgetCurve, LayoutPlan, LeftOut, MeasuredWindow, Planned, TableDecision,
    TableProfile,
};
use std::fmt::Write as _;
use workload::time::format_time;

/// What every rendering of a plan (this text, `report.md`'s plan section,
/// `report.html`) says of one of its tables: the layout in the words of
/// the table's format, and how its saving is priced.
pub(crate) struct TableView<'a> {
    /// The plan's decision.
    pub t: &'a TableDecision,
    /// The layout, in the words of the table's format.
    pub layout: String,
    /// What the table's scans read now and under the plan's key, when
    /// the table was measured (`--tables`).
    pub measured: Option<&'a MeasuredWindow>,
    /// Priced by the assumed scan reduction while other tables were
    /// measured (no statistics of its own).
    pub assumed: bool,
}

/// The views of `plan`'s tables (all, or the changed ones), each table's
/// format from `format`.
pub(crate) fn table_views<'a>(
    plan: &'a LayoutPlan,
    measured: &'a [MeasuredWindow],
    changed_only: bool,
    format: impl Fn(&str) -> &'a planner::TableFormat,
) -> Vec<TableView<'a>> {
    plan.tables
        .iter()
        .filter(|t| t.changed || !changed_only)
        .map(|t| TableView {
            t,
            layout: planner::planned_layout(&t.keys, format(&t.table)),
            measured: measured
                .iter()
                .find(|m| t.changed && m.table == t.table && m.key == t.keys),
            assumed: t.changed
                && !measured.is_empty()
                && !measured.iter().any(|m| m.table == t.table),
        })
        .collect()
}

/// The plan as text for a person, with its savings per week.
pub fn planned(
    p: &Planned,
    money: &Money,
    formats: &std::collections::BTreeMap<String, planner::TableFormat>,
) -> String {
    render(
        &p.plan,
        p.window,
        &p.profiles,
        &p.left_out,
        &p.curve,
        Some((money, formats)),
        (&p.measured, p.config.scan_reduction),
    )
}

/// The plan of a stated instance (`plan --instance`), as text: its tables
/// are Delta tables, and every saving is the assumed `scan_reduction`.
pub fn instance(p: &planner::InstancePlan, scan_reduction: f64) -> String {
    render(
        &p.plan,
        None,
        &p.tables,
        &p.left_out,
        &p.budget_curve,
        None,
        (&[], scan_reduction),
    )
}

/// A plan, the window it is for, the table profiles it used, the paying
/// edges it leaves out and its budget curve, as text.
pub fn render(
    plan: &LayoutPlan,
    window: Option<(i64, i64)>,
    profiles: &[TableProfile],
    missed: &[LeftOut],
    curve: &BudgetCurve,
    run: Option<(
        &Money,
        &std::collections::BTreeMap<String, planner::TableFormat>,
    )>,
    (measured, scan_reduction): (&[planner::MeasuredWindow], f64),
) -> String {
    let money = run.map(|r| r.0);
    let formats = run.map(|r| r.1);
    let mut s = String::new();
    let _ = writeln!(s, "Layout plan ({} planner)", plan.algorithm);
    if let Some((a, b)) = window {
        let _ = writeln!(
            s,
            "window: {} .. {} (the last of the input; JIS and savings are this window's)",
            format_time(a),
            format_time(b)
        );
    }
    let _ = writeln!(
        s,
        "rewrite {} (budget: {}); storage {} (budget: {})",
        human(plan.rewrite_cost as f64),
        human_budget(plan.budget),
        human(plan.storage_cost as f64),
        human_budget(plan.storage_budget),
    );
    let _ = writeln!(
        s,
        "NPV {} over the horizon (annuity factor {:.4})",
        human(plan.total_npv),
        plan.annuity_factor
    );
    let changed: Vec<_> = plan.tables.iter().filter(|t| t.changed).collect();
    if changed.is_empty() {
        let _ = writeln!(s, "\nNo layout change pays for itself within the budgets.");
    }
    // An instance describes Delta tables; a run on logs knows each
    // table's format (unknown when neither audited nor scanned).
    static DELTA: planner::TableFormat = planner::TableFormat::Delta;
    static UNKNOWN: planner::TableFormat = planner::TableFormat::Unknown;
    let format = |t: &str| match formats {
        None => &DELTA,
        Some(f) => f.get(t).unwrap_or(&UNKNOWN),
    };
    for v in table_views(plan, measured, false, format) {
        let t = v.t;
        let _ = writeln!(
            s,
            "\n{}  {}{}",
            t.table,
            v.layout,
            if !t.changed {
                "  [already in place]".to_string()
            } else if t.replace {
                "  [partitioned: replace]".to_string()
            } else if let Some(k) = t.key_drift() {
                format!("  [key drift: now clustered on ({})]", k.join(", "))
            } else {
                String::new()
            }
        );
        let src = profiles
            .iter()
            .find(|x| x.table == t.table)
            .map(|x| x.source.as_str())
            .unwrap_or("unknown");
        let _ = writeln!(
            s,
            "  rewrite {}  storage {}  NPV share {}  (size from {src})",
            human(t.rewrite_bytes as f64),
            human(t.storage_bytes as f64),
            human(t.npv_contribution)
        );
        if let Some(m) = v.measured {
            let r = &m.reads;
            let pct = |read: u64| r.skipped_pct(read);
            let _ = writeln!(
                s,
                "  measured (table statistics, {} engine; {} executions this window): reads {} now ({:.1}% skipped, {} files), {} after ({:.1}% skipped, {} files)",
                m.engine,
                m.executions,
                human(r.bytes_now as f64),
                pct(r.bytes_now),
                r.files_now,
                human(r.bytes_after as f64),
                pct(r.bytes_after),
                r.files_after,
            );
        } else if v.assumed {
            let _ = writeln!(
                s,
                "  assumed: saves {:.0}% of the scanned bytes of the joins it serves (no table statistics: audit it with --tables)",
                100.0 * scan_reduction
            );
        }
        for e in &t.edges_served {
            let week = money
                .map(|m| format!(" ({} a week)", m.describe(m.edge(e))))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  serves {}  JIS {:.3}  saves {}/window{week}",
                e.edge.label,
                e.edge.jis,
                human(e.scan_reduction)
            );
        }
    }
    if !plan.excluded_broadcast.is_empty() {
        let _ = writeln!(
            s,
            "\nBroadcast-only joins, not planned for (clustering does not help a broadcast; --include-broadcast to plan them):"
        );
        for e in &plan.excluded_broadcast {
            let _ = writeln!(s, "  {}  JIS {:.3}", e.label, e.jis);
        }
    }
    if !plan.left_alone.is_empty() {
        let _ = writeln!(s, "\nLeft alone (kept in their current layout):");
        for l in &plan.left_alone {
            let _ = writeln!(s, "  {}: {}", l.table, l.reason);
        }
    }
    if !missed.is_empty() {
        let _ = writeln!(
            s,
            "\nWould pay on their own but are not in the plan, and why:"
        );
        for m in missed.iter().take(10) {
            if m.standalone_npv > 0.0 {
                let _ = writeln!(
                    s,
                    "  {}  needs a rewrite of {}  stand-alone NPV {}: {}",
                    m.label,
                    human(m.rewrite_bytes),
                    human(m.standalone_npv),
                    m.reason
                );
            } else {
                let _ = writeln!(s, "  {}: {}", m.label, m.reason);
            }
        }
    }
    for e in plan
        .skipped
        .iter()
        .filter(|e| !missed.iter().any(|m| m.label == e.edge.label))
    {
        let _ = writeln!(s, "skipped {}: {}", e.edge.label, e.reason);
    }
    render_curve(&mut s, curve);
    s
}

/// The budget curve, one line per step: what each rewrite budget buys.
fn render_curve(s: &mut String, c: &BudgetCurve) {
    if c.points.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\nBudget curve (best NPV per rewrite budget{}; storage budget: {}):",
        if c.exact { ", exact" } else { "" },
        human_budget(c.storage_budget)
    );
    let _ = writeln!(
        s,
        "  {:>12}  {:>12}  {:>6}  {:>5}",
        "budget", "NPV", "tables", "edges"
    );
    for pt in &c.points {
        let _ = writeln!(
            s,
            "  {:>12}  {:>12}  {:>6}  {:>5}{}",
            human(pt.budget as f64),
            human(pt.npv),
            pt.tables_changed,
            pt.edges_served,
            if pt.chosen { "  <- this plan" } else { "" }
        );
    }
}
