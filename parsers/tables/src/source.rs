//! Where a table's files are read from: the local file system, or an
//! object store (`s3://`, `s3a://`, `az://`, `abfs[s]://`, `gs://`, through
//! `lakeaudit-stores`).
//!
//! A table on a store is named by its URL, kept in the same [`PathBuf`]s as
//! local paths (`s3://bucket/wh/t` joined with `_delta_log` is
//! `s3://bucket/wh/t/_delta_log`), so the readers and their errors name a
//! remote file as they name a local one. What differs is how a file is
//! listed, sized and read, which this module and the scope check (`scope::Scope`)
//! decide: a directory is a prefix listing, an open file a [`Source`]
//! whose reads are ranged GETs, a whole small file one GET whose size is
//! checked before anything is allocated.

use crate::error::{Error, Result};
use std::fs;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The URL `p` holds, if it names an object on a store.
pub(crate) fn remote_url(p: &Path) -> Option<&str> {
    p.to_str().filter(|s| stores::is_remote(s))
}

/// Whether `p` names an object-store URL (a table read from a store).
pub fn is_remote(p: &Path) -> bool {
    remote_url(p).is_some()
}

/// A store's failure on `shown` as this crate's error: a missing object is
/// an I/O error of kind `NotFound` (as a missing local file), an object
/// over its cap [`Error::TooLarge`].
pub(crate) fn remote_err(shown: &Path, e: stores::Error, cap: u64) -> Error {
    match e.kind() {
        stores::ErrorKind::NotFound => {
            Error::io(shown, io::Error::new(io::ErrorKind::NotFound, e.why()))
        }
        stores::ErrorKind::TooLarge { size } => Error::TooLarge {
            path: shown.to_path_buf(),
            size,
            cap,
        },
        stores::ErrorKind::Other => Error::io(shown, io::Error::other(e.why())),
    }
}

/// The files right under the directory (or prefix) `dir`: (name, path).
/// Local: the directory's entries (sub-directories too, as `read_dir`
/// gives them); on a store: the objects whose key has no `/` after the
/// prefix. A prefix with nothing under it is empty, not an error.
pub(crate) fn list_dir(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    if let Some(url) = remote_url(dir) {
        let listed = stores::list(url).map_err(|e| remote_err(dir, e, u64::MAX))?;
        return Ok(listed
            .into_iter()
            .filter(|o| !o.rel.contains('/'))
            .map(|o| (o.rel, PathBuf::from(o.url)))
            .collect());
    }
    let mut out = Vec::new();
    for e in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let e = e.map_err(|e| Error::io(dir, e))?;
        out.push((e.file_name().to_string_lossy().into_owned(), e.path()));
    }
    Ok(out)
}

/// Whether `p` is a regular file (on a store: an object exists there).
pub(crate) fn is_file(p: &Path) -> bool {
    match remote_url(p) {
        Some(url) => stores::size(url).is_ok(),
        None => p.is_file(),
    }
}

/// Bytes fetched per ranged GET when a reader asks for less (a footer, a
/// page header, a line of a commit): reads that follow are served from
/// them.
const BLOCK: u64 = 1 << 20;

/// An object read by ranged GETs, with one block of it buffered.
#[derive(Debug, Clone)]
pub struct RemoteObject {
    url: String,
    len: u64,
    pos: u64,
    /// The buffered block and the offset it starts at.
    buf: Vec<u8>,
    buf_at: u64,
}

impl RemoteObject {
    fn fetch(&self, start: u64, end: u64) -> io::Result<Vec<u8>> {
        // The reason alone: the caller names the URL.
        stores::read_range(&self.url, start..end).map_err(|e| match e.kind() {
            stores::ErrorKind::NotFound => io::Error::new(io::ErrorKind::NotFound, e.why()),
            _ => io::Error::other(e.why()),
        })
    }
}

impl Read for RemoteObject {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() || self.pos >= self.len {
            return Ok(0);
        }
        let buffered = self.buf_at..self.buf_at + self.buf.len() as u64;
        if !buffered.contains(&self.pos) {
            let want = (out.len() as u64).min(self.len - self.pos);
            if want >= BLOCK {
                // A large read (a column chunk, a blob) goes straight into
                // the caller's buffer: one GET of exactly its length.
                let got = self.fetch(self.pos, self.pos + want)?;
                out[..got.len()].copy_from_slice(&got);
                self.pos += got.len() as u64;
                return Ok(got.len());
            }
            let end = (self.pos + BLOCK).min(self.len);
            self.buf = self.fetch(self.pos, end)?;
            self.buf_at = self.pos;
        }
        let from = (self.pos - self.buf_at) as usize;
        let n = out.len().min(self.buf.len() - from);
        out[..n].copy_from_slice(&self.buf[from..from + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for RemoteObject {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let at = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        let at = at.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the object",
            )
        })?;
        self.pos = at;
        Ok(at)
    }
}

/// An open file of a table: a local file, or an object on a store read by
/// ranges.
#[derive(Debug)]
pub enum Source {
    /// A local regular file.
    Local(fs::File),
    /// An object on a store.
    Remote(RemoteObject),
    /// An object on a store read whole (a file handed to polars' reader,
    /// which reads a file that is neither local nor in memory whole itself,
    /// from its current position, and panics on a failed read).
    Memory(io::Cursor<std::sync::Arc<[u8]>>),
}

