//! `--records`: the reduce's input, the per-execution records a Spark map job
//! (`spark/lakeaudit_map.py`) wrote, or any `queries --format parquet` file.
//!
//! A job's output directory holds three Parquet tables:
//!
//! - `records/` (partitioned by `date=`): the columns of `queries --format
//!   parquet`, one row per SQL execution;
//! - `apps/`: one row per log the map read, with the application summary
//!   (`summary`, the JSON `queries --apps` writes);
//! - `errors/`: `log, reason, level` for logs that failed (or warned) on the
//!   map.
//!
//! The files are read one at a time with only the columns needed, each row
//! turned back into the record the single-machine run builds, and the logs
//! merged by the same rule (`parsers::events::merge_apps`: one copy of an
//! application read twice), so every later stage sees the same input.

use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::ingest::Ingested;
use parsers::events::{merge_apps, AppResult, AppSummary};
use parsers::record::QueryRecord;
use polars::prelude::{Column, DataFrame};
use polars_io::prelude::ParquetReader;
use polars_io::SerReader;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A records column's type, as Parquet stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordType {
    /// UTF-8 text (lists and objects as JSON text).
    Text,
    /// A 64-bit integer.
    Long,
    /// A boolean.
    Bool,
}

/// The records table's columns, in order: what `queries --format parquet`
/// writes and the Spark map writes (`spark/lakeaudit_map.py`'s `RECORDS`,
/// which adds its `date` partition column), each with its type and whether
/// it is derived from the others (`tables`, `join_count`,
/// `relationship_count`: written, never read back). One definition for
/// the writers and this reader; the tests hold both writers to it.
pub const RECORD_SCHEMA: &[(&str, RecordType, bool)] = &[
    ("app_id", RecordType::Text, false),
    ("execution_id", RecordType::Long, false),
    ("root_execution_id", RecordType::Long, false),
    ("app_name", RecordType::Text, false),
    ("spark_version", RecordType::Text, false),
    ("start_ms", RecordType::Long, false),
    ("end_ms", RecordType::Long, false),
    ("duration_ms", RecordType::Long, false),
    ("executor_run_ms", RecordType::Long, false),
    ("executor_cpu_ms", RecordType::Long, false),
    ("plan_source", RecordType::Text, false),
    ("adaptive_final", RecordType::Bool, false),
    ("root_node", RecordType::Text, false),
    ("tables", RecordType::Text, true),
    ("join_count", RecordType::Long, true),
    ("relationship_count", RecordType::Long, true),
    ("error", RecordType::Text, false),
    ("incomplete", RecordType::Text, false),
    ("description", RecordType::Text, false),
    ("log", RecordType::Text, false),
    ("scans", RecordType::Text, false),
    ("joins", RecordType::Text, false),
    ("relationships", RecordType::Text, false),
    ("is_command", RecordType::Bool, false),
    ("plan_error", RecordType::Text, false),
    ("result_of", RecordType::Long, false),
];

/// The columns the records are rebuilt from: [`RECORD_SCHEMA`] without the
/// derived ones.
fn record_columns() -> Vec<&'static str> {
    RECORD_SCHEMA
        .iter()
        .filter(|(_, _, derived)| !derived)
        .map(|(n, _, _)| *n)
        .collect()
}

