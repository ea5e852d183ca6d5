//! Delta Lake: replay `_delta_log` from the last checkpoint through the later
//! JSON commits (`PROTOCOL.md`, "Action Reconciliation").
//!
//! The live files are kept in one map keyed by path, the only copy of each
//! path; when the replay ends the map is drained into [`DataFile`]s that
//! keep a path only when the file has a deletion vector.

pub(crate) mod actions;
pub(crate) mod parquet;

use crate::dv;
use crate::error::{Error, Reason, Result};
use crate::model::{
    DataFile, Dv, FileDeletes, Format, PartitionField, Partitions, TableState, Violation,
};
use crate::scope::{Scope, MAX_DV_BYTES, MAX_JSON_BYTES, MAX_POINTER_BYTES};
use crate::stats::{self, StatsColumn};
use crate::{Found, ReadOptions};
use actions::{Action, DvDescriptor};
use parquet::Pass;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Component;
use std::path::{Path, PathBuf};

/// One live file during the replay.
struct Entry {
    partition: u32,
    size: u64,
    rows: Option<u64>,
    seq: i64,
    clustered: bool,
    dv: Option<DvDescriptor>,
    /// The `stats` JSON, kept when statistics are read.
    stats: Option<Box<str>>,
}

#[derive(Default)]
struct Replay {
    files: HashMap<Box<str>, Entry>,
    partitions: Partitions,
    partition_columns: Vec<String>,
    schema: Option<String>,
    configuration: BTreeMap<String, String>,
    protocol: actions::Protocol,
    clustering: Option<Vec<String>>,
    /// Sidecars named by the checkpoint, with the part naming each.
    sidecars: Vec<(String, PathBuf)>,
    seq: i64,
    /// Keep each add's `stats` JSON.
    keep_stats: bool,
    /// Sums over the live files, checked: a sum past 2^64 is an error.
    bytes: u64,
    rows: u64,
}

impl Replay {
    fn apply(&mut self, action: Action<'_>, file: &Path, line: Option<u64>) -> Result<()> {
        match action {
            Action::Add(a) => {
                let values: Vec<Option<&str>> = self
                    .partition_columns
                    .iter()
                    .map(|c| {
                        a.partition_values
                            .iter()
                            .find(|(k, _)| k.as_ref() == c.as_str())
                            .and_then(|(_, v)| v.as_deref())
                    })
                    .collect();
                let partition = self.partitions.intern(0, &values);
                let size = a.size.unwrap_or(0).max(0) as u64;
                let entry = Entry {
                    partition,
                    size,
                    rows: a.num_records.map(|n| n.max(0) as u64),
                    seq: self.seq,
                    clustered: a.clustered,
                    dv: a.dv,
                    stats: if self.keep_stats {
                        a.stats.map(|s| s.into_owned().into_boxed_str())
                    } else {
                        None
                    },
                };
                let old = self.files.get(a.path.as_ref());
                let (old_bytes, old_rows) = old.map_or((0, 0), |e| (e.size, e.rows.unwrap_or(0)));
                let bytes = (self.bytes - old_bytes).checked_add(entry.size);
                let rows = (self.rows - old_rows).checked_add(entry.rows.unwrap_or(0));
                let (Some(bytes), Some(rows)) = (bytes, rows) else {
                    return Err(Error::Json {
                        path: file.to_path_buf(),
                        line,
                        reason: format!(
                            "add of {}: the live files' size or numRecords sum overflows 64 bits",
                            a.path
                        ),
                    });
                };
                (self.bytes, self.rows) = (bytes, rows);
                match self.files.get_mut(a.path.as_ref()) {
                    Some(e) => *e = entry,
                    None => {
                        self.files
                            .insert(a.path.into_owned().into_boxed_str(), entry);
                    }
                }
            }
            Action::Remove(r) => {
                // A file's identity is (path, DV id): a remove of the old DV
                // must not drop the add that replaced it in the same commit.
                let id = r.dv.as_ref().map(DvDescriptor::unique_id);
                if let Some(e) = self.files.get(r.path.as_ref()) {
                    if e.dv.as_ref().map(DvDescriptor::unique_id) == id {
                        self.bytes -= e.size;
                        self.rows -= e.rows.unwrap_or(0);
                        self.files.remove(r.path.as_ref());
                    }
                }
            }
            Action::MetaData(m) => {
                // An overwrite may change the partition columns in the same
                // commit that removes every file: files added before keep the
                // values they were interned with.
                if let Some(cols) = m.partition_columns {
                    self.partition_columns = cols;
                }
                if m.schema_string.is_some() {
                    self.schema = m.schema_string;
                }
                self.configuration = m
                    .configuration
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|(k, v)| v.map(|v| (k, v)))
                    .collect();
            }
            Action::Protocol(p) => self.protocol = p,
            Action::Domain(d) if d.domain == "delta.clustering" => {
                if d.removed == Some(true) {
                    self.clustering = None;
                } else {
                    let conf = d.configuration.unwrap_or_default();
                    let cols =
                        actions::clustering_columns(&conf).map_err(|reason| Error::Json {
                            path: file.to_path_buf(),
                            line,
                            reason: format!("delta.clustering domain: {reason}"),
                        })?;
                    self.clustering = Some(cols);
                }
            }
            Action::Sidecar(s) => self.sidecars.push((s.path, file.to_path_buf())),
            Action::Domain(_) | Action::Other => {}
        }
        Ok(())
    }
}

