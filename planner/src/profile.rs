//! What the planner knows of each table's size and layout: `--table-stats`
//! first, else what the logs' scans show.
//!
//! A scan that read the whole table (no partition filter, no data filter
//! beyond null checks) measures it; the largest such scan gives the size.
//! When every scan of a table was filtered, the largest filtered scan is a
//! lower bound, and the profile says so.

use crate::ddl::TableFormat;
use crate::model::TableProfile;
use crate::stats::TableStats;
use graph::tables::canonical_table;
use std::collections::{BTreeMap, HashMap};
use workload::exec::Exec;

/// One scan of a table in the logs, as sizing needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScanObservation<'a> {
    /// The table as the plan names it (canonicalised here).
    pub table: &'a str,
    /// `size of files read`.
    pub bytes: Option<i64>,
    /// `number of output rows`.
    pub rows: Option<i64>,
    /// `number of files read`.
    pub files: Option<i64>,
    /// Whether the scan read the whole table (see [`is_full_scan`]).
    pub full: bool,
}

/// Whether a scan with these filters (as Spark prints them: `[a, b]`, data
/// source or Catalyst form) read the whole table: no partition filter, and
/// no data or pushed filter other than null checks.
pub fn is_full_scan(
    partition_filters: Option<&str>,
    data_filters: Option<&str>,
    pushed_filters: Option<&str>,
) -> bool {
    use plan::predicate::{is_catalyst, parse_catalyst, parse_filters, Predicate};
    let only_null_checks = |f: Option<&str>| {
        f.is_none_or(|t| {
            let preds = if plan::iceberg_filters::is_iceberg(t) {
                plan::iceberg_filters::parse(t, &[])
            } else if is_catalyst(t) {
                parse_catalyst(t, &[])
            } else {
                parse_filters(t, &[])
            };
            preds.iter().all(|p| matches!(p, Predicate::IsNotNull(_)))
        })
    };
    only_null_checks(partition_filters)
        && only_null_checks(data_filters)
        && only_null_checks(pushed_filters)
}

/// One scan of an execution, as table sizing sees it.
pub fn scan_observation(s: &parsers::record::ScanRecord) -> ScanObservation<'_> {
    ScanObservation {
        table: &s.table,
        bytes: s.bytes_read,
        rows: s.rows,
        files: s.files_read,
        full: is_full_scan(
            s.partition_filters.as_deref(),
            s.data_filters.as_deref(),
            s.pushed_filters.as_deref(),
        ),
    }
}

#[derive(Default)]
struct Seen {
    full_bytes: Option<i64>,
    full_rows: Option<i64>,
    any_bytes: Option<i64>,
    any_rows: Option<i64>,
    files: Option<i64>,
}

/// Table sizes as the scans show them, gathered one scan at a time
/// ([`TableSizes::observe`]); [`TableSizes::profiles`] joins them to the
/// statistics.
#[derive(Default)]
pub struct TableSizes {
    seen: BTreeMap<String, Seen>,
}

impl TableSizes {
    /// Count one scan.
    pub fn observe(&mut self, s: ScanObservation<'_>) {
        self.observe_as(&canonical_table(s.table), s);
    }

    /// [`TableSizes::observe`] of a scan whose table's canonical name is
    /// `name`.
    fn observe_as(&mut self, name: &str, s: ScanObservation<'_>) {
        let max = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        let t = match self.seen.get_mut(name) {
            Some(t) => t,
            None => self.seen.entry(name.to_string()).or_default(),
        };
        t.any_bytes = max(t.any_bytes, s.bytes);
        t.any_rows = max(t.any_rows, s.rows);
        t.files = max(t.files, s.files);
        if s.full {
            t.full_bytes = max(t.full_bytes, s.bytes);
            t.full_rows = max(t.full_rows, s.rows);
        }
    }

