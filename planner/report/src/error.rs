//! The crate's one error type.

/// What can go wrong while rendering a report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A chart could not be drawn (plotters' drawing error, as text).
    #[error("cannot draw the {chart} chart: {reason}")]
    Chart {
        /// Which chart.
        chart: &'static str,
        /// The drawing backend's message.
        reason: String,
    },
    /// An output could not be written.
    #[error(transparent)]
    Output(#[from] tabular::Error),
    /// A spooled execution could not be read back.
    #[error(transparent)]
    Workload(#[from] workload::Error),
    /// The plan could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The kind of the I/O error underneath, if any (a closed pipe is
    /// [`std::io::ErrorKind::BrokenPipe`]).
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        match self {
            Error::Output(e) => e.io_kind(),
            Error::Json(e) => e.io_error_kind(),
            Error::Chart { .. } | Error::Workload(_) => None,
        }
    }
}
