//! `lakeaudit edges`: the weighted join-edge table.

use crate::cli::{self, Inputs};
use crate::output::{self};
use crate::pipeline;
use crate::report_problems;
use anyhow::Result;

/// `lakeaudit edges` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub score: crate::cli::ScoreArgs,
    /// Split by execution start time into windows of this length
    /// (`7d`, `1w`, `12h`), the last ending at the last execution;
    /// default: one window over all input.
    #[arg(long, value_name = "LENGTH", value_parser = cli::window, allow_hyphen_values = true)]
    pub window: Option<cli::Window>,
    /// Show why an edge scored what it did: an edge as lakeaudit prints
    /// it (`lineitem(l_orderkey) = orders(o_orderkey)`), or
    /// `orders-lineitem`, `orders.o_orderkey=lineitem.l_orderkey`.
    #[arg(long, value_name = "EDGE")]
    pub explain: Option<String>,
    #[command(flatten)]
    pub out: cli::OutputArgs,
}

/// Run `edges`.
pub fn run(a: &Args) -> Result<bool> {
    let (inputs, args, window, explain) =
        (&a.inputs, &a.score, a.window.as_ref(), a.explain.as_deref());
    let (format, out) = (a.out.format()?, a.out.path());
    let mut data = pipeline::load(inputs, &pipeline::range(args))?;
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
