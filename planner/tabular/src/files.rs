//! Where results go: a file written atomically (a temporary file beside
//! it, renamed over the name when complete), standard output, and output
//! directories that remember which files are lakeaudit's own.

use crate::{Error, Result};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// An output file being written: a temporary file beside it, renamed over
/// the name by [`AtomicFile::commit`]. Until then the old file (if any) is
/// untouched; a write that fails or is abandoned removes the temporary
/// file. The rename replaces a symbolic link at the name instead of
/// following it, so an output never writes through a link into another
/// file.
pub struct AtomicFile {
    tmp: Option<PathBuf>,
    dest: PathBuf,
    file: BufWriter<File>,
}

impl AtomicFile {
    /// Starts writing `dest`. Refused when `dest` is a directory or a
    /// symbolic link to one (replacing the link would surprise as much as
    /// following it).
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        if let Ok(meta) = std::fs::symlink_metadata(dest) {
            if meta.is_dir() {
                return Err(Error::IsDirectory(dest.to_path_buf()));
            }
            if meta.file_type().is_symlink() && dest.is_dir() {
                return Err(Error::LinkToDirectory(dest.to_path_buf()));
            }
        }
        if let Some(f) = Self::stream(dest)? {
            return Ok(AtomicFile {
                tmp: None,
                dest: dest.to_path_buf(),
                file: BufWriter::new(f),
            });
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .ok_or_else(|| Error::NoFileName(dest.to_path_buf()))?;
        static SEQ: AtomicU64 = AtomicU64::new(0);
        for _ in 0..100 {
            let n = SEQ.fetch_add(1, Ordering::Relaxed);
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".lakeaudit-{}-{n}.tmp", std::process::id()));
            let tmp = dir.join(tmp_name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(f) => {
                    return Ok(AtomicFile {
                        tmp: Some(tmp),
                        dest: dest.to_path_buf(),
                        file: BufWriter::new(f),
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::file("create", dest, e)),
            }
        }
        Err(Error::NoTempName(dest.to_path_buf()))
    }

    /// A name that is a pipe or a terminal rather than a file
    /// (`--apps /dev/fd/3`, `-o /dev/stdout`, a FIFO) is written in place:
    /// there is nothing to replace. A character device reached through a
    /// link counts only when the name given is under `/dev` (a link planted
    /// in an output directory is replaced, never followed into a device).
    fn stream(dest: &Path) -> Result<Option<File>> {
        use std::os::unix::fs::FileTypeExt;
        let Ok(meta) = std::fs::metadata(dest) else {
            return Ok(None);
        };
        let ft = meta.file_type();
        let linked = std::fs::symlink_metadata(dest).is_ok_and(|m| m.file_type().is_symlink());
        let direct = ft.is_fifo() || (ft.is_char_device() && (!linked || dest.starts_with("/dev")));
        if !direct {
            return Ok(None);
        }
        std::fs::OpenOptions::new()
            .write(true)
            .open(dest)
            .map(Some)
            .map_err(|e| Error::file("write", dest, e))
    }