/// Read the records under `path` (a job's output directory, a directory of
/// records Parquet files, or one Parquet file).
pub fn load(path: &Path) -> Result<Ingested<Exec>> {
    let input = |reason| Error::RecordsInput {
        path: path.to_path_buf(),
        reason,
    };
    let text = path.to_string_lossy();
    let (files, apps, errors_files) = if stores::is_remote(&text) {
        remote_files(&text)?
    } else {
        if !path.exists() {
            return Err(input("no such file or directory"));
        }
        let (records_dir, apps_dir, errors_dir) = if path.join("records").is_dir() {
            (
                path.join("records"),
                Some(path.join("apps")),
                Some(path.join("errors")),
            )
        } else {
            (path.to_path_buf(), None, None)
        };
        let local = |d: Option<PathBuf>| -> Result<Vec<PathBuf>> {
            match d.filter(|d| d.is_dir()) {
                Some(d) => parquet_files(&d),
                None => Ok(Vec::new()),
            }
        };
        (
            parquet_files(&records_dir)?,
            local(apps_dir)?,
            local(errors_dir)?,
        )
    };
    if files.is_empty() {
        return Err(input("no Parquet files of records found"));
    }
    // Records grouped by the log they came from: the unit the map read.
    let mut by_log: BTreeMap<String, Vec<Exec>> = BTreeMap::new();
    for f in &files {
        for e in read_records(f)? {
            by_log.entry(e.record.log.clone()).or_default().push(e);
        }
    }
    let mut summaries: BTreeMap<String, AppSummary> = BTreeMap::new();
    for f in &apps {
        for s in read_apps(f)? {
            summaries.insert(s.log.clone(), s);
        }
    }
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for f in &errors_files {
        for (log, reason, level) in read_errors(f)? {
            let line = if reason.starts_with(&log) {
                reason
            } else {
                format!("{log}: {reason}")
            };
            if level == "warning" {
                warnings.push(line);
            } else {
                errors.push(line);
            }
        }
    }
    // Logs that gave records, plus logs that gave none but were read.
    for log in summaries.keys() {
        by_log.entry(log.clone()).or_default();
    }
    let results: Vec<AppResult<Exec>> = by_log
        .into_iter()
        .map(|(log, mut records)| {
            records.sort_by_key(|e| e.record.execution_id);
            let summary = summaries.remove(&log).unwrap_or_else(|| {
                // A plain `queries` Parquet file carries no summaries: what
                // the records say.
                let first = records.first().map(|e| &e.record);
                AppSummary {
                    app_id: first.map(|r| r.app_id.clone()).unwrap_or_default(),
                    app_name: first.map(|r| r.app_name.clone()).unwrap_or_default(),
                    spark_version: first.and_then(|r| r.spark_version.clone()),
                    log: log.clone(),
                    ..AppSummary::default()
                }
            });
            AppResult {
                summary,
                records,
                warnings: Vec::new(),
                errors: Vec::new(),
            }
        })
        .collect();
    let merged = merge_apps(results);
    warnings.extend(merged.warnings);
    errors.sort();
    warnings.sort();
    Ok(Ingested {
        apps: merged.apps,
        records: merged.records,
        errors,
        warnings,
        locations: Default::default(),
    })
}

/// Largest records object read from a store (it is read whole: polars
/// reads a Parquet file from memory).
const MAX_REMOTE_OBJECT: u64 = 1 << 30;

/// The records, apps and errors Parquet objects under a store URL: a job's
/// output prefix (`records/`, `apps/`, `errors/`), a prefix of records
/// files, or one records object; in key order, names starting with `_` or
/// `.` skipped.
type Files = (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>);

fn remote_files(url: &str) -> Result<Files> {
    let failed = |e: stores::Error| Error::Store(Box::new(e));
    let listed = match stores::locate(url).map_err(failed)? {
        stores::Found::Object { .. } => return Ok((vec![PathBuf::from(url)], vec![], vec![])),
        stores::Found::Prefix(listed) => listed,
    };
    let hidden = |rel: &str| {
        rel.split('/')
            .any(|c| c.starts_with('_') || c.starts_with('.'))
    };
    let parquet: Vec<&stores::Listed> = listed
        .iter()
        .filter(|l| l.rel.ends_with(".parquet") && !hidden(&l.rel))
        .collect();
    let under = |dir: &str| -> Vec<PathBuf> {
        parquet
            .iter()
            .filter(|l| l.rel.strip_prefix(dir).is_some_and(|r| r.starts_with('/')))
            .map(|l| PathBuf::from(&l.url))
            .collect()
    };
    let records = under("records");
    if records.is_empty() {
        let all = parquet.iter().map(|l| PathBuf::from(&l.url)).collect();
        return Ok((all, vec![], vec![]));
    }
    Ok((records, under("apps"), under("errors")))
}

