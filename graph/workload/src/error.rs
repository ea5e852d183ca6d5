//! The workload crate's error type.

/// What can go wrong in the workload crate: reading a time or a duration
/// the user gave.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A time that is neither epoch milliseconds nor an ISO 8601 / RFC 3339
    /// date or date-time.
    #[error("cannot read time {input:?}: {reason} (use epoch ms, YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[Z|±HH:MM])")]
    Time {
        /// The text given.
        input: String,
        /// Why it was refused.
        reason: String,
    },
    /// A window length that is not a positive span such as `7d`, `1w`,
    /// `12h` or `30m`.
    #[error("cannot read window {input:?}: {reason} (use e.g. 7d, 1w, 12h, 30m)")]
    Duration {
        /// The text given.
        input: String,
        /// Why it was refused.
        reason: String,
    },
}

/// Results of the workload crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
