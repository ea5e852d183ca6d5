//! The tables of a run from outside its logs: the audit of `--tables`,
//! each table matched to its one identity in the logs
//! ([`workload::identity::TableIndex`]), with its real size, rows and keys
//! over the `--table-stats` figures ([`TableInputs`]).

use crate::audit::{audit, audit_read, Audit, ReadTables};
use crate::Policy;
use planner::{TableFormat, TableStat, TableStats};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use workload::identity::{Locations, TableIndex};

/// Table facts from outside the logs.
pub struct TableInputs {
    /// Statistics by the logs' table identity: the audited tables' over
    /// the `--table-stats` rows.
    pub stats: TableStats,
    /// The audit of `--tables` (`None` without tables).
    pub audit: Option<Audit>,
    /// Each audited table's identity in the logs.
    pub index: TableIndex,
    /// The tables as read, with the statistics of the scans' columns,
    /// when they were read for the what-if (it reuses them).
    pub read: Option<ReadTables>,
}

impl TableInputs {
    /// Audit the tables under `paths` (every policy) — the tables in
    /// `read` when they were read already, else read here — and match
    /// each to the catalog table the logs saw reading its location
    /// (`locations`), else to its own name made canonical; its figures
    /// replace `stats`' row for it. A table that cannot be read is an
    /// error of the audit; the others are still audited.
    pub fn gather(
        paths: &[PathBuf],
        mut stats: TableStats,
        locations: &Locations,
        read: Option<ReadTables>,
        allow_outside_table: bool,
    ) -> TableInputs {
        if paths.is_empty() {
            return TableInputs {
                stats,
                audit: None,
                index: TableIndex::new(locations.clone()),
                read: None,
            };
        }
        let mut audit = match &read {
            Some(r) => audit_read(r, &Policy::ALL, None),
            None => {
                let opts = tables::ReadOptions {
                    allow_outside_table,
                    ..tables::ReadOptions::default()
                };
                audit(paths, &Policy::ALL, None, opts)
            }
        };
        let index = TableIndex::resolve(
            locations.clone(),
            audit
                .state
                .iter()
                .map(|s| (s.table.as_str(), Path::new(&s.location))),
        );
        audit.warnings.extend(index.warnings().iter().cloned());
        for s in &audit.state {
            let Some(id) = index.audited(Path::new(&s.location)) else {
                continue;
            };
            stats.0.insert(
                id.to_string(),
                TableStat {
                    bytes: Some(s.bytes),
                    rows: Some(s.rows_live),
                    files: Some(s.files),
                    partitioned_by: s.partition_columns.clone(),
                    clustered_by: s.clustering_columns.clone(),
                    from_audit: true,
                },
            );
        }
        TableInputs {
            stats,
            audit: Some(audit),
            index,
            read,
        }
    }

    /// Each table's format, by the logs' table identity: the audit's
    /// where it has the table, else what the logs' scans show
    /// ([`planner::profile::ScanFacts::formats`]).
    pub fn formats(&self, scans: &planner::profile::ScanFacts) -> BTreeMap<String, TableFormat> {
        let mut m = scans.formats.clone();
        for s in self.audit.iter().flat_map(|a| &a.state) {
            let Some(id) = self.index.audited(Path::new(&s.location)) else {
                continue;
            };
            m.insert(
                id.to_string(),
                match s.format {
                    tables::Format::Delta => TableFormat::Delta,
                    tables::Format::Iceberg => TableFormat::Iceberg,
                },
            );
        }
        m
    }
}
