//! Event logs and tables on object stores, read from real servers on
//! loopback: moto's S3 server and Azurite's Blob server, started by
//! `scripts/test_stores.sh` (`make test-stores`), which uploads `samples/`
//! (with its warehouse), `tests/data/spark-logs/tpch-default`,
//! `tests/data/tables` and `tests/data/skipping` under `runs/` of bucket
//! (container) `logs` and says where the servers are:
//!
//! - `LAKEAUDIT_TEST_S3_ENDPOINT`: moto's URL (credentials `test`/`test`);
//! - `LAKEAUDIT_TEST_AZURITE_URL`: Azurite's Blob URL (account
//!   `devstoreaccount1`, its well-known key);
//! - `LAKEAUDIT_TEST_STORES_UPLOAD`: the uploader (`python upload.py`), to
//!   delete an object between listing and reading.
//!
//! Without them each test prints why it is skipped and passes, so a fresh
//! clone's `make test` needs no server. The tests of timeouts, retries,
//! credentials and redaction need none: they run loopback servers of
//! their own (a `TcpListener` on 127.0.0.1:0 in a thread).
//!
//! No test dials outside 127.0.0.0/8: every run gets credentials and a
//! loopback endpoint, or the cloud metadata lookups pointed at a closed
//! loopback port and turned off ([`no_cloud`]).

use crate::common::{scratch_dir, without_field, without_log};
use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A closed loopback port (discard): where the metadata endpoints point.
const CLOSED: &str = "http://127.0.0.1:9";

/// The environment of a run with none of the caller's store settings, and
/// every cloud metadata lookup pointed at a closed loopback port (the EC2
/// one also off), so that no test asks 169.254.169.254.
fn no_cloud(c: &mut Command) -> &mut Command {
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_")
            || k.starts_with("AZURE")
            || k.starts_with("GOOGLE_")
            || k.starts_with("GCE_")
        {
            c.env_remove(k);
        }
    }
    c.env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_METADATA_ENDPOINT", CLOSED)
        .env(
            "AZURE_MSI_ENDPOINT",
            format!("{CLOSED}/metadata/identity/oauth2/token"),
        )
        .env("GCE_METADATA_HOST", "127.0.0.1:9")
        .env("GCE_METADATA_IP", "127.0.0.1:9")
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn s3() -> Option<String> {
    let e = env("LAKEAUDIT_TEST_S3_ENDPOINT");
    if e.is_none() {
        eprintln!(
            "skipped: no S3 server (LAKEAUDIT_TEST_S3_ENDPOINT unset; run `make test-stores`)"
        );
    }
    e
}

fn azurite() -> Option<String> {
    let e = env("LAKEAUDIT_TEST_AZURITE_URL");
    if e.is_none() {
        eprintln!(
            "skipped: no Azurite server (LAKEAUDIT_TEST_AZURITE_URL unset; run `make test-stores`)"
        );
    }
    e
}

/// `lakeaudit ARGS` with the S3 environment of the moto server (and none
/// of the caller's AWS settings).
fn lakeaudit_s3(endpoint: &str, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lakeaudit"));
    no_cloud(&mut c);
    c.env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("AWS_ALLOW_HTTP", "true")
        .args(args)
        .current_dir(testdata::repo_root());
    c.output().expect("lakeaudit runs")
}

/// `lakeaudit ARGS` against Azurite (`key`: the account key, `None` for
/// Azurite's own).
fn lakeaudit_az(url: &str, key: Option<&str>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lakeaudit"));
    no_cloud(&mut c);
    c.env("AZURE_STORAGE_USE_EMULATOR", "true")
        .env("AZURITE_BLOB_STORAGE_URL", url);
    if let Some(key) = key {
        c.env("AZURE_STORAGE_ACCOUNT_KEY", key);
    }
    c.args(args).current_dir(testdata::repo_root());
    c.output().expect("lakeaudit runs")
}

