//! `lakeaudit queries`: one record per SQL execution.

use crate::cli::{self, Inputs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::report_problems;
use anyhow::Result;
use report::columns::queries as columns;
use std::path::{Path, PathBuf};
use workload::spool::Spool;

/// `lakeaudit queries` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub out: cli::OutputArgs,
    /// Also write one JSON line per application read (its summary: id,
    /// log, lines, bytes, event counts) to FILE.
    #[arg(long, value_name = "FILE")]
    pub apps: Option<PathBuf>,
}

/// Run the command; returns whether some input failed.
pub fn run(a: &Args) -> Result<bool> {
    let (inputs, format, out, apps) = (&a.inputs, a.out.format()?, a.out.path(), a.apps.as_deref());
    if inputs.records.is_none() && matches!(format, Format::Jsonl | Format::Csv) {
        return stream(inputs, format, out, apps);
    }
    let data = pipeline::load(inputs)?;
    if let Some(p) = apps {
        output::write_records(&data.apps, Some(p))?;
    }
    match format {
        Format::Jsonl => output::write_records(&data.records, out)?,
        other => {
            output::write_columns(&columns(&data.records, other == Format::Table), other, out)?
        }
    }
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// Executions written per CSV batch.
const CSV_BATCH: usize = 4096;

/// `queries` to a stream (JSON lines or CSV): the executions are spooled
/// while the logs are read (`workload::spool`), then written out in the
/// same order and with the same bytes as from memory.
fn stream(
    inputs: &Inputs,
    format: Format,
    out: Option<&Path>,
    apps: Option<&Path>,
) -> Result<bool> {
    let spool = Spool::read_logs(
        &inputs.paths,
        inputs.name.as_deref(),
        &pipeline::read_options(inputs),
    )?;
    let data = &spool.data;
    if let Some(p) = apps {
        output::write_records(&data.apps, Some(p))?;
    }
    output::write_to(out, |o| {
        match format {
            Format::Csv => {
                let mut batch = Vec::with_capacity(CSV_BATCH.min(data.records.len()));
                let mut header = true;
                for (i, s) in data.records.iter().enumerate() {
                    batch.push(spool.exec(s)?);
                    if batch.len() == CSV_BATCH || i + 1 == data.records.len() {
                        tabular::write_csv(&columns(&batch, false), o, header)?;
                        header = false;
                        batch.clear();
                    }
                }
                if header {
                    tabular::write_csv(&columns(&[], false), o, true)?;
                }
            }
            _ if !spool.renames() => {
                for s in &data.records {
                    o.write_all(&spool.raw(s)?)?;
                    o.write_all(b"\n")?;
                }
            }
            _ => {
                for s in &data.records {
                    serde_json::to_writer(&mut *o, &spool.exec(s)?)?;
                    o.write_all(b"\n")?;
                }
            }
        }
        Ok(())
    })?;
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}