/// What the log directory holds.
#[derive(Default)]
struct Listing {
    commits: BTreeMap<u64, PathBuf>,
    /// Checkpoint files by version: (part, parts) for multi-part, (1, 1)
    /// for classic and v2.
    checkpoints: BTreeMap<u64, Vec<(u32, u32, PathBuf)>>,
    crcs: BTreeMap<u64, PathBuf>,
}

fn list_log(log: &Path) -> Result<Listing> {
    let mut l = Listing::default();
    for (name, path) in crate::source::list_dir(log)? {
        let Some((digits, rest)) = name.split_at_checked(20) else {
            continue;
        };
        let Ok(version) = digits.parse::<u64>() else {
            continue;
        };
        if rest == ".json" {
            l.commits.insert(version, path);
        } else if rest == ".crc" {
            l.crcs.insert(version, path);
        } else if let Some(cp) = rest.strip_prefix(".checkpoint.") {
            let parts: Vec<&str> = cp.split('.').collect();
            match parts.as_slice() {
                ["parquet"] => l.checkpoints.entry(version).or_default().push((1, 1, path)),
                [k, n, "parquet"] if k.len() == 10 && n.len() == 10 => {
                    if let (Ok(k), Ok(n)) = (k.parse(), n.parse()) {
                        l.checkpoints.entry(version).or_default().push((k, n, path));
                    }
                }
                [_uuid, "parquet" | "json"] => {
                    l.checkpoints.entry(version).or_default().push((1, 1, path))
                }
                _ => {}
            }
        }
    }
    for parts in l.checkpoints.values_mut() {
        parts.sort();
    }
    Ok(l)
}

/// The `commitInfo` of every commit file the log holds from version
/// `from` on, oldest first.
/// A commit without one, or whose first lines do not parse, is left out
/// (the replay reports a malformed commit it reads), and so is one that
/// cannot be opened (the replay reports those it needs; a refused path
/// is never opened).
fn history(listing: &Listing, from: u64, scope: &Scope) -> Vec<crate::Commit> {
    let mut out = Vec::new();
    for (&v, path) in listing.commits.range(from..) {
        let Ok((f, _)) = scope.open(path, "commit", path, MAX_JSON_BYTES) else {
            continue;
        };
        let rd = BufReader::new(f.take(MAX_JSON_BYTES));
        for line in rd.lines() {
            let Ok(line) = line else { break };
            if !line.trim_start().starts_with("{\"commitInfo\"") {
                continue;
            }
            if let Ok(info) = serde_json::from_str::<serde_json::Value>(&line) {
                out.push(commit_info(v, &info["commitInfo"]));
            }
            break;
        }
    }
    out
}

/// A commit's `commitInfo` as a [`crate::Commit`]: Delta Spark's
/// `operationMetrics` (`numAddedFiles`, `numRemovedBytes`, … as strings)
/// and delta-rs' (`numFilesAdded`, `filesAdded.totalSize`, …).
fn commit_info(version: u64, info: &serde_json::Value) -> crate::Commit {
    use serde_json::Value;
    let number = |v: &Value| match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    let m = &info["operationMetrics"];
    let metric = |names: &[&str]| names.iter().find_map(|n| number(&m[*n]));
    // delta-rs: `filesAdded` is a JSON text with `totalSize`.
    let total = |name: &str| {
        m[name]
            .as_str()
            .and_then(|s| serde_json::from_str::<Value>(s).ok())
            .and_then(|v| number(&v["totalSize"]))
    };
    let operation = info["operation"].as_str().unwrap_or_default().to_string();
    let params = &info["operationParameters"];
    let key = ["zOrderBy", "clusterBy"]
        .iter()
        .find_map(|k| {
            let v = &params[*k];
            let list = match v {
                Value::String(s) => serde_json::from_str::<Vec<String>>(s).ok(),
                Value::Array(a) => a.iter().map(|c| c.as_str().map(str::to_string)).collect(),
                _ => None,
            };
            list.filter(|l| !l.is_empty())
        })
        .unwrap_or_default();
    let rewrite = matches!(
        operation.as_str(),
        "OPTIMIZE"
            | "ZORDER BY"
            | "CLUSTER BY"
            | "REPLACE TABLE"
            | "REPLACE TABLE AS SELECT"
            | "CREATE OR REPLACE TABLE"
            | "CREATE OR REPLACE TABLE AS SELECT"
    );
    crate::Commit {
        version: version as i64,
        parent: version.checked_sub(1).map(|p| p as i64),
        timestamp_ms: info["timestamp"].as_i64(),
        operation,
        rewrite,
        files_removed: metric(&["numRemovedFiles", "numFilesRemoved"]),
        files_added: metric(&["numAddedFiles", "numFilesAdded"]),
        bytes_removed: metric(&["numRemovedBytes"]).or_else(|| total("filesRemoved")),
        bytes_added: metric(&["numAddedBytes"]).or_else(|| total("filesAdded")),
        key,
        engine: info["engineInfo"].as_str().map(crate::model::engine_text),
        target_size: number(&params["targetSize"]).filter(|&n| n > 0),
    }
}

