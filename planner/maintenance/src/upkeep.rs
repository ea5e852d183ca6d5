//! One maintenance plan: the layout plan's reclusters, then the compaction
//! and delete purging the other tables need, ranked by value.
//!
//! A recluster rewrites the whole table, so it also compacts its small files
//! and drops the rows its deletes removed: a table the layout plan
//! reclusters gets no separate compaction or purge step.
//!
//! Value of a step = `scanned_bytes × (1 + jis) × overhead`, where
//! `scanned_bytes` and `jis` (the summed Join Importance Score of the
//! table's join edges) come from the logs, and `overhead` from the table:
//! the extra bytes its delete files and deletion vectors make a read open
//! (read amplification − 1), plus the share of its rows that are deleted,
//! plus the share of its files that are small. Tables the logs never read
//! rank after the others, by `overhead × bytes`.

use crate::audit::Audit;
use crate::{CompactionRow, DeleteFileRow, DeleteRollup, TableStateRow};
use planner::Planned;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// What the logs say about one table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workload {
    /// Bytes the logged scans read from the table.
    pub scanned_bytes: u64,
    /// Summed JIS of the join edges the table is on.
    pub jis: f64,
}

/// One audited table with everything the plan knows about it.
#[derive(Clone, Debug)]
pub struct TableUpkeep<'a> {
    /// The table's identity in the logs.
    pub table: String,
    /// Its `table_state` record.
    pub state: &'a TableStateRow,
    /// Its compaction rows (any policy; the table format's own is used).
    pub compaction: Vec<&'a CompactionRow>,
    /// Its data files with deletes.
    pub deletes: Vec<&'a DeleteFileRow>,
    /// Its delete roll-up.
    pub rollup: Option<&'a DeleteRollup>,
    /// What the logs say about it.
    pub workload: Workload,
    /// The layout plan's new clustering key, when it reclusters the table.
    pub recluster: Option<Vec<String>>,
    /// Leave the table uncompacted when it is smaller than one target file
    /// and than this (`None`: compact tables of any size).
    pub min_table_bytes: Option<u64>,
}

/// What a step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The layout plan's recluster (it compacts and purges too).
    Recluster,
    /// Bin-pack small files.
    Compact,
    /// Rewrite data files with too many deleted rows.
    PurgeDeletes,
    /// Both, in one rewrite.
    CompactAndPurge,
    /// Nothing: the table is smaller than one target file, so compacting
    /// it saves next to nothing (the step says why).
    LeaveAlone,
}

impl Action {
    /// Short label.
    pub fn label(self) -> &'static str {
        match self {
            Action::Recluster => "recluster",
            Action::Compact => "compact",
            Action::PurgeDeletes => "purge deletes",
            Action::CompactAndPurge => "compact + purge deletes",
            Action::LeaveAlone => "left alone",
        }
    }
}

/// One maintenance step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UpkeepStep {
    /// Table identity (as in the logs and the layout plan).
    pub table: String,
    /// What the step does.
    pub action: Action,
    /// Bytes the step rewrites.
    pub rewrite_bytes: u64,
    /// Data files it rewrites.
    pub files_rewritten: u64,
    /// Deleted rows it drops for good.
    pub rows_purged: u64,
    /// Read amplification from delete files and DVs (1: none).
    pub read_amplification: f64,
    /// Share of the table's files that are small.
    pub small_file_share: f64,
    /// Share of the table's physical rows that are deleted.
    pub deleted_share: f64,
    /// Bytes the logs read from the table.
    pub scanned_bytes: u64,
    /// Summed JIS of its join edges.
    pub jis: f64,
    /// The ranking value (see the module docs).
    pub value: f64,
    /// What the step rewrites, in words.
    pub rewrites: String,
    /// The statements to run, in order (one per group of partitions where
    /// the engine takes several in one statement); none for a recluster
    /// (its statements are in `plan.sql`) or a table left alone.
    pub statements: Vec<String>,
    /// Bytes the logged scans of the table would not have read after the
    /// step (over the logs' whole range): the share of rows it purges and
    /// the delete files' extra bytes it makes unnecessary. A recluster's
    /// saving is the layout plan's.
    pub saved_bytes: f64,
    /// Files fewer after the step (compaction), each a file open fewer
    /// for a read of the whole table.
    pub files_fewer: u64,
}

