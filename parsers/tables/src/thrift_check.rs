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

/// Deepest nesting of structs and containers accepted (Parquet's own
/// footer nests a handful of levels; a schema is a flat list).
const MAX_DEPTH: usize = 64;

/// Check the Thrift compact encoding of `footer` (one `FileMetaData`
/// struct). The error says what lies.
pub fn check_footer(footer: &[u8]) -> Result<(), String> {
    let mut w = Walk {
        b: footer,
        pos: 0,
        declared: 0,
    };
    w.skip(TYPE_STRUCT, 0)
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

    fn byte(&mut self) -> Result<u8, String> {
        let v = *self
            .b
            .get(self.pos)
            .ok_or("the footer ends inside a value")?;
        self.pos += 1;
        Ok(v)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err("a varint longer than 64 bits".into());
            }
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a varint longer than 64 bits".into())
    }

    fn advance(&mut self, n: u64) -> Result<(), String> {
        if n > self.left() {
            return Err(format!(
                "a value claims {n} bytes where {} are left",
                self.left()
            ));
        }
        self.pos += n as usize;
        Ok(())
    }

    fn elements(&mut self, n: u64, what: &str) -> Result<(), String> {
        self.declared = self.declared.saturating_add(n);
        if n > self.left() || self.declared > self.b.len() as u64 {
            return Err(format!(
                "a {what} claims {n} elements where {} bytes are left",
                self.left()
            ));
        }
        Ok(())
    }

    /// Step over one value of compact type `t`.
    fn skip(&mut self, t: u8, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("values nested deeper than {MAX_DEPTH}"));
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
            TYPE_STRUCT => loop {
                let h = self.byte()?;
                if h == 0 {
                    return Ok(());
                }
                if h >> 4 == 0 {
                    // A long-form field id (zigzag i16) follows.
                    self.varint()?;
                }
                match h & 0x0F {
                    TYPE_BOOL_TRUE | TYPE_BOOL_FALSE => {}
                    ft => self.skip(ft, depth + 1)?,
                }
            },
            other => Err(format!("an unknown Thrift type {other}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_longer_than_the_footer_is_refused() {
        // struct { 1: list<i32> } claiming 2^40 elements in 8 bytes.
        let mut b = vec![0x19, 0xF5];
        let mut n: u64 = 1 << 40;
        while n >= 0x80 {
            b.push((n as u8) | 0x80);
            n >>= 7;
        }
        b.push(n as u8);
        b.push(0);
        let e = check_footer(&b).unwrap_err();
        assert!(e.contains("claims 1099511627776 elements"), "{e}");
    }

    #[test]
    fn well_formed_values_pass() {
        // struct { 1: i32 = 3, 2: list<binary> ["ab"], 3: bool true,
        //          4: struct { 1: i64 = 1 } }
        let b = [
            0x15, 0x06, // field 1, i32, zigzag(3)
            0x19, 0x18, 0x02, b'a', b'b', // field 2, list of 1 binary
            0x11, // field 3, bool true
            0x1C, 0x16, 0x02, 0x00, // field 4, struct { 1: i64 = 1 }
            0x00,
        ];
        assert_eq!(check_footer(&b), Ok(()));
        assert!(check_footer(&b[..b.len() - 1]).is_err());
    }
}
