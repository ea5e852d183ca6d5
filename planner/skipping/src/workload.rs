//! The what-if over a workload: every logged scan of an audited table,
//! evaluated on the table as it is and on simulated layouts, per engine
//! ([`rows_of`]), and the measured keys the planner prices layouts by
//! ([`measured`]).
//!
//! The workload's executions ([`workload::exec::Exec`]) say which table
//! each scan read, with which filters, and which joins tie scans together
//! (for the join-induced predicates, [`crate::joins`]); the tables come
//! read with the statistics of the columns the scans name
//! ([`wanted_columns`]). A table's candidate layouts are its most used
//! filtered and joined columns ([`MAX_CANDIDATES`] single ones, then the
//! two and three most used together, along a Z-order curve).

pub use crate::calibrate::databricks;
use crate::calibrate::{Calibration, Runner};
use crate::rewriter::{Model as _, Rewrite, RewriterChoice};
use crate::sample::FileError;
use crate::{Engine, ScanRow};
use graph::tables::short_table;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use workload::exec::Exec;
use workload::identity::Locations;
use workload::ingest::Ingested;

/// Most columns a candidate layout has (Delta liquid clustering's limit).
pub const MAX_KEY_COLUMNS: usize = 4;
/// Generated candidates per table, most used first.
pub const MAX_CANDIDATES: usize = 5;

/// Tables as read (each its state or its error line) and the errors of
/// the search for them.
pub use tables::each::ReadTables;

/// Which engines each execution is evaluated under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engines {
    /// Per table and engine that ran the scan, the model calibrated on
    /// the table's logged counts ([`crate::calibrate`]); without counts,
    /// [`Engines::Rule`].
    Auto,
    /// [`Engine::Values`] for an execution Databricks ran
    /// ([`databricks`]), else [`Engine::MinMax`], whatever the counts
    /// say (what the planner prices layouts with).
    Rule,
    /// These, for every execution.
    Fixed(Vec<Engine>),
}

/// The engines a what-if is evaluated under, as `--engine` chooses
/// them ([`EngineChoice::engines`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum EngineChoice {
    /// The model that reproduces the table's logged file counts
    /// (calibration); without counts, `values` for an execution
    /// Databricks ran (its runtime or Photon operators in the log), else
    /// `minmax`.
    Auto,
    /// Partition pruning, and dynamic partition pruning by the build
    /// side's keys (Apache Spark reading plain Parquet files).
    None,
    /// Partition values and per-file min/max statistics against the
    /// scans' literal predicates (Delta data skipping, delta-kernel-rs and
    /// DuckDB, Iceberg manifest pruning).
    Minmax,
    /// As `minmax`, and the range of each join's build keys against each
    /// file's range (a dynamic filter's range applied to files).
    JoinRange,
    /// As `minmax`, and each join's build keys themselves against each
    /// file's range (Databricks dynamic file pruning).
    Values,
    /// `none`, `minmax`, `join-range` and `values`, one row each.
    All,
}

impl EngineChoice {
    /// The engines evaluated.
    pub fn engines(self) -> Engines {
        match self {
            EngineChoice::Auto => Engines::Auto,
            EngineChoice::Minmax => Engines::Fixed(vec![Engine::MinMax]),
            EngineChoice::None => Engines::Fixed(vec![Engine::None]),
            EngineChoice::JoinRange => Engines::Fixed(vec![Engine::JoinRange]),
            EngineChoice::Values => Engines::Fixed(vec![Engine::Values]),
            EngineChoice::All => Engines::Fixed(vec![
                Engine::None,
                Engine::MinMax,
                Engine::JoinRange,
                Engine::Values,
            ]),
        }
    }
}

/// How [`rows_of`] evaluates.
#[derive(Clone, Debug)]
pub struct Options {
    /// The engines.
    pub engines: Engines,
    /// Rows a join's build table may have for its keys to be read.
    pub build_rows: u64,
    /// Rows read from each table for the simulation.
    pub sample_rows: u64,
    /// Only the current layout: no simulation.
    pub current_only: bool,
    /// Read data files the metadata names outside their table
    /// (`--allow-outside-table`).
    pub allow_outside_table: bool,
    /// The rewriter the layouts are predicted for (`--rewriter`).
    pub rewriter: RewriterChoice,
    /// `--target-size`: the rewrite's file size, over the table's property
    /// and the rewriter's default.
    pub target_size: Option<u64>,
}

