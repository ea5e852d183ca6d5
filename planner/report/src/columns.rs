//! The tabular views of the commands' results ([`tabular::Col`]s for
//! CSV, Parquet and the terminal table): `queries`, `edges`, `drift`,
//! `whatif` and `layout_quality`. Each view names its columns in the
//! order the files document; the terminal view keeps the short columns and
//! prints sizes and times in human units.

use parsers::record::QueryRecord;
use planner::DriftRow;
use skipping::ScanRow;
use std::borrow::{Borrow, Cow};
use std::io::Write;
use std::path::Path;
use tabular::Format;
use tabular::{millis, Col};
use workload::edges::EdgeRow;
use workload::exec::Exec;
use workload::time::format_time;
use workload::windows::EdgeTable;
use workload::Workload;

/// Tabular view of records: scalar fields as columns, `scans`, `joins` and
/// `relationships` as JSON text (and a compact `tables` list) so CSV and
/// Parquet keep them. The terminal table keeps the short columns only.
pub fn queries<E: Borrow<Exec>>(execs: &[E], terminal: bool) -> Vec<Col> {
    let recs: Vec<&QueryRecord> = execs.iter().map(|e| &e.borrow().record).collect();
    let s =
        |f: &dyn Fn(&QueryRecord) -> Option<String>| recs.iter().map(|r| f(r)).collect::<Vec<_>>();
    let i = |f: &dyn Fn(&QueryRecord) -> Option<i64>| recs.iter().map(|r| f(r)).collect::<Vec<_>>();
    let mut cols = vec![
        Col::Str("app_id", s(&|r| Some(r.app_id.clone()))),
        Col::Int("execution_id", i(&|r| i64::try_from(r.execution_id).ok())),
        Col::Int(
            "root_execution_id",
            i(&|r| r.root_execution_id.and_then(|x| i64::try_from(x).ok())),
        ),
        Col::Str("app_name", s(&|r| Some(r.app_name.clone()))),
        Col::Str("spark_version", s(&|r| r.spark_version.clone())),
        Col::Int("start_ms", i(&|r| r.start_ms)),
        Col::Int("end_ms", i(&|r| r.end_ms)),
        Col::Int("duration_ms", i(&|r| r.duration_ms)),
        Col::Int("executor_run_ms", i(&|r| Some(r.executor_run_ms))),
        Col::Int("executor_cpu_ms", i(&|r| Some(r.executor_cpu_ms))),
        Col::Str(
            "plan_source",
            s(&|r| r.plan_source.map(|p| p.as_str().to_string())),
        ),
        Col::Bool(
            "adaptive_final",
            recs.iter().map(|r| Some(r.adaptive_final)).collect(),
        ),
        Col::Str("root_node", s(&|r| r.root_node.clone())),
        Col::Str(
            "tables",
            s(&|r| {
                let mut t: Vec<&str> = r.scans.iter().map(|x| x.table.as_str()).collect();
                t.sort_unstable();
                t.dedup();
                Some(t.join(" "))
            }),
        ),
        Col::Int("join_count", i(&|r| Some(r.joins.len() as i64))),
        Col::Int(
            "relationship_count",
            execs
                .iter()
                .map(|e| Some(e.borrow().relationships.len() as i64))
                .collect(),
        ),
        Col::Str("error", s(&|r| r.error.clone())),
        Col::Str("incomplete", s(&|r| r.incomplete.clone())),
    ];
    if terminal {
        cols.retain(|c| {
            !matches!(
                c.name(),
                "root_execution_id"
                    | "app_name"
                    | "spark_version"
                    | "start_ms"
                    | "end_ms"
                    | "executor_run_ms"
            )
        });
        // Times in human units, the unit in each cell.
        for c in &mut cols {
            let human = |name, f: &dyn Fn(&QueryRecord) -> Option<i64>| {
                Col::Human(
                    name,
                    recs.iter()
                        .map(|r| f(r).map(|ms| millis(ms as f64)))
                        .collect(),
                )
            };
            match c.name() {
                "duration_ms" => *c = human("duration", &|r| r.duration_ms),
                "executor_cpu_ms" => *c = human("executor cpu", &|r| Some(r.executor_cpu_ms)),
                _ => {}
            }
        }
        return cols;
    }
    cols.push(Col::Str("description", s(&|r| r.description.clone())));
    cols.push(Col::Str("log", s(&|r| Some(r.log.clone()))));
    cols.push(Col::Str(
        "scans",
        s(&|r| serde_json::to_string(&r.scans).ok()),
    ));
    cols.push(Col::Str(
        "joins",
        s(&|r| serde_json::to_string(&r.joins).ok()),
    ));
    cols.push(Col::Str(
        "relationships",
        execs
            .iter()
            .map(|e| serde_json::to_string(&e.borrow().relationships).ok())
            .collect(),
    ));
    cols.push(Col::Bool(
        "is_command",
        recs.iter().map(|r| Some(r.is_command)).collect(),
    ));
    cols.push(Col::Str("plan_error", s(&|r| r.plan_error.clone())));
    cols.push(Col::Int(
        "result_of",
        i(&|r| r.result_of.and_then(|x| i64::try_from(x).ok())),
    ));
    cols
}

