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
    /// Executor (task) run time, ms.
    pub run_ms: i64,
    /// Per scanned table (canonical name): output rows and bytes read,
    /// summed over that execution's scans of the table (`None` when no
    /// scan of it reported the metric).
    pub tables: BTreeMap<String, TableVolume>,
    /// Join relationships of the execution's plan (for [`build_edges`];
    /// [`crate::exec::facts`] leaves them to the execution).
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
    /// Every execution containing the edge, in (app id, execution id)
    /// order (serialized as `app_id:execution_id` strings).
    pub executions: ExecList,
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

/// The edge keys of relationships ([`edge_key`]) with their strategies,
/// the relationships without one left out.
pub fn edge_keys(relationships: &[Relationship]) -> Vec<(EdgeKey, JoinStrategy)> {
    relationships
        .iter()
        .filter_map(|r| Some((edge_key(r)?, r.strategy)))
        .collect()
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

/// The executions containing an edge, in (app id, execution id) order,
/// held compactly: each as the varint deltas of its application's index
/// (in the run's application names, shared by every list) and of its
/// execution id, two or three bytes an execution instead of an
/// `app:id` string. Iterated or printed as `app_id:execution_id`.
#[derive(Clone, Debug, Default)]
pub struct ExecList {
    apps: std::sync::Arc<Vec<String>>,
    bytes: Vec<u8>,
    len: usize,
    last: Option<(u32, u64)>,
}

/// One execution of an [`ExecList`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecRef<'a> {
    /// Application id.
    pub app_id: &'a str,
    /// SQL execution id.
    pub execution_id: u64,
}

impl std::fmt::Display for ExecRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.app_id, self.execution_id)
    }
}

impl ExecList {
    /// How many executions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The executions, in order.
    pub fn iter(&self) -> impl Iterator<Item = ExecRef<'_>> + '_ {
        let mut at = 0;
        let mut last: Option<(u32, u64)> = None;
        std::iter::from_fn(move || {
            if at >= self.bytes.len() {
                return None;
            }
            let app_step = varint(&self.bytes, &mut at);
            let id = varint(&self.bytes, &mut at);
            let (app, id) = match last {
                Some((a, prev)) if app_step == 0 => (a, prev + id),
                Some((a, _)) => (a + app_step as u32, id),
                None => (app_step as u32, id),
            };
            last = Some((app, id));
            Some(ExecRef {
                app_id: self.apps.get(app as usize).map_or("", String::as_str),
                execution_id: id,
            })
        })
    }

    /// The length of [`ExecList::join`]'s text with a one-byte separator.
    pub fn text_len(&self) -> usize {
        let digits = |mut v: u64| {
            let mut n = 1;
            while v >= 10 {
                v /= 10;
                n += 1;
            }
            n
        };
        let items: usize = self
            .iter()
            .map(|e| e.app_id.len() + 1 + digits(e.execution_id))
            .sum();
        items + self.len.saturating_sub(1)
    }

    /// The executions as `app_id:execution_id` strings.
    pub fn strings(&self) -> Vec<String> {
        self.iter().map(|e| e.to_string()).collect()
    }

    /// The executions as `app_id:execution_id` joined by `sep`, built in
    /// one string.
    pub fn join(&self, sep: &str) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        for (i, e) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            let _ = write!(out, "{e}");
        }
        out
    }

    /// The list of `execs`, given in (app id, execution id) order (as
    /// [`ExecList::iter`] gives them back); `None` when they are not.
    pub fn from_ordered<'a>(execs: impl IntoIterator<Item = (&'a str, u64)>) -> Option<ExecList> {
        let (mut list, mut apps) = (ExecList::default(), Vec::<String>::new());
        for (app, id) in execs {
            match (apps.last(), list.last) {
                (Some(last), Some((_, prev))) if last == app && id < prev => return None,
                (Some(last), _) if last.as_str() > app => return None,
                (Some(last), _) if last == app => {}
                _ => apps.push(app.to_string()),
            }
            list.push(u32::try_from(apps.len() - 1).ok()?, id);
        }
        list.apps = std::sync::Arc::new(apps);
        Some(list)
    }

    /// Append execution `id` of application `app` (an index into the
    /// names the list is finished with), in order.
    fn push(&mut self, app: u32, id: u64) {
        let (app_step, id_step) = match self.last {
            Some((a, prev)) if a == app => (0, id - prev),
            Some((a, _)) => (u64::from(app - a), id),
            None => (u64::from(app), id),
        };
        put_varint(&mut self.bytes, app_step);
        put_varint(&mut self.bytes, id_step);
        self.last = Some((app, id));
        self.len += 1;
    }
}

