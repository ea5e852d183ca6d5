//! Did a rewrite pay? For every layout rewrite of an audited table inside
//! the logs' time range (its history: Delta `OPTIMIZE`, `ZORDER BY`,
//! `CLUSTER BY`, `REPLACE`; Iceberg `replace` snapshots of
//! `rewrite_data_files`), the files and bytes the engine really read per
//! run of the queries that ran both before and after it (the logs' own
//! metrics), and beside them what the what-if predicts: the same
//! simulation `whatif` runs, replayed on the snapshot before the rewrite
//! (time travel), with the rewrite's key.
//!
//! Queries are matched across the rewrite by a fingerprint
//! ([`fingerprint`]): the plan's root, its joins and its scans, each
//! scan's table and filters with literals and expression ids taken out.
//! `q01` with `l_shipdate >= 9190` and with `l_shipdate >= 9500` is one
//! query; adding a filter makes another.

use crate::workload::{
    rows_of, wanted_columns, Engines, Options, DEFAULT_BUILD_ROWS, DEFAULT_SAMPLE_ROWS,
};
use crate::ScanRow;
use graph::tables::short_table;
use parsers::record::QueryRecord;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use workload::exec::Exec;
use workload::ingest::Ingested;

/// The fingerprint of a query: its plan's root, joins and scans (table
/// and filters), with literals replaced by `?` and expression ids
/// (`#19`) dropped, so that runs of one query with other values match.
///
/// ```
/// let a = skipping::verify::strip_literals("l_shipdate#19 >= 9190, l_shipmode IN ('MAIL', 'SHIP')");
/// let b = skipping::verify::strip_literals("l_shipdate#77 >= 9500, l_shipmode IN ('AIR')");
/// assert_eq!(a, b);
/// assert_eq!(a, "l_shipdate >= ?, l_shipmode IN (?)");
/// ```
pub fn fingerprint(r: &QueryRecord) -> String {
    let mut scans: Vec<String> = r
        .scans
        .iter()
        .map(|s| {
            let filters = [&s.partition_filters, &s.pushed_filters, &s.data_filters]
                .iter()
                .map(|f| strip_literals(f.as_deref().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(" | ");
            format!(
                "{}@{}[{filters}]",
                s.table,
                s.branch.as_deref().unwrap_or("")
            )
        })
        .collect();
    scans.sort();
    let mut joins: Vec<String> = r
        .joins
        .iter()
        .map(|j| {
            format!(
                "{:?} {} {}={}",
                j.strategy,
                j.join_type,
                strip_literals(&j.left_keys.join(",")),
                strip_literals(&j.right_keys.join(","))
            )
        })
        .collect();
    joins.sort();
    format!(
        "{} ; {} ; {}",
        r.root_node.as_deref().unwrap_or_default(),
        joins.join(" ; "),
        scans.join(" ; ")
    )
}

/// A filter's text with its literals replaced by `?` (quoted strings,
/// numbers, dates), a list of them by one `?`, and expression ids
/// (`#19`, `#19L`) dropped.
pub fn strip_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        if c == '#' {
            // An expression id: digits and an optional type suffix.
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i < chars.len() && chars[i] == 'L' {
                i += 1;
            }
            continue;
        }
        if c == '\'' || c == '"' {
            // A quoted string ('' inside is an escaped quote).
            i += 1;
            while i < chars.len() {
                if chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if chars[i] == c {
                    if chars.get(i + 1) == Some(&c) {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i += 1;
            push_literal(&mut out);
            continue;
        }
        let starts_number = c.is_ascii_digit()
            || (c == '-'
                && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                && !out
                    .trim_end()
                    .ends_with(|p: char| ident(p) || p == ')' || p == '?'));
        if starts_number && !out.ends_with(ident) {
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || matches!(chars[i], '.' | '-' | ':' | '+')
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit))
            {
                i += 1;
            }
            push_literal(&mut out);
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Push `?`, unless it continues a list of literals (`?, ?` is `?`).
fn push_literal(out: &mut String) {
    if out.ends_with("?, ") {
        out.truncate(out.len() - 2);
        return;
    }
    if out.ends_with("?,") {
        out.truncate(out.len() - 1);
        return;
    }
    out.push('?');
}

/// What a rewrite changed, as the verdict says it.
/// Every output writes it as [`Verdict::as_str`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The recurring queries read fewer files per run after it.
    #[serde(rename = "paid")]
    Paid,
    /// They read as many files.
    #[serde(rename = "no change")]
    NoChange,
    /// They read more files.
    #[serde(rename = "read more")]
    ReadMore,
    /// No scan of the table after the rewrite: nothing to verify yet.
    #[serde(rename = "no scans since the rewrite")]
    NoScansSince,
    /// Scans after it, but no query that also ran before it (with counts
    /// on both sides).
    #[serde(rename = "no query ran both before and after")]
    NoRecurringQuery,
}

impl Verdict {
    /// As the outputs print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Paid => "paid",
            Verdict::NoChange => "no change",
            Verdict::ReadMore => "read more",
            Verdict::NoScansSince => "no scans since the rewrite",
            Verdict::NoRecurringQuery => "no query ran both before and after",
        }
    }
}

/// Where the rewrite's key (the columns it laid the rows out by) came
/// from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// The commit names it (Delta `zOrderBy`, `clusterBy`).
    Commit,
    /// The table's sort order or clustering columns as of the rewrite.
    Table,
    /// Neither names it: the column the recurring queries filter on whose
    /// file ranges the rewrite ordered best (lowest average depth of the
    /// new files, [`crate::quality`]).
    Inferred,
}

