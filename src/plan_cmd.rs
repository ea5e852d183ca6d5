//! `lakeaudit plan`: choose Liquid Clustering keys per table under budgets
//! and emit the SQL (Delta or Iceberg) to apply them.

use crate::cli::Inputs;
use crate::pipeline;
use crate::report_problems;
use anyhow::{Context, Result};
use planner::fold::Keep;
use planner::{plan_instance, PlanInstance};
use std::path::{Path, PathBuf};

/// `lakeaudit plan` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub score: crate::cli::ScoreArgs,
    #[command(flatten)]
    pub plan: crate::cli::PlanArgs,
    /// Plan a planning instance written as JSON (tables, candidate keys and
    /// their costs, edges with the key each side needs, budgets)
    /// instead of logs; `--budget`/`--storage-budget` override its budgets.
    #[arg(long, value_name = "FILE.json", conflicts_with = "paths")]
    pub instance: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
    pub format: PlanFormat,
    /// Write to FILE instead of standard output (`-`: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Formats of `lakeaudit plan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// Readable summary.
    Text,
    /// The plan as JSON.
    Json,
    /// The SQL to run (Delta or Iceberg, per table), with runbook comments.
    Sql,
}

/// Run `plan` on logs.
fn plan_logs(a: &Args) -> Result<bool> {
    let mut data = pipeline::load(&a.inputs, &pipeline::range(&a.score))?;
    let p = pipeline::planning(&mut data, &a.score, &a.plan, Keep::Latest, |_| Ok(()))?;
    let formats = p.tables.formats(&p.folded.scans);
    write_plan(
        crate::cli::out_path(a.output.as_deref()),
        a.format,
        || report::plan_text::planned(&p.planned, &p.money, &formats),
        &p.planned.json(),
        || planner::ddl_with(&p.planned.plan, &formats, &p.planned.rewrites()),
    )?;
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// `plan --instance FILE.json`: plan a stated instance. Returns false (no
/// input failed) or an error naming the file.
pub fn run(a: &Args) -> Result<bool> {
    let Some(path) = a.instance.as_deref() else {
        return plan_logs(a);
    };
    let (args, format, out) = (&a.plan, a.format, crate::cli::out_path(a.output.as_deref()));
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read instance {}", path.display()))?;
    let mut inst =
        PlanInstance::from_json(&text).with_context(|| format!("instance {}", path.display()))?;
    if let Some(b) = args.budget {
        inst.budget = Some(b);
    }
    if let Some(b) = args.storage_budget {
        inst.storage_budget = Some(b);
    }
    let planned = plan_instance(&inst, args.algorithm())
        .with_context(|| format!("instance {}", path.display()))?;
    write_plan(
        out,
        format,
        || report::plan_text::instance(&planned, args.scan_reduction),
        &planned,
        || planner::ddl(&planned.plan),
    )?;
    Ok(false)
}

/// Write a plan in `format`: the text, the JSON or the SQL.
pub fn write_plan(
    out: Option<&Path>,
    format: PlanFormat,
    text: impl FnOnce() -> String,
    json: &impl serde::Serialize,
    sql: impl FnOnce() -> String,
) -> Result<()> {
    crate::output::write_to(out, |o| {
        match format {
            PlanFormat::Text => o.write_all(text().as_bytes())?,
            PlanFormat::Json => {
                serde_json::to_writer_pretty(&mut *o, json)?;
                o.write_all(b"\n")?;
            }
            PlanFormat::Sql => o.write_all(sql().as_bytes())?,
        }
        Ok(())
    })
}
