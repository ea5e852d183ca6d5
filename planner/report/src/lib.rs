//! The reports of `lakeaudit analyze`: `report.md` and `report.html`.
//!
//! The binary assembles one [`ReportData`] (what was read, the edge table,
//! drift per window, the plan with its SQL and the edges it leaves out, the
//! budget curve) and this crate renders it:
//!
//! - [`markdown`]: the short Markdown summary;
//! - [`plan_text`]: the plan as text (`lakeaudit plan`);
//! - [`analysis`]: every output of `lakeaudit analyze` into its directory;
//! - [`columns`]: the commands' results as columns (CSV, Parquet, the
//!   terminal table);
//! - [`explain`]: why an edge scored what it did (`edges --explain`);
//! - [`html`]: one self-contained page (no network, no external file; it
//!   opens from a mail attachment): the join graph as an SVG picture laid
//!   out deterministically, the drift chart, the budget curve, the plan with
//!   its SQL and the tables of the Markdown report, sortable.
//!
//! Every name that comes from the logs (tables, columns, applications,
//! warnings with paths, SQL text) is escaped: in the page by the templates
//! (maud) and the SVG writer (plotters), behind a Content-Security-Policy
//! that allows only the page's own style and script (by hash); in Markdown
//! by [`markdown::text`] and [`markdown::code`]. The same data gives
//! byte-identical files.
//!
//! ```
//! use planner::{plan_and_curve, workload::left_out, Algorithm, PlannerConfig, Planned, TableProfile, EdgeDemand};
//! use report::{InputSummary, ReportData};
//!
//! let t = |name: &str, bytes| TableProfile {
//!     table: name.into(), bytes, rows: None, files: None,
//!     partitioned_by: vec![], clustered_by: vec![], source: "table-stats".into(),
//! };
//! let profiles = vec![t("db.orders", 1_000), t("db.lineitem", 4_000)];
//! let demands = vec![EdgeDemand {
//!     left_table: "db.lineitem".into(), left_columns: vec!["<b>key".into()],
//!     right_table: "db.orders".into(), right_columns: vec!["<b>key".into()],
//!     jis: 1.0, scanned_bytes: 50_000.0, smj_count: 10, bhj_count: 0, other_count: 0,
//!     measured_saving: None,
//! }];
//! let config = PlannerConfig::default();
//! let (plan, curve) = plan_and_curve(&profiles, &demands, &config, Algorithm::Improved).unwrap();
//! let left_out = left_out(&profiles, &demands, &config, &plan).unwrap();
//! let planned = Planned {
//!     profiles, window: None, demands, config, plan, left_out, curve,
//!     measured: vec![], replaced: vec![],
//! };
//! let data = ReportData {
//!     inputs: InputSummary { applications: 1, executions: 10, queries: 10, span: None },
//!     apps: Default::default(),
//!     warnings: &[],
//!     errors: &[],
//!     edges: &[],
//!     drift: &[],
//!     drift_threshold: 0.3,
//!     drift_settle: 0.15,
//!     window: "7d",
//!     planned: &planned,
//!     sql: &planner::ddl(&planned.plan),
//!     maintenance: None,
//!     edges_span: None,
//!     money: &report::Money::default(),
//!     formats: &[("db.orders".to_string(), planner::TableFormat::Delta),
//!                ("db.lineitem".to_string(), planner::TableFormat::Delta)].into_iter().collect(),
//!     quality: &[],
//!     verify: &[],
//!     calibration: &[],
//! };
//! let md = report::markdown::render(&data);
//! assert!(md.contains("CLUSTER BY (&lt;b&gt;key)"));
//! let page = report::html(&data).unwrap();
//! assert!(page.contains("&lt;b&gt;key") && !page.contains("<b>key"));
//! assert_eq!(page, report::html(&data).unwrap());
//! ```
//!
//! Fallible calls return the crate's [`Error`] (a chart that cannot be
//! drawn, an output that cannot be written, an `--explain` pattern that
//! matches no edge).
#![deny(missing_docs)]

pub mod analysis;
mod charts;
pub mod columns;
pub mod error;
pub mod explain;
mod html;
pub mod joingraph;
pub mod layout;
pub mod markdown;
pub mod plan_text;
pub mod upkeep;

/// The words both reports say a verified rewrite's figures in.
pub(crate) mod verified {
    use skipping::verify::VerifyRow;

