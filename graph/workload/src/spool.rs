//! Executions read from logs without keeping them in memory
//! ([`LogSpool`]): each is written, encoded as MessagePack (with field
//! names: `rmp_serde::to_vec_named`), to a buffer the moment it
//! ends; a full buffer is sorted by (log, execution id, order of ending)
//! and written to one unlinked file in the temporary directory, each log's
//! share as a zstd frame of its own. When every log is read, the copies of
//! an application read twice are decided (`parsers::events::merge_apps`)
//! and [`LogSpool::each`] gives the kept logs' executions back in the
//! order and with the content a load into memory would give: by (app id,
//! execution id), a log's frames merged, path reads of a catalog table's
//! location named by the catalog name.
//!
//! What is held while reading is the buffer (at most 16 MiB) and,
//! per log, its census, its (table, location) pairs and the place of its
//! frames: memory grows with the logs and tables, not with the executions.

use crate::bounds::{Tally, Verdict};
use crate::error::{Error, Result};
use crate::exec::{exec_of, rename_paths, Census, Exec};
use crate::identity::{single_path, Locations};
use crate::ingest::{ingest, Ingested};
use crate::time::TimeRange;
use parsers::events::ReadOptions;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::sync::Mutex;

/// Bytes of encoded executions buffered before they are sorted and written.
const RUN_BYTES: usize = 16 << 20;

/// Executions decoded at once (in parallel).
const PARSE_BATCH: usize = 512;

/// The zstd window of a frame (2^15 bytes): what each frame being merged
/// holds in memory besides its current execution.
const WINDOW_LOG: u32 = 15;

/// Frames of one log merged at once: a log with more is merged down first
/// ([`merge_down`]).
const FAN_IN: usize = 64;

/// The read buffer of a frame being merged.
const READ_BUF: usize = 16 << 10;

/// One log's frame in the spool file.
#[derive(Clone, Copy, Debug)]
struct Frame {
    at: u64,
    len: u64,
}

/// Where an execution or a scan comes in its log's order: execution id,
/// order of ending (then, for a scan, its index in the execution).
type Place = (u64, u64, usize);

/// What is kept of one log while it is read.
#[derive(Default)]
struct LogSeen {
    census: Census,
    /// Each table its scans name, with the first place it is read at each
    /// location that matters to the table identities.
    scans: HashMap<String, TableSeen>,
    frames: Vec<Frame>,
}

/// Where one table is first read: at no single location (none printed,
/// or a list of partition directories, which [`Locations::observe`] does
/// not record), and at each single location.
#[derive(Default)]
struct TableSeen {
    nowhere: Option<Place>,
    at: HashMap<String, Place>,
}

/// The buffer and the spool file, shared by the reading threads.
struct Writer {
    file: File,
    end: u64,
    buf: Vec<u8>,
    /// (log, execution id, order of ending, offset in `buf`, length).
    index: Vec<(u32, u64, u64, usize, usize)>,
    logs: HashMap<String, u32>,
    seen: Vec<LogSeen>,
    next: u64,
    failed: Option<std::io::Error>,
    /// Executions left out or changed ([`crate::bounds`]), per log.
    tally: Tally,
}

fn spooling(source: std::io::Error) -> Error {
    Error::Spool {
        what: "cannot write or read the spooled executions in the temporary directory",
        source,
    }
}