impl KeySource {
    /// As the outputs print it.
    pub fn as_str(self) -> &'static str {
        match self {
            KeySource::Commit => "commit",
            KeySource::Table => "table",
            KeySource::Inferred => "inferred",
        }
    }
}

/// One rewrite of one table, verified.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VerifyRow {
    /// The table (short name).
    pub table: String,
    /// `delta` or `iceberg`.
    pub format: String,
    /// The rewrite's version (Delta) or snapshot id (Iceberg).
    pub version: i64,
    /// When it was committed, epoch ms.
    pub rewrite_ms: i64,
    /// Its operation (`OPTIMIZE`, `replace`, …).
    pub operation: String,
    /// Data files it removed and added, and the bytes of those it
    /// removed (what it rewrote), from the commit's own metrics.
    pub files_removed: Option<u64>,
    /// See [`VerifyRow::files_removed`].
    pub files_added: Option<u64>,
    /// See [`VerifyRow::files_removed`].
    pub bytes_rewritten: Option<u64>,
    /// The rewrite's key (comma-separated) and where it came from.
    pub key: Option<String>,
    /// See [`VerifyRow::key`].
    pub key_source: Option<KeySource>,
    /// Scans of the table in the logs before and after the rewrite (until
    /// the table's next rewrite).
    pub scans_before: u64,
    /// See [`VerifyRow::scans_before`].
    pub scans_after: u64,
    /// Queries (fingerprints) that read the table, with counts, both
    /// before and after.
    pub queries_compared: u64,
    /// Runs of those queries before and after.
    pub runs_before: u64,
    /// See [`VerifyRow::runs_before`].
    pub runs_after: u64,
    /// Files of the table read per run of those queries (one run of each,
    /// each the mean of its runs), before and after, as the logs measured.
    pub files_per_run_before: Option<f64>,
    /// See [`VerifyRow::files_per_run_before`].
    pub files_per_run_after: Option<f64>,
    /// Bytes, likewise (where the logs give bytes).
    pub bytes_per_run_before: Option<f64>,
    /// See [`VerifyRow::bytes_per_run_before`].
    pub bytes_per_run_after: Option<f64>,
    /// What the what-if predicts for the same runs: on the snapshot before
    /// the rewrite as it was, and on the rewrite's layout simulated from
    /// that snapshot's rows.
    pub predicted_files_before: Option<f64>,
    /// See [`VerifyRow::predicted_files_before`].
    pub predicted_files_after: Option<f64>,
    /// See [`VerifyRow::predicted_files_before`].
    pub predicted_bytes_before: Option<f64>,
    /// See [`VerifyRow::predicted_files_before`].
    pub predicted_bytes_after: Option<f64>,
    /// Why there is no prediction, when there is none (the snapshot
    /// before is gone, no key, …).
    pub prediction_note: Option<String>,
    /// Scan counts left out: missing, negative, or above the file count of
    /// the snapshot the scan read.
    pub ignored_counts: u64,
    /// The verdict.
    pub verdict: Verdict,
}

