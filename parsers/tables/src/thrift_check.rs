//! A walk over a Parquet footer's Thrift compact encoding before polars
//! decodes it: every list, set and map may declare no more elements, and
//! every binary no more bytes, than the footer has left. polars' decoder
//! reserves a list's declared length up front, so a footer of a few KiB
//! claiming a list of billions asks for tens of GB before it fails
//! (fuzz/regressions/records_file-footer-list-alloc).
//!
//! The encoding is the Thrift compact protocol (apache/thrift
//! `doc/specs/thrift-compact-protocol.md`): field headers of a delta and a
//! type nibble, zigzag varints, lists and sets headed by a size nibble (15:
//! a varint follows) and an element type, maps by a varint size and a key
//! and value type byte.

use crate::error::Reason;

/// Deepest nesting of structs and containers accepted (Parquet's own
/// footer nests a handful of levels; a schema is a flat list).
const MAX_DEPTH: usize = 64;

/// Check the Thrift compact encoding of `footer` (one `FileMetaData`
/// struct). The error says what lies.
pub fn check_footer(footer: &[u8]) -> Result<(), Reason> {
    let mut w = Walk {
        b: footer,
        pos: 0,
        declared: 0,
    };
    w.typed_struct(Some(Kind::FileMetaData), 0)
}

/// The Parquet structs whose fields polars' decoder reads by the types
/// `parquet.thrift` gives them, whatever type the encoding states: a field
/// of another type makes it read other bytes as, say, a list header (a
/// fuzzed 1.4 KB file's boolean field 4 of FileMetaData, read as the
/// row-group list, asked for 49,790,549,120 bytes). Their fields must carry
/// their own types; structs not listed here are only walked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    FileMetaData,
    SchemaElement,
    RowGroup,
    ColumnChunk,
    ColumnMetaData,
    KeyValue,
    Statistics,
    PageEncodingStats,
    SortingColumn,
}

impl Kind {
    /// The struct's name in `parquet.thrift`.
    fn name(self) -> &'static str {
        match self {
            Kind::FileMetaData => "FileMetaData",
            Kind::SchemaElement => "SchemaElement",
            Kind::RowGroup => "RowGroup",
            Kind::ColumnChunk => "ColumnChunk",
            Kind::ColumnMetaData => "ColumnMetaData",
            Kind::KeyValue => "KeyValue",
            Kind::Statistics => "Statistics",
            Kind::PageEncodingStats => "PageEncodingStats",
            Kind::SortingColumn => "SortingColumn",
        }
    }
}

/// What a field must be.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// A value of this compact type (`TYPE_BOOL_TRUE`: either boolean).
    Is(u8),
    /// A struct, of this kind when known.
    Struct(Option<Kind>),
    /// A list of this element type (structs of this kind when known).
    List(u8, Option<Kind>),
}

/// Field `id` of a `kind` struct, as `parquet.thrift` (apache/parquet-format)
/// declares it; `None` for fields it does not know (skipped by type).
fn field(kind: Kind, id: i64) -> Option<Want> {
    use Kind::*;
    use Want::*;
    Some(match (kind, id) {
        (FileMetaData, 1) => Is(TYPE_I32),
        (FileMetaData, 2) => List(TYPE_STRUCT, Some(SchemaElement)),
        (FileMetaData, 3) => Is(TYPE_I64),
        (FileMetaData, 4) => List(TYPE_STRUCT, Some(RowGroup)),
        (FileMetaData, 5) => List(TYPE_STRUCT, Some(KeyValue)),
        (FileMetaData, 6 | 9) => Is(TYPE_BINARY),
        (FileMetaData, 7) => List(TYPE_STRUCT, None),
        (FileMetaData, 8) => Struct(None),
        (SchemaElement, 1 | 2 | 3 | 5 | 6 | 7 | 8 | 9) => Is(TYPE_I32),
        (SchemaElement, 4) => Is(TYPE_BINARY),
        (SchemaElement, 10) => Struct(None),
        (RowGroup, 1) => List(TYPE_STRUCT, Some(ColumnChunk)),
        (RowGroup, 2 | 3 | 5 | 6) => Is(TYPE_I64),
        (RowGroup, 4) => List(TYPE_STRUCT, Some(SortingColumn)),
        (RowGroup, 7) => Is(TYPE_I16),
        (ColumnChunk, 1 | 9) => Is(TYPE_BINARY),
        (ColumnChunk, 2 | 4 | 6) => Is(TYPE_I64),
        (ColumnChunk, 3) => Struct(Some(ColumnMetaData)),
        (ColumnChunk, 5 | 7) => Is(TYPE_I32),
        (ColumnChunk, 8) => Struct(None),
        (ColumnMetaData, 1 | 4 | 15) => Is(TYPE_I32),
        (ColumnMetaData, 2) => List(TYPE_I32, None),
        (ColumnMetaData, 3) => List(TYPE_BINARY, None),
        (ColumnMetaData, 5 | 6 | 7 | 9 | 10 | 11 | 14) => Is(TYPE_I64),
        (ColumnMetaData, 8) => List(TYPE_STRUCT, Some(KeyValue)),
        (ColumnMetaData, 12) => Struct(Some(Statistics)),
        (ColumnMetaData, 13) => List(TYPE_STRUCT, Some(PageEncodingStats)),
        (ColumnMetaData, 16 | 17) => Struct(None),
        (KeyValue, 1 | 2) => Is(TYPE_BINARY),
        (Statistics, 1 | 2 | 5 | 6) => Is(TYPE_BINARY),
        (Statistics, 3 | 4) => Is(TYPE_I64),
        (Statistics, 7 | 8) => Is(TYPE_BOOL_TRUE),
        (PageEncodingStats, 1..=3) => Is(TYPE_I32),
        (SortingColumn, 1) => Is(TYPE_I32),
        (SortingColumn, 2 | 3) => Is(TYPE_BOOL_TRUE),
        _ => return None,
    })
}

