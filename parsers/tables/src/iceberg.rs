//! Apache Iceberg v1–v3: the current snapshot's manifest list and manifests
//! (`format/spec.md`), read with `apache-avro` one entry at a time.
//!
//! Delete manifests are read first: their files are few, and knowing which
//! data files they reference lets the data pass keep a path only for the
//! files that have deletes. Which deletes apply follows the spec's
//! "Scan Planning": a position delete or DV applies to a data file whose
//! data sequence number is ≤ its own, an equality delete to one whose is
//! strictly lower; both only within the same partition (an unpartitioned
//! equality delete applies to every partition).

use crate::dv;
use crate::error::{Error, Reason, Result};
use crate::model::{
    DataFile, DeleteFile, DeleteKind, Dv, FileDeletes, Format, PartitionField, Partitions,
    TableState, Violation,
};
use crate::scope::{inflate_capped, Scope, MAX_DV_BYTES, MAX_JSON_BYTES, MAX_POINTER_BYTES};
use crate::source::{self, Source};
use crate::stats::{self, StatsColumn};
use crate::{discover, Found, ReadOptions};
use apache_avro::types::Value;
use plan::predicate::ColumnStats;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Field id of `file_path` in a position delete file (spec, "Position Delete Files").
const POS_FILE_PATH_ID: i64 = 2_147_483_546;

#[derive(Deserialize)]
struct Metadata {
    #[serde(rename = "format-version")]
    format_version: u32,
    #[serde(default)]
    location: String,
    #[serde(rename = "current-snapshot-id", default)]
    current_snapshot_id: Option<i64>,
    #[serde(default)]
    snapshots: Vec<Snapshot>,
    #[serde(rename = "partition-specs", default)]
    partition_specs: Vec<Spec>,
    #[serde(rename = "default-spec-id", default)]
    default_spec_id: i32,
    #[serde(rename = "sort-orders", default)]
    sort_orders: Vec<SortOrder>,
    #[serde(rename = "default-sort-order-id", default)]
    default_sort_order_id: i64,
    #[serde(default)]
    schemas: Vec<Schema>,
    #[serde(rename = "current-schema-id", default)]
    current_schema_id: i64,
    #[serde(default)]
    properties: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Snapshot {
    #[serde(rename = "snapshot-id")]
    id: i64,
    #[serde(rename = "manifest-list")]
    manifest_list: String,
    /// Set by every snapshot committed after the table became v3 (spec,
    /// "Row Lineage for Upgraded Tables"); snapshots from before keep none.
    #[serde(rename = "first-row-id", default)]
    first_row_id: Option<i64>,
    #[serde(rename = "parent-snapshot-id", default)]
    parent: Option<i64>,
    #[serde(rename = "timestamp-ms", default)]
    timestamp_ms: Option<i64>,
    /// Values are strings by the spec; anything else is left out.
    #[serde(default)]
    summary: BTreeMap<String, serde_json::Value>,
}

impl Snapshot {
    /// The snapshot as a commit of the table's history.
    fn commit(&self) -> crate::Commit {
        let text = |k: &str| self.summary.get(k).and_then(|v| v.as_str());
        let count = |k: &str| text(k).and_then(|v| v.trim().parse::<u64>().ok());
        let operation = text("operation").unwrap_or_default().to_string();
        crate::Commit {
            version: self.id,
            parent: self.parent,
            timestamp_ms: self.timestamp_ms,
            // rewrite_data_files (and rewrite_manifests, which adds and
            // removes no data file) commit `replace`.
            rewrite: operation == "replace" && count("added-data-files").is_some_and(|n| n > 0),
            operation,
            files_removed: count("deleted-data-files"),
            files_added: count("added-data-files"),
            bytes_removed: count("removed-files-size"),
            bytes_added: count("added-files-size"),
            key: Vec::new(),
            engine: text("engine-name").map(crate::model::engine_text),
            target_size: None,
        }
    }
}

#[derive(Deserialize)]
struct Spec {
    #[serde(rename = "spec-id")]
    id: i32,
    #[serde(default)]
    fields: Vec<SpecField>,
}

#[derive(Deserialize)]
struct SpecField {
    name: String,
    transform: String,
    #[serde(rename = "source-id")]
    source_id: i64,
}

#[derive(Deserialize)]
struct SortOrder {
    #[serde(rename = "order-id")]
    id: i64,
    #[serde(default)]
    fields: Vec<SortField>,
}

#[derive(Deserialize)]
struct SortField {
    transform: String,
    #[serde(rename = "source-id")]
    source_id: i64,
}

#[derive(Deserialize)]
struct Schema {
    #[serde(rename = "schema-id", default)]
    id: i64,
    #[serde(default)]
    fields: Vec<SchemaField>,
}

#[derive(Deserialize)]
struct SchemaField {
    id: i64,
    name: String,
    #[serde(rename = "type")]
    ty: serde_json::Value,
}

/// The current metadata file: the one named, else `version-hint.text`, else
/// the highest version among `metadata/*.metadata.json`.
fn current_metadata(found: &Found, scope: &Scope) -> Result<PathBuf> {
    if let Some(m) = &found.metadata {
        return Ok(m.clone());
    }
    let meta = found.dir.join("metadata");
    let hint_path = meta.join("version-hint.text");
    let hint = match scope.read(&hint_path, "version hint", &hint_path, MAX_POINTER_BYTES) {
        Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        Err(Error::Io { .. }) => None,
        Err(e) => return Err(e),
    };
    if let Some(hint) = hint {
        let hint = hint.trim();
        for name in [format!("v{hint}.metadata.json"), hint.to_string()] {
            let p = meta.join(&name);
            if source::is_file(&p) {
                return Ok(p);
            }
        }
    }
    let mut best: Option<(u64, String)> = None;
    for (name, _) in source::list_dir(&meta)? {
        if !discover::is_metadata_json(&name) {
            continue;
        }
        let digits: String = name
            .trim_start_matches('v')
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let v = digits.parse::<u64>().unwrap_or(0);
        if best.as_ref().is_none_or(|(b, n)| (v, &name) > (*b, n)) {
            best = Some((v, name));
        }
    }
    best.map(|(_, n)| meta.join(n))
        .ok_or_else(|| Error::NoTable {
            path: meta,
            reason: "no *.metadata.json".into(),
        })
}

/// Maps the absolute paths in the metadata onto the table directory on disk.
struct PathMap {
    declared: String,
    dir: PathBuf,
}

impl PathMap {
    fn local(&self, p: &str) -> PathBuf {
        let strip = |s: &str| -> String {
            s.strip_prefix("file://")
                .or_else(|| s.strip_prefix("file:"))
                .unwrap_or(s)
                .trim_end_matches('/')
                .to_string()
        };
        let d = strip(&self.declared);
        let q = strip(p);
        match q.strip_prefix(&d) {
            Some(rest) if !d.is_empty() => self.dir.join(rest.trim_start_matches('/')),
            _ => PathBuf::from(q),
        }
    }
}

fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    let Value::Record(fields) = v else {
        return None;
    };
    fields
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| match v {
            Value::Union(_, inner) => inner.as_ref(),
            other => other,
        })
}

