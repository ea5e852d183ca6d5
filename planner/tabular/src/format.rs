//! The format each result takes ([`Format`]), chosen from the flag, the
//! output file's extension or where the output goes ([`resolve`]), and
//! writing columns in it ([`write_columns`]).

use crate::files::open_out;
use crate::{Col, Error, Result};
use std::io::{self, IsTerminal, Write};
use std::path::Path;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
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

impl Format {
    /// The extension of a file in this format (`tables --out DIR`).
    pub fn ext(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Parquet => "parquet",
            Format::Table => "txt",
        }
    }

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            other => other.ext(),
        }
    }
}

/// The format when none is given: a table on a terminal, JSON lines on a
/// pipe or into a file.
pub fn default_for(out: Option<&Path>) -> Format {
    if out.is_none() && io::stdout().is_terminal() {
        Format::Table
    } else {
        Format::Jsonl
    }
}

/// The format of an output: `given` (`--format`), else the file's
/// extension (`.jsonl`/`.json`/`.ndjson`, `.csv`, `.parquet`, `.txt`),
/// else `default`. A `--format` the extension contradicts is refused, and
/// so is Parquet to a terminal ([`Error::Usage`]); both before any input
/// is read.
pub fn resolve(given: Option<Format>, path: Option<&Path>, default: Format) -> Result<Format> {
    let ext = path
        .and_then(|p| p.extension())
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let by_ext = ext.as_deref().and_then(|e| match e {
        "jsonl" | "json" | "ndjson" => Some(Format::Jsonl),
        "csv" => Some(Format::Csv),
        "parquet" | "pq" => Some(Format::Parquet),
        "txt" => Some(Format::Table),
        _ => None,
    });
    if let (None, Some(e), None) = (given, &ext, by_ext) {
        return Err(Error::Usage(format!(
            "-o {}: no format has the extension .{e}; name the file .jsonl, .csv, .parquet or .txt, or give --format",
            path.map(|p| p.display().to_string()).unwrap_or_default()
        )));
    }
    let format = match (given, by_ext) {
        (Some(g), Some(e)) if g != e => {
            return Err(Error::Usage(format!(
            "-o {}: the extension says {} but --format says {}; drop --format or change the name",
            path.map(|p| p.display().to_string()).unwrap_or_default(),
            e.name(),
            g.name()
        )))
        }
        (Some(g), _) => g,
        (None, Some(e)) => e,
        (None, None) => default,
    };
    binary_to_terminal(format, path)?;
    Ok(format)
}

/// Parquet to a terminal is a usage error.
pub(crate) fn binary_to_terminal(format: Format, path: Option<&Path>) -> Result<()> {
    if format == Format::Parquet && path.is_none() && io::stdout().is_terminal() {
        return Err(Error::Usage(
            "Parquet is binary: give -o FILE or redirect standard output".into(),
        ));
    }
    Ok(())
}

/// Columns a table written to standard output may use: `COLUMNS` when
/// set, else the terminal's width; `None` (no limit) on a pipe or file.
pub fn width(out: Option<&Path>) -> Option<usize> {
    if out.is_some() {
        return None;
    }
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return Some(n);
    }
    console::Term::stdout()
        .size_checked()
        .map(|(_, cols)| usize::from(cols))
}

/// Write one output with `f` and finish it (see [`open_out`]).
pub fn write_to(path: Option<&Path>, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let mut out = open_out(path)?;
    f(&mut out)?;
    out.finish()
}

/// Write columns as CSV, Parquet or an aligned table (to the terminal's
/// [`width`]). CSV text cells go through [`crate::csv_safe`]; Parquet
/// and the table keep the raw values. JSON lines are written from the
/// records ([`crate::write_jsonl`]), not from columns.
pub fn write_columns(cols: &[Col], format: Format, path: Option<&Path>) -> Result<()> {
    match format {
        Format::Csv => write_to(path, |out| crate::write_csv(cols, out, true)),
        Format::Parquet => {
            binary_to_terminal(format, path)?;
            write_to(path, |out| crate::write_parquet(cols, out))
        }
        Format::Table => write_to(path, |out| crate::write_table(cols, out, width(path))),
        Format::Jsonl => Err(Error::Internal(
            "JSON lines are written from records".into(),
        )),
    }
}

/// Write records as JSON lines to `path` (standard output when `None`).
pub fn write_records<T: serde::Serialize>(rows: &[T], path: Option<&Path>) -> Result<()> {
    write_to(path, |w| crate::write_jsonl(rows, w))
}
