//! `lakeaudit queries`: one record per SQL execution.

use crate::cli::{self, Inputs};
use crate::pipeline;
use crate::report_problems;
use anyhow::Result;
use std::path::PathBuf;

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
    let data = pipeline::load(inputs, &Default::default())?;
    if let Some(p) = apps {
        report::columns::write_apps(&data, p)?;
    }
    report::columns::write_queries(&data, format, out)?;
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}