/// Every column the workload's scans name, and the `layouts`' columns:
/// the statistics to read the tables with
/// ([`tables::ReadOptions::stats_columns`]).
pub fn wanted_columns(
    data: &Ingested<Exec>,
    layouts: &[(String, Vec<String>)],
) -> BTreeSet<String> {
    let mut wanted = BTreeSet::new();
    for e in &data.records {
        for s in &e.record.scans {
            wanted.extend(s.columns.iter().map(|c| column_name(c).to_string()));
        }
    }
    wanted.extend(layouts.iter().flat_map(|(_, c)| c.iter().cloned()));
    wanted
}

/// Tables read, by their one identity in the logs
/// ([`workload::identity::TableIndex`]: two tables of one name stay two),
/// in the order read, with the warnings resolving gave pushed to
/// `warnings` when given.
pub(crate) fn by_identity(
    read: Vec<tables::TableState>,
    locations: &workload::identity::Locations,
    warnings: Option<&mut Vec<String>>,
) -> Vec<(String, tables::TableState)> {
    let index = workload::identity::TableIndex::resolve(
        locations.clone(),
        read.iter().map(|t| (t.name.as_str(), t.location.as_path())),
    );
    if let Some(w) = warnings {
        w.extend(index.warnings().iter().cloned());
    }
    read.into_iter()
        .filter_map(|t| Some((index.audited(&t.location)?.to_string(), t)))
        .collect()
}

/// The column name of a scan's output attribute (`l_shipdate#19`).
pub fn column_name(attr: &str) -> &str {
    attr.split('#').next().unwrap_or(attr)
}

