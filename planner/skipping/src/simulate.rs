//! The files a rewrite would write under a candidate layout, simulated
//! from the table's own rows.
//!
//! The columns involved (the candidate's and every predicate's) are read
//! from the table's data files with polars, from all files or, past
//! `max_rows`, from an evenly spread subset of whole files ([`sample`],
//! in [`crate::sample`]).
//! The rows are then ordered the way the rewrite's engine orders them
//! ([`layout`], [`crate::rewriter`]): by the one column's value, or for 2
//! to 4 columns along that engine's own curve (delta-rs's and Iceberg's
//! byte-wise Z-orders, liquid clustering's Hilbert curve over range ids).
//! They are cut into files as the engine cuts them, at its target file
//! size (by bytes, each sampled row standing for its share of the table's
//! compressed bytes), and each simulated file's min, max and null count
//! are taken: statistics like a writer's, which [`crate::read`] evaluates
//! as it does the real ones.
//!
//! A partitioned table is laid out within each partition (a simulated file
//! never spans two, as `OPTIMIZE ZORDER BY` rewrites each partition), and
//! its files keep the partition values of the table's own files.

pub use crate::rank::{rank_all, Ranked};
use crate::rewriter::{
    delta_rs_bytes, delta_rs_key, hilbert_index, iceberg_bytes, iceberg_key, Curve, Cut,
    Model as _, Rewrite, RANGE_IDS,
};
pub use crate::sample::{sample, Sample};
use plan::predicate::{ColumnStats, ColumnType};
use std::cmp::Ordering;
use tables::{DataFile, TableState};

/// Interleave the low `bits` bits of each value, most significant first
/// (Delta's `interleave_bits` over 32-bit range ids).
fn interleave(vals: &[u32], bits: u32) -> u128 {
    let mut z = 0u128;
    for b in (0..bits).rev() {
        for v in vals {
            z = (z << 1) | u128::from((v >> b) & 1);
        }
    }
    z
}

/// Each row's range id of one ranked column: Spark's
/// `range_partition_id(col, RANGE_IDS)` gives a value the number of
/// range bounds below it, bounds drawn so that each range holds about as
/// many rows; here the rows below the value's rank, as a share of all rows
/// (nulls first), times the ranges.
fn range_ids(col: &Ranked) -> Vec<u32> {
    let mut below = vec![0u64; col.distinct.len() + 2];
    for &r in &col.ranks {
        below[r as usize + 1] += 1;
    }
    for i in 1..below.len() {
        below[i] += below[i - 1];
    }
    let n = col.ranks.len().max(1) as u64;
    col.ranks
        .iter()
        .map(|&r| {
            ((below[r as usize] * u64::from(RANGE_IDS)) / n).min(u64::from(RANGE_IDS) - 1) as u32
        })
        .collect()
}

