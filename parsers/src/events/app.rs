//! Reading one application's event log into per-execution records.
//!
//! State is kept per *running* SQL execution only: the latest AQE plan
//! (bytes replaced on every update, parsed once at the end), metric sums
//! and task times. When an execution ends its record is built and its state
//! dropped, so memory follows the number of concurrently running
//! executions and the size of one plan, not the size of the log.

use super::dispatch::{classify_any, EventKind, Form};
use super::types::skim;
use super::types::*;
use crate::error::{Error, Location, Reason};
use crate::io::{LineInfo, LineReader, LogInput};
use crate::record::{self, PlanSet, QueryRecord};
use ::plan::{Recursion, TreeNode};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::mpsc::{self, SyncSender};
use std::sync::Mutex;

/// Options for reading logs.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Longest line accepted, in bytes.
    pub max_line: usize,
    /// At most this many bad-line errors are reported per file; the rest
    /// are counted.
    pub max_line_errors: usize,
    /// Decompress on a helper thread while lines are scanned (see
    /// [`LineReader::open_ahead`]), and finish ended executions (parse
    /// their final plans, build their records, call `finish`) on another:
    /// for when a core would otherwise idle, such as one log read with two
    /// threads.
    pub decode_ahead: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_line: crate::io::DEFAULT_MAX_LINE,
            max_line_errors: 20,
            decode_ahead: false,
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
    DATABRICKS_RUNTIME,
];

/// Databricks logs have no `SparkListenerLogStart`; the runtime names
/// itself in the environment (`13.3.x-aarch64-photon-scala2.12`).
const DATABRICKS_RUNTIME: &str = "spark.databricks.clusterUsageTags.sparkVersion";

/// What one application log held, apart from its records.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
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
    pub event_counts: BTreeMap<EventKind, u64>,
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
    /// Its `SQLExecutionStart` was read.
    started: bool,
    /// Why the record lacks events, when it does (first reason found).
    incomplete: Option<String>,
    root_execution_id: Option<u64>,
    /// Root of the execution started before this one (what a
    /// `CommandResult` reports on).
    prev_root: Option<u64>,
    description: Option<String>,
    start_ms: Option<i64>,
    end_ms: Option<i64>,
    error: Option<String>,
    plan_text: Option<String>,
    /// Where `plan_text` was read: the part's index and the line within
    /// the part (named by warnings about the plan).
    plan_at: Option<(usize, u64)>,
    plan_info: Option<String>,
    run_ms: i64,
    cpu_ns: i64,
    metrics: Metrics,
    stages: Vec<u64>,
    /// The line holding the latest plans, unread (see [`Deferred`]).
    update: Option<Deferred>,
}

/// The event holding an execution's latest plans, kept as its line's
/// bytes: its start (`skim::execution_start`) or an AQE plan update that
/// replaces both plans (`skim::deferrable_update`). It is read only if no
/// later update replaces it, when its execution ends or the log does:
/// superseded plans are never parsed.
struct Deferred {
    /// An execution start (else an AQE update).
    start: bool,
    line: Vec<u8>,
    /// Where it was read: the part's index and the line within the part.
    part: usize,
    part_line: u64,
}

/// SQL metric sums of an execution by accumulator id.
type Metrics = HashMap<u64, i64, BuildHasherDefault<IdHasher>>;

/// Hasher for accumulator ids, which task events add to millions of times:
/// one multiply (Fibonacci hashing) instead of the default SipHash. Ids are
/// small integers Spark hands out in order, so they spread well.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // High bits mixed into the low ones, which pick the bucket.
        self.0 ^ (self.0 >> 29)
    }
}

/// The caller's `finish`, with what it has made so far.
struct Finisher<'f, T> {
    finish: &'f mut (dyn FnMut(QueryRecord, &PlanSet) -> T + Send),
    /// Items by execution id, in the order the executions ended.
    done: Vec<(u64, T)>,
    /// Unknown operators of the finished executions' plans.
    unknown: BTreeMap<String, u64>,
    /// Warnings about the finished executions' plans, with where their
    /// plan text was read (see [`ExecState::plan_at`]).
    notes: Vec<(Option<(usize, u64)>, String)>,
}

/// An ended execution on its way to [`Finisher::take`]: its state and the
/// application's facts as they were when it ended.
struct Closed {
    id: u64,
    st: ExecState,
    app_id: String,
    app_name: String,
    spark_version: Option<String>,
    log: String,
    /// The application's catalog settings ([`crate::catalog`]).
    catalog: std::sync::Arc<BTreeMap<String, String>>,
}

/// Where ended executions go: finished on this thread, or queued for the
/// thread that parses their plans (see [`ReadOptions::decode_ahead`]).
enum Route<'s, 'f, T> {
    Here(&'s Mutex<Finisher<'f, T>>),
    Ahead(SyncSender<Closed>),
}

/// Ended executions queued for the plan thread at most (each holds its
/// final plan's text and JSON).
const CLOSED_QUEUE: usize = 4;

struct State<'s, 'f, T> {
    summary: AppSummary,
    execs: BTreeMap<u64, ExecState>,
    stage_exec: HashMap<u64, u64>,
    route: Route<'s, 'f, T>,
    /// Root execution id of the last execution started.
    last_root: Option<u64>,
    /// The rolling parts found missing so far, as `part 5` / `parts 5-7`
    /// (for the records' `incomplete` reasons).
    gap: Option<String>,
    /// Executions that ended after a gap without their start being read:
    /// nothing but the end is known of them, and they are left out.
    ended_unseen: u64,
    /// A deferred update's buffer, kept for the next execution's updates.
    spare: Vec<u8>,
    /// Deferred updates found bad when read: part index, line in the
    /// part, reason (reported as bad lines by `read_lines`).
    late: Vec<(usize, u64, Reason)>,
    /// The ids of the executions finished so far.
    ended: IdRanges,
    /// Executions read again after they ended (left out): how many, and
    /// the first one's id, part index and line in the part.
    repeats: u64,
    first_repeat: Option<(u64, usize, u64)>,
    /// The catalog settings of the latest environment update.
    catalog: std::sync::Arc<BTreeMap<String, String>>,
}

