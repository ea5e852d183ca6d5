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
//! The files are read one at a time with only the columns needed, and the
//! logs merged by the same rule (`parsers::events::merge_apps`: one copy of
//! an application read twice), so every later stage sees the same input.
//! The records are not held in memory ([`open`]): their rows are copied,
//! unparsed, into runs sorted by (app id, execution id) in the temporary
//! directory, and merged back and turned into the records the
//! single-machine run builds one batch at a time, for each pass a stage
//! makes ([`Sorted::each`]).

use crate::apps::AppList;
use crate::bounds::{Figures, Tally, Verdict};
use crate::error::{Error, Result};
use crate::exec::{Census, Exec, Opened};
use crate::identity::Locations;
use crate::time::TimeRange;
use parsers::events::{kept_copies, AppCopy, AppSummary};
use parsers::record::QueryRecord;
use polars::prelude::{Column, DataFrame};
use std::collections::{BTreeMap, BTreeSet};
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
/// records Parquet files, or one Parquet file) into a sorted workload
/// ([`Sorted`]): the records of the applications kept, in (app id,
/// execution id) order, read back one at a time. `range` is the
/// `--since`/`--until` selection the [`Census`] counts.
pub fn open(path: &Path, range: &TimeRange) -> Result<Opened<Sorted>> {
    open_runs(path, range, RUN_BYTES)
}

/// [`open`], writing a run each `run_bytes` of records.
fn open_runs(path: &Path, range: &TimeRange, run_bytes: usize) -> Result<Opened<Sorted>> {
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
    // Every record once, into sorted runs; per log what the merge of
    // applications and the census need.
    let mut runs = Runs::new(run_bytes)?;
    let mut logs: BTreeMap<String, LogSeen> = BTreeMap::new();
    let mut scans = ScansSeen::new();
    let mut tally = Tally::default();
    for (i, f) in files.iter().enumerate() {
        read_into(f, i as u32, &mut runs, &mut logs, &mut scans, &mut tally)?;
    }
    let runs = runs.finish()?;
    // The census, over the records in order, each counted once.
    census_pass(&runs, &files, &mut logs, range, &mut tally)?;
    let mut merged = merge_logs(&logs, &apps, &errors_files)?;
    drop(logs);
    let (errors, warnings) = tally.lines();
    merged.errors.extend(errors);
    merged.warnings.extend(warnings);
    let mut locations = Locations::default();
    let mut scans: Vec<(ScanKey, (String, Option<String>))> =
        scans.into_iter().map(|(k, v)| (v, k)).collect();
    scans.sort();
    for (_, (table, location)) in scans {
        locations.observe(&table, location.as_deref());
    }
    let sorted = Sorted {
        runs,
        files,
        kept: merged.kept,
        locations: locations.clone(),
    };
    Ok(Opened {
        apps: merged.apps,
        errors: merged.errors,
        warnings: merged.warnings,
        locations,
        census: merged.census,
        execs: sorted,
    })
}

/// The applications kept of the logs read (one copy of an application
/// read twice, by the rule of a run on the logs: `merge_apps`), with the
/// map's errors and warnings and the kept logs' census.
pub(crate) struct MergedLogs {
    pub apps: AppList,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub census: Census,
    pub kept: BTreeSet<String>,
}

