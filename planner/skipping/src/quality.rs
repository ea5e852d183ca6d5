//! How well a table's files are laid out on one column, from their
//! min/max statistics, as Snowflake's `SYSTEM$CLUSTERING_INFORMATION`
//! reports it: how many other files each file's `[min, max]` range
//! overlaps (average overlap), how many files' ranges hold a value
//! (depth, averaged over the ranges' end points, with a histogram), and
//! how many files hold a single value (constant files). A file without
//! both bounds for the column is left out and counted.
//!
//! A table sorted on the column has overlap near 0 and depth near 1: a
//! predicate on it reads few files. A table whose every file spans the
//! column's whole range has overlap `files − 1` and depth `files`.

use plan::predicate::{compare, Literal};
use serde::Serialize;
use std::cmp::Ordering;
use tables::TableState;

/// Layout quality of one table on one column.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Quality {
    /// The table.
    pub table: String,
    /// The column.
    pub column: String,
    /// Live data files.
    pub files: u64,
    /// Files with both bounds for the column (the others are left out).
    pub files_with_bounds: u64,
    /// Files whose minimum equals their maximum.
    pub constant_files: u64,
    /// Average number of other files each file's range overlaps.
    pub average_overlap: f64,
    /// Average number of files whose range holds a value, over the
    /// ranges' end points.
    pub average_depth: f64,
    /// Depth histogram: (depth bucket upper bound, end points), buckets
    /// 1, 2, 3, 4, 8, 16, 32, … as Snowflake's.
    pub depth_histogram: Vec<(u64, u64)>,
}

fn cmp(a: &Literal, b: &Literal) -> Ordering {
    compare(a, b).unwrap_or(Ordering::Equal)
}

/// The quality of `t` on `column` (a name of [`TableState::stats_columns`],
/// matched without regard to ASCII case); `None` without statistics for it.
pub fn quality(t: &TableState, column: &str) -> Option<Quality> {
    let i = t
        .stats_columns
        .iter()
        .position(|c| c.eq_ignore_ascii_case(column))?;
    let mut ranges: Vec<(&Literal, &Literal)> = t
        .files
        .iter()
        .filter_map(|f| {
            let s = f.stats.as_ref()?.get(i)?;
            match (&s.min, &s.max) {
                (Some(lo), Some(hi)) if compare(lo, hi).is_some() => Some((lo, hi)),
                _ => None,
            }
        })
        .collect();
    let n = ranges.len();
    let constant = ranges
        .iter()
        .filter(|(lo, hi)| cmp(lo, hi) == Ordering::Equal)
        .count() as u64;
    // Overlap of file k: the others minus those wholly before or after it.
    let mut los: Vec<&Literal> = ranges.iter().map(|r| r.0).collect();
    let mut his: Vec<&Literal> = ranges.iter().map(|r| r.1).collect();
    los.sort_by(|a, b| cmp(a, b));
    his.sort_by(|a, b| cmp(a, b));
    let before = |v: &Literal| his.partition_point(|h| cmp(h, v) == Ordering::Less);
    let after = |v: &Literal| n - los.partition_point(|l| cmp(l, v) != Ordering::Greater);
    let overlaps: usize = ranges
        .iter()
        .map(|(lo, hi)| n - 1 - before(lo) - after(hi))
        .sum();
    // Depth at each end point: ranges holding it.
    ranges.sort_by(|a, b| cmp(a.0, b.0));
    let mut points: Vec<&Literal> = ranges.iter().flat_map(|r| [r.0, r.1]).collect();
    points.sort_by(|a, b| cmp(a, b));
    points.dedup_by(|a, b| cmp(a, b) == Ordering::Equal);
    let depth = |v: &Literal| {
        let started = los.partition_point(|l| cmp(l, v) != Ordering::Greater);
        let ended = his.partition_point(|h| cmp(h, v) == Ordering::Less);
        (started - ended) as u64
    };
    let depths: Vec<u64> = points.iter().map(|p| depth(p)).collect();
    let mut hist: Vec<(u64, u64)> = Vec::new();
    for d in &depths {
        let bucket = if *d <= 4 { *d } else { d.next_power_of_two() };
        match hist.iter_mut().find(|(b, _)| *b == bucket) {
            Some(h) => h.1 += 1,
            None => hist.push((bucket, 1)),
        }
    }
    hist.sort();
    Some(Quality {
        table: t.name.clone(),
        column: t.stats_columns[i].clone(),
        files: t.files.len() as u64,
        files_with_bounds: n as u64,
        constant_files: constant,
        average_overlap: if n == 0 {
            0.0
        } else {
            overlaps as f64 / n as f64
        },
        average_depth: if depths.is_empty() {
            0.0
        } else {
            depths.iter().sum::<u64>() as f64 / depths.len() as f64
        },
        depth_histogram: hist,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use plan::predicate::ColumnStats;
    use tables::DataFile;

    fn table(ranges: &[(i64, i64)]) -> TableState {
        TableState {
            name: "t".into(),
            stats_columns: vec!["k".into()],
            files: ranges
                .iter()
                .map(|&(lo, hi)| DataFile {
                    partition: 0,
                    size: 1,
                    rows: Some(1),
                    seq: 0,
                    clustered: false,
                    path: None,
                    deletes: None,
                    stats: Some(
                        vec![ColumnStats {
                            min: Some(Literal::Int(lo)),
                            max: Some(Literal::Int(hi)),
                            max_exact: true,
                            null_count: Some(0),
                            rows: Some(1),
                        }]
                        .into(),
                    ),
                })
                .collect(),
            ..TableState::default()
        }
    }

    #[test]
    fn sorted_files_do_not_overlap() {
        let q = quality(&table(&[(0, 9), (10, 19), (20, 29), (30, 30)]), "K").unwrap();
        assert_eq!(q.average_overlap, 0.0);
        assert_eq!(q.average_depth, 1.0);
        assert_eq!(q.constant_files, 1);
        assert_eq!(q.depth_histogram, vec![(1, 7)]);
    }

    #[test]
    fn files_spanning_everything_overlap_all_others() {
        let q = quality(&table(&[(0, 100), (1, 99), (2, 98)]), "k").unwrap();
        assert_eq!(q.average_overlap, 2.0);
        // End points 0 and 100 lie in one range, 1 and 99 in two, 2 and 98 in three.
        assert_eq!(q.average_depth, 2.0);
        assert_eq!(q.depth_histogram, vec![(1, 2), (2, 2), (3, 2)]);
        assert!(quality(&table(&[]), "other").is_none());
    }
}
