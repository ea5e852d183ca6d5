//! Finding the event logs behind the paths a user gives.
//!
//! Rules (after Spark's `EventLogFileWriters` / `EventLogFileReaders`):
//! - `-` is standard input (its codec is sniffed when it is opened; the
//!   binary's `--name` renames it, see [`Discovery::name_stdin`]).
//! - A directory named `eventlog_v2_<appId>[_<attempt>]` is one rolling log:
//!   its `events_<N>_<appId>[_<attempt>][.<codec>][.compact]` parts are read
//!   in numeric order of N, starting at the last `.compact` part (Spark
//!   drops the parts a compaction replaced); indices missing in between (or
//!   before the first part, without a compaction) are recorded on the part
//!   after them ([`Part::missing_before`]) and every part there is read;
//!   `appstatus_*` markers say whether the application finished, and hidden
//!   files (the `.crc` side files) are ignored.
//! - A file named by the user is one log, whatever its name; its codec is
//!   the one its extension names as Spark names them
//!   (`<appId>[.<codec>][.inprogress]`). The reader then goes by the magic
//!   bytes (and warns when they disagree with the name). An unknown
//!   extension is an error unless the file's bytes show a known codec or
//!   plain JSON text.
//!   A directory under another name that holds both `appstatus_` and
//!   `events_` files is taken as a rolling log too (a renamed copy).
//! - Any other directory is searched recursively. Inside it, hidden files,
//!   `.crc` files and `appstatus_*` markers are skipped; a file named like a
//!   Spark application id (`app-`, `local-`, `application_`, `spark-`) is a
//!   log (an unknown codec extension on it is an error unless its bytes show
//!   a codec or JSON text); any other file is a log only if its first
//!   decompressed bytes (codec by magic bytes, else by extension) are
//!   `{"Event":` (so READMEs, `.json`, `.sql` and JSON-lines files that are
//!   not event logs are skipped). A directory in which nothing is found is an error. Each
//!   directory is read once, whatever path leads to it (symlink loops).
//! - `file://…` is the local path it names. An object-store URL (`s3://`,
//!   `s3a://`, `az://`, `abfss://`, `gs://`) follows the same rules on its
//!   listing: one object is a file named by the user, a prefix a directory
//!   (see `remote.rs`).

use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::codec::{self, Source};
use super::{Codec, Discovery, LogInput, Part, SkipReason, Skipped};
use crate::{Error, Location};

pub(super) const ROLLING_DIR_PREFIX: &str = "eventlog_v2_";
pub(super) const EVENTS_PREFIX: &str = "events_";
pub(super) const APPSTATUS_PREFIX: &str = "appstatus_";
const IN_PROGRESS: &str = ".inprogress";
const COMPACT: &str = ".compact";
/// File-name prefixes of Spark application ids (local, standalone, YARN,
/// Kubernetes); Spark names a single-file log after the application id.
const APP_ID_PREFIXES: [&str; 4] = ["app-", "local-", "application_", "spark-"];
const EVENT_PREFIX: &[u8] = br#"{"Event":"#;
/// How deep a directory search goes (symlink loops are caught earlier, by
/// remembering the directories visited; this bounds a genuinely deep tree).
pub(super) const MAX_DEPTH: usize = 32;

