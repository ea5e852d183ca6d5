//! A data file checked page by page before polars decodes it.
//!
//! polars sizes what it allocates from what a Parquet file says about
//! itself: the footer's row counts, each page header's value count, a
//! dictionary's entry count, the lengths of the RLE/bit-packed runs of
//! levels and dictionary indices, the totals of delta encodings. A file
//! that lies about any of them makes it allocate what the machine does not
//! have, and the process aborts (an allocation failure cannot be caught),
//! losing every other table's output. [`check_data_file`] reads what
//! polars will read (the footer, then every page of the columns asked
//! for, decompressed with polars' own codecs into a buffer of the size the
//! header declares, as polars does) and refuses the file unless:
//!
//! - the footer and every page header pass [`crate::parquet_footer`]'s
//!   checks (every chunk and page inside the file and its chunk);
//! - no page is over [`MAX_PAGE`] uncompressed, and what the columns would
//!   decode to (rows × value width, plus their bytes) is under
//!   [`MAX_DECODED`];
//! - the row groups' rows add up to the footer's, a flat column holds one
//!   value per row, and its pages' value counts add up to its chunk's;
//! - a dictionary holds no more entries than its bytes can encode;
//! - every RLE/bit-packed run of levels and of dictionary indices, and
//!   every delta encoding's count, stays within its page's values.
//!
//! Messages name the row group, column and page, never bytes of the file.

use crate::error::Reason;
use crate::parquet_footer::read_checked;
use polars_io::mmap::MmapBytesReader;
pub use polars_io::parquet::read::FileMetadata;
use polars_parquet::parquet::compression::{decompress, Compression, DecompressionContext};
use polars_parquet::parquet::metadata::ColumnChunkMetadata;
use polars_parquet::parquet::schema::types::PhysicalType;
use polars_parquet_format::thrift::protocol::TCompactInputProtocol;
use polars_parquet_format::{Encoding, PageHeader, PageType};
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

/// Largest page decoded (uncompressed bytes). Writers cut pages at about
/// 1 MiB (parquet-mr, arrow-rs, pyarrow); a dictionary page at about the
/// same.
pub const MAX_PAGE: u64 = 256 << 20;

/// Most that the columns read from one table data file may decode to:
/// rows × the width of each value, plus the columns' uncompressed bytes.
pub const MAX_DECODED: u64 = 1 << 30;

/// The same for a `--records` or `--aggregates` file, which is read whole
/// (a Spark map's part file of JSON text columns decodes to several times
/// its size).
pub const MAX_DECODED_RECORDS: u64 = 4 << 30;

/// Longest page header (as in [`crate::parquet_footer`]).
const MAX_PAGE_HEADER: usize = 16 << 20;

/// Check the Parquet data file `f` of `len` bytes before polars reads its
/// `columns` (top-level names in the file, every leaf under each; those it
/// lacks are not read), which may decode to at most `max_decoded` bytes
/// ([`MAX_DECODED`], [`MAX_DECODED_RECORDS`]). The error is the reason,
/// without the path.
pub fn check_data_file<R: MmapBytesReader>(
    f: &mut R,
    len: u64,
    columns: &[&str],
    max_decoded: u64,
) -> Result<Arc<FileMetadata>, Reason> {
    let meta = read_checked(f, len)?;
    let groups: u64 = meta.row_groups.iter().map(|g| g.num_rows() as u64).sum();
    if groups != meta.num_rows as u64 {
        return Err(Reason::RowCountMismatch {
            footer: meta.num_rows as u64,
            groups,
        });
    }
    let mut decoded = 0u64;
    let mut ctx = DecompressionContext::Unset;
    for (rg, group) in meta.row_groups.iter().enumerate() {
        let rows = group.num_rows() as u64;
        for c in group.parquet_columns() {
            let path = &c.descriptor().path_in_schema;
            if !path
                .first()
                .is_some_and(|root| columns.contains(&root.as_str()))
            {
                continue;
            }
            let name = path.join(".");
            let bad = |what: Reason| Reason::InChunk {
                row_group: rg,
                column: name.clone(),
                what: Box::new(what),
            };
            let d = &c.descriptor().descriptor;
            let values =
                u64::try_from(c.num_values()).map_err(|_| bad(Reason::NegativeChunkValues))?;
            if d.max_rep_level == 0 && values != rows {
                return Err(bad(Reason::ValuesForRows { values, rows }));
            }
            decoded = decoded
                .saturating_add(values.saturating_mul(width(d.primitive_type.physical_type) + 1))
                .saturating_add(c.uncompressed_size() as u64);
            if decoded > max_decoded {
                return Err(Reason::DecodesOver {
                    rows: meta.num_rows as u64,
                    max: max_decoded,
                });
            }
            let levels = (
                bit_width(d.max_rep_level as u64),
                bit_width(d.max_def_level as u64),
            );
            check_chunk(f, c, values, levels, &mut ctx).map_err(bad)?;
        }
    }
    f.seek(SeekFrom::Start(0))?;
    Ok(meta)
}

