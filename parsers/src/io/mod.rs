//! Event-log sources: discovery, codecs and streaming line reading.
//!
//! Spark writes an application's event log either as one file
//! `<appId>[.<codec>][.inprogress]` (Spark 3.x default) or as a rolling
//! directory `eventlog_v2_<appId>/` holding `events_<N>_<appId>[.<codec>]`
//! parts and an `appstatus_<appId>[.inprogress]` marker (Spark 4.0 default).
//! This module turns the paths a user gives into [`LogInput`]s
//! ([`discover`]), and streams each input's decompressed JSON lines through
//! one reused buffer ([`LineReader`]). A path may also be an object-store
//! URL (`s3://`, `s3a://`, `az://`, `abfss://`, `gs://`; `file://` is a
//! local path): the same rules apply to its listing, and each object is
//! streamed (see the `stores` crate).
//!
//! Codecs are read from each file's magic bytes (zstd `28 B5 2F FD`,
//! lz4-java `LZ4Block`, snappy-java `\x82SNAPPY\0`, gzip `1F 8B`, lzf `ZV`;
//! `{` is plain JSON text), so a log whose extension lies, and standard
//! input, are read in any codec; the extension as Spark names codecs
//! (`.zstd`/`.zst`, `.lz4`, `.snappy`, `.lzf`, plus `.gz` for logs gzipped
//! by hand) decides only when the bytes show none, and a disagreement is a
//! warning ([`LineReader::warnings`]); see [`Codec`]. Spark's lz4, snappy and lzf streams use the Java
//! libraries' own framings (lz4-java `LZ4BlockOutputStream`, snappy-java
//! `SnappyOutputStream`, ning `LZFOutputStream`), not the lz4/snappy frame
//! formats, so this module decodes those framings itself over the raw block
//! decoders of `lz4_flex` and `snap` (and a small LZF block decoder).
//!
//! # Example
//!
//! ```no_run
//! use parsers::io::{discover, LineReader, DEFAULT_MAX_LINE};
//!
//! let found = discover(&["/var/log/spark-events".to_string()]);
//! for err in &found.errors {
//!     eprintln!("warning: {err}");
//! }
//! for input in &found.inputs {
//!     let mut lines = LineReader::open(input, DEFAULT_MAX_LINE)?;
//!     let mut events = 0u64;
//!     while let Some(line) = lines.next_line()? {
//!         if line.starts_with(br#"{"Event":"#) {
//!             events += 1;
//!         }
//!         if lines.last_line_truncated() {
//!             eprintln!("{}: last line cut short (application still running?)", lines.location());
//!         }
//!     }
//!     if lines.truncated_tail() {
//!         eprintln!("{}: compressed tail incomplete (in-progress log)", input.display);
//!     }
//!     println!("{}: {events} events, {} bytes", input.display, lines.decompressed_bytes());
//! }
//! # Ok::<(), parsers::Error>(())
//! ```

use std::path::PathBuf;

mod ahead;
mod codec;
mod discover;
mod lines;
mod lzf;
mod remote;
#[cfg(test)]
pub(crate) mod testutil;

pub use lines::{LineInfo, LineReader};
/// Sets the options object stores are built with (the binary's
/// `--storage-option KEY=VALUE`); see [`stores::set_options`].
pub use stores::set_options as set_storage_options;

/// Default cap on the length of one line: 512 MiB. Spark's largest lines are
/// plan events of a few MiB; a longer "line" means the input is not an event
/// log (or is corrupt), and the cap bounds the memory one line may take.
pub const DEFAULT_MAX_LINE: usize = 512 << 20;

/// How the bytes of one log file are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Codec {
    /// Plain JSON lines.
    None,
    /// zstd frames (zstd-jni in Spark; many concatenated frames). Extension
    /// `.zstd` (Spark) or `.zst`.
    Zstd,
    /// lz4-java `LZ4BlockOutputStream` blocks (magic `LZ4Block`). `.lz4`.
    Lz4,
    /// snappy-java `SnappyOutputStream` chunks (magic `\x82SNAPPY\0`). `.snappy`.
    Snappy,
    /// ning compress-lzf `LZFOutputStream` chunks (`ZV` headers). `.lzf`.
    Lzf,
    /// gzip, possibly several members. `.gz` (not written by Spark itself).
    Gzip,
}

impl Codec {
    /// The codec for a file-name extension (without the dot), as Spark
    /// names its codecs (`CompressionCodec.getShortName`), plus `zst` and `gz`.
    pub fn from_extension(ext: &str) -> Option<Codec> {
        match ext {
            "zstd" | "zst" => Some(Codec::Zstd),
            "lz4" => Some(Codec::Lz4),
            "snappy" => Some(Codec::Snappy),
            "lzf" => Some(Codec::Lzf),
            "gz" => Some(Codec::Gzip),
            _ => None,
        }
    }

    /// The codec's short name, as used in error messages (`zstd`, `lz4`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Zstd => "zstd",
            Codec::Lz4 => "lz4",
            Codec::Snappy => "snappy",
            Codec::Lzf => "lzf",
            Codec::Gzip => "gzip",
        }
    }

    /// What the data is, for messages: `uncompressed JSON text` or
    /// `<name> data`.
    pub fn describe(self) -> String {
        match self {
            Codec::None => "uncompressed JSON text".to_string(),
            c => format!("{} data", c.name()),
        }
    }

    /// The codec whose stream starts with `head` (magic-number sniffing), or
    /// `None` if `head` starts no known compressed stream.
    pub fn sniff(head: &[u8]) -> Option<Codec> {
        codec::sniff(head)
    }
}

