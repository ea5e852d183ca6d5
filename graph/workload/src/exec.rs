//! One execution with the relationships its plans resolve to ([`Exec`]),
//! loaded from logs or from records into the same type ([`crate::load`]), and
//! what it contributes to the join graph ([`facts`]).

use crate::apps::AppList;
use crate::edges::ExecFacts;
use crate::identity::Locations;
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
    /// The edge and scan aggregates a Spark aggregation job wrote
    /// (`--aggregates`; see [`crate::aggregates`]): no execution is read.
    Aggregates(&'a Path),
}

/// What the input's executions are, counted while it is read: how many,
/// how many are queries, their span, and how many the `--since`/`--until`
/// range selects (and the latest of those, which places the windows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Executions read.
    pub executions: usize,
    /// Those that are not commands.
    pub queries: usize,
    /// First and last start time.
    pub span: Option<(i64, i64)>,
    /// Executions in the range.
    pub selected: usize,
    /// The latest start in the range.
    pub latest_selected: Option<i64>,
}

impl Census {
    /// The census of `execs`.
    pub fn of<'a>(execs: impl IntoIterator<Item = &'a Exec>, range: &TimeRange) -> Census {
        let mut c = Census::default();
        for e in execs {
            c.add(e.record.start_ms, e.record.is_command, range);
        }
        c
    }

    /// Count one execution.
    pub fn add(&mut self, start_ms: Option<i64>, is_command: bool, range: &TimeRange) {
        self.executions += 1;
        self.queries += usize::from(!is_command);
        if let Some(t) = start_ms {
            self.span = Some(self.span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
        }
        if range.contains(start_ms) {
            self.selected += 1;
            self.latest_selected = self.latest_selected.max(start_ms);
        }
    }

    /// Count `other`'s executions too.
    pub fn merge(&mut self, other: &Census) {
        self.executions += other.executions;
        self.queries += other.queries;
        self.span = match (self.span, other.span) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (x, y) => x.or(y),
        };
        self.selected += other.selected;
        self.latest_selected = self.latest_selected.max(other.latest_selected);
    }
}

/// An input read from records or aggregates, with what was read beside
/// it: a [`crate::Workload`] once wrapped (`Workload::from`).
pub struct Opened<T> {
    /// One summary per application, sorted by app id.
    pub apps: AppList,
    /// Error lines, `path[:line]: reason`, in input order.
    pub errors: Vec<String>,
    /// Warning lines.
    pub warnings: Vec<String>,
    /// Table identity by location.
    pub locations: Locations,
    /// The executions counted.
    pub census: Census,
    /// The executions (or aggregates) themselves.
    pub execs: T,
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

/// What an execution contributes to the join graph, but its relationships
/// (their edge keys come from the execution: [`crate::edges::edge_keys`]).
pub fn facts(e: &Exec) -> ExecFacts {
    let mut f = ExecFacts {
        app_id: e.record.app_id.clone(),
        execution_id: e.record.execution_id,
        root_execution_id: e.record.root_execution_id,
        start_ms: e.record.start_ms,
        duration_ms: e.record.duration_ms,
        cpu_ms: e.record.executor_cpu_ms,
        run_ms: e.record.executor_run_ms,
        ..ExecFacts::default()
    };
    for s in &e.record.scans {
        f.add_scan(&s.table, s.rows, s.bytes_read);
    }
    f
}

/// A warning when `range` selects no execution although the input has
/// some (`census`, counted for `range`): the range is empty, or lies
/// outside the data.
pub fn filter_warning(census: &Census, range: &TimeRange) -> Option<String> {
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
    if census.executions == 0 || census.selected > 0 {
        return None;
    }
    let span = match census.span {
        Some((a, b)) => format!("they start {} .. {}", format_time(a), format_time(b)),
        None => "none has a start time".to_string(),
    };
    Some(format!(
        "--since/--until select none of the {} executions read ({span})",
        census.executions
    ))
}
