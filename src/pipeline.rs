//! The shared first stages: the workload crate loads the executions; this
//! module hands it the flags and joins the audited tables (`--tables`) and
//! `--table-stats` to the logs' tables.

use crate::cli::Inputs;
use crate::edges_cmd::ScoreArgs;
use anyhow::{Context, Result};
use maintenance::inputs::TableInputs;
use parsers::events::ReadOptions;
use planner::{MeasuredKey, Pricing, TableStats};
use skipping::workload::Whatif;
use workload::exec::{Exec, Source};
use workload::ingest::Ingested;
use workload::time::{parse_duration, TimeRange};
use workload::windows::EdgeTables;

/// Read options from the shared flags.
pub fn read_options(inputs: &Inputs) -> ReadOptions {
    ReadOptions {
        max_line: inputs.max_line,
        ..ReadOptions::default()
    }
}

/// Read all inputs (`workload::exec::load`): the logs, or with
/// `--records` the records a Spark map job wrote.
pub fn load(inputs: &Inputs) -> Result<Ingested<Exec>> {
    let options = read_options(inputs);
    let source = match &inputs.records {
        Some(dir) => Source::Records(dir),
        None => Source::Logs {
            paths: &inputs.paths,
            stdin_name: inputs.name.as_deref(),
            options: &options,
        },
    };
    Ok(workload::exec::load(source)?)
}

/// The run's edge tables (`workload::windows`), built once and shared:
/// the executions in the `--since`/`--until` range, cut into windows of
/// `window` when given, scored with `--cost` and the statistics' rows.
pub fn edge_tables(
    execs: &[Exec],
    args: &ScoreArgs,
    stats: &TableStats,
    window: Option<&str>,
) -> Result<EdgeTables> {
    let range = TimeRange::parse(args.since.as_deref(), args.until.as_deref())?;
    Ok(EdgeTables::build(
        workload::exec::select(execs, &range),
        window.map(parse_duration).transpose()?,
        args.cost,
        stats.row_fallback(),
    ))
}

/// `--table-stats` and `--tables` for the loaded logs
/// ([`TableInputs::gather`]); the audit's errors and warnings, and the
/// executions `--since`/`--until` leave out, join `data`'s. With `keep`,
/// the tables are read once with the statistics `whatif` needs and kept
/// ([`TableInputs::read`]).
pub fn table_inputs(
    args: &ScoreArgs,
    data: &mut Ingested<Exec>,
    keep: bool,
) -> Result<TableInputs> {
    let range = TimeRange::parse(args.since.as_deref(), args.until.as_deref())?;
    data.warnings
        .extend(workload::exec::filter_warning(&data.records, &range));
    let read = (keep && !args.tables.is_empty()).then(|| {
        skipping::workload::read_tables(data, &args.tables, args.allow_outside_table, &[])
    });
    let stats = table_stats(args)?;
    let t = TableInputs::gather(
        &args.tables,
        stats,
        &data.locations,
        read,
        args.allow_outside_table,
    );
    if let Some(a) = &t.audit {
        data.errors.extend(a.errors.iter().cloned());
        data.warnings.extend(a.warnings.iter().cloned());
    }
    Ok(t)
}

/// `--table-stats FILE`, or none.
fn table_stats(args: &ScoreArgs) -> Result<TableStats> {
    let Some(p) = args.table_stats.as_deref() else {
        return Ok(TableStats::default());
    };
    let text = std::fs::read_to_string(p)
        .with_context(|| format!("cannot read table stats {}", p.display()))?;
    TableStats::parse(&text).with_context(|| format!("table stats {}", p.display()))
}

/// What the audited tables' scans read now and under candidate layouts
/// (`skipping::workload::measure`), and the keys the planner prices by
/// them (none with `--pricing assumed`); nothing without `--tables`.
pub fn measure(
    data: &mut Ingested<Exec>,
    tables: &mut TableInputs,
    pricing: Pricing,
) -> (Whatif, Vec<MeasuredKey>) {
    tables
        .read
        .take()
        .map(|r| skipping::workload::measure(data, r, pricing == Pricing::Measured))
        .unwrap_or_default()
}