impl Writer {
    fn push(&mut self, e: &Exec, json: &[u8], range: &TimeRange) {
        let r = &e.record;
        let log = match self.logs.get(&r.log) {
            Some(&i) => i,
            None => {
                let i = self.seen.len() as u32;
                self.logs.insert(r.log.clone(), i);
                self.seen.push(LogSeen::default());
                i
            }
        };
        let seq = self.next;
        self.next += 1;
        let seen = &mut self.seen[log as usize];
        seen.census.add(r.start_ms, r.is_command, range);
        for (k, s) in r.scans.iter().enumerate() {
            let at = (r.execution_id, seq, k);
            let table = match seen.scans.get_mut(&s.table) {
                Some(t) => t,
                None => seen.scans.entry(s.table.clone()).or_default(),
            };
            // Only a single location is observed: any other reads as none
            // (the same to `Locations::observe`), so a partitioned table's
            // many partition lists are one entry.
            // A catalog table with no printed location is where the log's
            // catalog settings put it.
            let location = s.location.as_deref().or(s.catalog_location.as_deref());
            let first = match location.filter(|l| single_path(l).is_some()) {
                None => &mut table.nowhere,
                Some(l) => match table.at.get_mut(l) {
                    Some(p) => {
                        *p = (*p).min(at);
                        continue;
                    }
                    None => {
                        table.at.insert(l.to_string(), at);
                        continue;
                    }
                },
            };
            *first = Some(first.map_or(at, |p| p.min(at)));
        }
        if self.buf.len() + json.len() > self.buf.capacity() {
            self.flush();
        }
        self.index
            .push((log, r.execution_id, seq, self.buf.len(), json.len()));
        self.buf.extend_from_slice(json);
    }

    /// Write the buffer out, each log's executions in order as one frame.
    fn flush(&mut self) {
        if self.index.is_empty() || self.failed.is_some() {
            self.index.clear();
            self.buf.clear();
            return;
        }
        self.index
            .sort_unstable_by_key(|&(log, exec, seq, ..)| (log, exec, seq));
        let mut i = 0;
        while i < self.index.len() {
            let log = self.index[i].0;
            let n = self.index[i..].iter().take_while(|x| x.0 == log).count();
            match self.write_frame(&self.index[i..i + n]) {
                Ok(frame) => {
                    self.end = frame.at + frame.len;
                    self.seen[log as usize].frames.push(frame);
                }
                Err(e) => {
                    self.failed = Some(e);
                    break;
                }
            }
            i += n;
        }
        self.index.clear();
        self.buf.clear();
    }

    fn write_frame(&self, entries: &[(u32, u64, u64, usize, usize)]) -> std::io::Result<Frame> {
        let mut w = FrameWriter::new(&self.file, self.end)?;
        for &(_, exec, seq, at, len) in entries {
            w.put((exec, seq), &self.buf[at..at + len])?;
        }
        w.finish()
    }
}

/// A frame being written at the end of the spool file.
struct FrameWriter<'a> {
    z: zstd::stream::write::Encoder<'static, std::io::BufWriter<FileAt<'a>>>,
    start: u64,
}

impl<'a> FrameWriter<'a> {
    fn new(file: &'a File, start: u64) -> std::io::Result<Self> {
        let out = std::io::BufWriter::with_capacity(1 << 16, FileAt { file, at: start });
        let mut z = zstd::stream::write::Encoder::new(out, 1)?;
        z.window_log(WINDOW_LOG)?;
        Ok(FrameWriter { z, start })
    }

    /// Append one execution: its (execution id, order of ending), its encoding.
    fn put(&mut self, (exec, seq): (u64, u64), json: &[u8]) -> std::io::Result<()> {
        self.z.write_all(&exec.to_le_bytes())?;
        self.z.write_all(&seq.to_le_bytes())?;
        self.z.write_all(&(json.len() as u64).to_le_bytes())?;
        self.z.write_all(json)
    }

    fn finish(self) -> std::io::Result<Frame> {
        let out = self.z.finish()?.into_inner().map_err(|e| e.into_error())?;
        Ok(Frame {
            at: self.start,
            len: out.at - self.start,
        })
    }
}

