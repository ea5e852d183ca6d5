//! Decoder of one LZF block (the liblzf format that ning compress-lzf writes
//! inside its `ZV` chunks).
//!
//! No well-kept pure-Rust LZF crate exists, and the block format is tiny:
//! a control byte `c` below 32 starts a literal run of `c + 1` bytes;
//! otherwise `c >> 5` is a match length (7 means "add the next byte") and
//! `((c & 0x1f) << 8) + next byte + 1` the distance back into the output,
//! and `length + 2` bytes are copied from there (the copy may overlap itself).

use crate::error::Reason;

/// Decompresses `input` into `out` (cleared first), which must come to
/// exactly `expected` bytes (the chunk header's length).
pub(crate) fn decompress(input: &[u8], out: &mut Vec<u8>, expected: usize) -> Result<(), Reason> {
    out.clear();
    out.reserve(expected);
    let mut i = 0usize;
    while let Some(&ctrl) = input.get(i) {
        i += 1;
        let ctrl = usize::from(ctrl);
        if ctrl < 32 {
            let run = ctrl + 1;
            let lit = input
                .get(i..i + run)
                .ok_or(Reason::LzfLiteralPastEnd { run })?;
            out.extend_from_slice(lit);
            i += run;
        } else {
            let mut len = ctrl >> 5;
            if len == 7 {
                let extra = input.get(i).ok_or(Reason::LzfLengthPastEnd)?;
                len += usize::from(*extra);
                i += 1;
            }
            let low = input.get(i).ok_or(Reason::LzfDistancePastEnd)?;
            i += 1;
            let dist = ((ctrl & 0x1f) << 8) + usize::from(*low) + 1;
            let len = len + 2;
            let start = out
                .len()
                .checked_sub(dist)
                .ok_or(Reason::LzfBeforeStart { distance: dist })?;
            if dist >= len {
                out.extend_from_within(start..start + len);
            } else {
                // Overlapping copy: each byte may be one this copy just wrote.
                for k in start..start + len {
                    let b = out.get(k).copied().ok_or(Reason::LzfOverlap)?;
                    out.push(b);
                }
            }
        }
        if out.len() > expected {
            return Err(Reason::LzfPastExpected { expected });
        }
    }
    if out.len() != expected {
        return Err(Reason::LzfLength {
            got: out.len(),
            expected,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{decompress, Reason};

    fn run(input: &[u8], expected: usize) -> Result<Vec<u8>, Reason> {
        let mut out = Vec::new();
        decompress(input, &mut out, expected).map(|()| out)
    }

    #[test]
    fn literals_and_matches() {
        // literal "abc", then a 6-byte match at distance 3 (overlapping)
        assert_eq!(run(b"\x02abc\x80\x02", 9).unwrap(), b"abcabcabc");
        // literal "abcd", then a 3-byte match at distance 4 (not overlapping)
        assert_eq!(run(b"\x03abcd\x20\x03", 7).unwrap(), b"abcdabc");
        // long match: length code 7 + extra byte 3 = 10, +2 = 12 bytes of 'x'
        assert_eq!(run(b"\x00x\xe0\x03\x00", 13).unwrap(), vec![b'x'; 13]);
        assert_eq!(run(b"", 0).unwrap(), b"");
    }

    #[test]
    fn corrupt_blocks_are_errors() {
        assert!(run(b"\x05ab", 6).is_err()); // literal past the end
        assert!(run(b"\x02abc\x80\x09", 9).is_err()); // distance before start
        assert!(run(b"\x02abc\x80", 9).is_err()); // missing distance byte
        assert!(run(b"\x02abc", 4).is_err()); // wrong size
        assert!(run(b"\x02abc\x80\x02", 5).is_err()); // grows past expected
    }
}
