//! Typed views of the events lakeaudit reads. Fields are named as in Spark's
//! `JsonProtocol` (core events) and as Jackson writes the SQL UI events;
//! every struct skips the fields it does not name, so parsing a 100 KB task
//! event touches only what is needed. Large plan payloads are borrowed or
//! kept as raw JSON text until the execution ends.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

/// `SparkListenerLogStart`.
#[derive(Deserialize)]
pub struct LogStart<'a> {
    /// The Spark version that wrote the log.
    #[serde(rename = "Spark Version", borrow)]
    pub spark_version: Cow<'a, str>,
}

/// `SparkListenerApplicationStart`.
#[derive(Deserialize)]
pub struct ApplicationStart<'a> {
    /// Application name.
    #[serde(rename = "App Name", borrow)]
    pub app_name: Cow<'a, str>,
    /// Application id (absent in some test logs).
    #[serde(rename = "App ID", borrow, default)]
    pub app_id: Option<Cow<'a, str>>,
    /// Start time, epoch ms.
    #[serde(rename = "Timestamp", default)]
    pub timestamp: Option<i64>,
    /// User.
    #[serde(rename = "User", borrow, default)]
    pub user: Option<Cow<'a, str>>,
    /// Attempt id (cluster mode).
    #[serde(rename = "App Attempt ID", borrow, default)]
    pub attempt_id: Option<Cow<'a, str>>,
}

/// `SparkListenerApplicationEnd`.
#[derive(Deserialize)]
pub struct ApplicationEnd {
    /// End time, epoch ms.
    #[serde(rename = "Timestamp", default)]
    pub timestamp: Option<i64>,
}

/// `SparkListenerEnvironmentUpdate`: only the Spark properties.
#[derive(Deserialize)]
pub struct EnvironmentUpdate {
    /// `spark.*` properties (an object since Spark 1.x event logs).
    #[serde(rename = "Spark Properties", default)]
    pub spark_properties: BTreeMap<String, String>,
}

/// `SparkListenerJobStart`.
#[derive(Deserialize)]
pub struct JobStart<'a> {
    /// Stages of this job.
    #[serde(rename = "Stage IDs", default)]
    pub stage_ids: Vec<u64>,
    /// Local properties; `spark.sql.execution.id` links the job to SQL.
    #[serde(rename = "Properties", borrow, default)]
    pub properties: Option<JobProperties<'a>>,
}

/// The job properties lakeaudit needs.
#[derive(Deserialize)]
pub struct JobProperties<'a> {
    /// The SQL execution this job belongs to, as a decimal string.
    #[serde(rename = "spark.sql.execution.id", borrow, default)]
    pub execution_id: Option<Cow<'a, str>>,
}

/// `SparkListenerTaskEnd`.
#[derive(Deserialize)]
pub struct TaskEnd<'a> {
    /// The stage the task ran in.
    #[serde(rename = "Stage ID")]
    pub stage_id: u64,
    /// Task info (accumulables).
    #[serde(rename = "Task Info", borrow, default)]
    pub info: Option<TaskInfo<'a>>,
    /// Task metrics (run time, CPU time); absent for some failed tasks.
    #[serde(rename = "Task Metrics", default)]
    pub metrics: Option<TaskMetrics>,
}

/// The part of `Task Info` lakeaudit needs.
#[derive(Deserialize)]
pub struct TaskInfo<'a> {
    /// Accumulator updates of this task.
    #[serde(rename = "Accumulables", borrow, default)]
    pub accumulables: Vec<Accumulable<'a>>,
}

/// One accumulator update.
#[derive(Deserialize)]
pub struct Accumulable<'a> {
    /// Accumulator id.
    #[serde(rename = "ID")]
    pub id: u64,
    /// This task's update: a number for internal metrics, a decimal string
    /// for SQL metrics.
    #[serde(rename = "Update", default)]
    pub update: Option<NumOrStr>,
    /// `"sql"` for SQL metrics.
    #[serde(rename = "Metadata", borrow, default)]
    pub metadata: Option<Cow<'a, str>>,
}

/// The part of `Task Metrics` lakeaudit needs.
#[derive(Deserialize)]
pub struct TaskMetrics {
    /// Executor run time, ms.
    #[serde(rename = "Executor Run Time", default)]
    pub run_time_ms: i64,
    /// Executor CPU time, ns.
    #[serde(rename = "Executor CPU Time", default)]
    pub cpu_time_ns: i64,
}

