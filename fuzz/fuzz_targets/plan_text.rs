//! Fuzz the plan parsers on arbitrary text: formatted and extended plan
//! descriptions, single expressions and expression lists, and the two JSON
//! plan forms (sparkPlanInfo, TreeNode.toJSON). Must never panic; rendering
//! and walking the parsed trees must not panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parsers::plan::{expr, extended, formatted, spark_plan_info, tree_json};
use plan::{PlanNode, Recursion, TreeNode};

fn walk(p: &PlanNode) {
    let _ = p.render();
    p.apply(|n| {
        for e in n.expressions() {
            let _ = e.attrs();
            let _ = e.conjuncts();
        }
        Recursion::Continue
    });
}

fuzz_target!(|text: &str| {
    if let Ok(p) = formatted::parse(text) {
        walk(&p);
    }
    if let Ok(ps) = extended::parse(text) {
        for p in [&ps.parsed, &ps.analyzed, &ps.optimized, &ps.physical]
            .into_iter()
            .flatten()
        {
            walk(p);
        }
    }
    let e = expr::parse_expr(text);
    let _ = e.to_string();
    let _ = expr::parse_expr_list(text);
    let _ = expr::parse_attr_list(text);
    // JSON plan forms only when the text looks like JSON (saves time).
    if text.trim_start().starts_with(['{', '[']) {
        if let Ok(p) = spark_plan_info::parse(text) {
            walk(&p);
        }
        if let Ok(p) = tree_json::parse(text) {
            walk(&p);
        }
    }
});
