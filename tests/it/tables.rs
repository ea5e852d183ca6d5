//! `lakeaudit tables` on real Delta and Iceberg tables written by
//! `scripts/make_table_fixtures.py` (deltalake, pyiceberg), compared with
//! the numbers delta-rs and pyiceberg reported for the same tables. The
//! tables of `tables/thresholds` sit exactly on the compaction policies'
//! and the delete verdicts' thresholds.

use crate::common::{copy_dir, run, scratch_dir, stderr};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

fn warehouse() -> PathBuf {
    testdata::data("tables/warehouse")
}

/// The threshold tables (`tables/thresholds`).
fn thresholds() -> PathBuf {
    testdata::data("tables/thresholds")
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

fn records(o: &Output) -> BTreeMap<String, Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON line");
            (v["table"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

/// A scratch copy of the fixture warehouse the test may break.
fn scratch(name: &str) -> PathBuf {
    scratch_of(&warehouse(), name)
}

/// A scratch copy of a fixture directory the test may break.
fn scratch_of(src: &Path, name: &str) -> PathBuf {
    let dir = scratch_dir(&format!("tables-{name}"));
    copy_dir(src, &dir);
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `lakeaudit tables DIR` against what delta-rs and pyiceberg reported:
/// the same tables, and per table its format, files, bytes, physical,
/// live and deleted rows and version or snapshot (compared as text: a
/// snapshot id passes 2^53). Returns the records, by table.
fn assert_matches_readers(
    dir: &Path,
    want: &BTreeMap<String, Value>,
    extra: &[&str],
) -> BTreeMap<String, Value> {
    let mut args = vec!["tables", s(dir)];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = records(&o);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (table, r) in want {
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
        assert_eq!(
            g["version_or_snapshot"].to_string(),
            r["version"].to_string(),
            "{table} version"
        );
    }
    got
}

#[test]
fn table_state_matches_delta_rs_and_pyiceberg() {
    let want = reference("warehouse");
    let got = assert_matches_readers(&warehouse(), &want, &[]);
    for table in want.keys() {
        let g = &got[table];
        // Every fixture file is far below the engines' default targets.
        assert_eq!(g["small_files"], g["files"], "{table}");
    }
    let dv = &got["orders_dv"];
    assert_eq!(dv["deletion_vectors"], 2);
    assert_eq!(dv["features"], json!(["deletionVectors"]));
    assert_eq!(dv["format_version"], "3/7");
    // Lists are JSON arrays in JSON lines.
    assert_eq!(
        got["customers"]["clustering_columns"],
        json!(["c_custkey", "c_nation"])
    );
    assert_eq!(got["sales"]["partition_columns"], json!(["day"]));
    // Checkpoint at 23, optimize at 24, two appends after it.
    assert_eq!(got["sales"]["commits_since_checkpoint"], 3);
    let ice = &got["ice.events"];
    assert_eq!(
        ice["pos_delete_files"],
        want["ice.events"]["pos_delete_files"]
    );
    assert_eq!(ice["partition_columns"], json!(["region"]));
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
    // --deep attributes every Iceberg delete: the file-scoped one deletes 5
    // of 30 rows, above Amoro's 0.1; the partition-scoped file 2 and 3 rows
    // of two others, under every rule.
    let mut known: Vec<(u64, &str)> = ice
        .iter()
        .map(|d| {
            assert!(d["deleted_ratio"].is_f64(), "{d}");
            (
                d["deleted_rows"].as_u64().unwrap(),
                d["rule"].as_str().unwrap(),
            )
        })
        .collect();
    known.sort();
    assert_eq!(known, [(2, ""), (3, ""), (5, "amoro_segment_delete_ratio")]);
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
    // Amoro: the table holds 12 fragment files, its minor trigger, but the
    // trigger counts one partition's (apache/amoro 96a4d781,
    // AbstractOptimizingEvaluator.java:130-134, one evaluator per partition;
    // CommonPartitionEvaluator.java:407-411): 4 each, nothing runs.
    let rows = compaction(&["--policy", "amoro"]);
    let ice: Vec<&Value> = rows.iter().filter(|r| r["table"] == "ice.events").collect();
    assert_eq!(ice.len(), 3);
    for r in &ice {
        assert_eq!(
            (r["candidate_files"].as_u64(), r["files_after_est"].as_u64()),
            (Some(0), Some(4)),
            "{r}"
        );
        assert!(
            reasons(r).starts_with("4 fragment + equality-delete files in the partition < 12"),
            "{r}"
        );
    }
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
    assert_eq!(
        r["statement"],
        "OPTIMIZE `sales` WHERE `day` = '2024-01-02'"
    );
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
        // The fixture tables are far below one target file.
        "--min-table-size",
        "0",
        // How the maintenance plan meets the layout plan, on the paper's
        // pricing (the fixture's few-row files have nothing to skip).
        "--pricing",
        "assumed",
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
        (cells.len() >= 11 && cells[1] == format!("`{table}`")).then(|| {
            (
                cells[0].trim_start_matches("| ").parse().unwrap(),
                cells[2].to_string(),
                cells[10].trim_end_matches(" |").to_string(),
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
        ("recluster", "see `plan.sql`")
    );
    assert!(!report.contains("OPTIMIZE `sales`"), "{report}");
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
    assert!(stmt.contains("OPTIMIZE `sales` WHERE"), "{stmt}");
    // sales is read most by the logged joins and is all small files: first.
    assert_eq!(rank, 1, "{report}");
    let (_, step, _) =
        maintenance_row(&report, "spark_catalog.default.orders_dv").expect("orders_dv step");
    assert_eq!(step, "recluster");
    let _ = fs::remove_dir_all(out);
}

/// `--deep` opens a partition-scoped position delete file (the `us` file
/// of ice.events deletes rows 5 and 6 of one data file and 0, 10 and 20 of
/// another; `scripts/make_table_fixtures.py`) and attributes its rows to
/// each data file, where metadata alone leaves them unknown.
#[test]
fn deep_reads_partition_scoped_position_deletes_per_data_file() {
    let table = warehouse().join("ice.db/events");
    let per_file = |deep: bool| -> Vec<(u64, u64, String)> {
        let out = std::env::temp_dir().join(format!(
            "lakeaudit-tables-deep{deep}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&out);
        let mut args = vec!["tables", s(&table), "--out", s(&out)];
        if deep {
            args.push("--deep");
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let mut rows: Vec<(u64, u64, String)> = fs::read_to_string(out.join("deletes.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|r| r["partition"] == "region=us")
            .map(|r| {
                (
                    r["pos_delete_rows"].as_u64().unwrap(),
                    r["deleted_rows"].as_u64().unwrap(),
                    r["verdict"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        rows.sort();
        let _ = fs::remove_dir_all(&out);
        rows
    };
    // From metadata: the file's 5 records may fall on either data file.
    assert_eq!(
        per_file(false),
        [(5, 0, "watch".to_string()), (5, 0, "watch".to_string())]
    );
    // Opened: 2 and 3 rows, 2/30 and 3/30 of each file, under every rule.
    assert_eq!(
        per_file(true),
        [(2, 2, "ok".to_string()), (3, 3, "ok".to_string())]
    );
}

/// What `lakeaudit tables WH --out DIR ARGS` writes: the records of
/// table_state, compaction, deletes and deletes_tables by file stem.
fn audit(wh: &Path, tag: &str, args: &[&str]) -> BTreeMap<&'static str, Vec<Value>> {
    let out = std::env::temp_dir().join(format!("lakeaudit-th-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let mut a = vec!["tables", s(wh), "--out", s(&out)];
    a.extend_from_slice(args);
    let o = run(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = ["table_state", "compaction", "deletes", "deletes_tables"]
        .into_iter()
        .map(|n| {
            let text = fs::read_to_string(out.join(format!("{n}.jsonl"))).unwrap();
            (
                n,
                text.lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect(),
            )
        })
        .collect();
    let _ = fs::remove_dir_all(&out);
    got
}

/// The compaction row of a table's partition under a policy.
fn row<'a>(rows: &'a [Value], table: &str, partition: &str, policy: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["table"] == table && r["partition"] == partition && r["policy"] == policy)
        .unwrap_or_else(|| panic!("no {policy} row for {table} {partition}"))
}

/// `(candidate_files, bins, files_after_est)`.
fn plan(r: &Value) -> (u64, u64, u64) {
    (
        r["candidate_files"].as_u64().unwrap(),
        r["bins"].as_u64().unwrap(),
        r["files_after_est"].as_u64().unwrap(),
    )
}

fn reasons(r: &Value) -> &str {
    r["reasons"].as_str().unwrap()
}

/// A fixture's file sizes per partition as the writer's reader reported
/// them: the tests below hold only while the files sit where they should.
fn file_sizes(t: &Value) -> BTreeMap<String, Vec<u64>> {
    serde_json::from_value(t["file_sizes"].clone()).unwrap()
}

#[test]
fn threshold_tables_match_delta_rs_and_pyiceberg() {
    let want = reference("thresholds");
    let got = assert_matches_readers(&thresholds(), &want, &[]);
    for table in want.keys() {
        let g = &got[table];
        assert_eq!(g["violations"], 0, "{table}");
    }
    // The small-file size comes from each table's own property: Delta's
    // minFileSize is delta.targetFileSize; Iceberg's is 0.75 × 4001
    // truncated (3000.75), as Java's (long) cast does.
    let dt = &got["delta_target"];
    assert_eq!(
        dt["small_file_threshold"],
        want["delta_target"]["target_file_size"]
    );
    assert_eq!(dt["small_file_threshold"], 4000);
    // Every file but the one of exactly 4000 bytes.
    assert_eq!(dt["small_files"], 7);
    // 2999 and the four files of 2000-2002 bytes; not 3000.
    let sizes = &got["ice.sizes"];
    assert_eq!(sizes["small_file_threshold"], 3000);
    assert_eq!(
        (sizes["small_files"].as_u64(), sizes["small_bytes"].as_u64()),
        (Some(5), Some(2999 + 2000 + 2001 + 2000 + 2002))
    );
    let dv = &got["delta_dv_ratio"];
    assert_eq!(dv["deletion_vectors"], 3);
}

#[test]
fn delta_and_fabric_compaction_sit_on_the_target_file_size() {
    let want = &reference("thresholds")["delta_target"];
    assert_eq!(want["target_file_size"], 4000);
    let sizes = file_sizes(want);
    assert_eq!(sizes["p=fit"], [2000, 2000]);
    assert_eq!(sizes["p=over"], [2000, 2001]);
    assert_eq!(sizes["p=half"], [1999, 2000]);
    assert_eq!(sizes["p=edge"], [3999, 4000]);
    let rows = &audit(&thresholds(), "delta", &["--policy", "delta"])["compaction"];
    let r = |p: &str| row(rows, "delta_target", p, "delta");
    // min = max = delta.targetFileSize 4000, read from the table.
    assert!(rows
        .iter()
        .filter(|r| r["table"] == "delta_target")
        .all(|r| r["target_size"] == 4000));
    // 2000 + 2000 fills a bin exactly: one output file.
    assert_eq!(plan(r("p=fit")), (2, 1, 1));
    assert_eq!(r("p=fit")["bytes_to_rewrite"], 4000);
    assert_eq!(
        r("p=fit")["statement"],
        "OPTIMIZE `delta_target` WHERE `p` = 'fit'"
    );
    // One byte more: each file alone in its bin, both bins dropped.
    assert_eq!(plan(r("p=over")), (0, 0, 2));
    assert_eq!(
        reasons(r("p=over")),
        "2 file(s) < minFileSize 4000; single-file bin dropped; single-file bin dropped"
    );
    // 3999 is small, 4000 is not (and alone it is dropped).
    assert_eq!(plan(r("p=edge")), (0, 0, 2));
    assert_eq!(
        reasons(r("p=edge")),
        "1 file(s) < minFileSize 4000; single-file bin dropped"
    );
    // Fabric: a file of at least target / 2 = 2000 bytes is kept; 1999 is
    // not, but a bin of one file is dropped, and no bin reaches 50 files.
    let rows = &audit(&thresholds(), "fabric", &["--policy", "fabric"])["compaction"];
    let r = |p: &str| row(rows, "delta_target", p, "fabric");
    assert!(rows
        .iter()
        .filter(|r| r["table"] == "delta_target")
        .all(|r| r["candidate_files"] == 0));
    assert!(reasons(r("p=fit")).starts_with("2 file(s) ≥ ½ target kept"));
    assert_eq!(
        reasons(r("p=half")),
        "1 file(s) < minFileSize 4000; 1 file(s) ≥ ½ target kept (file-level target); single-file bin dropped"
    );
    // --target-size overrides the property: at 4001, 2000 + 2001 fits a
    // bin and the 4000-byte file is small.
    let rows = &audit(
        &thresholds(),
        "delta4001",
        &["--policy", "delta", "--target-size", "4001"],
    )["compaction"];
    let r = |p: &str| row(rows, "delta_target", p, "delta");
    assert_eq!(r("p=over")["target_size"], 4001);
    assert_eq!(plan(r("p=over")), (2, 1, 1));
    assert!(reasons(r("p=edge")).starts_with("2 file(s) < minFileSize 4001"));
}

#[test]
fn fabric_fast_optimize_runs_a_bin_of_fifty_files_not_forty_nine() {
    let want = &reference("thresholds")["fabric_files"];
    assert_eq!(want["files_per_partition"]["n=49"], 49);
    assert_eq!(want["files_per_partition"]["n=50"], 50);
    let rows = &audit(&thresholds(), "fifty", &[])["compaction"];
    let r = |p: &str, policy: &str| row(rows, "fabric_files", p, policy);
    // Delta OPTIMIZE compacts both partitions.
    assert_eq!(plan(r("n=49", "delta")), (49, 1, 1));
    assert_eq!(plan(r("n=50", "delta")), (50, 1, 1));
    // Fabric's fast optimize: 49 one-row files are neither 50 files nor
    // 1.3 × 1 GiB, so the bin is skipped; 50 files run.
    assert_eq!(plan(r("n=49", "fabric")), (0, 0, 49));
    assert!(
        reasons(r("n=49", "fabric")).contains("fast optimize skips a bin of 49 files"),
        "{}",
        reasons(r("n=49", "fabric"))
    );
    assert_eq!(plan(r("n=50", "fabric")), (50, 1, 1));
    assert_eq!(
        r("n=50", "fabric")["statement"],
        "OPTIMIZE `fabric_files` WHERE `n` = '50'"
    );
}

#[test]
fn delta_deleted_rows_ratio_five_percent_of_a_file_is_over() {
    let want = &reference("thresholds")["delta_dv_ratio"];
    let out = audit(&thresholds(), "dvratio", &["--deep"]);
    let deletes: Vec<&Value> = out["deletes"]
        .iter()
        .filter(|d| d["table"] == "delta_dv_ratio")
        .collect();
    // Per file: (rows, DV cardinality, verdict). Delta's ratio is
    // 1 − live / physical: 5 of 100 is 0.050000000000000044 > 0.05.
    let mut got: Vec<(u64, u64, &str)> = deletes
        .iter()
        .map(|d| {
            (
                d["file_rows"].as_u64().unwrap(),
                d["dv_cardinality"].as_u64().unwrap(),
                d["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (99, 5, "rewrite_now"),
            (100, 5, "rewrite_now"),
            (101, 5, "ok")
        ]
    );
    // The cardinalities are the rows delta-rs's scan drops from each file.
    for (label, rows) in [("under", 101), ("exact", 100), ("over", 99)] {
        let f = &want["per_file"][label];
        assert_eq!(
            (f["rows"].as_u64(), f["deleted"].as_u64()),
            (Some(rows), Some(5))
        );
    }
    assert!(deletes
        .iter()
        .filter(|d| d["verdict"] == "rewrite_now")
        .all(|d| d["rule"] == "delta_max_deleted_rows_ratio"));
    let rollup = out["deletes_tables"]
        .iter()
        .find(|r| r["table"] == "delta_dv_ratio")
        .unwrap();
    assert_eq!(
        (rollup["rewrite_now"].as_u64(), rollup["ok"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(rollup["deleted_rows"], want["rows_deleted"]);
    // With a target no file is below, only the deleted-rows ratio picks
    // files: the two over 0.05. Each sits alone in its bin, which OPTIMIZE
    // drops (REORG TABLE … APPLY (PURGE) rewrites them: the verdict).
    let rows = &audit(
        &thresholds(),
        "dvratio1",
        &["--policy", "delta", "--target-size", "1"],
    )["compaction"];
    let r = row(rows, "delta_dv_ratio", "", "delta");
    assert_eq!(plan(r), (0, 0, 3));
    assert!(
        reasons(r).starts_with("2 file(s) with deleted-rows ratio > 0.05;"),
        "{}",
        reasons(r)
    );
}

#[test]
fn three_deletion_vectors_in_one_delta_file_are_checked_at_their_offsets() {
    let wh = scratch_of(&thresholds(), "dvoffsets");
    let table = wh.join("delta_dv_ratio");
    let bin = fs::read_dir(&table)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".bin"))
        .unwrap();
    let mut bytes = fs::read(&bin).unwrap();
    // Version byte, then (size, DV, CRC) three times.
    let size_at =
        |b: &[u8], at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let second = 1 + 8 + size_at(&bytes, 1);
    let third = second + 8 + size_at(&bytes, second);
    assert_eq!(third + 8 + size_at(&bytes, third), bytes.len());
    bytes[second + 10] ^= 0x01;
    fs::write(&bin, bytes).unwrap();
    let o = run(&["tables", s(&table), "--deep"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{}: deletion vector at offset {second}: CRC-32 mismatch",
            s(&bin)
        )),
        "{err}"
    );
    let _ = fs::remove_dir_all(&wh);
}

#[test]
fn iceberg_rewrite_sits_on_min_max_and_five_input_files() {
    let want = reference("thresholds");
    let sizes = &want["ice.sizes"];
    assert_eq!(
        (
            sizes["target_file_size"].as_u64(),
            sizes["amoro_target_size"].as_u64()
        ),
        (Some(4001), Some(24000))
    );
    let by_part = file_sizes(sizes);
    assert_eq!(by_part["part=lo"], [2999, 3000]);
    assert_eq!(by_part["part=hi"], [7201, 7202]);
    assert_eq!(by_part["part=eq"], [2000, 2001]);
    assert_eq!(by_part["part=gt"], [2000, 2002]);
    let rows = &audit(&thresholds(), "ice", &[])["compaction"];
    let r = |t: &str, p: &str, policy: &str| row(rows, t, p, policy);
    // write.target-file-size-bytes 4001: min 3000, max 7201. 2999 is the
    // only candidate of lo, alone and not over the target: no rewrite.
    let lo = r("ice.sizes", "part=lo", "iceberg");
    assert_eq!(lo["target_size"], 4001);
    assert_eq!(plan(lo), (0, 0, 2));
    assert!(
        reasons(lo).starts_with("group of 1 file(s), 2999 bytes"),
        "{}",
        reasons(lo)
    );
    // 7202 > max: rewritten alone into two files (remainder 3201 > min).
    let hi = r("ice.sizes", "part=hi", "iceberg");
    assert_eq!(plan(hi), (1, 1, 3));
    assert_eq!(hi["bytes_to_rewrite"], 7202);
    assert_eq!(reasons(hi), "7202 bytes > max 7201");
    assert!(hi["statement"]
        .as_str()
        .unwrap()
        .contains(r"map('target-file-size-bytes', '4001'), where => '`part` = \'hi\''"));
    // More than one file and more bytes than the target: 2000 + 2002 runs
    // (into one file), 2000 + 2001 (exactly the target) does not.
    let gt = r("ice.sizes", "part=gt", "iceberg");
    assert_eq!(plan(gt), (2, 1, 1));
    assert_eq!(reasons(gt), "2 files, 4002 bytes > target");
    let eq = r("ice.sizes", "part=eq", "iceberg");
    assert_eq!(plan(eq), (0, 0, 2));
    assert!(
        reasons(eq).starts_with("group of 2 file(s), 4001 bytes"),
        "{}",
        reasons(eq)
    );
    // Amoro, self-optimizing.target-size 24000: fragments are files of at
    // most 3000 bytes (`isFragmentFile`: size <= target / 8): the four
    // files of eq and gt, 2999 and 3000.
    let lo = r("ice.sizes", "part=lo", "amoro");
    assert_eq!(lo["target_size"], 24000);
    assert!(
        reasons(lo).starts_with("2 fragment + equality-delete files in the partition < 12"),
        "{}",
        reasons(lo)
    );
    // min-input-files 5: five small files are rewritten, four are not.
    let counts = &want["ice.counts"]["files_per_partition"];
    assert_eq!(
        (counts["part=four"].as_u64(), counts["part=five"].as_u64()),
        (Some(4), Some(5))
    );
    let five = r("ice.counts", "part=five", "iceberg");
    assert_eq!(plan(five), (5, 1, 1));
    assert_eq!(reasons(five), "5 files ≥ min-input-files 5");
    let four = r("ice.counts", "part=four", "iceberg");
    assert_eq!(plan(four), (0, 0, 4));
    assert!(reasons(four).contains("fewer than 5 files"));
    // 2, 4 and 5 fragments: short of Amoro's minor trigger of 12, which
    // counts one partition's files.
    for (p, n) in [("part=two", 2), ("part=four", 4), ("part=five", 5)] {
        let a = r("ice.counts", p, "amoro");
        assert_eq!(a["candidate_files"], 0);
        assert!(
            reasons(a).starts_with(&format!(
                "{n} fragment + equality-delete files in the partition < 12"
            )),
            "{}",
            reasons(a)
        );
    }
}

#[test]
fn iceberg_position_delete_ratios_sit_on_point_three_and_point_one() {
    let want = &reference("thresholds")["ice.pos_ratio"];
    let out = audit(&thresholds(), "posratio", &[]);
    let d = |p: &str| {
        out["deletes"]
            .iter()
            .find(|d| d["table"] == "ice.pos_ratio" && d["partition"] == p)
            .unwrap_or_else(|| panic!("no deletes row for {p}"))
    };
    // The deleted rows of each file are the rows pyiceberg's scan drops.
    for f in want["per_file"].as_array().unwrap() {
        let p = f["partition"].as_str().unwrap();
        assert_eq!(d(p)["deleted_rows"], f["deleted"], "{p}");
        assert_eq!(d(p)["file_rows"], f["rows"], "{p}");
    }
    let verdict = |p: &str| {
        (
            d(p)["verdict"].as_str().unwrap(),
            d(p)["rule"].as_str().unwrap(),
        )
    };
    // 30 of 100 reaches rewrite_data_files' 0.3 (>=); 29 does not.
    assert_eq!(
        verdict("part=del30"),
        ("rewrite_now", "iceberg_delete_ratio_threshold")
    );
    assert_eq!(d("part=del30")["deleted_ratio"], 0.3);
    assert_eq!(
        verdict("part=del29"),
        ("watch", "amoro_segment_delete_ratio")
    );
    // Amoro's 0.1 is exclusive: 11 % is watched, 10 % is fine.
    assert_eq!(
        verdict("part=del11"),
        ("watch", "amoro_segment_delete_ratio")
    );
    assert_eq!(verdict("part=del10"), ("ok", ""));
    let rows = &out["compaction"];
    let r = |p: &str| row(rows, "ice.pos_ratio", p, "iceberg");
    assert_eq!(plan(r("part=del30")), (1, 1, 1));
    assert_eq!(r("part=del30")["rows_purged"], 30);
    assert_eq!(
        reasons(r("part=del30")),
        "1 file(s) with delete ratio ≥ 0.3"
    );
    assert_eq!(r("part=del29")["candidate_files"], 0);
    // With a target of 1900 every file lies within [min 1425, max 3420]:
    // the delete ratio alone makes the 30 % file a candidate.
    for f in want["per_file"].as_array().unwrap() {
        assert!((1425..=3420).contains(&f["bytes"].as_u64().unwrap()), "{f}");
    }
    let rows = &audit(
        &thresholds(),
        "posratio1900",
        &["--policy", "iceberg", "--target-size", "1900"],
    )["compaction"];
    let r = |p: &str| row(rows, "ice.pos_ratio", p, "iceberg");
    assert_eq!(plan(r("part=del30")), (1, 1, 1));
    assert_eq!(
        reasons(r("part=del30")),
        "1 file(s) with delete ratio ≥ 0.3"
    );
    assert_eq!(plan(r("part=del29")), (0, 0, 1));
    assert_eq!(
        reasons(r("part=del29")),
        "every file within [1425, 3420] bytes"
    );
    // Amoro rewrites a segment file (> target / 8 = 1 byte here) whose
    // position deletes exceed 0.1 of its rows, alone in its partition and
    // with no fragment beside it (issue 32, item 12): apache/amoro
    // 96a4d781aac60c4080b3f4a41322848e2308649a, optimizing/plan/
    // CommonPartitionEvaluator.java:199-208 and :270-271 (position delete
    // records > records × duplicate-ratio 0.1) make it a rewrite segment,
    // :403-405 the partition major-necessary; AbstractPartitionPlan.java
    // :386-392 packs it into a task and IcebergPartitionPlan.java:74-80
    // keeps a one-file task that carries delete files. At 10 % its deletes
    // alone would be rewritten (CommonPartitionEvaluator.java:291-293),
    // which triggers nothing.
    let rows = &audit(
        &thresholds(),
        "posratio8",
        &["--policy", "amoro", "--target-size", "8"],
    )["compaction"];
    let got: Vec<(&str, u64)> = ["part=del10", "part=del11", "part=del29", "part=del30"]
        .into_iter()
        .map(|p| {
            (
                p,
                row(rows, "ice.pos_ratio", p, "amoro")["candidate_files"]
                    .as_u64()
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("part=del10", 0),
            ("part=del11", 1),
            ("part=del29", 1),
            ("part=del30", 1)
        ]
    );
    for (p, n) in [("part=del29", 29), ("part=del30", 30)] {
        // One task rewriting the file into files of the 8-byte target.
        let r = row(rows, "ice.pos_ratio", p, "amoro");
        let bytes = r["bytes_to_rewrite"].as_u64().unwrap();
        assert_eq!(plan(r), (1, 1, bytes.div_ceil(8)), "{}", reasons(r));
        assert_eq!(r["rows_purged"], n);
    }
}

#[test]
fn iceberg_v3_deletion_vectors_match_pyiceberg() {
    let want = &reference("thresholds")["ice.dvs"];
    assert_eq!(want["format_version"], 3);
    let out = audit(&thresholds(), "v3", &["--deep"]);
    let t = out["table_state"]
        .iter()
        .find(|t| t["table"] == "ice.dvs")
        .unwrap();
    assert_eq!(t["format_version"], "3");
    assert_eq!(t["features"], json!(["deletion-vectors"]));
    for (k, r) in [
        ("deletion_vectors", "deletion_vectors"),
        ("dv_bytes", "dv_bytes"),
        ("pos_delete_files", "pos_delete_files"),
        ("rows_deleted", "rows_deleted"),
        ("rows_live", "rows_live"),
    ] {
        assert_eq!(t[k], want[r], "{k}");
    }
    // The v2 position delete file the upgraded table keeps is valid (only
    // files added after the upgrade break the rule), and the one the first
    // DV replaced is gone (DELETED in the v3 snapshot).
    assert_eq!(t["violations"], 0);
    let rollup = out["deletes_tables"]
        .iter()
        .find(|r| r["table"] == "ice.dvs")
        .unwrap();
    assert_eq!(rollup["violations"], "");
    assert_eq!(
        (
            rollup["delete_files"].as_u64(),
            rollup["deletion_vectors"].as_u64()
        ),
        (Some(1), Some(2))
    );
    // Per data file with deletes: pyiceberg's scan drops exactly these rows.
    // A DV applies only to its referenced_data_file: the second eu file has
    // none, though pyiceberg's planner lists the Puffin file for it.
    let deletes: Vec<&Value> = out["deletes"]
        .iter()
        .filter(|d| d["table"] == "ice.dvs")
        .collect();
    let mut got: Vec<(String, u64, u64, u64, u64)> = deletes
        .iter()
        .map(|d| {
            (
                d["partition"].as_str().unwrap().to_string(),
                d["deleted_rows"].as_u64().unwrap(),
                d["dvs"].as_u64().unwrap(),
                d["dv_cardinality"].as_u64().unwrap(),
                d["pos_delete_files"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    let mut expect: Vec<(String, u64)> = want["per_file"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["deleted"].as_u64() > Some(0))
        .map(|f| {
            (
                f["partition"].as_str().unwrap().to_string(),
                f["deleted"].as_u64().unwrap(),
            )
        })
        .collect();
    expect.sort();
    assert_eq!(
        got.iter().map(|g| (g.0.clone(), g.1)).collect::<Vec<_>>(),
        expect
    );
    assert_eq!(
        got,
        [
            ("region=apac".to_string(), 5, 0, 0, 1),
            ("region=eu".to_string(), 30, 1, 30, 0),
            ("region=us".to_string(), 29, 1, 29, 0),
        ]
    );
    let mut cards: Vec<u64> = deletes
        .iter()
        .filter(|d| d["dvs"] == 1)
        .map(|d| d["dv_cardinality"].as_u64().unwrap())
        .collect();
    cards.sort();
    let want_cards: Vec<u64> = serde_json::from_value(want["dv_cardinalities"].clone()).unwrap();
    assert_eq!(cards, want_cards);
    // The verdicts on the DVs: 30 of 100 reaches 0.3, 29 is watched.
    let verdict = |p: &str| {
        let d = deletes.iter().find(|d| d["partition"] == p).unwrap();
        (d["verdict"].as_str().unwrap(), d["rule"].as_str().unwrap())
    };
    assert_eq!(
        verdict("region=eu"),
        ("rewrite_now", "iceberg_delete_ratio_threshold")
    );
    assert_eq!(
        verdict("region=us"),
        ("watch", "amoro_segment_delete_ratio")
    );
    assert_eq!(verdict("region=apac"), ("ok", ""));
    // rewrite_data_files: the DV'd eu file (ratio 0.3) and the small file
    // beside it; the us file alone is not rewritten.
    let rows = &out["compaction"];
    let eu = row(rows, "ice.dvs", "region=eu", "iceberg");
    assert_eq!(
        (plan(eu), eu["rows_purged"].as_u64()),
        ((2, 1, 1), Some(30))
    );
    assert_eq!(
        row(rows, "ice.dvs", "region=us", "iceberg")["candidate_files"],
        0
    );
}

#[test]
fn a_broken_iceberg_deletion_vector_is_named_with_its_blob_offset() {
    let wh = scratch_of(&thresholds(), "v3bad");
    let table = wh.join("ice.db/dvs");
    let puffin = fs::read_dir(table.join("data"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".puffin"))
        .unwrap();
    let offsets: Vec<u64> =
        serde_json::from_value(reference("thresholds")["ice.dvs"]["dv_offsets"].clone()).unwrap();
    assert_eq!(offsets.len(), 2);
    let mut bytes = fs::read(&puffin).unwrap();
    assert_eq!(&bytes[..4], b"PFA1");
    // A bit of the second blob's bitmap: its CRC no longer matches.
    bytes[offsets[1] as usize + 12] ^= 0x01;
    fs::write(&puffin, bytes).unwrap();
    let o = run(&["tables", s(&table)]);
    assert!(
        o.status.success(),
        "metadata alone is sound: {}",
        stderr(&o)
    );
    let o = run(&["tables", s(&table), "--deep"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{}: blob at offset {}: CRC-32 mismatch",
            s(&puffin),
            offsets[1]
        )),
        "{err}"
    );
    let _ = fs::remove_dir_all(&wh);
}

/// The sample warehouse `make analyze` audits (`samples/warehouse`, made by
/// `scripts/make_sample_warehouse.py`) against delta-rs and pyiceberg's
/// figures in `samples/shop/reference.json`; `--deep` checks its DVs.
#[test]
fn the_sample_warehouse_reads_as_delta_rs_and_pyiceberg_report_it() {
    let want: BTreeMap<String, Value> =
        serde_json::from_str(&fs::read_to_string(testdata::sample("shop/reference.json")).unwrap())
            .expect("samples/shop/reference.json");
    let got = assert_matches_readers(&testdata::sample("warehouse"), &want, &["--deep"]);
    let dvs = want["shop.orders"]["dv_cardinalities"].as_array().unwrap();
    assert_eq!(got["shop.orders"]["deletion_vectors"], dvs.len());
    assert_eq!(
        got["shop.orders"]["partition_columns"],
        json!(["o_orderday"])
    );
    assert_eq!(
        got["shop.customers"]["clustering_columns"],
        json!(["c_nationkey"])
    );
    assert_eq!(
        got["shop.web_events"]["pos_delete_files"],
        want["shop.web_events"]["pos_delete_files"]
    );
}

/// Delta tables whose classic checkpoint holds typed struct columns in each
/// `add` (`tables/checkpoints`: deltalake with
/// `delta.checkpoint.writeStatsAsStruct`, so `partitionValues_parsed` with
/// a date and `stats_parsed` min/max with a timestamp, a decimal and a
/// date; `struct_stats_only` also without the `stats` JSON). lakeaudit
/// used to panic on them (polars has no dtype for those types), losing the
/// whole run.
#[test]
fn typed_checkpoint_columns_match_delta_rs() {
    let wh = testdata::data("tables/checkpoints");
    let want = reference("checkpoints");
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        ["struct_stats_only", "typed_stats"]
    );
    let got = assert_matches_readers(&wh, &want, &[]);
    let rows = &audit(&wh, "typed-checkpoints", &["--policy", "delta"])["compaction"];
    for (table, r) in &want {
        let g = &got[table];
        // Checkpoint at 9 (read, not replaced by the JSON commits), two
        // appends after it.
        assert_eq!(r["checkpoint_version"], 9);
        assert_eq!(g["commits_since_checkpoint"], 2, "{table}");
        assert_eq!(g["partition_columns"], json!(["day"]), "{table}");
        assert_eq!(g["stats_coverage"], 1.0, "{table}");
        assert_eq!(g["violations"], 0, "{table}");
        // Every file in the partition delta-rs puts it in: the checkpoint's
        // partition values were read.
        let sizes = file_sizes(r);
        assert_eq!(sizes.len(), 3);
        for (partition, files) in &sizes {
            let c = row(rows, table, partition, "delta");
            assert_eq!(c["files_before"], files.len(), "{table} {partition}");
            if files.len() > 1 {
                // All of them under the 1 GiB default: one bin of all.
                assert_eq!(
                    c["bytes_to_rewrite"],
                    files.iter().sum::<u64>(),
                    "{table} {partition}"
                );
            }
        }
    }
}

/// Two audited tables of one name (`orders` in two warehouses: a copy of
/// the samples' `orders`, with its deletion vectors, and a copy of their
/// `lineitem`, without) stay two tables: each has its own maintenance step
/// counting its own files and deletes, each is named by its location (the
/// logs read neither there), and a warning says why. Before, both steps
/// were `spark_catalog.default.orders` and each counted the two tables' 96
/// small files and the first one's deletes.
#[test]
fn two_audited_tables_of_one_name_are_planned_apart() {
    let shop = testdata::sample("warehouse/shop.db");
    let w1 = scratch_of(&shop, "same-name-1");
    let w2 = scratch_of(&shop, "same-name-2");
    fs::remove_dir_all(w2.join("orders")).unwrap();
    fs::rename(w2.join("lineitem"), w2.join("orders")).unwrap();
    let out = scratch_dir("tables-same-name-out");
    let (a, b) = (w1.join("orders"), w2.join("orders"));
    let log = testdata::sample("shop");
    let o = run(&[
        "analyze",
        s(&log),
        "--tables",
        s(&a),
        "--tables",
        s(&b),
        "--out",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let canon = |p: &Path| format!("file:{}", fs::canonicalize(p).unwrap().display());
    for p in [&a, &b] {
        let warning = format!(
            "lakeaudit: warning: {}: audited table `orders` is known by its location, {}: 2 audited tables would be `spark_catalog.default.orders` by their names, and the logs read none of them at its location",
            p.display(),
            canon(p)
        );
        assert!(err.contains(&warning), "{err}");
    }
    let sql = fs::read_to_string(out.join("maintenance.sql")).unwrap();
    let step = |p: &Path| {
        let head = format!(" {}: ", canon(p));
        sql.lines()
            .find(|l| l.starts_with("-- ") && l.contains(&head))
            .unwrap_or_else(|| panic!("no step for {head}:\n{sql}"))
            .to_string()
    };
    // Each table's own 48 small files; the deletes are the first one's.
    assert!(
        step(&a).contains("(it has 48 small files to compact and 12 data files whose deletes passed their rule (58 rows deleted"),
        "{sql}"
    );
    assert!(
        step(&b).contains("(it has 48 small files to compact; "),
        "{sql}"
    );
    assert!(!sql.contains("96 small files"), "{sql}");
}
