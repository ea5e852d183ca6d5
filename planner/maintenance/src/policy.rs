//! Compaction as each engine plans it. Sources:
//!
//! * Delta OPTIMIZE — `DeltaSQLConf.scala` (`optimize.minFileSize` =
//!   `optimize.maxFileSize` = 1 GiB, `optimize.maxDeletedRowsRatio` = 0.05)
//!   and `OptimizeTableCommand.scala`: per partition the files smaller than
//!   min or with a deleted-rows ratio above 0.05 are sorted by size and
//!   packed into bins of at most max bytes (a file that does not fit closes
//!   the bin); bins of one file are dropped; each bin becomes one file.
//! * Fabric OPTIMIZE (seed `004`): Delta's bins, plus fast optimize (a bin
//!   runs only if its bytes reach 1.3 × min or it holds ≥ 50 files) and
//!   file-level targets (a file ≥ ½ of the target is not recompacted).
//! * Iceberg `rewrite_data_files` — `SizeBasedFileRewritePlanner.java`,
//!   `BinPackRewriteFilePlanner.java`: target 512 MiB
//!   (`write.target-file-size-bytes`), min 0.75×, max 1.8×; a file is a
//!   candidate if outside [min, max] or its file-scoped deletes reach
//!   `delete-ratio-threshold` 0.3; a partition's group runs if it has more
//!   than one file and ≥ `min-input-files` 5, or more than one file and more
//!   bytes than the target, or more bytes than max, or a delete-ratio file;
//!   output count from `expectedOutputFiles`.
//! * Amoro self-optimizing — apache/amoro at
//!   96a4d781aac60c4080b3f4a41322848e2308649a (`CommonPartitionEvaluator`,
//!   `AbstractPartitionPlan`, `IcebergPartitionPlan`, `TableProperties`):
//!   target 128 MiB (`self-optimizing.target-size`); fragment files of at
//!   most target / 8 (`self-optimizing.fragment-ratio`), undersized
//!   segment files up to `self-optimizing.min-target-size-ratio` (0.75) ×
//!   target. Per partition: minor optimizing once its fragment files plus
//!   the equality-delete files on its files reach 12
//!   (`self-optimizing.minor.trigger.file-count`; its 1 h interval
//!   trigger is runtime state metadata does not show), or a segment file
//!   has several position delete files; major optimizing when a segment
//!   file's position delete records exceed 0.1
//!   (`self-optimizing.major.trigger.duplicate-ratio`) of its rows, or
//!   its undersized segments hold the target and the two smallest fit in
//!   one file (`enoughContent`). A partition that runs rewrites all its
//!   fragments and segments over the ratio, and its undersized segments
//!   in bins of two or more, in tasks of max(target,
//!   `self-optimizing.max-task-size-bytes` = 128 MiB) bytes; a task of one
//!   data file without deletes is dropped (see `amoro` below).

use crate::{GIB, MIB};
use serde::Serialize;
use std::collections::BTreeMap;
use tables::{DataFile, Format, TableState};

/// An engine's compaction rules (the default: the first, Delta).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Delta Lake OSS `OPTIMIZE`.
    #[default]
    Delta,
    /// Microsoft Fabric `OPTIMIZE` (fast optimize, file-level targets).
    Fabric,
    /// Iceberg `rewrite_data_files` (bin-pack).
    Iceberg,
    /// Apache Amoro self-optimizing.
    Amoro,
}

/// Whose compaction rules to simulate, as `--policy` chooses them
/// ([`PolicyChoice::policies`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum PolicyChoice {
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

impl PolicyChoice {
    /// The policies chosen.
    pub fn policies(self) -> Vec<Policy> {
        match self {
            PolicyChoice::Delta => vec![Policy::Delta],
            PolicyChoice::Fabric => vec![Policy::Fabric],
            PolicyChoice::Iceberg => vec![Policy::Iceberg],
            PolicyChoice::Amoro => vec![Policy::Amoro],
            PolicyChoice::All => Policy::ALL.to_vec(),
        }
    }
}

impl Policy {
    /// All policies.
    pub const ALL: [Policy; 4] = [
        Policy::Delta,
        Policy::Fabric,
        Policy::Iceberg,
        Policy::Amoro,
    ];

    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Delta => "delta",
            Policy::Fabric => "fabric",
            Policy::Iceberg => "iceberg",
            Policy::Amoro => "amoro",
        }
    }

    /// The format's own engine's rules (Delta OPTIMIZE, Iceberg
    /// rewrite_data_files): what a table's maintenance statements run.
    pub fn native(f: Format) -> Policy {
        match f {
            Format::Delta => Policy::Delta,
            Format::Iceberg => Policy::Iceberg,
        }
    }

    /// Whether the policy's engine works on this table format.
    pub fn applies_to(self, f: Format) -> bool {
        match self {
            Policy::Delta | Policy::Fabric => f == Format::Delta,
            Policy::Iceberg | Policy::Amoro => f == Format::Iceberg,
        }
    }
}

/// A policy's thresholds for one table.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Target output file size.
    pub target: u64,
    /// Files below this are small (candidates).
    pub min: u64,
    /// Bin capacity (Delta, Fabric) or the size above which a file is split
    /// (Iceberg).
    pub max: u64,
    /// The deleted-rows ratio that makes a file a candidate.
    pub delete_ratio: f64,
    /// Amoro: segment files of at most this size are undersized
    /// (target × `self-optimizing.min-target-size-ratio`); the other
    /// policies: `min`.
    pub min_target: u64,
    /// Amoro: the bytes of data files one task packs, max(target,
    /// `self-optimizing.max-task-size-bytes`); the other policies: `max`.
    pub task_size: u64,
    /// Amoro: fragment plus equality-delete files of a partition that
    /// trigger minor optimizing (`self-optimizing.minor.trigger.file-count`);
    /// unused by the other policies.
    pub minor_files: u64,
    /// Where the target came from (`default`, a property, `--target-size`).
    pub target_source: String,
}

fn prop(t: &TableState, key: &str) -> Option<u64> {
    t.properties.get(key).and_then(|v| v.trim().parse().ok())
}

