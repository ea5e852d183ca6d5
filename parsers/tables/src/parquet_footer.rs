//! A Parquet file's footer checked before polars reads the file.
//!
//! polars trusts the footer: a column chunk whose `total_compressed_size`
//! is 2^40 makes it allocate 2^40 bytes (the process aborts), one of −1
//! panics in `ColumnChunkMetadata::byte_range` (an `unwrap` on an
//! overflowing add). Neither can be caught per table, so every Parquet
//! file lakeaudit reads (checkpoints, sidecars, Iceberg position delete
//! files, `--records`) has its footer checked here first: the magic at
//! both ends, the footer length, and every column chunk's offsets and
//! sizes lying inside the file (and under
//! [`crate::scope::MAX_PARQUET_CHUNK`]). Messages name
//! the row group and column, never bytes of the file.

use crate::error::Reason;
use crate::scope::MAX_PARQUET_CHUNK;
use polars_io::mmap::MmapBytesReader;
use polars_io::parquet::read::FileMetadata;
use polars_io::prelude::ParquetReader;
use polars_io::SerReader;
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

/// What a file that is not Parquet looks like, from its first bytes.
pub fn sniff(head: &[u8]) -> &'static str {
    match head {
        [b'P', b'A', b'R', b'1', ..] => "a Parquet file",
        [b'O', b'R', b'C', ..] => "an ORC file",
        [b'O', b'b', b'j', 1, ..] => "an Avro object container file",
        [b'P', b'F', b'A', b'1', ..] => "a Puffin file",
        [0x1f, 0x8b, ..] => "a gzip file",
        [0x28, 0xb5, 0x2f, 0xfd, ..] => "a zstd frame",
        [] => "an empty file",
        [b'{', ..] | [b'[', ..] => "JSON text",
        _ => "not a Parquet file (no PAR1 magic)",
    }
}

/// Read and check the footer of the Parquet file `f` of `len` bytes.
/// The error is the reason, without the path.
pub fn read_checked<R: MmapBytesReader>(f: &mut R, len: u64) -> Result<Arc<FileMetadata>, Reason> {
    let mut head = [0u8; 4];
    let got = f
        .seek(SeekFrom::Start(0))
        .and_then(|_| f.by_ref().take(4).read(&mut head))?;
    if got < 4 || &head != b"PAR1" {
        return Err(Reason::NotParquet {
            looks_like: sniff(&head[..got]),
        });
    }
    if len < 12 {
        return Err(Reason::TooShort { len });
    }
    let mut tail = [0u8; 8];
    f.seek(SeekFrom::Start(len - 8))
        .and_then(|_| f.read_exact(&mut tail))?;
    if &tail[4..] != b"PAR1" {
        return Err(Reason::NoEndMagic);
    }
    let footer = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer > len - 12 {
        return Err(Reason::FooterPastStart);
    }
    let data_end = len - 8 - footer;
    // Every length the footer's Thrift declares, checked against its bytes
    // before polars reserves it (crate::thrift_check).
    if footer > MAX_FOOTER {
        return Err(Reason::FooterOverCap {
            footer,
            cap: MAX_FOOTER,
        });
    }
    let mut bytes = vec![0u8; footer as usize];
    f.seek(SeekFrom::Start(data_end))
        .and_then(|_| f.read_exact(&mut bytes))?;
    crate::thrift_check::check_footer(&bytes).map_err(|e| Reason::FooterLies(Box::new(e)))?;
    drop(bytes);
    f.seek(SeekFrom::Start(0))?;
    // polars' footer decoder panics on some lying values (a
    // total_compressed_size of -1 overflows `byte_range`); nothing it holds
    // outlives the call, so the panic is caught and named here.
    let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ParquetReader::new(&mut *f).get_metadata().cloned()
    }));
    let meta = match decoded {
        Ok(Ok(m)) => m,
        Ok(Err(e)) => {
            return Err(Reason::FooterDecode {
                message: e.to_string(),
            })
        }
        Err(_) => return Err(Reason::FooterDecoderPanicked),
    };
    check(&meta, data_end)?;
    check_pages(f, &meta)?;
    f.seek(SeekFrom::Start(0))?;
    Ok(meta)
}

