//! Helpers for running the real binary on the real logs, shared by every
//! module of the test binary (one copy each: they were copied between the
//! test files when each was a binary of its own).

pub mod parquet;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// A real TPC-H Spark log (or its manifest) of the repository's fixture
/// set, by its shared name (`tpch-default`, `tpch-smj`, `weekly`, ...).
pub fn logs(rel: &str) -> String {
    testdata::spark_logs(rel).to_string_lossy().into_owned()
}

/// The text of a file of the fixture set (decompressed when committed as
/// `.zst`).
pub fn logs_text(rel: &str) -> String {
    testdata::read_to_string(&format!("spark-logs/{rel}"))
}

/// A bundled sample.
pub fn sample(rel: &str) -> String {
    testdata::sample(rel).to_string_lossy().into_owned()
}

/// Run `lakeaudit ARGS`.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
        .args(args)
        .output()
        .expect("run lakeaudit")
}

/// Run and require exit code 0; return stdout.
pub fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "lakeaudit {args:?} failed ({:?}):\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8 output")
}

/// Parse JSON lines.
pub fn jsonl(s: &str) -> Vec<Value> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

/// The answer key.
pub fn truth() -> Value {
    serde_json::from_str(&logs_text("tpch-truth.json")).expect("truth json")
}

/// `q01` … `q22` by execution id, from an executions manifest.
pub fn query_of_execution(manifest: &str) -> BTreeMap<u64, String> {
    let v: Value = serde_json::from_str(&logs_text(manifest)).expect("manifest json");
    let mut m = BTreeMap::new();
    for run in v["runs"].as_array().expect("runs") {
        let q = run["query"].as_str().unwrap_or_default().to_string();
        for id in run["execution_ids"].as_array().into_iter().flatten() {
            if let Some(id) = id.as_u64() {
                m.insert(id, q.clone());
            }
        }
    }
    m
}

/// Short table name.
pub fn short(t: &str) -> String {
    t.rsplit('.').next().unwrap_or(t).to_string()
}

/// The set of short table names a record scanned.
pub fn scanned_tables(rec: &Value) -> BTreeSet<String> {
    rec["scans"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["table"].as_str())
        .map(short)
        .collect()
}

/// Unordered simple column pairs `a.x = b.y` (left < right) of a record's
/// relationships, composite keys split pairwise.
pub fn column_pairs(rec: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for r in rec["relationships"].as_array().into_iter().flatten() {
        if r["non_simple"].as_bool() == Some(true) {
            continue;
        }
        let lt = short(r["left_table"].as_str().unwrap_or_default());
        let rt = short(r["right_table"].as_str().unwrap_or_default());
        let lc = r["left_columns"].as_array().cloned().unwrap_or_default();
        let rc = r["right_columns"].as_array().cloned().unwrap_or_default();
        for (a, b) in lc.iter().zip(rc.iter()) {
            let a = format!("{lt}.{}", a.as_str().unwrap_or_default());
            let b = format!("{rt}.{}", b.as_str().unwrap_or_default());
            out.insert(if a <= b {
                format!("{a} = {b}")
            } else {
                format!("{b} = {a}")
            });
        }
    }
    out
}

/// The scratch directory names [`scratch_dir`] handed out in this process.
static SCRATCH_NAMES: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// A fresh, empty scratch directory for one test, under the temporary
/// directory and named by the test process and `name`. Every module's
/// tests run in this one process, in parallel: a name asked for twice
/// would have two tests write into one directory, so the second ask
/// panics.
pub fn scratch_dir(name: &str) -> PathBuf {
    let fresh = SCRATCH_NAMES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.to_string());
    assert!(
        fresh,
        "scratch directory {name:?} asked for twice in one run: give each its own name"
    );
    let d = std::env::temp_dir().join(format!("lakeaudit-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("create {}: {e}", d.display()));
    d
}

/// [`scratch_dir`] as text, for command lines and `format!`ed paths.
pub fn tempdir(name: &str) -> String {
    s(&scratch_dir(name))
}

/// A path as text (for a command line).
pub fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A run's standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Copy the directory `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    for e in std::fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap_or_else(|err| {
                panic!("copy {} to {}: {err}", e.path().display(), dst.display())
            });
        }
    }
}

/// The text of `dir/file`.
pub fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"))
}

/// The real Spark 4 log in plain JSON (TPC-H queries on a local warehouse).
pub fn plain_log() -> PathBuf {
    testdata::sample("spark4-plain/local-1796017603630")
}

