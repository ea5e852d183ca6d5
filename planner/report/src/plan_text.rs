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
    let mut s = render(
        &p.plan,
        p.window,
        &p.profiles,
        &p.left_out,
        &p.curve,
        Some((money, formats)),
        (&p.measured, p.config.scan_reduction),
    );
    // Every edge is said (issue 32.8): the join edges the tables'
    // measurements priced instead are neither served nor left out.
    if !p.replaced.is_empty() {
        let _ = writeln!(
            s,
            "\nJoin edges priced by their tables' measurements, and what became of them:"
        );
        for r in &p.replaced {
            let _ = writeln!(s, "  {}: {}", r.label, r.reason);
        }
    }
    s
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
            } else if let Some(note) = layout_note(t, format(&t.table)) {
                format!("  [{note}]")
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
            // A table's own demand has no join, so no JIS: what it serves
            // is the scans that filter the table, and what it saves is
            // measured.
            let own = measured
                .iter()
                .find(|m| m.table == t.table && own_filters(&m.table, &m.key) == e.edge.label);
            match own {
                Some(m) => {
                    let r = &m.reads;
                    let _ = writeln!(
                        s,
                        "  serves its filters: {} execution(s) scan it this window; predicted to read {} fewer file(s) ({} → {}) and save {}/window{week}",
                        m.executions,
                        r.files_now.saturating_sub(r.files_after),
                        r.files_now,
                        r.files_after,
                        human(e.scan_reduction)
                    );
                }
                None => {
                    let _ = writeln!(
                        s,
                        "  serves {}  JIS {:.3}  saves {}/window{week}",
                        e.edge.label,
                        e.edge.jis,
                        human(e.scan_reduction)
                    );
                }
            }
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
            let _ = writeln!(s, "  {}", left_out_line(m));
        }
        if missed.len() > 10 {
            let _ = writeln!(
                s,
                "  … and {} more (plan.json lists them all)",
                missed.len() - 10
            );
        }
    }
    let skipped = skipped_groups(plan, missed);
    if !skipped.is_empty() {
        let _ = writeln!(s, "\nEdges the planner could not plan for, and why:");
        for (reason, edges) in skipped {
            if let [one] = edges.as_slice() {
                let _ = writeln!(s, "  {one}: {reason}");
            } else {
                let _ = writeln!(s, "  {} edges: {reason}:", edges.len());
                for e in edges {
                    let _ = writeln!(s, "    {e}");
                }
            }
        }
    }
    render_curve(&mut s, curve);
    s
}

/// `table(cols): its filters`, the label of a table's own demand
/// ([`planner::EdgeDemand::label`]).
fn own_filters(table: &str, key: &[String]) -> String {
    format!("{table}({}): its filters", key.join(", "))
}

/// What a change says besides its layout: a Delta table that is
/// partitioned is replaced (`CREATE OR REPLACE … CLUSTER BY`); an Iceberg
/// table keeps its partition spec and is sorted within each partition.
/// `None` when there is nothing to say.
pub(crate) fn layout_note(t: &TableDecision, format: &planner::TableFormat) -> Option<String> {
    match (format, &t.previous) {
        (planner::TableFormat::Delta, _) if t.replace => Some("partitioned: replace".into()),
        (planner::TableFormat::Iceberg, planner::Layout::Partitioned(p)) => Some(format!(
            "keeps its partitioning by ({}); sorted within each partition",
            p.join(", ")
        )),
        _ => None,
    }
}

/// One left-out edge (or table demand) as a sentence: what serving it
/// alone would need and bring, then why the plan leaves it out.
fn left_out_line(m: &LeftOut) -> String {
    let what = match m.label.strip_suffix(": its filters") {
        Some(table_key) => format!("{table_key} for its own filters"),
        None => m.label.clone(),
    };
    if m.standalone_npv > 0.0 {
        format!(
            "{what}: alone it would need a rewrite of {} for an NPV of {}; left out: {}",
            human(m.rewrite_bytes),
            human(m.standalone_npv),
            m.reason
        )
    } else {
        format!("{what}: left out: {}", m.reason)
    }
}

