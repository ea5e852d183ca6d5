//! The crate's one error type.

/// Why a literal could not be written or a statement did not check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A value that is not a valid literal of its column's type.
    #[error("value {value:?} is not a valid {ty}")]
    BadValue {
        /// The value as the metadata gives it.
        value: String,
        /// The column type.
        ty: String,
    },
    /// A column type lakeaudit writes no literal for.
    #[error("no SQL literal is written for a {ty} column")]
    UnsupportedType {
        /// The column type.
        ty: String,
    },
    /// A script or statement that does not follow the grammar.
    #[error("statement {index}: {reason} (at {near:?})")]
    Syntax {
        /// 1-based statement number in the script.
        index: usize,
        /// What the checker expected.
        reason: String,
        /// The text from where the checker stopped (at most 60 characters).
        near: String,
    },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
