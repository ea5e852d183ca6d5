//! One record per SQL execution, built from the plan that actually ran.
//!
//! The JSONL field names are a contract other tools rely on: fields may be
//! added, never renamed.

use crate::plan::{extended, formatted, spark_plan_info};
use ::plan::{
    Attr, Expr, JoinInfo, JoinStrategy, JoinType, NodeKind, Plan, PlanNode, PlanSource, Recursion,
    Runtime, ScanInfo, TreeNode,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// A scan of a table (or path) in the executed plan, with its SQL metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanRecord {
    /// Catalog name as Spark prints it, or the location for path reads.
    pub table: String,
    /// `Parquet`, `Delta`, ... when known.
    pub format: Option<String>,
    /// The location read, as printed (`InMemoryFileIndex [file:/w/orders]`),
    /// when the plan prints one.
    pub location: Option<String>,
    /// Columns read, as printed (`o_orderkey#190L`).
    pub columns: Vec<String>,
    /// `PushedFilters`.
    pub pushed_filters: Option<String>,
    /// `PartitionFilters`.
    pub partition_filters: Option<String>,
    /// `DataFilters`.
    pub data_filters: Option<String>,
    /// Files the scan read, as its engine measured them: Spark's `number
    /// of files read` (Photon's `files read`, Iceberg's `number of result
    /// data files`); which one is [`ScanRecord::counts_from`].
    pub files_read: Option<i64>,
    /// Bytes of those files: `size of files read` (Iceberg: `total data
    /// file size (bytes)`).
    pub bytes_read: Option<i64>,
    /// Metric `number of output rows`.
    pub rows: Option<i64>,
    /// Files the engine skipped by their metadata: Iceberg's `number of
    /// skipped data files`, Databricks' `number of files pruned`.
    #[serde(default)]
    pub files_skipped: Option<i64>,
    /// Which engine's metrics `files_read`, `bytes_read` and
    /// `files_skipped` are; `null` when the scan has none of them.
    #[serde(default)]
    pub counts_from: Option<CountSource>,
    /// File-count metrics the plan declares for this scan whose values were
    /// not taken, each `name: why` (no value in the log, a negative value):
    /// never a measurement.
    #[serde(default)]
    pub ignored_metrics: Vec<String>,
    /// The branch an Iceberg scan read, when not the main one.
    #[serde(default)]
    pub branch: Option<String>,
    /// `RuntimeFilters` of a DataSource V2 scan as printed, when not empty.
    #[serde(default)]
    pub runtime_filters: Option<String>,
    /// Where the application's catalog settings put the table when the
    /// plan prints no location (an Iceberg Hadoop catalog's warehouse,
    /// `spark.sql.warehouse.dir`; [`crate::catalog::locate`]).
    #[serde(default)]
    pub catalog_location: Option<String>,
}

/// Which engine measured a scan's file counts: the metrics its plan node
/// declares, with values from the log's accumulator updates (task ends and
/// `SparkListenerDriverAccumUpdates`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CountSource {
    /// Spark's file scans (`FileSourceScanExec`, RAPIDS' `GpuFileSourceScanExec`,
    /// Databricks): `number of files read`, `size of files read`, and
    /// Databricks' `number of files pruned`.
    Spark,
    /// Photon's scans: `files read`, `size of files read`.
    Photon,
    /// Iceberg's scan report (`BatchScan` of an Iceberg table): `number of
    /// result data files`, `total data file size (bytes)`, `number of
    /// skipped data files`, counted by Iceberg's planning on the snapshot
    /// it read.
    Iceberg,
}

impl CountSource {
    /// The source, what it counts and the name of a scan metric.
    fn of(name: &str) -> Option<(CountSource, Counted, &'static str)> {
        use CountSource as S;
        use Counted as C;
        Some(match name {
            "number of files read" => (S::Spark, C::Files, "number of files read"),
            "number of files pruned" => (S::Spark, C::Skipped, "number of files pruned"),
            "files read" => (S::Photon, C::Files, "files read"),
            "size of files read" => (S::Spark, C::Bytes, "size of files read"),
            "number of result data files" => (S::Iceberg, C::Files, "number of result data files"),
            "total data file size (bytes)" => {
                (S::Iceberg, C::Bytes, "total data file size (bytes)")
            }
            "number of skipped data files" => {
                (S::Iceberg, C::Skipped, "number of skipped data files")
            }
            _ => return None,
        })
    }
}

