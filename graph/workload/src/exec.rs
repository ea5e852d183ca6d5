//! One execution with the relationships its plans resolve to ([`Exec`]),
//! loaded from logs or from records into the same type ([`load`]), and
//! what it contributes to the join graph ([`facts`]).

use crate::edges::ExecFacts;
use crate::error::Result;
use crate::identity::Locations;
use crate::ingest::{ingest, Ingested};
use crate::time::{format_time, TimeRange};
use graph::execution::{execution_relationships, ExecutionPlans};
use graph::relationships::Relationship;
use parsers::events::ReadOptions;
use parsers::record::{PlanSet, QueryRecord};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One execution with the relationships its plan resolves to.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Exec {
    /// The `queries` record.
    #[serde(flatten)]
    pub record: QueryRecord,
    /// Join relationships resolved to base-table columns.
    pub relationships: Vec<Relationship>,
}

/// Where the executions come from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// Event logs: files, Spark rolling-log directories, directories of
    /// logs, or `-` for standard input (named `stdin_name` when given).
    Logs {
        /// The paths given.
        paths: &'a [String],
        /// The name of standard input's log (`--name`).
        stdin_name: Option<&'a str>,
        /// How logs are read.
        options: &'a ReadOptions,
    },
    /// The per-execution records a Spark map job wrote, or a `queries
    /// --format parquet` file (`--records`; see [`crate::records`]).
    Records(&'a Path),
}

/// Read every execution of `source`; from logs, lineage runs while each
/// execution's plans are alive. Then one identity per location: the
/// locations of every kept execution's scans are observed once (kept in
/// [`Ingested::locations`]), and a path read of a catalog table's location
/// is reported under the catalog name ([`rename_paths`]).
pub fn load(source: Source<'_>) -> Result<Ingested<Exec>> {
    let mut data = match source {
        Source::Records(dir) => crate::records::load(dir)?,
        Source::Logs {
            paths,
            stdin_name,
            options,
        } => ingest(paths, stdin_name, options, exec_of),
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
    data.locations = locations;
    Ok(data)
}

/// Report a path read of a catalog table's location under the catalog
/// name (`locations` observed over every kept record).
pub fn rename_paths(locations: &Locations, e: &mut Exec) {
    if locations.is_empty() {
        return;
    }
    for s in &mut e.record.scans {
        if crate::identity::single_path(&s.table).is_some() {
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

/// Executions in `range` (`--since`/`--until`), as graph facts.
pub fn select(execs: &[Exec], range: &TimeRange) -> Vec<ExecFacts> {
    execs
        .iter()
        .filter(|e| range.contains(e.record.start_ms))
        .map(facts)
        .collect()
}

/// A warning when `range` selects no execution although the input has
/// some: the range is empty, or lies outside the data.
pub fn filter_warning(execs: &[Exec], range: &TimeRange) -> Option<String> {
    if range.since.is_none() && range.until.is_none() {
        return None;
    }
    if let (Some(s), Some(u)) = (range.since, range.until) {
        if s >= u {
            return Some(format!(
                "--since {} is not before --until {}: the range selects no execution",
                format_time(s),
                format_time(u)
            ));
        }
    }
    if execs.is_empty() || execs.iter().any(|e| range.contains(e.record.start_ms)) {
        return None;
    }
    let starts = execs.iter().filter_map(|e| e.record.start_ms);
    let span = match starts.clone().min().zip(starts.max()) {
        Some((a, b)) => format!("they start {} .. {}", format_time(a), format_time(b)),
        None => "none has a start time".to_string(),
    };
    Some(format!(
        "--since/--until select none of the {} executions read ({span})",
        execs.len()
    ))
}