/// Merge `frames` (each in key order): `f` gets every execution's key and
/// encodings in key order. Holds one reader per frame.
fn merge<E: From<Error>>(
    file: &File,
    frames: &[Frame],
    mut f: impl FnMut((u64, u64), Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let mut readers = frames
        .iter()
        .map(|fr| FrameReader::open(file, *fr))
        .collect::<Result<Vec<_>>>()?;
    let mut heap = BinaryHeap::with_capacity(readers.len());
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(key) = r.next_key()? {
            heap.push(std::cmp::Reverse((key, i)));
        }
    }
    while let Some(std::cmp::Reverse((key, i))) = heap.pop() {
        f(key, readers[i].body()?)?;
        if let Some(key) = readers[i].next_key()? {
            heap.push(std::cmp::Reverse((key, i)));
        }
    }
    Ok(())
}

/// Merge a log's frames, `fan_in` at a time, into new frames at the end
/// of the file until at most `fan_in` are left: a pass holds one reader
/// per frame, so a log of millions of executions is read back in bounded
/// memory. Gives the new end of the file.
fn merge_down(file: &File, frames: &mut Vec<Frame>, mut end: u64, fan_in: usize) -> Result<u64> {
    let fan_in = fan_in.max(2);
    while frames.len() > fan_in {
        let mut merged = Vec::with_capacity(frames.len().div_ceil(fan_in));
        for group in frames.chunks(fan_in) {
            let mut w = FrameWriter::new(file, end).map_err(spooling)?;
            merge(file, group, |key, json| w.put(key, &json).map_err(spooling))?;
            let frame = w.finish().map_err(spooling)?;
            end = frame.at + frame.len;
            merged.push(frame);
        }
        *frames = merged;
    }
    Ok(end)
}

/// A file written or read at an offset of its own (so that several frames
/// or runs can be read at once).
pub(crate) struct FileAt<'a> {
    pub(crate) file: &'a File,
    pub(crate) at: u64,
}