/// Finds the event logs behind one local path `p` (a file, a rolling
/// directory, a directory to search, or `-` for standard input) into `d`;
/// `seen`: the directories already searched ([`super::discover`] keeps it
/// across the paths and dispatches store URLs to [`super::remote`]).
pub(super) fn local_path(p: &str, d: &mut Discovery, seen: &mut Visited) {
    if p == "-" {
        d.inputs.push(LogInput {
            display: "-".into(),
            parts: vec![Part::stdin()],
            in_progress: false,
        });
        return;
    }
    let path = Path::new(p);
    match fs::metadata(path) {
        Err(source) => d.errors.push(Error::Io { at: loc(p), source }),
        Ok(m) if m.is_dir() => {
            if !seen.first_visit(path, &m) {
                // The same directory again (given twice, or also
                // reached through a link from an earlier path).
                return;
            }
            if is_rolling_dir(path) || holds_rolling_parts(path) {
                match rolling(path, p) {
                    Ok(input) => d.inputs.push(input),
                    Err(e) => d.errors.push(e),
                }
            } else {
                let before = d.inputs.len();
                walk(path, 0, d, seen);
                if d.inputs.len() == before {
                    d.errors.push(Error::Input {
                        at: loc(p),
                        reason: "no Spark event logs found in this directory".into(),
                    });
                }
            }
        }
        Ok(_) => match named_file(&file_name(path), path, p, &local_file(path)) {
            Ok(input) => d.inputs.push(input),
            Err(e) => d.errors.push(e),
        },
    }
}

/// Opens a file's bytes: a local file, or an object on a store.
pub(super) type Opener<'a> = &'a dyn Fn() -> std::io::Result<Box<dyn Read + Send>>;

fn local_file(path: &Path) -> impl Fn() -> std::io::Result<Box<dyn Read + Send>> + '_ {
    move || Ok(Box::new(fs::File::open(path)?) as Box<dyn Read + Send>)
}

pub(super) fn loc(path: &str) -> Location {
    Location {
        path: path.to_string(),
        line: None,
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn is_rolling_dir(path: &Path) -> bool {
    file_name(path).starts_with(ROLLING_DIR_PREFIX)
}

/// A directory holding both an `appstatus_` marker and `events_` parts is a
/// rolling log even under another name (e.g. copied as `mylog/`): its parts
/// must not be taken as separate applications.
fn holds_rolling_parts(dir: &Path) -> bool {
    let Ok(list) = entries(dir) else {
        return false;
    };
    let has = |prefix: &str| list.iter().any(|(n, _)| n.starts_with(prefix));
    has(APPSTATUS_PREFIX) && has(EVENTS_PREFIX)
}

/// A log file name split the way Spark's `EventLogFileWriter.codecName`
/// reads it: strip `.compact` and `.inprogress`, then the codec is the text
/// after the last dot (application ids contain no dots).
pub(super) struct LogName<'a> {
    stem: &'a str,
    ext: Option<&'a str>,
    in_progress: bool,
    compact: bool,
}

pub(super) fn parse_name(name: &str) -> LogName<'_> {
    let mut n = name;
    let mut in_progress = false;
    let mut compact = false;
    loop {
        if let Some(s) = n.strip_suffix(COMPACT) {
            compact = true;
            n = s;
        } else if let Some(s) = n.strip_suffix(IN_PROGRESS) {
            in_progress = true;
            n = s;
        } else {
            break;
        }
    }
    let (stem, ext) = match n.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, Some(ext)),
        _ => (n, None),
    };
    LogName {
        stem,
        ext,
        in_progress,
        compact,
    }
}

fn unknown_ext(display: &str, ext: &str) -> Error {
    Error::Input {
        at: loc(display),
        reason: format!(
            "unknown codec extension `.{ext}` (known: none, .zstd, .zst, .lz4, .snappy, .lzf, .gz)"
        ),
    }
}

/// The codec the file's first bytes show (magic number, or `{` for plain
/// JSON text), if they show one.
fn content_codec(open: Opener) -> std::io::Result<Option<Codec>> {
    let mut file = open()?;
    let mut head = [0u8; codec::SNIFF_LEN];
    let n = codec::read_head(&mut file, &mut head)?;
    let head = head.get(..n).unwrap_or(&[]);
    Ok(codec::sniff(head).or(codec::starts_like_json(head).then_some(Codec::None)))
}