impl VerifyRow {
    /// The measured change in files read per run, as a share of before
    /// (-0.9 is 90 % fewer).
    pub fn files_change(&self) -> Option<f64> {
        change(self.files_per_run_before, self.files_per_run_after)
    }
    /// The measured change in bytes read per run.
    pub fn bytes_change(&self) -> Option<f64> {
        change(self.bytes_per_run_before, self.bytes_per_run_after)
    }
    /// The predicted change in files read per run.
    pub fn predicted_files_change(&self) -> Option<f64> {
        change(self.predicted_files_before, self.predicted_files_after)
    }
}

fn change(before: Option<f64>, after: Option<f64>) -> Option<f64> {
    match (before, after) {
        (Some(b), Some(a)) if b > 0.0 => Some((a - b) / b),
        _ => None,
    }
}

/// What [`verify`] found: one row per rewrite, and the run's warnings and
/// errors (tables that could not be read, data files the prediction
/// could not read).
#[derive(Default)]
pub struct Verified {
    /// One row per rewrite of an audited table inside the logs' range.
    pub rows: Vec<VerifyRow>,
    /// Errors: inputs that could not be read.
    pub errors: Vec<String>,
    /// Warnings.
    pub warnings: Vec<String>,
}

/// How [`verify`] reads tables.
#[derive(Clone, Debug, Default)]
pub struct VerifyOptions {
    /// `--allow-outside-table`.
    pub allow_outside_table: bool,
    /// Rows read from the snapshot before for the simulation.
    pub sample_rows: Option<u64>,
}

/// One scan of the table, as measured: its execution's fingerprint, the
/// time, files and bytes read.
struct Measured {
    exec: usize,
    fingerprint: Arc<str>,
    start: i64,
}

/// Verify every rewrite of the tables under `paths` inside the logs'
/// time range; the problems met are returned, `data`'s are unchanged.
pub fn verify(data: &mut Ingested<Exec>, paths: &[PathBuf], opts: &VerifyOptions) -> Verified {
    let (errors, warnings) = (data.errors.len(), data.warnings.len());
    let mut out = verify_into(data, paths, opts);
    out.errors = data.errors.split_off(errors);
    out.warnings = data.warnings.split_off(warnings);
    out
}