/// Merge the logs seen in the records (`logs`) with the summaries of
/// `apps` files and the rows of `errors_files`. The copies are chosen on
/// what the choice looks at (`kept_copies`); only the kept copies'
/// summaries are unpacked, into the compact list.
pub(crate) fn merge_logs(
    logs: &BTreeMap<String, LogSeen>,
    apps: &[PathBuf],
    errors_files: &[PathBuf],
) -> Result<MergedLogs> {
    let mut summaries: BTreeMap<String, Packed> = BTreeMap::new();
    for f in apps {
        for s in read_apps(f)? {
            summaries.insert(s.log.clone(), Packed::of(&s)?);
        }
    }
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for f in errors_files {
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
    let none = LogSeen::default();
    let mut all: BTreeMap<&str, &LogSeen> = logs.iter().map(|(l, s)| (l.as_str(), s)).collect();
    for log in summaries.keys() {
        all.entry(log.as_str()).or_insert(&none);
    }
    let all: Vec<(&str, &LogSeen)> = all.into_iter().collect();
    let copies: Vec<AppCopy<'_>> = all
        .iter()
        .map(|&(log, seen)| {
            let (app_id, bytes, lines) = match summaries.get(log) {
                Some(p) => (p.app_id.as_str(), p.bytes, p.lines),
                None => (
                    seen.first.as_ref().map_or("", |f| f.1.app_id.as_str()),
                    0,
                    0,
                ),
            };
            AppCopy {
                app_id,
                log,
                records: seen.census.executions,
                bytes,
                lines,
            }
        })
        .collect();
    let (chosen, skipped) = kept_copies(&copies);
    drop(copies);
    warnings.extend(skipped);
    errors.sort();
    warnings.sort();
    // The kept logs give the census.
    let mut census = Census::default();
    let mut kept = BTreeSet::new();
    let mut app_list = AppList::new();
    for i in chosen {
        let (log, seen) = all[i];
        let summary = match summaries.get(log) {
            Some(p) => p.unpack()?,
            None => {
                // A plain `queries` Parquet file carries no summaries: what
                // the records say.
                let first = seen.first.as_ref().map(|f| &f.1);
                AppSummary {
                    app_id: first.map(|r| r.app_id.clone()).unwrap_or_default(),
                    app_name: first.map(|r| r.app_name.clone()).unwrap_or_default(),
                    spark_version: first.and_then(|r| r.spark_version.clone()),
                    log: log.to_string(),
                    ..AppSummary::default()
                }
            }
        };
        app_list.push(&summary);
        kept.insert(log.to_string());
        census.merge(&seen.census);
    }
    Ok(MergedLogs {
        apps: app_list,
        errors,
        warnings,
        census,
        kept,
    })
}

/// An application summary read from `apps/`, packed until the choice
/// between copies of an application is made: what the choice looks at,
/// and the summary as compressed JSON.
struct Packed {
    app_id: String,
    bytes: u64,
    lines: u64,
    json: Box<[u8]>,
}

impl Packed {
    fn of(s: &AppSummary) -> Result<Packed> {
        let json = serde_json::to_vec(s)?;
        let json = zstd::bulk::compress(&json, 1).map_err(|source| Error::Spool {
            what: "cannot pack an application summary",
            source,
        })?;
        Ok(Packed {
            app_id: s.app_id.clone(),
            bytes: s.bytes,
            lines: s.lines,
            json: json.into_boxed_slice(),
        })
    }

    fn unpack(&self) -> Result<AppSummary> {
        let json = zstd::stream::decode_all(&self.json[..]).map_err(|source| Error::Spool {
            what: "cannot unpack an application summary",
            source,
        })?;
        Ok(serde_json::from_slice(&json)?)
    }
}

/// Records turned back into executions at once (in parallel).
const PARSE_BATCH: usize = 512;

/// Raw bytes of records buffered before a run is sorted and written.
const RUN_BYTES: usize = 96 << 20;

/// What the first pass keeps of one log's records.
#[derive(Default)]
pub(crate) struct LogSeen {
    pub(crate) census: Census,
    /// Its first record (least execution id, then input order) and the
    /// fields a summary takes from it.
    pub(crate) first: Option<((u64, u64), FirstRecord)>,
}

/// Where a scan comes in the records' order: app id, execution id, input
/// order, scan index.
type ScanKey = (String, u64, u64, usize);

/// Each (table, single location or none) the scans name, at its first
/// place in the records' order: the locations every table identity is
/// observed from.
/// Kept over every log read, not only the applications kept (a copy of
/// an application read twice scans the same tables; keeping them per log
/// would cost memory in the number of logs).
type ScansSeen = BTreeMap<(String, Option<String>), ScanKey>;

/// The fields of a log's first record a summary is made of.
pub(crate) struct FirstRecord {
    pub(crate) app_id: String,
    pub(crate) app_name: String,
    pub(crate) spark_version: Option<String>,
}

/// One scan's table and location, all the first pass reads of the scans.
#[derive(serde::Deserialize)]
struct ScanAt<'a> {
    #[serde(borrow)]
    table: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    location: Option<std::borrow::Cow<'a, str>>,
    /// Where the log's catalog settings put a table with no location.
    #[serde(borrow, default)]
    catalog_location: Option<std::borrow::Cow<'a, str>>,
}

/// First pass over one records file: every row into the runs, and what
/// its log's merge, census and identities need.
fn read_into(
    path: &Path,
    file: u32,
    runs: &mut Runs,
    logs: &mut BTreeMap<String, LogSeen>,
    seen_scans: &mut ScansSeen,
    tally: &mut Tally,
) -> Result<()> {
    let df = read_columns(path, &record_columns())?;
    let c = Cols { df: &df, path };
    let cols = RawColumns::of(&c)?;
    let mut buf = Vec::new();
    let name = path.display().to_string();
    for i in 0..df.height() {
        let mut raw = cols.row(i);
        let row = |reason: String| bad(path, format!("row {}: {reason}", i + 1));
        let app_id = raw
            .text(APP_ID)
            .ok_or_else(|| row("`app_id` is null".into()))?;
        let id = raw
            .long(EXECUTION_ID)
            .and_then(|x| u64::try_from(x).ok())
            .ok_or_else(|| row("`execution_id` is null or negative".into()))?;
        // A time outside the plausible range leaves the record out (not
        // counted, in no window); figures that cannot be true are read as
        // none or 0 (`crate::bounds`).
        let mut figures = Figures {
            start_ms: raw.long(START_MS),
            end_ms: raw.long(END_MS),
            duration_ms: raw.long(DURATION_MS),
            run_ms: raw.long(RUN_MS).unwrap_or(0),
            cpu_ms: raw.long(CPU_MS).unwrap_or(0),
        };
        let verdict = figures.verdict();
        let what = || format!("row {} (execution {id} of {app_id})", i + 1);
        if !tally.verdict(&name, what, &verdict) {
            continue;
        }
        if matches!(&verdict, Verdict::Keep(c) if !c.is_empty()) {
            raw.long[DURATION_MS] = figures.duration_ms;
            for (column, v) in [(RUN_MS, figures.run_ms), (CPU_MS, figures.cpu_ms)] {
                if raw.long[column].is_some() {
                    raw.long[column] = Some(v);
                }
            }
        }
        let seq = (u64::from(file) << 32) | i as u64;
        let log = raw.text(LOG).unwrap_or_default();
        let seen = match logs.get_mut(log) {
            Some(s) => s,
            None => logs.entry(log.to_string()).or_default(),
        };
        if seen.first.as_ref().is_none_or(|(k, _)| (id, seq) < *k) {
            seen.first = Some((
                (id, seq),
                FirstRecord {
                    app_id: app_id.to_string(),
                    app_name: raw.text(APP_NAME).unwrap_or_default().to_string(),
                    spark_version: raw.text(SPARK_VERSION).map(str::to_string),
                },
            ));
        }
        if let Some(scans) = raw.text(SCANS) {
            let scans: Vec<ScanAt> =
                serde_json::from_str(scans).map_err(|e| row(format!("`scans`: {e}")))?;
            for (k, s) in scans.into_iter().enumerate() {
                // Only a single location is observed: any other (a list
                // of partition directories) reads as none, the same to
                // `Locations::observe`, and is one entry, not one per list.
                let location = s
                    .location
                    .or(s.catalog_location)
                    .filter(|l| crate::identity::single_path(l).is_some());
                let key = (s.table.into_owned(), location.map(|l| l.into_owned()));
                let at = (app_id, id, seq, k);
                match seen_scans.get_mut(&key) {
                    Some(first) => {
                        if at < (first.0.as_str(), first.1, first.2, first.3) {
                            *first = (app_id.to_string(), id, seq, k);
                        }
                    }
                    None => {
                        seen_scans.insert(key, (app_id.to_string(), id, seq, k));
                    }
                }
            }
        }
        buf.clear();
        raw.encode(&mut buf);
        runs.push(app_id, id, seq, &buf)?;
    }
    Ok(())
}

