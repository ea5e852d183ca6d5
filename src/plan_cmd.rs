//! `lakeaudit plan`: choose Liquid Clustering keys per table under budgets
//! and emit the Delta SQL to apply them.

use crate::edges_cmd::{select, ScoreArgs};
use crate::pipeline::{self, format_time, Exec};
use crate::stats::TableStats;
use anyhow::{bail, Context, Result};
use graph::edges::{build_edges, windows, CostMeasure, EdgeRow, ExecFacts};
use graph::tables::canonical_table;
use planner::{EdgeDemand, Plan, PlannerConfig, TableProfile};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Planner flags.
#[derive(clap::Args, Debug, Clone)]
pub struct PlanArgs {
    /// Rewrite budget B (bytes; `500GB`, `2TiB`, ...). Default: 25% of the
    /// candidate tables' total size.
    #[arg(long)]
    pub budget: Option<String>,
    /// Storage budget S for rewritten bytes kept until VACUUM. Default: 25%
    /// of the candidate tables' total size.
    #[arg(long)]
    pub storage_budget: Option<String>,
    /// Fraction of a joined pair's scanned bytes saved when both tables are
    /// clustered on the join key (the paper's coefficient).
    #[arg(long, default_value_t = 0.30)]
    pub scan_reduction: f64,
    /// Planning horizon H, in windows.
    #[arg(long, default_value_t = 4)]
    pub horizon: u32,
    /// Discount rate r per window.
    #[arg(long, default_value_t = 0.05)]
    pub discount: f64,
    /// Rewritten bytes kept until VACUUM, as a multiple of the rewrite.
    #[arg(long, default_value_t = 1.0)]
    pub retention_factor: f64,
    /// Also plan for joins that ran only as BroadcastHashJoin.
    #[arg(long)]
    pub include_broadcast: bool,
    /// Use the exact solver (small instances only) instead of the default
    /// improved greedy.
    #[arg(long)]
    pub exact: bool,
    /// Window the plan is made for: the most recent window of this length.
    #[arg(long, default_value = "7d")]
    pub window: String,
}

/// Parse a size: a byte count or a number with B, KB, MB, GB, TB (powers
/// of 1000) or KiB, MiB, GiB, TiB (powers of 1024).
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .with_context(|| format!("cannot read size {s:?}: use e.g. 500GB or 2TiB"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "pb" => 1e15,
        "kib" => 1024.0,
        "mib" => 1024f64.powi(2),
        "gib" => 1024f64.powi(3),
        "tib" => 1024f64.powi(4),
        "pib" => 1024f64.powi(5),
        u => bail!("cannot read size {s:?}: unknown unit {u:?}"),
    };
    if !(n.is_finite() && n >= 0.0) {
        bail!("size {s:?} must be a non-negative number");
    }
    Ok((n * mult).round() as u64)
}

/// Human-readable bytes.
pub fn human(bytes: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes;
    let mut i = 0;
    while v.abs() >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// Whether a scan read the whole table (no partition filter, no data filter
/// beyond null checks): its bytes and rows measure the table.
fn unfiltered(s: &parsers::record::ScanRecord) -> bool {
    let empty = |f: &Option<String>| {
        f.as_deref().is_none_or(|t| {
            let t = t.trim().trim_start_matches('[').trim_end_matches(']');
            t.split(", ").all(|p| {
                p.trim().is_empty() || p.starts_with("isnotnull(") || p.starts_with("IsNotNull(")
            })
        })
    };
    empty(&s.partition_filters) && empty(&s.data_filters) && empty(&s.pushed_filters)
}

/// Table profiles: `--table-stats` first, else the logs (largest bytes and
/// rows of an unfiltered scan; of any scan when none was unfiltered).
pub fn profiles(execs: &[Exec], stats: &TableStats) -> Vec<TableProfile> {
    #[derive(Default)]
    struct Seen {
        full_bytes: Option<i64>,
        full_rows: Option<i64>,
        any_bytes: Option<i64>,
        any_rows: Option<i64>,
        files: Option<i64>,
    }
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    for e in execs {
        for s in &e.record.scans {
            let t = seen.entry(canonical_table(&s.table)).or_default();
            let max = |a: Option<i64>, b: Option<i64>| match (a, b) {
                (Some(x), Some(y)) => Some(x.max(y)),
                (x, y) => x.or(y),
            };
            t.any_bytes = max(t.any_bytes, s.bytes_read);
            t.any_rows = max(t.any_rows, s.rows);
            t.files = max(t.files, s.files_read);
            if unfiltered(s) {
                t.full_bytes = max(t.full_bytes, s.bytes_read);
                t.full_rows = max(t.full_rows, s.rows);
            }
        }
    }
    let mut names: Vec<String> = seen.keys().cloned().collect();
    names.extend(stats.0.keys().cloned());
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|t| {
            let s = seen.get(&t);
            let st = stats.0.get(&t);
            let log_bytes = s.and_then(|s| s.full_bytes.or(s.any_bytes));
            let from_stats = st.and_then(|x| x.bytes).is_some();
            let source = if from_stats {
                "table-stats".to_string()
            } else if s.is_some_and(|s| s.full_bytes.is_some()) {
                "log".to_string()
            } else if log_bytes.is_some() {
                "log (filtered scans only: a lower bound)".to_string()
            } else {
                "unknown".to_string()
            };
            TableProfile {
                table: t.clone(),
                bytes: st
                    .and_then(|x| x.bytes)
                    .or(log_bytes.and_then(|b| u64::try_from(b).ok()))
                    .unwrap_or(0),
                rows: st.and_then(|x| x.rows).or(s
                    .and_then(|s| s.full_rows.or(s.any_rows))
                    .and_then(|r| u64::try_from(r).ok())),
                files: st
                    .and_then(|x| x.files)
                    .or(s.and_then(|s| s.files).and_then(|r| u64::try_from(r).ok())),
                partitioned_by: st.map(|x| x.partitioned_by.clone()).unwrap_or_default(),
                clustered_by: st.map(|x| x.clustered_by.clone()).unwrap_or_default(),
                source,
            }
        })
        .collect()
}

