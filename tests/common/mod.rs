//! Helpers for running the real binary on the real logs.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Output};

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

/// A scratch directory for one test, under the temporary directory and
/// named by the test process.
pub fn tempdir(name: &str) -> String {
    let d = std::env::temp_dir().join(format!("lakeaudit-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.to_string_lossy().into_owned()
}
