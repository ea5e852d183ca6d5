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

use crate::error::Reason;
use crate::scope::MAX_AVRO_BLOCK;
use std::io::{BufRead, Read};

/// An Avro `long`: zig-zag varint.
fn long(r: &mut impl Read) -> Result<i64, Reason> {
    let mut v: u64 = 0;
    for i in 0..10 {
        let mut b = [0u8];
        r.read_exact(&mut b).map_err(|_| Reason::AvroEndsInNumber)?;
        v |= u64::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            return Ok(((v >> 1) as i64) ^ -((v & 1) as i64));
        }
    }
    Err(Reason::AvroNumberTooLong)
}

fn bytes(r: &mut impl Read, limit: u64) -> Result<Vec<u8>, Reason> {
    let n = long(r)?;
    let n = u64::try_from(n).map_err(|_| Reason::AvroNegativeLength)?;
    if n > limit {
        return Err(Reason::AvroLengthOverFile { length: n });
    }
    let mut b = Vec::with_capacity(n as usize);
    r.take(n).read_to_end(&mut b)?;
    if (b.len() as u64) < n {
        return Err(Reason::AvroEndsInString);
    }
    Ok(b)
}

/// Bytes a reader yields, at most `cap + 1`.
fn inflated(r: impl Read, cap: u64) -> std::io::Result<u64> {
    std::io::copy(&mut r.take(cap + 1), &mut std::io::sink())
}

/// Walk the container in `r` (of `len` bytes): every block's decompressed
/// size must be at most `cap`. Errors name the block, not its bytes.
pub(crate) fn check(r: impl BufRead, len: u64, cap: u64) -> Result<(), Reason> {
    let mut r = r;
    let mut magic = [0u8; 4];
    r.read_exact(&mut magic).map_err(|_| Reason::AvroTooShort)?;
    if &magic != b"Obj\x01" {
        return Err(Reason::AvroNoMagic);
    }
    let mut codec = b"null".to_vec();
    loop {
        let mut n = long(&mut r)?;
        if n == 0 {
            break;
        }
        if n < 0 {
            n = n.checked_neg().ok_or(Reason::AvroHeaderCount)?;
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
        .map_err(|_| Reason::AvroEndsInSync)?;
    for block in 0u64.. {
        if r.fill_buf()?.is_empty() {
            return Ok(());
        }
        let _count = long(&mut r)?;
        let in_block = |what: Reason| Reason::InBlock {
            block,
            what: Box::new(what),
        };
        let inflate = |source| Reason::BlockInflate { block, source };
        let data = bytes(&mut r, len).map_err(in_block)?;
        let out = match codec.as_slice() {
            b"null" => data.len() as u64,
            b"deflate" => {
                inflated(flate2::read::DeflateDecoder::new(&data[..]), cap).map_err(inflate)?
            }
            b"zstandard" => {
                let d = zstd::stream::read::Decoder::new(&data[..])
                    .map_err(|e| in_block(Reason::Io(e)))?;
                inflated(d, cap).map_err(inflate)?
            }
            b"snappy" => {
                // Snappy blocks end with a CRC-32 of the uncompressed data.
                let body = &data[..data.len().saturating_sub(4)];
                snap::raw::decompress_len(body).map_err(|e| in_block(Reason::Snappy(e)))? as u64
            }
            _ => return Err(Reason::AvroCodec),
        };
        if out > cap {
            return Err(Reason::BlockOverCap {
                block,
                cap,
                size: out,
            });
        }
        let mut s = [0u8; 16];
        r.read_exact(&mut s)
            .map_err(|_| in_block(Reason::AvroEndsBeforeSync))?;
        if s != sync {
            return Err(in_block(Reason::SyncDiffers));
        }
    }
    Ok(())
}

/// The cap in use: [`MAX_AVRO_BLOCK`].
pub(crate) fn check_default(r: impl BufRead, len: u64) -> Result<(), Reason> {
    check(r, len, MAX_AVRO_BLOCK)
}
