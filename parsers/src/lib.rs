//! Read Spark event logs, stream them, and parse every plan form into one IR.
#![deny(missing_docs)]

pub mod error;
pub mod events;
pub mod io;
pub mod plan;

pub use error::{Error, Location, Result};
