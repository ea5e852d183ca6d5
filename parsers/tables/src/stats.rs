//! Per-file column statistics, read into the typed form a file-skipping
//! test uses ([`plan::predicate::ColumnStats`]).
//!
//! - Delta: the `stats` JSON of an `add` (commit or checkpoint):
//!   `numRecords`, `minValues`, `maxValues`, `nullCount`, nested by struct
//!   field under the columns' physical names, and `tightBounds` (false
//!   after deletion vectors: the bounds stay bounds, the null counts may
//!   count deleted rows, so they are dropped). Values are written as JSON:
//!   numbers for numeric and decimal columns, `YYYY-MM-DD` for dates, ISO
//!   8601 at millisecond precision for timestamps (so each bound is widened
//!   by the 999 µs the writer may have cut), strings cut to a prefix
//!   (Delta Spark's `dataSkippingStringPrefixLength`, 32 characters), so a
//!   maximum of 32 characters or more is an upper bound only after
//!   rounding up. Partition columns have no statistics; a file's partition
//!   value is its minimum and its maximum.
//! - Iceberg: a manifest entry's `lower_bounds` / `upper_bounds` /
//!   `null_value_counts` by field id, each bound in the spec's single-value
//!   binary serialization (Appendix D); strings and binaries may be cut
//!   (`write.metadata.metrics.default`, `truncate(16)`), so a string upper
//!   bound is exact only when it is shorter than 16 characters.
//!
//! A statistic that is missing, null, of the wrong kind or unparseable is
//! left out (that file is never skipped on that column) and counted.

use plan::predicate::{ColumnStats, ColumnType, Literal};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// A column whose statistics are kept: logical name, the physical path
/// the statistics use, its type, and whether it is a partition column.
#[derive(Clone, Debug)]
pub(crate) struct StatsColumn {
    pub physical: Vec<String>,
    pub ty: ColumnType,
    pub partition: bool,
    /// Iceberg field id.
    pub field_id: Option<i64>,
}

/// Delta Spark cuts string statistics to this many characters.
const DELTA_STRING_PREFIX: usize = 32;
/// Iceberg's default metrics mode, `truncate(16)`.
const ICEBERG_STRING_PREFIX: usize = 16;
/// Microseconds a millisecond-precision timestamp bound may be off by.
const MILLI_SLACK: i64 = 999;

#[derive(Deserialize)]
struct DeltaStats<'a> {
    #[serde(rename = "numRecords", default)]
    num_records: Option<i64>,
    #[serde(borrow, rename = "minValues", default)]
    min_values: Option<&'a RawValue>,
    #[serde(borrow, rename = "maxValues", default)]
    max_values: Option<&'a RawValue>,
    #[serde(borrow, rename = "nullCount", default)]
    null_count: Option<&'a RawValue>,
    #[serde(rename = "tightBounds", default)]
    tight_bounds: Option<bool>,
}

/// The value at `path` below a JSON object; `None` when any level is
/// missing or not an object.
fn lookup<'a>(raw: &'a RawValue, path: &[String]) -> Option<&'a RawValue> {
    let (first, rest) = path.split_first()?;
    let map: BTreeMap<String, &'a RawValue> = serde_json::from_str(raw.get()).ok()?;
    let v = *map.get(first)?;
    if rest.is_empty() {
        Some(v)
    } else {
        lookup(v, rest)
    }
}

/// A decimal number's text as `unscaled × 10^-scale`: `12.50`, `-3`,
/// `1.5E2`. `None` past 30 significant digits or on anything else.
fn decimal_text(t: &str) -> Option<(i128, u32)> {
    let t = t.trim();
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || int.len() + frac.len() > 30
    {
        return None;
    }
    let mut unscaled: i128 = format!("{int}{frac}").parse().ok()?;
    let mut scale = frac.len() as i32 - exp;
    while scale < 0 {
        unscaled = unscaled.checked_mul(10)?;
        scale += 1;
    }
    Some((if neg { -unscaled } else { unscaled }, scale as u32))
}

