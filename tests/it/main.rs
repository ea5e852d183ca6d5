//! The binary-level tests: one test binary (`cargo test --test it`), one
//! module per area, so that the workspace is linked once for all of them
//! rather than once per file. A module's tests are selected by its name:
//! `cargo test --workspace --test it whatif::`.
//!
//! Every test here runs in one process, in parallel with the other
//! modules' tests: scratch directories come from [`common::scratch_dir`],
//! which refuses a name that another test of the run already has.
//!
//! Gated by the environment, as before the move (each prints why it is
//! skipped and passes when its variable is unset): `public::`
//! (`LAKEAUDIT_PUBLIC_LOGS`, `make test-public`), the server tests of
//! `stores::` (`scripts/test_stores.sh`, `make test-stores`) and
//! `reports::browser_*` (Chromium; required by `make report-check`).

mod common;

mod bad_input;
mod cli;
mod hostile_bounds;
mod hostile_logs;
mod hostile_tables;
mod iceberg_spark;
mod inputs;
mod layers;
mod lineage;
mod planning;
mod public;
mod queries;
mod records;
mod relationships;
mod reports;
mod samples;
mod statements;
mod stores;
mod table_lists;
mod tables;
mod whatif;
