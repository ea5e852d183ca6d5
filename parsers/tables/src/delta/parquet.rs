//! Parquet checkpoints and sidecars, read one row group at a time so a
//! checkpoint of a million files never sits in memory whole.
//!
//! Checkpoint rows hold one action each, as struct columns (`add`,
//! `remove`, `metaData`, `protocol`, `domainMetadata`, `sidecar`,
//! `checkpointMetadata`, ...); missing columns are null (`PROTOCOL.md`,
//! "Checkpoints"). Maps are Parquet maps, which polars reads as lists of
//! `{key, value}` structs.
//!
//! Only the leaves the replay uses are decoded: each column is read with a
//! pruned Arrow field and the column chunks of the kept leaves alone. The
//! rest of an `add` row is never touched, and must not be: Spark (and
//! delta-rs with `delta.checkpoint.writeStatsAsStruct`) writes
//! `stats_parsed` min/max values and `partitionValues_parsed` in the
//! table's own types (INT96 or microsecond timestamps, dates, decimals,
//! bytes and shorts), which this polars build has no dtypes for (it panics
//! on them), and which would cost the most on a wide table.

use super::actions::{Action, Add, Domain, DvDescriptor, MetaData, Protocol, Sidecar};
use crate::error::{Error, Result};
use crate::source::Source;
use polars::prelude::*;
use polars_io::parquet::read::_internal::to_deserializer;
use polars_io::parquet::read::{infer_schema, FileMetadata};
use polars_io::prelude::ParquetReader;
use polars_io::SerReader;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

fn perr(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Parquet {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// Which actions a pass over a checkpoint file applies. A multi-part
/// checkpoint may hold `metaData` in any part (Spark spreads rows over the
/// parts by a hash), so every part's non-file actions are applied before
/// the first `add`: partition values are read against the partition
/// columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// `metaData`, `protocol`, `domainMetadata`, `sidecar`.
    NonFile,
    /// `add` (`remove` rows are tombstones for VACUUM and are skipped).
    File,
}

/// The leaves of each action column the replay reads, as paths under the
/// column; a path naming a map, list or struct keeps all of it.
const ADD: &[&[&str]] = &[
    &["path"],
    &["partitionValues"],
    &["size"],
    &["stats"],
    &["stats_parsed", "numRecords"],
    &["deletionVector"],
    &["clusteringProvider"],
];
const META_DATA: &[&[&str]] = &[&["schemaString"], &["partitionColumns"], &["configuration"]];
const PROTOCOL: &[&[&str]] = &[
    &["minReaderVersion"],
    &["minWriterVersion"],
    &["readerFeatures"],
    &["writerFeatures"],
];
const DOMAIN: &[&[&str]] = &[&["domain"], &["configuration"], &["removed"]];
const SIDECAR: &[&[&str]] = &[&["path"]];

/// `field` cut down to the `wanted` paths below it; `None` when none of
/// them is there. Only structs are descended into: their Arrow child names
/// are the Parquet names, which keeps the column chunks picked by
/// [`leaf_prefixes`] in step with the field.
fn prune(field: &ArrowField, wanted: &[&[&str]]) -> Option<ArrowField> {
    if wanted.iter().any(|w| w.is_empty()) {
        return Some(field.clone());
    }
    let ArrowDataType::Struct(children) = field.dtype() else {
        return None;
    };
    let kept: Vec<ArrowField> = children
        .iter()
        .filter_map(|c| {
            let below: Vec<&[&str]> = wanted
                .iter()
                .filter(|w| w[0] == c.name.as_str())
                .map(|w| &w[1..])
                .collect();
            if below.is_empty() {
                None
            } else {
                prune(c, &below)
            }
        })
        .collect();
    if kept.is_empty() {
        return None;
    }
    let mut f = field.clone();
    f.dtype = ArrowDataType::Struct(kept);
    Some(f)
}

/// The Parquet paths whose column chunks make up a pruned field: one per
/// kept non-struct node (all its leaves lie under it).
fn leaf_prefixes(field: &ArrowField, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    path.push(field.name.to_string());
    match field.dtype() {
        ArrowDataType::Struct(children) => {
            for c in children {
                leaf_prefixes(c, path, out);
            }
        }
        _ => out.push(path.clone()),
    }
    path.pop();
}

/// Parquet leaf columns under an Arrow type (what the deserializer takes
/// per field).
fn leaves(dtype: &ArrowDataType) -> usize {
    match dtype {
        ArrowDataType::Struct(children) => children.iter().map(|c| leaves(c.dtype())).sum(),
        ArrowDataType::List(inner)
        | ArrowDataType::LargeList(inner)
        | ArrowDataType::FixedSizeList(inner, _)
        | ArrowDataType::Map(inner, _) => leaves(inner.dtype()),
        _ => 1,
    }
}

/// The first leaf type this polars build cannot hold (it has no temporal,
/// decimal, 8- or 16-bit integer dtypes), as `name: type`.
fn unsupported(field: &ArrowField) -> Option<String> {
    use ArrowDataType as D;
    match field.dtype() {
        D::Null
        | D::Boolean
        | D::Int32
        | D::Int64
        | D::UInt32
        | D::UInt64
        | D::Float32
        | D::Float64
        | D::Utf8
        | D::LargeUtf8
        | D::Utf8View
        | D::Binary
        | D::LargeBinary
        | D::BinaryView => None,
        D::Struct(children) => children
            .iter()
            .find_map(unsupported)
            .map(|u| format!("{}.{u}", field.name)),
        D::List(inner) | D::LargeList(inner) => {
            unsupported(inner).map(|u| format!("{}.{u}", field.name))
        }
        other => Some(format!("{}: {other:?}", field.name)),
    }
}

/// An open checkpoint part or sidecar: its footer and Arrow schema.
struct Checkpoint<'p> {
    path: &'p Path,
    file: Source,
    meta: Arc<FileMetadata>,
    schema: ArrowSchema,
}

