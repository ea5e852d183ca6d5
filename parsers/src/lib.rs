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
//!
//! Fallible calls return the crate's [`Error`], which names the file and
//! line; what a line, an LZF block or a catalog name is refused for is a
//! typed [`Reason`].
#![deny(missing_docs)]

pub mod catalog;
pub mod error;
pub mod events;
pub mod io;
pub mod plan;
pub mod record;

pub use error::{Error, Location, Reason, Result};

/// The text a panic carried (`panic!("…")`'s message), for the one line
/// that reports a panic caught at an input's boundary.
///
/// ```
/// let payload = std::panic::catch_unwind(|| panic!("bad {}", 1)).unwrap_err();
/// assert_eq!(parsers::panic_text(payload.as_ref()), "bad 1");
/// ```
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("unknown panic")
}

/// Whether `bytes` hold a byte below 0x20, which JSON never holds raw
/// (only as white space between tokens, which Spark's compact lines do not
/// have). Checked 64 bytes at a time so that the compiler vectorises it.
pub(crate) fn has_control_byte(bytes: &[u8]) -> bool {
    bytes
        .chunks(64)
        .any(|c| c.iter().fold(false, |seen, &b| seen | (b < 0x20)))
}
