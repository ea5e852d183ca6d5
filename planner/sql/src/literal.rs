//! A partition value as a Spark SQL literal of its column's type.
//!
//! Table metadata stores partition values as text (Delta's
//! `partitionValues`, lakeaudit's rendering of Iceberg's typed values), and
//! anyone who can write to the table's storage can put any text there. A
//! value becomes SQL only as a literal of the column's type, checked first:
//! numbers must parse as numbers of that width, dates and timestamps must
//! have their shape, strings are quoted by [`string_literal`]. Anything else
//! is an [`Error`], and the statement that needed it is not written.
//!
//! Literal forms are Spark's (`SqlBaseParser.g4`: `number`, `stringLit`,
//! typed `DATE'…'` / `TIMESTAMP'…'` / `TIMESTAMP_NTZ'…'` constructors,
//! `FLOAT_LITERAL` `1.5F`, `DOUBLE_LITERAL` `1.5D`, `BIGDECIMAL_LITERAL`
//! `1.5BD`).

use crate::error::{Error, Result};
use crate::quote::string_literal;

fn bad(value: &str, ty: &str) -> Error {
    Error::BadValue {
        value: value.to_string(),
        ty: ty.to_string(),
    }
}

/// `value` as a literal of type `ty` (Delta or Iceberg spelling: `int`,
/// `integer`, `long`, `bigint`, `short`, `byte`, `float`, `double`,
/// `decimal(p,s)`, `boolean`, `string`, `varchar(n)`, `char(n)`, `uuid`,
/// `date`, `timestamp`, `timestamptz`, `timestamp_ntz`).
pub fn literal(value: &str, ty: &str) -> Result<String> {
    let t = ty.trim().to_ascii_lowercase();
    let int = |ok: bool| -> Result<String> {
        if ok {
            Ok(value.to_string())
        } else {
            Err(bad(value, ty))
        }
    };
    let plain_int = !value.is_empty()
        && value
            .strip_prefix('-')
            .unwrap_or(value)
            .bytes()
            .all(|b| b.is_ascii_digit())
        && value != "-";
    match t.as_str() {
        "byte" | "tinyint" => int(plain_int && value.parse::<i8>().is_ok()),
        "short" | "smallint" => int(plain_int && value.parse::<i16>().is_ok()),
        "int" | "integer" => int(plain_int && value.parse::<i32>().is_ok()),
        "long" | "bigint" => int(plain_int && value.parse::<i64>().is_ok()),
        "float" | "real" => match value.parse::<f32>() {
            Ok(v) if v.is_finite() && is_decimal_text(value) => Ok(format!("{v:?}F")),
            _ => Err(bad(value, ty)),
        },
        "double" => match value.parse::<f64>() {
            Ok(v) if v.is_finite() && is_decimal_text(value) => Ok(format!("{v:?}D")),
            _ => Err(bad(value, ty)),
        },
        "boolean" | "bool" => match value.to_ascii_lowercase().as_str() {
            "true" => Ok("TRUE".into()),
            "false" => Ok("FALSE".into()),
            _ => Err(bad(value, ty)),
        },
        "string" | "uuid" => Ok(string_literal(value)),
        "date" => {
            if is_date(value) {
                Ok(format!("DATE{}", string_literal(value)))
            } else {
                Err(bad(value, ty))
            }
        }
        "timestamp" | "timestamptz" | "timestamp_ltz" => {
            timestamp(value).map(|v| format!("TIMESTAMP{}", string_literal(&v)))
        }
        "timestamp_ntz" => timestamp(value).map(|v| format!("TIMESTAMP_NTZ{}", string_literal(&v))),
        t if t.starts_with("decimal") => {
            let digits = value.strip_prefix('-').unwrap_or(value);
            let (int_part, frac) = digits.split_once('.').unwrap_or((digits, ""));
            let ok = !int_part.is_empty()
                && int_part.bytes().all(|b| b.is_ascii_digit())
                && frac.bytes().all(|b| b.is_ascii_digit())
                && !(digits.contains('.') && frac.is_empty());
            if ok {
                Ok(format!("{value}BD"))
            } else {
                Err(bad(value, ty))
            }
        }
        t if t.starts_with("varchar") || t.starts_with("char") => Ok(string_literal(value)),
        _ => Err(Error::UnsupportedType { ty: ty.to_string() }),
    }
}

