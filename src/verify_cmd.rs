//! `lakeaudit verify`: did a rewrite pay? Per rewrite of an audited table
//! inside the logs' time range, the files and bytes its recurring queries
//! read per run before and after (the logs' own metrics), and what the
//! what-if predicted from the snapshot before (`skipping::verify`).

use crate::cli::{self, Inputs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::report_problems;
use anyhow::Result;
use std::path::PathBuf;

/// `lakeaudit verify` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Delta and Iceberg tables (or warehouse directories holding them)
    /// whose rewrites to verify, as `whatif --tables` takes them
    /// (`from-logs`: the tables the logs read). Put it after the log paths.
    #[arg(long, value_name = "WAREHOUSE", num_args = 1.., required = true)]
    pub tables: Vec<PathBuf>,
    /// Read files the tables' metadata names outside their directories;
    /// with `--tables from-logs`, follow the logs to tables anywhere.
    #[arg(long)]
    pub allow_outside_table: bool,
    /// Rows read from the snapshot before each rewrite for the prediction
    /// (at least 1).
    #[arg(long, value_name = "N", default_value_t = skipping::workload::DEFAULT_SAMPLE_ROWS, value_parser = cli::positive_u64, allow_hyphen_values = true)]
    pub sample_rows: u64,
    #[command(flatten)]
    pub out: cli::OutputArgs,
}

/// Run the command; returns whether some input failed.
pub fn run(a: &Args) -> Result<bool> {
    let (format, out) = (a.out.format()?, a.out.path());
    let mut data = pipeline::load(&a.inputs, &Default::default())?;
    let tables = pipeline::tables_from_logs(&a.tables, &mut data, a.allow_outside_table);
    let opts = skipping::verify::VerifyOptions {
        allow_outside_table: a.allow_outside_table,
        sample_rows: Some(a.sample_rows),
    };
    let v = data.in_memory(|d| skipping::verify::verify(d, &tables, &opts))?;
    data.errors.extend(v.errors.iter().cloned());
    data.warnings.extend(v.warnings.iter().cloned());
    match format {
        Format::Jsonl => output::write_records(&v.rows, out)?,
        other => output::write_columns(
            &report::columns::verify(&v.rows, other == Format::Table),
            other,
            out,
        )?,
    }
    if v.rows.is_empty() {
        data.warnings.push(
            "no rewrite of an audited table inside the logs' time range (Delta OPTIMIZE, ZORDER BY, CLUSTER BY, REPLACE; Iceberg rewrite_data_files)".into(),
        );
    }
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}
