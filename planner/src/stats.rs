//! `--table-stats`: table sizes and current layouts that logs cannot show.
//!
//! CSV with a header (RFC 4180, read with the `csv` crate), or a JSON array
//! of objects, with the columns `table, bytes, rows, files, partitioned_by,
//! clustered_by`; list cells separate columns with `;` (or `|`) in CSV and
//! are arrays or such strings in JSON. Table names may be short (`orders`),
//! `db.table` or catalog-qualified; they are stored canonically.

use crate::error::{Error, Result};
use graph::tables::canonical_table;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One table's statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableStat {
    /// Size in bytes.
    pub bytes: Option<u64>,
    /// Row count.
    pub rows: Option<u64>,
    /// File count.
    pub files: Option<u64>,
    /// Partition columns.
    pub partitioned_by: Vec<String>,
    /// Liquid Clustering columns.
    pub clustered_by: Vec<String>,
    /// The figures come from auditing the table's own metadata (`--tables`),
    /// not from a `--table-stats` file.
    pub from_audit: bool,
}

/// Statistics by canonical table name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableStats(pub BTreeMap<String, TableStat>);

#[derive(Deserialize)]
#[serde(untagged)]
enum ListOrStr {
    List(Vec<String>),
    Str(String),
}

#[derive(Deserialize)]
struct Row {
    table: String,
    bytes: Option<u64>,
    rows: Option<u64>,
    files: Option<u64>,
    partitioned_by: Option<ListOrStr>,
    clustered_by: Option<ListOrStr>,
}

