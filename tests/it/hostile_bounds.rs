//! Times and figures that cannot be true (issue 29, items 5 and 7 and
//! "also seen"): an execution at ±9×10^18 ms in a log or in `--records`,
//! a window length that would cut the data into millions of windows, a
//! CPU time of `i64::MIN`, the same records twice, and join conditions
//! of 90,000 and 300,000 terms. Each case is built at test time from the
//! repository's real fixtures: a real log with one value changed, or the
//! records `queries --format parquet` writes for the samples with one
//! value changed (polars, the writer lakeaudit itself uses).

use crate::common::*;
use polars::prelude::{BooleanChunked, Column, DataFrame};
use polars_io::prelude::{ParquetReader, ParquetWriter};
use polars_io::SerReader;
use std::path::Path;

/// Its application.
const PLAIN_APP: &str = "local-1796017603630";

/// The four weekly logs (one application a week): the other inputs.
fn weekly() -> String {
    sample("weekly")
}

/// The real log with the `time` of execution `id`'s `event`
/// (`SQLExecutionStart`, `SQLExecutionEnd`) set to `ms`, for each change.
fn with_times(changes: &[(u64, &str, i64)], to: &Path) {
    let text = std::fs::read_to_string(plain_log()).unwrap();
    let mut out = String::new();
    let mut changed = 0;
    for l in text.lines() {
        let mut l = l.to_string();
        for (id, event, ms) in changes {
            let head = format!(
                "{{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListener{event}\",\"executionId\":{id},"
            );
            if l.starts_with(&head) {
                let mut v: serde_json::Value = serde_json::from_str(&l).unwrap();
                v["time"] = (*ms).into();
                l = serde_json::to_string(&v).unwrap();
                changed += 1;
            }
        }
        out.push_str(&l);
        out.push('\n');
    }
    assert_eq!(changed, changes.len());
    std::fs::write(to, out).unwrap();
}

fn read_parquet(p: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(p).unwrap())
        .finish()
        .unwrap()
}

fn write_parquet(mut df: DataFrame, p: &Path) {
    ParquetWriter::new(std::fs::File::create(p).unwrap())
        .finish(&mut df)
        .unwrap();
}

/// A text column's values.
fn texts(df: &DataFrame, column: &str) -> Vec<Option<String>> {
    let c = df.column(column).unwrap().str().unwrap();
    (0..c.len()).map(|i| c.get(i).map(str::to_string)).collect()
}

/// A 64-bit integer column's values.
fn longs(df: &DataFrame, column: &str) -> Vec<Option<i64>> {
    let c = df.column(column).unwrap().i64().unwrap();
    (0..c.len()).map(|i| c.get(i)).collect()
}

/// The rows of `df` but those of `app`'s executions `ids`.
fn without(df: &DataFrame, app: &str, ids: &[i64]) -> DataFrame {
    let apps = texts(df, "app_id");
    let execs = longs(df, "execution_id");
    let keep: BooleanChunked = apps
        .iter()
        .zip(&execs)
        .map(|(a, i)| !(a.as_deref() == Some(app) && i.is_some_and(|i| ids.contains(&i))))
        .collect();
    let out = df.filter(&keep).unwrap();
    assert_eq!(out.height() + ids.len(), df.height());
    out
}

/// `df` with `column` (64-bit integers) set to `value` in the row of
/// `app`'s execution `id`.
fn set(df: &mut DataFrame, column: &str, app: &str, id: i64, value: Option<i64>) {
    let apps = texts(df, "app_id");
    let execs = longs(df, "execution_id");
    let mut values = longs(df, column);
    let mut n = 0;
    for (k, v) in values.iter_mut().enumerate() {
        if apps[k].as_deref() == Some(app) && execs[k] == Some(id) {
            *v = value;
            n += 1;
        }
    }
    assert_eq!(n, 1, "{app}:{id}");
    df.with_column(Column::new(column.into(), values)).unwrap();
}

