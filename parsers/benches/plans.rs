//! Benches of the plan parsers on real plan text from the repository's TPC-H
//! logs (`tests/data/spark-logs`).
//!
//! - `formatted` and `spark_plan_info`: the final (last AQE update) plan of
//!   every SQL execution of tpch-default, as formatted text and as
//!   `sparkPlanInfo` JSON.
//! - `extended`: the extended-mode `physicalPlanDescription` of every
//!   execution of tpch-extended (parsed, analyzed, optimized and physical).
//! - `tree_json`: the analyzed and optimized `TreeNode.toJSON` arrays of
//!   tpch-plans.jsonl.
//! - `expr`: every `Condition :` / `Join condition :` expression and every
//!   item of `Output`/`Results` lists of the tpch-default final plans.
//!
//! Throughput is bytes of plan (or expression) text.
//!
//! ```text
//! cargo bench -p lakeaudit-parsers --bench plans
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use parsers::plan::{expr, extended, formatted, spark_plan_info, tree_json};
use serde_json::Value;

fn read(p: &Path) -> Vec<u8> {
    fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Per execution id, the last `(physicalPlanDescription, sparkPlanInfo)` of
/// an execution start or AQE update: the plan that ran.
fn final_plans(log: &[u8]) -> Vec<(String, String)> {
    let mut last: BTreeMap<u64, (String, String)> = BTreeMap::new();
    for line in log.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        if !line.starts_with(br#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQL"#) {
            continue;
        }
        let v: Value = serde_json::from_slice(line).expect("real log lines are JSON");
        let (Some(id), Some(text), Some(info)) = (
            v.get("executionId").and_then(Value::as_u64),
            v.get("physicalPlanDescription").and_then(Value::as_str),
            v.get("sparkPlanInfo"),
        ) else {
            continue;
        };
        last.insert(id, (text.to_string(), info.to_string()));
    }
    last.into_values().collect()
}

/// Expression texts from the detail blocks of formatted plans: conditions,
/// and the items of `Output [n]: [...]` / `Results [n]: [...]` lists.
fn expressions(plans: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (text, _) in plans {
        for line in text.lines() {
            let line = line.trim();
            if let Some(c) = line
                .strip_prefix("Condition : ")
                .or_else(|| line.strip_prefix("Join condition: "))
            {
                if c != "None" {
                    out.push(c.to_string());
                }
            } else if line.starts_with("Output [") || line.starts_with("Results [") {
                if let Some(list) = line.split_once("]: [").map(|(_, l)| l) {
                    let list = list.strip_suffix(']').unwrap_or(list);
                    // Top-level commas only (function arguments nest).
                    let mut depth = 0i32;
                    let mut start = 0;
                    for (i, ch) in list.char_indices() {
                        match ch {
                            '(' | '[' => depth += 1,
                            ')' | ']' => depth -= 1,
                            ',' if depth == 0 => {
                                out.push(list[start..i].trim().to_string());
                                start = i + 1;
                            }
                            _ => {}
                        }
                    }
                    out.push(list[start..].trim().to_string());
                }
            }
        }
    }
    out.retain(|e| !e.is_empty());
    out
}

fn bench_plans(c: &mut Criterion) {
    let default_log = zstd::stream::decode_all(
        read(&testdata::spark_logs(
            "tpch-default/eventlog_v2_local-1796009792357/events_1_local-1796009792357.zstd",
        ))
        .as_slice(),
    )
    .expect("tpch-default is zstd");
    let finals = final_plans(&default_log);
    let extended_log = testdata::read("spark-logs/tpch-extended/local-1796009833175");
    let extended_texts: Vec<String> = final_plans(&extended_log)
        .into_iter()
        .map(|(t, _)| t)
        .filter(|t| t.contains("== Physical Plan =="))
        .collect();
    let jsonl = testdata::read_to_string("spark-logs/tpch-plans.jsonl");
    let trees: Vec<String> = jsonl
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .flat_map(|v| {
            ["analyzed", "optimized"]
                .into_iter()
                .filter_map(|k| v.get(k).map(Value::to_string))
                .collect::<Vec<_>>()
        })
        .collect();
    let exprs = expressions(&finals);
    assert!(finals.len() >= 30 && extended_texts.len() >= 22 && trees.len() == 44);
    assert!(exprs.len() > 100);

    let mut g = c.benchmark_group("plan");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));

    let bytes: usize = finals.iter().map(|(t, _)| t.len()).sum();
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("formatted/tpch-default-final", |b| {
        b.iter(|| {
            finals
                .iter()
                .filter(|(t, _)| formatted::parse(black_box(t)).is_ok())
                .count()
        })
    });

    let bytes: usize = finals.iter().map(|(_, i)| i.len()).sum();
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("spark_plan_info/tpch-default-final", |b| {
        b.iter(|| {
            finals
                .iter()
                .filter(|(_, i)| spark_plan_info::parse(black_box(i)).is_ok())
                .count()
        })
    });

    let bytes: usize = extended_texts.iter().map(String::len).sum();
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("extended/tpch-extended", |b| {
        b.iter(|| {
            extended_texts
                .iter()
                .filter(|t| extended::parse(black_box(t)).is_ok())
                .count()
        })
    });

    let bytes: usize = trees.iter().map(String::len).sum();
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("tree_json/tpch-plans", |b| {
        b.iter(|| {
            trees
                .iter()
                .filter(|t| tree_json::parse(black_box(t)).is_ok())
                .count()
        })
    });

    let bytes: usize = exprs.iter().map(String::len).sum();
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("expr/tpch-default-details", |b| {
        b.iter(|| {
            exprs
                .iter()
                .map(|e| expr::parse_expr(black_box(e)))
                .filter(|e| !matches!(e, plan::Expr::Raw(_)))
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench_plans);
criterion_main!(benches);
