//! `lakeaudit drift`: how much the join workload moved between consecutive
//! windows, and whether to re-plan (the computation is
//! `planner::drift::windowed`).

use crate::edges_cmd::ScoreArgs;
use crate::output::Col;
use crate::pipeline::{self, Exec};
use anyhow::Result;
use graph::edges::CostMeasure;
use graph::time::{format_time, parse_duration};
use planner::{DriftRow, TableStats};

/// `--normalize`: how JIS is normalised for the drift comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Normalize {
    /// METHOD.md: min–max within each window (the default).
    Window,
    /// Stabilised: both windows of a pair on their joint ranges, so an
    /// unchanged edge keeps an unchanged score.
    Joint,
    /// Stabilised: each factor divided by its window maximum (no min
    /// subtraction), so an edge is not zeroed just for being the smallest
    /// on one axis.
    Max,
}

impl From<Normalize> for planner::Normalize {
    fn from(n: Normalize) -> Self {
        match n {
            Normalize::Window => planner::Normalize::Window,
            Normalize::Joint => planner::Normalize::Joint,
            Normalize::Max => planner::Normalize::Max,
        }
    }
}

/// Drift rows for consecutive windows of the selected executions.
pub fn compute(
    execs: &[Exec],
    score_args: &ScoreArgs,
    stats: &TableStats,
    window: &str,
    threshold: f64,
    normalize: Normalize,
) -> Result<Vec<DriftRow>> {
    Ok(planner::drift::windowed(
        &pipeline::select(execs, score_args)?,
        parse_duration(window)?,
        CostMeasure::from(score_args.cost),
        &stats.row_fallback(),
        threshold,
        normalize.into(),
    ))
}

/// Tabular view.
pub fn columns(rows: &[DriftRow], terminal: bool) -> Vec<Col> {
    let mut cols = vec![
        Col::Str(
            "window_start",
            rows.iter()
                .map(|r| Some(format_time(r.window_start_ms)))
                .collect(),
        ),
        Col::Float("drift", rows.iter().map(|r| Some(r.drift)).collect()),
        Col::Str(
            "verdict",
            rows.iter()
                .map(|r| Some(if r.replan { "re-plan" } else { "keep" }.to_string()))
                .collect(),
        ),
        Col::Int("edges", rows.iter().map(|r| Some(r.edges as i64)).collect()),
        Col::Int(
            "executions",
            rows.iter().map(|r| Some(r.executions as i64)).collect(),
        ),
        Col::Str(
            "new_edges",
            rows.iter().map(|r| Some(r.new_edges.join("; "))).collect(),
        ),
    ];
    if !terminal {
        cols.push(Col::Str(
            "gone_edges",
            rows.iter().map(|r| Some(r.gone_edges.join("; "))).collect(),
        ));
        cols.push(Col::Str(
            "moved",
            rows.iter().map(|r| Some(r.moved.join("; "))).collect(),
        ));
        cols.push(Col::Int(
            "window_start_ms",
            rows.iter().map(|r| Some(r.window_start_ms)).collect(),
        ));
        cols.push(Col::Int(
            "window_end_ms",
            rows.iter().map(|r| Some(r.window_end_ms)).collect(),
        ));
        cols.push(Col::Bool(
            "replan",
            rows.iter().map(|r| Some(r.replan)).collect(),
        ));
    }
    cols
}
