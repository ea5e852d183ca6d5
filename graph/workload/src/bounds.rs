//! What an execution's times and task figures can be, checked where
//! executions enter the workload (the logs' spool, the records' first
//! pass): a start or end time outside [`EARLIEST_MS`] .. [`LATEST_MS`]
//! leaves the execution out (the input's error, [`Tally::left_out`]); a
//! negative duration, executor run time or CPU time, or a duration longer
//! than that whole range, is read as none (the duration) or 0 (the task
//! times), with a warning ([`Tally::clamped`]).
//!
//! Windows are placed from the start times, so a start at ±9×10^18 ms
//! would otherwise make every windowed stage allocate windows for the
//! whole span; a CPU time of `i64::MIN` would be an edge cost of
//! −9.2×10^18.
//!
//! ```
//! use workload::bounds::{Figures, Verdict, EARLIEST_MS};
//! let mut f = Figures { start_ms: Some(EARLIEST_MS), end_ms: Some(EARLIEST_MS + 5),
//!     duration_ms: Some(-5), run_ms: 3, cpu_ms: i64::MIN };
//! assert_eq!(f.check().len(), 2);
//! assert_eq!((f.duration_ms, f.cpu_ms), (None, 0));
//! let mut f = Figures { start_ms: Some(-9_000_000_000_000_000_000), ..f };
//! assert!(matches!(f.verdict(), Verdict::LeftOut(_)));
//! ```

use crate::time::format_time;
use parsers::record::QueryRecord;
use std::collections::BTreeMap;

/// The earliest plausible start or end of an execution:
/// 2000-01-01T00:00:00Z, epoch ms.
pub const EARLIEST_MS: i64 = 946_684_800_000;

/// The end (exclusive) of the plausible times: 2100-01-01T00:00:00Z.
pub const LATEST_MS: i64 = 4_102_444_800_000;

/// Most windows a run cuts its executions into (from the first window
/// with executions to the last): a window length far shorter than the
/// span of the data is refused, not allocated. The same cap for the logs,
/// `--records` and `--aggregates`.
pub const MAX_WINDOWS: i64 = 1_000_000;

/// Whether windows of `width_ms` from the one starting at `first` to the
/// one starting at `last` are more than [`MAX_WINDOWS`] (counted without
/// overflow, whatever the two are).
pub fn too_many_windows(first: i64, last: i64, width_ms: i64) -> bool {
    (i128::from(last) - i128::from(first)) / i128::from(width_ms.max(1)) >= i128::from(MAX_WINDOWS)
}

/// Whether `ms` is a plausible execution time ([`EARLIEST_MS`] ..
/// [`LATEST_MS`]).
pub fn plausible(ms: i64) -> bool {
    (EARLIEST_MS..LATEST_MS).contains(&ms)
}

/// The range as printed in messages.
pub fn range_text() -> String {
    format!("{} .. {}", format_time(EARLIEST_MS), format_time(LATEST_MS))
}

/// The figures of one execution that are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figures {
    /// Start, epoch ms.
    pub start_ms: Option<i64>,
    /// End, epoch ms.
    pub end_ms: Option<i64>,
    /// Duration, ms.
    pub duration_ms: Option<i64>,
    /// Executor run time, ms.
    pub run_ms: i64,
    /// Executor CPU time, ms.
    pub cpu_ms: i64,
}

/// What an execution's figures allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Kept; the figures named were out of bounds and are now none or 0.
    Keep(Vec<String>),
    /// Left out: a time outside the plausible range (what it was).
    LeftOut(String),
}

impl Figures {
    /// The figures of a record.
    pub fn of(r: &QueryRecord) -> Figures {
        Figures {
            start_ms: r.start_ms,
            end_ms: r.end_ms,
            duration_ms: r.duration_ms,
            run_ms: r.executor_run_ms,
            cpu_ms: r.executor_cpu_ms,
        }
    }

    /// Put the (checked) figures back into `r`.
    pub fn apply(&self, r: &mut QueryRecord) {
        r.duration_ms = self.duration_ms;
        r.executor_run_ms = self.run_ms;
        r.executor_cpu_ms = self.cpu_ms;
    }

    /// Read the figures that cannot be true as none or 0: a negative
    /// duration, or one longer than the plausible range; a negative run or
    /// CPU time. Gives what was changed (`executor CPU time
    /// -9223372036854775808 ms`).
    pub fn check(&mut self) -> Vec<String> {
        let mut changed = Vec::new();
        if let Some(d) = self
            .duration_ms
            .filter(|&d| !(0..=LATEST_MS - EARLIEST_MS).contains(&d))
        {
            changed.push(format!("duration {d} ms"));
            self.duration_ms = None;
        }
        for (v, name) in [
            (&mut self.run_ms, "executor run time"),
            (&mut self.cpu_ms, "executor CPU time"),
        ] {
            if *v < 0 {
                changed.push(format!("{name} {v} ms"));
                *v = 0;
            }
        }
        changed
    }

    /// Whether the execution is kept, and what was changed if so
    /// ([`Figures::check`]).
    pub fn verdict(&mut self) -> Verdict {
        for (t, name) in [(self.start_ms, "start"), (self.end_ms, "end")] {
            if let Some(t) = t.filter(|&t| !plausible(t)) {
                return Verdict::LeftOut(format!("{name} time {t} ms"));
            }
        }
        Verdict::Keep(self.check())
    }
}

/// Check a record in place ([`Figures::verdict`]).
pub fn check_record(r: &mut QueryRecord) -> Verdict {
    let mut f = Figures::of(r);
    let v = f.verdict();
    if matches!(v, Verdict::Keep(_)) {
        f.apply(r);
    }
    v
}