/// One action column, pruned to the leaves the replay reads.
struct Column {
    field: ArrowField,
    prefixes: Vec<Vec<String>>,
    leaves: usize,
}

impl<'p> Checkpoint<'p> {
    /// `file` is `path` opened by the table's scope, with its length.
    fn open(path: &'p Path, (mut file, len): (Source, u64)) -> Result<Self> {
        let meta =
            crate::parquet_footer::read_checked(&mut file, len).map_err(|e| perr(path, e))?;
        let schema = infer_schema(&meta).map_err(|e| perr(path, e))?;
        Ok(Checkpoint {
            path,
            file,
            meta,
            schema,
        })
    }

    /// The column `name` pruned to `wanted`; `None` when the file has no
    /// such column (or none of the wanted leaves).
    fn column(&self, name: &str, wanted: &[&[&str]]) -> Result<Option<Column>> {
        let Some(field) = self.schema.get(name).and_then(|f| prune(f, wanted)) else {
            return Ok(None);
        };
        if let Some(u) = unsupported(&field) {
            return Err(perr(
                self.path,
                format!("column {u} has a type the reader does not handle"),
            ));
        }
        let mut prefixes = Vec::new();
        leaf_prefixes(&field, &mut Vec::new(), &mut prefixes);
        let leaves = leaves(field.dtype());
        Ok(Some(Column {
            field,
            prefixes,
            leaves,
        }))
    }

    fn row_groups(&self) -> usize {
        self.meta.row_groups.len()
    }