/// What a file-count metric counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Counted {
    Files,
    Bytes,
    Skipped,
}

/// A join operator of the executed plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JoinRecord {
    /// `SortMergeJoin`, `BroadcastHashJoin`, ..., or `Join` for logical
    /// plans (written as Spark names the operator).
    pub strategy: JoinStrategy,
    /// `Inner`, `LeftOuter`, `LeftSemi`, `LeftAnti`, `FullOuter`, ...
    /// (written as Spark prints it).
    #[serde(with = "::plan::join_type_text")]
    pub join_type: JoinType,
    /// Left keys as printed (`o_orderkey#0L`).
    pub left_keys: Vec<String>,
    /// Right keys as printed.
    pub right_keys: Vec<String>,
    /// Extra join condition as printed, if any.
    pub condition: Option<String>,
    /// Who ran it: `spark`, `photon` (Databricks Photon) or `gpu` (RAPIDS).
    /// `strategy` is accelerator-neutral: a `PhotonBroadcastHashJoin` is a
    /// `BroadcastHashJoin` run by `photon`.
    pub engine: Runtime,
}

/// Which SQL execution of which application: how the crates name one
/// execution to each other (the what-if's rows, the planner's measured
/// keys, the edge tables' facts). Printed `app_id:execution_id`.
///
/// ```
/// let e = parsers::record::ExecRef::new("app-1", 7);
/// assert_eq!(e.to_string(), "app-1:7");
/// assert!(e < parsers::record::ExecRef::new("app-1", 10));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExecRef {
    /// The application.
    pub app_id: String,
    /// The SQL execution id within it.
    pub execution_id: u64,
}

impl ExecRef {
    /// Execution `execution_id` of application `app_id`.
    pub fn new(app_id: impl Into<String>, execution_id: u64) -> ExecRef {
        ExecRef {
            app_id: app_id.into(),
            execution_id,
        }
    }
}

impl std::fmt::Display for ExecRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.app_id, self.execution_id)
    }
}

/// One SQL execution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueryRecord {
    /// Application id.
    pub app_id: String,
    /// Application name.
    pub app_name: String,
    /// Spark version from `SparkListenerLogStart`; for a Databricks log
    /// without it, `databricks-` + the runtime its environment names
    /// (`databricks-13.3.x-aarch64-photon-scala2.12`).
    pub spark_version: Option<String>,
    /// The input path of the log.
    pub log: String,
    /// SQL execution id.
    pub execution_id: u64,
    /// Root execution id (nested executions point to their root).
    pub root_execution_id: Option<u64>,
    /// Start, epoch ms.
    pub start_ms: Option<i64>,
    /// End, epoch ms (null when the execution never ended).
    pub end_ms: Option<i64>,
    /// `end_ms - start_ms`.
    pub duration_ms: Option<i64>,
    /// Error message of a failed execution.
    pub error: Option<String>,
    /// Execution description (call site or job description).
    pub description: Option<String>,
    /// Which plan the record used: `formatted`, `extended`,
    /// `spark_plan_info`, `tree_json`.
    pub plan_source: Option<PlanSource>,
    /// Whether the plan is the final adaptive (AQE) plan.
    pub adaptive_final: bool,
    /// Sum of executor run time of the execution's tasks, ms.
    pub executor_run_ms: i64,
    /// Sum of executor CPU time of the execution's tasks, ms.
    pub executor_cpu_ms: i64,
    /// Name of the plan's root operator below wrappers (`Execute
    /// CreateDataSourceTableCommand` marks a setup command).
    pub root_node: Option<String>,
    /// Whether the execution is a command (DDL, setup), not a query.
    pub is_command: bool,
    /// For a `CommandResult` execution (the rows of a command run eagerly
    /// by `spark.sql`, logged after it): the execution it reports on, the
    /// root of the execution started just before it. Its own record carries
    /// no relationships.
    pub result_of: Option<u64>,
    /// Tables read.
    pub scans: Vec<ScanRecord>,
    /// Join operators.
    pub joins: Vec<JoinRecord>,
    /// Why the plan could not be parsed, if it could not.
    pub plan_error: Option<String>,
    /// Why the record may lack events, if it may: the execution ran across
    /// missing rolling parts, its start or its end was not read (in-progress
    /// log). `null` for a complete record.
    pub incomplete: Option<String>,
}

