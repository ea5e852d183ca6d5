//! Public input and output types of the planner (all serde).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the planner knows about one table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableProfile {
    /// Fully qualified table name as the plans print it (`spark_catalog.default.orders`).
    pub table: String,
    /// Bytes of the table's live data: what a full rewrite reads and writes.
    pub bytes: u64,
    /// Row count, when known.
    pub rows: Option<u64>,
    /// File count, when known.
    pub files: Option<u64>,
    /// Catalog partition columns (empty when not partitioned).
    pub partitioned_by: Vec<String>,
    /// Current Liquid Clustering columns (empty when not clustered).
    pub clustered_by: Vec<String>,
    /// Where the figures come from: `"table metadata"` (`--tables`), `"table-stats"` or `"log"`.
    pub source: String,
}

/// Demand for one join relationship (an edge of the join graph) in one window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeDemand {
    /// Left table.
    pub left_table: String,
    /// Left join-key columns, paired by position with `right_columns`.
    pub left_columns: Vec<String>,
    /// Right table (equal to `left_table` for a self join).
    pub right_table: String,
    /// Right join-key columns.
    pub right_columns: Vec<String>,
    /// Join Importance Score (dimensionless priority, reported, not used in NPV).
    pub jis: f64,
    /// Bytes that the window's executions containing the edge read from both tables.
    pub scanned_bytes: f64,
    /// Executions in which the join ran as SortMergeJoin.
    pub smj_count: u64,
    /// Executions in which the join ran as BroadcastHashJoin.
    pub bhj_count: u64,
    /// Executions in which the join ran as any other operator.
    pub other_count: u64,
    /// Bytes saved per window when both sides take the edge's key,
    /// measured from the tables' statistics (`lakeaudit whatif`); `None`:
    /// assumed, `scan_reduction × scanned_bytes`. A measured demand on
    /// one table (`left_table == right_table`, the same columns) is what
    /// clustering that table by the key saves its own scans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_saving: Option<f64>,
}

impl EdgeDemand {
    /// Bytes saved per window when the edge is served: measured, else
    /// `scan_reduction × scanned_bytes`.
    pub fn saving(&self, scan_reduction: f64) -> f64 {
        self.measured_saving
            .unwrap_or(scan_reduction * self.scanned_bytes)
            .max(0.0)
    }

    /// Whether this is one table's own measured demand (its scans'
    /// filters), not a join.
    pub fn is_table_demand(&self) -> bool {
        self.measured_saving.is_some()
            && self.left_table == self.right_table
            && self.left_columns == self.right_columns
    }

    /// True when the edge ran only as BroadcastHashJoin: clustering gains it little
    /// (it skips files only before a shuffle the broadcast does not have).
    pub fn broadcast_only(&self) -> bool {
        self.smj_count == 0 && self.other_count == 0 && self.bhj_count > 0
    }

    /// `left(cols) = right(cols)` for reports and error messages;
    /// `table(cols): its filters` for a table's own demand.
    pub fn label(&self) -> String {
        if self.is_table_demand() {
            return format!(
                "{}({}): its filters",
                self.left_table,
                self.left_columns.join(", ")
            );
        }
        format!(
            "{}({}) = {}({})",
            self.left_table,
            self.left_columns.join(", "),
            self.right_table,
            self.right_columns.join(", ")
        )
    }
}

