//! The binary on public real event logs of platforms this project cannot
//! run (Databricks 13.3 Photon, NVIDIA RAPIDS on GPUs, Spark 2.2, EMR, JDBC
//! and RDD scans): NVIDIA/spark-rapids-tools' test resources, read whole and
//! unchanged from the folder `LAKEAUDIT_PUBLIC_LOGS` names (the folder that
//! holds `spark-events-profiling/` and `spark-events-qualification/`). They
//! are not in this repository: `make test-public` runs these tests with the
//! variable set; without it each test prints a skip line and passes, so a
//! fresh clone passes `make test` with nothing beside it.
//! `tests/PUBLIC_LOGS.md` says what each log holds and the joins read from
//! its plans by hand.

// Shared by every test file; each uses some of the helpers.
use crate::common::{ok, records_by_execution, strs};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;

const ENV: &str = "LAKEAUDIT_PUBLIC_LOGS";
const Q88: &str = "spark-events-qualification/nds_q88_photon_db_13_3.zstd";
const Q66: &str = "spark-events-profiling/nds_q66_gpu.zstd";
const RAPIDS_JOIN: &str = "spark-events-profiling/rapids_join_eventlog.zstd";
const SPARK2: &str = "spark-events-profiling/spark2-eventlog.zstd";
const JDBC: &str = "spark-events-qualification/jdbc_eventlog.zstd";
const RDD_SCANS: &str = "spark-events-qualification/dsAndDf_eventlog.zstd";
const EMR: &str = "spark-events-qualification/multiple_attempts/attempt_1_eventlog.zstd";

/// The logs `rels` under `LAKEAUDIT_PUBLIC_LOGS`, or `None` (with one skip
/// line on the test's real stderr, which libtest does not capture) when the
/// variable is unset. Set but wrong, the test fails: a run that asked for
/// the public logs must read them.
fn public_logs<const N: usize>(test: &str, rels: [&str; N]) -> Option<[String; N]> {
    let Some(dir) = std::env::var_os(ENV).filter(|d| !d.is_empty()) else {
        let _ = writeln!(
            std::io::stderr(),
            "skip {test}: {ENV} is unset (make test-public runs it on the public logs)"
        );
        return None;
    };
    Some(rels.map(|rel| {
        let p = PathBuf::from(&dir).join(rel);
        assert!(p.is_file(), "{ENV}: {} is not a file", p.display());
        p.to_string_lossy().into_owned()
    }))
}

/// `(table, rows)` of an execution's scans, in plan order.
fn scan_rows(r: &Value) -> Vec<(String, Option<u64>)> {
    r["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .map(|s| {
            let t = s["table"].as_str().unwrap_or("");
            (
                t.rsplit('/').next().unwrap_or(t).to_string(),
                s["rows"].as_u64(),
            )
        })
        .collect()
}

/// Every relationship of a log as `left = right engine`, with counts.
fn rel_lines(recs: &BTreeMap<u64, Value>) -> Vec<String> {
    let mut v = Vec::new();
    for r in recs.values() {
        for rel in r["relationships"].as_array().into_iter().flatten() {
            let side = |t: &str, c: &str| {
                let table = rel[t].as_str().unwrap_or("");
                let table = table.rsplit('/').next().unwrap_or(table);
                format!("{table}.{}", strs(&rel[c]).join(","))
            };
            v.push(format!(
                "{} = {} {} {}{}",
                side("left_table", "left_columns"),
                side("right_table", "right_columns"),
                rel["strategy"].as_str().unwrap_or(""),
                rel["engine"].as_str().unwrap_or(""),
                if rel["non_simple"].as_bool() == Some(true) {
                    " non_simple"
                } else {
                    ""
                }
            ));
        }
    }
    v.sort();
    v
}