/// Whether the file's first decompressed bytes are `{"Event":` (white space
/// allowed, as in a log re-serialised by another JSON writer): `None` when
/// they are, else why the file is not taken as a log (a failure to decode
/// is a reason, not an error: this only decides whether a file found in a
/// directory is taken as a log).
fn looks_like_log(open: Opener, codec: Codec) -> std::io::Result<Option<SkipReason>> {
    let file = open()?;
    let src = Source::new(file);
    let Ok(mut dec) = codec::decoder(codec, Box::new(src)) else {
        return Ok(Some(SkipReason::Undecodable));
    };
    let mut head = [0u8; 64];
    let n = match codec::read_head(&mut dec, &mut head) {
        Ok(n) => n,
        Err(e) => {
            return match codec::into_source_error(e) {
                Ok(source) => Err(source),
                Err(_) => Ok(Some(SkipReason::Undecodable)),
            }
        }
    };
    Ok((!starts_like_event(head.get(..n).unwrap_or(&[]))).then_some(SkipReason::NotEvents))
}

/// `{`, `"Event"`, `:` with optional white space around each.
fn starts_like_event(head: &[u8]) -> bool {
    if head.starts_with(EVENT_PREFIX) {
        return true;
    }
    let mut rest = head;
    for token in [&b"{"[..], b"\"Event\"", b":"] {
        let skip = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        match rest.get(skip..).and_then(|r| r.strip_prefix(token)) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    true
}

/// The codec of a file whose extension is not a codec's: the one its bytes
/// show, or the unknown-extension error.
fn by_content(open: Opener, display: &str, ext: &str) -> Result<Codec, Error> {
    match content_codec(open) {
        Ok(Some(c)) => Ok(c),
        Ok(None) => Err(unknown_ext(display, ext)),
        Err(source) => Err(Error::Io {
            at: loc(display),
            source,
        }),
    }
}

/// A file the user named (`name`, read at `path`, shown as `display`): a
/// log whatever its name.
pub(super) fn named_file(
    name: &str,
    path: &Path,
    display: &str,
    open: Opener,
) -> Result<LogInput, Error> {
    let n = parse_name(name);
    let codec = match n.ext {
        None => Codec::None,
        Some(ext) => match Codec::from_extension(ext) {
            Some(c) => c,
            None => by_content(open, display, ext)?,
        },
    };
    Ok(LogInput {
        display: display.to_string(),
        parts: vec![Part::file(path, codec)],
        in_progress: n.in_progress,
    })
}

/// A file met while searching a directory: a log, not a log (and why), or
/// an error.
pub(super) fn found_file(
    path: &Path,
    name: &str,
    display: &str,
    open: Opener,
) -> Result<Result<LogInput, SkipReason>, Error> {
    let n = parse_name(name);
    let codec = match n.ext {
        None => Some(Codec::None),
        Some(ext) => Codec::from_extension(ext),
    };
    let spark_named = APP_ID_PREFIXES.iter().any(|p| n.stem.starts_with(p));
    let codec = match (spark_named, codec) {
        (true, Some(c)) => c,
        (true, None) => by_content(open, display, n.ext.unwrap_or(""))?,
        (false, named) => {
            let io_err = |source| Error::Io {
                at: loc(display),
                source,
            };
            // The bytes decide how to look inside; the name only when they
            // show nothing. The part keeps what the name says (the reader
            // warns when the two disagree).
            let content = content_codec(open).map_err(io_err)?;
            let look = content.or(named).unwrap_or(Codec::None);
            if let Some(why) = looks_like_log(open, look).map_err(io_err)? {
                return Ok(Err(why));
            }
            named.unwrap_or(look)
        }
    };
    Ok(Ok(LogInput {
        display: display.to_string(),
        parts: vec![Part::file(path, codec)],
        in_progress: n.in_progress,
    }))
}

/// Directory entries sorted by name, hidden ones left out.
fn entries(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        out.push((name, e.path()));
    }
    out.sort();
    Ok(out)
}

/// What identifies a directory whatever path leads to it: (device, inode).
#[cfg(unix)]
type DirKey = (u64, u64);
#[cfg(not(unix))]
type DirKey = PathBuf;

#[cfg(unix)]
fn dir_key(_path: &Path, meta: &fs::Metadata) -> Option<DirKey> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn dir_key(path: &Path, _meta: &fs::Metadata) -> Option<DirKey> {
    fs::canonicalize(path).ok()
}

