//! Iceberg's Spark scans on a real application: the Spark 3.5.6 + Iceberg
//! 1.10.2 log and tables of `tests/data/iceberg-spark`
//! (`scripts/iceberg_spark/make_fixture.sh`). Each `BatchScan` prints
//! Iceberg's own filter text and carries Iceberg's own planning counts;
//! lakeaudit reads both, and its `minmax` prediction on the tables
//! reproduces the counts.

use crate::common::{copy_dir, jsonl, ok, run, s, tempdir};
use serde_json::Value;
use skipping::Predicate;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A path under `tests/data/iceberg-spark`.
fn at(rel: &str) -> PathBuf {
    testdata::data(&format!("iceberg-spark/{rel}"))
}

/// The log's events, as JSON lines (decompressed).
fn events_text() -> String {
    let dir = at("events");
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    let bytes = std::fs::read(logs.pop().unwrap()).unwrap();
    String::from_utf8(zstd::decode_all(&bytes[..]).unwrap()).unwrap()
}

/// The warehouse the log's environment names (where the run wrote it).
fn logged_warehouse(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("\"SparkListenerEnvironmentUpdate\""))
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .and_then(|e| {
            e["Spark Properties"]["spark.sql.catalog.lake.warehouse"]
                .as_str()
                .map(str::to_string)
        })
        .expect("the log names the catalog's warehouse")
}

/// A copy of the log under `dir/events/` whose events are edited by
/// `edit` (one JSON line in, the lines to write out); returns the
/// directory to give lakeaudit.
fn edited_log(dir: &str, edit: impl Fn(&str) -> Vec<String>) -> String {
    let out = Path::new(dir).join("events");
    std::fs::create_dir_all(&out).unwrap();
    let text: Vec<String> = events_text().lines().flat_map(edit).collect();
    std::fs::write(out.join("app.log"), text.join("\n") + "\n").unwrap();
    s(&out)
}

/// A copy of the log whose catalog warehouse is `warehouse` (the test's
/// stand-in for the machine the application ran on).
fn log_with_warehouse(dir: &str, warehouse: &Path) -> String {
    let text = events_text();
    let old = serde_json::to_string(&logged_warehouse(&text)).unwrap();
    let new = serde_json::to_string(&s(warehouse)).unwrap();
    let (old, new) = (old.trim_matches('"'), new.trim_matches('"'));
    edited_log(dir, |l| vec![l.replace(old, new)])
}

/// `queries` records of the fixture log (or of `log`).
fn records(log: &str) -> Vec<Value> {
    jsonl(&ok(&["queries", log, "--format", "jsonl"]))
}

fn description(r: &Value) -> &str {
    r["description"].as_str().unwrap_or_default()
}

/// The 38 query runs (`q01 …` to `q19 … after`).
fn is_query(r: &Value) -> bool {
    let d = description(r);
    d.len() > 3 && d.starts_with('q') && d[1..3].bytes().all(|b| b.is_ascii_digit())
}

/// A predicate as the assertions write it: `column op value`, values as
/// lakeaudit prints literals (dates as dates, timestamps in UTC).
fn show(p: &Predicate) -> String {
    match p {
        Predicate::Cmp { column, op, value } => format!("{column} {op:?} {value}"),
        Predicate::In { column, values } => format!(
            "{column} In [{}]",
            values
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" | ")
        ),
        Predicate::IsNull(c) => format!("{c} IsNull"),
        Predicate::IsNotNull(c) => format!("{c} IsNotNull"),
        Predicate::StartsWith { column, prefix } => format!("{column} StartsWith {prefix}"),
        Predicate::And(a, b) => format!("({} And {})", show(a), show(b)),
        Predicate::Or(a, b) => format!("({} Or {})", show(a), show(b)),
        Predicate::Not(a) => format!("Not {}", show(a)),
        Predicate::Unknown(t) => format!("Unknown {t}"),
    }
}

