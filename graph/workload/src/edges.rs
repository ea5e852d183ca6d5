//! The weighted join graph: one edge per (table pair, key columns)
//! relationship, with F, D, C and JIS per time window (METHOD.md stage 3).
//!
//! Aggregation runs over executions in a fixed order with integer
//! counters and sums in `f64` accumulated in (app id, execution id) order,
//! so the same input always gives byte-identical output.

use crate::score;
use graph::relationships::Relationship;
use graph::tables::{canonical_table, is_table, short_table};
use plan::JoinStrategy;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// What an execution contributes to the join graph.
#[derive(Clone, Debug, Default)]
pub struct ExecFacts {
    /// Application id.
    pub app_id: String,
    /// SQL execution id.
    pub execution_id: u64,
    /// The statement the execution belongs to: its root execution id
    /// (`rootExecutionId`; a CTAS's nested insert points to the CTAS), or
    /// its own id. An edge counts once per statement in F.
    pub root_execution_id: Option<u64>,
    /// Start, epoch ms.
    pub start_ms: Option<i64>,
    /// Wall-clock duration, ms.
    pub duration_ms: Option<i64>,
    /// Executor CPU time, ms.
    pub cpu_ms: i64,
    /// Per scanned table (canonical name): output rows and bytes read,
    /// summed over that execution's scans of the table (`None` when no
    /// scan of it reported the metric).
    pub tables: BTreeMap<String, TableVolume>,
    /// Join relationships of the execution's plan.
    pub relationships: Vec<Relationship>,
}

/// Rows and bytes one execution read from one table.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TableVolume {
    /// Rows produced by the scans (`number of output rows`).
    pub rows: Option<i64>,
    /// Bytes read (`size of files read`).
    pub bytes: Option<i64>,
}

/// Which cost C is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum CostMeasure {
    /// Wall-clock duration of the execution (the paper's choice).
    #[default]
    #[cfg_attr(feature = "clap", value(help = "Wall-clock duration (ms)"))]
    Duration,
    /// Executor CPU time of the execution's tasks.
    #[cfg_attr(feature = "clap", value(help = "Executor CPU time (ms)"))]
    Cpu,
}

/// Row counts to fall back on when a scan reported none (`--table-stats`).
pub type RowFallback = BTreeMap<String, u64>;

/// The identity of an edge: table pair and key columns, canonical order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct EdgeKey {
    /// Left table (catalog-qualified).
    pub left_table: String,
    /// Left key columns.
    pub left_columns: Vec<String>,
    /// Right table.
    pub right_table: String,
    /// Right key columns.
    pub right_columns: Vec<String>,
}

impl EdgeKey {
    /// `orders(o_orderkey) = lineitem(l_orderkey)` style label.
    pub fn label(&self) -> String {
        format!(
            "{}({}) = {}({})",
            short_table(&self.left_table),
            self.left_columns.join(","),
            short_table(&self.right_table),
            self.right_columns.join(",")
        )
    }

