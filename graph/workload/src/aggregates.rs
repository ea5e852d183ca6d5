//! `--aggregates`: the edge and scan aggregates a Spark aggregation job
//! (`spark/lakeaudit_aggregate.py`) wrote from the map's records, read as
//! untrusted input and turned into the edge tables and the scans' facts
//! the single-machine fold gives ([`Aggregates::edge_tables`]), with the
//! applications, errors and census of the logs read.
//!
//! The job's output directory holds Parquet tables (spark/README.md, "The
//! aggregates", gives every column):
//!
//! - `meta/`: one row, the layout version and the options the aggregates
//!   were made with (`--window`, `--since`, `--until`) and the start of
//!   the planned window;
//! - `logs/`: one row per log, the census and first record the merge of
//!   an application read twice needs, and whether the job kept it;
//! - `windows/`: the selected executions per window;
//! - `edges/`: per window (and, with a null window, over the whole
//!   selection) and edge, F and the sums D and C are made of, with the
//!   executions in (app id, execution id) order;
//! - `facts/`: the planned window's executions (their task time and the
//!   bytes they read per table, for the executor time a plan saves);
//! - `scan_sizes/`, `scan_formats/`, `scan_bytes/`: what the scans say of
//!   each table;
//! - `apps/`, `errors/`: the map's, as `--records` reads them.
//!
//! Sums that are whole numbers (the products of rows, the costs, the
//! bytes) are summed exactly on Spark and stored as doubles: they equal
//! the single-machine run's sums in (app id, execution id) order while
//! those stay below 2^53 (above, the job's are the correctly rounded sum).

