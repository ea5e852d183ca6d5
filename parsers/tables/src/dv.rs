//! Deletion vectors: Z85 text, the portable 64-bit Roaring bitmap, and the
//! on-disk framing Delta and Iceberg share.
//!
//! Delta (`PROTOCOL.md`, "Deletion Vector Format"): a DV is the magic number
//! 1681511377 (little-endian, bytes `D1 D3 39 64`) followed by a portable
//! 64-bit Roaring bitmap. In a file, byte 0 is the format version (1); each DV
//! is stored as a big-endian `u32` size of magic + bitmap, the bytes, and a
//! big-endian CRC-32 of them. Inline DVs (`storageType = 'i'`) are the magic +
//! bitmap, Z85-encoded.
//!
//! Iceberg (`puffin-spec.md`, `deletion-vector-v1`): the blob at
//! `content_offset` is the same size + magic + bitmap + CRC framing.
//!
//! The 64-bit bitmap (RoaringFormatSpec, "Extension for 64-bit
//! implementations") is a little-endian `u64` bucket count, then per bucket a
//! `u32` key (the high 32 bits) and a 32-bit Roaring bitmap. Only the headers
//! are needed for the cardinality; [`parse_portable64`] also walks every
//! container to check it agrees with its header.

use crate::error::Reason;

/// The DV magic number, read little-endian.
pub const MAGIC: u32 = 1_681_511_377;

const SERIAL_COOKIE_NO_RUN: u32 = 12346;
const SERIAL_COOKIE: u32 = 12347;
const NO_OFFSET_THRESHOLD: usize = 4;
const MAX_ARRAY: u32 = 4096;

/// What a bitmap holds, from its containers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BitmapSummary {
    /// Number of positions set.
    pub cardinality: u64,
    /// The largest position set, if any.
    pub max: Option<u64>,
}

/// Decode Z85 (ZeroMQ RFC 32) text. The text length must be a multiple of 5.
pub fn z85_decode(text: &str) -> Result<Vec<u8>, Reason> {
    const ALPHABET: &[u8; 85] =
        b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
    let bytes = text.as_bytes();
    if bytes.len() % 5 != 0 {
        return Err(Reason::Z85Length { chars: bytes.len() });
    }
    let mut table = [255u8; 256];
    for (i, &c) in ALPHABET.iter().enumerate() {
        table[c as usize] = i as u8;
    }
    let mut out = Vec::with_capacity(bytes.len() / 5 * 4);
    for chunk in bytes.chunks_exact(5) {
        let mut value: u64 = 0;
        for &c in chunk {
            let d = table[c as usize];
            if d == 255 {
                return Err(Reason::Z85Character {
                    character: c as char,
                });
            }
            value = value * 85 + u64::from(d);
        }
        let value = u32::try_from(value).map_err(|_| Reason::Z85Overflow)?;
        out.extend_from_slice(&value.to_be_bytes());
    }
    Ok(out)
}

/// Format 16 bytes as a canonical UUID (`8-4-4-4-12` lowercase hex).
pub fn uuid_text(b: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{byte:02x}"));
    }
    s
}

fn u16_at(b: &[u8], at: usize) -> Result<u16, Reason> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or(Reason::BitmapTruncated { at })
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, Reason> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or(Reason::BitmapTruncated { at })
}

