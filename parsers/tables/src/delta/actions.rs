//! Delta log actions as the replay needs them, from JSON lines (commits and
//! v2 JSON checkpoints) and from Parquet checkpoint rows alike.

use crate::error::Reason;
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::HashMap;

/// A deletion-vector descriptor (`PROTOCOL.md`, "Deletion Vector Descriptor
/// Schema").
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub(crate) struct DvDescriptor {
    /// `u` (relative, Z85 UUID), `i` (inline), `p` (absolute path).
    #[serde(rename = "storageType")]
    pub storage_type: String,
    /// The encoded path, inline bitmap or absolute path.
    #[serde(rename = "pathOrInlineDv")]
    pub path_or_inline: String,
    /// Offset in the DV file (absent for inline; 0 when absent otherwise).
    #[serde(default)]
    pub offset: Option<i64>,
    /// Size of magic + bitmap.
    #[serde(rename = "sizeInBytes")]
    pub size: i64,
    /// Rows it deletes.
    pub cardinality: i64,
}

impl DvDescriptor {
    /// The derived `uniqueId`: `<storageType><pathOrInlineDv>[@<offset>]`.
    pub fn unique_id(&self) -> String {
        match self.offset {
            Some(o) => format!("{}{}@{o}", self.storage_type, self.path_or_inline),
            None => format!("{}{}", self.storage_type, self.path_or_inline),
        }
    }
}

/// An `add` action, reduced to what the audit uses.
#[derive(Debug)]
pub(crate) struct Add<'a> {
    pub path: Cow<'a, str>,
    pub partition_values: Vec<(Cow<'a, str>, Option<Cow<'a, str>>)>,
    pub size: Option<i64>,
    pub num_records: Option<i64>,
    /// The `stats` JSON, for the column statistics.
    pub stats: Option<Cow<'a, str>>,
    pub dv: Option<DvDescriptor>,
    pub clustered: bool,
}

/// A `remove` action's key.
#[derive(Debug)]
pub(crate) struct Remove<'a> {
    pub path: Cow<'a, str>,
    pub dv: Option<DvDescriptor>,
}

/// `metaData`.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct MetaData {
    #[serde(rename = "schemaString", default)]
    pub schema_string: Option<String>,
    #[serde(rename = "partitionColumns", default)]
    pub partition_columns: Option<Vec<String>>,
    #[serde(default)]
    pub configuration: Option<HashMap<String, Option<String>>>,
}

/// `protocol`.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct Protocol {
    #[serde(rename = "minReaderVersion", default)]
    pub min_reader: Option<i64>,
    #[serde(rename = "minWriterVersion", default)]
    pub min_writer: Option<i64>,
    #[serde(rename = "readerFeatures", default)]
    pub reader_features: Option<Vec<String>>,
    #[serde(rename = "writerFeatures", default)]
    pub writer_features: Option<Vec<String>>,
}

/// `domainMetadata`.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Domain {
    pub domain: String,
    #[serde(default)]
    pub configuration: Option<String>,
    #[serde(default)]
    pub removed: Option<bool>,
}

/// `sidecar` (v2 checkpoints).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Sidecar {
    pub path: String,
}

#[derive(Deserialize)]
struct AddJson<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow, rename = "partitionValues", default)]
    partition_values: Option<HashMap<Cow<'a, str>, Option<Cow<'a, str>>>>,
    #[serde(default)]
    size: Option<i64>,
    #[serde(borrow, default)]
    stats: Option<Cow<'a, str>>,
    #[serde(rename = "deletionVector", default)]
    deletion_vector: Option<DvDescriptor>,
    #[serde(borrow, rename = "clusteringProvider", default)]
    clustering_provider: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct RemoveJson<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(rename = "deletionVector", default)]
    deletion_vector: Option<DvDescriptor>,
}

#[derive(Deserialize)]
struct LineJson<'a> {
    #[serde(borrow, default)]
    add: Option<AddJson<'a>>,
    #[serde(borrow, default)]
    remove: Option<RemoveJson<'a>>,
    #[serde(rename = "metaData", default)]
    meta_data: Option<MetaData>,
    #[serde(default)]
    protocol: Option<Protocol>,
    #[serde(rename = "domainMetadata", default)]
    domain_metadata: Option<Domain>,
    #[serde(default)]
    sidecar: Option<Sidecar>,
}

/// One action of a JSON line (other action kinds are `Other`).
#[derive(Debug)]
pub(crate) enum Action<'a> {
    Add(Add<'a>),
    Remove(Remove<'a>),
    MetaData(MetaData),
    Protocol(Protocol),
    Domain(Domain),
    Sidecar(Sidecar),
    Other,
}

#[derive(Deserialize)]
struct StatsHead {
    #[serde(rename = "numRecords", default)]
    num_records: Option<i64>,
}

/// `numRecords` of a stats JSON string.
pub(crate) fn num_records(stats: &str) -> Result<Option<i64>, Reason> {
    serde_json::from_str::<StatsHead>(stats)
        .map(|s| s.num_records)
        .map_err(Reason::StatsNotJson)
}

/// Parse one line of a commit or JSON checkpoint.
pub(crate) fn parse_line(line: &str) -> Result<Action<'_>, Reason> {
    let l: LineJson<'_> = serde_json::from_str(line).map_err(Reason::ActionJson)?;
    if let Some(a) = l.add {
        let num_records = match a.stats.as_deref() {
            Some(s) => num_records(s)?,
            None => None,
        };
        let mut pv: Vec<_> = a.partition_values.unwrap_or_default().into_iter().collect();
        pv.sort_by(|x, y| x.0.cmp(&y.0));
        return Ok(Action::Add(Add {
            path: a.path,
            partition_values: pv,
            size: a.size,
            num_records,
            stats: a.stats,
            dv: a.deletion_vector,
            clustered: a.clustering_provider.is_some(),
        }));
    }
    if let Some(r) = l.remove {
        return Ok(Action::Remove(Remove {
            path: r.path,
            dv: r.deletion_vector,
        }));
    }
    if let Some(m) = l.meta_data {
        return Ok(Action::MetaData(m));
    }
    if let Some(p) = l.protocol {
        return Ok(Action::Protocol(p));
    }
    if let Some(d) = l.domain_metadata {
        return Ok(Action::Domain(d));
    }
    if let Some(s) = l.sidecar {
        return Ok(Action::Sidecar(s));
    }
    Ok(Action::Other)
}