/// Microseconds since the epoch of an ISO 8601 timestamp with a zone
/// (`2024-01-01T00:00:00.000Z`, `+01:00`), or of a wall-clock one when
/// `ntz`.
fn timestamp_text(t: &str, ntz: bool) -> Option<i64> {
    if ntz {
        let dt: jiff::civil::DateTime = t.replacen(' ', "T", 1).parse().ok()?;
        let epoch = jiff::civil::date(1970, 1, 1).at(0, 0, 0, 0);
        return Some(
            epoch
                .until((jiff::Unit::Microsecond, dt))
                .ok()?
                .get_microseconds(),
        );
    }
    let ts: jiff::Timestamp = t.parse().ok()?;
    Some(ts.as_microsecond())
}

/// A Delta JSON statistic as a literal of its column's type, with whether
/// it is exact (`false` for a string the writer may have cut). A maximum
/// (`upper`) of a timestamp is moved up, a minimum down, by the
/// millisecond the writer cut.
fn delta_literal(raw: &RawValue, ty: &ColumnType, upper: bool) -> Option<(Literal, bool)> {
    let text = raw.get();
    let string = || serde_json::from_str::<String>(text).ok();
    let slack = if upper { MILLI_SLACK } else { -MILLI_SLACK };
    Some(match ty {
        ColumnType::Boolean => (Literal::Bool(serde_json::from_str(text).ok()?), true),
        ColumnType::Integer(_) => (Literal::Int(serde_json::from_str(text).ok()?), true),
        ColumnType::Floating(_) => {
            let v: f64 = serde_json::from_str(text).ok()?;
            (!v.is_nan()).then_some((Literal::Float(v), true))?
        }
        ColumnType::Decimal { .. } => {
            let (unscaled, scale) = decimal_text(text)?;
            (Literal::Decimal { unscaled, scale }, true)
        }
        ColumnType::String => {
            let s = string()?;
            let exact = s.chars().count() < DELTA_STRING_PREFIX;
            (Literal::String(s), exact)
        }
        ColumnType::Date => {
            let d: jiff::civil::Date = string()?.parse().ok()?;
            let days = jiff::civil::date(1970, 1, 1)
                .until((jiff::Unit::Day, d))
                .ok()?
                .get_days();
            (Literal::Date(days), true)
        }
        ColumnType::Timestamp | ColumnType::TimestampNtz => {
            let micros = timestamp_text(&string()?, *ty == ColumnType::TimestampNtz)?;
            (
                Literal::Timestamp {
                    micros: micros.saturating_add(slack),
                    utc: true,
                },
                true,
            )
        }
        ColumnType::Binary | ColumnType::Other(_) => return None,
    })
}

/// Statistics of the `cols` of one Delta `add`, from its `stats` JSON;
/// the second value counts the statistics present but unreadable.
pub(crate) fn delta(
    stats: Option<&str>,
    partition: &[Option<String>],
    cols: &[StatsColumn],
) -> (Box<[ColumnStats]>, u64) {
    let parsed: Option<DeltaStats<'_>> = stats.and_then(|s| serde_json::from_str(s).ok());
    let mut bad = u64::from(stats.is_some() && parsed.is_none());
    let rows = parsed
        .as_ref()
        .and_then(|p| p.num_records)
        .and_then(|n| u64::try_from(n).ok());
    let tight = parsed
        .as_ref()
        .is_none_or(|p| p.tight_bounds.unwrap_or(true));
    let mut part = partition.iter();
    let out = cols
        .iter()
        .map(|c| {
            let mut s = ColumnStats {
                rows,
                ..ColumnStats::default()
            };
            if c.partition {
                // Partition values are strings in the log, typed here.
                if let Some(v) = part.next() {
                    match v {
                        None => s.null_count = rows,
                        Some(v) => match plan::predicate::literal(v, &c.ty) {
                            Some(l) => {
                                s.min = Some(l.clone());
                                s.max = Some(l);
                                s.max_exact = true;
                                s.null_count = Some(0);
                            }
                            None => bad += 1,
                        },
                    }
                }
                return s;
            }
            let Some(p) = &parsed else {
                return s;
            };
            let mut read = |v: Option<&RawValue>, upper: bool| -> Option<(Literal, bool)> {
                let raw = lookup(v?, &c.physical)?;
                if raw.get() == "null" {
                    return None;
                }
                let out = delta_literal(raw, &c.ty, upper);
                bad += u64::from(out.is_none());
                out
            };
            s.min = read(p.min_values, false).map(|(l, _)| l);
            if let Some((l, exact)) = read(p.max_values, true) {
                s.max = Some(l);
                s.max_exact = exact;
            }
            if tight {
                s.null_count = p
                    .null_count
                    .and_then(|n| lookup(n, &c.physical))
                    .and_then(|n| serde_json::from_str::<u64>(n.get()).ok());
            }
            s
        })
        .collect();
    (out, bad)
}