#[test]
fn batch_scans_read_every_filter_shape_typed_by_the_iceberg_schema() {
    // The tables' columns, as the Iceberg schema types them.
    let (read, errors) =
        tables::each::read_each(&[at("warehouse")], &tables::ReadOptions::default(), |t| t);
    assert!(errors.is_empty(), "{errors:?}");
    let columns: BTreeMap<String, _> = read
        .into_iter()
        .map(|t| t.unwrap())
        .map(|t| {
            let dir = t
                .location
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (dir, t.columns.clone())
        })
        .collect();
    assert_eq!(columns.len(), 3, "{:?}", columns.keys());
    // Per query (first run), each scan: table, then its predicates.
    let expected: &[(&str, &[(&str, &str)])] = &[
        ("q01", &[("lineitem", "l_shipdate IsNotNull; l_shipdate Ge 1995-03-01; l_shipdate Lt 1995-04-01")]),
        ("q02", &[("lineitem", "l_shipts IsNotNull; l_shipts Ge 1996-01-01 00:00:00 UTC; l_shipts Lt 1996-02-01 12:30:00 UTC")]),
        ("q03", &[("lineitem", "l_discount IsNotNull; l_quantity IsNotNull; l_discount Ge 0.05; l_discount Le 0.07; l_quantity Lt 24.00")]),
        ("q04", &[("customer", "c_name IsNotNull; c_name Eq O'Brien")]),
        ("q05", &[("customer", "c_name In [O'Neil | Smith, Jr. | Chen]")]),
        ("q06", &[("lineitem", "l_shipmode In [MAIL | SHIP]")]),
        ("q07", &[("orders", "o_orderkey In [7 | 700 | 1400]")]),
        ("q08", &[("lineitem", "l_returnflag IsNotNull; (l_shipmode IsNotNull And Not l_shipmode In [AIR | REG AIR]); Not l_returnflag Eq R")]),
        ("q09", &[("lineitem", "(l_shipdate Lt 1992-03-01 Or l_shipdate Gt 1998-09-01)")]),
        ("q10", &[("orders", "(o_orderpriority Eq 1-URGENT Or o_totalprice Gt 450000.00)")]),
        ("q11", &[("lineitem", "l_shipinstruct IsNotNull; Not l_shipinstruct StartsWith DELIVER")]),
        ("q12", &[("orders", "o_orderdate IsNotNull; o_comment IsNull; o_orderdate Ge 1997-01-01")]),
        ("q13", &[("customer", "c_mktsegment IsNotNull; c_comment IsNotNull; c_mktsegment StartsWith BUILD; c_comment StartsWith it's")]),
        ("q14", &[("lineitem", "l_orderkey IsNotNull; l_orderkey Eq 1234")]),
        ("q15", &[
            ("orders", "o_orderdate IsNotNull; o_orderdate Ge 1994-01-01; o_orderdate Lt 1994-04-01; o_orderkey IsNotNull"),
            ("lineitem", "l_commitdate IsNotNull; l_receiptdate IsNotNull; l_orderkey IsNotNull"),
        ]),
        ("q16", &[
            ("customer", "c_mktsegment IsNotNull; c_mktsegment Eq MACHINERY; c_custkey IsNotNull"),
            ("orders", "o_orderdate IsNotNull; o_orderdate Lt 1993-01-01; o_custkey IsNotNull"),
        ]),
        ("q17", &[("lineitem", "l_receiptdate IsNotNull; (Not l_shipmode Eq MAIL Or l_quantity Le 10.00); l_receiptdate Ge 1998-10-01")]),
        ("q18", &[("orders", "o_orderstatus IsNotNull; o_orderstatus Eq F")]),
        ("q19", &[("orders", "o_orderdate IsNotNull; o_orderdate Gt 1998-01-01")]),
    ];
    let recs = records(&s(&at("events")));
    let mut seen = 0;
    for (q, scans) in expected {
        let r = recs
            .iter()
            .find(|r| description(r).starts_with(q))
            .unwrap_or_else(|| panic!("{q} not in the log"));
        let got: Vec<(String, String)> = r["scans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|sc| {
                let table = sc["table"].as_str().unwrap();
                let short = table.strip_prefix("lake.tpch.").expect(table).to_string();
                assert_eq!(sc["format"], "iceberg", "{q}");
                let pushed = sc["pushed_filters"].as_str().unwrap();
                let preds = skipping::predicates(Some(pushed), None, &columns[&short]);
                let shown: Vec<String> = preds.iter().map(show).collect();
                (short, shown.join("; "))
            })
            .collect();
        let want: Vec<(String, String)> = scans
            .iter()
            .map(|(t, p)| (t.to_string(), p.to_string()))
            .collect();
        assert_eq!(got, want, "{q}");
        seen += got.len();
        // Branch: printed only for the branch read.
        let branch = r["scans"][0]["branch"].as_str();
        assert_eq!(branch, (*q == "q18").then_some("audit"), "{q}");
    }
    assert_eq!(seen, 21);
}