use crate::bounds::{plausible, range_text, too_many_windows, MAX_WINDOWS};
use crate::edges::{
    data_align, window_start, CostMeasure, EdgeKey, EdgeRow, ExecFacts, ExecList, RowFallback,
    TableVolume,
};
use crate::error::{Error, Result};
use crate::exec::Opened;
use crate::records::{self, Cols, FirstRecord, LogSeen};
use crate::time::{format_length, TimeRange};
use crate::windows::{EdgeTable, EdgeTables, Windowed};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layout version this reader reads (`meta/`'s `layout_version`).
pub const LAYOUT_VERSION: i64 = 1;

/// The aggregates of one run, read and checked ([`open`]).
pub struct Aggregates {
    dir: PathBuf,
    window_ms: i64,
    planned: Option<i64>,
    latest: Option<i64>,
    first_selected: Option<i64>,
    selected: usize,
    windows: BTreeMap<i64, usize>,
    edges: Vec<EdgeSums>,
    facts: Vec<ExecFacts>,
    /// What the scans say of each table.
    pub scans: ScanAggregates,
}

/// One row of `edges/`: an edge's figures in one window (or the whole
/// selection).
#[derive(Clone, Debug)]
struct EdgeSums {
    window: Option<i64>,
    key: EdgeKey,
    frequency: u64,
    volume_known: f64,
    right_rows_left_missing: f64,
    left_rows_right_missing: f64,
    left_missing: u64,
    right_missing: u64,
    both_missing: u64,
    duration_sum: f64,
    cpu_sum: f64,
    scanned_bytes: f64,
    smj: u64,
    bhj: u64,
    other: u64,
    first_seen: Option<i64>,
    last_seen: Option<i64>,
    executions: ExecList,
}

/// What the scans of every kept execution say of the tables, grouped by
/// the Spark job (`scan_sizes/`, `scan_formats/`, `scan_bytes/`).
#[derive(Clone, Debug, Default)]
pub struct ScanAggregates {
    /// The largest scan of each table per set of filters.
    pub sizes: Vec<ScanSize>,
    /// The first scan of each table per format shown.
    pub formats: Vec<ScanFormat>,
    /// Bytes read per table, as the scans name it.
    pub bytes: Vec<(String, u64)>,
}

/// The largest figures of a table's scans that print the same filters.
#[derive(Clone, Debug, Default)]
pub struct ScanSize {
    /// The table, as the scans name it (path reads of a catalog table's
    /// location renamed).
    pub table: String,
    /// `PartitionFilters` as printed.
    pub partition_filters: Option<String>,
    /// `DataFilters`.
    pub data_filters: Option<String>,
    /// `PushedFilters`.
    pub pushed_filters: Option<String>,
    /// Largest `size of files read`.
    pub bytes: Option<i64>,
    /// Largest `number of output rows`.
    pub rows: Option<i64>,
    /// Largest `number of files read`.
    pub files: Option<i64>,
}

/// The first scan (in (app id, execution id, scan) order) of a table that
/// shows a format.
#[derive(Clone, Debug, Default)]
pub struct ScanFormat {
    /// The table, as the scans name it.
    pub table: String,
    /// Whether its location is a Delta file index.
    pub delta_index: bool,
    /// The format the scan prints.
    pub format: Option<String>,
    /// App id, execution id and scan index of the first such scan.
    pub first: (String, u64, u64),
}

/// Read the aggregates under `dir` for `range` (`--since`/`--until`,
/// which must be those the job was given): the applications kept, the
/// map's errors and warnings, the census, and the aggregates.
pub fn open(dir: &Path, range: &TimeRange) -> Result<Opened<Aggregates>> {
    let input = |reason: String| Error::AggregatesInput {
        path: dir.to_path_buf(),
        reason,
    };
    if !dir.is_dir() {
        return Err(input(
            "not a directory (the output of spark/lakeaudit_aggregate.py)".into(),
        ));
    }
    let files = |name: &str| -> Result<Vec<PathBuf>> {
        let d = dir.join(name);
        if !d.is_dir() {
            return Err(input(format!(
                "no `{name}/` table: not the output of spark/lakeaudit_aggregate.py"
            )));
        }
        records::parquet_files(&d)
    };
    // meta/: one row.
    let meta_files = files("meta")?;
    let mut meta = Vec::new();
    for f in &meta_files {
        let df = read(
            f,
            &[
                "layout_version",
                "window_ms",
                "since_ms",
                "until_ms",
                "latest_selected_ms",
                "first_selected_ms",
                "planned_window_start_ms",
            ],
        )?;
        let c = Cols { df: &df, path: f };
        let cols: Vec<Vec<Option<i64>>> = [
            "layout_version",
            "window_ms",
            "since_ms",
            "until_ms",
            "latest_selected_ms",
            "first_selected_ms",
            "planned_window_start_ms",
        ]
        .iter()
        .map(|n| c.int(n))
        .collect::<Result<_>>()?;
        for i in 0..df.height() {
            meta.push((f.clone(), cols.iter().map(|col| col[i]).collect::<Vec<_>>()));
        }
    }
    let [(meta_file, m)] = meta.as_slice() else {
        return Err(input(format!("`meta/` has {} rows, not one", meta.len())));
    };
    if m[0] != Some(LAYOUT_VERSION) {
        return Err(records::bad(
            meta_file,
            format!("layout version {:?}, this lakeaudit reads {LAYOUT_VERSION}: make the aggregates again with this lakeaudit's spark/lakeaudit_aggregate.py", m[0]),
        ));
    }
    let window_ms = m[1]
        .filter(|&w| w > 0)
        .ok_or_else(|| records::bad(meta_file, "`window_ms` is null or not positive".into()))?;
    for (option, made, given) in [
        ("--since", m[2], range.since),
        ("--until", m[3], range.until),
    ] {
        if made != given {
            let show = |v: Option<i64>| match v {
                Some(ms) => format!("with {option} {ms}"),
                None => format!("without {option}"),
            };
            return Err(Error::AggregatesOptions {
                path: dir.to_path_buf(),
                made: show(made),
                given: show(given),
            });
        }
    }
    let (latest, first_selected, planned) = (m[4], m[5], m[6]);
    for (t, name) in [
        (latest, "latest_selected_ms"),
        (first_selected, "first_selected_ms"),
    ] {
        if let Some(t) = t.filter(|&t| !plausible(t)) {
            return Err(records::bad(
                meta_file,
                format!(
                    "`{name}` {t} is outside the plausible range {}",
                    range_text()
                ),
            ));
        }
    }
    let align = data_align(latest, window_ms);
    if planned != latest.map(|t| window_start(t, window_ms, align)) {
        return Err(records::bad(
            meta_file,
            "`planned_window_start_ms` is not the window of `latest_selected_ms`".into(),
        ));
    }

    // logs/: the merge of applications, as --records makes it.
    let mut logs: BTreeMap<String, LogSeen> = BTreeMap::new();
    let mut kept_by_job = BTreeSet::new();
    for f in &files("logs")? {
        let df = read(
            f,
            &[
                "log",
                "first_app_id",
                "first_app_name",
                "first_spark_version",
                "executions",
                "queries",
                "span_first",
                "span_last",
                "selected",
                "latest_selected",
                "kept",
            ],
        )?;
        let c = Cols { df: &df, path: f };
        let (log, app, name, version) = (
            c.str("log")?,
            c.str("first_app_id")?,
            c.str("first_app_name")?,
            c.str("first_spark_version")?,
        );
        let (execs, queries, first, last, selected, latest_sel) = (
            c.int("executions")?,
            c.int("queries")?,
            c.int("span_first")?,
            c.int("span_last")?,
            c.int("selected")?,
            c.int("latest_selected")?,
        );
        let kept = c.bool("kept")?;
        for i in 0..df.height() {
            let row = |reason: &str| records::bad(f, format!("row {}: {reason}", i + 1));
            let count = |v: Option<i64>, what: &str| -> Result<usize> {
                v.and_then(|x| usize::try_from(x).ok())
                    .ok_or_else(|| row(&format!("`{what}` is null or negative")))
            };
            let l = log[i].ok_or_else(|| row("`log` is null"))?.to_string();
            let mut seen = LogSeen::default();
            seen.census.executions = count(execs[i], "executions")?;
            seen.census.queries = count(queries[i], "queries")?;
            seen.census.selected = count(selected[i], "selected")?;
            seen.census.span = first[i].zip(last[i]);
            seen.census.latest_selected = latest_sel[i];
            if seen.census.queries > seen.census.executions
                || seen.census.selected > seen.census.executions
            {
                return Err(row("more queries or selected executions than executions"));
            }
            seen.first = app[i].map(|a| {
                (
                    (0, 0),
                    FirstRecord {
                        app_id: a.to_string(),
                        app_name: name[i].unwrap_or_default().to_string(),
                        spark_version: version[i].map(str::to_string),
                    },
                )
            });
            if kept[i].ok_or_else(|| row("`kept` is null"))? {
                kept_by_job.insert(l.clone());
            }
            if logs.insert(l, seen).is_some() {
                return Err(row("a log listed twice"));
            }
        }
    }
    let merged = records::merge_logs(&logs, &files("apps")?, &files("errors")?)?;
    if merged.kept != kept_by_job {
        return Err(input("`logs/` keeps other copies of applications read twice than lakeaudit's merge keeps: the aggregates were not made from these apps/ (or by another lakeaudit)".into()));
    }
    if merged.census.latest_selected != latest {
        return Err(input(
            "`meta/`'s latest selected start is not the kept logs'".into(),
        ));
    }

    // windows/: executions per window.
    let mut windows = BTreeMap::new();
    for f in &files("windows")? {
        let df = read(f, &["window_start_ms", "executions"])?;
        let c = Cols { df: &df, path: f };
        let (start, counts) = (c.int("window_start_ms")?, c.int("executions")?);
        for i in 0..df.height() {
            let row = |reason: &str| records::bad(f, format!("row {}: {reason}", i + 1));
            let Some(s) = start[i] else {
                continue; // Executions without a start time are in no window.
            };
            if !plausible(s) {
                return Err(row(&format!(
                    "the window starts at {s} ms, outside the plausible range {}",
                    range_text()
                )));
            }
            let n = counts[i]
                .and_then(|x| usize::try_from(x).ok())
                .filter(|&x| x > 0)
                .ok_or_else(|| row("`executions` is null or not positive"))?;
            if (s - align).rem_euclid(window_ms) != 0 {
                return Err(row(
                    "the window does not start where the windows of `meta/` do",
                ));
            }
            if windows.insert(s, n).is_some() {
                return Err(row("a window listed twice"));
            }
        }
    }
    let selected = merged.census.selected;
    if windows.values().sum::<usize>() > selected {
        return Err(input(
            "`windows/` counts more executions than `logs/` selects".into(),
        ));
    }
    if planned.is_some() && windows.is_empty() {
        return Err(input(
            "`windows/` lists no window, `meta/` plans one".into(),
        ));
    }
    if let (Some(a), Some(b)) = (windows.keys().next(), windows.keys().next_back()) {
        if too_many_windows(*a, *b, window_ms) {
            return Err(input(format!(
                "more than {MAX_WINDOWS} windows between the first and the last"
            )));
        }
        if Some(*b) != planned {
            return Err(input(
                "the last window of `windows/` is not the planned window of `meta/`".into(),
            ));
        }
    }

    let mut edges = Vec::new();
    let mut listed = BTreeMap::new();
    for f in &files("edges")? {
        read_edges(f, &mut edges, &mut listed)?;
    }
    drop(listed);
    for e in &edges {
        if let Some(w) = e.window {
            if !windows.contains_key(&w) {
                return Err(input(format!(
                    "an edge of `edges/` is in window {w}, which `windows/` does not list"
                )));
            }
        }
    }
    let mut facts = Vec::new();
    let mut listed = BTreeMap::new();
    for f in &files("facts")? {
        read_facts(f, &mut facts, &mut listed)?;
    }
    drop(listed);
    let mut scans = ScanAggregates::default();
    for f in &files("scan_sizes")? {
        read_sizes(f, &mut scans.sizes)?;
    }
    for f in &files("scan_formats")? {
        read_formats(f, &mut scans.formats)?;
    }
    for f in &files("scan_bytes")? {
        let df = read(f, &["table", "bytes"])?;
        let c = Cols { df: &df, path: f };
        let (t, b) = (c.str("table")?, c.str("bytes")?);
        for i in 0..df.height() {
            let bytes = b[i].and_then(|b| b.parse::<u64>().ok()).ok_or_else(|| {
                records::bad(
                    f,
                    format!(
                        "row {}: `bytes` is not a whole number of bytes below 2^64",
                        i + 1
                    ),
                )
            })?;
            scans
                .bytes
                .push((t[i].unwrap_or_default().to_string(), bytes));
        }
    }
    let aggregates = Aggregates {
        dir: dir.to_path_buf(),
        window_ms,
        planned,
        latest,
        first_selected,
        selected,
        windows,
        edges,
        facts,
        scans,
    };
    Ok(Opened {
        apps: merged.apps,
        errors: merged.errors,
        warnings: merged.warnings,
        locations: crate::identity::Locations::default(),
        census: merged.census,
        execs: aggregates,
    })
}

/// Where a row was read first: the file and the row (from 1).
type FirstAt = (PathBuf, usize);

/// Read `edges/` file `f` into `out`; `listed` holds where each (window,
/// edge) was read, and one listed twice is refused (the job writes each
/// once: a repeated row would count the edge twice).
fn read_edges(
    f: &Path,
    out: &mut Vec<EdgeSums>,
    listed: &mut BTreeMap<(Option<i64>, EdgeKey), FirstAt>,
) -> Result<()> {
    let df = read(
        f,
        &[
            "window_start_ms",
            "left_table",
            "left_columns",
            "right_table",
            "right_columns",
            "frequency",
            "volume_known",
            "right_rows_left_missing",
            "left_rows_right_missing",
            "left_missing",
            "right_missing",
            "both_missing",
            "duration_sum",
            "cpu_sum",
            "scanned_bytes",
            "smj_count",
            "bhj_count",
            "other_count",
            "first_seen_ms",
            "last_seen_ms",
            "executions",
        ],
    )?;
    let c = Cols { df: &df, path: f };
    let float = |name: &str| -> Result<Vec<Option<f64>>> {
        let col = c.typed(name, "not a double", |c| c.f64())?;
        Ok((0..col.len()).map(|i| col.get(i)).collect())
    };
    let window = c.int("window_start_ms")?;
    let (lt, lc, rt, rc) = (
        c.str("left_table")?,
        c.str("left_columns")?,
        c.str("right_table")?,
        c.str("right_columns")?,
    );
    let counts: Vec<Vec<Option<i64>>> = [
        "frequency",
        "left_missing",
        "right_missing",
        "both_missing",
        "smj_count",
        "bhj_count",
        "other_count",
    ]
    .iter()
    .map(|n| c.int(n))
    .collect::<Result<_>>()?;
    let sums: Vec<Vec<Option<f64>>> = [
        "volume_known",
        "right_rows_left_missing",
        "left_rows_right_missing",
        "duration_sum",
        "cpu_sum",
        "scanned_bytes",
    ]
    .iter()
    .map(|n| float(n))
    .collect::<Result<_>>()?;
    let (first, last) = (c.int("first_seen_ms")?, c.int("last_seen_ms")?);
    let execs = c.str("executions")?;
    for i in 0..df.height() {
        let row = |reason: String| records::bad(f, format!("row {}: {reason}", i + 1));
        let text = |v: &[Option<&str>], name: &str| -> Result<String> {
            v[i].filter(|s| !s.is_empty())
                .map(str::to_string)
                .ok_or_else(|| row(format!("`{name}` is null or empty")))
        };
        let columns = |v: &[Option<&str>], name: &str| -> Result<Vec<String>> {
            serde_json::from_str::<Vec<String>>(&text(v, name)?)
                .ok()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| row(format!("`{name}` is not a JSON list of column names")))
        };
        let count = |k: usize, name: &str| -> Result<u64> {
            counts[k][i]
                .and_then(|x| u64::try_from(x).ok())
                .ok_or_else(|| row(format!("`{name}` is null or negative")))
        };
        // Sums of rows, bytes and times: never negative.
        let sum = |k: usize, name: &str| -> Result<f64> {
            Some(sums[k][i].unwrap_or(0.0))
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| row(format!("`{name}` is negative or not a finite sum")))
        };
        let frequency = count(0, "frequency")?;
        let pairs: Vec<(String, String)> = serde_json::from_str(&text(&execs, "executions")?)
            .map_err(|e| {
                row(format!(
                    "`executions` is not a JSON list of [app id, execution id]: {e}"
                ))
            })?;
        let ids = pairs
            .iter()
            .map(|(a, id)| Some((a.as_str(), id.parse::<u64>().ok()?)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                row("`executions` holds an execution id that is not a whole number".into())
            })?;
        let executions = ExecList::from_ordered(ids)
            .ok_or_else(|| row("`executions` is not in (app id, execution id) order".into()))?;
        if frequency == 0 || executions.len() as u64 != frequency {
            return Err(row(format!(
                "`frequency` {frequency} is not the number of `executions` ({})",
                executions.len()
            )));
        }
        let missing =
            count(1, "left_missing")? + count(2, "right_missing")? + count(3, "both_missing")?;
        if missing > frequency {
            return Err(row(
                "more executions with missing rows than `frequency`".into()
            ));
        }
        let key = EdgeKey {
            left_table: text(&lt, "left_table")?,
            left_columns: columns(&lc, "left_columns")?,
            right_table: text(&rt, "right_table")?,
            right_columns: columns(&rc, "right_columns")?,
        };
        if let Some((file, at)) = listed.get(&(window[i], key.clone())) {
            let place = match window[i] {
                Some(w) => format!("window {w}"),
                None => "the whole selection".to_string(),
            };
            return Err(row(format!(
                "the edge {} in {place} is listed twice (first: {}, row {at})",
                key.label(),
                file.display()
            )));
        }
        listed.insert((window[i], key.clone()), (f.to_path_buf(), i + 1));
        out.push(EdgeSums {
            window: window[i],
            key,
            frequency,
            volume_known: sum(0, "volume_known")?,
            right_rows_left_missing: sum(1, "right_rows_left_missing")?,
            left_rows_right_missing: sum(2, "left_rows_right_missing")?,
            left_missing: count(1, "left_missing")?,
            right_missing: count(2, "right_missing")?,
            both_missing: count(3, "both_missing")?,
            duration_sum: sum(3, "duration_sum")?,
            cpu_sum: sum(4, "cpu_sum")?,
            scanned_bytes: sum(5, "scanned_bytes")?,
            smj: count(4, "smj_count")?,
            bhj: count(5, "bhj_count")?,
            other: count(6, "other_count")?,
            first_seen: first[i],
            last_seen: last[i],
            executions,
        });
    }
    Ok(())
}

