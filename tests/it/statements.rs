//! The statements lakeaudit writes (issue 20 section 1, issue 16 case 2):
//! each is one statement of a form the grammars allow
//! (`planner/sql/src/check.rs`, written from Spark's, Delta's and Iceberg's
//! ANTLR grammars), each touches only its own table, a hostile partition
//! value or name never becomes SQL, and the planning rules leave alone what
//! they should, saying why.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn parts(name: &str) -> Vec<String> {
    sql::split_qualified(name)
}

/// Check every statement of a plan.sql: each block's statements (and its
/// `-- prerequisite:` lines) touch only the table the block is for.
fn check_plan_sql(text: &str) -> usize {
    let mut n = 0;
    let mut table: Option<Vec<String>> = None;
    let mut block = String::new();
    let mut flush = |table: &Option<Vec<String>>, block: &mut String| {
        for s in sql::check_script(block).unwrap_or_else(|e| panic!("{e}\n{block}")) {
            let t = table.as_ref().expect("a statement inside a table block");
            assert!(
                s.tables.iter().all(|x| x == t),
                "{} touches {:?}",
                s.text,
                s.tables
            );
            n += 1;
        }
        block.clear();
    };
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix("-- ==== ")
            .and_then(|l| l.strip_suffix(" ===="))
        {
            flush(&table, &mut block);
            table = Some(parts(name));
        } else if let Some(p) = line.strip_prefix("-- prerequisite: ") {
            block.push_str(p);
            block.push('\n');
        } else {
            block.push_str(line);
            block.push('\n');
        }
    }
    flush(&table, &mut block);
    n
}

fn analyze_samples(extra: &[&str], name: &str) -> PathBuf {
    let dir = scratch_dir(&format!("statements-{name}"));
    let (samples, wh) = (sample(""), sample("warehouse"));
    let out = dir.to_string_lossy().into_owned();
    // Statements for every format the plan may change: the paper's
    // pricing, which plans the samples' joins (measured pricing is
    // tested against real engines in tests/it/whatif.rs).
    let mut args = vec!["analyze", &samples, "--tables", &wh, "--pricing", "assumed"];
    args.extend_from_slice(extra);
    args.extend(["--out", &out]);
    ok(&args);
    dir
}

