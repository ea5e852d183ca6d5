//! Executions read from logs without keeping them in memory: each is
//! written to a spool file (an unlinked file in the temporary directory)
//! the moment it ends, and only its place there is kept, 16 bytes,
//! instead of the record (about 4 KB for a tiny execution). When every log
//! is read, [`Spool::exec`] gives them back in the order and with the
//! bytes a load into memory ([`crate::exec::load`]) gives: sorted by (app
//! id, execution id), duplicates of an application dropped, and path reads
//! of a catalog table's location named by the catalog name (which needs
//! every record seen, so nothing can be given back before the last log
//! ends).

use crate::error::{Error, Result};
use crate::exec::{exec_of, rename_paths, Exec};
use crate::identity::Locations;
use crate::ingest::{ingest, Ingested};
use parsers::events::ReadOptions;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// Where one execution's JSON line sits in the spool file.
#[derive(Clone, Copy, Debug)]
pub struct Spooled {
    at: u64,
    len: u64,
}

/// The executions of some logs, spooled.
pub struct Spool {
    file: File,
    /// The applications, errors and warnings of the logs, and where each
    /// kept execution sits in the spool, in order.
    pub data: Ingested<Spooled>,
}

impl Spool {
    /// Read every application under `paths` ([`ingest`]) into a spool.
    pub fn read_logs(
        paths: &[String],
        stdin_name: Option<&str>,
        options: &ReadOptions,
    ) -> Result<Spool> {
        let file = spool_file()?;
        let writing = |source| Error::Spool {
            what: "cannot write the spool file in the temporary directory",
            source,
        };
        let writer = Mutex::new((
            BufWriter::with_capacity(1 << 20, file.try_clone().map_err(writing)?),
            0u64,
            None::<std::io::Error>,
        ));
        let data = ingest(paths, stdin_name, options, |record, plans| {
            let e = exec_of(record, plans);
            let line = serde_json::to_vec(&e).unwrap_or_default();
            let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
            let at = w.1;
            if let Err(err) = w.0.write_all(&line) {
                w.2.get_or_insert(err);
            }
            w.1 += line.len() as u64;
            Spooled {
                at,
                len: line.len() as u64,
            }
        });
        let (mut w, _, failed) = writer.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = failed {
            return Err(writing(e));
        }
        w.flush().map_err(writing)?;
        drop(w);
        let mut spool = Spool { file, data };
        // The locations of the kept records' scans.
        #[derive(serde::Deserialize)]
        struct ScanAt {
            table: String,
            location: Option<String>,
        }
        #[derive(serde::Deserialize)]
        struct Scans {
            scans: Vec<ScanAt>,
        }
        let mut locations = Locations::default();
        for s in &spool.data.records {
            let scans: Scans = serde_json::from_slice(&spool.raw(s)?)?;
            for sc in scans.scans {
                locations.observe(&sc.table, sc.location.as_deref());
            }
        }
        spool.data.locations = locations;
        Ok(spool)
    }

    /// The JSON line of a spooled execution as it was read (without its
    /// newline), before any path read is renamed.
    pub fn raw(&self, s: &Spooled) -> Result<Vec<u8>> {
        let mut buf = vec![0; s.len as usize];
        self.file
            .read_exact_at(&mut buf, s.at)
            .map_err(|source| Error::Spool {
                what: "cannot read the spool file back",
                source,
            })?;
        Ok(buf)
    }

    /// A spooled execution, its path reads of a catalog table's location
    /// named by the catalog name ([`rename_paths`]).
    pub fn exec(&self, s: &Spooled) -> Result<Exec> {
        let mut e: Exec = serde_json::from_slice(&self.raw(s)?)?;
        rename_paths(&self.data.locations, &mut e);
        Ok(e)
    }

    /// Whether some path read is renamed: when none is, [`Spool::raw`]
    /// lines are the executions' JSON lines as they are.
    pub fn renames(&self) -> bool {
        !self.data.locations.is_empty()
    }
}

/// A new file in the temporary directory, unlinked at once: it holds the
/// spooled records while it is open and disappears with the process.
pub(crate) fn spool_file() -> Result<File> {
    let dir = std::env::temp_dir();
    for n in 0..100u32 {
        let p = dir.join(format!(".lakeaudit-spool-{}-{n}", std::process::id()));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => {
                let _ = std::fs::remove_file(&p);
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(Error::SpoolCreate {
                    dir,
                    source: Some(e),
                })
            }
        }
    }
    Err(Error::SpoolCreate { dir, source: None })
}