/// Read `facts/` file `f` into `out`; an execution listed twice
/// (`listed`) is refused, as are times outside the plausible range and
/// negative durations or task times.
fn read_facts(
    f: &Path,
    out: &mut Vec<ExecFacts>,
    listed: &mut BTreeMap<(String, u64), FirstAt>,
) -> Result<()> {
    let df = read(
        f,
        &[
            "app_id",
            "execution_id",
            "root_execution_id",
            "start_ms",
            "duration_ms",
            "cpu_ms",
            "run_ms",
            "tables",
        ],
    )?;
    let c = Cols { df: &df, path: f };
    let (app, tables) = (c.str("app_id")?, c.str("tables")?);
    let (id, root, start, dur, cpu, run) = (
        c.int("execution_id")?,
        c.int("root_execution_id")?,
        c.int("start_ms")?,
        c.int("duration_ms")?,
        c.int("cpu_ms")?,
        c.int("run_ms")?,
    );
    for i in 0..df.height() {
        let row = |reason: &str| records::bad(f, format!("row {}: {reason}", i + 1));
        let volumes: Vec<(String, Option<i64>, Option<i64>)> =
            serde_json::from_str(tables[i].unwrap_or("[]"))
                .map_err(|_| row("`tables` is not a JSON list of [table, rows, bytes]"))?;
        let app_id = app[i].ok_or_else(|| row("`app_id` is null"))?.to_string();
        let execution_id = id[i]
            .and_then(|x| u64::try_from(x).ok())
            .ok_or_else(|| row("`execution_id` is null or negative"))?;
        if let Some((file, at)) = listed.get(&(app_id.clone(), execution_id)) {
            return Err(row(&format!(
                "execution {execution_id} of {app_id} is listed twice (first: {}, row {at})",
                file.display()
            )));
        }
        listed.insert((app_id.clone(), execution_id), (f.to_path_buf(), i + 1));
        if start[i].is_some_and(|t| !plausible(t)) {
            return Err(row(&format!(
                "`start_ms` is outside the plausible range {}",
                range_text()
            )));
        }
        for (v, name) in [
            (dur[i], "duration_ms"),
            (cpu[i], "cpu_ms"),
            (run[i], "run_ms"),
        ] {
            if v.is_some_and(|v| v < 0) {
                return Err(row(&format!("`{name}` is negative")));
            }
        }
        out.push(ExecFacts {
            app_id,
            execution_id,
            root_execution_id: root[i].and_then(|x| u64::try_from(x).ok()),
            start_ms: start[i],
            duration_ms: dur[i],
            cpu_ms: cpu[i].unwrap_or(0),
            run_ms: run[i].unwrap_or(0),
            tables: volumes
                .into_iter()
                .map(|(t, rows, bytes)| (t, TableVolume { rows, bytes }))
                .collect(),
            relationships: Vec::new(),
        });
    }
    Ok(())
}

