//! The bundled samples: every codec and layout reads, `make analyze`
//! audits their warehouse, the weekly logs give one record per run.

use crate::common::*;
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
/// sample warehouse (`scripts/make_sample_warehouse.py`); `tests/it/tables.rs`
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
    let dir = tempdir("samples-warehouse");
    let wh = sample("warehouse");
    // Every table of the samples is below one target file: plan them
    // all to see the plan's machinery (the default leaves them alone,
    // tests/it/statements.rs).
    ok(&[
        "analyze",
        &sample(""),
        "--tables",
        &wh,
        "--min-table-size",
        "0",
        // The planner's machinery on joins (conflicts, kept clusterings):
        // price the shop tables as the paper does. Measured pricing is
        // tested on real engines' counts in tests/it/whatif.rs.
        "--pricing",
        "assumed",
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
    assert!(compaction
        .lines()
        .any(|l| l.starts_with("shop.lineitem,") && l.ends_with(",OPTIMIZE `shop`.`lineitem`")));
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