/// The rows of every scan of an audited table, per layout and engine
/// ([`ScanRow`]), on tables already read with the statistics of
/// [`wanted_columns`]; with `report_tables` their errors and warnings go
/// into `data` (without it, a table audit that read them reports them).
pub fn rows_of(
    data: &mut Ingested<Exec>,
    opts: &Options,
    layouts: &[(String, Vec<String>)],
    (read, errors): ReadTables,
    report_tables: bool,
) -> Whatif {
    let mut out = Whatif::default();
    let locations = data.locations.clone();
    if report_tables {
        data.errors.extend(errors);
    }
    let mut ok: Vec<tables::TableState> = Vec::new();
    for t in read {
        let t = match t {
            Ok(t) => t,
            Err(e) => {
                if report_tables {
                    data.errors.push(e.to_string());
                }
                continue;
            }
        };
        if report_tables {
            data.errors
                .extend(t.problems.iter().map(ToString::to_string));
            data.warnings.extend(t.warnings.iter().cloned());
        }
        if t.stats_unreadable > 0 {
            data.warnings.push(format!(
                "{}: {} file statistics could not be read; those files are never skipped on those columns",
                t.location.display(),
                t.stats_unreadable
            ));
        }
        ok.push(t);
    }
    let by_id: BTreeMap<String, tables::TableState> =
        by_identity(ok, &locations, report_tables.then_some(&mut data.warnings))
            .into_iter()
            .collect();
    let (induced, warnings, errors) = induced(data, &locations, &by_id, opts);
    data.warnings.extend(warnings);
    data.errors.extend(errors);
    let usage = Usage::of(data, &locations);
    // Layout quality on every column the workload filters or joins on.
    for (id, t) in &by_id {
        let mut cols = usage.predicate_columns(id, t);
        cols.extend(usage.join_columns(id, t));
        for c in cols {
            if let Some(mut q) = crate::quality::quality(t, &c) {
                q.table = short_table(id);
                out.quality.push(q);
            }
        }
    }
    // Each audited table's candidate layouts, simulated once per table,
    // tables in parallel.
    let mut jobs = Vec::new();
    if !opts.current_only {
        for (id, t) in &by_id {
            let short = short_table(id);
            let keys: Vec<Vec<String>> = if layouts.is_empty() {
                usage.generated(id, t)
            } else {
                layouts
                    .iter()
                    .filter(|(name, _)| {
                        name.eq_ignore_ascii_case(&short)
                            || name.eq_ignore_ascii_case(id)
                            || name.eq_ignore_ascii_case(&t.name)
                    })
                    .map(|(_, c)| table_names(t, c))
                    .collect()
            };
            if keys.is_empty() {
                continue;
            }
            let mut needed: BTreeSet<String> = keys.iter().flatten().cloned().collect();
            needed.extend(usage.predicate_columns(id, t));
            needed.extend(
                induced
                    .iter()
                    .filter(|((_, _, probe), _)| probe == id)
                    .flat_map(|(_, i)| i.iter().map(|i| i.column.clone())),
            );
            jobs.push((id.as_str(), t, keys, needed.into_iter().collect::<Vec<_>>()));
        }
    }
    // Each table's simulation inside its own panic boundary: a panic in
    // a dependency reading one table's files costs that table's
    // simulated layouts, never the run.
    let on_databricks = data.records.iter().any(|e| databricks(&e.record));
    let done: Vec<(&str, Simulated, Vec<String>, Vec<String>)> = jobs
        .into_par_iter()
        .map(|(id, t, keys, needed)| {
            let simulate = || {
                let mut warnings = Vec::new();
                let short = short_table(id);
                let Some(rewriter) = crate::rewriter::choose(opts.rewriter, t, on_databricks)
                else {
                    warnings.push(format!(
                        "{short}: no rewriter writes a table of this format (plain Parquet is converted to Delta first); its layouts are not simulated"
                    ));
                    return (Vec::new(), warnings, Vec::new());
                };
                if !rewriter.writes(t.format) {
                    warnings.push(format!(
                        "{short}: {} does not rewrite {} tables; its layouts are not simulated",
                        rewriter.as_str(),
                        t.format.map_or("plain Parquet", |f| f.as_str())
                    ));
                    return (Vec::new(), warnings, Vec::new());
                }
                let mut sample = crate::simulate::sample(
                    t,
                    &needed,
                    opts.sample_rows,
                    opts.allow_outside_table,
                );
                warnings.append(&mut sample.warnings);
                let errors = std::mem::take(&mut sample.errors);
                if sample.rows() == 0 {
                    return (Vec::new(), warnings, errors);
                }
                let bytes: u64 = t.files.iter().map(|f| f.size).sum();
                let (target_size, size_source, w) =
                    rewriter.target_size(t, opts.target_size, bytes);
                warnings.extend(w);
                let bytes_per_row = bytes as f64 / sample.rows() as f64;
                // delta-rs closes a file when its row group's encoded size
                // before compression reaches the target: the footers' row
                // group sizes per row (the compressed size where no footer
                // was read).
                let rows_per_sampled_row =
                    sample.rows_total.max(sample.rows() as u64) as f64 / sample.rows() as f64;
                let uncompressed_per_row = if sample.footer_rows > 0 {
                    sample.footer_uncompressed as f64 / sample.footer_rows as f64
                } else {
                    bytes_per_row / rows_per_sampled_row
                };
                let plain_per_row: Vec<f64> = if sample.footer_rows > 0 {
                    sample
                        .plain
                        .iter()
                        .map(|(_, b)| *b as f64 / sample.footer_rows as f64)
                        .collect()
                } else {
                    Vec::new()
                };
                let ranked = crate::simulate::rank_all(&mut sample);
                let mut sims = Vec::new();
                for k in &keys {
                    let cols: Vec<_> = k
                        .iter()
                        .filter_map(|c| t.columns.iter().find(|(n, _)| n == c).cloned())
                        .collect();
                    let curve = rewriter.curve(k.len());
                    if let Some(reason) = rewriter.refuses(curve, &cols) {
                        warnings.push(format!(
                            "{short}: layout ({}) is not predicted: {reason}",
                            k.join(",")
                        ));
                        continue;
                    }
                    let rewrite = Rewrite {
                        rewriter,
                        curve,
                        target_size,
                        size_source: size_source.clone(),
                    };
                    let plan = crate::simulate::Plan {
                        rewrite: &rewrite,
                        bytes_per_row,
                        uncompressed_per_row,
                        rows_per_sampled_row,
                        plain_per_row: &plain_per_row,
                    };
                    // Ordered once; the half sample is every other row of it.
                    let rows = crate::simulate::order(&sample, &ranked, k, curve);
                    let sim = |half| {
                        let files = crate::simulate::cut(&sample, &ranked, &rows, &plan, half);
                        crate::simulate::simulated_table(t, &sample, files)
                    };
                    sims.push((
                        crate::Layout::Key(k.clone()),
                        sim(false),
                        sim(true),
                        sample.rows() as u64,
                        rewrite.clone(),
                    ));
                }
                (sims, warnings, errors)
            };
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(simulate)) {
                Ok((sims, warnings, errors)) => (id, sims, warnings, errors),
                Err(p) => (
                    id,
                    Vec::new(),
                    Vec::new(),
                    vec![format!(
                        "{}: reading its data files for the layout simulation failed ({}); its layouts are not simulated",
                        t.location.display(),
                        panic_text(&p)
                    )],
                ),
            }
        })
        .collect();
    let mut simulated: BTreeMap<&str, Simulated> = BTreeMap::new();
    for (id, sims, warnings, errors) in done {
        data.warnings.extend(warnings);
        data.errors.extend(errors);
        simulated.insert(id, sims);
    }
    let scans = audited_scans(data, &locations, &by_id);
    out.calibration = calibrate(&scans, &induced);
    let fitted: BTreeMap<(&str, Runner), Engine> = out
        .calibration
        .iter()
        .filter_map(|c| Some(((c.table_id.as_str(), c.runner), c.fitted?)))
        .collect();
    let mut over_count = 0u64;
    for a in &scans {
        let (k, r, runner, i, s, id, t, preds) = (
            a.exec, a.record, a.runner, a.scan, a.s, &a.id, a.table, &a.preds,
        );
        // `auto`: the model calibrated on this table's logged counts,
        // else today's rule.
        let engines = match &opts.engines {
            Engines::Auto => vec![fitted
                .get(&(id.as_str(), runner))
                .copied()
                .unwrap_or(runner.default_model())],
            Engines::Rule => vec![runner.default_model()],
            Engines::Fixed(e) => e.clone(),
        };
        let joined = induced
            .get(&(k, i, id.clone()))
            .map_or(&[][..], Vec::as_slice);
        // A logged count above the table's live files is no measurement
        // of this table as read (a bad metric, or a scan of an older,
        // larger snapshot): left out and counted.
        let files_now = t.files.len() as u64;
        let logged = s
            .files_read
            .filter(|&n| u64::try_from(n).is_ok_and(|n| n <= files_now));
        if s.files_read.is_some() && logged.is_none() {
            over_count += 1;
        }
        let current = std::iter::once((&crate::Layout::Current, t, None, None));
        let sims = simulated
            .get(id.as_str())
            .into_iter()
            .flatten()
            .map(|(name, st, half, n, rw)| (name, st, Some((half, *n)), Some(rw)));
        // The scan's filters, parsed once: every layout of the table
        // (simulated ones keep its columns) and engine tests them.
        let unknown = crate::unknown_count(preds) as u64;
        for ((layout, t, half, rewrite), &engine) in current
            .chain(sims)
            .flat_map(|l| engines.iter().map(move |e| (l, e)))
        {
            let (reading, join_predicates) = crate::read_joined(t, preds, joined, engine);
            let half_read =
                half.map(|(h, _)| crate::read_joined(h, preds, joined, engine).0.files_read);
            out.rows.push(ScanRow {
                app_id: r.app_id.clone(),
                execution_id: r.execution_id,
                description: r.description.clone(),
                scan: i as u32,
                table: short_table(id),
                table_id: id.clone(),
                layout: layout.clone(),
                rewriter: rewrite.map(|r: &Rewrite| r.rewriter),
                target_size: rewrite.map(|r| r.target_size),
                engine,
                files_total: reading.files_total,
                files_read: reading.files_read,
                bytes_total: reading.bytes_total,
                bytes_read: reading.bytes_read,
                files_without_stats: reading.files_without_stats,
                unknown_predicates: unknown,
                join_predicates: join_predicates.join("; "),
                logged_files_read: logged,
                logged_bytes_read: s.bytes_read,
                sample_rows: half.map(|(_, n)| n),
                files_read_half_sample: half_read,
            });
        }
    }
    drop(scans);
    if over_count > 0 {
        data.warnings.push(format!(
            "{over_count} scans logged more files read than their table has live files (a bad metric, or a scan of an older snapshot with more files); their logged counts are left out (logged_files_read empty)"
        ));
    }
    out
}

