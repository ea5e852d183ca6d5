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
    /// `--explain PATTERN` on an input without join edges.
    #[error("--explain {pattern:?}: the input has no join edges")]
    NoEdges {
        /// The pattern given.
        pattern: String,
    },
    /// `--explain PATTERN` matching no edge: the closest edges' labels.
    #[error("--explain {pattern:?}: no edge matches; the closest edges are:\n  {}\n(give one as printed, or `orders-lineitem`, `orders.o_orderkey=lineitem.l_orderkey`)", closest.join("\n  "))]
    NoEdgeMatch {
        /// The pattern given.
        pattern: String,
        /// The closest edges' labels (at most 5).
        closest: Vec<String>,
    },
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
            Error::Chart { .. }
            | Error::Workload(_)
            | Error::NoEdges { .. }
            | Error::NoEdgeMatch { .. } => None,
        }
    }
}