/// Planner knobs (METHOD.md §2.4). [`Default`] gives the published values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannerConfig {
    /// Fraction of an edge's scanned bytes saved when both tables share its key (0.30).
    pub scan_reduction: f64,
    /// Planning horizon H in windows (4).
    pub horizon: u32,
    /// Discount rate r per window (0.05).
    pub discount: f64,
    /// Storage cost per rewritten byte: old files are kept until VACUUM (1.0).
    pub retention_factor: f64,
    /// Rewrite budget B in bytes; `None`: no limit (every change that pays).
    pub budget: Option<u64>,
    /// Storage budget S in bytes; `None`: no limit.
    pub storage_budget: Option<u64>,
    /// Plan for edges that ran only as BroadcastHashJoin too.
    pub include_broadcast: bool,
    /// Most clustering columns a key may have (Delta allows 4).
    pub max_cluster_columns: usize,
    /// A table smaller than this (one target file) is never re-laid out:
    /// after the rewrite it is one file, and clustering skips files, not
    /// rows inside one. `None`: no such limit (the library default; the
    /// command line gives 1 GiB, Delta OPTIMIZE's `maxFileSize`).
    #[serde(default)]
    pub min_table_bytes: Option<u64>,
    /// Tables whose size rule is their simulated rewrite's file count
    /// (audited with `--tables`): [`Self::min_table_bytes`] does not apply
    /// to them.
    pub sized_by_rewrite: std::collections::BTreeSet<String>,
    /// Tables kept in their current layout, and why ([`crate::settle`]
    /// fills it); an edge that needs one of them re-laid out is skipped.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub left_alone: BTreeMap<String, LeaveAlone>,
}

/// Why the planner keeps a table in its current layout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum LeaveAlone {
    /// Smaller than one target file.
    SmallerThanTargetFile {
        /// The table's bytes.
        bytes: u64,
        /// The target file size.
        target: u64,
    },
    /// Its rewrite makes fewer than two files, so no file can be skipped.
    OneFileRewrite {
        /// The rewriter simulated.
        rewriter: crate::engine::Rewriter,
        /// The table's bytes.
        bytes: u64,
        /// The rewrite's target file size.
        target: u64,
    },
    /// Its own share of the plan's saving is below its own rewrite and storage.
    NegativeValue {
        /// Its share of the discounted saving of the edges it would serve.
        saving: f64,
        /// Its rewrite and storage cost.
        cost: f64,
    },
    /// Moving it off its current clustering saves less than the rewrite
    /// plus what the current key is worth to the edges it serves.
    KeepsClustering {
        /// Its current clustering columns.
        keys: Vec<String>,
        /// Its share of the discounted saving of the new key.
        saving: f64,
        /// Rewrite, storage and the current key's share of its edges' saving.
        cost: f64,
    },
}

impl std::fmt::Display for LeaveAlone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::size::human;
        match self {
            LeaveAlone::SmallerThanTargetFile { bytes, target } => write!(
                f,
                "smaller than one target file ({} < {}), so clustering has no files to skip",
                human(*bytes as f64),
                human(*target as f64)
            ),
            LeaveAlone::OneFileRewrite {
                rewriter,
                bytes,
                target,
            } => write!(
                f,
                "its rewrite by {rewriter} at {} files makes one file of its {}, so clustering has no files to skip",
                human(*target as f64),
                human(*bytes as f64)
            ),
            LeaveAlone::NegativeValue { saving, cost } => write!(
                f,
                "costs more than it saves: its share of the saving, {}, is less than its rewrite and storage, {}",
                human(*saving),
                human(*cost)
            ),
            LeaveAlone::KeepsClustering { keys, saving, cost } => write!(
                f,
                "keeps CLUSTER BY ({}): moving it saves {}, less than the rewrite and storage plus what the current key serves, {}",
                keys.join(", "),
                human(*saving),
                human(*cost)
            ),
        }
    }
}

/// A table the plan keeps as it is, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeftAlone {
    /// The table.
    pub table: String,
    /// Why.
    pub reason: LeaveAlone,
}

impl Default for PlannerConfig {
    fn default() -> Self {
        PlannerConfig {
            scan_reduction: 0.30,
            horizon: 4,
            discount: 0.05,
            retention_factor: 1.0,
            budget: None,
            storage_budget: None,
            include_broadcast: false,
            max_cluster_columns: 4,
            min_table_bytes: None,
            sized_by_rewrite: Default::default(),
            left_alone: BTreeMap::new(),
        }
    }
}

/// A table's physical layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "columns", rename_all = "snake_case")]
pub enum Layout {
    /// Neither partitioned nor clustered.
    None,
    /// Catalog partitioning (`PARTITIONED BY`).
    Partitioned(Vec<String>),
    /// Liquid Clustering (`CLUSTER BY`), columns sorted.
    Clustered(Vec<String>),
}