impl Settings {
    /// The thresholds for `t`: `--target-size` if given, else the table's
    /// property, else the engine default; the other thresholds derive from
    /// the target as the engine does.
    pub fn for_table(t: &TableState, policy: Policy, target: Option<u64>) -> Settings {
        let (key, default) = match policy {
            Policy::Delta | Policy::Fabric => ("delta.targetFileSize", GIB),
            Policy::Iceberg => ("write.target-file-size-bytes", 512 * MIB),
            Policy::Amoro => ("self-optimizing.target-size", 128 * MIB),
        };
        let (target, target_source) = match (target, prop(t, key)) {
            (Some(v), _) => (v, "--target-size".to_string()),
            (None, Some(v)) => (v, key.to_string()),
            (None, None) => (default, "default".to_string()),
        };
        match policy {
            Policy::Delta | Policy::Fabric => Settings {
                target,
                min: target,
                max: target,
                delete_ratio: 0.05,
                min_target: target,
                task_size: target,
                minor_files: 0,
                target_source,
            },
            Policy::Iceberg => Settings {
                target,
                min: (target as f64 * 0.75) as u64,
                max: (target as f64 * 1.8) as u64,
                delete_ratio: 0.3,
                min_target: (target as f64 * 0.75) as u64,
                task_size: (target as f64 * 1.8) as u64,
                minor_files: 0,
                target_source,
            },
            Policy::Amoro => {
                let ratio = prop(t, "self-optimizing.fragment-ratio")
                    .unwrap_or(8)
                    .max(1);
                let min_target_ratio = t
                    .properties
                    .get("self-optimizing.min-target-size-ratio")
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|r| r.is_finite() && (0.0..=1.0).contains(r))
                    .unwrap_or(0.75);
                // `self-optimizing.major.trigger.duplicate-ratio` (0.1),
                // `self-optimizing.max-task-size-bytes` (128 MiB) and
                // `self-optimizing.minor.trigger.file-count` (12):
                // `TableProperties`, read by `TableConfigurations`.
                let duplicate_ratio = t
                    .properties
                    .get("self-optimizing.major.trigger.duplicate-ratio")
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|r| r.is_finite() && *r >= 0.0)
                    .unwrap_or(0.1);
                let task = prop(t, "self-optimizing.max-task-size-bytes").unwrap_or(128 * MIB);
                Settings {
                    target,
                    min: target / ratio,
                    max: target,
                    delete_ratio: duplicate_ratio,
                    min_target: (target as f64 * min_target_ratio) as u64,
                    task_size: target.max(task),
                    minor_files: prop(t, "self-optimizing.minor.trigger.file-count").unwrap_or(12),
                    target_source,
                }
            }
        }
    }
}

/// What one policy would do in one partition.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CompactionRow {
    pub table: String,
    pub partition: String,
    pub policy: Policy,
    pub target_size: u64,
    pub candidate_files: u64,
    pub bins: u64,
    pub files_before: u64,
    pub files_after_est: u64,
    pub bytes_to_rewrite: u64,
    pub rows_purged: u64,
    pub reasons: String,
    pub statement: String,
    /// What the statement rewrites (`None`: no statement), for
    /// [`grouped_statements`].
    #[serde(skip)]
    pub scope: Option<Scope>,
}

/// A file as the planners see it.
#[derive(Clone, Copy, Debug)]
struct F {
    size: u64,
    rows: u64,
    /// Rows known deleted (DV, file-scoped or `--deep`-attributed position deletes).
    deleted: u64,
    /// Rows deleted by deletes scoped to this file alone.
    scoped: u64,
    /// Amoro's count (`CommonPartitionEvaluator.getPosDeletesRecordCount`):
    /// the records of the position delete files that apply, whatever other
    /// files they also cover, or the DV's cardinality.
    amoro_pos: u64,
    /// Position delete files (a DV counts as one) that apply.
    pos_files: u32,
    /// Equality delete files that apply.
    eq_files: u32,
}

impl F {
    fn of(d: &DataFile) -> F {
        F {
            size: d.size,
            rows: d.rows.unwrap_or(0),
            deleted: d.deletes.as_ref().map_or(0, |x| x.known_deleted_rows()),
            scoped: d
                .deletes
                .as_ref()
                .map_or(0, |x| x.file_scoped_deleted_rows()),
            amoro_pos: d.deletes.as_ref().map_or(0, |x| match &x.dv {
                Some(dv) => dv.cardinality,
                None => x.pos_rows,
            }),
            pos_files: d
                .deletes
                .as_ref()
                .map_or(0, |x| x.pos_files.saturating_add(u32::from(x.dv.is_some()))),
            eq_files: d.deletes.as_ref().map_or(0, |x| x.eq_files),
        }
    }

    /// Delta's ratio: 1 − live / physical, in floating point (so exactly 5 %
    /// deleted is 0.050000000000000044 and counts as above 0.05).
    fn delta_ratio(&self) -> f64 {
        if self.rows == 0 {
            return 0.0;
        }
        1.0 - (self.rows.saturating_sub(self.deleted)) as f64 / self.rows as f64
    }

    /// Iceberg's ratio (`BinPackRewriteFilePlanner.tooHighDeleteRatio`):
    /// only file-scoped deletes count, capped at the file's rows.
    fn iceberg_ratio(&self) -> f64 {
        if self.rows == 0 {
            return 0.0;
        }
        self.scoped.min(self.rows) as f64 / self.rows as f64
    }
}

/// Pack sizes (ascending) into bins of at most `max` bytes the way
/// `OptimizeTableCommand` does: a file that does not fit closes the bin.
fn pack(files: &[F], max: u64) -> Vec<Vec<F>> {
    let mut bins = Vec::new();
    let mut cur: Vec<F> = Vec::new();
    let mut cur_size = 0u64;
    for f in files {
        if f.size + cur_size > max && !cur.is_empty() {
            bins.push(std::mem::take(&mut cur));
            cur_size = 0;
        }
        cur_size += f.size;
        cur.push(*f);
    }
    if !cur.is_empty() {
        bins.push(cur);
    }
    bins
}

/// `BinPackRewriteFilePlanner.expectedOutputFiles`.
fn expected_output_files(input: u64, s: &Settings) -> u64 {
    if input < s.target {
        return 1;
    }
    let with_rem = input.div_ceil(s.target);
    let without = input / s.target;
    let remainder = input % s.target;
    let avg_without = input as f64 / without as f64;
    if remainder > s.min {
        with_rem
    } else if avg_without < (1.1 * s.target as f64).min(s.max as f64) {
        without
    } else {
        with_rem
    }
}

/// A partition's fields as a predicate's atoms: each partition column
/// (quoted) and its value as a literal of the column's type (`None`:
/// NULL), when every field is an identity transform of a column
/// (`Ok(None)`: the statement covers the table). A value that is not a
/// valid literal of its column's type is an `Err` with the reason: the
/// statement is then left out.
fn partition_atoms(t: &TableState, idx: u32) -> Result<Option<Atoms>, crate::Error> {
    let Some(p) = t.partitions.get(idx as usize) else {
        return Ok(None);
    };
    if p.values.is_empty()
        || p.spec_id != t.default_spec
        || p.values.len() != t.partition_fields.len()
    {
        return Ok(None);
    }
    let mut atoms = Vec::new();
    for (f, v) in t.partition_fields.iter().zip(&p.values) {
        if f.transform != "identity" {
            return Ok(None);
        }
        let col = sql::quote_ident(&f.source);
        let lit = match v {
            None => None,
            Some(v) => match sql::literal(v, &f.source_type) {
                Ok(lit) => Some(lit),
                Err(source) => {
                    return Err(crate::Error::PartitionValue {
                        column: col,
                        source,
                    })
                }
            },
        };
        atoms.push((col, lit));
    }
    Ok(Some(atoms))
}

/// One partition's columns (quoted) and values (SQL literals; `None`: NULL).
pub type Atoms = Vec<(String, Option<String>)>;

