//! The files a rewrite would write under a candidate layout, simulated
//! from the table's own rows.
//!
//! The columns involved (the candidate's and every predicate's) are read
//! from the table's data files with polars, from all files or, past
//! `max_rows`, from an evenly spread subset of whole files ([`sample`],
//! in [`crate::sample`]).
//! The rows are then ordered the way the rewrite orders them
//! ([`layout`]): by the one column's value (a range sort, as Delta liquid
//! clustering on one key and `ORDER BY` do), or for 2 to 4 columns along a
//! Z-order curve of the columns' ranks (`OPTIMIZE ZORDER BY`, delta-rs
//! `z_order`; liquid clustering uses a Hilbert curve, which groups values
//! much like it). They are cut into files of the table's current rows per
//! file (its average: a rewrite keeps the target file size, and the rows
//! that fit in it change little), and each simulated file's min, max and
//! null count are taken: statistics like a writer's, which
//! [`crate::read`] evaluates as it does the real ones.
//!
//! A partitioned table is laid out within each partition (a simulated file
//! never spans two, as `OPTIMIZE ZORDER BY` rewrites each partition), and
//! its files keep the partition values of the table's own files.

pub use crate::sample::{sample, Sample};
use plan::predicate::{compare, ColumnStats, Literal};
use std::cmp::Ordering;
use tables::{DataFile, TableState};

/// A sampled column ranked once: each row's dense rank (0 for null, 1 for
/// the smallest value) and the distinct values in order, so that laying
/// out and taking min/max compare small integers, not values.
#[derive(Debug, Default)]
pub struct Ranked {
    ranks: Vec<u32>,
    distinct: Vec<Literal>,
}

/// Values that do not compare (different kinds) count as equal.
fn cmp_lit(a: &Literal, b: &Literal) -> Ordering {
    compare(a, b).unwrap_or(Ordering::Equal)
}

impl Ranked {
    /// Rank one column.
    pub fn new(values: &[Option<Literal>]) -> Ranked {
        let mut idx: Vec<u32> = (0..values.len() as u32)
            .filter(|&i| values[i as usize].is_some())
            .collect();
        let val = |i: u32| values[i as usize].as_ref().expect("kept non-null rows");
        // Ties are equal values, so an unstable sort ranks alike; integer
        // and date columns sort by their number.
        let number = |v: &Literal| match v {
            Literal::Int(n) => Some(*n),
            Literal::Date(d) => Some(i64::from(*d)),
            _ => None,
        };
        let numbers: Option<Vec<i64>> = idx.iter().map(|&i| number(val(i))).collect();
        match numbers {
            Some(n) => {
                let mut pairs: Vec<(i64, u32)> = n.into_iter().zip(idx.iter().copied()).collect();
                pairs.sort_unstable();
                idx = pairs.into_iter().map(|(_, i)| i).collect();
            }
            None => idx.sort_unstable_by(|&a, &b| cmp_lit(val(a), val(b))),
        }
        let mut ranks = vec![0u32; values.len()];
        let mut distinct: Vec<Literal> = Vec::new();
        for &i in &idx {
            let v = val(i);
            if distinct
                .last()
                .is_none_or(|last| cmp_lit(last, v) != Ordering::Equal)
            {
                distinct.push(v.clone());
            }
            ranks[i as usize] = distinct.len() as u32;
        }
        Ranked { ranks, distinct }
    }
}

/// Every column of `sample` ranked ([`Ranked`]), for [`layout`]; the
/// values themselves are dropped (the ranks and distinct values hold
/// them).
pub fn rank_all(sample: &mut Sample) -> Vec<Ranked> {
    std::mem::take(&mut sample.values)
        .into_iter()
        .map(|v| Ranked::new(&v))
        .collect()
}

/// Interleave the low `bits` bits of each value, most significant first.
fn interleave(vals: &[u64], bits: u32) -> u64 {
    let mut z = 0u64;
    for b in (0..bits).rev() {
        for v in vals {
            z = (z << 1) | ((v >> b) & 1);
        }
    }
    z
}

/// One simulated file: its partition, rows and the statistics of every
/// sampled column.
#[derive(Clone, Debug)]
pub struct SimFile {
    /// The partition its rows came from (a rewrite never mixes two).
    pub partition: u32,
    /// Rows.
    pub rows: u64,
    /// Statistics per sampled column, in the sample's order.
    pub stats: Vec<ColumnStats>,
}

