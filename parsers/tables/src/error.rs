//! The crate's one error type.

use std::path::{Path, PathBuf};

/// Everything that can go wrong while reading a table's metadata.
///
/// `Display` is `<path>[:<line>]: <reason>`, so the binary prints
/// `lakeaudit: {error}`. The path is the file at fault (a commit, a
/// checkpoint, a manifest, a deletion-vector file) or the table directory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A JSON file (commit, checkpoint, metadata) holds something that is not
    /// what the format says.
    #[error("{}{}: {reason}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line, for JSON-lines files.
        line: Option<u64>,
        /// What is wrong.
        reason: String,
    },
    /// The Delta log has a gap: a commit the replay needs is missing.
    #[error("{}: commit {version:020}.json is missing ({detail})", log.display())]
    MissingCommit {
        /// The `_delta_log` directory.
        log: PathBuf,
        /// The missing version.
        version: u64,
        /// What the log has around it.
        detail: String,
    },
    /// `_last_checkpoint` and the checkpoint files disagree.
    #[error("{}: {reason}", path.display())]
    Checkpoint {
        /// `_last_checkpoint` or the checkpoint file.
        path: PathBuf,
        /// The disagreement.
        reason: String,
    },
    /// A Parquet checkpoint or sidecar could not be read.
    #[error("{}: not a readable Parquet checkpoint: {reason}", path.display())]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What the reader said.
        reason: String,
    },
    /// An Iceberg manifest or manifest list could not be decoded.
    #[error("{}: {reason}", path.display())]
    Avro {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        reason: String,
    },
    /// A deletion vector (its descriptor, file or blob) is invalid.
    #[error("{}: {reason}", path.display())]
    DeletionVector {
        /// The DV file, or the commit holding an inline DV.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A directory named as a table holds no table metadata, or a path holds
    /// no table at all.
    /// The version asked for (time travel) is not in the table's
    /// metadata any more (Delta: its commits and checkpoints removed;
    /// Iceberg: the snapshot expired), or never was.
    #[error("{}: version {version} cannot be read: {reason}", path.display())]
    VersionGone {
        /// The table directory.
        path: PathBuf,
        /// The version or snapshot id asked for.
        version: i64,
        /// Why.
        reason: String,
    },
    #[error("{}: {reason}", path.display())]
    NoTable {
        /// The directory.
        path: PathBuf,
        /// What was found instead.
        reason: String,
    },
    /// Metadata names a file outside the table directory and the locations
    /// the table declares for its files (after resolving `..` and
    /// symlinks), and the user did not pass `--allow-outside-table`.
    #[error("{}: {what} {} resolves outside the table {}; refused (--allow-outside-table reads it)", path.display(), target.display(), root.display())]
    OutsideTable {
        /// The metadata file naming it (or the table directory).
        path: PathBuf,
        /// What the metadata calls it ("deletion vector file", "manifest").
        what: String,
        /// The path as the metadata gives it, mapped onto this machine.
        target: PathBuf,
        /// The table directory.
        root: PathBuf,
    },
    /// A file to read is not a regular file (a FIFO, a device, a
    /// directory): it is never opened for reading.
    #[error("{}: is {kind}, not a regular file; refused", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
    /// A file is larger than the cap for its kind (see the README,
    /// "Untrusted input").
    #[error("{}: {size} bytes is more than the {cap}-byte cap for this kind of file", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// An Iceberg position delete file that cannot be read as Parquet.
    #[error("{}: position delete file: {reason}", path.display())]
    DeleteFile {
        /// The delete file.
        path: PathBuf,
        /// What it is instead, or what the reader said.
        reason: String,
    },
    /// The metadata is readable but breaks the format's rules in a way the
    /// audit cannot work around.
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The rule broken.
        reason: String,
    },
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The file the error names.
    pub fn path(&self) -> &Path {
        match self {
            Error::Io { path, .. }
            | Error::Json { path, .. }
            | Error::Checkpoint { path, .. }
            | Error::Parquet { path, .. }
            | Error::Avro { path, .. }
            | Error::DeletionVector { path, .. }
            | Error::NoTable { path, .. }
            | Error::VersionGone { path, .. }
            | Error::Invalid { path, .. }
            | Error::OutsideTable { path, .. }
            | Error::NotRegular { path, .. }
            | Error::TooLarge { path, .. }
            | Error::DeleteFile { path, .. } => path,
            Error::MissingCommit { log, .. } => log,
        }
    }
}