    /// Files per run, measured: `106 → 66 (-38%)`.
    pub fn measured_files(r: &VerifyRow) -> String {
        pair(r.files_per_run_before, r.files_per_run_after, |v| {
            format!("{v:.1}")
        })
    }

    /// Bytes per run, measured.
    pub fn measured_bytes(r: &VerifyRow) -> String {
        pair(
            r.bytes_per_run_before,
            r.bytes_per_run_after,
            planner::human,
        )
    }

    /// Files per run, predicted from the snapshot before.
    pub fn predicted_files(r: &VerifyRow) -> String {
        pair(r.predicted_files_before, r.predicted_files_after, |v| {
            format!("{v:.1}")
        })
    }

    fn pair(before: Option<f64>, after: Option<f64>, show: impl Fn(f64) -> String) -> String {
        match (before, after) {
            (Some(b), Some(a)) if b > 0.0 => {
                format!("{} → {} ({:+.0}%)", show(b), show(a), (a - b) / b * 100.0)
            }
            (Some(b), Some(a)) => format!("{} → {}", show(b), show(a)),
            (Some(b), None) => format!("{} → none", show(b)),
            _ => "none".into(),
        }
    }
}

pub use error::{Error, Result};
pub use html::html;

use parsers::events::{AppSummary, EventKind};
use planner::{DriftRow, Planned};
use std::collections::BTreeMap;
use workload::edges::EdgeRow;
use workload::Workload;

/// Everything the reports show, assembled by the binary.
#[derive(Clone, Debug)]
pub struct ReportData<'a> {
    /// What was read.
    pub inputs: InputSummary,
    /// One line per application, sorted by application id, for the first
    /// [`LISTED_APPS`]; the others summed up.
    pub apps: Apps,
    /// Warnings about inputs (`path[:line]: reason`).
    pub warnings: &'a [String],
    /// Errors about inputs.
    pub errors: &'a [String],
    /// The edge table over the whole input, best JIS first.
    pub edges: &'a [EdgeRow],
    /// Drift between consecutive windows.
    pub drift: &'a [DriftRow],
    /// The drift threshold above which a window asks for a re-plan.
    pub drift_threshold: f64,
    /// Below or at this, a re-plan due from an earlier window is no
    /// longer due (`planner::drift::hold`).
    pub drift_settle: f64,
    /// The window length as the user gave it (`7d`).
    pub window: &'a str,
    /// The plan, with its demands, profiles and left-out edges.
    pub planned: &'a Planned,
    /// The plan's Delta SQL (`plan.sql`).
    pub sql: &'a str,
    /// The maintenance plan (`--tables`), best value first; `None` when
    /// no table was audited.
    pub maintenance: Option<&'a [maintenance::UpkeepStep]>,
    /// First and last execution start of the range the edge table covers
    /// (the `--since`/`--until` selection), when known.
    pub edges_span: Option<(i64, i64)>,
    /// What the plan's changes save per week, in bytes, executor time and
    /// money.
    pub money: &'a Money,
    /// Each table's format (from the table audit, else the logs' scans);
    /// a table missing here is of unknown format.
    pub formats: &'a BTreeMap<String, planner::TableFormat>,
    /// Layout quality of the audited tables on the columns the workload
    /// filters or joins on (`--tables`; empty otherwise): the report draws
    /// the depth histogram of each changed table's key.
    pub quality: &'a [skipping::quality::Quality],
    /// The rewrites inside the input's range, verified (`verify.csv`):
    /// the section "Did the rewrite pay?" when there is one.
    pub verify: &'a [skipping::verify::VerifyRow],
    /// Which model reproduces each audited table's logged counts
    /// (`calibration.csv`; empty without `--tables`).
    pub calibration: &'a [skipping::calibrate::Calibration],
}

impl ReportData<'_> {
    /// The changed tables of the plan as every rendering shows them
    /// ([`plan_text::TableView`]).
    pub(crate) fn table_views(&self) -> Vec<plan_text::TableView<'_>> {
        let p = self.planned;
        plan_text::table_views(&p.plan, &p.measured, true, |t| self.format(t))
    }

    /// The change the plan makes to `t`, in the words of `t`'s format
    /// ([`planner::planned_layout`]).
    pub fn planned_layout(&self, t: &planner::TableDecision) -> String {
        planner::planned_layout(&t.keys, self.format(&t.table))
    }

    /// The same in few words ([`planner::planned_layout_short`]), for the
    /// join graph's labels.
    pub fn planned_layout_short(&self, t: &planner::TableDecision) -> String {
        planner::planned_layout_short(&t.keys, self.format(&t.table))
    }

    pub(crate) fn format(&self, table: &str) -> &planner::TableFormat {
        static UNKNOWN: planner::TableFormat = planner::TableFormat::Unknown;
        self.formats.get(table).unwrap_or(&UNKNOWN)
    }
}

