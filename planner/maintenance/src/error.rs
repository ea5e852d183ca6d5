//! The crate's one error type.

use std::path::PathBuf;
use std::sync::Arc;

/// What can go wrong in this crate: a table that could not be read (its
/// reader's error, a panic while searching for or reading tables among
/// them), a panic while auditing one (kept as that table's error), and a
/// partition value that is not
/// a literal of its column (the compaction statement is then left out).
/// `Display` is the line the binary prints after `lakeaudit: `.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The table could not be read (shared: a table read once is audited
    /// and measured from the same results).
    #[error(transparent)]
    Table(#[from] Arc<tables::Error>),
    /// A panic while auditing the table at `location`.
    #[error("{}: internal error while auditing the table: {message}", location.display())]
    AuditPanicked {
        /// The table's location.
        location: PathBuf,
        /// The panic's message.
        message: String,
    },
    /// A partition value that is not a valid literal of its column's type:
    /// the partition's statement is omitted (said on one line).
    #[error("{}", sql::one_line(&format!("statement omitted: partition column {column}: {source}")))]
    PartitionValue {
        /// The partition column, quoted.
        column: String,
        /// Why its value is not a literal.
        #[source]
        source: sql::Error,
    },
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
