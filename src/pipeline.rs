//! The shared first stages: the workload crate loads the executions; this
//! module hands it the flags and joins the audited tables (`--tables`) and
//! `--table-stats` to the logs' tables.

use crate::cli::Inputs;
use crate::edges_cmd::ScoreArgs;
use crate::plan_cmd::PlanArgs;
use anyhow::{Context, Result};
use maintenance::inputs::TableInputs;
use parsers::events::ReadOptions;
use planner::{Planned, Pricing, TableStats};
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

/// A run up to its plan: the executions, the tables from outside the
/// logs, what the audited tables' scans read, the edge tables (built once:
/// over the whole selected input and per `--window`), the plan for the
/// last window and its savings.
pub struct Planning {
    pub data: Ingested<Exec>,
    pub tables: TableInputs,
    pub whatif: Whatif,
    pub edge_tables: EdgeTables,
    pub planned: Planned,
    pub money: report::Money,
}

/// Read the inputs and plan (`plan`, `analyze`).
pub fn planning(inputs: &Inputs, score: &ScoreArgs, args: &PlanArgs) -> Result<Planning> {
    let mut data = load(inputs)?;
    let mut tables = table_inputs(score, &mut data, true)?;
    // What the audited tables' scans read now and under candidate
    // layouts, and the keys the planner prices by them (none with
    // `--pricing assumed`); nothing without `--tables`.
    let priced = args.pricing == Pricing::Measured;
    let (whatif, measured) = (tables.read.take())
        .map(|r| skipping::workload::measure(&mut data, r, priced))
        .unwrap_or_default();
    let edge_tables = edge_tables(&data.records, score, &tables.stats, Some(&args.window))?;
    let profiles = planner::profiles(
        planner::profile::scan_observations(&data.records),
        &tables.stats,
    );
    let planned = planner::plan_window(
        edge_tables.latest(),
        profiles,
        args.config()?,
        args.algorithm(),
        &measured,
    )
    .context("planning failed")?;
    let money = report::Money {
        window_ms: parse_duration(&args.window)?,
        executor_ms: planner::savings::executor_ms(
            &data.records,
            edge_tables.latest(),
            &planned,
            &measured,
        ),
        cost_per_tb: args.cost_per_tb,
        cost_per_hour: args.cost_per_hour,
    };
    Ok(Planning {
        data,
        tables,
        whatif,
        edge_tables,
        planned,
        money,
    })
}