/// The simulated files of `sample` (ranked as `ranked`) laid out by `key`
/// (1 to 4 of its columns) within each partition, and cut every
/// `rows_per_file` rows (a file never spans two partitions, as a rewrite
/// of a partitioned table orders rows within each). With `half`, only
/// every other sampled row is laid out (and files are cut at half the
/// rows), to show how the estimate moves with the sample's size.
pub fn layout(
    sample: &Sample,
    ranked: &[Ranked],
    key: &[String],
    rows_per_file: usize,
    half: bool,
) -> Vec<SimFile> {
    let n = sample.rows();
    let key_idx: Vec<usize> = key
        .iter()
        .filter_map(|k| sample.columns.iter().position(|(c, _)| c == k))
        .collect();
    let step = if half { 2 } else { 1 };
    let rows_per_file = if half {
        rows_per_file.div_ceil(2)
    } else {
        rows_per_file
    };
    let mut order: Vec<u32> = (0..n as u32).step_by(step).collect();
    if key_idx.len() == 1 {
        let r = &ranked[key_idx[0]].ranks;
        order.sort_by_key(|&i| r[i as usize]);
    } else if !key_idx.is_empty() {
        let bits = 64 / key_idx.len() as u32;
        let top = (1u64 << bits) - 1;
        // Ranks spread over the bits: a column with few values still
        // spans the curve.
        let scale: Vec<(usize, u64)> = key_idx
            .iter()
            .map(|&k| (k, ranked[k].distinct.len() as u64))
            .collect();
        let z: Vec<u64> = (0..n)
            .map(|i| {
                if i % step != 0 {
                    return 0;
                }
                let v: Vec<u64> = scale
                    .iter()
                    .map(|&(k, max)| {
                        let x = u64::from(ranked[k].ranks[i]);
                        if max == 0 {
                            0
                        } else {
                            ((u128::from(x) * u128::from(top)) / u128::from(max)) as u64
                        }
                    })
                    .collect();
                interleave(&v, bits)
            })
            .collect();
        order.sort_by_key(|&i| z[i as usize]);
    }
    // Partitions first, the key's order kept within each (a stable sort).
    let part = |i: u32| sample.partitions.get(i as usize).copied().unwrap_or(0);
    order.sort_by_key(|&i| part(i));
    let per = rows_per_file.max(1);
    order
        .chunk_by(|&a, &b| part(a) == part(b))
        .flat_map(|p| p.chunks(per))
        .map(|rows| {
            let stats = ranked
                .iter()
                .map(|col| {
                    let (mut lo, mut hi, mut nulls) = (u32::MAX, 0u32, 0u64);
                    for &r in rows {
                        let k = col.ranks[r as usize];
                        if k == 0 {
                            nulls += 1;
                        } else {
                            lo = lo.min(k);
                            hi = hi.max(k);
                        }
                    }
                    let at = |k: u32| (k >= 1).then(|| col.distinct[k as usize - 1].clone());
                    ColumnStats {
                        min: (hi > 0).then(|| at(lo)).flatten(),
                        max: (hi > 0).then(|| at(hi)).flatten(),
                        max_exact: true,
                        null_count: Some(nulls),
                        rows: Some(rows.len() as u64),
                    }
                })
                .collect();
            SimFile {
                partition: part(rows[0]),
                rows: rows.len() as u64,
                stats,
            }
        })
        .collect()
}

/// The rows per simulated file: the table's average rows per file,
/// scaled by the share of rows the sample holds, so the simulated table
/// has about as many files as the table.
pub fn rows_per_file(t: &TableState, sample: &Sample) -> usize {
    let files = t.files.len().max(1) as f64;
    let per_file = sample.rows_total as f64 / files;
    let share = if sample.rows_total > 0 {
        sample.rows() as f64 / sample.rows_total as f64
    } else {
        1.0
    };
    (per_file * share).ceil().max(1.0) as usize
}

