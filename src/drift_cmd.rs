//! `lakeaudit drift`: how much the join workload moved between consecutive
//! windows, and whether to re-plan (the computation is
//! `planner::drift::windowed`).

use crate::output::Col;
use anyhow::Result;
use planner::DriftRow;
use std::io::Write;
use std::path::Path;
use workload::time::format_time;
use workload::windows::EdgeTables;

/// `--normalize`: how JIS is normalised for the drift comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Normalize {
    /// The paper's min–max within each window (an edge smallest on one
    /// axis scores 0, so unchanged edges can read as drift).
    Window,
    /// Both windows of a pair on their joint ranges, so an unchanged edge
    /// keeps an unchanged score.
    Joint,
    /// Each factor divided by its window maximum, no min subtraction (the
    /// default: it tells an unchanged week from a changed one best).
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

/// Drift rows for consecutive windows of the run's edge tables (none
/// when they were built without a window length).
pub fn compute(tables: &EdgeTables, threshold: f64, normalize: Normalize) -> Vec<DriftRow> {
    tables
        .windowed
        .as_ref()
        .map(|w| planner::drift::windowed(w, threshold, normalize.into()))
        .unwrap_or_default()
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

/// The terminal view: one line per window (its start, the window it is
/// compared with and any gap of empty windows between), then every new and
/// gone edge of each window in full, one per line.
pub fn write_table(rows: &[DriftRow], path: Option<&Path>) -> Result<()> {
    let cols = vec![
        Col::Str(
            "window start",
            rows.iter()
                .map(|r| Some(format_time(r.window_start_ms)))
                .collect(),
        ),
        Col::Str(
            "compared with",
            rows.iter()
                .map(|r| {
                    Some(if r.gap_windows > 0 {
                        format!(
                            "{} (after {} empty)",
                            format_time(r.prev_window_start_ms),
                            r.gap_windows
                        )
                    } else {
                        format_time(r.prev_window_start_ms)
                    })
                })
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
        Col::Int(
            "new",
            rows.iter()
                .map(|r| Some(r.new_edges.len() as i64))
                .collect(),
        ),
        Col::Int(
            "gone",
            rows.iter()
                .map(|r| Some(r.gone_edges.len() as i64))
                .collect(),
        ),
    ];
    let mut out = crate::output::open_out(path)?;
    crate::output::write_table(&cols, &mut out, crate::cli::width(path))?;
    for r in rows {
        if r.new_edges.is_empty() && r.gone_edges.is_empty() {
            continue;
        }
        writeln!(out, "\n{}:", format_time(r.window_start_ms))?;
        for (what, list) in [("new", &r.new_edges), ("gone", &r.gone_edges)] {
            for e in list.iter() {
                writeln!(out, "  {what:<4}  {e}")?;
            }
        }
    }
    Ok(out.finish()?)
}
