//! Discover logs, read them in parallel, keep errors per input.

use indicatif::{ProgressBar, ProgressStyle};
use parsers::events::{self, AppResult, AppSummary, ReadOptions};
use parsers::io;
use parsers::record::{PlanSet, QueryRecord};
use rayon::prelude::*;
use std::io::IsTerminal;

/// Everything read from the inputs.
pub struct Ingested<T> {
    /// One summary per application, sorted by app id.
    pub apps: Vec<AppSummary>,
    /// Items from every application, sorted by (app id, execution id).
    pub records: Vec<T>,
    /// Error lines, `path[:line]: reason`, in input order.
    pub errors: Vec<String>,
    /// Warning lines.
    pub warnings: Vec<String>,
}

impl<T> Ingested<T> {
    /// Whether any input failed (exit code 2).
    pub fn failed(&self) -> bool {
        !self.errors.is_empty()
    }
}

/// Read every application under `paths` in parallel; standard input (`-`)
/// is named `stdin_name` when given (`--name`). `finish` maps each
/// execution (record and parsed plans) to the caller's item.
pub fn ingest<T, F>(
    paths: &[String],
    stdin_name: Option<&str>,
    opts: &ReadOptions,
    finish: F,
) -> Ingested<T>
where
    T: Send,
    F: Fn(QueryRecord, &PlanSet) -> T + Sync,
{
    let mut found = io::discover(paths);
    let mut errors: Vec<String> = found.errors.iter().map(|e| e.to_string()).collect();
    if let Some(name) = stdin_name {
        if !found.name_stdin(name) {
            errors.push(format!(
                "--name {name}: names standard input, but `-` is not among the paths"
            ));
        }
    }
    // A progress bar on long archives, only when stderr is a terminal.
    let bar = if found.inputs.len() > 1 && std::io::stderr().is_terminal() {
        let b = ProgressBar::new(found.inputs.len() as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} logs {elapsed_precise} {msg}")
        {
            b.set_style(style);
        }
        b
    } else {
        ProgressBar::hidden()
    };
    let results: Vec<AppResult<T>> = found
        .inputs
        .par_iter()
        .map(|input| {
            let r = events::read_app(input, opts, &finish);
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    let mut warnings = Vec::new();
    let mut apps: Vec<(AppSummary, Vec<T>)> = Vec::with_capacity(results.len());
    for r in results {
        errors.extend(r.errors.iter().map(|e| e.to_string()));
        warnings.extend(r.warnings);
        apps.push((r.summary, r.records));
    }
    // The same application can be present twice (an archived `.gz` copy
    // beside the original, an in-progress copy): keep the most complete
    // one, so no execution counts twice.
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
        // Records within an app are in execution id order already.
        records.extend(recs);
    }
    Ingested {
        apps: summaries,
        records,
        errors,
        warnings,
    }
}
