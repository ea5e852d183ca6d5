//! The edge tables of one run: over the whole selected input and per time
//! window, built once and shared by every stage that reads them (the
//! `edges` output, drift, the plan and its savings, the reports).
//!
//! Windows are consecutive spans of one length aligned to the data: the
//! last ends 1 ms after the latest execution start ([`data_align`]), so
//! the most recent window is the last `width` of the input. Empty windows
//! between two that have executions are kept (a gap is a real, empty
//! window).

use crate::edges::{
    build_edges, data_align, windows, CostMeasure, EdgeRow, ExecFacts, RowFallback,
};
use std::cell::OnceCell;

/// How edges are scored: the cost measure C, and the row counts used
/// where a scan reported none.
#[derive(Clone, Copy, Debug)]
pub struct Scoring<'a> {
    /// What C measures.
    pub cost: CostMeasure,
    /// Rows per table where a scan reported none (`--table-stats`).
    pub fallback: &'a RowFallback,
}

/// Some executions and their edge table: the whole selected input, or the
/// executions that started in one window.
#[derive(Clone, Debug)]
pub struct EdgeTable {
    /// The window's `[start, end)` (epoch ms); `None` for the whole input.
    pub window: Option<(i64, i64)>,
    /// The executions, as graph facts.
    pub facts: Vec<ExecFacts>,
    /// Their edge table, by JIS descending ([`build_edges`]).
    pub edges: Vec<EdgeRow>,
}

impl EdgeTable {
    /// The edge table of `facts`.
    pub fn build(window: Option<(i64, i64)>, facts: Vec<ExecFacts>, scoring: Scoring<'_>) -> Self {
        let edges = build_edges(&facts, scoring.cost, scoring.fallback);
        EdgeTable {
            window,
            facts,
            edges,
        }
    }
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
    /// Cut `facts` into windows of `width_ms` aligned to the data and
    /// build each window's edge table.
    pub fn build(facts: &[ExecFacts], width_ms: i64, scoring: Scoring<'_>) -> Self {
        let windows = windows(facts, width_ms, data_align(facts, width_ms))
            .into_iter()
            .map(|(s, e, ex)| EdgeTable::build(Some((s, e)), ex, scoring))
            .collect();
        Windowed {
            width_ms,
            cost: scoring.cost,
            windows,
        }
    }

    /// The windows that have executions, in time order.
    pub fn non_empty(&self) -> impl Iterator<Item = &EdgeTable> {
        self.windows.iter().filter(|w| !w.facts.is_empty())
    }

    /// The most recent window with executions (`None` when no execution
    /// has a start time).
    pub fn latest(&self) -> Option<&EdgeTable> {
        self.windows.iter().rev().find(|w| !w.facts.is_empty())
    }
}

/// A run's edge tables: the whole selected input's (built when first
/// asked for) and, with a window length, each window's.
#[derive(Debug)]
pub struct EdgeTables {
    facts: Vec<ExecFacts>,
    cost: CostMeasure,
    fallback: RowFallback,
    whole: OnceCell<EdgeTable>,
    /// The windows, when a length was given.
    pub windowed: Option<Windowed>,
}

impl EdgeTables {
    /// The edge tables of the selected executions `facts`, cut into
    /// windows of `width_ms` when given.
    pub fn build(
        facts: Vec<ExecFacts>,
        width_ms: Option<i64>,
        cost: CostMeasure,
        fallback: RowFallback,
    ) -> Self {
        let scoring = Scoring {
            cost,
            fallback: &fallback,
        };
        let windowed = width_ms.map(|w| Windowed::build(&facts, w, scoring));
        EdgeTables {
            facts,
            cost,
            fallback,
            whole: OnceCell::new(),
            windowed,
        }
    }

    /// The selected executions.
    pub fn facts(&self) -> &[ExecFacts] {
        &self.facts
    }

    /// The first and last start time of the selected executions.
    pub fn span(&self) -> Option<(i64, i64)> {
        let starts = self.facts.iter().filter_map(|f| f.start_ms);
        starts.clone().min().zip(starts.max())
    }

    /// The edge table over every selected execution.
    pub fn whole(&self) -> &EdgeTable {
        self.whole.get_or_init(|| {
            let scoring = Scoring {
                cost: self.cost,
                fallback: &self.fallback,
            };
            EdgeTable::build(None, self.facts.clone(), scoring)
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn exec(id: u64, start: Option<i64>) -> ExecFacts {
        ExecFacts {
            app_id: "app".into(),
            execution_id: id,
            start_ms: start,
            ..ExecFacts::default()
        }
    }

    #[test]
    fn the_latest_window_with_executions_else_the_whole_input() {
        let day = 86_400_000;
        let facts = vec![
            exec(1, Some(day / 2)),
            exec(2, Some(3 * day)),
            exec(3, None),
        ];
        let t = EdgeTables::build(facts, Some(day), CostMeasure::Duration, RowFallback::new());
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
        assert_eq!(t.tables().len(), 3);
        // Without start times (or a length) the whole input is planned.
        let t = EdgeTables::build(
            vec![exec(3, None)],
            Some(day),
            CostMeasure::Cpu,
            RowFallback::new(),
        );
        assert_eq!(t.latest().window, None);
        assert_eq!(t.latest().facts.len(), 1);
        let t = EdgeTables::build(
            vec![exec(1, Some(5))],
            None,
            CostMeasure::Cpu,
            RowFallback::new(),
        );
        assert_eq!(t.tables().len(), 1);
        assert_eq!(t.whole().facts.len(), 1);
    }
}