/// Order `rows` (indices into the sample) along `curve` over the
/// columns `key_idx`, as the rewriter orders them; ties keep the sample's
/// order (the files' order).
fn sort_along(
    sample: &Sample,
    ranked: &[Ranked],
    key_idx: &[usize],
    curve: Curve,
    rows: &mut [u32],
) {
    if key_idx.is_empty() {
        return;
    }
    let cols: Vec<&Ranked> = key_idx.iter().map(|&k| &ranked[k]).collect();
    let types: Vec<&ColumnType> = key_idx.iter().map(|&k| &sample.columns[k].1).collect();
    match curve {
        Curve::Sort => rows.sort_by(|&a, &b| {
            cols.iter()
                .map(|c| c.ranks[a as usize].cmp(&c.ranks[b as usize]))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        }),
        Curve::RangeZOrder | Curve::RangeHilbert => {
            let ids: Vec<Vec<u32>> = cols.iter().map(|c| range_ids(c)).collect();
            let bits = 32 - (RANGE_IDS - 1).leading_zeros();
            let mut point = vec![0u32; ids.len()];
            let key: Vec<u128> = (0..sample.rows())
                .map(|i| {
                    for (p, c) in point.iter_mut().zip(&ids) {
                        *p = c[i];
                    }
                    if curve == Curve::RangeHilbert {
                        hilbert_index(&point, bits)
                    } else {
                        interleave(&point, 32)
                    }
                })
                .collect();
            rows.sort_by_key(|&i| key[i as usize]);
        }
        Curve::DeltaRsZOrder | Curve::IcebergZOrder => {
            // Each distinct value's bytes once, then each row's key.
            let width = if curve == Curve::DeltaRsZOrder { 16 } else { 8 };
            let per_value: Vec<Vec<[u8; 16]>> = cols
                .iter()
                .zip(&types)
                .map(|(c, ty)| {
                    std::iter::once(None)
                        .chain(c.distinct.iter().map(Some))
                        .map(|v| {
                            let mut o = [0u8; 16];
                            if curve == Curve::DeltaRsZOrder {
                                delta_rs_bytes(ty, v, &mut o);
                            } else {
                                o[..8].copy_from_slice(&iceberg_bytes(ty, v));
                            }
                            o
                        })
                        .collect()
                })
                .collect();
            let stride = width * cols.len();
            let mut keys: Vec<u8> = Vec::with_capacity(stride * sample.rows());
            let mut d16: Vec<[u8; 16]> = vec![[0; 16]; cols.len()];
            let mut d8: Vec<[u8; 8]> = vec![[0; 8]; cols.len()];
            for i in 0..sample.rows() {
                for (j, c) in cols.iter().enumerate() {
                    let b = &per_value[j][c.ranks[i] as usize];
                    d16[j] = *b;
                    d8[j].copy_from_slice(&b[..8]);
                }
                if curve == Curve::DeltaRsZOrder {
                    delta_rs_key(&d16, &mut keys);
                } else {
                    iceberg_key(&d8, &mut keys);
                }
            }
            let at = |i: u32| &keys[i as usize * stride..(i as usize + 1) * stride];
            rows.sort_by(|&a, &b| at(a).cmp(at(b)));
        }
    }
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

/// How [`layout`] lays a sample out: the rewrite's curve and file size,
/// and the bytes each sampled row stands for.
#[derive(Clone, Debug)]
pub struct Plan<'a> {
    /// The rewrite (rewriter, curve, target size).
    pub rewrite: &'a Rewrite,
    /// The table's bytes per sampled row: its bytes over the rows sampled,
    /// so the simulated files add up to the table's size.
    pub bytes_per_row: f64,
    /// Uncompressed bytes per row of the table (the footers' row group
    /// sizes), which delta-rs's writer closes files by.
    pub uncompressed_per_row: f64,
    /// The table's rows per sampled row (1 when every row was read).
    pub rows_per_sampled_row: f64,
    /// Each column's raw (PLAIN) bytes per row ([`Sample::plain`]), which
    /// Iceberg's writer rolls files by; empty where not read.
    pub plain_per_row: &'a [f64],
}

/// The simulated files of `sample` (ranked as `ranked`) laid out by `key`
/// (1 to 4 of its columns) within each partition as `plan`'s rewriter
/// orders them ([`order`]), and cut into files as it cuts them
/// ([`Rewriter::cut`](crate::rewriter::Rewriter::cut): by bytes, or into as many range partitions as the
/// partition's bytes over the target size; a file never spans two
/// partitions, as a rewrite of a partitioned table orders rows within
/// each). With `half`, only every other sampled row is laid out (each
/// standing for twice the bytes), to show how the estimate moves with the
/// sample's size.
pub fn layout(
    sample: &Sample,
    ranked: &[Ranked],
    key: &[String],
    plan: &Plan,
    half: bool,
) -> Vec<SimFile> {
    let rows = order(sample, ranked, key, plan.rewrite.curve);
    cut(sample, ranked, &rows, plan, half)
}

/// Every sampled row (its index) in the order a rewrite along `curve` by
/// `key` writes them: partitions first, the key's order within each, ties
/// in the sample's order. The sorts are stable, so every other row of it is
/// the order of every other sampled row ([`cut`]'s `half`).
pub fn order(sample: &Sample, ranked: &[Ranked], key: &[String], curve: Curve) -> Vec<u32> {
    let key_idx: Vec<usize> = key
        .iter()
        .filter_map(|k| sample.columns.iter().position(|(c, _)| c == k))
        .collect();
    let mut order: Vec<u32> = (0..sample.rows() as u32).collect();
    sort_along(sample, ranked, &key_idx, curve, &mut order);
    // Partitions first, the key's order kept within each (a stable sort).
    order.sort_by_key(|&i| sample.partitions.get(i as usize).copied().unwrap_or(0));
    order
}

