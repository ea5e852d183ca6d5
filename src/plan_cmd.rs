//! `lakeaudit plan`: choose Liquid Clustering keys per table under budgets
//! and emit the Delta SQL to apply them.

use crate::pipeline;
use crate::PlanFormat;
use anyhow::{Context, Result};
use planner::{
    human, human_budget, plan_instance, BudgetCurve, LeftOut, Plan, PlanInstance, Planned,
    PlannerConfig, TableProfile, TableStats,
};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use workload::exec::Exec;
use workload::time::format_time;
use workload::windows::EdgeTables;

/// Planner flags.
#[derive(clap::Args, Debug, Clone)]
pub struct PlanArgs {
    /// Rewrite budget B (`500GB`, `2TiB`, a byte count). Default: no
    /// limit, plan every change that pays (the budget curve shows what
    /// smaller budgets would buy).
    #[arg(long, value_name = "BYTES", value_parser = crate::cli::size, allow_hyphen_values = true)]
    pub budget: Option<u64>,
    /// Storage budget S for rewritten bytes kept until VACUUM (`1TiB`).
    /// Default: no limit.
    #[arg(long, value_name = "BYTES", value_parser = crate::cli::size, allow_hyphen_values = true)]
    pub storage_budget: Option<u64>,
    /// Fraction of a joined pair's scanned bytes saved when both tables are
    /// clustered on the join key (the paper's coefficient), above 0, at most 1.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.30, value_parser = crate::cli::fraction, allow_hyphen_values = true)]
    pub scan_reduction: f64,
    /// Planning horizon H, in windows (at least 1).
    #[arg(long, value_name = "WINDOWS", default_value_t = 4, value_parser = crate::cli::horizon, allow_hyphen_values = true)]
    pub horizon: u32,
    /// Discount rate r per window.
    #[arg(long, value_name = "RATE", default_value_t = 0.05, value_parser = crate::cli::non_negative, allow_hyphen_values = true)]
    pub discount: f64,
    /// Rewritten bytes kept until VACUUM, as a multiple of the rewrite.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0, value_parser = crate::cli::non_negative, allow_hyphen_values = true)]
    pub retention_factor: f64,
    /// Also plan for joins that ran only as BroadcastHashJoin.
    #[arg(long)]
    pub include_broadcast: bool,
    /// Use the exact solver (small instances only) instead of the default
    /// improved greedy.
    #[arg(long)]
    pub exact: bool,
    /// Window the plan is made for: the last window of this length of the
    /// input, ending at its last execution.
    #[arg(long, value_name = "LENGTH", default_value = "7d", value_parser = crate::cli::window, allow_hyphen_values = true)]
    pub window: String,
    /// Price of scanning 10^12 bytes (a TB), to show savings in money
    /// (same currency as --cost-per-hour).
    #[arg(long, value_name = "PRICE", value_parser = crate::cli::non_negative, allow_hyphen_values = true)]
    pub cost_per_tb: Option<f64>,
    /// Price of one executor hour (task run time), to show savings in money.
    #[arg(long, value_name = "PRICE", value_parser = crate::cli::non_negative, allow_hyphen_values = true)]
    pub cost_per_hour: Option<f64>,
    /// Leave alone every table smaller than this: rewritten it is one file
    /// (Delta OPTIMIZE's 1 GiB `maxFileSize`), and clustering skips files,
    /// not rows inside one. `0` plans every table.
    #[arg(long, value_name = "BYTES", default_value = "1GiB", value_parser = crate::cli::size)]
    pub min_table_size: u64,
    /// How the tables given with `--tables` are priced: `measured` (what
    /// their scans would skip on a min/max engine, simulated from their
    /// statistics and rows; joins skip nothing by themselves there) or
    /// `assumed` (the constant `--scan-reduction` of every join's bytes,
    /// as for tables without statistics; closer to engines that prune
    /// files by the join's build-side values, such as Databricks' dynamic
    /// file pruning, which lakeaudit does not simulate yet).
    #[arg(long, value_enum, default_value_t = Pricing::Measured)]
    pub pricing: Pricing,
}

/// `--pricing`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pricing {
    /// Simulated from the audited tables' statistics and rows.
    Measured,
    /// The constant scan reduction for every table.
    Assumed,
}

