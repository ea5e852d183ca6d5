//! The crate's one error type.

/// What the plan crate can reject.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A plan nests operators deeper than [`crate::DEPTH_BUDGET`].
    #[error("operators nested {depth} deep, over the depth budget of {budget}")]
    TooDeep {
        /// How deep the input nests (at least; parsers stop counting at the
        /// first level over the budget).
        depth: usize,
        /// The budget.
        budget: usize,
    },
}

impl Error {
    /// [`Error::TooDeep`] if `depth` is over [`crate::DEPTH_BUDGET`].
    pub fn check_depth(depth: usize) -> Result<(), Error> {
        if depth > crate::DEPTH_BUDGET {
            Err(Error::TooDeep {
                depth,
                budget: crate::DEPTH_BUDGET,
            })
        } else {
            Ok(())
        }
    }
}
