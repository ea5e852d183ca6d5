//! `--records`: the reduce on records (a Spark map's output, or any
//! `queries --format parquet` file) gives the single-machine answers.

use crate::common::*;
use std::path::Path;

fn bytes(dir: &str, f: &str) -> Vec<u8> {
    std::fs::read(Path::new(dir).join(f)).unwrap_or_else(|e| panic!("{dir}/{f}: {e}"))
}

#[test]
fn the_reduce_on_records_gives_the_outputs_of_the_logs_byte_for_byte() {
    let samples = sample("");
    let dir = tempdir("records");
    let (logs_out, records_out) = (format!("{dir}/logs"), format!("{dir}/records"));
    let parquet = format!("{dir}/queries.parquet");
    ok(&["analyze", &samples, "--out", &logs_out]);
    ok(&["queries", &samples, "--format", "parquet", "-o", &parquet]);
    ok(&["analyze", "--records", &parquet, "--out", &records_out]);
    for f in [
        "edges.csv",
        "edges.parquet",
        "drift.csv",
        "plan.json",
        "plan.sql",
    ] {
        assert!(
            bytes(&logs_out, f) == bytes(&records_out, f),
            "{f} differs between the logs and their records"
        );
    }
    // Every record survives the round trip through Parquet unchanged.
    assert_eq!(
        ok(&["queries", "--records", &parquet]),
        ok(&["queries", &samples])
    );
    for cmd in [
        &["edges", "--format", "csv"][..],
        &["plan", "--format", "json"],
        &["drift", "--format", "csv"],
    ] {
        let from_logs = ok(&[cmd, &[samples.as_str()]].concat());
        let from_records = ok(&[cmd, &["--records", parquet.as_str()]].concat());
        assert_eq!(from_logs, from_records, "lakeaudit {cmd:?}");
    }
}

#[test]
fn records_that_are_missing_or_not_records_are_clear_errors() {
    let dir = tempdir("records-bad");
    let o = run(&["edges", "--records", &format!("{dir}/nothing-here")]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("nothing-here: no such file"), "{err}");
    // A Parquet file of another shape names itself and the column.
    let edges = format!("{dir}/edges.parquet");
    ok(&[
        "edges",
        &sample("spark4-zstd"),
        "--format",
        "parquet",
        "-o",
        &edges,
    ]);
    let o = run(&["edges", "--records", &edges]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("edges.parquet") && err.contains("app_id"),
        "{err}"
    );
    // Logs and records are not mixed.
    let o = run(&["edges", &sample("spark4-zstd"), "--records", &edges]);
    assert_eq!(
        o.status.code(),
        Some(64),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn the_spark_maps_records_follow_the_one_schema() {
    use workload::records::{RecordType, RECORD_SCHEMA};
    let map =
        std::fs::read_to_string(testdata::repo_root().join("spark/lakeaudit_map.py")).unwrap();
    let block = map
        .split("RECORDS = StructType(")
        .nth(1)
        .and_then(|b| b.split("\n)").next())
        .expect("the map's RECORDS schema");
    let fields: Vec<(String, String)> = block
        .split("StructField(\"")
        .skip(1)
        .map(|f| {
            let (name, rest) = f.split_once('"').unwrap();
            let ty = rest.trim_start_matches(", ").split('(').next().unwrap();
            (name.to_string(), ty.to_string())
        })
        .collect();
    let mut expected: Vec<(String, String)> = RECORD_SCHEMA
        .iter()
        .map(|(n, t, _)| {
            let ty = match t {
                RecordType::Text => "StringType",
                RecordType::Long => "LongType",
                RecordType::Bool => "BooleanType",
            };
            (n.to_string(), ty.to_string())
        })
        .collect();
    // The map partitions its records by day.
    expected.push(("date".into(), "StringType".into()));
    assert_eq!(fields, expected);
}

/// Records with no rows are valid input whatever wrote them: a zero-row
/// table by pyarrow (`scripts/make_empty_records.py`) was refused as "the
/// footer places the column chunk outside the file's data" (issue 29.8).
#[test]
fn a_zero_row_records_file_by_pyarrow_is_read() {
    let empty = testdata::data("records/empty-pyarrow.parquet")
        .to_string_lossy()
        .into_owned();
    assert_eq!(ok(&["queries", "--records", &empty]), "");
    let dir = tempdir("records-empty");
    ok(&[
        "analyze",
        "--records",
        &empty,
        "--out",
        &format!("{dir}/out"),
    ]);
}
