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