fn verify_into(data: &mut Ingested<Exec>, paths: &[PathBuf], opts: &VerifyOptions) -> Verified {
    let mut out = Verified::default();
    // The logs' time range: the first start to the last end.
    let first = data.records.iter().filter_map(|e| e.record.start_ms).min();
    let last = data
        .records
        .iter()
        .filter_map(|e| e.record.end_ms.or(e.record.start_ms))
        .max();
    let (Some(first), Some(last)) = (first, last) else {
        return out;
    };
    let wanted = Arc::new(wanted_columns(data, &[]));
    let read_opts = |version: Option<i64>| tables::ReadOptions {
        allow_outside_table: opts.allow_outside_table,
        stats_columns: Some(Arc::clone(&wanted)),
        version,
        history: true,
        ..tables::ReadOptions::default()
    };
    let (read, errors) = tables::each::read_each(paths, &read_opts(None), |t| t);
    data.errors.extend(errors);
    let locations = data.locations.clone();
    let fingerprints: Vec<Arc<str>> = data
        .records
        .iter()
        .map(|e| Arc::from(fingerprint(&e.record)))
        .collect();
    let mut ok = Vec::new();
    for t in read {
        match t {
            Ok(t) => ok.push(t),
            Err(e) => data.errors.push(e.to_string()),
        }
    }
    for (id, t) in crate::workload::by_identity(ok, &locations, Some(&mut data.warnings)) {
        let rewrites: Vec<&tables::Commit> = t
            .history
            .iter()
            .filter(|c| c.rewrite && c.timestamp_ms.is_some_and(|ms| ms >= first && ms <= last))
            .collect();
        if rewrites.is_empty() {
            continue;
        }
        // The table's scans, by time.
        let mut scans: Vec<Measured> = Vec::new();
        for (k, e) in data.records.iter().enumerate() {
            let r = &e.record;
            if r.is_command || r.result_of.is_some() {
                continue;
            }
            let Some(start) = r.start_ms else { continue };
            if r.scans.iter().any(|s| locations.identity(&s.table) == id) {
                scans.push(Measured {
                    exec: k,
                    fingerprint: Arc::clone(&fingerprints[k]),
                    start,
                });
            }
        }
        // The file count of the snapshot current at a time: the history's
        // `total-data-files` is not kept, so each side is bounded by the
        // larger of the snapshots around the rewrite (read below).
        for (n, c) in rewrites.iter().enumerate() {
            let at = c.timestamp_ms.unwrap_or_default();
            let until = rewrites
                .get(n + 1)
                .and_then(|c| c.timestamp_ms)
                .unwrap_or(i64::MAX);
            let since = n
                .checked_sub(1)
                .and_then(|p| rewrites[p].timestamp_ms)
                .unwrap_or(i64::MIN);
            let before_snapshot = c.parent.map(|p| at_version(&t, &read_opts(Some(p))));
            let after_snapshot = at_version(&t, &read_opts(Some(c.version)));
            let files_of = |s: Option<&Result<tables::TableState, tables::Error>>| {
                s.and_then(|s| s.as_ref().ok())
                    .map_or(t.files.len() as u64, |s| s.files.len() as u64)
            };
            let (cap_before, cap_after) = (
                files_of(before_snapshot.as_ref()),
                files_of(Some(&after_snapshot)),
            );
            let mut ignored = 0u64;
            // Per fingerprint, per side: (runs, files, bytes, bytes runs).
            type Side = (u64, u64, u64, u64);
            let mut sides: BTreeMap<Arc<str>, (Side, Side)> = BTreeMap::new();
            let (mut scans_before, mut scans_after) = (0u64, 0u64);
            let mut before_execs: BTreeSet<usize> = BTreeSet::new();
            for m in scans.iter().filter(|m| m.start >= since && m.start < until) {
                let after = m.start >= at;
                let cap = if after { cap_after } else { cap_before };
                let r = &data.records[m.exec].record;
                let (mut files, mut bytes, mut ok, mut bytes_ok) = (0u64, 0u64, true, true);
                for s in r
                    .scans
                    .iter()
                    .filter(|s| locations.identity(&s.table) == id)
                {
                    if after {
                        scans_after += 1;
                    } else {
                        scans_before += 1;
                    }
                    match s.files_read.and_then(|n| u64::try_from(n).ok()) {
                        Some(n) if n <= cap => files += n,
                        _ => {
                            ignored += 1;
                            ok = false;
                        }
                    }
                    match s.bytes_read.and_then(|n| u64::try_from(n).ok()) {
                        Some(n) => bytes += n,
                        None => bytes_ok = false,
                    }
                }
                if !ok {
                    continue;
                }
                if !after {
                    before_execs.insert(m.exec);
                }
                let e = sides.entry(Arc::clone(&m.fingerprint)).or_default();
                let side = if after { &mut e.1 } else { &mut e.0 };
                side.0 += 1;
                side.1 += files;
                if bytes_ok {
                    side.2 += bytes;
                    side.3 += 1;
                }
            }
            let recurring: Vec<(&Arc<str>, &(Side, Side))> = sides
                .iter()
                .filter(|(_, (b, a))| b.0 > 0 && a.0 > 0)
                .collect();
            fn mean(sum: u64, n: u64) -> f64 {
                sum as f64 / n as f64
            }
            let per_run = |f: fn(&(Side, Side)) -> Option<f64>| -> Option<f64> {
                if recurring.is_empty() {
                    return None;
                }
                recurring.iter().map(|(_, s)| f(s)).sum()
            };
            let files_before = per_run(|(b, _)| Some(mean(b.1, b.0)));
            let files_after = per_run(|(_, a)| Some(mean(a.1, a.0)));
            let bytes_before = per_run(|(b, _)| (b.3 > 0).then(|| mean(b.2, b.3)));
            let bytes_after = per_run(|(_, a)| (a.3 > 0).then(|| mean(a.2, a.3)));
            let verdict = if scans_after == 0 {
                Verdict::NoScansSince
            } else if recurring.is_empty() {
                Verdict::NoRecurringQuery
            } else {
                match files_after.partial_cmp(&files_before) {
                    Some(std::cmp::Ordering::Less) => Verdict::Paid,
                    Some(std::cmp::Ordering::Greater) => Verdict::ReadMore,
                    _ => Verdict::NoChange,
                }
            };
            let mut row = VerifyRow {
                table: short_table(&id),
                format: t.format().as_str().into(),
                version: c.version,
                rewrite_ms: at,
                operation: c.operation.clone(),
                files_removed: c.files_removed,
                files_added: c.files_added,
                bytes_rewritten: c.bytes_removed,
                key: None,
                key_source: None,
                scans_before,
                scans_after,
                queries_compared: recurring.len() as u64,
                runs_before: recurring.iter().map(|(_, (b, _))| b.0).sum(),
                runs_after: recurring.iter().map(|(_, (_, a))| a.0).sum(),
                files_per_run_before: files_before,
                files_per_run_after: files_after,
                bytes_per_run_before: bytes_before,
                bytes_per_run_after: bytes_after,
                predicted_files_before: None,
                predicted_files_after: None,
                predicted_bytes_before: None,
                predicted_bytes_after: None,
                prediction_note: None,
                ignored_counts: ignored,
                verdict,
            };
            // The prediction: the rewrite's key, simulated on the snapshot
            // before, for the runs before of the recurring queries.
            let wanted: BTreeSet<&Arc<str>> = recurring.iter().map(|(f, _)| *f).collect();
            let runs: BTreeSet<Run> = before_execs
                .iter()
                .filter(|&&k| wanted.contains(&fingerprints[k]))
                .map(|&k| {
                    let r = &data.records[k].record;
                    (r.app_id.clone(), r.execution_id)
                })
                .collect();
            let key = key_of(c, after_snapshot.as_ref().ok(), data, &runs, &id);
            match (&before_snapshot, key) {
                _ if runs.is_empty() => {
                    row.prediction_note = Some("no query ran both before and after".into())
                }
                (None, _) => {
                    row.prediction_note = Some("the rewrite has no snapshot before it".into())
                }
                (Some(Err(e)), _) => {
                    row.prediction_note = Some(format!(
                        "the snapshot before the rewrite cannot be read ({e}); time travel needs its files (kept until VACUUM or expire_snapshots)"
                    ))
                }
                (Some(Ok(_)), None) => {
                    row.prediction_note = Some(
                        "neither the commit nor the table names the rewrite's key, and no filtered column is ordered by it".into(),
                    )
                }
                (Some(Ok(_)), Some((key, source))) => {
                    row.key = Some(key.join(","));
                    row.key_source = Some(source);
                    let before = at_version(&t, &read_opts(c.parent));
                    match before {
                        Ok(mut before) => {
                            // The history is the table's, not the snapshot's:
                            // a Delta snapshot read by time travel lists only
                            // the commits up to it, so every later scan would
                            // seem to read it, and the calibration would fit
                            // the scans after the rewrite to the files before.
                            before.history = t.history.clone();
                            let after = after_snapshot.ok().map(|mut a| {
                                a.history = t.history.clone();
                                a
                            });
                            let p = Prediction {
                                key: &key,
                                commit: c,
                                runs: &runs,
                            };
                            predict(data, before, after, &p, opts, &mut row)
                        }
                        Err(e) => row.prediction_note = Some(e.to_string()),
                    }
                }
            }
            out.rows.push(row);
        }
    }
    out.rows
        .sort_by(|a, b| (&a.table, a.rewrite_ms).cmp(&(&b.table, b.rewrite_ms)));
    out
}

