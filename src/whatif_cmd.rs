//! `lakeaudit whatif`: the files and bytes each logged scan of an audited
//! table reads, computed from the table's own statistics
//! (`skipping::current`).

use crate::output::{self, Format};
use crate::pipeline;
use crate::{report_problems, Inputs};
use anyhow::Result;
use skipping::workload::{
    measured, rows_of, wanted_columns, Engines, Options, ReadTables, Whatif, MAX_KEY_COLUMNS,
};
use skipping::Engine;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use workload::exec::Exec;
use workload::ingest::Ingested;

/// `--engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// `values` for an execution Databricks ran (its runtime or Photon
    /// operators in the log), else `minmax`.
    Auto,
    /// Partition pruning, and dynamic partition pruning by the build
    /// side's keys (Apache Spark reading plain Parquet files).
    None,
    /// Partition values and per-file min/max statistics against the
    /// scans' literal predicates (Delta data skipping, delta-kernel-rs and
    /// DuckDB, Iceberg manifest pruning).
    Minmax,
    /// As `minmax`, and the range of each join's build keys against each
    /// file's range (a dynamic filter's range applied to files).
    JoinRange,
    /// As `minmax`, and each join's build keys themselves against each
    /// file's range (Databricks dynamic file pruning).
    Values,
    /// `none`, `minmax`, `join-range` and `values`, one row each.
    All,
}

impl EngineArg {
    /// The engines evaluated.
    fn engines(self) -> Engines {
        match self {
            EngineArg::Auto => Engines::Auto,
            EngineArg::Minmax => Engines::Fixed(vec![Engine::MinMax]),
            EngineArg::None => Engines::Fixed(vec![Engine::None]),
            EngineArg::JoinRange => Engines::Fixed(vec![Engine::JoinRange]),
            EngineArg::Values => Engines::Fixed(vec![Engine::Values]),
            EngineArg::All => Engines::Fixed(vec![
                Engine::None,
                Engine::MinMax,
                Engine::JoinRange,
                Engine::Values,
            ]),
        }
    }
}

impl WhatifArgs {
    /// The evaluation's options.
    fn options(&self) -> Options {
        Options {
            engines: self.engine.engines(),
            build_rows: self.build_rows,
            sample_rows: self.sample_rows,
            current_only: self.current_only,
        }
    }
}

/// `lakeaudit whatif` arguments besides the inputs.
#[derive(clap::Args, Debug, Clone)]
pub struct WhatifArgs {
    /// Delta and Iceberg tables (or warehouse directories holding them)
    /// whose scans to evaluate, local or object-store URLs (`s3://`,
    /// `az://`, `abfss://`, `gs://`), matched to the logs' tables by
    /// location (local tables), else by name. Put it after the log paths.
    #[arg(long, value_name = "WAREHOUSE", num_args = 1.., required = true)]
    pub tables: Vec<PathBuf>,
    /// Read files the tables' metadata names outside their directories
    /// (see `lakeaudit tables --allow-outside-table`).
    #[arg(long)]
    pub allow_outside_table: bool,
    /// What the engine does with the tables' file statistics and with
    /// the keys of a join's build side.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Rows a join's build table may have for its keys to be read (every
    /// row of it); past it, its joins induce no predicate.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUILD_ROWS)]
    pub build_rows: u64,
    /// A layout to simulate: `TABLE=COL[,COL...]` (one column: rows
    /// sorted by it; 2 to 4: a Z-order curve over them); several tables
    /// in one flag separated by `;`. Repeatable. Without it, each table's
    /// filtered and joined columns are simulated one at a time.
    #[arg(long, value_name = "TABLE=COLS")]
    pub layout: Vec<String>,
    /// Rows read from each table for the simulation: past it, an evenly
    /// spread subset of whole data files.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SAMPLE_ROWS)]
    pub sample_rows: u64,
    /// Only the current layout: no simulation (reads no data files).
    #[arg(long, conflicts_with = "layout")]
    pub current_only: bool,
}