/// Parquet files under `path` (or `path` itself), in path order; names
/// starting with `_` or `.` (Spark's `_SUCCESS`, `.crc` files) are skipped.
fn parquet_files(path: &Path) -> Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let io = |source| Error::Io {
            path: dir.clone(),
            source,
        };
        for entry in std::fs::read_dir(&dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('_') || name.starts_with('.') {
                continue;
            }
            let p = entry.path();
            if entry.file_type().map_err(io)?.is_dir() {
                stack.push(p);
            } else if name.ends_with(".parquet") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Read `columns` of a records file. Only a regular file is opened, and its
/// footer is checked first (`tables::parquet_footer`): polars aborts or
/// panics on column chunks a lying footer places past the file's end.
fn read_columns(path: &Path, columns: &[&str]) -> Result<DataFrame> {
    let text = path.to_string_lossy();
    if stores::is_remote(&text) {
        let bytes =
            stores::read_capped(&text, MAX_REMOTE_OBJECT).map_err(|e| Error::Store(Box::new(e)))?;
        let len = bytes.len() as u64;
        return read_parquet(std::io::Cursor::new(bytes), len, path, columns);
    }
    let (file, len) =
        tables::scope::open_regular(path, path, u64::MAX).map_err(|e| Error::Open(Box::new(e)))?;
    read_parquet(file, len, path, columns)
}

/// [`read_columns`] of an open file or of an object's bytes.
fn read_parquet<R: polars_io::mmap::MmapBytesReader>(
    mut file: R,
    len: u64,
    path: &Path,
    columns: &[&str],
) -> Result<DataFrame> {
    let not_records =
        |why: &dyn std::fmt::Display| bad(path, format!("not a records Parquet file: {why}"));
    tables::parquet_footer::read_checked(&mut file, len).map_err(|e| not_records(&e))?;
    // polars' page decoders panic on malformed pages: caught and named.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ParquetReader::new(file)
            .with_columns(Some(columns.iter().map(|c| c.to_string()).collect()))
            .finish()
    }))
    .map_err(|_| not_records(&"malformed page data (the decoder panicked)"))?
    .map_err(|e| not_records(&e))
}

/// A records file (or a row of one) that is not what the reader expects.
fn bad(path: &Path, reason: String) -> Error {
    Error::Records {
        path: path.to_path_buf(),
        reason,
    }
}

/// Typed access to one column of a file, naming the file in errors.
struct Cols<'a> {
    df: &'a DataFrame,
    path: &'a Path,
}

impl<'a> Cols<'a> {
    fn col(&self, name: &str) -> Result<&'a Column> {
        self.df
            .column(name)
            .map_err(|e| bad(self.path, format!("no column `{name}`: {e}")))
    }

    fn typed<T>(
        &self,
        name: &str,
        what: &str,
        cast: impl FnOnce(&'a Column) -> polars::prelude::PolarsResult<T>,
    ) -> Result<T> {
        cast(self.col(name)?).map_err(|e| bad(self.path, format!("column `{name}` is {what}: {e}")))
    }

    fn str(&self, name: &str) -> Result<Vec<Option<&'a str>>> {
        let c = self.typed(name, "not text", |c| c.str())?;
        Ok((0..c.len()).map(|i| c.get(i)).collect())
    }

    fn int(&self, name: &str) -> Result<Vec<Option<i64>>> {
        let c = self.typed(name, "not a 64-bit integer", |c| c.i64())?;
        Ok((0..c.len()).map(|i| c.get(i)).collect())
    }

    fn bool(&self, name: &str) -> Result<Vec<Option<bool>>> {
        let c = self.typed(name, "not a boolean", |c| c.bool())?;
        Ok((0..c.len()).map(|i| c.get(i)).collect())
    }
}

