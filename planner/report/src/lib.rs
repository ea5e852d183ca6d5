//! The reports of `lakeaudit analyze`: `report.md` and `report.html`.
//!
//! The binary assembles one [`ReportData`] (what was read, the edge table,
//! drift per window, the plan with its SQL and the edges it leaves out, the
//! budget curve) and this crate renders it:
//!
//! - [`markdown`]: the short Markdown summary;
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
//! }];
//! let config = PlannerConfig::default();
//! let (plan, curve) = plan_and_curve(&profiles, &demands, &config, Algorithm::Improved).unwrap();
//! let left_out = left_out(&profiles, &demands, &config, &plan).unwrap();
//! let planned = Planned { profiles, window: None, demands, config, plan, left_out, curve };
//! let data = ReportData {
//!     inputs: InputSummary { applications: 1, executions: 10, queries: 10, span: None },
//!     apps: vec![],
//!     warnings: &[],
//!     errors: &[],
//!     edges: &[],
//!     drift: &[],
//!     drift_threshold: 0.1,
//!     window: "7d",
//!     planned: &planned,
//!     sql: &planner::ddl(&planned.plan),
//!     maintenance: None,
//! };
//! let md = report::markdown::render(&data);
//! assert!(md.contains("CLUSTER BY (&lt;b&gt;key)"));
//! let page = report::html(&data).unwrap();
//! assert!(page.contains("&lt;b&gt;key") && !page.contains("<b>key"));
//! assert_eq!(page, report::html(&data).unwrap());
//! ```
#![deny(missing_docs)]

mod charts;
pub mod error;
mod html;
pub mod joingraph;
pub mod layout;
pub mod markdown;

pub use error::{Error, Result};
pub use html::html;

use graph::edges::EdgeRow;
use planner::{DriftRow, Planned};
use std::collections::BTreeMap;

/// Everything the reports show, assembled by the binary.
#[derive(Clone, Debug)]
pub struct ReportData<'a> {
    /// What was read.
    pub inputs: InputSummary,
    /// One line per application, sorted by application id.
    pub apps: Vec<App>,
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
    /// The window length as the user gave it (`7d`).
    pub window: &'a str,
    /// The plan, with its demands, profiles and left-out edges.
    pub planned: &'a Planned,
    /// The plan's Delta SQL (`plan.sql`).
    pub sql: &'a str,
    /// The maintenance plan (`--tables`), best value first; `None` when
    /// no table was audited.
    pub maintenance: Option<&'a [maintenance::UpkeepStep]>,
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
