//! Reading one application's event log into per-execution records.
//!
//! State is kept per *running* SQL execution only: the latest AQE plan
//! (bytes replaced on every update, parsed once at the end), metric sums
//! and task times. When an execution ends its record is built and its state
//! dropped, so memory follows the number of concurrently running
//! executions and the size of one plan, not the size of the log.

use super::dispatch::{classify, EventKind};
use super::types::skim;
use super::types::*;
use crate::error::{Error, Location};
use crate::io::{LineReader, LogInput};
use crate::record::{self, PlanSet, QueryRecord};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Options for reading logs.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Longest line accepted, in bytes.
    pub max_line: usize,
    /// At most this many bad-line errors are reported per file; the rest
    /// are counted.
    pub max_line_errors: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_line: crate::io::DEFAULT_MAX_LINE,
            max_line_errors: 20,
        }
    }
}

/// Spark properties worth reporting (explain mode, AQE, broadcast threshold...).
const INTERESTING_PROPERTIES: &[&str] = &[
    "spark.sql.ui.explainMode",
    "spark.sql.adaptive.enabled",
    "spark.sql.autoBroadcastJoinThreshold",
    "spark.sql.adaptive.autoBroadcastJoinThreshold",
    "spark.sql.shuffle.partitions",
    "spark.sql.ansi.enabled",
    "spark.eventLog.compression.codec",
    "spark.eventLog.rolling.enabled",
    "spark.master",
    "spark.sql.catalogImplementation",
];

/// What one application log held, apart from its records.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AppSummary {
    /// Application id (from ApplicationStart, else the log's name).
    pub app_id: String,
    /// Application name.
    pub app_name: String,
    /// Spark version.
    pub spark_version: Option<String>,
    /// User.
    pub user: Option<String>,
    /// Application start, epoch ms.
    pub start_ms: Option<i64>,
    /// Application end, epoch ms.
    pub end_ms: Option<i64>,
    /// Selected Spark properties.
    pub properties: BTreeMap<String, String>,
    /// The input path.
    pub log: String,
    /// Lines read.
    pub lines: u64,
    /// Decompressed bytes read.
    pub bytes: u64,
    /// Events per kind (`other` counts events lakeaudit skips).
    pub event_counts: BTreeMap<String, u64>,
    /// Plan operators the operator registry does not know, by name, with
    /// how many nodes of the executions' plans they are.
    pub unknown_operators: BTreeMap<String, u64>,
    /// Executions that started but never ended (in-progress logs).
    pub unfinished_executions: u64,
}

/// The outcome of reading one application.
#[derive(Debug)]
pub struct AppResult<T> {
    /// Application facts and counters.
    pub summary: AppSummary,
    /// One item per SQL execution, in execution id order.
    pub records: Vec<T>,
    /// Non-fatal notes (`path:line: reason`), e.g. a truncated last line.
    pub warnings: Vec<String>,
    /// Errors; records read before an error are kept.
    pub errors: Vec<Error>,
}

#[derive(Default)]
struct ExecState {
    root_execution_id: Option<u64>,
    description: Option<String>,
    start_ms: Option<i64>,
    end_ms: Option<i64>,
    error: Option<String>,
    plan_text: Option<String>,
    plan_info: Option<String>,
    run_ms: i64,
    cpu_ns: i64,
    metrics: HashMap<u64, i64>,
    stages: Vec<u64>,
}

struct State<'f, T> {
    summary: AppSummary,
    execs: BTreeMap<u64, ExecState>,
    stage_exec: HashMap<u64, u64>,
    done: Vec<(u64, T)>,
    finish: &'f mut dyn FnMut(QueryRecord, &PlanSet) -> T,
}