/// One scan of an audited table, resolved once for `whatif`'s rows and
/// the calibration: its table's identity and its filters parsed.
struct AuditedScan<'a> {
    /// Its execution's index in the records, and its own in the execution.
    exec: usize,
    scan: usize,
    record: &'a parsers::record::QueryRecord,
    s: &'a parsers::record::ScanRecord,
    runner: Runner,
    /// The table's identity in the workload, and its state.
    id: String,
    table: &'a tables::TableState,
    /// The scan's filters against the table's columns.
    preds: Vec<crate::Predicate>,
}

/// Every scan of an audited table, in the records' order.
fn audited_scans<'a>(
    data: &'a Ingested<Exec>,
    locations: &Locations,
    by_id: &'a BTreeMap<String, tables::TableState>,
) -> Vec<AuditedScan<'a>> {
    let mut out = Vec::new();
    for (exec, e) in data.records.iter().enumerate() {
        let record = &e.record;
        let runner = Runner::of(record);
        for (scan, s) in record.scans.iter().enumerate() {
            let id = locations.identity(&s.table);
            let Some(table) = by_id.get(&id) else {
                continue;
            };
            out.push(AuditedScan {
                exec,
                scan,
                record,
                s,
                runner,
                preds: crate::scan_predicates(s, &table.columns),
                id,
                table,
            });
        }
    }
    out
}

