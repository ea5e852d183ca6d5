//! Read Spark event logs, stream them, and parse every plan form into one IR.
//!
//! ```no_run
//! use parsers::{events, io};
//!
//! let found = io::discover(&["samples/tpch-smj".to_string()]);
//! for input in &found.inputs {
//!     let app = events::read_records(input, &events::ReadOptions::default());
//!     for rec in &app.records {
//!         println!("{} {} joins={}", rec.app_id, rec.execution_id, rec.joins.len());
//!     }
//! }
//! ```
#![deny(missing_docs)]

pub mod error;
pub mod events;
pub mod io;
pub mod plan;
pub mod record;

pub use error::{Error, Location, Result};
