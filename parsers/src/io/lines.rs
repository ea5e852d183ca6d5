//! Streaming line reader over one log input (all its parts, in order).
//!
//! One buffer, reused for the whole input: the decoder fills it, `memchr`
//! finds each newline, and [`LineReader::next_line`] hands out a slice of the
//! buffer, so a line is never copied or allocated. When the buffer ends in
//! the middle of a line, the partial line moves to the front and the buffer
//! is refilled (or grown, for a line longer than the buffer, up to the cap).
//! The buffer plays the role of a `BufReader` over the decoder, without the
//! extra copy that `BufRead::read_until` into a second line buffer would make.
//!
//! With [`LineReader::open_ahead`], each part is decompressed on a helper
//! thread ([`super::ahead`]) while lines are split and handed out here: the
//! buffer is then the chunk the thread filled, taken over whole, and only
//! the partial line at a chunk's end is copied (in front of the next chunk).

use std::fs::File;
use std::io::{self, Read};

use super::ahead::{DecodeAhead, Msg, CHUNK, HEADROOM};
use super::codec::{self, Source};
use super::{Codec, LogInput, Part};
use crate::{Error, Location, Result};

/// Starting buffer size; lines of a few hundred bytes dominate, plan lines
/// reach a few MiB (the buffer grows for those and stays grown).
const INITIAL_BUF: usize = 256 << 10;

/// Reads the decompressed lines of one [`LogInput`], across its parts.
///
/// Makes `buf` (holding one partial line) `len` bytes long, for a line
/// that may grow to `most` bytes under a cap of `max_line`. Its capacity
/// doubles while the line is short; once the line is past 1/32 of the cap,
/// it is set to `most` at once, so that no later growth copies the buffer
/// into one twice its size: memory for one line stays at the cap plus
/// 1/32 of it. (Doubling to the cap held the old buffer and the new one
/// together: a line over the 512 MiB cap peaked at 837 MB, the decoding
/// thread's growth past the cap at more.) Only what the line fills is
/// touched; the rest of the capacity is address space.
fn grow_line(buf: &mut Vec<u8>, len: usize, most: usize, max_line: usize) {
    if len > buf.capacity() {
        let target = if len > max_line / 32 {
            most.max(len)
        } else {
            len.max(buf.capacity().saturating_mul(2))
        };
        buf.reserve_exact(target - buf.len());
    }
    buf.resize(len, 0);
}

/// See the [module documentation](super) for an example.
pub struct LineReader {
    display: String,
    parts: Vec<Part>,
    in_progress: bool,
    max_line: usize,
    /// Index of the part being read (== parts.len() when done).
    part_idx: usize,
    /// Display path of the current part (for errors and `location`).
    part_path: String,
    codec: Codec,
    src: Option<Feed>,
    /// Decompress each part on a helper thread.
    ahead: bool,
    /// The decoder of the current part reported its end (or a tolerated
    /// truncated tail).
    eof: bool,
    buf: Vec<u8>,
    /// Unconsumed bytes are `buf[start..end]`; `buf[start..scan]` holds no newline.
    start: usize,
    scan: usize,
    end: usize,
    /// Decompressed bytes of the current part so far.
    part_bytes: u64,
    /// Line numbers: across parts, and within the current part.
    line_no: u64,
    part_line: u64,
    consumed: u64,
    last_truncated: bool,
    truncated_tail: bool,
    /// Inside a line longer than the cap: its bytes are dropped as they
    /// arrive, up to its newline, and reading goes on after it.
    skipping: bool,
    /// Non-fatal notes (a file whose name and contents disagree on the codec).
    warnings: Vec<String>,
}

impl std::fmt::Debug for LineReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineReader")
            .field("display", &self.display)
            .field("part", &self.part_path)
            .field("line_no", &self.line_no)
            .finish_non_exhaustive()
    }
}

/// What [`LineReader::next_line_info`] says about the line it returns, as a
/// `Copy` value, so that it can be used while the line is still borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineInfo {
    /// [`LineReader::line_no`] of this line.
    pub line_no: u64,
    /// [`LineReader::last_line_truncated`] for this line.
    pub truncated: bool,
    /// Index in [`LogInput::parts`] of the part the line comes from.
    pub part: usize,
    /// The line's number within that part (as [`LineReader::location`]
    /// gives it).
    pub part_line: u64,
}

enum Step {
    Line(usize, usize),
    /// A line over the cap was passed over (and warned about).
    Skipped,
    Done,
}

/// Where the current part's decompressed bytes come from.
enum Feed {
    /// Read (and decoded) on this thread, into the reader's buffer.
    Inline(Box<dyn Read + Send>),
    /// Decoded on a helper thread, in chunks.
    Ahead(DecodeAhead),
}

impl LineReader {
    /// Prepares to read `input`; no line may be longer than `max_line` bytes
    /// (see [`super::DEFAULT_MAX_LINE`]). Opens the first part, so a missing
    /// or unreadable first file is reported here.
    pub fn open(input: &LogInput, max_line: usize) -> Result<LineReader> {
        Self::open_ahead(input, max_line, false)
    }

    /// [`Self::open`], decompressing each part on a helper thread when
    /// `ahead` is true: decompression and line splitting (and whatever the
    /// caller does with the lines) then run in parallel, in order, with at
    /// most a few MiB of decompressed text in flight. The lines, errors and
    /// warnings are the same as with [`Self::open`]. Worth it when a core
    /// is free, e.g. one log read with two threads.
    pub fn open_ahead(input: &LogInput, max_line: usize, ahead: bool) -> Result<LineReader> {
        let mut r = LineReader {
            display: input.display.clone(),
            parts: input.parts.clone(),
            in_progress: input.in_progress,
            max_line,
            part_idx: 0,
            part_path: input.display.clone(),
            codec: Codec::None,
            src: None,
            ahead,
            eof: false,
            buf: vec![0; INITIAL_BUF],
            start: 0,
            scan: 0,
            end: 0,
            part_bytes: 0,
            line_no: 0,
            part_line: 0,
            consumed: 0,
            last_truncated: false,
            truncated_tail: false,
            skipping: false,
            warnings: Vec::new(),
        };
        if r.parts.is_empty() {
            return Err(Error::Input {
                at: r.at(None),
                reason: "log input has no files".into(),
            });
        }
        r.open_part()?;
        Ok(r)
    }