fn read_records(path: &Path) -> Result<Vec<Exec>> {
    let df = read_columns(path, &record_columns())?;
    let c = Cols { df: &df, path };
    let app_id = c.str("app_id")?;
    let execution_id = c.int("execution_id")?;
    let root_execution_id = c.int("root_execution_id")?;
    let app_name = c.str("app_name")?;
    let spark_version = c.str("spark_version")?;
    let start_ms = c.int("start_ms")?;
    let end_ms = c.int("end_ms")?;
    let duration_ms = c.int("duration_ms")?;
    let run_ms = c.int("executor_run_ms")?;
    let cpu_ms = c.int("executor_cpu_ms")?;
    let plan_source = c.str("plan_source")?;
    let adaptive_final = c.bool("adaptive_final")?;
    let root_node = c.str("root_node")?;
    let error = c.str("error")?;
    let incomplete = c.str("incomplete")?;
    let description = c.str("description")?;
    let log = c.str("log")?;
    let scans = c.str("scans")?;
    let joins = c.str("joins")?;
    let relationships = c.str("relationships")?;
    let is_command = c.bool("is_command")?;
    let plan_error = c.str("plan_error")?;
    let result_of = c.int("result_of")?;
    let owned = |v: Option<&str>| v.map(str::to_string);
    let mut out = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let row = |reason: String| bad(path, format!("row {}: {reason}", i + 1));
        let null = |name: &str| row(format!("`{name}` is null"));
        let json = |name: &str, v: Option<&str>| -> Result<String> {
            v.map(str::to_string).ok_or_else(|| null(name))
        };
        let id = execution_id[i]
            .and_then(|x| u64::try_from(x).ok())
            .ok_or_else(|| row("`execution_id` is null or negative".into()))?;
        let de = |name: &str, e: serde_json::Error| row(format!("`{name}`: {e}"));
        let record = QueryRecord {
            app_id: owned(app_id[i]).ok_or_else(|| null("app_id"))?,
            app_name: owned(app_name[i]).unwrap_or_default(),
            spark_version: owned(spark_version[i]),
            log: owned(log[i]).unwrap_or_default(),
            execution_id: id,
            root_execution_id: root_execution_id[i].and_then(|x| u64::try_from(x).ok()),
            start_ms: start_ms[i],
            end_ms: end_ms[i],
            duration_ms: duration_ms[i],
            error: owned(error[i]),
            description: owned(description[i]),
            plan_source: match plan_source[i] {
                None => None,
                Some(p) => Some(plan::PlanSource::parse(p).ok_or_else(|| {
                    row(format!(
                        "`plan_source` {p:?} is not formatted, extended, spark_plan_info or tree_json"
                    ))
                })?),
            },
            adaptive_final: adaptive_final[i].unwrap_or(false),
            executor_run_ms: run_ms[i].unwrap_or(0),
            executor_cpu_ms: cpu_ms[i].unwrap_or(0),
            root_node: owned(root_node[i]),
            is_command: is_command[i].unwrap_or(false),
            result_of: result_of[i].and_then(|x| u64::try_from(x).ok()),
            scans: serde_json::from_str(&json("scans", scans[i])?).map_err(|e| de("scans", e))?,
            joins: serde_json::from_str(&json("joins", joins[i])?).map_err(|e| de("joins", e))?,
            plan_error: owned(plan_error[i]),
            incomplete: owned(incomplete[i]),
        };
        let relationships = serde_json::from_str(&json("relationships", relationships[i])?)
            .map_err(|e| de("relationships", e))?;
        out.push(Exec {
            record,
            relationships,
        });
    }
    Ok(out)
}

fn read_apps(path: &Path) -> Result<Vec<AppSummary>> {
    let df = read_columns(path, &["summary"])?;
    let c = Cols { df: &df, path };
    c.str("summary")?
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let row = |reason: String| bad(path, format!("row {}: `summary`{reason}", i + 1));
            let s = s.ok_or_else(|| row(" is null".into()))?;
            serde_json::from_str(s).map_err(|e| row(format!(": {e}")))
        })
        .collect()
}

fn read_errors(path: &Path) -> Result<Vec<(String, String, String)>> {
    let df = read_columns(path, &["log", "reason", "level"])?;
    let c = Cols { df: &df, path };
    let (log, reason, level) = (c.str("log")?, c.str("reason")?, c.str("level")?);
    Ok((0..df.height())
        .map(|i| {
            (
                log[i].unwrap_or_default().to_string(),
                reason[i].unwrap_or_default().to_string(),
                level[i].unwrap_or("error").to_string(),
            )
        })
        .collect())
}