const WEEK_MS: f64 = 7.0 * 86_400_000.0;

/// How the plan's savings are put in the units a team pays in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Money {
    /// Length of the planning window, ms (savings are per window; the
    /// reports scale them to a week). 0 when unknown.
    pub window_ms: i64,
    /// Executor (task) time each served edge saves per window, ms, by the
    /// edge's index in the plan's demands: its executions' task time × the
    /// share of their bytes read that the clustering saves.
    pub executor_ms: BTreeMap<usize, f64>,
    /// `--cost-per-tb`: price of scanning 10^12 bytes.
    pub cost_per_tb: Option<f64>,
    /// `--cost-per-hour`: price of one executor hour.
    pub cost_per_hour: Option<f64>,
}

impl InputSummary {
    /// What was read: applications, executions, queries and their span.
    pub fn of(data: &Workload) -> InputSummary {
        InputSummary {
            applications: data.apps.len(),
            executions: data.census.executions,
            queries: data.census.queries,
            span: data.census.span,
        }
    }
}

/// Applications the reports list one by one; the others are summed up in
/// one line (an archive can hold hundreds of thousands of applications:
/// `queries --apps` lists every one).
pub const LISTED_APPS: usize = 100;

/// The applications as the reports show them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Apps {
    /// The first [`LISTED_APPS`], one line each.
    pub listed: Vec<App>,
    /// The rest, summed up.
    pub rest: OtherApps,
}

/// The applications past the listed ones, summed up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OtherApps {
    /// How many.
    pub count: usize,
    /// Their lines.
    pub lines: u64,
    /// Their events of kinds lakeaudit does not use.
    pub skipped_events: u64,
    /// Their SQL executions that started but never ended.
    pub unfinished_executions: u64,
    /// How many of them name plan operators the registry does not know.
    pub with_unknown_operators: usize,
}

impl Apps {
    /// The first [`LISTED_APPS`] of `apps` (in their order), the rest
    /// summed up.
    pub fn of(apps: impl IntoIterator<Item = AppSummary>) -> Apps {
        let mut shown = Apps::default();
        for a in apps {
            if shown.listed.len() < LISTED_APPS {
                shown.listed.push(App::of(&a));
                continue;
            }
            let (r, a) = (&mut shown.rest, App::of(&a));
            r.count += 1;
            r.lines = r.lines.saturating_add(a.lines);
            r.skipped_events = r.skipped_events.saturating_add(a.skipped_events);
            r.unfinished_executions = r
                .unfinished_executions
                .saturating_add(a.unfinished_executions);
            r.with_unknown_operators += usize::from(!a.unknown_operators.is_empty());
        }
        shown
    }
}

impl OtherApps {
    /// The line the reports print for them (`None` when there is none);
    /// each report adds that `lakeaudit queries --apps FILE` lists them.
    pub fn line(&self) -> Option<String> {
        (self.count > 0).then(|| {
            format!(
                "… and {} more applications: {} lines, {} events of kinds lakeaudit does not use, {} execution(s) never ended, {} with unknown plan operators",
                self.count,
                self.lines,
                self.skipped_events,
                self.unfinished_executions,
                self.with_unknown_operators
            )
        })
    }
}

impl App {
    /// One application as the reports show it.
    pub fn of(a: &AppSummary) -> App {
        App {
            app_id: a.app_id.clone(),
            name: a.app_name.clone(),
            spark_version: a.spark_version.clone(),
            lines: a.lines,
            skipped_events: a.event_counts.get(&EventKind::Other).copied().unwrap_or(0),
            unfinished_executions: a.unfinished_executions,
            unknown_operators: a.unknown_operators.clone(),
        }
    }
}

/// A saving per week.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Saving {
    /// Bytes not scanned.
    pub bytes: f64,
    /// Executor hours not spent.
    pub executor_hours: f64,
    /// Both at the given prices (`None` without a price).
    pub cost: Option<f64>,
}

impl Money {
    /// Windows per week (1 when the window length is unknown).
    fn weekly(&self) -> f64 {
        if self.window_ms > 0 {
            WEEK_MS / self.window_ms as f64
        } else {
            1.0
        }
    }

