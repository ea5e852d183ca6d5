//! Times and time windows: the flags users give (`--since 2026-10-05`,
//! `--window 7d`) and the calendar the edge table and drift are cut on.
//!
//! Parsing and calendar arithmetic are jiff's, so invalid dates such as
//! 2026-02-31 are refused and UTC offsets are honoured. Times without an
//! offset are UTC, as Spark's event-log timestamps are.

use crate::error::{Error, Result};
use jiff::civil::{Date, DateTime};
use jiff::tz::Offset;
use jiff::{SpanRelativeTo, Timestamp, Unit};

const DAY_MS: i64 = 86_400_000;
const WEEK_MS: i64 = 7 * DAY_MS;

/// Parse a time into epoch milliseconds: epoch ms itself, an RFC 3339
/// instant (`2026-10-05T09:00:01.980Z`, `2026-10-05T11:00:00+02:00`), or a
/// date or date-time without offset (`2026-10-05`, `2026-10-05T09:00`,
/// `2026-10-05 09:00:00`), read as UTC.
pub fn parse_time(s: &str) -> Result<i64> {
    let t = s.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    let err = |reason: String| Error::Time {
        input: s.to_string(),
        reason,
    };
    if let Ok(ts) = t.parse::<Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    let civil = match t.parse::<DateTime>() {
        Ok(dt) => dt,
        Err(e) => match t.parse::<Date>() {
            Ok(d) => d.to_datetime(jiff::civil::Time::midnight()),
            Err(_) => return Err(err(e.to_string())),
        },
    };
    Offset::UTC
        .to_timestamp(civil)
        .map(|ts| ts.as_millisecond())
        .map_err(|e| err(e.to_string()))
}

/// Format epoch milliseconds as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds;
/// a value outside jiff's range, ±9999 years, prints as the number).
pub fn format_time(ms: i64) -> String {
    match Timestamp::from_millisecond(ms.div_euclid(1000) * 1000) {
        Ok(ts) => ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Err(_) => ms.to_string(),
    }
}

/// Parse a window length into milliseconds: a span such as `7d`, `1w`,
/// `12h`, `30m`, `1w 2d` or ISO 8601 `P7D` (days are 24 hours, weeks 7
/// days; `m` is minutes); a bare number is days.
pub fn parse_duration(s: &str) -> Result<i64> {
    let t = s.trim();
    let err = |reason: String| Error::Duration {
        input: s.to_string(),
        reason,
    };
    let ms = if let Ok(days) = t.parse::<i64>() {
        days.checked_mul(DAY_MS)
            .ok_or_else(|| err("too long".into()))?
    } else {
        // jiff's own messages name its API (`SpanRelativeTo::…`): say
        // what is accepted instead.
        let span: jiff::Span = t.parse().map_err(|_| {
            err(
                "expected a length such as 7d, 1w, 12h, 30m, 1w 2d or P7D (a bare number is days)"
                    .into(),
            )
        })?;
        if span.get_years() != 0 || span.get_months() != 0 {
            return Err(err(
                "months and years have no fixed length: give days or weeks (30d, 4w)".into(),
            ));
        }
        let total = span
            .total((Unit::Millisecond, SpanRelativeTo::days_are_24_hours()))
            .map_err(|_| err("too long".into()))?;
        if total.fract() != 0.0 || total.abs() > i64::MAX as f64 {
            return Err(err("not a whole number of milliseconds".into()));
        }
        total as i64
    };
    if ms <= 0 {
        return Err(err("must be positive".into()));
    }
    Ok(ms)
}

/// A window length as `--window` takes it (`7d`, `12h`, `90s`, `5ms`).
pub fn format_length(ms: i64) -> String {
    const UNITS: [(i64, &str); 4] = [(DAY_MS, "d"), (3_600_000, "h"), (60_000, "m"), (1000, "s")];
    UNITS
        .iter()
        .find(|(u, _)| ms % u == 0)
        .map_or(format!("{ms}ms"), |(u, name)| format!("{}{name}", ms / u))
}

/// Where windows of `width_ms` start: whole weeks on Monday 00:00 UTC
/// (1970-01-05, the first Monday after the epoch), other lengths on
/// multiples of the length since the epoch.
pub fn window_align(width_ms: i64) -> i64 {
    if width_ms % WEEK_MS == 0 {
        4 * DAY_MS
    } else {
        0
    }
}