/// A table whose files are the simulated ones, for [`crate::read`]: the
/// bytes of a simulated file are its rows at the sample's share of the
/// table's bytes, so the simulated files add up to the table's bytes. Its
/// partitioning is the table's, and a file's identity partition columns
/// take the statistics the table's own files of that partition have (the
/// partition value, which Delta keeps out of the data files).
pub fn simulated_table(t: &TableState, sample: &Sample, files: Vec<SimFile>) -> TableState {
    let bytes: u64 = t.files.iter().map(|f| f.size).sum();
    let per_row = if sample.rows() > 0 {
        bytes as f64 / sample.rows() as f64
    } else {
        0.0
    };
    let mut stats_columns: Vec<String> = sample.columns.iter().map(|(c, _)| c.clone()).collect();
    // Identity partition columns: where in the simulated statistics, and
    // where in the table's.
    let mut partition_cols: Vec<(usize, Option<usize>)> = Vec::new();
    for f in t
        .partition_fields
        .iter()
        .filter(|f| f.transform == "identity")
    {
        let ours = match stats_columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(&f.source))
        {
            Some(i) => i,
            None => {
                stats_columns.push(f.source.clone());
                stats_columns.len() - 1
            }
        };
        let theirs = t
            .stats_columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(&f.source));
        partition_cols.push((ours, theirs));
    }
    // A file of each partition, for its partition values.
    let mut of_partition: std::collections::BTreeMap<u32, &DataFile> = Default::default();
    for f in &t.files {
        of_partition.entry(f.partition).or_insert(f);
    }
    TableState {
        name: t.name.clone(),
        location: t.location.clone(),
        columns: t.columns.clone(),
        partition_fields: t.partition_fields.clone(),
        files: files
            .into_iter()
            .map(|f| {
                let mut stats = f.stats;
                stats.resize(stats_columns.len(), ColumnStats::default());
                for &(ours, theirs) in &partition_cols {
                    stats[ours] = theirs
                        .and_then(|i| of_partition.get(&f.partition)?.stats.as_ref()?.get(i))
                        .cloned()
                        .unwrap_or_default();
                }
                DataFile {
                    partition: f.partition,
                    size: (f.rows as f64 * per_row).round() as u64,
                    rows: Some(f.rows),
                    seq: 0,
                    clustered: true,
                    path: None,
                    deletes: None,
                    stats: Some(stats.into()),
                }
            })
            .collect(),
        stats_columns,
        ..TableState::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plan::predicate::{ColumnType, IntWidth};

    #[test]
    fn z_order_interleaves_most_significant_bits_first() {
        assert_eq!(interleave(&[0b10, 0b01], 2), 0b1001);
        assert_eq!(interleave(&[0b11], 2), 0b11);
    }

    #[test]
    fn ranks_are_dense_with_nulls_first() {
        let v = vec![
            Some(Literal::Int(5)),
            None,
            Some(Literal::Int(1)),
            Some(Literal::Int(5)),
        ];
        let r = Ranked::new(&v);
        assert_eq!(r.ranks, vec![2, 0, 1, 2]);
        assert_eq!(r.distinct, vec![Literal::Int(1), Literal::Int(5)]);
    }

    #[test]
    fn a_range_sort_gives_disjoint_files() {
        let s = Sample {
            columns: vec![("k".into(), ColumnType::Integer(IntWidth::Long))],
            values: vec![(0..100).rev().map(|i| Some(Literal::Int(i))).collect()],
            rows: 100,
            partitions: Vec::new(),
            files_read: 1,
            files_total: 1,
            rows_total: 100,
            ..Sample::default()
        };
        let mut s = s;
        let ranked = rank_all(&mut s);
        let files = layout(&s, &ranked, &["k".to_string()], 25, false);
        assert_eq!(layout(&s, &ranked, &["k".to_string()], 25, true).len(), 4);
        assert_eq!(files.len(), 4);
        assert_eq!(files[0].stats[0].min, Some(Literal::Int(0)));
        assert_eq!(files[0].stats[0].max, Some(Literal::Int(24)));
        assert_eq!(files[3].stats[0].max, Some(Literal::Int(99)));
    }

    #[test]
    fn a_partitioned_table_is_laid_out_within_each_partition() {
        // Rows of two partitions (p = 1, p = 2) interleaved; Delta keeps p
        // out of the data files, so the sample reads it as null.
        let mut s = Sample {
            columns: vec![
                ("k".into(), ColumnType::Integer(IntWidth::Long)),
                ("p".into(), ColumnType::Integer(IntWidth::Long)),
            ],
            values: vec![
                (0..40).map(|i| Some(Literal::Int(i))).collect(),
                vec![None; 40],
            ],
            rows: 40,
            partitions: (0..40).map(|i| i % 2).collect(),
            files_read: 2,
            files_total: 2,
            rows_total: 40,
            ..Sample::default()
        };
        let ranked = rank_all(&mut s);
        let files = layout(&s, &ranked, &["k".to_string()], 15, false);
        // 20 rows a partition: files of 15 and 5, never mixed.
        let shape: Vec<(u32, u64)> = files.iter().map(|f| (f.partition, f.rows)).collect();
        assert_eq!(shape, vec![(0, 15), (0, 5), (1, 15), (1, 5)]);
        assert_eq!(files[1].stats[0].min, Some(Literal::Int(30)));
        assert_eq!(files[2].stats[0].min, Some(Literal::Int(1)));
        let exact = |v| ColumnStats {
            min: Some(Literal::Int(v)),
            max: Some(Literal::Int(v)),
            max_exact: true,
            null_count: Some(0),
            rows: Some(20),
        };
        let real = |partition, v| DataFile {
            partition,
            size: 100,
            rows: Some(20),
            seq: 0,
            clustered: false,
            path: None,
            deletes: None,
            stats: Some(vec![exact(v)].into()),
        };
        let t = TableState {
            columns: s.columns.clone(),
            stats_columns: vec!["p".into()],
            partition_fields: vec![tables::PartitionField {
                name: "p".into(),
                source: "p".into(),
                transform: "identity".into(),
                source_type: "integer".into(),
            }],
            files: vec![real(0, 1), real(1, 2)],
            ..TableState::default()
        };
        let sim = simulated_table(&t, &s, files);
        let p = crate::predicates(None, Some("[(p#3 = 2)]"), &t.columns);
        // Pruned to partition p = 2 by every engine, on the partition
        // values and not on the nulls the sample read.
        for engine in [crate::Engine::None, crate::Engine::MinMax] {
            assert_eq!(crate::read(&sim, &p, engine).files_read, 2);
        }
    }
}