    /// Whether `pattern` names this edge: a label, or `a=b` / `a-b` with
    /// table or `table.column` names (short or qualified), either order.
    pub fn matches(&self, pattern: &str) -> bool {
        let p = pattern.replace(' ', "");
        if p == self.label().replace(' ', "") {
            return true;
        }
        // `t(a,b) = u(c,d)` as the reports print it, short or qualified
        // names, either order.
        if let Some((a, b)) = p.split_once('=') {
            let side = |s: &str| -> Option<(String, Vec<String>)> {
                let (t, rest) = s.split_once('(')?;
                let cols = rest.strip_suffix(')')?;
                Some((t.to_string(), cols.split(',').map(str::to_string).collect()))
            };
            if let (Some(l), Some(r)) = (side(a), side(b)) {
                let is = |(t, c): &(String, Vec<String>), table: &str, cols: &[String]| {
                    (t == table || *t == short_table(table) || canonical_table(t) == table)
                        && c.as_slice() == cols
                };
                let (lt, lc) = (&self.left_table, &self.left_columns);
                let (rt, rc) = (&self.right_table, &self.right_columns);
                return (is(&l, lt, lc) && is(&r, rt, rc)) || (is(&l, rt, rc) && is(&r, lt, lc));
            }
        }
        let parts: Vec<&str> = p.split(['=', '-', ',']).filter(|s| !s.is_empty()).collect();
        if parts.len() != 2 {
            return false;
        }
        let side = |s: &str, table: &str, cols: &[String]| {
            let (t, c) = match s.rsplit_once('.') {
                Some((t, c)) if cols.iter().any(|x| x == c) => (t, Some(c)),
                _ => (s, None),
            };
            let tm = t == table || t == short_table(table) || canonical_table(t) == table;
            tm && c.is_none_or(|c| cols.iter().any(|x| x == c))
        };
        let l = |s| side(s, &self.left_table, &self.left_columns);
        let r = |s| side(s, &self.right_table, &self.right_columns);
        (l(parts[0]) && r(parts[1])) || (l(parts[1]) && r(parts[0]))
    }
}

/// One row of the edge table (the `lakeaudit edges` contract).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EdgeRow {
    /// Left table.
    pub left_table: String,
    /// Left key columns.
    pub left_columns: Vec<String>,
    /// Right table.
    pub right_table: String,
    /// Right key columns.
    pub right_columns: Vec<String>,
    /// F: executions containing the edge.
    pub frequency: u64,
    /// D: mean over those executions of rows(left) × rows(right).
    pub data_volume: f64,
    /// C: mean cost (ms) of those executions.
    pub cost: f64,
    /// F̂.
    pub f_norm: f64,
    /// D̂ (on log10(D+1)).
    pub d_norm: f64,
    /// Ĉ.
    pub c_norm: f64,
    /// F̂·D̂·Ĉ.
    pub jis: f64,
    /// Executions in which the edge ran as a SortMergeJoin.
    pub smj_count: u64,
    /// ... as a BroadcastHashJoin.
    pub bhj_count: u64,
    /// ... as any other operator (ShuffledHashJoin, nested loop, logical).
    pub other_count: u64,
    /// First start time of an execution containing it.
    pub first_seen_ms: Option<i64>,
    /// Last start time.
    pub last_seen_ms: Option<i64>,
    /// Bytes the executions containing the edge read from both tables.
    pub scanned_bytes: f64,
    /// Executions whose rows were missing for a side and came from
    /// `--table-stats` (or were unknown).
    pub volume_fallbacks: u64,
    /// `app_id:execution_id` of every execution containing the edge.
    pub executions: Vec<String>,
}

impl EdgeRow {
    /// The edge's identity.
    pub fn key(&self) -> EdgeKey {
        EdgeKey {
            left_table: self.left_table.clone(),
            left_columns: self.left_columns.clone(),
            right_table: self.right_table.clone(),
            right_columns: self.right_columns.clone(),
        }
    }
}

/// The edge key of a relationship (tables canonicalised), or `None` for a
/// non-simple (expression) relationship, which has no base columns to
/// cluster on.
pub fn edge_key(r: &Relationship) -> Option<EdgeKey> {
    if r.non_simple || r.left_columns.is_empty() || r.right_columns.is_empty() {
        return None;
    }
    // RDD scans and unknown sides are no tables to lay out.
    let (lt, rt) = (r.left_table.to_string(), r.right_table.to_string());
    if !is_table(&lt) || !is_table(&rt) {
        return None;
    }
    let l = (canonical_table(&lt), r.left_columns.clone());
    let r2 = (canonical_table(&rt), r.right_columns.clone());
    let (a, b) = if qualified(&l) <= qualified(&r2) {
        (l, r2)
    } else {
        (r2, l)
    };
    Some(EdgeKey {
        left_table: a.0,
        left_columns: a.1,
        right_table: b.0,
        right_columns: b.1,
    })
}