/// Directories already read in this discovery. A symlink back up the tree
/// (or a second link to a directory already read) leads to a directory seen
/// before, which is then skipped: each log is found once.
#[derive(Default)]
pub(super) struct Visited(HashSet<DirKey>);

impl Visited {
    /// Whether `dir` is new (and remembers it).
    fn first_visit(&mut self, dir: &Path, meta: &fs::Metadata) -> bool {
        match dir_key(dir, meta) {
            Some(k) => self.0.insert(k),
            None => true,
        }
    }
}

fn walk(dir: &Path, depth: usize, d: &mut Discovery, seen: &mut Visited) {
    let display = dir.display().to_string();
    if depth > MAX_DEPTH {
        d.errors.push(Error::Input {
            at: loc(&display),
            reason: format!("directories nested deeper than {MAX_DEPTH} levels"),
        });
        return;
    }
    let list = match entries(dir) {
        Ok(l) => l,
        Err(source) => {
            d.errors.push(Error::Io {
                at: loc(&display),
                source,
            });
            return;
        }
    };
    for (name, path) in list {
        if name.ends_with(".crc") || name.starts_with(APPSTATUS_PREFIX) {
            continue;
        }
        let shown = path.display().to_string();
        let meta = match fs::metadata(&path) {
            Ok(m) => m,
            Err(source) => {
                d.errors.push(Error::Io {
                    at: loc(&shown),
                    source,
                });
                continue;
            }
        };
        if meta.is_dir() {
            if !seen.first_visit(&path, &meta) {
                continue;
            }
            if is_table_dir(&path) {
                d.skipped.push(Skipped {
                    path: shown,
                    why: SkipReason::TableDirectory,
                });
                continue;
            }
            if name.starts_with(ROLLING_DIR_PREFIX) || holds_rolling_parts(&path) {
                let list = match entries(&path) {
                    Ok(l) => l,
                    Err(source) => {
                        d.errors.push(Error::Io {
                            at: loc(&shown),
                            source,
                        });
                        continue;
                    }
                };
                if without_parts(&list) {
                    d.skipped.push(Skipped {
                        path: shown,
                        why: SkipReason::EmptyRollingDirectory,
                    });
                    continue;
                }
                match rolling_parts(list, &shown) {
                    Ok(input) => d.inputs.push(input),
                    Err(e) => d.errors.push(e),
                }
            } else {
                walk(&path, depth + 1, d, seen);
            }
        } else if meta.is_file() {
            match found_file(&path, &name, &shown, &local_file(&path)) {
                Ok(Ok(input)) => d.inputs.push(input),
                Ok(Err(why)) => d.skipped.push(Skipped { path: shown, why }),
                Err(e) => d.errors.push(e),
            }
        }
    }
}

/// A Delta table's directory (it holds `_delta_log/`) or an Iceberg
/// table's (`metadata/` holding a `*.metadata.json`): not searched for
/// logs (its files are data and metadata).
fn is_table_dir(dir: &Path) -> bool {
    if dir.join("_delta_log").is_dir() {
        return true;
    }
    fs::read_dir(dir.join("metadata")).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".metadata.json"))
    })
}

struct RollingPart {
    index: u64,
    compact: bool,
    in_progress: bool,
    part: Part,
}

/// One rolling-log directory `eventlog_v2_<appId>[_<attempt>]`.
fn rolling(dir: &Path, display: &str) -> Result<LogInput, Error> {
    let list = entries(dir).map_err(|source| Error::Io {
        at: loc(display),
        source,
    })?;
    rolling_parts(list, display)
}

/// Whether a rolling directory's entries hold no `events_<N>_<appId>`
/// part: a directory search passes over it, named
/// ([`SkipReason::EmptyRollingDirectory`]); named on the command line, it
/// is an input error ([`rolling_parts`]).
pub(super) fn without_parts(list: &[(String, PathBuf)]) -> bool {
    !list
        .iter()
        .any(|(name, _)| name.starts_with(EVENTS_PREFIX) && !name.ends_with(".crc"))
}

