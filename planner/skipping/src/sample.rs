//! Rows read from a table's data files for simulations: each file the
//! metadata names opened inside the table only, its columns read with
//! polars as typed literals ([`sample`], [`file_literals`]).

use plan::predicate::{ColumnType, Literal};
use polars::prelude::*;
use std::path::{Component, Path, PathBuf};
use tables::{DataFile, TableState};

use crate::Error;

/// Rows read from a table for simulations.
#[derive(Debug, Default)]
pub struct Sample {
    /// The columns read, with their types (the table's names).
    pub columns: Vec<(String, ColumnType)>,
    /// Values, one vector per column, one entry per row (taken by
    /// [`rank_all`]).
    pub values: Vec<Vec<Option<Literal>>>,
    /// Rows read.
    pub rows: usize,
    /// Each row's partition (its data file's [`DataFile::partition`]).
    pub partitions: Vec<u32>,
    /// Data files read, and in the table.
    pub files_read: usize,
    /// Live data files of the table.
    pub files_total: usize,
    /// Live rows of the table (from its metadata).
    pub rows_total: u64,
    /// The files read: their rows and their row groups' uncompressed
    /// bytes (the footers' `total_byte_size`: the encoded size before
    /// compression, which delta-rs's writer measures files by).
    pub footer_rows: u64,
    /// See [`Sample::footer_rows`].
    pub footer_uncompressed: u64,
    /// Where each file read ends in the sampled rows (exclusive), in the
    /// order read: the current files, whose encoding a rewrite changes
    /// ([`crate::encoded`]).
    pub file_ends: Vec<usize>,
    /// Iceberg tables only: each column's bytes over the files read as
    /// parquet-mr's writer measures an open page (PLAIN, before encoding:
    /// [`tables::parquet_guard::plain_sizes`], byte arrays from their
    /// values), in the order the files hold them; per row, over
    /// [`Sample::footer_rows`]. Iceberg's writer rolls files by them
    /// ([`crate::rewriter::iceberg_rows_per_file`]).
    pub plain: Vec<(String, u64)>,
    /// Files that could not be read, each named with its reason.
    pub warnings: Vec<String>,
    /// Files refused as malformed or lying about their contents (each
    /// named with its reason): bad input, left out of the sample.
    pub errors: Vec<String>,
}

/// Why a data file was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    /// The file (or the table) and why.
    pub message: String,
    /// The file is malformed or lies about what it holds
    /// ([`tables::parquet_guard`]): bad input, reported as an error; else
    /// it could not be read (gone, outside the table): a warning.
    pub refused: bool,
}

impl FileError {
    pub(crate) fn unreadable(message: String) -> FileError {
        FileError {
            message,
            refused: false,
        }
    }
}

impl Sample {
    /// Rows read.
    pub fn rows(&self) -> usize {
        self.rows
    }
}

/// `%XX` escapes of a Delta `add.path` decoded (invalid UTF-8 replaced).
fn percent_decode(p: &str) -> String {
    percent_encoding::percent_decode_str(p)
        .decode_utf8_lossy()
        .into_owned()
}

/// The local file of a data file's path, inside the table directory only:
/// a Delta path relative to the table, or an absolute one (Iceberg) under
/// the location the table declares; with `allow_outside`, an absolute path
/// elsewhere is taken as it is (the table's scope still checks it: never a
/// local file for a table on a store).
fn local_file(t: &TableState, f: &DataFile, allow_outside: bool) -> Result<PathBuf, Error> {
    let Some(p) = f.path.as_deref() else {
        return Err(Error::NoPath);
    };
    let rel: String = if p.contains("://") || p.starts_with("file:") || p.starts_with('/') {
        // The metadata's absolute paths name the declared location, or the
        // table's own directory when it is read in place (absolute, even
        // when the user gave a relative path).
        // A table on an object store is at its URL (`s3://…`, never
        // `file:s3://…`); a local one at its canonical `file:` path.
        let declared = t.declared_location.clone().unwrap_or_else(|| {
            let shown = t.location.display().to_string();
            if shown.contains("://") {
                return shown;
            }
            let here = std::fs::canonicalize(&t.location).unwrap_or_else(|_| t.location.clone());
            format!("file:{}", here.display())
        });
        let strip = |s: &str| {
            s.trim_start_matches("file://")
                .trim_start_matches("file:")
                .trim_end_matches('/')
                .to_string()
        };
        let (d, q) = (strip(&declared), strip(p));
        match q.strip_prefix(&d) {
            Some(rest) => rest.trim_start_matches('/').to_string(),
            None if allow_outside => {
                return Ok(PathBuf::from(
                    if p.contains("://") && !p.starts_with("file:") {
                        p.to_string()
                    } else {
                        q
                    },
                ))
            }
            None => {
                return Err(Error::OutsideLocation {
                    path: p.to_string(),
                    declared,
                })
            }
        }
    } else {
        percent_decode(p)
    };
    let rel = Path::new(&rel);
    if rel
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(Error::LeavesTable {
            path: p.to_string(),
        });
    }
    Ok(t.location.join(rel))
}

