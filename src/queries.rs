//! `lakeaudit queries`: one record per SQL execution.

use crate::output::{self, Col, Format};
use crate::pipeline;
use crate::{report_problems, Inputs};
use anyhow::Result;
use std::borrow::{Borrow, Cow};
use std::path::Path;
use workload::exec::Exec;
use workload::spool::Spool;
use workload::time::TimeRange;

/// Run the command; returns whether some input failed.
pub fn run(
    inputs: &Inputs,
    format: Format,
    out: Option<&Path>,
    apps: Option<&Path>,
) -> Result<bool> {
    if inputs.records.is_none() && matches!(format, Format::Jsonl | Format::Csv) {
        return stream(inputs, format, out, apps);
    }
    let data = pipeline::load(inputs, &TimeRange::default())?;
    if let Some(p) = apps {
        output::write_to(Some(p), |w| output::write_jsonl(&data.apps, w))?;
    }
    match format {
        Format::Jsonl => output::write_to(out, |w| {
            data.each(|e| {
                serde_json::to_writer(&mut *w, &*e)?;
                Ok(w.write_all(b"\n")?)
            })
        })?,
        Format::Csv => output::write_to(out, |w| {
            let mut batch = Vec::with_capacity(CSV_BATCH);
            let mut header = true;
            data.each(|e| {
                batch.push(e);
                if batch.len() == CSV_BATCH {
                    output::write_csv(&columns(&batch, false), w, header)?;
                    header = false;
                    batch.clear();
                }
                anyhow::Ok(())
            })?;
            if header || !batch.is_empty() {
                output::write_csv(&columns(&batch, false), w, header)?;
            }
            Ok(())
        })?,
        Format::Parquet => output::write_to(out, |w| {
            let mut rows = ParquetRecords::new(w);
            data.each(|e| rows.push(e))?;
            rows.finish()
        })?,
        Format::Table => {
            let mut all = Vec::new();
            data.each(|e| {
                all.push(e);
                anyhow::Ok(())
            })?;
            output::write_columns(&columns(&all, true), Format::Table, out)?
        }
    }
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// Executions turned into Parquet rows a batch at a time.
const PARQUET_BATCH: usize = 1024;

/// Records written as Parquet while they stream by (the columns of
/// [`columns`], in row groups of `tabular::ROW_GROUP_ROWS`).
pub struct ParquetRecords<'a, 'e> {
    rows: tabular::ParquetRows<'a>,
    batch: Vec<Cow<'e, Exec>>,
}

impl<'a, 'e> ParquetRecords<'a, 'e> {
    /// A records Parquet output to `out`.
    pub fn new(out: &'a mut dyn std::io::Write) -> Self {
        ParquetRecords {
            rows: tabular::ParquetRows::new(out),
            batch: Vec::with_capacity(PARQUET_BATCH),
        }
    }

    /// Append one execution.
    pub fn push(&mut self, e: Cow<'e, Exec>) -> Result<()> {
        self.batch.push(e);
        if self.batch.len() == PARQUET_BATCH {
            self.rows.push(&columns(&self.batch, false))?;
            self.batch.clear();
        }
        Ok(())
    }

    /// Write the last rows and the footer.
    pub fn finish(mut self) -> Result<()> {
        if !self.batch.is_empty() {
            self.rows.push(&columns(&self.batch, false))?;
        }
        Ok(self.rows.finish(&columns::<Exec>(&[], false))?)
    }
}

/// Executions written per CSV batch.
const CSV_BATCH: usize = 4096;

/// `queries` to a stream (JSON lines or CSV): the executions are spooled
/// while the logs are read (`workload::spool`), then written out in the
/// same order and with the same bytes as from memory.
fn stream(
    inputs: &Inputs,
    format: Format,
    out: Option<&Path>,
    apps: Option<&Path>,
) -> Result<bool> {
    let spool = Spool::read_logs(
        &inputs.paths,
        inputs.name.as_deref(),
        &pipeline::read_options(inputs),
    )?;
    let data = &spool.data;
    if let Some(p) = apps {
        output::write_to(Some(p), |w| output::write_jsonl(&data.apps, w))?;
    }
    output::write_to(out, |o| {
        match format {
            Format::Csv => {
                let mut batch = Vec::with_capacity(CSV_BATCH.min(data.records.len()));
                let mut header = true;
                for (i, s) in data.records.iter().enumerate() {
                    batch.push(spool.exec(s)?);
                    if batch.len() == CSV_BATCH || i + 1 == data.records.len() {
                        output::write_csv(&columns(&batch, false), o, header)?;
                        header = false;
                        batch.clear();
                    }
                }
                if header {
                    output::write_csv(&columns::<Exec>(&[], false), o, true)?;
                }
            }
            _ if !spool.renames() => {
                for s in &data.records {
                    o.write_all(&spool.raw(s)?)?;
                    o.write_all(b"\n")?;
                }
            }
            _ => {
                for s in &data.records {
                    serde_json::to_writer(&mut *o, &spool.exec(s)?)?;
                    o.write_all(b"\n")?;
                }
            }
        }
        Ok(())
    })?;
    report_problems(&data.errors, &data.warnings);
    Ok(data.failed())
}

/// Tabular view of records: scalar fields as columns, `scans`, `joins` and
/// `relationships` as JSON text (and a compact `tables` list) so CSV and
/// Parquet keep them. The terminal table keeps the short columns only.
pub fn columns<E: Borrow<Exec>>(execs: &[E], terminal: bool) -> Vec<Col> {
    let recs: Vec<&parsers::record::QueryRecord> =
        execs.iter().map(|e| &e.borrow().record).collect();
    let s = |f: &dyn Fn(&parsers::record::QueryRecord) -> Option<String>| {
        recs.iter().map(|r| f(r)).collect::<Vec<_>>()
    };
    let i = |f: &dyn Fn(&parsers::record::QueryRecord) -> Option<i64>| {
        recs.iter().map(|r| f(r)).collect::<Vec<_>>()
    };
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
            let human = |name, f: &dyn Fn(&parsers::record::QueryRecord) -> Option<i64>| {
                Col::Human(
                    name,
                    recs.iter()
                        .map(|r| f(r).map(|ms| output::millis(ms as f64)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use workload::records::{RecordType, RECORD_SCHEMA};

    #[test]
    fn the_records_writer_follows_the_one_schema() {
        let written: Vec<(&str, RecordType)> = columns::<Exec>(&[], false)
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