/// The records of the applications kept, sorted by (app id, execution
/// id, input order) in runs on disk, given back one at a time
/// ([`Sorted::each`]) as many times as asked, each pass linear in the
/// records and holding one record per run.
pub struct Sorted {
    runs: Vec<Run>,
    files: Vec<PathBuf>,
    kept: BTreeSet<String>,
    locations: Locations,
}

impl Sorted {
    /// Call `f` with every kept record, in order, its path reads of a
    /// catalog table's location named by the catalog name
    /// ([`crate::exec::rename_paths`]).
    pub fn each<E: From<Error>>(&self, mut f: impl FnMut(Exec) -> Result<(), E>) -> Result<(), E> {
        use rayon::prelude::*;
        use std::cmp::Reverse;
        let mut readers = Vec::with_capacity(self.runs.len());
        let mut heap = std::collections::BinaryHeap::new();
        let mut heads = Vec::with_capacity(self.runs.len());
        for r in &self.runs {
            let mut reader = r.reader()?;
            let head = reader.next()?;
            if let Some(h) = &head {
                heap.push(Reverse((h.key(), heads.len())));
            }
            heads.push(head);
            readers.push(reader);
        }
        // Entries are taken from the runs in key order a batch at a time,
        // turned into records in parallel, and given in order; a repeat of
        // a record is left out, as the census left it out.
        let mut batch = Vec::with_capacity(PARSE_BATCH);
        let mut repeats = Repeats::default();
        loop {
            while batch.len() < PARSE_BATCH {
                let Some(Reverse((_, i))) = heap.pop() else {
                    break;
                };
                let next = readers[i].next()?;
                if let Some(h) = &next {
                    heap.push(Reverse((h.key(), i)));
                }
                if let Some(entry) = std::mem::replace(&mut heads[i], next) {
                    if !repeats.repeat(&entry) {
                        batch.push(entry);
                    }
                }
            }
            if batch.is_empty() {
                return Ok(());
            }
            let execs: Vec<Result<Option<Exec>>> = batch.par_iter().map(|e| self.exec(e)).collect();
            batch.clear();
            for e in execs {
                if let Some(e) = e? {
                    f(e)?;
                }
            }
        }
    }

    /// The record of a run entry, `None` when its log is not kept.
    fn exec(&self, entry: &Entry) -> Result<Option<Exec>> {
        let raw = RawRow::decode(&entry.body);
        if !self.kept.contains(raw.text(LOG).unwrap_or_default()) {
            return Ok(None);
        }
        let file = (entry.seq >> 32) as usize;
        let path = self.files.get(file).map_or(Path::new(""), PathBuf::as_path);
        let mut e = raw.exec(path, (entry.seq & 0xffff_ffff) + 1)?;
        crate::exec::rename_paths(&self.locations, &mut e);
        Ok(Some(e))
    }
}
/// Records with the same application, execution id and log as one before
/// them in the runs' order (the first in input order is kept): the runs
/// give such repeats one after the other, but for records of other logs
/// of the same application and execution between them.
#[derive(Default)]
struct Repeats {
    key: Option<(String, u64)>,
    logs: Vec<String>,
}

impl Repeats {
    /// Whether `entry` repeats a record met before.
    fn repeat(&mut self, entry: &Entry) -> bool {
        let log = RawRow::decode(&entry.body).text(LOG).unwrap_or_default();
        if self
            .key
            .as_ref()
            .is_some_and(|(app, exec)| *app == entry.app && *exec == entry.exec)
        {
            if self.logs.iter().any(|l| l == log) {
                return true;
            }
        } else {
            self.key = Some((entry.app.clone(), entry.exec));
            self.logs.clear();
        }
        self.logs.push(log.to_string());
        false
    }
}