/// Write the applications of `data` as JSON lines to `path` (`--apps`).
pub fn write_apps(data: &Workload, path: &Path) -> tabular::Result<()> {
    tabular::write_to(Some(path), |w| Ok(data.apps.write_jsonl(w)?))
}

/// Write the executions of `data` in `format`, streamed one at a time
/// (JSON lines, CSV in batches, Parquet in row groups) or, for the
/// terminal table, all at once.
pub fn write_queries(data: &Workload, format: Format, path: Option<&Path>) -> crate::Result<()> {
    let mut o = tabular::files::open_out(path)?;
    match format {
        Format::Jsonl => data.each(|e| {
            serde_json::to_writer(&mut o, &*e)?;
            Ok::<_, crate::Error>(o.write_all(b"\n").map_err(tabular::Error::from)?)
        })?,
        Format::Csv => {
            let mut batch = Vec::with_capacity(CSV_BATCH);
            let mut header = true;
            data.each(|e| {
                batch.push(e);
                if batch.len() == CSV_BATCH {
                    tabular::write_csv(&queries(&batch, false), &mut o, header)?;
                    header = false;
                    batch.clear();
                }
                Ok::<_, crate::Error>(())
            })?;
            if header || !batch.is_empty() {
                tabular::write_csv(&queries(&batch, false), &mut o, header)?;
            }
        }
        Format::Parquet => {
            let mut rows = ParquetRecords::new(&mut o);
            data.each(|e| Ok::<_, crate::Error>(rows.push(e)?))?;
            rows.finish()?;
        }
        Format::Table => {
            let mut all = Vec::new();
            data.each(|e| {
                all.push(e);
                Ok::<_, crate::Error>(())
            })?;
            let cols = queries(&all, true);
            tabular::write_table(&cols, &mut o, tabular::format::width(path))?;
        }
    }
    Ok(o.finish()?)
}

/// Executions turned into Parquet rows a batch at a time.
const PARQUET_BATCH: usize = 1024;

/// Records written as Parquet while they stream by (the columns of
/// [`queries`], in row groups of `tabular::ROW_GROUP_ROWS`).
pub struct ParquetRecords<'a, 'e> {
    rows: tabular::ParquetRows<'a>,
    batch: Vec<Cow<'e, Exec>>,
}

impl<'a, 'e> ParquetRecords<'a, 'e> {
    /// A records Parquet output to `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        ParquetRecords {
            rows: tabular::ParquetRows::new(out),
            batch: Vec::with_capacity(PARQUET_BATCH),
        }
    }

    /// Append one execution.
    pub fn push(&mut self, e: Cow<'e, Exec>) -> tabular::Result<()> {
        self.batch.push(e);
        if self.batch.len() == PARQUET_BATCH {
            self.rows.push(&queries(&self.batch, false))?;
            self.batch.clear();
        }
        Ok(())
    }

    /// Write the last rows and the footer.
    pub fn finish(mut self) -> tabular::Result<()> {
        if !self.batch.is_empty() {
            self.rows.push(&queries(&self.batch, false))?;
        }
        self.rows.finish(&queries::<Exec>(&[], false))
    }
}

/// Executions written per CSV batch.
const CSV_BATCH: usize = 4096;

