//! `lakeaudit tables`: Delta and Iceberg table state, compaction and
//! delete audits. Reading is `tables`, judging is `maintenance`; this module
//! wires them to files.

use crate::output::{self, Format};
use anyhow::Result;
use maintenance::audit::audit;
use maintenance::PolicyChoice;
use report::columns::audit as audit_view;
use std::path::PathBuf;

/// `lakeaudit tables` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct TablesArgs {
    /// Delta table directories (with `_delta_log/`), Iceberg table
    /// directories or `*.metadata.json` files, or warehouse directories
    /// searched for tables; each may be an object-store URL (`s3://`,
    /// `s3a://`, `az://`, `abfss://`, `gs://`, `file://`).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Write table_state, compaction, deletes, deletes_tables and
    /// table_stats.csv (for `--table-stats`) into DIR; without it the
    /// table_state records go to standard output.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub out: Option<PathBuf>,
    /// Write the table_state records to FILE instead of standard output
    /// (`-`: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write into `--out DIR` even though it holds files lakeaudit did not
    /// write (they are left alone).
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Output format; default: from the extension of `-o FILE` (`.jsonl`,
    /// `.csv`, `.parquet`, `.txt`), else a table on a terminal and
    /// JSON lines on a pipe; JSON lines files with --out.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Whose compaction rules to simulate.
    #[arg(long, value_enum, default_value_t = PolicyChoice::All)]
    pub policy: PolicyChoice,
    /// Target file size for every policy (`128MB`, `512MiB`, a byte
    /// count; each derives its other thresholds from it); default: table
    /// property, else engine default.
    #[arg(long, value_name = "BYTES", value_parser = crate::cli::positive_size, allow_hyphen_values = true)]
    pub target_size: Option<u64>,
    /// Open deletion-vector blobs and check header, cardinality and CRC;
    /// read partition-scoped Iceberg position delete files to count the rows
    /// they delete from each data file.
    #[arg(long)]
    pub deep: bool,
    /// Read files the metadata names outside the table directory (and the
    /// locations an Iceberg table declares for its files): shallow clones,
    /// migrated tables. Without it such paths are refused by name.
    #[arg(long)]
    pub allow_outside_table: bool,
}

/// `lakeaudit tables`; returns whether some input failed.
pub fn run(args: &TablesArgs) -> Result<bool> {
    // Output settings are checked before any table is read.
    let (format, dir) = match &args.out {
        Some(dir) => {
            let known = audit_view::file_names();
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            let format = args.format.unwrap_or(Format::Jsonl);
            (
                format,
                Some(output::OutDir::prepare(dir, &known, args.force)?),
            )
        }
        None => (
            tabular::format::resolve(
                args.format,
                crate::cli::out_path(args.output.as_deref()),
                tabular::format::default_for(crate::cli::out_path(args.output.as_deref())),
            )?,
            None,
        ),
    };
    let opts = tables::ReadOptions {
        deep: args.deep,
        allow_outside_table: args.allow_outside_table,
        stats_columns: None,
        version: None,
        history: false,
    };
    let a = audit(&args.paths, &args.policy.policies(), args.target_size, opts);
    match dir {
        Some(mut dir) => {
            audit_view::write_into(&a, &mut dir, format)?;
            dir.finish()?;
        }
        None => audit_view::write_state(&a, format, crate::cli::out_path(args.output.as_deref()))?,
    }
    crate::report_problems(&a.errors, &a.warnings);
    Ok(!a.errors.is_empty())
}