    /// Row group `rg` of a pruned column.
    fn read(&mut self, rg: usize, col: &Column) -> Result<Series> {
        let path = self.path;
        let group = &self.meta.row_groups[rg];
        let chunks: Vec<_> = group
            .parquet_columns()
            .iter()
            .filter(|c| {
                let p = &c.descriptor().path_in_schema;
                col.prefixes.iter().any(|pre| {
                    p.len() >= pre.len() && p.iter().zip(pre).all(|(a, b)| a.as_str() == b)
                })
            })
            .collect();
        if chunks.len() != col.leaves {
            return Err(perr(
                path,
                format!(
                    "row group {rg}: column {} has {} leaf chunks, its schema {}",
                    col.field.name,
                    chunks.len(),
                    col.leaves
                ),
            ));
        }
        let mut columns = Vec::with_capacity(chunks.len());
        for c in chunks {
            let range = c.byte_range();
            let len = usize::try_from(range.end.saturating_sub(range.start))
                .map_err(|e| perr(path, e))?;
            let mut buf = vec![0u8; len];
            self.file
                .seek(SeekFrom::Start(range.start))
                .and_then(|_| self.file.read_exact(&mut buf))
                .map_err(|e| Error::io(path, e))?;
            columns.push((c, buf.into()));
        }
        // polars' page decoders assert on malformed pages (a page body
        // shorter than its 4-byte length, found by fuzz/table_checkpoint):
        // the panic is caught here and named, as the error it is.
        let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            to_deserializer(columns, col.field.clone(), None)
        }))
        .map_err(|_| {
            perr(
                path,
                format!(
                    "row group {rg}, {}: malformed page data (the decoder panicked)",
                    col.field.name
                ),
            )
        })?;
        let (arrays, _) =
            decoded.map_err(|e| perr(path, format!("row group {rg}, {}: {e}", col.field.name)))?;
        Series::try_from((&col.field, arrays))
            .map_err(|e| perr(path, format!("row group {rg}, {}: {e}", col.field.name)))
    }
}

/// A polars value as JSON; lists of `{key, value}` structs (Parquet maps)
/// become objects.
fn to_json(av: AnyValue<'_>) -> serde_json::Value {
    use serde_json::Value as J;
    match av {
        AnyValue::Null => J::Null,
        AnyValue::Boolean(b) => J::Bool(b),
        AnyValue::String(s) => J::String(s.to_string()),
        AnyValue::StringOwned(s) => J::String(s.to_string()),
        AnyValue::List(s) => {
            let is_map = matches!(s.dtype(), DataType::Struct(f)
                if f.len() == 2 && f[0].name() == "key" && f[1].name() == "value");
            if is_map {
                let mut m = serde_json::Map::new();
                if let Ok(sc) = s.struct_() {
                    if let (Ok(k), Ok(v)) = (sc.field_by_name("key"), sc.field_by_name("value")) {
                        for i in 0..s.len() {
                            let key = match k.get(i) {
                                Ok(AnyValue::String(x)) => x.to_string(),
                                Ok(AnyValue::StringOwned(x)) => x.to_string(),
                                _ => continue,
                            };
                            m.insert(key, v.get(i).map(to_json).unwrap_or(J::Null));
                        }
                    }
                }
                J::Object(m)
            } else {
                J::Array(
                    (0..s.len())
                        .map(|i| s.get(i).map(to_json).unwrap_or(J::Null))
                        .collect(),
                )
            }
        }
        AnyValue::Struct(_, _, fields) => {
            let names: Vec<String> = fields.iter().map(|f| f.name().to_string()).collect();
            let vals: Vec<AnyValue<'_>> = av._iter_struct_av().collect();
            J::Object(
                names
                    .into_iter()
                    .zip(vals.into_iter().map(to_json))
                    .collect(),
            )
        }
        AnyValue::StructOwned(payload) => {
            let (vals, fields) = *payload;
            J::Object(
                fields
                    .iter()
                    .map(|f| f.name().to_string())
                    .zip(vals.into_iter().map(to_json))
                    .collect(),
            )
        }
        other => {
            if let Some(i) = other.extract::<i64>() {
                J::from(i)
            } else if let Some(f) = other.extract::<f64>() {
                J::from(f)
            } else {
                J::Null
            }
        }
    }
}

