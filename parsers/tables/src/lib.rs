//! Delta Lake and Apache Iceberg table state read from metadata alone.
//!
//! Fallible calls return the crate's [`Error`], which names the file at
//! fault; the checks of a file's bytes (Parquet footers and pages, Avro
//! blocks, deletion vectors, Delta actions) say why with a typed
//! [`Reason`], which an [`Error`] names the file for.
//!
//! ```no_run
//! let (found, errors) = tables::discover(&["warehouse".into()]);
//! assert!(errors.is_empty());
//! for f in &found {
//!     println!("{} {}", f.name, f.format.as_str());
//! }
//! ```

mod avro_guard;
mod delta;
pub mod discover;
pub mod dv;
pub mod each;
pub mod error;
mod iceberg;
pub mod model;
pub mod parquet_footer;
pub mod parquet_guard;
pub mod scope;
pub mod source;
mod stats;
pub mod thrift_check;

pub use discover::{discover, Found};
pub use error::{Error, Reason, Result};
pub use model::*;
pub use source::{is_remote, Source};

/// Cap on a Parquet file of a table on an object store that polars reads
/// whole: a data file for the layout simulation ([`open_data_file`]), an
/// Iceberg position delete file counted by `--deep` (512 MiB).
pub const MAX_REMOTE_DATA_FILE: u64 = 512 << 20;

/// How much to read.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Open deletion-vector blobs and check their header, cardinality and
    /// CRC-32; read the `file_path` column of Iceberg position delete files
    /// that are not scoped to one data file, to attribute their rows.
    pub deep: bool,
    /// Read files the metadata names outside the table directory and the
    /// locations it declares (`--allow-outside-table`): shallow clones,
    /// migrated tables. Special files and size caps are refused still.
    pub allow_outside_table: bool,
    /// Read the per-file statistics of these columns (logical names,
    /// nested fields dotted, matched without regard to ASCII case) into
    /// [`DataFile::stats`], and keep each file's path. `None` reads none.
    pub stats_columns: Option<std::sync::Arc<std::collections::BTreeSet<String>>>,
    /// Read the table as of this version (Delta) or snapshot id (Iceberg)
    /// instead of the current one: time travel, while the files are kept.
    pub version: Option<i64>,
    /// Read the whole history ([`TableState::history`]): every Delta
    /// commit file's `commitInfo` (one read per commit, a request each on
    /// an object store). Without it, a Delta table's history starts at the
    /// checkpoint the replay starts from (the commits it reads anyway);
    /// an Iceberg table's is always whole (its metadata file lists it).
    pub history: bool,
}

/// Open a data file `path` of the table in `table_dir` for reading, with
/// its length: the path must resolve (through any link) inside the table
/// directory, or anywhere with `allow_outside_table`, and be a regular
/// file (a FIFO is never opened), as every file the metadata names. A
/// table on an object store: the object must lie under the table's URL
/// (or on any store with `allow_outside_table`, never a local file), and
/// is read whole (at most [`MAX_REMOTE_DATA_FILE`] bytes, its size checked
/// first), so that polars reads it from memory. Check it with
/// [`parquet_guard::check_data_file`] before polars decodes it.
pub fn open_data_file(
    table_dir: &std::path::Path,
    path: &std::path::Path,
    allow_outside_table: bool,
) -> Result<(Source, u64)> {
    let scope = scope::Scope::new(table_dir, allow_outside_table)?;
    if scope.is_remote() {
        let bytes = scope.read(path, "data file", table_dir, MAX_REMOTE_DATA_FILE)?;
        let len = bytes.len() as u64;
        return Ok((Source::memory(bytes), len));
    }
    scope.open(path, "data file", table_dir, u64::MAX)
}

/// Read one table found by [`fn@discover`].
pub fn read_table(found: &Found, opts: &ReadOptions) -> Result<TableState> {
    match found.format {
        Format::Delta => delta::read(found, opts),
        Format::Iceberg => iceberg::read(found, opts),
    }
}