/// Two lists are equal when they name the same executions, whatever names
/// their indices point into.
impl PartialEq for ExecList {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Serialize for ExecList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|e| e.to_string()))
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint(bytes: &[u8], at: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    v
}

#[derive(Default)]
struct Acc {
    execs: ExecList,
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

/// Edge keys numbered in the order they are first seen, so that the
/// accumulators of many tables (one per window) hold a number per edge,
/// not its names.
#[derive(Default)]
pub struct EdgeKeys {
    ids: BTreeMap<EdgeKey, u32>,
    keys: Vec<EdgeKey>,
}

impl EdgeKeys {
    /// The number of `k`, given it when new.
    pub fn id(&mut self, k: &EdgeKey) -> u32 {
        if let Some(&i) = self.ids.get(k) {
            return i;
        }
        let i = self.keys.len() as u32;
        self.ids.insert(k.clone(), i);
        self.keys.push(k.clone());
        i
    }

    /// The keys, by number.
    pub fn keys(&self) -> &[EdgeKey] {
        &self.keys
    }
}

/// The edge table of some executions (one window, or the whole input),
/// folded one execution at a time: executions must come in (app id,
/// execution id) order (the order [`build_edges`] sorts them into, and the
/// order a workload is read in), so that sums in `f64` and the
/// once-per-statement rule give the same table whatever the batches.
/// Memory is one accumulator per edge, its executions' compact list
/// ([`ExecList`]), and the current application's statements; edges and
/// applications are numbers into names kept once ([`EdgeKeys`] and the
/// application ids, shared by the tables of one run, or the
/// accumulator's own when pushed by [`EdgeAcc::push`]).
#[derive(Default)]
pub struct EdgeAcc {
    acc: BTreeMap<u32, Acc>,
    /// Edge keys, when pushed by [`EdgeAcc::push`].
    keys: EdgeKeys,
    /// Application names, in order, when pushed by [`EdgeAcc::push`]; an
    /// execution's app is the last one.
    apps: Vec<String>,
    /// The current application's index.
    app: Option<u32>,
    /// Edges already counted per statement of the current application.
    counted: BTreeSet<(u64, u32)>,
    /// Executions pushed.
    executions: usize,
}

impl EdgeAcc {
    /// How many executions were pushed.
    pub fn executions(&self) -> usize {
        self.executions
    }

    /// Fold in one execution (after every execution it sorts after), whose
    /// relationships give `keys` ([`edge_keys`]).
    pub fn push(
        &mut self,
        ex: &ExecFacts,
        keys: &[(EdgeKey, JoinStrategy)],
        cost: CostMeasure,
        fallback: &RowFallback,
    ) {
        if self.apps.last() != Some(&ex.app_id) {
            self.apps.push(ex.app_id.clone());
        }
        let app = (self.apps.len() - 1) as u32;
        let mut own = std::mem::take(&mut self.keys);
        let ids: Vec<(u32, JoinStrategy)> = keys.iter().map(|(k, s)| (own.id(k), *s)).collect();
        self.push_ids(app, ex, &ids, own.keys(), cost, fallback);
        self.keys = own;
    }

