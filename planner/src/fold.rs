//! One pass over a run's executions ([`fold`]): the edge tables, whole and
//! per window, and what the scans say of each table, built as the
//! executions stream by, so that memory does not grow with the records.

use crate::profile::ScanFacts;
use crate::TableStats;
use std::borrow::Cow;
use workload::edges::CostMeasure;
use workload::exec::{Exec, Workload};
use workload::time::TimeRange;
use workload::windows::{EdgeTables, EdgeTablesBuilder};

/// What one pass over the executions gives the later stages.
pub struct Folded {
    /// The run's edge tables (`workload::windows`): the executions in
    /// `range`, cut into windows when a length is given, scored with the
    /// cost measure and the statistics' rows.
    pub edges: EdgeTables,
    /// What the scans say of each table (sizes, formats, bytes read).
    pub scans: ScanFacts,
}

/// One pass over `data`'s executions, in order: the edge tables of the
/// executions in `range` (windows of `window_ms` when given, scored by
/// `cost` with `stats`' rows) and the scans' facts, with `also` called on
/// each execution (for outputs written while they stream by). From
/// aggregates (`--aggregates`) the tables and facts are those the Spark
/// job summed, `also` is never called, and `range` was checked when they
/// were read.
pub fn fold<'a, E: From<workload::Error>>(
    data: &'a Workload,
    range: TimeRange,
    window_ms: Option<i64>,
    cost: CostMeasure,
    stats: &TableStats,
    mut also: impl FnMut(Cow<'a, Exec>) -> Result<(), E>,
) -> Result<Folded, E> {
    if let Some(a) = data.aggregates() {
        // Folded on Spark (`--aggregates`): no execution streams by.
        return Ok(Folded {
            edges: a.edge_tables(window_ms, cost, &stats.row_fallback())?,
            scans: ScanFacts::of_aggregates(&a.scans),
        });
    }
    let mut edges =
        EdgeTablesBuilder::new(&data.census, range, window_ms, cost, stats.row_fallback());
    let mut scans = ScanFacts::default();
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
