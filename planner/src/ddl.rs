//! SQL for a plan, one block per changed table, written for the table's
//! format.
//!
//! **Delta** (`TableFormat::Delta`):
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
//!
//! **Iceberg** (`TableFormat::Iceberg`), after Iceberg's Spark SQL
//! extensions (`IcebergSqlExtensions.g4`, rule `setWriteDistributionAndOrdering`)
//! and procedures (`docs/docs/spark-procedures.md`):
//! `ALTER TABLE t WRITE ORDERED BY c ASC NULLS FIRST, …;` sets the sort order
//! new writes follow, `CALL cat.system.rewrite_data_files(table => 't',
//! strategy => 'sort', sort_order => '…', options => map('rewrite-all',
//! 'true'));` sorts every existing file under it (for two or more keys
//! along Iceberg's Z-order, `sort_order => 'zorder(a, b)'`), and `CALL
//! cat.system.compute_table_stats(table => 't');` refreshes the table's
//! statistics (Spark's ANALYZE TABLE does not run on Iceberg tables). The
//! table keeps its partition spec: Iceberg sorts within each partition, the
//! plan never changes an Iceberg table's partitioning, so no `ADD/DROP
//! PARTITION FIELD` is written and the table is never replaced.
//!
//! **Plain files** (`TableFormat::Files`: Parquet, CSV, ORC, JSON, …): no
//! clustering statement; a Parquet table gets its prerequisite,
//! `CONVERT TO DELTA t` (Delta `convert` rule: writes a Delta log over the
//! existing files in place, rewriting no data), as a `-- prerequisite:`
//! line; other formats get a migration note (CONVERT TO DELTA reads only
//! Parquet and Iceberg).
//!
//! **Unknown format**: no statement, and the reason.
//!
//! Tables already on the chosen keys produce nothing. Identifiers are
//! backquoted per name part, embedded backquotes doubled ([`sql::quote`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
pub use sql::{one_line, quote_ident, quote_table, split_qualified};

use crate::model::{Layout, LayoutPlan, TableDecision};
use crate::workload::RewriteSpec;

/// A table's storage format as far as lakeaudit knows it: from the table
/// audit (`--tables`), else from the logs' scans.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum TableFormat {
    /// A Delta table.
    Delta,
    /// An Iceberg table.
    Iceberg,
    /// Plain files of a format without table metadata (`parquet`, `csv`,
    /// `orc`, `json`, lower case).
    Files(String),
    /// Not known.
    Unknown,
}

impl TableFormat {
    /// The format a name says (`delta`, `iceberg`, `parquet`, `Parquet`, …).
    pub fn from_name(name: &str) -> TableFormat {
        match name.trim().to_ascii_lowercase().as_str() {
            "delta" => TableFormat::Delta,
            "iceberg" => TableFormat::Iceberg,
            f @ ("parquet" | "csv" | "orc" | "json" | "avro" | "text") => {
                TableFormat::Files(f.to_string())
            }
            _ => TableFormat::Unknown,
        }
    }

    /// Lower-case name (`unknown` when not known).
    pub fn name(&self) -> &str {
        match self {
            TableFormat::Delta => "delta",
            TableFormat::Iceberg => "iceberg",
            TableFormat::Files(f) => f,
            TableFormat::Unknown => "unknown",
        }
    }
}

/// A table's format as one scan shows it: the scan's file format, except
/// that a `parquet` scan through Delta's file index is a Delta table.
pub fn scan_format(s: &parsers::record::ScanRecord) -> TableFormat {
    let delta_index = s.location.as_deref().is_some_and(|l| {
        [
            "TahoeLogFileIndex",
            "PreparedDeltaFileIndex",
            "TahoeBatchFileIndex",
        ]
        .iter()
        .any(|i| l.contains(i))
    });
    if delta_index {
        TableFormat::Delta
    } else {
        s.format
            .as_deref()
            .map_or(TableFormat::Unknown, TableFormat::from_name)
    }
}