/// The JSON lines of `queries`, without the `log` field (the path of the
/// log, which differs between a copy and the original).
fn records_of(stdout: &str) -> Vec<serde_json::Value> {
    jsonl(stdout)
        .into_iter()
        .map(|mut v| {
            v.as_object_mut().unwrap().remove("log");
            v
        })
        .collect()
}

/// Peak RSS every case below stays under (the debug build on the
/// fixtures takes well under 100 MiB; before the fixes, the windows of a
/// start at 9×10^18 ms took GBs or aborted).
const PEAK_KIB: u64 = 256 << 10;

/// 29.5: one `SQLExecutionStart` at 9×10^18 ms and one
/// `SQLExecutionEnd` at −9×10^18 ms in a real log. Before: `drift`,
/// `plan`, `analyze` and `edges --window` allocated windows for the whole
/// span (GBs, or "memory allocation failed" and exit 134). Now both
/// executions are left out with an error naming the log, the range and
/// the first one (exit 2), and every output is the one of the same inputs
/// without them.
#[test]
fn executions_at_9e18_ms_are_left_out_and_the_windows_stay_few() {
    let dir = scratch_dir("bounds-far");
    let far = dir.join("local-far");
    with_times(
        &[
            (4, "SQLExecutionStart", 9_000_000_000_000_000_000),
            (6, "SQLExecutionEnd", -9_000_000_000_000_000_000),
        ],
        &far,
    );
    let (far, weekly) = (s(&far), weekly());
    // What every output must be: that of the same records without the two.
    let all = dir.join("all.parquet");
    ok(&[
        "queries",
        &s(&plain_log()),
        &weekly,
        "--format",
        "parquet",
        "-o",
        &s(&all),
    ]);
    let expected = dir.join("expected.parquet");
    write_parquet(without(&read_parquet(&all), PLAIN_APP, &[4, 6]), &expected);
    let expected = s(&expected);

    let named = "local-far: 2 executions left out: a start or end time outside the plausible range 2000-01-01T00:00:00Z .. 2100-01-01T00:00:00Z (first: execution 4: start time 9000000000000000000 ms)";
    let o = run(&["queries", &far, &weekly]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(named), "{}", stderr(&o));
    assert_eq!(
        records_of(&String::from_utf8_lossy(&o.stdout)),
        records_of(&ok(&["queries", "--records", &expected]))
    );
    for (name, cmd) in [
        (
            "edges.csv",
            &["edges", "--window", "7d", "--format", "csv"][..],
        ),
        ("drift.csv", &["drift", "--format", "csv"]),
        ("plan.json", &["plan", "--format", "json"]),
    ] {
        let got = dir.join(format!("got-{name}"));
        let want = dir.join(format!("want-{name}"));
        let got_s = s(&got);
        let args = [cmd, &[far.as_str(), weekly.as_str(), "-o", &got_s]].concat();
        let (code, err, kib) = run_peak_rss(&args);
        assert_eq!(code, Some(2), "{cmd:?}: {err}");
        assert!(err.contains(named), "{cmd:?}: {err}");
        assert!(kib < PEAK_KIB, "{cmd:?}: peak RSS {kib} KiB");
        ok(&[cmd, &["--records", expected.as_str(), "-o", &s(&want)]].concat());
        assert_eq!(
            std::fs::read(&got).unwrap(),
            std::fs::read(&want).unwrap(),
            "{cmd:?}"
        );
    }
    let (got, want) = (dir.join("got-analyze"), dir.join("want-analyze"));
    let (code, err, kib) = run_peak_rss(&["analyze", &far, &weekly, "--out", &s(&got)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(named), "{err}");
    assert!(kib < PEAK_KIB, "analyze: peak RSS {kib} KiB");
    ok(&["analyze", "--records", &expected, "--out", &s(&want)]);
    for f in ["edges.csv", "drift.csv", "plan.json", "plan.sql"] {
        assert_eq!(
            std::fs::read(got.join(f)).unwrap(),
            std::fs::read(want.join(f)).unwrap(),
            "analyze {f}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// 29.5, in `--records`: the same times in a records file (the samples'
/// records, two values changed), and a CPU time of `i64::MIN` and a
/// negative duration (29.7). Before: the windows of the span (GBs), and
/// an edge cost of −9.2×10^18 with `--cost cpu`. Now the two are left out
/// (exit 2, named), the negative figures read as 0 and no duration with
/// a warning, and the outputs are those of the records so corrected.
#[test]
fn records_at_9e18_ms_are_left_out_and_negative_cpu_times_read_as_0() {
    let dir = scratch_dir("bounds-records-far");
    let all = dir.join("all.parquet");
    ok(&[
        "queries",
        &s(&plain_log()),
        &weekly(),
        "--format",
        "parquet",
        "-o",
        &s(&all),
    ]);
    let all = read_parquet(&all);
    let mut bad = all.clone();
    set(
        &mut bad,
        "start_ms",
        PLAIN_APP,
        4,
        Some(9_000_000_000_000_000_000),
    );
    set(
        &mut bad,
        "end_ms",
        PLAIN_APP,
        6,
        Some(-9_000_000_000_000_000_000),
    );
    set(&mut bad, "executor_cpu_ms", PLAIN_APP, 5, Some(i64::MIN));
    set(&mut bad, "duration_ms", PLAIN_APP, 7, Some(-1_000));
    let hostile = dir.join("hostile.parquet");
    write_parquet(bad, &hostile);
    let mut fixed = without(&all, PLAIN_APP, &[4, 6]);
    set(&mut fixed, "executor_cpu_ms", PLAIN_APP, 5, Some(0));
    set(&mut fixed, "duration_ms", PLAIN_APP, 7, None);
    let expected = dir.join("expected.parquet");
    write_parquet(fixed, &expected);
    let (hostile, expected) = (s(&hostile), s(&expected));
    let named = "hostile.parquet: 2 executions left out: a start or end time outside the plausible range 2000-01-01T00:00:00Z .. 2100-01-01T00:00:00Z (first: row ";
    let clamped = "hostile.parquet: 2 executions with a negative (or longer than a century) duration, executor run time or CPU time: read as no duration, or 0 ms (first: row ";
    for (name, cmd) in [
        (
            "edges.csv",
            &[
                "edges", "--window", "7d", "--format", "csv", "--cost", "cpu",
            ][..],
        ),
        ("drift.csv", &["drift", "--format", "csv"]),
        ("plan.json", &["plan", "--format", "json", "--cost", "cpu"]),
    ] {
        let got = dir.join(format!("got-{name}"));
        let want = dir.join(format!("want-{name}"));
        let (code, err, kib) =
            run_peak_rss(&[cmd, &["--records", hostile.as_str(), "-o", &s(&got)]].concat());
        assert_eq!(code, Some(2), "{cmd:?}: {err}");
        assert!(err.contains(named), "{cmd:?}: {err}");
        assert!(err.contains(clamped), "{cmd:?}: {err}");
        assert!(kib < PEAK_KIB, "{cmd:?}: peak RSS {kib} KiB");
        ok(&[cmd, &["--records", expected.as_str(), "-o", &s(&want)]].concat());
        let got = std::fs::read_to_string(&got).unwrap();
        assert_eq!(got, std::fs::read_to_string(&want).unwrap(), "{cmd:?}");
        assert!(!got.contains("922337"), "{cmd:?}: i64::MIN shows: {got}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// 29.7: the same records twice (the samples' records file given twice
/// in one directory). Before: every count doubled (642 executions instead
/// of 321) and each edge's frequency with them. Now the repeats are
/// dropped with a warning naming the file, and every output is the one
/// of the records given once.
#[test]
fn the_same_records_twice_count_once() {
    let dir = scratch_dir("bounds-twice");
    let once = dir.join("once.parquet");
    ok(&[
        "queries",
        &sample(""),
        "--format",
        "parquet",
        "-o",
        &s(&once),
    ]);
    let twice = dir.join("twice");
    std::fs::create_dir_all(&twice).unwrap();
    std::fs::copy(&once, twice.join("a.parquet")).unwrap();
    std::fs::copy(&once, twice.join("b.parquet")).unwrap();
    let (once, twice) = (s(&once), s(&twice));
    let n = jsonl(&ok(&["queries", "--records", &once])).len();
    assert!(n > 300, "{n}");
    let o = run(&["queries", "--records", &twice]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        jsonl(&String::from_utf8_lossy(&o.stdout)).len(),
        n,
        "each record once"
    );
    let warned = format!(
        "b.parquet: {n} records repeat one read before (same application, execution and log): dropped (first: row "
    );
    assert!(stderr(&o).contains(&warned), "{}", stderr(&o));
    assert!(!stderr(&o).contains("a.parquet: "), "{}", stderr(&o));
    for cmd in [
        &["edges", "--window", "7d", "--format", "csv"][..],
        &["drift", "--format", "csv"],
        &["plan", "--format", "json"],
        &["queries", "--apps", "/dev/null", "--format", "csv"],
    ] {
        let got = run(&[cmd, &["--records", twice.as_str()]].concat());
        assert_eq!(got.status.code(), Some(0), "{cmd:?}: {}", stderr(&got));
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            ok(&[cmd, &["--records", once.as_str()]].concat()),
            "{cmd:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// 29.7 in a log ("duplicated records: same application, execution and
/// log"): the real log with execution 4's events (start, AQE updates,
/// metric updates, end) pasted again after its end. Before: `queries`
/// gave execution 4 twice and nothing said so. Now the repeat is left
/// out with a warning naming the line it starts at, and every output is
/// the real log's.
#[test]
fn an_execution_read_again_in_its_log_counts_once() {
    let dir = scratch_dir("bounds-again");
    let log = dir.join("local-again");
    let text = std::fs::read_to_string(plain_log()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let of_four = |l: &&str| l.contains("\"executionId\":4,") || l.contains("\"executionId\":4}");
    let four: Vec<&str> = lines.iter().copied().filter(of_four).collect();
    assert!(four.len() > 3, "{}", four.len());
    let last = lines.iter().rposition(of_four).unwrap();
    let mut out: Vec<&str> = lines[..=last].to_vec();
    out.extend(&four);
    out.extend(&lines[last + 1..]);
    std::fs::write(&log, out.join("\n") + "\n").unwrap();
    let o = run(&["queries", &s(&log)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let warned = format!(
        "lakeaudit: warning: {}:{}: execution 4 is read again after it ended (an execution id is used once in an application): the repeat is left out\n",
        s(&log),
        last + 2
    );
    assert!(stderr(&o).contains(&warned), "{}", stderr(&o));
    let got = jsonl(&String::from_utf8_lossy(&o.stdout));
    let want = jsonl(&ok(&["queries", &s(&plain_log())]));
    assert_eq!(got.len(), want.len(), "each execution once");
    for (mut g, mut w) in got.into_iter().zip(want) {
        g["log"].take();
        w["log"].take();
        assert_eq!(g, w);
    }
    for cmd in [
        &["edges", "--format", "csv"][..],
        &["drift", "--format", "csv"],
        &["plan", "--format", "json"],
    ] {
        let got = run(&[cmd, &[s(&log).as_str()]].concat());
        assert_eq!(got.status.code(), Some(0), "{cmd:?}: {}", stderr(&got));
        let want = ok(&[cmd, &[s(&plain_log()).as_str()]].concat());
        assert_eq!(String::from_utf8_lossy(&got.stdout), want, "{cmd:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// "Windows are capped everywhere": a window length that cuts the data
/// (four weeks) into more than 1,000,000 windows is refused with the
/// length, the span and the way out, for logs and records alike, and
/// nothing is written. Before: 2.4 million windows were allocated and
/// printed.
#[test]
fn a_window_far_shorter_than_the_data_is_refused() {
    let dir = scratch_dir("bounds-short-window");
    let records = dir.join("weekly.parquet");
    ok(&[
        "queries",
        &weekly(),
        "--format",
        "parquet",
        "-o",
        &s(&records),
    ]);
    for input in [&[weekly()][..], &["--records".into(), s(&records)]] {
        let args: Vec<&str> = ["edges", "--window", "1s", "--format", "csv"]
            .into_iter()
            .chain(input.iter().map(String::as_str))
            .collect();
        let (code, err, kib) = run_peak_rss(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--window 1s cuts the executions from 2026-")
                && err.contains("into more than 1000000 windows: give a longer --window, or select fewer with --since/--until"),
            "{args:?}: {err}"
        );
        assert!(kib < PEAK_KIB, "{args:?}: peak RSS {kib} KiB");
        let o = run(&args);
        assert!(o.stdout.is_empty(), "{args:?}: something was written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// "Also seen": a 525 MB log with one join condition of 3,000,000 terms
/// did not finish in 300 s: the parser asked, after every `AND`, whether
/// the group's operators were all one (a look over the whole chain), so
/// a chain of n terms cost n². Here 90,000 terms (2.7 MB of condition,
/// under the cap of 100,000) in the real log: the join is resolved, its
/// condition kept whole.
#[test]
fn a_join_condition_of_90000_terms_is_read_in_linear_time() {
    let dir = scratch_dir("bounds-long-and");
    let n = 90_000;
    let (log, _) = log_with_condition(&dir, n);
    let o = run(&["queries", &s(&log)]);
    assert_condition_read_whole(&o, n);
    assert!(!stderr(&o).contains("over the cap"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// "Also seen", the memory: parsed, each term of a condition cost about
/// 2.4 KiB (its nodes, names and relationship pairs), so 3,000,000 terms
/// needed about 7 GB. A condition of more than `MAX_TERMS` (100,000)
/// binary operators is kept as its text, not parsed, with a warning naming
/// the log's line that held the plan; the other executions are as without
/// it. Here 300,000 terms: the debug build peaked at 750 MB before (and
/// printed nothing), about 120 MB now.
#[test]
fn a_join_condition_over_the_term_cap_is_kept_as_text_with_a_warning() {
    let dir = scratch_dir("bounds-over-cap");
    let n = 300_000;
    let (log, line) = log_with_condition(&dir, n);
    let (code, err, kib) = run_peak_rss(&["queries", &s(&log)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "lakeaudit: warning: {}:{line}: execution 4: the condition of BroadcastHashJoin holds 300000 terms, over the cap of 100000: kept as text, not read",
            s(&log)
        )),
        "{err}"
    );
    assert!(kib < 300 * 1024, "peak RSS {kib} KiB");
    let o = run(&["queries", &s(&log)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let recs = jsonl(&String::from_utf8(o.stdout).unwrap());
    let want = jsonl(&ok(&["queries", &s(&plain_log())]));
    assert_eq!(recs.len(), want.len());
    for (mut r, mut w) in recs.into_iter().zip(want) {
        // The log's path is the copy's.
        assert_eq!(r["log"].take(), s(&log).as_str());
        w["log"].take();
        if r["execution_id"] == 4 {
            // Its condition is the text as printed; its relationships come
            // from the join keys, as in the real log.
            assert_eq!(r["relationships"], w["relationships"]);
            let c = r["joins"][0]["condition"].as_str().unwrap();
            assert_eq!(c.matches(" AND ").count(), n - 1);
        } else {
            assert_eq!(r, w);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
