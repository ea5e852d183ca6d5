//! The shared first stages: read the logs, resolve each execution's
//! relationships while its plans are alive, and hand the libraries what
//! they need (graph facts, scan observations, table statistics).

use crate::edges_cmd::ScoreArgs;
use crate::ingest::{ingest, Ingested};
use crate::tables_cmd::{self, Audit, PolicyArg};
use crate::Inputs;
use anyhow::{Context, Result};
use graph::execution::{execution_relationships, ExecutionPlans};
use graph::relationships::Relationship;
use parsers::events::ReadOptions;
use parsers::record::{PlanSet, QueryRecord};
use planner::{ScanObservation, TableStat, TableStats};
use serde::Serialize;
use std::collections::BTreeMap;
use workload::edges::ExecFacts;
use workload::identity::Locations;
use workload::time::{format_time, TimeRange};

/// One execution with the relationships its plan resolves to.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Exec {
    /// The `queries` record.
    #[serde(flatten)]
    pub record: QueryRecord,
    /// Join relationships resolved to base-table columns.
    pub relationships: Vec<Relationship>,
}

/// Read options from the shared flags.
pub fn read_options(inputs: &Inputs) -> ReadOptions {
    ReadOptions {
        max_line: inputs.max_line,
        ..ReadOptions::default()
    }
}

/// Read all inputs; lineage runs while each execution's plans are alive.
/// With `--records`, read the records a Spark map job wrote instead.
/// Then one identity per location: a path read of a catalog table's
/// location (seen in any input) is reported under the catalog name.
pub fn load(inputs: &Inputs) -> Result<Ingested<Exec>> {
    let mut data = match &inputs.records {
        Some(dir) => crate::records::load(dir)?,
        None => read(inputs),
    };
    let mut locations = Locations::default();
    for e in &data.records {
        for s in &e.record.scans {
            locations.observe(&s.table, s.location.as_deref());
        }
    }
    for e in &mut data.records {
        rename_paths(&locations, e);
    }
    Ok(data)
}

/// Report a path read of a catalog table's location under the catalog
/// name (`locations` observed over every kept record).
pub fn rename_paths(locations: &Locations, e: &mut Exec) {
    if locations.is_empty() {
        return;
    }
    for s in &mut e.record.scans {
        if workload::identity::single_path(&s.table).is_some() {
            s.table = locations.identity(&s.table);
        }
    }
    for r in &mut e.relationships {
        r.rename_tables(|t| locations.identity(t));
    }
    e.relationships.sort();
    e.relationships.dedup();
}

/// An execution with its relationships, resolved while its plans are alive.
pub fn exec_of(record: QueryRecord, plans: &PlanSet) -> Exec {
    Exec {
        relationships: execution_relationships(ExecutionPlans {
            physical: plans.physical.as_ref(),
            optimized: plans.optimized.as_ref(),
            analyzed: plans.analyzed.as_ref(),
        }),
        record,
    }
}

fn read(inputs: &Inputs) -> Ingested<Exec> {
    ingest(
        &inputs.paths,
        inputs.name.as_deref(),
        &read_options(inputs),
        exec_of,
    )
}

/// What an execution contributes to the join graph.
pub fn facts(e: &Exec) -> ExecFacts {
    let mut f = ExecFacts {
        app_id: e.record.app_id.clone(),
        execution_id: e.record.execution_id,
        root_execution_id: e.record.root_execution_id,
        start_ms: e.record.start_ms,
        duration_ms: e.record.duration_ms,
        cpu_ms: e.record.executor_cpu_ms,
        relationships: e.relationships.clone(),
        ..ExecFacts::default()
    };
    for s in &e.record.scans {
        f.add_scan(&s.table, s.rows, s.bytes_read);
    }
    f
}

/// Executions in the `--since`/`--until` range, as graph facts.
pub fn select(execs: &[Exec], args: &ScoreArgs) -> Result<Vec<ExecFacts>> {
    let range = TimeRange::parse(args.since.as_deref(), args.until.as_deref())?;
    Ok(execs
        .iter()
        .filter(|e| range.contains(e.record.start_ms))
        .map(facts)
        .collect())
}