/// Why [`read_columns`] read no rows from a data file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file is malformed or lies about what it holds
    /// ([`check_data_file`] refused it): bad input.
    #[error(transparent)]
    Refused(Reason),
    /// polars could not decode a file that passed the checks (its
    /// message).
    #[error("{0}")]
    Failed(String),
}

/// The `columns` (top-level names; those the file lacks are left out) of
/// the Parquet data file `file` of `len` bytes, read by polars once
/// [`check_data_file`] has passed it. The error is the reason, without
/// the path. A panic inside polars on a file that passed is the caller's
/// to catch (it costs one input).
pub fn read_columns<R: MmapBytesReader>(
    file: R,
    len: u64,
    columns: &[&str],
    max_decoded: u64,
) -> Result<polars::prelude::DataFrame, ReadError> {
    read_columns_and_footer(file, len, columns, max_decoded).map(|(df, _)| df)
}

/// [`read_columns`], and the file's footer (its row groups' sizes: what a
/// rewrite of these rows would weigh).
pub fn read_columns_and_footer<R: MmapBytesReader>(
    mut file: R,
    len: u64,
    columns: &[&str],
    max_decoded: u64,
) -> Result<(polars::prelude::DataFrame, Arc<FileMetadata>), ReadError> {
    use polars_io::prelude::ParquetReader;
    use polars_io::SerReader;
    let meta = check_data_file(&mut file, len, columns, max_decoded).map_err(ReadError::Refused)?;
    let present: Vec<String> = columns
        .iter()
        .filter(|n| {
            meta.schema()
                .columns()
                .iter()
                .any(|c| c.path_in_schema.first().is_some_and(|r| r.as_str() == **n))
        })
        .map(|n| n.to_string())
        .collect();
    let mut r = ParquetReader::new(file);
    r.set_metadata(meta.clone());
    r.with_columns(Some(present))
        .finish()
        .map(|df| (df, meta))
        .map_err(|e| ReadError::Failed(e.to_string()))
}

/// One top-level column's values as parquet-mr's writer counts them
/// before encoding ([`plain_sizes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlainSize {
    /// The bytes, known from the footer: fixed-width values (a boolean is
    /// one bit), or a nested column's encoded size.
    Bytes(u64),
    /// A top-level byte array: its values' lengths plus 4 each, which only
    /// the values give; `non_null` values at most.
    ByteArray {
        /// Values in the footer (nulls included).
        values: u64,
    },
}

/// Each top-level column's size as parquet-mr's page writer measures the
/// open page (PLAIN, before encoding and compression: 4 or 8 bytes a
/// number, a byte array's length plus 4; parquet-java's
/// `FallbackValuesWriter.getBufferedSize`, the raw bytes of the page, even
/// while a dictionary encodes it), summed over `meta`'s row groups, in the
/// file's column order. Nulls are counted as values (the footer's value
/// counts include them), a small over-estimate.
pub fn plain_sizes(meta: &FileMetadata) -> Vec<(String, PlainSize)> {
    let mut out: Vec<(String, PlainSize)> = Vec::new();
    for group in &meta.row_groups {
        for c in group.parquet_columns() {
            let path = &c.descriptor().path_in_schema;
            let Some(root) = path.first() else { continue };
            let values = u64::try_from(c.num_values()).unwrap_or(0);
            let t = c.descriptor().descriptor.primitive_type.physical_type;
            let this = match t {
                PhysicalType::ByteArray if path.len() == 1 => PlainSize::ByteArray { values },
                PhysicalType::ByteArray => PlainSize::Bytes(c.uncompressed_size().max(0) as u64),
                PhysicalType::Boolean => PlainSize::Bytes(values.div_ceil(8)),
                other => PlainSize::Bytes(values.saturating_mul(width(other))),
            };
            match out.iter_mut().find(|(n, _)| n == root.as_str()) {
                None => out.push((root.to_string(), this)),
                Some((_, sum)) => {
                    *sum = match (&*sum, this) {
                        (PlainSize::Bytes(a), PlainSize::Bytes(b)) => {
                            PlainSize::Bytes(a.saturating_add(b))
                        }
                        (
                            PlainSize::ByteArray { values: a },
                            PlainSize::ByteArray { values: b },
                        ) => PlainSize::ByteArray {
                            values: a.saturating_add(b),
                        },
                        // A root both nested and flat cannot be; keep the first.
                        (kept, _) => kept.clone(),
                    }
                }
            }
        }
    }
    out
}

