//! `lakeaudit edges`: the weighted join-edge table.

use crate::cli::{self, Inputs};
use crate::output::{self};
use crate::pipeline;
use crate::report_problems;
use anyhow::Result;
use std::path::PathBuf;
use workload::edges::CostMeasure;

/// `lakeaudit edges` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub score: crate::edges_cmd::ScoreArgs,
    /// Split by execution start time into windows of this length
    /// (`7d`, `1w`, `12h`), the last ending at the last execution;
    /// default: one window over all input.
    #[arg(long, value_name = "LENGTH", value_parser = cli::window, allow_hyphen_values = true)]
    pub window: Option<String>,
    /// Show why an edge scored what it did: an edge as lakeaudit prints
    /// it (`lineitem(l_orderkey) = orders(o_orderkey)`), or
    /// `orders-lineitem`, `orders.o_orderkey=lineitem.l_orderkey`.
    #[arg(long, value_name = "EDGE")]
    pub explain: Option<String>,
    #[command(flatten)]
    pub out: cli::OutputArgs,
}

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
    #[arg(long, value_enum, default_value_t = CostMeasure::Duration)]
    pub cost: CostMeasure,
    /// Table statistics (CSV or JSON: table, bytes, rows, files,
    /// partitioned_by, clustered_by) used where the logs lack them.
    #[arg(long, value_name = "FILE")]
    pub table_stats: Option<PathBuf>,
    /// Delta and Iceberg tables (or warehouse directories holding them) to
    /// audit, local or object-store URLs (`s3://`, `az://`, `abfss://`,
    /// `gs://`): their real sizes, live rows and clustering keys go to the
    /// planner (over `--table-stats`), matched to the logs' tables by
    /// location (local tables), else by name. Put it after the log paths.
    /// `from-logs`: the tables the logs read, where their plans or their
    /// catalog settings put them, inside the other `--tables` paths.
    #[arg(long, value_name = "WAREHOUSE", num_args = 1..)]
    pub tables: Vec<PathBuf>,
    /// With `--tables`: read files the tables' metadata names outside
    /// their directories (see `lakeaudit tables --allow-outside-table`);
    /// with `--tables from-logs`, follow the logs to tables anywhere.
    #[arg(long)]
    pub allow_outside_table: bool,
}

/// Run `edges`.
pub fn run(a: &Args) -> Result<bool> {
    let (inputs, args, window, explain) = (
        &a.inputs,
        &a.score,
        a.window.as_deref(),
        a.explain.as_deref(),
    );
    let (format, out) = (a.out.format()?, a.out.path());
    let mut data = pipeline::load(inputs, &pipeline::range(args)?)?;
    let stats = pipeline::table_inputs(args, &mut data, false)?.stats;
    let keep = planner::fold::Keep::All;
    let built = pipeline::fold(&data, args, &stats, window, keep, |_| Ok(()))?.edges;
    let tables = built.tables();
    if let Some(pattern) = explain {
        let mut o = output::open_out(out)?;
        let miss = report::explain::matching(&mut o, &tables, pattern, &data)?;
        o.finish()?;
        report_problems(&data.errors, &data.warnings);
        miss.map_err(anyhow::Error::msg)?;
        return Ok(data.failed());
    }
    report::columns::write_edges(&tables, window.is_some(), format, out)?;
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}