/// Longest footer read (real footers are KiB to a few MiB; polars reads
/// the whole footer into memory).
const MAX_FOOTER: u64 = 256 << 20;

/// Longest page header read (a header holds sizes and, optionally, min/max
/// statistics of the page; real ones are tens of bytes to a few KiB).
const MAX_PAGE_HEADER: u64 = 16 << 20;

/// Walk every column chunk's page headers: each page's compressed bytes
/// must lie inside its chunk, and its uncompressed size must be no more
/// than the chunk's (already capped by [`check`]). polars sizes its
/// decompression buffer by a page header, so a header saying 2 GiB in a
/// 1 KiB chunk would otherwise be an allocation no table can survive.
pub fn check_pages<R: Read + Seek>(f: &mut R, meta: &FileMetadata) -> Result<(), Reason> {
    // One buffer for the whole file: headers are read through it, page
    // bodies stepped over (a short step stays inside the buffer).
    let mut r = std::io::BufReader::new(&mut *f);
    let mut pos: Option<u64> = None;
    for (rg, group) in meta.row_groups.iter().enumerate() {
        for c in group.parquet_columns() {
            let col = c.descriptor().path_in_schema.join(".");
            let bad = |page: u64, what: Reason| Reason::InChunk {
                row_group: rg,
                column: col.clone(),
                what: Box::new(Reason::InPage {
                    page,
                    what: Box::new(what),
                }),
            };
            // A dictionary offset inside the leading magic (old writers
            // wrote 0 for "none") is no dictionary page.
            let start = c
                .dictionary_page_offset()
                .filter(|&d| d >= 4)
                .unwrap_or(c.data_page_offset()) as u64;
            let end = start + c.compressed_size() as u64;
            let chunk_plain = c.uncompressed_size() as u64;
            let mut at = start;
            let mut page = 0u64;
            while at < end {
                match pos {
                    Some(p) if p <= at && at - p <= i64::MAX as u64 => {
                        r.seek_relative((at - p) as i64)
                    }
                    _ => r.seek(SeekFrom::Start(at)).map(drop),
                }?;
                let mut t = Thrift {
                    r: &mut r,
                    read: 0,
                    limit: (end - at).min(MAX_PAGE_HEADER),
                };
                let h = t
                    .page_header()
                    .map_err(|e| bad(page, Reason::PageHeader(Box::new(e))))?;
                let header = t.read;
                pos = Some(at + header);
                let (Ok(comp), Ok(plain)) = (u64::try_from(h.1), u64::try_from(h.0)) else {
                    return Err(bad(page, Reason::PageNegativeSize));
                };
                if plain > chunk_plain {
                    return Err(bad(
                        page,
                        Reason::PageOverChunk {
                            plain,
                            chunk: chunk_plain,
                        },
                    ));
                }
                let next = at
                    .checked_add(header)
                    .and_then(|x| x.checked_add(comp))
                    .filter(|&x| x <= end);
                let Some(next) = next else {
                    return Err(bad(page, Reason::PagePastChunk));
                };
                at = next;
                page += 1;
            }
        }
    }
    Ok(())
}

/// A reader of Thrift's compact protocol, enough to find a PageHeader's
/// sizes and step over everything else, counting the bytes it read.
struct Thrift<'a, R: Read> {
    r: &'a mut R,
    read: u64,
    /// Bytes the header may take: the rest of its chunk, at most
    /// [`MAX_PAGE_HEADER`].
    limit: u64,
}

