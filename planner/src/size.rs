//! Byte sizes as users write them (`500GB`, `2TiB`) and as reports print
//! them.

use crate::error::{Error, Result};

/// Parse a size: a byte count or a number with B, KB, MB, GB, TB (powers
/// of 1000) or KiB, MiB, GiB, TiB (powers of 1024); units are
/// case-insensitive.
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let err = |reason| Error::Size {
        input: s.to_string(),
        reason,
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" | "k" => 1_000,
        "mb" | "m" => 1_000_000,
        "gb" | "g" => 1_000_000_000,
        "tb" | "t" => 1_000_000_000_000,
        "pb" | "p" => 1_000_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        "pib" => 1 << 50,
        _ => return Err(err("unknown unit")),
    };
    // Whole numbers exactly (an f64 holds integers exactly only to 2^53,
    // and 2^64 rounds to u64::MAX); fractions through f64.
    if !num.contains('.') {
        let n: u128 = num.parse().map_err(|_| err("not a number"))?;
        return n
            .checked_mul(u128::from(mult))
            .and_then(|b| u64::try_from(b).ok())
            .ok_or_else(|| err("out of range"));
    }
    let n: f64 = num.parse().map_err(|_| err("not a number"))?;
    let bytes = (n * mult as f64).round();
    // u64::MAX as f64 is 2^64: anything from it on does not fit.
    if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 {
        return Err(err("out of range"));
    }
    Ok(bytes as u64)
}

/// Bytes as a short human figure (`1.5 GiB`, `-200.0 MiB`): the one
/// formatter of the statements' comments, the maintenance notes and the
/// reports.
pub fn human(bytes: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes;
    let mut i = 0;
    while v.abs() >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// A budget as a short human figure, `no limit` when there is none.
pub fn human_budget(budget: Option<u64>) -> String {
    budget.map_or_else(|| "no limit".to_string(), |b| human(b as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_both_unit_systems() {
        assert_eq!(parse_size("500GB").unwrap(), 500_000_000_000);
        assert_eq!(parse_size("2TiB").unwrap(), 2 * 1024u64.pow(4));
        assert_eq!(parse_size(" 1.5 gib ").unwrap(), 1_610_612_736);
        assert_eq!(parse_size("1024").unwrap(), 1024);
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("1e30PB").is_err());
        assert_eq!(human(1_610_612_736.0), "1.5 GiB");
        assert_eq!(human(-209_715_200.0), "-200.0 MiB");
        assert_eq!(human(12.0), "12 B");
        assert_eq!(human_budget(None), "no limit");
        assert_eq!(human_budget(Some(2048)), "2.0 KiB");
    }

    #[test]
    fn sizes_past_u64_are_refused_not_capped() {
        assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
        assert!(parse_size("18446744073709551616").is_err());
        assert!(parse_size("16384PiB").is_err());
        assert_eq!(parse_size("16383PiB").unwrap(), 16383 << 50);
        assert!(parse_size("18446744073709551616.0").is_err());
        // Whole numbers past 2^53 are exact.
        assert_eq!(
            parse_size("9007199254740993").unwrap(),
            9_007_199_254_740_993
        );
    }
}
