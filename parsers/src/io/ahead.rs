//! Decompression on a helper thread, ahead of the line reader.
//!
//! A [`DecodeAhead`] owns one part's decoder on a thread of its own. The
//! thread fills big chunks and sends them, in order, through a bounded
//! channel; the reader scans lines in a chunk while the next ones are being
//! decompressed. Chunks go back to the thread once read, so a whole log
//! costs at most [`CHUNKS`] buffers of [`CHUNK`] bytes however long it is.
//!
//! Each chunk starts with [`HEADROOM`] free bytes: the line reader copies
//! the unfinished line at the end of the previous chunk there, right in
//! front of its continuation, so a line split across chunks is joined
//! without copying the chunk itself (see `LineReader::fill`).

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

/// Decompressed bytes per chunk.
pub(crate) const CHUNK: usize = 1 << 20;
/// Free bytes in front of each chunk's data, for the partial line the
/// previous chunk ended with (task events are a few KiB; longer lines, such
/// as plan events, are joined by copying).
pub(crate) const HEADROOM: usize = 64 << 10;
/// Chunks in flight: filled and queued, being filled, and being read.
pub(crate) const CHUNKS: usize = 4;

/// One message from the decoding thread.
pub(crate) enum Msg {
    /// `buf[HEADROOM..HEADROOM + len]` holds the next decompressed bytes
    /// (`len > 0`).
    Data(Vec<u8>, usize),
    /// The decoder failed; bytes before the failure were sent first.
    Err(io::Error),
    /// The stream ended cleanly.
    End,
}

/// A decoder running on its own thread.
pub(crate) struct DecodeAhead {
    rx: Option<Receiver<Msg>>,
    back: Option<Sender<Vec<u8>>>,
    thread: Option<JoinHandle<()>>,
}

impl DecodeAhead {
    /// Starts decoding `src` on a new thread.
    pub(crate) fn spawn(src: Box<dyn Read + Send>) -> io::Result<DecodeAhead> {
        // Queued chunks: the rest are being filled or read.
        let (tx, rx) = mpsc::sync_channel(CHUNKS - 2);
        let (back, spare) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("lakeaudit-decode".into())
            .spawn(move || decode(src, &tx, &spare))?;
        Ok(DecodeAhead {
            rx: Some(rx),
            back: Some(back),
            thread: Some(thread),
        })
    }

    /// The next message; a thread that stopped without saying why (it
    /// panicked) is reported as an error.
    pub(crate) fn recv(&self) -> Msg {
        match self.rx.as_ref().map(Receiver::recv) {
            Some(Ok(m)) => m,
            _ => Msg::Err(io::Error::other("the decompression thread stopped")),
        }
    }

    /// Hands a buffer the reader is done with back to the thread, to be
    /// filled again (every buffer goes back, so the thread never waits for
    /// one that was dropped).
    pub(crate) fn give_back(&self, buf: Vec<u8>) {
        if let Some(back) = &self.back {
            // The thread may have finished; the buffer is then just freed.
            let _ = back.send(buf);
        }
    }
}

impl Drop for DecodeAhead {
    fn drop(&mut self) {
        // Closing both channels stops the thread at its next send or wait
        // for a spare chunk.
        drop(self.rx.take());
        drop(self.back.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The thread: fill chunks from `src` until its end or an error.
fn decode(mut src: Box<dyn Read + Send>, tx: &SyncSender<Msg>, spare: &Receiver<Vec<u8>>) {
    let mut made = 0;
    // The first chunk holds what the first read gave, as an inline reader's
    // first read does (the reader checks those first bytes, and shows them
    // when they are not JSON).
    let mut first = true;
    loop {
        let mut buf = match spare.try_recv() {
            Ok(b) => sized(b),
            Err(_) if made < CHUNKS => {
                made += 1;
                vec![0; HEADROOM + CHUNK]
            }
            // Every chunk is out: wait for one (or for the reader to go).
            Err(_) => match spare.recv() {
                Ok(b) => sized(b),
                Err(_) => return,
            },
        };
        let (len, end) = fill(&mut *src, &mut buf, first);
        first = false;
        if len > 0 && tx.send(Msg::Data(buf, len)).is_err() {
            return;
        }
        if let Some(end) = end {
            let _ = tx.send(end);
            return;
        }
    }
}

/// A handed-back buffer made chunk-sized again (the reader's first buffer,
/// or one grown for a long line, is smaller or bigger).
fn sized(mut buf: Vec<u8>) -> Vec<u8> {
    buf.resize(HEADROOM + CHUNK, 0);
    buf.shrink_to(HEADROOM + CHUNK);
    buf
}

/// Reads into `buf[HEADROOM..]` until it is full (`once`: until one read
/// gave bytes) or the stream stops; returns the bytes read and, if the
/// stream stopped, how.
fn fill(src: &mut dyn Read, buf: &mut [u8], once: bool) -> (usize, Option<Msg>) {
    let mut len = 0;
    while let Some(dst) = buf.get_mut(HEADROOM + len..).filter(|d| !d.is_empty()) {
        match src.read(dst) {
            Ok(0) => return (len, Some(Msg::End)),
            Ok(n) if once => return (n, None),
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (len, Some(Msg::Err(e))),
        }
    }
    (len, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that yields `data` in small pieces, then fails.
    struct Failing {
        data: Vec<u8>,
        pos: usize,
    }

    impl Read for Failing {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.pos >= self.data.len() {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "bad block"));
            }
            let n = out.len().min(1000).min(self.data.len() - self.pos);
            out[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    fn collect(a: &DecodeAhead) -> (Vec<u8>, Option<io::Error>) {
        let mut got = Vec::new();
        loop {
            match a.recv() {
                Msg::Data(buf, len) => {
                    got.extend_from_slice(&buf[HEADROOM..HEADROOM + len]);
                    a.give_back(buf);
                }
                Msg::Err(e) => return (got, Some(e)),
                Msg::End => return (got, None),
            }
        }
    }

    #[test]
    fn chunks_arrive_in_order_and_end() {
        let data: Vec<u8> = (0..CHUNK * 9 + 123).map(|i| (i % 251) as u8).collect();
        let a = DecodeAhead::spawn(Box::new(io::Cursor::new(data.clone()))).unwrap();
        let (got, err) = collect(&a);
        assert!(err.is_none());
        assert_eq!(got, data);
    }

    #[test]
    fn bytes_before_an_error_come_first() {
        let data: Vec<u8> = (0..CHUNK + 4567).map(|i| (i % 7) as u8).collect();
        let a = DecodeAhead::spawn(Box::new(Failing {
            data: data.clone(),
            pos: 0,
        }))
        .unwrap();
        let (got, err) = collect(&a);
        assert_eq!(got, data);
        assert_eq!(err.unwrap().kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn dropping_the_reader_stops_the_thread() {
        // An endless stream: drop must not hang.
        let a = DecodeAhead::spawn(Box::new(io::repeat(b'x'))).unwrap();
        for _ in 0..3 {
            let Msg::Data(_, len) = a.recv() else {
                panic!("expected data")
            };
            assert!(len > 0 && len <= CHUNK);
        }
        drop(a);
    }
}
