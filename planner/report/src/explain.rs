//! Why an edge scored what it did (`lakeaudit edges --explain`): its
//! JIS as the product of its normalised factors, the raw F, D and C, the
//! join strategies, and every execution that contains it.

use std::collections::BTreeSet;
use std::io::Write;
use workload::edges::EdgeRow;
use workload::exec::Exec;
use workload::time::format_time;
use workload::windows::EdgeTable;
use workload::Workload;

/// Write the explanation of edge `r` of a table of `edges_in_window`
/// edges (the window `win`, `None` for the whole input); `execs` are the
/// run's executions, for the ones the edge names.
pub fn edge(
    out: &mut dyn Write,
    r: &EdgeRow,
    win: Option<(i64, i64)>,
    edges_in_window: usize,
    execs: &[Exec],
) -> std::io::Result<()> {
    writeln!(out, "edge {}", r.key().label())?;
    if let Some((s, e)) = win {
        writeln!(
            out,
            "  window      {} .. {}",
            format_time(s),
            format_time(e)
        )?;
    }
    writeln!(
        out,
        "  JIS         {:.4} = F̂ {:.4} × D̂ {:.4} × Ĉ {:.4}   (min–max over {} edges; D̂ on log10(D+1))",
        r.jis, r.f_norm, r.d_norm, r.c_norm, edges_in_window
    )?;
    writeln!(out, "  F frequency {} executions", r.frequency)?;
    writeln!(
        out,
        "  D volume    {:.0} mean rows(left) × rows(right)",
        r.data_volume
    )?;
    writeln!(out, "  C cost      {:.1} ms mean", r.cost)?;
    writeln!(
        out,
        "  strategies  SortMergeJoin {}  BroadcastHashJoin {}  other {}",
        r.smj_count, r.bhj_count, r.other_count
    )?;
    if r.volume_fallbacks > 0 {
        writeln!(
            out,
            "  note        {} execution(s) lacked a scan row count; --table-stats rows (or 0) were used",
            r.volume_fallbacks
        )?;
    }
    writeln!(out, "  executions:")?;
    for id in r.executions.iter() {
        let e = execs
            .iter()
            .find(|e| e.record.app_id == id.app_id && e.record.execution_id == id.execution_id);
        match e {
            Some(e) => {
                let tables: Vec<String> = e
                    .record
                    .scans
                    .iter()
                    .map(|s| {
                        format!(
                            "{}={}",
                            graph::tables::short_table(&s.table),
                            s.rows.map_or("?".into(), |x| x.to_string())
                        )
                    })
                    .collect();
                writeln!(
                    out,
                    "    {id}  {} ms  cpu {} ms  rows[{}]  {}",
                    e.record.duration_ms.unwrap_or(0),
                    e.record.executor_cpu_ms,
                    tables.join(" "),
                    e.record.description.as_deref().unwrap_or("")
                )?;
            }
            None => writeln!(out, "    {id}")?,
        }
    }
    writeln!(out)?;
    Ok(())
}

/// Explain every edge of `tables` that `pattern` matches (an edge as
/// lakeaudit prints it, `orders-lineitem` or
/// `orders.o_orderkey=lineitem.l_orderkey`), with the executions it names
/// (read in a second pass over `data`). When none matches, the inner
/// result is the message to give: the closest edges' labels, or that the
/// input has none ([`crate::Error::NoEdgeMatch`], [`crate::Error::NoEdges`]).
pub fn matching(
    out: &mut dyn Write,
    tables: &[&EdgeTable],
    pattern: &str,
    data: &Workload,
) -> crate::Result<crate::Result<()>> {
    let found: Vec<(&EdgeTable, &EdgeRow)> = tables
        .iter()
        .flat_map(|t| {
            (t.edges.iter())
                .filter(|r| r.key().matches(pattern))
                .map(move |r| (*t, r))
        })
        .collect();
    if found.is_empty() {
        let mut labels: Vec<String> = tables
            .iter()
            .flat_map(|t| t.edges.iter().map(|r| r.key().label()))
            .collect();
        labels.sort();
        labels.dedup();
        let closest = workload::edges::closest_labels(pattern, &labels, 5);
        let pattern = pattern.to_string();
        return Ok(Err(if closest.is_empty() {
            crate::Error::NoEdges { pattern }
        } else {
            crate::Error::NoEdgeMatch { pattern, closest }
        }));
    }
    let named: BTreeSet<(String, u64)> = (found.iter())
        .flat_map(|(_, r)| r.executions.iter())
        .map(|e| (e.app_id.to_string(), e.execution_id))
        .collect();
    let mut execs = Vec::new();
    data.each(|e| {
        if named.contains(&(e.record.app_id.clone(), e.record.execution_id)) {
            execs.push(e.into_owned());
        }
        Ok::<_, workload::Error>(())
    })?;
    for (t, r) in found {
        edge(out, r, t.window, t.edges.len(), &execs).map_err(tabular::Error::from)?;
    }
    Ok(Ok(()))
}