/// The samples' tables are all below one target file: by default nothing
/// is re-laid out, every table is listed as left alone with the rule, and
/// plan.sql holds no statement.
#[test]
fn samples_left_alone_by_default_with_the_reason() {
    let dir = analyze_samples(&[], "default");
    let plan: serde_json::Value = serde_json::from_str(&read(&dir, "plan.json")).unwrap();
    assert!(plan["tables"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["changed"] == false));
    let alone = plan["left_alone"].as_array().unwrap();
    assert!(alone
        .iter()
        .any(|l| l["table"] == "spark_catalog.shop.customers"
            && l["reason"]["rule"] == "smaller_than_target_file"));
    let sql_text = read(&dir, "plan.sql");
    assert_eq!(check_plan_sql(&sql_text), 0, "{sql_text}");
    let md = read(&dir, "report.md");
    assert!(
        md.contains("- `spark_catalog.shop.customers`: smaller than one target file (9.0 KiB"),
        "{md}"
    );
    // Maintenance: small tables are not compacted, and say so.
    let maint = md.split("## Maintenance").nth(1).unwrap();
    assert!(maint.contains("left alone"), "{maint}");
    assert!(!maint.contains("`OPTIMIZE"), "{maint}");
    // Sizes in human units, not raw byte counts.
    assert!(
        maint.contains(
            "the table (283.9 KiB in 48 files) is smaller than one target file (1.0 GiB)"
        ),
        "{maint}"
    );
    // Drift: weeks 1 → 2 changed a little (q18 ran 3 then 2 times): within
    // the noise of an unchanged week (issue 32.7), and the line says which
    // edges moved.
    let drift = md.split("## Drift").nth(1).unwrap();
    let week2 = drift
        .lines()
        .find(|l| l.starts_with("- 2026-10-06"))
        .unwrap_or_else(|| panic!("{drift}"));
    assert!(
        week2.contains("drift 0.103 → keep the plan; moved most")
            && week2.contains("moved most (score before→after): lineitem(l_orderkey) = orders(o_orderkey) 0.684→0.584"),
        "{week2}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// With every table plannable: no change of negative own value, customers
/// keeps its clustering, web_events (Iceberg) is never replaced by a Delta
/// table, the TPC-H Parquet tables get only CONVERT TO DELTA, and every
/// statement checks and touches only its table.
#[test]
fn samples_plan_has_no_negative_change_and_right_statements() {
    let dir = analyze_samples(&["--min-table-size", "0"], "all");
    let plan: serde_json::Value = serde_json::from_str(&read(&dir, "plan.json")).unwrap();
    let tables = plan["tables"].as_array().unwrap();
    for t in tables.iter().filter(|t| t["changed"] == true) {
        assert!(t["npv_contribution"].as_f64().unwrap() >= 0.0, "{t}");
    }
    let changed = |name: &str| {
        tables
            .iter()
            .any(|t| t["table"] == name && t["changed"] == true)
    };
    assert!(!changed("spark_catalog.shop.customers"));
    assert!(!changed("spark_catalog.shop.web_events"));
    assert!(changed("spark_catalog.shop.lineitem"));
    let alone: BTreeMap<&str, &str> = plan["left_alone"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["table"].as_str().unwrap(),
                l["reason"]["rule"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        alone.get("spark_catalog.shop.web_events"),
        Some(&"negative_value")
    );
    let text = read(&dir, "plan.sql");
    assert!(check_plan_sql(&text) >= 6, "{text}");
    assert!(!text.contains("web_events` USING delta"), "{text}");
    assert!(
        text.contains("-- prerequisite: CONVERT TO DELTA `spark_catalog`.`default`.`lineitem`;")
    );
    assert!(
        !text.contains("ALTER TABLE `spark_catalog`.`default`"),
        "{text}"
    );
    assert!(
        text.contains("ALTER TABLE `spark_catalog`.`shop`.`lineitem` CLUSTER BY (`l_orderkey`);")
    );
    // Left-out edges say their true reason; no budget was set, so none is
    // "over the budget".
    let md = read(&dir, "report.md");
    assert!(md.contains("spark_catalog.default.lineitem(l_partkey) = spark_catalog.default.part(p_partkey) (needs a rewrite of 20.3 MiB, stand-alone NPV 109.8 MiB): conflicts with l_orderkey on spark_catalog.default.lineitem, which serves an edge worth more (spark_catalog.default.lineitem(l_orderkey) = spark_catalog.default.orders(o_orderkey))"), "{md}");
    assert!(
        md.contains(
            "needs spark_catalog.shop.web_events, which is left alone: costs more than it saves"
        ),
        "{md}"
    );
    assert!(!md.contains("over the budget"), "{md}");
    assert!(!md.contains("budget, or a conflicting key"), "{md}");
    // The report's plan says each change in its table's format's words:
    // a Parquet table is not promised a CLUSTER BY it cannot take.
    let line = |table: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("- `{table}`: ")))
            .unwrap_or_else(|| panic!("no plan line for {table}:\n{md}"))
            .to_string()
    };
    let parquet = line("spark_catalog.default.lineitem");
    assert!(
        parquet.contains("CLUSTER BY (l_orderkey) once converted (CONVERT TO DELTA first"),
        "{parquet}"
    );
    let delta = line("spark_catalog.shop.lineitem");
    assert!(
        delta.starts_with("- `spark_catalog.shop.lineitem`: CLUSTER BY (l_orderkey) — rewrite"),
        "{delta}"
    );
    let html = read(&dir, "report.html");
    // The page's plan table and join graph say it short; the long form is
    // the cell's title.
    assert!(
        html.contains("CLUSTER BY (l_orderkey) once converted")
            && html.contains("CONVERT TO DELTA, then CLUSTER BY (l_orderkey)"),
        "html"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `maintenance.sql` (issue 32.6): the maintenance plan's statements,
/// in report.md's rank order, each under a comment with the range its
/// saving was measured on and the saving a week; a partitioned table's
/// sixteen partitions in one `OPTIMIZE … WHERE … IN (…)`; every statement
/// checks and touches only its table. By default the sample tables
/// (118 KiB, 284 KiB) get neither OPTIMIZE nor REORG, and say why.
#[test]
fn maintenance_sql_holds_the_ranked_steps_with_range_and_saving() {
    // Measured pricing (the default) leaves the shop's Delta tables to
    // compaction and purging.
    let dir = scratch_dir("statements-maintenance");
    let out = dir.to_string_lossy().into_owned();
    let (samples, wh) = (sample(""), sample("warehouse"));
    ok(&[
        "analyze",
        &samples,
        "--tables",
        &wh,
        "--min-table-size",
        "0",
        "--out",
        &out,
    ]);
    let text = read(&dir, "maintenance.sql");
    let md = read(&dir, "report.md");
    let maint = md.split("## Maintenance").nth(1).unwrap();
    let ranked: Vec<String> = maint
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| #"))
        .map(|l| l.split(" | ").nth(1).unwrap().trim_matches('`').to_string())
        .collect();
    let mut blocks: Vec<(String, Vec<String>, String)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("-- ").and_then(|l| l.split_once(". ")) {
            Some((n, rest)) if n.parse::<usize>().is_ok() => {
                assert_eq!(n.parse::<usize>().unwrap(), blocks.len() + 1, "{text}");
                let table = rest.split_once(": ").unwrap().0.to_string();
                blocks.push((table, Vec::new(), String::new()));
            }
            _ => {
                if let Some(b) = blocks.last_mut() {
                    if line.starts_with("--") {
                        b.1.push(line.to_string());
                    } else {
                        b.2.push_str(line);
                        b.2.push('\n');
                    }
                }
            }
        }
    }
    let order: Vec<String> = blocks.iter().map(|b| b.0.clone()).collect();
    assert_eq!(order, ranked, "{text}");
    let mut statements = 0;
    for (table, comments, script) in &blocks {
        let checked = sql::check_script(script).unwrap_or_else(|e| panic!("{e}\n{script}"));
        let short = table.strip_prefix("spark_catalog.").unwrap();
        for s in &checked {
            assert!(
                s.tables.iter().all(|t| t == &parts(short)),
                "{} touches {:?}",
                s.text,
                s.tables
            );
        }
        statements += checked.len();
        if !checked.is_empty() {
            let range = comments
                .iter()
                .find(|c| {
                    c.starts_with("-- measured on 2026-10-05T09:00:07Z .. 2026-12-01T05:59:33Z: ")
                })
                .unwrap_or_else(|| panic!("{table}: {comments:?}"));
            assert!(
                range.contains("a week") || range.contains("fewer file(s) to open"),
                "{range}"
            );
        }
    }
    assert!(statements >= 1, "{text}");
    let days: Vec<String> = (1..=16).map(|d| format!("'2026-11-{d:02}'")).collect();
    assert!(
        text.contains(&format!(
            "OPTIMIZE `shop`.`orders` WHERE `o_orderday` IN ({});",
            days.join(", ")
        )),
        "{text}"
    );
    assert!(
        text.contains("-- measured on 2026-10-05T09:00:07Z .. 2026-12-01T05:59:33Z: saves "),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    // By default: no rewrite of a table smaller than one target file.
    let dir = analyze_samples(&[], "maintenance-default");
    let text = read(&dir, "maintenance.sql");
    assert!(sql::check_script(&text).unwrap().is_empty(), "{text}");
    assert!(
        text.contains("-- 1. spark_catalog.shop.orders: left alone — nothing: the table (118.0 KiB in 48 files) is smaller than one target file (1.0 GiB), so a rewrite buys next to nothing; neither OPTIMIZE nor a purge runs (it has 48 small files to compact and 12 data files whose deletes passed their rule (58 rows deleted, 2.0% of its rows); --min-table-size 0 rewrites it)")
            || text.contains("spark_catalog.shop.orders: left alone — nothing: the table (118.0 KiB in 48 files)"),
        "{text}"
    );
    let md = read(&dir, "report.md");
    assert!(!md.contains("REORG"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 32.8: with `--min-table-size 0`, every join edge of the shop
/// sample is served, left out, skipped or priced by its tables'
/// measurements, with its reason in plan.json, report.md, report.html and
/// the plan text (with `--tables`, the shop's ten-run lineitem–orders
/// sort-merge join and the others were none of these).
#[test]
fn every_edge_is_served_or_said_why_not() {
    let (shop, wh) = (sample("shop"), sample("warehouse"));
    for (i, extra) in [
        &[][..],
        &["--tables", &wh],
        &["--tables", &wh, "--pricing", "assumed"],
    ]
    .into_iter()
    .enumerate()
    {
        let dir = scratch_dir(&format!("statements-every-edge-{i}"));
        let out = dir.to_string_lossy().into_owned();
        let mut args = vec!["analyze", &shop, "--min-table-size", "0", "--out", &out];
        args.extend_from_slice(extra);
        ok(&args);
        let plan: serde_json::Value = serde_json::from_str(&read(&dir, "plan.json")).unwrap();
        let mut said: Vec<String> = Vec::new();
        for t in plan["tables"].as_array().unwrap() {
            for e in t["edges_served"].as_array().unwrap() {
                said.push(e["edge"]["label"].as_str().unwrap().to_string());
            }
        }
        for l in plan["left_out"].as_array().unwrap() {
            said.push(l["label"].as_str().unwrap().to_string());
        }
        for k in plan["skipped"].as_array().unwrap() {
            said.push(k["edge"]["label"].as_str().unwrap().to_string());
        }
        for r in plan["replaced"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
        {
            assert!(!r["reason"].as_str().unwrap().is_empty(), "{r}");
            said.push(r["label"].as_str().unwrap().to_string());
        }
        let md = read(&dir, "report.md");
        let html = read(&dir, "report.html");
        let edges = read(&dir, "edges.csv");
        let mut rows = csv_rows(&edges);
        assert_eq!(rows.len(), 5, "{edges}");
        for r in rows.drain(..) {
            let cols = |c: &str| r[c].split([',', ';']).collect::<Vec<_>>().join(", ");
            let label = format!(
                "{}({}) = {}({})",
                r["left_table"],
                cols("left_columns"),
                r["right_table"],
                cols("right_columns")
            );
            assert!(
                said.contains(&label),
                "{extra:?}: {label} not in plan.json: {said:?}"
            );
            assert!(
                md.contains(&label),
                "{extra:?}: {label} not in report.md:\n{md}"
            );
        }
        if plan["replaced"].is_array() {
            assert!(html.contains(r#"<ul id="replaced">"#), "{extra:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The rows of a CSV with a header, as maps (no quoted commas in the
/// edges' cells but the column lists, which are quoted).
fn csv_rows(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = text.lines();
    let split = |l: &str| -> Vec<String> {
        let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
        for c in l.chars() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => out.push(std::mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        out.push(cur);
        out
    };
    let head = split(lines.next().unwrap());
    lines
        .map(|l| head.iter().cloned().zip(split(l)).collect())
        .collect()
}

/// A budget too small for the top edges: they are left out "over the budget".
#[test]
fn a_budget_leaves_edges_out_over_the_budget() {
    let dir = analyze_samples(&["--min-table-size", "0", "--budget", "200KB"], "budget");
    let md = read(&dir, "report.md");
    assert!(
        md.contains("stand-alone NPV 279.1 MiB): over the budget"),
        "{md}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// One table of each format through the planner's statement writer.
#[test]
fn statements_for_delta_iceberg_and_parquet_check_and_touch_only_their_table() {
    use planner::{ddl::table_sql, Layout, TableDecision, TableFormat};
    let d = |table: &str, previous: Layout, replace: bool| TableDecision {
        table: table.into(),
        keys: vec!["k`1".into(), "e_custkey".into()],
        previous,
        changed: true,
        replace,
        rewrite_bytes: 1,
        storage_bytes: 1,
        edges_served: vec![],
        npv_contribution: 1.0,
    };
    let cases = [
        (
            d(
                "spark_catalog.shop.orders",
                Layout::Partitioned(vec!["o_orderday".into()]),
                true,
            ),
            TableFormat::Delta,
        ),
        (
            d("spark_catalog.shop.lineitem", Layout::None, false),
            TableFormat::Delta,
        ),
        (
            d(
                "spark_catalog.shop.web_events",
                Layout::Partitioned(vec!["e_day".into()]),
                true,
            ),
            TableFormat::Iceberg,
        ),
        (
            d("shop.`we.ird`", Layout::None, false),
            TableFormat::Iceberg,
        ),
        (
            d("spark_catalog.default.lineitem", Layout::None, false),
            TableFormat::Files("parquet".into()),
        ),
    ];
    for (dec, format) in &cases {
        let t = table_sql(dec, format);
        let own = parts(&dec.table);
        let all: Vec<&String> = t.statements.iter().chain(&t.prerequisites).collect();
        assert!(!all.is_empty(), "{t:?}");
        for s in all {
            let c = sql::check_statement(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            // An Iceberg CALL in the default catalog names the table without it.
            let fits = |x: &Vec<String>| {
                *x == own || (own.len() == 2 && x[0] == sql::ICEBERG_CATALOG && x[1..] == own[..])
            };
            assert!(c.tables.iter().all(fits), "{s} touches {:?}", c.tables);
        }
        match format {
            TableFormat::Iceberg => {
                assert!(t
                    .statements
                    .iter()
                    .all(|s| !s.contains("REPLACE") && !s.contains("USING delta")));
                assert!(t.statements[0].contains("WRITE ORDERED BY `k``1` ASC NULLS FIRST"));
                assert!(t.statements[1].contains("strategy => 'sort'"));
            }
            TableFormat::Files(_) => {
                assert!(t.statements.is_empty());
                assert_eq!(
                    t.prerequisites,
                    ["CONVERT TO DELTA `spark_catalog`.`default`.`lineitem`"]
                );
            }
            _ => assert!(t.statements.last().unwrap().starts_with("ANALYZE TABLE")),
        }
    }
    let unknown = table_sql(&cases[0].0, &TableFormat::Unknown);
    assert!(unknown.statements.is_empty() && unknown.prerequisites.is_empty());
    assert!(unknown.note.unwrap().contains("format is not known"));
}

/// Issue 16 case 2 on a mutated copy of the real deltalake-written
/// `tables/warehouse/sales`: its `day` partition column made an integer,
/// one partition's value `1; DROP TABLE prod.payments; --`, another's `2`,
/// in a table directory whose name holds a backquote and a `;`. Every
/// statement written is one statement on that table; the hostile value's
/// statement is omitted with the reason.
#[test]
fn hostile_partition_values_and_names_never_become_statements() {
    let root = scratch_dir("statements-hostile");
    let name = "pay`ments; DROP TABLE prod.x; --";
    let log = root.join("evil.db").join(name).join("_delta_log");
    std::fs::create_dir_all(&log).unwrap();
    let src = testdata::data("tables/warehouse/sales/_delta_log");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let f = p.file_name().unwrap().to_string_lossy().into_owned();
        // Replay the JSON commits alone (the checkpoint holds the old schema).
        if !f.ends_with(".json") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let text = text
            .replace(
                r#"{\"name\":\"day\",\"type\":\"string\""#,
                r#"{\"name\":\"day\",\"type\":\"integer\""#,
            )
            .replace(
                r#""day":"2024-01-01""#,
                r#""day":"1; DROP TABLE prod.payments; --""#,
            )
            .replace(r#""day":"2024-01-02""#, r#""day":"2""#);
        std::fs::write(log.join(&f), text).unwrap();
    }
    let out = root.join("out");
    ok(&[
        "tables",
        &root.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--target-size",
        "1000000",
    ]);
    let rows: Vec<serde_json::Value> = read(&out, "compaction.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let own = vec!["evil".to_string(), name.to_string()];
    let mut checked = 0;
    let mut omitted = 0;
    for r in &rows {
        let stmt = r["statement"].as_str().unwrap();
        if r["reasons"].as_str().unwrap().contains("statement omitted") {
            assert_eq!(stmt, "", "{r}");
            omitted += 1;
        }
        if stmt.is_empty() || stmt.starts_with("--") {
            continue;
        }
        let c = sql::check_statement(stmt).unwrap_or_else(|e| panic!("{stmt}: {e}"));
        let fits =
            |x: &Vec<String>| *x == own || (x[0] == sql::ICEBERG_CATALOG && x[1..] == own[..]);
        assert!(c.tables.iter().all(fits), "{stmt} touches {:?}", c.tables);
        checked += 1;
    }
    assert!(omitted >= 1, "{rows:?}");
    assert!(checked >= 1, "{rows:?}");
    assert!(
        rows.iter().any(|r| r["statement"]
            .as_str()
            .unwrap()
            .ends_with("WHERE `day` = 2")),
        "{rows:?}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
