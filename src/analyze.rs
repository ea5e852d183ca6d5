//! `lakeaudit plan`, `lakeaudit drift` and the main job, `lakeaudit analyze`.

use crate::cli::{self, Inputs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::report_problems;
use anyhow::Result;
use planner::fold::Keep;
use std::io::Write;
use std::path::PathBuf;

/// `lakeaudit analyze` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub score: crate::cli::ScoreArgs,
    #[command(flatten)]
    pub plan: crate::cli::PlanArgs,
    #[command(flatten)]
    pub drift: DriftFlags,
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
    pub score: crate::cli::ScoreArgs,
    /// Window length; the last window ends at the last execution.
    #[arg(long, value_name = "LENGTH", default_value = "7d", value_parser = cli::window, allow_hyphen_values = true)]
    pub window: cli::Window,
    #[command(flatten)]
    pub drift: DriftFlags,
    /// Exit 1 when a re-plan is due (as `git diff --exit-code` exits 1 on
    /// a difference), so that a scheduled run can act on it; an input
    /// that failed still exits 2.
    #[arg(long)]
    pub exit_code: bool,
    #[command(flatten)]
    pub out: cli::OutputArgs,
}

/// When drift calls for a re-plan (`drift`, `analyze`).
#[derive(clap::Args, Debug)]
pub struct DriftFlags {
    /// Re-plan when drift exceeds this. The default, 0.3, is above 95 of
    /// 100 pairs of unchanged weeks (run counts moved by one) measured on
    /// the bundled samples; a workload of many more runs a week drifts
    /// less by chance and can take a lower threshold.
    #[arg(long, default_value_t = planner::DEFAULT_DRIFT_THRESHOLD, value_parser = cli::non_negative, allow_hyphen_values = true)]
    pub threshold: f64,
    /// A re-plan, once due, stays due until drift falls to this or below
    /// (hysteresis: a workload still moving after a shift keeps asking,
    /// and one value near the threshold does not flip the answer); at
    /// most --threshold, which turns the hysteresis off.
    #[arg(long, default_value_t = planner::DEFAULT_DRIFT_SETTLE, value_parser = cli::non_negative, allow_hyphen_values = true)]
    pub settle: f64,
    /// How JIS is normalised for the comparison.
    #[arg(long, value_enum, default_value_t = planner::Normalize::Max)]
    pub normalize: planner::Normalize,
}

impl DriftFlags {
    /// What the fold keeps for drift; `--settle` above `--threshold` is
    /// a usage error.
    fn keep(&self) -> Result<Keep> {
        if self.settle > self.threshold {
            return Err(tabular::Error::Usage(format!(
                "--settle {} is above --threshold {}: a re-plan stays due until drift falls to --settle, so it must be at most --threshold",
                self.settle, self.threshold
            ))
            .into());
        }
        Ok(Keep::Drift {
            threshold: self.threshold,
            settle: self.settle,
            normalize: self.normalize,
        })
    }
}

/// What `drift` found: whether an input failed, and whether the latest
/// window calls for a re-plan.
pub struct DriftOutcome {
    /// Some input could not be read.
    pub failed: bool,
    /// The latest pair of windows drifted past the threshold.
    pub replan: bool,
}

/// Run `drift`.
pub fn drift(a: &DriftArgs) -> Result<DriftOutcome> {
    let (inputs, score, window) = (&a.inputs, &a.score, &a.window);
    let (format, out) = (a.out.format()?, a.out.path());
    let keep = a.drift.keep()?;
    let mut data = pipeline::load(inputs, &pipeline::range(score))?;
    let stats = pipeline::table_inputs(score, &mut data, false)?.stats;
    let rows = pipeline::fold(&data, score, &stats, Some(window), keep, |_| Ok(()))?.drift;
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
        report::drift_now(&rows, a.drift.threshold, a.drift.settle)
    );
    Ok(DriftOutcome {
        failed: data.failed(),
        replan: rows.last().is_some_and(|r| r.replan),
    })
}

/// Run the whole pipeline into `dir`.
pub fn run(a: &Args) -> Result<bool> {
    // The directory is checked before any input is read.
    let keep = a.drift.keep()?;
    let mut out = output::OutDir::prepare(&a.out, report::analysis::OUTPUTS, a.force)?;
    // queries.parquet is written as the executions stream by.
    let mut qp = output::open_out(Some(&out.file("queries.parquet")))?;
    let mut rows = report::columns::ParquetRecords::new(&mut qp);
    let mut data = pipeline::load(&a.inputs, &pipeline::range(&a.score))?;
    let p = pipeline::planning(&mut data, &a.score, &a.plan, keep, |e| Ok(rows.push(e)?))?;
    rows.finish()?;
    match data.left_out("queries.parquet") {
        Some(note) => {
            out.forget("queries.parquet");
            data.warnings.push(note);
        }
        None => qp.finish()?,
    }
    // The rewrites of the audited tables inside the input's range.
    let verified = if a.score.tables.is_empty() {
        Vec::new()
    } else {
        let tables = workload::from_logs::expand(
            &a.score.tables,
            &data.locations,
            a.score.allow_outside_table,
        )
        .paths;
        let opts = skipping::verify::VerifyOptions {
            allow_outside_table: a.score.allow_outside_table,
            sample_rows: None,
        };
        let v = data.in_memory(|d| skipping::verify::verify(d, &tables, &opts))?;
        // The audit reported the tables it could not read already.
        for e in v.errors {
            if !data.errors.contains(&e) {
                data.errors.push(e);
            }
        }
        for w in v.warnings {
            if !data.warnings.contains(&w) {
                data.warnings.push(w);
            }
        }
        v.rows
    };
    let analysis = report::analysis::Analysis {
        data: &data,
        scans: &p.folded.scans,
        tables: &p.tables,
        whatif: &p.whatif,
        edge_tables: &p.folded.edges,
        drift: &p.folded.drift,
        drift_threshold: a.drift.threshold,
        drift_settle: a.drift.settle,
        window: &a.plan.window.text,
        planned: &p.planned,
        money: &p.money,
        verify: &verified,
    };
    analysis.write(&mut out)?;
    out.finish()?;
    // Warnings first: the summary is the last line.
    report_problems(&data.errors, &data.warnings);
    {
        let mut err = std::io::stderr().lock();
        for v in analysis.verdicts() {
            let _ = writeln!(err, "lakeaudit: verdict: {}", stores::redact(&v));
        }
        let _ = writeln!(err, "lakeaudit: {}", analysis.summary(&a.out));
    }
    Ok(data.failed())
}