/// The census of every log, over the sorted runs: each record counted
/// once (a repeat of a record is counted in `tally`, under its file).
fn census_pass(
    runs: &[Run],
    files: &[PathBuf],
    logs: &mut BTreeMap<String, LogSeen>,
    range: &TimeRange,
    tally: &mut Tally,
) -> Result<()> {
    use std::cmp::Reverse;
    let mut readers = runs.iter().map(Run::reader).collect::<Result<Vec<_>>>()?;
    let mut heap = std::collections::BinaryHeap::new();
    let mut heads = Vec::with_capacity(readers.len());
    for (i, r) in readers.iter_mut().enumerate() {
        let head = r.next()?;
        if let Some(h) = &head {
            heap.push(Reverse((h.key(), i)));
        }
        heads.push(head);
    }
    let mut repeats = Repeats::default();
    while let Some(Reverse((_, i))) = heap.pop() {
        let next = readers[i].next()?;
        if let Some(h) = &next {
            heap.push(Reverse((h.key(), i)));
        }
        let Some(entry) = std::mem::replace(&mut heads[i], next) else {
            continue;
        };
        if repeats.repeat(&entry) {
            let file = files
                .get((entry.seq >> 32) as usize)
                .map_or(String::new(), |p| p.display().to_string());
            tally.duplicate(&file, || {
                format!(
                    "row {} (execution {} of {})",
                    (entry.seq & 0xffff_ffff) + 1,
                    entry.exec,
                    entry.app
                )
            });
            continue;
        }
        let raw = RawRow::decode(&entry.body);
        let log = raw.text(LOG).unwrap_or_default();
        let seen = match logs.get_mut(log) {
            Some(s) => s,
            None => logs.entry(log.to_string()).or_default(),
        };
        seen.census.add(
            raw.long(START_MS),
            raw.flag(IS_COMMAND).unwrap_or(false),
            range,
        );
    }
    Ok(())
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
pub(crate) fn parquet_files(path: &Path) -> Result<Vec<PathBuf>> {
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
pub(crate) fn read_columns(path: &Path, columns: &[&str]) -> Result<DataFrame> {
    read_table(path, columns, "records")
}

/// [`read_columns`] of a file of a `kind` of table (named in errors:
/// `not a records Parquet file`).
pub(crate) fn read_table(path: &Path, columns: &[&str], kind: &str) -> Result<DataFrame> {
    let text = path.to_string_lossy();
    if stores::is_remote(&text) {
        let bytes =
            stores::read_capped(&text, MAX_REMOTE_OBJECT).map_err(|e| Error::Store(Box::new(e)))?;
        let len = bytes.len() as u64;
        return read_parquet(std::io::Cursor::new(bytes), len, path, columns, kind);
    }
    let (file, len) =
        tables::scope::open_regular(path, path, u64::MAX).map_err(|e| Error::Open(Box::new(e)))?;
    read_parquet(file, len, path, columns, kind)
}

/// [`read_columns`] of an open file or of an object's bytes.
fn read_parquet<R: polars_io::mmap::MmapBytesReader>(
    mut file: R,
    len: u64,
    path: &Path,
    columns: &[&str],
    kind: &str,
) -> Result<DataFrame> {
    use tables::parquet_guard::{read_columns, ReadError, MAX_DECODED_RECORDS};
    let not_records =
        |why: &dyn std::fmt::Display| bad(path, format!("not a {kind} Parquet file: {why}"));
    // The footer and every page of the columns read are checked before
    // polars decodes them (tables::parquet_guard); polars' page decoders
    // panic on some malformed pages that pass: caught and named.
    let df = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        read_columns(&mut file, len, columns, MAX_DECODED_RECORDS)
    }))
    .map_err(|_| not_records(&"malformed page data (the decoder panicked)"))?
    .map_err(|e| match e {
        ReadError::Refused(why) => not_records(&why),
        ReadError::Failed(why) => not_records(&why),
    })?;
    // A column the file lacks is an error, as polars' projection made it.
    if let Some(missing) = columns.iter().find(|c| df.column(c).is_err()) {
        return Err(not_records(&format!("no column {missing}")));
    }
    Ok(df)
}

/// A records file (or a row of one) that is not what the reader expects.
pub(crate) fn bad(path: &Path, reason: String) -> Error {
    Error::Records {
        path: path.to_path_buf(),
        reason,
    }
}

/// Typed access to one column of a file, naming the file in errors.
pub(crate) struct Cols<'a> {
    pub(crate) df: &'a DataFrame,
    pub(crate) path: &'a Path,
}

impl<'a> Cols<'a> {
    pub(crate) fn col(&self, name: &str) -> Result<&'a Column> {
        self.df
            .column(name)
            .map_err(|e| bad(self.path, format!("no column `{name}`: {e}")))
    }

    pub(crate) fn typed<T>(
        &self,
        name: &str,
        what: &str,
        cast: impl FnOnce(&'a Column) -> polars::prelude::PolarsResult<T>,
    ) -> Result<T> {
        cast(self.col(name)?).map_err(|e| bad(self.path, format!("column `{name}` is {what}: {e}")))
    }

    pub(crate) fn str(&self, name: &str) -> Result<Vec<Option<&'a str>>> {
        let c = self.typed(name, "not text", |c| c.str())?;
        Ok((0..c.len()).map(|i| c.get(i)).collect())
    }

    pub(crate) fn int(&self, name: &str) -> Result<Vec<Option<i64>>> {
        let c = self.typed(name, "not a 64-bit integer", |c| c.i64())?;
        Ok((0..c.len()).map(|i| c.get(i)).collect())
    }

    pub(crate) fn bool(&self, name: &str) -> Result<Vec<Option<bool>>> {
        let c = self.typed(name, "not a boolean", |c| c.bool())?;
        Ok((0..c.len()).map(|i| c.get(i)).collect())
    }
}

