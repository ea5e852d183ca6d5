//! The audit of a set of tables, read in parallel with each table's
//! failure kept to itself ([`read_each`]): per table its state summary,
//! each policy's compaction, its delete files and their roll-up
//! ([`audit`], [`audit_read`]).

use crate::{Error, Policy, Settings};
use rayon::prelude::*;
use std::path::PathBuf;

/// Everything the audit of a set of tables produces.
#[derive(Default)]
pub struct Audit {
    /// One summary per table.
    pub state: Vec<crate::TableStateRow>,
    /// Per table, partition and policy: what compaction would rewrite.
    pub compaction: Vec<crate::CompactionRow>,
    /// Per data file with deletes: the verdict.
    pub deletes: Vec<crate::DeleteFileRow>,
    /// Per table: its deletes rolled up.
    pub rollups: Vec<crate::DeleteRollup>,
    /// Which rows are each table's, one per `state` row, in its order: a
    /// table is its rows, not its name (two tables may share one).
    pub spans: Vec<Span>,
    /// `lakeaudit: <path>: <reason>` lines, without the prefix.
    pub errors: Vec<String>,
    /// `lakeaudit: warning: <path>: <what>` lines, without the prefix.
    pub warnings: Vec<String>,
}

/// The rows of one audited table in an [`Audit`]: index ranges into its
/// `compaction` and `deletes` and its `rollups` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Span {
    /// Its rows of [`Audit::compaction`].
    pub compaction: std::ops::Range<usize>,
    /// Its rows of [`Audit::deletes`].
    pub deletes: std::ops::Range<usize>,
    /// Its row of [`Audit::rollups`].
    pub rollup: Option<usize>,
}

/// Discover the tables under `paths` and read each with `opts`, in
/// parallel, handing each [`tables::TableState`] to `judge`. Each table
/// keeps its own errors, so one broken table stops nothing: a table that
/// cannot be read, and a panic while reading or judging one, is that
/// table's error (`<dir>: internal error: ...`). Returns, in discovery
/// order, what `judge` made of each table or the table's error line, and
/// the errors of the search (lines without the `lakeaudit: ` prefix).
pub fn read_each<T: Send>(
    paths: &[PathBuf],
    opts: &tables::ReadOptions,
    judge: impl Fn(tables::TableState) -> T + Sync,
) -> (Vec<Result<T, Error>>, Vec<String>) {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let (found, discover_errors) = match catch_unwind(|| tables::discover(paths)) {
        Ok(r) => r,
        Err(p) => {
            let error = Error::SearchPanicked {
                paths: paths.to_vec(),
                message: parsers::panic_text(p.as_ref()).to_string(),
            };
            return (Vec::new(), vec![error.to_string()]);
        }
    };
    let results: Vec<Result<T, Error>> = found
        .par_iter()
        .map(|f| {
            catch_unwind(AssertUnwindSafe(|| {
                // Fault injection for the tests (debug builds only), as for
                // logs: a table whose directory contains this text panics.
                #[cfg(debug_assertions)]
                if let Ok(p) = std::env::var("LAKEAUDIT_TEST_PANIC_ON") {
                    if !p.is_empty() && f.dir.display().to_string().contains(&p) {
                        panic!("injected panic for {}", f.dir.display());
                    }
                }
                tables::read_table(f, opts)
                    .map(&judge)
                    .map_err(|e| Error::Table(std::sync::Arc::new(e)))
            }))
            .unwrap_or_else(|p| {
                Err(Error::ReadPanicked {
                    dir: f.dir.clone(),
                    message: parsers::panic_text(p.as_ref()).to_string(),
                })
            })
        })
        .collect();
    let errors = discover_errors.iter().map(ToString::to_string).collect();
    (results, errors)
}

/// What the audit makes of one table.
#[derive(Default)]
struct One {
    state: Option<crate::TableStateRow>,
    compaction: Vec<crate::CompactionRow>,
    deletes: Vec<crate::DeleteFileRow>,
    rollup: Option<crate::DeleteRollup>,
    errors: Vec<String>,
    warnings: Vec<String>,
}

/// The audit of one table under `policies`.
fn judge(t: &tables::TableState, policies: &[crate::Policy], target: Option<u64>) -> One {
    let compaction = policies
        .iter()
        .flat_map(|&p| crate::compaction(t, p, &Settings::for_table(t, p, target)))
        .collect();
    let (deletes, rollup) = crate::deletes(t);
    One {
        state: Some(crate::summarize(t, target)),
        compaction,
        deletes,
        rollup: Some(rollup),
        errors: t.problems.iter().map(ToString::to_string).collect(),
        warnings: t.warnings.clone(),
    }
}

/// The tables' audits gathered, in order, after the search's `errors`.
fn gather(results: Vec<Result<One, Error>>, errors: Vec<String>) -> Audit {
    let mut a = Audit {
        errors,
        ..Default::default()
    };
    for r in results {
        let r = r.unwrap_or_else(|e| One {
            errors: vec![e.to_string()],
            ..One::default()
        });
        let (c, d) = (a.compaction.len(), a.deletes.len());
        a.compaction.extend(r.compaction);
        a.deletes.extend(r.deletes);
        let rollup = r.rollup.map(|x| {
            a.rollups.push(x);
            a.rollups.len() - 1
        });
        if let Some(state) = r.state {
            a.state.push(state);
            a.spans.push(Span {
                compaction: c..a.compaction.len(),
                deletes: d..a.deletes.len(),
                rollup,
            });
        }
        a.errors.extend(r.errors);
        a.warnings.extend(r.warnings);
    }
    a
}

/// Discover and audit the tables under `paths` ([`read_each`]), each table
/// dropped once judged.
pub fn audit(
    paths: &[PathBuf],
    policies: &[Policy],
    target: Option<u64>,
    opts: tables::ReadOptions,
) -> Audit {
    let (results, errors) = read_each(paths, &opts, |t| judge(&t, policies, target));
    gather(results, errors)
}

/// Tables already read ([`read_each`]'s results and search errors), kept
/// for another use (`whatif`'s skipping).
pub type ReadTables = (Vec<Result<tables::TableState, Error>>, Vec<String>);

/// [`audit`] of tables already read: each judged in parallel, a panic
/// while judging one being that table's error.
pub fn audit_read(read: &ReadTables, policies: &[Policy], target: Option<u64>) -> Audit {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let results = read
        .0
        .par_iter()
        .map(|r| match r {
            Ok(t) => catch_unwind(AssertUnwindSafe(|| judge(t, policies, target))).map_err(|p| {
                Error::AuditPanicked {
                    location: t.location.clone(),
                    message: parsers::panic_text(p.as_ref()).to_string(),
                }
            }),
            Err(e) => Err(e.clone()),
        })
        .collect();
    gather(results, read.1.clone())
}