/// The calibration of every audited table ([`crate::calibrate`]): per
/// table and engine that ran its scans, each model on the current layout
/// against the scans' logged file counts.
fn calibrate(scans: &[AuditedScan], induced: &InducedByScan) -> Vec<Calibration> {
    use crate::calibrate::{reads_current, Compared, MODELS};
    type Scans = (Vec<Compared>, u64, u64);
    let mut by: BTreeMap<(String, Runner), Scans> = BTreeMap::new();
    for a in scans {
        let (t, s) = (a.table, a.s);
        let Some(n) = s.files_read else {
            continue;
        };
        let entry = by.entry((a.id.clone(), a.runner)).or_default();
        if reads_current(t, a.record.start_ms) == Some(false) {
            entry.1 += 1;
            continue;
        }
        let files_now = t.files.len() as u64;
        let Some(n) = u64::try_from(n).ok().filter(|&n| n <= files_now) else {
            entry.2 += 1;
            continue;
        };
        let joined = induced
            .get(&(a.exec, a.scan, a.id.clone()))
            .map_or(&[][..], Vec::as_slice);
        let predicted = MODELS.map(|m| crate::read_joined(t, &a.preds, joined, m).0.files_read);
        entry.0.push(Compared {
            logged: n,
            predicted,
        });
    }
    by.into_iter()
        .map(|((id, runner), (compared, other, bad))| {
            crate::calibrate::fit(short_table(&id), id, runner, &compared, other, bad)
        })
        .collect()
}

/// The join-induced predicates of each scan of an audited table, by
/// (execution index, scan index, table identity).
type InducedByScan = BTreeMap<(usize, usize, String), Vec<crate::joins::Induced>>;

/// The join-induced predicates of every scan ([`crate::joins`]): for
/// each join of an execution between two audited tables, the side it
/// filters (the probe: a semi-join's preserved side, an inner join's larger
/// table, scanned once in the execution) takes the keys of the other
/// side's rows that pass that side's scans' filters. Build sides are
/// computed once per (table, key, filters), in parallel. Returns them, the
/// warnings of build sides that could not be read and the errors of data
/// files refused as malformed.
fn induced(
    data: &Ingested<Exec>,
    locations: &Locations,
    by_id: &BTreeMap<String, tables::TableState>,
    opts: &Options,
) -> (InducedByScan, Vec<String>, Vec<String>) {
    type Build<'a> = (&'a str, String, Vec<Filters<'a>>);
    let mut builds: BTreeMap<Build, usize> = BTreeMap::new();
    let mut wanted: Vec<((usize, usize, String), String, usize)> = Vec::new();
    for (k, e) in data.records.iter().enumerate() {
        let mut scans: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, s) in e.record.scans.iter().enumerate() {
            scans
                .entry(locations.identity(&s.table))
                .or_default()
                .push(i);
        }
        for r in &e.relationships {
            let sides = crate::joins::probe_sides(r);
            let (lid, rid) = (
                locations.identity(&r.left_table.to_string()),
                locations.identity(&r.right_table.to_string()),
            );
            if sides.is_empty() || lid == rid {
                continue;
            }
            let (Some((lid, lt)), Some((rid, rt))) =
                (by_id.get_key_value(&lid), by_id.get_key_value(&rid))
            else {
                continue;
            };
            let left = (lid, lt, &r.left_columns);
            let right = (rid, rt, &r.right_columns);
            let (lrows, rrows) = (crate::joins::table_rows(lt), crate::joins::table_rows(rt));
            let (probe, build) = match sides {
                [plan::node::Side::Left] => (left, right),
                [plan::node::Side::Right] => (right, left),
                // An inner join: the engine builds on the smaller side.
                _ if lrows > rrows => (left, right),
                _ if rrows > lrows => (right, left),
                _ => continue,
            };
            let (Some([p]), Some(b)) = (scans.get(probe.0).map(Vec::as_slice), scans.get(build.0))
            else {
                continue;
            };
            let filters: Vec<Filters> = b
                .iter()
                .map(|&i| {
                    let s = &e.record.scans[i];
                    (
                        crate::data_filters(s.pushed_filters.as_deref(), s.data_filters.as_deref()),
                        s.partition_filters.as_deref(),
                    )
                })
                .collect();
            for (pc, bc) in table_names(probe.1, probe.2)
                .into_iter()
                .zip(table_names(build.1, build.2))
            {
                let has = |t: &tables::TableState, c: &str| t.columns.iter().any(|(n, _)| n == c);
                if !has(probe.1, &pc) || !has(build.1, &bc) {
                    continue;
                }
                let next = builds.len();
                let b = *builds
                    .entry((build.0.as_str(), bc, filters.clone()))
                    .or_insert(next);
                wanted.push(((k, *p, probe.0.clone()), pc, b));
            }
        }
    }
    // One pass per build table over its files, tables in parallel.
    let mut per_table: BTreeMap<&str, Vec<(usize, crate::joins::BuildRequest)>> = BTreeMap::new();
    for ((id, key, filters), &b) in &builds {
        let t = &by_id[*id];
        let scans = filters
            .iter()
            .map(|(pushed, partition)| crate::predicates(*pushed, *partition, &t.columns))
            .collect();
        per_table.entry(id).or_default().push((
            b,
            crate::joins::BuildRequest {
                key: key.clone(),
                scans,
            },
        ));
    }
    type Built = Result<Option<crate::joins::BuildSide>, FileError>;
    let done: Vec<Vec<(usize, Built)>> = per_table
        .into_par_iter()
        .map(|(id, requests)| {
            let t = &by_id[id];
            let (slots, requests): (Vec<usize>, Vec<_>) = requests.into_iter().unzip();
            let sides = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::joins::build_sides(t, &requests, opts.build_rows, opts.allow_outside_table)
            }))
            .unwrap_or_else(|p| {
                let e = FileError {
                    message: format!(
                        "{}: reading its data files for a join's build side failed ({})",
                        t.location.display(),
                        panic_text(&p)
                    ),
                    refused: true,
                };
                requests.iter().map(|_| Err(e.clone())).collect()
            });
            slots.into_iter().zip(sides).collect()
        })
        .collect();
    let mut computed: Vec<Built> = (0..builds.len()).map(|_| Ok(None)).collect();
    for (slot, side) in done.into_iter().flatten() {
        computed[slot] = side;
    }
    let (mut warnings, mut errors) = (BTreeSet::new(), BTreeSet::new());
    let computed: Vec<Option<Arc<crate::joins::BuildSide>>> = computed
        .into_iter()
        .map(|c| match c {
            Ok(b) => b.map(Arc::new),
            Err(e) => {
                let line = format!("{}; its joins induce no predicate", e.message);
                if e.refused {
                    errors.insert(line);
                } else {
                    warnings.insert(line);
                }
                None
            }
        })
        .collect();
    let mut out = InducedByScan::new();
    for (scan, column, b) in wanted {
        if let Some(build) = &computed[b] {
            let list = out.entry(scan).or_default();
            let i = crate::joins::Induced {
                column,
                build: Arc::clone(build),
            };
            if !list.contains(&i) {
                list.push(i);
            }
        }
    }
    (
        out,
        warnings.into_iter().collect(),
        errors.into_iter().collect(),
    )
}

