//! The crate's one error type.

/// Everything the planner refuses to do.
///
/// The planner never panics on input data: bad configuration values, inputs
/// it cannot plan and instances too large for the exact solver come back as
/// one of these.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A [`crate::PlannerConfig`] field is out of range (NaN, negative, ...).
    #[error("invalid planner config: {field} = {value}: {reason}")]
    Config {
        /// The field name.
        field: &'static str,
        /// The offending value, as text.
        value: String,
        /// What the field must be.
        reason: &'static str,
    },
    /// Two [`crate::TableProfile`]s name the same table.
    #[error("table {table:?} is profiled twice")]
    DuplicateTable {
        /// The table name.
        table: String,
    },
    /// The exact solver was asked to solve an instance above its size limit.
    #[error(
        "instance too large for the exact solver: {tables} tables with a choice, \
         {combinations} layout combinations (limits: {max_tables} tables, {max_combinations} combinations)"
    )]
    TooLargeForExact {
        /// Tables that have more than one layout choice.
        tables: usize,
        /// Product of the per-table choice counts (saturating).
        combinations: u128,
        /// The table limit.
        max_tables: usize,
        /// The combination limit.
        max_combinations: u128,
    },
    /// A `--table-stats` file that cannot be read as CSV or JSON.
    #[error("{}{reason}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    TableStats {
        /// The 1-based line of the problem, when there is one.
        line: Option<u64>,
        /// What is wrong.
        reason: String,
    },
    /// A byte size such as `500GB` that cannot be read.
    #[error("cannot read size {input:?}: {reason} (use e.g. 500GB or 2TiB)")]
    Size {
        /// The text given.
        input: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// A planning instance ([`crate::instance`]) that is not well formed.
    #[error("{}{at}: {reason}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Instance {
        /// The 1-based line, for a document that cannot be read as JSON.
        line: Option<usize>,
        /// Where in the instance (`tables[2].candidates[0]`, `edges[7]`, ...).
        at: String,
        /// What is wrong.
        reason: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
