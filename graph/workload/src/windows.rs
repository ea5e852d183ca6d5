//! The edge tables of one run: over the whole selected input and per time
//! window, built once and shared by every stage that reads them (the
//! `edges` output, drift, the plan and its savings, the reports).
//!
//! Windows are consecutive spans of one length aligned to the data: the
//! last ends 1 ms after the latest execution start ([`data_align`]), so
//! the most recent window is the last `width` of the input. Empty windows
//! between two that have executions are kept (a gap is a real, empty
//! window).

use crate::bounds::too_many_windows;
use crate::edges::{
    data_align, edge_keys, window_start, CostMeasure, EdgeAcc, EdgeKey, EdgeKeys, EdgeRow,
    ExecFacts, RowFallback,
};
use crate::error::{Error, Result};
use crate::exec::{facts, Census, Exec};
use crate::time::{format_time, TimeRange};
use plan::JoinStrategy;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Some executions and their edge table: the whole selected input, or the
/// executions that started in one window.
#[derive(Clone, Debug)]
pub struct EdgeTable {
    /// The window's `[start, end)` (epoch ms); `None` for the whole input.
    pub window: Option<(i64, i64)>,
    /// How many executions.
    pub executions: usize,
    /// The executions as graph facts (without their relationships:
    /// [`facts`]), kept only in the table a plan is made
    /// for ([`EdgeTables::latest`]), which prices them one by one; empty
    /// in the others.
    pub facts: Vec<ExecFacts>,
    /// Their edge table, by JIS descending ([`EdgeAcc`]).
    pub edges: Vec<EdgeRow>,
}

/// The selected input cut into windows of one length, each with its edge
/// table.
#[derive(Clone, Debug)]
pub struct Windowed {
    /// The windows' length, ms.
    pub width_ms: i64,
    /// What C measures in every window's table.
    pub cost: CostMeasure,
    /// Consecutive windows from the first execution's to the last's
    /// (empty ones between kept); executions without a start time are in
    /// none.
    pub windows: Vec<EdgeTable>,
}

impl Windowed {
    /// The windows that have executions, in time order.
    pub fn non_empty(&self) -> impl Iterator<Item = &EdgeTable> {
        self.windows.iter().filter(|w| w.executions > 0)
    }

    /// The most recent window with executions (`None` when no execution
    /// has a start time).
    pub fn latest(&self) -> Option<&EdgeTable> {
        self.windows.iter().rev().find(|w| w.executions > 0)
    }
}

/// A run's edge tables: the whole selected input's and, with a window
/// length, each window's.
#[derive(Debug)]
pub struct EdgeTables {
    whole: EdgeTable,
    span: Option<(i64, i64)>,
    /// The windows, when a length was given.
    pub windowed: Option<Windowed>,
}

impl EdgeTables {
    /// The edge tables of the executions of `execs` in `range`, cut into
    /// windows of `width_ms` when given ([`EdgeTablesBuilder`] over them;
    /// more than [`crate::bounds::MAX_WINDOWS`] windows are refused).
    pub fn build<'a>(
        execs: impl IntoIterator<Item = &'a Exec>,
        range: TimeRange,
        width_ms: Option<i64>,
        cost: CostMeasure,
        fallback: RowFallback,
    ) -> Result<Self> {
        let execs: Vec<&Exec> = execs.into_iter().collect();
        let census = Census::of(execs.iter().copied(), &range);
        let mut b = EdgeTablesBuilder::new(&census, range, width_ms, cost, fallback);
        for e in execs {
            b.push(e);
        }
        b.finish()
    }

    /// Edge tables made elsewhere (`crate::aggregates`): the whole
    /// selection's, the first and last start in it, and the windows.
    pub fn from_parts(
        whole: EdgeTable,
        span: Option<(i64, i64)>,
        windowed: Option<Windowed>,
    ) -> Self {
        EdgeTables {
            whole,
            span,
            windowed,
        }
    }

    /// The first and last start time of the selected executions.
    pub fn span(&self) -> Option<(i64, i64)> {
        self.span
    }

    /// The edge table over every selected execution.
    pub fn whole(&self) -> &EdgeTable {
        &self.whole
    }

    /// The table a plan is made for: the most recent window with
    /// executions, else (no window length, or no execution has a start
    /// time) the whole input's.
    pub fn latest(&self) -> &EdgeTable {
        match self.windowed.as_ref().and_then(Windowed::latest) {
            Some(w) => w,
            None => self.whole(),
        }
    }

    /// Every table the edges output shows: each window's, or the whole
    /// input's without a window length.
    pub fn tables(&self) -> Vec<&EdgeTable> {
        match &self.windowed {
            Some(w) => w.windows.iter().collect(),
            None => vec![self.whole()],
        }
    }
}

