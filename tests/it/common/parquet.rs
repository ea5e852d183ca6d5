//! Surgery on real Parquet files, for hostile-input tests: a file written
//! by a real writer is taken apart into its footer and pages (Thrift
//! structures as the Parquet format defines them, decoded and encoded by
//! `polars-parquet-format`), one value is changed, and the file is put
//! back together with every offset and size made consistent again, so
//! that only the lie under test is left.

use polars_parquet_format::thrift::protocol::{TCompactInputProtocol, TCompactOutputProtocol};
use polars_parquet_format::{CompressionCodec, FileMetaData, PageHeader};
use std::io::Read;

/// One page: its header and its body as stored.
#[derive(Clone, Debug)]
pub struct Page {
    pub header: PageHeader,
    pub body: Vec<u8>,
}

/// A Parquet file taken apart: the footer, and per row group and column
/// chunk its pages.
#[derive(Clone, Debug)]
pub struct Parquet {
    pub meta: FileMetaData,
    pub chunks: Vec<Vec<Vec<Page>>>,
}

impl Parquet {
    /// Take `bytes` (a whole Parquet file) apart.
    pub fn parse(bytes: &[u8]) -> Parquet {
        assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
        let n = bytes.len();
        let footer = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
        let mut p = TCompactInputProtocol::new(&bytes[n - 8 - footer..n - 8], usize::MAX);
        let meta = FileMetaData::read_from_in_protocol(&mut p).expect("footer");
        let mut chunks = Vec::new();
        for rg in &meta.row_groups {
            let mut cols = Vec::new();
            for c in &rg.columns {
                let m = c.meta_data.as_ref().expect("column metadata");
                let start = m
                    .dictionary_page_offset
                    .filter(|&d| d >= 4)
                    .unwrap_or(m.data_page_offset) as usize;
                let end = start + m.total_compressed_size as usize;
                let mut at = &bytes[start..end];
                let mut pages = Vec::new();
                while !at.is_empty() {
                    let mut p = TCompactInputProtocol::new(&mut at, usize::MAX);
                    let header = PageHeader::read_from_in_protocol(&mut p).expect("page header");
                    let len = header.compressed_page_size as usize;
                    let body = at[..len].to_vec();
                    at = &at[len..];
                    pages.push(Page { header, body });
                }
                cols.push(pages);
            }
            chunks.push(cols);
        }
        Parquet { meta, chunks }
    }

    /// Decompress every page (snappy, gzip or zstd) and mark every column
    /// chunk uncompressed, so that tests can edit page bodies as plain
    /// bytes. Data page v2 levels are stored uncompressed already.
    pub fn decompress(&mut self) {
        for (rg, cols) in self.chunks.iter_mut().enumerate() {
            for (ci, pages) in cols.iter_mut().enumerate() {
                let m = self.meta.row_groups[rg].columns[ci]
                    .meta_data
                    .as_mut()
                    .unwrap();
                let codec = m.codec;
                m.codec = CompressionCodec::UNCOMPRESSED;
                for p in pages.iter_mut() {
                    let (plain, skip) = match &p.header.data_page_header_v2 {
                        Some(v2) if v2.is_compressed != Some(false) => (
                            true,
                            (v2.definition_levels_byte_length + v2.repetition_levels_byte_length)
                                as usize,
                        ),
                        Some(_) => (false, 0),
                        None => (true, 0),
                    };
                    if !plain {
                        continue;
                    }
                    let (levels, data) = p.body.split_at(skip);
                    let mut out = levels.to_vec();
                    out.extend(decode(
                        codec,
                        data,
                        p.header.uncompressed_page_size as usize - skip,
                    ));
                    p.header.compressed_page_size = out.len() as i32;
                    p.body = out;
                }
            }
        }
    }

    /// Put the file back together: pages laid out in order, each column
    /// chunk's offsets and compressed size set from where its pages lie.
    pub fn write(&self) -> Vec<u8> {
        let mut out = b"PAR1".to_vec();
        let mut meta = self.meta.clone();
        for (rg, cols) in self.chunks.iter().enumerate() {
            let mut rg_size = 0i64;
            for (ci, pages) in cols.iter().enumerate() {
                let start = out.len() as i64;
                let m = meta.row_groups[rg].columns[ci].meta_data.as_mut().unwrap();
                m.dictionary_page_offset = None;
                let mut data_at = None;
                for p in pages {
                    let at = out.len() as i64;
                    if p.header.dictionary_page_header.is_some() {
                        m.dictionary_page_offset = Some(at);
                    } else if data_at.is_none() {
                        data_at = Some(at);
                    }
                    let mut proto = TCompactOutputProtocol::new(&mut out);
                    p.header.write_to_out_protocol(&mut proto).expect("header");
                    out.extend_from_slice(&p.body);
                }
                m.data_page_offset = data_at.unwrap_or(start);
                m.total_compressed_size = out.len() as i64 - start;
                rg_size += m.total_compressed_size;
                let c = &mut meta.row_groups[rg].columns[ci];
                c.file_offset = start;
                meta.row_groups[rg].file_offset = meta.row_groups[rg].file_offset.map(|_| start);
            }
            meta.row_groups[rg].total_compressed_size =
                meta.row_groups[rg].total_compressed_size.map(|_| rg_size);
            // Offsets of the page index would point into the old layout.
            for c in &mut meta.row_groups[rg].columns {
                c.offset_index_offset = None;
                c.offset_index_length = None;
                c.column_index_offset = None;
                c.column_index_length = None;
            }
        }
        let at = out.len();
        let mut proto = TCompactOutputProtocol::new(&mut out);
        meta.write_to_out_protocol(&mut proto).expect("footer");
        let len = (out.len() - at) as u32;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(b"PAR1");
        out
    }
}

/// `data` decompressed with `codec` into `len` bytes.
fn decode(codec: CompressionCodec, data: &[u8], len: usize) -> Vec<u8> {
    let out = match codec {
        CompressionCodec::UNCOMPRESSED => data.to_vec(),
        CompressionCodec::SNAPPY => snap::raw::Decoder::new().decompress_vec(data).unwrap(),
        CompressionCodec::ZSTD => zstd::bulk::decompress(data, len).unwrap(),
        CompressionCodec::GZIP => {
            let mut v = Vec::new();
            flate2::read::GzDecoder::new(data)
                .read_to_end(&mut v)
                .unwrap();
            v
        }
        other => panic!("codec {other:?} not handled by the test surgery"),
    };
    assert_eq!(out.len(), len);
    out
}

/// The bytes of an RLE/bit-packed hybrid run header: an RLE run of
/// `count` repeats (header `count << 1`, ULEB128).
pub fn rle_run_header(count: u64) -> Vec<u8> {
    uleb(count << 1)
}

/// ULEB128.
pub fn uleb(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}