/// A checkpoint is complete when it is one file or all `N` parts of one
/// multi-part set are present.
fn complete(parts: &[(u32, u32, PathBuf)]) -> Option<Vec<PathBuf>> {
    if let Some((_, _, p)) = parts.iter().find(|(_, n, _)| *n == 1) {
        return Some(vec![p.clone()]);
    }
    let n = parts.first()?.1;
    let set: Vec<_> = parts.iter().filter(|(_, m, _)| *m == n).collect();
    ((1..=n).all(|k| set.iter().any(|(j, _, _)| *j == k)))
        .then(|| set.iter().map(|(_, _, p)| p.clone()).collect())
}

#[derive(serde::Deserialize)]
struct LastCheckpoint {
    version: u64,
    #[serde(default)]
    parts: Option<u32>,
}

/// Apply the actions of a commit or JSON checkpoint; with `pass`, only
/// that kind (see [`parquet::Pass`]).
fn read_json_lines(path: &Path, r: &mut Replay, pass: Option<Pass>, scope: &Scope) -> Result<()> {
    let (f, _) = scope.open(path, "commit", path, MAX_JSON_BYTES)?;
    let mut rd = BufReader::new(f.take(MAX_JSON_BYTES));
    let mut line = String::new();
    let mut n = 0u64;
    loop {
        line.clear();
        let got = rd.read_line(&mut line).map_err(|e| Error::io(path, e))?;
        if got == 0 {
            break;
        }
        n += 1;
        let text = line.trim_end();
        if text.is_empty() {
            continue;
        }
        let action = actions::parse_line(text).map_err(|reason| Error::Json {
            path: path.to_path_buf(),
            line: Some(n),
            reason: reason.to_string(),
        })?;
        let file_action = matches!(action, Action::Add(_) | Action::Remove(_));
        match pass {
            Some(Pass::NonFile) if file_action => continue,
            Some(Pass::File) if !file_action => continue,
            _ => {}
        }
        r.apply(action, path, Some(n))?;
    }
    Ok(())
}

/// Where a sidecar named in a v2 checkpoint lives: a bare name (what Spark
/// writes) is under `_delta_log/_sidecars/`, a `file://` URI or absolute
/// path is taken as it is.
fn sidecar_path(log: &Path, s: &str) -> PathBuf {
    if s.contains('/') && !s.starts_with("_sidecars/") {
        PathBuf::from(s.strip_prefix("file://").unwrap_or(s))
    } else {
        log.join("_sidecars")
            .join(s.strip_prefix("_sidecars/").unwrap_or(s))
    }
}

/// Replay a checkpoint: the non-file actions of every part first (a
/// multi-part checkpoint may hold `metaData` in any part, and the partition
/// values of every `add` are read against its partition columns), then the
/// file actions of every part, then those of the v2 sidecars the parts
/// name.
fn read_checkpoint(log: &Path, files: &[PathBuf], r: &mut Replay, scope: &Scope) -> Result<()> {
    for pass in [Pass::NonFile, Pass::File] {
        for f in files {
            if f.extension().is_some_and(|e| e == "json") {
                read_json_lines(f, r, Some(pass), scope)?;
            } else {
                let file = scope.open(f, "checkpoint part", f, u64::MAX)?;
                parquet::read_actions(f, file, pass, &mut |a| r.apply(a, f, None))?;
            }
        }
    }
    let sidecars = std::mem::take(&mut r.sidecars);
    for (s, part) in sidecars {
        let p = sidecar_path(log, &s);
        let file = scope.open(&p, "sidecar", &part, u64::MAX)?;
        parquet::read_actions(&p, file, Pass::File, &mut |a| r.apply(a, &p, None))?;
    }
    Ok(())
}