/// Read one application log. `finish` turns each execution's record and
/// parsed plans into the caller's item (for example adding lineage) while
/// the plans are still alive.
pub fn read_app<T>(
    input: &LogInput,
    opts: &ReadOptions,
    mut finish: impl FnMut(QueryRecord, &PlanSet) -> T,
) -> AppResult<T> {
    let mut st = State {
        summary: AppSummary {
            log: input.display.clone(),
            ..AppSummary::default()
        },
        execs: BTreeMap::new(),
        stage_exec: HashMap::new(),
        done: Vec::new(),
        finish: &mut finish,
    };
    let mut warnings = Vec::new();
    let mut errors = Vec::new();
    let mut counts = [0u64; EventKind::ALL.len()];
    let mut bad_lines = 0usize;

    match LineReader::open(input, opts.max_line) {
        Err(e) => errors.push(e),
        Ok(mut reader) => loop {
            let (line, info) = match reader.next_line_info() {
                Ok(Some(l)) => l,
                Ok(None) => break,
                Err(e) => {
                    errors.push(e);
                    break;
                }
            };
            st.summary.lines += 1;
            let truncated = info.truncated;
            let kind = classify(line);
            let outcome = match kind {
                Some(k) => {
                    counts[k as usize] += 1;
                    st.handle(k, line)
                }
                None if st.summary.lines == 1 => {
                    errors.push(Error::Input {
                        at: reader.location(),
                        reason: "not a Spark event log (the first line is not a JSON event)".into(),
                    });
                    break;
                }
                None if line.iter().all(u8::is_ascii_whitespace) => Ok(()),
                None => Err("not a JSON event".to_string()),
            };
            if let Err(reason) = outcome {
                if truncated {
                    warnings.push(format!(
                        "{}: last line is truncated (log in progress); skipped",
                        reader.location()
                    ));
                    continue;
                }
                bad_lines += 1;
                if bad_lines <= opts.max_line_errors {
                    errors.push(Error::Event {
                        at: reader.location(),
                        reason,
                    });
                }
            }
            if reader.truncated_tail() {
                warnings.push(format!(
                    "{}: compressed stream ends mid-frame (log in progress)",
                    reader.location()
                ));
            }
            st.summary.bytes = reader.decompressed_bytes();
        },
    }
    if bad_lines > opts.max_line_errors {
        errors.push(Error::Event {
            at: Location {
                path: input.display.clone(),
                line: None,
            },
            reason: format!(
                "{} more bad lines not shown",
                bad_lines - opts.max_line_errors
            ),
        });
    }
    // Executions that never ended (in-progress or killed applications).
    let open: Vec<u64> = st.execs.keys().copied().collect();
    st.summary.unfinished_executions = open.len() as u64;
    for id in open {
        st.finish_exec(id);
    }
    for k in EventKind::ALL {
        let c = counts[k as usize];
        if c > 0 {
            st.summary.event_counts.insert(k.as_str().to_string(), c);
        }
    }
    if st.summary.app_id.is_empty() {
        st.summary.app_id = input.display.clone();
    }
    // Executions end out of order: emit them in execution id order.
    let mut done = st.done;
    done.sort_by_key(|(id, _)| *id);
    let records = done.into_iter().map(|(_, r)| r).collect();
    AppResult {
        summary: st.summary,
        records,
        warnings,
        errors,
    }
}

fn bad(e: serde_json::Error) -> String {
    format!("bad event JSON: {e}")
}

