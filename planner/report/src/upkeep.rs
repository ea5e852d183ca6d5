//! The maintenance plan as `maintenance.sql` (issue 32.6), its savings per
//! week, and the one-line verdict per table `analyze` ends with.
//!
//! A step's saving is measured on the logged scans of the whole input read
//! (the range [`crate::ReportData::edges_span`] names): the bytes those scans
//! would not have read after it ([`maintenance::UpkeepStep::saved_bytes`]),
//! scaled from that range to a week.

use maintenance::{Action, UpkeepStep};
use planner::human;
use std::fmt::Write as _;
use workload::time::format_time;

/// Text on one line: a comment in SQL ends at a line break, so no name
/// read from storage or logs may hold one.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// The bytes a step saves a week, when the logs span some time.
pub fn weekly_bytes(step: &UpkeepStep, span: Option<(i64, i64)>) -> Option<f64> {
    let (a, b) = span?;
    let ms = b.checked_sub(a).filter(|ms| *ms > 0)?;
    Some(step.saved_bytes * crate::WEEK_MS / ms as f64)
}

/// What a step saves, in words: `saves 1.2 KiB read a week; 32 fewer
/// files to open for a read of the whole table`.
pub fn saving(step: &UpkeepStep, span: Option<(i64, i64)>) -> String {
    match step.action {
        Action::Recluster => return "the layout plan's saving (plan.sql)".into(),
        Action::LeaveAlone => return "nothing (left alone)".into(),
        Action::Compact | Action::PurgeDeletes | Action::CompactAndPurge => {}
    }
    let mut parts = Vec::new();
    match weekly_bytes(step, span) {
        // Compaction alone reads the same bytes, in fewer files.
        Some(_) if step.saved_bytes == 0.0 && step.files_fewer > 0 => {}
        Some(w) => parts.push(format!("saves {} read a week", human(w))),
        None => parts.push(format!(
            "saves {} read over the logs (they span no time: no weekly figure)",
            human(step.saved_bytes)
        )),
    }
    if step.files_fewer > 0 {
        parts.push(format!(
            "{} fewer file(s) to open for a read of the whole table",
            step.files_fewer
        ));
    }
    parts.join("; ")
}

/// The range the savings are measured over, as the comments say it.
fn range(span: Option<(i64, i64)>) -> String {
    match span {
        Some((a, b)) => format!("{} .. {}", format_time(a), format_time(b)),
        None => "no execution with a start time".into(),
    }
}

/// `maintenance.sql`: every step's statements, ranked as report.md ranks
/// them, each under a comment with its rank, table, step, what it
/// rewrites, the range its saving was measured over and its saving a week.
/// A recluster's statements are in `plan.sql`; a table left alone has a
/// comment with the reason and no statement.
pub fn sql(steps: &[UpkeepStep], span: Option<(i64, i64)>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "-- lakeaudit maintenance plan: compaction and delete purging, best value first (report.md, Maintenance)."
    );
    let _ = writeln!(
        s,
        "-- Savings are the bytes the logged scans of {} would not have read, scaled to a week.",
        range(span)
    );
    let _ = writeln!(
        s,
        "-- Each statement is a rewrite that commits like any write: run it when the table's writers are quiet, or be ready to retry on a conflict."
    );
    if steps.is_empty() {
        let _ = writeln!(
            s,
            "\n-- No audited table needs compaction or delete purging."
        );
    }
    for (i, st) in steps.iter().enumerate() {
        let _ = writeln!(
            s,
            "\n-- {}. {}: {} — {}",
            i + 1,
            one_line(&st.table),
            st.action.label(),
            one_line(&st.rewrites)
        );
        if st.action != Action::LeaveAlone {
            let _ = writeln!(
                s,
                "-- measured on {}: {}",
                range(span),
                one_line(&saving(st, span))
            );
        }
        match st.action {
            Action::Recluster => {
                let _ = writeln!(s, "-- see plan.sql: the recluster rewrites the table");
            }
            Action::LeaveAlone => {
                let _ = writeln!(s, "-- nothing to run");
            }
            Action::Compact | Action::PurgeDeletes | Action::CompactAndPurge => {
                for stmt in &st.statements {
                    // Amoro's property statement is written as a comment.
                    if stmt.starts_with("--") {
                        let _ = writeln!(s, "{}", one_line(stmt));
                    } else {
                        let _ = writeln!(s, "{stmt};");
                    }
                }
            }
        }
    }
    s
}

/// What to do with a step's table, and why or what it saves: `compact —
/// saves 1.2 KiB read a week; …`, `leave — the table (…) is smaller than
/// one target file …`.
pub fn verdict(st: &UpkeepStep, span: Option<(i64, i64)>) -> String {
    let word = match st.action {
        Action::Recluster => "recluster",
        Action::Compact => "compact",
        Action::PurgeDeletes => "purge",
        Action::CompactAndPurge => "compact + purge",
        Action::LeaveAlone => "leave",
    };
    let why = match st.action {
        // A table left alone says why (its size) instead.
        Action::LeaveAlone => st
            .rewrites
            .strip_prefix("nothing: ")
            .unwrap_or(&st.rewrites)
            .to_string(),
        _ => saving(st, span),
    };
    format!("{word} — {}", one_line(&why))
}
