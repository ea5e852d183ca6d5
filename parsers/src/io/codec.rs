//! Decoders for the compressed streams Spark writes, as `std::io::Read`.
//!
//! zstd and gzip streams are standard, so the `zstd` and `flate2` readers
//! are used as they are. lz4, snappy and lzf are the *Java libraries'*
//! stream framings, which no Rust crate reads; the framings are thin, so they
//! are decoded here over raw block decoders (`lz4_flex::block`, `snap::raw`,
//! [`super::lzf`]). Each framing decoder keeps one decompressed block and
//! one compressed block buffer, reused for the whole stream.
//!
//! Error convention (the line reader relies on it): a stream that stops in
//! the middle of a header or block yields `ErrorKind::UnexpectedEof`; bad
//! magic, lengths, checksums or block contents yield `ErrorKind::InvalidData`.
//! A stream that ends exactly on a block boundary ends cleanly, as in the Java
//! readers Spark uses (lz4-java reads with concatenation enabled, so it too
//! accepts a stream without the final empty block).

use std::io::{self, BufRead, BufReader, Read};

use super::Codec;

/// Input buffer size for the decoders that want a `BufRead`.
const IN_BUF: usize = 128 << 10;

/// Largest compressed or decompressed block a framing may announce. Spark's
/// blocks are 32 KiB (lz4, snappy) or 64 KiB (lzf); lz4-java allows 32 MiB.
/// A bigger length is corruption, and refusing it bounds the allocation a
/// corrupt header can cause.
const MAX_BLOCK: usize = 64 << 20;

// ---------------------------------------------------------------------------
// source tagging

/// An I/O error of the underlying file (not of a decoder), wrapped so that it
/// can be told apart after passing through a decoder.
#[derive(Debug)]
pub(crate) struct SourceError(pub(crate) io::Error);

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// The raw file (or stdin) under a decoder: tags its errors as
/// [`SourceError`], so that a failing disk is reported as an I/O error of
/// the file and not as corrupt compressed data.
pub(crate) struct Source<R> {
    inner: R,
}

impl<R: Read> Source<R> {
    pub(crate) fn new(inner: R) -> Self {
        Source { inner }
    }
}

impl<R: Read> Read for Source<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => Err(io::Error::new(e.kind(), SourceError(e))),
        }
    }
}

/// If `e` is (or wraps) an error of the underlying file, that error.
pub(crate) fn into_source_error(e: io::Error) -> Result<io::Error, io::Error> {
    let is_source = e
        .get_ref()
        .map(|inner| inner.is::<SourceError>())
        .unwrap_or(false);
    if !is_source {
        return Err(e);
    }
    match e.into_inner() {
        Some(inner) => match inner.downcast::<SourceError>() {
            Ok(src) => Ok(src.0),
            Err(other) => Err(io::Error::other(other)),
        },
        None => Err(io::Error::other("unknown source error")),
    }
}

// ---------------------------------------------------------------------------
// helpers

fn corrupt(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

fn truncated(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("stream ends inside {what}"),
    )
}

/// Reads until `buf` is full or EOF; returns how many bytes were read.
fn read_full<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        let Some(rest) = buf.get_mut(n..) else { break };
        match r.read(rest) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads exactly `len` bytes into `buf` (resized), or fails as truncated.
fn read_block<R: Read>(r: &mut R, buf: &mut Vec<u8>, len: usize, what: &str) -> io::Result<()> {
    buf.resize(len, 0);
    if read_full(r, buf)? < len {
        return Err(truncated(what));
    }
    Ok(())
}

/// `Read` for a block-framed reader: serve the current decoded block, and
/// decode the next one (`next_block`) when it is used up.
macro_rules! block_reader_read {
    ($name:ident) => {
        impl<R: BufRead> Read for $name<R> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                if out.is_empty() {
                    return Ok(0);
                }
                if self.pos >= self.block.len() && !self.next_block()? {
                    return Ok(0);
                }
                Ok(serve(&self.block, &mut self.pos, out))
            }
        }
    };
}

