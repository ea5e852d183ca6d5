//! `lakeaudit plan`, `lakeaudit drift` and the main job, `lakeaudit analyze`.

use crate::cli::Normalize;

use crate::cli::{self, Inputs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::plan_cmd;
use crate::report_problems;
use anyhow::Result;
use planner::{human, DriftRow};
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
    #[arg(long, value_enum, default_value_t = cli::Normalize::Max)]
    pub normalize: cli::Normalize,
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
    #[arg(long, value_enum, default_value_t = cli::Normalize::Max)]
    pub normalize: cli::Normalize,
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
    let mut out = output::OutDir::prepare(dir, ANALYZE_OUTPUTS, force)?;
    let mut data = pipeline::load(inputs)?;
    let mut tables = pipeline::table_inputs(score, &mut data, true)?;
    let (skipping, measured) = pipeline::measure(&mut data, &mut tables, args.pricing);
    let stats = &tables.stats;
    // table audit
    if let Some(a) = &tables.audit {
        report::columns::audit::write_into(a, &mut out, Format::Csv)?;
        let cols = report::columns::whatif(&skipping.rows, false);
        output::write_columns(&cols, Format::Csv, Some(&out.file("skipping.csv")))?;
        output::write_columns(&cols, Format::Parquet, Some(&out.file("skipping.parquet")))?;
        output::write_columns(
            &report::columns::quality(&skipping.quality),
            Format::Csv,
            Some(&out.file("layout_quality.csv")),
        )?;
    }
    let mut file = |name: &str| out.file(name);

    // queries
    output::write_columns(
        &report::columns::queries(&data.records, false),
        Format::Parquet,
        Some(&file("queries.parquet")),
    )?;
    // The edge tables, built once: over the whole selected input (edges,
    // the reports) and per `--window` (drift, the plan and its savings).
    let edge_tables = pipeline::edge_tables(&data.records, score, stats, Some(&args.window))?;
    let edges = &edge_tables.whole().edges;
    let rows: Vec<_> = edges.iter().map(|r| (None, r)).collect();
    let cols = report::columns::edges(&rows, false, false);
    output::write_columns(&cols, Format::Parquet, Some(&file("edges.parquet")))?;
    output::write_columns(&cols, Format::Csv, Some(&file("edges.csv")))?;
    // drift
    let drift = drift_rows(&edge_tables, threshold, normalize);
    output::write_columns(
        &report::columns::drift(&drift, false),
        Format::Csv,
        Some(&file("drift.csv")),
    )?;
    // plan
    let planned = plan_cmd::make_plan(&data.records, &edge_tables, args, stats, &measured)?;
    let money = plan_cmd::money(&data.records, &edge_tables, args, &planned, &measured)?;
    let mut pj = output::open_out(Some(&file("plan.json")))?;
    serde_json::to_writer_pretty(&mut pj, &planned.json())?;
    pj.write_all(b"\n")?;
    pj.finish()?;
    let formats = tables.formats(&data.records);
    let sql = planner::ddl_for(&planned.plan, &formats);
    let mut ps = output::open_out(Some(&file("plan.sql")))?;
    ps.write_all(sql.as_bytes())?;
    ps.finish()?;
    // maintenance
    let steps = tables.audit.as_ref().map(|a| {
        let audited = maintenance::Audited {
            state: &a.state,
            compaction: &a.compaction,
            deletes: &a.deletes,
            rollups: &a.rollups,
        };
        maintenance::upkeep_for_plan(audited, &tables.index, &data.records, &planned)
    });
    // reports
    let rd = report::ReportData {
        inputs: report::InputSummary::of(&data),
        apps: data.apps.iter().map(report::App::of).collect(),
        warnings: &data.warnings,
        errors: &data.errors,
        edges,
        drift: &drift,
        drift_threshold: threshold,
        window: &args.window,
        planned: &planned,
        sql: &sql,
        maintenance: steps.as_deref(),
        edges_span: edge_tables.span(),
        money: &money,
        formats: &formats,
        quality: &skipping.quality,
    };
    for (name, text) in [
        ("report.md", report::markdown::render(&rd)),
        ("report.html", report::html(&rd)?),
    ] {
        output::write_to(Some(&file(name)), |w| Ok(w.write_all(text.as_bytes())?))?;
    }
    out.finish()?;

    // Warnings first: the summary is the last line.
    report_problems(&data.errors, &data.warnings);
    let queries_n = data.records.iter().filter(|e| !e.record.is_command).count();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "lakeaudit: {} applications, {} SQL executions ({} queries), {} join edges; plan changes {} table(s), NPV {}; wrote {} and report.html",
        data.apps.len(),
        data.records.len(),
        queries_n,
        edges.len(),
        planned.plan.tables.iter().filter(|t| t.changed).count(),
        human(planned.plan.total_npv),
        dir.join("report.md").display()
    );
    drop(err);
    Ok(data.failed())
}

/// Every name `analyze` can write into its directory (with `--tables`, the
/// audit's CSVs too): in a directory without a manifest, these are taken
/// as an earlier run's.
const ANALYZE_OUTPUTS: &[&str] = &[
    "queries.parquet",
    "edges.parquet",
    "edges.csv",
    "drift.csv",
    "plan.json",
    "skipping.csv",
    "skipping.parquet",
    "layout_quality.csv",
    "plan.sql",
    "report.md",
    "report.html",
    "table_state.csv",
    "compaction.csv",
    "deletes.csv",
    "deletes_tables.csv",
    "table_stats.csv",
];

/// Drift rows for consecutive windows of the run's edge tables (none
/// when they were built without a window length).
fn drift_rows(tables: &EdgeTables, threshold: f64, normalize: Normalize) -> Vec<DriftRow> {
    tables
        .windowed
        .as_ref()
        .map(|w| planner::drift::windowed(w, threshold, normalize.into()))
        .unwrap_or_default()
}