impl<R: Read> Thrift<'_, R> {
    fn byte(&mut self) -> Result<u8, Reason> {
        if self.read >= self.limit {
            return Err(Reason::HeaderPastChunk);
        }
        let mut b = [0u8];
        self.r
            .read_exact(&mut b)
            .map_err(|_| Reason::HeaderEndsEarly)?;
        self.read += 1;
        Ok(b[0])
    }

    fn varint(&mut self) -> Result<u64, Reason> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Reason::HeaderNumberTooLong)
    }

    fn zigzag(&mut self) -> Result<i64, Reason> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    fn skip_bytes(&mut self, n: u64) -> Result<(), Reason> {
        if n > self.limit - self.read {
            return Err(Reason::HeaderPastChunk);
        }
        let got = std::io::copy(&mut self.r.take(n), &mut std::io::sink())?;
        self.read += got;
        if got < n {
            return Err(Reason::HeaderEndsEarly);
        }
        Ok(())
    }

    /// Step over one value of compact type `t`.
    fn skip(&mut self, t: u8, depth: u32) -> Result<(), Reason> {
        if depth > 64 {
            return Err(Reason::HeaderTooDeep);
        }
        match t {
            1 | 2 => Ok(()),
            3 => self.byte().map(drop),
            4..=6 => self.varint().map(drop),
            7 => self.skip_bytes(8),
            8 => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            9 | 10 => {
                let h = self.byte()?;
                let n = match h >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                // Every element takes a byte at least: a count past the
                // chunk's bytes is a lie, refused before looping over it.
                if n > self.limit - self.read {
                    return Err(Reason::HeaderPastChunk);
                }
                for _ in 0..n {
                    // Booleans in a list are one byte each.
                    match h & 0x0f {
                        1 | 2 => self.byte().map(drop)?,
                        e => self.skip(e, depth + 1)?,
                    }
                }
                Ok(())
            }
            11 => {
                let n = self.varint()?;
                if n > 0 {
                    // Two bytes an entry at least (booleans in a map are
                    // one byte each, as in a list).
                    if n > (self.limit - self.read) / 2 {
                        return Err(Reason::HeaderPastChunk);
                    }
                    let kv = self.byte()?;
                    for _ in 0..n {
                        for t in [kv >> 4, kv & 0x0f] {
                            match t {
                                1 | 2 => self.byte().map(drop)?,
                                e => self.skip(e, depth + 1)?,
                            }
                        }
                    }
                }
                Ok(())
            }
            12 => self.fields(depth + 1, |_, _, _| Ok(false)),
            other => Err(Reason::HeaderUnknownType { thrift_type: other }),
        }
    }

    /// Read a struct's fields, handing each (id, type) to `f`, which
    /// returns whether it consumed the value; the others are skipped.
    fn fields(
        &mut self,
        depth: u32,
        mut f: impl FnMut(&mut Self, i16, u8) -> Result<bool, Reason>,
    ) -> Result<(), Reason> {
        let mut last: i16 = 0;
        loop {
            let h = self.byte()?;
            let t = h & 0x0f;
            if t == 0 {
                return Ok(());
            }
            let id = match h >> 4 {
                0 => i16::try_from(self.zigzag()?).map_err(|_| Reason::HeaderBadFieldId)?,
                d => last
                    .checked_add(i16::from(d))
                    .ok_or(Reason::HeaderBadFieldId)?,
            };
            last = id;
            if !f(self, id, t)? {
                self.skip(t, depth)?;
            }
        }
    }

    /// A PageHeader's (uncompressed_page_size, compressed_page_size):
    /// fields 2 and 3, both required i32.
    fn page_header(&mut self) -> Result<(i64, i64), Reason> {
        let (mut plain, mut comp) = (None, None);
        self.fields(0, |t, id, ty| match (id, ty) {
            (2, 5) => {
                plain = Some(t.zigzag()?);
                Ok(true)
            }
            (3, 5) => {
                comp = Some(t.zigzag()?);
                Ok(true)
            }
            _ => Ok(false),
        })?;
        match (plain, comp) {
            (Some(p), Some(c)) => Ok((p, c)),
            _ => Err(Reason::HeaderNoSizes),
        }
    }
}

