//! `lakeaudit whatif` against a real engine: the Delta tables of
//! `tests/data/skipping` (TPC-H SF 0.005 by deltalake, random and date
//! layouts), the Spark 4.0.1 event log of the 22 queries, and the files
//! DuckDB's Delta extension scanned for each (`scripts/skipping/make_fixture.sh`).
//! deltalake wrote the tables at 80 KiB files, so every simulated layout is
//! predicted for delta-rs at that size (`--rewriter delta-rs --target-size
//! 81920`): the rewrite that produced the date layout.

use crate::common::{jsonl, ok, run, tempdir};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A path under `tests/data/skipping`.
fn at(rel: &str) -> String {
    testdata::data(&format!("skipping/{rel}"))
        .to_string_lossy()
        .into_owned()
}

fn events() -> String {
    at("spark-events")
}

/// Distinct files-read counts per (query, table) of the `whatif` rows of
/// one layout (minmax engine).
fn predicted(rows: &[Value], layout: &str) -> BTreeMap<(u64, String), BTreeSet<u64>> {
    let mut out: BTreeMap<(u64, String), BTreeSet<u64>> = BTreeMap::new();
    for r in rows {
        if r["layout"] != layout || r["engine"] != "minmax" {
            continue;
        }
        let d = r["description"].as_str().unwrap_or_default();
        let Some(q) = d
            .rsplit('q')
            .next()
            .and_then(|n| n.trim().parse::<u64>().ok())
        else {
            continue;
        };
        out.entry((q, r["table"].as_str().unwrap().to_string()))
            .or_default()
            .insert(r["files_read"].as_u64().unwrap());
    }
    out
}

/// DuckDB's files after its static file filters, per (query, table), for
/// the queries that ran.
fn duckdb(layout: &str) -> BTreeMap<(u64, String), BTreeSet<u64>> {
    let text = testdata::read_to_string(&format!("skipping/duckdb-{layout}.jsonl"));
    let rows = jsonl(&text);
    let failed: BTreeSet<u64> = rows
        .iter()
        .filter(|r| r["status"] != "ok")
        .map(|r| r["query"].as_u64().unwrap())
        .collect();
    let mut out: BTreeMap<(u64, String), BTreeSet<u64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r["status"] == "ok") {
        let q = r["query"].as_u64().unwrap();
        if failed.contains(&q) {
            continue;
        }
        let n = r["files_scanning"]
            .as_u64()
            .or(r["files_total"].as_u64())
            .unwrap();
        out.entry((q, r["table"].as_str().unwrap().to_string()))
            .or_default()
            .insert(n);
    }
    out
}

#[test]
fn current_layouts_skip_exactly_the_files_duckdb_skips() {
    for layout in ["random", "date"] {
        let out = ok(&[
            "whatif",
            &events(),
            "--tables",
            &at(&format!("delta/{layout}")),
            "--rewriter",
            "delta-rs",
            "--target-size",
            "81920",
            "--current-only",
            // DuckDB's Delta reader skips by min/max (Spark, reading the
            // files as Parquet, skipped none: what `auto` calibrates to).
            "--engine",
            "minmax",
            "--format",
            "jsonl",
        ]);
        let ours = predicted(&jsonl(&out), "current");
        let theirs = duckdb(layout);
        let mut compared = 0;
        let mut missing = BTreeSet::new();
        for (k, d) in &theirs {
            match ours.get(k) {
                Some(o) => {
                    assert_eq!(o, d, "{layout} Q{} {}", k.0, k.1);
                    compared += 1;
                }
                None => {
                    missing.insert(k.0);
                }
            }
        }
        // At this scale a side of a join in Q17, Q20 and Q21 holds no row, and
        // Spark's adaptive plan replaced their joins by empty relations:
        // the final plans scan nothing, so there is nothing to compare.
        assert!(
            missing.iter().all(|q| [17, 20, 21].contains(q)),
            "{layout}: no scan in Q{missing:?}"
        );
        // 25 (query, table) pairs; 23 on date, where Q12 failed on DuckDB.
        assert!(compared >= 23, "{layout}: {compared} pairs");
        if layout == "date" {
            // Sorting by date does skip: fewer files than in the scans.
            let read: u64 = theirs.values().map(|s| s.iter().max().unwrap()).sum();
            let total: u64 = ours
                .keys()
                .filter(|k| theirs.contains_key(k))
                .map(|k| if k.1 == "lineitem" { 15 } else { 8 })
                .sum();
            assert!(read < total, "{read} of {total}");
        }
    }
}