/// One table being folded: its edges, how many executions, and (for the
/// table a plan is made for) their facts.
#[derive(Default)]
struct Folding {
    edges: EdgeAcc,
    facts: Option<Vec<ExecFacts>>,
}

impl Folding {
    fn keeping(keep: bool) -> Self {
        Folding {
            edges: EdgeAcc::default(),
            facts: keep.then(Vec::new),
        }
    }

    fn push(
        &mut self,
        app: u32,
        f: &ExecFacts,
        keys: &[(u32, JoinStrategy)],
        names: &[EdgeKey],
        cost: CostMeasure,
        fallback: &RowFallback,
    ) {
        self.edges.push_ids(app, f, keys, names, cost, fallback);
        if let Some(kept) = &mut self.facts {
            kept.push(f.clone());
        }
    }

    fn finish(
        self,
        window: Option<(i64, i64)>,
        apps: &Arc<Vec<String>>,
        names: &[EdgeKey],
    ) -> EdgeTable {
        EdgeTable {
            window,
            executions: self.edges.executions(),
            facts: self.facts.unwrap_or_default(),
            edges: self.edges.finish_named(apps.clone(), names),
        }
    }
}

/// [`EdgeTables`] folded one execution at a time, in the order a workload
/// is read ((app id, execution id)): memory is the tables' edges and
/// execution lists, and the facts of the planned window's executions,
/// never the executions themselves. The windows are placed from the
/// [`Census`] of the input, taken before (the latest selected start).
pub struct EdgeTablesBuilder {
    range: TimeRange,
    cost: CostMeasure,
    fallback: RowFallback,
    whole: Folding,
    /// Window length and alignment, and the start of the planned window
    /// (none when no selected execution has a start time).
    width: Option<(i64, i64, Option<i64>)>,
    windows: BTreeMap<i64, Folding>,
    span: Option<(i64, i64)>,
    /// The applications' ids, in order, one list every table's execution
    /// lists index into.
    apps: Vec<String>,
    /// The edges' keys, numbered once for every table.
    keys: EdgeKeys,
}

impl EdgeTablesBuilder {
    /// A builder for the executions in `range` of an input whose census
    /// is `census` (which places the windows of `width_ms`).
    pub fn new(
        census: &Census,
        range: TimeRange,
        width_ms: Option<i64>,
        cost: CostMeasure,
        fallback: RowFallback,
    ) -> Self {
        let latest = census.latest_selected;
        let width = width_ms.map(|w| {
            let align = data_align(latest, w);
            (w, align, latest.map(|t| window_start(t, w, align)))
        });
        EdgeTablesBuilder {
            range,
            cost,
            fallback,
            // The whole input is planned when no window is.
            whole: Folding::keeping(width.is_none_or(|(_, _, planned)| planned.is_none())),
            width,
            windows: BTreeMap::new(),
            span: None,
            apps: Vec::new(),
            keys: EdgeKeys::default(),
        }
    }

    /// Keep no execution's facts (`facts` of every table empty): for
    /// outputs that make no plan, whose planned table would otherwise hold
    /// the facts of every execution when there is no window.
    pub fn without_facts(mut self) -> Self {
        self.whole.facts = None;
        self.width = self.width.map(|(w, align, _)| (w, align, None));
        self
    }