/// `SparkListenerSQLExecutionStart`.
#[derive(Deserialize)]
pub struct SqlExecutionStart<'a> {
    /// Execution id.
    #[serde(rename = "executionId")]
    pub execution_id: u64,
    /// Root execution id (Spark 3.4+).
    #[serde(rename = "rootExecutionId", default)]
    pub root_execution_id: Option<u64>,
    /// Description (the call site or the job description).
    #[serde(borrow, default)]
    pub description: Option<Cow<'a, str>>,
    /// The plan text in the session's explain mode.
    #[serde(rename = "physicalPlanDescription", borrow, default)]
    pub physical_plan_description: Option<Cow<'a, str>>,
    /// The `SparkPlanInfo` tree, kept as raw JSON.
    #[serde(rename = "sparkPlanInfo", borrow, default)]
    pub spark_plan_info: Option<&'a RawValue>,
    /// Start time, epoch ms.
    #[serde(default)]
    pub time: Option<i64>,
}

/// `SparkListenerSQLAdaptiveExecutionUpdate`.
#[derive(Deserialize)]
pub struct SqlAdaptiveExecutionUpdate<'a> {
    /// Execution id.
    #[serde(rename = "executionId")]
    pub execution_id: u64,
    /// The whole new plan text.
    #[serde(rename = "physicalPlanDescription", borrow, default)]
    pub physical_plan_description: Option<Cow<'a, str>>,
    /// The whole new `SparkPlanInfo`, raw.
    #[serde(rename = "sparkPlanInfo", borrow, default)]
    pub spark_plan_info: Option<&'a RawValue>,
}

/// `SparkListenerSQLExecutionEnd`.
#[derive(Deserialize)]
pub struct SqlExecutionEnd<'a> {
    /// Execution id.
    #[serde(rename = "executionId")]
    pub execution_id: u64,
    /// End time, epoch ms.
    #[serde(default)]
    pub time: Option<i64>,
    /// Error message; empty or absent on success.
    #[serde(rename = "errorMessage", borrow, default)]
    pub error_message: Option<Cow<'a, str>>,
}

/// `SparkListenerDriverAccumUpdates`.
#[derive(Deserialize)]
pub struct DriverAccumUpdates {
    /// Execution id.
    #[serde(rename = "executionId")]
    pub execution_id: u64,
    /// `[[accumulator id, value], ...]`.
    #[serde(rename = "accumUpdates", default)]
    pub accum_updates: Vec<(u64, i64)>,
}

/// Fast path for `SparkListenerTaskEnd`, most of a log's bytes: read the
/// few fields a record needs by their keys instead of tokenising the whole
/// event. A key's bytes (`"Stage ID":` with bare quotes) cannot occur inside
/// a JSON string, where quotes are escaped, so a match is the key itself.
/// Tested against the full typed parse on real logs.
pub mod skim {
    #[cfg(test)]
    use super::Accumulable;
    use super::StartFields;
    use crate::error::Reason;
    use memchr::memmem::Finder;
    #[cfg(test)]
    use serde::Deserialize;
    use std::sync::OnceLock;

    fn finder(
        cell: &'static OnceLock<Finder<'static>>,
        key: &'static [u8],
    ) -> &'static Finder<'static> {
        cell.get_or_init(|| Finder::new(key))
    }