#[test]
fn photon_q88_joins_are_the_three_store_sales_keys_in_all_eight_branches() {
    let Some([log]) = public_logs("photon_q88", [Q88]) else {
        return;
    };
    let recs = records_by_execution(&log);
    assert_eq!(
        rel_lines(&recs),
        [
            "household_demographics.hd_demo_sk = store_sales.ss_hdemo_sk BroadcastHashJoin photon",
            "store.s_store_sk = store_sales.ss_store_sk BroadcastHashJoin photon",
            "store_sales.ss_sold_time_sk = time_dim.t_time_sk BroadcastHashJoin photon",
        ]
    );
    // No SparkListenerLogStart: the runtime comes from the environment.
    assert_eq!(
        recs[&26]["spark_version"],
        "databricks-13.3.x-aarch64-photon-scala2.12"
    );
    // The final plan (execution 26) holds each key pair once per branch.
    let joins = recs[&26]["joins"].as_array().expect("joins");
    let mut per_key: BTreeMap<String, usize> = BTreeMap::new();
    for j in joins
        .iter()
        .filter(|j| j["strategy"] == "BroadcastHashJoin")
    {
        assert_eq!(j["engine"], "photon");
        let key = format!("{:?} = {:?}", strs(&j["left_keys"]), strs(&j["right_keys"]))
            .chars()
            .filter(|c| !c.is_ascii_digit() && *c != '#')
            .collect::<String>();
        *per_key.entry(key).or_default() += 1;
    }
    assert_eq!(per_key.len(), 3, "{per_key:?}");
    assert!(per_key.values().all(|n| *n == 8), "{per_key:?}");
    // Each scan is named by its location.
    for s in recs[&26]["scans"].as_array().expect("scans") {
        assert!(
            s["table"].as_str().is_some_and(|t| t.starts_with("s3://")),
            "{s}"
        );
    }
    assert_no_empty_scan_name(Q88, &recs);
    // Task metrics (in the whole log's TaskEnd events): the scans' output
    // rows and the executors' time, as summed from the log's accumulator
    // updates and task metrics independently of lakeaudit. Eight branches
    // scan store_sales and time_dim; household_demographics and store are
    // scanned once and reused.
    let rows = scan_rows(&recs[&26]);
    let count = |t: &str, n: u64| {
        rows.iter()
            .filter(|r| r == &&(t.to_string(), Some(n)))
            .count()
    };
    assert_eq!(rows.len(), 18, "{rows:?}");
    assert_eq!(count("store_sales", 7_959_578_157), 8, "{rows:?}");
    assert_eq!(count("time_dim", 1_800), 8, "{rows:?}");
    assert_eq!(count("household_demographics", 1_920), 1, "{rows:?}");
    assert_eq!(count("store", 165), 1, "{rows:?}");
    assert_eq!(recs[&26]["executor_run_ms"], 3_818_106);
    assert_eq!(recs[&26]["executor_cpu_ms"], 2_885_568);
}

