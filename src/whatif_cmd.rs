//! `lakeaudit whatif`: the files and bytes each logged scan of an audited
//! table reads, computed from the table's own statistics
//! (`skipping::current`).

use crate::cli::{self, Inputs};
use crate::output::{self, Format};
use crate::pipeline;
use crate::report_problems;
use anyhow::Result;
use skipping::rewriter::RewriterChoice;
use skipping::workload::{
    read_tables, rows_of, EngineChoice, Layouts, Options, DEFAULT_BUILD_ROWS, DEFAULT_SAMPLE_ROWS,
};
use std::io::Write;
use std::path::PathBuf;

/// `lakeaudit whatif` arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub args: crate::whatif_cmd::WhatifArgs,
    #[command(flatten)]
    pub out: cli::OutputArgs,
}

impl WhatifArgs {
    /// The evaluation's options.
    fn options(&self) -> Options {
        Options {
            engines: self.engine.engines(),
            build_rows: self.build_rows,
            sample_rows: self.sample_rows,
            current_only: self.current_only,
            allow_outside_table: self.allow_outside_table,
            rewriter: self.rewriter,
            target_size: self.target_size,
        }
    }
}

/// `lakeaudit whatif` arguments besides the inputs.
#[derive(clap::Args, Debug, Clone)]
pub struct WhatifArgs {
    /// Delta and Iceberg tables (or warehouse directories holding them)
    /// whose scans to evaluate, local or object-store URLs (`s3://`,
    /// `az://`, `abfss://`, `gs://`), matched to the logs' tables by
    /// location (local tables), else by name. Put it after the log paths.
    /// `from-logs`: the tables the logs read, where their plans or their
    /// catalog settings put them, inside the other `--tables` paths.
    #[arg(long, value_name = "WAREHOUSE", num_args = 1.., required = true)]
    pub tables: Vec<PathBuf>,
    /// Read files the tables' metadata names outside their directories
    /// (see `lakeaudit tables --allow-outside-table`); with `--tables
    /// from-logs`, follow the logs to tables anywhere.
    #[arg(long)]
    pub allow_outside_table: bool,
    /// What the engine does with the tables' file statistics and with
    /// the keys of a join's build side.
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub engine: EngineChoice,
    /// Rows a join's build table may have for its keys to be read (every
    /// row of it); past it, its joins induce no predicate.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUILD_ROWS, allow_hyphen_values = true)]
    pub build_rows: u64,
    /// A layout to simulate: `TABLE=COL[,COL...]` (one column: rows
    /// sorted by it; 2 to 4: a Z-order curve over them); several tables
    /// in one flag separated by `;`. Repeatable. Without it, each table's
    /// filtered and joined columns are simulated one at a time.
    #[arg(long, value_name = "TABLE=COLS")]
    pub layout: Vec<Layouts>,
    /// Rows read from each table for the simulation (at least 1): past
    /// it, an evenly spread subset of whole data files. `--current-only`
    /// reads none.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SAMPLE_ROWS, value_parser = cli::positive_u64, allow_hyphen_values = true)]
    pub sample_rows: u64,
    /// Only the current layout: no simulation (reads no data files).
    #[arg(long, conflicts_with = "layout")]
    pub current_only: bool,
    /// The engine whose rewrite each layout predicts: its curve and the
    /// file size it writes (`auto`: Iceberg tables `iceberg-spark`; Delta
    /// tables `databricks` when the logs come from a Databricks runtime,
    /// else `spark-delta`).
    #[arg(long, value_enum, default_value_t = RewriterChoice::Auto)]
    pub rewriter: RewriterChoice,
    /// The file size the rewrite writes towards (`128MB`, a byte count);
    /// default: the table's property (`delta.targetFileSize`,
    /// `write.target-file-size-bytes`), else the rewriter's default.
    #[arg(long, value_name = "BYTES", value_parser = cli::positive_size, allow_hyphen_values = true)]
    pub target_size: Option<u64>,
}

/// Run the command; returns whether some input failed.
pub fn run(a: &Args) -> Result<bool> {
    let (inputs, args, format, out) = (&a.inputs, &a.args, a.out.format()?, a.out.path());
    let layouts: Vec<_> = args.layout.iter().flat_map(|l| l.0.clone()).collect();
    let mut data = pipeline::load(inputs, &Default::default())?;
    let tables = pipeline::tables_from_logs(&args.tables, &mut data, args.allow_outside_table);
    let w = data.in_memory(|d| {
        let read = read_tables(d, &tables, args.allow_outside_table, &layouts);
        rows_of(d, &args.options(), &layouts, read, true)
    })?;
    let rows = w.rows;
    match format {
        Format::Jsonl => output::write_records(&rows, out)?,
        other => output::write_columns(
            &report::columns::whatif(&rows, other == Format::Table),
            other,
            out,
        )?,
    }
    report_problems(&data.errors, &data.warnings);
    // What `--engine auto` chose for each table, and on what evidence.
    if args.engine == EngineChoice::Auto && !crate::quiet() {
        let mut err = std::io::stderr().lock();
        for c in &w.calibration {
            let _ = writeln!(
                err,
                "lakeaudit: --engine auto: {}",
                stores::redact(&c.describe())
            );
        }
    }
    Ok(data.failed())
}