/// `f` of every row of a chunked array.
fn each<A: HasLen + ?Sized>(
    ca: &A,
    f: impl Fn(&A, usize) -> Option<Literal>,
) -> Vec<Option<Literal>> {
    (0..ca.len_of()).map(|i| f(ca, i)).collect()
}

/// Length of a chunked array, whatever its type.
trait HasLen {
    fn len_of(&self) -> usize;
}

impl<T: PolarsDataType> HasLen for ChunkedArray<T> {
    fn len_of(&self) -> usize {
        self.len()
    }
}

/// A polars column as literals of its column's type; `None` for a dtype
/// lakeaudit does not compare.
fn literals(s: &Series) -> Option<Vec<Option<Literal>>> {
    let n = s.len();
    let out: Vec<Option<Literal>> = match s.dtype() {
        DataType::Boolean => each(s.bool().ok()?, |ca, i| ca.get(i).map(Literal::Bool)),
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32 => {
            let c = s.cast(&DataType::Int64).ok()?;
            each(c.i64().ok()?, |ca, i| ca.get(i).map(Literal::Int))
        }
        DataType::Float32 | DataType::Float64 => {
            let c = s.cast(&DataType::Float64).ok()?;
            each(c.f64().ok()?, |ca, i| {
                ca.get(i).filter(|f| !f.is_nan()).map(Literal::Float)
            })
        }
        DataType::String => each(s.str().ok()?, |ca, i| {
            ca.get(i).map(|v| Literal::String(v.to_string()))
        }),
        DataType::Date => {
            let p = s.to_physical_repr();
            each(p.i32().ok()?, |ca, i| ca.get(i).map(Literal::Date))
        }
        DataType::Datetime(unit, _) => {
            let div = match unit {
                TimeUnit::Nanoseconds => 1000,
                TimeUnit::Microseconds => 1,
                TimeUnit::Milliseconds => -1000,
            };
            let p = s.to_physical_repr();
            each(p.i64().ok()?, |ca, i| {
                ca.get(i).map(|v| Literal::Timestamp {
                    micros: if div > 0 {
                        v / div
                    } else {
                        v.saturating_mul(-div)
                    },
                    utc: true,
                })
            })
        }
        DataType::Decimal(_, scale) => {
            let scale = *scale as u32;
            let p = s.to_physical_repr();
            each(p.i128().ok()?, |ca, i| {
                ca.get(i)
                    .map(|unscaled| Literal::Decimal { unscaled, scale })
            })
        }
        _ => return None,
    };
    (out.len() == n).then_some(out)
}

/// Read `columns` (the table's names) of `t`'s data files: every file, or
/// past `max_rows` rows an evenly spread subset of whole files holding
/// about `max_rows`. A file that cannot be read is named in
/// [`Sample::warnings`] (or, refused as malformed, [`Sample::errors`]) and
/// left out; a column a file lacks is null there (it never skips).
/// `allow_outside`: read files the metadata names outside the table
/// (`--allow-outside-table`).
pub fn sample(t: &TableState, columns: &[String], max_rows: u64, allow_outside: bool) -> Sample {
    let cols: Vec<(String, ColumnType)> = columns
        .iter()
        .filter_map(|c| t.columns.iter().find(|(n, _)| n == c).cloned())
        .collect();
    let rows_total: u64 = t.files.iter().map(|f| f.rows.unwrap_or(0)).sum();
    let n = t.files.len();
    // Bresenham: file i is read when the running share crosses an integer.
    let share = if rows_total <= max_rows || rows_total == 0 {
        1.0
    } else {
        max_rows as f64 / rows_total as f64
    };
    let mut s = Sample {
        values: vec![Vec::new(); cols.len()],
        columns: cols,
        files_total: n,
        rows_total,
        ..Sample::default()
    };
    let names: Vec<String> = s.columns.iter().map(|(c, _)| c.clone()).collect();
    for (i, f) in t.files.iter().enumerate() {
        if ((i + 1) as f64 * share).floor() <= (i as f64 * share).floor() {
            continue;
        }
        match file_literals(t, f, &names, &mut s, allow_outside) {
            Ok(()) => {}
            Err(e) if e.refused => s.errors.push(e.message),
            Err(e) => s.warnings.push(e.message),
        }
    }
    s
}