/// Read the fixed-size head of the next entry of a spooled stream:
/// `false` at the stream's clean end.
pub(crate) fn read_head(z: &mut impl Read, head: &mut [u8; 24]) -> std::io::Result<bool> {
    match z.read_exact(head) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

impl Write for FileAt<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Read for FileAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The executions of some logs, spooled: read them with
/// [`LogSpool::each`], as many times as needed.
pub struct LogSpool {
    file: File,
    /// The kept logs' frames, in the order of their applications.
    kept: Vec<Vec<Frame>>,
    locations: Locations,
}

impl LogSpool {
    /// Read every application under `paths` ([`ingest`]) into a spool;
    /// `range` (`--since`/`--until`) is what the [`Census`] of the kept
    /// applications counts as selected. Gives the applications, errors and
    /// warnings (no record: they are in the spool), the census and the
    /// spool.
    pub fn read(
        paths: &[String],
        stdin_name: Option<&str>,
        options: &ReadOptions,
        range: &TimeRange,
    ) -> Result<(Ingested<()>, Census, LogSpool)> {
        Self::read_with(paths, stdin_name, options, range, (RUN_BYTES, FAN_IN))
    }

    /// [`LogSpool::read`] with a buffer of `run_bytes` and merges of
    /// `fan_in` frames.
    fn read_with(
        paths: &[String],
        stdin_name: Option<&str>,
        options: &ReadOptions,
        range: &TimeRange,
        (run_bytes, fan_in): (usize, usize),
    ) -> Result<(Ingested<()>, Census, LogSpool)> {
        let file = spool_file()?;
        let writer = Mutex::new(Writer {
            file: file.try_clone().map_err(spooling)?,
            end: 0,
            buf: Vec::new(),
            index: Vec::new(),
            logs: HashMap::new(),
            seen: Vec::new(),
            next: 0,
            failed: None,
            tally: Tally::default(),
        });
        let mut data = ingest(paths, stdin_name, options, |record, plans| {
            let mut e = exec_of(record, plans);
            // Times outside the plausible range leave the execution out;
            // figures that cannot be true are read as none or 0.
            let verdict = crate::bounds::check_record(&mut e.record);
            let json = match verdict {
                Verdict::LeftOut(_) => Ok(Vec::new()),
                Verdict::Keep(_) => rmp_serde::to_vec_named(&e),
            };
            let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
            // An execution that does not encode fails the run (as a
            // spool that cannot be written does), never spools as empty.
            let json = match json {
                Ok(json) => json,
                Err(err) => {
                    w.failed.get_or_insert(std::io::Error::other(format!(
                        "execution {} of {} does not encode: {err}",
                        e.record.execution_id, e.record.log
                    )));
                    return;
                }
            };
            let what = || format!("execution {}", e.record.execution_id);
            if !w.tally.verdict(&e.record.log, what, &verdict) {
                return;
            }
            if w.buf.capacity() == 0 {
                // Allocated once, when the first execution ends: grown by
                // doubling, the buffer would pass its budget by half again.
                w.buf.reserve_exact(run_bytes);
            }
            w.push(&e, &json, range);
        });
        let mut w = writer.into_inner().unwrap_or_else(|p| p.into_inner());
        w.flush();
        if let Some(e) = w.failed {
            return Err(spooling(e));
        }
        let (errors, warnings) = w.tally.lines();
        data.errors.extend(errors);
        data.warnings.extend(warnings);
        let mut seen = w.seen;
        let mut census = Census::default();
        let mut kept = Vec::with_capacity(data.apps.len());
        let mut locations = Locations::default();
        for a in &data.apps {
            // A log a panic left out keeps none of the executions it gave
            // before the panic.
            let Some(&i) = w
                .logs
                .get(&a.log)
                .filter(|_| !data.left_out.contains(&a.log))
            else {
                continue;
            };
            let mut frames = std::mem::take(&mut seen[i as usize].frames);
            w.end = merge_down(&file, &mut frames, w.end, fan_in)?;
            kept.push(frames);
            let s = &seen[i as usize];
            census.merge(&s.census);
            // Every (table, location) observed in the order a pass over
            // the kept executions meets it first.
            let mut scans: Vec<(Place, &str, Option<&str>)> = Vec::new();
            for (table, seen) in &s.scans {
                if let Some(at) = seen.nowhere {
                    scans.push((at, table, None));
                }
                for (loc, at) in &seen.at {
                    scans.push((*at, table, Some(loc.as_str())));
                }
            }
            scans.sort_unstable();
            for &(_, table, loc) in &scans {
                locations.observe(table, loc);
            }
        }
        data.locations = locations.clone();
        Ok((
            data,
            census,
            LogSpool {
                file,
                kept,
                locations,
            },
        ))
    }

    /// Call `f` with every kept execution, in order, its path reads of a
    /// catalog table's location named by the catalog name
    /// ([`rename_paths`]).
    pub fn each<E: From<Error>>(&self, mut f: impl FnMut(Exec) -> Result<(), E>) -> Result<(), E> {
        use rayon::prelude::*;
        let mut batch: Vec<Vec<u8>> = Vec::with_capacity(PARSE_BATCH);
        let mut give = |batch: &mut Vec<Vec<u8>>| -> Result<(), E> {
            let execs: Vec<Result<Exec>> = batch
                .par_iter()
                .map(|json| {
                    let mut e: Exec = rmp_serde::from_slice(json)?;
                    rename_paths(&self.locations, &mut e);
                    Ok(e)
                })
                .collect();
            batch.clear();
            for e in execs {
                f(e?)?;
            }
            Ok(())
        };
        for frames in &self.kept {
            merge::<E>(&self.file, frames, |_, json| {
                batch.push(json);
                if batch.len() == PARSE_BATCH {
                    give(&mut batch)?;
                }
                Ok(())
            })?;
        }
        give(&mut batch)
    }
}

/// One frame being read: its executions' keys, then their encodings.
struct FrameReader<'a> {
    z: zstd::stream::read::Decoder<'static, std::io::BufReader<std::io::Take<FileAt<'a>>>>,
    len: usize,
}

