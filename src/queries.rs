//! `lakeaudit queries`: one record per SQL execution.

use crate::cli::{self, Inputs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::report_problems;
use anyhow::Result;
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
    if inputs.from_logs() && matches!(format, Format::Jsonl | Format::Csv) {
        return stream(inputs, format, out, apps);
    }
    let data = pipeline::load(inputs, &Default::default())?;
    if let Some(p) = apps {
        report::columns::write_apps(&data, p)?;
    }
    report::columns::write_queries(&data, format, out)?;
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// `queries` to a stream (JSON lines or CSV): the executions are spooled
/// while the logs are read (`workload::spool`), then written out in the
/// same order and with the same bytes as from memory.
fn stream(
    inputs: &Inputs,
    format: Format,
    out: Option<&Path>,
    apps: Option<&Path>,
) -> Result<bool> {
    let options = inputs.read_options();
    let spool = Spool::read_logs(&inputs.paths, inputs.name.as_deref(), &options)?;
    if let Some(p) = apps {
        output::write_records(&spool.data.apps, Some(p))?;
    }
    report::columns::write_spooled(&spool, format == Format::Csv, out)?;
    report_problems(&spool.data.errors, &spool.data.warnings);
    Ok(spool.data.failed())
}
