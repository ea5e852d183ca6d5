//! Discover logs, read them in parallel (one application per thread), and
//! keep errors per input.

use crate::identity::Locations;
use indicatif::{ProgressBar, ProgressStyle};
use parsers::events::{self, merge_apps, AppResult, AppSummary, ReadOptions};
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
    /// Table identity by location, observed over every kept execution's
    /// scans (filled by [`crate::spool::LogSpool::read`] and
    /// [`crate::Workload::in_memory`]; empty otherwise).
    pub locations: Locations,
    /// The logs a panic while reading them left out (each has its error
    /// line): whatever `finish` was given of their executions before the
    /// panic is not theirs to keep.
    pub left_out: Vec<String>,
}

impl<T> Ingested<T> {
    /// Whether any input failed (exit code 2).
    pub fn failed(&self) -> bool {
        !self.errors.is_empty()
    }
}

/// How much reading says on standard error while it runs (the binary's
/// `--quiet` and `--verbose`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// Nothing: no progress bar.
    Quiet,
    /// A progress bar on a terminal when there are several logs.
    Normal,
    /// A line per log as it is read (`read 3 of 12: PATH`), terminal or
    /// not, instead of the bar.
    Verbose,
}

static VERBOSITY: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(1);

/// Sets what reading says while it runs; call before reading.
pub fn set_verbosity(v: Verbosity) {
    let n = match v {
        Verbosity::Quiet => 0,
        Verbosity::Normal => 1,
        Verbosity::Verbose => 2,
    };
    VERBOSITY.store(n, std::sync::atomic::Ordering::Relaxed);
}

fn verbosity() -> Verbosity {
    match VERBOSITY.load(std::sync::atomic::Ordering::Relaxed) {
        0 => Verbosity::Quiet,
        2 => Verbosity::Verbose,
        _ => Verbosity::Normal,
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
    let mut name_error = None;
    if let Some(name) = stdin_name {
        if !found.name_stdin(name) {
            name_error = Some(format!(
                "--name {name}: names standard input, but `-` is not among the paths"
            ));
        }
    }
    // A progress bar on long archives, only when stderr is a terminal.
    let verbosity = verbosity();
    let bar = if verbosity == Verbosity::Normal
        && found.inputs.len() > 1
        && std::io::stderr().is_terminal()
    {
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
    // One application is read by one thread; when there are fewer logs than
    // threads, each reader also decompresses on a thread of its own (ahead
    // of the line scan), so that one log uses two cores.
    let opts = &ReadOptions {
        decode_ahead: opts.decode_ahead || found.inputs.len() < rayon::current_num_threads(),
        ..opts.clone()
    };
    let read_count = std::sync::atomic::AtomicUsize::new(0);
    let read: Vec<(AppResult<T>, bool)> = found
        .inputs
        .par_iter()
        .map(|input| {
            let r = read_one(input, opts, &finish);
            bar.inc(1);
            if verbosity == Verbosity::Verbose {
                let done = read_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                let failed = if r.0.errors.is_empty() {
                    ""
                } else {
                    " (with errors)"
                };
                eprintln!(
                    "lakeaudit: read {done} of {}: {}{failed}",
                    found.inputs.len(),
                    stores::redact(&input.display)
                );
            }
            r
        })
        .collect();
    bar.finish_and_clear();
    let mut left_out = Vec::new();
    let results = read
        .into_iter()
        .map(|(r, panicked)| {
            if panicked {
                left_out.push(r.summary.log.clone());
            }
            r
        })
        .collect();
    let merged = merge_apps(results);
    Ingested {
        apps: merged.apps,
        records: merged.records,
        errors: found
            .errors
            .iter()
            .map(|e| e.to_string())
            .chain(name_error)
            .chain(merged.errors.iter().map(|e| e.to_string()))
            .collect(),
        warnings: skipped_warnings(&found.skipped)
            .into_iter()
            .chain(merged.warnings)
            .collect(),
        locations: Locations::default(),
        left_out,
    }
}

/// Most paths one warning names for the files a directory search passed
/// over as plainly not logs (READMEs, SQL, table directories).
const MAX_NAMED_SKIPPED: usize = 20;

/// What the directory searches passed over, as warnings: one each for a
/// file that looks meant as a log (a codec's extension, `.log`,
/// `.inprogress`, or bytes that do not decode), one line for the rest.
fn skipped_warnings(skipped: &[io::Skipped]) -> Vec<String> {
    let (meant, rest): (Vec<&io::Skipped>, Vec<&io::Skipped>) =
        skipped.iter().partition(|s| s.looks_meant_as_log());
    let mut out: Vec<String> = meant.iter().map(|s| format!("skipped {s}")).collect();
    if !rest.is_empty() {
        let tables = rest
            .iter()
            .filter(|s| s.why == io::SkipReason::TableDirectory)
            .count();
        let mut names: Vec<&str> = rest
            .iter()
            .take(MAX_NAMED_SKIPPED)
            .map(|s| s.path.as_str())
            .collect();
        let more = rest.len() - names.len();
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        names.dedup();
        out.push(format!(
            "skipped {} file(s) that are not event logs and {tables} table director{} not searched for logs: {}{tail}",
            rest.len() - tables,
            if tables == 1 { "y" } else { "ies" },
            names.join(", ")
        ));
    }
    out
}

/// Read one log; a panic while reading it (a bug met on some input) is that
/// log's error, and every other log is still read. The `bool` says the log
/// was left out so (what `finish` made of its executions before the panic
/// is not to be used).
fn read_one<T, F>(input: &io::LogInput, opts: &ReadOptions, finish: &F) -> (AppResult<T>, bool)
where
    T: Send,
    F: Fn(QueryRecord, &PlanSet) -> T + Sync,
{
    // Fault injection for the tests (debug builds only): a log whose path
    // contains LAKEAUDIT_TEST_PANIC_ON panics while it is read, before its
    // first execution ends or, with LAKEAUDIT_TEST_PANIC_AFTER=N, when its
    // execution N + 1 ends.
    #[cfg(debug_assertions)]
    let panic_after: Option<usize> = std::env::var("LAKEAUDIT_TEST_PANIC_ON")
        .ok()
        .filter(|p| !p.is_empty() && input.display.contains(p.as_str()))
        .map(|_| {
            std::env::var("LAKEAUDIT_TEST_PANIC_AFTER")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0)
        });
    #[cfg(debug_assertions)]
    let ended = std::sync::atomic::AtomicUsize::new(0);
    let read = std::panic::AssertUnwindSafe(|| {
        #[cfg(debug_assertions)]
        if panic_after == Some(0) {
            panic!("injected panic for {}", input.display);
        }
        events::read_app(input, opts, |record, plans| {
            #[cfg(debug_assertions)]
            {
                let n = ended.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n > 0 && panic_after == Some(n) {
                    panic!("injected panic for {} after {n} executions", input.display);
                }
            }
            finish(record, plans)
        })
    });
    match std::panic::catch_unwind(read) {
        Ok(r) => (r, false),
        Err(payload) => {
            let what = parsers::panic_text(payload.as_ref());
            let r = AppResult {
                summary: AppSummary {
                    app_id: input.display.clone(),
                    log: input.display.clone(),
                    ..AppSummary::default()
                },
                records: Vec::new(),
                warnings: Vec::new(),
                errors: vec![parsers::Error::Input {
                    at: parsers::Location {
                        path: input.display.clone(),
                        line: None,
                    },
                    reason: format!(
                        "internal error while reading this log, which is left out: {what} \
                         (a bug in lakeaudit; please report it with the log)"
                    ),
                }],
            };
            (r, true)
        }
    }
}
