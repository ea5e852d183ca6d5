//! What every command shares on its command line: the value parsers that
//! check each flag before any input is read (so an error names the flag
//! and the forms it accepts, as clap prints it:
//! `invalid value '10 gigs' for '--storage-budget <BYTES>': …`), the exit
//! codes, the default output format and the terminal's width.

use crate::output::Format;
use anyhow::Result;
use planner::PlannerConfig;
use std::path::{Path, PathBuf};
use workload::edges::CostMeasure;

/// Shared input arguments: logs, `--records` or `--aggregates`.
pub use workload::inputs::Inputs;

/// Where a command's result goes and in which format (`queries`,
/// `edges`, `drift`, `whatif`).
#[derive(clap::Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format; default: from the extension of `-o FILE`
    /// (`.jsonl`, `.csv`, `.parquet`, `.txt`), else a table on a
    /// terminal and JSON lines on a pipe.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output (`-`: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `-o FILE`, or `None` for standard output (no `-o`, or `-o -`).
pub fn out_path(output: Option<&Path>) -> Option<&Path> {
    output.filter(|p| *p != Path::new("-"))
}

impl OutputArgs {
    /// The format: `--format`, else `-o FILE`'s extension, else the default
    /// ([`tabular::format::default_for`]); a contradiction is a usage error.
    pub fn format(&self) -> anyhow::Result<Format> {
        Ok(tabular::format::resolve(
            self.format,
            self.path(),
            tabular::format::default_for(self.path()),
        )?)
    }

    /// `-o FILE`, or `None` for standard output.
    pub fn path(&self) -> Option<&Path> {
        out_path(self.output.as_deref())
    }
}

/// Every input was read.
pub const EXIT_OK: u8 = 0;
/// `drift --exit-code`: every input was read and a re-plan is due.
pub const EXIT_REPLAN: u8 = 1;
/// Some input could not be read (or an output not written); the others'
/// results were still written.
pub const EXIT_INPUT: u8 = 2;
/// The command line is wrong (unknown flag, bad value, missing argument):
/// nothing was read. `EX_USAGE` of BSD's sysexits.h.
pub const EXIT_USAGE: u8 = 64;
/// A bug in lakeaudit (a panic no input's boundary caught), as Rust's own
/// exit code for a panic.
pub const EXIT_INTERNAL: u8 = 101;

/// The exit code for an error: [`EXIT_USAGE`] for a command-line mistake
/// that clap cannot see ([`tabular::Error::Usage`]: a `--format` that
/// `-o FILE`'s extension contradicts, Parquet to a terminal, a bad
/// `--storage-option`), found before any input is read; else
/// [`EXIT_INPUT`].
pub fn exit_code(e: &anyhow::Error) -> u8 {
    let usage = |c: &(dyn std::error::Error + 'static)| {
        matches!(c.downcast_ref(), Some(tabular::Error::Usage(_)))
    };
    if e.chain().any(usage) {
        EXIT_USAGE
    } else {
        EXIT_INPUT
    }
}

const SIZE_FORMS: &str = "a byte count or a number with a unit: 128MB, 500GB, 1.5TB (powers of 1000), 128MiB, 2TiB (powers of 1024); units B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB";

/// A size flag (`--budget`, `--storage-budget`, `--target-size`): bytes.
pub fn size(s: &str) -> Result<u64, String> {
    planner::parse_size(s).map_err(|_| format!("expected {SIZE_FORMS}"))
}

/// A size that must be at least one byte (`--target-size`: files are cut
/// at it).
pub fn positive_size(s: &str) -> Result<u64, String> {
    match size(s)? {
        0 => Err("must be at least 1 byte (files are cut at this size)".into()),
        n => Ok(n),
    }
}

/// A window length (`--window`), parsed once: its milliseconds, and the
/// text as the user wrote it (the reports print it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// The length, ms (above zero).
    pub ms: i64,
    /// As given (`7d`).
    pub text: String,
}

impl std::fmt::Display for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// `--window`: a [`Window`].
pub fn window(s: &str) -> Result<Window, String> {
    workload::time::parse_duration(s)
        .map(|ms| Window {
            ms,
            text: s.to_string(),
        })
        .map_err(|e| match e {
            workload::Error::Duration { reason, .. } => reason,
            other => other.to_string(),
        })
}