/// Iceberg's own counts per execution, read from the raw log apart from
/// lakeaudit: the metric ids of every `BatchScan` of the execution's last
/// plan, and the values `SparkListenerDriverAccumUpdates` gives them.
/// Each scan: (table, result data files, total data file size, skipped
/// data files), `None` where the log has no value.
type Counted = (String, Option<i64>, Option<i64>, Option<i64>);

/// A `BatchScan` of a plan: its table and its metric ids by name.
type ScanIds = (String, BTreeMap<String, u64>);

fn icebergs_counts(text: &str) -> BTreeMap<u64, Vec<Counted>> {
    fn scans(n: &Value, out: &mut Vec<ScanIds>) {
        let name = n["nodeName"].as_str().unwrap_or_default();
        if let Some(t) = name.strip_prefix("BatchScan ") {
            let ids = n["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["name"].as_str().unwrap().to_string(),
                        m["accumulatorId"].as_u64().unwrap(),
                    )
                })
                .collect();
            out.push((t.to_string(), ids));
        }
        for c in n["children"].as_array().into_iter().flatten() {
            scans(c, out);
        }
    }
    let mut plans: BTreeMap<u64, Vec<ScanIds>> = BTreeMap::new();
    let mut values: BTreeMap<u64, BTreeMap<u64, i64>> = BTreeMap::new();
    for l in text.lines() {
        let e: Value = serde_json::from_str(l).unwrap();
        let ev = e["Event"].as_str().unwrap();
        let id = e["executionId"].as_u64();
        if ev.ends_with("SparkListenerSQLExecutionStart")
            || ev.ends_with("SparkListenerSQLAdaptiveExecutionUpdate")
        {
            let mut v = Vec::new();
            scans(&e["sparkPlanInfo"], &mut v);
            plans.insert(id.unwrap(), v);
        } else if ev.ends_with("SparkListenerDriverAccumUpdates") {
            let m = values.entry(id.unwrap()).or_default();
            for u in e["accumUpdates"].as_array().unwrap() {
                *m.entry(u[0].as_u64().unwrap()).or_default() += u[1].as_i64().unwrap();
            }
        }
    }
    plans
        .into_iter()
        .map(|(id, scans)| {
            let vals = values.get(&id).cloned().unwrap_or_default();
            let v = |ids: &BTreeMap<String, u64>, name: &str| {
                ids.get(name).and_then(|i| vals.get(i)).copied()
            };
            let counted = scans
                .iter()
                .map(|(t, ids)| {
                    (
                        t.clone(),
                        v(ids, "number of result data files"),
                        v(ids, "total data file size (bytes)"),
                        v(ids, "number of skipped data files"),
                    )
                })
                .collect();
            (id, counted)
        })
        .collect()
}

fn lakeaudits_counts(recs: &[Value]) -> BTreeMap<u64, Vec<Counted>> {
    recs.iter()
        .map(|r| {
            let scans = r["scans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|sc| {
                    (
                        sc["table"].as_str().unwrap().to_string(),
                        sc["files_read"].as_i64(),
                        sc["bytes_read"].as_i64(),
                        sc["files_skipped"].as_i64(),
                    )
                })
                .collect();
            (r["execution_id"].as_u64().unwrap(), scans)
        })
        .collect()
}