    /// Flushes the file to disk and renames it over the name.
    pub fn commit(mut self) -> Result<()> {
        let dest = self.dest.clone();
        let err = |e| Error::file("write", &dest, e);
        self.file.flush().map_err(err)?;
        if let Some(tmp) = self.tmp.take() {
            self.file.get_ref().sync_all().map_err(err)?;
            if let Err(e) = std::fs::rename(&tmp, &self.dest) {
                let _ = std::fs::remove_file(&tmp);
                return Err(err(e));
            }
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Where one output goes: a file (written atomically, see [`AtomicFile`])
/// or standard output. [`Out::finish`] ends it; an `Out` dropped without
/// it leaves no file behind (and the old one in place).
pub enum Out {
    /// `-o FILE` / a file in the output directory.
    File(AtomicFile),
    /// Standard output.
    Stdout(BufWriter<io::StdoutLock<'static>>),
}

impl Out {
    /// Flushes, and for a file renames it over its name.
    pub fn finish(self) -> Result<()> {
        match self {
            Out::File(f) => f.commit(),
            Out::Stdout(mut o) => Ok(o.flush()?),
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::File(f) => f.write(buf),
            Out::Stdout(o) => o.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            Out::Stdout(o) => o.flush(),
        }
    }
}

/// Open one output: the file `path` or standard output. Every output
/// lakeaudit writes is opened here.
pub fn open_out(path: Option<&Path>) -> Result<Out> {
    Ok(match path {
        Some(p) => Out::File(AtomicFile::create(p)?),
        None => Out::Stdout(BufWriter::new(io::stdout().lock())),
    })
}

/// The file in an output directory that lists what lakeaudit wrote there.
pub const MANIFEST: &str = ".lakeaudit-outputs";

/// An output directory (`analyze --out DIR`, `tables --out DIR`): what
/// lakeaudit writes there, so that a later run replaces only its own files.
///
/// A directory holding files lakeaudit did not write is refused (unless
/// `--force`); which files are its own is read from the directory's
/// [`MANIFEST`], or, for a directory without one, from `known` (the names
/// the command writes). After a run, [`OutDir::finish`] removes the files an
/// earlier run wrote that this run did not (an earlier `--tables` run's
/// `table_state.csv`, say), and writes the new manifest.
pub struct OutDir {
    dir: PathBuf,
    earlier: std::collections::BTreeSet<String>,
    written: std::collections::BTreeSet<String>,
}

impl OutDir {
    /// Checks `dir` and creates it if needed; nothing is written yet.
    pub fn prepare(dir: &Path, known: &[&str], force: bool) -> Result<OutDir> {
        if let Ok(meta) = std::fs::metadata(dir) {
            if !meta.is_dir() {
                return Err(Error::NotADirectory(dir.to_path_buf()));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::file("create", dir, e))?;
        let manifest = dir.join(MANIFEST);
        let earlier: std::collections::BTreeSet<String> = match std::fs::read_to_string(&manifest) {
            Ok(text) => text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                // Only plain names in this directory count as ours.
                .filter(|l| !l.contains(['/', '\\']) && *l != "." && *l != "..")
                .map(str::to_string)
                .collect(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                known.iter().map(|s| s.to_string()).collect()
            }
            Err(e) => return Err(Error::file("read", &manifest, e)),
        };
        let mut foreign = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| Error::file("read", dir, e))? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name != MANIFEST && !earlier.contains(&name) && !is_temp_name(&name) {
                foreign.push(name);
            }
        }
        foreign.sort();
        if !foreign.is_empty() && !force {
            return Err(Error::Foreign {
                dir: dir.to_path_buf(),
                files: foreign,
            });
        }
        Ok(OutDir {
            dir: dir.to_path_buf(),
            earlier,
            written: Default::default(),
        })
    }

    /// The path of output `name` in the directory, recorded as written.
    pub fn file(&mut self, name: &str) -> PathBuf {
        self.written.insert(name.to_string());
        self.dir.join(name)
    }

    /// Leave out `name`, which [`OutDir::file`] named but this run does
    /// not write after all (an earlier run's copy is removed by
    /// [`OutDir::finish`]).
    pub fn forget(&mut self, name: &str) {
        self.written.remove(name);
    }

    /// Removes the earlier run's outputs this run did not write, and
    /// writes the manifest of this run's.
    pub fn finish(self) -> Result<()> {
        for stale in self.earlier.difference(&self.written) {
            let p = self.dir.join(stale);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_file() || m.file_type().is_symlink() => {
                    std::fs::remove_file(&p).map_err(|e| Error::file("remove stale", &p, e))?;
                }
                _ => {}
            }
        }
        let mut text = String::from(
            "# Files lakeaudit wrote in this directory; a later run replaces them and removes\n\
             # those it does not write again. Other files make it refuse the directory.\n",
        );
        for n in &self.written {
            text.push_str(n);
            text.push('\n');
        }
        let mut out = open_out(Some(&self.dir.join(MANIFEST)))?;
        out.write_all(text.as_bytes())?;
        out.finish()
    }
}

/// A temporary file [`AtomicFile`] left behind by a run that was killed.
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp") && name.contains(".lakeaudit-")
}
