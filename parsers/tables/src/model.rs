//! One table-state model for both formats: per table, per partition, per
//! data file (size, rows, deletes), and the delete files themselves.
//!
//! Memory: a data file is a few dozen bytes. Its path is kept only when the
//! file has deletes (the `deletes` report names those files); everything
//! else the audits need (partition, size, rows, sequence number) is fixed
//! size. A table with a million files therefore holds no million paths.

use plan::predicate::{ColumnStats, ColumnType};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The table format (the default: the first, Delta).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Delta Lake (`_delta_log/`).
    #[default]
    Delta,
    /// Apache Iceberg (`metadata/*.metadata.json`).
    Iceberg,
}

impl Format {
    /// `delta` or `iceberg`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Delta => "delta",
            Format::Iceberg => "iceberg",
        }
    }
}

/// One partition field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartitionField {
    /// The partition field's name (Delta: the column; Iceberg: the spec
    /// field name such as `ts_day`).
    pub name: String,
    /// The source column.
    pub source: String,
    /// `identity`, `year`, `month`, `day`, `hour`, `bucket[N]`, `truncate[W]`
    /// or an unknown transform's name.
    pub transform: String,
    /// The source column's type as the format spells it (`string`, `date`,
    /// `long`, `timestamp`, ...).
    pub source_type: String,
}

/// One partition: the spec it was written with and its values, rendered as
/// SQL-ready text (`None` is null). Delta tables use spec 0.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Partition {
    /// Iceberg partition spec id (0 for Delta).
    pub spec_id: i32,
    /// One value per field of that spec.
    pub values: Vec<Option<String>>,
}

/// A deletion vector applied to a data file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dv {
    /// Rows it deletes (metadata cardinality).
    pub cardinality: u64,
    /// Bytes read to load it (framed size; 0 for an inline Delta DV).
    pub bytes: u64,
    /// Where it lives: `inline`, or the file holding it.
    pub location: String,
    /// Offset in that file.
    pub offset: Option<u64>,
}

/// The deletes that apply to one data file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDeletes {
    /// The deletion vector that applies, if any.
    pub dv: Option<Dv>,
    /// Further DVs that reference the same data file (a protocol violation).
    pub extra_dvs: u32,
    /// Position delete files that apply (Iceberg v2).
    pub pos_files: u32,
    /// Their record counts summed: an upper bound on rows they delete here.
    pub pos_rows: u64,
    /// Rows of this file the position deletes remove, when known: every
    /// applying delete file references only this file (file-scoped), or
    /// `--deep` read them.
    pub pos_rows_exact: Option<u64>,
    /// Record counts of the applying position delete files scoped to this
    /// one file (`referenced_data_file`, or equal `file_path` bounds): the
    /// deletes Iceberg's rewrite planner counts toward its delete ratio.
    pub pos_rows_file_scoped: u64,
    /// Equality delete files that apply.
    pub eq_files: u32,
    /// Their record counts summed (rows they match are unknown without
    /// reading data).
    pub eq_rows: u64,
    /// Bytes of delete files and DV blobs opened to read this file.
    pub delete_bytes: u64,
}

impl FileDeletes {
    /// Rows deleted by deletes scoped to this file alone (its DV, else its
    /// file-scoped position deletes), known from metadata whatever `--deep`
    /// read: what Iceberg's `rewrite_data_files` weighs.
    pub fn file_scoped_deleted_rows(&self) -> u64 {
        match &self.dv {
            Some(dv) => dv.cardinality,
            None => self.pos_rows_file_scoped,
        }
    }

    /// Rows known to be deleted from the file: the DV's cardinality, else the
    /// attributable position deletes.
    pub fn known_deleted_rows(&self) -> u64 {
        match &self.dv {
            Some(dv) => dv.cardinality,
            None => self.pos_rows_exact.unwrap_or(0),
        }
    }

    /// Delete files and DVs a reader opens besides the data file.
    pub fn files_opened(&self) -> u64 {
        u64::from(self.dv.is_some()) + u64::from(self.pos_files) + u64::from(self.eq_files)
    }
}

/// One live data file.
#[derive(Clone, Debug, PartialEq)]
pub struct DataFile {
    /// Index into [`TableState::partitions`].
    pub partition: u32,
    /// Size in bytes.
    pub size: u64,
    /// Physical rows (Delta `numRecords`, Iceberg `record_count`), if known.
    pub rows: Option<u64>,
    /// Iceberg data sequence number; the commit version for Delta files
    /// added after the checkpoint, else the checkpoint version.
    pub seq: i64,
    /// Written by a clustering run (Delta `clusteringProvider`; Iceberg a
    /// non-zero `sort_order_id`).
    pub clustered: bool,
    /// The path, kept only for files with deletes and when statistics
    /// are read ([`crate::ReadOptions::stats_columns`]).
    pub path: Option<Box<str>>,
    /// Deletes that apply, if any.
    pub deletes: Option<Box<FileDeletes>>,
    /// Statistics of [`TableState::stats_columns`], in that order, when
    /// they were asked for.
    pub stats: Option<Box<[ColumnStats]>>,
}

