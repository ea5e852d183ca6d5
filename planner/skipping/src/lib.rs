//! File skipping computed from the tables' own statistics.
//!
//! A scan's printed filters (`PushedFilters`, `PartitionFilters`) are typed
//! by the table's schema ([`predicates`]) and tested against each live data
//! file's column statistics ([`read`]): a file whose statistics prove that
//! no row matches is skipped, as a min/max engine skips it. What an engine
//! does with the statistics is an [`Engine`]:
//!
//! - [`Engine::None`]: partition pruning only (Apache Spark reading a
//!   table's files as plain Parquet: no file statistics are consulted);
//! - [`Engine::MinMax`]: partition values and per-file min/max/null counts
//!   tested against the scan's literal predicates (Delta Lake's data
//!   skipping in Spark, delta-kernel-rs and so DuckDB's Delta extension,
//!   Iceberg's manifest pruning);
//! - [`Engine::JoinRange`] and [`Engine::Values`]: also the keys of each
//!   join's build side, as a range or one by one, against the probe
//!   side's files ([`joins`]).
//!
//! Every engine prunes partitions by the build side's keys on a partition
//! column (dynamic partition pruning).
//!
//! A predicate lakeaudit cannot read never skips a file, and a column with
//! no statistic in a file never skips that file; both are counted.
//!
//! Fallible calls return the crate's [`Error`] (a data file's path that
//! cannot be read, a `--layout` flag that does not parse).
//!
//! ```
//! use plan::predicate::{ColumnStats, ColumnType, Literal};
//! use skipping::{predicates, read, Engine};
//! use tables::{DataFile, TableState};
//!
//! let file = |lo, hi| DataFile {
//!     partition: 0, size: 100, rows: Some(10), seq: 0, clustered: false,
//!     path: None, deletes: None,
//!     stats: Some(vec![ColumnStats {
//!         min: Some(Literal::Date(lo)), max: Some(Literal::Date(hi)),
//!         max_exact: true, null_count: Some(0), rows: Some(10),
//!     }].into()),
//! };
//! let t = TableState {
//!     columns: vec![("o_orderdate".into(), ColumnType::Date)],
//!     stats_columns: vec!["o_orderdate".into()],
//!     files: vec![file(8000, 8999), file(9000, 9999)],
//!     ..TableState::default()
//! };
//! let p = predicates(Some("[GreaterThanOrEqual(o_orderdate,1995-01-01)]"), None, &t.columns);
//! let r = read(&t, &p, Engine::MinMax);
//! assert_eq!((r.files_read, r.files_total), (1, 2));
//! assert_eq!(read(&t, &p, Engine::None).files_read, 2);
//! ```

pub mod calibrate;
pub mod encoded;
pub mod error;
pub mod joins;
pub mod quality;
pub mod rank;
pub mod rewriter;
pub mod sample;
pub mod simulate;
pub mod verify;
pub mod workload;

pub use error::Error;
pub use plan::predicate::Predicate;
use plan::predicate::{is_catalyst, parse_catalyst, parse_filters, ColumnStats, ColumnType};
use serde::Serialize;
use tables::TableState;

/// What an engine does with a table's file statistics (the planner's
/// type: it prices measured keys under these models).
pub use planner::engine::Engine;

/// Files and bytes one scan reads from one table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reading {
    /// Live data files of the table.
    pub files_total: u64,
    /// Files the engine reads.
    pub files_read: u64,
    /// Bytes of the live data files.
    pub bytes_total: u64,
    /// Bytes of the files read.
    pub bytes_read: u64,
    /// Files read only because a predicate's column has no usable
    /// statistic in them (missing, unreadable or cut).
    pub files_without_stats: u64,
}

/// A scan's printed data and partition filters (data source filters,
/// Catalyst expressions as `PartitionFilters` and `DataFilters` print
/// them, or an Iceberg scan's own `[filters=…, groupedBy=…]`,
/// [`plan::iceberg_filters`]), typed by the table's columns (names matched without regard to ASCII case, as Spark's session
/// catalog resolves them). Filters on columns the table does not have, or
/// that lakeaudit cannot read, are [`Predicate::Unknown`].
pub fn predicates(
    pushed_filters: Option<&str>,
    partition_filters: Option<&str>,
    columns: &[(String, ColumnType)],
) -> Vec<Predicate> {
    [partition_filters, pushed_filters]
        .into_iter()
        .flatten()
        .flat_map(|text| {
            if plan::iceberg_filters::is_iceberg(text) {
                plan::iceberg_filters::parse(text, columns)
            } else if is_catalyst(text) {
                parse_catalyst(text, columns)
            } else {
                parse_filters(text, columns)
            }
        })
        .collect()
}