#[test]
fn every_batch_scan_reads_icebergs_own_counts() {
    let text = events_text();
    let truth = icebergs_counts(&text);
    let recs = records(&s(&at("events")));
    let got = lakeaudits_counts(&recs);
    assert_eq!(got, truth);
    // What that covers: every scan of the 38 query runs has Iceberg's
    // counts, named as such.
    let mut measured = 0;
    for r in recs.iter().filter(|r| is_query(r)) {
        for sc in r["scans"].as_array().unwrap() {
            assert_eq!(sc["counts_from"], "iceberg", "{}", description(r));
            assert!(sc["files_read"].as_i64().is_some(), "{}", description(r));
            assert_eq!(sc["ignored_metrics"], serde_json::json!([]));
            measured += 1;
        }
    }
    assert_eq!(measured, 42);
    // The sort rewrite shows: q01 read 12 files of lineitem before it, 1
    // after, as Iceberg counted them.
    let files = |d: &str| {
        let r = recs.iter().find(|r| description(r) == d).unwrap();
        (
            r["scans"][0]["files_read"].as_i64(),
            r["scans"][0]["files_skipped"].as_i64(),
        )
    };
    assert_eq!(files("q01 date range"), (Some(12), Some(0)));
    assert_eq!(files("q01 date range after"), (Some(1), Some(9)));
    // The rewrite's own scan declares Iceberg's metrics but the log holds
    // no value for them: no measurement, and said so.
    let rewrite = recs
        .iter()
        .find(|r| description(r).starts_with("Rewriting"))
        .unwrap();
    let sc = &rewrite["scans"][0];
    assert_eq!(sc["files_read"], Value::Null);
    assert_eq!(sc["counts_from"], Value::Null);
    assert!(
        sc["ignored_metrics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "number of result data files: no value in the log"),
        "{sc}"
    );
}

/// The fixture log with one execution's driver update edited by `edit`
/// (the update's accumulator values by id, the scan's metric ids by name).
fn with_driver_update(
    dir: &str,
    description: &str,
    edit: impl Fn(&mut Vec<Value>, &BTreeMap<String, u64>) + Copy,
) -> String {
    let text = events_text();
    // The execution and its scan's metric ids.
    let mut exec = None;
    let mut ids = BTreeMap::new();
    for l in text.lines() {
        let e: Value = serde_json::from_str(l).unwrap();
        if e["Event"]
            .as_str()
            .unwrap()
            .ends_with("SparkListenerSQLExecutionStart")
            && e["description"] == description
        {
            exec = e["executionId"].as_u64();
            let mut n = &e["sparkPlanInfo"];
            while !n["nodeName"].as_str().unwrap().starts_with("BatchScan") {
                n = &n["children"][0];
            }
            for m in n["metrics"].as_array().unwrap() {
                ids.insert(
                    m["name"].as_str().unwrap().to_string(),
                    m["accumulatorId"].as_u64().unwrap(),
                );
            }
        }
    }
    let exec = exec.expect(description);
    edited_log(dir, |l| {
        if !l.contains("SparkListenerDriverAccumUpdates") {
            return vec![l.to_string()];
        }
        let mut e: Value = serde_json::from_str(l).unwrap();
        if e["executionId"].as_u64() != Some(exec) {
            return vec![l.to_string()];
        }
        let mut ups = e["accumUpdates"].as_array().unwrap().clone();
        edit(&mut ups, &ids);
        e["accumUpdates"] = Value::Array(ups);
        vec![e.to_string()]
    })
}

#[test]
fn a_missing_or_negative_count_is_ignored_and_said() {
    let scan = |log: &str, d: &str| -> Value {
        let recs = records(log);
        recs.iter().find(|r| description(r) == d).unwrap()["scans"][0].clone()
    };
    let q = "q01 date range after";
    // Negative: Iceberg's result count replaced by -3.
    let dir = tempdir("iceberg-negative");
    let log = with_driver_update(&dir, q, |ups, ids| {
        let id = ids["number of result data files"];
        for u in ups.iter_mut() {
            if u[0].as_u64() == Some(id) {
                u[1] = Value::from(-3);
            }
        }
    });
    let sc = scan(&log, q);
    assert_eq!(sc["files_read"], Value::Null, "{sc}");
    assert_eq!(
        sc["ignored_metrics"],
        serde_json::json!(["number of result data files: negative (-3)"])
    );
    // The other counts still hold.
    assert_eq!(sc["files_skipped"], 9);
    assert_eq!(sc["counts_from"], "iceberg");
    // Missing: the update holds no value for it.
    let dir = tempdir("iceberg-missing");
    let log = with_driver_update(&dir, q, |ups, ids| {
        let id = ids["number of result data files"];
        ups.retain(|u| u[0].as_u64() != Some(id));
    });
    let sc = scan(&log, q);
    assert_eq!(sc["files_read"], Value::Null, "{sc}");
    assert_eq!(
        sc["ignored_metrics"],
        serde_json::json!(["number of result data files: no value in the log"])
    );
    // Larger than the table's live files (10): `whatif` leaves it out of
    // `logged_files_read` and says how many it left out.
    let dir = tempdir("iceberg-over");
    let events = with_driver_update(&dir, q, |ups, ids| {
        let id = ids["number of result data files"];
        for u in ups.iter_mut() {
            if u[0].as_u64() == Some(id) {
                u[1] = Value::from(11);
            }
        }
    });
    // Point the copy's catalog at the fixture's warehouse.
    let text = std::fs::read_to_string(Path::new(&events).join("app.log")).unwrap();
    let old = serde_json::to_string(&logged_warehouse(&text)).unwrap();
    let new = serde_json::to_string(&s(&at("warehouse"))).unwrap();
    std::fs::write(
        Path::new(&events).join("app.log"),
        text.replace(old.trim_matches('"'), new.trim_matches('"')),
    )
    .unwrap();
    let o = run(&[
        "whatif",
        &events,
        "--tables",
        "from-logs",
        &s(&at("warehouse")),
        "--engine",
        "minmax",
        "--current-only",
        "--format",
        "jsonl",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = jsonl(&String::from_utf8(o.stdout).unwrap());
    let row = rows.iter().find(|r| r["description"] == q).unwrap();
    assert_eq!(row["logged_files_read"], Value::Null, "{row}");
    let err = String::from_utf8_lossy(&o.stderr);
    // 8 lineitem scans of the 12-file snapshot before the rewrite, and
    // this one.
    assert!(
        err.contains("9 scans logged more files read than their table has live files"),
        "{err}"
    );
}

/// `whatif --engine minmax --current-only` rows of a log, through
/// `--tables from-logs` and the given paths.
fn whatif(log: &str, tables: &[&str]) -> (Vec<Value>, String) {
    let mut args = vec!["whatif", log, "--tables", "from-logs"];
    args.extend_from_slice(tables);
    args.extend_from_slice(&["--engine", "minmax", "--current-only", "--format", "jsonl"]);
    let o = run(&args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        jsonl(&String::from_utf8(o.stdout).unwrap()),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn minmax_on_the_current_snapshot_predicts_what_iceberg_read() {
    // The log's catalog (a Hadoop catalog) locates every table: no name
    // or location is given but the warehouse they may be read from.
    let dir = tempdir("iceberg-minmax");
    let log = log_with_warehouse(&dir, &at("warehouse"));
    let (rows, _) = whatif(&log, &[&s(&at("warehouse"))]);
    let mut compared = 0;
    for r in &rows {
        let d = r["description"].as_str().unwrap_or_default();
        let table = r["table"].as_str().unwrap();
        // lineitem was rewritten after the first 19 queries: those read
        // the snapshot before (12 files), not the current one.
        let current = table != "lake.tpch.lineitem" || d.ends_with(" after");
        if !current || r["logged_files_read"].is_null() {
            continue;
        }
        assert_eq!(r["unknown_predicates"], 0, "{d} {table}");
        assert_eq!(
            r["files_read"], r["logged_files_read"],
            "{d} {table}: minmax against Iceberg's own count"
        );
        compared += 1;
    }
    // 42 scans of the 38 query runs, less the 10 lineitem scans before
    // the rewrite.
    assert_eq!(compared, 32);
    // Skipping happened: the sort by l_shipdate lets q01 read 1 of 10.
    let q01 = rows
        .iter()
        .find(|r| r["description"] == "q01 date range after")
        .unwrap();
    assert_eq!(
        (q01["files_read"].as_u64(), q01["files_total"].as_u64()),
        (Some(1), Some(10))
    );
}

#[test]
fn catalog_settings_outside_the_allowed_tables_are_not_followed() {
    // The log's catalog points at a copy of the warehouse outside the
    // directory given beside from-logs.
    let dir = tempdir("iceberg-outside");
    let outside = Path::new(&dir).join("outside").join("warehouse");
    copy_dir(&at("warehouse"), &outside);
    let allowed = Path::new(&dir).join("allowed");
    std::fs::create_dir_all(&allowed).unwrap();
    let log = log_with_warehouse(&dir, &outside);
    let (rows, err) = whatif(&log, &[&s(&allowed)]);
    assert!(rows.is_empty(), "{rows:?}");
    for t in [
        "lake.tpch.lineitem",
        "lake.tpch.orders",
        "lake.tpch.customer",
    ] {
        assert!(
            err.lines()
                .any(|l| l.contains(t) && l.contains("not followed")),
            "{t}: {err}"
        );
    }
    assert!(err.contains("--allow-outside-table"), "{err}");
    // Allowed: the same run reads them.
    let o = run(&[
        "whatif",
        &log,
        "--tables",
        "from-logs",
        &s(&allowed),
        "--allow-outside-table",
        "--engine",
        "minmax",
        "--current-only",
        "--format",
        "jsonl",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = jsonl(&String::from_utf8(o.stdout).unwrap());
    let tables: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["table"].as_str().unwrap()).collect();
    assert_eq!(
        tables.into_iter().collect::<Vec<_>>(),
        [
            "lake.tpch.customer",
            "lake.tpch.lineitem",
            "lake.tpch.orders"
        ]
    );
}

/// Each execution's description, from the raw log.
fn descriptions(text: &str) -> BTreeMap<u64, String> {
    text.lines()
        .filter(|l| l.contains("SparkListenerSQLExecutionStart"))
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|e| {
            (
                e["executionId"].as_u64().unwrap(),
                e["description"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// `verify --tables from-logs WAREHOUSE` rows of a log (JSON lines).
fn verify_rows(log: &str) -> (Vec<Value>, String) {
    let o = run(&[
        "verify",
        log,
        "--tables",
        "from-logs",
        &s(&at("warehouse")),
        "--format",
        "jsonl",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        jsonl(&String::from_utf8(o.stdout).unwrap()),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn verify_measures_the_rewrite_with_icebergs_own_counts() {
    let dir = tempdir("iceberg-verify");
    let log = log_with_warehouse(&dir, &at("warehouse"));
    // What Iceberg counted for lineitem in the query runs before and
    // after the rewrite, read from the raw log: (files, bytes, runs).
    let text = events_text();
    let described = descriptions(&text);
    let (mut before, mut after) = ((0i64, 0i64, 0u64), (0i64, 0i64, 0u64));
    for (id, scans) in icebergs_counts(&text) {
        let d = &described[&id];
        let lineitem: Vec<&Counted> = scans
            .iter()
            .filter(|c| c.0 == "lake.tpch.lineitem")
            .collect();
        let query =
            d.len() > 3 && d.starts_with('q') && d[1..3].bytes().all(|b| b.is_ascii_digit());
        if !query || lineitem.is_empty() {
            continue;
        }
        let side = if d.ends_with(" after") {
            &mut after
        } else {
            &mut before
        };
        side.0 += lineitem.iter().map(|c| c.1.unwrap()).sum::<i64>();
        side.1 += lineitem.iter().map(|c| c.2.unwrap()).sum::<i64>();
        side.2 += 1;
    }
    // The rewrite as Iceberg's snapshot summary has it.
    let md: Value = serde_json::from_str(
        &std::fs::read_to_string(at("warehouse/tpch/lineitem/metadata/v2.metadata.json")).unwrap(),
    )
    .unwrap();
    let snap = md["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["summary"]["operation"] == "replace")
        .unwrap();
    let (rows, _) = verify_rows(&log);
    // One rewrite: lineitem's; orders and customer were never rewritten.
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(r["table"], "lake.tpch.lineitem");
    assert_eq!(r["operation"], "replace");
    assert_eq!(r["version"], snap["snapshot-id"]);
    assert_eq!(r["rewrite_ms"], snap["timestamp-ms"]);
    let summary = |k: &str| snap["summary"][k].as_str().unwrap().parse::<u64>().unwrap();
    assert_eq!(r["files_removed"], summary("deleted-data-files"));
    assert_eq!(r["files_added"], summary("added-data-files"));
    assert_eq!(r["bytes_rewritten"], summary("removed-files-size"));
    // Each query ran once before and once after: per run, the sums.
    assert_eq!(r["runs_before"], before.2);
    assert_eq!(r["runs_after"], after.2);
    assert_eq!(r["queries_compared"], before.2);
    assert_eq!(r["scans_before"], before.2);
    assert_eq!(r["files_per_run_before"], before.0 as f64);
    assert_eq!(r["files_per_run_after"], after.0 as f64);
    assert_eq!(r["bytes_per_run_before"], before.1 as f64);
    assert_eq!(r["bytes_per_run_after"], after.1 as f64);
    assert!(after.0 < before.0, "{before:?} {after:?}");
    assert_eq!(r["verdict"], "paid");
    assert_eq!(r["ignored_counts"], 0);
    // The prediction, from the snapshot before the rewrite (time travel):
    // minmax on it reproduces what Iceberg read then, and the sort by
    // l_shipdate (no table sort order names it: inferred from the new
    // files' ranges), simulated on its rows, reads fewer.
    assert_eq!(r["key"], "l_shipdate");
    assert_eq!(r["key_source"], "inferred");
    assert_eq!(r["predicted_files_before"], before.0 as f64);
    let predicted = r["predicted_files_after"].as_f64().unwrap();
    assert!(predicted < before.0 as f64, "{r}");
    // verify.csv: the same row, a header first.
    let o = ok(&[
        "verify",
        &log,
        "--tables",
        "from-logs",
        &s(&at("warehouse")),
        "--format",
        "csv",
    ]);
    let mut lines = o.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("table,format,version,rewrite_time,operation,files_removed"),
        "{o}"
    );
    assert_eq!(lines.count(), 1);
}

#[test]
fn a_rewrite_with_no_scans_after_it_says_so() {
    // The log up to the rewrite: every execution of the runs after it
    // left out.
    let text = events_text();
    let after: std::collections::BTreeSet<u64> = descriptions(&text)
        .into_iter()
        .filter(|(_, d)| d.ends_with(" after"))
        .map(|(id, _)| id)
        .collect();
    let dir = tempdir("iceberg-verify-none-after");
    let warehouse = serde_json::to_string(&logged_warehouse(&text)).unwrap();
    let here = serde_json::to_string(&s(&at("warehouse"))).unwrap();
    let log = edited_log(&dir, |l| {
        let e: Value = serde_json::from_str(l).unwrap();
        if e["executionId"]
            .as_u64()
            .is_some_and(|id| after.contains(&id))
        {
            return Vec::new();
        }
        vec![l.replace(warehouse.trim_matches('"'), here.trim_matches('"'))]
    });
    let (rows, _) = verify_rows(&log);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(r["verdict"], "no scans since the rewrite");
    assert_eq!(r["scans_after"], 0);
    assert_eq!(r["files_per_run_after"], Value::Null);
    assert_eq!(r["scans_before"], 10);
}

#[test]
fn verify_leaves_out_a_bad_count_and_counts_it() {
    // Iceberg's count of one run after the rewrite made negative: that
    // run is no measurement; the nine other queries still compare.
    let dir = tempdir("iceberg-verify-negative");
    let events = with_driver_update(&dir, "q01 date range after", |ups, ids| {
        let id = ids["number of result data files"];
        for u in ups.iter_mut() {
            if u[0].as_u64() == Some(id) {
                u[1] = Value::from(-3);
            }
        }
    });
    let app = Path::new(&events).join("app.log");
    let text = std::fs::read_to_string(&app).unwrap();
    let old = serde_json::to_string(&logged_warehouse(&text)).unwrap();
    let new = serde_json::to_string(&s(&at("warehouse"))).unwrap();
    std::fs::write(
        &app,
        text.replace(old.trim_matches('"'), new.trim_matches('"')),
    )
    .unwrap();
    let (rows, _) = verify_rows(&events);
    let r = &rows[0];
    assert_eq!(r["ignored_counts"], 1, "{r}");
    assert_eq!(r["queries_compared"], 9, "{r}");
    assert_eq!(r["scans_after"], 10, "{r}");
    assert_eq!(r["verdict"], "paid");
}

#[test]
fn analyze_writes_verify_csv_and_the_section_only_when_a_rewrite_is_in_range() {
    let text = events_text();
    let described = descriptions(&text);
    let warehouse = serde_json::to_string(&logged_warehouse(&text)).unwrap();
    let here = serde_json::to_string(&s(&at("warehouse"))).unwrap();
    let analyze = |log: &str, out: &Path| {
        let o = run(&[
            "analyze",
            log,
            "--tables",
            "from-logs",
            &s(&at("warehouse")),
            "--out",
            &s(out),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    // The whole log: the rewrite of lineitem is inside it.
    let dir = tempdir("iceberg-analyze-verify");
    let log = log_with_warehouse(&dir, &at("warehouse"));
    let out = Path::new(&dir).join("out");
    analyze(&log, &out);
    let csv = std::fs::read_to_string(out.join("verify.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(lines[1].starts_with("lake.tpch.lineitem,iceberg,"), "{csv}");
    assert!(lines[1].contains(",paid,"), "{csv}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let section = md
        .split("## Did the rewrite pay?")
        .nth(1)
        .expect("the section")
        .split("\n## ")
        .next()
        .unwrap();
    assert!(
        section.contains("| `lake.tpch.lineitem` |") && section.contains("| paid |"),
        "{section}"
    );
    // The calibration: minmax fits every table on Iceberg's own counts.
    let cal = std::fs::read_to_string(out.join("calibration.csv")).unwrap();
    let mut cal = cal.lines();
    let header: Vec<&str> = cal.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut tables = Vec::new();
    for line in cal {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[col("fitted")], "minmax", "{line}");
        assert_eq!(f[col("exact_minmax")], f[col("scans_compared")], "{line}");
        tables.push(f[col("table")].to_string());
    }
    assert_eq!(
        tables,
        [
            "lake.tpch.customer",
            "lake.tpch.lineitem",
            "lake.tpch.orders"
        ]
    );
    assert!(md.contains("## Engine calibration"));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<section id=\"calibration\">"));
    assert!(html.contains("<section id=\"verify\">"), "no section");
    assert!(html.contains("<h2>Did the rewrite pay?</h2>"));
    // The log up to the rewrite's call (its execution and every later
    // one left out): the rewrite is after the input's range.
    let call = described
        .iter()
        .find(|(_, d)| d.starts_with("rewrite lineitem"))
        .map(|(id, _)| *id)
        .expect("the rewrite's execution");
    let dir = tempdir("iceberg-analyze-no-verify");
    let log = edited_log(&dir, |l| {
        let e: Value = serde_json::from_str(l).unwrap();
        if e["executionId"].as_u64().is_some_and(|id| id >= call) {
            return Vec::new();
        }
        vec![l.replace(warehouse.trim_matches('"'), here.trim_matches('"'))]
    });
    let out = Path::new(&dir).join("out");
    analyze(&log, &out);
    assert!(!out.join("verify.csv").exists());
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains("Did the rewrite pay?"), "{md}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(!html.contains("Did the rewrite pay?"));
}

#[test]
fn calibration_picks_minmax_on_icebergs_own_counts() {
    let dir = tempdir("iceberg-calibration");
    let log = log_with_warehouse(&dir, &at("warehouse"));
    let o = run(&[
        "whatif",
        &log,
        "--tables",
        "from-logs",
        &s(&at("warehouse")),
        "--current-only",
        "--format",
        "jsonl",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    let rows = jsonl(&String::from_utf8(o.stdout).unwrap());
    assert!(rows.iter().all(|r| r["engine"] == "minmax"));
    // The scans of each table's current snapshot, from the records: all
    // of customer's and orders', lineitem's after the rewrite (the 10
    // before read the older snapshot: left out).
    let mut counted: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for r in records(&log).iter().filter(|r| is_query(r)) {
        for sc in r["scans"].as_array().unwrap() {
            let t = sc["table"].as_str().unwrap().to_string();
            let e = counted.entry(t.clone()).or_default();
            if t == "lake.tpch.lineitem" && !description(r).ends_with(" after") {
                e.1 += 1;
            } else {
                e.0 += 1;
            }
        }
    }
    for (t, (now, older)) in &counted {
        let line = err
            .lines()
            .find(|l| l.contains(&format!("--engine auto: {t} (spark)")))
            .unwrap_or_else(|| panic!("{t}: {err}"));
        assert!(
            line.contains(&format!(
                "minmax reproduces the logged file counts: {now} of {now} scans exact"
            )),
            "{line}"
        );
        assert_eq!(
            line.contains(&format!("{older} scans of other snapshots left out")),
            *older > 0,
            "{line}"
        );
    }
    assert_eq!(counted.values().map(|c| c.0).sum::<u64>(), 32);
}