/// A bound in Iceberg's single-value binary serialization as a literal of
/// its column's type, with whether it is exact.
pub(crate) fn iceberg_literal(
    b: &[u8],
    ty: &ColumnType,
    iceberg_type: &str,
    upper: bool,
) -> Option<(Literal, bool)> {
    let le8 = || -> Option<i64> { Some(i64::from_le_bytes(b.try_into().ok()?)) };
    let le4 = || -> Option<i32> { Some(i32::from_le_bytes(b.try_into().ok()?)) };
    Some(match ty {
        ColumnType::Boolean => (Literal::Bool(*b.first()? != 0), b.len() == 1),
        ColumnType::Integer(_) => {
            let v = match b.len() {
                4 => i64::from(le4()?),
                8 => le8()?,
                _ => return None,
            };
            (Literal::Int(v), true)
        }
        ColumnType::Floating(_) => {
            let v = match b.len() {
                4 => f64::from(f32::from_le_bytes(b.try_into().ok()?)),
                8 => f64::from_le_bytes(b.try_into().ok()?),
                _ => return None,
            };
            (!v.is_nan()).then_some((Literal::Float(v), true))?
        }
        ColumnType::Decimal { scale, .. } => {
            // Big-endian two's complement, minimal bytes.
            if b.is_empty() || b.len() > 16 {
                return None;
            }
            let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
            let mut buf = [fill; 16];
            buf[16 - b.len()..].copy_from_slice(b);
            (
                Literal::Decimal {
                    unscaled: i128::from_be_bytes(buf),
                    scale: u32::from(*scale),
                },
                true,
            )
        }
        ColumnType::String => {
            let s = std::str::from_utf8(b).ok()?.to_string();
            let exact = s.chars().count() < ICEBERG_STRING_PREFIX;
            (Literal::String(s), exact)
        }
        ColumnType::Date => (Literal::Date(le4()?), true),
        ColumnType::Timestamp | ColumnType::TimestampNtz => {
            let v = le8()?;
            // timestamp_ns / timestamptz_ns count nanoseconds.
            let micros = if iceberg_type.ends_with("_ns") {
                if upper {
                    v.div_euclid(1000) + i64::from(v.rem_euclid(1000) != 0)
                } else {
                    v.div_euclid(1000)
                }
            } else {
                v
            };
            (Literal::Timestamp { micros, utc: true }, true)
        }
        ColumnType::Binary | ColumnType::Other(_) => return None,
    })
}