    /// The next line, without its trailing `\n` (and without a `\r` before
    /// it); `Ok(None)` at the end of the last part. The slice borrows the
    /// reader's buffer and is valid until the next call.
    ///
    /// Errors name the part file and the line being read: unreadable file
    /// ([`Error::Io`]), corrupt or truncated compressed data
    /// ([`Error::Codec`]; a truncated tail of an in-progress input is not an
    /// error, see [`Self::truncated_tail`]), and empty files, data that is not
    /// JSON lines, or a line longer than the cap ([`Error::Input`]).
    ///
    /// After an error the input is abandoned: later calls return `Ok(None)`.
    pub fn next_line(&mut self) -> Result<Option<&[u8]>> {
        self.last_truncated = false;
        loop {
            match self.step_or_stop()? {
                Step::Line(a, b) => return Ok(self.buf.get(a..b)),
                Step::Skipped => continue,
                Step::Done => return Ok(None),
            }
        }
    }

    /// [`Self::next_line`] together with the line's [`LineInfo`]: the
    /// returned slice borrows the reader, so `line_no()` and
    /// `last_line_truncated()` cannot be called while it is in use.
    pub fn next_line_info(&mut self) -> Result<Option<(&[u8], LineInfo)>> {
        self.last_truncated = false;
        loop {
            match self.step_or_stop()? {
                Step::Line(a, b) => {
                    let info = LineInfo {
                        line_no: self.line_no,
                        truncated: self.last_truncated,
                        part: self.part_idx,
                        part_line: self.part_line,
                    };
                    return Ok(self.buf.get(a..b).map(|l| (l, info)));
                }
                Step::Skipped => continue,
                Step::Done => return Ok(None),
            }
        }
    }

    /// 1-based number of the line just returned, counting across all parts.
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    /// The current part's path (or the input's display name for standard
    /// input) and the number of the line just returned *within that part*
    /// (equal to [`Self::line_no`] for single-file inputs), so that the
    /// location can be looked up in the file it names.
    pub fn location(&self) -> Location {
        Location {
            path: self.part_path.clone(),
            line: Some(self.part_line),
        }
    }

    /// The line just returned had no newline at the end of an in-progress
    /// input: the application was still writing it, so it may be cut short
    /// (e.g. in the middle of a JSON object). Report it as a warning.
    pub fn last_line_truncated(&self) -> bool {
        self.last_truncated
    }

    /// The in-progress input ended inside a compressed block or frame; the
    /// stream was ended there without an error. Report it as a warning.
    pub fn truncated_tail(&self) -> bool {
        self.truncated_tail
    }

    /// Non-fatal notes about the parts opened so far, `path: note` (a file
    /// whose name says one codec while its magic bytes say another: it is
    /// read as its bytes say). Report them as warnings.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Bytes of decompressed text consumed so far (lines and their newlines).
    pub fn decompressed_bytes(&self) -> u64 {
        self.consumed
    }

    /// Whether the input is an in-progress log (see [`LogInput::in_progress`]).
    pub fn in_progress(&self) -> bool {
        self.in_progress
    }

    fn at(&self, line: Option<u64>) -> Location {
        Location {
            path: self.part_path.clone(),
            line,
        }
    }

    fn is_last_part(&self) -> bool {
        self.part_idx + 1 >= self.parts.len()
    }

    /// Opens `parts[part_idx]` and resets the per-part state.
    fn open_part(&mut self) -> Result<()> {
        let Some(part) = self.parts.get(self.part_idx).cloned() else {
            return Ok(());
        };
        self.part_path = match &part.path {
            Some(p) => p.display().to_string(),
            None => self.display.clone(),
        };
        self.part_line = 0;
        self.part_bytes = 0;
        self.eof = false;
        self.start = 0;
        self.scan = 0;
        self.end = 0;
        let mut raw: Box<dyn Read + Send> = match &part.path {
            // An object on a store (the part's path is its URL): streamed.
            Some(path) if path.to_str().is_some_and(stores::is_remote) => {
                let url = path.to_str().unwrap_or_default();
                let object = stores::open(url).map_err(|e| Error::Input {
                    at: self.at(None),
                    reason: e.why(),
                })?;
                Box::new(Source::new(object))
            }
            Some(path) => {
                let file = File::open(path).map_err(|source| Error::Io {
                    at: self.at(None),
                    source,
                })?;
                Box::new(Source::new(file))
            }
            None => Box::new(Source::new(io::stdin())),
        };
        // The codec comes from the stream's magic bytes; the name (which
        // `part.codec` reflects) only decides when the bytes say nothing.
        let mut head = [0u8; codec::SNIFF_LEN];
        let n = codec::read_head(&mut raw, &mut head).map_err(|e| Error::Io {
            at: self.at(None),
            source: codec::into_source_error(e).unwrap_or_else(|e| e),
        })?;
        let head = head.get(..n).unwrap_or(&[]);
        let codec = if head.is_empty() {
            // Some decoders reject zero bytes; an empty file is reported as
            // empty (finish_part), whatever its codec.
            Codec::None
        } else {
            codec::choose(head, part.codec)
        };
        if codec != part.codec && !head.is_empty() && part.path.is_some() {
            let named = match part.codec {
                Codec::None => "the file name has no codec extension".to_string(),
                c => format!("the file name says {}", c.name()),
            };
            self.warnings.push(format!(
                "{}: {named} but the data is {}; read as such",
                self.part_path,
                codec.describe(),
            ));
        }
        let raw: Box<dyn Read + Send> = Box::new(io::Cursor::new(head.to_vec()).chain(raw));
        self.codec = codec;
        let dec = codec::decoder(codec, raw).map_err(|e| Error::Codec {
            at: self.at(None),
            codec: codec.name(),
            reason: e.to_string(),
        })?;
        self.src = Some(if self.ahead {
            Feed::Ahead(DecodeAhead::spawn(dec).map_err(|source| Error::Io {
                at: self.at(None),
                source,
            })?)
        } else {
            Feed::Inline(dec)
        });
        Ok(())
    }