/// Write the edges of `tables` (each window's, or the whole input's) in
/// `format`: JSON lines of the edge rows, each with its window's bounds
/// when windowed, or the [`edges`] columns.
pub fn write_edges(
    tables: &[&EdgeTable],
    windowed: bool,
    format: Format,
    path: Option<&Path>,
) -> tabular::Result<()> {
    if matches!(format, Format::Csv | Format::Parquet) {
        return tabular::write_parts(format, path, edge_parts(tables, windowed));
    }
    if format == Format::Table {
        let all: Vec<(Option<(i64, i64)>, &EdgeRow)> = tables
            .iter()
            .flat_map(|t| t.edges.iter().map(move |r| (t.window, r)))
            .collect();
        let cols = edges(&all, windowed, true);
        return tabular::write_columns(&cols, format, path);
    }
    tabular::write_to(path, |o| {
        for t in tables {
            for r in &t.edges {
                let mut v = serde_json::to_value(r)?;
                if let (Some((s, e)), Some(m)) = (t.window, v.as_object_mut()) {
                    m.insert("window_start_ms".into(), s.into());
                    m.insert("window_end_ms".into(), e.into());
                }
                serde_json::to_writer(&mut *o, &v)?;
                o.write_all(b"\n")?;
            }
        }
        Ok(())
    })
}

/// Text a part of the edge table's rows holds before the next part
/// starts ([`edge_parts`]).
const EDGE_PART_BYTES: usize = 8 << 20;

/// The edge table's columns (as a file: not the terminal's), a part of its
/// rows at a time with the text they hold, so that the execution lists of
/// a large input are never all in memory as text at once
/// ([`tabular::write_parts`]). The first part is there even when no table
/// has a row.
pub fn edge_parts<'a>(
    tables: &'a [&'a EdgeTable],
    windowed: bool,
) -> impl Iterator<Item = tabular::Result<(Vec<Col>, usize)>> + 'a {
    let mut rows = tables
        .iter()
        .flat_map(|t| t.edges.iter().map(move |r| (t.window, r)))
        .peekable();
    let mut first = true;
    std::iter::from_fn(move || {
        if !first && rows.peek().is_none() {
            return None;
        }
        first = false;
        let (mut part, mut bytes) = (Vec::new(), 0);
        while bytes < EDGE_PART_BYTES {
            let Some(r) = rows.next() else { break };
            bytes += r.1.executions.text_len() + 256;
            part.push(r);
        }
        Some(Ok((edges(&part, windowed, false), bytes)))
    })
}