/// The sums of the SQL metrics named `names` of every `scan`-named node of
/// each execution's last plan, read from the raw log apart from lakeaudit:
/// ids from `sparkPlanInfo`, values summed over `SparkListenerTaskEnd`
/// accumulables and `SparkListenerDriverAccumUpdates`. Per execution, one
/// entry per scan node (nodes with the same metric ids, a reused subtree,
/// once): the sums in the order of `names` (`None`: no value).
fn metric_sums(path: &str, scan: &str, names: &[&str]) -> BTreeMap<u64, Vec<Vec<Option<i64>>>> {
    fn walk(n: &Value, scan: &str, out: &mut Vec<BTreeMap<String, u64>>) {
        if n["nodeName"].as_str().is_some_and(|x| x.starts_with(scan)) {
            out.push(
                n["metrics"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|m| {
                        Some((
                            m["name"].as_str()?.to_string(),
                            m["accumulatorId"].as_u64()?,
                        ))
                    })
                    .collect(),
            );
        }
        for c in n["children"].as_array().into_iter().flatten() {
            walk(c, scan, out);
        }
    }
    let bytes = std::fs::read(path).expect("public log");
    let text = String::from_utf8(zstd::decode_all(&bytes[..]).expect("zstd")).expect("utf-8");
    let mut plans: BTreeMap<u64, Vec<BTreeMap<String, u64>>> = BTreeMap::new();
    let mut sums: BTreeMap<u64, i64> = BTreeMap::new();
    let num = |v: &Value| {
        v.as_i64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
    };
    for l in text.lines() {
        let Ok(e) = serde_json::from_str::<Value>(l) else {
            continue;
        };
        let ev = e["Event"].as_str().unwrap_or_default();
        if ev.ends_with("SparkListenerSQLExecutionStart")
            || ev.ends_with("SparkListenerSQLAdaptiveExecutionUpdate")
        {
            let mut v = Vec::new();
            walk(&e["sparkPlanInfo"], scan, &mut v);
            // A reused subtree repeats its nodes with the same metric ids:
            // one scan.
            let mut seen = BTreeSet::new();
            v.retain(|ids| seen.insert(ids.values().copied().collect::<Vec<_>>()));
            plans.insert(e["executionId"].as_u64().expect("id"), v);
        } else if ev == "SparkListenerTaskEnd" {
            for a in e["Task Info"]["Accumulables"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if let (Some(id), Some(v)) = (a["ID"].as_u64(), num(&a["Update"])) {
                    *sums.entry(id).or_default() += v;
                }
            }
        } else if ev.ends_with("SparkListenerDriverAccumUpdates") {
            for u in e["accumUpdates"].as_array().into_iter().flatten() {
                if let (Some(id), Some(v)) = (u[0].as_u64(), num(&u[1])) {
                    *sums.entry(id).or_default() += v;
                }
            }
        }
    }
    plans
        .into_iter()
        .map(|(id, scans)| {
            let per_scan = scans
                .iter()
                .map(|ids| {
                    names
                        .iter()
                        .map(|n| ids.get(*n).and_then(|i| sums.get(i)).copied())
                        .collect()
                })
                .collect();
            (id, per_scan)
        })
        .collect()
}

#[test]
fn photon_scans_count_the_files_they_read() {
    let Some([log]) = public_logs("photon_scans_count_the_files_they_read", [Q88]) else {
        return;
    };
    // Photon's scans name their count `files read` (Spark's scans:
    // `number of files read`).
    let truth = metric_sums(&log, "PhotonScan", &["files read", "size of files read"]);
    let recs = records_by_execution(&log);
    let mut compared = 0;
    for (id, r) in &recs {
        let mut got: Vec<Vec<Option<i64>>> = r["scans"]
            .as_array()
            .expect("scans")
            .iter()
            .filter(|s| s["counts_from"] == "photon")
            .map(|s| vec![s["files_read"].as_i64(), s["bytes_read"].as_i64()])
            .collect();
        let mut want = truth.get(id).cloned().unwrap_or_default();
        got.sort();
        want.sort();
        assert_eq!(got, want, "execution {id}");
        compared += got.len();
    }
    // The 18 scans of the query (execution 26); store_sales read in
    // 1,824 files by each of its eight scans.
    assert_eq!(compared, 18);
    let store_sales: Vec<&Value> = recs[&26]["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .filter(|s| {
            s["table"]
                .as_str()
                .is_some_and(|t| t.ends_with("/store_sales"))
        })
        .collect();
    assert_eq!(store_sales.len(), 8);
    assert!(
        store_sales.iter().all(|s| s["files_read"] == 1824),
        "{store_sales:?}"
    );
}

fn assert_no_empty_scan_name(name: &str, recs: &BTreeMap<u64, Value>) {
    for r in recs.values() {
        for s in r["scans"].as_array().into_iter().flatten() {
            assert!(
                s["table"].as_str().is_some_and(|t| !t.is_empty()),
                "{name}: {s}"
            );
        }
    }
}