/// The record columns of one file, typed.
struct RawColumns<'a> {
    text: Vec<Vec<Option<&'a str>>>,
    long: Vec<Vec<Option<i64>>>,
    bool: Vec<Vec<Option<bool>>>,
}

impl<'a> RawColumns<'a> {
    fn of(c: &Cols<'a>) -> Result<Self> {
        let mut out = RawColumns {
            text: Vec::new(),
            long: Vec::new(),
            bool: Vec::new(),
        };
        for (name, t, derived) in RECORD_SCHEMA {
            if *derived {
                continue;
            }
            match t {
                RecordType::Text => out.text.push(c.str(name)?),
                RecordType::Long => out.long.push(c.int(name)?),
                RecordType::Bool => out.bool.push(c.bool(name)?),
            }
        }
        Ok(out)
    }

    fn row(&self, i: usize) -> RawRow<'a> {
        RawRow {
            text: self.text.iter().map(|c| c[i]).collect(),
            long: self.long.iter().map(|c| c[i]).collect(),
            bool: self.bool.iter().map(|c| c[i]).collect(),
        }
    }
}

/// One row's values as stored: the text, integer and boolean columns of
/// [`RECORD_SCHEMA`] (without the derived ones), each kind in schema
/// order.
struct RawRow<'a> {
    text: Vec<Option<&'a str>>,
    long: Vec<Option<i64>>,
    bool: Vec<Option<bool>>,
}

/// Index of a non-derived column among the columns of its kind.
const fn at(name: &str) -> usize {
    let want = RECORD_SCHEMA[index_of(name)].1 as u8;
    let mut i = 0;
    let mut n = 0;
    while i < RECORD_SCHEMA.len() {
        let (c, t, derived) = RECORD_SCHEMA[i];
        if const_eq(c, name) {
            return n;
        }
        if !derived && t as u8 == want {
            n += 1;
        }
        i += 1;
    }
    panic!("not a records column")
}