    /// [`EdgeAcc::push`] with the execution's application and edges given
    /// as numbers: `app` its index in application ids kept outside
    /// (indices never decrease), `keys` the numbers of its edges in
    /// `names` ([`EdgeKeys`]); both given again to
    /// [`EdgeAcc::finish_named`].
    pub fn push_ids(
        &mut self,
        app: u32,
        ex: &ExecFacts,
        keys: &[(u32, JoinStrategy)],
        names: &[EdgeKey],
        cost: CostMeasure,
        fallback: &RowFallback,
    ) {
        self.executions += 1;
        if self.app != Some(app) {
            self.app = Some(app);
            // Statements are per application.
            self.counted.clear();
        }
        // Each edge counts once per statement (the nested executions of one
        // statement, e.g. a CTAS and its insert, are one); strategies once
        // per kind.
        let statement = ex.root_execution_id.unwrap_or(ex.execution_id);
        let mut per_exec: BTreeMap<u32, BTreeSet<JoinStrategy>> = BTreeMap::new();
        for &(k, strategy) in keys {
            if self.counted.contains(&(statement, k)) {
                continue;
            }
            per_exec.entry(k).or_default().insert(strategy);
        }
        for &k in per_exec.keys() {
            self.counted.insert((statement, k));
        }
        let c = match cost {
            CostMeasure::Duration => ex.duration_ms.unwrap_or(0) as f64,
            CostMeasure::Cpu => ex.cpu_ms as f64,
        };
        for (id, strategies) in per_exec {
            let Some(k) = names.get(id as usize) else {
                continue;
            };
            let rows = |t: &str| -> (f64, bool) {
                match ex.tables.get(t).and_then(|v| v.rows) {
                    Some(r) => (r as f64, false),
                    None => (fallback.get(t).copied().unwrap_or(0) as f64, true),
                }
            };
            let (rl, fl) = rows(&k.left_table);
            let (rr, fr) = rows(&k.right_table);
            let bytes = |t: &str| ex.tables.get(t).and_then(|v| v.bytes).unwrap_or(0) as f64;
            let scanned = if k.left_table == k.right_table {
                bytes(&k.left_table)
            } else {
                bytes(&k.left_table) + bytes(&k.right_table)
            };
            let a = self.acc.entry(id).or_default();
            a.volume_sum += rl * rr;
            if fl || fr {
                a.fallbacks += 1;
            }
            a.cost_sum += c;
            a.scanned += scanned;
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
            a.execs.push(app, ex.execution_id);
        }
    }

    /// The edge table, sorted by JIS descending, then by names.
    pub fn finish(mut self) -> Vec<EdgeRow> {
        let apps = std::sync::Arc::new(std::mem::take(&mut self.apps));
        let keys = std::mem::take(&mut self.keys);
        self.finish_named(apps, keys.keys())
    }

