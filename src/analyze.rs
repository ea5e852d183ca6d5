//! `lakeaudit plan`, `lakeaudit drift` and the main job, `lakeaudit analyze`.

use crate::drift_cmd::{self, Normalize};
use crate::edges_cmd::{self, ScoreArgs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::plan_cmd::{self, PlanArgs};
use crate::{queries, report_problems, Inputs, PlanFormat};
use anyhow::{Context, Result};
use graph::edges::{build_edges, CostMeasure};
use graph::time::format_time;
use planner::{human, human_budget, DriftRow, Planned};
use std::fmt::Write as _;
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
    let stats = pipeline::table_stats(score)?;
    let data = pipeline::load(inputs);
    let planned = plan_cmd::make_plan(&data.records, score, args, &stats)?;
    let mut o = output::open_out(out)?;
    match format {
        PlanFormat::Text => o.write_all(plan_cmd::render_text(&planned).as_bytes())?,
        PlanFormat::Json => {
            serde_json::to_writer_pretty(&mut o, &planned.json())?;
            o.write_all(b"\n")?;
        }
        PlanFormat::Sql => o.write_all(planner::ddl(&planned.plan).as_bytes())?,
    }
    o.flush()?;
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
    let stats = pipeline::table_stats(score)?;
    let data = pipeline::load(inputs);
    let rows = drift_cmd::compute(&data.records, score, &stats, window, threshold, normalize)?;
    if rows.is_empty() {
        eprintln!("lakeaudit: the input spans a single {window} window: no drift to measure");
    }
    match format {
        Format::Jsonl => output::write_jsonl(&rows, &mut *output::open_out(out)?)?,
        other => output::write_columns(
            &drift_cmd::columns(&rows, other == Format::Table),
            other,
            out,
        )?,
    }
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// Run the whole pipeline into `dir`.
pub fn run(
    inputs: &Inputs,
    score: &ScoreArgs,
    args: &PlanArgs,
    threshold: f64,
    dir: &Path,
) -> Result<bool> {
    let stats = pipeline::table_stats(score)?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let data = pipeline::load(inputs);
    let file = |name: &str| dir.join(name);

    // queries
    output::write_columns(
        &queries::columns(&data.records, false),
        Format::Parquet,
        Some(&file("queries.parquet")),
    )?;
    // edges over the whole selected input
    let selected = pipeline::select(&data.records, score)?;
    let edges = build_edges(
        &selected,
        CostMeasure::from(score.cost),
        &stats.row_fallback(),
    );
    let rows: Vec<_> = edges.iter().map(|r| (None, r)).collect();
    let cols = edges_cmd::columns(&rows, false, false);
    output::write_columns(&cols, Format::Parquet, Some(&file("edges.parquet")))?;
    output::write_columns(&cols, Format::Csv, Some(&file("edges.csv")))?;
    // drift
    let drift = drift_cmd::compute(
        &data.records,
        score,
        &stats,
        &args.window,
        threshold,
        Normalize::Window,
    )?;
    output::write_columns(
        &drift_cmd::columns(&drift, false),
        Format::Csv,
        Some(&file("drift.csv")),
    )?;
    // plan
    let planned = plan_cmd::make_plan(&data.records, score, args, &stats)?;
    let mut pj = output::open_out(Some(&file("plan.json")))?;
    serde_json::to_writer_pretty(&mut pj, &planned.json())?;
    pj.write_all(b"\n")?;
    pj.flush()?;
    let mut ps = output::open_out(Some(&file("plan.sql")))?;
    ps.write_all(planner::ddl(&planned.plan).as_bytes())?;
    ps.flush()?;
    // report
    let report = report_md(&data, &edges, &drift, &planned, threshold, &args.window);
    std::fs::write(file("report.md"), &report)
        .with_context(|| format!("cannot write {}", file("report.md").display()))?;

    let queries_n = data.records.iter().filter(|e| !e.record.is_command).count();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "lakeaudit: {} applications, {} SQL executions ({} queries), {} join edges; plan changes {} table(s), NPV {}; wrote {}",
        data.apps.len(),
        data.records.len(),
        queries_n,
        edges.len(),
        planned.plan.tables.iter().filter(|t| t.changed).count(),
        human(planned.plan.total_npv),
        dir.join("report.md").display()
    );
    drop(err);
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

fn report_md(
    data: &crate::ingest::Ingested<pipeline::Exec>,
    edges: &[graph::edges::EdgeRow],
    drift: &[DriftRow],
    planned: &Planned,
    threshold: f64,
    window: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# lakeaudit report\n");
    let execs = data.records.len();
    let queries = data.records.iter().filter(|e| !e.record.is_command).count();
    let span = {
        let ts: Vec<i64> = data
            .records
            .iter()
            .filter_map(|e| e.record.start_ms)
            .collect();
        match (ts.iter().min(), ts.iter().max()) {
            (Some(a), Some(b)) => format!("{} .. {}", format_time(*a), format_time(*b)),
            _ => "unknown".into(),
        }
    };
    let _ = writeln!(
        s,
        "Input: {} application(s), {execs} SQL executions ({queries} queries, {} setup commands), {span}.\n",
        data.apps.len(),
        execs - queries
    );
    let _ = writeln!(s, "## Top join edges\n");
    if edges.is_empty() {
        let _ = writeln!(s, "No equi-join relationships were found.\n");
    } else {
        let _ = writeln!(s, "| edge | F | D (rows×rows) | C (ms) | JIS | SMJ | BHJ |");
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
        for r in edges.iter().take(10) {
            let _ = writeln!(
                s,
                "| {} | {} | {:.3e} | {:.0} | {:.3} | {} | {} |",
                r.key().label(),
                r.frequency,
                r.data_volume,
                r.cost,
                r.jis,
                r.smj_count,
                r.bhj_count
            );
        }
        let _ = writeln!(
            s,
            "\n{} edges in all: `edges.csv`, `edges.parquet`.\n",
            edges.len()
        );
    }
    let p = &planned.plan;
    let _ = writeln!(s, "## Layout plan\n");
    if let Some((a, b)) = planned.window {
        let _ = writeln!(
            s,
            "For the most recent {window} window, {} .. {}.\n",
            format_time(a),
            format_time(b)
        );
    }
    let changed: Vec<_> = p.tables.iter().filter(|t| t.changed).collect();
    if changed.is_empty() {
        let _ = writeln!(s, "No layout change pays for itself within the budgets.\n");
    }
    for t in &changed {
        let _ = writeln!(
            s,
            "- `{}`: CLUSTER BY ({}){} — rewrite {}, serves {} edge(s)",
            t.table,
            t.keys.join(", "),
            if t.replace {
                " (partitioned: replace)"
            } else {
                ""
            },
            human(t.rewrite_bytes as f64),
            t.edges_served.len()
        );
    }
    let _ = writeln!(
        s,
        "\nBudget use: rewrite {} (budget: {}), storage {} (budget: {}). NPV {} ({} planner). SQL: `plan.sql`.\n",
        human(p.rewrite_cost as f64),
        human_budget(p.budget),
        human(p.storage_cost as f64),
        human_budget(p.storage_budget),
        human(p.total_npv),
        p.algorithm
    );
    let missed = &planned.left_out;
    if !missed.is_empty() {
        let _ = writeln!(s, "Would pay on their own but are not in the plan (budget, or a conflicting key on a shared table):\n");
        for m in missed.iter().take(5) {
            let _ = writeln!(
                s,
                "- {}: needs a rewrite of {}, stand-alone NPV {}",
                m.label,
                human(m.rewrite_bytes),
                human(m.standalone_npv)
            );
        }
        let _ = writeln!(s);
    }
    if !p.excluded_broadcast.is_empty() {
        let _ = writeln!(
            s,
            "{} broadcast-only edge(s) were reported but not planned for (clustering does not help a broadcast join).\n",
            p.excluded_broadcast.len()
        );
    }
    let _ = writeln!(s, "## Drift ({window} windows, threshold {threshold})\n");
    if drift.is_empty() {
        let _ = writeln!(s, "The input spans one window: no drift to measure.\n");
    }
    for d in drift {
        let _ = writeln!(
            s,
            "- {}: drift {:.3} → {}{}",
            format_time(d.window_start_ms),
            d.drift,
            if d.replan { "re-plan" } else { "keep the plan" },
            if d.new_edges.is_empty() {
                String::new()
            } else {
                format!("; new edges: {}", d.new_edges.join(", "))
            }
        );
    }
    let _ = writeln!(s, "\n## Inputs\n");
    for a in &data.apps {
        let _ = writeln!(
            s,
            "- `{}` {} (Spark {}), {} lines ({} events of kinds lakeaudit does not use, skipped){}{}",
            a.app_id,
            a.app_name,
            a.spark_version.as_deref().unwrap_or("?"),
            a.lines,
            a.event_counts.get("other").copied().unwrap_or(0),
            unknown_operators(&a.unknown_operators),
            if a.unfinished_executions > 0 {
                format!(", {} execution(s) never ended", a.unfinished_executions)
            } else {
                String::new()
            }
        );
    }
    if data.errors.is_empty() && data.warnings.is_empty() {
        let _ = writeln!(s, "\nAll inputs were read without errors.");
    } else {
        let _ = writeln!(s, "\nWarnings and errors:\n");
        for w in data.warnings.iter().chain(&data.errors) {
            let _ = writeln!(s, "- {w}");
        }
    }
    s
}

/// `, plan operators lakeaudit does not know: X (n), Y (m)` for an input
/// whose plans hold operators the operator registry lacks; empty otherwise.
fn unknown_operators(ops: &std::collections::BTreeMap<String, u64>) -> String {
    if ops.is_empty() {
        return String::new();
    }
    let list: Vec<String> = ops.iter().map(|(op, n)| format!("`{op}` ({n})")).collect();
    format!(
        ", plan operators lakeaudit does not know: {}",
        list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::unknown_operators;
    use std::collections::BTreeMap;

    #[test]
    fn unknown_operators_are_listed_per_input_only_when_there_are_some() {
        assert_eq!(unknown_operators(&BTreeMap::new()), "");
        let ops = BTreeMap::from([("MapPartitions".to_string(), 3), ("Mystery".to_string(), 1)]);
        assert_eq!(
            unknown_operators(&ops),
            ", plan operators lakeaudit does not know: `MapPartitions` (3), `Mystery` (1)"
        );
    }
}
