//! `lakeaudit tables`: Delta and Iceberg table state, compaction and
//! delete audits. Reading is `tables`, judging is `maintenance`; this module
//! wires them to files.

use crate::output::{self, Col, Format};
use anyhow::{bail, Result};
use maintenance::audit::{audit, Audit};
use maintenance::Policy;
use serde::de::{Deserialize, MapAccess, Visitor};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `--policy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyArg {
    /// Delta Lake OSS OPTIMIZE.
    Delta,
    /// Microsoft Fabric OPTIMIZE (fast optimize, file-level targets).
    Fabric,
    /// Iceberg rewrite_data_files.
    Iceberg,
    /// Apache Amoro self-optimizing.
    Amoro,
    /// Every policy that applies to a table's format.
    All,
}

impl PolicyArg {
    pub fn policies(self) -> Vec<Policy> {
        match self {
            PolicyArg::Delta => vec![Policy::Delta],
            PolicyArg::Fabric => vec![Policy::Fabric],
            PolicyArg::Iceberg => vec![Policy::Iceberg],
            PolicyArg::Amoro => vec![Policy::Amoro],
            PolicyArg::All => Policy::ALL.to_vec(),
        }
    }
}

/// `lakeaudit tables` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct TablesArgs {
    /// Delta table directories (with `_delta_log/`), Iceberg table
    /// directories or `*.metadata.json` files, or warehouse directories
    /// searched for tables; each may be an object-store URL (`s3://`,
    /// `s3a://`, `az://`, `abfss://`, `gs://`, `file://`).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Write table_state, compaction, deletes, deletes_tables and
    /// table_stats.csv (for `--table-stats`) into DIR; without it the
    /// table_state records go to standard output.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub out: Option<PathBuf>,
    /// Write the table_state records to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write into `--out DIR` even though it holds files lakeaudit did not
    /// write (they are left alone).
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Output format; default: from the extension of `-o FILE` (`.jsonl`,
    /// `.csv`, `.parquet`, `.txt`), else a table on a terminal and
    /// JSON lines on a pipe; JSON lines files with --out.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Whose compaction rules to simulate.
    #[arg(long, value_enum, default_value_t = PolicyArg::All)]
    pub policy: PolicyArg,
    /// Target file size for every policy (`128MB`, `512MiB`, a byte
    /// count; each derives its other thresholds from it); default: table
    /// property, else engine default.
    #[arg(long, value_name = "BYTES", value_parser = crate::cli::size, allow_hyphen_values = true)]
    pub target_size: Option<u64>,
    /// Open deletion-vector blobs and check header, cardinality and CRC;
    /// read partition-scoped Iceberg position delete files to count the rows
    /// they delete from each data file.
    #[arg(long)]
    pub deep: bool,
    /// Read files the metadata names outside the table directory (and the
    /// locations an Iceberg table declares for its files): shallow clones,
    /// migrated tables. Without it such paths are refused by name.
    #[arg(long)]
    pub allow_outside_table: bool,
}

/// One `table-stats` row, in the layout `--table-stats` reads.
#[derive(Serialize)]
struct StatsRow<'a> {
    table: &'a str,
    bytes: u64,
    rows: u64,
    files: u64,
    partitioned_by: &'a str,
    clustered_by: &'a str,
}

/// The `--table-stats` CSV text of an audit.
pub fn table_stats_csv(a: &Audit) -> String {
    let mut w = csv_text(&[
        "table",
        "bytes",
        "rows",
        "files",
        "partitioned_by",
        "clustered_by",
    ]);
    for s in &a.state {
        let r = StatsRow {
            table: &s.table,
            bytes: s.bytes,
            rows: s.rows_live,
            files: s.files,
            partitioned_by: &s.partition_columns.join(";"),
            clustered_by: &s.clustering_columns.join(";"),
        };
        // Text cells are made safe for spreadsheets (`--table-stats`
        // undoes the prefix); numbers stay numbers.
        w.push_str(&csv_line(&[
            output::csv_safe(r.table).into_owned(),
            r.bytes.to_string(),
            r.rows.to_string(),
            r.files.to_string(),
            output::csv_safe(r.partitioned_by).into_owned(),
            output::csv_safe(r.clustered_by).into_owned(),
        ]));
    }
    w
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv_line(cells: &[String]) -> String {
    let mut l = cells
        .iter()
        .map(|c| csv_cell(c))
        .collect::<Vec<_>>()
        .join(",");
    l.push('\n');
    l
}

fn csv_text(header: &[&str]) -> String {
    csv_line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>())
}