/// Bytes a decoded value takes at least (a string: its view).
fn width(t: PhysicalType) -> u64 {
    match t {
        PhysicalType::Boolean => 1,
        PhysicalType::Int32 | PhysicalType::Float => 4,
        PhysicalType::Int64 | PhysicalType::Double => 8,
        PhysicalType::Int96 => 12,
        PhysicalType::ByteArray => 16,
        PhysicalType::FixedLenByteArray(n) => n as u64,
    }
}

/// Bits of a level up to `max`.
fn bit_width(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// A reader that counts what was read through it.
struct Counted<'a, R: Read> {
    r: &'a mut R,
    n: u64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.r.read(buf)?;
        self.n += n as u64;
        Ok(n)
    }
}

/// Every page of one column chunk that holds `values` values; `levels`:
/// the bit widths of its repetition and definition levels.
fn check_chunk<R: Read + Seek>(
    f: &mut R,
    c: &ColumnChunkMetadata,
    values: u64,
    levels: (u32, u32),
    ctx: &mut DecompressionContext,
) -> Result<(), Reason> {
    let start = c
        .dictionary_page_offset()
        .filter(|&d| d >= 4)
        .unwrap_or(c.data_page_offset()) as u64;
    // read_checked placed the chunk inside the file.
    let end = start + c.compressed_size() as u64;
    let codec = c.compression();
    let physical = c.descriptor().descriptor.primitive_type.physical_type;
    let mut r = std::io::BufReader::new(&mut *f);
    r.seek(SeekFrom::Start(start))?;
    let (mut at, mut seen, mut page) = (start, 0u64, 0u64);
    let mut plain = Vec::new();
    while at < end {
        let mut counted = Counted { r: &mut r, n: 0 };
        let limit = ((end - at) as usize).min(MAX_PAGE_HEADER);
        let h =
            PageHeader::read_from_in_protocol(&mut TCompactInputProtocol::new(&mut counted, limit))
                .map_err(|_| Reason::InPage {
                    page,
                    what: Box::new(Reason::PageHeaderUndecodable),
                })?;
        let header = counted.n;
        let bad = |what: Reason| Reason::InPage {
            page,
            what: Box::new(what),
        };
        // parquet_footer::check_pages held both sizes inside the chunk.
        let (comp, size) = (
            h.compressed_page_size.max(0) as u64,
            h.uncompressed_page_size.max(0) as u64,
        );
        if size > MAX_PAGE {
            return Err(bad(Reason::PageOverCap {
                size,
                cap: MAX_PAGE,
            }));
        }
        at += header + comp;
        if at > end {
            return Err(bad(Reason::PageRunsPastChunk));
        }
        let mut body = vec![0u8; comp as usize];
        r.read_exact(&mut body)
            .map_err(|_| bad(Reason::PageEndsEarly))?;
        match h.type_ {
            PageType::DICTIONARY_PAGE => {
                let d = h
                    .dictionary_page_header
                    .as_ref()
                    .ok_or_else(|| bad(Reason::NoDictionaryHeader))?;
                let n =
                    u64::try_from(d.num_values).map_err(|_| bad(Reason::NegativeDictionarySize))?;
                let least = match physical {
                    PhysicalType::Boolean => 0,
                    PhysicalType::ByteArray => 4,
                    other => width(other),
                };
                if n.saturating_mul(least) > size {
                    return Err(bad(Reason::DictionaryOverflow { entries: n, size }));
                }
            }
            PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => {
                // Levels of old writers' BIT_PACKED encoding have no
                // length before them: the values cannot be found.
                let mut legible = true;
                let (n, encoding, levels_len, compressed) =
                    match (&h.data_page_header, &h.data_page_header_v2) {
                        (Some(v1), _) => {
                            legible = (levels.0 == 0
                                || v1.repetition_level_encoding == Encoding::RLE)
                                && (levels.1 == 0 || v1.definition_level_encoding == Encoding::RLE);
                            (v1.num_values, v1.encoding, None, true)
                        }
                        (None, Some(v2)) => {
                            if v2.num_nulls < 0 || v2.num_nulls > v2.num_values {
                                return Err(bad(Reason::NullsOverValues {
                                    nulls: i64::from(v2.num_nulls),
                                    values: i64::from(v2.num_values),
                                }));
                            }
                            let l = (
                                v2.repetition_levels_byte_length,
                                v2.definition_levels_byte_length,
                            );
                            (
                                v2.num_values,
                                v2.encoding,
                                Some(l),
                                v2.is_compressed != Some(false),
                            )
                        }
                        (None, None) => return Err(bad(Reason::NoDataPageHeader)),
                    };
                let n = u64::try_from(n).map_err(|_| bad(Reason::NegativePageValues))?;
                seen = seen.saturating_add(n);
                if seen > values {
                    return Err(bad(Reason::MoreValuesThanFooter {
                        seen,
                        footer: values,
                    }));
                }
                // v2: the levels lie uncompressed before the values.
                let (level_bytes, rest) = match levels_len {
                    Some((rep, def)) => {
                        let (Ok(rep), Ok(def)) = (u64::try_from(rep), u64::try_from(def)) else {
                            return Err(bad(Reason::NegativeLevelLength));
                        };
                        let l = rep + def;
                        if l > comp.min(size) {
                            return Err(bad(Reason::LevelsPastPage));
                        }
                        let (a, b) = body.split_at(l as usize);
                        (Some((&a[..rep as usize], &a[rep as usize..])), b)
                    }
                    None => (None, &body[..]),
                };
                if !legible {
                    page += 1;
                    continue;
                }
                let plain_len = size - level_bytes.map_or(0, |(a, b)| (a.len() + b.len()) as u64);
                let data: &[u8] = if compressed && codec != Compression::Uncompressed {
                    plain.clear();
                    plain.resize(plain_len as usize, 0);
                    decompress(codec, rest, &mut plain, ctx).map_err(|e| {
                        bad(Reason::Decompress {
                            message: e.to_string(),
                        })
                    })?;
                    &plain
                } else {
                    rest
                };
                check_page(data, level_bytes, n, encoding, levels, physical).map_err(bad)?;
            }
            PageType::INDEX_PAGE => {}
            other => return Err(bad(Reason::UnknownPageType { page_type: other.0 })),
        }
        page += 1;
    }
    if seen != values {
        return Err(Reason::ValueCountMismatch {
            seen,
            footer: values,
        });
    }
    Ok(())
}

