//! Row-level delete audit: per data file with deletes, and per table.
//!
//! Verdict rules (the first that fires wins):
//! * `rewrite_now`, `multiple_dvs`: more than one DV references the file in
//!   one snapshot (Iceberg spec, "Deletion Vectors": at most one).
//! * Delta `rewrite_now`, `delta_max_deleted_rows_ratio`: deleted ratio
//!   (1 − live/physical) > 0.05, `optimize.maxDeletedRowsRatio`
//!   (`DeltaSQLConf.scala`); `REORG TABLE … APPLY (PURGE)` rewrites it.
//! * Iceberg `rewrite_now`, `iceberg_delete_ratio_threshold`: file-scoped
//!   deleted ratio ≥ 0.3 (`SizeBasedFileRewritePlanner.java`).
//! * Iceberg `watch`, `amoro_segment_delete_ratio`: ratio > 0.1 (Amoro
//!   `configurations.md`).
//! * Iceberg `watch`, `equality_deletes`: equality deletes apply; every scan
//!   matches them (METHOD.md §4).
//! * Iceberg `watch`, `many_position_delete_files`: more than one position
//!   delete file applies (METHOD.md §4: they accumulate;
//!   `rewrite_position_delete_files` merges them).
//! * Iceberg `watch`, `deleted_rows_unknown`: partition-scoped position
//!   deletes: how many rows they remove here needs the delete files opened.
//! * otherwise `ok`.

use serde::Serialize;
use tables::{DataFile, Format, TableState};

/// How urgent purging a file's deletes is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Nothing to do.
    #[default]
    Ok,
    /// Costs reads; rewrite with the next compaction.
    Watch,
    /// Rewrite the file (purge its deletes) now.
    RewriteNow,
}

impl Verdict {
    /// `ok`, `watch`, `rewrite_now`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Watch => "watch",
            Verdict::RewriteNow => "rewrite_now",
        }
    }
}

/// One data file with deletes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DeleteFileRow {
    pub table: String,
    pub partition: String,
    pub data_file: String,
    pub file_rows: Option<u64>,
    pub file_bytes: u64,
    pub dvs: u64,
    pub dv_cardinality: u64,
    pub pos_delete_files: u64,
    pub pos_delete_rows: u64,
    pub eq_delete_files: u64,
    pub eq_delete_rows: u64,
    /// Rows known deleted (DV cardinality, or file-scoped position deletes).
    pub deleted_rows: u64,
    pub deleted_ratio: Option<f64>,
    /// Files a reader opens for this data file (itself included).
    pub files_opened: u64,
    pub bytes_opened: u64,
    /// `bytes_opened / file_bytes`.
    pub read_amplification: f64,
    pub verdict: Verdict,
    pub rule: &'static str,
}

/// One table's roll-up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeleteRollup {
    pub table: String,
    pub data_files_with_deletes: u64,
    pub delete_files: u64,
    pub deletion_vectors: u64,
    pub deleted_rows: u64,
    pub max_deleted_ratio: Option<f64>,
    pub rewrite_now: u64,
    pub watch: u64,
    pub ok: u64,
    /// Worst verdict.
    pub verdict: Verdict,
    /// Protocol violations, `rule: file` joined with `; `.
    pub violations: String,
}

fn verdict(format: Format, f: &DataFile, ratio: Option<f64>) -> (Verdict, &'static str) {
    let Some(d) = f.deletes.as_deref() else {
        return (Verdict::Ok, "");
    };
    if d.extra_dvs > 0 {
        return (Verdict::RewriteNow, "multiple_dvs");
    }
    match format {
        Format::Delta => {
            // Delta's own float: 1 − live / physical.
            let r = f
                .rows
                .filter(|&n| n > 0)
                .map(|n| 1.0 - n.saturating_sub(d.known_deleted_rows()) as f64 / n as f64);
            if r.is_some_and(|r| r > 0.05) {
                (Verdict::RewriteNow, "delta_max_deleted_rows_ratio")
            } else {
                (Verdict::Ok, "")
            }
        }
        Format::Iceberg => {
            if ratio.is_some_and(|r| r >= 0.3) {
                (Verdict::RewriteNow, "iceberg_delete_ratio_threshold")
            } else if ratio.is_some_and(|r| r > 0.1) {
                (Verdict::Watch, "amoro_segment_delete_ratio")
            } else if d.eq_files > 0 {
                (Verdict::Watch, "equality_deletes")
            } else if d.pos_files > 1 {
                (Verdict::Watch, "many_position_delete_files")
            } else if d.pos_files > 0 && d.pos_rows_exact.is_none() && d.dv.is_none() {
                (Verdict::Watch, "deleted_rows_unknown")
            } else {
                (Verdict::Ok, "")
            }
        }
    }
}

