//! Delta SQL for a plan, one block per changed table.
//!
//! - Unpartitioned table: `ALTER TABLE t CLUSTER BY (cols);` (metadata only,
//!   Delta 3.3+ also on a table that was not clustered), then
//!   `OPTIMIZE t FULL;` (Delta 3.3+: reclusters *all* records; a plain
//!   OPTIMIZE leaves rows clustered under the old keys as they are), then
//!   `ANALYZE TABLE t COMPUTE STATISTICS FOR ALL COLUMNS;`.
//! - Partitioned table: Delta rejects ALTER TABLE CLUSTER BY on it
//!   (`DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED`), so it is
//!   replaced: `CREATE OR REPLACE TABLE t USING delta CLUSTER BY (cols) AS
//!   SELECT * FROM t;` (replacing a partitioned table by a clustered one is
//!   allowed; the reverse is not), then ANALYZE.
//! - Tables already on the chosen keys produce nothing.
//!
//! Identifiers are backquoted per name part, embedded backquotes doubled.

use std::fmt::Write as _;

use crate::model::{Layout, Plan, TableDecision};

/// Split a possibly partly backquoted qualified name into its parts.
///
/// `spark_catalog.default.orders` → 3 parts; `` db.`a.b` `` → `db`, `a.b`.
/// A part is quoted only when it *starts* with a backquote; inside it a doubled
/// backquote is one backquote. A backquote elsewhere is part of the name, and
/// an unterminated quote runs to the end of the text.
pub fn split_qualified(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = name.chars().peekable();
    let mut at_start = true;
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '`' {
                if chars.peek() == Some(&'`') {
                    chars.next();
                    cur.push('`');
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
            continue;
        }
        match c {
            '`' if at_start => quoted = true,
            '.' => {
                parts.push(std::mem::take(&mut cur));
                at_start = true;
                continue;
            }
            c => cur.push(c),
        }
        at_start = false;
    }
    parts.push(cur);
    parts
}

/// Backquote one identifier, doubling embedded backquotes.
pub fn quote_ident(part: &str) -> String {
    format!("`{}`", part.replace('`', "``"))
}

/// Backquote every part of a qualified table name.
pub fn quote_table(name: &str) -> String {
    split_qualified(name)
        .iter()
        .map(|p| quote_ident(p))
        .collect::<Vec<_>>()
        .join(".")
}

fn columns(keys: &[String]) -> String {
    keys.iter()
        .map(|k| quote_ident(k))
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe(layout: &Layout) -> String {
    match layout {
        Layout::None => "no partitioning or clustering".to_string(),
        Layout::Partitioned(c) => format!("PARTITIONED BY ({})", c.join(", ")),
        Layout::Clustered(c) => format!("CLUSTER BY ({})", c.join(", ")),
    }
}

/// Comments must not let a name end the comment line: keep them on one line.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn runbook(out: &mut String, d: &TableDecision) {
    let _ = writeln!(out, "-- ==== {} ====", one_line(&d.table));
    let _ = writeln!(out, "-- from: {}", one_line(&describe(&d.previous)));
    let _ = writeln!(
        out,
        "-- to:   CLUSTER BY ({})",
        one_line(&d.keys.join(", "))
    );
    let _ = writeln!(
        out,
        "-- rewrite {}; {} of old files stay until VACUUM; NPV contribution {}",
        crate::human(d.rewrite_bytes as f64),
        crate::human(d.storage_bytes as f64),
        crate::human(d.npv_contribution)
    );
    for s in &d.edges_served {
        let _ = writeln!(
            out,
            "-- serves: {} (JIS {:.3}, saves ~{}/window)",
            one_line(&s.edge.label),
            s.edge.jis,
            crate::human(s.scan_reduction)
        );
    }
    out.push_str(
        "-- runbook: run in quiet hours. OPTIMIZE/REPLACE can fail with\n\
         --   ConcurrentAppendException or ConcurrentDeleteReadException when ETL\n\
         --   writes concurrently: retry with growing back-off (e.g. 1, 2, 4, 8 min),\n\
         --   re-read the latest snapshot (DESCRIBE DETAIL) and re-evaluate the plan\n\
         --   before each retry. Clustering columns need statistics (first 32 columns\n\
         --   by default).\n",
    );
    if d.replace {
        out.push_str(
            "-- replace: a partitioned table cannot be ALTERed to CLUSTER BY; it is rewritten\n\
             --   by CREATE OR REPLACE ... AS SELECT from its own current snapshot. Pause\n\
             --   writers first. History is kept: time travel to the partitioned versions\n\
             --   works until VACUUM removes their files (the storage cost above). Check\n\
             --   TBLPROPERTIES, constraints and column comments afterwards and restate any\n\
             --   that were lost. The way back to PARTITIONED BY is not a REPLACE (Delta\n\
             --   refuses to replace a clustered table with a partitioned one).\n",
        );
    }
}