/// `--store-timeout`: a length with a unit (`30s`, `2m`, `500ms`), above
/// zero and at most a day. A bare number is refused (other length flags
/// read it as days, which is no timeout for a request).
pub fn store_timeout(s: &str) -> Result<std::time::Duration, String> {
    const FORMS: &str = "expected a length with a unit, such as 30s, 2m or 500ms";
    if s.trim().parse::<f64>().is_ok() {
        return Err(format!("{FORMS} (a bare number has no unit)"));
    }
    let ms = workload::time::parse_duration(s).map_err(|_| FORMS.to_string())?;
    match u64::try_from(ms) {
        Ok(0) | Err(_) => Err("must be above zero".into()),
        Ok(ms) if ms > 86_400_000 => Err("must be at most a day (24h)".into()),
        Ok(ms) => Ok(std::time::Duration::from_millis(ms)),
    }
}

/// A time flag (`--since`, `--until`), parsed once: epoch ms.
pub fn time(s: &str) -> Result<i64, String> {
    workload::time::parse_time(s).map_err(|_| {
        "expected epoch milliseconds, a date (2026-10-05), a UTC date-time (2026-10-05T09:00:00Z, 2026-10-05 09:00) or one with an offset (2026-10-05T11:00:00+02:00)".to_string()
    })
}

/// A count that must be at least 1 (`--threads`).
pub fn positive(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of at least 1".into()),
    }
}

/// A count of rows that must be at least 1 (`--sample-rows`).
pub fn positive_u64(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1 (--current-only simulates no layout)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of at least 1".into()),
    }
}

/// A `KEY=VALUE` pair (`--storage-option`); the key is checked when the
/// stores are configured.
pub fn key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err("expected KEY=VALUE (e.g. aws_endpoint=http://127.0.0.1:9000)".into()),
    }
}

/// A planning horizon in windows (`--horizon`): at least 1.
pub fn horizon(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("must be at least 1 window (a plan over no window saves nothing)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of windows, at least 1".into()),
    }
}

fn number(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| "expected a number".to_string())?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err("expected a finite number".into())
    }
}

/// A share in (0, 1] (`--scan-reduction`: 0.30 is 30 %).
pub fn fraction(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err("expected a fraction above 0 and at most 1 (0.30 for 30%)".into())
    }
}

/// A number ≥ 0 (`--discount`, `--retention-factor`, `--threshold`,
/// `--cost-per-tb`, `--cost-per-hour`).
pub fn non_negative(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err("expected a number of at least 0".into())
    }
}

/// Flags shared by every command that scores edges.
#[derive(clap::Args, Debug, Clone)]
pub struct ScoreArgs {
    /// Only executions starting at or after this time (epoch ms,
    /// YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC).
    #[arg(long, value_name = "TIME", value_parser = time, allow_hyphen_values = true)]
    pub since: Option<i64>,
    /// Only executions starting before this time.
    #[arg(long, value_name = "TIME", value_parser = time, allow_hyphen_values = true)]
    pub until: Option<i64>,
    /// Cost C of an execution: wall-clock duration or executor CPU time.
    #[arg(long, value_enum, default_value_t = CostMeasure::Duration)]
    pub cost: CostMeasure,
    /// Table statistics (CSV or JSON: table, bytes, rows, files,
    /// partitioned_by, clustered_by) used where the logs lack them.
    #[arg(long, value_name = "FILE")]
    pub table_stats: Option<PathBuf>,
    /// Delta and Iceberg tables (or warehouse directories holding them) to
    /// audit, local or object-store URLs (`s3://`, `az://`, `abfss://`,
    /// `gs://`): their real sizes, live rows and clustering keys go to the
    /// planner (over `--table-stats`), matched to the logs' tables by
    /// location (local tables), else by name. Put it after the log paths.
    /// `from-logs`: the tables the logs read, where their plans or their
    /// catalog settings put them, inside the other `--tables` paths.
    #[arg(long, value_name = "WAREHOUSE", num_args = 1..)]
    pub tables: Vec<PathBuf>,
    /// With `--tables`: read files the tables' metadata names outside
    /// their directories (see `lakeaudit tables --allow-outside-table`);
    /// with `--tables from-logs`, follow the logs to tables anywhere.
    #[arg(long)]
    pub allow_outside_table: bool,
}