    /// [`EdgeAcc::finish`] of executions pushed by [`EdgeAcc::push_ids`]
    /// with indices into `apps` and numbers into `names`.
    pub fn finish_named(
        self,
        apps: std::sync::Arc<Vec<String>>,
        names: &[EdgeKey],
    ) -> Vec<EdgeRow> {
        // In the order of the edges' names, as the sums always were.
        let mut accs: Vec<(&EdgeKey, Acc)> = self
            .acc
            .into_iter()
            .filter_map(|(id, a)| Some((names.get(id as usize)?, a)))
            .collect();
        accs.sort_by(|a, b| a.0.cmp(b.0));
        let rows: Vec<EdgeRow> = accs
            .into_iter()
            .map(|(k, a)| {
                let n = a.execs.len() as f64;
                EdgeRow {
                    left_table: k.left_table.clone(),
                    left_columns: k.left_columns.clone(),
                    right_table: k.right_table.clone(),
                    right_columns: k.right_columns.clone(),
                    frequency: a.execs.len() as u64,
                    data_volume: a.volume_sum / n,
                    cost: a.cost_sum / n,
                    f_norm: 0.0,
                    d_norm: 0.0,
                    c_norm: 0.0,
                    jis: 0.0,
                    smj_count: a.smj,
                    bhj_count: a.bhj,
                    other_count: a.other,
                    first_seen_ms: a.first,
                    last_seen_ms: a.last,
                    scanned_bytes: a.scanned,
                    volume_fallbacks: a.fallbacks,
                    executions: ExecList {
                        apps: apps.clone(),
                        ..a.execs
                    },
                }
            })
            .collect();
        scored(rows)
    }
}

/// Rows whose F, D and C are set, scored over the table (their normalised
/// terms and JIS: [`score::jis`]) and sorted by JIS descending, then by
/// names: the last step of every edge table, folded here or summed by the
/// Spark job (`--aggregates`).
pub(crate) fn scored(mut rows: Vec<EdgeRow>) -> Vec<EdgeRow> {
    let f: Vec<f64> = rows.iter().map(|r| r.frequency as f64).collect();
    let d: Vec<f64> = rows.iter().map(|r| r.data_volume).collect();
    let c: Vec<f64> = rows.iter().map(|r| r.cost).collect();
    for (r, n) in rows.iter_mut().zip(score::jis(&f, &d, &c)) {
        (r.f_norm, r.d_norm, r.c_norm, r.jis) = (n.f, n.d, n.c, n.jis);
    }
    rows.sort_by(|a, b| b.jis.total_cmp(&a.jis).then_with(|| a.key().cmp(&b.key())));
    rows
}

/// Build the edge table of a set of executions (one window), sorted by JIS
/// descending, then by names ([`EdgeAcc`] over them in (app id, execution
/// id) order).
pub fn build_edges(execs: &[ExecFacts], cost: CostMeasure, fallback: &RowFallback) -> Vec<EdgeRow> {
    let mut order: Vec<&ExecFacts> = execs.iter().collect();
    order.sort_by(|a, b| (&a.app_id, a.execution_id).cmp(&(&b.app_id, b.execution_id)));
    let mut acc = EdgeAcc::default();
    for ex in order {
        acc.push(ex, &edge_keys(&ex.relationships), cost, fallback);
    }
    acc.finish()
}

/// Where windows of `width_ms` start so that the last one ends just after
/// `latest`, the latest execution start (1 ms after it: windows are
/// half-open): windows aligned to the data, not to the calendar, so the
/// most recent window is the last `width_ms` of the input and never runs
/// past it. 0 when no execution has a start time.
pub fn data_align(latest: Option<i64>, width_ms: i64) -> i64 {
    latest.map_or(0, |t| t.saturating_add(1).rem_euclid(width_ms))
}

/// The start of the window of `width_ms` aligned to `align_ms` that holds
/// `t`: windows are multiples of the width since the Unix epoch (so weekly
/// windows start on a Thursday 00:00 UTC unless `align_ms` shifts them;
/// Monday alignment is `align_ms = 4 days`).
pub fn window_start(t: i64, width_ms: i64, align_ms: i64) -> i64 {
    (t - align_ms).div_euclid(width_ms) * width_ms + align_ms
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
            engine: plan::Runtime::Spark,
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
            run_ms: dur,
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
        assert_eq!(li.executions.strings(), ["app:1", "app:2"]);
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
    fn windows_align_to_the_given_offset_or_to_the_data() {
        let day = 86_400_000;
        assert_eq!(window_start(day / 2, day, 0), 0);
        assert_eq!(window_start(2 * day + 5, day, 0), 2 * day);
        assert_eq!(window_start(-1, day, 0), -day);
        // Aligned to the data: the last window ends 1 ms after the last start.
        let align = data_align(Some(2 * day + 5), day);
        assert_eq!(align, 6);
        assert_eq!(window_start(2 * day + 5, day, align) + day, 2 * day + 6);
        assert_eq!(window_start(day / 2, day, align), 6);
        assert_eq!(data_align(None, day), 0);
    }

    #[test]
    fn execution_lists_are_compact_and_read_back_in_order() {
        let mut l = ExecList::default();
        for (app, id) in [(0, 7), (0, 7), (0, 300), (2, 1), (2, u64::MAX), (5, 0)] {
            l.push(app, id);
        }
        l.apps = std::sync::Arc::new((0..6).map(|i| format!("app-{i}")).collect());
        assert_eq!(l.len(), 6);
        assert!(l.bytes.len() < 6 * 4 + 10);
        assert_eq!(
            l.strings(),
            [
                "app-0:7",
                "app-0:7",
                "app-0:300",
                "app-2:1",
                format!("app-2:{}", u64::MAX).as_str(),
                "app-5:0"
            ]
        );
        assert_eq!(l.join(" "), l.strings().join(" "));
        assert_eq!(
            serde_json::to_string(&l).unwrap(),
            format!(
                r#"["app-0:7","app-0:7","app-0:300","app-2:1","app-2:{}","app-5:0"]"#,
                u64::MAX
            )
        );
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
