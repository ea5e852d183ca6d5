//! Lists stay lists: `lakeaudit tables` writes a table's features,
//! partition and clustering columns as JSON arrays in JSON lines, and
//! `;`-joined in CSV (the form `--table-stats` reads).

use serde_json::{json, Value};
use std::process::Command;

fn tables(format: &str) -> String {
    let wh = testdata::data("tables/warehouse");
    let o = Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
        .args(["tables", "--format", format])
        .arg(&wh)
        .output()
        .expect("run lakeaudit");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("utf-8")
}

#[test]
fn table_state_lists_are_arrays_in_jsonl_and_joined_in_csv() {
    let rows: Vec<Value> = tables("jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let row = |t: &str| rows.iter().find(|r| r["table"] == t).expect(t);
    assert_eq!(
        row("customers")["clustering_columns"],
        json!(["c_custkey", "c_nation"])
    );
    assert_eq!(row("customers")["partition_columns"], json!([]));
    assert_eq!(row("sales")["partition_columns"], json!(["day"]));
    assert_eq!(row("orders_dv")["features"], json!(["deletionVectors"]));
    assert_eq!(
        row("customers")["features"],
        json!(["clustering", "domainMetadata"])
    );

    let csv = tables("csv");
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).expect(n);
    let line = csv
        .lines()
        .find(|l| l.starts_with("customers,"))
        .expect("customers row");
    let cells: Vec<&str> = line.split(',').collect();
    assert_eq!(cells[col("clustering_columns")], "c_custkey;c_nation");
    // An empty cell, quoted as polars writes an empty string.
    assert_eq!(cells[col("partition_columns")], "\"\"");
    assert_eq!(cells[col("features")], "clustering;domainMetadata");
}