/// Appends the `names` columns of data file `f` of `t` to `s.values`
/// (one vector per name, in order), counting the file and its rows; a
/// column the file lacks is null. `Err` names the file and why it could not
/// be read.
pub(crate) fn file_literals(
    t: &TableState,
    f: &DataFile,
    names: &[String],
    s: &mut Sample,
    allow_outside: bool,
) -> Result<(), FileError> {
    let path = local_file(t, f, allow_outside)
        .map_err(|e| FileError::unreadable(format!("{}: {e}", t.location.display())))?;
    // An Iceberg table's string and binary columns are read too, for the
    // lengths its writer rolls files by.
    let iceberg = t.format == Some(tables::Format::Iceberg);
    let mut small: Vec<PlSmallStr> = names.iter().map(|c| c.as_str().into()).collect();
    if iceberg {
        for (c, ty) in &t.columns {
            if matches!(ty, ColumnType::String | ColumnType::Binary)
                && !small.iter().any(|n| n.as_str() == c)
            {
                small.push(c.as_str().into());
            }
        }
    }
    let (df, meta) =
        read_file(&t.location, &path, &small, allow_outside).map_err(|e| FileError {
            message: format!("{}: {}", path.display(), e.message),
            refused: e.refused,
        })?;
    s.footer_rows += meta.num_rows as u64;
    s.footer_uncompressed += meta
        .row_groups
        .iter()
        .map(|g| g.total_byte_size() as u64)
        .sum::<u64>();
    if iceberg {
        for (name, size) in tables::parquet_guard::plain_sizes(&meta) {
            let bytes = match size {
                tables::parquet_guard::PlainSize::Bytes(b) => b,
                tables::parquet_guard::PlainSize::ByteArray { values } => df
                    .column(&name)
                    .ok()
                    .map(|c| array_plain_bytes(c.as_materialized_series()))
                    // Not read (not a table column): 4 bytes a value.
                    .unwrap_or(values.saturating_mul(4)),
            };
            match s.plain.iter_mut().find(|(n, _)| *n == name) {
                Some((_, b)) => *b = b.saturating_add(bytes),
                None => s.plain.push((name, bytes)),
            }
        }
    }
    let rows = df.height();
    for (k, name) in names.iter().enumerate() {
        let vals = df
            .column(name)
            .ok()
            .and_then(|c| literals(c.as_materialized_series()))
            .unwrap_or_else(|| vec![None; rows]);
        s.values[k].extend(vals);
    }
    s.partitions.extend(std::iter::repeat_n(f.partition, rows));
    s.files_read += 1;
    s.rows += rows;
    s.file_ends.push(s.rows);
    Ok(())
}

/// A string or binary column's PLAIN bytes: each non-null value's length
/// plus its 4-byte length prefix.
fn array_plain_bytes(s: &Series) -> u64 {
    let sum = |lens: &mut dyn Iterator<Item = usize>| lens.map(|n| n as u64 + 4).sum::<u64>();
    if let Ok(a) = s.str() {
        sum(&mut a
            .downcast_iter()
            .flat_map(|c| c.iter().flatten().map(str::len)))
    } else if let Ok(a) = s.binary() {
        sum(&mut a
            .downcast_iter()
            .flat_map(|c| c.iter().flatten().map(<[u8]>::len)))
    } else {
        0
    }
}

/// The `names` columns of one Parquet data file of the table in
/// `table_dir` (those it has); the file is opened as every file the
/// metadata names ([`tables::open_data_file`]: inside the table, regular)
/// and checked page by page ([`tables::parquet_guard::check_data_file`])
/// before polars decodes it.
fn read_file(
    table_dir: &Path,
    path: &Path,
    names: &[PlSmallStr],
    allow_outside: bool,
) -> Result<
    (
        DataFrame,
        std::sync::Arc<tables::parquet_guard::FileMetadata>,
    ),
    FileError,
