//! `lakeaudit tables` on real Delta and Iceberg tables written by
//! `scripts/make_table_fixtures.py` (deltalake, pyiceberg), compared with
//! the numbers delta-rs and pyiceberg reported for the same tables.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn warehouse() -> PathBuf {
    testdata::data("tables/warehouse")
}

/// The reference.json entries of one fixture warehouse (`warehouse` or
/// `thresholds`; an entry without a `warehouse` field is in `warehouse`).
fn reference(wh: &str) -> BTreeMap<String, Value> {
    let all: BTreeMap<String, Value> =
        serde_json::from_str(&testdata::read_to_string("tables/reference.json"))
            .expect("reference.json");
    all.into_iter()
        .filter(|(_, r)| r["warehouse"].as_str().unwrap_or("warehouse") == wh)
        .collect()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
        .args(args)
        .output()
        .expect("run lakeaudit")
}

fn records(o: &Output) -> BTreeMap<String, Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON line");
            (v["table"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch copy of the fixture warehouse the test may break.
fn scratch(name: &str) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let dst = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &dst);
            } else {
                fs::copy(e.path(), dst).unwrap();
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("lakeaudit-tables-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    copy(&warehouse(), &dir);
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn table_state_matches_delta_rs_and_pyiceberg() {
    let wh = warehouse();
    let o = run(&["tables", s(&wh)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = records(&o);
    let want = reference("warehouse");
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (table, r) in &want {
        let g = &got[table];
        for k in [
            "format",
            "files",
            "bytes",
            "rows_physical",
            "rows_live",
            "rows_deleted",
        ] {
            assert_eq!(g[k], r[k], "{table}.{k}");
        }
        if table != "ice.events" {
            assert_eq!(g["version_or_snapshot"], r["version"], "{table} version");
        } else {
            // A 64-bit snapshot id: compare as text (JSON numbers past 2^53).
            assert_eq!(
                g["version_or_snapshot"].to_string(),
                r["version"].to_string()
            );
        }
        // Every fixture file is far below the engines' default targets.
        assert_eq!(g["small_files"], g["files"], "{table}");
    }
    let dv = &got["orders_dv"];
    assert_eq!(dv["deletion_vectors"], 2);
    assert_eq!(dv["features"], "deletionVectors");
    assert_eq!(dv["format_version"], "3/7");
    assert_eq!(got["customers"]["clustering_columns"], "c_custkey;c_nation");
    assert_eq!(got["sales"]["partition_columns"], "day");
    // Checkpoint at 23, optimize at 24, two appends after it.
    assert_eq!(got["sales"]["commits_since_checkpoint"], 3);
    let ice = &got["ice.events"];
    assert_eq!(
        ice["pos_delete_files"],
        want["ice.events"]["pos_delete_files"]
    );
    assert_eq!(ice["partition_columns"], "region");
}

#[test]
fn outputs_in_a_directory_and_deletes_per_data_file() {
    let out = std::env::temp_dir().join(format!("lakeaudit-tables-out-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let o = run(&["tables", s(&warehouse()), "--out", s(&out), "--deep"]);
    assert!(o.status.success(), "--deep on valid DVs: {}", stderr(&o));
    let read = |n: &str| -> Vec<Value> {
        fs::read_to_string(out.join(n))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let deletes = read("deletes.jsonl");
    let want = reference("warehouse");
    let ice: Vec<&Value> = deletes
        .iter()
        .filter(|d| d["table"] == "ice.events")
        .collect();
    assert_eq!(
        ice.len() as u64,
        want["ice.events"]["data_files_with_deletes"]
            .as_u64()
            .unwrap()
    );
    let mut cards: Vec<u64> = deletes
        .iter()
        .filter(|d| d["table"] == "orders_dv")
        .map(|d| d["dv_cardinality"].as_u64().unwrap())
        .collect();
    cards.sort();
    let want_cards: Vec<u64> = want["orders_dv"]["dv_cardinalities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(cards, want_cards);
    // 13 of 100 and 3 of 40 rows deleted: both above Delta's 0.05.
    assert!(deletes
        .iter()
        .filter(|d| d["table"] == "orders_dv")
        .all(|d| d["verdict"] == "rewrite_now" && d["rule"] == "delta_max_deleted_rows_ratio"));
    // The file-scoped Iceberg delete: 5 of 30 rows, above Amoro's 0.1.
    let scoped: Vec<&&Value> = ice.iter().filter(|d| d["deleted_ratio"].is_f64()).collect();
    assert_eq!(scoped.len(), 1);
    assert_eq!(scoped[0]["deleted_rows"], 5);
    assert_eq!(scoped[0]["rule"], "amoro_segment_delete_ratio");
    let rollups = read("deletes_tables.jsonl");
    assert_eq!(rollups.len(), 4);
    // table_stats.csv is what --table-stats reads.
    let stats = fs::read_to_string(out.join("table_stats.csv")).unwrap();
    assert!(stats.starts_with("table,bytes,rows,files,partitioned_by,clustered_by\n"));
    assert!(
        stats.contains("\ncustomers,3401,200,1,,c_custkey;c_nation\n"),
        "{stats}"
    );
    let log = testdata::sample("spark4-plain");
    let o = run(&[
        "edges",
        s(&log),
        "--table-stats",
        s(&out.join("table_stats.csv")),
    ]);
    assert!(o.status.success(), "--table-stats reads it: {}", stderr(&o));
    let _ = fs::remove_dir_all(&out);
}

fn compaction(args: &[&str]) -> Vec<Value> {
    let out = std::env::temp_dir().join(format!(
        "lakeaudit-tables-c{}-{}",
        args.join("").len(),
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&out);
    let wh = warehouse();
    let mut a = vec!["tables", s(&wh), "--out", s(&out)];
    a.extend_from_slice(args);
    let o = run(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = fs::read_to_string(out.join("compaction.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let _ = fs::remove_dir_all(&out);
    rows
}

#[test]
fn compaction_on_real_tables_sits_on_the_file_count_triggers() {
    let rows = compaction(&["--policy", "iceberg"]);
    // Four files per region: one short of min-input-files 5, far from the
    // 512 MiB target: rewrite_data_files has nothing to do.
    let ice: Vec<&Value> = rows.iter().filter(|r| r["table"] == "ice.events").collect();
    assert_eq!(ice.len(), 3);
    for r in &ice {
        assert_eq!(r["files_before"], 4);
        assert_eq!(r["candidate_files"], 0, "{r}");
        assert!(r["reasons"]
            .as_str()
            .unwrap()
            .contains("fewer than 5 files"));
    }
    assert!(rows.iter().all(|r| r["policy"] == "iceberg"));
    // Amoro: the table holds exactly 12 fragment files, its minor trigger.
    let rows = compaction(&["--policy", "amoro"]);
    let eu = rows.iter().find(|r| r["partition"] == "region=eu").unwrap();
    assert_eq!(
        (
            eu["candidate_files"].as_u64(),
            eu["files_after_est"].as_u64()
        ),
        (Some(4), Some(1))
    );
    assert_eq!(eu["rows_purged"], 5);
    // Delta: nine small files per later day become one; the compacted day
    // is a single file and its bin is dropped.
    let rows = compaction(&["--policy", "delta"]);
    let day = |d: &str| {
        rows.iter()
            .find(|r| r["table"] == "sales" && r["partition"] == format!("day={d}"))
            .unwrap()
    };
    assert_eq!(day("2024-01-01")["candidate_files"], 0);
    let r = day("2024-01-02");
    assert_eq!(
        (
            r["candidate_files"].as_u64(),
            r["bins"].as_u64(),
            r["files_after_est"].as_u64()
        ),
        (Some(9), Some(1), Some(1))
    );
    assert_eq!(r["statement"], "OPTIMIZE sales WHERE day = '2024-01-02'");
    // Fabric's fast optimize: 9 files < 50 and far below 1.3 × 1 GiB.
    let rows = compaction(&["--policy", "fabric"]);
    assert!(rows
        .iter()
        .filter(|r| r["table"] == "sales")
        .all(|r| r["candidate_files"] == 0));
    // --target-size 6500: min = max = 6500 bytes; the ~2 KB files of a day
    // pack three to a bin (four would exceed it).
    let rows = compaction(&["--policy", "delta", "--target-size", "6500"]);
    let r = rows
        .iter()
        .find(|r| r["table"] == "sales" && r["partition"] == "day=2024-01-02")
        .unwrap();
    assert_eq!(r["target_size"], 6500);
    assert_eq!(
        (
            r["candidate_files"].as_u64(),
            r["bins"].as_u64(),
            r["files_after_est"].as_u64()
        ),
        (Some(9), Some(3), Some(3)),
        "{r}"
    );
}

#[test]
fn broken_tables_are_named_and_the_others_still_audited() {
    let wh = scratch("bad");
    // A missing commit.
    fs::remove_file(wh.join("sales/_delta_log/00000000000000000025.json")).unwrap();
    // A JSON commit with a broken line.
    let commit = wh.join("customers/_delta_log/00000000000000000001.json");
    let text = fs::read_to_string(&commit).unwrap();
    fs::write(&commit, format!("{text}{{\"add\":{{\"path\":\n")).unwrap();
    // A manifest that cannot be decoded.
    let meta = wh.join("ice.db/events/metadata");
    let manifest = fs::read_dir(&meta)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with("-m0.avro")
        })
        .expect("a manifest");
    fs::write(&manifest, b"Obj\x01 not really avro").unwrap();
    // A directory of Parquet files without metadata.
    fs::create_dir_all(wh.join("lost/p=1")).unwrap();
    fs::copy(
        fs::read_dir(wh.join("customers"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "parquet"))
            .unwrap(),
        wh.join("lost/p=1/part-0.parquet"),
    )
    .unwrap();
    // A DV whose bytes no longer match their CRC (seen with --deep).
    let dv = fs::read_dir(wh.join("orders_dv"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".bin"))
        .unwrap();
    let mut bytes = fs::read(&dv).unwrap();
    let n = bytes.len();
    bytes[n - 6] ^= 0x40;
    fs::write(&dv, bytes).unwrap();

    let o = run(&["tables", s(&wh), "--deep"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 5, "{err}");
    assert!(lines.iter().all(|l| l.starts_with("lakeaudit: ")));
    let has = |needle: &str| lines.iter().any(|l| l.contains(needle));
    assert!(has("00000000000000000025.json is missing"), "{err}");
    // The broken line is the commit's fourth.
    assert!(has(&format!("{}:4: ", s(&commit))), "{err}");
    assert!(
        has(&format!("{}: cannot be decoded as Avro", s(&manifest))),
        "{err}"
    );
    assert!(
        has(&format!(
            "{}: 1 data file(s) but no _delta_log/",
            s(&wh.join("lost"))
        )),
        "{err}"
    );
    assert!(
        has(&format!(
            "{}: deletion vector at offset 1: CRC-32 mismatch",
            s(&dv)
        )),
        "{err}"
    );
    // The DV table is still reported (its metadata is sound), as is nothing
    // else broken.
    let got = records(&o);
    assert_eq!(got.keys().collect::<Vec<_>>(), vec!["orders_dv"]);
    // _last_checkpoint naming a checkpoint that is not there.
    fs::write(
        wh.join("sales/_delta_log/_last_checkpoint"),
        "{\"version\":22,\"size\":30}",
    )
    .unwrap();
    let o = run(&["tables", s(&wh.join("sales"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("names checkpoint version 22 but the log holds no checkpoint file"),
        "{}",
        stderr(&o)
    );
    let _ = fs::remove_dir_all(&wh);
}

/// The real Spark 4.0.1 log that joins the fixture tables
/// (`scripts/make_tables_log.py`): sales.id = orders_dv.id and
/// customers.c_custkey = orders_dv.id, eight times each, as SortMergeJoin.
fn join_log() -> PathBuf {
    testdata::data("tables-join")
}

fn analyze(name: &str, extra: &[&str]) -> (PathBuf, String) {
    let out = std::env::temp_dir().join(format!("lakeaudit-integ-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let (log, wh) = (join_log(), warehouse());
    let mut args = vec![
        "analyze",
        log.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args.extend(["--tables", wh.to_str().unwrap()]);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    (out, report)
}

/// The Maintenance table's row for a table: `(rank, step, statement cell)`.
fn maintenance_row(report: &str, table: &str) -> Option<(usize, String, String)> {
    let section = report.split("## Maintenance").nth(1)?;
    let section = section.split("\n## ").next()?;
    section.lines().find_map(|l| {
        let cells: Vec<&str> = l.split(" | ").map(str::trim).collect();
        (cells.len() >= 10 && cells[1] == format!("`{table}`")).then(|| {
            (
                cells[0].trim_start_matches("| ").parse().unwrap(),
                cells[2].to_string(),
                cells[9].trim_end_matches(" |").to_string(),
            )
        })
    })
}

#[test]
fn analyze_with_tables_plans_from_real_sizes_and_subsumes_compaction_in_reclusters() {
    let (out, report) = analyze("full", &[]);
    for f in [
        "table_state.csv",
        "compaction.csv",
        "deletes.csv",
        "plan.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    // Sizes come from the tables, not the scans: sales' rewrite is its live
    // Delta bytes (reference.json), which the log's parquet reads never saw.
    let plan: Value =
        serde_json::from_str(&fs::read_to_string(out.join("plan.json")).unwrap()).unwrap();
    let sales_bytes = reference("warehouse")["sales"]["bytes"].as_u64().unwrap();
    let decisions = plan["tables"].as_array().unwrap();
    let sales = decisions
        .iter()
        .find(|t| t["table"] == "spark_catalog.default.sales")
        .expect("sales in the plan");
    assert_eq!(sales["rewrite_bytes"].as_u64(), Some(sales_bytes));
    // customers is clustered on (c_custkey, c_nation); the workload joins
    // it on c_custkey alone: key drift, said in the report.
    assert!(
        report.contains("(key drift: now clustered on (c_custkey, c_nation))"),
        "{report}"
    );
    // sales has small files the Delta policy would OPTIMIZE, but the plan
    // reclusters it: one recluster step, no separate compaction.
    let compaction = fs::read_to_string(out.join("compaction.csv")).unwrap();
    assert!(compaction
        .lines()
        .any(|l| l.starts_with("sales,") && l.contains(",delta,") && l.contains("OPTIMIZE")));
    let (_, step, stmt) =
        maintenance_row(&report, "spark_catalog.default.sales").expect("sales step");
    assert_eq!(
        (step.as_str(), stmt.as_str()),
        ("recluster", "`see plan.sql`")
    );
    assert!(!report.contains("OPTIMIZE sales"), "{report}");
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains(r#"<section id="maintenance">"#));
    assert!(html.contains("key drift from (c_custkey, c_nation)"));
    let _ = fs::remove_dir_all(out);
}

#[test]
fn tables_the_plan_leaves_alone_get_their_own_compaction_ranked_by_value() {
    // A rewrite budget that buys customers and orders_dv but not sales.
    let (out, report) = analyze("budget", &["--budget", "9000"]);
    let (rank, step, stmt) =
        maintenance_row(&report, "spark_catalog.default.sales").expect("sales step");
    assert_eq!(step, "compact", "{report}");
    assert!(stmt.contains("OPTIMIZE sales WHERE"), "{stmt}");
    // sales is read most by the logged joins and is all small files: first.
    assert_eq!(rank, 1, "{report}");
    let (_, step, _) =
        maintenance_row(&report, "spark_catalog.default.orders_dv").expect("orders_dv step");
    assert_eq!(step, "recluster");
    let _ = fs::remove_dir_all(out);
}
