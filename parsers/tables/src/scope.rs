//! Which files a table's metadata may make the reader open, and how.
//!
//! Table metadata is untrusted input: anyone who can write to a bucket can
//! name `/proc/self/environ` as a deletion-vector file or `../../x` as a
//! manifest. Every path metadata names is resolved (`..` and symlinks,
//! with [`std::fs::canonicalize`]) and must lie under the table directory
//! or under a location the table declares for its files (Iceberg
//! `write.data.path` / `write.metadata.path`); anything else is refused
//! with [`Error::OutsideTable`] unless the user allowed it
//! (`--allow-outside-table`, [`crate::ReadOptions::allow_outside_table`]).
//! Only regular files are opened (a FIFO would block, `/dev/zero` never
//! ends), and each kind of file is read with a size cap.

use crate::error::{Error, Result};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Cap on a JSON metadata file read whole or line by line: a Delta commit
/// or JSON checkpoint, a `.crc` file, an Iceberg `*.metadata.json`
/// (decompressed, for `.gz`). 1 GiB: a commit adding a million files is
/// about 400 MB.
pub const MAX_JSON_BYTES: u64 = 1 << 30;
/// Cap on a small pointer file: Delta `_last_checkpoint`, Iceberg
/// `version-hint.text` (1 MiB; real ones hold a few hundred bytes).
pub const MAX_POINTER_BYTES: u64 = 1 << 20;
/// Cap on one decompressed Avro block of a manifest or manifest list
/// (64 MiB; writers flush blocks of about 64 KiB to 1 MiB).
pub const MAX_AVRO_BLOCK: u64 = 64 << 20;
/// Cap on one deletion vector (magic + bitmap): 1 GiB, twice the size of
/// a bitmap holding every position of 2^32 rows.
pub const MAX_DV_BYTES: u64 = 1 << 30;
/// Cap on one column chunk of a Parquet checkpoint, sidecar or delete file,
/// compressed or not (1 GiB).
pub const MAX_PARQUET_CHUNK: u64 = 1 << 30;

/// What kind of file a path names, for error messages.
fn kind(t: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// The directories one table's files may live in.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    /// Canonical roots: the table directory first.
    roots: Vec<PathBuf>,
    allow_outside: bool,
}

impl Scope {
    /// The scope of the table in `dir`.
    pub(crate) fn new(dir: &Path, allow_outside: bool) -> Result<Scope> {
        let root = fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        Ok(Scope {
            roots: vec![root],
            allow_outside,
        })
    }

    /// Also allow files under `dir` (a location the table declares for its
    /// files). A location that does not exist here adds nothing.
    pub(crate) fn declare(&mut self, dir: &Path) {
        if let Ok(c) = fs::canonicalize(dir) {
            if !self.roots.contains(&c) {
                self.roots.push(c);
            }
        }
    }

    /// The table directory, canonical.
    pub(crate) fn root(&self) -> &Path {
        &self.roots[0]
    }

    /// Resolve `path` (named by `referrer`, as `what`) and check it lies in
    /// the scope; returns the resolved path.
    pub(crate) fn check(&self, path: &Path, what: &str, referrer: &Path) -> Result<PathBuf> {
        let real = fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
        if self.allow_outside || self.roots.iter().any(|r| real.starts_with(r)) {
            return Ok(real);
        }
        Err(Error::OutsideTable {
            path: referrer.to_path_buf(),
            what: what.to_string(),
            target: path.to_path_buf(),
            root: self.roots[0].clone(),
        })
    }

    /// Open `path` for reading after [`Scope::check`]: a regular file of
    /// at most `cap` bytes. Returns the file and its length.
    pub(crate) fn open(
        &self,
        path: &Path,
        what: &str,
        referrer: &Path,
        cap: u64,
    ) -> Result<(fs::File, u64)> {
        let real = self.check(path, what, referrer)?;
        open_regular(&real, path, cap)
    }

    /// Read all of `path` (see [`Scope::open`]).
    pub(crate) fn read(
        &self,
        path: &Path,
        what: &str,
        referrer: &Path,
        cap: u64,
    ) -> Result<Vec<u8>> {
        let (f, len) = self.open(path, what, referrer, cap)?;
        read_capped(f, len, path, cap)
    }
}

