//! Binary-level tests: the real `lakeaudit` executable on the real Spark
//! logs of the repository (`tests/data/spark-logs/` and `samples/`).

mod common;
mod report;

mod queries {
    use super::common::*;
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

    pub fn tempdir(name: &str) -> String {
        let d = std::env::temp_dir().join(format!("lakeaudit-test-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d.to_string_lossy().into_owned()
    }
}

mod samples {
    use super::common::*;
    use std::collections::BTreeMap;

    /// Every bundled sample (each codec, Spark 3.5, rolling, in-progress)
    /// reads; duplicates are read once; in-progress tails only warn.
    #[test]
    fn every_sample_reads_with_warnings_only() {
        let o = run(&["queries", &sample("")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(err.contains("last line is truncated"), "{err}");
        assert!(
            err.contains("same application local-1796017603630"),
            "{err}"
        );
        let recs = jsonl(&String::from_utf8_lossy(&o.stdout));
        let mut per_app: BTreeMap<String, (usize, String)> = BTreeMap::new();
        for r in &recs {
            let e = per_app
                .entry(r["app_id"].as_str().unwrap().to_string())
                .or_default();
            e.0 += 1;
            e.1 = r["spark_version"].as_str().unwrap_or_default().to_string();
        }
        assert_eq!(per_app.len(), 16, "{per_app:?}");
        // The shop log over the sample warehouse: CREATE DATABASE, five
        // CREATE TABLEs, MSCK REPAIR TABLE and 15 report runs.
        assert_eq!(per_app["local-1796104755737"].0, 22);
        // The rolling log with three parts: 4 CREATE TABLEs, two rounds of
        // five queries and the long execution between them.
        assert_eq!(per_app["local-1796087710349"].0, 15);
        // Only executions cut off by the end of an in-progress log are incomplete.
        assert!(recs
            .iter()
            .all(|r| r["incomplete"].is_null() != r["end_ms"].is_null()));
        // The complete small samples: 4 CREATE TABLEs and 5 queries each.
        for app in [
            "local-1796017571239",
            "local-1796017581713",
            "local-1796017592663",
            "local-1796017976232",
            "local-1796017842260",
        ] {
            assert_eq!(per_app[app].0, 9, "{app}");
        }
        assert_eq!(per_app["local-1796017842260"].1, "3.5.9");
        // Spark 3.5: the four-way join resolves like the 4.0 ones.
        let q5_35 = recs
            .iter()
            .find(|r| r["app_id"] == "local-1796017842260" && r["execution_id"] == 8)
            .unwrap();
        let q5_40 = recs
            .iter()
            .find(|r| r["app_id"] == "local-1796017976232" && r["execution_id"] == 8)
            .unwrap();
        assert!(!column_pairs(q5_35).is_empty());
        assert_eq!(column_pairs(q5_35), column_pairs(q5_40));
    }

    /// The reference figures delta-rs and pyiceberg reported for the
    /// sample warehouse (`scripts/make_sample_warehouse.py`); `tests/tables.rs`
    /// compares `lakeaudit tables` with them.
    fn warehouse_reference() -> BTreeMap<String, serde_json::Value> {
        let text = std::fs::read_to_string(sample("shop/reference.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// `make analyze` on the samples: the shop log's tables are the sample
    /// warehouse's, so the plan costs them from their metadata and the
    /// report carries their maintenance.
    #[test]
    fn make_analyze_on_the_samples_audits_their_warehouse() {
        let want = warehouse_reference();
        let dir = super::queries::tempdir("samples-warehouse");
        let wh = sample("warehouse");
        // Every table of the samples is below one target file: plan them
        // all to see the plan's machinery (the default leaves them alone,
        // tests/statements.rs).
        ok(&[
            "analyze",
            &sample(""),
            "--tables",
            &wh,
            "--min-table-size",
            "0",
            "--out",
            &dir,
        ]);
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).unwrap();
        let plan: serde_json::Value = serde_json::from_str(&read("plan.json")).unwrap();
        // Every shop table is sized from its metadata; the TPC-H tables of
        // the other samples have no table directory and keep the logs' figures.
        for p in plan["table_profiles"].as_array().unwrap() {
            let name = p["table"].as_str().unwrap();
            match name.strip_prefix("spark_catalog.") {
                Some(t) if t.starts_with("shop.") => {
                    assert_eq!(p["source"], "table metadata", "{name}");
                    assert_eq!(p["bytes"], want[t]["bytes"], "{name}");
                    assert_eq!(p["rows"], want[t]["rows_live"], "{name}");
                }
                _ => assert_ne!(p["source"], "table metadata", "{name}"),
            }
        }
        let changed: BTreeMap<&str, &serde_json::Value> = plan["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["table"].as_str().unwrap(), t))
            .collect();
        let lineitem = changed["spark_catalog.shop.lineitem"];
        assert_eq!(lineitem["keys"], serde_json::json!(["l_orderkey"]));
        assert_eq!(lineitem["rewrite_bytes"], want["shop.lineitem"]["bytes"]);
        // customers is clustered on c_nationkey; the reports join it on
        // c_custkey too, but moving it would undo a clustering that serves
        // customers-nation for less than the rewrite: it stays (issue 20).
        let report = read("report.md");
        assert!(
            changed
                .get("spark_catalog.shop.customers")
                .is_none_or(|t| t["changed"] == false),
            "{report}"
        );
        assert!(
            report.contains("conflicts with c_nationkey on spark_catalog.shop.customers"),
            "{report}"
        );
        // The maintenance section: orders' recluster also drops the rows
        // its deletion vectors hide.
        let maintenance = report
            .split("## Maintenance")
            .nth(1)
            .expect("a maintenance section")
            .split("\n## ")
            .next()
            .unwrap();
        let deleted = want["shop.orders"]["rows_deleted"].as_u64().unwrap();
        let orders = maintenance
            .lines()
            .find(|l| l.contains("`spark_catalog.shop.orders`"))
            .expect("orders in the maintenance table");
        assert!(
            orders.contains(&format!("drops its {deleted} deleted rows")),
            "{orders}"
        );
        // The table audit's own outputs.
        let deletes = read("deletes_tables.csv");
        let verdict = |t: &str| {
            let line = deletes.lines().find(|l| l.starts_with(t)).unwrap();
            line.split(',').nth(9).unwrap().to_string()
        };
        assert_eq!(verdict("shop.orders,"), "rewrite_now");
        assert_eq!(verdict("shop.web_events,"), "ok");
        let compaction = read("compaction.csv");
        assert!(
            compaction
                .lines()
                .any(|l| l.starts_with("shop.lineitem,")
                    && l.ends_with(",OPTIMIZE `shop`.`lineitem`"))
        );
        for f in ["table_state.csv", "table_stats.csv", "deletes.csv"] {
            assert!(read(f).lines().count() > 1, "{f}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn weekly_logs_give_one_record_per_scheduled_run() {
        let recs = jsonl(&ok(&["queries", &logs("weekly")]));
        let sched: serde_json::Value =
            serde_json::from_str(&logs_text("weekly/schedule.json")).unwrap();
        for app in sched["applications"].as_array().unwrap() {
            let id = app["app_id"].as_str().unwrap();
            let n = recs.iter().filter(|r| r["app_id"] == id).count() as u64;
            let want = app["query_runs_total"].as_u64().unwrap()
                + app["setup_execution_ids"].as_array().unwrap().len() as u64;
            assert_eq!(n, want, "{id}");
        }
    }
}

mod relationships {
    use super::common::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// Truth pairs per query, plus the optimizer-inferred extras allowed by
    /// `plan_notes` (q18: lineitem self semi join, q20: part–lineitem).
    fn truth_pairs() -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
        let t = truth();
        let mut m = BTreeMap::new();
        for (k, q) in t["queries"].as_object().unwrap() {
            let q_name = k.trim_start_matches("tpch/").to_string();
            let pairs: BTreeSet<String> = q["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    format!(
                        "{} = {}",
                        e["left"].as_str().unwrap(),
                        e["right"].as_str().unwrap()
                    )
                })
                .collect();
            let extra: BTreeSet<String> = match q_name.as_str() {
                "q18" => ["lineitem.l_orderkey = lineitem.l_orderkey".to_string()].into(),
                "q20" => ["lineitem.l_partkey = part.p_partkey".to_string()].into(),
                _ => BTreeSet::new(),
            };
            m.insert(q_name, (pairs, extra));
        }
        m
    }

    fn check(log: &str, manifest: &str) {
        let recs = jsonl(&ok(&["queries", &logs(log)]));
        let by_exec = query_of_execution(manifest);
        let truth = truth_pairs();
        let (mut tp, mut fp, mut fneg) = (0, 0, 0);
        let mut bad = Vec::new();
        for r in &recs {
            let id = r["execution_id"].as_u64().unwrap();
            let q = &by_exec[&id];
            let Some((want, extra)) = truth.get(q) else {
                continue;
            };
            let got = column_pairs(r);
            for p in &got {
                if want.contains(p) {
                    tp += 1;
                } else if !extra.contains(p) {
                    fp += 1;
                    bad.push(format!("{q}: extra {p}"));
                }
            }
            for p in want {
                if !got.contains(p) {
                    fneg += 1;
                    bad.push(format!("{q}: missing {p}"));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{log}: tp={tp} fp={fp} fn={fneg}\n{}",
            bad.join("\n")
        );
        assert!(tp > 50);
    }

    #[test]
    fn formatted_plans_match_truth_exactly() {
        check("tpch-default", "executions/tpch-default.json");
    }

    #[test]
    fn extended_plans_match_truth_exactly() {
        check("tpch-extended", "executions/tpch-extended.json");
    }

    /// `edge_frequency` of the answer key, per application, from `edges`:
    /// per unordered column pair, the executions containing it.
    #[test]
    fn edges_reproduce_truth_edge_frequency() {
        let t = truth();
        for app in ["tpch-default", "tpch-extended"] {
            let rows = jsonl(&ok(&["edges", &logs(app), "--format", "jsonl"]));
            let by_exec = query_of_execution(&format!("executions/{app}.json"));
            let mut got: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for r in &rows {
                let lt = short(r["left_table"].as_str().unwrap());
                let rt = short(r["right_table"].as_str().unwrap());
                let lc = r["left_columns"].as_array().unwrap();
                let rc = r["right_columns"].as_array().unwrap();
                for (a, b) in lc.iter().zip(rc) {
                    let a = format!("{lt}.{}", a.as_str().unwrap());
                    let b = format!("{rt}.{}", b.as_str().unwrap());
                    let k = if a <= b {
                        format!("{a} = {b}")
                    } else {
                        format!("{b} = {a}")
                    };
                    for e in r["executions"].as_array().unwrap() {
                        let id: u64 = e
                            .as_str()
                            .unwrap()
                            .rsplit(':')
                            .next()
                            .unwrap()
                            .parse()
                            .unwrap();
                        // The optimizer-inferred joins of q18 and q20 (plan_notes)
                        // are real plan edges that the SQL-derived key omits.
                        let q = by_exec[&id].as_str();
                        let inferred = (q == "q18"
                            && k == "lineitem.l_orderkey = lineitem.l_orderkey")
                            || (q == "q20" && k == "lineitem.l_partkey = part.p_partkey");
                        if !inferred {
                            got.entry(k.clone()).or_default().insert(e.to_string());
                        }
                    }
                }
            }
            let got: BTreeMap<String, u64> =
                got.into_iter().map(|(k, v)| (k, v.len() as u64)).collect();
            let want: BTreeMap<String, u64> = t["edge_frequency"][app]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
                .collect();
            assert_eq!(got, want, "{app}");
        }
    }
}

mod planning {
    use super::common::*;

    #[test]
    fn smj_workload_plan_clusters_lineitem_and_orders_on_the_order_key() {
        // No flags: no budget is invented, every change that pays is planned.
        let text = ok(&[
            "plan",
            &logs("tpch-smj"),
            "--min-table-size",
            "0",
            "--format",
            "json",
        ]);
        let plan: serde_json::Value = serde_json::from_str(&text).unwrap();
        let keys_of = |t: &str| {
            plan["tables"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["table"].as_str().unwrap().ends_with(t))
                .map(|d| d["keys"].clone())
        };
        assert_eq!(
            keys_of(".lineitem"),
            Some(serde_json::json!(["l_orderkey"])),
            "{text}"
        );
        assert_eq!(
            keys_of(".orders"),
            Some(serde_json::json!(["o_orderkey"])),
            "{text}"
        );
        assert_eq!(plan["budget"], serde_json::Value::Null);
        assert_eq!(plan["storage_budget"], serde_json::Value::Null);
        // The budget curve ends at this plan, and smaller budgets buy less.
        let curve = &plan["budget_curve"];
        let points = curve["points"].as_array().unwrap();
        assert!(points.len() >= 2, "{curve}");
        let last = points.last().unwrap();
        assert_eq!(curve["chosen"].as_u64(), Some(points.len() as u64 - 1));
        assert_eq!(last["chosen"], true);
        assert_eq!(last["budget"], plan["rewrite_cost"]);
        assert!((last["npv"].as_f64().unwrap() - plan["total_npv"].as_f64().unwrap()).abs() < 1.0);
        for w in points.windows(2) {
            assert!(w[0]["budget"].as_u64() < w[1]["budget"].as_u64(), "{curve}");
            assert!(w[0]["npv"].as_f64() < w[1]["npv"].as_f64(), "{curve}");
        }
        let sql = ok(&[
            "plan",
            &logs("tpch-smj"),
            "--min-table-size",
            "0",
            "--format",
            "sql",
        ]);
        // The log reads them as plain Parquet tables: no clustering DDL,
        // the CONVERT TO DELTA prerequisite instead (issue 20).
        assert!(
            sql.contains("-- prerequisite: CONVERT TO DELTA `spark_catalog`.`default`.`lineitem`;"),
            "{sql}"
        );
        assert!(!sql.contains("\nALTER TABLE"), "{sql}");
        assert!(!sql.contains("\nOPTIMIZE"), "{sql}");
    }

    /// A stated budget is a constraint: the plan stays within it, and the
    /// curve marks the plan's point with larger budgets' plans after it.
    #[test]
    fn a_budget_limits_the_plan_and_the_curve_marks_it() {
        let text = ok(&[
            "plan",
            &logs("tpch-smj"),
            "--budget",
            "10MB",
            "--min-table-size",
            "0",
            "--format",
            "json",
        ]);
        let plan: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(plan["budget"].as_u64(), Some(10_000_000));
        let rewrite = plan["rewrite_cost"].as_u64().unwrap();
        assert!(rewrite > 0 && rewrite <= 10_000_000, "{text}");
        let curve = &plan["budget_curve"];
        let points = curve["points"].as_array().unwrap();
        let chosen = curve["chosen"].as_u64().unwrap() as usize;
        assert_eq!(points[chosen]["budget"].as_u64(), Some(rewrite));
        assert!(
            chosen + 1 < points.len(),
            "larger budgets buy more: {curve}"
        );
        // No plan within 10 MB is worth more than the chosen one.
        for p in points
            .iter()
            .filter(|p| p["budget"].as_u64() <= Some(10_000_000))
        {
            assert!(
                p["npv"].as_f64() <= points[chosen]["npv"].as_f64(),
                "{curve}"
            );
        }
        let text = ok(&[
            "plan",
            &logs("tpch-smj"),
            "--budget",
            "10MB",
            "--min-table-size",
            "0",
        ]);
        assert!(text.contains("Budget curve"), "{text}");
        assert_eq!(text.matches("<- this plan").count(), 1, "{text}");
    }

    fn instance(rel: &str) -> String {
        testdata::data(&format!("instances/{rel}"))
            .to_string_lossy()
            .into_owned()
    }

    /// A stated instance (planner/INSTANCE.md), hand-computed: A–B on
    /// order_id (40 G saved over 4 windows, 24 G of rewrite and storage)
    /// beats A–C on customer_id (30 G for 24 G); D is already on k, so D–E
    /// costs only E's replacement (8 G for 6 G). Discount 0.
    #[test]
    fn instance_file_plans_with_both_planners() {
        const G: f64 = 1e9;
        for extra in [&[][..], &["--exact"][..]] {
            let mut args = vec!["plan", "--format", "json"];
            let path = instance("conflict.json");
            args.extend(["--instance", &path]);
            args.extend(extra);
            let text = ok(&args);
            let plan: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                plan["chosen_keys"],
                serde_json::json!({"A": ["order_id"], "B": ["order_id"], "C": [], "D": ["k"], "E": ["k"]}),
                "{extra:?}"
            );
            assert_eq!(plan["total_npv"].as_f64(), Some(18.0 * G), "{extra:?}");
            assert_eq!(plan["rewrite_cost"].as_u64(), Some(15_000_000_000));
            let npvs: Vec<f64> = plan["budget_curve"]["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["npv"].as_f64().unwrap() / G)
                .collect();
            assert_eq!(npvs, vec![2.0, 16.0, 18.0], "{extra:?}");
            assert_eq!(plan["budget_curve"]["chosen"].as_u64(), Some(2));
        }
        // A budget on the command line is a constraint: 12 GB buys A–B only.
        let path = instance("conflict.json");
        let text = ok(&[
            "plan",
            "--instance",
            &path,
            "--budget",
            "12GB",
            "--format",
            "json",
        ]);
        let plan: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(plan["total_npv"].as_f64(), Some(16.0 * G));
        assert_eq!(plan["budget_curve"]["chosen"].as_u64(), Some(1));
        assert_eq!(plan["chosen_keys"]["E"], serde_json::json!([]));
        let sql = ok(&["plan", "--instance", &path, "--format", "sql"]);
        assert!(
            sql.contains("CREATE OR REPLACE TABLE `E` USING delta CLUSTER BY (`k`)"),
            "{sql}"
        );
    }

    #[test]
    fn bad_instance_names_the_file_and_the_edge() {
        let path = instance("bad-key.json");
        let o = run(&["plan", "--instance", &path]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("bad-key.json") && err.contains("edges[1].right_key"),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }

    #[test]
    fn weekly_drift_replans_into_weeks_3_and_4_and_names_new_edges() {
        for norm in ["window", "joint", "max"] {
            for cost in ["duration", "cpu"] {
                let rows = jsonl(&ok(&[
                    "drift",
                    &logs("weekly"),
                    "--format",
                    "jsonl",
                    "--cost",
                    cost,
                    "--normalize",
                    norm,
                ]));
                assert_eq!(rows.len(), 3, "four weekly windows, three transitions");
                let d = |i: usize| rows[i]["drift"].as_f64().unwrap();
                assert!(d(1) > 0.10, "week 2→3 ({norm}, {cost}): {}", rows[1]);
                assert!(d(2) > 0.10, "week 3→4 ({norm}, {cost}): {}", rows[2]);
                // The shift into week 3 is the largest of the three.
                assert!(d(1) > d(0) && d(1) > d(2), "({norm}, {cost})");
                assert_eq!(rows[1]["replan"], true);
                let new4: Vec<String> = rows[2]["new_edges"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e.as_str().unwrap().to_string())
                    .collect();
                assert!(
                    new4.iter()
                        .any(|e| e.contains("lineitem(l_partkey)") && e.contains("part(p_partkey)")),
                    "week 4 adds part–lineitem: {new4:?}"
                );
                assert!(
                    new4.iter().any(|e| e.contains("customer(c_nationkey)")
                        && e.contains("supplier(s_nationkey)")),
                    "week 4 adds supplier–customer on the nation key: {new4:?}"
                );
            }
        }
    }

    #[test]
    fn analyze_writes_every_output() {
        let dir = super::queries::tempdir("analyze");
        let o = run(&["analyze", &logs("weekly"), "--out", &dir]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for f in [
            "queries.parquet",
            "edges.parquet",
            "edges.csv",
            "drift.csv",
            "plan.json",
            "plan.sql",
            "report.md",
        ] {
            let p = std::path::Path::new(&dir).join(f);
            assert!(
                p.metadata().map(|m| m.len() > 0).unwrap_or(false),
                "{f} written"
            );
        }
        let report = std::fs::read_to_string(std::path::Path::new(&dir).join("report.md")).unwrap();
        assert!(report.contains("## Top join edges"));
        assert!(report.contains("re-plan"), "{report}");
    }
}

mod bad_input {
    use super::common::*;
    use std::io::Write;

    #[test]
    fn every_bad_input_is_reported_and_the_good_one_still_read() {
        let dir = super::queries::tempdir("bad");
        let w = |name: &str, bytes: &[u8]| {
            let p = format!("{dir}/{name}");
            std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
            p
        };
        let empty = w("app-empty", b"");
        let binary = w("app-binary", &[0u8, 159, 146, 150, 255, 1, 2, 3]);
        let notjson = w(
            "app-notjson",
            b"{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"4.0.1\"}\nthis is not json\n",
        );
        let unknown = w("app-1.brotli", b"xxxx");
        let mut zst = std::fs::read(logs(
            "tpch-default/eventlog_v2_local-1796009792357/events_1_local-1796009792357.zstd",
        ))
        .unwrap();
        let n = zst.len();
        for b in &mut zst[n / 2..n / 2 + 64] {
            *b ^= 0x5a;
        }
        let corrupt = w("app-corrupt.zstd", &zst);
        let missing = format!("{dir}/does-not-exist");
        let good = logs("tpch-extended");
        let o = run(&[
            "queries", &empty, &binary, &notjson, &unknown, &corrupt, &missing, &good,
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        for p in [&empty, &binary, &unknown, &corrupt, &missing] {
            assert!(
                err.contains(&format!("lakeaudit: {p}")),
                "{p} named in:\n{err}"
            );
        }
        assert!(
            err.contains(&format!("lakeaudit: {notjson}:2: ")),
            "line number given:\n{err}"
        );
        let recs = jsonl(&String::from_utf8_lossy(&o.stdout));
        let good_recs = recs
            .iter()
            .filter(|r| r["app_id"] == "local-1796009833175")
            .count();
        assert_eq!(good_recs, 30, "the good log is still fully read");
        // The corrupt log's records before the damage are kept.
        assert!(
            recs.iter().any(|r| r["app_id"] == "local-1796009792357"),
            "records before corruption kept"
        );
        assert!(!err.contains("panicked"));
    }

    #[test]
    fn impossible_times_and_offsets_in_flags() {
        // A usage error (exit 64), refused before any log is read.
        let o = run(&["edges", &logs("weekly"), "--since", "2026-02-31"]);
        assert_eq!(o.status.code(), Some(64));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("'2026-02-31' for '--since <TIME>'"), "{err}");
        // Week 2 ran 2026-10-12 09:00-09:01 UTC. 09:30 at +02:00 is 07:30 UTC,
        // before it; 09:30 UTC is after it.
        let edges = |since: &str| {
            ok(&[
                "edges",
                &logs("weekly"),
                "--since",
                since,
                "--format",
                "jsonl",
            ])
        };
        let offset = edges("2026-10-12T09:30:00+02:00");
        assert_eq!(offset, edges("2026-10-12"));
        assert_ne!(offset, edges("2026-10-12T09:30:00Z"));
    }

    #[test]
    fn a_directory_without_logs_says_so() {
        let dir = super::queries::tempdir("nologs");
        std::fs::write(format!("{dir}/notes.txt"), "hello").unwrap();
        let o = run(&["queries", &dir]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("no"),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }

    #[test]
    fn standard_input_is_read() {
        use std::process::{Command, Stdio};
        let mut child = Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
            .args(["queries", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let data = testdata::read("spark-logs/tpch-extended/local-1796009833175");
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(&data));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(out.status.success());
        assert_eq!(jsonl(&String::from_utf8_lossy(&out.stdout)).len(), 30);
    }
}

/// Issue 7 section 4: inputs that lost data or misled (codec by magic
/// bytes, `--name`, missing rolling parts, re-serialised JSON).
mod inputs {
    use super::common::*;
    use std::io::Write;
    use std::process::{Command, Output, Stdio};

    /// Runs `lakeaudit ARGS` with `data` on standard input.
    fn run_stdin(args: &[&str], data: Vec<u8>) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(&data));
        let out = child.wait_with_output().unwrap();
        // a reader that stops early (an error) may close the pipe first
        let _ = writer.join().unwrap();
        out
    }

    /// The one file under `samples/DIR` whose name ends with `suffix`.
    fn file_in(dir: &str, suffix: &str) -> String {
        let mut stack = vec![std::path::PathBuf::from(sample(dir))];
        let mut found = Vec::new();
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.to_string_lossy().ends_with(suffix) {
                    found.push(p);
                }
            }
        }
        assert_eq!(found.len(), 1, "{dir} *{suffix}: {found:?}");
        found[0].to_string_lossy().into_owned()
    }

    /// Records without the `log` field (it names the input).
    fn without_log(stdout: &[u8]) -> Vec<serde_json::Value> {
        let mut recs = jsonl(&String::from_utf8_lossy(stdout));
        for r in &mut recs {
            r.as_object_mut().unwrap().remove("log");
        }
        recs
    }

    /// Every codec Spark writes (and gzip) is read from standard input, and
    /// `--name` names the input in the records and in errors.
    #[test]
    fn standard_input_in_any_codec_with_a_name() {
        let want = without_log(&ok(&["queries", &sample("spark4-zstd")]).into_bytes());
        assert_eq!(want.len(), 9);
        for (dir, suffix) in [
            ("spark4-zstd", ".zstd"),
            ("spark4-lz4", ".lz4"),
            ("spark4-snappy", ".snappy"),
            ("spark4-lzf", ".lzf"),
            ("spark4-plain", ".gz"),
            ("spark4-plain", "03630"),
        ] {
            let data = std::fs::read(file_in(dir, suffix)).unwrap();
            let o = run_stdin(&["queries", "--name", "app-from-spark", "-"], data);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(0), "{dir}{suffix}: {err}");
            let recs = jsonl(&String::from_utf8_lossy(&o.stdout));
            assert_eq!(recs.len(), 9, "{dir}{suffix}");
            assert!(recs.iter().all(|r| r["log"] == "app-from-spark"));
            if dir == "spark4-zstd" {
                assert_eq!(without_log(&o.stdout), want);
            }
        }
        // a damaged stream is an error naming the input by --name
        let mut data = std::fs::read(file_in("spark4-zstd", ".zstd")).unwrap();
        data.truncate(data.len() / 2);
        let o = run_stdin(&["queries", "--name", "app-from-spark", "-"], data);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("lakeaudit: app-from-spark:") && err.contains("corrupt zstd stream"),
            "{err}"
        );
        // --name without `-` among the paths is a usage error (exit 2)
        let o = run(&["queries", "--name", "x", &sample("spark4-zstd")]);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("--name x"));
    }

    /// A log whose extension lies is read by its magic bytes, with a warning.
    #[test]
    fn lying_extensions_are_read_with_a_warning() {
        let dir = super::queries::tempdir("lying");
        let zstd = format!("{dir}/local-1796017976232.lz4");
        std::fs::copy(file_in("spark4-zstd", ".zstd"), &zstd).unwrap();
        let plain = format!("{dir}/local-1796017603630.zstd");
        std::fs::copy(file_in("spark4-plain", "03630"), &plain).unwrap();
        let o = run(&["queries", &zstd, &plain]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!(
                "lakeaudit: warning: {zstd}: the file name says lz4 but the data is zstd data"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "lakeaudit: warning: {plain}: the file name says zstd but the data is \
                 uncompressed JSON text"
            )),
            "{err}"
        );
        assert_eq!(jsonl(&String::from_utf8_lossy(&o.stdout)).len(), 18);
    }

    /// A rolling directory with a missing middle part: every other part is
    /// read, the gap is reported naming the index, the execution that ran
    /// across it is marked incomplete, and the exit code is 2.
    #[test]
    fn a_missing_rolling_part_is_reported_and_the_rest_read() {
        let dir = super::queries::tempdir("gap");
        let src = sample("spark4-rolling-multi");
        let app = std::fs::read_dir(&src)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir())
            .unwrap();
        let copy = format!("{dir}/{}", app.file_name().unwrap().to_string_lossy());
        std::fs::create_dir_all(&copy).unwrap();
        for e in std::fs::read_dir(&app).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with("events_2_") {
                std::fs::copy(&p, format!("{copy}/{name}")).unwrap();
            }
        }
        let whole = jsonl(&ok(&["queries", &src]));
        let o = run(&["queries", &copy]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!(
                "lakeaudit: {copy}: rolling event-log part 2 is missing"
            )),
            "{err}"
        );
        let recs = jsonl(&String::from_utf8_lossy(&o.stdout));
        assert_eq!(recs.len(), whole.len());
        let incomplete: Vec<u64> = recs
            .iter()
            .filter(|r| !r["incomplete"].is_null())
            .map(|r| r["execution_id"].as_u64().unwrap())
            .collect();
        assert_eq!(incomplete, [9]);
        // the executions after the gap are read as in the whole log
        let joins = |rs: &[serde_json::Value]| -> Vec<String> {
            rs.iter()
                .filter(|r| r["execution_id"].as_u64().unwrap() > 9)
                .map(|r| format!("{} {}", r["execution_id"], r["relationships"]))
                .collect()
        };
        assert_eq!(joins(&recs), joins(&whole));
        assert!(!joins(&recs).is_empty());
    }

    /// A real log re-serialised with a space after every colon and comma
    /// (Python's json.dumps) gives the same records as the original.
    #[test]
    fn reserialised_json_gives_the_same_records() {
        let text = std::fs::read(file_in("spark4-plain", "03630")).unwrap();
        let mut spaced = Vec::with_capacity(text.len() * 9 / 8);
        let (mut in_str, mut escaped) = (false, false);
        for &b in &text {
            spaced.push(b);
            if in_str {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
            } else if b == b'"' {
                in_str = true;
            } else if b == b':' || b == b',' {
                spaced.push(b' ');
            }
        }
        assert!(spaced.starts_with(br#"{"Event": "SparkListenerLogStart", "#));
        let o = run_stdin(&["queries", "-"], spaced);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let plain = ok(&["queries", &file_in("spark4-plain", "03630")]);
        assert_eq!(without_log(&o.stdout), without_log(plain.as_bytes()));
    }
}

/// `--records`: the reduce on records (a Spark map's output, or any
/// `queries --format parquet` file) gives the single-machine answers.
mod records {
    use super::common::*;
    use std::path::Path;

    fn bytes(dir: &str, f: &str) -> Vec<u8> {
        std::fs::read(Path::new(dir).join(f)).unwrap_or_else(|e| panic!("{dir}/{f}: {e}"))
    }

    #[test]
    fn the_reduce_on_records_gives_the_outputs_of_the_logs_byte_for_byte() {
        let samples = sample("");
        let dir = super::queries::tempdir("records");
        let (logs_out, records_out) = (format!("{dir}/logs"), format!("{dir}/records"));
        let parquet = format!("{dir}/queries.parquet");
        ok(&["analyze", &samples, "--out", &logs_out]);
        ok(&["queries", &samples, "--format", "parquet", "-o", &parquet]);
        ok(&["analyze", "--records", &parquet, "--out", &records_out]);
        for f in [
            "edges.csv",
            "edges.parquet",
            "drift.csv",
            "plan.json",
            "plan.sql",
        ] {
            assert!(
                bytes(&logs_out, f) == bytes(&records_out, f),
                "{f} differs between the logs and their records"
            );
        }
        // Every record survives the round trip through Parquet unchanged.
        assert_eq!(
            ok(&["queries", "--records", &parquet]),
            ok(&["queries", &samples])
        );
        for cmd in [
            &["edges", "--format", "csv"][..],
            &["plan", "--format", "json"],
            &["drift", "--format", "csv"],
        ] {
            let from_logs = ok(&[cmd, &[samples.as_str()]].concat());
            let from_records = ok(&[cmd, &["--records", parquet.as_str()]].concat());
            assert_eq!(from_logs, from_records, "lakeaudit {cmd:?}");
        }
    }

    #[test]
    fn records_that_are_missing_or_not_records_are_clear_errors() {
        let dir = super::queries::tempdir("records-bad");
        let o = run(&["edges", "--records", &format!("{dir}/nothing-here")]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("nothing-here: no such file"), "{err}");
        // A Parquet file of another shape names itself and the column.
        let edges = format!("{dir}/edges.parquet");
        ok(&[
            "edges",
            &sample("spark4-zstd"),
            "--format",
            "parquet",
            "-o",
            &edges,
        ]);
        let o = run(&["edges", "--records", &edges]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("edges.parquet") && err.contains("app_id"),
            "{err}"
        );
        // Logs and records are not mixed.
        let o = run(&["edges", &sample("spark4-zstd"), "--records", &edges]);
        assert_eq!(
            o.status.code(),
            Some(64),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