/// `col = literal AND ...` of one partition.
fn conjunction(atoms: &Atoms) -> String {
    atoms
        .iter()
        .map(|(col, v)| match v {
            None => format!("{col} IS NULL"),
            Some(lit) => format!("{col} = {lit}"),
        })
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// What a compaction row's statement rewrites, kept so that the
/// maintenance plan can name several partitions of a table in one
/// statement ([`grouped_statements`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Scope {
    pub(crate) policy: Policy,
    pub(crate) parts: Vec<String>,
    pub(crate) target: u64,
    /// The partition (`None`: the whole table).
    pub(crate) partition: Option<Atoms>,
}

pub use sql::ICEBERG_CATALOG;

/// The name parts of an audited table: `<ns>`, `<dir>` for a directory
/// `<ns>.db/<dir>`, else the directory name alone, so no name read from
/// storage can add or split a name part.
pub fn table_parts(name: &str, location: &std::path::Path) -> Vec<String> {
    let dir = location
        .file_name()
        .map(|d| d.to_string_lossy().into_owned());
    let ns = location
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_string_lossy().strip_suffix(".db").map(str::to_string));
    match (ns, dir) {
        (Some(ns), Some(dir)) if name == format!("{ns}.{dir}") => vec![ns, dir],
        (_, Some(dir)) if name == dir => vec![dir],
        _ => vec![name.to_string()],
    }
}

/// [`sql::iceberg_call`] for an audited table (whose name has no catalog
/// part: the call names [`ICEBERG_CATALOG`]).
pub fn iceberg_call(procedure: &str, parts: &[String], args: &[(&str, String)]) -> String {
    let mut name = vec![ICEBERG_CATALOG.to_string()];
    name.extend(parts.iter().cloned());
    if parts.len() >= 2 {
        sql::iceberg_call(procedure, &name, args)
    } else {
        sql::iceberg_call(procedure, parts, args)
    }
}

/// A row's scope, or why its statement is left out.
fn scope(t: &TableState, policy: Policy, idx: u32, s: &Settings) -> Result<Scope, crate::Error> {
    Ok(Scope {
        policy,
        parts: table_parts(&t.name, &t.location),
        target: s.target,
        partition: partition_atoms(t, idx)?,
    })
}

/// The statement of `policy` on the table `parts`, restricted by `pred`.
fn statement_text(policy: Policy, parts: &[String], target: u64, pred: Option<String>) -> String {
    let name = sql::quote_parts(parts);
    match policy {
        Policy::Delta | Policy::Fabric => match pred {
            Some(p) => format!("OPTIMIZE {name} WHERE {p}"),
            None => format!("OPTIMIZE {name}"),
        },
        Policy::Iceberg => {
            let mut args = vec![(
                "options",
                format!("map('target-file-size-bytes', '{target}')"),
            )];
            if let Some(p) = pred {
                args.push(("where", sql::string_literal(&p)));
            }
            iceberg_call("rewrite_data_files", parts, &args)
        }
        Policy::Amoro => format!(
            "-- Amoro's optimizer runs this itself: ALTER TABLE {name} SET TBLPROPERTIES ('self-optimizing.enabled' = 'true', 'self-optimizing.target-size' = '{target}')"
        ),
    }
}

impl Scope {
    /// The statement for this row's partition alone.
    pub fn statement(&self) -> String {
        statement_text(
            self.policy,
            &self.parts,
            self.target,
            self.partition.as_ref().map(conjunction),
        )
    }
}

/// Partitions one grouped statement names at most: a longer `IN` list is
/// split, so each statement stays readable and each run stays a bounded
/// job.
pub const PARTITIONS_PER_STATEMENT: usize = 100;

/// The statements that rewrite the partitions of `scopes` (rows of one
/// table), as few as the engine allows: Delta's `OPTIMIZE … WHERE` takes
/// any predicate on partition columns (`DeltaSqlBase.g4` `optimizeTable`'s
/// `partitionPredicate`, checked by `OptimizeTableCommand` to name only
/// partition columns) and Iceberg's `rewrite_data_files` any filter Spark
/// parses and Iceberg converts (`where`, `SparkExpressionConverter`, which
/// converts `IN` and `OR`), so one statement names up to
/// [`PARTITIONS_PER_STATEMENT`] partitions: `p IN (…)` for one partition
/// column (`OR p IS NULL` for a NULL partition), `(a = … AND b = …) OR
/// (…)` for several. A row whose statement covers the whole table makes
/// the table's statement one whole-table statement. Amoro's property
/// statement is one per table.
pub fn grouped_statements<'a>(scopes: impl IntoIterator<Item = &'a Scope>) -> Vec<String> {
    let mut groups: Vec<(&Scope, Vec<&Atoms>, bool)> = Vec::new();
    for sc in scopes {
        let i = match groups.iter().position(|(g, _, _)| {
            (g.policy, &g.parts, g.target) == (sc.policy, &sc.parts, sc.target)
        }) {
            Some(i) => i,
            None => {
                groups.push((sc, Vec::new(), false));
                groups.len() - 1
            }
        };
        match &sc.partition {
            Some(a) if !groups[i].1.contains(&a) => groups[i].1.push(a),
            Some(_) => {}
            None => groups[i].2 = true,
        }
    }
    let mut out = Vec::new();
    for (g, partitions, whole) in groups {
        let one_column = partitions.iter().all(|a| a.len() == 1)
            && partitions.windows(2).all(|w| w[0][0].0 == w[1][0].0);
        if whole || g.policy == Policy::Amoro || partitions.is_empty() {
            out.push(statement_text(g.policy, &g.parts, g.target, None));
            continue;
        }
        for chunk in partitions.chunks(PARTITIONS_PER_STATEMENT) {
            let pred = if chunk.len() == 1 {
                conjunction(chunk[0])
            } else if one_column {
                let col = &chunk[0][0].0;
                let values: Vec<&str> = chunk.iter().filter_map(|a| a[0].1.as_deref()).collect();
                let mut terms = Vec::new();
                match values.as_slice() {
                    [] => {}
                    [v] => terms.push(format!("{col} = {v}")),
                    vs => terms.push(format!("{col} IN ({})", vs.join(", "))),
                }
                if chunk.iter().any(|a| a[0].1.is_none()) {
                    terms.push(format!("{col} IS NULL"));
                }
                terms.join(" OR ")
            } else {
                chunk
                    .iter()
                    .map(|a| format!("({})", conjunction(a)))
                    .collect::<Vec<_>>()
                    .join(" OR ")
            };
            out.push(statement_text(g.policy, &g.parts, g.target, Some(pred)));
        }
    }
    out
}