impl<T> State<'_, T> {
    fn handle(&mut self, kind: EventKind, line: &[u8]) -> std::result::Result<(), String> {
        match kind {
            EventKind::TaskEnd => {
                // Most bytes of a log: skim by key, and only for tasks of a
                // running SQL execution (see `types::skim`).
                let stage = skim::stage_id(line).ok_or("task end event without a Stage ID")?;
                let Some(&exec) = self.stage_exec.get(&stage) else {
                    return Ok(());
                };
                let Some(st) = self.execs.get_mut(&exec) else {
                    return Ok(());
                };
                let (run_ms, cpu_ns) = skim::times(line);
                st.run_ms += run_ms;
                st.cpu_ns += cpu_ns;
                skim::sql_updates(line, |id, update| {
                    if let Some(v) = update {
                        *st.metrics.entry(id).or_insert(0) += v;
                    }
                })?;
            }
            EventKind::JobStart => {
                let j: JobStart = serde_json::from_slice(line).map_err(bad)?;
                let exec = j
                    .properties
                    .and_then(|p| p.execution_id)
                    .and_then(|s| s.trim().parse::<u64>().ok());
                if let Some(exec) = exec {
                    if let Some(st) = self.execs.get_mut(&exec) {
                        st.stages.extend(j.stage_ids.iter().copied());
                        for s in j.stage_ids {
                            self.stage_exec.insert(s, exec);
                        }
                    }
                }
            }
            EventKind::SqlAdaptiveExecutionUpdate => {
                let u: SqlAdaptiveExecutionUpdate = serde_json::from_slice(line).map_err(bad)?;
                let st = self.execs.entry(u.execution_id).or_default();
                if let Some(t) = u.physical_plan_description {
                    st.plan_text = Some(t.into_owned());
                }
                if let Some(i) = u.spark_plan_info {
                    st.plan_info = Some(i.get().to_string());
                }
            }
            EventKind::DriverAccumUpdates => {
                let d: DriverAccumUpdates = serde_json::from_slice(line).map_err(bad)?;
                if let Some(st) = self.execs.get_mut(&d.execution_id) {
                    for (id, v) in d.accum_updates {
                        *st.metrics.entry(id).or_insert(0) += v;
                    }
                }
            }
            EventKind::SqlExecutionStart => {
                let s: SqlExecutionStart = serde_json::from_slice(line).map_err(bad)?;
                let st = self.execs.entry(s.execution_id).or_default();
                st.root_execution_id = s.root_execution_id;
                st.description = s.description.map(|d| d.into_owned());
                st.start_ms = s.time;
                // An AQE update can only follow the start; keep a later plan.
                if st.plan_text.is_none() {
                    st.plan_text = s.physical_plan_description.map(|t| t.into_owned());
                }
                if st.plan_info.is_none() {
                    st.plan_info = s.spark_plan_info.map(|i| i.get().to_string());
                }
            }
            EventKind::SqlExecutionEnd => {
                let e: SqlExecutionEnd = serde_json::from_slice(line).map_err(bad)?;
                if let Some(st) = self.execs.get_mut(&e.execution_id) {
                    st.end_ms = e.time;
                    st.error = e
                        .error_message
                        .filter(|m| !m.trim().is_empty())
                        .map(|m| m.into_owned());
                    self.finish_exec(e.execution_id);
                }
            }
            EventKind::LogStart => {
                let l: LogStart = serde_json::from_slice(line).map_err(bad)?;
                self.summary.spark_version = Some(l.spark_version.into_owned());
            }
            EventKind::ApplicationStart => {
                let a: ApplicationStart = serde_json::from_slice(line).map_err(bad)?;
                self.summary.app_name = a.app_name.into_owned();
                if let Some(id) = a.app_id {
                    self.summary.app_id = match a.attempt_id {
                        Some(att) => format!("{id}_{att}"),
                        None => id.into_owned(),
                    };
                }
                self.summary.user = a.user.map(|u| u.into_owned());
                self.summary.start_ms = a.timestamp;
            }
            EventKind::ApplicationEnd => {
                let a: ApplicationEnd = serde_json::from_slice(line).map_err(bad)?;
                self.summary.end_ms = a.timestamp;
            }
            EventKind::EnvironmentUpdate => {
                let e: EnvironmentUpdate = serde_json::from_slice(line).map_err(bad)?;
                for k in INTERESTING_PROPERTIES {
                    if let Some(v) = e.spark_properties.get(*k) {
                        self.summary.properties.insert((*k).to_string(), v.clone());
                    }
                }
            }
            EventKind::Other => {}
        }
        Ok(())
    }

    fn finish_exec(&mut self, id: u64) {
        let Some(st) = self.execs.remove(&id) else {
            return;
        };
        for s in &st.stages {
            self.stage_exec.remove(s);
        }
        let (set, plan_error) =
            record::parse_plans(st.plan_text.as_deref(), st.plan_info.as_deref());
        for (op, n) in set.unknown_operators() {
            let c = self.summary.unknown_operators.entry(op).or_insert(0);
            *c = c.saturating_add(n);
        }
        let (root_node, is_command) = match set.best() {
            Some(p) => {
                let (n, c) = record::root_operator(p);
                (Some(n), c)
            }
            None => (None, false),
        };
        let joins = set.best().map(record::join_records).unwrap_or_default();
        let rec = QueryRecord {
            app_id: self.summary.app_id.clone(),
            app_name: self.summary.app_name.clone(),
            spark_version: self.summary.spark_version.clone(),
            log: self.summary.log.clone(),
            execution_id: id,
            root_execution_id: st.root_execution_id,
            start_ms: st.start_ms,
            end_ms: st.end_ms,
            duration_ms: match (st.start_ms, st.end_ms) {
                (Some(s), Some(e)) => Some(e - s),
                _ => None,
            },
            error: st.error,
            description: st.description,
            plan_source: set.source.map(|s| s.as_str().to_string()),
            adaptive_final: record::is_adaptive_final(st.plan_text.as_deref(), &set),
            executor_run_ms: st.run_ms,
            executor_cpu_ms: st.cpu_ns / 1_000_000,
            root_node,
            is_command,
            scans: record::scan_records(&set, &st.metrics),
            joins,
            plan_error,
        };
        let item = (self.finish)(rec, &set);
        self.done.push((id, item));
    }
}