/// Digits, one optional sign, point and exponent: what Rust's float parser
/// accepts minus `inf`, `nan` and the like.
fn is_decimal_text(v: &str) -> bool {
    !v.is_empty()
        && v.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        && v.bytes().any(|b| b.is_ascii_digit())
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// `YYYY-MM-DD` with a real month and day.
fn is_date(v: &str) -> bool {
    let mut it = v.split('-');
    let (Some(y), Some(m), Some(d), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return false;
    };
    let (Some(y), Some(m), Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// A timestamp's text: `YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,9}]]][Z|±HH:MM]` as
/// Delta writes partition values, or an integer (Iceberg's microseconds
/// since the epoch, as lakeaudit renders them), turned into that form.
fn timestamp(v: &str) -> Result<String> {
    let fail = || Err(bad(v, "timestamp"));
    if !v.is_empty()
        && v.strip_prefix('-')
            .unwrap_or(v)
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        let Ok(us) = v.parse::<i64>() else {
            return fail();
        };
        let days = us.div_euclid(86_400_000_000);
        let rest = us.rem_euclid(86_400_000_000);
        let (h, m, s, f) = (
            rest / 3_600_000_000,
            rest / 60_000_000 % 60,
            rest / 1_000_000 % 60,
            rest % 1_000_000,
        );
        let Some(date) = civil(days).filter(|d| is_date(d)) else {
            return fail();
        };
        return Ok(format!("{date} {h:02}:{m:02}:{s:02}.{f:06}"));
    }
    if v.len() < 10 || !v.is_char_boundary(10) || !is_date(&v[..10]) {
        return fail();
    }
    let rest = &v[10..];
    if rest.is_empty() {
        return Ok(v.to_string());
    }
    let time = rest
        .strip_prefix(' ')
        .or_else(|| rest.strip_prefix('T'))
        .unwrap_or("\u{0}");
    let (time, zone) = match time.find(['Z', '+', '-']) {
        Some(i) => time.split_at(i),
        None => (time, ""),
    };
    let mut hms = time.split(':');
    let h = hms.next().and_then(|x| digits(x, 2));
    let m = hms.next().and_then(|x| digits(x, 2));
    let s = match hms.next() {
        None => Some(0),
        Some(x) => {
            let (sec, frac) = x.split_once('.').unwrap_or((x, "0"));
            let frac_ok = (1..=9).contains(&frac.len()) && frac.bytes().all(|b| b.is_ascii_digit());
            digits(sec, 2).filter(|_| frac_ok)
        }
    };
    let zone_ok = match zone {
        "" | "Z" => true,
        z => {
            let hm = &z[1..];
            let mut p = hm.split(':');
            matches!((p.next().and_then(|x| digits(x, 2)), p.next().and_then(|x| digits(x, 2)), p.next()),
                (Some(zh), Some(zm), None) if zh < 24 && zm < 60)
        }
    };
    match (h, m, s, hms.next()) {
        (Some(h), Some(m), Some(s), None) if h < 24 && m < 60 && s < 60 && zone_ok => {
            Ok(v.to_string())
        }
        _ => fail(),
    }
}

/// Days since 1970-01-01 as `YYYY-MM-DD` (jiff's proleptic Gregorian
/// calendar); `None` outside the years jiff spans (-9999 to 9999).
fn civil(days: i64) -> Option<String> {
    let span = jiff::Span::new().try_days(days).ok()?;
    let date = jiff::civil::date(1970, 1, 1).checked_add(span).ok()?;
    Some(date.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_must_be_numbers_of_their_width() {
        assert_eq!(literal("1", "integer").as_deref(), Ok("1"));
        assert_eq!(literal("-42", "long").as_deref(), Ok("-42"));
        assert!(literal("1; DROP TABLE prod.payments; --", "integer").is_err());
        assert!(literal("1 ", "int").is_err());
        assert!(literal("", "int").is_err());
        assert!(literal("-", "int").is_err());
        assert!(literal("128", "byte").is_err());
        assert!(literal("2147483648", "int").is_err());
        assert_eq!(literal("2147483648", "long").as_deref(), Ok("2147483648"));
        assert_eq!(literal("1.5", "double").as_deref(), Ok("1.5D"));
        assert_eq!(literal("2.5", "float").as_deref(), Ok("2.5F"));
        assert!(literal("NaN", "double").is_err());
        assert!(literal("inf", "double").is_err());
        assert_eq!(literal("12.50", "decimal(10,2)").as_deref(), Ok("12.50BD"));
        assert!(literal("1e5", "decimal(10,2)").is_err());
        assert_eq!(literal("True", "boolean").as_deref(), Ok("TRUE"));
        assert!(literal("1", "boolean").is_err());
    }

    #[test]
    fn strings_dates_and_timestamps() {
        assert_eq!(literal("it's", "string").as_deref(), Ok(r"'it\'s'"));
        assert_eq!(
            literal("2024-02-29", "date").as_deref(),
            Ok("DATE'2024-02-29'")
        );
        assert!(literal("2023-02-29", "date").is_err());
        assert!(literal("2024-01-01'; DROP", "date").is_err());
        assert_eq!(
            literal("2021-01-01 10:00:00.123456", "timestamp").as_deref(),
            Ok("TIMESTAMP'2021-01-01 10:00:00.123456'")
        );
        assert_eq!(
            literal("2021-01-01T10:00:00Z", "timestamp_ntz").as_deref(),
            Ok("TIMESTAMP_NTZ'2021-01-01T10:00:00Z'")
        );
        assert_eq!(
            literal("2021-01-01 10:00:00+05:30", "timestamptz").as_deref(),
            Ok("TIMESTAMP'2021-01-01 10:00:00+05:30'")
        );
        // Iceberg's microseconds since the epoch.
        assert_eq!(
            literal("86400000001", "timestamp").as_deref(),
            Ok("TIMESTAMP'1970-01-02 00:00:00.000001'")
        );
        assert!(literal("2021-01-01 25:00:00", "timestamp").is_err());
        assert!(literal("2021-01-01 10:00:00 OR 1=1", "timestamp").is_err());
        assert!(matches!(
            literal("ab", "binary"),
            Err(Error::UnsupportedType { .. })
        ));
    }
}