/// Serves bytes of the current decompressed block; shared by the framings.
fn serve(block: &[u8], pos: &mut usize, out: &mut [u8]) -> usize {
    let rest = block.get(*pos..).unwrap_or(&[]);
    let n = rest.len().min(out.len());
    if let (Some(dst), Some(src)) = (out.get_mut(..n), rest.get(..n)) {
        dst.copy_from_slice(src);
    }
    *pos += n;
    n
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
const GZIP_MAGIC: [u8; 2] = [0x1F, 0x8B];
const LZ4_MAGIC: &[u8; 8] = b"LZ4Block";
const SNAPPY_MAGIC: &[u8; 8] = b"\x82SNAPPY\x00";

/// The codec whose stream starts with `head`, by magic number.
pub(crate) fn sniff(head: &[u8]) -> Option<Codec> {
    if head.starts_with(&ZSTD_MAGIC) {
        Some(Codec::Zstd)
    } else if head.starts_with(&GZIP_MAGIC) {
        Some(Codec::Gzip)
    } else if head.starts_with(LZ4_MAGIC) {
        Some(Codec::Lz4)
    } else if head.starts_with(SNAPPY_MAGIC) {
        Some(Codec::Snappy)
    } else if head.starts_with(b"ZV") && matches!(head.get(2), Some(0) | Some(1)) {
        Some(Codec::Lzf)
    } else {
        None
    }
}

/// How many first bytes [`sniff`] needs to recognise every codec.
pub(crate) const SNIFF_LEN: usize = 8;

/// Reads the first bytes of a stream into `head` (fewer at its end);
/// returns how many were read.
pub(crate) fn read_head<R: Read + ?Sized>(r: &mut R, head: &mut [u8]) -> io::Result<usize> {
    read_full(r, head)
}

/// The codec to read a stream with: the one its magic bytes name, plain
/// text when it starts like JSON, else the one its file name says (so that
/// a damaged header is reported as a corrupt stream of that codec).
pub(crate) fn choose(head: &[u8], named: Codec) -> Codec {
    match sniff(head) {
        Some(c) => c,
        None if starts_like_json(head) => Codec::None,
        None => named,
    }
}

/// Whether `head` starts (after white space) with `{`, as every event line does.
pub(crate) fn starts_like_json(head: &[u8]) -> bool {
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// A decoder of `codec` over `raw`.
pub(crate) fn decoder(codec: Codec, raw: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    Ok(match codec {
        Codec::None => raw,
        Codec::Zstd => {
            // Decoder reads every concatenated frame (Spark closes one per
            // flush). zstd's default window limit (2^27) stays in force: Spark's
            // level-1 frames need far less, and the limit stops a corrupt
            // header from asking for a huge window.
            Box::new(zstd::stream::read::Decoder::with_buffer(
                BufReader::with_capacity(IN_BUF, raw),
            )?)
        }
        Codec::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(
            BufReader::with_capacity(IN_BUF, raw),
        )),
        Codec::Lz4 => Box::new(Lz4BlockReader::new(BufReader::with_capacity(IN_BUF, raw))),
        Codec::Snappy => Box::new(SnappyStreamReader::new(BufReader::with_capacity(
            IN_BUF, raw,
        ))),
        Codec::Lzf => Box::new(LzfStreamReader::new(BufReader::with_capacity(IN_BUF, raw))),
    })
}

// ---------------------------------------------------------------------------
// lz4-java LZ4BlockOutputStream

/// Reader of lz4-java's `LZ4BlockOutputStream` framing.
///
/// Each block: magic `LZ4Block`, a token byte (high nibble the method,
/// `0x10` raw or `0x20` LZ4; low nibble the block-size level, blocks of at
/// most `1 << (10 + level)` bytes), then little-endian u32 compressed length,
/// decompressed length and checksum (XXH32 of the decompressed bytes, seed
/// `0x9747b28c`, masked with `0x0FFFFFFF`). A block with both lengths zero
/// ends a stream; another stream may follow (concatenation).
pub(crate) struct Lz4BlockReader<R> {
    inner: R,
    comp: Vec<u8>,
    block: Vec<u8>,
    pos: usize,
}

const LZ4_HEADER: usize = 8 + 1 + 4 + 4 + 4;
const LZ4_METHOD_RAW: u8 = 0x10;
const LZ4_METHOD_LZ4: u8 = 0x20;
const LZ4_SEED: u32 = 0x9747_b28c;

impl<R: BufRead> Lz4BlockReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        Lz4BlockReader {
            inner,
            comp: Vec::new(),
            block: Vec::new(),
            pos: 0,
        }
    }

    /// Decodes the next non-empty block; `false` at a clean end of input.
    fn next_block(&mut self) -> io::Result<bool> {
        loop {
            let mut h = [0u8; LZ4_HEADER];
            let n = read_full(&mut self.inner, &mut h)?;
            if n == 0 {
                return Ok(false);
            }
            if n < LZ4_HEADER {
                return Err(truncated("an lz4 block header"));
            }
            if &h[..8] != LZ4_MAGIC {
                return Err(corrupt("bad lz4 block magic (expected LZ4Block)"));
            }
            let token = h[8];
            let method = token & 0xF0;
            let max_len = 1usize << (10 + u32::from(token & 0x0F));
            let comp_len = u32::from_le_bytes([h[9], h[10], h[11], h[12]]) as usize;
            let orig_len = u32::from_le_bytes([h[13], h[14], h[15], h[16]]) as usize;
            let check = u32::from_le_bytes([h[17], h[18], h[19], h[20]]);
            if method != LZ4_METHOD_RAW && method != LZ4_METHOD_LZ4 {
                return Err(corrupt(format!("bad lz4 block token 0x{token:02x}")));
            }
            if orig_len > max_len
                || comp_len > MAX_BLOCK
                || (orig_len == 0) != (comp_len == 0)
                || (method == LZ4_METHOD_RAW && orig_len != comp_len)
            {
                return Err(corrupt(format!(
                    "bad lz4 block lengths (compressed {comp_len}, decompressed {orig_len}, token 0x{token:02x})"
                )));
            }
            if orig_len == 0 {
                // End of one stream; a concatenated stream may follow.
                if check != 0 {
                    return Err(corrupt("bad lz4 end block (non-zero checksum)"));
                }
                continue;
            }
            read_block(&mut self.inner, &mut self.comp, comp_len, "an lz4 block")?;
            self.block.resize(orig_len, 0);
            if method == LZ4_METHOD_RAW {
                self.block.copy_from_slice(&self.comp);
            } else {
                let got = lz4_flex::block::decompress_into(&self.comp, &mut self.block)
                    .map_err(|e| corrupt(format!("bad lz4 block: {e}")))?;
                if got != orig_len {
                    return Err(corrupt(format!(
                        "lz4 block decompressed to {got} bytes, header says {orig_len}"
                    )));
                }
            }
            let sum = xxhash_rust::xxh32::xxh32(&self.block, LZ4_SEED) & 0x0FFF_FFFF;
            if sum != check {
                return Err(corrupt(format!(
                    "lz4 block checksum mismatch (stored 0x{check:08x}, computed 0x{sum:08x})"
                )));
            }
            self.pos = 0;
            return Ok(true);
        }
    }
}