/// Edge demands from an edge table.
pub fn demands(rows: &[EdgeRow]) -> Vec<EdgeDemand> {
    rows.iter()
        .map(|r| EdgeDemand {
            left_table: r.left_table.clone(),
            left_columns: r.left_columns.clone(),
            right_table: r.right_table.clone(),
            right_columns: r.right_columns.clone(),
            jis: r.jis,
            scanned_bytes: r.scanned_bytes,
            smj_count: r.smj_count,
            bhj_count: r.bhj_count,
            other_count: r.other_count,
        })
        .collect()
}

/// Everything `plan` computes.
pub struct Planned {
    /// Profiles used.
    pub profiles: Vec<TableProfile>,
    /// Window planned for.
    pub window: Option<(i64, i64)>,
    /// The edge demands given to the planner (indexed by `EdgeRef::index`).
    pub demands: Vec<EdgeDemand>,
    /// The planner settings used.
    pub config: PlannerConfig,
    /// The plan.
    pub plan: Plan,
}

/// Make the plan for the most recent window.
pub fn make_plan(
    execs: &[Exec],
    score: &ScoreArgs,
    args: &PlanArgs,
    stats: &TableStats,
) -> Result<Planned> {
    let selected: Vec<ExecFacts> = select(execs, score)?;
    let width = pipeline::parse_duration(&args.window)?;
    let fallback = stats.row_fallback();
    let cost = CostMeasure::from(score.cost);
    let wins = windows(&selected, width, pipeline::window_align(width));
    let (window, facts) = match wins.into_iter().rev().find(|(_, _, ex)| !ex.is_empty()) {
        Some((s, e, ex)) => (Some((s, e)), ex),
        None => (None, selected),
    };
    let edges = build_edges(&facts, cost, &fallback);
    let profiles = profiles(execs, stats);
    let config = PlannerConfig {
        scan_reduction: args.scan_reduction,
        horizon: args.horizon,
        discount: args.discount,
        retention_factor: args.retention_factor,
        budget: args.budget.as_deref().map(parse_size).transpose()?,
        storage_budget: args.storage_budget.as_deref().map(parse_size).transpose()?,
        include_broadcast: args.include_broadcast,
        max_cluster_columns: 4,
    };
    let algorithm = if args.exact {
        planner::Algorithm::Exact
    } else {
        planner::Algorithm::Improved
    };
    let demands = demands(&edges);
    let plan =
        planner::plan_with(&profiles, &demands, &config, algorithm).context("planning failed")?;
    Ok(Planned {
        profiles,
        window,
        demands,
        config,
        plan,
    })
}

/// The plan as JSON: the planner's fields, plus the window and the table
/// profiles it used (with where each figure came from).
#[derive(serde::Serialize)]
pub struct PlanJson<'a> {
    /// The plan.
    #[serde(flatten)]
    pub plan: &'a Plan,
    /// Start of the window planned for.
    pub window_start_ms: Option<i64>,
    /// End of that window.
    pub window_end_ms: Option<i64>,
    /// Table sizes and layouts used, with their source.
    pub table_profiles: &'a [TableProfile],
}