    fn priced(&self, bytes: f64, hours: f64) -> Saving {
        let cost = match (self.cost_per_tb, self.cost_per_hour) {
            (None, None) => None,
            (tb, h) => Some(bytes / 1e12 * tb.unwrap_or(0.0) + hours * h.unwrap_or(0.0)),
        };
        Saving {
            bytes,
            executor_hours: hours,
            cost,
        }
    }

    /// What serving edge `e` saves per week.
    pub fn edge(&self, e: &planner::ServedEdge) -> Saving {
        let k = self.weekly();
        let ms = self.executor_ms.get(&e.edge.index).copied().unwrap_or(0.0);
        self.priced(e.scan_reduction * k, ms * k / 3_600_000.0)
    }

    /// A change's share of the weekly saving, as the NPV shares it: half of
    /// each edge it serves with another table (both tables must be
    /// clustered for the saving), all of a self join's.
    pub fn change(&self, t: &planner::TableDecision, planned: &Planned) -> Saving {
        let (mut bytes, mut hours) = (0.0, 0.0);
        for e in &t.edges_served {
            let share = match planned.demands.get(e.edge.index) {
                Some(d) if d.left_table == d.right_table => 1.0,
                _ => 0.5,
            };
            let s = self.edge(e);
            bytes += s.bytes * share;
            hours += s.executor_hours * share;
        }
        self.priced(bytes, hours)
    }

    /// The whole plan's weekly saving: every served edge once.
    pub fn plan(&self, planned: &Planned) -> Saving {
        let mut seen = std::collections::BTreeSet::new();
        let (mut bytes, mut hours) = (0.0, 0.0);
        for e in planned.plan.tables.iter().flat_map(|t| &t.edges_served) {
            if seen.insert(e.edge.index) {
                let s = self.edge(e);
                bytes += s.bytes;
                hours += s.executor_hours;
            }
        }
        self.priced(bytes, hours)
    }

    /// `2.4 MiB scanned, 0.31 executor-hours[, cost 1.52]`.
    pub fn describe(&self, s: Saving) -> String {
        let mut out = format!(
            "{} scanned and {} of executor time",
            planner::human(s.bytes),
            hours(s.executor_hours)
        );
        if let Some(c) = s.cost {
            out.push_str(&format!(", cost {c:.2}"));
        }
        out
    }

    /// The prices, for a footnote: `at 5.00 per TB scanned and 0.50 per
    /// executor hour`, empty without prices.
    pub fn prices(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = self.cost_per_tb {
            parts.push(format!("{p:.2} per TB (10^12 bytes) scanned"));
        }
        if let Some(p) = self.cost_per_hour {
            parts.push(format!("{p:.2} per executor hour"));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("at {}", parts.join(" and "))
        }
    }
}

/// Executor time given in hours, in the unit that reads best: `850 ms`,
/// `19.9 s`, `2.3 min`, `1.25 h`.
pub fn hours(h: f64) -> String {
    let ms = h * 3_600_000.0;
    let a = ms.abs();
    if a < 1000.0 {
        format!("{ms:.0} ms")
    } else if a < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else if a < 3_600_000.0 {
        format!("{:.1} min", ms / 60_000.0)
    } else {
        format!("{h:.2} h")
    }
}

/// Where the budget curve starts and ends, in words both reports use: from
/// its first point (the cheapest plan that pays for itself) to the plan
/// with no rewrite limit, and, when a smaller change exists, that it does
/// not pay (the curve is empty below its first point). Empty for a curve
/// without points.
pub fn curve_span(c: &planner::BudgetCurve) -> String {
    let Some(first) = c.points.first() else {
        return String::new();
    };
    let mut s = format!(
        "from the cheapest plan that pays for itself (a rewrite of {}) to the plan with no rewrite limit",
        planner::human(first.budget as f64)
    );
    if c.cheapest_change > 0 && c.cheapest_change < first.budget {
        s.push_str(&format!(
            "; a smaller budget buys nothing that pays, not even the cheapest single change (a rewrite of {})",
            planner::human(c.cheapest_change as f64)
        ));
    }
    s
}