block_reader_read!(Lz4BlockReader);

// ---------------------------------------------------------------------------
// snappy-java SnappyOutputStream

/// Reader of snappy-java's `SnappyOutputStream` framing.
///
/// A 16-byte header (`\x82SNAPPY\0`, then big-endian i32 version and
/// compatible version), then chunks of `[big-endian u32 length][raw snappy
/// block]`. A chunk length equal to the first four header bytes starts a
/// concatenated stream's header (as snappy-java's `SnappyInputStream` reads it).
pub(crate) struct SnappyStreamReader<R> {
    inner: R,
    started: bool,
    comp: Vec<u8>,
    block: Vec<u8>,
    pos: usize,
    raw: snap::raw::Decoder,
}

const SNAPPY_HEADER: usize = 16;
const SNAPPY_MAGIC_HEAD: u32 = 0x8253_4E41; // "\x82SNA" as a big-endian u32

impl<R: BufRead> SnappyStreamReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        SnappyStreamReader {
            inner,
            started: false,
            comp: Vec::new(),
            block: Vec::new(),
            pos: 0,
            raw: snap::raw::Decoder::new(),
        }
    }

    /// Reads the stream header (or its last 12 bytes after `have` bytes);
    /// `false` if the input is empty.
    fn header(&mut self, have: &[u8]) -> io::Result<bool> {
        let mut h = [0u8; SNAPPY_HEADER];
        let k = have.len().min(SNAPPY_HEADER);
        h[..k].copy_from_slice(&have[..k]);
        let n = read_full(&mut self.inner, &mut h[k..])?;
        if k + n == 0 {
            return Ok(false);
        }
        if k + n < SNAPPY_HEADER {
            return Err(truncated("the snappy stream header"));
        }
        if &h[..8] != SNAPPY_MAGIC {
            return Err(corrupt(
                "not a snappy-java stream (expected header \\x82SNAPPY\\0)",
            ));
        }
        Ok(true)
    }

    fn next_block(&mut self) -> io::Result<bool> {
        if !self.started {
            self.started = true;
            if !self.header(&[])? {
                return Ok(false);
            }
        }
        loop {
            let mut len_buf = [0u8; 4];
            let n = read_full(&mut self.inner, &mut len_buf)?;
            if n == 0 {
                return Ok(false);
            }
            if n < 4 {
                return Err(truncated("a snappy chunk length"));
            }
            let len = u32::from_be_bytes(len_buf);
            if len == SNAPPY_MAGIC_HEAD {
                // A concatenated stream: its header follows in place of a chunk.
                self.header(&len_buf)?;
                continue;
            }
            let len = len as usize;
            if len > MAX_BLOCK {
                return Err(corrupt(format!("bad snappy chunk length {len}")));
            }
            if len == 0 {
                continue;
            }
            read_block(&mut self.inner, &mut self.comp, len, "a snappy chunk")?;
            let out_len = snap::raw::decompress_len(&self.comp)
                .map_err(|e| corrupt(format!("bad snappy chunk: {e}")))?;
            if out_len > MAX_BLOCK {
                return Err(corrupt(format!(
                    "bad snappy chunk (announces {out_len} bytes)"
                )));
            }
            self.block.resize(out_len, 0);
            let got = self
                .raw
                .decompress(&self.comp, &mut self.block)
                .map_err(|e| corrupt(format!("bad snappy chunk: {e}")))?;
            self.block.truncate(got);
            self.pos = 0;
            if got > 0 {
                return Ok(true);
            }
        }
    }
}