/// The statements for one changed table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableSql {
    /// The table.
    pub table: String,
    /// Its format.
    pub format: TableFormat,
    /// The statements that apply the plan to it, in order.
    pub statements: Vec<String>,
    /// Statements to run, and re-plan, before any layout statement can be
    /// written for it (not run by `plan.sql`).
    pub prerequisites: Vec<String>,
    /// Why it has no statement, or what to do first.
    pub note: Option<String>,
}

fn columns(keys: &[String]) -> String {
    sql::quote_columns(keys)
}

fn describe(layout: &Layout) -> String {
    match layout {
        Layout::None => "no partitioning or clustering".to_string(),
        Layout::Partitioned(c) => format!("PARTITIONED BY ({})", c.join(", ")),
        Layout::Clustered(c) => format!("CLUSTER BY ({})", c.join(", ")),
    }
}

/// The change the plan makes to a table, in the words of its format, for
/// the reports and the plan text (the statements are [`table_sql`]'s):
/// `CLUSTER BY (a, b)` on Delta, `WRITE ORDERED BY a, b` on Iceberg (the
/// rewrite sorts within its partitions), and for a table no statement can
/// change yet the step that comes first (`CONVERT TO DELTA`, a migration)
/// or that its format is unknown.
pub fn planned_layout(keys: &[String], format: &TableFormat) -> String {
    let k = keys.join(", ");
    match format {
        TableFormat::Delta => format!("CLUSTER BY ({k})"),
        TableFormat::Iceberg => format!("WRITE ORDERED BY {k}"),
        TableFormat::Files(f) if f == "parquet" => {
            format!(
                "CLUSTER BY ({k}) once converted (CONVERT TO DELTA first; no statement until then)"
            )
        }
        TableFormat::Files(f) => {
            format!("CLUSTER BY ({k}) once migrated off plain {f} (no statement until then)")
        }
        TableFormat::Unknown => {
            format!("CLUSTER BY ({k}) if it is a Delta table (format unknown: no statement)")
        }
    }
}

/// [`planned_layout`] in few words, for a label under a table in the join
/// graph: `CLUSTER BY (a, b)`, `WRITE ORDERED BY a, b`, `CONVERT TO DELTA,
/// then CLUSTER BY (a, b)`.
pub fn planned_layout_short(keys: &[String], format: &TableFormat) -> String {
    let k = keys.join(", ");
    match format {
        TableFormat::Delta => format!("CLUSTER BY ({k})"),
        TableFormat::Iceberg => format!("WRITE ORDERED BY {k}"),
        TableFormat::Files(f) if f == "parquet" => {
            format!("CONVERT TO DELTA, then CLUSTER BY ({k})")
        }
        TableFormat::Files(f) => format!("migrate off {f}, then CLUSTER BY ({k})"),
        TableFormat::Unknown => format!("CLUSTER BY ({k})? format unknown"),
    }
}