impl PlanArgs {
    /// The planner settings these flags give.
    pub fn config(&self) -> Result<PlannerConfig> {
        Ok(PlannerConfig {
            scan_reduction: self.scan_reduction,
            horizon: self.horizon,
            discount: self.discount,
            retention_factor: self.retention_factor,
            budget: self.budget,
            storage_budget: self.storage_budget,
            include_broadcast: self.include_broadcast,
            max_cluster_columns: 4,
            min_table_bytes: Some(self.min_table_size).filter(|&b| b > 0),
            left_alone: Default::default(),
        })
    }
}

impl PlanArgs {
    fn algorithm(&self) -> planner::Algorithm {
        if self.exact {
            planner::Algorithm::Exact
        } else {
            planner::Algorithm::Improved
        }
    }
}

/// `plan --instance FILE.json`: plan a stated instance. Returns false (no
/// input failed) or an error naming the file.
pub fn run_instance(
    path: &Path,
    args: &PlanArgs,
    format: PlanFormat,
    out: Option<&Path>,
) -> Result<bool> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read instance {}", path.display()))?;
    let mut inst =
        PlanInstance::from_json(&text).with_context(|| format!("instance {}", path.display()))?;
    if let Some(b) = args.budget {
        inst.budget = Some(b);
    }
    if let Some(b) = args.storage_budget {
        inst.storage_budget = Some(b);
    }
    let planned = plan_instance(&inst, args.algorithm())
        .with_context(|| format!("instance {}", path.display()))?;
    let mut o = crate::output::open_out(out)?;
    match format {
        PlanFormat::Text => o.write_all(
            render(
                &planned.plan,
                None,
                &planned.tables,
                &planned.left_out,
                &planned.budget_curve,
                None,
                (&[], args.scan_reduction),
            )
            .as_bytes(),
        )?,
        PlanFormat::Json => {
            serde_json::to_writer_pretty(&mut o, &planned)?;
            o.write_all(b"\n")?;
        }
        PlanFormat::Sql => o.write_all(planner::ddl(&planned.plan).as_bytes())?,
    }
    o.finish()?;
    Ok(false)
}

/// Make the plan for the most recent window of the run's edge tables
/// (built with `--window`).
pub fn make_plan(
    execs: &[Exec],
    tables: &EdgeTables,
    args: &PlanArgs,
    stats: &TableStats,
    measured: &[planner::MeasuredKey],
) -> Result<Planned> {
    planner::plan_window(
        tables.latest(),
        planner::profiles(pipeline::scan_observations(execs), stats),
        args.config()?,
        args.algorithm(),
        measured,
    )
    .context("planning failed")
}

/// The plan as text for a person, with its savings per week.
pub fn render_text(
    p: &Planned,
    money: &report::Money,
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

/// A plan, the window it is for, the table profiles it used, the paying
/// edges it leaves out and its budget curve, as text.
fn render(
    plan: &Plan,
    window: Option<(i64, i64)>,
    profiles: &[TableProfile],
    missed: &[LeftOut],
    curve: &BudgetCurve,
    run: Option<(
        &report::Money,
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
    for t in &plan.tables {
        // An instance describes Delta tables; a run on logs knows each
        // table's format (unknown when neither audited nor scanned).
        let format = match formats {
            None => planner::TableFormat::Delta,
            Some(f) => f
                .get(&t.table)
                .cloned()
                .unwrap_or(planner::TableFormat::Unknown),
        };
        let _ = writeln!(
            s,
            "\n{}  {}{}",
            t.table,
            planner::planned_layout(&t.keys, &format),
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
        if t.changed {
            match measured
                .iter()
                .find(|m| m.table == t.table && m.key == t.keys)
            {
                Some(m) => {
                    let r = &m.reads;
                    let pct = |read: u64| r.skipped_pct(read);
                    let _ = writeln!(
                        s,
                        "  measured (table statistics, min/max engine; {} executions this window): reads {} now ({:.1}% skipped, {} files), {} after ({:.1}% skipped, {} files)",
                        m.executions,
                        human(r.bytes_now as f64),
                        pct(r.bytes_now),
                        r.files_now,
                        human(r.bytes_after as f64),
                        pct(r.bytes_after),
                        r.files_after,
                    );
                }
                None if !measured.is_empty() && !measured.iter().any(|m| m.table == t.table) => {
                    let _ = writeln!(
                        s,
                        "  assumed: saves {:.0}% of the scanned bytes of the joins it serves (no table statistics: audit it with --tables)",
                        100.0 * scan_reduction
                    );
                }
                None => {}
            }
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