/// Which planner produced a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// METHOD.md's greedy: best marginal NPV first, lazy re-scoring.
    Greedy,
    /// Greedy ranked by marginal NPV per rewritten byte.
    GreedyPerByte,
    /// Several greedy starts, then bounded local search, on the whole
    /// instance at once (the default planner before it split instances).
    LocalSearch,
    /// Default: the instance split into connected components, each solved by
    /// branch and bound when small and by [`Algorithm::LocalSearch`]
    /// otherwise, combined under the shared budgets by a knapsack.
    Improved,
    /// Branch and bound per connected component, combined exactly (each
    /// component within the exact solver's size limits).
    Exact,
}

impl Algorithm {
    /// The name used in [`LayoutPlan::algorithm`].
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Greedy => "greedy",
            Algorithm::GreedyPerByte => "greedy-per-byte",
            Algorithm::LocalSearch => "local-search",
            Algorithm::Improved => "improved",
            Algorithm::Exact => "exact",
        }
    }
}

/// An input edge, named, as the plan reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeRef {
    /// Index into the `edges` slice given to the planner.
    pub index: usize,
    /// `left(cols) = right(cols)`.
    pub label: String,
    /// The edge's JIS.
    pub jis: f64,
}

/// An edge the planner could not plan for, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkippedEdge {
    /// The edge.
    pub edge: EdgeRef,
    /// Why it was skipped.
    pub reason: String,
}

/// An edge a table's chosen layout serves (both sides clustered on its key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServedEdge {
    /// The edge.
    pub edge: EdgeRef,
    /// Bytes saved per window: measured, else `scan_reduction ×
    /// scanned_bytes` ([`EdgeDemand::saving`]).
    pub scan_reduction: f64,
}

/// The planner's decision for one table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableDecision {
    /// The table.
    pub table: String,
    /// Chosen clustering columns (sorted; Delta ignores their order).
    pub keys: Vec<String>,
    /// Layout before the plan.
    pub previous: Layout,
    /// True when the layout changes (DDL is needed).
    pub changed: bool,
    /// True when the table is partitioned and must be replaced (full rewrite by CTAS).
    pub replace: bool,
    /// Bytes rewritten (0 when unchanged).
    pub rewrite_bytes: u64,
    /// Bytes kept until VACUUM: `retention_factor × rewrite_bytes`.
    pub storage_bytes: u64,
    /// Edges this layout serves.
    pub edges_served: Vec<ServedEdge>,
    /// This table's share of the NPV: half the discounted saving of each served edge
    /// (all of it for a self join) minus its own rewrite and storage cost, so that the
    /// contributions add up to [`LayoutPlan::total_npv`].
    pub npv_contribution: f64,
}

impl TableDecision {
    /// The table's current clustering key when the plan moves it to another
    /// one (key drift: the workload now joins it on different columns).
    pub fn key_drift(&self) -> Option<&[String]> {
        match &self.previous {
            Layout::Clustered(k) if self.changed && *k != self.keys => Some(k),
            Layout::Clustered(_) | Layout::Partitioned(_) | Layout::None => None,
        }
    }
}

/// A layout plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayoutPlan {
    /// Decisions for tables that change or that serve an edge, best contribution first.
    pub tables: Vec<TableDecision>,
    /// NPV of the plan in bytes.
    pub total_npv: f64,
    /// Σ rewritten bytes.
    pub rewrite_cost: u64,
    /// Σ bytes kept until VACUUM.
    pub storage_cost: u64,
    /// Rewrite budget B used (`None`: no limit).
    pub budget: Option<u64>,
    /// Storage budget S used (`None`: no limit).
    pub storage_budget: Option<u64>,
    /// Annuity factor `(1 − (1+r)^−H) / r` used.
    pub annuity_factor: f64,
    /// Broadcast-only edges left out (METHOD.md: reported, not planned for).
    pub excluded_broadcast: Vec<EdgeRef>,
    /// Edges that could not be planned (too many key columns, unknown table, ...).
    pub skipped: Vec<SkippedEdge>,
    /// Which planner made the plan (see [`Algorithm::name`]).
    pub algorithm: String,
    /// Tables kept as they are by a planning rule, and why.
    #[serde(default)]
    pub left_alone: Vec<LeftAlone>,
}
