//! Tabular results: typed columns ([`Col`]) written as CSV and Parquet
//! (through Polars), as JSON lines, or as an aligned text table for a
//! terminal that wraps long text instead of cutting it.
//!
//! CSV text cells are made safe for spreadsheets ([`csv_safe`]); Parquet
//! and the text table keep the raw values. [`files`] is where results go:
//! files written atomically, standard output, output directories.
//!
//! ```
//! use tabular::{write_csv, write_table, Col};
//!
//! let cols = vec![
//!     Col::Str("table", vec![Some("orders".into()), Some("=cmd()".into())]),
//!     Col::Int("files", vec![Some(12), None]),
//! ];
//! let mut csv = Vec::new();
//! write_csv(&cols, &mut csv, true).unwrap();
//! assert_eq!(String::from_utf8(csv).unwrap(), "table,files\norders,12\n'=cmd(),\n");
//! let mut text = Vec::new();
//! write_table(&cols, &mut text, None).unwrap();
//! assert_eq!(
//!     String::from_utf8(text).unwrap(),
//!     "table   files\n------  -----\norders     12\n=cmd()\n"
//! );
//! ```
#![deny(missing_docs)]

use polars::prelude::{Column, DataFrame};
use polars_io::prelude::{CsvWriter, ParquetWriter};
use polars_io::SerWriter;
use serde::Serialize;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub mod files;
pub mod format;
pub mod records;

pub use format::{write_columns, write_records, write_to, Format};

/// What can go wrong writing a result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The output could not be written.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A record could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Polars could not build or write the frame.
    #[error(transparent)]
    Polars(#[from] polars::prelude::PolarsError),
    /// A file or directory could not be created, written, read or removed.
    #[error("cannot {verb} {}", path.display())]
    File {
        /// What was tried (`create`, `write`, `read`, `remove stale`).
        verb: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An output named by a directory.
    #[error("cannot write {}: it is a directory", .0.display())]
    IsDirectory(PathBuf),
    /// An output named by a symbolic link to a directory.
    #[error("cannot write {}: it is a symbolic link to a directory", .0.display())]
    LinkToDirectory(PathBuf),
    /// An output path without a file name.
    #[error("cannot write {}: no file name", .0.display())]
    NoFileName(PathBuf),
    /// Every temporary name beside an output was taken.
    #[error("cannot create {}: no free temporary name", .0.display())]
    NoTempName(PathBuf),
    /// An output directory (`--out`) that is a file.
    #[error("--out {}: not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// An output directory (`--out`) holding files lakeaudit did not write.
    #[error(
        "--out {}: the directory holds files lakeaudit did not write ({}); give a new \
         or empty directory, or --force to write beside them",
        dir.display(),
        list(files)
    )]
    Foreign {
        /// The directory.
        dir: PathBuf,
        /// The names of the files that are not lakeaudit's, sorted.
        files: Vec<String>,
    },
    /// A command-line mistake found before any input is read (a
    /// `--format` that `-o FILE`'s extension contradicts, Parquet to a
    /// terminal).
    #[error("{0}")]
    Usage(String),
    /// A bug: a view's columns do not match its records.
    #[error("internal: {0}")]
    Internal(String),
}

