//! The audit of a set of tables, read in parallel with each table's
//! failure kept to itself ([`tables::each::read_each`]): per table its state summary,
//! each policy's compaction, its delete files and their roll-up
//! ([`audit`], [`audit_read`]).

use crate::{Error, Policy, Settings};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
pub use tables::each::ReadTables;

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

/// Discover and audit the tables under `paths`
/// ([`tables::each::read_each`]), each table dropped once judged.
pub fn audit(
    paths: &[PathBuf],
    policies: &[Policy],
    target: Option<u64>,
    opts: tables::ReadOptions,
) -> Audit {
    let (results, errors) = tables::each::read_each(paths, &opts, |t| judge(&t, policies, target));
    let results = results
        .into_iter()
        .map(|r| r.map_err(Error::Table))
        .collect();
    gather(results, errors)
}

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
            Err(e) => Err(Error::Table(Arc::clone(e))),
        })
        .collect();
    gather(results, read.1.clone())
}
