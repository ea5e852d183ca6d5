//! `lakeaudit plan`, `lakeaudit drift` and the main job, `lakeaudit analyze`.

use crate::drift_cmd::{self, Normalize};
use crate::edges_cmd::{self, ScoreArgs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::plan_cmd::{self, PlanArgs};
use crate::whatif_cmd;
use crate::{queries, report_problems, Inputs, PlanFormat};
use anyhow::Result;
use planner::human;
use std::io::Write;
use std::path::Path;

/// Run `plan`.
pub fn plan(
    inputs: &Inputs,
    score: &ScoreArgs,
    args: &PlanArgs,
    format: PlanFormat,
    out: Option<&Path>,
) -> Result<bool> {
    let mut data = pipeline::load(inputs, &pipeline::range(score)?)?;
    let mut tables = pipeline::table_inputs(score, &mut data, true)?;
    let (_, measured) = whatif_cmd::measure(&mut data, score, args.pricing, tables.read.take())?;
    let folded = pipeline::fold(&data, score, &tables.stats, Some(&args.window), |_| Ok(()))?;
    let edge_tables = &folded.edges;
    let planned = plan_cmd::make_plan(&folded.scans, edge_tables, args, &tables.stats, &measured)?;
    let money = plan_cmd::money(edge_tables, args, &planned, &measured)?;
    let formats = pipeline::formats(&folded.scans, &tables);
    let mut o = output::open_out(out)?;
    match format {
        PlanFormat::Text => {
            o.write_all(report::plan_text::planned(&planned, &money, &formats).as_bytes())?
        }
        PlanFormat::Json => {
            serde_json::to_writer_pretty(&mut o, &planned.json())?;
            o.write_all(b"\n")?;
        }
        PlanFormat::Sql => o.write_all(planner::ddl_for(&planned.plan, &formats).as_bytes())?,
    }
    o.finish()?;
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// Run `drift`.
pub fn drift(
    inputs: &Inputs,
    score: &ScoreArgs,
    window: &str,
    threshold: f64,
    normalize: Normalize,
    format: Format,
    out: Option<&Path>,
) -> Result<bool> {
    let mut data = pipeline::load(inputs, &pipeline::range(score)?)?;
    let stats = pipeline::table_inputs(score, &mut data, false)?.stats;
    let folded = pipeline::fold(&data, score, &stats, Some(window), |_| Ok(()))?;
    let rows = drift_cmd::compute(&folded.edges, threshold, normalize);
    match format {
        Format::Jsonl => output::write_to(out, |w| output::write_jsonl(&rows, w))?,
        Format::Table => drift_cmd::write_table(&rows, out)?,
        other => output::write_columns(&drift_cmd::columns(&rows, false), other, out)?,
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
pub fn run(
    inputs: &Inputs,
    score: &ScoreArgs,
    args: &PlanArgs,
    threshold: f64,
    normalize: Normalize,
    dir: &Path,
    force: bool,
) -> Result<bool> {
    // The directory is checked before any input is read.
    let mut out = output::OutDir::prepare(dir, ANALYZE_OUTPUTS, force)?;
    let mut data = pipeline::load(inputs, &pipeline::range(score)?)?;
    let mut tables = pipeline::table_inputs(score, &mut data, true)?;
    let read = tables.read.take();
    let stats = &tables.stats;
    let (skipping, measured) = whatif_cmd::measure(&mut data, score, args.pricing, read)?;
    // table audit
    if let Some(a) = &tables.audit {
        crate::tables_cmd::write_into(a, &mut out, Format::Csv)?;
        let cols = whatif_cmd::columns(&skipping.rows, false);
        output::write_columns(&cols, Format::Csv, Some(&out.file("skipping.csv")))?;
        output::write_columns(&cols, Format::Parquet, Some(&out.file("skipping.parquet")))?;
        output::write_columns(
            &whatif_cmd::quality_columns(&skipping.quality),
            Format::Csv,
            Some(&out.file("layout_quality.csv")),
        )?;
    }
    let mut file = |name: &str| out.file(name);

    // One pass over the executions: queries.parquet written as they
    // stream by, and the edge tables built once: over the whole selected
    // input (edges, the reports) and per `--window` (drift, the plan and
    // its savings).
    let mut qp = output::open_out(Some(&file("queries.parquet")))?;
    let mut rows = queries::ParquetRecords::new(&mut qp);
    let folded = pipeline::fold(&data, score, stats, Some(&args.window), |e| rows.push(e))?;
    rows.finish()?;
    qp.finish()?;
    let edge_tables = &folded.edges;
    let edges = &edge_tables.whole().edges;
    let rows: Vec<_> = edges.iter().map(|r| (None, r)).collect();
    let cols = edges_cmd::columns(&rows, false, false);
    output::write_columns(&cols, Format::Parquet, Some(&file("edges.parquet")))?;
    output::write_columns(&cols, Format::Csv, Some(&file("edges.csv")))?;
    // drift
    let drift = drift_cmd::compute(edge_tables, threshold, normalize);
    output::write_columns(
        &drift_cmd::columns(&drift, false),
        Format::Csv,
        Some(&file("drift.csv")),
    )?;
    // plan
    let planned = plan_cmd::make_plan(&folded.scans, edge_tables, args, stats, &measured)?;
    let money = plan_cmd::money(edge_tables, args, &planned, &measured)?;
    let mut pj = output::open_out(Some(&file("plan.json")))?;
    serde_json::to_writer_pretty(&mut pj, &planned.json())?;
    pj.write_all(b"\n")?;
    pj.finish()?;
    let formats = pipeline::formats(&folded.scans, &tables);
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
        maintenance::upkeep_for_plan(audited, &tables.identity, &folded.scans.scanned, &planned)
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
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "lakeaudit: {} applications, {} SQL executions ({} queries), {} join edges; plan changes {} table(s), NPV {}; wrote {} and report.html",
        data.apps.len(),
        data.census.executions,
        data.census.queries,
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
