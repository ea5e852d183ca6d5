//! `lakeaudit edges`: the weighted join-edge table.

use crate::output::{self, Format};
use crate::pipeline;
use crate::{report_problems, Inputs};
use anyhow::{bail, Result};
use report::columns::edges as columns;
use std::io::Write;
use std::path::{Path, PathBuf};
use workload::edges::{CostMeasure, EdgeRow};

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
    let mut data = pipeline::load(inputs)?;
    let stats = pipeline::table_inputs(args, &mut data, false)?.stats;
    let built = pipeline::edge_tables(&data.records, args, &stats, window)?;
    let tables = built.tables();
    if let Some(pattern) = explain {
        let mut outw = output::open_out(out)?;
        let mut found = false;
        for t in &tables {
            for r in t.edges.iter().filter(|r| r.key().matches(pattern)) {
                found = true;
                report::explain::edge(&mut outw, r, t.window, t.edges.len(), &data.records)?;
            }
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