/// The per-file rows and the roll-up of one table.
pub fn deletes(t: &TableState) -> (Vec<DeleteFileRow>, DeleteRollup) {
    let mut rows = Vec::new();
    for f in &t.files {
        let Some(d) = f.deletes.as_deref() else {
            continue;
        };
        let known = d.known_deleted_rows();
        let exact = d.dv.is_some() || d.pos_rows_exact.is_some() || d.pos_files == 0;
        let ratio = f
            .rows
            .filter(|&n| n > 0 && exact)
            .map(|n| known.min(n) as f64 / n as f64);
        let (v, rule) = verdict(t.format(), f, ratio);
        let bytes_opened = f.size + d.delete_bytes;
        rows.push(DeleteFileRow {
            table: t.name.clone(),
            partition: t.partition_label(f.partition),
            data_file: f.path.as_deref().unwrap_or("").to_string(),
            file_rows: f.rows,
            file_bytes: f.size,
            dvs: u64::from(d.dv.is_some()) + u64::from(d.extra_dvs),
            dv_cardinality: d.dv.as_ref().map_or(0, |x| x.cardinality),
            pos_delete_files: u64::from(d.pos_files),
            pos_delete_rows: d.pos_rows,
            eq_delete_files: u64::from(d.eq_files),
            eq_delete_rows: d.eq_rows,
            deleted_rows: known,
            deleted_ratio: ratio,
            files_opened: 1 + d.files_opened() + u64::from(d.extra_dvs),
            bytes_opened,
            read_amplification: if f.size == 0 {
                1.0
            } else {
                bytes_opened as f64 / f.size as f64
            },
            verdict: v,
            rule,
        });
    }
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count() as u64;
    let worst = if count(Verdict::RewriteNow) > 0 {
        Verdict::RewriteNow
    } else if count(Verdict::Watch) > 0 || !t.violations.is_empty() {
        Verdict::Watch
    } else {
        Verdict::Ok
    };
    let mut violations: Vec<String> = t
        .violations
        .iter()
        .map(|v| format!("{}: {} ({})", v.rule, v.file, v.detail))
        .collect();
    violations.sort();
    let dvs = match t.format() {
        Format::Delta => rows.iter().map(|r| r.dvs).sum(),
        Format::Iceberg => t
            .delete_files
            .iter()
            .filter(|d| d.kind == tables::DeleteKind::DeletionVector)
            .count() as u64,
    };
    let rollup = DeleteRollup {
        table: t.name.clone(),
        data_files_with_deletes: rows.len() as u64,
        delete_files: t
            .delete_files
            .iter()
            .filter(|d| d.kind != tables::DeleteKind::DeletionVector)
            .count() as u64,
        deletion_vectors: dvs,
        deleted_rows: rows.iter().map(|r| r.deleted_rows).sum::<u64>()
            + t.unattributed_deleted_rows,
        max_deleted_ratio: rows
            .iter()
            .filter_map(|r| r.deleted_ratio)
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r)))),
        rewrite_now: count(Verdict::RewriteNow),
        watch: count(Verdict::Watch),
        ok: count(Verdict::Ok),
        verdict: worst,
        violations: violations.join("; "),
    };
    (rows, rollup)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tables::{Dv, FileDeletes};

    fn file(rows: u64, deletes: FileDeletes) -> DataFile {
        DataFile {
            partition: 0,
            size: 1000,
            rows: Some(rows),
            seq: 1,
            clustered: false,
            path: Some("f.parquet".into()),
            deletes: Some(Box::new(deletes)),
            stats: None,
        }
    }

    fn dv(card: u64) -> FileDeletes {
        FileDeletes {
            dv: Some(Dv {
                cardinality: card,
                bytes: 50,
                location: "dv.bin".into(),
                offset: Some(1),
            }),
            delete_bytes: 50,
            ..Default::default()
        }
    }

    fn run(format: Format, f: DataFile) -> DeleteFileRow {
        let t = TableState {
            name: "t".into(),
            format: Some(format),
            files: vec![f],
            ..Default::default()
        };
        deletes(&t).0.remove(0)
    }

    #[test]
    fn delta_five_percent_is_rewritten() {
        let r = run(Format::Delta, file(100, dv(5)));
        assert_eq!(
            (r.verdict, r.rule),
            (Verdict::RewriteNow, "delta_max_deleted_rows_ratio")
        );
        assert_eq!(r.files_opened, 2);
        assert!((r.read_amplification - 1.05).abs() < 1e-9);
        let r = run(Format::Delta, file(1000, dv(49)));
        assert_eq!(r.verdict, Verdict::Ok);
    }

    #[test]
    fn iceberg_thresholds() {
        assert_eq!(
            run(Format::Iceberg, file(100, dv(30))).verdict,
            Verdict::RewriteNow
        );
        let r = run(Format::Iceberg, file(100, dv(29)));
        assert_eq!(
            (r.verdict, r.rule),
            (Verdict::Watch, "amoro_segment_delete_ratio")
        );
        assert_eq!(run(Format::Iceberg, file(100, dv(10))).verdict, Verdict::Ok);
        let partition_scoped = FileDeletes {
            pos_files: 1,
            pos_rows: 5,
            delete_bytes: 10,
            ..Default::default()
        };
        let r = run(Format::Iceberg, file(100, partition_scoped));
        assert_eq!(
            (r.verdict, r.rule),
            (Verdict::Watch, "deleted_rows_unknown")
        );
        assert_eq!(r.deleted_ratio, None);
        let mut two = dv(1);
        two.extra_dvs = 1;
        assert_eq!(run(Format::Iceberg, file(100, two)).rule, "multiple_dvs");
    }
}