/// Kinds of Iceberg delete files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeleteKind {
    /// A position delete file (v2).
    Position,
    /// An equality delete file.
    Equality,
    /// A deletion vector in a Puffin file (v3).
    DeletionVector,
}

/// One live Iceberg delete file or DV entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeleteFile {
    /// What it is.
    pub kind: DeleteKind,
    /// Its location as the manifest gives it.
    pub path: String,
    /// Index into [`TableState::partitions`].
    pub partition: u32,
    /// Data sequence number.
    pub seq: i64,
    /// File sequence number.
    pub file_seq: i64,
    /// Records (a DV's cardinality).
    pub records: u64,
    /// File size in bytes (for a DV, the Puffin file's).
    pub file_size: u64,
    /// The blob's offset and length (DVs).
    pub content: Option<(u64, u64)>,
    /// The one data file all its deletes reference, if known.
    pub referenced: Option<String>,
    /// Data files it applies to in this snapshot.
    pub applied_to: u64,
}

/// A broken format rule found in the metadata.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Violation {
    /// The rule, short (`multiple_dvs_per_data_file`, ...).
    pub rule: &'static str,
    /// The file concerned.
    pub file: String,
    /// Details and the rule's source.
    pub detail: String,
}

/// A table's state at its current version or snapshot.
#[derive(Debug, Default)]
pub struct TableState {
    /// Display name: the directory name, prefixed with its namespace when
    /// the parent directory is `<ns>.db`.
    pub name: String,
    /// The format.
    pub format: Option<Format>,
    /// The table directory on disk.
    pub location: PathBuf,
    /// The location the metadata declares (Iceberg), when it differs.
    pub declared_location: Option<String>,
    /// Delta version, or Iceberg snapshot id (-1 without a snapshot).
    pub version: i64,
    /// Delta `minReaderVersion/minWriterVersion`, Iceberg `format-version`.
    pub format_version: String,
    /// Table features (Delta reader + writer features; Iceberg: `v3`
    /// capabilities in use such as `deletion-vectors`).
    pub features: Vec<String>,
    /// The current partition fields.
    pub partition_fields: Vec<PartitionField>,
    /// Field names of each partition spec, by spec id (Iceberg; Delta has
    /// one spec, id 0).
    pub spec_fields: BTreeMap<i32, Vec<String>>,
    /// The current partition spec id.
    pub default_spec: i32,
    /// Delta `delta.clustering` columns, or Iceberg's default sort order.
    pub clustering_columns: Vec<String>,
    /// Table properties (Delta `configuration`, Iceberg `properties`).
    pub properties: BTreeMap<String, String>,
    /// Partitions, referenced by index from files.
    pub partitions: Vec<Partition>,
    /// Live data files.
    pub files: Vec<DataFile>,
    /// Live Iceberg delete files and DVs.
    pub delete_files: Vec<DeleteFile>,
    /// Rows deleted by position delete files whose data files are unknown
    /// without reading them (Iceberg partition-scoped deletes, no `--deep`).
    pub unattributed_deleted_rows: u64,
    /// Commits after the checkpoint (Delta).
    pub commits_since_checkpoint: Option<u64>,
    /// Broken format rules.
    pub violations: Vec<Violation>,
    /// Deletion vectors whose bytes `--deep` checked.
    pub dvs_checked: u64,
    /// Problems that did not stop the audit (a DV that fails its checks):
    /// the table is reported and the run exits 2.
    pub problems: Vec<crate::Error>,
    /// The schema's columns (nested fields dotted) and their types.
    pub columns: Vec<(String, ColumnType)>,
    /// The columns whose statistics [`DataFile::stats`] holds: those
    /// [`crate::ReadOptions::stats_columns`] asked for that the schema has.
    pub stats_columns: Vec<String>,
    /// Statistics present in the metadata that could not be read (wrong
    /// type, unparseable, not JSON): those files are never skipped on
    /// those columns.
    pub stats_unreadable: u64,
    /// What the reader worked around (a Delta checkpoint that could not be
    /// read, replaced by an older one or the commits): printed as
    /// warnings, the exit status is unchanged.
    pub warnings: Vec<String>,
    /// The commits the metadata still lists, oldest first (Delta: the
    /// `commitInfo` of every commit file in `_delta_log`, or from the
    /// checkpoint read on without [`crate::ReadOptions::history`]; Iceberg: the
    /// snapshots the metadata file lists, every one, also when an older
    /// version was read).
    pub history: Vec<Commit>,
}

