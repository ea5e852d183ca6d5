//! Lineage on the plans production platforms run (issue 11): the real
//! binary on the lineage workload (three real applications, hand-derived
//! answer key `tests/data/lineage/truth.json`). The public logs of other
//! platforms (Databricks Photon, RAPIDS GPU, Spark 2.2, JDBC, RDD scans)
//! are read by `tests/it/public.rs`.

// Shared by every test file; each uses some of the helpers.
use crate::common::{jsonl, ok, records_by_execution, strs};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const APPS: [&str; 3] = ["spark4-default", "spark4-v2-nobroadcast", "spark35-default"];
/// The V2 / no-broadcast settings again with `spark.sql.ui.explainMode=extended`:
/// the same statements through the extended-text plan parser.
const EXTENDED_APP: &str = "spark4-v2-extended";

fn data(rel: &str) -> String {
    testdata::data(rel).to_string_lossy().into_owned()
}

fn truth() -> Value {
    serde_json::from_str(&testdata::read_to_string("lineage/truth.json")).expect("truth json")
}

fn manifest(app: &str) -> Value {
    serde_json::from_str(&testdata::read_to_string(&format!(
        "lineage/executions/{app}.json"
    )))
    .expect("manifest json")
}

/// `orders` of `spark_catalog.default.orders`; a path stays a path (and
/// then matches no truth table: path reads must come out as the catalog
/// table).
fn short(t: &str) -> String {
    if t.contains('/') {
        return format!("path:{t}");
    }
    t.rsplit('.').next().unwrap_or(t).to_string()
}

/// What a statement's records say: simple `table.column` pairs (composite
/// keys split, with their null-safe flag) and non-simple column sets.
fn found(recs: &[&Value]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for r in recs {
        for rel in r["relationships"].as_array().into_iter().flatten() {
            let lt = short(rel["left_table"].as_str().unwrap_or(""));
            let rt = short(rel["right_table"].as_str().unwrap_or(""));
            let (lc, rc) = (strs(&rel["left_columns"]), strs(&rel["right_columns"]));
            if rel["non_simple"].as_bool() == Some(true) {
                let mut cols: Vec<String> = lc
                    .iter()
                    .map(|c| format!("{lt}.{c}"))
                    .chain(rc.iter().map(|c| format!("{rt}.{c}")))
                    .collect();
                cols.sort();
                cols.dedup();
                out.insert(format!("non_simple {}", cols.join(" ")));
            } else {
                let ns = rel["null_safe"].as_bool() == Some(true);
                for (a, b) in lc.iter().zip(&rc) {
                    let mut p = [format!("{lt}.{a}"), format!("{rt}.{b}")];
                    p.sort();
                    out.insert(format!(
                        "{} = {}{}",
                        p[0],
                        p[1],
                        if ns { " null_safe" } else { "" }
                    ));
                }
            }
        }
    }
    out
}

fn expected(q: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in q["edges"].as_array().into_iter().flatten() {
        let mut p = [
            e["left"].as_str().unwrap_or("").to_string(),
            e["right"].as_str().unwrap_or("").to_string(),
        ];
        p.sort();
        let ns = e["null_safe"].as_bool() == Some(true);
        out.insert(format!(
            "{} = {}{}",
            p[0],
            p[1],
            if ns { " null_safe" } else { "" }
        ));
    }
    for n in q["non_simple"].as_array().into_iter().flatten() {
        let mut cols = strs(&n["columns"]);
        cols.sort();
        out.insert(format!("non_simple {}", cols.join(" ")));
    }
    out
}