    /// [`Self::step`], abandoning the input on an error (a decoder that
    /// failed, or a buffer holding part of an over-long line, cannot go on).
    fn step_or_stop(&mut self) -> Result<Step> {
        let r = self.step();
        if r.is_err() {
            self.src = None;
            self.part_idx = self.parts.len();
            self.start = self.end;
            self.scan = self.end;
        }
        r
    }

    fn step(&mut self) -> Result<Step> {
        loop {
            if self.src.is_none() {
                if self.part_idx >= self.parts.len() {
                    return Ok(Step::Done);
                }
                self.open_part()?;
            }
            let unscanned = self.buf.get(self.scan..self.end).unwrap_or(&[]);
            if let Some(i) = memchr::memchr(b'\n', unscanned) {
                let nl = self.scan + i;
                let a = self.start;
                self.start = nl + 1;
                self.scan = self.start;
                if self.skipping {
                    // The newline that ends an over-long line.
                    self.consumed += (nl + 1 - a) as u64;
                    self.skipping = false;
                    continue;
                }
                return self.emit(a, nl, 1);
            }
            self.scan = self.end;
            if self.skipping {
                // Drop what arrived of the over-long line, keep none of it.
                self.consumed += (self.end - self.start) as u64;
                self.start = self.end;
            }
            if self.eof {
                if self.skipping {
                    // The over-long line was the part's last.
                    self.skipping = false;
                }
                if self.start < self.end {
                    // Last line of the part without a newline.
                    let (a, b) = (self.start, self.end);
                    self.start = self.end;
                    self.scan = self.end;
                    self.last_truncated = self.in_progress && self.is_last_part();
                    return self.emit(a, b, 0);
                }
                self.finish_part()?;
                continue;
            }
            self.fill()?;
        }
    }

    /// Accounts for the line `buf[a..b]` followed by `nl` newline bytes.
    fn emit(&mut self, a: usize, b: usize, nl: u64) -> Result<Step> {
        self.line_no += 1;
        self.part_line += 1;
        let len = b - a;
        self.consumed += len as u64 + nl;
        if len > self.max_line {
            self.warn_too_long(self.part_line);
            return Ok(Step::Skipped);
        }
        let b = if nl == 1 && b > a && self.buf.get(b - 1) == Some(&b'\r') {
            b - 1
        } else {
            b
        };
        Ok(Step::Line(a, b))
    }

    /// Warns that line `line` of the current part is over the cap and is
    /// skipped.
    fn warn_too_long(&mut self, line: u64) {
        let at = self.at(Some(line));
        self.warnings.push(format!(
            "{at}: line longer than {} bytes; skipped, reading on after it",
            self.max_line
        ));
    }

    fn finish_part(&mut self) -> Result<()> {
        if self.part_bytes == 0 && !(self.in_progress && self.is_last_part()) {
            return Err(Error::Input {
                at: self.at(None),
                reason: "empty file (no events)".into(),
            });
        }
        self.src = None;
        self.part_idx += 1;
        Ok(())
    }