impl<'a> FrameReader<'a> {
    fn open(file: &'a File, fr: Frame) -> Result<Self> {
        let at = FileAt { file, at: fr.at }.take(fr.len);
        let z = zstd::stream::read::Decoder::with_buffer(std::io::BufReader::with_capacity(
            READ_BUF, at,
        ))
        .map_err(spooling)?;
        Ok(FrameReader { z, len: 0 })
    }

    /// The (execution id, order of ending) of the next execution.
    fn next_key(&mut self) -> Result<Option<(u64, u64)>> {
        let mut head = [0u8; 24];
        if !read_head(&mut self.z, &mut head).map_err(spooling)? {
            return Ok(None);
        }
        let long = |a: usize| u64::from_le_bytes(head[a..a + 8].try_into().unwrap_or_default());
        self.len = long(16) as usize;
        Ok(Some((long(0), long(8))))
    }

    /// The encoding of the execution whose key was read last.
    fn body(&mut self) -> Result<Vec<u8>> {
        let mut body = vec![0; self.len];
        self.z.read_exact(&mut body).map_err(spooling)?;
        Ok(body)
    }
}

/// A new file in the temporary directory, unlinked at once: it holds the
/// spooled records while it is open and disappears with the process.
pub(crate) fn spool_file() -> Result<File> {
    let dir = std::env::temp_dir();
    for n in 0..100u32 {
        let p = dir.join(format!(".lakeaudit-spool-{}-{n}", std::process::id()));
        // Readable by this user only from the moment it exists: the
        // temporary directory may be shared.
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sample (copies of one application, rolling logs, logs that
    /// end executions out of order, path reads of catalog tables), read
    /// as a load into memory would read it.
    fn in_memory() -> (Vec<String>, Vec<(String, u64, serde_json::Value)>, Census) {
        let paths = vec![concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples").to_string()];
        let data = ingest(&paths, None, &ReadOptions::default(), exec_of);
        let mut locations = Locations::default();
        for e in &data.records {
            for s in &e.record.scans {
                locations.observe(&s.table, s.location.as_deref());
            }
        }
        let census = Census::of(&data.records, &TimeRange::default());
        let execs = data
            .records
            .into_iter()
            .map(|mut e| {
                rename_paths(&locations, &mut e);
                let v = serde_json::to_value(&e).unwrap();
                (e.record.app_id, e.record.execution_id, v)
            })
            .collect();
        (paths, execs, census)
    }

    #[test]
    fn the_spool_file_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        // Whatever the umask (the usual 022 gives 0644 to a plain create).
        let f = spool_file().unwrap();
        let mode = f.metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    }

    #[test]
    fn spooled_executions_come_back_as_from_memory_whatever_the_frames() {
        let (paths, want, census) = in_memory();
        assert!(want.len() > 100, "{}", want.len());
        // One frame per execution, merged down two at a time; a few
        // executions a frame; the default.
        for sizes in [(1, 2), (20_000, 3), (RUN_BYTES, FAN_IN)] {
            let (data, c, spool) = LogSpool::read_with(
                &paths,
                None,
                &ReadOptions::default(),
                &TimeRange::default(),
                sizes,
            )
            .unwrap();
            assert_eq!(c, census, "{sizes:?}");
            // The identities were observed: catalog tables at their
            // locations.
            assert!(!spool.locations.is_empty());
            assert!(spool.kept.iter().all(|f| f.len() <= sizes.1.max(2)));
            assert_eq!(spool.kept.len(), data.apps.len());
            // Twice: each pass reads the spool again.
            for _ in 0..2 {
                let mut got = Vec::new();
                spool
                    .each(|e| {
                        let v = serde_json::to_value(&e).unwrap();
                        got.push((e.record.app_id, e.record.execution_id, v));
                        Ok::<_, Error>(())
                    })
                    .unwrap();
                assert_eq!(got.len(), want.len(), "{sizes:?}");
                assert!(got == want, "{sizes:?}: not the executions in memory");
            }
        }
    }
}
