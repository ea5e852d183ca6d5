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
//! [`MAX_PARQUET_CHUNK`](crate::scope::MAX_PARQUET_CHUNK)). Messages name
//! the row group and column, never bytes of the file.

use crate::scope::MAX_PARQUET_CHUNK;
use polars_io::parquet::read::FileMetadata;
use polars_io::prelude::ParquetReader;
use polars_io::SerReader;
use std::fs::File;
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
pub fn read_checked(f: &mut File, len: u64) -> Result<Arc<FileMetadata>, String> {
    let mut head = [0u8; 4];
    let got = f
        .seek(SeekFrom::Start(0))
        .and_then(|_| f.by_ref().take(4).read(&mut head))
        .map_err(|e| e.to_string())?;
    if got < 4 || &head != b"PAR1" {
        return Err(format!("is {}", sniff(&head[..got])));
    }
    if len < 12 {
        return Err(format!("{len} bytes is too short for a Parquet file"));
    }
    let mut tail = [0u8; 8];
    f.seek(SeekFrom::Start(len - 8))
        .and_then(|_| f.read_exact(&mut tail))
        .map_err(|e| e.to_string())?;
    if &tail[4..] != b"PAR1" {
        return Err("no PAR1 magic at the end: truncated, or not Parquet".into());
    }
    let footer = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer > len - 12 {
        return Err("footer length runs past the start of the file (truncated?)".into());
    }
    let data_end = len - 8 - footer;
    f.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    // polars' footer decoder panics on some lying values (a
    // total_compressed_size of -1 overflows `byte_range`); nothing it holds
    // outlives the call, so the panic is caught and named here.
    let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ParquetReader::new(&mut *f).get_metadata().cloned()
    }));
    let meta = match decoded {
        Ok(Ok(m)) => m,
        Ok(Err(e)) => return Err(format!("footer does not decode: {e}")),
        Err(_) => {
            return Err("footer does not decode: a column chunk's offset and size overflow".into())
        }
    };
    check(&meta, data_end)?;
    f.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    Ok(meta)
}

/// Check that every column chunk lies in the first `data_end` bytes.
pub fn check(meta: &FileMetadata, data_end: u64) -> Result<(), String> {
    for (rg, group) in meta.row_groups.iter().enumerate() {
        for c in group.parquet_columns() {
            let col = c.descriptor().path_in_schema.join(".");
            let bad = |what: &str| format!("row group {rg}, column {col}: {what}");
            let data = c.data_page_offset();
            let start = c.dictionary_page_offset().unwrap_or(data);
            let size = c.compressed_size();
            let (Ok(start), Ok(data), Ok(size)) = (
                u64::try_from(start),
                u64::try_from(data),
                u64::try_from(size),
            ) else {
                return Err(bad("negative offset or size in the footer"));
            };
            if size > MAX_PARQUET_CHUNK {
                return Err(bad(&format!(
                    "the footer's compressed size is over the {MAX_PARQUET_CHUNK}-byte cap"
                )));
            }
            if u64::try_from(c.uncompressed_size()).map_or(true, |u| u > MAX_PARQUET_CHUNK) {
                return Err(bad(&format!(
                    "the footer's uncompressed size is negative or over the {MAX_PARQUET_CHUNK}-byte cap"
                )));
            }
            let end = start.checked_add(size);
            if data < start || end.is_none_or(|e| e > data_end) {
                return Err(bad(
                    "the footer places the column chunk outside the file's data",
                ));
            }
        }
    }
    Ok(())
}