const fn index_of(name: &str) -> usize {
    let mut i = 0;
    while i < RECORD_SCHEMA.len() {
        if const_eq(RECORD_SCHEMA[i].0, name) {
            return i;
        }
        i += 1;
    }
    panic!("not a records column")
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

// Where each column sits in a [`RawRow`].
const APP_ID: usize = at("app_id");
const APP_NAME: usize = at("app_name");
const SPARK_VERSION: usize = at("spark_version");
const LOG: usize = at("log");
const ERROR: usize = at("error");
const DESCRIPTION: usize = at("description");
const PLAN_SOURCE: usize = at("plan_source");
const ROOT_NODE: usize = at("root_node");
const SCANS: usize = at("scans");
const JOINS: usize = at("joins");
const RELATIONSHIPS: usize = at("relationships");
const PLAN_ERROR: usize = at("plan_error");
const INCOMPLETE: usize = at("incomplete");
const EXECUTION_ID: usize = at("execution_id");
const ROOT_EXECUTION_ID: usize = at("root_execution_id");
const START_MS: usize = at("start_ms");
const END_MS: usize = at("end_ms");
const DURATION_MS: usize = at("duration_ms");
const RUN_MS: usize = at("executor_run_ms");
const CPU_MS: usize = at("executor_cpu_ms");
const RESULT_OF: usize = at("result_of");
const ADAPTIVE_FINAL: usize = at("adaptive_final");
const IS_COMMAND: usize = at("is_command");

impl<'a> RawRow<'a> {
    fn text(&self, column: usize) -> Option<&'a str> {
        self.text[column]
    }

    fn long(&self, column: usize) -> Option<i64> {
        self.long[column]
    }

    fn flag(&self, column: usize) -> Option<bool> {
        self.bool[column]
    }

    /// Encode into `out` (read back by [`RawRow::decode`]).
    fn encode(&self, out: &mut Vec<u8>) {
        for v in &self.text {
            match v {
                None => out.push(0),
                Some(s) => {
                    out.push(1);
                    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                    out.extend_from_slice(s.as_bytes());
                }
            }
        }
        for v in &self.long {
            match v {
                None => out.push(0),
                Some(x) => {
                    out.push(1);
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        for v in &self.bool {
            out.push(match v {
                None => 0,
                Some(false) => 1,
                Some(true) => 2,
            });
        }
    }

    /// A row [`RawRow::encode`] wrote (into memory this process wrote).
    fn decode(mut b: &'a [u8]) -> RawRow<'a> {
        let mut take = |n: usize| {
            let (h, t) = b.split_at(n.min(b.len()));
            b = t;
            h
        };
        let kinds = |k: RecordType| {
            RECORD_SCHEMA
                .iter()
                .filter(|(_, t, d)| !d && *t == k)
                .count()
        };
        let mut row = RawRow {
            text: Vec::with_capacity(kinds(RecordType::Text)),
            long: Vec::with_capacity(kinds(RecordType::Long)),
            bool: Vec::with_capacity(kinds(RecordType::Bool)),
        };
        for _ in 0..row.text.capacity() {
            let v = if take(1) == [1] {
                let n = take(4).try_into().map_or(0, u32::from_le_bytes) as usize;
                std::str::from_utf8(take(n)).ok()
            } else {
                None
            };
            row.text.push(v);
        }
        for _ in 0..row.long.capacity() {
            let v = if take(1) == [1] {
                take(8).try_into().ok().map(i64::from_le_bytes)
            } else {
                None
            };
            row.long.push(v);
        }
        for _ in 0..row.bool.capacity() {
            row.bool.push(match take(1) {
                [1] => Some(false),
                [2] => Some(true),
                _ => None,
            });
        }
        row
    }

    /// The record this row (`row`, 1-based, of the file `path`) stands
    /// for, or why it cannot be one.
    fn exec(&self, path: &Path, row: u64) -> Result<Exec> {
        let path = || path.to_path_buf();
        let null = |column: &'static str| Error::RecordNull {
            path: path(),
            row,
            column,
        };
        let json = |column: usize, name: &'static str| self.text(column).ok_or_else(|| null(name));
        let owned = |column: usize| self.text(column).map(str::to_string);
        let id = self
            .long(EXECUTION_ID)
            .and_then(|x| u64::try_from(x).ok())
            .ok_or_else(|| Error::RecordExecutionId { path: path(), row })?;
        let de = |column: &'static str, source: serde_json::Error| Error::RecordColumn {
            path: path(),
            row,
            column,
            source,
        };
        let record = QueryRecord {
            app_id: owned(APP_ID).ok_or_else(|| null("app_id"))?,
            app_name: owned(APP_NAME).unwrap_or_default(),
            spark_version: owned(SPARK_VERSION),
            log: owned(LOG).unwrap_or_default(),
            execution_id: id,
            root_execution_id: self
                .long(ROOT_EXECUTION_ID)
                .and_then(|x| u64::try_from(x).ok()),
            start_ms: self.long(START_MS),
            end_ms: self.long(END_MS),
            duration_ms: self.long(DURATION_MS),
            error: owned(ERROR),
            description: owned(DESCRIPTION),
            plan_source: match self.text(PLAN_SOURCE) {
                None => None,
                Some(p) => {
                    Some(
                        plan::PlanSource::parse(p).ok_or_else(|| Error::RecordPlanSource {
                            path: path(),
                            row,
                            value: p.to_string(),
                        })?,
                    )
                }
            },
            adaptive_final: self.flag(ADAPTIVE_FINAL).unwrap_or(false),
            executor_run_ms: self.long(RUN_MS).unwrap_or(0),
            executor_cpu_ms: self.long(CPU_MS).unwrap_or(0),
            root_node: owned(ROOT_NODE),
            is_command: self.flag(IS_COMMAND).unwrap_or(false),
            result_of: self.long(RESULT_OF).and_then(|x| u64::try_from(x).ok()),
            scans: serde_json::from_str(json(SCANS, "scans")?).map_err(|e| de("scans", e))?,
            joins: serde_json::from_str(json(JOINS, "joins")?).map_err(|e| de("joins", e))?,
            plan_error: owned(PLAN_ERROR),
            incomplete: owned(INCOMPLETE),
        };
        let relationships = serde_json::from_str(json(RELATIONSHIPS, "relationships")?)
            .map_err(|e| de("relationships", e))?;
        Ok(Exec {
            record,
            relationships,
        })
    }
}

pub(crate) fn read_apps(path: &Path) -> Result<Vec<AppSummary>> {
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

pub(crate) fn read_errors(path: &Path) -> Result<Vec<(String, String, String)>> {
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

/// A sort key: app id, execution id, input order.
type Key = (String, u64, u64);

/// One record in a run: its key and its encoded row.
struct Entry {
    app: String,
    exec: u64,
    seq: u64,
    body: Vec<u8>,
}

impl Entry {
    fn key(&self) -> Key {
        (self.app.clone(), self.exec, self.seq)
    }
}

/// One sorted run: a zstd stream in an unlinked temporary file.
struct Run {
    file: std::fs::File,
}

/// Records written into sorted runs: buffered up to a budget of bytes,
/// sorted, and written out as one run.
struct Runs {
    budget: usize,
    buf: Vec<u8>,
    /// (offset in `buf`, app id length, row length, execution id, input order).
    index: Vec<(usize, usize, usize, u64, u64)>,
    done: Vec<Run>,
}

fn spooling(source: std::io::Error) -> Error {
    Error::Spool {
        what: "cannot write or read the sorted records in the temporary directory",
        source,
    }
}

impl Runs {
    fn new(budget: usize) -> Result<Runs> {
        Ok(Runs {
            budget,
            // Allocated once: grown by doubling, the buffer would pass
            // the budget by up to half again, and twice that while moved.
            buf: Vec::with_capacity(budget),
            index: Vec::new(),
            done: Vec::new(),
        })
    }

    fn push(&mut self, app: &str, exec: u64, seq: u64, row: &[u8]) -> Result<()> {
        if self.buf.len() + app.len() + row.len() > self.buf.capacity() {
            self.flush()?;
        }
        let at = self.buf.len();
        self.buf.extend_from_slice(app.as_bytes());
        self.buf.extend_from_slice(row);
        self.index.push((at, app.len(), row.len(), exec, seq));
        if self.buf.len() >= self.budget {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.index.is_empty() {
            return Ok(());
        }
        let buf = &self.buf;
        let app = |&(at, n, ..): &(usize, usize, usize, u64, u64)| &buf[at..at + n];
        self.index
            .sort_unstable_by(|a, b| app(a).cmp(app(b)).then((a.3, a.4).cmp(&(b.3, b.4))));
        let file = crate::spool::spool_file()?;
        let mut z = zstd::stream::write::Encoder::new(
            std::io::BufWriter::with_capacity(1 << 16, file.try_clone().map_err(spooling)?),
            1,
        )
        .map_err(spooling)?;
        z.window_log(RUN_WINDOW_LOG).map_err(spooling)?;
        for &(at, n, len, exec, seq) in &self.index {
            let mut head = Vec::with_capacity(24);
            head.extend_from_slice(&(n as u32).to_le_bytes());
            head.extend_from_slice(&exec.to_le_bytes());
            head.extend_from_slice(&seq.to_le_bytes());
            head.extend_from_slice(&(len as u32).to_le_bytes());
            z.write_all(&head).map_err(spooling)?;
            z.write_all(&buf[at..at + n + len]).map_err(spooling)?;
        }
        z.finish()
            .map_err(spooling)?
            .into_inner()
            .map_err(|e| spooling(e.into_error()))?;
        self.done.push(Run { file });
        self.buf.clear();
        self.index.clear();
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<Run>> {
        self.flush()?;
        Ok(self.done)
    }
}

/// The zstd window of a run (2^17 bytes): what each run being merged
/// holds in memory besides its current record.
const RUN_WINDOW_LOG: u32 = 17;

use crate::spool::{read_head, FileAt};
use std::io::{Read, Write};

/// A run being read.
struct RunReader<'a> {
    z: zstd::stream::read::Decoder<'static, std::io::BufReader<FileAt<'a>>>,
}

impl Run {
    fn reader(&self) -> Result<RunReader<'_>> {
        let z = zstd::stream::read::Decoder::with_buffer(std::io::BufReader::with_capacity(
            1 << 16,
            FileAt {
                file: &self.file,
                at: 0,
            },
        ))
        .map_err(spooling)?;
        Ok(RunReader { z })
    }
}

impl RunReader<'_> {
    fn next(&mut self) -> Result<Option<Entry>> {
        let mut head = [0u8; 24];
        if !read_head(&mut self.z, &mut head).map_err(spooling)? {
            return Ok(None);
        }
        let word = |a: usize| u32::from_le_bytes(head[a..a + 4].try_into().unwrap_or_default());
        let long = |a: usize| u64::from_le_bytes(head[a..a + 8].try_into().unwrap_or_default());
        let (n, exec, seq, len) = (word(0) as usize, long(4), long(12), word(20) as usize);
        let mut app = vec![0; n];
        self.z.read_exact(&mut app).map_err(spooling)?;
        let mut body = vec![0; len];
        self.z.read_exact(&mut body).map_err(spooling)?;
        Ok(Some(Entry {
            app: String::from_utf8_lossy(&app).into_owned(),
            exec,
            seq,
            body,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::{Column, DataFrame};
    use polars_io::prelude::ParquetWriter;

    const DAY: i64 = 86_400_000;
    /// 2026-10-05T00:00:00Z: the records' starts are plausible times, on
    /// whole days.
    const T0: i64 = 20_731 * DAY;

    /// A records file of `rows` (app id, log, execution id, start), each
    /// record joining `orders` to `lineitem`.
    fn write(path: &Path, rows: &[(&str, &str, i64, i64)]) {
        let rel = r#"[{"left_table":"orders","left_columns":["o_orderkey"],"right_table":"lineitem","right_columns":["l_orderkey"],"join_type":"Inner","strategy":"SortMergeJoin","non_simple":false,"left_expr":"","right_expr":"","preserved_side":null,"left_aggregated":false,"right_aggregated":false,"engine":"spark"}]"#;
        let scans = r#"[{"table":"orders","columns":[],"rows":10},{"table":"lineitem","columns":[],"rows":40}]"#;
        let cols: Vec<Column> = RECORD_SCHEMA
            .iter()
            .filter(|(_, _, derived)| !derived)
            .map(|(name, t, _)| {
                let n = (*name).into();
                match (*name, t) {
                    ("app_id", _) => Column::new(n, rows.iter().map(|r| r.0).collect::<Vec<_>>()),
                    ("log", _) => Column::new(n, rows.iter().map(|r| r.1).collect::<Vec<_>>()),
                    ("execution_id", _) => {
                        Column::new(n, rows.iter().map(|r| r.2).collect::<Vec<_>>())
                    }
                    ("start_ms", _) => Column::new(n, rows.iter().map(|r| r.3).collect::<Vec<_>>()),
                    ("duration_ms", _) => {
                        Column::new(n, rows.iter().map(|r| r.3 - T0).collect::<Vec<_>>())
                    }
                    ("scans", _) => Column::new(n, rows.iter().map(|_| scans).collect::<Vec<_>>()),
                    ("joins", _) => Column::new(n, rows.iter().map(|_| "[]").collect::<Vec<_>>()),
                    ("relationships", _) => {
                        Column::new(n, rows.iter().map(|_| rel).collect::<Vec<_>>())
                    }
                    (_, RecordType::Text) => Column::new(n, vec![None::<&str>; rows.len()]),
                    (_, RecordType::Long) => Column::new(n, vec![None::<i64>; rows.len()]),
                    (_, RecordType::Bool) => Column::new(n, vec![None::<bool>; rows.len()]),
                }
            })
            .collect();
        let mut df = DataFrame::new(rows.len(), cols).unwrap();
        let f = std::fs::File::create(path).unwrap();
        ParquetWriter::new(f).finish(&mut df).unwrap();
    }

    fn read(path: &Path, run_bytes: usize) -> (crate::Workload, Vec<(String, u64)>) {
        let w = crate::Workload::from(open_runs(path, &TimeRange::default(), run_bytes).unwrap());
        let mut ids = Vec::new();
        w.each(|e| {
            ids.push((e.record.app_id.clone(), e.record.execution_id));
            Ok::<_, Error>(())
        })
        .unwrap();
        (w, ids)
    }

    #[test]
    fn records_split_over_files_come_back_sorted_whatever_the_runs() {
        let dir = std::env::temp_dir().join(format!("lakeaudit-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Two applications interleaved over three files, out of order, and
        // a second, less complete copy of app-a (its log left out).
        let day = DAY;
        write(
            &dir.join("a.parquet"),
            &[
                ("app-b", "b", 3, T0 + 5 * day),
                ("app-a", "a", 9, T0 + day),
                ("app-a", "a", 2, T0 + day),
            ],
        );
        write(
            &dir.join("b.parquet"),
            &[
                ("app-a", "a", 5, T0 + 2 * day),
                ("app-b", "b", 1, T0 + 4 * day),
                ("app-a", "a-copy", 1, T0),
            ],
        );
        write(&dir.join("c.parquet"), &[("app-a", "a", 1, T0 + 3 * day)]);
        let want: Vec<(String, u64)> = [
            ("app-a", 1),
            ("app-a", 2),
            ("app-a", 5),
            ("app-a", 9),
            ("app-b", 1),
            ("app-b", 3),
        ]
        .iter()
        .map(|(a, i)| (a.to_string(), *i))
        .collect();
        let mut tables = Vec::new();
        // One record a run, a few a run, every record in one run.
        for run_bytes in [1, 2_000, RUN_BYTES] {
            let (w, ids) = read(&dir, run_bytes);
            assert_eq!(ids, want, "runs of {run_bytes} bytes");
            assert_eq!(w.census.executions, 6);
            assert_eq!(w.census.span, Some((T0 + day, T0 + 5 * day)));
            assert_eq!(w.apps.len(), 2);
            assert!(w
                .warnings
                .iter()
                .any(|x| x.contains("same application app-a")));
            // Read twice: the same records again.
            assert_eq!(read(&dir, run_bytes).1, want);
            let mut b = crate::windows::EdgeTablesBuilder::new(
                &w.census,
                TimeRange::default(),
                Some(day),
                crate::edges::CostMeasure::Duration,
                Default::default(),
            );
            w.each(|e| {
                b.push(&e);
                Ok::<_, Error>(())
            })
            .unwrap();
            let t = b.finish().unwrap();
            let row = |t: &crate::windows::EdgeTable| {
                (
                    t.window,
                    t.executions,
                    t.edges
                        .iter()
                        .map(|r| (r.frequency, r.executions.strings()))
                        .collect::<Vec<_>>(),
                )
            };
            tables.push((
                row(t.whole()),
                t.tables().into_iter().map(row).collect::<Vec<_>>(),
            ));
        }
        assert!(tables.windows(2).all(|w| w[0] == w[1]));
        let (whole, windows) = &tables[0];
        assert_eq!(
            whole.2[0].1,
            ["app-a:1", "app-a:2", "app-a:5", "app-a:9", "app-b:1", "app-b:3"]
        );
        assert_eq!(windows.len(), 5);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 29.5 and 29.7: the same records twice (a file given twice)
    /// count once, and a record whose start is outside the plausible
    /// range is left out and named. Before: every count doubled, and the
    /// windows spanned 9×10^18 ms.
    #[test]
    fn repeated_records_count_once_and_implausible_times_are_left_out() {
        let dir =
            std::env::temp_dir().join(format!("lakeaudit-records-twice-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        write(
            &dir.join("a.parquet"),
            &[
                ("app-a", "a", 2, T0 + 2 * DAY),
                ("app-a", "a", 1, T0 + DAY),
                ("app-a", "a", 3, -9_000_000_000_000_000_000),
            ],
        );
        std::fs::copy(dir.join("a.parquet"), dir.join("b.parquet")).unwrap();
        for run_bytes in [1, RUN_BYTES] {
            let (w, ids) = read(&dir, run_bytes);
            assert_eq!(ids, [("app-a".to_string(), 1), ("app-a".to_string(), 2)]);
            assert_eq!(w.census.executions, 2, "runs of {run_bytes} bytes");
            assert_eq!(w.census.span, Some((T0 + DAY, T0 + 2 * DAY)));
            assert_eq!(w.errors.len(), 2, "{:?}", w.errors);
            assert!(
                w.errors[0].contains("a.parquet: 1 execution left out: a start or end time outside the plausible range 2000-01-01T00:00:00Z .. 2100-01-01T00:00:00Z (first: row 3 (execution 3 of app-a): start time -9000000000000000000 ms)"),
                "{}",
                w.errors[0]
            );
            let repeats: Vec<&String> = w
                .warnings
                .iter()
                .filter(|l| l.contains("repeat one read before"))
                .collect();
            assert_eq!(repeats.len(), 1, "{:?}", w.warnings);
            assert!(
                repeats[0].contains("b.parquet: 2 records repeat one read before (same application, execution and log): dropped (first: row 2 (execution 1 of app-a))"),
                "{}",
                repeats[0]
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