fn long(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Long(l) => Some(*l),
        Value::Int(i) => Some(i64::from(*i)),
        Value::Union(_, inner) => long(Some(inner)),
        _ => None,
    }
}

fn string(v: Option<&Value>) -> Option<&str> {
    match v? {
        Value::String(s) => Some(s),
        Value::Union(_, inner) => string(Some(inner)),
        _ => None,
    }
}

/// Days since 1970-01-01 as `YYYY-MM-DD` (jiff's proleptic Gregorian
/// calendar); `None` outside the years jiff spans (-9999 to 9999).
fn civil(days: i64) -> Option<String> {
    let span = jiff::Span::new().try_days(days).ok()?;
    let date = jiff::civil::date(1970, 1, 1).checked_add(span).ok()?;
    Some(date.to_string())
}

fn render(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Union(_, inner) => return render(inner),
        Value::Boolean(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Long(l) => l.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Double(f) => f.to_string(),
        Value::String(s) => s.clone(),
        // Past jiff's years, the day number itself (no date literal).
        Value::Date(d) => civil(i64::from(*d)).unwrap_or_else(|| d.to_string()),
        Value::TimestampMicros(t) | Value::LocalTimestampMicros(t) => t.to_string(),
        Value::Bytes(b) | Value::Fixed(_, b) => b.iter().map(|x| format!("{x:02x}")).collect(),
        other => format!("{other:?}"),
    })
}

/// Calls `f` with each record of an Avro file; returns the `format-version`
/// its header declares (manifests and manifest lists of v2 and later do).
///
/// `file` is `path` opened by the table's scope, with its length; block
/// sizes are checked ([`crate::avro_guard`]) before it is decoded.
fn avro_entries(
    path: &Path,
    (file, len): (Source, u64),
    f: &mut dyn FnMut(&Value) -> Result<()>,
) -> Result<Option<u32>> {
    let bad = |e: apache_avro::Error| Error::Avro {
        path: path.to_path_buf(),
        reason: format!("cannot be decoded as Avro: {e}"),
    };
    let mut file = std::io::BufReader::new(file);
    crate::avro_guard::check_default(&mut file, len).map_err(|e| Error::Avro {
        path: path.to_path_buf(),
        reason: format!("cannot be decoded as Avro: {e}"),
    })?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| Error::io(path, e))?;
    // apache-avro panics on some malformed schemas (an invalid record name
    // is unwrapped in `Name::parse`): a panic inside it is this file's
    // error, not the run's end.
    let panicked = || Error::Avro {
        path: path.to_path_buf(),
        reason: "cannot be decoded as Avro: the Avro reader failed on its schema or data".into(),
    };
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let mut rd = catch_unwind(AssertUnwindSafe(|| apache_avro::Reader::new(file)))
        .map_err(|_| panicked())?
        .map_err(bad)?;
    let version = rd
        .user_metadata()
        .get("format-version")
        .and_then(|v| std::str::from_utf8(v).ok()?.trim().parse().ok());
    while let Some(v) = catch_unwind(AssertUnwindSafe(|| rd.next())).map_err(|_| panicked())? {
        f(&v.map_err(bad)?)?;
    }
    Ok(version)
}

