//! Bad inputs are reported by name and the good ones still read.

use crate::common::*;
use std::io::Write;

#[test]
fn every_bad_input_is_reported_and_the_good_one_still_read() {
    let dir = tempdir("bad");
    let w = |name: &str, bytes: &[u8]| {
        let p = format!("{dir}/{name}");
        std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
        p
    };
    let empty = w("app-empty", b"");
    let binary = w("app-binary", &[0u8, 159, 146, 150, 255, 1, 2, 3]);
    let notjson = w(
        "app-notjson",
        b"{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"4.0.1\"}\nthis is not json\n",
    );
    let unknown = w("app-1.brotli", b"xxxx");
    let mut zst = std::fs::read(logs(
        "tpch-default/eventlog_v2_local-1796009792357/events_1_local-1796009792357.zstd",
    ))
    .unwrap();
    // Cut mid-frame: a stream zstd cannot finish. (Bytes flipped inside a
    // frame without a checksum decode to other text; where that text lies
    // in an event lakeaudit never parses, such as a superseded AQE plan,
    // it is not seen, and changes nothing the outputs hold.)
    let n = zst.len();
    zst.truncate(n / 2);
    let corrupt = w("app-corrupt.zstd", &zst);
    let missing = format!("{dir}/does-not-exist");
    let good = logs("tpch-extended");
    let o = run(&[
        "queries", &empty, &binary, &notjson, &unknown, &corrupt, &missing, &good,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for p in [&empty, &binary, &unknown, &corrupt, &missing] {
        assert!(
            err.contains(&format!("lakeaudit: {p}")),
            "{p} named in:\n{err}"
        );
    }
    assert!(
        err.contains(&format!("lakeaudit: {notjson}:2: ")),
        "line number given:\n{err}"
    );
    let recs = jsonl(&String::from_utf8_lossy(&o.stdout));
    let good_recs = recs
        .iter()
        .filter(|r| r["app_id"] == "local-1796009833175")
        .count();
    assert_eq!(good_recs, 30, "the good log is still fully read");
    // The corrupt log's records before the damage are kept.
    assert!(
        recs.iter().any(|r| r["app_id"] == "local-1796009792357"),
        "records before corruption kept"
    );
    assert!(!err.contains("panicked"));
}

#[test]
fn impossible_times_and_offsets_in_flags() {
    // A usage error (exit 64), refused before any log is read.
    let o = run(&["edges", &logs("weekly"), "--since", "2026-02-31"]);
    assert_eq!(o.status.code(), Some(64));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("'2026-02-31' for '--since <TIME>'"), "{err}");
    // Week 2 ran 2026-10-12 09:00-09:01 UTC. 09:30 at +02:00 is 07:30 UTC,
    // before it; 09:30 UTC is after it.
    let edges = |since: &str| {
        ok(&[
            "edges",
            &logs("weekly"),
            "--since",
            since,
            "--format",
            "jsonl",
        ])
    };
    let offset = edges("2026-10-12T09:30:00+02:00");
    assert_eq!(offset, edges("2026-10-12"));
    assert_ne!(offset, edges("2026-10-12T09:30:00Z"));
}

#[test]
fn a_directory_without_logs_says_so() {
    let dir = tempdir("nologs");
    std::fs::write(format!("{dir}/notes.txt"), "hello").unwrap();
    let o = run(&["queries", &dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn standard_input_is_read() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
        .args(["queries", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let data = testdata::read("spark-logs/tpch-extended/local-1796009833175");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    assert_eq!(jsonl(&String::from_utf8_lossy(&out.stdout)).len(), 30);
}