    /// Fold in the next execution (left out unless in the range).
    pub fn push(&mut self, e: &Exec) {
        if !self.range.contains(e.record.start_ms) {
            return;
        }
        let f = facts(e);
        let keys: Vec<(u32, JoinStrategy)> = edge_keys(&e.relationships)
            .iter()
            .map(|(k, s)| (self.keys.id(k), *s))
            .collect();
        let names = self.keys.keys();
        if self.apps.last() != Some(&f.app_id) {
            self.apps.push(f.app_id.clone());
        }
        let app = (self.apps.len() - 1) as u32;
        self.whole
            .push(app, &f, &keys, names, self.cost, &self.fallback);
        let Some(t) = f.start_ms else {
            return;
        };
        self.span = Some(self.span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
        if let Some((w, align, planned)) = self.width {
            let start = window_start(t, w, align);
            self.windows
                .entry(start)
                .or_insert_with(|| Folding::keeping(Some(start) == planned))
                .push(app, &f, &keys, names, self.cost, &self.fallback);
        }
    }

    /// The tables; empty windows between two that have executions are
    /// kept (a gap is a real, empty window).
    pub fn finish(self) -> Result<EdgeTables> {
        self.finish_pairs(true, |_, _| {})
    }

    /// [`EdgeTablesBuilder::finish`], calling `pair` with every two
    /// consecutive windows that have executions (the earlier first) as
    /// the windows are made, in time order. Unless `keep`, a window's edge
    /// table is dropped once its pair with the next window with
    /// executions is seen (its bounds and count stay), so that memory holds
    /// two windows' tables and the last one's, not every window's.
    ///
    /// More windows from the first with executions to the last than
    /// [`crate::bounds::MAX_WINDOWS`] are refused ([`Error::TooManyWindows`]), not
    /// allocated.
    pub fn finish_pairs(
        mut self,
        keep: bool,
        mut pair: impl FnMut(&EdgeTable, &EdgeTable),
    ) -> Result<EdgeTables> {
        let apps = Arc::new(std::mem::take(&mut self.apps));
        let bounds =
            (self.windows.keys().next().copied()).zip(self.windows.keys().next_back().copied());
        if let (Some((w, _, _)), Some((first, last))) = (self.width, bounds) {
            if too_many_windows(first, last, w) {
                return Err(Error::TooManyWindows {
                    width: crate::time::format_length(w),
                    first: format_time(first),
                    last: format_time(last),
                    max: crate::bounds::MAX_WINDOWS,
                });
            }
        }
        let windowed = self.width.map(|(w, _, _)| {
            let mut windows: Vec<EdgeTable> = Vec::new();
            let mut prev: Option<usize> = None;
            if let Some((first, last)) = bounds {
                let mut s = first;
                while s <= last {
                    let t = self.windows.remove(&s).unwrap_or_default();
                    let t = t.finish(Some((s, s + w)), &apps, self.keys.keys());
                    if t.executions > 0 {
                        if let Some(p) = prev {
                            pair(&windows[p], &t);
                            if !keep {
                                windows[p].edges = Vec::new();
                                windows[p].facts = Vec::new();
                            }
                        }
                        prev = Some(windows.len());
                    }
                    windows.push(t);
                    s += w;
                }
            }
            Windowed {
                width_ms: w,
                cost: self.cost,
                windows,
            }
        });
        Ok(EdgeTables {
            whole: self.whole.finish(None, &apps, self.keys.keys()),
            span: self.span,
            windowed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parsers::record::QueryRecord;

    fn exec(id: u64, start: Option<i64>) -> Exec {
        Exec {
            record: QueryRecord {
                app_id: "app".into(),
                app_name: String::new(),
                spark_version: None,
                log: String::new(),
                execution_id: id,
                root_execution_id: None,
                start_ms: start,
                end_ms: None,
                duration_ms: None,
                error: None,
                description: None,
                plan_source: None,
                adaptive_final: false,
                executor_run_ms: 0,
                executor_cpu_ms: 0,
                root_node: None,
                is_command: false,
                result_of: None,
                scans: Vec::new(),
                joins: Vec::new(),
                plan_error: None,
                incomplete: None,
            },
            relationships: Vec::new(),
        }
    }

    fn build(execs: &[Exec], width: Option<i64>) -> EdgeTables {
        EdgeTables::build(
            execs,
            TimeRange::default(),
            width,
            CostMeasure::Duration,
            RowFallback::new(),
        )
        .unwrap()
    }

    #[test]
    fn the_latest_window_with_executions_else_the_whole_input() {
        let day = 86_400_000;
        let execs = [
            exec(1, Some(day / 2)),
            exec(2, Some(3 * day)),
            exec(3, None),
        ];
        let t = build(&execs, Some(day));
        let w = t.windowed.as_ref().unwrap();
        // Aligned to the data: the last window ends 1 ms after the last start.
        assert_eq!(
            w.windows.last().unwrap().window,
            Some((2 * day + 1, 3 * day + 1))
        );
        assert_eq!(w.windows.len(), 3);
        assert_eq!(w.non_empty().count(), 2);
        assert_eq!(t.latest().window, w.windows.last().unwrap().window);
        assert_eq!(t.latest().facts.len(), 1);
        assert_eq!(t.latest().executions, 1);
        // Only the planned table keeps its executions' facts.
        assert!(w.windows[0].facts.is_empty());
        assert_eq!(w.windows[0].executions, 1);
        assert_eq!(t.tables().len(), 3);
        assert_eq!(t.span(), Some((day / 2, 3 * day)));
        // Without start times (or a length) the whole input is planned.
        let t = build(&[exec(3, None)], Some(day));
        assert_eq!(t.latest().window, None);
        assert_eq!(t.latest().facts.len(), 1);
        assert!(t.tables().is_empty());
        let t = build(&[exec(1, Some(5))], None);
        assert_eq!(t.tables().len(), 1);
        assert_eq!(t.whole().facts.len(), 1);
    }
}