/// `p` with `.` and `..` removed without touching the disk (`..` above
/// the start is kept).
fn lexical(p: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// Without opening it: whether a DV path lies lexically under the table
/// (what `--deep` checks again on the resolved path before opening).
fn dv_inside(scope: &Scope, dir: &Path, p: &Path) -> bool {
    let p = lexical(p);
    p.starts_with(lexical(dir)) || p.starts_with(scope.root())
}

/// Where a DV lives, as `(file, offset)`; `None` for inline DVs.
fn dv_file(table: &Path, d: &DvDescriptor) -> std::result::Result<Option<PathBuf>, Reason> {
    match d.storage_type.as_str() {
        "i" => Ok(None),
        "u" => {
            let text = &d.path_or_inline;
            if text.len() < 20 {
                return Err(Reason::DvPathTooShort { text: text.clone() });
            }
            let (prefix, z) = text.split_at(text.len() - 20);
            let uuid: [u8; 16] = dv::z85_decode(z)?
                .try_into()
                .map_err(|_| Reason::UuidLength)?;
            let name = format!("deletion_vector_{}.bin", dv::uuid_text(&uuid));
            Ok(Some(if prefix.is_empty() {
                table.join(name)
            } else {
                table.join(prefix).join(name)
            }))
        }
        "p" => {
            let p = d.path_or_inline.as_str();
            Ok(Some(PathBuf::from(p.strip_prefix("file://").unwrap_or(p))))
        }
        other => Err(Reason::DvStorageType {
            storage: other.to_string(),
        }),
    }
}

fn check_dv(
    scope: &Scope,
    table: &Path,
    data_file: &Path,
    d: &DvDescriptor,
) -> Result<dv::BitmapSummary> {
    let dv_err = |path: &Path, reason: &dyn std::fmt::Display| Error::DeletionVector {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let size = usize::try_from(d.size).unwrap_or(0);
    match dv_file(table, d).map_err(|e| dv_err(table, &e))? {
        None => {
            let mut bytes = dv::z85_decode(&d.path_or_inline).map_err(|e| dv_err(table, &e))?;
            // Z85 works on 4-byte groups: the text may carry padding past
            // `sizeInBytes`.
            if size > bytes.len() {
                return Err(dv_err(
                    table,
                    &format!(
                        "inline DV of {} bytes is shorter than its sizeInBytes {size}",
                        bytes.len()
                    ),
                ));
            }
            bytes.truncate(size);
            dv::parse_magic_bitmap(&bytes).map_err(|e| dv_err(table, &format!("inline DV: {e}")))
        }
        Some(p) => {
            let (mut f, len) = scope.open(&p, "deletion vector file", data_file, u64::MAX)?;
            let offset = d.offset.unwrap_or(0).max(0) as u64;
            // The declared size against the real file before allocating:
            // a sizeInBytes of 2^40 on a 48-byte file is refused here.
            let size = u64::try_from(d.size)
                .ok()
                .filter(|&s| s <= MAX_DV_BYTES)
                .ok_or_else(|| {
                    dv_err(
                        &p,
                        &format!(
                            "sizeInBytes {} is negative or over the {MAX_DV_BYTES}-byte cap",
                            d.size
                        ),
                    )
                })?;
            if offset.checked_add(size + 8).is_none_or(|end| end > len) {
                return Err(dv_err(
                    &p,
                    &format!(
                        "deletion vector at offset {offset} of sizeInBytes {size} runs past the end of the file ({len} bytes)"
                    ),
                ));
            }
            let io = |e: std::io::Error| Error::io(&p, e);
            f.seek(SeekFrom::Start(offset)).map_err(io)?;
            let mut buf = Vec::with_capacity(size as usize + 8);
            f.by_ref()
                .take(size + 8)
                .read_to_end(&mut buf)
                .map_err(io)?;
            dv::check_framed(&buf, 0, Some(size as usize))
                .map_err(|e| dv_err(&p, &format!("deletion vector at offset {offset}: {e}")))
        }
    }
}

#[derive(serde::Deserialize)]
struct Crc {
    #[serde(rename = "numFiles")]
    num_files: Option<u64>,
    #[serde(rename = "tableSizeBytes")]
    table_size_bytes: Option<u64>,
}

/// Read a Delta table's current state.
pub(crate) fn read(found: &Found, opts: &ReadOptions) -> Result<TableState> {
    let dir = &found.dir;
    let scope = Scope::new(dir, opts.allow_outside_table)?;
    let log = dir.join("_delta_log");
    let mut listing = list_log(&log)?;
    // The whole history (also when an older version is read), when asked
    // for; else it is read from the checkpoint on, below.
    let whole_history = opts.history.then(|| history(&listing, 0, &scope));
    // Time travel: nothing after the version asked for.
    if let Some(v) = opts.version {
        let gone = |reason: &str| Error::VersionGone {
            path: dir.clone(),
            version: v,
            reason: reason.into(),
        };
        let Ok(v) = u64::try_from(v) else {
            return Err(gone("a Delta version is at least 0"));
        };
        if !listing.commits.contains_key(&v) && !listing.checkpoints.contains_key(&v) {
            return Err(gone(
                "_delta_log holds neither its commit nor a checkpoint of it (removed by log cleanup, or never written)",
            ));
        }
        listing.commits.retain(|&c, _| c <= v);
        listing.checkpoints.retain(|&c, _| c <= v);
        listing.crcs.retain(|&c, _| c <= v);
    }
    let last_path = log.join("_last_checkpoint");
    let last: Option<LastCheckpoint> = match scope.read(
        &last_path,
        "_last_checkpoint",
        &last_path,
        MAX_POINTER_BYTES,
    ) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).map_err(|e| Error::Json {
            path: last_path.clone(),
            line: None,
            reason: e.to_string(),
        })?),
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    // An older version than `_last_checkpoint`'s starts from an older
    // checkpoint or the commits.
    let last = last.filter(|lc| opts.version.is_none_or(|v| lc.version as i64 <= v));
    let named: Option<(u64, Vec<PathBuf>)> = match &last {
        Some(lc) => {
            let parts = listing
                .checkpoints
                .get(&lc.version)
                .ok_or_else(|| Error::Checkpoint {
                    path: last_path.clone(),
                    reason: format!(
                        "names checkpoint version {} but the log holds no checkpoint file for it",
                        lc.version
                    ),
                })?;
            let files = complete(parts).ok_or_else(|| Error::Checkpoint {
                path: last_path.clone(),
                reason: format!("checkpoint {} is missing parts", lc.version),
            })?;
            if let Some(n) = lc.parts {
                if n as usize != files.len() {
                    return Err(Error::Checkpoint {
                        path: last_path.clone(),
                        reason: format!(
                            "says {n} parts, the log holds {} for version {}",
                            files.len(),
                            lc.version
                        ),
                    });
                }
            }
            Some((lc.version, files))
        }
        None => None,
    };
    // The checkpoint to start from: the one `_last_checkpoint` names, else
    // the newest complete one. When it cannot be read: an older complete
    // checkpoint, else the commits from version 0, each only when every
    // commit after it is there; the unreadable checkpoint is a warning.
    let mut candidates: Vec<(u64, Vec<PathBuf>)> = named.into_iter().collect();
    for (v, parts) in listing.checkpoints.iter().rev() {
        if candidates.first().is_none_or(|(c, _)| v < c) {
            if let Some(files) = complete(parts) {
                candidates.push((*v, files));
            }
        }
    }
    let latest = listing.commits.keys().next_back().copied();
    let commits_from = |start: u64| match latest {
        Some(l) if l >= start => (start..=l).all(|v| listing.commits.contains_key(&v)),
        _ => true,
    };
    let mut warnings = Vec::new();
    let keep_stats = opts.stats_columns.is_some();
    let mut r = Replay {
        keep_stats,
        ..Replay::default()
    };
    let mut checkpoint: Option<(u64, Vec<PathBuf>)> = None;
    for (i, (v, files)) in candidates.iter().enumerate() {
        let mut attempt = Replay {
            seq: *v as i64,
            keep_stats,
            ..Replay::default()
        };
        match read_checkpoint(&log, files, &mut attempt, &scope) {
            Ok(()) => {
                r = attempt;
                checkpoint = Some((*v, files.clone()));
                break;
            }
            // A refused path is an error, never worked around.
            Err(e @ Error::OutsideTable { .. }) => return Err(e),
            Err(e) => {
                let older = candidates[i + 1..]
                    .iter()
                    .find(|(c, _)| commits_from(c + 1));
                let fallback = match older {
                    Some((c, _)) => format!("checkpoint {c}"),
                    None if listing.commits.contains_key(&0) && commits_from(0) => {
                        "the commits from version 0".to_string()
                    }
                    None => return Err(e),
                };
                warnings.push(format!("{e}; replaying from {fallback} instead"));
            }
        }
    }
    let start = match &checkpoint {
        Some((v, _)) => v + 1,
        None => 0,
    };
    let history =
        whole_history.unwrap_or_else(|| history(&listing, start.saturating_sub(1), &scope));
    let mut expected = start;
    for (&v, path) in listing.commits.range(start..) {
        if v != expected {
            return Err(Error::MissingCommit {
                log: log.clone(),
                version: expected,
                detail: format!("the log jumps to {v:020}.json"),
            });
        }
        r.seq = v as i64;
        read_json_lines(path, &mut r, None, &scope)?;
        expected = v + 1;
    }
    let version = match (latest, &checkpoint) {
        (Some(l), Some((c, _))) => l.max(*c),
        (Some(l), None) => l,
        (None, Some((c, _))) => *c,
        (None, None) => {
            return Err(Error::NoTable {
                path: log.clone(),
                reason: "_delta_log holds no commit and no checkpoint".into(),
            })
        }
    };
    if checkpoint.is_none() && !listing.commits.contains_key(&0) {
        return Err(Error::MissingCommit {
            log: log.clone(),
            version: 0,
            detail: "no checkpoint and no first commit to start the replay from".into(),
        });
    }

    let mut t = TableState {
        name: found.name.clone(),
        format: Some(Format::Delta),
        location: dir.clone(),
        version: version as i64,
        warnings,
        history,
        ..Default::default()
    };
    t.format_version = format!(
        "{}/{}",
        r.protocol.min_reader.unwrap_or(1),
        r.protocol.min_writer.unwrap_or(2)
    );
    let mut features: Vec<String> = r
        .protocol
        .reader_features
        .iter()
        .chain(r.protocol.writer_features.iter())
        .flatten()
        .cloned()
        .collect();
    features.sort();
    features.dedup();
    t.features = features;
    let schema = r
        .schema
        .as_deref()
        .map(actions::schema_fields)
        .unwrap_or_default();
    t.partition_fields = r
        .partition_columns
        .iter()
        .map(|c| PartitionField {
            name: c.clone(),
            source: c.clone(),
            transform: "identity".into(),
            source_type: schema
                .iter()
                .find(|(l, _, _)| l == c)
                .map(|(_, _, ty)| ty.clone())
                .unwrap_or_default(),
        })
        .collect();
    t.spec_fields.insert(0, r.partition_columns.clone());
    // Clustering columns are physical names under column mapping.
    t.clustering_columns = r
        .clustering
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            schema
                .iter()
                .find(|(_, p, _)| *p == c)
                .map(|(l, _, _)| l.clone())
                .unwrap_or(c)
        })
        .collect();
    t.properties = r.configuration;
    t.columns = schema
        .iter()
        .map(|(l, _, ty)| (l.clone(), plan::predicate::ColumnType::parse(ty)))
        .collect();
    // The statistics asked for, as the log records them: by physical
    // path; partition columns from the partition values.
    let stats_cols: Vec<(String, StatsColumn)> = match &opts.stats_columns {
        None => Vec::new(),
        Some(wanted) => schema
            .iter()
            .filter(|(l, _, _)| wanted.iter().any(|w| w.eq_ignore_ascii_case(l)))
            .map(|(l, p, ty)| {
                let partition = r.partition_columns.iter().any(|c| c == l);
                (
                    l.clone(),
                    StatsColumn {
                        physical: p.split('.').map(str::to_string).collect(),
                        ty: plan::predicate::ColumnType::parse(ty),
                        partition,
                        field_id: None,
                    },
                )
            })
            .collect(),
    };
    // Partition columns first, in the log's order, then the others: the
    // order `stats::delta` reads partition values in.
    let mut stats_cols = stats_cols;
    stats_cols.sort_by_key(|(l, c)| {
        (
            !c.partition,
            r.partition_columns.iter().position(|p| p == l),
        )
    });
    let part_idx: Vec<usize> = stats_cols
        .iter()
        .filter(|(_, c)| c.partition)
        .filter_map(|(l, _)| r.partition_columns.iter().position(|p| p == l))
        .collect();
    t.stats_columns = stats_cols.iter().map(|(l, _)| l.clone()).collect();
    let stats_cols: Vec<StatsColumn> = stats_cols.into_iter().map(|(_, c)| c).collect();
    t.commits_since_checkpoint = Some(match &checkpoint {
        Some((c, _)) => version - c,
        None => version + 1,
    });

    let mut files: Vec<(Box<str>, Entry)> = r.files.into_iter().collect();
    files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    t.files.reserve_exact(files.len());
    for (path, e) in files {
        let deletes = match &e.dv {
            None => None,
            Some(d) => {
                let mut refused = false;
                let location = match dv_file(dir, d) {
                    Ok(Some(p)) if !opts.allow_outside_table && !dv_inside(&scope, dir, &p) => {
                        refused = true;
                        t.problems.push(Error::OutsideTable {
                            path: dir.join(path.as_ref()),
                            what: "deletion vector file".into(),
                            target: p.clone(),
                            root: scope.root().to_path_buf(),
                        });
                        p.display().to_string()
                    }
                    Ok(Some(p)) => p.display().to_string(),
                    Ok(None) => "inline".to_string(),
                    Err(reason) => {
                        t.problems.push(Error::DeletionVector {
                            path: dir.join(path.as_ref()),
                            reason: reason.to_string(),
                        });
                        "?".to_string()
                    }
                };
                let card = d.cardinality.max(0) as u64;
                if let Some(rows) = e.rows {
                    if card > rows {
                        t.violations.push(Violation {
                            rule: "dv_cardinality_exceeds_rows",
                            file: path.to_string(),
                            detail: format!("DV deletes {card} rows of a file with {rows} (PROTOCOL.md, Deletion Vectors)"),
                        });
                    }
                }
                if opts.deep && !refused {
                    match check_dv(&scope, dir, &dir.join(path.as_ref()), d) {
                        Ok(s) => {
                            t.dvs_checked += 1;
                            if s.cardinality != card {
                                t.problems.push(Error::DeletionVector {
                                    path: PathBuf::from(&location),
                                    reason: format!("bitmap of {path} holds {} positions, the log says cardinality {card}", s.cardinality),
                                });
                            }
                            if let (Some(max), Some(rows)) = (s.max, e.rows) {
                                if max >= rows {
                                    t.violations.push(Violation {
                                        rule: "dv_position_past_end",
                                        file: path.to_string(),
                                        detail: format!(
                                            "DV deletes row {max} of a file with {rows} rows"
                                        ),
                                    });
                                }
                            }
                        }
                        Err(e) => t.problems.push(e),
                    }
                }
                let bytes = if d.storage_type == "i" {
                    0
                } else {
                    d.size.max(0) as u64 + 8
                };
                Some(Box::new(FileDeletes {
                    dv: Some(Dv {
                        cardinality: card,
                        bytes,
                        location,
                        offset: d.offset.map(|o| o.max(0) as u64),
                    }),
                    delete_bytes: bytes,
                    ..Default::default()
                }))
            }
        };
        let stats = keep_stats.then(|| {
            let values: Vec<Option<String>> = part_idx
                .iter()
                .map(|&i| {
                    r.partitions.list[e.partition as usize]
                        .values
                        .get(i)
                        .cloned()
                        .flatten()
                })
                .collect();
            let (s, bad) = stats::delta(e.stats.as_deref(), &values, &stats_cols);
            t.stats_unreadable += bad;
            s
        });
        t.files.push(DataFile {
            partition: e.partition,
            size: e.size,
            rows: e.rows,
            seq: e.seq,
            clustered: e.clustered,
            path: (deletes.is_some() || keep_stats).then_some(path),
            deletes,
            stats,
        });
    }
    t.partitions = r.partitions.list;

    if let Some(crc_path) = listing.crcs.get(&version) {
        let crc: Option<Crc> = match scope.read(crc_path, "checksum file", crc_path, MAX_JSON_BYTES)
        {
            Ok(bytes) => serde_json::from_slice(&bytes).ok(),
            Err(
                e
                @ (Error::OutsideTable { .. } | Error::NotRegular { .. } | Error::TooLarge { .. }),
            ) => {
                t.problems.push(e);
                None
            }
            Err(_) => None,
        };
        if let Some(crc) = crc {
            let bytes: u64 = t.files.iter().map(|f| f.size).sum();
            let n = t.files.len() as u64;
            if crc.num_files.is_some_and(|c| c != n)
                || crc.table_size_bytes.is_some_and(|c| c != bytes)
            {
                t.violations.push(Violation {
                    rule: "crc_mismatch",
                    file: crc_path.display().to_string(),
                    detail: format!(
                        "checksum file says {:?} files / {:?} bytes, the replay gives {n} / {bytes}",
                        crc.num_files, crc.table_size_bytes
                    ),
                });
            }
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A scratch `_delta_log` for one test.
    fn scratch_log(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lakeaudit-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let log = dir.join("_delta_log");
        fs::create_dir_all(&log).unwrap();
        log
    }

    /// Each replayed file with the partition values it was interned with.
    fn partitioned(r: &Replay) -> Vec<(String, Vec<Option<String>>)> {
        let mut got: Vec<(String, Vec<Option<String>>)> = r
            .files
            .iter()
            .map(|(p, e)| {
                (
                    p.to_string(),
                    r.partitions.list[e.partition as usize].values.clone(),
                )
            })
            .collect();
        got.sort();
        got
    }

    fn file(path: &str, d: &str) -> (String, Vec<Option<String>>) {
        (path.to_string(), vec![Some(d.to_string())])
    }

    #[test]
    fn metadata_in_a_later_checkpoint_part_still_partitions_earlier_adds() {
        // Spark spreads a multi-part checkpoint's rows over the parts by a
        // hash, so `metaData` need not be in part 1. Two JSON files stand in
        // for the parts: the replay reads every part's non-file actions
        // before the first add.
        let log = scratch_log("json-parts");
        let part1 = log.join("part1.json");
        let part2 = log.join("part2.json");
        fs::write(
            &part1,
            concat!(
                r#"{"add":{"path":"d=1/a.parquet","partitionValues":{"d":"1"},"size":10,"modificationTime":1,"dataChange":false,"stats":"{\"numRecords\":3}"}}"#,
                "\n",
                r#"{"add":{"path":"d=2/b.parquet","partitionValues":{"d":"2"},"size":20,"modificationTime":1,"dataChange":false,"stats":"{\"numRecords\":4}"}}"#,
                "\n"
            ),
        )
        .unwrap();
        fs::write(
            &part2,
            concat!(
                r#"{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}"#,
                "\n",
                r#"{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":["d"],"configuration":{}}}"#,
                "\n"
            ),
        )
        .unwrap();
        let mut r = Replay::default();
        read_checkpoint(
            &log,
            &[part1, part2],
            &mut r,
            &Scope::new(&log, false).unwrap(),
        )
        .unwrap();
        assert_eq!(r.partition_columns, ["d"]);
        assert_eq!(
            partitioned(&r),
            [file("d=1/a.parquet", "1"), file("d=2/b.parquet", "2")]
        );
        let _ = fs::remove_dir_all(log.parent().unwrap());
    }

    /// A Parquet checkpoint part written here by polars from JSON lines, one
    /// action per row: action columns a row lacks are null, and maps are
    /// given as lists of `{key, value}` structs (what polars reads a
    /// Parquet map as). Not a real writer's part: a unit test input.
    fn parquet_part(path: &Path, rows: &[&str]) {
        use polars_io::json::{JsonFormat, JsonReader};
        use polars_io::prelude::ParquetWriter;
        use polars_io::SerReader;
        let mut df = JsonReader::new(std::io::Cursor::new(rows.join("\n").into_bytes()))
            .with_json_format(JsonFormat::JsonLines)
            .finish()
            .unwrap();
        ParquetWriter::new(fs::File::create(path).unwrap())
            .finish(&mut df)
            .unwrap();
    }

    fn add_row(path: &str, d: &str, size: u32, rows: u32) -> String {
        format!(
            r#"{{"add":{{"path":"{path}","partitionValues":[{{"key":"d","value":"{d}"}}],"size":{size},"modificationTime":1,"dataChange":false,"stats":"{{\"numRecords\":{rows}}}"}}}}"#
        )
    }

    #[test]
    fn metadata_in_a_later_parquet_part_still_partitions_earlier_adds() {
        // The same on Parquet parts, rows mixed as Spark's hash leaves them:
        // part 1 holds two adds around the protocol, part 2 an add and the
        // metaData. Read part by part (each part's non-file actions first,
        // as before), part 1's adds were interned with no partition columns.
        let log = scratch_log("parquet-parts");
        let part1 = log.join("00000000000000000004.checkpoint.0000000001.0000000002.parquet");
        let part2 = log.join("00000000000000000004.checkpoint.0000000002.0000000002.parquet");
        let protocol = r#"{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}"#;
        let meta = r#"{"metaData":{"id":"x","schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":["d"]}}"#;
        parquet_part(
            &part1,
            &[
                &add_row("d=1/a.parquet", "1", 10, 3),
                protocol,
                &add_row("d=2/b.parquet", "2", 20, 4),
            ],
        );
        parquet_part(&part2, &[&add_row("d=3/c.parquet", "3", 30, 5), meta]);
        // Part 1 alone: the protocol, then two adds.
        let mut kinds = Vec::new();
        for pass in [Pass::NonFile, Pass::File] {
            let f = fs::File::open(&part1).unwrap();
            let len = f.metadata().unwrap().len();
            parquet::read_actions(&part1, (crate::Source::Local(f), len), pass, &mut |a| {
                kinds.push(match a {
                    Action::Protocol(_) => "protocol",
                    Action::Add(_) => "add",
                    _ => "other",
                });
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(kinds, ["protocol", "add", "add"]);
        let mut r = Replay::default();
        read_checkpoint(
            &log,
            &[part1, part2],
            &mut r,
            &Scope::new(&log, false).unwrap(),
        )
        .unwrap();
        assert_eq!(r.partition_columns, ["d"]);
        assert_eq!(
            partitioned(&r),
            [
                file("d=1/a.parquet", "1"),
                file("d=2/b.parquet", "2"),
                file("d=3/c.parquet", "3")
            ]
        );
        let _ = fs::remove_dir_all(log.parent().unwrap());
    }

    #[test]
    fn a_checkpoint_page_shorter_than_its_length_is_a_named_error() {
        // fuzz/regressions/table_checkpoint-short-page: the sales
        // checkpoint as table_checkpoint mutated it; polars asserted on a
        // page body shorter than 4 bytes (a panic, which killed the run).
        let tmp = std::env::temp_dir().join(format!("lakeaudit-short-page-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        let src = testdata::data("tables/warehouse/sales");
        fs::create_dir_all(tmp.join("_delta_log")).unwrap();
        for e in fs::read_dir(src.join("_delta_log")).unwrap().flatten() {
            fs::copy(e.path(), tmp.join("_delta_log").join(e.file_name())).unwrap();
        }
        let cp = tmp.join("_delta_log/00000000000000000023.checkpoint.parquet");
        let crash = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/regressions/table_checkpoint-short-page");
        fs::copy(crash, &cp).unwrap();
        // Commits before the checkpoint are gone: no fallback.
        for v in 0..23 {
            let _ = fs::remove_file(tmp.join(format!("_delta_log/{v:020}.json")));
        }
        let found = Found {
            dir: tmp.clone(),
            format: Format::Delta,
            metadata: None,
            name: "sales".into(),
        };
        let e = read(&found, &ReadOptions::default()).unwrap_err();
        assert_eq!(e.path(), cp);
        assert!(
            e.to_string().contains("not a readable Parquet checkpoint"),
            "{e}"
        );
        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn sidecars_are_found_by_bare_name_or_path() {
        let log = Path::new("t/_delta_log");
        assert_eq!(
            sidecar_path(log, "00000000000000000002.checkpoint.0000000001.0000000002.u.parquet"),
            Path::new("t/_delta_log/_sidecars/00000000000000000002.checkpoint.0000000001.0000000002.u.parquet")
        );
        assert_eq!(
            sidecar_path(log, "_sidecars/s.parquet"),
            Path::new("t/_delta_log/_sidecars/s.parquet")
        );
        assert_eq!(
            sidecar_path(log, "file:///data/t/_delta_log/_sidecars/s.parquet"),
            Path::new("/data/t/_delta_log/_sidecars/s.parquet")
        );
    }

    #[test]
    fn history_and_time_travel_follow_the_commits() {
        // The sales table: delta-rs appends, a checkpoint at 23, OPTIMIZE
        // of one day's 8 files into 1 at 24, two appends after.
        let found = Found {
            dir: testdata::data("tables/warehouse/sales"),
            format: Format::Delta,
            metadata: None,
            name: "sales".into(),
        };
        let at = |version| {
            read(
                &found,
                &ReadOptions {
                    version,
                    history: true,
                    ..ReadOptions::default()
                },
            )
        };
        let now = at(None).unwrap();
        assert_eq!(now.version, 26);
        assert_eq!(now.history.len(), 27);
        // Without `history`: from the checkpoint (23) on.
        let short = read(&found, &ReadOptions::default()).unwrap();
        let versions: Vec<i64> = short.history.iter().map(|c| c.version).collect();
        assert_eq!(versions, [23, 24, 25, 26]);
        let optimize: Vec<&crate::Commit> = now.history.iter().filter(|c| c.rewrite).collect();
        assert_eq!(optimize.len(), 1);
        let o = optimize[0];
        // delta-rs' own operationMetrics of that commit.
        assert_eq!(
            (
                o.version,
                o.operation.as_str(),
                o.files_removed,
                o.files_added
            ),
            (24, "OPTIMIZE", Some(8), Some(1))
        );
        assert_eq!((o.bytes_removed, o.bytes_added), (Some(16175), Some(4343)));
        assert_eq!(o.parent, Some(23));
        // Before it (from the checkpoint), at it, and before the
        // checkpoint (the commits from 0, `_last_checkpoint` passed over).
        let (v23, v24) = (at(Some(23)).unwrap(), at(Some(24)).unwrap());
        assert_eq!((v23.version, v24.version), (23, 24));
        assert_eq!(v23.files.len() - v24.files.len(), 7);
        assert_eq!(now.files.len(), v24.files.len() + 2);
        let bytes = |t: &TableState| t.files.iter().map(|f| f.size).sum::<u64>();
        assert_eq!(bytes(&v23) - bytes(&v24), 16175 - 4343);
        let v10 = at(Some(10)).unwrap();
        assert_eq!(v10.version, 10);
        assert_eq!(v10.commits_since_checkpoint, Some(11));
        // A version the log does not hold.
        let e = at(Some(27)).unwrap_err();
        assert!(matches!(e, Error::VersionGone { version: 27, .. }), "{e}");
        assert!(matches!(at(Some(-1)), Err(Error::VersionGone { .. })));
    }
}
