//! The shared first stages: read logs, resolve relationships per execution,
//! filter by time, cut windows.

use crate::ingest::{ingest, Ingested};
use crate::Inputs;
use anyhow::{bail, Context, Result};
use graph::edges::{ExecFacts, TableVolume};
use graph::lineage::Lineage;
use graph::relationships::{relationships, relationships_with, Relationship};
use graph::tables::canonical_table;
use parsers::events::ReadOptions;
use parsers::record::{PlanSet, QueryRecord};
use serde::Serialize;
use std::collections::BTreeMap;

/// One execution with the relationships its plan resolves to.
#[derive(Clone, Debug, Serialize)]
pub struct Exec {
    /// The `queries` record.
    #[serde(flatten)]
    pub record: QueryRecord,
    /// Join relationships resolved to base-table columns.
    pub relationships: Vec<Relationship>,
}

/// Read options from the shared flags.
pub fn read_options(inputs: &Inputs) -> ReadOptions {
    ReadOptions {
        max_line: inputs.max_line,
        ..ReadOptions::default()
    }
}

/// Read all inputs; lineage runs while each execution's plans are alive.
pub fn load(inputs: &Inputs) -> Ingested<Exec> {
    ingest(
        &inputs.paths,
        inputs.name.as_deref(),
        &read_options(inputs),
        |record: QueryRecord, plans: &PlanSet| {
            let relationships = match (plans.physical.as_ref(), plans.optimized.as_ref()) {
                // Extended mode: the physical text prints aggregate outputs
                // without their aliases; the optimized plan shares its exprIds
                // and has them, so resolve through both.
                (Some(p), Some(o)) => relationships_with(p, &Lineage::build_all(&[p, o])),
                _ => plans.best().map(relationships).unwrap_or_default(),
            };
            Exec {
                record,
                relationships,
            }
        },
    )
}

/// What an execution contributes to the join graph.
pub fn facts(e: &Exec) -> ExecFacts {
    let mut tables: BTreeMap<String, TableVolume> = BTreeMap::new();
    for s in &e.record.scans {
        let v = tables.entry(canonical_table(&s.table)).or_default();
        if let Some(r) = s.rows {
            v.rows = Some(v.rows.unwrap_or(0) + r);
        }
        if let Some(b) = s.bytes_read {
            v.bytes = Some(v.bytes.unwrap_or(0) + b);
        }
    }
    ExecFacts {
        app_id: e.record.app_id.clone(),
        execution_id: e.record.execution_id,
        start_ms: e.record.start_ms,
        duration_ms: e.record.duration_ms,
        cpu_ms: e.record.executor_cpu_ms,
        tables,
        relationships: e.relationships.clone(),
    }
}

/// Parse a time: epoch milliseconds, `YYYY-MM-DD`, or
/// `YYYY-MM-DDTHH:MM[:SS[.mmm]][Z]` (UTC).
pub fn parse_time(s: &str) -> Result<i64> {
    let t = s.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    let bad =
        || format!("cannot read time {s:?}: use epoch ms, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ");
    let (date, time) = match t.split_once(['T', ' ']) {
        Some((d, tm)) => (d, tm.trim_end_matches('Z')),
        None => (t, ""),
    };
    let mut dp = date.split('-');
    let (y, m, d): (i64, i64, i64) = match (dp.next(), dp.next(), dp.next(), dp.next()) {
        (Some(y), Some(m), Some(d), None) => (
            y.parse().with_context(bad)?,
            m.parse().with_context(bad)?,
            d.parse().with_context(bad)?,
        ),
        _ => bail!(bad()),
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        bail!(bad());
    }
    let mut secs = 0.0f64;
    if !time.is_empty() {
        let mut tp = time.split(':');
        let h: f64 = tp.next().unwrap_or("0").parse().with_context(bad)?;
        let mi: f64 = tp.next().unwrap_or("0").parse().with_context(bad)?;
        let se: f64 = tp.next().unwrap_or("0").parse().with_context(bad)?;
        secs = h * 3600.0 + mi * 60.0 + se;
    }
    Ok(days_from_civil(y, m, d) * 86_400_000 + (secs * 1000.0).round() as i64)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Format epoch ms as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_time(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000) / 1000;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Parse a window length: `7d`, `1w`, `12h`, `30m`.
pub fn parse_duration(s: &str) -> Result<i64> {
    let t = s.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: i64 = num
        .parse()
        .with_context(|| format!("cannot read window {s:?}: use e.g. 7d, 1w, 12h"))?;
    let unit_ms = match unit {
        "w" => 7 * 86_400_000,
        "d" | "" => 86_400_000,
        "h" => 3_600_000,
        "m" => 60_000,
        _ => bail!("cannot read window {s:?}: unit must be w, d, h or m"),
    };
    if n <= 0 {
        bail!("window {s:?} must be positive");
    }
    Ok(n * unit_ms)
}

/// Window alignment: whole weeks start on Monday 00:00 UTC, other lengths
/// on multiples of the length since the epoch.
pub fn window_align(width_ms: i64) -> i64 {
    const WEEK: i64 = 7 * 86_400_000;
    if width_ms % WEEK == 0 {
        4 * 86_400_000 // 1970-01-05 was a Monday
    } else {
        0
    }
}

/// Keep executions whose start lies in `[since, until)`.
pub fn in_range(e: &Exec, since: Option<i64>, until: Option<i64>) -> bool {
    match e.record.start_ms {
        Some(t) => since.is_none_or(|s| t >= s) && until.is_none_or(|u| t < u),
        None => since.is_none() && until.is_none(),
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
        assert!(parse_time("2026-13-01").is_err());
        assert!(parse_time("yesterday").is_err());
    }

    #[test]
    fn durations_and_monday_alignment() {
        assert_eq!(parse_duration("7d").unwrap(), 604_800_000);
        assert_eq!(parse_duration("1w").unwrap(), 604_800_000);
        assert!(parse_duration("7x").is_err());
        assert!(parse_duration("0d").is_err());
        let w = parse_duration("7d").unwrap();
        let a = window_align(w);
        let t = parse_time("2026-10-05T09:00:00Z").unwrap();
        let start = (t - a).div_euclid(w) * w + a;
        assert_eq!(format_time(start), "2026-10-05T00:00:00Z");
    }
}
