//! `lakeaudit whatif`: the files and bytes each logged scan of an audited
//! table reads, computed from the table's own statistics
//! (`skipping::current`).

use crate::output::{self, Col, Format};
use crate::pipeline;
use crate::{report_problems, Inputs};
use anyhow::Result;
use skipping::workload::{
    measured, rows_of, wanted_columns, Engines, Options, ReadTables, Whatif, MAX_KEY_COLUMNS,
};
use skipping::{Engine, ScanRow};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use workload::exec::Exec;
use workload::exec::Workload;
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
    let mut data = pipeline::load(inputs, &workload::time::TimeRange::default())?;
    let rows = data.in_memory(|d| rows(d, args, &layouts))?.rows;
    match format {
        Format::Jsonl => output::write_to(out, |w| output::write_jsonl(&rows, w))?,
        other => output::write_columns(&columns(&rows, other == Format::Table), other, out)?,
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
    data: &mut Workload,
    score: &crate::edges_cmd::ScoreArgs,
    pricing: crate::plan_cmd::Pricing,
    read: Option<ReadTables>,
) -> Result<(Whatif, Vec<planner::MeasuredKey>)> {
    let Some(read) = read.filter(|_| !score.tables.is_empty()) else {
        return Ok((Whatif::default(), Vec::new()));
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
    let w = data.in_memory(|d| rows_of(d, &args.options(), &[], read, false))?;
    let m = match pricing {
        crate::plan_cmd::Pricing::Measured => measured(&w.rows),
        crate::plan_cmd::Pricing::Assumed => Vec::new(),
    };
    Ok((w, m))
}

/// The layout quality rows as columns (`layout_quality.csv`).
pub fn quality_columns(rows: &[skipping::quality::Quality]) -> Vec<Col> {
    let int = |f: fn(&skipping::quality::Quality) -> u64| {
        rows.iter().map(|r| Some(f(r) as i64)).collect()
    };
    vec![
        Col::Str(
            "table",
            rows.iter().map(|r| Some(r.table.clone())).collect(),
        ),
        Col::Str(
            "column",
            rows.iter().map(|r| Some(r.column.clone())).collect(),
        ),
        Col::Int("files", int(|r| r.files)),
        Col::Int("files_with_bounds", int(|r| r.files_with_bounds)),
        Col::Int("constant_files", int(|r| r.constant_files)),
        Col::Float(
            "average_overlap",
            rows.iter().map(|r| Some(r.average_overlap)).collect(),
        ),
        Col::Float(
            "average_depth",
            rows.iter().map(|r| Some(r.average_depth)).collect(),
        ),
        Col::Str(
            "depth_histogram",
            rows.iter()
                .map(|r| {
                    let h: Vec<String> = r
                        .depth_histogram
                        .iter()
                        .map(|(d, n)| format!("{d}:{n}"))
                        .collect();
                    Some(h.join(";"))
                })
                .collect(),
        ),
    ]
}

/// Tabular view; on a terminal the description is cut and sizes are
/// human.
pub fn columns(rows: &[ScanRow], terminal: bool) -> Vec<Col> {
    let int = |f: fn(&ScanRow) -> u64| rows.iter().map(|r| Some(f(r) as i64)).collect();
    let bytes = |name, f: fn(&ScanRow) -> u64| {
        if terminal {
            Col::Human(
                name,
                rows.iter().map(|r| Some(sql::human(f(r) as f64))).collect(),
            )
        } else {
            Col::Int(name, int(f))
        }
    };
    let mut cols = vec![
        Col::Str(
            "app_id",
            rows.iter().map(|r| Some(r.app_id.clone())).collect(),
        ),
        Col::Int("execution_id", int(|r| r.execution_id)),
        Col::Str(
            "description",
            rows.iter().map(|r| r.description.clone()).collect(),
        ),
        Col::Int("scan", int(|r| u64::from(r.scan))),
        Col::Str(
            "table",
            rows.iter().map(|r| Some(r.table.clone())).collect(),
        ),
        Col::Str(
            "layout",
            rows.iter().map(|r| Some(r.layout.clone())).collect(),
        ),
        Col::Str(
            "engine",
            rows.iter()
                .map(|r| Some(r.engine.as_str().into()))
                .collect(),
        ),
        Col::Int("files_total", int(|r| r.files_total)),
        Col::Int("files_read", int(|r| r.files_read)),
        bytes("bytes_total", |r| r.bytes_total),
        bytes("bytes_read", |r| r.bytes_read),
        Col::Int("files_without_stats", int(|r| r.files_without_stats)),
        Col::Int("unknown_predicates", int(|r| r.unknown_predicates)),
        Col::Str(
            "join_predicates",
            rows.iter()
                .map(|r| Some(r.join_predicates.clone()).filter(|s| !s.is_empty()))
                .collect(),
        ),
        Col::Int(
            "logged_files_read",
            rows.iter().map(|r| r.logged_files_read).collect(),
        ),
        Col::Int(
            "logged_bytes_read",
            rows.iter().map(|r| r.logged_bytes_read).collect(),
        ),
        Col::Int(
            "sample_rows",
            rows.iter()
                .map(|r| r.sample_rows.map(|n| n as i64))
                .collect(),
        ),
        Col::Int(
            "files_read_half_sample",
            rows.iter()
                .map(|r| r.files_read_half_sample.map(|n| n as i64))
                .collect(),
        ),
    ];
    if terminal {
        cols.retain(|c| {
            !matches!(
                c.name(),
                "app_id" | "logged_bytes_read" | "sample_rows" | "files_read_half_sample"
            )
        });
    }
    cols
}
