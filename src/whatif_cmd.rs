//! `lakeaudit whatif`: the files and bytes each logged scan of an audited
//! table reads, computed from the table's own statistics
//! (`skipping::current`).

use crate::output::{self, Col, Format};
use crate::pipeline;
use crate::{report_problems, Inputs};
use anyhow::Result;
use graph::tables::{short_table, Locations};
use skipping::{Engine, ScanRow};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `--engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// Partition pruning only (Apache Spark reading plain Parquet files).
    None,
    /// Partition values and per-file min/max statistics against the
    /// scans' literal predicates (Delta data skipping, delta-kernel-rs and
    /// DuckDB, Iceberg manifest pruning).
    Minmax,
    /// Both, one row each.
    All,
}

impl EngineArg {
    fn engines(self) -> Vec<Engine> {
        match self {
            EngineArg::None => vec![Engine::None],
            EngineArg::Minmax => vec![Engine::MinMax],
            EngineArg::All => vec![Engine::None, Engine::MinMax],
        }
    }
}

/// `lakeaudit whatif` arguments besides the inputs.
#[derive(clap::Args, Debug, Clone)]
pub struct WhatifArgs {
    /// Delta and Iceberg tables (or warehouse directories holding them)
    /// whose scans to evaluate, matched to the logs' tables by location,
    /// else by name. Put it after the log paths.
    #[arg(long, value_name = "WAREHOUSE", num_args = 1.., required = true)]
    pub tables: Vec<PathBuf>,
    /// Read files the tables' metadata names outside their directories
    /// (see `lakeaudit tables --allow-outside-table`).
    #[arg(long)]
    pub allow_outside_table: bool,
    /// What the engine does with the tables' file statistics.
    #[arg(long, value_enum, default_value_t = EngineArg::Minmax)]
    pub engine: EngineArg,
}

/// The column name of a scan's output attribute (`l_shipdate#19`).
fn column_name(attr: &str) -> &str {
    attr.split('#').next().unwrap_or(attr)
}

/// Run the command; returns whether some input failed.
pub fn run(inputs: &Inputs, args: &WhatifArgs, format: Format, out: Option<&Path>) -> Result<bool> {
    let mut data = pipeline::load(inputs)?;
    let rows = rows(&mut data, args);
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
pub fn rows(data: &mut crate::ingest::Ingested<pipeline::Exec>, args: &WhatifArgs) -> Vec<ScanRow> {
    let mut locations = Locations::default();
    let mut wanted = BTreeSet::new();
    for e in &data.records {
        for s in &e.record.scans {
            locations.observe(&s.table, s.location.as_deref());
            wanted.extend(s.columns.iter().map(|c| column_name(c).to_string()));
        }
    }
    let opts = tables::ReadOptions {
        allow_outside_table: args.allow_outside_table,
        stats_columns: Some(Arc::new(wanted)),
        ..tables::ReadOptions::default()
    };
    let (read, errors) = crate::tables_cmd::read_each(&args.tables, &opts, |t| t);
    data.errors.extend(errors);
    let mut by_id: BTreeMap<String, tables::TableState> = BTreeMap::new();
    for t in read {
        let t = match t {
            Ok(t) => t,
            Err(e) => {
                data.errors.push(e);
                continue;
            }
        };
        data.errors
            .extend(t.problems.iter().map(ToString::to_string));
        data.warnings.extend(t.warnings.iter().cloned());
        if t.stats_unreadable > 0 {
            data.warnings.push(format!(
                "{}: {} file statistics could not be read; those files are never skipped on those columns",
                t.location.display(),
                t.stats_unreadable
            ));
        }
        let location = std::fs::canonicalize(&t.location)
            .ok()
            .map(|p| format!("file:{}", p.display()));
        let id = locations.identify(&t.name, location.as_deref());
        by_id.insert(id, t);
    }
    let engines = args.engine.engines();
    let mut rows = Vec::new();
    for e in &data.records {
        let r = &e.record;
        for (i, s) in r.scans.iter().enumerate() {
            let Some(t) = by_id.get(&locations.identity(&s.table)) else {
                continue;
            };
            for &engine in &engines {
                let (reading, unknown) = skipping::current(
                    t,
                    s.pushed_filters.as_deref(),
                    s.partition_filters.as_deref(),
                    engine,
                );
                rows.push(ScanRow {
                    app_id: r.app_id.clone(),
                    execution_id: r.execution_id,
                    description: r.description.clone(),
                    scan: i as u32,
                    table: short_table(&locations.identity(&s.table)),
                    layout: "current".into(),
                    engine,
                    files_total: reading.files_total,
                    files_read: reading.files_read,
                    bytes_total: reading.bytes_total,
                    bytes_read: reading.bytes_read,
                    files_without_stats: reading.files_without_stats,
                    unknown_predicates: unknown,
                    logged_files_read: s.files_read,
                    logged_bytes_read: s.bytes_read,
                });
            }
        }
    }
    rows
}

/// Tabular view; on a terminal the description is cut and sizes are
/// human.
fn columns(rows: &[ScanRow], terminal: bool) -> Vec<Col> {
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
        Col::Int(
            "logged_files_read",
            rows.iter().map(|r| r.logged_files_read).collect(),
        ),
        Col::Int(
            "logged_bytes_read",
            rows.iter().map(|r| r.logged_bytes_read).collect(),
        ),
    ];
    if terminal {
        cols.retain(|c| !matches!(c.name(), "app_id" | "logged_bytes_read"));
    }
    cols
}
