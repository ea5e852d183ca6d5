//! What a plan saves in executor time: each served edge's executions,
//! their task time, and the share of their bytes read that clustering
//! saves (the same share the byte saving uses).

use crate::workload::{MeasuredKey, Planned};
use std::collections::{BTreeMap, BTreeSet};
use workload::edges::ExecFacts;
use workload::windows::EdgeTable;

/// Executor (task) time, ms, each edge `planned` serves saves per window,
/// by the edge's index in its demands: `planned` was made for
/// `planned_for` (its window's executions, with their task time, and edge
/// table).
pub fn executor_ms(
    planned_for: &EdgeTable,
    planned: &Planned,
    measured: &[MeasuredKey],
) -> BTreeMap<usize, f64> {
    let (facts, rows) = (&planned_for.facts, &planned_for.edges);
    let by_id: BTreeMap<(&str, u64), &ExecFacts> = facts
        .iter()
        .map(|f| ((f.app_id.as_str(), f.execution_id), f))
        .collect();
    let by_ref =
        |id: &parsers::record::ExecRef| by_id.get(&(id.app_id.as_str(), id.execution_id)).copied();
    let served: BTreeSet<usize> = planned
        .plan
        .tables
        .iter()
        .flat_map(|t| t.edges_served.iter().map(|e| e.edge.index))
        .collect();
    let mut executor_ms = BTreeMap::new();
    for i in served {
        let Some(d) = planned.demands.get(i) else {
            continue;
        };
        if d.is_table_demand() {
            // Measured: each execution saves its share of the bytes it
            // reads that the key skips.
            let Some(m) = measured
                .iter()
                .find(|m| m.table == d.left_table && m.key == d.left_columns)
            else {
                continue;
            };
            let mut ms = 0.0;
            for (id, r) in &m.per_exec {
                let Some(f) = by_ref(id) else {
                    continue;
                };
                let run = f.run_ms;
                let total: f64 = f
                    .tables
                    .values()
                    .map(|v| v.bytes.unwrap_or(0).max(0) as f64)
                    .sum();
                let saved = r.bytes_now.saturating_sub(r.bytes_after) as f64;
                if total > 0.0 {
                    ms += run.max(0) as f64 * (saved / total).min(1.0);
                }
            }
            executor_ms.insert(i, ms);
            continue;
        }
        let Some(row) = rows.iter().find(|r| {
            r.left_table == d.left_table
                && r.left_columns == d.left_columns
                && r.right_table == d.right_table
                && r.right_columns == d.right_columns
        }) else {
            continue;
        };
        let mut ms = 0.0;
        for id in row.executions.iter() {
            let Some(f) = by_id.get(&(id.app_id, id.execution_id)) else {
                continue;
            };
            let run = f.run_ms;
            let bytes = |t: &str| f.tables.get(t).and_then(|v| v.bytes).unwrap_or(0).max(0) as f64;
            let total: f64 = f
                .tables
                .values()
                .map(|v| v.bytes.unwrap_or(0).max(0) as f64)
                .sum();
            let pair = if d.left_table == d.right_table {
                bytes(&d.left_table)
            } else {
                bytes(&d.left_table) + bytes(&d.right_table)
            };
            if total > 0.0 {
                ms += run.max(0) as f64 * planned.config.scan_reduction * pair / total;
            }
        }
        executor_ms.insert(i, ms);
    }
    executor_ms
}