/// Columns of the edge table (contract order first).
pub fn edges(rows: &[(Option<(i64, i64)>, &EdgeRow)], windowed: bool, terminal: bool) -> Vec<Col> {
    let s =
        |f: &dyn Fn(&EdgeRow) -> String| rows.iter().map(|(_, r)| Some(f(r))).collect::<Vec<_>>();
    let u =
        |f: &dyn Fn(&EdgeRow) -> u64| rows.iter().map(|(_, r)| i64::try_from(f(r)).ok()).collect();
    let fl = |f: &dyn Fn(&EdgeRow) -> f64| rows.iter().map(|(_, r)| Some(f(r))).collect();
    let mut cols = Vec::new();
    if windowed {
        cols.push(Col::Str(
            "window_start",
            rows.iter()
                .map(|(w, _)| w.map(|w| format_time(w.0)))
                .collect(),
        ));
    }
    if terminal {
        // One column, the edge as every report prints it (and as
        // `--explain` takes it), then the figures in human units.
        cols.push(Col::Str("edge", s(&|r| r.key().label())));
        cols.push(Col::Int("F", u(&|r| r.frequency)));
        cols.push(Col::Human(
            "D rows×rows",
            s(&|r| format!("{:.3e}", r.data_volume)),
        ));
        cols.push(Col::Human("C mean", s(&|r| millis(r.cost))));
        cols.push(Col::Human(
            "scanned",
            s(&|r| planner::human(r.scanned_bytes)),
        ));
        cols.push(Col::Human("JIS", s(&|r| format!("{:.3}", r.jis))));
        cols.push(Col::Int("SMJ", u(&|r| r.smj_count)));
        cols.push(Col::Int("BHJ", u(&|r| r.bhj_count)));
        cols.push(Col::Int("other", u(&|r| r.other_count)));
        return cols;
    }
    {
        cols.push(Col::Str("left_table", s(&|r| r.left_table.clone())));
    }
    cols.push(Col::Str("left_columns", s(&|r| r.left_columns.join(","))));
    cols.push(Col::Str("right_table", s(&|r| r.right_table.clone())));
    cols.push(Col::Str("right_columns", s(&|r| r.right_columns.join(","))));
    cols.push(Col::Int("frequency", u(&|r| r.frequency)));
    cols.push(Col::Float("data_volume", fl(&|r| r.data_volume)));
    cols.push(Col::Float("cost", fl(&|r| r.cost)));
    cols.push(Col::Float("f_norm", fl(&|r| r.f_norm)));
    cols.push(Col::Float("d_norm", fl(&|r| r.d_norm)));
    cols.push(Col::Float("c_norm", fl(&|r| r.c_norm)));
    cols.push(Col::Float("jis", fl(&|r| r.jis)));
    cols.push(Col::Int("smj_count", u(&|r| r.smj_count)));
    cols.push(Col::Int("bhj_count", u(&|r| r.bhj_count)));
    cols.push(Col::Int("other_count", u(&|r| r.other_count)));
    cols.push(Col::Int(
        "first_seen_ms",
        rows.iter().map(|(_, r)| r.first_seen_ms).collect(),
    ));
    cols.push(Col::Int(
        "last_seen_ms",
        rows.iter().map(|(_, r)| r.last_seen_ms).collect(),
    ));
    cols.push(Col::Float("scanned_bytes", fl(&|r| r.scanned_bytes)));
    if windowed {
        cols.push(Col::Int(
            "window_start_ms",
            rows.iter().map(|(w, _)| w.map(|w| w.0)).collect(),
        ));
        cols.push(Col::Int(
            "window_end_ms",
            rows.iter().map(|(w, _)| w.map(|w| w.1)).collect(),
        ));
    }
    cols.push(Col::Str("executions", s(&|r| r.executions.join(" "))));
    cols
}
/// Tabular view.
pub fn drift(rows: &[DriftRow], terminal: bool) -> Vec<Col> {
    let mut cols = vec![Col::Str(
        "window_start",
        rows.iter()
            .map(|r| Some(format_time(r.window_start_ms)))
            .collect(),
    )];
    cols.extend(drift_figures(rows));
    cols.extend([Col::Str(
        "new_edges",
        rows.iter().map(|r| Some(r.new_edges.join("; "))).collect(),
    )]);
    if !terminal {
        cols.push(Col::Str(
            "gone_edges",
            rows.iter().map(|r| Some(r.gone_edges.join("; "))).collect(),
        ));
        cols.push(Col::Str(
            "moved",
            rows.iter().map(|r| Some(r.moved.join("; "))).collect(),
        ));
        cols.push(Col::Int(
            "window_start_ms",
            rows.iter().map(|r| Some(r.window_start_ms)).collect(),
        ));
        cols.push(Col::Int(
            "window_end_ms",
            rows.iter().map(|r| Some(r.window_end_ms)).collect(),
        ));
        cols.push(Col::Bool(
            "replan",
            rows.iter().map(|r| Some(r.replan)).collect(),
        ));
        cols.push(Col::Bool(
            "held",
            rows.iter().map(|r| Some(r.held)).collect(),
        ));
    }
    cols
}

/// The drift, the verdict, and the edges and executions of each window.
fn drift_figures(rows: &[DriftRow]) -> [Col; 4] {
    [
        Col::Float("drift", rows.iter().map(|r| Some(r.drift)).collect()),
        Col::Str(
            "verdict",
            rows.iter()
                .map(|r| {
                    Some(
                        match (r.replan, r.held) {
                            (true, true) => "re-plan (still due)",
                            (true, false) => "re-plan",
                            (false, _) => "keep",
                        }
                        .to_string(),
                    )
                })
                .collect(),
        ),
        Col::Int("edges", rows.iter().map(|r| Some(r.edges as i64)).collect()),
        Col::Int(
            "executions",
            rows.iter().map(|r| Some(r.executions as i64)).collect(),
        ),
    ]
}