/// The compaction rows of one table under one policy (empty when the
/// policy's engine does not work on the table's format).
pub fn compaction(t: &TableState, policy: Policy, s: &Settings) -> Vec<CompactionRow> {
    if !policy.applies_to(t.format()) {
        return Vec::new();
    }
    let mut by_part: BTreeMap<u32, Vec<F>> = BTreeMap::new();
    for f in &t.files {
        by_part.entry(f.partition).or_default().push(F::of(f));
    }
    // Amoro's minor trigger counts per partition (one
    // `CommonPartitionEvaluator` each) the equality-delete files that apply
    // to its data files (`addDelete`, distinct paths).
    let mut amoro_eq: BTreeMap<u32, u64> = BTreeMap::new();
    for d in &t.delete_files {
        if d.kind == tables::DeleteKind::Equality && d.applied_to > 0 {
            *amoro_eq.entry(d.partition).or_default() += 1;
        }
    }
    let mut rows: Vec<CompactionRow> = by_part
        .into_iter()
        .map(|(idx, mut files)| {
            files.sort_by_key(|f| f.size);
            let before = files.len() as u64;
            let (chosen, reasons) = match policy {
                Policy::Delta => delta(&files, s, false),
                Policy::Fabric => delta(&files, s, true),
                Policy::Iceberg => iceberg(&files, s),
                Policy::Amoro => amoro(&files, s, amoro_eq.get(&idx).copied().unwrap_or(0)),
            };
            let candidate_files: u64 = chosen.iter().map(|b| b.files.len() as u64).sum();
            let outputs: u64 = chosen.iter().map(|b| b.outputs).sum();
            let mut reasons = reasons;
            let scope = if candidate_files > 0 {
                scope(t, policy, idx, s)
                    .map_err(|why| reasons.push(why.to_string()))
                    .ok()
            } else {
                None
            };
            let stmt = scope.as_ref().map(Scope::statement).unwrap_or_default();
            CompactionRow {
                table: t.name.clone(),
                partition: t.partition_label(idx),
                policy,
                target_size: s.target,
                candidate_files,
                bins: chosen.len() as u64,
                files_before: before,
                files_after_est: before - candidate_files + outputs,
                bytes_to_rewrite: chosen.iter().flat_map(|b| &b.files).map(|f| f.size).sum(),
                rows_purged: chosen
                    .iter()
                    .flat_map(|b| &b.files)
                    .map(|f| f.deleted.min(f.rows))
                    .sum(),
                reasons: reasons.join("; "),
                statement: stmt,
                scope,
            }
        })
        .collect();
    rows.sort_by(|a, b| a.partition.cmp(&b.partition));
    rows
}

struct Bin {
    files: Vec<F>,
    outputs: u64,
}

fn delta(files: &[F], s: &Settings, fabric: bool) -> (Vec<Bin>, Vec<String>) {
    let mut reasons = Vec::new();
    let half = s.target / 2;
    let mut skipped_level = 0;
    let cands: Vec<F> = files
        .iter()
        .copied()
        .filter(|f| f.size < s.min || f.delta_ratio() > s.delete_ratio)
        .filter(|f| {
            let keep = !(fabric && f.size >= half && f.delta_ratio() <= s.delete_ratio);
            skipped_level += u32::from(!keep);
            keep
        })
        .collect();
    let small = cands.iter().filter(|f| f.size < s.min).count();
    let deleted = cands.len() - small;
    if small > 0 {
        reasons.push(format!("{small} file(s) < minFileSize {}", s.min));
    }
    if deleted > 0 {
        reasons.push(format!(
            "{deleted} file(s) with deleted-rows ratio > {}",
            s.delete_ratio
        ));
    }
    if skipped_level > 0 {
        reasons.push(format!(
            "{skipped_level} file(s) ≥ ½ target kept (file-level target)"
        ));
    }
    let mut out = Vec::new();
    for bin in pack(&cands, s.max) {
        if bin.len() < 2 {
            reasons.push("single-file bin dropped".into());
            continue;
        }
        if fabric {
            let bytes: u64 = bin.iter().map(|f| f.size).sum();
            let enough = bytes as f64 >= 1.3 * s.min as f64 || bin.len() >= 50;
            if !enough {
                reasons.push(format!(
                    "fast optimize skips a bin of {} files / {bytes} bytes (< 1.3 × minFileSize and < 50 files)",
                    bin.len()
                ));
                continue;
            }
        }
        out.push(Bin {
            files: bin,
            outputs: 1,
        });
    }
    if cands.is_empty() {
        reasons.push("no file below minFileSize or over the deleted-rows ratio".into());
    }
    (out, reasons)
}

fn iceberg(files: &[F], s: &Settings) -> (Vec<Bin>, Vec<String>) {
    let mut reasons = Vec::new();
    let cands: Vec<F> = files
        .iter()
        .copied()
        .filter(|f| f.size < s.min || f.size > s.max || f.iceberg_ratio() >= s.delete_ratio)
        .collect();
    let n = cands.len() as u64;
    let bytes: u64 = cands.iter().map(|f| f.size).sum();
    let deletes = cands
        .iter()
        .filter(|f| f.iceberg_ratio() >= s.delete_ratio)
        .count();
    if cands.is_empty() {
        reasons.push(format!("every file within [{}, {}] bytes", s.min, s.max));
        return (Vec::new(), reasons);
    }
    let mut why = Vec::new();
    if n >= 5 {
        why.push(format!("{n} files ≥ min-input-files 5"));
    }
    if n > 1 && bytes > s.target {
        why.push(format!("{n} files, {bytes} bytes > target"));
    }
    if bytes > s.max {
        why.push(format!("{bytes} bytes > max {}", s.max));
    }
    if deletes > 0 {
        why.push(format!(
            "{deletes} file(s) with delete ratio ≥ {}",
            s.delete_ratio
        ));
    }
    if why.is_empty() {
        reasons.push(format!(
            "group of {n} file(s), {bytes} bytes: fewer than 5 files, not over target (nothing to rewrite)"
        ));
        return (Vec::new(), reasons);
    }
    reasons.extend(why);
    let outputs = expected_output_files(bytes, s);
    (
        vec![Bin {
            files: cands,
            outputs,
        }],
        reasons,
    )
}

/// Amoro's bin-packing of a task's files (`AbstractPartitionPlan`
/// `BinPackingTaskSplitter.genSplitTasks`: Iceberg's `BinPacking.ListPacker`
/// with a lookback of `Integer.MAX_VALUE`, so first fit over every bin
/// opened so far; a file that fits no bin opens one). Amoro feeds the files
/// in a hash map's order; this takes them in the order given (ascending
/// sizes), so the count is deterministic. The files fit one bin whenever
/// they sum to at most the capacity, whatever the order.
fn first_fit(files: &[(F, bool)], capacity: u64) -> Vec<Vec<(F, bool)>> {
    let mut bins: Vec<(u64, Vec<(F, bool)>)> = Vec::new();
    for &(f, rewrite) in files {
        match bins
            .iter_mut()
            .find(|(w, _)| w.saturating_add(f.size) <= capacity)
        {
            Some((w, items)) => {
                *w += f.size;
                items.push((f, rewrite));
            }
            None => bins.push((f.size, vec![(f, rewrite)])),
        }
    }
    bins.into_iter().map(|(_, items)| items).collect()
}