    /// One profile per table seen in the scans or named in `stats`,
    /// sorted by canonical name, each with where its size came from.
    pub fn profiles(&self, stats: &TableStats) -> Vec<TableProfile> {
        let seen = &self.seen;
        let mut names: Vec<String> = seen.keys().cloned().collect();
        names.extend(stats.0.keys().cloned());
        names.sort();
        names.dedup();
        names
            .into_iter()
            .map(|t| {
                let s = seen.get(&t);
                let st = stats.0.get(&t);
                let log_bytes = s.and_then(|s| s.full_bytes.or(s.any_bytes));
                let source = if st.is_some_and(|x| x.bytes.is_some() && x.from_audit) {
                    "table metadata"
                } else if st.and_then(|x| x.bytes).is_some() {
                    "table-stats"
                } else if s.is_some_and(|s| s.full_bytes.is_some()) {
                    "log"
                } else if log_bytes.is_some() {
                    "log (filtered scans only: a lower bound)"
                } else {
                    "unknown"
                };
                let non_negative = |v: Option<i64>| v.and_then(|b| u64::try_from(b).ok());
                TableProfile {
                    bytes: st
                        .and_then(|x| x.bytes)
                        .or(non_negative(log_bytes))
                        .unwrap_or(0),
                    rows: st
                        .and_then(|x| x.rows)
                        .or(non_negative(s.and_then(|s| s.full_rows.or(s.any_rows)))),
                    files: st
                        .and_then(|x| x.files)
                        .or(non_negative(s.and_then(|s| s.files))),
                    partitioned_by: st.map(|x| x.partitioned_by.clone()).unwrap_or_default(),
                    clustered_by: st.map(|x| x.clustered_by.clone()).unwrap_or_default(),
                    source: source.to_string(),
                    table: t,
                }
            })
            .collect()
    }
}

/// One profile per table seen in `scans` or named in `stats`, sorted by
/// canonical name, each with where its size came from ([`TableSizes`]).
pub fn profiles<'a>(
    scans: impl IntoIterator<Item = ScanObservation<'a>>,
    stats: &TableStats,
) -> Vec<TableProfile> {
    let mut sizes = TableSizes::default();
    for s in scans {
        sizes.observe(s);
    }
    sizes.profiles(stats)
}

/// What the workload's scans say of its tables, gathered one execution at
/// a time: their sizes ([`TableSizes`]), formats
/// ([`crate::ddl::scan_format`]: the first execution's that shows one,
/// by canonical name), and the bytes read from each (as the scans name
/// it, for the maintenance plan).
#[derive(Default)]
pub struct ScanFacts {
    /// Sizes.
    pub sizes: TableSizes,
    /// Formats by canonical name; tables no scan shows a known format of
    /// are left out.
    pub formats: BTreeMap<String, TableFormat>,
    /// Bytes read, by the table as the scans name it.
    pub scanned: BTreeMap<String, u64>,
    /// The canonical name of each table as the scans name it (computed
    /// once per name, not once per scan).
    canonical: HashMap<String, String>,
}

impl ScanFacts {
    /// The facts of the scans a Spark aggregation job grouped
    /// (`--aggregates`): the same as [`ScanFacts::push`] of every kept
    /// execution gives.
    pub fn of_aggregates(a: &workload::aggregates::ScanAggregates) -> ScanFacts {
        let mut facts = ScanFacts::default();
        for s in &a.sizes {
            facts.sizes.observe(ScanObservation {
                table: &s.table,
                bytes: s.bytes,
                rows: s.rows,
                files: s.files,
                full: is_full_scan(
                    s.partition_filters.as_deref(),
                    s.data_filters.as_deref(),
                    s.pushed_filters.as_deref(),
                ),
            });
        }
        // The first scan that shows a format, in the executions' order.
        let mut formats: Vec<_> = a.formats.iter().collect();
        formats.sort_by(|x, y| x.first.cmp(&y.first));
        for s in formats {
            let f = if s.delta_index {
                TableFormat::Delta
            } else {
                s.format
                    .as_deref()
                    .map_or(TableFormat::Unknown, TableFormat::from_name)
            };
            if f != TableFormat::Unknown {
                facts.formats.entry(canonical_table(&s.table)).or_insert(f);
            }
        }
        facts.scanned = a.bytes.iter().cloned().collect();
        facts
    }