/// The terminal view: one line per window (its start, the window it is
/// compared with and any gap of empty windows between), then every new and
/// gone edge of each window in full, one per line.
pub fn write_drift_table(
    rows: &[DriftRow],
    out: &mut dyn Write,
    width: Option<usize>,
) -> tabular::Result<()> {
    let mut cols = vec![
        Col::Str(
            "window start",
            rows.iter()
                .map(|r| Some(format_time(r.window_start_ms)))
                .collect(),
        ),
        Col::Str(
            "compared with",
            rows.iter()
                .map(|r| {
                    Some(if r.gap_windows > 0 {
                        format!(
                            "{} (after {} empty)",
                            format_time(r.prev_window_start_ms),
                            r.gap_windows
                        )
                    } else {
                        format_time(r.prev_window_start_ms)
                    })
                })
                .collect(),
        ),
    ];
    cols.extend(drift_figures(rows));
    cols.extend([
        Col::Int(
            "new",
            rows.iter()
                .map(|r| Some(r.new_edges.len() as i64))
                .collect(),
        ),
        Col::Int(
            "gone",
            rows.iter()
                .map(|r| Some(r.gone_edges.len() as i64))
                .collect(),
        ),
    ]);
    tabular::write_table(&cols, out, width)?;
    for r in rows {
        if r.new_edges.is_empty() && r.gone_edges.is_empty() {
            continue;
        }
        writeln!(out, "\n{}:", format_time(r.window_start_ms))?;
        for (what, list) in [("new", &r.new_edges), ("gone", &r.gone_edges)] {
            for e in list.iter() {
                writeln!(out, "  {what:<4}  {e}")?;
            }
        }
    }
    Ok(())
}
/// The layout quality rows as columns (`layout_quality.csv`).
pub fn quality(rows: &[skipping::quality::Quality]) -> Vec<Col> {
    let int = |f: fn(&skipping::quality::Quality) -> u64| {
        rows.iter().map(|r| Some(f(r) as i64)).collect()
    };
    vec![
        Col::Str(
            "table",
            rows.iter().map(|r| Some(r.table.clone())).collect(),
        ),
        Col::Str(
            "column",
            rows.iter().map(|r| Some(r.column.clone())).collect(),
        ),
        Col::Int("files", int(|r| r.files)),
        Col::Int("files_with_bounds", int(|r| r.files_with_bounds)),
        Col::Int("constant_files", int(|r| r.constant_files)),
        Col::Float(
            "average_overlap",
            rows.iter().map(|r| Some(r.average_overlap)).collect(),
        ),
        Col::Float(
            "average_depth",
            rows.iter().map(|r| Some(r.average_depth)).collect(),
        ),
        Col::Str(
            "depth_histogram",
            rows.iter()
                .map(|r| {
                    let h: Vec<String> = r
                        .depth_histogram
                        .iter()
                        .map(|(d, n)| format!("{d}:{n}"))
                        .collect();
                    Some(h.join(";"))
                })
                .collect(),
        ),
    ]
}