/// Read an application and keep plain records.
pub fn read_records(input: &LogInput, opts: &ReadOptions) -> AppResult<QueryRecord> {
    read_app(input, opts, |r, _| r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::discover;

    fn shared(rel: &str) -> String {
        testdata::spark_logs(rel).display().to_string()
    }

    #[test]
    fn reads_every_execution_of_the_rolling_zstd_log() {
        let found = discover(&[shared("tpch-default")]);
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        assert_eq!(found.inputs.len(), 1);
        let app = read_records(&found.inputs[0], &ReadOptions::default());
        assert!(app.errors.is_empty(), "{:?}", app.errors);
        assert_eq!(app.summary.app_id, "local-1796009792357");
        assert_eq!(app.summary.app_name, "tpch-default");
        assert_eq!(app.summary.spark_version.as_deref(), Some("4.0.1"));
        assert_eq!(app.summary.lines, 1404);
        assert_eq!(app.summary.event_counts["TaskEnd"], 190);
        assert_eq!(app.summary.event_counts["SQLAdaptiveExecutionUpdate"], 106);
        assert_eq!(app.summary.properties["spark.master"], "local[2]");
        assert_eq!(app.records.len(), 30);
        let ids: Vec<u64> = app.records.iter().map(|r| r.execution_id).collect();
        assert_eq!(ids, (0..30).collect::<Vec<_>>());
        // q03 (execution 10): customer, orders, lineitem with scan metrics.
        let q3 = &app.records[10];
        let mut tables: Vec<&str> = q3.scans.iter().map(|s| s.table.as_str()).collect();
        tables.sort();
        assert_eq!(
            tables,
            [
                "spark_catalog.default.customer",
                "spark_catalog.default.lineitem",
                "spark_catalog.default.orders"
            ]
        );
        assert!(q3
            .scans
            .iter()
            .all(|s| s.rows.is_some() && s.bytes_read.is_some()));
        assert_eq!(q3.start_ms, Some(1796009804024));
        assert!(q3.duration_ms.unwrap() > 0);
        assert!(q3.executor_cpu_ms > 0);
        assert_eq!(q3.joins.len(), 2);
        assert!(app.records[0].is_command);
    }
}