/// Scan `s`'s filters as predicates typed by `columns`: its data filters
/// ([`data_filters`]) and its partition filters ([`predicates`]).
pub fn scan_predicates(
    s: &parsers::record::ScanRecord,
    columns: &[(String, ColumnType)],
) -> Vec<Predicate> {
    predicates(
        data_filters(s.pushed_filters.as_deref(), s.data_filters.as_deref()),
        s.partition_filters.as_deref(),
        columns,
    )
}

/// The data filters of a scan to test files with: its `PushedFilters`
/// (the data source filters Spark hands the file format) where the plan
/// prints them, else its Catalyst `DataFilters` (Photon prints only
/// those, as `RequiredDataFilters`).
pub fn data_filters<'a>(pushed: Option<&'a str>, data: Option<&'a str>) -> Option<&'a str> {
    pushed.or(data)
}

/// The columns a predicate tests.
fn columns_of<'a>(p: &'a Predicate, out: &mut Vec<&'a str>) {
    match p {
        Predicate::Cmp { column, .. }
        | Predicate::In { column, .. }
        | Predicate::StartsWith { column, .. }
        | Predicate::IsNull(column)
        | Predicate::IsNotNull(column) => out.push(column),
        Predicate::And(a, b) | Predicate::Or(a, b) => {
            columns_of(a, out);
            columns_of(b, out);
        }
        Predicate::Not(a) => columns_of(a, out),
        Predicate::Unknown(_) => {}
    }
}

/// Adds the columns `p` names to `out`.
pub fn all_columns(p: &Predicate, out: &mut std::collections::BTreeSet<String>) {
    let mut v = Vec::new();
    columns_of(p, &mut v);
    out.extend(v.into_iter().map(str::to_string));
}

/// Adds to `out` the columns `p` tests against a value (comparisons,
/// `IN`, prefixes): the ones a layout can make a predicate skip on. A
/// column only tested for null is not one.
pub fn range_columns(p: &Predicate, out: &mut std::collections::BTreeSet<String>) {
    match p {
        Predicate::Cmp { column, .. }
        | Predicate::In { column, .. }
        | Predicate::StartsWith { column, .. } => {
            out.insert(column.clone());
        }
        Predicate::And(a, b) | Predicate::Or(a, b) => {
            range_columns(a, out);
            range_columns(b, out);
        }
        Predicate::Not(a) => range_columns(a, out),
        Predicate::IsNull(_) | Predicate::IsNotNull(_) | Predicate::Unknown(_) => {}
    }
}

/// Index of `column` in the table's statistics columns.
fn stats_index(t: &TableState, column: &str) -> Option<usize> {
    t.stats_columns
        .iter()
        .position(|c| c == column)
        .or_else(|| {
            t.stats_columns
                .iter()
                .position(|c| c.eq_ignore_ascii_case(column))
        })
}

/// Whether `column` is one of the table's partition columns.
fn is_partition(t: &TableState, column: &str) -> bool {
    t.partition_fields
        .iter()
        .any(|f| f.transform == "identity" && f.source.eq_ignore_ascii_case(column))
}

/// The files and bytes a scan with predicates `preds` reads from `t`
/// under `engine`. `t` must have been read with the statistics of the
/// predicates' columns ([`tables::ReadOptions::stats_columns`]); a file
/// without them is read.
pub fn read(t: &TableState, preds: &[Predicate], engine: Engine) -> Reading {
    read_joined(t, preds, &[], engine).0
}

/// Whether `engine` uses a join-induced predicate on `column` of `t`, and
/// with the build keys' values: on a partition column, the values (dynamic
/// partition pruning, which every engine here does); on another column,
/// the keys' range (`JoinRange`) or the keys (`Values`).
fn induced_use(t: &TableState, column: &str, engine: Engine) -> Option<bool> {
    match engine {
        _ if is_partition(t, column) => Some(true),
        Engine::None | Engine::MinMax => None,
        Engine::JoinRange => Some(false),
        Engine::Values => Some(true),
    }
}