impl Planned {
    /// The JSON view.
    pub fn json(&self) -> PlanJson<'_> {
        PlanJson {
            plan: &self.plan,
            window_start_ms: self.window.map(|w| w.0),
            window_end_ms: self.window.map(|w| w.1),
            table_profiles: &self.profiles,
        }
    }
}

/// Edges that would pay on their own but that the plan does not serve,
/// with the rewrite they need: what a larger budget would buy.
pub fn left_out(p: &Planned) -> Vec<(String, f64, f64)> {
    let plan = &p.plan;
    let served: std::collections::BTreeSet<usize> = plan
        .tables
        .iter()
        .flat_map(|t| t.edges_served.iter().map(|e| e.edge.index))
        .collect();
    let excluded: std::collections::BTreeSet<usize> =
        plan.excluded_broadcast.iter().map(|e| e.index).collect();
    let size = |t: &str| {
        p.profiles
            .iter()
            .find(|x| x.table == t)
            .map_or(0, |x| x.bytes) as f64
    };
    let mut out = Vec::new();
    for (i, d) in p.demands.iter().enumerate() {
        if served.contains(&i) || excluded.contains(&i) {
            continue;
        }
        let rewrite = if d.left_table == d.right_table {
            size(&d.left_table)
        } else {
            size(&d.left_table) + size(&d.right_table)
        };
        let gain = p.config.scan_reduction * d.scanned_bytes * plan.annuity_factor;
        let npv = gain - rewrite * (1.0 + p.config.retention_factor);
        if npv > 0.0 {
            out.push((d.label(), rewrite, npv));
        }
    }
    out.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The plan as text for a person.
pub fn render_text(p: &Planned) -> String {
    let plan = &p.plan;
    let mut s = String::new();
    let _ = writeln!(s, "Layout plan ({} planner)", plan.algorithm);
    if let Some((a, b)) = p.window {
        let _ = writeln!(s, "window: {} .. {}", format_time(a), format_time(b));
    }
    let _ = writeln!(
        s,
        "rewrite {} of budget {}{}; storage {} of budget {}{}",
        human(plan.rewrite_cost as f64),
        human(plan.budget as f64),
        if plan.budget_defaulted {
            " (default: 25% of candidate tables)"
        } else {
            ""
        },
        human(plan.storage_cost as f64),
        human(plan.storage_budget as f64),
        if plan.storage_budget_defaulted {
            " (default: 25% of candidate tables)"
        } else {
            ""
        },
    );
    let _ = writeln!(
        s,
        "NPV {} over the horizon (annuity factor {:.4})",
        human(plan.total_npv),
        plan.annuity_factor
    );
    let changed: Vec<_> = plan.tables.iter().filter(|t| t.changed).collect();
    if changed.is_empty() {
        let _ = writeln!(s, "\nNo layout change pays for itself within the budgets.");
    }
    for t in &plan.tables {
        let _ = writeln!(
            s,
            "\n{}  CLUSTER BY ({}){}",
            t.table,
            t.keys.join(", "),
            if !t.changed {
                "  [already in place]"
            } else if t.replace {
                "  [partitioned: replace]"
            } else {
                ""
            }
        );
        let src = p
            .profiles
            .iter()
            .find(|x| x.table == t.table)
            .map(|x| x.source.as_str())
            .unwrap_or("unknown");
        let _ = writeln!(
            s,
            "  rewrite {}  storage {}  NPV share {}  (size from {src})",
            human(t.rewrite_bytes as f64),
            human(t.storage_bytes as f64),
            human(t.npv_contribution)
        );
        for e in &t.edges_served {
            let _ = writeln!(
                s,
                "  serves {}  JIS {:.3}  saves {}/window",
                e.edge.label,
                e.edge.jis,
                human(e.scan_reduction)
            );
        }
    }
    if !plan.excluded_broadcast.is_empty() {
        let _ = writeln!(
            s,
            "\nBroadcast-only joins, not planned for (clustering does not help a broadcast; --include-broadcast to plan them):"
        );
        for e in &plan.excluded_broadcast {
            let _ = writeln!(s, "  {}  JIS {:.3}", e.label, e.jis);
        }
    }
    let missed = left_out(p);
    if !missed.is_empty() {
        let _ = writeln!(
            s,
            "\nWould pay on their own but are not in the plan (budget or a conflicting key on a shared table):"
        );
        for (label, rewrite, npv) in missed.iter().take(10) {
            let _ = writeln!(
                s,
                "  {label}  needs a rewrite of {}  stand-alone NPV {}",
                human(*rewrite),
                human(*npv)
            );
        }
    }
    for e in &plan.skipped {
        let _ = writeln!(s, "skipped {}: {}", e.edge.label, e.reason);
    }
    s
}