/// The edges the planner could not plan for (`plan.skipped`), except those
/// listed as left out (`missed`, with their reason there), grouped by
/// their reason: one table left alone keeps out every edge that needs it
/// re-laid out, one reason for many edges. Reasons in order of first
/// appearance, edges in the plan's order. Every rendering of a plan lists
/// these groups.
pub(crate) fn skipped_groups<'a>(
    plan: &'a LayoutPlan,
    missed: &[LeftOut],
) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for e in plan
        .skipped
        .iter()
        .filter(|e| !missed.iter().any(|m| m.label == e.edge.label))
    {
        match groups.iter_mut().find(|(r, _)| *r == e.reason.as_str()) {
            Some((_, edges)) => edges.push(&e.edge.label),
            None => groups.push((&e.reason, vec![&e.edge.label])),
        }
    }
    groups
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

#[cfg(test)]
mod tests {
    use super::*;
    use planner::{EdgeRef, Layout, LeftOutReason, Reads, ServedEdge, SkippedEdge, TableFormat};
    use std::collections::BTreeMap;

    fn edge(index: usize, label: &str, jis: f64) -> EdgeRef {
        EdgeRef {
            index,
            label: label.into(),
            jis,
        }
    }

    fn decision(table: &str, keys: &[&str], previous: Layout, replace: bool) -> TableDecision {
        TableDecision {
            table: table.into(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
            previous,
            changed: true,
            replace,
            rewrite_bytes: 267 << 20,
            storage_bytes: 267 << 20,
            edges_served: Vec::new(),
            npv_contribution: 6e9,
        }
    }

    fn plan(tables: Vec<TableDecision>, skipped: Vec<SkippedEdge>) -> LayoutPlan {
        LayoutPlan {
            tables,
            total_npv: 6e9,
            rewrite_cost: 0,
            storage_cost: 0,
            budget: None,
            storage_budget: None,
            annuity_factor: 3.5,
            excluded_broadcast: Vec::new(),
            skipped,
            algorithm: "improved".into(),
            left_alone: Vec::new(),
        }
    }

    fn text(
        p: &LayoutPlan,
        missed: &[LeftOut],
        measured: &[MeasuredWindow],
        formats: &[(&str, TableFormat)],
    ) -> String {
        let formats: BTreeMap<String, TableFormat> = formats
            .iter()
            .map(|(t, f)| (t.to_string(), f.clone()))
            .collect();
        let curve = BudgetCurve {
            storage_budget: None,
            cheapest_change: 0,
            points: Vec::new(),
            chosen: None,
            exact: true,
        };
        render(
            p,
            None,
            &[],
            missed,
            &curve,
            Some((&Money::default(), &formats)),
            (measured, 0.3),
        )
    }

    /// A change driven by a table's own filters has no JIS: the text says
    /// what it serves (the executions scanning the table) and what the
    /// measurement predicts (files and bytes saved).
    #[test]
    fn a_filter_driven_change_says_what_it_serves_not_a_jis() {
        let mut d = decision("db.events", &["e_day"], Layout::None, false);
        d.edges_served.push(ServedEdge {
            edge: edge(0, "db.events(e_day): its filters", 0.0),
            scan_reduction: 3.0 * 1024.0 * 1024.0,
        });
        let measured = [MeasuredWindow {
            table: "db.events".into(),
            key: vec!["e_day".into()],
            executions: 12,
            reads: Reads {
                bytes_now: 4 << 20,
                bytes_after: 1 << 20,
                files_now: 48,
                files_after: 6,
                bytes_scanned_table: 48 << 20,
            },
            engine: planner::engine::Engine::MinMax.into(),
            rewrite: None,
        }];
        let s = text(
            &plan(vec![d], vec![]),
            &[],
            &measured,
            &[("db.events", TableFormat::Delta)],
        );
        assert!(!s.contains("JIS 0.000"), "{s}");
        assert!(
            s.contains("  serves its filters: 12 execution(s) scan it this window; predicted to read 42 fewer file(s) (48 → 6) and save 3.0 MiB/window"),
            "{s}"
        );
    }

    /// Each left-out edge is one sentence: what serving it alone needs
    /// and brings, then why it is left out.
    #[test]
    fn left_out_lines_read_as_sentences() {
        let missed = [
            LeftOut {
                label: "db.lineitem(l_shipdate): its filters".into(),
                rewrite_bytes: 267.6 * 1024.0 * 1024.0,
                standalone_npv: 6.0 * 1024.0 * 1024.0 * 1024.0,
                reason: LeftOutReason::OverBudget,
            },
            LeftOut {
                label: "a(x) = b(y)".into(),
                rewrite_bytes: 0.0,
                standalone_npv: 0.0,
                reason: LeftOutReason::CostsMore,
            },
        ];
        let s = text(&plan(vec![], vec![]), &missed, &[], &[]);
        assert!(
            s.contains("\n  db.lineitem(l_shipdate) for its own filters: alone it would need a rewrite of 267.6 MiB for an NPV of 6.0 GiB; left out: over the budget\n"),
            "{s}"
        );
        assert!(
            s.contains("\n  a(x) = b(y): left out: costs more than it saves beside the plan's other changes\n"),
            "{s}"
        );
        assert!(!s.contains("  needs a rewrite"), "{s}");
    }

    /// Edges kept out for one reason (one table left alone) are one group:
    /// the reason once, then the edges.
    #[test]
    fn skipped_edges_are_grouped_by_reason() {
        let why = "needs db.events re-laid out, which the plan leaves alone: smaller than one target file";
        let mut skipped: Vec<SkippedEdge> = ["e_custkey", "e_day", "e_page"]
            .iter()
            .enumerate()
            .map(|(i, k)| SkippedEdge {
                edge: edge(i, &format!("db.events({k}): its filters"), 0.0),
                reason: why.into(),
            })
            .collect();
        skipped.push(SkippedEdge {
            edge: edge(3, "a(x, y, z) = b(x, y, z)", 0.1),
            reason: "key needs 3 columns, more than max_cluster_columns = 2".into(),
        });
        let s = text(&plan(vec![], skipped), &[], &[], &[]);
        assert_eq!(s.matches(why).count(), 1, "{s}");
        assert!(
            s.contains(&format!("\n  3 edges: {why}:\n    db.events(e_custkey): its filters\n    db.events(e_day): its filters\n    db.events(e_page): its filters\n")),
            "{s}"
        );
        assert!(
            s.contains("\n  a(x, y, z) = b(x, y, z): key needs 3 columns, more than max_cluster_columns = 2\n"),
            "{s}"
        );
        assert!(!s.contains("skipped "), "{s}");
    }

    /// A partitioned Iceberg table keeps its spec (the SQL sorts within
    /// each partition): no "replace"; a partitioned Delta table is replaced.
    #[test]
    fn only_a_partitioned_delta_table_is_replaced() {
        let part = || Layout::Partitioned(vec!["d".into()]);
        let p = plan(
            vec![
                decision("cat.db.ice", &["k"], part(), true),
                decision("cat.db.dl", &["k"], part(), true),
            ],
            vec![],
        );
        let s = text(
            &p,
            &[],
            &[],
            &[
                ("cat.db.ice", TableFormat::Iceberg),
                ("cat.db.dl", TableFormat::Delta),
            ],
        );
        assert!(
            s.contains("cat.db.ice  WRITE ORDERED BY k  [keeps its partitioning by (d); sorted within each partition]"),
            "{s}"
        );
        assert!(
            s.contains("cat.db.dl  CLUSTER BY (k)  [partitioned: replace]"),
            "{s}"
        );
        assert_eq!(s.matches("replace").count(), 1, "{s}");
    }
}