/// Whether a manifest entry with status ADDED was added after the table was
/// upgraded to v3, where no new position delete files may be added (spec,
/// "Delete Formats"; those of the v2 table stay valid). The snapshot that
/// added it says: snapshots committed after the upgrade carry a
/// `first-row-id`, earlier ones none. When that snapshot has expired from
/// the metadata, the format version the manifest was written with says.
fn added_after_v3_upgrade(adder: Option<&Snapshot>, manifest_version: Option<u32>) -> bool {
    match adder {
        Some(s) => s.first_row_id.is_some(),
        None => manifest_version.is_some_and(|v| v >= 3),
    }
}

struct Manifest {
    path: PathBuf,
    spec_id: i32,
    deletes: bool,
    seq: i64,
    /// The snapshot that added the manifest: its ADDED entries' snapshot
    /// when they name none.
    added_snapshot: Option<i64>,
}

/// A live delete file as the data pass needs it.
struct LiveDelete {
    kind: DeleteKind,
    partition: u32,
    seq: i64,
    records: u64,
    bytes: u64,
    /// `file_path` bounds of a position delete file referencing several
    /// data files: it can apply only to paths within them.
    bounds: Option<(String, String)>,
    /// The manifest naming it.
    manifest: PathBuf,
    /// Its `file_format`, lowercase.
    format: String,
}