    /// Count one execution's scans.
    pub fn push(&mut self, e: &Exec) {
        for s in &e.record.scans {
            let o = scan_observation(s);
            let bytes = o.bytes.unwrap_or(0).max(0) as u64;
            match self.scanned.get_mut(s.table.as_str()) {
                Some(b) => *b += bytes,
                None => {
                    self.scanned.insert(s.table.clone(), bytes);
                }
            }
            let name = match self.canonical.get(s.table.as_str()) {
                Some(c) => c,
                None => self
                    .canonical
                    .entry(s.table.clone())
                    .or_insert_with(|| canonical_table(&s.table)),
            };
            self.sizes.observe_as(name, o);
            let f = crate::ddl::scan_format(s);
            if f != TableFormat::Unknown && !self.formats.contains_key(name.as_str()) {
                self.formats.insert(name.clone(), f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::TableStat;

    fn scan(table: &str, bytes: i64, rows: i64, full: bool) -> ScanObservation<'_> {
        ScanObservation {
            table,
            bytes: Some(bytes),
            rows: Some(rows),
            files: Some(1),
            full,
        }
    }

    #[test]
    fn a_full_scan_has_null_checks_only_in_either_printed_form() {
        assert!(is_full_scan(Some("[]"), None, Some("[]")));
        assert!(is_full_scan(
            Some("[]"),
            Some("[isnotnull(o_orderkey#0L), isnotnull(o_custkey#1L)]"),
            Some("[IsNotNull(o_orderkey), IsNotNull(o_custkey)]"),
        ));
        assert!(!is_full_scan(
            None,
            Some("[isnotnull(d#3), (d#3 >= 1995-01-01)]"),
            Some("[IsNotNull(d), GreaterThanOrEqual(d,1995-01-01)]"),
        ));
        assert!(!is_full_scan(None, None, Some("[In(s, [A, B])]")));
        // Dynamic partition pruning reads part of the table.
        assert!(!is_full_scan(
            Some("[isnotnull(p#1), dynamicpruningexpression(p#1 IN dynamicpruning#9)]"),
            None,
            None,
        ));
    }

    #[test]
    fn full_scans_measure_filtered_scans_bound_stats_win() {
        let mut stats = TableStats::default();
        stats.0.insert(
            "spark_catalog.default.nation".into(),
            TableStat {
                bytes: Some(9),
                clustered_by: vec!["n_nationkey".into()],
                ..TableStat::default()
            },
        );
        let p = profiles(
            [
                scan("orders", 500, 50, false),
                scan("spark_catalog.default.orders", 400, 40, true),
                scan("lineitem", 70, 7, false),
                scan("nation", 1, 1, true),
            ],
            &stats,
        );
        let by: BTreeMap<&str, &TableProfile> = p.iter().map(|t| (t.table.as_str(), t)).collect();
        let o = by["spark_catalog.default.orders"];
        assert_eq!((o.bytes, o.rows, o.source.as_str()), (400, Some(40), "log"));
        let l = by["spark_catalog.default.lineitem"];
        assert_eq!(l.bytes, 70);
        assert!(l.source.contains("lower bound"));
        let n = by["spark_catalog.default.nation"];
        assert_eq!((n.bytes, n.source.as_str()), (9, "table-stats"));
        assert_eq!(n.clustered_by, vec!["n_nationkey"]);
    }

    #[test]
    fn null_checks_do_not_make_a_scan_filtered() {
        assert!(is_full_scan(
            None,
            Some("[isnotnull(o_orderkey#1L)]"),
            Some("[IsNotNull(o_orderkey)]")
        ));
        assert!(is_full_scan(Some("[]"), None, None));
        assert!(!is_full_scan(
            None,
            Some("[isnotnull(x#1), (x#1 > 5)]"),
            None
        ));
        assert!(!is_full_scan(
            Some("[isnotnull(d#2), (d#2 = 2026-01-01)]"),
            None,
            None
        ));
    }
}
