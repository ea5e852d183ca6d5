//! `lakeaudit plan`: choose Liquid Clustering keys per table under budgets
//! and emit the SQL (Delta or Iceberg) to apply them.

use crate::cli::Inputs;
use anyhow::{Context, Result};
use planner::{plan_instance, PlanInstance, PlannerConfig};
use std::path::{Path, PathBuf};

/// `lakeaudit plan` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub score: crate::edges_cmd::ScoreArgs,
    #[command(flatten)]
    pub plan: crate::plan_cmd::PlanArgs,
    /// Plan a planning instance written as JSON (tables, candidate keys and
    /// their costs, edges with the key each side needs, budgets)
    /// instead of logs; `--budget`/`--storage-budget` override its budgets.
    #[arg(long, value_name = "FILE.json", conflicts_with = "paths")]
    pub instance: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
    pub format: PlanFormat,
    /// Write to FILE instead of standard output (`-`: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Formats of `lakeaudit plan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// Readable summary.
    Text,
    /// The plan as JSON.
    Json,
    /// The SQL to run (Delta or Iceberg, per table), with runbook comments.
    Sql,
}

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
    #[arg(long, value_name = "FRACTION", default_value_t = PlannerConfig::default().scan_reduction, value_parser = crate::cli::fraction, allow_hyphen_values = true)]
    pub scan_reduction: f64,
    /// Planning horizon H, in windows (at least 1).
    #[arg(long, value_name = "WINDOWS", default_value_t = PlannerConfig::default().horizon, value_parser = crate::cli::horizon, allow_hyphen_values = true)]
    pub horizon: u32,
    /// Discount rate r per window.
    #[arg(long, value_name = "RATE", default_value_t = PlannerConfig::default().discount, value_parser = crate::cli::non_negative, allow_hyphen_values = true)]
    pub discount: f64,
    /// Rewritten bytes kept until VACUUM, as a multiple of the rewrite.
    #[arg(long, value_name = "FACTOR", default_value_t = PlannerConfig::default().retention_factor, value_parser = crate::cli::non_negative, allow_hyphen_values = true)]
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
    /// Leave alone every table smaller than this. Default: a table
    /// audited with `--tables` is left alone when its rewrite (by
    /// `--rewriter`, at its target size) makes fewer than two files, since
    /// clustering skips files, not rows inside one; a table known only
    /// from the logs below 1 GiB (Delta OPTIMIZE's `maxFileSize`). `0`
    /// plans every table.
    #[arg(long, value_name = "BYTES", value_parser = crate::cli::size, allow_hyphen_values = true)]
    pub min_table_size: Option<u64>,
    /// The engine whose rewrite the audited tables' layouts are priced
    /// by (see `lakeaudit whatif --rewriter`).
    #[arg(long, value_enum, default_value_t = skipping::rewriter::RewriterChoice::Auto)]
    pub rewriter: skipping::rewriter::RewriterChoice,
    /// The file size that rewrite writes towards (`128MB`); default: the
    /// table's property, else the rewriter's default.
    #[arg(long, value_name = "BYTES", value_parser = crate::cli::positive_size, allow_hyphen_values = true)]
    pub target_size: Option<u64>,
    /// How the tables given with `--tables` are priced: `measured` (what
    /// their scans would skip on a min/max engine, simulated from their
    /// statistics and rows; joins skip nothing by themselves there) or
    /// `assumed` (the constant `--scan-reduction` of every join's bytes,
    /// as for tables without statistics; closer to engines that prune
    /// files by the join's build-side values, such as Databricks' dynamic
    /// file pruning, which lakeaudit does not simulate yet).
    #[arg(long, value_enum, default_value_t = planner::Pricing::Measured)]
    pub pricing: planner::Pricing,
}

/// The size below which a table known only from the logs is left alone
/// by default: Delta OPTIMIZE's `maxFileSize`, under which its rewrite is
/// one file.
pub const DEFAULT_MIN_TABLE_BYTES: u64 = skipping::rewriter::SPARK_DELTA_TARGET;

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
            min_table_bytes: match self.min_table_size {
                Some(b) => Some(b).filter(|&b| b > 0),
                None => Some(DEFAULT_MIN_TABLE_BYTES),
            },
            ..PlannerConfig::default()
        })
    }
}

impl PlanArgs {
    pub fn algorithm(&self) -> planner::Algorithm {
        if self.exact {
            planner::Algorithm::Exact
        } else {
            planner::Algorithm::Improved
        }
    }
}

/// `plan --instance FILE.json`: plan a stated instance. Returns false (no
/// input failed) or an error naming the file.
pub fn run(a: &Args) -> Result<bool> {
    let Some(path) = a.instance.as_deref() else {
        return crate::analyze::plan(a);
    };
    let (args, format, out) = (&a.plan, a.format, crate::cli::out_path(a.output.as_deref()));
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
    write_plan(
        out,
        format,
        || report::plan_text::instance(&planned, args.scan_reduction),
        &planned,
        || planner::ddl(&planned.plan),
    )?;
    Ok(false)
}

/// Write a plan in `format`: the text, the JSON or the SQL.
pub fn write_plan(
    out: Option<&Path>,
    format: PlanFormat,
    text: impl FnOnce() -> String,
    json: &impl serde::Serialize,
    sql: impl FnOnce() -> String,
) -> Result<()> {
    crate::output::write_to(out, |o| {
        match format {
            PlanFormat::Text => o.write_all(text().as_bytes())?,
            PlanFormat::Json => {
                serde_json::to_writer_pretty(&mut *o, json)?;
                o.write_all(b"\n")?;
            }
            PlanFormat::Sql => o.write_all(sql().as_bytes())?,
        }
        Ok(())
    })
}
