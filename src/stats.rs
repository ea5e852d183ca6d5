//! `--table-stats FILE`: table sizes and current layouts the logs cannot
//! show. CSV with a header, or JSON (an array of objects), with the columns
//! `table, bytes, rows, files, partitioned_by, clustered_by`; list cells
//! separate columns with `;` (CSV) or are arrays (JSON).

use anyhow::{bail, Context, Result};
use graph::edges::RowFallback;
use graph::tables::canonical_table;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

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
}

/// Statistics by canonical table name.
#[derive(Clone, Debug, Default)]
pub struct TableStats(pub BTreeMap<String, TableStat>);

#[derive(Deserialize)]
#[serde(untagged)]
enum ListOrStr {
    List(Vec<String>),
    Str(String),
}

#[derive(Deserialize)]
struct JsonRow {
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

fn list(v: Option<ListOrStr>) -> Vec<String> {
    match v {
        None => Vec::new(),
        Some(ListOrStr::List(v)) => v,
        Some(ListOrStr::Str(s)) => split_list(&s),
    }
}

/// Split one CSV line (RFC 4180 quoting).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

impl TableStats {
    /// Load a file, or empty statistics without one.
    pub fn load(path: Option<&Path>) -> Result<TableStats> {
        let Some(p) = path else {
            return Ok(TableStats::default());
        };
        let text = std::fs::read_to_string(p)
            .with_context(|| format!("cannot read table stats {}", p.display()))?;
        let parsed = if text.trim_start().starts_with('[') {
            Self::from_json(&text)
        } else {
            Self::from_csv(&text)
        };
        parsed.with_context(|| format!("table stats {}", p.display()))
    }

    fn from_json(text: &str) -> Result<TableStats> {
        let rows: Vec<JsonRow> = serde_json::from_str(text)?;
        let mut m = BTreeMap::new();
        for r in rows {
            m.insert(
                canonical_table(&r.table),
                TableStat {
                    bytes: r.bytes,
                    rows: r.rows,
                    files: r.files,
                    partitioned_by: list(r.partitioned_by),
                    clustered_by: list(r.clustered_by),
                },
            );
        }
        Ok(TableStats(m))
    }

    fn from_csv(text: &str) -> Result<TableStats> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some((_, header)) = lines.next() else {
            bail!("empty file");
        };
        let cols: Vec<String> = csv_fields(header)
            .iter()
            .map(|c| c.trim().to_lowercase())
            .collect();
        let idx = |name: &str| cols.iter().position(|c| c == name);
        let Some(ti) = idx("table") else {
            bail!("line 1: no `table` column (expected table, bytes, rows, files, partitioned_by, clustered_by)");
        };
        let mut m = BTreeMap::new();
        for (n, line) in lines {
            let f = csv_fields(line);
            let get = |name: &str| {
                idx(name)
                    .and_then(|i| f.get(i))
                    .map(|s| s.trim())
                    .filter(|s| !s.is_empty())
            };
            let num = |name: &str| -> Result<Option<u64>> {
                get(name)
                    .map(|s| {
                        s.parse::<u64>().with_context(|| {
                            format!("line {}: {name} {s:?} is not a whole number", n + 1)
                        })
                    })
                    .transpose()
            };
            let Some(table) = f.get(ti).map(|s| s.trim()).filter(|s| !s.is_empty()) else {
                bail!("line {}: empty table name", n + 1);
            };
            m.insert(
                canonical_table(table),
                TableStat {
                    bytes: num("bytes")?,
                    rows: num("rows")?,
                    files: num("files")?,
                    partitioned_by: get("partitioned_by").map(split_list).unwrap_or_default(),
                    clustered_by: get("clustered_by").map(split_list).unwrap_or_default(),
                },
            );
        }
        Ok(TableStats(m))
    }

    /// Row counts for the D fallback.
    pub fn row_fallback(&self) -> RowFallback {
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
        let a = TableStats::from_csv(csv).unwrap();
        let b = TableStats::from_json(json).unwrap();
        assert_eq!(a.0, b.0);
        let o = &a.0["spark_catalog.default.orders"];
        assert_eq!(o.partitioned_by, vec!["o_orderdate"]);
        assert_eq!(
            a.0["spark_catalog.default.lineitem"].clustered_by,
            vec!["l_orderkey", "l_partkey"]
        );
        assert_eq!(a.row_fallback()["spark_catalog.default.orders"], 150000);
    }

    #[test]
    fn bad_numbers_name_the_line() {
        let e = TableStats::from_csv("table,bytes\norders,lots\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 2"), "{e:#}");
        assert!(TableStats::from_csv("name,bytes\n").is_err());
    }
}
