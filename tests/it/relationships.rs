//! Join relationships and the edge table against the hand-derived truth
//! (`tests/data/spark-logs/tpch-truth.json`).

use crate::common::*;
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
                    let inferred = (q == "q18" && k == "lineitem.l_orderkey = lineitem.l_orderkey")
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