/// The parsed plans of one execution, alive while the record is built so
/// that later stages (lineage) can use them without re-parsing.
#[derive(Clone, Debug, Default)]
pub struct PlanSet {
    /// Which source `physical` came from.
    pub source: Option<PlanSource>,
    /// The executed physical plan (final AQE plan when there is one).
    pub physical: Option<Plan>,
    /// Analyzed logical plan (extended explain mode only).
    pub analyzed: Option<Plan>,
    /// Optimized logical plan (extended explain mode only).
    pub optimized: Option<Plan>,
    /// The `sparkPlanInfo` tree of the same plan (carries metric ids).
    /// When `physical` came from the plan text, only its scans are
    /// converted in full ([`spark_plan_info::parse_scans`]).
    pub spark_plan_info: Option<Plan>,
}

impl PlanSet {
    /// The plan joins are read from: physical, else optimized, else analyzed.
    pub fn best(&self) -> Option<&Plan> {
        self.physical
            .as_ref()
            .or(self.optimized.as_ref())
            .or(self.analyzed.as_ref())
    }

    /// Operators of the plan joins are read from ([`PlanSet::best`]) that
    /// the operator registry does not know, with how many nodes each.
    pub fn unknown_operators(&self) -> BTreeMap<String, u64> {
        self.best().map(Plan::unknown_operators).unwrap_or_default()
    }
}

/// Parse the plan text and `sparkPlanInfo` JSON of one execution.
/// Returns the plans and, when the text failed, why.
pub fn parse_plans(text: Option<&str>, info_json: Option<&str>) -> (PlanSet, Option<String>) {
    let mut set = PlanSet::default();
    let mut err = None;
    if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
        if t.contains("== Parsed Logical Plan ==") || t.contains("== Analyzed Logical Plan ==") {
            match extended::parse(t) {
                Ok(p) => {
                    set.analyzed = p.analyzed;
                    set.optimized = p.optimized;
                    set.physical = p.physical;
                    set.source = Some(PlanSource::Extended);
                }
                Err(e) => err = Some(format!("extended plan: {e}")),
            }
        } else if is_formatted(t) {
            match formatted::parse(t) {
                Ok(p) => {
                    set.physical = Some(p);
                    set.source = Some(PlanSource::Formatted);
                }
                Err(e) => err = Some(format!("formatted plan: {e}")),
            }
        } else {
            // Simple/cost/codegen explain modes print the physical tree only.
            match extended::parse(t) {
                Ok(p) if p.physical.is_some() => {
                    set.physical = p.physical;
                    set.source = Some(PlanSource::Extended);
                }
                Ok(_) => err = Some("plan text has no physical plan".into()),
                Err(e) => err = Some(format!("plan text: {e}")),
            }
        }
    }
    // The text's error, when it failed, is the one reported.
    if let Some(j) = info_json {
        // With the physical plan from the text, the tree is read for its
        // scans' metric ids and operator names only.
        let info = if set.physical.is_some() {
            spark_plan_info::parse_scans(j)
        } else {
            spark_plan_info::parse(j)
        };
        match info {
            Ok(p) => set.spark_plan_info = Some(p),
            Err(e) => {
                err.get_or_insert_with(|| format!("sparkPlanInfo: {e}"));
            }
        }
    }
    if set.physical.is_none() {
        if let Some(p) = set.spark_plan_info.clone() {
            set.physical = Some(p);
            set.source = Some(PlanSource::SparkPlanInfo);
        }
    }
    (set, err)
}