/// The change in encoded bytes per table row of the sampled columns when
/// the rows of `rows` (one partition, in the new order) are written in files
/// of `per_file` sampled rows instead of the current files (the sample's
/// [`Sample::file_ends`]): [`crate::encoded::dictionary_bytes`] summed over
/// each order's files and columns. With `half`, of every other sampled row.
fn reencoded_per_row(
    sample: &Sample,
    ranked: &[Ranked],
    rows: &[u32],
    per_file: usize,
    half: bool,
    rows_per_sampled_row: f64,
) -> f64 {
    use crate::encoded::{dictionary_bytes, value_widths, Scratch};
    if rows.is_empty() || sample.file_ends.is_empty() {
        return 0.0;
    }
    let step = if half { 2 } else { 1 };
    let scale = rows_per_sampled_row * step as f64;
    // A file lies in one partition: the partition's current files are
    // those whose first row is in it.
    let part = |i: usize| sample.partitions.get(i).copied().unwrap_or(0);
    let this = part(rows[0] as usize);
    let mut scratch = Scratch::default();
    let (mut before, mut after, mut counted) = (0.0, 0.0, 0u64);
    for (col, (_, ty)) in ranked.iter().zip(&sample.columns) {
        let widths = value_widths(ty, col);
        let mut start = 0usize;
        for &end in &sample.file_ends {
            if start < end && part(start) == this {
                let kept = (start as u32..end as u32).filter(|&i| !half || i % 2 == 0);
                before += dictionary_bytes(col, &widths, kept, scale, &mut scratch);
            }
            start = end;
        }
        for file in rows.chunks(per_file.max(1)) {
            after += dictionary_bytes(col, &widths, file.iter().copied(), scale, &mut scratch);
        }
        counted += 1;
    }
    if counted == 0 {
        return 0.0;
    }
    (after - before) / (rows.len() as f64 * scale)
}

