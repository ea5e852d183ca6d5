//! The `table_state` record.

use crate::policy::{Policy, Settings};
use serde::Serialize;
use tables::{DeleteKind, Format, TableState};

/// One table's state, as `lakeaudit tables` writes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TableStateRow {
    pub table: String,
    pub format: tables::Format,
    pub location: String,
    pub version_or_snapshot: i64,
    pub format_version: String,
    /// Lists stay lists: JSON arrays; CSV and Parquet join them with `;`.
    pub features: Vec<String>,
    pub partition_columns: Vec<String>,
    pub clustering_columns: Vec<String>,
    pub files: u64,
    pub bytes: u64,
    pub rows_physical: u64,
    pub rows_deleted: u64,
    pub rows_live: u64,
    pub file_size_p10: u64,
    pub file_size_p50: u64,
    pub file_size_p90: u64,
    /// Files below the format's small-file size (Delta `minFileSize`,
    /// Iceberg 0.75 × target).
    pub small_files: u64,
    pub small_bytes: u64,
    /// The size under which a file counts as small.
    pub small_file_threshold: u64,
    pub pos_delete_files: u64,
    pub eq_delete_files: u64,
    pub deletion_vectors: u64,
    pub dv_bytes: u64,
    pub commits_since_checkpoint: Option<u64>,
    /// Share of files whose row count the metadata gives.
    pub stats_coverage: f64,
    /// Broken format rules found (see the `deletes` output).
    pub violations: u64,
}

/// Nearest-rank percentile of sorted sizes.
fn percentile(sorted: &[u64], p: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as u64).div_ceil(100).max(1);
    sorted[(rank - 1) as usize]
}

/// The `table_state` record of a table; `target` is `--target-size`.
pub fn summarize(t: &TableState, target: Option<u64>) -> TableStateRow {
    let mut sizes: Vec<u64> = t.files.iter().map(|f| f.size).collect();
    sizes.sort_unstable();
    let policy = match t.format() {
        Format::Delta => Policy::Delta,
        Format::Iceberg => Policy::Iceberg,
    };
    let small = Settings::for_table(t, policy, target).min;
    let rows_physical: u64 = t.files.iter().filter_map(|f| f.rows).sum();
    let mut rows_deleted: u64 = t
        .files
        .iter()
        .filter_map(|f| f.deletes.as_ref())
        .map(|d| d.known_deleted_rows())
        .sum();
    rows_deleted += t.unattributed_deleted_rows;
    let (dvs, dv_bytes) = match t.format() {
        Format::Delta => t
            .files
            .iter()
            .filter_map(|f| f.deletes.as_ref()?.dv.as_ref())
            .fold((0, 0), |(n, b), dv| (n + 1, b + dv.bytes)),
        Format::Iceberg => t
            .delete_files
            .iter()
            .filter(|d| d.kind == DeleteKind::DeletionVector)
            .fold((0, 0), |(n, b), d| {
                (n + 1, b + d.content.map_or(0, |c| c.1))
            }),
    };
    let count = |k: DeleteKind| t.delete_files.iter().filter(|d| d.kind == k).count() as u64;
    let with_rows = t.files.iter().filter(|f| f.rows.is_some()).count();
    TableStateRow {
        table: t.name.clone(),
        format: t.format(),
        location: t.location.display().to_string(),
        version_or_snapshot: t.version,
        format_version: t.format_version.clone(),
        features: t.features.clone(),
        partition_columns: t
            .partition_fields
            .iter()
            .map(|f| {
                if f.transform == "identity" {
                    f.source.clone()
                } else {
                    format!("{}({})", f.transform, f.source)
                }
            })
            .collect(),
        clustering_columns: t.clustering_columns.clone(),
        files: t.files.len() as u64,
        bytes: sizes.iter().sum(),
        rows_physical,
        rows_deleted,
        rows_live: rows_physical.saturating_sub(rows_deleted),
        file_size_p10: percentile(&sizes, 10),
        file_size_p50: percentile(&sizes, 50),
        file_size_p90: percentile(&sizes, 90),
        small_files: sizes.iter().filter(|&&s| s < small).count() as u64,
        small_bytes: sizes.iter().filter(|&&s| s < small).sum(),
        small_file_threshold: small,
        pos_delete_files: count(DeleteKind::Position),
        eq_delete_files: count(DeleteKind::Equality),
        deletion_vectors: dvs,
        dv_bytes,
        commits_since_checkpoint: t.commits_since_checkpoint,
        stats_coverage: if t.files.is_empty() {
            1.0
        } else {
            with_rows as f64 / t.files.len() as f64
        },
        violations: t.violations.len() as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let s: Vec<u64> = (1..=10).collect();
        assert_eq!(percentile(&s, 10), 1);
        assert_eq!(percentile(&s, 50), 5);
        assert_eq!(percentile(&s, 90), 9);
        assert_eq!(percentile(&[7], 90), 7);
        assert_eq!(percentile(&[], 50), 0);
    }
}