fn split_list(s: &str) -> Vec<String> {
    s.split([';', '|'])
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

impl Row {
    fn into_entry(self) -> (String, TableStat) {
        let list = |v: Option<ListOrStr>| match v {
            None => Vec::new(),
            Some(ListOrStr::List(v)) => v,
            Some(ListOrStr::Str(s)) => split_list(&s),
        };
        (
            canonical_table(&self.table),
            TableStat {
                bytes: self.bytes,
                rows: self.rows,
                files: self.files,
                partitioned_by: list(self.partitioned_by),
                clustered_by: list(self.clustered_by),
                from_audit: false,
            },
        )
    }
}

impl TableStats {
    /// Read the text of a `--table-stats` file: a JSON array when it starts
    /// with `[`, CSV otherwise.
    pub fn parse(text: &str) -> Result<TableStats> {
        if text.trim_start().starts_with('[') {
            Self::from_json(text)
        } else {
            Self::from_csv(text)
        }
    }

    fn from_json(text: &str) -> Result<TableStats> {
        let rows: Vec<Row> = serde_json::from_str(text).map_err(|e| Error::TableStats {
            line: Some(e.line() as u64),
            reason: e.to_string(),
        })?;
        Ok(TableStats(rows.into_iter().map(Row::into_entry).collect()))
    }

    fn from_csv(text: &str) -> Result<TableStats> {
        let mut rd = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(text.as_bytes());
        let header = rd.headers().map_err(|e| Error::TableStats {
            line: Some(1),
            reason: e.to_string(),
        })?;
        if header.is_empty() || header.iter().all(str::is_empty) {
            return Err(Error::TableStats {
                line: None,
                reason: "empty file".into(),
            });
        }
        // Header names are matched case-insensitively; unknown columns are ignored.
        let lower: csv::StringRecord = header.iter().map(str::to_lowercase).collect();
        if !lower.iter().any(|c| c == "table") {
            return Err(Error::TableStats {
                line: Some(1),
                reason: "no `table` column (expected table, bytes, rows, files, partitioned_by, clustered_by)".into(),
            });
        }
        rd.set_headers(lower.clone());
        let mut m = BTreeMap::new();
        for rec in rd.records() {
            let rec = rec.map_err(|e| Error::TableStats {
                line: e.position().map(|p| p.line()),
                reason: e.to_string(),
            })?;
            let line = rec.position().map(|p| p.line());
            if rec.iter().all(str::is_empty) {
                continue;
            }
            let get = |name: &str| {
                lower
                    .iter()
                    .position(|c| c == name)
                    .and_then(|i| rec.get(i))
                    .filter(|s| !s.is_empty())
            };
            let num = |name: &str| -> Result<Option<u64>> {
                get(name)
                    .map(|s| {
                        s.parse::<u64>().map_err(|_| Error::TableStats {
                            line,
                            reason: format!("{name} {s:?} is not a whole number"),
                        })
                    })
                    .transpose()
            };
            // A text cell lakeaudit wrote with a `'` against spreadsheet
            // formulas (CSV injection, OWASP) reads as the name itself.
            let text = |name: &str| get(name).map(|s| s.strip_prefix('\'').unwrap_or(s));
            let Some(table) = text("table") else {
                return Err(Error::TableStats {
                    line,
                    reason: "empty table name".into(),
                });
            };
            let row = Row {
                table: table.to_string(),
                bytes: num("bytes")?,
                rows: num("rows")?,
                files: num("files")?,
                partitioned_by: text("partitioned_by").map(|s| ListOrStr::Str(s.into())),
                clustered_by: text("clustered_by").map(|s| ListOrStr::Str(s.into())),
            };
            let (k, v) = row.into_entry();
            m.insert(k, v);
        }
        Ok(TableStats(m))
    }

    /// Row counts by table, for the data-volume fallback of the edge table.
    pub fn row_fallback(&self) -> workload::edges::RowFallback {
        self.0
            .iter()
            .filter_map(|(t, s)| s.rows.map(|r| (t.clone(), r)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_json_agree() {
        let csv = "table,bytes,rows,files,partitioned_by,clustered_by\n\
                   orders,1000,150000,2,o_orderdate,\n\
                   \"spark_catalog.default.lineitem\",5000,600572,4,,\"l_orderkey;l_partkey\"\n";
        let json = r#"[{"table":"default.orders","bytes":1000,"rows":150000,"files":2,"partitioned_by":["o_orderdate"]},
                       {"table":"lineitem","bytes":5000,"rows":600572,"files":4,"clustered_by":"l_orderkey;l_partkey"}]"#;
        let a = TableStats::parse(csv).unwrap();
        let b = TableStats::parse(json).unwrap();
        assert_eq!(a, b);
        let o = &a.0["spark_catalog.default.orders"];
        assert_eq!(o.partitioned_by, vec!["o_orderdate"]);
        assert_eq!(
            a.0["spark_catalog.default.lineitem"].clustered_by,
            vec!["l_orderkey", "l_partkey"]
        );
        assert_eq!(a.row_fallback()["spark_catalog.default.orders"], 150000);
    }

    #[test]
    fn quoted_cells_headers_in_any_case_and_blank_lines() {
        let csv = "Table, BYTES ,clustered_by\n\n\"db.\"\"odd\"\" name\",7,\"a|b\"\n";
        let s = TableStats::parse(csv).unwrap();
        let (name, stat) = s.0.iter().next().unwrap();
        assert!(name.contains("\"odd\" name"), "{name}");
        assert_eq!(stat.bytes, Some(7));
        assert_eq!(stat.clustered_by, vec!["a", "b"]);
    }

    #[test]
    fn bad_input_names_the_line() {
        let e = TableStats::parse("table,bytes\norders,1\norders,lots\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: bytes \"lots\" is not a whole number"
        );
        let e = TableStats::parse("name,bytes\n").unwrap_err();
        assert!(
            e.to_string().starts_with("line 1: no `table` column"),
            "{e}"
        );
        assert!(TableStats::parse("").is_err());
        let e = TableStats::parse("[{\"table\": 1}]").unwrap_err();
        assert!(e.to_string().starts_with("line 1: "), "{e}");
    }
}