/// `--sample-rows` by default.
const DEFAULT_SAMPLE_ROWS: u64 = 1_000_000;
/// `--build-rows` by default.
const DEFAULT_BUILD_ROWS: u64 = 10_000_000;

/// `--layout` values as (table, columns) pairs.
fn parse_layouts(flags: &[String]) -> Result<Vec<(String, Vec<String>)>> {
    let mut out = Vec::new();
    for part in flags.iter().flat_map(|f| f.split(';')) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let Some((t, cols)) = part.split_once('=') else {
            return Err(crate::cli::UsageError(format!(
                "--layout {part}: expected TABLE=COL[,COL...]"
            ))
            .into());
        };
        let cols: Vec<String> = cols
            .split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect();
        if cols.is_empty() || cols.len() > MAX_KEY_COLUMNS {
            return Err(crate::cli::UsageError(format!(
                "--layout {part}: give 1 to {MAX_KEY_COLUMNS} columns"
            ))
            .into());
        }
        out.push((t.trim().to_string(), cols));
    }
    Ok(out)
}

/// Run the command; returns whether some input failed.
pub fn run(inputs: &Inputs, args: &WhatifArgs, format: Format, out: Option<&Path>) -> Result<bool> {
    let layouts = parse_layouts(&args.layout)?;
    let mut data = pipeline::load(inputs)?;
    let rows = rows(&mut data, args, &layouts).rows;
    match format {
        Format::Jsonl => output::write_records(&rows, out)?,
        other => output::write_columns(
            &report::columns::whatif(&rows, other == Format::Table),
            other,
            out,
        )?,
    }
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// The rows: every scan of an audited table, per engine, sorted by
/// (app id, execution id, scan, engine). Table errors and warnings go
/// into `data`.
pub fn rows(
    data: &mut Ingested<Exec>,
    args: &WhatifArgs,
    layouts: &[(String, Vec<String>)],
) -> Whatif {
    let read = read_tables(data, &args.tables, args.allow_outside_table, layouts);
    rows_of(data, &args.options(), layouts, read, true)
}

/// Read the tables under `paths` with the statistics of every column the
/// workload's scans (and `layouts`) name, for [`rows_of`].
pub fn read_tables(
    data: &Ingested<Exec>,
    paths: &[std::path::PathBuf],
    allow_outside_table: bool,
    layouts: &[(String, Vec<String>)],
) -> ReadTables {
    let wanted = wanted_columns(data, layouts);
    let opts = tables::ReadOptions {
        allow_outside_table,
        stats_columns: Some(Arc::new(wanted)),
        ..tables::ReadOptions::default()
    };
    maintenance::audit::read_each(paths, &opts, |t| t)
}

/// What `--tables` measures, on the tables the audit read
/// ([`crate::pipeline::table_inputs`], which reports their errors): the
/// generated candidates of every audited table under each execution's engine (`--engine auto`: `values` where
/// Databricks ran it, else `minmax`; [`rows`]), and for the planner the
/// measured keys (none with `--pricing assumed`).
pub fn measure(
    data: &mut Ingested<Exec>,
    score: &crate::edges_cmd::ScoreArgs,
    pricing: crate::plan_cmd::Pricing,
    read: Option<ReadTables>,
) -> (Whatif, Vec<planner::MeasuredKey>) {
    let Some(read) = read.filter(|_| !score.tables.is_empty()) else {
        return (Whatif::default(), Vec::new());
    };
    let args = WhatifArgs {
        tables: score.tables.clone(),
        allow_outside_table: score.allow_outside_table,
        engine: EngineArg::Auto,
        build_rows: DEFAULT_BUILD_ROWS,
        layout: Vec::new(),
        sample_rows: DEFAULT_SAMPLE_ROWS,
        current_only: false,
    };
    let w = rows_of(data, &args.options(), &[], read, false);
    let m = match pricing {
        crate::plan_cmd::Pricing::Measured => measured(&w.rows),
        crate::plan_cmd::Pricing::Assumed => Vec::new(),
    };
    (w, m)
}
