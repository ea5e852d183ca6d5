//! `lakeaudit plan`, `lakeaudit drift` and the main job, `lakeaudit analyze`.

use planner::Normalize;

use crate::cli::{self, Inputs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::plan_cmd;
use crate::report_problems;
use anyhow::Result;
use planner::DriftRow;
use std::io::Write;
use std::path::PathBuf;
use workload::windows::EdgeTables;

/// `lakeaudit analyze` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub score: crate::edges_cmd::ScoreArgs,
    #[command(flatten)]
    pub plan: crate::plan_cmd::PlanArgs,
    /// Drift threshold.
    #[arg(long, default_value_t = 0.10, value_parser = cli::non_negative, allow_hyphen_values = true)]
    pub threshold: f64,
    /// How JIS is normalised for drift.
    #[arg(long, value_enum, default_value_t = planner::Normalize::Max)]
    pub normalize: planner::Normalize,
    /// Output directory (created if needed). A directory holding files
    /// lakeaudit did not write is refused; files an earlier run wrote
    /// and this one does not are removed (see `.lakeaudit-outputs`).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write into `--out DIR` even though it holds other files (they are
    /// left alone).
    #[arg(long)]
    pub force: bool,
}

/// `lakeaudit drift` arguments.
#[derive(clap::Args, Debug)]
pub struct DriftArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub score: crate::edges_cmd::ScoreArgs,
    /// Window length; the last window ends at the last execution.
    #[arg(long, value_name = "LENGTH", default_value = "7d", value_parser = cli::window, allow_hyphen_values = true)]
    pub window: String,
    /// Re-plan when drift exceeds this.
    #[arg(long, default_value_t = 0.10, value_parser = cli::non_negative, allow_hyphen_values = true)]
    pub threshold: f64,
    /// How JIS is normalised for the comparison.
    #[arg(long, value_enum, default_value_t = planner::Normalize::Max)]
    pub normalize: planner::Normalize,
    #[command(flatten)]
    pub out: cli::OutputArgs,
}

/// Run `plan`.
pub fn plan(a: &plan_cmd::Args) -> Result<bool> {
    let (inputs, score, args, format, out) =
        (&a.inputs, &a.score, &a.plan, a.format, a.output.as_deref());
    let mut data = pipeline::load(inputs)?;
    let mut tables = pipeline::table_inputs(score, &mut data, true)?;
    let (_, measured) = pipeline::measure(&mut data, &mut tables, args.pricing);
    let edge_tables =
        pipeline::edge_tables(&data.records, score, &tables.stats, Some(&args.window))?;
    let planned = plan_cmd::make_plan(&data.records, &edge_tables, args, &tables.stats, &measured)?;
    let money = plan_cmd::money(&data.records, &edge_tables, args, &planned, &measured)?;
    let formats = tables.formats(&data.records);
    plan_cmd::write_plan(
        out,
        format,
        || report::plan_text::planned(&planned, &money, &formats),
        &planned.json(),
        || planner::ddl_for(&planned.plan, &formats),
    )?;
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// Run `drift`.
pub fn drift(a: &DriftArgs) -> Result<bool> {
    let (inputs, score, window, threshold, normalize) =
        (&a.inputs, &a.score, &a.window, a.threshold, a.normalize);
    let (format, out) = (a.out.format()?, a.out.path());
    let mut data = pipeline::load(inputs)?;
    let stats = pipeline::table_inputs(score, &mut data, false)?.stats;
    let edge_tables = pipeline::edge_tables(&data.records, score, &stats, Some(window))?;
    let rows = drift_rows(&edge_tables, threshold, normalize);
    match format {
        Format::Jsonl => output::write_records(&rows, out)?,
        Format::Table => tabular::write_to(out, |w| {
            report::columns::write_drift_table(&rows, w, tabular::format::width(out))
        })?,
        other => output::write_columns(&report::columns::drift(&rows, false), other, out)?,
    }
    report_problems(&data.errors, &data.warnings);
    let _ = writeln!(
        std::io::stderr(),
        "lakeaudit: {}",
        report::drift_now(&rows, threshold)
    );
    Ok(data.failed())
}

/// Run the whole pipeline into `dir`.
pub fn run(a: &Args) -> Result<bool> {
    let (inputs, score, args, threshold, normalize) =
        (&a.inputs, &a.score, &a.plan, a.threshold, a.normalize);
    let (dir, force) = (a.out.as_path(), a.force);
    // The directory is checked before any input is read.
    let mut out = output::OutDir::prepare(dir, report::analysis::OUTPUTS, force)?;
    let mut data = pipeline::load(inputs)?;
    let mut tables = pipeline::table_inputs(score, &mut data, true)?;
    let (whatif, measured) = pipeline::measure(&mut data, &mut tables, args.pricing);
    // The edge tables, built once: over the whole selected input (edges,
    // the reports) and per `--window` (drift, the plan and its savings).
    let edge_tables =
        pipeline::edge_tables(&data.records, score, &tables.stats, Some(&args.window))?;
    let planned = plan_cmd::make_plan(&data.records, &edge_tables, args, &tables.stats, &measured)?;
    let analysis = report::analysis::Analysis {
        data: &data,
        tables: &tables,
        whatif: &whatif,
        edge_tables: &edge_tables,
        drift: &drift_rows(&edge_tables, threshold, normalize),
        drift_threshold: threshold,
        window: &args.window,
        planned: &planned,
        money: &plan_cmd::money(&data.records, &edge_tables, args, &planned, &measured)?,
    };
    analysis.write(&mut out)?;
    out.finish()?;
    // Warnings first: the summary is the last line.
    report_problems(&data.errors, &data.warnings);
    let _ = writeln!(std::io::stderr(), "lakeaudit: {}", analysis.summary(dir));
    Ok(data.failed())
}

/// Drift rows for consecutive windows of the run's edge tables (none
/// when they were built without a window length).
fn drift_rows(tables: &EdgeTables, threshold: f64, normalize: Normalize) -> Vec<DriftRow> {
    tables
        .windowed
        .as_ref()
        .map(|w| planner::drift::windowed(w, threshold, normalize))
        .unwrap_or_default()
}
