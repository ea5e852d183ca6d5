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
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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

/// An output file being written: a temporary file beside it, renamed over
/// the name by [`AtomicFile::commit`]. Until then the old file (if any) is
/// untouched; a write that fails or is abandoned removes the temporary
/// file. The rename replaces a symbolic link at the name instead of
/// following it, so an output never writes through a link into another
/// file.
pub struct AtomicFile {
    tmp: Option<PathBuf>,
    dest: PathBuf,
    file: BufWriter<File>,
}

impl AtomicFile {
    /// Starts writing `dest`. Refused when `dest` is a directory or a
    /// symbolic link to one (replacing the link would surprise as much as
    /// following it).
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        if let Ok(meta) = std::fs::symlink_metadata(dest) {
            if meta.is_dir() {
                bail!("cannot write {}: it is a directory", dest.display());
            }
            if meta.file_type().is_symlink() && dest.is_dir() {
                bail!(
                    "cannot write {}: it is a symbolic link to a directory",
                    dest.display()
                );
            }
        }
        if let Some(f) = Self::stream(dest)? {
            return Ok(AtomicFile {
                tmp: None,
                dest: dest.to_path_buf(),
                file: BufWriter::new(f),
            });
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .with_context(|| format!("cannot write {}: no file name", dest.display()))?;
        static SEQ: AtomicU64 = AtomicU64::new(0);
        for _ in 0..100 {
            let n = SEQ.fetch_add(1, Ordering::Relaxed);
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".lakeaudit-{}-{n}.tmp", std::process::id()));
            let tmp = dir.join(tmp_name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(f) => {
                    return Ok(AtomicFile {
                        tmp: Some(tmp),
                        dest: dest.to_path_buf(),
                        file: BufWriter::new(f),
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {}", dest.display()))
                }
            }
        }
        bail!("cannot create {}: no free temporary name", dest.display())
    }

    /// A name that is a pipe or a terminal rather than a file
    /// (`--apps /dev/fd/3`, `-o /dev/stdout`, a FIFO) is written in place:
    /// there is nothing to replace. A character device reached through a
    /// link counts only when the name given is under `/dev` (a link planted
    /// in an output directory is replaced, never followed into a device).
    fn stream(dest: &Path) -> Result<Option<File>> {
        use std::os::unix::fs::FileTypeExt;
        let Ok(meta) = std::fs::metadata(dest) else {
            return Ok(None);
        };
        let ft = meta.file_type();
        let linked = std::fs::symlink_metadata(dest).is_ok_and(|m| m.file_type().is_symlink());
        let direct = ft.is_fifo() || (ft.is_char_device() && (!linked || dest.starts_with("/dev")));
        if !direct {
            return Ok(None);
        }
        std::fs::OpenOptions::new()
            .write(true)
            .open(dest)
            .map(Some)
            .with_context(|| format!("cannot write {}", dest.display()))
    }