fn qualified((t, cols): &(String, Vec<String>)) -> Vec<String> {
    cols.iter().map(|c| format!("{t}.{c}")).collect()
}

/// The `n` labels closest to `pattern` (edit distance, ignoring case and
/// spaces), closest first.
pub fn closest_labels(pattern: &str, labels: &[String], n: usize) -> Vec<String> {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let p = norm(pattern);
    let mut scored: Vec<(usize, &String)> = labels
        .iter()
        .map(|l| (edit_distance(&p, &norm(l)), l))
        .collect();
    scored.sort();
    scored.into_iter().take(n).map(|(_, l)| l.clone()).collect()
}

/// Levenshtein distance.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[derive(Default)]
struct Acc {
    execs: Vec<String>,
    volume_sum: f64,
    cost_sum: f64,
    smj: u64,
    bhj: u64,
    other: u64,
    first: Option<i64>,
    last: Option<i64>,
    scanned: f64,
    fallbacks: u64,
}

/// Build the edge table of a set of executions (one window), sorted by JIS
/// descending, then by names.
pub fn build_edges(execs: &[ExecFacts], cost: CostMeasure, fallback: &RowFallback) -> Vec<EdgeRow> {
    let mut acc: BTreeMap<EdgeKey, Acc> = BTreeMap::new();
    let mut order: Vec<&ExecFacts> = execs.iter().collect();
    order.sort_by(|a, b| (&a.app_id, a.execution_id).cmp(&(&b.app_id, b.execution_id)));
    // Edges already counted per statement (app, root execution).
    let mut counted: BTreeSet<(&str, u64, EdgeKey)> = BTreeSet::new();
    for ex in order {
        // Each edge counts once per statement (the nested executions of one
        // statement, e.g. a CTAS and its insert, are one); strategies once
        // per kind.
        let statement = ex.root_execution_id.unwrap_or(ex.execution_id);
        let mut per_exec: BTreeMap<EdgeKey, BTreeSet<JoinStrategy>> = BTreeMap::new();
        for r in &ex.relationships {
            if let Some(k) = edge_key(r) {
                if counted.contains(&(ex.app_id.as_str(), statement, k.clone())) {
                    continue;
                }
                per_exec.entry(k).or_default().insert(r.strategy);
            }
        }
        for k in per_exec.keys() {
            counted.insert((ex.app_id.as_str(), statement, k.clone()));
        }
        let c = match cost {
            CostMeasure::Duration => ex.duration_ms.unwrap_or(0) as f64,
            CostMeasure::Cpu => ex.cpu_ms as f64,
        };
        for (k, strategies) in per_exec {
            let a = acc.entry(k.clone()).or_default();
            let rows = |t: &str| -> (f64, bool) {
                match ex.tables.get(t).and_then(|v| v.rows) {
                    Some(r) => (r as f64, false),
                    None => (fallback.get(t).copied().unwrap_or(0) as f64, true),
                }
            };
            let (rl, fl) = rows(&k.left_table);
            let (rr, fr) = rows(&k.right_table);
            a.volume_sum += rl * rr;
            if fl || fr {
                a.fallbacks += 1;
            }
            a.cost_sum += c;
            let bytes = |t: &str| ex.tables.get(t).and_then(|v| v.bytes).unwrap_or(0) as f64;
            a.scanned += if k.left_table == k.right_table {
                bytes(&k.left_table)
            } else {
                bytes(&k.left_table) + bytes(&k.right_table)
            };
            for s in strategies {
                match s {
                    JoinStrategy::SortMergeJoin => a.smj += 1,
                    JoinStrategy::BroadcastHashJoin => a.bhj += 1,
                    JoinStrategy::ShuffledHashJoin
                    | JoinStrategy::BroadcastNestedLoopJoin
                    | JoinStrategy::CartesianProduct
                    | JoinStrategy::Join => a.other += 1,
                }
            }
            if let Some(t) = ex.start_ms {
                a.first = Some(a.first.map_or(t, |f| f.min(t)));
                a.last = Some(a.last.map_or(t, |l| l.max(t)));
            }
            a.execs.push(format!("{}:{}", ex.app_id, ex.execution_id));
        }
    }
    let keys: Vec<EdgeKey> = acc.keys().cloned().collect();
    let accs: Vec<Acc> = acc.into_values().collect();
    let f: Vec<f64> = accs.iter().map(|a| a.execs.len() as f64).collect();
    let d: Vec<f64> = accs
        .iter()
        .map(|a| a.volume_sum / a.execs.len() as f64)
        .collect();
    let c: Vec<f64> = accs
        .iter()
        .map(|a| a.cost_sum / a.execs.len() as f64)
        .collect();
    let n = score::jis(&f, &d, &c);
    let mut rows: Vec<EdgeRow> = keys
        .into_iter()
        .zip(accs)
        .enumerate()
        .map(|(i, (k, a))| EdgeRow {
            left_table: k.left_table,
            left_columns: k.left_columns,
            right_table: k.right_table,
            right_columns: k.right_columns,
            frequency: a.execs.len() as u64,
            data_volume: d[i],
            cost: c[i],
            f_norm: n[i].f,
            d_norm: n[i].d,
            c_norm: n[i].c,
            jis: n[i].jis,
            smj_count: a.smj,
            bhj_count: a.bhj,
            other_count: a.other,
            first_seen_ms: a.first,
            last_seen_ms: a.last,
            scanned_bytes: a.scanned,
            volume_fallbacks: a.fallbacks,
            executions: a.execs,
        })
        .collect();
    rows.sort_by(|a, b| b.jis.total_cmp(&a.jis).then_with(|| a.key().cmp(&b.key())));
    rows
}

