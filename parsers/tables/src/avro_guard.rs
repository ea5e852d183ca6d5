//! Decompressed sizes of an Avro object container file's blocks, checked
//! before `apache-avro` decodes it.
//!
//! `apache-avro` inflates each block whole (`read_to_end` for deflate and
//! zstd, a buffer of the length a snappy block declares): a 38 KB manifest
//! list of zstd blocks inflates to 1.6 GB. It has no cap of its own for
//! this (its `max_allocation_bytes` bounds single values, not blocks), so
//! the container (Avro 1.11 spec, "Object Container Files") is walked here
//! first: header, then each block's record count, size, bytes and sync
//! marker, each block inflated into a counting sink with at most
//! [`MAX_AVRO_BLOCK`] bytes of output.

use crate::scope::MAX_AVRO_BLOCK;
use std::io::{BufRead, Read};

/// An Avro `long`: zig-zag varint.
fn long(r: &mut impl Read) -> Result<i64, String> {
    let mut v: u64 = 0;
    for i in 0..10 {
        let mut b = [0u8];
        r.read_exact(&mut b)
            .map_err(|_| "file ends inside a number".to_string())?;
        v |= u64::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            return Ok(((v >> 1) as i64) ^ -((v & 1) as i64));
        }
    }
    Err("a number runs over 10 bytes".into())
}

fn bytes(r: &mut impl Read, limit: u64) -> Result<Vec<u8>, String> {
    let n = long(r)?;
    let n = u64::try_from(n).map_err(|_| "negative length".to_string())?;
    if n > limit {
        return Err(format!("a length of {n} bytes is more than the file holds"));
    }
    let mut b = Vec::with_capacity(n as usize);
    r.take(n).read_to_end(&mut b).map_err(|e| e.to_string())?;
    if (b.len() as u64) < n {
        return Err("file ends inside a string".into());
    }
    Ok(b)
}

/// Bytes a reader yields, at most `cap + 1`.
fn inflated(r: impl Read, cap: u64) -> Result<u64, String> {
    std::io::copy(&mut r.take(cap + 1), &mut std::io::sink()).map_err(|e| e.to_string())
}

/// Walk the container in `r` (of `len` bytes): every block's decompressed
/// size must be at most `cap`. Errors name the block, not its bytes.
pub(crate) fn check(r: impl BufRead, len: u64, cap: u64) -> Result<(), String> {
    let mut r = r;
    let mut magic = [0u8; 4];
    r.read_exact(&mut magic)
        .map_err(|_| "too short for an Avro file".to_string())?;
    if &magic != b"Obj\x01" {
        return Err("not an Avro object container file (no Obj magic)".into());
    }
    let mut codec = b"null".to_vec();
    loop {
        let mut n = long(&mut r)?;
        if n == 0 {
            break;
        }
        if n < 0 {
            n = n.checked_neg().ok_or("bad header map block count")?;
            long(&mut r)?;
        }
        for _ in 0..n {
            let k = bytes(&mut r, len)?;
            let v = bytes(&mut r, len)?;
            if k == b"avro.codec" {
                codec = v;
            }
        }
    }
    let mut sync = [0u8; 16];
    r.read_exact(&mut sync)
        .map_err(|_| "file ends inside the header's sync marker".to_string())?;
    for block in 0u64.. {
        if r.fill_buf().map_err(|e| e.to_string())?.is_empty() {
            return Ok(());
        }
        let _count = long(&mut r)?;
        let data = bytes(&mut r, len).map_err(|e| format!("block {block}: {e}"))?;
        let over = |n: u64| {
            format!(
                "block {block} decompresses to more than the {cap}-byte cap ({n} bytes or more)"
            )
        };
        let out = match codec.as_slice() {
            b"null" => data.len() as u64,
            b"deflate" => inflated(flate2::read::DeflateDecoder::new(&data[..]), cap)
                .map_err(|e| format!("block {block} does not inflate: {e}"))?,
            b"zstandard" => {
                let d = zstd::stream::read::Decoder::new(&data[..])
                    .map_err(|e| format!("block {block}: {e}"))?;
                inflated(d, cap).map_err(|e| format!("block {block} does not inflate: {e}"))?
            }
            b"snappy" => {
                // Snappy blocks end with a CRC-32 of the uncompressed data.
                let body = &data[..data.len().saturating_sub(4)];
                snap::raw::decompress_len(body).map_err(|e| format!("block {block}: {e}"))? as u64
            }
            _ => {
                return Err(
                    "its avro.codec is not one lakeaudit reads (null, deflate, snappy, zstandard)"
                        .into(),
                )
            }
        };
        if out > cap {
            return Err(over(out));
        }
        let mut s = [0u8; 16];
        r.read_exact(&mut s)
            .map_err(|_| format!("block {block}: file ends before its sync marker"))?;
        if s != sync {
            return Err(format!(
                "block {block}: sync marker differs from the header's"
            ));
        }
    }
    Ok(())
}

/// The cap in use: [`MAX_AVRO_BLOCK`].
pub(crate) fn check_default(r: impl BufRead, len: u64) -> Result<(), String> {
    check(r, len, MAX_AVRO_BLOCK)
}