/// Open `real` (displayed as `shown`) if it is a regular file of at most
/// `cap` bytes. The type is checked before opening (opening a FIFO blocks)
/// and again on the open file.
pub fn open_regular(real: &Path, shown: &Path, cap: u64) -> Result<(fs::File, u64)> {
    let not_regular = |t: fs::FileType| Error::NotRegular {
        path: shown.to_path_buf(),
        kind: kind(t),
    };
    let m = fs::metadata(real).map_err(|e| Error::io(shown, e))?;
    if !m.is_file() {
        return Err(not_regular(m.file_type()));
    }
    let f = fs::File::open(real).map_err(|e| Error::io(shown, e))?;
    let m = f.metadata().map_err(|e| Error::io(shown, e))?;
    if !m.is_file() {
        return Err(not_regular(m.file_type()));
    }
    if m.len() > cap {
        return Err(Error::TooLarge {
            path: shown.to_path_buf(),
            size: m.len(),
            cap,
        });
    }
    Ok((f, m.len()))
}

/// Read an open file whose length was `len` whole, never more than `cap`
/// bytes (a file that grows past the cap while read is refused).
fn read_capped(f: fs::File, len: u64, shown: &Path, cap: u64) -> Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    f.take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(shown, e))?;
    if buf.len() as u64 > cap {
        return Err(Error::TooLarge {
            path: shown.to_path_buf(),
            size: buf.len() as u64,
            cap,
        });
    }
    Ok(buf)
}

/// Decompress with at most `cap` bytes of output.
pub(crate) fn inflate_capped(r: impl Read, shown: &Path, cap: u64, what: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    r.take(cap + 1)
        .read_to_end(&mut out)
        .map_err(|e| Error::Invalid {
            path: shown.to_path_buf(),
            reason: format!("{what} does not decompress: {e}"),
        })?;
    if out.len() as u64 > cap {
        return Err(Error::Invalid {
            path: shown.to_path_buf(),
            reason: format!("{what} decompresses to more than the {cap}-byte cap"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_table_and_special_files_are_refused() {
        let tmp = std::env::temp_dir().join(format!("lakeaudit-scope-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(tmp.join("t/sub")).unwrap();
        fs::create_dir_all(tmp.join("other")).unwrap();
        fs::write(tmp.join("t/sub/a"), b"inside").unwrap();
        fs::write(tmp.join("other/secret"), b"secret").unwrap();
        std::os::unix::fs::symlink(tmp.join("other/secret"), tmp.join("t/link")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", tmp.join("t/zero")).unwrap();
        let s = Scope::new(&tmp.join("t"), false).unwrap();
        let by = tmp.join("t/commit.json");
        assert_eq!(
            s.read(&tmp.join("t/sub/../sub/a"), "x", &by, 10).unwrap(),
            b"inside"
        );
        for p in ["t/../other/secret", "t/link"] {
            let e = s.read(&tmp.join(p), "DV file", &by, 10).unwrap_err();
            assert!(matches!(e, Error::OutsideTable { .. }), "{e}");
            assert!(e.to_string().contains("DV file"), "{e}");
            assert_eq!(e.path(), by);
        }
        // A link to /dev/zero is outside; allowed outside, it is still no
        // regular file.
        let e = s.read(&tmp.join("t/zero"), "x", &by, 10).unwrap_err();
        assert!(matches!(e, Error::OutsideTable { .. }), "{e}");
        let all = Scope::new(&tmp.join("t"), true).unwrap();
        let e = all.read(&tmp.join("t/zero"), "x", &by, 10).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let e = s.read(&tmp.join("t/sub/a"), "x", &by, 3).unwrap_err();
        assert!(matches!(e, Error::TooLarge { .. }), "{e}");
        // Declared locations and the explicit flag widen the scope.
        let mut d = s.clone();
        d.declare(&tmp.join("other"));
        assert!(d.read(&tmp.join("t/link"), "x", &by, 10).is_ok());
        assert!(all.read(&tmp.join("other/secret"), "x", &by, 10).is_ok());
        let _ = fs::remove_dir_all(&tmp);
    }
}