/// A Delta schema's fields: logical dotted name, physical dotted name (the
/// `delta.columnMapping.physicalName`, else the name) and type text.
pub(crate) fn schema_fields(schema: &str) -> Vec<(String, String, String)> {
    fn walk(v: &serde_json::Value, lp: &str, pp: &str, out: &mut Vec<(String, String, String)>) {
        let Some(fields) = v.get("fields").and_then(|f| f.as_array()) else {
            return;
        };
        for f in fields {
            let Some(name) = f.get("name").and_then(|n| n.as_str()) else {
                continue;
            };
            let phys = f
                .get("metadata")
                .and_then(|m| m.get("delta.columnMapping.physicalName"))
                .and_then(|p| p.as_str())
                .unwrap_or(name);
            let l = if lp.is_empty() {
                name.to_string()
            } else {
                format!("{lp}.{name}")
            };
            let p = if pp.is_empty() {
                phys.to_string()
            } else {
                format!("{pp}.{phys}")
            };
            let ty = f.get("type").cloned().unwrap_or(serde_json::Value::Null);
            let ty_text = match &ty {
                serde_json::Value::String(s) => s.clone(),
                other => other
                    .get("type")
                    .and_then(|t| t.as_str())
                    .unwrap_or("struct")
                    .to_string(),
            };
            out.push((l.clone(), p.clone(), ty_text));
            if ty.get("type").and_then(|t| t.as_str()) == Some("struct") {
                walk(&ty, &l, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(schema) {
        walk(&v, "", "", &mut out);
    }
    out
}

/// The clustering columns of a `delta.clustering` domain configuration:
/// `{"clusteringColumns": [["a"], ["b", "c"]]}` (Spark: nested name parts)
/// or `["a", "b.c"]` (the protocol's example). Parts are joined with `.`.
pub(crate) fn clustering_columns(configuration: &str) -> Result<Vec<String>, Reason> {
    let v: serde_json::Value =
        serde_json::from_str(configuration).map_err(Reason::ConfigurationNotJson)?;
    let Some(cols) = v.get("clusteringColumns").and_then(|c| c.as_array()) else {
        return Err(Reason::NoClusteringColumns);
    };
    cols.iter()
        .map(|c| match c {
            serde_json::Value::String(s) => Ok(s.clone()),
            serde_json::Value::Array(parts) => parts
                .iter()
                .map(|p| {
                    p.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| Reason::ClusteringPart { part: p.clone() })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(|p| p.join(".")),
            other => Err(Reason::ClusteringColumn {
                column: other.clone(),
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_lines_with_nulls_and_stats() {
        let line = r#"{"add":{"path":"d=2024-01-01/part-0.parquet","partitionValues":{"d":"2024-01-01","e":null},"size":540,"modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":10,\"minValues\":{\"k\":0}}","tags":null,"deletionVector":null,"baseRowId":null,"defaultRowCommitVersion":null,"clusteringProvider":null}}"#;
        let Action::Add(a) = parse_line(line).unwrap() else {
            panic!("not an add")
        };
        assert_eq!(a.path, "d=2024-01-01/part-0.parquet");
        assert_eq!(a.size, Some(540));
        assert_eq!(a.num_records, Some(10));
        assert!(a.dv.is_none() && !a.clustered);
        assert_eq!(a.partition_values[1].1, None);
    }

    #[test]
    fn dv_descriptors_and_unique_ids() {
        let line = r#"{"add":{"path":"p.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":4,"sizeInBytes":40,"cardinality":6},"clusteringProvider":"liquid"}}"#;
        let Action::Add(a) = parse_line(line).unwrap() else {
            panic!()
        };
        let dv = a.dv.unwrap();
        assert_eq!(dv.unique_id(), "uab^-aqEH.-t@S}K{vb[*k^@4");
        assert!(a.clustered);
        assert!(matches!(
            parse_line(r#"{"commitInfo":{"operation":"WRITE"}}"#),
            Ok(Action::Other)
        ));
        assert!(parse_line("{\"add\":").is_err());
    }

    #[test]
    fn clustering_domain_in_both_shapes() {
        assert_eq!(
            clustering_columns(r#"{"clusteringColumns":[["c_custkey"],["addr","zip"]],"domainName":"delta.clustering"}"#).unwrap(),
            vec!["c_custkey", "addr.zip"]
        );
        assert_eq!(
            clustering_columns(r#"{"clusteringColumns":["a","b"]}"#).unwrap(),
            vec!["a", "b"]
        );
        assert!(clustering_columns(r#"{"other":1}"#).is_err());
    }

    #[test]
    fn column_mapping_names() {
        let s = r#"{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{"delta.columnMapping.physicalName":"col-1"}},{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"date","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}"#;
        let f = schema_fields(s);
        assert_eq!(f[0], ("a".into(), "col-1".into(), "long".into()));
        assert_eq!(f[2], ("s.x".into(), "s.x".into(), "date".into()));
    }
}