/// A rolling log from its directory's entries (name, path), sorted by name.
pub(super) fn rolling_parts(
    list: Vec<(String, PathBuf)>,
    display: &str,
) -> Result<LogInput, Error> {
    let mut parts = Vec::new();
    let mut status_in_progress: Option<bool> = None;
    for (name, path) in list {
        if name.ends_with(".crc") {
            continue;
        }
        if name.starts_with(APPSTATUS_PREFIX) {
            let ip = name.ends_with(IN_PROGRESS);
            // Spark takes any marker; a finished marker wins over a stale one.
            status_in_progress = Some(status_in_progress.unwrap_or(true) && ip);
            continue;
        }
        let Some(rest) = name.strip_prefix(EVENTS_PREFIX) else {
            continue;
        };
        let shown = path.display().to_string();
        let index = rest
            .split('_')
            .next()
            .and_then(|i| i.parse::<u64>().ok())
            .ok_or_else(|| Error::Input {
                at: loc(&shown),
                reason: "rolling event-log part without a numeric index (events_<N>_<appId>)"
                    .into(),
            })?;
        let n = parse_name(&name);
        let codec = match n.ext {
            None => Codec::None,
            Some(ext) => Codec::from_extension(ext).ok_or_else(|| unknown_ext(&shown, ext))?,
        };
        parts.push(RollingPart {
            index,
            compact: n.compact,
            in_progress: n.in_progress,
            part: Part::file(path, codec),
        });
    }
    // Numeric order; a compacted part sorts after the plain part of its index.
    parts.sort_by_key(|p| (p.index, p.compact));
    if let Some(last_compact) = parts.iter().rposition(|p| p.compact) {
        parts.drain(..last_compact);
    }
    let Some(last) = parts.last() else {
        return Err(Error::Input {
            at: loc(display),
            reason: "rolling event-log directory has no events_<N>_<appId> files".into(),
        });
    };
    let last_in_progress = last.in_progress;
    // Missing parts (deleted, or lost in a copy) do not stop the others from
    // being read: the part after a gap says which indices are missing.
    // Spark numbers parts from 1, and only a compaction removes earlier ones.
    let mut prev = match parts.first() {
        Some(p) if p.compact => None,
        _ => Some(0),
    };
    for p in &mut parts {
        if let Some(prev) = prev {
            if p.index == prev {
                return Err(Error::Input {
                    at: loc(display),
                    reason: format!("rolling event-log part {} appears twice", p.index),
                });
            }
            if p.index > prev + 1 {
                p.part.missing_before = Some((prev + 1, p.index - 1));
            }
        }
        prev = Some(p.index);
    }
    Ok(LogInput {
        display: display.to_string(),
        in_progress: status_in_progress.unwrap_or(false) || last_in_progress,
        parts: parts.into_iter().map(|p| p.part).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{copy_tree, one_input, samples, TempDir};
    use super::super::{discover, Codec};
    use super::parse_name;
    use crate::Error;

    fn rel(display: &str, root: &std::path::Path) -> String {
        display
            .strip_prefix(&root.display().to_string())
            .unwrap_or(display)
            .trim_start_matches('/')
            .to_string()
    }

    #[test]
    fn a_file_url_is_its_local_path() {
        let root = testdata::data("spark-logs");
        let by_path = discover(&[root.display().to_string()]);
        let by_url = discover(&[format!("file://{}", root.display())]);
        assert!(by_url.errors.is_empty(), "{:?}", by_url.errors);
        assert_eq!(by_url.inputs, by_path.inputs);
    }

    #[test]
    fn fixture_logs_hold_exactly_their_two_applications() {
        let root = testdata::data("spark-logs");
        let d = discover(&[root.display().to_string()]);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let found: Vec<(String, Vec<Codec>, usize)> = d
            .inputs
            .iter()
            .map(|i| {
                (
                    rel(&i.display, &root),
                    i.parts.iter().map(|p| p.codec).collect(),
                    usize::from(i.in_progress),
                )
            })
            .collect();
        // README.md, *.json, sql/*.sql, executions/ and tpch-plans.jsonl.zst
        // (zstd JSON lines, but not events) are not logs; .crc and
        // appstatus are markers.
        assert_eq!(
            found,
            [
                (
                    "tpch-default/eventlog_v2_local-1796009792357".into(),
                    vec![Codec::Zstd],
                    0
                ),
                (
                    "tpch-extended/local-1796009833175.zst".into(),
                    vec![Codec::Zstd],
                    0
                ),
            ]
        );
        // The same logs named one by one, in another order: same result.
        let mut paths: Vec<String> = d.inputs.iter().rev().map(|i| i.display.clone()).collect();
        paths.push(paths[0].clone());
        let again = discover(&paths);
        assert_eq!(again.inputs, d.inputs);
    }

    #[test]
    fn samples_dir_holds_every_sample_log() {
        let root = samples();
        let d = discover(&[root.display().to_string()]);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let kinds: Vec<(String, Codec, usize, bool)> = d
            .inputs
            .iter()
            .map(|i| {
                let dir = rel(&i.display, &root);
                let dir = dir.split('/').next().unwrap_or_default().to_string();
                (dir, i.parts[0].codec, i.parts.len(), i.in_progress)
            })
            .collect();
        assert_eq!(
            kinds,
            [
                ("shop".into(), Codec::Zstd, 1, false),
                ("spark35-lz4".into(), Codec::Lz4, 1, false),
                // sorted by the whole path: "spark4-inprogress-zstd/" < "spark4-inprogress/"
                ("spark4-inprogress-zstd".into(), Codec::Zstd, 1, true),
                ("spark4-inprogress".into(), Codec::None, 1, true),
                ("spark4-inprogress".into(), Codec::None, 1, true),
                ("spark4-lz4".into(), Codec::Lz4, 1, false),
                ("spark4-lzf".into(), Codec::Lzf, 1, false),
                ("spark4-plain".into(), Codec::None, 1, false),
                ("spark4-plain".into(), Codec::Gzip, 1, false),
                // "spark4-rolling-multi/" < "spark4-rolling/"
                ("spark4-rolling-multi".into(), Codec::Zstd, 3, false),
                ("spark4-rolling".into(), Codec::Zstd, 2, false),
                ("spark4-snappy".into(), Codec::Snappy, 1, false),
                ("spark4-zstd".into(), Codec::Zstd, 1, false),
                ("tpch-smj".into(), Codec::Snappy, 1, false),
                ("weekly".into(), Codec::Zstd, 1, false),
                ("weekly".into(), Codec::Zstd, 1, false),
                ("weekly".into(), Codec::Zstd, 1, false),
                ("weekly".into(), Codec::Zstd, 1, false),
            ]
        );
        // `warehouse/` (Delta commits, checkpoints, Parquet, Iceberg
        // metadata and manifests) holds no event log, and none of its
        // files is taken for one.
    }

    #[test]
    fn names_split_like_spark_codec_name() {
        let n = parse_name("local-1796017645693.zstd.inprogress");
        assert_eq!(
            (n.stem, n.ext, n.in_progress, n.compact),
            ("local-1796017645693", Some("zstd"), true, false)
        );
        let n = parse_name("events_3_local-1.lz4.compact");
        assert_eq!(
            (n.stem, n.ext, n.in_progress, n.compact),
            ("events_3_local-1", Some("lz4"), false, true)
        );
        let n = parse_name("application_1700000000000_0001_1");
        assert_eq!((n.ext, n.in_progress), (None, false));
        let n = parse_name(".hidden");
        assert_eq!(n.ext, None);
    }

    #[test]
    fn directory_rules_sniff_and_skip() {
        let tmp = TempDir::new("discover");
        let log = br#"{"Event":"SparkListenerLogStart","Spark Version":"4.0.1"}"#;
        let w = |name: &str, data: &[u8]| {
            let p = tmp.path(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, data).unwrap();
        };
        w("README.md", b"# logs\n");
        w("plans.jsonl", b"{\"query\":\"q01\"}\n");
        // starts like an event log, so it is taken as one (the event layer judges it)
        w("conf.json", b"{\"Event\":1}");
        w(".hidden-local-1", log);
        w("local-2.crc", b"crc");
        w("appstatus_local-3", b"");
        w("sub/deeper/renamed-log.txt", log); // not Spark-named: sniffed
        w(
            "sub/app-20260101000000-0001.zstd",
            &zstd::encode_all(&log[..], 1).unwrap(),
        );
        // Spark-named, unknown codec: bzip2 bytes are no codec Spark writes
        w("sub/app-20260101000000-0002.bz2", b"BZh91AY&SY\x00\x01");
        // Spark-named, unknown extension, but zstd bytes: read as zstd
        w(
            "sub/app-20260101000000-0003.old",
            &zstd::encode_all(&log[..], 1).unwrap(),
        );
        // not Spark-named, zstd bytes under a .txt name: looked into as zstd
        w(
            "sub/events-copy.txt",
            &zstd::encode_all(&log[..], 1).unwrap(),
        );
        w(
            "sub/driver.log",
            b"26/11/30 INFO SparkContext: Running Spark\n",
        );
        let d = discover(&[tmp.0.display().to_string()]);
        let names: Vec<String> = d.inputs.iter().map(|i| rel(&i.display, &tmp.0)).collect();
        assert_eq!(
            names,
            [
                "conf.json",
                "sub/app-20260101000000-0001.zstd",
                "sub/app-20260101000000-0003.old",
                "sub/deeper/renamed-log.txt",
                "sub/events-copy.txt",
            ]
        );
        assert_eq!(d.inputs[1].parts[0].codec, Codec::Zstd);
        assert_eq!(d.inputs[2].parts[0].codec, Codec::Zstd);
        assert_eq!(d.errors.len(), 1, "{:?}", d.errors);
        let e = d.errors[0].to_string();
        assert!(
            e.contains("0002.bz2") && e.contains("unknown codec extension `.bz2`"),
            "{e}"
        );

        // a file named by the user: unknown extension is an error unless it
        // plainly holds events
        let d = discover(&[tmp.path("README.md").display().to_string()]);
        assert!(matches!(&d.errors[..], [Error::Input { reason, .. }] if reason.contains("`.md`")));
        let d = discover(&[tmp.path("sub/deeper/renamed-log.txt").display().to_string()]);
        assert_eq!(d.inputs.len(), 1);
        assert_eq!(d.inputs[0].parts[0].codec, Codec::None);
        // a file named by the user without extension is taken as a log
        // (LineReader then says whether it is one)
        let d = discover(&[tmp.path("sub/driver.log").display().to_string()]);
        assert!(d.errors.len() == 1 && d.inputs.is_empty());
    }

    #[test]
    fn renamed_rolling_dir_is_still_one_application() {
        let tmp = TempDir::new("renamed-rolling");
        let copy = tmp.path("logs/mylog");
        let src = one_input(&samples().join("spark4-rolling"));
        copy_tree(std::path::Path::new(&src.display), &copy);
        for p in [tmp.0.join("logs"), copy.clone()] {
            let d = discover(&[p.display().to_string()]);
            assert!(d.errors.is_empty(), "{:?}", d.errors);
            assert_eq!(d.inputs.len(), 1);
            assert_eq!(d.inputs[0].parts.len(), 2);
            assert_eq!(d.inputs[0].display, copy.display().to_string());
        }
    }

    /// A symlink loop (and a second link to a directory already read) finds
    /// each real log once, with no error.
    #[cfg(unix)]
    #[test]
    fn symlink_loops_read_each_log_once() {
        use std::os::unix::fs::symlink;
        let tmp = TempDir::new("symlinks");
        let logs = tmp.path("logs");
        let app = logs.join("team-a");
        copy_tree(&samples().join("spark4-zstd"), &app);
        copy_tree(&samples().join("spark35-lz4"), &logs.join("team-b"));
        symlink("..", app.join("up")).unwrap(); // team-a/up -> logs
        symlink(".", logs.join("self")).unwrap(); // logs/self -> logs
        symlink("team-b", logs.join("latest")).unwrap(); // a second name
        let d = discover(&[logs.display().to_string()]);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let names: Vec<String> = d.inputs.iter().map(|i| rel(&i.display, &logs)).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // `latest` sorts before `team-b`: the log is found once, under either name
        assert!(names[0].starts_with("latest/local-"), "{names:?}");
        assert!(names[1].starts_with("team-a/eventlog_v2_"), "{names:?}");
        // the same directory given twice (once through a link) is read once
        let d = discover(&[
            logs.display().to_string(),
            logs.join("self").display().to_string(),
        ]);
        assert_eq!(d.inputs.len(), 2);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
    }

    #[test]
    fn stdin_and_rolling_dir_errors() {
        let d = discover(&["-".to_string()]);
        assert_eq!(d.inputs.len(), 1);
        assert_eq!(d.inputs[0].display, "-");
        assert_eq!(d.inputs[0].parts[0].path, None);
        // --name: standard input is named in errors and records
        let mut d = discover(&["-".to_string()]);
        assert!(d.name_stdin("app-20261201-0001"));
        assert_eq!(d.inputs[0].display, "app-20261201-0001");
        assert!(d.inputs[0].is_stdin());
        let mut d = discover(&[samples().join("spark4-zstd").display().to_string()]);
        assert!(!d.name_stdin("x"));
        assert_ne!(d.inputs[0].display, "x");

        let tmp = TempDir::new("rolling-errors");
        let dir = tmp.path("eventlog_v2_local-1");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("appstatus_local-1"), b"").unwrap();
        let d = discover(&[dir.display().to_string()]);
        assert!(
            matches!(&d.errors[..], [Error::Input { reason, .. }] if reason.contains("no events_"))
        );
        // a missing middle part: both others are read, the gap is recorded
        std::fs::write(dir.join("events_1_local-1"), b"{}\n").unwrap();
        std::fs::write(dir.join("events_4_local-1"), b"{}\n").unwrap();
        let d = discover(&[dir.display().to_string()]);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let gaps: Vec<_> = d.inputs[0].parts.iter().map(|p| p.missing_before).collect();
        assert_eq!(gaps, [None, Some((2, 3))]);
        // missing first parts (no compaction replaced them)
        std::fs::remove_file(dir.join("events_1_local-1")).unwrap();
        let d = discover(&[dir.display().to_string()]);
        assert_eq!(d.inputs[0].parts[0].missing_before, Some((1, 3)));
        // ... but after a compaction, parts before it are gone on purpose
        std::fs::write(dir.join("events_2_local-1.compact"), b"{}\n").unwrap();
        let d = discover(&[dir.display().to_string()]);
        let gaps: Vec<_> = d.inputs[0].parts.iter().map(|p| p.missing_before).collect();
        assert_eq!(gaps, [None, Some((3, 3))]);
        std::fs::remove_file(dir.join("events_2_local-1.compact")).unwrap();
        // the same index twice is ambiguous
        std::fs::write(dir.join("events_4_local-1.zstd"), b"{}\n").unwrap();
        let d = discover(&[dir.display().to_string()]);
        assert!(
            matches!(&d.errors[..], [Error::Input { reason, .. }] if reason.contains("part 4 appears twice")),
            "{:?}",
            d.errors
        );
        std::fs::remove_file(dir.join("events_4_local-1.zstd")).unwrap();
        std::fs::write(dir.join("events_2_local-1.xz"), b"{}\n").unwrap();
        let d = discover(&[dir.display().to_string()]);
        assert!(matches!(&d.errors[..], [Error::Input { reason, .. }] if reason.contains("`.xz`")));
    }
}