/// Table `t` as of `opts.version` (time travel), under its name.
fn at_version(
    t: &tables::TableState,
    opts: &tables::ReadOptions,
) -> Result<tables::TableState, tables::Error> {
    let found = tables::Found {
        dir: t.location.clone(),
        format: t.format(),
        metadata: None,
        name: t.name.clone(),
    };
    tables::read_table(&found, opts)
}

/// The rewrite's key: the commit's, else the table's sort order or
/// clustering columns as of the rewrite, else the column the runs filter
/// on that the new files are ordered by best.
fn key_of(
    c: &tables::Commit,
    after: Option<&tables::TableState>,
    data: &Ingested<Exec>,
    runs: &BTreeSet<Run>,
    id: &str,
) -> Option<(Vec<String>, KeySource)> {
    if !c.key.is_empty() {
        return Some((c.key.clone(), KeySource::Commit));
    }
    let after = after?;
    let plain: Vec<String> = after
        .clustering_columns
        .iter()
        .filter(|c| after.columns.iter().any(|(n, _)| n == *c))
        .cloned()
        .collect();
    if !plain.is_empty() && plain.len() == after.clustering_columns.len() {
        return Some((plain, KeySource::Table));
    }
    // The columns the runs' scans of the table filter on.
    let mut cols = BTreeSet::new();
    for e in &data.records {
        let r = &e.record;
        if !runs.contains(&(r.app_id.clone(), r.execution_id)) {
            continue;
        }
        for s in &r.scans {
            if data.locations.identity(&s.table) != id {
                continue;
            }
            let preds = crate::scan_predicates(s, &after.columns);
            for p in &preds {
                crate::range_columns(p, &mut cols);
            }
        }
    }
    cols.iter()
        .filter_map(|c| crate::quality::quality(after, c))
        .filter(|q| q.files_with_bounds > 1)
        .min_by(|a, b| {
            a.average_depth
                .total_cmp(&b.average_depth)
                .then(a.column.cmp(&b.column))
        })
        .map(|q| (vec![q.column], KeySource::Inferred))
}