fn read_sizes(f: &Path, out: &mut Vec<ScanSize>) -> Result<()> {
    let df = read(
        f,
        &[
            "table",
            "partition_filters",
            "data_filters",
            "pushed_filters",
            "bytes",
            "rows",
            "files",
        ],
    )?;
    let c = Cols { df: &df, path: f };
    let (t, pf, dfl, pu) = (
        c.str("table")?,
        c.str("partition_filters")?,
        c.str("data_filters")?,
        c.str("pushed_filters")?,
    );
    let (b, r, n) = (c.int("bytes")?, c.int("rows")?, c.int("files")?);
    let owned = |v: Option<&str>| v.map(str::to_string);
    for i in 0..df.height() {
        out.push(ScanSize {
            table: t[i].unwrap_or_default().to_string(),
            partition_filters: owned(pf[i]),
            data_filters: owned(dfl[i]),
            pushed_filters: owned(pu[i]),
            bytes: b[i],
            rows: r[i],
            files: n[i],
        });
    }
    Ok(())
}

fn read_formats(f: &Path, out: &mut Vec<ScanFormat>) -> Result<()> {
    let df = read(
        f,
        &[
            "table",
            "delta_index",
            "format",
            "first_app_id",
            "first_execution_id",
            "first_scan_index",
        ],
    )?;
    let c = Cols { df: &df, path: f };
    let (t, d, fmt, app) = (
        c.str("table")?,
        c.bool("delta_index")?,
        c.str("format")?,
        c.str("first_app_id")?,
    );
    let (id, k) = (c.int("first_execution_id")?, c.int("first_scan_index")?);
    for i in 0..df.height() {
        let whole = |v: Option<i64>| v.and_then(|x| u64::try_from(x).ok());
        let first = app[i].zip(whole(id[i])).zip(whole(k[i])).ok_or_else(|| {
            records::bad(
                f,
                format!(
                    "row {}: the first scan's app id, execution id or index is null or negative",
                    i + 1
                ),
            )
        })?;
        out.push(ScanFormat {
            table: t[i].unwrap_or_default().to_string(),
            delta_index: d[i].unwrap_or(false),
            format: fmt[i].map(str::to_string),
            first: (first.0 .0.to_string(), first.0 .1, first.1),
        });
    }
    Ok(())
}

