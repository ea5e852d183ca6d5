//! Spark SQL text for lakeaudit's statements, in one place for every writer
//! (`plan.sql`, the compaction and purge statements of `lakeaudit tables`
//! and of the maintenance plan):
//!
//! * [`quote`]: identifiers backquoted per name part (backquotes doubled),
//!   string literals with `\` and `'` escaped;
//! * [`mod@literal`]: a partition value as a literal of its column's type, or
//!   an error (the statement is then not written);
//! * [`check`]: splits a script into statements and checks each against the
//!   statement forms lakeaudit writes, naming the tables each one touches.
#![deny(missing_docs)]

pub mod check;
pub mod error;
pub mod literal;
pub mod quote;

pub use check::{check_script, check_statement, Kind, Statement};
pub use error::{Error, Result};
pub use literal::literal;
pub use quote::{
    iceberg_call, one_line, quote_columns, quote_ident, quote_parts, quote_table, split_qualified,
    string_literal, ICEBERG_CATALOG,
};
