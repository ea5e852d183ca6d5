//! The crate's one error type.

use std::fmt;

/// Where an error happened: a file (or `-`) and, where there is one, a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The input path as the user gave it (or as found inside a directory).
    pub path: String,
    /// 1-based line number in the decompressed stream, when known.
    pub line: Option<u64>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}", self.path, l),
            None => f.write_str(&self.path),
        }
    }
}

/// Everything that can go wrong while reading event logs and plans.
///
/// `Display` is `<path>[:<line>]: <reason>`, so the binary prints
/// `lakeaudit: {error}`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be opened or read.
    #[error("{at}: {source}")]
    Io {
        /// Where.
        at: Location,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The compressed stream is corrupt or truncated.
    #[error("{at}: corrupt {codec} stream: {reason}")]
    Codec {
        /// Where.
        at: Location,
        /// The codec name (`zstd`, `lz4`, ...).
        codec: &'static str,
        /// What the decoder said.
        reason: String,
    },
    /// The input is not an event log (binary data, unknown extension, empty,
    /// no logs in a directory, a line over the length cap, ...).
    #[error("{at}: {reason}")]
    Input {
        /// Where.
        at: Location,
        /// Why.
        reason: String,
    },
    /// A line is not a JSON event, or an event lacks a required field.
    #[error("{at}: {reason}")]
    Event {
        /// Where.
        at: Location,
        /// Why.
        reason: String,
    },
    /// A plan could not be parsed.
    #[error("plan: {0}")]
    Plan(String),
}

impl Error {
    /// Where the error happened, if it is tied to a file.
    pub fn location(&self) -> Option<&Location> {
        match self {
            Error::Io { at, .. }
            | Error::Codec { at, .. }
            | Error::Input { at, .. }
            | Error::Event { at, .. } => Some(at),
            Error::Plan(_) => None,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a line, a block or a name was refused, before its place is named:
/// an [`Error`] names the file and line and carries this as its reason.
/// `Display` is that reason's text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Reason {
    /// A JSON object without an `"Event"` member.
    #[error("not a Spark event (a JSON object without \"Event\")")]
    NotSparkEvent,
    /// A line that is not JSON (serde's message).
    #[error("not a JSON event: {0}")]
    NotJsonEvent(serde_json::Error),
    /// A compact line holding a control byte.
    #[error("not a JSON event: it holds a control byte (a corrupt stream?)")]
    ControlByte,
    /// An event whose fields do not parse (serde's message).
    #[error("bad event JSON: {0}")]
    BadEventJson(serde_json::Error),
    /// A task end without its stage.
    #[error("task end event without a Stage ID")]
    NoStageId,
    /// A SQL metric update whose object has no `ID`.
    #[error("SQL metric update without an ID")]
    SqlUpdateNoId,
    /// A SQL metric update whose `ID` is not a number.
    #[error("SQL metric update with a bad ID")]
    SqlUpdateBadId,
    /// A table name a catalog cannot hold.
    #[error("`{name}` is not a plain catalog name")]
    NotPlainName {
        /// The name, trimmed.
        name: String,
    },
    /// A catalog whose table locations the log does not give.
    #[error("catalog `{catalog}` is {kind}: where it keeps its tables is not in the log")]
    CatalogElsewhere {
        /// The catalog.
        catalog: String,
        /// Its type or implementation.
        kind: String,
    },
    /// An Iceberg metadata table.
    #[error("`{name}` is an Iceberg metadata table")]
    MetadataTable {
        /// The name, trimmed.
        name: String,
    },
    /// A Hadoop catalog without its warehouse.
    #[error("catalog `{catalog}` names no warehouse ({setting})")]
    NoWarehouse {
        /// The catalog.
        catalog: String,
        /// The setting that would name it.
        setting: String,
    },
    /// A catalog the log does not configure.
    #[error("catalog `{catalog}` is not configured in the log")]
    CatalogNotConfigured {
        /// The catalog.
        catalog: String,
    },
    /// No session warehouse in the log.
    #[error("the log names no {setting}")]
    NoWarehouseDir {
        /// `spark.sql.warehouse.dir`.
        setting: &'static str,
    },
    /// An LZF literal run past the end of its block.
    #[error("literal run of {run} bytes past the end of the block")]
    LzfLiteralPastEnd {
        /// The run's length.
        run: usize,
    },
    /// An LZF match length past the end of its block.
    #[error("match length past the end of the block")]
    LzfLengthPastEnd,
    /// An LZF match distance past the end of its block.
    #[error("match distance past the end of the block")]
    LzfDistancePastEnd,
    /// An LZF match reaching before the block's start.
    #[error("match distance {distance} before the start of the block")]
    LzfBeforeStart {
        /// The distance back.
        distance: usize,
    },
    /// An overlapping LZF match that reads past what was written.
    #[error("bad overlapping match")]
    LzfOverlap,
    /// An LZF block longer than its header says.
    #[error("block decompresses past its {expected} bytes")]
    LzfPastExpected {
        /// The header's length.
        expected: usize,
    },
    /// An LZF block of another length than its header says.
    #[error("block decompressed to {got} bytes, header says {expected}")]
    LzfLength {
        /// What it decompressed to.
        got: usize,
        /// The header's length.
        expected: usize,
    },
}
