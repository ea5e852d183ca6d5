//! The files a rewrite would write under a candidate layout, simulated
//! from the table's own rows.
//!
//! The columns involved (the candidate's and every predicate's) are read
//! from the table's data files with polars, from all files or, past
//! `max_rows`, from an evenly spread subset of whole files ([`sample`]).
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

use plan::predicate::{compare, ColumnStats, ColumnType, Literal};
use polars::prelude::*;
use polars_io::prelude::ParquetReader;
use polars_io::SerReader;
use std::cmp::Ordering;
use std::path::{Component, Path, PathBuf};
use tables::{DataFile, TableState};

/// Rows read from a table for simulations.
#[derive(Debug, Default)]
pub struct Sample {
    /// The columns read, with their types (the table's names).
    pub columns: Vec<(String, ColumnType)>,
    /// Values, one vector per column, one entry per row (taken by
    /// [`rank_all`]).
    pub values: Vec<Vec<Option<Literal>>>,
    /// Rows read.
    pub rows: usize,
    /// Each row's partition (its data file's [`DataFile::partition`]).
    pub partitions: Vec<u32>,
    /// Data files read, and in the table.
    pub files_read: usize,
    /// Live data files of the table.
    pub files_total: usize,
    /// Live rows of the table (from its metadata).
    pub rows_total: u64,
    /// Files that could not be read, each named with its reason.
    pub warnings: Vec<String>,
}

impl Sample {
    /// Rows read.
    pub fn rows(&self) -> usize {
        self.rows
    }
}

/// `%XX` escapes of a Delta `add.path` decoded.
fn percent_decode(p: &str) -> String {
    let b = p.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The local file of a data file's path, inside the table directory only:
/// a Delta path relative to the table, or an absolute one (Iceberg) under
/// the location the table declares.
fn local_file(t: &TableState, f: &DataFile) -> Result<PathBuf, String> {
    let Some(p) = f.path.as_deref() else {
        return Err("the metadata gives no path".into());
    };
    let rel: String = if p.contains("://") || p.starts_with("file:") || p.starts_with('/') {
        // The metadata's absolute paths name the declared location, or the
        // table's own directory when it is read in place (absolute, even
        // when the user gave a relative path).
        let declared = t.declared_location.clone().unwrap_or_else(|| {
            let here = std::fs::canonicalize(&t.location).unwrap_or_else(|_| t.location.clone());
            format!("file:{}", here.display())
        });
        let strip = |s: &str| {
            s.trim_start_matches("file://")
                .trim_start_matches("file:")
                .trim_end_matches('/')
                .to_string()
        };
        let (d, q) = (strip(&declared), strip(p));
        match q.strip_prefix(&d) {
            Some(rest) => rest.trim_start_matches('/').to_string(),
            None => return Err(format!("{p} is outside the table's location {declared}")),
        }
    } else {
        percent_decode(p)
    };
    let rel = Path::new(&rel);
    if rel
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!("{p} leaves the table directory"));
    }
    Ok(t.location.join(rel))
}

/// `f` of every row of a chunked array.
fn each<A: HasLen + ?Sized>(
    ca: &A,
    f: impl Fn(&A, usize) -> Option<Literal>,
) -> Vec<Option<Literal>> {
    (0..ca.len_of()).map(|i| f(ca, i)).collect()
}

/// Length of a chunked array, whatever its type.
trait HasLen {
    fn len_of(&self) -> usize;
}

impl<T: PolarsDataType> HasLen for ChunkedArray<T> {
    fn len_of(&self) -> usize {
        self.len()
    }
}

/// A polars column as literals of its column's type; `None` for a dtype
/// lakeaudit does not compare.
fn literals(s: &Series) -> Option<Vec<Option<Literal>>> {
    let n = s.len();
    let out: Vec<Option<Literal>> = match s.dtype() {
        DataType::Boolean => each(s.bool().ok()?, |ca, i| ca.get(i).map(Literal::Bool)),
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32 => {
            let c = s.cast(&DataType::Int64).ok()?;
            each(c.i64().ok()?, |ca, i| ca.get(i).map(Literal::Int))
        }
        DataType::Float32 | DataType::Float64 => {
            let c = s.cast(&DataType::Float64).ok()?;
            each(c.f64().ok()?, |ca, i| {
                ca.get(i).filter(|f| !f.is_nan()).map(Literal::Float)
            })
        }
        DataType::String => each(s.str().ok()?, |ca, i| {
            ca.get(i).map(|v| Literal::String(v.to_string()))
        }),
        DataType::Date => {
            let p = s.to_physical_repr();
            each(p.i32().ok()?, |ca, i| ca.get(i).map(Literal::Date))
        }
        DataType::Datetime(unit, _) => {
            let div = match unit {
                TimeUnit::Nanoseconds => 1000,
                TimeUnit::Microseconds => 1,
                TimeUnit::Milliseconds => -1000,
            };
            let p = s.to_physical_repr();
            each(p.i64().ok()?, |ca, i| {
                ca.get(i).map(|v| Literal::Timestamp {
                    micros: if div > 0 {
                        v / div
                    } else {
                        v.saturating_mul(-div)
                    },
                    utc: true,
                })
            })
        }
        DataType::Decimal(_, scale) => {
            let scale = *scale as u32;
            let p = s.to_physical_repr();
            each(p.i128().ok()?, |ca, i| {
                ca.get(i)
                    .map(|unscaled| Literal::Decimal { unscaled, scale })
            })
        }
        _ => return None,
    };
    (out.len() == n).then_some(out)
}