/// A set of execution ids as ranges: Spark hands ids out in order, so the
/// ids of a log's ended executions make a few ranges whatever their number.
#[derive(Default)]
struct IdRanges(BTreeMap<u64, u64>);

impl IdRanges {
    fn contains(&self, id: u64) -> bool {
        self.0
            .range(..=id)
            .next_back()
            .is_some_and(|(_, &last)| id <= last)
    }

    fn insert(&mut self, id: u64) {
        if self.contains(id) {
            return;
        }
        let mut first = id;
        if let Some((&f, &l)) = self.0.range(..id).next_back() {
            if l.checked_add(1) == Some(id) {
                first = f;
            }
        }
        let mut last = id;
        if let Some(next) = id.checked_add(1) {
            if let Some(l) = self.0.remove(&next) {
                last = l;
            }
        }
        self.0.insert(first, last);
    }
}

/// Read one application log. `finish` turns each execution's record and
/// parsed plans into the caller's item (for example adding lineage) while
/// the plans are still alive. With [`ReadOptions::decode_ahead`], ended
/// executions are finished (plans parsed, `finish` called) on a thread of
/// their own, in the order they ended, while the lines are scanned.
pub fn read_app<T: Send>(
    input: &LogInput,
    opts: &ReadOptions,
    mut finish: impl FnMut(QueryRecord, &PlanSet) -> T + Send,
) -> AppResult<T> {
    let finisher = Mutex::new(Finisher {
        finish: &mut finish,
        done: Vec::new(),
        unknown: BTreeMap::new(),
        notes: Vec::new(),
    });
    let st = State {
        summary: AppSummary {
            log: input.display.clone(),
            ..AppSummary::default()
        },
        execs: BTreeMap::new(),
        stage_exec: HashMap::new(),
        route: Route::Here(&finisher),
        gap: None,
        last_root: None,
        ended_unseen: 0,
        spare: Vec::new(),
        late: Vec::new(),
        ended: IdRanges::default(),
        repeats: 0,
        first_repeat: None,
        catalog: Default::default(),
    };
    let (mut st, mut warnings, errors) = if opts.decode_ahead {
        std::thread::scope(|scope| {
            // Owned here, so that a panic while reading drops the queue's
            // sender and the plan thread stops (the scope waits for it).
            let mut st = st;
            let (tx, rx) = mpsc::sync_channel::<Closed>(CLOSED_QUEUE);
            let fin = &finisher;
            let plans = std::thread::Builder::new()
                .name("lakeaudit-plans".into())
                .spawn_scoped(scope, move || {
                    for c in rx {
                        lock(fin).take(c);
                    }
                });
            // Without a thread (none could be started), finish here.
            let plans = plans.ok();
            if plans.is_some() {
                st.route = Route::Ahead(tx);
            }
            let (warnings, errors) = read_lines(input, opts, &mut st);
            st.route = Route::Here(&finisher);
            if let Some(Err(panic)) = plans.map(|h| h.join()) {
                std::panic::resume_unwind(panic);
            }
            (st, warnings, errors)
        })
    } else {
        let mut st = st;
        let (warnings, errors) = read_lines(input, opts, &mut st);
        (st, warnings, errors)
    };
    let mut summary = std::mem::take(&mut st.summary);
    drop(st);
    let fin = finisher.into_inner().unwrap_or_else(|p| p.into_inner());
    for (op, n) in fin.unknown {
        let c = summary.unknown_operators.entry(op).or_insert(0);
        *c = c.saturating_add(n);
    }
    for (at, note) in fin.notes {
        match at {
            Some((part, line)) => warnings.push(format!("{}: {note}", at_line(input, part, line))),
            None => warnings.push(format!("{}: {note}", input.display)),
        }
    }
    // Executions end out of order: emit them in execution id order.
    let mut done = fin.done;
    done.sort_by_key(|(id, _)| *id);
    let records = done.into_iter().map(|(_, r)| r).collect();
    AppResult {
        summary,
        records,
        warnings,
        errors,
    }
}