/// The real log with execution 4's join condition (`None` in the
/// formatted plans of its start and AQE updates) made `n` terms long:
/// the log's path and the line of the last event changed (the plan read).
pub fn log_with_condition(dir: &Path, n: usize) -> (PathBuf, usize) {
    let log = dir.join("local-long");
    let cond = format!(
        "Join condition: {}",
        vec!["(c_custkey#3L = o_custkey#12L)"; n].join(" AND ")
    );
    let text = std::fs::read_to_string(plain_log()).unwrap();
    let mut out = String::new();
    let mut last = 0;
    for (i, l) in text.lines().enumerate() {
        if l.contains("\"executionId\":4,") && l.contains("Join condition: None") {
            out.push_str(&l.replacen("Join condition: None", &cond, 1));
            last = i + 1;
        } else {
            out.push_str(l);
        }
        out.push('\n');
    }
    assert!(last > 0);
    std::fs::write(&log, out).unwrap();
    (log, last)
}

/// `queries` on a [`log_with_condition`] log of `n` terms (its output
/// `o`): exit 0, the join of execution 4 resolved as in the real log and
/// its condition kept whole.
pub fn assert_condition_read_whole(o: &Output, n: usize) {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    let recs = jsonl(std::str::from_utf8(&o.stdout).expect("UTF-8 output"));
    let want = jsonl(&ok(&["queries", &s(&plain_log())]));
    assert_eq!(recs.len(), want.len());
    let four = recs.iter().find(|r| r["execution_id"] == 4).unwrap();
    assert!(four["plan_error"].is_null(), "{}", four["plan_error"]);
    let want_four = want.iter().find(|r| r["execution_id"] == 4).unwrap();
    assert_eq!(four["relationships"], want_four["relationships"]);
    let c = four["joins"][0]["condition"].as_str().unwrap();
    assert_eq!(c.matches(" AND ").count(), n - 1);
}

/// `lakeaudit queries` records of `path`, by execution id.
pub fn records_by_execution(path: &str) -> BTreeMap<u64, Value> {
    jsonl(&ok(&["queries", path]))
        .into_iter()
        .map(|r| (r["execution_id"].as_u64().expect("execution id"), r))
        .collect()
}

/// The strings of a JSON array (none when `v` is not an array).
pub fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The JSON lines of `out` without their field `field`.
pub fn without_field(out: &[u8], field: &str) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).expect("a JSON line");
            if let Some(o) = v.as_object_mut() {
                o.remove(field);
            }
            v
        })
        .collect()
}

/// The JSON lines of `out` without their `log` field (it names where the
/// log was read from).
pub fn without_log(out: &[u8]) -> Vec<Value> {
    without_field(out, "log")
}

/// The environment variable that turns [`peak_rss_of_one_run`] on: the
/// command line (JSON list) of the one run it measures.
const PEAK_RSS_ARGS: &str = "LAKEAUDIT_TEST_PEAK_RSS_ARGS";

/// Run `lakeaudit ARGS` alone in a fresh process of this test binary (the
/// test [`peak_rss_of_one_run`]) and return its exit code, its stderr and
/// its peak resident memory in KiB, as the kernel counts it for the one
/// child that process waited for (`getrusage(RUSAGE_CHILDREN)`). Measured
/// in a process of its own because that count is the largest over every
/// child a process has reaped, and tests run in parallel.
pub fn run_peak_rss(args: &[&str]) -> (Option<i32>, String, u64) {
    let o = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "common::peak_rss_of_one_run",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(PEAK_RSS_ARGS, serde_json::to_string(args).unwrap())
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run this test binary");
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find_map(|l| l.split_once("peak-rss ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no peak-rss line: {out}\n{}", stderr(&o)));
    let mut f = line.split(' ');
    let code = f.next().unwrap().parse().ok();
    let kib = f.next().unwrap().parse().unwrap();
    // The first line follows the harness's `test … ` on the same line.
    let err = out
        .lines()
        .filter_map(|l| l.split_once("stderr: ").map(|(_, e)| e))
        .collect::<Vec<_>>()
        .join("\n");
    (code, err, kib)
}

/// Not a test on its own: [`run_peak_rss`]'s measuring process (does
/// nothing unless it sets the variable).
#[test]
fn peak_rss_of_one_run() {
    let Ok(args) = std::env::var(PEAK_RSS_ARGS) else {
        return;
    };
    let args: Vec<String> = serde_json::from_str(&args).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
        .args(&args)
        .stdout(std::process::Stdio::null())
        .output()
        .expect("run lakeaudit");
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    for l in String::from_utf8_lossy(&o.stderr).lines() {
        println!("stderr: {l}");
    }
    // Linux counts ru_maxrss in KiB.
    let code = o
        .status
        .code()
        .map_or("none".to_string(), |c| c.to_string());
    println!("peak-rss {code} {}", usage.max_rss());
}