/// A run: application id and execution id.
type Run = (String, u64);

/// What a prediction is of: the rewrite's key, its commit, and the runs
/// before and after it of the queries that ran on both sides.
struct Prediction<'a> {
    key: &'a [String],
    commit: &'a tables::Commit,
    runs: &'a BTreeSet<Run>,
}

/// The what-if on the snapshot before: its files as they were, and the
/// key simulated from its rows, for the runs before, under the engine
/// model the table's logged counts fit on both snapshots (`after`: the
/// rewrite's own; [`crate::calibrate::merge`]).
fn predict(
    data: &mut Ingested<Exec>,
    before: tables::TableState,
    after: Option<tables::TableState>,
    p: &Prediction,
    opts: &VerifyOptions,
    row: &mut VerifyRow,
) {
    let (key, c, runs) = (p.key, p.commit, p.runs);
    let name = before.name.clone();
    // The rewrite's own target where its commit names one (delta-rs),
    // else what it wrote per file.
    let written = match (c.bytes_added, c.files_added) {
        (Some(b), Some(n)) if n > 0 && b > 0 => Some(b.div_ceil(n)),
        _ => None,
    };
    let target_size = c.target_size.or(written);
    // The rewriter the commit names (deltalake's `engineInfo`, Iceberg's
    // `engine-name`), else the table's usual one.
    let named = c
        .engine
        .as_deref()
        .and_then(|e| crate::rewriter::of_engine(e, before.format()));
    let mut o = Options {
        engines: Engines::Auto,
        build_rows: DEFAULT_BUILD_ROWS,
        sample_rows: opts.sample_rows.unwrap_or(DEFAULT_SAMPLE_ROWS),
        current_only: true,
        allow_outside_table: opts.allow_outside_table,
        rewriter: named.map_or(crate::rewriter::RewriterChoice::Auto, Into::into),
        target_size,
    };
    let (errors_before, warnings_before) = (data.errors.len(), data.warnings.len());
    // The scans after the rewrite against its own snapshot: calibration
    // only (their warnings are the prediction's own, said below).
    let calibrated_after = after
        .map(|a| rows_of(data, &o, &[], (vec![Ok(a)], Vec::new()), false).calibration)
        .unwrap_or_default();
    data.errors.truncate(errors_before);
    data.warnings.truncate(warnings_before);
    // Every model on the snapshot before and the key; the rows of the
    // model that fits both sides are kept.
    o.engines = Engines::Fixed(crate::calibrate::MODELS.to_vec());
    o.current_only = false;
    let layout = vec![(name, key.to_vec())];
    let mut w = rows_of(data, &o, &layout, (vec![Ok(before)], Vec::new()), true);
    let fits: BTreeMap<(String, crate::calibrate::Runner), crate::calibrate::Calibration> = w
        .calibration
        .iter()
        .map(|b| {
            let both = calibrated_after
                .iter()
                .find(|a| a.table_id == b.table_id && a.runner == b.runner)
                .map_or_else(|| b.clone(), |a| crate::calibrate::merge(b, a));
            ((b.table_id.clone(), b.runner), both)
        })
        .collect();
    let runner: BTreeMap<Run, crate::calibrate::Runner> = data
        .records
        .iter()
        .map(|e| &e.record)
        .filter(|r| runs.contains(&(r.app_id.clone(), r.execution_id)))
        .map(|r| {
            (
                (r.app_id.clone(), r.execution_id),
                crate::calibrate::Runner::of(r),
            )
        })
        .collect();
    w.rows.retain(|r| {
        let Some(&by) = runner.get(&(r.app_id.clone(), r.execution_id)) else {
            return false;
        };
        let model = fits
            .get(&(r.table_id.clone(), by))
            .map_or(by.default_model(), |f| f.model().0);
        r.engine == model
    });
    let models: Vec<String> = fits
        .values()
        .map(|f| match (f.model(), f.share_exact()) {
            ((m, true), Some(share)) => format!(
                "engine model {} ({}: {:.0}% of {} scans before and after exact)",
                m.as_str(),
                f.runner.as_str(),
                share * 100.0,
                f.scans_compared
            ),
            ((m, _), _) => format!(
                "engine model {} ({}: the default rule, no logged count to fit)",
                m.as_str(),
                f.runner.as_str()
            ),
        })
        .collect();
    let of = |layout: &crate::Layout| -> Vec<&ScanRow> {
        w.rows
            .iter()
            .filter(|r| &r.layout == layout && runs.contains(&(r.app_id.clone(), r.execution_id)))
            .collect()
    };
    let (now, sim) = (
        of(&crate::Layout::Current),
        of(&crate::Layout::Key(key.to_vec())),
    );
    if sim.is_empty() {
        let why: Vec<String> = data.errors[errors_before..]
            .iter()
            .chain(&data.warnings[warnings_before..])
            .cloned()
            .collect();
        row.prediction_note = Some(if why.is_empty() {
            "the layout could not be simulated".into()
        } else {
            format!("the layout could not be simulated: {}", why.join("; "))
        });
        return;
    }
    // Per fingerprint, the mean per run, summed: as the measurement.
    let prints: BTreeMap<Run, String> = data
        .records
        .iter()
        .map(|e| &e.record)
        .filter(|r| runs.contains(&(r.app_id.clone(), r.execution_id)))
        .map(|r| ((r.app_id.clone(), r.execution_id), fingerprint(r)))
        .collect();
    let per_run = |rows: &[&ScanRow], f: fn(&ScanRow) -> u64| -> f64 {
        let mut by: BTreeMap<&str, (BTreeSet<Run>, u64)> = BTreeMap::new();
        for r in rows {
            let Some(k) = prints.get(&(r.app_id.clone(), r.execution_id)) else {
                continue;
            };
            let k = k.as_str();
            let e = by.entry(k).or_default();
            e.0.insert((r.app_id.clone(), r.execution_id));
            e.1 += f(r);
        }
        by.values()
            .map(|(runs, sum)| *sum as f64 / runs.len().max(1) as f64)
            .sum()
    };
    row.predicted_files_before = Some(per_run(&now, |r| r.files_read));
    row.predicted_files_after = Some(per_run(&sim, |r| r.files_read));
    row.predicted_bytes_before = Some(per_run(&now, |r| r.bytes_read));
    row.predicted_bytes_after = Some(per_run(&sim, |r| r.bytes_read));
    let rewriter = sim.iter().find_map(|r| r.rewriter).map(|r| {
        let whose = if named.is_some() {
            "the commit's engine"
        } else {
            "the table's usual rewriter"
        };
        format!("as {} writes it ({whose})", r.as_str())
    });
    let size = match (c.target_size, written) {
        (Some(t), _) => Some(format!(
            "with the rewrite's own target file size ({t} bytes, as its commit names it)"
        )),
        (None, Some(w)) => Some(format!(
            "with the rewrite's own file size ({w} bytes per file written)"
        )),
        (None, None) => None,
    };
    let how: Vec<String> = rewriter.into_iter().chain(size).chain(models).collect();
    if !how.is_empty() {
        row.prediction_note = Some(format!("simulated {}", how.join(", ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_ids_are_taken_out() {
        assert_eq!(
            strip_literals("isnotnull(l_shipdate#19), (l_shipdate#19 >= 1995-03-01)"),
            "isnotnull(l_shipdate), (l_shipdate >= ?)"
        );
        assert_eq!(
            strip_literals("c_name = 'O''Brien' AND x IN (1, 2, 3) AND y > -4.5"),
            "c_name = ? AND x IN (?) AND y > ?"
        );
        // Identifiers with digits stay.
        assert_eq!(strip_literals("l2_col1 < 7"), "l2_col1 < ?");
        assert_ne!(strip_literals("a < 1"), strip_literals("a > 1"));
    }
}