pub(crate) fn read(found: &Found, opts: &ReadOptions) -> Result<TableState> {
    let mut scope = Scope::new(&found.dir, opts.allow_outside_table)?;
    let meta_path = current_metadata(found, &scope)?;
    let bytes = scope.read(&meta_path, "metadata file", &meta_path, MAX_JSON_BYTES)?;
    let bytes = if meta_path.extension().is_some_and(|e| e == "gz") {
        inflate_capped(
            flate2::read::GzDecoder::new(&bytes[..]),
            &meta_path,
            MAX_JSON_BYTES,
            "gzip metadata",
        )?
    } else {
        bytes
    };
    let md: Metadata = serde_json::from_slice(&bytes).map_err(|e| Error::Json {
        path: meta_path.clone(),
        line: Some(e.line() as u64),
        reason: e.to_string(),
    })?;
    let map = PathMap {
        declared: md.location.clone(),
        dir: found.dir.clone(),
    };
    // Locations the table declares for its files widen what its metadata
    // may name (mapped onto this machine as every path is).
    for key in [
        "write.data.path",
        "write.metadata.path",
        "write.object-storage.path",
        "write.folder-storage.path",
    ] {
        if let Some(v) = md.properties.get(key) {
            scope.declare(&map.local(v));
        }
    }
    let open = |p: &Path, what: &str, by: &Path| scope.open(p, what, by, u64::MAX);
    let mut t = TableState {
        name: found.name.clone(),
        format: Some(Format::Iceberg),
        location: found.dir.clone(),
        format_version: md.format_version.to_string(),
        default_spec: md.default_spec_id,
        properties: md.properties.clone(),
        version: md.current_snapshot_id.unwrap_or(-1),
        ..Default::default()
    };
    let local_loc = found.dir.canonicalize().unwrap_or(found.dir.clone());
    let declared = md
        .location
        .trim_start_matches("file://")
        .trim_end_matches('/');
    if !md.location.is_empty() && Path::new(declared) != local_loc {
        t.declared_location = Some(md.location.clone());
    }
    // A copy on a store of a table written elsewhere (another bucket, or a
    // local warehouse): its files are looked for under the given URL, as
    // a local copy's are under its directory, and the user is told.
    if scope.is_remote() && !md.location.is_empty() {
        let here = found.dir.to_str().and_then(source::store_of);
        if source::store_of(&md.location) != here {
            t.warnings.push(format!(
                "{}: the metadata declares location {}, not on this store; the files it names under that location are read under {} instead",
                found.dir.display(),
                md.location,
                found.dir.display()
            ));
        }
    }
    let schema = md
        .schemas
        .iter()
        .find(|s| s.id == md.current_schema_id)
        .or(md.schemas.last());
    let column = |id: i64| -> (String, String) {
        schema
            .and_then(|s| s.fields.iter().find(|f| f.id == id))
            .map(|f| {
                let ty = match &f.ty {
                    serde_json::Value::String(s) => s.clone(),
                    other => other
                        .get("type")
                        .and_then(|t| t.as_str())
                        .unwrap_or("?")
                        .to_string(),
                };
                (f.name.clone(), ty)
            })
            .unwrap_or_else(|| (format!("field_{id}"), "?".into()))
    };
    // Top-level primitive columns; the statistics asked for, by field id.
    let mut ice_cols: Vec<(StatsColumn, String)> = Vec::new();
    for f in schema.map(|s| s.fields.as_slice()).unwrap_or_default() {
        let serde_json::Value::String(ty) = &f.ty else {
            continue;
        };
        let col_ty = stats::iceberg_type(ty);
        t.columns.push((f.name.clone(), col_ty.clone()));
        if let Some(wanted) = &opts.stats_columns {
            if wanted.iter().any(|w| w.eq_ignore_ascii_case(&f.name)) {
                t.stats_columns.push(f.name.clone());
                ice_cols.push((
                    StatsColumn {
                        physical: vec![f.name.clone()],
                        ty: col_ty,
                        partition: false,
                        field_id: Some(f.id),
                    },
                    ty.clone(),
                ));
            }
        }
    }
    let keep_stats = opts.stats_columns.is_some();
    for s in &md.partition_specs {
        t.spec_fields
            .insert(s.id, s.fields.iter().map(|f| f.name.clone()).collect());
        if s.id == md.default_spec_id {
            t.partition_fields = s
                .fields
                .iter()
                .map(|f| {
                    let (source, source_type) = column(f.source_id);
                    PartitionField {
                        name: f.name.clone(),
                        source,
                        transform: f.transform.clone(),
                        source_type,
                    }
                })
                .collect();
        }
    }
    if let Some(o) = md
        .sort_orders
        .iter()
        .find(|o| o.id == md.default_sort_order_id)
    {
        t.clustering_columns = o
            .fields
            .iter()
            .map(|f| {
                let (name, _) = column(f.source_id);
                if f.transform == "identity" {
                    name
                } else {
                    format!("{}({name})", f.transform)
                }
            })
            .collect();
    }
    t.history = md.snapshots.iter().map(Snapshot::commit).collect();
    t.history
        .sort_by_key(|c| (c.timestamp_ms.unwrap_or(i64::MIN), c.version));
    if let Some(v) = opts.version {
        if !md.snapshots.iter().any(|s| s.id == v) {
            return Err(Error::VersionGone {
                path: found.dir.clone(),
                version: v,
                reason: "the metadata lists no such snapshot (expired, or never taken)".into(),
            });
        }
        t.version = v;
    }
    let Some(snap) = opts
        .version
        .or(md.current_snapshot_id)
        .filter(|&id| id >= 0)
        .and_then(|id| md.snapshots.iter().find(|s| s.id == id))
    else {
        return Ok(t);
    };

    // Manifest list.
    let list_path = map.local(&snap.manifest_list);
    let mut manifests = Vec::new();
    avro_entries(
        &list_path,
        open(&list_path, "manifest list", &meta_path)?,
        &mut |v| {
            let path = string(field(v, "manifest_path")).ok_or_else(|| Error::Avro {
                path: list_path.clone(),
                reason: "manifest list entry without manifest_path".into(),
            })?;
            manifests.push(Manifest {
                path: map.local(path),
                spec_id: long(field(v, "partition_spec_id")).unwrap_or(0) as i32,
                deletes: long(field(v, "content")).unwrap_or(0) == 1,
                seq: long(field(v, "sequence_number")).unwrap_or(0),
                added_snapshot: long(field(v, "added_snapshot_id")),
            });
            Ok(())
        },
    )?;

    let mut partitions = Partitions::default();
    let mut deletes: Vec<LiveDelete> = Vec::new();
    // Position deletes and DVs scoped to one data file, by that file's path.
    let mut by_file: HashMap<String, Vec<u32>> = HashMap::new();
    // Partition-scoped position and equality deletes, by partition; an
    // unpartitioned spec's equality deletes apply everywhere.
    let mut by_partition: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut global_eq: Vec<u32> = Vec::new();
    let v3 = md.format_version >= 3;
    let spec_len = |id: i32| {
        md.partition_specs
            .iter()
            .find(|s| s.id == id)
            .map_or(0, |s| s.fields.len())
    };

    let partition_of = |v: &Value, spec_id: i32, partitions: &mut Partitions| -> u32 {
        let values: Vec<Option<String>> = match field(v, "partition") {
            Some(Value::Record(fs)) => fs.iter().map(|(_, x)| render(x)).collect(),
            _ => Vec::new(),
        };
        let refs: Vec<Option<&str>> = values.iter().map(|x| x.as_deref()).collect();
        partitions.intern(spec_id, &refs)
    };

    for m in manifests.iter().filter(|m| m.deletes) {
        // Position delete files this manifest ADDs to a v3 table, with the
        // snapshot that added each.
        let mut added_pos: Vec<(String, Option<i64>)> = Vec::new();
        let version = avro_entries(&m.path, open(&m.path, "manifest", &list_path)?, &mut |e| {
            if long(field(e, "status")) == Some(2) {
                return Ok(());
            }
            let added = long(field(e, "status")) == Some(1);
            let seq = long(field(e, "sequence_number")).unwrap_or(m.seq);
            let file_seq = long(field(e, "file_sequence_number")).unwrap_or(m.seq);
            let Some(df) = field(e, "data_file") else {
                return Err(Error::Avro {
                    path: m.path.clone(),
                    reason: "manifest entry without data_file".into(),
                });
            };
            let content = long(field(df, "content")).unwrap_or(0);
            let fmt = string(field(df, "file_format"))
                .unwrap_or("")
                .to_ascii_lowercase();
            let kind = match (content, fmt.as_str()) {
                (1, "puffin") => DeleteKind::DeletionVector,
                (1, _) => DeleteKind::Position,
                (2, _) => DeleteKind::Equality,
                _ => return Ok(()),
            };
            let path = string(field(df, "file_path")).unwrap_or("").to_string();
            let partition = partition_of(df, m.spec_id, &mut partitions);
            let records = long(field(df, "record_count")).unwrap_or(0).max(0) as u64;
            let file_size = long(field(df, "file_size_in_bytes")).unwrap_or(0).max(0) as u64;
            let content_at = match (
                long(field(df, "content_offset")),
                long(field(df, "content_size_in_bytes")),
            ) {
                (Some(o), Some(s)) => Some((o.max(0) as u64, s.max(0) as u64)),
                _ => None,
            };
            let mut referenced = string(field(df, "referenced_data_file")).map(str::to_string);
            let mut bounds = None;
            if referenced.is_none() && kind == DeleteKind::Position {
                bounds = path_bounds(df);
                if let Some((lo, hi)) = &bounds {
                    if lo == hi {
                        referenced = Some(lo.clone());
                    }
                }
            }
            if v3 && added && kind == DeleteKind::Position {
                let adder = long(field(e, "snapshot_id")).or(m.added_snapshot);
                added_pos.push((path.clone(), adder));
            }
            let idx = t.delete_files.len() as u32;
            let bytes = match (kind, content_at) {
                (DeleteKind::DeletionVector, Some((_, s))) => s,
                _ => file_size,
            };
            match (&referenced, kind) {
                (Some(r), DeleteKind::Position | DeleteKind::DeletionVector) => {
                    by_file.entry(r.clone()).or_default().push(idx)
                }
                (_, DeleteKind::Equality) if spec_len(m.spec_id) == 0 => global_eq.push(idx),
                _ => by_partition.entry(partition).or_default().push(idx),
            }
            deletes.push(LiveDelete {
                kind,
                partition,
                seq,
                records,
                bytes,
                bounds,
                manifest: m.path.clone(),
                format: fmt.clone(),
            });
            t.delete_files.push(DeleteFile {
                kind,
                path,
                partition,
                seq,
                file_seq,
                records,
                file_size,
                content: content_at,
                referenced,
                applied_to: 0,
            });
            Ok(())
        })?;
        for (file, adder) in added_pos {
            let adder = adder.and_then(|id| md.snapshots.iter().find(|s| s.id == id));
            if added_after_v3_upgrade(adder, version) {
                t.violations.push(Violation {
                    rule: "position_deletes_in_v3",
                    file,
                    detail: "added after the table became v3, which adds no new position delete files (spec, Delete Formats)"
                        .into(),
                });
            }
        }
    }

    // `--deep`: the rows of each data file that a partition-scoped position
    // delete file names (its `file_path` column), by delete file.
    let mut hits: HashMap<u32, HashMap<String, u64>> = HashMap::new();
    if opts.deep {
        for (i, d) in t.delete_files.iter().enumerate() {
            if d.kind != DeleteKind::Position || d.referenced.is_some() {
                continue;
            }
            let live = &deletes[i];
            let p = map.local(&d.path);
            if live.format != "parquet" {
                t.problems.push(Error::DeleteFile {
                    path: p,
                    reason: format!(
                        "its manifest gives file_format {:?}: lakeaudit reads Parquet position delete files only",
                        live.format
                    ),
                });
                continue;
            }
            let counted = open(&p, "position delete file", &live.manifest)
                .and_then(|f| crate::delta::parquet::count_strings(&p, f, "file_path"));
            match counted {
                Ok(c) => {
                    hits.insert(i as u32, c);
                }
                Err(e) => t.problems.push(e),
            }
        }
    }

    let mut dvs_per_file: Vec<(String, u32)> = Vec::new();
    // Sums over the live data files, checked: a sum past 2^64 is an error.
    let (mut total_bytes, mut total_rows) = (0u64, 0u64);
    for m in manifests.iter().filter(|m| !m.deletes) {
        let mut entry = 0u64;
        avro_entries(&m.path, open(&m.path, "manifest", &list_path)?, &mut |e| {
            entry += 1;
            if long(field(e, "status")) == Some(2) {
                return Ok(());
            }
            let seq = long(field(e, "sequence_number")).unwrap_or(m.seq);
            let Some(df) = field(e, "data_file") else {
                return Err(Error::Avro {
                    path: m.path.clone(),
                    reason: "manifest entry without data_file".into(),
                });
            };
            let path = string(field(df, "file_path")).unwrap_or("");
            let partition = partition_of(df, m.spec_id, &mut partitions);
            let rows = long(field(df, "record_count")).map(|r| r.max(0) as u64);
            let size = long(field(df, "file_size_in_bytes")).unwrap_or(0).max(0) as u64;
            let clustered = long(field(df, "sort_order_id")).is_some_and(|s| s > 0);
            match (
                total_bytes.checked_add(size),
                total_rows.checked_add(rows.unwrap_or(0)),
            ) {
                (Some(b), Some(r)) => (total_bytes, total_rows) = (b, r),
                _ => {
                    return Err(Error::Avro {
                        path: m.path.clone(),
                        reason: format!(
                            "entry {entry} ({path}): the live files' file_size_in_bytes or record_count sum overflows 64 bits"
                        ),
                    })
                }
            }
            let mut fd = FileDeletes::default();
            let mut exact = true;
            let mut any_pos = false;
            let candidates = by_file
                .get(path)
                .into_iter()
                .flatten()
                .chain(by_partition.get(&partition).into_iter().flatten())
                .chain(global_eq.iter());
            for &i in candidates {
                let d = &deletes[i as usize];
                let file_scoped = t.delete_files[i as usize].referenced.is_some();
                let applies = match d.kind {
                    DeleteKind::Equality => seq < d.seq,
                    _ => {
                        seq <= d.seq
                            && (file_scoped || d.partition == partition)
                            && d.bounds
                                .as_ref()
                                .is_none_or(|(lo, hi)| lo.as_str() <= path && path <= hi.as_str())
                    }
                };
                if !applies {
                    continue;
                }
                // Read by `--deep`: rows of this file it deletes (none: it
                // does not apply here).
                let hit = hits.get(&i).map(|c| c.get(path).copied().unwrap_or(0));
                if hit == Some(0) {
                    continue;
                }
                t.delete_files[i as usize].applied_to += 1;
                fd.delete_bytes += d.bytes;
                match d.kind {
                    DeleteKind::DeletionVector => {
                        if fd.dv.is_some() {
                            fd.extra_dvs += 1;
                        } else {
                            let df = &t.delete_files[i as usize];
                            fd.dv = Some(Dv {
                                cardinality: d.records,
                                bytes: d.bytes,
                                location: df.path.clone(),
                                offset: df.content.map(|c| c.0),
                            });
                        }
                    }
                    DeleteKind::Position => {
                        any_pos = true;
                        fd.pos_files += 1;
                        if file_scoped {
                            fd.pos_rows_file_scoped += d.records;
                        }
                        match hit {
                            Some(n) => fd.pos_rows += n,
                            None => {
                                fd.pos_rows += d.records;
                                exact &= file_scoped;
                            }
                        }
                    }
                    DeleteKind::Equality => {
                        fd.eq_files += 1;
                        fd.eq_rows += d.records;
                    }
                }
            }
            if any_pos && exact {
                fd.pos_rows_exact = Some(fd.pos_rows);
            }
            let has = fd.files_opened() > 0;
            if fd.extra_dvs > 0 {
                dvs_per_file.push((path.to_string(), fd.extra_dvs + 1));
            }
            if let (Some(dv), Some(r)) = (&fd.dv, rows) {
                if dv.cardinality > r {
                    t.violations.push(Violation {
                        rule: "dv_cardinality_exceeds_rows",
                        file: path.to_string(),
                        detail: format!("DV deletes {} rows of a file with {r}", dv.cardinality),
                    });
                }
            }
            let stats = keep_stats.then(|| {
                let (s, bad) = iceberg_stats(df, rows, &ice_cols);
                t.stats_unreadable += bad;
                s
            });
            t.files.push(DataFile {
                partition,
                size,
                rows,
                seq,
                clustered,
                path: (has || keep_stats).then(|| path.into()),
                deletes: has.then(|| Box::new(fd)),
                stats,
            });
            Ok(())
        })?;
    }
    for (file, n) in dvs_per_file {
        t.violations.push(Violation {
            rule: "multiple_dvs_per_data_file",
            file,
            detail: format!("{n} DVs reference it in one snapshot; at most one is allowed (spec, Deletion Vectors)"),
        });
    }
    // Deletes that apply to no live data file.
    for (i, d) in t.delete_files.iter().enumerate() {
        if d.applied_to == 0 {
            t.violations.push(Violation {
                rule: "dangling_delete",
                file: d.path.clone(),
                detail: match &d.referenced {
                    Some(r) => format!("references {r}, which is not a live data file with a lower or equal sequence number"),
                    None => "applies to no live data file of its partition".into(),
                },
            });
        } else if d.kind == DeleteKind::Position
            && d.referenced.is_none()
            && !hits.contains_key(&(i as u32))
        {
            t.unattributed_deleted_rows += d.records;
        }
    }
    if t.delete_files
        .iter()
        .any(|d| d.kind == DeleteKind::DeletionVector)
    {
        t.features.push("deletion-vectors".into());
    }
    if opts.deep {
        for (d, live) in t
            .delete_files
            .iter()
            .zip(&deletes)
            .filter(|(d, _)| d.kind == DeleteKind::DeletionVector)
        {
            let p = map.local(&d.path);
            let Some((off, size)) = d.content else {
                t.problems.push(Error::DeletionVector {
                    path: p,
                    reason: "DV entry without content_offset/content_size_in_bytes".into(),
                });
                continue;
            };
            let file = match open(&p, "Puffin file", &live.manifest) {
                Ok(f) => f,
                Err(e) => {
                    t.problems.push(e);
                    continue;
                }
            };
            match read_blob(file, off, size).and_then(|b| {
                dv::check_framed(&b, 0, Some(size.saturating_sub(8) as usize)).map_err(|e| Reason::InBlob { offset: off, what: Box::new(e) })
            }) {
                Ok(s) if s.cardinality == d.records => t.dvs_checked += 1,
                Ok(s) => t.problems.push(Error::DeletionVector {
                    path: p,
                    reason: format!("blob at offset {off} holds {} positions, the manifest says record_count {}", s.cardinality, d.records),
                }),
                Err(reason) => t.problems.push(Error::DeletionVector { path: p, reason: reason.to_string() }),
            }
        }
    }
    t.partitions = partitions.list;
    Ok(t)
}