#[test]
fn gpu_joins_are_found_with_their_keys_in_arguments() {
    let Some([q66, join]) = public_logs("gpu_joins", [Q66, RAPIDS_JOIN]) else {
        return;
    };
    let recs = records_by_execution(&q66);
    let lines = rel_lines(&recs);
    assert_eq!(lines.len(), 8, "{lines:#?}");
    assert!(
        lines.iter().all(|l| l.ends_with("BroadcastHashJoin gpu")),
        "{lines:#?}"
    );
    assert!(lines.contains(
        &"warehouse.w_warehouse_sk = web_sales.ws_warehouse_sk BroadcastHashJoin gpu".to_string()
    ));
    assert!(lines.contains(
        &"catalog_sales.cs_sold_time_sk = time_dim.t_time_sk BroadcastHashJoin gpu".to_string()
    ));
    // A GPU shuffled hash join of two RDDs: a hash join run by the GPU, no
    // table relationship, and both scans named as RDD scans.
    let recs = records_by_execution(&join);
    let r = &recs[&0];
    assert_eq!(r["joins"][0]["strategy"], "ShuffledHashJoin");
    let rels = r["relationships"].as_array().expect("relationships");
    assert!(rels
        .iter()
        .all(|x| x["engine"] == "gpu" && x["non_simple"] == true));
    let scans: Vec<&str> = r["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .filter_map(|s| s["table"].as_str())
        .collect();
    assert_eq!(scans, ["rdd:obj#1", "rdd:obj#7"]);
    // Ten million rows on each side (TaskEnd accumulables of the whole log).
    assert_eq!(
        scan_rows(r).iter().map(|s| s.1).collect::<Vec<_>>(),
        [Some(10_000_000), Some(10_000_000)]
    );
}

#[test]
fn spark2_extended_plans_find_the_csv_join() {
    let Some([log]) = public_logs("spark2_extended", [SPARK2]) else {
        return;
    };
    let recs = records_by_execution(&log);
    for id in [2, 3] {
        assert_eq!(
            rel_lines(&BTreeMap::from([(id, recs[&id].clone())])),
            ["simple1.csv.salary = simple2.csv.salary BroadcastHashJoin spark"]
        );
    }
}

#[test]
fn non_table_scans_are_named_by_what_they_read() {
    let Some([jdbc_log, rdd_log, emr_log, q66, join, spark2]) = public_logs(
        "non_table_scans",
        [JDBC, RDD_SCANS, EMR, Q66, RAPIDS_JOIN, SPARK2],
    ) else {
        return;
    };
    let jdbc = records_by_execution(&jdbc_log);
    assert_eq!(jdbc[&0]["scans"][0]["table"], "jdbc:TBLS");
    // `show` reads 21 rows (20 shown and one to know there are more), the
    // count reads all 38 of TBLS (TaskEnd accumulables of the whole log).
    assert_eq!(jdbc[&0]["scans"][0]["rows"], 21);
    assert_eq!(jdbc[&2]["scans"][0]["rows"], 38);
    let rdd = records_by_execution(&rdd_log);
    let names: BTreeSet<String> = rdd[&3]["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .filter_map(|s| s["table"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "rdd:ParallelCollectionRDD[41]".to_string(),
            "rdd:ParallelCollectionRDD[42]".to_string()
        ])
    );
    // RDD joins are no table edges.
    let edges = ok(&["edges", "--format", "jsonl", &rdd_log]);
    assert!(edges.trim().is_empty(), "{edges}");
    // The EMR CTAS reads 50,000,000 rows of large_dataset.
    let emr = records_by_execution(&emr_log);
    assert_eq!(
        scan_rows(&emr[&0]),
        [("large_dataset".to_string(), Some(50_000_000))]
    );
    // The Photon log is checked by its own test (it is the slow one).
    for (name, recs) in [
        (EMR, emr),
        (RAPIDS_JOIN, records_by_execution(&join)),
        (Q66, records_by_execution(&q66)),
        (SPARK2, records_by_execution(&spark2)),
        (JDBC, jdbc),
        (RDD_SCANS, rdd),
    ] {
        assert_no_empty_scan_name(name, &recs);
    }
}
