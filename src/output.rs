//! Writing results: JSON lines directly, CSV and Parquet through Polars, and
//! an aligned text table for terminals.

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use polars::prelude::{Column, DataFrame};
use polars_io::prelude::{CsvWriter, ParquetWriter};
use polars_io::SerWriter;
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufWriter, Write};
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

/// Where output goes: a file or standard output.
pub fn open_out(path: Option<&Path>) -> Result<Box<dyn Write>> {
    Ok(match path {
        Some(p) => Box::new(BufWriter::new(
            File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(BufWriter::new(io::stdout().lock())),
    })
}

/// Write items as JSON lines.
pub fn write_jsonl<T: Serialize>(items: &[T], out: &mut dyn Write) -> Result<()> {
    for it in items {
        serde_json::to_writer(&mut *out, it)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// A column of a tabular result.
pub enum Col {
    /// Text.
    Str(&'static str, Vec<Option<String>>),
    /// Integers.
    Int(&'static str, Vec<Option<i64>>),
    /// Floats.
    Float(&'static str, Vec<Option<f64>>),
    /// Booleans.
    Bool(&'static str, Vec<Option<bool>>),
    /// A figure already written in human units (`2.4 MiB`, `1.2 s`):
    /// text, right-aligned in a table.
    Human(&'static str, Vec<Option<String>>),
}

impl Col {
    /// The column's name.
    pub fn name(&self) -> &'static str {
        match self {
            Col::Str(n, _)
            | Col::Int(n, _)
            | Col::Float(n, _)
            | Col::Bool(n, _)
            | Col::Human(n, _) => n,
        }
    }

    fn len(&self) -> usize {
        match self {
            Col::Str(_, v) | Col::Human(_, v) => v.len(),
            Col::Int(_, v) => v.len(),
            Col::Float(_, v) => v.len(),
            Col::Bool(_, v) => v.len(),
        }
    }

    fn cell(&self, i: usize) -> String {
        match self {
            Col::Str(_, v) | Col::Human(_, v) => v[i].clone().unwrap_or_default(),
            Col::Int(_, v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
            Col::Float(_, v) => v[i].map(|x| format!("{x:.4}")).unwrap_or_default(),
            Col::Bool(_, v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
        }
    }

    fn numeric(&self) -> bool {
        matches!(self, Col::Int(..) | Col::Float(..) | Col::Human(..))
    }
}

/// Build a Polars frame from columns.
pub fn frame(cols: &[Col]) -> Result<DataFrame> {
    let columns: Vec<Column> = cols
        .iter()
        .map(|c| match c {
            Col::Str(n, v) | Col::Human(n, v) => Column::new((*n).into(), v),
            Col::Int(n, v) => Column::new((*n).into(), v),
            Col::Float(n, v) => Column::new((*n).into(), v),
            Col::Bool(n, v) => Column::new((*n).into(), v),
        })
        .collect();
    let height = cols.first().map(|c| c.len()).unwrap_or(0);
    Ok(DataFrame::new(height, columns)?)
}

/// Write columns as CSV, Parquet or an aligned table.
pub fn write_columns(cols: &[Col], format: Format, path: Option<&Path>) -> Result<()> {
    match format {
        Format::Csv => {
            let mut df = frame(cols)?;
            let mut out = open_out(path)?;
            CsvWriter::new(&mut out).finish(&mut df)?;
            out.flush()?;
        }
        Format::Parquet => {
            if path.is_none() && io::IsTerminal::is_terminal(&io::stdout()) {
                bail!("Parquet is binary: give -o FILE or redirect standard output");
            }
            let mut df = frame(cols)?;
            let mut out = open_out(path)?;
            ParquetWriter::new(&mut out).finish(&mut df)?;
            out.flush()?;
        }
        Format::Table => {
            let mut out = open_out(path)?;
            write_table(cols, &mut out, crate::cli::width(path))?;
            out.flush()?;
        }
        Format::Jsonl => bail!("internal: JSON lines are written from records"),
    }
    Ok(())
}

/// Milliseconds in the unit that reads best: `850 ms`, `1.5 s`,
/// `2.3 min`, `1.2 h`.
pub fn millis(ms: f64) -> String {
    let a = ms.abs();
    if a < 1000.0 {
        format!("{ms:.0} ms")
    } else if a < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else if a < 3_600_000.0 {
        format!("{:.1} min", ms / 60_000.0)
    } else {
        format!("{:.1} h", ms / 3_600_000.0)
    }
}

/// `s` cut to `max` characters, the last one `…` when cut.
fn cut(s: String, max: usize) -> String {
    if s.chars().count() > max {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    } else {
        s
    }
}

/// An aligned text table: numbers right-aligned, text left-aligned, long
/// cells cut with `…` (at 60 characters, and so that the table fits in
/// `width` columns when given: the widest text columns are cut first,
/// down to 12 characters).
pub fn write_table(cols: &[Col], out: &mut dyn Write, width: Option<usize>) -> Result<()> {
    const MAX: usize = 60;
    const MIN: usize = 12;
    let rows = cols.first().map(|c| c.len()).unwrap_or(0);
    let mut cells: Vec<Vec<String>> = cols
        .iter()
        .map(|c| (0..rows).map(|i| cut(c.cell(i), MAX)).collect())
        .collect();
    let measure = |cells: &[Vec<String>]| -> Vec<usize> {
        cols.iter()
            .zip(cells)
            .map(|(c, v)| {
                v.iter()
                    .map(|s| s.chars().count())
                    .chain(std::iter::once(c.name().chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    };
    let mut widths = measure(&cells);
    if let Some(limit) = width {
        loop {
            let total: usize = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
            if total <= limit {
                break;
            }
            // The widest text column that can still give up characters.
            let Some(i) = (0..cols.len())
                .filter(|&i| matches!(cols[i], Col::Str(..)) && widths[i] > MIN)
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
            else {
                break;
            };
            let target = widths[i]
                .saturating_sub(total - limit)
                .max(MIN)
                .max(cols[i].name().chars().count());
            if target >= widths[i] {
                break;
            }
            for c in &mut cells[i] {
                *c = cut(std::mem::take(c), target);
            }
            widths = measure(&cells);
        }
    }
    let line = |out: &mut dyn Write, vals: Vec<(&str, bool)>| -> Result<()> {
        let mut s = String::new();
        for (i, (v, right)) in vals.into_iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = widths[i].saturating_sub(v.chars().count());
            if right {
                s.push_str(&" ".repeat(pad));
                s.push_str(v);
            } else {
                s.push_str(v);
                s.push_str(&" ".repeat(pad));
            }
        }
        writeln!(out, "{}", s.trim_end())?;
        Ok(())
    };
    line(out, cols.iter().map(|c| (c.name(), c.numeric())).collect())?;
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(out, dashes.iter().map(|d| (d.as_str(), false)).collect())?;
    for r in 0..rows {
        line(
            out,
            cols.iter()
                .zip(&cells)
                .map(|(c, v)| (v[r].as_str(), c.numeric()))
                .collect(),
        )?;
    }
    Ok(())
}