/// How many rows hold each value of the string column `column`, read one
/// row group at a time (Iceberg position delete files: rows per data file
/// path). Rows with a null value are not counted. `file` is `path` opened
/// by the table's scope, with its length; its footer is checked before
/// polars reads it.
pub(crate) fn count_strings(
    path: &Path,
    (mut file, len): (Source, u64),
    column: &str,
) -> Result<HashMap<String, u64>> {
    let perr = |e: &dyn std::fmt::Display| Error::DeleteFile {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    // polars reads a file that is not local whole, from where it stands:
    // an object on a store is read into memory first (capped).
    file = file.for_polars(path, len, crate::MAX_REMOTE_DATA_FILE)?;
    let md = crate::parquet_footer::read_checked(&mut file, len).map_err(|e| perr(&e))?;
    let groups: Vec<usize> = md.row_groups.iter().map(|g| g.num_rows()).collect();
    let schema = infer_schema(&md).map_err(|e| perr(&e))?;
    if schema.get(column).is_none() {
        return Err(perr(&format!("no column {column:?}")));
    }
    let read_slice = |columns: Vec<String>, slice: Option<(usize, usize)>| -> Result<DataFrame> {
        let f = file.try_clone().map_err(|e| Error::io(path, e))?;
        // Malformed pages make polars panic (see `Checkpoint::read`).
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ParquetReader::new(f)
                .with_columns(Some(columns))
                .with_slice(slice)
                .finish()
        }))
        .map_err(|_| perr(&"malformed page data (the decoder panicked)"))?
        .map_err(|e| perr(&e))
    };
    let mut counts: HashMap<String, u64> = HashMap::new();
    let mut start = 0usize;
    for &rows in &groups {
        let df = read_slice(vec![column.to_string()], Some((start, rows)))?;
        start += rows;
        let c = df.column(column).map_err(|e| perr(&e))?;
        let values = c.str().map_err(|e| perr(&format!("{column}: {e}")))?;
        for v in values.iter().flatten() {
            match counts.get_mut(v) {
                Some(n) => *n += 1,
                None => {
                    counts.insert(v.to_string(), 1);
                }
            }
        }
    }
    Ok(counts)
}

fn int_field(s: &StructChunked, name: &str) -> Option<Int64Chunked> {
    s.field_by_name(name)
        .ok()
        .and_then(|f| f.cast(&DataType::Int64).ok())
        .and_then(|f| f.i64().ok().cloned())
}

fn str_field(s: &StructChunked, name: &str) -> Option<StringChunked> {
    s.field_by_name(name)
        .ok()
        .and_then(|f| f.str().ok().cloned())
}

