//! Parquet checkpoints and sidecars, read with polars one row group at a
//! time so a checkpoint of a million files never sits in memory whole.
//!
//! Checkpoint rows hold one action each, as struct columns (`add`,
//! `remove`, `metaData`, `protocol`, `domainMetadata`, `sidecar`,
//! `checkpointMetadata`, ...); missing columns are null (`PROTOCOL.md`,
//! "Checkpoints"). Maps are Parquet maps, which polars reads as lists of
//! `{key, value}` structs.

use super::actions::{Action, Add, Domain, DvDescriptor, MetaData, Protocol, Sidecar};
use crate::error::{Error, Result};
use polars::prelude::*;
use polars_io::prelude::ParquetReader;
use polars_io::SerReader;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

fn perr(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Parquet {
        path: path.to_path_buf(),
        reason: e.to_string(),
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

fn open(path: &Path) -> Result<ParquetReader<File>> {
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(ParquetReader::new(f))
}

/// Row counts of the file's row groups.
fn row_groups(path: &Path) -> Result<(Vec<usize>, Vec<String>)> {
    let mut r = open(path)?;
    let md = r.get_metadata().map_err(|e| perr(path, e))?.clone();
    let groups = md.row_groups.iter().map(|g| g.num_rows()).collect();
    let schema = r.schema().map_err(|e| perr(path, e))?;
    let cols = schema.iter_names().map(|n| n.to_string()).collect();
    Ok((groups, cols))
}

fn read_slice(
    path: &Path,
    columns: Vec<String>,
    slice: Option<(usize, usize)>,
) -> Result<DataFrame> {
    open(path)?
        .with_columns(Some(columns))
        .with_slice(slice)
        .finish()
        .map_err(|e| perr(path, e))
}

/// How many rows hold each value of the string column `column`, read one
/// row group at a time (Iceberg position delete files: rows per data file
/// path). Rows with a null value are not counted.
pub(crate) fn count_strings(path: &Path, column: &str) -> Result<HashMap<String, u64>> {
    let (groups, cols) = row_groups(path)?;
    if !cols.iter().any(|c| c == column) {
        return Err(perr(path, format!("no column {column:?}")));
    }
    let mut counts: HashMap<String, u64> = HashMap::new();
    let mut start = 0usize;
    for &rows in &groups {
        let df = read_slice(path, vec![column.to_string()], Some((start, rows)))?;
        start += rows;
        let c = df.column(column).map_err(|e| perr(path, e))?;
        let values = c.str().map_err(|e| perr(path, format!("{column}: {e}")))?;
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

/// Read every action of a Parquet checkpoint part or sidecar, non-file
/// actions first (so the metadata is known before the first `add`), then the
/// `add` rows. `remove` rows are tombstones for VACUUM and are skipped.
pub(crate) fn read_actions(
    path: &Path,
    f: &mut dyn FnMut(Action<'_>) -> Result<()>,
) -> Result<usize> {
    let (groups, cols) = row_groups(path)?;
    let mut actions = 0usize;
    let others: Vec<String> = ["metaData", "protocol", "domainMetadata", "sidecar"]
        .iter()
        .filter(|c| cols.iter().any(|x| x == *c))
        .map(|c| c.to_string())
        .collect();
    if !others.is_empty() {
        let df = read_slice(path, others.clone(), None)?;
        for name in &others {
            let col = df.column(name).map_err(|e| perr(path, e))?;
            let s = col.as_materialized_series();
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
                let bad = |e: serde_json::Error| perr(path, format!("{name} row {i}: {e}"));
                let action = match name.as_str() {
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
        }
    }
    let count_col = |name: &str| -> Result<usize> {
        if !cols.iter().any(|c| c == name) {
            return Ok(0);
        }
        let mut n = 0;
        let mut start = 0usize;
        for &rows in &groups {
            let df = read_slice(path, vec![name.to_string()], Some((start, rows)))?;
            start += rows;
            let c = df.column(name).map_err(|e| perr(path, e))?;
            n += c.len() - c.null_count();
        }
        Ok(n)
    };
    for name in ["remove", "txn", "checkpointMetadata"] {
        actions += count_col(name)?;
    }
    if !cols.iter().any(|c| c == "add") {
        return Ok(actions);
    }
    let mut start = 0usize;
    for &rows in &groups {
        let df = read_slice(path, vec!["add".to_string()], Some((start, rows)))?;
        start += rows;
        let col = df.column("add").map_err(|e| perr(path, e))?;
        let s = col.as_materialized_series();
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
                dv,
                clustered: clustering.as_ref().and_then(|c| c.get(i)).is_some(),
            }))?;
        }
    }
    Ok(actions)
}
