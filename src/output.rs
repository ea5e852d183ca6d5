//! The format each output takes, and the binary's side of writing one
//! (the files and the columns are the `tabular` crate's).

use anyhow::{bail, Result};
use clap::ValueEnum;
use serde::Serialize;
use std::io::{self, Write};
use std::path::Path;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header.
    Csv,
    /// Apache Parquet (needs `-o FILE` unless stdout is redirected).
    Parquet,
    /// An aligned table for a terminal.
    Table,
}

pub use tabular::files::{open_out, OutDir};

/// Write one output with `f` and finish it (see [`open_out`]).
pub fn write_to(path: Option<&Path>, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let mut out = open_out(path)?;
    f(&mut out)?;
    Ok(out.finish()?)
}

pub use tabular::{csv_safe, millis, Col};

/// Write items as JSON lines ([`tabular::write_jsonl`]).
pub fn write_jsonl<T: Serialize>(items: &[T], out: &mut dyn Write) -> Result<()> {
    Ok(tabular::write_jsonl(items, out)?)
}

/// Write columns as CSV rows ([`tabular::write_csv`]).
pub fn write_csv(cols: &[Col], out: &mut dyn Write, header: bool) -> Result<()> {
    Ok(tabular::write_csv(cols, out, header)?)
}

/// Write columns as an aligned text table ([`tabular::write_table`]).
pub fn write_table(cols: &[Col], out: &mut dyn Write, width: Option<usize>) -> Result<()> {
    Ok(tabular::write_table(cols, out, width)?)
}

/// Write columns as CSV, Parquet or an aligned table. CSV text cells go
/// through [`csv_safe`]; Parquet and the table keep the raw values.
pub fn write_columns(cols: &[Col], format: Format, path: Option<&Path>) -> Result<()> {
    match format {
        Format::Csv => write_to(path, |out| write_csv(cols, out, true))?,
        Format::Parquet => {
            if path.is_none() && io::IsTerminal::is_terminal(&io::stdout()) {
                bail!("Parquet is binary: give -o FILE or redirect standard output");
            }
            write_to(path, |out| Ok(tabular::write_parquet(cols, out)?))?;
        }
        Format::Table => write_to(path, |out| write_table(cols, out, crate::cli::width(path)))?,
        Format::Jsonl => bail!("internal: JSON lines are written from records"),
    }
    Ok(())
}

/// The format of an output file: `--format` when given, else the file's
/// extension (`.jsonl`/`.json`/`.ndjson`, `.csv`, `.parquet`, `.txt`), else
/// `default`. A `--format` the extension contradicts is refused, and so is
/// Parquet to a terminal; both before any input is read.
pub fn resolve_format(
    given: Option<Format>,
    path: Option<&Path>,
    default: Format,
) -> Result<Format> {
    let by_ext = path
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .and_then(|e| match e.to_ascii_lowercase().as_str() {
            "jsonl" | "json" | "ndjson" => Some(Format::Jsonl),
            "csv" => Some(Format::Csv),
            "parquet" | "pq" => Some(Format::Parquet),
            "txt" => Some(Format::Table),
            _ => None,
        });
    let format = match (given, by_ext) {
        (Some(g), Some(e)) if g != e => {
            return Err(crate::cli::UsageError(format!(
            "-o {}: the extension says {} but --format says {}; drop --format or change the name",
            path.map(|p| p.display().to_string()).unwrap_or_default(),
            format_name(e),
            format_name(g)
        ))
            .into())
        }
        (Some(g), _) => g,
        (None, Some(e)) => e,
        (None, None) => default,
    };
    if format == Format::Parquet && path.is_none() && io::IsTerminal::is_terminal(&io::stdout()) {
        return Err(crate::cli::UsageError(
            "Parquet is binary: give -o FILE or redirect standard output".into(),
        )
        .into());
    }
    Ok(format)
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Jsonl => "jsonl",
        Format::Csv => "csv",
        Format::Parquet => "parquet",
        Format::Table => "table",
    }
}
