//! Tables read in parallel, one table's failure its own ([`read_each`]):
//! the reader every command that reads tables shares (the audit, the
//! what-if, verify).

use crate::{discover, read_table, Error, ReadOptions, TableState};
use rayon::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

/// Tables read ([`read_each`] handing back each state), and the errors of
/// the search. An error is shared (`Arc`) so that a read can serve more
/// than one use (the what-if's skipping, then the audit).
pub type ReadTables = (Vec<Result<TableState, Arc<Error>>>, Vec<String>);

/// Discover the tables under `paths` and read each with `opts`, in
/// parallel, handing each [`TableState`] to `judge`. Each table keeps its
/// own errors, so one broken table stops nothing: a table that cannot be
/// read, and a panic while reading or judging one, is that table's error
/// (`<dir>: internal error: ...`). Returns, in discovery order, what
/// `judge` made of each table or the table's error, and the errors of the
/// search (lines without the `lakeaudit: ` prefix).
pub fn read_each<T: Send>(
    paths: &[PathBuf],
    opts: &ReadOptions,
    judge: impl Fn(TableState) -> T + Sync,
) -> (Vec<Result<T, Arc<Error>>>, Vec<String>) {
    let (found, discover_errors) = match catch_unwind(|| discover(paths)) {
        Ok(r) => r,
        Err(p) => {
            let error = Error::SearchPanicked {
                paths: paths.to_vec(),
                message: parsers::panic_text(p.as_ref()).to_string(),
            };
            return (Vec::new(), vec![error.to_string()]);
        }
    };
    let results = found
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
                read_table(f, opts).map(&judge).map_err(Arc::new)
            }))
            .unwrap_or_else(|p| {
                Err(Arc::new(Error::ReadPanicked {
                    dir: f.dir.clone(),
                    message: parsers::panic_text(p.as_ref()).to_string(),
                }))
            })
        })
        .collect();
    let errors = discover_errors.iter().map(ToString::to_string).collect();
    (results, errors)
}