/// Check that every column chunk lies in the first `data_end` bytes.
pub fn check(meta: &FileMetadata, data_end: u64) -> Result<(), Reason> {
    for (rg, group) in meta.row_groups.iter().enumerate() {
        for c in group.parquet_columns() {
            let col = c.descriptor().path_in_schema.join(".");
            let bad = |what: Reason| Reason::InChunk {
                row_group: rg,
                column: col.clone(),
                what: Box::new(what),
            };
            let data = c.data_page_offset();
            let start = c.dictionary_page_offset().unwrap_or(data);
            let size = c.compressed_size();
            let (Ok(start), Ok(data), Ok(size)) = (
                u64::try_from(start),
                u64::try_from(data),
                u64::try_from(size),
            ) else {
                return Err(bad(Reason::ChunkNegative));
            };
            if size > MAX_PARQUET_CHUNK {
                return Err(bad(Reason::ChunkCompressedOverCap {
                    cap: MAX_PARQUET_CHUNK,
                }));
            }
            if u64::try_from(c.uncompressed_size()).map_or(true, |u| u > MAX_PARQUET_CHUNK) {
                return Err(bad(Reason::ChunkUncompressedOverCap {
                    cap: MAX_PARQUET_CHUNK,
                }));
            }
            let end = start.checked_add(size);
            // A chunk of no values may have no data page: pyarrow writes
            // a zero-row table's chunks as a dictionary page alone, with a
            // data page offset of 0.
            let no_data_page = c.num_values() == 0 && data == 0;
            if (data < start && !no_data_page) || end.is_none_or(|e| e > data_end) {
                return Err(bad(Reason::ChunkOutsideData));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    /// The `sales` checkpoint (written by delta-rs) with the first page
    /// header's field `field` (2: uncompressed size, 3: compressed size)
    /// set to 8191: the same two-byte varint length, so nothing else moves.
    fn patched(field: u8) -> (std::path::PathBuf, Result<Arc<FileMetadata>, Reason>) {
        let src = testdata::data(
            "tables/warehouse/sales/_delta_log/00000000000000000023.checkpoint.parquet",
        );
        let mut b = std::fs::read(src).unwrap();
        // The first page header starts after the magic: field 1 (type) is
        // `15 04`, then fields 2 and 3, each `15` and a two-byte varint.
        assert_eq!(&b[4..6], &[0x15, 0x04]);
        assert_eq!((b[6], b[9]), (0x15, 0x15));
        assert!(b[7] & 0x80 != 0 && b[8] & 0x80 == 0 && b[10] & 0x80 != 0 && b[11] & 0x80 == 0);
        let at = if field == 2 { 7 } else { 10 };
        b[at] = 0xfe;
        b[at + 1] = 0x7f;
        let p = std::env::temp_dir().join(format!(
            "lakeaudit-page-{field}-{}.parquet",
            std::process::id()
        ));
        std::fs::write(&p, &b).unwrap();
        let mut f = File::open(&p).unwrap();
        let r = read_checked(&mut f, b.len() as u64);
        (p, r)
    }

    /// A zero-row table by pyarrow: its chunks are a dictionary page with
    /// no data page (data_page_offset 0); it was refused as "outside the
    /// file's data" (issue 29.8).
    #[test]
    fn a_zero_row_table_written_by_pyarrow_is_read() {
        let src = testdata::data("records/empty-pyarrow.parquet");
        let len = std::fs::metadata(&src).unwrap().len();
        let meta = read_checked(&mut File::open(&src).unwrap(), len).unwrap();
        assert_eq!(meta.num_rows, 0);
        assert_eq!(meta.row_groups.len(), 1);
    }

    #[test]
    fn page_headers_that_outgrow_their_chunk_are_refused() {
        let src = testdata::data(
            "tables/warehouse/sales/_delta_log/00000000000000000023.checkpoint.parquet",
        );
        let len = std::fs::metadata(&src).unwrap().len();
        let meta = read_checked(&mut File::open(&src).unwrap(), len).expect("the real file passes");
        let first = &meta.row_groups[0].parquet_columns()[0];
        assert!(first.uncompressed_size() < 8191 && first.compressed_size() < 8191);
        let (p, r) = patched(2);
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains(
                "page 0: its header says 8191 bytes uncompressed, more than its column chunk's"
            ),
            "{e}"
        );
        let _ = std::fs::remove_file(p);
        let (p, r) = patched(3);
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains("page 0: its header places the page past the end of its column chunk"),
            "{e}"
        );
        let _ = std::fs::remove_file(p);
    }
}