/// Where windows of `width_ms` start so that the last one ends just after
/// the latest execution start of `execs` (1 ms after it: windows are
/// half-open): windows aligned to the data, not to the calendar, so the
/// most recent window is the last `width_ms` of the input and never runs
/// past it. 0 when no execution has a start time.
pub fn data_align(execs: &[ExecFacts], width_ms: i64) -> i64 {
    execs
        .iter()
        .filter_map(|e| e.start_ms)
        .max()
        .map_or(0, |t| t.saturating_add(1).rem_euclid(width_ms))
}

/// Split executions into consecutive windows of `width_ms` by start time,
/// aligned to the first execution's window start (multiples of the width
/// since the Unix epoch, so weekly windows start on a Thursday 00:00 UTC
/// unless `align_ms` shifts them; Monday alignment is `align_ms = 4 days`).
/// Executions without a start time are dropped.
pub fn windows(
    execs: &[ExecFacts],
    width_ms: i64,
    align_ms: i64,
) -> Vec<(i64, i64, Vec<ExecFacts>)> {
    let mut by: BTreeMap<i64, Vec<ExecFacts>> = BTreeMap::new();
    for e in execs {
        if let Some(t) = e.start_ms {
            let start = (t - align_ms).div_euclid(width_ms) * width_ms + align_ms;
            by.entry(start).or_default().push(e.clone());
        }
    }
    let Some((&first, _)) = by.iter().next() else {
        return Vec::new();
    };
    let Some((&last, _)) = by.iter().next_back() else {
        return Vec::new();
    };
    // Keep empty windows in between: a gap is a real (empty) window.
    let mut out = Vec::new();
    let mut s = first;
    while s <= last {
        out.push((s, s + width_ms, by.remove(&s).unwrap_or_default()));
        s += width_ms;
    }
    out
}