/// The SQL that applies `plan`, tables in the plan's order (largest NPV
/// contribution first, so a run stopped half-way has done the most valuable part).
pub fn ddl(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "-- lakeaudit layout plan ({}): NPV {}, rewrite {} (budget: {}), storage {} (budget: {})",
        plan.algorithm,
        crate::human(plan.total_npv),
        crate::human(plan.rewrite_cost as f64),
        crate::human_budget(plan.budget),
        crate::human(plan.storage_cost as f64),
        crate::human_budget(plan.storage_budget)
    );
    let changed: Vec<&TableDecision> = plan.tables.iter().filter(|d| d.changed).collect();
    if changed.is_empty() {
        out.push_str("-- no table changes layout\n");
        return out;
    }
    for d in changed {
        out.push('\n');
        runbook(&mut out, d);
        let t = quote_table(&d.table);
        let cols = columns(&d.keys);
        if d.replace {
            let _ = writeln!(
                out,
                "CREATE OR REPLACE TABLE {t} USING delta CLUSTER BY ({cols}) AS SELECT * FROM {t};"
            );
        } else {
            let _ = writeln!(out, "ALTER TABLE {t} CLUSTER BY ({cols});");
            let _ = writeln!(out, "OPTIMIZE {t} FULL;");
        }
        let _ = writeln!(out, "ANALYZE TABLE {t} COMPUTE STATISTICS FOR ALL COLUMNS;");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EdgeRef, ServedEdge};

    #[test]
    fn quoting() {
        assert_eq!(
            quote_table("spark_catalog.default.orders"),
            "`spark_catalog`.`default`.`orders`"
        );
        assert_eq!(quote_table("db.`we.ird`"), "`db`.`we.ird`");
        assert_eq!(quote_table("db.`a``b`"), "`db`.`a``b`");
        assert_eq!(quote_ident("x`y"), "`x``y`");
        assert_eq!(
            split_qualified("`unterminated.x"),
            vec!["unterminated.x".to_string()]
        );
        assert_eq!(split_qualified(""), vec![String::new()]);
        assert_eq!(quote_table("db.we`ird"), "`db`.`we``ird`");
    }

    fn decision(
        table: &str,
        keys: &[&str],
        previous: Layout,
        changed: bool,
        replace: bool,
    ) -> TableDecision {
        TableDecision {
            table: table.to_string(),
            keys: keys.iter().map(|s| s.to_string()).collect(),
            previous,
            changed,
            replace,
            rewrite_bytes: if changed { 1_000_000 } else { 0 },
            storage_bytes: if changed { 1_000_000 } else { 0 },
            edges_served: vec![ServedEdge {
                edge: EdgeRef {
                    index: 0,
                    label: "spark_catalog.default.lineitem(l_orderkey) = spark_catalog.default.orders(o_orderkey)".to_string(),
                    jis: 1.0,
                },
                scan_reduction: 30_000_000.0,
            }],
            npv_contribution: 51_190_000.0,
        }
    }

    #[test]
    fn ddl_snapshot() {
        let plan = Plan {
            tables: vec![
                decision(
                    "spark_catalog.default.lineitem",
                    &["l_orderkey"],
                    Layout::Partitioned(vec!["l_shipdate".to_string()]),
                    true,
                    true,
                ),
                decision(
                    "spark_catalog.default.orders",
                    &["o_orderkey"],
                    Layout::Clustered(vec!["o_orderdate".to_string()]),
                    true,
                    false,
                ),
                decision(
                    "spark_catalog.default.we`ird",
                    &["k`1", "k2"],
                    Layout::None,
                    true,
                    false,
                ),
                decision(
                    "spark_catalog.default.customer",
                    &["c_custkey"],
                    Layout::Clustered(vec!["c_custkey".to_string()]),
                    false,
                    false,
                ),
            ],
            total_npv: 150_000_000.0,
            rewrite_cost: 3_000_000,
            storage_cost: 3_000_000,
            budget: Some(10_000_000),
            storage_budget: Some(10_000_000),
            annuity_factor: 3.546,
            excluded_broadcast: vec![],
            skipped: vec![],
            algorithm: "improved".to_string(),
        };
        insta::assert_snapshot!(ddl(&plan));
    }

    #[test]
    fn nothing_to_do() {
        let plan = Plan {
            tables: vec![],
            total_npv: 0.0,
            rewrite_cost: 0,
            storage_cost: 0,
            budget: None,
            storage_budget: None,
            annuity_factor: 3.546,
            excluded_broadcast: vec![],
            skipped: vec![],
            algorithm: "greedy".to_string(),
        };
        insta::assert_snapshot!(ddl(&plan), @r"
        -- lakeaudit layout plan (greedy): NPV 0 B, rewrite 0 B (budget: no limit), storage 0 B (budget: no limit)
        -- no table changes layout
        ");
    }
}