/// A panic's message, for the error that names the input it cost.
fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// A table's simulated layouts: name, the table laid out from the whole
/// sample and from half of it, and the rows sampled.
type Simulated = Vec<(
    crate::Layout,
    tables::TableState,
    tables::TableState,
    u64,
    Rewrite,
)>;

/// Layouts to simulate, as a `--layout` flag gives them:
/// `TABLE=COL[,COL...]` (one column: rows sorted by it; 2 to
/// [`MAX_KEY_COLUMNS`]: a Z-order curve over them), several separated by
/// `;`.
///
/// ```
/// use skipping::workload::Layouts;
/// let l: Layouts = "lineitem=l_shipdate; orders=o_orderdate,o_custkey".parse().unwrap();
/// assert_eq!(l.0[1], ("orders".to_string(), vec!["o_orderdate".to_string(), "o_custkey".to_string()]));
/// assert!("orders".parse::<Layouts>().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layouts(pub Vec<(String, Vec<String>)>);

impl std::str::FromStr for Layouts {
    type Err = crate::Error;

    fn from_str(flag: &str) -> Result<Layouts, crate::Error> {
        let mut out = Vec::new();
        for part in flag.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((t, cols)) = part.split_once('=') else {
                return Err(crate::Error::LayoutSyntax {
                    part: part.to_string(),
                });
            };
            let cols: Vec<String> = cols
                .split(',')
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect();
            if cols.is_empty() || cols.len() > MAX_KEY_COLUMNS {
                return Err(crate::Error::LayoutColumns {
                    part: part.to_string(),
                    max: MAX_KEY_COLUMNS,
                });
            }
            out.push((t.trim().to_string(), cols));
        }
        Ok(Layouts(out))
    }
}

/// Read the tables under `paths` with the statistics of every column the
/// workload's scans (and `layouts`) name, for [`rows_of`].
pub fn read_tables(
    data: &Ingested<Exec>,
    paths: &[std::path::PathBuf],
    allow_outside_table: bool,
    layouts: &[(String, Vec<String>)],
) -> ReadTables {
    let opts = tables::ReadOptions {
        allow_outside_table,
        stats_columns: Some(Arc::new(wanted_columns(data, layouts))),
        ..tables::ReadOptions::default()
    };
    tables::each::read_each(paths, &opts, |t| t)
}

