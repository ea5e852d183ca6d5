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
//!
//! A table on an object store (its directory an `s3://`, `az://`, ...
//! URL, [`crate::source`]) has one root, its URL prefix: every object its
//! metadata names must lie under it once `.` and `..` are resolved (same
//! scheme family and bucket or container); locations the metadata
//! declares add nothing there. A local path named by a table on a store is
//! never opened, `--allow-outside-table` or not; that flag lets it read
//! other objects on stores. Sizes come from the store (a HEAD, or the GET
//! reply) and are checked against the caps before anything is allocated.

use crate::error::{Error, Result};
use crate::source::{self, Source};
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
    /// Canonical roots: the table directory first (on a store: its URL,
    /// normalized, alone).
    roots: Vec<PathBuf>,
    allow_outside: bool,
    /// The table is on an object store.
    remote: bool,
}

impl Scope {
    /// The scope of the table in `dir`.
    pub(crate) fn new(dir: &Path, allow_outside: bool) -> Result<Scope> {
        if let Some(url) = source::remote_url(dir) {
            let root = source::normalize_url(url).ok_or_else(|| Error::NoTable {
                path: dir.to_path_buf(),
                reason: "the URL climbs above its bucket".into(),
            })?;
            return Ok(Scope {
                roots: vec![PathBuf::from(root)],
                allow_outside,
                remote: true,
            });
        }
        let root = fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        Ok(Scope {
            roots: vec![root],
            allow_outside,
            remote: false,
        })
    }

    /// Whether the table is on an object store.
    pub(crate) fn is_remote(&self) -> bool {
        self.remote
    }

    /// Also allow files under `dir` (a location the table declares for its
    /// files). A location that does not exist here adds nothing; on a
    /// store, no declared location widens the table's prefix.
    pub(crate) fn declare(&mut self, dir: &Path) {
        if self.remote {
            return;
        }
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
        if self.remote {
            return self.check_remote(path, what, referrer);
        }
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

    /// [`Scope::check`] for a table on a store: `path` must be a URL that
    /// lies under the table's prefix once resolved (any store URL with
    /// `--allow-outside-table`; a local path never).
    fn check_remote(&self, path: &Path, what: &str, referrer: &Path) -> Result<PathBuf> {
        let outside = || Error::OutsideTable {
            path: referrer.to_path_buf(),
            what: what.to_string(),
            target: path.to_path_buf(),
            root: self.roots[0].clone(),
        };
        let Some(url) = source::remote_url(path) else {
            if self.allow_outside {
                return Err(Error::Invalid {
                    path: referrer.to_path_buf(),
                    reason: format!(
                        "{what} {} is a local path: a table on an object store is read from the store only",
                        path.display()
                    ),
                });
            }
            return Err(outside());
        };
        let real = source::normalize_url(url).ok_or_else(outside)?;
        let inside = self
            .roots
            .iter()
            .any(|r| r.to_str().is_some_and(|r| source::url_under(&real, r)));
        if inside || self.allow_outside {
            Ok(PathBuf::from(real))
        } else {
            Err(outside())
        }
    }

    /// Open `path` for reading after [`Scope::check`]: a regular file of
    /// at most `cap` bytes (on a store: an object of at most `cap` bytes,
    /// read by ranged GETs). Returns the file and its length.
    pub(crate) fn open(
        &self,
        path: &Path,
        what: &str,
        referrer: &Path,
        cap: u64,
    ) -> Result<(Source, u64)> {
        let real = self.check(path, what, referrer)?;
        if let Some(url) = source::remote_url(&real) {
            let len = stores::size(url).map_err(|e| source::remote_err(path, e, cap))?;
            if len > cap {
                return Err(Error::TooLarge {
                    path: path.to_path_buf(),
                    size: len,
                    cap,
                });
            }
            return Ok((Source::remote(url, len), len));
        }
        open_regular(&real, path, cap).map(|(f, len)| (Source::Local(f), len))
    }

    /// Read all of `path` (see [`Scope::open`]).
    pub(crate) fn read(
        &self,
        path: &Path,
        what: &str,
        referrer: &Path,
        cap: u64,
    ) -> Result<Vec<u8>> {
        let real = self.check(path, what, referrer)?;
        if let Some(url) = source::remote_url(&real) {
            return stores::read_capped(url, cap).map_err(|e| source::remote_err(path, e, cap));
        }
        let (f, len) = open_regular(&real, path, cap)?;
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

    #[test]
    fn objects_outside_the_table_prefix_are_refused() {
        // No request is made: the checks are on the URLs alone.
        let s = Scope::new(Path::new("s3://bucket/wh/t/"), false).unwrap();
        assert!(s.is_remote());
        let by = Path::new("s3://bucket/wh/t/_delta_log/00000000000000000001.json");
        for inside in [
            "s3://bucket/wh/t/deletion_vector_x.bin",
            "s3a://bucket/wh/t/a/../deletion_vector_x.bin",
            "S3://bucket/wh/t/./_delta_log/x.json",
        ] {
            let got = s.check(Path::new(inside), "x", by).unwrap();
            assert!(got.to_str().unwrap().contains("/wh/t/"), "{inside}");
        }
        for outside in [
            "s3://bucket/wh/t2/x.bin",
            "s3://bucket/wh/t/../t2/x.bin",
            "s3://bucket/wh/t/../../../../x.bin",
            "s3://other/wh/t/x.bin",
            "gs://bucket/wh/t/x.bin",
            "/etc/passwd",
            "wh/t/x.bin",
        ] {
            let e = s.check(Path::new(outside), "DV file", by).unwrap_err();
            assert!(matches!(e, Error::OutsideTable { .. }), "{outside}: {e}");
            assert_eq!(e.path(), by);
        }
        // Declared locations add nothing on a store.
        let mut d = s.clone();
        d.declare(Path::new("s3://bucket/wh"));
        assert!(d.check(Path::new("s3://bucket/wh/t2/x"), "x", by).is_err());
        // `--allow-outside-table` reads other objects, never a local file.
        let all = Scope::new(Path::new("s3://bucket/wh/t"), true).unwrap();
        assert!(all.check(Path::new("s3://other/x"), "x", by).is_ok());
        let e = all.check(Path::new("/etc/passwd"), "x", by).unwrap_err();
        assert!(e.to_string().contains("is a local path"), "{e}");
    }
}
