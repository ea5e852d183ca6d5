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
    /// The plan could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