/// Tabular view; on a terminal sizes are human and the columns are in the
/// order a narrow terminal gives them up in reverse: the scan, its answer
/// (files and bytes read), the totals, the diagnostics, the description.
pub fn whatif(rows: &[ScanRow], terminal: bool) -> Vec<Col> {
    let int = |f: fn(&ScanRow) -> u64| rows.iter().map(|r| Some(f(r) as i64)).collect();
    let bytes = |name, f: fn(&ScanRow) -> u64| {
        if terminal {
            Col::Human(
                name,
                rows.iter()
                    .map(|r| Some(planner::human(f(r) as f64)))
                    .collect(),
            )
        } else {
            Col::Int(name, int(f))
        }
    };
    let mut cols = vec![
        Col::Str(
            "app_id",
            rows.iter().map(|r| Some(r.app_id.clone())).collect(),
        ),
        Col::Int("execution_id", int(|r| r.execution_id)),
        Col::Str(
            "description",
            rows.iter().map(|r| r.description.clone()).collect(),
        ),
        Col::Int("scan", int(|r| u64::from(r.scan))),
        Col::Str(
            "table",
            rows.iter().map(|r| Some(r.table.clone())).collect(),
        ),
        Col::Str(
            "layout",
            rows.iter().map(|r| Some(r.layout.to_string())).collect(),
        ),
        Col::Str(
            "engine",
            rows.iter()
                .map(|r| Some(r.engine.as_str().into()))
                .collect(),
        ),
        Col::Str(
            "rewriter",
            rows.iter()
                .map(|r| r.rewriter.map(|w| w.as_str().into()))
                .collect(),
        ),
        Col::Int(
            "target_size",
            rows.iter()
                .map(|r| r.target_size.map(|n| n as i64))
                .collect(),
        ),
        Col::Int("files_total", int(|r| r.files_total)),
        Col::Int("files_read", int(|r| r.files_read)),
        bytes("bytes_total", |r| r.bytes_total),
        bytes("bytes_read", |r| r.bytes_read),
        Col::Int("files_without_stats", int(|r| r.files_without_stats)),
        Col::Int("unknown_predicates", int(|r| r.unknown_predicates)),
        Col::Str(
            "join_predicates",
            rows.iter()
                .map(|r| Some(r.join_predicates.clone()).filter(|s| !s.is_empty()))
                .collect(),
        ),
        Col::Int(
            "logged_files_read",
            rows.iter().map(|r| r.logged_files_read).collect(),
        ),
        Col::Int(
            "logged_bytes_read",
            rows.iter().map(|r| r.logged_bytes_read).collect(),
        ),
        Col::Int(
            "sample_rows",
            rows.iter()
                .map(|r| r.sample_rows.map(|n| n as i64))
                .collect(),
        ),
        Col::Int(
            "files_read_half_sample",
            rows.iter()
                .map(|r| r.files_read_half_sample.map(|n| n as i64))
                .collect(),
        ),
    ];
    if terminal {
        cols.retain(|c| {
            !matches!(
                c.name(),
                "app_id" | "logged_bytes_read" | "sample_rows" | "files_read_half_sample"
            )
        });
        // A narrow terminal drops the last columns first (issue 32.9: at
        // 100 columns the answer, files_read and bytes_read, went and the
        // description stayed): the answer right after what names the
        // scan, then the totals and diagnostics, the description last.
        let rank = |c: &Col| match c.name() {
            "execution_id" | "scan" | "table" | "layout" | "engine" => 0,
            "files_read" | "bytes_read" => 1,
            "files_total" | "bytes_total" => 2,
            "description" => 4,
            _ => 3,
        };
        cols.sort_by_key(rank);
    }
    cols
}
/// The audit's results as columns, typed by their values
/// ([`tabular::records::columns`]): `table_state`, `compaction`, `deletes`
/// and `deletes_tables`, in the column order of each file.
pub mod audit {
    use super::Col;
    use maintenance::audit::Audit;
    use serde::Serialize;
    use tabular::{Format, Result};

    /// Write every output of an audit into the output directory `dir`
    /// in `format`, and `table_stats.csv` (the `--table-stats` layout).
    pub fn write_into(a: &Audit, dir: &mut tabular::files::OutDir, format: Format) -> Result<()> {
        let mut path = |n: &str| dir.file(&format!("{n}.{}", format.ext()));
        write(&a.state, STATE, format, Some(&path("table_state")))?;
        write(&a.compaction, COMPACTION, format, Some(&path("compaction")))?;
        write(&a.deletes, DELETES, format, Some(&path("deletes")))?;
        write(&a.rollups, ROLLUP, format, Some(&path("deletes_tables")))?;
        let stats = dir.file("table_stats.csv");
        tabular::write_columns(&table_stats(a), Format::Csv, Some(&stats))
    }

    /// Write the `table_state` records in `format` (`lakeaudit tables`).
    pub fn write_state(a: &Audit, format: Format, path: Option<&std::path::Path>) -> Result<()> {
        write(&a.state, STATE, format, path)
    }

    /// The names `tables --out DIR` can write, in every format.
    pub fn file_names() -> Vec<String> {
        let formats = [Format::Jsonl, Format::Csv, Format::Parquet, Format::Table];
        let mut v: Vec<String> = formats
            .iter()
            .flat_map(|&f| {
                ["table_state", "compaction", "deletes", "deletes_tables"]
                    .map(|n| format!("{n}.{}", f.ext()))
            })
            .collect();
        v.push("table_stats.csv".into());
        v
    }

