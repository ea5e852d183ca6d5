//! `lakeaudit plan`: choose Liquid Clustering keys per table under budgets
//! and emit the Delta SQL to apply them.

use crate::PlanFormat;
use anyhow::{Context, Result};
use planner::profile::ScanFacts;
use planner::{plan_instance, PlanInstance, Planned, PlannerConfig, TableStats};
use std::io::Write as _;
use std::path::Path;
use workload::time::parse_duration;
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
            report::plan_text::render(
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
/// (built with `--window`), the tables sized by the scans (`scans`) and
/// the statistics.
pub fn make_plan(
    scans: &ScanFacts,
    tables: &EdgeTables,
    args: &PlanArgs,
    stats: &TableStats,
    measured: &[planner::MeasuredKey],
) -> Result<Planned> {
    planner::plan_window(
        tables.latest(),
        scans.sizes.profiles(stats),
        args.config()?,
        args.algorithm(),
        measured,
    )
    .context("planning failed")
}

/// The savings view of `planned` (made for `tables.latest()`): window
/// length, executor time saved per served edge (`planner::savings`), and
/// the prices given.
pub fn money(
    tables: &EdgeTables,
    args: &PlanArgs,
    planned: &Planned,
    measured: &[planner::MeasuredKey],
) -> Result<report::Money> {
    Ok(report::Money {
        window_ms: parse_duration(&args.window)?,
        executor_ms: planner::savings::executor_ms(tables.latest(), planned, measured),
        cost_per_tb: args.cost_per_tb,
        cost_per_hour: args.cost_per_hour,
    })
}