fn local(args: &[&str]) -> Output {
    no_cloud(&mut Command::new(env!("CARGO_BIN_EXE_lakeaudit")))
        .args(args)
        .current_dir(testdata::repo_root())
        .output()
        .expect("lakeaudit runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The pairs (URL, local path) compared: whole prefixes (searched), a
/// rolling-log prefix and one object.
const SAME: [(&str, &str); 5] = [
    ("runs/samples", "samples"),
    ("runs/tpch-default", "tests/data/spark-logs/tpch-default"),
    (
        "runs/tpch-default/eventlog_v2_local-1796009792357",
        "tests/data/spark-logs/tpch-default/eventlog_v2_local-1796009792357",
    ),
    ("runs/samples/spark4-lz4/", "samples/spark4-lz4"),
    ("runs/samples/shop", "samples/shop"),
];

fn assert_same(remote: &Output, local: &Output, url: &str) {
    assert_eq!(
        remote.status.code(),
        local.status.code(),
        "{url}: {}",
        text(&remote.stderr)
    );
    let (r, l) = (without_log(&remote.stdout), without_log(&local.stdout));
    assert!(!l.is_empty(), "{url}: no records locally");
    assert_eq!(r, l, "{url}: records differ from the local run");
    // The `log` field names the URL.
    let first = text(&remote.stdout);
    assert!(
        first.contains(&format!("\"log\":\"{}", url.trim_end_matches('/'))),
        "{url}"
    );
}

#[test]
fn queries_on_s3_equal_the_local_run() {
    let Some(endpoint) = s3() else { return };
    for (rel, path) in SAME {
        let local = local(&["queries", "--format", "jsonl", path]);
        for scheme in ["s3", "s3a"] {
            let url = format!("{scheme}://logs/{rel}");
            let remote = lakeaudit_s3(&endpoint, &["queries", "--format", "jsonl", &url]);
            assert_same(&remote, &local, &url);
        }
    }
    // One object named by its URL (a single-file lz4 log).
    let dir = testdata::repo_root().join("samples/spark35-lz4");
    let file = one_file(&dir);
    let url = format!("s3://logs/runs/samples/spark35-lz4/{file}");
    let remote = lakeaudit_s3(&endpoint, &["queries", "--format", "jsonl", &url]);
    let local = local(&[
        "queries",
        "--format",
        "jsonl",
        &format!("samples/spark35-lz4/{file}"),
    ]);
    assert_same(&remote, &local, &url);
}

/// The first entry of `dir` that is a file (its name).
fn one_file(dir: &Path) -> String {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.into_iter().next().expect("a file")
}

#[test]
fn storage_options_override_the_environment() {
    let Some(endpoint) = s3() else { return };
    // The environment points at a closed port; --storage-option at moto.
    let out = lakeaudit_s3(
        "http://127.0.0.1:9",
        &[
            "queries",
            "--format",
            "jsonl",
            "--storage-option",
            &format!("aws_endpoint={endpoint}"),
            "--storage-option",
            "AWS_ALLOW_HTTP=true",
            "s3://logs/runs/samples/spark4-lz4",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!out.stdout.is_empty());
    let bad = local(&[
        "queries",
        "--storage-option",
        "colour=blue",
        "samples/spark4-lz4",
    ]);
    assert_eq!(bad.status.code(), Some(64), "{}", text(&bad.stderr));
    assert!(text(&bad.stderr).contains("unknown storage option `colour`"));
}

#[test]
fn s3_faults_name_the_url_and_the_other_inputs_are_read() {
    let Some(endpoint) = s3() else { return };
    let good = local(&["queries", "--format", "jsonl", "samples/spark4-lz4"]);
    let out = lakeaudit_s3(
        &endpoint,
        &[
            "queries",
            "--format",
            "jsonl",
            "s3://no-such-bucket/logs",
            "s3://logs/runs/nothing-here",
            "samples/spark4-lz4",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("lakeaudit: s3://no-such-bucket/logs: NoSuchBucket"),
        "{err}"
    );
    assert!(
        err.contains("lakeaudit: s3://logs/runs/nothing-here: no such object"),
        "{err}"
    );
    assert_eq!(without_log(&out.stdout), without_log(&good.stdout));
    assert!(!err.contains("panicked"), "{err}");
}

/// An object deleted after the listing found it and before it is read:
/// the read names its URL.
#[test]
fn object_deleted_between_listing_and_reading() {
    let Some(endpoint) = s3() else { return };
    let Some(upload) = env("LAKEAUDIT_TEST_STORES_UPLOAD") else {
        eprintln!("skipped: LAKEAUDIT_TEST_STORES_UPLOAD unset");
        return;
    };
    parsers::io::set_storage_options(vec![
        ("aws_endpoint".into(), endpoint.clone()),
        ("aws_allow_http".into(), "true".into()),
        ("aws_access_key_id".into(), "test".into()),
        ("aws_secret_access_key".into(), "test".into()),
        ("aws_region".into(), "us-east-1".into()),
    ])
    .expect("options");
    let root = testdata::repo_root();
    let run = |args: &[&str]| {
        let mut words = upload.split_whitespace();
        let program = words.next().expect("uploader");
        let st = Command::new(program)
            .args(words)
            .args(args)
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .current_dir(&root)
            .status()
            .expect("uploader runs");
        assert!(st.success(), "{args:?}");
    };
    run(&["s3", &endpoint, "logs", "doomed", "samples/spark4-zstd"]);
    let found = parsers::io::discover(&["s3://logs/doomed".to_string()]);
    assert!(found.errors.is_empty(), "{:?}", found.errors);
    let input = found.inputs.first().expect("a log found");
    let part = input.parts[0].path.clone().expect("a path");
    let url = part.to_str().expect("utf-8").to_string();
    let key = url.strip_prefix("s3://logs/").expect("in the bucket");
    run(&["s3", &endpoint, "logs", "delete", key]);
    let err = match parsers::io::LineReader::open(input, parsers::io::DEFAULT_MAX_LINE) {
        Err(e) => e.to_string(),
        Ok(mut r) => loop {
            match r.next_line() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("{url}: read although deleted"),
                Err(e) => break e.to_string(),
            }
        },
    };
    assert!(err.starts_with(&format!("{url}: ")), "{err}");
    assert!(
        err.contains("NoSuchKey") || err.contains("not found"),
        "{err}"
    );
}

#[test]
fn queries_on_azurite_equal_the_local_run() {
    let Some(blob) = azurite() else { return };
    for (rel, path) in SAME {
        let local = local(&["queries", "--format", "jsonl", path]);
        for url in [
            format!("az://logs/{rel}"),
            format!("abfss://logs@devstoreaccount1.dfs.core.windows.net/{rel}"),
        ] {
            let remote = lakeaudit_az(&blob, None, &["queries", "--format", "jsonl", &url]);
            assert_same(&remote, &local, &url);
        }
    }
}

#[test]
fn azure_wrong_credentials_name_the_url() {
    let Some(blob) = azurite() else { return };
    // A well-formed key that is not the account's: Azurite refuses every
    // request's signature (403).
    let wrong = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXktd3Jvbmcta2V5LXdyb25nLWtleQ==";
    let out = lakeaudit_az(
        &blob,
        Some(wrong),
        &[
            "queries",
            "--format",
            "jsonl",
            "az://logs/runs/samples/spark4-lz4",
            "samples/spark4-lz4",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("lakeaudit: az://logs/runs/samples/spark4-lz4: "),
        "{err}"
    );
    assert!(err.contains("403"), "{err}");
    let good = local(&["queries", "--format", "jsonl", "samples/spark4-lz4"]);
    assert_eq!(without_log(&out.stdout), without_log(&good.stdout));
    // A container that does not exist.
    let out = lakeaudit_az(&blob, None, &["queries", "az://no-such-container/x"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("lakeaudit: az://no-such-container/x: "),
        "{err}"
    );
}

#[test]
fn edges_on_s3_and_azurite_equal_the_local_run() {
    let local = local(&["edges", "samples"]);
    assert_eq!(local.status.code(), Some(0));
    if let Some(endpoint) = s3() {
        let remote = lakeaudit_s3(&endpoint, &["edges", "s3://logs/runs/samples"]);
        assert_eq!(remote.status.code(), Some(0), "{}", text(&remote.stderr));
        assert_eq!(text(&remote.stdout), text(&local.stdout));
    }
    if let Some(blob) = azurite() {
        let remote = lakeaudit_az(&blob, None, &["edges", "az://logs/runs/samples"]);
        assert_eq!(remote.status.code(), Some(0), "{}", text(&remote.stderr));
        assert_eq!(text(&remote.stdout), text(&local.stdout));
    }
}

/// The connection dropped in the middle of an object (by a proxy in front
/// of moto, once): the read resumes where it stopped (object_store's
/// bounded retry) and the records equal the local run's.
#[test]
fn a_connection_dropped_mid_object_is_resumed() {
    let (Some(endpoint), Some(cut_log)) = (
        env("LAKEAUDIT_TEST_S3_CUTTING_ENDPOINT"),
        env("LAKEAUDIT_TEST_CUT_LOG"),
    ) else {
        eprintln!("skipped: no cutting proxy (LAKEAUDIT_TEST_S3_CUTTING_ENDPOINT unset; run `make test-stores`)");
        return;
    };
    let url = "s3://logs/runs/tpch-default";
    let remote = lakeaudit_s3(&endpoint, &["queries", "--format", "jsonl", url]);
    let cuts = std::fs::read_to_string(&cut_log).unwrap_or_default();
    assert!(
        cuts.contains("cut GET /logs/runs/tpch-default/"),
        "the proxy cut nothing: {cuts:?}"
    );
    let local = local(&[
        "queries",
        "--format",
        "jsonl",
        "tests/data/spark-logs/tpch-default",
    ]);
    assert_same(&remote, &local, url);
}

/// Table inputs compared with their local copies, (key under the bucket,
/// local path): warehouses searched (Delta with a deletion-vector file,
/// partitions, clustering; Iceberg v2 with deletes, copied from elsewhere),
/// single tables, Parquet checkpoints (read by ranged GETs).
const TABLES: [(&str, &str); 6] = [
    ("runs/samples/warehouse", "samples/warehouse"),
    (
        "runs/samples/warehouse/shop.db/orders",
        "samples/warehouse/shop.db/orders",
    ),
    ("runs/tables/warehouse", "tests/data/tables/warehouse"),
    ("runs/tables/checkpoints", "tests/data/tables/checkpoints"),
    (
        "runs/skipping/iceberg/orders",
        "tests/data/skipping/iceberg/orders",
    ),
    ("runs/skipping/delta", "tests/data/skipping/delta"),
];

/// `tables` on a URL against the same run on the local copy: same exit
/// code, same records but for `location`, which names the URL; no error.
fn assert_same_tables(remote: &Output, local: &Output, url: &str) {
    let err = text(&remote.stderr);
    assert_eq!(remote.status.code(), Some(0), "{url}: {err}");
    assert_eq!(
        local.status.code(),
        Some(0),
        "{url}: {}",
        text(&local.stderr)
    );
    assert!(
        err.lines().all(|l| l.starts_with("lakeaudit: warning: ")),
        "{url}: {err}"
    );
    let (r, l) = (
        without_field(&remote.stdout, "location"),
        without_field(&local.stdout, "location"),
    );
    assert!(!l.is_empty(), "{url}: no tables locally");
    assert_eq!(r, l, "{url}: table state differs from the local run");
    let base = url.trim_end_matches('/');
    for line in text(&remote.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let loc = v["location"].as_str().expect("a location");
        assert!(loc.starts_with(base), "{url}: location {loc}");
    }
}

/// The newest `*.metadata.json` of an Iceberg table directory (its name).
fn newest_metadata(table: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(table.join("metadata"))
        .expect("metadata dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".metadata.json"))
        .collect();
    names.sort();
    names.pop().expect("a metadata file")
}

#[test]
fn tables_on_s3_equal_the_local_run() {
    let Some(endpoint) = s3() else { return };
    for (rel, path) in TABLES {
        let local = local(&["tables", "--deep", "--format", "jsonl", path]);
        for scheme in ["s3", "s3a"] {
            let url = format!("{scheme}://logs/{rel}");
            let remote = lakeaudit_s3(&endpoint, &["tables", "--deep", "--format", "jsonl", &url]);
            assert_same_tables(&remote, &local, &url);
        }
    }
    // The Iceberg table written elsewhere: its declared location is
    // mapped onto the URL, and the user is told.
    let url = "s3://logs/runs/samples/warehouse";
    let remote = lakeaudit_s3(&endpoint, &["tables", "--format", "jsonl", url]);
    let err = text(&remote.stderr);
    assert!(
        err.contains(&format!(
            "lakeaudit: warning: {url}/shop.db/web_events: the metadata declares location file:///"
        )) && err.contains("not on this store"),
        "{err}"
    );
    // One Iceberg metadata file named by its URL.
    let table = "tests/data/skipping/iceberg/orders";
    let meta = newest_metadata(&testdata::repo_root().join(table));
    let by_path = local(&[
        "tables",
        "--format",
        "jsonl",
        &format!("{table}/metadata/{meta}"),
    ]);
    let url = format!("s3://logs/runs/skipping/iceberg/orders/metadata/{meta}");
    let remote = lakeaudit_s3(&endpoint, &["tables", "--format", "jsonl", &url]);
    assert_same_tables(&remote, &by_path, "s3://logs/runs/skipping/iceberg/orders");
    // Every output of `tables --out` but table_state (whose location
    // column names the URL) is byte-identical.
    let tmp = scratch_dir("stores-tables-out");
    for (i, (rel, path)) in [TABLES[0], TABLES[2], TABLES[3]].into_iter().enumerate() {
        let (l, r) = (tmp.join(format!("l{i}")), tmp.join(format!("r{i}")));
        let lo = local(&[
            "tables",
            "--deep",
            "--out",
            l.to_str().expect("utf-8"),
            path,
        ]);
        let url = format!("s3://logs/{rel}");
        let ro = lakeaudit_s3(
            &endpoint,
            &[
                "tables",
                "--deep",
                "--out",
                r.to_str().expect("utf-8"),
                &url,
            ],
        );
        assert_eq!(lo.status.code(), Some(0), "{}", text(&lo.stderr));
        assert_eq!(ro.status.code(), Some(0), "{}", text(&ro.stderr));
        for f in [
            "compaction.jsonl",
            "deletes.jsonl",
            "deletes_tables.jsonl",
            "table_stats.csv",
        ] {
            let (a, b) = (std::fs::read(l.join(f)), std::fs::read(r.join(f)));
            assert_eq!(
                a.expect("local output"),
                b.expect("remote output"),
                "{url}: {f}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `analyze`, `edges` and `whatif` given a warehouse URL: outputs equal to
/// the local run's but for the location column (which names the URL) and
/// the warning saying the Iceberg table's declared location was mapped.
/// `whatif` simulates layouts from the data files read from the store.
#[test]
fn analyze_edges_and_whatif_with_tables_on_s3_equal_the_local_run() {
    let Some(endpoint) = s3() else { return };
    let url = "s3://logs/runs/samples/warehouse";
    let tmp = scratch_dir("stores-analyze");
    let (l, r) = (tmp.join("local"), tmp.join("remote"));
    let (ls, rs) = (l.to_str().expect("utf-8"), r.to_str().expect("utf-8"));
    let lo = local(&[
        "analyze",
        "samples/shop",
        "--tables",
        "samples/warehouse",
        "--out",
        ls,
    ]);
    let ro = lakeaudit_s3(
        &endpoint,
        &["analyze", "samples/shop", "--tables", url, "--out", rs],
    );
    assert_eq!(lo.status.code(), Some(0), "{}", text(&lo.stderr));
    assert_eq!(ro.status.code(), Some(0), "{}", text(&ro.stderr));
    let warnings: Vec<String> = text(&ro.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("lakeaudit: warning: "))
        .filter(|w| w.contains("not on this store"))
        .map(str::to_string)
        .collect();
    assert!(!warnings.is_empty(), "{}", text(&ro.stderr));
    let mut compared = 0;
    for e in std::fs::read_dir(&l).expect("local outputs").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let (a, b) = (
            std::fs::read(e.path()).expect("local output"),
            std::fs::read(r.join(&name)).expect("the same output remotely"),
        );
        let (at, mut bt) = (text(&a), text(&b));
        match name.as_str() {
            "table_state.csv" => {
                bt = bt.replace(url, "samples/warehouse");
                assert!(text(&b).contains(&format!(",{url}/shop.db/orders,")));
            }
            "report.md" => {
                // The same report up to the inputs; there, the warnings
                // (only these) where the local run says there were none.
                let (lh, lt) = at.split_once("\n## Inputs\n").expect("inputs");
                let (rh, rt) = bt.split_once("\n## Inputs\n").expect("inputs");
                assert_eq!(rh, lh, "report.md differs before its inputs");
                let rest = |t: &str, drop: &[&str]| -> Vec<String> {
                    t.lines()
                        .filter(|l| !l.is_empty() && !drop.iter().any(|d| l.contains(d)))
                        .map(str::to_string)
                        .collect()
                };
                assert!(rt.contains("not on this store"), "{rt}");
                // Both runs read the local logs, whose directory also holds
                // reference.json: both name it as skipped, so the local
                // run has a warnings heading too.
                let local_only = [
                    "All inputs were read without errors.",
                    "Warnings and errors:",
                ];
                assert_eq!(
                    rest(rt, &["not on this store", "Warnings and errors:"]),
                    rest(lt, &local_only),
                );
                compared += 1;
                continue;
            }
            "report.html" => {
                let (lh, lt) = at.split_once("<section id=\"inputs\">").expect("inputs");
                let (rh, rt) = bt.split_once("<section id=\"inputs\">").expect("inputs");
                assert_eq!(rh, lh, "report.html differs before its inputs");
                let from = rt.find("<h3>Warnings</h3>").expect("warnings");
                let to = from + rt[from..].find("</ul>").expect("list end") + "</ul>".len();
                assert!(rt[from..to].contains("not on this store"));
                let rt = format!("{}{}", &rt[..from], &rt[to..]);
                // The local run's one warning names reference.json (the
                // store run's list, removed above, names it too).
                let skipped = "<h3>Warnings</h3><ul class=\"problems\" id=\"warnings\"><li>skipped 1 file(s) that are not event logs and 0 table directories not searched for logs: samples/shop/reference.json</li></ul>";
                assert_eq!(
                    rt,
                    lt.replace("<p>All inputs were read without errors.</p>", "")
                        .replace(skipped, "")
                );
                compared += 1;
                continue;
            }
            _ => {
                assert!(a == b, "{name} differs");
                compared += 1;
                continue;
            }
        }
        assert_eq!(bt, at, "{name} differs beyond the location and the warning");
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} outputs");
    let _ = std::fs::remove_dir_all(&tmp);

    let lo = local(&["edges", "samples/shop", "--tables", "samples/warehouse"]);
    let ro = lakeaudit_s3(&endpoint, &["edges", "samples/shop", "--tables", url]);
    assert_eq!(ro.status.code(), Some(0), "{}", text(&ro.stderr));
    assert_eq!(text(&ro.stdout), text(&lo.stdout));

    let args = |t: &'static str| ["whatif", "--format", "jsonl", "samples/shop", "--tables", t];
    let lo = local(&args("samples/warehouse"));
    let ro = lakeaudit_s3(&endpoint, &args("s3://logs/runs/samples/warehouse"));
    assert_eq!(ro.status.code(), Some(0), "{}", text(&ro.stderr));
    assert!(!lo.stdout.is_empty());
    assert_eq!(text(&ro.stdout), text(&lo.stdout));
    // The layouts simulated on the skipping fixture's data files.
    let lo = local(&[
        "whatif",
        "--format",
        "jsonl",
        "tests/data/skipping/spark-events",
        "--tables",
        "tests/data/skipping/delta/date",
        "tests/data/skipping/iceberg",
    ]);
    let ro = lakeaudit_s3(
        &endpoint,
        &[
            "whatif",
            "--format",
            "jsonl",
            "tests/data/skipping/spark-events",
            "--tables",
            "s3://logs/runs/skipping/delta/date",
            "s3://logs/runs/skipping/iceberg",
        ],
    );
    assert_eq!(ro.status.code(), Some(0), "{}", text(&ro.stderr));
    assert!(
        text(&lo.stdout).contains("\"layout\":\"l_shipdate\""),
        "no simulated layout"
    );
    assert_eq!(text(&ro.stdout), text(&lo.stdout));
}

/// Runs the uploader (`upload.py s3 ENDPOINT ...`) against moto.
fn upload(endpoint: &str, args: &[&str]) {
    let upload = env("LAKEAUDIT_TEST_STORES_UPLOAD").expect("LAKEAUDIT_TEST_STORES_UPLOAD");
    let mut words = upload.split_whitespace();
    let program = words.next().expect("uploader");
    let st = Command::new(program)
        .args(words)
        .arg("s3")
        .arg(endpoint)
        .arg("logs")
        .args(args)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .current_dir(testdata::repo_root())
        .status()
        .expect("uploader runs");
    assert!(st.success(), "{args:?}");
}

#[test]
fn table_faults_name_the_url_and_the_other_tables_are_read() {
    let Some(endpoint) = s3() else { return };
    let nation = "samples/warehouse/shop.db/nation";
    let good = local(&["tables", "--format", "jsonl", nation]);
    let out = lakeaudit_s3(
        &endpoint,
        &[
            "tables",
            "--format",
            "jsonl",
            "s3://no-such-bucket/wh",
            "s3://logs/runs/no-tables-here",
            "s3://logs/runs/samples/shop",
            nation,
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for e in [
        "lakeaudit: s3://no-such-bucket/wh: NoSuchBucket",
        "lakeaudit: s3://logs/runs/no-tables-here: no such object",
        "lakeaudit: s3://logs/runs/samples/shop: no Delta or Iceberg tables found",
    ] {
        assert!(err.contains(e), "{e}: {err}");
    }
    assert_eq!(
        without_field(&out.stdout, "location"),
        without_field(&good.stdout, "location")
    );
    assert!(!err.contains("panicked"), "{err}");

    // Objects the metadata names, gone when read: the Iceberg table's
    // manifest list and the Delta table's deletion-vector file.
    if env("LAKEAUDIT_TEST_STORES_UPLOAD").is_none() {
        eprintln!("skipped: LAKEAUDIT_TEST_STORES_UPLOAD unset");
        return;
    }
    let root = testdata::repo_root();
    let wh = root.join("samples/warehouse/shop.db");
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            wh.join("web_events/metadata")
                .join(newest_metadata(&wh.join("web_events"))),
        )
        .expect("metadata"),
    )
    .expect("JSON");
    let current = &meta["current-snapshot-id"];
    let list = meta["snapshots"]
        .as_array()
        .expect("snapshots")
        .iter()
        .find(|s| &s["snapshot-id"] == current)
        .and_then(|s| s["manifest-list"].as_str())
        .and_then(|l| l.rsplit('/').next())
        .expect("a manifest list")
        .to_string();
    let dv = one_file(&wh.join("orders"));
    assert!(dv.starts_with("deletion_vector_"), "{dv}");
    upload(&endpoint, &["doomed-tables", "samples/warehouse"]);
    let list_key = format!("doomed-tables/warehouse/shop.db/web_events/metadata/{list}");
    let dv_key = format!("doomed-tables/warehouse/shop.db/orders/{dv}");
    upload(&endpoint, &["delete", &list_key, &dv_key]);
    let url = "s3://logs/doomed-tables/warehouse";
    let out = lakeaudit_s3(&endpoint, &["tables", "--deep", "--format", "jsonl", url]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for key in [&list_key, &dv_key] {
        assert!(
            err.contains(&format!("lakeaudit: s3://logs/{key}: not found")),
            "{key}: {err}"
        );
    }
    // The other tables are read, as locally; the Delta table with its
    // state from the log.
    let local = local(&["tables", "--deep", "--format", "jsonl", "samples/warehouse"]);
    let expected: Vec<serde_json::Value> = without_field(&local.stdout, "location")
        .into_iter()
        .filter(|v| v["table"] != "shop.web_events")
        .collect();
    assert_eq!(expected.len(), 4);
    assert_eq!(without_field(&out.stdout, "location"), expected);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn tables_on_azurite_equal_the_local_run() {
    let Some(blob) = azurite() else { return };
    for (rel, path) in [TABLES[0], TABLES[3], TABLES[4]] {
        let local = local(&["tables", "--deep", "--format", "jsonl", path]);
        for url in [
            format!("az://logs/{rel}"),
            format!("abfss://logs@devstoreaccount1.dfs.core.windows.net/{rel}"),
        ] {
            let remote = lakeaudit_az(
                &blob,
                None,
                &["tables", "--deep", "--format", "jsonl", &url],
            );
            assert_same_tables(&remote, &local, &url);
        }
    }
    // A wrong key: every request refused (403), the URL named, the local
    // table still read.
    let wrong = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXktd3Jvbmcta2V5LXdyb25nLWtleQ==";
    let nation = "samples/warehouse/shop.db/nation";
    let out = lakeaudit_az(
        &blob,
        Some(wrong),
        &[
            "tables",
            "--format",
            "jsonl",
            "az://logs/runs/samples/warehouse",
            nation,
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("lakeaudit: az://logs/runs/samples/warehouse: "),
        "{err}"
    );
    assert!(err.contains("403"), "{err}");
    let good = local(&["tables", "--format", "jsonl", nation]);
    assert_eq!(
        without_field(&out.stdout, "location"),
        without_field(&good.stdout, "location")
    );
}

/// `file://` URLs name local tables: the same records as their paths.
#[test]
fn tables_given_as_file_urls_are_the_local_paths() {
    let root = testdata::repo_root();
    let path = "samples/warehouse";
    let url = url_of(&root.join(path));
    let by_path = local(&["tables", "--format", "jsonl", path]);
    let by_url = local(&["tables", "--format", "jsonl", &url]);
    assert_same_tables(&by_url, &by_path, &url_path(&url));
}

/// `file://` and the percent-encoded absolute path.
fn url_of(p: &Path) -> String {
    let mut u = String::from("file://");
    for b in p.to_str().expect("utf-8").bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' => {
                u.push(b as char)
            }
            other => u.push_str(&format!("%{other:02X}")),
        }
    }
    u
}

/// The local path a `file://` URL of [`url_of`] names, as the table's
/// location shows it.
fn url_path(url: &str) -> String {
    let mut out = Vec::new();
    let b = url.trim_start_matches("file://").as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).expect("hex");
            out.push(u8::from_str_radix(hex, 16).expect("hex"));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn records_on_s3_give_the_outputs_of_the_local_records() {
    let Some(endpoint) = s3() else { return };
    if env("LAKEAUDIT_TEST_STORES_UPLOAD").is_none() {
        eprintln!("skipped: LAKEAUDIT_TEST_STORES_UPLOAD unset");
        return;
    }
    // The samples' records, written as a Spark map's job output would be
    // laid out (records/ with a _SUCCESS marker beside the part file).
    let dir = scratch_dir("stores-records-s3").join("job");
    let parts = dir.join("records");
    std::fs::create_dir_all(&parts).unwrap();
    std::fs::write(parts.join("_SUCCESS"), b"").unwrap();
    let part = parts.join("part-00000.parquet");
    let made = local(&[
        "queries",
        "samples",
        "--format",
        "parquet",
        "-o",
        part.to_str().unwrap(),
    ]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    upload(&endpoint, &["records-run", dir.to_str().unwrap()]);
    let url = "s3://logs/records-run/job";
    for cmd in [
        &["edges", "--format", "jsonl"][..],
        &["plan", "--format", "json"],
    ] {
        let there = lakeaudit_s3(&endpoint, &[cmd, &["--records", url]].concat());
        let here = local(&[cmd, &["--records", dir.to_str().unwrap()]].concat());
        assert!(there.status.success(), "{cmd:?}: {}", text(&there.stderr));
        assert_eq!(text(&there.stdout), text(&here.stdout), "{cmd:?}");
        assert!(!there.stdout.is_empty(), "{cmd:?}");
    }
    // One records object by its URL, and a prefix with no records.
    let one = format!("{url}/records/part-00000.parquet");
    let there = lakeaudit_s3(
        &endpoint,
        &["edges", "--format", "jsonl", "--records", &one],
    );
    assert!(there.status.success(), "{}", text(&there.stderr));
    let none = lakeaudit_s3(
        &endpoint,
        &["edges", "--records", "s3://logs/no-such-prefix"],
    );
    assert_eq!(none.status.code(), Some(2), "{}", text(&none.stderr));
    assert!(
        text(&none.stderr).contains("s3://logs/no-such-prefix"),
        "{}",
        text(&none.stderr)
    );
}

// ---- Loopback servers of the tests' own: timeouts, retries, credentials,
// redaction. They run in every `cargo test` (no store server needed).

/// One request's head: method, path with query, headers (names in lower
/// case).
type Head = (String, String, Vec<(String, String)>);

/// The next request's [`Head`]; `None` at the end of the connection.
fn request(r: &mut BufReader<TcpStream>) -> Option<Head> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut words = line.split_whitespace();
    let (method, path) = (words.next()?.to_string(), words.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    Some((method, path, headers))
}

/// A server on 127.0.0.1:0 whose connections `answer` handles, each in its
/// own thread; its `http://` URL.
fn serve(answer: fn(TcpStream)) -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let addr = l.local_addr().expect("its address");
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || answer(s));
        }
    });
    format!("http://{addr}")
}

/// Accepts, reads, never answers.
fn silent(mut s: TcpStream) {
    let mut buf = [0u8; 4096];
    while matches!(s.read(&mut buf), Ok(n) if n > 0) {}
}

const STALLING_LEN: usize = 100_000;
const STALLING_HEAD: &str = "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.1\"}\n";

/// An S3 object of 100,000 bytes whose GET sends its headers and its first
/// line, then nothing (a resumed GET: its headers, then nothing).
fn stalling(s: TcpStream) {
    let mut w = s.try_clone().expect("stream");
    let mut r = BufReader::new(s);
    while let Some((method, _, headers)) = request(&mut r) {
        let common = "ETag: \"e1\"\r\nLast-Modified: Fri, 04 Dec 2026 10:00:00 GMT\r\n";
        if method == "HEAD" {
            let _ = write!(
                w,
                "HTTP/1.1 200 OK\r\nContent-Length: {STALLING_LEN}\r\n{common}\r\n"
            );
            continue;
        }
        let from: usize = headers
            .iter()
            .find(|(k, _)| k == "range")
            .and_then(|(_, v)| v.strip_prefix("bytes=")?.split('-').next()?.parse().ok())
            .unwrap_or(0);
        let status = if from > 0 {
            format!(
                "206 Partial Content\r\nContent-Range: bytes {from}-{}/{STALLING_LEN}",
                STALLING_LEN - 1
            )
        } else {
            "200 OK".to_string()
        };
        let _ = write!(
            w,
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\n{common}\r\n",
            STALLING_LEN - from
        );
        if from == 0 {
            let _ = w.write_all(STALLING_HEAD.as_bytes());
        }
        let _ = w.flush();
        std::thread::sleep(Duration::from_secs(300));
        return;
    }
}

/// `lakeaudit ARGS` with S3 credentials and `endpoint`, no metadata lookup.
fn lakeaudit_at(endpoint: &str, extra_env: &[(&str, &str)], args: &[&str]) -> (Output, Duration) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lakeaudit"));
    no_cloud(&mut c)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("AWS_ALLOW_HTTP", "true");
    for (k, v) in extra_env {
        c.env(k, v);
    }
    c.args(args).current_dir(testdata::repo_root());
    let t = Instant::now();
    let out = c.output().expect("lakeaudit runs");
    (out, t.elapsed())
}

/// The local log read in the same run as a failing store keeps its output.
fn assert_local_kept(out: &Output) {
    let good = local(&["queries", "--format", "jsonl", "samples/spark4-lz4"]);
    assert!(!good.stdout.is_empty());
    assert_eq!(
        without_log(&out.stdout),
        without_log(&good.stdout),
        "the local log's records are not those it gives alone"
    );
}

/// An endpoint that accepts the connection and never answers: each
/// attempt gives up after `--store-timeout`, the run ends, the URL is
/// named with why, and the local log given with it keeps its output.
#[test]
fn an_endpoint_that_never_answers_times_out() {
    let endpoint = serve(silent);
    let (out, took) = lakeaudit_at(
        &endpoint,
        &[],
        &[
            "queries",
            "--format",
            "jsonl",
            "--store-timeout",
            "1s",
            "s3://logs/runs/app-1",
            "samples/spark4-lz4",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("lakeaudit: s3://logs/runs/app-1: ")
            && err.contains("no response (first byte) within 1 s"),
        "{err}"
    );
    // Retry notices as they happen.
    assert!(err.contains("lakeaudit: warning: s3://logs: HEAD /logs/runs/app-1: no response (first byte) within 1 s; retrying (attempt 2 of 4"), "{err}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert_local_kept(&out);
}

/// An object whose body stops mid-stream: the idle-body timeout ends each
/// attempt (object_store resumes the body, which stalls again), the URL
/// is named, the local log keeps its output.
#[test]
fn a_body_that_stalls_mid_object_times_out() {
    let endpoint = serve(stalling);
    let (out, took) = lakeaudit_at(
        &endpoint,
        &[],
        &[
            "queries",
            "--format",
            "jsonl",
            "--store-timeout",
            "1s",
            "s3://logs/runs/app-1",
            "samples/spark4-lz4",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("lakeaudit: s3://logs/runs/app-1"), "{err}");
    assert!(
        err.contains("the body stalled: no data within 1 s"),
        "{err}"
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert_local_kept(&out);
}

/// `--store-timeout` is checked before anything is read.
#[test]
fn store_timeout_values_are_checked() {
    for bad in ["0s", "30", "fast", "2d"] {
        let out = local(&["queries", "--store-timeout", bad, "samples/spark4-lz4"]);
        assert_eq!(out.status.code(), Some(64), "{bad}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("--store-timeout"), "{bad}");
    }
    let out = local(&["queries", "--store-timeout", "500ms", "samples/spark4-lz4"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// A listing of 1,500 objects, then the server is gone (its port closed):
/// the run's retry budget is spent on the first objects, the others fail
/// at once (the store is no longer asked), and the run ends in seconds,
/// not 1,500 × (3 retries with backoff). Notices reach stderr.
#[test]
fn a_dead_server_spends_the_run_retry_budget_once() {
    let l = TcpListener::bind("127.0.0.1:0").expect("port");
    let endpoint = format!("http://{}", l.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let mut w = s.try_clone().expect("stream");
            let mut r = BufReader::new(s);
            let Some((method, path, _)) = request(&mut r) else {
                continue;
            };
            if method == "HEAD" {
                let _ = w.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                continue;
            }
            assert!(path.contains("list-type=2"), "{path}");
            let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>logs</Name><Prefix>runs/</Prefix><KeyCount>1500</KeyCount><MaxKeys>1500</MaxKeys><IsTruncated>false</IsTruncated>");
            for i in 1..=1500 {
                xml.push_str(&format!("<Contents><Key>runs/app-{i:04}</Key><LastModified>2026-12-04T10:00:00.000Z</LastModified><ETag>&quot;e&quot;</ETag><Size>100</Size><StorageClass>STANDARD</StorageClass></Contents>"));
            }
            xml.push_str("</ListBucketResult>");
            let _ = write!(
                w,
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{xml}",
                xml.len()
            );
            // The server dies: its port closes.
            return;
        }
    });
    let (out, took) = lakeaudit_at(
        &endpoint,
        &[],
        &[
            "queries",
            "--format",
            "jsonl",
            "s3://logs/runs",
            "samples/spark4-lz4",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        &err[..err.len().min(4000)]
    );
    let failed = err
        .lines()
        .filter(|l| l.starts_with("lakeaudit: s3://logs/runs/app-"))
        .count();
    assert_eq!(failed, 1500, "{}", &err[..err.len().min(4000)]);
    assert!(err.contains("retries left for this run"), "no retry notice");
    assert!(
        err.contains("not sent: this store failed its last 3 attempts"),
        "the store was asked to the end"
    );
    assert!(took < Duration::from_secs(60), "took {took:?}");
    assert_local_kept(&out);
}

/// `lakeaudit ARGS` with only `env` set for the stores (no metadata lookup
/// leaves loopback).
fn lakeaudit_env(env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lakeaudit"));
    no_cloud(&mut c);
    for (k, v) in env {
        c.env(k, v);
    }
    c.args(args)
        .current_dir(testdata::repo_root())
        .output()
        .expect("lakeaudit runs")
}

/// Missing credentials and settings are named with the settings that
/// supply them, before any request to the store; the metadata endpoint
/// (here a closed loopback port) is asked when nothing else is set, and
/// its failure said as such.
#[test]
fn missing_credentials_and_settings_are_named() {
    let url = "s3://logs/runs/app-1";
    let args = ["queries", "--format", "jsonl", url, "samples/spark4-lz4"];
    // Nothing set, metadata off.
    let out = lakeaudit_env(&[], &args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("lakeaudit: {url}: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or --storage-option aws_access_key_id=")), "{err}");
    assert!(err.contains("AWS_EC2_METADATA_DISABLED"), "{err}");
    assert_local_kept(&out);
    // Nothing set, the metadata endpoint asked (a closed loopback port).
    let out = lakeaudit_env(&[("AWS_EC2_METADATA_DISABLED", "false")], &args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no AWS credentials: set AWS_ACCESS_KEY_ID")
            && err.contains(&format!(
                "the metadata endpoint {CLOSED} (instance credentials) gave none"
            )),
        "{err}"
    );
    // A plain-HTTP endpoint without AWS_ALLOW_HTTP.
    let creds = [
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_ENDPOINT_URL", CLOSED),
    ];
    let out = lakeaudit_env(&creds, &args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("lakeaudit: {url}: the endpoint {CLOSED} is plain HTTP, which is refused unless allowed: set AWS_ALLOW_HTTP=true or --storage-option aws_allow_http=true")), "{err}");
    assert!(!err.contains("URL scheme is not allowed"), "{err}");
    // One half of a key pair.
    let out = lakeaudit_env(&[("AWS_ACCESS_KEY_ID", "test")], &args);
    assert!(
        text(&out.stderr)
            .contains("AWS_ACCESS_KEY_ID (aws_access_key_id) is set but not AWS_SECRET_ACCESS_KEY"),
        "{}",
        text(&out.stderr)
    );
    // Azure: no account; an account with no credentials (the managed
    // identity endpoint, a closed loopback port, asked); plain HTTP.
    let az = "az://logs/runs/app-1";
    let out = lakeaudit_env(&[], &["queries", az]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "lakeaudit: {az}: no Azure storage account: set AZURE_STORAGE_ACCOUNT_NAME"
        )) && err.contains("AZURE_STORAGE_USE_EMULATOR=true with AZURITE_BLOB_STORAGE_URL"),
        "{err}"
    );
    let out = lakeaudit_env(&[("AZURE_STORAGE_ACCOUNT_NAME", "acct")], &["queries", az]);
    let err = text(&out.stderr);
    assert!(err.contains(&format!("lakeaudit: {az}: no Azure credentials: set AZURE_STORAGE_ACCOUNT_KEY")) && err.contains("the metadata endpoint http://127.0.0.1:9/metadata/identity/oauth2/token (instance credentials) gave none"), "{err}");
    let out = lakeaudit_env(
        &[
            ("AZURE_STORAGE_ACCOUNT_NAME", "acct"),
            ("AZURE_STORAGE_ACCOUNT_KEY", "a2V5"),
            ("AZURE_STORAGE_ENDPOINT", CLOSED),
        ],
        &["queries", az],
    );
    let err = text(&out.stderr);
    assert!(err.contains("is plain HTTP, which is refused unless allowed: set AZURE_ALLOW_HTTP=true or --storage-option azure_allow_http=true"), "{err}");
}

/// The addresses a `strace -f -e trace=connect` log shows dialled (IPv4
/// and IPv6; Unix sockets are not addresses).
fn dialled(log: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in log.lines().filter(|l| l.contains("connect(")) {
        for (open, close) in [("inet_addr(\"", "\""), ("inet_pton(AF_INET6, \"", "\"")] {
            if let Some(rest) = line.split(open).nth(1) {
                if let Some(addr) = rest.split(close).next() {
                    out.push(addr.to_string());
                }
            }
        }
    }
    out
}

/// The no-credentials case under `strace`: nothing outside 127.0.0.0/8
/// (and ::1) is dialled. Every `connect` fails by strace's fault injection,
/// so not even a lakeaudit that tried would send a packet; the trace still
/// shows where it tried. With `AWS_EC2_METADATA_DISABLED=true` and no
/// metadata endpoint set, nothing is dialled at all (before the fix: the
/// instance metadata address 169.254.169.254); with the metadata endpoint
/// (EC2, Azure managed identity) pointed at loopback, only loopback.
#[test]
fn no_credentials_dial_nothing_outside_loopback() {
    let strace = Command::new("strace").arg("-V").output();
    if !strace.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: strace is not installed (apt-get install strace)");
        return;
    }
    let tmp = scratch_dir("stores-strace");
    // (URL, environment, whether nothing may be dialled at all)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], bool);
    let cases: [Case; 3] = [
        ("s3://logs/x", &[], true),
        (
            "s3://logs/x",
            &[("AWS_EC2_METADATA_DISABLED", "false")],
            false,
        ),
        (
            "az://logs/x",
            &[("AZURE_STORAGE_ACCOUNT_NAME", "acct")],
            false,
        ),
    ];
    for (i, (url, env, none)) in cases.into_iter().enumerate() {
        let log = tmp.join(format!("connect-{i}.log"));
        let mut c = Command::new("strace");
        no_cloud(&mut c);
        if none {
            // The default metadata endpoint: only the switch keeps it off.
            c.env_remove("AWS_METADATA_ENDPOINT");
        }
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c
            .args(["-f", "-qq", "-e", "trace=connect"])
            .args(["-e", "inject=connect:error=ECONNREFUSED", "-o"])
            .arg(&log)
            .arg(env!("CARGO_BIN_EXE_lakeaudit"))
            .args(["queries", url])
            .current_dir(testdata::repo_root())
            .output()
            .expect("strace runs");
        let err = text(&out.stderr);
        let trace = std::fs::read_to_string(&log).expect("strace log");
        let addrs = dialled(&trace);
        for a in &addrs {
            assert!(
                a.starts_with("127.") || a == "::1",
                "{url} {env:?}: dialled {a}:\n{trace}"
            );
        }
        assert_eq!(out.status.code(), Some(2), "{env:?}: {err}");
        assert!(err.contains("no A"), "{env:?}: {err}");
        if none {
            assert!(addrs.is_empty(), "{url} {env:?}: dialled {addrs:?}");
        } else {
            assert!(
                !addrs.is_empty(),
                "{url} {env:?}: the metadata endpoint was not asked"
            );
        }
        eprintln!("{url} {env:?}: dialled {addrs:?}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The request lines an [`echoing`] server received.
static ECHOED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Refuses every request (403) with an error body that echoes the request,
/// query and all, as servers do.
fn echoing(s: TcpStream) {
    let mut w = s.try_clone().expect("stream");
    let mut r = BufReader::new(s);
    while let Some((method, path, _)) = request(&mut r) {
        if let Ok(mut e) = ECHOED.lock() {
            e.push(path.clone());
        }
        let body = format!("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>AuthenticationFailed</Code><Message>Server failed to authenticate the request {method} {path}</Message></Error>");
        let head = if method == "HEAD" { "" } else { body.as_str() };
        let _ = write!(
            w,
            "HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n{head}",
            if method == "HEAD" { 0 } else { body.len() }
        );
    }
}

/// Every file under `dir` (recursively) and its bytes.
fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else if let Ok(b) = std::fs::read(&p) {
            out.push((p, b));
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Secrets planted in URLs, an endpoint and the environment never reach
/// stderr or any output of any command that takes a URL (queries, edges,
/// plan, drift, analyze, tables, whatif). Against moto (`make
/// test-stores`) the URL's credentials are used and the runs succeed;
/// without it they fail on a closed port, and only the errors are checked.
#[test]
fn planted_secrets_never_leave_the_process() {
    const KEY_ID: &str = "AKIAPLANTEDKEY7777";
    const SECRET: &str = "plantedSECRETvalue9999";
    const ENDPOINT_SECRET: &str = "ENDPOINTpw4242secret";
    const URL_SIG: &str = "URLSIGplanted0123456789abc";
    const ENV_SIG: &str = "ENVSIGplanted9876543210xyz";
    let planted = [KEY_ID, SECRET, ENDPOINT_SECRET, URL_SIG, ENV_SIG];
    let tmp = scratch_dir("stores-secrets");
    let moto = env("LAKEAUDIT_TEST_S3_ENDPOINT");
    let endpoint = moto.clone().unwrap_or_else(|| CLOSED.to_string());
    let logs = format!("s3://{KEY_ID}:{SECRET}@logs/runs/samples");
    let wh = format!("s3://{KEY_ID}:{SECRET}@logs/runs/samples/warehouse");
    let shop = format!("s3://{KEY_ID}:{SECRET}@logs/runs/samples/shop");
    let o = |n: &str| tmp.join(n).to_str().expect("utf-8").to_string();
    let runs: Vec<Vec<String>> = [
        vec!["queries", "--format", "jsonl", &logs],
        vec!["queries", &logs, "-o", &o("q.parquet")],
        vec!["edges", &logs, "--tables", &wh],
        vec!["plan", "--format", "json", &shop, "--tables", &wh],
        vec!["drift", &logs, "-o", &o("drift.jsonl")],
        vec!["analyze", &shop, "--tables", &wh, "--out", &o("analysis")],
        vec!["tables", &wh, "--out", &o("tables")],
        vec!["whatif", "--format", "jsonl", &shop, "--tables", &wh],
    ]
    .into_iter()
    .map(|r| r.into_iter().map(str::to_string).collect())
    .collect();
    let s3_env = [
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_REGION", "us-east-1"),
    ];
    let mut seen = Vec::new();
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = lakeaudit_env(&s3_env, &args);
        if moto.is_some() {
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args:?}: {}",
                text(&out.stderr)
            );
        } else {
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?}: {}",
                text(&out.stderr)
            );
            assert!(
                text(&out.stderr).contains("s3://REDACTED@logs/runs/samples")
                    || text(&out.stderr).contains("s3://logs/runs/samples"),
                "{args:?}: {}",
                text(&out.stderr)
            );
        }
        seen.push((format!("{args:?} stdout"), out.stdout));
        seen.push((format!("{args:?} stderr"), out.stderr));
    }
    if moto.is_some() {
        // The records name the log by its URL without the credentials,
        // in JSON lines and in Parquet (uncompressed enough to show it).
        let q = &seen[0].1;
        assert!(
            contains(q, "\"log\":\"s3://logs/runs/samples/"),
            "{}",
            text(q)
        );
        let parquet = std::fs::read(tmp.join("q.parquet")).expect("parquet written");
        assert!(
            contains(&parquet, "s3://logs/runs/samples/"),
            "the Parquet log field is not plain text: the grep would prove nothing"
        );
        let state =
            std::fs::read_to_string(tmp.join("analysis/table_state.csv")).expect("table state");
        assert!(
            state.contains(",s3://logs/runs/samples/warehouse/shop.db/orders,"),
            "{state}"
        );
    }
    // An endpoint with user info: refused, named without it.
    let ep = format!("http://enduser:{ENDPOINT_SECRET}@127.0.0.1:9");
    let out = lakeaudit_env(
        &[
            ("AWS_ENDPOINT_URL", &ep),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
        ],
        &["queries", "s3://logs/x"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("the endpoint http://REDACTED@127.0.0.1:9 carries user info"),
        "{}",
        text(&out.stderr)
    );
    seen.push(("endpoint stderr".into(), out.stderr));
    // Azure, against a server that echoes every request in its error: a
    // SAS in the URL (used for the request: the server saw it), and a SAS
    // from the environment.
    let echo = serve(echoing);
    let az_env = [
        ("AZURE_STORAGE_ACCOUNT_NAME", "acct"),
        ("AZURE_STORAGE_ENDPOINT", echo.as_str()),
        ("AZURE_ALLOW_HTTP", "true"),
    ];
    let sas_url = format!("az://logs/runs/samples/?sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2030-01-01T00%3A00%3A00Z&sig={URL_SIG}");
    for cmd in [
        &["queries", "--format", "jsonl"][..],
        &["edges"],
        &["drift"],
    ] {
        let out = lakeaudit_env(
            &az_env,
            &[cmd, &[sas_url.as_str(), "samples/spark4-lz4"]].concat(),
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("lakeaudit: az://logs/runs/samples/: AuthenticationFailed"),
            "{err}"
        );
        seen.push((format!("{cmd:?} az stdout"), out.stdout));
        seen.push((format!("{cmd:?} az stderr"), out.stderr));
    }
    let tables_url = format!("az://logs/runs/samples/warehouse/?sp=rl&sig={URL_SIG}");
    for cmd in [
        &["tables", "--format", "jsonl"][..],
        &["whatif", "samples/shop", "--tables"],
        &["plan", "samples/shop", "--tables"],
    ] {
        let out = lakeaudit_env(&az_env, &[cmd, &[tables_url.as_str()]].concat());
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {}", text(&out.stderr));
        seen.push((format!("{cmd:?} az stdout"), out.stdout));
        seen.push((format!("{cmd:?} az stderr"), out.stderr));
    }
    let out = lakeaudit_env(
        &az_env,
        &[
            "analyze",
            "samples/shop",
            "--tables",
            &tables_url,
            "--out",
            &o("az-analysis"),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    seen.push(("analyze az stderr".into(), out.stderr));
    let used = ECHOED.lock().map(|e| e.clone()).unwrap_or_default();
    assert!(
        used.iter().any(|p| p.contains(&format!("sig={URL_SIG}"))),
        "the URL's SAS was not used: {used:?}"
    );
    let env_sas = format!("sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2030-01-01T00:00:00Z&sig={ENV_SIG}");
    let mut with_env = az_env.to_vec();
    with_env.push(("AZURE_STORAGE_SAS_TOKEN", &env_sas));
    let out = lakeaudit_env(
        &with_env,
        &["queries", "az://logs/runs/samples/", "samples/spark4-lz4"],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("AuthenticationFailed"), "{err}");
    assert!(
        ECHOED
            .lock()
            .map(|e| e.iter().any(|p| p.contains(ENV_SIG)))
            .unwrap_or(false),
        "the echoed body did not carry the environment's SAS: the check proves nothing"
    );
    seen.push(("env SAS stderr".into(), out.stderr));
    for (p, b) in files_under(&tmp) {
        seen.push((p.display().to_string(), b));
    }
    assert!(seen.len() > 20, "{}", seen.len());
    for (what, bytes) in &seen {
        for s in planted {
            assert!(
                !contains(bytes, s),
                "{what} holds the planted secret {s}:\n{}",
                text(bytes)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