block_reader_read!(SnappyStreamReader);

// ---------------------------------------------------------------------------
// ning compress-lzf LZFOutputStream

/// Reader of compress-lzf's chunk framing (`LZFChunk`): `'Z' 'V'`, a type
/// byte, then big-endian u16 lengths. Type 0: `[len]` and `len` stored bytes;
/// type 1: `[compressed len][decompressed len]` and an LZF block.
pub(crate) struct LzfStreamReader<R> {
    inner: R,
    comp: Vec<u8>,
    block: Vec<u8>,
    pos: usize,
}

impl<R: BufRead> LzfStreamReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        LzfStreamReader {
            inner,
            comp: Vec::new(),
            block: Vec::new(),
            pos: 0,
        }
    }

    fn next_block(&mut self) -> io::Result<bool> {
        loop {
            let mut h = [0u8; 5];
            let n = read_full(&mut self.inner, &mut h)?;
            if n == 0 {
                return Ok(false);
            }
            if n < 5 {
                return Err(truncated("an lzf chunk header"));
            }
            if h[0] != b'Z' || h[1] != b'V' {
                return Err(corrupt("bad lzf chunk header (expected ZV)"));
            }
            let len = usize::from(u16::from_be_bytes([h[3], h[4]]));
            match h[2] {
                0 => {
                    read_block(&mut self.inner, &mut self.block, len, "an lzf chunk")?;
                }
                1 => {
                    let mut l = [0u8; 2];
                    if read_full(&mut self.inner, &mut l)? < 2 {
                        return Err(truncated("an lzf chunk header"));
                    }
                    let out_len = usize::from(u16::from_be_bytes(l));
                    read_block(&mut self.inner, &mut self.comp, len, "an lzf chunk")?;
                    super::lzf::decompress(&self.comp, &mut self.block, out_len)
                        .map_err(|e| corrupt(format!("bad lzf chunk: {e}")))?;
                }
                t => return Err(corrupt(format!("bad lzf chunk type {t}"))),
            }
            self.pos = 0;
            if !self.block.is_empty() {
                return Ok(true);
            }
        }
    }
}