/// [`read`] with the scan's join-induced predicates too
/// ([`joins::Induced`]); also returns the ones the engine used, as the
/// outputs show them ([`joins::Induced::describe`]).
pub fn read_joined(
    t: &TableState,
    preds: &[Predicate],
    induced: &[joins::Induced],
    engine: Engine,
) -> (Reading, Vec<String>) {
    let joined: Vec<(&joins::Induced, Option<usize>, bool)> = induced
        .iter()
        .filter_map(|i| {
            let values = induced_use(t, &i.column, engine)?;
            Some((i, stats_index(t, &i.column), values))
        })
        .collect();
    let mut cols = Vec::new();
    for p in preds {
        columns_of(p, &mut cols);
    }
    // Which statistics the engine may use, by predicate column.
    let usable: Vec<(&str, Option<usize>)> = cols
        .iter()
        .map(|c| {
            let allowed = match engine {
                Engine::None => is_partition(t, c),
                Engine::MinMax | Engine::JoinRange | Engine::Values => true,
            };
            (*c, allowed.then(|| stats_index(t, c)).flatten())
        })
        .collect();
    let mut r = Reading::default();
    for f in &t.files {
        r.files_total += 1;
        r.bytes_total += f.size;
        let stats = |c: &str| -> Option<ColumnStats> {
            let i = usable.iter().find(|(n, _)| *n == c)?.1?;
            f.stats.as_ref()?.get(i).cloned()
        };
        let column = |i: Option<usize>| f.stats.as_ref()?.get(i?);
        if preds.iter().all(|p| p.may_match(&stats))
            && joined
                .iter()
                .all(|(j, i, values)| j.may_match(column(*i), *values))
        {
            r.files_read += 1;
            r.bytes_read += f.size;
            let missing = usable
                .iter()
                .map(|(_, i)| *i)
                .chain(joined.iter().map(|(_, i, _)| *i))
                .any(|i| match (i, &f.stats) {
                    (Some(i), Some(s)) => {
                        s.get(i).is_none_or(|s| s.min.is_none() || s.max.is_none())
                    }
                    _ => engine != Engine::None,
                });
            r.files_without_stats += u64::from(missing);
        }
    }
    let used = joined.iter().map(|(j, _, v)| j.describe(*v)).collect();
    (r, used)
}

/// Whether file `f` of `t` may hold a row passing every predicate of
/// `preds`, by its min/max statistics (as [`Engine::MinMax`] reads them).
pub(crate) fn file_may_match(t: &TableState, f: &tables::DataFile, preds: &[Predicate]) -> bool {
    let stats = |c: &str| -> Option<ColumnStats> {
        let i = stats_index(t, c)?;
        f.stats.as_ref()?.get(i).cloned()
    };
    preds.iter().all(|p| p.may_match(&stats))
}

/// Predicates lakeaudit could not read, counted through `And`/`Or`/`Not`.
pub fn unknown_count(preds: &[Predicate]) -> usize {
    preds.iter().map(Predicate::unknown_count).sum()
}

/// The layout a `whatif` row is evaluated on: the table as it is, or a
/// candidate key simulated by the row's rewriter. Printed (and written in
/// every output) as `current` or the key's columns joined by `,`.
///
/// ```
/// use skipping::Layout;
/// assert_eq!(Layout::Current.to_string(), "current");
/// assert_eq!(Layout::Key(vec!["a".into(), "b".into()]).to_string(), "a,b");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layout {
    /// The table's files as they are.
    Current,
    /// A rewrite ordering the rows by these columns (one: a sort; more:
    /// the rewriter's multi-column curve).
    Key(Vec<String>),
}

impl Layout {
    /// The candidate's columns (none for [`Layout::Current`]).
    pub fn key(&self) -> &[String] {
        match self {
            Layout::Current => &[],
            Layout::Key(k) => k,
        }
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Layout::Current => f.write_str("current"),
            Layout::Key(k) => f.write_str(&k.join(",")),
        }
    }
}