    /// Flushes the file to disk and renames it over the name.
    pub fn commit(mut self) -> Result<()> {
        let ctx = || format!("cannot write {}", self.dest.display());
        self.file.flush().with_context(ctx)?;
        if let Some(tmp) = self.tmp.take() {
            self.file.get_ref().sync_all().with_context(ctx)?;
            if let Err(e) = std::fs::rename(&tmp, &self.dest) {
                let _ = std::fs::remove_file(&tmp);
                return Err(e).with_context(ctx);
            }
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Where one output goes: a file (written atomically, see [`AtomicFile`])
/// or standard output. [`Out::finish`] ends it; an `Out` dropped without
/// it leaves no file behind (and the old one in place).
pub enum Out {
    /// `-o FILE` / a file in the output directory.
    File(AtomicFile),
    /// Standard output.
    Stdout(BufWriter<io::StdoutLock<'static>>),
}

impl Out {
    /// Flushes, and for a file renames it over its name.
    pub fn finish(self) -> Result<()> {
        match self {
            Out::File(f) => f.commit(),
            Out::Stdout(mut o) => Ok(o.flush()?),
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::File(f) => f.write(buf),
            Out::Stdout(o) => o.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            Out::Stdout(o) => o.flush(),
        }
    }
}

/// Open one output: the file `path` or standard output. Every output
/// lakeaudit writes is opened here (or through [`write_to`]).
pub fn open_out(path: Option<&Path>) -> Result<Out> {
    Ok(match path {
        Some(p) => Out::File(AtomicFile::create(p)?),
        None => Out::Stdout(BufWriter::new(io::stdout().lock())),
    })
}

/// Write one output with `f` and finish it (see [`open_out`]).
pub fn write_to(path: Option<&Path>, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let mut out = open_out(path)?;
    f(&mut out)?;
    out.finish()
}

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
/// dropping one leading `'` ([`csv_unprefix`]). Text that is a whole
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

/// Write columns as CSV, Parquet or an aligned table. CSV text cells go
/// through [`csv_safe`]; Parquet and the table keep the raw values.
pub fn write_columns(cols: &[Col], format: Format, path: Option<&Path>) -> Result<()> {
    match format {
        Format::Csv => write_to(path, |out| write_csv(cols, out, true))?,
        Format::Parquet => {
            if path.is_none() && io::IsTerminal::is_terminal(&io::stdout()) {
                bail!("Parquet is binary: give -o FILE or redirect standard output");
            }
            let mut df = frame(cols)?;
            write_to(path, |out| {
                ParquetWriter::new(out).finish(&mut df)?;
                Ok(())
            })?;
        }
        Format::Table => write_to(path, |out| write_table(cols, out, crate::cli::width(path)))?,
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

/// The file in an output directory that lists what lakeaudit wrote there.
pub const MANIFEST: &str = ".lakeaudit-outputs";

/// An output directory (`analyze --out DIR`, `tables --out DIR`): what
/// lakeaudit writes there, so that a later run replaces only its own files.
///
/// A directory holding files lakeaudit did not write is refused (unless
/// `--force`); which files are its own is read from the directory's
/// [`MANIFEST`], or, for a directory without one, from `known` (the names
/// the command writes). After a run, [`OutDir::finish`] removes the files an
/// earlier run wrote that this run did not (an earlier `--tables` run's
/// `table_state.csv`, say), and writes the new manifest.
pub struct OutDir {
    dir: PathBuf,
    earlier: std::collections::BTreeSet<String>,
    written: std::collections::BTreeSet<String>,
}

impl OutDir {
    /// Checks `dir` and creates it if needed; nothing is written yet.
    pub fn prepare(dir: &Path, known: &[&str], force: bool) -> Result<OutDir> {
        if let Ok(meta) = std::fs::metadata(dir) {
            if !meta.is_dir() {
                bail!("--out {}: not a directory", dir.display());
            }
        }
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let manifest = dir.join(MANIFEST);
        let earlier: std::collections::BTreeSet<String> = match std::fs::read_to_string(&manifest) {
            Ok(text) => text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                // Only plain names in this directory count as ours.
                .filter(|l| !l.contains(['/', '\\']) && *l != "." && *l != "..")
                .map(str::to_string)
                .collect(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                known.iter().map(|s| s.to_string()).collect()
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", manifest.display())),
        };
        let mut foreign = Vec::new();
        for entry in
            std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?
        {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name != MANIFEST && !earlier.contains(&name) && !is_temp_name(&name) {
                foreign.push(name);
            }
        }
        foreign.sort();
        if !foreign.is_empty() && !force {
            let shown: Vec<&str> = foreign.iter().take(5).map(String::as_str).collect();
            bail!(
                "--out {}: the directory holds files lakeaudit did not write ({}{}); give a new \
                 or empty directory, or --force to write beside them",
                dir.display(),
                shown.join(", "),
                if foreign.len() > shown.len() {
                    format!(" and {} more", foreign.len() - shown.len())
                } else {
                    String::new()
                }
            );
        }
        Ok(OutDir {
            dir: dir.to_path_buf(),
            earlier,
            written: Default::default(),
        })
    }

    /// The path of output `name` in the directory, recorded as written.
    pub fn file(&mut self, name: &str) -> PathBuf {
        self.written.insert(name.to_string());
        self.dir.join(name)
    }

    /// Removes the earlier run's outputs this run did not write, and
    /// writes the manifest of this run's.
    pub fn finish(self) -> Result<()> {
        for stale in self.earlier.difference(&self.written) {
            let p = self.dir.join(stale);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_file() || m.file_type().is_symlink() => {
                    std::fs::remove_file(&p)
                        .with_context(|| format!("cannot remove stale {}", p.display()))?;
                }
                _ => {}
            }
        }
        let mut text = String::from(
            "# Files lakeaudit wrote in this directory; a later run replaces them and removes\n\
             # those it does not write again. Other files make it refuse the directory.\n",
        );
        for n in &self.written {
            text.push_str(n);
            text.push('\n');
        }
        write_to(Some(&self.dir.join(MANIFEST)), |w| {
            Ok(w.write_all(text.as_bytes())?)
        })
    }
}

/// A temporary file [`AtomicFile`] left behind by a run that was killed.
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp") && name.contains(".lakeaudit-")
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

#[cfg(test)]
mod tests {
    use super::*;

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