/// What `--tables` measures for `plan` and `analyze`, on the tables the
/// audit read (which reports their errors): the generated candidates of
/// every audited table under `engines` (one model per scan: with
/// [`Engines::Auto`], the model the table's logged counts fit, else the
/// default rule), and for the planner the measured keys (none unless
/// `priced`).
pub fn measure(
    data: &mut Ingested<Exec>,
    read: ReadTables,
    priced: bool,
    allow_outside_table: bool,
    engines: Engines,
    (rewriter, target_size): (RewriterChoice, Option<u64>),
) -> (Whatif, Vec<planner::MeasuredKey>) {
    let opts = Options {
        engines,
        build_rows: DEFAULT_BUILD_ROWS,
        sample_rows: DEFAULT_SAMPLE_ROWS,
        current_only: false,
        allow_outside_table,
        rewriter,
        target_size,
    };
    let w = rows_of(data, &opts, &[], read, false);
    let mut m = if priced {
        measured(&w.rows)
    } else {
        Vec::new()
    };
    // A size asked for is set on the table before its rewrite.
    for k in &mut m {
        if let Some(r) = &mut k.rewrite {
            r.set_property = target_size.is_some();
        }
    }
    (w, m)
}

/// Rows read from each table for the simulation by default.
pub const DEFAULT_SAMPLE_ROWS: u64 = 1_000_000;
/// Rows a join's build table may have for its keys to be read, by
/// default.
pub const DEFAULT_BUILD_ROWS: u64 = 10_000_000;

/// What `whatif` computes: the scan rows, and the layout quality of the
/// audited tables on the columns the workload filters or joins on.
#[derive(Default)]
pub struct Whatif {
    /// One row per scan of an audited table, layout and engine.
    pub rows: Vec<ScanRow>,
    /// Layout quality per (table, column).
    pub quality: Vec<crate::quality::Quality>,
    /// Which model reproduces the logged counts, per table and engine.
    pub calibration: Vec<Calibration>,
}

/// The measured keys of `rows` (one engine's): per table and candidate
/// layout, what each execution's scans read now and under it.
pub fn measured(rows: &[ScanRow]) -> Vec<planner::MeasuredKey> {
    use parsers::record::ExecRef;
    type Id = (String, ExecRef);
    let exec = |r: &ScanRow| ExecRef::new(r.app_id.clone(), r.execution_id);
    let mut now: BTreeMap<Id, planner::Reads> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.layout == crate::Layout::Current) {
        let e = now.entry((r.table_id.clone(), exec(r))).or_default();
        e.bytes_now += r.bytes_read;
        e.files_now += r.files_read;
        e.bytes_scanned_table += r.bytes_total;
    }
    let mut keys: BTreeMap<(String, Vec<String>), BTreeMap<ExecRef, planner::Reads>> =
        BTreeMap::new();
    // Per (table, key): the simulated files, the rewrite, the table's bytes.
    type Shape = (u64, Option<planner::RewriteSpec>, u64);
    let mut shapes: BTreeMap<(String, Vec<String>), Shape> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.layout != crate::Layout::Current) {
        let mut key: Vec<String> = r.layout.key().to_vec();
        key.sort();
        let shape =
            shapes
                .entry((r.table_id.clone(), key.clone()))
                .or_insert((0, None, r.bytes_total));
        shape.0 = shape.0.max(r.files_total);
        if let (Some(w), Some(t)) = (r.rewriter, r.target_size) {
            shape.1 = Some(planner::RewriteSpec {
                rewriter: w,
                target_size: t,
                set_property: false,
            });
        }
        let id = exec(r);
        let per = keys.entry((r.table_id.clone(), key)).or_default();
        let e = per.entry(id.clone()).or_insert_with(|| {
            let n = now
                .get(&(r.table_id.clone(), id.clone()))
                .copied()
                .unwrap_or_default();
            planner::Reads {
                bytes_after: 0,
                files_after: 0,
                ..n
            }
        });
        e.bytes_after += r.bytes_read;
        e.files_after += r.files_read;
    }
    let mut engines: BTreeMap<&str, planner::engine::EngineSet> = BTreeMap::new();
    for r in rows {
        engines
            .entry(r.table_id.as_str())
            .or_default()
            .0
            .insert(r.engine);
    }
    keys.into_iter()
        .map(|((table, key), per_exec)| {
            let engine = engines.get(table.as_str()).cloned().unwrap_or_default();
            let (files_after, rewrite, bytes) = shapes
                .get(&(table.clone(), key.clone()))
                .cloned()
                .unwrap_or_default();
            planner::MeasuredKey {
                table,
                key,
                per_exec,
                engine,
                files_after,
                rewrite,
                bytes,
            }
        })
        .collect()
}

