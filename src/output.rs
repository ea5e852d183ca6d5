//! Where results go: files written atomically, standard output, output
//! directories with their manifest, and the format each takes (the
//! columns themselves are written by the `tabular` crate).

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
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