/// One file of a log input: a single-file log, or one part of a rolling
/// directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The file; `None` means standard input.
    pub path: Option<PathBuf>,
    /// The codec the file's name says (`None` for standard input). The
    /// reader goes by the magic bytes and warns when they disagree.
    pub codec: Codec,
    /// For a rolling part: the indices `(first, last)` of the parts missing
    /// right before it (deleted or lost), so that the reader can tell which
    /// executions ran across the gap.
    pub missing_before: Option<(u64, u64)>,
}

impl Part {
    /// A whole file, its codec as its name says.
    pub fn file(path: impl Into<PathBuf>, codec: Codec) -> Part {
        Part {
            path: Some(path.into()),
            codec,
            missing_before: None,
        }
    }

    /// Standard input.
    pub fn stdin() -> Part {
        Part {
            path: None,
            codec: Codec::None,
            missing_before: None,
        }
    }
}

/// One application's event log: a single file, a rolling directory's parts
/// in order, or standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogInput {
    /// The path as the user gave it, or as found inside a directory (`-` for
    /// standard input).
    pub display: String,
    /// The files to read, in order (rolling parts by their numeric index,
    /// starting at the last `.compact` part if there is one).
    pub parts: Vec<Part>,
    /// The application had not finished when the log was copied: a single
    /// file ending in `.inprogress`, a rolling directory whose `appstatus_`
    /// marker ends in `.inprogress` (or whose last part does). Its last line
    /// may be cut short, and a compressed tail may stop mid-block.
    pub in_progress: bool,
}

/// Finds the event logs behind `paths` (files, rolling directories,
/// directories to search, store URLs, or `-` for standard input).
///
/// Inputs are sorted by their display path and de-duplicated; errors keep
/// the order in which the paths were given and searched (directory entries
/// are visited in name order), so the result is deterministic.
pub fn discover(paths: &[String]) -> Discovery {
    let mut d = Discovery::default();
    let mut seen = discover::Visited::default();
    for p in paths {
        // `file:///x` is the local path `/x`.
        let local = stores::file_url_path(p).map(|l| l.display().to_string());
        let p = local.as_ref().unwrap_or(p);
        if stores::is_remote(p) {
            remote::discover_url(p, &mut d);
        } else {
            discover::local_path(p, &mut d, &mut seen);
        }
    }
    d.inputs.sort_by(|a, b| a.display.cmp(&b.display));
    d.inputs.dedup_by(|a, b| a.display == b.display);
    d
}

/// What [`discover`] found: the inputs to read, and the paths that could not
/// be used (each error names its path). Problems with one path do not stop
/// discovery of the others.
#[derive(Debug, Default)]
pub struct Discovery {
    /// The logs found, sorted by `display`.
    pub inputs: Vec<LogInput>,
    /// Paths that could not be read or are not logs.
    pub errors: Vec<crate::Error>,
    /// What a directory search passed over, in the order met: files that
    /// are not event logs, and table directories not searched.
    pub skipped: Vec<Skipped>,
}

/// A file or directory a directory search passed over, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The path (or URL) as shown.
    pub path: String,
    /// Why.
    pub why: SkipReason,
}

/// Why a directory search passed over a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// Its first (decompressed) bytes are not `{"Event":`.
    NotEvents,
    /// Its bytes are a compressed stream that does not decode (a
    /// truncated or corrupt log, most likely).
    Undecodable,
    /// A Delta table's directory (it holds `_delta_log/`) or an Iceberg
    /// table's (`metadata/` with `*.metadata.json`): not searched.
    TableDirectory,
    /// A rolling event-log directory (`eventlog_v2_<appId>`) that holds no
    /// `events_<N>_<appId>` part: an application that wrote nothing yet,
    /// or whose parts were removed. Not an application (it was counted as
    /// one, "Spark ?", and then an input error): named and passed over.
    EmptyRollingDirectory,
}

impl Skipped {
    /// Whether its name says it was meant to be a log (a codec's extension,
    /// `.log`, `.inprogress`) or its bytes are a stream that does not
    /// decode: worth a warning of its own.
    pub fn looks_meant_as_log(&self) -> bool {
        if matches!(
            self.why,
            SkipReason::Undecodable | SkipReason::EmptyRollingDirectory
        ) {
            return true;
        }
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        self.why == SkipReason::NotEvents
            && ext.is_some_and(|e| {
                e == "log" || e == "inprogress" || Codec::from_extension(&e).is_some()
            })
    }
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.why {
            SkipReason::NotEvents => "not an event log (its first bytes are not {\"Event\":)",
            SkipReason::Undecodable => {
                "not read: its compressed bytes do not decode (truncated or corrupt?)"
            }
            SkipReason::TableDirectory => "a table directory, not searched for event logs",
            SkipReason::EmptyRollingDirectory => {
                "a rolling event-log directory with no events_<N>_<appId> part (nothing written yet, or its parts removed)"
            }
        };
        write!(f, "{}: {why}", self.path)
    }
}

impl Discovery {
    /// Names the standard-input log `name` (in errors and in the records'
    /// `log` field) instead of `-`. Returns whether standard input is among
    /// the inputs.
    pub fn name_stdin(&mut self, name: &str) -> bool {
        let mut found = false;
        for input in &mut self.inputs {
            if input.is_stdin() {
                input.display = name.to_string();
                found = true;
            }
        }
        found
    }
}

impl LogInput {
    /// Whether this is standard input.
    pub fn is_stdin(&self) -> bool {
        matches!(self.parts.as_slice(), [Part { path: None, .. }])
    }
}
