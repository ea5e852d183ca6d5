//! One pass over a run's executions ([`fold`]): the edge tables, whole and
//! per window, and what the scans say of each table, built as the
//! executions stream by, so that memory does not grow with the records.

use crate::drift::{DriftRow, Measure, Normalize};
use crate::profile::ScanFacts;
use crate::TableStats;
use std::borrow::Cow;
use workload::edges::CostMeasure;
use workload::exec::Exec;
use workload::time::TimeRange;
use workload::windows::{EdgeTables, EdgeTablesBuilder};
use workload::Workload;

/// What the windows' tables are kept for after the pass.
#[derive(Clone, Copy, Debug)]
pub enum Keep {
    /// Every window's table (the `edges` output), without the
    /// executions' facts a plan needs.
    All,
    /// The drift between consecutive windows ([`Folded::drift`]),
    /// measured as the windows are made; only the last window's table is
    /// kept.
    Drift {
        /// Re-plan above this.
        threshold: f64,
        /// A due re-plan stays due until drift falls to this
        /// (`crate::drift::hold`).
        settle: f64,
        /// How JIS is normalised for the comparison.
        normalize: Normalize,
    },
    /// Only the last window's table (the one a plan is made for).
    Latest,
}

/// What one pass over the executions gives the later stages.
pub struct Folded {
    /// The run's edge tables (`workload::windows`): the executions in
    /// `range`, cut into windows when a length is given, scored with the
    /// cost measure and the statistics' rows. Unless [`Keep::All`], the
    /// windows before the last one with executions have no edges left.
    pub edges: EdgeTables,
    /// What the scans say of each table (sizes, formats, bytes read).
    pub scans: ScanFacts,
    /// With [`Keep::Drift`], the drift between consecutive windows with
    /// executions.
    pub drift: Vec<DriftRow>,
}

/// One pass over `data`'s executions, in order: the edge tables of the
/// executions in `range` (windows of `window_ms` when given, scored by
/// `cost` with `stats`' rows, kept as `keep` says) and the scans' facts,
/// with `also` called on each execution (for outputs written while they
/// stream by). From aggregates (`--aggregates`) the tables and facts are
/// those the Spark job summed, `also` is never called, and `range` was
/// checked when they were read.
#[allow(clippy::too_many_arguments)]
pub fn fold<'a, E: From<workload::Error>>(
    data: &'a Workload,
    range: TimeRange,
    window_ms: Option<i64>,
    cost: CostMeasure,
    stats: &TableStats,
    keep: Keep,
    mut also: impl FnMut(Cow<'a, Exec>) -> Result<(), E>,
) -> Result<Folded, E> {
    if let Some(a) = data.aggregates() {
        // Folded on Spark (`--aggregates`): no execution streams by.
        let edges = a.edge_tables(window_ms, cost, &stats.row_fallback())?;
        let drift = match keep {
            Keep::Drift {
                threshold,
                settle,
                normalize,
            } => crate::drift::of_tables(&edges, threshold, settle, normalize),
            Keep::All | Keep::Latest => Vec::new(),
        };
        return Ok(Folded {
            edges,
            scans: ScanFacts::of_aggregates(&a.scans),
            drift,
        });
    }
    let mut edges =
        EdgeTablesBuilder::new(&data.census, range, window_ms, cost, stats.row_fallback());
    if matches!(keep, Keep::All) {
        // Every window's table is for the edges output: no plan is made.
        edges = edges.without_facts();
    }
    let mut scans = ScanFacts::default();
    data.each(|e| {
        edges.push(&e);
        scans.push(&e);
        also(e)
    })?;
    let mut drift = Vec::new();
    let edges = match (keep, window_ms) {
        (
            Keep::Drift {
                threshold,
                settle,
                normalize,
            },
            Some(width_ms),
        ) => {
            let measure = Measure {
                width_ms,
                cost,
                threshold,
                normalize,
            };
            let edges = edges.finish_pairs(false, |a, b| drift.extend(measure.pair(a, b)))?;
            crate::drift::hold(&mut drift, threshold, settle);
            edges
        }
        (Keep::All, _) => edges.finish()?,
        _ => edges.finish_pairs(false, |_, _| {})?,
    };
    Ok(Folded {
        edges,
        scans,
        drift,
    })
}
