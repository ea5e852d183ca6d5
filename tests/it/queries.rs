//! `lakeaudit queries` on the real TPC-H logs: the tables and joins of
//! every execution against the hand-derived truth, deterministic output in
//! every format.

use crate::common::*;
use std::collections::BTreeSet;

fn tables_of_truth(q: &str) -> BTreeSet<String> {
    let t = truth();
    t["queries"][format!("tpch/{q}")]["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|x| x.as_str().unwrap_or_default().to_string())
        .collect()
}

/// One record per SQLExecutionStart, each with the tables of its query.
fn check_app(log: &str, manifest: &str, source: &str) {
    let recs = jsonl(&ok(&["queries", &logs(log)]));
    assert_eq!(recs.len(), 30, "30 SQL executions per TPC-H app");
    let ids: Vec<u64> = recs
        .iter()
        .map(|r| r["execution_id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (0..30).collect::<Vec<_>>(), "sorted by execution id");
    let by_exec = query_of_execution(manifest);
    for r in &recs {
        let id = r["execution_id"].as_u64().unwrap();
        let q = &by_exec[&id];
        assert_eq!(r["spark_version"], "4.0.1");
        assert!(r["end_ms"].as_i64().unwrap() >= r["start_ms"].as_i64().unwrap());
        if q.starts_with("setup") {
            assert_eq!(r["is_command"], true, "exec {id} is a CREATE TABLE");
            assert!(r["joins"].as_array().unwrap().is_empty());
            continue;
        }
        assert_eq!(r["is_command"], false, "exec {id}");
        assert_eq!(r["plan_source"], source, "exec {id}");
        assert_eq!(r["adaptive_final"], true, "exec {id} ran under AQE");
        assert_eq!(
            scanned_tables(r),
            tables_of_truth(q),
            "tables of {q} (exec {id})"
        );
        for s in r["scans"].as_array().unwrap() {
            assert!(
                s["rows"].as_i64().is_some(),
                "{q}: scan metrics present: {s}"
            );
            assert!(
                s["bytes_read"].as_i64().unwrap() > 0,
                "{q}: bytes read: {s}"
            );
        }
        assert!(
            r["executor_run_ms"].as_i64().unwrap() > 0,
            "{q}: task time summed"
        );
    }
}

#[test]
fn formatted_rolling_zstd_log_matches_truth_tables() {
    check_app("tpch-default", "executions/tpch-default.json", "formatted");
}

#[test]
fn extended_uncompressed_log_matches_truth_tables() {
    check_app("tpch-extended", "executions/tpch-extended.json", "extended");
}

#[test]
fn formatted_and_extended_agree_on_scanned_tables() {
    let a = jsonl(&ok(&["queries", &logs("tpch-default")]));
    let b = jsonl(&ok(&["queries", &logs("tpch-extended")]));
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            scanned_tables(x),
            scanned_tables(y),
            "exec {}",
            x["execution_id"]
        );
    }
}

/// The snappy SMJ log: final-plan join operators match the manifest.
#[test]
fn smj_log_final_plan_joins_match_manifest() {
    let recs = jsonl(&ok(&["queries", &logs("tpch-smj")]));
    assert_eq!(recs.len(), 30);
    let m: serde_json::Value =
        serde_json::from_str(&logs_text("tpch-smj/executions.json")).unwrap();
    let (mut smj, mut bhj) = (0, 0);
    for q in m["queries"].as_array().unwrap() {
        let id = q["execution_ids"][0].as_u64().unwrap();
        let rec = &recs[id as usize];
        let mut want: Vec<String> = q["final_plan_join_nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().split(' ').next().unwrap().to_string())
            .collect();
        let mut got: Vec<String> = rec["joins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["strategy"].as_str().unwrap().to_string())
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{} (exec {id})", q["query"]);
        smj += got.iter().filter(|s| *s == "SortMergeJoin").count();
        bhj += got.iter().filter(|s| *s == "BroadcastHashJoin").count();
    }
    assert_eq!(
        (smj, bhj),
        (11, 53),
        "README: 11 SMJ and 53 BHJ in final plans"
    );
}

#[test]
fn output_is_deterministic_across_runs_and_threads() {
    let a = ok(&["queries", &logs("weekly")]);
    let b = ok(&["--threads", "1", "queries", &logs("weekly")]);
    assert_eq!(a, b);
}

#[test]
fn csv_and_parquet_outputs_are_written() {
    let dir = tempdir("formats");
    let csv = format!("{dir}/q.csv");
    let pq = format!("{dir}/q.parquet");
    ok(&[
        "queries",
        &logs("tpch-default"),
        "--format",
        "csv",
        "-o",
        &csv,
    ]);
    ok(&[
        "queries",
        &logs("tpch-default"),
        "--format",
        "parquet",
        "-o",
        &pq,
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 31, "header + 30 rows");
    assert!(text
        .lines()
        .next()
        .unwrap()
        .starts_with("app_id,execution_id"));
    let bytes = std::fs::read(&pq).unwrap();
    assert_eq!(&bytes[..4], b"PAR1");
    let table = ok(&["queries", &logs("tpch-default"), "--format", "table"]);
    assert!(table.lines().next().unwrap().contains("execution_id"));
}
