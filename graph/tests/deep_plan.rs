//! A plan 5,000 operators deep goes through everything a real execution
//! goes through (the sparkPlanInfo parse, the record builder, lineage,
//! relationships, dropping the trees) on a thread with a 2 MiB stack, and
//! gives the records and relationships the shallow plan gives.
//!
//! The plan is TPC-H q12's final `sparkPlanInfo` from the tpch-default log
//! (execution 19, `fixtures/tpch_q12_final.spark_plan_info.json`) with its
//! real `Project [l_orderkey#9L, l_shipmode#23]` node on the probe side of
//! the broadcast hash join repeated 5,000 times: a chain of projects of the
//! same columns, as a generated query with a long chain of views has.

use graph::lineage::Lineage;
use graph::relationships::{relationships, render};
use parsers::record::{join_records, parse_plans, root_operator, scan_records};
use serde_json::Value;
use std::collections::HashMap;

const Q12: &str = include_str!("fixtures/tpch_q12_final.spark_plan_info.json");
const PROJECT: &str = "Project [l_orderkey#9L, l_shipmode#23]";

/// The q12 plan with its probe-side project repeated `n` times.
fn deep_q12(n: usize) -> String {
    let mut plan: Value = serde_json::from_str(Q12).expect("fixture json");
    // Find the project, keep it, and put a marker in its place.
    let mut project = None;
    let mut stack = vec![&mut plan];
    while let Some(v) = stack.pop() {
        if v["simpleString"] == PROJECT {
            project = Some(std::mem::replace(v, Value::String("@@DEEP@@".into())));
            break;
        }
        if let Some(children) = v["children"].as_array_mut() {
            stack.extend(children.iter_mut());
        }
    }
    let project = project.expect("the probe-side project");
    // The project's JSON text around its children, to repeat as text (a
    // 5,000-deep serde_json::Value would recurse to print and to drop).
    let mut shell = project.clone();
    shell["children"] = Value::Array(vec![Value::String("@@CHILD@@".into())]);
    let shell = serde_json::to_string(&shell).expect("json");
    let (open, close) = shell.split_once("\"@@CHILD@@\"").expect("marker");
    let mut chain = String::with_capacity(n * shell.len());
    for _ in 0..n {
        chain.push_str(open);
    }
    chain.push_str(&serde_json::to_string(&project).expect("json"));
    for _ in 0..n {
        chain.push_str(close);
    }
    serde_json::to_string(&plan)
        .expect("json")
        .replace("\"@@DEEP@@\"", &chain)
}

/// What the record builder and the graph make of one sparkPlanInfo.
fn facts(json: &str) -> (usize, Vec<String>) {
    let (set, err) = parse_plans(None, Some(json));
    assert_eq!(err, None);
    let plan = set.best().expect("a plan");
    let mut out = Vec::new();
    for s in scan_records(&set, &HashMap::new()) {
        out.push(format!("scan {} {:?}", s.table, s.columns));
    }
    for j in join_records(plan) {
        out.push(format!(
            "join {} {} {:?} = {:?}",
            j.strategy.as_str(),
            j.join_type,
            j.left_keys,
            j.right_keys
        ));
    }
    let (root, is_command) = root_operator(plan);
    out.push(format!("root {root} command={is_command}"));
    out.push(render(&relationships(plan)));
    let lineage = Lineage::build(plan);
    out.push(lineage.render());
    let len = plan.len();
    drop(set);
    (len, out)
}

#[test]
fn a_5000_operator_plan_gives_the_records_of_the_shallow_one() {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let (shallow_len, shallow) = facts(Q12);
            let (deep_len, deep) = facts(&deep_q12(5_000));
            assert_eq!(deep_len, shallow_len + 5_000);
            assert_eq!(deep, shallow);
            assert!(
                shallow.contains(&"join BroadcastHashJoin Inner [\"o_orderkey#190L\"] = [\"l_orderkey#9L\"]".to_string()),
                "{shallow:#?}"
            );
            assert!(
                shallow.iter().any(|l| l.contains(
                    "spark_catalog.default.lineitem[l_orderkey] = spark_catalog.default.orders[o_orderkey] Inner BroadcastHashJoin"
                )),
                "{shallow:#?}"
            );
        })
        .expect("thread")
        .join()
        .expect("no stack overflow, no panic");
}

#[test]
fn deeper_than_the_budget_is_a_plan_error_naming_the_depth() {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let (set, err) = parse_plans(None, Some(&deep_q12(plan::DEPTH_BUDGET)));
            assert!(set.physical.is_none());
            let err = err.expect("an error");
            assert!(
                err.contains("deep, over the depth budget of 10000"),
                "{err}"
            );
        })
        .expect("thread")
        .join()
        .expect("no stack overflow, no panic");
}