/// One data page: `data` its (decompressed) body, `v2_levels` a v2 page's
/// repetition and definition levels, `n` its values, `levels` the bit
/// widths of its levels.
fn check_page(
    data: &[u8],
    v2_levels: Option<(&[u8], &[u8])>,
    n: u64,
    encoding: Encoding,
    (rep_bits, def_bits): (u32, u32),
    physical: PhysicalType,
) -> Result<(), Reason> {
    let mut at = 0usize;
    match v2_levels {
        Some((rep, def)) => {
            runs(rep, rep_bits, n, "repetition levels")?;
            runs(def, def_bits, n, "definition levels")?;
        }
        None => {
            for (bits, what) in [
                (rep_bits, "repetition levels"),
                (def_bits, "definition levels"),
            ] {
                if bits == 0 {
                    continue;
                }
                let (len, rest) = prefixed(&data[at..], what)?;
                runs(rest, bits, n, what)?;
                at += 4 + len;
            }
        }
    }
    let values = &data[at..];
    match encoding {
        Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
            let Some((&bits, rest)) = values.split_first() else {
                return Ok(());
            };
            if bits > 32 {
                return Err(Reason::IndexWidth { bits });
            }
            runs(rest, u32::from(bits), n, "dictionary indices")
        }
        Encoding::RLE if physical == PhysicalType::Boolean => {
            let (_, rest) = prefixed(values, "boolean values")?;
            runs(rest, 1, n, "boolean values")
        }
        Encoding::DELTA_BINARY_PACKED
        | Encoding::DELTA_LENGTH_BYTE_ARRAY
        | Encoding::DELTA_BYTE_ARRAY => {
            // <block size> <miniblocks per block> <total values> <first>
            let mut p = 0usize;
            let mut next = || uleb(values, &mut p);
            let (Some(block), Some(mini), Some(total)) = (next(), next(), next()) else {
                return Err(Reason::DeltaHeaderCut);
            };
            if total > n {
                return Err(Reason::DeltaOverPage { total, page: n });
            }
            if block == 0 || mini == 0 || block % 128 != 0 || (block / mini) % 32 != 0 {
                return Err(Reason::DeltaBlocks {
                    block,
                    miniblocks: mini,
                });
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A v1 section behind its 4-byte length: (length, the bytes after it).
fn prefixed<'a>(b: &'a [u8], what: &'static str) -> Result<(usize, &'a [u8]), Reason> {
    let Some(len) = b.get(..4) else {
        return Err(Reason::SectionCut { what });
    };
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    match b.get(4..4 + len) {
        Some(rest) => Ok((len, rest)),
        None => Err(Reason::SectionPastPage { what }),
    }
}

/// ULEB128 at `*p` of `b`.
fn uleb(b: &[u8], p: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..10 {
        let x = *b.get(*p)?;
        *p += 1;
        v |= u64::from(x & 0x7f) << (7 * i);
        if x & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// The RLE/bit-packed hybrid runs of `b` (values `bits` wide) hold at
/// most `n` values (a last bit-packed group may pad to 8).
fn runs(b: &[u8], bits: u32, n: u64, what: &'static str) -> Result<(), Reason> {
    if bits == 0 {
        return Ok(());
    }
    let (mut p, mut total) = (0usize, 0u64);
    let value_bytes = bits.div_ceil(8) as usize;
    while p < b.len() && total < n {
        let Some(h) = uleb(b, &mut p) else {
            return Err(Reason::RunHeaderCut { what });
        };
        let (count, bytes) = if h & 1 == 1 {
            let groups = h >> 1;
            (
                groups.saturating_mul(8),
                groups.saturating_mul(u64::from(bits)),
            )
        } else {
            (h >> 1, value_bytes as u64)
        };
        total = total.saturating_add(count);
        if total > n.saturating_add(7) {
            return Err(Reason::RunPastPage {
                what,
                count,
                values: n,
            });
        }
        p = p.saturating_add(bytes as usize);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_longer_than_their_page_are_refused() {
        // An RLE run of 10 ones (header 10 << 1), bit width 1.
        assert!(runs(&[20, 1], 1, 10, "levels").is_ok());
        let e = runs(&[0xfe, 0xff, 0xff, 0xff, 0x0f, 1], 1, 10, "levels")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("run of 2147483647 values, past the page's 10"),
            "{e}"
        );
        // One bit-packed group of 8 (header 1 << 1 | 1) for 5 values: padding.
        assert!(runs(&[3, 0x1f], 1, 5, "levels").is_ok());
        assert!(runs(&[5, 0x1f, 0], 1, 5, "levels").is_err());
    }

    #[test]
    fn level_widths() {
        assert_eq!(bit_width(0), 0);
        assert_eq!(bit_width(1), 1);
        assert_eq!(bit_width(2), 2);
        assert_eq!(bit_width(3), 2);
    }

    #[test]
    fn real_data_files_pass() {
        let dir = testdata::data("skipping/delta/random/orders");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_none_or(|x| x != "parquet") {
                continue;
            }
            let len = std::fs::metadata(&p).unwrap().len();
            let mut f = std::fs::File::open(&p).unwrap();
            let all = [
                "o_orderkey",
                "o_custkey",
                "o_orderstatus",
                "o_totalprice",
                "o_orderdate",
                "o_orderpriority",
                "o_clerk",
                "o_shippriority",
                "o_comment",
            ];
            let meta =
                check_data_file(&mut f, len, &all, MAX_DECODED).unwrap_or_else(|e| panic!("{e}"));
            assert!(meta.num_rows > 0);
            n += 1;
        }
        assert_eq!(n, 8);
    }
}