/// The statements for one changed table in `format`.
pub fn table_sql(d: &TableDecision, format: &TableFormat) -> TableSql {
    let t = quote_table(&d.table);
    let cols = columns(&d.keys);
    let mut out = TableSql {
        table: d.table.clone(),
        format: format.clone(),
        statements: Vec::new(),
        prerequisites: Vec::new(),
        note: None,
    };
    match format {
        TableFormat::Delta => {
            if d.replace {
                out.statements.push(format!(
                    "CREATE OR REPLACE TABLE {t} USING delta CLUSTER BY ({cols}) AS SELECT * FROM {t}"
                ));
            } else {
                out.statements
                    .push(format!("ALTER TABLE {t} CLUSTER BY ({cols})"));
                out.statements.push(format!("OPTIMIZE {t} FULL"));
            }
            out.statements.push(format!(
                "ANALYZE TABLE {t} COMPUTE STATISTICS FOR ALL COLUMNS"
            ));
        }
        TableFormat::Iceberg => {
            let order = d
                .keys
                .iter()
                .map(|k| format!("{} ASC NULLS FIRST", quote_ident(k)))
                .collect::<Vec<_>>()
                .join(", ");
            let parts = split_qualified(&d.table);
            // Two or more keys: the existing files are rewritten along
            // Iceberg's Z-order (`sort_order => 'zorder(a, b)'`,
            // SparkZOrderFileRewriteRunner), the curve lakeaudit's
            // `iceberg-spark` rewriter predicts; new writes follow the
            // sort order (a table's write order cannot be a Z-order).
            let rewrite_order = if d.keys.len() > 1 {
                format!(
                    "zorder({})",
                    d.keys
                        .iter()
                        .map(|k| quote_ident(k))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                order.clone()
            };
            out.statements
                .push(format!("ALTER TABLE {t} WRITE ORDERED BY {order}"));
            out.statements.push(sql::iceberg_call(
                "rewrite_data_files",
                &parts,
                &[
                    ("strategy", sql::string_literal("sort")),
                    ("sort_order", sql::string_literal(&rewrite_order)),
                    ("options", "map('rewrite-all', 'true')".to_string()),
                ],
            ));
            out.statements
                .push(sql::iceberg_call("compute_table_stats", &parts, &[]));
        }
        TableFormat::Files(f) if f == "parquet" => {
            out.prerequisites.push(format!("CONVERT TO DELTA {t}"));
            out.note = Some(format!(
                "a plain parquet table has no clustering, so no layout statement is written. \
                 Prerequisite: CONVERT TO DELTA (in place: writes a Delta log over the existing \
                 files and rewrites no data; a partitioned table keeps its partitioning and then \
                 needs a replace), then re-run lakeaudit with --tables to get its CLUSTER BY ({}) statements",
                d.keys.join(", ")
            ));
        }
        TableFormat::Files(f) => {
            out.note = Some(format!(
                "a plain {f} table has no clustering, so no layout statement is written, and \
                 CONVERT TO DELTA reads only Parquet and Iceberg: migrate it to a Delta or Iceberg \
                 table (for example CREATE TABLE <new> USING delta CLUSTER BY ({}) AS SELECT * \
                 FROM <this table>, then move readers and writers), then re-run lakeaudit",
                d.keys.join(", ")
            ));
        }
        TableFormat::Unknown => {
            out.note = Some(
                "its format is not known (neither audited with --tables nor named by the logs' \
                 scans), so no statement is written: Delta, Iceberg and plain files each need \
                 different ones. Audit it with --tables and re-run"
                    .to_string(),
            );
        }
    }
    out
}

/// The statements for every changed table of `plan`, in the plan's order;
/// a table missing from `formats` is of unknown format.
pub fn statements(plan: &LayoutPlan, formats: &BTreeMap<String, TableFormat>) -> Vec<TableSql> {
    statements_with(plan, formats, &BTreeMap::new())
}

/// [`statements`] for the rewrites each measured table was priced by
/// ([`rewritten`]).
pub fn statements_with(
    plan: &LayoutPlan,
    formats: &BTreeMap<String, TableFormat>,
    rewrites: &BTreeMap<String, RewriteSpec>,
) -> Vec<TableSql> {
    plan.tables
        .iter()
        .filter(|d| d.changed)
        .map(|d| {
            let sql = table_sql(d, formats.get(&d.table).unwrap_or(&TableFormat::Unknown));
            match rewrites.get(&d.table) {
                Some(r) => rewritten(sql, d, r),
                None => sql,
            }
        })
        .collect()
}

/// `sql` (a table's statements) as the rewriter `r` runs them: delta-rs
/// has no SQL (its `optimize.z_order` call is the note, in Python), and a
/// target size asked for is set on the table first
/// (`delta.targetFileSize`, Iceberg's `write.target-file-size-bytes`).
pub fn rewritten(mut sql: TableSql, d: &TableDecision, r: &RewriteSpec) -> TableSql {
    let t = quote_table(&d.table);
    if r.rewriter == crate::engine::Rewriter::DeltaRs && sql.format == TableFormat::Delta {
        let py = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let cols = d.keys.iter().map(|k| py(k)).collect::<Vec<_>>().join(", ");
        sql.statements.clear();
        sql.note = Some(format!(
            "delta-rs rewrites it, not SQL: in Python, DeltaTable({}).optimize.z_order([{cols}], target_size={}) \
             (deltalake; the prediction is for that call)",
            py(&format!("<location of {}>", d.table)),
            r.target_size
        ));
        return sql;
    }
    if r.set_property && !sql.statements.is_empty() {
        let key = match sql.format {
            TableFormat::Iceberg => "write.target-file-size-bytes",
            _ => "delta.targetFileSize",
        };
        sql.statements.insert(
            0,
            format!(
                "ALTER TABLE {t} SET TBLPROPERTIES ({} = {})",
                sql::string_literal(key),
                sql::string_literal(&r.target_size.to_string())
            ),
        );
    }
    sql
}

fn runbook(out: &mut String, d: &TableDecision, format: &TableFormat) {
    let _ = writeln!(out, "-- ==== {} ====", one_line(&d.table));
    let _ = writeln!(out, "-- format: {}", one_line(format.name()));
    let _ = writeln!(out, "-- from: {}", one_line(&describe(&d.previous)));
    let to = match format {
        TableFormat::Iceberg => "WRITE ORDERED BY",
        _ => "CLUSTER BY",
    };
    let _ = writeln!(out, "-- to:   {to} ({})", one_line(&d.keys.join(", ")));
    // What removes the old files: Delta's VACUUM; on Iceberg,
    // expire_snapshots (files only expired snapshots reference) and
    // remove_orphan_files (files no snapshot references).
    let until = match format {
        TableFormat::Iceberg => "expire_snapshots (and remove_orphan_files)",
        TableFormat::Delta | TableFormat::Files(_) | TableFormat::Unknown => "VACUUM",
    };
    let _ = writeln!(
        out,
        "-- rewrite {}; {} of old files stay until {until}; NPV contribution {}",
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
    match format {
        TableFormat::Delta => {
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
        TableFormat::Iceberg => {
            out.push_str(
                "-- runbook: run in quiet hours. The sort order applies to new writes; the\n\
                 --   rewrite sorts the existing files (rewrite-all) and commits with\n\
                 --   optimistic concurrency: a conflicting commit fails it, so retry with\n\
                 --   growing back-off. Old files stay until CALL ...system.expire_snapshots\n\
                 --   expires the snapshots that list them; CALL ...system.remove_orphan_files\n\
                 --   deletes files no snapshot lists (a failed rewrite's). The table keeps\n\
                 --   its partition spec (Iceberg sorts within each partition).\n",
            );
            if let Layout::Partitioned(p) = &d.previous {
                let _ = writeln!(
                    out,
                    "-- partitioning: PARTITIONED BY ({}) is kept; no partition field changes.",
                    one_line(&p.join(", "))
                );
            }
            if sql::split_qualified(&d.table).len() < 3 {
                let _ = writeln!(
                    out,
                    "-- catalog: the name has no catalog part; the CALL names {} (change it to the table's Iceberg catalog).",
                    sql::ICEBERG_CATALOG
                );
            }
        }
        TableFormat::Files(_) | TableFormat::Unknown => {}
    }
}

/// The SQL that applies `plan` to tables whose formats `formats` gives
/// (missing: unknown), tables in the plan's order (largest NPV
/// contribution first, so a run stopped half-way has done the most
/// valuable part). Tables a planning rule left alone are listed first.
pub fn ddl_for(plan: &LayoutPlan, formats: &BTreeMap<String, TableFormat>) -> String {
    ddl_with(plan, formats, &BTreeMap::new())
}

/// [`ddl_for`] with each measured table's statements those of the rewrite
/// it was priced by ([`statements_with`]).
pub fn ddl_with(
    plan: &LayoutPlan,
    formats: &BTreeMap<String, TableFormat>,
    rewrites: &BTreeMap<String, RewriteSpec>,
) -> String {
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
    for l in &plan.left_alone {
        let _ = writeln!(
            out,
            "-- left alone: {}: {}",
            one_line(&l.table),
            one_line(&l.reason.to_string())
        );
    }
    let changed = statements_with(plan, formats, rewrites);
    if changed.is_empty() {
        out.push_str("-- no table changes layout\n");
        return out;
    }
    for (d, t) in plan.tables.iter().filter(|d| d.changed).zip(&changed) {
        out.push('\n');
        runbook(&mut out, d, &t.format);
        if let Some(n) = &t.note {
            let _ = writeln!(out, "-- no statement: {}.", one_line(n));
        }
        for p in &t.prerequisites {
            let _ = writeln!(out, "-- prerequisite: {};", one_line(p));
        }
        for s in &t.statements {
            let _ = writeln!(out, "{s};");
        }
    }
    out
}

/// [`ddl_for`] with every table a Delta table (planning instances describe
/// Delta tables).
pub fn ddl(plan: &LayoutPlan) -> String {
    let formats = plan
        .tables
        .iter()
        .map(|d| (d.table.clone(), TableFormat::Delta))
        .collect();
    ddl_for(plan, &formats)
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_format_names_its_own_change() {
        let k = vec!["a".to_string(), "b".to_string()];
        assert_eq!(planned_layout(&k, &TableFormat::Delta), "CLUSTER BY (a, b)");
        assert_eq!(
            planned_layout(&k, &TableFormat::Iceberg),
            "WRITE ORDERED BY a, b"
        );
        let pq = planned_layout(&k, &TableFormat::Files("parquet".into()));
        assert!(pq.contains("CONVERT TO DELTA first"), "{pq}");
        let csv = planned_layout(&k, &TableFormat::Files("csv".into()));
        assert!(csv.contains("migrated off plain csv"), "{csv}");
        let unknown = planned_layout(&k, &TableFormat::Unknown);
        assert!(
            unknown.contains("format unknown: no statement"),
            "{unknown}"
        );
        // The join graph's short labels.
        assert_eq!(
            planned_layout_short(&k, &TableFormat::Files("parquet".into())),
            "CONVERT TO DELTA, then CLUSTER BY (a, b)"
        );
        assert_eq!(
            planned_layout_short(&k, &TableFormat::Iceberg),
            "WRITE ORDERED BY a, b"
        );
    }

    use super::*;
    use crate::model::{EdgeRef, ServedEdge};

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
        let plan = LayoutPlan {
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
            left_alone: vec![],
        };
        insta::assert_snapshot!(ddl(&plan));
        // The same plan on tables of four formats: Delta as above, Iceberg
        // keeps its partitioning and gets WRITE ORDERED BY + a sort rewrite,
        // Parquet only its CONVERT TO DELTA prerequisite, unknown nothing.
        let mut plan = plan;
        plan.tables.push(decision(
            "shop.web_events",
            &["e_custkey"],
            Layout::Partitioned(vec!["e_day".to_string()]),
            true,
            true,
        ));
        let formats: BTreeMap<String, TableFormat> = [
            ("spark_catalog.default.lineitem", TableFormat::Delta),
            ("spark_catalog.default.orders", TableFormat::Iceberg),
            ("shop.web_events", TableFormat::Iceberg),
            (
                "spark_catalog.default.we`ird",
                TableFormat::Files("parquet".into()),
            ),
        ]
        .into_iter()
        .map(|(t, f)| (t.to_string(), f))
        .collect();
        let text = ddl_for(&plan, &formats);
        assert!(
            !text.contains("USING delta CLUSTER BY (`e_custkey`)"),
            "{text}"
        );
        // Iceberg has no VACUUM: its old files go with expire_snapshots
        // and remove_orphan_files, which the header and runbook name.
        let iceberg: Vec<&str> = text
            .split("-- ==== ")
            .filter(|b| b.contains("-- format: iceberg"))
            .collect();
        assert_eq!(iceberg.len(), 2, "{text}");
        for block in iceberg {
            assert!(
                !block.contains("VACUUM")
                    && block.contains("stay until expire_snapshots (and remove_orphan_files)")
                    && block.contains("remove_orphan_files\n--   deletes files no snapshot lists"),
                "{block}"
            );
        }
        insta::assert_snapshot!("ddl_by_format", text);
        let unknown = statements(&plan, &BTreeMap::new());
        assert!(unknown
            .iter()
            .all(|t| t.statements.is_empty() && t.note.is_some()));
    }

    #[test]
    fn iceberg_rewrites_two_keys_along_its_z_order() {
        // lakeaudit's iceberg-spark rewriter predicts Iceberg's Z-order for
        // two or more keys: the rewrite it writes is that Z-order, while new
        // writes follow the sort order.
        let d = decision(
            "lake.db.t",
            &["a", "b"],
            Layout::Clustered(vec!["a".to_string()]),
            true,
            false,
        );
        let sql = table_sql(&d, &TableFormat::Iceberg).statements.join(";\n");
        assert!(
            sql.contains("WRITE ORDERED BY `a` ASC NULLS FIRST, `b` ASC NULLS FIRST"),
            "{sql}"
        );
        assert!(
            sql.contains("strategy => 'sort', sort_order => 'zorder(`a`, `b`)'"),
            "{sql}"
        );
    }

    #[test]
    fn statements_run_the_rewrite_the_table_was_priced_by() {
        let d = decision(
            "db.t",
            &["a", "b"],
            Layout::Clustered(vec!["a".to_string()]),
            true,
            false,
        );
        use crate::engine::Rewriter;
        let spec = |rewriter: Rewriter, set_property| RewriteSpec {
            rewriter,
            target_size: 81920,
            set_property,
        };
        // delta-rs: no SQL, its Python call with the simulated size.
        let rs = rewritten(
            table_sql(&d, &TableFormat::Delta),
            &d,
            &spec(Rewriter::DeltaRs, true),
        );
        assert!(rs.statements.is_empty());
        assert!(rs.note.unwrap().contains(
            r#"DeltaTable("<location of db.t>").optimize.z_order(["a", "b"], target_size=81920)"#
        ));
        // A size asked for is set first, by each format's property.
        let delta = rewritten(
            table_sql(&d, &TableFormat::Delta),
            &d,
            &spec(Rewriter::SparkDelta, true),
        );
        assert_eq!(
            delta.statements[0],
            "ALTER TABLE `db`.`t` SET TBLPROPERTIES ('delta.targetFileSize' = '81920')"
        );
        let ice = rewritten(
            table_sql(&d, &TableFormat::Iceberg),
            &d,
            &spec(Rewriter::IcebergSpark, true),
        );
        assert!(ice.statements[0].contains("'write.target-file-size-bytes' = '81920'"));
        // The default size (or the table's own) sets nothing.
        let plain = rewritten(
            table_sql(&d, &TableFormat::Delta),
            &d,
            &spec(Rewriter::SparkDelta, false),
        );
        assert_eq!(plain, table_sql(&d, &TableFormat::Delta));
    }

    #[test]
    fn nothing_to_do() {
        let plan = LayoutPlan {
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
            left_alone: vec![],
        };
        insta::assert_snapshot!(ddl(&plan), @r"
        -- lakeaudit layout plan (greedy): NPV 0 B, rewrite 0 B (budget: no limit), storage 0 B (budget: no limit)
        -- no table changes layout
        ");
    }
}