/// The simulated files of the rows in `order` ([`order`]), cut as
/// `plan`'s rewriter cuts them; with `half`, of every other sampled row.
pub fn cut(
    sample: &Sample,
    ranked: &[Ranked],
    order: &[u32],
    plan: &Plan,
    half: bool,
) -> Vec<SimFile> {
    let step = if half { 2 } else { 1 };
    let per_row = plan.bytes_per_row * step as f64;
    let order: Vec<u32> = if half {
        order.iter().copied().filter(|i| i % 2 == 0).collect()
    } else {
        order.to_vec()
    };
    let part = |i: u32| sample.partitions.get(i as usize).copied().unwrap_or(0);
    let rewriter = plan.rewrite.rewriter;
    let target = plan.rewrite.target_size;
    // Sampled rows per file of a writer that closes a file once its
    // buffered (uncompressed) bytes reach `size`, checked every `batch`
    // of the table's rows.
    let rolled = |size: u64, batch: u64, per_real_row: f64| {
        let real = (size as f64 / per_real_row.max(f64::MIN_POSITIVE))
            .ceil()
            .max(1.0) as u64;
        let real = real.div_ceil(batch.max(1)) * batch.max(1);
        (real as f64 / (plan.rows_per_sampled_row * step as f64))
            .round()
            .max(1.0) as usize
    };
    order
        .chunk_by(|&a, &b| part(a) == part(b))
        .flat_map(|p| {
            let bytes = (p.len() as f64 * per_row).round() as u64;
            let files: Vec<&[u32]> = match rewriter.cut(bytes, target) {
                // delta-rs measures the open file by its row group's
                // buffered (uncompressed) size: nothing is flushed before.
                // The current files' size per row, less what the sampled
                // columns' encoding saves (or costs) in the new order.
                Cut::Bytes { size, batch } => {
                    let first = rolled(size, batch, plan.uncompressed_per_row);
                    let per = plan.uncompressed_per_row
                        + reencoded_per_row(
                            sample,
                            ranked,
                            p,
                            first,
                            half,
                            plan.rows_per_sampled_row,
                        );
                    let per = per.max(plan.uncompressed_per_row / 4.0);
                    p.chunks(rolled(size, batch, per)).collect()
                }
                Cut::EqualCount { files, roll } => {
                    let k = (files as usize).clamp(1, p.len().max(1));
                    let ranges = p.chunks(p.len().div_ceil(k).max(1));
                    match roll {
                        None => ranges.collect(),
                        // Iceberg's Parquet writer measures the file by the
                        // compressed pages written plus each column's open
                        // page, raw; without the raw sizes, by the
                        // compressed bytes alone.
                        Some((size, batch)) => {
                            let real_per_sampled = plan.rows_per_sampled_row * step as f64;
                            let compressed = plan.bytes_per_row / plan.rows_per_sampled_row;
                            ranges
                                .flat_map(|r| {
                                    let per = if plan.plain_per_row.is_empty() {
                                        rolled(size, batch, compressed)
                                    } else {
                                        let real =
                                            (r.len() as f64 * real_per_sampled).round() as u64;
                                        let rows = crate::rewriter::iceberg_rows_per_file(
                                            plan.plain_per_row,
                                            compressed,
                                            size,
                                            real,
                                        );
                                        (rows as f64 / real_per_sampled).round().max(1.0) as usize
                                    };
                                    r.chunks(per)
                                })
                                .collect()
                        }
                    }
                }
            };
            files
        })
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
    use plan::predicate::{ColumnType, IntWidth, Literal};

    /// Delta on Spark's range partitioning at `target` bytes: one byte a
    /// row, so `floor(rows / target)` files of equal rows.
    fn by_rows(target: u64) -> Rewrite {
        Rewrite {
            rewriter: crate::rewriter::Rewriter::SparkDelta,
            curve: Curve::Sort,
            target_size: target,
            size_source: crate::rewriter::SizeSource::Flag,
        }
    }

    fn plan(r: &Rewrite) -> Plan<'_> {
        Plan {
            rewrite: r,
            bytes_per_row: 1.0,
            uncompressed_per_row: 1.0,
            rows_per_sampled_row: 1.0,
            plain_per_row: &[],
        }
    }

    #[test]
    fn z_order_interleaves_most_significant_bits_first() {
        assert_eq!(interleave(&[0b10, 0b01], 2), 0b1001);
        assert_eq!(interleave(&[0b11], 2), 0b11);
    }

    #[test]
    fn delta_rs_closes_files_at_its_write_batches() {
        // 70 uncompressed bytes a row at 80 KiB: 1171 rows reach the size,
        // the writer checks every 1024 rows, so files of 2048 rows.
        let mut s = Sample {
            columns: vec![("k".into(), ColumnType::Integer(IntWidth::Long))],
            values: vec![(0..5000).map(|i| Some(Literal::Int(i))).collect()],
            rows: 5000,
            rows_total: 5000,
            ..Sample::default()
        };
        let ranked = rank_all(&mut s);
        let r = Rewrite {
            rewriter: crate::rewriter::Rewriter::DeltaRs,
            curve: Curve::Sort,
            target_size: 81920,
            size_source: crate::rewriter::SizeSource::Flag,
        };
        let p = Plan {
            rewrite: &r,
            bytes_per_row: 40.0,
            uncompressed_per_row: 70.0,
            rows_per_sampled_row: 1.0,
            plain_per_row: &[],
        };
        let rows: Vec<u64> = layout(&s, &ranked, &["k".to_string()], &p, false)
            .iter()
            .map(|f| f.rows)
            .collect();
        assert_eq!(rows, vec![2048, 2048, 904]);
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
        let r = by_rows(25);
        let files = layout(&s, &ranked, &["k".to_string()], &plan(&r), false);
        assert_eq!(
            layout(&s, &ranked, &["k".to_string()], &plan(&r), true).len(),
            4
        );
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
        let r = by_rows(10);
        let files = layout(&s, &ranked, &["k".to_string()], &plan(&r), false);
        // 20 rows a partition: two files of 10 each, never mixed.
        let shape: Vec<(u32, u64)> = files.iter().map(|f| (f.partition, f.rows)).collect();
        assert_eq!(shape, vec![(0, 10), (0, 10), (1, 10), (1, 10)]);
        assert_eq!(files[1].stats[0].min, Some(Literal::Int(20)));
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