/// A task of Amoro's: the data files it rewrites, written as files of the
/// target size.
fn amoro_task(files: Vec<F>, target: u64) -> Bin {
    let bytes: u64 = files.iter().map(|f| f.size).sum();
    Bin {
        files,
        outputs: bytes.div_ceil(target.max(1)).max(1),
    }
}

/// One partition under Amoro's self-optimizing, as apache/amoro plans it
/// (commit 96a4d781aac60c4080b3f4a41322848e2308649a; paths under
/// `amoro-format-iceberg/src/main/java/org/apache/amoro/optimizing/plan/`).
///
/// Whether the partition runs is `CommonPartitionEvaluator.isNecessary`
/// (one evaluator per partition: `AbstractOptimizingEvaluator
/// .initPartitionPlans`), outside full optimizing (its interval is off by
/// default):
/// * minor (`isMinorNecessary`): the partition's fragment files plus the
///   equality-delete files applying to them reach
///   `self-optimizing.minor.trigger.file-count`, or a target-size segment
///   file has more than one position delete file (`segmentShouldRewritePos`
///   counts it in `combinePosSegmentFileCount`). Its second trigger, two
///   such files once the 1 h interval has passed since the last minor run,
///   is runtime state the metadata does not show: taken as not reached.
/// * major (`isMajorNecessary`): a segment file whose position delete
///   records exceed `self-optimizing.major.trigger.duplicate-ratio` × its
///   records (`fileShouldRewrite`), or undersized segments with
///   `enoughContent`.
///
/// What runs is `AbstractPartitionPlan.splitTasks`, whatever trigger fired:
/// the undersized segments (not over the ratio) are packed first, and a
/// bin of one of them is not rewritten (`disposeUndersizedSegmentFile`: its
/// position deletes are, when it has any); then every fragment, every
/// segment over the ratio and the segments whose deletes alone are
/// rewritten (`rewritePosDataFiles`) are packed together. Bins hold
/// max(target, `self-optimizing.max-task-size-bytes`) bytes of data files;
/// a task of a single data file with no deletes is dropped
/// (`IcebergPartitionPlan.enoughInputFiles`). A segment file's single
/// position delete file is taken as not written by Amoro's optimizer (the
/// `TableFileUtil.isOptimizingPosDeleteFile` name check).
fn amoro(files: &[F], s: &Settings, eq_deletes: u64) -> (Vec<Bin>, Vec<String>) {
    let mut reasons = Vec::new();
    let fragment = |f: &F| f.size <= s.min;
    let undersized = |f: &F| f.size > s.min && f.size <= s.min_target;
    // `fileShouldRewrite` for a segment file: position delete records
    // (DVs included) over the duplicate ratio × the file's records.
    let heavy = |f: &F| !fragment(f) && f.amoro_pos as f64 > f.rows as f64 * s.delete_ratio;
    // `segmentShouldRewritePos`: any equality or position delete.
    let pos_rewrite = |f: &F| f.pos_files > 0 || f.eq_files > 0;
    let frags: Vec<F> = files.iter().copied().filter(|f| fragment(f)).collect();
    let heavies: Vec<F> = files.iter().copied().filter(|f| heavy(f)).collect();
    let under: Vec<F> = files
        .iter()
        .copied()
        .filter(|f| undersized(f) && !heavy(f))
        .collect();
    let reached_pos: Vec<F> = files
        .iter()
        .copied()
        .filter(|f| f.size > s.min_target && !heavy(f) && pos_rewrite(f))
        .collect();
    let combine = reached_pos.iter().filter(|f| f.pos_files > 1).count();

    let small = frags.len() as u64 + eq_deletes;
    let minor = small >= s.minor_files || combine > 0;
    if small >= s.minor_files {
        reasons.push(format!(
            "minor: {} fragment file(s) ≤ {} bytes and {eq_deletes} equality-delete file(s) in the partition ≥ {}",
            frags.len(),
            s.min,
            s.minor_files
        ));
    } else if small > 0 {
        reasons.push(format!(
            "{small} fragment + equality-delete files in the partition < {} (minor waits for its 1 h interval)",
            s.minor_files
        ));
    }
    if combine > 0 {
        reasons.push(format!(
            "minor: {combine} segment file(s) with more than one position delete file"
        ));
    }
    let under_bytes: u64 = under.iter().map(|f| f.size).sum();
    let two: u64 = under.iter().take(2).map(|f| f.size).sum();
    let enough = under.len() >= 2 && under_bytes >= s.target && two <= s.target;
    if enough {
        reasons.push(format!(
            "major: {} undersized segment file(s) ({} < size ≤ {} bytes, the min-target-size ratio × target) hold {under_bytes} bytes ≥ the target, and the two smallest fit in one target file",
            under.len(),
            s.min,
            s.min_target
        ));
    } else if !under.is_empty() && !minor && heavies.is_empty() {
        reasons.push(format!(
            "{} undersized segment file(s) hold {under_bytes} bytes: major optimizing waits until they reach the target and two of them fit in one file",
            under.len()
        ));
    }
    if !heavies.is_empty() {
        reasons.push(format!(
            "major: {} segment file(s) with position deletes > {} of rows",
            heavies.len(),
            s.delete_ratio
        ));
    }
    let major = enough || !heavies.is_empty();
    if !minor && !major {
        if reasons.is_empty() {
            reasons.push("no fragment files and no segment file over the delete ratio".into());
        }
        return (Vec::new(), reasons);
    }

    let mut out = Vec::new();
    let mut pos_only: Vec<F> = reached_pos;
    let mut lone = 0;
    let under_items: Vec<(F, bool)> = under.iter().map(|&f| (f, true)).collect();
    for bin in first_fit(&under_items, s.task_size) {
        if bin.len() > 1 {
            out.push(amoro_task(
                bin.into_iter().map(|(f, _)| f).collect(),
                s.target,
            ));
        } else {
            lone += 1;
            pos_only.extend(bin.into_iter().map(|(f, _)| f).filter(|f| pos_rewrite(f)));
        }
    }
    if lone > 0 {
        reasons.push(format!(
            "{lone} undersized segment file(s) alone in a bin kept"
        ));
    }
    let mut items: Vec<(F, bool)> = frags.iter().chain(&heavies).map(|&f| (f, true)).collect();
    items.sort_by_key(|(f, _)| f.size);
    pos_only.sort_by_key(|f| f.size);
    items.extend(pos_only.iter().map(|&f| (f, false)));
    let mut dropped = 0;
    let mut pos_tasks = 0;
    for bin in first_fit(&items, s.task_size) {
        let rewrite: Vec<F> = bin.iter().filter(|(_, r)| *r).map(|(f, _)| *f).collect();
        let has_pos = bin.iter().any(|(_, r)| !*r);
        let has_deletes = bin.iter().any(|(f, _)| pos_rewrite(f));
        if rewrite.is_empty() {
            pos_tasks += 1;
        } else if rewrite.len() == 1 && !has_pos && !has_deletes {
            dropped += 1;
        } else {
            out.push(amoro_task(rewrite, s.target));
        }
    }
    if dropped > 0 {
        reasons.push(format!(
            "{dropped} task(s) of a single data file without deletes dropped"
        ));
    }
    if !pos_only.is_empty() {
        reasons.push(format!(
            "{} segment file(s) keep their data, their deletes rewritten ({pos_tasks} task(s) of deletes only)",
            pos_only.len()
        ));
    }
    (out, reasons)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tables::{DeleteFile, DeleteKind, FileDeletes, Partition, PartitionField};

    const T: u64 = 1000;

    fn table(format: Format, files: &[(u64, u64, u64)]) -> TableState {
        TableState {
            name: "db.t".into(),
            format: Some(format),
            partition_fields: vec![PartitionField {
                name: "d".into(),
                source: "d".into(),
                transform: "identity".into(),
                source_type: "string".into(),
            }],
            spec_fields: [(0, vec!["d".to_string()])].into(),
            partitions: vec![Partition {
                spec_id: 0,
                values: vec![Some("x".into())],
            }],
            files: files
                .iter()
                .map(|&(size, rows, deleted)| DataFile {
                    partition: 0,
                    size,
                    rows: Some(rows),
                    seq: 1,
                    clustered: false,
                    path: None,
                    deletes: (deleted > 0).then(|| {
                        Box::new(FileDeletes {
                            pos_files: 1,
                            pos_rows: deleted,
                            pos_rows_exact: Some(deleted),
                            pos_rows_file_scoped: deleted,
                            ..Default::default()
                        })
                    }),
                    stats: None,
                })
                .collect(),
            ..Default::default()
        }
    }

    fn run(t: &TableState, p: Policy) -> CompactionRow {
        let s = Settings::for_table(t, p, Some(T));
        compaction(t, p, &s).remove(0)
    }

    #[test]
    fn delta_bins_small_files_and_drops_single_file_bins() {
        // 999 is under min = max = 1000; 1000 is not. 400 + 500 fill a bin;
        // 999 alone would overflow it and is dropped as a single-file bin.
        let t = table(
            Format::Delta,
            &[(400, 10, 0), (500, 10, 0), (999, 10, 0), (1000, 10, 0)],
        );
        let r = run(&t, Policy::Delta);
        assert_eq!((r.candidate_files, r.bins, r.files_after_est), (2, 1, 3));
        assert_eq!(r.bytes_to_rewrite, 900);
        assert!(
            r.reasons.contains("single-file bin dropped"),
            "{}",
            r.reasons
        );
        assert_eq!(r.statement, "OPTIMIZE `db.t` WHERE `d` = 'x'");
    }

    #[test]
    fn delta_deleted_ratio_exactly_five_percent_is_over() {
        // 1 − 95/100 = 0.050000000000000044 > 0.05: a candidate; with 4.9 %
        // it is not. min = max, so a large file sits alone and is dropped —
        // unless a small file shares its bin.
        let f = F {
            size: 10,
            rows: 100,
            deleted: 5,
            scoped: 5,
            amoro_pos: 5,
            pos_files: 1,
            eq_files: 0,
        };
        assert!(f.delta_ratio() > 0.05);
        let g = F {
            size: 10,
            rows: 1000,
            deleted: 49,
            scoped: 49,
            amoro_pos: 49,
            pos_files: 1,
            eq_files: 0,
        };
        assert!(g.delta_ratio() <= 0.05);
        let t = table(Format::Delta, &[(100, 10, 0), (800, 100, 5)]);
        let r = run(&t, Policy::Delta);
        assert_eq!((r.candidate_files, r.rows_purged), (2, 5));
        let t = table(Format::Delta, &[(100, 10, 0), (2000, 100, 5)]);
        let r = run(&t, Policy::Delta);
        assert_eq!(r.candidate_files, 0, "{}", r.reasons);
    }

    #[test]
    fn fabric_fast_optimize_needs_fifty_files() {
        let t = table(Format::Delta, &[(10, 1, 0); 49]);
        let r = run(&t, Policy::Fabric);
        assert_eq!(r.candidate_files, 0);
        assert!(r.reasons.contains("fast optimize skips"), "{}", r.reasons);
        let t = table(Format::Delta, &[(10, 1, 0); 50]);
        let r = run(&t, Policy::Fabric);
        assert_eq!((r.candidate_files, r.bins, r.files_after_est), (50, 1, 1));
        // File-level target: a 500-byte file (½ of 1000) is kept.
        let mut files = vec![(10, 1, 0); 50];
        files.push((500, 1, 0));
        let r = run(&table(Format::Delta, &files), Policy::Fabric);
        assert_eq!(r.candidate_files, 50);
        assert!(r.reasons.contains("file-level target"), "{}", r.reasons);
    }

    #[test]
    fn iceberg_needs_five_files_or_more_than_target() {
        // min 750, max 1800. Four 100-byte files: not enough.
        let t = table(Format::Iceberg, &[(100, 1, 0); 4]);
        assert_eq!(run(&t, Policy::Iceberg).candidate_files, 0);
        let t = table(Format::Iceberg, &[(100, 1, 0); 5]);
        let r = run(&t, Policy::Iceberg);
        assert_eq!((r.candidate_files, r.files_after_est), (5, 1));
        // Two files of 600: more than one and over the target.
        let t = table(Format::Iceberg, &[(600, 1, 0), (600, 1, 0)]);
        assert_eq!(run(&t, Policy::Iceberg).candidate_files, 2);
        // 749 is under min, 750 is not; a lone 1801 is split.
        let t = table(Format::Iceberg, &[(750, 1, 0), (1800, 1, 0)]);
        assert_eq!(run(&t, Policy::Iceberg).candidate_files, 0);
        let t = table(Format::Iceberg, &[(1801, 1, 0)]);
        let r = run(&t, Policy::Iceberg);
        assert_eq!((r.candidate_files, r.files_after_est), (1, 2));
    }

    #[test]
    fn iceberg_delete_ratio_threshold_is_point_three() {
        let t = table(Format::Iceberg, &[(1000, 100, 29)]);
        assert_eq!(run(&t, Policy::Iceberg).candidate_files, 0);
        let t = table(Format::Iceberg, &[(1000, 100, 30)]);
        let r = run(&t, Policy::Iceberg);
        assert_eq!((r.candidate_files, r.rows_purged), (1, 30));
        assert!(
            r.statement
                .starts_with("CALL `spark_catalog`.system.rewrite_data_files(table => '`db.t`'"),
            "{}",
            r.statement
        );
        assert!(
            r.statement.contains(r"where => '`d` = \'x\''"),
            "{}",
            r.statement
        );
    }

    #[test]
    fn iceberg_weighs_only_file_scoped_deletes() {
        // 40 of 100 rows deleted, known only because `--deep` opened a
        // partition-scoped position delete file: Iceberg's planner counts
        // file-scoped deletes alone, so no rewrite; Amoro counts them.
        let mut t = table(Format::Iceberg, &[(1000, 100, 40)]);
        if let Some(d) = t.files[0].deletes.as_mut() {
            d.pos_rows_file_scoped = 0;
        }
        assert_eq!(run(&t, Policy::Iceberg).candidate_files, 0);
        let amoro = Settings::for_table(&t, Policy::Amoro, Some(100));
        assert_eq!(compaction(&t, Policy::Amoro, &amoro)[0].rows_purged, 40);
    }

    #[test]
    fn expected_output_files_follows_the_planner() {
        let s = Settings {
            target: 100,
            min: 75,
            max: 180,
            delete_ratio: 0.3,
            min_target: 75,
            task_size: 180,
            minor_files: 0,
            target_source: String::new(),
        };
        assert_eq!(expected_output_files(50, &s), 1);
        assert_eq!(expected_output_files(180, &s), 2); // remainder 80 > min
        assert_eq!(expected_output_files(205, &s), 2); // avg 102.5 < 110
        assert_eq!(expected_output_files(270, &s), 3); // remainder 70, avg 135
    }

    #[test]
    fn amoro_minor_trigger_is_twelve_fragments() {
        // target 1000: fragments are < 125 bytes.
        let t = table(Format::Iceberg, &[(124, 1, 0); 11]);
        assert_eq!(run(&t, Policy::Amoro).candidate_files, 0);
        let mut t = table(Format::Iceberg, &[(124, 1, 0); 11]);
        t.delete_files.push(DeleteFile {
            kind: DeleteKind::Equality,
            path: "eq.parquet".into(),
            partition: 0,
            seq: 2,
            file_seq: 2,
            records: 1,
            file_size: 10,
            content: None,
            referenced: None,
            applied_to: 11,
        });
        let r = run(&t, Policy::Amoro);
        // 11 × 124 = 1364 bytes: one task (tasks hold max(target,
        // max-task-size-bytes 128 MiB)), written as two target files.
        assert_eq!((r.candidate_files, r.bins, r.files_after_est), (11, 1, 2));
        // A segment file (≥ 125 bytes) with 11 % position deletes.
        let t = table(Format::Iceberg, &[(500, 100, 11), (500, 100, 10)]);
        let r = run(&t, Policy::Amoro);
        assert_eq!((r.candidate_files, r.rows_purged), (1, 11));
    }

    #[test]
    fn amoro_major_merges_undersized_segments_up_to_the_min_target_ratio() {
        // target 1000: fragments ≤ 125 bytes, undersized segments in
        // (125, 750] (0.75 × target), target-size-reached above.
        // 750 + 250 = 1000 ≥ the target and the two fit in one file: major.
        let r = run(
            &table(Format::Iceberg, &[(250, 1, 0), (750, 1, 0)]),
            Policy::Amoro,
        );
        assert_eq!((r.candidate_files, r.bins, r.files_after_est), (2, 1, 1));
        assert!(
            r.reasons.contains("major: 2 undersized segment file(s)"),
            "{}",
            r.reasons
        );
        // 751 is over 0.75 × target: not undersized, and 250 alone waits.
        let r = run(
            &table(Format::Iceberg, &[(250, 1, 0), (751, 1, 0)]),
            Policy::Amoro,
        );
        assert_eq!(r.candidate_files, 0);
        assert!(
            r.reasons
                .contains("1 undersized segment file(s) hold 250 bytes"),
            "{}",
            r.reasons
        );
        // Enough bytes, but the two smallest (300 + 750) overflow one file.
        let r = run(
            &table(Format::Iceberg, &[(300, 1, 0), (750, 1, 0)]),
            Policy::Amoro,
        );
        assert_eq!(r.candidate_files, 0);
        // The ratio is the table's property when set: at 0.8, 751 is
        // undersized, and 249 + 751 fill one target file.
        let mut t = table(Format::Iceberg, &[(249, 1, 0), (751, 1, 0)]);
        t.properties
            .insert("self-optimizing.min-target-size-ratio".into(), "0.8".into());
        let s = Settings::for_table(&t, Policy::Amoro, Some(T));
        assert_eq!(s.min_target, 800);
        assert_eq!(compaction(&t, Policy::Amoro, &s)[0].candidate_files, 2);
        // A fragment is at most target / 8 (125 counts).
        let t = table(Format::Iceberg, &[(125, 1, 0); 12]);
        assert_eq!(run(&t, Policy::Amoro).candidate_files, 12);
    }

    /// Item 12 of issue 32, first claim. A partition whose only file is a
    /// segment (above 0.75 × target) with 29, 30 or 31 % of its rows
    /// deleted by position deletes is rewritten by Amoro, fragments or
    /// not. apache/amoro 96a4d781aac60c4080b3f4a41322848e2308649a,
    /// `amoro-format-iceberg/src/main/java/org/apache/amoro/optimizing/plan/`:
    /// `CommonPartitionEvaluator.java:199-208` counts such a file in
    /// `rewriteSegmentFileCount` when `fileShouldRewrite` holds, and
    /// `:270-271` is position delete records > records ×
    /// `getMajorDuplicateRatio()` (0.1, `TableProperties.java:121-123`);
    /// `:403-405` `isMajorNecessary` is then true and `:344` makes the
    /// partition necessary. `AbstractPartitionPlan.java:140-141` puts the
    /// file in `rewriteDataFiles`, `:386-392` packs it into a task, and
    /// `IcebergPartitionPlan.java:74-80` keeps a one-file task that
    /// carries delete files. At exactly 10 % the file only has its deletes
    /// rewritten (`CommonPartitionEvaluator.java:291-293`), which triggers
    /// nothing (`:403-412`).
    #[test]
    fn amoro_rewrites_a_lone_segment_over_the_duplicate_ratio() {
        for deleted in [29, 30, 31, 11] {
            let t = table(Format::Iceberg, &[(900, 100, deleted)]);
            let r = run(&t, Policy::Amoro);
            assert_eq!(
                (r.candidate_files, r.bins, r.rows_purged, r.bytes_to_rewrite),
                (1, 1, deleted, 900),
                "{deleted}: {}",
                r.reasons
            );
            assert!(
                r.reasons
                    .contains("major: 1 segment file(s) with position deletes > 0.1 of rows"),
                "{}",
                r.reasons
            );
        }
        let r = run(&table(Format::Iceberg, &[(900, 100, 10)]), Policy::Amoro);
        assert_eq!((r.candidate_files, r.bins), (0, 0), "{}", r.reasons);
        // The ratio is the table's property when set (`TableConfigurations`
        // reads `self-optimizing.major.trigger.duplicate-ratio`): at 0.3,
        // 30 % is not over it and 31 % is.
        for (deleted, files) in [(30, 0), (31, 1)] {
            let mut t = table(Format::Iceberg, &[(900, 100, deleted)]);
            t.properties.insert(
                "self-optimizing.major.trigger.duplicate-ratio".into(),
                "0.3".into(),
            );
            let s = Settings::for_table(&t, Policy::Amoro, Some(T));
            assert_eq!(compaction(&t, Policy::Amoro, &s)[0].candidate_files, files);
        }
    }

    /// Item 12 of issue 32, second claim. Amoro packs a partition's
    /// fragments and its segments over the duplicate ratio into the same
    /// tasks, each holding up to max(target,
    /// `self-optimizing.max-task-size-bytes`) bytes: apache/amoro
    /// 96a4d781aac60c4080b3f4a41322848e2308649a,
    /// `AbstractPartitionPlan.java:386-392` (one packing of
    /// `rewriteDataFiles` and `rewritePosDataFiles`) and `:396-402`
    /// (`BinPacking.ListPacker` with weight
    /// `Math.max(config.getTargetSize(), config.getMaxTaskSize())`, 128 MiB
    /// by default, `TableProperties.java:103-104`). Twelve fragments of
    /// 34,125 bytes and a 48,875-byte segment with 30 % deleted (target
    /// 64,000): one task of 83,000 bytes, not a bin of fragments plus a
    /// bin for the segment (what lakeaudit gave), nor the fragments alone
    /// (the segment is rewritten: see the test above).
    #[test]
    fn amoro_packs_fragments_and_rewritten_segments_in_one_task() {
        let mut files = vec![(2843, 1, 0); 11];
        files.push((2852, 1, 0));
        files.push((48_875, 100, 30));
        let t = table(Format::Iceberg, &files);
        let s = Settings::for_table(&t, Policy::Amoro, Some(64_000));
        assert_eq!(
            (s.min, s.min_target, s.task_size),
            (8000, 48_000, 128 * MIB)
        );
        let r = compaction(&t, Policy::Amoro, &s).remove(0);
        assert_eq!(
            (
                r.candidate_files,
                r.bins,
                r.bytes_to_rewrite,
                r.files_after_est
            ),
            (13, 1, 83_000, 2),
            "{}",
            r.reasons
        );
        // A smaller max-task-size-bytes still leaves the target as the
        // floor: at 40,000 the tasks hold 64,000 bytes, first fit over
        // ascending sizes puts the twelve fragments in one and the segment
        // in another.
        let mut t = t;
        t.properties
            .insert("self-optimizing.max-task-size-bytes".into(), "40000".into());
        let s = Settings::for_table(&t, Policy::Amoro, Some(64_000));
        assert_eq!(s.task_size, 64_000);
        let r = compaction(&t, Policy::Amoro, &s).remove(0);
        assert_eq!((r.candidate_files, r.bins), (13, 2), "{}", r.reasons);
    }

    /// Amoro's minor trigger counts one partition's fragment and
    /// equality-delete files: apache/amoro
    /// 96a4d781aac60c4080b3f4a41322848e2308649a,
    /// `AbstractOptimizingEvaluator.java:130-134` builds one evaluator per
    /// partition path, and `CommonPartitionEvaluator.java:407-411` compares
    /// that evaluator's `fragmentFileCount + equalityDeleteFileCount` with
    /// `self-optimizing.minor.trigger.file-count` (12). Twelve fragments
    /// split 6 + 6 over two partitions trigger nothing.
    #[test]
    fn amoro_minor_trigger_counts_one_partition() {
        let mut t = table(Format::Iceberg, &[(124, 1, 0); 12]);
        t.partitions.push(Partition {
            spec_id: 0,
            values: vec![Some("y".into())],
        });
        for f in &mut t.files[6..] {
            f.partition = 1;
        }
        let s = Settings::for_table(&t, Policy::Amoro, Some(T));
        let rows = compaction(&t, Policy::Amoro, &s);
        assert_eq!(rows.len(), 2);
        for r in &rows {
            assert_eq!(r.candidate_files, 0, "{}", r.reasons);
            assert!(
                r.reasons
                    .starts_with("6 fragment + equality-delete files in the partition < 12"),
                "{}",
                r.reasons
            );
        }
        // The trigger is the table's property when set.
        t.properties.insert(
            "self-optimizing.minor.trigger.file-count".into(),
            "6".into(),
        );
        let s = Settings::for_table(&t, Policy::Amoro, Some(T));
        let rows = compaction(&t, Policy::Amoro, &s);
        assert!(rows.iter().all(|r| r.candidate_files == 6), "{rows:?}");
    }

    /// What runs once a partition is necessary does not depend on the
    /// trigger (apache/amoro 96a4d781aac60c4080b3f4a41322848e2308649a,
    /// `AbstractPartitionPlan.java:369-394`): every fragment is packed,
    /// with the segments over the ratio, and undersized segments are
    /// packed on their own first, a bin of one of them being kept
    /// (`:277-288`, `:379-383`); a task of a single data file without
    /// deletes is dropped (`IcebergPartitionPlan.java:74-80`).
    #[test]
    fn amoro_tasks_take_every_fragment_of_a_necessary_partition() {
        // A segment over the ratio makes the partition major; the
        // 100-byte fragment (no minor trigger) shares its task.
        let r = run(
            &table(Format::Iceberg, &[(100, 1, 0), (900, 100, 30)]),
            Policy::Amoro,
        );
        assert_eq!(
            (r.candidate_files, r.bins, r.bytes_to_rewrite),
            (2, 1, 1000)
        );
        // 300 + 700 undersized (enough content) run; the fragment alone in
        // its task, without deletes, is dropped.
        let r = run(
            &table(Format::Iceberg, &[(100, 1, 0), (300, 1, 0), (700, 1, 0)]),
            Policy::Amoro,
        );
        assert_eq!(
            (r.candidate_files, r.bins, r.bytes_to_rewrite),
            (2, 1, 1000)
        );
        assert!(
            r.reasons
                .contains("1 task(s) of a single data file without deletes dropped"),
            "{}",
            r.reasons
        );
        // Minor (12 fragments) with one undersized segment: the segment is
        // alone in its bin and kept.
        let mut files = vec![(100, 1, 0); 12];
        files.push((400, 1, 0));
        let r = run(&table(Format::Iceberg, &files), Policy::Amoro);
        assert_eq!((r.candidate_files, r.bins), (12, 1), "{}", r.reasons);
        assert!(
            r.reasons
                .contains("1 undersized segment file(s) alone in a bin kept"),
            "{}",
            r.reasons
        );
        // Two undersized segments short of the target still share a bin
        // once minor optimizing runs: 12 fragments, 300 + 400 as well.
        let mut files = vec![(100, 1, 0); 12];
        files.extend([(300, 1, 0), (400, 1, 0)]);
        let r = run(&table(Format::Iceberg, &files), Policy::Amoro);
        assert_eq!(
            (r.candidate_files, r.bins, r.bytes_to_rewrite),
            (14, 2, 1900),
            "{}",
            r.reasons
        );
    }

    #[test]
    fn policies_keep_to_their_format() {
        let t = table(Format::Iceberg, &[(1, 1, 0)]);
        let s = Settings::for_table(&t, Policy::Delta, None);
        assert!(compaction(&t, Policy::Delta, &s).is_empty());
        assert_eq!(s.target, GIB);
        let mut t = t;
        t.properties
            .insert("write.target-file-size-bytes".into(), "2000".into());
        let s = Settings::for_table(&t, Policy::Iceberg, None);
        assert_eq!((s.target, s.min, s.max), (2000, 1500, 3600));
        assert_eq!(s.target_source, "write.target-file-size-bytes");
    }
}