/// Planner flags.
#[derive(clap::Args, Debug, Clone)]
pub struct PlanArgs {
    /// Rewrite budget B (`500GB`, `2TiB`, a byte count). Default: no
    /// limit, plan every change that pays (the budget curve shows what
    /// smaller budgets would buy).
    #[arg(long, value_name = "BYTES", value_parser = size, allow_hyphen_values = true)]
    pub budget: Option<u64>,
    /// Storage budget S for rewritten bytes kept until VACUUM (`1TiB`).
    /// Default: no limit.
    #[arg(long, value_name = "BYTES", value_parser = size, allow_hyphen_values = true)]
    pub storage_budget: Option<u64>,
    /// Fraction of a joined pair's scanned bytes saved when both tables are
    /// clustered on the join key (the paper's coefficient), above 0, at most 1.
    #[arg(long, value_name = "FRACTION", default_value_t = PlannerConfig::default().scan_reduction, value_parser = fraction, allow_hyphen_values = true)]
    pub scan_reduction: f64,
    /// Planning horizon H, in windows (at least 1).
    #[arg(long, value_name = "WINDOWS", default_value_t = PlannerConfig::default().horizon, value_parser = horizon, allow_hyphen_values = true)]
    pub horizon: u32,
    /// Discount rate r per window.
    #[arg(long, value_name = "RATE", default_value_t = PlannerConfig::default().discount, value_parser = non_negative, allow_hyphen_values = true)]
    pub discount: f64,
    /// Rewritten bytes kept until VACUUM, as a multiple of the rewrite.
    #[arg(long, value_name = "FACTOR", default_value_t = PlannerConfig::default().retention_factor, value_parser = non_negative, allow_hyphen_values = true)]
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
    #[arg(long, value_name = "LENGTH", default_value = "7d", value_parser = window, allow_hyphen_values = true)]
    pub window: Window,
    /// Price of scanning 10^12 bytes (a TB), to show savings in money
    /// (same currency as --cost-per-hour).
    #[arg(long, value_name = "PRICE", value_parser = non_negative, allow_hyphen_values = true)]
    pub cost_per_tb: Option<f64>,
    /// Price of one executor hour (task run time), to show savings in money.
    #[arg(long, value_name = "PRICE", value_parser = non_negative, allow_hyphen_values = true)]
    pub cost_per_hour: Option<f64>,
    /// Leave alone every table smaller than this. Default: a table
    /// audited with `--tables` is left alone when its rewrite (by
    /// `--rewriter`, at its target size) makes fewer than two files, since
    /// clustering skips files, not rows inside one; a table known only
    /// from the logs below 1 GiB (Delta OPTIMIZE's `maxFileSize`). `0`
    /// plans every table.
    #[arg(long, value_name = "BYTES", value_parser = size, allow_hyphen_values = true)]
    pub min_table_size: Option<u64>,
    /// The engine whose rewrite the audited tables' layouts are priced
    /// by (see `lakeaudit whatif --rewriter`).
    #[arg(long, value_enum, default_value_t = skipping::rewriter::RewriterChoice::Auto)]
    pub rewriter: skipping::rewriter::RewriterChoice,
    /// The file size that rewrite writes towards (`128MB`); default: the
    /// table's property, else the rewriter's default.
    #[arg(long, value_name = "BYTES", value_parser = positive_size, allow_hyphen_values = true)]
    pub target_size: Option<u64>,
    /// How the tables given with `--tables` are priced: `measured` (what
    /// their scans would skip under `--engine`'s model, simulated from
    /// their statistics and rows) or
    /// `assumed` (the constant `--scan-reduction` of every join's bytes,
    /// as for tables without statistics; closer to engines that prune
    /// files by the join's build-side values, such as Databricks' dynamic
    /// file pruning, which lakeaudit does not simulate yet).
    #[arg(long, value_enum, default_value_t = planner::Pricing::Measured)]
    pub pricing: planner::Pricing,
    /// The engine model the audited tables' scans are priced by: `auto`
    /// (the model each table's logged file counts fit, else `values` where
    /// Databricks ran the scan and `minmax` elsewhere), `none`, `minmax`,
    /// `join-range` or `values` (see `lakeaudit whatif --engine`). Give
    /// the model of the engine that will read the rewritten tables when
    /// it is not the one that wrote the logs (a Delta table the logs read
    /// as plain Parquet, to be read by a Delta reader: `minmax`).
    #[arg(long, value_name = "MODEL", default_value = "auto", value_parser = one_engine)]
    pub engine: skipping::workload::EngineChoice,
}

/// `--engine` of `plan` and `analyze`: one model, not `all`.
fn one_engine(s: &str) -> Result<skipping::workload::EngineChoice, String> {
    use clap::ValueEnum;
    use skipping::workload::EngineChoice;
    match EngineChoice::from_str(s, false) {
        Ok(EngineChoice::All) | Err(_) => Err(format!(
            "{s:?} is not one of auto, none, minmax, join-range, values (the plan prices by one model)"
        )),
        Ok(e) => Ok(e),
    }
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
