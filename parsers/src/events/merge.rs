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

/// Merge per-input results (in input order) into one set of applications.
pub fn merge_apps<T>(results: Vec<AppResult<T>>) -> Merged<T> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut apps: Vec<(AppSummary, Vec<T>)> = Vec::with_capacity(results.len());
    for r in results {
        errors.extend(r.errors);
        warnings.extend(r.warnings);
        apps.push((r.summary, r.records));
    }
    apps.sort_by(|a, b| {
        a.0.app_id
            .cmp(&b.0.app_id)
            .then(b.1.len().cmp(&a.1.len()))
            .then(b.0.bytes.cmp(&a.0.bytes))
            .then(b.0.lines.cmp(&a.0.lines))
            .then(a.0.log.cmp(&b.0.log))
    });
    let mut summaries: Vec<AppSummary> = Vec::with_capacity(apps.len());
    let mut records = Vec::new();
    for (s, recs) in apps {
        if let Some(kept) = summaries.last().filter(|k| k.app_id == s.app_id) {
            warnings.push(format!(
                "{}: same application {} as {}; skipped (the other copy is more complete)",
                s.log, s.app_id, kept.log
            ));
            continue;
        }
        summaries.push(s);
        // Records within an application are in execution id order already.
        records.extend(recs);
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
