//! The shared first stages: the workload crate loads the executions; this
//! module hands it the flags and joins the audited tables (`--tables`) and
//! `--table-stats` to the logs' tables.

use crate::edges_cmd::ScoreArgs;
use crate::tables_cmd::PolicyArg;
use crate::Inputs;
use anyhow::{Context, Result};
use maintenance::audit::Audit;
use parsers::events::ReadOptions;
use planner::{TableStat, TableStats};
use std::borrow::Cow;
use std::collections::BTreeMap;
use workload::edges::CostMeasure;
use workload::exec::{Exec, Source, Workload};
use workload::time::{parse_duration, TimeRange};
use workload::windows::{EdgeTables, EdgeTablesBuilder};

/// Read options from the shared flags.
pub fn read_options(inputs: &Inputs) -> ReadOptions {
    ReadOptions {
        max_line: inputs.max_line,
        ..ReadOptions::default()
    }
}

/// Read all inputs (`workload::exec::load`): the logs, or with
/// `--records` the records a Spark map job wrote; `range` is the
/// `--since`/`--until` selection.
pub fn load(inputs: &Inputs, range: &TimeRange) -> Result<Workload> {
    let options = read_options(inputs);
    let source = match &inputs.records {
        Some(dir) => Source::Records(dir),
        None => Source::Logs {
            paths: &inputs.paths,
            stdin_name: inputs.name.as_deref(),
            options: &options,
        },
    };
    Ok(workload::exec::load(source, range)?)
}

/// `--since`/`--until`.
pub fn range(args: &ScoreArgs) -> Result<TimeRange> {
    Ok(TimeRange::parse(
        args.since.as_deref(),
        args.until.as_deref(),
    )?)
}

/// What one pass over the executions gives the later stages.
pub struct Folded {
    /// The run's edge tables (`workload::windows`): the executions in the
    /// `--since`/`--until` range, cut into windows when a length is given,
    /// scored with `--cost` and the statistics' rows.
    pub edges: EdgeTables,
    /// What the scans say of each table (sizes, formats, bytes read).
    pub scans: planner::profile::ScanFacts,
}

/// One pass over the executions, in order: the edge tables and the scans'
/// facts, and `also` called with each execution (for outputs written while
/// the executions stream by).
pub fn fold<'a>(
    data: &'a Workload,
    args: &ScoreArgs,
    stats: &TableStats,
    window: Option<&str>,
    mut also: impl FnMut(Cow<'a, Exec>) -> Result<()>,
) -> Result<Folded> {
    let mut edges = EdgeTablesBuilder::new(
        &data.census,
        range(args)?,
        window.map(parse_duration).transpose()?,
        CostMeasure::from(args.cost),
        stats.row_fallback(),
    );
    let mut scans = planner::profile::ScanFacts::default();
    data.each(|e| {
        edges.push(&e);
        scans.push(&e);
        also(e)
    })?;
    Ok(Folded {
        edges: edges.finish(),
        scans,
    })
}

/// Table facts from outside the logs: `--table-stats` and the audit of
/// `--tables`.
pub struct TableInputs {
    /// Statistics by the logs' table identity: the audited tables' over
    /// `--table-stats` rows.
    pub stats: TableStats,
    /// The audit of `--tables` (`None` without the flag).
    pub audit: Option<Audit>,
    /// Audited table name -> its identity in the logs.
    pub identity: BTreeMap<String, String>,
    /// The tables as read, with the statistics of the scans' columns,
    /// when asked for (`whatif`'s skipping reuses them).
    pub read: Option<maintenance::audit::ReadTables>,
}

/// `--table-stats` and `--tables` for the loaded logs: each audited table
/// is matched to the catalog table the logs saw reading its location,
/// else to its own name made canonical. Tables that cannot be read join
/// `data.errors` (the others are still audited). With `keep`, the tables
/// are read once with the statistics `whatif` needs and kept
/// ([`TableInputs::read`]).
pub fn table_inputs(args: &ScoreArgs, data: &mut Workload, keep: bool) -> Result<TableInputs> {
    data.warnings
        .extend(workload::exec::filter_warning(&data.census, &range(args)?));
    let mut stats = table_stats(args)?;
    if args.tables.is_empty() {
        return Ok(TableInputs {
            stats,
            audit: None,
            identity: BTreeMap::new(),
            read: None,
        });
    }
    let (audit, read) = if keep {
        let read = data.in_memory(|d| {
            crate::whatif_cmd::read_tables(d, &args.tables, args.allow_outside_table, &[])
        })?;
        (
            maintenance::audit::audit_read(&read, &PolicyArg::All.policies(), None),
            Some(read),
        )
    } else {
        let opts = tables::ReadOptions {
            allow_outside_table: args.allow_outside_table,
            ..tables::ReadOptions::default()
        };
        (
            maintenance::audit::audit(&args.tables, &PolicyArg::All.policies(), None, opts),
            None,
        )
    };
    let mut identity = BTreeMap::new();
    for s in &audit.state {
        let id = data
            .locations
            .identify_root(&s.table, std::path::Path::new(&s.location));
        stats.0.insert(
            id.clone(),
            TableStat {
                bytes: Some(s.bytes),
                rows: Some(s.rows_live),
                files: Some(s.files),
                partitioned_by: s.partition_columns.clone(),
                clustered_by: s.clustering_columns.clone(),
                from_audit: true,
            },
        );
        identity.insert(s.table.clone(), id);
    }
    data.errors.extend(audit.errors.iter().cloned());
    data.warnings.extend(audit.warnings.iter().cloned());
    Ok(TableInputs {
        stats,
        audit: Some(audit),
        identity,
        read,
    })
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

/// Each table's format, by the logs' table identity: the audit's (`--tables`)
/// where it has the table, else what the logs' scans show (`scans`).
pub fn formats(
    scans: &planner::profile::ScanFacts,
    tables: &TableInputs,
) -> BTreeMap<String, planner::TableFormat> {
    let mut m = scans.formats.clone();
    if let Some(a) = &tables.audit {
        for s in &a.state {
            let id = tables.identity.get(&s.table).unwrap_or(&s.table);
            m.insert(id.clone(), planner::TableFormat::from_name(s.format));
        }
    }
    m
}
