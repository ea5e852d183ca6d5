//! `plan`, `drift` and `analyze` on the real logs: the plan, the budget
//! curve, instance files and drift between the weekly windows.

use crate::common::*;

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
                new4.iter()
                    .any(|e| e.contains("customer(c_nationkey)")
                        && e.contains("supplier(s_nationkey)")),
                "week 4 adds supplier–customer on the nation key: {new4:?}"
            );
        }
    }
}

#[test]
fn analyze_writes_every_output() {
    let dir = tempdir("analyze");
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
