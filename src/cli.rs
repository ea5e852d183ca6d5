//! What every command shares on its command line: the value parsers that
//! check each flag before any input is read (so an error names the flag
//! and the forms it accepts, as clap prints it:
//! `invalid value '10 gigs' for '--storage-budget <BYTES>': …`), the exit
//! codes, the default output format and the terminal's width.

use crate::output::Format;
use std::path::{Path, PathBuf};

/// Shared input arguments: logs, `--records` or `--aggregates`.
pub use workload::inputs::Inputs;

/// Where a command's result goes and in which format (`queries`,
/// `edges`, `drift`, `whatif`).
#[derive(clap::Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format; default: from the extension of `-o FILE`
    /// (`.jsonl`, `.csv`, `.parquet`, `.txt`), else a table on a
    /// terminal and JSON lines on a pipe.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output (`-`: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `-o FILE`, or `None` for standard output (no `-o`, or `-o -`).
pub fn out_path(output: Option<&Path>) -> Option<&Path> {
    output.filter(|p| *p != Path::new("-"))
}

impl OutputArgs {
    /// The format: `--format`, else `-o FILE`'s extension, else the default
    /// ([`tabular::format::default_for`]); a contradiction is a usage error.
    pub fn format(&self) -> anyhow::Result<Format> {
        Ok(tabular::format::resolve(
            self.format,
            self.path(),
            tabular::format::default_for(self.path()),
        )?)
    }

    /// `-o FILE`, or `None` for standard output.
    pub fn path(&self) -> Option<&Path> {
        out_path(self.output.as_deref())
    }
}

/// Every input was read.
pub const EXIT_OK: u8 = 0;
/// `drift --exit-code`: every input was read and a re-plan is due.
pub const EXIT_REPLAN: u8 = 1;
/// Some input could not be read (or an output not written); the others'
/// results were still written.
pub const EXIT_INPUT: u8 = 2;
/// The command line is wrong (unknown flag, bad value, missing argument):
/// nothing was read. `EX_USAGE` of BSD's sysexits.h.
pub const EXIT_USAGE: u8 = 64;
/// A bug in lakeaudit (a panic no input's boundary caught), as Rust's own
/// exit code for a panic.
pub const EXIT_INTERNAL: u8 = 101;

/// The exit code for an error: [`EXIT_USAGE`] for a command-line mistake
/// that clap cannot see ([`tabular::Error::Usage`]: a `--format` that
/// `-o FILE`'s extension contradicts, Parquet to a terminal, a bad
/// `--storage-option`), found before any input is read; else
/// [`EXIT_INPUT`].
pub fn exit_code(e: &anyhow::Error) -> u8 {
    let usage = |c: &(dyn std::error::Error + 'static)| {
        matches!(c.downcast_ref(), Some(tabular::Error::Usage(_)))
    };
    if e.chain().any(usage) {
        EXIT_USAGE
    } else {
        EXIT_INPUT
    }
}

const SIZE_FORMS: &str = "a byte count or a number with a unit: 128MB, 500GB, 1.5TB (powers of 1000), 128MiB, 2TiB (powers of 1024); units B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB";

/// A size flag (`--budget`, `--storage-budget`, `--target-size`): bytes.
pub fn size(s: &str) -> Result<u64, String> {
    planner::parse_size(s).map_err(|_| format!("expected {SIZE_FORMS}"))
}

/// A size that must be at least one byte (`--target-size`: files are cut
/// at it).
pub fn positive_size(s: &str) -> Result<u64, String> {
    match size(s)? {
        0 => Err("must be at least 1 byte (files are cut at this size)".into()),
        n => Ok(n),
    }
}

/// A window length (`--window`): checked here, kept as the user wrote it
/// (the reports print it).
pub fn window(s: &str) -> Result<String, String> {
    workload::time::parse_duration(s)
        .map(|_| s.to_string())
        .map_err(|e| match e {
            workload::Error::Duration { reason, .. } => reason,
            other => other.to_string(),
        })
}

/// `--store-timeout`: a length with a unit (`30s`, `2m`, `500ms`), above
/// zero and at most a day. A bare number is refused (other length flags
/// read it as days, which is no timeout for a request).
pub fn store_timeout(s: &str) -> Result<std::time::Duration, String> {
    const FORMS: &str = "expected a length with a unit, such as 30s, 2m or 500ms";
    if s.trim().parse::<f64>().is_ok() {
        return Err(format!("{FORMS} (a bare number has no unit)"));
    }
    let ms = workload::time::parse_duration(s).map_err(|_| FORMS.to_string())?;
    match u64::try_from(ms) {
        Ok(0) | Err(_) => Err("must be above zero".into()),
        Ok(ms) if ms > 86_400_000 => Err("must be at most a day (24h)".into()),
        Ok(ms) => Ok(std::time::Duration::from_millis(ms)),
    }
}

/// A time flag (`--since`, `--until`): checked here, parsed again where
/// it is used.
pub fn time(s: &str) -> Result<String, String> {
    workload::time::parse_time(s).map(|_| s.to_string()).map_err(|_| {
        "expected epoch milliseconds, a date (2026-10-05), a UTC date-time (2026-10-05T09:00:00Z, 2026-10-05 09:00) or one with an offset (2026-10-05T11:00:00+02:00)".to_string()
    })
}

/// A count that must be at least 1 (`--threads`).
pub fn positive(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of at least 1".into()),
    }
}

/// A count of rows that must be at least 1 (`--sample-rows`).
pub fn positive_u64(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1 (--current-only simulates no layout)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of at least 1".into()),
    }
}

/// A `KEY=VALUE` pair (`--storage-option`); the key is checked when the
/// stores are configured.
pub fn key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err("expected KEY=VALUE (e.g. aws_endpoint=http://127.0.0.1:9000)".into()),
    }
}

/// A planning horizon in windows (`--horizon`): at least 1.
pub fn horizon(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("must be at least 1 window (a plan over no window saves nothing)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of windows, at least 1".into()),
    }
}

fn number(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| "expected a number".to_string())?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err("expected a finite number".into())
    }
}

/// A share in (0, 1] (`--scan-reduction`: 0.30 is 30 %).
pub fn fraction(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err("expected a fraction above 0 and at most 1 (0.30 for 30%)".into())
    }
}

/// A number ≥ 0 (`--discount`, `--retention-factor`, `--threshold`,
/// `--cost-per-tb`, `--cost-per-hour`).
pub fn non_negative(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err("expected a number of at least 0".into())
    }
}
