//! Event dispatch and execution assembly.
//!
//! [`dispatch::classify`] decides from a line's first bytes whether an
//! event matters; [`types`] holds the typed events; [`app::read_app`] reads
//! one application into one record per SQL execution; [`merge`] combines
//! the applications of many inputs, keeping one copy of each.

pub mod app;
pub mod dispatch;
pub mod merge;
pub mod types;

pub use app::{read_app, read_records, AppResult, AppSummary, ReadOptions};
pub use dispatch::{classify, EventKind};
pub use merge::{kept_copies, merge_apps, AppCopy, Merged};