/// Apply the actions of one pass over a Parquet checkpoint part or sidecar;
/// returns how many were applied.
pub(crate) fn read_actions(
    path: &Path,
    file: (Source, u64),
    pass: Pass,
    f: &mut dyn FnMut(Action<'_>) -> Result<()>,
) -> Result<usize> {
    let mut cp = Checkpoint::open(path, file)?;
    match pass {
        Pass::NonFile => read_non_file(&mut cp, f),
        Pass::File => read_adds(&mut cp, f),
    }
}

fn read_non_file(
    cp: &mut Checkpoint<'_>,
    f: &mut dyn FnMut(Action<'_>) -> Result<()>,
) -> Result<usize> {
    let path = cp.path;
    let mut actions = 0usize;
    for (name, wanted) in [
        ("metaData", META_DATA),
        ("protocol", PROTOCOL),
        ("domainMetadata", DOMAIN),
        ("sidecar", SIDECAR),
    ] {
        let Some(col) = cp.column(name, wanted)? else {
            continue;
        };
        let mut row = 0usize;
        for rg in 0..cp.row_groups() {
            let s = cp.read(rg, &col)?;
            for i in 0..s.len() {
                let av = s.get(i).map_err(|e| perr(path, e))?;
                if matches!(av, AnyValue::Null) {
                    continue;
                }
                let j = to_json(av);
                if j.is_null()
                    || j.as_object()
                        .is_some_and(|o| o.values().all(|v| v.is_null()))
                {
                    continue;
                }
                let n = row + i;
                let bad = |e: serde_json::Error| perr(path, format!("{name} row {n}: {e}"));
                let action = match name {
                    "metaData" => {
                        Action::MetaData(serde_json::from_value::<MetaData>(j).map_err(bad)?)
                    }
                    "protocol" => {
                        Action::Protocol(serde_json::from_value::<Protocol>(j).map_err(bad)?)
                    }
                    "domainMetadata" => {
                        Action::Domain(serde_json::from_value::<Domain>(j).map_err(bad)?)
                    }
                    _ => Action::Sidecar(serde_json::from_value::<Sidecar>(j).map_err(bad)?),
                };
                actions += 1;
                f(action)?;
            }
            row += s.len();
        }
    }
    Ok(actions)
}

fn read_adds(
    cp: &mut Checkpoint<'_>,
    f: &mut dyn FnMut(Action<'_>) -> Result<()>,
) -> Result<usize> {
    let path = cp.path;
    let Some(col) = cp.column("add", ADD)? else {
        return Ok(0);
    };
    let mut actions = 0usize;
    for rg in 0..cp.row_groups() {
        let s = cp.read(rg, &col)?;
        let nulls = s.is_null();
        let st = s.struct_().map_err(|e| perr(path, e))?;
        let paths = str_field(st, "path").ok_or_else(|| perr(path, "add.path is missing"))?;
        let sizes = int_field(st, "size");
        let stats = str_field(st, "stats");
        let stats_parsed = st
            .field_by_name("stats_parsed")
            .ok()
            .and_then(|sp| sp.struct_().ok().and_then(|sp| int_field(sp, "numRecords")));
        let clustering = str_field(st, "clusteringProvider");
        let pvs = st
            .field_by_name("partitionValues")
            .ok()
            .and_then(|p| p.list().ok().cloned());
        let dv = st.field_by_name("deletionVector").ok();
        let dv_nulls = dv.as_ref().map(|d| d.is_null());
        let dv = dv.as_ref().and_then(|d| d.struct_().ok().cloned());
        let dv_cols = dv.as_ref().map(|d| {
            (
                str_field(d, "storageType"),
                str_field(d, "pathOrInlineDv"),
                int_field(d, "offset"),
                int_field(d, "sizeInBytes"),
                int_field(d, "cardinality"),
            )
        });
        for i in 0..s.len() {
            if nulls.get(i) == Some(true) {
                continue;
            }
            let Some(p) = paths.get(i) else {
                continue;
            };
            let num_records = match stats.as_ref().and_then(|c| c.get(i)) {
                Some(text) => super::actions::num_records(text)
                    .map_err(|e| perr(path, format!("add of {p}: {e}")))?,
                None => stats_parsed.as_ref().and_then(|c| c.get(i)),
            };
            let mut partition_values: Vec<(Cow<'_, str>, Option<Cow<'_, str>>)> = Vec::new();
            if let Some(list) = pvs.as_ref().and_then(|l| l.get_as_series(i)) {
                if let Ok(kv) = list.struct_() {
                    if let (Some(k), Some(v)) = (str_field(kv, "key"), str_field(kv, "value")) {
                        for j in 0..kv.len() {
                            if let Some(key) = k.get(j) {
                                partition_values.push((
                                    Cow::Owned(key.to_string()),
                                    v.get(j).map(|x| Cow::Owned(x.to_string())),
                                ));
                            }
                        }
                    }
                }
            }
            partition_values.sort_by(|a, b| a.0.cmp(&b.0));
            let dv = match (&dv_cols, &dv_nulls) {
                (Some((Some(t), Some(p), off, size, card)), Some(dn))
                    if dn.get(i) != Some(true) =>
                {
                    match (t.get(i), p.get(i)) {
                        (Some(t), Some(pv)) => Some(DvDescriptor {
                            storage_type: t.to_string(),
                            path_or_inline: pv.to_string(),
                            offset: off.as_ref().and_then(|c| c.get(i)),
                            size: size.as_ref().and_then(|c| c.get(i)).unwrap_or(0),
                            cardinality: card.as_ref().and_then(|c| c.get(i)).unwrap_or(0),
                        }),
                        _ => None,
                    }
                }
                _ => None,
            };
            actions += 1;
            f(Action::Add(Add {
                path: Cow::Borrowed(p),
                partition_values,
                size: sizes.as_ref().and_then(|c| c.get(i)),
                num_records,
                stats: stats.as_ref().and_then(|c| c.get(i)).map(Cow::Borrowed),
                dv,
                clustered: clustering.as_ref().and_then(|c| c.get(i)).is_some(),
            }))?;
        }
    }
    Ok(actions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    fn opened(p: &Path) -> (Source, u64) {
        let f = std::fs::File::open(p).unwrap();
        let len = f.metadata().unwrap().len();
        (Source::Local(f), len)
    }

    /// A table of `tables/checkpoints` (scripts/make_table_fixtures.py:
    /// written by deltalake with `delta.checkpoint.writeStatsAsStruct`, a
    /// classic checkpoint at version 9).
    fn table(name: &str) -> PathBuf {
        testdata::data(&format!("tables/checkpoints/{name}"))
    }

    fn checkpoint(name: &str) -> PathBuf {
        table(name).join("_delta_log/00000000000000000009.checkpoint.parquet")
    }

    /// `path -> (size, rows, partition values)` of each file.
    type Files = BTreeMap<String, (Option<i64>, Option<i64>, Vec<(String, Option<String>)>)>;

    /// The `add` rows of a checkpoint, through the pruned reader.
    fn adds(p: &Path) -> Files {
        let mut out = Files::new();
        let n = read_actions(p, opened(p), Pass::File, &mut |a| {
            if let Action::Add(a) = a {
                let mut pv: Vec<(String, Option<String>)> = a
                    .partition_values
                    .into_iter()
                    .map(|(k, v)| (k.into_owned(), v.map(Cow::into_owned)))
                    .collect();
                pv.sort();
                out.insert(a.path.into_owned(), (a.size, a.num_records, pv));
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(n, out.len());
        out
    }

    /// The live files after the JSON commits `0..=version` (adds less
    /// removes), with the row counts of their JSON `stats`: what the same
    /// writer's checkpoint at `version` holds.
    fn from_commits(name: &str, version: u64) -> Files {
        let mut out = Files::new();
        for v in 0..=version {
            let text =
                std::fs::read_to_string(table(name).join(format!("_delta_log/{v:020}.json")))
                    .unwrap();
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let j: serde_json::Value = serde_json::from_str(line).unwrap();
                if let Some(r) = j.get("remove") {
                    out.remove(r["path"].as_str().unwrap());
                }
                let Some(a) = j.get("add") else { continue };
                let stats: serde_json::Value =
                    serde_json::from_str(a["stats"].as_str().unwrap()).unwrap();
                let mut pv: Vec<(String, Option<String>)> = a["partitionValues"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().map(str::to_string)))
                    .collect();
                pv.sort();
                out.insert(
                    a["path"].as_str().unwrap().to_string(),
                    (a["size"].as_i64(), stats["numRecords"].as_i64(), pv),
                );
            }
        }
        out
    }

    fn kept(col: &Column) -> Vec<&str> {
        let ArrowDataType::Struct(kept) = col.field.dtype() else {
            panic!("add is a struct")
        };
        kept.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn typed_stats_and_partition_values_of_a_delta_rs_checkpoint_are_never_decoded() {
        // delta-rs writes `partitionValues_parsed` (a date) and
        // `stats_parsed` min/max values (a UTC timestamp, a decimal, a date)
        // into each `add`: reading the whole `add` column made polars panic.
        let p = checkpoint("typed_stats");
        let cp = Checkpoint::open(&p, opened(&p)).unwrap();
        let whole = unsupported(cp.schema.get("add").unwrap()).unwrap();
        assert!(
            whole.starts_with("add.partitionValues_parsed.day: Date32"),
            "{whole}"
        );
        let col = cp.column("add", ADD).unwrap().unwrap();
        assert_eq!(
            kept(&col),
            [
                "path",
                "partitionValues",
                "size",
                "stats",
                "stats_parsed",
                "deletionVector",
                "clusteringProvider"
            ]
        );
        // path, the map's key and value, size, stats, numRecords, five DV
        // fields, clustering provider.
        assert_eq!(col.leaves, 12);
        // A kept leaf of a type polars cannot hold is an error naming the
        // file and the column, not a panic.
        let err = cp
            .column("add", &[&["stats_parsed", "minValues"]])
            .err()
            .expect("minValues holds a timestamp")
            .to_string();
        assert!(err.starts_with(&format!("{}: ", p.display())), "{err}");
        assert!(
            err.contains("column add.stats_parsed.minValues.ts: Timestamp"),
            "{err}"
        );
        // Compaction of the first day at 9: 7 live files (3 per other day),
        // the 3 removed ones are tombstones in the checkpoint.
        let got = adds(&p);
        assert_eq!(got.len(), 7);
        assert_eq!(got, from_commits("typed_stats", 9));
        assert_eq!(got.values().map(|a| a.1.unwrap()).sum::<i64>(), 9 * 40);
        // protocol and metaData, read in the first pass.
        let mut n = 0;
        read_actions(&p, opened(&p), Pass::NonFile, &mut |a| {
            assert!(matches!(a, Action::Protocol(_) | Action::MetaData(_)));
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 2);
    }

    #[test]
    fn row_counts_only_in_stats_parsed() {
        // `delta.checkpoint.writeStatsAsJson=false`: the checkpoint's adds
        // have no `stats` column; the row counts are in
        // `stats_parsed.numRecords` alone.
        let p = checkpoint("struct_stats_only");
        let cp = Checkpoint::open(&p, opened(&p)).unwrap();
        let col = cp.column("add", ADD).unwrap().unwrap();
        assert_eq!(
            kept(&col),
            [
                "path",
                "partitionValues",
                "size",
                "stats_parsed",
                "deletionVector",
                "clusteringProvider"
            ]
        );
        let got = adds(&p);
        assert_eq!(got.len(), 7);
        assert!(got.values().all(|a| a.1.is_some()));
        assert_eq!(got, from_commits("struct_stats_only", 9));
        assert_eq!(got.values().map(|a| a.1.unwrap()).sum::<i64>(), 9 * 30);
    }

    #[test]
    fn pruning_keeps_the_wanted_leaves_in_file_order() {
        let f = |n: &str, t: ArrowDataType| ArrowField::new(n.into(), t, true);
        let stats = f(
            "stats_parsed",
            ArrowDataType::Struct(vec![
                f("numRecords", ArrowDataType::Int64),
                f(
                    "minValues",
                    ArrowDataType::Struct(vec![f("d", ArrowDataType::Date32)]),
                ),
            ]),
        );
        let map = f(
            "partitionValues",
            ArrowDataType::LargeList(Box::new(f(
                "key_value",
                ArrowDataType::Struct(vec![
                    f("key", ArrowDataType::Utf8View),
                    f("value", ArrowDataType::Utf8View),
                ]),
            ))),
        );
        let add = f(
            "add",
            ArrowDataType::Struct(vec![
                f("path", ArrowDataType::Utf8View),
                map,
                f("modificationTime", ArrowDataType::Int64),
                stats,
            ]),
        );
        assert!(unsupported(&add).is_some());
        let p = prune(&add, ADD).unwrap();
        assert!(unsupported(&p).is_none());
        let mut prefixes = Vec::new();
        leaf_prefixes(&p, &mut Vec::new(), &mut prefixes);
        assert_eq!(
            prefixes,
            [
                vec!["add", "path"],
                vec!["add", "partitionValues"],
                vec!["add", "stats_parsed", "numRecords"],
            ]
        );
        assert_eq!(leaves(p.dtype()), 4);
        assert!(prune(&add, &[&["tags"]]).is_none());
    }
}