    /// Write records as JSON lines, or their columns `names` in
    /// `format`; a terminal table shows [`for_reading`]'s view.
    fn write<T: Serialize>(
        rows: &[T],
        names: &[&'static str],
        format: Format,
        path: Option<&std::path::Path>,
    ) -> Result<()> {
        if format == Format::Jsonl {
            return tabular::write_to(path, |w| tabular::write_jsonl(rows, w));
        }
        let cols = tabular::records::columns(rows, names)?;
        match format {
            Format::Table => tabular::write_columns(&for_reading(cols), format, path),
            other => tabular::write_columns(&cols, other, path),
        }
    }

    /// The `--table-stats` CSV of an audit (`table_stats.csv`): one row
    /// per table with its bytes, live rows, files and keys.
    fn table_stats(a: &Audit) -> Vec<Col> {
        // Empty text is an empty cell, as `--table-stats` reads it.
        let text = |f: fn(&maintenance::TableStateRow) -> String| {
            a.state
                .iter()
                .map(|s| Some(f(s)).filter(|t| !t.is_empty()))
                .collect()
        };
        let int = |f: fn(&maintenance::TableStateRow) -> u64| {
            a.state.iter().map(|s| i64::try_from(f(s)).ok()).collect()
        };
        vec![
            Col::Str("table", text(|s| s.table.clone())),
            Col::Int("bytes", int(|s| s.bytes)),
            Col::Int("rows", int(|s| s.rows_live)),
            Col::Int("files", int(|s| s.files)),
            Col::Str("partitioned_by", text(|s| s.partition_columns.join(";"))),
            Col::Str("clustered_by", text(|s| s.clustering_columns.join(";"))),
        ]
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
}

/// The columns of `verify` (and `verify.csv`): one row per rewrite of an
/// audited table; on a terminal, bytes in human units and the least
/// needed columns left out.
pub fn verify(rows: &[skipping::verify::VerifyRow], terminal: bool) -> Vec<Col> {
    use skipping::verify::VerifyRow;
    let text =
        |name, f: fn(&VerifyRow) -> Option<String>| Col::Str(name, rows.iter().map(f).collect());
    let count = |name, f: fn(&VerifyRow) -> Option<u64>| {
        Col::Int(name, rows.iter().map(|r| f(r).map(|n| n as i64)).collect())
    };
    let float = |name, f: fn(&VerifyRow) -> Option<f64>| {
        if terminal {
            Col::Human(
                name,
                rows.iter()
                    .map(|r| f(r).map(|v| format!("{v:.1}")))
                    .collect(),
            )
        } else {
            Col::Float(
                name,
                rows.iter()
                    .map(|r| f(r).map(|v| (v * 100.0).round() / 100.0))
                    .collect(),
            )
        }
    };
    let bytes = |name, f: fn(&VerifyRow) -> Option<f64>| {
        if terminal {
            Col::Human(
                name,
                rows.iter().map(|r| f(r).map(planner::human)).collect(),
            )
        } else {
            float(name, f)
        }
    };
    let share = |name, f: fn(&VerifyRow) -> Option<f64>| {
        if terminal {
            Col::Human(
                name,
                rows.iter()
                    .map(|r| f(r).map(|v| format!("{:+.0}%", v * 100.0)))
                    .collect(),
            )
        } else {
            float(name, f)
        }
    };
    let mut cols = vec![
        text("table", |r| Some(r.table.clone())),
        text("format", |r| Some(r.format.clone())),
        Col::Int("version", rows.iter().map(|r| Some(r.version)).collect()),
        text("rewrite_time", |r| Some(format_time(r.rewrite_ms))),
        text("operation", |r| Some(r.operation.clone())),
        count("files_removed", |r| r.files_removed),
        count("files_added", |r| r.files_added),
        if terminal {
            bytes("bytes_rewritten", |r| r.bytes_rewritten.map(|b| b as f64))
        } else {
            count("bytes_rewritten", |r| r.bytes_rewritten)
        },
        text("key", |r| r.key.clone()),
        text("key_source", |r| r.key_source.map(|k| k.as_str().into())),
        count("scans_before", |r| Some(r.scans_before)),
        count("scans_after", |r| Some(r.scans_after)),
        count("queries_compared", |r| Some(r.queries_compared)),
        count("runs_before", |r| Some(r.runs_before)),
        count("runs_after", |r| Some(r.runs_after)),
        float("files_per_run_before", |r| r.files_per_run_before),
        float("files_per_run_after", |r| r.files_per_run_after),
        share("files_change", VerifyRow::files_change),
        bytes("bytes_per_run_before", |r| r.bytes_per_run_before),
        bytes("bytes_per_run_after", |r| r.bytes_per_run_after),
        share("bytes_change", VerifyRow::bytes_change),
        float("predicted_files_before", |r| r.predicted_files_before),
        float("predicted_files_after", |r| r.predicted_files_after),
        share("predicted_files_change", VerifyRow::predicted_files_change),
        bytes("predicted_bytes_before", |r| r.predicted_bytes_before),
        bytes("predicted_bytes_after", |r| r.predicted_bytes_after),
        count("ignored_counts", |r| Some(r.ignored_counts)),
        text("verdict", |r| Some(r.verdict.as_str().into())),
        text("prediction_note", |r| r.prediction_note.clone()),
    ];
    if terminal {
        cols.retain(|c| {
            matches!(
                c.name(),
                "table"
                    | "rewrite_time"
                    | "bytes_rewritten"
                    | "scans_before"
                    | "scans_after"
                    | "files_per_run_before"
                    | "files_per_run_after"
                    | "files_change"
                    | "bytes_per_run_before"
                    | "bytes_per_run_after"
                    | "predicted_files_before"
                    | "predicted_files_after"
                    | "verdict"
            )
        });
    }
    cols
}

/// The columns of `calibration.csv`: per audited table and engine that
/// read it, how many scans each model predicted exactly, and the model
/// that fits ([`skipping::calibrate`]).
pub fn calibration(rows: &[skipping::calibrate::Calibration]) -> Vec<Col> {
    use skipping::calibrate::{Calibration, MODELS};
    let count = |name, f: fn(&Calibration) -> u64| {
        Col::Int(name, rows.iter().map(|r| Some(f(r) as i64)).collect())
    };
    let exact = |name, i: usize| {
        Col::Int(
            name,
            rows.iter()
                .map(|r| r.models.get(i).map(|m| m.exact as i64))
                .collect(),
        )
    };
    debug_assert_eq!(MODELS.len(), 4);
    vec![
        Col::Str(
            "table",
            rows.iter().map(|r| Some(r.table.clone())).collect(),
        ),
        Col::Str(
            "engine",
            rows.iter()
                .map(|r| Some(r.runner.as_str().into()))
                .collect(),
        ),
        count("scans_compared", |r| r.scans_compared),
        count("scans_other_snapshot", |r| r.scans_other_snapshot),
        count("bad_counts", |r| r.bad_counts),
        Col::Str(
            "fitted",
            rows.iter()
                .map(|r| r.fitted.map(|e| e.as_str().into()))
                .collect(),
        ),
        Col::Float(
            "share_exact",
            rows.iter().map(|r| r.share_exact()).collect(),
        ),
        Col::Float(
            "mean_abs_error",
            rows.iter()
                .map(|r| {
                    let f = r.fitted?;
                    r.models
                        .iter()
                        .find(|m| m.model == f)
                        .map(|m| m.mean_abs_error)
                })
                .collect(),
        ),
        exact("exact_none", 0),
        exact("exact_minmax", 1),
        exact("exact_join_range", 2),
        exact("exact_values", 3),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use workload::records::{RecordType, RECORD_SCHEMA};

    #[test]
    fn the_records_writer_follows_the_one_schema() {
        let written: Vec<(&str, RecordType)> = queries::<Exec>(&[], false)
            .iter()
            .map(|c| {
                let t = match c {
                    Col::Int(..) => RecordType::Long,
                    Col::Bool(..) => RecordType::Bool,
                    Col::Str(..) | Col::Human(..) | Col::Float(..) => RecordType::Text,
                };
                (c.name(), t)
            })
            .collect();
        let schema: Vec<(&str, RecordType)> =
            RECORD_SCHEMA.iter().map(|(n, t, _)| (*n, *t)).collect();
        assert_eq!(written, schema);
    }
}