fn lock<'a, 'f, T>(m: &'a Mutex<Finisher<'f, T>>) -> std::sync::MutexGuard<'a, Finisher<'f, T>> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Read the lines of one application into `st`, finishing every execution
/// (the ones still open at the end too). Returns the warnings and errors.
fn read_lines<T>(
    input: &LogInput,
    opts: &ReadOptions,
    st: &mut State<'_, '_, T>,
) -> (Vec<String>, Vec<Error>) {
    let mut warnings = Vec::new();
    let mut errors = Vec::new();
    let mut counts = [0u64; EventKind::ALL.len()];
    let mut bad_lines = 0usize;

    match LineReader::open_ahead(input, opts.max_line, opts.decode_ahead) {
        Err(e) => errors.push(e),
        Ok(mut reader) => {
            // The part the last line came from (a rolling part after missing
            // ones starts a gap).
            let mut part = None;
            loop {
                let (line, info) = match reader.next_line_info() {
                    Ok(Some(l)) => l,
                    Ok(None) => break,
                    Err(e) => {
                        errors.push(e);
                        break;
                    }
                };
                if part != Some(info.part) {
                    part = Some(info.part);
                    if let Some(missing) = input.parts.get(info.part).and_then(|p| p.missing_before)
                    {
                        errors.push(st.gap(missing, &input.display));
                    }
                }
                st.summary.lines += 1;
                let truncated = info.truncated;
                let outcome = match classify_any(line) {
                    // A compact line is read by key or skipped unparsed:
                    // a byte JSON never holds raw (a control byte, as a
                    // corrupt compressed stream decodes to) is still found.
                    Ok((_, Form::Compact)) if has_control_byte(line) => Err(Reason::ControlByte),
                    Ok((k, form)) => {
                        counts[k as usize] = counts[k as usize].saturating_add(1);
                        st.handle(k, form, line, info)
                    }
                    Err(_) if st.summary.lines == 1 => {
                        errors.push(Error::Input {
                            at: reader.location(),
                            reason: "not a Spark event log (the first line is not a JSON event)"
                                .into(),
                        });
                        break;
                    }
                    Err(_) if line.iter().all(u8::is_ascii_whitespace) => Ok(()),
                    Err(reason) => Err(reason),
                };
                // Deferred updates read (and found bad) on this line come
                // from earlier lines: reported first.
                for (p, l, reason) in st.late.drain(..) {
                    bad_line(
                        &mut errors,
                        &mut bad_lines,
                        opts,
                        at_line(input, p, l),
                        reason,
                    );
                }
                if let Err(reason) = outcome {
                    if truncated {
                        warnings.push(format!(
                            "{}: last line is truncated (log in progress); skipped",
                            reader.location()
                        ));
                        continue;
                    }
                    bad_line(&mut errors, &mut bad_lines, opts, reader.location(), reason);
                }
                if reader.truncated_tail() {
                    warnings.push(format!(
                        "{}: compressed stream ends mid-frame (log in progress)",
                        reader.location()
                    ));
                }
                st.summary.bytes = reader.decompressed_bytes();
            }
            warnings.extend(reader.warnings().iter().cloned());
        }
    }
    // Executions that never ended (in-progress or killed applications).
    let open: Vec<u64> = st.execs.keys().copied().collect();
    st.summary.unfinished_executions = open.len() as u64;
    for id in open {
        st.finish_exec(id, false);
    }
    for (p, l, reason) in std::mem::take(&mut st.late) {
        bad_line(
            &mut errors,
            &mut bad_lines,
            opts,
            at_line(input, p, l),
            reason,
        );
    }
    if let Some((id, part, line)) = st.first_repeat {
        let more = match st.repeats {
            0..=1 => String::new(),
            n => format!(" ({} more repeated executions in this log)", n - 1),
        };
        warnings.push(format!(
            "{}: execution {id} is read again after it ended (an execution id is used once in an application): the repeat is left out{more}",
            at_line(input, part, line)
        ));
    }
    if st.ended_unseen > 0 {
        warnings.push(format!(
            "{}: {} executions ended after missing rolling parts without their start; left out",
            input.display, st.ended_unseen
        ));
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
    for k in EventKind::ALL {
        let c = counts[k as usize];
        if c > 0 {
            st.summary.event_counts.insert(k, c);
        }
    }
    if st.summary.app_id.is_empty() {
        st.summary.app_id = input.display.clone();
    }
    (warnings, errors)
}

/// Reports a bad line: the first `max_line_errors` of a log as errors,
/// the rest counted.
fn bad_line(
    errors: &mut Vec<Error>,
    bad_lines: &mut usize,
    opts: &ReadOptions,
    at: Location,
    reason: Reason,
) {
    *bad_lines += 1;
    if *bad_lines <= opts.max_line_errors {
        errors.push(Error::Event {
            at,
            reason: reason.to_string(),
        });
    }
}

/// The location of line `line` of part `part` of `input`, as
/// [`LineReader::location`] gives it.
fn at_line(input: &LogInput, part: usize, line: u64) -> Location {
    Location {
        path: match input.parts.get(part).and_then(|p| p.path.as_ref()) {
            Some(p) => p.display().to_string(),
            None => input.display.clone(),
        },
        line: Some(line),
    }
}

/// Reads an execution's deferred AQE update into its plans (a bad one is
/// noted in `late`; the plans are then those read before it), and keeps
/// its buffer in `spare` for the next one.
fn read_deferred(st: &mut ExecState, late: &mut Vec<(usize, u64, Reason)>, spare: &mut Vec<u8>) {
    let Some(d) = st.update.take() else {
        return;
    };
    if d.start {
        // Deferred only while the execution had no plan.
        match serde_json::from_slice::<SqlExecutionStart>(&d.line) {
            Ok(s) => {
                if st.plan_text.is_none() {
                    st.plan_text = s.physical_plan_description.map(|t| t.into_owned());
                    st.plan_at = Some((d.part, d.part_line));
                }
                if st.plan_info.is_none() {
                    st.plan_info = s.spark_plan_info.map(|i| i.get().to_string());
                }
            }
            Err(e) => late.push((d.part, d.part_line, bad(e))),
        }
    } else {
        match serde_json::from_slice::<SqlAdaptiveExecutionUpdate>(&d.line) {
            Ok(u) => {
                if let Some(t) = u.physical_plan_description {
                    replace_text(&mut st.plan_text, t);
                    st.plan_at = Some((d.part, d.part_line));
                }
                if let Some(i) = u.spark_plan_info {
                    replace_text(&mut st.plan_info, Cow::Borrowed(i.get()));
                }
            }
            Err(e) => late.push((d.part, d.part_line, bad(e))),
        }
    }
    if d.line.capacity() > spare.capacity() {
        *spare = d.line;
    }
}

/// Adds a metric update; values come from the log, so the sum saturates
/// instead of overflowing.
#[inline]
fn add_metric(metrics: &mut Metrics, id: u64, v: i64) {
    let m = metrics.entry(id).or_insert(0);
    *m = m.saturating_add(v);
}

/// Replaces a kept plan with a newer one, in the buffer it had when the
/// new text borrows from the line (an execution's updates are alike in
/// size, so the buffer is reused instead of freed and allocated again).
fn replace_text(slot: &mut Option<String>, new: Cow<'_, str>) {
    match (slot.as_mut(), new) {
        (Some(buf), Cow::Borrowed(b)) => {
            buf.clear();
            buf.push_str(b);
        }
        (_, new) => *slot = Some(new.into_owned()),
    }
}

fn bad(e: serde_json::Error) -> Reason {
    Reason::BadEventJson(e)
}

impl<T> State<'_, '_, T> {
    /// Crossing into a rolling part after missing ones (`missing` = first
    /// and last missing index): every execution running now may have lost
    /// events in the gap. Returns the error that reports the gap.
    fn gap(&mut self, missing: (u64, u64), display: &str) -> Error {
        let (a, b) = missing;
        let what = if a == b {
            format!("part {a}")
        } else {
            format!("parts {a}-{b}")
        };
        let reason = format!("ran across missing rolling {what}");
        let mut running = 0;
        for st in self.execs.values_mut() {
            running += 1;
            st.incomplete.get_or_insert_with(|| reason.clone());
        }
        let verb = if a == b { "is" } else { "are" };
        self.gap = Some(what.clone());
        Error::Input {
            at: Location {
                path: display.to_string(),
                line: None,
            },
            reason: format!(
                "rolling event-log {what} {verb} missing: every other part is read; executions \
                 running across the gap ({running} when it starts) are marked incomplete, and \
                 those that ran inside it are lost"
            ),
        }
    }

    /// A task end in a form other than Spark's compact one: the typed parse
    /// reads the same fields the skim reads.
    fn task_end_json(&mut self, line: &[u8]) -> std::result::Result<(), Reason> {
        let t: TaskEnd = serde_json::from_slice(line).map_err(bad)?;
        let Some(&exec) = self.stage_exec.get(&t.stage_id) else {
            return Ok(());
        };
        let Some(st) = self.execs.get_mut(&exec) else {
            return Ok(());
        };
        let (run_ms, cpu_ns) = t.metrics.map_or((0, 0), |m| (m.run_time_ms, m.cpu_time_ns));
        st.run_ms = st.run_ms.saturating_add(run_ms);
        st.cpu_ns = st.cpu_ns.saturating_add(cpu_ns);
        for a in t.info.map(|i| i.accumulables).unwrap_or_default() {
            if a.metadata.as_deref() != Some("sql") {
                continue;
            }
            if let Some(NumOrStr(Some(v))) = a.update {
                add_metric(&mut st.metrics, a.id, v);
            }
        }
        Ok(())
    }

    fn handle(
        &mut self,
        kind: EventKind,
        form: Form,
        line: &[u8],
        info: LineInfo,
    ) -> std::result::Result<(), Reason> {
        match kind {
            EventKind::TaskEnd if form == Form::Json => self.task_end_json(line)?,
            EventKind::TaskEnd => {
                // Most bytes of a log: skim by key, and only for tasks of a
                // running SQL execution (see `types::skim`).
                let stage = skim::stage_id(line).ok_or(Reason::NoStageId)?;
                let Some(&exec) = self.stage_exec.get(&stage) else {
                    return Ok(());
                };
                let Some(st) = self.execs.get_mut(&exec) else {
                    return Ok(());
                };
                let (sql, (run_ms, cpu_ns)) = skim::task_end(line, |id, update| {
                    if let Some(v) = update {
                        add_metric(&mut st.metrics, id, v);
                    }
                });
                st.run_ms = st.run_ms.saturating_add(run_ms);
                st.cpu_ns = st.cpu_ns.saturating_add(cpu_ns);
                sql?;
            }
            EventKind::JobStart => {
                // Spark's own job starts: the two fields by key, past the
                // stage infos (see `skim::job_start`).
                let skimmed = (form == Form::Compact && !info.truncated)
                    .then(|| skim::job_start(line))
                    .flatten();
                let (stage_ids, exec) = match skimmed {
                    Some(v) => v,
                    None => {
                        let j: JobStart = serde_json::from_slice(line).map_err(bad)?;
                        let exec = j
                            .properties
                            .and_then(|p| p.execution_id)
                            .and_then(|s| s.trim().parse::<u64>().ok());
                        (j.stage_ids, exec)
                    }
                };
                if let Some(exec) = exec {
                    if let Some(st) = self.execs.get_mut(&exec) {
                        st.stages.extend(stage_ids.iter().copied());
                        for s in stage_ids {
                            self.stage_exec.insert(s, exec);
                        }
                    }
                }
            }
            EventKind::SqlAdaptiveExecutionUpdate => {
                // Spark's own updates: kept unread until superseded or
                // needed (see `Deferred`); a last line that may be cut
                // short is read now, to be reported as truncated.
                let deferrable = form == Form::Compact && !info.truncated;
                if let Some(id) = deferrable.then(|| skim::deferrable_update(line)).flatten() {
                    if self.repeated(id, info, false) {
                        return Ok(());
                    }
                    let st = self.execs.entry(id).or_default();
                    let mut buf = match st.update.take() {
                        Some(d) => d.line,
                        None => std::mem::take(&mut self.spare),
                    };
                    buf.clear();
                    buf.extend_from_slice(line);
                    st.update = Some(Deferred {
                        start: false,
                        line: buf,
                        part: info.part,
                        part_line: info.part_line,
                    });
                    return Ok(());
                }
                let u: SqlAdaptiveExecutionUpdate = serde_json::from_slice(line).map_err(bad)?;
                if self.repeated(u.execution_id, info, false) {
                    return Ok(());
                }
                let st = self.execs.entry(u.execution_id).or_default();
                // A deferred update came first: this one goes over it.
                read_deferred(st, &mut self.late, &mut self.spare);
                if let Some(t) = u.physical_plan_description {
                    replace_text(&mut st.plan_text, t);
                    st.plan_at = Some((info.part, info.part_line));
                }
                if let Some(i) = u.spark_plan_info {
                    replace_text(&mut st.plan_info, Cow::Borrowed(i.get()));
                }
            }
            EventKind::DriverAccumUpdates => {
                let d: DriverAccumUpdates = serde_json::from_slice(line).map_err(bad)?;
                if let Some(st) = self.execs.get_mut(&d.execution_id) {
                    for (id, v) in d.accum_updates {
                        add_metric(&mut st.metrics, id, v);
                    }
                }
            }
            EventKind::SqlExecutionStart => {
                let skimmed = (form == Form::Compact && !info.truncated)
                    .then(|| skim::execution_start(line))
                    .flatten();
                // Its plans wait unread for a later update to replace them
                // if the execution has no plan yet (else, or if the
                // description is not a valid string, the line is read in
                // full, below).
                let no_plan = |st: &ExecState| st.plan_text.is_none() && st.plan_info.is_none();
                let fields = skimmed
                    .filter(|f| self.execs.get(&f.execution_id).is_none_or(no_plan))
                    .and_then(|f| match f.description {
                        None => Some((f, None)),
                        Some(lit) => serde_json::from_slice::<Cow<'_, str>>(lit)
                            .ok()
                            .map(|d| (f, Some(d.into_owned()))),
                    });
                if let Some((f, description)) = fields {
                    if self.repeated(f.execution_id, info, true) {
                        return Ok(());
                    }
                    let prev_root = self.last_root.replace(f.root_execution_id);
                    let st = self.execs.entry(f.execution_id).or_default();
                    st.prev_root = prev_root;
                    st.started = true;
                    st.root_execution_id = Some(f.root_execution_id);
                    st.description = description;
                    st.start_ms = Some(f.time);
                    // A deferred update came first: it holds the plans.
                    if st.update.is_none() {
                        let mut buf = std::mem::take(&mut self.spare);
                        buf.clear();
                        buf.extend_from_slice(line);
                        st.update = Some(Deferred {
                            start: true,
                            line: buf,
                            part: info.part,
                            part_line: info.part_line,
                        });
                    }
                    return Ok(());
                }
                let s: SqlExecutionStart = serde_json::from_slice(line).map_err(bad)?;
                if self.repeated(s.execution_id, info, true) {
                    return Ok(());
                }
                let prev_root = self
                    .last_root
                    .replace(s.root_execution_id.unwrap_or(s.execution_id));
                let st = self.execs.entry(s.execution_id).or_default();
                st.prev_root = prev_root;
                st.started = true;
                st.root_execution_id = s.root_execution_id;
                st.description = s.description.map(|d| d.into_owned());
                st.start_ms = s.time;
                // Plans read before come first (a deferred update is later
                // than this start, a deferred start is an earlier one).
                read_deferred(st, &mut self.late, &mut self.spare);
                // An AQE update can only follow the start; keep a later plan.
                if st.plan_text.is_none() {
                    st.plan_text = s.physical_plan_description.map(|t| t.into_owned());
                    st.plan_at = Some((info.part, info.part_line));
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
                    self.finish_exec(e.execution_id, true);
                } else if self.gap.is_some() {
                    self.ended_unseen = self.ended_unseen.saturating_add(1);
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
                // The catalogs' settings, to locate the tables scans name
                // without a location (`catalog::locate`).
                let catalog: BTreeMap<String, String> = e
                    .spark_properties
                    .iter()
                    .filter(|(k, _)| crate::catalog::is_catalog_property(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                self.summary.properties.extend(catalog.clone());
                self.catalog = std::sync::Arc::new(catalog);
                if self.summary.spark_version.is_none() {
                    if let Some(v) = e.spark_properties.get(DATABRICKS_RUNTIME) {
                        self.summary.spark_version = Some(format!("databricks-{v}"));
                    }
                }
            }
            // Skipped by its prefix: checked for its shape only.
            EventKind::Other if form == Form::Compact && line.last() == Some(&b'}') => {}
            EventKind::Other => {
                serde_json::from_slice::<serde::de::IgnoredAny>(line).map_err(bad)?;
            }
        }
        Ok(())
    }

    /// Closes execution `id` (`ended`: its end event was read) and sends it
    /// to be finished.
    /// Whether execution `id` ended before this line (`info`) names it
    /// again: the repeat is counted and left out (Spark uses an execution
    /// id once in an application; a log holding one twice was pasted
    /// together or damaged, and counting both would count it twice).
    /// `start`: the line is the execution's start (repeats are counted
    /// by their starts).
    fn repeated(&mut self, id: u64, info: LineInfo, start: bool) -> bool {
        if !self.ended.contains(id) {
            return false;
        }
        if self.first_repeat.is_none() {
            self.first_repeat = Some((id, info.part, info.part_line));
        }
        if start {
            self.repeats = self.repeats.saturating_add(1);
        }
        true
    }

    fn finish_exec(&mut self, id: u64, ended: bool) {
        let Some(mut st) = self.execs.remove(&id) else {
            return;
        };
        self.ended.insert(id);
        read_deferred(&mut st, &mut self.late, &mut self.spare);
        if !st.started {
            st.incomplete.get_or_insert_with(|| match &self.gap {
                Some(what) => format!("start not read (missing rolling {what})"),
                None => "start not read".to_string(),
            });
        }
        if !ended {
            st.incomplete
                .get_or_insert_with(|| "end not read (the log stops first)".to_string());
        }
        for s in &st.stages {
            self.stage_exec.remove(s);
        }
        let closed = Closed {
            id,
            st,
            app_id: self.summary.app_id.clone(),
            app_name: self.summary.app_name.clone(),
            spark_version: self.summary.spark_version.clone(),
            log: self.summary.log.clone(),
            catalog: self.catalog.clone(),
        };
        match &self.route {
            Route::Here(fin) => lock(fin).take(closed),
            Route::Ahead(tx) => {
                // The plan thread stops early only by panicking, which
                // `read_app` passes on when it joins it.
                let _ = tx.send(closed);
            }
        }
    }
}

impl<T> Finisher<'_, T> {
    /// Builds the record of an ended execution from its final plans and
    /// hands it to `finish`.
    fn take(&mut self, c: Closed) {
        let Closed {
            id,
            st,
            app_id,
            app_name,
            spark_version,
            log,
            catalog,
        } = c;
        let (set, plan_error) =
            record::parse_plans(st.plan_text.as_deref(), st.plan_info.as_deref());
        for (op, n) in set.unknown_operators() {
            let c = self.unknown.entry(op).or_insert(0);
            *c = c.saturating_add(n);
        }
        if let Some(p) = set.best() {
            let notes = &mut self.notes;
            p.apply(|n| {
                for e in n.predicates() {
                    if let Some(terms) = crate::plan::expr::over_term_cap(e) {
                        notes.push((
                            st.plan_at,
                            format!(
                                "execution {id}: the condition of {} holds {terms} terms, over the cap of {}: kept as text, not read (its equalities give no relationships)",
                                n.name,
                                crate::plan::expr::MAX_TERMS
                            ),
                        ));
                    }
                }
                Recursion::Continue
            });
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
            app_id,
            app_name,
            spark_version,
            log,
            execution_id: id,
            root_execution_id: st.root_execution_id,
            start_ms: st.start_ms,
            end_ms: st.end_ms,
            // Times come from the log: a nonsensical pair gives no duration
            // rather than an overflow.
            duration_ms: match (st.start_ms, st.end_ms) {
                (Some(s), Some(e)) => e.checked_sub(s),
                _ => None,
            },
            error: st.error,
            description: st.description,
            plan_source: set.source,
            adaptive_final: record::is_adaptive_final(st.plan_text.as_deref(), &set),
            executor_run_ms: st.run_ms,
            executor_cpu_ms: st.cpu_ns / 1_000_000,
            result_of: root_node
                .as_deref()
                .filter(|n| ::plan::operator_word(n) == "CommandResult")
                .and(st.prev_root),
            root_node,
            is_command,
            scans: record::locate_scans(record::scan_records(&set, &st.metrics), &catalog),
            joins,
            plan_error,
            incomplete: st.incomplete,
        };
        let item = (self.finish)(rec, &set);
        self.done.push((id, item));
    }
}

/// Read an application and keep plain records.
pub fn read_records(input: &LogInput, opts: &ReadOptions) -> AppResult<QueryRecord> {
    read_app(input, opts, |r, _| r)
}

/// Whether a compact line holds a byte JSON never holds raw
/// ([`crate::has_control_byte`]); a CRLF log's carriage return is white
/// space after the object.
fn has_control_byte(line: &[u8]) -> bool {
    crate::has_control_byte(line.strip_suffix(b"\r").unwrap_or(line))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::discover;
    use crate::io::testutil::{copy_tree, one_input, plain_sample, samples, TempDir};
    use std::io::Write;

    #[test]
    fn ended_ids_are_kept_as_ranges() {
        let mut r = IdRanges::default();
        for id in [3, 1, 2, 7, 5, 6, u64::MAX, 0] {
            r.insert(id);
        }
        // 0..=3 and 5..=7 joined as they came, u64::MAX alone.
        assert_eq!(
            r.0.iter().map(|(&a, &b)| (a, b)).collect::<Vec<_>>(),
            [(0, 3), (5, 7), (u64::MAX, u64::MAX)]
        );
        for (id, yes) in [(0, true), (3, true), (4, false), (6, true), (8, false)] {
            assert_eq!(r.contains(id), yes, "{id}");
        }
        r.insert(4);
        assert_eq!(r.0.len(), 2);
    }

    /// Re-serialises one compact JSON line as Python's `json.dumps` does by
    /// default: a space after every `:` and `,` outside strings.
    fn python_style(line: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(line.len() + line.len() / 8);
        let (mut in_str, mut escaped) = (false, false);
        for &b in line {
            out.push(b);
            if in_str {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
            } else if b == b'"' {
                in_str = true;
            } else if b == b':' || b == b',' {
                out.push(b' ');
            }
        }
        out
    }

    /// Re-serialises one JSON line with every object's members sorted by
    /// key (Python's `sort_keys=True`) and spaces after `:` and `,`, so that
    /// `"Event"` is not always first and accumulables do not start with `"ID"`.
    fn sorted_keys(line: &[u8]) -> Vec<u8> {
        fn write(v: &serde_json::Value, out: &mut Vec<u8>) {
            match v {
                serde_json::Value::Object(m) => {
                    let mut members: Vec<_> = m.iter().collect();
                    members.sort_by(|a, b| a.0.cmp(b.0));
                    out.push(b'{');
                    for (i, (k, v)) in members.into_iter().enumerate() {
                        if i > 0 {
                            out.extend_from_slice(b", ");
                        }
                        serde_json::to_writer(&mut *out, k).unwrap();
                        out.extend_from_slice(b": ");
                        write(v, out);
                    }
                    out.push(b'}');
                }
                serde_json::Value::Array(a) => {
                    out.push(b'[');
                    for (i, v) in a.iter().enumerate() {
                        if i > 0 {
                            out.extend_from_slice(b", ");
                        }
                        write(v, out);
                    }
                    out.push(b']');
                }
                other => serde_json::to_writer(&mut *out, other).unwrap(),
            }
        }
        let v: serde_json::Value = serde_json::from_slice(line).unwrap();
        let mut out = Vec::new();
        write(&v, &mut out);
        out
    }

    /// Writes `text` line by line through `f` into `path`.
    fn rewrite(text: &[u8], path: &std::path::Path, f: impl Fn(&[u8]) -> Vec<u8>) {
        let mut out = std::fs::File::create(path).unwrap();
        for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            out.write_all(&f(line)).unwrap();
            out.write_all(b"\n").unwrap();
        }
    }

    /// Records without the input path (which differs between copies).
    fn records_of(input: &crate::io::LogInput) -> (Vec<QueryRecord>, AppSummary) {
        let app = read_records(input, &ReadOptions::default());
        assert!(app.errors.is_empty(), "{}: {:?}", input.display, app.errors);
        let recs = app
            .records
            .into_iter()
            .map(|mut r| {
                r.log.clear();
                r
            })
            .collect();
        let mut summary = app.summary;
        summary.log.clear();
        (recs, summary)
    }

    /// A real log re-serialised by another JSON writer (spaces after the
    /// colons, members reordered) gives the same records as the original:
    /// every event, task ends and their SQL metrics included.
    #[test]
    fn reserialised_logs_give_the_same_records() {
        let tmp = TempDir::new("reserialised");
        let plain = plain_sample();
        let text = std::fs::read(&plain).unwrap();
        let (want, want_summary) = records_of(&one_input(&plain));
        assert_eq!(want.len(), 9);
        assert!(want.iter().any(|r| r.executor_run_ms > 0));
        assert!(want
            .iter()
            .any(|r| r.scans.iter().any(|s| s.rows.unwrap_or(0) > 0)));
        for (name, f) in [
            ("local-1-python", python_style as fn(&[u8]) -> Vec<u8>),
            ("local-1-sorted", sorted_keys),
        ] {
            let p = tmp.path(name);
            rewrite(&text, &p, f);
            let copy = std::fs::read(&p).unwrap();
            assert!(copy.starts_with(br#"{"Event": "SparkListenerLogStart""#));
            let (got, summary) = records_of(&one_input(&p));
            assert_eq!(got, want, "{name}");
            assert_eq!(summary.lines, want_summary.lines, "{name}");
            assert_eq!(summary.event_counts, want_summary.event_counts, "{name}");
            assert_eq!(summary.properties, want_summary.properties, "{name}");
        }
        // the sorted copy really moves "Event" away from the front somewhere
        let sorted = std::fs::read(tmp.path("local-1-sorted")).unwrap();
        assert!(sorted
            .split(|b| *b == b'\n')
            .any(|l| !l.is_empty() && !l.starts_with(br#"{"Event""#)));
    }

    /// A line that is JSON but not an event, or not JSON at all, is still
    /// an error naming its line; the rest of the log is read.
    #[test]
    fn non_events_are_errors_in_any_layout() {
        let tmp = TempDir::new("non-events");
        let text = std::fs::read(plain_sample()).unwrap();
        let mut lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
        lines.insert(3, br#"{"event": "lowercase key"}"#);
        lines.insert(5, br#"{"Event": "SparkListenerTaskEnd", "Stage ID": "#);
        let p = tmp.path("local-1");
        std::fs::write(&p, lines.join(&b'\n')).unwrap();
        let app = read_records(&one_input(&p), &ReadOptions::default());
        let errs: Vec<String> = app.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].ends_with(":4: not a Spark event (a JSON object without \"Event\")"));
        assert!(errs[1].contains(":6: bad event JSON"), "{errs:?}");
        assert_eq!(app.records.len(), 9);
    }

    /// The real log's lines with line `n` (1-based) changed by `f`.
    fn with_line(n: usize, f: impl Fn(&str) -> String) -> Vec<u8> {
        let text = String::from_utf8(std::fs::read(plain_sample()).unwrap()).unwrap();
        let mut out = String::new();
        for (i, l) in text.lines().enumerate() {
            out.push_str(&if i + 1 == n { f(l) } else { l.to_string() });
            out.push('\n');
        }
        out.into_bytes()
    }

    /// AQE plan updates are read only when no later one replaces them:
    /// a bad update that a later one supersedes goes unread (the records
    /// are those of the real log), a bad last update is reported with its
    /// line when its execution ends (the plans before it were never read:
    /// the execution has none), and every other record is as before.
    #[test]
    fn only_the_last_plan_update_of_an_execution_is_read() {
        const UPDATE: &str = "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate\",\"executionId\":5,";
        let tmp = TempDir::new("updates");
        let text = String::from_utf8(std::fs::read(plain_sample()).unwrap()).unwrap();
        let updates: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.starts_with(UPDATE))
            .map(|(i, _)| i + 1)
            .collect();
        assert!(updates.len() >= 2, "{updates:?}");
        let (want, _) = records_of(&one_input(&plain_sample()));
        // Invalid JSON, still shaped like Spark's update.
        let spoil = |l: &str| l.replacen("\"sparkPlanInfo\":{", "\"sparkPlanInfo\":{x", 1);
        let first = tmp.path("local-1");
        std::fs::write(&first, with_line(updates[0], spoil)).unwrap();
        let (got, _) = records_of(&one_input(&first));
        assert_eq!(got, want);

        let last = *updates.last().unwrap();
        let p = tmp.path("local-2");
        std::fs::write(&p, with_line(last, spoil)).unwrap();
        for decode_ahead in [false, true] {
            let opts = ReadOptions {
                decode_ahead,
                ..ReadOptions::default()
            };
            let app = read_records(&one_input(&p), &opts);
            let errs: Vec<String> = app.errors.iter().map(|e| e.to_string()).collect();
            assert_eq!(errs.len(), 1, "{errs:?}");
            assert!(
                errs[0].starts_with(&format!("{}:{last}: bad event JSON", p.display())),
                "{errs:?}"
            );
            assert_eq!(app.records.len(), want.len());
            for (got, want) in app.records.iter().zip(&want) {
                let mut got = got.clone();
                got.log.clear();
                if got.execution_id == 5 {
                    assert_eq!(got.start_ms, want.start_ms);
                    assert!(got.plan_source.is_none() && got.scans.is_empty());
                } else {
                    assert_eq!(&got, want);
                }
            }
        }
    }

    /// An event lakeaudit does not use is skipped by its prefix and checked
    /// for its shape only: cut short, it is a bad line naming its number,
    /// or, as the last line of a log in progress, a truncated line.
    #[test]
    fn skipped_events_are_checked_for_their_shape() {
        const START: &str = "{\"Event\":\"SparkListenerTaskStart\",";
        let tmp = TempDir::new("skipped");
        let text = String::from_utf8(std::fs::read(plain_sample()).unwrap()).unwrap();
        let n = text.lines().position(|l| l.starts_with(START)).unwrap() + 1;
        let cut = |l: &str| l[..l.len() / 2].to_string();
        let p = tmp.path("local-1");
        std::fs::write(&p, with_line(n, cut)).unwrap();
        let app = read_records(&one_input(&p), &ReadOptions::default());
        let errs: Vec<String> = app.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with(&format!("{}:{n}: bad event JSON", p.display())),
            "{errs:?}"
        );
        assert_eq!(app.records.len(), 9);

        // the same line as the last one of an in-progress log
        let mut log = text.lines().take(n - 1).collect::<Vec<_>>().join("\n");
        log.push('\n');
        log.push_str(&cut(text.lines().nth(n - 1).unwrap()));
        let p = tmp.path("local-2.inprogress");
        std::fs::write(&p, log).unwrap();
        let app = read_records(&one_input(&p), &ReadOptions::default());
        assert!(app.errors.is_empty(), "{:?}", app.errors);
        assert_eq!(
            app.warnings,
            [format!(
                "{}:{n}: last line is truncated (log in progress); skipped",
                p.display()
            )]
        );
    }

    /// Values from the log that would overflow a sum or a difference
    /// saturate (sums) or give no value (durations) instead of panicking.
    #[test]
    fn overflowing_values_in_a_real_log_saturate() {
        let tmp = TempDir::new("overflow");
        let text = String::from_utf8(std::fs::read(plain_sample()).unwrap()).unwrap();
        let max = i64::MAX.to_string();
        let mut out = String::new();
        for line in text.lines() {
            let mut l = line.to_string();
            for key in ["\"Executor Run Time\":", "\"Executor CPU Time\":"] {
                if let Some(at) = l.find(key) {
                    let from = at + key.len();
                    let n = l[from..].bytes().take_while(u8::is_ascii_digit).count();
                    l.replace_range(from..from + n, &max);
                }
            }
            if l.starts_with(r#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd","executionId":8,"#) {
                let at = l.find("\"time\":").unwrap() + 7;
                let n = l[at..].bytes().take_while(u8::is_ascii_digit).count();
                l.replace_range(at..at + n, &i64::MIN.to_string());
            }
            out.push_str(&l);
            out.push('\n');
        }
        let p = tmp.path("local-1");
        std::fs::write(&p, out).unwrap();
        let app = read_records(&one_input(&p), &ReadOptions::default());
        assert!(app.errors.is_empty(), "{:?}", app.errors);
        let many_tasks = app.records.iter().find(|r| r.execution_id == 8).unwrap();
        assert_eq!(many_tasks.executor_run_ms, i64::MAX);
        assert_eq!(many_tasks.executor_cpu_ms, i64::MAX / 1_000_000);
        assert_eq!(many_tasks.end_ms, Some(i64::MIN));
        assert_eq!(many_tasks.duration_ms, None);
    }

    /// The real rolling log with three parts (execution 9 runs from part 1
    /// across all of part 2 into part 3).
    fn rolling_multi() -> std::path::PathBuf {
        samples().join("spark4-rolling-multi")
    }

    #[test]
    fn a_complete_rolling_log_has_no_incomplete_records() {
        let input = one_input(&rolling_multi());
        assert_eq!(input.parts.len(), 3);
        let app = read_records(&input, &ReadOptions::default());
        assert!(
            app.errors.is_empty() && app.warnings.is_empty(),
            "{:?}",
            app.errors
        );
        assert_eq!(app.records.len(), 15);
        assert!(app.records.iter().all(|r| r.incomplete.is_none()));
    }

    /// A missing middle part: the other parts are read, the gap is an error
    /// naming the missing index, and only the execution that ran across it
    /// is marked incomplete; every other record is as in the whole log.
    #[test]
    fn a_missing_rolling_part_marks_the_executions_across_it() {
        let whole = read_records(&one_input(&rolling_multi()), &ReadOptions::default());
        let tmp = TempDir::new("gap");
        let dir = tmp.path("eventlog_v2_copy");
        copy_tree(
            std::path::Path::new(&one_input(&rolling_multi()).display),
            &dir,
        );
        let second = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().contains("events_2_"))
            .unwrap();
        std::fs::remove_file(second).unwrap();
        let input = one_input(&dir);
        assert_eq!(input.parts.len(), 2);
        assert_eq!(input.parts[1].missing_before, Some((2, 2)));
        let app = read_records(&input, &ReadOptions::default());
        let errs: Vec<String> = app.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with(&format!(
                "{}: rolling event-log part 2 is missing",
                dir.display()
            )) && errs[0].contains("(1 when it starts)"),
            "{errs:?}"
        );
        assert_eq!(app.records.len(), 15);
        for (got, want) in app.records.iter().zip(&whole.records) {
            assert_eq!(got.execution_id, want.execution_id);
            if got.execution_id == 9 {
                assert_eq!(
                    got.incomplete.as_deref(),
                    Some("ran across missing rolling part 2")
                );
                // its start and end were read; the tasks in part 2 were not
                assert_eq!((got.start_ms, got.end_ms), (want.start_ms, want.end_ms));
                assert!(got.executor_run_ms < want.executor_run_ms);
            } else {
                let mut got = got.clone();
                got.log = want.log.clone();
                assert_eq!(&got, want);
            }
        }
    }

    /// An in-progress log: the execution still running when the log stops
    /// is marked incomplete, the finished ones are not.
    #[test]
    fn unfinished_executions_are_incomplete() {
        let input = one_input(&crate::io::testutil::find_file(
            &samples().join("spark4-inprogress"),
            "5.inprogress",
        ));
        let app = read_records(&input, &ReadOptions::default());
        let open: Vec<_> = app.records.iter().filter(|r| r.end_ms.is_none()).collect();
        assert_eq!(open.len() as u64, app.summary.unfinished_executions);
        assert!(!open.is_empty());
        for r in &app.records {
            assert_eq!(
                r.incomplete.as_deref(),
                r.end_ms
                    .is_none()
                    .then_some("end not read (the log stops first)"),
                "execution {}",
                r.execution_id
            );
        }
    }

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
        assert_eq!(app.summary.event_counts[&EventKind::TaskEnd], 190);
        assert_eq!(
            app.summary.event_counts[&EventKind::SqlAdaptiveExecutionUpdate],
            106
        );
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

    /// Decompressing on a helper thread gives the same applications,
    /// records, warnings and errors as reading inline, on every real log of
    /// the repository (all codecs, rolling, in-progress, multi-MiB plan lines).
    #[test]
    fn decoding_ahead_reads_the_same_as_inline() {
        let found = discover(&[samples().display().to_string(), shared("tpch-default")]);
        assert!(found.inputs.len() > 10, "{:?}", found.inputs);
        let view = |a: AppResult<QueryRecord>| {
            (
                serde_json::to_string(&a.summary).unwrap(),
                serde_json::to_string(&a.records).unwrap(),
                a.warnings,
                a.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
            )
        };
        for input in &found.inputs {
            let inline = read_records(input, &ReadOptions::default());
            assert!(!inline.records.is_empty(), "{}", input.display);
            let ahead = ReadOptions {
                decode_ahead: true,
                ..ReadOptions::default()
            };
            assert_eq!(
                view(inline),
                view(read_records(input, &ahead)),
                "{}",
                input.display
            );
        }
    }
}