/// A warning when `--since`/`--until` select no execution although the
/// input has some: the range is empty, or lies outside the data.
pub fn filter_warning(execs: &[Exec], args: &ScoreArgs) -> Result<Option<String>> {
    let range = TimeRange::parse(args.since.as_deref(), args.until.as_deref())?;
    if range.since.is_none() && range.until.is_none() {
        return Ok(None);
    }
    if let (Some(s), Some(u)) = (range.since, range.until) {
        if s >= u {
            return Ok(Some(format!(
                "--since {} is not before --until {}: the range selects no execution",
                format_time(s),
                format_time(u)
            )));
        }
    }
    if execs.is_empty() || execs.iter().any(|e| range.contains(e.record.start_ms)) {
        return Ok(None);
    }
    let starts = execs.iter().filter_map(|e| e.record.start_ms);
    let span = match starts.clone().min().zip(starts.max()) {
        Some((a, b)) => format!("they start {} .. {}", format_time(a), format_time(b)),
        None => "none has a start time".to_string(),
    };
    Ok(Some(format!(
        "--since/--until select none of the {} executions read ({span})",
        execs.len()
    )))
}

/// Every scan of the logs, as table sizing sees it.
pub fn scan_observations(execs: &[Exec]) -> impl Iterator<Item = ScanObservation<'_>> {
    execs
        .iter()
        .flat_map(|e| &e.record.scans)
        .map(|s| ScanObservation {
            table: &s.table,
            bytes: s.bytes_read,
            rows: s.rows,
            files: s.files_read,
            full: planner::is_full_scan(
                s.partition_filters.as_deref(),
                s.data_filters.as_deref(),
                s.pushed_filters.as_deref(),
            ),
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
}

/// `--table-stats` and `--tables` for the loaded logs: each audited table
/// is matched to the catalog table the logs saw reading its location,
/// else to its own name made canonical. Tables that cannot be read join
/// `data.errors` (the others are still audited).
pub fn table_inputs(args: &ScoreArgs, data: &mut Ingested<Exec>) -> Result<TableInputs> {
    if let Some(w) = filter_warning(&data.records, args)? {
        data.warnings.push(w);
    }
    let mut stats = table_stats(args)?;
    if args.tables.is_empty() {
        return Ok(TableInputs {
            stats,
            audit: None,
            identity: BTreeMap::new(),
        });
    }
    let opts = tables::ReadOptions {
        allow_outside_table: args.allow_outside_table,
        ..tables::ReadOptions::default()
    };
    let audit = tables_cmd::audit(&args.tables, PolicyArg::All, None, opts);
    let mut locations = Locations::default();
    for e in &data.records {
        for s in &e.record.scans {
            locations.observe(&s.table, s.location.as_deref());
        }
    }
    let mut identity = BTreeMap::new();
    for s in &audit.state {
        let location = std::fs::canonicalize(&s.location)
            .ok()
            .map(|p| format!("file:{}", p.display()));
        let id = locations.identify(&s.table, location.as_deref());
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
/// where it has the table, else what the logs' scans show (a `parquet` scan
/// through Delta's file index is a Delta table).
pub fn formats(execs: &[Exec], tables: &TableInputs) -> BTreeMap<String, planner::TableFormat> {
    use planner::TableFormat;
    let mut m = BTreeMap::new();
    for s in execs.iter().flat_map(|e| &e.record.scans) {
        let delta_index = s.location.as_deref().is_some_and(|l| {
            [
                "TahoeLogFileIndex",
                "PreparedDeltaFileIndex",
                "TahoeBatchFileIndex",
            ]
            .iter()
            .any(|i| l.contains(i))
        });
        let f = if delta_index {
            TableFormat::Delta
        } else {
            s.format
                .as_deref()
                .map_or(TableFormat::Unknown, TableFormat::from_name)
        };
        if f != TableFormat::Unknown {
            m.entry(graph::tables::canonical_table(&s.table))
                .or_insert(f);
        }
    }
    if let Some(a) = &tables.audit {
        for s in &a.state {
            let id = tables.identity.get(&s.table).unwrap_or(&s.table);
            m.insert(id.clone(), TableFormat::from_name(s.format));
        }
    }
    m
}