/// The `size` bytes at `off` of an open Puffin file of `len` bytes; the
/// declared size is checked against the file before anything is allocated.
fn read_blob(
    (mut f, len): (Source, u64),
    off: u64,
    size: u64,
) -> std::result::Result<Vec<u8>, Reason> {
    if size > MAX_DV_BYTES {
        return Err(Reason::DvOverCap {
            size,
            cap: MAX_DV_BYTES,
        });
    }
    if off.checked_add(size).is_none_or(|end| end > len) {
        return Err(Reason::BlobPastEnd {
            offset: off,
            size,
            len,
        });
    }
    f.seek(SeekFrom::Start(off))?;
    let mut b = Vec::with_capacity(size as usize);
    f.take(size).read_to_end(&mut b)?;
    Ok(b)
}

/// The statistics of `cols` in a manifest's `data_file`: bounds by field
/// id, null counts; the second value counts bounds that could not be
/// decoded.
fn iceberg_stats(
    df: &Value,
    rows: Option<u64>,
    cols: &[(StatsColumn, String)],
) -> (Box<[ColumnStats]>, u64) {
    let map = |name: &str, id: i64| -> Option<&Value> {
        let Value::Array(items) = field(df, name)? else {
            return None;
        };
        items
            .iter()
            .find(|kv| long(field(kv, "key")) == Some(id))
            .and_then(|kv| field(kv, "value"))
    };
    let mut bad = 0;
    let out = cols
        .iter()
        .map(|(c, ty)| {
            let id = c.field_id.unwrap_or(-1);
            let mut bound = |name: &str, upper: bool| match map(name, id) {
                Some(Value::Bytes(b)) => {
                    let l = stats::iceberg_literal(b, &c.ty, ty, upper);
                    bad += u64::from(l.is_none());
                    l
                }
                _ => None,
            };
            let min = bound("lower_bounds", false).map(|(l, _)| l);
            let max = bound("upper_bounds", true);
            // NaN sorts outside the bounds: a column with NaNs has no
            // usable float bounds.
            let nans = long(map("nan_value_counts", id)).unwrap_or(0) > 0;
            let (min, max) = if nans { (None, None) } else { (min, max) };
            ColumnStats {
                min,
                max_exact: max.as_ref().is_some_and(|(_, e)| *e),
                max: max.map(|(l, _)| l),
                null_count: long(map("null_value_counts", id)).and_then(|n| u64::try_from(n).ok()),
                rows,
            }
        })
        .collect();
    (out, bad)
}