block_reader_read!(LzfStreamReader);

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(codec: Codec, data: Vec<u8>) -> io::Result<Vec<u8>> {
        let mut d = decoder(codec, Box::new(io::Cursor::new(data)))?;
        let mut out = Vec::new();
        d.read_to_end(&mut out)?;
        Ok(out)
    }

    /// Builds one lz4-java block by hand (the framing documented in FORMATS.md).
    fn lz4_block(data: &[u8], raw: bool) -> Vec<u8> {
        let payload = if raw {
            data.to_vec()
        } else {
            lz4_flex::block::compress(data)
        };
        let mut b = LZ4_MAGIC.to_vec();
        b.push(if raw { 0x15 } else { 0x25 });
        b.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        let sum = xxhash_rust::xxh32::xxh32(data, LZ4_SEED) & 0x0FFF_FFFF;
        b.extend_from_slice(&sum.to_le_bytes());
        b.extend_from_slice(&payload);
        b
    }

    fn lz4_end() -> Vec<u8> {
        let mut b = LZ4_MAGIC.to_vec();
        b.push(0x15);
        b.extend_from_slice(&[0; 12]);
        b
    }

    #[test]
    fn lz4_concatenated_streams_raw_blocks_and_end_blocks() {
        let mut s = lz4_block(b"{\"Event\":\"a\"}\n", false);
        s.extend(lz4_end());
        s.extend(lz4_block(b"{\"Event\":\"b\"}\n", true));
        s.extend(lz4_end());
        assert_eq!(lz4_end().len(), 21);
        let out = decode_all(Codec::Lz4, s).unwrap();
        assert_eq!(out, b"{\"Event\":\"a\"}\n{\"Event\":\"b\"}\n");
    }

    #[test]
    fn lz4_checksum_mismatch_is_invalid_data() {
        let mut s = lz4_block(b"hello hello hello hello", false);
        s[17] ^= 1;
        let e = decode_all(Codec::Lz4, s).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("checksum"), "{e}");
    }

    #[test]
    fn lz4_truncation_is_unexpected_eof() {
        let s = lz4_block(b"hello hello hello hello", false);
        for cut in [5, LZ4_HEADER, s.len() - 1] {
            let e = decode_all(Codec::Lz4, s[..cut].to_vec()).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "cut at {cut}");
        }
    }

    #[test]
    fn lz4_block_longer_than_its_level_is_rejected() {
        let data = vec![b'x'; 2048];
        let mut s = lz4_block(&data, true);
        s[8] = 0x10; // level 0: at most 1 KiB per block
        let e = decode_all(Codec::Lz4, s).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }

    fn snappy_stream(chunks: &[&[u8]]) -> Vec<u8> {
        let mut s = SNAPPY_MAGIC.to_vec();
        s.extend_from_slice(&1i32.to_be_bytes());
        s.extend_from_slice(&1i32.to_be_bytes());
        for c in chunks {
            let comp = snap::raw::Encoder::new().compress_vec(c).unwrap();
            s.extend_from_slice(&(comp.len() as u32).to_be_bytes());
            s.extend_from_slice(&comp);
        }
        s
    }

    #[test]
    fn snappy_chunks_and_concatenated_streams() {
        let mut s = snappy_stream(&[b"{\"Event\":1}\n", b"{\"Event\":2}\n"]);
        s.extend(snappy_stream(&[b"{\"Event\":3}\n"]));
        let out = decode_all(Codec::Snappy, s).unwrap();
        assert_eq!(out, b"{\"Event\":1}\n{\"Event\":2}\n{\"Event\":3}\n");
    }

    #[test]
    fn snappy_frame_format_is_rejected() {
        // the snappy *frame* format's stream identifier is not snappy-java's
        let e =
            decode_all(Codec::Snappy, b"\xff\x06\x00\x00sNaPpY0123456789".to_vec()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn snappy_truncated_chunk() {
        let s = snappy_stream(&[b"{\"Event\":1}\n{\"Event\":1}\n{\"Event\":1}\n"]);
        let e = decode_all(Codec::Snappy, s[..s.len() - 3].to_vec()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn lzf_stored_and_compressed_chunks() {
        // stored chunk "ab", then compressed chunk "abcabcabc"
        let mut s = b"ZV\x00\x00\x02ab".to_vec();
        s.extend_from_slice(b"ZV\x01\x00\x06\x00\x09\x02abc\x80\x02");
        assert_eq!(decode_all(Codec::Lzf, s).unwrap(), b"ababcabcabc");
        let e = decode_all(Codec::Lzf, b"ZX\x00\x00\x01a".to_vec()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        let e = decode_all(Codec::Lzf, b"ZV\x00\x00\x05ab".to_vec()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn sniff_magic_numbers() {
        assert_eq!(sniff(b"\x28\xb5\x2f\xfd\x00"), Some(Codec::Zstd));
        assert_eq!(sniff(b"\x1f\x8b\x08"), Some(Codec::Gzip));
        assert_eq!(sniff(b"LZ4Block\x25"), Some(Codec::Lz4));
        assert_eq!(sniff(b"\x82SNAPPY\x00\x00"), Some(Codec::Snappy));
        assert_eq!(sniff(b"ZV\x01\x00"), Some(Codec::Lzf));
        assert_eq!(sniff(b"{\"Event\":"), None);
        assert_eq!(sniff(b""), None);
    }

    /// Damaged real streams never panic, whatever the damage: each decoder
    /// returns data or an error. (A cheap deterministic fuzz.)
    #[test]
    fn damaged_real_streams_never_panic() {
        let samples = super::super::testutil::samples();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (dir, ext, codec) in [
            ("spark4-zstd", ".zstd", Codec::Zstd),
            ("spark4-lz4", ".lz4", Codec::Lz4),
            ("spark4-lzf", ".lzf", Codec::Lzf),
            ("spark4-snappy", ".snappy", Codec::Snappy),
            ("spark4-plain", ".gz", Codec::Gzip),
        ] {
            let path = super::super::testutil::find_file(&samples.join(dir), ext);
            let data = std::fs::read(path).unwrap();
            let head = &data[..data.len().min(48 << 10)];
            for round in 0..60 {
                let mut d = head.to_vec();
                let flips = 1 + (next() % 8) as usize;
                for _ in 0..flips {
                    let at = (next() as usize) % d.len();
                    // early rounds hit the headers, later ones anywhere
                    let at = if round < 20 { at % 64 } else { at };
                    d[at] = next() as u8;
                }
                let cut = (next() as usize) % (d.len() + 1);
                let _ = decode_all(codec, d[..cut].to_vec());
                let _ = decode_all(codec, d);
            }
            // pure noise
            for _ in 0..20 {
                let noise: Vec<u8> = (0..(next() % 4096)).map(|_| next() as u8).collect();
                let _ = decode_all(codec, noise);
            }
        }
    }

    #[test]
    fn source_errors_survive_decoders() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::PermissionDenied, "nope"))
            }
        }
        for codec in [
            Codec::None,
            Codec::Zstd,
            Codec::Gzip,
            Codec::Lz4,
            Codec::Snappy,
            Codec::Lzf,
        ] {
            let src = Source::new(Failing);
            let mut d = decoder(codec, Box::new(src)).unwrap();
            let mut out = Vec::new();
            let e = d.read_to_end(&mut out).unwrap_err();
            let inner = into_source_error(e).expect("tagged as source error");
            assert_eq!(inner.kind(), io::ErrorKind::PermissionDenied, "{codec:?}");
        }
    }
}