/// Precision and recall per query run, pooled over the application.
fn precision_recall(app: &str) -> (f64, f64, Vec<String>) {
    let truth = truth();
    let recs = records_by_execution(&data(&format!("lineage/{app}")));
    let (mut tp, mut fp, mut fneg) = (0usize, 0usize, 0usize);
    let mut wrong = Vec::new();
    for run in manifest(app)["runs"].as_array().expect("runs") {
        let name = run["query"].as_str().unwrap_or("");
        let Some(q) = truth["queries"].get(format!("lineage/{name}")) else {
            continue;
        };
        let ids: Vec<u64> = run["execution_ids"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
            .collect();
        let got = found(&ids.iter().filter_map(|i| recs.get(i)).collect::<Vec<_>>());
        let want = expected(q);
        tp += got.intersection(&want).count();
        fp += got.difference(&want).count();
        fneg += want.difference(&got).count();
        if got != want {
            wrong.push(format!("{name} {ids:?}: found {got:?}, truth {want:?}"));
        }
    }
    let p = tp as f64 / (tp + fp).max(1) as f64;
    let r = tp as f64 / (tp + fneg).max(1) as f64;
    (p, r, wrong)
}

#[test]
fn lineage_workload_precision_and_recall_are_one_in_every_application() {
    for app in APPS.into_iter().chain([EXTENDED_APP]) {
        let (p, r, wrong) = precision_recall(app);
        assert!(
            wrong.is_empty(),
            "{app}: P={p:.3} R={r:.3}\n{}",
            wrong.join("\n")
        );
        assert_eq!((p, r), (1.0, 1.0), "{app}");
    }
}

/// `edges` frequencies count statements: insert_select and ctas run their
/// joins once although they log two and three executions.
#[test]
fn edge_frequencies_count_each_statement_once() {
    let truth = truth();
    // The extended-text application runs the statements of
    // spark4-v2-nobroadcast with the same settings: the same frequencies.
    let runs = APPS
        .into_iter()
        .map(|a| (a, a))
        .chain([(EXTENDED_APP, "spark4-v2-nobroadcast")]);
    for (app, key) in runs {
        let rows = jsonl(&ok(&[
            "edges",
            "--format",
            "jsonl",
            &data(&format!("lineage/{app}")),
        ]));
        let got: BTreeMap<String, u64> = rows
            .iter()
            .map(|r| {
                let side = |t: &str, c: &str| {
                    format!(
                        "{}.{}",
                        short(r[t].as_str().unwrap_or("")),
                        strs(&r[c]).join(",")
                    )
                };
                (
                    format!(
                        "{} = {}",
                        side("left_table", "left_columns"),
                        side("right_table", "right_columns")
                    ),
                    r["frequency"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        let want: BTreeMap<String, u64> = truth["edge_frequency"][key]
            .as_object()
            .expect("edge_frequency")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
            .collect();
        assert_eq!(got, want, "{app}");
    }
}

#[test]
fn command_results_carry_no_relationships_and_name_their_command() {
    for app in APPS.into_iter().chain([EXTENDED_APP]) {
        let recs = records_by_execution(&data(&format!("lineage/{app}")));
        // 32 reports on the INSERT (31); 35 on the CTAS (33, whose nested
        // insert is 34).
        for (id, of) in [(32, 31), (35, 33)] {
            let r = &recs[&id];
            assert_eq!(r["root_node"], "CommandResult", "{app} {id}");
            assert_eq!(r["result_of"], of, "{app} {id}");
            assert_eq!(
                r["relationships"].as_array().map(Vec::len),
                Some(0),
                "{app} {id}"
            );
        }
        assert_eq!(recs[&34]["root_execution_id"], 33, "{app}");
        assert!(recs[&31]["result_of"].is_null(), "{app}");
    }
}

/// A path read of a catalog table's location is that table, V1 or V2.
#[test]
fn path_reads_and_catalog_tables_are_one_table() {
    for app in APPS.into_iter().chain([EXTENDED_APP]) {
        let recs = records_by_execution(&data(&format!("lineage/{app}")));
        // path_read_join, path_read_both, path_sql_join.
        for id in [19, 20, 21] {
            for s in recs[&id]["scans"].as_array().expect("scans") {
                let t = s["table"].as_str().unwrap_or("");
                assert!(t.starts_with("spark_catalog.default."), "{app} {id}: {t}");
            }
        }
        for r in recs.values() {
            for s in r["scans"].as_array().into_iter().flatten() {
                let t = s["table"].as_str().unwrap_or("");
                assert!(!t.is_empty(), "{app}: empty scan name");
                for f in ["parquet", "orc", "csv", "json", "delta"] {
                    assert!(!t.starts_with(&format!("{f} ")), "{app}: {t}");
                }
            }
        }
    }
}
