//! Snapshots of the plan shapes of issue 11, per plan source (formatted
//! text and `sparkPlanInfo` of the same event; extended-mode text from the
//! application run with `spark.sql.ui.explainMode=extended`): a DataSource
//! V2 path read,
//! INSERT INTO ... SELECT, CTAS (command, nested insert) and their
//! `CommandResult` executions, from the real Spark 4.0.1 logs of
//! `tests/data/lineage`. Each snapshot lists the scans (what they read)
//! and the relationships the execution contributes. A V2 path read is its
//! path here, one plan alone; across the input the binary reports it under
//! the catalog table at that location (`tests/it/lineage.rs`).

use graph::execution::{execution_relationships, is_command_result, ExecutionPlans};
use graph::relationships::render;
use plan::{NodeKind, Plan, Recursion, TreeNode};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;

/// The last plan event (AQE update, else start) per execution of a log.
fn final_events(rel: &str) -> BTreeMap<u64, Value> {
    let f = std::fs::File::open(testdata::data(rel)).expect("log");
    let mut s = String::new();
    zstd::Decoder::new(f)
        .expect("zstd")
        .read_to_string(&mut s)
        .expect("decompress");
    let mut last = BTreeMap::new();
    for l in s.lines().filter(|l| !l.trim().is_empty()) {
        let e: Value = serde_json::from_str(l).expect("event");
        let ev = e["Event"].as_str().unwrap_or("");
        if ev.ends_with("SQLExecutionStart") || ev.ends_with("SQLAdaptiveExecutionUpdate") {
            if let Some(id) = e["executionId"].as_u64() {
                last.insert(id, e);
            }
        }
    }
    last
}

fn shape(p: &Plan) -> String {
    let mut scans = Vec::new();
    p.apply(|n| {
        if let NodeKind::Scan(s) = &n.kind {
            scans.push(format!("scan {} (format {:?})", s.table, s.format));
        }
        Recursion::Continue
    });
    let rels = execution_relationships(ExecutionPlans {
        physical: Some(p),
        ..ExecutionPlans::default()
    });
    format!(
        "root {}{}\n{}\n{}",
        p.name,
        if is_command_result(p) {
            " (command result)"
        } else {
            ""
        },
        scans.join("\n"),
        render(&rels)
    )
}

fn snapshot(app: &str, log: &str, ids: &[u64]) {
    let events = final_events(log);
    for id in ids {
        let e = &events[id];
        let formatted =
            parsers::plan::formatted::parse(e["physicalPlanDescription"].as_str().unwrap_or(""))
                .expect("formatted plan");
        let info = parsers::plan::spark_plan_info::parse(&e["sparkPlanInfo"].to_string())
            .expect("sparkPlanInfo");
        insta::assert_snapshot!(format!("{app}-{id}-formatted"), shape(&formatted));
        insta::assert_snapshot!(format!("{app}-{id}-spark_plan_info"), shape(&info));
    }
}

/// The extended-text plans (`explainMode=extended`) of the same statements.
fn snapshot_extended(app: &str, log: &str, ids: &[u64]) {
    let events = final_events(log);
    for id in ids {
        let e = &events[id];
        let plans =
            parsers::plan::extended::parse(e["physicalPlanDescription"].as_str().unwrap_or(""))
                .expect("extended plan");
        let physical = plans.physical.expect("a physical plan");
        insta::assert_snapshot!(format!("{app}-{id}-extended"), shape(&physical));
    }
}

const EXTENDED_LOG: &str =
    "lineage/spark4-v2-extended/eventlog_v2_local-1796101802696/events_1_local-1796101802696.zstd";

#[test]
fn extended_text_shapes() {
    // Same statement order as the other applications: 19 and 20 path reads
    // (`BatchScan parquet file:/...`), 31 INSERT, 32 its CommandResult, 33
    // CTAS, 34 its nested insert, 35 the CTAS's CommandResult.
    snapshot_extended(
        "spark4-v2-extended",
        EXTENDED_LOG,
        &[19, 20, 31, 32, 33, 34, 35],
    );
}

#[test]
fn v2_path_reads() {
    // 19 path_read_join, 20 path_read_both: `BatchScan parquet file:/...`.
    snapshot(
        "spark4-v2",
        "lineage/spark4-v2-nobroadcast/eventlog_v2_local-1796086545465/events_1_local-1796086545465.zstd",
        &[19, 20],
    );
}

#[test]
fn insert_ctas_and_command_results() {
    // 31 INSERT, 32 its CommandResult, 33 CTAS, 34 its nested insert, 35
    // the CTAS's CommandResult.
    snapshot(
        "spark4-default",
        "lineage/spark4-default/eventlog_v2_local-1796086458247/events_1_local-1796086458247.zstd",
        &[31, 32, 33, 34, 35],
    );
}