/// Whether the drift asks for action now, in one sentence: the latest
/// window against the one before it (across any gap of empty windows).
pub fn drift_now(drift: &[DriftRow], threshold: f64, settle: f64) -> String {
    let Some(r) = drift.last() else {
        return "The input spans one window: no drift to measure.".into();
    };
    let width = r.window_end_ms - r.window_start_ms;
    let gap = if r.gap_windows > 0 {
        format!(
            " ({} empty window(s) lie between them: the workloads compared are {} days apart)",
            r.gap_windows,
            (r.window_start_ms - r.prev_window_start_ms) / 86_400_000
        )
    } else {
        String::new()
    };
    let latest = format!(
        "the latest window ({} .. {}) drifted {:.3} from the one before ({} .. {}){gap}",
        workload::time::format_time(r.window_start_ms),
        workload::time::format_time(r.window_end_ms),
        r.drift,
        workload::time::format_time(r.prev_window_start_ms),
        workload::time::format_time(r.prev_window_start_ms + width),
    );
    if r.held {
        format!("Action needed now: re-plan; {latest}, within the threshold {threshold}, but a re-plan has been due since an earlier window drifted past it and drift has not settled to {settle} or below.")
    } else if r.replan {
        format!("Action needed now: re-plan; {latest}, above the threshold {threshold}.")
    } else {
        format!("No action needed now: {latest}, within the threshold {threshold}.")
    }
}

/// Counts over the inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputSummary {
    /// Applications read.
    pub applications: usize,
    /// SQL executions.
    pub executions: usize,
    /// Executions that are queries (not setup commands).
    pub queries: usize,
    /// First and last execution start (ms since the epoch), when known.
    pub span: Option<(i64, i64)>,
}

/// One application read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct App {
    /// Spark application id.
    pub app_id: String,
    /// Application name (`spark.app.name`).
    pub name: String,
    /// Spark version, when the log says.
    pub spark_version: Option<String>,
    /// Lines of the log.
    pub lines: u64,
    /// Events of kinds lakeaudit does not use.
    pub skipped_events: u64,
    /// SQL executions that started but never ended.
    pub unfinished_executions: u64,
    /// Plan operators the operator registry does not know, with how often
    /// they occur.
    pub unknown_operators: BTreeMap<String, u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The budget curve's text starts where the curve does: at its first
    /// point, the cheapest plan that pays, and says that a smaller change
    /// (the cheapest single one) does not pay.
    #[test]
    fn the_curve_text_starts_where_the_curve_starts() {
        let pt = |budget: u64, npv: f64| planner::CurvePoint {
            budget,
            npv,
            storage_cost: budget,
            tables_changed: 1,
            edges_served: 1,
            chosen: false,
        };
        let mut c = planner::BudgetCurve {
            storage_budget: None,
            cheapest_change: 58_778,
            points: vec![pt(6_710_886, 4.6e7), pt(26_109_542, 4.0e8)],
            chosen: Some(1),
            exact: true,
        };
        assert_eq!(
            curve_span(&c),
            "from the cheapest plan that pays for itself (a rewrite of 6.4 MiB) to the plan with no rewrite limit; \
             a smaller budget buys nothing that pays, not even the cheapest single change (a rewrite of 57.4 KiB)"
        );
        c.cheapest_change = 6_710_886;
        assert_eq!(
            curve_span(&c),
            "from the cheapest plan that pays for itself (a rewrite of 6.4 MiB) to the plan with no rewrite limit"
        );
        c.points.clear();
        assert_eq!(curve_span(&c), "");
    }

    #[test]
    fn the_reports_list_the_first_applications_and_sum_up_the_rest() {
        let apps: Vec<AppSummary> = (0..LISTED_APPS + 3)
            .map(|i| AppSummary {
                app_id: format!("app-{i:04}"),
                lines: 10,
                unfinished_executions: u64::from(i % 2 == 0),
                unknown_operators: [("GpuScan".to_string(), 1)]
                    .into_iter()
                    .filter(|_| i == LISTED_APPS + 2)
                    .collect(),
                event_counts: [(EventKind::Other, 4)].into_iter().collect(),
                ..AppSummary::default()
            })
            .collect();
        let shown = Apps::of(apps.clone());
        assert_eq!(shown.listed.len(), LISTED_APPS);
        assert_eq!(shown.listed[0].app_id, "app-0000");
        let rest = &shown.rest;
        assert_eq!((rest.count, rest.lines, rest.skipped_events), (3, 30, 12));
        assert_eq!(
            (rest.unfinished_executions, rest.with_unknown_operators),
            (2, 1)
        );
        assert!(rest
            .line()
            .unwrap()
            .starts_with("… and 3 more applications: 30 lines"));
        // Few applications: every one listed, no summing line.
        let few = Apps::of(apps[..2].to_vec());
        assert_eq!((few.listed.len(), few.rest.line()), (2, None));
    }
}