/// Per input (a log, a records file), how many executions were left out
/// or had figures changed, and the first of each: one error line and one
/// warning line per input, however many executions.
#[derive(Debug, Default)]
pub struct Tally {
    left_out: BTreeMap<String, (usize, String)>,
    clamped: BTreeMap<String, (usize, String)>,
    duplicates: BTreeMap<String, (usize, String)>,
}

fn count(map: &mut BTreeMap<String, (usize, String)>, input: &str, first: impl FnOnce() -> String) {
    match map.get_mut(input) {
        Some(c) => c.0 += 1,
        None => {
            map.insert(input.to_string(), (1, first()));
        }
    }
}

impl Tally {
    /// Count the verdict on execution `what` (`execution 5`, `row 3
    /// (execution 5 of app-1)`) of `input`; whether it is kept.
    pub fn verdict(&mut self, input: &str, what: impl FnOnce() -> String, v: &Verdict) -> bool {
        match v {
            Verdict::LeftOut(why) => {
                count(&mut self.left_out, input, || format!("{}: {why}", what()));
                false
            }
            Verdict::Keep(changed) if changed.is_empty() => true,
            Verdict::Keep(changed) => {
                count(&mut self.clamped, input, || {
                    format!("{}: {}", what(), changed.join(", "))
                });
                true
            }
        }
    }

    /// Count a record of `input` dropped as a repeat of one read before
    /// (`what` names it).
    pub fn duplicate(&mut self, input: &str, what: impl FnOnce() -> String) {
        count(&mut self.duplicates, input, what);
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.left_out.is_empty() && self.clamped.is_empty() && self.duplicates.is_empty()
    }

    /// The error lines (executions left out) and warning lines (figures
    /// changed, repeats dropped), in input order.
    pub fn lines(&self) -> (Vec<String>, Vec<String>) {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let errors = self
            .left_out
            .iter()
            .map(|(input, (n, first))| {
                format!(
                    "{input}: {n} execution{} left out: a start or end time outside the plausible range {} (first: {first})",
                    plural(*n),
                    range_text()
                )
            })
            .collect();
        let warnings = self
            .clamped
            .iter()
            .map(|(input, (n, first))| {
                format!(
                    "{input}: {n} execution{} with a negative (or longer than a century) duration, executor run time or CPU time: read as no duration, or 0 ms (first: {first})",
                    plural(*n)
                )
            })
            .chain(self.duplicates.iter().map(|(input, (n, first))| {
                format!(
                    "{input}: {n} record{} repeat{} one read before (same application, execution and log): dropped (first: {first})",
                    plural(*n),
                    if *n == 1 { "s" } else { "" }
                )
            }))
            .collect();
        (errors, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_is_2000_to_2100_utc() {
        assert_eq!(format_time(EARLIEST_MS), "2000-01-01T00:00:00Z");
        assert_eq!(format_time(LATEST_MS), "2100-01-01T00:00:00Z");
        assert!(plausible(EARLIEST_MS) && !plausible(EARLIEST_MS - 1));
        assert!(plausible(LATEST_MS - 1) && !plausible(LATEST_MS));
    }

    #[test]
    fn times_outside_leave_out_and_figures_that_cannot_be_are_changed() {
        let ok = Figures {
            start_ms: Some(1_791_190_801_980),
            end_ms: Some(1_791_190_803_480),
            duration_ms: Some(1_500),
            run_ms: 10,
            cpu_ms: 5,
        };
        assert_eq!(ok.clone().verdict(), Verdict::Keep(vec![]));
        for bad in [i64::MIN, -9_000_000_000_000_000_000, 0, LATEST_MS, i64::MAX] {
            let mut f = Figures {
                start_ms: Some(bad),
                ..ok
            };
            assert!(matches!(f.verdict(), Verdict::LeftOut(w) if w.contains("start time")));
            let mut f = Figures {
                end_ms: Some(bad),
                ..ok
            };
            assert!(matches!(f.verdict(), Verdict::LeftOut(w) if w.contains("end time")));
        }
        let mut f = Figures {
            duration_ms: Some(-1),
            run_ms: -7,
            cpu_ms: i64::MIN,
            ..ok
        };
        let Verdict::Keep(changed) = f.verdict() else {
            panic!("kept")
        };
        assert_eq!(changed.len(), 3, "{changed:?}");
        assert_eq!((f.duration_ms, f.run_ms, f.cpu_ms), (None, 0, 0));
        let mut f = Figures {
            duration_ms: Some(i64::MAX),
            ..ok
        };
        assert_eq!(f.check().len(), 1);
        assert_eq!(f.duration_ms, None);
        let mut t = Tally::default();
        assert!(!t.verdict(
            "log-a",
            || "execution 3".into(),
            &Verdict::LeftOut("start time 0 ms".into())
        ));
        assert!(!t.verdict(
            "log-a",
            || "execution 4".into(),
            &Verdict::LeftOut("end time 1 ms".into())
        ));
        assert!(t.verdict(
            "log-a",
            || "execution 5".into(),
            &Verdict::Keep(vec!["x".into()])
        ));
        let (errors, warnings) = t.lines();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with("log-a: 2 executions left out")
                && errors[0].contains("2000-01-01T00:00:00Z .. 2100-01-01T00:00:00Z")
                && errors[0].contains("first: execution 3: start time 0 ms"),
            "{}",
            errors[0]
        );
        assert_eq!(warnings.len(), 1);
    }
}