impl Serialize for Layout {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One scan of an audited table under one layout and engine: the
/// `whatif` row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScanRow {
    /// Application.
    pub app_id: String,
    /// SQL execution.
    pub execution_id: u64,
    /// The execution's description (the query's name or text), if any.
    pub description: Option<String>,
    /// The scan's position among the execution's scans.
    pub scan: u32,
    /// The audited table.
    pub table: String,
    /// Its identity in the workload (the name the plan uses).
    #[serde(skip)]
    pub table_id: String,
    /// The table as it is, or a candidate key.
    pub layout: Layout,
    /// For a simulated layout: the rewriter whose rewrite it predicts.
    pub rewriter: Option<rewriter::Rewriter>,
    /// For a simulated layout: the file size that rewrite writes towards.
    pub target_size: Option<u64>,
    /// The engine behaviour.
    pub engine: Engine,
    /// Live data files of the table.
    pub files_total: u64,
    /// Files the engine reads.
    pub files_read: u64,
    /// Bytes of the live data files.
    pub bytes_total: u64,
    /// Bytes of the files read.
    pub bytes_read: u64,
    /// Files read because a predicate column has no statistic in them.
    pub files_without_stats: u64,
    /// The scan's predicates lakeaudit could not read (they skip nothing).
    pub unknown_predicates: u64,
    /// Join-induced predicates the engine used on the scan, one per join
    /// key whose build side's keys were computed ([`joins`]), joined by
    /// `; ` (`l_orderkey in 96..5999975`).
    pub join_predicates: String,
    /// Files the log says the scan read (Spark's `number of files read`).
    pub logged_files_read: Option<i64>,
    /// Bytes the log says the scan read.
    pub logged_bytes_read: Option<i64>,
    /// For a simulated layout: the rows the simulation read.
    pub sample_rows: Option<u64>,
    /// For a simulated layout: the files read when only half the sample
    /// is laid out (how much the estimate depends on the sample).
    pub files_read_half_sample: Option<u64>,
}

/// What one scan with the printed filters `pushed` and `partition` and
/// the join-induced predicates `induced` reads from `t`: the reading, how
/// many of its predicates lakeaudit could not read, and the induced ones
/// the engine used.
pub fn current(
    t: &TableState,
    pushed: Option<&str>,
    partition: Option<&str>,
    induced: &[joins::Induced],
    engine: Engine,
) -> (Reading, u64, Vec<String>) {
    let p = predicates(pushed, partition, &t.columns);
    let (r, joined) = read_joined(t, &p, induced, engine);
    (r, unknown_count(&p) as u64, joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plan::predicate::{IntWidth, Literal};
    use tables::{DataFile, PartitionField};

    fn file(size: u64, stats: Vec<ColumnStats>) -> DataFile {
        DataFile {
            partition: 0,
            size,
            rows: Some(10),
            seq: 0,
            clustered: false,
            path: None,
            deletes: None,
            stats: Some(stats.into()),
        }
    }

    fn ints(lo: i64, hi: i64) -> ColumnStats {
        ColumnStats {
            min: Some(Literal::Int(lo)),
            max: Some(Literal::Int(hi)),
            max_exact: true,
            null_count: Some(0),
            rows: Some(10),
        }
    }

    fn table() -> TableState {
        TableState {
            columns: vec![
                ("k".into(), ColumnType::Integer(IntWidth::Long)),
                ("p".into(), ColumnType::Integer(IntWidth::Long)),
            ],
            stats_columns: vec!["p".into(), "k".into()],
            partition_fields: vec![PartitionField {
                name: "p".into(),
                source: "p".into(),
                transform: "identity".into(),
                source_type: "integer".into(),
            }],
            files: vec![
                file(100, vec![ints(1, 1), ints(0, 9)]),
                file(200, vec![ints(1, 1), ints(10, 19)]),
                file(400, vec![ints(2, 2), ints(20, 29)]),
                file(800, vec![ints(2, 2), ColumnStats::default()]),
            ],
            ..TableState::default()
        }
    }

    #[test]
    fn min_max_skips_on_data_columns_none_only_on_partitions() {
        let t = table();
        let p = predicates(
            Some("[GreaterThanOrEqual(K,15)]"),
            Some("[EqualTo(p,2)]"),
            &t.columns,
        );
        let mm = read(&t, &p, Engine::MinMax);
        // Files 2 and 3 pass; file 4 has no statistic for k.
        assert_eq!((mm.files_read, mm.bytes_read), (2, 1200));
        assert_eq!(mm.files_without_stats, 1);
        let none = read(&t, &p, Engine::None);
        assert_eq!((none.files_read, none.bytes_read), (2, 1200));
        let p = predicates(Some("[LessThan(k,5)]"), None, &t.columns);
        assert_eq!(read(&t, &p, Engine::None).files_read, 4);
        assert_eq!(read(&t, &p, Engine::MinMax).files_read, 2);
        assert_eq!(read(&t, &p, Engine::MinMax).bytes_total, 1500);
    }

    #[test]
    fn what_is_not_understood_never_skips() {
        let t = table();
        for text in [
            "[StringContains(k,abc)]",
            "[EqualTo(nope,1)]",
            "[EqualTo(k,notanumber)]",
            "[GreaterThan(k,10...",
        ] {
            let p = predicates(Some(text), None, &t.columns);
            assert_eq!(unknown_count(&p), 1, "{text}");
            assert_eq!(read(&t, &p, Engine::MinMax).files_read, 4, "{text}");
        }
    }
}
