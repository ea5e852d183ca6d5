//! The workload crate's error type.

use std::path::PathBuf;

/// What can go wrong in the workload crate: reading a time or a duration
/// the user gave, or the records of `--records`.
#[derive(Debug, thiserror::Error)]
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
    /// A `--records` path that holds no records.
    #[error("--records {}: {reason}", path.display())]
    RecordsInput {
        /// The path given.
        path: PathBuf,
        /// What is missing.
        reason: &'static str,
    },
    /// A directory of records that cannot be listed.
    #[error("cannot read {}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A window length that cuts the selected executions into more
    /// windows than [`crate::bounds::MAX_WINDOWS`].
    #[error("--window {width} cuts the executions from {first} to {last} into more than {max} windows: give a longer --window, or select fewer with --since/--until")]
    TooManyWindows {
        /// The window length, as given.
        width: String,
        /// The first window's start.
        first: String,
        /// The last window's start.
        last: String,
        /// The most windows allowed ([`crate::bounds::MAX_WINDOWS`]).
        max: i64,
    },
    /// A records file that cannot be opened (not a regular file, or
    /// unreadable).
    #[error("cannot open a records file")]
    Open(#[source] Box<tables::Error>),
    /// A `--records` URL on an object store that could not be listed or
    /// read (the error names the URL).
    #[error("--records {0}")]
    Store(Box<stores::Error>),
    /// The spool file of streamed executions could not be written or read.
    #[error("{what}")]
    Spool {
        /// What failed.
        what: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No spool file could be created in the temporary directory.
    #[error("cannot create a spool file in {}", dir.display())]
    SpoolCreate {
        /// The temporary directory.
        dir: PathBuf,
        /// Why (none when every name tried was taken).
        #[source]
        source: Option<std::io::Error>,
    },
    /// JSON that does not parse as what it stands for.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A spooled execution that does not decode as the one written.
    #[error("a spooled execution does not decode: {0}")]
    SpoolDecode(#[from] rmp_serde::decode::Error),
    /// A file that is not a records Parquet file, or a row of one that
    /// cannot be the record it stands for.
    #[error("{}: {reason}", path.display())]
    Records {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A row of a records file whose required column is null.
    #[error("{}: row {row}: `{column}` is null", path.display())]
    RecordNull {
        /// The file.
        path: PathBuf,
        /// The row (1-based).
        row: u64,
        /// The column.
        column: &'static str,
    },
    /// A row of a records file whose `execution_id` is null or negative.
    #[error("{}: row {row}: `execution_id` is null or negative", path.display())]
    RecordExecutionId {
        /// The file.
        path: PathBuf,
        /// The row (1-based).
        row: u64,
    },
    /// A row of a records file whose `plan_source` is not one lakeaudit
    /// writes.
    #[error("{}: row {row}: `plan_source` {value:?} is not formatted, extended, spark_plan_info or tree_json", path.display())]
    RecordPlanSource {
        /// The file.
        path: PathBuf,
        /// The row (1-based).
        row: u64,
        /// The value.
        value: String,
    },
    /// A row of a records file whose JSON column does not parse.
    #[error("{}: row {row}: `{column}`: {source}", path.display())]
    RecordColumn {
        /// The file.
        path: PathBuf,
        /// The row (1-based).
        row: u64,
        /// The column (`scans`, `joins`, `relationships`).
        column: &'static str,
        /// What serde said.
        source: serde_json::Error,
    },
    /// An `--aggregates` directory that is not what
    /// `spark/lakeaudit_aggregate.py` writes (a missing table, a wrong
    /// layout version, figures that do not add up).
    #[error("--aggregates {}: {reason}", path.display())]
    AggregatesInput {
        /// The directory or file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An option that places the windows or selects the executions,
    /// given otherwise than the aggregates were made with.
    #[error("--aggregates {} were made {made}, and this run is {given}: give the options the aggregates were made with, or run spark/lakeaudit_aggregate.py again with these", path.display())]
    AggregatesOptions {
        /// The directory.
        path: PathBuf,
        /// How they were made (`with --window 7d`, `without --since`).
        made: String,
        /// What was given now.
        given: String,
    },
    /// A stage that reads the executions one by one, run on aggregates.
    #[error("the executions are needed here (queries, edges --explain, whatif, --tables), and --aggregates {} holds none: use --records (the Spark map's output) or the logs", path.display())]
    NeedsRecords {
        /// The aggregates directory.
        path: PathBuf,
    },
}

/// Results of the workload crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