/// A JSON object with its keys in serialization order.
struct Ordered(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some(e) = m.next_entry()? {
                    v.push(e);
                }
                Ok(Ordered(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// Columns of records, in their fields' order, typed by their values.
fn columns<T: Serialize>(rows: &[T], names: &[&'static str]) -> Result<Vec<Col>> {
    let objs: Vec<Ordered> = rows
        .iter()
        .map(|r| Ok(serde_json::from_str(&serde_json::to_string(r)?)?))
        .collect::<Result<_>>()?;
    let mut cols = Vec::new();
    for (i, &name) in names.iter().enumerate() {
        let vals: Vec<&serde_json::Value> = objs.iter().map(|o| &o.0[i].1).collect();
        if let Some(o) = objs.first() {
            if o.0[i].0 != name {
                bail!("internal: column {name} is {} in the records", o.0[i].0);
            }
        }
        let kind = vals.iter().find(|v| !v.is_null());
        cols.push(match kind {
            Some(serde_json::Value::Number(n)) if n.is_f64() => {
                Col::Float(name, vals.iter().map(|v| v.as_f64()).collect())
            }
            Some(serde_json::Value::Number(_)) => Col::Int(
                name,
                vals.iter()
                    .map(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)))
                    .collect(),
            ),
            Some(serde_json::Value::Bool(_)) => {
                Col::Bool(name, vals.iter().map(|v| v.as_bool()).collect())
            }
            _ => Col::Str(
                name,
                vals.iter()
                    .map(|v| match v {
                        serde_json::Value::Null => None,
                        serde_json::Value::String(s) => Some(s.clone()),
                        // A list of names (`partition_columns`): `;`-joined
                        // in CSV and Parquet, as `--table-stats` reads it.
                        serde_json::Value::Array(a) if a.iter().all(|x| x.is_string()) => Some(
                            a.iter()
                                .filter_map(|x| x.as_str())
                                .collect::<Vec<_>>()
                                .join(";"),
                        ),
                        other => Some(other.to_string()),
                    })
                    .collect(),
            ),
        });
    }
    Ok(cols)
}

fn write<T: Serialize>(
    rows: &[T],
    names: &[&'static str],
    format: Format,
    path: Option<&Path>,
) -> Result<()> {
    match format {
        Format::Jsonl => output::write_to(path, |w| output::write_jsonl(rows, w)),
        Format::Table => output::write_columns(&for_reading(columns(rows, names)?), format, path),
        other => output::write_columns(&columns(rows, names)?, other, path),
    }
}

/// Columns counted in bytes: shown in human units in a text table.
const BYTE_COLUMNS: &[&str] = &[
    "bytes",
    "file_size_p10",
    "file_size_p50",
    "file_size_p90",
    "small_bytes",
    "small_file_threshold",
    "dv_bytes",
    "target_size",
    "bytes_to_rewrite",
    "file_bytes",
    "bytes_opened",
];

/// `table_state`'s columns a text table shows (the rest, such as the
/// location and the file-size percentiles but the median, are in the CSV,
/// Parquet and JSON outputs).
const STATE_VIEW: &[&str] = &[
    "table",
    "format",
    "bytes",
    "files",
    "small_files",
    "file_size_p50",
    "rows_live",
    "rows_deleted",
    "deletion_vectors",
    "pos_delete_files",
    "eq_delete_files",
    "partition_columns",
    "clustering_columns",
    "violations",
];

/// Columns as a person reads them in a text table: byte counts in human
/// units (`9.0 KiB`), and `table_state` cut to the columns that fit a
/// terminal ([`STATE_VIEW`]).
fn for_reading(cols: Vec<Col>) -> Vec<Col> {
    let is_state = cols.iter().any(|c| c.name() == "stats_coverage");
    let mut cols = cols;
    if is_state {
        // In the view's order: what a reader looks at first, first (a
        // narrow terminal drops columns from the right).
        cols.retain(|c| STATE_VIEW.contains(&c.name()));
        cols.sort_by_key(|c| STATE_VIEW.iter().position(|n| *n == c.name()));
    }
    cols.into_iter()
        .map(|c| match c {
            Col::Int(name, v) if BYTE_COLUMNS.contains(&name) => Col::Human(
                short(name),
                v.iter()
                    .map(|x| x.map(|b| planner::human(b as f64)))
                    .collect(),
            ),
            Col::Int(name, v) => Col::Int(short(name), v),
            Col::Str(name, v) => Col::Str(short(name), v),
            other => other,
        })
        .collect()
}

/// Shorter headers for `table_state`'s text view (the files keep the
/// field names).
fn short(name: &'static str) -> &'static str {
    match name {
        "bytes" => "size",
        "small_files" => "small",
        "file_size_p50" => "p50 file",
        "rows_live" => "rows",
        "rows_deleted" => "deleted",
        "deletion_vectors" => "DVs",
        "pos_delete_files" => "pos dels",
        "eq_delete_files" => "eq dels",
        "partition_columns" => "partitioned by",
        "clustering_columns" => "clustered by",
        other => other,
    }
}

const STATE: &[&str] = &[
    "table",
    "format",
    "location",
    "version_or_snapshot",
    "format_version",
    "features",
    "partition_columns",
    "clustering_columns",
    "files",
    "bytes",
    "rows_physical",
    "rows_deleted",
    "rows_live",
    "file_size_p10",
    "file_size_p50",
    "file_size_p90",
    "small_files",
    "small_bytes",
    "small_file_threshold",
    "pos_delete_files",
    "eq_delete_files",
    "deletion_vectors",
    "dv_bytes",
    "commits_since_checkpoint",
    "stats_coverage",
    "violations",
];
const COMPACTION: &[&str] = &[
    "table",
    "partition",
    "policy",
    "target_size",
    "candidate_files",
    "bins",
    "files_before",
    "files_after_est",
    "bytes_to_rewrite",
    "rows_purged",
    "reasons",
    "statement",
];
const DELETES: &[&str] = &[
    "table",
    "partition",
    "data_file",
    "file_rows",
    "file_bytes",
    "dvs",
    "dv_cardinality",
    "pos_delete_files",
    "pos_delete_rows",
    "eq_delete_files",
    "eq_delete_rows",
    "deleted_rows",
    "deleted_ratio",
    "files_opened",
    "bytes_opened",
    "read_amplification",
    "verdict",
    "rule",
];
const ROLLUP: &[&str] = &[
    "table",
    "data_files_with_deletes",
    "delete_files",
    "deletion_vectors",
    "deleted_rows",
    "max_deleted_ratio",
    "rewrite_now",
    "watch",
    "ok",
    "verdict",
    "violations",
];

/// Write every output of an audit into the output directory `dir`.
pub fn write_into(a: &Audit, dir: &mut output::OutDir, format: Format) -> Result<()> {
    let ext = ext(format);
    let mut p = |n: &str| dir.file(&format!("{n}.{ext}"));
    write(&a.state, STATE, format, Some(&p("table_state")))?;
    write(&a.compaction, COMPACTION, format, Some(&p("compaction")))?;
    write(&a.deletes, DELETES, format, Some(&p("deletes")))?;
    write(&a.rollups, ROLLUP, format, Some(&p("deletes_tables")))?;
    let stats = dir.file("table_stats.csv");
    output::write_to(Some(&stats), |w| {
        Ok(w.write_all(table_stats_csv(a).as_bytes())?)
    })?;
    Ok(())
}

fn ext(format: Format) -> &'static str {
    match format {
        Format::Jsonl => "jsonl",
        Format::Csv => "csv",
        Format::Parquet => "parquet",
        Format::Table => "txt",
    }
}

/// The names `tables --out DIR` writes in each format.
fn tables_outputs() -> Vec<String> {
    let formats = [Format::Jsonl, Format::Csv, Format::Parquet, Format::Table];
    let mut v: Vec<String> = formats
        .iter()
        .flat_map(|&f| {
            ["table_state", "compaction", "deletes", "deletes_tables"]
                .map(|n| format!("{n}.{}", ext(f)))
        })
        .collect();
    v.push("table_stats.csv".into());
    v
}

/// `lakeaudit tables`; returns whether some input failed.
pub fn run(args: &TablesArgs) -> Result<bool> {
    // Output settings are checked before any table is read.
    let (format, dir) = match &args.out {
        Some(dir) => {
            let known = tables_outputs();
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            let format = args.format.unwrap_or(Format::Jsonl);
            (
                format,
                Some(output::OutDir::prepare(dir, &known, args.force)?),
            )
        }
        None => (
            output::resolve_format(
                args.format,
                args.output.as_deref(),
                crate::cli::format_or_default(None, args.output.as_deref()),
            )?,
            None,
        ),
    };
    let opts = tables::ReadOptions {
        deep: args.deep,
        allow_outside_table: args.allow_outside_table,
        stats_columns: None,
    };
    let a = audit(&args.paths, &args.policy.policies(), args.target_size, opts);
    match dir {
        Some(mut dir) => {
            write_into(&a, &mut dir, format)?;
            dir.finish()?;
        }
        None => write(&a.state, STATE, format, args.output.as_deref())?,
    }
    let mut err = std::io::stderr().lock();
    for w in &a.warnings {
        let _ = writeln!(err, "lakeaudit: warning: {w}");
    }
    for e in &a.errors {
        let _ = writeln!(err, "lakeaudit: {e}");
    }
    Ok(!a.errors.is_empty())
}