    /// Reads more decompressed bytes into the buffer (after moving the
    /// partial line to the front, or growing the buffer if it is all one line).
    fn fill(&mut self) -> Result<()> {
        let pending = self.end - self.start;
        if pending > self.max_line && !self.skipping {
            // A line over the cap: count it, drop its bytes as they arrive
            // (`step`) and read on after its newline.
            self.line_no += 1;
            self.part_line += 1;
            let line = self.part_line;
            self.warn_too_long(line);
            self.skipping = true;
            self.consumed += pending as u64;
            self.start = self.end;
            self.scan = self.end;
        }
        if matches!(self.src, Some(Feed::Ahead(_))) {
            return self.fill_ahead();
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.scan -= self.start;
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            // The buffer holds one partial line: grow, but never far past the cap.
            let cap = self.max_line.saturating_add(2).max(self.buf.len() + 1);
            let new_len = self.buf.len().saturating_mul(2).min(cap);
            grow_line(&mut self.buf, new_len, cap, self.max_line);
        }
        let Some(Feed::Inline(src)) = self.src.as_mut() else {
            self.eof = true;
            return Ok(());
        };
        let Some(dst) = self.buf.get_mut(self.end..) else {
            self.eof = true;
            return Ok(());
        };
        let first = self.part_bytes == 0;
        match src.read(dst) {
            Ok(0) => self.eof = true,
            Ok(n) => {
                self.end += n;
                self.part_bytes += n as u64;
                if first {
                    self.check_head()?;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => self.read_error(e)?,
        }
        Ok(())
    }

    /// [`Self::fill`] from the decoding thread: the next chunk becomes the
    /// buffer, with the pending partial line copied into its headroom (or,
    /// for a line longer than that, the chunk is appended to the buffer).
    fn fill_ahead(&mut self) -> Result<()> {
        let Some(Feed::Ahead(ahead)) = self.src.as_ref() else {
            self.eof = true;
            return Ok(());
        };
        let (mut chunk, n) = match ahead.recv() {
            Msg::Data(chunk, n) => (chunk, n),
            Msg::End => {
                self.eof = true;
                return Ok(());
            }
            Msg::Err(e) => return self.read_error(e),
        };
        let first = self.part_bytes == 0;
        let pending = self.end - self.start;
        let scanned = self.scan - self.start;
        let data = HEADROOM..HEADROOM + n;
        if pending <= HEADROOM {
            let at = HEADROOM - pending;
            if let (Some(dst), Some(src)) = (
                chunk.get_mut(at..HEADROOM),
                self.buf.get(self.start..self.end),
            ) {
                dst.copy_from_slice(src);
            }
            let old = std::mem::replace(&mut self.buf, chunk);
            ahead.give_back(old);
            self.start = at;
            self.end = data.end;
        } else {
            // A long line (a plan event): gather it in the buffer.
            self.buf.copy_within(self.start..self.end, 0);
            let end = pending + n;
            if self.buf.len() < end {
                let most = self.max_line.saturating_add(HEADROOM + CHUNK).max(end);
                grow_line(&mut self.buf, end, most, self.max_line);
            }
            if let (Some(dst), Some(src)) = (self.buf.get_mut(pending..end), chunk.get(data)) {
                dst.copy_from_slice(src);
            }
            ahead.give_back(chunk);
            self.start = 0;
            self.end = end;
        }
        self.scan = self.start + scanned;
        self.part_bytes += n as u64;
        if first {
            self.check_head()?;
        }
        Ok(())
    }

    /// The first decompressed bytes of a part must start a JSON object:
    /// anything else is binary data or another kind of file.
    fn check_head(&self) -> Result<()> {
        let head = self.buf.get(self.start..self.end).unwrap_or(&[]);
        if head.first() == Some(&b'{') {
            return Ok(());
        }
        let shown: String = head
            .iter()
            .take(16)
            .copied()
            .map(char::from)
            .map(|c| {
                if c.is_ascii_graphic() || c == ' ' {
                    c.to_string()
                } else {
                    format!("\\x{:02x}", c as u32)
                }
            })
            .collect();
        Err(Error::Input {
            at: self.at(None),
            reason: format!(
                "not a Spark event log: {} data starts with \"{shown}\", not a JSON object",
                if self.codec == Codec::None {
                    "file"
                } else {
                    "decompressed"
                },
            ),
        })
    }

    fn read_error(&mut self, e: io::Error) -> Result<()> {
        let line = Some(self.part_line + 1);
        let e = match codec::into_source_error(e) {
            Ok(source) => {
                return Err(Error::Io {
                    at: self.at(line),
                    source,
                })
            }
            Err(e) => e,
        };
        if self.codec == Codec::None {
            return Err(Error::Io {
                at: self.at(line),
                source: e,
            });
        }
        // Every decoder here reports input that stops mid-block or mid-frame
        // as UnexpectedEof (checked for zstd and flate2; see codec.rs).
        let cut = e.kind() == io::ErrorKind::UnexpectedEof;
        if cut && self.in_progress && self.is_last_part() {
            // The application was killed (or is still writing) mid-block.
            self.truncated_tail = true;
            self.eof = true;
            return Ok(());
        }
        let reason = if cut {
            format!("truncated stream: {e}")
        } else {
            e.to_string()
        };
        Err(Error::Codec {
            at: self.at(line),
            codec: self.codec.name(),
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use super::super::testutil::{
        copy_tree, find_file, one_input, plain_sample, samples, summarize, summarize_with,
        tpch_log, Summary, TempDir,
    };
    use super::super::{discover, Codec, LogInput, Part, DEFAULT_MAX_LINE};
    use super::LineReader;
    use crate::Error;

    /// Every application of scripts/make_samples.py runs the same workload:
    /// 4 CREATE TABLE + 5 queries = 9 SQL executions, each with a start and
    /// an end event.
    const SAMPLE_EXECUTIONS: u64 = 9;

    fn check_complete(name: &str, s: &Summary) {
        assert!(s.lines > 100, "{name}: {s:?}");
        assert_eq!(s.non_event, 0, "{name}: every line is a JSON event");
        assert_eq!(s.first_event, "SparkListenerLogStart", "{name}");
        assert!(
            s.last_line
                .starts_with(br#"{"Event":"SparkListenerApplicationEnd""#),
            "{name}: the stream decodes to its very end"
        );
        assert_eq!(s.exec_start, SAMPLE_EXECUTIONS, "{name}");
        assert_eq!(s.exec_end, SAMPLE_EXECUTIONS, "{name}");
        assert!(!s.last_truncated && !s.truncated_tail, "{name}");
    }

    fn file(path: &Path, codec: Codec, in_progress: bool) -> LogInput {
        LogInput {
            display: path.display().to_string(),
            parts: vec![Part::file(path, codec)],
            in_progress,
        }
    }

    #[test]
    fn every_spark_codec_sample_decodes_to_json_event_lines() {
        for (dir, codec) in [
            ("spark4-zstd", Codec::Zstd),
            ("spark4-lz4", Codec::Lz4),
            ("spark4-lzf", Codec::Lzf),
            ("spark4-snappy", Codec::Snappy),
            ("spark35-lz4", Codec::Lz4),
        ] {
            let input = one_input(&samples().join(dir));
            assert!(input.parts.iter().all(|p| p.codec == codec), "{dir}");
            assert!(!input.in_progress, "{dir}");
            let s = summarize(&input).unwrap_or_else(|e| panic!("{dir}: {e}"));
            check_complete(dir, &s);
        }
    }

    #[test]
    fn gzip_copy_matches_the_uncompressed_log() {
        let plain = plain_sample();
        let plain_in = file(&plain, Codec::None, false);
        let s = summarize(&plain_in).unwrap();
        check_complete("plain", &s);
        assert_eq!(s.bytes, std::fs::metadata(&plain).unwrap().len());

        let gz = one_input(&find_file(&samples().join("spark4-plain"), ".gz"));
        assert_eq!(gz.parts[0].codec, Codec::Gzip);
        assert_eq!(summarize(&gz).unwrap(), s);

        // several gzip members (`cat a.gz b.gz`), cut at a line boundary
        let text = std::fs::read(&plain).unwrap();
        let mid = text.len() / 2;
        let cut = mid + text[mid..].iter().position(|&b| b == b'\n').unwrap() + 1;
        let tmp = TempDir::new("multigz");
        let multi = tmp.path("local-1.gz");
        let mut f = std::fs::File::create(&multi).unwrap();
        for half in [&text[..cut], &text[cut..]] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(half).unwrap();
            f.write_all(&e.finish().unwrap()).unwrap();
        }
        drop(f);
        assert_eq!(summarize(&file(&multi, Codec::Gzip, false)).unwrap(), s);
    }

    #[test]
    fn rolling_sample_reads_both_parts_in_order() {
        let input = one_input(&samples().join("spark4-rolling"));
        assert_eq!(input.parts.len(), 2);
        let names: Vec<String> = input
            .parts
            .iter()
            .map(|p| {
                p.path
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert!(
            names[0].starts_with("events_1_") && names[1].starts_with("events_2_"),
            "{names:?}"
        );
        let mut r = LineReader::open(&input, DEFAULT_MAX_LINE).unwrap();
        let mut n = 0u64;
        let mut last_path = String::new();
        let mut switches = 0;
        while let Some(line) = r.next_line().unwrap() {
            assert!(line.starts_with(br#"{"Event":"#));
            n += 1;
            let loc = r.location();
            if loc.path != last_path {
                switches += 1;
                last_path = loc.path.clone();
                if switches == 2 {
                    // the location restarts its line count in the new part
                    assert_eq!(loc.line, Some(1));
                    assert!(r.line_no() > 1);
                }
            }
        }
        assert_eq!(switches, 2);
        assert_eq!(r.line_no(), n);
        assert!(last_path.contains("events_2_"), "{last_path}");
        // Spark rolls at >= 10 MiB of uncompressed text
        assert!(r.decompressed_bytes() > 10 << 20);
    }

    /// Splits the real uncompressed log into rolling parts named
    /// events_1 .. events_11 (lexicographic order would put 10 and 11 before 2).
    fn split_into_parts(dir: &Path, parts: usize) -> Vec<Vec<u8>> {
        let plain = plain_sample();
        let text = std::fs::read(plain).unwrap();
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        let per = lines.len().div_ceil(parts);
        let chunks: Vec<Vec<u8>> = lines.chunks(per).map(|c| c.concat()).collect();
        assert_eq!(chunks.len(), parts);
        std::fs::create_dir_all(dir).unwrap();
        for (i, c) in chunks.iter().enumerate() {
            std::fs::write(dir.join(format!("events_{}_local-1", i + 1)), c).unwrap();
        }
        std::fs::write(dir.join("appstatus_local-1"), b"").unwrap();
        std::fs::write(dir.join(".appstatus_local-1.crc"), b"crc").unwrap();
        chunks
    }

    #[test]
    fn rolling_parts_are_read_in_numeric_order() {
        let tmp = TempDir::new("rolling11");
        let dir = tmp.path("eventlog_v2_local-1");
        split_into_parts(&dir, 11);
        let input = one_input(&dir);
        let idx: Vec<String> = input
            .parts
            .iter()
            .map(|p| {
                p.path
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(idx[1], "events_2_local-1");
        assert_eq!(idx[10], "events_11_local-1");
        let plain = plain_sample();
        let want = summarize(&file(&plain, Codec::None, false)).unwrap();
        assert_eq!(summarize(&input).unwrap(), want);
    }

    /// A rolling log read with each part decoded on a thread of its own
    /// gives the lines, warnings and errors of a part-by-part read, in
    /// part order (summarize reads both ways).
    #[test]
    fn parts_decoded_ahead_give_their_lines_warnings_and_errors_in_order() {
        let tmp = TempDir::new("rolling-ahead");
        let dir = tmp.path("eventlog_v2_local-1");
        let chunks = split_into_parts(&dir, 5);
        // Parts 2 and 4 are zstd under a plain name: a warning each.
        for i in [2, 4] {
            let p = dir.join(format!("events_{i}_local-1"));
            std::fs::write(&p, zstd::encode_all(&chunks[i - 1][..], 1).unwrap()).unwrap();
        }
        let input = one_input(&dir);
        let plain = plain_sample();
        let want = summarize(&file(&plain, Codec::None, false)).unwrap();
        let got = summarize(&input).unwrap();
        assert_eq!(got.digest, want.digest);
        assert_eq!(got.lines, want.lines);
        assert_eq!(got.warnings.len(), 2, "{:?}", got.warnings);
        assert!(got.warnings[0].contains("events_2_local-1: the file name has no codec"));
        assert!(got.warnings[1].contains("events_4_local-1: the file name has no codec"));
        // A part that cannot be opened is reported when it is reached,
        // after every line of the parts before it.
        std::fs::remove_file(dir.join("events_4_local-1")).unwrap();
        let before: u64 = chunks[..3]
            .iter()
            .map(|c| c.iter().filter(|&&b| b == b'\n').count() as u64)
            .sum();
        for ahead in [false, true] {
            let mut r = LineReader::open_ahead(&input, DEFAULT_MAX_LINE, ahead).unwrap();
            let mut n = 0u64;
            let err = loop {
                match r.next_line() {
                    Ok(Some(_)) => n += 1,
                    Ok(None) => panic!("no error"),
                    Err(e) => break e,
                }
            };
            assert_eq!(n, before, "ahead {ahead}");
            assert!(
                matches!(&err, Error::Io { at, .. } if at.path.ends_with("events_4_local-1")),
                "{err}"
            );
            assert_eq!(r.warnings().len(), 1, "{:?}", r.warnings());
        }
    }

    #[test]
    fn rolling_compact_part_replaces_the_parts_before_it() {
        let tmp = TempDir::new("compact");
        let dir = tmp.path("eventlog_v2_local-1");
        let chunks = split_into_parts(&dir, 5);
        // Spark's compactor writes events_<last compacted>_<app>.compact; here
        // it holds the same lines as parts 1..=3 (a compactor would filter).
        std::fs::write(dir.join("events_3_local-1.compact"), chunks[..3].concat()).unwrap();
        // the parts a compaction replaced may or may not have been deleted
        std::fs::remove_file(dir.join("events_1_local-1")).unwrap();
        let input = one_input(&dir);
        let names: Vec<String> = input
            .parts
            .iter()
            .map(|p| {
                p.path
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "events_3_local-1.compact",
                "events_4_local-1",
                "events_5_local-1"
            ]
        );
        let plain = plain_sample();
        let want = summarize(&file(&plain, Codec::None, false)).unwrap();
        assert_eq!(summarize(&input).unwrap(), want);
    }

    #[test]
    fn tpch_zstd_and_snappy_logs_read_fully() {
        let zstd = one_input(&tpch_log("tpch-default"));
        let s = summarize(&zstd).unwrap();
        // tests/data/spark-logs/README.md: 8.0 MB and 1,404 JSON lines decompressed
        assert_eq!(s.lines, 1404);
        assert_eq!(s.non_event, 0);
        let plain = one_input(&tpch_log("tpch-extended"));
        let p = summarize(&plain).unwrap();
        assert_eq!(p.lines, 1404);
        assert_eq!(p.exec_start, 30);
        assert_eq!(p.exec_end, 30);
        let snappy = one_input(&tpch_log("tpch-smj"));
        assert_eq!(snappy.parts[0].codec, Codec::Snappy);
        assert_eq!(summarize(&snappy).unwrap().non_event, 0);
    }

    /// Cuts a copy of `src` to `keep` bytes, named `name` in `tmp`.
    fn cut_copy(tmp: &TempDir, src: &Path, name: &str, keep: usize) -> PathBuf {
        let data = std::fs::read(src).unwrap();
        let p = tmp.path(name);
        std::fs::write(&p, &data[..keep.min(data.len())]).unwrap();
        p
    }

    #[test]
    fn truncated_compressed_streams_are_codec_errors_naming_the_file() {
        let tmp = TempDir::new("truncated");
        for (dir, codec) in [
            ("spark4-zstd", Codec::Zstd),
            ("spark4-lz4", Codec::Lz4),
            ("spark4-lzf", Codec::Lzf),
            ("spark4-snappy", Codec::Snappy),
            ("spark4-plain", Codec::Gzip),
        ] {
            let src = find_file(
                &samples().join(dir),
                &format!(
                    ".{}",
                    if codec == Codec::Gzip {
                        "gz"
                    } else {
                        codec.name()
                    }
                ),
            );
            let len = std::fs::metadata(&src).unwrap().len() as usize;
            let p = cut_copy(&tmp, &src, &format!("cut-{dir}"), len / 2 + 7);
            let err = summarize(&file(&p, codec, false)).unwrap_err();
            match &err {
                Error::Codec {
                    at,
                    codec: c,
                    reason,
                } => {
                    assert_eq!(at.path, p.display().to_string());
                    assert!(at.line.unwrap() > 1, "{err}");
                    assert_eq!(*c, codec.name());
                    assert!(reason.contains("truncated"), "{dir}: {err}");
                }
                other => panic!("{dir}: expected a Codec error, got {other}"),
            }
            assert!(
                err.to_string().starts_with(&p.display().to_string()),
                "{err}"
            );
        }
    }

    #[test]
    fn corrupt_compressed_streams_are_codec_errors() {
        let tmp = TempDir::new("corrupt");
        for (dir, ext, codec, at) in [
            // first byte of the stream (magic numbers)
            ("spark4-zstd", ".zstd", Codec::Zstd, 0usize),
            ("spark4-lz4", ".lz4", Codec::Lz4, 0),
            ("spark4-lzf", ".lzf", Codec::Lzf, 0),
            ("spark4-snappy", ".snappy", Codec::Snappy, 0),
            ("spark4-plain", ".gz", Codec::Gzip, 0),
            // inside the first lz4 block: the XXH32 checksum catches it
            ("spark4-lz4", ".lz4", Codec::Lz4, 100),
            // the length field of the first lzf chunk header
            ("spark4-lzf", ".lzf", Codec::Lzf, 3),
        ] {
            let src = find_file(&samples().join(dir), ext);
            let mut data = std::fs::read(&src).unwrap();
            data[at] ^= 0x5a;
            let p = tmp.path(&format!("flip-{at}{ext}"));
            std::fs::write(&p, &data).unwrap();
            let err = summarize(&file(&p, codec, false)).unwrap_err();
            assert!(
                matches!(&err, Error::Codec { at, .. } if at.path == p.display().to_string()),
                "{dir} @{at}: {err}"
            );
        }
    }

    #[test]
    fn empty_and_binary_files_are_input_errors() {
        let tmp = TempDir::new("inputs");
        let empty = tmp.path("local-1");
        std::fs::write(&empty, b"").unwrap();
        let err = summarize(&one_input(&empty)).unwrap_err();
        assert!(
            matches!(&err, Error::Input { reason, .. } if reason.contains("empty")),
            "{err}"
        );
        assert!(err.to_string().contains("local-1"), "{err}");

        // an empty zstd stream is empty too
        let ez = tmp.path("local-2.zstd");
        std::fs::write(&ez, b"").unwrap();
        assert!(matches!(
            summarize(&one_input(&ez)),
            Err(Error::Input { .. })
        ));

        let bin = tmp.path("local-3");
        std::fs::write(&bin, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        let err = summarize(&one_input(&bin)).unwrap_err();
        assert!(
            matches!(&err, Error::Input { reason, .. } if reason.contains("not a Spark event log")),
            "{err}"
        );

        // bytes of no known codec under a codec's name: a corrupt stream
        // of that codec, as the name says
        let junk = tmp.path("local-4.zstd");
        std::fs::write(&junk, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        assert!(matches!(
            summarize(&one_input(&junk)),
            Err(Error::Codec { codec: "zstd", .. })
        ));
    }

    /// Reads the whole input; returns its warnings.
    fn warnings_of(input: &LogInput) -> Vec<String> {
        warnings_with(input, DEFAULT_MAX_LINE)
    }

    fn warnings_with(input: &LogInput, max_line: usize) -> Vec<String> {
        let mut r = LineReader::open(input, max_line).unwrap();
        while r.next_line().unwrap().is_some() {}
        r.warnings().to_vec()
    }

    /// A log whose name lies about its codec is read by its magic bytes,
    /// with a warning naming the file; the lines are those of the log.
    #[test]
    fn misnamed_logs_are_read_by_their_magic_bytes() {
        let tmp = TempDir::new("misnamed");
        let plain = plain_sample();
        let want = summarize(&file(&plain, Codec::None, false)).unwrap();
        for (dir, ext, fake) in [
            // a plain log named as zstd, a zstd log named as lz4, ...
            ("spark4-plain", "", "local-1.zstd"),
            ("spark4-zstd", ".zstd", "local-2.lz4"),
            ("spark4-lz4", ".lz4", "local-3.snappy"),
            ("spark4-snappy", ".snappy", "local-4.lzf"),
            ("spark4-lzf", ".lzf", "local-5.gz"),
            ("spark4-plain", ".gz", "local-6.zst"),
            // ... and compressed logs without a codec extension
            ("spark4-zstd", ".zstd", "local-7"),
            ("spark4-lz4", ".lz4", "local-8.inprogress"),
        ] {
            let src = if ext.is_empty() {
                plain.clone()
            } else {
                find_file(&samples().join(dir), ext)
            };
            let right = if ext.is_empty() {
                file(&src, Codec::None, false)
            } else {
                one_input(&src)
            };
            let p = tmp.path(fake);
            std::fs::copy(&src, &p).unwrap();
            let input = one_input(&p);
            let mut got = summarize(&input).unwrap_or_else(|e| panic!("{fake}: {e}"));
            // The lines are those of the log under its right name; the
            // warning is checked below.
            got.warnings.clear();
            assert_eq!(got, summarize(&right).unwrap(), "{fake}");
            if dir == "spark4-plain" {
                assert_eq!(got, want, "{fake}");
            }
            let w = warnings_of(&input);
            assert_eq!(w.len(), 1, "{fake}: {w:?}");
            let data = right.parts[0].codec.describe();
            assert!(
                w[0].starts_with(&p.display().to_string()) && w[0].contains(&data),
                "{fake}: {w:?}"
            );
        }
        // a rightly named log gives no warning
        assert!(warnings_of(&one_input(&samples().join("spark4-zstd"))).is_empty());
    }

    #[test]
    fn lines_over_the_cap_are_skipped_with_a_warning_naming_path_and_line() {
        let plain = plain_sample();
        let input = file(&plain, Codec::None, false);
        let all = summarize(&input).unwrap();
        let capped = summarize_with(&input, 1000).unwrap();
        // every line over 1000 bytes is skipped, every other line is read
        let text = std::fs::read(&plain).unwrap();
        let lines: Vec<&[u8]> = text
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        let long: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].len() > 1000)
            .collect();
        assert!(!long.is_empty());
        assert_eq!(capped.lines, all.lines - long.len() as u64);
        assert_eq!(capped.bytes, all.bytes, "skipped bytes still count as read");
        assert_eq!(
            capped.last_line, all.last_line,
            "reading goes on to the end"
        );
        let want: Vec<String> = long
            .iter()
            .map(|i| {
                format!(
                    "{}:{}: line longer than 1000 bytes; skipped, reading on after it",
                    plain.display(),
                    i + 1
                )
            })
            .collect();
        assert_eq!(warnings_with(&input, 1000), want);
        // a cap smaller than the reader's buffer and larger than any line is fine
        let s = summarize_with(&input, 4 << 20).unwrap();
        assert_eq!(s.non_event, 0);
        assert!(warnings_with(&input, 4 << 20).is_empty());
        // a line larger than the initial buffer (256 KiB) grows it
        let tmp = TempDir::new("long");
        let long = tmp.path("local-1");
        let mut text = br#"{"Event":"SparkListenerLogStart","Spark Version":"4.0.1"}"#.to_vec();
        text.push(b'\n');
        text.extend_from_slice(br#"{"Event":"x","pad":""#);
        text.extend(std::iter::repeat_n(b'a', 1 << 20));
        text.extend_from_slice(b"\"}\r\n{\"Event\":\"y\"}\n");
        std::fs::write(&long, &text).unwrap();
        let mut r = LineReader::open(&file(&long, Codec::None, false), 2 << 20).unwrap();
        assert!(r.next_line().unwrap().unwrap().ends_with(b"}"));
        let l = r.next_line().unwrap().unwrap();
        assert_eq!(l.len(), (1 << 20) + 22);
        assert!(l.ends_with(b"\"}"), "CR stripped");
        assert_eq!(r.next_line().unwrap().unwrap(), br#"{"Event":"y"}"#);
        assert!(r.next_line().unwrap().is_none());
        assert_eq!(r.decompressed_bytes(), text.len() as u64);
        // under a smaller cap the long line is passed over, in both modes
        for ahead in [false, true] {
            let mut r =
                LineReader::open_ahead(&file(&long, Codec::None, false), 1 << 19, ahead).unwrap();
            assert!(r.next_line().unwrap().is_some());
            let (l, info) = r.next_line_info().unwrap().unwrap();
            assert_eq!(l, br#"{"Event":"y"}"#);
            assert_eq!(info.line_no, 3);
            assert!(r.next_line().unwrap().is_none());
            assert_eq!(r.decompressed_bytes(), text.len() as u64);
            assert_eq!(
                r.warnings(),
                [format!(
                    "{}:2: line longer than 524288 bytes; skipped, reading on after it",
                    long.display()
                )]
            );
        }
        // an over-long last line without a newline ends the part quietly
        let cut = tmp.path("local-2");
        std::fs::write(&cut, &text[..text.len() - 17]).unwrap();
        let cut = file(&cut, Codec::None, false);
        assert_eq!(summarize_with(&cut, 1 << 19).unwrap().lines, 1);
        assert_eq!(warnings_with(&cut, 1 << 19).len(), 1);
    }

    #[test]
    fn in_progress_logs_flag_truncation_instead_of_failing() {
        // the real killed application: Spark's tail ended on a line boundary
        let dir = samples().join("spark4-inprogress");
        let real = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| !p.to_string_lossy().contains("-cut"))
            .unwrap();
        let input = one_input(&real);
        assert!(input.in_progress);
        let s = summarize(&input).unwrap();
        assert_eq!(s.non_event, 0);
        assert!(!s.last_truncated && !s.truncated_tail);
        assert!(s.exec_start > s.exec_end, "killed mid-run: {s:?}");

        // the copy cut mid-line by make_samples.py
        let cut = one_input(&find_file(&dir, "-cut.inprogress"));
        let c = summarize(&cut).unwrap();
        assert!(c.last_truncated && !c.truncated_tail);
        assert_eq!(c.lines, s.lines);
        assert!(s.last_line.starts_with(&c.last_line) && c.last_line.len() < s.last_line.len());

        // the same cut without .inprogress: the last line is returned, unflagged
        let tmp = TempDir::new("inprogress");
        let done = cut_copy(
            &tmp,
            &find_file(&dir, "-cut.inprogress"),
            "local-9",
            usize::MAX,
        );
        let d = summarize(&one_input(&done)).unwrap();
        assert!(!d.last_truncated);
        assert_eq!(d.lines, c.lines);

        // the real zstd one ended on a whole frame
        let z = one_input(&samples().join("spark4-inprogress-zstd"));
        assert!(z.in_progress);
        let zs = summarize(&z).unwrap();
        assert!(!zs.truncated_tail && !zs.last_truncated);

        // cut inside a compressed block: a warning flag, not an error
        for (dir, ext, codec) in [
            ("spark4-inprogress-zstd", ".zstd.inprogress", Codec::Zstd),
            ("spark4-lz4", ".lz4", Codec::Lz4),
            ("spark4-lzf", ".lzf", Codec::Lzf),
            ("spark4-snappy", ".snappy", Codec::Snappy),
            ("spark4-plain", ".gz", Codec::Gzip),
        ] {
            let src = find_file(&samples().join(dir), ext);
            let len = std::fs::metadata(&src).unwrap().len() as usize;
            let name = format!(
                "local-7.{}.inprogress",
                if codec == Codec::Gzip {
                    "gz"
                } else {
                    codec.name()
                }
            );
            let p = cut_copy(&tmp, &src, &name, len * 2 / 3 + 5);
            let input = one_input(&p);
            assert!(
                input.in_progress && input.parts[0].codec == codec,
                "{input:?}"
            );
            let t = summarize(&input).unwrap_or_else(|e| panic!("{dir}: {e}"));
            assert!(t.truncated_tail, "{dir}: {t:?}");
            assert!(t.lines > 10 && t.non_event <= 1, "{dir}: {t:?}");
        }
    }

    #[test]
    fn in_progress_rolling_dir_tolerates_a_cut_last_part_only() {
        let tmp = TempDir::new("rolling-ip");
        let dir = tmp.path("eventlog_v2_local-1");
        let chunks = split_into_parts(&dir, 3);
        std::fs::rename(
            dir.join("appstatus_local-1"),
            dir.join("appstatus_local-1.inprogress"),
        )
        .unwrap();
        // cut the last part in the middle of a line
        let last = dir.join("events_3_local-1");
        std::fs::write(&last, &chunks[2][..chunks[2].len() - 40]).unwrap();
        let input = one_input(&dir);
        assert!(input.in_progress);
        let s = summarize(&input).unwrap();
        assert!(s.last_truncated);
        // a cut at the end of an earlier part is not the live tail: that
        // last line is returned unflagged, and only the final part's is flagged
        let mid = dir.join("events_2_local-1");
        std::fs::write(&mid, &chunks[1][..chunks[1].len() - 40]).unwrap();
        let mut r = LineReader::open(&input, DEFAULT_MAX_LINE).unwrap();
        let mut flagged = 0;
        while let Some((_, info)) = r.next_line_info().unwrap() {
            flagged += u32::from(info.truncated);
        }
        assert_eq!(flagged, 1);
    }

    #[test]
    fn errors_in_a_rolling_part_name_that_part() {
        let tmp = TempDir::new("rolling-bad");
        let src = samples().join("spark4-rolling");
        copy_tree(&src, &tmp.0.join("copy"));
        let input = one_input(&tmp.0.join("copy"));
        let second = input.parts[1].path.clone().unwrap();
        let len = std::fs::metadata(&second).unwrap().len() as usize;
        let data = std::fs::read(&second).unwrap();
        std::fs::write(&second, &data[..len / 2]).unwrap();
        let err = summarize(&input).unwrap_err();
        let at = err.location().unwrap();
        assert_eq!(at.path, second.display().to_string(), "{err}");
        assert!(matches!(err, Error::Codec { codec: "zstd", .. }), "{err}");

        // a missing part file: an Io error naming it
        std::fs::remove_file(&second).unwrap();
        let err = summarize(&input).unwrap_err();
        assert!(
            matches!(&err, Error::Io { at, .. } if at.path == second.display().to_string()),
            "{err}"
        );
    }

    #[test]
    fn discovery_of_missing_paths_and_empty_dirs() {
        let d = discover(&["/nonexistent/lakeaudit/x".to_string()]);
        assert!(d.inputs.is_empty());
        assert!(
            matches!(&d.errors[..], [Error::Io { at, .. }] if at.path == "/nonexistent/lakeaudit/x")
        );
        let tmp = TempDir::new("nologs");
        std::fs::write(tmp.path("README.md"), b"# nothing").unwrap();
        let d = discover(&[tmp.0.display().to_string()]);
        assert!(d.inputs.is_empty());
        assert!(
            matches!(&d.errors[..], [Error::Input { reason, .. }] if reason.contains("no Spark event logs")),
            "{:?}",
            d.errors
        );
    }
}