/// The first five names, and how many more there are.
fn list(files: &[String]) -> String {
    let shown: Vec<&str> = files.iter().take(5).map(String::as_str).collect();
    let more = if files.len() > shown.len() {
        format!(" and {} more", files.len() - shown.len())
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

impl Error {
    /// A file operation that failed.
    fn file(verb: &'static str, path: &Path, source: io::Error) -> Error {
        Error::File {
            verb,
            path: path.to_path_buf(),
            source,
        }
    }
}

impl Error {
    /// The kind of the I/O error underneath, if any (a closed pipe is
    /// [`io::ErrorKind::BrokenPipe`]).
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            Error::Io(e) => Some(e.kind()),
            Error::Json(e) => e.io_error_kind(),
            _ => None,
        }
    }
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Write items as JSON lines (raw values: no CSV prefix).
pub fn write_jsonl<T: Serialize>(items: &[T], out: &mut dyn Write) -> Result<()> {
    for it in items {
        serde_json::to_writer(&mut *out, it)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// A CSV cell that a spreadsheet will not run: text starting with `=`,
/// `+`, `-`, `@`, a tab or a carriage return (which spreadsheets take for
/// a formula) gets a leading `'` (OWASP's CSV injection rule), and so does
/// text starting with `'`, so that a reader can undo the prefix by
/// dropping one leading `'` (as `--table-stats` does). Text that is a whole
/// number (`-5`, `-1.5e3`) stays as it is: a spreadsheet reads it as a
/// number, not a formula. Only text cells are passed here; numeric columns
/// are written as numbers.
pub fn csv_safe(s: &str) -> std::borrow::Cow<'_, str> {
    let risky = s.starts_with(['=', '+', '-', '@', '\t', '\r', '\''])
        && !(s.starts_with(['-', '+']) && s.parse::<f64>().is_ok());
    if risky {
        std::borrow::Cow::Owned(format!("'{s}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// A column of a tabular result.
#[derive(Debug)]
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

    /// The column with its text cells made safe for a spreadsheet
    /// ([`csv_safe`]); numbers and booleans as they are.
    fn csv_safe(&self) -> Col {
        match self {
            Col::Str(n, v) => Col::Str(
                n,
                v.iter()
                    .map(|c| c.as_deref().map(|s| csv_safe(s).into_owned()))
                    .collect(),
            ),
            Col::Int(n, v) => Col::Int(n, v.clone()),
            Col::Float(n, v) => Col::Float(n, v.clone()),
            Col::Bool(n, v) => Col::Bool(n, v.clone()),
            Col::Human(n, v) => Col::Human(n, v.clone()),
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

/// Write columns as one Parquet file.
pub fn write_parquet(cols: &[Col], out: &mut dyn Write) -> Result<()> {
    let mut df = frame(cols)?;
    ParquetWriter::new(out).finish(&mut df)?;
    Ok(())
}

/// Rows a Parquet row group written by [`ParquetRows`] holds: an output
/// of at most this many rows is one row group, as [`write_parquet`] writes
/// it (and byte for byte the same file).
pub const ROW_GROUP_ROWS: usize = 16_384;

/// A Parquet output written a batch of rows at a time, in row groups of
/// [`ROW_GROUP_ROWS`], so that memory holds one row group, never the
/// whole output.
pub struct ParquetRows<'a> {
    out: Option<&'a mut dyn Write>,
    writer: Option<polars_io::parquet::write::BatchedWriter<&'a mut dyn Write>>,
    pending: Option<DataFrame>,
}

impl<'a> ParquetRows<'a> {
    /// A Parquet output to `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        ParquetRows {
            out: Some(out),
            writer: None,
            pending: None,
        }
    }

    /// Append the rows of `cols` (the same columns every time).
    pub fn push(&mut self, cols: &[Col]) -> Result<()> {
        let df = frame(cols)?;
        match &mut self.pending {
            Some(p) => {
                p.vstack_mut(&df)?;
            }
            None => self.pending = Some(df),
        }
        while self
            .pending
            .as_ref()
            .is_some_and(|p| p.height() >= ROW_GROUP_ROWS)
        {
            let Some(p) = self.pending.take() else {
                break;
            };
            let rest = p.slice(ROW_GROUP_ROWS as i64, p.height() - ROW_GROUP_ROWS);
            self.write(p.slice(0, ROW_GROUP_ROWS))?;
            self.pending = Some(rest);
        }
        Ok(())
    }

    /// Write the rows pushed so far as one row group now, whatever their
    /// number (for rows whose text is large: [`write_parts`]).
    pub fn flush(&mut self) -> Result<()> {
        match self.pending.take() {
            Some(p) if p.height() > 0 => self.write(p),
            other => {
                self.pending = other;
                Ok(())
            }
        }
    }

    /// Write one row group.
    fn write(&mut self, mut df: DataFrame) -> Result<()> {
        df.rechunk_mut_par();
        if self.writer.is_none() {
            if let Some(out) = self.out.take() {
                self.writer = Some(ParquetWriter::new(out).batched(df.schema())?);
            }
        }
        if let Some(w) = &mut self.writer {
            w.write_batch(&df)?;
        }
        Ok(())
    }

    /// Write the last rows and the file's footer (an empty output is the
    /// columns of `empty` with no row).
    pub fn finish(mut self, empty: &[Col]) -> Result<()> {
        match self.pending.take() {
            Some(p) if p.height() > 0 || self.writer.is_none() => self.write(p)?,
            Some(_) => {}
            None if self.writer.is_none() => self.write(frame(empty)?)?,
            None => {}
        }
        if let Some(w) = self.writer.take() {
            w.finish()?;
        }
        Ok(())
    }
}

/// Text bytes of rows a [`write_parts`] Parquet output gathers before it
/// writes them as a row group: an output with less text (and at most
/// [`ROW_GROUP_ROWS`] rows) is one row group, as [`write_parquet`] writes it.
pub const PART_GROUP_BYTES: usize = 16 << 20;

/// Write columns given a part at a time (each part the same columns, with
/// the bytes of text its rows hold) as one CSV or Parquet output, so that
/// memory holds a part (and for Parquet up to [`PART_GROUP_BYTES`] of
/// pending rows), never the whole output. The output is the one
/// [`write_columns`] writes of the parts' rows together when they hold
/// less than [`PART_GROUP_BYTES`] of text; past that, Parquet rows are
/// written in more row groups. The first part is written even when it has
/// no row (the header, or an empty file's schema). An aligned table is
/// not written by parts.
pub fn write_parts(
    format: Format,
    path: Option<&std::path::Path>,
    parts: impl IntoIterator<Item = Result<(Vec<Col>, usize)>>,
) -> Result<()> {
    match format {
        Format::Csv => write_to(path, |out| {
            for (i, part) in parts.into_iter().enumerate() {
                write_csv(&part?.0, out, i == 0)?;
            }
            Ok(())
        }),
        Format::Parquet => {
            format::binary_to_terminal(format, path)?;
            write_to(path, |out| {
                let mut rows = ParquetRows::new(out);
                let mut pending = 0usize;
                for part in parts {
                    let (cols, bytes) = part?;
                    rows.push(&cols)?;
                    pending += bytes;
                    if pending >= PART_GROUP_BYTES {
                        rows.flush()?;
                        pending = 0;
                    }
                }
                rows.finish(&[])
            })
        }
        Format::Table | Format::Jsonl => Err(Error::Internal(format!(
            "{format:?} output is not written by parts"
        ))),
    }
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

/// `s` in lines of at most `max` characters: broken at the last space
/// that fits (the space itself dropped), else after `max` characters.
/// Nothing is cut away.
fn wrap(s: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut rest: Vec<char> = s.chars().collect();
    while rest.len() > max {
        match rest[..=max]
            .iter()
            .rposition(|&c| c == ' ')
            .filter(|&i| i > 0)
        {
            Some(i) => {
                lines.push(rest[..i].iter().collect());
                rest.drain(..=i);
            }
            None => {
                lines.push(rest[..max].iter().collect());
                rest.drain(..max);
            }
        }
    }
    lines.push(rest.into_iter().collect());
    lines
}

/// Write columns as CSV rows (with the header line when `header`), text
/// cells through [`csv_safe`]. Rows written in batches read as one file.
pub fn write_csv(cols: &[Col], out: &mut dyn Write, header: bool) -> Result<()> {
    let safe: Vec<Col> = cols.iter().map(Col::csv_safe).collect();
    let mut df = frame(&safe)?;
    CsvWriter::new(out).include_header(header).finish(&mut df)?;
    Ok(())
}

/// An aligned text table: numbers right-aligned, text left-aligned. Text
/// longer than 60 characters, or than the table can give a column so that
/// it fits in `width` columns (the widest text columns give way first,
/// down to 12 characters), wraps onto further lines of its row: nothing
/// is cut away, so an edge or a table name can be copied from it whole.
/// When even that does not fit, the last columns are left out (never the
/// first two) and a closing line names them.
pub fn write_table(cols: &[Col], out: &mut dyn Write, width: Option<usize>) -> Result<()> {
    let mut cols = cols;
    let mut hidden: Vec<&str> = Vec::new();
    if let Some(limit) = width {
        while cols.len() > 2 && min_width(cols) > limit {
            hidden.insert(0, cols[cols.len() - 1].name());
            cols = &cols[..cols.len() - 1];
        }
    }
    write_fitted(cols, out, width)?;
    if !hidden.is_empty() {
        let note = format!(
            "({} more column(s) not shown: {}; widen the terminal, or use --format csv or jsonl)",
            hidden.len(),
            hidden.join(", ")
        );
        for l in wrap(&note, width.unwrap_or(usize::MAX).max(20)) {
            writeln!(out, "{l}")?;
        }
    }
    Ok(())
}

/// The narrowest a column may be made: a text column wraps down to its
/// longest word (so a name like `shop.web_events` is not broken), at
/// least 12 characters and at most 30, never below its header; other
/// columns keep their widest cell.
fn floor(c: &Col) -> usize {
    let rows = c.len();
    let name = c.name().chars().count();
    let widest = (0..rows)
        .map(|i| c.cell(i).chars().count())
        .max()
        .unwrap_or(0);
    match c {
        Col::Str(..) => {
            let word = (0..rows)
                .flat_map(|i| {
                    c.cell(i)
                        .split(' ')
                        .map(|w| w.chars().count())
                        .collect::<Vec<_>>()
                })
                .max()
                .unwrap_or(0);
            word.clamp(12, 30).min(widest).max(name)
        }
        _ => widest.max(name),
    }
}

/// The narrowest a table of `cols` can be ([`floor`] of each column).
fn min_width(cols: &[Col]) -> usize {
    cols.iter().map(floor).sum::<usize>() + 2 * cols.len().saturating_sub(1)
}

fn write_fitted(cols: &[Col], out: &mut dyn Write, width: Option<usize>) -> Result<()> {
    const MAX: usize = 60;
    let rows = cols.first().map(|c| c.len()).unwrap_or(0);
    let cells: Vec<Vec<String>> = cols
        .iter()
        .map(|c| (0..rows).map(|i| c.cell(i)).collect())
        .collect();
    let natural: Vec<usize> = cols
        .iter()
        .zip(&cells)
        .map(|(c, v)| {
            let widest = v.iter().map(|s| s.chars().count()).max().unwrap_or(0);
            let name = c.name().chars().count();
            match c {
                Col::Str(..) => widest.min(MAX).max(name),
                _ => widest.max(name),
            }
        })
        .collect();
    let mut widths = natural.clone();
    let floors: Vec<usize> = cols.iter().map(floor).collect();
    if let Some(limit) = width {
        loop {
            let total: usize = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
            if total <= limit {
                break;
            }
            // The widest text column that can still give up characters.
            let Some(i) = (0..cols.len())
                .filter(|&i| matches!(cols[i], Col::Str(..)) && widths[i] > floors[i])
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
            else {
                break;
            };
            let target = widths[i]
                .saturating_sub(total - limit)
                .max(floors[i])
                .max(cols[i].name().chars().count());
            if target >= widths[i] {
                break;
            }
            widths[i] = target;
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
        let pieces: Vec<Vec<String>> = cols
            .iter()
            .zip(&cells)
            .zip(&widths)
            .map(|((c, v), &w)| match c {
                Col::Str(..) => wrap(&v[r], w),
                _ => vec![v[r].clone()],
            })
            .collect();
        let height = pieces.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            line(
                out,
                cols.iter()
                    .zip(&pieces)
                    .map(|(c, p)| (p.get(k).map(String::as_str).unwrap_or(""), c.numeric()))
                    .collect(),
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(range: std::ops::Range<i64>) -> Vec<Col> {
        vec![
            Col::Str(
                "executions",
                range
                    .clone()
                    .map(|i| Some(format!("=app-{i}:{i} app-{i}:7")))
                    .collect(),
            ),
            Col::Float("jis", range.clone().map(|i| Some(i as f64 / 3.0)).collect()),
            Col::Int("f", range.map(|i| (i % 2 == 0).then_some(i)).collect()),
        ]
    }

    #[test]
    fn an_output_written_by_parts_is_the_one_written_at_once() {
        let dir = std::env::temp_dir().join(format!("tabular-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for format in [Format::Csv, Format::Parquet] {
            let (whole, parts) = (dir.join("whole"), dir.join("parts"));
            write_columns(&rows(0..10), format, Some(&whole)).unwrap();
            let pieces = [0..1, 1..4, 4..4, 4..10].map(|r| Ok((rows(r), 10)));
            write_parts(format, Some(&parts), pieces).unwrap();
            assert_eq!(
                std::fs::read(&whole).unwrap(),
                std::fs::read(&parts).unwrap(),
                "{format:?}"
            );
            // No row: the header, or the schema.
            write_columns(&rows(0..0), format, Some(&whole)).unwrap();
            write_parts(format, Some(&parts), [Ok((rows(0..0), 0))]).unwrap();
            assert_eq!(
                std::fs::read(&whole).unwrap(),
                std::fs::read(&parts).unwrap()
            );
        }
        // Past the bytes of a row group, more row groups, the same rows.
        let big = dir.join("big");
        let pieces = [0..3, 3..6].map(|r| Ok((rows(r), PART_GROUP_BYTES)));
        write_parts(Format::Parquet, Some(&big), pieces).unwrap();
        let file = std::fs::File::open(&big).unwrap();
        let mut reader = polars_io::prelude::ParquetReader::new(file);
        use polars_io::SerReader;
        let groups = reader.get_metadata().unwrap().row_groups.len();
        let df = reader.finish().unwrap();
        assert_eq!((groups, df.height()), (2, 6));
        assert_eq!(df, frame(&rows(0..6)).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn wrapping_keeps_every_character_but_the_break_spaces() {
        let edge = "lineitem(l_orderkey) = orders(o_orderkey)";
        let lines = wrap(edge, 20);
        assert_eq!(lines, vec!["lineitem(l_orderkey)", "= orders(o_orderkey)"]);
        assert_eq!(lines.join(" "), edge);
        // No space to break at: hard breaks, nothing lost.
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("short", 20), vec!["short"]);
        assert_eq!(wrap("", 5), vec![""]);
    }

    #[test]
    fn a_narrow_table_wraps_long_names_onto_more_lines() {
        let cols = vec![
            Col::Str(
                "edge",
                vec![Some("lineitem(l_orderkey) = orders(o_orderkey)".into())],
            ),
            Col::Int("F", vec![Some(31)]),
        ];
        let mut out = Vec::new();
        write_table(&cols, &mut out, Some(24)).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 24), "{text}");
        assert_eq!(lines[2].trim_end(), "lineitem(l_orderkey)  31", "{text}");
        assert_eq!(lines[3].trim_end(), "= orders(o_orderkey)", "{text}");
        // Unlimited width: one line per row.
        let mut out = Vec::new();
        write_table(&cols, &mut out, None).unwrap();
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 3);
    }

    #[test]
    fn columns_that_cannot_fit_are_left_out_from_the_right_and_named() {
        let cols = vec![
            Col::Str("table", vec![Some("shop.orders".into())]),
            Col::Int("files", vec![Some(48)]),
            Col::Int("pos_delete_files", vec![Some(9)]),
            Col::Int("eq_delete_files", vec![Some(0)]),
        ];
        let mut out = Vec::new();
        write_table(&cols, &mut out, Some(40)).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().all(|l| l.chars().count() <= 40), "{text}");
        assert!(
            text.starts_with("table        files  pos_delete_files\n"),
            "{text}"
        );
        assert!(
            text.replace('\n', " ").contains(
                "(1 more column(s) not shown: eq_delete_files; widen the terminal, or use --format csv or jsonl)"
            ),
            "{text}"
        );
    }
}