/// One commit of a table's history: a Delta commit's `commitInfo`, or an
/// Iceberg snapshot and its summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Commit {
    /// The Delta version, or the Iceberg snapshot id.
    pub version: i64,
    /// The version before it: `version - 1` (Delta), the parent snapshot
    /// (Iceberg); `None` for the first.
    pub parent: Option<i64>,
    /// When it was committed, epoch ms (Delta `commitInfo.timestamp`,
    /// Iceberg `timestamp-ms`).
    pub timestamp_ms: Option<i64>,
    /// The operation as the format names it (`OPTIMIZE`, `WRITE`,
    /// `replace`, `append`, …); empty when the commit says none.
    pub operation: String,
    /// A layout rewrite: Delta `OPTIMIZE` (with or without `ZORDER BY`),
    /// `CLUSTER BY`, `REPLACE TABLE`; an Iceberg `replace` snapshot (what
    /// `rewrite_data_files` commits).
    pub rewrite: bool,
    /// Data files the commit removed and added (Delta `operationMetrics`
    /// `numRemovedFiles`/`numAddedFiles`; Iceberg `deleted-data-files`/
    /// `added-data-files`).
    pub files_removed: Option<u64>,
    /// See [`Commit::files_removed`].
    pub files_added: Option<u64>,
    /// Bytes of the data files it removed (Delta `numRemovedBytes`;
    /// Iceberg `removed-files-size`): what the rewrite read.
    pub bytes_removed: Option<u64>,
    /// Bytes of the data files it added (Delta `numAddedBytes`; Iceberg
    /// `added-files-size`): what the rewrite wrote.
    pub bytes_added: Option<u64>,
    /// The columns the commit names as its layout (Delta `zOrderBy`,
    /// `clusterBy`); empty when it names none.
    pub key: Vec<String>,
    /// What wrote it, as the commit says (at most 200 characters): Delta
    /// `commitInfo.engineInfo` (`delta-rs:py-1.6.6`, `Apache-Spark/3.5.1
    /// Delta-Lake/3.2.0`, `Databricks-Runtime/15.4.x`), Iceberg's summary
    /// `engine-name` (`spark`); `None` when it says nothing.
    pub engine: Option<String>,
    /// The target file size the commit names, bytes (delta-rs'
    /// `operationParameters.targetSize`: the buffered, uncompressed bytes
    /// at which its writer closes a file); `None` when it names none.
    pub target_size: Option<u64>,
}

/// A commit's engine text as kept in [`Commit::engine`]: its first 200
/// characters (the name is someone else's; a history may repeat it in
/// every commit).
pub(crate) fn engine_text(s: &str) -> String {
    s.chars().take(200).collect()
}

impl TableState {
    /// `field=value/...` for a partition (empty for an unpartitioned file).
    pub fn partition_label(&self, idx: u32) -> String {
        let Some(p) = self.partitions.get(idx as usize) else {
            return String::new();
        };
        let names = self.spec_fields.get(&p.spec_id);
        p.values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let name = names
                    .and_then(|n| n.get(i))
                    .map(String::as_str)
                    .unwrap_or("?");
                format!("{name}={}", v.as_deref().unwrap_or("null"))
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The format (Delta when unset).
    pub fn format(&self) -> Format {
        self.format.unwrap_or(Format::Delta)
    }
}

/// Interns partitions so files hold a `u32`.
#[derive(Default)]
pub(crate) struct Partitions {
    by_hash: std::collections::HashMap<u64, Vec<u32>>,
    pub list: Vec<Partition>,
}

impl Partitions {
    /// The index of a partition, adding it when new. `values` are borrowed
    /// so a repeat costs no allocation.
    pub fn intern(&mut self, spec_id: i32, values: &[Option<&str>]) -> u32 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        spec_id.hash(&mut h);
        values.hash(&mut h);
        let key = h.finish();
        let bucket = self.by_hash.entry(key).or_default();
        for &i in bucket.iter() {
            let p = &self.list[i as usize];
            if p.spec_id == spec_id
                && p.values.len() == values.len()
                && p.values.iter().zip(values).all(|(a, b)| a.as_deref() == *b)
            {
                return i;
            }
        }
        let i = self.list.len() as u32;
        self.list.push(Partition {
            spec_id,
            values: values.iter().map(|v| v.map(str::to_string)).collect(),
        });
        bucket.push(i);
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_intern_by_value() {
        let mut p = Partitions::default();
        let a = p.intern(0, &[Some("2024-01-01"), None]);
        let b = p.intern(0, &[Some("2024-01-02"), None]);
        assert_ne!(a, b);
        assert_eq!(p.intern(0, &[Some("2024-01-01"), None]), a);
        assert_ne!(p.intern(1, &[Some("2024-01-01"), None]), a);
        assert_eq!(p.list.len(), 3);
    }

    #[test]
    fn labels_name_fields_and_nulls() {
        let t = TableState {
            spec_fields: [(0, vec!["d".to_string(), "r".to_string()])].into(),
            partitions: vec![Partition {
                spec_id: 0,
                values: vec![Some("2024-01-01".into()), None],
            }],
            ..Default::default()
        };
        assert_eq!(t.partition_label(0), "d=2024-01-01/r=null");
    }
}
