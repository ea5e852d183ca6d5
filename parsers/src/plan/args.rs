//! Operator argument text both plan readers parse the same way: the
//! formatted explain output ([`super::formatted`]) and `sparkPlanInfo`
//! trees ([`super::spark_plan_info`]).

use super::expr::{parse_expr, parse_expr_list};
use ::plan::{list::split_top_level, Expr, JoinInfo, JoinStrategy, JoinType, NodeKind};

/// Whether a printed item is a `... N more fields` truncation marker.
pub(crate) fn is_truncation(item: &str) -> bool {
    item.contains("more fields") || item.trim() == "..."
}

/// An expression list without its truncation markers.
pub(crate) fn list(text: &str) -> Vec<Expr> {
    parse_expr_list(text)
        .into_iter()
        .filter(|e| !is_truncation(&e.to_string()))
        .collect()
}

/// `BroadcastHashJoin [lk], [rk], Inner, BuildRight, cond?, isNullAware`,
/// `SortMergeJoin [lk], [rk], Inner, cond?, isSkewJoin`,
/// `BroadcastNestedLoopJoin BuildRight, LeftOuter, cond?`,
/// `CartesianProduct cond?`.
pub(crate) fn join_info(strategy: JoinStrategy, args: &str) -> NodeKind {
    let parts: Vec<&str> = split_top_level(args)
        .filter(|p| !is_truncation(p))
        .collect();
    let mut keys = Vec::new();
    let mut join_type = None;
    let mut condition = None;
    let mut flags = Vec::new();
    for p in &parts {
        let as_type = || match JoinType::parse(p) {
            JoinType::Unparsed(_) => None,
            t => Some(t),
        };
        if p.starts_with('[') && keys.len() < 2 && join_type.is_none() {
            keys.push(list(p));
        } else if let Some(t) = as_type().filter(|_| join_type.is_none()) {
            join_type = Some(t);
        } else if p.ends_with("BuildRight") || p.ends_with("BuildLeft") {
            // `BuildRight`, RAPIDS' `GpuBuildRight`.
            // The build side does not change lineage.
        } else if *p == "true" || *p == "false" {
            flags.push(*p == "true");
        } else {
            condition = Some(parse_expr(p));
        }
    }
    let join_type = join_type.unwrap_or(if strategy == JoinStrategy::CartesianProduct {
        JoinType::Inner
    } else {
        JoinType::Unparsed(String::new())
    });
    let mut keys = keys.into_iter();
    NodeKind::Join(JoinInfo {
        strategy,
        join_type,
        left_keys: keys.next().unwrap_or_default(),
        right_keys: keys.next().unwrap_or_default(),
        condition,
        // Only the broadcast hash join's trailing flag is `isNullAwareAntiJoin`.
        null_aware: strategy == JoinStrategy::BroadcastHashJoin && flags.last() == Some(&true),
    })
}