/// Parse one 32-bit Roaring bitmap (portable layout) at the start of `b`.
/// Returns its summary (values are the low 32 bits) and its length in bytes.
pub fn parse_roaring32(b: &[u8]) -> Result<(BitmapSummary, usize), Reason> {
    let cookie = u32_at(b, 0)?;
    let (size, has_runs, mut pos) = if cookie & 0xFFFF == SERIAL_COOKIE {
        ((cookie >> 16) as usize + 1, true, 4usize)
    } else if cookie == SERIAL_COOKIE_NO_RUN {
        (u32_at(b, 4)? as usize, false, 8usize)
    } else {
        return Err(Reason::RoaringCookie);
    };
    if size > 1 << 16 {
        return Err(Reason::TooManyContainers);
    }
    let run_bitmap = if has_runs {
        let n = size.div_ceil(8);
        let r = b
            .get(pos..pos + n)
            .ok_or(Reason::BitmapTruncatedIn { part: "run flags" })?;
        pos += n;
        Some(r)
    } else {
        None
    };
    let header = pos;
    pos += 4 * size;
    if b.len() < pos {
        return Err(Reason::BitmapTruncatedIn {
            part: "container headers",
        });
    }
    if !has_runs || size >= NO_OFFSET_THRESHOLD {
        pos += 4 * size;
        if b.len() < pos {
            return Err(Reason::BitmapTruncatedIn {
                part: "container offsets",
            });
        }
    }
    let mut summary = BitmapSummary::default();
    let mut last_key: Option<u16> = None;
    for i in 0..size {
        let key = u16_at(b, header + 4 * i)?;
        let card = u32::from(u16_at(b, header + 4 * i + 2)?) + 1;
        if last_key.is_some_and(|k| k >= key) {
            return Err(Reason::KeysNotIncreasing { container: i });
        }
        last_key = Some(key);
        let is_run = run_bitmap.is_some_and(|r| r[i / 8] & (1 << (i % 8)) != 0);
        let (counted, max_low) = if is_run {
            let runs = u16_at(b, pos)? as usize;
            pos += 2;
            let mut total = 0u32;
            let mut max_low = 0u32;
            let mut next_free = 0u32;
            for r in 0..runs {
                let start = u32::from(u16_at(b, pos + 4 * r)?);
                let len = u32::from(u16_at(b, pos + 4 * r + 2)?) + 1;
                if start < next_free || start + len > 1 << 16 {
                    return Err(Reason::RunOverlaps {
                        run: r,
                        container: i,
                    });
                }
                next_free = start + len;
                total += len;
                max_low = start + len - 1;
            }
            pos += 4 * runs;
            (total, max_low)
        } else if card <= MAX_ARRAY {
            let mut prev: Option<u16> = None;
            for j in 0..card as usize {
                let v = u16_at(b, pos + 2 * j)?;
                if prev.is_some_and(|p| p >= v) {
                    return Err(Reason::ArrayNotSorted { container: i });
                }
                prev = Some(v);
            }
            pos += 2 * card as usize;
            (card, u32::from(prev.unwrap_or(0)))
        } else {
            let words = b
                .get(pos..pos + 8192)
                .ok_or(Reason::BitsetTruncated { container: i })?;
            let mut total = 0u32;
            let mut max_low = 0u32;
            for (w, chunk) in words.chunks_exact(8).enumerate() {
                let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
                if word != 0 {
                    total += word.count_ones();
                    max_low = (w as u32) * 64 + 63 - word.leading_zeros();
                }
            }
            pos += 8192;
            (total, max_low)
        };
        if counted != card {
            return Err(Reason::CardinalityMismatch { container: i });
        }
        summary.cardinality += u64::from(card);
        summary.max = Some((u64::from(key) << 16) | u64::from(max_low));
    }
    Ok((summary, pos))
}

/// Parse a portable 64-bit Roaring bitmap that fills `b` exactly.
pub fn parse_portable64(b: &[u8]) -> Result<BitmapSummary, Reason> {
    let buckets = b
        .get(0..8)
        .map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
        .ok_or(Reason::NoBucketCount)?;
    let mut pos = 8usize;
    let mut out = BitmapSummary::default();
    let mut last: Option<u32> = None;
    for i in 0..buckets {
        let key = u32_at(b, pos)?;
        if key & 0x8000_0000 != 0 {
            return Err(Reason::BucketSignBit { bucket: i });
        }
        if last.is_some_and(|k| k >= key) {
            return Err(Reason::BucketsNotIncreasing { bucket: i });
        }
        last = Some(key);
        pos += 4;
        let (s, used) = parse_roaring32(&b[pos..])?;
        pos += used;
        out.cardinality += s.cardinality;
        if let Some(m) = s.max {
            out.max = Some((u64::from(key) << 32) | m);
        }
    }
    if pos != b.len() {
        return Err(Reason::BytesAfterBitmap {
            left: b.len() - pos,
        });
    }
    Ok(out)
}