> {
    // Fault injection for the tests (debug builds only): a data file
    // whose path contains LAKEAUDIT_TEST_PANIC_ON panics as it is read,
    // as a dependency's bug on some file would.
    #[cfg(debug_assertions)]
    if std::env::var("LAKEAUDIT_TEST_PANIC_ON")
        .is_ok_and(|p| !p.is_empty() && path.to_string_lossy().contains(p.as_str()))
    {
        panic!("injected panic for {}", path.display());
    }
    let (file, len) = tables::open_data_file(table_dir, path, allow_outside)
        .map_err(|e| FileError::unreadable(e.to_string()))?;
    let wanted: Vec<&str> = names.iter().map(PlSmallStr::as_str).collect();
    let max = tables::parquet_guard::MAX_DECODED;
    tables::parquet_guard::read_columns_and_footer(file, len, &wanted, max).map_err(|e| match e {
        tables::parquet_guard::ReadError::Refused(reason) => FileError {
            message: reason.to_string(),
            refused: true,
        },
        tables::parquet_guard::ReadError::Failed(message) => FileError::unreadable(message),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data file of the metadata at path `p`.
    fn data_file(p: &str) -> DataFile {
        DataFile {
            partition: 0,
            size: 1,
            rows: None,
            seq: 0,
            clustered: false,
            path: Some(p.into()),
            deletes: None,
            stats: None,
        }
    }

    #[test]
    fn paths_stay_inside_the_table() {
        let mut t = TableState {
            location: PathBuf::from("/w/t"),
            ..TableState::default()
        };
        let f = data_file;
        assert_eq!(
            local_file(&t, &f("d%3D1/part-0.parquet"), false).unwrap(),
            PathBuf::from("/w/t/d=1/part-0.parquet")
        );
        assert!(local_file(&t, &f("../secret"), false).is_err());
        assert!(local_file(&t, &f("/etc/passwd"), false).is_err());
        t.declared_location = Some("s3://b/t".into());
        assert_eq!(
            local_file(&t, &f("s3://b/t/data/x.parquet"), false).unwrap(),
            PathBuf::from("/w/t/data/x.parquet")
        );
        assert!(local_file(&t, &f("s3://b/other/x.parquet"), false).is_err());
    }

    /// A table on a store is named by its URL in the error, not as a
    /// local `file:` path (issue 29: `file:s3://…`).
    #[test]
    fn a_store_table_is_named_by_its_url() {
        let t = TableState {
            location: PathBuf::from("s3://logs/wh/t"),
            ..TableState::default()
        };
        let f = data_file;
        assert_eq!(
            local_file(&t, &f("s3://logs/wh/t/data/x.parquet"), false).unwrap(),
            PathBuf::from("s3://logs/wh/t/data/x.parquet")
        );
        let e = local_file(&t, &f("s3://other/t/x.parquet"), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "s3://other/t/x.parquet is outside the table's location s3://logs/wh/t"
        );
    }

    #[test]
    fn a_table_read_in_place_by_a_relative_path_finds_its_absolute_files() {
        // An Iceberg table in its own directory: the metadata's absolute
        // paths are under the directory's absolute form.
        let dir = std::env::temp_dir().join(format!("lakeaudit-sim-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let cwd = std::env::current_dir().unwrap();
        let rel = pathdiff(&dir, &cwd);
        let t = TableState {
            location: rel.clone(),
            ..TableState::default()
        };
        let abs = format!(
            "file://{}/data/x.parquet",
            dir.canonicalize().unwrap().display()
        );
        let f = data_file(&abs);
        assert_eq!(
            local_file(&t, &f, false).unwrap(),
            rel.join("data/x.parquet")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `to` relative to `from` (both absolute), through `..` as needed.
    fn pathdiff(to: &Path, from: &Path) -> PathBuf {
        let (to, from) = (to.canonicalize().unwrap(), from.canonicalize().unwrap());
        let common = to
            .components()
            .zip(from.components())
            .take_while(|(a, b)| a == b)
            .count();
        let mut out = PathBuf::new();
        for _ in from.components().skip(common) {
            out.push("..");
        }
        for c in to.components().skip(common) {
            out.push(c);
        }
        out
    }
}
