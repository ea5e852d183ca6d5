//! `lakeaudit plan`: choose Liquid Clustering keys per table under budgets
//! and emit the Delta SQL to apply them.

use crate::edges_cmd::ScoreArgs;
use crate::pipeline::{self, Exec};
use crate::PlanFormat;
use anyhow::{Context, Result};
use graph::edges::CostMeasure;
use graph::time::{format_time, parse_duration};
use planner::{
    human, human_budget, parse_size, plan_instance, BudgetCurve, LeftOut, Plan, PlanInstance,
    Planned, PlannerConfig, TableProfile, TableStats,
};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// Planner flags.
#[derive(clap::Args, Debug, Clone)]
pub struct PlanArgs {
    /// Rewrite budget B (bytes; `500GB`, `2TiB`, ...). Default: no limit,
    /// plan every change that pays (the budget curve shows what smaller
    /// budgets would buy).
    #[arg(long)]
    pub budget: Option<String>,
    /// Storage budget S for rewritten bytes kept until VACUUM. Default: no
    /// limit.
    #[arg(long)]
    pub storage_budget: Option<String>,
    /// Fraction of a joined pair's scanned bytes saved when both tables are
    /// clustered on the join key (the paper's coefficient).
    #[arg(long, default_value_t = 0.30)]
    pub scan_reduction: f64,
    /// Planning horizon H, in windows.
    #[arg(long, default_value_t = 4)]
    pub horizon: u32,
    /// Discount rate r per window.
    #[arg(long, default_value_t = 0.05)]
    pub discount: f64,
    /// Rewritten bytes kept until VACUUM, as a multiple of the rewrite.
    #[arg(long, default_value_t = 1.0)]
    pub retention_factor: f64,
    /// Also plan for joins that ran only as BroadcastHashJoin.
    #[arg(long)]
    pub include_broadcast: bool,
    /// Use the exact solver (small instances only) instead of the default
    /// improved greedy.
    #[arg(long)]
    pub exact: bool,
    /// Window the plan is made for: the most recent window of this length.
    #[arg(long, default_value = "7d")]
    pub window: String,
}

impl PlanArgs {
    /// The planner settings these flags give.
    pub fn config(&self) -> Result<PlannerConfig> {
        Ok(PlannerConfig {
            scan_reduction: self.scan_reduction,
            horizon: self.horizon,
            discount: self.discount,
            retention_factor: self.retention_factor,
            budget: self.budget.as_deref().map(parse_size).transpose()?,
            storage_budget: self.storage_budget.as_deref().map(parse_size).transpose()?,
            include_broadcast: self.include_broadcast,
            max_cluster_columns: 4,
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
    if let Some(b) = args.budget.as_deref() {
        inst.budget = Some(parse_size(b)?);
    }
    if let Some(b) = args.storage_budget.as_deref() {
        inst.storage_budget = Some(parse_size(b)?);
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

/// Make the plan for the most recent window.
pub fn make_plan(
    execs: &[Exec],
    score: &ScoreArgs,
    args: &PlanArgs,
    stats: &TableStats,
) -> Result<Planned> {
    let algorithm = args.algorithm();
    planner::plan_latest_window(
        pipeline::select(execs, score)?,
        parse_duration(&args.window)?,
        CostMeasure::from(score.cost),
        &stats.row_fallback(),
        planner::profiles(pipeline::scan_observations(execs), stats),
        args.config()?,
        algorithm,
    )
    .context("planning failed")
}

/// The plan as text for a person.
pub fn render_text(p: &Planned) -> String {
    render(&p.plan, p.window, &p.profiles, &p.left_out, &p.curve)
}

/// A plan, the window it is for, the table profiles it used, the paying
/// edges it leaves out and its budget curve, as text.
fn render(
    plan: &Plan,
    window: Option<(i64, i64)>,
    profiles: &[TableProfile],
    missed: &[LeftOut],
    curve: &BudgetCurve,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Layout plan ({} planner)", plan.algorithm);
    if let Some((a, b)) = window {
        let _ = writeln!(s, "window: {} .. {}", format_time(a), format_time(b));
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
        let _ = writeln!(
            s,
            "\n{}  CLUSTER BY ({}){}",
            t.table,
            t.keys.join(", "),
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
        for e in &t.edges_served {
            let _ = writeln!(
                s,
                "  serves {}  JIS {:.3}  saves {}/window",
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
    if !missed.is_empty() {
        let _ = writeln!(
            s,
            "\nWould pay on their own but are not in the plan (budget or a conflicting key on a shared table):"
        );
        for m in missed.iter().take(10) {
            let _ = writeln!(
                s,
                "  {}  needs a rewrite of {}  stand-alone NPV {}",
                m.label,
                human(m.rewrite_bytes),
                human(m.standalone_npv)
            );
        }
    }
    for e in &plan.skipped {
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
