//! `lakeaudit drift`: how much the join workload moved between consecutive
//! windows, and whether to re-plan.

use crate::edges_cmd::{select, ScoreArgs};
use crate::output::Col;
use crate::pipeline::{self, format_time, Exec};
use crate::stats::TableStats;
use anyhow::Result;
use graph::edges::{build_edges, windows, CostMeasure, EdgeRow};
use graph::score;
use planner::{drift, DriftReport};
use serde::Serialize;
use std::collections::BTreeMap;

/// How JIS is normalised for the drift comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
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

/// One pair of consecutive windows.
#[derive(Clone, Debug, Serialize)]
pub struct DriftRow {
    /// Start of the earlier window.
    pub prev_window_start_ms: i64,
    /// Start of the later window (the one judged).
    pub window_start_ms: i64,
    /// End of the later window.
    pub window_end_ms: i64,
    /// Drift value.
    pub drift: f64,
    /// Drift above the threshold.
    pub replan: bool,
    /// Edges only in the later window (re-evaluate first).
    pub new_edges: Vec<String>,
    /// Edges only in the earlier window.
    pub gone_edges: Vec<String>,
    /// Edges that moved most: `label prev→next`.
    pub moved: Vec<String>,
    /// Edges in either window.
    pub edges: usize,
    /// Executions in the later window.
    pub executions: usize,
    /// The normalisation used.
    pub normalize: Normalize,
    /// The cost measure used.
    pub cost: String,
}

fn scores(rows: &[EdgeRow]) -> BTreeMap<String, f64> {
    rows.iter().map(|r| (r.key().label(), r.jis)).collect()
}

/// F/max(F) · log10(D+1)/max · C/max within one window.
fn max_scaled(rows: &[EdgeRow]) -> BTreeMap<String, f64> {
    let max = |g: &dyn Fn(&EdgeRow) -> f64| rows.iter().map(g).fold(0.0f64, f64::max);
    let fmax = max(&|r| r.frequency as f64);
    let dmax = max(&|r| score::log_volume(r.data_volume));
    let cmax = max(&|r| r.cost);
    let div = |x: f64, m: f64| if m > 0.0 { x / m } else { 0.0 };
    rows.iter()
        .map(|r| {
            let v = div(r.frequency as f64, fmax)
                * div(score::log_volume(r.data_volume), dmax)
                * div(r.cost, cmax);
            (r.key().label(), v)
        })
        .collect()
}

/// JIS of two windows' edges on their joint ranges.
fn joint(a: &[EdgeRow], b: &[EdgeRow]) -> (BTreeMap<String, f64>, BTreeMap<String, f64>) {
    let f = |rows: &[EdgeRow]| rows.iter().map(|r| r.frequency as f64).collect::<Vec<_>>();
    let d = |rows: &[EdgeRow]| {
        rows.iter()
            .map(|r| score::log_volume(r.data_volume))
            .collect::<Vec<_>>()
    };
    let c = |rows: &[EdgeRow]| rows.iter().map(|r| r.cost).collect::<Vec<_>>();
    let both = |g: &dyn Fn(&[EdgeRow]) -> Vec<f64>| {
        let mut v = g(a);
        v.extend(g(b));
        score::range(&v)
    };
    let ranges = (both(&f), both(&d), both(&c));
    let one = |rows: &[EdgeRow]| {
        score::jis_in(&f(rows), &d(rows), &c(rows), ranges)
            .iter()
            .zip(rows)
            .map(|(n, r)| (r.key().label(), n.jis))
            .collect()
    };
    (one(a), one(b))
}

/// Compute drift rows for consecutive windows.
pub fn compute(
    execs: &[Exec],
    score_args: &ScoreArgs,
    stats: &TableStats,
    window: &str,
    threshold: f64,
    normalize: Normalize,
) -> Result<Vec<DriftRow>> {
    let selected = select(execs, score_args)?;
    let width = pipeline::parse_duration(window)?;
    let cost = CostMeasure::from(score_args.cost);
    let fallback = stats.row_fallback();
    let wins: Vec<(i64, i64, Vec<EdgeRow>, usize)> =
        windows(&selected, width, pipeline::window_align(width))
            .into_iter()
            // An empty window (no executions logged) says nothing about the
            // workload: compare consecutive windows that have executions.
            .filter(|(_, _, ex)| !ex.is_empty())
            .map(|(s, e, ex)| (s, e, build_edges(&ex, cost, &fallback), ex.len()))
            .collect();
    let mut out = Vec::new();
    for pair in wins.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (pa, pb) = match normalize {
            Normalize::Window => (scores(&a.2), scores(&b.2)),
            Normalize::Joint => joint(&a.2, &b.2),
            Normalize::Max => (max_scaled(&a.2), max_scaled(&b.2)),
        };
        let rep: DriftReport = drift(&pa, &pb, score::EPSILON);
        out.push(DriftRow {
            prev_window_start_ms: a.0,
            window_start_ms: b.0,
            window_end_ms: b.1,
            drift: rep.value,
            replan: rep.value > threshold,
            new_edges: rep.new_edges.clone(),
            gone_edges: rep.gone_edges.clone(),
            moved: rep
                .moved
                .iter()
                .take(5)
                .map(|m| format!("{} {:.3}→{:.3}", m.edge, m.prev, m.next))
                .collect(),
            edges: rep.edges,
            executions: b.3,
            normalize,
            cost: match score_args.cost {
                crate::edges_cmd::Cost::Duration => "duration".into(),
                crate::edges_cmd::Cost::Cpu => "cpu".into(),
            },
        });
    }
    Ok(out)
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