/// `n` and the noun, in the plural unless `n` is 1: `1 file`, `48 files`.
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What a recluster rewrites, and the maintenance it makes unnecessary.
fn recluster_rewrites(files: u64, keys: &[String], small_files: u64, rows_deleted: u64) -> String {
    let mut out = format!(
        "the whole table ({}) onto CLUSTER BY ({})",
        count(files, "file"),
        keys.join(", ")
    );
    let (compacts, purges) = (small_files > 0, rows_deleted > 0);
    if compacts || purges {
        let mut also = Vec::new();
        if compacts {
            also.push(format!("compacts its {}", count(small_files, "small file")));
        }
        if purges {
            also.push(format!("drops its {}", count(rows_deleted, "deleted row")));
        }
        let spared = match (compacts, purges) {
            (true, true) => "OPTIMIZE or purge",
            (true, false) => "OPTIMIZE",
            _ => "purge",
        };
        out.push_str(&format!(
            "; this also {}, so no separate {spared}",
            also.join(" and ")
        ));
    }
    out
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The maintenance steps for `tables`, best value first.
pub fn upkeep(tables: &[TableUpkeep<'_>]) -> Vec<UpkeepStep> {
    let mut steps: Vec<(f64, UpkeepStep)> = tables.iter().filter_map(step).collect();
    steps.sort_by(|(sa, a), (sb, b)| {
        b.value
            .total_cmp(&a.value)
            .then(sb.total_cmp(sa))
            .then(a.table.cmp(&b.table))
    });
    steps.into_iter().map(|(_, s)| s).collect()
}

/// A table's step and its table-side weight (`overhead × bytes`).
fn step(t: &TableUpkeep<'_>) -> Option<(f64, UpkeepStep)> {
    let s = t.state;
    let extra: u64 = t
        .deletes
        .iter()
        .map(|d| d.bytes_opened.saturating_sub(d.file_bytes))
        .sum();
    let read_amplification = 1.0 + ratio(extra, s.bytes);
    let small_file_share = ratio(s.small_files, s.files);
    let deleted_share = ratio(s.rows_deleted, s.rows_physical);
    let overhead = read_amplification - 1.0 + small_file_share + deleted_share;
    let value = t.workload.scanned_bytes as f64 * (1.0 + t.workload.jis) * overhead;
    let weight = overhead * s.bytes as f64;
    let native = crate::Policy::native(s.format);
    let native_rows = || t.compaction.iter().copied().filter(|c| c.policy == native);
    let mut compaction: Vec<&CompactionRow> =
        native_rows().filter(|c| c.bytes_to_rewrite > 0).collect();
    let purge: Vec<&&DeleteFileRow> = t
        .deletes
        .iter()
        .filter(|d| d.verdict == crate::deletes::Verdict::RewriteNow)
        .collect();
    // A table smaller than one target file is not rewritten (issue 20.1,
    // issue 32.6): its files are few bytes to open, and a rewrite — an
    // OPTIMIZE or a purge of its deletes alike — buys next to nothing.
    let target = native_rows()
        .map(|c| c.target_size)
        .max()
        .unwrap_or(s.small_file_threshold);
    let small_table = (!compaction.is_empty() || !purge.is_empty())
        && t.min_table_bytes.is_some_and(|m| s.bytes < m.min(target));
    let mut out = UpkeepStep {
        table: t.table.clone(),
        action: Action::Compact,
        rewrite_bytes: 0,
        files_rewritten: 0,
        rows_purged: 0,
        read_amplification,
        small_file_share,
        deleted_share,
        scanned_bytes: t.workload.scanned_bytes,
        jis: t.workload.jis,
        value,
        rewrites: String::new(),
        statements: Vec::new(),
        saved_bytes: 0.0,
        files_fewer: 0,
    };
    if let Some(keys) = &t.recluster {
        out.action = Action::Recluster;
        out.rewrite_bytes = s.bytes;
        out.files_rewritten = s.files;
        out.rows_purged = s.rows_deleted;
        out.rewrites = recluster_rewrites(s.files, keys, s.small_files, s.rows_deleted);
        return Some((weight, out));
    }
    if small_table {
        let mut left = Vec::new();
        if !compaction.is_empty() {
            left.push(format!(
                "{} to compact",
                count(
                    compaction.iter().map(|c| c.candidate_files).sum(),
                    "small file"
                )
            ));
        }
        if !purge.is_empty() {
            left.push(format!(
                "{} whose deletes passed their rule ({} deleted, {:.1}% of its rows)",
                count(purge.len() as u64, "data file"),
                count(purge.iter().map(|d| d.deleted_rows).sum(), "row"),
                deleted_share * 100.0
            ));
        }
        out.action = Action::LeaveAlone;
        out.value = 0.0;
        out.rewrites = format!(
            "nothing: the table ({} in {}) is smaller than one target file ({}), so a rewrite buys next to nothing; neither OPTIMIZE nor a purge runs (it has {}; --min-table-size 0 rewrites it)",
            planner::size::human(s.bytes as f64),
            count(s.files, "file"),
            planner::size::human(target as f64),
            left.join(" and ")
        );
        compaction.clear();
        return Some((0.0, out));
    }
    let compact_bytes: u64 = compaction.iter().map(|c| c.bytes_to_rewrite).sum();
    let compact_files: u64 = compaction.iter().map(|c| c.candidate_files).sum();
    let compact_after: u64 = compaction.iter().map(|c| c.files_after_est).sum();
    let compact_before: u64 = compaction.iter().map(|c| c.files_before).sum();
    let compact_purged: u64 = compaction.iter().map(|c| c.rows_purged).sum();
    let purge_rows: u64 = purge.iter().map(|d| d.deleted_rows).sum();
    // Rows the compaction does not already drop.
    let purge_needed = purge_rows > compact_purged;
    let mut statements =
        crate::policy::grouped_statements(compaction.iter().filter_map(|c| c.scope.as_ref()));
    let mut what = Vec::new();
    if compact_bytes > 0 {
        what.push(format!(
            "{compact_files} small file(s) in {} partition(s) into about {} ({compact_before} -> {compact_after} files there)",
            compaction.len(),
            compaction.iter().map(|c| c.bins).sum::<u64>(),
        ));
        if compact_purged > 0 {
            what.push(format!(
                "dropping {compact_purged} deleted row(s) on the way"
            ));
        }
    }
    // The delete files' extra bytes a read no longer opens.
    let mut extra_gone = if s.rows_deleted > 0 {
        extra as f64 * compact_purged.min(s.rows_deleted) as f64 / s.rows_deleted as f64
    } else {
        0.0
    };
    if purge_needed {
        let files: u64 = purge.len() as u64;
        let bytes: u64 = purge.iter().map(|d| d.file_bytes).sum();
        extra_gone = purge
            .iter()
            .map(|d| d.bytes_opened.saturating_sub(d.file_bytes) as f64)
            .sum::<f64>()
            .max(extra_gone);
        what.push(format!(
            "{files} data file(s) whose deletes passed their rule ({}), dropping {purge_rows} deleted row(s)",
            {
                let mut rules: Vec<&str> = purge.iter().map(|d| d.rule).collect();
                rules.sort_unstable();
                rules.dedup();
                rules.join(", ")
            }
        ));
        out.rewrite_bytes += bytes;
        out.files_rewritten += files;
        let parts = crate::table_parts(&s.table, std::path::Path::new(&s.location));
        match s.format {
            tables::Format::Iceberg => {
                // Rewrite the data files their deletes apply to, then drop
                // the position delete files left dangling
                // (`rewrite_position_delete_files`, spark-procedures.md).
                statements.push(crate::iceberg_call(
                    "rewrite_data_files",
                    &parts,
                    &[("options", "map('delete-file-threshold', '1')".into())],
                ));
                if s.pos_delete_files > 0 {
                    statements.push(crate::iceberg_call(
                        "rewrite_position_delete_files",
                        &parts,
                        &[],
                    ));
                }
            }
            tables::Format::Delta => statements.push(format!(
                "REORG TABLE {} APPLY (PURGE)",
                sql::quote_parts(&parts)
            )),
        }
    }
    out.action = match (compact_bytes > 0, purge_needed || compact_purged > 0) {
        (false, false) => return None,
        (true, false) => Action::Compact,
        (false, true) => Action::PurgeDeletes,
        (true, true) => Action::CompactAndPurge,
    };
    out.rewrite_bytes += compact_bytes;
    out.files_rewritten += compact_files;
    out.rows_purged = compact_purged.max(purge_rows);
    out.rewrites = what.join("; ");
    out.statements = statements;
    // What the logged scans would not have read: the deleted rows' share
    // of the data (read, then dropped) and the delete files' extra bytes.
    out.saved_bytes = t.workload.scanned_bytes as f64
        * (ratio(out.rows_purged.min(s.rows_physical), s.rows_physical)
            + extra_gone / s.bytes.max(1) as f64);
    out.files_fewer = compact_before.saturating_sub(compact_after);
    Some((weight, out))
}

/// The maintenance plan of the audited tables joined to a layout plan:
/// what the logs read from each table (`scanned`, bytes by the table as
/// the scans name it: `planner::profile::ScanFacts::scanned`), its join
/// importance in the plan's demands, and the plan's reclusters. `index`
/// gives an audited table's identity in the logs; each table's rows are
/// its [`crate::audit::Span`]'s.
pub fn upkeep_for_plan(
    audit: &Audit,
    index: &workload::identity::TableIndex,
    scanned: &BTreeMap<String, u64>,
    planned: &Planned,
) -> Vec<UpkeepStep> {
    let tables: Vec<TableUpkeep<'_>> = audit
        .state
        .iter()
        .zip(&audit.spans)
        .map(|(s, span)| {
            let id = index
                .audited(Path::new(&s.location))
                .map_or_else(|| s.table.clone(), ToString::to_string);
            let jis = planned
                .demands
                .iter()
                .filter(|d| d.left_table == id || d.right_table == id)
                .map(|d| d.jis)
                .sum();
            TableUpkeep {
                workload: Workload {
                    scanned_bytes: scanned.get(&id).copied().unwrap_or(0),
                    jis,
                },
                recluster: planned
                    .plan
                    .tables
                    .iter()
                    .find(|t| t.changed && t.table == id)
                    .map(|t| t.keys.clone()),
                min_table_bytes: planned.config.min_table_bytes,
                state: s,
                compaction: audit
                    .compaction
                    .get(span.compaction.clone())
                    .unwrap_or_default()
                    .iter()
                    .collect(),
                deletes: audit
                    .deletes
                    .get(span.deletes.clone())
                    .unwrap_or_default()
                    .iter()
                    .collect(),
                rollup: span.rollup.and_then(|i| audit.rollups.get(i)),
                table: id,
            }
        })
        .collect();
    upkeep(&tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recluster_says_only_the_maintenance_it_replaces() {
        let keys = ["o_orderkey".to_string()];
        assert_eq!(
            recluster_rewrites(48, &keys, 48, 58),
            "the whole table (48 files) onto CLUSTER BY (o_orderkey); this also compacts its 48 small files and drops its 58 deleted rows, so no separate OPTIMIZE or purge"
        );
        assert_eq!(
            recluster_rewrites(1, &keys, 1, 0),
            "the whole table (1 file) onto CLUSTER BY (o_orderkey); this also compacts its 1 small file, so no separate OPTIMIZE"
        );
        assert_eq!(
            recluster_rewrites(3, &keys, 0, 1),
            "the whole table (3 files) onto CLUSTER BY (o_orderkey); this also drops its 1 deleted row, so no separate purge"
        );
        assert_eq!(
            recluster_rewrites(3, &keys, 0, 0),
            "the whole table (3 files) onto CLUSTER BY (o_orderkey)"
        );
    }

    fn state(name: &str, bytes: u64, files: u64, small: u64) -> TableStateRow {
        TableStateRow {
            table: name.into(),
            format: tables::Format::Delta,
            bytes,
            files,
            small_files: small,
            rows_physical: 1000,
            rows_live: 1000,
            ..Default::default()
        }
    }

    fn optimize(name: &str, bytes: u64, files: u64) -> CompactionRow {
        CompactionRow {
            table: name.into(),
            policy: crate::Policy::Delta,
            candidate_files: files,
            bins: 1,
            files_before: files,
            files_after_est: 1,
            bytes_to_rewrite: bytes,
            statement: format!("OPTIMIZE `{name}`"),
            scope: Some(crate::Scope {
                policy: crate::Policy::Delta,
                parts: vec![name.to_string()],
                target: 1 << 30,
                partition: None,
            }),
            ..Default::default()
        }
    }

    fn table<'a>(
        s: &'a TableStateRow,
        c: &'a [CompactionRow],
        d: &'a [DeleteFileRow],
        scanned: u64,
    ) -> TableUpkeep<'a> {
        TableUpkeep {
            table: format!("spark_catalog.default.{}", s.table),
            state: s,
            compaction: c.iter().collect(),
            deletes: d.iter().collect(),
            rollup: None,
            workload: Workload {
                scanned_bytes: scanned,
                jis: 0.5,
            },
            recluster: None,
            min_table_bytes: None,
        }
    }

    #[test]
    fn a_recluster_replaces_the_tables_compaction() {
        let s = state("t", 4000, 10, 10);
        let c = [optimize("t", 4000, 10)];
        let mut t = table(&s, &c, &[], 100);
        t.recluster = Some(vec!["k".into()]);
        let steps = upkeep(&[t]);
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].action, Action::Recluster);
        assert_eq!(steps[0].rewrite_bytes, 4000);
        assert!(steps[0].statements.is_empty());
        assert!(steps[0].rewrites.contains("no separate OPTIMIZE"));
    }

    #[test]
    fn steps_rank_by_scanned_bytes_times_overhead_unread_tables_last() {
        let (a, b, c) = (
            state("a", 1000, 10, 10),
            state("b", 1000, 10, 5),
            state("c", 9000, 10, 10),
        );
        let (ca, cb, cc) = (
            [optimize("a", 1000, 10)],
            [optimize("b", 500, 5)],
            [optimize("c", 9000, 10)],
        );
        // b is read 4x as much as a with half its small-file share: 2x a's value.
        let steps = upkeep(&[
            table(&a, &ca, &[], 100),
            table(&b, &cb, &[], 400),
            table(&c, &cc, &[], 0),
        ]);
        let order: Vec<&str> = steps.iter().map(|s| s.table.as_str()).collect();
        assert_eq!(
            order,
            [
                "spark_catalog.default.b",
                "spark_catalog.default.a",
                "spark_catalog.default.c"
            ]
        );
        assert!(steps.iter().all(|s| s.action == Action::Compact));
        assert_eq!(steps[0].value, 400.0 * 1.5 * 0.5);
    }

    #[test]
    fn deletes_past_their_rule_get_a_purge_unless_compaction_drops_them() {
        let mut s = state("t", 1000, 2, 0);
        s.rows_deleted = 100;
        let d = [DeleteFileRow {
            table: "t".into(),
            file_bytes: 500,
            deleted_rows: 100,
            verdict: crate::deletes::Verdict::RewriteNow,
            rule: "delta_max_deleted_rows_ratio",
            ..Default::default()
        }];
        let steps = upkeep(&[table(&s, &[], &d, 10)]);
        assert_eq!(steps[0].action, Action::PurgeDeletes);
        assert_eq!(steps[0].statements, ["REORG TABLE `t` APPLY (PURGE)"]);
        assert_eq!((steps[0].rewrite_bytes, steps[0].rows_purged), (500, 100));
        let mut c = optimize("t", 1000, 2);
        c.rows_purged = 100;
        let c = [c];
        let steps = upkeep(&[table(&s, &c, &d, 10)]);
        assert_eq!(steps[0].action, Action::CompactAndPurge);
        assert_eq!(steps[0].statements, ["OPTIMIZE `t`"]);
    }

    #[test]
    fn a_table_smaller_than_one_target_file_is_left_alone() {
        let s = state("t", 4000, 10, 10);
        let mut c = optimize("t", 4000, 10);
        c.target_size = 1 << 30;
        let c = [c];
        // Without a size limit it is compacted.
        assert_eq!(
            upkeep(&[table(&s, &c, &[], 100)])[0].action,
            Action::Compact
        );
        fn small<'a>(
            s: &'a TableStateRow,
            c: &'a [CompactionRow],
            d: &'a [DeleteFileRow],
        ) -> TableUpkeep<'a> {
            TableUpkeep {
                min_table_bytes: Some(1 << 30),
                ..table(s, c, d, 100)
            }
        }
        let steps = upkeep(&[small(&s, &c, &[])]);
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].action, Action::LeaveAlone);
        assert_eq!((steps[0].rewrite_bytes, steps[0].statements.len()), (0, 0));
        assert!(steps[0].rewrites.contains("smaller than one target file"));
        // Nor is it purged (issue 32.6: a 118 KiB table got REORG … PURGE):
        // the same size rule, with its deletes named in the reason; with
        // no compaction row, the table's small-file threshold is its target.
        let mut s = s;
        s.rows_deleted = 100;
        s.small_file_threshold = 1 << 30;
        let d = [DeleteFileRow {
            table: "t".into(),
            file_bytes: 500,
            deleted_rows: 100,
            verdict: crate::deletes::Verdict::RewriteNow,
            rule: "delta_max_deleted_rows_ratio",
            ..Default::default()
        }];
        for c in [&c[..], &[]] {
            let steps = upkeep(&[small(&s, c, &d)]);
            assert_eq!(steps[0].action, Action::LeaveAlone);
            assert!(steps[0].statements.is_empty());
            let why = &steps[0].rewrites;
            assert!(
                why.contains("smaller than one target file (1.0 GiB), so a rewrite buys next to nothing; neither OPTIMIZE nor a purge runs (it has ")
                    && why.ends_with("1 data file whose deletes passed their rule (100 rows deleted, 10.0% of its rows); --min-table-size 0 rewrites it)"),
                "{why}"
            );
        }
        // Without the size rule it is purged.
        let steps = upkeep(&[table(&s, &[], &d, 100)]);
        assert_eq!(steps[0].action, Action::PurgeDeletes);
        assert_eq!(steps[0].saved_bytes, 100.0 * 0.1);
    }

    fn partition_row(
        name: &str,
        policy: crate::Policy,
        atoms: &[(&str, Option<&str>)],
    ) -> CompactionRow {
        let mut c = optimize(name, 100, 3);
        c.policy = policy;
        c.scope = Some(crate::Scope {
            policy,
            parts: vec!["db".into(), name.into()],
            target: 1 << 20,
            partition: Some(
                atoms
                    .iter()
                    .map(|(c, v)| (format!("`{c}`"), v.map(str::to_string)))
                    .collect(),
            ),
        });
        c
    }

    /// Issue 32.6: one table cell held 16 `OPTIMIZE … WHERE` statements,
    /// one per partition; the engines take an IN list (Delta's OPTIMIZE
    /// WHERE, Iceberg's `where`), or an OR of each partition's fields.
    #[test]
    fn partitions_are_named_in_one_statement() {
        use crate::Policy::{Delta, Iceberg};
        let s = state("t", 1000, 48, 48);
        let days: Vec<CompactionRow> = (1..=16)
            .map(|d| partition_row("t", Delta, &[("day", Some(&format!("'2026-11-{d:02}'")))]))
            .collect();
        let steps = upkeep(&[table(&s, &days, &[], 10)]);
        let list: Vec<String> = (1..=16).map(|d| format!("'2026-11-{d:02}'")).collect();
        assert_eq!(
            steps[0].statements,
            [format!(
                "OPTIMIZE `db`.`t` WHERE `day` IN ({})",
                list.join(", ")
            )]
        );
        for st in &steps[0].statements {
            sql::check_statement(st).unwrap();
        }
        // A NULL partition, two-column partitions, Iceberg's where, and
        // a list past PARTITIONS_PER_STATEMENT split.
        let rows = [
            partition_row("t", Delta, &[("p", Some("1"))]),
            partition_row("t", Delta, &[("p", None)]),
        ];
        assert_eq!(
            upkeep(&[table(&s, &rows, &[], 10)])[0].statements,
            ["OPTIMIZE `db`.`t` WHERE `p` = 1 OR `p` IS NULL"]
        );
        let rows = [
            partition_row("t", Iceberg, &[("a", Some("1")), ("b", Some("'x'"))]),
            partition_row("t", Iceberg, &[("a", Some("2")), ("b", None)]),
        ];
        let mut s2 = s.clone();
        s2.format = tables::Format::Iceberg;
        let st = &upkeep(&[table(&s2, &rows, &[], 10)])[0].statements;
        assert_eq!(st.len(), 1);
        assert!(
            st[0].ends_with(r"where => '(`a` = 1 AND `b` = \'x\') OR (`a` = 2 AND `b` IS NULL)')"),
            "{st:?}"
        );
        sql::check_statement(&st[0]).unwrap();
        let many: Vec<CompactionRow> = (0..crate::PARTITIONS_PER_STATEMENT + 1)
            .map(|i| partition_row("t", Delta, &[("p", Some(&i.to_string()))]))
            .collect();
        let st = &upkeep(&[table(&s, &many, &[], 10)])[0].statements;
        assert_eq!(st.len(), 2);
        assert!(st[1].ends_with(&format!("WHERE `p` = {}", crate::PARTITIONS_PER_STATEMENT)));
        // A whole-table row makes one whole-table statement.
        let mut rows = days.clone();
        let mut whole = partition_row("t", Delta, &[]);
        if let Some(sc) = whole.scope.as_mut() {
            sc.partition = None;
        }
        rows.push(whole);
        let st = &upkeep(&[table(&s, &rows, &[], 10)])[0].statements;
        assert_eq!(st, &["OPTIMIZE `db`.`t`"]);
    }

    #[test]
    fn a_healthy_table_needs_no_step() {
        let s = state("t", 1000, 1, 0);
        assert!(upkeep(&[table(&s, &[], &[], 10)]).is_empty());
    }
}