/// Formatted mode numbers operators: `Name (N)` lines, then `(N) Name` blocks.
fn is_formatted(t: &str) -> bool {
    t.lines().any(|l| {
        l.strip_prefix('(')
            .and_then(|r| r.split_once(')'))
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Metric ids of one scan in `sparkPlanInfo`, keyed for matching.
#[derive(Default, Clone)]
struct ScanMetrics {
    rows: Option<u64>,
    /// The file-count metrics: what each counts, its name and its id.
    counts: Vec<(Counted, &'static str, u64)>,
    source: Option<CountSource>,
}

/// The file counts of one scan read from the metric values: each value
/// taken only when present and not negative, else named in the ignored
/// list.
struct Counts {
    files: Option<i64>,
    bytes: Option<i64>,
    skipped: Option<i64>,
    ignored: Vec<String>,
}

impl ScanMetrics {
    fn counts<S: std::hash::BuildHasher>(&self, values: &HashMap<u64, i64, S>) -> Counts {
        let mut c = Counts {
            files: None,
            bytes: None,
            skipped: None,
            ignored: Vec::new(),
        };
        for &(what, name, id) in &self.counts {
            let v = match values.get(&id) {
                None => {
                    c.ignored.push(format!("{name}: no value in the log"));
                    continue;
                }
                Some(&v) if v < 0 => {
                    c.ignored.push(format!("{name}: negative ({v})"));
                    continue;
                }
                Some(&v) => v,
            };
            let slot = match what {
                Counted::Files => &mut c.files,
                Counted::Bytes => &mut c.bytes,
                Counted::Skipped => &mut c.skipped,
            };
            *slot = Some(v);
        }
        c
    }
}

fn scan_key(table: &str, output: &[Attr]) -> (String, Vec<u64>) {
    let mut ids: Vec<u64> = output.iter().map(|a| a.id).collect();
    ids.sort_unstable();
    (table.to_string(), ids)
}

fn collect_scans(p: &PlanNode) -> Vec<(&PlanNode, &ScanInfo)> {
    let mut v = Vec::new();
    p.apply(|n| {
        if let NodeKind::Scan(s) = &n.kind {
            v.push((n, s));
        }
        Recursion::Continue
    });
    v
}

/// Build the scans of a record: scans of the executed plan with metric
/// values looked up through `sparkPlanInfo` (matched by table and output
/// exprIds, else by table and order of appearance).
pub fn scan_records<S: std::hash::BuildHasher>(
    set: &PlanSet,
    values: &HashMap<u64, i64, S>,
) -> Vec<ScanRecord> {
    let Some(plan) = set.physical.as_ref() else {
        return Vec::new();
    };
    let mut by_key: HashMap<(String, Vec<u64>), ScanMetrics> = HashMap::new();
    let mut by_table: HashMap<String, Vec<ScanMetrics>> = HashMap::new();
    if let Some(info) = set.spark_plan_info.as_ref() {
        for (n, s) in collect_scans(info) {
            let mut m = ScanMetrics::default();
            for metric in &n.metrics {
                let name = metric.name.as_str();
                if name == "number of output rows" {
                    m.rows = Some(metric.accumulator_id);
                    continue;
                }
                let Some((source, what, name)) = CountSource::of(name) else {
                    continue;
                };
                // Photon's scans say `size of files read` too: the
                // source is the one that named the files.
                if what != Counted::Bytes || m.source.is_none() {
                    m.source = Some(source);
                }
                m.counts.push((what, name, metric.accumulator_id));
            }
            by_key.insert(scan_key(&s.table, &n.output), m.clone());
            by_table.entry(s.table.clone()).or_default().push(m);
        }
    }
    let mut seen_per_table: HashMap<String, usize> = HashMap::new();
    collect_scans(plan)
        .into_iter()
        .map(|(n, s)| {
            let idx = seen_per_table.entry(s.table.clone()).or_insert(0);
            let m = by_key
                .get(&scan_key(&s.table, &n.output))
                .or_else(|| by_table.get(&s.table).and_then(|v| v.get(*idx)))
                .cloned()
                .unwrap_or_default();
            *idx += 1;
            let val = |id: Option<u64>| id.and_then(|i| values.get(&i).copied());
            let counts = m.counts(values);
            let measured =
                counts.files.is_some() || counts.bytes.is_some() || counts.skipped.is_some();
            ScanRecord {
                table: s.table.clone(),
                format: s.format.clone(),
                location: s.location.clone(),
                columns: n.output.iter().map(|a| a.to_string()).collect(),
                pushed_filters: s.pushed_filters.clone(),
                partition_filters: s.partition_filters.clone(),
                data_filters: s.data_filters.clone(),
                files_read: counts.files,
                bytes_read: counts.bytes,
                rows: val(m.rows),
                files_skipped: counts.skipped,
                counts_from: m.source.filter(|_| measured),
                ignored_metrics: counts.ignored,
                branch: s.branch.clone(),
                runtime_filters: s.runtime_filters.clone(),
                catalog_location: None,
            }
        })
        .collect()
}

/// `scans` with [`ScanRecord::catalog_location`] set from the
/// application's catalog settings `catalog`, for the catalog tables whose
/// plan prints no location.
pub fn locate_scans(
    mut scans: Vec<ScanRecord>,
    catalog: &BTreeMap<String, String>,
) -> Vec<ScanRecord> {
    if catalog.is_empty() {
        return scans;
    }
    for s in &mut scans {
        if s.location.is_none() && !graph_path(&s.table) {
            s.catalog_location = crate::catalog::locate(&s.table, catalog)
                .ok()
                .map(|l| l.location);
        }
    }
    scans
}

/// Whether a scan's table is a path (or a non-table read) rather than a
/// catalog name.
fn graph_path(t: &str) -> bool {
    t.contains("://") || t.starts_with("file:") || t.starts_with('/') || t.contains(':')
}

/// The join operators of a plan, in pre-order.
pub fn join_records(plan: &Plan) -> Vec<JoinRecord> {
    let mut v = Vec::new();
    plan.apply(|n| {
        if let NodeKind::Join(j) = &n.kind {
            v.push(join_record(j, n.engine));
        }
        Recursion::Continue
    });
    v
}

fn join_record(j: &JoinInfo, engine: Runtime) -> JoinRecord {
    let show = |v: &[Expr]| v.iter().map(|e| e.to_string()).collect();
    JoinRecord {
        strategy: j.strategy,
        join_type: j.join_type.clone(),
        left_keys: show(&j.left_keys),
        right_keys: show(&j.right_keys),
        condition: j.condition.as_ref().map(|c| c.to_string()),
        engine,
    }
}

/// The first operator below pure wrappers, and whether it is a command.
pub fn root_operator(plan: &PlanNode) -> (String, bool) {
    let mut n = plan;
    while let (NodeKind::PassThrough, [child]) = (&n.kind, n.children.as_slice()) {
        n = child;
    }
    // The registry makes `Execute ...` and `...Command` operators commands.
    (n.name.clone(), n.kind == NodeKind::Command)
}

/// Whether the plan is the final AQE plan.
pub fn is_adaptive_final(text: Option<&str>, set: &PlanSet) -> bool {
    if text.is_some_and(|t| t.contains("isFinalPlan=true") || t.contains("== Final Plan ==")) {
        return true;
    }
    set.spark_plan_info
        .as_ref()
        .is_some_and(|p| p.name.starts_with("AdaptiveSparkPlan") && is_final_info(p))
}

fn is_final_info(p: &PlanNode) -> bool {
    // sparkPlanInfo's root simpleString is `AdaptiveSparkPlan isFinalPlan=true`;
    // the parser keeps the operator name, so look for final-only stage nodes.
    p.exists(|n| n.name.contains("QueryStage"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_formatted_text() {
        assert!(is_formatted(
            "== Physical Plan ==\nScan x (1)\n\n\n(1) Scan x\nOutput [1]: [a#1]\n"
        ));
        assert!(!is_formatted(
            "== Physical Plan ==\n*(1) Project [a#1]\n+- (2) x\n"
        ));
    }
}