/// `columns` of one file of the aggregates.
fn read(path: &Path, columns: &[&str]) -> Result<polars::prelude::DataFrame> {
    records::read_table(path, columns, "lakeaudit aggregates")
}

impl Aggregates {
    /// The directory read.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The error of a stage that needs the executions.
    pub fn needs_records(&self) -> Error {
        Error::NeedsRecords {
            path: self.dir.clone(),
        }
    }

    /// The edge tables the single-machine fold builds
    /// (`windows::EdgeTablesBuilder`) for windows of `width_ms` (the
    /// length the aggregates were made with; without a length, only the
    /// whole selection's table; the range was checked by [`open`]), with C in
    /// `cost` and rows a scan did not report from `fallback`.
    pub fn edge_tables(
        &self,
        width_ms: Option<i64>,
        cost: CostMeasure,
        fallback: &RowFallback,
    ) -> Result<EdgeTables> {
        if let Some(w) = width_ms.filter(|&w| w != self.window_ms) {
            return Err(Error::AggregatesOptions {
                path: self.dir.clone(),
                made: format!("with --window {}", format_length(self.window_ms)),
                given: format!("with --window {}", format_length(w)),
            });
        }
        let mut by_window: BTreeMap<Option<i64>, Vec<&EdgeSums>> = BTreeMap::new();
        for e in &self.edges {
            by_window.entry(e.window).or_default().push(e);
        }
        let mut table = |window: Option<i64>| -> Vec<EdgeRow> {
            rows(
                by_window.remove(&window).unwrap_or_default(),
                cost,
                fallback,
            )
        };
        // The whole selection is planned when no window is.
        let whole_facts = if self.planned.is_none() {
            self.facts.clone()
        } else {
            Vec::new()
        };
        let whole = EdgeTable {
            window: None,
            executions: self.selected,
            facts: whole_facts,
            edges: table(None),
        };
        let windowed = width_ms.map(|w| {
            let mut windows = Vec::new();
            if let (Some(&first), Some(&last)) =
                (self.windows.keys().next(), self.windows.keys().next_back())
            {
                let mut s = first;
                while s <= last {
                    windows.push(EdgeTable {
                        window: Some((s, s + w)),
                        executions: self.windows.get(&s).copied().unwrap_or(0),
                        facts: if Some(s) == self.planned {
                            self.facts.clone()
                        } else {
                            Vec::new()
                        },
                        edges: table(Some(s)),
                    });
                    s += w;
                }
            }
            Windowed {
                width_ms: w,
                cost,
                windows,
            }
        });
        let span = self.first_selected.zip(self.latest);
        Ok(EdgeTables::from_parts(whole, span, windowed))
    }
}

