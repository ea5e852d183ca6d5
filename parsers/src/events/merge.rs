//! Combining the applications read from many inputs.
//!
//! The same application can be present twice in an archive (an archived
//! `.gz` copy beside the original, an in-progress copy beside the finished
//! log). Counting both would count every execution twice, so one copy is
//! kept: the one with the most executions, then the most bytes and lines,
//! then the first path in byte order — a choice that does not depend on the
//! order inputs were read in.

use super::app::{AppResult, AppSummary};
use crate::error::Error;

/// Every application once, with its records, and all errors and warnings.
#[derive(Debug)]
pub struct Merged<T> {
    /// One summary per application, sorted by app id.
    pub apps: Vec<AppSummary>,
    /// Items of the kept copies, sorted by (app id, execution id).
    pub records: Vec<T>,
    /// Errors of every input, kept copy or not, in input order.
    pub errors: Vec<Error>,
    /// Warnings of every input, then one per skipped duplicate.
    pub warnings: Vec<String>,
}

/// What the choice between copies of an application looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppCopy<'a> {
    /// Application id.
    pub app_id: &'a str,
    /// The input it was read from.
    pub log: &'a str,
    /// Its records (SQL executions).
    pub records: usize,
    /// Decompressed bytes read.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
}

/// Which of `copies` to keep, by the rule of [`merge_apps`]: their indices
/// sorted by app id, one per application, and a warning per copy left out.
pub fn kept_copies(copies: &[AppCopy<'_>]) -> (Vec<usize>, Vec<String>) {
    let mut order: Vec<usize> = (0..copies.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&copies[a], &copies[b]);
        a.app_id
            .cmp(b.app_id)
            .then(b.records.cmp(&a.records))
            .then(b.bytes.cmp(&a.bytes))
            .then(b.lines.cmp(&a.lines))
            .then(a.log.cmp(b.log))
    });
    let mut kept: Vec<usize> = Vec::with_capacity(order.len());
    let mut warnings = Vec::new();
    for i in order {
        let c = &copies[i];
        if let Some(k) = kept
            .last()
            .map(|&k| &copies[k])
            .filter(|k| k.app_id == c.app_id)
        {
            warnings.push(format!(
                "{}: same application {} as {}; skipped (the other copy is more complete)",
                c.log, c.app_id, k.log
            ));
            continue;
        }
        kept.push(i);
    }
    (kept, warnings)
}

/// Merge per-input results (in input order) into one set of applications.
pub fn merge_apps<T>(results: Vec<AppResult<T>>) -> Merged<T> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut apps: Vec<Option<(AppSummary, Vec<T>)>> = Vec::with_capacity(results.len());
    for r in results {
        errors.extend(r.errors);
        warnings.extend(r.warnings);
        apps.push(Some((r.summary, r.records)));
    }
    let copies: Vec<AppCopy<'_>> = apps
        .iter()
        .flatten()
        .map(|(s, recs)| AppCopy {
            app_id: &s.app_id,
            log: &s.log,
            records: recs.len(),
            bytes: s.bytes,
            lines: s.lines,
        })
        .collect();
    let (kept, skipped) = kept_copies(&copies);
    warnings.extend(skipped);
    let mut summaries: Vec<AppSummary> = Vec::with_capacity(kept.len());
    let mut records = Vec::new();
    for i in kept {
        if let Some((s, recs)) = apps[i].take() {
            summaries.push(s);
            // Records within an application are in execution id order already.
            records.extend(recs);
        }
    }
    Merged {
        apps: summaries,
        records,
        errors,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(id: &str, log: &str, records: Vec<u64>, bytes: u64) -> AppResult<u64> {
        AppResult {
            summary: AppSummary {
                app_id: id.into(),
                log: log.into(),
                bytes,
                ..AppSummary::default()
            },
            records,
            warnings: Vec::new(),
            errors: Vec::new(),
        }
    }

    #[test]
    fn the_most_complete_copy_is_kept_whatever_the_input_order() {
        let inputs = || {
            vec![
                app("b", "b.log", vec![0, 1], 10),
                app("a", "a.inprogress", vec![0], 5),
                app("a", "a.gz", vec![0, 1, 2], 7),
                app("a", "a", vec![0, 1, 2], 9),
            ]
        };
        let m = merge_apps(inputs());
        let mut rev = inputs();
        rev.reverse();
        let r = merge_apps(rev);
        for m in [&m, &r] {
            let kept: Vec<(&str, &str)> = m
                .apps
                .iter()
                .map(|a| (a.app_id.as_str(), a.log.as_str()))
                .collect();
            assert_eq!(kept, [("a", "a"), ("b", "b.log")]);
            assert_eq!(m.records, [0, 1, 2, 0, 1]);
            assert_eq!(m.warnings.len(), 2);
            assert!(m
                .warnings
                .iter()
                .all(|w| w.contains("same application a as a;")));
        }
    }
}