/// Whether a value of compact type `t` is what `want` asks for.
fn same_type(want: u8, t: u8) -> bool {
    let bool_type = |x: u8| x == TYPE_BOOL_TRUE || x == TYPE_BOOL_FALSE;
    want == t || (bool_type(want) && bool_type(t))
}

const TYPE_BOOL_TRUE: u8 = 1;
const TYPE_BOOL_FALSE: u8 = 2;
const TYPE_I8: u8 = 3;
const TYPE_I16: u8 = 4;
const TYPE_I32: u8 = 5;
const TYPE_I64: u8 = 6;
const TYPE_DOUBLE: u8 = 7;
const TYPE_BINARY: u8 = 8;
const TYPE_LIST: u8 = 9;
const TYPE_SET: u8 = 10;
const TYPE_MAP: u8 = 11;
const TYPE_STRUCT: u8 = 12;
const TYPE_UUID: u8 = 13;

struct Walk<'a> {
    b: &'a [u8],
    pos: usize,
    /// Elements declared so far by every container: each takes at least
    /// one byte of the footer, so together no more than its length.
    declared: u64,
}

impl Walk<'_> {
    fn left(&self) -> u64 {
        (self.b.len() - self.pos) as u64
    }

    fn byte(&mut self) -> Result<u8, Reason> {
        let v = *self.b.get(self.pos).ok_or(Reason::FooterEndsInsideValue)?;
        self.pos += 1;
        Ok(v)
    }

    fn varint(&mut self) -> Result<u64, Reason> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(Reason::VarintTooLong);
            }
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Reason::VarintTooLong)
    }

    fn advance(&mut self, n: u64) -> Result<(), Reason> {
        if n > self.left() {
            return Err(Reason::ValueOverrun {
                claims: n,
                left: self.left(),
            });
        }
        self.pos += n as usize;
        Ok(())
    }

    fn elements(&mut self, n: u64, what: &'static str) -> Result<(), Reason> {
        self.declared = self.declared.saturating_add(n);
        if n > self.left() || self.declared > self.b.len() as u64 {
            return Err(Reason::ContainerOverrun {
                container: what,
                elements: n,
                left: self.left(),
            });
        }
        Ok(())
    }

    /// Step over one value of compact type `t`.
    fn skip(&mut self, t: u8, depth: usize) -> Result<(), Reason> {
        if depth > MAX_DEPTH {
            return Err(Reason::TooDeep { max: MAX_DEPTH });
        }
        match t {
            // A bool inside a container is one byte; as a field its value
            // is the type itself (handled by the struct walk).
            TYPE_BOOL_TRUE | TYPE_BOOL_FALSE | TYPE_I8 => self.advance(1),
            TYPE_I16 | TYPE_I32 | TYPE_I64 => self.varint().map(|_| ()),
            TYPE_DOUBLE => self.advance(8),
            TYPE_UUID => self.advance(16),
            TYPE_BINARY => {
                let n = self.varint()?;
                self.advance(n)
            }
            TYPE_LIST | TYPE_SET => {
                let h = self.byte()?;
                let mut n = u64::from(h >> 4);
                if n == 15 {
                    n = self.varint()?;
                }
                self.elements(n, "list")?;
                let et = h & 0x0F;
                if n > 0 && matches!(et, TYPE_BOOL_TRUE | TYPE_BOOL_FALSE) {
                    // The compact protocol gives each boolean element one
                    // byte; polars' decoder, skipping a field Parquet does
                    // not declare, reads them as no bytes, so it would walk
                    // the rest of the footer out of step with this check
                    // and loop over whatever count it then finds (2^31
                    // empty steps: fuzz/regressions/
                    // table_data_file-footer-slow-decode). Parquet's footer
                    // declares no list of booleans.
                    return Err(Reason::BooleanList { elements: n });
                }
                for _ in 0..n {
                    self.skip(et, depth + 1)?;
                }
                Ok(())
            }
            TYPE_MAP => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                self.elements(n.saturating_mul(2), "map")?;
                let kv = self.byte()?;
                for _ in 0..n {
                    self.skip(kv >> 4, depth + 1)?;
                    self.skip(kv & 0x0F, depth + 1)?;
                }
                Ok(())
            }
            TYPE_STRUCT => self.typed_struct(None, depth),
            other => Err(Reason::UnknownThriftType { thrift_type: other }),
        }
    }

    /// Step over one struct, of `kind` when known: each field it declares
    /// must have its declared type ([`field`]).
    fn typed_struct(&mut self, kind: Option<Kind>, depth: usize) -> Result<(), Reason> {
        if depth > MAX_DEPTH {
            return Err(Reason::TooDeep { max: MAX_DEPTH });
        }
        let mut last: i64 = 0;
        loop {
            let h = self.byte()?;
            if h == 0 {
                return Ok(());
            }
            let id = match h >> 4 {
                // A long-form field id (zigzag i16) follows.
                0 => {
                    let z = self.varint()?;
                    ((z >> 1) as i64) ^ -((z & 1) as i64)
                }
                d => last + i64::from(d),
            };
            last = id;
            let ft = h & 0x0F;
            let want = kind.and_then(|k| field(k, id));
            let wrong = |want: u8| {
                Err(Reason::WrongFieldType {
                    id,
                    parent: kind.expect("known kind").name(),
                    found: ft,
                    want,
                })
            };
            match want {
                Some(Want::Is(w)) if !same_type(w, ft) => return wrong(w),
                Some(Want::Struct(_)) if ft != TYPE_STRUCT => return wrong(TYPE_STRUCT),
                Some(Want::List(..)) if ft != TYPE_LIST => return wrong(TYPE_LIST),
                _ => {}
            }
            match (ft, want) {
                (TYPE_BOOL_TRUE | TYPE_BOOL_FALSE, _) => {}
                (TYPE_STRUCT, Some(Want::Struct(k))) => self.typed_struct(k, depth + 1)?,
                (TYPE_LIST, Some(Want::List(et, k))) => self.typed_list(et, k, depth + 1)?,
                (ft, _) => self.skip(ft, depth + 1)?,
            }
        }
    }

    /// Step over a list whose elements must be of type `et` (structs of
    /// `kind` when known).
    fn typed_list(&mut self, et: u8, kind: Option<Kind>, depth: usize) -> Result<(), Reason> {
        let h = self.byte()?;
        let mut n = u64::from(h >> 4);
        if n == 15 {
            n = self.varint()?;
        }
        self.elements(n, "list")?;
        let t = h & 0x0F;
        if n > 0 && t != et {
            return Err(Reason::WrongListType { found: t, want: et });
        }
        for _ in 0..n {
            if t == TYPE_STRUCT {
                self.typed_struct(kind, depth + 1)?;
            } else {
                self.skip(t, depth + 1)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_longer_than_the_footer_is_refused() {
        // FileMetaData { 4: list<RowGroup> } claiming 2^40 elements in 8
        // bytes.
        let mut b = vec![0x49, 0xFC];
        let mut n: u64 = 1 << 40;
        while n >= 0x80 {
            b.push((n as u8) | 0x80);
            n >>= 7;
        }
        b.push(n as u8);
        b.push(0);
        let e = check_footer(&b).unwrap_err().to_string();
        assert!(e.contains("claims 1099511627776 elements"), "{e}");
    }

    #[test]
    fn a_known_field_of_another_type_is_refused() {
        // FileMetaData { 4: bool true } where field 4 is the row-group
        // list: polars would read the next bytes as its header.
        let e = check_footer(&[0x41, 0xF9, 0xFF, 0xFF, 0xFF, 0x0F, 0x00])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("field 4 of FileMetaData has Thrift type 1"),
            "{e}"
        );
        // The row-group list of i32 instead of structs.
        let e = check_footer(&[0x49, 0x15, 0x02, 0x00])
            .unwrap_err()
            .to_string();
        assert!(e.contains("a list of Thrift type 5"), "{e}");
    }

    #[test]
    fn a_list_of_booleans_in_an_undeclared_field_is_refused() {
        // FileMetaData { 20: list<bool> [true, false] }: one byte each here,
        // none in polars' skip, which would then read the Stop byte's
        // successors as fields.
        let b = [0x09, 0x28, 0x21, 0x01, 0x02, 0x00];
        let e = check_footer(&b).unwrap_err().to_string();
        assert!(e.contains("a list of 2 booleans"), "{e}");
        // An empty one is read alike by both.
        assert!(check_footer(&[0x09, 0x28, 0x01, 0x00]).is_ok());
    }

    #[test]
    fn well_formed_values_pass() {
        // FileMetaData { 1: i32 = 3, 20: list<binary> ["ab"], 21: bool
        // true, 22: struct { 1: i64 = 1 } } (20 to 22: fields Parquet
        // does not declare, walked by their own types)
        let b = [
            0x15, 0x06, // field 1, i32, zigzag(3)
            0x09, 0x28, 0x18, 0x02, b'a', b'b', // field 20 (long form), list of 1 binary
            0x11, // field 21, bool true
            0x1C, 0x16, 0x02, 0x00, // field 22, struct { 1: i64 = 1 }
            0x00,
        ];
        assert!(check_footer(&b).is_ok());
        assert!(check_footer(&b[..b.len() - 1]).is_err());
    }
}