impl Source {
    /// The object at `url` of `len` bytes, read by ranges from now on.
    pub(crate) fn remote(url: &str, len: u64) -> Source {
        Source::Remote(RemoteObject {
            url: url.to_string(),
            len,
            pos: 0,
            buf: Vec::new(),
            buf_at: 0,
        })
    }

    /// Bytes read whole from a store.
    pub(crate) fn memory(bytes: Vec<u8>) -> Source {
        Source::Memory(io::Cursor::new(bytes.into()))
    }

    /// This file as polars' reader takes it: a local file as it is (polars
    /// maps it), an object on a store of `len` bytes read whole, if it is
    /// at most `cap` bytes (checked before anything is allocated).
    pub(crate) fn for_polars(self, shown: &Path, len: u64, cap: u64) -> Result<Source> {
        match self {
            Source::Remote(r) => {
                if len > cap {
                    return Err(Error::TooLarge {
                        path: shown.to_path_buf(),
                        size: len,
                        cap,
                    });
                }
                let bytes = r.fetch(0, len).map_err(|e| Error::io(shown, e))?;
                Ok(Source::memory(bytes))
            }
            other => Ok(other),
        }
    }

    /// A second handle on the same file, at its own position.
    pub(crate) fn try_clone(&self) -> io::Result<Source> {
        Ok(match self {
            Source::Local(f) => Source::Local(f.try_clone()?),
            Source::Remote(r) => Source::Remote(r.clone()),
            Source::Memory(c) => Source::Memory(c.clone()),
        })
    }
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::Local(f) => f.read(buf),
            Source::Remote(r) => r.read(buf),
            Source::Memory(c) => c.read(buf),
        }
    }
}

impl Seek for Source {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            Source::Local(f) => f.seek(to),
            Source::Remote(r) => r.seek(to),
            Source::Memory(c) => c.seek(to),
        }
    }
}

impl polars_io::mmap::MmapBytesReader for Source {
    fn to_file(&self) -> Option<&fs::File> {
        match self {
            Source::Local(f) => Some(f),
            _ => None,
        }
    }

    fn to_bytes(&self) -> Option<&[u8]> {
        match self {
            Source::Memory(c) => Some(c.get_ref().as_ref()),
            _ => None,
        }
    }
}

/// An object-store URL's store, for telling whether two locations are on
/// the same one: the scheme family (`s3a` is `s3`; `az`, `azure`, `abfs`
/// and `abfss` are Azure) and the bucket or container. `None` for a local
/// path.
pub(crate) fn store_of(location: &str) -> Option<(&'static str, String)> {
    let (scheme, rest) = location.split_once("://")?;
    let family = match scheme.to_ascii_lowercase().as_str() {
        "s3" | "s3a" => "s3",
        "az" | "azure" | "abfs" | "abfss" => "az",
        "gs" => "gs",
        _ => return None,
    };
    let authority = rest.split('/').next().unwrap_or("");
    // abfss://container@account.dfs.core.windows.net: the container.
    let bucket = authority.split('@').next().unwrap_or(authority);
    Some((family, bucket.to_string()))
}

/// `url` with `.` and `..` key segments resolved and empty ones dropped,
/// the scheme in lowercase; `None` when a `..` climbs above the bucket.
pub(crate) fn normalize_url(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let (authority, key) = rest.split_once('/').unwrap_or((rest, ""));
    let mut segs: Vec<&str> = Vec::new();
    for s in key.split('/') {
        match s {
            "" | "." => {}
            ".." => {
                segs.pop()?;
            }
            other => segs.push(other),
        }
    }
    let scheme = scheme.to_ascii_lowercase();
    Some(if segs.is_empty() {
        format!("{scheme}://{authority}")
    } else {
        format!("{scheme}://{authority}/{}", segs.join("/"))
    })
}

/// Whether the normalized URL `url` is `root` or lies under it (`s3a://`
/// and `s3://` name the same bucket).
pub(crate) fn url_under(url: &str, root: &str) -> bool {
    let alias = |u: &str| match u.strip_prefix("s3a://") {
        Some(rest) => format!("s3://{rest}"),
        None => u.to_string(),
    };
    let (u, r) = (alias(url), alias(root.trim_end_matches('/')));
    u == r || u.strip_prefix(&r).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_resolve_and_stay_under_their_table() {
        assert_eq!(
            normalize_url("S3://b/wh/t/./_delta_log/../x.bin").as_deref(),
            Some("s3://b/wh/t/x.bin")
        );
        assert_eq!(normalize_url("s3://b/t/../../x"), None);
        assert_eq!(normalize_url("s3://b/t/../x").as_deref(), Some("s3://b/x"));
        assert!(url_under("s3://b/wh/t/x", "s3://b/wh/t"));
        assert!(url_under("s3a://b/wh/t/x", "s3://b/wh/t/"));
        assert!(url_under("s3://b/wh/t", "s3://b/wh/t"));
        assert!(!url_under("s3://b/wh/t2/x", "s3://b/wh/t"));
        assert!(!url_under("s3://c/wh/t/x", "s3://b/wh/t"));
        assert!(!url_under("gs://b/wh/t/x", "s3://b/wh/t"));
        assert_eq!(
            store_of("abfss://logs@acct.dfs.core.windows.net/wh"),
            Some(("az", "logs".to_string()))
        );
        assert_eq!(store_of("s3a://b/wh"), store_of("s3://b"));
        assert_eq!(store_of("/tmp/wh"), None);
        assert_eq!(store_of("file:///tmp/wh"), None);
        assert!(is_remote(Path::new("gs://b/t")));
        assert!(!is_remote(Path::new("/tmp/t")));
    }
}