impl ExecFacts {
    /// Count one scan of `table` (any spelling): its output rows and bytes
    /// read add to the table's volume in this execution (saturating; a
    /// metric no scan reported stays `None`).
    pub fn add_scan(&mut self, table: &str, rows: Option<i64>, bytes: Option<i64>) {
        let v: &mut TableVolume = self.tables.entry(canonical_table(table)).or_default();
        let add = |acc: Option<i64>, x: Option<i64>| match x {
            Some(x) => Some(acc.unwrap_or(0).saturating_add(x)),
            None => acc,
        };
        v.rows = add(v.rows, rows);
        v.bytes = add(v.bytes, bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(l: (&str, &[&str]), r: (&str, &[&str]), strategy: JoinStrategy) -> Relationship {
        Relationship {
            left_table: l.0.into(),
            left_columns: l.1.iter().map(|s| s.to_string()).collect(),
            right_table: r.0.into(),
            right_columns: r.1.iter().map(|s| s.to_string()).collect(),
            join_type: graph::relationships::Relation::Join(plan::JoinType::Inner),
            strategy,
            non_simple: false,
            left_expr: String::new(),
            right_expr: String::new(),
            preserved_side: None,
            left_aggregated: false,
            right_aggregated: false,
            null_safe: false,
            engine: plan::Engine::Spark,
        }
    }

    fn exec(
        id: u64,
        start: i64,
        dur: i64,
        rows: &[(&str, Option<i64>)],
        rels: Vec<Relationship>,
    ) -> ExecFacts {
        ExecFacts {
            app_id: "app".into(),
            execution_id: id,
            root_execution_id: None,
            start_ms: Some(start),
            duration_ms: Some(dur),
            cpu_ms: dur / 2,
            tables: rows
                .iter()
                .map(|(t, r)| {
                    (
                        canonical_table(t),
                        TableVolume {
                            rows: *r,
                            bytes: r.map(|x| x * 10),
                        },
                    )
                })
                .collect(),
            relationships: rels,
        }
    }

    #[test]
    fn frequency_volume_cost_and_strategies_per_edge() {
        let lo = || {
            rel(
                ("orders", &["o_orderkey"]),
                ("lineitem", &["l_orderkey"]),
                JoinStrategy::SortMergeJoin,
            )
        };
        let co = || {
            rel(
                ("customer", &["c_custkey"]),
                ("orders", &["o_custkey"]),
                JoinStrategy::BroadcastHashJoin,
            )
        };
        let execs = vec![
            // The same edge twice in one execution counts once.
            exec(
                1,
                100,
                1000,
                &[
                    ("orders", Some(10)),
                    ("lineitem", Some(40)),
                    ("customer", Some(5)),
                ],
                vec![lo(), lo(), co()],
            ),
            exec(
                2,
                200,
                3000,
                &[("orders", Some(20)), ("lineitem", Some(80))],
                vec![lo()],
            ),
        ];
        let rows = build_edges(&execs, CostMeasure::Duration, &RowFallback::new());
        assert_eq!(rows.len(), 2);
        let li = rows
            .iter()
            .find(|r| r.left_table.ends_with("lineitem"))
            .unwrap();
        // Canonical order: lineitem.l_orderkey < orders.o_orderkey.
        assert_eq!(li.left_table, "spark_catalog.default.lineitem");
        assert_eq!(li.right_columns, ["o_orderkey"]);
        assert_eq!(li.frequency, 2);
        assert_eq!(li.data_volume, (10.0 * 40.0 + 20.0 * 80.0) / 2.0);
        assert_eq!(li.cost, 2000.0);
        assert_eq!((li.smj_count, li.bhj_count, li.other_count), (2, 0, 0));
        assert_eq!((li.first_seen_ms, li.last_seen_ms), (Some(100), Some(200)));
        assert_eq!(li.scanned_bytes, (100.0 + 400.0) + (200.0 + 800.0));
        assert_eq!(li.executions, ["app:1", "app:2"]);
        // The top edge on every axis scores ~1 and leads; the other is 0.
        assert_eq!(rows[0].key(), li.key());
        assert!((li.jis - 1.0).abs() < 1e-6);
        assert_eq!(rows[1].jis, 0.0);
        let cpu = build_edges(&execs, CostMeasure::Cpu, &RowFallback::new());
        assert_eq!(
            cpu.iter().find(|r| r.key() == li.key()).unwrap().cost,
            1000.0
        );
    }

    #[test]
    fn missing_rows_fall_back_to_table_stats_and_are_counted() {
        let r = rel(
            ("orders", &["o_orderkey"]),
            ("lineitem", &["l_orderkey"]),
            JoinStrategy::SortMergeJoin,
        );
        let execs = vec![exec(
            1,
            0,
            10,
            &[("orders", None), ("lineitem", Some(4))],
            vec![r],
        )];
        let mut fb = RowFallback::new();
        fb.insert("spark_catalog.default.orders".into(), 7);
        let rows = build_edges(&execs, CostMeasure::Duration, &fb);
        assert_eq!(rows[0].data_volume, 28.0);
        assert_eq!(rows[0].volume_fallbacks, 1);
    }

    #[test]
    fn expression_joins_are_not_edges() {
        let mut r = rel(
            ("orders", &["o_orderkey"]),
            ("lineitem", &["l_orderkey"]),
            JoinStrategy::SortMergeJoin,
        );
        r.non_simple = true;
        assert!(edge_key(&r).is_none());
    }

    #[test]
    fn edge_patterns_match_either_order_and_name_form() {
        let k = EdgeKey {
            left_table: "spark_catalog.default.lineitem".into(),
            left_columns: vec!["l_orderkey".into()],
            right_table: "spark_catalog.default.orders".into(),
            right_columns: vec!["o_orderkey".into()],
        };
        assert!(k.matches("orders-lineitem"));
        assert!(k.matches("orders.o_orderkey=lineitem.l_orderkey"));
        assert!(k.matches("lineitem(l_orderkey) = orders(o_orderkey)"));
        assert!(!k.matches("orders-customer"));
        assert!(!k.matches("orders.o_custkey=lineitem.l_orderkey"));
    }

    #[test]
    fn windows_keep_gaps_and_align_to_the_given_offset() {
        let day = 86_400_000;
        let e = |t| exec(t as u64, t, 1, &[], Vec::new());
        let w = windows(&[e(day / 2), e(2 * day + 5)], day, 0);
        assert_eq!(w.len(), 3);
        assert_eq!((w[0].0, w[0].1, w[0].2.len()), (0, day, 1));
        assert!(w[1].2.is_empty());
        assert_eq!(w[2].0, 2 * day);
        assert!(windows(&[], day, 0).is_empty());
        // Aligned to the data: the last window ends 1 ms after the last start.
        let execs = [e(day / 2), e(2 * day + 5)];
        let w = windows(&execs, day, data_align(&execs, day));
        assert_eq!(w.last().unwrap().1, 2 * day + 6);
        assert_eq!(w.first().unwrap().0, 6);
        assert_eq!(w.iter().map(|x| x.2.len()).sum::<usize>(), 2);
    }

    #[test]
    fn scans_of_one_table_add_up_under_its_canonical_name() {
        let mut f = ExecFacts::default();
        f.add_scan("orders", Some(10), None);
        f.add_scan("spark_catalog.default.orders", Some(5), Some(100));
        f.add_scan("lineitem", None, None);
        f.add_scan("nation", Some(i64::MAX), None);
        f.add_scan("nation", Some(1), None);
        let o = f.tables["spark_catalog.default.orders"];
        assert_eq!((o.rows, o.bytes), (Some(15), Some(100)));
        let l = f.tables["spark_catalog.default.lineitem"];
        assert_eq!((l.rows, l.bytes), (None, None));
        assert_eq!(
            f.tables["spark_catalog.default.nation"].rows,
            Some(i64::MAX)
        );
    }
}
