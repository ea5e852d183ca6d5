//! The crate's one error type.

/// What can go wrong in this crate: a data file's path the metadata gives
/// that cannot be read as a local (or store) file of its table, and a
/// `--layout` flag that does not parse. `Display` is the message the
/// binary prints (after the table or flag it concerns).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A data file whose metadata gives no path.
    #[error("the metadata gives no path")]
    NoPath,
    /// An absolute data-file path outside the location the table declares
    /// (without `--allow-outside-table`).
    #[error("{path} is outside the table's location {declared}")]
    OutsideLocation {
        /// The path as the metadata gives it.
        path: String,
        /// The table's declared (or canonical `file:`) location.
        declared: String,
    },
    /// A relative data-file path that leaves the table directory (`..`,
    /// a root).
    #[error("{path} leaves the table directory")]
    LeavesTable {
        /// The path as the metadata gives it.
        path: String,
    },
    /// A `--layout` part without `TABLE=`.
    #[error("{part}: expected TABLE=COL[,COL...]")]
    LayoutSyntax {
        /// The part of the flag, trimmed.
        part: String,
    },
    /// A `--layout` part with no column or more than `max`.
    #[error("{part}: give 1 to {max} columns")]
    LayoutColumns {
        /// The part of the flag, trimmed.
        part: String,
        /// The most columns a key may have.
        max: usize,
    },
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