/// Check magic + bitmap (the bytes a Delta inline DV decodes to, and the body
/// of a framed DV).
pub fn parse_magic_bitmap(b: &[u8]) -> Result<BitmapSummary, Reason> {
    let magic = b
        .get(0..4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or(Reason::NoMagic)?;
    if magic != MAGIC {
        return Err(Reason::WrongMagic { expected: MAGIC });
    }
    parse_portable64(&b[4..])
}

/// Check one framed DV at `offset` of a file's bytes: big-endian size, magic +
/// bitmap of that size, big-endian CRC-32 of magic + bitmap. `expected_size`
/// is the size the metadata gives for magic + bitmap (Delta `sizeInBytes`,
/// Iceberg `content_size_in_bytes − 8`).
pub fn check_framed(
    file: &[u8],
    offset: usize,
    expected_size: Option<usize>,
) -> Result<BitmapSummary, Reason> {
    let size_bytes = file.get(offset..offset + 4).ok_or(Reason::FileEndsBefore {
        len: file.len(),
        offset,
    })?;
    let size =
        u32::from_be_bytes([size_bytes[0], size_bytes[1], size_bytes[2], size_bytes[3]]) as usize;
    if let Some(e) = expected_size {
        if e != size {
            return Err(Reason::StoredSizeDiffers { metadata: e });
        }
    }
    let body = file
        .get(offset + 4..offset + 4 + size)
        .ok_or(Reason::DvPastEnd)?;
    let crc_bytes = file
        .get(offset + 4 + size..offset + 8 + size)
        .ok_or(Reason::NoCrc)?;
    let stored = u32::from_be_bytes([crc_bytes[0], crc_bytes[1], crc_bytes[2], crc_bytes[3]]);
    let computed = crc32fast::hash(body);
    if stored != computed {
        return Err(Reason::CrcMismatch);
    }
    parse_magic_bitmap(body)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Serialize positions the way the Java/C Roaring libraries do (array
    /// containers only, no runs): enough to build test vectors.
    pub fn portable64(positions: &[u64]) -> Vec<u8> {
        let mut by_key: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for &p in positions {
            by_key.entry((p >> 32) as u32).or_default().push(p as u32);
        }
        let mut out = (by_key.len() as u64).to_le_bytes().to_vec();
        for (key, lows) in by_key {
            out.extend_from_slice(&key.to_le_bytes());
            let mut containers: std::collections::BTreeMap<u16, Vec<u16>> = Default::default();
            for l in lows {
                containers
                    .entry((l >> 16) as u16)
                    .or_default()
                    .push(l as u16);
            }
            out.extend_from_slice(&SERIAL_COOKIE_NO_RUN.to_le_bytes());
            out.extend_from_slice(&(containers.len() as u32).to_le_bytes());
            for (k, v) in &containers {
                out.extend_from_slice(&k.to_le_bytes());
                out.extend_from_slice(&((v.len() - 1) as u16).to_le_bytes());
            }
            let header = 8 + 8 * containers.len();
            let mut off = header as u32;
            for v in containers.values() {
                out.extend_from_slice(&off.to_le_bytes());
                off += 2 * v.len() as u32;
            }
            for v in containers.values() {
                for x in v {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        out
    }

    pub fn framed(positions: &[u64]) -> Vec<u8> {
        let mut body = MAGIC.to_le_bytes().to_vec();
        body.extend(portable64(positions));
        let mut out = (body.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
        out
    }

    #[test]
    fn inline_dvs_decode_and_the_native_magic_is_refused() {
        // An inline DV as Delta writes it: Z85 of magic + portable bitmap,
        // padded to a multiple of 4 bytes (the fixture orders_dv has one).
        let mut body = MAGIC.to_le_bytes().to_vec();
        body.extend(portable64(&[0, 1, 39]));
        let s = parse_magic_bitmap(&body).unwrap();
        assert_eq!((s.cardinality, s.max), (3, Some(39)));
        // PROTOCOL.md's "JSON Example 3 — Inline" starts with 64 39 D3 D0:
        // the big-endian native-format magic 1681511376, not the portable
        // layout this reader decodes; it must be refused by name.
        let bytes = z85_decode("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L").unwrap();
        assert_eq!(bytes.len(), 40);
        assert_eq!(&bytes[..4], &[0x64, 0x39, 0xD3, 0xD0]);
        let e = parse_magic_bitmap(&bytes).unwrap_err().to_string();
        assert!(e.contains("not a portable Roaring"), "{e}");
    }

    #[test]
    fn protocol_relative_path_example_names_its_uuid() {
        // PROTOCOL.md, "JSON Example 1": prefix "ab", then the Z85 UUID.
        let text = "ab^-aqEH.-t@S}K{vb[*k^";
        let uuid: [u8; 16] = z85_decode(&text[2..]).unwrap().try_into().unwrap();
        assert_eq!(uuid_text(&uuid), "d2c639aa-8816-431a-aaf6-d3fe2512ff61");
    }

    #[test]
    fn framed_vectors_round_trip_and_bad_crc_is_caught() {
        let positions = [0u64, 5, 70_000, (1 << 32) + 9];
        let mut file = vec![1u8];
        file.extend(framed(&positions));
        let s = check_framed(&file, 1, None).unwrap();
        assert_eq!(s.cardinality, 4);
        assert_eq!(s.max, Some((1 << 32) + 9));
        let last = file.len() - 1;
        file[last] ^= 0xFF;
        let e = check_framed(&file, 1, None).unwrap_err().to_string();
        assert!(e.contains("CRC-32 mismatch"), "{e}");
    }

    #[test]
    fn run_and_bitset_containers_count_their_values() {
        // One bucket, cookie with runs: container 0 is a run [10, 19],
        // container 1 (key 1) a bitset with 5000 values.
        let mut b = Vec::new();
        b.extend_from_slice(&(SERIAL_COOKIE | (1 << 16)).to_le_bytes()); // 2 containers
        b.push(0b01); // container 0 is a run container
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&9u16.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&4999u16.to_le_bytes());
        // size < 4 with runs: no offsets
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&10u16.to_le_bytes());
        b.extend_from_slice(&9u16.to_le_bytes());
        let mut words = [0u64; 1024];
        for v in 0..5000u32 {
            words[(v / 64) as usize] |= 1 << (v % 64);
        }
        for w in words {
            b.extend_from_slice(&w.to_le_bytes());
        }
        let (s, used) = parse_roaring32(&b).unwrap();
        assert_eq!(used, b.len());
        assert_eq!(s.cardinality, 5010);
        assert_eq!(s.max, Some((1 << 16) + 4999));
    }

    #[test]
    fn headers_that_lie_are_rejected() {
        let mut b = portable64(&[1, 2, 3]);
        // Claim 4 values in the only container.
        let card_at = 8 + 4 + 8 + 2;
        b[card_at] = 3;
        assert!(parse_portable64(&b).is_err());
        assert!(z85_decode("abcd").is_err());
        assert!(parse_magic_bitmap(&[0, 0, 0, 0]).is_err());
    }
}
