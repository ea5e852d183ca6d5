//! `lakeaudit edges`: the weighted join-edge table.

use crate::output::{self, Col, Format};
use crate::pipeline;
use crate::{report_problems, Inputs};
use anyhow::{bail, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use workload::edges::{CostMeasure, EdgeRow};
use workload::time::format_time;

/// Flags shared by every command that scores edges.
#[derive(clap::Args, Debug, Clone)]
pub struct ScoreArgs {
    /// Only executions starting at or after this time (epoch ms,
    /// YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC).
    #[arg(long, value_name = "TIME", value_parser = crate::cli::time, allow_hyphen_values = true)]
    pub since: Option<String>,
    /// Only executions starting before this time.
    #[arg(long, value_name = "TIME", value_parser = crate::cli::time, allow_hyphen_values = true)]
    pub until: Option<String>,
    /// Cost C of an execution: wall-clock duration or executor CPU time.
    #[arg(long, value_enum, default_value_t = Cost::Duration)]
    pub cost: Cost,
    /// Table statistics (CSV or JSON: table, bytes, rows, files,
    /// partitioned_by, clustered_by) used where the logs lack them.
    #[arg(long, value_name = "FILE")]
    pub table_stats: Option<PathBuf>,
    /// Delta and Iceberg tables (or warehouse directories holding them) to
    /// audit, local or object-store URLs (`s3://`, `az://`, `abfss://`,
    /// `gs://`): their real sizes, live rows and clustering keys go to the
    /// planner (over `--table-stats`), matched to the logs' tables by
    /// location (local tables), else by name. Put it after the log paths.
    #[arg(long, value_name = "WAREHOUSE", num_args = 1..)]
    pub tables: Vec<PathBuf>,
    /// With `--tables`: read files the tables' metadata names outside
    /// their directories (see `lakeaudit tables --allow-outside-table`).
    #[arg(long)]
    pub allow_outside_table: bool,
}

/// Cost measure flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Cost {
    /// Wall-clock duration (ms).
    Duration,
    /// Executor CPU time (ms).
    Cpu,
}

impl From<Cost> for CostMeasure {
    fn from(c: Cost) -> Self {
        match c {
            Cost::Duration => CostMeasure::Duration,
            Cost::Cpu => CostMeasure::Cpu,
        }
    }
}

/// A window's bounds (epoch ms), `None` for the whole input.
pub type Window = Option<(i64, i64)>;