/// One table's rows, as `EdgeAcc::finish` makes them: D and C the means
/// of the sums, JIS over the table, by JIS descending, then by names.
fn rows(sums: Vec<&EdgeSums>, cost: CostMeasure, fallback: &RowFallback) -> Vec<EdgeRow> {
    let fb = |t: &str| fallback.get(t).copied().unwrap_or(0) as f64;
    let rows = sums
        .into_iter()
        .map(|s| {
            let (l, r) = (fb(&s.key.left_table), fb(&s.key.right_table));
            let volume = s.volume_known
                + l * s.right_rows_left_missing
                + r * s.left_rows_right_missing
                + l * r * s.both_missing as f64;
            let cost_sum = match cost {
                CostMeasure::Duration => s.duration_sum,
                CostMeasure::Cpu => s.cpu_sum,
            };
            EdgeRow {
                left_table: s.key.left_table.clone(),
                left_columns: s.key.left_columns.clone(),
                right_table: s.key.right_table.clone(),
                right_columns: s.key.right_columns.clone(),
                frequency: s.frequency,
                data_volume: volume / s.frequency as f64,
                cost: cost_sum / s.frequency as f64,
                f_norm: 0.0,
                d_norm: 0.0,
                c_norm: 0.0,
                jis: 0.0,
                smj_count: s.smj,
                bhj_count: s.bhj,
                other_count: s.other,
                first_seen_ms: s.first_seen,
                last_seen_ms: s.last_seen,
                scanned_bytes: s.scanned_bytes,
                volume_fallbacks: s.left_missing + s.right_missing + s.both_missing,
                executions: s.executions.clone(),
            }
        })
        .collect();
    crate::edges::scored(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Exec;
    use polars::prelude::{Column, DataFrame};
    use polars_io::prelude::ParquetWriter;

    const DAY: i64 = 86_400_000;
    /// 2026-10-05T00:00:00Z, a whole number of days: the fixtures' times
    /// are plausible ones, their windows aligned as from 0.
    const T0: i64 = 20_731 * DAY;

    fn exec(
        id: u64,
        root: Option<u64>,
        start: i64,
        dur: i64,
        cpu: i64,
        scans: &str,
        strategy: &str,
    ) -> Exec {
        let rel = format!(
            r#"[{{"left_table":"orders","left_columns":["o_orderkey"],"right_table":"lineitem","right_columns":["l_orderkey"],"join_type":"Inner","strategy":"{strategy}","non_simple":false,"left_expr":"","right_expr":"","preserved_side":null,"left_aggregated":false,"right_aggregated":false,"engine":"spark"}}]"#
        );
        Exec {
            record: parsers::record::QueryRecord {
                app_id: "app-a".into(),
                app_name: String::new(),
                spark_version: None,
                log: "log-a".into(),
                execution_id: id,
                root_execution_id: root,
                start_ms: Some(start),
                end_ms: None,
                duration_ms: Some(dur),
                error: None,
                description: None,
                plan_source: None,
                adaptive_final: false,
                executor_run_ms: dur - 10,
                executor_cpu_ms: cpu,
                root_node: None,
                is_command: false,
                result_of: None,
                scans: serde_json::from_str(scans).unwrap(),
                joins: Vec::new(),
                plan_error: None,
                incomplete: None,
            },
            relationships: serde_json::from_str(&rel).unwrap(),
        }
    }

    /// Three executions of one application: the second and third are one
    /// statement; lineitem's rows are missing in the second.
    fn execs() -> Vec<Exec> {
        let both = r#"[{"table":"orders","columns":[],"rows":10,"bytes_read":100},{"table":"lineitem","columns":[],"rows":40,"bytes_read":400}]"#;
        let no_rows = r#"[{"table":"orders","columns":[],"rows":20,"bytes_read":200},{"table":"lineitem","columns":[]}]"#;
        vec![
            exec(1, None, T0 + 1000, 100, 40, both, "SortMergeJoin"),
            exec(
                2,
                None,
                T0 + 3 * DAY + 5000,
                300,
                80,
                no_rows,
                "BroadcastHashJoin",
            ),
            exec(
                3,
                Some(2),
                T0 + 3 * DAY + 6000,
                50,
                5,
                both,
                "SortMergeJoin",
            ),
        ]
    }

    fn write(dir: &Path, table: &str, cols: Vec<Column>) {
        std::fs::create_dir_all(dir.join(table)).unwrap();
        let height = cols.first().map_or(0, |c| c.len());
        let mut df = DataFrame::new(height, cols).unwrap();
        let f = std::fs::File::create(dir.join(table).join("part-0.parquet")).unwrap();
        ParquetWriter::new(f).finish(&mut df).unwrap();
    }

    fn int(name: &str, v: Vec<Option<i64>>) -> Column {
        Column::new(name.into(), v)
    }

    fn text(name: &str, v: Vec<Option<&str>>) -> Column {
        Column::new(name.into(), v)
    }

    fn float(name: &str, v: Vec<f64>) -> Column {
        Column::new(name.into(), v)
    }

    /// The aggregates lakeaudit_aggregate.py writes for [`execs`] with
    /// `--window 1d` (windows end 1 ms after the last start, 3d+6000).
    fn aggregates(dir: &Path, frequency_whole: i64) {
        let _ = std::fs::remove_dir_all(dir);
        let align = 6001;
        let (w1, w2) = (T0 - DAY + align, T0 + 2 * DAY + align);
        write(
            dir,
            "meta",
            vec![
                int("layout_version", vec![Some(1)]),
                int("window_ms", vec![Some(DAY)]),
                int("since_ms", vec![None]),
                int("until_ms", vec![None]),
                int("latest_selected_ms", vec![Some(T0 + 3 * DAY + 6000)]),
                int("first_selected_ms", vec![Some(T0 + 1000)]),
                int("planned_window_start_ms", vec![Some(w2)]),
            ],
        );
        write(
            dir,
            "logs",
            vec![
                text("log", vec![Some("log-a")]),
                text("first_app_id", vec![Some("app-a")]),
                text("first_app_name", vec![Some("")]),
                text("first_spark_version", vec![None]),
                int("executions", vec![Some(3)]),
                int("queries", vec![Some(3)]),
                int("span_first", vec![Some(T0 + 1000)]),
                int("span_last", vec![Some(T0 + 3 * DAY + 6000)]),
                int("selected", vec![Some(3)]),
                int("latest_selected", vec![Some(T0 + 3 * DAY + 6000)]),
                Column::new("kept".into(), vec![Some(true)]),
            ],
        );
        write(
            dir,
            "windows",
            vec![
                int("window_start_ms", vec![Some(w1), Some(w2)]),
                int("executions", vec![Some(1), Some(2)]),
            ],
        );
        // Window 1: execution 1; window 2: execution 2 (3 is its
        // statement's); whole: 1 and 2.
        let l = "spark_catalog.default.lineitem";
        let o = "spark_catalog.default.orders";
        write(
            dir,
            "edges",
            vec![
                int("window_start_ms", vec![Some(w1), Some(w2), None]),
                text("left_table", vec![Some(l); 3]),
                text("left_columns", vec![Some(r#"["l_orderkey"]"#); 3]),
                text("right_table", vec![Some(o); 3]),
                text("right_columns", vec![Some(r#"["o_orderkey"]"#); 3]),
                int("frequency", vec![Some(1), Some(1), Some(frequency_whole)]),
                float("volume_known", vec![400.0, 0.0, 400.0]),
                float("right_rows_left_missing", vec![0.0, 20.0, 20.0]),
                float("left_rows_right_missing", vec![0.0, 0.0, 0.0]),
                int("left_missing", vec![Some(0), Some(1), Some(1)]),
                int("right_missing", vec![Some(0); 3]),
                int("both_missing", vec![Some(0); 3]),
                float("duration_sum", vec![100.0, 300.0, 400.0]),
                float("cpu_sum", vec![40.0, 80.0, 120.0]),
                float("scanned_bytes", vec![500.0, 200.0, 700.0]),
                int("smj_count", vec![Some(1), Some(0), Some(1)]),
                int("bhj_count", vec![Some(0), Some(1), Some(1)]),
                int("other_count", vec![Some(0); 3]),
                int(
                    "first_seen_ms",
                    vec![Some(T0 + 1000), Some(T0 + 3 * DAY + 5000), Some(T0 + 1000)],
                ),
                int(
                    "last_seen_ms",
                    vec![
                        Some(T0 + 1000),
                        Some(T0 + 3 * DAY + 5000),
                        Some(T0 + 3 * DAY + 5000),
                    ],
                ),
                text(
                    "executions",
                    vec![
                        Some(r#"[["app-a","1"]]"#),
                        Some(r#"[["app-a","2"]]"#),
                        Some(r#"[["app-a","1"],["app-a","2"]]"#),
                    ],
                ),
            ],
        );
        write(
            dir,
            "facts",
            vec![
                text("app_id", vec![Some("app-a"); 2]),
                int("execution_id", vec![Some(2), Some(3)]),
                int("root_execution_id", vec![None, Some(2)]),
                int(
                    "start_ms",
                    vec![Some(T0 + 3 * DAY + 5000), Some(T0 + 3 * DAY + 6000)],
                ),
                int("duration_ms", vec![Some(300), Some(50)]),
                int("cpu_ms", vec![Some(80), Some(5)]),
                int("run_ms", vec![Some(290), Some(40)]),
                text(
                    "tables",
                    vec![
                        Some(
                            r#"[["spark_catalog.default.lineitem",null,null],["spark_catalog.default.orders",20,200]]"#,
                        ),
                        Some(
                            r#"[["spark_catalog.default.lineitem",40,400],["spark_catalog.default.orders",10,100]]"#,
                        ),
                    ],
                ),
            ],
        );
        for (table, cols) in [
            (
                "scan_sizes",
                vec![
                    "table",
                    "partition_filters",
                    "data_filters",
                    "pushed_filters",
                ],
            ),
            ("scan_formats", vec!["table", "format", "first_app_id"]),
            ("scan_bytes", vec!["table", "bytes"]),
        ] {
            let mut c: Vec<Column> = cols.into_iter().map(|n| text(n, vec![])).collect();
            match table {
                "scan_sizes" => c.extend(["bytes", "rows", "files"].map(|n| int(n, vec![]))),
                "scan_formats" => {
                    c.push(Column::new(
                        "delta_index".into(),
                        Vec::<Option<bool>>::new(),
                    ));
                    c.extend(["first_execution_id", "first_scan_index"].map(|n| int(n, vec![])));
                }
                _ => {}
            }
            write(dir, table, c);
        }
        std::fs::create_dir_all(dir.join("apps")).unwrap();
        std::fs::create_dir_all(dir.join("errors")).unwrap();
    }

    fn tmp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!(
            "lakeaudit-aggregates-{name}-{}",
            std::process::id()
        ))
    }

    #[test]
    fn the_edge_tables_are_those_the_fold_builds_for_either_cost_and_any_fallback() {
        let dir = tmp("same");
        aggregates(&dir, 2);
        let w = crate::Workload::from(open(&dir, &TimeRange::default()).unwrap());
        assert_eq!(
            w.census,
            crate::exec::Census::of(&execs(), &TimeRange::default())
        );
        assert_eq!(w.apps.len(), 1);
        let a = w.aggregates().unwrap();
        let mut fallback = RowFallback::new();
        for (cost, fb) in [(CostMeasure::Duration, None), (CostMeasure::Cpu, Some(7))] {
            if let Some(rows) = fb {
                fallback.insert("spark_catalog.default.lineitem".into(), rows);
            }
            let built = EdgeTables::build(
                &execs(),
                TimeRange::default(),
                Some(DAY),
                cost,
                fallback.clone(),
            )
            .unwrap();
            let read = a.edge_tables(Some(DAY), cost, &fallback).unwrap();
            assert_eq!(read.span(), built.span());
            assert_eq!(read.whole().edges, built.whole().edges);
            assert_eq!(read.whole().executions, built.whole().executions);
            let (r, b) = (read.tables(), built.tables());
            assert_eq!(r.len(), 4, "two windows with executions, two empty between");
            assert_eq!(r.len(), b.len());
            for (r, b) in r.iter().zip(&b) {
                assert_eq!((r.window, r.executions), (b.window, b.executions));
                assert_eq!(r.edges, b.edges);
                let ids = |t: &EdgeTable| {
                    t.facts
                        .iter()
                        .map(|f| (f.execution_id, f.run_ms, f.tables.clone()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(ids(r), ids(b));
            }
            assert_eq!(read.latest().window, built.latest().window);
        }
        // The fallback multiplies in: 7 rows of lineitem × 20 of orders.
        let read = a
            .edge_tables(Some(DAY), CostMeasure::Duration, &fallback)
            .unwrap();
        assert_eq!(
            read.whole().edges[0].data_volume,
            (400.0 + 7.0 * 20.0) / 2.0
        );
        assert_eq!(read.whole().edges[0].volume_fallbacks, 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_options_and_figures_that_do_not_add_up_are_refused() {
        let dir = tmp("refused");
        aggregates(&dir, 2);
        let w = crate::Workload::from(open(&dir, &TimeRange::default()).unwrap());
        let e = w.aggregates().unwrap().edge_tables(
            Some(7 * DAY),
            CostMeasure::Duration,
            &RowFallback::new(),
        );
        let msg = e.err().unwrap().to_string();
        assert!(
            msg.contains("made with --window 1d, and this run is with --window 7d"),
            "{msg}"
        );
        let range = TimeRange {
            since: Some(5),
            until: None,
        };
        let msg = open(&dir, &range).err().unwrap().to_string();
        assert!(
            msg.contains("made without --since, and this run is with --since 5"),
            "{msg}"
        );
        // Reading executions from aggregates is an error, not an empty pass.
        let msg = w.each(|_| Ok::<_, Error>(())).err().unwrap().to_string();
        assert!(msg.contains("the executions are needed here"), "{msg}");
        // F that is not the number of executions listed: the file and row.
        aggregates(&dir, 3);
        let msg = open(&dir, &TimeRange::default()).err().unwrap().to_string();
        assert!(
            msg.contains(
                "edges/part-0.parquet: row 3: `frequency` 3 is not the number of `executions` (2)"
            ),
            "{msg}"
        );
        // A table that is missing, or not Parquet.
        aggregates(&dir, 2);
        std::fs::remove_dir_all(dir.join("windows")).unwrap();
        let msg = open(&dir, &TimeRange::default()).err().unwrap().to_string();
        assert!(msg.contains("no `windows/` table"), "{msg}");
        aggregates(&dir, 2);
        std::fs::write(dir.join("meta/part-0.parquet"), b"PAR1 not parquet").unwrap();
        let msg = open(&dir, &TimeRange::default()).err().unwrap().to_string();
        assert!(
            msg.contains("meta/part-0.parquet: not a lakeaudit aggregates Parquet file"),
            "{msg}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Rewrite `table`'s file of the aggregates under `dir` with `f`.
    fn rewrite(dir: &Path, table: &str, f: impl FnOnce(DataFrame) -> DataFrame) {
        use polars_io::SerReader;
        let p = dir.join(table).join("part-0.parquet");
        let df = polars_io::prelude::ParquetReader::new(std::fs::File::open(&p).unwrap())
            .finish()
            .unwrap();
        let mut df = f(df);
        ParquetWriter::new(std::fs::File::create(&p).unwrap())
            .finish(&mut df)
            .unwrap();
    }

    /// Issue 29.6: rows the job writes once, given twice, and sums of
    /// costs below zero. Before: each edge printed twice, negative costs
    /// printed.
    #[test]
    fn repeated_rows_and_negative_sums_are_refused() {
        let dir = tmp("repeated");
        let refused = |want: &str| {
            let msg = open(&dir, &TimeRange::default()).err().unwrap().to_string();
            assert!(msg.contains(want), "{msg}");
        };
        aggregates(&dir, 2);
        rewrite(&dir, "edges", |df| df.vstack(&df.slice(2, 1)).unwrap());
        refused("edges/part-0.parquet: row 4: the edge lineitem(l_orderkey) = orders(o_orderkey) in the whole selection is listed twice (first: ");
        aggregates(&dir, 2);
        rewrite(&dir, "edges", |df| df.vstack(&df.slice(0, 1)).unwrap());
        refused("row 4: the edge");
        for column in ["duration_sum", "cpu_sum", "volume_known", "scanned_bytes"] {
            aggregates(&dir, 2);
            rewrite(&dir, "edges", |mut df| {
                df.with_column(float(column, vec![40.0, -80.0, 120.0]))
                    .unwrap();
                df
            });
            refused(&format!(
                "edges/part-0.parquet: row 2: `{column}` is negative or not a finite sum"
            ));
        }
        aggregates(&dir, 2);
        rewrite(&dir, "facts", |df| df.vstack(&df.slice(1, 1)).unwrap());
        refused("facts/part-0.parquet: row 3: execution 3 of app-a is listed twice");
        for column in ["cpu_ms", "run_ms", "duration_ms"] {
            aggregates(&dir, 2);
            rewrite(&dir, "facts", |mut df| {
                df.with_column(int(column, vec![Some(5), Some(i64::MIN)]))
                    .unwrap();
                df
            });
            refused(&format!(
                "facts/part-0.parquet: row 2: `{column}` is negative"
            ));
        }
        // Times outside 2000..2100 place no window.
        aggregates(&dir, 2);
        rewrite(&dir, "windows", |mut df| {
            df.with_column(int(
                "window_start_ms",
                vec![Some(-9_000_000_000_000_000_000), Some(T0 + 2 * DAY + 6001)],
            ))
            .unwrap();
            df
        });
        refused("windows/part-0.parquet: row 1: the window starts at -9000000000000000000 ms, outside the plausible range 2000-01-01T00:00:00Z .. 2100-01-01T00:00:00Z");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn execution_lists_must_come_in_order() {
        let ok = ExecList::from_ordered([("a", 2), ("a", 7), ("b", 1)]).unwrap();
        assert_eq!(ok.strings(), ["a:2", "a:7", "b:1"]);
        assert!(ExecList::from_ordered([("a", 7), ("a", 2)]).is_none());
        assert!(ExecList::from_ordered([("b", 1), ("a", 2)]).is_none());
    }
}