/// `cols` as the table names them (matched without regard to ASCII
/// case); a column the table lacks is kept as given (it reads as null).
pub fn table_names(t: &tables::TableState, cols: &[String]) -> Vec<String> {
    cols.iter()
        .map(|c| {
            t.columns
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(c))
                .map_or_else(|| c.clone(), |(n, _)| n.clone())
        })
        .collect()
}

/// A scan's printed data filters ([`crate::data_filters`]) and
/// partition filters.
type Filters<'a> = (Option<&'a str>, Option<&'a str>);

/// The workload's use of each table, gathered in one pass over the
/// executions: its scans' printed filters, and the column lists its joins
/// use, by table identity.
#[derive(Default)]
struct Usage<'a> {
    filters: BTreeMap<String, Vec<Filters<'a>>>,
    joins: BTreeMap<String, Vec<&'a [String]>>,
}

impl<'a> Usage<'a> {
    fn of(data: &'a Ingested<Exec>, locations: &Locations) -> Self {
        let mut u = Usage::default();
        for e in &data.records {
            for s in &e.record.scans {
                u.filters
                    .entry(locations.identity(&s.table))
                    .or_default()
                    .push((
                        crate::data_filters(s.pushed_filters.as_deref(), s.data_filters.as_deref()),
                        s.partition_filters.as_deref(),
                    ));
            }
            for r in &e.relationships {
                for (table, cols) in [
                    (&r.left_table, &r.left_columns),
                    (&r.right_table, &r.right_columns),
                ] {
                    u.joins
                        .entry(locations.identity(&table.to_string()))
                        .or_default()
                        .push(cols.as_slice());
                }
            }
        }
        u
    }

    /// The typed predicates of every scan of table `id`, one list per scan.
    fn predicates<'s>(
        &'s self,
        id: &str,
        t: &'s tables::TableState,
    ) -> impl Iterator<Item = Vec<crate::Predicate>> + 's {
        self.filters
            .get(id)
            .into_iter()
            .flatten()
            .map(|(pushed, partition)| crate::predicates(*pushed, *partition, &t.columns))
    }

    /// The columns the scans of table `id` test in a predicate that can
    /// skip a file (comparisons, `IN`, prefixes), with how many scans test
    /// each.
    fn filtered(&self, id: &str, t: &tables::TableState) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for preds in self.predicates(id, t) {
            let mut cols = BTreeSet::new();
            for p in &preds {
                crate::range_columns(p, &mut cols);
            }
            for c in table_names(t, &cols.into_iter().collect::<Vec<_>>()) {
                *out.entry(c).or_insert(0) += 1;
            }
        }
        out
    }

    /// Every column a predicate of a scan of table `id` names.
    fn predicate_columns(&self, id: &str, t: &tables::TableState) -> BTreeSet<String> {
        let mut cols = BTreeSet::new();
        for p in self.predicates(id, t).flatten() {
            crate::all_columns(&p, &mut cols);
        }
        table_names(t, &cols.into_iter().collect::<Vec<_>>())
            .into_iter()
            .filter(|c| t.columns.iter().any(|(n, _)| n == c))
            .collect()
    }

    /// Each join's columns of table `id`, as the table names them.
    fn join_keys<'s>(
        &'s self,
        id: &str,
        t: &'s tables::TableState,
    ) -> impl Iterator<Item = Vec<String>> + 's {
        self.joins
            .get(id)
            .into_iter()
            .flatten()
            .map(move |cols| table_names(t, cols))
    }

    /// The columns of table `id` that the workload's joins use.
    fn join_columns(&self, id: &str, t: &tables::TableState) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = self.join_keys(id, t).flatten().collect();
        out.retain(|c| t.columns.iter().any(|(n, _)| n == c));
        out
    }

    /// Candidate keys of table `id`: its filtered columns and its join
    /// keys, one column each, the most used first (by scans filtering on
    /// it plus joins on it), at most [`MAX_CANDIDATES`]; then the two and
    /// the three most used together.
    fn generated(&self, id: &str, t: &tables::TableState) -> Vec<Vec<String>> {
        let mut uses = self.filtered(id, t);
        for c in self.join_keys(id, t).flatten() {
            *uses.entry(c).or_insert(0) += 1;
        }
        let mut ranked: Vec<(String, usize)> = uses
            .into_iter()
            .filter(|(c, _)| t.columns.iter().any(|(n, _)| n == c))
            .collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let top: Vec<String> = ranked
            .into_iter()
            .take(MAX_CANDIDATES)
            .map(|(c, _)| c)
            .collect();
        let mut keys: Vec<Vec<String>> = top.iter().map(|c| vec![c.clone()]).collect();
        // The most used two and three together, along a Z-order curve.
        for n in [2, 3] {
            if top.len() >= n {
                keys.push(top[..n].to_vec());
            }
        }
        keys
    }
}
