//! Event logs on object stores, read from real servers on loopback: moto's
//! S3 server and Azurite's Blob server, started by `scripts/test_stores.sh`
//! (`make test-stores`), which uploads `samples/` and
//! `tests/data/spark-logs/tpch-default` under `runs/` of bucket (container)
//! `logs` and says where the servers are:
//!
//! - `LAKEAUDIT_TEST_S3_ENDPOINT`: moto's URL (credentials `test`/`test`);
//! - `LAKEAUDIT_TEST_AZURITE_URL`: Azurite's Blob URL (account
//!   `devstoreaccount1`, its well-known key);
//! - `LAKEAUDIT_TEST_STORES_UPLOAD`: the uploader (`python upload.py`), to
//!   delete an object between listing and reading.
//!
//! Without them each test prints why it is skipped and passes, so a fresh
//! clone's `make test` needs no server.

use std::path::Path;
use std::process::{Command, Output};

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
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") || k.starts_with("AZURE") {
            c.env_remove(k);
        }
    }
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
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") || k.starts_with("AZURE") {
            c.env_remove(k);
        }
    }
    c.env("AZURE_STORAGE_USE_EMULATOR", "true")
        .env("AZURITE_BLOB_STORAGE_URL", url);
    if let Some(key) = key {
        c.env("AZURE_STORAGE_ACCOUNT_KEY", key);
    }
    c.args(args).current_dir(testdata::repo_root());
    c.output().expect("lakeaudit runs")
}

fn local(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
        .args(args)
        .current_dir(testdata::repo_root())
        .output()
        .expect("lakeaudit runs")
}

/// The JSON lines without their `log` field (where the log was read from).
fn without_log(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            if let Some(o) = v.as_object_mut() {
                o.remove("log");
            }
            v
        })
        .collect()
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