/// Run `edges`.
pub fn run(
    inputs: &Inputs,
    args: &ScoreArgs,
    window: Option<&str>,
    explain: Option<&str>,
    format: Format,
    out: Option<&Path>,
) -> Result<bool> {
    let mut data = pipeline::load(inputs, &pipeline::range(args)?)?;
    let stats = pipeline::table_inputs(args, &mut data, false)?.stats;
    let built = pipeline::fold(&data, args, &stats, window, |_| Ok(()))?.edges;
    let tables = built.tables();
    if let Some(pattern) = explain {
        // A second pass for the executions the matching edges name.
        let matching = || {
            tables.iter().flat_map(|t| {
                (t.edges.iter())
                    .filter(|r| r.key().matches(pattern))
                    .map(move |r| (*t, r))
            })
        };
        let named: std::collections::BTreeSet<(String, u64)> = matching()
            .flat_map(|(_, r)| r.executions.iter())
            .map(|e| (e.app_id.to_string(), e.execution_id))
            .collect();
        let mut execs = Vec::new();
        data.each(|e| {
            if named.contains(&(e.record.app_id.clone(), e.record.execution_id)) {
                execs.push(e.into_owned());
            }
            anyhow::Ok(())
        })?;
        let mut outw = output::open_out(out)?;
        let mut found = false;
        for (t, r) in matching() {
            found = true;
            report::explain::edge(&mut outw, r, t.window, t.edges.len(), &execs)?;
        }
        outw.finish()?;
        report_problems(&data.errors, &data.warnings);
        if !found {
            let mut labels: Vec<String> = tables
                .iter()
                .flat_map(|t| t.edges.iter().map(|r| r.key().label()))
                .collect();
            labels.sort();
            labels.dedup();
            let closest = workload::edges::closest_labels(pattern, &labels, 5);
            if closest.is_empty() {
                bail!("--explain {pattern:?}: the input has no join edges");
            }
            bail!(
                "--explain {pattern:?}: no edge matches; the closest edges are:\n  {}\n(give one as printed, or `orders-lineitem`, `orders.o_orderkey=lineitem.l_orderkey`)",
                closest.join("\n  ")
            );
        }
        return Ok(data.failed());
    }
    match format {
        Format::Jsonl => {
            let mut o = output::open_out(out)?;
            for t in &tables {
                for r in &t.edges {
                    let mut v = serde_json::to_value(r)?;
                    if let (Some((s, e)), Some(m)) = (t.window, v.as_object_mut()) {
                        m.insert("window_start_ms".into(), s.into());
                        m.insert("window_end_ms".into(), e.into());
                    }
                    serde_json::to_writer(&mut o, &v)?;
                    o.write_all(b"\n")?;
                }
            }
            o.finish()?;
        }
        other => {
            let windowed = window.is_some();
            let all: Vec<(Window, &EdgeRow)> = tables
                .iter()
                .flat_map(|t| t.edges.iter().map(move |r| (t.window, r)))
                .collect();
            output::write_columns(&columns(&all, windowed, other == Format::Table), other, out)?;
        }
    }
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// Columns of the edge table (contract order first).
pub fn columns(
    rows: &[(Option<(i64, i64)>, &EdgeRow)],
    windowed: bool,
    terminal: bool,
) -> Vec<Col> {
    let s =
        |f: &dyn Fn(&EdgeRow) -> String| rows.iter().map(|(_, r)| Some(f(r))).collect::<Vec<_>>();
    let u =
        |f: &dyn Fn(&EdgeRow) -> u64| rows.iter().map(|(_, r)| i64::try_from(f(r)).ok()).collect();
    let fl = |f: &dyn Fn(&EdgeRow) -> f64| rows.iter().map(|(_, r)| Some(f(r))).collect();
    let mut cols = Vec::new();
    if windowed {
        cols.push(Col::Str(
            "window_start",
            rows.iter()
                .map(|(w, _)| w.map(|w| format_time(w.0)))
                .collect(),
        ));
    }
    if terminal {
        // One column, the edge as every report prints it (and as
        // `--explain` takes it), then the figures in human units.
        cols.push(Col::Str("edge", s(&|r| r.key().label())));
        cols.push(Col::Int("F", u(&|r| r.frequency)));
        cols.push(Col::Human(
            "D rows×rows",
            s(&|r| format!("{:.3e}", r.data_volume)),
        ));
        cols.push(Col::Human("C mean", s(&|r| output::millis(r.cost))));
        cols.push(Col::Human(
            "scanned",
            s(&|r| planner::human(r.scanned_bytes)),
        ));
        cols.push(Col::Human("JIS", s(&|r| format!("{:.3}", r.jis))));
        cols.push(Col::Int("SMJ", u(&|r| r.smj_count)));
        cols.push(Col::Int("BHJ", u(&|r| r.bhj_count)));
        cols.push(Col::Int("other", u(&|r| r.other_count)));
        return cols;
    }
    {
        cols.push(Col::Str("left_table", s(&|r| r.left_table.clone())));
    }
    cols.push(Col::Str("left_columns", s(&|r| r.left_columns.join(","))));
    cols.push(Col::Str("right_table", s(&|r| r.right_table.clone())));
    cols.push(Col::Str("right_columns", s(&|r| r.right_columns.join(","))));
    cols.push(Col::Int("frequency", u(&|r| r.frequency)));
    cols.push(Col::Float("data_volume", fl(&|r| r.data_volume)));
    cols.push(Col::Float("cost", fl(&|r| r.cost)));
    cols.push(Col::Float("f_norm", fl(&|r| r.f_norm)));
    cols.push(Col::Float("d_norm", fl(&|r| r.d_norm)));
    cols.push(Col::Float("c_norm", fl(&|r| r.c_norm)));
    cols.push(Col::Float("jis", fl(&|r| r.jis)));
    cols.push(Col::Int("smj_count", u(&|r| r.smj_count)));
    cols.push(Col::Int("bhj_count", u(&|r| r.bhj_count)));
    cols.push(Col::Int("other_count", u(&|r| r.other_count)));
    cols.push(Col::Int(
        "first_seen_ms",
        rows.iter().map(|(_, r)| r.first_seen_ms).collect(),
    ));
    cols.push(Col::Int(
        "last_seen_ms",
        rows.iter().map(|(_, r)| r.last_seen_ms).collect(),
    ));
    cols.push(Col::Float("scanned_bytes", fl(&|r| r.scanned_bytes)));
    if windowed {
        cols.push(Col::Int(
            "window_start_ms",
            rows.iter().map(|(w, _)| w.map(|w| w.0)).collect(),
        ));
        cols.push(Col::Int(
            "window_end_ms",
            rows.iter().map(|(w, _)| w.map(|w| w.1)).collect(),
        ));
    }
    cols.push(Col::Str("executions", s(&|r| r.executions.join(" "))));
    cols
}