/// The `file_path` bounds of a position delete file: equal bounds mean it
/// references one data file (spec, "Position Delete Files"), and a data
/// file outside them has none of its deletes.
fn path_bounds(df: &Value) -> Option<(String, String)> {
    let bound = |name: &str| -> Option<Vec<u8>> {
        let Value::Array(items) = field(df, name)? else {
            return None;
        };
        items.iter().find_map(|kv| {
            (long(field(kv, "key")) == Some(POS_FILE_PATH_ID)).then(|| {
                match field(kv, "value") {
                    Some(Value::Bytes(b)) => Some(b.clone()),
                    _ => None,
                }
            })?
        })
    };
    let (lo, hi) = (bound("lower_bounds")?, bound("upper_bounds")?);
    Some((String::from_utf8(lo).ok()?, String::from_utf8(hi).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn days_render_as_dates() {
        assert_eq!(civil(0).as_deref(), Some("1970-01-01"));
        assert_eq!(civil(19_723).as_deref(), Some("2024-01-01"));
        assert_eq!(civil(-1).as_deref(), Some("1969-12-31"));
        // Past jiff's years: no date.
        assert_eq!(civil(i64::from(i32::MAX)), None);
    }

    #[test]
    fn position_deletes_count_against_v3_only_when_added_after_the_upgrade() {
        let snap = |first_row_id| Snapshot {
            id: 1,
            manifest_list: String::new(),
            first_row_id,
            parent: None,
            timestamp_ms: None,
            summary: BTreeMap::new(),
        };
        // The adding snapshot decides: one from before the upgrade carries
        // no first-row-id, one from after does.
        assert!(!added_after_v3_upgrade(Some(&snap(None)), Some(3)));
        assert!(added_after_v3_upgrade(Some(&snap(Some(0))), Some(2)));
        // An expired snapshot: the manifest's own format-version.
        assert!(added_after_v3_upgrade(None, Some(3)));
        assert!(!added_after_v3_upgrade(None, Some(2)));
        assert!(!added_after_v3_upgrade(None, None));
    }

    fn copy_dir(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap().flatten() {
            let dst = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &dst);
            } else {
                fs::copy(e.path(), dst).unwrap();
            }
        }
    }

    fn found(dir: PathBuf) -> Found {
        Found {
            dir,
            format: Format::Iceberg,
            metadata: None,
            name: "ice.dvs".into(),
        }
    }

    /// fuzz/regressions/table_avro_manifest-bad-schema-name: one of the
    /// `ice.db/dvs` Avro files as table_avro_manifest mutated it (its first
    /// byte picks the file, by name); apache-avro panicked on the record
    /// name it made invalid, which ended the whole run.
    #[test]
    fn an_avro_schema_the_reader_panics_on_is_a_named_error() {
        let crash = fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fuzz/regressions/table_avro_manifest-bad-schema-name"),
        )
        .unwrap();
        let tmp = std::env::temp_dir().join(format!("lakeaudit-bad-avro-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        copy_dir(&testdata::data("tables/thresholds/ice.db/dvs"), &tmp);
        let mut avro: Vec<String> = fs::read_dir(tmp.join("metadata"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".avro"))
            .collect();
        avro.sort();
        let file = tmp
            .join("metadata")
            .join(&avro[usize::from(crash[0]) % avro.len()]);
        fs::write(&file, &crash[1..]).unwrap();
        let e = read(
            &found(tmp.clone()),
            &ReadOptions {
                deep: true,
                ..ReadOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.path(), file);
        assert!(e.to_string().contains("cannot be decoded as Avro"), "{e}");
        let _ = fs::remove_dir_all(&tmp);
    }

    /// The fixture `tables/thresholds/ice.db/dvs` (scripts/make_table_fixtures.py):
    /// a v2 table written by pyiceberg, upgraded to v3, then one snapshot
    /// adding two DVs in one Puffin file and removing the file-scoped
    /// position delete file the first replaces; a second v2 position delete
    /// file stays, in the manifest its v2 snapshot wrote.
    #[test]
    fn upgraded_v3_table_reads_as_pyiceberg_does() {
        let dir = testdata::data("tables/thresholds/ice.db/dvs");
        let t = read(
            &found(dir),
            &ReadOptions {
                deep: true,
                ..ReadOptions::default()
            },
        )
        .unwrap();
        assert_eq!(t.format_version, "3");
        assert!(t.violations.is_empty(), "{:?}", t.violations);
        assert!(t.problems.is_empty(), "{:?}", t.problems);
        assert_eq!(t.dvs_checked, 2);
        let mut live: Vec<_> = t
            .delete_files
            .iter()
            .map(|d| (d.kind, d.records, d.content, d.applied_to))
            .collect();
        live.sort();
        // Each applies to one data file; the DVs' blobs sit right after
        // the Puffin magic and after the first blob (43 bytes).
        assert_eq!(
            live,
            [
                (DeleteKind::Position, 5, None, 1),
                (DeleteKind::DeletionVector, 29, Some((47, 98)), 1),
                (DeleteKind::DeletionVector, 30, Some((4, 43)), 1),
            ]
        );
        // pyiceberg's scan drops 64 of 400 rows (reference.json).
        let deleted: u64 = t
            .files
            .iter()
            .filter_map(|f| f.deletes.as_ref())
            .map(|d| d.known_deleted_rows())
            .sum();
        assert_eq!(
            (t.files.len(), deleted, t.unattributed_deleted_rows),
            (4, 64, 0)
        );
    }

    #[test]
    fn a_position_delete_file_added_by_a_v3_snapshot_is_a_violation() {
        let tmp = std::env::temp_dir().join(format!("lakeaudit-v3-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        copy_dir(&testdata::data("tables/thresholds/ice.db/dvs"), &tmp);
        let meta =
            current_metadata(&found(tmp.clone()), &Scope::new(&tmp, false).unwrap()).unwrap();
        let mut md: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&meta).unwrap()).unwrap();
        // The snapshot that added the kept position delete file is the
        // v3 snapshot's parent. Give it a first-row-id, as if written after
        // the upgrade: now the file breaks the v3 rule.
        let parent =
            md["snapshots"].as_array().unwrap().last().unwrap()["parent-snapshot-id"].clone();
        let snaps = md["snapshots"].as_array_mut().unwrap();
        let adder = snaps
            .iter_mut()
            .find(|s| s["snapshot-id"] == parent)
            .unwrap();
        adder["first-row-id"] = 0.into();
        fs::write(&meta, md.to_string()).unwrap();
        let t = read(&found(tmp.clone()), &ReadOptions::default()).unwrap();
        assert_eq!(t.violations.len(), 1, "{:?}", t.violations);
        assert_eq!(t.violations[0].rule, "position_deletes_in_v3");
        assert!(t.violations[0].file.ends_with("/pos-del-2.parquet"));
        // Expired from the metadata, the snapshot no longer says: the
        // manifest holding the file was written as v2, so it is valid.
        let snaps = md["snapshots"].as_array_mut().unwrap();
        snaps.retain(|s| s["snapshot-id"] != parent);
        fs::write(&meta, md.to_string()).unwrap();
        let t = read(&found(tmp.clone()), &ReadOptions::default()).unwrap();
        assert!(t.violations.is_empty(), "{:?}", t.violations);
        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn declared_location_maps_onto_the_directory() {
        let m = PathMap {
            declared: "file:///tmp/wh/db.db/t".into(),
            dir: PathBuf::from("samples/warehouse/db.db/t"),
        };
        assert_eq!(
            m.local("file:///tmp/wh/db.db/t/data/a.parquet"),
            PathBuf::from("samples/warehouse/db.db/t/data/a.parquet")
        );
        assert_eq!(m.local("/elsewhere/x"), PathBuf::from("/elsewhere/x"));
    }
}