/// Read `columns` (the table's names) of `t`'s data files: every file, or
/// past `max_rows` rows an evenly spread subset of whole files holding
/// about `max_rows`. A file that cannot be read is named in
/// [`Sample::warnings`] and left out; a column a file lacks is null there
/// (it never skips).
pub fn sample(t: &TableState, columns: &[String], max_rows: u64) -> Sample {
    let cols: Vec<(String, ColumnType)> = columns
        .iter()
        .filter_map(|c| t.columns.iter().find(|(n, _)| n == c).cloned())
        .collect();
    let rows_total: u64 = t.files.iter().map(|f| f.rows.unwrap_or(0)).sum();
    let n = t.files.len();
    // Bresenham: file i is read when the running share crosses an integer.
    let share = if rows_total <= max_rows || rows_total == 0 {
        1.0
    } else {
        max_rows as f64 / rows_total as f64
    };
    let mut s = Sample {
        values: vec![Vec::new(); cols.len()],
        columns: cols,
        files_total: n,
        rows_total,
        ..Sample::default()
    };
    let names: Vec<String> = s.columns.iter().map(|(c, _)| c.clone()).collect();
    for (i, f) in t.files.iter().enumerate() {
        if ((i + 1) as f64 * share).floor() <= (i as f64 * share).floor() {
            continue;
        }
        if let Err(e) = file_literals(t, f, &names, &mut s) {
            s.warnings.push(e);
        }
    }
    s
}

/// Appends the `names` columns of data file `f` of `t` to `s.values`
/// (one vector per name, in order), counting the file and its rows; a
/// column the file lacks is null. `Err` names the file and why it could not
/// be read.
pub(crate) fn file_literals(
    t: &TableState,
    f: &DataFile,
    names: &[String],
    s: &mut Sample,
) -> Result<(), String> {
    let path = local_file(t, f).map_err(|e| format!("{}: {e}", t.location.display()))?;
    let small: Vec<PlSmallStr> = names.iter().map(|c| c.as_str().into()).collect();
    let df =
        read_file(&t.location, &path, &small).map_err(|e| format!("{}: {e}", path.display()))?;
    let rows = df.height();
    for (k, name) in names.iter().enumerate() {
        let vals = df
            .column(name)
            .ok()
            .and_then(|c| literals(c.as_materialized_series()))
            .unwrap_or_else(|| vec![None; rows]);
        s.values[k].extend(vals);
    }
    s.partitions.extend(std::iter::repeat_n(f.partition, rows));
    s.files_read += 1;
    s.rows += rows;
    Ok(())
}

/// The `names` columns of one Parquet data file of the table in
/// `table_dir` (those it has); the file is opened as every file the
/// metadata names ([`tables::open_data_file`]: inside the table, regular).
fn read_file(table_dir: &Path, path: &Path, names: &[PlSmallStr]) -> Result<DataFrame, String> {
    let file = tables::open_data_file(table_dir, path).map_err(|e| e.to_string())?;
    let mut r = ParquetReader::new(file);
    let schema = r.schema().map_err(|e| e.to_string())?;
    let present: Vec<String> = names
        .iter()
        .filter(|n| schema.contains(n))
        .map(|n| n.to_string())
        .collect();
    r.with_columns(Some(present))
        .finish()
        .map_err(|e| e.to_string())
}

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
    use plan::predicate::IntWidth;

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
            warnings: Vec::new(),
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
            warnings: Vec::new(),
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

    #[test]
    fn paths_stay_inside_the_table() {
        let mut t = TableState {
            location: PathBuf::from("/w/t"),
            ..TableState::default()
        };
        let f = |p: &str| DataFile {
            partition: 0,
            size: 1,
            rows: None,
            seq: 0,
            clustered: false,
            path: Some(p.into()),
            deletes: None,
            stats: None,
        };
        assert_eq!(
            local_file(&t, &f("d%3D1/part-0.parquet")).unwrap(),
            PathBuf::from("/w/t/d=1/part-0.parquet")
        );
        assert!(local_file(&t, &f("../secret")).is_err());
        assert!(local_file(&t, &f("/etc/passwd")).is_err());
        t.declared_location = Some("s3://b/t".into());
        assert_eq!(
            local_file(&t, &f("s3://b/t/data/x.parquet")).unwrap(),
            PathBuf::from("/w/t/data/x.parquet")
        );
        assert!(local_file(&t, &f("s3://b/other/x.parquet")).is_err());
    }

    #[test]
    fn a_table_read_in_place_by_a_relative_path_finds_its_absolute_files() {
        // An Iceberg table in its own directory: the metadata's absolute
        // paths are under the directory's absolute form.
        let dir = std::env::temp_dir().join(format!("lakeaudit-sim-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let cwd = std::env::current_dir().unwrap();
        let rel = pathdiff(&dir, &cwd);
        let t = TableState {
            location: rel.clone(),
            ..TableState::default()
        };
        let abs = format!(
            "file://{}/data/x.parquet",
            dir.canonicalize().unwrap().display()
        );
        let f = DataFile {
            partition: 0,
            size: 1,
            rows: None,
            seq: 0,
            clustered: false,
            path: Some(abs.into()),
            deletes: None,
            stats: None,
        };
        assert_eq!(local_file(&t, &f).unwrap(), rel.join("data/x.parquet"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `to` relative to `from` (both absolute), through `..` as needed.
    fn pathdiff(to: &Path, from: &Path) -> PathBuf {
        let (to, from) = (to.canonicalize().unwrap(), from.canonicalize().unwrap());
        let common = to
            .components()
            .zip(from.components())
            .take_while(|(a, b)| a == b)
            .count();
        let mut out = PathBuf::new();
        for _ in from.components().skip(common) {
            out.push("..");
        }
        for c in to.components().skip(common) {
            out.push(c);
        }
        out
    }
}