/// Each table's files, per layout, in `whatif` rows.
fn files_total(rows: &[Value]) -> BTreeMap<(String, String), BTreeSet<u64>> {
    let mut out: BTreeMap<(String, String), BTreeSet<u64>> = BTreeMap::new();
    for r in rows {
        out.entry((
            r["table"].as_str().unwrap().to_string(),
            r["layout"].as_str().unwrap().to_string(),
        ))
        .or_default()
        .insert(r["files_total"].as_u64().unwrap());
    }
    out
}

/// delta-rs's writer closes a file once its row group's uncompressed size
/// reaches the target, checked every 1024 rows: simulated from the random
/// layout at the fixture's 80 KiB, the date layout has as many files as
/// deltalake wrote (lineitem 15, orders 8), and every simulated row names
/// the rewriter and the size.
#[test]
fn a_delta_rs_rewrite_makes_as_many_files_as_deltalake_wrote() {
    let args = |tables: &str, extra: &[&str]| {
        let mut a = vec![
            "whatif".to_string(),
            events(),
            "--tables".into(),
            at(tables),
            "--engine".into(),
            "minmax".into(),
            "--format".into(),
            "jsonl".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let real = args("delta/date", &["--current-only"]);
    let real = files_total(&jsonl(&ok(&real
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>())));
    let sim = args(
        "delta/random",
        &[
            "--rewriter",
            "delta-rs",
            "--target-size",
            "81920",
            "--layout",
            "lineitem=l_shipdate;orders=o_orderdate",
        ],
    );
    let out = ok(&sim.iter().map(String::as_str).collect::<Vec<_>>());
    let rows = jsonl(&out);
    let sim = files_total(&rows);
    for (table, col) in [("lineitem", "l_shipdate"), ("orders", "o_orderdate")] {
        let r = &real[&(table.to_string(), "current".to_string())];
        assert_eq!(r.len(), 1);
        assert_eq!(
            sim[&(table.to_string(), col.to_string())],
            *r,
            "{table}: simulated files vs deltalake's"
        );
    }
    assert_eq!(
        real[&("lineitem".to_string(), "current".to_string())],
        BTreeSet::from([15])
    );
    for r in rows.iter().filter(|r| r["layout"] != "current") {
        assert_eq!(r["rewriter"], "delta-rs", "{r}");
        assert_eq!(r["target_size"], 81920, "{r}");
    }
}

#[test]
fn a_layout_predicted_before_the_rewrite_is_within_ten_percent_of_the_real_one() {
    // Simulated from the random layout's rows, compared with DuckDB on the
    // tables deltalake really wrote sorted by date.
    let out = ok(&[
        "whatif",
        &events(),
        "--tables",
        &at("delta/random"),
        "--rewriter",
        "delta-rs",
        "--target-size",
        "81920",
        "--layout",
        "lineitem=l_shipdate;orders=o_orderdate",
        "--format",
        "jsonl",
    ]);
    let rows = jsonl(&out);
    let ours = predicted(&rows, "l_shipdate");
    let ours_orders = predicted(&rows, "o_orderdate");
    let theirs = duckdb("date");
    let (mut p, mut d) = (0u64, 0u64);
    for (k, real) in &theirs {
        let pred = if k.1 == "lineitem" {
            &ours
        } else {
            &ours_orders
        };
        // Q17, Q20 and Q21 scan nothing in their final plans (see above).
        let Some(v) = pred.get(k) else {
            assert!(
                [17, 20, 21].contains(&k.0),
                "no prediction for Q{} {}",
                k.0,
                k.1
            );
            continue;
        };
        p += v.iter().max().unwrap();
        d += real.iter().max().unwrap();
    }
    let dev = (p as f64 - d as f64).abs() / d as f64;
    assert!(
        dev <= 0.10,
        "predicted {p} files, DuckDB read {d} ({:.1}%)",
        dev * 100.0
    );
    // And the random layout itself skips nothing, so the saving is real.
    let now: u64 = predicted(&rows, "current")
        .iter()
        .filter(|(k, _)| theirs.contains_key(k))
        .map(|(_, v)| v.iter().max().unwrap())
        .sum();
    assert!(p < now, "{p} after vs {now} now");
}

#[test]
fn generated_candidates_include_the_filtered_date_columns() {
    let out = ok(&[
        "whatif",
        &events(),
        "--tables",
        &at("delta/random"),
        "--rewriter",
        "delta-rs",
        "--target-size",
        "81920",
        "--format",
        "jsonl",
    ]);
    let layouts: BTreeSet<(String, String)> = jsonl(&out)
        .iter()
        .map(|r| {
            (
                r["table"].as_str().unwrap().to_string(),
                r["layout"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for want in [
        ("lineitem", "current"),
        ("lineitem", "l_shipdate"),
        ("lineitem", "l_orderkey"),
        ("orders", "o_orderdate"),
        ("orders", "o_orderkey"),
    ] {
        assert!(
            layouts.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?} in {layouts:?}"
        );
    }
}

#[test]
fn an_unreadable_data_file_is_named_and_the_rest_still_simulated() {
    let dir = tempdir("whatif-broken");
    let t = format!("{dir}/orders");
    let src = at("delta/random/orders");
    assert!(std::process::Command::new("cp")
        .args(["-r", &src, &t])
        .status()
        .unwrap()
        .success());
    let victim = std::fs::read_dir(&t)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "parquet"))
        .unwrap();
    std::fs::write(&victim, b"PAR1 not really").unwrap();
    let o = run(&[
        "whatif",
        &events(),
        "--tables",
        &t,
        "--layout",
        "orders=o_orderdate",
        "--format",
        "jsonl",
    ]);
    // A file that is not Parquet is bad input: an error naming it, exit 2
    // (it was a warning, exit 0, before the data files were checked page
    // by page); the other files are still simulated.
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let name = victim.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        err.lines()
            .any(|l| l.starts_with("lakeaudit: ") && !l.contains("warning") && l.contains(&name)),
        "{err}"
    );
    let rows = jsonl(&String::from_utf8_lossy(&o.stdout));
    assert!(rows.iter().any(|r| r["layout"] == "o_orderdate"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_layout_flag_is_a_usage_error() {
    for bad in ["lineitem", "lineitem=", "t=a,b,c,d,e"] {
        let o = run(&[
            "whatif",
            &events(),
            "--tables",
            &at("delta/random"),
            "--rewriter",
            "delta-rs",
            "--target-size",
            "81920",
            "--layout",
            bad,
        ]);
        assert_eq!(o.status.code(), Some(64), "{bad}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--layout"));
    }
}

#[test]
fn the_plan_prices_audited_tables_by_what_their_scans_would_skip() {
    // Assumed: the join key, as the constant reduction prices it (every
    // join is broadcast at this scale).
    let assumed = ok(&[
        "plan",
        &events(),
        "--min-table-size",
        "0",
        "--include-broadcast",
    ]);
    assert!(
        assumed.contains("lineitem  CLUSTER BY (l_orderkey)"),
        "{assumed}"
    );
    // Measured on the random layout: the date columns the queries filter
    // on, which DuckDB's counts on the real date layout confirm skip.
    let measured = ok(&[
        "plan",
        &events(),
        "--tables",
        &at("delta/random"),
        "--rewriter",
        "delta-rs",
        "--target-size",
        "81920",
        "--min-table-size",
        "0",
        "--format",
        "json",
    ]);
    let p: Value = serde_json::from_str(&measured).unwrap();
    let keys = |t: &str| -> Vec<String> {
        p["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["table"] == format!("spark_catalog.default.{t}"))
            .map(|d| serde_json::from_value(d["keys"].clone()).unwrap())
            .unwrap_or_default()
    };
    assert_eq!(keys("lineitem"), ["l_shipdate"]);
    assert_eq!(keys("orders"), ["o_orderdate"]);
    let m = p["measured"].as_array().unwrap();
    let li = m
        .iter()
        .find(|w| w["table"] == "spark_catalog.default.lineitem" && w["key"][0] == "l_shipdate")
        .unwrap();
    assert!(li["bytes_after"].as_u64() < li["bytes_now"].as_u64());
    // Apache Spark's executions: the min/max engine (`--engine auto`).
    assert_eq!(li["engine"], "minmax");
    let text = ok(&[
        "plan",
        &events(),
        "--tables",
        &at("delta/random"),
        "--rewriter",
        "delta-rs",
        "--target-size",
        "81920",
        "--min-table-size",
        "0",
    ]);
    assert!(
        text.contains("measured (table statistics, minmax engine;"),
        "{text}"
    );
    // A change for the table's own filters has no join and no JIS: it
    // serves the executions that scan the table, and saves files and bytes.
    assert!(!text.contains("its filters  JIS"), "{text}");
    assert!(
        text.contains("  serves its filters: 14 execution(s) scan it this window; predicted to read 85 fewer file(s) (240 → 155) and save 7.8 MiB/window"),
        "{text}"
    );
}

#[test]
fn analyze_writes_skipping_and_layout_quality_that_tell_sorted_from_random() {
    let overlap = |layout: &str| -> f64 {
        let dir = tempdir(&format!("whatif-analyze-{layout}"));
        let out = format!("{dir}/out");
        ok(&[
            "analyze",
            &events(),
            "--tables",
            &at(&format!("delta/{layout}")),
            "--rewriter",
            "delta-rs",
            "--target-size",
            "81920",
            "--min-table-size",
            "0",
            // The fixture's Spark read the Delta tables as plain Parquet
            // (every file; calibration fits `none`); priced for a Delta
            // reader instead.
            "--engine",
            "minmax",
            "--out",
            &out,
        ]);
        if layout == "random" {
            // The shuffled table is re-laid out by date, and the reports
            // show what that skips, measured.
            let md = std::fs::read_to_string(format!("{out}/report.md")).unwrap();
            assert!(md.contains("Measured on the audited tables"), "{md}");
            assert!(
                md.contains("| `spark_catalog.default.lineitem` | `l_shipdate` |"),
                "{md}"
            );
            let html = std::fs::read_to_string(format!("{out}/report.html")).unwrap();
            assert!(html.contains("<figure class=\"chart\"><svg"), "no chart");
            assert!(html.contains("scans read in the window"));
            // And how the shuffled files lie today on the planned key,
            // with the depth layout_quality.csv gives.
            assert!(
                html.contains("s files lie today on <code>l_shipdate</code>"),
                "no depth histogram"
            );
            let q = std::fs::read_to_string(format!("{out}/layout_quality.csv")).unwrap();
            let depth: f64 = q
                .lines()
                .find(|l| l.starts_with("lineitem,l_shipdate,"))
                .and_then(|l| l.split(',').nth(6))
                .unwrap()
                .parse()
                .unwrap();
            assert!(depth > 5.0, "{depth}");
            assert!(html.contains(&format!("average depth {depth:.1}")), "depth");
        }
        let skipping = std::fs::read_to_string(format!("{out}/skipping.csv")).unwrap();
        assert!(skipping.starts_with("app_id,execution_id,description,scan,table,layout,engine,"));
        assert!(skipping.contains(",current,minmax,"));
        let q = std::fs::read_to_string(format!("{out}/layout_quality.csv")).unwrap();
        let mut lines = q.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let row: Vec<&str> = lines
            .find(|l| l.starts_with("lineitem,l_shipdate,"))
            .unwrap()
            .split(',')
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        row[col("average_overlap")].parse().unwrap()
    };
    let (sorted, random) = (overlap("date"), overlap("random"));
    // Sorted by date, a file's dates meet its neighbours' at most;
    // shuffled, every file spans the years and overlaps the 14 others.
    assert!(sorted < 2.0, "{sorted}");
    assert_eq!(random, 14.0);
}

#[test]
fn statistics_that_cannot_be_read_never_skip_and_are_counted() {
    // The date layout's orders, with the first file's date bounds made
    // unreadable (not a date; a string cut inside a character is not
    // JSON text lakeaudit can take for a date either).
    let dir = tempdir("whatif-bad-stats");
    let t = format!("{dir}/orders");
    assert!(std::process::Command::new("cp")
        .args(["-r", &at("delta/date/orders"), &t])
        .status()
        .unwrap()
        .success());
    let log = format!("{t}/_delta_log/00000000000000000000.json");
    let text = std::fs::read_to_string(&log).unwrap();
    let first_add = text.find("\"add\"").unwrap();
    let (head, tail) = text.split_at(first_add);
    let broken = tail.replacen(
        "\\\"o_orderdate\\\":\\\"",
        "\\\"o_orderdate\\\":\\\"not a date ",
        2,
    );
    std::fs::write(&log, format!("{head}{broken}")).unwrap();
    let run_on = |tables: &str| {
        let o = run(&[
            "whatif",
            &events(),
            "--tables",
            tables,
            "--current-only",
            "--engine",
            "minmax",
            "--format",
            "jsonl",
        ]);
        assert!(o.status.success());
        (
            jsonl(&String::from_utf8_lossy(&o.stdout)),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (good, _) = run_on(&at("delta/date/orders"));
    let (bad, err) = run_on(&t);
    assert!(err.contains("2 file statistics could not be read"), "{err}");
    let read =
        |rows: &[Value]| -> u64 { rows.iter().map(|r| r["files_read"].as_u64().unwrap()).sum() };
    // Never a wrong skip: the broken file is read wherever its dates
    // would have decided, so at least as many files are read.
    assert!(
        read(&bad) > read(&good),
        "{} vs {}",
        read(&bad),
        read(&good)
    );
    assert!(bad
        .iter()
        .any(|r| r["files_without_stats"].as_u64() > Some(0)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_data_file_that_is_a_fifo_or_a_link_out_of_the_table_is_never_read() {
    let dir = tempdir("whatif-hostile-files");
    let t = format!("{dir}/orders");
    assert!(std::process::Command::new("cp")
        .args(["-r", &at("delta/random/orders"), &t])
        .status()
        .unwrap()
        .success());
    let mut parts: Vec<_> = std::fs::read_dir(&t)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    parts.sort();
    let (fifo, link) = (&parts[0], &parts[1]);
    std::fs::remove_file(fifo).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(fifo)
        .status()
        .unwrap()
        .success());
    let secret = format!("{dir}/secret.parquet");
    std::fs::copy(link, &secret).unwrap();
    std::fs::remove_file(link).unwrap();
    std::os::unix::fs::symlink(&secret, link).unwrap();
    // Opening a FIFO would block: the run must end on its own.
    let o = std::process::Command::new("timeout")
        .args(["60", env!("CARGO_BIN_EXE_lakeaudit"), "whatif", &events()])
        .args([
            "--tables",
            &t,
            "--layout",
            "orders=o_orderdate",
            "--format",
            "jsonl",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    for p in [fifo, link] {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(err.contains(&name), "{name} not named: {err}");
    }
    assert!(
        err.contains("not a regular file") || err.contains("FIFO") || err.contains("fifo"),
        "{err}"
    );
    assert!(err.contains("outside"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn join_induced_predicates_skip_the_files_the_build_sides_keys_rule_out() {
    // A fact table laid out by its date key, joined with a filtered date
    // dimension (tests/data/skipping/star, make_star_fixture.py). The
    // build side's keys and the files they rule out were computed by
    // DuckDB SQL over the same Delta tables (expected.json).
    let out = ok(&[
        "whatif",
        &at("star/spark-events"),
        "--tables",
        &at("star/delta"),
        "--current-only",
        "--engine",
        "all",
        "--format",
        "jsonl",
    ]);
    let rows = jsonl(&out);
    let expected: Value =
        serde_json::from_str(&testdata::read_to_string("skipping/star/expected.json")).unwrap();
    let duck = jsonl(&testdata::read_to_string("skipping/star/duckdb.jsonl"));
    let mut checked = 0;
    for e in expected.as_array().unwrap() {
        let q = e["query"].as_str().unwrap();
        let sales = |engine: &str| {
            let r: Vec<&Value> = rows
                .iter()
                .filter(|r| r["description"] == q && r["table"] == "sales" && r["engine"] == engine)
                .collect();
            assert_eq!(r.len(), 1, "{q} {engine}");
            r[0].clone()
        };
        let total = e["files_total"].as_u64().unwrap();
        // No literal predicate on sales: only the join can skip.
        for engine in ["none", "minmax"] {
            assert_eq!(sales(engine)["files_read"], total, "{q} {engine}");
            assert_eq!(sales(engine)["join_predicates"], "", "{q} {engine}");
        }
        assert_eq!(sales("join-range")["files_read"], e["files_minmax"], "{q}");
        assert_eq!(sales("values")["files_read"], e["files_values"], "{q}");
        let (lo, hi, n) = (&e["build_min"], &e["build_max"], &e["build_keys"]);
        assert_eq!(
            sales("join-range")["join_predicates"],
            format!("s_date_sk in {lo}..{hi}"),
            "{q}"
        );
        assert_eq!(
            sales("values")["join_predicates"],
            format!("s_date_sk in {n} keys of {lo}..{hi}"),
            "{q}"
        );
        // DuckDB 1.5.5 pushes the build side's range into the scan as a
        // dynamic filter but opens every file: what `minmax` predicts.
        let d: Vec<&Value> = duck
            .iter()
            .filter(|d| d["query"] == q && d["table"] == "sales")
            .collect();
        assert_eq!(d.len(), 1, "{q}");
        assert!(d[0]["dynamic_filters"]
            .as_str()
            .unwrap()
            .contains("s_date_sk>="));
        assert_eq!(d[0]["files_read"], sales("minmax")["files_read"], "{q}");
        checked += 1;
    }
    assert_eq!(checked, 3);
    // December of five years: the keys' range spans the table, the keys
    // themselves do not.
    let dec = &expected[1];
    assert!(dec["files_values"].as_u64() < dec["files_minmax"].as_u64());
}

/// `--rewriter` takes only the rewriters it names: a usage error (exit
/// 64) that lists them. (`--layout` past four columns, the most any
/// rewriter lays out along a curve, is `a_bad_layout_flag_is_a_usage_error`;
/// a column type a curve cannot order, such as a decimal under Iceberg's
/// Z-order, is refused by `skipping::rewriter`'s unit tests.)
#[test]
fn rewriters_refuse_what_they_cannot_do() {
    let o = run(&[
        "whatif",
        &events(),
        "--tables",
        &at("delta/random"),
        "--rewriter",
        "hudi",
    ]);
    assert_eq!(o.status.code(), Some(64));
    let err = String::from_utf8_lossy(&o.stderr);
    for name in ["spark-delta", "databricks", "delta-rs", "iceberg-spark"] {
        assert!(err.contains(name), "{err}");
    }
}

/// The Parquet-read fixture's log (`tests/data/calibration/parquet-read`)
/// as plain JSON lines under `dir/events/`, naming the fixture's table
/// directory where the run named its own.
fn parquet_read_log(dir: &str) -> (String, String) {
    let logs = fixture_logs(dir, "calibration/parquet-read", &["events"]);
    (logs[0].clone(), delta_dir("calibration/parquet-read"))
}

/// `FIXTURE/delta`, the table directory of a calibration fixture.
fn delta_dir(fixture: &str) -> String {
    testdata::data(fixture)
        .join("delta")
        .to_string_lossy()
        .into_owned()
}

/// The event logs of a calibration fixture (`FIXTURE/SUB/*.zstd`, one per
/// sub-directory) as plain JSON lines under `dir/SUB/`, naming the
/// fixture's table directory (`FIXTURE/delta/events`) where the run named
/// its own (`expected.json`'s `table_dir`); returns the directories.
fn fixture_logs(dir: &str, fixture: &str, subs: &[&str]) -> Vec<String> {
    let fixture = testdata::data(fixture);
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture.join("expected.json")).unwrap())
            .unwrap();
    let old = expected["table_dir"].as_str().unwrap().to_string();
    let new = fixture
        .join("delta")
        .join("events")
        .to_string_lossy()
        .into_owned();
    subs.iter()
        .map(|sub| {
            let log = std::fs::read_dir(fixture.join(sub))
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.extension().is_some_and(|x| x == "zstd"))
                .unwrap();
            let text =
                String::from_utf8(zstd::decode_all(&std::fs::read(log).unwrap()[..]).unwrap())
                    .unwrap();
            assert!(text.contains(&old));
            let out = std::path::Path::new(dir).join(sub);
            std::fs::create_dir_all(&out).unwrap();
            std::fs::write(out.join("app.log"), text.replace(&old, &new)).unwrap();
            out.to_string_lossy().into_owned()
        })
        .collect()
}

#[test]
fn calibration_finds_that_a_parquet_read_skips_nothing() {
    // Spark 4 reading a Delta table's directory as plain Parquet read all
    // of its files in every scan; Delta's statistics would skip most.
    let dir = tempdir("calibration-parquet-read");
    let (log, tables) = parquet_read_log(&dir);
    let whatif = |engine: &str| {
        let o = run(&[
            "whatif",
            &log,
            "--tables",
            &tables,
            "--current-only",
            "--engine",
            engine,
            "--format",
            "jsonl",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            jsonl(&String::from_utf8(o.stdout).unwrap()),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let files: Value = serde_json::from_str(&testdata::read_to_string(
        "calibration/parquet-read/expected.json",
    ))
    .unwrap();
    let files = files["files"].as_u64().unwrap();
    // minmax would read fewer files than Spark did on every scan.
    let (rows, _) = whatif("minmax");
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["logged_files_read"], files, "{r}");
        assert!(r["files_read"].as_u64().unwrap() < files, "{r}");
    }
    // auto: calibrated on those counts, `none`, and said so.
    let (rows, err) = whatif("auto");
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["engine"], "none", "{r}");
        assert_eq!(r["files_read"], r["logged_files_read"], "{r}");
    }
    assert!(
        err.contains("(spark): none reproduces the logged file counts: 4 of 4 scans exact"),
        "{err}"
    );
}

#[test]
fn verify_measures_a_deltalake_z_order_and_predicts_it_with_the_fitted_model() {
    // deltalake's optimize.z_order rewrote 8 files into 4 between two
    // Spark 4 runs of the same four queries, each reading the live files
    // through Spark's Parquet source (tests/data/calibration/delta-zorder).
    let dir = tempdir("verify-delta-zorder");
    let fixture = "calibration/delta-zorder";
    let logs = fixture_logs(&dir, fixture, &["before", "after"]);
    let expected: Value = serde_json::from_str(&testdata::read_to_string(&format!(
        "{fixture}/expected.json"
    )))
    .unwrap();
    let (before, after) = (
        expected["files_before"].as_u64().unwrap(),
        expected["files_after"].as_u64().unwrap(),
    );
    assert!(after < before, "{expected}");
    let o = run(&[
        "verify",
        &logs[0],
        &logs[1],
        "--tables",
        &delta_dir(fixture),
        "--format",
        "jsonl",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let rows = jsonl(&String::from_utf8(o.stdout).unwrap());
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(r["operation"], "OPTIMIZE", "{r}");
    assert_eq!(r["version"], expected["rewrite_version"], "{r}");
    assert_eq!(r["files_removed"], before, "{r}");
    assert_eq!(r["files_added"], after, "{r}");
    assert_eq!(r["queries_compared"], 4, "{r}");
    assert_eq!(
        (&r["scans_before"], &r["scans_after"]),
        (&4.into(), &4.into()),
        "{r}"
    );
    // Measured: every scan read every live file, before and after.
    assert_eq!(r["files_per_run_before"], (4 * before) as f64, "{r}");
    assert_eq!(r["files_per_run_after"], (4 * after) as f64, "{r}");
    assert_eq!(r["verdict"], "paid", "{r}");
    // Predicted from the snapshot before, with the model the scans before
    // fit (Spark's Parquet source: `none`, every file) and the rewrite's
    // own file size: the same counts. The scans after the rewrite read
    // another snapshot and are not calibrated against the files before.
    assert_eq!(
        r["predicted_files_before"], r["files_per_run_before"],
        "{r}"
    );
    assert_eq!(r["predicted_files_after"], r["files_per_run_after"], "{r}");
    // deltalake's commit does not name the Z-order columns: the key is
    // inferred from the new files and the queries' filters.
    assert_eq!(r["key_source"], "inferred", "{r}");
}

#[test]
fn the_plan_prices_a_table_with_the_model_its_logged_counts_fit() {
    // Spark 4 read the Delta table's directory as plain Parquet: every
    // scan read all 8 files, so no layout makes that engine read fewer
    // (calibration fits `none`), where a Delta reader (`minmax`) would.
    let dir = tempdir("plan-calibrated");
    let (log, tables) = parquet_read_log(&dir);
    let plan = |engine: &str| -> Value {
        let o = run(&[
            "plan",
            &log,
            "--tables",
            &tables,
            "--min-table-size",
            "0",
            "--engine",
            engine,
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let measured = |p: &Value| -> Vec<Value> { p["measured"].as_array().unwrap().clone() };
    let auto = plan("auto");
    let rows = measured(&auto);
    assert!(!rows.is_empty(), "{auto}");
    // Today every scan reads the whole table, as the logs say, and after
    // any rewrite it still does (fewer files, the same bytes).
    for m in &rows {
        assert_eq!(m["engine"], "none", "{m}");
        assert_eq!(m["bytes_now"], m["bytes_scanned_table"], "{m}");
        assert_eq!(m["bytes_after"], m["bytes_now"], "{m}");
    }
    // A Delta reader skips most of the day-ordered files today.
    let minmax = plan("minmax");
    let rows = measured(&minmax);
    assert!(!rows.is_empty(), "{minmax}");
    for m in &rows {
        assert_eq!(m["engine"], "minmax", "{m}");
        assert!(
            m["bytes_now"].as_u64() < m["bytes_scanned_table"].as_u64(),
            "{m}"
        );
    }
    // One model prices a plan: `all` is a usage error naming the others.
    let o = run(&["plan", &log, "--tables", &tables, "--engine", "all"]);
    assert_eq!(o.status.code(), Some(64));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("auto, none, minmax, join-range, values"),
        "{err}"
    );
}