    #[inline]
    fn int_at(line: &[u8], at: usize) -> Option<i64> {
        let rest = line.get(at..)?;
        let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
        let (neg, digits) = match rest.first() {
            Some(b'-') => (true, &rest[1..]),
            _ => (false, rest),
        };
        // As `str::parse::<i64>` of the digits: `None` on overflow.
        let mut v: i64 = 0;
        let mut n = 0;
        for &b in digits {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.checked_mul(10)?.checked_add(i64::from(d))?;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        Some(if neg { -v } else { v })
    }

    /// The integer value of `key` (which includes its quotes and colon).
    pub fn int_after(line: &[u8], key: &[u8]) -> Option<i64> {
        let at = memchr::memmem::find(line, key)? + key.len();
        int_at(line, at)
    }

    fn int_of(
        line: &[u8],
        cell: &'static OnceLock<Finder<'static>>,
        key: &'static [u8],
    ) -> Option<i64> {
        let at = finder(cell, key).find(line)? + key.len();
        int_at(line, at)
    }

    /// `Stage ID` of a task end event.
    #[inline]
    pub fn stage_id(line: &[u8]) -> Option<u64> {
        // Spark writes it right after the event name: no search then.
        const HEAD: &[u8] = b"{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":";
        static F: OnceLock<Finder<'static>> = OnceLock::new();
        let v = if line.starts_with(HEAD) {
            int_at(line, HEAD.len())
        } else {
            int_of(line, &F, b"\"Stage ID\":")
        };
        v.and_then(|v| u64::try_from(v).ok())
    }

    /// The execution id of a `SparkListenerSQLAdaptiveExecutionUpdate`
    /// that can be kept unread until its execution ends: Spark's compact
    /// layout (`{"Event":"...SparkListenerSQLAdaptiveExecutionUpdate",
    /// "executionId":<id>,"physicalPlanDescription":"`), a `"sparkPlanInfo":{`
    /// key further on, and a final `}`. Such an update, if it is valid JSON,
    /// replaces both plans of its execution, so a later one supersedes it
    /// whole and it need never be parsed. `None` for any other line (read
    /// at once, in full).
    pub fn deferrable_update(line: &[u8]) -> Option<u64> {
        const EVENT: &[u8] = b"{\"Event\":\"";
        const SQL_UI: &[u8] = b"org.apache.spark.sql.execution.ui.";
        const NAME: &[u8] = b"SparkListenerSQLAdaptiveExecutionUpdate\",\"executionId\":";
        const TEXT: &[u8] = b",\"physicalPlanDescription\":\"";
        static INFO: OnceLock<Finder<'static>> = OnceLock::new();
        if line.last() != Some(&b'}') {
            return None;
        }
        let rest = line.strip_prefix(EVENT)?;
        let rest = rest.strip_prefix(SQL_UI).unwrap_or(rest);
        let rest = rest.strip_prefix(NAME)?;
        // A JSON integer as serde reads it into a u64: no sign, no leading
        // zero, no overflow.
        let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let digits = rest.get(..n)?;
        if n == 0 || (n > 1 && digits.first() == Some(&b'0')) {
            return None;
        }
        let id = std::str::from_utf8(digits).ok()?.parse::<u64>().ok()?;
        let rest = rest.get(n..)?.strip_prefix(TEXT)?;
        finder(&INFO, b"\"sparkPlanInfo\":{").find(rest)?;
        Some(id)
    }

    /// `Stage IDs` and the `spark.sql.execution.id` property (as the typed
    /// [`super::JobStart`] read gives them: the property trimmed and read as
    /// a number, `None` when absent or not a number) of a job start in
    /// Spark's compact layout, found by key without tokenizing the `Stage
    /// Infos` before them: `"Stage IDs":[<ids>],"Properties":{` and a final
    /// `}`. `None` when the line is not laid out so, or the property value
    /// has an escape (the caller then parses the line in full).
    pub fn job_start(line: &[u8]) -> Option<(Vec<u64>, Option<u64>)> {
        const IDS: &[u8] = b"\"Stage IDs\":[";
        const PROPS: &[u8] = b",\"Properties\":{";
        const EXEC: &[u8] = b"\"spark.sql.execution.id\":\"";
        static IDS_F: OnceLock<Finder<'static>> = OnceLock::new();
        static EXEC_F: OnceLock<Finder<'static>> = OnceLock::new();
        if line.last() != Some(&b'}') {
            return None;
        }
        let at = finder(&IDS_F, IDS).find(line)? + IDS.len();
        let mut rest = line.get(at..)?;
        let mut ids = Vec::new();
        if let Some(r) = rest.strip_prefix(b"]") {
            rest = r;
        } else {
            loop {
                let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let digits = rest.get(..n)?;
                if n == 0 || (n > 1 && digits.first() == Some(&b'0')) {
                    return None;
                }
                ids.push(std::str::from_utf8(digits).ok()?.parse::<u64>().ok()?);
                match rest.get(n) {
                    Some(b',') => rest = rest.get(n + 1..)?,
                    Some(b']') => {
                        rest = rest.get(n + 1..)?;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let rest = rest.strip_prefix(PROPS)?;
        let Some(at) = finder(&EXEC_F, EXEC).find(rest) else {
            return Some((ids, None));
        };
        let value = rest.get(at + EXEC.len()..)?;
        let end = memchr::memchr2(b'"', b'\\', value)?;
        if value.get(end) != Some(&b'"') {
            return None;
        }
        let exec = std::str::from_utf8(value.get(..end)?)
            .ok()?
            .trim()
            .parse::<u64>()
            .ok();
        Some((ids, exec))
    }

    /// What a `SparkListenerSQLExecutionStart` in Spark's compact layout
    /// says besides its plans, read by key without tokenizing the plans:
    /// `{"Event":"...SparkListenerSQLExecutionStart","executionId":<id>,
    /// "rootExecutionId":<id>,"description":<string or null>,"details":`,
    /// then `},"time":<n>` after the plan tree (the last such key: the
    /// fields after it hold strings only) and a final `}`. `None` for any
    /// other line (the caller then parses it in full).
    pub fn execution_start(line: &[u8]) -> Option<StartFields<'_>> {
        const EVENT: &[u8] = b"{\"Event\":\"";
        const SQL_UI: &[u8] = b"org.apache.spark.sql.execution.ui.";
        const NAME: &[u8] = b"SparkListenerSQLExecutionStart\",\"executionId\":";
        const TIME: &[u8] = b"},\"time\":";
        if line.last() != Some(&b'}') {
            return None;
        }
        let rest = line.strip_prefix(EVENT)?;
        let rest = rest.strip_prefix(SQL_UI).unwrap_or(rest);
        let (execution_id, rest) = json_u64(rest.strip_prefix(NAME)?)?;
        let (root_execution_id, rest) = json_u64(rest.strip_prefix(b",\"rootExecutionId\":")?)?;
        let rest = rest.strip_prefix(b",\"description\":")?;
        let (description, rest) = match rest.strip_prefix(b"null") {
            Some(r) => (None, r),
            None => {
                let n = string_end(rest)?;
                (Some(rest.get(..n)?), rest.get(n..)?)
            }
        };
        rest.strip_prefix(b",\"details\":")?;
        let at = memchr::memmem::rfind(rest, TIME)? + TIME.len();
        let after = rest.get(at..)?;
        let n = after.iter().take_while(|b| b.is_ascii_digit()).count();
        let digits = after.get(..n)?;
        if n == 0
            || (n > 1 && digits.first() == Some(&b'0'))
            || !matches!(after.get(n), Some(b',' | b'}'))
        {
            return None;
        }
        let time = std::str::from_utf8(digits).ok()?.parse::<i64>().ok()?;
        Some(StartFields {
            execution_id,
            root_execution_id,
            description,
            time,
        })
    }

    /// A JSON unsigned integer as serde reads it into a u64 (no sign, no
    /// leading zero), and the bytes after it; `None` past 19 digits (the
    /// caller then reads the line in full).
    #[inline]
    fn json_u64(s: &[u8]) -> Option<(u64, &[u8])> {
        let (v, n) = digits(s)?;
        if n > 1 && s.first() == Some(&b'0') {
            return None;
        }
        Some((v, s.get(n..)?))
    }

    /// The value of the 1 to 19 ASCII digits `s` starts with, and how many
    /// there are (`None` for none or more than 19: 19 never overflow).
    #[inline(always)]
    fn digits(s: &[u8]) -> Option<(u64, usize)> {
        let mut v: u64 = 0;
        let mut n = 0;
        for &b in s {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            if n == 19 {
                return None;
            }
            v = v * 10 + u64::from(d);
            n += 1;
        }
        (n > 0).then_some((v, n))
    }

    /// The length of the JSON string literal `s` starts with, quotes
    /// included (its escapes are stepped over, not checked).
    #[inline]
    fn string_end(s: &[u8]) -> Option<usize> {
        if s.first() != Some(&b'"') {
            return None;
        }
        let mut i = 1;
        // Names and short values: a byte loop; long strings: memchr2.
        while let Some(&b) = s.get(i) {
            match b {
                b'"' => return Some(i + 1),
                b'\\' => i += 2,
                _ => i += 1,
            }
            if i >= 64 {
                break;
            }
        }
        loop {
            let j = i + memchr::memchr2(b'"', b'\\', s.get(i..)?)?;
            if s.get(j) == Some(&b'"') {
                return Some(j + 1);
            }
            i = j + 2;
        }
    }

    /// `Executor Run Time` (ms) and `Executor CPU Time` (ns); 0 when absent.
    pub fn times(line: &[u8]) -> (i64, i64) {
        times_after(line, 0)
    }

    /// [`times`], looking for the keys from byte `from` on first (Spark
    /// writes `Task Metrics` after the accumulables, and `Executor CPU
    /// Time` right after `Executor Run Time`), then from the start. Each
    /// key occurs once in a task end event, so the result is that of
    /// [`times`] with less of the line searched.
    pub fn times_after(line: &[u8], from: usize) -> (i64, i64) {
        let (run, cpu, _) = times_at(line, from);
        (run, cpu)
    }

    /// [`times_after`], and where the `Executor Run Time` key is.
    fn times_at(line: &[u8], from: usize) -> (i64, i64, Option<usize>) {
        static RUN: OnceLock<Finder<'static>> = OnceLock::new();
        static CPU: OnceLock<Finder<'static>> = OnceLock::new();
        const RUN_KEY: &[u8] = b"\"Executor Run Time\":";
        const CPU_KEY: &[u8] = b"\"Executor CPU Time\":";
        let find = |f: &Finder<'_>, from: usize| {
            line.get(from..)
                .and_then(|rest| f.find(rest))
                .map(|i| from + i)
                .or_else(|| f.find(line))
        };
        let key = find(finder(&RUN, RUN_KEY), from);
        let run_at = key.map(|i| i + RUN_KEY.len());
        let run = run_at.and_then(|at| int_at(line, at)).unwrap_or(0);
        let cpu = find(finder(&CPU, CPU_KEY), run_at.unwrap_or(from))
            .and_then(|i| int_at(line, i + CPU_KEY.len()))
            .unwrap_or(0);
        (run, cpu, key)
    }

    /// What a task end contributes: its SQL-metric updates (through
    /// `each`, as [`sql_updates`]) and `(run ms, CPU ns)` (as [`times`]);
    /// a bad SQL update is an error, after the times were read.
    ///
    /// Fewer bytes are searched than by calling both: Spark writes `Task
    /// Metrics` last, a kilobyte or so from the line's end, so its keys are
    /// looked for in the last [`TAIL`] bytes first (then in the whole line);
    /// and it writes `Task Info`, holding the accumulables, before `Task
    /// Metrics`, so when `"Task Info":` comes before `"Executor Run Time":`
    /// (a key only `Task Metrics` has) the SQL updates are looked for only
    /// up to that key.
    pub fn task_end(
        line: &[u8],
        each: impl FnMut(u64, Option<i64>),
    ) -> (Result<(), Reason>, (i64, i64)) {
        static INFO: OnceLock<Finder<'static>> = OnceLock::new();
        let (run, cpu, key) = times_at(line, line.len().saturating_sub(TAIL));
        let info = key.and_then(|k| finder(&INFO, b"\"Task Info\":").find(line.get(..k)?));
        let sql_end = match (info, key) {
            (Some(_), Some(k)) => k,
            _ => line.len(),
        };
        let sql = sql_updates(line.get(..sql_end).unwrap_or(line), each).map(|_| ());
        (sql, (run, cpu))
    }

    /// How far from a task end's end [`task_end`] first looks for `Task
    /// Metrics` keys.
    pub const TAIL: usize = 2048;

    /// The SQL-metric updates (`"Metadata":"sql"`) of the `Accumulables`
    /// array as `(accumulator id, update)`. Spark writes every accumulable
    /// as a flat object starting with `{"ID":<n>` whose `"Update"` is a
    /// number or a decimal string, so the object holding a
    /// `"Metadata":"sql"` starts at the nearest `{"ID":` before it, and its
    /// two numbers are read in place. Returns where the last one ends (0
    /// if there is none), for [`times_after`].
    pub fn sql_updates(
        line: &[u8],
        mut each: impl FnMut(u64, Option<i64>),
    ) -> Result<usize, Reason> {
        static SQL: OnceLock<Finder<'static>> = OnceLock::new();
        static UPDATE: OnceLock<Finder<'static>> = OnceLock::new();
        const ID: &[u8] = b"{\"ID\":";
        const UPD: &[u8] = b"\"Update\":";
        let mut from = 0;
        for pos in finder(&SQL, b"\"Metadata\":\"sql\"").find_iter(line) {
            let start = last_object_start(line.get(from..pos).unwrap_or(&[]))
                .map(|i| from + i)
                .ok_or(Reason::SqlUpdateNoId)?;
            let id = int_at(line, start + ID.len())
                .and_then(|v| u64::try_from(v).ok())
                .ok_or(Reason::SqlUpdateBadId)?;
            let obj = &line[start..pos];
            let update = finder(&UPDATE, UPD).find(obj).and_then(|u| {
                let at = u + UPD.len();
                match obj.get(at) {
                    Some(b'"') => int_at(obj, at + 1),
                    _ => int_at(obj, at),
                }
            });
            each(id, update);
            from = pos;
        }
        Ok(from)
    }

    /// Where the last `{"ID":` in `window` starts: the nearest `{` before
    /// the end that starts one, found by a backward byte scan (an
    /// accumulable object is short, so this stops soon).
    fn last_object_start(window: &[u8]) -> Option<usize> {
        const ID: &[u8; 6] = b"{\"ID\":";
        let mut end = window.len();
        while let Some(i) = memchr::memrchr(b'{', window.get(..end)?) {
            if window.get(i..i + ID.len()) == Some(&ID[..]) {
                return Some(i);
            }
            end = i;
        }
        None
    }

    /// The whole `Accumulables` array of `Task Info`, parsed on its own
    /// (the reference the skim is tested against).
    #[cfg(test)]
    pub fn accumulables(line: &[u8]) -> Result<Vec<Accumulable<'_>>, serde_json::Error> {
        const KEY: &[u8] = b"\"Accumulables\":";
        let Some(at) = memchr::memmem::find(line, KEY) else {
            return Ok(Vec::new());
        };
        let mut de = serde_json::Deserializer::from_slice(&line[at + KEY.len()..]);
        Vec::<Accumulable>::deserialize(&mut de)
    }
}

/// The fields of an execution start [`skim::execution_start`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartFields<'a> {
    /// `executionId`.
    pub execution_id: u64,
    /// `rootExecutionId`.
    pub root_execution_id: u64,
    /// `description` as its JSON string literal (quotes and escapes
    /// included, to be read with serde), `None` for `null`.
    pub description: Option<&'a [u8]>,
    /// `time`.
    pub time: i64,
}

/// A JSON number or a decimal string (SQL metric updates are strings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumOrStr(pub Option<i64>);

impl<'de> Deserialize<'de> for NumOrStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NumOrStr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number or a numeric string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<NumOrStr, E> {
                Ok(NumOrStr(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<NumOrStr, E> {
                Ok(NumOrStr(i64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<NumOrStr, E> {
                Ok(NumOrStr(Some(v as i64)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<NumOrStr, E> {
                Ok(NumOrStr(v.trim().parse().ok()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<NumOrStr, E> {
                Ok(NumOrStr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<NumOrStr, E> {
                Ok(NumOrStr(None))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<NumOrStr, A::Error> {
                // Block-status lists of internal metrics: not a number.
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(NumOrStr(None))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<NumOrStr, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(NumOrStr(None))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skim reads exactly what the full typed parse reads, on every task
    /// end event of a real log.
    #[test]
    fn skim_agrees_with_the_typed_parse_on_real_task_events() {
        use std::io::Read;
        let path = testdata::spark_logs(
            "tpch-default/eventlog_v2_local-1796009792357/events_1_local-1796009792357.zstd",
        );
        let mut text = Vec::new();
        zstd::stream::read::Decoder::new(std::fs::File::open(path).unwrap())
            .unwrap()
            .read_to_end(&mut text)
            .unwrap();
        let (mut n, mut sql_total) = (0, 0);
        for line in text.split(|b| *b == b'\n') {
            if !line.starts_with(br#"{"Event":"SparkListenerTaskEnd""#) {
                continue;
            }
            n += 1;
            let full: TaskEnd = serde_json::from_slice(line).unwrap();
            assert_eq!(skim::stage_id(line), Some(full.stage_id));
            let m = full.metrics.unwrap();
            assert_eq!(skim::times(line), (m.run_time_ms, m.cpu_time_ns));
            let a = skim::accumulables(line).unwrap();
            let b = full.info.unwrap().accumulables;
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                assert_eq!((x.id, x.update, &x.metadata), (y.id, y.update, &y.metadata));
            }
            let sql: Vec<_> = b
                .iter()
                .filter(|y| y.metadata.as_deref() == Some("sql"))
                .map(|y| (y.id, y.update))
                .collect();
            let mut skimmed = Vec::new();
            let last =
                skim::sql_updates(line, |id, u| skimmed.push((id, Some(NumOrStr(u))))).unwrap();
            assert_eq!(skimmed, sql);
            assert!(skimmed.is_empty() || last > 0);
            assert_eq!(
                skim::times_after(line, last),
                (m.run_time_ms, m.cpu_time_ns)
            );
            let mut both = Vec::new();
            let (r, times) = skim::task_end(line, |id, u| both.push((id, Some(NumOrStr(u)))));
            r.unwrap();
            assert_eq!(both, sql);
            assert_eq!(times, (m.run_time_ms, m.cpu_time_ns));
            sql_total += sql.len();
        }
        assert_eq!(n, 190);
        assert!(sql_total > 500, "{sql_total} SQL metric updates compared");
    }

    /// The decompressed text of the real tpch-default log.
    fn tpch_text() -> Vec<u8> {
        use std::io::Read;
        let path = testdata::spark_logs(
            "tpch-default/eventlog_v2_local-1796009792357/events_1_local-1796009792357.zstd",
        );
        let mut text = Vec::new();
        zstd::stream::read::Decoder::new(std::fs::File::open(path).unwrap())
            .unwrap()
            .read_to_end(&mut text)
            .unwrap();
        text
    }

    /// The job-start skim reads what the typed parse reads on every job
    /// start of a real log, and declines lines laid out otherwise.
    #[test]
    fn job_start_skim_agrees_with_the_typed_parse() {
        let text = tpch_text();
        let (mut n, mut sql) = (0, 0);
        for line in text.split(|b| *b == b'\n') {
            if !line.starts_with(br#"{"Event":"SparkListenerJobStart""#) {
                continue;
            }
            n += 1;
            let j: JobStart = serde_json::from_slice(line).unwrap();
            let exec = j
                .properties
                .and_then(|p| p.execution_id)
                .and_then(|s| s.trim().parse::<u64>().ok());
            sql += usize::from(exec.is_some());
            assert_eq!(skim::job_start(line), Some((j.stage_ids, exec)));
        }
        assert!(n > 20 && sql > 20, "{n} job starts, {sql} of SQL");
        let ok = br#"{"Event":"SparkListenerJobStart","Stage Infos":[],"Stage IDs":[3,14],"Properties":{"a":"b","spark.sql.execution.id":" 7 "}}"#;
        assert_eq!(skim::job_start(ok), Some((vec![3, 14], Some(7))));
        let none = br#"{"Event":"SparkListenerJobStart","Stage IDs":[],"Properties":{"spark.sql.execution.id":"x"}}"#;
        assert_eq!(skim::job_start(none), Some((vec![], None)));
        for odd in [
            &br#"{"Event":"SparkListenerJobStart","Stage IDs": [1],"Properties":{}}"#[..],
            br#"{"Event":"SparkListenerJobStart","Stage IDs":[01],"Properties":{}}"#,
            br#"{"Event":"SparkListenerJobStart","Stage IDs":[-1],"Properties":{}}"#,
            br#"{"Event":"SparkListenerJobStart","Stage IDs":[1],"Properties":null}"#,
            br#"{"Event":"SparkListenerJobStart","Properties":{},"Stage IDs":[1]}"#,
            br#"{"Event":"SparkListenerJobStart","Stage IDs":[1],"Properties":{"spark.sql.execution.id":"\u0031"}}"#,
            br#"{"Event":"SparkListenerJobStart","Stage IDs":[1],"Properties":{"a":"b""#,
        ] {
            assert_eq!(skim::job_start(odd), None, "{}", String::from_utf8_lossy(odd));
        }
    }

    /// The execution-start skim reads what the typed parse reads on every
    /// execution start of the real logs, and declines other layouts.
    #[test]
    fn execution_start_skim_agrees_with_the_typed_parse() {
        let mut text = tpch_text();
        for dir in ["spark4-plain", "tpch-smj", "spark4-rolling-multi"] {
            let p = crate::io::testutil::samples().join(dir);
            for input in crate::io::discover(&[p.display().to_string()]).inputs {
                let mut r = crate::io::LineReader::open(&input, 64 << 20).unwrap();
                while let Some(l) = r.next_line().unwrap() {
                    text.extend_from_slice(l);
                    text.push(b'\n');
                }
            }
        }
        let mut n = 0;
        for line in text.split(|b| *b == b'\n') {
            if !line.starts_with(
                br#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart""#,
            ) {
                continue;
            }
            n += 1;
            let s: SqlExecutionStart = serde_json::from_slice(line).unwrap();
            let f = skim::execution_start(line).unwrap();
            assert_eq!(f.execution_id, s.execution_id);
            assert_eq!(Some(f.root_execution_id), s.root_execution_id);
            assert_eq!(Some(f.time), s.time);
            let d = f
                .description
                .map(|l| serde_json::from_slice::<String>(l).unwrap());
            assert_eq!(d.as_deref(), s.description.as_deref());
        }
        assert!(n > 60, "{n} execution starts");
        const HEAD: &str = r#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":"#;
        let ok = format!(
            r#"{HEAD}3,"rootExecutionId":2,"description":"a \"q\" \\","details":"","physicalPlanDescription":"}},\"time\":1","sparkPlanInfo":{{"nodeName":"x"}},"time":17,"modifiedConfigs":{{}}}}"#
        );
        let f = skim::execution_start(ok.as_bytes()).unwrap();
        assert_eq!((f.execution_id, f.root_execution_id, f.time), (3, 2, 17));
        assert_eq!(f.description, Some(&br#""a \"q\" \\""#[..]));
        for odd in [
            format!(r#"{HEAD}3,"description":"d","details":"","sparkPlanInfo":{{}},"time":17}}"#),
            format!(
                r#"{HEAD}123456789012345678901,"rootExecutionId":2,"description":"d","details":"","sparkPlanInfo":{{}},"time":17}}"#
            ),
            format!(
                r#"{HEAD}3,"rootExecutionId":2,"description":"d","sparkPlanInfo":{{}},"time":17}}"#
            ),
            format!(
                r#"{HEAD}3,"rootExecutionId":2,"description":"d","details":"","sparkPlanInfo":null,"time":17}}"#
            ),
            format!(
                r#"{HEAD}3,"rootExecutionId":2,"description":"d","details":"","sparkPlanInfo":{{}},"time":-1}}"#
            ),
            format!(
                r#"{HEAD}3,"rootExecutionId":2,"description":"d","details":"","sparkPlanInfo":{{}},"time":17"#
            ),
            format!(
                r#"{HEAD}3,"rootExecutionId":2,"description":"d,"details":"","sparkPlanInfo":{{}},"time":17}}"#
            ),
        ] {
            assert_eq!(skim::execution_start(odd.as_bytes()), None, "{odd}");
        }
    }

    /// Spark's own AQE updates are deferrable; anything else is not.
    #[test]
    fn deferrable_updates_are_spark_s_own() {
        let text = tpch_text();
        let mut n = 0;
        for line in text.split(|b| *b == b'\n') {
            if !line.starts_with(
                br#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate""#,
            ) {
                continue;
            }
            n += 1;
            let u: SqlAdaptiveExecutionUpdate = serde_json::from_slice(line).unwrap();
            assert!(u.physical_plan_description.is_some() && u.spark_plan_info.is_some());
            assert_eq!(skim::deferrable_update(line), Some(u.execution_id));
        }
        assert_eq!(n, 106);
        const HEAD: &str = r#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate","executionId":"#;
        let ok = format!(
            r#"{HEAD}12,"physicalPlanDescription":"p","sparkPlanInfo":{{"nodeName":"x"}}}}"#
        );
        assert_eq!(skim::deferrable_update(ok.as_bytes()), Some(12));
        for odd in [
            format!(r#"{HEAD}012,"physicalPlanDescription":"p","sparkPlanInfo":{{}}}}"#),
            format!(r#"{HEAD}-1,"physicalPlanDescription":"p","sparkPlanInfo":{{}}}}"#),
            format!(
                r#"{HEAD}99999999999999999999,"physicalPlanDescription":"p","sparkPlanInfo":{{}}}}"#
            ),
            format!(r#"{HEAD}1,"physicalPlanDescription":null,"sparkPlanInfo":{{}}}}"#),
            format!(r#"{HEAD}1,"physicalPlanDescription":"p","sparkPlanInfo":null}}"#),
            format!(r#"{HEAD}1,"physicalPlanDescription":"p"}}"#),
            format!(r#"{HEAD}1,"physicalPlanDescription":"p","sparkPlanInfo":{{"a":1"#),
            format!(r#"{HEAD} 1,"physicalPlanDescription":"p","sparkPlanInfo":{{}}}}"#),
        ] {
            assert_eq!(skim::deferrable_update(odd.as_bytes()), None, "{odd}");
        }
    }

    #[test]
    fn skim_handles_absent_and_odd_values() {
        assert_eq!(skim::int_after(br#"{"a": -12,"#, br#""a":"#), Some(-12));
        assert_eq!(skim::int_after(br#"{"a":"x"}"#, br#""a":"#), None);
        assert_eq!(skim::stage_id(br#"{"Event":"SparkListenerTaskEnd"}"#), None);
        assert_eq!(skim::times(b"{}"), (0, 0));
        // `U`s before the update key, and an object without one
        let line = br#"[{"ID":7,"Name":"Up U\"Update\":","Update":"12","Metadata":"sql"},{"ID":8,"Name":"x","Metadata":"sql"}]"#;
        let mut got = Vec::new();
        skim::sql_updates(line, |id, u| got.push((id, u))).unwrap();
        assert_eq!(got, [(7, Some(12)), (8, None)]);
        // keys before `from` are still found
        let line = br#"{"Executor CPU Time":5,"x":1,"Executor Run Time":7}"#;
        assert_eq!(skim::times_after(line, 30), (7, 5));
        assert_eq!(skim::times_after(line, line.len() + 9), (7, 5));
        // the stage id after Spark's own head, and elsewhere
        assert_eq!(
            skim::stage_id(br#"{"Event":"SparkListenerTaskEnd","Stage ID":12,"#),
            Some(12)
        );
        assert_eq!(
            skim::stage_id(
                br#"{"Event":"SparkListenerTaskEnd","Stage Attempt ID":0,"Stage ID":4}"#
            ),
            Some(4)
        );
        assert!(skim::accumulables(br#"{"Accumulables":[{"ID":"#).is_err());
        // An escaped key inside a string value is not a key.
        let line = br#"{"Task End Reason":{"Description":"\"Stage ID\":7"},"Stage ID":3}"#;
        assert_eq!(skim::stage_id(line), Some(3));
    }

    #[test]
    fn task_end_reads_sql_metric_strings_and_internal_numbers() {
        let line = r#"{"Event":"SparkListenerTaskEnd","Stage ID":3,"Stage Attempt ID":0,"Task Info":{"Task ID":1,"Accumulables":[{"ID":40,"Name":"internal.metrics.executorRunTime","Update":228,"Value":228,"Internal":true,"Count Failed Values":true},{"ID":394,"Name":"number of output rows","Update":"300286","Value":"300286","Internal":true,"Count Failed Values":true,"Metadata":"sql"},{"ID":9,"Name":"internal.metrics.updatedBlockStatuses","Update":[{"Block ID":"x"}]}]},"Task Metrics":{"Executor Run Time":228,"Executor CPU Time":39604143}}"#;
        let t: TaskEnd = serde_json::from_str(line).unwrap();
        assert_eq!(t.stage_id, 3);
        let acc = &t.info.unwrap().accumulables;
        assert_eq!(acc[0].update, Some(NumOrStr(Some(228))));
        assert_eq!(acc[1].update, Some(NumOrStr(Some(300286))));
        assert_eq!(acc[1].metadata.as_deref(), Some("sql"));
        assert_eq!(acc[2].update, Some(NumOrStr(None)));
        let m = t.metrics.unwrap();
        assert_eq!((m.run_time_ms, m.cpu_time_ns), (228, 39604143));
    }
}