/// The Spark type of an Iceberg primitive type name.
pub(crate) fn iceberg_type(t: &str) -> ColumnType {
    match t {
        "boolean" => ColumnType::Boolean,
        "date" => ColumnType::Date,
        "timestamp" | "timestamp_ns" => ColumnType::TimestampNtz,
        "timestamptz" | "timestamptz_ns" => ColumnType::Timestamp,
        "string" => ColumnType::String,
        "binary" | "uuid" => ColumnType::Binary,
        t if t.starts_with("fixed") => ColumnType::Binary,
        t => ColumnType::parse(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(name: &str, ty: &str) -> StatsColumn {
        StatsColumn {
            physical: name.split('.').map(str::to_string).collect(),
            ty: ColumnType::parse(ty),
            partition: false,
            field_id: None,
        }
    }

    #[test]
    fn decimal_texts_keep_every_digit() {
        assert_eq!(decimal_text("12.50"), Some((1250, 2)));
        assert_eq!(decimal_text("-3"), Some((-3, 0)));
        assert_eq!(decimal_text("1.5E2"), Some((150, 0)));
        assert_eq!(decimal_text("1.25e-1"), Some((125, 3)));
        assert_eq!(
            decimal_text("12345678901234567890.12"),
            Some((1234567890123456789012, 2))
        );
        assert_eq!(decimal_text("abc"), None);
        assert_eq!(decimal_text(""), None);
    }

    #[test]
    fn delta_stats_of_each_type() {
        let json = r#"{"numRecords":10,"minValues":{"k":1,"d":"1995-01-01","p":0.05,"s":"AAA","t":"2024-01-01T00:00:00.000Z","n":{"x":3}},"maxValues":{"k":9,"d":"1995-12-31","p":100.25,"s":"abcdefghijabcdefghijabcdefghijab","t":"2024-01-01T00:00:01.000Z","n":{"x":4}},"nullCount":{"k":0,"d":2,"n":{"x":0}}}"#;
        let cols = [
            col("k", "long"),
            col("d", "date"),
            col("p", "decimal(15,2)"),
            col("s", "string"),
            col("t", "timestamp"),
            col("n.x", "integer"),
        ];
        let (s, bad) = delta(Some(json), &[], &cols);
        assert_eq!(bad, 0);
        assert_eq!(s[0].min, Some(Literal::Int(1)));
        assert_eq!(s[0].max, Some(Literal::Int(9)));
        assert_eq!(s[0].rows, Some(10));
        assert_eq!(s[0].null_count, Some(0));
        assert_eq!(s[1].min, Some(Literal::Date(9131)));
        assert_eq!(s[1].null_count, Some(2));
        assert_eq!(
            s[2].max,
            Some(Literal::Decimal {
                unscaled: 10025,
                scale: 2
            })
        );
        // 32 characters: the writer may have cut it.
        assert!(!s[3].max_exact);
        assert_eq!(
            s[4].max,
            Some(Literal::Timestamp {
                micros: 1_704_067_201_000_999,
                utc: true
            })
        );
        assert_eq!(s[5].min, Some(Literal::Int(3)));
    }

    #[test]
    fn bad_delta_statistics_are_missing_and_counted() {
        let cols = [col("k", "long"), col("d", "date")];
        let (s, bad) = delta(
            Some(
                r#"{"numRecords":3,"minValues":{"k":"x","d":"1995-13-45"},"maxValues":{"k":null}}"#,
            ),
            &[],
            &cols,
        );
        assert_eq!(bad, 2);
        assert!(s.iter().all(|s| s.min.is_none() && s.max.is_none()));
        let (s, bad) = delta(Some("{not json"), &[], &cols);
        assert_eq!(bad, 1);
        assert!(s[0].min.is_none());
        // Wide bounds after deletion vectors: null counts are dropped.
        let (s, _) = delta(
            Some(
                r#"{"numRecords":3,"minValues":{"k":1},"maxValues":{"k":2},"nullCount":{"k":3},"tightBounds":false}"#,
            ),
            &[],
            &cols,
        );
        assert_eq!(s[0].null_count, None);
        assert_eq!(s[0].max, Some(Literal::Int(2)));
    }

    #[test]
    fn partition_values_are_exact_bounds() {
        let mut p = col("d", "date");
        p.partition = true;
        let cols = [p.clone(), p];
        let (s, bad) = delta(
            Some(r#"{"numRecords":4}"#),
            &[Some("1995-01-01".into()), None],
            &cols,
        );
        assert_eq!(bad, 0);
        assert_eq!(s[0].min, s[0].max);
        assert_eq!(s[0].min, Some(Literal::Date(9131)));
        assert_eq!(s[1].null_count, Some(4));
    }

    #[test]
    fn iceberg_bounds_decode_by_the_spec() {
        let t = |s| ColumnType::parse(s);
        assert_eq!(
            iceberg_literal(&7i32.to_le_bytes(), &t("int"), "int", false),
            Some((Literal::Int(7), true))
        );
        assert_eq!(
            iceberg_literal(&9131i32.to_le_bytes(), &t("date"), "date", false),
            Some((Literal::Date(9131), true))
        );
        // -1.00 as decimal(15,2): unscaled -100, big-endian 0xff9c.
        assert_eq!(
            iceberg_literal(&[0xff, 0x9c], &t("decimal(15,2)"), "decimal(15, 2)", false),
            Some((
                Literal::Decimal {
                    unscaled: -100,
                    scale: 2
                },
                true
            ))
        );
        assert_eq!(
            iceberg_literal(
                &1_500i64.to_le_bytes(),
                &t("timestamp"),
                "timestamptz_ns",
                true
            ),
            Some((
                Literal::Timestamp {
                    micros: 2,
                    utc: true
                },
                true
            ))
        );
        // A 3-byte int is not a bound.
        assert_eq!(iceberg_literal(&[1, 2, 3], &t("int"), "int", false), None);
        assert_eq!(
            iceberg_literal(b"0123456789abcdef", &t("string"), "string", true),
            Some((Literal::String("0123456789abcdef".into()), false))
        );
    }
}