/// The `[since, until)` range of `--since` / `--until` (either open).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeRange {
    /// Inclusive start, epoch ms.
    pub since: Option<i64>,
    /// Exclusive end, epoch ms.
    pub until: Option<i64>,
}

impl TimeRange {
    /// Whether an execution that started at `start_ms` is in range; one
    /// without a start time is kept only when the range is open on both
    /// sides.
    pub fn contains(&self, start_ms: Option<i64>) -> bool {
        match start_ms {
            Some(t) => self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u),
            None => self.since.is_none() && self.until.is_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip() {
        // week1 of the weekly fixtures: 2026-10-05T09:00:01.980Z.
        assert_eq!(
            parse_time("2026-10-05T09:00:01.980Z").unwrap(),
            1791190801980
        );
        assert_eq!(parse_time("1791190801980").unwrap(), 1791190801980);
        assert_eq!(format_time(1791190801980), "2026-10-05T09:00:01Z");
        assert_eq!(parse_time("1970-01-01").unwrap(), 0);
        assert_eq!(
            parse_time("2026-10-05 09:00:00").unwrap(),
            parse_time("2026-10-05T09:00:00Z").unwrap()
        );
        assert_eq!(
            parse_time("2026-10-05T09:00").unwrap(),
            parse_time("2026-10-05T09:00:00Z").unwrap()
        );
        assert!(parse_time("2026-13-01").is_err());
        assert!(parse_time("yesterday").is_err());
    }

    #[test]
    fn impossible_dates_are_refused_and_offsets_honoured() {
        let e = parse_time("2026-02-31").unwrap_err().to_string();
        assert!(e.contains("2026-02-31"), "{e}");
        assert!(parse_time("2026-02-29").is_err(), "2026 is not a leap year");
        assert!(parse_time("2028-02-29").is_ok());
        assert_eq!(
            parse_time("2026-10-05T11:00:00+02:00").unwrap(),
            parse_time("2026-10-05T09:00:00Z").unwrap()
        );
        assert_eq!(
            parse_time("2026-10-05T04:30:00-04:30").unwrap(),
            parse_time("2026-10-05T09:00:00Z").unwrap()
        );
    }

    #[test]
    fn format_truncates_to_whole_seconds() {
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(999), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn durations_and_monday_alignment() {
        assert_eq!(parse_duration("7d").unwrap(), 604_800_000);
        assert_eq!(parse_duration("1w").unwrap(), 604_800_000);
        assert_eq!(parse_duration("P7D").unwrap(), 604_800_000);
        assert_eq!(parse_duration("7").unwrap(), 604_800_000);
        assert_eq!(parse_duration("12h").unwrap(), 43_200_000);
        assert_eq!(parse_duration("30m").unwrap(), 1_800_000);
        assert_eq!(parse_duration("1w 2d").unwrap(), 9 * DAY_MS);
        assert!(parse_duration("7x").is_err());
        for bad in ["1mo", "1y", "7x"] {
            let e = parse_duration(bad).unwrap_err().to_string();
            assert!(!e.contains("jiff") && !e.contains("SpanRelativeTo"), "{e}");
        }
        assert!(parse_duration("1mo")
            .unwrap_err()
            .to_string()
            .contains("30d"));
        assert!(parse_duration("0d").is_err());
        assert!(parse_duration("-1d").is_err());
        let w = parse_duration("7d").unwrap();
        let a = window_align(w);
        let t = parse_time("2026-10-05T09:00:00Z").unwrap();
        let start = (t - a).div_euclid(w) * w + a;
        assert_eq!(format_time(start), "2026-10-05T00:00:00Z");
        let monday = Offset::UTC.to_datetime(Timestamp::from_millisecond(a).unwrap());
        assert_eq!(monday.weekday(), jiff::civil::Weekday::Monday);
    }

    #[test]
    fn ranges_are_half_open() {
        let r = TimeRange {
            since: Some(parse_time("2026-10-05").unwrap()),
            until: Some(parse_time("2026-10-12").unwrap()),
        };
        assert!(r.contains(Some(parse_time("2026-10-05").unwrap())));
        assert!(!r.contains(Some(parse_time("2026-10-12").unwrap())));
        assert!(!r.contains(None));
        assert!(TimeRange::default().contains(None));
    }
}
