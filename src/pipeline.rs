//! The shared first stages: the workload crate loads the executions; this
//! module hands it the flags and joins the audited tables (`--tables`) and
//! `--table-stats` to the logs' tables.

use crate::cli::Inputs;
use crate::cli::PlanArgs;
use crate::cli::ScoreArgs;
use anyhow::{Context, Result};
use maintenance::inputs::TableInputs;
use planner::fold::{Folded, Keep};
use planner::{Planned, Pricing, TableStats};
use skipping::workload::Whatif;
use std::borrow::Cow;
use workload::exec::Exec;
use workload::time::TimeRange;
use workload::Workload;

/// Read all inputs (`workload::load`): the logs, or with
/// `--records` the records a Spark map job wrote, or with `--aggregates`
/// what its aggregation wrote; `range` is the `--since`/`--until`
/// selection.
pub fn load(inputs: &Inputs, range: &TimeRange) -> Result<Workload> {
    Ok(workload::load(
        inputs.source(&inputs.read_options()),
        range,
    )?)
}

/// `--since`/`--until`.
pub fn range(a: &ScoreArgs) -> TimeRange {
    TimeRange {
        since: a.since,
        until: a.until,
    }
}

/// One pass over the executions (`planner::fold`) with the shared
/// flags: `--since`/`--until`, `--cost`, the window length.
pub fn fold<'a>(
    data: &'a Workload,
    args: &ScoreArgs,
    stats: &TableStats,
    window: Option<&crate::cli::Window>,
    keep: Keep,
    also: impl FnMut(Cow<'a, Exec>) -> Result<()>,
) -> Result<Folded> {
    let width = window.map(|w| w.ms);
    planner::fold::fold(data, range(args), width, args.cost, stats, keep, also)
}

/// `--table-stats` and `--tables` for the loaded logs
/// ([`TableInputs::gather`]); the audit's errors and warnings, and the
/// executions `--since`/`--until` leave out, join `data`'s. With `keep`,
/// the tables are read once with the statistics `whatif` needs and kept
/// ([`TableInputs::read`]).
pub fn table_inputs(args: &ScoreArgs, data: &mut Workload, keep: bool) -> Result<TableInputs> {
    data.warnings
        .extend(workload::exec::filter_warning(&data.census, &range(args)));
    let tables = tables_from_logs(&args.tables, data, args.allow_outside_table);
    let read = if keep && !tables.is_empty() {
        Some(data.in_memory(|d| {
            skipping::workload::read_tables(d, &tables, args.allow_outside_table, &[])
        })?)
    } else {
        None
    };
    let stats = table_stats(args)?;
    let t = TableInputs::gather(
        &tables,
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

/// `--tables` with `from-logs` expanded ([`workload::from_logs::expand`]):
/// the tables the loaded logs read, confined to the other `--tables`
/// paths unless `allow_outside`; why a table of the logs is not read joins
/// `data`'s warnings.
pub fn tables_from_logs(
    given: &[std::path::PathBuf],
    data: &mut Workload,
    allow_outside: bool,
) -> Vec<std::path::PathBuf> {
    let e = workload::from_logs::expand(given, &data.locations, allow_outside);
    data.warnings.extend(e.warnings);
    e.paths
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

/// A run up to its plan: the tables from outside the logs, what the audited tables' scans read, the edge tables (built once:
/// over the whole selected input and per `--window`) and the scans' facts,
/// the plan for the last window and its savings.
pub struct Planning {
    pub tables: TableInputs,
    pub whatif: Whatif,
    pub folded: Folded,
    pub planned: Planned,
    pub money: report::Money,
}

/// Plan the loaded inputs (`plan`, `analyze`); `also` sees each execution
/// as the one pass over them streams by.
pub fn planning<'a>(
    data: &'a mut Workload,
    score: &ScoreArgs,
    args: &PlanArgs,
    keep: Keep,
    also: impl FnMut(Cow<'a, Exec>) -> Result<()>,
) -> Result<Planning> {
    let mut tables = table_inputs(score, data, true)?;
    // What the audited tables' scans read now and under candidate
    // layouts, and the keys the planner prices by them (none with
    // `--pricing assumed`); nothing without `--tables`.
    let priced = args.pricing == Pricing::Measured;
    let (whatif, measured) = match tables.read.take() {
        Some(r) => data.in_memory(|d| {
            skipping::workload::measure(
                d,
                r,
                priced,
                score.allow_outside_table,
                args.engine.engines(),
                (args.rewriter, args.target_size),
            )
        })?,
        None => Default::default(),
    };
    let folded = fold(data, score, &tables.stats, Some(&args.window), keep, also)?;
    let latest = folded.edges.latest();
    let profiles = folded.scans.sizes.profiles(&tables.stats);
    let mut config = args.config()?;
    if args.min_table_size.is_none() {
        planner::leave_alone_one_file_rewrites(&mut config, &measured);
    }
    let planned = planner::plan_window(latest, profiles, config, args.algorithm(), &measured)
        .context("planning failed")?;
    let money = report::Money {
        window_ms: args.window.ms,
        executor_ms: planner::savings::executor_ms(latest, &planned, &measured),
        cost_per_tb: args.cost_per_tb,
        cost_per_hour: args.cost_per_hour,
    };
    Ok(Planning {
        tables,
        whatif,
        folded,
        planned,
        money,
    })
}
